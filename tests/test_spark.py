"""Spark glue on a real local Spark: the outcomes of ``classify_dataframe`` (Arrow UDF and
mapInArrow) and of the Spark SQL rendering equal ``PruningPredicate.classify`` on the same
statistics as an Arrow table, container by container.

One Spark session per test process (``spark`` fixture), on one core (``local[1]``): the
suite's other workers have the other cores, and one Python worker compiles each kernel once
where two would both compile it. The 100,000 random containers are classified for every predicate
in a single Spark job per engine.
"""

from __future__ import annotations

import decimal
import doctest
import importlib
import re
from pathlib import Path

import numpy as np
import pyarrow as pa
import pytest

import prunekit as pk

pyspark = pytest.importorskip("pyspark")
pytestmark = pytest.mark.spark
sg = importlib.import_module("prunekit.spark_glue")
from pyspark.errors import PythonException  # noqa: E402
from pyspark.sql import functions as F  # noqa: E402

N = 100_000
DATA = pa.schema([
    ("x", pa.int64()), ("i", pa.int32()), ("f", pa.float64()), ("g", pa.float32()),
    ("s", pa.string()), ("bn", pa.binary()), ("b", pa.bool_()), ("d", pa.decimal128(10, 2)),
    ("w", pa.decimal128(30, 3)), ("t", pa.timestamp("us", tz="UTC")), ("nt", pa.timestamp("us")),
    ("dt", pa.date32()),
])
T2020 = 1_577_836_800_000_000  # 2020-01-01 00:00:00 UTC in microseconds
D2020 = 18262

# The core grammar over every type Spark has (docs/semantics.md, README "What is supported").
PREDICATES = [
    "x > 5", "x <= -3 OR x = 7", "x IN (1, 3, 5, 7)", "x NOT IN (2, 3, NULL)", "x IN (1, NULL)",
    "x IS NULL", "x IS NOT NULL AND i BETWEEN 0 AND 4", "NOT (x < 2 AND i > 5)", "x < i",
    "x = i", "CAST(i AS BIGINT) >= 3", "CAST(x AS DOUBLE) >= 7.5", "CAST(x AS FLOAT) < 16777217",
    "-x < 2", "x <=> 3", "x IS DISTINCT FROM i", "i NOT IN (0, 1, 2, 3, 4, 5, 6)",
    "f > 0.5", "f = CAST('NaN' AS DOUBLE)", "isnan(f) OR g < 0", "f < g", "g >= 1.5",
    "f BETWEEN -1 AND 1", "f IN (0.0, 1.5, -2.25)", "f <> 0", "NOT f > 0.25",
    "s LIKE 'ab%'", "s > 'b'", "s IN ('a', 'é', 'abc')", "s = 'ab' OR s IS NULL",
    "startswith(s, 'a')", "s LIKE 'é%'", "bn >= X'6162'", "bn < X'62' AND s <> 'c'",
    "b", "NOT b", "b IS NOT TRUE", "b = FALSE OR x > 3",
    "d > 1.5", "d BETWEEN -2 AND 2.55", "w < 12345.678", "w IN (1.5, 2.25, -7)", "w <= d",
    "CAST(d AS DECIMAL(12, 4)) > 1.2345", "w > 99999999999999999999999.5",
    "t > TIMESTAMP '2020-01-01 00:00:00'", "CAST(t AS DATE) = DATE '2020-01-02'",
    "nt <= TIMESTAMP_NTZ '2020-01-01 12:00:00'", "dt >= DATE '2020-01-05'",
    "CAST(dt AS TIMESTAMP) < TIMESTAMP '2020-01-03 00:00:00'", "t IS NULL OR dt IS NULL",
    "(x > 3 AND (s < 'b' OR f > 1)) OR (NOT b AND d IN (0.5, 1.25) AND t < TIMESTAMP "
    "'2020-01-02 00:00:00') OR (i = 4 AND w > 0)",
    "my_udf(x) AND x > 3", "1 = 0", "TRUE", "x > 3 AND x < 2",
]


def _masked(rng, values, p, t=None):
    mask = rng.random(len(values)) < p
    if t is not None and pa.types.is_date32(t):
        return pa.array(np.asarray(values, np.int32), mask=mask).view(t)
    return pa.array(values, type=t, mask=mask)


