"""Differential testing against DuckDB itself: random Parquet files, random predicates written in
DuckDB's SQL, and DuckDB's own rows as the truth.

``prunekit.PruningPredicate(text, schema, dialect="duckdb")`` promises (docs/semantics.md §7,
``prunekit.expr.syntax.dialects``) that what DuckDB computes as Spark does is read in full and
that everything else becomes an unknown leaf, which never makes pruning unsound. This module
checks the promise against the real engine, whatever ``dialects.ENGINES`` currently lists:

- a **dataset** per seed (``random_dataset``): 1-4 columns of types DuckDB reads from Parquet as
  pyarrow writes them (signed and unsigned ints, FLOAT and DOUBLE, decimals narrow and 38
  digits wide, strings, binary, booleans, dates, timestamps naive (us, ns) and UTC (ms, us, ns)),
  with NULLs, all-NULL groups, NaN, ±0.0, ±inf, integer extremes, long strings, non-ASCII
  strings and strings holding ``\\ % _ '``; columns are always double-quoted, and some have
  names only double quotes allow (``"Ship Mode"``, ``"select"``, ``"x.y"``). Each dataset
  is written **either** by pyarrow (one row group per generated group) **or** by DuckDB's own
  ``COPY ... TO ... (FORMAT parquet, ROW_GROUP_SIZE n)`` (they alternate; DuckDB closes a row
  group at the first chunk boundary past ``n`` rows, so its groups may merge generated ones;
  the file's footer says which rows each group holds). A DuckDB session time zone is picked
  too, and prunekit is given the same one (``time_zone=``): they must agree for a TIMESTAMPTZ
  compared with a DATE.
- **predicates** as DuckDB text (``predicate``, ``render``): comparisons of columns and of
  expressions with literals and with each other, BETWEEN, IN, IS [NOT] NULL, IS [NOT] DISTINCT
  FROM, AND/OR/NOT, IS [NOT] TRUE, integer ``+ - *``, ``/`` by whole numbers (0 and negatives
  too) and by decimals, ``//``, ``%``, LIKE/NOT LIKE/ILIKE with and without backslashes and
  ESCAPE, ``1e3``-style literals, numbers of more than 38 digits, string literals against
  non-string columns (``"x" = '5'``), casts, and the functions ``abs``, ``year``, ``month``,
  ``day``, ``lower``, ``upper``, ``length``, ``substring``, ``left``, ``date_trunc``,
  ``starts_with``, ``isnan``.
  Literals are drawn near the data's own values and the types' edges.
- for each (file, predicate): prunekit's outcome per row group from the file's footer
  (``prunekit.parquet.statistics``, the schema pyarrow reads), and per row group the number of
  the group's rows DuckDB keeps: each group is copied into its own DuckDB table by DuckDB's
  Parquet reader (``file_row_number``), so the predicate only ever sees that group's rows.

Checks, per row group: NONE_MATCH means DuckDB keeps none of its rows; ALL_MATCH means DuckDB
keeps every one. A group on which DuckDB raises (overflow, division by zero with ``//`` or
``%``, a failed conversion) constrains nothing: the query fails whenever the group is read; it
is counted and skipped. A predicate DuckDB refuses before reading a row (binder, parser,
constant-folding errors, found by running it on an empty table of the same columns) is not a
valid predicate: counted and skipped, but prunekit must still answer it or raise a
``PrunekitError``: anything else is a crash, a failure. prunekit refusing (``PrunekitError``)
a predicate DuckDB accepts is counted as "refused", with examples, not as a failure.

An unsound group is shrunk (that group alone, fewer rows, fewer columns, a smaller predicate)
and saved as ``tests/regressions/duckdb/duckdb-<hash>.json`` (``save_case``; a folder of its
own, as tests/test_differential.py replays every JSON file of tests/regressions/ in its own
format); ``replay`` writes it again with the same writer and checks it;
tests/test_duckdb_differential.py replays every saved case and runs a bounded ``run``. The
long form::

    python -m tests.support.duckdb_differential --minutes 10 [--seed S] [--no-save]

prints progress and the summary, and exits with 1 on an unsound group or a crash.
"""

from __future__ import annotations

import argparse
import dataclasses
import datetime as dt
import decimal
import hashlib
import itertools
import json
import math
import re
import shutil
import sys
import tempfile
import time
import traceback
from collections import Counter
from pathlib import Path

import duckdb
import numpy as np
import pyarrow as pa
import pyarrow.parquet as pq

import prunekit as pk
from prunekit.expr.syntax import nodes as n
from prunekit.parquet import statistics
from tests.support import differential
from tests.support import reference as ref
from tests.support.differential import (
    REGRESSIONS,
    Dataset,
    is_float,
    is_nan,
    palette,
    write_parquet,
)

D = decimal.Decimal
DIRECTORY = REGRESSIONS / "duckdb"  # the saved cases (not REGRESSIONS: another format there)
CTX = decimal.Context(prec=200)
NAMES = {0: "NONE_MATCH", 1: "MAYBE_MATCH", 2: "ALL_MATCH"}
WRITERS = ("pyarrow", "duckdb")
# Session time zones, DuckDB's and prunekit's alike: a half-hour offset, a 12:45 one, DST.
ZONES = ["UTC", "UTC", "America/New_York", "Asia/Kolkata", "Pacific/Chatham"]

# Unsound constructs this harness found that the library does not read soundly yet: name ->
# why. A saved case naming one (its JSON's "known_unsound") is a strict xfail in
# tests/test_duckdb_differential.py until the library is fixed; then the xfail passes, fails
# the suite, and both go. Empty: every construct found so far is fixed (the saved cases replay
# as plain regressions).
KNOWN_UNSOUND: dict[str, str] = {}

# ---- datasets -------------------------------------------------------------------------------
# Types DuckDB's Parquet reader gives the same values pyarrow wrote (checked: TIMESTAMP_NS and
# TIMESTAMPTZ_NS keep nanoseconds, unsigned ints stay unsigned, decimals keep their scale).
TYPE_POOL = ["int8", "int16", "int32", "int64", "int64", "uint8", "uint32", "uint64",
             "float32", "float64", "float64", "decimal(9,2)", "decimal(18,4)",
             "decimal(38,10)", "decimal(5,0)", "string", "string", "string", "binary",
             "date32", "date32", "timestamp(us)", "timestamp(us,UTC)", "timestamp(ms,UTC)",
             "timestamp(ns,UTC)", "timestamp(ns)", "bool"]
# Names a DuckDB user must double-quote (a space, a keyword, a dot, upper case, non-ASCII).
COLUMN_NAMES = ["a", "b", "c", "x", "Ship Mode", "select", "x.y", "Qty", "é"]
# Strings beyond differential.py's palette: LIKE's wildcards and backslash as data, quotes, a
# newline, and long ones (statistics writers may truncate or drop long bounds).
EXTRA_STRINGS = ["a%b", "a_b", "a\\b", "\\", "%", "_", "it's", "ab\nc", "ABC", "Ab",
                 "a" * 70, "é" * 40 + "z", "ab" * 300, "€" * 1500 + "x", "z" * 5000]


def _pick(rng: np.random.Generator, seq):
    return seq[int(rng.integers(len(seq)))]


def _chance(rng: np.random.Generator, p: float) -> bool:
    return bool(rng.random() < p)


def _values(rng: np.random.Generator, t: pa.DataType) -> list:
    """A few distinct values of ``t`` (differential.py's palette), with the type's extremes
    and, for strings, the extra strings more often than a palette draws them."""
    out = palette(rng, t)
    if pa.types.is_integer(t) and _chance(rng, 0.3):
        out += list(ref.int_range(t))
    if ref.is_text(t):
        out += [_pick(rng, EXTRA_STRINGS) for _ in range(int(rng.integers(0, 3)))]
    if ref.is_text(t) or ref.is_bin(t):
        out = [v.replace("\x00", "") if isinstance(v, str) else v for v in out]
    uniq = []
    for v in out:
        if v not in uniq:
            uniq.append(v)
    return uniq


