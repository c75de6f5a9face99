"""Avro records decoded into columns by one Numba pass (for ``columns``).

The writer's schema (JSON, from the file's header) is compiled in Python into a flat list of
instructions, and one kernel interprets that list once per record: the schema is data given
to the kernel, never generated source. A ``want`` tree, keyed by Avro ``field-id`` as Iceberg
readers match fields, names what to keep; every other value is skipped by its encoding:

- ``("long", slot)``: an ``int`` or ``long`` (zigzag varint) into ``longs[record, slot]``;
- ``("bytes", slot)``: ``bytes``/``string``/``fixed`` as (start, length) into the payload;
- ``{field id: want}``: a nested record;
- ``("pairs", table, value)``: an Iceberg map stored as an array of ``{key: int, value}``
  records, one row per entry whose key is wanted: (table, record, key, value) where the
  value is a long or a payload (start, length);
- ``("each",)``: every field of a record (a partition tuple) into new slots, described back.

A ``["null", T]`` union passes through to ``T``: a value under the null branch is absent.
Shapes the compiler does not expect raise ``Unsupported``; bytes the kernel cannot read (a
varint past the block's end, a union branch that does not exist, a block whose records do
not end where it does) return a non-zero status.
"""

from __future__ import annotations

import json
import os

import numpy as np
from numba import njit

from .. import varints
from .avro_file import Unsupported

# The compiled forms of the shared varint readers (this decoder is always compiled). Avro
# longs are zigzag varints too.
grow = varints.grow.compiled
_long = varints.zigzag.compiled

__all__ = ["Program", "compile_schema", "decode"]

# Instructions (op, a, b).
END, VARINT, BYTES, FIXED, UNION, BRANCH, GOTO, ARRAY, ARRAY_END, KEY, PAIR_LONG, \
    PAIR_BYTES = range(12)
DEPTH = 32
_FIXED_SIZE = {"boolean": 1, "float": 4, "double": 8, "null": 0}


class Program:
    """A compiled schema: ``code`` (int64 rows op, a, b), slot counts, and the captured
    fields of each ``("each",)`` record as (field id, name, Avro type, kind, slot)."""

    def __init__(self):
        self.code: list[tuple[int, int, int]] = []
        self.longs = 0
        self.bytes = 0
        self.each: list[tuple] = []

    def emit(self, op: int, a: int = -1, b: int = 0) -> int:
        self.code.append((op, a, b))
        return len(self.code) - 1


def compile_schema(schema_json: bytes | str, want: dict, slots: tuple = (0, 0)) -> Program:
    """The instructions reading records of ``schema_json`` keeping what ``want`` names;
    ``slots`` are how many long and bytes slots ``want`` itself uses (``("each",)`` fields
    take the next ones).

    >>> p = compile_schema('{"type": "record", "name": "r", "fields": ['
    ...     '{"name": "a", "field-id": 1, "type": "string"},'
    ...     '{"name": "b", "field-id": 2, "type": ["null", "long"]}]}', {2: ("long", 0)}, (1, 0))
    >>> [op for op, _, _ in p.code], p.longs
    ([2, 4, 5, 5, 6, 1, 6, 0], 1)
    """
    try:
        schema = json.loads(schema_json)
    except ValueError:
        raise Unsupported("the writer's schema is not JSON") from None
    p = Program()
    p.longs, p.bytes = slots
    named: dict[str, object] = {}
    _type(p, schema, want, named, 0)
    p.emit(END)
    return p


def _type(p: Program, t, want, named: dict, depth: int) -> None:
    """Emit the reading of one value of Avro type ``t``; ``want`` is what to keep of it."""
    if depth > DEPTH:
        raise Unsupported("a schema nested too deeply")
    if isinstance(t, str) and t in named:
        t = named[t]  # a reference to a named type defined earlier
    if isinstance(t, list):
        return _union(p, t, want, named, depth)
    if isinstance(t, dict) and t.get("type") in ("record", "enum", "fixed", "array", "map"):
        kind = t["type"]
        if "name" in t:
            named[t["name"]] = t
            if "namespace" in t:
                named[f"{t['namespace']}.{t['name']}"] = t
    elif isinstance(t, dict):
        return _type(p, t.get("type"), want, named, depth + 1)  # a primitive with attributes
    else:
        kind = t
    if kind == "record":
        return _record(p, t, want, named, depth)
    if kind == "array" or kind == "map":
        if want is not None and want[0] == "pairs" and kind == "array":
            return _pairs(p, t["items"], want, named, depth)
        if want is not None:
            raise Unsupported(f"a wanted value is a {kind}")
        start = p.emit(ARRAY)
        if kind == "map":
            p.emit(BYTES)
        _type(p, t["items"] if kind == "array" else t["values"], None, named, depth + 1)
        p.emit(ARRAY_END)
        p.code[start] = (ARRAY, len(p.code), 0)
        return None
    slot, size = -1, _FIXED_SIZE.get(kind)
    if want is not None:
        fits = {"long": ("int", "long"), "bytes": ("bytes", "string", "fixed"),
                "fixed": ("boolean", "float", "double")}
        if kind not in fits.get(want[0], ()):
            raise Unsupported(f"a wanted {want[0]} is an Avro {kind}")
        slot = want[1]
    if kind in ("int", "long", "enum"):
        p.emit(VARINT, slot)
    elif kind in ("bytes", "string"):
        p.emit(BYTES, slot)
    elif kind == "fixed":
        p.emit(FIXED, slot, int(t["size"]))
    elif size is not None:
        if size:
            p.emit(FIXED, slot, size)
    else:
        raise Unsupported(f"Avro type {kind!r}")
    return None


