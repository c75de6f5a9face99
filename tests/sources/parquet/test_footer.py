"""The Numba footer decoder (``prunekit.sources.parquet.thrift_footer`` and friends) against
pyarrow's own reading of the same footers, on nested columns, and on corrupt or hostile footers."""

import datetime
import decimal
import os
import struct
from pathlib import Path

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.parquet as pq
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import prunekit as pk
import prunekit.parquet as ppq
from tests.support import pyarrow_footer_reader as oracle

# ---- many generated files against the previous (pyarrow FileMetaData) reader -----------------
_T0 = datetime.datetime(2020, 1, 1)


def _values(kind, rng, n):
    """n values of one column kind (None = NULL sprinkled in by the caller)."""
    ints = rng.integers(-(2**40), 2**40, n)
    if kind == "i8":
        return pa.array(ints % 200 - 100, pa.int8())
    if kind == "i32":
        return pa.array(ints % 2**31, pa.int32())
    if kind == "i64":
        return pa.array(ints * 4099, pa.int64())
    if kind == "u32":
        return pa.array(np.abs(ints) % 2**32, pa.uint32())
    if kind == "u64":
        return pa.array((np.abs(ints).astype(np.uint64) << np.uint64(23)), pa.uint64())
    if kind == "f32":
        return pa.array(rng.choice([0.0, -0.0, 1.5, np.nan, -np.inf, 3e38], n), pa.float32())
    if kind == "f64":
        return pa.array(rng.choice([0.0, -0.0, -2.5, np.nan, np.inf, 1e-300], n), pa.float64())
    if kind == "bool":
        return pa.array(ints % 2 == 0)
    if kind == "str":
        return pa.array(rng.choice(["", "a", "é", "日本", "zz\x00", "m" * 40], n))
    if kind == "lstr":
        return pa.array(rng.choice(["b", "ü", ""], n), pa.large_string())
    if kind == "bin":
        return pa.array([bytes([int(v) % 256, 255]) for v in ints], pa.binary())
    if kind == "fsb":
        return pa.array([struct.pack(">i", int(v) % 2**31) for v in ints], pa.binary(4))
    if kind == "dec9":
        return pa.array([decimal.Decimal(int(v) % 10**9).scaleb(-2) for v in ints],
                        pa.decimal128(9, 2))
    if kind == "dec18":
        return pa.array([decimal.Decimal(int(v)).scaleb(-5) for v in ints], pa.decimal128(18, 5))
    if kind == "dec38":
        return pa.array([decimal.Decimal(int(v) * 10**20).scaleb(-3) for v in ints],
                        pa.decimal128(38, 3))
    if kind == "dec60":
        return pa.array([decimal.Decimal(int(v) * 10**40) for v in ints], pa.decimal256(60, 0))
    if kind == "date":
        return pa.array(ints % 40000, pa.int32()).cast(pa.date32())
    if kind == "date64":
        return pa.array((ints % 40000) * 86_400_000, pa.int64()).cast(pa.date64())
    if kind.startswith("ts_"):
        unit = kind[3:]
        return pa.array(ints % 10**12, pa.int64()).cast(pa.timestamp(unit, "UTC"))
    if kind == "dict":
        return pa.array(rng.choice(["x", "y", "w"], n)).dictionary_encode()
    if kind == "time":
        return pa.array(ints % 86_400_000, pa.int32()).cast(pa.time32("ms"))
    if kind == "null":
        return pa.nulls(n)
    raise AssertionError(kind)


KINDS = ["i8", "i32", "i64", "u32", "u64", "f32", "f64", "bool", "str", "lstr", "bin", "fsb",
         "dec9", "dec18", "dec38", "dec60", "date", "date64", "ts_s", "ts_ms", "ts_us", "ts_ns",
         "dict", "time", "null"]


def _table(kinds, n, seed, null_p):
    rng = np.random.default_rng(seed)
    cols = {}
    for k in kinds:
        arr = _values(k, rng, n)
        if null_p and n:
            arr = pc.if_else(pa.array(rng.random(n) < null_p), pa.nulls(n, arr.type), arr)
        cols[k] = arr
    return pa.table(cols)


