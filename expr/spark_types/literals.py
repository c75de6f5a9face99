"""Exact coercion of a literal to a column's type (docs/semantics.md §2).


A coercion answers "which values of the column's type equal this literal, in Spark's
comparison?" That set is always an interval ``[first, last]`` of column values (in the column's
*domain*: ints for integers, dates, timestamps and unscaled decimals, floats, UTF-8 bytes):

- ``Exact(v)``: exactly one value.
- ``Between(below, above)``: none; ``below`` and ``above`` are the neighbouring column values,
  so ``x > 5.5`` on an int column binds as ``x >= 6`` and ``x = 5.5`` as FALSE.
- ``Range(first, last)``: several, when Spark compares in DOUBLE and rounding makes many
  BIGINT values equal one double (``x = 9007199254740993.0``).
- ``BelowMin()`` / ``AboveMax()``: beyond the type; NaN is above every value (Spark orders NaN
  greatest), so it is ``AboveMax()`` for an integer column.

>>> coerce(300, pa.int8()), coerce(float("nan"), pa.float64())
(AboveMax(), Exact(value=nan))
>>> coerce(5.5, pa.int64())        # x > 5.5 binds as x >= 6; x = 5.5 binds as FALSE
Between(below=5, above=6)
>>> coerce(decimal.Decimal("1.005"), pa.decimal128(10, 2))   # unscaled: 100 and 101 cents
Between(below=100, above=101)
"""

from __future__ import annotations

import datetime as dt
import decimal
import math
from dataclasses import dataclass
from fractions import Fraction

import numpy as np
import pyarrow as pa

from prunekit.errors import TypeMismatchError
from prunekit.expr.domains import EXACT, int_range, is_stringlike, round_to_float32
from prunekit.expr.spark_types import zones
from prunekit.expr.spark_types.session import session_zone


@dataclass(frozen=True)
class Exact:
    value: object

    @property
    def first(self):
        return self.value

    @property
    def last(self):
        return self.value


@dataclass(frozen=True)
class Between:
    below: object
    above: object

    @property
    def first(self):
        return self.above

    @property
    def last(self):
        return self.below


@dataclass(frozen=True)
class Range:
    first: object
    last: object


@dataclass(frozen=True)
class BelowMin:
    pass


@dataclass(frozen=True)
class AboveMax:
    pass


def truth_beyond(op: object, above: bool) -> bool:
    """``x op c`` for every value ``x`` of the column's type when ``c`` lies above all of them
    (``above``) or below all of them: ``BelowMin``, ``AboveMax``, and NaN above every number.
    ``op`` is a comparison other than ``<>`` (``nodes.Op``; its SQL spelling is read).

    >>> from prunekit.expr.syntax.nodes import Op
    >>> truth_beyond(Op.LT, above=True), truth_beyond(Op.GE, above=True), truth_beyond(Op.EQ, False)
    (True, False, False)
    """
    return {"=": False, "<": above, "<=": above, ">": not above, ">=": not above}[op.value]


Coerced = Exact | Between | Range | BelowMin | AboveMax

def negate(value: object) -> object:
    """``-value`` exactly: Decimal's ``-`` rounds to the context's 28 digits.

    >>> negate(decimal.Decimal("-1234567890123456789012345678901.0"))
    Decimal('1234567890123456789012345678901.0')
    """
    if isinstance(value, decimal.Decimal):
        return value.copy_negate()
    return -value


_UNITS = {"s": 1, "ms": 1_000, "us": 1_000_000, "ns": 1_000_000_000}
_MS_PER_DAY = 86_400_000


