"""Differential testing against DataFusion itself: random Parquet files, random predicates written
in DataFusion's SQL, DataFusion's own rows as the truth and DataFusion's own row-group pruning as
the bar to clear.

``prunekit.PruningPredicate(text, schema, dialect=DIALECT)`` promises (docs/semantics.md §7,
``prunekit.expr.syntax.dialects``) that what the engine computes as Spark does is read in full
and that everything else becomes an unknown leaf. DataFusion parts from Spark in places Spark
users do not expect (``1.5`` is a Float64 and ``1`` an Int64, integer ``/`` truncates, integer
``+ - *`` wrap, ``IS DISTINCT FROM`` binds more loosely than ``OR``), so the promise is checked
against the real engine:

- a **dataset** per seed: the DuckDB harness's generator (``duckdb_differential``: NULLs,
  all-NULL groups, NaN (every other NaN of a column with its sign bit set: x86's NaN of
  invalid arithmetic, which Arrow's order puts below every number), ±0.0, ±inf, integer
  extremes, decimals narrow and 38 digits wide, long
  and non-ASCII strings, strings holding ``\\ % _ '``, dates, timestamps with and without a
  zone, names only double quotes allow), one to four rows per group, written **either** by
  pyarrow (one row group per generated group) **or** by DuckDB's ``COPY`` (alternating with
  the seed). Each file also holds a row id, ``__rid``, which no predicate names: which row
  group a row DataFusion returns came from is read off the file, exactly.
- **predicates** in DataFusion's grammar (``predicate``, ``render``): comparisons of columns
  and of expressions with literals and with other columns, ``IN``, ``BETWEEN``, ``IS [NOT]
  NULL``, ``IS [NOT] DISTINCT FROM``, ``LIKE``/``NOT LIKE`` (``%``, ``_``, sometimes a
  backslash), integer ``+ - *`` and ``/``, ``/`` of floats, ``abs``, ``CAST(x AS
  BIGINT|DOUBLE)``, ``left(s, k)``, ``substr(s, 1, k)``, literals ``1.5``, ``1``, ``1e3``,
  integers beyond BIGINT, NaN and infinities, ``DATE '...'``, ``TIMESTAMP '...'``, nested
  under AND, OR and NOT.
- DataFusion in two sessions over the same file: ``truth`` holds the file's rows in memory (as
  pyarrow reads them: DataFusion's own reader returns wrong values in one case, at
  ``Workspace``) and runs ``SELECT "__rid" FROM t WHERE <predicate>`` over them (the rows the
  predicate selects, by DataFusion's semantics, with no statistics to skip anything by);
  ``pruned`` has DataFusion's defaults except ``pushdown_filters=false`` and bloom filters off
  (so only statistics prune; ``parse_float_as_decimal`` keeps its default, the point being
  DataFusion's own literal typing). Its plan's scan (``DataSourceExec``, which carries the
  pruning predicate) is executed alone: without the filter above it, it returns every row of
  each row group it keeps, so the row ids name exactly the groups DataFusion skips (by row-group
  statistics, or the whole file by the statistics it sums over them). Its metric
  ``row_groups_pruned_statistics=N total → M matched`` is read too and must agree (else
  page-index pruning took part: counted as ``metric_mismatch``).

Checks per (file, predicate), per row group:

- **soundness**: prunekit's NONE_MATCH group holds no row DataFusion returns; its ALL_MATCH
  group holds only such rows.
- **refusals**: prunekit raises nothing for a predicate DataFusion plans (an unmodelled
  construct must be an unknown leaf); any other exception is a crash.
- **pruning power**: a group DataFusion skips, prunekit keeps ("DataFusion skips more"). Four
  kinds are listed apart and not held against prunekit: the skipped group holds a row
  DataFusion returns when unpruned (DataFusion itself is unsound there: "DataFusion
  unsound", its NaN rule); or prunekit skips it too once told that no float column holds a
  NaN (``Statistics(no_nan=...)``), which DataFusion assumes and Parquet statistics do not
  say (sound by luck: the group has none); or the group with its zeros or NaNs given the
  other sign, or with rows of its own values added, has the same statistics and holds a row
  DataFusion returns (``Workspace.zero_witness``, ``Workspace.mix_witness``: DataFusion
  decides from statistics alone, so it skips that group too, unsoundly); or DataFusion skips
  it on a term of the top AND that returns a row of it, and on no term soundly
  (``Workspace.term_witness``: its rule for that term is wrong there); or the group holds
  a row the predicate as written returns, in DataFusion with its optimizer off
  (``Workspace.returned_as_written``): its optimizer's rewrite drops that row, a wrong answer
  prunekit does not copy.

A predicate DataFusion rejects before reading a row (planning, run on an empty table of the
same columns) is counted and skipped; one failing at run time (division by zero, a failed
cast) has no rows to protect and is counted too.

An unsound group, a refusal or a crash is shrunk (a smaller predicate on the same file, then
fewer groups, rows and columns) and saved as ``tests/regressions/datafusion/datafusion-
<hash>.json`` (one per construct or shape); tests/test_datafusion_differential.py replays
them and runs a bounded ``run``. The predicates where DataFusion skips more are shrunk on
their file and listed in the summary, grouped by construct. The long form::

    python -m tests.support.datafusion_differential --minutes 10 [--seed S] [--no-save]

prints the summary and exits with 1 on an unsound group, a refusal or a crash.
"""

from __future__ import annotations

import dataclasses
import datetime as dt
import decimal
import itertools
import json
import math
import re
import shutil
import struct
import sys
import tempfile
import time
import traceback
from collections import Counter
from pathlib import Path

import numpy as np
import pyarrow as pa
import pyarrow.parquet as pq
import sqlglot

import prunekit as pk
from prunekit.expr.paths import leaf_key
from prunekit.expr.syntax import nodes as n
from prunekit.parquet import statistics
from tests.support import differential
from tests.support import duckdb_differential as dd
from tests.support.differential import REGRESSIONS, Dataset, write_parquet
from tests.support.duckdb_differential import (
    NUMERIC,
    OPS,
    Case,
    Expr,
    _chance,
    _comparable,
    _derive,
    _pick,
    _trunc_div,
    column_expr,
    column_samples,
    date_text,
    family_of,
    number_text,
    quote,
    render,
    sql_string,
    tree_columns,
    ts_text,
)

D = decimal.Decimal
CTX = decimal.Context(prec=200)
# The dialect prunekit reads the predicates in: DataFusion's own entry of
# prunekit.expr.syntax.dialects.ENGINES.
DIALECT = "datafusion"
DIRECTORY = REGRESSIONS / "datafusion"
NAMES = {0: "NONE_MATCH", 1: "MAYBE_MATCH", 2: "ALL_MATCH"}
WRITERS = ("pyarrow", "duckdb")
RID = "__rid"  # the row id column every file holds and no predicate names

# Unsound constructs this harness found that the library does not read soundly yet: name ->
# why. A saved case naming one (its JSON's "known_unsound") is a strict xfail in
# tests/test_datafusion_differential.py until the library is fixed; then the xfail passes,
# fails the suite, and both go.
KNOWN_UNSOUND: dict[str, str] = {}

# Types DataFusion reads from Parquet as pyarrow and DuckDB write them (unsigned ints stay
# unsigned, decimals keep precision and scale, timestamps keep their unit and zone).
TYPE_POOL = ["int8", "int16", "int32", "int64", "int64", "uint8", "uint32", "uint64",
             "float32", "float64", "float64", "float64", "decimal(9,2)", "decimal(18,4)",
             "decimal(38,10)", "decimal(5,0)", "string", "string", "string", "date32",
             "date32", "timestamp(us)", "timestamp(ns)", "timestamp(us,UTC)",
             "timestamp(ms,UTC)", "timestamp(ns,UTC)"]


