"""``read_parquet`` on a real local Spark: exactly the rows of the plain read, files whose every
row group is NONE_MATCH never opened, bad input refused before any job runs (docs/semantics.md
§1: a container wrongly skipped is a wrong answer)."""

from __future__ import annotations

import datetime
import importlib
import shutil

import numpy as np
import pyarrow as pa
import pyarrow.parquet as pq
import pytest

import prunekit as pk
from prunekit.parquet import row_group_statistics
from tests.support import tiers

pyspark = pytest.importorskip("pyspark")
pytestmark = pytest.mark.spark
sg = importlib.import_module("prunekit.spark_glue")
from pyspark.sql import functions as F  # noqa: E402

from prunekit.spark_glue import reader  # noqa: E402
from prunekit.spark_glue.reader import spark_file_path  # noqa: E402

FILES = 12
DAY0 = datetime.date(2024, 1, 1)


def _file(rng: np.random.Generator, k: int) -> pa.Table:
    """File ``k``: x and d clustered around k (files are what gets skipped), f with NaN and
    NULLs, s strings; file 3 has an all-NULL x, file 7 no rows matching anything common."""
    n = int(rng.integers(20, 60))
    x = (k * 100 + rng.integers(0, 100, n)).astype(np.int64)
    x_null = rng.random(n) < (1.0 if k == 3 else 0.1)
    f = rng.normal(k, 1.0, n)
    f[rng.random(n) < 0.1] = np.nan
    f_null = rng.random(n) < 0.1
    s = np.array([f"{chr(97 + k)}{int(v)}" for v in rng.integers(0, 50, n)], dtype=object)
    d = np.array([DAY0 + datetime.timedelta(days=int(k * 30 + v))
                  for v in rng.integers(0, 30, n)], dtype=object)
    return pa.table({
        "x": pa.array(x, mask=x_null), "f": pa.array(f, mask=f_null),
        "s": pa.array(s, pa.string()), "d": pa.array(d, pa.date32()),
    })


@pytest.fixture(scope="module")
def lake(tmp_path_factory) -> str:
    root = tmp_path_factory.mktemp("lake")
    rng = np.random.default_rng(7)
    for k in range(FILES):
        pq.write_table(_file(rng, k), root / f"part-{k:03d}.parquet", row_group_size=16)
    return str(root)


def _rows(df) -> list[tuple]:
    """The rows in a stable order, NaN as text (NaN != NaN would fail equal lists)."""
    def cell(v):
        return "NaN" if isinstance(v, float) and v != v else v

    return sorted((tuple(cell(v) for v in r) for r in df.collect()), key=repr)


HAND = [
    "x > 1000", "x = 250", "x BETWEEN 420 AND 480 OR x < 10", "x IS NULL", "x IS NOT NULL",
    "f > 5.5", "isnan(f)", "f = 'NaN'", "NOT (f < 3)", "s = 'c7'", "s LIKE 'k%'",
    "s IN ('a1', 'l9')", "d >= DATE '2024-09-01'", "d < '2024-02-01'",
    "date_add(d, 30) < DATE '2024-03-01'", "x > 99999", "x < 0 AND f > 100",
    "year(d) = 2024 AND month(d) = 5", "CAST(x AS STRING) = '305'", "x + 1 = 305",
    "coalesce(x, 0) = 0", "TRUE", "x % 100 = 7",
]


def _random_predicates(count: int, seed: int = 11) -> list[str]:
    rng = np.random.default_rng(seed)
    leaves = [
        lambda: f"x {rng.choice(['<', '<=', '=', '>=', '>', '<>'])} {int(rng.integers(-50, 1300))}",
        lambda: f"f {rng.choice(['<', '>', '='])} {float(rng.normal(6, 4)):.2f}",
        lambda: f"d > DATE '{DAY0 + datetime.timedelta(days=int(rng.integers(0, 400)))}'",
        lambda: f"s >= '{chr(97 + int(rng.integers(0, 13)))}'",
        lambda: rng.choice(["x IS NULL", "f IS NULL", "isnan(f)"]),
    ]
    out = []
    for _ in range(count):
        a, b = (leaves[int(rng.integers(0, len(leaves)))]() for _ in range(2))
        out.append(f"({a}) {rng.choice(['AND', 'OR'])} {'NOT ' if rng.random() < 0.3 else ''}({b})")
    return out


