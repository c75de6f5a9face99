"""Spark's casts of a string to a number, a boolean, a date or a timestamp, for literals.

A string literal compared with a column of another type is cast by Spark (``d >= '2024'`` on a
DATE column compares with 2024-01-01; ``x = ' 5 '`` on an INT column with 5), and what the
cast accepts is Spark's own grammar, not Python's: ``'2024'`` is a date, ``'20240101'`` is not,
``'1.9'`` is the integer 1 in legacy mode and an error under ANSI. Each function here returns
the value, ``INVALID`` (Spark gives NULL in legacy mode and fails the query under ANSI), or
``UNSURE`` (valid text whose value prunekit does not work out, such as a time without a date,
which Spark reads on the current day: the comparison is then unknown, never guessed).

Checked against Spark 4.3 string by string (``tests/expr/test_text_casts.py``).

>>> to_date("2024"), to_date("2024-1-5 anything"), to_date("20240101")
(datetime.date(2024, 1, 1), datetime.date(2024, 1, 5), INVALID)
>>> to_integral("1.9", 32, ansi=False), to_integral("1.9", 32, ansi=True)
(1, INVALID)
>>> to_double(" inf "), to_boolean("Yes"), to_double("-nan")
(inf, True, INVALID)
"""

from __future__ import annotations

import datetime as dt
import decimal
import math
import re
from fractions import Fraction

from prunekit.expr.spark_types.zones import SESSION, WRITTEN_UTC


class _Marker:
    def __init__(self, name: str):
        self.name = name

    def __repr__(self) -> str:
        return self.name


INVALID = _Marker("INVALID")  # Spark: NULL in legacy mode, an error under ANSI
UNSURE = _Marker("UNSURE")  # valid for Spark, but prunekit does not compute the value


def _trim_all(text: str) -> str:
    """Spark's ``trimAll``: whitespace and ISO control characters (ASCII) at both ends."""
    return text.strip("".join(map(chr, range(0x21))) + "\x7f")


def to_integral(text: str, bits: int, *, ansi: bool) -> int | _Marker:
    """A string as TINYINT/SMALLINT/INT/BIGINT (``bits``): digits with a sign; legacy mode also
    takes a fraction and truncates it (``'.'`` alone is 0). Beyond the range: INVALID.

    >>> to_integral(" +7 ", 8, ansi=True), to_integral("128", 8, ansi=False)
    (7, INVALID)
    """
    s = _trim_all(text)
    m = re.fullmatch(r"([+-]?)([0-9]*)(?:\.([0-9]*))?", s, re.ASCII)
    if not m or (not m.group(2) and m.group(3) is None):
        return INVALID  # empty, a sign alone, or not digits
    if m.group(3) is not None and ansi:
        return INVALID
    value = int(m.group(2) or "0")
    value = -value if m.group(1) == "-" else value
    if not -(2 ** (bits - 1)) <= value < 2 ** (bits - 1):
        return INVALID
    return value


_JAVA_DECIMAL = re.compile(
    r"[+-]?(?:NaN|Infinity|(?:[0-9]+\.?[0-9]*|\.[0-9]+)(?:[eE][+-]?[0-9]+)?[fFdD]?)", re.ASCII)
_JAVA_HEX = re.compile(r"([+-]?)0[xX]([0-9a-fA-F]*)\.?([0-9a-fA-F]*)[pP]([+-]?[0-9]+)[fFdD]?",
                       re.ASCII)
_SPECIAL = {"inf": math.inf, "+inf": math.inf, "infinity": math.inf, "+infinity": math.inf,
            "-inf": -math.inf, "-infinity": -math.inf, "nan": math.nan}


def to_double(text: str) -> float | _Marker:
    """A string as DOUBLE (Java's ``Double.parseDouble``, then Spark's ``inf``/``nan``
    spellings), correctly rounded.

    >>> to_double("1.5d"), to_double("0x1p3"), to_double("1e400")
    (1.5, 8.0, inf)
    """
    exact = _parse_real(text)
    if not isinstance(exact, Fraction):
        return exact
    try:
        return exact.numerator / exact.denominator  # correctly rounded, as Java's parser
    except OverflowError:
        return math.inf if exact > 0 else -math.inf


def to_real(text: str) -> Fraction | float | _Marker:
    """The exact number a string holds for Java's parser (a Fraction; inf and nan as floats):
    FLOAT rounds it once, as ``Float.parseFloat`` does.

    >>> to_real("0.1"), to_real("-Infinity"), to_real("-0")
    (Fraction(1, 10), -inf, -0.0)
    """
    return _parse_real(text)