def random_dataset(rng: np.random.Generator) -> Dataset:
    """1-4 columns of ``TYPE_POOL`` named from the DuckDB harness's names (double quotes
    needed), 2-8 row groups of 1-4 rows of its values; every other NaN of a column has its
    sign bit set (``signed_nans``)."""
    return signed_nans(differential.random_dataset(
        rng, types=TYPE_POOL, names=dd.COLUMN_NAMES, group_counts=(2, 3, 4, 6, 8), max_rows=4,
        values=dd._values, partial_statistics=False))


# NaN with its sign bit set, as x86 makes it of invalid arithmetic (numpy's 0.0 / 0.0).
NEGATIVE_NAN = struct.unpack("<d", struct.pack("<Q", 0xFFF8000000000000))[0]


def signed_nans(ds: Dataset) -> Dataset:
    """``ds`` with every other NaN of each column, in row order, given its sign bit: NaNs of
    both signs, which Arrow's order puts at both ends. Decided without the generator, so
    that a seed keeps the datasets it made before NaNs had signs, but for those signs."""
    seen: Counter = Counter()
    groups = []
    for group in ds.groups:
        rows = []
        for row in group:
            row = dict(row)
            for name, v in row.items():
                if isinstance(v, float) and math.isnan(v):
                    seen[name] += 1
                    if seen[name] % 2 == 0:
                        row[name] = NEGATIVE_NAN
            rows.append(row)
        groups.append(rows)
    return Dataset(ds.columns, groups, dict(ds.options))


def with_row_ids(ds: Dataset) -> Dataset:
    at = itertools.count()
    return Dataset(ds.columns + [(RID, pa.int64())],
                   [[{**r, RID: next(at)} for r in g] for g in ds.groups], dict(ds.options))


# ---- DataFusion -----------------------------------------------------------------------------
def session(pruning: bool, optimizer: bool = True):
    """A DataFusion session on one partition (a CPU budget; the scan is then one stream).
    ``pruning``: DataFusion's defaults for row-group pruning from min/max statistics, with
    filters not pushed into the decoder and bloom filters not read (DuckDB writes them).
    Nor are a file's statistics collected: DataFusion 55 sums them over the file's row groups
    leaving out the groups without bounds (DuckDB writes none for floats holding a NaN), and
    then skips whole files holding matching rows. What is compared is the
    row-group pruning its ``row_groups_pruned_statistics`` metric reports. ``optimizer``:
    its logical optimizer's passes run (none where False)."""
    from datafusion import SessionConfig, SessionContext

    cfg = (SessionConfig().with_target_partitions(1)
           .set("datafusion.execution.parquet.pushdown_filters", "false")
           .set("datafusion.execution.parquet.bloom_filter_on_read", "false")
           .set("datafusion.execution.collect_statistics", "false"))
    if not pruning:
        cfg = cfg.set("datafusion.execution.parquet.pruning", "false")
    if not optimizer:
        cfg = cfg.set("datafusion.optimizer.max_passes", "0")
    return SessionContext(cfg)


def _scans(plan) -> list:
    if "DataSourceExec" in plan.display():
        return [plan]
    return [s for kid in plan.children() for s in _scans(kid)]


def _first_line(e: BaseException) -> str:
    return f"{type(e).__name__}: {(str(e).splitlines() or [''])[0][:150]}"


_METRIC = re.compile(r"row_groups_pruned_statistics\{[^}]*\}=(\d+) total → (\d+) matched")