def coerce(value: object, t: pa.DataType) -> Coerced:
    """Place ``value`` among the values of type ``t``; raise if they cannot be compared."""
    if isinstance(value, bool) or pa.types.is_boolean(t):
        if isinstance(value, bool) and pa.types.is_boolean(t):
            return Exact(int(value))
        raise _mismatch(value, t)
    if pa.types.is_floating(t):
        return _to_float(value, t)
    if pa.types.is_integer(t) or pa.types.is_decimal(t):
        return _to_scaled_int(value, t)
    if pa.types.is_date(t) or pa.types.is_timestamp(t):
        return _to_temporal(value, t)
    if is_stringlike(t):
        if isinstance(value, str):
            return Exact(value.encode("utf-8", "surrogatepass"))
        if isinstance(value, bytes):
            return Exact(value)
        raise _mismatch(value, t)
    raise TypeMismatchError(f"prunekit does not compare values of type {t}")


def _mismatch(value: object, t: pa.DataType) -> TypeMismatchError:
    return TypeMismatchError(
        f"literal {value!r} ({type(value).__name__}) cannot be compared with a column of type {t}"
    )


def _numeric(value: object, t: pa.DataType) -> int | float | decimal.Decimal:
    """A number from a literal (text is cast before it is placed: ``coercion.cast_literal``)."""
    if isinstance(value, (int, float, decimal.Decimal)):
        return value
    raise _mismatch(value, t)


def _to_float(value: object, t: pa.DataType) -> Coerced:
    # Spark compares a float column with any numeric literal in DOUBLE.
    v = _numeric(value, t)
    c = float(v) if not isinstance(v, float) else v
    if math.isnan(c) or t != pa.float32():
        return Exact(c)
    with np.errstate(over="ignore"):  # beyond float32's range rounds to +-inf, as intended
        as32 = float(np.float32(c))
        if as32 == c or math.isinf(c):
            return Exact(c)
        below = float(np.nextafter(np.float32(c), np.float32(-np.inf))) if as32 > c else as32
        above = as32 if as32 > c else float(np.nextafter(np.float32(c), np.float32(np.inf)))
    return Between(below, above)


def _to_scaled_int(value: object, t: pa.DataType) -> Coerced:
    v = _numeric(value, t)
    scale = t.scale if pa.types.is_decimal(t) else 0
    lo, hi = int_range(t)
    if isinstance(v, float):
        # Spark casts the column to DOUBLE: the values equal to v are those that round to v.
        if math.isnan(v) or v == math.inf:
            return AboveMax()
        if v == -math.inf:
            return BelowMin()
        first, last = _double_preimage(v, scale)
    elif isinstance(v, int):  # no Fraction: a join's keys bind lists of thousands of ints
        first = last = v * 10**scale
    else:
        exact = Fraction(v) * 10**scale
        first, last = math.ceil(exact), math.floor(exact)
    if last < lo:
        return BelowMin()
    if first > hi:
        return AboveMax()
    first, last = max(first, lo), min(last, hi)
    if first == last:
        return Exact(first)
    return Between(last, first) if first > last else Range(first, last)


def _double_preimage(c: float, scale: int) -> tuple[int, int]:
    """The integers k with ``float(k / 10**scale) == c``, as ``(first, last)``; empty when
    ``first > last``."""
    unit = 10**scale
    x = Fraction(c) * unit
    down, up = math.nextafter(c, -math.inf), math.nextafter(c, math.inf)
    # Every real between the midpoints to the neighbouring doubles rounds to c (ties: checked).
    first = math.ceil((Fraction(down) + Fraction(c)) / 2 * unit) if math.isfinite(down) else None
    last = math.floor((Fraction(up) + Fraction(c)) / 2 * unit) if math.isfinite(up) else None
    if first is None or last is None:  # at the edge of the double range: no integers there
        return math.ceil(x), math.floor(x)
    while first <= last and float(Fraction(first, unit)) != c:
        first += 1
    while last >= first and float(Fraction(last, unit)) != c:
        last -= 1
    if first > last:  # nothing rounds to c: place c between its integer neighbours
        return math.ceil(x), math.floor(x)
    return first, last


