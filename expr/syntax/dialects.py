"""SQL from other engines: what a predicate written in another dialect may contain so that its
rows are the ones Spark's semantics give, and Spark's double-quote pitfall.

prunekit's rules are Spark's. Text in another dialect is parsed by sqlglot with that dialect
(so its identifier quoting and case rules apply: ``"l_shipmode"`` is a column in DuckDB,
PostgreSQL, Trino and Snowflake, a string in Spark and BigQuery) and then accepted only where
every construct means the same in both. Where the dialects part ways, the construct is refused
with an error naming it rather than read as Spark would read it:

================  ======================================================================
construct          why other dialects differ
================  ======================================================================
``/``, ``%``       integer division in PostgreSQL, Trino, DuckDB's ``//``; Spark divides in DOUBLE
string literals    against a non-string column: each dialect coerces its own way; ordered
                   (``<``) against a string column: collations (PostgreSQL's locale order)
number exponents   ``1e3`` is DOUBLE in Spark, NUMERIC in PostgreSQL
floats             Trino and BigQuery compare NaN as IEEE does (never equal, never greater);
                   Spark, DuckDB, PostgreSQL and Snowflake put NaN above every number
functions, casts   names, argument types and time zones differ; only ``CAST('...' AS DATE)``
                   and ``DATE '...'`` are read
LIKE, ILIKE        escapes and case rules differ
================  ======================================================================

What is accepted everywhere: columns (struct fields too), numbers without an exponent, ``DATE``
literals, ``TRUE``/``FALSE``/``NULL``, a string compared by ``=``, ``<>`` or ``IN`` with a
string column, ``= <> < <= > >=``, ``AND``, ``OR``, ``NOT``, ``IN``, ``BETWEEN``, ``IS [NOT]
NULL``, unary minus. Identifier case: names resolve as Spark's do (exact, else the one
case-insensitive match), which is what a quoted name in PostgreSQL or Snowflake means when the
schema has no two names differing only in case.

>>> to_spark('"Ship Mode" = \\'AIR\\' AND qty > 5', "postgres", {"ship mode": "string",
...                                                               "qty": "int"})
"`Ship Mode` = 'AIR' AND qty > 5"
>>> to_spark("qty / 2 > 5", "trino", {"qty": "int"})
Traceback (most recent call last):
...
prunekit.errors.UnsupportedError: not read the same in trino and in Spark: qty / 2 (...)
"""

from __future__ import annotations

import warnings
from collections.abc import Mapping

import sqlglot
from sqlglot import exp
from sqlglot.errors import ParseError, TokenError

from prunekit.errors import SqlSyntaxError, UnsupportedError
from prunekit.expr.paths import leaf_key

SPARK = {"spark", "spark2", "databricks"}
# Dialects whose floats order NaN above every number and equal to itself, as Spark does.
SPARK_NAN = SPARK | {"duckdb", "postgres", "snowflake"}
LISTED = ("spark", "databricks", "duckdb", "postgres", "trino", "snowflake", "bigquery")

_ALIKE = (exp.Column, exp.Identifier, exp.Dot, exp.And, exp.Or, exp.Not, exp.Paren, exp.EQ,
          exp.NEQ, exp.GT, exp.GTE, exp.LT, exp.LTE, exp.In, exp.Between, exp.Is, exp.Null,
          exp.Boolean, exp.Neg, exp.Literal, exp.Cast, exp.DataType, exp.Tuple)
_EQUALITIES = (exp.EQ, exp.NEQ, exp.In)


def check_dialect(dialect: str) -> str:
    """The dialect's name, lower case, if sqlglot knows it; else a clear error.

    >>> check_dialect("DuckDB")
    'duckdb'
    """
    name = str(dialect).lower()
    try:
        sqlglot.Dialect.get_or_raise(name)
    except ValueError:
        raise UnsupportedError(f"unknown SQL dialect {dialect!r} (sqlglot's names, e.g. "
                               f"{', '.join(LISTED)})") from None
    return name


def column_names(text: str, dialect: str = "spark") -> set[str] | None:
    """The top-level columns a predicate's text names (a struct field's struct), lower-cased
    and spelt as statistics keys (``prunekit.expr.paths.leaf_key``), so that a reader fetches
    only their statistics; None when the text does not parse (read every column: the
    predicate's own parse then says what is wrong). The text of every string literal is
    named too: in Spark a double-quoted ``"x"`` is a string, and the warning that it is not
    the column x needs x's statistics to know the column is there.

    >>> sorted(column_names("address.city = 'Oslo' AND X > 1 AND `a.b` < 2"))
    ['`a.b`', 'address', 'oslo', 'x']
    >>> column_names("x >") is None
    True
    """
    try:
        tree = sqlglot.parse_one(text, read=check_dialect(dialect))
    except (ParseError, TokenError):
        return None
    names = [col.parts[0].name for col in tree.find_all(exp.Column) if col.parts]
    names += [lit.this for lit in tree.find_all(exp.Literal) if lit.is_string and lit.this]
    return {leaf_key((name,)).lower() for name in names}


