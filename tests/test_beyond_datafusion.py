"""Predicates DataFusion's pruning gives up on and prunekit prunes.

Each case runs both on the same Parquet file of row groups with known ranges: DataFusion through
``EXPLAIN ANALYZE`` (its ``row_groups_pruned_statistics`` metric), prunekit through
``prunekit.parquet``. DataFusion's behaviour, from its reference docs
(the PruningPredicate documentation of v50): the predicate is rewritten leaf by
leaf into min/max expressions only for a column, a CAST or TRY_CAST of one, or a negated one
compared with a literal (the table of rewritten predicates there); any other expression, such as
``x + 5 > 12``, is "unhandled" and rewritten to ``true``, which keeps every container. The tests
check that behaviour on DataFusion itself, so a DataFusion that learns a rule shows up here.
"""

from __future__ import annotations

import pyarrow as pa
import pyarrow.parquet as pq
import pytest

import prunekit as pk
import prunekit.parquet
from tests.support import differential

datafusion = pytest.importorskip("datafusion", reason="datafusion (a test dependency) is missing")

GROUPS = 10  # row group g holds x in [100 * g, 100 * g + 99]


@pytest.fixture(scope="module")
def ranges_file(tmp_path_factory):
    path = tmp_path_factory.mktemp("beyond") / "ranges.parquet"
    x = pa.array(range(100 * GROUPS), pa.int64())
    pq.write_table(pa.table({"x": x, "y": pa.array(range(100 * GROUPS), pa.int32()),
                             "z": pa.array(range(100 * GROUPS), pa.float64())}), path,
                   row_group_size=100)
    return path


def datafusion_kept(path, where: str) -> int:
    return differential.datafusion_kept(path, where, GROUPS)


def prunekit_kept(path, where: str) -> int:
    table = prunekit.parquet.row_group_statistics(path)
    pred = pk.PruningPredicate(where, prunekit.parquet.data_schema(table))
    return int(pred.prune(table).sum())


def truly_kept(path, where: str) -> int:
    """Row groups holding a row that satisfies ``where`` (the answer pruning must keep)."""
    ctx = datafusion.SessionContext()
    ctx.register_parquet("t", str(path))
    hits = ctx.sql(f"SELECT DISTINCT x / 100 AS g FROM t WHERE {where}").to_arrow_table()
    return hits.num_rows


# (rule, predicate in SQL both engines read alike)
CASES = [
    ("x + c", "x + 150 > 1000"),
    ("x - c", "x - 250 < 0"),
    ("c - x", "900 - x < 50"),
    ("x * c", "x * 3 >= 2400"),
    ("x * -c", "x * -2 > -300"),
    ("nested", "(x + 1) * 2 - 7 <= 200"),
    ("narrow type", "y + 1000 < 1300"),
    ("two columns", "x + y < 150 OR x - y > 200"),
    # Division: Spark's / is DOUBLE, DataFusion's / of integers truncates; these predicates
    # keep the same groups under both readings, so DataFusion's own answer is the truth.
    ("x / c", "CAST(x AS DOUBLE) / 4 > 200"),
    ("x / -c", "x / -2 < -300"),
    ("integer + double", "y + z < 150 OR x * z < 40000"),  # z may be NaN: only < prunes
]


@pytest.mark.parametrize(("rule", "where"), CASES, ids=[c[0] for c in CASES])
def test_prunekit_prunes_where_datafusion_keeps_everything(ranges_file, rule, where):
    needed = truly_kept(ranges_file, where)
    ours = prunekit_kept(ranges_file, where)
    theirs = datafusion_kept(ranges_file, where)
    assert ours >= needed  # sound: every group with a matching row is kept
    assert ours == needed, f"prunekit keeps {ours}, only {needed} hold matching rows"
    assert theirs == GROUPS, f"DataFusion now prunes {rule} ({theirs} kept): update this test"


@pytest.fixture(scope="module")
def equal_columns_file(tmp_path_factory):
    # a in [100g, 100g + 99] per row group g; b = 500 everywhere, so b = 500 holds in every
    # group and only a = b decides.
    path = tmp_path_factory.mktemp("beyond_eq") / "equal.parquet"
    a = pa.array(range(100 * GROUPS), pa.int64())
    pq.write_table(pa.table({"x": a, "a": a, "b": pa.array([500] * (100 * GROUPS), pa.int64())}),
                   path, row_group_size=100)
    return path


def test_column_comparison_under_is_true_prunes_where_datafusion_keeps_everything(
        equal_columns_file):
    # DataFusion 55 prunes a > b itself (beyond what its v50 docs list), but not under IS TRUE;
    # prunekit reads IS TRUE of a comparison like the comparison (never NULL, else the same).
    where = "(a > b) IS TRUE"
    needed = truly_kept(equal_columns_file, where)
    assert prunekit_kept(equal_columns_file, where) == needed == 5
    assert datafusion_kept(equal_columns_file, where) == GROUPS


@pytest.mark.parametrize("where", ["a > b", "NOT (a <= b OR a < 0)", "a BETWEEN b AND 700",
                                   "a > b + 100", "a > b AND a < b + 200"])
def test_column_comparisons_prune_as_tightly_as_datafusion(equal_columns_file, where):
    needed = truly_kept(equal_columns_file, where)
    assert prunekit_kept(equal_columns_file, where) == needed
    assert datafusion_kept(equal_columns_file, where) >= needed


