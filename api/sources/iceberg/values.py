"""Iceberg values for ``prunekit.sources.iceberg``: column types as Arrow types, bounds decoded
from Iceberg's single-value binary serialization, and the range of the source column that a
partition value pins down through its transform.

Values are kept in a *raw* form that Arrow builds arrays from without Python objects per
temporal value: integers for booleans aside, dates (days), times and timestamps (their unit
since midnight or the epoch); ``decimal.Decimal`` for decimals; ``str`` and ``bytes``.
Anything that cannot be read soundly is None (unknown), never a guess.
"""

from __future__ import annotations

import datetime as dt
import decimal
import math
import re
import struct

import pyarrow as pa

from ..strings import successor

# The statistics fields of an Iceberg leaf, in the canonical order.
FIELDS = ["min", "max", "null_count", "nan_count", "min_exact", "max_exact"]

__all__ = ["arrow_type", "decode_bound", "intersect", "partition_range", "raw_value"]

_SIMPLE = {
    "boolean": pa.bool_(), "int": pa.int32(), "long": pa.int64(), "float": pa.float32(),
    "double": pa.float64(), "date": pa.date32(), "time": pa.time64("us"),
    "timestamp": pa.timestamp("us"), "timestamptz": pa.timestamp("us", "UTC"),
    "timestamp_ns": pa.timestamp("ns"), "timestamptz_ns": pa.timestamp("ns", "UTC"),
    "string": pa.string(), "uuid": pa.binary(), "binary": pa.binary(),
}
_DECIMAL = re.compile(r"^decimal\((\d+),\s*(\d+)\)$")
_FIXED = re.compile(r"^fixed\[(\d+)\]$")
_TRUNCATE = re.compile(r"^truncate\[(\d+)\]$")
_INT_RANGE = {"int": (-(1 << 31), (1 << 31) - 1), "long": (-(1 << 63), (1 << 63) - 1)}
# Units per day of the types a temporal transform can apply to.
_PER_DAY = {"date": 1, "timestamp": 86_400 * 10**6, "timestamptz": 86_400 * 10**6,
            "timestamp_ns": 86_400 * 10**9, "timestamptz_ns": 86_400 * 10**9}
_EPOCH = dt.date(1970, 1, 1)


def arrow_type(kind: str) -> pa.DataType | None:
    """The Arrow type of an Iceberg primitive type (its string form); None for types prunekit
    has no statistics for (nested, ``unknown``, ``variant``, geospatial, decimals beyond 38).

    >>> arrow_type("decimal(10, 2)"), arrow_type("fixed[3]"), arrow_type("variant")
    (Decimal128Type(decimal128(10, 2)), DataType(binary), None)
    """
    if m := _DECIMAL.match(kind):
        p, s = int(m[1]), int(m[2])
        return pa.decimal128(p, s) if 0 < p <= 38 and 0 <= s <= p else None
    if _FIXED.match(kind):
        return pa.binary()
    return _SIMPLE.get(kind)


