"""From one Arrow record batch of statistics to the arrays a kernel reads.

Numeric statistics are wrapped without copying (``slots.slot_data``). Strings, binary and
decimals wider than 18 digits are ranked into order-preserving int64 codes, together with the
literals compared with them, once per batch and outside the hot loop (pyarrow's ``rank``, which
orders binary data by bytes, i.e. UTF-8 binary collation).

>>> import pyarrow as pa
>>> from prunekit.expr.syntax.sql import parse
>>> from prunekit.expr.binding.bind import bind
>>> from prunekit.expr.program.rewrite import rewrite
>>> prog = rewrite(bind(parse("x > 5"), pa.schema([("x", pa.int64())])))
>>> x = pa.StructArray.from_arrays([pa.array([0, 6]), pa.array([4, 9]), pa.array([0, None])],
...                                ["min", "max", "null_count"])
>>> prepared = prepare(prog, pa.record_batch({"x": x}), {}, frozenset())
>>> [(slot.stat, data.layout) for slot, data in zip(prog.slots, prepared.slots)]
[('row_count', ('absent', False)), ('null_count', ('masked', False)), ('min', ('dense', False)), \
('max', ('dense', False))]
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pyarrow as pa

from prunekit.expr.program.ir import Program

from .recipe import (
    Plan,
    compiled_read,
    flag_data,
    int64_counts,
    plans,
    same_validity,
    struct_fields,
)
from .slots import (
    ABSENT,
    SlotData,
    slot_data,
    slot_table,
    value_kind,
)
from .string_codes import rank_codes


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
    plan = plans.get(program, Plan)
    n = batch.num_rows
    schema = batch.schema
    recipe = plan.recipe(schema)
    flags = [(col in no_nan) if name == "no_nan" else nan_in_bounds.get(col, False)
             for col, name in program.flags]
    if for_kernel and recipe is not None:
        lean = None
        if recipe.compiled is not None and compiled_read[0] is not None and keys_in_kernel \
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
    slots, codes = read or read_slots(plan, batch, schema, n, cache, keys_in_kernel)
    for first, second in plan.bound_pairs:
        if same_validity(slots[first], slots[second], n):
            s = slots[second]
            slots[second] = SlotData(s.values, s.bitmap, s.bit_offset, s.bits, s.keys_of,
                                     validity_of=first)
    return Prepared(n, slots, _params(plan, codes), flags)


def _params(plan: Plan, codes: dict) -> list:
    if not codes:
        return list(plan.params)  # none coded per batch
    return [p if p is not None else codes[("param", i)] for i, p in enumerate(plan.params)]


def read_slots(plan: Plan, batch: pa.RecordBatch, schema: pa.Schema, n: int,
                cache: dict | None, keys_in_kernel: bool) -> tuple[list[SlotData], dict]:
    """Every slot of ``plan`` read from ``batch``, and the codes of string literals, whatever
    the statistics look like: struct nulls folded in, bounds of another type conformed,
    uint64 counts checked, value sets and LIKE patterns tested."""
    types = plan.types
    fields = {name: struct_fields(batch, schema, name, t, plan.wanted[name], plan.children)
              for name, t in types.items()}
    codes = rank_codes(plan, fields, cache, keys_in_kernel) if plan.code_groups else {}
    slots = []
    for how, slot in plan.slots:
        column, stat = slot.column, slot.stat
        if how == "bound":
            slots.append(slot_data(fields[column].get(stat)))
        elif how == "count":
            slots.append(slot_data(int64_counts(fields[column].get(stat))))
        elif how == "rows":
            idx = batch.schema.get_field_index("row_count")
            slots.append(slot_data(int64_counts(batch.column(idx))) if idx >= 0 else ABSENT)
        elif how == "coded":
            found = codes.get((column, stat))
            slots.append(found if found is not None else slot_data(fields[column].get(stat)))
        elif how == "flag":
            slots.append(flag_data(fields[column].get(stat), n))
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