def test_equality_chain_prunes_as_datafusion_does(equal_columns_file):
    # a = b AND b = 500 implies a = 500. DataFusion gets there in its planner (it propagates
    # the equality), not in its pruning rewrite; prunekit matches it from statistics alone.
    where = "a = b AND b = 500"
    assert prunekit_kept(equal_columns_file, where) == truly_kept(equal_columns_file, where) == 1
    assert datafusion_kept(equal_columns_file, where) == 1


@pytest.fixture(scope="module")
def decimal_file(tmp_path_factory):
    # Row group g holds p in [100g, 100g + 99.99] (DECIMAL(15, 2)) and q = 0.05 everywhere.
    from decimal import Decimal

    path = tmp_path_factory.mktemp("beyond_dec") / "decimal.parquet"
    x = list(range(100 * GROUPS))
    t = pa.decimal128(15, 2)
    p = [Decimal(v) + Decimal(v % 100) / 100 for v in x]
    pq.write_table(pa.table({"x": pa.array(x, pa.int64()), "p": pa.array(p, t),
                             "q": pa.array([Decimal("0.05")] * len(x), t)}),
                   path, row_group_size=100)
    return path


@pytest.mark.parametrize("where", ["p * (1 - q) > 800", "p + 1.5 < 100", "p * 2 >= 1900",
                                   "p / 3 > 300", "p - q > 899.95"])
def test_decimal_arithmetic_prunes_where_datafusion_keeps_everything(decimal_file, where):
    # DECIMAL arithmetic is an expression DataFusion's rewrite leaves unhandled (true).
    needed = truly_kept(decimal_file, where)
    assert prunekit_kept(decimal_file, where) == needed
    assert datafusion_kept(decimal_file, where) == GROUPS


@pytest.fixture(scope="module")
def functions_file(tmp_path_factory):
    # Row group g: x in [100g, 100g + 99]; d in the year 2015 + g; ts in month g + 1 of 2024;
    # f in [100g + 0.5, 100g + 99.5]; s = chr(a + g) + 'x' + two digits.
    import datetime as dt

    path = tmp_path_factory.mktemp("beyond_fn") / "functions.parquet"
    rows = range(100 * GROUPS)
    d = [dt.date(2015 + i // 100, 1, 1) + dt.timedelta(days=3 * (i % 100)) for i in rows]
    ts = [dt.datetime(2024, i // 100 + 1, 1 + (i % 100) % 28, i % 24) for i in rows]
    pq.write_table(pa.table({
        "x": pa.array(rows, pa.int64()), "d": pa.array(d, pa.date32()),
        "ts": pa.array(ts, pa.timestamp("us")), "f": pa.array([i + 0.5 for i in rows]),
        "s": pa.array([f"{chr(97 + i // 100)}x{i % 100:02d}" for i in rows])}),
        path, row_group_size=100)
    return path


# (function rule, predicate for prunekit (Spark SQL), the same for DataFusion)
FUNCTION_CASES = [
    # DataFusion 55 prunes year(d) op c itself (test below); not under coalesce or CASE.
    ("year", "coalesce(year(d), 0) = 2019", "coalesce(date_part('year', d), 0) = 2019"),
    ("date_trunc", "date_trunc('month', ts) = TIMESTAMP '2024-03-01 00:00:00'",
     "date_trunc('month', ts) = TIMESTAMP '2024-03-01 00:00:00'"),
    # Likewise floor(f) against a literal (test below), but not ceil.
    ("floor", "coalesce(floor(f), 0) = 250", "coalesce(floor(f), 0) = 250"),
    ("ceil", "ceil(f) > 851", "ceil(f) > 851"),
    ("left", "left(s, 1) = 'c'", "left(s, 1) = 'c'"),
    ("substring", "substring(s, 1, 2) = 'dx'", "substr(s, 1, 2) = 'dx'"),
    ("coalesce", "coalesce(x, 0) > 850", "coalesce(x, 0) > 850"),
    ("case when", "CASE WHEN x > 850 THEN 1 ELSE 0 END = 1",
     "CASE WHEN x > 850 THEN 1 ELSE 0 END = 1"),
]


@pytest.mark.parametrize(("rule", "ours", "theirs"), FUNCTION_CASES,
                         ids=[c[0] for c in FUNCTION_CASES])
def test_functions_prune_where_datafusion_keeps_everything(functions_file, rule, ours, theirs):
    needed = truly_kept(functions_file, theirs)
    assert 1 <= needed < GROUPS
    assert prunekit_kept(functions_file, ours) == needed, rule
    assert datafusion_kept(functions_file, theirs) == GROUPS, (
        f"DataFusion now prunes {rule}: update this test")


@pytest.mark.parametrize(("ours", "theirs"), [
    ("year(d) = 2019", "date_part('year', d) = 2019"),
    ("year(d) IN (2016, 2019)", "date_part('year', d) IN (2016, 2019)"),
    ("year(d) > 2019", "date_part('year', d) > 2019"),
    ("floor(f) = 250", "floor(f) = 250"), ("floor(f) > 850", "floor(f) > 850")])
def test_year_and_floor_prune_as_tightly_as_datafusion(functions_file, ours, theirs):
    # DataFusion 55 rewrites date_part('year', d) and floor(f) against a literal into a range
    # of the column (its preimage), beyond what its v50 docs list; prunekit does the same.
    needed = truly_kept(functions_file, theirs)
    assert prunekit_kept(functions_file, ours) == needed
    assert datafusion_kept(functions_file, theirs) == needed