def _same_as_oracle(files):
    new = ppq.row_group_statistics(files, progress=False)
    old = oracle.row_group_statistics(files, progress=False)
    assert new.num_rows == old.num_rows
    for name in ("file", "row_group", "row_count"):
        assert new.column(name).equals(old.column(name)), name
    assert set(old.column_names) <= set(new.column_names)
    names = {f: {c.lower() for c in pq.read_schema(f).names} for f in set(files)}
    for name in old.column_names[3:]:
        a, b = new.column(name).combine_chunks(), old.column(name).combine_chunks()
        # A column a file lacks: the oracle knows nothing, the reader knows it is all NULL.
        absent = [name.split(".")[0].lower() not in names[f]
                  for f in new.column("file").to_pylist()]
        if any(absent):
            expected = [rows if gone else y for gone, rows, y in zip(
                absent, new.column("row_count").to_pylist(),
                b.field("null_count").to_pylist(), strict=True)]
            assert a.field("null_count").to_pylist() == expected, name
            b = pa.StructArray.from_arrays(
                [b.field(k) if k != "null_count" else pa.array(expected, pa.int64())
                 for k in [f.name for f in b.type]], [f.name for f in b.type])
        for k in ("min", "max", "null_count"):
            x, y = a.field(k), b.field(k)
            assert x.type == y.type, (name, k)
            assert x.equals(y), (name, k, x, y)
            # the sign of a zero bound matters (docs/semantics.md §4)
            if pa.types.is_floating(x.type):
                assert np.array_equal(np.signbit(x.fill_null(1).to_numpy()),
                                      np.signbit(y.fill_null(1).to_numpy())), (name, k)
        if "min_exact" in [f.name for f in b.type]:
            # the old reader knew only "min == max"; the writer's flags may say more, not less
            for k in ("min_exact", "max_exact"):
                for got, was in zip(a.field(k).to_pylist(), b.field(k).to_pylist(), strict=True):
                    assert got == was or (got is True and was is False), (name, k)
    return new


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow,
                                                                  HealthCheck.function_scoped_fixture])
@given(kinds=st.lists(st.sampled_from(KINDS), min_size=1, max_size=8, unique=True),
       rows=st.integers(0, 40), group=st.integers(1, 12), seed=st.integers(0, 2**16),
       null_p=st.sampled_from([0.0, 0.3, 1.0]), version=st.sampled_from(["1.0", "2.6"]),
       dictionary=st.booleans(), files=st.integers(1, 3))
def test_decoder_equals_pyarrow_metadata(tmp_path_factory, kinds, rows, group, seed, null_p,
                                         version, dictionary, files):
    d = tmp_path_factory.mktemp("gen")
    paths = []
    for i in range(files):
        # schemas differ between files: each drops one of the kinds
        ks = [k for j, k in enumerate(kinds) if len(kinds) == 1 or j != i % len(kinds)]
        path = str(d / f"f{i}.parquet")
        pq.write_table(_table(ks, rows, seed + i, null_p), path, row_group_size=group,
                       version=version, use_dictionary=dictionary,
                       coerce_timestamps="us" if version == "1.0" else None,
                       allow_truncated_timestamps=True)
        paths.append(path)
    new = _same_as_oracle(paths)
    assert new.num_rows == sum(pq.read_metadata(p).num_row_groups for p in paths)


def test_every_kind_in_one_file_and_its_bounds_are_known(tmp_path):
    path = str(tmp_path / "all.parquet")
    pq.write_table(_table(KINDS, 60, 7, 0.2), path, row_group_size=9)
    new = _same_as_oracle([path])
    known = {k for k in KINDS if new.column(k).combine_chunks().field("min").null_count == 0}
    # every type with an order has bounds in every row group (time: no bounds, by choice)
    assert known >= set(KINDS) - {"time", "null", "dict"} - {"f32", "f64"}


