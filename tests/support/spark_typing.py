"""Spark's typing of every function and operator prunekit reasons about, checked in real Spark.

For each argument type a small table of values (NULL, NaN, extremes, strings that Spark's casts
read as numbers, dates or NaN) becomes a Spark local relation. Each predicate of the template
table is analysed by Spark in ANSI mode and in legacy mode (``spark.sql.ansi.enabled`` true and
false), optimised as Spark would run it, and evaluated row by row with Catalyst's interpreted
evaluator, so that a row that fails under ANSI (an invalid cast) is one ERROR, not a failed job.
Then prunekit classifies containers made of the same values (every value alone, alone with a
NULL, runs of two and three in sorted order, all of them, only NULLs), and each outcome is held
against the rows of its container:

- NONE_MATCH is unsound if a row is TRUE under a mode Spark runs it in;
- ALL_MATCH is unsound unless every row is TRUE under every mode Spark runs it in;
- a container holding a row that fails under ANSI constrains nothing under ANSI (the query
  fails if it is read);
- a predicate Spark types as something other than BOOLEAN (``c >> 1``), or refuses in both
  modes where the template says it is not a boolean, must be refused by prunekit with a
  ``PrunekitError``; a predicate Spark runs as a BOOLEAN in either mode must be accepted.

``python -m tests.support.spark_typing [type ...]`` prints every violation (the test asserts there
are none).
"""

from __future__ import annotations

import bisect
import contextlib
import datetime as dt
import itertools
import json
import logging
import math
import re
import threading
from collections.abc import Iterator
from dataclasses import dataclass, field
from decimal import Decimal

import pyarrow as pa

import prunekit as pk

ERROR = "ERROR"  # the row fails under this mode (ANSI: an invalid cast, an overflow)
MODES = ("ansi", "legacy")


# ---- argument types and their values ----------------------------------------------------------
@dataclass(frozen=True)
class ArgType:
    name: str
    arrow: pa.DataType
    spark: str  # Spark SQL type name
    values: tuple  # Python values, None is NULL


def _ts(*args: int) -> dt.datetime:
    return dt.datetime(*args, tzinfo=dt.timezone.utc)


F32_2_24 = 16777216.0

TYPES = {t.name: t for t in (
    ArgType("int", pa.int32(), "INT",
            (-2147483648, -7, -1, 0, 1, 2, 10, 2024, 2147483647, None)),
    ArgType("bigint", pa.int64(), "BIGINT",
            (-(2**63), -1, 0, 1, 10, 2024, 2**53 + 1, 2**63 - 1, None)),
    ArgType("float", pa.float32(), "FLOAT",
            (-math.inf, -1.5, 0.0, 1.0, 1.5, 2024.0, F32_2_24, math.inf, math.nan, None)),
    ArgType("double", pa.float64(), "DOUBLE",
            (-math.inf, -1.5, -0.0, 0.0, 0.5, 1.0, 1.5, 10.0, 2024.0, 1e300, math.inf,
             math.nan, None)),
    ArgType("decimal", pa.decimal128(10, 2), "DECIMAL(10,2)",
            tuple(None if v is None else Decimal(v) for v in (
                "-99999999.99", "-1.50", "0.00", "0.50", "1.00", "1.50", "10.00", "2024.00",
                "99999999.99", None))),
    ArgType("wide_decimal", pa.decimal128(38, 10), "DECIMAL(38,10)",
            tuple(None if v is None else Decimal(v) for v in (
                "-1.5000000000", "0E-10", "1E-10", "1.0000000000", "1.5000000000",
                "2024.0000000000",
                "9999999999999999999999999999.9999999999", None))),
    ArgType("string", pa.string(), "STRING",
            ("", " 1", "-1", "0", "1", "1.0", "1.5", "10", "2", "2024", "2024-01-01",
             "2024-1-5", "2024-01-01 12:00:00", "Infinity", "NaN", "abc", "false", "nan",
             "true", "\u00e9t\u00e9", None)),
    ArgType("date", pa.date32(), "DATE",
            (dt.date(1, 1, 1), dt.date(1969, 12, 31), dt.date(1970, 1, 1), dt.date(2023, 12, 31),
             dt.date(2024, 1, 1), dt.date(2024, 2, 29), dt.date(2024, 12, 31),
             dt.date(9999, 12, 31), None)),
    ArgType("timestamp", pa.timestamp("us", tz="UTC"), "TIMESTAMP",
            (_ts(1969, 12, 31, 23, 59, 59, 999999), _ts(1970, 1, 1), _ts(2023, 12, 31, 23, 59, 59),
             _ts(2024, 1, 1), _ts(2024, 1, 1, 12), _ts(2024, 6, 30, 0, 0, 0, 500000), None)),
    ArgType("boolean", pa.bool_(), "BOOLEAN", (False, True, None)),
)}


def spark_literal(v: object, t: ArgType) -> str:
    """``v`` as Spark SQL text of exactly type ``t``."""
    if v is None:
        return f"CAST(NULL AS {t.spark})"
    if t.name in ("float", "double"):
        text = "NaN" if v != v else "Infinity" if v == math.inf else "-Infinity" if (
            v == -math.inf) else repr(v)
        return f"CAST('{text}' AS {t.spark})"
    if t.name in ("int", "bigint", "decimal", "wide_decimal"):
        return f"CAST('{v}' AS {t.spark})"
    if t.name == "string":
        return "'" + v.replace("\\", "\\\\").replace("'", "\\'") + "'"
    if t.name == "date":
        return f"DATE '{v.isoformat()}'"
    if t.name == "timestamp":
        return f"TIMESTAMP '{v.astimezone(dt.timezone.utc).replace(tzinfo=None).isoformat(' ')}'"
    if t.name == "boolean":
        return "true" if v else "false"
    raise AssertionError(t)


