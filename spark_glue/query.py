"""Whole queries in Spark: every Parquet or Delta table a query reads is read from the files
prunekit keeps for that query, the keys its joins carry included.

``sql(spark, query, tables)`` returns the rows of ``spark.sql(query)``. For each table the query
reads that ``tables`` names (a Parquet folder or file, or a Delta table's folder), the driver
reads its statistics (the footers, or the Delta log), and one ``prunekit.joins.joint_outcomes``
over the whole query gives every table's containers, with the keys each join carries from the
other tables (a filter on ``date_dim`` narrows the files of ``store_sales``). Spark then
analyses the user's text with each such table's name standing, as a temporary view, for a read
of its kept files only; the views are dropped again before ``sql`` returns. Spark resolves a
view into its plan when it analyses the query, so the frame keeps reading the kept files.

Spark runs the user's text: prunekit narrows which files each table reads and adds no filter
on rows (a carried filter evaluated on every row cost more than it saved in our measurements).

A name ``tables`` leaves out is resolved in the session. A catalog table or temporary view
whose plan is one plain Parquet scan (``spark.read.parquet(folder)``, no partitions, the same
schema) is pruned as its folder would be; while Spark analyses the query a view of its kept
files stands in for it, and the user's view is put back afterwards with its own definition.
Any other (a view over a join or a filter, a cached one, a Hive table, a qualified name
``db.t``) is read as the session reads it; its columns still resolve the query's names, but no
keys come from it. A table whose every file prunekit keeps is read whole, as
``spark.read.parquet(path)`` reads it (a Delta table: its live files). A table that keeps no
file is read under ``LIMIT 0`` (its plain read, or for Delta one live file), which Spark's
optimizer turns into an empty relation while it plans, so a join over it runs no scan.

Every table of ``tables`` is read whole, with a warning, where pruning could go wrong:

- the query reads the moment (``current_date()``, ``now()``): Spark reads it when the frame
  runs, which may be after midnight; prunekit does not know the session's time zone; the
  session reads SQL text otherwise (``spark.sql.caseSensitive``, double-quoted identifiers,
  escaped string literals);
- prunekit cannot read the query (a table read through ``IDENTIFIER('t')``, a CTE named like a
  table it reads, text only Spark's parser reads). Text neither reads is a ``SqlSyntaxError``.

One table is read whole, with a warning, where its statistics cannot be trusted: Spark reads a
file prunekit does not list (keys carried from the table could miss its rows), a partition
column is also stored in its files, or its footers cannot be read.

A session keeps what it found of its last tables (their plain reads, schemas and statistics)
while Spark's listing of each folder is unchanged, so a pipeline's later queries neither list
the folders in Spark again nor reload statistics (``_Recent``).

``prune(df)`` does the same for a DataFrame built with the DataFrame API: its optimized plan
is read as a query (``plan.py``), pruned the same way, and each narrowed scan's relation is
replaced in the plan by one over its kept files.

While ``sql`` analyses the query, the views are visible to other threads of the session (one
``sql`` at a time runs this step). As with any pruning, a nondeterministic expression
(``rand(42)``, ``monotonically_increasing_id()``) sees other rows than over every file.
"""

from __future__ import annotations

import contextlib
import hashlib
import os
import re
import threading
import warnings
import weakref
from dataclasses import dataclass, field

from prunekit.errors import (
    PrunekitError,
    SqlSyntaxError,
    StatisticsError,
    UnknownTableError,
    UnsupportedError,
)
from prunekit.expr.query import tables_read
from prunekit.expr.syntax.dialects import SPARK
from prunekit.joins import joint_outcomes
from prunekit.sources import parquet
from prunekit.sources.recent import Recent
from prunekit.statistics import Statistics

from ._spark import session_time_zone
from .parquet import conform, spark_schema
from .reader import (
    arrow_schema,
    kept_delta_files,
    kept_files,
    kept_parquet_files,
    partition_names,
    plain_read,
    spark_file_path,
    spark_listing,
    table_files,
)
from .to_sql import quote

