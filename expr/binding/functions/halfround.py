"""``round(x, k)`` (HALF_UP) and ``bround(x, k)`` (HALF_EVEN) to ``k`` decimal places (``k``
an integer literal, negative too; 0 when left out). Both are non-decreasing, so compared with
a literal they are thresholds on ``x`` (``applied.Monotone``), found exactly:
``round(x, k) >= m`` is ``round(x, k) >= r`` for ``r`` the least multiple of ``10**-k`` at or
above ``m``, which holds exactly from the tie point ``r - 10**-k / 2`` on (included when the
tie rounds up to ``r``: HALF_UP for ``r > 0``, HALF_EVEN when ``r / 10**-k`` is even).

Spark's types and edges (Spark 4, ``RoundBase``):

- integers keep their type; ``k >= 0`` leaves them as they are. ``k < 0`` rounds in
  BigDecimal and narrows back: beyond the type legacy mode wraps (``round(127Y, -1)`` is -126)
  and ANSI fails the query, so those values of x (found exactly) may give anything (``BWiden``);
- DECIMAL(p, s) gives DECIMAL(min(p - s + 1 + min(s, k), 38), min(s, k)) for ``k >= 0``
  (never overflows) and DECIMAL(min(max(p - s + 1, 1 - k), 38), 0) for ``k < 0``, which fails
  in both modes beyond 38 digits (those values may give anything);
- DOUBLE stays DOUBLE: NaN and infinities are themselves; a number is rounded from
  ``BigDecimal.valueOf(d)``, the decimal of ``Double.toString(d)``, not the double's exact
  binary value (``round(2.675, 2)`` is 2.68), then converted back correctly rounded (beyond the
  double range: infinity). That decimal is some number that rounds back to ``d`` (the shortest
  one from JDK 19 on), so where a tie point falls between two neighbouring doubles' rounding
  intervals the answer is exact, and the one or two doubles whose interval holds the tie point
  may give either result (``BWiden``: never used to prune on them).
- FLOAT is not used (Spark rounds the float's widened double and narrows the result to FLOAT).

>>> import pyarrow as pa
>>> from prunekit.expr.binding.bind import bind
>>> from prunekit.expr.syntax.sql import parse
>>> bind(parse("round(d, 1) >= 2.5"), pa.schema([("d", pa.decimal128(6, 2))])).arg
BCompare(col=d, op='ge', value=245)
"""

from __future__ import annotations

import math
from fractions import Fraction

import pyarrow as pa

from prunekit.expr.binding import bound as b
from prunekit.expr.binding.applied import Monotone, at_least
from prunekit.expr.binding.functions.absolute import interval, numeric_column
from prunekit.expr.binding.functions.registry import Rule, register
from prunekit.expr.binding.operands import ColOp, LitOp
from prunekit.expr.domains import int_range
from prunekit.expr.spark_types import coercion as C

_MAX = 1.7976931348623157e308
_OVER = Fraction(2**1024 - 2**970)  # at or beyond this magnitude a double rounds to infinity
_K = 400  # |k| beyond this rounds exactly as k = +-400 for every double, integer and decimal


