"""The previous ``prunekit.sources.parquet`` (through pyarrow's ``FileMetaData`` objects, one Python
object per statistic), kept unchanged as the oracle of ``tests/sources/parquet/test_footer.py``:
the Numba footer decoder must give the same bounds and null counts on every flat column.

Row-group statistics of Parquet files, in the canonical layout (``prunekit.statistics``).

One row per row group: ``file``, ``row_group``, ``row_count`` and, per data column, a struct
``{min, max, null_count[, min_exact, max_exact]}`` whose ``min``/``max`` have the column's Arrow
type. Anything the footer does not say exactly is an Arrow null (unknown), never a guess:

- Float bounds leave NaN out (Parquet's rule, ``nan_bounds="exclude"``, the default of
  ``Statistics``); a NaN bound is dropped; a zero minimum is widened to -0.0 and a zero maximum
  to +0.0 (both zeros compare equal in SQL, and old writers wrote either sign).
- pyarrow does not expose ``is_min_value_exact``/``is_max_value_exact`` nor ``nan_count``, so
  strings and binary get ``min_exact = max_exact = (min == max)``: writers may truncate long
  values (DuckDB at 256 bytes, parquet-rs at 64) into wider bounds, and only a bound pair that
  meets proves its value occurs.
- pyarrow's reader already drops statistics of writers with known bugs (PARQUET-251,
  PARQUET-686). A file without type-defined column orders (old writers) carries deprecated
  min/max computed with signed comparison; those are kept only for signed orders (signed
  integers, floats, dates, timestamps, booleans, int-encoded decimals).
- INT96, float16, time, duration, interval: unknown bounds. Nested columns are left out.

Footers are read by threads; a progress line goes to stderr when it is a terminal and there
are many files.
"""

from __future__ import annotations

import glob
import json
import os
import sys
import time
from collections.abc import Iterable
from concurrent.futures import ThreadPoolExecutor

import pyarrow as pa
import pyarrow.parquet as pq

from prunekit.errors import StatisticsError
from prunekit.statistics import Statistics

__all__ = ["data_schema", "parquet_files", "row_group_statistics", "statistics"]

RESERVED = ("file", "row_group", "row_count")
_TAIL = 64 * 1024  # one read usually holds the whole footer
_SIGNED_PHYSICAL = ("BOOLEAN", "INT32", "INT64", "FLOAT", "DOUBLE")
_UNIT = {"seconds": 1, "milliseconds": 1_000, "microseconds": 1_000_000,
         "nanoseconds": 1_000_000_000}
_ARROW_UNIT = {"s": 1, "ms": 1_000, "us": 1_000_000, "ns": 1_000_000_000}


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
                         threads: int | None = None, progress: bool | None = None) -> pa.Table:
    """Statistics of every row group of the Parquet files named by ``paths`` (see
    :func:`parquet_files`), one row each, ready for ``Statistics.from_arrow``.

    A column a file does not have gets unknown statistics for that file's row groups; one
    column with two different types (other than string/large string, binary/large binary, or a
    null-typed column) is a ``StatisticsError``. ``progress`` defaults to "stderr is a
    terminal and there are 100 files or more".

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
    """
    files = parquet_files(paths)
    if progress is None:
        progress = len(files) >= 100 and sys.stderr.isatty()
    read = [_file_statistics(f, *footer)
            for f, footer in zip(files, _footers(files, threads, progress), strict=True)]
    types = _unify(read)
    n = sum(len(r.row_counts) for r in read)
    columns = {
        "file": pa.array([r.path for r in read for _ in r.row_counts], pa.string()),
        "row_group": pa.array([i for r in read for i in range(len(r.row_counts))], pa.int32()),
        "row_count": pa.array([c for r in read for c in r.row_counts], pa.int64()),
    }
    for name, t in types.items():
        parts = [r.columns.get(name) or _unknown(len(r.row_counts)) for r in read]
        mins, maxs, nulls = ([v for p in parts for v in p[k]] for k in range(3))
        fields = {"min": _build(mins, t, n), "max": _build(maxs, t, n),
                  "null_count": pa.array(nulls, pa.int64())}
        if _bytes_like(t):
            exact = [None if a is None or b is None else a == b
                     for a, b in zip(mins, maxs, strict=True)]
            fields["min_exact"] = fields["max_exact"] = pa.array(exact, pa.bool_())
        columns[name] = pa.StructArray.from_arrays(list(fields.values()), list(fields))
    return pa.table(columns)


