"""Spark's implicit casts, as prunekit reasons with them (docs/semantics.md §2: rows follow Spark).

Before Spark runs a comparison whose sides have different types it casts both to one common
type, and its two modes choose that type differently: ANSI mode (the default since Spark 4) and
legacy mode (``spark.sql.ansi.enabled=false``). prunekit cannot know the mode, so it reads a
comparison once per mode that accepts it (``bound.BEither`` takes the union of the readings,
sound under both), and refuses a comparison both modes refuse.

What the common type means for pruning: the column is seen through its cast, which is usable
only when the cast keeps the column's order (``keeps_order``: ``INT`` as ``BIGINT`` or
``DOUBLE``, a date as a timestamp); a string column cast to a number, a date or a boolean does
not (``'10' < '9'`` as strings, 10 > 9 as numbers), so that comparison is unknown for every
container, never folded. The literal is cast as Spark casts it (``cast_literal``), so a string
that is not a number is NULL in legacy mode and fails the query under ANSI.

Types are named by Arrow types: ``spark_type`` maps a column's Arrow type to the one Spark
reads it as, ``literal_type`` gives a literal's. The rules were read off Spark 4.3's analysed
plans in both modes (``tests/expr/test_spark_typing.py`` checks their outcomes in Spark).

>>> comparison_type(pa.int32(), pa.string(), ANSI), comparison_type(pa.int32(), pa.string(), LEGACY)
(DataType(int64), DataType(int32))
>>> comparison_type(pa.string(), pa.int32(), ANSI), keeps_order(pa.string(), pa.int64())
(DataType(int64), False)
>>> comparison_type(pa.date32(), pa.int32(), LEGACY) is None   # refused in both modes
True
"""

from __future__ import annotations

import datetime as dt
import decimal
import math
from fractions import Fraction

import pyarrow as pa

from prunekit.errors import TypeMismatchError
from prunekit.expr.domains import int_range, round_to_float32
from prunekit.expr.spark_types import text_casts as tc
from prunekit.expr.spark_types.intervals import Interval
from prunekit.expr.spark_types.session import session_zone
from prunekit.expr.spark_types.zones import is_fixed

ANSI, LEGACY = "ansi", "legacy"
MODES = (ANSI, LEGACY)

TIMESTAMP = pa.timestamp("us", tz="UTC")
TIMESTAMP_NTZ = pa.timestamp("us")


class _Marker:
    def __init__(self, name: str):
        self.name = name

    def __repr__(self) -> str:
        return self.name


FAILS = _Marker("FAILS")  # the cast fails the query in this mode (ANSI): no answer is wrong
UNSURE = tc.UNSURE  # a value prunekit does not work out: the comparison is unknown


# ---- types ------------------------------------------------------------------------------
def kind(t: pa.DataType) -> str | None:
    """The family of a type, as Spark's coercion rules name them.

    >>> kind(pa.int8()), kind(pa.decimal128(5, 2)), kind(pa.large_string())
    ('integral', 'decimal', 'string')
    """
    try:
        return _KIND_OF[t]
    except KeyError:  # worked out once per type: binding a long IN list asks per element
        _KIND_OF[t] = found = _kind(t)
        return found


_KIND_OF: dict[pa.DataType, str | None] = {}


def _kind(t: pa.DataType) -> str | None:
    for test, name in _KINDS:
        if test(t):
            return name
    if pa.types.is_timestamp(t):
        return "timestamp" if t.tz else "timestamp_ntz"
    return None


_KINDS = (
    (pa.types.is_null, "null"), (pa.types.is_boolean, "boolean"),
    (pa.types.is_integer, "integral"), (pa.types.is_decimal, "decimal"),
    (pa.types.is_float32, "float"), (pa.types.is_float64, "double"),
    (lambda t: pa.types.is_string(t) or pa.types.is_large_string(t) or t == pa.string_view(),
     "string"),
    (lambda t: pa.types.is_binary(t) or pa.types.is_large_binary(t) or t == pa.binary_view(),
     "binary"),
    (pa.types.is_date, "date"),
)


_UNSIGNED = {pa.uint8(): pa.int16(), pa.uint16(): pa.int32(), pa.uint32(): pa.int64(),
             pa.uint64(): pa.decimal128(20, 0)}


