"""Spark: ``prune_dataframe(...).count()`` against Spark's native filter with the equivalent SQL
over the same cached DataFrame of statistics (local[2]).

Baselines, both over the cached statistics: ``native`` is a hand-written filter of the same
pruning (``id.min <= 4242424 AND id.max >= 4242424``, what a user would type), ``sql`` is
``to_spark_sql`` (prunekit's full program, NaN and unknown statistics included) as a filter.
``floor`` is a no-op Arrow UDF over the same statistics columns prunekit ships (its outcome
always MAYBE_MATCH): Spark's own cost of a round trip to Python workers, which no kernel
path can go below. ``python -m benchmarks.bench_spark [containers ...]`` prints interleaved
timings, ratios to native and the Python workers that ran.
"""

from __future__ import annotations

import os
import statistics as st
import sys
import time

import numpy as np
import pyarrow as pa

from benchmarks import workload

# Hand-written native filters with the same NONE_MATCH (unknown bounds kept).
NATIVE = {
    "Q1": "NOT (id.max < 4242424 OR id.min > 4242424) OR id.min IS NULL OR id.max IS NULL",
    "Q3": "(qty.null_count > 0 OR qty.null_count IS NULL OR qty.min <= 42) "
          "AND (price.min < 10 OR price.min IS NULL)",
    "Q4": "(cat.max >= 'k' OR cat.max IS NULL) AND (cat.min < 'l' OR cat.min IS NULL) "
          "AND (ts.max > TIMESTAMP '2020-09-13 12:00:00' OR ts.max IS NULL)",
}
QUERIES = list(NATIVE)
_SESSION: list = []
_FRAMES: dict = {}


def session():
    from prunekit.spark_glue import local_session

    if not _SESSION:
        _SESSION.append(local_session("local[2]", **{
            "spark.sql.shuffle.partitions": "2", "spark.driver.memory": "8g",
            "spark.sql.execution.arrow.maxRecordsPerBatch": "100000"}))
    return _SESSION[0]


def frame(n: int):
    """The workload's statistics as a cached DataFrame in two partitions (counted once), read
    from a Parquet copy of the workload (written once beside its Arrow file; ten million
    containers cache in about 2 minutes on the loaded 2-core VM, where building them with
    ``createDataFrame`` in slices and a shuffle took 3 minutes per million)."""
    if n not in _FRAMES:
        df = session().read.parquet(parquet_path(n)).coalesce(2).cache()
        df.count()
        _FRAMES[n] = df
    return _FRAMES[n]


def parquet_path(n: int) -> str:
    """A directory of two Parquet files, one per half: two partitions without a shuffle."""
    import pyarrow.parquet as pq

    path = os.path.splitext(workload.ipc_path(n))[0] + ".parquet"
    if not os.path.exists(path):
        tmp = f"{path}.{os.getpid()}.tmp"
        os.makedirs(tmp)
        table, half = workload.statistics(n).table, -(-n // 2)
        for k in range(2):
            pq.write_table(table.slice(k * half, half), os.path.join(tmp, f"part-{k}.parquet"),
                           row_group_size=1_000_000)
        os.replace(tmp, path)
    return path


def _pred(q):
    import prunekit as pk

    return pk.PruningPredicate(workload.QUERIES[q], workload.SCHEMA)


def run_prunekit(df, q) -> int:
    from prunekit.spark_glue import prune_dataframe

    return prune_dataframe(df, _pred(q), no_nan=["price"]).count()


def run_sql(df, q) -> int:
    from pyspark.sql import functions as F

    from prunekit.spark_glue import to_spark_sql

    return df.filter(F.expr(to_spark_sql(_pred(q), df.schema, no_nan=["price"])) != 0).count()


def run_native(df, q) -> int:
    return df.filter(NATIVE[q]).count()


def run_floor(df, q) -> int:
    """A no-op Arrow UDF over the columns prunekit's UDF reads, filtered the same way."""
    from pyspark.sql import functions as F
    from pyspark.sql import types as T

    from prunekit.spark_glue.frame import _needed

    # Local, so pickled by value for the workers; pyspark reads the (string) annotations
    # against this module's globals.
    def noop(*arrays: pa.Array) -> pa.Array:
        return pa.array(np.ones(len(arrays[0]), np.int8))

    _, parts = _needed(_pred(q), df)
    out = df.withColumn("_o", F.arrow_udf(noop, T.ByteType())(*parts))
    return out.filter("_o != 0").drop("_o").count()


def python_workers() -> int:
    """Python worker processes of this Spark (children of its pyspark daemons), from /proc."""
    jvm = session()._jvm.java.lang.ProcessHandle.current().pid()

    def procs():
        for pid in filter(str.isdigit, os.listdir("/proc")):
            try:
                with open(f"/proc/{pid}/stat") as f:
                    ppid = int(f.read().rsplit(")", 1)[1].split()[1])
                with open(f"/proc/{pid}/cmdline", "rb") as f:
                    yield int(pid), ppid, b"pyspark.daemon" in f.read()
            except (OSError, ValueError, IndexError):
                continue

    table = list(procs())
    daemons = {pid for pid, ppid, d in table if d and ppid == jvm}
    return sum(1 for _, ppid, d in table if d and ppid in daemons)


class SparkPrune:
    params = ([10**6], QUERIES)
    param_names = ["containers", "query"]
    timeout = 1800
    number = 1
    repeat = (3, 7, 120.0)

    def setup(self, n, q):
        self.df = frame(n)
        run_prunekit(self.df, q)  # compile/load the kernel in the workers
        run_native(self.df, q)

    def time_prunekit(self, n, q):
        run_prunekit(self.df, q)

    def time_native_filter(self, n, q):
        run_native(self.df, q)

    def time_to_spark_sql_filter(self, n, q):
        run_sql(self.df, q)

    def time_noop_udf_floor(self, n, q):
        run_floor(self.df, q)


def main(sizes: list[int], rounds: int = 5) -> None:
    runs = (run_prunekit, run_native, run_sql, run_floor)
    for n in sizes:
        t0 = time.perf_counter()
        df = frame(n)
        print(f"{n:,} containers cached in {time.perf_counter() - t0:.1f} s", flush=True)
        for q in QUERIES:
            kept = {f.__name__[4:]: f(df, q) for f in runs}
            times: dict[str, list] = {k: [] for k in kept}
            for _ in range(rounds):  # interleaved: the machine's load hits all alike
                for f in runs:
                    t = time.perf_counter()
                    f(df, q)
                    times[f.__name__[4:]].append(time.perf_counter() - t)
            print(f"  {q}: kept {kept}; Python workers {python_workers()}", flush=True)
            for k, v in times.items():
                ratios = sorted(a / b for a, b in zip(v, times["native"], strict=True))
                print(f"    {k:>8}: median {st.median(v):.3f} s (min {min(v):.3f}, max "
                      f"{max(v):.3f}); / native {st.median(ratios):.2f}x (per round "
                      f"{ratios[0]:.2f}-{ratios[-1]:.2f})", flush=True)
        df.unpersist()
        _FRAMES.pop(n)


if __name__ == "__main__":
    main([int(a) for a in sys.argv[1:]] or [10**6])
