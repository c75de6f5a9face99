"""The moment of a query: ``current_date()``, ``current_timestamp()`` (``now()``) and
``localtimestamp()`` as literals of one instant per predicate, as Spark evaluates them once
per query.

``now`` is that instant (an aware datetime, or a naive one read as UTC); ``time_zone`` is the
session time zone Spark reads ``current_date()`` and ``localtimestamp()`` in (an IANA name,
default UTC). The pruning answer holds for a query run at that instant: a predicate kept and
reused later still means the moment it was built at.

>>> import datetime as dt
>>> from prunekit.expr.syntax.sql import parse
>>> at = dt.datetime(2024, 3, 1, 23, 30, tzinfo=dt.timezone.utc)
>>> fix_moments(parse("d >= date_sub(current_date(), 7)"), at, "UTC").sql()
"d >= date_sub(DATE '2024-03-01', 7)"
>>> fix_moments(parse("d = current_date()"), at, "Asia/Tokyo").sql()
"d = DATE '2024-03-02'"
"""

from __future__ import annotations

import datetime as dt
import re
import zoneinfo

import pyarrow as pa

from prunekit.expr.syntax import nodes as n

MOMENTS = ("current_date", "current_timestamp", "localtimestamp")


def uses_moment(tree: n.Node) -> bool:
    """Whether the tree reads the moment of the query.

    >>> from prunekit.expr.syntax.sql import parse
    >>> uses_moment(parse("ts > now() - INTERVAL 1 DAY")), uses_moment(parse("x > 1"))
    (True, False)
    """
    return any(isinstance(x, n.Func) and x.name in MOMENTS and not x.args for x in tree.walk())


def zone(time_zone: str) -> dt.tzinfo:
    """The session time zone by name (an IANA region, UTC, or an offset as Spark accepts it);
    a clear error for an unknown one.

    >>> zone("+05:30"), zone("Z")
    (datetime.timezone(datetime.timedelta(seconds=19800)), datetime.timezone.utc)
    """
    if not isinstance(time_zone, str):
        raise TypeError(f"time_zone must be a time zone name, got {type(time_zone).__name__}")
    if time_zone.upper() in ("UTC", "Z", "GMT"):
        return dt.timezone.utc
    m = re.fullmatch(r"(?:UTC|GMT)?([+-])(\d{1,2})(?::?(\d{2}))?", time_zone)
    if m:
        offset = dt.timedelta(hours=int(m[2]), minutes=int(m[3] or 0))
        return dt.timezone(-offset if m[1] == "-" else offset)
    try:
        return zoneinfo.ZoneInfo(time_zone)
    except (zoneinfo.ZoneInfoNotFoundError, ValueError):
        raise ValueError(f"unknown time zone {time_zone!r} (an IANA name such as "
                         "'Europe/Oslo', or 'UTC')") from None


def instant(now: dt.datetime | None) -> dt.datetime:
    """``now`` as an aware UTC datetime; the current instant when None."""
    if now is None:
        return dt.datetime.now(dt.timezone.utc)
    if not isinstance(now, dt.datetime):
        raise TypeError(f"now must be a datetime, got {type(now).__name__}")
    if now.tzinfo is None:
        now = now.replace(tzinfo=dt.timezone.utc)
    return now.astimezone(dt.timezone.utc)


def fix_moments(tree: n.Node, now: dt.datetime | None, time_zone: str = "UTC") -> n.Node:
    """The tree with each moment function replaced by its literal at ``now``."""
    if not uses_moment(tree):
        return tree
    at, tz = instant(now), zone(time_zone)
    local = at.astimezone(tz)
    values = {"current_date": n.Literal(local.date(), pa.date32()),
              # In the session zone's offset, which it renders with: Spark, given the text,
              # reads the same instant in any session.
              "current_timestamp": n.Literal(at.astimezone(tz), pa.timestamp("us", tz="UTC")),
              "localtimestamp": n.Literal(local.replace(tzinfo=None), pa.timestamp("us"))}

    def one(x: n.Node) -> n.Node:
        if isinstance(x, n.Func) and x.name in MOMENTS and not x.args:
            return values[x.name]
        return x

    return n.transform(tree, one)
