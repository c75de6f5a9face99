"""File statistics of an Iceberg table, in the canonical layout (``prunekit.statistics``).

One row per live data file of a snapshot: ``path`` (a local path for ``file:`` locations),
``size`` (bytes), ``partition`` (its partition as a path, ``month=2024-03/s=ab``),
``delete_files`` (how many delete files may apply to it), ``row_count`` and, per leaf of a
primitive type (a top-level column or a field of a struct, keyed by ``leaf_key``), a struct
``{min, max, null_count, nan_count, min_exact, max_exact}``. pyiceberg reads the metadata and the
manifest list (its ``[iceberg]`` extra); manifests are decoded by prunekit's own Avro reader
into columns (``_iceberg_entries``, ``_iceberg_columns``), with pyiceberg's reader for what it
does not handle (and for a manifest mixing data and delete files); the bounds are decoded here
(``prunekit.sources._iceberg_values``). A manifest that breaks the Avro format is a
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
  conjunct on its source is left out (``_iceberg_buckets``). Each file is read with its own
  partition spec.
- Delete files (position or equality) with a sequence number at or after the data file's, in
  its partition (or global, or naming its path) are counted in ``delete_files``, and then
  ``row_count`` is unknown (the file's live rows are fewer), its bounds inexact (the row
  holding one may be deleted) and its null counts unknown, as for a Delta file with a deletion
  vector: such a file is never ALL_MATCH for a predicate over its columns, and never counted.
  Its bounds still hold for the rows that remain (deletes only remove rows).
"""

from __future__ import annotations

import functools
import os
import sys
from urllib.parse import unquote, urlparse

import pyarrow as pa

from prunekit.errors import StatisticsError
from prunekit.expr.paths import leaf_key, leaf_selector
from prunekit.statistics import Statistics

from . import _iceberg_values as values
from ._iceberg_deletes import PATH_FIELD_ID, DeleteIndex, partition_key
from ._recent import Recent
from .parquet import data_schema as _leaf_schema

__all__ = ["data_schema", "file_statistics", "load_table", "statistics"]

RESERVED = ("path", "size", "partition", "delete_files", "row_count")
_NAME_MAPPING = "schema.name-mapping.default"
_DATA = 0  # a manifest entry's content: 1 and 2 are position and equality delete files


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
    snapshot = _snapshot(table, snapshot_id)
    # The current schema for the current snapshot (a later schema change makes no snapshot),
    # the snapshot's own for time travel: as Iceberg readers do.
    schema = meta.schema() if snapshot_id is None else _schema_of(meta, snapshot)
    leaves = _leaves(schema, columns)
    key = None if predicate is not None or snapshot is None else _cache_key(
        table, snapshot.snapshot_id, tuple(leaf.key for leaf in leaves))
    found = None if key is None else _CACHE.get(key)
    if found is not None:
        return found
    out = _table([], leaves)
    if snapshot is not None:
        try:
            out = _read(table, meta, snapshot, schema, leaves, predicate)
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
        st = os.stat(_local(location))
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
    leaves = _leaves(table.metadata.schema(), None)
    return _leaf_schema(_table([], leaves))


# ---- the table's structure ---------------------------------------------------------------
def _snapshot(table, snapshot_id):
    if snapshot_id is None:
        return table.metadata.current_snapshot()
    snap = table.metadata.snapshot_by_id(snapshot_id)
    if snap is None:
        raise StatisticsError(f"{table.metadata.location}: no snapshot {snapshot_id}")
    return snap


def _schema_of(meta, snapshot):
    if snapshot is not None and snapshot.schema_id is not None:
        for s in meta.schemas:
            if s.schema_id == snapshot.schema_id:
                return s
    return meta.schema()


class _Leaf:
    """One primitive leaf: its field id, statistics key, Iceberg type and Arrow type."""

    __slots__ = ("arrow", "field_id", "key", "kind", "no_default")

    def __init__(self, field_id, key, kind, arrow, no_default):
        self.field_id, self.key, self.kind, self.arrow = field_id, key, kind, arrow
        self.no_default = no_default


