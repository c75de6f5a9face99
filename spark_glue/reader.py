"""Read a Parquet dataset or a Delta table with Spark, opening only the files whose statistics
may match.

``read_parquet(spark, path, where)`` returns the rows of ``spark.read.parquet(path).where(where)``.
It classifies every row group first (``prunekit.PruningPredicate`` over the footers'
statistics, read on the driver, from a statistics cache, or by executors for large datasets)
and hands Spark's own reader only the files with a row group that may match. Malformed SQL and
unknown columns are raised before any Spark job runs.

How Spark's reader skips files, by how many are kept:

- at most ``PATHS_MAX_FILES``: Spark is given the kept files as paths (``basePath`` the
  dataset's folder, so partition columns are found as a plain read finds them), lists them on
  the driver, and never lists the folder. Every file Spark's listing would hold is judged by
  the same rule: a file prunekit's listing skips (another name pattern) is read.
- more: the dataset is listed once, as a plain read would, and a filter on the hidden
  ``_metadata.file_path`` column leaves out the files whose every row group was classified
  NONE_MATCH. Spark applies such a filter while it plans the scan, so those files are never
  opened. Only files known to hold no match are named (spelt as Spark spells them,
  ``spark_file_path``): a file Spark lists that prunekit did not is read. Spark keeps that
  filter on rows too, which costs it on every row read: named files do not.

Spark reads the kept files itself: within a file its Parquet reader skips row groups by their
statistics too. A Python data source reading only the kept row groups with pyarrow was measured
against this on the benchmarks' 1,000-file lake and was slower at every selectivity tried (one
day's rows, a single row group: about a quarter slower than the named file; one month's:
about four times slower), so there is none.

``read_delta`` names the kept live files rather than the skipped ones (the folder also holds
removed files): a few as paths, each checked to exist; more in a filter, each checked against
Spark's listing, and no filter at all when the folder holds only kept files.

Partition columns (``year=2024/`` directories) are Spark's to prune: a predicate may name them;
their statistics are unknown to ``read_parquet``.
"""

from __future__ import annotations

import hashlib
import json
import os
import re
import string
import threading
import unicodedata
import warnings
from pathlib import Path

import pyarrow as pa
import pyarrow.parquet as pq

from prunekit.errors import StatisticsError, UnknownColumnError, UnsupportedError
from prunekit.expr.syntax.dialects import column_names
from prunekit.expr.syntax.moments import uses_moment
from prunekit.expr.syntax.sql import parse
from prunekit.predicate import PruningPredicate
from prunekit.sources import parquet
from prunekit.statistics import Statistics

from ._spark import F, session_time_zone
from .parquet import conform, parquet_statistics, spark_schema
from .to_sql import quote

__all__ = ["arrow_schema", "kept_delta_files", "kept_files", "kept_parquet_files",
           "partition_names", "read_delta", "read_parquet", "spark_listing", "table_files"]

# Beyond this many files the driver does not read footers itself: executors read them and
# classify with the kernels, and only the kept files come back (``on="executors"``).
DRIVER_MAX_FILES = 20_000

# Up to this many kept files are named to Spark as paths, and Spark lists them on the driver
# (``spark.sql.sources.parallelPartitionDiscovery.threshold`` is raised to their number while
# the frame is made; beyond it Spark would list them in a job of their own, which on the
# benchmarks' 1,000-file lake made naming slower than the plain read from 33 files). Named
# files need no listing of the whole folder and no filter on ``_metadata.file_path``, which
# Spark also evaluates on every row: with 38-96 of 100 files kept, TPC-DS q34, q73 and q76 at
# scale 10 took 1.87, 1.22 and 2.53 s with that filter and 1.54, 1.07 and 2.19 s named
# (best of 3, planning included).
PATHS_MAX_FILES = 1000
_DISCOVERY = "spark.sql.sources.parallelPartitionDiscovery.threshold"
_DISCOVERY_LOCK = threading.Lock()

# Characters that make a path name a pattern (``spark.read.parquet`` expands globs) or a URI
# to Hadoop: a file whose name holds one is never named as a path.
_NOT_PLAIN = frozenset("*?[]{}\\:%")


