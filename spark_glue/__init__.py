"""Spark integration: whole queries and single tables read from the files prunekit keeps, and
DataFrames of container statistics classified with prunekit's kernels.

>>> import prunekit.spark_glue as sg     # imports nothing of pyspark until a name is used
>>> sorted(sg.__all__)[:3]
['classify_dataframe', 'data_schema', 'demo']

``sql(spark, query, tables)`` is ``spark.sql(query)`` with each Parquet or Delta table read from
the files prunekit keeps for the whole query, joins included (``explain_sql`` says what was
kept and why); ``prune(df)`` does it for a DataFrame built with the DataFrame API, from its
optimized plan; ``read_parquet`` and ``read_delta`` do the same for one table and a filter.
``classify_dataframe(stats_df, predicate, schema=None)`` adds an int8 ``outcome`` column
(0 NONE_MATCH, 1 MAYBE_MATCH, 2 ALL_MATCH); ``prune_dataframe`` keeps the containers that may
match; ``to_spark_sql(pred, stats_df.schema)`` is the same outcome as Spark SQL;
``local_session()`` starts an embedded Spark; ``spark_errors()`` turns an executor's prunekit
error back into that error on the driver. See ``frame.py`` for how batches travel.
"""

from __future__ import annotations

import importlib

_WHERE = {
    "classify_dataframe": "frame", "prune_dataframe": "frame", "data_schema": "frame",
    "local_session": "_spark", "spark_errors": "_spark", "to_spark_sql": "to_sql", "demo": "_demo",
    "parquet_statistics": "parquet", "read_parquet": "reader", "read_delta": "reader",
    "sql": "query", "explain_sql": "query", "plan_sql": "query", "prune": "query",
    "plan_frame": "query",
}
__all__ = sorted(_WHERE)


def __getattr__(name: str):
    where = _WHERE.get(name)
    if where is None:
        raise AttributeError(f"module 'prunekit.spark_glue' has no attribute {name!r}")
    value = getattr(importlib.import_module(f"{__name__}.{where}"), name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted(list(globals()) + __all__)
