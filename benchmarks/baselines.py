"""What ``classify`` is measured against (ratios in one asv run; see ``summary.py``).

``floor``
    One Numba pass that reads every byte of the Arrow buffers the program's slots need (values,
    string offsets and data, validity bitmaps) and sums them as int64 words (wrapping integer
    adds, so the reduction vectorises; a float sum would be a sequential dependency and make the
    floor artificially slow). No kernel can classify without reading these bytes, so
    ``classify / floor`` is the overhead over memory bandwidth. String columns are read raw:
    prunekit's own ranking of strings into codes is part of what ``classify`` costs.
``pyarrow_compute``
    The same statistics program, step by step, with ``pyarrow.compute`` over whole arrays: an
    invalid statistic is an Arrow null, ``valid`` is ``pc.is_valid``, and/or/not are Kleene.
    Outcomes equal ``classify`` (``tests/benchmarks/test_benchmarks.py``).
NumPy
    ``PruningPredicate.classify(stats, backend="numpy")``: the reference interpreter
    (``kernels/interpret.py``), one NumPy array per step.
"""

from __future__ import annotations

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc
from numba import njit
from numba.typed import List

import prunekit as pk
from prunekit.expr.program.ir import Program

NONE_MATCH, MAYBE_MATCH, ALL_MATCH = 0, 1, 2
DEFAULTS = {"min_exact": True, "max_exact": True}  # as kernels/inputs.py: absent means exact


# ---- the floor -----------------------------------------------------------------------------
def _slot_arrays(batch: pa.RecordBatch, program: Program) -> list[pa.Array | None]:
    """The Arrow array behind each slot of ``program`` (None: absent), nulls folded in."""
    out = []
    for slot in program.slots:
        name = "row_count" if slot.column is None else slot.column
        idx = batch.schema.get_field_index(name)
        if idx < 0:
            out.append(None)
            continue
        column = batch.column(idx)
        if slot.column is None:
            out.append(column)
            continue
        index = column.type.get_field_index(slot.stat)
        out.append(None if index < 0 else column.flatten()[index])
    return out


def floor_buffers(stats: pk.Statistics, program: Program) -> tuple:
    """The buffers ``floor`` reads, split once (outside any timing) into int64 words and tail
    bytes. Each buffer is read once even if several slots share it."""
    words, tails, seen = List(), List(), set()
    for batch in stats.table.to_batches():
        for slot, arr in zip(program.slots, _slot_arrays(batch, program), strict=True):
            if arr is None or arr.null_count == len(arr):
                continue  # absent: a kernel reads nothing
            parent = None if slot.column is None else batch.column(slot.column)
            keep = [b for i, b in enumerate(arr.buffers()) if b is not None and
                    (i > 0 or arr.null_count)]  # a validity bitmap only if there are nulls
            if parent is not None and parent.null_count:
                keep.append(parent.buffers()[0])
            for buf in keep:
                if buf.address in seen:
                    continue
                seen.add(buf.address)
                raw = np.frombuffer(buf, np.uint8)
                cut = len(raw) // 8 * 8
                words.append(raw[:cut].view(np.int64))
                if cut < len(raw):
                    tails.append(raw[cut:])
    if not len(words):
        words.append(np.zeros(1, np.int64))
    if not len(tails):
        tails.append(np.zeros(1, np.uint8))
    return words, tails


@njit(cache=True, nogil=True)
def _sum(words, tails):  # pragma: no cover - compiled
    total = np.int64(0)
    for w in words:
        acc = np.int64(0)
        for i in range(w.shape[0]):
            acc += w[i]
        total += acc
    for t in tails:
        for i in range(t.shape[0]):
            total += np.int64(t[i])
    return total


def floor(buffers: tuple) -> int:
    """One pass over ``floor_buffers(stats, program)``: the sum of every word."""
    return int(_sum(*buffers))


