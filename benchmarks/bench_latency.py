"""Latency to a first result: a predicate shape the process has never seen, and a fresh process
(``python -c "import prunekit; ..."``) with the on-disk kernel cache warm and cold.

Targets: a new shape's first result within 100 ms at 1M containers and 300 ms at 10M, string
predicates included; a fresh process with a warm cache, from before ``import prunekit`` to its
first result, within 0.8 s (1M containers).
"""

import json
import os
import random
import shutil
import statistics as stat
import subprocess
import sys
import tempfile
import time

import prunekit as pk
from prunekit.kernels import compiler, machine

from . import baselines
from .workload import SCHEMA, TS0, ipc_path, predicate, statistics

N = 1_000_000
_counter = [0]


def new_shape_sql(seed: int) -> str:
    """A random predicate over the numeric columns (strings would time their ranking, which
    ``bench_classify``'s Q4 measures): 3 to 9 leaves of random kinds under random AND/OR/NOT.
    Its program shape is, with overwhelming probability, new to the process."""
    rng = random.Random(seed)

    def literal(column):
        if column == "id":
            return str(rng.randrange(0, N * 1000))
        if column == "price":
            return f"{rng.uniform(0, 150):.3f}"
        if column == "qty":
            return str(rng.randrange(0, 70))
        ts = TS0 + rng.randrange(0, N * 40_000)
        return f"TIMESTAMP_NTZ '{time.strftime('%Y-%m-%d %H:%M:%S', time.gmtime(ts // 10**6))}'"

    def leaf():
        column = rng.choice(["id", "price", "qty", "ts"])
        kind = rng.randrange(6)
        if kind == 0:
            return f"{column} IS {rng.choice(['', 'NOT '])}NULL"
        if kind == 1:
            values = sorted({literal(column) for _ in range(rng.randrange(2, 12))})
            return f"{column} {rng.choice(['', 'NOT '])}IN ({', '.join(values)})"
        if kind == 2:
            a, b = sorted([literal(column), literal(column)],
                          key=lambda v: float(v) if v[0].isdigit() else 0)
            return f"{column} BETWEEN {a} AND {b}"
        op = rng.choice(["<", "<=", ">", ">=", "=", "<>"])
        return f"{column} {op} {literal(column)}"

    def tree(leaves):
        if leaves == 1:
            text = leaf()
        else:
            left = rng.randrange(1, leaves)
            joiner = rng.choice([" AND ", " OR "])
            text = f"({tree(left)}{joiner}{tree(leaves - left)})"
        return f"NOT {text}" if rng.random() < 0.15 else text

    return tree(rng.randrange(3, 10))


def new_string_shape_sql(seed: int) -> str:
    """A random numeric shape (``new_shape_sql``) and Q4's string range on ``cat``: the first
    call keys or ranks the strings too."""
    rng = random.Random(seed)
    lo = rng.choice("abcdefghijklmnopq")
    return (f"({new_shape_sql(seed)}) AND cat >= '{lo}' AND cat < '{chr(ord(lo) + 2)}' "
            f"AND ts > TIMESTAMP_NTZ '2020-09-13 12:00:00'")


def _fresh_sql(kind: str = "numeric") -> str:
    _counter[0] += 1
    seed = hash((os.getpid(), time.time_ns(), _counter[0]))
    return new_string_shape_sql(seed) if kind == "strings" else new_shape_sql(seed)


def _join_compiles() -> None:
    """Wait for kernels still compiling in the background (a previous new shape's), so that one
    measurement does not compete with the last one's compiler."""
    compiler.wait_idle()


