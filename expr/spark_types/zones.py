"""A session time zone as Spark (java.time) reads it: the offset at an instant, local wall time,
a wall time back to an instant, the start of a day, and the reusable question "which instants
have a local wall time at or after L?" (``local_at_least``), answered exactly as a few
intervals of instants.

All times are integers of microseconds since 1970-01-01: an *instant* counts UTC
microseconds, a *wall time* the microseconds of a local clock reading as if it were UTC.

Why intervals: local wall time ``t + offset(t)`` is not monotone in the instant ``t``. A
fall-back repeats an hour (and a zone that set its clocks back at midnight repeats part of a
DATE), so ``{t : wall(t) >= L}`` may be ``[a, b) u [c, inf)``, not one threshold. Within a
stretch of constant offset ``o`` it is ``t >= L - o``; so the set is found from the zone's
transitions near L. Offsets of a Python ``tzinfo`` are less than a day, so an instant more than
a day before L has a wall time below L, and one a day after has one above: only the
transitions within a day of L matter.

Transitions are found with the public ``utcoffset`` alone: the offset is sampled every
``STEP`` (6 hours) and a change is located to the second by bisection (the tz database
changes offsets at whole seconds). This is sound when no two transitions are closer than
``STEP`` (then a change between two samples is one transition, never two that cancel): the
closest in the tz database are about four days apart (Africa/Freetown, 1939;
``tests/expr/test_zones.py`` checks every zone's data; after it, each zone's yearly rule
changes twice a year at most). Fixed-offset zones need none of this. Before year 1 a zone
keeps its first offset, after 9999 its rule repeats every 400 years (``_offset_seconds``).

Gaps and overlaps follow java.time: a wall time in an overlap takes the earlier offset (the
first of the two instants) unless a preferred offset is valid (``to_instant``); one in a gap
(spring forward) is moved forward by the gap's length, which is the instant ``wall -
offset_before``; ``LocalDate.atStartOfDay`` takes the end of a gap (``start_of_day``).
(Python's ``fold=0`` agrees on both; ``tests/support/reference.py`` computes with it.)

The zone is read from ``prunekit.expr.spark_types.session.session_zone()`` by callers; the data is
Python's tz database (``zoneinfo``), Spark's is the JVM's: a zone whose rules differ between
the two (an update not yet in one of them) is read as Python's.

>>> import zoneinfo
>>> ny = zoneinfo.ZoneInfo("America/New_York")
>>> H = 3_600_000_000
>>> spring = wall_of(dt.datetime(2024, 3, 10, 2, 30))  # in the gap: 03:30 EDT, 07:30Z
>>> to_instant(ny, spring) == wall_of(dt.datetime(2024, 3, 10, 7, 30))
True
>>> fall = wall_of(dt.datetime(2024, 11, 3, 1, 30))  # twice: EDT (05:30Z) then EST (06:30Z)
>>> [shown(a) + ".." + shown(b) for a, b in local_at_least(ny, fall)]
['2024-11-03 05:30:00..2024-11-03 06:00:00', '2024-11-03 06:30:00..']
"""

from __future__ import annotations

import datetime as dt
import functools

from prunekit.expr.spark_types.session import session_zone

US = 1_000_000
DAY = 86_400 * US
STEP = 6 * 3_600  # seconds between samples of the offset (see the module docstring)
REACH = DAY  # offsets are less than a day: what lies a day away is decided
_EPOCH = dt.datetime(1970, 1, 1, tzinfo=dt.timezone.utc)
# Instants whose neighbourhood (two days) Python's datetime can hold: years 1 to 9999.
LOWEST = (dt.datetime(1, 1, 4, tzinfo=dt.timezone.utc) - _EPOCH) // dt.timedelta(microseconds=1)
HIGHEST = (dt.datetime(9999, 12, 28, tzinfo=dt.timezone.utc) - _EPOCH) // dt.timedelta(
    microseconds=1)


class OutOfRange(ValueError):
    """A time prunekit does not read in a zone (raised by callers' conversions of times beyond
    Python's datetime; offsets themselves are read at any instant, ``_offset_seconds``)."""


def wall_of(value: dt.datetime) -> int:
    """Microseconds since 1970 of a datetime's clock reading (its tzinfo ignored).

    >>> wall_of(dt.datetime(1970, 1, 2, 0, 0, 1))
    86401000000
    """
    naive = value.replace(tzinfo=dt.timezone.utc)
    return (naive - _EPOCH) // dt.timedelta(microseconds=1)