def _union(p: Program, branches: list, want, named: dict, depth: int) -> None:
    p.emit(UNION, len(branches))
    table = [p.emit(BRANCH) for _ in branches]
    gotos = []
    for k, branch in enumerate(branches):
        p.code[table[k]] = (BRANCH, len(p.code), 0)
        if branch != "null":  # a NULL is absent: its slot keeps no value
            _type(p, branch, want, named, depth + 1)
        gotos.append(p.emit(GOTO))
    for g in gotos:
        p.code[g] = (GOTO, len(p.code), 0)


def _record(p: Program, t: dict, want, named: dict, depth: int) -> None:
    each = want is not None and want == ("each",)
    if want is not None and not each and not isinstance(want, dict):
        raise Unsupported("a wanted value is a record")
    for f in t.get("fields", []):
        inner = None
        if each:
            inner = _each(p, f, named)
        elif want is not None:
            inner = want.get(f.get("field-id"))
        _type(p, f["type"], inner, named, depth + 1)


def _each(p: Program, field: dict, named: dict):
    """A partition field: its slot (long for int/long, bytes for anything else read as
    bytes), or None to leave it unread where its type is neither."""
    t = field["type"]
    if isinstance(t, list):
        inner = [b for b in t if b != "null"]
        if len(inner) != 1:
            raise Unsupported("a partition field's union")
        t = inner[0]
    t = named.get(t, t) if isinstance(t, str) else t
    base = t.get("type") if isinstance(t, dict) else t
    if base in ("int", "long"):
        want = ("long", p.longs)
        p.longs += 1
    elif base in ("bytes", "string", "fixed", "boolean", "float", "double"):
        want = ("bytes", p.bytes)
        p.bytes += 1
    else:
        raise Unsupported(f"a partition field of Avro type {base!r}")
    p.each.append((field.get("field-id"), field.get("name"), t, want[0], want[1]))
    if base in ("boolean", "float", "double"):  # fixed-size values, kept as their bytes
        return ("fixed", want[1], _FIXED_SIZE[base])
    return want


def _pairs(p: Program, items, want, named: dict, depth: int) -> None:
    _, table, value = want
    if isinstance(items, str) and items in named:
        items = named[items]
    if not isinstance(items, dict) or items.get("type") != "record":
        raise Unsupported("a map's entries are not records")
    if "name" in items:
        named[items["name"]] = items
    fields = items.get("fields", [])
    names = [f.get("name") for f in fields]
    if names != ["key", "value"] or fields[0]["type"] != "int":
        raise Unsupported("a map entry is not {key: int, value}")
    start = p.emit(ARRAY)
    p.emit(KEY, table)
    vt = fields[1]["type"]
    if value == "long" and vt in ("long", "int"):
        p.emit(PAIR_LONG)
    elif value == "bytes" and vt == "bytes":
        p.emit(PAIR_BYTES)
    else:
        raise Unsupported("a map entry's value type")
    p.emit(ARRAY_END)
    p.code[start] = (ARRAY, len(p.code), 0)


