"""Parquet bloom filters of row groups, as the ``bloom`` statistic (``prunekit.statistics``).

pyarrow writes split-block bloom filters (``pq.write_table(..., bloom_filter_options=...)``)
and gives each column chunk's ``bloom_filter_offset``/``bloom_filter_length``, but does not read
them. At the offset lies a ``BloomFilterHeader`` in Thrift's compact protocol, then the bitset.
A filter is kept only when everything about it is what prunekit hashes literals as:

- the header says split-block, XXH64 and uncompressed, and the bitset is whole 32-byte blocks;
- the file's column has the Arrow type of the statistics table, and its physical type is the
  one ``prunekit.conformance.bloom_encoding`` derives from that type (timestamps in the same unit: a
  file in milliseconds read as ``timestamp[s]`` hashed other values than the literal's).

Anything else is a NULL filter (unknown), never a guess.

>>> import os, tempfile, pyarrow as pa, pyarrow.parquet as pq, prunekit as pk
>>> from prunekit.parquet import row_group_statistics
>>> path = os.path.join(tempfile.mkdtemp(), "a.parquet")
>>> pq.write_table(pa.table({"k": ["a", "b", "c", "d"]}), path, row_group_size=2,
...                bloom_filter_options={"k": {"ndv": 10}})
>>> stats = row_group_statistics(path, bloom_filters=True)
>>> pk.PruningPredicate("k = 'c'", {"k": pa.string()}).classify(stats).tolist()
[0, 1]
"""

from __future__ import annotations

import json
from collections.abc import Iterable

import pyarrow as pa
import pyarrow.parquet as pq

from prunekit.conformance import BLOCK, bloom_encoding
from prunekit.errors import StatisticsError

_PHYSICAL = {"i32": ("INT32",), "i64": ("INT64",), "f32": ("FLOAT",), "f64": ("DOUBLE",),
             "bytes": ("BYTE_ARRAY", "FIXED_LEN_BYTE_ARRAY")}
_UNITS = {"milliseconds": "ms", "microseconds": "us", "nanoseconds": "ns"}
_HEADER_GUESS = 64  # a BloomFilterHeader is ~15 bytes


def attach_bloom_filters(table: pa.Table, columns: bool | Iterable[str] = True) -> pa.Table:
    """``table`` (from ``row_group_statistics``, with ``file`` and ``row_group``) with a
    ``bloom`` field added to the statistics of ``columns`` (True: every column).

    >>> import pyarrow as pa
    >>> t = pa.table({"file": pa.array([], pa.string()), "row_group": pa.array([], pa.int32()),
    ...               "row_count": pa.array([], pa.int64())})
    >>> attach_bloom_filters(t, ["nope"])
    Traceback (most recent call last):
    prunekit.errors.StatisticsError: bloom_filters names columns without statistics: ['nope']
    """
    have = [f.name for f in table.schema if pa.types.is_struct(f.type)]
    wanted = have if columns is True else list(columns)
    unknown = sorted(set(wanted) - set(have))
    if unknown:
        raise StatisticsError(f"bloom_filters names columns without statistics: {unknown}")
    files = table.column("file").to_pylist()
    groups = table.column("row_group").to_pylist()
    found: dict[str, dict] = {}
    for path in dict.fromkeys(files):
        found[path] = read_bloom_filters(path, {c: _min_type(table, c) for c in wanted})
    for name in wanted:
        filters = pa.array([found[f].get((g, name)) for f, g in zip(files, groups, strict=True)],
                           pa.binary())
        struct = table.column(name).combine_chunks()
        children = struct.flatten()
        names = [struct.type.field(i).name for i in range(struct.type.num_fields)]
        keep = [i for i, n in enumerate(names) if n != "bloom"]
        arr = pa.StructArray.from_arrays([children[i] for i in keep] + [filters],
                                         [names[i] for i in keep] + ["bloom"])
        table = table.set_column(table.schema.get_field_index(name), name, arr)
    return table


def _min_type(table: pa.Table, name: str) -> pa.DataType:
    return table.schema.field(name).type.field("min").type


