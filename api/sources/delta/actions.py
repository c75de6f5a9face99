"""Actions of a Delta log as rows of one Arrow table, and which adds are live.

Every source (checkpoint parts, sidecars, JSON commits) gives rows with the same columns:
``kind`` (``ADD``, ``REMOVE``, or 0 for a checkpoint row of another action), ``path`` (as
the log writes it), ``size``, ``stats`` (the JSON text), ``dv`` (a deletion vector is
there), ``dv_storageType``, ``dv_pathOrInlineDv``, ``dv_offset``, ``dv_cardinality``,
``pv:<name>`` per partition column (its value's text) and, from checkpoints, typed
``stats_parsed`` and ``pvp:<name>``. ``live`` keeps the adds whose key (the path URL-decoded
and the deletion vector's storage type, path or inline data, and offset) has an add as its
last action, sorted by path, then by when the key was last added.

>>> import pyarrow as pa
>>> rows = actions({"kind": pa.array([ADD, ADD, REMOVE], pa.int8()),
...                 "path": pa.array(["b", "a%20x", "b"])}, 3, [])
>>> live(rows).column("path").to_pylist()
['a%20x']
"""

from __future__ import annotations

from urllib.parse import unquote

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

__all__ = ["ADD", "DV", "REMOVE", "actions", "base_types", "concat", "dv_columns", "live"]

ADD, REMOVE = 1, 2
DV = pa.struct(
    [
        ("storageType", pa.string()),
        ("pathOrInlineDv", pa.string()),
        ("offset", pa.int64()),
        ("cardinality", pa.int64()),
    ]
)


def dv_columns(dv) -> dict:
    """The deletion vector struct as ``dv`` and ``dv_*`` columns (a field of another type:
    null)."""
    out = {"dv": dv.is_valid()}
    for name, t in ((f.name, f.type) for f in DV):
        column = pc.struct_field(dv, name) if dv.type.get_field_index(name) >= 0 else None
        fits = column is not None and (
            pa.types.is_string(column.type)
            if t == pa.string()
            else pa.types.is_integer(column.type)
        )
        out["dv_" + name] = column.cast(t) if fits else pa.nulls(len(dv), t)
    return out


def base_types(keys: list[str]) -> dict:
    """The columns every source gives, by type."""
    return {
        "kind": pa.int8(),
        "path": pa.string(),
        "size": pa.int64(),
        "stats": pa.string(),
        "dv": pa.bool_(),
        "dv_storageType": pa.string(),
        "dv_pathOrInlineDv": pa.string(),
        "dv_offset": pa.int64(),
        "dv_cardinality": pa.int64(),
        **{f"pv:{k}": pa.string() for k in keys},
    }


def actions(columns: dict, n: int, keys: list[str]) -> pa.Table:
    """Action rows with every base column (nulls where a source has none) plus typed ones."""
    out = {}
    for c, t in base_types(keys).items():
        v = columns.get(c)
        out[c] = pa.nulls(n, t) if v is None else v.cast(t)
    out["dv"] = pc.fill_null(out["dv"], False)
    for c, v in columns.items():
        if c not in out:
            out[c] = v
    return pa.table(out)


def concat(tables: list[pa.Table], keys: list[str]) -> pa.Table:
    """The sources' rows, in order (typed columns unified, or dropped if they cannot be)."""
    if not tables:
        return actions({}, 0, keys)
    try:
        return pa.concat_tables(tables, promote_options="permissive")
    except (pa.ArrowInvalid, pa.ArrowTypeError, pa.ArrowNotImplementedError):
        # Checkpoint parts typing stats_parsed differently: their JSON stats are used.
        base = list(base_types(keys))
        return pa.concat_tables([t.select(base) for t in tables])


# Besides the path, what names a file's version (a deletion vector's storage, path or inline
# data, and offset): columns only ``live`` reads.
_KEY_PARTS = ("dv_storageType", "dv_pathOrInlineDv", "dv_offset")


def _codes(column: pa.ChunkedArray) -> np.ndarray:
    """Small integers naming the distinct values of ``column`` (null its own value)."""
    encoded = pc.dictionary_encode(column.combine_chunks())
    return pc.fill_null(encoded.indices, -1).to_numpy(zero_copy_only=False).astype(np.int64)


def live(rows: pa.Table) -> pa.Table:
    """Adds whose key's last action is an add, sorted by path then by when added."""
    kind = rows.column("kind").to_numpy()  # 0: a checkpoint row of another action
    n = rows.num_rows
    path = rows.column("path").combine_chunks()
    encoded = pc.fill_null(pc.match_substring(path, "%"), False)
    any_encoded = pc.any(encoded).as_py()
    plain = not any_encoded and all(rows.column(c).null_count == n for c in _KEY_PARTS)
    if plain and not (kind == REMOVE).any():
        # Adds only (a checkpoint): sorted by path, live unless a path comes twice.
        order = pc.sort_indices(path).to_numpy()
        order = order[kind[order] == ADD]
        ordered = path.take(pa.array(order))
        m = len(order)
        if m < 2 or not pc.any(pc.equal(ordered.slice(1), ordered.slice(0, m - 1))).as_py():
            return rows.take(pa.array(order)).drop_columns(["kind", *_KEY_PARTS])
    if any_encoded:  # a path is matched URL-decoded
        decoded = [unquote(p) for p in path.filter(encoded).to_pylist()]
        path = pc.replace_with_mask(path, encoded, pa.array(decoded, pa.string()))
    key = _codes(pa.chunked_array([path]))
    for c in _KEY_PARTS:
        if rows.column(c).null_count < n:  # most logs have no deletion vectors
            part = _codes(rows.column(c))
            key = np.unique(key * (n + 2) + part + 1, return_inverse=True)[1].reshape(-1)
    seq = np.arange(n)
    order = np.lexsort((seq, key))
    k = key[order]
    first = np.r_[True, k[1:] != k[:-1]] if n else np.zeros(0, bool)
    last = np.r_[k[1:] != k[:-1], True] if n else np.zeros(0, bool)
    kind = kind[order]
    start = np.maximum.accumulate(np.where(first, seq, 0))  # where each key's run starts
    removed = np.maximum.accumulate(np.where(kind == REMOVE, seq, -1))
    # A key's place among equal paths: its first add after its last remove (Python's dict
    # order when a removed key is added again).
    since = np.where(removed >= start, removed + 1, start)
    live = last & (kind == ADD)
    winners = order[live]
    added = order[since[live]]
    by = pa.table({"path": rows.column("path").take(winners), "added": added})
    final = winners[pc.sort_indices(by, [("path", "ascending"), ("added", "ascending")])]
    # one copy of the texts, in their final order
    return rows.take(final).drop_columns(["kind", *_KEY_PARTS])