class Workspace:
    """One dataset written to one file (with row ids), prunekit's statistics of it, and the two
    DataFusion sessions over it (``truth``, ``pruned``; ``empty``: no rows, same columns)."""

    def __init__(self, ds: Dataset, root: Path, writer: str, row_group_size: int = 1,
                 backend: str = "numpy"):
        self.ds, self.writer, self.backend = ds, writer, backend
        self.dir = Path(tempfile.mkdtemp(dir=root))
        self.path = self.dir / "data.parquet"
        full = with_row_ids(ds)
        if writer == "pyarrow":
            write_parquet(full, self.path)
        else:
            con = dd.connect("UTC")
            try:
                dd.write_duckdb(con, full, self.path, row_group_size)
            finally:
                con.close()
        pf = pq.ParquetFile(self.path)
        self.sizes = [pf.metadata.row_group(i).num_rows for i in range(pf.num_row_groups)]
        # Which group holds each row id, as the file says (DuckDB may merge groups).
        self.group_of = {}
        for i in range(pf.num_row_groups):
            for rid in pf.read_row_group(i, columns=[RID]).column(0).to_pylist():
                self.group_of[rid] = i
        assert len(self.group_of) == sum(len(g) for g in ds.groups), "rows lost in writing"
        self.schema = pq.read_schema(self.path)
        self.stats = statistics(str(self.path))
        # The same bounds, told that no float column holds a NaN: what DataFusion's rule
        # assumes (it reads float bounds as if no NaN were left out of them).
        # (Statistics are keyed by leaf path: a column named "x.y" is keyed `x.y`.)
        floats = {leaf_key([c]) for c, t in ds.columns if differential.is_float(t)}
        self.stats_no_nan = pk.Statistics(self.stats.table, no_nan=[
            c for c in self.stats.columns if c in floats])
        self.truth, self.pruned = session(False), session(True)
        self.pruned.register_parquet("t", str(self.path))
        # The truth is DataFusion's filter over the file's rows as pyarrow reads them, in
        # memory. Not over the file: a filter there lets DataFusion skip the whole file from
        # the statistics it sums over its row groups (``files_ranges_pruned_statistics``,
        # whatever ``pruning`` says). Nor over DataFusion's own read of it: where one group's
        # floats are all NaN (no min or max) and the others' min equals their max, DataFusion
        # 55 takes the column for a constant and returns that value for the NaN rows too.
        self.truth.register_record_batches("t", [pq.read_table(self.path).to_batches()])
        self.truth.register_view("empty", self.truth.from_arrow(self.schema.empty_table()))
        self.as_written = None  # (``returned_as_written``'s session, made when first asked)

    def group_rows(self, i: int) -> list[dict]:
        """Row group ``i`` as the file holds it (the row representation of differential.py)."""
        return dd.read_group_rows(self.path, self.ds.columns, i)

    def returned(self, text: str) -> list[int]:
        """Per row group, how many of its rows DataFusion returns (from memory: unpruned)."""
        return self._returned_by(self.truth, text)

    def _returned_by(self, ctx, text: str) -> list[int]:
        table = ctx.sql(f"SELECT {quote(RID)} FROM t WHERE {text}").to_arrow_table()
        counts = [0] * len(self.sizes)
        for rid in table.column(0).to_pylist():
            counts[self.group_of[rid]] += 1
        return counts

    def kept(self, text: str) -> tuple[list[bool], int | None]:
        """Per row group, whether DataFusion's statistics pruning reads it, and the number its
        metric says it kept (None when it reports none: no pruning predicate, or a plan
        without a scan)."""
        plan = self.pruned.sql(f"SELECT {quote(RID)} FROM t WHERE {text}").execution_plan()
        scans = _scans(plan)
        if not scans:  # the planner folded the filter to FALSE: nothing is read
            return [False] * len(self.sizes), 0
        (scan,) = scans
        read = [False] * len(self.sizes)
        for p in range(scan.partition_count):
            for batch in self.pruned.execute(scan, p):
                table = pa.Table.from_batches([batch.to_pyarrow()])
                for rid in table.column(RID).to_pylist():
                    read[self.group_of[rid]] = True
        m = _METRIC.search(str(scan.metrics()))
        return read, int(m[2]) if m and int(m[1]) > 0 else None

    def check(self, text: str) -> Result:
        res = Result(text)
        try:
            res.counts = self.returned(text)
        except Exception as e:  # noqa: BLE001 - DataFusion's errors come as several classes
            try:  # does DataFusion reject it before reading a row?
                self.truth.sql(f"SELECT count(*) FROM empty WHERE {text}").to_arrow_table()
                res.df_runtime_error = _first_line(e)
            except Exception as e2:  # noqa: BLE001
                res.df_refused = _first_line(e2)
        try:
            pred = pk.PruningPredicate(text, self.schema, dialect=DIALECT, time_zone="UTC")
            res.unknown_leaves = sum(isinstance(x, n.Opaque) for x in pred.expression.walk())
            res.outcomes = [int(o) for o in pred.classify(self.stats, backend=self.backend)]
        except pk.PrunekitError as e:
            res.pk_error = _first_line(e)
        except Exception as e:  # noqa: BLE001 - any other exception is a crash to report
            res.crash = "".join(traceback.format_exception_only(type(e), e)).strip()[:400]
        if res.counts is None or res.outcomes is None:
            return res
        try:
            res.df_kept, res.df_metric = self.kept(text)
        except Exception as e:  # noqa: BLE001 - planning over the file fails (its statistics
            # meet a DataFusion bug) where the rows in memory did not: read as "nothing
            # skipped", and counted
            res.df_scan_error = _first_line(e)
            res.df_kept = [True] * len(self.sizes)
        for i, (o, k) in enumerate(zip(res.outcomes, res.counts, strict=True)):
            size = self.sizes[i]
            if o == pk.NONE_MATCH and k > 0:
                res.unsound.append((i, f"row group {i}: NONE_MATCH, but DataFusion returns {k} "
                                       f"of its {size} rows"))
            elif o == pk.ALL_MATCH and k < size:
                res.unsound.append((i, f"row group {i}: ALL_MATCH, but DataFusion returns only "
                                       f"{k} of its {size} rows"))
            elif o not in NAMES:
                res.unsound.append((i, f"row group {i}: outcome {o!r}"))
            if not res.df_kept[i] and k > 0:
                res.df_unsound.append(i)
            elif not res.df_kept[i] and o != pk.NONE_MATCH:
                res.weaker.append(i)
        if res.weaker:  # which of them prunekit skips too once told there is no NaN
            no_nan = pred.classify(self.stats_no_nan, backend=self.backend)
            res.nan_rule = [i for i in res.weaker if no_nan[i] == pk.NONE_MATCH]
            res.weaker = [i for i in res.weaker if i not in res.nan_rule]
        if res.weaker:
            res.zero_rule = [i for i in res.weaker if self.zero_witness(text, i)
                             or self.mix_witness(text, i) or self.term_witness(text, i)]
            res.weaker = [i for i in res.weaker if i not in res.zero_rule]
        if res.weaker:
            written = self.returned_as_written(text)
            res.optimizer_rule = [i for i in res.weaker if written[i] > 0]
            res.weaker = [i for i in res.weaker if i not in res.optimizer_rule]
        if res.weaker and res.df_metric == 0 and not any(res.df_kept) and self.fold_witness(text):
            res.optimizer_rule += res.weaker
            res.weaker = []
        return res

    def returned_as_written(self, text: str) -> list[int]:
        """Per row group, how many of its rows DataFusion returns with its logical optimizer
        off (no pass: the predicate as written, after its type coercion). A group the
        optimized query skips where this returns rows is one its optimizer's rewrite drops
        (``x = 2 AND CAST(2 AS BIGINT) = x`` is planned as an empty relation there)."""
        if self.as_written is None:
            self.as_written = session(False, optimizer=False)
            self.as_written.register_record_batches("t", [pq.read_table(self.path).to_batches()])
        try:
            return self._returned_by(self.as_written, text)
        except Exception:  # noqa: BLE001 - an error unoptimized (a call its optimizer folds
            return [0] * len(self.sizes)  # away fails on a row): no rows to witness with

    def fold_witness(self, text: str) -> bool:
        """Whether DataFusion's predicate as written (its optimizer off) returns a row of a
        table made of the file's values and the predicate's literals, each column's in every
        combination. Where its logical optimizer folds the predicate to FALSE (a logical plan
        without a scan, made before any file is read: ``x = 1 AND CAST(1 AS BIGINT) = x`` is
        an empty relation there), such a row shows the fold wrong: the groups it skips are
        skipped by that rewrite, not by their statistics, whether or not this file's own rows
        show it. False where the logical plan scans the table."""
        logical = self.pruned.sql(f"SELECT {quote(RID)} FROM t WHERE {text}")
        if "TableScan" in logical.optimized_logical_plan().display_indent():
            return False  # (not its logical optimizer's fold: its physical planning, which
            # may drop the whole file by its statistics, decides from this file's values)
        table = witness_table(pq.read_table(self.path), text)
        if table is None:
            return False
        ctx = session(False, optimizer=False)
        ctx.register_record_batches("t", [table.to_batches()])
        try:
            found = ctx.sql(f"SELECT count(*) FROM t WHERE {text}").to_arrow_table()
        except Exception:  # noqa: BLE001 - an error on some made-up row: no witness
            return False
        return found.column(0)[0].as_py() > 0

    def zero_witness(self, text: str, i: int) -> bool:
        """Whether row group ``i``, its zeros (or its NaNs) given the other sign, has the same
        statistics and holds a row DataFusion returns: then DataFusion, which decides from
        statistics alone, skips such a group too, and its skip of this one is luck. (Parquet
        writers write a zero bound as -0.0 for a minimum and 0.0 for a maximum, as the format
        asks; DataFusion's pruning takes them for equal while its IN over a set and its FLOAT
        comparisons tell them apart. DuckDB writes the first zero it meets as both bounds, so
        there its zeros but the first are given the other sign too. Bounds leave NaNs out, of
        either sign, whose sign orders them there: a NaN's sign changes no statistics.)"""
        group = pq.ParquetFile(self.path).read_row_group(i)
        floats = [k for k, f in enumerate(group.schema) if pa.types.is_floating(f.type)]
        for zero, but_first in ((0.0, False), (-0.0, False), (0.0, True), (-0.0, True),
                                (math.nan, False), (-math.nan, False)):
            variant, changed = group, []
            for k in floats:
                values = group.column(k).to_pylist()
                hits = [j for j, v in enumerate(values) if v is not None and (
                    v == 0 if zero == 0 else v != v)][1 if but_first else 0:]
                flipped = [zero if j in hits else v for j, v in enumerate(values)]
                if [_bits(v) for v in flipped] != [_bits(v) for v in values]:
                    variant = variant.set_column(k, group.schema.field(k),
                                                 pa.array(flipped, group.schema.field(k).type))
                    changed.append(k)
            if not changed or zero == 0 and any(
                    _written_bounds(variant, k, self.dir, self.writer) != _file_bounds(
                        self.path, i, k) for k in changed):
                continue
            ctx = session(False)
            ctx.register_record_batches("t", [variant.to_batches()])
            if ctx.sql(f"SELECT count(*) FROM t WHERE {text}").to_arrow_table()[0][0].as_py():
                return True
        return False

    def term_witness(self, text: str, i: int) -> bool:
        """Whether DataFusion's skip of row group ``i`` rests on a term of the predicate's
        top AND that its pruning skips the group on while the group holds a row the term
        returns (its rule for that term is wrong there: ``-s <= -19`` read as ``s >= 19`` of
        a TINYINT holding -128), and on no term it skips the group on soundly (one prunekit
        would owe). False where a term of the AND is split otherwise by DataFusion (the
        right side of IS [NOT] DISTINCT FROM runs to the end of its parentheses there)."""
        if "DISTINCT FROM" in text.upper():
            return False
        tree = sqlglot.parse_one(text, read="postgres").unnest()
        terms = list(tree.flatten()) if isinstance(tree, sqlglot.exp.And) else []
        wrong = False
        for term in terms:
            sql = term.sql(dialect="postgres")
            try:
                returned, kept = self.returned(sql)[i], self.kept(sql)[0][i]
            except Exception:  # noqa: BLE001 - a term DataFusion refuses alone: no witness
                return False
            if not kept and not returned:
                return False  # (a sound skip on this term: prunekit's to make too)
            wrong |= not kept
        return wrong

    def mix_witness(self, text: str, i: int, most: int = 2000) -> bool:
        """Whether row group ``i`` with rows added, made of its own values (each column the
        predicate names takes its non-NULL values in every combination, NULL where it has
        none), has the same bounds and NULL count (a column of NULLs only: NULLs only still),
        and DataFusion's pruned scan of it as a
        file leaves out a row its filter returns: DataFusion decides from those statistics
        alone, so its skip of this group is luck (its rule for ``-x`` takes no account of
        the least value, whose negation wraps, say: a row of that value beside another
        column's value the predicate needs is such a row)."""
        group = pq.ParquetFile(self.path).read_row_group(i)
        named, choices = [], []
        for k, (name, column) in enumerate(zip(group.column_names, group.columns, strict=True)):
            if not _named_in(name, text):
                choices.append(column.slice(0, 1).to_pylist())
                continue
            named.append(k)
            by_repr = {repr(v): v for v in column.to_pylist() if v is not None}
            choices.append(list(by_repr.values()) or [None])
        if not named or math.prod(len(c) for c in choices) > most:
            return False
        rows = list(zip(*itertools.product(*choices), strict=True))
        extra = pa.table({f.name: pa.array(list(col), f.type)
                          for f, col in zip(group.schema, rows, strict=True)})
        variant = pa.concat_tables([group, extra])
        if any(_null_or_bounds(_written_bounds(variant, k, self.dir, self.writer)) !=
               _null_or_bounds(_file_bounds(self.path, i, k)) for k in named):
            return False
        path = self.dir / "mixed.parquet"
        _write_as(variant, path, self.writer)
        truth, pruned = session(False), session(True)
        truth.register_record_batches("t", [variant.to_batches()])
        pruned.register_parquet("t", str(path))
        try:
            counts = [ctx.sql(f"SELECT count(*) FROM t WHERE {text}").to_arrow_table()[0][0]
                      .as_py() for ctx in (truth, pruned)]
        except Exception:  # noqa: BLE001 - an error on a made-up row: no witness
            return False
        return counts[1] < counts[0]

    def close(self) -> None:
        shutil.rmtree(self.dir, ignore_errors=True)

    def __enter__(self) -> Workspace:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


