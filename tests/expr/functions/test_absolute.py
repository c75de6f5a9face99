"""``abs``, ``sign``/``signum``, ``negative``, ``round``/``bround``, ``greatest``/``least`` in
predicates, and comparisons the column's type decides: hand-written edges (NULL, NaN, -0.0,
integer minimum, overflow, ties, unknown statistics).

Each case is one container of rows (several columns where named): the outcome must be sound
for every row the reference evaluates (``tests/support/reference.py``, Spark's semantics) and equal
the expected one.
"""

from __future__ import annotations

import decimal
import math

import numpy as np
import pyarrow as pa
import pytest

import prunekit as pk
from tests.support import reference as ref
from tests.support import strategies as strat
from tests.support.cases import BACKENDS

NONE, MAYBE, ALL = pk.NONE_MATCH, pk.MAYBE_MATCH, pk.ALL_MATCH
D = decimal.Decimal
NAN, INF = math.nan, math.inf
I8, I32, I64, F64, F32 = pa.int8(), pa.int32(), pa.int64(), pa.float64(), pa.float32()
DEC = pa.decimal128(6, 2)

CASES = [
    # abs: the integer minimum is itself (legacy wraps; ANSI fails the query)
    ({"x": (I8, [-128])}, "abs(x) < 0", ALL, "abs(-128Y) is -128 in legacy mode"),
    ({"x": (I8, [-128])}, "abs(x) >= 3", NONE, "-128 >= 3 is FALSE"),
    ({"x": (I8, [-128, -127])}, "abs(x) = 127", MAYBE, "127 for -127 only"),
    ({"x": (I8, [-5, -4])}, "abs(x) < 3", NONE, "|x| >= 4"),
    ({"x": (I8, [-2, 2])}, "abs(x) < 3", ALL, "|x| <= 2"),
    ({"x": (I32, [-10, -3])}, "abs(x) >= 3", ALL, "both sides of zero: x <= -3"),
    ({"x": (I32, [3, 10])}, "abs(x) >= 3", ALL, "x >= 3"),
    ({"x": (I32, [-2, 2])}, "abs(x) = 5", NONE, "neither 5 nor -5"),
    ({"x": (I32, [-5, -5])}, "abs(x) = 5", ALL, "-5"),
    ({"x": (I32, [-5, 4])}, "abs(x) <> 5", MAYBE, "-5 is 5"),
    ({"x": (I32, [None, None])}, "abs(x) < 3", NONE, "NULL"),
    ({"x": (I32, [None, 1])}, "NOT abs(x) > 3", MAYBE, "NULL stays NULL"),
    ({"x": (I32, [1, 2])}, "abs(x) > 2.5E0", NONE, "compared in DOUBLE"),
    ({"x": (I32, [1, 2])}, "abs(x) < 3000000000", ALL, "beyond INT: TRUE"),
    ({"x": (F64, [NAN])}, "abs(x) > 1e300", ALL, "abs(NaN) is NaN, above every number"),
    ({"x": (F64, [NAN, 1.0])}, "abs(x) < 2", MAYBE, "NaN is not below 2"),
    ({"x": (F64, [-0.0, 0.0])}, "abs(x) = 0", ALL, "abs(-0.0) is 0.0"),
    ({"x": (F64, [-0.0, 0.0])}, "abs(x) > 0", NONE, "no zero is above 0"),
    ({"x": (F64, [-3.5, -2.5])}, "abs(x) > 2", ALL, "negative side"),
    ({"x": (F64, [-1.0, 1.0])}, "abs(x) > 2", NONE, "inside (-2, 2)"),
    ({"x": (F64, [-INF])}, "abs(x) > 1e308", ALL, "abs(-inf) is inf"),
    ({"x": (F32, [-0.25, -0.125])}, "abs(x) >= 0.125", ALL, "FLOAT"),
    ({"x": (DEC, [D("-1.50"), D("-1.49")])}, "abs(x) >= 1.5", MAYBE, "DECIMAL: -1.49"),
    ({"x": (DEC, [D("-1.60"), D("-1.50")])}, "abs(x) >= 1.5", ALL, "DECIMAL"),
    ({"x": (I32, [-5, -5])}, "abs(-x) = 5", ALL, "abs(-x) is abs(x)"),
    ({"x": (I32, [-5, 5])}, "abs(x) = 5", MAYBE,
     "x = -5 OR x = 5: each leaf alone may be FALSE (the lattice keeps no correlation)"),
    # sign / signum (DOUBLE), negative
    ({"x": (F64, [NAN])}, "sign(x) = 1", NONE, "sign(NaN) is NaN"),
    ({"x": (F64, [NAN])}, "sign(x) > 1", ALL, "NaN is above 1.0"),
    ({"x": (F64, [0.5, 3.0])}, "sign(x) = 1", ALL, "positive"),
    ({"x": (F64, [-0.0, 0.0])}, "sign(x) = 0", ALL, "both zeros"),
    ({"x": (I32, [-5, -1])}, "signum(x) < 0", ALL, "negative"),
    ({"x": (I32, [-5, 0])}, "signum(x) >= 0", MAYBE, "0 is, -5 is not"),
    ({"x": (DEC, [D("0.01"), D("5.00")])}, "sign(x) = 1.0", ALL, "DECIMAL through DOUBLE"),
    ({"x": (I32, [1, 5])}, "negative(x) > 0", NONE, "-x < 0"),
    ({"x": (I32, [-5, -1])}, "negative(x) > 0", ALL, "-x > 0"),
    ({"x": (I8, [-128])}, "negative(x) < 0", MAYBE, "-(-128Y) wraps: not used"),
    # round / bround
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
    # greatest / least
    ({"x": (I64, [1, 2])}, "greatest(x, 0) > 25", NONE, "at most 2"),
    ({"x": (I64, [30, 40])}, "greatest(x, 0) > 25", ALL, "x itself"),
    ({"x": (I64, [None, None])}, "greatest(x, 0) > 25", NONE, "NULL skipped: 0"),
    ({"x": (I64, [None, None])}, "greatest(x, 30) > 25", ALL, "NULL skipped: 30"),
    ({"x": (I64, [None])}, "least(x, 5) < 3", NONE, "5"),
    ({"x": (I64, [1, 2])}, "least(x, 5) < 3", ALL, "x"),
    ({"x": (I64, [None])}, "greatest(x, NULL) < 2", NONE, "every argument NULL: NULL"),
    ({"x": (I64, [None])}, "NOT greatest(x, NULL) > 2", NONE, "NULL under NOT"),
    ({"x": (I64, [1])}, "NOT greatest(x, NULL) > 2", ALL, "1"),
    ({"x": (I64, [None, 7]), "y": (I32, [3, None])}, "greatest(x, y) > 2", MAYBE,
     "TRUE on each row, from a different argument: the lattice sees each alone"),
    ({"x": (I64, [7, 8]), "y": (I32, [3, None])}, "greatest(x, y) > 2", ALL, "x decides"),
    ({"x": (I64, [None, 7]), "y": (I32, [None, None])}, "greatest(x, y) > 2", MAYBE,
     "both NULL in a row"),
    ({"x": (I64, [None, 1]), "y": (I32, [None, None])}, "NOT greatest(x, y) > 2", MAYBE,
     "1 is not above 2"),
    ({"x": (I64, [None, 7]), "y": (I32, [None, 1])}, "NOT greatest(x, y) > 2", MAYBE,
     "NULL, then 7: never TRUE, but the lattice sees x NULL apart from y NULL"),
    ({"x": (I64, [7, 8]), "y": (I32, [None, 1])}, "NOT greatest(x, y) > 2", NONE, "x > 2"),
    ({"x": (I64, [1, 9]), "y": (I32, [9, 1])}, "least(x, y) < 5", MAYBE,
     "one small each, from a different argument"),
    ({"x": (I64, [1, 2]), "y": (I32, [9, 1])}, "least(x, y) < 5", ALL, "x decides"),
    ({"x": (I64, [9, 9]), "y": (I32, [1, 9])}, "greatest(x, y) = 9", ALL, "9 each"),
    ({"x": (I64, [10, 9]), "y": (I32, [1, 9])}, "greatest(x, y) = 9", MAYBE, "10"),
    ({"x": (F64, [NAN, 1.0])}, "greatest(x, 0.0) > 1e300", MAYBE, "NaN is greatest"),
    ({"x": (F64, [NAN])}, "least(x, 5.0) = 5", ALL, "NaN is greatest: least is 5"),
    ({"x": (I64, [1, 2])}, "greatest(x, 2.5) = 2.5", ALL, "DECIMAL(20, 1) holds both"),
    ({"x": (pa.string(), ["a", "b"])}, "greatest(x, 'c') = 'c'", ALL, "strings"),
]


