"""Column equalities imply conjuncts: ``a = b AND b = 5`` prunes on ``a``.

The implied conjunct is added only where the AND is reached through AND and OR: under NOT a
row that made the AND NULL could turn TRUE (``a = 7``, ``b`` NULL). Each case is checked against
rows evaluated by the reference evaluator and for its exact outcome.
"""

from __future__ import annotations

import pyarrow as pa
import pytest

import prunekit as pk
from tests.support import reference as ref
from tests.support import strategies as strat
from tests.support.cases import BACKENDS

I64 = pa.int64()
NONE, MAYBE, ALL = pk.NONE_MATCH, pk.MAYBE_MATCH, pk.ALL_MATCH

# (rows of one container as (a, b, c), predicate, expected, why)
CASES = [
    ([(1, 1, 1), (4, 0, 4)], "a = b AND b = 5", NONE, "a = 5 is implied; a lies in [1, 4]"),
    ([(1, 1, 1), (4, 0, 4)], "b = 5 AND a = b", NONE, "in either order"),
    ([(1, 5, 1), (4, 5, 4)], "a = b AND b = c AND c = 5", NONE, "through a chain of equalities"),
    ([(1, 9, 1), (4, 2, 4)], "a = b AND b IN (7, 8)", NONE, "IN lists too"),
    ([(1, 9, 1), (4, 2, 4)], "a = b AND b > 50", NONE, "ranges too"),
    ([(5, 5, 5), (5, 5, 5)], "a = b AND b = 5", ALL, "and ALL_MATCH where every row matches"),
    ([(1, 1, 1), (4, 0, 4)], "c > 100 OR (a = b AND b = 5)", NONE, "under OR"),
    ([(7, None, 7), (7, None, 7)], "NOT (a = b AND b = 5)", NONE,
     "a = 7, b NULL: the AND is NULL, its NOT too: never TRUE"),
    ([(7, None, 7), (7, 5, 7)], "NOT (a = b AND b = 5)", MAYBE,
     "the implied a = 5 is FALSE, but under NOT it is not used"),
    ([(1, 5, 1), (4, 5, 4)], "a = CAST(b AS DOUBLE) AND b = 5", MAYBE,
     "columns of different types or through a cast: no implication"),
    # a column's value sets: the values they share
    ([(1, 0, 0), (4, 0, 0)], "a IN (1, 4, 9) AND a IN (9, 2)", NONE,
     "only 9 is in both lists, above a's values"),
    ([(1, 0, 0), (4, 0, 0)], "a IN (1, 4) AND a IN (2, 3)", NONE, "no value is in both"),
    ([(1, 0, 0), (4, 0, 0)], "a IN (1, 4) AND a = 9", NONE, "an equality is a list of one"),
    ([(1, 0, 0), (4, 0, 0)], "a IN (1, 9) AND NOT NOT (a = 9)", NONE, "NOT NOT p is p"),
    ([(1, 0, 0), (9, 0, 0)], "a IN (1, 9) AND a IN (9, NULL)", MAYBE, "9 is in both"),
    ([(1, 0, 0), (4, 0, 0)], "c > 5 OR (a IN (1, 4, 9) AND a IN (9, 2))", NONE, "under OR"),
    ([(1, 0, 0), (4, 0, 0)], "NOT (a IN (1, 4, 9) AND a IN (9, 2, NULL))", MAYBE,
     "under NOT not used: a = 1 makes the AND NULL there, the implied a = 9 FALSE"),
    ([(9, 0, 0), (9, 0, 0)], "a IN (1, 9) AND a IN (9, 2)", ALL, "every row is 9"),
]


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize(("rows", "sql", "expected", "why"), CASES,
                         ids=[f"{c[1]} {c[0]}" for c in CASES])
def test_equalities(rows, sql, expected, why, backend):
    types = {"a": I64, "b": I64, "c": I64}
    pred = pk.PruningPredicate(sql, types)
    columns = {k: (I64, [[r[i] for r in rows]]) for i, k in enumerate("abc")}
    example = strat.exact_example(columns, pred.expression)
    got = int(pred.classify(example.statistics(), backend=backend)[0])
    truths = [ref.evaluate(pred.expression, types, dict(zip("abc", r, strict=True)))
              for r in rows]
    assert got != NONE or True not in truths, f"unsound NONE_MATCH: {why}"
    assert got != ALL or all(t is True for t in truths), f"unsound ALL_MATCH: {why}"
    assert got == expected, f"{why}\n{pred.explain()}"


@pytest.mark.slow
def test_deep_chain_of_equalities_binds():
    # 10,000 conjuncts: the implication pass is iterative.
    sql = " AND ".join(["a = b", "b = 5"] + [f"c <> {i}" for i in range(10_000)])
    pred = pk.PruningPredicate(sql, {"a": I64, "b": I64, "c": I64})
    assert "a = 5" in pred.explain()