__all__ = ["FramePlan", "QueryPlan", "TableRead", "explain_sql", "plan_frame", "plan_sql", "prune",
           "sql"]

_VIEWS = threading.Lock()  # one query's views in the session at a time
# Functions that read the moment of the query. Matched in the text, string literals
# included: a false match only reads the tables unnarrowed.
_MOMENTS = re.compile(r"\b(current_date|current_timestamp|now|localtimestamp|curdate)\b", re.I)


@dataclass
class TableRead:
    """How the query reads one table: ``kind`` is ``"parquet"`` or ``"delta"`` (narrowed to
    its kept files) or ``"native"`` (as Spark reads the name; ``why`` says why). Containers
    are row groups for Parquet, files for Delta."""

    name: str
    kind: str
    path: str | None = None
    files: int = 0
    kept_files: int = 0
    containers: int = 0
    kept_containers: int = 0
    predicate: str | None = None  # the filter the table was pruned with
    carried: list[str] = field(default_factory=list)  # one line per join that carried keys
    why: str = ""

    def describe(self) -> str:
        """One paragraph for ``explain_sql``.

        >>> print(TableRead("sales", "parquet", "/lake/sales", 100, 4, 200, 7, "d > 3").describe())
        sales (parquet /lake/sales): 4 of 100 files, 7 of 200 row groups, by d > 3
        >>> print(TableRead("dim", "native", why="not in tables").describe())
        dim: read as the session reads it (not in tables)
        """
        if self.kind == "native":
            return f"{self.name}: read as the session reads it ({self.why})"
        head = f"{self.name} ({self.kind} {self.path}): "
        if self.why:
            return head + f"read whole ({self.why})"
        head += f"{self.kept_files:,} of {self.files:,} files"
        if self.kind == "parquet":
            head += f", {self.kept_containers:,} of {self.containers:,} row groups"
        if self.predicate:
            head += f", by {self.predicate}"
        if self.kept_files == self.files:
            head += ": read whole"
        return "\n".join([head] + [f"  {line}" for line in self.carried])


@dataclass
class QueryPlan:
    """What ``sql`` reads for a query: per table the query reads, a ``TableRead``, and the
    frames of the narrowed ones (by name)."""

    query: str
    tables: list[TableRead]
    frames: dict = field(default_factory=dict)
    time_zone: str | None = None  # the session's, when the plan was made
    settings: dict = field(default_factory=dict)

    def dataframe(self, spark):
        """The query's rows (``spark.sql(query)``), each narrowed table read from its kept
        files: Spark analyses the text while the frames stand as temporary views of their
        names, dropped again before this returns. A ``PrunekitError`` if the session's time
        zone or a setting the plan read has changed since (plan again).

        >>> callable(QueryPlan.dataframe)
        True
        """
        if self.frames and (session_time_zone(spark) != self.time_zone
                            or _settings(spark) != self.settings):
            raise PrunekitError("the session's time zone or SQL settings changed since the "
                                "query was planned: plan it again")
        with _VIEWS, _views(spark, self.frames):
            return spark.sql(self.query)

    def explain(self) -> str:
        """Per table, how many files and row groups are read and what kept them.

        >>> plan = QueryPlan("SELECT 1", [TableRead("dim", "native", why="not in tables")])
        >>> print(plan.explain())
        dim: read as the session reads it (not in tables)
        """
        return "\n".join(t.describe() for t in self.tables)


