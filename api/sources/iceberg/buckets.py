"""``bucket[N]`` partitions and ``=`` / ``IN`` predicates (for ``prunekit.sources.iceberg``):
a data file whose bucket differs from the bucket of every literal a top-level conjunct
``x = v`` or ``x IN (...)`` allows holds no row where the predicate is TRUE, so
``file_statistics(..., predicate=...)`` leaves it out, as pyiceberg's ``plan_files`` does.
No statistic is made up for it: the file is dropped beside the files of skipped manifests.

The literals are the predicate's own, bound by prunekit (``PruningPredicate``): cast to the
column's type as every other rule casts them (``x IN (1, 2.0)`` on a ``long`` is 1 and 2;
``2.5`` never equals an integer and is already gone), in the comparison's domain (days,
microseconds, unscaled decimals, UTF-8 bytes). A conjunct through a cast or function, on a
type without Iceberg hashing rules here (floats, booleans, ``timestamp_ns``), or with a
literal the type cannot hold, is not used.

Iceberg's hash (spec, "Bucket Transform Details"): 32-bit Murmur3 (x86, seed 0) of ints,
longs, dates, times and timestamps as 8 little-endian bytes; of decimals as the unscaled
value's minimal big-endian two's complement; of strings as UTF-8; of UUIDs as their 16
big-endian bytes; of fixed and binary as themselves. The bucket is
``(hash & Integer.MAX_VALUE) % N``.
"""

from __future__ import annotations

import re

from prunekit.expr.binding import bound as b

__all__ = ["bucket", "equality_literals", "ruled_out"]

_LONGS = ("int", "long", "date", "time", "timestamp", "timestamptz")
_BUCKET = re.compile(r"^bucket\[(\d+)\]$")
_DECIMAL = re.compile(r"^decimal\((\d+),\s*(\d+)\)$")
_FIXED = re.compile(r"^fixed\[(\d+)\]$")


def _murmur3(data: bytes) -> int | None:
    try:
        import mmh3  # pyiceberg's own dependency: installed with the ``iceberg`` extra
    except ImportError:  # no hash, no bucket: nothing is pruned by it
        return None
    return mmh3.hash(data, 0, signed=True)


def hash_bytes(kind: str, value) -> bytes | None:
    """The bytes Iceberg hashes for a raw value of type ``kind``; None when the value does
    not fit the type or the type has no hashing rule here.

    >>> hash_bytes("int", 34), hash_bytes("decimal(9, 2)", 1420), hash_bytes("string", b"iceberg")
    (b'"\\x00\\x00\\x00\\x00\\x00\\x00\\x00', b'\\x05\\x8c', b'iceberg')
    """
    if kind in _LONGS:
        if not isinstance(value, int) or isinstance(value, bool):
            return None
        if not -(1 << 63) <= value < 1 << 63:
            return None
        return value.to_bytes(8, "little", signed=True)
    if m := _DECIMAL.match(kind):
        if not isinstance(value, int) or isinstance(value, bool) or abs(value) >= 10 ** int(m[1]):
            return None
        size = (value if value >= 0 else ~value).bit_length() // 8 + 1
        return value.to_bytes(size, "big", signed=True)
    if not isinstance(value, (bytes, bytearray)):
        return None
    value = bytes(value)
    if kind == "string":
        try:
            value.decode("utf-8")
        except UnicodeDecodeError:
            return None
        return value
    if kind == "uuid":
        return value if len(value) == 16 else None
    if m := _FIXED.match(kind):
        return value if len(value) == int(m[1]) else None
    if kind == "binary":
        return value
    return None


def bucket(kind: str, value, n: int) -> int | None:
    """The bucket of ``value`` (raw: days, microseconds, unscaled decimals, bytes) among
    ``n``; None when it has no Iceberg hash here.

    >>> bucket("long", 34, 100), bucket("string", "iceberg".encode(), 1000)  # spec examples
    (79, 89)
    """
    data = hash_bytes(kind, value)
    h = None if data is None or n <= 0 else _murmur3(data)
    return None if h is None else (h & 0x7FFFFFFF) % n


def equality_literals(predicate, kinds: dict) -> dict:
    """Per top-level column (``kinds``: column name -> Iceberg type), the literals a top-level
    conjunct ``x = v`` / ``x IN (...)`` of ``predicate`` allows (a ``PruningPredicate``; its
    bound tree is read, never built here). Two conjuncts on one column keep the common ones.

    >>> import pyarrow as pa, prunekit as pk
    >>> p = pk.PruningPredicate("x IN (1, 2.0, 2.5) AND s = 'a' AND y > 3",
    ...                         pa.schema([("x", pa.int64()), ("s", pa.string()),
    ...                                    ("y", pa.int32())]))
    >>> equality_literals(p, {"x": "long", "s": "string", "y": "int"})
    {'x': {1, 2}, 's': {b'a'}}
    """
    bound = predicate.bound
    args = bound.args if isinstance(bound, b.BAnd) else (bound,)
    out: dict = {}
    for arg in args:
        if isinstance(arg, b.BInRange) and arg.first == arg.last:
            found = (arg.first,)
        elif isinstance(arg, b.BInList):
            found = arg.values
        else:
            continue
        col = arg.col
        if type(col) is not b.BColumn or col.convert != () or col.name not in kinds:
            continue
        if col.type != col.stats_type:  # literals coerced to another type than the column's
            continue
        kind = kinds[col.name]
        if any(hash_bytes(kind, v) is None for v in found):
            continue  # a literal the type cannot hold: this conjunct prunes nothing here
        values = set(found)
        out[col.name] = values if col.name not in out else out[col.name] & values
    return out


def ruled_out(spec, names: dict, literals: dict) -> list:
    """Per partition field of ``spec`` (position, buckets allowed) for the ``bucket[N]``
    fields whose source (``names``: field id -> (name, Iceberg type)) has literals: a file
    whose value there is not among the allowed buckets holds no match.

    >>> from pyiceberg.partitioning import PartitionField, PartitionSpec
    >>> from pyiceberg.transforms import BucketTransform
    >>> spec = PartitionSpec(PartitionField(1, 1000, BucketTransform(4), "x_bucket"))
    >>> ruled_out(spec, {1: ("x", "long")}, {"x": {34, 35}})  # files of buckets 0 and 2 go
    [(0, {1, 3})]
    """
    out = []
    if spec is None or not literals:
        return out
    for pos, pf in enumerate(spec.fields):
        m = _BUCKET.match(str(pf.transform))
        source = names.get(pf.source_id)
        if m is None or source is None or source[0] not in literals:
            continue
        name, kind = source
        n = int(m[1])
        allowed = {bucket(kind, v, n) for v in literals[name]}
        if None not in allowed:
            out.append((pos, allowed))
    return out
