"""The engines prunekit reads other SQL dialects for, as data: per engine, which constructs it
computes as Spark does (``Engine``: one flag per construct; False, the safe answer, makes the
construct an unknown leaf), and which sqlglot dialect parses its text (``syntax``).
``expr/syntax/dialects.py`` says where dialects part ways; each entry is checked against the
engine's own rows where the engine is at hand (DuckDB, DataFusion: tests/expr/test_dialects.py).

>>> engine("duckdb").strings_by_bytes, engine("trino").nan_as_spark
(True, False)
"""

from __future__ import annotations

from dataclasses import dataclass

import sqlglot
from sqlglot import exp
from sqlglot.dialects.postgres import Postgres
from sqlglot.tokens import TokenType

from prunekit.errors import UnsupportedError

SPARK = {"spark", "spark2", "databricks"}  # dialects whose text is Spark SQL: read as it is
LISTED = ("spark", "databricks", "duckdb", "datafusion", "postgres", "trino", "snowflake",
          "bigquery")  # the names an unknown dialect's error offers


@dataclass(frozen=True)
class Engine:
    """Which constructs, among those where dialects part ways (the table of
    ``expr/syntax/dialects.py``), an engine reads as Spark does. False is the safe answer: the
    construct becomes an unknown leaf."""

    nan_as_spark: bool = False  # NaN above every number and equal to itself
    exponents_are_double: bool = False  # 1e3 is a DOUBLE
    strings_by_bytes: bool = False  # strings ordered by their UTF-8 bytes, no collation
    plain_like: bool = False  # LIKE without backslash or ESCAPE: % and _ per character
    division_by_a_number: bool = False  # DOUBLE column / nonzero whole number, in DOUBLE
    integers_divide_as_doubles: bool = False  # integer column / nonzero whole number, in DOUBLE
    integer_arithmetic: bool = False  # + - * of integers: exact, an overflow fails the query
    # + - * with a DOUBLE: IEEE 754's, an integer side or a whole number met as its nearest
    # DOUBLE, as in Spark (the NaNs it makes are ``signed_nans``')
    double_arithmetic: bool = False
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
    # x IN (a, b, ...) holds for -0.0 where an a is 0 (DataFusion's sets of two or more
    # numbers may tell 0 from -0.0; one item is ``=``).
    zeros_in_lists: bool = False
    # x = 0.0 beside x = -0.0 (or <>, an IN list) on one column: both hold for either zero
    # (DataFusion's optimizer weighs such equalities by their literals: FALSE together).
    signed_zeros_alike: bool = False
    # v = x, v < x... read as x = v, x > v... (DataFusion's optimizer leaves a constant it
    # folds on the left, and then may take x = v and v = x for two values, folding their AND
    # to FALSE, or keep x >= v for v < x beside it, dropping the strict bound).
    constants_either_side: bool = False
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
    # (DataFusion 55's casts: ``read_timestamp_literals``)
    timestamp_literals_cast: bool = False
    # A LIKE pattern's backslash escapes the %, _ or backslash after it, as in Spark; before
    # another character it is that character, at the end a backslash (DataFusion, Arrow's
    # kernel, where Spark refuses the pattern; DuckDB's LIKE has no escape without ESCAPE)
    backslash_escapes: bool = False
    # A signed integer column divided by a positive whole number truncates toward zero, as
    # Spark's ``div`` (DataFusion; Spark's ``/`` divides in DOUBLE)
    integers_divide_truncating: bool = False
    # CAST(d AS DOUBLE) of a DECIMAL column rounds twice, as Arrow's cast does (the unscaled
    # integer to a DOUBLE, then divided by 10**s): read by that rule (``rounding.py``'s
    # arrow_to_double) where it may part from Spark's nearest DOUBLE (over 15 digits)
    decimal_doubles_by_arrow: bool = False
    # CAST(n AS REAL) of a number: the nearest FLOAT, compared in FLOAT with FLOAT and integer
    # columns and widened to DOUBLE against DOUBLE columns, as Spark does; against a
    # DECIMAL(p, s) column (DataFusion) a DECIMAL of max(s, 7) places (Arrow's cast)
    real_literals: bool = False
    # A 'yyyy-mm-dd' string in an IN list against DATEs (or IS DISTINCT FROM one) is that DATE
    # (DataFusion casts it to the list's type; Spark's legacy mode would compare the whole
    # list as strings)
    date_strings_in_lists: bool = False
    # x BETWEEN a AND b compares x, a and b in one type (DuckDB): with a DOUBLE bound and a
    # whole one, in DOUBLE, where Spark compares each bound in its own (DataFusion does so
    # too; its DOUBLEs are written by read_engine_numbers)
    between_in_one_type: bool = False
    # -x of a signed integer column at its type's least value is that value again, or the
    # query fails (DataFusion's arithmetic wraps; DuckDB's optimizer moves the minus to the
    # constant instead, Spark's binding leaves the row unknown)
    negation_wraps: bool = False
    # x * 1, 1 * x and x / 1 are x, in the type the arithmetic gives (DataFusion's simplifier;
    # BIGINT for an unsigned column below BIGINT, where Spark's arithmetic types it otherwise)
    identity_arithmetic: bool = False
    # -x of a NaN is a NaN with its sign bit set, which the engine's total order puts below
    # every number and apart from NaN (Arrow's kernels: -f = CAST('NaN' AS DOUBLE) is FALSE
    # for a NaN f in DataFusion, TRUE in Spark, whose NaN has no sign)
    negated_nan_below: bool = False
    # a NaN's sign bit orders it (IEEE 754's total order): one with the bit set, as x86's
    # invalid arithmetic makes it (numpy's 0.0 / 0.0), sorts below every number, apart from
    # a NaN without it; statistics count NaNs without their sign (``signed_nans.py``)
    signed_nans: bool = False