def shown(us: int | None) -> str:
    """A count of microseconds as a clock reading (for messages and doctests).

    >>> shown(86_401_000_000), shown(None)
    ('1970-01-02 00:00:01', '')
    """
    if us is None:
        return ""
    return (dt.datetime(1970, 1, 1) + dt.timedelta(microseconds=us)).isoformat(sep=" ")


def is_fixed(tz: dt.tzinfo) -> bool:
    """Whether ``tz`` has one offset at every instant (UTC, ``+05:30``).

    >>> import zoneinfo
    >>> is_fixed(dt.timezone(dt.timedelta(hours=5, minutes=30))), is_fixed(
    ...     zoneinfo.ZoneInfo("Asia/Kolkata"))
    (True, False)
    """
    return isinstance(tz, dt.timezone)


def offset_at(tz: dt.tzinfo, instant: int) -> int:
    """The zone's offset from UTC, in microseconds, at an instant.

    >>> import zoneinfo
    >>> offset_at(zoneinfo.ZoneInfo("America/New_York"), wall_of(dt.datetime(1800, 1, 1)))
    -17762000000
    """
    if is_fixed(tz):
        return tz.utcoffset(None) // dt.timedelta(microseconds=1)
    return _offset_seconds(tz, instant // US) * US


# Beyond the years Python's datetime holds: before them a zone keeps its first offset (local
# mean time: every zone's first change is after 1800), after them its yearly rule repeats,
# and a rule of months and weekdays repeats every 400 Gregorian years (146,097 days).
_LOW_S, _HIGH_S, _CYCLE_S = LOWEST // US, HIGHEST // US, 146_097 * 86_400


@functools.lru_cache(maxsize=65_536)
def _offset_seconds(tz: dt.tzinfo, second: int) -> int:
    if second < _LOW_S:
        second = _LOW_S
    elif second > _HIGH_S:
        second -= -(-(second - _HIGH_S) // _CYCLE_S) * _CYCLE_S
    at = _EPOCH + dt.timedelta(seconds=second)
    return at.astimezone(tz).utcoffset() // dt.timedelta(seconds=1)


@functools.lru_cache(maxsize=8_192)
def _changes_in_step(tz: dt.tzinfo, k: int) -> tuple:
    """The transition in the sampling step ``(k * STEP, (k + 1) * STEP]`` (seconds), as
    ``((second, before, after),)``, or ``()``: at most one (module docstring)."""
    a, b = k * STEP, (k + 1) * STEP
    before, after = _offset_seconds(tz, a), _offset_seconds(tz, b)
    if before == after:
        return ()
    lo, hi = a, b  # offset(lo) == before != offset(hi): the change is in (lo, hi]
    while hi - lo > 1:
        mid = (lo + hi) // 2
        if _offset_seconds(tz, mid) == before:
            lo = mid
        else:
            hi = mid
    return ((hi, before * US, _offset_seconds(tz, hi) * US),)


def transitions(tz: dt.tzinfo, lo: int, hi: int) -> list[tuple[int, int, int]]:
    """The changes of offset at instants in ``[lo, hi]``: ``(instant, before, after)``, all in
    microseconds.

    >>> import zoneinfo
    >>> at = wall_of(dt.datetime(2024, 3, 10))
    >>> [(shown(t), b // 3_600_000_000, a // 3_600_000_000) for t, b, a in transitions(
    ...     zoneinfo.ZoneInfo("America/New_York"), at, at + DAY)]
    [('2024-03-10 07:00:00', -5, -4)]
    """
    if is_fixed(tz):
        return []
    lo, hi = max(lo, LOWEST - STEP * US), min(hi, 2**62)  # none before the first change
    found = []
    for k in range(lo // US // STEP - 1, hi // US // STEP + 1):
        for second, before, after in _changes_in_step(tz, k):
            if lo <= second * US <= hi:
                found.append((second * US, before, after))
    return found


def segments(tz: dt.tzinfo, lo: int, hi: int) -> list[tuple[int | None, int | None, int]]:
    """The stretches of constant offset covering ``[lo, hi]``: ``(start, end, offset)`` for the
    instants ``start <= t < end``; the first starts at None (unbounded), the last ends at
    None.

    >>> import zoneinfo
    >>> at = wall_of(dt.datetime(2024, 11, 3))
    >>> [(shown(a), shown(b), o // 3_600_000_000) for a, b, o in segments(
    ...     zoneinfo.ZoneInfo("America/New_York"), at, at + DAY)]
    [('', '2024-11-03 06:00:00', -4), ('2024-11-03 06:00:00', '', -5)]
    """
    changes = transitions(tz, lo, hi)
    out, start = [], None
    offset = offset_at(tz, lo) if not changes else changes[0][1]
    for t, _, after in changes:
        out.append((start, t, offset))
        start, offset = t, after
    out.append((start, None, offset))
    return out


def local_of(tz: dt.tzinfo, instant: int) -> int:
    """The wall time of an instant in ``tz``.

    >>> import zoneinfo
    >>> shown(local_of(zoneinfo.ZoneInfo("Asia/Kolkata"), 0))
    '1970-01-01 05:30:00'
    """
    return instant + offset_at(tz, instant)


def local_at_least(tz: dt.tzinfo, wall: int) -> tuple[tuple[int | None, int | None], ...]:
    """The instants whose wall time in ``tz`` is at or after ``wall``: disjoint intervals
    ``[a, b)`` of instants in increasing order (None: unbounded). Exact: within a stretch of
    constant offset ``o`` the instants ``t >= wall - o``; before ``wall - REACH`` none, from
    ``wall + REACH`` all.

    >>> import zoneinfo
    >>> local_at_least(dt.timezone(dt.timedelta(hours=2)), 0)  # 02:00 local is 00:00Z
    ((-7200000000, None),)
    >>> apia = zoneinfo.ZoneInfo("Pacific/Apia")  # 2011-12-30 did not happen there
    >>> [(shown(a), shown(b)) for a, b in local_at_least(apia, wall_of(dt.datetime(2011, 12, 30)))]
    [('2011-12-30 10:00:00', '')]
    """
    if is_fixed(tz):
        return ((wall - offset_at(tz, 0), None),)
    lo, hi = wall - REACH, wall + REACH
    pieces: list[list] = []
    for start, end, offset in segments(tz, lo, hi):
        a = wall - offset
        a = a if start is None else max(a, start)
        if end is not None and a >= end:
            continue
        if pieces and pieces[-1][1] == a:
            pieces[-1][1] = end  # adjoining: one interval
        else:
            pieces.append([a, end])
    return tuple((a, b) for a, b in pieces)


def _gap_at(tz: dt.tzinfo, wall: int) -> tuple[int, int, int] | None:
    """The transition whose gap (skipped wall times) holds ``wall``, if any."""
    for t, before, after in transitions(tz, wall - REACH, wall + REACH):
        if after > before and t + before <= wall < t + after:
            return t, before, after
    return None


def valid_offsets(tz: dt.tzinfo, wall: int) -> list[int]:
    """The offsets ``o`` with ``offset(wall - o) == o``: the instants showing ``wall`` are
    ``wall - o`` (none in a gap, two in an overlap), the earlier instant first.

    >>> import zoneinfo
    >>> [o // 3_600_000_000 for o in valid_offsets(zoneinfo.ZoneInfo("America/New_York"),
    ...     wall_of(dt.datetime(2024, 11, 3, 1, 30)))]
    [-4, -5]
    """
    if is_fixed(tz):
        return [offset_at(tz, 0)]
    offsets = {o for _, _, o in segments(tz, wall - REACH, wall + REACH)}
    return sorted((o for o in offsets if offset_at(tz, wall - o) == o), reverse=True)


def to_instant(tz: dt.tzinfo, wall: int, prefer: int | None = None) -> int:
    """The instant java.time gives a wall time (``ZonedDateTime.ofLocal``): the preferred
    offset where it is valid, else the earlier instant of an overlap; in a gap the wall time
    moved forward by the gap's length.

    >>> import zoneinfo
    >>> ny, H = zoneinfo.ZoneInfo("America/New_York"), 3_600_000_000
    >>> fall = wall_of(dt.datetime(2024, 11, 3, 1, 30))
    >>> shown(to_instant(ny, fall)), shown(to_instant(ny, fall, prefer=-5 * H))
    ('2024-11-03 05:30:00', '2024-11-03 06:30:00')
    """
    valid = valid_offsets(tz, wall)
    if valid:
        return wall - (prefer if prefer in valid else valid[0])
    gap = _gap_at(tz, wall)
    if gap is None:  # pragma: no cover - a wall time is valid or in a gap
        raise OutOfRange(f"no instant shows {shown(wall)}")
    return wall - gap[1]


def start_of_day(tz: dt.tzinfo, days: int) -> int:
    """The first instant of a DATE in ``tz`` (``LocalDate.atStartOfDay``: midnight, or the end of
    a gap that holds it); how Spark casts a DATE to a TIMESTAMP.

    >>> import zoneinfo
    >>> day = wall_of(dt.datetime(2011, 12, 30)) // DAY
    >>> shown(start_of_day(zoneinfo.ZoneInfo("Pacific/Apia"), day))  # the next day's midnight
    '2011-12-30 10:00:00'
    """
    wall = days * DAY
    if is_fixed(tz):
        return wall - offset_at(tz, 0)
    gap = _gap_at(tz, wall)
    return gap[0] if gap is not None else to_instant(tz, wall)


def local_day(tz: dt.tzinfo, instant: int) -> int:
    """The DATE (days since 1970) of an instant in ``tz``.

    >>> local_day(dt.timezone(dt.timedelta(hours=-1)), 0)
    -1
    """
    return local_of(tz, instant) // DAY


def days_meeting(tz: dt.tzinfo, instant: int) -> tuple[int, int]:
    """``(first, last)``: the least DATE whose start is at or after ``instant`` and the
    greatest whose start is at or before it (``first == last`` when a day starts there; two
    days may share a start where one was skipped). How a TIMESTAMP literal is placed among a
    DATE column's values.

    >>> days_meeting(dt.timezone.utc, DAY + 1), days_meeting(dt.timezone.utc, DAY)
    ((2, 1), (1, 1))
    """
    d = local_day(tz, instant) - 2
    while start_of_day(tz, d + 1) <= instant:
        d += 1
    first = d + 1
    while start_of_day(tz, first - 1) >= instant:  # a skipped day starts where the next does
        first -= 1
    return first, d


class _SessionWall(dt.tzinfo):
    """The tzinfo of a TIMESTAMP literal written without an offset: a wall time in whatever
    session time zone is read when it is converted (``session_zone()``), resolved as java.time
    resolves it (``to_instant``; ``day_start``: ``start_of_day``, for a DATE cast to a
    TIMESTAMP). Parsing happens before the zone is known; binding converts it."""

    def __init__(self, day_start: bool = False):
        self.day_start = day_start

    def __reduce__(self):
        return (_session_wall, (self.day_start,))

    def __repr__(self) -> str:
        return "SESSION_DAY_START" if self.day_start else "SESSION"

    def utcoffset(self, when: dt.datetime | None) -> dt.timedelta | None:
        if when is None:
            return None
        tz, wall = session_zone(), wall_of(when)
        if self.day_start and wall % DAY == 0:
            instant = start_of_day(tz, wall // DAY)
        else:
            instant = to_instant(tz, wall)
        return dt.timedelta(microseconds=wall - instant)

    def dst(self, when: dt.datetime | None) -> None:
        return None

    def tzname(self, when: dt.datetime | None) -> str:
        return "session"


# A TIMESTAMP literal written with a zero offset ('...Z', '...+00:00'): UTC, but a tzinfo other
# than ``datetime.timezone.utc`` so that it renders with its offset, as written.
WRITTEN_UTC = dt.timezone(dt.timedelta(0), "UTC")
SESSION = _SessionWall()
SESSION_DAY_START = _SessionWall(day_start=True)


def is_session_wall(tz: dt.tzinfo | None) -> bool:
    """Whether ``tz`` marks a wall time of the session zone (``SESSION``).

    >>> is_session_wall(SESSION), is_session_wall(dt.timezone.utc)
    (True, False)
    """
    return isinstance(tz, _SessionWall)


def _session_wall(day_start: bool) -> _SessionWall:
    return SESSION_DAY_START if day_start else SESSION


def instant_of(value: dt.datetime) -> int:
    """Microseconds since 1970 of an aware datetime, a session wall time read in the session's
    zone.

    >>> from prunekit.expr.spark_types.session import zone_of_session
    >>> with zone_of_session(dt.timezone(dt.timedelta(hours=1))):
    ...     shown(instant_of(dt.datetime(2024, 1, 1, tzinfo=SESSION)))
    '2023-12-31 23:00:00'
    """
    if isinstance(value.tzinfo, _SessionWall):
        wall = wall_of(value)
        if value.tzinfo.day_start and wall % DAY == 0:
            return start_of_day(session_zone(), wall // DAY)
        return to_instant(session_zone(), wall)
    return (value - _EPOCH) // dt.timedelta(microseconds=1)


def zone_name(tz: dt.tzinfo) -> str:
    """How explain() names a zone: its IANA key, or its offset.

    >>> zone_name(dt.timezone(dt.timedelta(hours=5, minutes=30))), zone_name(dt.timezone.utc)
    ('+05:30', 'UTC')
    """
    key = getattr(tz, "key", None)
    if key:
        return key
    if tz is dt.timezone.utc:
        return "UTC"
    seconds = int(tz.utcoffset(None).total_seconds())
    sign = "-" if seconds < 0 else "+"
    h, m = divmod(abs(seconds) // 60, 60)
    return f"{sign}{h:02d}:{m:02d}"
