"""Row-group statistics of Parquet files, in the canonical layout (``prunekit.statistics``).

One row per row group: ``file``, ``row_group``, ``row_count`` and, per data column, a struct
``{min, max, null_count[, min_exact, max_exact]}`` whose ``min``/``max`` have the column's Arrow
type. Anything the footer does not say exactly is an Arrow null (unknown), never a guess:

- Float bounds leave NaN out (Parquet's rule, ``nan_bounds="exclude"``, the default of
  ``Statistics``); a NaN bound is dropped; a zero minimum is widened to -0.0 and a zero maximum
  to +0.0 (both zeros compare equal in SQL, and old writers wrote either sign).
- Strings and binary get ``min_exact``/``max_exact``: a bound is a value that occurs when the
  writer says so (``is_min_value_exact``/``is_max_value_exact``) or the pair meets
  (``min == max``); writers may truncate long values (DuckDB at 256 bytes, parquet-rs at 64)
  into wider bounds. A bound of another type that its writer marks inexact is unknown.
- A ``min_value`` without its ``max_value`` (or the reverse) is read: pyarrow's writer drops one
  longer than 4 KB and keeps the other, which pyarrow's reader then hides too.
- Statistics pyarrow's reader would hide are unknown: writers with known bugs (PARQUET-251,
  parquet-mr before 1.10 and parquet-cpp before 1.3 for unsigned orders), sort orders that are
  undefined (INT96, intervals, null columns). A file without type-defined column orders (old
  writers) carries deprecated min/max computed with signed comparison; those are kept only for
  signed orders (signed integers, floats, dates, timestamps, booleans, int-encoded decimals).
- INT96, float16, time, duration, interval: unknown bounds. A field of a struct is a column
  named ``a.b`` (``prunekit.expr.paths.leaf_key``); leaves under lists and maps are left out.

The footers' Thrift bytes are walked by one pass over all files (``thrift_footer``),
and bounds decoded by vector operations (``footer_values``, ``footer_table``): no Python object
per statistic. The walk is compiled by Numba when the footers are many (half a megabyte or
more) and runs as plain Python when they are few, which is sooner than loading Numba
(``prunekit.sources.jit``); ``import prunekit`` imports no Numba.

Footers are read by threads; a progress line goes to stderr when it is a terminal and there
are many files.
"""

from __future__ import annotations

import glob
import os
import sys
import time
from collections.abc import Iterable
from concurrent.futures import ThreadPoolExecutor

import pyarrow as pa

from prunekit.errors import StatisticsError
from prunekit.expr.paths import split_leaf_key
from prunekit.expr.resolve import nest
from prunekit.statistics import Statistics

__all__ = ["data_schema", "parquet_files", "row_group_statistics", "statistics"]

RESERVED = ("file", "row_group", "row_count")
_TAIL = 64 * 1024  # one read usually holds the whole footer


def parquet_files(paths: str | os.PathLike | Iterable[str | os.PathLike]) -> list[str]:
    """The Parquet files named by a file, a directory (searched recursively, skipping names
    that start with ``.`` or ``_`` such as ``_delta_log``), a glob, or a list of those.

    >>> import os, tempfile, pyarrow as pa, pyarrow.parquet as pq
    >>> d = tempfile.mkdtemp()
    >>> for name in ("b.parquet", "a.parquet", "_SUCCESS", ".a.parquet.crc"):
    ...     pq.write_table(pa.table({"x": [1]}), os.path.join(d, name))
    >>> [os.path.basename(p) for p in parquet_files(d)]
    ['a.parquet', 'b.parquet']
    >>> parquet_files(os.path.join(d, "nope.parquet"))
    Traceback (most recent call last):
    FileNotFoundError: ...nope.parquet
    """
    items = [paths] if isinstance(paths, (str, os.PathLike)) else list(paths)
    out: list[str] = []
    for item in items:
        p = os.fspath(item)
        if os.path.isdir(p):
            found = []
            for root, dirs, names in os.walk(p):
                dirs[:] = [d for d in dirs if not d.startswith((".", "_"))]
                found += [os.path.join(root, n) for n in names
                          if n.endswith(".parquet") and not n.startswith((".", "_"))]
            out += sorted(found)
        elif os.path.exists(p):
            out.append(p)
        elif glob.has_magic(p):
            matches = sorted(glob.glob(p, recursive=True))
            if not matches:
                raise FileNotFoundError(f"no file matches the pattern {p}")
            for m in matches:
                out += parquet_files(m) if os.path.isdir(m) else [m]
        else:
            raise FileNotFoundError(f"no such file or directory: {p}")
    return out


