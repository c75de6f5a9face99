"""SQL from other engines: what a predicate written in another dialect may contain so that its
rows are the ones Spark's semantics give, and Spark's double-quote pitfall.

prunekit's rules are Spark's. Text in another dialect is parsed by sqlglot with that dialect
(so its identifier quoting and case rules apply: ``"l_shipmode"`` is a column in DuckDB,
PostgreSQL, Trino and Snowflake, a string in Spark and BigQuery) and then read with Spark's rules
only where every construct means the same in both. Where the dialects part ways, the smallest
boolean part holding the construct (a comparison, a LIKE, a term of an AND, OR or NOT) becomes an
unknown leaf, named in ``explain()``, rather than be read as Spark would read it; the rest of the
predicate still prunes:

================  ======================================================================
construct          why other dialects differ
================  ======================================================================
``/``, ``%``       integer division in PostgreSQL, Trino, DuckDB's ``//``; Spark divides in DOUBLE
string literals    against a non-string column: each dialect coerces its own way; ordered
                   (``<``) against a string column: collations (PostgreSQL's locale order)
number exponents   ``1e3`` is DOUBLE in Spark, NUMERIC in PostgreSQL
wide numbers       beyond 38 digits Spark rounds a DECIMAL into a smaller scale, others
                   compare exactly; a long fraction may become another DOUBLE elsewhere
floats             Trino and BigQuery compare NaN as IEEE does (never equal, never greater);
                   Spark, DuckDB, PostgreSQL and Snowflake put NaN above every number; a
                   FLOAT column meets a number as a DOUBLE in Spark only
functions, casts   names, argument types and time zones differ; only ``CAST('...' AS DATE)``
                   and ``DATE '...'`` are read
LIKE, ILIKE        escapes and case rules differ
``+ - *``          result types and overflow differ
================  ======================================================================

What is accepted everywhere: columns (struct fields too), numbers without an exponent, ``DATE``
literals, ``TRUE``/``FALSE``/``NULL``, a string compared by ``=``, ``<>`` or ``IN`` with a
string column, ``= <> < <= > >=``, ``AND``, ``OR``, ``NOT``, ``IN``, ``BETWEEN``, ``IS [NOT]
NULL``, unary minus. Identifier case: names resolve as Spark's do (exact, else the one
case-insensitive match), which is what a quoted name in PostgreSQL or Snowflake means when the
schema has no two names differing only in case.

What an engine reads as Spark does beyond that is data, one ``Engine`` per dialect
(``ENGINES``), each entry checked against that engine's own rows where the engine is at hand
(DuckDB, DataFusion: tests/expr/test_dialects.py). DuckDB agrees with Spark on more than the
others: NaN's order, ``1e3`` as a DOUBLE, strings ordered by their UTF-8 bytes, ``LIKE`` with a
pattern free of backslashes (``%`` and ``_`` per character, case-sensitive, newlines matched),
an integer or DOUBLE column divided by a nonzero whole number (DOUBLE division in both; DuckDB
divides a FLOAT in FLOAT), ``+ - *`` of integers (exact in both wherever neither overflows;
DuckDB fails the query where one does, which then returns no row to protect), ``IS [NOT]
DISTINCT FROM``, ``year``, ``month`` and ``day`` of a DATE column, ``abs`` of an integer or
DOUBLE column, ``CAST`` of an integer column to BIGINT or DOUBLE, a string column's first ``k``
characters (``substring(s, 1, k)``, ``left(s, k)``, ``k`` a positive whole number), ``ILIKE``
with an ASCII pattern free of ``i`` and ``_``, ``CURRENT_DATE`` plus or minus whole days
against DATE columns, and, in UTC, a ``TIMESTAMP '...'`` wall time against a TIMESTAMP column
without a zone and ``date_trunc`` of one by a unit spelled out.

``dialect="datafusion"`` is PostgreSQL's syntax (``SYNTAX``) with DataFusion 55's semantics,
much as DuckDB's, except: ``1.5`` is a DOUBLE there and ``5`` a BIGINT (``read_engine_numbers``
writes them as such, or a fraction as the DECIMAL DataFusion compares a DECIMAL column with),
an integer divided by an integer truncates (unknown), a FLOAT column against a DOUBLE compares
in DOUBLE as in Spark, the right side of ``IS [NOT] DISTINCT FROM`` runs to the end of its
parentheses, an IN list of numbers with a 0 may tell 0 from -0.0 (read but for the zero's
sign: ``_split_zero_items``) and a NULL in a list is dropped where its optimizer merges the
list with another on its column. In UTC it also reads the date of a TIMESTAMP and the midnight
of a DATE as Spark does (``timestamps_as_dates``), a ``'yyyy-mm-dd'`` string compared with a
DATE as that DATE, and TIMESTAMP literals and strings against TIMESTAMP columns as its casts
make them (``_read_timestamp_literals``).

>>> read_predicate('"Ship Mode" = \\'AIR\\' AND qty > 5', "postgres", {"ship mode": "string",
...                                                                     "qty": "int"}).sql()
"`Ship Mode` = 'AIR' AND qty > 5"
>>> read_predicate("qty / 2 > 5 AND qty < 9", "trino", {"qty": "int"}).display()
'<trino reads qty / 2 otherwise than Spark: qty / 2 > 5> AND qty < 9'
"""

from __future__ import annotations

import datetime
import decimal
import math
import re
import struct
import warnings
from collections.abc import Mapping
from dataclasses import dataclass

import sqlglot
from sqlglot import exp
from sqlglot.errors import ParseError, TokenError

from prunekit.errors import SqlSyntaxError, TypeMismatchError, UnsupportedError
from prunekit.expr.paths import leaf_key
from prunekit.expr.syntax import nodes as n

SPARK = {"spark", "spark2", "databricks"}
LISTED = ("spark", "databricks", "duckdb", "datafusion", "postgres", "trino", "snowflake",
          "bigquery")


@dataclass(frozen=True)
class Engine:
    """Which constructs, among those where dialects part ways (the module's table), an engine
    reads as Spark does. False is the safe answer: the construct becomes an unknown leaf."""

    nan_as_spark: bool = False  # NaN above every number and equal to itself
    exponents_are_double: bool = False  # 1e3 is a DOUBLE
    strings_by_bytes: bool = False  # strings ordered by their UTF-8 bytes, no collation
    plain_like: bool = False  # LIKE without backslash or ESCAPE: % and _ per character
    division_by_a_number: bool = False  # DOUBLE column / nonzero whole number, in DOUBLE
    integers_divide_as_doubles: bool = False  # integer column / nonzero whole number, in DOUBLE
    integer_arithmetic: bool = False  # + - * of integers: exact, an overflow fails the query
    distinct_from: bool = False  # IS [NOT] DISTINCT FROM
    calendar_of_dates: bool = False  # year, month, day of a DATE column (proleptic, year 0)
    absolute_value: bool = False  # abs of an integer or DOUBLE column
    widening_casts: bool = False  # CAST of an integer column to BIGINT or DOUBLE
    string_prefixes: bool = False  # substring(s, 1, k), left(s, k): the first k characters
    naive_timestamps: bool = False  # TIMESTAMP '...' against a TIMESTAMP without a zone, in UTC
    # 1.5 (and a whole number beyond BIGINT) is a DOUBLE, which meets a DECIMAL column at 15
    # decimal places (DataFusion); read as Spark's DOUBLE literal, or that DECIMAL.
    fractions_are_double: bool = False
    float_meets_double: bool = False  # a FLOAT column against a DOUBLE compares in DOUBLE
    # A whole number is a BIGINT (DataFusion), so integer arithmetic with one is in BIGINT;
    # read as Spark's BIGINT literal (Spark's 5 is an INT, whose sums overflow sooner).
    whole_numbers_are_bigint: bool = False
    # The right side of IS [NOT] DISTINCT FROM runs to the end of its parentheses (DataFusion
    # parses ``a IS DISTINCT FROM b OR c`` as ``a IS DISTINCT FROM (b OR c)``).
    greedy_distinct_from: bool = False
    # x IN (a, b, ...) holds for -0.0 where an a is 0 (DataFusion's sets of two or more
    # numbers may tell 0 from -0.0; one item is ``=``).
    zeros_in_lists: bool = False
    # A DATE or a TIMESTAMP literal meets a TIMESTAMP column in UTC (of at most microseconds)
    # at its wall time in UTC (DataFusion's casts), as Spark does in a UTC session.
    utc_timestamps: bool = False
    # s ILIKE 'p' of a string column, p of ASCII characters without i, _ or a backslash: the
    # same rows as Spark's lower(s) LIKE lower(p) (the two lowercase only U+0130 otherwise,
    # which a pattern without i and _ cannot tell)
    ascii_ilike: bool = False
    # CURRENT_DATE, and it plus or minus whole days, against DATE columns: today in the
    # session's zone (the engine's TimeZone setting, prunekit's time_zone) in both
    current_date: bool = False
    # date_trunc('month', ts) of a TIMESTAMP column without a zone, the unit spelled out:
    # its wall time truncated, as Spark truncates in a UTC session
    truncated_wall_times: bool = False
    # In UTC: CAST(ts AS DATE) of a TIMESTAMP column without a zone or in UTC (any unit) is
    # its wall date (rounded down, before 1970 too), CAST(d AS TIMESTAMP) of a DATE column its
    # midnight, and a DATE meets a TIMESTAMP literal at its midnight: as Spark in a UTC session
    timestamps_as_dates: bool = False
    # An IN list holding NULL, as SQL reads it. In DataFusion 55 only where no other list or
    # equality on its column could be merged with it: its optimizer drops the NULL where it
    # merges lists (x IN (a) AND x NOT IN (b, NULL) returns rows there)
    null_in_lists: bool = True  # (the one entry whose safe answer is True: a narrowing)
    # CAST(c AS BIGINT) of a DOUBLE column truncates toward zero, as Spark's (an overflow or
    # a NaN fails the query, as under ANSI). Not of a DECIMAL: DataFusion 55 computes that
    # cast toward zero too, but a filter comparing it with a whole number drops the cast and
    # compares the DECIMAL itself (CAST(0.1161 AS BIGINT) = 0 holds in a SELECT list, not
    # in a WHERE clause)
    truncating_casts: bool = False
    # In UTC, against TIMESTAMP columns without a zone or in UTC: a string 'yyyy-mm-dd[
    # hh:mm:ss[.ffffff]]' is the TIMESTAMP it spells (as Spark casts it), a TIMESTAMP literal
    # finer than the columns' unit is cast to that unit toward zero (before 1970 too), and a
    # nanosecond column meets literals exactly, as prunekit compares any column's own unit
    # (DataFusion 55's casts: ``_read_timestamp_literals``)
    timestamp_literals_cast: bool = False
    # A LIKE pattern's backslash escapes the %, _ or backslash after it, as in Spark
    # (DataFusion; DuckDB's LIKE has no escape without ESCAPE)
    backslash_escapes: bool = False


