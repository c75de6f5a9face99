"""The background compiler (``kernels/compiler.py``): a shape is compiled only once interpreting
it has cost a compilation, a process exits when its work is done whatever is compiling, and
processes sharing a kernel cache never corrupt it."""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import numpy as np
import pytest

from prunekit.kernels import compiler

pytestmark = pytest.mark.slow  # fresh processes, and compilations of seconds


def _run(script: str, cache, **env) -> subprocess.CompletedProcess:
    """``script`` in a fresh process over the cache ``cache``, background compiles on; it
    prints the wall time just before it ends as its last line."""
    epilogue = "\nprint(time.time(), flush=True)\n"
    env = {**os.environ, "PRUNEKIT_CACHE_DIR": str(cache), "PRUNEKIT_BACKGROUND_COMPILE": "1",
           **env}
    return subprocess.run([sys.executable, "-c", _script(script) + epilogue],
                          env=env, capture_output=True, text=True, check=True, timeout=600)


def _exit_delay(script: str, cache, **env) -> tuple[float, list[str]]:
    out = _run(script, cache, **env)
    ended = time.time()
    lines = out.stdout.split()
    return ended - float(lines[-1]), lines[:-1]


def _kernels(cache) -> list:
    return sorted((cache / "kernels").glob("k_*.py")) if (cache / "kernels").exists() else []


ONE_OFF = """
s = stats(20_000)
for k in range(40):  # forty shapes, each once
    leaves = [f"x > {k + i}" if i % 2 else f"y < {k * i}" for i in range(2 + k % 5)]
    pk.PruningPredicate(" OR ".join(leaves) if k % 3 else " AND ".join(leaves), schema).classify(s)
print("done")
"""


def test_one_off_shapes_exit_at_once_and_compile_nothing(tmp_path):
    for _ in ("cold", "warm"):
        delay, lines = _exit_delay(ONE_OFF, tmp_path)
        assert lines == ["done"]
        assert delay < 1.0, delay
        assert _kernels(tmp_path) == []  # no shape paid for a compilation


EXIT_WHILE_COMPILING = """
from prunekit.kernels import compiler
compiler.COMPILE_S = 0.0  # every shape earns its compilation at once
p = pk.PruningPredicate("x > 5 AND y < 100 OR x = 3", schema)
p.classify(stats(1000))
import pathlib
# the compiler's child, started for the job: its pid, to check it is gone afterwards
children = [c for t in pathlib.Path("/proc/self/task").iterdir()
            for c in (t / "children").read_text().split()]
t = time.time()
while not children and time.time() - t < 10:
    time.sleep(0.05)
    children = [c for t_ in pathlib.Path("/proc/self/task").iterdir()
                for c in (t_ / "children").read_text().split()]
time.sleep(0.3)  # the child is importing Numba or compiling now
print(*children)
"""


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="reads /proc to find the child")
def test_exit_abandons_a_running_compilation_and_its_child(tmp_path):
    delay, children = _exit_delay(EXIT_WHILE_COMPILING, tmp_path)
    assert delay < 1.5, delay
    assert children  # a child was compiling when the process ended
    time.sleep(0.2)
    for pid in children:  # killed with its parent: gone, or dead and not yet reaped
        stat = Path(f"/proc/{pid}/stat")
        assert not stat.exists() or stat.read_text().split(") ")[-1][0] == "Z"
    # Whatever it left in the cache loads or compiles cleanly.
    out = _run("""
        p = pk.PruningPredicate("x > 5 AND y < 100 OR x = 3", schema)
        s = stats(500)
        assert (p.classify(s, backend="numba") == p.classify(s, backend="numpy")).all()
        """, tmp_path)
    assert out.returncode == 0


REPEATED = """
from prunekit.kernels import compiler, run
p = pk.PruningPredicate("x > 5 AND y < 100 OR x = 3", schema)
s = stats(300_000)
want = p.classify(s, backend="numpy")
t = time.time()
while not run.compiled_shapes() and time.time() - t < 300:
    # interpreted until it has cost a compilation, then the kernel once it is ready
    assert (p.classify(s) == want).all()
assert run.compiled_shapes() == 1  # the compiled interpreter may still be compiling: no wait
assert (p.classify(s) == want).all()
print("done")
"""


