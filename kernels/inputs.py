"""From one Arrow record batch of statistics to the arrays a kernel reads.

Numeric statistics are wrapped without copying (``slots.slot_data``). Strings, binary and
decimals wider than 18 digits are ranked into order-preserving int64 codes, together with the
literals compared with them, once per batch and outside the hot loop (pyarrow's ``rank``, which
orders binary data by bytes, i.e. UTF-8 binary collation).

>>> import pyarrow as pa
>>> from prunekit.expr.sql import parse
>>> from prunekit.expr.bind import bind
>>> from prunekit.expr.rewrite import rewrite
>>> prog = rewrite(bind(parse("x > 5"), pa.schema([("x", pa.int64())])))
>>> x = pa.StructArray.from_arrays([pa.array([0, 6]), pa.array([4, 9]), pa.array([0, None])],
...                                ["min", "max", "null_count"])
>>> prepared = prepare(prog, pa.record_batch({"x": x}), {}, frozenset())
>>> [(slot.stat, data.layout) for slot, data in zip(prog.slots, prepared.slots)]
[('row_count', ('absent', False)), ('null_count', ('masked', False)), ('min', ('dense', False)), \
('max', ('dense', False))]
"""

from __future__ import annotations

import threading
from dataclasses import dataclass

import numpy as np
import pyarrow as pa

from prunekit.conformance import (
    compatible,
    conform_decimals,
    conform_timestamps,
    timestamp_readable,
)
from prunekit.errors import StatisticsError
from prunekit.expr.domains import domain_of, is_stringlike, unscaled_to_decimal
from prunekit.expr.program import Program

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
    short_key,
    slot_data,
    slot_table,
    table_row,
    validity,
    value_kind,
)

# A statistic that is not there at all reads as unknown, except exactness flags, which default
# to exact (docs/semantics.md §1: "default: exact").
DEFAULTS = {"min_exact": True, "max_exact": True}


