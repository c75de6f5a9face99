"""Compiled helpers the generated kernels call (also callable from Python).

Kept apart from ``ops.py`` so that Numba is imported only when a kernel is compiled or loaded:
``import prunekit`` and the interpreter do not need it (it is about half of import time).
"""

from __future__ import annotations

import numpy as np
from llvmlite import ir
from numba import njit, types
from numba.core import cgutils
from numba.extending import intrinsic

from .ops import ALL_MATCH, MAYBE_MATCH, NONE_MATCH  # noqa: F401 - the kernels' vocabulary


def _pointer_to(item):
    """An intrinsic: an integer address as a pointer to ``item`` (for ``numba.carray``): how
    the compiled interpreter and the generated kernels read statistics from a table of
    addresses."""
    pointer = types.CPointer(item)

    @intrinsic
    def cast(typingctx, address):
        def codegen(context, builder, signature, args):
            return builder.inttoptr(args[0], context.get_value_type(pointer))

        return pointer(types.int64), codegen

    return cast


P_I8, P_I16, P_I32, P_I64 = (_pointer_to(t) for t in (types.int8, types.int16, types.int32,
                                                      types.int64))
P_U8, P_U16, P_U32, P_U64 = (_pointer_to(t) for t in (types.uint8, types.uint16, types.uint32,
                                                      types.uint64))
P_F32, P_F64, P_B = (_pointer_to(t) for t in (types.float32, types.float64, types.boolean))


# The searches run once per container on random bounds: a branch on each comparison would be
# mispredicted half the time (Q3 of the benchmarks took 85 ms at 1M containers with
# np.searchsorted, 10 ms without searching). These are branch-free: the loop trip count depends
# only on the list's length, and each step is a select.
@njit(cache=True, inline="always")
def _count_below(values, x, or_equal):  # pragma: no cover - compiled
    """How many of the sorted ``values`` are < x (<= x when ``or_equal``)."""
    n = values.shape[0]
    if n == 0:
        return 0
    base = 0
    while n > 1:
        half = n >> 1
        v = values[base + half]
        base += half if (v < x) | (or_equal & (v == x)) else 0
        n -= half
    v = values[base]
    return base + ((v < x) | (or_equal & (v == x)))


@njit(cache=True, inline="always")
def any_in(values, lo, lo_ok, hi, hi_ok):  # pragma: no cover - compiled
    """Some element of the sorted ``values`` lies in [lo, hi] (an unknown end is open)."""
    n = values.shape[0]
    if n == 0:
        return False
    below = _count_below(values, lo, False)
    i = below if lo_ok else 0
    first = values[min(i, n - 1)]
    return (i < n) & ((not hi_ok) | (first <= hi))


@njit(cache=True, inline="always")
def covers(values, lo, hi):  # pragma: no cover - compiled
    """Every integer of [lo, hi] is in the sorted, distinct ``values``.

    ``hi - lo`` may wrap for extreme int64 ranges; a wrapped difference is negative and so never
    equals ``count - 1`` (count >= 1), which keeps the answer sound."""
    count = _count_below(values, hi, True) - _count_below(values, lo, False)
    return (count > 0) & ((hi - lo) == count - 1)


# Long lists are searched once per container, starting from the previous container's answer
# ``hint``: statistics worth pruning with are clustered, so consecutive containers mostly fall
# in the same gap of the list, and checking that gap costs two loads and a predictable branch
# (Q6 of the benchmarks, 64 values: 3 binary searches per container took 8x the floor). Random
# bounds miss and pay the branch-free binary search as before.
@njit(cache=True, inline="always")
def _below_from(values, x, hint):  # pragma: no cover - compiled
    """``_count_below(values, x, False)``, trying ``hint`` first."""
    n = values.shape[0]
    if (hint == 0 or values[hint - 1] < x) and (hint == n or values[hint] >= x):
        return hint
    return _count_below(values, x, False)