def decode_bound(kind: str, data: bytes | None, upper: bool):
    """A bound from Iceberg's single-value serialization, in raw form; None when it is missing
    or malformed (a wrong length, invalid UTF-8, a decimal beyond its precision, NaN). Integers
    and floats are little-endian; a 4-byte bound of a ``long`` or ``double`` column was written
    before the column was promoted from ``int`` or ``float``. A zero float bound stands for
    both zeros (docs/semantics.md §4): a lower one is -0.0, an upper one +0.0.

    >>> decode_bound("long", (7).to_bytes(8, "little", signed=True), upper=False)
    7
    >>> decode_bound("long", (-7).to_bytes(4, "little", signed=True), upper=False)  # was int
    -7
    >>> decode_bound("decimal(5, 2)", bytes([0xff, 0x85]), upper=True)  # -123 unscaled
    Decimal('-1.23')
    >>> decode_bound("int", b"\\x01\\x00", upper=False) is None  # wrong length: unknown
    True
    """
    if data is None:
        return None
    if not isinstance(data, bytes):
        data = bytes(data)
    n = len(data)
    if kind == "boolean":
        return None if n != 1 or data[0] > 1 else bool(data[0])
    if kind in ("int", "date"):
        return int.from_bytes(data, "little", signed=True) if n == 4 else None
    if kind in ("long", "time", "timestamp", "timestamptz", "timestamp_ns", "timestamptz_ns"):
        if n == 8 or (n == 4 and kind == "long"):
            return int.from_bytes(data, "little", signed=True)
        return None
    if kind in ("float", "double"):
        if n == 4:
            v = struct.unpack("<f", data)[0]
        elif n == 8 and kind == "double":
            v = struct.unpack("<d", data)[0]
        else:
            return None
        if math.isnan(v):
            return None
        return (0.0 if upper else -0.0) if v == 0 else v
    if m := _DECIMAL.match(kind):
        p, s = int(m[1]), int(m[2])
        if not 1 <= n <= 16:
            return None
        unscaled = int.from_bytes(data, "big", signed=True)
        return decimal.Decimal(unscaled).scaleb(-s) if abs(unscaled) < 10**p else None
    if kind == "string":
        try:
            return data.decode("utf-8")
        except UnicodeDecodeError:
            return None
    if kind == "uuid":
        return data if n == 16 else None
    if m := _FIXED.match(kind):
        return data if n == int(m[1]) else None
    if kind == "binary":
        return data
    return None


def raw_value(kind: str, value):
    """A partition value as pyiceberg hands it over (an ``int`` for dates, times and
    timestamps, ``uuid.UUID`` or ``bytes``...), in raw form; None if it does not fit the type.

    >>> import uuid
    >>> raw_value("uuid", uuid.UUID(int=1)) == bytes(15) + b"\\x01"
    True
    >>> raw_value("date", dt.date(1970, 1, 3)), raw_value("int", "x")
    (2, None)
    """
    if value is None:
        return None
    if kind == "boolean":
        return value if isinstance(value, bool) else None
    if isinstance(value, bool):
        return None
    if kind in _INT_RANGE or kind in ("time",) or kind in _PER_DAY:
        if isinstance(value, dt.date) and not isinstance(value, dt.datetime) and kind == "date":
            return (value - _EPOCH).days
        return value if isinstance(value, int) else None
    if kind in ("float", "double"):
        return float(value) if isinstance(value, (int, float)) and value == value else None
    if m := _DECIMAL.match(kind):
        return value if isinstance(value, decimal.Decimal) and value.is_finite() and \
            abs(value.scaleb(int(m[2]))) < 10 ** int(m[1]) else None
    if kind == "string":
        return value if isinstance(value, str) else None
    if kind == "uuid":
        value = getattr(value, "bytes", value)
    if isinstance(value, (bytes, bytearray)):
        return bytes(value)
    return None


def partition_range(transform: str, kind: str, value) -> tuple | None:
    """``(lo, hi, exact)``: every non-NULL source value of a file whose partition value is
    ``value`` lies in ``[lo, hi]`` (raw form); ``exact`` when both are values the file holds
    (identity, a truncation shorter than its width, a day of a date). None where the transform
    gives no range (``bucket``, ``void``, an unknown one) or the value does not fit.

    >>> partition_range("month", "date", 650)  # 2024-03: its days since the epoch
    (19783, 19813, False)
    >>> partition_range("truncate[3]", "string", "ab")  # shorter than the width: not cut
    ('ab', 'ab', True)
    >>> partition_range("truncate[2]", "string", "ab")  # every string starting with "ab"
    ('ab', 'ac', False)
    >>> partition_range("truncate[10]", "long", -20), partition_range("bucket[4]", "long", 3)
    ((-20, -11, False), None)
    """
    if transform == "identity":
        v = raw_value(kind, value)
        return None if v is None else (v, v, True)
    if transform in ("year", "month", "day", "hour"):
        return _period(transform, kind, value)
    if m := _TRUNCATE.match(transform):
        return _truncated(int(m[1]), kind, value)
    return None


