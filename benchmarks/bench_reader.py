"""Spark reads of a TPC-H lineitem lake: ``read_parquet(spark, lake, q).count()`` against
``spark.read.parquet(lake).where(q).count()`` (local[2]).

The lake: lineitem from ``tpcgen-cli`` (scale factor 1, 6M rows), sorted by ``l_shipdate``,
cut into 1,000 files of 4 row groups each, as a pipeline that writes by day would leave it.
prunekit reads the statistics from a kept cache (``cache=``), as a repeated query does; the
first read of the footers is ``time_first_read``. ``track_speedup`` is native time over
prunekit's, best of alternating calls in one process (the ratio to trust on a noisy machine).

``ReadDelta`` is the same over the lake's Delta twin (its files as a Delta table). ``python -m
benchmarks.bench_reader [files]`` prints the interleaved timings and counts of both.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import tempfile
import time

from benchmarks import workload

FILTERS = {
    "one_day": "l_shipdate = DATE '1995-06-17' AND l_discount BETWEEN 0.05 AND 0.07",
    "one_month": "l_shipdate >= DATE '1995-06-01' AND l_shipdate < DATE '1995-07-01'",
    "one_year": "l_shipdate >= DATE '1994-01-01' AND l_shipdate < DATE '1995-01-01'",
    "date_add": "date_add(l_shipdate, 30) < DATE '1992-03-01'",
    "unprunable": "l_quantity > 0",
}
FILES = 1_000
SCALE = 1.0
_SESSION: list = []


def session():
    from prunekit.spark_glue import local_session

    if not _SESSION:
        _SESSION.append(local_session("local[2]", **{"spark.sql.shuffle.partitions": "2",
                                                     "spark.driver.memory": "4g"}))
    return _SESSION[0]


def lake(files: int = FILES, scale: float = SCALE) -> str:
    """The lake's directory, written once under the benchmark data directory."""
    import pyarrow as pa
    import pyarrow.parquet as pq

    path = os.path.join(workload.data_dir(), f"lineitem-sf{scale:g}-{files}-files")
    if os.path.exists(path):
        return path
    raw = tempfile.mkdtemp(dir=workload.data_dir())
    try:
        tpcgen = os.path.join(os.path.dirname(sys.executable), "tpcgen-cli")
        subprocess.run([tpcgen if os.path.exists(tpcgen) else "tpcgen-cli", "tpch", "parquet",
                        "-s", f"{scale:g}", "--tables=lineitem", f"--output-dir={raw}"],
                       check=True, capture_output=True)
        table = pq.read_table(raw)
        plain = pa.schema([pa.field(f.name, pa.string()) if pa.types.is_string_view(f.type)
                           else f for f in table.schema])  # tpcgen writes string views
        table = table.cast(plain).sort_by("l_shipdate")
        tmp = f"{path}.{os.getpid()}.tmp"
        os.makedirs(tmp)
        per_file = -(-table.num_rows // files)
        for k in range(files):
            pq.write_table(table.slice(k * per_file, per_file),
                           os.path.join(tmp, f"part-{k:05d}.parquet"),
                           row_group_size=-(-per_file // 4))
        os.replace(tmp, path)
    finally:
        shutil.rmtree(raw, ignore_errors=True)
    return path


def delta_twin(files: int = FILES, scale: float = SCALE) -> str:
    """The lake's files (hard links) as a Delta table, its log written by delta-rs."""
    from deltalake import convert_to_deltalake

    source = lake(files, scale)
    path = source + "-delta"
    if not os.path.exists(path):
        tmp = f"{path}.{os.getpid()}.tmp"
        os.makedirs(tmp)
        for name in os.listdir(source):
            os.link(os.path.join(source, name), os.path.join(tmp, name))
        convert_to_deltalake(tmp)
        os.replace(tmp, path)
    return path


def run_delta(path: str, where: str) -> int:
    from prunekit.spark_glue import read_delta

    return read_delta(session(), path, where).count()


def cache_path(path: str) -> str:
    return path + ".prunekit-stats.parquet"


def run_prunekit(path: str, where: str) -> int:
    from prunekit.spark_glue import read_parquet

    return read_parquet(session(), path, where, cache=cache_path(path)).count()


def run_native(path: str, where: str) -> int:
    return session().read.parquet(path).where(where).count()


def best_ratio(numerator, denominator, budget: float) -> float:
    """min(numerator) / min(denominator) over alternating calls filling ``budget`` seconds."""
    best = [float("inf"), float("inf")]
    start = time.perf_counter()
    while time.perf_counter() - start < budget or best[1] == float("inf"):
        for i, f in enumerate((numerator, denominator)):
            t = time.perf_counter()
            f()
            best[i] = min(best[i], time.perf_counter() - t)
    return best[0] / best[1]


class ReadParquet:
    params = [list(FILTERS)]
    param_names = ["filter"]
    timeout = 1800
    number = 1
    repeat = (3, 5, 60.0)
    files = FILES
    scale = SCALE
    budget = 20.0
    dataset = staticmethod(lake)
    read = staticmethod(run_prunekit)

    def setup(self, name):
        self.lake = self.dataset(self.files, self.scale)
        self.where = FILTERS[name]
        native, pruned = run_native(self.lake, self.where), self.read(self.lake, self.where)
        if native != pruned:
            raise AssertionError(f"{name}: prunekit counted {pruned}, Spark {native}")

    def time_native(self, name):
        run_native(self.lake, self.where)

    def time_prunekit(self, name):
        self.read(self.lake, self.where)

    def time_first_read(self, name):
        """Without a cache: every footer read on the driver."""
        from prunekit.spark_glue import read_parquet

        read_parquet(session(), self.lake, self.where).count()

    def track_speedup(self, name):
        return best_ratio(lambda: run_native(self.lake, self.where),
                           lambda: self.read(self.lake, self.where), self.budget)

    track_speedup.unit = "x native"


class ReadDelta(ReadParquet):
    """``read_delta`` on the lake's Delta twin against Spark's plain Parquet read of its
    folder (every file is live; there is no Delta connector here to compare with)."""

    dataset = staticmethod(delta_twin)
    read = staticmethod(run_delta)

    def time_first_read(self, name):
        """The log replayed, in a process that has not seen this version."""
        from prunekit.sources import delta

        delta._SNAPSHOTS.clear()
        run_delta(self.lake, self.where)


def main(files: int = FILES) -> None:
    for label, path, ours in (("parquet", lake(files), run_prunekit),
                              ("delta", delta_twin(files), run_delta)):
        print(label, flush=True)
        _compare(path, ours)


def _compare(path: str, ours) -> None:
    for name, where in FILTERS.items():
        counts = (run_native(path, where), ours(path, where))
        times: dict[str, list[float]] = {"native": [], "prunekit": []}
        for _ in range(5):
            for label, f in (("native", run_native), ("prunekit", ours)):
                t = time.perf_counter()
                f(path, where)
                times[label].append(time.perf_counter() - t)
        ratios = sorted(a / b for a, b in zip(times["native"], times["prunekit"], strict=True))
        print(f"{name:>10}: counts {counts}; native min {min(times['native']):.2f} s, prunekit "
              f"min {min(times['prunekit']):.2f} s; native/prunekit per round "
              f"{ratios[0]:.2f}-{ratios[-1]:.2f}, best/best "
              f"{min(times['native']) / min(times['prunekit']):.2f}", flush=True)


if __name__ == "__main__":
    main(*(int(a) for a in sys.argv[1:]))