def sql(spark, query: str, tables=None, *, dialect: str = "spark", cache=None,
        explain: bool = False):
    """The rows of ``spark.sql(query)``, each Parquet or Delta table of ``tables`` (name to
    path) read from the files prunekit keeps for the whole query (module docstring).

    Parameters
    ----------
    spark : SparkSession
    query : one SELECT in Spark SQL (the text Spark runs, unchanged)
    tables : name to a Parquet folder or file, or a Delta table's folder. Names it leaves
        out are the session's: pruned where the session reads one plain Parquet folder, else
        read as the session reads them
    dialect : the dialect of ``query``: Spark's (``"spark"``, ``"databricks"``)
    cache : a folder for statistics caches, one per Parquet table
        (``prunekit.sources.cache``): a repeated query opens only the footers of files that
        changed since the last one
    explain : print ``explain_sql``'s text

    Malformed SQL, a name neither in ``tables`` nor in the session, and a path that is not a
    table are prunekit errors, raised before any Spark job runs.

    >>> callable(sql)
    True
    """
    plan = plan_sql(spark, query, tables, dialect=dialect, cache=cache)
    if explain:
        print(plan.explain())
    return plan.dataframe(spark)


def explain_sql(spark, query: str, tables=None, *, dialect: str = "spark", cache=None) -> str:
    """What ``sql`` would read, per table: files and row groups kept, and the filter and the
    joins that kept them.

    >>> callable(explain_sql)
    True
    """
    return plan_sql(spark, query, tables, dialect=dialect, cache=cache).explain()


def plan_sql(spark, query: str, tables=None, *, dialect: str = "spark", cache=None) -> QueryPlan:
    """The ``QueryPlan`` of ``sql``: statistics read, the query pruned once for all its
    tables, and a frame over the kept files of each table narrowed.

    >>> callable(plan_sql)
    True
    """
    if getattr(spark, "_jsparkSession", None) is None:
        raise UnsupportedError("prunekit.spark_glue.sql needs a classic Spark session: Spark "
                               "Connect analyses a query only when it runs")
    if dialect.lower() not in SPARK:
        raise ValueError(f"Spark runs the query as Spark SQL: dialect must be one of "
                         f"{sorted(SPARK)}, got {dialect!r}")
    given = {}
    for name, path in (tables or {}).items():
        if "." in name:
            raise ValueError(f"tables: {name!r} is qualified; a table of tables is named as "
                             "the query names it, without a database")
        given[name.lower()] = os.fspath(path)
    whole = None
    try:
        names = tables_read(query, dialect)
    except PrunekitError as e:
        if isinstance(e, SqlSyntaxError) and not _spark_parses(spark, query):
            raise  # malformed for Spark too: the error with its position, before any job
        # Text Spark reads and prunekit cannot: every table of tables is read whole.
        whole = f"prunekit cannot read the query: {e}"
        names = list(given)
    reads, sources = [], {}
    for name in names:
        source = _source(spark, name, given)
        if isinstance(source, TableRead):
            reads.append(source)
        else:
            sources[name] = source
    zone = session_time_zone(spark)
    settings = _settings(spark)
    if whole is None and zone is None:
        whole = "the session's time zone is not one prunekit knows"
    elif whole is None and _MOMENTS.search(query):
        whole = "the query reads the moment it runs"
    elif whole is None and any(settings[k] == "true" for k in _READS_TEXT_OTHERWISE):
        on = [k for k in _READS_TEXT_OTHERWISE if settings[k] == "true"]
        whole = f"the session reads SQL text otherwise than prunekit ({', '.join(on)})"
    if whole is not None and sources:
        warnings.warn(f"{whole}: every table is read whole", stacklevel=3)
    if whole is None:
        for name, s in sources.items():
            s.read_statistics(spark, cache)
            if s.unread is not None:
                warnings.warn(f"{name}: {s.unread}; it is read whole", stacklevel=3)
        known = {name: (s.statistics, s.schema) for name, s in sources.items()}
        for r in reads:  # the session's tables: their columns resolve unqualified names
            if "." not in r.name:
                with contextlib.suppress(Exception):  # a type Arrow cannot hold, for one
                    schema = arrow_schema(spark.table(quote(r.name)).schema)
                    known.setdefault(r.name, (None, schema))
        try:
            found = joint_outcomes(query, known, dialect=dialect, time_zone=zone)
        except PrunekitError as e:  # what prunekit cannot read is read whole, never refused
            whole = f"prunekit cannot read the query: {e}"
            warnings.warn(f"{whole}; every table is read whole", stacklevel=3)
    frames = {}
    for name, s in sources.items():
        why = whole or s.unread or (None if name in found else "no scan of it found")
        if why is not None:
            reads.append(TableRead(name, s.kind, s.path, why=why))
            if s.session is None:  # the session reads its own table as it is
                frames[name] = s.whole(spark)
            continue
        read = s.describe(name, *found[name])
        if read.kept_files < read.files:
            frames[name] = s.kept(spark)
        elif s.session is None:
            frames[name] = s.whole(spark)
        reads.append(read)
    return QueryPlan(query, _ordered(reads, names), frames, zone, settings)