@njit(cache=True, nogil=True)
def _run(buf, blocks, code, n_long, n_bytes, wanted):  # pragma: no cover - compiled
    """Every record of every block. Returns (status, record, longs, present, refs, pairs):
    status 0, or 1 + the failing instruction's op with ``record`` the record it failed in."""
    n = 0
    for b in range(blocks.shape[0]):
        n += blocks[b, 0]
    longs = np.zeros((n, max(n_long, 1)), np.int64)
    present = np.zeros((n, max(n_long, 1)), np.bool_)
    refs = np.full((n, max(n_bytes, 1), 2), -1, np.int64)
    pairs = np.empty((64, 5), np.int64)
    n_pairs = 0
    stack_count = np.zeros(DEPTH, np.int64)
    stack_start = np.zeros(DEPTH, np.int64)
    rec = 0
    for b in range(blocks.shape[0]):
        pos, end = blocks[b, 1], blocks[b, 2]
        for _ in range(blocks[b, 0]):
            pc = 0
            depth = 0
            cur = -1
            while True:
                op, a, arg = code[pc, 0], code[pc, 1], code[pc, 2]
                if op == END:
                    break
                if op == VARINT or op == PAIR_LONG or op == KEY or op == UNION:
                    v, pos = _long(buf, pos, end)
                    if pos < 0:
                        return 1 + op, rec, longs, present, refs, pairs[:n_pairs]
                    if op == VARINT:
                        if a >= 0:
                            longs[rec, a] = v
                            present[rec, a] = True
                        pc += 1
                    elif op == PAIR_LONG:
                        if cur >= 0:
                            pairs[cur, 3] = v
                        pc += 1
                    elif op == KEY:
                        cur = -1
                        k = np.searchsorted(wanted, v)
                        if k < wanted.shape[0] and wanted[k] == v:
                            pairs = grow(pairs, n_pairs)
                            cur = n_pairs
                            n_pairs += 1
                            pairs[cur, 0], pairs[cur, 1], pairs[cur, 2] = a, rec, v
                            pairs[cur, 4] = -1
                        pc += 1
                    else:  # UNION: a branch index, then its instruction
                        if v < 0 or v >= a:
                            return 1 + op, rec, longs, present, refs, pairs[:n_pairs]
                        pc = code[pc + 1 + v, 1]
                elif op == BYTES or op == FIXED or op == PAIR_BYTES:
                    if op == FIXED:
                        size = arg
                    else:
                        size, pos = _long(buf, pos, end)
                        if pos < 0 or size < 0:
                            return 1 + op, rec, longs, present, refs, pairs[:n_pairs]
                    if size > end - pos:
                        return 1 + op, rec, longs, present, refs, pairs[:n_pairs]
                    if op == PAIR_BYTES:
                        if cur >= 0:
                            pairs[cur, 3], pairs[cur, 4] = pos, size
                    elif a >= 0:
                        refs[rec, a, 0], refs[rec, a, 1] = pos, size
                    pos += size
                    pc += 1
                elif op == GOTO:
                    pc = a
                elif op == ARRAY or op == ARRAY_END:
                    if op == ARRAY_END:
                        stack_count[depth - 1] -= 1
                        if stack_count[depth - 1] > 0:
                            pc = stack_start[depth - 1]
                            continue
                    count, pos = _long(buf, pos, end)
                    if pos < 0:
                        return 1 + op, rec, longs, present, refs, pairs[:n_pairs]
                    if count < 0:  # a negative count is followed by the block's size
                        count = -count
                        _, pos = _long(buf, pos, end)
                        if pos < 0:
                            return 1 + op, rec, longs, present, refs, pairs[:n_pairs]
                    if count > end - pos:  # every item takes a byte at least
                        return 1 + op, rec, longs, present, refs, pairs[:n_pairs]
                    if op == ARRAY:
                        if count == 0:
                            pc = a
                        else:
                            if depth == DEPTH:
                                return 1 + op, rec, longs, present, refs, pairs[:n_pairs]
                            stack_count[depth] = count
                            stack_start[depth] = pc + 1
                            depth += 1
                            pc += 1
                    elif count == 0:
                        depth -= 1
                        pc += 1
                    else:
                        stack_count[depth - 1] = count
                        pc = stack_start[depth - 1]
                else:
                    return 1 + op, rec, longs, present, refs, pairs[:n_pairs]
            rec += 1
        if pos != end:  # a block's records end where the block does
            return 1 + END, rec, longs, present, refs, pairs[:n_pairs]
    return 0, rec, longs, present, refs, pairs[:n_pairs]


def decode(payload: np.ndarray, blocks: np.ndarray, program: Program, wanted: np.ndarray):
    """Run ``program`` over the records of ``blocks`` (rows: count, start, end in
    ``payload``); ``wanted`` are the map keys kept (sorted int64). Returns (status, record, longs,
    present, refs, pairs); status 0 when every block decoded to its end.

    >>> p = compile_schema('{"type": "record", "name": "r", "fields": ['
    ...     '{"name": "b", "field-id": 2, "type": ["null", "long"]}]}', {2: ("long", 0)}, (1, 0))
    >>> data = np.frombuffer(bytes([2, 0x0e, 0]), np.uint8)  # 7, then NULL
    >>> keys = np.zeros(0, np.int64)
    >>> status, _, longs, present, _, _ = decode(data, np.array([[2, 0, 3]]), p, keys)
    >>> status, longs[:, 0].tolist(), present[:, 0].tolist()
    (0, [7, 0], [True, False])
    """
    code = np.array(program.code, np.int64).reshape(-1, 3)
    return _run(payload, blocks, code, program.longs, program.bytes, wanted)


def compiled() -> bool:
    """Whether this process has the decoder compiled or loaded already.

    >>> isinstance(compiled(), bool)
    True
    """
    return bool(_run.signatures)


def on_disk() -> bool:
    """Whether Numba's disk cache holds the decoder (a guess from the cache's index file;
    wrong only in what it costs).

    >>> isinstance(on_disk(), bool)
    True
    """
    try:
        return os.path.exists(_run._cache._cache_file._index_path)
    except AttributeError:  # another Numba's internals: assume the cache is there
        return True
