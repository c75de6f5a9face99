"""Every file's JSON ``stats`` text read at once, with ``pyarrow.json`` and a schema made from
the table's (``read_stats``), and which texts it must not be trusted with.

The texts become one newline-separated buffer, read in one call; if that fails (a bound of
another JSON type, a key written twice, a number beyond int64) or reads more rows than it has
(two objects on one line), it is read again in parts until the failing rows are found, which
go to the exact rules (``rules``). Some texts never reach ``pyarrow.json``, as
it reads them otherwise than Python's ``json`` (the definition) or not safely: ``NaN`` and
``Inf`` spellings, control characters (a line break could start a line with a bare ``null``,
which crashes it), texts that are no JSON object. Decimal bounds are read as DECIMAL at the
column's scale, which ``pyarrow.json`` may wrap around silently for a number far beyond the
column's precision: a second read of those bounds as doubles says which are safe.

>>> import pyarrow as pa
>>> texts = pa.array(['{"numRecords": 3, "minValues": {"x": 1}}', "not json",
...                   '{"numRecords": 4, "minValues": {"x": "one"}}', '{"x": NaN}'])
>>> parsed, floats, failed = read_stats(texts, [("x", pa.int64(), ("x",))])
>>> parsed.column("numRecords").to_pylist(), failed.tolist()
([3, None, None, None], [False, False, True, True])
"""

from __future__ import annotations

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.json as pj

__all__ = ["guard_decimals", "json_type", "read_stats"]

_FAN = 16  # parts a failing batch is read again in


def json_type(t: pa.DataType) -> pa.DataType | None:
    """How ``pyarrow.json`` reads a bound of column type ``t`` (None: not at all).

    >>> json_type(pa.timestamp("us", "UTC")), json_type(pa.decimal128(5, 2))
    (DataType(string), Decimal128Type(decimal128(38, 2)))
    """
    if pa.types.is_string(t) or pa.types.is_timestamp(t) or pa.types.is_date32(t):
        return pa.string()  # read as text: the rules look at how the value is written
    if pa.types.is_integer(t):
        return pa.int64()
    if pa.types.is_floating(t):
        return pa.float64()
    if pa.types.is_boolean(t):
        return pa.bool_()
    if pa.types.is_decimal(t):  # more decimals than the scale: a failing row (exact rules)
        return pa.decimal128(38, t.scale)
    return None  # binary: no bounds


class _Clash(Exception):
    """Two leaves whose physical paths cannot share one JSON schema."""


def _struct(paths: list[tuple[tuple, pa.DataType]]) -> pa.StructType:
    tree: dict = {}
    for keys, t in paths:
        node = tree
        for key in keys[:-1]:
            node = node.setdefault(key, {})
            if not isinstance(node, dict):
                raise _Clash(key)
        if node.get(keys[-1], t) != t:
            raise _Clash(keys[-1])
        node[keys[-1]] = t

    def build(node):
        return pa.struct([(k, build(v) if isinstance(v, dict) else v) for k, v in node.items()])

    return build(tree)


def _schema(leaves: list) -> pa.Schema:
    fields = [("numRecords", pa.int64()), ("tightBounds", pa.bool_())]
    bounded = [(keys, jt) for _, t, keys in leaves if (jt := json_type(t)) is not None]
    if bounded:
        fields += [("minValues", _struct(bounded)), ("maxValues", _struct(bounded))]
    if leaves:
        fields.append(("nullCount", _struct([(keys, pa.int64()) for _, _, keys in leaves])))
    return pa.schema(fields)


def _odd_texts(texts: pa.Array) -> tuple[np.ndarray, np.ndarray]:
    """(texts for the exact rules, texts with no JSON object). For the exact rules: texts
    pyarrow.json reads and Python's json does not, or reads otherwise (``NaN``, ``Inf`` and
    their spellings), and texts with a line break or another control character (a line of
    its own could start with a bare value, which pyarrow.json must never be given first).
    With no JSON object (no statistics, as Python's json reads them): null, blank, or not
    starting with ``{`` (a bare value, a byte order mark)."""
    n = len(texts)
    offsets = np.frombuffer(texts.buffers()[1], np.int32)[texts.offset : texts.offset + n + 1]
    data = texts.buffers()[2]
    data = np.frombuffer(data, np.uint8) if data is not None else np.zeros(0, np.uint8)
    odd = np.zeros(n, bool)

    def byte(at):  # 0 past the end (no copy of the bytes padded)
        if not len(data):
            return np.zeros(len(at), np.uint8)
        return np.where(at < len(data), data[np.minimum(at, len(data) - 1)], 0)

    # The bytes that start something odd (in place: fresh temporaries of every byte cost
    # more than the comparisons), then a look at what follows them.
    hit, other = data < 14, np.empty(len(data), bool)
    for letter in (ord("N"), ord("I")):
        np.logical_or(hit, np.equal(data, letter, out=other), out=hit)
    at = np.flatnonzero(hit)
    if len(at):
        first, second, third = data[at], byte(at + 1), byte(at + 2)
        nan = (first == ord("N")) & (second == ord("a")) & (third == ord("N"))
        inf = (first == ord("I")) & (second == ord("n")) & (third == ord("f"))
        bad = at[(first < 14) | nan | inf]
        odd[np.searchsorted(offsets, bad, side="right") - 1] = True
    start, length = offsets[:-1], np.diff(offsets)
    blank = ~texts.is_valid().to_numpy(zero_copy_only=False) | (length == 0)
    for r in np.flatnonzero(~blank & (byte(start) != ord("{"))):  # rare: look at the text
        blank[r] = not texts[int(r)].as_py().lstrip(" \t\n\r").startswith("{")
    return odd & ~blank, blank


