"""Predicates on a TIMESTAMP column about its local wall time in the session time zone: the
reusable piece of every rule whose function reads the calendar of an instant (``year(ts)``,
``CAST(ts AS DATE)``, ``date_trunc``...).

``wall_at_least(col, wall)`` is "the row's wall time in the session zone is at or after
``wall``" as a bound predicate on the instant column itself: the instants of
``zones.local_at_least``, each interval ``[a, b)`` as ``col >= a AND NOT col >= b``, OR-ed.
Exact in three-valued logic (each leaf is NULL exactly where the column is), so a rule may
return it from ``Monotone``'s ``ge``: ``<`` is built as its negation. Any non-decreasing
function ``g`` of the wall time compared with a literal reduces to it: ``g(wall(t)) >= m``
exactly when ``wall(t) >= L`` for the least wall time ``L`` with ``g(L) >= m``.

>>> import datetime as dt, zoneinfo
>>> import pyarrow as pa
>>> from prunekit.expr.spark_types.session import zone_of_session
>>> ts = b.BColumn("ts", pa.timestamp("us", "UTC"), pa.timestamp("us", "UTC"), "int")
>>> with zone_of_session(zoneinfo.ZoneInfo("America/New_York")):  # the repeated 01:00
...     wall_at_least(ts, zones.wall_of(dt.datetime(2024, 11, 3, 1, 30)))
BOr(args=(BAnd(args=(BCompare(col=ts, op='ge', value=1730611800000000), BNot(arg=BCompare(col=ts, \
op='ge', value=1730613600000000)))), BCompare(col=ts, op='ge', value=1730615400000000)))
"""

from __future__ import annotations

from prunekit.expr.binding import bound as b
from prunekit.expr.binding.applied import at_least
from prunekit.expr.calendar import PER_SECOND
from prunekit.expr.spark_types import zones
from prunekit.expr.spark_types.session import session_zone


def ticks_at_or_after(col: b.BColumn, micros) -> int:
    """The least value of the column's unit at or after an instant in microseconds (an int or
    a Fraction).

    >>> import pyarrow as pa
    >>> s = b.BColumn("s", pa.timestamp("s", "UTC"), pa.timestamp("s", "UTC"), "int")
    >>> ticks_at_or_after(s, 1_500_000), ticks_at_or_after(s, -1_500_000)
    (2, -1)
    """
    per_second = PER_SECOND[col.type.unit]
    return -((-micros * per_second) // zones.US)


def wall_at_least(col: b.BColumn, wall: int) -> object:
    """Rows of the TIMESTAMP column ``col`` whose wall time in the session zone is at or after
    ``wall`` (microseconds, ``zones``); unknown (``BOpaque``) where the zone cannot be read.

    >>> import pyarrow as pa
    >>> ts = b.BColumn("ts", pa.timestamp("s", "UTC"), pa.timestamp("s", "UTC"), "int")
    >>> wall_at_least(ts, 3_600_000_000)  # in UTC (no zone bound): the instant itself
    BCompare(col=ts, op='ge', value=3600)
    """
    try:
        pieces = zones.local_at_least(session_zone(), wall)
    except (zones.OutOfRange, OverflowError):
        return b.BOpaque(f"{col.sql()} read in session time zone "
                        f"{zones.zone_name(session_zone())} near {zones.shown(wall)}: beyond "
                        "the years Python's time zones read")
    terms = []
    for start, end in pieces:
        parts = []
        if start is not None:
            parts.append(at_least(col, ticks_at_or_after(col, start)))
        if end is not None:
            parts.append(b.BNot(at_least(col, ticks_at_or_after(col, end))))
        terms.append(b.BNonNull(col, True) if not parts else parts[0] if len(parts) == 1 else
                     b.BAnd(tuple(parts)))
    if not terms:
        return b.BNonNull(col, False)
    return terms[0] if len(terms) == 1 else b.BOr(tuple(terms))