class NewShape:
    """Time to the first result for a shape never seen in this (warm) process: with the default
    backend (the first call of a new shape is interpreted while its kernel compiles in the
    background once interpreting has cost a compilation) and with ``backend="numba"`` (the
    compiled kernel's first result). Numeric
    shapes, and shapes with Q4's string range."""

    params = ([1_000_000, 10_000_000], ["numeric", "strings"])
    param_names = ["containers", "shape"]
    number = 1
    repeat = (1, 5, 30.0)
    warmup_time = 0
    timeout = 600

    def setup(self, n, kind):
        # A fresh kernel cache directory: the new shape cannot be on disk either. (Read when the
        # process loads its first kernel, which happens below.)
        self.cache = tempfile.mkdtemp(prefix="prunekit-newshape-")
        os.environ["PRUNEKIT_CACHE_DIR"] = self.cache
        self.stats = statistics(n)
        # The statistics in memory, as a user's are: the memory-mapped file's pages read once,
        # so that no call pays for reading them from disk.
        baselines.floor(baselines.floor_buffers(self.stats, predicate("Q7").program))
        # warm: Numba, prunekit's helpers, a first kernel and the compiled interpreter (which
        # a process using backend="auto" loads after its first kernel)
        predicate("Q2").classify(self.stats, backend="numba")
        machine.wait()
        _join_compiles()

    def teardown(self, n, kind):
        _join_compiles()
        shutil.rmtree(self.cache, ignore_errors=True)

    def time_new_shape_first_result(self, n, kind):
        pk.PruningPredicate(_fresh_sql(kind), SCHEMA).classify(self.stats)

    shapes = 3  # new shapes per measurement (the median is reported)

    def _median_ms(self, backend: str, kind: str) -> float:
        times = []
        for _ in range(self.shapes):
            _join_compiles()
            sql = _fresh_sql(kind)
            start = time.perf_counter()
            pred = pk.PruningPredicate(sql, SCHEMA)
            built = time.perf_counter()
            pred.classify(self.stats, backend=backend)
            first = time.perf_counter()
            # with "auto", interpreted again until the kernel is ready (no call waits for
            # the compiler, which takes one of the cores meanwhile); with "numba", the kernel
            pred.classify(self.stats)
            second = time.perf_counter()
            pred.classify(self.stats)
            third = time.perf_counter()
            times.append(first - start)
            print(f"new shape ({backend}): predicate {1e3 * (built - start):.0f} ms, first "
                  f"classify {1e3 * (first - built):.0f} ms, second {1e3 * (second - first):.0f}"
                  f" ms, third {1e3 * (third - second):.0f} ms", file=sys.stderr)
        return 1e3 * stat.median(times)

    def track_new_shape_first_result_ms(self, n, kind):
        """Median of 3 new shapes: from the SQL text to the first outcome array."""
        return self._median_ms("auto", kind)

    track_new_shape_first_result_ms.unit = "ms"

    def track_new_shape_compiled_result_ms(self, n, kind):
        """The same, waiting for the compiled kernel (``backend="numba"``)."""
        return self._median_ms("numba", kind)

    track_new_shape_compiled_result_ms.unit = "ms"


# Run by a fresh interpreter: the clock starts before ``import prunekit``.
_CHILD = """
import time
start = time.perf_counter()
import prunekit as pk
import pyarrow as pa
imported = time.perf_counter()
with pa.memory_map({path!r}) as source:
    table = pa.ipc.open_file(source).read_all()
stats = pk.Statistics.from_arrow(table, no_nan=["price"])
schema = pa.schema([(c, table.schema.field(c).type.field("min").type) for c in {columns!r}])
out = pk.PruningPredicate({sql!r}, schema).classify(stats)
done = time.perf_counter()
import json
print(json.dumps({{"import": imported - start, "total": done - start, "n": len(out)}}))
"""


def fresh_process(query: str, cache: str) -> dict:
    """Seconds from before ``import prunekit`` to the first result, in a new interpreter."""
    from .workload import QUERIES

    code = _CHILD.format(path=ipc_path(N), columns=SCHEMA.names, sql=QUERIES[query])
    env = dict(os.environ, PRUNEKIT_CACHE_DIR=cache)
    wall = time.perf_counter()
    done = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True,
                          check=True)
    result = json.loads(done.stdout.strip().splitlines()[-1])
    result["wall"] = time.perf_counter() - wall
    assert result["n"] == N
    return result


class FreshProcess:
    """A new ``python`` process classifying 1M containers (Q2): warm and cold kernel cache.

    "Cold" empties prunekit's kernel cache only; Numba's cache of prunekit's own helpers (next to
    the installed package) stays warm, as it is after the first run on any machine."""

    params = ["Q2"]
    param_names = ["query"]
    timeout = 300
    runs = 3

    def setup(self, query):
        ipc_path(N)  # the statistics file, written once
        self.warm = tempfile.mkdtemp(prefix="prunekit-warm-")
        fresh_process(query, self.warm)  # fills the cache

    def teardown(self, query):
        shutil.rmtree(self.warm, ignore_errors=True)

    def _median(self, query, warm: bool, key: str = "total") -> float:
        totals = []
        for _ in range(self.runs):
            cache = self.warm if warm else tempfile.mkdtemp(prefix="prunekit-cold-")
            try:
                r = fresh_process(query, cache)
            finally:
                if not warm:
                    shutil.rmtree(cache, ignore_errors=True)
            totals.append(r[key])
            print(f"fresh process ({'warm' if warm else 'cold'}): import {r['import']:.2f} s, "
                  f"first result {r['total']:.2f} s, process wall {r['wall']:.2f} s",
                  file=sys.stderr)
        return stat.median(totals)

    def track_fresh_process_warm_cache_s(self, query):
        return self._median(query, warm=True)

    track_fresh_process_warm_cache_s.unit = "s"

    def track_fresh_process_cold_cache_s(self, query):
        return self._median(query, warm=False)

    track_fresh_process_cold_cache_s.unit = "s"

    def track_fresh_process_cold_cache_wall_s(self, query):
        """The whole cold process, as a shell sees it, exit included: a one-off call compiles
        nothing, so nothing is waited for at exit either."""
        return self._median(query, warm=False, key="wall")

    track_fresh_process_cold_cache_wall_s.unit = "s"