ENGINES = {
    "duckdb": Engine(nan_as_spark=True, exponents_are_double=True, strings_by_bytes=True,
                     plain_like=True, division_by_a_number=True,
                     integers_divide_as_doubles=True, integer_arithmetic=True,
                     distinct_from=True, calendar_of_dates=True, absolute_value=True,
                     widening_casts=True, string_prefixes=True, naive_timestamps=True,
                     zeros_in_lists=True, ascii_ilike=True, current_date=True,
                     truncated_wall_times=True),
    # DataFusion 55, PostgreSQL's syntax (SYNTAX): Arrow's kernels order NaN above every number,
    # equal to itself, and strings by their bytes; integers wrap where they overflow, as
    # Spark's do outside ANSI mode (prunekit allows both), once its literals are BIGINTs; an
    # integer divided by an integer truncates.
    "datafusion": Engine(nan_as_spark=True, exponents_are_double=True, strings_by_bytes=True,
                         plain_like=True, division_by_a_number=True, integer_arithmetic=True,
                         distinct_from=True, calendar_of_dates=True, absolute_value=True,
                         widening_casts=True, string_prefixes=True, naive_timestamps=True,
                         fractions_are_double=True, float_meets_double=True,
                         whole_numbers_are_bigint=True, greedy_distinct_from=True,
                         utc_timestamps=True, timestamps_as_dates=True,
                         truncating_casts=True, null_in_lists=False,
                         timestamp_literals_cast=True, backslash_escapes=True),
    "postgres": Engine(nan_as_spark=True, zeros_in_lists=True),
    "snowflake": Engine(nan_as_spark=True, zeros_in_lists=True),
}
_UNMODELLED = Engine()  # every other dialect: only what all of them share
# Dialects sqlglot does not name, by the sqlglot dialect that parses their text.
SYNTAX = {"datafusion": "postgres"}


def syntax(dialect: str) -> str:
    """The sqlglot dialect that parses and prints ``dialect``'s text.

    >>> syntax("datafusion"), syntax("duckdb")
    ('postgres', 'duckdb')
    """
    return SYNTAX.get(dialect, dialect)


def engine(dialect: str) -> Engine:
    """What ``dialect`` reads as Spark does (``ENGINES``; nothing beyond the shared core for a
    dialect it does not list).

    >>> engine("duckdb").strings_by_bytes, engine("trino").nan_as_spark
    (True, False)
    """
    return ENGINES.get(dialect, _UNMODELLED)


_ALIKE = (exp.Column, exp.Identifier, exp.Dot, exp.And, exp.Or, exp.Not, exp.Paren, exp.EQ,
          exp.NEQ, exp.GT, exp.GTE, exp.LT, exp.LTE, exp.In, exp.Between, exp.Is, exp.Null,
          exp.Boolean, exp.Neg, exp.Literal, exp.Cast, exp.DataType, exp.Tuple)
_EQUALITIES = (exp.EQ, exp.NEQ, exp.In, exp.NullSafeEQ, exp.NullSafeNEQ)
_COMPARISONS = (exp.EQ, exp.NEQ, exp.GT, exp.GTE, exp.LT, exp.LTE)


def check_dialect(dialect: str) -> str:
    """The dialect's name, lower case, if sqlglot knows it; else a clear error.

    >>> check_dialect("DuckDB")
    'duckdb'
    """
    name = str(dialect).lower()
    try:
        sqlglot.Dialect.get_or_raise(syntax(name))
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
        tree = sqlglot.parse_one(text, read=syntax(check_dialect(dialect)))
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
    found = _unportable(e, dialect, types)
    return found[0][1] if found else None


def _unportable(e: exp.Expression, dialect: str, types: Mapping[str, object] | None,
                utc: bool = False) -> list[tuple[exp.Expression, str]]:
    """Each node of ``e`` that may not mean in ``dialect`` what it means in Spark, with the
    text that says which construct (module docstring)."""
    if dialect in SPARK:
        return []
    out = []
    reads = engine(dialect)
    for x in e.find_all(exp.Expression):
        if reads.greedy_distinct_from and isinstance(x, (exp.NullSafeEQ, exp.NullSafeNEQ)):
            group = _group_unless_last(x)
            if group is not None:  # the engine groups the operands otherwise: all unknown
                out.append((group, f"{group.sql(dialect=syntax(dialect))} (IS DISTINCT FROM "
                                   "takes the rest of its parentheses)"))
                continue
        why = _why_not(x, dialect, types, utc)
        if why is not None:
            out.append((x, why))
    return out


def _group_unless_last(x: exp.Expression) -> exp.Expression | None:
    """None where ``x`` ends its parenthesized group (its right side cannot run further);
    else the group's whole expression, which the engine reads otherwise."""
    node = x
    while not _opens_a_group(node):
        if isinstance(node.parent, exp.Binary) and node.arg_key != "expression":
            return _group(node)
        node = node.parent
    return None


def _group(node: exp.Expression) -> exp.Expression:
    """The whole parenthesized group ``node`` is in."""
    while not _opens_a_group(node):
        node = node.parent
    return node


def _opens_a_group(node: exp.Expression) -> bool:
    """Whether ``node`` is a whole parenthesized group: the predicate, the inside of
    parentheses, an item of a list or a function's argument (sqlglot's AND and OR are
    functions too, but no group)."""
    parent = node.parent
    return parent is None or node.arg_key == "expressions" or isinstance(
        parent, (exp.Paren, exp.Tuple)) or (
        isinstance(parent, exp.Func) and not isinstance(parent, (exp.Connector, exp.Binary)))


def _why_not(x: exp.Expression, dialect: str, types: Mapping[str, object] | None,
             utc: bool = False) -> str | None:
    reads, shown = engine(dialect), syntax(dialect)
    if _is_unknown_part(x):
        return f"{x.expressions[1].sql(dialect=shown)} ({x.expressions[0].this})"
    if isinstance(x, exp.Var) and isinstance(x.parent, (exp.Extract, exp.Interval,
                                                         exp.TimestampTrunc)):
        return None  # a field or unit: its parent is read or not as a whole
    if isinstance(x, exp.Literal) and isinstance(x.parent, exp.Interval):
        return None  # the interval is read or not as a whole
    if isinstance(x, exp.DataTypeParam) or isinstance(x.parent, exp.DataTypeParam):
        return None  # DECIMAL(p, s): its cast is read or not as a whole
    if not isinstance(x, _ALIKE) and not _read_alike(x, reads, types):
        return x.sql(dialect=shown)
    if isinstance(x, exp.Cast) and not _cast_read_alike(x, reads, types, utc):
        return x.sql(dialect=shown)
    if isinstance(x, exp.Cast) and x.to.this == exp.DataType.Type.DATE and any(
            "tz=" in (_kind(c, types) or "") for c in _partners(x)) and not (
            reads.utc_timestamps and utc and _against_utc_columns(x, types, reads)):
        # A DATE meets a zoned TIMESTAMP at midnight in the engine's own session zone (DuckDB:
        # in UTC for nanosecond columns, whatever its zone), not in prunekit's time_zone.
        return f"{x.parent.sql(dialect=shown)} (a DATE against a TIMESTAMP with a zone)"
    if isinstance(x, exp.In) and not reads.null_in_lists and any(
            isinstance(item, exp.Null) for item in x.expressions) and _merged(x):
        return f"{x.sql(dialect=shown)} (a list with NULL beside another on its column)"
    if isinstance(x, exp.Literal):
        if not x.is_string and "e" in x.this.lower() and not reads.exponents_are_double:
            return x.sql(dialect=shown)
        if x.is_string and not isinstance(x.parent, exp.Cast) and not _string_read_alike(
                x, reads, types):
            return x.parent.sql(dialect=shown)
        if not x.is_string and not _number_meets_alike(x, reads, types):
            return x.parent.sql(dialect=shown)
    if isinstance(x, exp.Column) and not isinstance(x.parent, exp.Is):  # IS NULL: alike
        kind = _kind(x, types)
        if kind in ("float", "halffloat") and not (
                reads.float_meets_double and kind == "float" and _meets_doubles(x, types)):
            # Spark widens a FLOAT to DOUBLE against anything but a FLOAT or an integer
            return f"{x.sql(dialect=shown)} (a FLOAT compares in another type)"
        if not _decimals_meet_alike(x, types):
            return f"{x.parent.sql(dialect=shown)} (Spark rounds DECIMALs beyond 38 digits)"
        if not reads.nan_as_spark and (
                kind is None or "float" in kind or "double" in kind or "halffloat" in kind):
            return f"{x.sql(dialect=shown)} (NaN compares otherwise)"
    return None


