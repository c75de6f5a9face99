"""A Delta log replayed into one Arrow table of live ``add`` actions, columnar.

``replay(root, version)`` reads the last complete checkpoint at or before the version (Parquet,
one or many parts, V2 sidecars; only the ``add`` fields a reader needs), then the JSON commits
after it, each in one ``pyarrow.json`` read; adds and removes are matched by key (the path
URL-decoded and the deletion vector's storage type, path or inline data, and offset) with
NumPy: a key's last action decides whether the file is live, and its last add is the file.
The result is sorted by the add's path, then by when the key was (last) added.

Columns of the result: ``path`` (as the log writes it), ``size``, ``stats`` (the JSON text),
``dv`` (whether the file has a deletion vector), ``dv_cardinality``, ``pv:<name>`` per
partition column (its value's text, by physical name) and, where a checkpoint has them,
``stats_parsed`` and ``pvp:<name>`` (typed). A commit ``pyarrow.json`` cannot read as
expected is read line by line with ``json`` instead; a line that is not a JSON object, an
action without a path, or text that is not UTF-8 is a ``StatisticsError`` naming the file.

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

import json
import os
import re
from urllib.parse import unquote, urlparse

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.json as pj
import pyarrow.parquet as pq

from prunekit.errors import StatisticsError

from ._delta_rules import layout

__all__ = ["local_paths", "partition_keys", "replay"]

_COMMIT = re.compile(r"^(\d{20})\.json$")
_CHECKPOINT = re.compile(r"^(\d{20})\.checkpoint(?:\.(\d{10})\.(\d{10}))?(?:\.[^.]+)?\.parquet$")
_ADD, _REMOVE = 1, 2
_DV = pa.struct(
    [
        ("storageType", pa.string()),
        ("pathOrInlineDv", pa.string()),
        ("offset", pa.int64()),
        ("cardinality", pa.int64()),
    ]
)
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
        meta = _commit_meta(name, data) or meta
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
    tables += [_commit_actions(name, data, keys) for name, data in texts]
    return meta, _live(_concat(tables, keys))


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
        return _actions({}, 0, keys)
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
    out = {"kind": pa.array(np.where(is_add, _ADD, 0).astype(np.int8)), "path": path}
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
        out.update(_dv_columns(fields["deletionVector"]))
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
    return _actions(out, n, keys)


def _map_value(m: pa.MapArray, key: str) -> pa.Array:
    """Each row's value for ``key`` (the last one if written twice); null where absent."""
    offsets = m.offsets.to_numpy()
    lo, hi = offsets[0], offsets[-1]
    keys = m.keys.slice(lo, hi - lo)
    hit = np.flatnonzero(pc.fill_null(pc.equal(keys, key), False).to_numpy(zero_copy_only=False))
    parent = np.searchsorted(offsets, hit + lo, side="right") - 1
    last = np.r_[parent[1:] != parent[:-1], True] if len(parent) else parent.astype(bool)
    at = np.full(len(m), -1, np.int64)
    at[parent[last]] = hit[last]
    index = pa.array(at, mask=at < 0)
    return m.items.slice(lo, hi - lo).take(index).cast(pa.string())


def _dv_columns(dv) -> dict:
    out = {"dv": dv.is_valid()}
    for name, t in (
        ("storageType", pa.string()),
        ("pathOrInlineDv", pa.string()),
        ("offset", pa.int64()),
        ("cardinality", pa.int64()),
    ):
        column = pc.struct_field(dv, name) if dv.type.get_field_index(name) >= 0 else None
        fits = column is not None and (
            pa.types.is_string(column.type)
            if t == pa.string()
            else pa.types.is_integer(column.type)
        )
        out["dv_" + name] = column.cast(t) if fits else pa.nulls(len(dv), t)
    return out


# ---- JSON commits ------------------------------------------------------------------------
def _commit_meta(name: str, data: bytes) -> dict | None:
    """The commit's last ``metaData`` action (found by its key's text, then read whole)."""
    if b'"metaData"' not in data:
        return None
    meta = None
    for number, line in enumerate(data.splitlines(), 1):
        if b'"metaData"' in line:
            action = _json_line(name, number, line)
            if action.get("add") or action.get("remove"):
                continue
            meta = action.get("metaData") or meta
    if meta is not None and not isinstance(meta, dict):
        raise StatisticsError(f"{name}: a metaData action is not a JSON object")
    return meta


def _json_line(name: str, number: int, line: bytes) -> dict:
    try:
        action = json.loads(line)
    except (ValueError, RecursionError):
        raise StatisticsError(f"{name}: line {number} is not JSON") from None
    if not isinstance(action, dict):
        raise StatisticsError(f"{name}: line {number} is not a JSON object")
    return action


def _action_schema(keys: list[str]) -> pa.Schema:
    add = [
        ("path", pa.string()),
        ("size", pa.int64()),
        ("stats", pa.string()),
        ("deletionVector", _DV),
    ]
    if keys:
        add.append(("partitionValues", pa.struct([(k, pa.string()) for k in keys])))
    remove = [("path", pa.string()), ("deletionVector", _DV)]
    return pa.schema([("add", pa.struct(add)), ("remove", pa.struct(remove))])