def statistics(paths: str | os.PathLike | Iterable[str | os.PathLike], *,
               threads: int | None = None, progress: bool | None = None) -> Statistics:
    """:func:`row_group_statistics` wrapped as a :class:`prunekit.Statistics` (float bounds
    exclude NaN, Parquet's rule).

    >>> import os, tempfile, pyarrow as pa, pyarrow.parquet as pq
    >>> d = tempfile.mkdtemp()
    >>> pq.write_table(pa.table({"f": [1.0, float("nan")]}), os.path.join(d, "a.parquet"))
    >>> statistics(d)
    <Statistics: 1 containers, columns ['f']>
    """
    return Statistics.from_arrow(row_group_statistics(paths, threads=threads, progress=progress))


def data_schema(statistics: pa.Table) -> pa.Schema:
    """The data columns' types of a statistics table: each struct's ``min`` type.

    >>> import pyarrow as pa
    >>> x = pa.StructArray.from_arrays([pa.array([1]), pa.array([3]), pa.array([None],
    ...     pa.int64())], ["min", "max", "null_count"])
    >>> data_schema(pa.table({"row_count": [5], "x": x, "file": ["a.parquet"]}))
    x: int64
    """
    return pa.schema([(f.name, f.type.field("min").type) for f in statistics.schema
                      if pa.types.is_struct(f.type) and f.type.get_field_index("min") >= 0])


# ---- one file ----------------------------------------------------------------------------
class _FileStats:
    __slots__ = ("path", "types", "row_counts", "columns")

    def __init__(self, path: str):
        self.path = path
        self.types: dict[str, pa.DataType] = {}
        self.row_counts: list[int] = []
        self.columns: dict[str, tuple[list, list, list]] = {}


def _unknown(n: int) -> tuple[list, list, list]:
    none = [None] * n
    return none, none, none


def _read_footer(path: str) -> tuple[pq.FileMetaData, bytes]:
    """The footer, read with one tail read (two for footers over 64 KiB)."""
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
            footer = tail[len(tail) - 8 - length:-8]
        else:
            f.seek(size - 8 - length)
            footer = f.read(length)
    try:
        meta = pq.read_metadata(pa.BufferReader(b"PAR1" + footer + tail[-8:]))
    except (pa.ArrowException, OSError) as e:
        raise StatisticsError(f"{path}: cannot read the Parquet footer: {e}") from None
    return meta, footer


def _type_defined_order(footer: bytes, n_columns: int) -> bool:
    """Whether the footer ends with ``column_orders`` (FileMetaData field 7), every entry
    TYPE_ORDER, in Thrift compact encoding: field header, list header, ``1c 00 00`` per column,
    then the struct's stop byte. Anything else (absent, or followed by encryption fields) reads
    as "no column orders", which only makes statistics less usable."""
    if n_columns < 15:
        header = bytes([(n_columns << 4) | 0x0C])
    else:
        header, v = b"\xfc", n_columns
        while v >= 0x80:
            header, v = header + bytes([(v & 0x7F) | 0x80]), v >> 7
        header += bytes([v])
    suffix = header + b"\x1c\x00\x00" * n_columns + b"\x00"
    return (len(footer) > len(suffix) and footer.endswith(suffix)
            and footer[-len(suffix) - 1] in (0x19, 0x29, 0x39))