def prune(df, *, cache=None, explain: bool = False):
    """``df`` (a DataFrame built with the DataFrame API) with each of its Parquet scans
    reading only the files prunekit keeps for the whole plan, join-derived keys included: the
    same rows, fewer files.

    Spark's optimized plan of ``df`` is read as a query (``plan.py``: scans, filters,
    projections, joins, aggregates); what it does not understand is read as it is, and a plan
    prunekit cannot read at all gives ``df`` back, with a warning. A scan of Delta files
    reads as a Parquet folder here: use ``sql`` or ``read_delta`` for Delta tables.

    ``cache``: a folder for statistics caches, as ``sql``'s; ``explain``: print per scan what
    was kept (``plan_frame(df).explain()``).

    >>> callable(prune)
    True
    """
    plan = plan_frame(df, cache=cache)
    if explain:
        print(plan.explain())
    return plan.frame


@dataclass
class FramePlan:
    """What ``prune`` reads for a DataFrame: a ``TableRead`` per scan (named ``t0``, ``t1``…
    in the plan's order, with its path) and the narrowed DataFrame."""

    tables: list[TableRead]
    frame: object

    def explain(self) -> str:
        return "\n".join(t.describe() for t in self.tables)


def plan_frame(df, *, cache=None) -> FramePlan:
    """``prune``'s plan: statistics read, the plan's query pruned once for all its scans.

    >>> callable(plan_frame)
    True
    """
    from . import plan

    spark = df.sparkSession
    if getattr(spark, "_jsparkSession", None) is None:
        raise UnsupportedError("prunekit.spark_glue.prune needs a classic Spark session")
    text = plan.read(df)
    if not text.scans:
        return FramePlan([], df)
    zone = session_time_zone(spark)
    if zone is None:
        warnings.warn("the session's time zone is not one prunekit knows: the DataFrame is "
                      "read whole", stacklevel=3)
        return FramePlan([], df)
    sources, known, reads = {}, {}, []
    for name, scan in text.scans.items():
        source = _Parquet(scan.path)
        source.read_statistics(spark, cache)
        if source.unread is None and plan.schema_of(scan.relation) != source.whole(spark).schema:
            # Read with a schema of its own: values the statistics do not describe.
            source.unread = "the DataFrame reads it with a schema of its own"
            source.schema = arrow_schema(plan.schema_of(scan.relation))
        if source.unread is not None:
            reads.append(TableRead(name, "parquet", source.path, why=source.unread))
            if source.schema is not None:  # its columns still resolve the plan's names
                known[name] = (None, source.schema)
        else:
            sources[name] = source
            known[name] = (source.statistics, source.schema)
    for name, struct in text.opaque.items():
        with contextlib.suppress(Exception):  # a type Arrow cannot hold: no schema
            known[name] = (None, arrow_schema(struct))
    try:
        found = joint_outcomes(text.sql, known, dialect="spark", time_zone=zone)
    except PrunekitError as e:  # what prunekit cannot read is read whole, never refused
        warnings.warn(f"prunekit cannot read the DataFrame's plan ({e}); it is read whole",
                      stacklevel=3)
        return FramePlan([TableRead(n, "parquet", s.path, why=str(e))
                          for n, s in text.scans.items()], df)
    relations = {}
    for name, source in sources.items():
        if name not in found:
            reads.append(TableRead(name, "parquet", source.path, why="no scan of it found"))
            continue
        read = source.describe(name, *found[name])
        reads.append(read)
        if read.kept_files == read.files:
            continue
        # Nothing kept: Spark's own empty relation of the read (a LIMIT 0 optimized away).
        kept = (source.kept(spark)._jdf.queryExecution().analyzed() if read.kept_files else
                source.whole(spark).limit(0)._jdf.queryExecution().optimizedPlan())
        old = text.scans[name].relation
        new = plan.relation_over(old, kept)
        if new is None:
            read.why = "its kept files read otherwise than the DataFrame reads them"
            continue
        relations[int(name[1:])] = new
    frame = plan.with_relations(df, relations) if relations else df
    return FramePlan(sorted(reads, key=lambda r: int(r.name[1:])), frame)


