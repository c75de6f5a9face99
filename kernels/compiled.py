"""Compiled helpers the generated kernels call (also callable from Python).

Kept apart from ``ops.py`` so that Numba is imported only when a kernel is compiled or loaded:
``import prunekit`` and the interpreter do not need it (it is about half of import time).
"""

from __future__ import annotations

import numpy as np
from numba import njit

from .ops import ALL_MATCH, MAYBE_MATCH, NONE_MATCH  # noqa: F401 - the kernels' vocabulary


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
def outcome(may_true, may_false, may_null, empty):  # pragma: no cover - compiled
    # Branch-free (0 NONE, 1 MAYBE, 2 ALL) so that the kernel's loop vectorises.
    some = may_true & (not empty)
    return np.int8(some) + np.int8(some & (not may_false) & (not may_null))


_SPREAD = np.uint64(0x0101010101010101)
_BIT_OF_BYTE = np.uint64(0x8040201008040201)  # byte i keeps bit i
_LOW7 = np.uint64(0x7F7F7F7F7F7F7F7F)


@njit(cache=True, inline="always")
def unpack_bits(bits, start, m, dst):  # pragma: no cover - compiled
    """Bits ``start .. start + m`` of the bitmap ``bits`` as bytes 0/1 into ``dst[:m]``
    (``dst``'s length is a multiple of 8 with room for 8 more: whole words are written).

    Eight bits at a time, without a loop over them: the byte is copied into every byte of a
    word, byte i keeps bit i, and adding 0x7F moves any set bit to the top of its byte (no
    carry: a byte holds at most 0x80). A loop over the bits took about 12 instructions per
    container and bitmap, more than the rest of Q3's kernel."""
    words = dst.view(np.uint64)
    shift = np.uint64(start & 7)
    first = start >> 3
    last = bits.shape[0] - 1
    for q in range((m + 7) >> 3):
        k = first + q
        b = np.uint64(bits[k]) if k <= last else np.uint64(0)
        if shift:
            if k + 1 <= last:
                b |= np.uint64(bits[k + 1]) << np.uint64(8)
            b = (b >> shift) & np.uint64(0xFF)
        spread = (b * _SPREAD) & _BIT_OF_BYTE
        words[q] = ((spread + _LOW7) >> np.uint64(7)) & _SPREAD


@njit(cache=True, nogil=True)
def short_string_keys(offsets, data, first, n, out):  # pragma: no cover - compiled
    """Order-preserving int64 keys of strings ``first .. first + n`` (Arrow ``offsets`` and
    ``data``) into ``out``, or False as soon as one is longer than 7 bytes.

    A string of at most 7 bytes is its bytes, big-endian and zero-padded, then its length in
    the low byte: comparing keys compares the strings byte-wise (a proper prefix sorts first,
    by its length), and no two strings share a key. The top bit is flipped so that signed
    comparison orders them. ``inputs.short_key`` gives the same key to a literal (of any
    length). One pass at about 2 ns a string, against ~70 ns for Arrow's dictionary encoding."""
    top = np.uint64(1) << np.uint64(63)
    for i in range(n):
        a = offsets[first + i]
        length = offsets[first + i + 1] - a
        if length > 7 or length < 0:
            return False
        key = np.uint64(0)
        for k in range(length):
            key |= np.uint64(data[a + k]) << np.uint64(56 - 8 * k)
        out[i] = np.int64((key | np.uint64(length)) ^ top)
    return True