def random_dataset(rng: np.random.Generator) -> Dataset:
    """Columns of ``TYPE_POOL`` named from ``COLUMN_NAMES``, 2-8 row groups of 1-12 rows
    (``differential.random_dataset`` with this module's types, names and values)."""
    return differential.random_dataset(rng, types=TYPE_POOL, names=COLUMN_NAMES,
                                       group_counts=(2, 3, 4, 6, 8), max_rows=12,
                                       values=_values, partial_statistics=False)


# ---- writing and reading --------------------------------------------------------------------
def connect(zone: str = "UTC") -> duckdb.DuckDBPyConnection:
    """A DuckDB session on one thread (a CPU budget; and COPY keeps the rows' order) in
    ``zone``."""
    con = duckdb.connect(config={"threads": 1})
    con.execute(f"SET TimeZone = '{zone}'")
    return con


def _quoted_path(path: Path) -> str:
    return "'" + str(path).replace("'", "''") + "'"


def write_duckdb(con: duckdb.DuckDBPyConnection, ds: Dataset, path: Path,
                 row_group_size: int) -> None:
    """``ds`` written by DuckDB's COPY, fed one Arrow batch per generated group: DuckDB closes
    a row group at the first batch boundary at or past ``row_group_size`` rows."""
    batches = [b for g in ds.groups for b in ds.group_table(g).to_batches()]
    con.register("__source", pa.Table.from_batches(batches, schema=ds.schema))
    try:
        con.execute(f"COPY (SELECT * FROM __source) TO {_quoted_path(path)} "
                    f"(FORMAT parquet, ROW_GROUP_SIZE {int(row_group_size)})")
    finally:
        con.unregister("__source")


def _json_value(v: object, t: pa.DataType) -> object:
    """A value read back from a file (pyarrow's Python objects) in differential.py's row
    representation (dates as days, timestamps as counts of the unit)."""
    if v is None:
        return None
    if pa.types.is_decimal(t):
        return D(v)
    return v


def read_group_rows(path: Path, columns: list, i: int) -> list[dict]:
    """The rows of row group ``i`` of the file at ``path`` as it holds them, ``columns`` (name,
    type) only, in the row representation."""
    table = pq.ParquetFile(path).read_row_group(i)
    out = []
    for c, t in columns:
        arr = table.column(c).cast(t)  # DuckDB writes a ms timestamp in us
        if pa.types.is_date(t) or pa.types.is_timestamp(t):
            arr = arr.cast(pa.int32() if pa.types.is_date(t) else pa.int64())
        out.append([_json_value(v, t) for v in arr.to_pylist()])
    return [{c: out[j][k] for j, (c, _) in enumerate(columns)} for k in range(table.num_rows)]


class Workspace:
    """One dataset written to one file, its statistics, and a DuckDB session holding each row
    group as a table (``g0``, ``g1``, ...) read by DuckDB's Parquet reader, and ``empty``, a
    table of the same columns without rows."""

    def __init__(self, ds: Dataset, root: Path, writer: str, row_group_size: int = 1,
                 zone: str = "UTC", backend: str = "numpy"):
        self.ds, self.writer, self.zone, self.backend = ds, writer, zone, backend
        self.row_group_size = row_group_size
        self.dir = Path(tempfile.mkdtemp(dir=root))
        self.path = self.dir / "data.parquet"
        self.con = connect(zone)
        try:
            if writer == "pyarrow":
                write_parquet(ds, self.path)
            else:
                write_duckdb(self.con, ds, self.path, row_group_size)
            md = pq.ParquetFile(self.path).metadata
            self.sizes = [md.row_group(i).num_rows for i in range(md.num_row_groups)]
            self.starts = list(itertools.accumulate([0] + self.sizes))
            assert self.starts[-1] == sum(len(g) for g in ds.groups), "rows lost in writing"
            self.schema = pq.read_schema(self.path)
            self.stats = statistics(str(self.path))
            self._load()
        except BaseException:
            self.close()
            raise

    def _load(self) -> None:
        """The group tables and ``empty``, read from the file by DuckDB's Parquet reader."""
        scan = f"read_parquet({_quoted_path(self.path)}, file_row_number = true)"
        for i, size in enumerate(self.sizes):
            start = self.starts[i]
            self.con.execute(f"CREATE TABLE g{i} AS SELECT * EXCLUDE (file_row_number) "
                             f"FROM {scan} WHERE file_row_number >= {start} AND "
                             f"file_row_number < {start + size}")
        self.con.execute("CREATE TABLE empty AS SELECT * FROM g0 LIMIT 0")

    def _after(self, e: duckdb.Error) -> None:
        """After DuckDB's internal error its database may be invalidated: a new session."""
        if isinstance(e, (duckdb.InternalException, duckdb.FatalException)):
            self.con.close()
            self.con = connect(self.zone)
            self._load()

    def group_rows(self, i: int) -> list[dict]:
        """The rows of row group ``i`` as the file holds them (row representation)."""
        return read_group_rows(self.path, self.ds.columns, i)

    def duckdb_counts(self, text: str) -> list:
        """Per row group, how many of its rows DuckDB keeps, or the name of the error DuckDB
        raises on that group. One query for all groups first; where it raises, one per group
        (each group in its own table: another group's rows cannot raise here)."""
        query = "SELECT " + ", ".join(f"(SELECT count(*) FROM g{i} WHERE {text})"
                                      for i in range(len(self.sizes)))
        try:
            return list(self.con.execute(query).fetchone())
        except duckdb.Error as e:
            self._after(e)
        out = []
        for i in range(len(self.sizes)):
            try:
                out.append(self.con.execute(f"SELECT count(*) FROM g{i} WHERE {text}"
                                            ).fetchone()[0])
            except duckdb.Error as e:
                self._after(e)
                out.append(type(e).__name__)
        return out

    def check(self, text: str) -> Result:
        res = Result(text)
        try:  # does DuckDB accept it before reading a row?
            self.con.execute(f"SELECT count(*) FROM empty WHERE {text}").fetchone()
        except duckdb.Error as e:
            res.duckdb_refused = f"{type(e).__name__}: {str(e).splitlines()[0][:120]}"
            self._after(e)
        try:
            pred = pk.PruningPredicate(text, self.schema, dialect="duckdb",
                                       time_zone=self.zone)
            res.unknown_leaves = sum(isinstance(x, n.Opaque) for x in pred.expression.walk())
            res.outcomes = [int(o) for o in pred.classify(self.stats, backend=self.backend)]
        except pk.PrunekitError as e:
            res.pk_error = f"{type(e).__name__}: {str(e).splitlines()[0][:160]}"
        except Exception as e:  # noqa: BLE001 - any other exception is a crash to report
            res.crash = "".join(traceback.format_exception_only(type(e), e)).strip()[:400]
        if res.duckdb_refused or res.outcomes is None:
            return res
        res.counts = self.duckdb_counts(text)
        for i, (o, k) in enumerate(zip(res.outcomes, res.counts, strict=True)):
            if isinstance(k, str):
                continue
            if o == pk.NONE_MATCH and k > 0:
                res.unsound.append((i, f"row group {i}: NONE_MATCH, but DuckDB keeps {k} of "
                                       f"its {self.sizes[i]} rows"))
            elif o == pk.ALL_MATCH and k < self.sizes[i]:
                res.unsound.append((i, f"row group {i}: ALL_MATCH, but DuckDB keeps only {k} "
                                       f"of its {self.sizes[i]} rows"))
            elif o not in NAMES:
                res.unsound.append((i, f"row group {i}: outcome {o!r}"))
        return res

    def close(self) -> None:
        self.con.close()
        shutil.rmtree(self.dir, ignore_errors=True)


