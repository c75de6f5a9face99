"""The TPC harness (``benchmarks.tpc``) at a tiny scale: every TPC-DS and TPC-H query gives
the same DuckDB result over the row groups prunekit keeps as over all of them (the soundness
check of whole-query pruning), every query binds for prunekit, and the counts are right."""

from __future__ import annotations

import fcntl
import os

import duckdb
import numpy as np
import pyarrow.parquet as pq
import pytest

from benchmarks.tpc import counts, data, queries, run
from benchmarks.tpc.soundness import Checker, same_rows
from tests.support import tiers

SCALE = 0.01  # tpcgen-cli's smallest useful scale: a few seconds to generate


def numbers(suite: str) -> list[int]:
    """The queries of ``suite`` this tier runs: every one in the deep tier and of TPC-H; of
    TPC-DS under ``make test``, every third (1, 4, 7, ...) and the two of the most parts (14
    and 23), a third of the time: the 99 run through Spark with equal rows in the deep tier too
    (``benchmarks/tpc/spark_run.py``)."""
    every = list(queries.queries(suite))
    if tiers.DEEP or suite == "tpch":
        return every
    return [n for n in every if n % 3 == 1 or n in (14, 23)]


CASES = [(suite, n) for suite in ("tpch", "tpcds") for n in numbers(suite)]


@pytest.fixture(scope="module")
def suites():
    """suite -> (table paths, prunekit statistics, DuckDB checker)."""
    out = {}
    for suite in ("tpch", "tpcds"):
        paths = data.tables(suite, SCALE)
        out[suite] = (paths, counts.table_statistics(paths), Checker(paths))
    yield out
    for _, _, checker in out.values():
        checker.close()


@pytest.fixture(scope="module")
def outcomes_of(suites, tmp_path_factory):
    """(suite, query number) -> prunekit's outcomes of the query (``prunekit_outcomes``, joins
    carried), computed once per test run: the binding test and the soundness tests ask for the
    same ones, and computing them is most of this module's time. Under xdist the workers share
    them through a folder of the run (the parent of the workers' temporary folders): the first
    to ask for a query computes its outcomes, holding the query's lock, and writes them; the
    others wait for the lock and read them. A query that fails to bind writes nothing, so every
    test that asks for it fails."""
    base = tmp_path_factory.getbasetemp()
    folder = (base.parent if os.environ.get("PYTEST_XDIST_WORKER") else base) / "tpc-outcomes"
    folder.mkdir(exist_ok=True)
    memo = {}

    def outcomes(suite: str, number: int) -> dict[str, np.ndarray]:
        if (suite, number) not in memo:
            path = folder / f"{suite}-q{number}.npz"
            with open(folder / f"{suite}-q{number}.lock", "w") as lock:
                fcntl.flock(lock, fcntl.LOCK_EX)  # released when the file is closed
                if path.exists():
                    with np.load(path) as saved:
                        found = {table: saved[table] for table in saved.files}
                else:
                    found = counts.prunekit_outcomes(queries.queries(suite)[number],
                                                     suites[suite][1])
                    np.savez(folder / f"{suite}-q{number}.tmp.npz", **found)
                    os.replace(folder / f"{suite}-q{number}.tmp.npz", path)
            memo[(suite, number)] = found
        return memo[(suite, number)]

    return outcomes


@pytest.mark.slow
@pytest.mark.parametrize(("suite", "number"), CASES, ids=[f"{s}-q{n}" for s, n in CASES])
def test_kept_row_groups_give_the_full_result(suites, outcomes_of, suite, number):
    _, tables, checker = suites[suite]
    outcomes = outcomes_of(suite, number)
    assert outcomes, "the query reads no table"
    for table, outcome in outcomes.items():
        assert outcome.dtype == np.int8 and set(np.unique(outcome)) <= {0, 1, 2}
        assert len(outcome) == len(tables[table][0])
    assert checker.check(queries.queries(suite)[number], outcomes) in ("equal", "no skip")