# Settings under which Spark reads the text otherwise than prunekit's parser: a table is then
# read whole rather than pruned by a reading Spark does not share.
_READS_TEXT_OTHERWISE = ("spark.sql.ansi.doubleQuotedIdentifiers",
                         "spark.sql.parser.escapedStringLiterals", "spark.sql.caseSensitive")


def _settings(spark) -> dict[str, str]:
    return {k: str(spark.conf.get(k, "false")).lower() for k in _READS_TEXT_OTHERWISE}


def _spark_parses(spark, query: str) -> bool:
    """Whether Spark's parser reads ``query`` (on the driver, no job)."""
    from py4j.protocol import Py4JJavaError
    from pyspark.errors import ParseException

    try:
        spark._jsparkSession.sessionState().sqlParser().parsePlan(query)
    except (ParseException, Py4JJavaError):  # pyspark converts the JVM's error, or not
        return False
    return True


def _ordered(reads: list[TableRead], names: list[str]) -> list[TableRead]:
    at = {n.lower(): i for i, n in enumerate(names)}
    return sorted(reads, key=lambda r: at.get(r.name.lower(), len(at)))


def _source(spark, name: str, given: dict):
    """The source of a table the query names: a ``_Parquet`` or ``_Delta`` of ``given``, or a
    ``TableRead`` of a table read natively. An unknown name is an ``UnknownTableError``."""
    if "." in name:  # db.t, parquet.`/path`: Spark resolves it, or says why not
        return TableRead(name, "native", why="a qualified name")
    path = given.get(name.lower())
    with _VIEWS:  # not while another sql() has its views in the session
        exists = spark.catalog.tableExists(quote(name))
        temporary = exists and spark.catalog.getTable(quote(name)).isTemporary
    if path is None:
        if not exists:
            raise UnknownTableError(name, sorted(given))
        found = _session_parquet(spark, name)
        if found is None:
            return TableRead(name, "native", why="not in tables, and the session reads it "
                                                 "otherwise than as a plain Parquet folder")
        return found
    if temporary:
        raise ValueError(f"tables names {name!r}, which is also a temporary view of the "
                         "session: drop the view, or leave the name out of tables to read it")
    if os.path.isdir(os.path.join(path, "_delta_log")):
        return _Delta(path)
    if not os.path.exists(path):
        raise StatisticsError(f"tables[{name!r}]: {path} does not exist")
    return _Parquet(path)


def _session_parquet(spark, name: str) -> _Parquet | None:
    """The folder a table or temporary view of the session reads, where it reads it exactly as
    ``spark.read.parquet(folder)`` does (its optimized plan is that one scan, with the same
    schema), else None: a view over a join or a filter, a cached one, a Hive table."""
    from . import plan

    with contextlib.suppress(Exception):  # whatever Spark cannot plan here, it reads itself
        frame = spark.table(quote(name))
        path = plan.parquet_path(frame._jdf.queryExecution().optimizedPlan())
        if path is None:
            return None
        source = _Parquet(path, session=name)
        if frame.schema == source.whole(spark).schema:
            return source
    return None


