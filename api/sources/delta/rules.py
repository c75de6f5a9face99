"""Delta's statistics rules, one value at a time: the exact reading of a file's JSON ``stats``
and of a partition value (the rules are listed in ``prunekit.sources.delta``'s docstring).

The columnar replay (``stats``) reads ordinary logs with vector operations and sends
here only what it cannot read exactly: a stats text that is not the JSON it expects (``NaN``,
a bound of another JSON type, a timestamp in another spelling, ...). So these functions are
the definition; the vector paths must agree with them on every value they accept.

>>> import json, pyarrow as pa
>>> layout = Layout({"x": (pa.int64(), ("x",))}, set(), 32)
>>> file_cells(json.dumps({"numRecords": 2, "minValues": {"x": 1}}), False, None, layout)
(2, True, {'x': (1, None, None, True, None)})
"""

from __future__ import annotations

import datetime as dt
import decimal
import json
import re
from dataclasses import dataclass

import numpy as np
import pyarrow as pa

from prunekit.errors import StatisticsError
from prunekit.expr.paths import leaf_key

from ..strings import successor

RESERVED = ("path", "size", "row_count")
FIELDS = ["min", "max", "null_count", "min_exact", "max_exact"]
DAY_SLACK = 14 * 3600 * 10**6  # the widest zone offset, in µs
EPOCH = dt.datetime(1970, 1, 1, tzinfo=dt.timezone.utc)
_SIMPLE = {
    "string": pa.string(),
    "long": pa.int64(),
    "integer": pa.int32(),
    "short": pa.int16(),
    "byte": pa.int8(),
    "float": pa.float32(),
    "double": pa.float64(),
    "boolean": pa.bool_(),
    "binary": pa.binary(),
    "date": pa.date32(),
    "timestamp": pa.timestamp("us", "UTC"),
    "timestamp_ntz": pa.timestamp("us"),
}
# Wide enough for any DECIMAL(38, s) bound and the digits a writer adds beyond its scale.
_DECIMALS = decimal.Context(prec=100)
_READ_ERRORS = (ValueError, TypeError, KeyError, OverflowError, decimal.InvalidOperation)


@dataclass(frozen=True)
class Layout:
    """The statistics columns of a table: ``columns`` maps each leaf key to (Arrow type, the
    physical key path in the stats JSON), in schema order; ``partitions`` holds the leaf keys
    of partition columns; ``prefix`` is the string prefix length L."""

    columns: dict
    partitions: set
    prefix: int


def layout(meta: dict) -> Layout:
    """The columns the statistics table has, from a ``metaData`` action.

    >>> import json
    >>> s = {"type": "struct", "fields": [{"name": "a", "type": "long", "metadata": {
    ...     "delta.columnMapping.physicalName": "col-1"}}, {"name": "m", "type": "map"}]}
    >>> layout({"schemaString": json.dumps(s), "partitionColumns": [], "configuration": {
    ...     "delta.columnMapping.mode": "name"}}).columns
    {'a': (DataType(int64), ('col-1',))}
    """
    config = meta.get("configuration") or {}
    mapped = config.get("delta.columnMapping.mode", "none") != "none"
    columns: dict[str, tuple] = {}
    # Struct fields nest in minValues/maxValues/nullCount as they do in the schema; each leaf
    # becomes one statistics column keyed by its logical path (leaf_key), read by its physical
    # path (column mapping names every level).
    stack = [((), (), f) for f in reversed(json.loads(meta["schemaString"])["fields"])]
    while stack:
        path, keys, field = stack.pop()
        name = field["name"]
        key = name
        if mapped:
            key = (field.get("metadata") or {}).get("delta.columnMapping.physicalName", key)
        kind = field["type"]
        if isinstance(kind, dict) and kind.get("type") == "struct":
            stack.extend(
                ((*path, name), (*keys, key), f) for f in reversed(kind.get("fields") or ())
            )
            continue
        t = arrow_type(kind)
        if t is None:
            continue  # arrays, maps and other types: no statistics
        column = leaf_key((*path, name))
        if column in RESERVED:
            raise StatisticsError(
                f"a data column named {name!r} clashes with the "
                f"statistics layout's own {name!r} column"
            )
        columns[column] = (t, (*keys, key))
    try:
        prefix = int(config.get("delta.dataSkippingStringPrefixLength", 32))
    except ValueError:
        prefix = 32
    partitions = {leaf_key((p,)) for p in meta.get("partitionColumns") or ()}
    return Layout(columns, partitions, max(prefix, 3))