# ---- templates --------------------------------------------------------------------------------
# Literals of every kind a user compares with, named so a failure says which.
LITERALS = {
    "int": ("1", "2024", "-1"),
    "int_beyond": ("2147483648",),
    "decimal": ("1.5", "2024.0", "0.00000000005"),
    "decimal_wide": ("CAST(1 AS DECIMAL(38,37))",),  # a comparison's DECIMAL that overflows
    "double": ("1.0E0", "CAST('NaN' AS DOUBLE)"),
    "string_number": ("'1'", "'10'", "'1.5'", "' 2 '"),
    "string_date": ("'2024-01-01'", "'2024-01-01T00:00:00-1:0'"),
    "string_other": ("'abc'", "'NaN'", "''"),
    "date": ("DATE '2024-01-01'",),
    "timestamp": ("TIMESTAMP '2024-01-01 00:00:00'",),
    "boolean": ("true", "false"),
    "null": ("NULL",),
}
ALL_LITERALS = tuple(x for v in LITERALS.values() for x in v)
COMPARISONS = ("=", "<>", "<", "<=", ">", ">=")


def _rotate(ops: tuple, items: tuple, start: int = 0) -> Iterator[tuple[str, str]]:
    """Each item once, with the operators taken in turn: every operator meets every kind of
    item across a table without the full product."""
    for i, x in enumerate(items):
        yield ops[(i + start) % len(ops)], x


@dataclass(frozen=True)
class Template:
    sql: str  # over column ``c``
    family: str  # what is exercised: an operator or a function name
    not_boolean: bool = False  # Spark must refuse it as a predicate, and prunekit too


def comparison_templates() -> list[Template]:
    out = [Template(f"c {op} {lit}", "compare") for op in COMPARISONS for lit in ALL_LITERALS]
    out += [Template(f"{lit} {op} c", "compare") for op, lit in _rotate(COMPARISONS, (
        "1", "1.5", "'1'", "'2024-01-01'", "DATE '2024-01-01'", "true"))]
    out += [Template(f"c <=> {lit}", "<=>") for lit in ("1", "'1'", "NULL", "1.5", "true",
                                                        "DATE '2024-01-01'")]
    out += [Template(f"c IS DISTINCT FROM {lit}", "distinct") for lit in ("1", "'abc'", "NULL")]
    out += [Template(f"c IN ({items})", "in") for items in (
        "1, 2", "1, 'a'", "'1', '2024-01-01'", "1, NULL", "1.5, 2", "1.0E0, 10",
        "DATE '2024-01-01', '2024-01-01'", "true, 1", "'NaN', 1", "2024, '10'",
        "'-0.0', 'abc'", "CAST(1 AS DECIMAL(38,37)), 10")]
    out += [Template(f"c NOT IN ({items})", "not in") for items in (
        "1, 'a'", "'1', 2", "1, NULL", "DATE '2024-01-01'")]
    out += [Template(f"c BETWEEN {a} AND {b}", "between") for a, b in (
        ("0", "10"), ("'0'", "'2'"), ("1.5", "'2024'"), ("DATE '2023-01-01'", "'2024-06-01'"))]
    out += [Template(t, "like") for t in ("c LIKE '1%'", "c LIKE '2024%'", "c LIKE '1'",
                                         "c NOT LIKE 'N%'", "startswith(c, '1')",
                                         "startswith(c, 1)")]
    out += [Template(t, "null") for t in ("c IS NULL", "c IS NOT NULL", "isnull(c)",
                                         "isnotnull(c)")]
    out += [Template(t, "isnan") for t in ("isnan(c)", "NOT isnan(c)")]
    out += [Template(t, "boolean") for t in ("c IS TRUE", "c IS NOT FALSE", "c = true")]
    return out


def boolean_use_templates() -> list[Template]:
    """``c`` where a boolean is expected: legal only for a BOOLEAN column (or where Spark casts
    the column to one)."""
    return [Template(t, "boolean use") for t in (
        "c", "NOT c", "c AND c IS NOT NULL", "c OR c IS NULL", "if(c, true, false)")]


CAST_TARGETS = ("INT", "BIGINT", "FLOAT", "DOUBLE", "DECIMAL(10,2)", "STRING", "DATE",
                "TIMESTAMP", "BOOLEAN")


def cast_templates() -> list[Template]:
    out = []
    for i, to in enumerate(CAST_TARGETS):
        for op, lit in _rotate(COMPARISONS, ("1", "'1.5'", "'2024-01-01'", "1.5", "true",
                                             "DATE '2024-01-01'"), i):
            out.append(Template(f"CAST(c AS {to}) {op} {lit}", "cast"))
        out.append(Template(f"TRY_CAST(c AS {to}) >= '10'", "try_cast"))
    return out


def arithmetic_templates() -> list[Template]:
    out = [Template(t, "negate") for t in ("-c > 1", "-c <= '1'", "-c = 1.5")]
    for i, expr in enumerate(("c + 1", "c - 1", "c * 2", "c / 2", "1 + c", "c + 0.5",
                              "c * 1.5E0", "c + c", "c * c", "c - c", "c / c", "c + '1'",
                              "c * '2'", "c + INTERVAL 1 DAY", "c - INTERVAL 1 HOUR",
                              "c div 2", "c div 3")):
        family = expr.replace("c", "x")
        for op, lit in _rotate(COMPARISONS, ("1", "2024", "'10'", "1.5",
                                             "DATE '2024-01-01'"), i):
            out.append(Template(f"{expr} {op} {lit}", family))
    return out


