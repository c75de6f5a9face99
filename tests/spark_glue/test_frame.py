"""Spark glue on a real local Spark: the outcomes of ``classify_dataframe`` (Arrow UDF and
mapInArrow) and of the Spark SQL rendering equal ``PruningPredicate.classify`` on the same
statistics as an Arrow table, container by container.

One Spark session per test process (the ``spark`` fixture of tests/conftest.py), on one core
(``local[1]``): the suite's other workers have the other cores, and one Python worker compiles
each kernel once where two would both compile it. The random containers are classified for
every predicate in a single Spark job by the kernels (one per predicate by the SQL rendering).
"""

from __future__ import annotations

import decimal
import importlib
import re
import tempfile
from pathlib import Path

import numpy as np
import pyarrow as pa
import pytest

import prunekit as pk
from tests.support import tiers
from tests.support.spark_frames import (
    COMPILED,
    DATA,
    PREDICATES,
    REACHES,
    T2020,
    N,
    classify_all,
    expected,
    mismatches,
    random_statistics,
    to_spark,
)

pyspark = pytest.importorskip("pyspark")
pytestmark = pytest.mark.spark
sg = importlib.import_module("prunekit.spark_glue")
from pyspark.errors import PythonException  # noqa: E402
from pyspark.sql import functions as F  # noqa: E402


@pytest.fixture(scope="module")
def random_frame(spark):
    """The random statistics, as a cached DataFrame, and their outcomes by ``classify``."""
    table = random_statistics(N)
    df = to_spark(spark, table).cache()
    assert df.count() == N
    yield table, df, expected(table, PREDICATES)
    df.unpersist()


def test_kernels_in_spark_equal_classify_on_random_containers(random_frame):
    table, df, want = random_frame
    assert set(COMPILED) <= set(PREDICATES)
    # Compiled in Spark's Python worker, seconds each: under make test the integer, string-key
    # and bit-packed layouts (the demo's two among them), every one in the deep tier.
    compiled = tiers.pick((COMPILED[0], COMPILED[2], COMPILED[3]), COMPILED)
    # schema read off the structs (method "auto": udf)
    got = classify_all(df, PREDICATES, compiled=compiled)
    assert not mismatches(want, got, table)
    assert len({tuple(v) for v in want.values()}) > len(PREDICATES) * 0.8  # not all alike
    # Each predicate reaches every outcome it can on these statistics: none goes unchecked.
    assert {q: set(v) for q, v in want.items()} == {q: REACHES.get(q, {0, 1, 2})
                                                    for q in PREDICATES}
    every = np.concatenate([np.array(v) for v in want.values()])
    assert np.bincount(every, minlength=3).min() > 10_000


def test_spark_sql_rendering_equals_classify_on_random_containers(random_frame):
    table, df, want = random_frame
    got = classify_all(df, PREDICATES, engine="sql")
    assert not mismatches(want, got, table)


def test_map_in_arrow_equals_classify(random_frame):
    table, df, want = random_frame
    # mapInArrow moves every column, and each predicate's operator has Python workers of its
    # own (seconds each to start): every sixth predicate in the deep tier, every twelfth under
    # make test.
    some = tiers.pick(PREDICATES[::12], PREDICATES[::6])
    got = classify_all(df, some, method="map", schema=DATA)
    assert not mismatches({q: want[q] for q in some}, got, table)


def test_nan_bounds_and_no_nan_travel(random_frame):
    table, df, _ = random_frame
    some = ["f > 0.5", "g < 0 OR f = CAST('NaN' AS DOUBLE)", "NOT f > 0.25"]
    options = {"nan_bounds": {"f": "include"}, "no_nan": ["g"]}
    want = expected(table, some, **options)
    assert not mismatches(want, classify_all(df, some, **options), table)
    assert not mismatches(want, classify_all(df, some, engine="sql", **options), table)


def test_inline_to_spark_sql_equals_classify(random_frame):
    table, df, want = random_frame
    some = PREDICATES[1::7]
    exprs = [F.expr(sg.to_spark_sql(pk.PruningPredicate(q, DATA), df.schema)).alias(f"o{k}")
             for k, q in enumerate(some)]
    got = df.select("id", *exprs).toArrow().sort_by("id")
    assert not mismatches({q: want[q] for q in some}, {q: got.column(f"o{k}").to_pylist()
                                                        for k, q in enumerate(some)}, table)