def test_a_shape_asked_for_again_and_again_is_compiled_once(tmp_path):
    delay, lines = _exit_delay(REPEATED, tmp_path)
    assert lines == ["done"]
    assert len(_kernels(tmp_path)) >= 1
    assert delay < 1.5, delay


SAME_SHAPE = """
import numba.core.event as ev
compiled = []
class Count(ev.Listener):
    def on_start(self, event): compiled.append(event.data["dispatcher"].py_func.__name__)
    def on_end(self, event): pass
ev.register("numba:compile", Count())
p = pk.PruningPredicate("x BETWEEN 3 AND 700 AND NOT y > 12.5", schema)
s = stats(5_000)
assert (p.classify(s, backend="numba") == p.classify(s, backend="numpy")).all()
print(int("kernel" in compiled))
"""


def test_processes_compiling_one_shape_at_once_share_the_cache(tmp_path):
    env = {**os.environ, "PRUNEKIT_CACHE_DIR": str(tmp_path)}  # the kernels asked for
    two = [subprocess.Popen([sys.executable, "-c", _script(SAME_SHAPE)], env=env,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
           for _ in range(2)]
    outs = [p.communicate(timeout=600) for p in two]
    assert all(p.returncode == 0 for p in two), [err for _, err in outs]
    # One compiled it; the other waited for it and loaded it (or both compiled, in turn).
    assert sum(int(out.split()[-1]) for out, _ in outs) >= 1
    third = _run(SAME_SHAPE, tmp_path)
    assert third.stdout.split()[-2] == "0"  # loaded from the cache, not compiled


def _script(body: str) -> str:
    return textwrap.dedent("""
        import time, numpy as np, pyarrow as pa, prunekit as pk
        rng = np.random.default_rng(7)
        def stats(n):
            lo = rng.integers(0, 1000, n)
            return pk.Statistics.from_numpy(row_count=np.full(n, 10), columns={
                "x": {"min": lo, "max": lo + rng.integers(0, 50, n),
                      "null_count": np.zeros(n, np.int64)},
                "y": {"min": lo * 0.5, "max": lo * 0.5 + 9, "null_count": np.zeros(n, np.int64)}})
        schema = {"x": pa.int64(), "y": pa.float64()}
        """) + textwrap.dedent(body)


def test_a_damaged_cache_entry_is_compiled_again_not_loaded(tmp_path):
    body = """
        p = pk.PruningPredicate("x > 250 OR y = 4.5", schema)
        s = stats(2_000)
        assert (p.classify(s, backend="numba") == p.classify(s, backend="numpy")).all()
        """
    _run(body, tmp_path)
    entries = list((tmp_path / "kernels" / "__pycache__").glob("k_*.kernel-*"))
    assert entries
    for path in entries:  # an index and its code, overwritten with bytes of nothing
        path.write_bytes(b"\x80\x04not a pickle")
    _run(body, tmp_path)  # raises if the damaged entry were loaded or not recompiled
    assert all(path.read_bytes() != b"\x80\x04not a pickle" for path in
               (tmp_path / "kernels" / "__pycache__").glob("k_*.kernel-*"))


def test_payback_counts_interpreting_time_per_shape(monkeypatch):
    payback = compiler.Payback()
    assert not any(payback.spent("a", 0.125) for _ in range(7))
    assert payback.spent("a", 0.125)  # a second in all
    assert not payback.spent("b", 0.5)  # counted apart
    assert not payback.spent("a", 0.125)  # counting again: a compilation that failed
    monkeypatch.setattr(compiler, "MAX_TRACKED", 2)
    payback.spent("c", 0.5)
    payback.spent("d", 0.5)
    assert not payback.spent("b", 0.5)  # forgotten once two others came after it


def test_type_twins_have_the_arguments_numba_types():
    numba = pytest.importorskip("numba")
    base = np.arange(24, dtype=np.int64).reshape(4, 6)
    readonly = np.arange(5.0)
    readonly.setflags(write=False)
    args = [np.empty(0, np.int64), base, base[:, ::2], np.asfortranarray(base), readonly,
            np.arange(10, dtype=np.uint8)[::3], 3, 2.5, np.int32(4)]
    twins = compiler.from_twins(compiler.type_twins(args))
    assert [numba.typeof(a) for a in twins] == [numba.typeof(a) for a in args]
