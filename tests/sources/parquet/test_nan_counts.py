"""Float statistics as the newest writers give them: ``nan_count`` (Parquet format 2.13) and
the IEEE 754 total column order, read from footers (docs/semantics.md §4).

DuckDB writes ``nan_count`` for every FLOAT and DOUBLE chunk (and leaves min/max out when every
value is NaN); the differential part writes random datasets with DuckDB, one file per row group,
and checks every outcome against the rows. The total order is written by no writer installed
here, so those footers are DuckDB's with the column-order bytes edited.
"""

from __future__ import annotations

import struct

import duckdb
import numpy as np
import pyarrow as pa
import pytest

import prunekit as pk
from prunekit import parquet as ppq
from tests.support import differential as diff
from tests.support import tiers


def _duckdb_write(table: pa.Table, path) -> None:
    con = duckdb.connect()
    con.execute("SET threads = 1")  # one writer thread keeps the rows in order
    con.register("t", table)
    con.execute(f"COPY t TO '{path}' (FORMAT parquet)")
    con.close()


def _footer(path) -> tuple[bytes, bytes]:
    data = open(path, "rb").read()
    length = struct.unpack("<I", data[-8:-4])[0]
    return data[:-8 - length], data[-8 - length:-8]


def _write_footer(path, body: bytes, footer: bytes) -> None:
    with open(path, "wb") as f:
        f.write(body + footer + struct.pack("<I", len(footer)) + b"PAR1")


NAN = float("nan")


@pytest.fixture
def floats(tmp_path):
    """Three columns: f with NaN among numbers and a NULL, g numbers only, n all NaN and a
    NULL."""
    path = tmp_path / "floats.parquet"
    _duckdb_write(pa.table({
        "f": pa.array([1.0, NAN, 5.0, None, NAN]),
        "g": pa.array([-3.0, 0.0, 7.5, 4.0, 2.0]),
        "n": pa.array([NAN, NAN, None, NAN, NAN], pa.float32())}), path)
    return path


def test_duckdb_nan_counts_are_read(floats):
    row = ppq.row_group_statistics([str(floats)]).to_pylist()[0]
    assert row["f"]["nan_count"] == 2 and row["f"]["null_count"] == 1
    assert row["g"] == {"min": -3.0, "max": 7.5, "null_count": 0, "nan_count": 0}
    assert row["n"] == {"min": None, "max": None, "null_count": 1, "nan_count": 4}


@pytest.mark.parametrize("where, expected", [
    ("g > 7.5", 0),      # no NaN (nan_count 0): the max decides; NaN would be greatest
    ("g <> 1", 1),
    ("g >= -3", 2),      # every value is a number >= -3 (none is NaN)
    ("isnan(g)", 0),
    ("f > 100", 1),      # NaN rows are > 100 in Spark: kept
    ("isnan(f)", 1),
    ("n > 1e30", 1),     # every number is NaN, and NaN is greatest
    ("n < 0", 0),        # ... so nothing is < 0
    ("n = 1", 0),
])
def test_float_filters_prune_as_the_counts_allow(floats, where, expected):
    stats = ppq.row_group_statistics([str(floats)])
    pred = pk.PruningPredicate(where, ppq.data_schema(stats))
    assert pred.classify(stats).tolist() == [expected]


def _total_order(path, out, columns: int) -> None:
    """The file with every column's order set to IEEE_754_TOTAL_ORDER (union field 2)."""
    body, footer = _footer(path)
    typed = b"\x19" + bytes([(columns << 4) | 0xC]) + b"\x1c\x00\x00" * columns + b"\x00"
    assert footer.endswith(typed), "DuckDB wrote column orders this test does not expect"
    total = typed[:2] + b"\x2c\x00\x00" * columns + b"\x00"
    _write_footer(out, body, footer[:-len(typed)] + total)


def test_total_order_bounds_are_read(tmp_path, floats):
    out = tmp_path / "total.parquet"
    _total_order(floats, out, 3)
    row = ppq.row_group_statistics([str(out)]).to_pylist()[0]
    assert (row["g"]["min"], row["g"]["max"], row["g"]["nan_count"]) == (-3.0, 7.5, 0)
    assert row["f"]["nan_count"] == 2