def _merged(x: exp.In) -> bool:
    """Whether the predicate holds another IN list, ``=``, ``<>`` or IS [NOT] DISTINCT FROM on
    a column of ``x``'s, which an optimizer may merge with ``x`` (DataFusion 55's drops the
    NULL of ``x`` there: ``x IN (1) AND x NOT IN (2, NULL)`` and ``(x = 1 OR x = 2) AND x NOT
    IN (2, NULL)`` return the row 1)."""
    columns = {c.sql() for c in x.this.find_all(exp.Column)}
    return not columns or any(
        other is not x and columns & {c.sql() for c in other.find_all(exp.Column)}
        for other in x.root().find_all(*_EQUALITIES))


def _integers_only(x: exp.In, types: Mapping[str, object] | None) -> bool:
    """An integer column in a list of whole numbers (and NULL), or a DECIMAL column (the
    engine compares its list as DECIMALs): no -0.0 on either side."""
    kind = (_kind(x.this, types) or "") if isinstance(x.this, exp.Column) else ""
    return (kind in _INTEGER_KINDS and all(
        _whole_number(i) or isinstance(i, exp.Null) for i in x.expressions)) or (
        _DECIMAL.fullmatch(kind) is not None)


def _meets_doubles(col: exp.Column, types: Mapping[str, object] | None) -> bool:
    """Whether every operand ``col`` (maybe negated) is compared with is a DOUBLE (a number
    with an exponent, a DOUBLE column) or a whole number a FLOAT holds exactly (any up to
    2**24), so that Spark and the engine compare the same values: in DOUBLE, or in FLOAT
    where every reading of the whole number is the same FLOAT."""
    node = col
    while isinstance(node.parent, (exp.Neg, exp.Paren)):
        node = node.parent
    parent = node.parent
    if not isinstance(parent, (*_COMPARISONS, exp.In, exp.Between, exp.NullSafeEQ,
                               exp.NullSafeNEQ)):
        return False
    others = [e for e in parent.iter_expressions() if e is not node]
    if isinstance(parent, exp.In):
        others = list(parent.expressions)
    if not others:
        return False
    for other in others:
        while isinstance(other, (exp.Neg, exp.Paren)):
            other = other.this
        if not (_family(other, types) == "double" or (
                isinstance(other, exp.Literal) and not other.is_string
                and ("e" in other.this.lower() or (
                    other.this.isdigit() and _a_float(int(other.this)))))):
            return False
    return True


def _number_meets_alike(lit: exp.Literal, reads: Engine,
                        types: Mapping[str, object] | None) -> bool:
    """Whether a number literal compares with the columns beside it as in Spark. Not where
    Spark rounds it: against a DECIMAL(p, s) column, Spark compares in the wider DECIMAL only
    if it has at most 38 digits, else it rounds the literal into the column's scale
    (``b <= 0.00000000005`` on DECIMAL(38, 10) is ``b <= 1E-10`` in Spark, exact in DuckDB
    and PostgreSQL). Nor a fraction of more than 15 significant digits against a DOUBLE
    column, which an engine may turn into a DOUBLE one unit off Spark's. Nor a number of more
    than 38 digits (a DOUBLE in DuckDB, refused by Spark), nor one against a BOOLEAN column
    (DuckDB casts 1 to TRUE, Spark refuses the comparison). Where the engine's fractions are
    DOUBLEs (``read_engine_numbers`` has written them as such), not a DOUBLE against a DECIMAL
    column it could not write as the engine's DECIMAL, nor a whole number beyond BIGINT (an
    unsigned BIGINT in DataFusion)."""
    text = lit.this.lower()
    if reads.fractions_are_double and text.isdigit() and int(text) >= 2**63 and not (
            text == str(2**63) and isinstance(lit.parent, exp.Neg)):
        # beyond BIGINT (-2**63 is BIGINT's least), below 2**64 (``read_engine_numbers``
        # writes larger ones as DOUBLEs): an unsigned BIGINT there
        return _unsigned_bigint_alike(lit, types)
    if "e" in text:
        # a DOUBLE wherever it is read at all (the exponent rule)
        return not reads.fractions_are_double or not any(
            _DECIMAL.fullmatch(_kind(col, types) or "") for col in _partners(lit))
    whole, _, fraction = text.partition(".")
    whole = whole.lstrip("0")
    if len(whole) + len(fraction) > 38:
        return False
    for col in _partners(lit):
        kind = _kind(col, types)
        if kind is None:
            continue
        if kind in ("bool", "boolean"):
            return False
        decimal = _DECIMAL.fullmatch(kind)
        if decimal:
            p, s = int(decimal[1]), int(decimal[2])
            if max(s, len(fraction)) + max(p - s, len(whole)) > 38:
                return False
        elif "double" in kind and fraction and len((whole + fraction).lstrip("0")) > 15:
            return False
    return True


def _decimals_among_doubles(holder: exp.In | exp.Between,
                            types: Mapping[str, object] | None) -> bool:
    """Whether DataFusion compares an IN list (or a BETWEEN) in one DECIMAL where Spark
    compares in DOUBLE: its common type for the column and every item (or bound) is a
    DECIMAL when a DOUBLE (a fraction, an exponent, a cast to DOUBLE) meets a cast to DECIMAL
    (``i IN (CAST(-2 AS DECIMAL(10, 2)), 17.5)`` compares ``i`` as a DECIMAL(35, 15)), or an
    unsigned BIGINT (a column, or a whole number from 2**63) and a signed integer (a column, a
    smaller whole number: DECIMAL(20, 0) together) meet a DOUBLE."""
    items = holder.expressions if isinstance(holder, exp.In) else [
        holder.args.get("low"), holder.args.get("high")]
    kinds = {"unsigned" if _kind(holder.this, types) == "uint64" else "signed"} if (
        isinstance(holder.this, exp.Column) and (_kind(holder.this, types) or "") in
        _INTEGER_KINDS) else set()
    for item in items:
        while isinstance(item, (exp.Neg, exp.Paren)):
            item = item.this
        if isinstance(item, exp.Cast):
            kinds.add("decimal" if item.to.this == exp.DataType.Type.DECIMAL else (
                "double" if item.to.this in (exp.DataType.Type.DOUBLE, exp.DataType.Type.FLOAT)
                else None))
        elif isinstance(item, exp.Literal) and not item.is_string:
            if "." in item.this or "e" in item.this.lower() or _beyond_unsigned_bigint(item):
                kinds.add("double")
            else:
                kinds.add("unsigned" if int(item.this) >= 2**63 and not isinstance(
                    item.parent, exp.Neg) else "signed")
    return "double" in kinds and ("decimal" in kinds or {"unsigned", "signed"} <= kinds)


def _a_float(value: int) -> bool:
    """Whether a FLOAT (32 bits) holds the whole number ``value`` exactly."""
    try:
        return struct.unpack("f", struct.pack("f", value))[0] == value
    except OverflowError:  # beyond FLOAT's range
        return False


def _unsigned_bigint_alike(lit: exp.Literal, types: Mapping[str, object] | None) -> bool:
    """Whether DataFusion's unsigned BIGINT ``lit`` meets its columns as Spark's DECIMAL(20,
    0) does: exactly against integer columns and a DECIMAL(p, s) holding s + max(p - s, 20)
    digits within 38 (a DECIMAL(20, 0) there), as the nearest DOUBLE against DOUBLEs (and
    FLOATs that hold it exactly: DataFusion rounds it to a FLOAT there); not in a list or a
    BETWEEN beside a fraction (another common type)."""
    holder = lit.parent.parent if isinstance(lit.parent, exp.Tuple) else lit.parent
    if isinstance(holder, (exp.In, exp.Between)) and any(
            isinstance(item, exp.Literal) and not item.is_string and (
                "." in item.this or "e" in item.this.lower())
            for item in holder.find_all(exp.Literal)):
        return False
    partners = _partners(lit)
    value = int(lit.this)

    def meets(kind: str | None) -> bool:
        decimal = _DECIMAL.fullmatch(kind or "")
        if decimal:
            p, s = int(decimal[1]), int(decimal[2])
            return s + max(p - s, 20) <= 38
        if kind == "float":
            return _a_float(value)
        return kind in _INTEGER_KINDS or kind == "double"

    return bool(partners) and all(meets(_kind(c, types)) for c in partners)


