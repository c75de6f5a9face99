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

from prunekit.expr import bound as b

from .predicate import ALL_MATCH, NONE_MATCH, PruningPredicate
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
    for a, z in _ranges(pred._rewriter.root, column, t):
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


def _ranges(root: object, column: str, t: pa.DataType | None) -> list[tuple[float, float]]:
    """Intervals the predicate may accept on ``column`` (a superset; for display only)."""
    def leaf(x: object) -> list[tuple[float, float]]:
        col = getattr(x, "col", None)
        if col is None or col.name != column or col.convert or col.domain == "code":
            return _EVERYTHING
        if isinstance(x, b.Bound):
            v = _value(x.value, t)
            if v is None:
                return _EVERYTHING
            return [(-math.inf, v)] if x.op in ("lt", "le") else [(v, math.inf)]
        if isinstance(x, b.InRange):
            a, z = _value(x.first, t), _value(x.last, t)
            return _EVERYTHING if a is None or z is None else [(a, z)]
        if isinstance(x, b.InList):
            pts = [_value(v, t) for v in x.values]
            return _EVERYTHING if None in pts or x.nan else [(p, p) for p in pts]
        return _EVERYTHING

    # Post-order with an explicit stack: AND intersects, OR unites, anything else is everything.
    done: dict[int, list] = {}
    stack: list[tuple[object, bool]] = [(root, False)]
    while stack:
        x, expanded = stack.pop()
        kids = x.args if isinstance(x, (b.BAnd, b.BOr)) else ()
        if kids and not expanded:
            stack.append((x, True))
            stack.extend((k, False) for k in kids)
            continue
        if isinstance(x, b.BAnd):
            acc = _EVERYTHING
            for k in kids:
                acc = [(max(a, c), min(z, d)) for a, z in acc for c, d in done[id(k)]
                       if max(a, c) <= min(z, d)][:1000]
            done[id(x)] = acc
        elif isinstance(x, b.BOr):
            done[id(x)] = [r for k in kids for r in done[id(k)]][:1000]
        elif isinstance(x, (b.BNot, b.BIsBool, b.Either, b.Widen)):
            done[id(x)] = _EVERYTHING
        else:
            done[id(x)] = leaf(x)
    return done[id(root)]
