"""A Delta log replayed into one Arrow table of live ``add`` actions, columnar.

``replay(root, version)`` reads the last complete checkpoint at or before the version (Parquet,
one or many parts, V2 sidecars; only the ``add`` fields a reader needs, its other rows kept
as rows of no kind rather than copied out), then the JSON commits after it
(``commits``), and keeps the live adds (``actions``, which lists the columns).
A checkpoint that cannot be read, or whose adds lack a path or (in a partitioned table) a
``partitionValues`` map, is a ``StatisticsError`` naming it.

>>> import json, os, tempfile
>>> d = tempfile.mkdtemp(); os.mkdir(os.path.join(d, "_delta_log"))
>>> schema = {"type": "struct", "fields": [{"name": "x", "type": "long"}]}
>>> log = [{"metaData": {"schemaString": json.dumps(schema), "partitionColumns": []}},
...        {"add": {"path": "b.parquet", "size": 1}}, {"add": {"path": "a%20b.parquet"}},
...        {"remove": {"path": "b.parquet"}}]
>>> with open(os.path.join(d, "_delta_log", "0" * 20 + ".json"), "w") as f:
...     f.write("\\n".join(map(json.dumps, log))) and None
>>> meta, live = replay(d, None)
>>> live.column("path").to_pylist(), local_paths(d, live.column("path")).to_pylist()[0][-11:]
(['a%20b.parquet'], 'a b.parquet')
"""

from __future__ import annotations

import os
import re
from urllib.parse import unquote, urlparse

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.parquet as pq

from prunekit.errors import StatisticsError

from .actions import ADD, actions, concat, dv_columns, live
from .commits import commit_actions, commit_meta
from .rules import layout

__all__ = ["local_paths", "partition_keys", "replay"]

_COMMIT = re.compile(r"^(\d{20})\.json$")
_CHECKPOINT = re.compile(r"^(\d{20})\.checkpoint(?:\.(\d{10})\.(\d{10}))?(?:\.[^.]+)?\.parquet$")
_CHECKPOINT_FIELDS = (
    "path",
    "size",
    "stats",
    "stats_parsed",
    "partitionValues",
    "partitionValues_parsed",
    "deletionVector",
)


def commit_versions(log: str) -> dict[int, str]:
    """{version: commit file} of a ``_delta_log`` directory."""
    return {int(m[1]): os.path.join(log, n) for n in os.listdir(log) if (m := _COMMIT.match(n))}


def replay(root: str, version: int | None) -> tuple[dict, pa.Table]:
    """(the last ``metaData`` action, the live files) of the table at ``version`` (the latest
    when None); see the module docstring for the columns."""
    log = os.path.join(root, "_delta_log")
    if not os.path.isdir(log):
        raise StatisticsError(f"{root}: not a Delta table (no _delta_log directory)")
    commits, checkpoints = {}, {}
    for name in os.listdir(log):
        if m := _COMMIT.match(name):
            commits[int(m[1])] = os.path.join(log, name)
        elif m := _CHECKPOINT.match(name):
            parts = checkpoints.setdefault((int(m[1]), int(m[3] or 1)), [])
            parts.append(os.path.join(log, name))
    known = set(commits) | {v for v, _ in checkpoints}
    if not known:
        raise StatisticsError(f"{root}: the Delta log has no commits")
    target = max(known) if version is None else version
    if target not in known:
        raise StatisticsError(
            f"{root}: no version {version} in the Delta log (versions {min(known)} to {max(known)})"
        )
    complete = [v for (v, n), parts in checkpoints.items() if len(parts) == n and v <= target]
    start = max(complete, default=-1)
    parts = []
    if start >= 0:
        n = next(n for (v, n) in checkpoints if v == start and len(checkpoints[v, n]) == n)
        parts = sorted(checkpoints[start, n])
    texts = []
    for v in range(start + 1, target + 1):
        if v not in commits:
            raise StatisticsError(f"{root}: commit {v} is missing from the Delta log")
        with open(commits[v], "rb") as f:
            texts.append((commits[v], f.read()))
    checkpoint = [_read_part(p) for p in parts]
    meta = None
    for _, t in checkpoint:
        meta = _checkpoint_meta(t) or meta
    for name, data in texts:
        meta = commit_meta(name, data) or meta
    if meta is None:
        raise StatisticsError(f"{root}: the Delta log has no metaData action")
    keys = partition_keys(meta)
    tables = []
    sidecars = []
    for part, t in checkpoint:
        tables.append(_checkpoint_actions(part, t, keys))
        sidecars += _sidecars(log, t)
    while sidecars:  # a sidecar's own sidecars after it (their metaData is not read)
        part = sidecars.pop(0)
        _, t = _read_part(part)
        tables.append(_checkpoint_actions(part, t, keys))
        sidecars += _sidecars(log, t)
    tables += [commit_actions(name, data, keys) for name, data in texts]
    return meta, live(concat(tables, keys))


def partition_keys(meta: dict) -> list[str]:
    """Physical names of the partition columns that have statistics, in schema order."""
    lay = layout(meta)
    return [keys[0] for name, (_, keys) in lay.columns.items() if name in lay.partitions]