def read_parquet(spark, path: str | os.PathLike, where, *, statistics: pa.Table | None = None,
                 cache: str | os.PathLike | None = None, on: str = "auto"):
    """The rows of ``spark.read.parquet(path).where(where)``, reading only the files that may
    hold one.

    Parameters
    ----------
    spark : SparkSession
    path : a directory of Parquet files (searched recursively, skipping ``_`` and ``.``
        names, as Spark does) or one file
    where : Spark SQL text or a pyspark ``Column``
    statistics : the dataset's row-group statistics, as ``prunekit.parquet.row_group_statistics``
        returns them (with ``file`` and ``row_group``); read from the footers when None. They
        must describe the files as they are now: a file rewritten since is judged by its old
        statistics (``cache`` checks each file's size and time instead)
    cache : a statistics cache file to keep (``prunekit.sources.cache``): a repeated read opens
        only the footers of files that changed since the last one
    on : where footers are read: ``"driver"``, ``"executors"`` (for datasets with more files
        than one machine should open; only the kept files return to the driver) or ``"auto"``
        (executors beyond ``DRIVER_MAX_FILES`` files, unless a cache is kept)

    >>> callable(read_parquet)
    True
    """
    if on not in ("auto", "driver", "executors"):
        raise ValueError(f"on must be 'auto', 'driver' or 'executors', got {on!r}")
    files = table_files(path)
    on_driver = statistics is not None or cache is not None or on == "driver" or (
        on == "auto" and len(files) <= DRIVER_MAX_FILES)
    if on_driver:  # only the columns the text names (a Column: every column)
        named = column_names(where) if isinstance(where, str) else None
        statistics = _driver_statistics(files, statistics, cache, named)
    if isinstance(where, str):  # before Spark opens a footer to infer the schema
        _check_names(where, files, path, statistics)
    listing = _listing_digest(files) if cache is not None else None
    schema = _kept_schema(listing, cache)
    base = None if schema is not None else _dataset(spark, path, listing, cache)
    schema = schema if base is None else base.schema

    def plain():  # Spark lists the folder when this frame is made
        return base if base is not None else spark.read.schema(schema).parquet(os.fspath(path))

    text = where if isinstance(where, str) else _analyzed_sql(
        base if base is not None else spark.createDataFrame([], schema), where)
    pred, where = _predicate(spark, where, text, schema)
    if pred is None:
        return plain().where(where)
    if on_driver:
        kept = _kept_on_driver(pred, files, statistics)
    else:
        kept = _kept_by_executors(spark, path, pred)
    frame, unread = kept_parquet_files(spark, path, files, kept, schema, plain)
    if unread is None:
        return frame.where(where)
    # One filter, not two: each costs Spark an analysis of the plan.
    return frame.where(~unread & (F.expr(where) if isinstance(where, str) else where))


def kept_parquet_files(spark, path, files: list[str], kept: set[str], schema, plain):
    """A frame over the files of the Parquet folder ``path`` that reads only ``kept`` (absolute
    paths) of its ``files``, and the filter on file names it still needs (None: none): named
    as paths when few (``_as_paths``), else ``plain()`` (the folder listed as a plain read
    lists it) with ``unread``, the skipped files' names, to leave out as ``~unread``.

    Only files known to hold no match are left out: a file Spark lists that prunekit did not
    (another name pattern), or one spelt otherwise than Spark spells it, is read.

    >>> callable(kept_parquet_files)
    True
    """
    skipped = {os.path.abspath(f) for f in files} - kept
    named = _as_paths(spark, path, files, kept, schema) if skipped else None
    if named is not None:
        return named, None
    base = plain()
    if not skipped or "_metadata" in base.columns:  # a data column hides the metadata column
        return base, None
    return base, _one_of("_metadata.file_path", sorted(spark_file_path(f) for f in skipped))