def _to_temporal(value: object, t: pa.DataType) -> Coerced:
    lo, hi = int_range(t)
    if pa.types.is_timestamp(t):
        per_second = _UNITS[t.unit]
    else:
        per_second = None
    if isinstance(value, str):
        value = _parse_temporal_text(value, t)
    instant_column = pa.types.is_timestamp(t) and t.tz is not None
    if isinstance(value, dt.datetime):
        if value.tzinfo is not None and pa.types.is_date(t):
            # An instant against a DATE column, which Spark casts to the start of its day in
            # the session zone: the days starting at, or around, that instant.
            first, last = _zoned(lambda: zones.days_meeting(session_zone(), zones.instant_of(
                value)))
            k = 1 if pa.types.is_date32(t) else _MS_PER_DAY
            return _place(first * k, last * k, lo, hi)
        micros = _micros_since_epoch(value, naive_column=pa.types.is_timestamp(t) and not t.tz)
        exact = Fraction(micros, 1_000_000)  # seconds
    elif isinstance(value, dt.date):
        days = (value - dt.date(1970, 1, 1)).days
        if instant_column:  # Spark casts the DATE to the start of its day in the session zone
            exact = Fraction(_zoned(lambda: zones.start_of_day(session_zone(), days)), 10**6)
        else:
            exact = Fraction(days * 86_400)
    else:
        raise _mismatch(value, t)
    if per_second is not None:
        scaled = exact * per_second
    elif pa.types.is_date32(t):
        scaled = exact / 86_400  # a date compares with a timestamp as its midnight
    else:  # date64: milliseconds, but only whole days are dates
        days = exact / 86_400
        first, last = math.ceil(days) * _MS_PER_DAY, math.floor(days) * _MS_PER_DAY
        return _place(first, last, lo, hi)
    return _place(math.ceil(scaled), math.floor(scaled), lo, hi)


def _place(first: int, last: int, lo: int, hi: int) -> Coerced:
    if last < lo:
        return BelowMin()
    if first > hi:
        return AboveMax()
    if first == last:
        return Exact(first)
    return Between(last, first)


def _micros_since_epoch(value: dt.datetime, naive_column: bool) -> int:
    """A literal's microseconds in the column's domain: an instant for a TIMESTAMP column (a
    wall time resolved in the session zone, as Spark casts TIMESTAMP_NTZ to TIMESTAMP), a wall
    time for a TIMESTAMP_NTZ column (an instant's wall time in the session zone)."""
    if value.tzinfo is None:
        wall = zones.wall_of(value)
        return wall if naive_column else _zoned(lambda: zones.to_instant(session_zone(), wall))
    instant = _zoned(lambda: zones.instant_of(value))
    return _zoned(lambda: zones.local_of(session_zone(), instant)) if naive_column else instant


def _zoned(compute):
    """``compute()``, a conversion in the session zone; a clear error for a time beyond the
    years Python's time zones read."""
    try:
        return compute()
    except (zones.OutOfRange, OverflowError):
        raise TypeMismatchError(f"prunekit does not read times this far from 1970 in the "
                                f"session time zone {zones.zone_name(session_zone())}") from None


def _parse_temporal_text(text: str, t: pa.DataType) -> dt.date | dt.datetime:
    """A date or timestamp written as text, read as Spark casts it to ``t``."""
    got = _cast_text(text, pa.date32() if pa.types.is_date(t) else t)
    if got is None:
        raise TypeMismatchError(f"literal {text!r} is not a valid {t} value")
    return got