@dataclasses.dataclass
class Result:
    """One predicate on one file."""

    text: str
    duckdb_refused: str | None = None  # DuckDB's error before reading a row
    pk_error: str | None = None  # prunekit's PrunekitError
    crash: str | None = None  # any other exception from prunekit
    unknown_leaves: int = 0
    outcomes: list | None = None
    counts: list | None = None  # per group: rows DuckDB keeps, or its error's class name
    unsound: list = dataclasses.field(default_factory=list)  # (group, message)


# ---- literals -------------------------------------------------------------------------------
@dataclasses.dataclass(frozen=True)
class Expr:
    """A value expression: its DuckDB text, its family (how literals and other expressions
    compare with it), the columns it reads, and a few of its values (for literals near them).
    ``type``: the column's Arrow type when the expression is the bare column."""

    text: str
    family: str  # int uint decimal float string binary bool date ts tstz
    columns: frozenset
    samples: tuple = ()
    type: pa.DataType | None = None


NUMERIC = {"int", "uint", "decimal", "float"}
TEMPORAL = {"date", "ts", "tstz"}
_EPOCH = dt.datetime(1970, 1, 1)


def family_of(t: pa.DataType) -> str:
    if pa.types.is_signed_integer(t):
        return "int"
    if pa.types.is_unsigned_integer(t):
        return "uint"
    if pa.types.is_decimal(t):
        return "decimal"
    if is_float(t):
        return "float"
    if ref.is_text(t):
        return "string"
    if ref.is_bin(t):
        return "binary"
    if pa.types.is_boolean(t):
        return "bool"
    if pa.types.is_date(t):
        return "date"
    return "tstz" if t.tz else "ts"


def sql_string(s: str) -> str:
    return "'" + s.replace("'", "''") + "'"


def quote(name: str) -> str:
    return '"' + name.replace('"', '""') + '"'


