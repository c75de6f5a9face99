"""prunekit.parquet: footer statistics equal the data's, and pruning on them is sound."""

import datetime
import decimal
import os
import struct

import duckdb
import numpy as np
import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.parquet as pq
import pytest

import prunekit as pk
import prunekit.parquet as ppq

RG = 7  # rows per row group: many small groups


def _rows(n=140, seed=0):
    rng = np.random.default_rng(seed)

    def maybe_null(values, p=0.15):
        out = list(values)
        for i in range(len(out)):
            if rng.random() < p or (i // RG) % 6 == 5:  # every 6th row group is all NULL
                out[i] = None
        return out

    ints = rng.integers(-1000, 1000, n)
    floats = rng.choice([-0.0, 0.0, 1.5, -2.25, np.inf, -np.inf, np.nan, 3e300, -1e-300], n)
    strs = rng.choice(["", "a", "ab", "é", "日本", "z\u00ff", "abc\x00d", "A"], n)
    big = 2**63 + rng.integers(0, 2**62, n, dtype=np.uint64).astype(object)
    dec = [decimal.Decimal(int(v)).scaleb(-4) for v in rng.integers(-10**5 + 1, 10**5, n)]
    dec38 = [decimal.Decimal(int(v) * 10**28 + 7).scaleb(-3) for v in rng.integers(-99, 99, n)]
    dec18 = [decimal.Decimal(int(v)).scaleb(-4) for v in rng.integers(-10**17, 10**17, n)]
    secs = rng.integers(-2 * 10**9, 2 * 10**9, n)
    cols = {
        "i8": pa.array(maybe_null(ints % 100), pa.int8()),
        "i16": pa.array(maybe_null(ints), pa.int16()),
        "i32": pa.array(maybe_null(ints * 10**6), pa.int32()),
        "i64": pa.array(maybe_null(ints * 10**15), pa.int64()),
        "u8": pa.array(maybe_null(np.abs(ints) % 250), pa.uint8()),
        "u16": pa.array(maybe_null(np.abs(ints) * 60), pa.uint16()),
        "u32": pa.array(maybe_null(np.abs(ints) * 4_000_000), pa.uint32()),
        "u64": pa.array(maybe_null(big), pa.uint64()),
        "f32": pa.array(maybe_null(np.where(np.abs(floats) > 1e30, floats, floats * 1e-5)
                                   .clip(-3e38, 3e38).astype(np.float32)), pa.float32()),
        "f64": pa.array(maybe_null(floats), pa.float64()),
        "s": pa.array(maybe_null(strs), pa.string()),
        "ls": pa.array(maybe_null(strs), pa.large_string()),
        "bin": pa.array(maybe_null([x.encode() + b"\xff" for x in strs]), pa.binary()),
        "lbin": pa.array(maybe_null([x.encode() for x in strs]), pa.large_binary()),
        "b": pa.array(maybe_null(ints % 3 == 0), pa.bool_()),
        "dec5": pa.array(maybe_null(dec), pa.decimal128(5, 4)),
        "dec18": pa.array(maybe_null(dec18), pa.decimal128(18, 4)),
        "dec38": pa.array(maybe_null(dec38), pa.decimal128(38, 3)),
        "dec50": pa.array(maybe_null(dec38), pa.decimal256(50, 3)),
        "date": pa.array(maybe_null(ints * 40), pa.int32()).cast(pa.date32()),
    }
    for unit in ("s", "ms", "us", "ns"):
        scale = {"s": 1, "ms": 10**3, "us": 10**6, "ns": 10**9}[unit]
        raw = pa.array(maybe_null(secs * scale + (secs % 997 if unit != "s" else 0)), pa.int64())
        cols[f"ts_{unit}"] = raw.cast(pa.timestamp(unit))
        cols[f"tz_{unit}"] = raw.cast(pa.timestamp(unit, "America/New_York"))
    return pa.table(cols)


@pytest.fixture(scope="module")
def typed_file(tmp_path_factory):
    path = str(tmp_path_factory.mktemp("typed") / "data.parquet")
    pq.write_table(_rows(), path, row_group_size=RG)
    return path


def _value(scalar):
    """A comparable Python value of an Arrow scalar (nanosecond timestamps as integers)."""
    if not scalar.is_valid:
        return None
    if pa.types.is_timestamp(scalar.type):
        return scalar.cast(pa.int64()).as_py()
    return scalar.as_py()


def test_statistics_equal_the_data(typed_file):
    stats = ppq.row_group_statistics(typed_file)
    data = pq.read_table(typed_file)
    assert stats.num_rows == data.num_rows // RG == pq.ParquetFile(typed_file).num_row_groups
    assert stats.column("row_count").to_pylist() == [RG] * stats.num_rows
    assert stats.column("row_group").to_pylist() == list(range(stats.num_rows))
    assert set(stats.column("file").to_pylist()) == {typed_file}
    assert ppq.data_schema(stats) == data.schema.remove_metadata()
    known = 0
    for name in data.column_names:
        st = stats.column(name).combine_chunks()
        for g in range(stats.num_rows):
            rows = data.column(name).slice(g * RG, RG).combine_chunks()
            assert st.field("null_count")[g].as_py() == rows.null_count, (name, g)
            if pa.types.is_floating(rows.type):
                rows = rows.filter(pc.invert(pc.is_nan(rows)))  # Parquet bounds exclude NaN
            want = pc.min_max(rows)
            lo, hi = st.field("min")[g], st.field("max")[g]
            if len(rows) == rows.null_count:
                assert not lo.is_valid and not hi.is_valid, (name, g)
                continue
            assert lo.is_valid and hi.is_valid, (name, g, "pyarrow writes every bound")
            assert _value(lo) == _value(want["min"]) and _value(hi) == _value(want["max"]), \
                (name, g, lo, hi, want)
            known += 1
            if pa.types.is_floating(rows.type) and _value(lo) == 0:
                assert np.signbit(lo.as_py()), "a zero minimum stands for -0.0 too"
            if pa.types.is_floating(rows.type) and _value(hi) == 0:
                assert not np.signbit(hi.as_py()), "a zero maximum stands for +0.0 too"
            if "min_exact" in [f.name for f in st.type]:
                # pyarrow writes is_min_value_exact/is_max_value_exact = true (nothing here is
                # long enough to truncate), and the bounds are the data's: values that occur.
                assert st.field("min_exact")[g].as_py() is True, (name, g)
                assert st.field("max_exact")[g].as_py() is True, (name, g)
    assert known > 400


def test_uint64_above_2_63_and_wide_decimals(tmp_path):
    path = str(tmp_path / "u.parquet")
    big = decimal.Decimal("-" + "9" * 35 + ".123")
    pq.write_table(pa.table({"u": pa.array([2**63 + 5, 2**64 - 1], pa.uint64()),
                             "d": pa.array([big, decimal.Decimal(1)], pa.decimal128(38, 3))}),
                   path)
    row = ppq.row_group_statistics(path).to_pylist()[0]
    assert row["u"] == {"min": 2**63 + 5, "max": 2**64 - 1, "null_count": 0}
    assert row["d"]["min"] == big and row["d"]["max"] == decimal.Decimal("1.000")


# ---- end to end: nothing with a matching row is skipped ------------------------------------
PREDICATES = [
    "x > 50", "x <= 10", "x = 33", "x <> 33", "x IN (1, 2, 99, NULL)", "x NOT IN (5, 6)",
    "x BETWEEN 20 AND 40", "NOT (x BETWEEN 20 AND 40)", "x IS NULL", "x IS NOT NULL",
    "f < 0.0", "f <= -0.0", "f = 0.0", "f > 1.0", "f >= 1e308", "isnan(f)", "f <> 0.0",
    "s = 'é'", "s LIKE 'ab%'", "s > 'b'", "s <> 'abc'", "s = ''",
    "u > 9223372036854775808", "u < 10", "d <= 1.5", "d = 0.25",
    "t >= TIMESTAMP '2020-01-01 00:00:00'", "t < TIMESTAMP '1999-06-01 12:00:00'",
    "dt = DATE '2021-03-04'", "dt > DATE '2021-03-01' AND x < 40", "x > 90 OR s = 'zz'",
]


def _soundness_data(seed):
    rng = np.random.default_rng(seed)
    n_groups, out = 40, []
    for g in range(n_groups):
        base = int(rng.integers(0, 90))
        width = int(rng.choice([0, 1, 5, 20]))
        null_p = rng.choice([0.0, 0.0, 0.3, 1.0])

        def nulls(values, null_p=null_p):
            return [None if rng.random() < null_p else v for v in values]

        x = rng.integers(base, base + width + 1, RG)
        f = rng.choice([[0.0], [-0.0], [0.0, -0.0], [np.nan], [1.5, 2.0], [-1.0, np.nan],
                        [np.inf], [-3.0, -0.0]][g % 8], RG)
        s = rng.choice([["é"], ["ab", "abc"], ["abc"], [""], ["b", "c"], ["zz", "a"]][g % 6], RG)
        out.append({
            "x": nulls(x.tolist()), "f": nulls(f.tolist()), "s": nulls(s.tolist()),
            "u": nulls([2**63 + int(v) for v in x] if g % 2 else [int(v) for v in x]),
            "d": nulls([decimal.Decimal(int(v)) / 4 for v in x]),
            "t": nulls([datetime.datetime(1999 + int(v) // 4, 1, 1) for v in x]),
            "dt": nulls([datetime.date(2021, 3, 1) + datetime.timedelta(int(v) % 7) for v in x]),
        })
    schema = pa.schema([("x", pa.int64()), ("f", pa.float64()), ("s", pa.string()),
                        ("u", pa.uint64()), ("d", pa.decimal128(10, 2)),
                        ("t", pa.timestamp("us")), ("dt", pa.date32())])
    return [pa.table(g, schema=schema) for g in out], schema


@pytest.mark.slow
@pytest.mark.parametrize("seed", [0, 1])
def test_pruning_is_sound_end_to_end(tmp_path, seed):
    groups, schema = _soundness_data(seed)
    path = str(tmp_path / "e2e.parquet")
    with pq.ParquetWriter(path, schema) as w:
        for g in groups:
            w.write_table(g)
    stats = pk.Statistics.from_arrow(ppq.row_group_statistics(path))
    pf = pq.ParquetFile(path)
    seen = set()
    for text in PREDICATES:
        outcome = pk.PruningPredicate(text, ppq.data_schema(stats.table)).classify(stats)
        for g, o in enumerate(outcome.tolist()):
            rows = pf.read_row_group(g)  # noqa: F841 (read by duckdb below)
            matching = duckdb.sql(f"SELECT count(*) FROM rows WHERE {text}").fetchall()[0][0]
            if o == pk.NONE_MATCH:
                assert matching == 0, (text, g, rows.to_pylist())
            if o == pk.ALL_MATCH:
                assert matching == rows.num_rows, (text, g, rows.to_pylist())
            seen.add(o)
    assert seen == {0, 1, 2}, "the statistics must prune something"


# ---- files, directories, globs, schemas ----------------------------------------------------
def _write(path, table, **kw):
    os.makedirs(os.path.dirname(path), exist_ok=True)
    pq.write_table(table, path, **kw)
    return path


def test_directories_globs_and_lists(tmp_path):
    d = str(tmp_path)
    a = _write(f"{d}/p=1/a.parquet", pa.table({"x": [1, 2, 3]}), row_group_size=2)
    b = _write(f"{d}/p=2/b.parquet", pa.table({"x": [7]}))
    _write(f"{d}/_delta_log/c.parquet", pa.table({"x": [99]}))
    _write(f"{d}/.hidden/d.parquet", pa.table({"x": [99]}))
    _write(f"{d}/p=2/.b.parquet.crc", pa.table({"x": [99]}))
    open(f"{d}/_SUCCESS", "w").close()
    open(f"{d}/notes.txt", "w").close()
    stats = ppq.row_group_statistics(d)
    assert stats.column("file").to_pylist() == [a, a, b]
    assert stats.column("row_group").to_pylist() == [0, 1, 0]
    assert [r["max"] for r in stats.column("x").to_pylist()] == [2, 3, 7]
    assert ppq.row_group_statistics(f"{d}/p=*/*.parquet").equals(stats)
    assert ppq.row_group_statistics([b, a]).column("file").to_pylist() == [b, a, a]
    with pytest.raises(FileNotFoundError, match="nothing-here"):
        ppq.row_group_statistics(f"{d}/nothing-here*.parquet")
    with pytest.raises(FileNotFoundError, match="missing.parquet"):
        ppq.row_group_statistics([a, f"{d}/missing.parquet"])


@pytest.mark.parametrize("content", [b"", b"hello, not parquet at all", b"PAR1" + b"\0" * 20])
def test_non_parquet_files_are_clear_errors(tmp_path, content):
    path = tmp_path / "bad.parquet"
    path.write_bytes(content)
    with pytest.raises(pk.StatisticsError, match="bad.parquet"):
        ppq.row_group_statistics(str(path))


def test_empty_files_and_empty_directories(tmp_path):
    empty = str(tmp_path / "empty.parquet")
    pq.ParquetWriter(empty, pa.schema([("x", pa.int64())])).close()
    assert pq.ParquetFile(empty).num_row_groups == 0
    stats = ppq.row_group_statistics(empty)
    assert stats.num_rows == 0 and ppq.data_schema(stats) == pa.schema([("x", pa.int64())])
    os.mkdir(tmp_path / "nothing")
    assert ppq.row_group_statistics(str(tmp_path / "nothing")).num_rows == 0
    pred = pk.PruningPredicate("x = 1", {"x": pa.int64()})
    assert pred.classify(pk.Statistics.from_arrow(stats)).tolist() == []


def test_schema_evolution(tmp_path):
    a = _write(f"{tmp_path}/a.parquet", pa.table({"x": [1, 2]}))
    b = _write(f"{tmp_path}/b.parquet", pa.table({"x": [5], "y": pa.array(["q"],
                                                                           pa.large_string())}))
    c = _write(f"{tmp_path}/c.parquet", pa.table({"y": ["r"], "z": pa.nulls(1)}))
    stats = ppq.row_group_statistics([a, b, c])
    assert ppq.data_schema(stats) == pa.schema([("x", pa.int64()), ("y", pa.large_string()),
                                                ("z", pa.null())])
    ys = stats.column("y").to_pylist()
    assert ys[0] == {"min": None, "max": None, "null_count": 2, "min_exact": None,
                     "max_exact": None}  # the column is not in a.parquet: NULL in its 2 rows
    assert ys[1]["min"] == "q" and ys[2]["max"] == "r"
    assert stats.column("x").to_pylist()[2] == {"min": None, "max": None, "null_count": 1}
    schema = ppq.data_schema(stats)
    outcome = pk.PruningPredicate("y = 'zz' OR x > 3", schema).classify(
        pk.Statistics.from_arrow(stats))
    assert outcome.tolist() == [0, 2, 0]  # a: y NULL, x <= 2; b: x = 5; c: x NULL, y = 'r'
    assert pk.PruningPredicate("y IS NULL", schema).classify(stats).tolist() == [2, 0, 0]
    d = _write(f"{tmp_path}/d.parquet", pa.table({"x": ["not an int"]}))
    with pytest.raises(pk.StatisticsError, match=r"'x'.*int64.*a\.parquet.*string.*d\.parquet"):
        ppq.row_group_statistics([a, d])
    clash = _write(f"{tmp_path}/e.parquet", pa.table({"row_count": [1]}))
    with pytest.raises(pk.StatisticsError, match="row_count"):
        ppq.row_group_statistics(clash)


def test_an_absent_column_is_null_only_when_no_column_has_its_name(tmp_path):
    """Spark matches a file's columns to the table's case-insensitively: a file with ``X`` has
    the table's ``x``, so ``x`` is not NULL there (unknown, as the file's ``X`` is another
    statistics column); a nested field the file lacks is left unknown too."""
    lower = _write(f"{tmp_path}/a.parquet", pa.table({"x": [1], "s": [{"p": 1, "q": 2}]}))
    upper = _write(f"{tmp_path}/b.parquet", pa.table({"X": [7], "s": [{"p": 3}]}))
    rows = ppq.row_group_statistics([lower, upper]).to_pylist()
    assert rows[1]["x"] == {"min": None, "max": None, "null_count": None}
    assert rows[0]["X"] == {"min": None, "max": None, "null_count": None}
    assert rows[1]["s.q"] == {"min": None, "max": None, "null_count": None}
    assert rows[1]["s.p"]["min"] == 3


def test_columns_reads_only_those_leaves(tmp_path):
    table = pa.table({"x": [1, 5], "Name": ["a", "b"], "s": [{"p": 1, "q": 2.5}, None],
                      "t": [{"p": 3}, {"p": 4}]})
    path = _write(f"{tmp_path}/a.parquet", table)
    every = ppq.row_group_statistics(path)
    some = ppq.row_group_statistics(path, columns=["x", "name", "s"])  # any case; a struct
    assert some.column_names == ["file", "row_group", "row_count", "x", "Name", "s.p", "s.q"]
    for c in some.column_names:
        assert some.column(c).equals(every.column(c)), c
    assert ppq.row_group_statistics(path, columns=["t.p"]).column_names[3:] == ["t.p"]
    assert ppq.row_group_statistics(path, columns=[]).column_names[3:] == []


def test_scan_reads_only_the_columns_the_predicate_names(tmp_path, monkeypatch, capsys):
    import json

    from prunekit import cli
    from prunekit.sources import parquet as source

    path = _write(f"{tmp_path}/a.parquet", pa.table({"x": [1, 5], "y": [2, 3], "z": [0, 0]}))
    asked = []
    read = source.statistics

    def spy(paths, **kw):
        asked.append(kw.get("columns"))
        return read(paths, **kw)

    monkeypatch.setattr(source, "statistics", spy)
    assert cli.main(["scan", path, "--where", "X > 3 AND y < 9", "--format", "json"]) == 0
    assert asked == [{"x", "y"}]
    report = json.loads(capsys.readouterr().out)
    assert report["summary"]["read_and_filter"]["containers"] == 1
    # A top-level name holding a dot is its own column, not a struct's field
    dotted = _write(f"{tmp_path}/b.parquet", pa.table({"a.b": [1, 5], "a": [{"b": 9}] * 2}))
    assert cli.main(["scan", dotted, "--where", "`a.b` > 7", "--format", "json"]) == 0
    assert asked[-1] == {"`a.b`"}
    assert json.loads(capsys.readouterr().out)["summary"]["skip"]["containers"] == 1


# ---- footers from other writers -------------------------------------------------------------
def _strip_column_orders(src, dst):
    """Rewrite a file as an old writer would have: no column_orders in the footer."""
    data = open(src, "rb").read()
    length = struct.unpack("<I", data[-8:-4])[0]
    footer = data[-8 - length:-8]
    n = pq.read_metadata(src).num_columns
    suffix = bytes([(n << 4) | 0x0C]) + b"\x1c\x00\x00" * n + b"\x00"
    assert footer.endswith(suffix) and footer[-len(suffix) - 1] == 0x19
    footer = footer[:-len(suffix) - 1] + b"\x00"
    open(dst, "wb").write(data[:-8 - length] + footer + struct.pack("<I", len(footer)) + b"PAR1")


def test_deprecated_statistics_are_kept_only_for_signed_orders(tmp_path):
    t = pa.table({"i": [3, -4], "s": ["\u00e9QQ", "aQQ"],
                  "u": pa.array([2**64 - 1, 1], pa.uint64())})
    pq.write_table(t, tmp_path / "src.parquet")
    modern = ppq.row_group_statistics(str(tmp_path / "src.parquet")).to_pylist()[0]
    assert modern["s"]["min"] == "aQQ" and modern["u"]["max"] == 2**64 - 1
    # Move the string bounds to the deprecated min/max fields (Thrift compact long-form field
    # headers 1 and 2), as a writer from before PARQUET-1025 wrote them, then drop the
    # column orders. They were ordered by signed bytes: not bounds in byte order. (pyarrow 26
    # hides them itself; older pyarrow, which prunekit allows, shows them.)
    data = open(tmp_path / "src.parquet", "rb").read()
    new = b"(\x04\xc3\xa9QQ\x18\x03aQQ\x11\x11\x00"  # max_value, min_value, exact flags
    old = b"\x08\x02\x04\xc3\xa9QQ\x08\x04\x03aQQ\x00"  # max, min
    head, found, rest = data.rpartition(new)  # the footer's copy (pages have one too)
    assert found and len(new) == len(old)
    open(tmp_path / "moved.parquet", "wb").write(head + old + rest)
    _strip_column_orders(tmp_path / "moved.parquet", tmp_path / "old.parquet")
    raw = pq.ParquetFile(tmp_path / "old.parquet").metadata.row_group(0)
    assert raw.column(1).statistics.null_count == 0  # the rewritten footer parses
    assert raw.column(0).statistics.has_min_max  # deprecated signed int64 bounds
    got = ppq.row_group_statistics(str(tmp_path / "old.parquet")).to_pylist()[0]
    assert got["i"] == {"min": -4, "max": 3, "null_count": 0}
    assert got["s"]["min"] is None and got["s"]["max"] is None and got["s"]["null_count"] == 0
    assert got["u"]["min"] is None and got["u"]["max"] is None


def test_truncated_string_bounds_are_inexact(tmp_path):
    long = "m" * 300 + "x"
    pq.write_table(pa.table({"s": ["a" * 300, long]}), tmp_path / "src.parquet")
    duckdb.sql(f"COPY (SELECT * FROM '{tmp_path}/src.parquet') TO '{tmp_path}/duck.parquet'")
    row = ppq.row_group_statistics(str(tmp_path / "duck.parquet")).to_pylist()[0]["s"]
    assert row["min"] <= "a" * 300 and row["max"] >= long  # truncated, still bounds
    assert row["min_exact"] is False and row["max_exact"] is False
    pred = pk.PruningPredicate(f"s = '{long}'", {"s": pa.string()})
    stats = pk.Statistics.from_arrow(ppq.row_group_statistics(str(tmp_path / "duck.parquet")))
    assert pred.classify(stats).tolist() == [1]


def test_many_files_threads_and_progress(tmp_path, capsys):
    for i in range(120):
        _write(f"{tmp_path}/f{i:03d}.parquet", pa.table({"x": [i, i + 1]}))
    one = ppq.row_group_statistics(str(tmp_path), threads=1, progress=False)
    many = ppq.row_group_statistics(str(tmp_path), threads=8, progress=True)
    assert one.equals(many) and one.num_rows == 120
    assert [r["min"] for r in one.column("x").to_pylist()] == list(range(120))
    assert "120/120" in capsys.readouterr().err
    ppq.row_group_statistics(str(tmp_path))  # stderr is not a terminal here: silent
    assert capsys.readouterr().err == ""


def test_bytes_column_is_each_row_groups_compressed_bytes(tmp_path):
    """What pyarrow's metadata says a row group's column chunks take, read from the same
    walk as the statistics (in both of its forms); a name already in the table is an error."""
    from prunekit.sources.jit import forced
    (tmp_path / "sub").mkdir()
    pq.write_table(pa.table({"x": list(range(100)), "s": [f"v{i}" * (i % 7) for i in range(100)]}),
                   tmp_path / "a.parquet", row_group_size=30)
    pq.write_table(pa.table({"x": [1, 2, 3]}), tmp_path / "sub" / "b.parquet")
    for form in ("python", "compiled"):
        with forced(form):
            table = ppq.row_group_statistics(tmp_path, columns=["x"], bytes_column="bytes.")
        want = []
        for f, g in zip(table.column("file").to_pylist(), table.column("row_group").to_pylist(),
                        strict=True):
            rg = pq.read_metadata(f).row_group(g)
            want.append(sum(rg.column(c).total_compressed_size for c in range(rg.num_columns)))
        assert table.column("bytes.").to_pylist() == want and len(set(want)) > 2
    assert ppq.data_schema(table).names == ["x"]  # not a data column
    assert len(pk.Statistics.from_arrow(table)) == 5
    with pytest.raises(pk.StatisticsError, match="bytes_column 'x'"):
        ppq.row_group_statistics(tmp_path, columns=["x"], bytes_column="x")
