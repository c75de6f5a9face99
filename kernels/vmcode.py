"""A statistics program as instructions for the compiled interpreter (``vm.py``).

A new program shape needs a fused kernel compiled for it (0.2-2 s, ``codegen.py``). Until then
something must answer. The NumPy interpreter (``interpret.py``) costs about 0.6 ns per step and
container, most of it NumPy's temporaries and per-call overhead, which made the first answer
for a 300-step program on 1M containers 100-300 ms. The compiled interpreter is one Numba
function, compiled once and cached on disk like a kernel, that runs any program from the table
this module builds: per chunk of ``CHUNK`` containers, one tight loop per instruction over
rows of typed registers.

Registers come in four files by type: ``b`` (booleans as bytes 0/1), ``i`` (int64), ``f``
(float64) and ``u`` (uint64). A statistic is widened into its file when loaded (int32 to int64,
float32 to float64). Each step follows NumPy's typing rules as the NumPy interpreter meets
them (``vmtypes.py``), so the two answer the same; where they could differ, ``assemble`` raises
``NotAssembled`` and the caller interprets with NumPy instead. Registers are reused once no
later step reads them.

Nothing here imports Numba: the table is plain int64 arrays.

>>> import pyarrow as pa
>>> from prunekit.expr.syntax.sql import parse
>>> from prunekit.expr.binding.bind import bind
>>> from prunekit.expr.program.rewrite import rewrite
>>> from prunekit.kernels.inputs import prepare
>>> prog = rewrite(bind(parse("x > 5"), pa.schema([("x", pa.int64())])))
>>> x = pa.StructArray.from_arrays([pa.array([0, 6]), pa.array([4, 9]), pa.array([0, 0])],
...                                ["min", "max", "null_count"])
>>> call = assemble(prog, prepare(prog, pa.record_batch({"x": x}), {}, frozenset()))
>>> call.code.shape[1], int(call.sizes.sum()) > 0
(7, True)
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from prunekit.expr.program.ir import Program

from .inputs import Prepared
from .interpret import last_uses
from .recipe import DEFAULTS
from .slots import SlotData, address
from .vmtypes import List, NotAssembled, Reg, Scalar, Weak, arithmetic_dtype, compare_kind, kind_of

CHUNK = 1024  # containers per pass: a register row is 8 KiB, and the live ones stay in L2

# ---- opcodes (the VM dispatches the frequent ones first: AND, OR, NOT, comparisons) ---------
# Instructions are rows [op, dst, a, b, c, d, e] of register numbers in the files the op names.
# Run once per call, before the chunks: a register filled with a constant.
FILL_B, FILL_I, FILL_F, FILL_U = 0, 1, 2, 3  # a: the value (FILL_F, FILL_U: index into a table)
FIRST_BODY = 10
AND, OR, NOT = 10, 11, 12  # b x b -> b
LT_I, LE_I, EQ_I, LT_F, LE_F, EQ_F, LT_U, LE_U, EQ_U = range(13, 22)  # -> b (gt/ge: swapped)
LOAD_I, LOAD_F, LOAD_U, LOAD_B, VALID = range(22, 27)  # a: slot
ISNAN, FITS_INT64 = 27, 28  # f -> b; u -> b
ADD_I, ADD_F, MUL_I, MUL_F, FLOORDIV_I = range(29, 34)
WITHIN_I, WITHIN_F = 34, 35  # (a, c) -> b: -c <= a <= c
MIN_I, MAX_I, MIN_F, MAX_F = range(36, 40)
TOINT_U, TOFLOAT_I, TOFLOAT_U, TOFLOAT32_I, TOFLOAT32_U, TOFLOAT32_F, B2I = range(40, 47)
OUTCOME = 50  # b b b b -> the int8 output
WRAP = 51  # i -> i: back to b bits (c: signed), as NumPy's narrower integer arithmetic wraps
LT_IU, LE_IU, EQ_IU, LT_UI, LE_UI = range(52, 57)  # int64 against uint64, exactly (as NumPy 2)
I2U = 57  # i -> u: an unsigned value held in int64 (uint8 .. uint32) as uint64
# List searches -> b. a: the list; any_in: lo, lo_ok, hi, hi_ok; covers: lo, hi.
ANY_IN_I, ANY_IN_F, ANY_IN_U, COVERS_I, COVERS_F, COVERS_U = range(60, 66)
FIRST_SEARCH, LAST_SEARCH = ANY_IN_I, COVERS_U

# What the slot table's first column says about a statistic's values (``slots`` below).
(I8, I16, I32, I64, U8, U16, U32, U64, F32, F64, BOOL, BITS, KEYS32, KEYS64) = range(14)
_DTYPES = {np.dtype(t): code for t, code in [
    (np.int8, I8), (np.int16, I16), (np.int32, I32), (np.int64, I64), (np.uint8, U8),
    (np.uint16, U16), (np.uint32, U32), (np.uint64, U64), (np.float32, F32), (np.float64, F64),
    (np.bool_, BOOL)]}
_LOAD = {"i": LOAD_I, "f": LOAD_F, "u": LOAD_U, "b": LOAD_B}
_COMPARE = {("lt", "i"): LT_I, ("le", "i"): LE_I, ("eq", "i"): EQ_I, ("lt", "f"): LT_F,
            ("le", "f"): LE_F, ("eq", "f"): EQ_F, ("lt", "u"): LT_U, ("le", "u"): LE_U,
            ("eq", "u"): EQ_U}
_MIXED = {("lt", "iu"): LT_IU, ("le", "iu"): LE_IU, ("eq", "iu"): EQ_IU, ("lt", "ui"): LT_UI,
          ("le", "ui"): LE_UI}
# NumPy's dtype of a loaded statistic (bit-packed values read as 0/1, strings as their keys)
_OUT_DTYPE = {**{code: dtype for dtype, code in _DTYPES.items()},
              BITS: np.dtype(np.int64), KEYS32: np.dtype(np.int64), KEYS64: np.dtype(np.int64)}
_FILE_DTYPE = {"b": np.dtype(np.bool_), "i": np.dtype(np.int64), "f": np.dtype(np.float64),
               "u": np.dtype(np.uint64)}
_ARITHMETIC = {("add", "i"): ADD_I, ("add", "f"): ADD_F, ("mul", "i"): MUL_I,
               ("mul", "f"): MUL_F, ("floordiv", "i"): FLOORDIV_I, ("min2", "i"): MIN_I,
               ("max2", "i"): MAX_I, ("min2", "f"): MIN_F, ("max2", "f"): MAX_F}
_WIDEN = {("b", "i"): B2I, ("i", "f"): TOFLOAT_I, ("u", "f"): TOFLOAT_U}  # NumPy's casts
_CONVERSIONS = {("fits_int64", "u"): FITS_INT64, ("toint", "u"): TOINT_U,
                ("tofloat", "i"): TOFLOAT_I, ("tofloat", "u"): TOFLOAT_U,
                ("tofloat32", "i"): TOFLOAT32_I, ("tofloat32", "u"): TOFLOAT32_U,
                ("tofloat32", "f"): TOFLOAT32_F}
_CONVERTED = {"fits_int64": np.bool_, "toint": np.int64, "tofloat": np.float64,
              "tofloat32": np.float64}


@dataclass
class VMCall:
    """Everything ``vm.kernel(start, stop, out, *call.args)`` reads. ``keep`` holds the arrays
    whose addresses ``slots`` records, for as long as the call object lives."""

    code: np.ndarray  # int64 [instructions, 7]
    # int64 [slots, 9]: dtype code, address, stride (elements), elements spanned, bitmap
    # address, bit offset (of the bitmap, and of bit-packed values), bitmap bytes, string data
    # address, string data bytes
    slots: np.ndarray
    floats: np.ndarray
    uints: np.ndarray
    lists_i: np.ndarray
    lists_f: np.ndarray
    lists_u: np.ndarray
    lists: np.ndarray  # int64 [lists, 2]: offset and length in lists_i, lists_f or lists_u
    sizes: np.ndarray  # int64 [4]: registers per file (b, i, f, u)
    keep: list = field(default_factory=list)

    @property
    def args(self) -> list:
        return [self.code, self.slots, self.floats, self.uints, self.lists_i, self.lists_f,
                self.lists_u, self.lists, self.sizes]


class _Registers:
    """Register numbers per file, reused once their last reader has run. A register may hold
    the values of several steps (a conversion that changes nothing returns its operand), so
    each is counted; constants are filled once per call and never reused."""

    def __init__(self):
        self.free: dict[str, list[int]] = {k: [] for k in "bifu"}
        self.count: dict[str, int] = {k: 0 for k in "bifu"}
        self.holders: dict[tuple[str, int], int] = {}
        self.pinned: set[tuple[str, int]] = set()

    def alloc(self, kind: str) -> int:
        number = self.free[kind].pop() if self.free[kind] else self.count[kind]
        self.count[kind] = max(self.count[kind], number + 1)
        return number

    def hold(self, value) -> None:
        if isinstance(value, Reg):
            key = (value.kind, value.number)
            self.holders[key] = self.holders.get(key, 0) + 1

    def release(self, value) -> None:
        if isinstance(value, Reg) and (value.kind, value.number) not in self.pinned:
            key = (value.kind, value.number)
            self.holders[key] -= 1
            if self.holders[key] == 0:
                self.free[value.kind].append(value.number)

    def pin(self, kind: str) -> int:
        number = self.count[kind]
        self.count[kind] += 1
        self.pinned.add((kind, number))
        return number


class _Assembler:
    def __init__(self, program: Program, prepared: Prepared):
        self.program, self.prepared = program, prepared
        self.regs = _Registers()
        self.init: list[list[int]] = []
        self.body: list[list[int]] = []
        self.constants: dict[tuple, int] = {}
        self.floats: list[float] = []
        self.uints: list[int] = []
        self.lists_of: dict[str, list[np.ndarray]] = {"i": [], "f": [], "u": []}
        self.lists: list[tuple[int, int]] = []
        self.slot_rows: list[list[int]] = []
        self.slot_index: dict[int, tuple[int, int]] = {}
        self.keep: list = []
        self.temporaries: list[tuple[str, int]] = []  # conversions the current step made

    # ---- registers ------------------------------------------------------------------------
    def constant(self, kind: str, value) -> Reg:
        """A register holding ``value`` (converted to ``kind``'s dtype) in every row."""
        value = _FILE_DTYPE[kind].type(value)
        key = (kind, value.tobytes())
        if key not in self.constants:
            number = self.constants[key] = self.regs.pin(kind)
            if kind == "f":
                self.init.append([FILL_F, number, len(self.floats), 0, 0, 0, 0])
                self.floats.append(float(value))
            elif kind == "u":
                self.init.append([FILL_U, number, len(self.uints), 0, 0, 0, 0])
                self.uints.append(int(value))
            else:
                self.init.append([FILL_B if kind == "b" else FILL_I, number, int(value), 0, 0,
                                  0, 0])
        return Reg(kind, self.constants[key], _FILE_DTYPE[kind], value)

    def emit(self, op: int, dst: int, *operands: int) -> None:
        row = [op, dst, *operands]
        self.body.append(row + [0] * (7 - len(row)))

    def new(self, kind: str, op: int, *operands: int, dtype=None) -> Reg:
        """A fresh register written by one instruction (never one of its operands: LLVM's
        vectorised loop checks that its rows do not overlap, and runs a scalar loop 10x
        slower when they do)."""
        dst = self.regs.alloc(kind)
        self.emit(op, dst, *operands)
        return Reg(kind, dst, np.dtype(dtype) if dtype is not None else _FILE_DTYPE[kind])

    def as_kind(self, value, kind: str) -> int:
        """The register of ``kind`` that holds ``value`` (the caller checked that the
        conversion is NumPy's); a conversion's register is freed after the step."""
        if isinstance(value, Reg):
            if value.kind == kind:
                return value.number
            convert = _WIDEN.get((value.kind, kind))
            if (value.kind, kind) == ("i", "u") and value.dtype.kind == "u":
                convert = I2U  # uint8 .. uint32, held in int64: never negative
            if convert is None:
                raise NotAssembled(f"a {value.dtype} value read as {_FILE_DTYPE[kind]}")
            dst = self.regs.alloc(kind)
            self.emit(convert, dst, value.number)
            self.temporaries.append((kind, dst))
            return dst
        if isinstance(value, (Weak, Scalar)):
            return self.constant(kind, value.value).number
        raise NotAssembled("a list used as a value")

    def operands(self, values: list, kind: str) -> list[int]:
        return [self.as_kind(v, kind) for v in values]

    def end_step(self) -> None:
        for kind, number in self.temporaries:
            self.regs.free[kind].append(number)
        self.temporaries = []

    # ---- slots ----------------------------------------------------------------------------
    def slot_row(self, k: int) -> tuple[int, int]:
        """The row of slot ``k`` in the slot table, and its dtype code."""
        if k in self.slot_index:
            return self.slot_index[k]
        data: SlotData = self.prepared.slots[k]
        values = data.values
        if data.keys_of is not None:
            code = KEYS32 if values.dtype == np.int32 else KEYS64
        elif data.bits:
            code = BITS
        else:
            code = _DTYPES.get(values.dtype)
            if code is None:
                raise NotAssembled(f"statistics of type {values.dtype}")
        stride, rest = divmod(values.strides[0], values.itemsize) if len(values) else (1, 0)
        if rest or stride < 1:
            raise NotAssembled("statistics with a stride that is not whole elements")
        bitmap = data.bitmap if data.bitmap is not None else np.zeros(0, np.uint8)
        keys = data.keys_of if data.keys_of is not None else np.zeros(0, np.uint8)
        n, bits = self.prepared.n, data.bit_offset + self.prepared.n
        # The VM reads through addresses, without bounds checks: buffers too short for the
        # batch (which Arrow's validation would refuse) are left to NumPy, which checks.
        if code == BITS:
            values_short = 8 * len(values) < bits
        else:  # string offsets: one more than the strings
            values_short = len(values) < (n + 1 if code in (KEYS32, KEYS64) else n)
        if values_short or data.bitmap is not None and 8 * len(bitmap) < bits:
            raise NotAssembled("statistics shorter than the batch")
        self.keep += [values, bitmap, keys]
        span = (len(values) - 1) * stride + 1 if len(values) else 0  # elements, in place
        self.slot_rows.append([code, address(values), stride, span, address(bitmap),
                               data.bit_offset, len(bitmap), address(keys), len(keys)])
        self.slot_index[k] = len(self.slot_rows) - 1, code
        return self.slot_index[k]

    # ---- steps ----------------------------------------------------------------------------
    def step(self, i: int, values: list):
        op, args = self.program.steps[i].op, self.program.steps[i].args
        if op in ("const", "flag"):
            return Weak(args[0] if op == "const" else bool(self.prepared.flags[args[0]]))
        if op == "param":
            p = self.prepared.params[args[0]]
            if isinstance(p, np.ndarray):
                return self.list_param(p)
            kind_of(p.dtype)
            return Scalar(p)
        if op in ("load", "valid"):
            return self.load(op, args[0])
        xs = [values[a] for a in args]
        if op == "outcome":  # always an instruction: it writes the output
            self.emit(OUTCOME, 0, *self.operands(xs, "b"))
            return None
        if op in ("any_in", "covers"):
            return self.search(op, xs)
        if not any(isinstance(x, (Reg, List)) for x in xs):
            return self.fold(op, xs)
        if op in ("and", "or", "not"):
            if any(isinstance(x, Reg) and x.kind != "b" for x in xs):
                raise NotAssembled(f"{op} of non-boolean values")
            regs = self.operands(xs, "b")
            if op == "not":
                return self.new("b", NOT, regs[0])
            opcode = AND if op == "and" else OR
            result = self.new("b", opcode, regs[0], regs[1])
            for r in regs[2:]:  # two at a time, each into a fresh register
                previous, result = result, self.new("b", opcode, result.number, r)
                self.regs.free["b"].append(previous.number)
            return result
        if op in ("lt", "le", "gt", "ge", "eq"):
            a, b = (xs[1], xs[0]) if op in ("gt", "ge") else xs
            op = {"gt": "lt", "ge": "le"}.get(op, op)
            kind = compare_kind(a, b)
            kind = "i" if kind == "b" else kind  # bytes 0/1 compare as the integers they are
            if kind in ("iu", "ui"):
                if op == "eq" and kind == "ui":
                    a, b, kind = b, a, "iu"
                return self.new("b", _MIXED[(op, kind)], self.as_kind(a, kind[0]),
                                self.as_kind(b, kind[1]))
            return self.new("b", _COMPARE[(op, kind)], *self.operands([a, b], kind))
        return self.arithmetic(op, xs)

    def fold(self, op: str, xs: list):
        """A step on constants alone: NumPy computes it now, as the interpreter would."""
        from .ops import OPS

        with np.errstate(all="ignore"):
            value = np.asarray(OPS[op][1](*(x.value for x in xs)))
        if value.ndim:
            raise NotAssembled(f"{op} of constants is an array")
        kind_of(value.dtype)
        return Scalar(value[()])

    def load(self, op: str, k: int):
        data: SlotData = self.prepared.slots[k]
        default = DEFAULTS.get(self.program.slots[k].stat)
        if data.values is None:  # absent: the interpreter's shared constant arrays
            if op == "valid" or default:
                return self.constant("b", bool(default))
            return self.constant("i", 0)
        if op == "valid" and data.bitmap is None:
            return self.constant("b", True)
        row, code = self.slot_row(k)
        if op == "valid":
            return self.new("b", VALID, row)
        if default:  # an exactness flag: booleans
            if code != BITS:
                raise NotAssembled("an exactness flag that is not bit-packed")
            return self.new("b", LOAD_B, row)
        dtype = _OUT_DTYPE[code]
        kind = kind_of(dtype)
        return self.new(kind, _LOAD[kind], row, dtype=dtype)

    def list_param(self, p: np.ndarray):
        if p.ndim != 1 or kind_of(p.dtype) == "b":
            raise NotAssembled(f"a list of type {p.dtype}")
        kind = kind_of(p.dtype)
        into = self.lists_of[kind]
        self.lists.append((sum(len(x) for x in into), len(p)))
        into.append(np.asarray(p, _FILE_DTYPE[kind]))
        return List(kind, len(self.lists) - 1)

    def search(self, op: str, xs: list):
        values = xs[0]
        if not isinstance(values, List):
            raise NotAssembled(f"{op} of a value that is not a list")
        ends = [xs[1], xs[3]] if op == "any_in" else xs[1:]
        # An absent bound reads as int64 zeros; against a uint64 list NumPy searches in float64,
        # where 0 stays 0 and every element keeps its sign: the same as searching for uint64 0.
        ends = [self.constant("u", 0) if values.kind == "u" and isinstance(end, Reg)
                and end.kind == "i" and end.constant == 0 else end for end in ends]
        for end in ends:  # compared in the common dtype, which as_kind converts them to
            if isinstance(end, List) or isinstance(end, Reg) and end.kind != values.kind and (
                    values.kind != "f" or end.kind not in "iu") and (
                    values.kind != "u" or end.dtype.kind != "u"):
                raise NotAssembled(f"{op} of a {values.kind} list with other ends")
        lo, hi = self.operands(ends, values.kind)
        if op == "covers":
            opcode = {"i": COVERS_I, "f": COVERS_F, "u": COVERS_U}[values.kind]
            return self.new("b", opcode, values.number, lo, hi)
        lo_ok, hi_ok = self.operands([xs[2], xs[4]], "b")
        opcode = {"i": ANY_IN_I, "f": ANY_IN_F, "u": ANY_IN_U}[values.kind]
        return self.new("b", opcode, values.number, lo, lo_ok, hi, hi_ok)

    def arithmetic(self, op: str, xs: list):
        if op == "isnan":
            (x,) = xs
            if not isinstance(x, Reg):
                raise NotAssembled("isnan of a list")
            if x.kind != "f":  # NumPy: no integer is NaN
                return self.constant("b", False)
            return self.new("b", ISNAN, x.number)
        if op in _CONVERTED:
            (x,) = xs
            if not isinstance(x, Reg):
                raise NotAssembled(f"{op} of a list")
            if op == "fits_int64" and x.kind in "ib":  # NumPy 2 compares them exactly
                return self.constant("b", True)
            if (op, x.kind) in (("toint", "i"), ("tofloat", "f")) and x.dtype.itemsize == 8:
                return x  # already that dtype: the same register
            if op == "toint" and x.kind == "i" or op == "tofloat" and x.kind == "f":
                return Reg(x.kind, x.number, _FILE_DTYPE[x.kind])  # widened when loaded
            opcode = _CONVERSIONS.get((op, x.kind))
            if opcode is None:
                raise NotAssembled(f"{op} of a {x.dtype} value")
            return self.new(kind_of(np.dtype(_CONVERTED[op])), opcode, x.number,
                            dtype=_CONVERTED[op])
        if op == "within":  # (-c <= a) & (a <= c), with -c in c's own dtype
            a, c = xs
            kind = compare_kind(a, c)
            if kind not in ("i", "f") or (isinstance(a, Reg) and a.kind != kind) or not (
                    isinstance(c, Scalar) and c.kind == kind and c.dtype.itemsize == 8
                    or isinstance(c, Weak) and c.value != -2**63):
                raise NotAssembled("within of mixed or narrow values")
            return self.new("b", WITHIN_I if kind == "i" else WITHIN_F,
                            *self.operands([a, c], kind))
        dtype = arithmetic_dtype(*xs)
        kind = kind_of(dtype)
        opcode = _ARITHMETIC.get((op, kind))
        if opcode is None:
            raise NotAssembled(f"{op} in {dtype}")
        result = self.new(kind, opcode, *self.operands(xs, kind), dtype=dtype)
        if dtype.itemsize == 8:
            return result
        self.end_step()  # the operands' conversions, before the result is narrowed
        narrowed = (self.new("i", WRAP, result.number, dtype.itemsize * 8,
                             int(dtype.kind == "i"), dtype=dtype) if kind == "i" else
                    self.new("f", TOFLOAT32_F, result.number, dtype=dtype))
        self.regs.free[kind].append(result.number)
        return narrowed


def assemble(program: Program, prepared: Prepared) -> VMCall:
    """The instruction table for ``program`` over ``prepared``'s batch, or ``NotAssembled``.

    Registers are reused once no later step reads them, so a 300-step program needs a few
    dozen rows. The table depends on the batch only through its slots' addresses and dtypes;
    building it costs about a microsecond per step."""
    asm = _Assembler(program, prepared)
    last = last_uses(program)
    values: list = [None] * len(program.steps)
    for i, step in enumerate(program.steps):
        values[i] = asm.step(i, values)
        asm.end_step()
        asm.regs.hold(values[i])
        if step.op not in ("const", "param", "flag", "load", "valid"):
            for a in set(step.args):
                if last[a] == i:
                    asm.regs.release(values[a])
        if last[i] == i:  # read by no step: only the outcome, or a step CSE left unused
            asm.regs.release(values[i])
    if program.steps[-1].op != "outcome":
        raise NotAssembled("a program that does not end in its outcome")
    code = np.array(asm.init + asm.body, np.int64).reshape(-1, 7)
    lists_i, lists_f, lists_u = (
        np.concatenate(asm.lists_of[k]) if asm.lists_of[k] else np.zeros(0, _FILE_DTYPE[k])
        for k in "ifu")
    return VMCall(code=code, slots=np.array(asm.slot_rows, np.int64).reshape(-1, 9),
                  floats=np.array(asm.floats, np.float64),
                  uints=np.array(asm.uints, np.uint64), lists_i=lists_i, lists_f=lists_f,
                  lists_u=lists_u,
                  lists=np.array(asm.lists, np.int64).reshape(-1, 2),
                  sizes=np.array([asm.regs.count[k] for k in "bifu"], np.int64),
                  keep=asm.keep + [prepared])