def read_delta(spark, table_path: str | os.PathLike, where, *, version: int | None = None):
    """The rows of the Delta table at ``table_path`` (at ``version``, the latest when None)
    that pass ``where``, reading only live files whose statistics may match. Without Delta's
    Spark connector: the live files come from the log (``prunekit.sources.delta``), and
    Spark's Parquet reader reads the kept ones with the table's schema, partition columns as
    columns. A kept file with a deletion vector (rows deleted but still in its Parquet file)
    or column mapping (files' column names differ from the table's) is refused with an
    ``UnsupportedError`` naming it, before any job: deleted rows never come back.

    >>> callable(read_delta)
    True
    """
    from pyspark.sql.types import StructType

    from prunekit.sources import delta

    root = os.path.abspath(os.fspath(table_path))
    snap = delta.snapshot(root, version)
    mode = snap.configuration.get("delta.columnMapping.mode", "none")
    if mode != "none":
        raise UnsupportedError(f"{root}: read_delta does not read tables with column mapping "
                               f"(mode {mode!r}): their files name columns otherwise")
    schema = StructType.fromJson(json.loads(snap.schema_string))
    if isinstance(where, str):
        _check_text(where, set(schema.names))
    text = where if isinstance(where, str) else _analyzed_sql(
        spark.createDataFrame([], schema), where)
    pred, where = _predicate(spark, where, text, schema)
    if pred is None:
        pred = PruningPredicate("TRUE", arrow_schema(schema))  # every file: no zone read
    stats = snap.statistics
    read = pred.prune(Statistics.from_arrow(stats, nan_bounds="exclude"))
    kept = [f for f, r in zip(stats.column("path").to_pylist(), read.tolist(), strict=True) if r]
    return kept_delta_files(spark, root, snap, kept, schema).where(where)


def kept_delta_files(spark, root: str, snap, kept: list[str], schema):
    """A frame of the Delta table at ``root`` (its snapshot ``snap``, Spark schema
    ``schema``) that reads only its live files ``kept``, columns in the table's order. A
    kept file with a deletion vector, or outside the table's folder, is an
    ``UnsupportedError``; a live file that is not where the log says, a ``StatisticsError``.

    >>> callable(kept_delta_files)
    True
    """
    refused = sorted(f for f in kept if f in snap.deletion_vectors)
    if refused:
        raise UnsupportedError(f"{len(refused)} kept file(s) of {root} have deletion vectors, "
                               f"which read_delta does not apply: {', '.join(refused[:5])}")
    outside = sorted(f for f in kept if not os.path.abspath(f).startswith(root + os.sep))
    if outside:
        raise UnsupportedError(f"files outside the table's directory: {', '.join(outside[:5])}")
    names = sorted(map(os.path.abspath, kept))
    # No file kept: one live file under LIMIT 0, which Spark's optimizer turns into an empty
    # relation while planning, as it does the plain read of a Parquet folder (query.py). A few
    # calls to the JVM, where an empty frame built column by column makes four per column
    # (0.18 s for TPC-DS catalog_sales).
    nothing = not names
    if nothing:
        first = [os.path.abspath(p) for p in snap.statistics.column("path").to_pylist()[:1]]
        names = first if first and os.path.isfile(first[0]) and _nameable(first) else []
    # Every live file kept: the folder's listing, with no filter where it holds no other file.
    if len(names) < snap.statistics.num_rows and _nameable(names):
        missing = [n for n in names if not os.path.isfile(n)]
        if missing:
            raise StatisticsError(f"{len(missing)} live file(s) of {root} are not where its "
                                  f"log says: {', '.join(missing[:5])}")
        rows = _read_named(spark, root, names, schema)
    else:
        rows = _listed_live_files(spark, root, names, schema)
    # The Parquet reader puts partition columns last; the table's order is the schema's. A
    # select costs a call to the JVM per column (0.12 s for TPC-DS catalog_sales' 34), so
    # only a partitioned table has one.
    if rows.columns != schema.names:
        rows = rows.select(*[F.col(quote(n)) for n in schema.names])
    return rows.limit(0) if nothing else rows