def _leaves(schema, columns) -> list[_Leaf]:
    wanted = leaf_selector(columns)
    out = []
    stack = [((), f, True) for f in reversed(schema.fields)]
    while stack:
        path, field, no_default = stack.pop()
        t = field.field_type
        no_default = no_default and getattr(field, "initial_default", None) is None
        if t.is_struct:
            stack.extend(((*path, field.name), f, no_default) for f in reversed(t.fields))
            continue
        if not t.is_primitive:
            continue  # lists and maps: no statistics
        kind = str(t)
        arrow = values.arrow_type(kind)
        key = leaf_key((*path, field.name))
        if arrow is None or not wanted(key):
            continue
        if key in RESERVED:
            raise StatisticsError(f"a data column named {key!r} clashes with the statistics "
                                  f"layout's own {key!r} column")
        out.append(_Leaf(field.field_id, key, kind, arrow, no_default))
    return out


def _ids_by_schema(meta) -> dict:
    return {s.schema_id: _field_ids(s) for s in meta.schemas}


def _field_ids(schema) -> frozenset:
    ids, stack = set(), list(schema.fields)
    while stack:
        f = stack.pop()
        ids.add(f.field_id)
        t = f.field_type
        if t.is_struct:
            stack.extend(t.fields)
        elif not t.is_primitive:  # lists and maps: their element, key and value fields
            stack.extend(getattr(t, "fields", ()))
    return frozenset(ids)


# ---- manifests ---------------------------------------------------------------------------
# "prunekit": data manifests decoded by prunekit's own columnar reader (``_iceberg_entries``),
# pyiceberg's for what it does not handle; "pyiceberg": pyiceberg's reader for every manifest
# (the reference the tests compare with).
READER = "prunekit"
# Which reader a first plan in a process uses, by the data manifests' bytes: at or above
# COMPILE_WORTH_BYTES the decoder, compiled if need be (seconds, once per installation: Numba
# keeps it on disk); below SMALL_BYTES pyiceberg, unless this process already loaded the
# decoder (importing Numba and loading the decoder from its disk cache take about 0.5 s,
# pyiceberg reads a few hundred files in less); between, the decoder if it is on disk.
COMPILE_WORTH_BYTES = 4 << 20
SMALL_BYTES = 256 << 10


def _read(table, meta, snapshot, schema, leaves, predicate) -> pa.Table:
    io = table.io
    manifests = snapshot.manifests(io)
    specs = meta.specs()
    data = [m for m in manifests if int(m.content) == 0]
    deletes = [m for m in manifests if int(m.content) != 0]
    buckets = _Buckets(predicate, schema, specs)
    if predicate is not None:
        from ._iceberg_manifests import manifests_to_open

        data = [m for m in manifests_to_open(data, specs, schema, predicate)
                if buckets.may_match(m)]
    # Delete files are indexed before any data file is read (a writer may have put one in a
    # data manifest too: entries are routed by their own content, as pyiceberg does).
    index = DeleteIndex(specs)
    fast = _use_decoder(data)
    wanted = {leaf.field_id for leaf in leaves}
    read = []
    manifests = deletes + data
    for m, found in zip(manifests, _fetch(io, manifests, wanted, fast), strict=True):
        if not isinstance(found, list):  # decoded: data files only, or delete files only
            if int(m.content) == 0:
                read.append((m, found))
            else:
                _index_decoded(index, found, m.partition_spec_id)
            continue
        kept = []
        for entry in found:
            if int(entry.data_file.content) == _DATA:
                kept.append(entry)
            else:
                index.add(entry)
        if kept:
            read.append((m, kept))
    written_ids = None if _NAME_MAPPING in meta.properties else _ids_by_schema(meta)
    schema_of_snapshot = {s.snapshot_id: s.schema_id for s in meta.snapshots}
    plans = {}
    texts: dict = {}  # partition texts by (spec id, values): files share partitions
    tables = []
    for m, found in read:
        if not isinstance(found, list):
            out = _decoded_table(found, m, specs, schema, leaves, index, plans, texts,
                                 written_ids, schema_of_snapshot)
            tables.append(buckets.keep(out, m.partition_spec_id,
                                       [p[2] for p in found.partition]))
            continue
        rows = []
        for entry in found:
            f = entry.data_file
            spec_id = f.spec_id if f.spec_id is not None else m.partition_spec_id
            if spec_id not in plans:
                plans[spec_id] = _partition_plan(specs.get(spec_id), schema, leaves)
            written = None  # the field ids of the schema the file was committed under
            if written_ids is not None:
                written = written_ids.get(schema_of_snapshot.get(entry.snapshot_id))
            rows.append(_file_row(entry, f, spec_id, plans[spec_id], leaves, index, written,
                                  specs.get(spec_id), schema, texts))
        tables.append(buckets.keep_entries(_table(rows, leaves), found, m.partition_spec_id))
    if not tables:
        return _table([], leaves)
    return pa.concat_tables(tables) if len(tables) > 1 else tables[0]


