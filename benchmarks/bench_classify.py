"""``classify`` per query and container count, against its baselines, in one asv run.

Read ratios, not absolute times (``python -m benchmarks.summary`` prints them):

* ``Classify.time_classify`` / ``Floor.time_floor`` (or ``time_floor_threads``, whichever is
  faster): overhead over reading the bytes the query needs (targets at 10M: classify <= 1.3,
  ``Prune.time_prune`` <= 1.2 against the floor over the prune program's buffers);
* ``PyArrow.time_pyarrow_compute`` / ``Classify.time_classify``: speed-up over the same program
  in ``pyarrow.compute`` (target >= 3);
* ``Keep.time_*_keep`` / ``Prune.time_prune``: the keep masks users write by hand in
  pyarrow.compute, Polars and DuckDB (``keep.py``) against ``prune`` (target > 1 on every
  query);
* ``NumPy.time_numpy`` / ``Classify.time_classify``: speed-up over the NumPy interpreter;
* ``Ratios.track_*``: these ratios measured interleaved in one process (best of k of each),
  which is what to trust on a shared, noisy machine;
* ``FixedCost``: microseconds per call on 1,000 and 10,000 containers (target <= 50 for Q1-Q5
  at 1,000);
* ``PeakMemory``: peak RSS of a process that classifies 10M containers (statistics included),
  and the extra memory ``classify`` itself takes above the statistics it reads.

Each timed ``classify`` gets a new ``Statistics`` wrapper over the same (memory-mapped) table, so
it pays what a first call pays: prunekit caches string codes per ``Statistics`` object, and
``Classify.time_classify_cached`` (string queries only) times the repeated call. Kernels are
compiled outside the timings (``backend="numba"`` on the first 65,536 containers, same layout);
the timed calls use the default backend, which runs the ready kernel.
"""

import os
import threading
import time

import prunekit as pk

from . import baselines, keep
from .workload import QUERIES, predicate, sample, statistics

SIZES = [1_000_000, 10_000_000]
SLOW_AT_10M = {"Q4", "Q7"}  # the NumPy interpreter ranks strings: ~30 s at 10M
STRING_QUERIES = {"Q4", "Q7"}


def fresh(stats: pk.Statistics) -> pk.Statistics:
    """A new wrapper over the same table: no per-Statistics caches (cheap, no copy)."""
    return pk.Statistics.from_arrow(stats.table, no_nan=sorted(stats.no_nan))


def compile_for(pred: pk.PruningPredicate, stats: pk.Statistics) -> None:
    pred.classify(sample(stats), backend="numba")  # compiles (or loads) in the foreground


class _Base:
    params = (SIZES, sorted(QUERIES))
    param_names = ["containers", "query"]
    timeout = 600

    def setup(self, n, query):
        self.stats, self.pred = statistics(n), predicate(query)


class Classify(_Base):
    def setup(self, n, query):
        super().setup(n, query)
        compile_for(self.pred, self.stats)
        self.fresh = fresh(self.stats)

    def time_classify(self, n, query):
        self.pred.classify(self.fresh)


class Prune(_Base):
    """``prune``: the program that tells NONE_MATCH apart and nothing more."""

    def setup(self, n, query):
        super().setup(n, query)
        self.pred.prune(sample(self.stats), backend="numba")  # its own kernel, compiled here
        self.fresh = fresh(self.stats)

    def time_prune(self, n, query):
        self.pred.prune(self.fresh)


class ClassifyCached(_Base):
    """String queries, classified again on the same ``Statistics`` (ranked codes of strings
    longer than 7 bytes are kept; shorter ones, as here, are keyed by the kernel every call)."""

    params = (SIZES, sorted(STRING_QUERIES))

    def setup(self, n, query):
        super().setup(n, query)
        compile_for(self.pred, self.stats)
        self.stats = fresh(self.stats)
        self.pred.classify(self.stats)  # string codes cached on self.stats

    def time_classify_cached(self, n, query):
        self.pred.classify(self.stats)


class Floor(_Base):
    def setup(self, n, query):
        super().setup(n, query)
        self.buffers = baselines.floor_buffers(self.stats, self.pred.program)
        self.pieces = baselines.split(self.buffers, max(1, len(os.sched_getaffinity(0))))
        baselines.floor(self.buffers)  # compile, and fault the memory-mapped pages in

    def time_floor(self, n, query):
        baselines.floor(self.buffers)

    def time_floor_threads(self, n, query):
        baselines.floor_threads(self.pieces)


