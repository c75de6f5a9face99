"""``PruningPredicate``: a predicate bound to a schema, rewritten once, evaluated many times."""

from __future__ import annotations

from collections.abc import Mapping

import numpy as np
import pyarrow as pa

from prunekit.expr.bind import bind
from prunekit.expr.errors import PrunekitError, StatisticsError
from prunekit.expr.explain import explain_tree
from prunekit.expr.nodes import Node
from prunekit.expr.rewrite import Rewriter
from prunekit.expr.sql import parse
from prunekit.kernels.run import evaluate

from .statistics import Statistics

NONE_MATCH, MAYBE_MATCH, ALL_MATCH = 0, 1, 2


class PruningPredicate:
    """Decide, per container, whether a predicate can match any row, from statistics alone.

    Parameters
    ----------
    predicate : str or Expression
        Spark SQL text (``"x > 5 AND s LIKE 'ab%'"``) or a tree built with ``prunekit.col``.
    schema : pyarrow.Schema or mapping of name to pyarrow.DataType
        Types of the data columns the predicate may name.

    Examples
    --------
    DataFusion's containers A, B, C for ``x = 5``, plus one whose statistics are unknown and
    one whose rows are all 5 but one NULL:

    >>> import numpy as np, pyarrow as pa, prunekit as pk
    >>> pred = pk.PruningPredicate("x = 5", pa.schema([("x", pa.int64())]))
    >>> stats = pk.Statistics.from_numpy(row_count=np.array([10, 10, 10, 10, 10]), columns={
    ...     "x": {"min": np.ma.masked_array([0, 2, 5, 0, 5], mask=[0, 0, 0, 1, 0]),
    ...           "max": np.ma.masked_array([4, 10, 8, 0, 5], mask=[0, 0, 0, 1, 0]),
    ...           "null_count": np.array([0, 0, 0, 0, 1])}})
    >>> pred.classify(stats).tolist()     # 0 NONE_MATCH, 1 MAYBE_MATCH, 2 ALL_MATCH
    [0, 1, 1, 1, 1]
    >>> pred.prune(stats).tolist()
    [False, True, True, True, True]
    """

    def __init__(self, predicate: str | Node, schema: pa.Schema | Mapping[str, pa.DataType]):
        if isinstance(schema, Mapping):
            schema = pa.schema(list(schema.items()))
        if not isinstance(schema, pa.Schema):
            raise TypeError(f"schema must be a pyarrow.Schema, got {type(schema).__name__}")
        if isinstance(predicate, str):
            self.expression = parse(predicate)
        elif isinstance(predicate, Node):
            self.expression = predicate
        else:
            raise TypeError("predicate must be SQL text or a prunekit expression, got "
                            f"{type(predicate).__name__}")
        self.schema = schema
        self._rewriter = Rewriter()
        self.program = self._rewriter.program(bind(self.expression, schema))

    def __repr__(self) -> str:
        return f"PruningPredicate({self.expression.display()!r})"

    @property
    def always_true(self) -> bool:
        """True when no statistics can prune anything (only empty containers are skipped).

        >>> import pyarrow as pa
        >>> PruningPredicate("x > 1 OR my_udf(x)", {"x": pa.int64()}).always_true
        True
        """
        return self.program.always_true

    @property
    def required_columns(self) -> dict[str, tuple[str, ...]]:
        """The statistics read, per data column (``row_count`` is always read).

        >>> import pyarrow as pa
        >>> PruningPredicate("x IS NULL", {"x": pa.int64()}).required_columns
        {'x': ('null_count',)}
        """
        out: dict[str, list[str]] = {}
        for slot in self.program.slots:
            if slot.column is not None:
                out.setdefault(slot.column, []).append(slot.stat)
        return {c: tuple(sorted(s)) for c, s in out.items()}

    def explain(self) -> str:
        """The rewritten statistics program, readable: each leaf and when it may be TRUE, FALSE
        or NULL."""
        return explain_tree(self._rewriter, self.expression.display())

    def classify(self, statistics: Statistics | pa.Table | pa.RecordBatch, *,
                 backend: str = "auto") -> np.ndarray:
        """One outcome per container as int8: NONE_MATCH=0, MAYBE_MATCH=1, ALL_MATCH=2.

        ``backend``: ``"auto"`` runs the compiled kernel for this predicate's shape when it is
        ready (in memory or in the disk cache); the first time a shape is seen it answers with
        the NumPy interpreter while the kernel compiles in the background. ``"numba"`` always
        uses the kernel, compiling it first if needed; ``"numpy"`` always interprets. All three
        give identical outcomes.
        """
        if not isinstance(statistics, Statistics):
            statistics = Statistics.from_arrow(statistics)
        if backend not in ("auto", "numba", "numpy"):
            raise ValueError(f"backend must be 'auto', 'numba' or 'numpy', got {backend!r}")
        try:
            batches, caches = statistics.batches_and_caches()
            return evaluate(self.program, batches, statistics.nan_in_bounds,
                            statistics.no_nan, backend=backend, caches=caches)
        except PrunekitError:
            raise
        except (pa.ArrowInvalid, pa.ArrowTypeError, pa.ArrowNotImplementedError) as e:
            raise StatisticsError(f"statistics could not be read: {e}") from None

    def prune(self, statistics: Statistics | pa.Table | pa.RecordBatch) -> np.ndarray:
        """A bool per container: True where it must be read (``outcome != NONE_MATCH``)."""
        return self.classify(statistics) != NONE_MATCH
