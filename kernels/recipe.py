"""How a program reads the batches of statistics: per program a ``Plan`` (how each slot is
read, the literal arguments not coded per batch, kept per program object), and per (plan, batch
schema) a ``Recipe`` worked out once: the children each slot needs, fetched and wrapped, absent
statistics known from the schema, and, for a kernel, the batch read straight into its table of
statistics (in compiled code through ``exported`` once a kernel has loaded Numba:
``use_compiled_read``). Batches a recipe does not cover (struct nulls, bounds to conform,
uint64 counts, value sets, LIKE) are read the general way (``inputs.read_slots``).
"""

from __future__ import annotations

import threading

import numpy as np
import pyarrow as pa

from prunekit.conformance import (
    compatible,
    conform_decimals,
    conform_timestamps,
    timestamp_readable,
)
from prunekit.errors import StatisticsError
from prunekit.expr.domains import domain_of, is_stringlike
from prunekit.expr.program.ir import Program

from .identity import PerObject
from .slots import (
    ABSENT,
    FOUND_ABSENT,
    FOUND_DENSE,
    FOUND_MASKED,
    NO_ROW,
    READ_ABSENT,
    READ_BITS,
    READ_OFFSETS32,
    READ_OFFSETS64,
    READ_VALUES,
    TABLE_COLUMNS,
    SlotData,
    read_kind,
    slot_data,
    table_row,
    value_kind,
)
from .string_codes import OFFSETS, group_literals, param_value, rank_codes, rank_key, short_codes

# A statistic that is not there at all reads as unknown, except exactness flags, which default
# to exact (docs/semantics.md §1: "default: exact").
DEFAULTS = {"min_exact": True, "max_exact": True}


