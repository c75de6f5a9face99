"""A statistics cache a user keeps for a plain Parquet dataset: a repeated query opens no footer
it has seen.

The cache is one Parquet file holding the rows ``row_group_statistics`` returned, and, in its
schema's metadata, each file's size and modification time when its footer was read. A refresh
lists the dataset, keeps the rows of files whose size and time are unchanged, reads the footers
of new and changed files only, and drops removed files. Files are rewritten, never changed in
place, by every writer this serves (Spark, Delta, DuckDB, pyarrow); a file rewritten with the
same size within the file system's time resolution would go unnoticed.

A cache that cannot be read, or that an older footer decoder wrote, is rebuilt, never trusted.

>>> import os, tempfile, pyarrow as pa, pyarrow.parquet as pq
>>> d = tempfile.mkdtemp()
>>> pq.write_table(pa.table({"x": [1, 2]}), os.path.join(d, "a.parquet"))
>>> cache = os.path.join(tempfile.mkdtemp(), "stats.parquet")
>>> cached_row_group_statistics(d, cache).column("x").to_pylist()
[{'min': 1, 'max': 2, 'null_count': 0}]
>>> pq.write_table(pa.table({"x": [7]}), os.path.join(d, "b.parquet"))
>>> cached_row_group_statistics(d, cache).column("x").to_pylist()  # reads b.parquet only
[{'min': 1, 'max': 2, 'null_count': 0}, {'min': 7, 'max': 7, 'null_count': 0}]
"""

from __future__ import annotations

import functools
import hashlib
import json
import os
from collections.abc import Iterable
from pathlib import Path

import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.parquet as pq

from prunekit.errors import StatisticsError

from . import parquet

__all__ = ["cached_row_group_statistics"]

_KEY = b"prunekit.statistics_cache"


def cached_row_group_statistics(paths: str | os.PathLike | Iterable[str | os.PathLike],
                                cache: str | os.PathLike, *, threads: int | None = None,
                                progress: bool | None = None) -> pa.Table:
    """``row_group_statistics(paths)``, reading only the footers of files that ``cache`` (a
    Parquet file, created if missing) has not seen at their current size and modification
    time, and writing the refreshed cache back. Files are keyed by their path as
    ``parquet_files(paths)`` lists it, so one cache serves one way of naming a dataset.
    """
    itself = os.path.abspath(cache)
    files = [f for f in parquet.parquet_files(paths) if os.path.abspath(f) != itself]
    if not files:
        raise StatisticsError(f"{paths}: no Parquet files")
    stamps = {f: _stamp(f) for f in files}
    old, seen = _load(cache)
    unchanged = {f for f in files if seen.get(f) == stamps[f]}
    todo = [f for f in files if f not in unchanged]
    parts = []
    if old is not None and unchanged:
        parts.append(old.filter(pc.is_in(old.column("file"), pa.array(sorted(unchanged)))))
    if todo:
        parts.append(parquet.row_group_statistics(todo, threads=threads, progress=progress))
    table = _combine(parts, files, threads, progress)
    if todo or set(seen) != set(files):
        _save(cache, table, stamps)
    return table


def _stamp(path: str) -> list[int]:
    st = os.stat(path)
    return [st.st_size, st.st_mtime_ns]


@functools.lru_cache(maxsize=1)
def _decoder_version() -> str:
    """A digest of the modules that turn footers into statistics: a cache written by another
    version of them may hold what that version got wrong."""
    here = Path(__file__).parent
    digest = hashlib.sha256()
    for name in sorted(p.name for p in here.glob("*.py") if p.name != "cache.py"):
        digest.update((here / name).read_bytes())
    return digest.hexdigest()[:16]


def _load(cache: str | os.PathLike) -> tuple[pa.Table | None, dict[str, list[int]]]:
    """The cached rows and file stamps, or (None, {}) for a cache that is missing, unreadable
    or written by another decoder."""
    try:
        table = pq.read_table(cache)
        meta = json.loads(table.schema.metadata[_KEY])
        if meta["decoder"] != _decoder_version() or "file" not in table.column_names:
            return None, {}
        seen = {str(f): [int(s), int(t)] for f, (s, t) in meta["files"].items()}
    except (OSError, KeyError, TypeError, ValueError, pa.ArrowException):
        return None, {}
    return table.replace_schema_metadata(None), seen


def _combine(parts: list[pa.Table], files: list[str], threads, progress) -> pa.Table:
    """One table in the order of ``files`` (and row groups within each)."""
    try:
        table = pa.concat_tables(parts, promote_options="default")
    except (pa.ArrowInvalid, pa.ArrowTypeError):
        # The new files' types differ from the cached ones' (a string column now large, or
        # a type change the reader must report): read everything as the reader would.
        return parquet.row_group_statistics(files, threads=threads, progress=progress)
    rank = pc.index_in(table.column("file"), pa.array(files))
    order = pc.sort_indices(pa.table({"rank": rank, "rg": table.column("row_group")}),
                            sort_keys=[("rank", "ascending"), ("rg", "ascending")])
    return table.take(order)


def _save(cache: str | os.PathLike, table: pa.Table, stamps: dict[str, list[int]]) -> None:
    meta = {"decoder": _decoder_version(), "files": stamps}
    table = table.replace_schema_metadata({_KEY: json.dumps(meta).encode()})
    path = Path(cache)
    tmp = path.with_name(f".{path.name}.{os.getpid()}.tmp")
    pq.write_table(table, tmp)
    os.replace(tmp, path)  # atomic: a concurrent reader sees the old cache or the new one
