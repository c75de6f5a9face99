"""Spark's ANSI intervals as literal values, and date and timestamp arithmetic on literals.

An interval literal is year-month (``INTERVAL '2' MONTH``, ``'1-6' YEAR TO MONTH``: a count
of months) or day-time (``INTERVAL '30' DAY``, ``'36' HOUR``, ``'1 2:00:00' DAY TO SECOND``: a
count of microseconds); Spark refuses to mix the two in one literal. A DATE plus a day-time
interval of whole DAY fields stays a DATE (``date_add``); a DATE plus a year-month interval is
``add_months`` (the day clamped to the end of the month, no end-of-month stickiness: Spark 3
and later); a TIMESTAMP plus a day-time interval adds microseconds (no time zone involved),
plus a year-month interval adds months to its calendar date (read in UTC, as prunekit reads
timestamps). All arithmetic here is on integers over the proleptic Gregorian calendar; a
result Python cannot hold as a date (before year 1, after 9999) is None (not folded).

>>> iv = interval("30", "days")
>>> iv, iv.sql()
(Interval(months=0, micros=2592000000000, kind='day'), "INTERVAL '30' DAY")
>>> shift(dt.date(2024, 1, 31), interval("1", "month"))
datetime.date(2024, 2, 29)
"""

from __future__ import annotations

import datetime as dt
import decimal
import re
from dataclasses import dataclass

from prunekit.expr.calendar import civil_from_days, days_from_civil

MICROS_PER_DAY = 86_400 * 10**6
_DAY_TIME = {"week": 7 * MICROS_PER_DAY, "day": MICROS_PER_DAY, "hour": 3_600 * 10**6,
             "minute": 60 * 10**6, "second": 10**6, "millisecond": 1_000, "microsecond": 1}
_YEAR_MONTH = {"year": 12, "month": 1}
_EPOCH = dt.date(1970, 1, 1)


@dataclass(frozen=True)
class Interval:
    """A year-month interval (``months``) or a day-time one (``micros``); ``kind`` is
    ``"year-month"``, ``"day"`` (day-time in whole DAY or WEEK fields: a DATE plus it is a
    DATE) or ``"day-time"``."""

    months: int = 0
    micros: int = 0
    kind: str = "year-month"

    @property
    def days_only(self) -> bool:
        return self.kind == "day"

    def negated(self) -> Interval:
        return Interval(-self.months, -self.micros, self.kind)

    def plus(self, other: Interval) -> Interval | None:
        """The sum of two intervals of one family (Spark refuses to mix them: None).

        >>> interval("1", "year").plus(interval("2", "months")).months
        14
        >>> interval("1", "year").plus(interval("2", "days")) is None
        True
        """
        if (self.kind == "year-month") != (other.kind == "year-month"):
            return None
        kind = self.kind if self.kind == other.kind else "day-time"
        return Interval(self.months + other.months, self.micros + other.micros, kind)

    def sql(self) -> str:
        """Spark SQL for the interval (one field, so that it reads back the same).

        >>> interval("-3", "months").sql(), interval("90", "minutes").sql()
        ("INTERVAL '-3' MONTH", "INTERVAL '5400' SECOND")
        """
        if self.kind == "year-month":
            return f"INTERVAL '{self.months}' MONTH"
        if self.days_only:
            return f"INTERVAL '{self.micros // MICROS_PER_DAY}' DAY"
        seconds = decimal.Decimal(self.micros).scaleb(-6).normalize()
        return f"INTERVAL '{format(seconds, 'f')}' SECOND"


def interval(quantity: str, unit: str, to_unit: str | None = None) -> Interval | None:
    """An interval literal from its text and unit(s) as sqlglot reads them; None when not
    one prunekit reads (an unknown unit, a malformed quantity).

    >>> interval("1-6", "year", "month"), interval("1 2:00:00", "day", "second").micros
    (Interval(months=18, micros=0, kind='year-month'), 93600000000)
    >>> interval("1.5", "seconds").micros, interval("x", "day")
    (1500000, None)
    """
    unit = _singular(unit)
    text = quantity.strip()
    if to_unit is not None:
        return _span(text, unit, _singular(to_unit))
    if unit in _YEAR_MONTH and re.fullmatch(r"[+-]?\d+", text):
        return Interval(months=int(text) * _YEAR_MONTH[unit])
    if unit in _DAY_TIME:
        if unit in ("week", "day", "hour", "minute") and not re.fullmatch(r"[+-]?\d+", text):
            return None
        if not re.fullmatch(r"[+-]?\d+(\.\d*)?", text):
            return None
        micros = decimal.Decimal(text) * _DAY_TIME[unit]
        if micros != micros.to_integral_value():
            return None  # finer than a microsecond: Spark truncates; not folded
        return Interval(micros=int(micros), kind="day" if unit in ("week", "day") else "day-time")
    return None


