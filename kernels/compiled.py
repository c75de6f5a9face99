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


@njit(cache=True, inline="always")
def outcome(may_true, may_false, may_null, empty):  # pragma: no cover - compiled
    # Branch-free (0 NONE, 1 MAYBE, 2 ALL) so that the kernel's loop vectorises.
    some = may_true & (not empty)
    return np.int8(some) + np.int8(some & (not may_false) & (not may_null))


@njit(cache=True, inline="always")
def unpack_bits(bits, start, m, dst):  # pragma: no cover - compiled
    """Bits ``start .. start + m`` of the bitmap ``bits`` as bytes 0/1 into ``dst[:m]``
    (``dst`` has room for 8 more: whole bytes are written)."""
    shift = start & 7
    first = start >> 3
    last = bits.shape[0] - 1
    for q in range((m + 7) >> 3):
        k = first + q
        word = np.uint32(bits[k]) if k <= last else np.uint32(0)
        if shift:
            word |= (np.uint32(bits[k + 1]) << 8) if k + 1 <= last else np.uint32(0)
            word >>= shift
        for t in range(8):
            dst[8 * q + t] = (word >> t) & 1