@njit(cache=True, inline="always")
def any_in_from(values, lo, lo_ok, hi, hi_ok, hint):  # pragma: no cover - compiled
    """``(any_in(values, lo, lo_ok, hi, hi_ok), hint for the next container)``."""
    n = values.shape[0]
    if n == 0:
        return False, hint
    if lo_ok:
        hint = min(_below_from(values, lo, min(hint, n)), n)
    i = hint if lo_ok else 0
    first = values[min(i, n - 1)]
    return (i < n) & ((not hi_ok) | (first <= hi)), hint


@njit(cache=True, inline="always")
def covers_from(values, lo, hi, hint):  # pragma: no cover - compiled
    """``(covers(values, lo, hi), hint for the next container)``. A range of more integers than
    the list has (or one whose width wraps negative) is never covered: no search at all."""
    n = values.shape[0]
    width = hi - lo
    if width < 0 or width >= n:
        return False, hint
    hint = _below_from(values, lo, min(hint, n))
    count = _count_below(values, hi, True) - hint
    return (count > 0) & (width == count - 1), hint


@njit(cache=True, inline="always")
def list_gap(values, x, hint):  # pragma: no cover - compiled
    """``(lo_open, L, hi_open, U, hint)``: the gap of the sorted ``values`` that ``x`` falls
    in, as the open interval (L, U) between consecutive elements, an end open (and its value
    any element) where the list ends; the hint is ``_below_from``'s. An empty list is one gap
    open at both ends. A NaN ``x`` gives some gap: callers prove membership, not trust it."""
    n = values.shape[0]
    if n == 0:
        return True, x, True, x, hint
    g = _below_from(values, x, min(hint, n))
    return g == 0, values[max(g - 1, 0)], g == n, values[min(g, n - 1)], g


@njit(cache=True, inline="always")
def outcome(may_true, may_false, may_null, empty):  # pragma: no cover - compiled
    # Branch-free (0 NONE, 1 MAYBE, 2 ALL) so that the kernel's loop vectorises.
    some = may_true & (not empty)
    return np.int8(some) + np.int8(some & (not may_false) & (not may_null))


_SPREAD = np.uint64(0x0101010101010101)
_BIT_OF_BYTE = np.uint64(0x8040201008040201)  # byte i keeps bit i
_LOW7 = np.uint64(0x7F7F7F7F7F7F7F7F)
_I8, _I32, _I64 = ir.IntType(8), ir.IntType(32), ir.IntType(64)
_V4, _V8, _V64 = ir.VectorType(_I64, 4), ir.VectorType(_I64, 8), ir.VectorType(_I8, 64)
# a byte -> its eight bits as eight bytes 0/1, bit i in byte i (little-endian)
_BYTE_BITS = np.array([int.from_bytes(bytes((b >> i) & 1 for i in range(8)), "little")
                       for b in range(256)], np.uint64)


@intrinsic
def _spread_word(typingctx, bits, at, dst, to):
    """The 64 bits of ``bits[at:at + 8]`` (little-endian, bit i of byte k is bit 8k + i) as
    64 bytes 0/1 into ``dst[to:to + 64]``: one load, a bitcast to 64 booleans, a widening and
    one store (on AVX-512 a mask move and a masked byte move). The caller checks the bounds."""
    def codegen(context, builder, signature, args):
        source = context.make_array(signature.args[0])(context, builder, args[0])
        target = context.make_array(signature.args[2])(context, builder, args[2])
        word = builder.load(builder.bitcast(builder.gep(source.data, [args[1]]),
                                            _I64.as_pointer()), align=1)
        flags = builder.zext(builder.bitcast(word, ir.VectorType(ir.IntType(1), 64)), _V64)
        builder.store(flags, builder.bitcast(builder.gep(target.data, [args[3]]),
                                             _V64.as_pointer()), align=1)
        return context.get_dummy_value()

    return types.void(bits, at, dst, to), codegen


