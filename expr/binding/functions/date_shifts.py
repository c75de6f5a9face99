"""Date arithmetic: ``date_add``, ``date_sub``, ``add_months``, ``datediff`` and ``+``/``-``
of an interval (``d + INTERVAL 30 DAYS``, ``ts - INTERVAL 1 DAY``), as Spark 3 and later
compute them (``prunekit.expr.spark_types.intervals``).

On literals they are folded: ``date_sub(current_date(), 7)`` is a DATE once the moment is
fixed (``prunekit.expr.syntax.moments``). On a column:

- a DATE plus days (``date_add``, ``date_sub``, a DAY interval) and ``datediff`` against a DATE
  literal are integer steps on the day count, through ``arith``'s affine conversion: bounds
  move with the step, and where a step could leave INT the bounds are unknown (Spark's result
  would fail or wrap);
- a TIMESTAMP plus a day-time interval adds microseconds: a step in the column's own unit
  when the interval is a whole number of them, else unknown;
- ``add_months`` of a DATE (and a DATE plus a year-month interval) is non-decreasing (the day is
  clamped to the month's end), so ``add_months(d, k) >= m`` is ``d >= A(m)`` for the least such
  day ``A(m)``, found by bisection over the day counts. A TIMESTAMP plus months is not
  monotone (``01-30 23:00`` and ``01-31 01:00`` both land on ``02-29``, in reverse order): unknown.

A DATE or TIMESTAMP column cast from another type, a timestamp in ``date_add`` (Spark casts it
to DATE in the session time zone), an interval with hours added to a DATE (a TIMESTAMP in the
session time zone) are unknown.

>>> import pyarrow as pa
>>> from prunekit.expr.binding.bind import bind
>>> from prunekit.expr.syntax.sql import parse
>>> leaf = bind(parse("date_add(d, 30) >= DATE '2024-03-01'"), pa.schema([("d", pa.date32())]))
>>> leaf.col.label(), leaf.op, leaf.value  # day counts: 2024-03-01 is day 19783
('d + 30', 'ge', 19783)
"""

from __future__ import annotations

import datetime as dt

import pyarrow as pa

from prunekit.expr.binding import bound as b
from prunekit.expr.binding.applied import Monotone, at_least, int_valued
from prunekit.expr.binding.arith import extend, steps_of
from prunekit.expr.binding.functions.registry import Rule, register
from prunekit.expr.binding.operands import ColOp, LitOp
from prunekit.expr.calendar import per_day
from prunekit.expr.spark_types.intervals import Interval, add_days, add_months_days, shift

INT32 = (-(2**31), 2**31 - 1)
_EPOCH = dt.date(1970, 1, 1)


def _date_value(x: LitOp) -> dt.date | None:
    """A DATE literal, or a string Spark reads the same as a date in both modes."""
    v = x.value
    if isinstance(v, dt.date) and not isinstance(v, dt.datetime):
        return v
    if isinstance(v, str) and len(v) == 10:
        try:
            return dt.date.fromisoformat(v)
        except ValueError:
            return None
    return None


def _days_column(x: object) -> b.BColumn | None:
    """A plain DATE column (or one already moved by whole days), as its day count."""
    if not isinstance(x, ColOp) or x.negated or not isinstance(x.col, b.BColumn):
        return None
    col = x.col
    if col.domain != "int" or col.type != pa.date32() or col.stats_type != pa.date32():
        return None
    return col if not col.convert or col.convert[0] == "affine" else None


def _int_literal(x: object) -> int | None:
    if isinstance(x, LitOp) and isinstance(x.value, int) and not isinstance(x.value, bool) \
            and INT32[0] <= x.value <= INT32[1]:
        return x.value
    return None


def _plus_days(x: object, days: int) -> object | None:
    """``x`` plus ``days`` for a DATE literal or column."""
    if isinstance(x, LitOp):
        v = _date_value(x)
        if x.value is None:
            return LitOp(None, pa.date32())
        return None if v is None else _date_literal(add_days(v, days))
    col = _days_column(x)
    if col is None:
        return None
    return ColOp(extend(col, steps_of(col), pa.date32(), (("add", days),)))


def _date_literal(v: dt.date | None) -> LitOp | None:
    return None if v is None else LitOp(v, pa.date32())


def _date_add(kids: tuple, sign: int = 1) -> object | None:
    if len(kids) != 2:
        return None
    if isinstance(kids[1], LitOp) and kids[1].value is None:
        return LitOp(None, pa.date32())
    k = _int_literal(kids[1])
    return None if k is None else _plus_days(kids[0], sign * k)