def test_total_order_nan_bounds_are_not_bounds(tmp_path):
    """Under the total order, a chunk whose every value is NaN has NaN min and max: they bound
    nothing, and nan_count says there are no numbers."""
    src, out = tmp_path / "src.parquet", tmp_path / "nan.parquet"
    _duckdb_write(pa.table({"g": pa.array([1.0, 2.0])}), src)
    body, footer = _footer(src)
    one, two = struct.pack("<d", 1.0), struct.pack("<d", 2.0)
    assert footer.count(one) == 2 and footer.count(two) == 2  # min/max and min_value/max_value
    nan_count = b"\x16\x00\x00"  # field 9 after field 8: delta 1, i64, zigzag 0; then stop
    assert footer.count(nan_count) == 1
    footer = footer.replace(one, struct.pack("<d", NAN)).replace(two, struct.pack("<d", NAN))
    footer = footer.replace(nan_count, b"\x16\x04\x00")  # nan_count 2
    _write_footer(src, body, footer)
    _total_order(src, out, 1)
    row = ppq.row_group_statistics([str(out)]).to_pylist()[0]
    assert row["g"] == {"min": None, "max": None, "null_count": 0, "nan_count": 2}
    pred = pk.PruningPredicate("g < 5", {"g": pa.float64()})
    assert pred.classify(ppq.row_group_statistics([str(out)])).tolist() == [0]


def test_total_order_on_an_integer_column_hides_its_bounds(tmp_path):
    """Only floats may use the total order: elsewhere the order is not one this reader
    knows, and the spec says to ignore the bounds."""
    src, out = tmp_path / "src.parquet", tmp_path / "int.parquet"
    _duckdb_write(pa.table({"i": pa.array([1, 2], pa.int64())}), src)
    _total_order(src, out, 1)
    row = ppq.row_group_statistics([str(out)]).to_pylist()[0]
    assert row["i"]["min"] is None and row["i"]["max"] is None


# ---- differential: random datasets written by DuckDB ------------------------------------------
SEEDS = range(7_000, 7_000 + tiers.pick(20, 40))  # datasets, each written by DuckDB
FLOAT_TYPES = ("float32", "float64")


def _float_dataset(rng) -> diff.Dataset:
    """A random dataset whose first column is a float (NaN, ±0, ±inf, NULL)."""
    while True:
        ds = diff.random_dataset(rng)
        if diff.is_float(ds.columns[0][1]):
            return ds


@pytest.mark.slow
def test_duckdb_written_floats_are_sound_and_prune(tmp_path):
    checked = none = 0
    for seed in SEEDS:
        rng = np.random.default_rng(seed)
        ds = _float_dataset(rng)
        files = []
        for i, rows in enumerate(ds.groups):
            files.append(str(tmp_path / f"s{seed}-{i:02d}.parquet"))
            _duckdb_write(ds.group_table(rows), files[-1])
        stats = ppq.row_group_statistics(files)
        c, t = ds.columns[0]
        counts = stats.column(c).combine_chunks().field("nan_count").to_pylist()
        assert counts == [sum(diff.is_nan(r[c]) for r in g) for g in ds.groups], seed
        samples = diff.column_samples(ds)
        for _ in range(15):
            tree = diff.predicate(rng, ds, samples)
            truths = [[diff.ref.evaluate(tree, ds.types, r) for r in g] for g in ds.groups]
            try:
                pred = pk.PruningPredicate(tree.sql(), ds.schema)
            except diff.EXPECTED_ERRORS:
                continue
            outcomes = pred.classify(pk.Statistics.from_arrow(stats)).tolist()
            assert not diff.violations(outcomes, truths), (seed, tree.sql(), outcomes, truths)
            checked += len(outcomes)
            none += outcomes.count(0)
    assert checked >= 25 * len(SEEDS) and none >= 2.5 * len(SEEDS), (checked, none)