ENGINES = {
    "duckdb": Engine(nan_as_spark=True, exponents_are_double=True, strings_by_bytes=True,
                     plain_like=True, division_by_a_number=True,
                     integers_divide_as_doubles=True, integer_arithmetic=True,
                     distinct_from=True, calendar_of_dates=True, absolute_value=True,
                     widening_casts=True, string_prefixes=True, naive_timestamps=True,
                     zeros_in_lists=True, signed_zeros_alike=True, constants_either_side=True,
                     ascii_ilike=True,
                     current_date=True, truncated_wall_times=True, between_in_one_type=True),
    # DataFusion 55, PostgreSQL's syntax (SYNTAX): Arrow's kernels order a NaN without its sign
    # bit above every number, equal to itself (one with it below: ``signed_nans``), and
    # strings by their bytes; integers wrap where they overflow, as
    # Spark's do outside ANSI mode (prunekit allows both), once its literals are BIGINTs; an
    # integer divided by an integer truncates.
    "datafusion": Engine(nan_as_spark=True, exponents_are_double=True, strings_by_bytes=True,
                         plain_like=True, division_by_a_number=True, integer_arithmetic=True,
                         double_arithmetic=True, distinct_from=True, calendar_of_dates=True,
                         absolute_value=True, widening_casts=True, string_prefixes=True,
                         naive_timestamps=True,
                         fractions_are_double=True, float_meets_double=True,
                         whole_numbers_are_bigint=True,
                         utc_timestamps=True, timestamps_as_dates=True,
                         truncating_casts=True, null_in_lists=False,
                         timestamp_literals_cast=True, backslash_escapes=True,
                         integers_divide_truncating=True, decimal_doubles_by_arrow=True,
                         real_literals=True, date_strings_in_lists=True,
                         identity_arithmetic=True, negation_wraps=True,
                         negated_nan_below=True, signed_nans=True),
    "postgres": Engine(nan_as_spark=True, zeros_in_lists=True, signed_zeros_alike=True,
                       constants_either_side=True),
    "snowflake": Engine(nan_as_spark=True, zeros_in_lists=True, signed_zeros_alike=True,
                        constants_either_side=True),
}


_UNMODELLED = Engine()  # every other dialect: only what all of them share


class DataFusionSyntax(Postgres):
    """PostgreSQL's syntax as DataFusion 55 reads it: ``FLOAT`` (with a precision or not) is
    a FLOAT of 32 bits, as ``REAL`` and ``FLOAT4`` are, where PostgreSQL's is a DOUBLE; the
    right side of ``IS [NOT] DISTINCT FROM`` is a whole expression, running to the end of its
    parentheses (its parser reads it as the operand of a prefix operator).

    >>> sqlglot.parse_one("CAST(x AS FLOAT(53))", read=DataFusionSyntax).sql("spark")
    'CAST(x AS FLOAT)'
    >>> sqlglot.parse_one("NOT a IS DISTINCT FROM b AND c", read=DataFusionSyntax).sql("spark")
    'NOT a IS DISTINCT FROM (b AND c)'
    """

    class Tokenizer(Postgres.Tokenizer):
        KEYWORDS = {**Postgres.Tokenizer.KEYWORDS, "FLOAT": TokenType.FLOAT}

    class Parser(Postgres.Parser):
        TYPE_CONVERTERS = {**Postgres.Parser.TYPE_CONVERTERS,
                           exp.DataType.Type.FLOAT: lambda _: exp.DataType.build("FLOAT")}

        def _parse_is_rhs(self, distinct: bool = False) -> exp.Expression | None:
            return self._parse_disjunction() if distinct else super()._parse_is_rhs()


# Dialects sqlglot does not name, by the sqlglot dialect that parses their text (sqlglot
# registers DataFusionSyntax by its name, lower case).
SYNTAX = {"datafusion": "datafusionsyntax"}


def syntax(dialect: str) -> str:
    """The sqlglot dialect that parses and prints ``dialect``'s text.

    >>> syntax("datafusion"), syntax("duckdb")
    ('datafusionsyntax', 'duckdb')
    """
    return SYNTAX.get(dialect, dialect)


def engine(dialect: str) -> Engine:
    """What ``dialect`` reads as Spark does (``ENGINES``; nothing beyond the shared core for a
    dialect it does not list).

    >>> engine("duckdb").strings_by_bytes, engine("trino").nan_as_spark
    (True, False)
    """
    return ENGINES.get(dialect, _UNMODELLED)


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
