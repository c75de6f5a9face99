"""Spark SQL text for a predicate tree (for ``explain()``, error messages and round-trip tests).

>>> from .nodes import col, lit
>>> to_sql(col("it's") == lit("a'b\\\\c"))
"`it's` = 'a\\\\'b\\\\\\\\c'"
>>> to_sql((col("x") > 1) | ~(col("y").between(2, 3)))
'x > 1 OR NOT y BETWEEN 2 AND 3'
"""

from __future__ import annotations

import datetime as dt
import decimal
import math

import pyarrow as pa

from prunekit.errors import UnsupportedError

from .domains import unscaled_to_decimal
from .identifiers import quote_identifier
from .intervals import Interval
from .paths import split_leaf_key
from .zones import is_session_wall

_INFIX = {"+", "-", "*", "/", "%", "div", "||", "&", "|", "^", "<<", ">>"}  # sql.py's operators

# Binding strength: a child binding more loosely than its parent gets parentheses.
_PRECEDENCE = {"Or": 1, "And": 2, "Not": 3}
_ATOM = 9


def key_sql(key: str) -> str:
    """The column reference a statistics key (``expr/paths.py``) stands for, as Spark SQL.

    >>> key_sql("address.city"), key_sql("`a.b`"), key_sql("`a.b`.x y")
    ('address.city', '`a.b`', '`a.b`.`x y`')
    """
    return ".".join(quote_identifier(p) for p in split_leaf_key(key))


def literal_sql(value: object, type: pa.DataType | None = None) -> str:
    """SQL spelling of a Python literal value.

    >>> literal_sql(None), literal_sql(True), literal_sql(2.5), literal_sql(b"\\x00\\xff")
    ('NULL', 'TRUE', 'CAST(2.5 AS DOUBLE)', "X'00FF'")
    """
    if value is None:
        return "NULL"
    if isinstance(value, bool):
        return "TRUE" if value else "FALSE"
    if isinstance(value, int):
        return str(value)
    if isinstance(value, float):
        kind = "FLOAT" if type == pa.float32() else "DOUBLE"  # a FLOAT literal stays FLOAT
        if math.isnan(value):
            return f"CAST('NaN' AS {kind})"
        if math.isinf(value):
            return f"CAST('{'-' if value < 0 else ''}Infinity' AS {kind})"
        return f"CAST({value!r} AS {kind})"
    if isinstance(value, decimal.Decimal):
        # Plain notation: Spark reads 1E+17 as a DOUBLE, 100000000000000000.0 as a DECIMAL.
        if not value.is_finite():
            return f"CAST('{value}' AS DOUBLE)"
        text = format(value, "f")
        if "." in text:
            return text  # DECIMAL of its own digits and scale
        # An integer DECIMAL: Spark's BD suffix keeps DECIMAL(digits, 0) (a ".0" would add a
        # scale, which Spark compares in); past Spark's 38 digits, ".0" still reads as one.
        return text + "BD" if len(text.lstrip("-")) <= 38 else text + ".0"
    if isinstance(value, str):
        return "'" + value.replace("\\", "\\\\").replace("'", "\\'") + "'"
    if isinstance(value, bytes):
        return "X'" + value.hex().upper() + "'"
    if isinstance(value, dt.datetime):
        kind = "TIMESTAMP" if value.tzinfo is not None else "TIMESTAMP_NTZ"
        if value.tzinfo is None or is_session_wall(value.tzinfo):
            text = value.replace(tzinfo=None)  # a wall time, read in Spark's session zone
        elif value.tzinfo is dt.timezone.utc:
            text = value.replace(tzinfo=None)
        else:  # with its offset: a session of another zone reads it as the same instant
            text = value
        return f"{kind} '{text.isoformat(sep=' ')}'"
    if isinstance(value, dt.date):
        return f"DATE '{value.isoformat()}'"
    if isinstance(value, Interval):
        return value.sql()
    raise TypeError(f"cannot render literal {value!r}")


def literal_text(value: object, type: pa.DataType | None = None) -> str:
    """``literal_sql`` for messages and explain(): never fails (``repr`` where a value has
    no SQL spelling).

    >>> literal_text(5), literal_text(complex(1, 2))
    ('5', '(1+2j)')
    """
    try:
        return literal_sql(value, type)
    except Exception:  # only for display
        return repr(value)


def domain_literal_sql(value: object, t: pa.DataType) -> str:
    """SQL for a value in a column's kernel domain (days, unscaled decimals, UTF-8 bytes).

    >>> domain_literal_sql(8766, pa.date32()), domain_literal_sql(5, pa.decimal128(12, 2))
    ("DATE '1994-01-01'", '0.05')
    >>> domain_literal_sql(b"ab", pa.string()), domain_literal_sql(0, pa.timestamp("s"))
    ("'ab'", "TIMESTAMP_NTZ '1970-01-01 00:00:00'")
    """
    if isinstance(value, tuple):
        return "(" + ", ".join(domain_literal_sql(v, t) for v in value) + ")"
    try:
        if pa.types.is_decimal(t):
            return str(unscaled_to_decimal(value, t.scale))
        if pa.types.is_date32(t):
            return literal_sql(dt.date(1970, 1, 1) + dt.timedelta(days=value))
        if pa.types.is_date64(t):
            return literal_sql(dt.date(1970, 1, 1) + dt.timedelta(milliseconds=value))
        if pa.types.is_timestamp(t):
            per_us = {"s": 10**6, "ms": 10**3, "us": 1, "ns": 10**-3}[t.unit]
            when = dt.datetime(1970, 1, 1) + dt.timedelta(microseconds=value * per_us)
            if t.tz:
                when = when.replace(tzinfo=dt.timezone.utc)
            return literal_sql(when)
        if pa.types.is_boolean(t):
            return literal_sql(bool(value))
        if isinstance(value, float) and math.isfinite(value):
            return repr(value)  # readable in explain(); the argument itself is exact
        if isinstance(value, bytes) and (pa.types.is_string(t) or pa.types.is_large_string(t)
                                         or t == pa.string_view()):
            return literal_sql(value.decode("utf-8"))
    except (OverflowError, ValueError, UnicodeDecodeError):
        pass
    return literal_sql(value)


