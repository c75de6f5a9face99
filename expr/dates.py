"""Calendar functions of dates and timestamps (``functions.py`` has the rules' table).

``year``, ``date_trunc`` and ``trunc`` are monotone over the whole domain: compared with a
literal they become a range of the column (``functions.Monotone``). ``month`` and ``day`` are
monotone only within a year (a month): their bounds are the month (day) of min and max when
both fall in one, computed in the program from the day counts (``calendar_facts``), else
unknown. Timestamps are read in UTC (``functions.py`` says why).

>>> civil_from_days(days_from_civil(2024, 2, 29) + 1)
(2024, 3, 1)
"""

from __future__ import annotations

from fractions import Fraction

import pyarrow as pa

from . import bind as B
from . import bound as b
from . import functions as F


# ---- the proleptic Gregorian calendar (Spark's, java.time) --------------------------------
def days_from_civil(y: int, m: int, d: int) -> int:
    """Days since 1970-01-01 of a date, for any year (H. Hinnant's algorithm).

    >>> days_from_civil(1970, 1, 1), days_from_civil(2000, 3, 1), days_from_civil(-1, 12, 31)
    (0, 11017, -719529)
    """
    y -= m <= 2
    era = y // 400
    yoe = y - era * 400
    doy = (153 * (m + (-3 if m > 2 else 9)) + 2) // 5 + d - 1
    doe = yoe * 365 + yoe // 4 - yoe // 100 + doy
    return era * 146097 + doe - 719468