@njit(cache=True, inline="always")
def unpack_bits(bits, start, m, dst):  # pragma: no cover - compiled
    """Bits ``start .. start + m`` of the bitmap ``bits`` as bytes 0/1 into ``dst[:m]``
    (``dst``'s length is a multiple of 8 with room for 8 more: whole words are written).

    Where the bits start on a byte and every byte is inside the bitmap (a batch not sliced
    mid-byte: the usual case), 64 bits at a time (``_spread_word``), the last few bytes by
    a table lookup each. Otherwise eight bits at a time, without a loop over them: the byte
    is copied into every byte of a word, byte i keeps bit i, and adding 0x7F moves any set
    bit to the top of its byte (no carry: a byte holds at most 0x80). A loop over the bits
    took about 12 instructions per container and bitmap, more than the rest of Q3's kernel;
    a table lookup per byte cost Q5 of the benchmarks (four bitmaps, 10M containers, one
    thread) a sixth of its time, and 64 bits at a time about a third of that."""
    shift = np.uint64(start & 7)
    first = start >> 3
    last = bits.shape[0] - 1
    whole = (m + 7) >> 3
    words = dst.view(np.uint64)
    if shift == 0 and first + whole <= last + 1:
        at, full = np.uint64(first), np.uint64(whole >> 3)
        for q in range(np.uint64(0), full):  # unsigned: no wraparound checks
            _spread_word(bits, at + np.uint64(8) * q, dst, np.uint64(64) * q)
        for q in range(np.uint64(8) * full, np.uint64(whole)):
            words[q] = _BYTE_BITS[bits[at + q]]
        return
    for q in range(whole):
        k = first + q
        b = np.uint64(bits[k]) if k <= last else np.uint64(0)
        if shift:
            if k + 1 <= last:
                b |= np.uint64(bits[k + 1]) << np.uint64(8)
            b = (b >> shift) & np.uint64(0xFF)
        spread = (b * _SPREAD) & _BIT_OF_BYTE
        words[q] = ((spread + _LOW7) >> np.uint64(7)) & _SPREAD


@intrinsic
def _load_be64(typingctx, data, index):
    """The 8 bytes of ``data`` (a uint8 array) from ``index`` on, read big-endian: one
    unaligned load and a byte swap (LLVM did not combine eight byte loads into one). The
    caller checks that the bytes are inside the array."""
    def codegen(context, builder, signature, args):
        array = context.make_array(signature.args[0])(context, builder, args[0])
        address = builder.gep(array.data, [args[1]])
        word = builder.load(builder.bitcast(address, ir.IntType(64).as_pointer()), align=1)
        return builder.bswap(word)

    return types.uint64(data, index), codegen


_TOP = np.uint64(1) << np.uint64(63)
# _PREFIX[k] keeps the first k bytes of a big-endian word (a table: Numba's variable shifts
# check for shifts of 64 or more, which cost more than the load)
_PREFIX = np.array([(2**64 - 1) ^ ((2**64 - 1) >> (8 * k)) for k in range(8)], np.uint64)


@njit(cache=True, inline="always")
def _short_prefix(offsets, data, first, n):  # pragma: no cover - compiled
    """How many of the strings (from the first) can be read with one 8-byte load each, and
    the length accumulator's start: bits above its low three mean "not short"."""
    last = data.shape[0] - 8
    stop = n if last >= 0 else 0
    while stop > 0 and offsets[first + stop - 1] > last:
        stop -= 1
    negative = n > 0 and offsets[first] < 0
    return stop, np.int64(8) if negative else np.int64(0)


