"""The Delta statistics reader as it was before the columnar replay: one Python object per
file, each file's JSON ``stats`` parsed on its own. Kept, unchanged but for the fixes below, as
the reference the columnar reader (``prunekit.sources.delta``) is compared with on random logs
(``tests/sources/delta/test_delta_columnar.py``); it is not part of the package.

Fixes, each where the old reader was wrong or lossy and the new one reads the value:

- DECIMAL bounds are rounded with enough digits (the default context's 28 digits made a
  DECIMAL(38, s) bound of more than 28 digits unknown).
- A typed ``stats_parsed`` timestamp without a zone is written back without the ``Z`` (the old
  reader made every TIMESTAMP_NTZ bound of a checkpoint unknown).
- Statistics counts above int64 are unknown (the old reader failed to build its table).
- A float32 bound whose text reads as the double halfway between two float32 values is the
  outer one of them, inexact (the old reader took the nearer to the text, the lower on a
  tie: Java prints some float32 values as that midpoint, and the lower one is then no upper
  bound).
"""

from __future__ import annotations

import datetime as dt
import decimal
import json
import os
import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from urllib.parse import unquote, urlparse

import numpy as np
import pyarrow as pa
import pyarrow.parquet as pq

from prunekit.errors import StatisticsError
from prunekit.expr.paths import leaf_key, leaf_selector
from prunekit.sources.recent import Recent
from prunekit.statistics import Statistics

__all__ = ["Snapshot", "file_statistics", "is_delta_table", "snapshot", "statistics"]

RESERVED = ("path", "size", "row_count")
_FIELDS = ["min", "max", "null_count", "min_exact", "max_exact"]
_COMMIT = re.compile(r"^(\d{20})\.json$")
_CHECKPOINT = re.compile(r"^(\d{20})\.checkpoint(?:\.(\d{10})\.(\d{10}))?(?:\.[^.]+)?\.parquet$")
_DAY_SLACK = 14 * 3600 * 10**6  # the widest zone offset, in µs
_EPOCH = dt.datetime(1970, 1, 1, tzinfo=dt.timezone.utc)
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


def is_delta_table(path: str | os.PathLike) -> bool:
    """Whether ``path`` is a directory with a ``_delta_log`` folder.

    >>> import tempfile
    >>> is_delta_table(tempfile.mkdtemp())
    False
    """
    return os.path.isdir(os.path.join(os.fspath(path), "_delta_log"))


def file_statistics(
    table_path: str | os.PathLike,
    version: int | None = None,
    *,
    columns: Iterable[str] | None = None,
) -> pa.Table:
    """Statistics of every live data file of the Delta table at ``table_path``, at ``version``
    (the latest when None), one row per file sorted by path; ``columns``: only those leaves
    (a struct's name: all its leaves; ``prunekit.expr.paths.leaf_selector``).

    >>> import json, os, tempfile
    >>> d = tempfile.mkdtemp(); os.mkdir(os.path.join(d, "_delta_log"))
    >>> schema = {"type": "struct", "fields": [
    ...     {"name": "x", "type": "long", "nullable": True, "metadata": {}},
    ...     {"name": "ts", "type": "timestamp", "nullable": True, "metadata": {}}]}
    >>> stats = {"numRecords": 3, "minValues": {"x": 1, "ts": "2024-01-01T00:00:00.000Z"},
    ...          "maxValues": {"x": 9, "ts": "2024-01-02T10:00:00.123Z"},
    ...          "nullCount": {"x": 0}}
    >>> log = [{"metaData": {"schemaString": json.dumps(schema), "partitionColumns": [],
    ...                      "configuration": {}}},
    ...        {"add": {"path": "a.parquet", "partitionValues": {}, "size": 100,
    ...                 "stats": json.dumps(stats)}}]
    >>> with open(os.path.join(d, "_delta_log", "0" * 20 + ".json"), "w") as f:
    ...     f.write("\\n".join(map(json.dumps, log))) and None
    >>> t = file_statistics(d)
    >>> t.column("x").to_pylist()
    [{'min': 1, 'max': 9, 'null_count': 0, 'min_exact': True, 'max_exact': True}]
    >>> t.column("ts").to_pylist()[0]["max"].isoformat()   # ms-truncated: widened, inexact
    '2024-01-02T10:00:00.123999+00:00'
    >>> t.column("ts").to_pylist()[0]["null_count"] is None   # not in nullCount: unknown
    True
    >>> file_statistics(d, columns=["x"]).column_names
    ['path', 'size', 'row_count', 'x']
    """
    table = snapshot(table_path, version).statistics
    if columns is None:
        return table
    wanted = leaf_selector(columns)
    return table.select([c for c in table.column_names if c in RESERVED or wanted(c)])