# ---- nested columns -------------------------------------------------------------------------
def _nested_table(seed, n=50):
    rng = np.random.default_rng(seed)
    city = rng.choice(["Oslo", "Åre", "", "Zürich"], n).tolist()
    zips = rng.integers(-500, 500, n).tolist()
    lat = rng.choice([0.0, -0.0, 12.5, np.nan, -90.0], n).tolist()
    rows = []
    for i in range(n):
        r = rng.random()
        if r < 0.1:
            rows.append(None)  # the whole struct is NULL: its leaves are NULL
        else:
            rows.append({"city": None if r < 0.2 else city[i], "zip": zips[i],
                         "geo": None if r > 0.9 else {"lat": lat[i]}})
    t = pa.struct([("city", pa.string()), ("zip", pa.int32()),
                   ("geo", pa.struct([("lat", pa.float64())]))])
    return pa.table({
        "address": pa.array(rows, t),
        "tags": pa.array([["a", "b"] if i % 3 else None for i in range(n)]),
        "m": pa.array([[("k", i)] for i in range(n)], pa.map_(pa.string(), pa.int64())),
        "a.b": pa.array([{"c": i} for i in range(n)], pa.struct([("c", pa.int64())])),
        "x": pa.array(zips, pa.int64()),
    })


def _leaf_values(table, parts):
    arr = table.column(parts[0]).combine_chunks()
    for p in parts[1:]:
        arr = arr.flatten()[arr.type.get_field_index(p)]  # flatten keeps the parent's NULLs
    return arr


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_nested_leaves_bounds_equal_the_data(tmp_path, seed):
    data = _nested_table(seed)
    path = str(tmp_path / "n.parquet")
    group = 7
    pq.write_table(data, path, row_group_size=group)
    stats = ppq.row_group_statistics(path)
    names = set(stats.column_names)
    assert {"address.city", "address.zip", "address.geo.lat", "`a.b`.c", "x"} <= names
    assert not any(n.startswith(("tags", "m")) for n in names), "no bounds under lists or maps"
    unrepeated = pa.schema([f for f in data.schema if f.name not in ("tags", "m")])
    assert ppq.data_schema(stats) == unrepeated, "struct leaves nested back, lists/maps left out"
    checked = 0
    for key, parts in [("address.city", ["address", "city"]), ("address.zip", ["address", "zip"]),
                       ("address.geo.lat", ["address", "geo", "lat"]), ("`a.b`.c", ["a.b", "c"])]:
        col = stats.column(key).combine_chunks()
        values = _leaf_values(data, parts)
        for g in range(stats.num_rows):
            rows = values.slice(g * group, group)
            assert col.field("null_count")[g].as_py() == rows.null_count, (key, g)
            if pa.types.is_floating(rows.type):
                rows = rows.filter(pc.invert(pc.is_nan(rows)))
            want = pc.min_max(rows)
            assert col.field("min")[g].as_py() == want["min"].as_py(), (key, g)
            assert col.field("max")[g].as_py() == want["max"].as_py(), (key, g)
            checked += want["min"].is_valid
    assert checked > 10


# ---- hostile footers ------------------------------------------------------------------------
def _parts(path):
    data = open(path, "rb").read()
    length = struct.unpack("<I", data[-8:-4])[0]
    return data[:-8 - length], data[-8 - length:-8]


def _with_footer(path, body, footer):
    with open(path, "wb") as f:
        f.write(body + footer + struct.pack("<I", len(footer)) + b"PAR1")


@pytest.fixture(scope="module")
def source(tmp_path_factory):
    path = str(tmp_path_factory.mktemp("src") / "src.parquet")
    pq.write_table(_table(["i64", "str", "dec38", "f64", "ts_us"], 30, 3, 0.2), path,
                   row_group_size=4)
    return path


def test_truncated_footers_are_clear_errors(source, tmp_path):
    body, footer = _parts(source)
    path = str(tmp_path / "cut.parquet")
    for k in range(0, len(footer), 7):
        _with_footer(path, body, footer[:k])
        with pytest.raises(pk.StatisticsError, match="cut.parquet"):
            ppq.row_group_statistics(path)