def civil_from_days(z: int) -> tuple[int, int, int]:
    """(year, month, day) of a day count since 1970-01-01; the inverse of days_from_civil.

    >>> civil_from_days(0), civil_from_days(11017), civil_from_days(-719529)
    ((1970, 1, 1), (2000, 3, 1), (-1, 12, 31))
    """
    z += 719468
    era = z // 146097
    doe = z - era * 146097
    yoe = (doe - doe // 1460 + doe // 36524 - doe // 146096) // 365
    doy = doe - (365 * yoe + yoe // 4 - yoe // 100)
    mp = (5 * doy + 2) // 153
    d = doy - (153 * mp + 2) // 5 + 1
    m = mp + 3 if mp < 10 else mp - 9
    return yoe + era * 400 + (m <= 2), m, d



# ---- dates and timestamps -------------------------------------------------------------------
_PER_SECOND = {"s": 1, "ms": 10**3, "us": 10**6, "ns": 10**9}


def _per_day(t: pa.DataType) -> int | None:
    """Domain ticks per day of a date or timestamp type."""
    if pa.types.is_date32(t):
        return 1
    if pa.types.is_date64(t):
        return 86_400_000
    if pa.types.is_timestamp(t):
        return 86_400 * _PER_SECOND[t.unit]
    return None


def _temporal(x: object) -> b.BColumn | None:
    if not isinstance(x, B.ColOp) or x.negated or not isinstance(x.col, b.BColumn) or \
            x.col.domain != "int" or _per_day(x.col.type) is None:
        return None
    return x.col


def year(x: B.ColOp) -> F.Monotone | None:
    col = _temporal(x)
    if col is not None and pa.types.is_timestamp(col.type):
        col = B.cast_column(col, pa.date32()) if not col.convert else None
    if col is None:
        return None
    k = _per_day(col.type)
    ge, gt = F._int_valued(lambda m: F._at_least(col, days_from_civil(m, 1, 1) * k))
    shown = x.col.sql() if x.col.convert and x.col.convert[0] == "floordiv" else x.col.label()
    return F.Monotone(f"year({shown})", B.ColOp(col), pa.int32(), ge, gt,
                    utc=pa.types.is_timestamp(x.col.stats_type))


def days(x: B.ColOp) -> b.BColumn | None:
    """The column as a day count since 1970-01-01 (a timestamp: its UTC day), or None."""
    col = _temporal(x)
    if col is None or pa.types.is_date32(col.type):
        return col
    if col.convert:
        return None
    return b.BColumn(col.name, col.stats_type, pa.date32(), "int", ("floordiv", _per_day(
        col.type)))


def _civil_steps(p, days: int) -> tuple[int, int]:
    """Program steps for (months since year 0, day of month) of a day count, with the ops
    every backend has (Hinnant's civil_from_days: floor divisions by positive constants,
    products with constants, sums). The month count ``12 * year + month - 1`` is monotone in
    the day; the years of the March-based 400-year eras never overflow int64 here."""
    def c(v: int) -> int:
        return p.const(v)

    def div(a: int, k: int) -> int:
        return p.op("floordiv", a, c(k))

    def minus(a: int, b_: int) -> int:
        return p.op("add", a, p.op("mul", b_, c(-1)))

    z = p.op("add", p.op("toint", days), c(719468))
    era = div(z, 146097)
    doe = minus(z, p.op("mul", era, c(146097)))
    yoe = div(p.op("add", minus(doe, div(doe, 1460)), minus(div(doe, 36524), div(doe, 146096))),
              365)
    doy = minus(doe, minus(p.op("add", p.op("mul", yoe, c(365)), div(yoe, 4)), div(yoe, 100)))
    mp = div(p.op("add", p.op("mul", doy, c(5)), c(2)), 153)  # 0 is March
    day = p.op("add", minus(doy, div(p.op("add", p.op("mul", mp, c(153)), c(2)), 5)), c(1))
    year0 = p.op("add", yoe, p.op("mul", era, c(400)))  # the March-based year
    months = p.op("add", p.op("add", p.op("mul", year0, c(12)), mp), c(2))
    return months, day


def calendar_facts(r, e: b.BCalendar):
    """Facts of ``month(d)`` / ``day(d)``: monotone only within a year / a month, so the
    month (day) of min and max bound it when both fall in one year (month); else the bounds
    are unknown. Exact where the day bound is (that day occurs, and so its month)."""
    from .rewrite import Facts

    p, f = r.p, r.facts(e.col)
    m_lo, d_lo = _civil_steps(p, f.lo)
    m_hi, d_hi = _civil_steps(p, f.hi)
    known = p.and_(f.lo_ok, f.hi_ok)
    if e.field == "month":
        same = p.and_(known, p.eq(p.op("floordiv", m_lo, p.const(12)),
                                  p.op("floordiv", m_hi, p.const(12))))

        def month(m: int) -> int:
            return p.op("add", p.op("add", m, p.op("mul", p.op("floordiv", m, p.const(12)),
                                                      p.const(-12))), p.const(1))

        lo, hi = month(m_lo), month(m_hi)
    else:
        same = p.and_(known, p.eq(m_lo, m_hi))
        lo, hi = d_lo, d_hi
    shown = e.label()
    period = "year" if e.field == "month" else "month"
    r.names.setdefault(same, f"{e.col.label()} bounds in one {period}")
    r.names.setdefault(lo, f"{shown}.min")
    r.names.setdefault(hi, f"{shown}.max")
    return Facts(f.hn, f.nulls, lo, same, hi, same, p.and_(same, f.lo_exact),
                 p.and_(same, f.hi_exact), p.const(False), p.const(True))


# Spark's unit names: (months per period) for calendar units, (seconds, offset in days) else.
_CALENDAR = {"year": 12, "yyyy": 12, "yy": 12, "quarter": 3, "month": 1, "mm": 1, "mon": 1}
_FIXED = {"week": (7 * 86_400, 4), "day": (86_400, 0), "dd": (86_400, 0), "hour": (3600, 0),
          "minute": (60, 0), "second": (1, 0), "millisecond": (Fraction(1, 10**3), 0),
          "microsecond": (Fraction(1, 10**6), 0)}
_TRUNC_UNITS = {"year", "yyyy", "yy", "quarter", "month", "mm", "mon", "week"}


def _period(unit: str, t: pa.DataType) -> tuple:
    """(start, next_start) of the unit's periods in the domain of ``t``: the period start at or
    below a value, and the first start above it."""
    k = _per_day(t)
    if unit in _CALENDAR:
        months = _CALENDAR[unit]

        def start(v: int) -> int:
            y, m, _ = civil_from_days(v // k)
            return days_from_civil(y, m - (m - 1) % months, 1) * k

        def next_start(v: int) -> int:
            y, m, _ = civil_from_days(v // k)
            m0 = m - (m - 1) % months + months - 1  # 0-based month index of the next start
            return days_from_civil(y + m0 // 12, m0 % 12 + 1, 1) * k

        return start, next_start
    seconds, offset_days = _FIXED[unit]
    # Ticks per period; a unit finer than the column's tick (milliseconds of a column in
    # seconds) leaves every value as it is: one tick per period.
    step = max(1, int(Fraction(seconds) * k / 86_400))
    off = offset_days * k

    def start_fixed(v: int) -> int:
        return (v - off) // step * step + off

    return start_fixed, lambda v: start_fixed(v) + step


def truncated(name: str, unit: object, x: B.ColOp) -> F.Monotone | None:
    """``date_trunc(unit, x)`` (TIMESTAMP) or ``trunc(x, unit)`` (DATE): the period start."""
    col = _temporal(x)
    if col is None or not isinstance(unit, B.LitOp) or not isinstance(unit.value, str):
        return None
    u = unit.value.lower()
    if name == "trunc":
        if u not in _TRUNC_UNITS:
            return None  # Spark gives NULL; left unknown
        if pa.types.is_timestamp(col.type):
            col = B.cast_column(col, pa.date32()) if not col.convert else None
            if col is None:
                return None
    elif u not in _CALENDAR and u not in _FIXED:
        return None
    start, next_start = _period(u, col.type)  # a date under a sub-day unit: itself

    def ge(m: int) -> object:
        return F._at_least(col, m if start(m) == m else next_start(m))

    def gt(m: int) -> object:
        return F._at_least(col, next_start(m))

    label = (f"date_trunc('{u}', {x.col.label()})" if name == "date_trunc" else
             f"trunc({x.col.label()}, '{u}')")
    return F.Monotone(label, B.ColOp(col), col.type, ge, gt,
                    utc=pa.types.is_timestamp(x.col.stats_type))
