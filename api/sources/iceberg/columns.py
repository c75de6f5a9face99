"""The statistics of one manifest's data files built column by column from its decoded
entries (``entries``), for ``prunekit.sources.iceberg``: the same rules and the same
table as its per-file path (see that module's docstring), with bounds decoded by NumPy views
per column instead of per value in Python.

Decimal bounds, and the partition ranges of sources that are not integers in raw form
(floats, decimals, strings, binary), keep the per-value rules of ``values``.
"""

from __future__ import annotations

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from . import values as values
from .entries import LOWER, NANS, NULLS, UPPER, gather

__all__ = ["bounds_of", "manifest_table"]

# Kinds whose raw form is an integer: bounds are fixed-width little-endian integers.
_INTS = {"int": 4, "date": 4, "long": 8, "time": 8, "timestamp": 8, "timestamptz": 8,
         "timestamp_ns": 8, "timestamptz_ns": 8}


class _Column:
    """One leaf over a manifest's files: bounds as Arrow arrays or (int kinds) NumPy values
    with validity, counts with validity, exactness with validity (None is 'unknown')."""

    def __init__(self, n):
        self.nulls, self.nulls_ok = np.zeros(n, np.int64), np.zeros(n, np.bool_)
        self.nans, self.nans_ok = np.zeros(n, np.int64), np.zeros(n, np.bool_)
        self.lo_ex, self.hi_ex = np.zeros(n, np.bool_), np.zeros(n, np.bool_)
        self.ex_ok = np.ones(n, np.bool_)


def manifest_table(e, plan, leaves, counts, absent, texts) -> dict:
    """The statistics table's columns for the data files of entries ``e``: ``plan`` the
    partition plan of its spec (position, transform, leaf index), ``counts`` each file's
    delete files (NumPy), ``absent(field_id)`` a mask of the files committed under a schema
    without that field (None: never proved), ``texts`` each file's partition text.

    One file of 3 rows, a ``long`` column (field id 1) with bounds 5 and 9 and one NULL (map
    rows: table, entry, key, value or payload start, length):

    >>> from types import SimpleNamespace as NS
    >>> from prunekit.sources.iceberg.entries import Entries
    >>> payload = np.frombuffer((5).to_bytes(8, "little") + (9).to_bytes(8, "little"), np.uint8)
    >>> e = Entries(payload=payload, paths=pa.array(["file:///d/a.parquet"]),
    ...             records=np.array([3]), size=np.array([100]), partition=[], count=1,
    ...             pairs=np.array([[2, 0, 1, 0, 8], [3, 0, 1, 8, 8], [0, 0, 1, 1, -1]]))
    >>> leaf = NS(field_id=1, key="x", kind="long", arrow=pa.int64(), no_default=True)
    >>> out = manifest_table(e, [], [leaf], np.zeros(1, np.int32), None, [None])
    >>> out["path"].to_pylist(), out["x"].to_pylist()
    (['/d/a.parquet'], [{'min': 5, 'max': 9, 'null_count': 1, 'nan_count': None, \
'min_exact': True, 'max_exact': True}])
    """
    n = e.count
    rows = np.where(e.records >= 0, e.records, 0)
    deleted = counts > 0
    rows_ok = (e.records >= 0) & ~deleted
    out = {"path": _local(e.paths),
           "size": pa.array(e.size, pa.int64(), mask=e.size < 0),
           "partition": pa.array(texts, pa.string()),
           "delete_files": pa.array(counts, pa.int32()),
           "row_count": pa.array(rows, pa.int64(), mask=~rows_ok)}
    partition = e.partition
    for k, leaf in enumerate(leaves):
        col, lo, hi = _leaf(e, leaf, n, absent)
        for pos, transform, source in plan:
            if source == k and transform != "void" and pos < len(partition):
                lo, hi = _narrow(col, lo, hi, leaf.kind, transform, partition[pos][2],
                                 rows, e.records >= 0)
        # A bound may be a deleted row's value: still a bound, no longer exact; null counts
        # unknown (the per-file path's rule).
        col.nulls_ok &= ~deleted
        col.lo_ex &= ~deleted
        col.hi_ex &= ~deleted
        col.ex_ok |= deleted
        out[leaf.key] = _struct(col, lo, hi, leaf)
    return out