def why_not_portable(e: exp.Expression, dialect: str,
                     types: Mapping[str, object] | None) -> str | None:
    """Why a predicate in ``dialect`` may not mean what Spark means by it, or None.
    ``types``: lower-case column name to a type (pyarrow, or a name such as "string"); a
    column of unknown type takes no string and, where NaN compares otherwise, no comparison.
    """
    if dialect in SPARK:
        return None
    for x in e.find_all(exp.Expression):
        if not isinstance(x, _ALIKE):
            return x.sql(dialect=dialect)
        if isinstance(x, exp.Cast) and not (
                x.to.this == exp.DataType.Type.DATE and isinstance(x.this, exp.Literal)
                and x.this.is_string):
            return x.sql(dialect=dialect)
        if isinstance(x, exp.Literal):
            if not x.is_string and "e" in x.this.lower():
                return x.sql(dialect=dialect)
            if x.is_string and not isinstance(x.parent, exp.Cast) and not _string_equality(
                    x, types):
                return x.parent.sql(dialect=dialect)
        if isinstance(x, exp.Column) and dialect not in SPARK_NAN:
            kind = _kind(x, types)
            if kind is None or "float" in kind or "double" in kind or "halffloat" in kind:
                return f"{x.sql(dialect=dialect)} (NaN compares otherwise)"
    return None


def _kind(col: exp.Column, types: Mapping[str, object] | None) -> str | None:
    if types is None or col.table:
        return None
    t = types.get(col.name.lower())
    return None if t is None else str(t).lower()


def _string_equality(lit: exp.Literal, types: Mapping[str, object] | None) -> bool:
    """A string literal in ``col = 's'``, ``col <> 's'`` or ``col IN ('s', ...)`` with a
    string column: equality has no collation order and no coercion."""
    parent = lit.parent
    if isinstance(parent, exp.Tuple):
        parent = parent.parent
    if not isinstance(parent, _EQUALITIES):
        return False
    col = parent.this if isinstance(parent, exp.In) else (
        parent.expression if parent.this is lit else parent.this)
    kind = _kind(col, types) if isinstance(col, exp.Column) else None
    return kind is not None and ("string" in kind or "utf8" in kind)


def to_spark(text: str, dialect: str, types: Mapping[str, object] | None) -> str:
    """A predicate in ``dialect`` as Spark SQL text, or an error naming what is not read the
    same in both (module docstring)."""
    dialect = check_dialect(dialect)
    if dialect in SPARK:
        return text
    try:
        tree = sqlglot.parse_one(text, read=dialect)
    except (ParseError, TokenError) as e:
        first = (getattr(e, "errors", None) or [{}])[0]
        raise SqlSyntaxError(f"malformed SQL in {dialect}: {first.get('description') or e}",
                             first.get("line", 1), first.get("col", 1)) from None
    why = why_not_portable(tree, dialect, types)
    if why is not None:
        raise UnsupportedError(f"not read the same in {dialect} and in Spark: {why} (what "
                               "another dialect may use is in docs/semantics.md §7)")
    return tree.sql(dialect="spark")


def warn_quoted_names(text: str, names: set[str]) -> list[str]:
    """In Spark's dialect a double-quoted word is a string, not a column: warn (and return the
    messages) for each one that is a column's name, which is almost always a mistake
    (``"l_shipmode" = 'AIR'`` compares two strings: FALSE for every row).

    >>> with warnings.catch_warnings(record=True) as caught:
    ...     warnings.simplefilter("always")
    ...     got = warn_quoted_names('"x" = 5', {"x"})
    >>> got
    ['"x" is a string in Spark SQL, not the column x (write x or `x`)']
    """
    if '"' not in text:  # no double-quoted word: spare a second tokenization of a long list
        return []
    try:
        tokens = sqlglot.Dialect.get_or_raise("spark").tokenize(text)
    except (TokenError, ValueError):
        return []
    out = []
    lower = {n.lower(): n for n in names}
    for t in tokens:
        if t.token_type == sqlglot.TokenType.STRING and text[t.start:t.start + 1] == '"' and \
                t.text.lower() in lower:
            name = lower[t.text.lower()]
            out.append(f'"{t.text}" is a string in Spark SQL, not the column {name} '
                       f"(write {name} or `{name}`)")
    for message in out:
        warnings.warn(message, UserWarning, stacklevel=3)
    return out