def read_engine_numbers(tree: exp.Expression, dialect: str,
                        types: Mapping[str, object] | None = None) -> exp.Expression:
    """``tree`` with its numbers written as Spark must read them to mean what ``dialect``
    means, where the engine types them otherwise (``Engine.fractions_are_double``,
    ``whole_numbers_are_bigint``): an operand of ``+ - *`` that is a whole number is a BIGINT
    (``CAST(5 AS BIGINT)``); a fraction is a DOUBLE (``1.5E0``), except against a DECIMAL
    column, where it is the DECIMAL the engine compares with. DataFusion turns the DOUBLE into
    a DECIMAL of max(s, 15) places by Arrow's cast, rounding the DOUBLE times 10**places
    (itself a DOUBLE product) half away from zero, and compares the column with it exactly;
    written with those places, Spark compares exactly too, or, where the two would need more
    than 38 digits, written as the bound at the column's scale that keeps the same rows
    (``_double_against_decimal``). Numbers are changed in place; the tree is returned (another
    one where the whole predicate was rewritten).

    >>> read_engine_numbers(sqlglot.parse_one("x > 1.5 AND p = 0.1"), "datafusion",
    ...                     {"x": "int64", "p": "decimal128(10, 2)"}).sql()
    'x > 1.5E0 AND p = 0.100000000000000'
    """
    reads = engine(dialect)
    if not reads.fractions_are_double and not reads.whole_numbers_are_bigint:
        return tree
    if reads.fractions_are_double:
        for holder in list(tree.find_all(exp.In, exp.Between)):
            if _decimals_among_doubles(holder, types):
                why = "its items compared with the column as DECIMALs there"
                if holder is tree:
                    return _unknown_part(why, holder)
                holder.replace(_unknown_part(why, holder))
        for between in list(tree.find_all(exp.Between)):
            _one_type_between(between, types)
    for lit in list(tree.find_all(exp.Literal)):
        text = lit.this
        if lit.is_string or _inside_unknown_part(lit):
            continue
        whole = not ("." in text or "e" in text.lower())
        if whole and not (reads.fractions_are_double and _beyond_unsigned_bigint(lit)):
            if reads.whole_numbers_are_bigint and _in_arithmetic(lit) and int(text) < 2**63:
                lit.replace(exp.Cast(this=lit.copy(), to=exp.DataType.build("BIGINT")))
            continue
        if not reads.fractions_are_double:
            continue
        value = decimal.Decimal(text)
        target = _decimal_target(lit)
        if target is not None:  # CAST(1.005 AS DECIMAL(10, 2)): the DOUBLE cast by Arrow
            units = _at_places(float(value), target[1])
            if units is not None and abs(units) < 10 ** target[0]:
                lit.replace(exp.Literal.number(f"{units.scaleb(-target[1]):f}"))
            continue
        kinds = [_DECIMAL.fullmatch(_kind(col, types) or "") for col in _partners(lit)]
        if kinds and all(kinds):
            written = _double_against_decimal(lit, float(value), {
                (int(k[1]), int(k[2])) for k in kinds})
            if written is not None:
                if written.parent is None:  # the whole predicate was the comparison
                    tree = written
                continue
        double = str(value)  # 0.0000000001 is 1E-10: an exponent either way
        lit.replace(exp.Literal.number(double if "E" in double else f"{double}E0"))
    return tree


_UNKNOWN_PART = "__prunekit_unknown_part"


def _unknown_part(why: str, shown: exp.Expression) -> exp.Expression:
    """A boolean the engine computes otherwise than Spark, in a rewrite that reads the rest of
    a construct as Spark does: an unknown leaf saying ``why``, shown as ``shown`` (the
    construct as written) in ``explain()``."""
    return exp.Anonymous(this=_UNKNOWN_PART, expressions=[exp.Literal.string(why),
                                                          shown.copy()])


def _is_unknown_part(x: exp.Expression) -> bool:
    return isinstance(x, exp.Anonymous) and x.name == _UNKNOWN_PART


def _inside_unknown_part(x: exp.Expression) -> bool:
    while x.parent is not None:
        x = x.parent
        if _is_unknown_part(x):
            return True
    return False


def _split_zero_items(tree: exp.Expression, dialect: str,
                      types: Mapping[str, object] | None) -> exp.Expression:
    """Where the engine's IN list of two or more numbers may tell 0 from -0.0 (not
    ``Engine.zeros_in_lists``: DataFusion's set compares their bits), ``x IN (0, a, b)`` is
    ``x IN (a, b) OR (x = 0 AND <unknown>)``: Spark's reading but for a zero, where the sign
    decides. Not for an integer column among whole numbers (no -0.0 on either side).

    >>> split = _split_zero_items(sqlglot.parse_one("f IN (0.0, 1.5)"), "datafusion",
    ...                           {"f": "double"})
    >>> split.this.sql(), split.expression.this.this.sql()
    ('f IN (1.5)', 'f = 0')
    """
    if engine(dialect).zeros_in_lists:
        return tree
    for x in list(tree.find_all(exp.In)):
        if len(x.expressions) < 2 or _integers_only(x, types) or not any(
                _zero(item) for item in x.expressions):
            continue
        others = [item.copy() for item in x.expressions if not _zero(item)]
        zero = exp.and_(exp.EQ(this=x.this.copy(), expression=exp.Literal.number(0)),
                        _unknown_part("a set of numbers may tell 0 from -0.0", x))
        split = exp.or_(exp.In(this=x.this.copy(), expressions=others), zero) if others else zero
        if x is tree:
            return split
        x.replace(exp.Paren(this=split))
    return tree


_INTEGER_TYPES = (exp.DataType.Type.BIGINT, exp.DataType.Type.INT, exp.DataType.Type.SMALLINT,
                  exp.DataType.Type.TINYINT)


def _drop_integer_casts_of_decimals(tree: exp.Expression, dialect: str,
                                    types: Mapping[str, object] | None) -> None:
    """Where ``Engine.truncating_casts`` (DataFusion 55): ``CAST(d AS BIGINT)`` (or INT, ...)
    of a DECIMAL column compared with whole numbers only (``=``, ``<>``, ``<``, ``IN``,
    ``BETWEEN``, ...) is compared as ``d`` itself there: its optimizer drops the cast and
    compares the DECIMAL exactly (``CAST(0.1161 AS BIGINT) = 0`` is FALSE in a WHERE
    clause). Written so, in place; against DOUBLEs the cast stays, truncating in both.

    >>> tree = sqlglot.parse_one("CAST(d AS BIGINT) IN (0, 2)", read="postgres")
    >>> _drop_integer_casts_of_decimals(tree, "datafusion", {"d": "decimal128(18, 4)"})
    >>> tree.sql()
    'd IN (0, 2)'
    """
    if not engine(dialect).truncating_casts:
        return
    for cast in list(tree.find_all(exp.Cast)):
        if not (cast.to.this in _INTEGER_TYPES and isinstance(cast.this, exp.Column)
                and _DECIMAL.fullmatch(_kind(cast.this, types) or "")):
            continue
        holder = cast.parent
        if isinstance(holder, exp.In) and cast.arg_key == "this":
            others = list(holder.expressions)
        elif isinstance(holder, exp.Between) and cast.arg_key == "this":
            others = [holder.args.get("low"), holder.args.get("high")]
        elif isinstance(holder, _COMPARISONS):
            others = [holder.expression if cast.arg_key == "this" else holder.this]
        else:
            continue
        if others and all(_whole_number(o) for o in others):
            cast.replace(cast.this.copy())


_UNIT_MICROS = {"s": 1_000_000, "ms": 1_000, "us": 1, "ns": 1}