def spark_type(t: pa.DataType) -> pa.DataType:
    """The Spark type a column of Arrow type ``t`` is read as (Spark has no unsigned integers,
    one string type, microsecond timestamps).

    >>> spark_type(pa.uint32()), spark_type(pa.timestamp("ns", tz="Europe/Oslo"))
    (DataType(int64), TimestampType(timestamp[us, tz=UTC]))
    """
    if t in _UNSIGNED:
        return _UNSIGNED[t]
    k = kind(t)
    if k == "string":
        return pa.string()
    if k == "binary":
        return pa.binary()
    if k == "date":
        return pa.date32()
    if k == "timestamp":
        return TIMESTAMP
    if k == "timestamp_ntz":
        return TIMESTAMP_NTZ
    return t


def literal_type(value: object, declared: pa.DataType | None = None) -> pa.DataType:
    """Spark's type of a literal: its declared type (``CAST``, ``DATE '...'``), else that of the
    value as Spark types the SQL text (an integer is INT, BIGINT when larger, else a DECIMAL).

    >>> literal_type(5), literal_type(2**40), literal_type(decimal.Decimal("1.50"))
    (DataType(int32), DataType(int64), Decimal128Type(decimal128(3, 2)))
    """
    if declared is not None:
        return spark_type(declared)
    if value is None:
        return pa.null()
    if isinstance(value, bool):
        return pa.bool_()
    if isinstance(value, int):
        if -(2**31) <= value < 2**31:
            return pa.int32()
        if -(2**63) <= value < 2**63:
            return pa.int64()
        return _decimal(len(str(abs(value))), 0)
    if isinstance(value, float):
        return pa.float64()
    if isinstance(value, decimal.Decimal):
        return _decimal_type(value)
    if isinstance(value, str):
        return pa.string()
    if isinstance(value, bytes):
        return pa.binary()
    if isinstance(value, dt.datetime):
        return TIMESTAMP if value.tzinfo else TIMESTAMP_NTZ
    if isinstance(value, dt.date):
        return pa.date32()
    if isinstance(value, Interval):
        raise TypeMismatchError(f"an interval ({value.sql()}) is not a value to compare; add it "
                                "to a DATE or TIMESTAMP")
    return pa.null()


def check_literal(value: object, declared: pa.DataType | None = None) -> None:
    """Refuse a literal Spark refuses: a number of more than 38 digits, which no DECIMAL holds
    (Spark's parser fails the query with DECIMAL_PRECISION_EXCEEDS_MAX_PRECISION, in both
    modes, also inside a CAST). A declared type is the caller's: its value was cast already.

    >>> check_literal(decimal.Decimal("-0.00000000005"))
    >>> check_literal(decimal.Decimal("-9999999999999999999999999999.99999999995"))
    Traceback (most recent call last):
    ...
    prunekit.errors.TypeMismatchError: the literal -9999999999999999999999999999.99999999995 \
has 39 digits, more than the 38 of Spark's widest DECIMAL: Spark refuses it
    """
    if declared is None and isinstance(value, (int, decimal.Decimal)) and not isinstance(
            value, bool):
        t = literal_type(value)
        if pa.types.is_decimal(t) and t.precision > 38:
            raise TypeMismatchError(f"the literal {value} has {t.precision} digits, more than "
                                    "the 38 of Spark's widest DECIMAL: Spark refuses it")


def compared_literal_type(value: object, declared: pa.DataType | None,
                          other: pa.DataType) -> pa.DataType:
    """A literal's type where a comparison meets it: ``literal_type``, except that an integer
    literal against a DECIMAL takes only the digits it has (Spark's DecimalPrecision: 1 is
    DECIMAL(1, 0) there, not INT's DECIMAL(10, 0)), which keeps DECIMAL(38, 37) against 1
    exact.

    >>> compared_literal_type(1, None, pa.decimal128(38, 37))
    Decimal128Type(decimal128(1, 0))
    """
    t = literal_type(value, declared)
    if declared is None and kind(t) == "integral" and kind(spark_type(other)) == "decimal":
        return _decimal(len(str(abs(value))), 0)
    return t


def _decimal_type(value: decimal.Decimal) -> pa.DataType:
    if not value.is_finite():
        return pa.float64()
    sign, digits, exponent = value.as_tuple()
    scale = max(0, -exponent)
    precision = max(len(digits) + max(0, exponent), scale, 1)
    return _decimal(precision, scale)


def _adjusted(precision: int, scale: int) -> pa.DataType:
    """Spark's DECIMAL for more than 38 digits (``DecimalType.adjustPrecisionScale``): 38, the
    integer digits kept where it can, the scale cut down to at least 6 (or the scale, if
    less). A value with more integer digits overflows it; one with more decimals rounds.

    >>> _adjusted(39, 11), _adjusted(47, 37), _adjusted(50, 10)
    (Decimal128Type(decimal128(38, 10)), Decimal128Type(decimal128(38, 28)), \
Decimal128Type(decimal128(38, 6)))
    """
    if precision <= 38:
        return pa.decimal128(precision, scale)
    return pa.decimal128(38, max(38 - (precision - scale), min(scale, 6)))