def _listed_live_files(spark, root: str, kept: list[str], schema):
    """Many kept files of a Delta table: the folder listed, and a filter on the file names
    unless the folder holds no other Parquet file (by the rules of Spark's listing)."""
    base = spark.read.schema(schema).option("pathGlobFilter", "*.parquet").parquet(root)
    if {f for f in _spark_data_files(root) if f.endswith(".parquet")} == set(kept):
        return base  # nothing to leave out, and no second listing to check names against
    names = sorted(map(spark_file_path, kept))
    # Kept files are named, not skipped ones (the folder may hold removed files): a name
    # Spark spells otherwise, or a live file that is gone, would lose rows unseen.
    listed = {u.replace("file:///", "file:/", 1) for u in base.inputFiles()}
    missing = [n for n in names if n not in listed]
    if missing:
        raise StatisticsError(f"{len(missing)} live file(s) of {root} are not where its "
                              f"log says: {', '.join(missing[:5])}")
    # Spark keeps the filter on rows too: the shorter list costs less, none costs nothing.
    others = sorted(listed - set(names))
    if not others:
        return base
    if len(others) < len(names):
        return base.where(~_one_of("_metadata.file_path", others))
    return base.where(_one_of("_metadata.file_path", names))


def _one_of(column: str, names: list[str]):
    """``column IN (names...)`` as one SQL expression: ``Column.isin`` makes a call to the JVM
    per name (about 0.4 ms each, as long as the read it saves at 1,000 files), and an array
    built in one call is searched element by element for every row (Spark keeps the filter
    on rows too), where an IN list of literals becomes a hash set. Each name is a string
    literal with its backslashes and quotes escaped, so Spark reads it back exactly."""
    literals = ", ".join("'" + n.replace("\\", "\\\\").replace("'", "\\'") + "'"
                         for n in names)
    return F.expr(f"{column} IN ({literals})")


def _as_paths(spark, path, files: list[str], kept: set[str], schema):
    """The kept files of a folder as a frame of named paths (None when there are more than
    ``PATHS_MAX_FILES`` or a name is not plain). Files Spark's listing would hold that
    prunekit's does not are kept too; nothing kept is an empty frame of the same schema."""
    root = os.path.abspath(os.fspath(path))
    if len(kept) > PATHS_MAX_FILES or not os.path.isdir(root):
        return None
    named = {os.path.abspath(f) for f in files}
    paths = sorted(kept | {f for f in _spark_data_files(root) if f not in named})
    return _read_named(spark, root, paths, schema) if _nameable(paths) else None


def _nameable(paths: list[str]) -> bool:
    """Few enough files, each with a plain name, to be named to Spark as paths."""
    return len(paths) <= PATHS_MAX_FILES and not any(_NOT_PLAIN & set(p) for p in paths)


def _read_named(spark, root: str, paths: list[str], schema):
    """The files ``paths`` of the folder ``root`` read by Spark's Parquet reader, partition
    columns found from ``root`` as a plain read finds them; no paths, ``empty_frame``."""
    if not paths:
        return empty_frame(spark, schema)
    # Spark lists the paths when the frame is made, on the driver up to the threshold.
    reader = spark.read.schema(schema).option("basePath", root)
    with _DISCOVERY_LOCK:
        before = spark.conf.get(_DISCOVERY)
        if len(paths) <= int(before):
            return reader.parquet(*paths)
        spark.conf.set(_DISCOVERY, str(len(paths)))
        try:
            return reader.parquet(*paths)
        finally:
            spark.conf.set(_DISCOVERY, before)


def empty_frame(spark, schema):
    """A frame of no rows with the columns of ``schema`` that Spark's optimizer knows to be
    empty: ``LIMIT 0`` becomes an empty local relation, and a join or aggregate over it is
    answered while planning. (``spark.createDataFrame([], schema)`` is a Python RDD Spark
    cannot look into: a query over it ran every other scan of its joins and started Python
    workers, 2.9 s against 0.7 s natively for TPC-DS q61 at scale 10, where one table kept
    no file.) Column names and types are passed as data, never as SQL text.

    >>> callable(empty_frame)
    True
    """
    columns = [F.lit(None).cast(f.dataType).alias(f.name) for f in schema.fields]
    return spark.range(0).select(*columns).limit(0)


