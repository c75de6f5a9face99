"""The Spark session setting a binding reads: its time zone.

Spark reads TIMESTAMP literals without an offset, casts between TIMESTAMP and DATE or
TIMESTAMP_NTZ, and calendar functions of a TIMESTAMP (``year``, ``hour``, ``date_trunc``...) in
the session time zone (``spark.sql.session.timeZone``). ``bind`` takes the zone and holds it here
for the rules it calls, however deep (a context variable: each thread and each binding sees its
own). A leaf: no prunekit imports.

>>> import datetime as dt
>>> session_zone()
datetime.timezone.utc
>>> with zone_of_session(dt.timezone(dt.timedelta(hours=2))):
...     session_zone()
datetime.timezone(datetime.timedelta(seconds=7200))
>>> is_utc(session_zone())
True
"""

from __future__ import annotations

import contextlib
import contextvars
import datetime as dt
from collections.abc import Iterator

_ZONE: contextvars.ContextVar[dt.tzinfo] = contextvars.ContextVar("session_zone",
                                                                 default=dt.timezone.utc)


def session_zone() -> dt.tzinfo:
    """The time zone of the binding under way (UTC outside one)."""
    return _ZONE.get()


@contextlib.contextmanager
def zone_of_session(tz: dt.tzinfo) -> Iterator[dt.tzinfo]:
    """Bind in ``tz``: every rule called inside reads it from ``session_zone()``."""
    token = _ZONE.set(tz)
    try:
        yield tz
    finally:
        _ZONE.reset(token)


def is_utc(tz: dt.tzinfo) -> bool:
    """Whether ``tz`` is UTC at every instant (UTC, ``+00:00``, ``Etc/UTC``)."""
    if tz is dt.timezone.utc:
        return True
    if isinstance(tz, dt.timezone):
        return tz.utcoffset(None) == dt.timedelta(0)
    return getattr(tz, "key", None) in ("UTC", "Etc/UTC", "Etc/UCT", "Etc/GMT", "GMT", "UCT",
                                        "Etc/Universal", "Universal", "Etc/Zulu", "Zulu")