_LITERAL = re.compile(r"'((?:[^']|'')*)'|(?<![\w.\"])(-?\d+(?:\.\d+)?(?:[eE][-+]?\d+)?)")


def witness_table(rows: pa.Table, text: str, per_column: int = 12,
                  most: int = 50_000) -> pa.Table | None:
    """Rows for ``fold_witness``: each column the predicate names takes the values it holds in
    ``rows`` and the literals of ``text`` its type can hold (at most ``per_column``), in every
    combination; the other columns keep the first row's value. None when there would be more
    than ``most`` rows, or no row."""
    literals = [m[1].replace("''", "'") if m[1] is not None else m[2]
                for m in _LITERAL.finditer(text)]
    if rows.num_rows == 0:
        return None
    choices = {}
    for name, column in zip(rows.column_names, rows.columns, strict=True):
        if not _named_in(name, text):
            choices[name] = column.slice(0, 1)
            continue
        values = []  # the literals first: a fold's witness is more often one of them
        for lit in literals:
            for raw in (lit, float(lit) if _is_number(lit) else None):
                try:
                    values.append(pa.array([raw]).cast(column.type).to_pylist()[0])
                    break
                except (pa.ArrowInvalid, pa.ArrowNotImplementedError, TypeError, ValueError,
                        OverflowError):
                    continue
        values += column.to_pylist()
        by_repr = {}  # told apart by repr: 0.0 and -0.0, each NaN
        for v in values:
            by_repr.setdefault(repr(v), v)
        choices[name] = pa.array(list(by_repr.values())[:per_column], column.type)
    if math.prod(len(c) for c in choices.values()) > most:
        return None
    combos = itertools.product(*(c.to_pylist() for c in choices.values()))
    columns = list(zip(*combos, strict=True))
    return pa.table({name: pa.array(list(col), rows.schema.field(name).type)
                     for name, col in zip(choices, columns, strict=True)})


def _bits(v: object) -> object:
    """A value told apart from another by its bits (a zero's or a NaN's sign)."""
    return struct.pack("<d", v) if isinstance(v, float) else v


def _named_in(name: str, text: str) -> bool:
    """Whether predicate ``text`` names column ``name``, quoted or bare."""
    return quote(name) in text or re.search(
        rf"(?<![\w\"]){re.escape(name)}(?![\w\"])", text) is not None


def _is_number(text: str) -> bool:
    try:
        float(text)
    except ValueError:
        return False
    return True


def _file_bounds(path: Path, group: int, column: int) -> tuple:
    """A column chunk's statistics as DataFusion's pruning reads them (zeros with their
    sign)."""
    st = pq.ParquetFile(path).metadata.row_group(group).column(column).statistics
    if st is None:
        return (None,)
    return (repr(st.min) if st.has_min_max else None, repr(st.max) if st.has_min_max else None,
            st.null_count, st.num_values)


def _null_or_bounds(bounds: tuple) -> tuple:
    """A column chunk's bounds and NULL count, or that it holds NULLs only (whose count grows
    with rows of NULLs added)."""
    return ("NULLs only",) if bounds[3:] == (0,) else bounds[:3]


def _written_bounds(table: pa.Table, column: int, scratch: Path, writer: str) -> tuple:
    """The statistics ``writer`` (pyarrow or DuckDB) writes for ``column`` of ``table`` as one
    row group."""
    path = scratch / "variant.parquet"
    _write_as(table, path, writer)
    return _file_bounds(path, 0, column)


def _write_as(table: pa.Table, path: Path, writer: str) -> None:
    """``table`` written as one row group by ``writer`` (pyarrow or DuckDB), whose statistics
    differ (DuckDB's zero bounds are the first zero it meets)."""
    if writer == "pyarrow":
        pq.write_table(table, path, row_group_size=max(table.num_rows, 1))
        return
    con = dd.connect("UTC")
    try:
        con.register("__variant", table)
        con.execute(f"COPY (SELECT * FROM __variant) TO '{path}' (FORMAT parquet, "
                    f"ROW_GROUP_SIZE {max(table.num_rows, 1)})")
    finally:
        con.close()


