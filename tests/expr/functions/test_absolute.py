"""``abs``, ``sign``/``signum`` and ``negative`` in predicates
(``expr/binding/functions/absolute.py``): hand-written edges (NULL, NaN, -0.0, the integer minimum,
DECIMAL, unknown rewrites), and what explain() says of these rewrites next to ``greatest`` and
``round``.

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
]


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize(("columns", "sql", "expected", "why"), CASES,
                         ids=[f"{c[1]} {list(c[0].values())[0][1]}" for c in CASES])
def test_function_arithmetic_edges(columns, sql, expected, why, backend):
    check(columns, sql, expected, why, backend)


def test_explain_shows_the_rewrites():
    # abs, greatest and round together: each rewrite is named, none left unused.
    text = pk.PruningPredicate("abs(x) < 3 AND greatest(x, y) > 5 AND round(x, -1) = 20",
                               {"x": I32, "y": I64}).explain()
    assert "abs(x) < 3" in text and "greatest(x, y) > 5" in text
    assert "round(x, -1) = 20" in text and "not used for pruning" not in text
