"""``months_between(a, b[, roundOff])`` of a DATE column and a DATE literal, in either order, as
Spark 4 computes it (``DateTimeUtils.monthsBetween``, checked in Spark): with ``M`` the
difference of the months (``12 * year + month``) and ``d1``, ``d2`` the days of the month,

- ``M`` when ``d1 = d2`` or both days are the last of their months (time of day ignored);
- else ``M + s / 2678400`` (``s``: the difference in seconds, ``(d1 - d2) * 86400`` plus the
  times of day; 2678400 is 31 days), in doubles, then ``Math.round(v * 1e8) / 1e8`` unless
  ``roundOff`` is false.

Two DATEs are midnights in the session time zone and read back in it, so the times of day are
0 in every zone: the result depends on the dates alone.

**Where it is monotone.** Fix ``b`` and move ``a`` one day on. Within a month ``d1 - d2``
grows by 1 (``d1 = d2`` gives ``M``, the same as the formula). From a month's last day ``L1`` to
the next month's first: ``M + (L1 - d2) / 31`` becomes ``M + 1 + (1 - d2) / 31``, larger since
``L1 <= 31``. The one exception is the last-day rule: at ``a`` the last day of its month and
``b`` the last of its own, the value is ``M`` rather than ``M + (L1 - L2) / 31``; that is lower
than the day before (``M + (L1 - 1 - L2) / 31``) only when ``L1 - 1 > L2``, i.e. ``b`` is the
end of February (``L2`` 28 or 29; ``L2 = 30`` against ``L1 = 31`` meets ``d1 = d2`` the day
before). E.g. ``b = 2023-02-28``: ``a = 2023-03-30`` gives 1.06451613, ``2023-03-31`` gives 1.0.
So for any other ``b`` the function of ``a`` is non-decreasing; symmetrically, for any ``a``
but the end of February it is non-increasing in ``b``. Doubles keep the order: distinct
exact values differ by a multiple of 1/31, far above the rounding error even for months of
years in the millions, and equal exact values come from equal ``(M, d1 - d2)`` (``|d1 - d2| <=
30``), so the same operations; rounding to 8 digits is monotone too.

So ``months_between(d, lit) >= m`` is ``d >= A(m)`` and ``months_between(lit, d) >= m`` is
``d <= B(m)``, the thresholds found by bisection over the day counts; the literal at the end
of February leaves the call unknown (as do TIMESTAMP arguments, whose times of day and zones
matter, a string literal with a time, and a ``roundOff`` that is not a boolean literal).

>>> import pyarrow as pa
>>> from prunekit.expr.binding.bind import bind
>>> from prunekit.expr.syntax.sql import parse
>>> bind(parse("months_between(d, DATE '2024-01-31') >= 1"), pa.schema([("d", pa.date32())])).arg
BCompare(col=d, op='ge', value=19782)
"""

from __future__ import annotations

import datetime as dt
import math
from fractions import Fraction

import pyarrow as pa

from prunekit.expr.binding import bound as b
from prunekit.expr.binding.applied import Monotone, at_least
from prunekit.expr.binding.functions.registry import Rule, register
from prunekit.expr.binding.operands import ColOp, LitOp
from prunekit.expr.calendar import civil_from_days, days_from_civil

INT32 = (-(2**31), 2**31 - 1)
_EPOCH = dt.date(1970, 1, 1)


