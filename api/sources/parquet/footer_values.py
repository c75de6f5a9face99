"""Bounds as Arrow arrays from footer bytes, vectorised (no Python object per value).

``decode(spec, t, buf, off, length, ok, upper)`` turns the plain-encoded statistic values at
``buf[off[i]:off[i] + length[i]]`` (for rows where ``ok``) into one Arrow array of type ``t``.
``spec`` is what ``footer_types.decoder`` chose for a (physical type, logical type, Arrow
type) triple; it says how, while the rules (which bounds are usable at all) stay there. A
value that cannot be read exactly (wrong length, out of the type's range, invalid UTF-8 for a
string, NaN for a float, a decimal beyond its precision) becomes null: unknown, never a guess.

Decimals and UTF-8 validation are ``prunekit.sources.jit`` functions, like the walk.
"""

from __future__ import annotations

import numpy as np
import pyarrow as pa

from ..jit import jit, pick

_I64_MAX = np.iinfo(np.int64).max


def _validity(good: np.ndarray) -> pa.Buffer | None:
    return None if good.all() else pa.py_buffer(np.packbits(good, bitorder="little"))


def _fixed(buf, off, length, ok, width: int, dtype: str):
    """Values of exactly ``width`` bytes, viewed as ``dtype``; (values, good)."""
    good = ok & (length == width)
    idx = np.where(good, off, 0)
    raw = buf[idx[:, None] + np.arange(width)]
    return np.ascontiguousarray(raw).view(dtype).reshape(-1), good


def _numpy_int(t: pa.DataType) -> np.dtype:
    if pa.types.is_integer(t):
        return np.dtype(f"{'u' if pa.types.is_unsigned_integer(t) else 'i'}{t.bit_width // 8}")
    return np.dtype(f"i{t.bit_width // 8}")  # dates, timestamps


def _in_range(vals: np.ndarray, target: np.dtype) -> np.ndarray:
    """Whether each value fits ``target``, comparing without float conversion."""
    info = np.iinfo(target)
    if vals.dtype == np.uint64:
        return vals <= np.uint64(info.max)
    ok = vals >= info.min
    return ok & (vals <= info.max) if info.max <= _I64_MAX else ok


def _from_fixed(t, vals, good) -> pa.Array:
    vals = np.where(good, vals, 0).astype(vals.dtype, copy=False)
    return pa.Array.from_buffers(t, len(vals), [_validity(good), pa.py_buffer(vals)])


def decode(spec: tuple, t: pa.DataType, buf, off, length, ok, upper: bool) -> pa.Array:
    """One bound per row (``upper``: maxima) as an Arrow array of type ``t``.

    >>> import numpy as np, pyarrow as pa
    >>> buf = np.frombuffer((7).to_bytes(8, "little") + b"abc" + bytes(32), np.uint8)
    >>> ok = np.array([True, False])
    >>> decode(("int", 8, False), pa.int64(), buf, np.array([0, 0]), np.array([8, 8]), ok,
    ...        False).to_pylist()
    [7, None]
    >>> decode(("bytes",), pa.string(), buf, np.array([8]), np.array([3]), ok[:1],
    ...        True).to_pylist()
    ['abc']
    """
    kind = spec[0]
    if kind == "int":
        width, unsigned = spec[1], spec[2]
        vals, good = _fixed(buf, off, length, ok, width, f"<i{width}")
        if unsigned:
            vals = vals.view(f"<u{width}").astype(np.uint64)
        else:
            vals = vals.astype(np.int64)
        target = _numpy_int(t)
        good &= _in_range(vals, target)
        return _from_fixed(t, vals.astype(target), good)
    if kind == "scale":  # dates to date64 ms, coarser timestamp units: exact multiples
        vals, good = _fixed(buf, off, length, ok, spec[1], f"<i{spec[1]}")
        vals, k = vals.astype(np.int64), spec[2]
        good &= np.abs(np.where(good, vals, 0)) <= _I64_MAX // k
        return _from_fixed(t, np.where(good, vals, 0) * k, good)
    if kind == "div":  # a finer file unit: round outwards so the bound still holds
        vals, good = _fixed(buf, off, length, ok, 8, "<i8")
        k = spec[1]
        vals = vals // k + (upper & (vals % k != 0))
        return _from_fixed(t, vals.astype(np.int64), good)
    if kind == "float":
        width = spec[1]
        vals, good = _fixed(buf, off, length, ok, width, f"<f{width}")
        good &= ~np.isnan(vals)  # NaN is no bound (docs/semantics.md §4)
        zero = vals.dtype.type(0.0 if upper else -0.0)  # a zero bound stands for both zeros
        vals = np.where(vals == 0, zero, vals).astype(_numpy_float(t))
        return _from_fixed(t, vals, good)
    if kind == "bool":
        vals, good = _fixed(buf, off, length, ok, 1, "u1")
        return pa.array((vals & 1).astype(bool), pa.bool_(), mask=~good)
    if kind == "decimal":
        return _decimal(spec[1], t, buf, off, length, ok)
    if kind == "bytes":
        return _bytes(t, buf, off, length, ok)
    raise AssertionError(f"unknown bound decoder {spec!r}")


def _numpy_float(t: pa.DataType) -> np.dtype:
    return np.dtype(f"f{t.bit_width // 8}")