@njit(cache=True, inline="always")
def _short_rest(offsets, data, first, n, out, i0, stop, lengths):  # pragma: no cover
    """Keys of strings ``i0 .. n`` into ``out``, then the answer of ``short_string_keys``."""
    size = data.shape[0]
    last = size - 8
    prev = np.int64(offsets[first + i0]) if i0 < n else np.int64(0)
    for i in range(i0, stop):
        nxt = np.int64(offsets[first + i + 1])
        length = nxt - prev
        lengths |= length
        short = length & 7
        word = _load_be64(data, min(max(prev, 0), last)) & _PREFIX[short]
        out[i] = np.int64((word | np.uint64(short)) ^ _TOP)
        prev = nxt
    for i in range(max(stop, i0), n):
        a = np.int64(offsets[first + i])
        length = np.int64(offsets[first + i + 1]) - a
        lengths |= length
        word = np.uint64(0)
        if a < 0 or a + length > size:  # malformed: not short
            lengths |= 8
        else:
            for k in range(min(size - a, 8)):
                word |= np.uint64(data[a + k]) << np.uint64(56 - 8 * k)
        short = length & 7
        out[i] = np.int64(((word & _PREFIX[short]) | np.uint64(short)) ^ _TOP)
    return (lengths & ~7) == 0


@njit(cache=True, nogil=True)
def short_string_keys_scalar(offsets, data, first, n, out):  # pragma: no cover - compiled
    """Order-preserving int64 keys of strings ``first .. first + n`` (Arrow ``offsets`` and
    ``data``) into ``out[:n]``; False if one is longer than 7 bytes (then ``out`` is garbage).

    A string of at most 7 bytes is its bytes, big-endian and zero-padded, then its length in
    the low byte: comparing keys compares the strings byte-wise (a proper prefix sorts first,
    by its length), and no two strings share a key. The top bit is flipped so that signed
    comparison orders them. ``slots.short_key`` gives the same key to a literal (of any
    length).

    Each string is one unaligned 8-byte load, masked: 1.7 ns a string on random lengths,
    against 9 ns for a loop over its bytes and ~70 ns for Arrow's dictionary encoding. Loads
    are clamped into the buffer, so malformed offsets never read outside it; they are caught
    as a negative length (offsets that go back) and answer False, as do negative ones. The
    last strings, whose 8 bytes would pass the buffer's end, are read byte by byte."""
    stop, lengths = _short_prefix(offsets, data, first, n)
    return _short_rest(offsets, data, first, n, out, 0, stop, lengths)


@njit(cache=True, nogil=True)
def short_string_keys_vector(offsets, data, first, n, out):  # pragma: no cover - compiled
    """``short_string_keys_scalar``, four strings at a time in AVX2 vectors (``_keys4``): 0.72
    ns a string against 1.76 ns on the benchmarks' words (Zen 3, one thread, 1M strings in
    chunks of 4,096; LLVM does not vectorise the scalar loop). Only where the CPU has AVX2
    (``VECTOR``)."""
    stop, lengths = _short_prefix(offsets, data, first, n)
    last = np.int64(data.shape[0] - 8)
    i = 0
    while i + 4 <= stop:
        lengths |= _keys4(offsets, data, first + i, last, out, i)
        i += 4
    return _short_rest(offsets, data, first, n, out, i, stop, lengths)


def _splat(value: int, vector: ir.VectorType = _V4) -> ir.Constant:
    return ir.Constant(vector, [value] * vector.count)


def _keyable(offsets, data, out) -> bool:
    """Whether a key intrinsic takes these argument types: C-contiguous 1-d arrays of int32 or
    int64 offsets, uint8 bytes and int64 keys."""
    return (all(isinstance(a, types.Array) and a.layout == "C" and a.ndim == 1
                for a in (offsets, data, out))
            and offsets.dtype in (types.int32, types.int64) and data.dtype == types.uint8
            and out.dtype == types.int64)


def _lengths(builder, offsets, width: ir.IntType, index, vector: ir.VectorType) -> tuple:
    """The first offsets (as int64) and the lengths of ``vector.count`` strings from
    ``index``: two unaligned vector loads of an Arrow offsets array of ``width`` (int32
    widened)."""

    def load(at):
        pointer = builder.bitcast(builder.gep(offsets.data, [at]),
                                  ir.VectorType(width, vector.count).as_pointer())
        loaded = builder.load(pointer, align=1)
        return builder.sext(loaded, vector) if width.width == 32 else loaded

    prev = load(index)
    return prev, builder.sub(load(builder.add(index, ir.Constant(_I64, 1))), prev)


