"""Calendar functions of dates and timestamps (``prunekit.expr.calendar`` has the arithmetic).

``year``, ``date_trunc`` and ``trunc`` are monotone over the whole domain: compared with a
literal they become a range of the column (``applied.Monotone``). ``month`` and ``day`` are
monotone only within a year (a month), ``hour``, ``minute`` and ``second`` within a day (an
hour, a minute): their bounds are the field of min and max when both fall in one period,
computed in the program (``calendar.month_or_day_bounds``), else unknown.

A TIMESTAMP (an instant) is read in the session time zone (``spark_types.session``), as
Spark reads it; a TIMESTAMP_NTZ is a wall time already. In UTC the rules above apply to the
instant itself. In another zone:

- ``year(ts)``, ``CAST(ts AS DATE)`` (``to_date``), ``trunc(ts, u)`` and the date units of
  ``date_trunc`` (year, quarter, month, week) are non-decreasing functions of the *wall time*,
  which is not monotone in the instant: each threshold becomes "wall time >= L"
  (``wall_clock.wall_at_least``), a union of a few intervals of instants, exact across DST.
  ``date_trunc`` to a date unit is the start of the truncated day (``zones.start_of_day``).
- ``date_trunc`` to ``day``, ``hour`` or ``minute`` truncates the wall time and keeps the
  instant's offset where it can (java.time's ``truncatedTo``). Within three days of the
  literal: with one offset, the threshold is that offset's; where every offset and every
  change of offset is a whole number of units (hours, in New York), the result is the UTC
  truncation itself; otherwise (a day in a DST zone at its change, an hour where a
  half-hour zone changes) unknown. Seconds and finer never depend on the zone.
- ``month``, ``day``, ``hour``, ``minute``, ``second`` of a TIMESTAMP: in a fixed-offset zone
  the field of the shifted ticks (``t + offset``); in a zone whose offset changes, unknown.
  Widening by the zone's range of offsets would be sound too, but that range (over all of
  history: local mean time, wartime double summer time) is not exposed by ``zoneinfo``, and
  within-one-day bounds widened by hours rarely hold.

>>> import pyarrow as pa
>>> from prunekit.expr.binding.bind import bind
>>> from prunekit.expr.syntax.sql import parse
>>> bind(parse("year(d) = 2024"), pa.schema([("d", pa.date32())]))
BRewritten(arg=BAnd(args=(BCompare(col=d, op='ge', value=19723), BNot(arg=BCompare(col=d, op='ge', \
value=20089)))), text='year(d) = 2024')
"""

from __future__ import annotations

from fractions import Fraction

import pyarrow as pa

from prunekit.expr.binding import bound as b
from prunekit.expr.binding.applied import Monotone, at_least, int_valued
from prunekit.expr.binding.functions.registry import Rule, register
from prunekit.expr.binding.operand_rules import cast_column
from prunekit.expr.binding.operands import ColOp, LitOp
from prunekit.expr.binding.wall_clock import ticks_at_or_after, wall_at_least
from prunekit.expr.calendar import (
    CALENDAR_UNITS,
    FIXED_UNITS,
    PER_SECOND,
    TRUNC_UNITS,
    days_from_civil,
    per_day,
    period,
)
from prunekit.expr.spark_types import zones
from prunekit.expr.spark_types.session import is_utc, session_zone


def _temporal(x: object) -> b.BColumn | None:
    if not isinstance(x, ColOp) or x.negated or not isinstance(x.col, b.BColumn) or \
            x.col.domain != "int" or per_day(x.col.type) is None:
        return None
    return x.col


def _zoned(col: b.BColumn | None) -> bool:
    """An instant column read in a session zone other than UTC (the zone's own rules)."""
    return col is not None and pa.types.is_timestamp(col.type) and col.type.tz is not None \
        and not col.convert and not is_utc(session_zone())


def _guarded(build):
    """``build(m)``, unknown where the zone cannot be read (beyond Python's years)."""
    def ge(m: int) -> object:
        try:
            return build(m)
        except (zones.OutOfRange, OverflowError, ValueError):
            return b.BOpaque(f"{m} beyond the years prunekit reads in the session time zone")

    return ge