@dataclasses.dataclass
class Result:
    """One predicate on one file."""

    text: str
    df_refused: str | None = None  # DataFusion's error before reading a row
    df_runtime_error: str | None = None  # DataFusion's error on the rows
    pk_error: str | None = None  # prunekit's PrunekitError
    crash: str | None = None  # any other exception from prunekit
    unknown_leaves: int = 0
    outcomes: list | None = None
    counts: list | None = None  # per group: rows DataFusion returns (unpruned)
    df_kept: list | None = None  # per group: read by DataFusion's pruned scan
    df_metric: int | None = None  # groups kept by DataFusion's metric
    df_scan_error: str | None = None  # DataFusion's error planning the scan of the file
    unsound: list = dataclasses.field(default_factory=list)  # (group, message)
    weaker: list = dataclasses.field(default_factory=list)  # groups only DataFusion skips
    df_unsound: list = dataclasses.field(default_factory=list)  # DataFusion skips a match
    # Groups only DataFusion skips, by ignoring that a float column may hold NaN (sound here
    # by luck: the group holds none): prunekit skips them too when told so (``no_nan``).
    nan_rule: list = dataclasses.field(default_factory=list)
    # Groups only DataFusion skips where the same statistics fit rows it returns (or it skips
    # on a term of its AND that returns a row: ``Workspace.term_witness``): its zeros
    # or NaNs given the other sign (``Workspace.zero_witness``), or rows of its own values
    # (``Workspace.mix_witness``). DataFusion is unsound on those rows.
    zero_rule: list = dataclasses.field(default_factory=list)
    # Groups only DataFusion skips that hold rows its predicate as written returns (its
    # optimizer off): its optimizer's rewrite drops those rows, and so the group.
    optimizer_rule: list = dataclasses.field(default_factory=list)

    @property
    def refused(self) -> bool:
        """prunekit raised on text DataFusion plans."""
        return self.pk_error is not None and self.df_refused is None

    def finding(self) -> str | None:
        if self.crash:
            return "crash"
        if self.unsound:
            return "unsound"
        if self.refused:
            return "refused"
        if self.weaker:
            return "weaker"
        return None


# ---- literals -------------------------------------------------------------------------------
# Numbers are written by DuckDB's ``number_text``: DataFusion too reads ``1.5`` and ``1e3`` as
# doubles (Float64), ``1`` as an integer (Int64), NaN and the infinities as casts of text.


# DataFusion's own draw: no string or ``::`` literals, no HUGEINT, Float64 fractions, integers
# beyond BIGINT (UInt64, then Decimal).
def _numeric_literal(rng: np.random.Generator, e: Expr) -> str:
    v = dd.number_sample(rng, e)
    if isinstance(v, float) and not math.isfinite(v):
        return _pick(rng, [number_text(v), number_text(v), "CAST('NaN' AS DOUBLE)",
                           "CAST('inf' AS DOUBLE)", "1e308", "-1e308"])
    kind = int(rng.integers(15))
    if kind <= 7:
        return dd.number_near(rng, e, v, kind)
    if kind == 8:  # a fraction next to the value: Float64 in DataFusion
        return f"{int(dd.as_decimal(v))}.5"
    if kind == 9 and isinstance(v, float):
        return repr(_pick(rng, [math.nextafter(v, math.inf), math.nextafter(v, -math.inf)]))
    if kind == 10:
        return _pick(rng, ["0.1", "-0.0", "0.5", "0", "-0", "0.30000000000000004",
                           "3.4028234663852886e38", "16777217", "9007199254740993",
                           "9223372036854775808", "18446744073709551616", "-9223372036854775808",
                           "1e308"])
    if kind == 11:
        return dd.number_at_precision(rng, e, v)
    if kind == 12:
        # (FLOAT is DataFusion's REAL, 32 bits, where PostgreSQL's is a DOUBLE)
        to = _pick(rng, ["DOUBLE", "BIGINT", "DECIMAL(20,4)", "DECIMAL(38,10)", "REAL",
                         "FLOAT"])
        return f"CAST({number_text(v)} AS {to})"
    if kind == 13:
        return "NULL"
    return number_text(v)


def _string_literal(rng: np.random.Generator, e: Expr) -> str:
    cands = dd.strings_near(rng, e)
    # No number against a string: DataFusion does not coerce one to the other as DuckDB does.
    return "NULL" if _chance(rng, 0.08) else sql_string(_pick(rng, cands))


# DuckDB's defaults in another order: this harness's seeds were drawn with this one.
TEMPORAL_DEFAULTS = (dt.date(2020, 1, 1), dt.datetime(2019, 12, 31, 23, 59, 59),
                     dt.date(1970, 1, 1), dt.date(1, 1, 1), dt.date(9999, 12, 31))


def _temporal_literal(rng: np.random.Generator, e: Expr) -> str:
    day, with_time = dd.day_and_time_near(rng, e, TEMPORAL_DEFAULTS)
    # No TIMESTAMPTZ literal and no ``::`` cast: DataFusion's grammar has neither.
    kind = int(rng.integers(10))
    if kind <= 3:
        return f"DATE '{date_text(day)}'"
    if kind <= 6:
        return f"TIMESTAMP '{ts_text(with_time)}'"
    if kind == 7:
        return f"CAST('{date_text(day)}' AS DATE)"
    if kind == 8:
        return "NULL"
    return f"'{date_text(day)}'"  # a string: DataFusion casts it to the column's type


def literal(rng: np.random.Generator, e: Expr) -> str:
    """A literal, as DataFusion text, to compare with ``e``: mostly near its values."""
    if e.family in NUMERIC:
        return _numeric_literal(rng, e)
    if e.family == "string":
        return _string_literal(rng, e)
    return _temporal_literal(rng, e)


# ---- value expressions ----------------------------------------------------------------------
def value_expr(rng: np.random.Generator, ds: Dataset, samples: dict,
               name: str | None = None) -> Expr:
    """A column, or an expression over it, as DataFusion text."""
    name = name or _pick(rng, [c for c, _ in ds.columns])
    e = column_expr(ds, samples, name)
    if _chance(rng, 0.55):
        return e
    c, s, cols, fam = e.text, e.samples, e.columns, e.family
    if fam in ("int", "uint"):
        kind = int(rng.integers(10))
        if kind <= 2:
            op = "+-*"[kind]
            k = _pick(rng, [1, 2, -1, -3, 0, 10, 1000, 2**31 - 1, 2**62])
            fn = {"+": lambda v: v + k, "-": lambda v: v - k, "*": lambda v: v * k}[op]
            if _chance(rng, 0.2):  # the number first
                return Expr(f"({k} {op} {c})", "int", cols,
                            _derive(s, fn if op != "-" else lambda v: k - v))
            return Expr(f"({c} {op} {k})", "int", cols, _derive(s, fn))
        if kind == 3:
            others = [x for x, t in ds.columns if family_of(t) in ("int", "uint")]
            other = column_expr(ds, samples, _pick(rng, others))
            op = _pick(rng, ["+", "-", "*", "/"])
            fn = {"+": lambda p: p[0] + p[1], "-": lambda p: p[0] - p[1],
                  "*": lambda p: p[0] * p[1],
                  "/": lambda p: _trunc_div(p[0], p[1]) if p[1] else None}[op]
            return Expr(f"({c} {op} {other.text})", "int", cols | other.columns,
                        _derive(tuple(zip(s, other.samples, strict=False)), fn))
        if kind in (4, 5):  # integer division in DataFusion, by 0 a run-time error
            k = _pick(rng, [2, -4, 3, 1, -1, 0, 7, 10])
            return Expr(f"({c} / {k})", "int", cols,
                        _derive(s, lambda v: _trunc_div(v, k) if k else None))
        if kind == 6:
            return Expr(f"abs({c})", "int", cols, _derive(s, abs))
        if kind == 7 and fam == "int":  # DataFusion has no unary minus of unsigned ints
            return Expr(f"(-{c})", "int", cols, _derive(s, lambda v: -v))
        to = _pick(rng, ["BIGINT", "DOUBLE"])
        return Expr(f"CAST({c} AS {to})", "float" if to == "DOUBLE" else "int", cols, s)
    if fam == "float":
        kind = int(rng.integers(8))
        if kind <= 1:
            k = _pick(rng, ["4", "-2", "0", "3", "1", "2.5", "0.5"])
            return Expr(f"({c} / {k})", fam, cols,
                        _derive(s, lambda v: v / float(k) if float(k) else None))
        if kind <= 5:
            return dd.float_arithmetic(e, kind)
        to = _pick(rng, ["DOUBLE", "BIGINT"])
        return Expr(f"CAST({c} AS {to})", "int" if to == "BIGINT" else fam, cols,
                    _derive(s, lambda v: int(v) if to == "BIGINT" else v))
    if fam == "decimal":
        kind = int(rng.integers(5))
        if kind == 0:
            return Expr(f"({c} * 2)", fam, cols, _derive(s, lambda v: v * 2))
        if kind == 1:
            return Expr(f"abs({c})", fam, cols, _derive(s, abs))
        if kind == 2:
            return Expr(f"(-{c})", fam, cols, _derive(s, lambda v: -v))
        to = _pick(rng, ["DOUBLE", "BIGINT"])
        return Expr(f"CAST({c} AS {to})", "float" if to == "DOUBLE" else "int", cols, s)
    if fam == "string":  # prefixes (and, with k <= 0, what DataFusion reads otherwise)
        k = int(_pick(rng, [1, 2, 3, 3, 5, 0, -1]))
        text = _pick(rng, [f"substr({c}, 1, {k})", f"left({c}, {k})",
                           f"substring({c}, 1, {k})"])
        return Expr(text, fam, cols, _derive(s, lambda v: v[:max(k, 0)]))
    if fam == "date":
        return Expr(f"CAST({c} AS TIMESTAMP)", "ts", cols, s)
    return Expr(f"CAST({c} AS DATE)", "date", cols, _derive(s, lambda v: v.date()))


