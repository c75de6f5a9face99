"""File statistics of a Delta Lake table, in the canonical layout (``prunekit.statistics``).

One row per live data file of a snapshot (adds minus removes, replayed from the latest
checkpoint at or before the version, then the JSON commits): ``path`` (a local path when the
log's path is relative or ``file:``), ``size`` (``add.size``, bytes), ``row_count``
(``numRecords`` minus the deletion vector's cardinality) and, per leaf of a primitive type (a
top-level column or a field of a struct, keyed by ``leaf_key``: ``address.city``), a struct
``{min, max, null_count, min_exact, max_exact}``; nested statistics follow the same rules.
The log is replayed columnar (``log``: the checkpoint's columns, each commit in one
``pyarrow.json`` read) and every file's statistics are read together (``stats``,
``values``): the JSON ``stats`` texts in one ``pyarrow.json`` read, or a checkpoint's
typed ``stats_parsed`` where a row has it (then its ``partitionValues_parsed`` too), bounds
by vector operations; a value those do not cover is read by ``rules``, one file at a
time, which defines every rule. Delta's statistics are deliberately loose; each rule below
keeps every bound a true bound (docs/semantics.md §1):

- Partition columns: ``min = max =`` the partition value, exact; ``null_count`` is 0 or
  ``row_count``. A timestamp partition value without a zone offset is widened by 14 hours each
  way (old Spark writers used the session time zone).
- Timestamps are written to the millisecond, truncated: ``min`` is kept (inexact) and ``max``
  becomes ``max + 999 µs`` (inexact). A value written with more than three fractional digits
  is taken as exact.
- Strings are cut (Spark: 32 UTF-16 units, then a U+FFFD tie-breaker on the max; delta-rs:
  parquet-rs's 64 bytes, max incremented). A bound of ``L - 2`` UTF-8 bytes or more, where
  ``L`` is ``delta.dataSkippingStringPrefixLength`` (32 by default), may have been cut: its
  ``min`` (a prefix, so still a lower bound) is inexact, and its ``max`` is replaced by the
  successor of its first ``L - 2`` bytes (every string with that prefix sorts below it in
  UTF-8 byte order, Spark's string order), inexact. Every writer above keeps at least that
  prefix of the true maximum.
- Decimals are read from the JSON text exactly; a value with more digits than the scale is
  rounded outwards (inexact). Floats are read as the nearest value of the column's type
  (writers print them to read back exactly); a text that reads as the double halfway between
  two FLOAT values (Java prints some so) bounds with the outer one, inexact. Binary columns
  have no bounds.
- ``tightBounds: false`` or a deletion vector: bounds inexact (still bounds), null counts
  unknown. Columns absent from the statistics (``dataSkippingNumIndexedCols``) are unknown.
- ``stats_parsed`` holds what the JSON text says, typed: a timestamp on a whole millisecond
  reads as the text ``...123Z`` does (cut, inexact); one without a zone is UTC in a TIMESTAMP
  column and the local time in a TIMESTAMP_NTZ one. Typed partition values are used except
  for TIMESTAMP columns (their text says whether the writer gave a zone).
- Malformed statistics (a text that is not JSON, a bound of the wrong JSON type) are unknown;
  a log that cannot be read (a commit line that is not JSON, an action without a path, text
  that is not UTF-8) is a ``StatisticsError`` naming the file.
- Float bounds: Spark counts NaN as the greatest value, but delta-rs copies Parquet bounds,
  which leave NaN out (a file holding 1.5 and NaN gets ``max = 1.5``). :func:`statistics`
  therefore reads float bounds as ``nan_bounds="exclude"`` (sound for both writers: a NaN
  bound is unknown, and NaN is assumed possible); pass ``"include"`` only for tables written
  by Spark alone.
"""

from __future__ import annotations

import os
from collections.abc import Iterable, Mapping
from dataclasses import dataclass

import pyarrow as pa

from prunekit.expr.paths import leaf_selector
from prunekit.statistics import Statistics

from ..recent import Recent
from . import stats as file_stats
from .log import commit_versions, local_paths, replay
from .rules import RESERVED, layout

__all__ = ["Snapshot", "file_statistics", "is_delta_table", "snapshot", "statistics"]


def is_delta_table(path: str | os.PathLike) -> bool:
    """Whether ``path`` is a directory with a ``_delta_log`` folder.

    >>> import tempfile
    >>> is_delta_table(tempfile.mkdtemp())
    False
    """
    return os.path.isdir(os.path.join(os.fspath(path), "_delta_log"))