def _singular(unit: str) -> str:
    unit = unit.lower()
    return unit[:-1] if unit.endswith("s") else unit


def _span(text: str, start: str, end: str) -> Interval | None:
    sign = -1 if text.startswith("-") else 1
    body = text.lstrip("+-")
    if (start, end) == ("year", "month"):
        m = re.fullmatch(r"(\d+)-(\d+)", body)
        return Interval(months=sign * (int(m[1]) * 12 + int(m[2]))) if m else None
    if start == "day" and end in ("hour", "minute", "second"):
        m = re.fullmatch(r"(\d+) (\d+)(?::(\d+))?(?::(\d+)(?:\.(\d{1,6}))?)?", body)
        if not m:
            return None
        d, h, mi, s, frac = (int(m[1]), int(m[2]), int(m[3] or 0), int(m[4] or 0),
                             int((m[5] or "0").ljust(6, "0")))
        micros = ((d * 24 + h) * 60 + mi) * 60 * 10**6 + s * 10**6 + frac
        return Interval(micros=sign * micros, kind="day-time")
    return None


def add_months_days(days: int, months: int) -> int:
    """``add_months`` on a day count: the same day of the month ``months`` later, clamped to
    that month's last day.

    >>> [civil_from_days(add_months_days(days_from_civil(2024, 1, d), 1)) for d in (28, 31)]
    [(2024, 2, 28), (2024, 2, 29)]
    """
    y, m, d = civil_from_days(days)
    total = y * 12 + (m - 1) + months
    y2, m2 = total // 12, total % 12 + 1
    last = days_from_civil(y2 + (m2 == 12), m2 % 12 + 1, 1) - days_from_civil(y2, m2, 1)
    return days_from_civil(y2, m2, min(d, last))


def shift(value: object, iv: Interval) -> object | None:
    """A DATE or TIMESTAMP literal plus an interval, as Spark computes it; None when Spark
    gives another type (a DATE plus hours is a TIMESTAMP: not folded) or the result is not a
    Python date.

    >>> shift(dt.date(2024, 3, 1), interval("-1", "day"))
    datetime.date(2024, 2, 29)
    >>> shift(dt.datetime(2024, 3, 31, 12, tzinfo=dt.timezone.utc), interval("1", "month"))
    datetime.datetime(2024, 4, 30, 12, 0, tzinfo=datetime.timezone.utc)
    """
    try:
        if isinstance(value, dt.datetime) and value.tzinfo is not None:
            return _shift_instant(value, iv)
        if isinstance(value, dt.datetime):  # TIMESTAMP_NTZ: the wall clock itself
            if iv.kind == "year-month":
                days = add_months_days((value.date() - _EPOCH).days, iv.months)
                return value.replace(*civil_from_days(days))
            return value + dt.timedelta(microseconds=iv.micros)
        if isinstance(value, dt.date):
            if iv.kind == "year-month":
                return _EPOCH + dt.timedelta(days=add_months_days((value - _EPOCH).days,
                                                                  iv.months))
            if iv.days_only:
                return value + dt.timedelta(days=iv.micros // MICROS_PER_DAY)
    except (OverflowError, ValueError):
        return None
    return None


def _shift_instant(value: dt.datetime, iv: Interval) -> dt.datetime:
    """A TIMESTAMP plus an interval as Spark computes it in the session zone: microseconds on
    the instant; months on its wall time, keeping its offset where still valid
    (``ZonedDateTime.plusMonths``). In UTC the result keeps ``timezone.utc``; else it is a UTC
    instant that renders with its offset (``zones.WRITTEN_UTC``)."""
    from prunekit.expr.spark_types import zones
    from prunekit.expr.spark_types.session import is_utc, session_zone

    tz, instant = session_zone(), zones.instant_of(value)
    if iv.kind == "year-month":
        wall = zones.local_of(tz, instant)
        days, rest = divmod(wall, MICROS_PER_DAY)
        moved = add_months_days(days, iv.months) * MICROS_PER_DAY + rest
        instant = zones.to_instant(tz, moved, prefer=wall - instant)
    else:
        instant += iv.micros
    utc = value.tzinfo is dt.timezone.utc and is_utc(tz)
    start = dt.datetime(1970, 1, 1, tzinfo=dt.timezone.utc if utc else zones.WRITTEN_UTC)
    return start + dt.timedelta(microseconds=instant)


def add_days(value: dt.date, days: int) -> dt.date | None:
    """``date_add`` of a DATE literal.

    >>> add_days(dt.date(2024, 2, 28), 2), add_days(dt.date(9999, 12, 31), 1)
    (datetime.date(2024, 3, 1), None)
    """
    try:
        return value + dt.timedelta(days=days)
    except (OverflowError, ValueError):
        return None
