"""Outcome tables: one container per row, the reason beside the expectation (STYLE.md §8).

A row is ``row(min, max, null_count, row_count, predicate, expected, why, **extra)`` for one
column (``col="x"`` by default; ``nan_count=``, ``min_exact=``, ``max_exact=`` go in ``extra``),
or ``multi(row_count, predicate, expected, why, a=(min, max, nulls), b={...})`` for several.
``None`` anywhere is an unknown statistic (an Arrow null).

``check(rows, schema, backend)`` groups the rows by predicate, builds one statistics table per
predicate (one container per row, so one compiled kernel per predicate shape), classifies it and
reports every row whose outcome differs, with its reason. With the NumPy backend each row is also
classified alone, which exercises the layouts without nulls at no compilation cost.
"""

from __future__ import annotations

from typing import Any, NamedTuple

import numpy as np
import pyarrow as pa
import pytest

import prunekit as pk

NONE, MAYBE, ALL = pk.NONE_MATCH, pk.MAYBE_MATCH, pk.ALL_MATCH
BACKENDS = ("numba", "vm", "numpy")
NAMES = {NONE: "NONE_MATCH", MAYBE: "MAYBE_MATCH", ALL: "ALL_MATCH"}
# Where docs/semantics.md only demands soundness (no row may be lost), either of these is right: a
# container holding a matching row must not be NONE_MATCH, whether or not ALL_MATCH is proven.
NOT_NONE = (MAYBE, ALL)
# Where no row matches but pruning is not demanded (an expression prunekit need not support).
NOT_ALL = (NONE, MAYBE)
OPTIONAL = ("nan_count", "min_exact", "max_exact")

# A column (or row_count) that a container's statistics table does not carry at all.
ABSENT = object()


class Row(NamedTuple):
    stats: dict[str, Any]  # {"row_count": n, column: {"min": .., "max": .., ...}}
    predicate: Any  # SQL text or a prunekit expression
    expected: int | tuple[int, ...]  # one outcome, or the acceptable ones
    why: str


def row(mn, mx, nulls, rows, predicate, expected, why, col="x", **extra) -> Row:
    """One container with statistics for one column."""
    bad = set(extra) - set(OPTIONAL)
    assert not bad, f"unknown statistics {bad}"
    return Row({"row_count": rows, col: {"min": mn, "max": mx, "null_count": nulls, **extra}},
               predicate, expected, why)


def multi(rows, predicate, expected, why, **columns) -> Row:
    """One container with statistics for several columns: ``a=(min, max, nulls)`` or a dict."""
    stats: dict[str, Any] = {"row_count": rows}
    for name, value in columns.items():
        if isinstance(value, tuple):
            value = dict(zip(("min", "max", "null_count"), value, strict=True))
        stats[name] = value
    return Row(stats, predicate, expected, why)


def label(predicate) -> str:
    return predicate if isinstance(predicate, str) else "builder: " + predicate.sql()


def groups(rows: list[Row]) -> list[list[Row]]:
    """Rows grouped by predicate: SQL by its text, a builder tree by identity."""
    out: dict[object, list[Row]] = {}
    for r in rows:
        k = r.predicate if isinstance(r.predicate, str) else id(r.predicate)
        out.setdefault(k, []).append(r)
    return list(out.values())


def by_predicate(rows: list[Row]) -> list:
    """pytest params, one per distinct predicate, with the SQL text as the test id."""
    return [pytest.param(g, id=label(g[0].predicate)) for g in groups(rows)]