def _read_timestamp_literals(tree: exp.Expression, dialect: str,
                             types: Mapping[str, object] | None) -> None:
    """Where ``Engine.timestamp_literals_cast`` (the caller's session zone is UTC): a string
    ``'yyyy-mm-dd[ hh:mm:ss[.ffffff]]'`` compared with TIMESTAMP columns (without a zone or
    in UTC) only is written as the TIMESTAMP literal the engine casts it to, and a TIMESTAMP
    literal with more fraction digits than its columns' one unit holds as that unit's value
    toward zero (``TIMESTAMP '1969-12-31 23:59:59.9995'`` against milliseconds is 1970-01-01
    00:00:00 there). Changed in place.

    >>> tree = sqlglot.parse_one("t = '2020-01-01 10:00:00.9999'", read="postgres")
    >>> _read_timestamp_literals(tree, "datafusion", {"t": "timestamp[ms]"})
    >>> tree.sql()
    "t = CAST('2020-01-01 10:00:00.999' AS TIMESTAMP)"
    """
    reads = engine(dialect)
    if not reads.timestamp_literals_cast:
        return
    for lit in list(tree.find_all(exp.Literal)):
        wall = _WALL_TIME.fullmatch(lit.this) if lit.is_string else None
        cast = lit.parent
        if wall is None or (isinstance(cast, exp.Cast) and cast.to.this not in (
                exp.DataType.Type.TIMESTAMP, exp.DataType.Type.TIMESTAMPNTZ)):
            continue
        units = {_timestamp_unit(_kind(c, types), reads) for c in _partners(
            cast if isinstance(cast, exp.Cast) else lit)}
        if not units or None in units:
            continue
        if not isinstance(cast, exp.Cast):
            cast = exp.Cast(this=lit.copy(), to=exp.DataType.build("TIMESTAMP"))
            lit.replace(cast)
        digits = len((wall[2] or ".")[1:])
        (unit, *others) = units
        if others or digits <= _FRACTION_DIGITS[unit]:
            continue
        moment = datetime.datetime.fromisoformat(cast.this.this)
        micros = (moment - datetime.datetime(1970, 1, 1)) // datetime.timedelta(microseconds=1)
        step = _UNIT_MICROS[unit]
        micros = micros // step * step if micros >= 0 else -(-micros // step * step)
        moment = datetime.datetime(1970, 1, 1) + datetime.timedelta(microseconds=micros)
        cast.this.replace(exp.Literal.string(moment.isoformat(" ", timespec=(
            "seconds" if unit == "s" else "milliseconds"))))


def _fold_null_comparisons(tree: exp.Expression,
                           types: Mapping[str, object] | None) -> exp.Expression:
    """``NULL >= e`` (any comparison with a NULL operand) as the NULL it is in every engine,
    whatever ``e`` means there (``e`` failing at run time fails the query: no row either).
    Kept where ``e`` names a column the schema lacks, so that the error says so."""
    for cmp in list(tree.find_all(*_COMPARISONS)):
        sides = [side.unnest() for side in (cmp.this, cmp.expression)]
        if not any(isinstance(side, exp.Null) for side in sides) or types is None or any(
                col.table or col.name.lower() not in types for col in cmp.find_all(exp.Column)):
            continue
        null = exp.Null()
        if cmp is tree:
            return null
        cmp.replace(null)
    return tree


def _beyond_unsigned_bigint(lit: exp.Literal) -> bool:
    """Whether a whole number (maybe negated) is below BIGINT's least or above unsigned
    BIGINT's greatest: a DOUBLE in DataFusion (-9223372036854775809 too)."""
    signed = -int(lit.this) if isinstance(lit.parent, exp.Neg) else int(lit.this)
    return not -(2**63) <= signed < 2**64


def _in_arithmetic(x: exp.Expression) -> bool:
    """Whether ``x`` (maybe negated or parenthesized) is an operand of ``+ - *``."""
    while isinstance(x.parent, (exp.Neg, exp.Paren)):
        x = x.parent
    return isinstance(x.parent, (exp.Add, exp.Sub, exp.Mul))


def _bigint_number(x: exp.Expression) -> bool:
    """``CAST(n AS BIGINT)`` of a whole number: a BIGINT in every engine."""
    return (isinstance(x, exp.Cast) and x.to.this == exp.DataType.Type.BIGINT
            and _whole_number(x.this))


def _one_type_between(x: exp.Between, types: Mapping[str, object] | None) -> None:
    """DataFusion compares ``x BETWEEN a AND b`` in one type for both bounds: with a DOUBLE
    bound (a fraction) and a whole one, DOUBLE, where Spark compares each bound in its own
    (``a BETWEEN -9223372036854775807 AND 0.5`` holds for BIGINT's least there). So against
    an integer, DOUBLE or FLOAT column the whole bound is written as the DOUBLE it becomes."""
    bounds = [b.this if isinstance(b, exp.Neg) else b for b in (x.args["low"], x.args["high"])]
    numbers = [b for b in bounds if isinstance(b, exp.Literal) and not b.is_string]
    whole = [b for b in numbers if not ("." in b.this or "e" in b.this.lower())]
    kind = _kind(x.this, types) if isinstance(x.this, exp.Column) else None
    if len(whole) == 1 and len(numbers) == 2 and (kind in _INTEGER_KINDS or kind in (
            "double", "float")) and int(whole[0].this) < 2**64:
        whole[0].replace(exp.Literal.number(f"{whole[0].this}E0"))


def _decimal_target(lit: exp.Literal) -> tuple[int, int] | None:
    """(p, s) where ``lit``, maybe negated, is cast to DECIMAL(p, s), else None."""
    parent = lit.parent
    while isinstance(parent, (exp.Neg, exp.Paren)):
        parent = parent.parent
    if not isinstance(parent, exp.Cast) or parent.to.this != exp.DataType.Type.DECIMAL:
        return None
    params = [q.this for q in parent.to.expressions]
    if len(params) != 2 or not all(isinstance(q, exp.Literal) and q.this.isdigit()
                                   for q in params):
        return None
    return int(params[0].this), int(params[1].this)


def _at_places(value: float, scale: int) -> decimal.Decimal | None:
    """Arrow's cast of a DOUBLE to a DECIMAL of ``scale``, in units of the scale: the DOUBLE
    times 10**scale (a DOUBLE product), rounded half away from zero (DataFusion's ``CAST(1.005
    AS DECIMAL(10, 2))`` is 1.00)."""
    if not math.isfinite(value) or scale > 22:  # 10**scale exact as a DOUBLE up to 22
        return None
    return decimal.Decimal(value * float(10**scale)).to_integral_value(decimal.ROUND_HALF_UP)


def _double_against_decimal(lit: exp.Literal, value: float, decimals: set[tuple[int, int]]
                            ) -> exp.Expression | None:
    """DataFusion compares a DECIMAL(p, s) column with a DOUBLE ``value`` (``lit``, maybe
    negated) in DECIMAL(min(38, t + max(p - s, 15)), t), t = max(s, 15): the DOUBLE cast by
    Arrow (``_at_places``), the column exactly (the query fails where it overflows the type).
    Writes the bound that makes Spark compare the same way: the DOUBLE at t places, where
    Spark's type for the two holds them in 38 digits; else, p - s > 23, the bound at the
    column's scale that gives the same rows (Spark would round a literal of more places into
    the column's scale, keeping its integral digits). Returns the node written in its place
    (or in its comparison's), or None where the comparison stays another one (the DOUBLE
    kept: unknown)."""
    if len(decimals) != 1:
        return None
    ((p, s),) = decimals
    places = max(s, 15)
    units = _at_places(value, places)
    if units is None or abs(units) >= 10 ** min(38, places + max(p - s, 15)):
        return None
    if p - s <= 38 - places:
        return lit.replace(exp.Literal.number(_decimal_text(int(units), places)))
    return _bound_at_scale(lit, int(units), places - s, s)


def _decimal_text(units: int, scale: int) -> str:
    """``units`` in units of 10**-scale, as exact text (``_decimal_text(-15, 1)`` is
    ``-1.5``)."""
    return f"{decimal.Decimal(units).scaleb(-scale, decimal.Context(prec=80)):f}"


# Where a column's values lie on a grid of 10**-s and a bound b does not, ``x < b`` is ``x <
# ceil(b)`` and ``x <= b`` is ``x <= floor(b)`` on the grid: which rounding each comparison
# takes, with the literal on its right (on its left, the other one).
_ROUND_UP = {exp.LT: True, exp.GTE: True, exp.LTE: False, exp.GT: False}


def _bound_at_scale(lit: exp.Literal, units: int, shift: int, scale: int
                    ) -> exp.Expression | None:
    """Write ``lit`` (in ``units`` of 10**-(scale + shift), maybe negated) compared with
    values of ``scale`` decimal places as the bound of ``scale`` places that keeps the same
    rows: itself where it has no more places; else, by the comparison, the grid point below
    or above it; an equality never holds (an empty range: ``x BETWEEN ceil AND floor``), an
    IN list's item is dropped. Returns the node written in its place or its comparison's (the
    list), or None where the comparison is another one."""
    operand, sign = lit, 1
    while isinstance(operand.parent, (exp.Neg, exp.Paren)):
        sign = -sign if isinstance(operand.parent, exp.Neg) else sign
        operand = operand.parent
    floor = (sign * units) // 10**shift
    exact = floor * 10**shift == sign * units
    ceil = floor if exact else floor + 1

    def at_scale(v: int) -> exp.Expression:
        number = exp.Literal.number(_decimal_text(abs(v), scale))  # (its own sign: -1.5E-7)
        return exp.Neg(this=number) if v < 0 else number

    node = operand.parent
    if exact:
        return operand.replace(at_scale(floor))
    if isinstance(node, exp.Between) and operand.arg_key in ("low", "high"):
        return operand.replace(at_scale(ceil if operand.arg_key == "low" else floor))
    if type(node) in _ROUND_UP:
        up = _ROUND_UP[type(node)] == (operand.arg_key == "expression")
        return operand.replace(at_scale(ceil if up else floor))
    if isinstance(node, (exp.EQ, exp.NEQ, exp.In)):
        other = node.this if operand is not node.this else node.expression
        if isinstance(node, exp.In):
            operand.pop()
            if node.expressions:
                return node
            other = node.this
        never = exp.Between(this=other.copy(), low=at_scale(ceil), high=at_scale(floor))
        written = exp.Not(this=exp.Paren(this=never)) if isinstance(node, exp.NEQ) else never
        node.replace(written)
        return written
    return None