@pytest.mark.slow
def test_tpch_in_duckdbs_own_text_prunes_as_in_spark_and_keeps_the_result(suites, outcomes_of):
    """DuckDB's text of the 22 TPC-H queries (its tpch extension's: ``CAST('1994-01-01' AS
    date)``, ``1 + 10``, double-quoted names where it quotes them), read with
    ``dialect="duckdb"``, skips exactly the row groups the Spark-dialect texts skip, and
    DuckDB's result over the kept row groups equals its result over all of them."""
    import prunekit as pk

    _, tables, checker = suites["tpch"]
    skipped = 0
    for number, sql in queries.queries("tpch-duckdb").items():
        named = {name: t for name, t in tables.items() if name in sql.lower()}
        got = pk.prune_query(sql, named, dialect="duckdb")
        want = outcomes_of("tpch", number)
        # The same skips (a conjunct DuckDB's text spells with a function prunekit leaves
        # unknown in that dialect is not pushed: it may turn a MAYBE_MATCH into an ALL_MATCH
        # of what is pushed, never a skip).
        assert {t: (o == 0).tolist() for t, o in got.items()} == {
            t: (o == 0).tolist() for t, o in want.items()}, number
        assert checker.check(sql, got) in ("equal", "no skip"), number
        skipped += sum(int((o == 0).sum()) for o in got.values())
    assert skipped > 300  # most of what the Spark-dialect texts skip at this scale (429)


@pytest.mark.parametrize("suite", ["tpch", "tpcds"])
def test_every_query_binds_for_prunekit(outcomes_of, suite):
    for number in numbers(suite):
        assert outcomes_of(suite, number), (suite, number)  # raises if unbound


@pytest.mark.slow
@pytest.mark.parametrize("suite", ["tpch", "tpcds"])
def test_prunekit_reads_the_tables_datafusion_scans(suites, suite):
    paths, tables, _ = suites[suite]
    ctx = counts.datafusion_context(paths)
    for number in numbers(suite):
        sql = queries.queries(suite)[number]
        if (suite, number) == ("tpcds", 90):
            continue  # DataFusion divides by zero at this scale (a count of 0)
        read = set(counts.prunekit_outcomes(sql, tables, joins=False))  # the same tables
        scanned = set(counts.scan_counts(counts.datafusion_scans(ctx, sql)))
        assert read == scanned, (suite, number)


def test_the_checker_sees_a_wrong_skip(suites, outcomes_of):
    paths, tables, checker = suites["tpch"]
    sql = queries.queries("tpch")[6]  # l_shipdate in 1994, sorted by l_shipdate
    outcomes = outcomes_of("tpch", 6)
    assert checker.check(sql, outcomes) == "equal"
    wrong = {"lineitem": np.where(outcomes["lineitem"] == 0, 1, 0).astype(np.int8)}
    assert checker.check(sql, wrong).startswith("DIFFERENT")
    assert checker.check(sql, {"lineitem": np.ones_like(wrong["lineitem"])}) == "no skip"


def test_the_checker_reads_exactly_the_kept_row_groups(suites):
    paths, tables, checker = suites["tpcds"]
    table, kept = "store_sales", [0, 1, 2, 5, 9]  # a run of three and two single row groups
    outcome = np.zeros(len(tables[table][0]), dtype=np.int8)
    outcome[kept] = [1, 2, 1, 1, 1]
    expected = pq.ParquetFile(paths[table]).read_row_groups(kept)
    con = duckdb.connect()
    try:
        con.execute(checker.view(table, outcome))
        got = con.execute(f"SELECT * FROM {table}")
        assert [d[0] for d in got.description] == expected.schema.names
        assert same_rows(got.fetchall(), [tuple(r.values()) for r in expected.to_pylist()])
        con.execute(checker.view(table, np.zeros_like(outcome)))
        assert con.execute(f"SELECT count(*) FROM {table}").fetchone() == (0,)
    finally:
        con.close()
    with pytest.raises(ValueError, match="row groups"):
        checker.view(table, outcome[:-1])


