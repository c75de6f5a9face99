"""prunekit.delta: Delta log statistics hold for the data, and pruning on them is sound."""

import datetime
import decimal
import json
import os

import duckdb
import numpy as np
import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.parquet as pq
import pytest
from deltalake import DeltaTable, write_deltalake

import prunekit as pk
import prunekit.delta as pd
from prunekit.parquet import data_schema

UTC = datetime.timezone.utc


def _rows(n, seed):
    rng = np.random.default_rng(seed)

    def nulls(values, p=0.1):
        return [None if rng.random() < p else v for v in values]

    base = int(rng.integers(0, 50))
    x = rng.integers(base, base + rng.choice([1, 5, 40]), n)
    us = rng.integers(0, 10**6, n)
    words = ["a", "ab", "é" * 40, "x" * 70, "x" * 31, "日本" * 12, "\U0001f600" * 20, ""]
    return pa.table({
        "part": pa.array([["p1", "p2"][seed % 2]] * n),
        "x": pa.array(nulls(x.tolist()), pa.int64()),
        "i": pa.array(nulls((x % 100).tolist()), pa.int32()),
        "f": pa.array(nulls(rng.choice([0.5, -0.0, 2.25, np.nan, 1e300, -np.inf], n).tolist())),
        "g": pa.array(nulls(rng.choice([0.1, 3.5, -7.25], n).tolist()), pa.float32()),
        "s": pa.array(nulls(rng.choice(words, n).tolist())),
        "d": pa.array(nulls([decimal.Decimal(int(v)).scaleb(-2) for v in x * 37]),
                      pa.decimal128(12, 2)),
        "dt": pa.array(nulls([datetime.date(2020, 1, 1) + datetime.timedelta(int(v))
                              for v in x])),
        "ts": pa.array(nulls([datetime.datetime(2021, 1, 1, tzinfo=UTC)
                              + datetime.timedelta(minutes=int(v), microseconds=int(u))
                              for v, u in zip(x, us, strict=True)]), pa.timestamp("us", "UTC")),
        "ntz": pa.array(nulls([datetime.datetime(1969, 12, 31, 23, 59)
                               + datetime.timedelta(seconds=int(v), microseconds=int(u))
                               for v, u in zip(x, us, strict=True)]), pa.timestamp("us")),
        "b": pa.array(nulls((x % 2 == 0).tolist()), pa.bool_()),
    })


@pytest.fixture(scope="module")
def table(tmp_path_factory):
    """Appends, a delete (removes and rewrites), a checkpoint, an overwrite of one partition,
    more appends: the live files and their rows, at the last and at an earlier version."""
    path = str(tmp_path_factory.mktemp("delta") / "t")
    for seed in range(4):
        write_deltalake(path, _rows(30, seed), partition_by=["part"], mode="append")
    dt_ = DeltaTable(path)
    dt_.delete("x < 20")
    dt_.create_checkpoint()
    write_deltalake(path, _rows(25, 10), partition_by=["part"], mode="overwrite",
                    predicate="part = 'p1'")
    for seed in range(5, 8):
        write_deltalake(path, _rows(20, seed), partition_by=["part"], mode="append")
    return path


def _file_rows(path, part):
    t = pq.read_table(path)
    return t.append_column("part", pa.array([part] * t.num_rows))


def _live(table, version=None):
    uris = DeltaTable(table, version=version).file_uris()
    return sorted(os.path.normpath(u.removeprefix("file://")) for u in uris)


def _partition(path):
    return next(p.split("=", 1)[1] for p in path.split(os.sep) if p.startswith("part="))