# ---- predicates -----------------------------------------------------------------------------
# A predicate is the DuckDB harness's small tree (``duckdb_differential.render``): ("leaf",
# text, columns), ("and", kids), ("or", kids), ("not", kid).
LEAF_KINDS = (["cmp"] * 10 + ["colcmp"] * 3 + ["isnull"] * 2 + ["in"] * 3 + ["between"] * 3
              + ["like"] * 3 + ["distinct"] * 2 + ["const"])


def leaf(rng: np.random.Generator, ds: Dataset, samples: dict) -> tuple:
    fams = {c: family_of(t) for c, t in ds.columns}
    kind = _pick(rng, LEAF_KINDS)
    strings = [c for c, f in fams.items() if f == "string"]
    if kind == "like" and not strings:
        kind = "cmp"
    if kind == "distinct":
        _, text, cols = dd.expression_leaf(rng, ds, samples, kind, value_expr(rng, ds, samples),
                                           literal)
        # DataFusion's parser binds IS [NOT] DISTINCT FROM more loosely than comparisons, AND
        # and OR (``a IS DISTINCT FROM b OR c`` is ``a IS DISTINCT FROM (b OR c)``; not so in
        # PostgreSQL): mostly parenthesized, sometimes bare.
        return ("leaf", f"({text})" if _chance(rng, 0.8) else text, cols)
    if kind in dd.EXPRESSION_LEAF_KINDS:
        return dd.expression_leaf(rng, ds, samples, kind, value_expr(rng, ds, samples), literal)
    if kind == "colcmp":
        e = value_expr(rng, ds, samples)
        others = [c for c, f in fams.items() if _comparable(e.family, f)] or list(e.columns)
        o = value_expr(rng, ds, samples, _pick(rng, others))
        if not _comparable(e.family, o.family):
            o = column_expr(ds, samples, _pick(rng, others))
        return ("leaf", f"{e.text} {_pick(rng, OPS)} {o.text}", e.columns | o.columns)
    if kind == "like":
        e = value_expr(rng, ds, samples, _pick(rng, strings))
        v = str(_pick(rng, e.samples)) if e.samples else "ab"
        op = _pick(rng, ["LIKE", "LIKE", "LIKE", "NOT LIKE"])
        return ("leaf", f"{e.text} {op} {sql_string(dd._like_pattern(rng, v))}", e.columns)
    return ("leaf", _pick(rng, ["TRUE", "FALSE", "NULL", "NULL IS NOT DISTINCT FROM NULL",
                                "TRUE IS DISTINCT FROM FALSE"]), frozenset())


def predicate(rng: np.random.Generator, ds: Dataset, samples: dict, depth: int = 3) -> tuple:
    return dd.predicate(rng, ds, samples, depth, make_leaf=leaf, leaf_chance=0.5)


# ---- cases, shrinking, reproducers ----------------------------------------------------------
def check_case(case: Case, root: Path, backend: str = "numpy") -> tuple[Result, list]:
    """``case`` written and checked; the result and the file's row group sizes."""
    ws = Workspace(case.ds, root, case.writer, case.row_group_size, backend)
    try:
        return ws.check(case.text), ws.sizes
    finally:
        ws.close()


def shrink_predicate(ws: Workspace, tree: tuple, finding: str) -> tuple:
    """Greedy, on the workspace's own file (no writing: a few milliseconds a step): a smaller
    predicate while the same ``finding`` stays."""
    changed = True
    while changed:
        changed = False
        for cand in dd._smaller_trees(tree):
            if ws.check(render(cand)).finding() == finding:
                tree, changed = cand, True
                break
    return tree


def _describe(res: Result) -> str:
    if res.unsound:
        return res.unsound[0][1]
    return res.crash or res.pk_error or ""


def _save(case: Case, finding: str, root: Path, shrink_s: float, saved_shapes: set,
          directory: Path, seed: object, backend: str) -> str:
    """``case`` shrunk (fewer groups, rows and columns too) and saved when its shape is new;
    what it is, as text."""
    small = shrink(case, finding, root, shrink_s)
    res, sizes = check_case(small, root, backend)
    if res.finding() != finding:  # lost in shrinking (it should not be): keep it whole
        small = case
        res, sizes = check_case(small, root, backend)
    text = f"{_describe(res)}: {small.text}"
    shape = (finding, _known(small.text) or dd._signature(small.text))
    if shape in saved_shapes:
        return text + " (a case of this shape is saved already)"
    saved_shapes.add(shape)
    path = dd.save_case(case_json(small, res, sizes, seed), directory, prefix="datafusion")
    return text + f" (saved as {path.name})"


# What a predicate of a KNOWN_UNSOUND construct looks like, for one saved case per construct
# (a guess from the text: the saved case's "known_unsound" is set by hand, after a look).
_KNOWN_TEXT: dict[str, re.Pattern] = {}


def _known(text: str) -> str | None:
    return next((k for k, pattern in _KNOWN_TEXT.items() if pattern.search(text)), None)


def _fewer_groups(case: Case):
    ds = case.ds
    for g in range(len(ds.groups)) if len(ds.groups) > 1 else ():
        yield dataclasses.replace(case, ds=dataclasses.replace(
            ds, groups=ds.groups[:g] + ds.groups[g + 1:]))


def shrink(case: Case, finding: str, root: Path, budget_s: float = 20.0) -> Case:
    """Greedy: fewer groups, rows, columns, a smaller predicate, while the same ``finding``
    (``Result.finding``) stays."""

    return dd.shrink_greedily(
        case, lambda c: check_case(c, root)[0].finding() == finding,
        lambda c: itertools.chain(_fewer_groups(c), dd._candidates(c)), budget_s)


def case_json(case: Case, res: Result, sizes: list, seed: object) -> dict:
    """A reproducer: the predicate, the rows of each generated group, the writer, and what
    prunekit and DataFusion answered."""
    return {"kind": "datafusion", "finding": res.finding(), "seed": seed,
            "dialect": DIALECT, "predicate": case.text, "writer": case.writer,
            "row_group_size": case.row_group_size,
            "columns_read": sorted(tree_columns(case.tree)), **case.ds.to_json(),
            "readable_rows": [[{c: dd._printable(r[c], t) for c, t in case.ds.columns}
                               for r in g] for g in case.ds.groups],
            "got": {"row_group_rows": sizes, "prunekit": res.outcomes,
                    "prunekit_names": [NAMES.get(o, str(o)) for o in res.outcomes or []],
                    "prunekit_error": res.pk_error, "crash": res.crash,
                    "datafusion_rows_returned": res.counts,
                    "datafusion_reads": res.df_kept,
                    "unsound": [m for _, m in res.unsound], "weaker": res.weaker}}


