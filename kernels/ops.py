"""One table for every program op: its kernel source spelling and its NumPy reference.

The Numba emitter (``codegen.py``) uses the spelling; the NumPy interpreter (``interpret.py``)
uses the reference; tests check the two agree op by op and program by program.

Spellings hold only step names we invent (``s3``) and the helper names below; never user text.
"""

from __future__ import annotations

import numpy as np
from numba import njit

NONE_MATCH, MAYBE_MATCH, ALL_MATCH = 0, 1, 2


# ---- helpers the generated kernels call (also usable from Python) ---------------------------
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


# ---- NumPy references over whole arrays ----------------------------------------------------
def _any_in_np(values, lo, lo_ok, hi, hi_ok):
    n = len(values)
    if n == 0:
        return np.zeros(np.broadcast(lo, hi).shape, bool)
    i = np.where(lo_ok, np.searchsorted(values, lo), 0)
    inside = i < n
    first = values[np.minimum(i, n - 1)]
    return inside & (~np.asarray(hi_ok) | (first <= hi))


def _covers_np(values, lo, hi):
    i = np.searchsorted(values, lo)
    j = np.searchsorted(values, hi, side="right")
    count = (j - i).astype(np.int64)
    with np.errstate(over="ignore"):
        diff = hi - lo
    return (count > 0) & (diff == (count - 1).astype(diff.dtype))


def _outcome_np(t, f, n, empty):
    t, f, n, empty = (np.asarray(x, bool) for x in (t, f, n, empty))  # Python bools: ~True == -2
    out = np.where(~f & ~n, ALL_MATCH, MAYBE_MATCH).astype(np.int8)
    return np.where(~t | empty, NONE_MATCH, out).astype(np.int8)


def _nary(fn):
    def apply(*xs):
        acc = np.asarray(xs[0], bool)
        for x in xs[1:]:
            acc = fn(acc, x)
        return acc

    return apply


def _floordiv(a, k):
    return np.floor_divide(a, k)


def _tofloat(a):
    return np.asarray(a).astype(np.float64)


def _tofloat32(a):
    return np.asarray(a).astype(np.float32).astype(np.float64)


def _mul(a, k):
    with np.errstate(over="ignore"):
        return np.multiply(a, k)


def _within(a, c):
    return (-c <= a) & (a <= c)


def _toint(a):
    return np.asarray(a).astype(np.int64)


def _fits_int64(a):
    return np.asarray(a) <= np.uint64(2**63 - 1)


# name -> (spelling with {0}, {1}, ... or a join rule, NumPy reference)
OPS = {
    "and": (" & ", _nary(np.logical_and)),
    "or": (" | ", _nary(np.logical_or)),
    "not": ("(not {0})", np.logical_not),
    "lt": ("({0} < {1})", np.less),
    "le": ("({0} <= {1})", np.less_equal),
    "gt": ("({0} > {1})", np.greater),
    "ge": ("({0} >= {1})", np.greater_equal),
    "eq": ("({0} == {1})", np.equal),
    "isnan": ("np.isnan({0})", np.isnan),
    "add": ("({0} + {1})", np.add),
    "mul": ("({0} * {1})", _mul),
    "within": ("((-{1} <= {0}) & ({0} <= {1}))", _within),
    "toint": ("np.int64({0})", _toint),
    # Compare uint64 with a uint64 constant: mixing signedness would compare in float64.
    "fits_int64": ("({0} <= np.uint64(9223372036854775807))", _fits_int64),
    "tofloat": ("np.float64({0})", _tofloat),
    # int64 -> float32 directly (one correct rounding, as Java's (float) cast), then widened.
    "tofloat32": ("np.float64(np.float32({0}))", _tofloat32),
    "floordiv": ("({0} // {1})", _floordiv),
    "any_in": ("any_in({0}, {1}, {2}, {3}, {4})", _any_in_np),
    "covers": ("covers({0}, {1}, {2})", _covers_np),
    "outcome": ("outcome({0}, {1}, {2}, {3})", _outcome_np),
}
