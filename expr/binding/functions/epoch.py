"""Counts since the epoch and back: ``unix_seconds``, ``unix_millis``, ``unix_micros``,
``unix_timestamp`` of a TIMESTAMP or DATE column, and ``timestamp_seconds``,
``timestamp_millis``, ``timestamp_micros`` of an integer column, as Spark 4 computes them.
Each is non-decreasing, so compared with a literal it is a range of the column
(``applied.Monotone``), the threshold computed exactly:

- ``unix_seconds(t)``, ``unix_millis(t)``, ``unix_micros(t)``: the microseconds since the
  epoch divided by 10**6, 10**3, 1, rounded **down** (``Math.floorDiv``): ``unix_seconds(t) >=
  m`` is ``t >= m`` seconds;
- ``unix_timestamp(t)`` of a TIMESTAMP divides by 10**6 rounding **toward zero** (Java's ``/``:
  ``unix_timestamp(TIMESTAMP '1969-12-31 23:59:59.5')`` is 0, its ``unix_seconds`` -1), still
  non-decreasing: ``>= m`` is ``t >= m`` seconds for ``m > 0``, ``t > (m - 1)`` seconds else. The
  format argument is ignored for a TIMESTAMP or DATE (even NULL);
- ``unix_timestamp(d)`` of a DATE is the seconds of its midnight in the session time zone:
  ``86400 * d - offset``. Exact in UTC and fixed-offset zones; in a zone with daylight saving
  time the call is left unknown (always sound);
- ``timestamp_seconds(x)``, ``timestamp_millis(x)``, ``timestamp_micros(x)`` of an integer
  column: ``x * 10**6`` (``10**3``, 1) microseconds; where that leaves BIGINT Spark fails in
  both modes (``DATETIME_OVERFLOW``): those rows are unknown (a row behind a short circuit is
  never evaluated, so the failure is not certain).

Left unknown: TIMESTAMP_NTZ arguments, a timestamp column under a conversion, DOUBLE and
DECIMAL seconds, and ``unix_timestamp(s, fmt)`` of a STRING: parsing is not monotone in byte
order (``'2024-1-5'`` sorts after ``'2024-01-31'`` but is earlier, and a format like
``dd/MM/yyyy`` puts the day first), and unparsable text is NULL or an error by mode.
``unix_date(d)`` reaches bind as a one-argument ``datediff`` (the SQL reader's spelling) and is
unknown. ``to_timestamp(x)`` is a CAST to TIMESTAMP (the casts' rules).

>>> import pyarrow as pa
>>> from prunekit.expr.binding.bind import bind
>>> from prunekit.expr.syntax.sql import parse
>>> bind(parse("unix_seconds(t) >= 1"), pa.schema([("t", pa.timestamp("us", "UTC"))]))
BRewritten(arg=BCompare(col=t, op='ge', value=1000000), text='unix_seconds(t) >= 1')
>>> bind(parse("unix_timestamp(t) >= 0"), pa.schema([("t", pa.timestamp("us", "UTC"))]))
BRewritten(arg=BCompare(col=t, op='ge', value=-999999), text='unix_timestamp(t) >= 0')
"""

from __future__ import annotations

import datetime as dt

import pyarrow as pa

from prunekit.expr.binding import bound as b
from prunekit.expr.binding.applied import Monotone, at_least, int_valued
from prunekit.expr.binding.functions.registry import Rule, register
from prunekit.expr.binding.operands import ColOp, LitOp
from prunekit.expr.calendar import PER_SECOND
from prunekit.expr.domains import int_range
from prunekit.expr.spark_types.session import is_utc, session_zone

MICROS = 10**6


def _plain(x: object) -> b.BColumn | None:
    """A column read as it is stored (no conversion, not negated)."""
    if not isinstance(x, ColOp) or x.negated or not isinstance(x.col, b.BColumn):
        return None
    col = x.col
    if col.convert or col.domain != "int" or col.stats_type != col.type:
        return None
    return col


def _timestamp_column(x: object) -> b.BColumn | None:
    """A TIMESTAMP (with local time zone: an Arrow timestamp with a zone) column."""
    col = _plain(x)
    if col is None or not pa.types.is_timestamp(col.type) or col.type.tz is None or \
            col.type.unit == "ns":  # Spark reads no nanosecond TIMESTAMP: not assumed
        return None
    return col


def fixed_offset_seconds(tz: dt.tzinfo) -> int | None:
    """The session zone's offset from UTC in seconds when it never changes, else None.

    >>> fixed_offset_seconds(dt.timezone(dt.timedelta(hours=-5))), fixed_offset_seconds(
    ...     dt.timezone.utc)
    (-18000, 0)
    """
    if is_utc(tz):
        return 0
    if isinstance(tz, dt.timezone):
        return int(tz.utcoffset(None).total_seconds())
    return None  # a zone with rules (daylight saving time): left unknown


