"""The shape of an Iceberg table's statistics: the snapshot and schema read, the primitive
leaves that get statistics (a field id, a statistics key, an Iceberg and an Arrow type), and
the Arrow table of the canonical layout built from per-file rows.
"""

from __future__ import annotations

from urllib.parse import urlparse

import pyarrow as pa

from prunekit.errors import StatisticsError
from prunekit.expr.paths import leaf_key, leaf_selector

from . import values

RESERVED = ("path", "size", "partition", "delete_files", "row_count")


def snapshot_of(table, snapshot_id):
    if snapshot_id is None:
        return table.metadata.current_snapshot()
    snap = table.metadata.snapshot_by_id(snapshot_id)
    if snap is None:
        raise StatisticsError(f"{table.metadata.location}: no snapshot {snapshot_id}")
    return snap


def schema_of(meta, snapshot):
    if snapshot is not None and snapshot.schema_id is not None:
        for s in meta.schemas:
            if s.schema_id == snapshot.schema_id:
                return s
    return meta.schema()


class Leaf:
    """One primitive leaf: its field id, statistics key, Iceberg type and Arrow type."""

    __slots__ = ("arrow", "field_id", "key", "kind", "no_default")

    def __init__(self, field_id, key, kind, arrow, no_default):
        self.field_id, self.key, self.kind, self.arrow = field_id, key, kind, arrow
        self.no_default = no_default


def leaves_of(schema, columns) -> list[Leaf]:
    wanted = leaf_selector(columns)
    out = []
    stack = [((), f, True) for f in reversed(schema.fields)]
    while stack:
        path, field, no_default = stack.pop()
        t = field.field_type
        no_default = no_default and getattr(field, "initial_default", None) is None
        if t.is_struct:
            stack.extend(((*path, field.name), f, no_default) for f in reversed(t.fields))
            continue
        if not t.is_primitive:
            continue  # lists and maps: no statistics
        kind = str(t)
        arrow = values.arrow_type(kind)
        key = leaf_key((*path, field.name))
        if arrow is None or not wanted(key):
            continue
        if key in RESERVED:
            raise StatisticsError(f"a data column named {key!r} clashes with the statistics "
                                  f"layout's own {key!r} column")
        out.append(Leaf(field.field_id, key, kind, arrow, no_default))
    return out


def ids_by_schema(meta) -> dict:
    return {s.schema_id: field_ids(s) for s in meta.schemas}


def field_ids(schema) -> frozenset:
    ids, stack = set(), list(schema.fields)
    while stack:
        f = stack.pop()
        ids.add(f.field_id)
        t = f.field_type
        if t.is_struct:
            stack.extend(t.fields)
        elif not t.is_primitive:  # lists and maps: their element, key and value fields
            stack.extend(getattr(t, "fields", ()))
    return frozenset(ids)


# ---- the Arrow table ----------------------------------------------------------------------
def stats_table(rows: list[tuple], leaves: list[Leaf]) -> pa.Table:
    out: dict[str, pa.Array] = {
        "path": pa.array([r[0] for r in rows], pa.string()),
        "size": pa.array([r[1] for r in rows], pa.int64()),
        "partition": pa.array([r[2] for r in rows], pa.string()),
        "delete_files": pa.array([r[3] for r in rows], pa.int32()),
        "row_count": pa.array([r[4] for r in rows], pa.int64()),
    }
    for k, leaf in enumerate(leaves):
        cells = [r[5][k] for r in rows]
        arrays = [_bounds([c[0] for c in cells], leaf.arrow),
                  _bounds([c[1] for c in cells], leaf.arrow),
                  pa.array([c[2] for c in cells], pa.int64()),
                  pa.array([c[3] for c in cells], pa.int64()),
                  pa.array([c[4] for c in cells], pa.bool_()),
                  pa.array([c[5] for c in cells], pa.bool_())]
        out[leaf.key] = pa.StructArray.from_arrays(arrays, values.FIELDS)
    return pa.table(out)


def _bounds(items: list, t: pa.DataType) -> pa.Array:
    if pa.types.is_temporal(t):  # raw integers in the type's own unit
        width = pa.int32() if t == pa.date32() else pa.int64()
        return pa.array(items, width).view(t)
    if pa.types.is_decimal(t):
        items = [None if v is None else values.fit_decimal(v, t) for v in items]
    return pa.array(items, t)


def local_path(path: str) -> str:
    """A ``file:`` location's path as pyiceberg opens it: not percent-decoded (pyiceberg
    writes partition directories such as ``s=%C3%A9`` literally)."""
    return urlparse(path).path if path.startswith("file:") else path