@dataclass(frozen=True)
class Snapshot:
    """A Delta table at one version, as a reader needs it: the statistics of its live files
    (``file_statistics``), the schema as Spark's ``StructType`` JSON, the table's
    configuration, and the live files carrying a deletion vector (rows to leave
    out that their Parquet file still holds)."""

    root: str
    version: int | None
    schema_string: str
    configuration: dict
    statistics: pa.Table
    deletion_vectors: frozenset[str]


def snapshot(table_path: str | os.PathLike, version: int | None = None) -> Snapshot:
    """The Delta table at ``table_path`` at ``version`` (the latest when None).

    >>> import tempfile
    >>> snapshot(tempfile.mkdtemp())
    Traceback (most recent call last):
    prunekit.errors.StatisticsError: ...: not a Delta table (no _delta_log directory)
    """
    root = os.fspath(table_path)
    key = _snapshot_key(root, version)
    found = None if key is None else _SNAPSHOTS.get(key)
    if found is not None:
        return found
    meta, adds = _snapshot(root, version)
    snap = Snapshot(
        root=root,
        version=version,
        schema_string=meta["schemaString"],
        configuration=dict(meta.get("configuration") or {}),
        statistics=_table(root, meta, adds),
        deletion_vectors=frozenset(
            _local(root, a["path"]) for a in adds.values() if a.get("deletionVector")
        ),
    )
    if key is not None:
        _SNAPSHOTS.put(key, snap)
    return snap


# A table's state at a version never changes (Delta never rewrites a commit), so a process
# keeps its last few snapshots: a repeated query replays no log (parsing each file's JSON
# statistics costs about 0.3 ms a file). The key holds the version's commit file's identity,
# which catches a table deleted and written again at the same path.
_SNAPSHOTS = Recent(8)


def _snapshot_key(root: str, version: int | None) -> tuple | None:
    log = os.path.join(root, "_delta_log")
    try:
        if version is None:
            version = max(
                (int(m[1]) for n in os.listdir(log) if (m := _COMMIT.match(n))), default=None
            )
            if version is None:
                return None  # checkpoints only: replayed every time
        st = os.stat(os.path.join(log, f"{version:020d}.json"))
    except (OSError, ValueError):
        return None
    # The root as given (file paths are made from it), and where a relative one starts.
    here = "" if os.path.isabs(root) else os.getcwd()
    return root, here, version, st.st_size, st.st_mtime_ns, st.st_ino


def _table(root: str, meta: dict, adds: dict) -> pa.Table:
    columns, partitions, prefix = _schema(meta)
    adds = sorted(adds.values(), key=lambda a: a["path"])
    rows = [_file_row(a, columns, partitions, prefix) for a in adds]
    out: dict[str, pa.Array] = {
        "path": pa.array([_local(root, a["path"]) for a in adds], pa.string()),
        "size": pa.array([a.get("size") for a in adds], pa.int64()),
        "row_count": pa.array([r[0] for r in rows], pa.int64()),
    }
    for k, (name, (t, _key)) in enumerate(columns.items()):
        cells = [r[1][k] for r in rows]
        arrays = [
            pa.array([c[i] for c in cells], t if i < 2 else (pa.int64() if i == 2 else pa.bool_()))
            for i in range(5)
        ]
        out[name] = pa.StructArray.from_arrays(arrays, _FIELDS)
    return pa.table(out)