_ORACLE = """
import decimal, json, sys
import pyarrow as pa, pyarrow.parquet as pq
from tests.support import pyarrow_footer_reader as oracle
for path in sys.argv[1:]:
    try:
        t = oracle.row_group_statistics(path)
        meta = pq.read_metadata(path)
    except Exception:
        print(json.dumps(None), flush=True)
        continue
    out = {}
    for name in t.column_names[3:]:
        col = t.column(name).combine_chunks()
        i = meta.schema.names.index(name)
        sts = [meta.row_group(g).column(i).statistics for g in range(meta.num_row_groups)]
        out[name] = {k: _plain(col.field(k)) for k in ("min", "max", "null_count")}
        out[name]["has"] = [[st is not None and st.has_min_max, st is not None and
                             st.has_null_count] for st in sts]
    print(json.dumps(out, default=str), flush=True)
"""


def _plain(arr):
    """JSON-able bounds (timestamps as integers, decimals as text)."""
    if pa.types.is_timestamp(arr.type):
        arr = arr.cast(pa.int64())
    return [None if v is None else str(v) if isinstance(v, decimal.Decimal) else v
            for v in arr.to_pylist()]


def _pyarrow_in_subprocesses(paths):
    """The old reader's statistics per file, or None where it raised, or "crash" where
    pyarrow aborted the process (it does, on some corrupt footers)."""
    import inspect
    import json
    import subprocess
    import sys
    script = inspect.getsource(_plain) + _ORACLE
    results, todo = [], list(paths)
    while todo:
        run = subprocess.run([sys.executable, "-c", script, *todo], capture_output=True,
                             text=True, cwd=Path(__file__).resolve().parents[3])
        lines = [json.loads(x) for x in run.stdout.splitlines()]
        results += lines
        todo = todo[len(lines):]
        if todo:  # the process died on todo[0]
            assert run.returncode != 0, run.stderr
            results.append("crash")
            todo = todo[1:]
    return results


def test_corrupt_footers_are_errors_or_agree_with_pyarrow(source, tmp_path):
    """Flipped bytes: a prunekit error naming the file, or statistics of which every known
    one is what pyarrow reads. Never another exception, never another bound. (pyarrow itself
    sometimes aborts the process on these footers, so it runs in a subprocess.)"""
    body, footer = _parts(source)
    rng = np.random.default_rng(5)
    paths = []
    for j in range(150):
        bad = bytearray(footer)
        for i in rng.integers(0, len(bad), int(rng.integers(1, 4))):
            bad[i] = int(rng.integers(0, 256))
        paths.append(str(tmp_path / f"flip{j}.parquet"))
        _with_footer(paths[-1], body, bytes(bad))
    wants = _pyarrow_in_subprocesses(paths)
    outcomes = {"error": 0, "agree": 0}
    for path, want in zip(paths, wants, strict=True):
        try:
            got = ppq.row_group_statistics(path)
        except pk.StatisticsError as e:
            assert os.path.basename(path) in str(e)
            outcomes["error"] += 1
            continue
        if want in (None, "crash"):
            continue
        for name, cols in want.items():  # a statistic we know is the one pyarrow reads
            for k in ("min", "max", "null_count"):
                mine = _plain(got.column(name).combine_chunks().field(k))
                for g, (a, b) in enumerate(zip(mine, cols[k], strict=True)):
                    if a is None or a == b:
                        continue
                    # The old reader read column orders all-or-nothing (an exact footer
                    # suffix); pyarrow, and the walk, read them per column.
                    assert b is None and cols["has"][g][k == "null_count"], (path, name, k, g)
        outcomes["agree"] += 1
    outcomes["pyarrow crashed"] = wants.count("crash")
    print(outcomes)
    assert outcomes["error"] > 10 and outcomes["agree"] > 5, outcomes