@pytest.fixture(params=["paths", "listing"])
def policy(request, monkeypatch) -> str:
    """Both ways Spark is handed the kept files: named as paths (the test lakes keep few) and
    the folder listed with the skipped files filtered out."""
    if request.param == "listing":
        monkeypatch.setattr(reader, "PATHS_MAX_FILES", 0)
    return request.param


@pytest.mark.parametrize("where", HAND + _random_predicates(12))
def test_rows_equal_the_plain_read(spark, lake, where, monkeypatch):
    expected = _rows(spark.read.parquet(lake).where(where))
    assert _rows(sg.read_parquet(spark, lake, where)) == expected
    monkeypatch.setattr(reader, "PATHS_MAX_FILES", 0)
    assert _rows(sg.read_parquet(spark, lake, where)) == expected


def test_few_kept_files_are_named_and_many_listed(spark, lake, monkeypatch):
    """x = 250 may match in file 2 only: named, Spark's scan holds that file alone; listed,
    it holds the folder (the filter on file names leaves the others unopened)."""
    files = sg.read_parquet(spark, lake, "x = 250").inputFiles()
    assert [f.replace("file:///", "file:/", 1) for f in files] == [
        spark_file_path(f"{lake}/part-002.parquet")]
    monkeypatch.setattr(reader, "PATHS_MAX_FILES", 0)
    assert len(sg.read_parquet(spark, lake, "x = 250").inputFiles()) == FILES


def test_more_named_files_than_spark_lists_on_the_driver(spark, tmp_path):
    """40 files, 35 kept: named and listed on the driver (Spark's threshold, 32, is raised
    while the frame is made and put back), no filter on file names, the plain read's rows."""
    for k in range(40):
        pq.write_table(pa.table({"k": np.arange(10 * k, 10 * k + 10)}),
                       tmp_path / f"part-{k:03d}.parquet")
    key = "spark.sql.sources.parallelPartitionDiscovery.threshold"
    before = spark.conf.get(key)
    df = sg.read_parquet(spark, str(tmp_path), "k >= 50")
    assert spark.conf.get(key) == before
    assert len(df.inputFiles()) == 35
    assert "file_path" not in df._jdf.queryExecution().optimizedPlan().toString()
    assert _rows(df) == _rows(spark.read.parquet(str(tmp_path)).where("k >= 50"))


def test_named_paths_read_what_sparks_listing_would(spark, lake, tmp_path):
    """Files prunekit's listing skips but Spark reads (no .parquet suffix) are read; hidden
    ones Spark skips are not; a kept name Spark would take for a glob falls back to the
    listing."""
    copy = tmp_path / "lake"
    shutil.copytree(lake, copy)
    def row(x: int) -> pa.Table:
        return pa.table({"x": pa.array([x], pa.int64()), "f": pa.array([1.0]),
                         "s": pa.array(["z"]), "d": pa.array([DAY0], pa.date32())})

    for name in ("part-extra", "_hidden.parquet", ".hidden.parquet", "part-x.parquet._COPYING_"):
        pq.write_table(row(1250), copy / name)
    pq.write_table(row(2500), copy / "k[1].parquet")
    for where in ("x = 2500", "x = 1250", "x = 99999"):
        got = _rows(sg.read_parquet(spark, str(copy), where))
        assert got == _rows(spark.read.parquet(str(copy)).where(where)), where
        assert len(got) == {"x = 2500": 1, "x = 1250": 1, "x = 99999": 0}[where], (where, got)


@pytest.mark.parametrize("seed", tiers.pick([1], [1, 2, 3]))
def test_random_lakes_read_as_the_plain_read(spark, tmp_path, seed, monkeypatch):
    """Random files and row groups (some all NULL, some NaN, some empty files), random
    predicates, both ways of handing Spark the kept files."""
    rng = np.random.default_rng(seed)
    for k in range(int(rng.integers(3, 9))):
        t = _file(rng, int(rng.integers(0, 12)))
        if rng.random() < 0.2:
            t = t.slice(0, 0)
        if rng.random() < 0.3:  # a group of NULL x and NaN f
            t = t.set_column(0, "x", pa.nulls(t.num_rows, pa.int64()))
            t = t.set_column(1, "f", pa.array([float("nan")] * t.num_rows))
        pq.write_table(t, tmp_path / f"part-{k}.parquet",
                       row_group_size=int(rng.integers(1, 40)))
    caps = (reader.PATHS_MAX_FILES, 0)
    for where in _random_predicates(6, seed=100 + seed):
        expected = _rows(spark.read.parquet(str(tmp_path)).where(where))
        for cap in caps:
            monkeypatch.setattr(reader, "PATHS_MAX_FILES", cap)
            assert _rows(sg.read_parquet(spark, str(tmp_path), where)) == expected, where


