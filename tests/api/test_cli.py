"""``prunekit scan``: every flag, both formats, both readers, errors."""

import json
import os
import subprocess
import sys

import pyarrow as pa
import pyarrow.parquet as pq
import pytest
from deltalake import write_deltalake

from prunekit.cli import main


@pytest.fixture(scope="module")
def data(tmp_path_factory):
    """x = 0..99 in row groups of 10 over two files; the same rows as a Delta table of two
    files partitioned by half."""
    root = tmp_path_factory.mktemp("cli")
    pq_dir = root / "pq"
    (pq_dir / "sub").mkdir(parents=True)
    rows = pa.table({"x": list(range(100)), "s": [f"v{i:03d}" for i in range(100)],
                     "half": ["lo"] * 50 + ["hi"] * 50})
    pq.write_table(rows.slice(0, 50), pq_dir / "a.parquet", row_group_size=10)
    pq.write_table(rows.slice(50), pq_dir / "sub" / "b.parquet", row_group_size=10)
    write_deltalake(str(root / "delta"), rows, partition_by=["half"])
    return root


def run(capsys, *argv):
    code = main(list(argv))
    out = capsys.readouterr()
    return code, out.out, out.err


def test_table_output_lists_kept_containers(data, capsys):
    code, out, err = run(capsys, "scan", str(data / "pq"), "--where", "x >= 42 AND x < 55")
    assert code == 0 and err == ""
    assert "Parquet, 10 row groups in 2 files" in out
    assert "where x >= 42 AND x < 55" in out
    listed = [line.split() for line in out.splitlines() if ".parquet" in line]
    assert [(r[0], r[1], r[2]) for r in listed] == [
        ("a.parquet", "4", "MAYBE_MATCH"),
        (os.path.join("sub", "b.parquet"), "0", "MAYBE_MATCH")]
    summary = {line.split()[0] + line.split()[1]: line.split() for line in out.splitlines()
               if line.startswith(("skip", "read", "total"))}
    assert summary["skip(NONE_MATCH)"][2:4] == ["8", "("]
    assert summary["total10"][2:4] == ["(100.0%)", "100"]


def test_show_all_lists_every_container(data, capsys):
    _, out, _ = run(capsys, "scan", str(data / "pq"), "--where", "x < 20", "--show-all")
    outcomes = [line.split()[2] for line in out.splitlines() if ".parquet" in line]
    assert outcomes == ["ALL_MATCH", "ALL_MATCH"] + ["NONE_MATCH"] * 8


def test_json_is_the_documented_schema(data, capsys):
    code, out, _ = run(capsys, "scan", str(data / "pq"), "--where", "x < 15", "--format",
                       "json")
    report = json.loads(out)
    assert code == 0
    assert set(report) == {"version", "path", "format", "where", "listed", "containers",
                           "summary", "explain", "plot"}
    assert report["version"] == 1 and report["format"] == "parquet" and report["listed"] == "kept"
    assert report["explain"] is None and report["plot"] is None
    assert [(c["file"], c["row_group"], c["outcome"], c["rows"]) for c in report["containers"]] \
        == [("a.parquet", 0, "ALL_MATCH", 10), ("a.parquet", 1, "MAYBE_MATCH", 10)]
    assert all(c["bytes"] > 0 for c in report["containers"])
    s = report["summary"]
    assert set(s) == {"skip", "read_without_filter", "read_and_filter", "total"}
    assert (s["skip"]["containers"], s["skip"]["rows"]) == (8, 80)
    assert (s["read_without_filter"]["containers"], s["read_and_filter"]["containers"]) == (1, 1)
    assert s["total"] == {"containers": 10, "rows": 100, "containers_without_row_count": 0,
                          "bytes": sum(s[k]["bytes"] for k in s if k != "total")}
    _, out, _ = run(capsys, "scan", str(data / "pq"), "--where", "x < 15", "--format",
                    "json", "--show-all", "--explain")
    report = json.loads(out)
    assert report["listed"] == "all" and len(report["containers"]) == 10
    assert "may be TRUE" in report["explain"]


def test_plot_writes_a_png(data, capsys, tmp_path):
    pytest.importorskip("matplotlib", reason="matplotlib (the plot extra) is not installed")
    out_png = tmp_path / "x.png"
    code, out, _ = run(capsys, "scan", str(data / "pq"), "--where", "x < 15 AND s > 'v0'",
                       "--format", "json", "--plot", str(out_png))
    assert code == 0 and json.loads(out)["plot"] == str(out_png)
    assert out_png.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    code, _, err = run(capsys, "scan", str(data / "pq"), "--where", "x < 15", "--plot",
                       str(tmp_path / "y.png"), "--plot-column", "nope")
    assert code == 2 and err.startswith("prunekit: error:") and len(err.splitlines()) == 1


