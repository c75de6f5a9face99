"""One data file's statistics from pyiceberg's manifest entry (the reader for what the
columnar decoder does not handle, and the reference the tests compare it with): bounds
decoded, narrowed by the partition values, and weakened by the delete files that apply.
"""

from __future__ import annotations

import functools
from urllib.parse import unquote

from . import values
from .deletes import partition_key
from .layout import local_path


def file_row(entry, f, spec_id, plan, leaves, index, written, spec, schema,
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
    part = partition_text(spec, schema, partition, spec_id, texts)
    return local_path(path), f.file_size_in_bytes, part, deletes, None if deletes else rows, cells


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


def partition_text(spec, schema, partition, spec_id, texts: dict) -> str | None:
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