class LocalDate(Monotone):
    """``CAST(ts AS DATE)`` read in the session zone: year, month, day and trunc of it read the
    wall time of ``ts`` (``_unwrapped``)."""


def _unwrapped(x: object) -> object:
    """The instant column under ``CAST(ts AS DATE)`` in a zone (Spark's ``year(ts)`` is
    ``year(CAST(ts AS DATE))``), else ``x``."""
    return x.arg if isinstance(x, LocalDate) else x


def local_date(col: b.BColumn) -> Monotone | None:
    """``CAST(ts AS DATE)`` (``to_date``) of an instant column in a session zone other than
    UTC: the DATE of its wall time, ``>= d`` where the wall time is at or after d's midnight;
    None where the UTC rule (``operand_rules.cast_column``) applies.

    >>> from prunekit.expr.spark_types.session import zone_of_session
    >>> import datetime as dt
    >>> ts = b.BColumn("ts", pa.timestamp("s", "UTC"), pa.timestamp("s", "UTC"), "int")
    >>> with zone_of_session(dt.timezone(dt.timedelta(hours=-5))):
    ...     local_date(ts).ge(1)  # 1970-01-02 starts at 05:00Z
    BCompare(col=ts, op='ge', value=104400)
    >>> local_date(ts) is None  # in UTC: the floor of the day
    True
    """
    if not _zoned(col):
        return None
    ge, gt = int_valued(_guarded(lambda d: wall_at_least(col, d * zones.DAY)))
    return LocalDate(f"CAST({col.label()} AS DATE)", ColOp(col), pa.date32(), ge, gt, utc=True)


def local_wall(col: b.BColumn, to: pa.DataType) -> Monotone | None:
    """``CAST(ts AS TIMESTAMP_NTZ)`` of an instant column: its wall time in the session zone,
    ``>= w`` exactly where ``wall_at_least`` says (two ranges where ``w`` is in a repeated
    hour); None for anything else.

    >>> import zoneinfo
    >>> from prunekit.expr.spark_types.session import zone_of_session
    >>> ts = b.BColumn("ts", pa.timestamp("s", "UTC"), pa.timestamp("s", "UTC"), "int")
    >>> with zone_of_session(zoneinfo.ZoneInfo("Asia/Kolkata")):
    ...     local_wall(ts, pa.timestamp("us")).ge(0)  # 1970-01-01 00:00 there is 18:30Z
    BCompare(col=ts, op='ge', value=-19800)
    """
    if not (pa.types.is_timestamp(col.type) and col.type.tz is not None and not col.convert
            and pa.types.is_timestamp(to) and to.tz is None and col.domain == "int"):
        return None
    if to.unit != "us":
        return None  # Spark's TIMESTAMP_NTZ is in microseconds
    ge, gt = int_valued(_guarded(lambda m: wall_at_least(col, m)))
    return Monotone(f"CAST({col.label()} AS TIMESTAMP_NTZ)", ColOp(col), to, ge, gt, utc=True)


def year(x: ColOp) -> Monotone | None:
    col = _temporal(x)
    if _zoned(col):
        ge, gt = int_valued(_guarded(lambda m: wall_at_least(
            col, days_from_civil(m, 1, 1) * zones.DAY)))
        return Monotone(f"year({col.label()})", ColOp(col), pa.int32(), ge, gt, utc=True)
    if col is not None and pa.types.is_timestamp(col.type):
        col = cast_column(col, pa.date32()) if not col.convert else None
    if col is None:
        return None
    k = per_day(col.type)
    ge, gt = int_valued(lambda m: at_least(col, days_from_civil(m, 1, 1) * k))
    shown = x.col.sql() if x.col.convert and x.col.convert[0] == "floordiv" else x.col.label()
    return Monotone(f"year({shown})", ColOp(col), pa.int32(), ge, gt,
                    utc=pa.types.is_timestamp(x.col.stats_type))


def days(x: ColOp) -> b.BColumn | None:
    """The column as a day count since 1970-01-01 (a timestamp: its UTC day), or None."""
    col = _temporal(x)
    if col is None or pa.types.is_date32(col.type):
        return col
    if col.convert:
        return None
    return b.BColumn(col.name, col.stats_type, pa.date32(), "int", ("floordiv", per_day(
        col.type)))