def _as_python(v: object, t: pa.DataType) -> object:
    """A row value as a Python value of its meaning: dates and datetimes for day and unit
    counts (None beyond Python's range)."""
    try:
        if pa.types.is_date(t):
            return dt.date(1970, 1, 1) + dt.timedelta(days=v)
        if pa.types.is_timestamp(t):
            return _EPOCH + dt.timedelta(microseconds=v * ref.NS_PER_UNIT[t.unit] // 1000)
    except OverflowError:
        return None
    return v


def number_text(v: object) -> str:
    """A number as DuckDB reads it: an int, a decimal without exponent, a float's shortest
    repr (with an exponent when Python writes one: a DOUBLE in DuckDB)."""
    if isinstance(v, bool):
        return str(int(v))
    if isinstance(v, int):
        return str(v)
    if isinstance(v, D):
        text = format(v, "f")
        return text
    if math.isnan(v):
        return "CAST('NaN' AS DOUBLE)"
    if math.isinf(v):
        return "CAST('Infinity' AS DOUBLE)" if v > 0 else "CAST('-Infinity' AS DOUBLE)"
    return repr(float(v))


def date_text(d: dt.date) -> str:
    return f"{d.year:04d}-{d.month:02d}-{d.day:02d}"


def ts_text(x: dt.datetime) -> str:
    return f"{date_text(x)} {x.hour:02d}:{x.minute:02d}:{x.second:02d}" + (
        f".{x.microsecond:06d}" if x.microsecond else "")


def as_decimal(v: object) -> D:
    """A number as an exact decimal: a float as its shortest repr."""
    return D(repr(v)) if isinstance(v, float) else D(v)


def number_sample(rng: np.random.Generator, e: Expr) -> object:
    """A number to draw a literal near: one of ``e``'s values (mostly) or a type's edge."""
    return _pick(rng, e.samples) if e.samples and _chance(rng, 0.85) else _pick(
        rng, [0, 1, -1, 5, 100, 2.5, D("0.1"), 2**31, -2**63, 2**63, 2**64])


def number_near(rng: np.random.Generator, e: Expr, v: object, kind: int) -> str:
    """A finite ``v`` written as literal ``kind`` 0-7, the ones DuckDB and DataFusion read
    alike: as it is (0-4), a little off (5), an edge of ``e``'s integer type (6, else as it
    is), with an exponent (7, a double in both as in Spark)."""
    dv = as_decimal(v)
    if kind == 5:
        return number_text(CTX.add(dv, _pick(rng, [1, -1, D("0.5"), D("-0.5"), D("0.001")])))
    if kind == 6 and e.type is not None and pa.types.is_integer(e.type):
        lo, hi = ref.int_range(e.type)
        return str(_pick(rng, [lo, hi, lo - 1, hi + 1]))
    if kind == 7:
        return _pick(rng, [f"{dv.normalize():E}", f"{int(dv)}e0", "1e3", "-2.5E0", "1e-3",
                           f"{float(dv):e}"])
    return number_text(v)


def number_at_precision(rng: np.random.Generator, e: Expr, v: object) -> str:
    """A finite ``v`` at the edge of its precision: the shortest decimal of the FLOAT nearest
    it, or half a unit of a decimal column's last digit off; else as it is."""
    if isinstance(v, float) and math.isfinite(v) and abs(v) < 3e38:
        return str(np.float32(v))
    if e.type is not None and pa.types.is_decimal(e.type):
        half = D(5).scaleb(-e.type.scale - 1)  # half a unit of the column's last digit
        off = _pick(rng, [half, -half, CTX.multiply(half, 3)])
        return number_text(CTX.add(as_decimal(v), off))
    return number_text(v)


def _numeric_literal(rng: np.random.Generator, e: Expr) -> str:
    v = number_sample(rng, e)
    if isinstance(v, float) and not math.isfinite(v):
        return _pick(rng, [number_text(v), number_text(v), "CAST('NaN' AS DOUBLE)",
                           "'Infinity'::DOUBLE", "'-inf'::FLOAT", "1e308", "-1e308"])
    kind = int(rng.integers(16))
    if kind <= 7:
        return number_near(rng, e, v, kind)
    if kind == 8:  # more than 38 digits: DOUBLE in DuckDB, DECIMAL or an error in Spark
        return f"{int(as_decimal(v))}.{'0' * 38}1"
    if kind == 9:  # a string literal against a number: DuckDB's own coercion
        return sql_string(_pick(rng, [number_text(v), f" {number_text(v)}", "abc", "1e2",
                                      "NaN", "Infinity", f"{number_text(v)}.0"]))
    if kind == 10 and isinstance(v, float):
        return repr(_pick(rng, [math.nextafter(v, math.inf), math.nextafter(v, -math.inf)]))
    if kind == 11:
        return _pick(rng, ["0.1", "-0.0", "0.5", "0", "-0", "0.30000000000000004",
                           "3.4028234663852886e38", "16777217", "9007199254740993"])
    if kind == 12:
        return number_at_precision(rng, e, v)
    if kind == 13:
        to = _pick(rng, ["DOUBLE", "FLOAT", "BIGINT", "DECIMAL(20,4)", "HUGEINT"])
        return f"CAST({number_text(v)} AS {to})"
    if kind == 14:
        return "NULL"
    return number_text(v)


def strings_near(rng: np.random.Generator, e: Expr) -> list[str]:
    """Strings to compare with ``e``: one of its values (mostly), its prefixes, its neighbours
    above and below, and the extra strings."""
    v = _pick(rng, e.samples) if e.samples and _chance(rng, 0.85) else _pick(
        rng, ["", "a", "é", "b", "ab", "\\", "%"])
    cands = [v, v, v[: len(v) // 2], v + "a", v[:-1], "", "é", "b", v.upper(), v + "\x7f",
             _pick(rng, EXTRA_STRINGS)]
    if v and ord(v[-1]) < 0x10FFFF and not 0xD7FF <= ord(v[-1]) <= 0xDFFF:
        cands.append(v[:-1] + chr(ord(v[-1]) + 1))
    return cands


def _string_literal(rng: np.random.Generator, e: Expr) -> str:
    cands = strings_near(rng, e)
    kind = int(rng.integers(12))
    if kind == 0:
        return "NULL"
    if kind == 1:  # a number against a string: DuckDB's own coercion
        return _pick(rng, ["5", "0", "1.5", "1e2"])
    return sql_string(_pick(rng, cands))


# What a temporal literal is drawn near when not near a value of the expression.
TEMPORAL_DEFAULTS = (dt.date(2020, 1, 1), dt.datetime(2019, 12, 31, 23, 59, 59),
                     dt.date(1, 1, 1), dt.date(9999, 12, 31), dt.date(1970, 1, 1))


def day_and_time_near(rng: np.random.Generator, e: Expr,
                      defaults: tuple = TEMPORAL_DEFAULTS) -> tuple[dt.date, dt.datetime]:
    """A day and a timestamp at or next to one of ``e``'s values (mostly) or of ``defaults``:
    the same, a day, half a day or a microsecond apart."""
    v = _pick(rng, e.samples) if e.samples and _chance(rng, 0.85) else None
    if v is None:
        v = _pick(rng, defaults)
    day = v.date() if isinstance(v, dt.datetime) else v
    with_time = v if isinstance(v, dt.datetime) else dt.datetime(v.year, v.month, v.day)
    shift = _pick(rng, [0, 0, 0, 1, -1])
    try:
        day = day + dt.timedelta(days=shift)
        with_time = with_time + _pick(rng, [dt.timedelta(0), dt.timedelta(0), dt.timedelta(
            microseconds=1), -dt.timedelta(microseconds=1), dt.timedelta(hours=shift * 12)])
    except OverflowError:
        pass
    return day, with_time


def _temporal_literal(rng: np.random.Generator, e: Expr) -> str:
    day, with_time = day_and_time_near(rng, e)
    kind = int(rng.integers(12))
    if kind <= 3:
        return f"DATE '{date_text(day)}'"
    if kind == 4:
        return f"CAST('{date_text(day)}' AS DATE)"
    if kind == 5:
        return f"'{date_text(day)}'::DATE"
    if kind == 6:
        return f"'{date_text(day)}'"  # a string: DuckDB casts it to the column's type
    if kind == 7:
        return f"TIMESTAMP '{ts_text(with_time)}'"
    if kind == 8:
        zone = _pick(rng, ["+00", "+05:30", "-08", "+12:45"])
        return f"TIMESTAMPTZ '{ts_text(with_time)}{zone}'"
    if kind == 9:
        return "NULL"
    if kind == 10:
        return f"'{ts_text(with_time)}'"
    return f"DATE '{date_text(day)}'"


def literal(rng: np.random.Generator, e: Expr) -> str:
    """A literal, as DuckDB text, to compare with ``e``: mostly near its values and of its
    family, sometimes of another (a string against a number, a DATE against a TIMESTAMPTZ)."""
    fam = e.family
    if fam in NUMERIC:
        return _numeric_literal(rng, e)
    if fam == "string":
        return _string_literal(rng, e)
    if fam in TEMPORAL:
        return _temporal_literal(rng, e)
    if fam == "bool":
        return _pick(rng, ["TRUE", "FALSE", "TRUE", "FALSE", "NULL", "'true'", "1", "'f'"])
    # binary
    v = _pick(rng, e.samples) if e.samples else b"ab"
    hexed = "".join(f"\\x{b:02X}" for b in v)
    return _pick(rng, [f"'{hexed}'::BLOB", f"'{hexed}'::BLOB", "'ab'::BLOB", "''::BLOB",
                       "'\\xFF'::BLOB", "NULL",
                       sql_string(v.decode("latin-1").replace("\x00", ""))])


# ---- value expressions ----------------------------------------------------------------------
def _derive(samples: tuple, fn) -> tuple:
    out = []
    for v in samples:
        try:
            w = fn(v)
        except (ArithmeticError, ValueError, TypeError, OverflowError):
            continue
        if w is not None:
            out.append(w)
    return tuple(out[:12])


def _trunc_div(a: int, b: int) -> int:
    q = abs(a) // abs(b)
    return q if (a >= 0) == (b > 0) else -q


def float_arithmetic(e: Expr, kind: int) -> Expr:
    """The float expression ``e`` plus 0.5, times 2, its absolute value or negated (``kind``
    2-5 of a float's value expressions, which DuckDB and DataFusion compute alike)."""
    c, s, cols, fam = e.text, e.samples, e.columns, e.family
    if kind == 2:
        return Expr(f"({c} + 0.5)", fam, cols, _derive(s, lambda v: v + 0.5))
    if kind == 3:
        return Expr(f"({c} * 2)", fam, cols, _derive(s, lambda v: v * 2))
    if kind == 4:
        return Expr(f"abs({c})", fam, cols, _derive(s, abs))
    return Expr(f"(-{c})", fam, cols, _derive(s, lambda v: -v))


def column_expr(ds: Dataset, samples: dict, name: str) -> Expr:
    t = ds.types[name]
    vals = tuple(v for v in (_as_python(x, t) for x in samples[name]) if v is not None)
    return Expr(quote(name), family_of(t), frozenset([name]), vals, t)


def value_expr(rng: np.random.Generator, ds: Dataset, samples: dict,
               name: str | None = None) -> Expr:
    """A column, or an expression over it (arithmetic, a cast, a function), as DuckDB text."""
    name = name or _pick(rng, [c for c, _ in ds.columns])
    e = column_expr(ds, samples, name)
    if _chance(rng, 0.6):
        return e
    c, s, cols = e.text, e.samples, e.columns
    fam = e.family
    if fam in ("int", "uint"):
        kind = int(rng.integers(13))
        if kind <= 2:
            op = "+-*"[kind]
            k = _pick(rng, [1, 2, -1, -3, 0, 10, 1000, 2**31 - 1, 2**62])
            fn = {"+": lambda v: v + k, "-": lambda v: v - k, "*": lambda v: v * k}[op]
            if _chance(rng, 0.2):  # the number first
                return Expr(f"({k} {op} {c})", fam, cols, _derive(s, fn if op != "-" else
                                                                    lambda v: k - v))
            return Expr(f"({c} {op} {k})", fam, cols, _derive(s, fn))
        if kind == 3:
            others = [x for x, t in ds.columns if family_of(t) in ("int", "uint")]
            other = column_expr(ds, samples, _pick(rng, others))
            op = _pick(rng, ["+", "-", "*"])
            pairs = [(a, b) for a, b in zip(s, other.samples, strict=False)]
            fn = {"+": lambda p: p[0] + p[1], "-": lambda p: p[0] - p[1],
                  "*": lambda p: p[0] * p[1]}[op]
            return Expr(f"({c} {op} {other.text})", fam, cols | other.columns,
                        _derive(tuple(pairs), fn))
        if kind in (4, 5):
            k = _pick(rng, [2, -4, 3, 1, -1, 0, 7, 10])
            return Expr(f"({c} / {k})", "float", cols,
                        _derive(s, lambda v: v / k if k else None))
        if kind == 6:
            k = _pick(rng, ["2.5", "0.5", "1e1", "-2.0"])
            return Expr(f"({c} / {k})", "float", cols, _derive(s, lambda v: v / float(k)))
        if kind == 7:
            k = _pick(rng, [2, -3, 0, 5, 1])
            return Expr(f"({c} // {k})", fam, cols,
                        _derive(s, lambda v: v // k if k else None))
        if kind == 8:
            k = _pick(rng, [3, -3, 0, 10, 2])
            return Expr(f"({c} % {k})", fam, cols,
                        _derive(s, lambda v: v - k * _trunc_div(v, k) if k else None))
        if kind == 9:
            return Expr(f"abs({c})", fam, cols, _derive(s, abs))
        if kind == 10:
            return Expr(f"(-{c})", "int", cols, _derive(s, lambda v: -v))
        to = _pick(rng, ["BIGINT", "DOUBLE", "INTEGER", "VARCHAR", "DECIMAL(20,2)", "HUGEINT",
                         "SMALLINT"])
        text = f"CAST({c} AS {to})" if _chance(rng, 0.6) else f"{c}::{to}"
        fam2 = {"DOUBLE": "float", "VARCHAR": "string", "DECIMAL(20,2)": "decimal"}.get(to,
                                                                                          "int")
        return Expr(text, fam2, cols, _derive(s, str) if fam2 == "string" else s)
    if fam == "float":
        kind = int(rng.integers(8))
        if kind <= 1:
            k = _pick(rng, [4, -2, 0, 3, 1])
            return Expr(f"({c} / {k})", fam, cols, _derive(s, lambda v: v / k if k else None))
        if kind <= 5:
            return float_arithmetic(e, kind)
        to = _pick(rng, ["DOUBLE", "FLOAT", "INTEGER", "BIGINT", "DECIMAL(18,3)"])
        fam2 = {"INTEGER": "int", "BIGINT": "int", "DECIMAL(18,3)": "decimal"}.get(to, "float")
        return Expr(f"CAST({c} AS {to})", fam2, cols,
                    _derive(s, lambda v: round(v) if fam2 == "int" else v))
    if fam == "decimal":
        kind = int(rng.integers(6))
        if kind == 0:
            return Expr(f"({c} * 2)", fam, cols, _derive(s, lambda v: v * 2))
        if kind == 1:
            return Expr(f"({c} + 1)", fam, cols, _derive(s, lambda v: v + 1))
        if kind == 2:
            return Expr(f"(-{c})", fam, cols, _derive(s, lambda v: -v))
        if kind == 3:
            return Expr(f"abs({c})", fam, cols, _derive(s, abs))
        to = _pick(rng, ["DOUBLE", "DECIMAL(38,12)", "BIGINT"])
        fam2 = {"DOUBLE": "float", "BIGINT": "int"}.get(to, "decimal")
        return Expr(f"CAST({c} AS {to})", fam2, cols, s)
    if fam == "string":
        kind = int(rng.integers(8))
        if kind >= 6:  # prefixes (and, with k <= 0, what DuckDB and Spark read apart)
            k = int(_pick(rng, [1, 2, 3, 3, 0, -1]))
            text = f"substring({c}, 1, {k})" if kind == 6 else f"left({c}, {k})"
            return Expr(text, fam, cols, _derive(s, lambda v: v[:max(k, 0)]))
        if kind == 0:
            return Expr(f"lower({c})", fam, cols, _derive(s, str.lower))
        if kind == 1:
            return Expr(f"upper({c})", fam, cols, _derive(s, str.upper))
        if kind == 2:
            return Expr(f"({c} || 'x')", fam, cols, _derive(s, lambda v: v + "x"))
        if kind == 3:
            return Expr(f"length({c})", "int", cols, _derive(s, len))
        if kind == 4:
            return Expr(f"CAST({c} AS INTEGER)", "int", cols, (0, 5))
        return Expr(f"CAST({c} AS VARCHAR)", fam, cols, s)
    if fam == "date":
        kind = int(rng.integers(7))
        if kind <= 2:
            fn = _pick(rng, ["year", "month", "day"])
            return Expr(f"{fn}({c})", "int", cols, _derive(s, lambda v: getattr(v, fn)))
        if kind == 3:
            return Expr(f"date_trunc('month', {c})", "ts", cols,
                        _derive(s, lambda v: dt.datetime(v.year, v.month, 1)))
        if kind == 4:
            return Expr(f"CAST({c} AS TIMESTAMP)", "ts", cols, s)
        if kind == 5:
            return Expr(f"({c} + 1)", fam, cols, _derive(s, lambda v: v + dt.timedelta(1)))
        return Expr(f"CAST({c} AS VARCHAR)", "string", cols, _derive(s, date_text))
    if fam in ("ts", "tstz"):
        kind = int(rng.integers(5))
        if kind <= 1:
            fn = _pick(rng, ["year", "month"])
            return Expr(f"{fn}({c})", "int", cols, _derive(s, lambda v: getattr(v, fn)))
        if kind == 2:
            return Expr(f"date_trunc('day', {c})", fam, cols,
                        _derive(s, lambda v: dt.datetime(v.year, v.month, v.day)))
        return Expr(f"CAST({c} AS DATE)", "date", cols, _derive(s, lambda v: v.date()))
    if fam == "binary":
        return Expr(f"octet_length({c})", "int", cols, _derive(s, len))
    return e


# ---- predicates -----------------------------------------------------------------------------
# A predicate is a small tree, so that a failing one can be shrunk: ("leaf", text, columns),
# ("and", kids), ("or", kids), ("not", kid); ``render`` writes it as DuckDB text.
OPS = ["=", "<>", "<", "<=", ">", ">=", "!="]
FLIP = {"=": "=", "<>": "<>", "!=": "!=", "<": ">", "<=": ">=", ">": "<", ">=": "<="}
LEAF_KINDS = (["cmp"] * 10 + ["colcmp"] * 3 + ["isnull"] * 2 + ["in"] * 3 + ["between"] * 3
              + ["like"] * 4 + ["bool"] * 2 + ["distinct"] * 2 + ["isbool"] + ["func"]
              + ["const"])


def _comparable(a: str, b: str) -> bool:
    return a == b or {a, b} <= NUMERIC or {a, b} <= TEMPORAL


def _like_pattern(rng: np.random.Generator, v: str) -> str:
    k = int(rng.integers(0, len(v) + 1))
    pattern = v[:k] + _pick(rng, ["%", "%", "", "_%", "_", "%a", "a%", "%%"])
    if _chance(rng, 0.3):  # a backslash: a plain character in DuckDB, an escape in Spark
        at = int(rng.integers(0, len(pattern) + 1))
        pattern = pattern[:at] + _pick(rng, ["\\", "\\%", "\\_", "\\\\"]) + pattern[at:]
    return pattern


# The leaves over one value expression that DuckDB and DataFusion write alike.
EXPRESSION_LEAF_KINDS = ("cmp", "isnull", "in", "between", "distinct")


def expression_leaf(rng: np.random.Generator, ds: Dataset, samples: dict, kind: str, e: Expr,
                    literal) -> tuple:
    """A leaf of ``kind`` (one of ``EXPRESSION_LEAF_KINDS``) over the value expression ``e``,
    with literals from ``literal(rng, e)``: the dialect's own literals."""
    if kind == "cmp":
        lit = literal(rng, e)
        op = _pick(rng, OPS)
        text = f"{e.text} {op} {lit}" if _chance(rng, 0.75) else f"{lit} {FLIP[op]} {e.text}"
        return ("leaf", text, e.columns)
    if kind == "isnull":
        return ("leaf", f"{e.text} IS {_pick(rng, ['', 'NOT '])}NULL", e.columns)
    if kind == "in":
        items = [literal(rng, e) for _ in range(int(rng.integers(1, 5)))]
        word = "NOT IN" if _chance(rng, 0.35) else "IN"
        return ("leaf", f"{e.text} {word} ({', '.join(items)})", e.columns)
    if kind == "between":
        word = "NOT BETWEEN" if _chance(rng, 0.25) else "BETWEEN"
        return ("leaf", f"{e.text} {word} {literal(rng, e)} AND {literal(rng, e)}",
                e.columns)
    # distinct: from another column of a comparable family, sometimes, or from a literal
    others = [c for c, t in ds.columns if _comparable(e.family, family_of(t))]
    if others and _chance(rng, 0.3):
        o = column_expr(ds, samples, _pick(rng, others))
        other, cols = o.text, e.columns | o.columns
    else:
        other, cols = literal(rng, e), e.columns
    word = "IS NOT DISTINCT FROM" if _chance(rng, 0.4) else "IS DISTINCT FROM"
    return ("leaf", f"{e.text} {word} {other}", cols)


def leaf(rng: np.random.Generator, ds: Dataset, samples: dict) -> tuple:
    fams = {c: family_of(t) for c, t in ds.columns}
    kind = _pick(rng, LEAF_KINDS)
    if kind == "bool" and "bool" not in fams.values():
        kind = "cmp"
    if kind in EXPRESSION_LEAF_KINDS:
        return expression_leaf(rng, ds, samples, kind, value_expr(rng, ds, samples), literal)
    if kind == "colcmp":
        e = value_expr(rng, ds, samples)
        others = [c for c, f in fams.items() if _comparable(e.family, f)]
        if others:
            o = value_expr(rng, ds, samples, _pick(rng, others))
            if not _comparable(e.family, o.family):
                o = column_expr(ds, samples, _pick(rng, others))
        else:
            o = e  # a column compared with itself
        return ("leaf", f"{e.text} {_pick(rng, OPS)} {o.text}", e.columns | o.columns)
    if kind == "like":
        # DuckDB has LIKE for strings only: a string expression, or another column as text.
        strings = [c for c, f in fams.items() if f == "string"]
        if strings:
            e = value_expr(rng, ds, samples, _pick(rng, strings))
            if e.family != "string":
                e = column_expr(ds, samples, _pick(rng, strings))
        else:
            o = column_expr(ds, samples, _pick(rng, [c for c, _ in ds.columns]))
            e = Expr(f"CAST({o.text} AS VARCHAR)", "string", o.columns,
                     _derive(o.samples, str))
        v = str(_pick(rng, e.samples)) if e.samples else "ab"
        pattern = sql_string(_like_pattern(rng, v))
        op = _pick(rng, ["LIKE", "LIKE", "LIKE", "NOT LIKE", "ILIKE", "NOT ILIKE"])
        escape = " ESCAPE '\\'" if _chance(rng, 0.15) else ""
        return ("leaf", f"{e.text} {op} {pattern}{escape}", e.columns)
    if kind == "bool":
        name = _pick(rng, [c for c, f in fams.items() if f == "bool"])
        c = quote(name)
        text = _pick(rng, [c, f"NOT {c}", f"{c} = TRUE", f"{c} <> FALSE", f"{c} IS TRUE",
                           f"{c} IS NOT FALSE", f"{c} = 'true'"])
        return ("leaf", text, frozenset([name]))
    if kind == "isbool":
        inner = leaf(rng, ds, samples)
        suffix = _pick(rng, ["IS TRUE", "IS NOT TRUE", "IS FALSE", "IS NOT FALSE"])
        return ("leaf", f"({render(inner)}) {suffix}", inner[2])
    if kind == "func":
        strings = [c for c, f in fams.items() if f == "string"]
        floats = [c for c, f in fams.items() if f == "float"]
        if floats and (not strings or _chance(rng, 0.4)):
            name = _pick(rng, floats)
            return ("leaf", f"{_pick(rng, ['', 'NOT '])}isnan({quote(name)})",
                    frozenset([name]))
        if strings:
            e = column_expr(ds, samples, _pick(rng, strings))
            v = str(_pick(rng, e.samples)) if e.samples else "a"
            prefix = sql_string(v[: int(rng.integers(0, len(v) + 1))])
            fn = _pick(rng, ["starts_with", "contains", "prefix", "suffix"])
            return ("leaf", f"{fn}({e.text}, {prefix})", e.columns)
        kind = "const"
    return ("leaf", _pick(rng, ["TRUE", "FALSE", "NULL"]), frozenset())


def predicate(rng: np.random.Generator, ds: Dataset, samples: dict, depth: int = 3, *,
              make_leaf=leaf, leaf_chance: float = 0.45) -> tuple:
    """A tree of AND, OR and NOT at most ``depth`` deep over leaves of ``make_leaf`` (the
    dialect's), each node a leaf with ``leaf_chance``."""
    if depth <= 0 or _chance(rng, leaf_chance):
        return make_leaf(rng, ds, samples)
    kind = _pick(rng, ["and", "and", "or", "or", "not"])
    if kind == "not":
        return ("not", predicate(rng, ds, samples, depth - 1, make_leaf=make_leaf,
                                 leaf_chance=leaf_chance))
    return (kind, tuple(predicate(rng, ds, samples, depth - 1, make_leaf=make_leaf,
                                  leaf_chance=leaf_chance)
                        for _ in range(int(rng.integers(2, 4)))))


def render(tree: tuple) -> str:
    """The predicate as DuckDB text."""
    kind = tree[0]
    if kind == "leaf":
        return tree[1]
    if kind == "not":
        return f"NOT ({render(tree[1])})"
    return "(" + f" {kind.upper()} ".join(render(k) for k in tree[1]) + ")"


def tree_columns(tree: tuple) -> frozenset:
    if tree[0] == "leaf":
        return tree[2]
    if tree[0] == "not":
        return tree_columns(tree[1])
    return frozenset().union(*(tree_columns(k) for k in tree[1]))


def column_samples(ds: Dataset) -> dict:
    """Each column's distinct non-NULL, non-NaN values (row representation)."""
    out = {}
    for c, _ in ds.columns:
        seen: list = []
        for g in ds.groups:
            for r in g:
                v = r[c]
                if v is not None and not is_nan(v) and v not in seen:
                    seen.append(v)
        out[c] = seen
    return out


# ---- shrinking and cases --------------------------------------------------------------------
@dataclasses.dataclass
class Case:
    """What a check needs: the dataset, how it is written, the session zone, the predicate."""

    ds: Dataset
    tree: tuple
    writer: str
    row_group_size: int = 1
    zone: str = "UTC"

    @property
    def text(self) -> str:
        return render(self.tree)


def check_case(case: Case, root: Path, backend: str = "numpy") -> tuple[Result, Workspace]:
    """``case`` written and checked; the workspace is closed (its sizes and rows were read)."""
    ws = Workspace(case.ds, root, case.writer, case.row_group_size, case.zone, backend)
    try:
        return ws.check(case.text), ws
    finally:
        ws.close()


def _smaller_trees(tree: tuple) -> list[tuple]:
    """Smaller candidate predicates: a kid instead of its AND, OR or NOT; an AND or OR with a
    kid fewer; the same inside each kid."""
    kind = tree[0]
    if kind == "leaf":
        return []
    if kind == "not":
        return [tree[1]] + [("not", t) for t in _smaller_trees(tree[1])]
    kids = tree[1]
    out = list(kids)
    if len(kids) > 2:
        out += [(kind, kids[:k] + kids[k + 1:]) for k in range(len(kids))]
    for k, kid in enumerate(kids):
        out += [(kind, kids[:k] + (t,) + kids[k + 1:]) for t in _smaller_trees(kid)]
    return out


def _candidates(case: Case):
    ds = case.ds
    rows = [r for g in ds.groups for r in g]
    if len(ds.groups) > 1:  # every row in one group (the offending group is one already)
        yield dataclasses.replace(case, ds=dataclasses.replace(ds, groups=[rows]))
    for g, group in enumerate(ds.groups):
        if len(group) > 1:
            for k in range(len(group)):
                groups = list(ds.groups)
                groups[g] = group[:k] + group[k + 1:]
                yield dataclasses.replace(case, ds=dataclasses.replace(ds, groups=groups))
    used = tree_columns(case.tree)
    for c, _ in ds.columns:
        if c not in used and len(ds.columns) > 1:
            cols = [(a, t) for a, t in ds.columns if a != c]
            groups = [[{a: r[a] for a, _ in cols} for r in g] for g in ds.groups]
            yield dataclasses.replace(case, ds=Dataset(cols, groups, dict(ds.options)))
    for t in _smaller_trees(case.tree):
        yield dataclasses.replace(case, tree=t)
    if ds.options:
        yield dataclasses.replace(case, ds=dataclasses.replace(ds, options={}))


def shrink_greedily(case: Case, fails, candidates, budget_s: float) -> Case:
    """The first of ``candidates(case)`` that still ``fails``, and again from there, until
    none does or ``budget_s`` seconds are spent."""

    def still_fails(c: Case) -> bool:
        try:
            return fails(c)
        except Exception:  # noqa: BLE001 - a candidate that breaks otherwise is no smaller case
            return False

    deadline = time.monotonic() + budget_s
    changed = True
    while changed and time.monotonic() < deadline:
        changed = False
        for cand in candidates(case):
            if time.monotonic() > deadline:
                break
            if still_fails(cand):
                case, changed = cand, True
                break
    return case


def shrink(case: Case, root: Path, budget_s: float = 30.0) -> Case:
    """Greedy: the offending group alone, then fewer rows, columns and predicate, while some
    group stays unsound."""
    return shrink_greedily(case, lambda c: bool(check_case(c, root)[0].unsound), _candidates,
                           budget_s)


def case_json(case: Case, res: Result, sizes: list, seed: object, note: str = "") -> dict:
    """A reproducer: the predicate text, the columns and the rows of each row group as
    written, the writer and zone, and what prunekit and DuckDB answered."""
    cols = sorted(tree_columns(case.tree))
    return {"kind": "duckdb", "seed": seed, "note": note, "predicate": case.text,
            "writer": case.writer, "row_group_size": case.row_group_size,
            "time_zone": case.zone, "columns_read": cols, **case.ds.to_json(),
            "readable_rows": [[{c: _printable(r[c], t) for c, t in case.ds.columns} for r in g]
                              for g in case.ds.groups],
            "got": {"row_group_rows": sizes, "prunekit": res.outcomes,
                    "prunekit_names": [NAMES.get(o, str(o)) for o in res.outcomes or []],
                    "duckdb_rows_kept": res.counts,
                    "unsound": [m for _, m in res.unsound]}}


def save_case(d: dict, directory: Path = DIRECTORY, prefix: str = "duckdb") -> Path:
    """``d`` saved as ``<prefix>-<hash>.json``; a case without a session time zone (the
    DataFusion harness's) is hashed without one."""
    directory.mkdir(parents=True, exist_ok=True)
    digest = hashlib.sha1((d["predicate"] + json.dumps(d["row_groups"], ensure_ascii=False)
                           + d["writer"] + d.get("time_zone", "")).encode()).hexdigest()
    path = directory / f"{prefix}-{digest[:10]}.json"
    path.write_text(json.dumps(d, indent=1, ensure_ascii=False) + "\n", encoding="utf-8")
    return path


def load_case(path: Path) -> tuple[Case, dict]:
    d = json.loads(Path(path).read_text(encoding="utf-8"))
    ds = Dataset.from_json(d)
    tree = ("leaf", d["predicate"], frozenset(d.get("columns_read", [])))
    return Case(ds, tree, d["writer"], d.get("row_group_size", 1), d.get("time_zone", "UTC")), d


def replay(path: Path, root: Path, backend: str = "numpy") -> Result:
    """A saved case written again with its writer and checked as ``run`` checks it."""
    case, _ = load_case(path)
    return check_case(case, root, backend)[0]


def saved_cases(directory: Path = DIRECTORY) -> list[Path]:
    return sorted(directory.glob("duckdb-*.json"))


def reproducer(case: Case, res: Result, ws_sizes: list) -> str:
    """Text to paste into a bug report: types, rows per group, predicate, both answers."""
    lines = [f"predicate (DuckDB): {case.text}",
             f"written by {case.writer}, session time zone {case.zone}",
             "columns: " + ", ".join(f"{quote(c)} {t}" for c, t in case.ds.columns)]
    rows = [r for g in case.ds.groups for r in g]
    at = 0
    for i, size in enumerate(ws_sizes):
        o = res.outcomes[i] if res.outcomes else None
        lines.append(f"row group {i}: prunekit {NAMES.get(o, o)}, DuckDB keeps "
                     f"{res.counts[i] if res.counts else '?'} of {size} rows")
        for r in rows[at: at + size]:
            lines.append("    " + json.dumps({c: _printable(r[c], t) for c, t in
                                              case.ds.columns}, ensure_ascii=False))
        at += size
    return "\n".join(lines)


def _printable(v: object, t: pa.DataType) -> object:
    if v is None:
        return None
    if pa.types.is_date(t) or pa.types.is_timestamp(t):
        p = _as_python(v, t)  # a zoned timestamp's instant, in UTC
        zone = " UTC" if pa.types.is_timestamp(t) and t.tz else ""
        return f"{p}{zone} ({v})" if p is not None else v
    if isinstance(v, float):
        return repr(v)
    if isinstance(v, (D, bytes)):
        return str(v)
    return v


def _signature(text: str) -> str:
    """The predicate with its literals blanked: one saved case per shape of failure."""
    text = re.sub(r"'(?:[^']|'')*'", "S", text)
    return re.sub(r"-?\d[\d.]*(?:[eE][+-]?\d+)?", "N", text)


# ---- a run ----------------------------------------------------------------------------------
@dataclasses.dataclass
class Summary:
    seed: int = 0
    seconds: float = 0.0
    datasets: int = 0
    files: Counter = dataclasses.field(default_factory=Counter)  # by writer
    predicates: int = 0
    duckdb_refused: Counter = dataclasses.field(default_factory=Counter)  # by error class
    checked: int = 0  # predicates DuckDB accepts and prunekit answers
    fully_read: int = 0  # ... of which without an unknown leaf
    with_unknown: int = 0  # ... with at least one
    refused: int = 0  # prunekit's PrunekitError on a predicate DuckDB accepts
    refused_examples: dict = dataclasses.field(default_factory=dict)  # error kind -> text
    groups_checked: int = 0
    none_match: int = 0
    all_match: int = 0
    decided_fully_read: int = 0  # groups decided by predicates without unknown leaves
    decided_with_unknown: int = 0  # ... by predicates with some
    errors: Counter = dataclasses.field(default_factory=Counter)  # groups DuckDB fails on
    unsound: int = 0  # row groups
    unsound_predicates: int = 0
    crashes: int = 0
    failures: list = dataclasses.field(default_factory=list)  # messages (and saved files)

    @property
    def decided(self) -> int:
        return self.none_match + self.all_match

    def add(self, res: Result) -> None:
        self.predicates += 1
        if res.crash:
            self.crashes += 1
            self.failures.append(f"prunekit crashed: {res.crash} on {res.text}")
        if res.duckdb_refused:
            self.duckdb_refused[res.duckdb_refused.split(":")[0]] += 1
            return
        if res.pk_error:
            self.refused += 1
            kind = re.sub(r"'(?:[^']|'')*'|\d+", "…", res.pk_error)[:90]
            if kind not in self.refused_examples and len(self.refused_examples) < 12:
                self.refused_examples[kind] = res.text
            return
        if res.outcomes is None:
            return
        self.checked += 1
        read = res.unknown_leaves == 0
        self.fully_read += read
        self.with_unknown += not read
        for o, k in zip(res.outcomes, res.counts, strict=True):
            if isinstance(k, str):
                self.errors[k] += 1
                continue
            self.groups_checked += 1
            self.none_match += o == pk.NONE_MATCH
            self.all_match += o == pk.ALL_MATCH
            if o != pk.MAYBE_MATCH:
                if read:
                    self.decided_fully_read += 1
                else:
                    self.decided_with_unknown += 1
        self.unsound += len(res.unsound)
        self.unsound_predicates += bool(res.unsound)

    def text(self) -> str:
        files = ", ".join(f"{k} {v}" for k, v in sorted(self.files.items()))
        lines = [
            f"DuckDB differential run (seed {self.seed}, {self.seconds:.0f} s, DuckDB "
            f"{duckdb.__version__}): {self.datasets} datasets ({files}), "
            f"{self.predicates} predicates",
            f"  DuckDB refused {sum(self.duckdb_refused.values())} before reading a row: "
            f"{dict(self.duckdb_refused.most_common())}",
            f"  checked {self.checked} predicates ({self.fully_read} read in full, "
            f"{self.with_unknown} with unknown leaves) on {self.groups_checked} row groups",
            f"  decided by prunekit: {self.decided} (NONE_MATCH {self.none_match}, "
            f"ALL_MATCH {self.all_match}; {self.decided_fully_read} by predicates read in "
            f"full, {self.decided_with_unknown} by ones with unknown leaves)",
            f"  unsound: {self.unsound} row groups in {self.unsound_predicates} predicates",
            f"  skipped for DuckDB's run-time errors: {sum(self.errors.values())} row groups "
            f"{dict(self.errors.most_common())}",
            f"  refused by prunekit (PrunekitError on text DuckDB runs): {self.refused}",
        ]
        lines += [f"    {kind}\n        e.g. {text}" for kind, text in
                  self.refused_examples.items()]
        lines.append(f"  crashes (an exception other than PrunekitError): {self.crashes}")
        if self.failures:
            lines.append(f"  FAILURES: {len(self.failures)}")
            lines += [f"    {f}" for f in self.failures[:40]]
        return "\n".join(lines)

    def to_json(self) -> dict:
        return {f.name: dict(getattr(self, f.name)) if isinstance(getattr(self, f.name),
                                                                  Counter)
                else getattr(self, f.name) for f in dataclasses.fields(self)}


def dataset_case(seed: int) -> tuple[Case, np.random.Generator]:
    """The dataset of ``seed``, its writer (alternating with the seed), row group size and
    zone; the generator, positioned for the predicates."""
    rng = np.random.default_rng(seed)
    ds = random_dataset(rng)
    writer = WRITERS[seed % 2]
    size = _pick(rng, [1, 1, 2, 4])  # DuckDB merges groups smaller than this
    return Case(ds, ("leaf", "TRUE", frozenset()), writer, size, _pick(rng, ZONES)), rng


def run(seconds: float | None = None, datasets: int | None = None, seed: int = 0,
        predicates: int = 20, save_failures: bool = True, max_saves: int = 6,
        shrink_s: float = 30.0, backend: str = "numpy", log=None,
        directory: Path = DIRECTORY, scratch: Path | None = None) -> Summary:
    """Datasets from seeds ``seed``, ``seed + 1``, ... until ``seconds`` have passed or
    ``datasets`` are done (whichever first; at least one must be given), ``predicates`` each.
    An unsound group is printed (``log``) as a reproducer and, shrunk, saved (at most
    ``max_saves`` per run, one per shape of predicate). Files go to a temporary directory
    inside ``scratch`` (default: the system's), removed at the end."""
    if seconds is None and datasets is None:
        raise ValueError("give seconds or datasets")
    summary = Summary(seed=seed)
    start = time.monotonic()
    deadline = None if seconds is None else start + seconds
    saved_shapes: set = set()
    root = Path(tempfile.mkdtemp(prefix="prunekit-duckdb-diff-", dir=scratch))
    try:
        for s in itertools.count(seed):
            if datasets is not None and s >= seed + datasets:
                break
            if deadline is not None and time.monotonic() > deadline:
                break
            base, rng = dataset_case(s)
            samples = column_samples(base.ds)
            try:
                ws = Workspace(base.ds, root, base.writer, base.row_group_size, base.zone,
                               backend)
            except Exception as e:  # noqa: BLE001 - a writer or reader failure is a finding
                summary.crashes += 1
                summary.failures.append(f"seed {s}: dataset crash {e!r}")
                continue
            summary.datasets += 1
            summary.files[base.writer] += 1
            try:
                for k in range(predicates):
                    tree = predicate(rng, base.ds, samples)
                    res = ws.check(render(tree))
                    summary.add(res)
                    if not res.unsound:
                        continue
                    case = dataclasses.replace(base, tree=tree)
                    msg = _report_unsound(case, res, ws, s, k, root, save_failures and
                                          len(saved_shapes) < max_saves, saved_shapes,
                                          shrink_s, directory)
                    summary.failures.append(msg.splitlines()[0])
                    if log:
                        log(msg)
            finally:
                ws.close()
            if log and summary.datasets % 25 == 0:
                log(f"{summary.datasets} datasets, {summary.predicates} predicates, "
                    f"{summary.groups_checked} groups, decided {summary.decided}, unsound "
                    f"{summary.unsound}, {time.monotonic() - start:.0f} s")
    finally:
        shutil.rmtree(root, ignore_errors=True)
    summary.seconds = time.monotonic() - start
    return summary


def _report_unsound(case: Case, res: Result, ws: Workspace, seed: int, k: int, root: Path,
                    save: bool, saved_shapes: set, shrink_s: float, directory: Path) -> str:
    """The offending group alone (as the file holds it), shrunk when ``save``; its reproducer
    as text; saved as JSON when its predicate's shape is new."""
    g = res.unsound[0][0]
    one = dataclasses.replace(case, ds=dataclasses.replace(case.ds, groups=[ws.group_rows(g)]))
    head = f"seed {seed} predicate {k}: UNSOUND: {res.unsound[0][1]}: {res.text}"
    first, first_ws = check_case(one, root)
    if not first.unsound:  # unsound only beside the file's other groups: keep them all
        one, first, first_ws = case, res, ws
    if not save:
        return head + "\n" + reproducer(one, first, first_ws.sizes)
    small = shrink(one, root, shrink_s)
    small_res, small_ws = check_case(small, root)
    if not small_res.unsound:  # the shrinking lost it (it never should): save the unshrunk
        small, small_res, small_ws = one, first, first_ws
    text = head + "\n" + reproducer(small, small_res, small_ws.sizes)
    shape = (_signature(small.text), tuple(str(t) for _, t in small.ds.columns))
    if shape in saved_shapes:
        return text + "\n(a case of this shape is saved already)"
    saved_shapes.add(shape)
    path = save_case(case_json(small, small_res, small_ws.sizes, [seed, k],
                               "; ".join(m for _, m in small_res.unsound)), directory)
    return text + f"\nsaved as {path.name}"


def long_run_arguments(argv: list[str] | None, description: str,
                       saves_to: str) -> argparse.Namespace:
    """The long form's options (the DataFusion harness takes the same); ``--seed`` defaults
    to the clock. ``saves_to``: the folder ``--no-save`` spares."""
    ap = argparse.ArgumentParser(description=description)
    ap.add_argument("--minutes", type=float, default=10.0, help="run time (default 10)")
    ap.add_argument("--seed", type=int, default=None, help="first seed (default: the clock)")
    ap.add_argument("--datasets", type=int, default=None, help="stop after this many datasets")
    ap.add_argument("--predicates", type=int, default=25, help="predicates per dataset")
    ap.add_argument("--backend", default="numpy", help="prunekit's classify backend")
    ap.add_argument("--no-save", action="store_true", help=f"write nothing to {saves_to}")
    ap.add_argument("--report", type=Path, default=None, help="also write the summary as JSON")
    args = ap.parse_args(argv)
    if args.seed is None:
        args.seed = int(time.time() * 1000) % 10**9
    return args


def main(argv: list[str] | None = None) -> int:
    args = long_run_arguments(argv, __doc__.splitlines()[0], "tests/regressions/duckdb/")
    print(f"duckdb differential: seeds from {args.seed}, {args.minutes} minutes, "
          f"{args.predicates} predicates per dataset", flush=True)
    summary = run(seconds=args.minutes * 60, datasets=args.datasets, seed=args.seed,
                  predicates=args.predicates, save_failures=not args.no_save,
                  backend=args.backend, log=lambda m: print(m, flush=True))
    print(summary.text(), flush=True)
    if args.report:
        args.report.write_text(json.dumps(summary.to_json(), indent=1, ensure_ascii=False)
                               + "\n", encoding="utf-8")
    return 1 if summary.unsound or summary.crashes else 0


if __name__ == "__main__":
    sys.exit(main())