def test_q6_counts_match_the_footers(suites):
    """TPC-H Q6 reads lineitem once; the row groups skipped are those whose l_shipdate range
    misses 1994, read here from the footer with pyarrow, and DataFusion skips the same."""
    import datetime

    paths, tables, _ = suites["tpch"]
    meta = pq.ParquetFile(paths["lineitem"]).metadata
    column = meta.schema.to_arrow_schema().get_field_index("l_shipdate")
    lo, hi = datetime.date(1994, 1, 1), datetime.date(1995, 1, 1)
    misses = sum(1 for i in range(meta.num_row_groups)
                 if (s := meta.row_group(i).column(column).statistics).max < lo or s.min >= hi)
    assert 0 < misses < meta.num_row_groups
    row = run.measure_one(6, queries.queries("tpch")[6], tables,
                          counts.datafusion_context(paths), None)
    assert (row.scanned, row.prunekit, row.datafusion) == (meta.num_row_groups, misses, misses)


def test_a_table_scanned_many_times_counts_once_per_scan(suites):
    paths, tables, _ = suites["tpcds"]
    sql = queries.queries("tpcds")[9]  # 15 scalar subqueries over store_sales, and reason
    scans = counts.scan_counts(counts.datafusion_scans(counts.datafusion_context(paths), sql))
    assert scans == {"store_sales": 15, "reason": 1}
    row = run.measure_one(9, sql, tables, counts.datafusion_context(paths), None)
    assert row.scanned == 15 * len(tables["store_sales"][0]) + len(tables["reason"][0])


def test_parse_scans():
    plan = """ProjectionExec: expr=[a@0 as a], metrics=[output_rows=1]
  HashJoinExec: mode=CollectLeft, join_type=Inner, metrics=[output_rows=1]
    DataSourceExec: file_groups={2 groups: [[x/t.parquet:0..10], [x/t.parquet:10..20]]},
      metrics=[row_groups_pruned_statistics=7 total → 2 matched, files_opened=2]
    DataSourceExec: file_groups={1 group: [[x/t.parquet]]}, projection=[a], metrics=[]
    DataSourceExec: partitions=1, partition_sizes=[1], metrics=[]
    DataSourceExec: file_groups={1 group: [[x/u.parquet]]}, metrics=[files_ranges_pruned_statistics=1 total → 1 matched, row_groups_pruned_statistics=3 total → 3 matched, row_groups_pruned_dynamic_filter=2]
"""  # noqa: E501 - DataFusion's lines are long
    assert counts.parse_scans(plan) == [counts.Scan("t", 2), counts.Scan("t", 0, opened=False),
                                        counts.Scan("u", 1)]


@pytest.mark.parametrize("dynamic", [True, False])
def test_datafusion_prunes_with_or_without_its_run_time_filters(suites, dynamic):
    ctx = counts.datafusion_context(suites["tpch"][0], dynamic_filters=dynamic)
    rows = ctx.sql("SELECT name, value FROM information_schema.df_settings").to_pylist()
    settings = {r["name"]: r["value"] for r in rows}
    assert settings["datafusion.execution.parquet.pruning"] == "true"
    assert {settings[k] for k in counts.DYNAMIC_FILTERS} == {str(dynamic).lower()}