def _lines(data: bytes) -> int | None:
    """How many lines hold text, when each starts with ``{`` (else None: read line by line;
    pyarrow.json must never be given a bare ``null`` first)."""
    text = np.frombuffer(data, np.uint8)
    breaks = np.flatnonzero((text == 10) | (text == 13))
    starts = np.r_[0, breaks + 1]
    first = text[starts[starts < len(text)]]
    brace = first == ord("{")
    if not (brace | (first == 10) | (first == 13)).all():
        return None
    return int(brace.sum())


def _commit_actions(name: str, data: bytes, keys: list[str]) -> pa.Table:
    count = _lines(data)
    if count is None:
        return _commit_actions_by_line(name, data.splitlines(), keys)
    try:
        table = pj.read_json(
            pa.BufferReader(data),
            parse_options=pj.ParseOptions(
                explicit_schema=_action_schema(keys), unexpected_field_behavior="ignore"
            ),
        )
    except pa.ArrowInvalid:
        table = None
    if table is None or table.num_rows != count:
        return _commit_actions_by_line(name, data.splitlines(), keys)
    add, remove = (table.column(c).combine_chunks() for c in ("add", "remove"))
    try:
        add.validate(full=True)
        remove.validate(full=True)
    except pa.ArrowInvalid:
        raise StatisticsError(f"{name}: the commit is not UTF-8 text") from None
    is_add = add.is_valid()
    is_remove = pc.and_(pc.invert(is_add), remove.is_valid())
    add, remove = add.filter(is_add), remove.filter(is_remove)
    order = np.argsort(
        np.r_[
            np.flatnonzero(is_add.to_numpy(zero_copy_only=False)),
            np.flatnonzero(is_remove.to_numpy(zero_copy_only=False)),
        ],
        kind="stable",
    )
    adds = {
        "kind": pa.array(np.full(len(add), _ADD, np.int8)),
        "path": pc.struct_field(add, "path"),
        "size": pc.struct_field(add, "size"),
        "stats": pc.struct_field(add, "stats"),
        **_dv_columns(pc.struct_field(add, "deletionVector")),
    }
    for k in keys:
        adds[f"pv:{k}"] = pc.struct_field(pc.struct_field(add, "partitionValues"), k)
    removes = {
        "kind": pa.array(np.full(len(remove), _REMOVE, np.int8)),
        "path": pc.struct_field(remove, "path"),
        **_dv_columns(pc.struct_field(remove, "deletionVector")),
    }
    both = pa.concat_tables([_actions(adds, len(add), keys), _actions(removes, len(remove), keys)])
    if both.column("path").null_count:
        raise StatisticsError(f"{name}: an add or remove action has no path")
    return both.take(order)  # back in the commit's order


def _commit_actions_by_line(name: str, lines: list[bytes], keys: list[str]) -> pa.Table:
    """The same rows read with ``json``, each field of an unexpected JSON type as null."""
    rows = []
    for number, line in enumerate(lines, 1):
        if not line.strip():
            continue
        try:
            line.decode("utf-8")
        except UnicodeDecodeError:
            raise StatisticsError(f"{name}: the commit is not UTF-8 text") from None
        action = _json_line(name, number, line)
        add, remove = action.get("add"), action.get("remove")
        kind = _ADD if add is not None else _REMOVE if remove is not None else None
        if kind is None:
            continue
        act = add if kind == _ADD else remove
        if not isinstance(act, dict) or not isinstance(act.get("path"), str):
            raise StatisticsError(f"{name}: line {number}: an add or remove action has no path")
        dv = act.get("deletionVector")
        dvd = dv if isinstance(dv, dict) else {}
        row = {
            "kind": kind,
            "path": act["path"],
            "dv": dv is not None,
            "dv_storageType": _typed(dvd.get("storageType"), str),
            "dv_pathOrInlineDv": _typed(dvd.get("pathOrInlineDv"), str),
            "dv_offset": _typed(dvd.get("offset"), int),
            "dv_cardinality": _typed(dvd.get("cardinality"), int),
        }
        if kind == _ADD:
            row["size"] = _typed(act.get("size"), int)
            row["stats"] = _escaped(_typed(act.get("stats"), str))
            pv = act.get("partitionValues")
            pv = pv if isinstance(pv, dict) else {}
            for k in keys:  # a value of another JSON type: unknown, as "" is
                v = pv.get(k)
                row[f"pv:{k}"] = v if v is None or isinstance(v, str) else ""
        if any(isinstance(v, str) and _SURROGATE.search(v) for v in row.values()):
            raise StatisticsError(
                f"{name}: line {number}: a path or partition value is not "
                f"Unicode text (a lone surrogate)"
            )
        rows.append(row)
    columns = {c: [r.get(c) for r in rows] for c in _base_types(keys)}
    return _actions(
        {c: pa.array(v, _base_types(keys)[c]) for c, v in columns.items()}, len(rows), keys
    )


