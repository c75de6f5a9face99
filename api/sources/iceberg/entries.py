"""An Iceberg manifest's entries as columns (for ``prunekit.sources.iceberg``): the Avro file
read by ``avro_file`` and decoded by ``avro_decode``, keeping only what planning uses:
status, snapshot id and sequence number (inherited from the manifest list where the entry
leaves them out, as the spec says), content, path, record count, size, the partition tuple,
and the null and NaN counts and bounds of the wanted field ids.

``read_entries`` raises ``Unsupported`` for a file it does not handle (the caller reads it
with pyiceberg) and ``Malformed`` for bytes that break the format.
"""

from __future__ import annotations

import decimal
import struct
import uuid

import numpy as np
import pyarrow as pa

from .avro_decode import compile_schema, decode
from .avro_file import Malformed, Unsupported, read_container

__all__ = ["Entries", "Malformed", "Unsupported", "gather", "read_entries"]

# Slots of the decoded columns, and pair tables of the maps (field ids of Iceberg's
# manifest_entry and data_file schemas).
STATUS, SNAPSHOT, SEQUENCE, CONTENT, RECORDS, SIZE = range(6)
PATH, REFERENCED = range(2)
NULLS, NANS, LOWER, UPPER = range(4)
_WANT = {0: ("long", STATUS), 1: ("long", SNAPSHOT), 3: ("long", SEQUENCE),
         2: {134: ("long", CONTENT), 100: ("bytes", PATH), 103: ("long", RECORDS),
             104: ("long", SIZE), 102: ("each",), 110: ("pairs", NULLS, "long"),
             137: ("pairs", NANS, "long"), 125: ("pairs", LOWER, "bytes"),
             128: ("pairs", UPPER, "bytes"), 143: ("bytes", REFERENCED)}}
_DELETED = 2
_ADDED = 1
_programs: dict = {}  # compiled schemas by their JSON text: a table's manifests share few


class Entries:
    """The live entries of one manifest, as NumPy columns over ``payload``.

    ``paths`` (an Arrow string array); ``referenced`` (start, length) of the data file a
    delete file names (length -1: none); ``records``, ``size``, ``content``, ``snapshot``,
    ``sequence`` per entry (int64; ``records`` and ``size`` -1 where absent); ``partition``
    a list per partition field of (name, Avro type, values as Python objects as pyiceberg
    reads them); ``pairs`` rows (table, entry, key, value or start, length) of the maps.
    """

    def __init__(self, **columns):
        self.__dict__.update(columns)


def gather(payload: np.ndarray, starts: np.ndarray, lengths: np.ndarray) -> pa.Array:
    """Binary values at (start, length) of ``payload``; a negative length is NULL.

    >>> payload = np.frombuffer(b"abcdef", np.uint8)
    >>> gather(payload, np.array([1, 0, 4]), np.array([2, -1, 0])).to_pylist()
    [b'bc', None, b'']
    """
    valid = lengths >= 0
    sizes = np.where(valid, lengths, 0)
    offsets = np.zeros(len(sizes) + 1, np.int64)
    np.cumsum(sizes, out=offsets[1:])
    index = np.repeat(starts - offsets[:-1], sizes) + np.arange(offsets[-1])
    data = payload[index]
    mask = None if valid.all() else pa.py_buffer(np.packbits(valid, bitorder="little"))
    return pa.Array.from_buffers(pa.large_binary(), len(sizes),
                                 [mask, pa.py_buffer(offsets), pa.py_buffer(data)],
                                 null_count=-1 if mask is not None else 0).cast(pa.binary())