class _Buckets:
    """With ``predicate=``: files whose ``bucket[N]`` partition value is the bucket of no
    literal of a top-level ``=`` / ``IN`` conjunct are left out (``_iceberg_buckets``)."""

    def __init__(self, predicate, schema, specs):
        self.specs, self.rules = specs, {}
        self.names = {f.field_id: (f.name, str(f.field_type)) for f in schema.fields
                      if f.field_type.is_primitive}
        self.literals = {}
        if predicate is not None:
            from ._iceberg_buckets import equality_literals

            self.literals = equality_literals(
                predicate, {name: kind for name, kind in self.names.values()})

    def _rules(self, spec_id) -> list:
        if spec_id not in self.rules:
            from ._iceberg_buckets import ruled_out

            self.rules[spec_id] = ruled_out(self.specs.get(spec_id), self.names, self.literals)
        return self.rules[spec_id]

    def may_match(self, manifest) -> bool:
        """False when a bucket field's summary (the least and greatest bucket of the
        manifest's files) holds none of the allowed buckets."""
        rules = self._rules(manifest.partition_spec_id) if self.literals else []
        summaries = manifest.partitions or []
        for pos, allowed in rules:
            if pos >= len(summaries):
                continue
            lo = values.decode_bound("int", summaries[pos].lower_bound, upper=False)
            hi = values.decode_bound("int", summaries[pos].upper_bound, upper=True)
            if lo is not None and hi is not None and not any(lo <= b <= hi for b in allowed):
                return False
        return True

    def keep(self, table: pa.Table, spec_id, partition: list) -> pa.Table:
        """``table`` without the files ruled out; ``partition`` per field its files' values."""
        rules = self._rules(spec_id) if self.literals else []
        if not rules:
            return table
        keep = [True] * table.num_rows
        for pos, allowed in rules:
            if pos < len(partition):
                keep = [k and (v is None or v in allowed)
                        for k, v in zip(keep, partition[pos], strict=True)]
        return table if all(keep) else table.filter(pa.array(keep))

    def keep_entries(self, table: pa.Table, entries: list, spec_id) -> pa.Table:
        if not self.literals or not self._rules(spec_id):
            return table
        width = len(self.specs[spec_id].fields)
        values = [[e.data_file.partition[pos] if pos < len(e.data_file.partition) else None
                   for e in entries] for pos in range(width)]
        return self.keep(table, spec_id, values)


def _use_decoder(data: list) -> bool:
    if READER != "prunekit" or not data:
        return False
    size = sum(m.manifest_length or 0 for m in data)
    loaded = sys.modules.get(f"{__package__}._avro_decode")
    if size >= COMPILE_WORTH_BYTES or (loaded is not None and loaded.compiled()):
        return True
    if size < SMALL_BYTES:
        return False
    from ._avro_decode import on_disk

    return on_disk()


def _fetch(io, manifests: list, wanted: set, fast: bool) -> list:
    """Each manifest's live entries: decoded columns (``_iceberg_entries.Entries``) for data
    manifests when ``fast``, else pyiceberg's entries; on pyiceberg's thread pool as its own
    planning does (inflating Avro blocks releases the GIL)."""
    from pyiceberg.utils.concurrent import ExecutorFactory

    def one(m):
        data = int(m.content) == 0
        return _entries(io, m, wanted if data else {PATH_FIELD_ID}, fast)

    if len(manifests) < 2:
        return [one(m) for m in manifests]
    return list(ExecutorFactory.get_or_create().map(one, manifests))


def _entries(io, m, wanted: set, fast: bool):
    """One manifest's live entries; a manifest that breaks the Avro format, or that neither
    reader can read, is a ``StatisticsError`` naming it."""
    from ._iceberg_entries import Malformed, Unsupported, read_entries

    why = None
    if fast:
        try:
            with io.new_input(m.manifest_path).open() as f:
                e = read_entries(f.read(), m, wanted)
            if ((e.content == _DATA) == (int(m.content) == 0)).all():  # else: pyiceberg's
                return e  # entries, routed one by one
        except Unsupported:  # a codec or schema shape the decoder does not handle
            pass
        except Malformed as err:  # pyiceberg reads some broken bytes (a union branch that
            # does not exist as the value's) and would answer from them: an error instead
            raise StatisticsError(f"{m.manifest_path}: cannot read this manifest ({err})") \
                from None
        except Exception as err:  # noqa: BLE001 - whatever the decoder trips on, the
            why = f"{type(err).__name__}: {err}"  # reference reader decides
    try:
        return m.fetch_manifest_entry(io, discard_deleted=True)
    except Exception as e:
        raise StatisticsError(f"{m.manifest_path}: cannot read this manifest "
                              f"({why or f'{type(e).__name__}: {e}'})") from None