def test_layout():
    for suite, keys in data.SORT_KEYS.items():
        paths = data.tables(suite, SCALE)
        assert set(keys) <= set(paths) and "dbgen_version" not in paths
        for table, path in paths.items():
            meta = pq.ParquetFile(path).metadata
            size = data.row_group_size(meta.num_rows)
            assert meta.num_row_groups == max(1, -(-meta.num_rows // size)) <= 100
            if table in keys:
                key = pq.read_table(path, columns=[keys[table]]).column(0)
                values = key.drop_null().to_numpy()
                assert (values[:-1] <= values[1:]).all()
                assert key.null_count == 0 or key.slice(len(values)).null_count == key.null_count


def test_same_rows_tolerates_float_rounding_only():
    assert same_rows([(1, 0.1 + 0.2)], [(1, 0.3)])
    assert not same_rows([(1, 0.3)], [(1, 0.31)])
    assert not same_rows([(1, "a")], [(1, "b")])
    assert same_rows([(None, float("nan"))], [(None, float("nan"))])


def test_bench_joins_runs_once(monkeypatch):
    from benchmarks import bench_joins

    monkeypatch.setattr(bench_joins, "SUITES", ["tpch"])
    monkeypatch.setattr(bench_joins.Skipped, "scale", SCALE)
    monkeypatch.setattr(bench_joins.PrunekitTime, "scale", SCALE)
    bench = bench_joins.Skipped()
    cache = bench.setup_cache()
    assert cache["tpch"]["queries"] == 22
    assert 0 < bench.track_prunekit_skipped(cache, "tpch") <= bench.track_row_groups_scanned(
        cache, "tpch")
    assert bench.track_datafusion_skipped(cache, "tpch") > 0
    assert bench.track_prunekit_over_datafusion(cache, "tpch") > 0
    timed = bench_joins.PrunekitTime()
    timed.setup("tpch")  # runs every query once: its warm-up
    assert len(timed.queries) == 22
    timed.queries = timed.queries[:1]  # the timed loop once more, on one query only
    timed.time_all_queries("tpch")


@pytest.mark.slow
@pytest.mark.spark
def test_the_spark_lake_and_its_run_of_a_query_both_ways(spark, capsys):
    """The lake ``make test-deep`` runs the 99 queries on (``benchmarks/tpc/spark_run.py``):
    fact tables in date runs of two row groups per file, ``catalog_sales`` as Delta, each
    dimension in one file; and one query run both ways with equal rows (a count over
    ``store_sales`` and three dimensions; q7 of five tables in the deep tier)."""
    import doctest

    from benchmarks.tpc import lake, spark_run

    for module in (lake, spark_run):
        assert doctest.testmod(module).failed == 0
    files = 6
    tables = lake.lake(SCALE, files)
    sales = [os.path.join(tables["store_sales"], f)
             for f in sorted(os.listdir(tables["store_sales"]))]
    assert len(sales) == files
    runs = [pq.read_table(f, columns=["ss_sold_date_sk"]).column(0) for f in sales]
    assert all(pq.ParquetFile(f).metadata.num_row_groups == 2 for f in sales)
    assert all(a.drop_null().to_numpy().max() <= b.drop_null().to_numpy().min()
               for a, b in zip(runs, runs[1:], strict=False) if b.null_count < len(b))
    assert os.path.isdir(os.path.join(tables["catalog_sales"], "_delta_log"))
    assert len(os.listdir(tables["date_dim"])) == 1
    failures, ratios = spark_run.run(spark, tables, {tiers.pick(96, 7)}, check=True)
    assert failures == [] and len(ratios) == 1
    line = capsys.readouterr().out
    assert ": equal rows" in line and "kept store_sales" in line


@pytest.mark.slow
@pytest.mark.spark
def test_dataframe_twins_of_the_benchmark_queries_prune_as_sql_does(spark):
    """``prune(df)`` of the DataFrame-API version of each whole-query benchmark keeps the files
    ``sql`` keeps for its text, table by table, and gives the same rows: two of them in
    ``make test`` (a join of three tables and one of five), all five in the deep tier."""
    from benchmarks import bench_queries
    from benchmarks.tpc import lake, spark_run
    from prunekit import spark_glue as sg

    tables = lake.lake(SCALE, 6)
    frames = bench_queries.frames(spark, tables)
    assert set(frames) == set(bench_queries.QUERIES)
    if not tiers.DEEP:
        frames = {name: frames[name] for name in ("q52", "q7")}
    pruned_some = 0
    for name, df in frames.items():
        plan = sg.plan_frame(df)
        by_frame = {os.path.basename(t.path): t.kept_files for t in plan.tables}
        by_sql = {t.name: t.kept_files for t in sg.plan_sql(spark, bench_queries.QUERIES[name],
                                                             tables).tables}
        assert by_frame == by_sql, name
        pruned_some += by_sql["store_sales"] < 6
        assert spark_run.same_rows(plan.frame.collect(), df.collect()), name
    assert pruned_some >= min(3, len(frames))
