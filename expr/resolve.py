"""Name resolution of column paths against a data schema with struct columns.

A reference names a top-level column and then, for a struct, a field at each further part:
``address.city`` is ``("address", "city")``. Each part resolves as Spark's default
(case-insensitive) resolver does: an exact match wins, else the one case-insensitive match;
two case-insensitive matches and no exact one is an error, never a guess.

The statistics column of what a path reaches is ``leaf_key(path)`` (``expr/paths.py``), with
the schema's own spelling of every part.

>>> import pyarrow as pa
>>> schema = pa.schema([("Address", pa.struct([("city", pa.string())])), ("a.b", pa.int8())])
>>> resolve(schema, ("address", "CITY"))
(('Address', 'city'), DataType(string))
>>> leaves(schema)
{'Address.city': DataType(string), '`a.b`': DataType(int8)}
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping, Sequence

import pyarrow as pa

from prunekit.errors import StatisticsError, TypeMismatchError, UnknownColumnError
from prunekit.expr.paths import leaf_key, split_leaf_key


def _pick(name: str, names: Sequence[str]) -> str | None:
    if name in names:
        return name
    matches = [m for m in names if m.lower() == name.lower()]
    return matches[0] if len(matches) == 1 else None


def _error(message: str, name: str, known: list[str], what: str = "columns"
           ) -> UnknownColumnError:
    e = UnknownColumnError(name, known)
    hint = e.args[0][len(f"unknown column {name!r}"):].replace("; columns are", f"; {what} are")
    e.args = (message + hint,)
    return e


def resolve(schema: pa.Schema, parts: Sequence[str]) -> tuple[tuple[str, ...], pa.DataType]:
    """The schema's spelling of the path ``parts`` and the type it reaches (a struct for a path
    that stops above the leaves). Raises UnknownColumnError naming the part that fails.

    >>> resolve(pa.schema([("p", pa.struct([("m", pa.struct([("v", pa.int32())]))]))]),
    ...         ["p", "m"])
    (('p', 'm'), StructType(struct<v: int32>))
    >>> resolve(pa.schema([("x", pa.int8())]), ["t", "x"])
    Traceback (most recent call last):
    ...
    prunekit.errors.UnknownColumnError: unknown column 't' in t.x; a dotted name reads a \
field of a struct column, and a table qualifier is not accepted; columns are ['x']
    """
    names = schema.names
    first = _pick(parts[0], names)
    if first is None:
        if len(parts) == 1:
            raise UnknownColumnError(parts[0], list(names))
        text = ".".join(parts)
        hint = (f"; a column whose name holds '.' is written in backticks: {leaf_key([text])}"
                if _pick(text, names) else
                "; a dotted name reads a field of a struct column, and a table qualifier is "
                "not accepted")
        raise _error(f"unknown column {parts[0]!r} in {text}{hint}", parts[0], list(names))
    path, t = [first], schema.field(first).type
    for part in parts[1:]:
        if not pa.types.is_struct(t):
            raise TypeMismatchError(f"{leaf_key(path)} has type {t}, not a struct: it has no "
                                    f"field {part!r}")
        fields = [t.field(i).name for i in range(t.num_fields)]
        got = _pick(part, fields)
        if got is None:
            raise _error(f"unknown field {part!r} of struct {leaf_key(path)}", part, fields,
                         "its fields")
        path.append(got)
        t = t.field(got).type
    return tuple(path), t


def walk_leaves(path: tuple[str, ...], t: pa.DataType
                ) -> Iterator[tuple[tuple[str, ...], pa.DataType]]:
    """Every leaf below ``path`` of type ``t`` (itself if ``t`` is not a struct), in order.

    >>> list(walk_leaves(("s",), pa.struct([("a", pa.int8()), ("b", pa.struct([]))])))
    [(('s', 'a'), DataType(int8))]
    """
    stack = [(path, t)]
    while stack:
        p, u = stack.pop()
        if pa.types.is_struct(u):
            stack.extend(reversed([((*p, u.field(i).name), u.field(i).type)
                                   for i in range(u.num_fields)]))
        else:
            yield p, u


def leaves(schema: pa.Schema) -> dict[str, pa.DataType]:
    """``{leaf_key(path): type}`` of every leaf of ``schema`` (struct fields flattened)."""
    return {leaf_key(p): t for f in schema for p, t in walk_leaves((f.name,), f.type)}


def nest(leaf_types: Mapping[str, pa.DataType]) -> pa.Schema:
    """A schema with struct columns from leaf keys and their types (the inverse of
    :func:`leaves`); a key that is also a prefix of another key is an error.

    >>> nest({"a.x": pa.int8(), "a.y": pa.string(), "`a.b`": pa.bool_()})
    a: struct<x: int8, y: string>
      child 0, x: int8
      child 1, y: string
    a.b: bool
    """
    tree: dict = {}
    for key, t in leaf_types.items():
        *parents, last = split_leaf_key(key)
        node = tree
        for p in parents:
            node = node.setdefault(p, {})
            if not isinstance(node, dict):
                raise StatisticsError(f"statistics column {key!r} lies below leaf {p!r}")
        if last in node:
            raise StatisticsError(f"statistics column {key!r} is both a leaf and a struct")
        node[last] = t

    def build(node: dict) -> list[pa.Field]:
        return [pa.field(k, pa.struct(build(v)) if isinstance(v, dict) else v)
                for k, v in node.items()]

    return pa.schema(build(tree))
