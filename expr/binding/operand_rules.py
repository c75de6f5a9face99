"""What a bound operand means outside a comparison: used where a boolean is expected
(``as_predicate``), its ``IS NULL``, what kind of value it is, and a column seen through a
``CAST`` (``cast_column``). Bind and the function rules share these.

>>> import pyarrow as pa
>>> x = ColOp(b.BColumn("x", pa.int32(), pa.int32(), "int"))
>>> is_null(x), cast_column(x.col, pa.int64())
(BIsNull(col=x), x)
"""

from __future__ import annotations

import pyarrow as pa

from prunekit.errors import TypeMismatchError
from prunekit.expr.binding import bound as b
from prunekit.expr.binding.applied import Applied
from prunekit.expr.binding.operands import ColOp, LitOp, OpaqueOp, operand_label, shown_literal
from prunekit.expr.binding.quotient import Quotient
from prunekit.expr.domains import domain_of, int_range, is_stringlike, is_text
from prunekit.expr.paths import leaf_key, split_leaf_key
from prunekit.expr.resolve import walk_leaves
from prunekit.expr.spark_types import coercion as C

# Where Spark casts a value to BOOLEAN in a boolean position, by the value's kind: the modes
# that do (read off Spark 4.3). A filter and a CASE condition take BOOLEAN only.
_CAST_TO_BOOLEAN = {
    ("logic", "string"): "ANSI",  # NOT s, s AND p, s OR p
    ("is", "string"): "ANSI and legacy",  # s IS TRUE
    ("is", "numeric"): "legacy",  # x IS NOT FALSE
}


def as_predicate(x: object, where: str = "filter") -> object:
    """An operand used where a boolean is expected: a BOOLEAN column is ``col = TRUE``; a value
    is an error unless Spark casts it to BOOLEAN there (``_CAST_TO_BOOLEAN``), which makes an
    unknown leaf. ``where``: ``"filter"`` (the predicate itself), ``"logic"`` (under NOT, AND,
    OR), ``"is"`` (``IS [NOT] TRUE/FALSE``) or ``"case"`` (a CASE condition).

    >>> as_predicate(ColOp(b.BColumn("f", pa.bool_(), pa.bool_(), "bool")))
    BInRange(col=f, first=1, last=1)
    >>> as_predicate(ColOp(b.BColumn("x", pa.int32(), pa.int32(), "int")))
    Traceback (most recent call last):
    ...
    prunekit.errors.TypeMismatchError: not a boolean predicate: column x of type int32
    """
    kind = kind_of(x)
    if kind not in ("boolean", None):
        modes = _CAST_TO_BOOLEAN.get((where, kind))
        shown = shown_operand(x)
        if modes is None:
            raise TypeMismatchError(f"not a boolean predicate: {shown}")
        return b.BOpaque(f"{shown} is cast to BOOLEAN (Spark, {modes} mode)")
    if isinstance(x, Applied):
        return x.as_predicate()
    if isinstance(x, ColOp):
        if not x.negated and not x.col.convert:
            return b.BInRange(x.col, 1, 1)
        return b.BOpaque(f"{x.col.label()} as a boolean")
    if isinstance(x, LitOp):
        return b.BConst(x.value)
    if isinstance(x, OpaqueOp):
        return b.BOpaque(x.why)
    return x


def kind_of(x: object) -> str | None:
    """What kind of value an operand is (``spark_functions`` kinds); a bound predicate is a
    boolean.

    >>> x = ColOp(b.BColumn("x", pa.int32(), pa.int32(), "int"))
    >>> kind_of(x), kind_of(LitOp("a")), kind_of(LitOp(None)), kind_of(b.BConst(True))
    ('numeric', 'string', 'boolean', 'boolean')
    """
    if isinstance(x, ColOp):
        return "numeric" if x.negated else value_kind(x.col.type)
    if isinstance(x, LitOp):  # NULL is a boolean as well as anything else
        return "boolean" if x.value is None else value_kind(C.literal_type(x.value, x.type))
    if isinstance(x, Quotient):
        return "numeric"
    if isinstance(x, OpaqueOp):
        return x.kind
    if isinstance(x, Applied):
        t = getattr(x, "type", None)
        return None if t is None else value_kind(t)
    return "boolean"


def value_kind(t: pa.DataType) -> str:
    """The kind of a value of Arrow type ``t``: boolean, string, numeric or other.

    >>> value_kind(pa.int8()), value_kind(pa.date32()), value_kind(pa.null())
    ('numeric', 'other', 'boolean')
    """
    k = C.kind(t)
    if k in ("boolean", "string"):
        return k
    if k == "null":
        return "boolean"  # NULL is a boolean as well as anything else
    return "numeric" if k in ("integral", "decimal", "float", "double") else "other"


def shown_operand(x: object) -> str:
    """An operand as a type error names it, with its type.

    >>> x = b.BColumn("x", pa.int32(), pa.int32(), "int")
    >>> shown_operand(ColOp(x)), shown_operand(ColOp(x, negated=True))
    ('column x of type int32', '-x is a numeric value (int32)')
    """
    if isinstance(x, ColOp) and not x.negated and isinstance(x.col, b.BColumn) and \
            not x.col.convert:
        return f"column {operand_label(x)} of type {x.col.type}"
    if isinstance(x, ColOp):
        return f"{operand_label(x)} is a {kind_of(x)} value ({x.col.type})"
    if isinstance(x, LitOp):
        return f"literal {shown_literal(x)}"
    if isinstance(x, OpaqueOp) and x.text:
        return f"{x.text} is a {x.kind} value"
    return getattr(x, "why", None) or operand_label(x)