def _partners(x: exp.Expression) -> list[exp.Column | exp.Cast]:
    """The columns ``x`` (a literal, maybe negated or in an IN list) is compared with, or
    casts of columns (``_kind`` gives the type cast to)."""
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


def _decimals_meet_alike(col: exp.Column, types: Mapping[str, object] | None) -> bool:
    """Two DECIMAL columns compared: exact in Spark only where their wider type has at most
    38 digits (else Spark rounds one into a smaller scale)."""
    mine = _DECIMAL.fullmatch(_kind(col, types) or "")
    if not mine or not isinstance(col.parent, exp.Predicate):
        return True
    for other in col.parent.iter_expressions():
        theirs = _DECIMAL.fullmatch(_kind(other, types) or "") if isinstance(
            other, exp.Column) and other is not col else None
        if theirs:
            (p, s), (q, t) = (int(mine[1]), int(mine[2])), (int(theirs[1]), int(theirs[2]))
            if max(s, t) + max(p - s, q - t) > 38:
                return False
    return True


_DECIMAL = re.compile(r"decimal(?:32|64|128|256)?\((\d+),\s*(\d+)\)")


def _read_alike(x: exp.Expression, reads: Engine, types: Mapping[str, object] | None) -> bool:
    """Whether ``x``, outside what every dialect shares, reads in this engine as in Spark."""
    if isinstance(x, (exp.NullSafeEQ, exp.NullSafeNEQ)):
        return reads.distinct_from
    if isinstance(x, exp.Like):
        return reads.plain_like and _plain_like(x, types, reads.backslash_escapes)
    if isinstance(x, exp.Div):
        family = _family(x.this, types)
        return _whole_number(x.expression, nonzero=True) and (
            (family == "double" and reads.division_by_a_number)
            or (family == "integer" and reads.integers_divide_as_doubles))
    if isinstance(x, (exp.CurrentDate, exp.Interval)) or (
            isinstance(x, (exp.Add, exp.Sub)) and isinstance(x.this, exp.CurrentDate)):
        return reads.current_date and _today_against_dates(x, types)
    if isinstance(x, (exp.Add, exp.Sub, exp.Mul)):
        return reads.integer_arithmetic and all(
            _integer_operand(side, types) for side in (x.this, x.expression))
    if isinstance(x, (exp.Year, exp.Month, exp.Day)):
        return reads.calendar_of_dates and _family(x.this, types) == "date"
    if isinstance(x, exp.Extract):  # EXTRACT(YEAR FROM d), date_part('year', d)
        return (reads.calendar_of_dates and x.name.upper() in ("YEAR", "MONTH", "DAY")
                and _family(x.expression, types) == "date")
    if isinstance(x, exp.Abs):
        return reads.absolute_value and _family(x.this, types) in ("integer", "double")
    if isinstance(x, (exp.Substring, exp.Left)):
        return _string_prefix(x, reads, types)
    if isinstance(x, exp.ILike):
        pattern = x.expression
        return (reads.ascii_ilike and _plain_like(x, types) and pattern.this.isascii()
                and not set(pattern.this.lower()) & {"i", "_"})
    if isinstance(x, exp.TimestampTrunc):
        return (reads.truncated_wall_times and isinstance(x.unit, exp.Var)
                and x.unit.name.upper() in _SPELLED_OUT_UNITS
                and isinstance(x.this, exp.Column) and _kind(x.this, types) in _NAIVE)
    return False


# Units of date_trunc that Spark and DuckDB spell and read alike (DuckDB's 'mm' is no month)
_SPELLED_OUT_UNITS = {"YEAR", "QUARTER", "MONTH", "WEEK", "DAY", "HOUR", "MINUTE", "SECOND",
                      "MILLISECOND", "MICROSECOND"}
_NAIVE = ("timestamp[s]", "timestamp[ms]", "timestamp[us]")


def _today_against_dates(x: exp.Expression, types: Mapping[str, object] | None) -> bool:
    """``CURRENT_DATE``, ``CURRENT_DATE - 7`` or ``CURRENT_DATE + INTERVAL '7' DAY`` (``x`` or
    a part of it) compared with DATE columns only: a DATE, or its midnight, in both."""
    if isinstance(x, exp.Interval):
        unit = x.unit.name.upper() if isinstance(x.unit, exp.Var) else ""
        step = x.this.this if isinstance(x.this, exp.Literal) else ""
        return unit in ("DAY", "DAYS") and step.isdigit() and int(step) < 2**31 and (
            isinstance(x.parent, (exp.Add, exp.Sub)) and isinstance(x.parent.this,
                                                                     exp.CurrentDate))
    top = x.parent if isinstance(x, exp.CurrentDate) and isinstance(
        x.parent, (exp.Add, exp.Sub)) and x.parent.this is x else x
    step = top.expression if isinstance(top, (exp.Add, exp.Sub)) else None
    if step is not None and not (isinstance(step, exp.Interval) or (
            isinstance(step, exp.Literal) and _whole_number(step) and int(step.this) < 2**31)):
        return False  # a whole number of days Spark takes as an INT
    partners = _partners(top)
    return bool(partners) and all(_family(c, types) == "date" for c in partners)


def _cast_read_alike(x: exp.Cast, reads: Engine, types: Mapping[str, object] | None,
                     utc: bool) -> bool:
    """``CAST('...' AS DATE)`` (and ``DATE '...'``) everywhere; in an engine whose entry says
    so, a widening cast of an integer column and a wall-time TIMESTAMP literal in UTC."""
    if x.to.this == exp.DataType.Type.DATE and isinstance(x.this, exp.Literal) and (
            x.this.is_string):
        return True
    return _bigint_number(x) or (reads.widening_casts and _widening(x, types)) or (
        reads.truncating_casts and _truncating(x, types)) or (
        reads.naive_timestamps and utc and _naive_timestamp(x, types, reads)) or (
        reads.timestamps_as_dates and utc and _date_time_cast(x, types)) or (
        reads.fractions_are_double and (_decimal_literal(x, types) or _double_literal(
            x, types)))


_DOUBLE_TEXT = re.compile(r"-?\d+(\.\d+)?|-?inf(inity)?|nan", re.IGNORECASE)


def _double_literal(x: exp.Cast, types: Mapping[str, object] | None) -> bool:
    """``CAST(5 AS DOUBLE)``, ``CAST('1.5' AS DOUBLE)``, ``CAST('Infinity' AS DOUBLE)``: the
    nearest DOUBLE (or the infinity, NaN) in both, against anything but a DECIMAL column
    (which a DOUBLE meets as a DECIMAL of its own in DataFusion)."""
    number = x.this.this if isinstance(x.this, exp.Neg) else x.this
    if x.to.this != exp.DataType.Type.DOUBLE or not isinstance(number, exp.Literal) or (
            number.is_string and (number is not x.this or not _DOUBLE_TEXT.fullmatch(
                number.this))):
        return False
    return not any(_DECIMAL.fullmatch(_kind(c, types) or "") for c in _partners(x))


_INTEGER_KINDS = {"int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64"}


def _decimal_literal(x: exp.Cast, types: Mapping[str, object] | None) -> bool:
    """``CAST(n AS DECIMAL(p, s))`` of a number that DECIMAL holds (``read_engine_numbers``
    has written a fraction as the engine casts it) against integer or DECIMAL columns whose
    wider type with DECIMAL(p, s) has at most 38 digits: the same value compared exactly in
    both. Not against a DOUBLE column, which DataFusion casts to a DECIMAL of 15 places (by
    the DOUBLE product, rounded) where Spark compares in DOUBLE."""
    number = x.this.this if isinstance(x.this, exp.Neg) else x.this
    target = _decimal_target(number) if isinstance(number, exp.Literal) else None
    if target is None or number.is_string or "e" in number.this.lower():
        return False
    p, s = target
    whole, _, fraction = number.this.partition(".")
    if len(fraction.rstrip("0")) > s or len(whole.lstrip("0")) > p - s:
        return False
    for col in _partners(x):
        kind = _kind(col, types) or ""
        theirs = _DECIMAL.fullmatch(kind)
        if theirs:
            q, t = int(theirs[1]), int(theirs[2])
            if max(s, t) + max(p - s, q - t) > 38:
                return False
        elif kind not in _INTEGER_KINDS:
            return False
    return True


_WALL_OR_UTC = re.compile(r"timestamp\[(s|ms|us|ns)(, tz=(utc|etc/utc|\+00:00|z))?\]")