@pytest.mark.parametrize("method", ["udf", "map"])
def test_other_columns_pass_through_untouched(spark, method):
    # The columns are what this checks: the kernels run interpreted (compiled, the full
    # program and the pruning one would each compile in Spark's Python worker, seconds each,
    # for the UDF's layout and again for mapInArrow's; test_kernels_in_spark... and
    # test_map_in_arrow... run compiled ones).
    table = random_statistics(1000, seed=3)
    df = to_spark(spark, table)
    q = "x > 5 AND s LIKE 'a%'"
    out = sg.classify_dataframe(df, q, method=method, backend="numpy")
    assert out.schema.fields[:-1] == df.schema.fields
    assert (out.schema.fields[-1].name, out.schema.fields[-1].dataType.simpleString()) == \
        ("outcome", "tinyint")
    a, b = df.toArrow().sort_by("id"), out.toArrow().sort_by("id")
    assert b.drop_columns(["outcome"]).schema == a.schema
    assert repr(b.drop_columns(["outcome"]).to_pylist()) == repr(a.to_pylist())  # NaN too
    kept = sg.prune_dataframe(df, q, method=method, backend="numpy").toArrow()
    assert kept.schema == a.schema
    assert kept.num_rows == sum(v != 0 for v in b.column("outcome").to_pylist()) > 0


def test_udf_ships_each_statistic_read_as_its_own_column(spark):
    # Spark writes flat columns to Arrow about twice as fast as a struct of structs
    # (benchmarks/bench_spark.py): the UDF's arguments are exactly the statistics the program
    # reads, each a field of its column, and no struct is built for them.
    df = to_spark(spark, random_statistics(10))
    q = "x > 5 AND s LIKE 'a%'"
    out = sg.classify_dataframe(df, q, method="udf")
    plan = out._jdf.queryExecution().executedPlan().toString()
    line = next(x for x in plan.splitlines() if "ArrowEvalPython" in x)
    fields = {f.name: set(getattr(f.dataType, "fieldNames", list)()) for f in df.schema.fields}
    want = {(c, s) for c, stats in pk.PruningPredicate(q, DATA).required_columns.items()
            for s in stats if s in fields[c]}
    assert ("x", "min") in want and ("s", "max") in want
    assert set(re.findall(r"\b(\w+)#\d+\.(\w+)", line)) == want, line
    assert "struct(" not in line and re.search(r"\brow_count#\d+L?\b", line), line


@pytest.mark.parametrize("options", [{"method": "udf"}, {"method": "map"}, {"engine": "sql"}])
def test_empty_dataframes(spark, options):
    df = to_spark(spark, random_statistics(10)).limit(0)
    assert sg.classify_dataframe(df, "x > 5", **options).count() == 0
    assert sg.prune_dataframe(df, "s LIKE 'a%'", **options).collect() == []


@pytest.mark.parametrize("options", [{"method": "udf"}, {"method": "map"}, {"engine": "sql"}])
def test_null_structs_zones_and_wide_decimals(spark, options):
    n = 4
    tz = pa.timestamp("us", tz="America/New_York")
    ts = pa.StructArray.from_arrays(
        [pa.array([0, T2020, None, 5], tz), pa.array([T2020, T2020, 3, 6], tz),
         pa.array([0, 0, 0, 0])], ["min", "max", "null_count"],
        mask=pa.array([False, False, False, True]))
    big = decimal.Decimal("1234567890123456789012345678.0123456789")
    dec = pa.StructArray.from_arrays(
        [pa.array([big, -big, None, big], pa.decimal128(38, 10)),
         pa.array([big, big, big, big], pa.decimal128(38, 10)),
         pa.array([0, 1, 0, 0])], ["min", "max", "null_count"],
        mask=pa.array([False, False, True, False]))
    table = pa.table({"id": np.arange(n), "row_count": pa.array([10, 10, 10, 0]), "ts": ts,
                      "v": dec})
    df = spark.createDataFrame(table)
    schema = pa.schema([("ts", tz), ("v", pa.decimal128(38, 10))])
    queries = ["ts >= TIMESTAMP '2020-01-01 00:00:00'", f"v = {big}", f"v < {big}",
               "ts IS NULL AND v IS NOT NULL"]
    # The kernels run compiled behind the UDF (the default method) and interpreted behind
    # mapInArrow: the batches Spark sends are conformed before either reads them, and each
    # program would compile again, seconds each, for mapInArrow's layout.
    backend = {"backend": "numpy"} if options.get("method") == "map" else {}
    out = df  # every predicate in one job
    for k, q in enumerate(queries):
        out = sg.classify_dataframe(out, q, schema, column=f"o{k}", **options, **backend)
    got = out.toArrow().sort_by("id")
    for k, q in enumerate(queries):
        want = pk.PruningPredicate(q, schema).classify(table).tolist()
        assert got.column(f"o{k}").to_pylist() == want, q
        assert want[3] == 0  # an empty container