def _check_bounds(stats, data, where):
    for name in data.column_names:
        col = data.column(name)
        st = stats[name]
        if st["null_count"] is not None:
            assert st["null_count"] == col.null_count, (where, name)
        values = pc.drop_null(col)
        if pa.types.is_floating(col.type):
            values = values.filter(pc.invert(pc.is_nan(values)))
        if len(values) == 0:
            continue
        lo, hi = pc.min_max(values)["min"].as_py(), pc.min_max(values)["max"].as_py()
        if pa.types.is_string(col.type):  # Spark's order: UTF-8 bytes
            lo, hi = min(values.to_pylist(), key=str.encode), max(values.to_pylist(),
                                                                   key=str.encode)
            key = str.encode
        else:
            key = lambda v: v  # noqa: E731
        if st["min"] is not None:
            assert key(st["min"]) <= key(lo), (where, name, st, lo)
            if st["min_exact"]:
                assert st["min"] == lo, (where, name, st, lo)
        if st["max"] is not None:
            assert key(st["max"]) >= key(hi), (where, name, st, hi)
            if st["max_exact"]:
                assert st["max"] == hi, (where, name, st, hi)


def test_statistics_hold_for_the_data(table):
    stats = pd.file_statistics(table)
    assert [os.path.normpath(p) for p in stats.column("path").to_pylist()] == _live(table)
    known = {n: 0 for n in ("min", "max", "null_count", "min_exact")}
    cut = 0
    for row in stats.to_pylist():
        data = _file_rows(row["path"], _partition(row["path"]))
        assert row["row_count"] == data.num_rows
        assert row["size"] == os.path.getsize(row["path"])
        _check_bounds(row, data, row["path"])
        assert row["part"]["min_exact"] and row["part"]["null_count"] == 0
        for name in data.column_names:
            for k in known:
                known[k] += row[name][k] is not None and row[name][k] is not False
        top = max(pc.drop_null(data.column("s")).to_pylist(), key=str.encode, default="")
        if len(top.encode()) >= 30:
            cut += 1
            assert not row["s"]["max_exact"], "a maybe-cut string is inexact"
        assert row["ts"]["max"] is None or not row["ts"]["max_exact"]
    assert all(known.values()), known  # bounds, counts and exact flags were all read
    assert cut


def test_older_versions_replay_up_to_them(table):
    for v in (0, 3, 4, 5):
        stats = pd.file_statistics(table, version=v)
        paths = [os.path.normpath(p) for p in stats.column("path").to_pylist()]
        assert paths == _live(table, v), v
        assert sum(stats.column("row_count").to_pylist()) == \
            DeltaTable(table, version=v).to_pyarrow_table().num_rows
    with pytest.raises(pk.StatisticsError, match="no version 99"):
        pd.file_statistics(table, version=99)


PREDICATES = [
    "x > 40", "x = 25", "x IS NULL", "i BETWEEN 10 AND 20", "f > 1.0", "f < 0", "f = 0.0",
    "isnan(f)", "g <= 0.1", "g > 3.4", "s = 'ab'", "s > 'x'", "s >= 'é'", "s < 'a'",
    "s LIKE 'xx%'", "s > '\U0001f600'", "s = '" + "x" * 70 + "'", "d > 20.00", "d = 9.25",
    "dt >= DATE '2020-02-01'", "ts > TIMESTAMP '2021-01-01 00:30:00+00:00'",
    "ts <= TIMESTAMP '2021-01-01 00:10:00.5+00:00'", "ntz < TIMESTAMP_NTZ '1970-01-01 00:00:10'",
    "b = true", "part = 'p1' AND x < 30", "part <> 'p2' OR f IS NULL", "NOT (x > 30)",
]


def test_pruning_is_sound_end_to_end(table):
    stats = pd.statistics(table)
    schema = data_schema(stats.table)
    seen = set()
    con = duckdb.connect()
    con.execute("SET TimeZone = 'UTC'")
    files = [(r["path"], r["row_count"]) for r in stats.table.select(["path", "row_count"])
             .to_pylist()]
    data = {p: _file_rows(p, _partition(p)) for p, _ in files}
    for text in PREDICATES:
        sql = text.replace("TIMESTAMP_NTZ", "TIMESTAMP").replace("isnan(f)", "isnan(f)")
        outcome = pk.PruningPredicate(text, schema).classify(stats)
        for (path, n), o in zip(files, outcome.tolist(), strict=True):
            rows = data[path]  # noqa: F841 (read by duckdb)
            matching = con.execute(f"SELECT count(*) FROM rows WHERE {sql}").fetchone()[0]
            if o == pk.NONE_MATCH:
                assert matching == 0, (text, path)
            if o == pk.ALL_MATCH:
                assert matching == n, (text, path)
            seen.add(o)
    assert seen == {0, 1, 2}


