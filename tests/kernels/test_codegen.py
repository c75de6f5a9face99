"""Kernels: compiled == interpreted for every op and layout, one kernel per shape, no user text
in generated source, and a disk cache that degrades silently."""

import concurrent.futures
import importlib
import multiprocessing
import subprocess
import sys
import threading

import numpy as np
import pyarrow as pa
import pytest

import prunekit as pk
from prunekit.expr.program.ir import ALL_OPS
from prunekit.kernels import cache, codegen, compiled, compiler, ops, run
from tests.support.layouts import PREDICATES, SCHEMA, random_statistics


def test_every_op_has_a_spelling_and_a_reference():
    assert set(ops.OPS) == ALL_OPS - {"load", "valid", "param", "flag", "const"}


def test_predicates_cover_every_op():
    used = set()
    for text in PREDICATES:
        used |= {s.op for s in pk.PruningPredicate(text, SCHEMA).program.steps}
    assert used == ALL_OPS


@pytest.mark.parametrize("text", PREDICATES)
def test_compiled_equals_interpreted(text):
    rng = np.random.default_rng(abs(hash(text)) % 2**32)
    table = random_statistics(rng, 300)
    pred = pk.PruningPredicate(text, SCHEMA)
    # Whole, sliced at odd offsets (bitmaps not byte-aligned), and re-chunked.
    chunked = pa.Table.from_batches(table.to_batches(max_chunksize=37))
    for stats in (table, table.slice(3, 250), chunked, table.slice(299), table.slice(0, 0)):
        compiled = pred.classify(stats)
        interpreted = pred.classify(stats, backend="numpy")
        np.testing.assert_array_equal(compiled, interpreted)
        assert compiled.dtype == np.int8 and len(compiled) == stats.num_rows


def test_same_shape_shares_one_kernel():
    stats = random_statistics(np.random.default_rng(1), 50)
    kernels = []
    for text in ("x > 5", "x > 7", "x > -1000000"):
        pred = pk.PruningPredicate(text, SCHEMA)
        pred.classify(stats)
        batch = stats.to_batches()[0]
        layout = run.prepare(pred.program, batch, {}, frozenset()).layout
        kernels.append(run.kernel_for(pred.program, layout))
    assert kernels[0] is kernels[1] is kernels[2]


def test_generated_source_holds_no_user_text():
    name = "x'); import os; os.system('echo pwned') #\n\"\u00e9"
    literal = "'); import os #\\ \u00ff"
    schema = pa.schema([(name, pa.string())])
    pred = pk.PruningPredicate(pk.col(name) == pk.lit(literal), schema)
    source = codegen.emit(pred.program, (("dense", False),) * len(pred.program.slots))
    assert "import os" not in source and "pwned" not in source and "\u00ff" not in source
    s = pa.StructArray.from_arrays([pa.array([literal, "a"]), pa.array([literal, "b"]),
                                    pa.array([0, 0])], ["min", "max", "null_count"])
    table = pa.table({"row_count": [3, 3], name: s})
    assert pred.classify(table).tolist() == [pk.ALL_MATCH, pk.NONE_MATCH]


def test_cache_dir_falls_back_when_not_writable(monkeypatch, tmp_path):
    blocker = tmp_path / "file"
    blocker.write_text("")  # a path under a regular file can never be created
    monkeypatch.setenv("PRUNEKIT_CACHE_DIR", str(blocker / "sub"))
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "xdg"))
    assert cache.cache_dir() == tmp_path / "xdg" / "prunekit" / "kernels"
    monkeypatch.setenv("XDG_CACHE_HOME", str(blocker / "xdg"))
    monkeypatch.setattr(cache.tempfile, "gettempdir", lambda: str(blocker / "tmp"))
    assert cache.cache_dir() is None


@pytest.mark.slow
def test_kernels_work_without_any_cache_directory(monkeypatch):
    monkeypatch.setattr(cache, "_CACHE_DIR", [None])
    monkeypatch.setattr(codegen, "_loaded", {})
    monkeypatch.setattr(run, "_sources", {})
    pred = pk.PruningPredicate("x BETWEEN 3 AND 4", SCHEMA)
    stats = random_statistics(np.random.default_rng(2), 40)
    np.testing.assert_array_equal(pred.classify(stats, backend="numba"),
                                  pred.classify(stats, backend="numpy"))