def test_unknown_fields_are_skipped(source, tmp_path):
    """A future writer's field (id 100: a list of structs holding a map, a double and a
    bool) at the end of FileMetaData changes nothing."""
    body, footer = _parts(source)
    assert footer[-1] == 0
    inner = (b"\x1b\x01\x88" + b"\x01k" + b"\x01v"  # map<binary, binary> {k: v}
             + b"\x17" + struct.pack("<d", 1.5) + b"\x11" + b"\x00")
    extra = b"\x09\xc8\x01" + b"\x2c" + inner + inner  # field 100, list of 2 structs
    path = str(tmp_path / "future.parquet")
    _with_footer(path, body, footer[:-1] + extra + b"\x00")
    assert pq.read_metadata(path).num_rows == 30  # pyarrow skips it too
    a = ppq.row_group_statistics(path).drop_columns(["file"])
    b = ppq.row_group_statistics(source).drop_columns(["file"])
    assert a.equals(b)


def test_deep_nesting_is_an_error_not_a_crash(source, tmp_path):
    body, footer = _parts(source)
    bomb = b"\x0c\xc8\x01" + b"\x1c" * 100_000 + b"\x00" * 100_001  # struct in struct in ...
    path = str(tmp_path / "deep.parquet")
    _with_footer(path, body, footer[:-1] + bomb + b"\x00")
    with pytest.raises(pk.StatisticsError, match="deep.parquet.*nesting"):
        ppq.row_group_statistics(path)


def test_wrong_type_of_a_known_field_makes_it_unknown(source, tmp_path):
    """min_value written as an i64 instead of binary: that bound is unknown, not misread."""
    pq.write_table(pa.table({"x": [5, 9]}), tmp_path / "one.parquet")
    body, footer = _parts(str(tmp_path / "one.parquet"))
    old = b"\x28\x08" + (9).to_bytes(8, "little") + b"\x18\x08" + (5).to_bytes(8, "little")
    assert footer.count(old) == 1
    new = b"\x28\x08" + (9).to_bytes(8, "little") + b"\x16\x0a"  # min_value as the i64 5
    path = str(tmp_path / "typo.parquet")
    _with_footer(path, body, footer.replace(old, new))
    row = ppq.row_group_statistics(path).to_pylist()[0]["x"]
    assert row["min"] is None and row["max"] == 9 and row["null_count"] == 0


@pytest.mark.parametrize("long_min", [True, False])
def test_a_bound_beyond_the_writers_limit_leaves_the_other(tmp_path, long_min):
    """pyarrow's writer drops a min or max value longer than 4 KB and keeps the other (its
    reader then hides both): the one kept is read, and prunes on its own side."""
    values = ["a" * 5000, "b", "c" * 10] if long_min else ["b", "c" * 10, "z" * 5000]
    pq.write_table(pa.table({"s": values}), tmp_path / "one.parquet")
    assert not pq.ParquetFile(tmp_path / "one.parquet").metadata.row_group(0).column(
        0).statistics.has_min_max
    stats = ppq.row_group_statistics(str(tmp_path / "one.parquet"))
    row = stats.to_pylist()[0]["s"]
    assert (row["min"], row["max"]) == ((None, "c" * 10) if long_min else ("b", None))
    schema = {"s": pa.string()}
    above, below = pk.PruningPredicate("s > 'd'", schema), pk.PruningPredicate("s < 'b'", schema)
    assert [above.classify(stats)[0], below.classify(stats)[0]] == (
        [pk.NONE_MATCH, pk.MAYBE_MATCH] if long_min else [pk.MAYBE_MATCH, pk.NONE_MATCH])


def _set_created_by(src, dst, created_by: bytes):
    body, footer = _parts(src)
    old = pq.read_metadata(src).created_by.encode()
    head = b"\x18" + bytes([len(old)]) + old
    assert footer.count(head) == 1
    new = b"\x18" + bytes([len(created_by)]) + created_by
    _with_footer(dst, body, footer.replace(head, new))


@pytest.mark.parametrize("created_by", [
    b"parquet-mr version 1.7.0 (build abc)", b"parquet-mr version 1.9.0", b"parquet-mr",
    b"parquet-mr version 1.10.1", b"parquet-cpp version 1.2.0", b"parquet-cpp version 1.5.1",
    b"impala version 1.0", b"unknown version 0.1", b"PARQUET-MR VERSION 1.6.0"])
