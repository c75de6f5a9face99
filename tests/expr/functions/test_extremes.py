"""``greatest`` and ``least`` in predicates (``expr/binding/functions/extremes.py``): hand-written
edges (NULL arguments skipped, every argument NULL, NaN the greatest, two columns deciding row by
row, arguments widened to one type).

Each case is one container of rows (several columns where named): the outcome must be sound
for every row the reference evaluates (``tests/support/reference.py``, Spark's semantics) and
equal the expected one.
"""

from __future__ import annotations

import math

import pyarrow as pa
import pytest

import prunekit as pk
from tests.support.cases import BACKENDS
from tests.support.functions import check

NONE, MAYBE, ALL = pk.NONE_MATCH, pk.MAYBE_MATCH, pk.ALL_MATCH
NAN = math.nan
I32, I64, F64 = pa.int32(), pa.int64(), pa.float64()

CASES = [
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


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize(("columns", "sql", "expected", "why"), CASES,
                         ids=[f"{c[1]} {list(c[0].values())[0][1]}" for c in CASES])
def test_function_arithmetic_edges(columns, sql, expected, why, backend):
    check(columns, sql, expected, why, backend)
