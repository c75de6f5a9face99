"""``round(x, k)`` (HALF_UP) and ``bround(x, k)`` (HALF_EVEN) in predicates
(``expr/binding/functions/halfround.py``): hand-written edges (ties, doubles next to a tie, NaN and
infinity, negative places, integers that wrap, DECIMAL beyond 38 digits), and the reference's
own rounding of doubles, which the cases are judged by.

Each case is one container of rows: the outcome must be sound for every row the reference
evaluates (``tests/support/reference.py``, Spark's semantics) and equal the expected one.
"""

from __future__ import annotations

import decimal
import math

import pyarrow as pa
import pytest

import prunekit as pk
from tests.support import reference as ref
from tests.support.cases import BACKENDS
from tests.support.functions import check

NONE, MAYBE, ALL = pk.NONE_MATCH, pk.MAYBE_MATCH, pk.ALL_MATCH
D = decimal.Decimal
NAN, INF = math.nan, math.inf
I8, I32, I64, F64 = pa.int8(), pa.int32(), pa.int64(), pa.float64()
DEC = pa.decimal128(6, 2)

CASES = [
    ({"x": (F64, [2.675])}, "round(x, 2) = 2.68", MAYBE,
     "Spark rounds Double.toString's 2.675 up; the double is 2.67499...: next to the tie"),
    ({"x": (F64, [2.67])}, "round(x, 2) = 2.68", NONE, "2.67"),
    ({"x": (F64, [100.06, 200.0])}, "round(x, 1) > 100", ALL, "100.1 and 200"),
    ({"x": (F64, [100.0, 100.04])}, "round(x, 1) > 100", NONE, "100.0"),
    ({"x": (F64, [NAN])}, "round(x, 1) > 100", ALL, "round(NaN) is NaN"),
    ({"x": (F64, [INF])}, "round(x, -2) = CAST('Infinity' AS DOUBLE)", ALL, "inf is itself"),
    ({"x": (F64, [1.7e308])}, "round(x, -308) = CAST('Infinity' AS DOUBLE)", ALL,
     "2E308 is beyond DOUBLE: infinity"),
    ({"x": (F64, [-0.4, 0.4])}, "round(x) = 0", ALL, "round to 0 places"),
    ({"x": (I8, [105, 124])}, "round(x, -1) > 100", ALL, "110 and 120"),
    ({"x": (I8, [125, 127])}, "round(x, -1) > 100", MAYBE, "130 wraps to -126 (legacy)"),
    ({"x": (I8, [-124, -105])}, "round(x, -1) < -100", ALL, "the negative side"),
    ({"x": (I32, [1, 4])}, "round(x, 2) > 4", NONE, "an integer to 2 places is itself"),
    ({"x": (I64, [-(2**63), -(2**63) + 4])}, "round(x, -1) > 0", MAYBE,
     "rounds below BIGINT: wraps"),
    ({"x": (DEC, [D("2.45"), D("2.49")])}, "round(x, 1) >= 2.5", ALL, "HALF_UP: 2.45 is 2.5"),
    ({"x": (DEC, [D("2.44")])}, "round(x, 1) >= 2.5", NONE, "2.4"),
    ({"x": (DEC, [D("2.45")])}, "bround(x, 1) >= 2.5", NONE, "HALF_EVEN: 2.45 is 2.4"),
    ({"x": (DEC, [D("-2.45")])}, "round(x, 1) = -2.5", ALL, "HALF_UP away from zero"),
    ({"x": (DEC, [D("15.00"), D("25.00")])}, "bround(x, -1) = 20", ALL, "both ties to 20"),
    ({"x": (DEC, [D("35.00")])}, "bround(x, -1) = 20", NONE, "40"),
    ({"x": (I8, [25])}, "bround(x, -1) = 20", ALL, "HALF_EVEN on TINYINT"),
    ({"x": (pa.decimal128(38, 0), [10**38 - 1])}, "round(x, -1) > 5", MAYBE,
     "10**38 needs 39 digits: Spark fails the query"),
]


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize(("columns", "sql", "expected", "why"), CASES,
                         ids=[f"{c[1]} {list(c[0].values())[0][1]}" for c in CASES])
def test_function_arithmetic_edges(columns, sql, expected, why, backend):
    check(columns, sql, expected, why, backend)


def test_reference_rounds_doubles_from_their_shortest_decimal():
    """Spark 4 rounds ``BigDecimal.valueOf(d)``: the decimal of ``Double.toString``."""
    round_ = ref.FUNCTIONS["round"]
    x = ref.V("float", 2.675, F64)
    assert round_(x, ref.V("num", 2)).value == 2.68
    assert ref.FUNCTIONS["bround"](ref.V("float", 2.5, F64)).value == 2.0
    assert round_(ref.V("num", 127, I8), ref.V("num", -1)).value == -126  # wraps (legacy)
