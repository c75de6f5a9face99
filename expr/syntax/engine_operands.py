"""The operands of another dialect's predicate as the engine rules see them: which columns a
literal meets (``partners_of``) and their types by the schema (``kind_of``: the type's name,
``family_of``: integer, double, decimal, string, date...), the shapes of number and time
literals (``is_whole_number``, ``WALL_TIME``), and the unknown part a rewrite leaves in a tree
(``unknown_part``: a boolean the engine computes otherwise, beside Spark's reading of the
rest). Shared by ``engine_literals`` (the rewrites) and ``portability`` (the checks).
"""

from __future__ import annotations

import datetime
import decimal
import re
import struct
from collections.abc import Mapping

from sqlglot import exp

from prunekit.expr.spark_types.engines import Engine

# The comparisons, and those an engine's IN-list rules meet (equalities and lists).
COMPARISONS = (exp.EQ, exp.NEQ, exp.GT, exp.GTE, exp.LT, exp.LTE)
EQUALITIES = (exp.EQ, exp.NEQ, exp.In, exp.NullSafeEQ, exp.NullSafeNEQ)


# ---- columns and their types ------------------------------------------------------------------
def partners_of(x: exp.Expression) -> list[exp.Column | exp.Cast]:
    """The columns ``x`` (a literal, maybe negated or in an IN list) is compared with, or
    casts of columns (``kind_of`` gives the type cast to).

    >>> import sqlglot
    >>> lit = sqlglot.parse_one("x IN (1, -2) AND y > 3").find(sqlglot.exp.Literal)
    >>> [c.sql() for c in partners_of(lit)]
    ['x']
    """
    parent = x.parent
    while isinstance(parent, (exp.Neg, exp.Paren, exp.Tuple)):
        parent = parent.parent
    out = []
    for side in parent.iter_expressions() if parent is not None else ():
        while isinstance(side, (exp.Neg, exp.Paren, exp.TimestampTrunc)):  # of the same type
            side = side.this
        if isinstance(side, exp.Column) or (
                isinstance(side, exp.Cast) and isinstance(side.this, exp.Column)):
            out.append(side)
    return out


# The type a cast of a column gives, by the name kind_of gives a column of that type (Spark's
# TIMESTAMP keeps microseconds).
_CAST_KINDS = {exp.DataType.Type.DATE: "date32[day]", exp.DataType.Type.TIMESTAMP: "timestamp[us]",
               exp.DataType.Type.DOUBLE: "double", exp.DataType.Type.BIGINT: "int64",
               exp.DataType.Type.FLOAT: "float"}


def kind_of(col: exp.Column | exp.Cast, types: Mapping[str, object] | None) -> str | None:
    """A column's type by ``types`` (lower-case name to a type) as lower-case text (Arrow's
    ``str()``), or the type a cast of a column gives; None where unknown (a qualified name).

    >>> import pyarrow as pa, sqlglot
    >>> kind_of(sqlglot.parse_one("X"), {"x": pa.decimal128(9, 2)})
    'decimal128(9, 2)'
    """
    if isinstance(col, exp.Cast):
        return _CAST_KINDS.get(col.to.this)
    if types is None or col.table:
        return None
    t = types.get(col.name.lower())
    return None if t is None else str(t).lower()


# Type names (Arrow's, as str() gives them, and SQL's) by the family the engine table speaks of.
_FAMILIES = {**dict.fromkeys(("int8", "int16", "int32", "int64", "tinyint", "smallint", "int",
                              "integer", "bigint", "long"), "integer"),
             **dict.fromkeys(("double", "float64"), "double"),
             **dict.fromkeys(("string", "large_string", "string_view", "utf8", "large_utf8"),
                             "string"),
             **dict.fromkeys(("date32[day]", "date"), "date")}


def family_of(x: exp.Expression, types: Mapping[str, object] | None) -> str | None:
    """"integer" (signed), "double", "string" or "date" for a column of that type, else None.

    >>> import sqlglot
    >>> family_of(sqlglot.parse_one("n"), {"n": "int32"}), family_of(sqlglot.parse_one("1"), {})
    ('integer', None)
    """
    if not isinstance(x, exp.Column):
        return None
    return _FAMILIES.get(kind_of(x, types) or "")


