"""File statistics of an Iceberg table, in the canonical layout (``prunekit.statistics``).

One row per live data file of a snapshot: ``path`` (a local path for ``file:`` locations),
``size`` (bytes), ``partition`` (its partition as a path, ``month=2024-03/s=ab``),
``delete_files`` (how many delete files may apply to it), ``row_count`` and, per leaf of a
primitive type (a top-level column or a field of a struct, keyed by ``leaf_key``), a struct
``{min, max, null_count, nan_count, min_exact, max_exact}``. pyiceberg reads the metadata and the
manifest list (its ``[iceberg]`` extra); manifests are decoded by prunekit's own Avro reader
into columns (``entries``, ``columns``), with pyiceberg's reader for what it
does not handle (and for a manifest mixing data and delete files); the bounds are decoded here
(``prunekit.sources.iceberg.values``). A manifest that breaks the Avro format is a
``StatisticsError`` naming it. The rules, each keeping every bound a true bound
(docs/semantics.md §1):

- Metrics are keyed by field id and mapped through the snapshot's schema, so renamed columns
  keep their statistics and a field id no longer in the schema is ignored. ``record_count`` is
  ``row_count``, ``null_value_counts`` ``null_count``, ``nan_value_counts`` ``nan_count``.
  Float bounds leave NaN out (Iceberg's rule, ``nan_bounds="exclude"``).
- A bound that does not decode (a wrong length, invalid UTF-8, a decimal beyond its precision,
  NaN) is unknown. A column a file has no metrics for is unknown, except a column added after
  the file was committed (its field id is missing from the schema of the snapshot that added
  the file), which holds only NULLs there: ``null_count = row_count``. That proof needs every
  file to carry field ids, so it is not made for tables with a name mapping (``add_files``,
  migrated tables), nor for a column with an ``initial-default``.
- Strings and binary: Iceberg's default metrics mode ``truncate(16)`` keeps a prefix as the
  lower bound and increments the last kept character of the upper one, so a cut upper bound
  is above every value and no cut bound equals the other: ``min_exact``/``max_exact`` are true
  exactly when the bounds are equal (then every non-NULL value is that value).
- Partition values bound their source column through the transform: identity exactly;
  ``year``, ``month``, ``day``, ``hour`` as the period's range (``month=2024-03`` is
  ``[2024-03-01, 2024-03-31]``); ``truncate[W]`` as ``[v, v + W - 1]`` for numbers and as the
  strings starting with ``v`` for text and binary. The range is intersected with the column's
  own bounds. A NULL partition value means the source column is NULL on every row, any other
  that it is NULL on none. ``bucket[N]`` gives no range (only that NULL rule); with
  ``predicate=``, a file whose bucket is that of no literal of a top-level ``=`` / ``IN``
  conjunct on its source is left out (``buckets``). Each file is read with its own
  partition spec.
- Delete files (position or equality) with a sequence number at or after the data file's, in
  its partition (or global, or naming its path) are counted in ``delete_files``, and then
  ``row_count`` is unknown (the file's live rows are fewer), its bounds inexact (the row
  holding one may be deleted) and its null counts unknown, as for a Delta file with a deletion
  vector: such a file is never ALL_MATCH for a predicate over its columns, and never counted.
  Its bounds still hold for the rows that remain (deletes only remove rows).
"""

from __future__ import annotations

import os

import pyarrow as pa

from prunekit.errors import StatisticsError
from prunekit.statistics import Statistics

from ..parquet import data_schema as _leaf_schema
from ..recent import Recent
from . import planner
from .layout import leaves_of, local_path, schema_of, snapshot_of, stats_table

__all__ = ["data_schema", "file_statistics", "load_table", "statistics"]


def load_table(table):
    """A pyiceberg table: ``table`` itself, or the table whose metadata JSON file is at that
    location (read with pyiceberg's ``StaticTable``).

    >>> load_table("/no/such/v1.metadata.json")
    Traceback (most recent call last):
    prunekit.errors.StatisticsError: /no/such/v1.metadata.json: cannot read Iceberg metadata ...
    """
    if hasattr(table, "metadata") and hasattr(table, "io"):
        return table
    if not isinstance(table, (str, os.PathLike)):
        raise StatisticsError(f"an Iceberg table is a pyiceberg Table or a metadata file's "
                              f"location, not {type(table).__name__}")
    location = os.fspath(table)
    try:
        from pyiceberg.table import StaticTable
    except ImportError:
        raise StatisticsError("reading Iceberg tables needs pyiceberg: "
                              "pip install 'prunekit[iceberg]'") from None
    try:
        return StaticTable.from_metadata(location)
    except Exception as e:  # pyiceberg raises OSError, ValueError, pydantic errors...
        raise StatisticsError(f"{location}: cannot read Iceberg metadata "
                              f"({type(e).__name__}: {e})") from None


