"""The canonical statistics table of a Delta snapshot's live files, built column by column.

Every file's JSON ``stats`` text is read in one ``pyarrow.json`` call, with a schema made from
the table's schema (numbers as int64, float64 or a wide decimal; timestamps and dates as
text); rows of a checkpoint with ``stats_parsed`` are read from it, typed, instead. Bounds then
follow ``_delta_values`` (vector rules). What those do not cover goes, one file at a time, to
``_delta_rules.file_cells``, the definition of every rule:

- a text ``pyarrow.json`` reads otherwise than Python's ``json`` would (``NaN``, ``Infinity``
  and their spellings, a byte order mark, line breaks inside, two objects on one line) or
  cannot read (a bound of another JSON type, a key written twice, a number beyond int64):
  found before the read, or by reading halves of a failing batch again until the failing
  rows are found;
- odd cells ``_delta_values`` leaves out: only those cells are replaced.

Partition columns are read once per distinct value text (``_delta_rules.partition_cell``), or
from ``partitionValues_parsed`` where a checkpoint types them (never for a TIMESTAMP, whose
text says whether a zone was written).

>>> import pyarrow as pa
>>> from prunekit.sources._delta_rules import Layout
>>> stats = '{"numRecords": 2, "minValues": {"x": 1}, "maxValues": {"x": NaN}}'
>>> live = pa.table({"path": ["a"], "size": [1], "dv": [False],
...                  "dv_cardinality": pa.array([None], pa.int64()), "stats": [stats]})
>>> t = table("/t", live, Layout({"x": (pa.float64(), ("x",))}, set(), 32))
>>> t.column("x").to_pylist()   # read by the exact rules: Python's json reads NaN
[{'min': 1.0, 'max': nan, 'null_count': None, 'min_exact': True, 'max_exact': True}]
"""

from __future__ import annotations

import json

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.json as pj

from ._delta_log import local_paths
from ._delta_rules import FIELDS, Layout, file_cells, jsonable, partition_cell
from ._delta_values import bounds, partition_bounds

__all__ = ["table"]

_SMALL = 8  # a failing batch this small is read by the exact rules, row by row
_RETRIES = 256  # failing reads before every row left is read by the exact rules


def table(root: str, live: pa.Table, lay: Layout) -> pa.Table:
    """The statistics table (``prunekit.sources.delta``'s layout) of the live files
    ``_delta_log.replay`` returns, in its order."""
    n = live.num_rows
    dv = live.column("dv").to_numpy()
    cardinality = live.column("dv_cardinality").combine_chunks()
    typed = (
        _valid(live.column("stats_parsed"))
        if "stats_parsed" in live.column_names
        else np.zeros(n, bool)
    )
    leaves = [
        (name, t, keys) for name, (t, keys) in lay.columns.items() if name not in lay.partitions
    ]
    texts = live.column("stats").combine_chunks()
    if typed.any():
        texts = pc.if_else(pa.array(typed), pa.scalar(None, pa.string()), texts)
    parsed, failed = _read_json(texts, leaves)
    sources = [(parsed, ~typed)]
    if typed.any():
        sources.append((live.column("stats_parsed").combine_chunks(), typed))

    records = _merge([_count(_section(s, "numRecords")) for s, _ in sources], sources)
    loose = _merge([_loose(_section(s, "tightBounds")) for s, _ in sources], sources)
    tight = ~np.asarray(loose, bool) & ~dv
    rows = _row_counts(records, dv, cardinality)

    columns = {}
    for name, t, keys in leaves:
        lo = [bounds(_leaf(s, "minValues", keys), t, lay.prefix, False) for s, _ in sources]
        hi = [bounds(_leaf(s, "maxValues", keys), t, lay.prefix, True) for s, _ in sources]
        nulls = [_count(_leaf(s, "nullCount", keys)) for s, _ in sources]
        columns[name] = [
            _merge([b[k] for b in side], sources) for side in (lo, hi) for k in range(3)
        ] + [_merge(nulls, sources)]

    # Files and cells the vector rules leave to the exact ones.
    odd = failed.copy()
    for parts in columns.values():
        odd |= parts[2] | parts[5]
    exact = {}
    for r in np.flatnonzero(odd):
        exact[r] = file_cells(
            _text(live, int(r), typed[r]), bool(dv[r]), cardinality[int(r)].as_py(), lay
        )
    fixed = np.flatnonzero(failed)
    rows = _patch(rows, fixed, [exact[r][0] for r in fixed], pa.int64())
    tight[fixed] = [exact[r][1] for r in fixed]

    out = {
        "path": local_paths(root, live.column("path").combine_chunks()),
        "size": live.column("size").combine_chunks(),
        "row_count": rows,
    }
    for name, (t, keys) in lay.columns.items():
        if name in lay.partitions:
            out[name] = _partition_column(live, keys[0], t, rows)
            continue
        lo, lo_exact, lo_odd, hi, hi_exact, hi_odd, nulls = columns[name]
        parts = []
        for values, flags, redo, i in ((lo, lo_exact, lo_odd, 0), (hi, hi_exact, hi_odd, 1)):
            at = np.flatnonzero(redo | failed)
            valid = values.is_valid().to_numpy(zero_copy_only=False)
            flags = pa.array(flags & tight, mask=~valid)
            parts.append(
                (
                    _patch(values, at, [exact[r][2][name][i] for r in at], t),
                    _patch(flags, at, [exact[r][2][name][3 + i] for r in at], pa.bool_()),
                )
            )
        nulls = pc.if_else(pa.array(tight), nulls, pa.scalar(None, pa.int64()))
        nulls = _patch(nulls, fixed, [exact[r][2][name][2] for r in fixed], pa.int64())
        (lo, lo_exact), (hi, hi_exact) = parts
        out[name] = pa.StructArray.from_arrays([lo, hi, nulls, lo_exact, hi_exact], FIELDS)
    return pa.table(out)