def is_null(x: object) -> object:
    """``x IS NULL`` for a bound operand or predicate.

    >>> is_null(LitOp(None)), is_null(LitOp(1))
    (BConst(value=True), BConst(value=False))
    """
    if isinstance(x, ColOp) and pa.types.is_struct(x.col.type):
        return _struct_is_null(x.col)
    if isinstance(x, Applied):
        return x.is_null()
    if isinstance(x, ColOp):
        return b.BIsNull(x.col)
    if isinstance(x, Quotient):  # a non-zero finite divisor: NULL exactly when x is
        return b.BIsNull(x.inner)
    if isinstance(x, LitOp):
        return b.BConst(x.value is None)
    if isinstance(x, OpaqueOp):
        return b.BOpaque(x.why)
    # A predicate is NULL exactly when its value may be NULL: TRUE/FALSE rows give FALSE.
    return b.BAnd((b.BNot(b.BIsBool(x, True)), b.BNot(b.BIsBool(x, False))))


def _struct_is_null(col: b.BColumn) -> object:
    """``s IS NULL`` for a struct: statistics are per leaf, and a NULL struct makes every leaf
    NULL (Parquet and Delta null counts count those rows), so one leaf without NULLs proves
    ``s`` is never NULL. Nothing proves it NULL (all-NULL leaves fit a non-NULL struct): the
    AND's last term may be TRUE or FALSE, never NULL, as ``s IS NULL`` itself."""
    found = [b.BIsNull(b.BColumn(leaf_key(p), t, t, domain_of(t) or "none"))
             for p, t in walk_leaves(split_leaf_key(col.name), col.type)]
    unknown = b.BIsBool(b.BOpaque(f"{col.sql()} IS NULL: leaf statistics cannot prove a "
                                 "struct NULL"), True)
    return b.BAnd((*found, unknown))


def cast_column(col: b.BColumn, to: pa.DataType) -> b.BColumn | None:
    """The column seen through ``CAST(col AS to)`` if that cast preserves order, else None.

    Value-preserving casts (integer widening, float32 to float64, decimal scale-up, int to a
    wide-enough decimal, string kinds) compare exactly like the column itself; rounding ones
    (integer to DOUBLE, timestamp to DATE) are monotone maps the kernel applies to bounds.

    >>> x = b.BColumn("x", pa.int32(), pa.int32(), "int")
    >>> cast_column(x, pa.int8()) is None, cast_column(x, pa.float64()).convert
    (True, ('tofloat',))
    """
    s = col.type
    if s == to or (is_stringlike(s) and is_stringlike(to) and is_text(s) == is_text(to)):
        return col  # string, large_string and string_view are one order (and so for binary)
    same = b.BColumn(col.name, col.stats_type, s, col.domain)
    if pa.types.is_integer(s) and pa.types.is_integer(to):
        lo, hi = int_range(s)
        lo2, hi2 = int_range(to)
        if not (lo2 <= lo and hi <= hi2):
            return None
        # The values are the column's own; the type is the target's, which arithmetic on the
        # cast (CAST(x AS BIGINT) * 1000) overflows at.
        return same if col.domain != "int" else b.BColumn(col.name, col.stats_type, to, "int")
    if pa.types.is_integer(s) and pa.types.is_decimal(to):
        lo, hi = int_range(s)
        return same if max(-lo, hi) < 10 ** (to.precision - to.scale) else None
    if pa.types.is_decimal(s) and pa.types.is_decimal(to):
        grows = to.scale >= s.scale and to.precision - to.scale >= s.precision - s.scale
        return same if grows else None
    if pa.types.is_float32(s) and pa.types.is_float64(to):
        return same
    if pa.types.is_integer(s) and pa.types.is_floating(to) and col.domain in ("int", "uint"):
        # Through the float conversion even where every value is representable: a literal is
        # then placed as Spark compares it, in the float type (a DECIMAL -127.99...9 rounds to
        # DOUBLE -128.0, which an int8 -128 equals), not exactly against the integers.
        kind = "tofloat" if pa.types.is_float64(to) else "tofloat32"
        return b.BColumn(col.name, col.stats_type, to, "float", (kind,))
    if pa.types.is_timestamp(s) and pa.types.is_date32(to) and col.domain == "int":
        per_day = 86_400 * {"s": 1, "ms": 10**3, "us": 10**6, "ns": 10**9}[s.unit]
        return b.BColumn(col.name, col.stats_type, pa.date32(), "int", ("floordiv", per_day))
    if pa.types.is_date(s) and (pa.types.is_date(to) or pa.types.is_timestamp(to)):
        # A date as a timestamp is the start of its day in the session zone, which is exactly
        # how a timestamp literal is placed against a date column (literals.coerce): compare
        # the date itself.
        return same
    return None