# Type names as ``kind_of`` gives them.
DECIMAL = re.compile(r"decimal(?:32|64|128|256)?\((\d+),\s*(\d+)\)")
INTEGER_KINDS = {"int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64"}
# SQL's integer types (a whole number cast to one is that number, or a failed query).
INTEGER_TYPES = (exp.DataType.Type.BIGINT, exp.DataType.Type.INT, exp.DataType.Type.SMALLINT,
                 exp.DataType.Type.TINYINT)
# Their bits, signed.
INTEGER_BITS = dict(zip(INTEGER_TYPES, (64, 32, 16, 8), strict=True))


def integer_digits(bits: int) -> int:
    """How many digits before the point a DECIMAL may have for its every value, truncated, to
    fit a signed integer of ``bits`` (``integer_digits(32)`` is 9: 999999999 fits)."""
    return len(str(2 ** (bits - 1))) - 1
WALL_OR_UTC = re.compile(r"timestamp\[(s|ms|us|ns)(, tz=(utc|etc/utc|\+00:00|z))?\]")
FRACTION_DIGITS = {"s": 0, "ms": 3, "us": 6, "ns": 9}


def decimal_kind(col: exp.Column | exp.Cast, types: Mapping[str, object] | None
                 ) -> re.Match | None:
    """The match of ``DECIMAL`` (precision and scale, as groups 1 and 2) where ``col`` is a
    DECIMAL column by ``types``, else None.

    >>> import sqlglot
    >>> decimal_kind(sqlglot.parse_one("p"), {"p": "decimal128(9, 2)"}).groups()
    ('9', '2')
    """
    return DECIMAL.fullmatch(kind_of(col, types) or "")


def timestamp_unit(kind: str | None, reads: Engine) -> str | None:
    """The unit of a TIMESTAMP column of type ``kind`` whose values the engine compares with a
    wall-time literal as Spark does in UTC, else None: without a zone, in UTC where
    ``Engine.utc_timestamps``, in nanoseconds where ``Engine.timestamp_literals_cast``.

    >>> from prunekit.expr.spark_types.engines import engine
    >>> timestamp_unit("timestamp[ms, tz=utc]", engine("datafusion")), \\
    ...     timestamp_unit("timestamp[ms, tz=utc]", engine("duckdb"))
    ('ms', None)
    """
    m = WALL_OR_UTC.fullmatch(kind or "")
    if m is None or (m[2] and not reads.utc_timestamps) or (
            m[1] == "ns" and not reads.timestamp_literals_cast):
        return None
    return m[1]


def no_negative_zero(x: exp.In, types: Mapping[str, object] | None) -> bool:
    """An operand that is never -0.0 (``never_negative_zero``) in a list none of whose items
    may be one (``zero_sign``: whole numbers, ``-0`` too, NULL, DOUBLEs but -0.0), or a
    DECIMAL column itself (the engine compares its list as DECIMALs): no -0.0 on either side.

    >>> import sqlglot
    >>> no_negative_zero(sqlglot.parse_one("x IN (0, 1.5)"), {"x": "int64"}), \\
    ...     no_negative_zero(sqlglot.parse_one("x IN (-0.0, 1.5)"), {"x": "int64"})
    (True, False)
    >>> no_negative_zero(sqlglot.parse_one("CAST(f AS BIGINT) IN (0.0, 1.5)"), {"f": "double"})
    True
    """
    decimal_column = isinstance(x.this, exp.Column) and DECIMAL.fullmatch(
        kind_of(x.this, types) or "") is not None
    return (never_negative_zero(x.this, types) and all(
        zero_sign(i) in ("+", "") for i in x.expressions)) or decimal_column