def statistics(
    table_path: str | os.PathLike,
    version: int | None = None,
    *,
    nan_bounds: str | Mapping[str, str] = "exclude",
    columns: Iterable[str] | None = None,
) -> Statistics:
    """:func:`file_statistics` wrapped as a :class:`prunekit.Statistics`. Float bounds are read
    as excluding NaN by default (see the module docstring: delta-rs writes them so).

    >>> import tempfile
    >>> statistics(tempfile.mkdtemp())
    Traceback (most recent call last):
    prunekit.errors.StatisticsError: ...: not a Delta table (no _delta_log directory)
    """
    return Statistics.from_arrow(
        file_statistics(table_path, version, columns=columns), nan_bounds=nan_bounds
    )


# ---- the log -----------------------------------------------------------------------------
def _snapshot(root: str, version: int | None) -> tuple[dict, dict]:
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
    meta, adds = None, {}
    if start >= 0:
        n = next(n for (v, n) in checkpoints if v == start and len(checkpoints[v, n]) == n)
        meta = _read_checkpoint(log, sorted(checkpoints[start, n]), adds)
    for v in range(start + 1, target + 1):
        if v not in commits:
            raise StatisticsError(f"{root}: commit {v} is missing from the Delta log")
        with open(commits[v], encoding="utf-8") as f:
            for line in f:
                if line.strip():
                    action = json.loads(line)
                    meta = _apply(action, adds) or meta
    if meta is None:
        raise StatisticsError(f"{root}: the Delta log has no metaData action")
    return meta, adds


def _key(action: dict) -> tuple:
    dv = action.get("deletionVector") or {}
    return (
        unquote(action["path"]),
        dv.get("storageType"),
        dv.get("pathOrInlineDv"),
        dv.get("offset"),
    )


def _apply(action: dict, adds: dict) -> dict | None:
    if action.get("add"):
        adds[_key(action["add"])] = action["add"]
    elif action.get("remove"):
        adds.pop(_key(action["remove"]), None)
    elif action.get("metaData"):
        return action["metaData"]
    return None


def _read_checkpoint(log: str, parts: list[str], adds: dict) -> dict | None:
    meta = None
    sidecars = []
    for part in parts:
        table = pq.read_table(part)
        names = set(table.column_names)
        for row in table.select(
            [c for c in ("add", "metaData", "sidecar") if c in names]
        ).to_pylist():
            if row.get("add"):
                add = row["add"]
                add["partitionValues"] = dict(add.get("partitionValues") or [])
                if not add.get("stats") and add.get("stats_parsed"):
                    add["stats"] = json.dumps(add["stats_parsed"], default=_jsonable)
                adds[_key(add)] = add
            elif row.get("metaData"):
                meta = row["metaData"]
                meta["configuration"] = dict(meta.get("configuration") or [])
            elif row.get("sidecar"):
                sidecars.append(os.path.join(log, "_sidecars", unquote(row["sidecar"]["path"])))
    if sidecars:
        _read_checkpoint(log, sidecars, adds)
    return meta


def _jsonable(v):
    """Typed ``stats_parsed`` values as the JSON log writes them (timestamps to the ms)."""
    if isinstance(v, dt.datetime):
        zone = "Z" if v.tzinfo is not None else ""
        if v.tzinfo is not None:
            v = v.astimezone(dt.timezone.utc).replace(tzinfo=None)
        digits = 3 if v.microsecond % 1000 == 0 else 6
        return v.isoformat(timespec="milliseconds" if digits == 3 else "microseconds") + zone
    if isinstance(v, (dt.date, decimal.Decimal)):
        return str(v)
    raise TypeError(type(v).__name__)


def _local(root: str, path: str) -> str:
    url = urlparse(path)
    if not url.scheme:
        return os.path.join(root, unquote(path))
    return unquote(url.path) if url.scheme == "file" else path


# ---- schema and one file -----------------------------------------------------------------
def _schema(meta: dict) -> tuple[dict, set, int]:
    """{name: (Arrow type or kind, stats key)}, partition column names, string prefix L."""
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
        t = _arrow_type(kind)
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
    return columns, partitions, max(prefix, 3)


def _arrow_type(kind) -> pa.DataType | None:
    if not isinstance(kind, str):
        return None
    if m := re.fullmatch(r"decimal\((\d+),\s*(\d+)\)", kind):
        p, s = int(m[1]), int(m[2])
        return pa.decimal128(p, s) if 0 < p <= 38 and s <= p else None
    return _SIMPLE.get(kind)