def _date_time_cast(x: exp.Cast, types: Mapping[str, object] | None) -> bool:
    """``CAST(ts AS DATE)`` of a TIMESTAMP column without a zone or in UTC, ``CAST(d AS
    TIMESTAMP)`` of a DATE column (``Engine.timestamps_as_dates``)."""
    if not isinstance(x.this, exp.Column):
        return False
    if x.to.this == exp.DataType.Type.DATE:
        return _WALL_OR_UTC.fullmatch(_kind(x.this, types) or "") is not None
    return x.to.this == exp.DataType.Type.TIMESTAMP and _family(x.this, types) == "date"


_WALL_TIME = re.compile(r"\d{4}-\d{2}-\d{2}( \d{2}:\d{2}:\d{2}(\.\d{1,6})?)?")


def _naive_timestamp(x: exp.Cast, types: Mapping[str, object] | None,
                     reads: Engine) -> bool:
    """``TIMESTAMP 'yyyy-mm-dd[ hh:mm:ss[.ffffff]]'`` against TIMESTAMP columns without a zone
    and of at most microseconds: a wall time against wall times in DuckDB, which is Spark's
    reading when the session zone is UTC (the caller's condition; elsewhere Spark moves wall
    times in a gap). Against columns in UTC too where ``Engine.utc_timestamps``, against
    DATEs too, at their midnight, where ``Engine.timestamps_as_dates``, and against
    nanosecond columns where ``Engine.timestamp_literals_cast``."""
    partners = _partners(x)
    if not (x.to.this in (exp.DataType.Type.TIMESTAMP, exp.DataType.Type.TIMESTAMPNTZ)
            and isinstance(x.this, exp.Literal) and x.this.is_string):
        return False
    wall = _WALL_TIME.fullmatch(x.this.this)
    # DataFusion casts the literal to a coarser column's unit (truncating): only a literal
    # the column's unit holds is the same instant in both (``_read_timestamp_literals``
    # writes it so)
    digits = len((wall[2] or ".")[1:].rstrip("0")) if wall else 0

    def holds(kind: str | None) -> bool:
        if reads.timestamps_as_dates and kind == "date32[day]":
            return True
        unit = _timestamp_unit(kind, reads)
        return unit is not None and digits <= _FRACTION_DIGITS[unit]

    return wall is not None and bool(partners) and all(holds(_kind(c, types)) for c in partners)


_FRACTION_DIGITS = {"s": 0, "ms": 3, "us": 6, "ns": 9}


def _timestamp_unit(kind: str | None, reads: Engine) -> str | None:
    """The unit of a TIMESTAMP column of type ``kind`` whose values the engine compares with a
    wall-time literal as Spark does in UTC (module docstring), else None: without a zone, in
    UTC where ``Engine.utc_timestamps``, in nanoseconds where
    ``Engine.timestamp_literals_cast``."""
    m = _WALL_OR_UTC.fullmatch(kind or "")
    if m is None or (m[2] and not reads.utc_timestamps) or (
            m[1] == "ns" and not reads.timestamp_literals_cast):
        return None
    return m[1]


def _against_utc_columns(x: exp.Expression, types: Mapping[str, object] | None,
                         reads: Engine) -> bool:
    """Whether every TIMESTAMP column ``x`` meets is one in UTC the engine reads as Spark does
    in UTC, or has no zone."""
    partners = _partners(x)
    return bool(partners) and all(
        _timestamp_unit(_kind(c, types), reads) is not None or "tz=" not in (
            _kind(c, types) or "") for c in partners)


def _widening(x: exp.Cast, types: Mapping[str, object] | None) -> bool:
    """``CAST(c AS BIGINT)`` or ``CAST(c AS DOUBLE)`` of an integer column, signed or not, and
    ``CAST(f AS DOUBLE)`` of a DOUBLE one: the same value in every engine (beyond 2**53 the
    nearest DOUBLE in both; an unsigned value beyond BIGINT fails the query in DuckDB and
    DataFusion, Spark's ANSI mode too). ``CAST(d AS DOUBLE)`` of a DECIMAL(p, s) column with
    p <= 15: the nearest DOUBLE in both (Arrow divides the unscaled integer, exact below 2**53,
    by 10**s, once rounded; Java rounds the DECIMAL once)."""
    if not isinstance(x.this, exp.Column):
        return False
    kind = _kind(x.this, types) or ""
    decimal = _DECIMAL.fullmatch(kind)
    if x.to.this == exp.DataType.Type.DOUBLE:
        return kind in _INTEGER_KINDS or _family(x.this, types) in ("integer", "double") or (
            decimal is not None and int(decimal[1]) <= 15)
    return x.to.this == exp.DataType.Type.BIGINT and (
        kind in _INTEGER_KINDS or _family(x.this, types) == "integer")


def _truncating(x: exp.Cast, types: Mapping[str, object] | None) -> bool:
    """``CAST(c AS BIGINT)`` of a DOUBLE column (``Engine.truncating_casts``), or of a
    DECIMAL(p, s) column with p - s <= 15 (whose truncations BIGINT and DOUBLE hold), toward
    zero in both: compared with whole numbers the engine drops the cast
    (``_drop_integer_casts_of_decimals`` has written it so), against DOUBLEs it keeps it."""
    if x.to.this != exp.DataType.Type.BIGINT:
        return False
    decimal = _DECIMAL.fullmatch(_kind(x.this, types) or "") if isinstance(
        x.this, exp.Column) else None
    return _family(x.this, types) == "double" or (
        decimal is not None and int(decimal[1]) - int(decimal[2]) <= 15)


def _plain_like(x: exp.Like, types: Mapping[str, object] | None,
                backslash_escapes: bool = False) -> bool:
    """``s LIKE 'pattern'`` (or NOT LIKE) on a string column, without ESCAPE and without a
    backslash (an escape in Spark, a plain character in DuckDB); ``backslash_escapes``: with
    backslashes each escaping a ``%``, a ``_`` or a backslash (``Engine.backslash_escapes``:
    the engine escapes as Spark does there; before another character, or at the end, Spark
    refuses the pattern)."""
    pattern = x.expression
    if isinstance(x.parent, exp.Escape) or _family(x.this, types) != "string" or not (
            isinstance(pattern, exp.Literal) and pattern.is_string):
        return False
    if not backslash_escapes:
        return "\\" not in pattern.this
    return _ESCAPES_ALIKE.fullmatch(pattern.this) is not None


# A LIKE pattern whose every backslash escapes %, _ or a backslash.
_ESCAPES_ALIKE = re.compile(r"(?:[^\\]|\\[%_\\])*", re.DOTALL)


def _whole_number(x: exp.Expression, nonzero: bool = False) -> bool:
    """A literal whole number within BIGINT (a negated one too); ``nonzero``: not 0."""
    if isinstance(x, exp.Neg):
        return _whole_number(x.this, nonzero)
    if not isinstance(x, exp.Literal) or x.is_string or not x.this.isdigit():
        return False
    return int(x.this) < 2**63 and not (nonzero and int(x.this) == 0)


def _zero(x: exp.Expression) -> bool:
    """A number literal equal to 0 (``-0.0`` too)."""
    while isinstance(x, (exp.Neg, exp.Paren, exp.Cast)):
        x = x.this
    if not isinstance(x, exp.Literal) or x.is_string:
        return False
    try:
        return decimal.Decimal(x.this) == 0
    except decimal.InvalidOperation:
        return False


def _positive(x: exp.Expression) -> bool:
    """A literal whole number above 0 (a count of characters)."""
    return isinstance(x, exp.Literal) and _whole_number(x, nonzero=True)


def _integer_operand(x: exp.Expression, types: Mapping[str, object] | None) -> bool:
    """An integer column, a whole number, or integer arithmetic (each checked on its own)."""
    while isinstance(x, (exp.Paren, exp.Neg)):
        x = x.this
    return (_family(x, types) == "integer" or _whole_number(x) or _bigint_number(x)
            or isinstance(x, (exp.Add, exp.Sub, exp.Mul)))


def _string_read_alike(lit: exp.Literal, reads: Engine,
                       types: Mapping[str, object] | None) -> bool:
    """A string literal that the engine reads as Spark does: compared by ``=``, ``<>`` or
    ``IN`` with a string column (in every dialect: equality has no collation order and no
    coercion) or, where the engine's entry says so, with a prefix of one; a LIKE pattern it
    reads alike; a bound ordered against either where both order strings by their bytes."""
    parent = lit.parent
    if reads.timestamps_as_dates and isinstance(parent, (*_COMPARISONS, exp.Between, exp.In)) and (
            _day(lit.this) and _partners(lit)
            and all(_kind(c, types) == "date32[day]" for c in _partners(lit))):
        return True  # 'yyyy-mm-dd' against DATEs: that DATE in both
    if isinstance(parent, exp.Like):
        return reads.plain_like and parent.expression is lit and _plain_like(
            parent, types, reads.backslash_escapes)
    if isinstance(parent, exp.ILike):
        return parent.expression is lit and _read_alike(parent, reads, types)
    if isinstance(parent, exp.Tuple):
        parent = parent.parent
    if isinstance(parent, _EQUALITIES):
        other = parent.this if isinstance(parent, exp.In) or parent.this is not lit else (
            parent.expression)
        kind = _kind(other, types) if isinstance(other, exp.Column) else None
        return (kind is not None and ("string" in kind or "utf8" in kind)) or _string_prefix(
            other, reads, types)
    if not reads.strings_by_bytes:
        return False
    if isinstance(parent, exp.Between):
        return _stringy(parent.this, reads, types)
    if isinstance(parent, (exp.LT, exp.LTE, exp.GT, exp.GTE)):
        other = parent.expression if parent.this is lit else parent.this
        return _stringy(other, reads, types)
    return False


