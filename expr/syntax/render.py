"""Spark SQL text for a predicate tree (for ``explain()``, error messages and round-trip tests).

>>> from prunekit.expr.syntax.nodes import col, lit
>>> to_sql(col("it's") == lit("a'b\\\\c"))
"`it's` = 'a\\\\'b\\\\\\\\c'"
>>> to_sql((col("x") > 1) | ~(col("y").between(2, 3)))
'x > 1 OR NOT y BETWEEN 2 AND 3'
"""

from __future__ import annotations

import datetime as dt
import decimal
import math
from dataclasses import dataclass

import pyarrow as pa

from prunekit.errors import UnsupportedError
from prunekit.expr.domains import unscaled_to_decimal
from prunekit.expr.paths import split_leaf_key
from prunekit.expr.spark_types.intervals import Interval
from prunekit.expr.spark_types.zones import is_session_wall
from prunekit.expr.syntax.identifiers import quote_identifier
from prunekit.expr.syntax.node_visitor import NodeVisitor, visit

_INFIX = {"+", "-", "*", "/", "%", "div", "||", "&", "|", "^", "<<", ">>"}  # sql.py's operators



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
    types Spark SQL lacks by their Arrow names (for display) instead of raising."""
    return visit(root, _SparkSql(strict)).text


@dataclass(frozen=True)
class _Text:
    """A node's SQL and how tightly it binds: a child binding more loosely than its parent
    gets parentheses."""

    text: str
    precedence: int
    kind: str


_OR, _AND, _NOT, _PREDICATE, _ATOM = 1, 2, 3, 4, 9


class _SparkSql(NodeVisitor[_Text]):
    def __init__(self, strict: bool) -> None:
        self.strict = strict

    @staticmethod
    def _wrap(child: _Text, parent_precedence: int) -> str:
        return f"({child.text})" if child.precedence < parent_precedence else child.text

    def _predicate(self, node, text: str) -> _Text:
        return _Text(text, _PREDICATE, node.kind)

    def _atom(self, node, text: str) -> _Text:
        return _Text(text, _ATOM, node.kind)

    def visit_column(self, node, results: tuple) -> _Text:
        return self._atom(node, ".".join(quote_identifier(p) for p in node.parts))

    def visit_literal(self, node, results: tuple) -> _Text:
        return self._atom(node, literal_sql(node.value, node.type))

    def _chain(self, node, results: tuple, word: str, precedence: int) -> _Text:
        # A nested chain of the same kind keeps its parentheses: (a AND b) AND c was written so.
        return _Text(word.join(self._wrap(k, precedence + (k.kind == node.kind))
                               for k in results), precedence, node.kind)

    def visit_and(self, node, results: tuple) -> _Text:
        return self._chain(node, results, " AND ", _AND)

    def visit_or(self, node, results: tuple) -> _Text:
        return self._chain(node, results, " OR ", _OR)

    def visit_not(self, node, results: tuple) -> _Text:
        return _Text("NOT " + self._wrap(results[0], 4), _NOT, node.kind)

    def visit_compare(self, node, results: tuple) -> _Text:
        left, right = (self._wrap(k, 5) for k in results)
        return self._predicate(node, f"{left} {node.op.value} {right}")

    def visit_is_null(self, node, results: tuple) -> _Text:
        return self._predicate(node, f"{self._wrap(results[0], 5)} IS NULL")

    def visit_is_bool(self, node, results: tuple) -> _Text:
        word = "TRUE" if node.value else "FALSE"
        return self._predicate(node, f"{self._wrap(results[0], 5)} IS {word}")

    def visit_distinct_from(self, node, results: tuple) -> _Text:
        left, right = (self._wrap(k, 5) for k in results)
        return self._predicate(node, f"{left} IS DISTINCT FROM {right}")

    def visit_in(self, node, results: tuple) -> _Text:
        values = ", ".join(k.text for k in results[1:])
        return self._predicate(node, f"{self._wrap(results[0], 5)} IN ({values})")

    def visit_between(self, node, results: tuple) -> _Text:
        arg, low, high = results
        return self._predicate(node, f"{self._wrap(arg, 5)} BETWEEN {low.text} AND {high.text}")

    def visit_like(self, node, results: tuple) -> _Text:
        esc = "" if node.escape == "\\" else f" ESCAPE {literal_sql(node.escape)}"
        return self._predicate(
            node, f"{self._wrap(results[0], 5)} LIKE {literal_sql(node.pattern)}{esc}")

    def visit_starts_with(self, node, results: tuple) -> _Text:
        return self._atom(node, f"startswith({results[0].text}, {results[1].text})")

    def visit_is_nan(self, node, results: tuple) -> _Text:
        return self._atom(node, f"isnan({results[0].text})")

    def visit_cast(self, node, results: tuple) -> _Text:
        cast = "TRY_CAST" if node.safe else "CAST"
        return self._atom(node, f"{cast}({results[0].text} AS {type_sql(node.to, self.strict)})")

    def visit_neg(self, node, results: tuple) -> _Text:
        # "--x" would start a SQL comment: parenthesise anything but a plain column.
        arg = results[0]
        return self._atom(node, f"-{arg.text}" if arg.kind == "column" else f"-({arg.text})")

    def visit_func(self, node, results: tuple) -> _Text:
        kids = [k.text for k in results]
        if node.name in _INFIX and len(kids) == 2:  # parenthesised: no precedence
            return self._atom(node, f"({kids[0]} {node.name.upper()} {kids[1]})")
        if node.name == "~" and len(kids) == 1:
            return self._atom(node, f"~({kids[0]})")
        return self._atom(node, f"{node.name}({', '.join(kids)})")

    def visit_opaque(self, node, results: tuple) -> _Text:
        # Another dialect's construct has no Spark SQL of the same rows: shown, never written
        # as if Spark read it the same way.
        if self.strict:
            raise UnsupportedError(f"no Spark SQL reads {node.text!r} as written: {node.why}")
        return self._atom(node, f"<{node.why}: {node.text}>")