def _index_decoded(index: DeleteIndex, e, spec_id) -> None:
    """Delete files of a decoded delete manifest into ``index``: each names a data file by
    ``referenced_data_file`` or by equal bounds of its ``file_path`` column."""
    from ._iceberg_columns import bounds_of
    from ._iceberg_entries import gather

    referenced = gather(e.payload, e.referenced[:, 0], e.referenced[:, 1]).to_pylist()
    lower = bounds_of(e, PATH_FIELD_ID, upper=False)
    upper = bounds_of(e, PATH_FIELD_ID, upper=True)
    named = []
    for ref, lo, hi in zip(referenced, lower, upper, strict=True):
        if ref is None and lo is not None and lo == hi:
            ref = lo
        try:
            named.append(None if ref is None else ref.decode("utf-8"))
        except UnicodeDecodeError:
            named.append(None)
    keys = list(zip(*[p[2] for p in e.partition], strict=True)) if e.partition else \
        [()] * e.count
    index.add_decoded(spec_id, named, keys, e.sequence.tolist())


def _decoded_table(e, m, specs, schema, leaves, index, plans, texts, written_ids,
                   schema_of_snapshot) -> pa.Table:
    """The statistics of a decoded manifest's files (``_iceberg_columns``)."""
    import numpy as np

    from ._iceberg_columns import manifest_table

    spec_id = m.partition_spec_id
    if spec_id not in plans:
        plans[spec_id] = _partition_plan(specs.get(spec_id), schema, leaves)
    spec = specs.get(spec_id)
    keys = list(zip(*[p[2] for p in e.partition], strict=True)) if e.partition else \
        [()] * e.count
    by_key = {}
    for key in keys:
        if key not in by_key:
            from pyiceberg.typedef import Record

            by_key[key] = Record(*key)
    text = {k: _partition_text(spec, schema, r, spec_id, texts) for k, r in by_key.items()}
    texts_column = [text[k] for k in keys]
    counts = np.zeros(e.count, np.int32)
    if index.by_path or index.by_partition or index.everywhere:
        paths = e.paths.to_pylist()
        counts = np.array([index.count(p, spec_id, by_key[k], int(seq))
                           for p, k, seq in zip(paths, keys, e.sequence.tolist(),
                                                strict=True)], np.int32)
    absent = None
    if written_ids is not None:
        snapshots = e.snapshot.tolist()
        known = e.snapshot_known

        def absent(field_id):
            proved = {}
            for s in set(snapshots):
                ids = written_ids.get(schema_of_snapshot.get(s))
                proved[s] = ids is not None and field_id not in ids
            return np.array([proved[s] for s in snapshots], np.bool_) & known

    columns = manifest_table(e, plans[spec_id], leaves, counts, absent, texts_column)
    return pa.table(columns)


def _partition_plan(spec, schema, leaves) -> list[tuple]:
    """Per partition field: (position, transform, the leaf index of its source or None)."""
    if spec is None:
        return []
    by_id = {leaf.field_id: k for k, leaf in enumerate(leaves)}
    return [(pos, str(pf.transform), by_id.get(pf.source_id))
            for pos, pf in enumerate(spec.fields)]