FUNCTION_LITERALS = ("2024", "1", "1.5", "1.0E0", "'2024'", "'1'", "'abc'", "'2024-01-01'",
                     "DATE '2024-01-01'", "TIMESTAMP '2024-01-01 00:00:00'", "true")
FUNCTIONS = {
    "year": "year(c)", "month": "month(c)", "day": "day(c)", "dayofmonth": "dayofmonth(c)",
    "extract": "EXTRACT(YEAR FROM c)", "date_part": "date_part('month', c)",
    "to_date": "to_date(c)", "date_trunc": "date_trunc('MONTH', c)",
    "trunc": "trunc(c, 'year')", "floor": "floor(c)", "ceil": "ceil(c)", "left": "left(c, 2)",
    "substring": "substring(c, 1, 3)", "substring_all": "substring(c, 1)",
    "coalesce_int": "coalesce(c, 1)", "coalesce_string": "coalesce(c, '1')",
    "coalesce_date": "coalesce(c, DATE '2024-01-01')",
    "if": "if(c IS NULL, 1, c)", "if_string": "if(c IS NULL, 'x', c)",
    "case": "CASE WHEN c IS NULL THEN 10 ELSE c END",
    "case_string": "CASE WHEN c IS NOT NULL THEN c ELSE '2' END",
    "abs": "abs(c)", "sign": "sign(c)", "signum": "signum(c)", "negative": "negative(c)",
    "round": "round(c, 1)", "round_negative": "round(c, -1)", "bround": "bround(c, -1)",
    "round_default": "round(c)", "greatest": "greatest(c, 1)", "least": "least(c, 1)",
    "greatest_null": "greatest(c, NULL)",
    "unix_seconds": "unix_seconds(c)", "unix_millis": "unix_millis(c)",
    "unix_micros": "unix_micros(c)", "unix_timestamp": "unix_timestamp(c)",
    "unix_timestamp_format": "unix_timestamp(c, 'yyyy')",
    "timestamp_seconds": "timestamp_seconds(c)", "timestamp_millis": "timestamp_millis(c)",
    "timestamp_micros": "timestamp_micros(c)", "%": "c % 7", "mod_negative": "mod(c, -3)",
    "mod_zero": "c % 0", "pmod": "pmod(c, 7)", "pmod_negative": "pmod(c, -3)",
    "months_between": "months_between(c, DATE '2024-01-31')",
    "months_between_second": "months_between(DATE '2024-03-31', c, false)",
    "months_between_february": "months_between(c, '2023-02-28')",
    "from_unixtime": "from_unixtime(c)",
}


def function_templates() -> list[Template]:
    out = []
    for i, (family, expr) in enumerate(FUNCTIONS.items()):
        for op, lit in _rotate(COMPARISONS, FUNCTION_LITERALS, i):
            out.append(Template(f"{expr} {op} {lit}", family))
    return out


def not_boolean_templates() -> list[Template]:
    """Values where a predicate is expected, alone and inside every boolean position."""
    values = ("c >> 1", "c << 1", "c & 1", "c | 1", "~c", "c + 1", "abs(c)", "year(c)",
              "floor(c)", "left(c, 2)", "c || 'a'", "coalesce(c, 1)", "length(c)")
    out = [Template(v, "not boolean", not_boolean=True) for v in values]
    for v in ("c >> 1", "abs(c)", "c + 1"):
        out += [Template(t.format(v), "not boolean", not_boolean=True) for t in (
            "c IS NULL AND {}", "c IS NULL OR ({})", "NOT ({})", "if({}, true, false)",
            "CASE WHEN {} THEN true END")]
        # Legacy mode casts a number to BOOLEAN here: a predicate in that mode only.
        out.append(Template(f"({v}) IS TRUE", "not boolean"))
    out.append(Template("c > > 1", "not boolean", not_boolean=True))
    return out


def pair_templates() -> list[Template]:
    """Two columns, ``c`` and ``d``, compared and combined."""
    out = [Template(f"c {op} d", "column compare") for op in COMPARISONS]
    out += [Template("c <=> d", "<=>"), Template("c IS DISTINCT FROM d", "distinct")]
    out += [Template(sql, family) for sql, family in (
        ("c + d > 10", "x + y"), ("c - d >= 1", "x - y"), ("c * d > 100", "x * y"),
        ("c * d <= -1", "x * y"), ("c * d = 0", "x * y"), ("c / d > 1", "x / y"),
        ("c > d AND d > 1", "and"), ("c IN (d, 1)", "in"), ("coalesce(c, d) > 1", "coalesce"))]
    return out


def templates() -> list[Template]:
    return (comparison_templates() + boolean_use_templates() + cast_templates()
            + arithmetic_templates() + function_templates() + not_boolean_templates())


# ---- Spark: analyse, optimise, evaluate row by row ----------------------------------------------
@dataclass
class SparkAnswer:
    """One predicate in one mode: refused at analysis, or typed with a value per row."""

    refused: str | None = None
    type: str | None = None
    rows: list = field(default_factory=list)  # True / False / None / ERROR per row


