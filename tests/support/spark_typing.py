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

import contextlib
import datetime as dt
import logging
import math
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
                              "c * '2'", "c + INTERVAL 1 DAY", "c - INTERVAL 1 HOUR")):
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
    milliseconds per failed row)."""

    def __init__(self, spark, data: Dataset):
        self.spark, self.data = spark, data
        rows = ", ".join("(" + ", ".join(spark_literal(v, t) for v, (_, t) in zip(
            row, data.columns, strict=True)) + ")" for row in data.rows)
        names = ", ".join(name for name, _ in data.columns)
        self.df = spark.sql(f"SELECT * FROM VALUES {rows} AS t({names})")
        jvm = spark._jvm
        self._exprs = jvm.org.apache.spark.sql.catalyst.expressions
        self._seq = jvm.scala.jdk.javaapi.CollectionConverters

    def answers(self, sqls: list[str], mode: str, values: bool = False) -> list[SparkAnswer]:
        """Each expression in ``mode``: this table's session must be in that mode
        (``mode_sessions``). Each is analysed alone; the BOOLEAN ones are then evaluated
        together, one call per row, and one at a time only on a row where one of them fails.
        Other values are evaluated (one at a time) only if ``values``: a predicate's check
        reads their type alone."""
        assert self.spark.conf.get("spark.sql.ansi.enabled") == str(mode == "ansi").lower()
        with raw_py4j():
            out = [self._analysed(s) for s in sqls]
            boolean = [i for i, a in enumerate(out) if a.type == "boolean"]
            rows = self._rows([sqls[i] for i in boolean])
            if rows is None:  # one of them fails while optimised (ANSI): each alone
                rows = [self._rows([sqls[i]])[0] for i in boolean]
            others = [i for i, a in enumerate(out) if values and a.type not in (None, "boolean")]
            rows += [self._rows([sqls[i]], one_by_one=True)[0] for i in others]
            for i, r in zip(boolean + others, rows, strict=True):
                out[i].rows = r
        return out

    def _analysed(self, sql: str) -> SparkAnswer:
        from py4j.protocol import Py4JJavaError

        try:
            jdf = self.df._jdf.selectExpr(self._seq.asScala([sql]).toSeq())
        except Py4JJavaError as e:
            return SparkAnswer(refused=_first_line(e))
        return SparkAnswer(type=jdf.schema().fields()[0].dataType().simpleString())

    def _rows(self, sqls: list[str], one_by_one: bool = False) -> list[list] | None:
        """Per predicate, its value on every row (ERROR where it fails); None when the
        optimiser fails on them together. ``one_by_one``: any values, each evaluated alone
        (Catalyst's internal form: dates as days, timestamps as microseconds)."""
        from py4j.protocol import Py4JJavaError

        n = len(self.data.rows)
        if not sqls:
            return []
        jdf = self.df._jdf.selectExpr(self._seq.asScala(sqls).toSeq())
        try:
            plan = jdf.queryExecution().optimizedPlan()
        except Py4JJavaError:  # a constant that fails (ANSI)
            return None if len(sqls) > 1 else [[ERROR] * n]
        name = plan.getClass().getSimpleName()
        if name == "LocalRelation":  # the predicate is the column itself
            data = plan.data()
            return [[None if data.apply(i).isNullAt(0) else data.apply(i).getBoolean(0)
                     if not one_by_one else "value" for i in range(data.size())]]
        child = plan.child() if name == "Project" else None
        if child is None or child.getClass().getSimpleName() != "LocalRelation":
            raise AssertionError(f"unexpected optimised plan for {sqls}: {plan.toString()}")
        attrs = getattr(self._exprs, "package$AttributeSeq")(child.output())
        exprs = plan.projectList()
        bound = [self._exprs.BindReferences.bindReference(exprs.apply(k), attrs, False)
                 for k in range(exprs.size())]
        together = self._exprs.InterpretedMutableProjection.createProjection(
            self._seq.asScala(bound).toSeq())
        data = child.data()
        columns: list[list] = [[] for _ in sqls]
        for i in range(data.size()):
            row = data.apply(i)
            try:
                if one_by_one:
                    raise _OneByOne
                text = together.apply(row).toString()  # "[true,null,false]"
                values = [None if v == "null" else v == "true" for v in text[1:-1].split(",")]
            except (Py4JJavaError, _OneByOne):  # one fails on this row (ANSI): each alone
                values = []
                for e in bound:
                    try:
                        values.append(e.eval(row))
                    except Py4JJavaError:
                        values.append(ERROR)
            for column, v in zip(columns, values, strict=True):
                column.append(v)
        if any(len(c) != n for c in columns):
            raise AssertionError(f"{sqls}: {[len(c) for c in columns]} rows, expected {n}")
        return columns


class _OneByOne(Exception):
    pass


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


_MODE_SESSIONS: dict = {}


def mode_sessions(spark) -> dict:
    """A session per mode (each has its own settings), so the two modes run side by side."""
    key = id(spark._jsparkSession)
    if key in _MODE_SESSIONS:
        return _MODE_SESSIONS[key]
    out = _MODE_SESSIONS[key] = {}
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


def check(spark, data: Dataset, tmpls: list[Template],
          backend: str = "numpy") -> tuple[list[Violation], dict]:
    from concurrent.futures import ThreadPoolExecutor

    sessions = mode_sessions(spark)
    sqls = [x.sql for x in tmpls]
    with ThreadPoolExecutor(len(MODES)) as pool:  # py4j gives each thread its own connection
        futures = {m: pool.submit(lambda m: SparkTable(sessions[m], data).answers(sqls, m), m)
                   for m in MODES}
        answers = {m: f.result() for m, f in futures.items()}
    groups, stats, schema, t = data.containers, statistics(data), data.schema, data
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
        try:
            pred = pk.PruningPredicate(tmpl.sql, schema)
            refusal = None
        except pk.PrunekitError as e:
            pred, refusal = None, f"{type(e).__name__}: {e}"
        except Exception as e:  # never a traceback from inside prunekit
            found.append(Violation(t.name, tmpl.sql, f"crashed: {type(e).__name__}: {e}"))
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
