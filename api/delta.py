"""File statistics of a Delta Lake table: the public name of ``prunekit.sources.delta``.

>>> import prunekit.delta
>>> prunekit.delta.statistics is prunekit.sources.delta.statistics
True
"""

from prunekit.sources.delta import file_statistics, is_delta_table, statistics

__all__ = ["file_statistics", "is_delta_table", "statistics"]