def never_negative_zero(operand: exp.Expression, types: Mapping[str, object] | None) -> bool:
    """An integer or DECIMAL column, or a number column's cast to an integer type, or a cast
    of one of those to DOUBLE (a DECIMAL's zero is 0.0 there): never -0.0.

    >>> import sqlglot
    >>> [never_negative_zero(sqlglot.parse_one(t), {"x": "int64", "f": "double"})
    ...  for t in ("x", "CAST(CAST(f AS INT) AS DOUBLE)", "f", "CAST(x AS DOUBLE) + 0")]
    [True, True, False, False]
    """
    if isinstance(operand, exp.Cast) and operand.to.this in (exp.DataType.Type.DOUBLE,
                                                             exp.DataType.Type.FLOAT):
        operand = operand.this  # an integer's or a DECIMAL's cast: never -0.0 either
    if isinstance(operand, exp.Cast):
        return operand.to.this in INTEGER_TYPES and isinstance(operand.this, exp.Column)
    kind = (kind_of(operand, types) or "") if isinstance(operand, exp.Column) else ""
    return kind in INTEGER_KINDS or DECIMAL.fullmatch(kind) is not None


def negative_zero(x: exp.Expression) -> bool:
    """A constant DataFusion folds to a float's -0.0 (``zero_sign``): ``-0.0``, ``-0e0``,
    ``CAST('-0' AS DOUBLE)``, ``-CAST(0 AS DOUBLE)``; not ``-0`` nor ``CAST(-0 AS DOUBLE)``,
    whose 0 is an integer's, which has no sign.

    >>> import sqlglot
    >>> [negative_zero(sqlglot.parse_one(t)) for t in ("-0.0", "-0", "CAST(-0 AS DOUBLE)")]
    [True, False, False]
    """
    return zero_sign(x) == "-"


_FLOAT_TYPES = (exp.DataType.Type.DOUBLE, exp.DataType.Type.FLOAT)


def zero_sign(x: exp.Expression) -> str | None:
    """Of a constant made of literals, minus signs and casts: ``-`` where DataFusion folds it
    to a float's -0.0, ``+`` where to 0.0, and ``""`` where to no float zero (an integer's or
    DECIMAL's 0, which has no sign, or no zero at all: another number, NULL, a string); None
    for anything else (arithmetic, a function, a column), which may be either zero. A number
    with a point or an exponent is a DOUBLE there, a whole number an integer: ``-0`` is 0,
    and ``CAST(-0 AS DOUBLE)`` 0.0.

    >>> import sqlglot
    >>> [zero_sign(sqlglot.parse_one(t)) for t in (
    ...     "-0.0", "-0", "CAST(-0 AS DOUBLE)", "-CAST(0 AS DOUBLE)", "CAST('-0' AS DOUBLE)",
    ...     "CAST(-0.0 AS DECIMAL(3, 1))", "1 - 1", "NULL")]
    ['-', '', '+', '-', '-', '', None, '']
    """
    x = x.unnest()
    if isinstance(x, exp.Null):
        return ""
    if isinstance(x, exp.Literal):
        if x.is_string or not is_zero(x):
            return ""
        return "+" if any(c in x.this.lower() for c in ".e") else ""
    if isinstance(x, exp.Neg):
        inner = zero_sign(x.this)
        return {"+": "-", "-": "+"}.get(inner, inner) if inner is not None else None
    if not isinstance(x, exp.Cast):
        return None
    inner = x.this.unnest()
    if x.to.this not in _FLOAT_TYPES:
        return None if zero_sign(inner) is None or x.to.this not in (
            *INTEGER_TYPES, exp.DataType.Type.DECIMAL) else ""
    if not is_zero(x):
        return ""
    if isinstance(inner, exp.Literal) and inner.is_string:
        return "-" if inner.this.strip().startswith("-") else "+"
    sign = zero_sign(inner)
    if sign == "" and not is_zero(inner):
        return None  # (a number a FLOAT rounds to a zero of its sign: CAST(-1e-50 AS REAL))
    return "+" if sign == "" else sign


# ---- literals ---------------------------------------------------------------------------------
# 'yyyy-mm-dd[ hh:mm:ss[.ffffff]]'
WALL_TIME = re.compile(r"\d{4}-\d{2}-\d{2}( \d{2}:\d{2}:\d{2}(\.\d{1,6})?)?")


