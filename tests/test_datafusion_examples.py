"""The worked examples of DataFusion's PruningPredicate documentation (v50), which prunekit must
answer the same way (``datafusion/pruning/src/pruning_predicate.rs``)."""

from __future__ import annotations

import numpy as np
import pyarrow as pa
import pytest

import prunekit as pk
from tests.support import tiers
from tests.support.cases import ALL, BACKENDS, MAYBE, NONE, check, multi, row

SCHEMA = pa.schema([("x", pa.int64()), ("y", pa.int64())])

# "Given an expression like x = 5 and statistics for 3 containers A, B and C":
#   A: {x_min = 0, x_max = 4}  B: {x_min = 2, x_max = 10}  C: {x_min = 5, x_max = 8}
# "A: false (no rows could possibly match x = 5), B: true, C: true". The doc gives no null or
# row counts: they are unknown, which may only make answers less precise.
ABC = [
    row(0, 4, None, None, "x = 5", NONE, "A: max 4 < 5, no row can match"),
    row(2, 10, None, None, "x = 5", MAYBE, "B: 5 within [2, 10]"),
    row(5, 8, None, None, "x = 5", MAYBE, "C: min 5, rows might match"),
]


@pytest.mark.parametrize("backend", BACKENDS)
def test_x_eq_5_on_containers_a_b_c(backend):
    check(ABC, SCHEMA, backend)
    # The same from the builder, and with null and row counts known (B and C still only MAYBE:
    # neither has min = max = 5).
    check([r._replace(predicate=pk.col("x") == 5) for r in ABC], SCHEMA, backend)
    known = [row(r.stats["x"]["min"], r.stats["x"]["max"], 0, 10, "x = 5", r.expected, r.why)
             for r in ABC]
    check(known, SCHEMA, backend)


def test_prune_returns_false_only_for_a():
    pred = pk.PruningPredicate("x = 5", SCHEMA)
    stats = pk.Statistics.from_numpy(row_count=None, columns={
        "x": {"min": np.array([0, 2, 5]), "max": np.array([4, 10, 8]), "null_count": None}})
    assert pred.prune(stats).tolist() == [False, True, True]


def test_many_containers_at_once():
    # "Vectorized evaluation ... suitable for pruning 1000s of containers": A, B, C repeated.
    n = 3334
    pred = pk.PruningPredicate("x = 5", SCHEMA)
    stats = pk.Statistics.from_numpy(row_count=None, columns={
        "x": {"min": np.tile([0, 2, 5], n), "max": np.tile([4, 10, 8], n), "null_count": None}})
    for backend in tiers.backends():
        out = pred.classify(stats, backend=backend)
        assert out.tolist() == [NONE, MAYBE, MAYBE] * n


# Example 1: x = 5 AND y = 10 with x in [1, 100], y in [4, 7], null and row counts unknown:
# "the result is false ... can't be true for any row if all values of y are 7 or less".
# Example 2: the same predicate, x_min/x_max NULL, x_null_count = x_row_count = 100, y in [4, 7]
# and y's null count unknown: "false ... all values in x are known to be NULL".
EXAMPLES = [
    multi(None, "x = 5 AND y = 10", NONE, "Example 1: y <= 7 < 10",
          x=(1, 100, None), y=(4, 7, None)),
    multi(100, "x = 5 AND y = 10", NONE, "Example 2: x is all NULL (and y <= 7)",
          x=(None, None, 100), y=(4, 7, None)),
    # Each reason alone suffices:
    multi(100, "x = 5 AND y = 10", NONE, "x all NULL, y unknown", x=(None, None, 100),
          y=(None, None, None)),
    multi(None, "x = 5 AND y = 10", NONE, "y <= 7, x unknown", x=(None, None, None),
          y=(4, 7, None)),
    # and without them the container must be read:
    multi(None, "x = 5 AND y = 10", MAYBE, "10 within y's [4, 10], 5 within x's [1, 100]",
          x=(1, 100, None), y=(4, 10, None)),
    multi(None, "x = 5 AND y = 10", MAYBE, "x's 100 NULLs of an unknown number of rows",
          x=(None, None, 100), y=(4, 10, None)),
    multi(100, "x = 5 AND y = 10", ALL, "both exactly as asked, no NULL",
          x=(5, 5, 0), y=(10, 10, 0)),
]


@pytest.mark.parametrize("backend", BACKENDS)
def test_examples_1_and_2(backend):
    check(EXAMPLES, SCHEMA, backend)
    check([r._replace(predicate=(pk.col("x") == 5) & (pk.col("y") == 10)) for r in EXAMPLES],
          SCHEMA, backend)


# The rewrite table: x IS NULL keeps a container only when x_null_count > 0, and x IS NOT NULL
# only when x_null_count != row_count.
NULL_ROWS = [
    row(0, 9, 0, 10, "x IS NULL", NONE, "x_null_count = 0"),
    row(0, 9, 3, 10, "x IS NULL", MAYBE, "x_null_count > 0"),
    row(None, None, 10, 10, "x IS NOT NULL", NONE, "x_null_count = row_count"),
    row(0, 9, 3, 10, "x IS NOT NULL", MAYBE, "x_null_count != row_count"),
]


@pytest.mark.parametrize("backend", BACKENDS)
def test_is_null_rewrites(backend):
    check(NULL_ROWS, SCHEMA, backend)
