"""Run a statistics program over ``Statistics``: the one place the public layer calls the
kernels, shared by ``PruningPredicate.classify`` and the join fixpoint (``prunekit.joins``).

>>> import numpy as np, pyarrow as pa
>>> from prunekit.expr.binding.bind import bind
>>> from prunekit.expr.syntax.sql import parse
>>> from prunekit.expr.program.rewrite import Rewriter
>>> program = Rewriter().program(bind(parse("x > 5"), pa.schema([("x", pa.int64())])))
>>> stats = Statistics.from_numpy(row_count=np.array([3, 3]), columns={"x": {
...     "min": np.array([0, 6]), "max": np.array([4, 9]), "null_count": np.array([0, 0])}})
>>> outcomes(program, stats, frozenset({"x"})).tolist()
[0, 2]
"""

from __future__ import annotations

from collections.abc import Set

import numpy as np
import pyarrow as pa

from prunekit.errors import PrunekitError, StatisticsError
from prunekit.expr.program.ir import Program
from prunekit.kernels.identity import PerObject
from prunekit.kernels.run import evaluate

from .statistics import Statistics, with_legacy_keys

BACKENDS = ("auto", "numba", "vm", "numpy")

_columns = PerObject()  # a Program object -> the statistics columns it reads


def _column_names(program: Program) -> frozenset[str]:
    return frozenset(c for c, _ in program.column_types)


def outcomes(program: Program, statistics: Statistics, leaf_keys: Set[str],
             backend: str = "auto") -> np.ndarray:
    """One int8 outcome per container (0 NONE_MATCH, 1 MAYBE_MATCH, 2 ALL_MATCH).
    ``leaf_keys``: the schema's statistics keys, to read old-layout statistics by."""
    if backend not in BACKENDS:
        raise ValueError(f"backend must be 'auto', 'numba', 'vm' or 'numpy', got {backend!r}")
    statistics = with_legacy_keys(statistics, _columns.get(program, _column_names), leaf_keys)
    try:
        batches, caches = statistics.batches_and_caches()
        return evaluate(program, batches, statistics.nan_in_bounds, statistics.no_nan,
                        backend=backend, caches=caches)
    except PrunekitError:
        raise
    except (pa.ArrowInvalid, pa.ArrowTypeError, pa.ArrowNotImplementedError) as e:
        raise StatisticsError(f"statistics could not be read: {e}") from None