def _period(unit: str, kind: str, value) -> tuple | None:
    if kind not in _PER_DAY or isinstance(value, bool):
        return None
    if isinstance(value, dt.date) and not isinstance(value, dt.datetime):
        value = (value - _EPOCH).days
    if not isinstance(value, int):
        return None
    per_day = _PER_DAY[kind]
    try:
        if unit in ("year", "month"):
            months = value * 12 if unit == "year" else value
            step = 12 if unit == "year" else 1
            start = _month_start(months)
            end = _month_start(months + step)
            lo, hi = start * per_day, end * per_day - 1
        elif unit == "day":
            lo, hi = value * per_day, (value + 1) * per_day - 1
        else:  # hour: of timestamps only
            if kind == "date":
                return None
            per_hour = per_day // 24
            lo, hi = value * per_hour, (value + 1) * per_hour - 1
    except (OverflowError, ValueError):
        return None
    low, high = _INT_RANGE["long"] if kind != "date" else _INT_RANGE["int"]
    if hi < low or lo > high:
        return None
    return max(lo, low), min(hi, high), lo == hi


def _month_start(months: int) -> int:
    """Days since the epoch of the first day of the month ``months`` after January 1970."""
    year, month = divmod(months, 12)
    return (dt.date(1970 + year, month + 1, 1) - _EPOCH).days


def _truncated(width: int, kind: str, value) -> tuple | None:
    if width <= 0:
        return None
    if kind in _INT_RANGE:
        v = raw_value(kind, value)
        if v is None:
            return None
        return v, min(v + width - 1, _INT_RANGE[kind][1]), width == 1
    if m := _DECIMAL.match(kind):
        v = raw_value(kind, value)
        if v is None:
            return None
        step = decimal.Decimal(width - 1).scaleb(-int(m[2]))
        hi = v + step
        if abs(hi.scaleb(int(m[2]))) >= 10 ** int(m[1]):
            hi = None
        return (v, hi, width == 1) if hi is not None else None
    if kind in ("string", "binary"):
        v = raw_value(kind, value)
        if v is None:
            return None
        if len(v) < width:  # not cut: the source value is the partition value
            return v, v, True
        nxt = successor(v)
        return None if nxt is None else (v, nxt, False)
    return None


def intersect(cell: list, kind: str, r) -> None:
    """Intersect a cell ``[min, max, null_count, nan_count, min_exact, max_exact]`` (raw
    values) with a partition range ``(lo, hi, exact)`` (None: no range), in place.

    >>> cell = [3, 90, 0, None, True, True]
    >>> intersect(cell, "long", (10, 19, False)); cell
    [10, 19, 0, None, False, False]
    >>> cell = [None, None, 0, None, False, False]
    >>> intersect(cell, "long", (7, 7, True)); cell
    [7, 7, 0, None, True, True]
    """
    if r is None:
        return
    lo, hi, exact = r
    if kind in ("float", "double") and lo == 0:
        lo, hi = -0.0, 0.0
    if cell[0] is None or _above(lo, cell[0]):
        cell[0], cell[4] = lo, exact
    elif lo == cell[0]:
        cell[4] = cell[4] or exact
    if cell[1] is None or _above(cell[1], hi):
        cell[1], cell[5] = hi, exact
    elif hi == cell[1]:
        cell[5] = cell[5] or exact
    if cell[0] is not None and cell[0] == cell[1] and cell[4] != cell[5]:
        cell[4] = cell[5] = True  # true bounds that meet: every value is that one


def _above(a, b) -> bool:
    try:
        return a > b
    except TypeError:
        return False


def fit_decimal(v: decimal.Decimal | None, t: pa.Decimal128Type) -> decimal.Decimal | None:
    """``v`` as a value of DECIMAL type ``t``, or None if it has more fractional digits.

    >>> fit_decimal(decimal.Decimal("1.50"), pa.decimal128(5, 1)), fit_decimal(
    ...     decimal.Decimal("1.25"), pa.decimal128(5, 1))
    (Decimal('1.5'), None)
    """
    if v is None:
        return None
    q = v.quantize(decimal.Decimal(1).scaleb(-t.scale))
    return q if q == v else None
