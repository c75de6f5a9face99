"""One table for every program op: its kernel source spelling and its NumPy reference.

The Numba emitter (``codegen.py``) uses the spelling; the NumPy interpreter (``interpret.py``)
uses the reference; tests check the two agree op by op and program by program.

Spellings hold only step names we invent (``s3``) and the names of the compiled helpers in
``compiled.py``; never user text. This module does not import Numba: the interpreter, and so
the first answer for a new predicate shape, runs without it.
"""

from __future__ import annotations

import numpy as np

# The outcome of a container, as every evaluator returns it (int8); defined here only, and
# re-exported as ``prunekit.NONE_MATCH`` and so on.
NONE_MATCH, MAYBE_MATCH, ALL_MATCH = 0, 1, 2
OUTCOME_NAMES = ("NONE_MATCH", "MAYBE_MATCH", "ALL_MATCH")


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
    count = (j - i).astype(np.int64, copy=False)  # copies only where intp is not int64
    with np.errstate(over="ignore"):
        diff = hi - lo
    return (count > 0) & (diff == (count - 1).astype(diff.dtype, copy=False))


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
    "not": ("(~{0})", np.logical_not),  # kernels hold booleans as int64 masks (codegen.py)
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
    "min2": ("min({0}, {1})", np.minimum),
    "max2": ("max({0}, {1})", np.maximum),
    "any_in": ("any_in({0}, {1}, {2}, {3}, {4})", _any_in_np),
    "covers": ("covers({0}, {1}, {2})", _covers_np),
    "outcome": ("outcome({0}, {1}, {2}, {3})", _outcome_np),
}