# ---- one data file -----------------------------------------------------------------------
def _file_row(entry, f, spec_id, plan, leaves, index, written, spec, schema,
              texts: dict) -> tuple:
    path = f.file_path
    partition = f.partition  # pyiceberg builds it anew on every access
    rows = f.record_count
    rows = rows if isinstance(rows, int) and rows >= 0 else None
    deletes = index.count(path, spec_id, partition, entry.sequence_number or 0)
    lower, upper = f.lower_bounds or {}, f.upper_bounds or {}
    nulls, nans = f.null_value_counts or {}, f.nan_value_counts or {}
    cells = []
    for leaf in leaves:
        i = leaf.field_id
        if written is not None and i not in written and leaf.no_default and rows is not None \
                and i not in nulls and i not in lower and i not in upper:
            cells.append([None, None, rows, None, None, None])  # added later: all NULL
            continue
        lo = values.decode_bound(leaf.kind, lower.get(i), upper=False)
        hi = values.decode_bound(leaf.kind, upper.get(i), upper=True)
        # Only string and binary bounds are ever cut (module docstring); cut ones never meet.
        cut = leaf.kind in ("string", "binary") and lo != hi
        nan = _count(nans.get(i)) if leaf.kind in ("float", "double") else None
        cells.append([lo, hi, _count(nulls.get(i)), nan, lo is not None and not cut,
                      hi is not None and not cut])
    for pos, transform, k in plan:
        if k is not None and transform != "void":
            _narrow(cells[k], leaves[k].kind, transform, partition[pos], rows)
    if deletes:  # a bound may be a deleted row's value: still a bound, no longer exact
        for cell in cells:
            # Null counts unknown, as for a Delta file with a deletion vector: no predicate
            # over a column is then ALL_MATCH on a file whose rows deletes thin out.
            cell[2] = None
            cell[4] = cell[5] = False
    part = _partition_text(spec, schema, partition, spec_id, texts)
    return _local(path), f.file_size_in_bytes, part, deletes, None if deletes else rows, cells


def _count(v) -> int | None:
    return v if isinstance(v, int) and not isinstance(v, bool) and v >= 0 else None


def _narrow(cell: list, kind: str, transform: str, value, rows) -> None:
    """Intersect a leaf's cell with what its partition value says."""
    if value is None:  # NULL transforms only from NULL: the source is NULL on every row
        if rows is not None:
            cell[:] = [None, None, rows, None, None, None]
        return
    if cell[2] is None:
        cell[2] = 0
    try:
        r = _partition_range(transform, kind, value)
    except TypeError:  # an unhashable value: not one of a partition's types
        return
    values.intersect(cell, kind, r)


# Files share partition values: each (transform, type, value) is worked out once.
_partition_range = functools.lru_cache(maxsize=1 << 16)(values.partition_range)


def _partition_text(spec, schema, partition, spec_id, texts: dict) -> str | None:
    """The partition as its path prints it; ``texts`` keeps those of one table's read
    (printing costs pyiceberg 0.1 ms, and files share partitions)."""
    if spec is None or not spec.fields:
        return None
    key = (spec_id, partition_key(partition))
    text = texts.get(key)
    if text is None:
        try:
            text = unquote(spec.partition_to_path(partition, schema))
        except Exception:  # a value the spec cannot print: say nothing rather than fail
            return None
        texts[key] = text
    return text


def _local(path: str) -> str:
    """A ``file:`` location's path as pyiceberg opens it: not percent-decoded (pyiceberg
    writes partition directories such as ``s=%C3%A9`` literally)."""
    return urlparse(path).path if path.startswith("file:") else path


# ---- the Arrow table ---------------------------------------------------------------------
def _table(rows: list[tuple], leaves: list[_Leaf]) -> pa.Table:
    out: dict[str, pa.Array] = {
        "path": pa.array([r[0] for r in rows], pa.string()),
        "size": pa.array([r[1] for r in rows], pa.int64()),
        "partition": pa.array([r[2] for r in rows], pa.string()),
        "delete_files": pa.array([r[3] for r in rows], pa.int32()),
        "row_count": pa.array([r[4] for r in rows], pa.int64()),
    }
    for k, leaf in enumerate(leaves):
        cells = [r[5][k] for r in rows]
        arrays = [_bounds([c[0] for c in cells], leaf.arrow),
                  _bounds([c[1] for c in cells], leaf.arrow),
                  pa.array([c[2] for c in cells], pa.int64()),
                  pa.array([c[3] for c in cells], pa.int64()),
                  pa.array([c[4] for c in cells], pa.bool_()),
                  pa.array([c[5] for c in cells], pa.bool_())]
        out[leaf.key] = pa.StructArray.from_arrays(arrays, values.FIELDS)
    return pa.table(out)


def _bounds(items: list, t: pa.DataType) -> pa.Array:
    if pa.types.is_temporal(t):  # raw integers in the type's own unit
        width = pa.int32() if t == pa.date32() else pa.int64()
        return pa.array(items, width).view(t)
    if pa.types.is_decimal(t):
        items = [None if v is None else values.fit_decimal(v, t) for v in items]
    return pa.array(items, t)