class SparkTable:
    """The values of one argument type as a Spark local relation, and Catalyst's interpreted
    evaluator over its rows. Calls go through py4j directly (pyspark's error conversion costs
    milliseconds per failed row), and each step takes the expressions together: Spark
    analyses or optimises one plan of hundreds of expressions in the time of a few plans of
    one."""

    def __init__(self, spark, data: Dataset):
        self.spark, self.data = spark, data
        rows = ", ".join("(" + ", ".join(spark_literal(v, t) for v, (_, t) in zip(
            row, data.columns, strict=True)) + ")" for row in data.rows)
        names = ", ".join(name for name, _ in data.columns)
        self.df = spark.sql(f"SELECT * FROM VALUES {rows} AS t({names})")
        jvm = self._jvm = spark._jvm
        self._exprs = jvm.org.apache.spark.sql.catalyst.expressions
        self._project = jvm.org.apache.spark.sql.catalyst.plans.logical.Project
        self._seq = jvm.scala.jdk.javaapi.CollectionConverters
        self._state = spark._jsparkSession.sessionState()
        # Every expression is analysed over this same plan, so that expressions analysed
        # apart read the same attributes and can be put in one projection.
        self._plan = self.df._jdf.queryExecution().analyzed()

    def answers(self, sqls: list[str], mode: str, values: bool = False,
                rows_of: list[range] | None = None) -> list[SparkAnswer]:
        """Each expression in ``mode``: this table's session must be in that mode
        (``mode_sessions``). They are analysed together (``_analysed``); the BOOLEAN ones are
        then optimised and evaluated together (``_rows``). Other values are evaluated only if
        ``values``: a predicate's check reads their type alone. ``rows_of``: the rows each
        expression is evaluated on (its value on the others is None); all by default."""
        assert self.spark.conf.get("spark.sql.ansi.enabled") == str(mode == "ansi").lower()
        with raw_py4j(), self._active():
            out, items = self._analysed(sqls)
            chosen = [i for i, a in enumerate(out)
                      if a.type == "boolean" or values and a.type is not None]
            everywhere = range(len(self.data.rows))
            rows = self._rows([items[i] for i in chosen], [out[i].type for i in chosen],
                              chosen, [everywhere if rows_of is None else rows_of[i]
                                       for i in chosen])
            for i, r in zip(chosen, rows, strict=True):
                out[i].rows = r
        return out

    @contextlib.contextmanager
    def _active(self):
        """This table's session as the thread's active one: the analyser and the optimiser,
        called directly, read their settings there (``SQLConf.get``)."""
        sessions = self._jvm.SparkSession
        before = sessions.getActiveSession()
        sessions.setActiveSession(self.spark._jsparkSession)
        try:
            ansi = self._jvm.org.apache.spark.sql.internal.SQLConf.get().ansiEnabled()
            assert ansi == (self.spark.conf.get("spark.sql.ansi.enabled") == "true")
            yield
        finally:
            if before.isDefined():
                sessions.setActiveSession(before.get())
            else:
                sessions.clearActiveSession()

    def _analysed(self, sqls: list[str]) -> tuple[list[SparkAnswer], list]:
        """Each expression as Spark's analysis of it alone answers (refused, or its type),
        and the analysed expressions (None where refused).

        One projection of them all goes through the analyser without its final check. What
        does not resolve there is refused: the check refuses a plan holding an unresolved
        expression, and each expression of a projection resolves on its own. Every
        ``REFUSALS_SAMPLED``-th of those is also analysed alone, as a DataFrame, and must be
        refused there too. The ones that resolve must then pass Spark's check together, which
        gives their types. Text the parser refuses, and a part of the projection the analyser
        throws on (an error raised while resolving, not by the check), is split in two until
        each part goes through or is one expression, analysed alone."""
        from py4j.protocol import Py4JJavaError

        items: list = [None] * len(sqls)
        parsed, where = self._parsed(sqls)
        if where:
            self._resolve(sqls, parsed, where, items)
        refused = [q for q, item in zip(sqls, items, strict=True) if item is None]
        for q in refused[::REFUSALS_SAMPLED]:
            alone, _ = self._alone(q)
            if alone.refused is None:
                raise AssertionError(f"{q} does not resolve among others, but Spark types it "
                                     f"{alone.type} alone")
        accepted = [item for item in items if item is not None]
        checked = self._project(self._seq.asScala(accepted).toSeq(), self._plan)
        try:
            self._state.analyzer().checkAnalysis(checked)
        except Py4JJavaError as e:
            raise AssertionError(f"resolved in one projection, but Spark refuses them "
                                 f"together: {_first_line(e)}") from None
        types = iter(_simple_type(f["type"]) for f in json.loads(checked.schema().json())[
            "fields"])
        return [SparkAnswer(refused="unresolved") if item is None else SparkAnswer(
            type=next(types)) for item in items], items

    def _parsed(self, sqls: list[str]) -> tuple[object, list[int]]:
        """One parsed projection of the expressions the parser reads, and which they are.
        Each is on its own line of one SELECT, so that a parse error's line names the one
        the parser refuses; that one, refused alone too, is left out."""
        from py4j.protocol import Py4JJavaError

        kept = list(range(len(sqls)))
        while kept:
            lines = [f"({sqls[i]}) AS `_{i}`" for i in kept]
            starts = list(itertools.accumulate((len(x) + 2 for x in lines[:-1]), initial=7))
            try:
                plan = self._state.sqlParser().parsePlan("SELECT\n" + ",\n".join(lines))
            except Py4JJavaError as e:
                line = e.java_exception.line()
                k = line.get() - 2 if line.isDefined() else -1
                if not 0 <= k < len(kept) or self._alone(sqls[kept[k]])[0].refused is None:
                    raise AssertionError(f"a parse error, but on no expression alone: "
                                         f"{_first_line(e)}") from None
                del kept[k]
            else:
                self._lines = (starts, kept)  # where each expression's text starts
                return plan.projectList(), kept
        return None, kept

    def _resolve(self, sqls: list[str], parsed, where: list[int], items: list) -> None:
        """Set ``items`` at ``where`` to the analysed expressions of ``parsed`` (None where
        one does not resolve)."""
        from py4j.protocol import Py4JJavaError

        try:
            plan = self._state.analyzer().execute(self._project(parsed, self._plan))
        except Py4JJavaError:
            if len(where) == 1:
                items[where[0]] = self._alone(sqls[where[0]])[1]
                return
            half = len(where) // 2
            self._resolve(sqls, parsed.slice(0, half), where[:half], items)
            self._resolve(sqls, parsed.slice(half, len(where)), where[half:], items)
            return
        out = plan.projectList()
        for k, i in enumerate(where):
            item = out.apply(k)
            items[i] = item if item.resolved() else None

    def _culprit(self, error, which: list[int]) -> int | None:
        """The position in ``which`` of the expression whose text the error points at."""
        try:
            at = error.java_exception.getQueryContext()[0].startIndex()
        except Exception:  # no context: the caller splits in halves
            return None
        starts, kept = self._lines
        line = bisect.bisect_right(starts, at) - 1
        return which.index(kept[line]) if line >= 0 and kept[line] in which else None

    def _alone(self, sql: str) -> tuple[SparkAnswer, object]:
        """``sql`` analysed alone as a DataFrame column, and its analysed expression."""
        from py4j.protocol import Py4JJavaError

        try:
            jdf = self.df._jdf.selectExpr(self._seq.asScala([sql]).toSeq())
        except Py4JJavaError as e:
            return SparkAnswer(refused=_first_line(e)), None
        item = jdf.queryExecution().analyzed().projectList().apply(0)
        return SparkAnswer(type=item.dataType().simpleString()), item

    def _rows(self, items: list, types: list[str], which: list[int],
              rows_of: list[range]) -> list[list]:
        """Per analysed expression (``which``: their indices in ``_parsed``), its value on each
        row of ``rows_of`` (ERROR where it fails): booleans, or Catalyst's internal form of
        other values (dates as days, timestamps as microseconds). Each is optimised as Spark
        would run it; one whose optimisation fails (a constant that fails, under ANSI) fails
        on every row. They are optimised together; where the optimiser fails, the error's
        place in the text names the expression that failed, and the others on either side of
        it are optimised together again (halves where the error names none of them). Then
        those that read the same rows are evaluated together, one call for all their rows."""
        from py4j.protocol import Py4JJavaError

        n = len(self.data.rows)
        if not items:
            return []
        listed = self._seq.asScala(items).toSeq()
        optimizer = self._state.optimizer()

        def parts(a: int, b: int) -> list[tuple[int, int, object]]:
            try:
                return [(a, b, optimizer.execute(self._project(listed.slice(a, b),
                                                               self._plan)))]
            except Py4JJavaError as e:
                if b - a == 1:
                    return [(a, b, None)]
                k = self._culprit(e, which)
                if k is not None and a <= k < b:
                    return parts(a, k) + [(k, k + 1, None)] + parts(k + 1, b)
                m = (a + b) // 2
                return parts(a, m) + parts(m, b)

        columns: list[list] = [[ERROR] * n for _ in items]
        evaluated, bound, relation = [], None, None
        step = OPTIMISED_TOGETHER
        for a, b, plan in [p for at in range(0, len(items), step)
                           for p in parts(at, min(at + step, len(items)))]:
            if plan is None or a == b:
                continue
            name = plan.getClass().getSimpleName()
            if name == "LocalRelation":  # the expression is the column itself
                exprs, leaf = plan.output(), plan
            elif name == "Project" and plan.child().getClass().getSimpleName() == "LocalRelation":
                exprs, leaf = plan.projectList(), plan.child()
            else:
                raise AssertionError(f"unexpected optimised plan: {plan.toString()}")
            if relation is None:
                relation = leaf
            elif not leaf.output().equals(relation.output()):
                raise AssertionError(f"optimised over another relation: {leaf.toString()}")
            part = self._exprs.BindReferences.bindReferences(
                exprs, getattr(self._exprs, "package$AttributeSeq")(leaf.output()))
            bound = part if bound is None else bound.appendedAll(part)
            evaluated += range(a, b)
        if bound is None:
            return columns
        data = relation.data()
        if data.size() != n:
            raise AssertionError(f"{data.size()} rows, expected {n}")

        def rows(projection, kinds: list[str], where: range) -> list[list]:
            # A projection is a Scala function of a row, and fills the same row each time: a
            # lazy view writes each row's text before the next is evaluated. One call for all.
            text = data.view().slice(where.start, where.stop).map(projection).mkString("\n")
            return [_read_row(line, kinds) for line in text.split("\n")]

        projection = self._exprs.InterpretedMutableProjection.createProjection
        at = 0
        while at < len(evaluated):
            where = rows_of[evaluated[at]]
            end = at + 1
            while end < len(evaluated) and rows_of[evaluated[end]] == where:
                end += 1
            kinds, part = [types[i] for i in evaluated[at:end]], bound.slice(at, end)
            try:
                values = rows(projection(part), kinds, where)
            except Py4JJavaError:  # one fails on a row (ANSI)
                # Each value, and whether it failed (TryEval: NULL). A case class's companion
                # is its constructor as a Scala function.
                wrap = getattr(getattr(self._exprs, "TryEval$"), "MODULE$")
                is_null = getattr(getattr(self._exprs, "IsNull$"), "MODULE$")
                guarded = part.map(wrap).appendedAll(part.map(is_null.andThen(wrap)))
                width = len(kinds)
                values = [[ERROR if failed is None else v for v, failed in zip(
                    both[:width], both[width:], strict=True)]
                    for both in rows(projection(guarded), kinds + ["boolean"] * width, where)]
            for i in evaluated[at:end]:
                columns[i] = [None] * n
            for r, row in zip(where, values, strict=True):
                for i, v in zip(evaluated[at:end], row, strict=True):
                    columns[i][r] = v
            at = end
        return columns


