"""Footer bytes of many files to the canonical statistics table, one row per row group.

One walk over all footers concatenated (``thrift_footer``), Python per distinct schema
and per distinct writer (``footer_schema``), then per (group of files alike, column) vectorised
decoding (``footer_values``): no Python object per row group or statistic. Files are alike
when they share the schema bytes, the column orders and the writer rules; a dataset written by
one job is one group.

Which statistics are usable follows pyarrow's reader (parquet-cpp), which the previous reader
went through: a chunk's statistics (null count included) are hidden when the column's sort
order is unknown or the writer is known to be wrong for it (``footer_schema.writer``);
``min_value``/``max_value`` are read when the column order is type-defined, each on its own
(where pyarrow's reader needs both), the deprecated ``min``/``max`` otherwise (then only for
signed orders, ``footer_types.decoder``).
"""

from __future__ import annotations

import numpy as np
import pyarrow as pa

from prunekit.errors import StatisticsError
from prunekit.expr.paths import leaf_selector, split_leaf_key

from ..jit import pick
from . import footer_schema as fs
from . import footer_values as fv
from . import thrift_footer as tf
from .footer_types import bytes_like, decoder, unify

_PAD = 64  # zero bytes after the last footer: fixed-width gathers of rows without a value
_ARROW_KEY = np.frombuffer(b"ARROW:schema", np.uint8)
_PLANS: dict = {}  # (schema bytes, ARROW:schema bytes) -> Plan, across calls
_WRITERS: dict = {}  # created_by bytes -> Writer


def statistics_table(files: list[str], footers: list[bytes], columns=None,
                     bytes_column: str | None = None) -> pa.Table:
    """The statistics table of ``files`` from their footers' Thrift bytes; ``columns``: only
    those leaves (``prunekit.expr.paths.leaf_selector``), None for all; ``bytes_column``: also
    a column of that name, each row group's compressed bytes (its column chunks')."""
    wanted = leaf_selector(columns)
    if len(_PLANS) > 1024:  # many distinct schemas over a long session: start afresh
        _PLANS.clear()
        _WRITERS.clear()
    lengths = np.fromiter((len(b) for b in footers), np.int64, len(footers))
    ends = np.cumsum(lengths)
    starts = ends - lengths
    buf = np.frombuffer(b"".join(footers) + bytes(_PAD), np.uint8)
    # A few footers are walked in Python, many by Numba (see prunekit.sources.jit).
    walk = pick(tf.walk, buf.size)
    ftab, elements, orders, rgs, chunks = walk(buf, starts, ends, _ARROW_KEY)
    bad = np.flatnonzero(ftab[:, tf.F_ERROR])
    if bad.size:
        f = int(bad[0])
        raise StatisticsError(
            f"{files[f]}: cannot read the Parquet footer: {tf.ERRORS[int(ftab[f, tf.F_ERROR])]}"
            f" (at byte {int(ftab[f, tf.F_ERROR_POS] - starts[f])} of {int(lengths[f])})")
    groups, keys, plans = _groups(files, buf, ftab, elements, orders)
    n_leaves = np.array([plans[g].n_leaves for g in groups], np.int64)
    rg_file = rgs[:, tf.R_FILE]
    wrong = np.flatnonzero(rgs[:, tf.R_N_CHUNKS] != n_leaves[rg_file]) if len(files) else []
    if len(wrong):
        r = int(wrong[0])
        raise StatisticsError(f"{files[rg_file[r]]}: corrupt Parquet footer (a row group has "
                              f"{rgs[r, tf.R_N_CHUNKS]} column chunks, the schema "
                              f"{n_leaves[rg_file[r]]} leaves)")
    seen: dict = {}
    for f, g in enumerate(groups):
        if id(plans[g]) not in seen:
            seen[id(plans[g])] = (files[f], {k: t for k, t in plans[g].types.items()
                                             if wanted(k)})
    types = unify(seen.values())
    n = len(rgs)
    columns = {
        # By NumPy: Array.take would import pyarrow.compute (50 ms of a one-file scan).
        "file": pa.array(np.array(files, object)[rg_file], pa.string()),
        "row_group": pa.array((np.arange(n) - ftab[rg_file, tf.F_FIRST_RG]).astype(np.int32)),
        "row_count": pa.array(rgs[:, tf.R_NUM_ROWS], pa.int64(),
                              mask=rgs[:, tf.R_NUM_ROWS_SET] == 0),
    }
    parts: dict[str, list] = {key: [] for key in types}
    rg_group = np.asarray(groups, np.int64)[rg_file] if n else np.zeros(0, np.int64)
    for g, (plan, typed, who) in enumerate(keys):
        rows = np.flatnonzero(rg_group == g)
        if rows.size == 0:
            continue
        for leaf in plan.leaves:
            if leaf.key not in types:
                continue  # not asked for
            idx = rgs[rows, tf.R_FIRST_CHUNK] + leaf.index
            parts[leaf.key].append((rows, _column(buf, chunks[idx], leaf, int(typed[leaf.index]),
                                                  who, types[leaf.key])))
        for key, t in types.items():
            if key not in plan.types and split_leaf_key(key)[0].lower() not in plan.top_level:
                parts[key].append((rows, _absent(rgs[rows], t)))
    for key, t in types.items():
        columns[key] = _assemble(parts[key], t, n)
    if bytes_column is not None:
        if bytes_column in columns:
            raise StatisticsError(f"bytes_column {bytes_column!r} is the name of a column the "
                                  "statistics already have")
        sizes = np.zeros(n, np.int64)
        np.add.at(sizes, chunks[:, tf.C_RG], chunks[:, tf.C_COMPRESSED])
        columns[bytes_column] = pa.array(sizes)
    return pa.table(columns)