def read_stats(texts: pa.Array, leaves: list) -> tuple[pa.Table, pa.Table, np.ndarray]:
    """(the texts read with the statistics schema, one row each (null where not read); the
    decimal bounds read as doubles, for :func:`guard_decimals`; rows the exact rules read).
    ``leaves``: (leaf key, column type, physical key path) of the columns with statistics."""
    n = len(texts)
    nothing = pa.table({"numRecords": pa.nulls(n, pa.int64())})
    if n == 0:
        return nothing, nothing, np.zeros(0, bool)
    try:
        schema = _schema(leaves)
    except _Clash:
        return nothing, nothing, np.ones(n, bool)  # malformed column mapping: the slow way
    odd, blank = _odd_texts(texts)
    lines = pc.binary_join_element_wise(pc.if_else(pa.array(odd | blank), "{}", texts), "", "\n")
    offsets = np.frombuffer(lines.buffers()[1], np.int32)[lines.offset : lines.offset + n + 1]
    data = lines.buffers()[2]
    parsed, failed = _read(data, offsets, schema)
    failed = (failed | odd) & ~blank  # a failing batch's blank rows ("{}") did not fail
    decimals = [(keys, pa.float64()) for _, t, keys in leaves if pa.types.is_decimal(t)]
    floats = nothing
    if decimals:
        section = _struct(decimals)
        floats, _ = _read(
            data, offsets, pa.schema([("minValues", section), ("maxValues", section)])
        )
    return parsed, floats, failed


def _read(data: pa.Buffer, offsets: np.ndarray, schema: pa.Schema):
    """(the lines read with ``schema``, null rows where they failed; those rows). A failing
    batch is read again in ``_FAN`` parts, failing parts again in theirs, down to single
    rows: a few bad rows cost a few extra passes over the bytes. Where most parts of a batch
    fail, its failing parts are left to the exact rules at once (mostly bad texts: the exact
    rules read them anyway, and splitting further would cost a read per row)."""
    n = len(offsets) - 1
    options = pj.ParseOptions(explicit_schema=schema, unexpected_field_behavior="ignore")
    read_options = pj.ReadOptions(block_size=max(1 << 20, int(np.diff(offsets).max()) + 1))
    failed = np.zeros(n, bool)
    pieces = []

    def attempt(lo: int, hi: int) -> bool:
        try:
            text = data.slice(int(offsets[lo]), int(offsets[hi] - offsets[lo]))
            part = pj.read_json(pa.BufferReader(text), read_options, options)
        except pa.ArrowException:
            return False
        if part.num_rows != hi - lo:  # two objects on a line, or a line break inside one
            return False
        pieces.append((lo, part))
        return True

    pending = [] if attempt(0, n) else [(0, n)]
    while pending:
        lo, hi = pending.pop()
        if hi - lo == 1:
            failed[lo] = True
            continue
        cuts = np.unique(np.linspace(lo, hi, _FAN + 1).astype(np.int64))
        parts = list(zip(cuts[:-1].tolist(), cuts[1:].tolist(), strict=True))
        bad = [(a, b) for a, b in parts if not attempt(a, b)]
        if 2 * len(bad) > len(parts):
            for a, b in bad:
                failed[a:b] = True
        else:
            pending += bad
    if not pieces:
        return pa.table({"numRecords": pa.nulls(n, pa.int64())}), failed
    pieces.sort(key=lambda p: p[0])
    read = pa.concat_tables([p for _, p in pieces]).combine_chunks()
    if read.num_rows != n:  # failed rows: null here
        index, at = np.full(n, -1, np.int64), 0
        for lo, part in pieces:
            index[lo : lo + part.num_rows] = np.arange(at, at + part.num_rows)
            at += part.num_rows
        read = read.take(pa.array(index, mask=index < 0))
    return read, failed


def guard_decimals(raw: pa.Array, doubles: pa.Array, t: pa.DataType):
    """(``raw`` where it is safe, else null; where it was not). ``pyarrow.json`` reads a
    number into DECIMAL(38, s) exactly below 10**(38 - s) and may wrap one far above it
    around to any value: a bound is kept only where the same text read as a double (never
    wrapped) is below that. Unsafe ones go to the exact rules.

    >>> raw = pa.array([1, 70], pa.decimal128(38, 35))  # 70: a wrapped 17084.3
    >>> guard_decimals(raw, pa.array([1.0, 17084.3]), pa.decimal128(5, 35))[1].tolist()
    [False, True]
    """
    valid = raw.is_valid().to_numpy(zero_copy_only=False)
    if not valid.any():
        return raw, valid
    if pa.types.is_floating(doubles.type):
        size = pc.fill_null(pc.abs(doubles), np.inf).to_numpy(zero_copy_only=False)
        safe = size < 10.0 ** (38 - t.scale)
    else:
        safe = np.zeros(len(raw), bool)
    unsafe = valid & ~safe
    if unsafe.any():
        raw = pc.if_else(pa.array(unsafe), pa.scalar(None, raw.type), raw)
    return raw, unsafe