def test_first_use_interprets_while_the_kernel_compiles(monkeypatch, tmp_path):
    monkeypatch.setenv("PRUNEKIT_BACKGROUND_COMPILE", "1")  # the suite turns it off
    monkeypatch.setenv("PRUNEKIT_CACHE_DIR", str(tmp_path))  # the compiler's child's too
    (tmp_path / "kernels").mkdir()
    monkeypatch.setattr(cache, "_CACHE_DIR", [tmp_path / "kernels"])  # nothing on disk yet
    monkeypatch.setattr(run, "_ready", {})
    monkeypatch.setattr(run, "_payback", compiler.Payback())
    # Nor would the compiled interpreter be: a built kernel starts compiling it (20 s), for a
    # cache directory that is gone when the test ends.
    monkeypatch.setattr(run.machine, "start", lambda: None)
    submitted = []
    real_submit = compiler.submit
    monkeypatch.setattr(compiler, "submit", lambda key, *a: (
        submitted.append(key), real_submit(key, *a))[1])
    # A small shape: what is checked is when the kernel answers (one that also reads the
    # string column compiled for seconds longer).
    pred = pk.PruningPredicate("x > 3 AND f < 2.5", SCHEMA)
    stats = random_statistics(np.random.default_rng(5), 300)
    first = pred.classify(stats)  # interpreted; far from paying for a compilation
    assert submitted == []
    monkeypatch.setattr(compiler, "COMPILE_S", 0.0)  # as if it had been asked for often
    second = pred.classify(stats)  # interpreted, and now its kernel compiles in the background
    assert len(submitted) == 1
    assert compiler.wait_idle(timeout=300)
    assert submitted[0] in run._ready
    assert list((tmp_path / "kernels").glob("k_*.py"))  # compiled into this cache
    third = pred.classify(stats)  # now the kernel
    np.testing.assert_array_equal(first, pred.classify(stats, backend="numpy"))
    np.testing.assert_array_equal(second, first)
    np.testing.assert_array_equal(third, first)
    pred.classify(stats)
    assert len(submitted) == 1  # compiled once


def test_disk_cache_is_reused_by_a_fresh_process(tmp_path):
    script = ("import numpy as np, pyarrow as pa, prunekit as pk;"
              "s = pk.Statistics.from_numpy(row_count=np.array([1]), columns={'q': {"
              "'min': np.array([1]), 'max': np.array([2]), 'null_count': np.array([0])}});"
              "print(pk.PruningPredicate('q >= 2 AND q < 9', {'q': pa.int64()})"
              ".classify(s, backend='numba'))")
    env = {"PRUNEKIT_CACHE_DIR": str(tmp_path), "PATH": "/usr/bin:/bin"}
    for _ in range(2):
        out = subprocess.run([sys.executable, "-c", script], env=env, capture_output=True,
                             text=True, check=True)
        assert out.stdout.strip() == "[1]"
    sources = [p for p in (tmp_path / "kernels").glob("k_*.py")
               if not p.read_text().startswith("# compiled interpreter")]  # machine.py's
    assert len(sources) == 1
    # Numba wrote its compiled overload next to the source: the second process loaded it.
    assert list((tmp_path / "kernels").glob("__pycache__/*.nbi"))


def test_codegen_module_reload_is_harmless():
    importlib.reload(compiled)  # helpers are jitted with cache=True and reload cleanly
    assert ops.NONE_MATCH == 0


def _parallel_outcomes(pred, stats):
    """Outcomes through the thread pool (forced: these statistics are below the threshold)."""
    batch = stats.table.to_batches()[0]
    prepared = run.prepare(pred.program, batch, stats.nan_in_bounds, stats.no_nan)
    args = codegen.kernel_args(pred.program, prepared)
    kernel = run.ready_kernel(pred.program, prepared, args, wait=True)
    out = np.empty(len(stats), np.int8)
    run.run_kernel(kernel, len(stats), out, args, parallel=True)
    return out


def test_threads_and_several_callers_agree():
    pred = pk.PruningPredicate("x > 3 AND (f < 2.5 OR x IN (1, 2, 9))", SCHEMA)
    stats = pk.Statistics.from_arrow(random_statistics(np.random.default_rng(6), 50_000))
    expected = pred.classify(stats, backend="numpy")
    with concurrent.futures.ThreadPoolExecutor(4) as callers:
        results = list(callers.map(lambda _: _parallel_outcomes(pred, stats), range(8)))
    for got in results:
        np.testing.assert_array_equal(got, expected)


def _classify_in_child(queue):
    pred = pk.PruningPredicate("x > 3 AND (f < 2.5 OR x IN (1, 2, 9))", SCHEMA)
    stats = pk.Statistics.from_arrow(random_statistics(np.random.default_rng(6), 50_000))
    queue.put(bool((_parallel_outcomes(pred, stats) ==
                    pred.classify(stats, backend="numpy")).all()))


def test_parallel_classify_works_after_fork():
    pred = pk.PruningPredicate("x > 3 AND (f < 2.5 OR x IN (1, 2, 9))", SCHEMA)
    stats = pk.Statistics.from_arrow(random_statistics(np.random.default_rng(6), 50_000))
    _parallel_outcomes(pred, stats)  # the parent's pool threads exist before the fork
    ctx = multiprocessing.get_context("fork")
    queue = ctx.Queue()
    child = ctx.Process(target=_classify_in_child, args=(queue,))
    child.start()
    child.join(timeout=120)
    assert child.exitcode == 0, "the forked child failed or hung"
    assert queue.get(timeout=5) is True


