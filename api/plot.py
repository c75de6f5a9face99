"""``pk.plot``: the containers' [min, max] of one column, the predicate's range on that column
shaded, containers the predicate skips greyed. Needs matplotlib (``pip install 'prunekit[plot]'``),
imported only when called; draws on a plain ``Figure`` (no pyplot, no GUI backend), so it works
in notebooks, scripts and the command line alike.

>>> import numpy as np, pyarrow as pa, prunekit as pk
>>> pred = pk.PruningPredicate("x > 5", {"x": pa.int64()})
>>> stats = pk.Statistics.from_numpy(row_count=np.array([10, 10]), columns={
...     "x": {"min": np.array([0, 4]), "max": np.array([3, 9]), "null_count": np.array([0, 0])}})
>>> fig = pk.plot(pred, stats, column="x")       # doctest: +SKIP
>>> fig.savefig("containers.png")                # doctest: +SKIP
"""

from __future__ import annotations

import math

import numpy as np
import pyarrow as pa

from prunekit.expr.binding import bound as b
from prunekit.kernels.ops import ALL_MATCH, NONE_MATCH

from .predicate import PruningPredicate
from .statistics import Statistics

COLORS = {NONE_MATCH: "#b0b0b0", 1: "#1f77b4", ALL_MATCH: "#2ca02c"}
LABELS = {NONE_MATCH: "NONE_MATCH (skipped)", 1: "MAYBE_MATCH", ALL_MATCH: "ALL_MATCH"}
_EVERYTHING = [(-math.inf, math.inf)]


def plot(pred: PruningPredicate, statistics: Statistics | pa.Table, column: str, *, ax=None,
         path: str | None = None):
    """Draw each container's [min, max] of ``column`` as a horizontal bar (one row per
    container, coloured by outcome, NONE_MATCH grey), with the values the predicate may accept
    on that column shaded (from its comparisons, BETWEEN and IN on the column; other leaves
    accept anything). Unknown bounds are not drawn. ``ax``: draw into these axes; ``path``:
    also save the figure there (PNG, SVG, PDF by extension). Returns the Figure."""
    try:
        from matplotlib.figure import Figure
    except ImportError:
        raise ImportError("prunekit.plot needs matplotlib: pip install 'prunekit[plot]'") from None
    if not isinstance(statistics, Statistics):
        statistics = Statistics.from_arrow(statistics)
    if column not in statistics.columns:
        raise KeyError(f"no statistics for column {column!r}; columns are {statistics.columns}")
    t = pred.schema.field(column).type if column in pred.schema.names else None
    struct = statistics.table.column(column).combine_chunks()
    lo = _to_plot(struct.field("min"), t)
    hi = _to_plot(struct.field("max"), t)
    outcomes = pred.classify(statistics)
    if ax is None:
        fig = Figure(figsize=(8, max(2.5, min(12.0, 0.25 * len(outcomes) + 1.5))),
                     layout="constrained")
        ax = fig.add_subplot()
    fig = ax.figure
    known = ~(np.isnan(lo) | np.isnan(hi))
    finite = np.concatenate([lo[known], hi[known]])
    left, right = (finite.min(), finite.max()) if finite.size else (0.0, 1.0)
    pad = (right - left) * 0.05 or 1.0
    left, right = left - pad, right + pad
    for a, z in _ranges(pred.bound, column, t):
        if a == z and left <= a <= right:  # one value (IN, =): a line
            ax.axvline(a, color="#ff7f0e", alpha=0.6, lw=1.5)
        elif a <= right and z >= left:
            ax.axvspan(max(a, left), min(z, right), color="#ff7f0e", alpha=0.15, lw=0)
    rows = np.arange(len(outcomes))
    for outcome in (NONE_MATCH, 1, ALL_MATCH):
        sel = known & (outcomes == outcome)
        if sel.any():
            ax.hlines(rows[sel], lo[sel], hi[sel], colors=COLORS[outcome], lw=4,
                      label=LABELS[outcome])
            ax.plot(lo[sel], rows[sel], "|", color=COLORS[outcome], ms=8)
            ax.plot(hi[sel], rows[sel], "|", color=COLORS[outcome], ms=8)
    ax.set_xlim(left, right)
    ax.set_ylim(len(outcomes) - 0.5, -0.5)
    ax.set_xlabel(f"{column} [min, max]" + (" (days since 1970-01-01)" if _temporal(t) else ""))
    ax.set_ylabel("container")
    ax.yaxis.get_major_locator().set_params(integer=True)
    ax.set_title(pred.expression.display()[:100])
    if len(outcomes):
        ax.legend(loc="best", fontsize="small")
    if path is not None:
        fig.savefig(path)
    return fig