def _store_keys(builder, word, length, out, j) -> ir.Value:
    """Stores the keys of strings whose first 8 bytes (big-endian) are ``word`` into
    ``out[j ..]``: the first ``length & 7`` bytes, that length in the low byte, the top bit
    flipped. Returns 0 if all are short, else a value with bits above the low three."""
    vector = word.type
    short = builder.and_(length, _splat(7, vector))
    # the first `short` bytes: ~(~0 >> 8 * short), every shift below 64
    keep = builder.xor(builder.lshr(_splat(-1, vector), builder.shl(short, _splat(3, vector))),
                       _splat(-1, vector))
    key = builder.xor(builder.or_(builder.and_(word, keep), short), _splat(-(2**63), vector))
    builder.store(key, builder.bitcast(builder.gep(out.data, [j]), vector.as_pointer()),
                  align=8)
    # "Not short" as one bit per string, shifted above the low three bits the caller's
    # accumulator allows (a movemask, cheaper than OR-reducing the lengths: 0.80 -> 0.72 ns
    # a string with four)
    bad = builder.icmp_unsigned("!=", builder.and_(length, _splat(~7, vector)),
                                _splat(0, vector))
    bits = builder.zext(builder.bitcast(bad, ir.IntType(vector.count)), _I64)
    return builder.shl(bits, ir.Constant(_I64, 3))


def _key_intrinsic(vector: ir.VectorType, first_words):
    """An intrinsic ``(offsets, data, i, x, out, j)`` that keys strings ``i .. i + lanes - 1``
    (offsets ``i .. i + lanes``) into ``out[j ..]``, as ``_short_rest``'s first loop computes
    them, and returns 0 if all are short, else a value with bits above the low three.
    ``first_words(builder, data, starts, x)`` gives their first 8 bytes, big-endian, from
    their start offsets and the scalar ``x``. C-contiguous arrays only; the caller checks the
    indices."""
    def typer(typingctx, offsets, data, i, x, out, j):
        if not _keyable(offsets, data, out):
            return None

        def codegen(context, builder, signature, args):
            def array(k):
                return context.make_array(signature.args[k])(context, builder, args[k])

            width = ir.IntType(signature.args[0].dtype.bitwidth)
            starts, length = _lengths(builder, array(0), width, args[2], vector)
            word = first_words(builder, array(1), starts, args[3])
            return _store_keys(builder, word, length, array(4), args[5])

        return types.int64(offsets, data, types.int64, types.int64, out, types.int64), codegen

    typer.__name__ = typer.__qualname__ = f"_keys{vector.count}"  # each its own name in Numba
    return intrinsic(typer)


def _splat_of(builder, value, vector: ir.VectorType) -> ir.Value:
    """A scalar in every lane."""
    one = builder.insert_element(ir.Constant(vector, ir.Undefined), value, ir.Constant(_I32, 0))
    return builder.shuffle_vector(one, ir.Constant(vector, ir.Undefined),
                                  ir.Constant(ir.VectorType(_I32, vector.count),
                                              [0] * vector.count))


def _four_loads(builder, data, starts, last) -> ir.Value:
    """Four strings' first 8 bytes: four loads from their starts clamped into ``[0, last]``.
    Four 8-byte loads put together, not one AVX2 gather: 0.72 against 1.0 ns a string (a
    gather of four is slower on Zen 3 than the loads and inserts it stands for)."""
    start = builder.select(builder.icmp_signed("<", starts, _splat(0)), _splat(0), starts)
    last = _splat_of(builder, last, _V4)
    start = builder.select(builder.icmp_signed(">", start, last), last, start)
    base, word = builder.bitcast(data.data, _I8.as_pointer()), ir.Constant(_V4, ir.Undefined)
    for k in range(4):
        at = builder.gep(base, [builder.extract_element(start, ir.Constant(_I32, k))])
        loaded = builder.load(builder.bitcast(at, _I64.as_pointer()), align=1)
        word = builder.insert_element(word, loaded, ir.Constant(_I32, k))
    swap = cgutils.get_or_insert_function(builder.module, ir.FunctionType(_V4, [_V4]),
                                          "llvm.bswap.v4i64")
    return builder.call(swap, [word])


