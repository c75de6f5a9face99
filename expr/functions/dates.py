"""Calendar functions of dates and timestamps (``prunekit.expr.calendar`` has the arithmetic).

``year``, ``date_trunc`` and ``trunc`` are monotone over the whole domain: compared with a
literal they become a range of the column (``applied.Monotone``). ``month`` and ``day`` are
monotone only within a year (a month): their bounds are the month (day) of min and max when
both fall in one, computed in the program from the day counts (``calendar.month_or_day_bounds``),
else unknown. Timestamps are read in UTC (``functions`` says why).

>>> import pyarrow as pa
>>> from prunekit.expr.bind import bind
>>> from prunekit.expr.sql import parse
>>> bind(parse("year(d) = 2024"), pa.schema([("d", pa.date32())]))
Rewritten(arg=BAnd(args=(Bound(col=d, op='ge', value=19723), BNot(arg=Bound(col=d, op='ge', \
value=20089)))), text='year(d) = 2024')
"""

from __future__ import annotations

import pyarrow as pa

from prunekit.expr import bound as b
from prunekit.expr.applied import Monotone, at_least, int_valued
from prunekit.expr.calendar import (
    CALENDAR_UNITS,
    FIXED_UNITS,
    TRUNC_UNITS,
    days_from_civil,
    per_day,
    period,
)
from prunekit.expr.operand_rules import cast_column
from prunekit.expr.operands import ColOp, LitOp

from .registry import Rule, register


def _temporal(x: object) -> b.BColumn | None:
    if not isinstance(x, ColOp) or x.negated or not isinstance(x.col, b.BColumn) or \
            x.col.domain != "int" or per_day(x.col.type) is None:
        return None
    return x.col


def year(x: ColOp) -> Monotone | None:
    col = _temporal(x)
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


def _year(kids: tuple) -> object | None:
    return year(kids[0]) if len(kids) == 1 and isinstance(kids[0], ColOp) else None


def _field(field: str):
    """``month(d)``, ``day(d)``: the column as a day count, its field read in the program."""
    def bind(kids: tuple) -> object | None:
        if len(kids) != 1 or not isinstance(kids[0], ColOp):
            return None
        d = days(kids[0])
        return None if d is None else ColOp(b.BCalendar(d, field))

    return bind


def _date_trunc(kids: tuple) -> object | None:
    ok = len(kids) == 2 and isinstance(kids[1], ColOp)
    return truncated("date_trunc", kids[0], kids[1]) if ok else None


def _trunc(kids: tuple) -> object | None:
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
)
