"""``from_unixtime(x)`` of an integer column: the text ``yyyy-MM-dd HH:mm:ss`` of ``x`` seconds
since the epoch in the session time zone, compared as Spark compares strings (bytes).

Spark 4's text (checked in Spark, both modes): years 0000 to 9999 have four digits; a year
below 0 is written with a minus sign (``-0001-12-31 23:59:59``), a year above 9999 with a plus
sign (``+10000-01-01 00:00:00``); the seconds are multiplied by 10**6 without an overflow check,
so beyond ``|x| = 9223372036854`` the text is that of a wrapped count (``from_unixtime(2**63 -
1)`` is ``1969-12-31 23:59:59``). Within the window of years 0000-9999 the text has one width
and its byte order is time order: the function is increasing there, and ``from_unixtime(x) >=
m`` is ``x >= A(m)`` for the least such ``x`` in the window (bisection). Outside it every text
starts with ``+`` or ``-``, below every digit in byte order, so:

- ``m`` starting above ``-`` (a digit, say): outside rows are below it, ``>= m`` is ``A(m) <= x
  <= X9`` (the window's last second), exact;
- ``m`` empty or starting below ``+``: every text is at least ``m``;
- ``m`` starting with ``+``, ``,`` or ``-``: window rows are above it, outside rows unknown;

and rows whose count wraps are unknown (only BIGINT columns have them). ``> m`` is ``>= m``
followed by a zero byte. Exact in UTC and fixed-offset zones; in a zone with daylight saving
time, with another format, or of a DOUBLE or DECIMAL count the call is unknown (a format's
fields in another order are not monotone, and proving a format monotone is not attempted).

>>> import pyarrow as pa
>>> from prunekit.expr.binding.bind import bind
>>> from prunekit.expr.syntax.sql import parse
>>> bind(parse("from_unixtime(x) >= '2024'"), pa.schema([("x", pa.int32())])).arg
BCompare(col=x, op='ge', value=1704067200)
"""

from __future__ import annotations

import pyarrow as pa

from prunekit.expr.binding import bound as b
from prunekit.expr.binding.applied import Monotone, at_least
from prunekit.expr.binding.functions.epoch import fixed_offset_seconds
from prunekit.expr.binding.functions.registry import Rule, register
from prunekit.expr.binding.operands import ColOp, LitOp
from prunekit.expr.calendar import civil_from_days, days_from_civil
from prunekit.expr.domains import int_range
from prunekit.expr.spark_types.session import session_zone

# The default format as Spark writes it and as the SQL reader hands it on.
DEFAULT_FORMATS = ("yyyy-MM-dd HH:mm:ss", "%Y-%mstrict-%dstrict %Hstrict:%Mstrict:%Sstrict")
WRAPS_BEYOND = (2**63 - 1) // 10**6  # |x| above this: x * 10**6 leaves BIGINT and wraps
_FIRST_LOCAL = days_from_civil(0, 1, 1) * 86_400  # 0000-01-01 00:00:00
_LAST_LOCAL = days_from_civil(10000, 1, 1) * 86_400 - 1  # 9999-12-31 23:59:59


def text_of(x: int, offset: int) -> str:
    """Spark's ``from_unixtime(x)`` for a local time in years 0000-9999 (``offset``: the zone's
    seconds east of UTC).

    >>> text_of(0, 0), text_of(-1, 7200), text_of(-62167219200, 0)
    ('1970-01-01 00:00:00', '1970-01-01 01:59:59', '0000-01-01 00:00:00')
    """
    days, sec = divmod(x + offset, 86_400)
    y, m, d = civil_from_days(days)
    return f"{y:04d}-{m:02d}-{d:02d} {sec // 3600:02d}:{sec // 60 % 60:02d}:{sec % 60:02d}"


def _from_unixtime(kids: tuple) -> object | None:
    if len(kids) == 1:  # the default format
        kids = (kids[0], LitOp(DEFAULT_FORMATS[0]))
    if len(kids) != 2 or not isinstance(kids[1], LitOp):
        return None
    x, fmt = kids
    if fmt.value is None or (isinstance(x, LitOp) and x.value is None):
        return LitOp(None, pa.string())
    if fmt.value not in DEFAULT_FORMATS or not isinstance(x, ColOp) or x.negated:
        return None
    col = x.col
    if not isinstance(col, b.BColumn) or col.convert or col.domain != "int" or \
            not pa.types.is_signed_integer(col.type) or col.stats_type != col.type:
        return None
    offset = fixed_offset_seconds(session_zone())
    if offset is None:
        return None
    first, last = _FIRST_LOCAL - offset, _LAST_LOCAL - offset  # the window, in counts
    t_lo, t_hi = int_range(col.type)
    all_inside = first <= t_lo and t_hi <= last  # INT and narrower: every count
    unknown = b.BOpaque("from_unixtime beyond years 0000-9999 (a sign before the year) or "
                       "beyond BIGINT microseconds (wrapped)")

    def within(lo: int, hi: int) -> object:  # lo <= x <= hi, whatever the column's type
        if hi >= t_hi:
            return at_least(col, lo)
        return b.BAnd((at_least(col, lo), b.BNot(at_least(col, hi + 1))))

    def or_wrapped(p: object) -> object:  # p, and unknown where the count wraps
        if -WRAPS_BEYOND <= t_lo and t_hi <= WRAPS_BEYOND:
            return p
        return b.BOr((p, b.BAnd((b.BNot(within(-WRAPS_BEYOND, WRAPS_BEYOND)), unknown))))

    def ge(m: bytes) -> object:
        if m == b"" or m[:1] < b"+":
            return b.BNonNull(col, True)  # every text starts with a digit, + or -
        if m[:1] <= b"-":  # above the outside texts' first byte: they are unknown
            if all_inside:
                return b.BNonNull(col, True)
            inside = within(first, last)
            return b.BOr((inside, b.BAnd((b.BNot(inside), unknown))))
        if text_of(last, offset).encode() < m:  # above every text but wrapped ones
            return or_wrapped(b.BNonNull(col, False))
        lo, hi = first, last
        while lo < hi:  # the least count in the window whose text reaches m
            mid = (lo + hi) // 2
            if text_of(mid, offset).encode() >= m:
                hi = mid
            else:
                lo = mid + 1
        return or_wrapped(within(lo, last))

    return Monotone(f"from_unixtime({col.name})", ColOp(col), pa.string(), ge,
                    lambda m: ge(m + b"\x00"))


register(Rule("from_unixtime", _from_unixtime, "from_unixtime(x) >= '2024-03-01'",
              (("x", pa.int64()),)))