def _groups(files, buf, ftab, elements, orders):
    """Per file its group; per group (plan, typed order per leaf, writer); the plans."""
    index: dict = {}
    keys: list = []
    groups: list[int] = []
    for f in range(len(files)):
        row = ftab[f]
        schema = buf[row[tf.F_SCHEMA_START]:row[tf.F_SCHEMA_END]].tobytes()
        arrow = None if row[tf.F_ARROW_LEN] < 0 else \
            buf[row[tf.F_ARROW_OFF]:row[tf.F_ARROW_OFF] + row[tf.F_ARROW_LEN]].tobytes()
        plan = _PLANS.get((schema, arrow))
        if plan is None:
            e = elements[row[tf.F_FIRST_ELEMENT]:row[tf.F_FIRST_ELEMENT] + row[tf.F_N_ELEMENTS]]
            names = [(buf[o:o + ln].tobytes(), c, r) for o, ln, c, r in
                     e[:, [tf.S_NAME_OFF, tf.S_NAME_LEN, tf.S_CHILDREN, tf.S_REPETITION]]]
            plan = _PLANS[(schema, arrow)] = fs.plan(files[f], schema, arrow, names)
        count = row[tf.F_ORDERS_COUNT]
        if count < 0:
            typed = bytes(8 * plan.n_leaves)  # ORDER_NONE: deprecated bounds only
        elif count == plan.n_leaves:
            typed = orders[row[tf.F_ORDERS_FIRST]:row[tf.F_ORDERS_FIRST] + count].tobytes()
        else:  # orders that do not match the leaves: no bound is trusted
            typed = np.full(plan.n_leaves, tf.ORDER_UNKNOWN, np.int64).tobytes()
        created = None if row[tf.F_CREATED_LEN] < 0 else \
            buf[row[tf.F_CREATED_OFF]:row[tf.F_CREATED_OFF] + row[tf.F_CREATED_LEN]].tobytes()
        who = _WRITERS.get(created)
        if who is None:
            who = _WRITERS[created] = fs.writer(created)
        key = (id(plan), typed, who)
        if key not in index:
            index[key] = len(keys)
            keys.append((plan, np.frombuffer(typed, np.int64), who))
        groups.append(index[key])
    plans = [k[0] for k in keys]
    return groups, keys, plans