def _add_months(kids: tuple) -> object | None:
    if len(kids) != 2:
        return None
    k = _int_literal(kids[1])
    return None if k is None else _plus_months(kids[0], k)


def _plus_months(x: object, k: int) -> object | None:
    if isinstance(x, LitOp):
        v = _date_value(x)
        if x.value is None:
            return LitOp(None, pa.date32())
        return None if v is None else _date_literal(shift(v, Interval(months=k)))
    col = _days_column(x)
    if col is None or col.convert:
        return None

    def least_day(m: int) -> object:
        """``d >= A(m)``: the least day whose result is at least ``m``, by bisection."""
        lo, hi = INT32
        if add_months_days(hi, k) < m:
            return b.BNonNull(col, False)
        while lo < hi:
            mid = (lo + hi) // 2
            if add_months_days(mid, k) >= m:
                hi = mid
            else:
                lo = mid + 1
        return at_least(col, lo)

    return Monotone(f"add_months({col.name}, {k})", ColOp(col), pa.date32(),
                    *int_valued(least_day))


def _datediff(kids: tuple) -> object | None:
    """``datediff(end, start)``: the days from start to end (INT)."""
    if len(kids) != 2:
        return None
    end, start = kids
    if any(isinstance(k, LitOp) and k.value is None for k in kids):
        return LitOp(None, pa.int32())
    if all(isinstance(k, LitOp) for k in kids):
        a, c = _date_value(end), _date_value(start)
        return None if a is None or c is None else LitOp((a - c).days, pa.int32())
    if isinstance(start, LitOp):
        col, c = _days_column(end), _date_value(start)
        steps = (("add", -((c - _EPOCH).days if c else 0)),)
    else:
        col, c = _days_column(start), _date_value(end)
        steps = (("mul", -1), ("add", (c - _EPOCH).days if c else 0))
    if col is None or c is None:
        return None
    return ColOp(extend(col, steps_of(col), pa.int32(), steps))


def plus_interval(op: str, left: object, right: object) -> object | None:
    """``a + interval``, ``interval + a`` or ``a - interval`` for a DATE or TIMESTAMP ``a``
    (literal or column), ``d + k``, ``k + d`` or ``d - k`` for a DATE ``d`` and an INT ``k``
    (Spark's ``date_add`` and ``date_sub``), or None when not such a case (bind then tries
    other rules)."""
    if op == "+" and (_int_literal(left) is not None or (
            isinstance(left, LitOp) and isinstance(left.value, Interval))):
        left, right = right, left
    days = _int_literal(right) if op in ("+", "-") else None
    if days is not None:
        is_date = _days_column(left) is not None or (isinstance(left, LitOp) and isinstance(
            left.value, dt.date) and not isinstance(left.value, dt.datetime))
        return _plus_days(left, days if op == "+" else -days) if is_date else None
    if op not in ("+", "-") or not (isinstance(right, LitOp) and isinstance(right.value,
                                                                           Interval)):
        return None
    iv = right.value if op == "+" else right.value.negated()
    if isinstance(left, LitOp):
        v = left.value
        if isinstance(v, dt.datetime):
            got = shift(v, iv)
            return None if got is None else LitOp(got, left.type)
        if _date_value(left) is not None and iv.kind != "day-time":
            return _date_literal(shift(_date_value(left), iv))
        return None
    if iv.kind == "year-month":
        return _plus_months(left, iv.months)
    if iv.kind == "day":
        if _days_column(left) is not None:
            return _plus_days(left, iv.micros // 86_400_000_000)
    return _timestamp_plus(left, iv.micros)


def _timestamp_plus(x: object, micros: int) -> object | None:
    if not isinstance(x, ColOp) or x.negated or not isinstance(x.col, b.BColumn):
        return None
    col = x.col
    t = col.type
    if not pa.types.is_timestamp(t) or col.stats_type != t or (
            col.convert and col.convert[0] != "affine"):
        return None
    ticks, rest = divmod(micros * per_day(t), 86_400_000_000)
    if rest:
        return None  # not a whole number of the column's ticks
    return ColOp(extend(col, steps_of(col), t, (("add", ticks),)))


register(
    Rule("date_add", _date_add, "date_add(d, 30) >= DATE '2024-03-01'", (("d", pa.date32()),)),
    Rule("date_sub", lambda kids: _date_add(kids, -1), "date_sub(d, 7) < DATE '2024-01-01'",
         (("d", pa.date32()),)),
    Rule("add_months", _add_months, "add_months(d, 1) = DATE '2024-02-29'",
         (("d", pa.date32()),)),
    Rule("datediff", _datediff, "datediff(DATE '2024-03-01', d) <= 7", (("d", pa.date32()),)),
)