def arrow_type(kind) -> pa.DataType | None:
    """The Arrow type of a Delta primitive type name; None for types without statistics.

    >>> arrow_type("decimal(5,2)"), arrow_type("array")
    (Decimal128Type(decimal128(5, 2)), None)
    """
    if not isinstance(kind, str):
        return None
    if m := re.fullmatch(r"decimal\((\d+),\s*(\d+)\)", kind):
        p, s = int(m[1]), int(m[2])
        return pa.decimal128(p, s) if 0 < p <= 38 and s <= p else None
    return _SIMPLE.get(kind)


# ---- one file ----------------------------------------------------------------------------
def file_cells(stats, has_dv: bool, cardinality, layout: Layout) -> tuple:
    """(row count, tight, {leaf key: (min, max, null count, min exact, max exact)}) of one
    file's JSON ``stats`` text, for the columns that are not partition columns. A text that
    is not a JSON object reads as no statistics.

    >>> file_cells('{"numRecords": 5, "nullCount": {"s": 1}}', True, 2,
    ...            Layout({"s": (pa.string(), ("s",))}, set(), 32))
    (3, False, {'s': (None, None, None, None, None)})
    """
    try:
        stats = json.loads(stats, parse_float=decimal.Decimal) if stats else {}
    except (ValueError, TypeError, RecursionError):
        stats = {}
    if not isinstance(stats, dict):
        stats = {}
    rows = stats.get("numRecords")
    rows = rows if type(rows) is int and 0 <= rows < 2**63 else None
    if has_dv and rows is not None:
        ok = type(cardinality) is int and 0 <= cardinality <= rows
        rows = rows - cardinality if ok else None
    tight = stats.get("tightBounds") is not False and not has_dv
    cells = {}
    for name, (t, keys) in layout.columns.items():
        if name in layout.partitions:
            continue
        lo, hi = (get(stats.get(k), keys) for k in ("minValues", "maxValues"))
        nulls = get(stats.get("nullCount"), keys) if tight else None
        if type(nulls) is not int or not 0 <= nulls < 2**63:
            nulls = None
        lo, lo_exact = bound(lo, t, layout.prefix, upper=False)
        hi, hi_exact = bound(hi, t, layout.prefix, upper=True)
        cells[name] = (lo, hi, nulls, lo_exact and tight, hi_exact and tight)
    return rows, tight, cells


def get(values, keys: tuple):
    """The value at a leaf's path in nested statistics; None where any level is missing.

    >>> get({"a": {"b": 1}}, ("a", "b")), get({"a": 2}, ("a", "b"))
    (1, None)
    """
    for key in keys:
        values = values.get(key) if isinstance(values, dict) else None
    return values


def partition_cell(text, t: pa.DataType, rows: int | None) -> tuple:
    """(min, max, null count, min exact, max exact) of a partition column from its value's
    text (None: NULL on every row).

    >>> partition_cell("7", pa.int32(), 5), partition_cell(None, pa.int32(), 5)
    ((7, 7, 0, True, True), (None, None, 5, True, True))
    """
    if text is None:
        return None, None, rows, True, True
    if text == "" or not isinstance(text, str):  # "": null to Spark, "" to some writers
        return None, None, None, None, None
    try:
        if t == pa.string():
            return text, text, 0, True, True
        if pa.types.is_timestamp(t):
            v, zoned, _ = timestamp(text)
            if t.tz is not None and not zoned:  # session-time-zone writers: widen
                return us(v - DAY_SLACK, t), us(v + DAY_SLACK, t), 0, False, False
            return us(v, t), us(v, t), 0, True, True
        raw = (
            text
            if t in (pa.date32(), pa.binary())
            else json.loads(text, parse_float=decimal.Decimal)
        )
        (lo, lo_exact), (hi, hi_exact) = value(raw, t, False), value(raw, t, True)
    except _READ_ERRORS:
        return None, None, None, None, None
    return lo, hi, 0, lo_exact, hi_exact