def _decimal(precision: int, scale: int) -> pa.DataType:
    """DECIMAL(precision, scale); beyond Spark's 38 digits (a literal Spark refuses, or a
    decimal256 column) a decimal256 of up to 76, which compares exactly."""
    if precision <= 38:
        return pa.decimal128(precision, scale)
    return pa.decimal256(min(precision, 76), min(scale, 76))


def _wider_integral(a: pa.DataType, b: pa.DataType) -> pa.DataType:
    return max(a, b, key=lambda t: t.bit_width)


def comparison_type(a: pa.DataType, b: pa.DataType, mode: str) -> pa.DataType | None:
    """The type Spark casts both sides of ``a op b`` to in ``mode``, or None if it refuses the
    comparison. Numbers of different widths meet in the wider (DECIMALs exactly); the rest:

    ============================ ======================== ========================
    sides                        ANSI                     legacy
    ============================ ======================== ========================
    string, integral             BIGINT                   the integral type
    string, DECIMAL              DOUBLE                   DOUBLE
    string, FLOAT / DOUBLE       DOUBLE                   the float type
    string, DATE / TIMESTAMP     the date or timestamp    the date or timestamp
    string, BOOLEAN              BOOLEAN                  BOOLEAN
    integral, FLOAT              DOUBLE (FLOAT for 8/16)  FLOAT
    BOOLEAN, number              refused                  the number
    DATE, TIMESTAMP              TIMESTAMP                TIMESTAMP
    DATE or TIMESTAMP, number    refused                  refused
    ============================ ======================== ========================
    """
    a, b = spark_type(a), spark_type(b)
    ka, kb = kind(a), kind(b)
    if ka is None or kb is None:
        return a if a == b else None
    if a == b or kb == "null":
        return a
    if ka == "null":
        return b
    if kb in ("string", "binary") and ka not in ("string", "binary"):
        return comparison_type(b, a, mode)
    numeric = ("integral", "decimal", "float", "double")
    if ka in ("string", "binary"):
        if kb in ("string", "binary"):
            return pa.binary() if "binary" in (ka, kb) else pa.string()
        if ka == "binary":
            return None
        if kb == "integral":
            return pa.int64() if mode == ANSI else b
        if kb == "decimal" or (kb == "float" and mode == ANSI):
            return pa.float64()
        return b  # FLOAT (legacy), DOUBLE, BOOLEAN, DATE, TIMESTAMP
    if ka in numeric and kb in numeric:
        return _numeric_common(a, b, mode)
    if "boolean" in (ka, kb):
        other = b if ka == "boolean" else a
        return other if mode == LEGACY and kind(other) in numeric else None
    temporal = ("date", "timestamp", "timestamp_ntz")
    if ka in temporal and kb in temporal:
        if "timestamp" in (ka, kb):
            return TIMESTAMP
        return TIMESTAMP_NTZ
    return None


def list_type(types: list[pa.DataType], mode: str) -> pa.DataType | None:
    """The type Spark casts ``x IN (e1, e2, ...)`` to: one type for ``x`` and every element, or
    None if it refuses the list. ANSI mode widens as it does for comparisons; legacy mode
    makes a list of strings and other values (not booleans) all strings.

    >>> list_type([pa.int32(), pa.int32(), pa.string()], ANSI)
    DataType(int64)
    >>> list_type([pa.int32(), pa.int32(), pa.string()], LEGACY)
    DataType(string)
    """
    types = [spark_type(t) for t in types]
    if mode == LEGACY:  # strings first, as Spark folds them: (DATE, INT, STRING) is STRING
        types.sort(key=lambda t: kind(t) != "string")
    out = pa.null()
    folded: dict = {}  # (so far, next) -> wider: a long list repeats a few types
    for t in types:
        step = (out, t)
        if step not in folded:
            folded[step] = _wider(out, t, mode)
        out = folded[step]
        if out is None:
            return None
    return out


def _wider(a: pa.DataType, b: pa.DataType, mode: str) -> pa.DataType | None:
    ka, kb = kind(a), kind(b)
    if mode == LEGACY and "null" not in (ka, kb) and ka != kb:
        if "string" in (ka, kb):
            other = kb if ka == "string" else ka
            return None if other in ("binary", "boolean") else pa.string()
        if "boolean" in (ka, kb):
            return None
    return comparison_type(a, b, mode)