def _ceil_div(a: int, k: int) -> int:
    return -(-a // k)


def _ticks_at_least(col: b.BColumn, micros: int) -> object:
    """``col >= micros`` for a timestamp column in any unit: the least tick whose
    microseconds (Spark reads a nanosecond column rounding down) reach ``micros``."""
    per_second = PER_SECOND[col.type.unit]
    return at_least(col, _ceil_div(micros * per_second, MICROS))


def _unix(name: str, per: int):
    """``unix_seconds`` (per = 10**6), ``unix_millis`` (10**3), ``unix_micros`` (1)."""
    def bind(kids: tuple) -> object | None:
        if len(kids) != 1:
            return None
        if isinstance(kids[0], LitOp) and kids[0].value is None:
            return LitOp(None, pa.int64())
        col = _timestamp_column(kids[0])
        if col is None:
            return None
        ge, gt = int_valued(lambda m: _ticks_at_least(col, m * per))
        return Monotone(f"{name}({col.name})", ColOp(col), pa.int64(), ge, gt)

    return bind


def truncated_seconds_at_least(m: int) -> int:
    """The least microsecond count whose seconds rounded toward zero are at least ``m``.

    >>> [truncated_seconds_at_least(m) for m in (1, 0, -1)]
    [1000000, -999999, -1999999]
    """
    return m * MICROS if m > 0 else (m - 1) * MICROS + 1


def _unix_timestamp(kids: tuple) -> object | None:
    if len(kids) not in (1, 2):
        return None
    if len(kids) == 2 and not isinstance(kids[1], LitOp):
        return None  # a column as the format: left alone
    x = kids[0]
    if isinstance(x, LitOp) and x.value is None:
        return LitOp(None, pa.int64())
    col = _timestamp_column(x)
    if col is not None:
        ge, gt = int_valued(lambda m: _ticks_at_least(col, truncated_seconds_at_least(m)))
        return Monotone(f"unix_timestamp({col.name})", ColOp(col), pa.int64(), ge, gt)
    col = _plain(x)
    if col is None or col.type != pa.date32():
        return None
    offset = fixed_offset_seconds(session_zone())
    if offset is None:
        return None
    # 86400 * d - offset >= m  <=>  d >= ceil((m + offset) / 86400)
    ge, gt = int_valued(lambda m: at_least(col, _ceil_div(m + offset, 86_400)))
    return Monotone(f"unix_timestamp({col.name})", ColOp(col), pa.int64(), ge, gt)


def _from_count(name: str, per: int):
    """``timestamp_seconds`` (per = 10**6), ``timestamp_millis`` (10**3), ``timestamp_micros``
    of a signed integer column: ``x * per`` microseconds, a failed query beyond BIGINT."""
    result = pa.timestamp("us", "UTC")

    def bind(kids: tuple) -> object | None:
        if len(kids) != 1:
            return None
        if isinstance(kids[0], LitOp) and kids[0].value is None:
            return LitOp(None, result)
        col = _plain(kids[0])
        if col is None or not pa.types.is_signed_integer(col.type):
            return None
        def ge(m: int) -> object:
            return at_least(col, _ceil_div(m, per))

        return Monotone(f"{name}({col.name})", ColOp(col), result, *int_valued(ge),
                        fails=_overflowing(col, per))

    return bind


def _overflowing(col: b.BColumn, per: int) -> object | None:
    """Rows where ``x * per`` leaves BIGINT (unknown there), or None when none can."""
    lo, hi = -(2**63) // per + (-(2**63) % per != 0), (2**63 - 1) // per  # ceil, floor
    t_lo, t_hi = int_range(col.type)
    if lo <= t_lo and t_hi <= hi:
        return None
    outside = b.BOr((b.BNot(at_least(col, lo)), at_least(col, hi + 1)))
    return b.BAnd((outside, b.BOpaque(f"beyond BIGINT microseconds: Spark fails ({per} per)")))


_T = (("t", pa.timestamp("us", "UTC")),)
_X = (("x", pa.int64()),)
register(
    Rule("unix_seconds", _unix("unix_seconds", MICROS), "unix_seconds(t) >= 1700000000", _T),
    Rule("unix_millis", _unix("unix_millis", 10**3), "unix_millis(t) < 1700000000000", _T),
    Rule("unix_micros", _unix("unix_micros", 1), "unix_micros(t) = 0", _T),
    Rule("unix_timestamp", _unix_timestamp, "unix_timestamp(t) > 1700000000", _T),
    Rule("timestamp_seconds", _from_count("timestamp_seconds", MICROS),
         "timestamp_seconds(x) >= TIMESTAMP '2024-01-01 00:00:00'", _X),
    Rule("timestamp_millis", _from_count("timestamp_millis", 10**3),
         "timestamp_millis(x) < TIMESTAMP '2024-01-01 00:00:00'", _X),
    Rule("timestamp_micros", _from_count("timestamp_micros", 1),
         "timestamp_micros(x) = TIMESTAMP '2024-01-01 00:00:00'", _X),
)