# ---- one bound ---------------------------------------------------------------------------
def bound(raw, t: pa.DataType, prefix: int, upper: bool) -> tuple:
    """(bound, exact) from a JSON value; (None, None) when it cannot be read soundly.

    >>> bound("2024-01-02T10:00:00.123Z", pa.timestamp("us", "UTC"), 32, True)[0].isoformat()
    '2024-01-02T10:00:00.123999+00:00'
    """
    if raw is None or isinstance(raw, (dict, list)):
        return None, None
    try:
        if pa.types.is_string(t):
            return string(raw, prefix, upper) if isinstance(raw, str) else (None, None)
        if pa.types.is_timestamp(t):
            if not isinstance(raw, str):
                return None, None
            v, zoned, fine = timestamp(raw)
            if t.tz is None and zoned:
                return None, None
            if t.tz is not None and not zoned:  # a local time of an unknown zone: widen
                return us(v + DAY_SLACK + 999 if upper else v - DAY_SLACK, t), False
            if fine:
                return us(v, t), True
            return us(v + 999 if upper else v, t), False
        return value(raw, t, upper)
    except _READ_ERRORS:
        return None, None


def value(raw, t: pa.DataType, upper: bool) -> tuple:
    """(bound, exact) of a JSON number, boolean or date text of a non-string type.

    >>> value(decimal.Decimal("2.345"), pa.decimal128(5, 2), True)
    (Decimal('2.35'), False)
    """
    if pa.types.is_boolean(t):
        return (raw, True) if isinstance(raw, bool) else (None, None)
    if isinstance(raw, bool):
        return None, None
    if pa.types.is_integer(t):
        d = decimal.Decimal(raw) if isinstance(raw, (int, decimal.Decimal, str)) else None
        if d is None or not d.is_finite() or d != d.to_integral_value(context=_DECIMALS):
            return None, None
        bits = t.bit_width - 1
        v = int(d)
        return (v, True) if -(1 << bits) <= v < (1 << bits) else (None, None)
    if pa.types.is_decimal(t):
        d = decimal.Decimal(str(raw) if isinstance(raw, float) else raw)
        if not d.is_finite():
            return None, None
        q = d.quantize(
            decimal.Decimal(1).scaleb(-t.scale),
            decimal.ROUND_CEILING if upper else decimal.ROUND_FLOOR,
            _DECIMALS,
        )
        return (
            (q, q == d)
            if q.copy_abs() < decimal.Decimal(10) ** (t.precision - t.scale)
            else (None, None)
        )
    if pa.types.is_floating(t):
        return floating(raw, t, upper)
    if pa.types.is_date32(t) and isinstance(raw, str):
        return dt.date.fromisoformat(raw), True
    return None, None  # binary: Delta defines no bounds


def floating(raw, t: pa.DataType, upper: bool) -> tuple:
    """The float nearest the JSON text: writers print floats so that they read back exactly
    (Java's ``Float.toString``, Rust's shortest form, or the float32 as a double).

    >>> floating(decimal.Decimal("0.1"), pa.float32(), False)[0] == float(np.float32(0.1))
    True
    >>> floating(decimal.Decimal("16777217"), pa.float32(), True)  # halfway: the outer one
    (16777218.0, False)
    """
    if isinstance(raw, str):
        raw = {"NaN": "NaN", "Infinity": "Infinity", "-Infinity": "-Infinity"}[raw]
    d = decimal.Decimal(raw if not isinstance(raw, float) else repr(raw))
    if d.is_nan():
        return float("nan"), True
    v = float(d)  # correctly rounded to double
    exact = True
    if t == pa.float32():
        values, exact = float32_bounds(np.array([v]), upper)
        v, exact = float(values[0]), bool(exact[0])
    if v == 0:  # a zero bound stands for both zeros (docs/semantics.md §4)
        v = 0.0 if upper else -0.0
    return v, exact


def float32_bounds(v: np.ndarray, upper: bool) -> tuple[np.ndarray, np.ndarray]:
    """Doubles (each the nearest double to a bound's text) as float32 bounds, and whether
    each is exact. A double strictly between two float32 values is nearer one of them, and
    so is the text: that one, exact. A double exactly halfway may come from a text on either
    side (or on the midpoint: Java prints some float32 values so): the float32 on the outer
    side (above for a maximum), inexact, which bounds whatever the text was.

    >>> b, exact = float32_bounds(np.array([0.1, 1 + 2.0**-24, 1 + 2.0**-24]), False)
    >>> bool(b[0] == np.float32(0.1)), float(b[1]), exact.tolist()
    (True, 1.0, [True, False, False])
    """
    with np.errstate(over="ignore", invalid="ignore"):
        f = v.astype(np.float32)
        back = f.astype(np.float64)
        # The float32 on the other side of v, and the double halfway (exact in float64).
        other = np.nextafter(f, np.where(back < v, np.float32(np.inf), np.float32(-np.inf)))
        o = other.astype(np.float64)
        o = np.where(np.isinf(o) & np.isfinite(back), np.copysign(2.0**128, o), o)
        beyond = np.isinf(back) & np.isfinite(v)  # v rounded away to infinity
        edge = np.copysign(2.0**128 - 2.0**103, v)  # halfway between FLT_MAX and 2**128
        mid = np.where(beyond, edge, (back + o) / 2)
        tie = np.isfinite(v) & (back != v) & (v == mid)
        pair = np.stack([back, other.astype(np.float64)])
        outer = pair.max(axis=0) if upper else pair.min(axis=0)
    return np.where(tie, outer, back), ~tie