def _struct(rng, lo, hi, t, *, nulls=0.1, struct_nulls=0.03, extra=()):
    """min/max (swapped in 3% of containers: min > max is unknown), random null counts."""
    n = len(lo)
    swap = rng.random(n) < 0.03
    lo, hi = np.where(swap, hi, lo), np.where(swap, lo, hi)
    if t is not None and pa.types.is_decimal(t):
        def conv(v):
            return [decimal.Decimal(int(u)).scaleb(-t.scale) for u in v]
        lo, hi = conv(lo), conv(hi)
    arrays = [_masked(rng, lo, nulls, t), _masked(rng, hi, nulls, t),
              _masked(rng, rng.integers(-1, 6, n), 0.1, pa.int64())]
    names = ["min", "max", "null_count"]
    for name, arr in extra:
        arrays.append(arr)
        names.append(name)
    return pa.StructArray.from_arrays(arrays, names,
                                      mask=pa.array(rng.random(n) < struct_nulls))


def random_statistics(n: int, seed: int = 0) -> pa.Table:
    """Statistics of every Spark type: nulls everywhere, null structs, min > max, NaN
    bounds, inexact bounds, empty containers, plus pass-through columns."""
    rng = np.random.default_rng(seed)

    def ints(lo, hi, width):
        a = rng.integers(lo, hi, n)
        return a, a + rng.integers(0, width, n)

    words = np.array(["", "a", "ab", "abc", "abd", "b", "c", "é", "éa", "z"], dtype=object)
    si = np.sort(rng.integers(0, len(words), (n, 2)), axis=1)
    blobs = np.array([b"", b"a", b"ab", b"b", b"\xff"], dtype=object)
    bi = np.sort(rng.integers(0, len(blobs), (n, 2)), axis=1)
    flo = np.round(rng.normal(size=n), 2)
    fhi = flo + np.round(rng.random(n), 2)
    flo[rng.random(n) < 0.02] = np.nan
    fhi[rng.random(n) < 0.03] = np.nan
    glo = rng.normal(size=n).astype(np.float32)
    bl = np.sort(rng.integers(0, 2, (n, 2)), axis=1).astype(bool)
    x_lo, x_hi = ints(-5, 10, 5)
    big = 10**26
    w_lo = rng.integers(-10**6, 10**6, n).astype(object) * (10**20 + 7)
    w_hi = w_lo + rng.integers(0, 10**6, n).astype(object) * 10**15
    w_lo[rng.random(n) < 0.05] = big
    t_lo = T2020 + rng.integers(-3, 3, n) * 86_400_000_000 + rng.integers(0, 10**9, n)
    d_lo, d_hi = ints(-500, 500, 300)
    dt_lo, dt_hi = ints(D2020 - 10, D2020 + 10, 5)
    cols = {
        "id": pa.array(np.arange(n)),
        "row_count": _masked(rng, rng.integers(0, 5, n), 0.1, pa.int64()),
        "x": _struct(rng, x_lo, x_hi, pa.int64(), extra=[
            ("min_exact", _masked(rng, rng.random(n) < 0.8, 0.1)),
            ("max_exact", pa.array(rng.random(n) < 0.8))]),
        "i": _struct(rng, *ints(-2, 8, 3), pa.int32()),
        "f": _struct(rng, flo, fhi, pa.float64(), extra=[
            ("nan_count", _masked(rng, rng.integers(0, 3, n), 0.2, pa.int64()))]),
        "g": _struct(rng, glo, glo + rng.random(n).astype(np.float32), pa.float32(),
                     extra=[("nan_count", _masked(rng, rng.integers(0, 2, n), 0.3,
                                                  pa.int64()))]),
        "s": _struct(rng, list(words[si[:, 0]]), list(words[si[:, 1]]), pa.string(), extra=[
            ("min_exact", pa.array(rng.random(n) < 0.9)),
            ("max_exact", _masked(rng, rng.random(n) < 0.9, 0.1))]),
        "bn": _struct(rng, list(blobs[bi[:, 0]]), list(blobs[bi[:, 1]]), pa.binary()),
        "b": _struct(rng, bl[:, 0], bl[:, 1], pa.bool_()),
        "d": _struct(rng, d_lo, d_hi, pa.decimal128(10, 2)),
        "w": _struct(rng, w_lo, w_hi, pa.decimal128(30, 3)),
        "t": _struct(rng, t_lo, t_lo + rng.integers(0, 2 * 86_400_000_000, n),
                     pa.timestamp("us", tz="UTC")),
        "nt": _struct(rng, t_lo, t_lo + rng.integers(0, 86_400_000_000, n),
                      pa.timestamp("us")),
        "dt": _struct(rng, dt_lo, dt_hi, pa.date32()),
        "path": pa.array([f"s3://bucket/part-{k}.parquet" for k in range(n)]),
        "part": pa.array(rng.integers(0, 4, n), pa.int16()),
    }
    return pa.table(cols)