def _temporal(t: pa.DataType | None) -> bool:
    return t is not None and (pa.types.is_date(t) or pa.types.is_timestamp(t))


def _to_plot(arr: pa.Array, t: pa.DataType | None) -> np.ndarray:
    """Bounds as float64 (NaN where unknown); dates and timestamps in days since the epoch."""
    if pa.types.is_date(arr.type) or pa.types.is_timestamp(arr.type):
        unit = "D" if pa.types.is_date(arr.type) else arr.type.unit
        per_day = {"D": 1, "s": 86_400, "ms": 86_400e3, "us": 86_400e6, "ns": 86_400e9}[unit]
        ints = arr.cast(pa.int32() if unit == "D" else pa.int64())
        return ints.to_numpy(zero_copy_only=False).astype("float64") / per_day
    if pa.types.is_decimal(arr.type) or pa.types.is_integer(arr.type) or \
            pa.types.is_floating(arr.type) or pa.types.is_boolean(arr.type):
        out = arr.cast(pa.float64()).to_numpy(zero_copy_only=False)
        return np.where(np.isfinite(out), out, np.nan)
    raise TypeError(f"cannot plot bounds of type {arr.type}: numbers, dates and timestamps only")


def _value(v: object, t: pa.DataType | None) -> float | None:
    """A literal in the column's kernel domain, on the plot's axis."""
    if t is None or isinstance(v, (bytes, str)):
        return None
    if pa.types.is_decimal(t):
        return int(v) / 10**t.scale
    if pa.types.is_date(t):
        return float(v)
    if pa.types.is_timestamp(t):
        return float(v) / {"s": 86_400, "ms": 86_400e3, "us": 86_400e6, "ns": 86_400e9}[t.unit]
    try:
        return float(v)
    except (TypeError, ValueError):
        return None


def _ranges(root: b.BPredicate, column: str, t: pa.DataType | None
            ) -> list[tuple[float, float]]:
    """Intervals the predicate may accept on ``column`` (a superset; for display only)."""
    return b.visit(root, _Ranges(column, t))


class _Ranges(b.BoundVisitor[list]):
    """Per node, intervals of ``column`` its TRUE rows lie in: AND intersects, OR unites; a
    comparison with a literal is its interval; anything else may be everything."""

    def __init__(self, column: str, t: pa.DataType | None) -> None:
        self.column, self.t = column, t

    def _on_column(self, leaf: b.BLeaf) -> bool:
        col = leaf.col
        return col.name == self.column and not col.convert and col.domain != "code"

    def visit_compare(self, leaf: b.BCompare) -> list:
        v = _value(leaf.value, self.t) if self._on_column(leaf) else None
        if v is None:
            return _EVERYTHING
        return [(-math.inf, v)] if leaf.op in ("lt", "le") else [(v, math.inf)]

    def visit_in_range(self, leaf: b.BInRange) -> list:
        if not self._on_column(leaf):
            return _EVERYTHING
        a, z = _value(leaf.first, self.t), _value(leaf.last, self.t)
        return _EVERYTHING if a is None or z is None else [(a, z)]

    def visit_in_list(self, leaf: b.BInList) -> list:
        if not self._on_column(leaf):
            return _EVERYTHING
        pts = [_value(v, self.t) for v in leaf.values]
        return _EVERYTHING if None in pts or leaf.nan else [(p, p) for p in pts]

    def _everything(self, leaf: b.BLeaf) -> list:
        return _EVERYTHING

    # a range of the column cannot be drawn from these leaves
    visit_const = visit_opaque = visit_non_null = visit_nan_eq = _everything
    visit_is_null = visit_is_nan = visit_column_compare = visit_prefix = _everything
    visit_pattern = _everything

    def visit_and(self, node: b.BAnd, results: list[list]) -> list:
        acc = _EVERYTHING
        for ranges in results:
            acc = [(max(a, c), min(z, d)) for a, z in acc for c, d in ranges
                   if max(a, c) <= min(z, d)][:1000]
        return acc

    def visit_or(self, node: b.BOr, results: list[list]) -> list:
        return [r for ranges in results for r in ranges][:1000]

    def _whole(self, node: b.BCombinator, results: list[list]) -> list:
        return _EVERYTHING

    visit_not = visit_is_bool = visit_either = visit_widen = visit_rewritten = _whole