def replay(path: Path, root: Path, backend: str = "numpy") -> Result:
    """A saved case written again with its writer and checked as ``run`` checks it."""
    case, _ = dd.load_case(path)  # no time zone saved: UTC, as this harness runs
    return check_case(case, root, backend)[0]


def saved_cases(directory: Path = DIRECTORY) -> list[Path]:
    return sorted(directory.glob("datafusion-*.json"))


def _construct(text: str) -> str:
    """A rough name for what a predicate is made of, to group the cases DataFusion prunes
    better: its functions, operators and literal kinds."""
    out = set()
    for word, pattern in [("LIKE", r"\bLIKE\b"), ("IN", r"\bIN\b"),
                          ("BETWEEN", r"\bBETWEEN\b"), ("DISTINCT FROM", r"DISTINCT FROM"),
                          ("IS NULL", r"IS (NOT )?NULL"), ("CAST", r"\bCAST\("),
                          ("abs", r"\babs\("), ("prefix", r"\b(left|substr|substring)\("),
                          ("/", r" / "), ("+-*", r"\) [-+*] |\" [-+*] |\d [-+*] \""),
                          ("NOT", r"\bNOT \("), ("TIMESTAMP", r"TIMESTAMP '"),
                          ("DATE", r"DATE '"), ("fraction", r"(?<![\w.'])-?\d+\.\d"),
                          ("exponent", r"\d[eE][-+]?\d"), ("NaN/inf", r"'(NaN|inf|Inf)")]:
        if re.search(pattern, text):
            out.add(word)
    return ", ".join(sorted(out)) or "plain comparison"


# ---- a run ----------------------------------------------------------------------------------
@dataclasses.dataclass
class Summary:
    seed: int = 0
    seconds: float = 0.0
    dialect: str = DIALECT
    datasets: int = 0
    files: Counter = dataclasses.field(default_factory=Counter)  # by writer
    predicates: int = 0
    df_refused: Counter = dataclasses.field(default_factory=Counter)  # by error kind
    df_runtime_errors: Counter = dataclasses.field(default_factory=Counter)
    checked: int = 0  # predicates DataFusion runs and prunekit answers
    fully_read: int = 0  # ... of which without an unknown leaf
    with_unknown: int = 0
    kinds: Counter = dataclasses.field(default_factory=Counter)  # leaf kinds checked
    groups: int = 0
    none_match: int = 0
    all_match: int = 0
    df_skipped: int = 0  # groups DataFusion's statistics pruning skips
    metric_mismatch: int = 0  # predicates whose metric disagrees with the rows read
    df_scan_errors: Counter = dataclasses.field(default_factory=Counter)  # by error kind
    unsound: int = 0  # row groups
    unsound_predicates: int = 0
    refused: int = 0  # prunekit's PrunekitError on a predicate DataFusion plans
    refused_examples: dict = dataclasses.field(default_factory=dict)
    crashes: int = 0
    weaker_groups: int = 0  # groups DataFusion skips and prunekit keeps
    weaker: list = dataclasses.field(default_factory=list)  # (predicate, groups, types,
    # writer, [seed, predicate number]), the predicate shrunk
    df_unsound_groups: int = 0
    nan_rule_groups: int = 0  # groups DataFusion skips as if floats held no NaN
    nan_rule: list = dataclasses.field(default_factory=list)  # predicates
    zero_rule_groups: int = 0  # groups DataFusion skips that other rows of their statistics fill
    zero_rule: list = dataclasses.field(default_factory=list)  # predicates
    optimizer_rule_groups: int = 0  # groups DataFusion skips whose rows its optimizer drops
    optimizer_rule: list = dataclasses.field(default_factory=list)  # predicates
    df_unsound: list = dataclasses.field(default_factory=list)  # predicates
    failures: list = dataclasses.field(default_factory=list)  # messages (and saved files)

    def add(self, res: Result, kinds: set) -> None:
        self.predicates += 1
        if res.crash:
            self.crashes += 1
            self.failures.append(f"prunekit crashed: {res.crash} on {res.text}")
        if res.df_refused:
            self.df_refused[_error_kind(res.df_refused)] += 1
            return
        if res.refused:
            self.refused += 1
            kind = _error_kind(res.pk_error)
            if kind not in self.refused_examples and len(self.refused_examples) < 12:
                self.refused_examples[kind] = res.text
            return
        if res.df_runtime_error:
            self.df_runtime_errors[_error_kind(res.df_runtime_error)] += 1
            return
        if res.outcomes is None:
            return
        self.checked += 1
        self.fully_read += res.unknown_leaves == 0
        self.with_unknown += res.unknown_leaves > 0
        self.kinds.update(kinds)
        self.groups += len(res.outcomes)
        self.none_match += sum(o == pk.NONE_MATCH for o in res.outcomes)
        self.all_match += sum(o == pk.ALL_MATCH for o in res.outcomes)
        self.df_skipped += sum(not k for k in res.df_kept)
        if res.df_scan_error:
            self.df_scan_errors[_error_kind(res.df_scan_error)] += 1
        if res.df_metric is not None and res.df_metric != sum(res.df_kept):
            self.metric_mismatch += 1
        self.unsound += len(res.unsound)
        self.unsound_predicates += bool(res.unsound)
        self.weaker_groups += len(res.weaker)
        self.df_unsound_groups += len(res.df_unsound)
        self.nan_rule_groups += len(res.nan_rule)
        if res.nan_rule and len(self.nan_rule) < 40:
            self.nan_rule.append(res.text)
        self.zero_rule_groups += len(res.zero_rule)
        if res.zero_rule and len(self.zero_rule) < 40:
            self.zero_rule.append(res.text)
        self.optimizer_rule_groups += len(res.optimizer_rule)
        if res.optimizer_rule and len(self.optimizer_rule) < 40:
            self.optimizer_rule.append(res.text)
        if res.df_unsound and len(self.df_unsound) < 40:
            self.df_unsound.append(res.text)

    def text(self) -> str:
        files = ", ".join(f"{k} {v}" for k, v in sorted(self.files.items()))
        lines = [
            f"DataFusion differential run (seed {self.seed}, {self.seconds:.0f} s, prunekit "
            f"dialect {self.dialect!r}): {self.datasets} datasets ({files}), "
            f"{self.predicates} predicates",
            f"  DataFusion refused {sum(self.df_refused.values())} before reading a row: "
            f"{dict(self.df_refused.most_common(8))}",
            f"  DataFusion failed at run time on {sum(self.df_runtime_errors.values())}: "
            f"{dict(self.df_runtime_errors.most_common(8))}",
            f"  checked {self.checked} predicates ({self.fully_read} read in full, "
            f"{self.with_unknown} with unknown leaves) on {self.groups} row groups; leaf "
            f"kinds {dict(sorted(self.kinds.items()))}",
            f"  prunekit: NONE_MATCH {self.none_match}, ALL_MATCH {self.all_match}; "
            f"DataFusion skips {self.df_skipped} (its metric disagrees with the rows read in "
            f"{self.metric_mismatch} predicates; its scan of the file could not be planned "
            f"for {sum(self.df_scan_errors.values())}: {dict(self.df_scan_errors)})",
            f"  unsound: {self.unsound} row groups in {self.unsound_predicates} predicates",
            f"  refused by prunekit (PrunekitError on text DataFusion plans): {self.refused}",
        ]
        lines += [f"    {kind}\n        e.g. {text}" for kind, text in
                  self.refused_examples.items()]
        lines.append(f"  crashes (an exception other than PrunekitError): {self.crashes}")
        lines.append(f"  DataFusion skips more: {self.weaker_groups} row groups in "
                     f"{len(self.weaker)} predicates")
        by_construct: dict = {}
        for text, groups, types, writer, seed in self.weaker:
            by_construct.setdefault(_construct(text), []).append(
                (text, groups, types, writer, seed))
        for construct, cases in sorted(by_construct.items()):
            lines.append(f"    [{construct}] {len(cases)}")
            lines += [f"        {t}   ({types}; {writer}; groups {g}; seed {s} predicate {k})"
                      for t, g, types, writer, (s, k) in cases[:4]]
        lines.append(f"  DataFusion unsound (skips a group holding a row it returns): "
                     f"{self.df_unsound_groups} row groups in {len(self.df_unsound)} "
                     "predicates")
        lines += [f"    {t}" for t in self.df_unsound[:10]]
        lines.append(f"  DataFusion skips as if no float were NaN (prunekit does too when told "
                     f"so): {self.nan_rule_groups} row groups in {len(self.nan_rule)} "
                     "predicates")
        lines += [f"    {t}" for t in self.nan_rule[:5]]
        lines.append(f"  DataFusion skips a group whose statistics also fit rows it returns (its "
                     f"zeros or NaNs given the other sign, or rows of its own values; or it "
                     f"skips on a term of its AND that returns a row of it): "
                     f"{self.zero_rule_groups} row groups in "
                     f"{len(self.zero_rule)} predicates")
        lines += [f"    {t}" for t in self.zero_rule[:5]]
        lines.append(f"  DataFusion skips a group holding rows its predicate as written returns "
                     f"(its optimizer's rewrite drops them): {self.optimizer_rule_groups} row "
                     f"groups in {len(self.optimizer_rule)} predicates")
        lines += [f"    {t}" for t in self.optimizer_rule[:5]]
        if self.failures:
            lines.append(f"  FAILURES: {len(self.failures)}")
            lines += [f"    {f}" for f in self.failures[:40]]
        return "\n".join(lines)

    to_json = dd.Summary.to_json  # each field, its counters as dicts