def _outcome(columns: dict, sql: str, backend: str):
    data = {c: (t, [rows]) for c, (t, rows) in columns.items()}
    schema = pa.schema([(c, t) for c, (t, _) in columns.items()])
    pred = pk.PruningPredicate(sql, schema)
    example = strat.exact_example(data, pred.expression)
    got = int(pred.classify(example.statistics(), backend=backend)[0])
    types = {c: t for c, (t, _) in columns.items()}
    rows = [dict(zip(columns, values, strict=True))
            for values in zip(*(rows for _, rows in columns.values()), strict=True)]
    truths = [ref.evaluate(pred.expression, types, row) for row in rows]
    return pred, got, truths


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize(("columns", "sql", "expected", "why"), CASES,
                         ids=[f"{c[1]} {list(c[0].values())[0][1]}" for c in CASES])
def test_function_arithmetic_edges(columns, sql, expected, why, backend):
    pred, got, truths = _outcome(columns, sql, backend)
    assert got != NONE or True not in truths, f"unsound NONE_MATCH: {why}"
    assert got != ALL or all(v is True for v in truths), f"unsound ALL_MATCH: {why}"
    assert got == expected, f"{why}: {truths}\n{pred.explain()}"


def test_reference_rounds_doubles_from_their_shortest_decimal():
    """Spark 4 rounds ``BigDecimal.valueOf(d)``: the decimal of ``Double.toString``."""
    round_ = ref.FUNCTIONS["round"]
    x = ref.V("float", 2.675, F64)
    assert round_(x, ref.V("num", 2)).value == 2.68
    assert ref.FUNCTIONS["bround"](ref.V("float", 2.5, F64)).value == 2.0
    assert round_(ref.V("num", 127, I8), ref.V("num", -1)).value == -126  # wraps (legacy)