def test_interpreter_chunks_on_threads_answer_as_on_one(monkeypatch):
    """Large batches are interpreted chunk by chunk on the pool: the same answer as one thread,
    and the pool is what ``classify`` uses for them."""
    from prunekit.kernels import interpret

    pred = pk.PruningPredicate("x > 3 AND (f < 2.5 OR x IN (1, 2, 9))", SCHEMA)
    stats = pk.Statistics.from_arrow(
        random_statistics(np.random.default_rng(8), 3 * interpret.CHUNK + 7))
    batch = stats.table.to_batches()[0]
    prepared = run.prepare(pred.program, batch, stats.nan_in_bounds, stats.no_nan)
    alone = interpret.interpret(pred.program, prepared)
    with concurrent.futures.ThreadPoolExecutor(2) as pool:
        np.testing.assert_array_equal(interpret.interpret(pred.program, prepared, pool), alone)
    pools = []
    monkeypatch.setattr(run, "interpret", lambda p, prep, pool=None: pools.append(pool) or
                        interpret.interpret(p, prep, pool))
    monkeypatch.setattr(run, "_workers", lambda: 2)
    monkeypatch.setattr(run, "PARALLEL_MIN", len(stats))
    np.testing.assert_array_equal(pred.classify(stats, backend="numpy"), alone)
    monkeypatch.setattr(run, "PARALLEL_MIN", len(stats) + 1)
    pred.classify(stats, backend="numpy")
    assert pools[0] is run._get_pool() and pools[1] is None


@pytest.mark.parametrize("fail_at", [None, 0, 5])
def test_threads_share_pieces_of_whole_chunks(monkeypatch, fail_at):
    """Every container is filled by exactly one piece of whole chunks, pieces are taken by
    more than one thread, and a piece that stops early (a long string) makes the call False."""
    monkeypatch.setattr(run, "_workers", lambda: 2)
    monkeypatch.setattr(run, "MIN_PIECE", 1)
    n = 23 * codegen.CHUNK + 100
    taken, holder, lock = [], [], threading.Lock()
    other_worked = threading.Event()

    def kernel(lo, hi, out, *args):
        me = threading.get_ident()
        with lock:
            taken.append((lo, hi, me))
            if lo == 0:
                holder.append(me)
        if lo == 0:
            other_worked.wait(5)  # hold the first piece until another thread has done one
        elif holder and holder[0] != me:
            other_worked.set()
        out[lo:hi] += 1
        return 1 if fail_at is not None and lo == fail_at * codegen.CHUNK * 2 else 0

    out = np.zeros(n, np.int8)
    ok = run.run_kernel(kernel, n, out, [], parallel=True)
    assert ok == (fail_at is None)
    assert len({t for _, _, t in taken}) == 2
    assert all(lo % codegen.CHUNK == 0 for lo, _, _ in taken)
    if fail_at is None:
        step = -(-n // (2 * run.PIECES_PER_WORKER))  # rounded up to whole chunks
        assert len(taken) == -(-n // (-(-step // codegen.CHUNK) * codegen.CHUNK)) > 2
        np.testing.assert_array_equal(out, 1)  # each container exactly once
    else:
        assert out.max() == 1  # never twice, though pieces after the failure may be left

def test_import_and_first_answer_do_not_load_numba(tmp_path):
    # Numba's import and set-up cost more than interpreting a first call; only the background
    # compilation loads it (kernels/compiled.py).
    script = ("import sys, numpy as np, prunekit as pk;"
              "assert 'numba' not in sys.modules, 'import';"
              "import prunekit.kernels.run as run;"
              "run.start_build = lambda *a: None;"  # no background compilation to race with
              "s = pk.Statistics.from_numpy(row_count=np.array([1]), columns={'q': {"
              "'min': np.array([1]), 'max': np.array([2]), 'null_count': np.array([0])}});"
              "print(pk.PruningPredicate('q > 1', {'q': 'int64'}).classify(s),"
              "'numba' in sys.modules)")
    env = {"PRUNEKIT_CACHE_DIR": str(tmp_path), "PATH": "/usr/bin:/bin"}
    out = subprocess.run([sys.executable, "-c", script], env=env, capture_output=True,
                         text=True, timeout=300)
    assert out.returncode == 0, out.stderr
    assert out.stdout.split()[-1] == "False", out.stdout  # the answer came without Numba


def test_pieces_are_never_smaller_than_min_piece(monkeypatch):
    monkeypatch.setattr(run, "_workers", lambda: 2)
    monkeypatch.setattr(run, "MIN_PIECE", 4 * codegen.CHUNK)
    n = 23 * codegen.CHUNK + 100  # 16 pieces per call would be 1.5 chunks each
    taken, lock = [], threading.Lock()

    def kernel(lo, hi, out, *args):
        with lock:
            taken.append((lo, hi))
        out[lo:hi] += 1
        return 0

    out = np.zeros(n, np.int8)
    assert run.run_kernel(kernel, n, out, [], parallel=True)
    np.testing.assert_array_equal(out, 1)
    sizes = sorted(hi - lo for lo, hi in taken)
    assert len(sizes) == 6 and sizes[1] == 4 * codegen.CHUNK  # the last piece holds the rest