def test_a_column_where_and_executor_statistics(spark, lake):
    where = (F.col("x") >= 500) & (F.col("d") < F.lit(datetime.date(2024, 8, 1)))
    expected = _rows(spark.read.parquet(lake).where(where))
    assert expected
    assert _rows(sg.read_parquet(spark, lake, where)) == expected
    assert _rows(sg.read_parquet(spark, lake, where, on="executors")) == expected


def test_skipped_files_are_never_opened(spark, lake, tmp_path, policy):
    """The statistics say files 0-9 hold no x >= 1000; those files are then replaced by files
    full of matches. Rows of a replaced file in the answer would mean it was opened."""
    copy = tmp_path / "lake"
    shutil.copytree(lake, copy)
    stats = row_group_statistics(str(copy))
    expected = _rows(spark.read.parquet(str(copy)).where("x >= 1000"))
    for k in range(10):
        poisoned = pa.table({"x": pa.array([5000 + k] * 3, pa.int64()),
                             "f": pa.array([1.0] * 3), "s": pa.array(["p"] * 3),
                             "d": pa.array([DAY0] * 3, pa.date32())})
        pq.write_table(poisoned, copy / f"part-{k:03d}.parquet")
    got = _rows(sg.read_parquet(spark, str(copy), "x >= 1000", statistics=stats))
    assert got == expected and expected


def test_nothing_kept_reads_nothing(spark, lake, policy):
    df = sg.read_parquet(spark, lake, "x > 99999")
    assert df.count() == 0 and df.columns == ["x", "f", "s", "d"]


def test_partition_columns_are_sparks_to_prune(spark, tmp_path, policy):
    rng = np.random.default_rng(3)
    for k in range(4):
        folder = tmp_path / f"region={'north' if k % 2 else 'south'}"
        folder.mkdir(exist_ok=True)
        pq.write_table(_file(rng, k), folder / f"part-{k}.parquet")
    where = "region = 'north' AND x < 150"
    expected = _rows(spark.read.parquet(str(tmp_path)).where(where))
    assert expected
    assert _rows(sg.read_parquet(spark, str(tmp_path), where)) == expected


def _jobs_run_by(spark, call) -> tuple[Exception | None, list]:
    group = f"prunekit-test-{id(call)}"
    spark.sparkContext.setJobGroup(group, "bad input")
    try:
        call()
    except Exception as e:  # noqa: BLE001 - returned for the caller to check
        return e, list(spark.sparkContext.statusTracker().getJobIdsForGroup(group))
    finally:
        spark.sparkContext.setLocalProperty("spark.jobGroup.id", None)
    return None, list(spark.sparkContext.statusTracker().getJobIdsForGroup(group))


@pytest.mark.parametrize("where, error", [
    ("nope > 5", pk.UnknownColumnError),
    ("x >", pk.SqlSyntaxError),
])
def test_bad_predicates_fail_before_any_job(spark, lake, where, error):
    raised, jobs = _jobs_run_by(spark, lambda: sg.read_parquet(spark, lake, where))
    assert isinstance(raised, error), raised
    assert jobs == []


def test_type_mismatches_and_unknown_columns_in_a_column_are_prunekit_errors(spark, lake):
    with pytest.raises(pk.TypeMismatchError):
        sg.read_parquet(spark, lake, "x = DATE '2024-01-01'")
    with pytest.raises(pk.UnknownColumnError, match="nope"):
        sg.read_parquet(spark, lake, F.col("nope") > 1)


def test_bad_paths_are_named(spark, tmp_path):
    with pytest.raises(pk.StatisticsError, match="no such file"):
        sg.read_parquet(spark, str(tmp_path / "missing"), "x > 1")
    (tmp_path / "empty").mkdir()
    with pytest.raises(pk.StatisticsError, match="no Parquet files"):
        sg.read_parquet(spark, str(tmp_path / "empty"), "x > 1")
    delta = tmp_path / "delta"
    (delta / "_delta_log").mkdir(parents=True)
    pq.write_table(pa.table({"x": [1]}), delta / "part-0.parquet")
    with pytest.raises(pk.StatisticsError, match="read_delta"):
        sg.read_parquet(spark, str(delta), "x > 1")
    with pytest.raises(TypeError, match="Spark SQL text or a pyspark Column"):
        sg.read_parquet(spark, str(tmp_path / "delta" / "part-0.parquet"), 42)