def _gather(buf, off, length, good):
    """Concatenated bytes of the good rows and their int64 offsets."""
    lens = np.where(good, length, 0).astype(np.int64)
    offsets = np.zeros(len(lens) + 1, np.int64)
    np.cumsum(lens, out=offsets[1:])
    total = int(offsets[-1])
    idx = np.repeat(np.where(good, off, 0) - offsets[:-1], lens) + np.arange(total)
    return buf[idx], offsets


def _bytes(t, buf, off, length, ok) -> pa.Array:
    good = ok & (length >= 0)
    if pa.types.is_fixed_size_binary(t):
        good &= length == t.byte_width
        vals = buf[np.where(good, off, 0)[:, None] + np.arange(t.byte_width)].reshape(-1)
        return pa.Array.from_buffers(t, len(good), [_validity(good), pa.py_buffer(vals)])
    data, offsets = _gather(buf, off, length, good)
    if pa.types.is_string(t) or pa.types.is_large_string(t) or t == pa.string_view():
        good = good & _utf8_valid(data, offsets)  # an invalid bound is unknown, not mangled
        data, offsets = _gather(buf, off, length, good)
    raw = pa.Array.from_buffers(pa.large_binary(), len(good),
                                [_validity(good), pa.py_buffer(offsets), pa.py_buffer(data)])
    if pa.types.is_string(t) or pa.types.is_large_string(t) or t == pa.string_view():
        raw = raw.view(pa.large_string())  # validated above
    return raw if raw.type == t else raw.cast(t)


def _decimal(big_endian: bool, t, buf, off, length, ok) -> pa.Array:
    if t.byte_width < 16:  # decimal32/64: read as decimal128 of the same precision (exact)
        return _decimal(big_endian, pa.decimal128(t.precision, t.scale), buf, off, length,
                        ok).cast(t)
    words = t.byte_width // 8
    limit = 10 ** t.precision
    limbs = np.array([(limit >> (64 * w)) & (2**64 - 1) for w in range(words)], np.uint64)
    decode = pick(_decimal_words, len(off) * words * 8)
    out, good = decode(buf, off.astype(np.int64), length.astype(np.int64), ok, big_endian, words,
                       limbs)
    return pa.Array.from_buffers(t, len(good), [_validity(good), pa.py_buffer(out)])


@jit
def _decimal_words(buf, off, length, ok, big_endian, words, limit):
    """Two's complement little-endian words of big-endian (BYTE_ARRAY, FIXED_LEN_BYTE_ARRAY)
    or little-endian (INT32, INT64) unscaled decimals; good where the value is readable and
    its magnitude is below ``limit`` (10**precision)."""
    n = off.size
    out = np.zeros((n, words), np.uint64)
    good = np.zeros(n, np.bool_)
    nbytes = words * 8
    for i in range(n):
        size = length[i]
        if not ok[i] or size <= 0 or (not big_endian and size != 4 and size != 8):
            continue
        o = off[i]
        top = buf[o] if big_endian else buf[o + size - 1]
        neg = top >= 0x80
        fill = np.uint8(0xFF) if neg else np.uint8(0)
        readable = True
        for j in range(nbytes, size):  # bytes beyond the width must only extend the sign
            b = buf[o + size - 1 - j] if big_endian else buf[o + j]
            if b != fill:
                readable = False
        if size > nbytes:
            kept = buf[o + size - nbytes] if big_endian else buf[o + nbytes - 1]
            if (kept >= 0x80) != neg:
                readable = False
        if not readable:
            continue
        for j in range(nbytes):
            if j < size:
                b = buf[o + size - 1 - j] if big_endian else buf[o + j]
            else:
                b = fill
            out[i, j // 8] |= np.uint64(b) << np.uint64(8 * (j % 8))
        # magnitude (two's complement negation) against the limit, highest word first
        mag = out[i].copy()
        if neg:
            carry = np.uint64(1)
            for w in range(words):
                v = ~mag[w] + carry
                carry = np.uint64(1) if (carry == 1 and v == 0) else np.uint64(0)
                mag[w] = v
        below = False
        for w in range(words - 1, -1, -1):
            if mag[w] != limit[w]:
                below = mag[w] < limit[w]
                break
        good[i] = below
    return out.reshape(-1), good


@jit
def _utf8_rows(data, offsets):
    n = offsets.size - 1
    out = np.ones(n, np.bool_)
    for r in range(n):
        i, end = offsets[r], offsets[r + 1]
        while i < end:
            b = data[i]
            if b < 0x80:
                i += 1
                continue
            if 0xC2 <= b <= 0xDF:
                k, lo, hi = 1, 0x80, 0xBF
            elif 0xE0 <= b <= 0xEF:
                k = 2
                lo = 0xA0 if b == 0xE0 else 0x80  # no overlong forms
                hi = 0x9F if b == 0xED else 0xBF  # no surrogates
            elif 0xF0 <= b <= 0xF4:
                k = 3
                lo = 0x90 if b == 0xF0 else 0x80
                hi = 0x8F if b == 0xF4 else 0xBF
            else:
                out[r] = False
                break
            if i + k >= end:  # the sequence runs past the value
                out[r] = False
                break
            if not (lo <= data[i + 1] <= hi):
                out[r] = False
                break
            for j in range(2, k + 1):
                if not (0x80 <= data[i + j] <= 0xBF):
                    out[r] = False
                    break
            if not out[r]:
                break
            i += k + 1
    return out


def _utf8_valid(data: np.ndarray, offsets: np.ndarray) -> np.ndarray:
    return pick(_utf8_rows, data.size)(data, offsets)