def _valid(column) -> np.ndarray:
    return column.is_valid().to_numpy(zero_copy_only=False) if len(column) else np.zeros(0, bool)


def _text(live: pa.Table, r: int, typed: bool):
    """A file's stats as JSON text (a typed checkpoint row as the JSON log would say it)."""
    if not typed:
        return live.column("stats")[r].as_py()
    try:
        return json.dumps(live.column("stats_parsed")[r].as_py(), default=jsonable)
    except (TypeError, ValueError, OverflowError):  # values Python cannot hold: unknown
        return None


def _merge(parts: list, sources: list):
    """One array from per-source arrays, each source's own rows taken from it."""
    out = parts[0]
    for part, (_, rows) in zip(parts[1:], sources[1:], strict=True):
        if isinstance(out, np.ndarray):
            out = np.where(rows, part, out)
        else:
            out = pc.if_else(pa.array(rows), part, out)
    return out


def _patch(values, at: np.ndarray, new: list, t: pa.DataType) -> pa.Array:
    """``values`` with the rows ``at`` replaced by ``new``."""
    if not len(at):
        return values
    index = np.full(len(values), len(at), np.int64)
    index[at] = np.arange(len(at))
    spread = pa.array(new + [None], t).take(pa.array(index))
    mask = np.zeros(len(values), bool)
    mask[at] = True
    return pc.if_else(pa.array(mask), spread, values)


# ---- reading the JSON texts --------------------------------------------------------------
def _json_type(t: pa.DataType) -> pa.DataType | None:
    if pa.types.is_string(t) or pa.types.is_timestamp(t) or pa.types.is_date32(t):
        return pa.string()  # read as text: the rules look at how the value is written
    if pa.types.is_integer(t):
        return pa.int64()
    if pa.types.is_floating(t):
        return pa.float64()
    if pa.types.is_boolean(t):
        return pa.bool_()
    if pa.types.is_decimal(t):  # the column's integer digits and as many decimals as fit
        return pa.decimal128(38, 38 - (t.precision - t.scale))
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
    bounded = [(keys, jt) for _, t, keys in leaves if (jt := _json_type(t)) is not None]
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
    pad = np.concatenate([data, np.zeros(3, np.uint8)])
    odd = np.zeros(n, bool)
    # One pass for the bytes that start something odd, then a look at what follows them.
    at = np.flatnonzero((data < 14) | (data == ord("N")) | (data == ord("I")))
    if len(at):
        first, second, third = data[at], pad[at + 1], pad[at + 2]
        nan = (first == ord("N")) & (second == ord("a")) & (third == ord("N"))
        inf = (first == ord("I")) & (second == ord("n")) & (third == ord("f"))
        bad = at[(first < 14) | nan | inf]
        odd[np.searchsorted(offsets, bad, side="right") - 1] = True
    start, length = offsets[:-1], np.diff(offsets)
    blank = ~texts.is_valid().to_numpy(zero_copy_only=False) | (length == 0)
    for r in np.flatnonzero(~blank & (pad[start] != ord("{"))):  # rare: look at the text
        blank[r] = not texts[int(r)].as_py().lstrip(" \t\n\r").startswith("{")
    return odd & ~blank, blank