def is_whole_number(x: exp.Expression, nonzero: bool = False) -> bool:
    """A literal whole number within BIGINT (a negated one too, down to BIGINT's least);
    ``nonzero``: not 0.

    >>> import sqlglot
    >>> is_whole_number(sqlglot.parse_one("-5")), is_whole_number(sqlglot.parse_one("1.0"))
    (True, False)
    >>> [is_whole_number(sqlglot.parse_one(f"{sign}9223372036854775808")) for sign in "-+"]
    [True, False]
    """
    negated = isinstance(x, exp.Neg)
    if negated:
        x = x.this
    if not isinstance(x, exp.Literal) or x.is_string or not x.this.isdigit():
        return False
    return int(x.this) < 2**63 + negated and not (nonzero and int(x.this) == 0)


# ``a op b`` is ``b op' a``, and ``-x op c`` is ``x op' -c``: op' by op.
FLIPPED = {exp.EQ: exp.EQ, exp.NEQ: exp.NEQ, exp.LT: exp.GT, exp.LTE: exp.GTE, exp.GT: exp.LT,
           exp.GTE: exp.LTE, exp.NullSafeEQ: exp.NullSafeEQ, exp.NullSafeNEQ: exp.NullSafeNEQ}


def number_value(x: exp.Expression) -> decimal.Decimal | None:
    """A number literal's value, maybe negated or parenthesized (``-(1.50)``); None for
    anything else.

    >>> import sqlglot
    >>> number_value(sqlglot.parse_one("-(1.50)")), number_value(sqlglot.parse_one("'1'"))
    (Decimal('-1.50'), None)
    """
    sign, x = 1, x.unnest()
    while isinstance(x, exp.Neg):
        sign, x = -sign, x.this.unnest()
    if not isinstance(x, exp.Literal) or x.is_string:
        return None
    try:
        return sign * decimal.Decimal(x.this)
    except decimal.InvalidOperation:
        return None


def is_zero(x: exp.Expression) -> bool:
    """A number literal equal to 0 as a DOUBLE (``-0.0`` too, ``1e-400``, which rounds to
    0.0, and a cast of one, of a string too: ``CAST('-0' AS DOUBLE)``; cast to FLOAT, one that
    rounds to its 0: ``CAST(1e-50 AS REAL)``).

    >>> import sqlglot
    >>> is_zero(sqlglot.parse_one("-0.0")), is_zero(sqlglot.parse_one("'0'"))
    (True, False)
    >>> is_zero(sqlglot.parse_one("-1e-400"))
    True
    >>> is_zero(sqlglot.parse_one("CAST('-0' AS DOUBLE)"))
    True
    """
    cast, real = False, False
    while isinstance(x, (exp.Neg, exp.Paren, exp.Cast)):
        cast |= isinstance(x, exp.Cast)
        real |= isinstance(x, exp.Cast) and x.to.this == exp.DataType.Type.FLOAT
        x = x.this
    if not isinstance(x, exp.Literal) or (x.is_string and not cast):
        return False
    try:
        value = float(x.this.strip())
    except ValueError:
        return False
    return value == 0 or (real and abs(value) <= 2.0**-150)  # (a FLOAT's zero: 1e-50 too)


def is_day(text: str) -> bool:
    """``yyyy-mm-dd``, a day of years 1-9999.

    >>> is_day("2024-02-29"), is_day("2023-02-29"), is_day("2024-1-1")
    (True, False, False)
    """
    try:
        return len(text) == 10 and datetime.date.fromisoformat(text) is not None
    except ValueError:
        return False


def beyond_unsigned_bigint(lit: exp.Literal) -> bool:
    """Whether a whole number (maybe negated) is below BIGINT's least or above unsigned
    BIGINT's greatest: a DOUBLE in DataFusion (-9223372036854775809 too).

    >>> import sqlglot
    >>> [beyond_unsigned_bigint(sqlglot.parse_one(t).find(sqlglot.exp.Literal))
    ...  for t in ("18446744073709551615", "18446744073709551616", "-9223372036854775809")]
    [False, True, True]
    """
    signed = -int(lit.this) if isinstance(lit.parent, exp.Neg) else int(lit.this)
    return not -(2**63) <= signed < 2**64