def stats_table(containers: list[dict], schema: pa.Schema) -> pa.Table:
    """The canonical statistics layout for these containers (one per row)."""
    n = len(containers)
    arrays: dict[str, pa.Array] = {}
    if any(c.get("row_count", ABSENT) is not ABSENT for c in containers):
        arrays["row_count"] = pa.array(
            [c.get("row_count") if c.get("row_count") is not ABSENT else None
             for c in containers], pa.int64())
    for field in schema:
        per = [c.get(field.name, ABSENT) for c in containers]
        if all(p is ABSENT for p in per):
            continue
        present = [p for p in per if p is not ABSENT]
        names = ["min", "max", "null_count"] + [o for o in OPTIONAL
                                                if any(o in p for p in present)]
        children = []
        for stat in names:
            t = field.type if stat in ("min", "max") else (
                pa.bool_() if stat.endswith("_exact") else pa.int64())
            values = [None if p is ABSENT else p.get(stat) for p in per]
            children.append(pa.array(values, t))
        mask = pa.array([p is ABSENT for p in per])
        arrays[field.name] = pa.StructArray.from_arrays(children, names, mask=mask)
    if not arrays:
        arrays["row_count"] = pa.nulls(n, pa.int64())
    return pa.table(arrays)


def classify(predicate, schema, containers, backend="numba", **options) -> np.ndarray:
    """Outcomes of ``predicate`` for these containers; checks the invariants of every answer."""
    pred = pk.PruningPredicate(predicate, schema)
    stats = pk.Statistics.from_arrow(stats_table(containers, schema), **options)
    out = pred.classify(stats, backend=backend)
    assert isinstance(out, np.ndarray) and out.dtype == np.int8, out
    assert len(out) == len(containers)
    assert set(out.tolist()) <= {NONE, MAYBE, ALL}, out  # never NULL, never anything else
    if backend == "numba":
        assert (pred.prune(stats) == (out != NONE)).all()
    return out


def check(rows: list[Row], schema: pa.Schema, backend: str, **options) -> None:
    """Assert every row's expected outcome; the message lists each wrong row with its reason."""
    wrong = []
    for group in groups(rows):
        k = label(group[0].predicate)
        got = classify(group[0].predicate, schema, [r.stats for r in group], backend, **options)
        if backend == "numpy":  # each container alone too: other layouts, no compile cost
            alone = [classify(r.predicate, schema, [r.stats], backend, **options)[0]
                     for r in group]
            for r, g, a in zip(group, got, alone, strict=True):
                if g != a:
                    wrong.append(f"{k}: {r.stats} -> {NAMES[g]} in a table but {NAMES[a]} "
                                 "alone")
        for r, g in zip(group, got, strict=True):
            ok = r.expected if isinstance(r.expected, tuple) else (r.expected,)
            if g not in ok:
                want = " or ".join(NAMES[o] for o in ok)
                wrong.append(f"{k}: {r.stats} -> {NAMES[g]}, expected {want} ({r.why})")
    assert not wrong, "\n".join(wrong)


def container_of(values: list, t: pa.DataType, name: str = "x") -> pk.Statistics:
    """Exact statistics of one container holding ``values`` (None is NULL) in column ``name``.

    >>> container_of([3, None, 1], pa.int64()).table.column("x").to_pylist()
    [{'min': 1, 'max': 3, 'null_count': 1}]
    """
    return containers_of([values], t, name)


def containers_of(containers: list[list], t: pa.DataType, name: str = "x") -> pk.Statistics:
    """Exact statistics of containers, each holding its list of values (None is NULL).

    >>> containers_of([[3, None], [None]], pa.int64()).table.column("x").to_pylist()
    [{'min': 3, 'max': 3, 'null_count': 1}, {'min': None, 'max': None, 'null_count': 1}]
    """
    present = [[v for v in values if v is not None] for values in containers]
    col = {"min": pa.array([min(p) if p else None for p in present], t),
           "max": pa.array([max(p) if p else None for p in present], t),
           "null_count": pa.array([len(v) - len(p) for v, p in zip(containers, present,
                                                                    strict=True)], pa.int64())}
    return pk.Statistics.from_arrow(pa.table({
        "row_count": [len(v) for v in containers],
        name: pa.StructArray.from_arrays(list(col.values()), list(col))}))