def _spark_data_files(root: str) -> list[str]:
    """The files Spark's listing of ``root`` reads as data: names starting with ``.`` or with
    ``_`` (unless a ``key=value`` folder), and files being copied (``._COPYING_``), are not."""
    def hidden(name: str) -> bool:
        return name.startswith(".") or (name.startswith("_") and "=" not in name) or \
            name.endswith("._COPYING_")

    out = []
    for folder, dirs, names in os.walk(root):
        dirs[:] = [d for d in dirs if not hidden(d)]
        out += [os.path.join(folder, n) for n in names if not hidden(n)]
    return out


def _analyzed_sql(base, where) -> str:
    """A pyspark ``Column`` as Spark SQL text, from Spark's analysis of the filter over
    ``base`` (Spark 4's columns print as function calls, not SQL): implicit casts come out
    explicit. A column Spark cannot resolve is an ``UnknownColumnError``."""
    if getattr(where, "_jc", None) is None:
        raise TypeError("where must be Spark SQL text or a pyspark Column (on Spark Connect, "
                        f"pass the SQL text), got {type(where).__name__}")
    from pyspark.errors import AnalysisException

    try:
        plan = base.where(where)._jdf.queryExecution().analyzed()
    except AnalysisException as e:
        match = re.search(r"name `?([^`\s]+)`? cannot be resolved", str(e))
        if match:
            raise UnknownColumnError(match.group(1), base.columns) from None
        raise
    return plan.condition().sql()


def _check_names(text: str, files: list[str], path, statistics: pa.Table | None) -> None:
    """Malformed SQL and unknown columns of a Parquet dataset, from the text, the statistics
    (or one footer) and the folder names (``key=value``), before any Spark job."""
    known = set(parquet.data_schema(statistics).names) if statistics is not None else set()
    known |= partition_names(path, files)
    # Columns without statistics (lists, INT96) are in the footer's schema only.
    _check_text(text, known, lambda: set(pq.read_schema(files[0]).names))


def partition_names(root, files: list[str]) -> set[str]:
    """The names of the ``key=value`` folders between the folder ``root`` and its files: the
    partition columns Spark reads from the folder names.

    >>> sorted(partition_names("/lake", ["/lake/year=2024/m=1/a.parquet", "/lake/b.parquet"]))
    ['m', 'year']
    """
    names = set()
    for f in files:
        if "=" not in f:
            continue
        for part in Path(os.path.relpath(f, os.fspath(root))).parts[:-1]:
            if "=" in part:
                names.add(part.split("=", 1)[0])
    return names


def _check_text(text: str, known: set[str], more=None) -> None:
    """A ``SqlSyntaxError`` for malformed text, an ``UnknownColumnError`` for a column not in
    ``known`` (nor in ``more()``, asked only then)."""
    from prunekit.expr.syntax.nodes import Column
    from prunekit.expr.syntax.sql import parse

    named = {node.name for node in parse(text).walk() if isinstance(node, Column)}
    lowered = {k.lower() for k in known}
    if more is not None and any(n.lower() not in lowered for n in named):
        known = known | more()
        lowered = {k.lower() for k in known}
    for name in sorted(named):
        if name.lower() not in lowered:
            raise UnknownColumnError(name, sorted(known))


def table_files(path) -> list[str]:
    """The Parquet files of a folder (searched recursively, skipping ``_`` and ``.`` names,
    as Spark does) or one file; a ``StatisticsError`` when there are none, when the path does
    not exist, or for a Delta table (its folder holds removed files too).

    >>> import tempfile
    >>> table_files(tempfile.mkdtemp())  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    prunekit.errors.StatisticsError: /...: no Parquet files there
    """
    try:
        files = parquet.parquet_files(path)
    except FileNotFoundError as e:
        raise StatisticsError(str(e)) from None
    if not files:
        raise StatisticsError(f"{os.fspath(path)}: no Parquet files there")
    if os.path.isdir(os.path.join(os.fspath(path), "_delta_log")):
        raise StatisticsError(f"{os.fspath(path)} is a Delta table: read it with read_delta, "
                              "which reads only its live files")
    return files