# ---- hand-written logs: Spark's rules ------------------------------------------------------
SCHEMA = {"type": "struct", "fields": [
    {"name": n, "type": t, "nullable": True, "metadata": {}} for n, t in
    [("x", "long"), ("s", "string"), ("ts", "timestamp"), ("ntz", "timestamp_ntz"),
     ("f", "float"), ("dbl", "double"), ("d", "decimal(5,2)"), ("dt", "date"),
     ("bin", "binary"), ("p", "integer"), ("nested", {"type": "struct", "fields": []})]]}


def _log(tmp_path, commits, configuration=None, partitions=("p",), schema=SCHEMA):
    log = tmp_path / "_delta_log"
    log.mkdir(exist_ok=True)
    meta = {"metaData": {"id": "t", "format": {"provider": "parquet", "options": {}},
                         "schemaString": json.dumps(schema),
                         "partitionColumns": list(partitions),
                         "configuration": configuration or {}}}
    for v, actions in enumerate(commits):
        lines = ([{"protocol": {"minReaderVersion": 1, "minWriterVersion": 2}}, meta]
                 if v == 0 else []) + actions
        (log / f"{v:020d}.json").write_text("\n".join(json.dumps(a) for a in lines))
    return str(tmp_path)


def _add(path, stats=None, pv=None, **extra):
    return {"add": {"path": path, "partitionValues": pv or {}, "size": 10,
                    "modificationTime": 0, "dataChange": True,
                    "stats": None if stats is None else json.dumps(stats, ensure_ascii=False),
                    **extra}}


def _one(tmp_path, stats, **kw):
    return pd.file_statistics(_log(tmp_path, [[_add("a.parquet", stats, **kw)]])).to_pylist()[0]


def test_spark_style_values(tmp_path):
    row = _one(tmp_path, {
        "numRecords": 5,
        "minValues": {"x": -3, "ts": "2021-06-01T12:00:00.123+02:00", "ntz": "2021-06-01T01:02:03",
                      "f": 0.1, "dbl": 0.1, "d": 1.5, "dt": "2020-02-29", "s": "ab"},
        "maxValues": {"x": 9, "ts": "2021-06-01T12:00:00.123456Z", "ntz": "2021-06-01T01:02:03.5",
                      "f": 1e39, "dbl": "NaN", "d": 2.345, "dt": "2020-03-01", "s": "b"},
        "nullCount": {"x": 0, "s": 2, "f": 1}}, pv={"p": "7"})
    assert row["row_count"] == 5
    assert row["x"] == {"min": -3, "max": 9, "null_count": 0, "min_exact": True, "max_exact": True}
    ts = row["ts"]
    assert ts["min"] == datetime.datetime(2021, 6, 1, 10, 0, 0, 123000, tzinfo=UTC)
    assert not ts["min_exact"]
    assert ts["max"] == datetime.datetime(2021, 6, 1, 12, 0, 0, 123456, tzinfo=UTC)
    assert ts["max_exact"], "six fractional digits are not millisecond-truncated"
    assert row["ntz"]["max"] == datetime.datetime(2021, 6, 1, 1, 2, 3, 500999)
    # Java prints float32 0.1f as "0.1": read back as the nearest float32, exact
    assert row["f"]["min"] == float(np.float32(0.1)) and row["f"]["min_exact"]
    assert row["f"]["max"] == float("inf")
    assert row["dbl"]["min"] == 0.1 and row["dbl"]["min_exact"]
    assert np.isnan(row["dbl"]["max"])
    assert row["d"]["min"] == decimal.Decimal("1.50") and row["d"]["min_exact"]
    assert row["d"]["max"] == decimal.Decimal("2.35") and not row["d"]["max_exact"]
    assert row["dt"]["min"] == datetime.date(2020, 2, 29)
    assert row["bin"]["min"] is None and row["bin"]["null_count"] is None
    assert row["p"] == {"min": 7, "max": 7, "null_count": 0, "min_exact": True,
                        "max_exact": True}
    assert "nested" not in row