REFUSALS_SAMPLED = 64
OPTIMISED_TOGETHER = 64
_INTEGRAL = {"tinyint", "smallint", "int", "bigint", "date", "timestamp", "timestamp_ntz"}
_JSON_TYPES = {"integer": "int", "long": "bigint", "short": "smallint", "byte": "tinyint"}


def _simple_type(t: object) -> str:
    """A type of a schema's JSON as its ``simpleString``, for the types the tables produce."""
    return _JSON_TYPES.get(t, t) if isinstance(t, str) else json.dumps(t)


def _read_row(text: str, types: list[str]) -> list:
    """The values of a projected row from its text (``[true,null,19723,1.5]``): one py4j
    call per row instead of one per value. A Java float's text is the shortest that reads
    back as that float."""
    cells = text[1:-1].split(",")
    if len(cells) != len(types):
        raise AssertionError(f"{text}: {len(cells)} values, expected {len(types)}")
    out = []
    for v, t in zip(cells, types, strict=True):
        if v == "null":
            out.append(None)
        elif t == "boolean":
            out.append(v == "true")
        elif t in _INTEGRAL:
            out.append(int(v))
        elif t in ("float", "double"):
            out.append(float(v))
        else:
            raise AssertionError(f"no reading of a {t} value from its text")
    return out


