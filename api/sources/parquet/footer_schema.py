"""The per-file part of footer decoding: schema to leaves, ``created_by`` to a writer's rules.

Both are small and repeat across the files of a dataset, so they are Python, cached by their
bytes. The schema's Arrow types come from pyarrow itself (``to_arrow_schema`` on a footer that
holds only the schema and the stored ``ARROW:schema``, no row groups), so every type mapping of
the previous reader is kept; the leaf paths come from the schema elements the walk found.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from typing import TYPE_CHECKING

import pyarrow as pa

if TYPE_CHECKING:
    import pyarrow.parquet as pq

from prunekit.errors import StatisticsError
from prunekit.expr.paths import leaf_key

PHYSICAL = ("BOOLEAN", "INT32", "INT64", "INT96", "FLOAT", "DOUBLE", "BYTE_ARRAY",
            "FIXED_LEN_BYTE_ARRAY")
SIGNED, UNSIGNED, UNKNOWN = "signed", "unsigned", "unknown"
_REPEATED = 2
_ARROW_KEY = b"ARROW:schema"


@dataclass(frozen=True)
class Leaf:
    index: int  # the leaf's column chunk in every row group
    key: str  # leaf_key(path): the statistics column
    type: pa.DataType  # the Arrow type of its bounds
    column: pq.ColumnSchema
    sort_order: str


@dataclass(frozen=True)
class Plan:
    n_leaves: int
    leaves: tuple[Leaf, ...]  # leaves with statistics (not repeated, not nested Arrow types)
    types: dict  # key -> Arrow type
    top_level: frozenset = frozenset()  # every top-level column's name, lower-cased


def _varint(n: int) -> bytes:
    out = b""
    while n >= 0x80:
        out, n = out + bytes([(n & 0x7F) | 0x80]), n >> 7
    return out + bytes([n])


def minimal_footer(schema: bytes, arrow: bytes | None) -> bytes:
    """A Parquet file tail (``PAR1``-framed footer) with version 1, ``schema`` (the encoded
    list of SchemaElement, header included), no row groups and only ``ARROW:schema`` as key
    value metadata. Thrift compact field headers: delta 1, types i32 (5), list (9), i64 (6)."""
    meta = b"\x15\x02\x19" + schema + b"\x16\x00\x19\x0c"
    if arrow is not None:
        meta += (b"\x19\x1c\x18" + _varint(len(_ARROW_KEY)) + _ARROW_KEY + b"\x18"
                 + _varint(len(arrow)) + arrow + b"\x00")
    meta += b"\x00"
    return b"PAR1" + meta + len(meta).to_bytes(4, "little") + b"PAR1"


def sort_order(column: pq.ColumnSchema) -> str:
    """parquet-format's sort order of a leaf (pyarrow hides statistics of UNKNOWN orders)."""
    logical = column.logical_type.type
    phys = column.physical_type
    if logical in ("STRING", "ENUM", "JSON", "BSON", "UUID"):
        return UNSIGNED
    if logical == "INT":
        return SIGNED if json.loads(column.logical_type.to_json()).get("isSigned", True) \
            else UNSIGNED
    if logical in ("DECIMAL", "DATE", "TIME", "TIMESTAMP", "FLOAT16"):
        return SIGNED
    if logical not in ("NONE",):
        return UNKNOWN  # interval, null, geometry, variant, and types newer than this code
    if phys == "INT96":
        return UNKNOWN
    return UNSIGNED if phys in ("BYTE_ARRAY", "FIXED_LEN_BYTE_ARRAY") else SIGNED


def read_metadata(footer: bytes):
    """pyarrow's ``FileMetaData`` of a file tail (``pyarrow.parquet.read_metadata``).

    Through the reader ``pyarrow.parquet`` wraps, where pyarrow has it: importing
    ``pyarrow.parquet`` imports ``pyarrow.fs`` and with it ``ssl``, 40-100 ms of a one-file
    ``prunekit scan`` that reads no file through pyarrow.

    >>> import pyarrow.parquet as pq
    >>> sink = pa.BufferOutputStream()
    >>> pq.write_table(pa.table({"x": [1, 2]}), sink)
    >>> read_metadata(sink.getvalue().to_pybytes()).num_rows
    2
    """
    try:
        from pyarrow._parquet import ParquetReader
    except ImportError:  # a pyarrow that moved it: the public function, at its import cost
        import pyarrow.parquet as pq

        return pq.read_metadata(pa.BufferReader(footer))
    reader = ParquetReader()
    reader.open(pa.BufferReader(footer), pre_buffer=False)
    _ = reader.column_paths  # as ParquetFile does: a name not in UTF-8 fails here (ValueError)
    return reader.metadata