def _column(buf, ch, leaf: fs.Leaf, order: int, who: fs.Writer, t: pa.DataType) -> dict:
    """min, max, null_count, min_exact, max_exact of one leaf over some row groups."""
    phys = fs.PHYSICAL.index(leaf.column.physical_type)
    ch = np.asfortranarray(ch)  # contiguous columns for NumPy and Numba
    floating = pa.types.is_floating(t)
    if order == tf.ORDER_TOTAL and not floating:
        order = tf.ORDER_UNKNOWN  # the total order is for floats only: a writer's mistake
    # IEEE 754 total order: min_value/max_value bound the non-NaN values (NaN only when every
    # value is, and NaN bounds are dropped when decoded), as under the type-defined order.
    typed = order in (tf.ORDER_TYPE_DEFINED, tf.ORDER_TOTAL)
    if typed:
        min_off, min_len, max_off, max_len = (ch[:, tf.C_MINV_OFF], ch[:, tf.C_MINV_LEN],
                                              ch[:, tf.C_MAXV_OFF], ch[:, tf.C_MAXV_LEN])
        min_flag, max_flag = ch[:, tf.C_MIN_EXACT], ch[:, tf.C_MAX_EXACT]
    else:
        min_off, min_len, max_off, max_len = (ch[:, tf.C_MIN_OFF], ch[:, tf.C_MIN_LEN],
                                              ch[:, tf.C_MAX_OFF], ch[:, tf.C_MAX_LEN])
        min_flag = max_flag = np.full(len(ch), -1, np.int64)  # exactness is for *_value only
    # A chunk's statistics are there (the type agrees with the schema; encrypted columns'
    # are redacted) and pyarrow's reader would trust them (sort order and writer version).
    usable = (ch[:, tf.C_HAS_META] == 1) & (ch[:, tf.C_HAS_STATS] == 1) & \
        (ch[:, tf.C_CRYPTO] == 0) & (ch[:, tf.C_TYPE] == phys)
    usable &= _writer_trusts(who, leaf.sort_order, phys, buf, min_off, min_len, max_off,
                             max_len)
    nulls = pa.array(ch[:, tf.C_NULLS], pa.int64(), mask=~(usable & (ch[:, tf.C_NULLS_SET] == 1)))
    counts = {"null_count": nulls}
    if floating:  # nan_count (format 2.13): without it, a NaN may be present (§4)
        nans = usable & (ch[:, tf.C_NANS_SET] == 1) & (ch[:, tf.C_NANS] >= 0)
        counts["nan_count"] = pa.array(ch[:, tf.C_NANS], pa.int64(), mask=~nans)
    spec = None if order == tf.ORDER_UNKNOWN else decoder(leaf.column, leaf.type, typed)
    # Each of min_value and max_value stands alone: parquet-cpp's writer drops one longer than
    # 4 KB and keeps the other (its reader then hides both; DataFusion prunes on the one).
    # The deprecated pair is read only whole.
    has_min, has_max = usable & (min_len >= 0), usable & (max_len >= 0)
    if not typed:
        has_min = has_max = has_min & has_max
    if spec is None or pa.types.is_null(t):
        lo = hi = pa.nulls(len(ch), t)
    else:
        lo = fv.decode(spec, leaf.type, buf, min_off, min_len, has_min, False)
        hi = fv.decode(spec, leaf.type, buf, max_off, max_len, has_max, True)
        if lo.type != t:
            lo, hi = lo.cast(t), hi.cast(t)
    if not bytes_like(t):
        # Only byte arrays carry exactness in the layout (so every file's table has the same
        # columns, which spark_glue relies on); a bound its writer marks inexact (none do
        # today) is dropped rather than taken for a value.
        inexact = (min_flag == 0) | (max_flag == 0)
        if inexact.any():
            import pyarrow.compute as pc  # 50 ms to import: only for this rare case

            lo, hi = (pc.if_else(pa.array(inexact), pa.nulls(len(ch), t), a) for a in (lo, hi))
        return {"min": lo, "max": hi, **counts}
    min_known, max_known = np.asarray(lo.is_valid()), np.asarray(hi.is_valid())
    # Writers may truncate long values into wider bounds: a bound is a value only when the
    # writer says so or the pair meets (then it is the only value).
    same = _bytes_equal(buf, min_off, min_len, max_off, max_len) & min_known & max_known
    min_exact = (min_flag == 1) | ((min_flag != 0) & same)
    max_exact = (max_flag == 1) | ((max_flag != 0) & same)
    return {"min": lo, "max": hi, "null_count": nulls,
            "min_exact": pa.array(min_exact, pa.bool_(), mask=~min_known),
            "max_exact": pa.array(max_exact, pa.bool_(), mask=~max_known)}