def _first_line(e: Exception) -> str:
    try:
        return str(e.java_exception.getMessage()).splitlines()[0][:200]
    except Exception:  # only for messages
        return type(e).__name__


_RAW = threading.Lock()
_raw_users = [0, None]  # threads inside, pyspark's handler to put back


@contextlib.contextmanager
def raw_py4j():
    """py4j's own error path, without pyspark's conversion (and its logging) of each error;
    re-entrant across threads (the patched function is global)."""
    import py4j.java_gateway
    import py4j.protocol

    logger = logging.getLogger("SQLQueryContextLogger")
    with _RAW:
        if _raw_users[0] == 0:
            _raw_users[1] = py4j.java_gateway.get_return_value
            py4j.java_gateway.get_return_value = py4j.protocol.get_return_value
            logger.disabled = True
        _raw_users[0] += 1
    try:
        yield
    finally:
        with _RAW:
            _raw_users[0] -= 1
            if _raw_users[0] == 0:
                py4j.java_gateway.get_return_value = _raw_users[1]
                logger.disabled = False


def session():
    from prunekit.spark_glue import local_session

    spark = local_session("local[1]", **{"spark.sql.shuffle.partitions": "2"})
    spark.sparkContext.setLogLevel("OFF")
    return spark


_MODE_SESSIONS: list = []  # (the session they were made from, the sessions per mode)


def mode_sessions(spark) -> dict:
    """A session per mode (each has its own settings), so the two modes run side by side;
    made once per session (a stopped one is forgotten)."""
    if _MODE_SESSIONS and _MODE_SESSIONS[0][0] is spark and spark._sc._jsc is not None:
        return _MODE_SESSIONS[0][1]
    out: dict = {}
    _MODE_SESSIONS[:] = [(spark, out)]
    for mode in MODES:
        s = spark.newSession()
        s.conf.set("spark.sql.ansi.enabled", "true" if mode == "ansi" else "false")
        # Spark would evaluate a projection of a local relation while optimising it; the rows
        # are evaluated one at a time here instead.
        s.conf.set("spark.sql.optimizer.excludedRules",
                   "org.apache.spark.sql.catalyst.optimizer.ConvertToLocalRelation")
        out[mode] = s
    return out


# ---- datasets, containers and prunekit's answers ----------------------------------------------
@dataclass(frozen=True)
class Dataset:
    """Rows of one or two columns, and the containers (row indices) prunekit classifies."""

    name: str
    columns: tuple  # (name, ArgType) pairs
    rows: tuple  # tuples of values
    containers: tuple  # tuples of row indices

    @property
    def schema(self) -> pa.Schema:
        return pa.schema([(name, t.arrow) for name, t in self.columns])


def _order_key(v: object, t: ArgType):
    if t.name == "string":
        return v.encode("utf-8")
    return v


def _is_nan(v: object) -> bool:
    return isinstance(v, float) and v != v


def single(t: ArgType) -> Dataset:
    """One column ``c`` of every value: each value alone and with a NULL, runs of 2 and 3 in
    the statistics' order (NaN apart), everything, only NULLs."""
    nulls = [i for i, v in enumerate(t.values) if v is None]
    nans = [i for i, v in enumerate(t.values) if _is_nan(v)]
    ordered = sorted((i for i, v in enumerate(t.values) if v is not None and i not in nans),
                     key=lambda i: _order_key(t.values[i], t))
    out = [(i,) for i in ordered + nans]
    out += [(i, nulls[0]) for i in ordered[::2] + nans] if nulls else []
    for k in (2, 3):
        out += [tuple(ordered[j:j + k]) for j in range(len(ordered) - k + 1)]
    out += [tuple(ordered[-2:] + nans)] if nans else []
    out.append(tuple(range(len(t.values))))
    if nulls:
        out.append(tuple(nulls))
    return Dataset(t.name, (("c", t),), tuple((v,) for v in t.values), tuple(out))


