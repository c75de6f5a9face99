"""``make demo`` runs (on a small dataset) and its self-check catches lost rows."""

import json
import os

import numpy as np

import prunekit as pk
from prunekit import demo


def test_demo_runs_and_checks_itself(tmp_path, capsys):
    root = str(tmp_path / "d")
    assert demo.run(root, files=4, groups=3, rows=200) == 0
    out = capsys.readouterr().out
    assert out.count("self-check (parquet)") == len(demo.FILTERS)
    assert out.count("self-check (delta)") == len(demo.FILTERS)
    assert "MISMATCH" not in out and "every matching row is in a kept container" in out
    assert "Parquet, 12 row groups in 4 files" in out and "Delta table, 4 data files" in out
    # generated once: a second run reuses the files
    before = os.path.getmtime(os.path.join(root, "parquet", "part-000.parquet"))
    assert demo.run(root, files=4, groups=3, rows=200) == 0
    assert os.path.getmtime(os.path.join(root, "parquet", "part-000.parquet")) == before
    # Spark-style Delta statistics: a cut string with its tie-breaker, ms timestamps
    log = open(os.path.join(root, "delta", "_delta_log", f"{0:020d}.json")).read()
    stats = [json.loads(json.loads(line)["add"]["stats"]) for line in log.splitlines()
             if '"add"' in line]
    assert all(s["maxValues"]["l_comment"].endswith("\ufffd") for s in stats)
    assert all(s["maxValues"]["l_commit_ts"].endswith("Z") for s in stats)


def test_demo_fails_loudly_when_rows_are_lost(tmp_path, capsys, monkeypatch):
    monkeypatch.setattr(pk.PruningPredicate, "prune",
                        lambda self, stats: np.zeros(len(stats), bool))
    assert demo.run(str(tmp_path / "d"), files=2, groups=2, rows=100) == 1
    captured = capsys.readouterr()
    assert "MISMATCH" in captured.out and "UNSOUND" in captured.err