_TS = re.compile(
    r"^(\d{4}-\d{2}-\d{2})[T ](\d{2}):(\d{2})(?::(\d{2})(?:\.(\d{1,9}))?)?"
    r"(Z|[+-]\d{2}:?\d{2})?$"
)


def timestamp(text: str) -> tuple[int, bool, bool]:
    """(µs since the epoch, had a zone, has sub-millisecond digits).

    >>> timestamp("1970-01-01T01:00:00.5+01:00")
    (500000, True, False)
    """
    m = _TS.match(text.strip())
    if not m:
        raise ValueError(text)
    day = dt.date.fromisoformat(m[1])
    frac = m[5] or ""
    micros = int((frac + "000000")[:6])
    t = dt.datetime(
        day.year, day.month, day.day, int(m[2]), int(m[3]), int(m[4] or 0), tzinfo=dt.timezone.utc
    )
    total = (t - EPOCH) // dt.timedelta(microseconds=1) + micros
    if m[6] and m[6] != "Z":
        sign = 1 if m[6][0] == "+" else -1
        hh, mm = int(m[6][1:3]), int(m[6][-2:])
        total -= sign * (hh * 60 + mm) * 60 * 10**6
    if len(frac) > 6 and int(frac[6:]):
        raise ValueError(text)  # nanoseconds in a microsecond type: not a Delta value
    return total, m[6] is not None, len(frac) > 3


def us(v: int, t: pa.DataType):
    """µs since the epoch as the Python value of timestamp type ``t``."""
    return (
        pa.scalar(v, pa.int64()).cast(t).as_py()
        if t.tz is None
        else EPOCH + dt.timedelta(microseconds=v)
    )


def string(s: str, prefix: int, upper: bool) -> tuple:
    """(bound, exact) of a string bound a writer may have cut (prefix length ``prefix``).

    >>> string("abc", 32, True), string("x" * 40, 8, True)
    (('abc', True), ('xxxxxy', False))
    """
    if len(s.encode("utf-8", "surrogatepass")) < prefix - 2 and not re.search("[\ud800-\udfff]", s):
        return s, True
    # Maybe cut: keep the longest prefix of at most L - 2 bytes without lone surrogates.
    keep, size = [], 0
    for ch in s:
        n = len(ch.encode("utf-8", "surrogatepass"))
        if 0xD800 <= ord(ch) <= 0xDFFF or size + n > prefix - 2:
            break
        keep.append(ch)
        size += n
    if not upper:  # a prefix of a string sorts before it: the cut minimum is a lower bound
        return re.split("[\ud800-\udfff]", s)[0], False
    above = successor("".join(keep))  # in code point (= UTF-8 byte) order
    return (above, False) if above is not None else (None, None)


def jsonable(v):
    """Typed ``stats_parsed`` values as the JSON log writes them (timestamps to the ms), for
    :func:`file_cells` on a checkpoint row the vector path leaves to it.

    >>> jsonable(dt.datetime(2021, 1, 1, 0, 0, 0, 5000, dt.timezone.utc))
    '2021-01-01T00:00:00.005Z'
    """
    if isinstance(v, dt.datetime):
        zone = "" if v.tzinfo is None else "Z"  # a local time stays one
        if v.tzinfo is not None:
            v = v.astimezone(dt.timezone.utc).replace(tzinfo=None)
        digits = 3 if v.microsecond % 1000 == 0 else 6
        return v.isoformat(timespec="milliseconds" if digits == 3 else "microseconds") + zone
    if isinstance(v, (dt.date, decimal.Decimal)):
        return str(v)
    if isinstance(v, bytes):
        return None  # a binary bound: Delta defines none
    raise TypeError(type(v).__name__)