class PyArrow(_Base):
    def time_pyarrow_compute(self, n, query):
        baselines.pyarrow_compute(self.pred.program, self.stats)


class Keep(_Base):
    """The keep masks users write by hand (``keep.py``): pyarrow.compute, Polars, DuckDB."""

    def setup(self, n, query):
        super().setup(n, query)
        self.table = self.stats.table
        self.frame, self.expression = keep.frame(self.table), keep.polars_expression(query)
        import duckdb

        self.duckdb = duckdb.connect()
        self.duckdb.register("stats", self.table)

    def time_pyarrow_keep(self, n, query):
        keep.pyarrow_keep(query, self.table)

    def time_polars_keep(self, n, query):
        keep.polars_keep(query, self.frame, self.expression)

    def time_duckdb_keep(self, n, query):
        keep.duckdb_keep(query, self.table, self.duckdb)


class NumPy(_Base):
    def setup(self, n, query):
        if n > 1_000_000 and query in SLOW_AT_10M:
            raise NotImplementedError("skipped: ~30 s; the 1M ratio says the same")
        super().setup(n, query)

    def time_numpy(self, n, query):
        self.pred.classify(fresh(self.stats), backend="numpy")


def _best(fn, k):
    best = float("inf")
    for _ in range(k):
        start = time.perf_counter()
        fn()
        best = min(best, time.perf_counter() - start)
    return best


class Ratios(_Base):
    """Ratios measured interleaved in one process: robust to a shared machine's drift."""

    # Seconds per ratio: the best of up to 200 alternating calls of each side, as many as
    # fit in the budget. Best of 7 moved a 3 ms query's ratio by +-0.2 between runs (a 2-vCPU
    # VM whose host takes a vCPU now and then: the two-thread call feels it, the one-thread
    # floor less); over 300 alternating calls of Q3 and Q7 at 1M, the worst best-of-7 window
    # was 1.32 and 1.45, the worst best-of-30 window 1.20 and 1.39, around medians of 1.14
    # and 1.23-1.28. Best of 25 still spans only 0.15 s for Q3 at 1M, and one run caught a
    # burst there (1.57; six fresh processes gave 1.10-1.25): 200 calls span about 1 s.
    budget = 3.0
    most = 200

    def setup(self, n, query):
        super().setup(n, query)
        compile_for(self.pred, self.stats)
        self.pred.prune(sample(self.stats), backend="numba")  # prune's own kernel

    def _ratio(self, numerator, denominator):
        best_num, best_den = _best(numerator, 1), _best(denominator, 1)
        for _ in range(min(self.most - 1, int(self.budget / (best_num + best_den)))):
            best_num = min(best_num, _best(numerator, 1))
            best_den = min(best_den, _best(denominator, 1))
        return best_num / best_den

    def _classify(self):
        self.pred.classify(fresh(self.stats))

    def _over_floor(self, call, program) -> float:
        """``call`` against the floor over the buffers ``program`` reads, on one thread or
        two, whichever is faster (the larger of the two ratios)."""
        buffers = baselines.floor_buffers(self.stats, program)
        pieces = baselines.split(buffers, 2)
        baselines.floor_threads(pieces)
        one = self._ratio(call, lambda: baselines.floor(buffers))
        two = self._ratio(call, lambda: baselines.floor_threads(pieces))
        return max(one, two)

    def track_classify_over_floor(self, n, query):
        """Against the floor over the buffers the program reads (target <= 1.3 at 10M)."""
        return self._over_floor(self._classify, self.pred.program)

    track_classify_over_floor.unit = "x floor"

    def track_prune_over_floor(self, n, query):
        """Against the floor over the buffers the prune program reads (target <= 1.2 at 10M,
        1.5 at 1M)."""
        return self._over_floor(lambda: self.pred.prune(fresh(self.stats)),
                                self.pred.prune_program)

    track_prune_over_floor.unit = "x floor"

    def _prune(self):
        self.pred.prune(fresh(self.stats))

    def track_pyarrow_keep_over_prune(self, n, query):
        """The hand-written pyarrow.compute keep mask against ``prune`` (above 1: prune
        is faster)."""
        return self._ratio(lambda: keep.pyarrow_keep(query, self.stats.table), self._prune)

    track_pyarrow_keep_over_prune.unit = "x prune"

    def track_polars_keep_over_prune(self, n, query):
        """The hand-written Polars keep expression (its own threads) against ``prune``."""
        frame, expression = keep.frame(self.stats.table), keep.polars_expression(query)
        return self._ratio(lambda: keep.polars_keep(query, frame, expression), self._prune)

    track_polars_keep_over_prune.unit = "x prune"

    def track_duckdb_keep_over_prune(self, n, query):
        """The hand-written DuckDB keep query (its own threads) against ``prune``."""
        import duckdb

        con = duckdb.connect()
        con.register("stats", self.stats.table)
        return self._ratio(lambda: keep.duckdb_keep(query, self.stats.table, con), self._prune)

    track_duckdb_keep_over_prune.unit = "x prune"

    def track_pyarrow_over_classify(self, n, query):
        return self._ratio(lambda: baselines.pyarrow_compute(self.pred.program, self.stats),
                           self._classify)

    track_pyarrow_over_classify.unit = "x classify"