def test_writer_versions_hide_what_pyarrow_hides(tmp_path, created_by):
    t = pa.table({"s": ["b", "a", "c"], "one": ["q", "q", "q"], "i": [3, 1, 2],
                  "u": pa.array([1, 2, 3], pa.uint32()),
                  "fsb": pa.array([b"ab"] * 3, pa.binary(2))})
    pq.write_table(t, tmp_path / "src.parquet", row_group_size=2)
    path = str(tmp_path / "w.parquet")
    _set_created_by(str(tmp_path / "src.parquet"), path, created_by)
    assert pq.read_metadata(path).created_by == created_by.decode()
    _same_as_oracle([path])


def test_encrypted_footers_are_clear_errors(source, tmp_path):
    data = open(source, "rb").read()
    path = tmp_path / "enc.parquet"
    path.write_bytes(data[:-4] + b"PARE")
    with pytest.raises(pk.StatisticsError, match="enc.parquet.*encrypted"):
        ppq.row_group_statistics(str(path))


@pytest.mark.parametrize("form", ["python", "compiled"])
def test_walk_reads_sizes_like_pyarrow(source, form):
    from prunekit.sources.parquet import thrift_footer as tf
    _, footer = _parts(source)
    buf = np.frombuffer(footer + bytes(64), np.uint8)
    walk = tf.walk if form == "python" else tf.walk.compiled
    files, elements, orders, rgs, chunks = walk(
        buf, np.array([0]), np.array([len(footer)]), np.frombuffer(b"ARROW:schema", np.uint8))
    meta = pq.read_metadata(source)
    assert files[0, tf.F_ERROR] == 0 and len(rgs) == meta.num_row_groups
    assert len(orders) == meta.num_columns and orders.all()
    assert len(elements) == len(meta.schema) + 1
    for r in range(meta.num_row_groups):
        assert rgs[r, tf.R_NUM_ROWS] == meta.row_group(r).num_rows
        for c in range(meta.num_columns):
            ch = chunks[rgs[r, tf.R_FIRST_CHUNK] + c]
            cm = meta.row_group(r).column(c)
            assert ch[tf.C_NUM_VALUES] == cm.num_values
            assert ch[tf.C_COMPRESSED] == cm.total_compressed_size
            assert ch[tf.C_UNCOMPRESSED] == cm.total_uncompressed_size
            assert ch[tf.C_NULLS] == cm.statistics.null_count
            assert ch[tf.C_BLOOM_OFF] == ch[tf.C_BLOOM_LEN] == -1  # written without filters


def test_import_prunekit_does_not_import_numba():
    import subprocess
    import sys
    code = "import sys, prunekit, prunekit.parquet; print('numba' in sys.modules)"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         check=True, env={**os.environ, "PYTHONPATH": os.getcwd()})
    assert out.stdout.strip() == "False"


def test_unknown_column_order_hides_that_columns_bounds(tmp_path):
    """A ColumnOrder union member this code does not know (field 7 here, where TYPE_ORDER is
    field 1): parquet-format says to ignore that column's min and max; pyarrow does too."""
    pq.write_table(pa.table({"a": [1, 2], "b": [3, 4]}), tmp_path / "src.parquet")
    body, footer = _parts(str(tmp_path / "src.parquet"))
    orders = b"\x19\x2c" + b"\x1c\x00\x00" * 2 + b"\x00"
    assert footer.endswith(orders)
    path = str(tmp_path / "order.parquet")
    _with_footer(path, body, footer[:-len(orders)] + b"\x19\x2c\x1c\x00\x00\x71\x00\x00")
    assert pq.read_metadata(path).row_group(0).column(1).statistics.has_min_max is False
    row = ppq.row_group_statistics(path).to_pylist()[0]
    assert row["a"] == {"min": 1, "max": 2, "null_count": 0}
    assert row["b"] == {"min": None, "max": None, "null_count": 0}