def _parse_real(text: str) -> Fraction | float | _Marker:
    s = text.strip("".join(map(chr, range(0x21))))  # Java's String.trim
    got = _parse_number(s)
    if isinstance(got, Fraction) and got == 0 and s.startswith("-"):
        return -0.0  # a Fraction has no negative zero; IEEE does, and Spark writes it "-0.0"
    return got


def _parse_number(s: str) -> Fraction | float | _Marker:
    if _JAVA_DECIMAL.fullmatch(s):
        body = s.rstrip("fFdD") if s[-1:] in "fFdD" and "Infinity" not in s else s
        if body.lstrip("+-") == "NaN":
            return math.nan
        if body.lstrip("+-") == "Infinity":
            return -math.inf if body.startswith("-") else math.inf
        mantissa, _, exponent = body.lower().partition("e")
        value = Fraction(mantissa.replace("+", "") or "0") if mantissa.strip("+-.") else None
        if value is None:
            return INVALID
        e = int(exponent) if exponent else 0
        if abs(e) > 100_000:  # beyond any double: inf, or zero
            return (-math.inf if value < 0 else math.inf) if e > 0 and value else \
                Fraction(0)
        return value * Fraction(10) ** e
    h = _JAVA_HEX.fullmatch(s)
    if h and (h.group(2) or h.group(3)):
        digits = h.group(2) + h.group(3)
        value = Fraction(int(digits, 16), 16 ** len(h.group(3))) * Fraction(2) ** int(h.group(4))
        return -value if h.group(1) == "-" else value
    return _SPECIAL.get(s.lower(), INVALID)


_JAVA_BIG_DECIMAL = re.compile(r"[+-]?(?:[0-9]+\.?[0-9]*|\.[0-9]+)(?:[eE][+-]?[0-9]+)?",
                               re.ASCII)


def to_decimal(text: str) -> decimal.Decimal | _Marker:
    """A string as Java's BigDecimal reads it for ``CAST(... AS DECIMAL)``, before rounding to
    the target's scale (after Java's trim: no underscores, no Unicode spaces). Java also reads
    non-ASCII digits: UNSURE.

    >>> to_decimal(" 1.50 "), to_decimal("1_000"), to_decimal("1e3"), to_decimal("\u0661")
    (Decimal('1.50'), INVALID, Decimal('1E+3'), UNSURE)
    """
    s = text.strip("".join(map(chr, range(0x21))))
    if _JAVA_BIG_DECIMAL.fullmatch(s):
        return decimal.Decimal(s)
    return UNSURE if any(ch.isdigit() and not ch.isascii() for ch in s) else INVALID


_TRUE = {"t", "true", "y", "yes", "1"}
_FALSE = {"f", "false", "n", "no", "0"}


def to_boolean(text: str) -> bool | _Marker:
    """A string as BOOLEAN: ``t true y yes 1`` and ``f false n no 0``, any case.

    >>> to_boolean(" TRUE "), to_boolean("2")
    (True, INVALID)
    """
    s = _trim_all(text).lower()
    return True if s in _TRUE else False if s in _FALSE else INVALID


def _date(year: int, month: int, day: int) -> dt.date | _Marker:
    if not 1 <= year <= 9999:  # valid for Spark, beyond Python's dates
        try:
            dt.date(2000, month, day)  # still refuse a month 13 as Spark does
        except ValueError:
            return INVALID
        return UNSURE
    try:
        return dt.date(year, month, day)
    except ValueError:
        return INVALID


def to_date(text: str) -> dt.date | _Marker:
    """A string as DATE (Spark's ``stringToDate``): ``[+-]yyyy[-m[m][-d[d]]]``, a year of 4 to 7
    digits, then nothing, or after the day a space or ``T`` and anything.

    >>> to_date("2024-01-01T99"), to_date("2024-01-01x"), to_date("999-01-01")
    (datetime.date(2024, 1, 1), INVALID, INVALID)
    """
    s = _trim_all(text)
    m = re.match(r"([+-]?)([0-9]+)(?:-([0-9]+)(?:-([0-9]+))?)?", s, re.ASCII)
    if not m:
        return INVALID
    rest = s[m.end():]
    year, month, day = m.group(2), m.group(3), m.group(4)
    if not 4 <= len(year) <= 7 or any(p is not None and not 1 <= len(p) <= 2 for p in (
            month, day)):
        return INVALID
    if rest and (day is None or rest[0] not in " T"):
        return INVALID
    sign = -1 if m.group(1) == "-" else 1
    return _date(sign * int(year), int(month or 1), int(day or 1))