def _local(paths: pa.Array) -> pa.Array:
    """``file:`` locations as local paths, as ``urllib.parse.urlparse(p).path`` gives them
    (paths with ``?``, ``#`` or ``;``, which urlparse splits off, go through urlparse)."""
    from urllib.parse import urlparse

    is_file = pc.starts_with(paths, "file:")
    if not pc.any(is_file).as_py():
        return paths
    odd = pc.match_substring_regex(paths, "[?#;]")
    if pc.any(pc.and_(is_file, odd)).as_py():
        return pa.array([urlparse(p).path if p.startswith("file:") else p
                         for p in paths.to_pylist()], pa.string())
    stripped = pc.replace_substring_regex(paths, "^file:(//[^/]*)?", "")
    return pc.if_else(is_file, stripped, paths)


def _pairs(e, table: int, field_id: int):
    """(entry, value or start, length) of one field's rows of a map, and which entries have
    the key at all; an entry with the key twice has it left out (unknown)."""
    p = e.pairs
    if not hasattr(e, "pair_index"):  # rows sorted by (table, key) once: slices per leaf
        index = p[:, 0] * (1 << 32) + p[:, 2]
        order = np.argsort(index, kind="stable")  # entries stay in order within a key
        e.pairs, e.pair_index = p[order], index[order]
        p = e.pairs
    key = table * (1 << 32) + field_id
    lo, hi = np.searchsorted(e.pair_index, [key, key + 1])
    rows = p[lo:hi]
    entry = rows[:, 1]
    counts = np.bincount(entry, minlength=e.count) if len(entry) else np.zeros(e.count, int)
    once = counts[entry] == 1
    return entry[once], rows[once, 3], rows[once, 4], counts > 0


def _leaf(e, leaf, n, absent):
    col = _Column(n)
    fid = leaf.field_id
    entry, value, _, has_nulls = _pairs(e, NULLS, fid)
    good = value >= 0
    col.nulls[entry[good]] = value[good]
    col.nulls_ok[entry[good]] = True
    if leaf.kind in ("float", "double"):
        entry, value, _, _ = _pairs(e, NANS, fid)
        good = value >= 0
        col.nans[entry[good]] = value[good]
        col.nans_ok[entry[good]] = True
    lo, has_lo = _bounds(e, LOWER, leaf, n, upper=False)
    hi, has_hi = _bounds(e, UPPER, leaf, n, upper=True)
    lo_ok, hi_ok = _valid(lo), _valid(hi)
    if leaf.kind in ("string", "binary"):  # cut bounds never meet (module docstring)
        same = _equal(lo, hi)
        col.lo_ex, col.hi_ex = lo_ok & same, hi_ok & same
    else:
        col.lo_ex, col.hi_ex = lo_ok.copy(), hi_ok.copy()
    if absent is not None and leaf.no_default:
        later = absent(fid)
        if later is not None:
            later = later & (e.records >= 0) & ~has_nulls & ~has_lo & ~has_hi
            if later.any():  # a column added after the file: NULL on every row
                col.nulls[later] = e.records[later]
                col.nulls_ok[later] = True
                col.nans_ok[later] = False
                col.ex_ok[later] = False
                lo, hi = _set_null(lo, later), _set_null(hi, later)
    return col, lo, hi


def bounds_of(e, field_id: int, upper: bool) -> list:
    """One field's lower (or upper) bounds as bytes per file of entries ``e``; None where
    missing or given twice.

    >>> from prunekit.sources.iceberg.entries import Entries
    >>> e = Entries(payload=np.frombuffer(b"ab", np.uint8), count=2,
    ...             pairs=np.array([[2, 1, 7, 0, 2]]))
    >>> bounds_of(e, 7, upper=False)
    [None, b'ab']
    """
    entry, start, length, _ = _pairs(e, UPPER if upper else LOWER, field_id)
    out: list = [None] * e.count
    for i, b in zip(entry.tolist(), gather(e.payload, start, length).to_pylist(), strict=True):
        out[i] = b
    return out


def _valid(a) -> np.ndarray:
    if isinstance(a, tuple):
        return a[1].copy()
    return np.asarray(a.is_valid().to_numpy(zero_copy_only=False), np.bool_)


def _equal(lo, hi) -> np.ndarray:
    eq = pc.equal(lo, hi).fill_null(False)
    return np.asarray(eq.to_numpy(zero_copy_only=False), np.bool_)