def arrow_schema(struct) -> pa.Schema:
    """The dataset's Spark schema in Arrow types (a TIMESTAMP is an instant, read in UTC);
    a column of a type Arrow cannot hold is left out, so a predicate naming it is refused.

    >>> from pyspark.sql.types import DateType, LongType, StructField, StructType
    >>> arrow_schema(StructType([StructField("k", LongType()), StructField("d", DateType())]))
    k: int64
    d: date32[day]"""
    from pyspark.sql.pandas.types import to_arrow_type

    fields = []
    for f in struct.fields:
        try:
            fields.append(pa.field(f.name, to_arrow_type(f.dataType, timezone="UTC")))
        except TypeError:  # pyspark < 4 has no timezone argument, and reads UTC
            fields.append(pa.field(f.name, to_arrow_type(f.dataType)))
        except Exception:  # noqa: BLE001, S112 - a type Arrow has no name for
            continue
    return pa.schema(fields)


def _predicate(spark, where, text: str, schema) -> tuple[PruningPredicate | None, object]:
    """The predicate, and the filter Spark applies. A predicate reading the moment of the
    query (``current_date()``, ``now()``) is fixed at one moment in the session's time zone,
    and Spark is given that same fixed text, so that both read one instant even when the
    query runs past midnight. A pyspark ``Column`` reading the moment cannot be given a
    fixed moment: it is not pruned (None), with a warning."""
    tree = parse(text)
    zone = session_time_zone(spark)
    if zone is None:
        warnings.warn(f"prunekit does not know the session time zone "
                      f"{spark.conf.get('spark.sql.session.timeZone')!r}: the predicate is "
                      "applied by Spark alone, and every file is read", stacklevel=3)
        return None, where
    if not uses_moment(tree):
        return PruningPredicate(tree, arrow_schema(schema), time_zone=zone), where
    if not isinstance(where, str):
        warnings.warn("a Column reading current_date() or now() is applied by Spark alone "
                      "(give the predicate as SQL text to prune with it)", stacklevel=3)
        return None, where
    pred = PruningPredicate(tree, arrow_schema(schema), time_zone=zone)
    return pred, pred.expression.sql()


def _driver_statistics(files: list[str], statistics, cache, columns=None) -> pa.Table:
    """The row groups' statistics in types Spark can hold (``parquet.spark_schema``)."""
    if statistics is None:
        if cache is not None:
            from prunekit.sources.cache import cached_row_group_statistics

            statistics = cached_row_group_statistics(files, cache)
        else:
            statistics = parquet.row_group_statistics(files, columns=columns)
    elif not isinstance(statistics, pa.Table) or "file" not in statistics.column_names:
        raise StatisticsError("statistics must be a pyarrow Table with a 'file' column, as "
                              "prunekit.parquet.row_group_statistics returns")
    return conform(statistics, spark_schema(statistics.schema))


def _listing_digest(files: list[str]) -> str:
    """Each file's name, size and modification time, as one digest."""
    stats = [os.stat(f) for f in files]
    return hashlib.sha256(json.dumps(
        [(f, s.st_size, s.st_mtime_ns) for f, s in zip(files, stats, strict=True)]).encode()
    ).hexdigest()


def spark_listing(path) -> str | None:
    """A digest of what Spark's listing of ``path`` reads: every data file of a folder (by
    Spark's rules, ``_spark_data_files``), or the one file, each with its size and
    modification time. Equal digests: a frame made over ``path`` earlier reads the same files
    as one made now. None for a pattern, or a file that vanished while it was read.

    >>> import tempfile
    >>> d = tempfile.mkdtemp()
    >>> before = spark_listing(d)
    >>> _ = open(os.path.join(d, "part-0"), "w").write("x")  # no .parquet name: Spark reads it
    >>> spark_listing(d) == before, spark_listing(d) == spark_listing(d)
    (False, True)
    """
    root = os.path.abspath(os.fspath(path))
    if not os.path.exists(root):
        return None
    try:
        return _listing_digest(sorted(_spark_data_files(root)) if os.path.isdir(root) else
                               [root])
    except OSError:
        return None


def plain_read(spark, path, files: list[str], cache):
    """``spark.read.parquet(path)`` of a folder whose files are ``files``. With ``cache`` (a
    statistics cache file) the schema Spark inferred is kept beside it and given back to
    Spark while no file has changed (``_dataset``), which saves the inference: 77-100 ms a
    table against 16-34 ms on the scale-10 TPC-DS lake.

    >>> callable(plain_read)
    True
    """
    listing = _listing_digest(files) if cache is not None else None
    schema = _kept_schema(listing, cache)
    if schema is not None:
        return spark.read.schema(schema).parquet(os.fspath(path))
    return _dataset(spark, path, listing, cache)