def flag_data(arr: pa.Array | None, n: int) -> SlotData:
    """An exactness flag: a missing field means exact (the default), but a present one that is
    NULL means unknown, so not exact, also when every entry of the batch is NULL (which
    ``slot_data`` would call absent: a batch of Spark's must answer as the whole table does)."""
    if arr is None:
        return ABSENT
    if pa.types.is_null(arr.type) or arr.null_count == len(arr):
        unknown = np.zeros(n // 8 + 2, np.uint8)
        return SlotData(unknown, unknown, 0, bits=True)
    return slot_data(arr)


def int64_counts(arr: pa.Array | None) -> pa.Array | None:
    """A count statistic (``row_count``, ``null_count``, ``nan_count``) as int64.

    Numba and NumPy compare uint64 with int64 in float64, which is inexact above 2**53
    (``null_count == row_count`` could hold for 2**53 and 2**53 + 1); a count beyond int64 is
    no real count, so it is unknown."""
    if arr is None or not pa.types.is_uint64(arr.type):
        return arr
    import pyarrow.compute as pc  # imported when needed: it adds ~70 ms to `import prunekit`

    too_big = pc.fill_null(pc.greater(arr, pa.scalar(2**63 - 1, pa.uint64())), False)
    kept = pc.if_else(too_big, pa.scalar(None, pa.uint64()), arr)
    return kept.cast(pa.int64(), safe=False)  # only nulls hold values beyond int64


class Plan:
    """What ``prepare`` works out from the program alone, once per Program object: the
    columns' types, how each slot is read, and every parameter not coded per batch. A small
    batch (a notebook's 1,000 containers) would otherwise pay for it on every call."""

    def __init__(self, program: Program):
        self.types = dict(program.column_types)
        # per rank group of code-domain columns: its columns, and its literals with their
        # parameter index
        groups: dict[str, list] = {}
        for name, t in self.types.items():
            if domain_of(t) == "code":
                groups.setdefault(rank_key(t), []).append(name)
        self.code_groups = {key: (names, group_literals(program, names, self.types))
                            for key, names in groups.items()}
        # per rank group of short strings, the parameters its literals' keys make (the same
        # for every batch), once needed
        self.short_params: dict[str, dict] = {}
        self.list_params = frozenset(i for i, p in enumerate(program.params) if p.is_list)
        self.slots = tuple((_how(s, self.types), s) for s in program.slots)
        self.params = tuple(param_value(p, self.types) for p in program.params)
        # per column with both bounds read, their slots' indices (in slot order)
        bounds: dict[str, list[int]] = {}
        for k, (how, slot) in enumerate(self.slots):
            if how in ("bound", "coded") and slot.stat in ("min", "max"):
                bounds.setdefault(slot.column, []).append(k)
        self.bound_pairs = tuple(tuple(ks) for ks in bounds.values() if len(ks) == 2)
        self.first_of = {second: first for first, second in self.bound_pairs}
        # per column, the statistics its slots (and their readers) look at
        self.wanted = {name: tuple(dict.fromkeys(
            [s.stat for s in program.slots if s.column == name] + list(_ALWAYS_READ)))
            for name in self.types}
        # per column, the struct type last read and the wanted statistics' child indices in it
        self.children: dict[str, tuple[pa.DataType, tuple[tuple[str, int], ...]]] = {}
        self._last: tuple | None = None  # (the schema last read, its recipe)

    def recipe(self, schema: pa.Schema) -> Recipe | None:
        """How batches of ``schema`` are read, worked out once for a run of batches of one
        schema (a pipeline's): None when they need the general path, ``read_slots``."""
        last = self._last
        if last is not None and (last[0] is schema or last[0].equals(schema)):
            return last[1]
        recipe = Recipe.of(self, schema)
        self._last = (schema, recipe)
        return recipe


class Recipe:
    """The common case worked out per schema: every statistic a slot reads is a plain array of
    the type the kernel reads (bounds of the column's own type, not a decimal; counts not
    uint64), or absent from the schema, or short strings; no value sets or LIKE patterns.
    Then a call only fetches the children it needs and wraps their buffers, in the order the
    slots read them, and a batch with struct nulls still goes the general way. Whether a
    statistic is absent is known from the schema alone, so absent ones cost nothing per call
    (``read_slots`` works all of this out again on every call, for every batch).
    """

    def __init__(self, columns: tuple, slots: tuple, coded: tuple, compiled: tuple | None):
        self.columns = columns  # per column read: (field index, child indices or None)
        # per slot: (kind, position among the fetched arrays, and for a plain one its
        # ``read_kind``, for a coded one its (column, stat) key)
        self.slots = slots
        self.coded = coded  # per code-domain column: (name, ((stat, position), ...))
        # how ``exported.fill`` reads a batch (``_compiled_plan``), or None if it cannot
        self.compiled = compiled
        # ``fill``'s codes -> (layout, dtypes, keyed, ``Prepared.kernels``)
        self.layouts: dict[bytes, tuple] = {}

    @classmethod
    def of(cls, plan: Plan, schema: pa.Schema) -> Recipe | None:
        """The recipe for ``schema``'s batches, or None if they need the general path."""
        columns, where, stat_types = [], {}, {}
        fetched = 0

        def fetch(index: int, kids: tuple | None) -> None:
            nonlocal fetched
            columns.append((index, kids))
            fetched += 1 if kids is None else len(kids)

        needed: dict[str, list[str]] = {}
        for _, slot in plan.slots:
            if slot.column is not None:
                needed.setdefault(slot.column, []).append(slot.stat)
        for names, _ in plan.code_groups.values():
            for column in names:
                needed.setdefault(column, []).extend(("min", "max"))
        for name, stats in needed.items():
            index = schema.get_field_index(name)
            if index < 0:
                continue  # no statistics for this column: every one absent
            struct = schema.field(index).type
            if not pa.types.is_struct(struct) or not _plain_bounds(struct, plan.types[name]):
                return None  # an error, or bounds to conform: the general path
            kids = []
            for stat in dict.fromkeys(stats):
                i = struct.get_field_index(stat)
                if i >= 0:
                    where[(name, stat)] = fetched + len(kids)
                    stat_types[(name, stat)] = struct.field(i).type
                    kids.append(i)
            fetch(index, tuple(kids))
        slots = []
        for how, slot in plan.slots:
            key = (slot.column, slot.stat)
            if how == "like":
                return None  # a pattern tested against the bounds before the kernel
            if how == "rows":
                index = schema.get_field_index("row_count")
                if index < 0:
                    slots.append((READ_NONE, 0, None))
                    continue
                where[key], stat_types[key] = fetched, schema.field(index).type
                fetch(index, None)
            if key not in where:
                slots.append((READ_NONE, 0, None))  # a flag absent is exact: ABSENT too
                continue
            t = stat_types[key]
            tag, dtype = read_kind(t)
            if how == "flag":
                slots.append((READ_FLAG, where[key], None))
            elif how == "coded":  # the bounds are plain strings (``_plain_bounds``)
                slots.append((READ_CODED, 0, key))
            elif how in ("bound", "count", "rows") and tag in ("plain", "bits") and (
                    how != "bound" or t == plan.types[slot.column]) and (
                    how == "bound" or pa.types.is_integer(t) and not pa.types.is_uint64(t)):
                slots.append((READ_PLAIN, where[key], (tag, dtype)))
            else:  # conformed bounds, uint64 counts, value sets, LIKE patterns
                return None
        coded = tuple((column, tuple((stat, where[(column, stat)]) for stat in ("min", "max")
                                     if (column, stat) in where))
                      for names, _ in plan.code_groups.values() for column in names)
        return cls(tuple(columns), tuple(slots), coded,
                   _compiled_plan(plan, columns, slots, stat_types, where))

    def read(self, plan: Plan, batch: pa.RecordBatch, n: int, cache: dict | None,
             keys_in_kernel: bool) -> tuple[list[SlotData], dict] | None:
        """The slots and literal codes of one batch, or None if it has struct nulls."""
        arrays = self._fetch(batch)
        if arrays is None:
            return None
        codes = self._codes(plan, arrays, cache, keys_in_kernel)
        return [self._slot(k, arrays, codes, n) for k in range(len(self.slots))], codes

    def kernel_inputs(self, plan: Plan, batch: pa.RecordBatch, n: int, cache: dict | None,
                      keys_in_kernel: bool) -> tuple | None:
        """One batch read straight into a kernel's table: what ``slots.slot_table`` makes of
        ``read``'s slots after ``prepare`` has paired bounds of one validity, with the layout
        (``Prepared.layout``), the dtypes (``Prepared.dtypes``), the number of keyed string
        bounds and the literal codes; None if the batch has struct nulls. Plain numbers, the
        common slot, are read from their Arrow buffers without a NumPy array or a ``SlotData``
        (the batch keeps them alive), other slots' arrays are returned last, to be kept as
        long as the table is read (``Prepared.owner``)."""
        arrays = self._fetch(batch)
        if arrays is None:
            return None
        codes = self._codes(plan, arrays, cache, keys_in_kernel)
        rows, layout, dtypes, kept, keyed = [], [], [], [], 0
        shared = {}  # a slot with a bitmap of its own -> (bitmap, bit offset)
        for k, (kind, at, detail) in enumerate(self.slots):
            if kind == READ_PLAIN and detail[0] == "plain":  # as ``slot_data`` reads it
                arr = arrays[at]
                nulls = arr.null_count
                if nulls == n:
                    rows.append(NO_ROW)
                    layout.append(_ABSENT_LAYOUT)
                    dtypes.append(None)
                    continue
                bufs, off, dtype = arr.buffers(), arr.offset, detail[1]
                bitmap = bufs[0] if nulls and bufs[0] is not None else None
                row = [bufs[1].address + off * dtype.itemsize, n, off, 0, 0, 0, 0]
                if bitmap is not None:
                    row[3], row[4] = bitmap.address, bitmap.size
                encoding = False
            else:
                data = self._slot(k, arrays, codes, n)
                if data.values is None:
                    rows.append(NO_ROW)
                    layout.append(_ABSENT_LAYOUT)
                    dtypes.append(None)
                    continue
                bitmap, off, dtype = data.bitmap, data.bit_offset, value_kind(data.values)
                row = table_row(data)
                kept.append(data)  # codes or flags made for this call: the table's memory
                encoding = "keys" if data.keys_of is not None else data.bits
                keyed += data.keys_of is not None
            rows.append(row)
            dtypes.append(dtype)
            if bitmap is None:
                layout.append(("dense", encoding))
                continue
            first = plan.first_of.get(k)
            mate = shared.get(first) if first is not None else None
            if mate is not None and mate[1] == off and same_bits(
                    np.frombuffer(mate[0], np.uint8), np.frombuffer(bitmap, np.uint8), off, n):
                layout.append(("masked", encoding, first))
            else:
                layout.append(("masked", encoding))
                shared[k] = (bitmap, off)
        table = np.array(rows, np.int64).reshape(len(rows), TABLE_COLUMNS)
        return table, tuple(layout), tuple(dtypes), keyed, codes, kept, None

    def compiled_inputs(self, plan: Plan, batch: pa.RecordBatch, n: int,
                        cache: dict | None = None) -> tuple | None:
        """What ``kernel_inputs`` returns for ``batch`` (no arrays to keep), read in compiled
        code (``exported``): no Python object per column, child or buffer. None if the
        batch must take the general path. ``cache``: the batch's, where its export is kept."""
        paths, slot_kinds, read_as = self.compiled
        table = np.empty((len(self.slots), TABLE_COLUMNS), np.int64)
        found = np.empty(len(self.slots), np.int8)
        if compiled_read[0](batch, paths, slot_kinds, n, table, found, cache) != 0:
            return None
        key = found.tobytes()
        shape = self.layouts.get(key)
        if shape is None:
            shape = self.layouts[key] = (*_compiled_shape(found, read_as), {})
        layout, dtypes, keyed, kernels = shape
        return table, layout, dtypes, keyed, short_codes(plan), (), kernels

    def _fetch(self, batch: pa.RecordBatch) -> list | None:
        """The arrays the slots read, in the recipe's order; None if a struct has nulls."""
        arrays = []
        for index, kids in self.columns:
            column = batch.column(index)
            if kids is None:
                arrays.append(column)
                continue
            if column.null_count:
                return None  # struct nulls: folded into the children the general way
            arrays.extend([column.field(i) for i in kids])
        return arrays

    def _codes(self, plan: Plan, arrays: list, cache: dict | None,
               keys_in_kernel: bool) -> dict:
        if not self.coded:
            return {}
        fields = {name: {stat: arrays[at] for stat, at in stats} for name, stats in self.coded}
        return rank_codes(plan, fields, cache, keys_in_kernel)

    def _slot(self, k: int, arrays: list, codes: dict, n: int) -> SlotData:
        kind, at, detail = self.slots[k]
        if kind == READ_NONE:
            return ABSENT
        if kind == READ_CODED:
            return codes.get(detail, ABSENT)
        if kind == READ_FLAG:
            return flag_data(arrays[at], n)
        return slot_data(arrays[at], detail)  # plain numbers or bits, their ``read_kind`` known


_ABSENT_LAYOUT = ABSENT.layout


READ_NONE, READ_PLAIN, READ_FLAG, READ_CODED = range(4)


# ``exported.read`` once a kernel is loaded in the process (``use_compiled_read``), else None:
# importing it loads Numba, which an answer from the NumPy interpreter must not wait for.
compiled_read: list = [None]


def use_compiled_read(wait: bool = False) -> None:
    """Read batches a recipe covers in compiled code (``exported``) once its reader is
    loaded: now with ``wait``, else without blocking: from Numba's disk cache on a thread of
    its own (milliseconds), or, on a machine that never compiled it, through the background
    compiler (``compiler.py``, seconds in a child process). Called once Numba is loaded for a
    kernel; until the reader is ready, batches are read through pyarrow."""
    if compiled_read[0] is not None:
        return
    if wait:
        _load_compiled_read()
        return
    with _compiled_lock:
        if _compiled_started:
            return
        _compiled_started.append(True)
    from . import compiler
    from .exported import on_disk

    if on_disk():
        threading.Thread(target=_load_compiled_read, daemon=False,
                         name="prunekit-load-reader").start()
    elif not compiler.submit("compiled reader", ("reader",), _load_compiled_read):
        _compiled_started.clear()  # not queued (a full queue): asked again later


_compiled_lock = threading.Lock()


_compiled_started: list = []


def _load_compiled_read() -> None:
    from .exported import loaded_read

    compiled_read[0] = loaded_read()


def _compiled_plan(plan: Plan, columns: list, slots: list, stat_types: dict,
                   where: dict) -> tuple | None:
    """How ``exported.fill`` reads a recipe's batches: the fetched arrays' paths, per slot
    its kind, array, width in bytes and bound-pair mate, and per slot how its values are
    read (a dtype and an encoding); None if a slot is one it does not read (a flag), or if
    bounds are ranked other than as strings (DECIMAL beyond 18 digits): compiled code reads
    strings' keys, and such a literal is no string's key, even where a batch holds no such
    bounds."""
    if any(key != "bytes" for key in plan.code_groups):
        return None
    paths = [(index, -1 if kids is None else kid)
             for index, kids in columns for kid in (kids if kids is not None else (None,))]
    kinds, read_as = [], []
    for k, (kind, at, detail) in enumerate(slots):
        mate = plan.first_of.get(k, -1)
        if kind == READ_NONE:
            kinds.append((READ_ABSENT, 0, 0, -1))
            read_as.append((None, False, -1))
        elif kind == READ_PLAIN and detail[0] == "plain":
            kinds.append((READ_VALUES, at, detail[1].itemsize, mate))
            read_as.append((detail[1], False, mate))
        elif kind == READ_PLAIN and detail[0] == "bits":
            kinds.append((READ_BITS, at, 0, mate))
            read_as.append((np.dtype(np.uint8), True, mate))
        elif kind == READ_CODED:
            offsets = np.dtype(OFFSETS[stat_types[detail]])
            kinds.append((READ_OFFSETS32 if offsets.itemsize == 4 else READ_OFFSETS64,
                          where[detail], offsets.itemsize, mate))
            read_as.append((offsets, "keys", mate))
        else:
            return None
    return (np.array(paths, np.int64).reshape(len(paths), 2),
            np.array(kinds, np.int64).reshape(len(kinds), 4), tuple(read_as))


def _compiled_shape(found: np.ndarray, read_as: tuple) -> tuple:
    """The layout, dtypes and keyed-bound count of ``exported.fill``'s layout codes."""
    layout, dtypes, keyed = [], [], 0
    for code, (dtype, encoding, mate) in zip(found.tolist(), read_as, strict=True):
        if code == FOUND_ABSENT:
            layout.append(_ABSENT_LAYOUT)
            dtypes.append(None)
            continue
        dtypes.append(dtype)
        keyed += encoding == "keys"
        layout.append(("dense", encoding) if code == FOUND_DENSE else ("masked", encoding)
                      if code == FOUND_MASKED else ("masked", encoding, mate))
    return tuple(layout), tuple(dtypes), keyed


def _plain_bounds(struct: pa.StructType, expected: pa.DataType) -> bool:
    """Whether the bounds in ``struct`` (those present) are read as they are: of the column's
    own type and no decimal, or, for a string or binary column, strings with plain offsets."""
    for bound in ("min", "max"):
        i = struct.get_field_index(bound)
        if i < 0:
            continue
        t = struct.field(i).type
        if domain_of(expected) == "code":
            if not (is_stringlike(expected) and t in OFFSETS):
                return False
        elif t != expected or pa.types.is_decimal(t):
            return False
    return True


# Looked up whatever a column's slots are: the bounds (membership and LIKE slots read them too)
# and the exactness flags a conversion of bounds may narrow.
_ALWAYS_READ = ("min", "max", "min_exact", "max_exact")


plans = PerObject()


def same_validity(a: SlotData, b: SlotData, n: int) -> bool:
    """Whether two masked slots of ``n`` entries have the same validity bits. A column's min
    and max are NULL together wherever a writer had no statistics, so the kernel unpacks and
    tests one bitmap for both: an unpack per chunk and a load per container fewer, for a
    memcmp of n / 8 bytes here. Whole bytes are compared, so bits outside the entries that
    differ only make the answer False.

    >>> x = slot_data(pa.array([1, None, 3]))
    >>> same_validity(x, slot_data(pa.array([4, None, 6])), 3)
    True
    >>> same_validity(x, slot_data(pa.array([None, 5, 6])), 3)
    False
    """
    if a.bitmap is None or b.bitmap is None or a.values is None or b.values is None or \
            a.bit_offset != b.bit_offset:
        return False
    return same_bits(a.bitmap, b.bitmap, a.bit_offset, n)


def same_bits(a: np.ndarray, b: np.ndarray, bit_offset: int, n: int) -> bool:
    """Whether bitmaps ``a`` and ``b`` hold the same ``n`` bits from ``bit_offset`` on (whole
    bytes compared: see ``same_validity``)."""
    first, end = bit_offset >> 3, (bit_offset + n + 7) >> 3
    if a is b:
        return True
    if len(a) < end or len(b) < end:
        return False
    x, y = a[first:end], b[first:end]
    if end - first <= 4096:  # a small batch's: copies compare sooner than pyarrow's wrappers
        return x.tobytes() == y.tobytes()
    return pa.py_buffer(x).equals(pa.py_buffer(y))


def _how(slot, types: dict) -> str:
    if slot.column is None:
        return "rows"
    if slot.stat in ("null_count", "nan_count"):
        return "count"
    if slot.stat in DEFAULTS:
        return "flag"
    if slot.stat in ("values", "bloom"):
        return "members"
    if slot.stat == "like":
        return "like"
    if slot.stat in ("min", "max") and domain_of(types[slot.column]) == "code":
        return "coded"
    return "bound"


def struct_fields(batch: pa.RecordBatch, schema: pa.Schema, name: str, expected: pa.DataType,
                   wanted: tuple[str, ...], children: dict) -> dict:
    """The ``wanted`` statistics of column ``name`` (struct nulls folded in), bounds read as
    values of the column's type ``expected``. ``children`` remembers, per column, the child
    indices of the wanted statistics in the struct type last seen: batches of one pipeline
    share a schema, and looking fields up by name cost more than reading them."""
    idx = schema.get_field_index(name)
    if idx < 0:
        return {}  # no statistics for this column: every one unknown
    column = batch.column(idx)
    struct = column.type
    if not pa.types.is_struct(struct):
        raise StatisticsError(f"statistics column {name!r} must be a struct, got {column.type}")
    known = children.get(name)
    if known is None or not known[0].equals(struct):
        known = children[name] = (struct, tuple(
            (stat, i) for stat in wanted if (i := struct.get_field_index(stat)) >= 0))
    if column.null_count:  # children with the struct's own nulls folded in
        flat = column.flatten()
        out = {stat: flat[i] for stat, i in known[1]}
    else:  # no struct nulls: the children as they are, only those wanted
        out = {stat: column.field(i) for stat, i in known[1]}
    lo, hi = out.get("min"), out.get("max")
    if ((lo is None or lo.type == expected) and (hi is None or hi.type == expected)
            and not (pa.types.is_decimal(expected) and expected.bit_width < 128)):
        return out  # bounds of the column's own type, read as they are
    return _conformed(out, name, expected)


def _conformed(out: dict, name: str, expected: pa.DataType) -> dict:
    """Bounds of another type made values of ``expected`` where they can be (decimals of
    another precision or width, timestamps of another unit), else an error naming them."""
    for bound in ("min", "max"):
        arr = out.get(bound)
        if arr is not None and pa.types.is_decimal(arr.type) and pa.types.is_decimal(
                expected) and arr.type != expected:
            out[bound] = conform_decimals(arr, expected)
        if arr is not None and pa.types.is_decimal(arr.type) and out[bound].type.bit_width < 128:
            # decimal32 and decimal64: as decimal128, the one narrow layout kernels read
            t = out[bound].type
            out[bound] = out[bound].cast(pa.decimal128(t.precision, t.scale))
    for bound in ("min", "max"):
        arr = out.get(bound)
        if arr is not None and timestamp_readable(arr.type, expected):
            out[bound], widened = conform_timestamps(arr, expected, bound)
            if widened.any():  # a widened bound is no value of the container
                flag, keep = out.get(f"{bound}_exact"), pa.array(~widened)
                if flag is None:  # absent: exact, except where widened
                    out[f"{bound}_exact"] = keep
                elif not pa.types.is_null(flag.type):  # a NULL-typed flag is inexact already
                    out[f"{bound}_exact"] = _and_flags(flag, keep)
    for bound in ("min", "max"):
        if bound in out and not pa.types.is_null(out[bound].type) and not compatible(
                out[bound].type, expected):
            raise StatisticsError(
                f"statistics {name}.{bound} have type {out[bound].type}, but column {name!r} "
                f"is {expected}")
    return out


def _and_flags(flag: pa.Array, keep: pa.Array) -> pa.Array:
    import pyarrow.compute as pc

    return pc.and_kleene(flag.cast(pa.bool_()), keep)