def test_outcomes_of_sliced_batches_in_the_executor_function():
    from prunekit.spark_glue import frame

    table = random_statistics(300, seed=5)
    pred = pk.PruningPredicate("x > 5 OR s LIKE 'a%'", DATA)
    payload = frame._payload(pred.program, "exclude", (), "numba")
    batch = table.to_batches()[0]
    pieces = [batch.slice(0, 0), batch.slice(3, 100), batch.slice(103)]
    out = list(frame._map_batches(payload, "outcome", iter(pieces)))
    assert [b.num_rows for b in out] == [0, 100, 197]
    got = np.concatenate([b.column("outcome").to_numpy() for b in out])
    assert got.tolist() == pred.classify(table.slice(3), backend="numpy").tolist()
    assert out[1].slice(0, 0).schema.field("outcome").type == pa.int8()


@pytest.mark.parametrize("options", [{"method": "udf"}, {"method": "map"}, {"engine": "sql"}])
def test_struct_fields_keyed_by_leaf_key(spark, options):
    # Statistics columns named by leaf_key: "address.city" (a struct field) and "`a.b`" (a
    # top-level column whose name holds a dot) are Spark column names holding dots and
    # backticks; the data schema read off them nests address.city back into a struct.
    def st(lo, hi, nulls, t):
        return pa.StructArray.from_arrays([pa.array(lo, t), pa.array(hi, t),
                                           pa.array(nulls, pa.int64())],
                                          ["min", "max", "null_count"])

    table = pa.table({"id": np.arange(4), "row_count": pa.array([10, 10, 10, 0]),
                      "address.city": st(["Bergen", "Oslo", "A", None], ["Bergen", "Oslo", "Z",
                                                                          None],
                                         [0, 0, 3, 0], pa.string()),
                      "`a.b`": st([1, 5, 1, 1], [2, 5, 9, 1], [0, 0, 0, 0], pa.int64())})
    df = spark.createDataFrame(table)
    schema = sg.data_schema(df.schema)
    assert schema.field("address").type == pa.struct([("city", pa.string())])
    assert schema.field("a.b").type == pa.int64()
    # The names are what this checks: the kernels run interpreted (each shape would compile
    # in Spark's Python worker, seconds each, for the UDF's layout and again for mapInArrow's).
    backend = {} if options.get("engine") == "sql" else {"backend": "numpy"}
    queries = ["address.city = 'Oslo'", "`a.b` = 5 OR address IS NULL", "address IS NOT NULL"]
    out = df  # every predicate in one job
    for k, q in enumerate(queries):
        out = sg.classify_dataframe(out, q, column=f"o{k}", **options, **backend)
    got = out.toArrow().sort_by("id")
    for k, q in enumerate(queries):
        want = pk.PruningPredicate(q, schema).classify(table).tolist()
        assert got.column(f"o{k}").to_pylist() == want, q
        assert want[3] == 0 and len(set(want)) > 1, (q, want)


def test_malformed_statistics_are_refused_on_the_driver(spark):
    x = pa.StructArray.from_arrays([pa.array(["a"]), pa.array(["b"]), pa.array([0])],
                                   ["min", "max", "null_count"])
    df = spark.createDataFrame(pa.table({"row_count": [1], "x": x}))
    with pytest.raises(pk.StatisticsError, match="x.min have type string"):
        sg.classify_dataframe(df, "x > 5", {"x": pa.int64()})
    bad = spark.createDataFrame(pa.table({"row_count": ["many"], "x": x}))
    with pytest.raises(pk.StatisticsError, match="row_count must be an integer"):
        sg.prune_dataframe(bad, "x > 'a'")
    with pytest.raises(ValueError, match="already has a column 'row_count'"):
        sg.classify_dataframe(df, "x > 'a'", column="row_count")


def test_executor_errors_surface_as_prunekit_errors(spark):
    df = to_spark(spark, random_statistics(50, seed=7))
    # More steps than prunekit compiles: the numba backend refuses it in the executor.
    huge = " OR ".join(f"(x = {k} AND i > {k} AND s <> 'q{k}')" for k in range(120))
    out = sg.classify_dataframe(df, huge, DATA, backend="numba")
    with pytest.raises(PythonException, match="prunekit UnsupportedError: .*steps"):
        out.collect()
    with pytest.raises(pk.UnsupportedError, match="in a Spark executor: .*steps") as info:
        with sg.spark_errors():
            out.collect()
    assert isinstance(info.value, NotImplementedError)
    assert sg.classify_dataframe(df, huge, DATA, backend="auto").count() == 50