def test_explain_in_table_output(data, capsys):
    _, out, _ = run(capsys, "scan", str(data / "pq" / "a.parquet"), "--where", "s LIKE 'v0%'",
                    "--explain")
    assert "may be TRUE" in out and "a.parquet" in out


def test_delta_tables(data, capsys):
    code, out, _ = run(capsys, "scan", str(data / "delta"), "--where", "half = 'hi' AND x > 90")
    assert code == 0 and "Delta table, 2 data files" in out
    assert [line.split()[1] for line in out.splitlines() if ".parquet" in line] == \
        ["MAYBE_MATCH"]
    _, out, _ = run(capsys, "scan", str(data / "delta"), "--where", "x >= 0", "--format",
                    "json", "--show-all")
    report = json.loads(out)
    assert report["format"] == "delta"
    assert {c["outcome"] for c in report["containers"]} == {"ALL_MATCH"}
    assert all(c["row_group"] is None and c["file"].startswith("half=")
               for c in report["containers"])
    sizes = [os.path.getsize(data / "delta" / c["file"]) for c in report["containers"]]
    assert [c["bytes"] for c in report["containers"]] == sizes
    assert report["summary"]["read_without_filter"]["rows"] == 100


def test_nothing_to_read(data, capsys):
    _, out, _ = run(capsys, "scan", str(data / "pq"), "--where", "x > 1000")
    assert "no container can hold a matching row" in out


@pytest.mark.parametrize("argv, message", [
    (["scan", "{pq}", "--where", "qty > 1"], "unknown column 'qty'"),
    (["scan", "{pq}", "--where", "x > 1 AND (y"], "line 1, column"),
    (["scan", "{root}/nope", "--where", "x > 1"], "no such file or directory"),
    (["scan", "{root}/empty", "--where", "x > 1"], "not a Parquet dataset nor a Delta table"),
    (["scan", "{root}/junk.parquet", "--where", "x > 1"], "not a readable Parquet file"),
    (["scan", "{root}/badlog", "--where", "x > 1"], "no commits"),
    (["scan", "{pq}"], "required: --where"),
    (["scan", "{pq}", "--where", "x > 1", "--format", "xml"], "invalid choice"),
    (["scan", "{pq}", "--where", "x > 1", "--bogus"], "unrecognized arguments"),
    (["scan", "{pq}", "--where", "x = 'a' + "], "prunekit: error:"),
])
def test_bad_input_is_one_line_and_exit_2(data, capsys, argv, message):
    (data / "empty").mkdir(exist_ok=True)
    (data / "junk.parquet").write_bytes(b"not parquet at all")
    (data / "badlog" / "_delta_log").mkdir(parents=True, exist_ok=True)
    argv = [a.format(pq=data / "pq", root=data) for a in argv]
    code, out, err = run(capsys, *argv)
    assert code == 2 and out == ""
    assert err.startswith("prunekit: error:") and err.count("\n") == 1, err
    assert message in err
    assert "Traceback" not in err


def test_no_command_and_help(capsys):
    assert main([]) == 2
    assert "scan" in capsys.readouterr().err
    assert main(["scan", "--help"]) == 0
    assert "--show-all" in capsys.readouterr().out


@pytest.mark.slow
def test_console_entry_points(data):
    for argv in ([sys.executable, "-m", "prunekit"],
                 [os.path.join(os.path.dirname(sys.executable), "prunekit")]):
        done = subprocess.run([*argv, "scan", str(data / "delta"), "--where", "x < 0",
                               "--format", "json"], capture_output=True, text=True, timeout=120)
        assert done.returncode == 0, done.stderr
        assert json.loads(done.stdout)["summary"]["skip"]["containers"] == 2
        bad = subprocess.run([*argv, "scan", str(data / "delta"), "--where", "nope > 1"],
                             capture_output=True, text=True, timeout=120)
        assert bad.returncode == 2 and bad.stderr.count("\n") == 1


@pytest.mark.slow
def test_the_program_runs_without_pandas_and_answers_as_main_does(data, capsys):
    """``python -m prunekit`` makes pandas unimportable (pyarrow would import it only to
    recognise pandas objects); its answers are main()'s in a process that has pandas."""
    import pandas  # noqa: F401 - main() below runs in a process that has pandas
    probe = ("import sys; from prunekit.cli import program; code = program(); "
             "print('pandas' in sys.modules, code, file=sys.stderr)")
    for path in (data / "pq", data / "delta"):
        argv = ["scan", str(path), "--where", "x > 55 AND s < 'v090'", "--format", "json"]
        done = subprocess.run([sys.executable, "-c", probe, *argv], capture_output=True,
                              text=True, timeout=120)
        assert done.stderr.split() == ["False", "0"], done.stderr
        code, out, _ = run(capsys, *argv)
        assert code == 0 and json.loads(done.stdout) == json.loads(out)