def _unknown(nulls):
    """Two containers of a TINYINT column with no min/max; null counts as given."""
    return pk.Statistics.from_numpy(row_count=np.array([10, 10]), columns={"t": {
        "min": None, "max": None, "null_count": nulls}}, types={"t": I8})


@pytest.mark.parametrize(("sql", "known_nulls", "unknown_nulls"), [
    ("t > 300", [NONE, NONE], [NONE, NONE]),
    ("t < 300", [ALL, MAYBE], [MAYBE, MAYBE]),
    ("CAST(t AS INT) > 300", [NONE, NONE], [NONE, NONE]),
    ("CAST(t AS INT) <= 127", [ALL, MAYBE], [MAYBE, MAYBE]),
    ("t > 127", [NONE, NONE], [NONE, NONE]),
    ("CAST(t AS DOUBLE) < 1000", [ALL, MAYBE], [MAYBE, MAYBE]),
    ("CAST(t AS BIGINT) BETWEEN -200 AND 200", [ALL, MAYBE], [MAYBE, MAYBE]),
    ("t + 1 > 200", [NONE, NONE], [NONE, NONE]),
    ("t * 1000 < -200000", [NONE, NONE], [NONE, NONE]),
    ("t - 1 < -128", [MAYBE, MAYBE], [MAYBE, MAYBE]),  # -129 is an INT
    ("abs(t) > 200", [NONE, NONE], [NONE, NONE]),
    ("NOT CAST(t AS INT) > 300", [ALL, MAYBE], [MAYBE, MAYBE]),
])
def test_the_type_decides_without_statistics(sql, known_nulls, unknown_nulls):
    """A comparison constant over every value of the column's type folds before statistics
    are read; NULL rows still decide ALL_MATCH (a NULL count unknown: MAYBE)."""
    pred = pk.PruningPredicate(sql, pa.schema([("t", I8)]))
    assert pred.classify(_unknown(np.array([0, 3]))).tolist() == known_nulls
    assert pred.classify(_unknown(None)).tolist() == unknown_nulls


def test_explain_shows_the_rewrites():
    text = pk.PruningPredicate("abs(x) < 3 AND greatest(x, y) > 5 AND round(x, -1) = 20",
                               {"x": I32, "y": I64}).explain()
    assert "abs(x) < 3" in text and "greatest(x, y) > 5" in text
    assert "round(x, -1) = 20" in text and "not used for pruning" not in text