def pair(t: ArgType, u: ArgType) -> Dataset:
    """Columns ``c`` and ``d``, each ascending (NaN last), side by side for as many rows as
    the longer has, then rows with a NULL on either side; runs of 1 to 3 rows, everything."""
    def ordered(x: ArgType) -> list:
        real = sorted((v for v in x.values if v is not None and not _is_nan(v)),
                      key=lambda v: _order_key(v, x))
        return real + [v for v in x.values if _is_nan(v)]

    a, b = ordered(t), ordered(u)
    n = max(len(a), len(b))
    rows = [(a[i % len(a)], b[i % len(b)]) for i in range(n)]
    rows += [(None, b[0]), (a[-1], None), (None, None)]
    groups = [(i,) for i in range(len(rows))]
    for k in (2, 3):
        groups += [tuple(range(j, j + k)) for j in range(n - k + 1)]
    groups.append(tuple(range(len(rows))))
    return Dataset(f"{t.name}, {u.name}", (("c", t), ("d", u)), tuple(rows), tuple(groups))


def statistics(data: Dataset) -> pk.Statistics:
    columns = {"row_count": pa.array([len(g) for g in data.containers], pa.int64())}
    for k, (name, t) in enumerate(data.columns):
        mins, maxs, nulls, nan_counts = [], [], [], []
        for g in data.containers:
            vals = [data.rows[i][k] for i in g if data.rows[i][k] is not None]
            real = sorted((v for v in vals if not _is_nan(v)), key=lambda v, t=t: _order_key(v, t))
            mins.append(real[0] if real else None)
            maxs.append(real[-1] if real else None)
            nulls.append(len(g) - len(vals))
            nan_counts.append(len(vals) - len(real))
        arrays = [pa.array(mins, t.arrow), pa.array(maxs, t.arrow),
                  pa.array(nulls, pa.int64())]
        names = ["min", "max", "null_count"]
        if pa.types.is_floating(t.arrow):
            arrays.append(pa.array(nan_counts, pa.int64()))
            names.append("nan_count")
        columns[name] = pa.StructArray.from_arrays(arrays, names)
    return pk.Statistics.from_arrow(pa.table(columns))


# ---- the check ---------------------------------------------------------------------------------
@dataclass
class Violation:
    type: str
    sql: str
    what: str

    def __str__(self) -> str:
        return f"[{self.type}] {self.sql}: {self.what}"


def check_type(spark, t: ArgType, tmpls: list[Template] | None = None,
               backend: str = "numpy") -> tuple[list[Violation], dict]:
    """Every template over one column of type ``t``: the violations, and counts of what was
    checked."""
    return check(spark, single(t), templates() if tmpls is None else tmpls, backend)


def check_pair(spark, t: ArgType, u: ArgType,
               backend: str = "numpy") -> tuple[list[Violation], dict]:
    """Every two-column template over columns of types ``t`` and ``u``."""
    return check(spark, pair(t, u), pair_templates(), backend)


def check_pairs(spark, t: ArgType, others: list[ArgType],
                backend: str = "numpy") -> list[tuple[list[Violation], dict]]:
    """``check_pair`` of ``t`` with each of ``others``, in one Spark table (each pair's rows
    apart, in columns of their own): a pair holds a few rows and templates, and one
    table's analysis, optimisation and rows cost about what one pair's would."""
    return check_all(spark, [(pair(t, u), pair_templates()) for u in others], backend)


def check(spark, data: Dataset, tmpls: list[Template],
          backend: str = "numpy") -> tuple[list[Violation], dict]:
    return check_all(spark, [(data, tmpls)], backend)[0]


def check_all(spark, work: list[tuple[Dataset, list[Template]]],
              backend: str = "numpy") -> list[tuple[list[Violation], dict]]:
    """Each dataset's templates, Spark's answers for all of them from one table
    (``together``)."""
    from concurrent.futures import ThreadPoolExecutor

    sessions = mode_sessions(spark)
    table, sqls, blocks = together(work)
    rows_of = [rows for (_, rows), (_, tmpls) in zip(blocks, work, strict=True)
               for _ in tmpls]
    with ThreadPoolExecutor(len(MODES)) as pool:  # py4j gives each thread its own connection
        futures = {m: pool.submit(lambda m: SparkTable(sessions[m], table).answers(
            sqls, m, rows_of=rows_of), m) for m in MODES}
        # prunekit's side while the JVM works for the threads
        ours = [[_predicate(x.sql, data.schema) for x in tmpls] for data, tmpls in work]
        answers = {m: f.result() for m, f in futures.items()}
    out = []
    for (data, tmpls), (at, rows), mine in zip(work, blocks, ours, strict=True):
        theirs = {m: [SparkAnswer(a.refused, a.type, a.rows[rows.start:rows.stop])
                      for a in answers[m][at:at + len(tmpls)]] for m in MODES}
        out.append(_judge(data, tmpls, theirs, mine, backend))
    return out