def _set_null(a, mask):
    if isinstance(a, tuple):
        v, ok = a
        return v, ok & ~mask
    return pc.if_else(pa.array(mask), pa.nulls(len(a), a.type), a)


def _bounds(e, table, leaf, n, upper):
    """One side's bounds of a leaf: (values, validity) NumPy arrays for integer kinds and
    floats, an Arrow array otherwise; and which files have the key at all."""
    entry, start, length, has = _pairs(e, table, leaf.field_id)
    kind = leaf.kind
    width = _INTS.get(kind)
    if width is not None or kind in ("float", "double", "boolean"):
        return _fixed(e.payload, entry, start, length, kind, n, upper), has
    raw = gather(e.payload, start, length)
    if kind == "string":
        try:
            got = raw.cast(pa.string())
        except pa.ArrowInvalid:  # invalid UTF-8 somewhere: that bound unknown
            got = pa.array([values.decode_bound(kind, b, upper) for b in raw.to_pylist()],
                           pa.string())
    elif kind in ("uuid", "binary") or kind.startswith("fixed["):
        size = 16 if kind == "uuid" else (int(kind[6:-1]) if kind != "binary" else None)
        got = raw if size is None else pc.if_else(pa.array(length == size), raw,
                                                  pa.nulls(len(raw), pa.binary()))
    else:  # decimals: per value (exact precision checks in Python's decimal)
        got = pa.array([values.fit_decimal(values.decode_bound(kind, b, upper), leaf.arrow)
                        for b in raw.to_pylist()], leaf.arrow)
    full = np.full(n, -1, np.int64)
    full[entry] = np.arange(len(entry))
    return got.take(pa.array(full, mask=full < 0)), has


def _fixed(payload, entry, start, length, kind, n, upper):
    """Little-endian fixed-width bounds by NumPy views: (values, validity) per file."""
    if kind in ("float", "double"):
        out = np.zeros(n, np.float64)
    elif kind == "boolean":
        out = np.zeros(n, np.bool_)
    else:
        out = np.zeros(n, np.int64)
    ok = np.zeros(n, np.bool_)
    widths = {"boolean": (1,), "float": (4,), "double": (8, 4), "long": (8, 4)}
    for w in widths.get(kind, (_INTS.get(kind),)):
        sel = length == w
        if not sel.any():
            continue
        raw = payload[start[sel, None] + np.arange(w)]
        if kind == "boolean":
            v = raw[:, 0]
            good = v <= 1
            v = v.astype(np.bool_)
        elif kind in ("float", "double"):
            v = raw.view("<f4" if w == 4 else "<f8").ravel().astype(np.float64)
            good = ~np.isnan(v)
            v = np.where(v == 0, 0.0 if upper else -0.0, v)
        else:
            v = raw.view("<i4" if w == 4 else "<i8").ravel().astype(np.int64)
            good = np.ones(len(v), np.bool_)
        where = entry[sel][good]
        out[where] = v[good]
        ok[where] = True
    return out, ok


def _narrow(col, lo, hi, kind, transform, part_values, rows, rows_known):
    """Intersect a leaf's columns with what each file's partition value says (the rules of
    ``prunekit.sources.iceberg._narrow``)."""
    n = len(part_values)
    ranges = {}
    index = np.empty(n, np.int64)
    table: list = []
    for i, v in enumerate(part_values):
        key = (type(v), v)
        k = ranges.get(key)
        if k is None:
            k = ranges[key] = len(table)
            table.append(v)
        index[i] = k
    null = np.array([v is None for v in table], np.bool_)[index]
    got = [None if v is None else _range(transform, kind, v) for v in table]
    has = np.array([r is not None for r in got], np.bool_)[index]
    # A NULL partition value: the source is NULL on every row.
    wipe = null & rows_known
    if wipe.any():
        lo, hi = _set_null(lo, wipe), _set_null(hi, wipe)
        col.nulls[wipe], col.nulls_ok[wipe] = rows[wipe], True
        col.nans_ok[wipe] = False
        col.ex_ok[wipe] = False
    known = ~null
    col.nulls[known & ~col.nulls_ok] = 0
    col.nulls_ok |= known
    if not has.any():
        return lo, hi
    if isinstance(lo, tuple) and kind in _INTS:
        return _narrow_ints(col, lo, hi, got, index, has)
    return _narrow_objects(col, lo, hi, kind, got, index, has)