def fits_float(value: int) -> bool:
    """Whether a FLOAT (32 bits) holds the whole number ``value`` exactly.

    >>> fits_float(2**24), fits_float(2**24 + 1), fits_float(2**63)
    (True, False, True)
    """
    try:
        return struct.unpack("f", struct.pack("f", value))[0] == value
    except OverflowError:  # beyond FLOAT's range
        return False


def in_arithmetic(x: exp.Expression) -> bool:
    """Whether ``x`` (maybe negated or parenthesized) is an operand of ``+ - *``.

    >>> import sqlglot
    >>> in_arithmetic(sqlglot.parse_one("x + (-1) > y").find(sqlglot.exp.Literal))
    True
    """
    while isinstance(x.parent, (exp.Neg, exp.Paren)):
        x = x.parent
    return isinstance(x.parent, (exp.Add, exp.Sub, exp.Mul))


# ---- the unknown part a rewrite leaves --------------------------------------------------------
_UNKNOWN_PART = "__prunekit_unknown_part"


def unknown_part(why: str, shown: exp.Expression) -> exp.Expression:
    """A boolean the engine computes otherwise than Spark, in a rewrite that reads the rest of
    a construct as Spark does: an unknown leaf saying ``why``, shown as ``shown`` (the
    construct as written) in ``explain()``. It is read as NULL where the construct is NULL
    for its operand's NULL (``dialects.null_making_columns``), which holds as each rewrite
    uses it: in the construct's place, or under AND with a comparison of its operand.

    >>> import sqlglot
    >>> part = unknown_part("the sign of zero", sqlglot.parse_one("f IN (0.0, 1.5)"))
    >>> is_unknown_part(part), inside_unknown_part(part.expressions[1].this)
    (True, True)
    """
    return exp.Anonymous(this=_UNKNOWN_PART, expressions=[exp.Literal.string(why),
                                                          shown.copy()])


def is_unknown_part(x: exp.Expression) -> bool:
    """Whether ``x`` is an ``unknown_part``."""
    return isinstance(x, exp.Anonymous) and x.name == _UNKNOWN_PART


def inside_unknown_part(x: exp.Expression) -> bool:
    """Whether ``x`` lies within an ``unknown_part`` (its text, not read)."""
    while x.parent is not None:
        x = x.parent
        if is_unknown_part(x):
            return True
    return False


# ---- a cast the engine computes otherwise, as a function prunekit binds -----------------------
ARROW_DOUBLE = "__prunekit_arrow_double"  # binding/functions/rounding.py: arrow_to_double
ARROW_DECIMAL = "__prunekit_arrow_decimal"  # and arrow_to_decimal
ARROW_BIGINT = "__prunekit_arrow_bigint"  # and arrow_to_bigint


def is_arrow_double(x: exp.Expression) -> bool:
    """Whether ``x`` is the call ``engine_literals.arrow_decimal_doubles`` writes for Arrow's
    cast of a DECIMAL column to DOUBLE.

    >>> import sqlglot
    >>> is_arrow_double(sqlglot.parse_one("__prunekit_arrow_double(d)"))
    True
    """
    return isinstance(x, exp.Anonymous) and x.name.lower() == ARROW_DOUBLE


def is_arrow_cast(x: exp.Expression, *names: str) -> bool:
    """Whether ``x`` is a call written for one of Arrow's casts (to DOUBLE or BIGINT, or
    ``engine_lists``' cast of a DOUBLE column to DECIMAL); ``names``: one of these only.

    >>> import sqlglot
    >>> is_arrow_cast(sqlglot.parse_one("__prunekit_arrow_decimal(g, 31, 15)"))
    True
    >>> is_arrow_cast(sqlglot.parse_one("__prunekit_arrow_double(d)"), ARROW_BIGINT)
    False
    """
    return isinstance(x, exp.Anonymous) and x.name.lower() in (
        names or (ARROW_DOUBLE, ARROW_DECIMAL, ARROW_BIGINT))


# The mark (in a sqlglot node's ``meta``) of a literal a rewrite wrote as Spark must read it,
# which later rewrites leave as it is, and of an IN list compared as DECIMALs there.
EXACT = "prunekit_exact"