def _types(ds: Dataset, columns: frozenset) -> str:
    return ", ".join(f"{quote(c)} {t}" for c, t in ds.columns if c in columns)


def _error_kind(msg: str) -> str:
    return re.sub(r"'(?:[^']|'')*'|\"[^\"]*\"|\d+", "…", msg)[:90]


def _leaf_kinds(tree: tuple) -> set:
    """The kinds of leaf a predicate holds (for the bounded test: each kind is reached)."""
    if tree[0] == "not":
        return _leaf_kinds(tree[1])
    if tree[0] != "leaf":
        return set().union(*(_leaf_kinds(k) for k in tree[1]))
    text, out = tree[1], set()
    for kind, pattern in [("like", r"\bLIKE '"), ("in", r"\bIN \("),
                          ("between", r"\bBETWEEN\b"), ("distinct", r"DISTINCT FROM"),
                          ("isnull", r"IS (NOT )?NULL$"), ("arithmetic", r" [-+*/] "),
                          ("function", r"\b(abs|left|substr|substring)\("),
                          ("cast", r"CAST\(\""), ("fraction", r"(?<![\w.'])-?\d+\.\d"),
                          ("exponent", r"\d[eE][-+]?\d"), ("timestamp", r"TIMESTAMP '"),
                          ("date", r"DATE '"), ("nan", r"'NaN'")]:
        if re.search(pattern, text):
            out.add(kind)
    return out or {"comparison"}


def dataset_case(seed: int) -> tuple[Case, np.random.Generator]:
    """The dataset of ``seed``, its writer (alternating with the seed) and DuckDB's row group
    size; the generator, positioned for the predicates."""
    rng = np.random.default_rng(seed)
    ds = random_dataset(rng)
    size = _pick(rng, [1, 1, 2, 4])  # DuckDB merges groups smaller than this
    return Case(ds, ("leaf", "TRUE", frozenset()), WRITERS[seed % 2], size), rng


def run(seconds: float | None = None, datasets: int | None = None, seed: int = 0,
        predicates: int = 20, save_failures: bool = True, max_saves: int = 8,
        shrink_s: float = 20.0, shrink_weaker: bool = True, backend: str = "numpy", log=None,
        directory: Path = DIRECTORY, scratch: Path | None = None) -> Summary:
    """Datasets from seeds ``seed``, ``seed + 1``, ... until ``seconds`` have passed or
    ``datasets`` are done (whichever first), ``predicates`` each. A finding (unsound, refused,
    crash; DataFusion skipping more) is shrunk and, with ``save_failures``, saved (at most
    ``max_saves`` per run, one per shape of predicate); ``shrink_weaker``: the predicates
    where DataFusion skips more are shrunk too (on their file: cheap, but not free)."""
    if seconds is None and datasets is None:
        raise ValueError("give seconds or datasets")
    summary = Summary(seed=seed)
    start = time.monotonic()
    deadline = None if seconds is None else start + seconds
    saved_shapes: set = set()
    root = Path(tempfile.mkdtemp(prefix="prunekit-datafusion-diff-", dir=scratch))
    try:
        for s in itertools.count(seed):
            if (datasets is not None and s >= seed + datasets) or (
                    deadline is not None and time.monotonic() > deadline):
                break
            base, rng = dataset_case(s)
            samples = column_samples(base.ds)
            try:
                ws = Workspace(base.ds, root, base.writer, base.row_group_size, backend)
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
                    summary.add(res, _leaf_kinds(tree))
                    finding = res.finding()
                    if finding == "weaker":
                        small = shrink_predicate(ws, tree, finding) if shrink_weaker else tree
                        small_res = ws.check(render(small)) if small is not tree else res
                        summary.weaker.append((small_res.text, small_res.weaker,
                                               _types(base.ds, tree_columns(small)),
                                               base.writer, [s, k]))
                    elif finding is not None:
                        case = dataclasses.replace(base, tree=shrink_predicate(ws, tree, finding))
                        msg = f"seed {s} predicate {k}: {finding.upper()}: "
                        if save_failures and len(saved_shapes) < max_saves:
                            msg += _save(case, finding, root, shrink_s, saved_shapes,
                                         directory, [s, k], backend)
                        else:
                            msg += _describe(ws.check(case.text)) + ": " + case.text
                        summary.failures.append(msg)
                        if log:
                            log(msg)
            finally:
                ws.close()
            if log and summary.datasets % 25 == 0:
                log(f"{summary.datasets} datasets, {summary.predicates} predicates, "
                    f"{summary.groups} groups, unsound {summary.unsound}, refused "
                    f"{summary.refused}, DataFusion skips more {summary.weaker_groups}, "
                    f"{time.monotonic() - start:.0f} s")
    finally:
        shutil.rmtree(root, ignore_errors=True)
    summary.seconds = time.monotonic() - start
    return summary


def main(argv: list[str] | None = None) -> int:
    args = dd.long_run_arguments(argv, __doc__.splitlines()[0],
                                 "tests/regressions/datafusion/")
    print(f"datafusion differential: seeds from {args.seed}, {args.minutes} minutes, "
          f"{args.predicates} predicates per dataset, prunekit dialect {DIALECT!r}",
          flush=True)
    summary = run(seconds=args.minutes * 60, datasets=args.datasets, seed=args.seed,
                  predicates=args.predicates, save_failures=not args.no_save,
                  backend=args.backend, log=lambda m: print(m, flush=True))
    print(summary.text(), flush=True)
    if args.report:
        args.report.write_text(json.dumps(summary.to_json(), indent=1, ensure_ascii=False,
                                          default=list) + "\n", encoding="utf-8")
    return 1 if summary.unsound or summary.refused or summary.crashes else 0


if __name__ == "__main__":
    sys.exit(main())