def _file_statistics(path: str, meta: pq.FileMetaData, footer: bytes) -> _FileStats:
    out = _FileStats(path)
    try:
        arrow = meta.schema.to_arrow_schema()
    except (pa.ArrowException, ValueError) as e:
        raise StatisticsError(f"{path}: cannot map the Parquet schema to Arrow: {e}") from None
    typed = _type_defined_order(footer, meta.num_columns)
    leaves = {}
    for i in range(meta.num_columns):
        c = meta.schema.column(i)
        if c.max_repetition_level == 0 and "." not in c.path:
            leaves[c.path] = (i, c)
    plan = []
    for field in arrow:
        t = field.type
        if pa.types.is_dictionary(t):
            t = t.value_type
        if field.name not in leaves or pa.types.is_nested(t) or isinstance(t, pa.ExtensionType):
            continue  # nested columns, extension types: no statistics
        if field.name in out.types:
            raise StatisticsError(f"{path}: column {field.name!r} appears twice")
        if field.name in RESERVED:
            raise StatisticsError(f"{path}: a data column named {field.name!r} clashes with the "
                                  f"statistics layout's own {field.name!r} column")
        out.types[field.name] = t
        i, c = leaves[field.name]
        key = (c.physical_type, c.logical_type.to_json(), t, typed)
        decode = _DECODERS.get(key, False)
        if decode is False:
            decode = _DECODERS[key] = _decoder(c, t, typed)
        lists = out.columns[field.name] = ([], [], [])
        plan.append((i, decode, *lists))
    for r in range(meta.num_row_groups):
        rg = meta.row_group(r)
        out.row_counts.append(rg.num_rows)
        for i, decode, mins, maxs, nulls in plan:
            st = rg.column(i).statistics
            if st is None:
                mins.append(None), maxs.append(None), nulls.append(None)
                continue
            nulls.append(st.null_count if st.has_null_count else None)
            if decode is None or not st.has_min_max:
                mins.append(None), maxs.append(None)
            elif decode[0] is _same:
                mins.append(st.min_raw), maxs.append(st.max_raw)
            else:
                mins.append(decode[0](st.min_raw)), maxs.append(decode[1](st.max_raw))
    return out


def _same(v):
    return v


_DECODERS: dict = {}  # (physical type, logical type, Arrow type, typed order) -> decoders


