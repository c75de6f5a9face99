"""File statistics of an Iceberg table: the public name of ``prunekit.sources.iceberg``
(needs pyiceberg: ``pip install 'prunekit[iceberg]'``).

>>> import prunekit.iceberg
>>> prunekit.iceberg.file_statistics is prunekit.sources.iceberg.file_statistics
True
"""

from prunekit.sources.iceberg import data_schema, file_statistics, load_table, statistics

__all__ = ["data_schema", "file_statistics", "load_table", "statistics"]