def plan(path: str, schema: bytes, arrow: bytes | None, names: list[tuple]) -> Plan:
    """The leaves of one schema. ``names``: (name bytes, num_children, repetition) per schema
    element, in footer order (the root first)."""
    try:
        meta = read_metadata(minimal_footer(schema, arrow))
        arrow_schema = meta.schema.to_arrow_schema()
    except (pa.ArrowException, OSError, ValueError) as e:
        raise StatisticsError(f"{path}: cannot map the Parquet schema to Arrow: {e}") from None
    leaves = _leaf_paths(path, names)
    if len(leaves) != meta.num_columns:
        raise StatisticsError(f"{path}: corrupt Parquet schema ({len(leaves)} leaves, pyarrow "
                              f"reads {meta.num_columns})")
    out, types = [], {}
    for i, (parts, ordinals, repeated) in enumerate(leaves):
        if repeated:
            continue  # a leaf under a list or map has no per-row bound
        t = _arrow_type(arrow_schema, ordinals)
        if t is None:
            continue
        key = leaf_key(parts)
        if key in types:
            raise StatisticsError(f"{path}: column {key!r} appears twice")
        if key in ("file", "row_group", "row_count"):
            raise StatisticsError(f"{path}: a data column named {key!r} clashes with the "
                                  f"statistics layout's own {key!r} column")
        c = meta.schema.column(i)
        types[key] = t
        out.append(Leaf(i, key, t, c, sort_order(c)))
    return Plan(meta.num_columns, tuple(out), types,
                frozenset(name.lower() for name in arrow_schema.names))


def _leaf_paths(path: str, names: list[tuple]) -> list[tuple]:
    """(name parts, child ordinals, under a repeated field) per leaf, walking the flattened
    schema (depth first, ``num_children`` per group) without recursion."""
    if not names:
        raise StatisticsError(f"{path}: corrupt Parquet schema (no root)")
    out = []
    stack = [[names[0][1], (), (), False, 0]]  # remaining, parts, ordinals, repeated, next
    for name, children, repetition in names[1:]:
        while stack and stack[-1][0] <= 0:
            stack.pop()
        if not stack:
            raise StatisticsError(f"{path}: corrupt Parquet schema (elements after the root's "
                                  "children)")
        top = stack[-1]
        top[0] -= 1
        parts = top[1] + (name.decode("utf-8", "replace"),)
        ordinals = top[2] + (top[4],)
        top[4] += 1
        repeated = top[3] or repetition == _REPEATED
        if children > 0:
            stack.append([children, parts, ordinals, repeated, 0])
        else:
            out.append((parts, ordinals, repeated))
    return out


def _arrow_type(schema: pa.Schema, ordinals: tuple) -> pa.DataType | None:
    """The Arrow type at a leaf; None for nested, extension or unmappable leaves."""
    if ordinals[0] >= len(schema):
        return None
    t = schema.field(ordinals[0]).type
    for k in ordinals[1:]:
        if not pa.types.is_struct(t) or k >= t.num_fields:
            return None
        t = t.field(k).type
    if pa.types.is_dictionary(t):
        t = t.value_type
    if pa.types.is_nested(t) or isinstance(t, pa.ExtensionType):
        return None
    return t


# ---- writer versions: which statistics pyarrow's reader (parquet-cpp) trusts ------------------
@dataclass(frozen=True)
class Writer:
    """``created_by`` read as parquet-cpp's ApplicationVersion reads it."""
    old: bool  # parquet-cpp < 1.3.0 or parquet-mr < 1.10.0: only signed orders (or min == max)
    unknown: bool  # no created_by (PARQUET-297): trusted
    pre_251: bool  # parquet-mr < 1.8.0: PARQUET-251, binary statistics wrong


_CREATED = re.compile(r"(.*?)\s+version\s*(?:([^(]*?)\s*(?:\(\s*build\s*([^)]*?)\s*\))?)?",
                      re.IGNORECASE)
_VERSION = re.compile(r"(\d+)(?:\.(\d+))?(?:\.(\d+))?")


def writer(created_by: bytes | None) -> Writer:
    """The rules for one ``created_by``.

    >>> writer(b"parquet-mr version 1.7.0 (build abc)")
    Writer(old=True, unknown=False, pre_251=True)
    >>> writer(b"parquet-cpp-arrow version 26.0.1")
    Writer(old=False, unknown=False, pre_251=False)
    """
    if created_by is None:
        return Writer(False, True, False)
    text = created_by.decode("utf-8", "replace")
    m = _CREATED.fullmatch(text) or _CREATED.match(text)
    app = (m.group(1) if m else text).strip()  # compared case-sensitively, as parquet-cpp does
    v = _VERSION.match((m.group(2) or "") if m else "")
    version = tuple(int(x or 0) for x in v.groups()) if v else (0, 0, 0)
    old = (app == "parquet-cpp" and version < (1, 3, 0)) or \
        (app == "parquet-mr" and version < (1, 10, 0))
    return Writer(old, app == "unknown", app == "parquet-mr" and version < (1, 8, 0))
