"""prunekit: decide which containers (row groups, files, partitions) a query can skip, from their
statistics alone.

>>> import pyarrow as pa, prunekit as pk
>>> pk.PruningPredicate(pk.col("x") > 5, pa.schema([("x", pa.int64())])).required_columns
{'x': ('max', 'min', 'null_count')}
"""

from prunekit.expr.errors import (
    PrunekitError,
    SqlSyntaxError,
    StatisticsError,
    TypeMismatchError,
    UnknownColumnError,
    UnsupportedError,
)
from prunekit.expr.nodes import Node as Expression
from prunekit.expr.nodes import and_, col, isnan, lit, or_

from .plot import plot
from .predicate import ALL_MATCH, MAYBE_MATCH, NONE_MATCH, PruningPredicate
from .statistics import Statistics

__all__ = [
    "ALL_MATCH", "MAYBE_MATCH", "NONE_MATCH", "Expression", "PruningPredicate", "PrunekitError",
    "SqlSyntaxError", "Statistics", "StatisticsError", "TypeMismatchError", "UnknownColumnError",
    "UnsupportedError", "and_", "col", "isnan", "lit", "or_", "plot",
]