def read_entries(data: bytes, manifest, wanted_ids) -> Entries:
    """The live entries of a manifest file's bytes; ``manifest`` is its manifest-list entry
    (``sequence_number``, ``added_snapshot_id``), ``wanted_ids`` the field ids whose counts
    and bounds are kept.

    >>> try:
    ...     read_entries(b"Obj\\x02", None, [])
    ... except Malformed as e:
    ...     print(e)
    not an Avro container file
    """
    meta, payload, blocks = read_container(data)
    schema = meta.get("avro.schema")
    if schema is None:
        raise Malformed("no avro.schema in the header")
    program = _programs.get(schema)
    if program is None:
        program = compile_schema(schema, _WANT, (6, 2))
        if len(_programs) > 64:
            _programs.clear()
        _programs[schema] = program
    wanted = np.array(sorted(set(wanted_ids)), np.int64)
    status, rec, longs, present, refs, pairs = decode(payload, blocks, program, wanted)
    if status != 0:
        raise Malformed(f"entry {rec} does not decode")
    n = len(longs)
    if n and not (present[:, STATUS].all() and present[:, RECORDS].all()
                  and (refs[:, PATH, 1] >= 0).all()):
        # A schema without Iceberg's field ids: the fields were not found.
        raise Unsupported("entries without status, record count or path")
    live = longs[:, STATUS] != _DELETED
    keep = np.flatnonzero(live) if not live.all() else slice(None)  # a slice copies nothing
    status_col = longs[keep, STATUS]
    seq_manifest = getattr(manifest, "sequence_number", None)
    seq_manifest = 0 if seq_manifest is None else seq_manifest
    sequence = np.where(present[keep, SEQUENCE], longs[keep, SEQUENCE], 0)
    inherit = ~present[keep, SEQUENCE] & ((seq_manifest == 0) | (status_col == _ADDED))
    sequence[inherit] = seq_manifest
    added = getattr(manifest, "added_snapshot_id", None)
    snapshot = np.where(present[keep, SNAPSHOT], longs[keep, SNAPSHOT],
                        -1 if added is None else added)
    snapshot_known = present[keep, SNAPSHOT] | (added is not None)
    content = np.where(present[keep, CONTENT], longs[keep, CONTENT], 0)
    records = np.where(present[keep, RECORDS], longs[keep, RECORDS], -1)
    size = np.where(present[keep, SIZE], longs[keep, SIZE], -1)
    # Map rows of live entries only, their entry renumbered among the live ones.
    if not isinstance(keep, slice):
        renumber = np.full(n, -1, np.int64)
        renumber[keep] = np.arange(len(keep))
        pairs = pairs[live[pairs[:, 1]]] if len(pairs) else pairs
        pairs[:, 1] = renumber[pairs[:, 1]]
    partition = [(name, avro, _values(payload, avro, kind, slot, longs, present, refs, keep))
                 for _, name, avro, kind, slot in program.each]
    try:
        paths = gather(payload, refs[keep, PATH, 0], refs[keep, PATH, 1]).cast(pa.string())
    except pa.ArrowInvalid:
        raise Malformed("a file path is not UTF-8") from None
    return Entries(payload=payload, paths=paths, referenced=refs[keep, REFERENCED],
                   records=records, size=size, content=content, snapshot=snapshot,
                   snapshot_known=snapshot_known, sequence=sequence, partition=partition,
                   pairs=pairs, count=len(status_col))


def _values(payload, avro, kind, slot, longs, present, refs, keep) -> list:
    """A partition field's values as pyiceberg's reader gives them: ``int`` for ints, longs,
    dates, times and timestamps, ``str``, ``bytes``, ``bool``, ``float``, ``Decimal``,
    ``UUID``; None for NULL."""
    if kind == "long":
        ok = present[keep, slot]
        return [v if k else None for v, k in zip(longs[keep, slot].tolist(), ok.tolist(),
                                                  strict=True)]
    raw = gather(payload, refs[keep, slot, 0], refs[keep, slot, 1]).to_pylist()
    base = avro.get("type") if isinstance(avro, dict) else avro
    logical = avro.get("logicalType") if isinstance(avro, dict) else None
    if base == "string":
        return [None if b is None else _utf8(b) for b in raw]
    if base == "boolean":
        return [None if b is None else bool(b[0]) for b in raw]
    if base in ("float", "double"):
        fmt = "<f" if base == "float" else "<d"
        return [None if b is None else struct.unpack(fmt, b)[0] for b in raw]
    if logical == "decimal":
        scale = int(avro.get("scale", 0))
        return [None if b is None else
                decimal.Decimal(int.from_bytes(b, "big", signed=True)).scaleb(-scale)
                for b in raw]
    if logical == "uuid" and base == "fixed":
        return [None if b is None else uuid.UUID(bytes=b) for b in raw]
    return raw


def _utf8(b: bytes) -> str:
    try:
        return b.decode("utf-8")
    except UnicodeDecodeError:
        raise Malformed("a partition value is not UTF-8") from None