def _flag_data(arr: pa.Array | None, n: int) -> SlotData:
    """An exactness flag: a missing field means exact (the default), but a present one that is
    NULL means unknown, so not exact, also when every entry of the batch is NULL (which
    ``slot_data`` would call absent: a batch of Spark's must answer as the whole table does)."""
    if arr is None:
        return ABSENT
    if pa.types.is_null(arr.type) or arr.null_count == len(arr):
        unknown = np.zeros(n // 8 + 2, np.uint8)
        return SlotData(unknown, unknown, 0, bits=True)
    return slot_data(arr)


def _count(arr: pa.Array | None) -> pa.Array | None:
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


@dataclass
class Prepared:
    n: int
    slots: list[SlotData] | None  # None: read for a kernel alone (``table``), not interpretable
    params: list  # NumPy scalars and sorted arrays
    flags: list[bool]
    # how many string bounds a kernel keys, when the batch was read straight into a kernel's
    # table (``prepare(..., for_kernel=True)``)
    keyed: int = 0
    # what the slots' arrays are views of, where the table was filled without them: kept for
    # as long as the table is read
    owner: object = None
    # per tuple of flags, the kernel for this batch's shape once it is ready: kept with the
    # layout a recipe's compiled read found (the program, its recipe and the layout fix every
    # other part of the shape), so that a call on a small batch does not work the shape out
    # and hash it again to look its kernel up (``run._run_batch``); None: not kept
    kernels: dict | None = None

    @property
    def layout(self) -> tuple:
        """Every slot's ``SlotData.layout``, worked out once (a kernel is looked up by it; not
        ``functools.cached_property``, whose lock cost more than the tuple)."""
        layout = self.__dict__.get("_layout")
        if layout is None:
            layout = self.__dict__["_layout"] = tuple([s.layout for s in self.slots])
        return layout

    @property
    def dtypes(self) -> tuple:
        """How a kernel reads each slot's values (``slots.value_kind``; None where absent)."""
        dtypes = self.__dict__.get("_dtypes")
        if dtypes is None:
            dtypes = self.__dict__["_dtypes"] = tuple(
                [None if s.values is None else value_kind(s.values) for s in self.slots])
        return dtypes

    @property
    def table(self) -> np.ndarray:
        """The table of statistics a kernel reads (``slots.slot_table``)."""
        table = self.__dict__.get("_table")
        if table is None:
            table = self.__dict__["_table"] = slot_table(self.slots)
        return table


def prepare(program: Program, batch: pa.RecordBatch, nan_in_bounds: dict[str, bool],
            no_nan: frozenset[str], cache: dict | None = None,
            keys_in_kernel: bool = True, for_kernel: bool = False) -> Prepared:
    """Everything one kernel call over ``batch`` needs. ``cache`` keeps work that depends on
    the batch alone (ranked string codes) for the next call over the same batch.

    ``keys_in_kernel``: string bounds with plain offsets are passed as their Arrow offsets and
    bytes, to be keyed chunk by chunk where they are read; reading raises ``LongStrings``
    (the interpreter) or the kernel returns 1 if a string is longer than 7 bytes, and the
    caller prepares again without.

    ``for_kernel``: a batch its schema's recipe reads is read straight into a kernel's
    table (``Prepared.table``, no ``slots``: interpreters cannot run it). On a notebook's
    1,000 containers the per-slot wrappers cost about a tenth of a call."""
    plan = _plans.get(program, _Plan)
    n = batch.num_rows
    schema = batch.schema
    recipe = plan.recipe(schema)
    flags = [(col in no_nan) if name == "no_nan" else nan_in_bounds.get(col, False)
             for col, name in program.flags]
    if for_kernel and recipe is not None:
        lean = None
        if recipe.compiled is not None and _compiled_read[0] is not None and keys_in_kernel \
                and not (recipe.coded and cache and any(k[0] == "codes" for k in cache)):
            lean = recipe.compiled_inputs(plan, batch, n, cache)  # not over ranked codes
        if lean is None:
            lean = recipe.kernel_inputs(plan, batch, n, cache, keys_in_kernel)
        if lean is not None:
            table, layout, dtypes, keyed, codes, kept, kernels = lean
            prepared = Prepared(n, None, _params(plan, codes), flags, keyed, (batch, kept),
                                kernels)
            prepared.__dict__.update(_table=table, _layout=layout, _dtypes=dtypes)
            return prepared
    read = recipe.read(plan, batch, n, cache, keys_in_kernel) if recipe is not None else None
    slots, codes = read or _read_slots(plan, batch, schema, n, cache, keys_in_kernel)
    for first, second in plan.bound_pairs:
        if same_validity(slots[first], slots[second], n):
            s = slots[second]
            slots[second] = SlotData(s.values, s.bitmap, s.bit_offset, s.bits, s.keys_of,
                                     validity_of=first)
    return Prepared(n, slots, _params(plan, codes), flags)


def _params(plan: _Plan, codes: dict) -> list:
    if not codes:
        return list(plan.params)  # none coded per batch
    return [p if p is not None else codes[("param", i)] for i, p in enumerate(plan.params)]


def _read_slots(plan: _Plan, batch: pa.RecordBatch, schema: pa.Schema, n: int,
                cache: dict | None, keys_in_kernel: bool) -> tuple[list[SlotData], dict]:
    """Every slot of ``plan`` read from ``batch``, and the codes of string literals, whatever
    the statistics look like: struct nulls folded in, bounds of another type conformed,
    uint64 counts checked, value sets and LIKE patterns tested."""
    types = plan.types
    fields = {name: _struct_fields(batch, schema, name, t, plan.wanted[name], plan.children)
              for name, t in types.items()}
    codes = _rank_codes(plan, fields, cache, keys_in_kernel) if plan.code_groups else {}
    slots = []
    for how, slot in plan.slots:
        column, stat = slot.column, slot.stat
        if how == "bound":
            slots.append(slot_data(fields[column].get(stat)))
        elif how == "count":
            slots.append(slot_data(_count(fields[column].get(stat))))
        elif how == "rows":
            idx = batch.schema.get_field_index("row_count")
            slots.append(slot_data(_count(batch.column(idx))) if idx >= 0 else ABSENT)
        elif how == "coded":
            found = codes.get((column, stat))
            slots.append(found if found is not None else slot_data(fields[column].get(stat)))
        elif how == "flag":
            slots.append(_flag_data(fields[column].get(stat), n))
        elif how == "members":
            if fields[column].get(stat) is None:  # no value sets or filters (the usual case)
                slots.append(ABSENT)
            else:
                from .valuesets import value_set_slot  # membership, computed before the kernel

                slots.append(value_set_slot(slot, fields[column], types[column]))
        else:  # "like"
            from .patterns import like_slot  # a whole LIKE pattern, tested before the kernel

            slots.append(like_slot(slot.literals[0], fields[column]))
    return slots, codes


class _Plan:
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
                groups.setdefault(_rank_key(t), []).append(name)
        self.code_groups = {key: (names, _group_literals(program, names, self.types))
                            for key, names in groups.items()}
        # per rank group of short strings, the parameters its literals' keys make (the same
        # for every batch), once needed
        self.short_params: dict[str, dict] = {}
        self.list_params = frozenset(i for i, p in enumerate(program.params) if p.is_list)
        self.slots = tuple((_how(s, self.types), s) for s in program.slots)
        self.params = tuple(_param_value(p, self.types) for p in program.params)
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

    def recipe(self, schema: pa.Schema) -> _Recipe | None:
        """How batches of ``schema`` are read, worked out once for a run of batches of one
        schema (a pipeline's): None when they need the general path, ``_read_slots``."""
        last = self._last
        if last is not None and (last[0] is schema or last[0].equals(schema)):
            return last[1]
        recipe = _Recipe.of(self, schema)
        self._last = (schema, recipe)
        return recipe


class _Recipe:
    """The common case worked out per schema: every statistic a slot reads is a plain array of
    the type the kernel reads (bounds of the column's own type, not a decimal; counts not
    uint64), or absent from the schema, or short strings; no value sets or LIKE patterns.
    Then a call only fetches the children it needs and wraps their buffers, in the order the
    slots read them, and a batch with struct nulls still goes the general way. Whether a
    statistic is absent is known from the schema alone, so absent ones cost nothing per call
    (``_read_slots`` works all of this out again on every call, for every batch).
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
    def of(cls, plan: _Plan, schema: pa.Schema) -> _Recipe | None:
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
                    slots.append((_ABSENT, 0, None))
                    continue
                where[key], stat_types[key] = fetched, schema.field(index).type
                fetch(index, None)
            if key not in where:
                slots.append((_ABSENT, 0, None))  # a flag absent is exact: ABSENT too
                continue
            t = stat_types[key]
            tag, dtype = read_kind(t)
            if how == "flag":
                slots.append((_FLAG, where[key], None))
            elif how == "coded":  # the bounds are plain strings (``_plain_bounds``)
                slots.append((_CODED, 0, key))
            elif how in ("bound", "count", "rows") and tag in ("plain", "bits") and (
                    how != "bound" or t == plan.types[slot.column]) and (
                    how == "bound" or pa.types.is_integer(t) and not pa.types.is_uint64(t)):
                slots.append((_PLAIN, where[key], (tag, dtype)))
            else:  # conformed bounds, uint64 counts, value sets, LIKE patterns
                return None
        coded = tuple((column, tuple((stat, where[(column, stat)]) for stat in ("min", "max")
                                     if (column, stat) in where))
                      for names, _ in plan.code_groups.values() for column in names)
        return cls(tuple(columns), tuple(slots), coded,
                   _compiled_plan(plan, columns, slots, stat_types, where))

    def read(self, plan: _Plan, batch: pa.RecordBatch, n: int, cache: dict | None,
             keys_in_kernel: bool) -> tuple[list[SlotData], dict] | None:
        """The slots and literal codes of one batch, or None if it has struct nulls."""
        arrays = self._fetch(batch)
        if arrays is None:
            return None
        codes = self._codes(plan, arrays, cache, keys_in_kernel)
        return [self._slot(k, arrays, codes, n) for k in range(len(self.slots))], codes

    def kernel_inputs(self, plan: _Plan, batch: pa.RecordBatch, n: int, cache: dict | None,
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
            if kind == _PLAIN and detail[0] == "plain":  # as ``slot_data`` reads it
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

    def compiled_inputs(self, plan: _Plan, batch: pa.RecordBatch, n: int,
                        cache: dict | None = None) -> tuple | None:
        """What ``kernel_inputs`` returns for ``batch`` (no arrays to keep), read in compiled
        code (``exported``): no Python object per column, child or buffer. None if the
        batch must take the general path. ``cache``: the batch's, where its export is kept."""
        paths, slot_kinds, read_as = self.compiled
        table = np.empty((len(self.slots), TABLE_COLUMNS), np.int64)
        found = np.empty(len(self.slots), np.int8)
        if _compiled_read[0](batch, paths, slot_kinds, n, table, found, cache) != 0:
            return None
        key = found.tobytes()
        shape = self.layouts.get(key)
        if shape is None:
            shape = self.layouts[key] = (*_compiled_shape(found, read_as), {})
        layout, dtypes, keyed, kernels = shape
        return table, layout, dtypes, keyed, _short_codes(plan), (), kernels

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

    def _codes(self, plan: _Plan, arrays: list, cache: dict | None,
               keys_in_kernel: bool) -> dict:
        if not self.coded:
            return {}
        fields = {name: {stat: arrays[at] for stat, at in stats} for name, stats in self.coded}
        return _rank_codes(plan, fields, cache, keys_in_kernel)

    def _slot(self, k: int, arrays: list, codes: dict, n: int) -> SlotData:
        kind, at, detail = self.slots[k]
        if kind == _ABSENT:
            return ABSENT
        if kind == _CODED:
            return codes.get(detail, ABSENT)
        if kind == _FLAG:
            return _flag_data(arrays[at], n)
        return slot_data(arrays[at], detail)  # plain numbers or bits, their ``read_kind`` known


_ABSENT_LAYOUT = ABSENT.layout
_ABSENT, _PLAIN, _FLAG, _CODED = range(4)

# ``exported.read`` once a kernel is loaded in the process (``use_compiled_read``), else None:
# importing it loads Numba, which an answer from the NumPy interpreter must not wait for.
_compiled_read: list = [None]


def use_compiled_read(wait: bool = False) -> None:
    """Read batches a recipe covers in compiled code (``exported``) once its reader is
    loaded: now with ``wait``, else on a background thread (a machine's first load compiles
    it, seconds; later processes load it from Numba's disk cache). Called once Numba is
    loaded for a kernel; until the reader is ready, batches are read through pyarrow."""
    if _compiled_read[0] is not None:
        return
    if wait:
        _load_compiled_read()
        return
    with _compiled_lock:
        if _compiled_started:
            return
        _compiled_started.append(True)
    threading.Thread(target=_load_compiled_read, daemon=True,
                     name="prunekit-compile-reader").start()


_compiled_lock = threading.Lock()
_compiled_started: list = []


def _load_compiled_read() -> None:
    from .exported import loaded_read

    _compiled_read[0] = loaded_read()


def _compiled_plan(plan: _Plan, columns: list, slots: list, stat_types: dict,
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
        if kind == _ABSENT:
            kinds.append((READ_ABSENT, 0, 0, -1))
            read_as.append((None, False, -1))
        elif kind == _PLAIN and detail[0] == "plain":
            kinds.append((READ_VALUES, at, detail[1].itemsize, mate))
            read_as.append((detail[1], False, mate))
        elif kind == _PLAIN and detail[0] == "bits":
            kinds.append((READ_BITS, at, 0, mate))
            read_as.append((np.dtype(np.uint8), True, mate))
        elif kind == _CODED:
            offsets = np.dtype(_OFFSETS[stat_types[detail]])
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
            if not (is_stringlike(expected) and t in _OFFSETS):
                return False
        elif t != expected or pa.types.is_decimal(t):
            return False
    return True


# Looked up whatever a column's slots are: the bounds (membership and LIKE slots read them too)
# and the exactness flags a conversion of bounds may narrow.
_ALWAYS_READ = ("min", "max", "min_exact", "max_exact")


_plans = PerObject()


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


def _struct_fields(batch: pa.RecordBatch, schema: pa.Schema, name: str, expected: pa.DataType,
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


def _rank_key(t: pa.DataType) -> str:
    return "bytes" if is_stringlike(t) else str(t)


def _as_rankable(arr: pa.Array, key: str) -> pa.Array:
    if key != "bytes":
        return arr
    if arr.type in (pa.string_view(), pa.binary_view()):
        arr = arr.cast(pa.large_string() if arr.type == pa.string_view() else pa.large_binary())
    return arr.cast(pa.large_binary())


def _rank_codes(plan: _Plan, fields: dict, cache: dict | None, keys_in_kernel: bool) -> dict:
    """Order-preserving int64 codes for every code-domain min/max and literal, per rank group.

    Strings of at most 7 bytes are their own keys (``short_key``): with ``keys_in_kernel``
    the slots hold the strings, keyed chunk by chunk where they are read (the kernel, or the
    interpreter's ``short_keys``): no array of keys (at 10M containers, 80 MB per bound, and
    writing it cost 3x the kernel's reading), and the same kernel whether or not Numba was
    loaded when the batch was prepared. Longer ones are ranked: the distinct bound values of
    a group, sorted, are u_0 < u_1 < ...; u_i gets code 2i + 1, and a literal gets 2i + 1 if
    it equals u_i, else 2i where i values are below it. Coding the bounds is the expensive
    part (a sort of every min and max), so it is kept in ``cache`` (owned by the Statistics
    object: its arrays do not change) and only literals are placed per call, by counting or
    one rank over the distinct values."""
    types = plan.types
    out: dict = {}
    for key, (names, literals) in plan.code_groups.items():
        owners = []
        for name in names:
            for stat in ("min", "max"):
                arr = fields[name].get(stat)
                if arr is not None and not pa.types.is_null(arr.type):
                    owners.append((name, stat, arr))
        literal_type = pa.large_binary() if key == "bytes" else types[names[0]]
        cache_key = ("codes", key, tuple((name, stat) for name, stat, _ in owners))
        coded = cache.get(cache_key) if cache is not None else None
        if coded is None and keys_in_kernel and key == "bytes" and _keyable(owners):
            coded = None, [_string_slot(arr) for _, _, arr in owners]
        elif coded is None:
            coded = _code_bounds([arr for _, _, arr in owners], key, literal_type)
            if cache is not None:
                cache[cache_key] = coded
        distinct, codes = coded
        for (name, stat, arr), c in zip(owners, codes, strict=True):
            out[(name, stat)] = (ABSENT if arr.null_count == len(arr) else
                                 c if isinstance(c, SlotData) else
                                 SlotData(c, validity(arr), arr.offset))
        if distinct is None:  # short strings: their keys, not ranks, whatever the batch
            params = _short_params(plan, key, literals)
        else:
            params = _literal_params(literals, _literal_codes(
                distinct, pa.array([v for _, v in literals], literal_type)), plan.list_params)
        out.update(params)
    return out


def _short_params(plan: _Plan, key: str, literals: list) -> dict:
    """The parameters the literals of rank group ``key`` make when its bounds are short
    strings keyed in the kernel: their keys, the same for every batch (kept on the plan)."""
    params = plan.short_params.get(key)
    if params is None:
        params = plan.short_params[key] = _literal_params(
            literals, [short_key(v) for _, v in literals], plan.list_params)
    return params


def _short_codes(plan: _Plan) -> dict:
    """The parameters of every rank group's literals, its bounds keyed in the kernel."""
    out: dict = {}
    for key, (_, literals) in plan.code_groups.items():
        out.update(_short_params(plan, key, literals))
    return out


def _literal_params(literals: list, codes, lists: frozenset) -> dict:
    """``("param", index)`` -> the parameter the literals' codes make: an int64 array for a
    list parameter (an index in ``lists``), else an int64 scalar."""
    grouped: dict[int, list] = {}
    for (index, _), code in zip(literals, codes, strict=True):
        grouped.setdefault(index, []).append(code)
    return {("param", index): np.array(c, np.int64) if index in lists else np.int64(c[0])
            for index, c in grouped.items()}


def _code_bounds(arrays: list[pa.Array], key: str, literal_type: pa.DataType) -> tuple:
    """(sorted distinct values, codes per array) for the bounds of one rank group."""
    import pyarrow.compute as pc

    if key == "bytes" and len({a.type for a in arrays}) == 1 and arrays[0].type in _OFFSETS:
        parts = list(arrays)  # one string type: encoded as they are, no copy (bytes order)
    else:
        parts = [_as_rankable(a, key) for a in arrays]
        parts = [p.cast(literal_type) if p.type != literal_type else p for p in parts]
    if sum(len(p) for p in parts) == 0:
        return pa.array([], literal_type), [np.zeros(0, np.int64) for _ in arrays]
    # Hash the bounds to their distinct values first (bounds repeat: a vocabulary, a date
    # prefix), then sort only those: ranking all of them took 3 s at 1M containers. The
    # arrays are encoded as one chunked array (one dictionary), not concatenated: Q4 of the
    # benchmarks at 10M containers peaked at 690 MB above the statistics with a copy.
    encoded = pc.dictionary_encode(pa.chunked_array(parts)).unify_dictionaries()
    dictionary = encoded.chunks[0].dictionary
    order = pc.sort_indices(dictionary).to_numpy()
    distinct = dictionary.take(pa.array(order)).cast(literal_type)  # sorted, distinct, no nulls
    # u_i gets code 2i + 1; a NULL bound is masked by its validity, so its code is unused.
    code_of = np.empty(len(order), np.int64)
    code_of[order] = np.arange(len(order), dtype=np.int64) * 2 + 1
    # Written chunk by chunk into one array, reading the indices in place: a NULL's index is
    # any value (clipped), its code unused. Chunks are not the parts (empty ones are dropped).
    codes = np.ones(sum(len(p) for p in parts), np.int64)
    start = 0
    for c in encoded.chunks:
        ind = c.indices
        raw = np.frombuffer(ind.buffers()[1], ind.type.to_pandas_dtype())[
            ind.offset: ind.offset + len(ind)]
        if len(order):
            np.take(code_of, raw, out=codes[start: start + len(c)], mode="clip")
        start += len(c)
    out, start = [], 0
    for p in parts:
        out.append(codes[start: start + len(p)])
        start += len(p)
    return distinct, out


_OFFSETS = {pa.string(): np.int32, pa.binary(): np.int32, pa.large_string(): np.int64,
            pa.large_binary(): np.int64}


def _keyable(owners: list) -> bool:
    """Whether these string bounds can be keyed where they are read: plain offsets."""
    return all(arr.type in _OFFSETS for _, _, arr in owners)


def _string_slot(arr: pa.Array) -> SlotData:
    """The offsets (from the array's first entry) and bytes of a string array, uncopied."""
    bufs, off = arr.buffers(), arr.offset
    offsets = np.frombuffer(bufs[1], _OFFSETS[arr.type])[off: off + len(arr) + 1]
    data = np.frombuffer(bufs[2], np.uint8) if bufs[2] is not None else np.zeros(0, np.uint8)
    bitmap = np.frombuffer(bufs[0], np.uint8) if arr.null_count and bufs[0] is not None else None
    return SlotData(offsets, bitmap, off, False, data)  # positional: keywords cost more


def _literal_codes(distinct: pa.Array, literals: pa.Array) -> np.ndarray:
    import pyarrow.compute as pc

    if len(literals) == 0:
        return np.zeros(0, np.int64)
    equal = pc.is_in(literals, value_set=distinct).to_numpy(zero_copy_only=False)
    if len(literals) <= 16:  # a comparison pass per literal
        below = np.array([pc.sum(pc.less(distinct, lit)).as_py() or 0 for lit in literals],
                         np.int64)
    else:  # one rank of distinct values and literals together, minus literals below
        together = pc.rank(pa.concat_arrays([distinct, literals]), tiebreaker="min").to_numpy()
        among = pc.rank(literals, tiebreaker="min").to_numpy()
        below = together[len(distinct):].astype(np.int64) - among.astype(np.int64)
    return below * 2 + equal.astype(np.int64)


def _group_literals(program: Program, names: list[str], types: dict) -> list:
    """(param index, Arrow-ready value) for every literal compared with these columns."""
    out = []
    for i, p in enumerate(program.params):
        if p.column in names:
            t = types[p.column]
            values = p.value if p.is_list else (p.value,)
            out.extend((i, _to_arrow_value(v, t)) for v in values)
    return out


def _to_arrow_value(v: object, t: pa.DataType) -> object:
    if pa.types.is_decimal(t):  # domain values of decimals are unscaled integers
        return unscaled_to_decimal(v, t.scale)
    return v


def _param_value(p, types: dict):
    """A parameter's value as kernels read it, or None if it is coded per batch (a literal
    compared with strings or wide decimals is placed among the batch's ranked bounds)."""
    t = types.get(p.column)
    if t is not None and domain_of(t) == "code":
        return None
    raw = p.value if p.is_list else (p.value,)
    # The dtype comes from the literals' domain, never from NumPy's inference: NumPy makes a
    # list of integers that do not all fit one integer type (2**53 + 1 and 2**64 - 1, both
    # uint64) a float64 array, where 2**53 + 1 is 2**53, so IN would find a value that is not
    # listed (docs/semantics.md §2: literals compare exactly).
    if any(isinstance(v, float) for v in raw):
        dtype = np.float64
    elif t is not None and domain_of(t) == "uint":
        dtype = np.uint64
    else:
        dtype = np.int64
    values = np.array(raw, dtype)
    return values if p.is_list else values[0]