def _range(transform, kind, value):
    try:
        return values.partition_range(transform, kind, value)
    except TypeError:  # an unhashable value: not one of a partition's types
        return None


def _narrow_ints(col, lo, hi, got, index, has):
    rlo = np.array([r[0] if r else 0 for r in got], np.int64)[index]
    rhi = np.array([r[1] if r else 0 for r in got], np.int64)[index]
    rex = np.array([bool(r[2]) if r else False for r in got], np.bool_)[index]
    (lv, lok), (hv, hok) = lo, hi
    lo_ex = col.lo_ex & col.ex_ok
    hi_ex = col.hi_ex & col.ex_ok
    take = has & (~lok | (rlo > lv))
    tie = has & lok & (rlo == lv)
    lv, lo_ex = np.where(take, rlo, lv), np.where(take, rex, np.where(tie, lo_ex | rex, lo_ex))
    # Exactness stays unknown (None) only where nothing was assigned.
    ex_set = take | tie
    lok = lok | take
    take = has & (~hok | (hv > rhi))
    tie = has & hok & (rhi == hv)
    hv, hi_ex = np.where(take, rhi, hv), np.where(take, rex, np.where(tie, hi_ex | rex, hi_ex))
    ex_set |= take | tie
    hok = hok | take
    meet = lok & hok & (lv == hv) & (lo_ex != hi_ex)
    lo_ex, hi_ex = lo_ex | meet, hi_ex | meet
    col.lo_ex, col.hi_ex = lo_ex, hi_ex
    col.ex_ok = col.ex_ok | ex_set
    return (lv, lok), (hv, hok)


def _narrow_objects(col, lo, hi, kind, got, index, has):
    """Per file in Python, with the per-file rule itself."""
    lo_list, hi_list = _pylist(lo), _pylist(hi)
    lo_ex = [bool(a) if ok else None for a, ok in zip(col.lo_ex, col.ex_ok, strict=True)]
    hi_ex = [bool(a) if ok else None for a, ok in zip(col.hi_ex, col.ex_ok, strict=True)]
    for i in np.flatnonzero(has).tolist():
        cell = [lo_list[i], hi_list[i], None, None, lo_ex[i], hi_ex[i]]
        values.intersect(cell, kind, got[index[i]])
        lo_list[i], hi_list[i], lo_ex[i], hi_ex[i] = cell[0], cell[1], cell[4], cell[5]
    col.ex_ok = np.array([a is not None for a in lo_ex], np.bool_)
    col.lo_ex = np.array([bool(a) for a in lo_ex], np.bool_)
    col.hi_ex = np.array([bool(a) for a in hi_ex], np.bool_)
    return _from_list(lo_list, lo, kind), _from_list(hi_list, hi, kind)


def _pylist(a) -> list:
    if isinstance(a, tuple):
        v, ok = a
        return [x if k else None for x, k in zip(v.tolist(), ok.tolist(), strict=True)]
    return a.to_pylist()


def _from_list(items, like, kind):
    if isinstance(like, tuple):
        ok = np.array([x is not None for x in items], np.bool_)
        v = np.array([x if x is not None else 0 for x in items], like[0].dtype)
        return v, ok
    return pa.array(items, like.type)


def _struct(col, lo, hi, leaf) -> pa.StructArray:
    t = leaf.arrow
    lo_a, hi_a = _arrow(lo, t), _arrow(hi, t)
    float_kind = leaf.kind in ("float", "double")
    nans = pa.array(col.nans, pa.int64(), mask=~(col.nans_ok & float_kind))
    return pa.StructArray.from_arrays(
        [lo_a, hi_a, pa.array(col.nulls, pa.int64(), mask=~col.nulls_ok), nans,
         pa.array(col.lo_ex, pa.bool_(), mask=~col.ex_ok),
         pa.array(col.hi_ex, pa.bool_(), mask=~col.ex_ok)], values.FIELDS)


def _arrow(a, t: pa.DataType) -> pa.Array:
    if not isinstance(a, tuple):
        return a
    v, ok = a
    if pa.types.is_temporal(t):
        width = pa.int32() if t == pa.date32() else pa.int64()
        return pa.array(v, mask=~ok).cast(width).view(t)
    return pa.array(v, mask=~ok).cast(t)
