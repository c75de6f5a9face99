"""The Spark part of ``make demo``: the same statistics pruned in Python and in Spark.

``demo(statistics, predicates)`` loads the statistics into a local Spark session, classifies
them for each predicate three ways (``PruningPredicate.classify`` on the Arrow table,
``classify_dataframe`` with the kernels in Spark's Python workers, and the same program as
Spark SQL), checks the three agree container by container, and reports counts and times.
"""

from __future__ import annotations

import os
import time
from collections.abc import Iterable, Mapping

import numpy as np
import pyarrow as pa

import prunekit as pk


def _table(statistics) -> tuple[pa.Table, dict]:
    """A canonical statistics table from a Table, a Statistics, a Parquet dataset (its row
    groups' footers) or an Arrow IPC file of statistics."""
    if isinstance(statistics, pk.Statistics):
        modes = {"nan_bounds": {c: "include" if v else "exclude"
                                for c, v in statistics.nan_in_bounds.items()},
                 "no_nan": sorted(statistics.no_nan)}
        return statistics.table, modes
    if isinstance(statistics, pa.Table):
        return statistics, {}
    path = os.fspath(statistics)
    if path.endswith((".arrow", ".feather", ".ipc")):
        with pa.memory_map(path) as source:
            return pa.ipc.open_file(source).read_all(), {}
    from prunekit.sources import parquet

    return parquet.row_group_statistics(path), {}


def demo(statistics, predicates: Iterable[str], schema: pa.Schema | Mapping | None = None, *,
         spark=None, nan_bounds: str | Mapping[str, str] | None = None,
         no_nan: Iterable[str] | None = None) -> dict:
    """Prune ``statistics`` in Spark for each predicate; return ``{"predicates": [...],
    "text": ...}`` where each entry has the outcome counts, whether Spark (kernels and SQL)
    agreed with ``classify`` on every container, and timings. ``schema`` defaults to the
    structs' ``min`` types; ``spark`` to ``local_session()``.

    >>> callable(demo)
    True
    """
    from pyspark.sql import functions as F

    from ._spark import local_session
    from .frame import classify_dataframe

    table, modes = _table(statistics)
    if nan_bounds is not None:
        modes["nan_bounds"] = nan_bounds
    if no_nan is not None:
        modes["no_nan"] = list(no_nan)
    if schema is None:
        schema = pa.schema([(f.name, f.type.field("min").type) for f in table.schema
                            if pa.types.is_struct(f.type)
                            and f.type.get_field_index("min") >= 0])
    spark = spark or local_session()
    key = "_prunekit_demo_id"
    df = spark.createDataFrame(table.append_column(key, pa.array(np.arange(table.num_rows))))
    df = df.cache()
    df.count()
    stats = pk.Statistics.from_arrow(table, **modes)
    rows, lines = [], [f"Spark {spark.version}: {table.num_rows:,} containers"]
    try:
        for text in predicates:
            pred = pk.PruningPredicate(text, schema)
            want = pred.classify(stats)
            start = time.perf_counter()
            kern = classify_dataframe(df, pred, column="k", **modes)
            both = classify_dataframe(kern, pred, column="q", engine="sql", **modes)
            got = both.select(key, "k", "q").toArrow().sort_by(key)
            seconds = time.perf_counter() - start
            k = got.column("k").to_numpy()
            q = got.column("q").to_numpy()
            counts = np.bincount(want, minlength=3).tolist()
            agree = bool(np.array_equal(k, want) and np.array_equal(q, want))
            kept = int(df.transform(lambda d, p=pred: classify_dataframe(d, p, **modes))
                       .filter(F.col("outcome") != pk.NONE_MATCH).count())
            rows.append({"predicate": text, "none": counts[0], "maybe": counts[1],
                         "all": counts[2], "kept": kept, "agree": agree,
                         "seconds": round(seconds, 3)})
            lines.append(f"  {text}\n    {counts[0]:,} NONE_MATCH containers skipped, "
                         f"{counts[1]:,} MAYBE, {counts[2]:,} ALL; Spark kept {kept:,}; "
                         f"kernels and Spark SQL {'agree' if agree else 'DISAGREE'} with "
                         f"classify on every container ({seconds:.2f} s)")
    finally:
        df.unpersist()
    return {"predicates": rows, "text": "\n".join(lines)}


def read_demo(path, predicates: Iterable[str], *, spark=None, cache=None) -> dict:
    """Read the Parquet dataset at ``path`` for each predicate twice, with Spark's plain
    reader and with ``read_parquet``; return ``{"predicates": [...], "text": ...}`` with both
    counts (which must be equal) and both times. ``cache``: a statistics cache file for
    ``read_parquet`` (by default a temporary one, removed on return).

    >>> callable(read_demo)
    True
    """
    import tempfile

    from prunekit.sources import parquet

    from ._spark import local_session

    spark = spark or local_session()
    files = len(parquet.parquet_files(path))
    with tempfile.TemporaryDirectory(prefix="prunekit-demo-") as scratch:
        return _read_demo(spark, path, predicates, files,
                          cache or os.path.join(scratch, "stats.parquet"))


def _read_demo(spark, path, predicates, files: int, cache: str) -> dict:
    from .reader import read_parquet

    rows, lines = [], [f"Spark {spark.version}: reading {files:,} Parquet files"]
    for text in predicates:
        read_parquet(spark, path, text, cache=cache).count()  # the statistics cache, once
        start = time.perf_counter()
        native = spark.read.parquet(os.fspath(path)).where(text).count()
        middle = time.perf_counter()
        df = read_parquet(spark, path, text, cache=cache)
        pruned = df.count()
        end = time.perf_counter()
        rows.append({"predicate": text, "native": native, "prunekit": pruned,
                     "agree": native == pruned, "native_s": round(middle - start, 3),
                     "prunekit_s": round(end - middle, 3)})
        lines.append(f"  {text}\n    Spark alone: {native:,} rows in {middle - start:.2f} s; "
                     f"read_parquet: {pruned:,} rows in {end - middle:.2f} s  "
                     f"{'ok' if native == pruned else 'MISMATCH'}")
    return {"predicates": rows, "text": "\n".join(lines)}