def tie_threshold(r: int, unit: int, half_even: bool) -> int:
    """The least integer v with ``round(v / unit) * unit >= r``, for ``r`` a multiple of
    ``unit`` (1 or a power of ten above 1: its half is an integer).

    >>> tie_threshold(10, 10, False), tie_threshold(0, 10, False), tie_threshold(10, 10, True)
    (5, -4, 6)
    """
    if unit == 1:
        return r
    up = (r // unit) % 2 == 0 if half_even else r > 0  # where the tie r - unit/2 goes
    return r - unit // 2 + (0 if up else 1)


def _ceil_to(m: int | Fraction, unit: int | Fraction) -> int | Fraction:
    """The least multiple of ``unit`` at or above ``m``."""
    return math.ceil(Fraction(m) / unit) * unit


def _scaled(col: b.BColumn, k: int, half_even: bool, name: str) -> Monotone | None:
    """Integers and DECIMAL: exact thresholds on the column's (unscaled) values."""
    t = C.spark_type(col.type)
    s = t.scale if pa.types.is_decimal(t) else 0
    if pa.types.is_decimal(t):
        p = t.precision
        if k >= 0:
            out_scale = min(s, k)
            result = pa.decimal128(min(p - s + 1 + out_scale, 38), out_scale)
        else:
            result = pa.decimal128(min(max(p - s + 1, 1 - k), 38), 0)
            out_scale = 0
        unit = 10 ** max(s - k, 0)
        fails = 10 ** (38 + s)  # |result| at 10**38 (in x's units) fails the query
        lo_out, hi_out = -fails, fails
    else:
        result, out_scale = t, 0
        if k >= 0:
            return None  # the column itself (bind gives the ColOp)
        unit = 10 ** (-k)
        tmin, tmax = int_range(t)
        lo_out, hi_out = tmin - 1, tmax + 1  # legacy wraps beyond the type, ANSI fails
    to_x = 10 ** (s - out_scale)  # a result's unscaled value in x's units

    def at(r: int) -> int:
        return tie_threshold(r, unit, half_even)

    # Values of x whose result leaves the result type: anything may happen there.
    # R(x) >= hi_out from at(the least multiple >= hi_out) on; R(x) <= lo_out below
    # at(the multiple just above the greatest multiple <= lo_out).
    guard = [interval(col, at(_ceil_to(hi_out, unit)), None),
             interval(col, None, at(_floor_to(lo_out, unit) + unit) - 1)]
    guard = [g for g in guard if g is not None]

    def ge(m: int) -> object:
        got = at_least(col, at(_ceil_to(m * to_x, unit)))
        if not guard:
            return got
        return b.BWiden(got, guard[0] if len(guard) == 1 else b.BOr(tuple(guard)))

    def gt(m: int) -> object:
        return ge(m + 1)

    return Monotone(f"{name}({col.label()}, {k})", ColOp(col), result, ge, gt)


def _floor_to(m: int, unit: int) -> int:
    """The greatest multiple of ``unit`` at or below ``m``."""
    return m // unit * unit


def to_double(q: Fraction) -> float:
    """``q`` rounded to the nearest double (ties to even), infinite beyond the range, as Java's
    ``BigDecimal.doubleValue``.

    >>> to_double(Fraction(1, 3)) == 1 / 3, to_double(Fraction(2**1024))
    (True, inf)
    """
    if abs(q) >= _OVER:
        return math.inf if q > 0 else -math.inf
    return float(q)  # int / int: correctly rounded


def _lowest_rounding_to(m: float) -> Fraction:
    """The least real that rounds to a double >= m (m > -inf), as a Fraction, a tie included
    or not: the caller checks."""
    if m == math.inf:
        return _OVER
    below = math.nextafter(m, -math.inf)
    below_q = Fraction(-(2**1024)) if below == -math.inf else Fraction(below)
    return (below_q + Fraction(m)) / 2


def _double(col: b.BColumn, k: int, half_even: bool, name: str) -> Monotone:
    """DOUBLE: thresholds exact up to the one or two doubles around each tie point."""
    unit = Fraction(10) ** (-k)
    half = unit / 2

    def ge(m: float) -> object:
        if m == -math.inf:
            return b.BNonNull(col, True)  # every number, and NaN (the greatest)
        r = _ceil_to(_lowest_rounding_to(m), unit)  # least result decimal giving >= m
        if to_double(r) < m:  # a tie that rounds down
            r += unit
        tie = r - half  # R(d) >= r from about here on; exactly which side a tie goes and
        # which decimal Spark reads for a double both vary within the neighbouring doubles.
        y = _double_at_least(tie)
        z = _double_at_most(tie)
        got = b.BCompare(col, "ge", y)
        guard = b.BInRange(col, max(z, -_MAX), min(y, _MAX))
        return b.BWiden(got, guard)

    def gt(m: float) -> object:
        if m == math.inf:
            return b.BNanEq(col)  # only NaN is above infinity
        return ge(math.nextafter(m, math.inf))

    return Monotone(f"{name}({col.label()}, {k})", ColOp(col), pa.float64(), ge, gt,
                    keeps_nan=True)


def _double_at_least(q: Fraction) -> float:
    """The least double >= q (infinity above the range)."""
    if q > Fraction(_MAX):
        return math.inf
    if q < -Fraction(_MAX):
        return -_MAX
    f = float(q)
    return f if Fraction(f) >= q else math.nextafter(f, math.inf)


def _double_at_most(q: Fraction) -> float:
    """The greatest double <= q (-infinity below the range)."""
    if q < -Fraction(_MAX):
        return -math.inf
    if q > Fraction(_MAX):
        return _MAX
    f = float(q)
    return f if Fraction(f) <= q else math.nextafter(f, -math.inf)


def _bind(name: str):
    half_even = name == "bround"

    def bind(kids: tuple) -> object | None:
        if not kids or len(kids) > 2 or not isinstance(kids[0], ColOp) or kids[0].negated:
            return None
        k = 0
        if len(kids) == 2:
            if not isinstance(kids[1], LitOp) or not isinstance(kids[1].value, int) or \
                    isinstance(kids[1].value, bool):
                return None
            k = kids[1].value
            if not -(2**31) <= k < 2**31:
                return None  # Spark wants an INT
        col = numeric_column(kids[0])
        if col is None:
            return None
        k = max(-_K, min(_K, k))
        if col.domain == "float":
            if col.type != pa.float64():
                return None  # FLOAT: not used
            return _double(col, k, half_even, name)
        if pa.types.is_integer(col.type) and k >= 0:
            return kids[0]  # an integer rounded to k >= 0 places is itself, in its type
        return _scaled(col, k, half_even, name)

    return bind


register(Rule("round", _bind("round"), "round(x, 1) > 100", (("x", pa.float64()),)),
         Rule("bround", _bind("bround"), "bround(d, -1) = 20", (("d", pa.decimal128(6, 2)),)))