# Keys of four strings (``short_string_keys_vector``; the scalar is ``last``, the last start
# an 8-byte load may read from).
_keys4 = _key_intrinsic(_V4, _four_loads)


@njit(cache=True, nogil=True)
def short_string_keys_permute(offsets, data, first, n, out):  # pragma: no cover - compiled
    """``short_string_keys_scalar``, eight strings at a time from one 64-byte load of their
    bytes (``_keys8``, AVX-512 VBMI's byte permute): 0.41 against 0.66 ns a string for
    ``short_string_keys_vector`` on the benchmarks' words, in cache. Only where the CPU has
    VBMI (``PERMUTE``) and the data holds at least 64 bytes."""
    stop, lengths = _short_prefix(offsets, data, first, n)
    window = np.int64(data.shape[0] - 64)
    i = 0
    if window >= 0:
        while i + 8 <= stop:
            # Eight short strings span at most 56 bytes from the first one's start: a window
            # there holds them, and one clamped into the buffer holds them near its end too
            # (each starts by `data.shape[0] - 8`, as ``_short_prefix`` found). Malformed
            # offsets only read inside the window, and answer "not short" through `lengths`.
            at = min(max(np.int64(offsets[first + i]), 0), window)
            lengths |= _keys8(offsets, data, first + i, at, out, i)
            i += 8
    return _short_rest(offsets, data, first, n, out, i, stop, lengths)


def _window_permute(builder, data, starts, at) -> ir.Value:
    """Eight strings' first 8 bytes from the 64 bytes of ``data`` at ``at`` (the caller keeps
    them inside ``data``): key byte ``7 - b`` of a string is its byte ``b``, a byte index into
    that window picked by one permute (bytes past a string's length are masked later)."""
    # each string's start in the window, its low byte copied to the key's eight bytes, plus
    # 7 - (byte's place in the key): the window byte each key byte comes from
    spread = ir.Constant(ir.VectorType(_I32, 64), [p // 8 * 8 for p in range(64)])
    start = builder.shuffle_vector(
        builder.bitcast(builder.sub(starts, _splat_of(builder, at, _V8)), _V64),
        ir.Constant(_V64, ir.Undefined), spread)
    index = builder.add(start, ir.Constant(_V64, [7 - p % 8 for p in range(64)]))
    base = builder.gep(builder.bitcast(data.data, _I8.as_pointer()), [at])
    window = builder.load(builder.bitcast(base, _V64.as_pointer()), align=1)
    permute = cgutils.get_or_insert_function(
        builder.module, ir.FunctionType(_V64, [_V64, _V64]), "llvm.x86.avx512.permvar.qi.512")
    return builder.bitcast(builder.call(permute, [window, index]), _V8)


# Keys of eight strings (``short_string_keys_permute``; the scalar is ``at``, the window's
# start).
_keys8 = _key_intrinsic(_V8, _window_permute)


def _has(feature: str) -> bool:
    """Whether Numba compiles for a CPU with ``feature`` (LLVM's name: "avx2"): the host's
    features, or those named by NUMBA_CPU_NAME / NUMBA_CPU_FEATURES (a cache built for other
    machines)."""
    from numba.core import config

    if config.CPU_NAME is not None and config.CPU_NAME != "host":
        return f"+{feature}" in (config.CPU_FEATURES or "").split(",")
    from llvmlite import binding

    try:
        return bool(binding.get_host_cpu_features().get(feature, False))
    except RuntimeError:  # llvmlite could not read them (some platforms): assume none
        return False


VECTOR = _has("avx2")
PERMUTE = VECTOR and _has("avx512vbmi") and _has("avx512bw")
short_string_keys = short_string_keys_permute if PERMUTE else \
    short_string_keys_vector if VECTOR else short_string_keys_scalar