def file_statistics(table, snapshot_id: int | None = None, *, columns=None,
                    predicate=None) -> pa.Table:
    """Statistics of every live data file of an Iceberg table (a pyiceberg ``Table`` or a
    metadata JSON file location) at ``snapshot_id`` (the current snapshot when None), one row
    per file in manifest order, with ``path``, ``size``, ``partition`` and ``delete_files``
    beside the statistics. ``columns`` limits the leaves read (``prunekit.expr.paths.
    leaf_selector``: statistics column names, such as a predicate's ``required_columns``, or
    a struct's name for its leaves, in any case). ``predicate`` (a ``PruningPredicate`` over this
    table's columns): data manifests whose partition summaries rule it out are not opened,
    and their files are left out, as are files whose ``bucket[N]`` partition value is the
    bucket of no literal of a top-level ``x = v`` / ``x IN (...)`` conjunct.

    >>> import tempfile, pyarrow as pa
    >>> from pyiceberg.catalog.sql import SqlCatalog
    >>> d = tempfile.mkdtemp()
    >>> catalog = SqlCatalog("doc", uri=f"sqlite:///{d}/c.db", warehouse=f"file://{d}")
    >>> catalog.create_namespace("ns")
    >>> t = catalog.create_table("ns.t", pa.schema([("x", pa.int64()), ("s", pa.string())]))
    >>> t.append(pa.table({"x": [1, 9, None], "s": ["a" * 20, "b", "c"]}))
    >>> stats = file_statistics(t)
    >>> stats.column("x").to_pylist()
    [{'min': 1, 'max': 9, 'null_count': 1, 'nan_count': None, 'min_exact': True, 'max_exact': True}]
    >>> stats.column("s").to_pylist()[0]   # metrics mode truncate(16): cut, inexact
    {'min': 'aaaaaaaaaaaaaaaa', 'max': 'c', 'null_count': 0, 'nan_count': None, \
'min_exact': False, 'max_exact': False}
    >>> import prunekit as pk
    >>> pk.PruningPredicate("x > 10", data_schema(t)).classify(pk.Statistics.from_arrow(stats))
    array([0], dtype=int8)
    """
    table = load_table(table)
    meta = table.metadata
    snapshot = snapshot_of(table, snapshot_id)
    # The current schema for the current snapshot (a later schema change makes no snapshot),
    # the snapshot's own for time travel: as Iceberg readers do.
    schema = meta.schema() if snapshot_id is None else schema_of(meta, snapshot)
    leaves = leaves_of(schema, columns)
    key = None if predicate is not None or snapshot is None else _cache_key(
        table, snapshot.snapshot_id, tuple(leaf.key for leaf in leaves))
    found = None if key is None else _CACHE.get(key)
    if found is not None:
        return found
    out = stats_table([], leaves)
    if snapshot is not None:
        try:
            out = planner.read(table, meta, snapshot, schema, leaves, predicate)
        except StatisticsError:
            raise
        except Exception as e:  # a manifest list pyiceberg cannot read
            raise StatisticsError(f"{meta.location}: cannot read the manifests of snapshot "
                                  f"{snapshot.snapshot_id} ({type(e).__name__}: {e})") from None
    if key is not None:
        _CACHE.put(key, out)
    return out


# A snapshot never changes (Iceberg writes a new metadata file and new manifests for every
# commit), so a process keeps the statistics of its last few (snapshot, columns): planning the
# same table again reads no manifest. Keyed by the metadata file, and by its size and time
# where it is a local file, which catches a table deleted and written again at one path.
_CACHE = Recent(8)


def _cache_key(table, snapshot_id: int, leaves: tuple) -> tuple | None:
    location = getattr(table, "metadata_location", None)
    if not location:
        return None
    try:
        st = os.stat(local_path(location))
        stamp = (st.st_size, st.st_mtime_ns, st.st_ino)
    except (OSError, ValueError):
        stamp = None
    return location, stamp, snapshot_id, leaves


def statistics(table, snapshot_id: int | None = None, *, columns=None,
               predicate=None) -> Statistics:
    """:func:`file_statistics` wrapped as a :class:`prunekit.Statistics` (float bounds exclude
    NaN, Iceberg's rule).

    >>> statistics("/no/such/v1.metadata.json")
    Traceback (most recent call last):
    prunekit.errors.StatisticsError: /no/such/v1.metadata.json: cannot read Iceberg metadata ...
    """
    return Statistics.from_arrow(file_statistics(table, snapshot_id, columns=columns,
                                                 predicate=predicate))


def data_schema(table) -> pa.Schema:
    """The Arrow schema of an Iceberg table's columns that have statistics (structs nested,
    lists and maps left out), for ``PruningPredicate``; given a statistics table instead,
    the schema its ``min`` fields describe (``prunekit.parquet.data_schema``).

    >>> import tempfile, pyarrow as pa
    >>> from pyiceberg.catalog.sql import SqlCatalog
    >>> d = tempfile.mkdtemp()
    >>> catalog = SqlCatalog("doc", uri=f"sqlite:///{d}/c.db", warehouse=f"file://{d}")
    >>> catalog.create_namespace("ns")
    >>> t = catalog.create_table("ns.t", pa.schema([("u", pa.uuid()), ("d", pa.date32())]))
    >>> data_schema(t)
    u: binary
    d: date32[day]
    """
    if isinstance(table, pa.Table):
        return _leaf_schema(table)
    table = load_table(table)
    leaves = leaves_of(table.metadata.schema(), None)
    return _leaf_schema(stats_table([], leaves))