def to_spark(spark, table: pa.Table, partitions: int = 2):
    """A Spark DataFrame of ``table``; Arrow timestamps without zone stay TIMESTAMP_NTZ."""
    df = spark.createDataFrame(table)
    for f in table.schema:
        if pa.types.is_struct(f.type):
            casts = []
            for k in f.type:
                ref = F.col(f"`{f.name}`.`{k.name}`")
                if pa.types.is_timestamp(k.type) and k.type.tz is None:
                    ref = ref.cast("timestamp_ntz")
                casts.append(ref.alias(k.name))
            if any(pa.types.is_timestamp(k.type) and k.type.tz is None for k in f.type):
                df = df.withColumn(f.name, F.when(F.col(f"`{f.name}`").isNull(), None)
                                   .otherwise(F.struct(*casts)))
    return df.repartition(partitions, "id").sortWithinPartitions("id")


@pytest.fixture(scope="session")
def spark():
    session = sg.local_session("local[1]", **{"spark.sql.shuffle.partitions": "2"})
    yield session


@pytest.fixture(scope="session")
def random_frame(spark):
    table = random_statistics(N)
    df = to_spark(spark, table).cache()
    assert df.count() == N
    return table, df


def expected(table: pa.Table, predicates: list[str], **stats_options) -> dict[str, list]:
    stats = pk.Statistics.from_arrow(table, **stats_options)
    return {q: pk.PruningPredicate(q, DATA).classify(stats, backend="numpy").tolist()
            for q in predicates}


# Each shape's kernel compiles in Spark's Python worker (about a second on 2 cores): every
# COMPILED_EVERY-th predicate of a call runs there compiled, the others interpreted. The glue
# (payload, batches, conformed types) is what these tests check; the property tests hold the
# kernels equal to the interpreter.
COMPILED_EVERY = 6


def classify_all(df, predicates: list[str], **options) -> dict[str, list]:
    if options.get("engine") == "sql":  # one job each: one plan of 50 programs analyses slowly
        return {q: classify_all(df, [q], engine="sql-one", **{
            k: v for k, v in options.items() if k != "engine"})[q] for q in predicates}
    if options.get("engine") == "sql-one":
        options["engine"] = "sql"
    out = df
    for k, q in enumerate(predicates):
        backend = {} if "backend" in options or options.get("engine") == "sql" else {
            "backend": "numba" if k % COMPILED_EVERY == 0 else "numpy"}
        out = sg.classify_dataframe(out, q, column=f"o{k}", **options, **backend)
    got = out.select("id", *[f"o{k}" for k in range(len(predicates))]).toArrow()
    got = got.sort_by("id")
    assert got.column("id").to_pylist() == list(range(got.num_rows))
    return {q: got.column(f"o{k}").to_pylist() for k, q in enumerate(predicates)}


def _mismatches(want: dict, got: dict, table: pa.Table) -> list[str]:
    bad = []
    for q in want:
        rows = [k for k, (a, b) in enumerate(zip(want[q], got[q], strict=True)) if a != b]
        if rows:
            k = rows[0]
            bad.append(f"{q!r}: {len(rows)} containers differ, first #{k}: prunekit "
                       f"{want[q][k]}, Spark {got[q][k]}; statistics "
                       f"{ {c: table.column(c)[k].as_py() for c in table.column_names} }")
    return bad


def test_kernels_in_spark_equal_classify_on_100k_containers(random_frame):
    table, df = random_frame
    want = expected(table, PREDICATES)
    got = classify_all(df, PREDICATES)  # schema read off the structs (method "auto": udf)
    assert not _mismatches(want, got, table)
    assert len({tuple(v) for v in want.values()}) > len(PREDICATES) * 0.8  # not all alike
    every = np.concatenate([np.array(v) for v in want.values()])
    assert set(np.bincount(every, minlength=3)) and np.bincount(every).min() > 1000


def test_spark_sql_rendering_equals_classify_on_100k_containers(random_frame):
    table, df = random_frame
    want = expected(table, PREDICATES)
    got = classify_all(df, PREDICATES, engine="sql")
    assert not _mismatches(want, got, table)