def _file_row(add: dict, columns: dict, partitions: set, prefix: int) -> tuple:
    stats = add.get("stats")
    try:
        stats = json.loads(stats, parse_float=decimal.Decimal) if stats else {}
    except ValueError:
        stats = {}
    if not isinstance(stats, dict):
        stats = {}
    rows = stats.get("numRecords")
    rows = (
        rows if isinstance(rows, int) and not isinstance(rows, bool) and 0 <= rows < 2**63 else None
    )
    dv = add.get("deletionVector")
    if dv and rows is not None:
        card = dv.get("cardinality")
        rows = rows - card if isinstance(card, int) and 0 <= card <= rows else None
    tight = stats.get("tightBounds") is not False and not dv
    parts = add.get("partitionValues") or {}
    cells = []
    for name, (t, keys) in columns.items():
        if name in partitions:  # a partition column is top-level: its key is its name
            cells.append(_partition(parts.get(keys[0]), t, rows))
            continue
        lo, hi = (_get(stats.get(k), keys) for k in ("minValues", "maxValues"))
        nulls = _get(stats.get("nullCount"), keys) if tight else None
        if not isinstance(nulls, int) or isinstance(nulls, bool) or not 0 <= nulls < 2**63:
            nulls = None
        lo, lo_exact = _bound(lo, t, prefix, upper=False)
        hi, hi_exact = _bound(hi, t, prefix, upper=True)
        cells.append((lo, hi, nulls, lo_exact and tight, hi_exact and tight))
    return rows, cells


def _get(values, keys: tuple):
    """The value at a leaf's path in nested statistics; None where any level is missing."""
    for key in keys:
        values = values.get(key) if isinstance(values, dict) else None
    return values


def _partition(text, t: pa.DataType, rows: int | None) -> tuple:
    if text is None:
        return None, None, rows, True, True
    if text == "":  # null to Spark; a writer might mean the empty string: unknown
        return None, None, None, None, None
    try:
        if t == pa.string():
            return text, text, 0, True, True
        if pa.types.is_timestamp(t):
            v, zoned, _ = _timestamp(text)
            if t.tz is not None and not zoned:  # session-time-zone writers: widen
                return _us(v - _DAY_SLACK, t), _us(v + _DAY_SLACK, t), 0, False, False
            return _us(v, t), _us(v, t), 0, True, True
        raw = (
            text
            if t in (pa.date32(), pa.binary())
            else json.loads(text, parse_float=decimal.Decimal)
        )
        (lo, lo_exact), (hi, hi_exact) = _value(raw, t, False), _value(raw, t, True)
    except (ValueError, TypeError, KeyError, OverflowError, decimal.InvalidOperation):
        return None, None, None, None, None
    return lo, hi, 0, lo_exact, hi_exact


# ---- one bound ---------------------------------------------------------------------------
def _bound(raw, t: pa.DataType, prefix: int, upper: bool) -> tuple:
    """(bound, exact) from a JSON value; (None, None) when it cannot be read soundly."""
    if raw is None or isinstance(raw, (dict, list)):
        return None, None
    try:
        if pa.types.is_string(t):
            return _string(raw, prefix, upper) if isinstance(raw, str) else (None, None)
        if pa.types.is_timestamp(t):
            if not isinstance(raw, str):
                return None, None
            us, zoned, fine = _timestamp(raw)
            if t.tz is None and zoned:
                return None, None
            if t.tz is not None and not zoned:  # a local time of an unknown zone: widen
                return _us(us + _DAY_SLACK + 999 if upper else us - _DAY_SLACK, t), False
            if fine:
                return _us(us, t), True
            return _us(us + 999 if upper else us, t), False
        return _value(raw, t, upper)
    except (ValueError, TypeError, KeyError, OverflowError, decimal.InvalidOperation):
        return None, None


