"""prunekit: decide which containers (row groups, files, partitions) a query can skip, from their
statistics alone.

>>> import pyarrow as pa, prunekit as pk
>>> pk.PruningPredicate(pk.col("x") > 5, pa.schema([("x", pa.int64())])).required_columns
{'x': ('max', 'min', 'null_count')}
"""

from prunekit.errors import (
    AliasError,
    PrunekitError,
    SqlSyntaxError,
    StatisticsError,
    TableNotReadError,
    TypeMismatchError,
    UnknownColumnError,
    UnknownTableError,
    UnsupportedError,
)
from prunekit.expr.syntax.nodes import Node as Expression
from prunekit.expr.syntax.nodes import and_, col, isnan, lit, or_
from prunekit.kernels.ops import ALL_MATCH, MAYBE_MATCH, NONE_MATCH

from .plot import plot  # matplotlib is imported by the call, not here
from .predicate import Explanation, PruningPredicate
from .statistics import Statistics

__all__ = [
    "ALL_MATCH", "MAYBE_MATCH", "NONE_MATCH", "AliasError", "Explanation", "Expression",
    "PruningPredicate", "PrunekitError", "SqlSyntaxError", "Statistics", "StatisticsError",
    "TableNotReadError", "TypeMismatchError", "UnknownColumnError", "UnknownTableError",
    "UnsupportedError", "and_", "col", "isnan", "lit", "or_", "plot", "prune_query",
]


def __getattr__(name: str):
    # Whole queries load on first use (they parse SQL: sqlglot): ``import prunekit`` stays light.
    if name == "prune_query":
        from .joins import prune_query

        return prune_query
    raise AttributeError(f"module 'prunekit' has no attribute {name!r}")