def _numeric_common(a: pa.DataType, b: pa.DataType, mode: str) -> pa.DataType:
    ka, kb = kind(a), kind(b)
    if "double" in (ka, kb) or {ka, kb} == {"decimal", "float"}:
        return pa.float64()
    if ka == kb == "integral":
        return _wider_integral(a, b)
    if ka == "float" or kb == "float":
        other = b if ka == "float" else a
        if mode == ANSI and other.bit_width > 16:
            return pa.float64()
        return pa.float32()
    if ka == kb == "decimal":
        scale = max(a.scale, b.scale)
        whole = max(a.precision - a.scale, b.precision - b.scale)
        if max(a.precision, b.precision) > 38:
            return _decimal(whole + scale, scale)  # beyond Spark's DECIMAL: exact
        return _adjusted(whole + scale, scale)
    d, i = (a, b) if ka == "decimal" else (b, a)  # a DECIMAL and an integral
    digits = {8: 3, 16: 5, 32: 10, 64: 20}[i.bit_width]
    return _numeric_common(d, pa.decimal128(digits, 0), mode)


def keeps_order(source: pa.DataType, target: pa.DataType) -> bool:
    """Whether a column cast from ``source`` to ``target`` keeps its order and every value, so
    that its bounds still bound it (a rounding cast such as BIGINT to DOUBLE is monotone:
    bounds stay bounds). A cast to a DECIMAL that cannot hold every value exactly does not
    (past 38 digits Spark cuts a comparison's scale: DECIMAL(38, 37) rounds in DECIMAL(38, 28)).

    >>> keeps_order(pa.int32(), pa.float32()), keeps_order(pa.int32(), pa.string())
    (True, False)
    >>> keeps_order(pa.int32(), pa.decimal128(38, 37))
    False
    """
    ks, kt = kind(spark_type(source)), kind(target)
    if kt == "decimal" and ks != "null":
        return widens_exactly(source, target)
    if ks == kt or ks == "null":
        return True
    numeric = ("integral", "decimal", "float", "double")
    if ks in numeric and kt in numeric:
        return True
    if ks == "boolean" and kt in numeric:
        return True  # FALSE, TRUE as 0, 1
    if ks in ("string", "binary") and kt in ("string", "binary"):
        return True  # the same bytes
    # A DATE as a TIMESTAMP is the start of its day in the session zone, which never goes
    # back; a wall time as an instant keeps its order only where the offset never changes.
    return ks == "date" and kt in ("timestamp", "timestamp_ntz") or (
        ks == "timestamp_ntz" and kt == "timestamp" and is_fixed(session_zone()))


def widens_exactly(source: pa.DataType, target: pa.DataType) -> bool:
    """Whether every value of ``source`` is exactly a value of ``target`` (so a column of
    ``source`` compares in ``target`` as itself).

    >>> widens_exactly(pa.int32(), pa.float64()), widens_exactly(pa.int64(), pa.float64())
    (True, False)
    """
    s, t = spark_type(source), spark_type(target)
    ks, kt = kind(s), kind(t)
    if s == t or ks == "null" or ks == kt and ks in ("string", "binary"):
        return True
    if ks == kt == "integral":
        return t.bit_width >= s.bit_width
    if ks == "boolean" and kt == "decimal":
        return t.precision - t.scale >= 1
    if ks == "integral" and kt == "decimal":
        return t.precision - t.scale >= {8: 3, 16: 5, 32: 10, 64: 19}[s.bit_width]
    if ks == kt == "decimal":
        return t.scale >= s.scale and t.precision - t.scale >= s.precision - s.scale
    if ks == "integral" and kt in ("float", "double"):
        return s.bit_width <= (16 if kt == "float" else 32)
    return (ks, kt) in (("float", "double"), ("date", "timestamp"), ("date", "timestamp_ntz"),
                        ("timestamp_ntz", "timestamp"))


