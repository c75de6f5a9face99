"""A Delta log's JSON commits as action rows (``actions``), each commit in one
``pyarrow.json`` read with a schema of the fields a reader needs.

A commit that read cannot take (a field of another JSON type, a key written twice) or that
reads as more rows than it has lines is read line by line with ``json`` instead, each field
of an unexpected type as null; a commit with a line that does not start with ``{`` too
(``pyarrow.json`` must never be given a bare ``null`` first: it crashes). A line that is not
a JSON object, an action without a path, or text that is not UTF-8 is a ``StatisticsError``
naming the commit. ``commit_meta`` finds a commit's last ``metaData`` action by its key's
text and reads that line whole.

>>> text = b'{"add": {"path": "a", "size": 1}}\\n{"remove": {"path": "b"}}'
>>> rows = commit_actions("c.json", text, [])
>>> rows.column("kind").to_pylist(), rows.column("path").to_pylist()
([1, 2], ['a', 'b'])
"""

from __future__ import annotations

import json
import re

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.json as pj

from prunekit.errors import StatisticsError

from .actions import ADD, DV, REMOVE, actions, base_types, dv_columns

__all__ = ["commit_actions", "commit_meta"]


def commit_meta(name: str, data: bytes) -> dict | None:
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
        ("deletionVector", DV),
    ]
    if keys:
        add.append(("partitionValues", pa.struct([(k, pa.string()) for k in keys])))
    remove = [("path", pa.string()), ("deletionVector", DV)]
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


def commit_actions(name: str, data: bytes, keys: list[str]) -> pa.Table:
    """The commit's adds and removes, in its order."""
    count = _lines(data)
    if count is None:
        return _by_line(name, data.splitlines(), keys)
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
        return _by_line(name, data.splitlines(), keys)
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
        "kind": pa.array(np.full(len(add), ADD, np.int8)),
        "path": pc.struct_field(add, "path"),
        "size": pc.struct_field(add, "size"),
        "stats": pc.struct_field(add, "stats"),
        **dv_columns(pc.struct_field(add, "deletionVector")),
    }
    for k in keys:
        adds[f"pv:{k}"] = pc.struct_field(pc.struct_field(add, "partitionValues"), k)
    removes = {
        "kind": pa.array(np.full(len(remove), REMOVE, np.int8)),
        "path": pc.struct_field(remove, "path"),
        **dv_columns(pc.struct_field(remove, "deletionVector")),
    }
    both = pa.concat_tables([actions(adds, len(add), keys), actions(removes, len(remove), keys)])
    if both.column("path").null_count:
        raise StatisticsError(f"{name}: an add or remove action has no path")
    return both.take(order)  # back in the commit's order


def _by_line(name: str, lines: list[bytes], keys: list[str]) -> pa.Table:
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
        kind = ADD if add is not None else REMOVE if remove is not None else None
        if kind is None:
            continue
        act = add if kind == ADD else remove
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
        if kind == ADD:
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
    types = base_types(keys)
    return actions({c: pa.array([r.get(c) for r in rows], t) for c, t in types.items()},
                   len(rows), keys)


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