def _read_json(texts: pa.Array, leaves: list) -> tuple[pa.Table, np.ndarray]:
    """(the texts read with the statistics schema, one row each; rows the exact rules read)."""
    n = len(texts)
    nothing = pa.table({"numRecords": pa.nulls(n, pa.int64())})
    if n == 0:
        return nothing, np.zeros(0, bool)
    try:
        schema = _schema(leaves)
    except _Clash:
        return nothing, np.ones(n, bool)  # malformed column mapping: every file the slow way
    odd, blank = _odd_texts(texts)
    lines = pc.binary_join_element_wise(pc.if_else(pa.array(odd | blank), "{}", texts), "", "\n")
    offsets = np.frombuffer(lines.buffers()[1], np.int32)[lines.offset : lines.offset + n + 1]
    data = lines.buffers()[2]
    options = pj.ParseOptions(explicit_schema=schema, unexpected_field_behavior="ignore")
    block = max(1 << 20, int(np.diff(offsets).max()) + 1)
    failed = odd
    pieces, stack, retries = [], [(0, n)], 0
    while stack:
        lo, hi = stack.pop()
        if retries > _RETRIES:
            failed[lo:hi] = True
            continue
        try:
            text = data.slice(int(offsets[lo]), int(offsets[hi] - offsets[lo]))
            part = pj.read_json(
                pa.BufferReader(text),
                parse_options=options,
                read_options=pj.ReadOptions(block_size=block),
            )
            if part.num_rows == hi - lo:
                pieces.append((lo, part))
                continue
        except pa.ArrowException:
            pass
        retries += 1
        if hi - lo <= _SMALL:
            failed[lo:hi] = True
        else:
            mid = (lo + hi) // 2
            stack += [(mid, hi), (lo, mid)]
    failed &= ~blank  # a failing batch's blank rows ("{}") did not fail
    if not pieces:
        return nothing, failed
    pieces.sort(key=lambda p: p[0])
    read = pa.concat_tables([p for _, p in pieces]).combine_chunks()
    if read.num_rows != n:  # rows of failing batches: null here
        index, at = np.full(n, -1, np.int64), 0
        for lo, part in pieces:
            index[lo : lo + part.num_rows] = np.arange(at, at + part.num_rows)
            at += part.num_rows
        read = read.take(pa.array(index, mask=index < 0))
    return read, failed


# ---- one source's columns ----------------------------------------------------------------
def _section(source, name: str) -> pa.Array:
    """A top-level field of a statistics source (a table or a struct array); nulls if absent."""
    if isinstance(source, pa.Table):
        if name in source.column_names:
            return source.column(name).combine_chunks()
    elif source.type.get_field_index(name) >= 0:
        return pc.struct_field(source, name)
    return pa.nulls(len(source))


def _leaf(source, section: str, keys: tuple) -> pa.Array:
    node = _section(source, section)
    for key in keys:
        if not pa.types.is_struct(node.type) or node.type.get_field_index(key) < 0:
            return pa.nulls(len(source))
        node = pc.struct_field(node, key)
    return node


def _count(raw) -> pa.Array:
    """A count (``numRecords``, a null count): a non-negative integer, else unknown."""
    if not pa.types.is_integer(raw.type):
        return pa.nulls(len(raw), pa.int64())
    if raw.type == pa.uint64():
        raw = pc.if_else(pc.greater(raw, 2**63 - 1), pa.scalar(None, raw.type), raw)
    raw = raw.cast(pa.int64())
    return pc.if_else(pc.less(raw, 0), pa.scalar(None, pa.int64()), raw)


def _loose(raw) -> np.ndarray:
    """``tightBounds`` is false (only a boolean false makes bounds loose)."""
    if not pa.types.is_boolean(raw.type):
        return np.zeros(len(raw), bool)
    return pc.fill_null(pc.invert(raw), False).to_numpy(zero_copy_only=False)


def _row_counts(records: pa.Array, dv: np.ndarray, cardinality: pa.Array) -> pa.Array:
    """``numRecords`` less the deletion vector's cardinality (unknown if that is not a count
    within it)."""
    if not dv.any():
        return records
    less = pc.subtract(records, cardinality)
    ok = pc.and_(pc.greater_equal(cardinality, 0), pc.greater_equal(less, 0))
    kept = pc.if_else(ok, less, pa.scalar(None, pa.int64()))
    return pc.if_else(pa.array(dv), kept, records)


# ---- partition columns -------------------------------------------------------------------
def _partition_column(live: pa.Table, key: str, t: pa.DataType, rows: pa.Array):
    texts = live.column(f"pv:{key}").combine_chunks()
    encoded = pc.dictionary_encode(texts)
    cells = [partition_cell(v, t, None) for v in encoded.dictionary.to_pylist()]
    index = encoded.indices
    lo, hi, nulls, lo_exact, hi_exact = (
        pa.array([c[i] for c in cells], t if i < 2 else pa.int64() if i == 2 else pa.bool_()).take(
            index
        )
        for i in range(5)
    )
    absent = texts.is_null()  # NULL on every row of the file
    nulls = pc.if_else(absent, rows, nulls)
    lo_exact = pc.if_else(absent, True, lo_exact)
    hi_exact = pc.if_else(absent, True, hi_exact)
    if f"pvp:{key}" in live.column_names:
        low, high, usable = partition_bounds(live.column(f"pvp:{key}").combine_chunks(), t)
        given = pc.fill_null(pc.not_equal(texts, ""), False).to_numpy(zero_copy_only=False)
        use = pa.array(usable & given)
        lo, hi = pc.if_else(use, low, lo), pc.if_else(use, high, hi)
        nulls = pc.if_else(use, 0, nulls)
        lo_exact, hi_exact = pc.if_else(use, True, lo_exact), pc.if_else(use, True, hi_exact)
    return pa.StructArray.from_arrays([lo, hi, nulls, lo_exact, hi_exact], FIELDS)