_SURROGATE = re.compile("[\ud800-\udfff]")


def _escaped(stats: str | None) -> str | None:
    """A stats text as UTF-8: a lone surrogate (the JSON line escaped it; a writer cut a
    UTF-16 pair) written back as its JSON escape, which the stats' own JSON reads as the same
    character. After a backslash it could not stand in a JSON text: no statistics."""
    if stats is None or not _SURROGATE.search(stats):
        return stats
    if re.search("\\\\[\ud800-\udfff]", stats):
        return "{}"
    return _SURROGATE.sub(lambda m: f"\\u{ord(m[0]):04x}", stats)


def _typed(v, kind):
    ok = type(v) is kind and (kind is not int or -(2**63) <= v < 2**63)
    return v if ok else None


# ---- all actions -------------------------------------------------------------------------
def _base_types(keys: list[str]) -> dict:
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


def _actions(columns: dict, n: int, keys: list[str]) -> pa.Table:
    """Action rows with every base column (nulls where a source has none) plus typed ones."""
    out = {}
    for c, t in _base_types(keys).items():
        v = columns.get(c)
        out[c] = pa.nulls(n, t) if v is None else v.cast(t)
    out["dv"] = pc.fill_null(out["dv"], False)
    for c, v in columns.items():
        if c not in out:
            out[c] = v
    return pa.table(out)


def _concat(tables: list[pa.Table], keys: list[str]) -> pa.Table:
    if not tables:
        return _actions({}, 0, keys)
    try:
        return pa.concat_tables(tables, promote_options="permissive")
    except (pa.ArrowInvalid, pa.ArrowTypeError, pa.ArrowNotImplementedError):
        # Checkpoint parts typing stats_parsed differently: their JSON stats are used.
        base = list(_base_types(keys))
        return pa.concat_tables([t.select(base) for t in tables])


def _codes(column: pa.ChunkedArray) -> np.ndarray:
    """Small integers naming the distinct values of ``column`` (null its own value)."""
    encoded = pc.dictionary_encode(column.combine_chunks())
    return pc.fill_null(encoded.indices, -1).to_numpy(zero_copy_only=False).astype(np.int64)


def _live(actions: pa.Table) -> pa.Table:
    """Adds whose key's last action is an add, sorted by path then by when added."""
    kind = actions.column("kind").to_numpy()  # 0: a checkpoint row of another action
    n = actions.num_rows
    path = actions.column("path").combine_chunks()
    encoded = pc.fill_null(pc.match_substring(path, "%"), False)
    plain = not pc.any(encoded).as_py() and all(
        actions.column(c).null_count == n
        for c in ("dv_storageType", "dv_pathOrInlineDv", "dv_offset")
    )
    if plain and not (kind == _REMOVE).any():
        # Adds only (a checkpoint): sorted by path, live unless a path comes twice.
        order = pc.sort_indices(path).to_numpy()
        order = order[kind[order] == _ADD]
        ordered = path.take(pa.array(order))
        m = len(order)
        if m < 2 or not pc.any(pc.equal(ordered.slice(1), ordered.slice(0, m - 1))).as_py():
            out = actions.take(pa.array(order))
            return out.drop_columns(["kind", "dv_storageType", "dv_pathOrInlineDv", "dv_offset"])
    if pc.any(encoded).as_py():  # a path is matched URL-decoded
        decoded = [unquote(p) for p in path.filter(encoded).to_pylist()]
        path = pc.replace_with_mask(path, encoded, pa.array(decoded, pa.string()))
    key = _codes(pa.chunked_array([path]))
    for c in ("dv_storageType", "dv_pathOrInlineDv", "dv_offset"):
        if actions.column(c).null_count < n:  # most logs have no deletion vectors
            part = _codes(actions.column(c))
            key = np.unique(key * (n + 2) + part + 1, return_inverse=True)[1].reshape(-1)
    seq = np.arange(n)
    order = np.lexsort((seq, key))
    k = key[order]
    first = np.r_[True, k[1:] != k[:-1]] if n else np.zeros(0, bool)
    last = np.r_[k[1:] != k[:-1], True] if n else np.zeros(0, bool)
    kind = kind[order]
    start = np.maximum.accumulate(np.where(first, seq, 0))  # where each key's run starts
    removed = np.maximum.accumulate(np.where(kind == _REMOVE, seq, -1))
    # A key's place among equal paths: its first add after its last remove (Python's dict
    # order when a removed key is added again).
    since = np.where(removed >= start, removed + 1, start)
    live = last & (kind == _ADD)
    winners = order[live]
    added = order[since[live]]
    by = pa.table({"path": actions.column("path").take(winners), "added": added})
    final = winners[pc.sort_indices(by, [("path", "ascending"), ("added", "ascending")])]
    out = actions.take(final)  # one copy of the texts, in their final order
    return out.drop_columns(["kind", "dv_storageType", "dv_pathOrInlineDv", "dv_offset"])