def read_bloom_filters(path: str, types: dict[str, pa.DataType]) -> dict:
    """{(row group, column): bitset} for the columns of ``types`` (name -> the statistics'
    Arrow type) whose filters this file has and prunekit can use (module docstring)."""
    meta = pq.read_metadata(path)
    try:
        arrow = meta.schema.to_arrow_schema()
    except (pa.ArrowException, ValueError):
        return {}
    usable = {}
    for i in range(meta.num_columns):
        c = meta.schema.column(i)
        if c.max_repetition_level or "." in c.path or c.path not in types:
            continue
        index = arrow.get_field_index(c.path)
        file_type = arrow.field(index).type if index >= 0 else None
        if pa.types.is_dictionary(file_type):
            file_type = file_type.value_type
        if _hashable(c, file_type, types[c.path]):
            usable[c.path] = i
    out: dict = {}
    if not usable:
        return out
    with open(path, "rb") as f:
        for r in range(meta.num_row_groups):
            rg = meta.row_group(r)
            for name, i in usable.items():
                chunk = rg.column(i)
                offset, length = chunk.bloom_filter_offset, chunk.bloom_filter_length
                if offset is None or offset <= 0:
                    continue
                out[(r, name)] = _read_one(f, offset, length)
    return out


def _hashable(c: pq.ColumnSchema, file_type: pa.DataType | None, t: pa.DataType) -> bool:
    """The file stores ``t`` values in the physical type whose bytes the literals hash as."""
    kind = bloom_encoding(t)
    if kind is None or file_type is None or c.physical_type not in _PHYSICAL[kind]:
        return False
    if file_type != t and not (kind == "bytes" and bloom_encoding(file_type) == "bytes"):
        return False
    logical = json.loads(c.logical_type.to_json())
    if pa.types.is_timestamp(t) or pa.types.is_time64(t) or pa.types.is_time32(t):
        return _UNITS.get(logical.get("timeUnit")) == t.unit
    return True


def _read_one(f, offset: int, length: int | None) -> bytes | None:
    f.seek(offset)
    data = f.read(length if length and length > 0 else _HEADER_GUESS)
    try:
        fields, end = _compact_struct(data, 0)
    except (IndexError, ValueError):
        return None
    size = fields.get(1)
    # The unions must name SPLIT_BLOCK (1), XXHASH (1) and UNCOMPRESSED (1).
    if not isinstance(size, int) or size <= 0 or size % BLOCK or any(
            fields.get(k) != {1} for k in (2, 3, 4)):
        return None
    if len(data) < end + size:
        data = data[:end] + f.read(end + size - len(data))
    bitset = data[end: end + size]
    return bitset if len(bitset) == size else None


# ---- Thrift compact protocol: just enough for BloomFilterHeader ---------------------------
def _varint(data: bytes, i: int) -> tuple[int, int]:
    out = shift = 0
    while True:
        b = data[i]
        i += 1
        out |= (b & 0x7F) << shift
        if not b & 0x80:
            return out, i
        shift += 7
        if shift > 63:
            raise ValueError("varint too long")


def _zigzag(n: int) -> int:
    return (n >> 1) ^ -(n & 1)


def _compact_struct(data: bytes, i: int, depth: int = 0) -> tuple[dict, int]:
    """Top-level fields of a struct: integers as values, structs as the set of their field
    ids (a union's member), others skipped. Returns (fields, index after the stop byte)."""
    if depth > 8:
        raise ValueError("nested too deep")
    fields: dict = {}
    last = 0
    while True:
        head = data[i]
        i += 1
        if head == 0:
            return fields, i
        delta, kind = head >> 4, head & 0x0F
        if delta:
            fid = last + delta
        else:
            raw, i = _varint(data, i)
            fid = _zigzag(raw)
        last = fid
        value, i = _compact_value(data, i, kind, depth)
        fields[fid] = value


def _compact_value(data: bytes, i: int, kind: int, depth: int):
    if kind in (1, 2):  # booleans live in the type nibble
        return kind == 1, i
    if kind == 3:
        return data[i], i + 1
    if kind in (4, 5, 6):
        raw, i = _varint(data, i)
        return _zigzag(raw), i
    if kind == 7:
        return None, i + 8
    if kind == 8:
        n, i = _varint(data, i)
        return None, i + n
    if kind in (9, 10):
        head = data[i]
        i += 1
        n, elem = head >> 4, head & 0x0F
        if n == 15:
            n, i = _varint(data, i)
        for _ in range(n):
            _, i = _compact_value(data, i, elem, depth + 1)
        return None, i
    if kind == 12:
        inner, i = _compact_struct(data, i, depth + 1)
        return set(inner), i
    raise ValueError(f"unsupported compact type {kind}")