class _Recent:
    """Per session, what was found of the tables read lately (``Recent``: at most ``MAX``,
    the least recently used dropped first), each with the digest of Spark's listing of its
    folder (``spark_listing``) when it was found. While the digest is unchanged, a query
    reuses the table's plain read (Spark listed the folder once, and its frame reads the same
    files as a new one would), schema and statistics: on the scale-10 TPC-DS lake that is
    about 45 ms of planning per table and query. A frame belongs to its session, so entries
    go with the session (a weak key)."""

    MAX = 64

    def __init__(self):
        self._by_session: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()
        self._lock = threading.Lock()

    def _of(self, spark) -> Recent:
        with self._lock:
            kept = self._by_session.get(spark)
            if kept is None:
                kept = self._by_session[spark] = Recent(self.MAX)
            return kept

    def get(self, spark, key: tuple, listing: str | None):
        held = self._of(spark).get(key)
        return held[1] if held is not None and listing is not None and held[0] == listing \
            else None

    def put(self, spark, key: tuple, listing: str | None, found: tuple) -> None:
        if listing is not None:
            self._of(spark).put(key, (listing, found))


_RECENT = _Recent()


class _Parquet:
    """A Parquet folder (or file): row-group statistics from the footers. ``session``: the
    name of the session's table or view this folder is read through, if it is one."""

    kind = "parquet"

    def __init__(self, path: str, session: str | None = None):
        self.path, self.files, self.session = os.path.abspath(path), [], session
        self.statistics = self.schema = self._table = self._plain = None
        self.unread: str | None = None  # why the statistics are not used

    # What read_statistics finds, kept per session while the table's listing is unchanged.
    _FOUND = ("files", "_plain", "schema", "unread", "_table", "statistics")

    def read_statistics(self, spark, cache) -> None:
        """The table's statistics, schema and plain read, or ``unread``: why not. Kept for
        the session while Spark's listing of the folder is unchanged (``_Recent``)."""
        stats_file = None
        if cache is not None:
            os.makedirs(cache, exist_ok=True)
            key = hashlib.sha256(self.path.encode()).hexdigest()[:16]
            stats_file = os.path.join(cache, f"{key}.parquet")
        listing = spark_listing(self.path)
        found = _RECENT.get(spark, (self.path, stats_file), listing)
        if found is not None:
            self.__dict__.update(zip(self._FOUND, found, strict=True))
            return
        self._read_statistics(spark, stats_file)
        _RECENT.put(spark, (self.path, stats_file), listing,
                    tuple(getattr(self, k) for k in self._FOUND))

    def _read_statistics(self, spark, stats_file) -> None:
        try:
            self.files = table_files(self.path)
        except StatisticsError as e:
            self.unread = str(e)
            self.schema = arrow_schema(self.whole(spark).schema)
            return
        if self._plain is None:  # Spark's schema kept beside the statistics: no inference
            self._plain = plain_read(spark, self.path, self.files, stats_file)
        # The columns as Spark types them, which is how it evaluates the query.
        self.schema = arrow_schema(self.whole(spark).schema)
        # Keys carried from this table come from its statistics alone: a file Spark reads
        # that they do not describe (another name, a linked folder) could hold any key.
        listed = {spark_file_path(f) for f in self.files}
        unlisted = {u.replace("file:///", "file:/", 1)
                    for u in self.whole(spark).inputFiles()} - listed
        if unlisted:
            self.unread = f"Spark reads files prunekit does not list ({min(unlisted)})"
            return
        try:
            if stats_file is not None:
                from prunekit.sources.cache import cached_row_group_statistics

                table = cached_row_group_statistics(self.files, stats_file)
            else:
                table = parquet.row_group_statistics(self.files)
        except PrunekitError as e:
            self.unread = f"its statistics could not be read: {e}"
            return
        # A partition column (a key=value folder) stored in files too: Spark reads the
        # folder's value, the statistics and the rows carried keys come from hold the file's.
        stored = {c.lower() for c in partition_names(self.path, self.files)} & {
            c.lower() for c in parquet.data_schema(table).names}
        if stored:
            self.unread = f"partition columns also stored in its files ({min(stored)})"
            return
        self._table = conform(table, spark_schema(table.schema))
        self.statistics = Statistics.from_arrow(self._table)

    def describe(self, name: str, j, outcome) -> TableRead:
        self._kept = kept_files(self.files, self._table, outcome)
        return TableRead(name, "parquet", self.path, len(self.files), len(self._kept),
                         len(outcome), int((outcome != 0).sum()), j.predicate.sql(),
                         list(j.carried))

    def whole(self, spark):
        if self._plain is None:  # Spark infers the schema with a job: once
            self._plain = spark.read.parquet(self.path)
        return self._plain

    def kept(self, spark):
        if not self._kept:  # every file Spark lists is prunekit's (read_statistics checked)
            # Spark's optimizer makes LIMIT 0 an empty relation, and answers the joins and
            # aggregates over it while planning. One call to the JVM over the plain read the
            # session holds, where an empty frame of the schema makes four per column.
            return self.whole(spark).limit(0)
        frame, unread = kept_parquet_files(spark, self.path, self.files, self._kept,
                                           self.whole(spark).schema, lambda: self.whole(spark))
        return frame if unread is None else frame.where(~unread)