def local_paths(root: str, paths: pa.Array) -> pa.Array:
    """Each log path as a file name: relative ones under ``root`` and URL-decoded, ``file:``
    URIs as their decoded path, other URIs as written.

    >>> local_paths("/t", pa.array(["a=1/f%201.parquet", "file:///x/y.parquet", "s3://b/k"]))
    ... # doctest: +NORMALIZE_WHITESPACE
    <pyarrow.lib.StringArray object at ...>
    [
      "/t/a=1/f 1.parquet",
      "/x/y.parquet",
      "s3://b/k"
    ]
    """
    if isinstance(paths, pa.ChunkedArray):
        paths = paths.combine_chunks()
    paths = paths.cast(pa.string())
    # Most paths are relative and plain: the root joined in one vector operation.
    odd = pc.fill_null(pc.match_substring_regex(paths, r"[%:]|^/"), True)
    base = os.path.join(root, "")
    joined = pc.binary_join_element_wise(base, paths, "")
    if not pc.any(odd).as_py():
        return joined
    fixed = [_local(root, p) for p in paths.filter(odd).to_pylist()]
    return pc.replace_with_mask(joined, odd, pa.array(fixed, pa.string()))


def _local(root: str, path: str | None) -> str | None:
    if path is None:
        return None
    url = urlparse(path)
    if not url.scheme:
        return os.path.join(root, unquote(path))
    return unquote(url.path) if url.scheme == "file" else path


# ---- checkpoints -------------------------------------------------------------------------
def _read_part(part: str) -> tuple[str, pa.Table]:
    try:
        pf = pq.ParquetFile(part)
        schema = pf.schema_arrow
        columns = []
        if "add" in schema.names and pa.types.is_struct(schema.field("add").type):
            add = schema.field("add").type
            columns += [f"add.{f.name}" for f in add if f.name in _CHECKPOINT_FIELDS]
        columns += [c for c in ("metaData", "sidecar") if c in schema.names]
        table = pf.read(columns=columns)
        for column in table.columns:  # strings in Parquet are not checked to be UTF-8
            column.validate(full=True)
    except (OSError, pa.ArrowException) as e:
        raise StatisticsError(f"{part}: cannot read the checkpoint: {e}") from None
    return part, table


def _checkpoint_meta(table: pa.Table) -> dict | None:
    if "metaData" not in table.column_names:
        return None
    column = table.column("metaData").combine_chunks()
    rows = np.flatnonzero(column.is_valid().to_numpy(zero_copy_only=False))
    if not len(rows):
        return None
    meta = column[int(rows[-1])].as_py()
    meta["configuration"] = dict(meta.get("configuration") or [])
    return meta


def _sidecars(log: str, table: pa.Table) -> list[str]:
    if "sidecar" not in table.column_names:
        return []
    paths = pc.struct_field(table.column("sidecar"), "path").drop_null().to_pylist()
    return [os.path.join(log, "_sidecars", unquote(p)) for p in paths]


def _checkpoint_actions(part: str, table: pa.Table, keys: list[str]) -> pa.Table:
    """The checkpoint's adds as action rows (its removes are tombstones for vacuum)."""
    if "add" not in table.column_names:
        return actions({}, 0, keys)
    add = table.column("add").combine_chunks()
    # Rows of other actions stay (no copy of the texts): they are of no kind, never live.
    is_add = add.is_valid().to_numpy(zero_copy_only=False)
    fields = {f.name: c for f, c in zip(add.type, add.flatten(), strict=True)}
    n = len(add)
    path = fields.get("path")
    if (
        path is None
        or not pa.types.is_string(path.type)
        or (is_add & ~path.is_valid().to_numpy(zero_copy_only=False)).any()
    ):
        raise StatisticsError(f"{part}: an add action of the checkpoint has no path")
    out = {"kind": pa.array(np.where(is_add, ADD, 0).astype(np.int8)), "path": path}
    size = fields.get("size")
    if size is not None and pa.types.is_integer(size.type):
        out["size"] = size.cast(pa.int64())
    stats = fields.get("stats")
    if stats is not None and pa.types.is_string(stats.type):
        out["stats"] = stats
    for name in ("stats_parsed", "partitionValues_parsed"):
        if pa.types.is_struct(getattr(fields.get(name), "type", pa.null())):
            out[name] = fields[name]
    if pa.types.is_struct(getattr(fields.get("deletionVector"), "type", pa.null())):
        out.update(dv_columns(fields["deletionVector"]))
    pv = fields.get("partitionValues")
    if keys and not (
        pv is not None
        and pa.types.is_map(pv.type)
        and pa.types.is_string(pv.type.key_type)
        and pa.types.is_string(pv.type.item_type)
    ):
        raise StatisticsError(f"{part}: the checkpoint's adds have no partitionValues map")
    for k in keys:
        out[f"pv:{k}"] = _map_value(pv, k)
        parsed = out.get("partitionValues_parsed")
        if parsed is not None and parsed.type.get_field_index(k) >= 0:
            out[f"pvp:{k}"] = pc.struct_field(parsed, k)
    out.pop("partitionValues_parsed", None)
    return actions(out, n, keys)


def _map_value(m: pa.MapArray, key: str) -> pa.Array:
    """Each row's value for ``key`` (the last one if written twice); null where absent."""
    return pc.map_lookup(m, pa.scalar(key, m.type.key_type), "last").cast(pa.string())
