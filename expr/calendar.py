"""The proleptic Gregorian calendar (Spark's, java.time) as integer arithmetic on day counts
and timestamp ticks: dates to and from (year, month, day), the periods of Spark's truncation
units, and the same conversion as program steps (for the bounds of ``month(d)`` and
``day(d)``). A leaf module: the function rules and the rewriter both use it.

>>> civil_from_days(days_from_civil(2024, 2, 29) + 1)
(2024, 3, 1)
>>> start, next_start = period("month", pa.date32())
>>> [civil_from_days(v) for v in (start(days_from_civil(2024, 2, 29)), next_start(0))]
[(2024, 2, 1), (1970, 2, 1)]
"""

from __future__ import annotations

from fractions import Fraction

import pyarrow as pa


def days_from_civil(y, m, d):
    """Days since 1970-01-01 of a date, for any year (H. Hinnant's algorithm); of integers,
    or elementwise of NumPy integer arrays.

    >>> days_from_civil(1970, 1, 1), days_from_civil(2000, 3, 1), days_from_civil(-1, 12, 31)
    (0, 11017, -719529)
    >>> import numpy as np
    >>> days_from_civil(np.array([2000, 1]), np.array([3, 1]), np.array([1, 1])).tolist()
    [11017, -719162]
    """
    y = y - (m <= 2)
    era = y // 400
    yoe = y - era * 400
    doy = (153 * ((m + 9) % 12) + 2) // 5 + d - 1
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



PER_SECOND = {"s": 1, "ms": 10**3, "us": 10**6, "ns": 10**9}


def per_day(t: pa.DataType) -> int | None:
    """Domain ticks per day of a date or timestamp type.

    >>> per_day(pa.date32()), per_day(pa.timestamp("ms")), per_day(pa.int64())
    (1, 86400000, None)
    """
    if pa.types.is_date32(t):
        return 1
    if pa.types.is_date64(t):
        return 86_400_000
    if pa.types.is_timestamp(t):
        return 86_400 * PER_SECOND[t.unit]
    return None


def civil_steps(p, days: int) -> tuple[int, int]:
    """Program steps for (months since year 0, day of month) of a day count, with the ops
    every backend has (Hinnant's civil_from_days: floor divisions by positive constants,
    products with constants, sums). The month count ``12 * year + month - 1`` is monotone in
    the day; the years of the March-based 400-year eras never overflow int64 here.

    >>> from prunekit.expr.program.ir import ProgramBuilder
    >>> p = ProgramBuilder()
    >>> steps = civil_steps(p, p.load(p.slot("d", "min")))
    >>> len(p.steps), civil_steps(p, p.load(p.slot("d", "min"))) == steps  # built once
    (54, True)
    """
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


# The periods within which each clock field is monotone, and the field's own length, in days.
CLOCK_FIELDS = {"hour": (1, Fraction(1, 24)), "minute": (Fraction(1, 24), Fraction(1, 1440)),
                "second": (Fraction(1, 1440), Fraction(1, 86_400))}
PERIOD_OF = {"month": "year", "day": "month", "hour": "day", "minute": "hour",
             "second": "minute"}


def clock_bounds(p, lo: int, hi: int, lo_ok: int, hi_ok: int, field: str,
                 per_day: int) -> tuple:
    """Program steps for the bounds of ``hour(t)``, ``minute(t)`` or ``second(t)`` (``field``)
    from the bounds of a wall time in ticks (``per_day`` a day): ``(lo, hi, same)``, where
    ``same`` says both are known and fall in one day (hour, minute), the only case where the
    field of each bounds it.

    >>> from prunekit.expr.program.ir import ProgramBuilder
    >>> p = ProgramBuilder()
    >>> lo, hi, ok = p.load(p.slot("t", "min")), p.load(p.slot("t", "max")), p.const(True)
    >>> [p.steps[i].op for i in clock_bounds(p, lo, hi, ok, ok, "hour", 86_400)]
    ['floordiv', 'floordiv', 'eq']
    """
    period, unit = (int(f * per_day) for f in CLOCK_FIELDS[field])

    def of(x: int) -> int:
        start = p.op("mul", p.op("floordiv", x, p.const(period)), p.const(-period))
        return p.op("floordiv", p.op("add", x, start), p.const(unit))

    same = p.and_(lo_ok, hi_ok, p.eq(p.op("floordiv", lo, p.const(period)),
                                     p.op("floordiv", hi, p.const(period))))
    return of(lo), of(hi), same