def split(buffers: tuple, parts: int) -> list[tuple]:
    """``buffers`` cut into ``parts`` equal ranges of words (tails go to the first)."""
    words, tails = buffers
    out = []
    for k in range(parts):
        piece = List()
        for w in words:
            step = -(-len(w) // parts)
            piece.append(w[k * step: (k + 1) * step])
        out.append((piece, tails if k == 0 else List([np.zeros(0, np.uint8)])))
    return out


_pool: list = []


def floor_threads(pieces: list[tuple]) -> int:
    """The floor on one thread per piece (``split``): what the cores together can read, for
    comparison with classify, which splits large batches over a thread pool."""
    if not _pool:
        from concurrent.futures import ThreadPoolExecutor

        _pool.append(ThreadPoolExecutor(max_workers=len(pieces)))
    futures = [_pool[0].submit(_sum, *p) for p in pieces[1:]]
    total = int(_sum(*pieces[0]))
    return total + sum(int(f.result()) for f in futures)


# ---- pyarrow.compute -----------------------------------------------------------------------
def _domain_array(arr: pa.Array, stat: str) -> pa.Array:
    """A slot's statistic in the program's domain, as pyarrow compares it."""
    t = arr.type
    if stat in DEFAULTS:
        return arr  # exactness flags: booleans
    if pa.types.is_timestamp(t) or pa.types.is_date64(t) or pa.types.is_time64(t) or \
            pa.types.is_duration(t):
        return arr.cast(pa.int64())
    if pa.types.is_date32(t) or pa.types.is_time32(t):
        return arr.cast(pa.int32())
    if pa.types.is_boolean(t):
        return arr.cast(pa.int64())  # BOOLEAN bounds compare as 0/1
    if pa.types.is_string(t) or pa.types.is_binary(t):
        return arr.cast(pa.binary())  # byte order, as prunekit's codes (zero-copy)
    if pa.types.is_large_string(t) or pa.types.is_large_binary(t):
        return arr.cast(pa.large_binary())
    if pa.types.is_string_view(t) or pa.types.is_binary_view(t):
        return arr.cast(pa.large_string()).cast(pa.large_binary())
    if pa.types.is_uint64(t) and stat in ("null_count", "nan_count"):
        too_big = pc.greater(arr, pa.scalar(2**63 - 1, pa.uint64()))
        return pc.if_else(too_big, pa.scalar(None, pa.int64()), arr.cast(pa.int64(), False))
    if pa.types.is_decimal(t) or pa.types.is_float16(t):
        raise NotImplementedError(f"pyarrow baseline: statistics of type {t}")
    return arr


def _param(value: object) -> object:
    if isinstance(value, bytes):
        return pa.scalar(value, pa.binary())
    if isinstance(value, np.generic):
        return pa.scalar(value.item())
    return pa.scalar(value)


def _bool(x):
    return pa.scalar(x, pa.bool_()) if isinstance(x, (bool, np.bool_)) else x


def _num(x):
    if isinstance(x, (bool, np.bool_)):
        return pa.scalar(int(x), pa.int64())
    if isinstance(x, int):
        return pa.scalar(x, pa.int64())
    if isinstance(x, (pa.Array, pa.ChunkedArray, pa.Scalar)) and pa.types.is_boolean(x.type):
        return x.cast(pa.int64())
    return x


def _wide(x):
    """Integers as int64 (Numba widens int32 arithmetic; pyarrow would wrap in int32)."""
    x = _num(x)
    t = x.type
    if pa.types.is_integer(t) and not pa.types.is_uint64(t) and t != pa.int64():
        return x.cast(pa.int64())
    return x


def _nary(fn):
    def apply(*xs):
        acc = _bool(xs[0])
        for x in xs[1:]:
            acc = fn(acc, _bool(x))
        return acc

    return apply


def _cmp(fn):
    return lambda a, b: fn(_num(a), _num(b))


def _floordiv(a, k):
    a, k = _wide(a), _wide(k)
    q = pc.divide(a, k)  # integer division truncates toward zero; k > 0
    r = pc.subtract(a, pc.multiply(q, k))
    return pc.subtract(q, pc.cast(pc.less(r, pa.scalar(0, pa.int64())), pa.int64()))


def _in_range(v, lo, lo_ok, hi, hi_ok):
    above = pc.or_kleene(pc.invert(_bool(lo_ok)), pc.less_equal(_num(lo), v))
    below = pc.or_kleene(pc.invert(_bool(hi_ok)), pc.less_equal(v, _num(hi)))
    return pc.and_kleene(above, below)


def _any_in(values, lo, lo_ok, hi, hi_ok):
    acc = pa.scalar(False)
    for v in values:
        acc = pc.or_kleene(acc, _in_range(_param(v), lo, lo_ok, hi, hi_ok))
    return acc


def _covers(values, lo, hi):
    count = pa.scalar(0, pa.int64())
    for v in values:
        inside = _in_range(_param(v), lo, True, hi, True)
        count = pc.add(count, pc.cast(inside, pa.int64()))
    diff = pc.subtract(_wide(hi), _wide(lo))  # wraps, as the kernel's does
    return pc.and_kleene(pc.greater(count, 0), pc.equal(diff, pc.subtract(count, 1)))


def _outcome(t, f, n, empty):
    some = pc.and_kleene(_bool(t), pc.invert(_bool(empty)))
    every = pc.and_kleene(some, pc.invert(pc.or_kleene(_bool(f), _bool(n))))
    return pc.add(pc.cast(some, pa.int8()), pc.cast(every, pa.int8()))


_PC = {
    "and": _nary(pc.and_kleene),
    "or": _nary(pc.or_kleene),
    "not": lambda a: pc.invert(_bool(a)),
    "lt": _cmp(pc.less),
    "le": _cmp(pc.less_equal),
    "gt": _cmp(pc.greater),
    "ge": _cmp(pc.greater_equal),
    "eq": _cmp(pc.equal),
    "isnan": lambda a: pc.is_nan(a),
    "add": lambda a, b: pc.add(_wide(a), _wide(b)),
    "mul": lambda a, k: pc.multiply(_wide(a), _wide(k)),
    "within": lambda a, c: pc.and_kleene(pc.less_equal(pc.negate(_num(c)), _num(a)),
                                         pc.less_equal(_num(a), _num(c))),
    "toint": lambda a: pc.cast(a, pa.int64(), safe=False),
    "fits_int64": lambda a: pc.less_equal(a, pa.scalar(2**63 - 1, pa.uint64())),
    "tofloat": lambda a: pc.cast(_num(a), pa.float64(), safe=False),
    "tofloat32": lambda a: pc.cast(pc.cast(_num(a), pa.float32(), safe=False), pa.float64()),
    "floordiv": _floordiv,
    "any_in": _any_in,
    "covers": _covers,
    "outcome": _outcome,
}


def _evaluate_batch(program: Program, batch: pa.RecordBatch, stats: pk.Statistics):
    arrays = _slot_arrays(batch, program)
    columns = [None if a is None or a.null_count == len(a) else _domain_array(a, s.stat)
               for s, a in zip(program.slots, arrays, strict=True)]
    values: list = []
    for step in program.steps:
        op, args = step.op, step.args
        if op == "const":
            values.append(args[0])
        elif op == "param":
            p = program.params[args[0]]
            values.append(tuple(p.value) if p.is_list else _param(p.value))
        elif op == "flag":
            col, name = program.flags[args[0]]
            values.append(col in stats.no_nan if name == "no_nan"
                          else stats.nan_in_bounds.get(col, False))
        elif op in ("load", "valid"):
            arr, default = columns[args[0]], DEFAULTS.get(program.slots[args[0]].stat)
            if arr is None:  # absent: unknown, except exactness flags (exact)
                values.append(bool(default) if op == "valid" or default else 0)
            else:
                values.append(pc.is_valid(arr) if op == "valid" else arr)
        else:
            values.append(_PC[op](*(values[a] for a in args)))
    out = values[-1]
    if isinstance(out, pa.Scalar):
        return np.full(batch.num_rows, out.as_py(), np.int8)
    if out.null_count:
        raise AssertionError("pyarrow baseline: an outcome stayed NULL")
    return out.to_numpy(zero_copy_only=False).astype(np.int8, copy=False)


def pyarrow_compute(program: Program, stats: pk.Statistics) -> np.ndarray:
    """Outcomes (int8, as ``classify``) of ``program`` evaluated with ``pyarrow.compute``."""
    parts = [_evaluate_batch(program, b, stats) for b in stats.table.to_batches()
             if b.num_rows]
    return np.concatenate(parts) if parts else np.empty(0, np.int8)