def together(work: list[tuple[Dataset, list[Template]]]) -> tuple[Dataset, list[str],
                                                                   list[tuple[int, range]]]:
    """One dataset of several: each one's rows in a block of their own, in columns of their
    own (its names with its number appended; NULL in the other blocks), and its templates
    over those columns. Also where each one's templates and rows start. One dataset stays
    as it is."""
    if len(work) == 1:
        data, tmpls = work[0]
        return data, [x.sql for x in tmpls], [(0, range(len(data.rows)))]
    columns, rows, sqls, blocks = [], [], [], []
    width = sum(len(data.columns) for data, _ in work)
    for k, (data, tmpls) in enumerate(work):
        names = {name: f"{name}{k}" for name, _ in data.columns}
        before = len(columns)
        columns += [(names[name], t) for name, t in data.columns]
        blocks.append((len(sqls), range(len(rows), len(rows) + len(data.rows))))
        rows += [(None,) * before + row + (None,) * (width - len(columns)) for row in data.rows]
        sqls += [_renamed(x.sql, names) for x in tmpls]
    return Dataset("together", tuple(columns), tuple(rows), ()), sqls, blocks


def _renamed(sql: str, names: dict[str, str]) -> str:
    """``sql`` with its column names replaced (not inside string literals)."""
    words = re.compile(r"\b(" + "|".join(map(re.escape, names)) + r")\b")
    parts = re.split(r"('(?:[^'\\]|\\.)*')", sql)
    return "".join(p if k % 2 else words.sub(lambda m: names[m.group(1)], p)
                   for k, p in enumerate(parts))


def _judge(data: Dataset, tmpls: list[Template], answers: dict, ours: list,
           backend: str) -> tuple[list[Violation], dict]:
    """prunekit's predicates (``ours``) held against Spark's answers for ``data``."""
    groups, stats, t = data.containers, statistics(data), data
    found: list[Violation] = []
    counts = {"templates": len(tmpls), "spark_refused": 0, "not_boolean": 0, "checked": 0,
              "pruned": 0}
    for k, tmpl in enumerate(tmpls):
        per_mode = {m: answers[m][k] for m in MODES}
        ran = {m: a for m, a in per_mode.items() if a.refused is None and a.type == "boolean"}
        typed_other = {m: a.type for m, a in per_mode.items()
                       if a.refused is None and a.type != "boolean"}
        if not ran:
            counts["spark_refused"] += 1
        pred, refusal, crash = ours[k]
        if crash is not None:  # never a traceback from inside prunekit
            found.append(Violation(t.name, tmpl.sql, f"crashed: {crash}"))
            continue
        if tmpl.not_boolean or typed_other:
            counts["not_boolean"] += 1
            if ran:
                found.append(Violation(t.name, tmpl.sql, "the template says not a boolean, "
                                       f"but Spark runs it as one in {sorted(ran)}"))
            elif refusal is None:
                found.append(Violation(t.name, tmpl.sql, "accepted, but Spark types it "
                                       f"{typed_other or 'as an error'}: not a boolean"))
            continue
        if not ran:
            continue  # Spark refuses it in both modes: prunekit may refuse or answer
        if refusal is not None:
            found.append(Violation(t.name, tmpl.sql, f"refused ({refusal}), but Spark runs it "
                                   f"in {sorted(ran)}"))
            continue
        try:
            outcomes = pred.classify(stats, backend=backend).tolist()
        except Exception as e:
            found.append(Violation(t.name, tmpl.sql, f"classify failed: {type(e).__name__}: "
                                   f"{e}"))
            continue
        counts["checked"] += 1
        counts["pruned"] += sum(o != pk.MAYBE_MATCH for o in outcomes)
        for g, outcome in zip(groups, outcomes, strict=True):
            bad = _unsound(outcome, g, ran)
            if bad:
                shown = [data.rows[i] if len(data.columns) > 1 else data.rows[i][0]
                         for i in g]
                found.append(Violation(t.name, tmpl.sql, f"{bad} for rows {shown}: " + "; ".join(
                    f"{m} {[a.rows[i] for i in g]}" for m, a in ran.items())))
                break
    return found, counts


def _predicate(sql: str, schema: pa.Schema) -> tuple:
    """prunekit's predicate, or its refusal, or how it crashed."""
    try:
        return pk.PruningPredicate(sql, schema), None, None
    except pk.PrunekitError as e:
        return None, f"{type(e).__name__}: {e}", None
    except Exception as e:
        return None, None, f"{type(e).__name__}: {e}"


def _unsound(outcome: int, rows: tuple[int, ...], ran: dict) -> str | None:
    for mode, answer in ran.items():
        values = [answer.rows[i] for i in rows]
        if ERROR in values:
            continue  # reading this container fails the query in this mode
        if outcome == pk.NONE_MATCH and True in values:
            return f"NONE_MATCH but a row is TRUE under {mode}"
        if outcome == pk.ALL_MATCH and not all(v is True for v in values):
            return f"ALL_MATCH but a row is {values} under {mode}"
    return None


def main(names: list[str]) -> None:  # pragma: no cover - a development report
    spark = session()
    total = 0
    names = names or list(TYPES)
    runs = [(name, lambda n=name: check_type(spark, TYPES[n])) for name in names]
    runs += [(f"{a}, {b}", lambda a=a, b=b: check_pair(spark, TYPES[a], TYPES[b]))
             for a in names for b in names]
    for name, run in runs:
        found, counts = run()
        total += len(found)
        print(f"== {name}: {counts}, {len(found)} violations")
        for v in found:
            print("  ", v)
    print(f"{total} violations")


if __name__ == "__main__":  # pragma: no cover
    import sys

    main(sys.argv[1:])
