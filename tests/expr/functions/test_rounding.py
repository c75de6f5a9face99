"""``floor``, ``ceil`` and casts in predicates (``expr/binding/functions/rounding.py``):
hand-written edges of DOUBLE and FLOAT (NaN is 0, infinity and huge values saturate, the double
just above an integer), of DECIMAL and of integers (their own value, widened to BIGINT), and a
DECIMAL cast to its nearest DOUBLE.

Each case is one container of rows: the outcome must be sound for every row the reference
evaluates (``tests/support/reference.py``, Spark's semantics) and equal the expected one.
"""

from __future__ import annotations

import decimal
import math

import pyarrow as pa
import pytest

import prunekit as pk
from tests.support.cases import BACKENDS
from tests.support.functions import check

NONE, MAYBE, ALL = pk.NONE_MATCH, pk.MAYBE_MATCH, pk.ALL_MATCH
D = decimal.Decimal
NAN, INF = math.nan, math.inf
F64, F32, I64 = pa.float64(), pa.float32(), pa.int64()
DEC = pa.decimal128(5, 2)

# (column type, rows of one container, predicate on column x, expected outcome, why)
CASES = [
    # floor / ceil of DOUBLE and FLOAT: BIGINT, NaN is 0, beyond BIGINT saturates
    (F64, [2.0, 2.9], "floor(x) = 2", ALL, "[2, 3)"),
    (F64, [1.5, 2.9], "floor(x) = 2", MAYBE, "1.5 floors to 1"),
    (F64, [3.0, 4.0], "floor(x) = 2", NONE, "at least 3"),
    (F64, [NAN], "floor(x) = 0", ALL, "Spark's floor(NaN) is 0"),
    (F64, [NAN], "floor(x) > 3", NONE, "NaN is greatest, but its floor is 0"),
    (F64, [NAN, 5.0], "floor(x) > 3", MAYBE, "5 floors to 5"),
    (F64, [INF], "floor(x) = 9223372036854775807", ALL, "saturates (legacy mode)"),
    (F64, [2.5, 3.0], "ceil(x) = 3", ALL, "(2, 3]"),
    (F64, [3.0000000000000004], "ceil(x) = 3", NONE, "just above 3"),
    (F64, [-0.5, -0.0], "ceil(x) = 0", ALL, "ceil(-0.5) is 0"),
    (F64, [1e300], "floor(x) < 0", NONE, "a huge double saturates, positive"),
    (F32, [1.5, 2.5], "floor(x) >= 1", ALL, "FLOAT works like DOUBLE"),
    (F64, [2.0, 2.9], "floor(x) = 2.5", NONE, "a BIGINT never equals 2.5"),
    # floor / ceil of DECIMAL(p, s): DECIMAL(p - s + 1, 0); of integers: themselves
    (DEC, [D("1.50"), D("1.99")], "floor(x) = 1", ALL, "[1, 2)"),
    (DEC, [D("1.50"), D("2.00")], "ceil(x) = 2", ALL, "(1, 2]"),
    (DEC, [D("-0.50")], "floor(x) = -1", ALL, "floor rounds down"),
    (DEC, [D("2.01")], "ceil(x) <= 2", NONE, "ceil(2.01) is 3"),
    (I64, [5, 7], "floor(x) BETWEEN 5 AND 7", ALL, "an integer is its own floor"),
    (pa.int8(), [127], "ceil(x) + 1 > 127", ALL, "BIGINT: no wrap at 127"),
    # CAST to an integer type: toward zero (NaN is 0, beyond the type saturates outside ANSI)
    (F64, [2.0, 2.9], "CAST(x AS BIGINT) = 2", ALL, "[2, 3)"),
    (F64, [-2.9, -2.0], "CAST(x AS BIGINT) = -2", ALL, "(-3, -2]: toward zero"),
    (F64, [-0.9, 0.9], "CAST(x AS INT) = 0", ALL, "(-1, 1)"),
    (F64, [-1.0], "CAST(x AS BIGINT) = 0", NONE, "-1 is its own truncation"),
    (F64, [NAN], "CAST(x AS BIGINT) = 0", ALL, "NaN is 0 outside ANSI mode"),
    (F64, [1e300], "CAST(x AS INT) = 2147483647", ALL, "saturates at INT's greatest"),
    (F32, [7.5], "CAST(x AS BIGINT) > 7", NONE, "FLOAT works like DOUBLE"),
    # TRY_CAST of a DOUBLE is NULL for NaN and beyond the type, on a non-NULL row: unknown
    (F64, [NAN], "TRY_CAST(x AS BIGINT) IS NULL", MAYBE, "NULL for NaN: TRUE here"),
    (F64, [1e300], "TRY_CAST(x AS BIGINT) <> 0", MAYBE, "NULL beyond the type: not TRUE"),
    (DEC, [D("-2.99"), D("-2.00")], "CAST(x AS BIGINT) = -2", ALL, "(-3, -2]"),
    (DEC, [D("-3.00")], "CAST(x AS INT) = -2", NONE, "exactly -3"),
    (DEC, [D("0.99"), D("-0.99")], "CAST(x AS SMALLINT) = 0", ALL, "DECIMAL(5, 2) fits"),
    # CAST of a DECIMAL to DOUBLE: the nearest DOUBLE, ties to even
    (DEC, [D("0.10")], "CAST(x AS DOUBLE) = 0.1", ALL, "the DOUBLE nearest 0.1"),
    (DEC, [D("0.11"), D("0.20")], "CAST(x AS DOUBLE) > 0.1", ALL, "above 0.1"),
    (DEC, [D("0.09"), D("0.10")], "CAST(x AS DOUBLE) < 0.1", MAYBE, "0.09 is below"),
    (DEC, [D("0.10")], "CAST(x AS DOUBLE) < 0.1", NONE, "0.10 is 0.1 as a DOUBLE"),
    (DEC, [D("-1.00"), D("1.00")], "CAST(x AS DOUBLE) BETWEEN -1 AND 1", ALL, "both ends"),
    (DEC, [D("999.99")], "CAST(x AS DOUBLE) = CAST('NaN' AS DOUBLE)", NONE, "never NaN"),
    (DEC, [D("999.99")], "CAST(x AS DOUBLE) < CAST('Infinity' AS DOUBLE)", ALL, "finite"),
    (pa.decimal128(38, 20), [D("0.09999999999999999862")], "CAST(x AS DOUBLE) = 0.1", ALL,
     "just above the midpoint of 0.1 and the DOUBLE below: rounds to 0.1"),
    (pa.decimal128(38, 20), [D("0.09999999999999999861")], "CAST(x AS DOUBLE) = 0.1", NONE,
     "just below that midpoint: rounds down"),
    (pa.decimal128(38, 0), [D("9007199254740993")], "CAST(x AS DOUBLE) = 9007199254740992",
     ALL, "2**53 + 1 ties to the even 2**53"),
    (pa.decimal128(38, 0), [D("9007199254740995")], "CAST(x AS DOUBLE) > 9007199254740994",
     ALL, "2**53 + 3 ties to the even 2**53 + 4"),
    (pa.decimal128(38, 0), [D("9007199254740995")], "CAST(x AS DOUBLE) > 9007199254740995",
     NONE, "so does the literal, in DOUBLE"),
    # x div k of a signed integer and a positive whole number: truncated toward zero
    (I64, [6, 7], "x div 2 = 3", ALL, "6 and 7 both give 3"),
    (I64, [-7, -6], "x div 2 = -3", ALL, "toward zero: -7 gives -3"),
    (I64, [-1, 1], "x div 2 = 0", ALL, "(-2, 2) gives 0"),
    (I64, [-2], "x div 2 = 0", NONE, "-2 gives -1"),
    (I64, [-3, 3], "x div 3 BETWEEN -1 AND 1", ALL, "both ends"),
    (pa.int8(), [-128], "x div 1 = -128", ALL, "BIGINT: no overflow at the least INT8"),
    (I64, [-9223372036854775808], "x div 2 < -4611686018427387903", ALL, "the least BIGINT"),
    (I64, [5], "x div 0 IS NULL", MAYBE, "by 0: NULL (legacy), an error under ANSI: unused"),
    # DataFusion's casts (its dialect writes them): where the cast fails the query, anything
    (pa.decimal128(18, 0), [D("100")], "__prunekit_arrow_decimal(x, 17, 15) = 100", MAYBE,
     "100 is beyond DECIMAL(17, 15): the query fails, no answer is claimed"),
    (pa.decimal128(18, 0), [D("10")], "__prunekit_arrow_decimal(x, 17, 15) = 10", ALL,
     "10 fits: its DOUBLE times 10**15, exactly"),
    (F64, [1e300], "__prunekit_arrow_decimal(x, 17, 15) > 0", MAYBE, "beyond: fails"),
    (pa.decimal128(38, 10), [D("9223372036854775808")], "__prunekit_arrow_bigint(x) > 0",
     MAYBE, "beyond BIGINT: fails"),
    (pa.decimal128(38, 10), [D("-1.5"), D("-1.0")], "__prunekit_arrow_bigint(x) = -1", ALL,
     "toward zero"),
]


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize(("t", "rows", "sql", "expected", "why"), CASES,
                         ids=[f"{c[2]} {c[1]}" for c in CASES])
def test_function_edges(t, rows, sql, expected, why, backend):
    check({"x": (t, rows)}, sql, expected, why, backend)