def test_finer_file_units_round_outwards():
    """Bounds in a finer unit than the Arrow type (ns in the file, us asked): the minimum
    rounds down, the maximum up, so both still hold."""
    from prunekit.sources.parquet import footer_values as fv
    vals = np.array([1500, -1500, 2000], np.int64)
    buf = np.frombuffer(vals.tobytes() + bytes(64), np.uint8)
    off, length, ok = np.array([0, 8, 16]), np.array([8, 8, 8]), np.ones(3, bool)
    t = pa.timestamp("us")
    lo = fv.decode(("div", 1000), t, buf, off, length, ok, False)
    hi = fv.decode(("div", 1000), t, buf, off, length, ok, True)
    assert lo.cast(pa.int64()).to_pylist() == [1, -2, 2]
    assert hi.cast(pa.int64()).to_pylist() == [2, -1, 2]


def test_exactness_flags(tmp_path):
    """is_max_value_exact = false: a string bound stays a bound but is no value; any other
    type's bound becomes unknown (the layout has exactness for byte arrays only)."""
    pq.write_table(pa.table({"x": [5, 9], "s": ["a", "b"]}), tmp_path / "src.parquet")
    body, footer = _parts(str(tmp_path / "src.parquet"))
    assert footer.count(b"\x11\x11\x00") == 2  # max, min exact: true, true
    path = str(tmp_path / "flags.parquet")
    _with_footer(path, body, footer.replace(b"\x11\x11\x00", b"\x12\x11\x00"))
    row = ppq.row_group_statistics(path).to_pylist()[0]
    assert row["x"] == {"min": None, "max": None, "null_count": 0}
    assert row["s"] == {"min": "a", "max": "b", "null_count": 0, "min_exact": True,
                        "max_exact": False}
    stats = pk.Statistics.from_arrow(ppq.row_group_statistics(path))
    assert pk.PruningPredicate("s = 'b'", {"s": pa.string()}).classify(stats).tolist() == [1]
    assert pk.PruningPredicate("s > 'b'", {"s": pa.string()}).classify(stats).tolist() == [0]


@pytest.mark.parametrize("t", [pa.decimal32(5, 2), pa.decimal64(12, 2), pa.decimal128(4, 2),
                               pa.decimal256(40, 2)])
def test_decimal_encodings(t):
    """Big-endian of any length (sign extension beyond the width is fine, anything else is
    unknown), little-endian INT32/INT64, and the precision as a limit."""
    from prunekit.sources.parquet import footer_values as fv
    values = [(b"\xff\x85", True, -123), (b"\x00" * 20 + b"\x7b", True, 123),
              (b"\x01" + b"\x00" * 19 + b"\x7b", True, None), (b"\x27\x10", True, 10**4),
              (b"", True, None), ((-123).to_bytes(4, "little", signed=True), False, -123),
              ((10**4).to_bytes(8, "little", signed=True), False, 10**4),
              ((9999).to_bytes(8, "little", signed=True), False, 9999), (b"\x85", False, None)]
    for raw, big, want in values:
        buf = np.frombuffer(raw + bytes(64), np.uint8)
        got = fv.decode(("decimal", big), t, buf, np.array([0]), np.array([len(raw)]),
                        np.array([True]), False).to_pylist()[0]
        if want is not None and abs(want) >= 10 ** t.precision:
            want = None
        assert got == (None if want is None else decimal.Decimal(want).scaleb(-2)), (raw, t)


_LEAF_KINDS = ["i32", "i64", "u64", "f64", "str", "bin", "dec18", "dec38", "date", "ts_us",
               "bool"]


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow,
                                                                  HealthCheck.function_scoped_fixture])
@given(kinds=st.lists(st.sampled_from(_LEAF_KINDS), min_size=1, max_size=4, unique=True),
       depth=st.integers(1, 3), rows=st.integers(1, 30), group=st.integers(1, 8),
       seed=st.integers(0, 2**16), null_p=st.sampled_from([0.0, 0.25, 1.0]))