def _day(text: str) -> bool:
    """``yyyy-mm-dd``, a day of years 1-9999."""
    try:
        return len(text) == 10 and datetime.date.fromisoformat(text) is not None
    except ValueError:
        return False


def _stringy(x: exp.Expression, reads: Engine, types: Mapping[str, object] | None) -> bool:
    """A string column, or a prefix of one that the engine reads as Spark does."""
    return _family(x, types) == "string" or _string_prefix(x, reads, types)


def _string_prefix(x: exp.Expression, reads: Engine, types: Mapping[str, object] | None
                   ) -> bool:
    """``substring(s, 1, k)`` or ``left(s, k)`` of a string column, ``k`` a positive whole
    number: its first ``k`` characters in both (DuckDB's ``left`` of a negative ``k`` drops
    characters from the end, Spark's gives ''; a ``substring`` from elsewhere is no prefix)."""
    if not reads.string_prefixes:
        return False
    if isinstance(x, exp.Substring):
        start, length = x.args.get("start"), x.args.get("length")
        return (_family(x.this, types) == "string" and isinstance(start, exp.Literal)
                and start.this == "1" and not start.is_string
                and _positive(length))
    if isinstance(x, exp.Left):
        return _family(x.this, types) == "string" and _positive(x.expression)
    return False


# The type a cast of a column gives, by the name _kind gives a column of that type (Spark's
# TIMESTAMP keeps microseconds).
_CAST_KINDS = {exp.DataType.Type.DATE: "date32[day]", exp.DataType.Type.TIMESTAMP: "timestamp[us]",
               exp.DataType.Type.DOUBLE: "double", exp.DataType.Type.BIGINT: "int64"}


def _kind(col: exp.Column | exp.Cast, types: Mapping[str, object] | None) -> str | None:
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


def _family(x: exp.Expression, types: Mapping[str, object] | None) -> str | None:
    """"integer" (signed), "double", "string" or "date" for a column of that type, else
    None."""
    if not isinstance(x, exp.Column):
        return None
    return _FAMILIES.get(_kind(x, types) or "")


def read_predicate(text: str, dialect: str, types: Mapping[str, object] | None, *,
                   time_zone: str | None = None) -> n.Node:
    """A predicate in ``dialect`` as a tree read with Spark's rules, each part that may not
    mean in ``dialect`` what it means in Spark made an unknown leaf (``nodes.Opaque``): the
    smallest boolean part holding the construct, named in ``explain()``. Errors stay errors:
    text the dialect cannot parse, an unknown column (an unknown leaf's columns are still
    resolved) and a predicate that is surely not a boolean. ``time_zone``: the session zone the
    predicate is read in (``PruningPredicate``'s), where a construct depends on it.

    >>> read_predicate('"Ship Mode" = \\'AIR\\' AND qty > 5', "postgres", {"ship mode": "string",
    ...                                                                   "qty": "int"}).sql()
    "`Ship Mode` = 'AIR' AND qty > 5"
    >>> explained = read_predicate("x ILIKE 'i%' OR x = 'b'", "duckdb", {"x": "string"})
    >>> explained.display()
    "<duckdb reads x ILIKE 'i%' otherwise than Spark: x ILIKE 'i%'> OR x = 'b'"
    """
    from prunekit.expr.syntax.sql import parse

    dialect = check_dialect(dialect)
    if dialect in SPARK:
        return parse(text)
    try:
        tree = sqlglot.parse_one(text, read=syntax(dialect))
    except (ParseError, TokenError) as e:
        first = (getattr(e, "errors", None) or [{}])[0]
        raise SqlSyntaxError(f"malformed SQL in {dialect}: {first.get('description') or e}",
                             first.get("line", 1), first.get("col", 1)) from None
    if tree is None:
        raise SqlSyntaxError(f"not a single boolean expression: {text!r}", 1, 1)
    tree = read_engine_numbers(tree, dialect, types)
    tree = _fold_null_comparisons(tree, types)
    _drop_integer_casts_of_decimals(tree, dialect, types)  # (before the split's own = 0)
    tree = _split_zero_items(tree, dialect, types)
    utc = time_zone is not None and time_zone.upper() in ("UTC", "ETC/UTC", "Z", "+00:00")
    if utc:
        _read_timestamp_literals(tree, dialect, types)
    parts = _opaque_parts(tree, _unportable(tree, dialect, types, utc), dialect)
    if not parts:
        return parse(tree.sql(dialect="spark"))
    if parts[0][0] is tree and not isinstance(tree, _BOOLEAN) and _surely_not_boolean(
            tree, dialect, types):
        raise TypeMismatchError(f"not a boolean predicate: {tree.sql(dialect=syntax(dialect))}")
    opaque = {}
    for i, (part, why) in enumerate(parts):
        # Columns as Spark reads their names (struct fields too): bound, so an unknown one is
        # an error, as anywhere else in the predicate.
        columns = tuple(parse(c.sql(dialect="spark")) for c in part.find_all(exp.Column))
        shown = part.expressions[1] if _is_unknown_part(part) else part
        opaque[f"{_PLACEHOLDER}{i}"] = n.Opaque(shown.sql(dialect=syntax(dialect)), why, columns)
        marker = exp.Anonymous(this=f"{_PLACEHOLDER}{i}", expressions=[])
        if part is tree:
            tree = marker
        else:
            part.replace(marker)
    # Every function call of another dialect is a part made opaque, so after the swap no
    # call left in the tree can have a placeholder's name.
    return n.transform(parse(tree.sql(dialect="spark")), lambda node: opaque.get(
        node.name, node) if isinstance(node, n.Func) and not node.args else node)


_PLACEHOLDER = "__prunekit_opaque_"
# sqlglot nodes that are booleans whatever their arguments.
_BOOLEAN = (exp.Predicate, exp.Connector, exp.Not, exp.Boolean, exp.IsNan)


def _opaque_parts(tree: exp.Expression, found: list[tuple[exp.Expression, str]],
                  dialect: str) -> list[tuple[exp.Expression, str]]:
    """The parts of ``tree`` to make unknown leaves, each with why: for each construct found,
    the smallest boolean part holding it (a comparison, a LIKE, a term of an AND, OR or NOT,
    or the whole predicate); a part inside another one is left to it. Parts are told apart by
    identity: sqlglot's equality is structural, and two equal parts are both made unknown."""
    chosen: dict[int, tuple[exp.Expression, str]] = {}
    for node, what in found:
        part = node
        while not isinstance(part, _BOOLEAN) and part.parent is not None and not (
                isinstance(part.parent, (exp.And, exp.Or, exp.Not))):
            part = part.parent
        while isinstance(part.parent, exp.Paren):
            part = part.parent
        chosen.setdefault(id(part), (part, what))
    outer = []
    for part, what in chosen.values():
        ancestor = part.parent
        while ancestor is not None and id(ancestor) not in chosen:
            ancestor = ancestor.parent
        if ancestor is None:
            outer.append((part, f"{dialect} reads {what} otherwise than Spark"))
    return outer


def _surely_not_boolean(tree: exp.Expression, dialect: str,
                        types: Mapping[str, object] | None) -> bool:
    """Whether sqlglot types the whole predicate in ``dialect`` as something other than a
    boolean (``x + 1``, ``length(s)``); unknown types (a function sqlglot does not know) are
    given the benefit of the doubt."""
    from sqlglot.optimizer.annotate_types import annotate_types
    from sqlglot.optimizer.qualify import qualify

    named = {name: _sql_type(t) for name, t in (types or {}).items()}
    schema = {"t": {name: t for name, t in named.items() if t is not None}}
    try:
        query = qualify(exp.select(tree.copy()).from_("t"), schema=schema, dialect=syntax(dialect),
                        validate_qualify_columns=False)
        got = annotate_types(query, schema=schema, dialect=syntax(dialect)).selects[0].type
    except Exception:  # noqa: BLE001 - sqlglot cannot type it: not surely anything
        return False
    return got is not None and not got.is_type(exp.DataType.Type.BOOLEAN,
                                               exp.DataType.Type.UNKNOWN)


def _sql_type(t: object) -> str | None:
    """A column's type as SQL names it, for sqlglot's typing (``render.type_sql``, Spark's
    names); None for a type without one."""
    from prunekit.expr.syntax.render import type_sql

    if isinstance(t, str):
        return t
    try:
        return type_sql(t)
    except (UnsupportedError, AttributeError, TypeError):
        return None


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