def file_statistics(
    table_path: str | os.PathLike,
    version: int | None = None,
    *,
    columns: Iterable[str] | None = None,
) -> pa.Table:
    """Statistics of every live data file of the Delta table at ``table_path``, at ``version``
    (the latest when None), one row per file sorted by path; ``columns``: only those leaves
    (a struct's name: all its leaves; ``prunekit.expr.paths.leaf_selector``).

    >>> import json, os, tempfile
    >>> d = tempfile.mkdtemp(); os.mkdir(os.path.join(d, "_delta_log"))
    >>> schema = {"type": "struct", "fields": [
    ...     {"name": "x", "type": "long", "nullable": True, "metadata": {}},
    ...     {"name": "ts", "type": "timestamp", "nullable": True, "metadata": {}}]}
    >>> stats = {"numRecords": 3, "minValues": {"x": 1, "ts": "2024-01-01T00:00:00.000Z"},
    ...          "maxValues": {"x": 9, "ts": "2024-01-02T10:00:00.123Z"},
    ...          "nullCount": {"x": 0}}
    >>> log = [{"metaData": {"schemaString": json.dumps(schema), "partitionColumns": [],
    ...                      "configuration": {}}},
    ...        {"add": {"path": "a.parquet", "partitionValues": {}, "size": 100,
    ...                 "stats": json.dumps(stats)}}]
    >>> with open(os.path.join(d, "_delta_log", "0" * 20 + ".json"), "w") as f:
    ...     f.write("\\n".join(map(json.dumps, log))) and None
    >>> t = file_statistics(d)
    >>> t.column("x").to_pylist()
    [{'min': 1, 'max': 9, 'null_count': 0, 'min_exact': True, 'max_exact': True}]
    >>> t.column("ts").to_pylist()[0]["max"].isoformat()   # ms-truncated: widened, inexact
    '2024-01-02T10:00:00.123999+00:00'
    >>> t.column("ts").to_pylist()[0]["null_count"] is None   # not in nullCount: unknown
    True
    >>> file_statistics(d, columns=["x"]).column_names
    ['path', 'size', 'row_count', 'x']
    """
    table = snapshot(table_path, version).statistics
    if columns is None:
        return table
    wanted = leaf_selector(columns)
    return table.select([c for c in table.column_names if c in RESERVED or wanted(c)])


@dataclass(frozen=True)
class Snapshot:
    """A Delta table at one version, as a reader needs it: the statistics of its live files
    (``file_statistics``), the schema as Spark's ``StructType`` JSON, the table's
    configuration, and the live files carrying a deletion vector (rows to leave
    out that their Parquet file still holds)."""

    root: str
    version: int | None
    schema_string: str
    configuration: dict
    statistics: pa.Table
    deletion_vectors: frozenset[str]


def snapshot(table_path: str | os.PathLike, version: int | None = None) -> Snapshot:
    """The Delta table at ``table_path`` at ``version`` (the latest when None).

    >>> import tempfile
    >>> snapshot(tempfile.mkdtemp())
    Traceback (most recent call last):
    prunekit.errors.StatisticsError: ...: not a Delta table (no _delta_log directory)
    """
    root = os.fspath(table_path)
    key = _snapshot_key(root, version)
    found = None if key is None else _SNAPSHOTS.get(key)
    if found is not None:
        return found
    meta, live = replay(root, version)
    with_dv = live.filter(live.column("dv")).column("path").combine_chunks()
    snap = Snapshot(
        root=root,
        version=version,
        schema_string=meta["schemaString"],
        configuration=dict(meta.get("configuration") or {}),
        statistics=file_stats.table(root, live, layout(meta)),
        deletion_vectors=frozenset(local_paths(root, with_dv).to_pylist()),
    )
    if key is not None:
        _SNAPSHOTS.put(key, snap)
    return snap


# A table's state at a version never changes (Delta never rewrites a commit), so a process
# keeps its last few snapshots: a repeated query replays no log. The key holds the version's
# commit file's identity, which catches a table deleted and written again at the same path.
_SNAPSHOTS = Recent(8)


def _snapshot_key(root: str, version: int | None) -> tuple | None:
    log = os.path.join(root, "_delta_log")
    try:
        if version is None:
            version = max(commit_versions(log), default=None)
            if version is None:
                return None  # checkpoints only: replayed every time
        st = os.stat(os.path.join(log, f"{version:020d}.json"))
    except (OSError, ValueError):
        return None
    # The root as given (file paths are made from it), and where a relative one starts.
    here = "" if os.path.isabs(root) else os.getcwd()
    return root, here, version, st.st_size, st.st_mtime_ns, st.st_ino


def statistics(
    table_path: str | os.PathLike,
    version: int | None = None,
    *,
    nan_bounds: str | Mapping[str, str] = "exclude",
    columns: Iterable[str] | None = None,
) -> Statistics:
    """:func:`file_statistics` wrapped as a :class:`prunekit.Statistics`. Float bounds are read
    as excluding NaN by default (see the module docstring: delta-rs writes them so).

    >>> import tempfile
    >>> statistics(tempfile.mkdtemp())
    Traceback (most recent call last):
    prunekit.errors.StatisticsError: ...: not a Delta table (no _delta_log directory)
    """
    return Statistics.from_arrow(
        file_statistics(table_path, version, columns=columns), nan_bounds=nan_bounds
    )