def _kept_schema(listing: str | None, cache):
    """The Spark schema kept beside a statistics cache (``_dataset``), while the listing it
    came from (``_listing_digest``) is unchanged; None otherwise."""
    if cache is None:
        return None
    from pyspark.sql.types import StructType

    try:
        saved = json.loads(Path(f"{os.fspath(cache)}.spark-schema.json").read_text())
        if saved["listing"] == listing:
            return StructType.fromJson(saved["schema"])
    except (OSError, ValueError, KeyError, TypeError):
        pass  # none kept yet, or unreadable: Spark infers it
    return None


def _dataset(spark, path, listing: str | None, cache):
    """``spark.read.parquet(path)``. Spark infers the schema with a job that opens a footer;
    with a cache kept, the schema it inferred is kept beside it, with the listing it came
    from, and given back to Spark while no file has changed (``_kept_schema``), so a repeated
    read opens none."""
    base = spark.read.parquet(os.fspath(path))
    if cache is not None:
        kept = Path(f"{os.fspath(cache)}.spark-schema.json")
        tmp = kept.with_name(f".{kept.name}.{os.getpid()}.tmp")
        tmp.write_text(json.dumps({"listing": listing, "schema": base.schema.jsonValue()}))
        os.replace(tmp, kept)
    return base


def _kept_on_driver(pred: PruningPredicate, files: list[str], statistics: pa.Table) -> set[str]:
    return kept_files(files, statistics, pred.prune(Statistics.from_arrow(statistics)))


def kept_files(files: list[str], statistics: pa.Table, read) -> set[str]:
    """The files (absolute paths) of ``files`` with a row group ``read`` keeps (one boolean
    or outcome per row of ``statistics``, whose ``file`` column names each row group's
    file), and every file the statistics do not describe (written after them: it may hold
    anything).

    >>> import numpy as np
    >>> stats = pa.table({"file": ["/d/a", "/d/a", "/d/b"], "row_group": [0, 1, 0]})
    >>> sorted(kept_files(["/d/a", "/d/b", "/d/c"], stats, np.array([0, 1, 0])))
    ['/d/a', '/d/c']
    """
    named = statistics.column("file").to_pylist()
    kept = {f for f, r in zip(named, read.tolist(), strict=True) if r}
    return {os.path.abspath(f) for f in kept | (set(files) - set(named))}


def _kept_by_executors(spark, path, pred: PruningPredicate) -> set[str]:
    from ._spark import spark_errors
    from .frame import prune_dataframe

    stats = parquet_statistics(spark, path, columns=list(pred.required_columns))
    with spark_errors():
        kept = prune_dataframe(stats, pred).select("file").distinct().collect()
    return {os.path.abspath(r[0]) for r in kept}  # a file without row groups has no rows


# Characters a ``java.net.URI`` path keeps as they are (Hadoop's ``Path`` builds one): letters,
# digits, marks, the path's reserved characters, and non-ASCII letters (``other``).
_URI_KEEPS = frozenset(string.ascii_letters + string.digits + "-_.!~*'()" + ";:@&=+$,/")


def spark_file_path(local: str) -> str:
    """A local file as Spark's ``_metadata.file_path`` spells it: ``file:`` and the absolute
    path, percent-encoded as ``java.net.URI`` encodes a path.

    >>> spark_file_path("/data/k=v x/a+b é.parquet")
    'file:/data/k=v%20x/a+b%20é.parquet'
    """
    path = os.path.abspath(local)
    if _URI_KEEPS.issuperset(path):  # most paths: nothing to encode
        return "file:" + path
    out = []
    for ch in path:
        if ch in _URI_KEEPS or (ord(ch) > 127 and not ch.isspace()
                                and unicodedata.category(ch)[0] != "C"):
            out.append(ch)
        else:
            out.append("".join(f"%{b:02X}" for b in ch.encode()))
    return "file:" + "".join(out)