def test_a_session_in_another_zone_reads_timestamps_in_that_zone(spark, tmp_path):
    t = pa.array([datetime.datetime(2024, 1, 1, 12)], pa.timestamp("us", tz="UTC"))
    pq.write_table(pa.table({"t": t}), tmp_path / "a.parquet")
    spark.conf.set("spark.sql.session.timeZone", "Europe/Oslo")
    try:
        # 12:00 UTC is 13:00 in Oslo: a match at 13:00 there, none after it (file skipped)
        for where, rows, files in (("t >= '2024-01-01 13:00:00'", 1, 1),
                                   ("t > '2024-01-01 13:00:00'", 0, 0)):
            df = sg.read_parquet(spark, str(tmp_path), where)
            assert df.count() == spark.read.parquet(str(tmp_path)).where(where).count() == rows
            assert len(df.inputFiles()) == files, where
    finally:
        spark.conf.set("spark.sql.session.timeZone", "UTC")


def test_file_paths_are_spelt_as_spark_spells_them(spark, tmp_path, policy):
    """A skipped file is named by its ``_metadata.file_path``; a misspelt name would be read
    anyway (sound, but nothing skipped), so the spelling is checked against Spark's own."""
    names = ["plain.parquet", "a b.parquet", "k=v,w;x.parquet", "a+b&c$d@e.parquet",
             "é ü 東.parquet", "p%25q#r.parquet", "[x]{y}^z`.parquet", "t~!'().parquet",
             "back\\slash \\'.parquet"]
    folder = tmp_path / "odd dir=1"
    folder.mkdir()
    for k, name in enumerate(names):
        pq.write_table(pa.table({"x": [k]}), folder / name)
    spelt = {r[0] for r in spark.read.parquet(str(folder)).select("_metadata.file_path")
             .collect()}
    assert spelt == {spark_file_path(str(folder / n)) for n in names}
    # Every file but the first is skipped by name, then made to match: none may be read.
    stats = row_group_statistics(str(folder))
    for name in names[1:]:
        pq.write_table(pa.table({"x": [0]}), folder / name)
    got = sg.read_parquet(spark, str(folder), "x = 0", statistics=stats).collect()
    assert [tuple(r) for r in got] == [(0,)]


def test_a_kept_cache_reads_no_footer_and_runs_no_job_the_second_time(spark, lake, tmp_path,
                                                                        monkeypatch):
    from prunekit.sources import parquet

    cache = tmp_path / "stats.parquet"
    where = "x BETWEEN 420 AND 480"
    expected = _rows(spark.read.parquet(lake).where(where))
    assert _rows(sg.read_parquet(spark, lake, where, cache=cache)) == expected
    opened: list[str] = []
    real = parquet._read_footer
    monkeypatch.setattr(parquet, "_read_footer", lambda p: (opened.append(p), real(p))[1])
    monkeypatch.setattr(pq, "read_schema", lambda *a, **k: opened.append(a) or 1 / 0)
    raised, jobs = _jobs_run_by(spark, lambda: sg.read_parquet(spark, lake, where, cache=cache))
    assert raised is None and jobs == [] and opened == []
    assert _rows(sg.read_parquet(spark, lake, where, cache=cache)) == expected


def test_the_demo_reads_both_ways_with_equal_counts(spark, lake, tmp_path, monkeypatch):
    import tempfile

    from prunekit.spark_glue._demo import read_demo

    monkeypatch.setattr(tempfile, "tempdir", str(tmp_path))
    report = read_demo(lake, ["x BETWEEN 420 AND 480", "x > 99999"], spark=spark)
    assert list(tmp_path.iterdir()) == []  # its statistics cache is removed
    assert [r["agree"] for r in report["predicates"]] == [True, True]
    assert report["predicates"][0]["native"] > 0 == report["predicates"][1]["prunekit"]
    assert "read_parquet:" in report["text"] and "Spark alone:" in report["text"]