def row_group_statistics(paths: str | os.PathLike | Iterable[str | os.PathLike], *,
                         threads: int | None = None, progress: bool | None = None,
                         bloom_filters: bool | Iterable[str] = False,
                         columns: Iterable[str] | None = None,
                         bytes_column: str | None = None) -> pa.Table:
    """Statistics of every row group of the Parquet files named by ``paths`` (see
    :func:`parquet_files`), one row each, ready for ``Statistics.from_arrow``.

    A top-level column a file does not have (no column of its name in any case) is NULL in
    that file's row groups (``null_count = row_count``); one column with two different types
    (other than string/large string, binary/large binary, or a null-typed column) is a
    ``StatisticsError``. A field of a struct (not under a list or map) is a column named by
    ``prunekit.expr.paths.leaf_key`` (``address.city``). ``columns``: only these leaves (a
    struct's name: all its leaves), as a predicate's ``required_columns`` names them; a wide
    table then costs what its few columns cost. ``progress``
    defaults to "stderr is a terminal and there are 100 files or more". ``bloom_filters``
    (True, or column names) also reads those columns' bloom filters into a ``bloom`` field
    (``prunekit.sources.parquet.bloom``). ``bytes_column``: also a column of that name
    holding each row group's compressed bytes (what reading all of it costs), named by the
    caller so that it clashes with no data column it reads (a clash is a
    ``StatisticsError``); ``Statistics.from_arrow`` passes it by.

    >>> import os, tempfile, pyarrow as pa, pyarrow.parquet as pq, prunekit as pk
    >>> d = tempfile.mkdtemp()
    >>> pq.write_table(pa.table({"x": [1, 2, None, 9], "s": ["a", "a", "b", None]}),
    ...                os.path.join(d, "part-0.parquet"), row_group_size=2)
    >>> stats = row_group_statistics(d)
    >>> stats.column("x").to_pylist()
    [{'min': 1, 'max': 2, 'null_count': 0}, {'min': 9, 'max': 9, 'null_count': 1}]
    >>> stats.column("s").to_pylist()[0]
    {'min': 'a', 'max': 'a', 'null_count': 0, 'min_exact': True, 'max_exact': True}
    >>> pred = pk.PruningPredicate("x > 5", data_schema(stats))
    >>> pred.classify(pk.Statistics.from_arrow(stats)).tolist()
    [0, 1]
    >>> row_group_statistics(d, columns=["s"]).column_names
    ['file', 'row_group', 'row_count', 's']
    >>> row_group_statistics(d, columns=["x"], bytes_column="bytes").column("bytes")[0].as_py() > 0
    True
    """
    files = parquet_files(paths)
    if progress is None:
        progress = len(files) >= 100 and sys.stderr.isatty()
    footers = list(_footers(files, threads, progress))
    from . import footer_table  # not at `import prunekit`

    table = footer_table.statistics_table(files, footers, columns, bytes_column)
    if bloom_filters:
        from .bloom import attach_bloom_filters

        return attach_bloom_filters(table, bloom_filters)
    return table


def statistics(paths: str | os.PathLike | Iterable[str | os.PathLike], *,
               threads: int | None = None, progress: bool | None = None,
               columns: Iterable[str] | None = None,
               bytes_column: str | None = None) -> Statistics:
    """:func:`row_group_statistics` wrapped as a :class:`prunekit.Statistics` (float bounds
    exclude NaN, Parquet's rule).

    >>> import os, tempfile, pyarrow as pa, pyarrow.parquet as pq
    >>> d = tempfile.mkdtemp()
    >>> pq.write_table(pa.table({"f": [1.0, float("nan")]}), os.path.join(d, "a.parquet"))
    >>> statistics(d)
    <Statistics: 1 containers, columns ['f']>
    """
    return Statistics.from_arrow(row_group_statistics(paths, threads=threads, progress=progress,
                                                      columns=columns,
                                                      bytes_column=bytes_column))


def data_schema(statistics: pa.Table) -> pa.Schema:
    """The data columns' types of a statistics table: each struct's ``min`` type, with fields of
    structs (statistics columns ``a.b``, see ``prunekit.expr.paths.leaf_key``) nested back into
    struct columns. Columns whose names are no leaf key (other readers' columns) are left out.

    >>> import pyarrow as pa
    >>> x = pa.StructArray.from_arrays([pa.array([1]), pa.array([3]), pa.array([None],
    ...     pa.int64())], ["min", "max", "null_count"])
    >>> data_schema(pa.table({"row_count": [5], "x": x, "a.b": x, "file": ["a.parquet"]}))
    x: int64
    a: struct<b: int64>
      child 0, b: int64
    """
    leaf_types = {}
    for f in statistics.schema:
        if pa.types.is_struct(f.type) and f.type.get_field_index("min") >= 0:
            try:
                split_leaf_key(f.name)
            except StatisticsError:
                continue
            leaf_types[f.name] = f.type.field("min").type
    return nest(leaf_types)


# ---- one file ----------------------------------------------------------------------------
def _read_footer(path: str) -> bytes:
    """The footer's Thrift bytes, read with one tail read (two for footers over 64 KiB)."""
    with open(path, "rb") as f:
        size = f.seek(0, os.SEEK_END)
        if size < 12:
            raise StatisticsError(f"{path}: not a Parquet file ({size} bytes)")
        f.seek(size - min(size, _TAIL))
        tail = f.read()
        if tail[-4:] != b"PAR1":
            what = "encrypted footers are not supported" if tail[-4:] == b"PARE" else \
                "no PAR1 magic at its end"
            raise StatisticsError(f"{path}: not a readable Parquet file ({what})")
        length = int.from_bytes(tail[-8:-4], "little")
        if length + 12 > size:
            raise StatisticsError(f"{path}: corrupt Parquet file (footer of {length} bytes "
                                  f"in a {size}-byte file)")
        if length + 8 <= len(tail):
            return tail[len(tail) - 8 - length:-8]
        f.seek(size - 8 - length)
        return f.read(length)


# ---- many files --------------------------------------------------------------------------
def _footers(files: list[str], threads: int | None, progress: bool):
    """Footers in order: read and parsed by threads, handed to the caller as they come (the
    statistics themselves are Python objects, so their extraction stays on one thread)."""
    workers = threads or min(8, (os.cpu_count() or 1) + 2)
    shown = 0.0
    with ThreadPoolExecutor(max(1, workers)) as pool:
        futures = [pool.submit(_read_footer, f) for f in files]
        try:
            for k, fut in enumerate(futures, 1):
                yield fut.result()
                now = time.monotonic()
                if progress and (now - shown > 0.2 or k == len(files)):
                    shown = now
                    print(f"\rprunekit: read {k:,}/{len(files):,} Parquet footers",
                          end="\n" if k == len(files) else "", file=sys.stderr, flush=True)
        finally:
            for fut in futures:
                fut.cancel()