class FixedCost:
    """What a call costs beyond its containers: ``classify`` and ``prune`` on a notebook's
    1,000 containers and a Spark batch's 10,000, each call on a new ``Statistics`` wrapper
    (made outside the timing: its validation is the caller's), and ``classify`` calls over
    one kept ``Statistics``, the kernel compiled. Median
    microseconds of ``calls`` calls (target for Q1-Q5 at 1,000: <= 50)."""

    params = ([1_000, 10_000], sorted(QUERIES))
    param_names = ["containers", "query"]
    calls = 500

    def setup(self, n, query):
        from .workload import generate

        self.table, self.pred = generate(n), predicate(query)
        warm = pk.Statistics.from_arrow(self.table, no_nan=["price"])
        self.pred.classify(warm, backend="numba")
        self.pred.prune(warm, backend="numba")

    def _median_us(self, call, kept: pk.Statistics | None = None) -> float:
        times = []
        for _ in range(self.calls):
            stats = kept if kept is not None else pk.Statistics.from_arrow(
                self.table, no_nan=["price"])
            start = time.perf_counter()
            call(stats)
            times.append(time.perf_counter() - start)
        return 1e6 * sorted(times)[len(times) // 2]

    def track_classify_us(self, n, query):
        return self._median_us(self.pred.classify)

    track_classify_us.unit = "us"

    def track_prune_us(self, n, query):
        return self._median_us(self.pred.prune)

    track_prune_us.unit = "us"

    def track_classify_one_statistics_us(self, n, query):
        """``classify`` calls over one ``Statistics``, as a notebook's predicates are asked of
        it in turn: what it keeps of its batches (their export, ranked string codes) serves
        every call after the first."""
        return self._median_us(self.pred.classify,
                               pk.Statistics.from_arrow(self.table, no_nan=["price"]))

    track_classify_one_statistics_us.unit = "us"


def _rss() -> int:
    with open("/proc/self/statm") as f:
        return int(f.read().split()[1]) * os.sysconf("SC_PAGE_SIZE")


class PeakMemory(_Base):
    params = ([10_000_000], sorted(QUERIES))

    def setup(self, n, query):
        super().setup(n, query)
        compile_for(self.pred, self.stats)
        self.stats = fresh(self.stats)
        # fault in the statistics the query reads, so only classify's own memory is extra
        baselines.floor(baselines.floor_buffers(self.stats, self.pred.program))

    def peakmem_classify(self, n, query):
        self.pred.classify(self.stats)

    def track_classify_extra_peak_mb(self, n, query):
        """Resident memory above what the process held before the call, sampled every ms
        while ``classify`` runs (the kernel and Arrow release the GIL)."""
        before, peak, done = _rss(), [0], threading.Event()

        def watch():
            while not done.is_set():
                peak[0] = max(peak[0], _rss())
                time.sleep(0.001)

        thread = threading.Thread(target=watch)
        thread.start()
        try:
            self.pred.classify(self.stats)
        finally:
            done.set()
            thread.join()
        peak[0] = max(peak[0], _rss())
        return (peak[0] - before) / 2**20

    track_classify_extra_peak_mb.unit = "MB"