# ---- read_delta ------------------------------------------------------------------------------
@pytest.fixture(scope="module")
def delta_table(tmp_path_factory) -> str:
    """Appends into two partitions, a delete (removed and rewritten files), a checkpoint, an
    overwrite of one partition, more appends: removed files stay in the folder."""
    from deltalake import DeltaTable, write_deltalake

    path = str(tmp_path_factory.mktemp("delta") / "t")
    rng = np.random.default_rng(5)

    def batch(k: int) -> pa.Table:
        t = _file(rng, k)
        return t.append_column("part", pa.array([f"p{k % 2}"] * t.num_rows))

    for k in range(6):
        write_deltalake(path, batch(k), partition_by=["part"], mode="append")
    table = DeltaTable(path)
    table.delete("x < 150")
    table.create_checkpoint()
    write_deltalake(path, batch(8), partition_by=["part"], mode="overwrite",
                    predicate="part = 'p0'")
    for k in (9, 10):
        write_deltalake(path, batch(k), partition_by=["part"], mode="append")
    return path


def _delta_rows(spark, path: str, version: int | None = None):
    from deltalake import DeltaTable

    table = DeltaTable(path, version=version).to_pyarrow_table()
    plain = pa.schema([pa.field(f.name, pa.string()) if pa.types.is_string_view(f.type)
                       or pa.types.is_large_string(f.type) else f for f in table.schema])
    return spark.createDataFrame(table.cast(plain))


@pytest.mark.parametrize("where", [
    "x > 1000", "x BETWEEN 420 AND 480 OR x < 10", "part = 'p1' AND x > 900", "part = 'p9'",
    "x IS NULL", "isnan(f) OR f > 9", "d >= DATE '2024-09-01'", "s LIKE 'j%'", "TRUE",
    "x < 150",  # deleted rows: none may come back
] + _random_predicates(6, seed=13))
def test_delta_rows_equal_the_live_rows(spark, delta_table, where, policy):
    expected = _rows(_delta_rows(spark, delta_table).where(where))
    got = sg.read_delta(spark, delta_table, where)
    assert got.columns == ["x", "f", "s", "d", "part"]
    assert _rows(got) == expected


def test_a_delta_folder_of_live_files_only_needs_no_file_filter(spark, tmp_path, monkeypatch):
    from deltalake import write_deltalake

    path = str(tmp_path / "appends")
    rng = np.random.default_rng(9)
    for k in range(3):
        write_deltalake(path, _file(rng, k), mode="append")
    monkeypatch.setattr(reader, "PATHS_MAX_FILES", 0)
    got = sg.read_delta(spark, path, "x >= 0")
    assert _rows(got) == _rows(_delta_rows(spark, path).where("x >= 0"))
    assert "_metadata" not in got._jdf.queryExecution().analyzed().toString()
    write_deltalake(path, _file(rng, 4), mode="overwrite")  # the folder now holds removed files
    got = sg.read_delta(spark, path, "x >= 0")
    assert _rows(got) == _rows(_delta_rows(spark, path).where("x >= 0"))
    assert "_metadata" in got._jdf.queryExecution().analyzed().toString()


def test_delta_time_travel_and_a_column_where(spark, delta_table):
    where = F.col("x") < 300
    expected = _rows(_delta_rows(spark, delta_table, version=2).where(where))
    assert expected
    assert _rows(sg.read_delta(spark, delta_table, where, version=2)) == expected


def test_delta_deletion_vectors_are_refused_only_where_a_file_is_read(spark, tmp_path):
    """A file carrying a deletion vector still holds its deleted rows: reading it is refused
    with its name; a read that skips it goes on."""
    import json

    from deltalake import DeltaTable, write_deltalake

    path = tmp_path / "dv"
    write_deltalake(str(path), pa.table({"x": pa.array([1, 2, 3], pa.int64())}))
    write_deltalake(str(path), pa.table({"x": pa.array([100, 200], pa.int64())}), mode="append")
    add = next(a for a in pa.table(DeltaTable(str(path)).get_add_actions(flatten=True)).to_pylist()
               if a["max.x"] == 3)
    log = path / "_delta_log"
    versions = sorted(log.glob("*.json"))
    dv = {"storageType": "i", "pathOrInlineDv": "wi5b=000010000siXQKl0rr91000f", "offset": None,
          "sizeInBytes": 34, "cardinality": 1}
    stats = json.dumps({"numRecords": 3, "minValues": {"x": 1}, "maxValues": {"x": 3},
                        "nullCount": {"x": 0}})
    actions = [{"remove": {"path": add["path"], "dataChange": True, "deletionTimestamp": 1}},
               {"add": {"path": add["path"], "partitionValues": {}, "size": add["size_bytes"],
                        "modificationTime": 1, "dataChange": True, "stats": stats,
                        "deletionVector": dv}}]
    (log / f"{len(versions):020d}.json").write_text("\n".join(map(json.dumps, actions)))
    with pytest.raises(pk.UnsupportedError, match="deletion vectors.*" + add["path"]):
        sg.read_delta(spark, str(path), "x < 10")
    assert sorted(r.x for r in sg.read_delta(spark, str(path), "x > 10").collect()) == [100, 200]
    shutil.rmtree(path)