def cast_literal(value: object, to: pa.DataType | None) -> object:
    """``CAST(value AS to)`` for a literal, as Spark evaluates it; errors are TypeMismatchError.

    >>> cast_literal("1994-01-01", pa.date32()), cast_literal(decimal.Decimal("5.7"), pa.int32())
    (datetime.date(1994, 1, 1), 5)
    >>> cast_literal("NaN", pa.float64())
    nan
    """
    if to is None or value is None:
        return value
    if isinstance(value, str) and not is_stringlike(to) and not pa.types.is_decimal(to):
        return _cast_text(value, to)
    try:
        if pa.types.is_floating(to):
            if to == pa.float32():  # the FLOAT nearest the value; beyond its range, +-inf
                if isinstance(value, float) or (isinstance(value, decimal.Decimal)
                                                and not value.is_finite()):
                    with np.errstate(over="ignore"):
                        return float(np.float32(float(value)))  # from a double: one rounding
                return round_to_float32(value)
            return float(value)
        if pa.types.is_decimal(to):
            # Spark rounds half up to the target scale; a value too wide for the precision
            # is NULL (and an error under ANSI mode, where the query would fail anyway).
            exact = decimal.Decimal(value) if isinstance(value, float) else _cast_text(
                value, to) if isinstance(value, str) else decimal.Decimal(value)
            if exact is None:
                return None  # no number: NULL in legacy mode, a failed query under ANSI
            if not exact.is_finite():
                raise ValueError(f"{value} is not a decimal")
            if exact != 0 and exact.adjusted() >= to.precision - to.scale + 1:
                return None  # too wide even before rounding
            rounded = exact.quantize(decimal.Decimal(1).scaleb(-to.scale, context=EXACT),
                                     rounding=decimal.ROUND_HALF_UP, context=EXACT)
            digits = len(rounded.as_tuple().digits)
            return rounded if digits <= to.precision or rounded == 0 else None
        if pa.types.is_integer(to):
            if isinstance(value, float) and not math.isfinite(value):
                raise ValueError(f"{value} is not an integer")
            lo, hi = int_range(to)
            if not lo <= int(value) <= hi:  # legacy Spark wraps, ANSI fails: not guessed
                raise ValueError(f"{value} is beyond {to}")
            return int(value)  # Spark truncates toward zero
        if pa.types.is_date(to):
            if isinstance(value, dt.datetime):
                if value.tzinfo is None:
                    return value.date()
                day = _zoned(lambda: zones.local_day(session_zone(), zones.instant_of(value)))
                return dt.date(1970, 1, 1) + dt.timedelta(days=day)  # in the session zone
        if pa.types.is_timestamp(to):
            if isinstance(value, dt.date) and not isinstance(value, dt.datetime):
                # A DATE as a TIMESTAMP starts its day in the session zone (a wall time read
                # when the literal is bound); as TIMESTAMP_NTZ it is its midnight.
                return dt.datetime(value.year, value.month, value.day,
                                   tzinfo=zones.SESSION_DAY_START if to.tz else None)
            if isinstance(value, dt.datetime) and to.tz and value.tzinfo is None:
                return value.replace(tzinfo=zones.SESSION)
            if isinstance(value, dt.datetime) and not to.tz and value.tzinfo is not None:
                wall = _zoned(lambda: zones.local_of(session_zone(), zones.instant_of(value)))
                return dt.datetime(1970, 1, 1) + dt.timedelta(microseconds=wall)
        if pa.types.is_string(to) or pa.types.is_large_string(to):
            return value if isinstance(value, str) else str(value)
        if pa.types.is_boolean(to):
            if isinstance(value, (bool, int)):
                return bool(value)
            raise ValueError(f"{value!r} is not a boolean")
    except (ValueError, ArithmeticError) as exc:
        raise TypeMismatchError(f"cannot cast {value!r} to {to}: {exc}") from None
    return value


def _cast_text(text: str, to: pa.DataType) -> object:
    """``CAST('...' AS to)`` in Spark's grammar (``coercion.from_text``): text that is no value
    of ``to`` is NULL (legacy mode; ANSI fails the query, so NULL is never a wrong answer)."""
    from prunekit.expr.spark_types import text_casts as tc
    from prunekit.expr.spark_types.coercion import LEGACY, from_text

    got = from_text(text, to, LEGACY)
    if got is tc.UNSURE:
        raise TypeMismatchError(
            f"prunekit does not read {text!r} as {to} the way Spark does (a time without a "
            "date, a named time zone, a year beyond 9999, non-ASCII digits): write it in full")
    return None if got is tc.INVALID else got