def test_local_session_is_reused(spark):
    assert sg.local_session() is spark
    assert spark.conf.get("spark.ui.enabled") == "false"


def test_import_prunekit_does_not_import_pyspark():
    import subprocess
    import sys

    code = ("import sys, prunekit, prunekit.spark_glue as sg; sg.to_spark_sql; "
            "assert 'pyspark' not in sys.modules, 'pyspark imported'")
    subprocess.run([sys.executable, "-c", code], check=True)


def test_readme_spark_quick_start(spark, capsys, tmp_path, monkeypatch):
    monkeypatch.setattr(tempfile, "tempdir", str(tmp_path))  # the examples' temporary folders
    readme = (Path(__file__).resolve().parents[2] / "README.md").read_text()
    section = re.search(r"## Quick start: Spark\n(.*?)\n## ", readme, re.S).group(1)
    blocks = re.findall(r"```py\n(.*?)```", section, re.S)
    assert len(blocks) == 3
    for k, block in enumerate(blocks):
        exec(compile(block, f"README.md[spark {k}]", "exec"), {})
    out = capsys.readouterr().out
    assert "1 row, read from the one file" in out and "NONE_MATCH containers skipped" in out
    # the whole query's comments state its output
    assert "1 of 10 files, 1 of 10 row groups, by ss_sold_date_sk BETWEEN 366 AND 396" in out
    assert "[Row(d_moy=1, quantity=93)]" in out
    assert "[Row(d_moy=1, quantity=93)] 2" in out  # prune(df): one sales file, date_dim's


def test_demo_runs_on_a_table(spark):
    # Two of COMPILED: the demo runs the kernels compiled in Spark's Python worker, and these
    # are the ones test_kernels_in_spark... compiles there (found in the worker, or in the
    # kernel cache on disk, instead of compiled again, seconds each).
    table = random_statistics(2000, seed=11)
    some = [COMPILED[0], COMPILED[2]]
    report = sg.demo(table, some, schema=DATA)
    assert report["predicates"][0]["agree"] and report["predicates"][1]["agree"]
    assert all(r["none"] and r["maybe"] and r["all"] for r in report["predicates"])
    assert some[0] in report["text"]



def test_parquet_statistics_read_by_executors(spark, tmp_path):
    # Footers read by executors give the outcomes of footers read here, also for types Spark
    # has no name for (uint64, nanosecond timestamps: converted so the bounds still hold).
    import pyarrow.parquet as pq

    import prunekit.parquet as pkpq

    rows = 600
    t = pa.table({
        "x": pa.array(range(rows), pa.int64()),
        "u": pa.array([2**63 + i for i in range(rows)], pa.uint64()),
        "ts": pa.array([1_600_000_000_000_000_000 + 1_001 * i for i in range(rows)],
                       pa.timestamp("ns")),
        "s": pa.array([f"k{i:04d}" for i in range(rows)], pa.large_string()),
        "f": pa.array([i / 7 for i in range(rows)], pa.float64()),
    })
    for k in range(3):
        pq.write_table(t.slice(200 * k, 200), tmp_path / f"p{k}.parquet", row_group_size=50)
    local = pkpq.row_group_statistics(tmp_path).sort_by([("file", "ascending"),
                                                         ("row_group", "ascending")])
    df = sg.parquet_statistics(spark, str(tmp_path), files_per_task=1)
    remote = df.toArrow().sort_by([("file", "ascending"), ("row_group", "ascending")])
    assert remote.num_rows == local.num_rows == 12
    for sql in ["x BETWEEN 120 AND 260", "u > 9223372036854776300", "s >= 'k0333'",
                "ts < TIMESTAMP_NTZ '2020-09-13 12:26:40.0003'", "f < 10 OR x = 599"]:
        want = pk.PruningPredicate(sql, pkpq.data_schema(local)).classify(local)
        got = pk.PruningPredicate(sql, pkpq.data_schema(remote)).classify(remote)
        if sql.startswith("ts"):  # nanoseconds rounded outwards: looser, never stronger
            assert ((got == want) | (got == pk.MAYBE_MATCH)).all(), sql
            assert (got == pk.NONE_MATCH).sum() >= 6, sql
        else:
            assert got.tolist() == want.tolist(), sql
        assert (want == pk.NONE_MATCH).any(), f"{sql} prunes nothing: a vacuous check"