def truncated(name: str, unit: object, x: ColOp) -> Monotone | None:
    """``date_trunc(unit, x)`` (TIMESTAMP) or ``trunc(x, unit)`` (DATE): the period start."""
    col = _temporal(x)
    if col is None or not isinstance(unit, LitOp) or not isinstance(unit.value, str):
        return None
    u = unit.value.lower()
    if _zoned(col) and (u in TRUNC_UNITS or name == "date_trunc" and u in FIXED_UNITS):
        return _zoned_truncation(name, u, col)
    if name == "trunc":
        if u not in TRUNC_UNITS:
            return None  # Spark gives NULL; left unknown
        if pa.types.is_timestamp(col.type):
            col = cast_column(col, pa.date32()) if not col.convert else None
            if col is None:
                return None
    elif u not in CALENDAR_UNITS and u not in FIXED_UNITS:
        return None
    start, next_start = period(u, col.type)  # a date under a sub-day unit: itself

    def ge(m: int) -> object:
        return at_least(col, m if start(m) == m else next_start(m))

    def gt(m: int) -> object:
        return at_least(col, next_start(m))

    label = (f"date_trunc('{u}', {x.col.label()})" if name == "date_trunc" else
             f"trunc({x.col.label()}, '{u}')")
    return Monotone(label, ColOp(col), col.type, ge, gt,
                    utc=pa.types.is_timestamp(x.col.stats_type))