def _absent(groups: np.ndarray, t: pa.DataType) -> dict:
    """A column these files do not have (added to the dataset later): NULL in every row, as
    Spark reads it. Only where no top-level column of the file has the name in any case
    (Spark matches names case-insensitively), so a renamed case or a type clash is unknown."""
    n = len(groups)
    rows = pa.array(groups[:, tf.R_NUM_ROWS], pa.int64(), mask=groups[:, tf.R_NUM_ROWS_SET] == 0)
    out = {"min": pa.nulls(n, t), "max": pa.nulls(n, t), "null_count": rows}
    if pa.types.is_floating(t):
        out["nan_count"] = pa.array(np.zeros(n, np.int64), mask=~np.asarray(rows.is_valid()))
    if bytes_like(t):
        out["min_exact"] = out["max_exact"] = pa.nulls(n, pa.bool_())
    return out


def _writer_trusts(who, order, phys, buf, min_off, min_len, max_off, max_len):
    """parquet-cpp's ``ApplicationVersion::HasCorrectStatistics`` per chunk."""
    ok = np.ones(len(min_off), bool)
    if order == fs.UNKNOWN:
        return ~ok
    if who.old:
        if order != fs.SIGNED:  # unsigned orders only when min == max (order does not matter)
            ok = _bytes_equal(buf, min_off, min_len, max_off, max_len)
        if fs.PHYSICAL[phys] not in ("BYTE_ARRAY", "FIXED_LEN_BYTE_ARRAY"):
            return ok
    if who.unknown:
        return ok
    return ok & (not who.pre_251)


def _bytes_equal(buf, min_off, min_len, max_off, max_len) -> np.ndarray:
    compared = int(np.maximum(min_len, 0).sum())
    return pick(tf.bytes_equal, compared)(buf, min_off, min_len, max_off, max_len)


def _assemble(parts: list, t: pa.DataType, n: int) -> pa.StructArray:
    """One struct column over all row groups from per-group parts; unknown where no part."""
    names = ["min", "max", "null_count"] + (["min_exact", "max_exact"] if bytes_like(t) else []) \
        + (["nan_count"] if pa.types.is_floating(t) else [])
    blank = {"min": pa.nulls(1, t), "max": pa.nulls(1, t), "null_count": pa.nulls(1, pa.int64()),
             "nan_count": pa.nulls(1, pa.int64()), "min_exact": pa.nulls(1, pa.bool_()),
             "max_exact": pa.nulls(1, pa.bool_())}
    if len(parts) == 1 and len(parts[0][0]) == n:
        return pa.StructArray.from_arrays([parts[0][1][k] for k in names], names)
    take = np.full(n, sum(len(r) for r, _ in parts), np.int64)  # the blank row
    at = 0
    for rows, _ in parts:
        take[rows] = np.arange(at, at + len(rows))
        at += len(rows)
    arrays = [pa.concat_arrays([p[k] for _, p in parts] + [blank[k]]).take(pa.array(take))
              for k in names]
    return pa.StructArray.from_arrays(arrays, names)
