"""The canonical statistics table of a Delta snapshot's live files, built column by column.

Every file's JSON ``stats`` text is read at once (``stats_json``); rows of a checkpoint
with ``stats_parsed`` are read from it, typed, instead. Bounds then follow ``values``
(vector rules). What those leave out goes, one file at a time, to
``rules.file_cells``, the definition of every rule: whole files whose text
``stats_json`` could not or must not read, single odd cells of the others (only those
cells are replaced).

Partition columns are read once per distinct value text (``rules.partition_cell``), or
from ``partitionValues_parsed`` where a checkpoint types them (never for a TIMESTAMP, whose
text says whether a zone was written).

>>> import pyarrow as pa
>>> from prunekit.sources.delta.rules import Layout
>>> stats = '{"numRecords": 2, "minValues": {"x": 1}, "maxValues": {"x": NaN}}'
>>> live = pa.table({"path": ["a"], "size": [1], "dv": [False],
...                  "dv_cardinality": pa.array([None], pa.int64()), "stats": [stats]})
>>> t = table("/t", live, Layout({"x": (pa.float64(), ("x",))}, set(), 32))
>>> t.column("x").to_pylist()   # read by the exact rules: Python's json reads NaN
[{'min': 1.0, 'max': nan, 'null_count': None, 'min_exact': True, 'max_exact': True}]
"""

from __future__ import annotations

import json

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from .log import local_paths
from .rules import FIELDS, Layout, file_cells, jsonable, partition_cell
from .stats_json import guard_decimals, read_stats
from .values import bounds, partition_bounds

__all__ = ["table"]


def table(root: str, live: pa.Table, lay: Layout) -> pa.Table:
    """The statistics table (``prunekit.sources.delta``'s layout) of the live files
    ``log.replay`` returns, in its order."""
    n = live.num_rows
    dv = live.column("dv").to_numpy()
    cardinality = live.column("dv_cardinality").combine_chunks()
    typed = (
        _valid(live.column("stats_parsed"))
        if "stats_parsed" in live.column_names
        else np.zeros(n, bool)
    )
    leaves = [
        (name, t, keys) for name, (t, keys) in lay.columns.items() if name not in lay.partitions
    ]
    texts = live.column("stats").combine_chunks()
    if typed.any():
        texts = pc.if_else(pa.array(typed), pa.scalar(None, pa.string()), texts)
    parsed, doubles, failed = read_stats(texts, leaves)
    sources = [(parsed, ~typed)]
    if typed.any():
        sources.append((live.column("stats_parsed").combine_chunks(), typed))

    records = _merge([_count(_section(s, "numRecords")) for s, _ in sources], sources)
    loose = _merge([_loose(_section(s, "tightBounds")) for s, _ in sources], sources)
    tight = ~np.asarray(loose, bool) & ~dv
    rows = _row_counts(records, dv, cardinality)

    columns = {}
    for name, t, keys in leaves:
        parts = []
        for section, upper in (("minValues", False), ("maxValues", True)):
            read = []
            for k, (source, _) in enumerate(sources):
                raw, unsafe = _leaf(source, section, keys), None
                if k == 0 and pa.types.is_decimal(t):
                    raw, unsafe = guard_decimals(raw, _leaf(doubles, section, keys), t)
                values, exact, odd = bounds(raw, t, lay.prefix, upper)
                read.append((values, exact, odd if unsafe is None else odd | unsafe))
            parts += [_merge([r[i] for r in read], sources) for i in range(3)]
        nulls = [_count(_leaf(s, "nullCount", keys)) for s, _ in sources]
        columns[name] = parts + [_merge(nulls, sources)]

    # Files and cells the vector rules leave to the exact ones.
    odd = failed.copy()
    for parts in columns.values():
        odd |= parts[2] | parts[5]
    exact = {}
    for r in np.flatnonzero(odd):
        exact[r] = file_cells(
            _text(live, int(r), typed[r]), bool(dv[r]), cardinality[int(r)].as_py(), lay
        )
    fixed = np.flatnonzero(failed)
    rows = _patch(rows, fixed, [exact[r][0] for r in fixed], pa.int64())
    tight[fixed] = [exact[r][1] for r in fixed]

    out = {
        "path": local_paths(root, live.column("path").combine_chunks()),
        "size": live.column("size").combine_chunks(),
        "row_count": rows,
    }
    for name, (t, keys) in lay.columns.items():
        if name in lay.partitions:
            out[name] = _partition_column(live, keys[0], t, rows)
            continue
        lo, lo_exact, lo_odd, hi, hi_exact, hi_odd, nulls = columns[name]
        parts = []
        for values, flags, redo, i in ((lo, lo_exact, lo_odd, 0), (hi, hi_exact, hi_odd, 1)):
            at = np.flatnonzero(redo | failed)
            valid = values.is_valid().to_numpy(zero_copy_only=False)
            flags = pa.array(flags & tight, mask=~valid)
            parts.append(
                (
                    _patch(values, at, [exact[r][2][name][i] for r in at], t),
                    _patch(flags, at, [exact[r][2][name][3 + i] for r in at], pa.bool_()),
                )
            )
        nulls = pc.if_else(pa.array(tight), nulls, pa.scalar(None, pa.int64()))
        nulls = _patch(nulls, fixed, [exact[r][2][name][2] for r in fixed], pa.int64())
        (lo, lo_exact), (hi, hi_exact) = parts
        out[name] = pa.StructArray.from_arrays([lo, hi, nulls, lo_exact, hi_exact], FIELDS)
    return pa.table(out)