class _Delta:
    """A Delta table: file statistics from its log."""

    kind = "delta"
    session = None  # a Delta table is read only from tables

    def __init__(self, path: str):
        import json

        from pyspark.sql.types import StructType

        from prunekit.sources import delta

        self.path, self.unread = os.path.abspath(path), None
        self.snap = delta.snapshot(self.path)
        mode = self.snap.configuration.get("delta.columnMapping.mode", "none")
        if mode != "none":
            raise UnsupportedError(f"{self.path}: prunekit does not read Delta tables with "
                                   f"column mapping (mode {mode!r})")
        self.spark_schema = StructType.fromJson(json.loads(self.snap.schema_string))

    def read_statistics(self, spark, cache) -> None:
        self.schema = arrow_schema(self.spark_schema)
        self.statistics = Statistics.from_arrow(self.snap.statistics, nan_bounds="exclude")

    def describe(self, name: str, j, outcome) -> TableRead:
        paths = self.snap.statistics.column("path").to_pylist()
        self._kept = [p for p, o in zip(paths, outcome.tolist(), strict=True) if o]
        return TableRead(name, "delta", self.path, len(paths), len(self._kept), len(paths),
                         len(self._kept), j.predicate.sql(), list(j.carried))

    def whole(self, spark):
        live = self.snap.statistics.column("path").to_pylist()
        return kept_delta_files(spark, self.path, self.snap, live, self.spark_schema)

    def kept(self, spark):
        return kept_delta_files(spark, self.path, self.snap, self._kept, self.spark_schema)


@contextlib.contextmanager
def _views(spark, frames: dict):
    """Each frame as a temporary view of its name while the block runs. A temporary view of
    the user's with that name is replaced meanwhile and put back, its definition as it was; a
    catalog table of that name is hidden by the view meanwhile."""
    catalog = spark._jsparkSession.sessionState().catalog()
    made, saved = [], {}
    try:
        for name, frame in frames.items():
            theirs = catalog.getRawTempView(name)
            if theirs.isDefined():
                saved[name] = theirs.get()
                frame.createOrReplaceTempView(quote(name))
            else:
                frame.createTempView(quote(name))
            made.append(name)
        yield
    finally:
        for name in made:
            if name in saved:
                catalog.createTempView(name, saved[name], True)
            else:
                # The session catalog's own drop: pyspark's also uncaches every cached plan
                # equal to the view's, a user's cached read of the same folder included.
                catalog.dropTempView(name)