def type_sql(t: pa.DataType, strict: bool = True) -> str:
    """Spark SQL name of an Arrow type, for CAST.

    >>> type_sql(pa.decimal128(10, 2)), type_sql(pa.timestamp("us", tz="UTC"))
    ('DECIMAL(10, 2)', 'TIMESTAMP')
    """
    if pa.types.is_decimal(t):
        return f"DECIMAL({t.precision}, {t.scale})"
    if pa.types.is_timestamp(t) and t.unit == "us":
        return "TIMESTAMP" if t.tz else "TIMESTAMP_NTZ"
    names = {
        pa.int8(): "TINYINT", pa.int16(): "SMALLINT", pa.int32(): "INT", pa.int64(): "BIGINT",
        pa.float32(): "FLOAT", pa.float64(): "DOUBLE", pa.bool_(): "BOOLEAN", pa.string(): "STRING",
        pa.large_string(): "STRING", pa.binary(): "BINARY", pa.date32(): "DATE",
        pa.date64(): "DATE",
    }
    if t not in names and not strict:
        return str(t)
    if t not in names:
        raise UnsupportedError(f"Spark SQL has no type for {t} (unsigned integers and timestamps "
                               "in other units than microseconds have none)")
    return names[t]


def to_sql(root: object, strict: bool = True) -> str:
    """Render a tree as Spark SQL, iteratively (deep trees are fine). ``strict=False`` names
    types Spark SQL lacks by their Arrow names (for display) instead of raising.

    Nodes are told apart by their class name (as sqlglot's generator does by key), so this
    module does not import ``nodes``, whose ``sql()`` calls it."""

    def wrap(child_text: str, child: object, parent_prec: int) -> str:
        prec = _PRECEDENCE.get(_kind(child), _ATOM if _kind(child) not in _PREDICATES else 4)
        return f"({child_text})" if prec < parent_prec else child_text

    def render(node: object, kids: tuple[str, ...]) -> str:
        c, kind = node.children(), _kind(node)
        if kind == "Column":
            return ".".join(quote_identifier(p) for p in node.parts)
        if kind == "Literal":
            return literal_sql(node.value, node.type)
        if kind in ("And", "Or"):
            word = " AND " if kind == "And" else " OR "
            p = _PRECEDENCE[kind]
            return word.join(wrap(k, ch, p + 1 if _kind(ch) == kind else p)
                             for k, ch in zip(kids, c, strict=True))
        if kind == "Not":
            return "NOT " + wrap(kids[0], c[0], 4)
        if kind == "Compare":
            return f"{wrap(kids[0], c[0], 5)} {node.op.value} {wrap(kids[1], c[1], 5)}"
        if kind == "IsNull":
            return f"{wrap(kids[0], c[0], 5)} IS NULL"
        if kind == "IsBool":
            return f"{wrap(kids[0], c[0], 5)} IS {'TRUE' if node.value else 'FALSE'}"
        if kind == "DistinctFrom":
            return f"{wrap(kids[0], c[0], 5)} IS DISTINCT FROM {wrap(kids[1], c[1], 5)}"
        if kind == "In":
            return f"{wrap(kids[0], c[0], 5)} IN ({', '.join(kids[1:])})"
        if kind == "Between":
            return f"{wrap(kids[0], c[0], 5)} BETWEEN {kids[1]} AND {kids[2]}"
        if kind == "Like":
            esc = "" if node.escape == "\\" else f" ESCAPE {literal_sql(node.escape)}"
            return f"{wrap(kids[0], c[0], 5)} LIKE {literal_sql(node.pattern)}{esc}"
        if kind == "StartsWith":
            return f"startswith({kids[0]}, {kids[1]})"
        if kind == "IsNan":
            return f"isnan({kids[0]})"
        if kind == "Cast":
            cast = "TRY_CAST" if node.safe else "CAST"
            return f"{cast}({kids[0]} AS {type_sql(node.to, strict)})"
        if kind == "Neg":
            # "--x" would start a SQL comment: parenthesise anything but a plain column.
            return f"-{kids[0]}" if _kind(c[0]) == "Column" else f"-({kids[0]})"
        if kind == "Func" and node.name in _INFIX and len(kids) == 2:
            return f"({kids[0]} {node.name.upper()} {kids[1]})"  # parenthesised: no precedence
        if kind == "Func" and node.name == "~" and len(kids) == 1:
            return f"~({kids[0]})"
        if kind == "Func":
            return f"{node.name}({', '.join(kids)})"
        raise TypeError(f"cannot render {kind}")

    return root.fold(render)


def _kind(node: object) -> str:
    return type(node).__name__


_PREDICATES = {"Compare", "IsNull", "IsBool", "DistinctFrom", "In", "Between", "Like"}
