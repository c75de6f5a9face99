"""Timestamp bounds at another unit or zone label than the column (kernels/inputs.py
``conform_timestamps``, ``Statistics.from_numpy``): naive datetime64 bounds for a column with a
zone are UTC instants; units convert exactly, a finer bound widened outwards and inexact."""

from __future__ import annotations

import numpy as np
import pyarrow as pa
import pytest

import prunekit as pk
from tests.support.cases import ALL, BACKENDS, MAYBE, NONE

UTC = pa.timestamp("us", tz="UTC")
NTZ = pa.timestamp("us")
LIT = {UTC: "TIMESTAMP", NTZ: "TIMESTAMP_NTZ"}


def stats(unit, mins, maxs, nulls=(0, 0, 0), **kw):
    """Naive datetime64 bounds at ``unit``; "NaT" is an unknown bound."""
    return pk.Statistics.from_numpy(row_count=np.array([5] * len(mins)), columns={"t": {
        "min": np.array(mins, f"datetime64[{unit}]"), "max": np.array(maxs, f"datetime64[{unit}]"),
        "null_count": np.array(nulls)}}, **kw)


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("column", [UTC, NTZ], ids=["utc", "ntz"])
@pytest.mark.parametrize("unit", ["s", "ms", "us", "ns"])
def test_naive_bounds_at_any_unit(unit, column, backend):
    schema = pa.schema([("t", column)])
    s = stats(unit, ["2024-01-01T00:00:00", "2024-01-03T00:00:00", "NaT"],
              ["2024-01-02T00:00:00", "2024-01-03T00:00:00", "NaT"])
    lit = LIT[column]
    got = pk.PruningPredicate(f"t < {lit} '2024-01-01 12:00:00'", schema).classify(
        s, backend=backend).tolist()
    assert got == [MAYBE, NONE, MAYBE]  # NaT bounds are unknown
    got = pk.PruningPredicate(f"t = {lit} '2024-01-03 00:00:00'", schema).classify(
        s, backend=backend).tolist()
    assert got == [NONE, ALL, MAYBE]  # whole seconds: exact at every unit


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("column", [UTC, NTZ], ids=["utc", "ntz"])
def test_finer_bounds_widen_outwards_and_become_inexact(column, backend):
    # 1.5 microseconds: min floored to 1 us, max ceiled to 2 us, neither a value.
    schema = pa.schema([("t", column)])
    v = "2024-01-01T00:00:00.0000015"
    s = stats("ns", [v, "2024-01-01T00:00:00.000002"], [v, "2024-01-01T00:00:00.000002"],
              nulls=(0, 0))
    lit = LIT[column]

    def out(q):
        return pk.PruningPredicate(q, schema).classify(s, backend=backend).tolist()

    assert out(f"t = {lit} '2024-01-01 00:00:00.000001'") == [MAYBE, NONE]
    assert out(f"t = {lit} '2024-01-01 00:00:00.000002'") == [MAYBE, ALL]
    assert out(f"t > {lit} '2024-01-01 00:00:00.000002'") == [NONE, NONE]
    assert out(f"t < {lit} '2024-01-01 00:00:00.000001'") == [NONE, NONE]


@pytest.mark.parametrize("column", [UTC, NTZ], ids=["utc", "ntz"])
def test_types_pins_the_column_type_and_widens_there(column):
    v = np.array(["2024-01-01T00:00:00.0000015", "2024-01-01T00:00:00.000002", "NaT"],
                 "datetime64[ns]")
    s = pk.Statistics.from_numpy(row_count=None, columns={"t": {
        "min": v, "max": v, "null_count": None, "min_exact": np.array([True, True, True])}},
        types={"t": column})
    col = s.table.column("t")
    assert col.type.field("min").type == column
    rows = col.to_pylist()
    assert [r["min"] and r["min"].microsecond for r in rows] == [1, 2, None]
    assert [r["max"] and r["max"].microsecond for r in rows] == [2, 2, None]
    assert [r["min_exact"] for r in rows] == [False, True, True]
    assert [r["max_exact"] for r in rows] == [False, True, True]  # absent: exact, unless widened


def test_a_bound_beyond_the_column_unit_is_unknown():
    # 2**62 seconds is no timestamp in nanoseconds: that bound is unknown, not an error.
    schema = pa.schema([("t", pa.timestamp("ns", tz="UTC"))])
    big = np.array([2**62, 0], "datetime64[s]")
    s = pk.Statistics.from_numpy(row_count=np.array([5, 5]), columns={"t": {
        "min": np.array([0, 0], "datetime64[s]"), "max": big, "null_count": np.array([0, 0])}})
    got = pk.PruningPredicate("t > TIMESTAMP '2000-01-01 00:00:00'", schema).classify(
        s, backend="numpy").tolist()
    assert got == [MAYBE, NONE]


def test_zoned_bounds_for_a_naive_column_are_refused():
    # An instant is no wall-clock time: bounds with a zone cannot stand for TIMESTAMP_NTZ.
    table = pa.table({"t": pa.StructArray.from_arrays(
        [pa.array([0], pa.timestamp("us", tz="UTC")), pa.array([0], pa.timestamp("us", "UTC")),
         pa.array([0])], ["min", "max", "null_count"])})
    with pytest.raises(pk.StatisticsError, match="timestamp"):
        pk.PruningPredicate("t > TIMESTAMP_NTZ '2000-01-01 00:00:00'",
                            pa.schema([("t", NTZ)])).classify(table)


@pytest.mark.parametrize("backend", ["numpy", "vm"])
def test_zoned_bounds_at_another_unit(backend):
    # Bounds with the column's own zone at another unit convert; another label is refused.
    def table(tz):
        return pa.table({"t": pa.StructArray.from_arrays(
            [pa.array([0], pa.timestamp("ms", tz=tz)), pa.array([1000], pa.timestamp("ms", tz)),
             pa.array([0])], ["min", "max", "null_count"])})
    pred = pk.PruningPredicate("t > TIMESTAMP '1970-01-01 00:00:01'", pa.schema([("t", UTC)]))
    assert pred.classify(table("UTC"), backend=backend).tolist() == [NONE]
    with pytest.raises(pk.StatisticsError, match="Europe/Oslo"):
        pred.classify(table("Europe/Oslo"), backend=backend)