def _zoned_truncation(name: str, u: str, col: b.BColumn) -> Monotone:
    """``trunc(ts, u)`` (a DATE) or ``date_trunc(u, ts)`` (an instant) in a session zone other
    than UTC (the module docstring)."""
    tz = session_zone()
    start, next_start = period(u, pa.date32())  # date units, on day counts

    def first_day(d: int) -> int:  # the least period start at or after day d
        return d if start(d) == d else next_start(d)

    if name == "trunc":
        ge = _guarded(lambda d: wall_at_least(col, first_day(d) * zones.DAY))
        return Monotone(f"trunc({col.label()}, '{u}')", ColOp(col), pa.date32(), ge,
                        _guarded(lambda d: wall_at_least(col, next_start(d) * zones.DAY)),
                        utc=True)
    per_second = PER_SECOND[col.type.unit]

    def micros(m: int) -> Fraction:
        return Fraction(m * zones.US, per_second)

    if u in TRUNC_UNITS:
        def ge_date(m: int) -> object:
            # date_trunc is the start of the period's first day: the least period start P
            # whose day starts at or after m; at or after it exactly where the wall time is.
            at = micros(m)
            p = start(zones.local_day(tz, int(at)) - 3)
            while zones.start_of_day(tz, p) >= at:
                p = start(p - 1)
            while zones.start_of_day(tz, p) < at:
                p = next_start(p)
            return wall_at_least(col, p * zones.DAY)

        ge = _guarded(ge_date)
    else:
        seconds = Fraction(FIXED_UNITS[u][0])
        unit = seconds * zones.US

        def ge_clock(m: int) -> object:
            at = micros(m)
            if seconds <= 1:  # whole-second offsets: seconds and finer ignore the zone
                return _utc_truncation_ge(col, u, m)
            near = zones.transitions(tz, int(at) - 3 * zones.DAY, int(at) + 3 * zones.DAY)
            if not near:  # one offset o: trunc(t + o) - o >= at where t >= ceil(at + o) - o
                o = zones.offset_at(tz, int(at))
                threshold = -((-(at + o)) // unit) * unit - o
                return at_least(col, ticks_at_or_after(col, threshold))
            offsets = {zones.offset_at(tz, int(at))} | {x for t, bo, ao in near
                                                         for x in (t, bo, ao)}
            if all(x % unit == 0 for x in offsets):
                return _utc_truncation_ge(col, u, m)  # the wall clock's units are UTC's
            return b.BOpaque(f"date_trunc('{u}', {col.label()}) near a change of offset of "
                            f"session time zone {zones.zone_name(tz)} by part of a {u}")

        ge = _guarded(ge_clock)
    return Monotone(f"date_trunc('{u}', {col.label()})", ColOp(col), col.type, ge,
                    lambda m: ge(m + 1), utc=True)  # integer ticks: > m is >= m + 1


def _utc_truncation_ge(col: b.BColumn, u: str, m: int) -> object:
    """``date_trunc(u, ts) >= m`` for the truncation of the instant itself (UTC)."""
    start, next_start = period(u, col.type)
    return at_least(col, m if start(m) == m else next_start(m))


def _clock(field: str):
    """``hour(t)``, ``minute(t)``, ``second(t)`` of a TIMESTAMP or TIMESTAMP_NTZ column: the
    field of its wall time, bounded where min and max fall in one day (hour, minute)."""
    def bind(kids: tuple) -> object | None:
        if len(kids) != 1 or not isinstance(kids[0], ColOp):
            return None
        col = _temporal(kids[0])
        if col is None or not pa.types.is_timestamp(col.type) or col.convert:
            return None
        wall = _wall_ticks(col)
        return None if wall is None else ColOp(b.BCalendar(wall, field, per_day=per_day(
            col.type)))

    return bind


def _wall_ticks(col: b.BColumn) -> b.BColumn | None:
    """The column's wall time in ticks: itself in UTC (or without a zone), shifted by the
    offset of a fixed-offset zone, None in a zone whose offset changes."""
    tz = session_zone()
    if col.type.tz is None or is_utc(tz):
        return col
    if not zones.is_fixed(tz):
        return None
    shift = zones.offset_at(tz, 0) * PER_SECOND[col.type.unit] // zones.US
    return b.BColumn(col.name, col.stats_type, pa.int64(), "int",
                     ("affine", (("add", shift, -(2**63), 2**63 - 1),)))


def _year(kids: tuple) -> object | None:
    kids = tuple(map(_unwrapped, kids))
    return year(kids[0]) if len(kids) == 1 and isinstance(kids[0], ColOp) else None


def _field(field: str):
    """``month(d)``, ``day(d)``: the column as a day count, its field read in the program (an
    instant in another zone than UTC: its wall time in ticks, ``_wall_ticks``)."""
    def bind(kids: tuple) -> object | None:
        kids = tuple(map(_unwrapped, kids))
        if len(kids) != 1 or not isinstance(kids[0], ColOp):
            return None
        col = _temporal(kids[0])
        if _zoned(col):
            wall = _wall_ticks(col)
            return None if wall is None else ColOp(b.BCalendar(wall, field, per_day=per_day(
                col.type)))
        d = days(kids[0])
        return None if d is None else ColOp(b.BCalendar(d, field))

    return bind


def _date_trunc(kids: tuple) -> object | None:
    ok = len(kids) == 2 and isinstance(kids[1], ColOp)
    return truncated("date_trunc", kids[0], kids[1]) if ok else None


def _trunc(kids: tuple) -> object | None:
    kids = tuple(map(_unwrapped, kids))
    ok = len(kids) == 2 and isinstance(kids[0], ColOp)
    return truncated("trunc", kids[1], kids[0]) if ok else None


_D = (("d", pa.date32()),)
register(
    Rule("year", _year, "year(d) = 2024", _D),
    Rule("month", _field("month"), "month(d) = 3", _D),
    Rule("day", _field("day"), "day(d) = 3", _D),
    Rule("dayofmonth", _field("day"), "dayofmonth(d) = 3", _D),
    Rule("date_trunc", _date_trunc, "date_trunc('month', t) = TIMESTAMP '2024-03-01 00:00:00'",
         (("t", pa.timestamp("us", "UTC")),)),
    Rule("trunc", _trunc, "trunc(d, 'MM') = DATE '2024-03-01'", _D),
    Rule("hour", _clock("hour"), "hour(t) = 3", (("t", pa.timestamp("us", "UTC")),)),
    Rule("minute", _clock("minute"), "minute(t) = 3", (("t", pa.timestamp("us", "UTC")),)),
    Rule("second", _clock("second"), "second(t) = 3", (("t", pa.timestamp("us", "UTC")),)),
)