def test_nested_leaf_bounds_are_the_data_bounds(tmp_path_factory, kinds, depth, rows, group,
                                                seed, null_p):
    """Structs nested ``depth`` deep, NULL structs at every level: each leaf's statistics
    equal min, max and null count of its values (NULL where an enclosing struct is NULL)."""
    rng = np.random.default_rng(seed)
    leaves = _table(kinds, rows, seed, null_p)
    arr = pa.StructArray.from_arrays([c.combine_chunks() for c in leaves.columns],
                                     leaves.column_names)
    path = ["s0"]
    for level in range(depth - 1):
        mask = pa.array(rng.random(rows) < null_p / 2)
        arr = pa.StructArray.from_arrays([arr], [f"s{level + 1}"], mask=mask)
        path.append(f"s{level + 1}")
    table = pa.table({"top": arr, "flat": pa.array(range(rows), pa.int64())})
    file = str(tmp_path_factory.mktemp("nest") / "n.parquet")
    pq.write_table(table, file, row_group_size=group)
    stats = ppq.row_group_statistics(file)
    parts = ["top"] + path[::-1][:-1]  # top.s2.s1.<kind> for depth 3
    for kind in kinds:
        key = ".".join(parts + [kind])
        values = _leaf_values(table, parts + [kind])
        col = stats.column(key).combine_chunks()
        for g in range(stats.num_rows):
            part = values.slice(g * group, group)
            assert col.field("null_count")[g].as_py() == part.null_count, (key, g)
            if pa.types.is_floating(part.type):
                part = part.filter(pc.invert(pc.is_nan(part)))
            want = pc.min_max(part)
            for k in ("min", "max"):
                got = col.field(k)[g]
                if pa.types.is_timestamp(part.type):
                    got, exp = got.cast(pa.int64()).as_py(), want[k].cast(pa.int64()).as_py()
                else:
                    got, exp = got.as_py(), want[k].as_py()
                assert got == exp, (key, g, k, got, exp)


# ---- the two forms of the decoder (prunekit.sources.jit) -----------------------------------
def _walk_both(footers):
    """The walk's tables over these footers in its Python and its compiled form."""
    from prunekit.sources.parquet import thrift_footer as tf
    lengths = np.array([len(f) for f in footers], np.int64)
    ends = np.cumsum(lengths)
    args = (np.frombuffer(b"".join(footers) + bytes(64), np.uint8), ends - lengths, ends,
            np.frombuffer(b"ARROW:schema", np.uint8))
    return tf.walk(*args), tf.walk.compiled(*args)


def test_python_and_compiled_walks_agree_on_damaged_footers(source):
    """Flipped bytes, cut footers and footers of random bytes: the same tables, error codes
    and error positions from both forms, footer by footer and all at once."""
    _, footer = _parts(source)
    rng = np.random.default_rng(11)
    footers = [footer, footer[:len(footer) // 2], b"", bytes(rng.integers(0, 256, 300,
                                                                      dtype=np.uint8))]
    for _ in range(120):
        bad = bytearray(footer)
        for i in rng.integers(0, len(bad), int(rng.integers(1, 5))):
            bad[i] = int(rng.integers(0, 256))
        footers.append(bytes(bad))
    python, compiled = _walk_both(footers)
    for a, b in zip(python, compiled, strict=True):
        np.testing.assert_array_equal(a, b)
    errors = python[0][:, 0]
    assert (errors != 0).sum() > 10 and (errors == 0).sum() > 10  # both kinds were walked
    for one in footers[:40]:  # one at a time: the positions restart at zero
        python, compiled = _walk_both([one])
        for a, b in zip(python, compiled, strict=True):
            np.testing.assert_array_equal(a, b)


def test_python_and_compiled_forms_read_one_table(tmp_path):
    """Every kind (decimals, strings: every @jit helper), nested leaves and an old writer,
    read with each form throughout: equal tables."""
    from prunekit.sources.jit import forced
    paths = [str(tmp_path / "all.parquet"), str(tmp_path / "nested.parquet")]
    pq.write_table(_table(KINDS, 60, 7, 0.2), paths[0], row_group_size=9)
    pq.write_table(_nested_table(3), paths[1], row_group_size=8)
    paths.append(str(tmp_path / "old.parquet"))  # a writer whose bounds are partly hidden
    _set_created_by(paths[0], paths[2], b"parquet-mr version 1.7.0 (build abc)")
    for path in paths:
        with forced("python"):
            python = ppq.row_group_statistics(path)
        with forced("compiled"):
            compiled = ppq.row_group_statistics(path)
        assert python.equals(compiled), path