def _valid(column) -> np.ndarray:
    return column.is_valid().to_numpy(zero_copy_only=False) if len(column) else np.zeros(0, bool)


def _text(live: pa.Table, r: int, typed: bool):
    """A file's stats as JSON text (a typed checkpoint row as the JSON log would say it)."""
    if not typed:
        return live.column("stats")[r].as_py()
    try:
        return json.dumps(live.column("stats_parsed")[r].as_py(), default=jsonable)
    except (TypeError, ValueError, OverflowError):  # values Python cannot hold: unknown
        return None


def _merge(parts: list, sources: list):
    """One array from per-source arrays, each source's own rows taken from it."""
    out = parts[0]
    for part, (_, rows) in zip(parts[1:], sources[1:], strict=True):
        if isinstance(out, np.ndarray):
            out = np.where(rows, part, out)
        else:
            out = pc.if_else(pa.array(rows), part, out)
    return out


def _patch(values, at: np.ndarray, new: list, t: pa.DataType) -> pa.Array:
    """``values`` with the rows ``at`` replaced by ``new``."""
    if not len(at):
        return values
    index = np.full(len(values), len(at), np.int64)
    index[at] = np.arange(len(at))
    spread = pa.array(new + [None], t).take(pa.array(index))
    mask = np.zeros(len(values), bool)
    mask[at] = True
    return pc.if_else(pa.array(mask), spread, values)


# ---- one source's columns ----------------------------------------------------------------
def _section(source, name: str) -> pa.Array:
    """A top-level field of a statistics source (a table or a struct array); nulls if absent."""
    if isinstance(source, pa.Table):
        if name in source.column_names:
            return source.column(name).combine_chunks()
    elif source.type.get_field_index(name) >= 0:
        return pc.struct_field(source, name)
    return pa.nulls(len(source))


def _leaf(source, section: str, keys: tuple) -> pa.Array:
    node = _section(source, section)
    for key in keys:
        if not pa.types.is_struct(node.type) or node.type.get_field_index(key) < 0:
            return pa.nulls(len(source))
        node = pc.struct_field(node, key)
    return node


def _count(raw) -> pa.Array:
    """A count (``numRecords``, a null count): a non-negative integer, else unknown."""
    if not pa.types.is_integer(raw.type):
        return pa.nulls(len(raw), pa.int64())
    if raw.type == pa.uint64():
        raw = pc.if_else(pc.greater(raw, 2**63 - 1), pa.scalar(None, raw.type), raw)
    raw = raw.cast(pa.int64())
    return pc.if_else(pc.less(raw, 0), pa.scalar(None, pa.int64()), raw)


def _loose(raw) -> np.ndarray:
    """``tightBounds`` is false (only a boolean false makes bounds loose)."""
    if not pa.types.is_boolean(raw.type):
        return np.zeros(len(raw), bool)
    return pc.fill_null(pc.invert(raw), False).to_numpy(zero_copy_only=False)


def _row_counts(records: pa.Array, dv: np.ndarray, cardinality: pa.Array) -> pa.Array:
    """``numRecords`` less the deletion vector's cardinality (unknown if that is not a count
    within it)."""
    if not dv.any():
        return records
    less = pc.subtract(records, cardinality)
    ok = pc.and_(pc.greater_equal(cardinality, 0), pc.greater_equal(less, 0))
    kept = pc.if_else(ok, less, pa.scalar(None, pa.int64()))
    return pc.if_else(pa.array(dv), kept, records)


# ---- partition columns -------------------------------------------------------------------
def _partition_column(live: pa.Table, key: str, t: pa.DataType, rows: pa.Array):
    texts = live.column(f"pv:{key}").combine_chunks()
    encoded = pc.dictionary_encode(texts)
    cells = [partition_cell(v, t, None) for v in encoded.dictionary.to_pylist()]
    index = encoded.indices
    lo, hi, nulls, lo_exact, hi_exact = (
        pa.array([c[i] for c in cells], t if i < 2 else pa.int64() if i == 2 else pa.bool_()).take(
            index
        )
        for i in range(5)
    )
    absent = texts.is_null()  # NULL on every row of the file
    nulls = pc.if_else(absent, rows, nulls)
    lo_exact = pc.if_else(absent, True, lo_exact)
    hi_exact = pc.if_else(absent, True, hi_exact)
    if f"pvp:{key}" in live.column_names:
        low, high, usable = partition_bounds(live.column(f"pvp:{key}").combine_chunks(), t)
        given = pc.fill_null(pc.not_equal(texts, ""), False).to_numpy(zero_copy_only=False)
        use = pa.array(usable & given)
        lo, hi = pc.if_else(use, low, lo), pc.if_else(use, high, hi)
        nulls = pc.if_else(use, 0, nulls)
        lo_exact, hi_exact = pc.if_else(use, True, lo_exact), pc.if_else(use, True, hi_exact)
    return pa.StructArray.from_arrays([lo, hi, nulls, lo_exact, hi_exact], FIELDS)