def _value(raw, t: pa.DataType, upper: bool) -> tuple:
    if pa.types.is_boolean(t):
        return (raw, True) if isinstance(raw, bool) else (None, None)
    if isinstance(raw, bool):
        return None, None
    if pa.types.is_integer(t):
        d = decimal.Decimal(raw) if isinstance(raw, (int, decimal.Decimal, str)) else None
        if d is None or not d.is_finite() or d != d.to_integral_value():
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
            decimal.Context(prec=100),
        )
        return (
            (q, q == d)
            if q.copy_abs() < decimal.Decimal(10) ** (t.precision - t.scale)
            else (None, None)
        )
    if pa.types.is_floating(t):
        return _float(raw, t, upper)
    if pa.types.is_date32(t) and isinstance(raw, str):
        return dt.date.fromisoformat(raw), True
    return None, None  # binary: Delta defines no bounds


def _float(raw, t: pa.DataType, upper: bool) -> tuple:
    """The float nearest the JSON text: writers print floats so that they read back exactly
    (Java's ``Float.toString``, Rust's shortest form, or the float32 as a double)."""
    if isinstance(raw, str):
        raw = {"NaN": "NaN", "Infinity": "Infinity", "-Infinity": "-Infinity"}[raw]
    d = decimal.Decimal(raw if not isinstance(raw, float) else repr(raw))
    if d.is_nan():
        return float("nan"), True
    v = float(d)  # correctly rounded to double
    exact = True
    if t == pa.float32() and d.is_finite():
        with np.errstate(over="ignore"):
            f = np.float32(v)
        if np.isfinite(f):  # rounding twice may miss the nearest float32 by one step
            near = [np.nextafter(f, np.float32(-np.inf)), f, np.nextafter(f, np.float32(np.inf))]
            f = min(
                (x for x in near if np.isfinite(x)),
                key=lambda x: abs(decimal.Decimal(float(x)) - d),
            )
        v = float(f)
        exact = _not_halfway(float(d), upper)
        if exact is not True:
            v, exact = exact, False
    if v == 0:  # a zero bound stands for both zeros (docs/semantics.md §4)
        v = 0.0 if upper else -0.0
    return v, exact


def _not_halfway(v: float, upper: bool):
    """True, or for a double halfway between two float32 values the outer one of them."""
    with np.errstate(over="ignore"):
        lo = np.float32(v)
        if float(lo) > v or np.isinf(lo):
            lo = np.nextafter(np.float32(lo), np.float32(-np.inf))
        hi = np.nextafter(lo, np.float32(np.inf))
    top = 2.0**128 if np.isinf(hi) else float(hi)
    bottom = -(2.0**128) if np.isinf(lo) else float(lo)
    if bottom < v < top and (bottom + top) / 2 == v:
        return float(hi) if upper else float(lo)
    return True


_TS = re.compile(
    r"^(\d{4}-\d{2}-\d{2})[T ](\d{2}):(\d{2})(?::(\d{2})(?:\.(\d{1,9}))?)?"
    r"(Z|[+-]\d{2}:?\d{2})?$"
)


def _timestamp(text: str) -> tuple[int, bool, bool]:
    """(µs since the epoch, had a zone, has sub-millisecond digits)."""
    m = _TS.match(text.strip())
    if not m:
        raise ValueError(text)
    day = dt.date.fromisoformat(m[1])
    frac = m[5] or ""
    us = int((frac + "000000")[:6])
    t = dt.datetime(
        day.year, day.month, day.day, int(m[2]), int(m[3]), int(m[4] or 0), tzinfo=dt.timezone.utc
    )
    total = (t - _EPOCH) // dt.timedelta(microseconds=1) + us
    if m[6] and m[6] != "Z":
        sign = 1 if m[6][0] == "+" else -1
        hh, mm = int(m[6][1:3]), int(m[6][-2:])
        total -= sign * (hh * 60 + mm) * 60 * 10**6
    if len(frac) > 6 and int(frac[6:]):
        raise ValueError(text)  # nanoseconds in a microsecond type: not a Delta value
    return total, m[6] is not None, len(frac) > 3


def _us(v: int, t: pa.DataType):
    return (
        pa.scalar(v, pa.int64()).cast(t).as_py()
        if t.tz is None
        else _EPOCH + dt.timedelta(microseconds=v)
    )


def _string(s: str, prefix: int, upper: bool) -> tuple:
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
    while keep:  # successor in code point (= UTF-8 byte) order
        c = ord(keep.pop()) + 1
        if c == 0xD800:
            c = 0xE000
        if c <= 0x10FFFF:
            return "".join(keep) + chr(c), False
    return None, None
