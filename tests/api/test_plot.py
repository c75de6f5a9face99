"""pk.plot: containers' [min, max] by outcome, the predicate's range shaded; Agg backend."""

import datetime as dt
import sys

import numpy as np
import pyarrow as pa
import pytest

import prunekit as pk

matplotlib = pytest.importorskip("matplotlib", reason="pk.plot needs matplotlib")
matplotlib.use("Agg")


def stats():
    return pk.Statistics.from_numpy(row_count=np.array([10, 10, 10]), columns={
        "x": {"min": np.array([0, 4, 9]), "max": np.array([3, 9, 12]),
              "null_count": np.array([0, 0, 0])}})


def test_writes_a_png(tmp_path):
    pred = pk.PruningPredicate("x > 5 AND x < 8 OR x IN (1, 2)", {"x": pa.int64()})
    out = tmp_path / "containers.png"
    fig = pk.plot(pred, stats(), column="x", path=str(out))
    assert matplotlib.get_backend().lower() == "agg"
    data = out.read_bytes()
    assert data.startswith(b"\x89PNG") and len(data) > 1000
    ax = fig.axes[0]
    labels = [t.get_text() for t in ax.get_legend().get_texts()]
    assert labels == ["NONE_MATCH (skipped)", "MAYBE_MATCH"]
    spans = [p for p in ax.patches if p.get_width() > 0]  # x in (5, 8), shaded
    assert [(round(p.get_x()), round(p.get_x() + p.get_width())) for p in spans] == [(5, 8)]
    assert sorted(line.get_xdata()[0] for line in ax.lines if len(line.get_xdata()) == 2 and
                  line.get_xdata()[0] == line.get_xdata()[1]) == [1, 2]  # IN values


def test_dates_and_given_axes(tmp_path):
    from matplotlib.figure import Figure

    d = pa.StructArray.from_arrays(
        [pa.array([dt.date(1994, 1, 1), None], pa.date32()),
         pa.array([dt.date(1994, 6, 1), None], pa.date32()), pa.array([0, 0], pa.int64())],
        ["min", "max", "null_count"])
    table = pa.table({"row_count": [5, 5], "d": d})
    pred = pk.PruningPredicate("d >= DATE '1995-01-01'", {"d": pa.date32()})
    ax = Figure().add_subplot()
    assert pk.plot(pred, table, column="d", ax=ax) is ax.figure
    ax.figure.savefig(tmp_path / "d.svg")
    assert (tmp_path / "d.svg").stat().st_size > 0


def test_errors(monkeypatch):
    pred = pk.PruningPredicate("s = 'a'", {"s": pa.string(), "x": pa.int64()})
    s = pa.StructArray.from_arrays([pa.array(["a"]), pa.array(["b"]), pa.array([0])],
                                   ["min", "max", "null_count"])
    table = pa.table({"row_count": [1], "s": s})
    with pytest.raises(TypeError, match="cannot plot bounds of type string"):
        pk.plot(pred, table, column="s")
    with pytest.raises(KeyError, match="no statistics for column 'x'"):
        pk.plot(pred, table, column="x")
    monkeypatch.setitem(sys.modules, "matplotlib.figure", None)
    with pytest.raises(ImportError, match="needs matplotlib"):
        pk.plot(pred, table, column="s")