def test_delta_bad_input_fails_before_any_job(spark, delta_table, tmp_path):
    for where, error in (("nope = 1", pk.UnknownColumnError), ("x >", pk.SqlSyntaxError)):
        raised, jobs = _jobs_run_by(spark, lambda w=where: sg.read_delta(spark, delta_table, w))
        assert isinstance(raised, error) and jobs == [], raised
    with pytest.raises(pk.StatisticsError, match="not a Delta table"):
        sg.read_delta(spark, str(tmp_path), "x > 1")
    import json

    mapped = tmp_path / "mapped"
    (mapped / "_delta_log").mkdir(parents=True)
    schema = {"type": "struct", "fields": [{"name": "x", "type": "long", "nullable": True,
              "metadata": {"delta.columnMapping.physicalName": "col-1"}}]}
    meta = {"metaData": {"schemaString": json.dumps(schema), "partitionColumns": [],
                         "configuration": {"delta.columnMapping.mode": "name"}}}
    (mapped / "_delta_log" / ("0" * 20 + ".json")).write_text(json.dumps(meta))
    raised, jobs = _jobs_run_by(spark, lambda: sg.read_delta(spark, str(mapped), "x > 1"))
    assert isinstance(raised, pk.UnsupportedError) and "column mapping" in str(raised)
    assert jobs == []


def test_a_file_the_statistics_do_not_describe_is_read(spark, lake, tmp_path, policy):
    """docs/semantics.md §1: statistics taken before a file was written say nothing of it."""
    copy = tmp_path / "lake"
    shutil.copytree(lake, copy)
    stats = row_group_statistics(str(copy))
    pq.write_table(pa.table({"x": pa.array([99_000], pa.int64()), "f": pa.array([1.0]),
                             "s": pa.array(["n"]), "d": pa.array([DAY0], pa.date32())}),
                   copy / "part-new.parquet")
    got = _rows(sg.read_parquet(spark, str(copy), "x > 50000", statistics=stats))
    assert got == _rows(spark.read.parquet(str(copy)).where("x > 50000")) and len(got) == 1


@pytest.mark.parametrize("zone", ["UTC", "Pacific/Kiritimati"])
def test_the_last_seven_days_read_as_spark_reads_them(spark, tmp_path, zone, policy):
    """``current_date()`` is fixed once, in the session's zone, and Spark filters with that
    same date: the rows are the plain read's, and older files are skipped."""
    today = datetime.datetime.now(datetime.timezone.utc).date()
    for i in range(20):
        day = today - datetime.timedelta(days=i - 2)  # two days ahead of UTC, for UTC+14
        pq.write_table(pa.table({"d": [day, day], "v": [i, i + 100]}), tmp_path / f"{i}.parquet")
    where = "d > date_sub(current_date(), 7) AND d <= current_date()"
    spark.conf.set("spark.sql.session.timeZone", zone)
    try:
        df = sg.read_parquet(spark, str(tmp_path), where)
        assert _rows(df) == _rows(spark.read.parquet(str(tmp_path)).where(where))
        if policy == "paths":  # a listed folder's filter on file names is not in inputFiles
            assert len(df.inputFiles()) <= 8 < 20
        column = F.expr(where)
        with pytest.warns(UserWarning, match="current_date"):
            unpruned = sg.read_parquet(spark, str(tmp_path), column)
        assert _rows(unpruned) == _rows(df)
    finally:
        spark.conf.set("spark.sql.session.timeZone", "UTC")
