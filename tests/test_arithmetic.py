"""Integer arithmetic with constants on the column side (issue 7, item 1): hand-written edges.

Spark types ``x + c`` as the wider of the column's type and the literal's (INT for a literal
that fits, else BIGINT); on overflow its legacy mode wraps and ANSI mode fails the query. prunekit
moves the bounds through each step and, where a step could overflow for some value between
them, treats both bounds as unknown. Every case is checked against the row-level reference
(which wraps) and for its exact outcome.
"""

from __future__ import annotations

import sys
from pathlib import Path

import pyarrow as pa
import pytest

import prunekit as pk
from tests.cases import BACKENDS

sys.path.insert(0, str(Path(__file__).parent))  # as tests/test_property.py imports them
import reference as ref  # noqa: E402
import strategies as strat  # noqa: E402

I8, I32, I64 = pa.int8(), pa.int32(), pa.int64()
MIN64, MAX64 = -(2**63), 2**63 - 1
NONE, MAYBE, ALL = pk.NONE_MATCH, pk.MAYBE_MATCH, pk.ALL_MATCH

# (type, rows of one container, predicate, expected outcome, why)
CASES = [
    (I8, [120, 127], "x + 10 > 136", MAYBE, "int8 + INT is INT: 137 exists, no wrap at 127"),
    (I8, [120, 127], "x + 10 > 137", NONE, "the INT result tops out at 137"),
    (I8, [120, 127], "x + 10 >= 130", ALL, "every row reaches 130 in INT"),
    (I32, [2**31 - 2, 2**31 - 1], "x + 1 > 0", MAYBE, "INT + INT wraps: 2**31 - 1 + 1 < 0"),
    (I32, [2**31 - 2, 2**31 - 1], "x + 2147483648 > 0", ALL,
     "a BIGINT literal makes the sum BIGINT: no wrap"),
    (I64, [MAX64 - 1, MAX64], "x + 1 > 0", MAYBE, "BIGINT wraps at its maximum"),
    (I64, [MAX64 - 3, MAX64 - 2], "x + 1 > 0", ALL, "no row reaches the maximum"),
    (I64, [MIN64, MIN64 + 5], "-x > 0", MAYBE, "-(minimum) wraps to the minimum"),
    (I64, [MIN64 + 1, MIN64 + 5], "-x > 0", ALL, "negation without the minimum is exact"),
    (I64, [MIN64 + 1, MIN64 + 5], "x * -1 > 0", ALL, "multiplying by -1 likewise"),
    (I64, [MIN64, MIN64 + 5], "x * -1 > 0", MAYBE, "and it wraps at the minimum"),
    (I64, [3, 9], "x * 0 = 0", MAYBE, "x * 0 is left to the general rule (weakened)"),
    (I64, [3, 9], "20 - x BETWEEN 11 AND 17", ALL, "c - x reverses the bounds: [11, 17]"),
    (I64, [3, 9], "20 - x < 11", NONE, "20 - 9 = 11 is the smallest"),
    (I64, [3, 9], "(x - 3) * -2 > 0", NONE, "(x - 3) * -2 is at most 0"),
    (I64, [3, None, 9], "x + 1 > 0", MAYBE, "a NULL row gives NULL"),
    (I64, [None, None], "x + 1 > 0", NONE, "all NULL: no row is TRUE"),
    (I64, [4, 4], "x * 3 = 12", ALL, "exact bounds stay exact through the steps"),
    (I64, [4, 5], "x * 3 <> 13", MAYBE,
     "bounds [12, 15] cannot rule out 13 (values are multiples of 3, which bounds do not say)"),
]


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize(("t", "rows", "sql", "expected", "why"), CASES,
                         ids=[f"{c[2]} {c[1]}" for c in CASES])
def test_arithmetic_edges(t, rows, sql, expected, why, backend):
    schema = pa.schema([("x", t)])
    pred = pk.PruningPredicate(sql, schema)
    example = strat.exact_example({"x": (t, [rows])}, pred.expression)
    got = int(pred.classify(example.statistics(), backend=backend)[0])
    truths = [ref.evaluate(pred.expression, {"x": t}, {"x": v}) for v in rows]
    assert got != NONE or True not in truths, f"unsound NONE_MATCH: {why}"
    assert got != ALL or all(v is True for v in truths), f"unsound ALL_MATCH: {why}"
    assert got == expected, f"{why}\n{pred.explain()}"


def test_overflowing_constant_is_not_folded():
    # x - (-2**63) would need +2**63, beyond BIGINT: the expression is weakened, not wrapped.
    pred = pk.PruningPredicate("x - -9223372036854775808 > 0", {"x": I64})
    assert "weakened" in pred.explain() or pred.always_true


def test_explain_shows_the_arithmetic():
    text = pk.PruningPredicate("(x + 1) * -3 > 5", {"x": I64}).explain()
    assert "(x + 1) * -3" in text


# Two columns (rows of one container as (a, b)); the sum is in the wider type.
SUM_CASES = [
    (I64, I64, [(1, 2), (4, 3)], "a + b > 10", NONE, "a + b <= 4 + 3"),
    (I64, I64, [(10, 5), (20, 6)], "a - b > 3", ALL, "a - b >= 10 - 6"),
    (I64, I64, [(10, 5), (20, 6)], "a - b > 5", MAYBE, "[4, 15] straddles 5"),
    (I64, I64, [(1, None), (4, None)], "a + b > 0", NONE, "b is NULL: the sum is NULL"),
    (I64, I64, [(1, None), (4, 3)], "a + b > 0", MAYBE, "a NULL sum in one row"),
    (I64, I64, [(MAX64, 1), (0, 0)], "a + b < 0", MAYBE, "the sum may wrap"),
    (I32, I32, [(2**31 - 1, 1), (0, 0)], "a + b > 0", MAYBE, "INT + INT wraps at 2**31"),
    (I32, I64, [(2**31 - 1, 1), (0, 1)], "a + b > 0", ALL, "INT + BIGINT is BIGINT"),
    (I64, I64, [(5, 1), (7, 3)], "a + b = 6", MAYBE, "bounds [6, 10], never exact"),
    (I64, I64, [(5, 1), (7, 3)], "(a + b) > b", ALL, "a sum against a column"),
]


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize(("ta", "tb", "rows", "sql", "expected", "why"), SUM_CASES,
                         ids=[f"{c[3]} {c[2]}" for c in SUM_CASES])
def test_column_sums(ta, tb, rows, sql, expected, why, backend):
    types = {"a": ta, "b": tb}
    pred = pk.PruningPredicate(sql, types)
    example = strat.exact_example({"a": (ta, [[r[0] for r in rows]]),
                                   "b": (tb, [[r[1] for r in rows]])}, pred.expression)
    got = int(pred.classify(example.statistics(), backend=backend)[0])
    truths = [ref.evaluate(pred.expression, types, {"a": r[0], "b": r[1]}) for r in rows]
    assert got != NONE or True not in truths, f"unsound NONE_MATCH: {why}"
    assert got != ALL or all(v is True for v in truths), f"unsound ALL_MATCH: {why}"
    assert got == expected, f"{why}\n{pred.explain()}"
