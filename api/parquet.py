"""Row-group statistics of Parquet files: the public name of ``prunekit.sources.parquet``.

>>> import prunekit.parquet
>>> prunekit.parquet.row_group_statistics is prunekit.sources.parquet.row_group_statistics
True
"""

from prunekit.sources.parquet import data_schema, parquet_files, row_group_statistics, statistics

__all__ = ["data_schema", "parquet_files", "row_group_statistics", "statistics"]