def _spark_cut(v, n=32):
    """Delta Spark's truncateMaxStringAgg: 32 UTF-16 units, extended past chars >= U+FFFD,
    then a U+FFFD tie-breaker (which is no upper bound in UTF-8 order before a
    supplementary character)."""
    units = v.encode("utf-16-le", "surrogatepass")
    if len(units) <= 2 * n:
        return v, v
    i = n
    while i < len(units) // 2 and int.from_bytes(units[2 * i:2 * i + 2], "little") >= 0xFFFD:
        i += 1
    lo = units[:2 * n].decode("utf-16-le", "surrogatepass")
    hi = units[:2 * i].decode("utf-16-le", "surrogatepass")
    return lo, (hi + "\ufffd" if i < len(units) // 2 else hi)


def _rs_cut(v, n=64):
    """parquet-rs (delta-rs): the longest prefix of at most 64 bytes; max last char + 1."""
    b = v.encode()
    if len(b) <= n:
        return v, v
    lo = hi = b[:n].decode(errors="ignore")
    while ord(hi[-1]) == 0x10FFFF:  # parquet-rs carries into the character before
        hi = hi[:-1]
    return lo, hi[:-1] + chr(ord(hi[-1]) + 1)


@pytest.mark.parametrize("cut", [_spark_cut, _rs_cut, lambda v: (v[:32], v[:32])])
def test_cut_strings_stay_bounds(tmp_path, cut):
    rng = np.random.default_rng(0)
    alphabet = ["a", "z", "é", "\uffff", "\ufffd", "\U0001f600", "日", "\x7f", "\U0010ffff"]
    for k in range(60):
        length = int(rng.integers(25, 80))
        v = "".join(rng.choice(alphabet, length, p=[.3, .1, .1, .1, .1, .1, .1, .05, .05]))
        lo, hi = cut(v)
        d = tmp_path / str(k)
        d.mkdir()
        st = _one(d, {"numRecords": 1, "minValues": {"s": lo}, "maxValues": {"s": hi},
                      "nullCount": {"s": 0}})["s"]
        raw = v.encode()
        assert st["min"] is None or st["min"].encode() <= raw, (v, lo, st)
        assert st["max"] is None or st["max"].encode() >= raw, (v, hi, st)
        assert st["min"] is not None and st["max"] is not None
        if lo != v:
            assert not st["min_exact"] and not st["max_exact"]


def test_a_prefix_length_in_the_configuration(tmp_path):
    v = "abcdefghij" * 2
    path = _log(tmp_path, [[_add("a.parquet", {"numRecords": 1, "minValues": {"s": v[:8]},
                                              "maxValues": {"s": v[:8]}})]],
                configuration={"delta.dataSkippingStringPrefixLength": "8"})
    st = pd.file_statistics(path).column("s").to_pylist()[0]
    assert st["max"] == "abcdeg" and st["max"] > v and not st["max_exact"]


def test_wide_bounds_deletion_vectors_and_missing_stats(tmp_path):
    dv = {"storageType": "u", "pathOrInlineDv": "abc", "offset": 1, "sizeInBytes": 10,
          "cardinality": 2}
    path = _log(tmp_path, [[
        _add("a.parquet", {"numRecords": 5, "minValues": {"x": 1}, "maxValues": {"x": 4},
                           "nullCount": {"x": 0}, "tightBounds": False}),
        _add("b.parquet", {"numRecords": 5, "minValues": {"x": 1}, "maxValues": {"x": 4},
                           "nullCount": {"x": 0}}, deletionVector=dv),
        _add("c.parquet", None),
        _add("d.parquet", {"numRecords": 3}, pv={"p": None}),
        _add("e%20f.parquet", "not json"),
    ]])
    rows = {os.path.basename(r["path"]): r for r in pd.file_statistics(path).to_pylist()}
    assert rows["a.parquet"]["x"] == {"min": 1, "max": 4, "null_count": None,
                                      "min_exact": False, "max_exact": False}
    assert rows["b.parquet"]["row_count"] == 3 and rows["b.parquet"]["x"]["null_count"] is None
    assert rows["c.parquet"]["row_count"] is None and rows["c.parquet"]["x"]["min"] is None
    assert rows["d.parquet"]["p"]["null_count"] == 3 and rows["d.parquet"]["x"]["min"] is None
    assert "e f.parquet" in rows  # paths in the log are URL-encoded
    stats = pd.statistics(path)
    assert pk.PruningPredicate("x = 1", data_schema(stats.table)).classify(stats).tolist() == \
        [1, 1, 1, 1, 1], "inexact bounds never prove x = 1 for every row"
    assert pk.PruningPredicate("p IS NOT NULL", data_schema(stats.table)).classify(stats) \
        .tolist()[3] == pk.NONE_MATCH


def test_removes_checkpoints_and_sidecar_free_replay(tmp_path):
    s = {"numRecords": 1, "minValues": {"x": 1}, "maxValues": {"x": 1}, "nullCount": {"x": 0}}
    path = _log(tmp_path, [[_add("a.parquet", s), _add("b.parquet", s)],
                           [{"remove": {"path": "a.parquet", "dataChange": True}},
                            _add("c.parquet", s)]])
    # a checkpoint at version 1, with typed stats_parsed instead of the JSON text
    log = tmp_path / "_delta_log"
    meta = json.loads((log / f"{0:020d}.json").read_text().splitlines()[1])["metaData"]
    parsed = pa.struct([("numRecords", pa.int64()),
                        ("minValues", pa.struct([("x", pa.int64()),
                                                 ("ts", pa.timestamp("us", "UTC"))])),
                        ("maxValues", pa.struct([("x", pa.int64()),
                                                 ("ts", pa.timestamp("us", "UTC"))]))])
    when = datetime.datetime(2021, 1, 1, 0, 0, 0, 5000, tzinfo=UTC)
    add = pa.array([{"path": p, "partitionValues": [], "size": 1, "stats": None,
                     "stats_parsed": {"numRecords": 4, "minValues": {"x": 2, "ts": when},
                                      "maxValues": {"x": 3, "ts": when}}}
                    for p in ("b.parquet", "c.parquet")] + [None],
                   pa.struct([("path", pa.string()),
                              ("partitionValues", pa.map_(pa.string(), pa.string())),
                              ("size", pa.int64()), ("stats", pa.string()),
                              ("stats_parsed", parsed)]))
    md = pa.array([None, None, {"schemaString": meta["schemaString"], "partitionColumns": ["p"],
                                "configuration": []}],
                  pa.struct([("schemaString", pa.string()),
                             ("partitionColumns", pa.list_(pa.string())),
                             ("configuration", pa.map_(pa.string(), pa.string()))]))
    pq.write_table(pa.table({"add": add, "metaData": md}),
                   log / f"{1:020d}.checkpoint.parquet")
    (log / f"{0:020d}.json").unlink()  # the log before the checkpoint is gone
    rows = pd.file_statistics(path).to_pylist()
    assert [os.path.basename(r["path"]) for r in rows] == ["b.parquet", "c.parquet"]
    assert rows[0]["row_count"] == 4 and rows[0]["x"]["min"] == 2
    assert rows[0]["ts"]["max"] == when.replace(microsecond=5999)
    with pytest.raises(pk.StatisticsError, match="no version 0 in the Delta log"):
        pd.file_statistics(path, version=0)
    (log / f"{2:020d}.json").write_text(json.dumps({"remove": {"path": "b.parquet"}}))
    assert [os.path.basename(r["path"]) for r in pd.file_statistics(path).to_pylist()] == \
        ["c.parquet"]


def test_column_mapping_uses_physical_names(tmp_path):
    schema = {"type": "struct", "fields": [
        {"name": "x", "type": "long", "nullable": True,
         "metadata": {"delta.columnMapping.physicalName": "col-1"}},
        {"name": "p", "type": "date", "nullable": True,
         "metadata": {"delta.columnMapping.physicalName": "col-2"}}]}
    path = _log(tmp_path, [[_add("a.parquet", {"numRecords": 2, "minValues": {"col-1": 5},
                                               "maxValues": {"col-1": 6}},
                                 pv={"col-2": "2024-02-03"})]],
                configuration={"delta.columnMapping.mode": "name"}, schema=schema)
    row = pd.file_statistics(path).to_pylist()[0]
    assert row["x"]["min"] == 5 and row["p"]["min"] == datetime.date(2024, 2, 3)


def test_errors(tmp_path):
    with pytest.raises(pk.StatisticsError, match="not a Delta table"):
        pd.file_statistics(tmp_path)
    (tmp_path / "_delta_log").mkdir()
    with pytest.raises(pk.StatisticsError, match="no commits"):
        pd.file_statistics(tmp_path)
    (tmp_path / "_delta_log" / f"{0:020d}.json").write_text(
        json.dumps({"add": {"path": "a", "partitionValues": {}, "size": 1}}))
    with pytest.raises(pk.StatisticsError, match="no metaData"):
        pd.file_statistics(tmp_path)
    (tmp_path / "_delta_log" / f"{2:020d}.json").write_text("")
    with pytest.raises(pk.StatisticsError, match="commit 1 is missing"):
        pd.file_statistics(tmp_path)
    bad = {"type": "struct", "fields": [{"name": "path", "type": "long"}]}
    (tmp_path / "x").mkdir()
    with pytest.raises(pk.StatisticsError, match="clashes"):
        pd.file_statistics(_log(tmp_path / "x", [[]], schema=bad, partitions=()))


def test_nan_bounds_of_delta_rs_exclude_nan(tmp_path):
    """delta-rs leaves NaN out of float bounds: a NaN row must keep its file for f > 2."""
    path = str(tmp_path / "t")
    write_deltalake(path, pa.table({"f": [1.5, float("nan")]}))
    stats = pd.statistics(path)
    assert stats.table.column("f").to_pylist()[0]["max"] == 1.5
    assert pk.PruningPredicate("f > 2", data_schema(stats.table)).classify(stats).tolist() == [1]
    wrong = pd.statistics(path, nan_bounds="include")  # what a Spark-only table would allow
    assert pk.PruningPredicate("f > 2", data_schema(wrong.table)).classify(wrong).tolist() == [0]


def test_a_snapshot_is_replayed_once_per_version(tmp_path, monkeypatch):
    from prunekit.sources import delta as D

    path = str(tmp_path / "t")
    write_deltalake(path, _rows(10, 1))
    replays = []
    real = D.replay
    monkeypatch.setattr(D, "replay", lambda *a: (replays.append(a), real(*a))[1])
    first = D.snapshot(path)
    assert D.snapshot(path) is first and len(replays) == 1
    write_deltalake(path, _rows(10, 2), mode="append")  # a new version: replayed
    second = D.snapshot(path)
    assert len(replays) == 2 and second.statistics.num_rows == 2
    assert D.snapshot(path, version=0) is not second
    monkeypatch.chdir(tmp_path)  # a relative root names other files from another folder
    assert D.snapshot("t") is D.snapshot("t") and D.snapshot("t") is not second
    (tmp_path / "elsewhere").mkdir()
    monkeypatch.chdir(tmp_path / "elsewhere")
    with pytest.raises(pk.StatisticsError, match="not a Delta table"):
        D.snapshot("t")


def test_columns_reads_only_those_leaves(table):
    every = pd.file_statistics(table)
    some = pd.file_statistics(table, columns=["PART", "x"])  # any case
    assert some.column_names == ["path", "size", "row_count"] + [
        c for c in every.column_names if c.lower() in ("part", "x")]
    assert len(some.column_names) == 5
    for c in some.column_names:
        assert some.column(c).equals(every.column(c)), c