def month_or_day_bounds(p, lo_days: int, hi_days: int, lo_ok: int, hi_ok: int,
                        field: str, per_day: int = 1) -> tuple:
    """Program steps for the bounds of ``month(d)`` (``field == "month"``) or ``day(d)`` from
    the day counts of d's bounds (known where ``lo_ok``, ``hi_ok``; ticks of a wall time when
    ``per_day`` is not 1; a clock field: ``clock_bounds``): ``(lo, hi, same)``, where
    ``same`` says both are known and fall in one year (one month), the only case where they
    bound the field (it is monotone only within a year, a month).

    >>> from prunekit.expr.program.ir import ProgramBuilder
    >>> p = ProgramBuilder()
    >>> lo, hi, ok = p.load(p.slot("d", "min")), p.load(p.slot("d", "max")), p.const(True)
    >>> [p.steps[i].op for i in month_or_day_bounds(p, lo, hi, ok, ok, "day")]
    ['add', 'add', 'eq']
    """
    if field in CLOCK_FIELDS:
        return clock_bounds(p, lo_days, hi_days, lo_ok, hi_ok, field, per_day)
    if per_day != 1:  # a wall time in ticks: its day count
        k = p.const(per_day)
        lo_days, hi_days = p.op("floordiv", lo_days, k), p.op("floordiv", hi_days, k)
    m_lo, d_lo = civil_steps(p, lo_days)
    m_hi, d_hi = civil_steps(p, hi_days)
    known = p.and_(lo_ok, hi_ok)
    if field == "month":
        same = p.and_(known, p.eq(p.op("floordiv", m_lo, p.const(12)),
                                  p.op("floordiv", m_hi, p.const(12))))

        def month(m: int) -> int:
            return p.op("add", p.op("add", m, p.op("mul", p.op("floordiv", m, p.const(12)),
                                                      p.const(-12))), p.const(1))

        return month(m_lo), month(m_hi), same
    return d_lo, d_hi, p.and_(known, p.eq(m_lo, m_hi))


# Spark's unit names: (months per period) for calendar units, (seconds, offset in days) else.
CALENDAR_UNITS = {"year": 12, "yyyy": 12, "yy": 12, "quarter": 3, "month": 1, "mm": 1, "mon": 1}
FIXED_UNITS = {"week": (7 * 86_400, 4), "day": (86_400, 0), "dd": (86_400, 0), "hour": (3600, 0),
          "minute": (60, 0), "second": (1, 0), "millisecond": (Fraction(1, 10**3), 0),
          "microsecond": (Fraction(1, 10**6), 0)}
TRUNC_UNITS = {"year", "yyyy", "yy", "quarter", "month", "mm", "mon", "week"}


def period(unit: str, t: pa.DataType) -> tuple:
    """(start, next_start) of the unit's periods in the domain of ``t``: the period start at or
    below a value, and the first start above it.

    >>> start, next_start = period("week", pa.date32())  # weeks start on Monday
    >>> [civil_from_days(f(days_from_civil(2024, 3, 7))) for f in (start, next_start)]
    [(2024, 3, 4), (2024, 3, 11)]
    """
    k = per_day(t)
    if unit in CALENDAR_UNITS:
        months = CALENDAR_UNITS[unit]

        def start(v: int) -> int:
            y, m, _ = civil_from_days(v // k)
            return days_from_civil(y, m - (m - 1) % months, 1) * k

        def next_start(v: int) -> int:
            y, m, _ = civil_from_days(v // k)
            m0 = m - (m - 1) % months + months - 1  # 0-based month index of the next start
            return days_from_civil(y + m0 // 12, m0 % 12 + 1, 1) * k

        return start, next_start
    seconds, offset_days = FIXED_UNITS[unit]
    # Ticks per period; a unit finer than the column's tick (milliseconds of a column in
    # seconds) leaves every value as it is: one tick per period.
    step = max(1, int(Fraction(seconds) * k / 86_400))
    off = offset_days * k

    def start_fixed(v: int) -> int:
        return (v - off) // step * step + off

    return start_fixed, lambda v: start_fixed(v) + step
