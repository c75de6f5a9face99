"""Spark: ``prune_dataframe(...).count()`` against Spark's native filter with the equivalent SQL
over the same cached DataFrame of statistics (local[2], issue 6).

Baselines, both over the cached statistics: ``native`` is a hand-written filter of the same
pruning (``id.min <= 4242424 AND id.max >= 4242424``, what a user would type), ``sql`` is
``to_spark_sql`` (prunekit's full program, NaN and unknown statistics included) as a filter.
``python -m benchmarks.bench_spark [containers ...]`` prints interleaved timings and ratios.
"""

from __future__ import annotations

import statistics as st
import sys
import time

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
    """The workload's statistics as a cached DataFrame in two partitions (counted once)."""
    if n not in _FRAMES:
        spark = session()
        table = workload.statistics(n).table
        step = 1_000_000
        df = None
        for lo in range(0, n, step):  # createDataFrame in slices: bounded driver memory
            part = spark.createDataFrame(table.slice(lo, step))
            df = part if df is None else df.unionByName(part)
        df = df.repartition(2).cache()
        df.count()
        _FRAMES[n] = df
    return _FRAMES[n]


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


def main(sizes: list[int], rounds: int = 5) -> None:
    for n in sizes:
        t0 = time.perf_counter()
        df = frame(n)
        print(f"{n:,} containers cached in {time.perf_counter() - t0:.1f} s", flush=True)
        for q in QUERIES:
            kept = {f.__name__: f(df, q) for f in (run_prunekit, run_native, run_sql)}
            times: dict[str, list] = {k: [] for k in kept}
            for _ in range(rounds):  # interleaved: the machine's load hits all alike
                for f in (run_prunekit, run_native, run_sql):
                    t = time.perf_counter()
                    f(df, q)
                    times[f.__name__].append(time.perf_counter() - t)
            med = {k: st.median(v) for k, v in times.items()}
            ratios = sorted(a / b for a, b in zip(times["run_prunekit"], times["run_native"],
                                                  strict=True))
            print(f"  {q}: kept {kept}; median s prunekit {med['run_prunekit']:.3f}, native "
                  f"{med['run_native']:.3f}, to_spark_sql {med['run_sql']:.3f}; prunekit/native "
                  f"{med['run_prunekit'] / med['run_native']:.2f}x (per round "
                  f"{ratios[0]:.2f}-{ratios[-1]:.2f})", flush=True)
        df.unpersist()
        _FRAMES.pop(n)


if __name__ == "__main__":
    main([int(a) for a in sys.argv[1:]] or [10**6])