def _month_end(y: int, m: int) -> int:
    """The last day of a month (its day of the month)."""
    return days_from_civil(y + m // 12, m % 12 + 1, 1) - days_from_civil(y, m, 1)


def months_between_days(a: int, c: int, round_off: bool = True) -> float:
    """Spark's ``months_between`` of two DATEs given as day counts since 1970-01-01.

    >>> d = days_from_civil
    >>> months_between_days(d(2023, 3, 30), d(2023, 2, 28)), months_between_days(
    ...     d(2023, 3, 31), d(2023, 2, 28)), months_between_days(d(1997, 2, 28), d(1996, 10, 30))
    (1.06451613, 1.0, 3.93548387)
    """
    y1, m1, d1 = civil_from_days(a)
    y2, m2, d2 = civil_from_days(c)
    months = float((y1 * 12 + m1) - (y2 * 12 + m2))
    if d1 == d2 or (d1 == _month_end(y1, m1) and d2 == _month_end(y2, m2)):
        return months
    diff = months + float((d1 - d2) * 86_400) / 2_678_400.0
    if not round_off:
        return diff
    return _java_round(diff * 1e8) / 1e8


def _java_round(x: float) -> int:
    """Java's ``Math.round``: the nearest integer, ties toward positive infinity."""
    return math.floor(Fraction(x) + Fraction(1, 2))


def end_of_february(day: int) -> bool:
    """Whether a day count is the last day of a February (the literal that breaks the order).

    >>> end_of_february(days_from_civil(2024, 2, 29)), end_of_february(days_from_civil(2023,
    ...     2, 28)), end_of_february(days_from_civil(2024, 2, 28))
    (True, True, False)
    """
    y, m, d = civil_from_days(day)
    return m == 2 and d == _month_end(y, m)


def _day_literal(x: LitOp) -> int | None:
    v = x.value
    if isinstance(v, str) and len(v.strip()) == 10:
        try:
            v = dt.date.fromisoformat(v.strip())
        except ValueError:
            return None
    if isinstance(v, dt.date) and not isinstance(v, dt.datetime):
        return (v - _EPOCH).days
    return None


def _date_column(x: object) -> b.BColumn | None:
    if not isinstance(x, ColOp) or x.negated or not isinstance(x.col, b.BColumn):
        return None
    col = x.col
    ok = col.type == pa.date32() and col.stats_type == col.type and not col.convert
    return col if ok else None


def _least(pred, lo: int, hi: int) -> int | None:
    """The least day in [lo, hi] where the non-decreasing ``pred`` holds, or None."""
    if not pred(hi):
        return None
    while lo < hi:
        mid = (lo + hi) // 2
        if pred(mid):
            hi = mid
        else:
            lo = mid + 1
    return lo


def _months_between(kids: tuple) -> object | None:
    if len(kids) not in (2, 3):
        return None
    round_off = True
    if len(kids) == 3:
        r = kids[2]
        if not isinstance(r, LitOp) or not isinstance(r.value, bool):
            return None
        round_off = r.value
    a, c = kids[0], kids[1]
    if any(isinstance(k, LitOp) and k.value is None for k in (a, c)):
        return LitOp(None, pa.float64())
    col_first = isinstance(a, ColOp)
    col, lit = (_date_column(a), c) if col_first else (_date_column(c), a)
    if col is None or not isinstance(lit, LitOp):
        return None
    fixed = _day_literal(lit)
    if fixed is None or end_of_february(fixed):
        return None
    def least(pred) -> int | None:
        return _least(pred, *INT32)

    def value(d: int) -> float:
        return months_between_days(d, fixed, round_off) if col_first else \
            months_between_days(fixed, d, round_off)

    def days_in(lo: int | None, hi: int | None) -> object:
        """``lo <= d <= hi`` (no lo: no day; no hi: every day from lo on)."""
        hi = INT32[1] if hi is None else hi
        if lo is None or lo > hi:
            return b.BNonNull(col, False)
        return b.BInRange(col, lo, hi)

    if col_first:  # non-decreasing in the column: f(d) >= m is d >= A(m)
        def ge(m: float) -> object:
            return _from(col, least(lambda d: value(d) >= m))

        def gt(m: float) -> object:
            return _from(col, least(lambda d: value(d) > m))

        def between(first: float, last: float) -> object:
            above = least(lambda d: value(d) > last)
            return days_in(least(lambda d: value(d) >= first), None if above is None else
                           above - 1)
    else:  # non-increasing: f(d) >= m is d below the least day where f(d) < m
        def ge(m: float) -> object:
            return _below(col, least(lambda d: value(d) < m))

        def gt(m: float) -> object:
            return _below(col, least(lambda d: value(d) <= m))

        def between(first: float, last: float) -> object:
            below = least(lambda d: value(d) < first)
            return days_in(least(lambda d: value(d) <= last), None if below is None else
                           below - 1)

    shown = lit.value.isoformat() if isinstance(lit.value, dt.date) else lit.value
    args = (col.name, f"DATE '{shown}'") if col_first else (f"DATE '{shown}'", col.name)
    extra = "" if len(kids) == 2 else f", {str(round_off).lower()}"
    return Monotone(f"months_between({args[0]}, {args[1]}{extra})", ColOp(col), pa.float64(),
                    ge, gt, between=between)


def _from(col: b.BColumn, day: int | None) -> object:
    """``d >= day``; no such day: FALSE for every non-NULL row."""
    return b.BNonNull(col, False) if day is None else at_least(col, day)


def _below(col: b.BColumn, day: int | None) -> object:
    """``d < day``; no such day: TRUE for every non-NULL row."""
    return b.BNonNull(col, True) if day is None else b.BNot(at_least(col, day))


register(Rule("months_between", _months_between,
              "months_between(d, DATE '2024-01-15') >= 2", (("d", pa.date32()),)))