def test_map_in_arrow_equals_classify(random_frame):
    table, df = random_frame
    some = PREDICATES[::6]  # mapInArrow moves every column: 20,000 containers
    table = table.slice(0, 20_000)
    want = expected(table, some)
    got = classify_all(df.filter("id < 20000"), some, method="map", schema=DATA)
    assert not _mismatches(want, got, table)


def test_nan_bounds_and_no_nan_travel(random_frame):
    table, df = random_frame
    some = ["f > 0.5", "g < 0 OR f = CAST('NaN' AS DOUBLE)", "NOT f > 0.25"]
    options = {"nan_bounds": {"f": "include"}, "no_nan": ["g"]}
    want = expected(table, some, **options)
    assert not _mismatches(want, classify_all(df, some, **options), table)
    assert not _mismatches(want, classify_all(df, some, engine="sql", **options), table)


def test_inline_to_spark_sql_equals_classify(random_frame):
    table, df = random_frame
    some = PREDICATES[1::7]
    want = expected(table, some)
    exprs = [F.expr(sg.to_spark_sql(pk.PruningPredicate(q, DATA), df.schema)).alias(f"o{k}")
             for k, q in enumerate(some)]
    got = df.select("id", *exprs).toArrow().sort_by("id")
    assert not _mismatches(want, {q: got.column(f"o{k}").to_pylist()
                                  for k, q in enumerate(some)}, table)


@pytest.mark.parametrize("method", ["udf", "map"])
def test_other_columns_pass_through_untouched(spark, method):
    table = random_statistics(1000, seed=3)
    df = to_spark(spark, table)
    out = sg.classify_dataframe(df, "x > 5 AND s LIKE 'a%'", method=method)
    assert out.schema.fields[:-1] == df.schema.fields
    assert (out.schema.fields[-1].name, out.schema.fields[-1].dataType.simpleString()) == \
        ("outcome", "tinyint")
    a, b = df.toArrow().sort_by("id"), out.toArrow().sort_by("id")
    assert b.drop_columns(["outcome"]).schema == a.schema
    assert repr(b.drop_columns(["outcome"]).to_pylist()) == repr(a.to_pylist())  # NaN too
    kept = sg.prune_dataframe(df, "x > 5 AND s LIKE 'a%'", method=method).toArrow()
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
    for q in ["ts >= TIMESTAMP '2020-01-01 00:00:00'", f"v = {big}", f"v < {big}",
              "ts IS NULL AND v IS NOT NULL"]:
        want = pk.PruningPredicate(q, schema).classify(table).tolist()
        got = sg.classify_dataframe(df, q, schema, **options).orderBy("id").toArrow()
        assert got.column("outcome").to_pylist() == want, q
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
    for q in ["address.city = 'Oslo'", "`a.b` = 5 OR address IS NULL", "address IS NOT NULL"]:
        want = pk.PruningPredicate(q, schema).classify(table).tolist()
        got = sg.classify_dataframe(df, q, **options).orderBy("id").toArrow()
        assert got.column("outcome").to_pylist() == want, q
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


@pytest.mark.parametrize("module", ["__init__", "sql", "_spark", "frame", "sqlframe", "_demo"])
def test_docstrings(module, spark):
    name = "prunekit.spark_glue" + ("" if module == "__init__" else f".{module}")
    result = doctest.testmod(importlib.import_module(name),
                             optionflags=doctest.ELLIPSIS | doctest.NORMALIZE_WHITESPACE)
    assert result.failed == 0


def test_readme_spark_quick_start(spark, capsys):
    readme = (Path(__file__).resolve().parent.parent / "README.md").read_text()
    section = re.search(r"## Quick start: Spark\n(.*?)\n## ", readme, re.S).group(1)
    blocks = re.findall(r"```py\n(.*?)```", section, re.S)
    assert len(blocks) == 2
    for k, block in enumerate(blocks):
        exec(compile(block, f"README.md[spark {k}]", "exec"), {})
    out = capsys.readouterr().out
    assert "1 row, read from the one file" in out and "NONE_MATCH containers skipped" in out


def test_demo_runs_on_a_table(spark):
    table = random_statistics(2000, seed=11)
    report = sg.demo(table, ["x > 5", "s LIKE 'a%' AND t < TIMESTAMP '2020-01-02 00:00:00'"],
                     schema=DATA)
    assert report["predicates"][0]["agree"] and report["predicates"][1]["agree"]
    assert "x > 5" in report["text"]



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
