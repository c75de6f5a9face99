"""Planning a snapshot's statistics from its manifests: the manifests a predicate's partition
summaries and bucket literals rule out are not opened, delete files are indexed first, data
manifests are decoded by prunekit's columnar reader (``entries``, ``columns``) or read by
pyiceberg's (``per_file``), and the statistics of every live data file are gathered into one
table.
"""

from __future__ import annotations

import sys

import pyarrow as pa

from prunekit.errors import StatisticsError

from . import values
from .deletes import PATH_FIELD_ID, DeleteIndex
from .layout import ids_by_schema, stats_table
from .per_file import file_row, partition_text

NAME_MAPPING = "schema.name-mapping.default"
DATA = 0  # a manifest entry's content: 1 and 2 are position and equality delete files

# "prunekit": data manifests decoded by prunekit's own columnar reader (``entries``),
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


def read(table, meta, snapshot, schema, leaves, predicate) -> pa.Table:
    io = table.io
    manifests = snapshot.manifests(io)
    specs = meta.specs()
    data = [m for m in manifests if int(m.content) == 0]
    deletes = [m for m in manifests if int(m.content) != 0]
    buckets = Buckets(predicate, schema, specs)
    if predicate is not None:
        from .manifests import manifests_to_open

        data = [m for m in manifests_to_open(data, specs, schema, predicate)
                if buckets.may_match(m)]
    # Delete files are indexed before any data file is read (a writer may have put one in a
    # data manifest too: entries are routed by their own content, as pyiceberg does).
    index = DeleteIndex(specs)
    fast = use_decoder(data)
    wanted = {leaf.field_id for leaf in leaves}
    read = []
    manifests = deletes + data
    for m, found in zip(manifests, fetch(io, manifests, wanted, fast), strict=True):
        if not isinstance(found, list):  # decoded: data files only, or delete files only
            if int(m.content) == 0:
                read.append((m, found))
            else:
                index_decoded(index, found, m.partition_spec_id)
            continue
        kept = []
        for entry in found:
            if int(entry.data_file.content) == DATA:
                kept.append(entry)
            else:
                index.add(entry)
        if kept:
            read.append((m, kept))
    written_ids = None if NAME_MAPPING in meta.properties else ids_by_schema(meta)
    schema_of_snapshot = {s.snapshot_id: s.schema_id for s in meta.snapshots}
    plans = {}
    texts: dict = {}  # partition texts by (spec id, values): files share partitions
    tables = []
    for m, found in read:
        if not isinstance(found, list):
            out = decoded_table(found, m, specs, schema, leaves, index, plans, texts,
                                 written_ids, schema_of_snapshot)
            tables.append(buckets.keep(out, m.partition_spec_id,
                                       [p[2] for p in found.partition]))
            continue
        rows = []
        for entry in found:
            f = entry.data_file
            spec_id = f.spec_id if f.spec_id is not None else m.partition_spec_id
            if spec_id not in plans:
                plans[spec_id] = partition_plan(specs.get(spec_id), schema, leaves)
            written = None  # the field ids of the schema the file was committed under
            if written_ids is not None:
                written = written_ids.get(schema_of_snapshot.get(entry.snapshot_id))
            rows.append(file_row(entry, f, spec_id, plans[spec_id], leaves, index, written,
                                  specs.get(spec_id), schema, texts))
        tables.append(buckets.keep_entries(stats_table(rows, leaves), found, m.partition_spec_id))
    if not tables:
        return stats_table([], leaves)
    return pa.concat_tables(tables) if len(tables) > 1 else tables[0]


class Buckets:
    """With ``predicate=``: files whose ``bucket[N]`` partition value is the bucket of no
    literal of a top-level ``=`` / ``IN`` conjunct are left out (``buckets``)."""

    def __init__(self, predicate, schema, specs):
        self.specs, self.rules = specs, {}
        self.names = {f.field_id: (f.name, str(f.field_type)) for f in schema.fields
                      if f.field_type.is_primitive}
        self.literals = {}
        if predicate is not None:
            from .buckets import equality_literals

            self.literals = equality_literals(
                predicate, {name: kind for name, kind in self.names.values()})

    def _rules(self, spec_id) -> list:
        if spec_id not in self.rules:
            from .buckets import ruled_out

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


def use_decoder(data: list) -> bool:
    if READER != "prunekit" or not data:
        return False
    size = sum(m.manifest_length or 0 for m in data)
    loaded = sys.modules.get(f"{__package__}.avro_decode")
    if size >= COMPILE_WORTH_BYTES or (loaded is not None and loaded.compiled()):
        return True
    if size < SMALL_BYTES:
        return False
    from .avro_decode import on_disk

    return on_disk()


def fetch(io, manifests: list, wanted: set, fast: bool) -> list:
    """Each manifest's live entries: decoded columns (``entries.Entries``) for data
    manifests when ``fast``, else pyiceberg's entries; on pyiceberg's thread pool as its own
    planning does (inflating Avro blocks releases the GIL)."""
    from pyiceberg.utils.concurrent import ExecutorFactory

    def one(m):
        data = int(m.content) == 0
        return entries_of(io, m, wanted if data else {PATH_FIELD_ID}, fast)

    if len(manifests) < 2:
        return [one(m) for m in manifests]
    return list(ExecutorFactory.get_or_create().map(one, manifests))


def entries_of(io, m, wanted: set, fast: bool):
    """One manifest's live entries; a manifest that breaks the Avro format, or that neither
    reader can read, is a ``StatisticsError`` naming it."""
    from .entries import Malformed, Unsupported, read_entries

    why = None
    if fast:
        try:
            with io.new_input(m.manifest_path).open() as f:
                e = read_entries(f.read(), m, wanted)
            if ((e.content == DATA) == (int(m.content) == 0)).all():  # else: pyiceberg's
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


def index_decoded(index: DeleteIndex, e, spec_id) -> None:
    """Delete files of a decoded delete manifest into ``index``: each names a data file by
    ``referenced_data_file`` or by equal bounds of its ``file_path`` column."""
    from .columns import bounds_of
    from .entries import gather

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


def decoded_table(e, m, specs, schema, leaves, index, plans, texts, written_ids,
                   schema_of_snapshot) -> pa.Table:
    """The statistics of a decoded manifest's files (``columns``)."""
    import numpy as np

    from .columns import manifest_table

    spec_id = m.partition_spec_id
    if spec_id not in plans:
        plans[spec_id] = partition_plan(specs.get(spec_id), schema, leaves)
    spec = specs.get(spec_id)
    keys = list(zip(*[p[2] for p in e.partition], strict=True)) if e.partition else \
        [()] * e.count
    by_key = {}
    for key in keys:
        if key not in by_key:
            from pyiceberg.typedef import Record

            by_key[key] = Record(*key)
    text = {k: partition_text(spec, schema, r, spec_id, texts) for k, r in by_key.items()}
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


def partition_plan(spec, schema, leaves) -> list[tuple]:
    """Per partition field: (position, transform, the leaf index of its source or None)."""
    if spec is None:
        return []
    by_id = {leaf.field_id: k for k, leaf in enumerate(leaves)}
    return [(pos, str(pf.transform), by_id.get(pf.source_id))
            for pos, pf in enumerate(spec.fields)]