_ZONE = re.compile(r"(?:Z|(?:UTC|GMT|UT)?(?:([+-])([0-9]{1,2})(?::?([0-9]{2}))?)?)", re.ASCII)


def to_timestamp(text: str, *, ntz: bool) -> dt.datetime | _Marker:
    """A string as TIMESTAMP (an aware datetime: in the offset written, else a wall time of the
    session time zone, ``zones.SESSION``, read when the literal is bound) or TIMESTAMP_NTZ (a
    naive datetime, any zone ignored):
    a date as ``to_date`` reads it, then ``[ T]h[h][:m[m][:s[s][.fraction]]]`` and a zone
    (``Z``, ``UTC``, ``+hh[:mm]``). A time without a date (Spark's current day), any other zone
    (``America/New_York``, ``-1:0``) and years beyond 9999 are UNSURE.

    >>> to_timestamp("2024-01-01 12:00:00+01:00", ntz=False)
    datetime.datetime(2024, 1, 1, 12, 0, tzinfo=datetime.timezone(datetime.timedelta(seconds=3600)))
    >>> to_timestamp("2024-01-01 12:00:00", ntz=False)
    datetime.datetime(2024, 1, 1, 12, 0, tzinfo=SESSION)
    >>> to_timestamp("2024-01-01T", ntz=False), to_timestamp("12:00", ntz=False)
    (INVALID, UNSURE)
    """
    s = _trim_all(text)
    if re.fullmatch(r"T?[0-9]{1,2}:.*", s, re.ASCII | re.DOTALL):
        return INVALID if ntz else UNSURE  # a time alone: Spark reads it on the current day
    m = re.match(r"([+-]?)([0-9]+)(?:-([0-9]+)(?:-([0-9]+))?)?", s, re.ASCII)
    if not m:
        return INVALID
    year, month, day = m.group(2), m.group(3), m.group(4)
    if not 4 <= len(year) <= 6 or any(p is not None and not 1 <= len(p) <= 2 for p in (
            month, day)):
        return INVALID
    rest = s[m.end():]
    parts = [0, 0, 0]
    micros = 0
    zone = ""
    if rest:
        if day is None or rest[0] not in " T":
            return INVALID
        t = re.match(r"([0-9]{1,2})(?::([0-9]{1,2})(?::([0-9]{1,2})(?:\.([0-9]*))?)?)?", rest[1:],
                     re.ASCII)
        if not t:
            return INVALID
        parts = [int(x) if x is not None else 0 for x in t.groups()[:3]]
        if t.group(4):
            micros = int((t.group(4) + "000000")[:6])
        zone = rest[1 + t.end():]
        if zone and t.group(3) is None:  # a zone follows the seconds only
            return INVALID
    sign = -1 if m.group(1) == "-" else 1
    base = _date(sign * int(year), int(month or 1), int(day or 1))
    if not isinstance(base, dt.date):
        return base
    if parts[0] > 23 or parts[1] > 59 or parts[2] > 59:
        return INVALID
    offset = _offset(zone.strip())
    if offset is INVALID or offset is UNSURE:
        return offset
    naive = dt.datetime(base.year, base.month, base.day, *parts, micros)
    if ntz:
        return naive
    if not zone.strip():
        return naive.replace(tzinfo=SESSION)  # Spark reads it in the session time zone
    # The offset as written, so that the literal renders with it (a zero offset too: a
    # session of another zone would read it without one otherwise).
    return naive.replace(tzinfo=dt.timezone(offset) if offset else WRITTEN_UTC)


def _offset(zone: str) -> dt.timedelta | _Marker:
    if not zone:
        return dt.timedelta(0)
    z = _ZONE.fullmatch(zone)
    if not z:
        # A region (Europe/Oslo), one of Java's short names (PST), an offset in another
        # spelling (-1:0, +01:00:00): what Java's ZoneId reads is not worked out here.
        return UNSURE
    if z.group(1) is None:
        return dt.timedelta(0)
    hours, minutes = int(z.group(2)), int(z.group(3) or 0)
    if hours > 18 or minutes > 59:
        return INVALID
    delta = dt.timedelta(hours=hours, minutes=minutes)
    return -delta if z.group(1) == "-" else delta