def _decoder(c: pq.ColumnSchema, t: pa.DataType, typed: bool):
    """(decode min, decode max) from raw footer values to the representation ``_build`` takes
    for type ``t``; None when the bounds cannot be read exactly."""
    phys = c.physical_type
    logical = json.loads(c.logical_type.to_json())
    kind = logical.get("Type")
    unsigned = kind == "Int" and not logical.get("isSigned", True)
    if phys == "INT96" or not (typed or (phys in _SIGNED_PHYSICAL and not unsigned)):
        return None  # INT96 has no defined order; deprecated bounds order signed only
    if pa.types.is_decimal(t):
        if kind != "Decimal" or logical.get("scale") != t.scale:
            return None
        if phys in ("INT32", "INT64"):
            return _same, _same
        def from_bytes(b):
            return int.from_bytes(b, "big", signed=True) if b else None
        return from_bytes, from_bytes
    if pa.types.is_integer(t) and phys in ("INT32", "INT64") and kind in ("Int", "None"):
        if unsigned:
            mask = (1 << (32 if phys == "INT32" else 64)) - 1
            return (lambda v: v & mask), (lambda v: v & mask)
        return _same, _same
    if pa.types.is_floating(t) and not pa.types.is_float16(t) and phys in ("FLOAT", "DOUBLE"):
        # NaN is no bound; a zero bound stands for both zeros (docs/semantics.md §4).
        return ((lambda v: None if v != v else (-0.0 if v == 0 else v)),
                (lambda v: None if v != v else (0.0 if v == 0 else v)))
    if pa.types.is_boolean(t) and phys == "BOOLEAN":
        return _same, _same
    if pa.types.is_date32(t) and kind == "Date":
        return _same, _same
    if pa.types.is_date64(t) and kind == "Date":
        return (lambda v: v * 86_400_000), (lambda v: v * 86_400_000)
    if pa.types.is_timestamp(t) and kind == "Timestamp" and phys == "INT64":
        have, want = _UNIT[logical["timeUnit"]], _ARROW_UNIT[t.unit]
        if have == want:
            return _same, _same
        if have < want:
            k = want // have
            return (lambda v: v * k), (lambda v: v * k)
        k = have // want  # a finer file unit: round outwards, so the bounds still hold
        return (lambda v: v // k), (lambda v: -(-v // k))
    if _bytes_like(t) and phys in ("BYTE_ARRAY", "FIXED_LEN_BYTE_ARRAY") and \
            kind in ("String", "None", "Enum", "Json", "Bson"):
        return _same, _same
    return None


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


def _bytes_like(t: pa.DataType) -> bool:
    return (pa.types.is_string(t) or pa.types.is_large_string(t) or pa.types.is_binary(t)
            or pa.types.is_large_binary(t) or pa.types.is_fixed_size_binary(t)
            or t in (pa.string_view(), pa.binary_view()))


def _family(t: pa.DataType) -> str | None:
    if t in (pa.string(), pa.large_string(), pa.string_view()):
        return "string"
    if t in (pa.binary(), pa.large_binary(), pa.binary_view()):
        return "binary"
    return None


def _unify(read: list[_FileStats]) -> dict[str, pa.DataType]:
    """One type per column over all files (first appearance order)."""
    types: dict[str, pa.DataType] = {}
    where: dict[str, str] = {}
    for r in read:
        for name, t in r.types.items():
            have = types.get(name)
            if have is None or pa.types.is_null(have):
                types[name], where[name] = t, r.path
            elif have != t and not pa.types.is_null(t):
                if _family(have) is not None and _family(have) == _family(t):
                    if pa.types.is_large_string(t) or pa.types.is_large_binary(t):
                        types[name] = t
                    continue
                raise StatisticsError(f"column {name!r} is {have} in {where[name]} but {t} in "
                                      f"{r.path}")
    return types


def _build(values: list, t: pa.DataType, n: int) -> pa.Array:
    """One Arrow array of type ``t`` from decoded bounds; a value that does not fit is null."""
    if pa.types.is_null(t):
        return pa.nulls(n)
    if pa.types.is_decimal(t):
        limit = 10 ** t.precision
        fits = [v if v is not None and -limit < v < limit else None for v in values]
        width = t.byte_width
        data = b"".join(b"\0" * width if v is None else v.to_bytes(width, "little", signed=True)
                        for v in fits)
        valid = pa.array([v is not None for v in fits], pa.bool_())
        return pa.Array.from_buffers(t, n, [valid.buffers()[1] if valid.false_count else None,
                                            pa.py_buffer(data)])
    if _family(t) is not None:
        raw = pa.array(values, pa.large_binary())
        try:
            return raw.cast(t)
        except (pa.ArrowInvalid, pa.ArrowNotImplementedError):  # a bound that is not UTF-8
            return pa.array([_utf8(v) for v in values], t)
    try:
        return pa.array(values, t)
    except (pa.ArrowInvalid, pa.ArrowTypeError, pa.ArrowNotImplementedError, OverflowError):
        return pa.array([_fit(v, t) for v in values], t)


def _utf8(v: bytes | None) -> str | None:
    try:
        return None if v is None else v.decode("utf-8")
    except UnicodeDecodeError:
        return None


def _fit(v, t: pa.DataType):
    try:
        pa.array([v], t)
        return v
    except (pa.ArrowInvalid, pa.ArrowTypeError, pa.ArrowNotImplementedError, OverflowError):
        return None