# ---- literal casts --------------------------------------------------------------------
def cast_literal(value: object, source: pa.DataType, target: pa.DataType, mode: str) -> object:
    """``value`` (a literal of Spark type ``source``) cast to ``target`` as Spark does when it
    casts a comparison's literal: the value in prunekit's form, None (NULL), ``FAILS`` (the
    query fails in this mode) or ``UNSURE``.

    >>> cast_literal("1.9", pa.string(), pa.int32(), LEGACY), cast_literal("1.9", pa.string(),
    ...     pa.int64(), ANSI)
    (1, FAILS)
    >>> cast_literal("abc", pa.string(), pa.float64(), LEGACY) is None
    True
    """
    if value is None:
        return None
    ks, kt = kind(source), kind(target)
    if kt == "string" and ks not in ("string", "binary"):
        return _to_text(value, ks)
    if ks in ("string", "binary") and kt not in ("string", "binary"):
        got = from_text(value.decode("utf-8", "replace") if isinstance(value, bytes)
                        else value, target, mode)
        if got is tc.INVALID:
            return FAILS if mode == ANSI else None
        return got
    if ks == "boolean" and kt != "boolean":
        return int(value)  # 0 or 1, in any numeric type
    if kt == "float" and ks != "float" and isinstance(value, (int, decimal.Decimal, Fraction)):

        return round_to_float32(value)
    if kt == "double" and isinstance(value, (int, decimal.Decimal)) and not isinstance(
            value, bool):
        return _to_double(value)
    if kt == "decimal" and isinstance(value, (int, decimal.Decimal)) and not isinstance(
            value, bool):
        # To the comparison's DECIMAL (at most 38 digits): rounded half up to its scale, and
        # beyond it NULL, or a failed query.
        got = _to_decimal(value, target)
        return got if got is not None else FAILS if mode == ANSI else None
    return value


def _to_decimal(value: int | decimal.Decimal, t: pa.DataType) -> decimal.Decimal | None:
    """``value`` as a DECIMAL ``t`` as Spark casts it: rounded half up to the scale; None
    beyond the precision.

    >>> _to_decimal(decimal.Decimal("5E-11"), pa.decimal128(38, 10)), _to_decimal(100,
    ...     pa.decimal128(38, 37))
    (Decimal('1E-10'), None)
    """
    context = decimal.Context(prec=200)
    d = decimal.Decimal(value)
    if not d.is_finite():
        return None
    unit = decimal.Decimal(1).scaleb(-t.scale, context=context)
    q = d.quantize(unit, rounding=decimal.ROUND_HALF_UP, context=context)
    if q != 0 and q.adjusted() >= t.precision - t.scale:
        return None
    return d if q == d else q  # unrounded, the literal as written (explain shows it)


def _to_text(value: object, source_kind: str) -> str | _Marker:
    """A value as Spark writes it as a string (the same text in both modes); UNSURE where
    prunekit does not follow Java's formatting (non-integral doubles, timestamps)."""
    if source_kind == "boolean":
        return "true" if value else "false"
    if source_kind == "integral":
        return str(value)
    if source_kind == "decimal" and isinstance(value, decimal.Decimal):
        return str(value)  # Java's BigDecimal.toString follows the same rules as Python's
    if source_kind in ("float", "double") and isinstance(value, (int, float)) and (
            float(value).is_integer() and abs(value) < 1e7):
        return ("-" if math.copysign(1.0, value) < 0 else "") + f"{abs(int(value))}.0"
    if source_kind == "date" and isinstance(value, dt.date) and 1 <= value.year <= 9999:
        return value.isoformat()
    return UNSURE


def _to_double(value: int | decimal.Decimal) -> float:
    try:
        return float(value)  # correctly rounded from int and Decimal alike
    except OverflowError:
        return math.inf if value > 0 else -math.inf


def from_text(text: str, target: pa.DataType, mode: str) -> object:
    """A string cast to ``target`` in ``mode`` (``text_casts``): the value, or
    ``text_casts.INVALID`` / ``UNSURE``.

    >>> from_text("200", pa.uint8(), LEGACY), from_text("200", pa.int8(), LEGACY)
    (200, INVALID)
    """
    kt = kind(target)
    if kt == "integral":

        got = tc.to_integral(text, 64, ansi=mode == ANSI)
        lo, hi = int_range(target)
        return got if not isinstance(got, int) or lo <= got <= hi else tc.INVALID
    if kt == "double":
        return tc.to_double(text)
    if kt == "float":
        exact = tc.to_real(text)
        if isinstance(exact, Fraction):

            return round_to_float32(exact)
        return exact
    if kt == "boolean":
        return tc.to_boolean(text)
    if kt == "date":
        return tc.to_date(text)
    if kt in ("timestamp", "timestamp_ntz"):
        return tc.to_timestamp(text, ntz=kt == "timestamp_ntz")
    if kt == "decimal":  # an explicit CAST only: comparisons meet DECIMALs in DOUBLE
        return tc.to_decimal(text)
    return UNSURE
