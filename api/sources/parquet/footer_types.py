"""Which Parquet columns have usable bounds, and how to decode them (a spec for
``prunekit.sources.parquet.footer_values.decode``); the one Arrow type of a column over many files.

>>> bytes_like(pa.large_binary()), bytes_like(pa.int32())
(True, False)
"""

from __future__ import annotations

import json
from collections.abc import Iterable
from typing import TYPE_CHECKING

import pyarrow as pa

if TYPE_CHECKING:  # pyarrow.parquet costs 40-100 ms to import (footer_schema.read_metadata)
    import pyarrow.parquet as pq

from prunekit.errors import StatisticsError

_SIGNED_PHYSICAL = ("BOOLEAN", "INT32", "INT64", "FLOAT", "DOUBLE")
_UNIT = {"seconds": 1, "milliseconds": 1_000, "microseconds": 1_000_000,
         "nanoseconds": 1_000_000_000}
_ARROW_UNIT = {"s": 1, "ms": 1_000, "us": 1_000_000, "ns": 1_000_000_000}

_DECODERS: dict = {}  # (physical type, logical type, Arrow type, typed order) -> spec


def decoder(c: pq.ColumnSchema, t: pa.DataType, typed: bool) -> tuple | None:
    """How to decode bounds of column ``c`` into Arrow type ``t`` (a spec for
    ``footer_values.decode``); None when they cannot be read exactly. ``typed``: the file says
    the column's order is type-defined (bounds in ``min_value``/``max_value``), else only the
    deprecated ``min``/``max`` exist, ordered as signed values.

    >>> import pyarrow.parquet as pq
    >>> sink = pa.BufferOutputStream()
    >>> pq.write_table(pa.table({"d": pa.array([1], pa.date32())}), sink)
    >>> c = pq.ParquetFile(pa.BufferReader(sink.getvalue())).schema.column(0)  # INT32, Date
    >>> decoder(c, pa.date64(), True), decoder(c, pa.string(), True)
    (('scale', 4, 86400000), None)
    """
    key = (c.physical_type, c.logical_type.to_json(), t, typed)
    if key not in _DECODERS:
        _DECODERS[key] = _choose(c.physical_type, json.loads(key[1]), t, typed)
    return _DECODERS[key]


def _choose(phys: str, logical: dict, t: pa.DataType, typed: bool) -> tuple | None:
    kind = logical.get("Type")
    unsigned = kind == "Int" and not logical.get("isSigned", True)
    if phys == "INT96" or not (typed or (phys in _SIGNED_PHYSICAL and not unsigned)):
        return None  # INT96 has no defined order; deprecated bounds order signed only
    width = {"INT32": 4, "INT64": 8}.get(phys)
    if pa.types.is_decimal(t):
        if kind != "Decimal" or logical.get("scale") != t.scale:
            return None
        if width or phys in ("BYTE_ARRAY", "FIXED_LEN_BYTE_ARRAY"):
            return ("decimal", width is None)  # big-endian unless INT32/INT64
        return None
    if pa.types.is_integer(t) and width and kind in ("Int", "None"):
        return ("int", width, unsigned)
    if pa.types.is_floating(t) and not pa.types.is_float16(t) and phys in ("FLOAT", "DOUBLE"):
        size = 4 if phys == "FLOAT" else 8
        # NaN is no bound; a zero bound stands for both zeros (docs/semantics.md §4).
        return ("float", size) if size <= t.bit_width // 8 else None
    if pa.types.is_boolean(t) and phys == "BOOLEAN":
        return ("bool",)
    if pa.types.is_date32(t) and kind == "Date" and width == 4:
        return ("int", 4, False)
    if pa.types.is_date64(t) and kind == "Date" and width == 4:
        return ("scale", 4, 86_400_000)
    if pa.types.is_timestamp(t) and kind == "Timestamp" and width == 8:
        have, want = _UNIT[logical["timeUnit"]], _ARROW_UNIT[t.unit]
        if have == want:
            return ("int", 8, False)
        if have < want:
            return ("scale", 8, want // have)
        return ("div", have // want)  # a finer file unit: round outwards
    if bytes_like(t) and phys in ("BYTE_ARRAY", "FIXED_LEN_BYTE_ARRAY") and \
            kind in ("String", "None", "Enum", "Json", "Bson"):
        return ("bytes",)
    return None


def bytes_like(t: pa.DataType) -> bool:
    """Whether ``t`` holds strings or binary of any layout, whose bounds are raw bytes.

    >>> bytes_like(pa.string_view()), bytes_like(pa.binary(4)), bytes_like(pa.decimal128(5, 2))
    (True, True, False)
    """
    return (pa.types.is_string(t) or pa.types.is_large_string(t) or pa.types.is_binary(t)
            or pa.types.is_large_binary(t) or pa.types.is_fixed_size_binary(t)
            or t in (pa.string_view(), pa.binary_view()))


def _family(t: pa.DataType) -> str | None:
    if t in (pa.string(), pa.large_string(), pa.string_view()):
        return "string"
    if t in (pa.binary(), pa.large_binary(), pa.binary_view()):
        return "binary"
    return None


def unify(read: Iterable[tuple[str, dict]]) -> dict[str, pa.DataType]:
    """One type per column over (path, types) of all files (first appearance order).

    >>> unify([("a.parquet", {"s": pa.string()}), ("b.parquet", {"s": pa.large_string()})])
    {'s': DataType(large_string)}
    >>> unify([("a.parquet", {"x": pa.int32()}), ("b.parquet", {"x": pa.int64()})])
    Traceback (most recent call last):
    ...
    prunekit.errors.StatisticsError: column 'x' is int32 in a.parquet but int64 in b.parquet
    """
    types: dict[str, pa.DataType] = {}
    where: dict[str, str] = {}
    for path, file_types in read:
        for name, t in file_types.items():
            have = types.get(name)
            if have is None or pa.types.is_null(have):
                types[name], where[name] = t, path
            elif have != t and not pa.types.is_null(t):
                if _family(have) is not None and _family(have) == _family(t):
                    if pa.types.is_large_string(t) or pa.types.is_large_binary(t):
                        types[name] = t
                    continue
                raise StatisticsError(f"column {name!r} is {have} in {where[name]} but {t} in "
                                      f"{path}")
    return types
