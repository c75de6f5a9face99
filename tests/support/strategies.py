"""Hypothesis strategies: schemas, containers of rows, their statistics, predicates.

``examples()`` draws one complete case for the soundness property: a schema of 1-4 columns,
several containers of 0-8 rows whose values sit on the edges of their types, statistics derived
from those rows in prunekit's canonical layout (sometimes degraded, always soundly: a degraded
statistic is still true of the rows), and a predicate from the whole grammar whose literals sit
near the generated values.

Drawing is most of a property test's time, so strategies are built once: the helpers below
take ``draw`` and draw from strategies kept per type or per length (``pick``), rather than each
being a composite strategy built anew for every draw.

Rows use the representation of ``tests/support/reference.py`` (dates as days, timestamps as counts
of the column's unit).
"""

from __future__ import annotations

import datetime as dt
import decimal
import functools
import math
from dataclasses import dataclass, field

import numpy as np
import pyarrow as pa
from hypothesis import strategies as st

import prunekit as pk
from prunekit.expr.paths import leaf_key
from prunekit.expr.spark_types.coercion import literal_type
from prunekit.expr.syntax import nodes as n
from tests.support import reference as ref

D = decimal.Decimal
CTX = decimal.Context(prec=120)
INF, NAN = math.inf, math.nan

INT_TYPES = [pa.int8(), pa.int16(), pa.int32(), pa.int64(),
             pa.uint8(), pa.uint16(), pa.uint32(), pa.uint64()]
FLOAT_TYPES = [pa.float32(), pa.float64()]
BYTES_TYPES = [pa.string(), pa.large_string(), pa.binary()]
TS_UNITS = ["s", "ms", "us", "ns"]
TIME_ZONES = [None, "UTC", "-08:00"]
COLUMN_NAMES = ["a", "b", "c", "d", "x y", "order", "é"]  # some need quoting in SQL

# Types a Spark SQL CAST can name without losing anything (for the SQL round trip).
SPARK_TYPES = [pa.int8(), pa.int16(), pa.int32(), pa.int64(), pa.float32(), pa.float64(),
               pa.string(), pa.binary(), pa.bool_(), pa.date32(), pa.timestamp("us", "UTC"),
               pa.timestamp("us")]

_DT_MIN_US = (dt.datetime(1, 1, 1) - dt.datetime(1970, 1, 1)) // dt.timedelta(microseconds=1)
_DT_MAX_US = (dt.datetime(9999, 12, 31, 23, 59, 59, 999999) - dt.datetime(1970, 1, 1)) // \
    dt.timedelta(microseconds=1)
_DATE_MIN, _DATE_MAX = -719_162, 2_932_896  # 0001-01-01 and 9999-12-31 as days
_MS_PER_DAY = 86_400_000
OFFSETS = [dt.timezone.utc, dt.timezone(dt.timedelta(hours=5, minutes=30)),
           dt.timezone(dt.timedelta(hours=-8))]


# ---- types ---------------------------------------------------------------------------------
@functools.cache
def _indexes(k: int) -> st.SearchStrategy[int]:
    return st.integers(0, k - 1)


def pick(draw, seq):
    """One element of the non-empty ``seq`` (``st.sampled_from`` without a new strategy per
    draw; it shrinks towards the first element too)."""
    return seq[draw(_indexes(len(seq)))]


def one_in(draw, k: int) -> bool:
    """True with probability 1/k (drawn as a middle value: hypothesis favours the ends)."""
    return draw(st.integers(1, k)) == (k + 1) // 2


# Decimals of precision <= 18 (int64 unscaled in kernels) and > 18 (ranked codes).
DECIMAL_TYPES = [pa.decimal128(p, s) for p, s in [(1, 0), (3, 1), (5, 5), (9, 2), (18, 0),
                                                  (18, 4), (19, 0), (20, 2), (28, 0), (29, 3),
                                                  (38, 0), (38, 10)]]
TYPES = (INT_TYPES + FLOAT_TYPES * 4 + BYTES_TYPES * 2 + [pa.bool_()] * 2 +
         [pa.date32(), pa.date64()] + DECIMAL_TYPES +
         [pa.timestamp(u, tz) for u in TS_UNITS for tz in TIME_ZONES[:2]] +
         [pa.timestamp(u, "-08:00") for u in ("ms", "ns")])


def data_types() -> st.SearchStrategy[pa.DataType]:
    return st.sampled_from(TYPES)


def schemas() -> st.SearchStrategy[pa.Schema]:
    size = st.sampled_from([1, 1, 2, 2, 3, 4])  # few columns: each is used more often
    names = size.flatmap(lambda k: st.lists(st.sampled_from(COLUMN_NAMES), min_size=k,
                                            max_size=k, unique=True))
    return names.flatmap(lambda ns: st.lists(data_types(), min_size=len(ns), max_size=len(ns))
                         .flatmap(_pair_up).map(lambda ts: pa.schema(list(zip(ns, ts,
                                                                               strict=True)))))


def _pair_up(ts: list) -> st.SearchStrategy[list]:
    """Often make the last column comparable with the first (same type or family), so that
    column-vs-column comparisons are common."""
    if len(ts) < 2:
        return st.just(ts)
    same_family = [t for t in TYPES if cmp_family(t) == cmp_family(ts[0])]
    last = st.one_of(st.just(ts[-1]), st.just(ts[0]), st.sampled_from(same_family))
    return last.map(lambda t: ts[:-1] + [t])


# ---- values (row representation) -----------------------------------------------------------
def int_bounds(t: pa.DataType) -> tuple[int, int]:
    if pa.types.is_date32(t):
        return -(2**31), 2**31 - 1
    if pa.types.is_date64(t):
        return -(2**63) // _MS_PER_DAY + 1, (2**63 - 1) // _MS_PER_DAY
    if pa.types.is_timestamp(t):
        return -(2**63), 2**63 - 1
    return ref.int_range(t)


def f32(x: float) -> float:
    return ref.round_f32(x)


def float_values(t: pa.DataType) -> st.SearchStrategy[float]:
    if t == pa.float32():
        big, tiny = float(np.finfo(np.float32).max), float(np.finfo(np.float32).smallest_subnormal)
        special = [0.0, -0.0, 1.0, -1.0, 0.5, 1.5, 2.0**24, 2.0**24 + 2, INF, -INF, big, -big,
                   tiny, f32(0.1), 3.0]
        return st.one_of(st.sampled_from(special), st.floats(width=32, allow_nan=False),
                         st.integers(-3, 3).map(float))
    big = float(np.finfo(np.float64).max)
    special = [0.0, -0.0, 1.0, -1.0, 0.5, 1.5, 2.0**53, 2.0**53 + 2, INF, -INF, big, -big,
               5e-324, 0.1, 3.0, 2.0**63]
    return st.one_of(st.sampled_from(special), st.floats(allow_nan=False),
                     st.integers(-3, 3).map(float))


def spread_integers(lo: int, hi: int) -> st.SearchStrategy[int]:
    """Integers in [lo, hi] with every magnitude equally likely (hypothesis's own integers
    favour small ones): wide decimals and int64 need values with all their digits."""
    width = len(str(max(abs(lo), abs(hi))))

    def of_width(k: int) -> st.SearchStrategy[int]:
        magnitude = st.integers(10 ** (k - 1) if k > 1 else 0, 10**k - 1)
        return st.builds(lambda m, neg: min(hi, max(lo, -m if neg else m)), magnitude,
                         st.booleans())

    return st.integers(1, width).flatmap(of_width)


def decimal_values(t: pa.DataType) -> st.SearchStrategy[D]:
    top = 10**t.precision - 1
    digits = int(("1234567890" * 4)[: t.precision])  # every digit significant
    special = [0, 1, -1, top, -top, 10**t.scale, -(10**t.scale), top - 1, 5, 15, digits,
               -digits, digits + 1]
    unscaled = st.one_of(st.sampled_from([v for v in special if abs(v) <= top]),
                         spread_integers(-top, top), st.integers(max(-top, -20), min(top, 20)))
    return unscaled.map(lambda u: D(u).scaleb(-t.scale, context=CTX))


@functools.cache
def string_values() -> st.SearchStrategy[str]:
    alphabet = st.sampled_from(["a", "b", "c", "z", "A", "%", "_", "\\", "!", "é", "€",
                                "\U0001f600", "\x00", "\x7f", "\uffff", "\U0010ffff"])
    text = st.text(alphabet, max_size=4)
    prefix = st.sampled_from(["", "", "ab", "abc", "é", "a\U0010ffff"])
    return st.builds(lambda p, s: p + s, prefix, text)


@functools.cache
def binary_values() -> st.SearchStrategy[bytes]:
    byte = st.sampled_from([0x00, 0x01, 0x61, 0x62, 0x7F, 0x80, 0xC3, 0xFE, 0xFF])
    body = st.lists(byte, max_size=4).map(bytes)
    prefix = st.sampled_from([b"", b"", b"ab", b"\xff\xff", b"\x00"])
    return st.builds(lambda p, s: p + s, prefix, body)


def temporal_values(t: pa.DataType) -> st.SearchStrategy[int]:
    lo, hi = int_bounds(t)
    if pa.types.is_date(t):
        special = [0, -1, 1, 18_262, 18_263, _DATE_MIN, _DATE_MAX, lo, hi]
        return st.one_of(st.sampled_from(special), st.integers(_DATE_MIN, _DATE_MAX),
                         st.integers(lo, hi), st.integers(18_250, 18_270))
    per_s = 10**9 // ref.NS_PER_UNIT[t.unit]
    day = 86_400 * per_s
    y2020 = 18_262 * day
    special = [0, -1, 1, day, -day, y2020, y2020 - 1, y2020 + 1, lo, hi]
    datetime_range = st.integers(max(lo, _DT_MIN_US * per_s // 10**6),
                                 min(hi, _DT_MAX_US * per_s // 10**6))
    near_days = st.builds(lambda d, k: d * day + k, st.integers(18_260, 18_264),
                          st.sampled_from([0, 1, -1, day // 2, per_s]))
    return st.one_of(st.sampled_from(special), datetime_range, near_days, st.integers(lo, hi))


@functools.cache
def values(t: pa.DataType) -> st.SearchStrategy:
    """Non-NULL, non-NaN values of type ``t`` that exercise its edges."""
    if pa.types.is_integer(t):
        lo, hi = ref.int_range(t)
        special = [lo, lo + 1, hi - 1, hi, 0, 1, -1, 2, 100, 2**53 - 1, 2**53, 2**53 + 1,
                   2**31, -(2**31) - 1, 2**63 - 1, 2**63]
        return st.one_of(st.sampled_from([v for v in special if lo <= v <= hi]),
                         spread_integers(lo, hi), st.integers(max(lo, -3), 10))
    if pa.types.is_floating(t):
        return float_values(t)
    if pa.types.is_decimal(t):
        return decimal_values(t)
    if ref.is_text(t):
        return string_values()
    if ref.is_bin(t):
        return binary_values()
    if pa.types.is_boolean(t):
        return st.booleans()
    return temporal_values(t)


def is_nan(v: object) -> bool:
    return isinstance(v, float) and v != v


# ---- containers ----------------------------------------------------------------------------
def column_cells(draw, t: pa.DataType, palette: list, size: int) -> list:
    mode = pick(draw, ["mixed", "mixed", "mixed", "constant", "no_null", "all_null"])
    if mode == "all_null":
        return [None] * size
    if mode == "constant":
        v = pick(draw, palette)
        return [v] * size
    floating = pa.types.is_floating(t)
    cells = []
    for _ in range(size):
        k = draw(st.integers(0, 9))
        if k <= 1 and mode == "mixed":
            cells.append(None)
        elif k == 2 and floating:
            cells.append(NAN)
        else:
            cells.append(pick(draw, palette))
    return cells


# ---- statistics ----------------------------------------------------------------------------
def _lower(draw, v, t: pa.DataType):
    """A value <= v (a sound but inexact min)."""
    if pa.types.is_boolean(t):
        return False
    if pa.types.is_integer(t) or pa.types.is_date(t) or pa.types.is_timestamp(t):
        lo = int_bounds(t)[0]
        return max(lo, v - pick(draw, [1, 7, 10**6, 2**70]))
    if pa.types.is_floating(t):
        if draw(st.booleans()):
            return -INF
        if t == pa.float32():
            with np.errstate(over="ignore"):
                return float(np.nextafter(np.float32(v), np.float32(-INF)))
        return math.nextafter(v, -INF)
    if pa.types.is_decimal(t):
        ulp = D(1).scaleb(-t.scale)
        bottom = CTX.multiply(-(10**t.precision - 1), ulp)
        return max(bottom, CTX.subtract(v, CTX.multiply(pick(draw, [1, 3, 10**40]),
                                                        ulp)))
    k = draw(st.integers(0, max(0, len(v) - 1)))
    return v[:k]  # a truncated prefix sorts first


def _raise(draw, v, t: pa.DataType):
    """A value >= v (a sound but inexact max)."""
    if pa.types.is_boolean(t):
        return True
    if pa.types.is_integer(t) or pa.types.is_date(t) or pa.types.is_timestamp(t):
        hi = int_bounds(t)[1]
        return min(hi, v + pick(draw, [1, 7, 10**6, 2**70]))
    if pa.types.is_floating(t):
        if draw(st.booleans()):
            return INF
        if t == pa.float32():
            with np.errstate(over="ignore"):
                return float(np.nextafter(np.float32(v), np.float32(INF)))
        return math.nextafter(v, INF)
    if pa.types.is_decimal(t):
        ulp = D(1).scaleb(-t.scale)
        top = CTX.multiply(10**t.precision - 1, ulp)
        return min(top, CTX.add(v, CTX.multiply(pick(draw, [1, 3, 10**40]), ulp)))
    if ref.is_text(t):
        how = draw(st.integers(0, 2))
        if how == 0 or not v:
            return v + pick(draw, ["z", "\U0010ffff", "\x00"])
        k = draw(st.integers(1, len(v)))
        last = ord(v[k - 1])
        if last >= 0x10FFFF:
            return v + "a"
        nxt = last + 1 if not 0xD800 <= last + 1 <= 0xDFFF else 0xE000
        return v[: k - 1] + chr(nxt)  # truncated and incremented, as Parquet writers do
    if not v or draw(st.booleans()):
        return v + b"\xff"
    stripped = v.rstrip(b"\xff")
    if not stripped:
        return v + b"\x00"
    return stripped[:-1] + bytes([stripped[-1] + 1])


def _order_key(v, t: pa.DataType):
    return v.encode("utf-8") if ref.is_text(t) else v


def _flip_zero(draw, v):
    if isinstance(v, float) and v == 0:
        return pick(draw, [0.0, -0.0])
    return v


@dataclass
class ColumnStats:
    mins: list = field(default_factory=list)
    maxs: list = field(default_factory=list)
    nulls: list = field(default_factory=list)
    nans: list = field(default_factory=list)
    min_exact: list = field(default_factory=list)
    max_exact: list = field(default_factory=list)
    struct_null: list = field(default_factory=list)


def exact_stats(cells: list, t: pa.DataType, include: bool) -> tuple:
    """(min, max, null_count, nan_count) of one column of one container, exactly."""
    present = [v for v in cells if v is not None]
    numbers = [v for v in present if not is_nan(v)]
    nan_count = len(present) - len(numbers)
    lo = min(numbers, key=lambda v: _order_key(v, t)) if numbers else None
    hi = max(numbers, key=lambda v: _order_key(v, t)) if numbers else None
    if include and nan_count:  # NaN is the greatest value when bounds include it
        hi = NAN
        if lo is None:
            lo = NAN
    return lo, hi, len(cells) - len(present), nan_count


def container_stats(draw, cells: list, t: pa.DataType, include: bool, row_count_known: bool,
                    degrade: bool, out: ColumnStats) -> None:
    """Append one container's statistics of one column to ``out``."""
    floating = pa.types.is_floating(t)
    lo, hi, null_count, nans = exact_stats(cells, t, include)
    lo, hi = _flip_zero(draw, lo), _flip_zero(draw, hi)
    lo_exact = hi_exact = True
    if degrade:
        what = draw(st.sets(st.sampled_from(
            ["min_null", "max_null", "lower", "raise", "nulls", "nans", "swap", "nan_bound",
             "flags_null", "struct_null"]), max_size=3))
        if "lower" in what and lo is not None and not is_nan(lo):
            lo, lo_exact = _lower(draw, lo, t), False
        if "raise" in what and hi is not None:
            if include and floating and draw(st.booleans()):
                hi, hi_exact = NAN, False  # "may hold NaN" is always true of the rows
            elif not is_nan(hi):
                hi, hi_exact = _raise(draw, hi, t), False
        if "min_null" in what:
            lo = None
        if "max_null" in what:
            hi = None
        if "nan_bound" in what and floating and not include:
            if draw(st.booleans()):
                lo = NAN  # a NaN bound where bounds exclude NaN is unknown (§4)
            else:
                hi = NAN
        elif "swap" in what and lo is not None and hi is not None and not is_nan(lo) and not \
                is_nan(hi) and _order_key(lo, t) < _order_key(hi, t):
            lo, hi = hi, lo  # min > max: both unknown (docs/semantics.md §1)
        if "nulls" in what:
            choices = [None, -1] + ([len(cells) + 3] if row_count_known else [])
            null_count = pick(draw, choices)
        if "nans" in what:
            nans = None
        if "flags_null" in what:  # unknown exactness
            lo_exact = None if draw(st.booleans()) else lo_exact
            hi_exact = None if draw(st.booleans()) else hi_exact
        if "struct_null" in what:
            out.struct_null.append(True)
            lo = hi = null_count = nans = None
        else:
            out.struct_null.append(False)
    else:
        out.struct_null.append(False)
    out.mins.append(lo)
    out.maxs.append(hi)
    out.nulls.append(null_count)
    out.nans.append(nans)
    out.min_exact.append(lo_exact)
    out.max_exact.append(hi_exact)


def arrow_array(vals: list, t: pa.DataType) -> pa.Array:
    if pa.types.is_date64(t):
        vals = [None if v is None else v * _MS_PER_DAY for v in vals]
    return pa.array(vals, t)


def struct_array(cs: ColumnStats, t: pa.DataType, with_nan: bool, with_flags: bool
                 ) -> pa.StructArray:
    arrays = [arrow_array(cs.mins, t), arrow_array(cs.maxs, t), pa.array(cs.nulls, pa.int64())]
    names = ["min", "max", "null_count"]
    if with_nan:
        arrays.append(pa.array(cs.nans, pa.int64()))
        names.append("nan_count")
    if with_flags:
        arrays += [pa.array(cs.min_exact, pa.bool_()), pa.array(cs.max_exact, pa.bool_())]
        names += ["min_exact", "max_exact"]
    mask = pa.array(cs.struct_null, pa.bool_()) if any(cs.struct_null) else None
    return pa.StructArray.from_arrays(arrays, names, mask=mask)


def _domain(v, t: pa.DataType):
    """A row value as the kernels' domain value (what bloom filters hash)."""
    return v.encode() if isinstance(v, str) else v


def with_value_sets(draw, struct: pa.StructArray, cells: list, t: pa.DataType, palette: list,
                    degrade: bool) -> pa.StructArray:
    """``struct`` with a ``values`` list and/or a ``bloom`` filter derived from each container's
    rows. Per container: unknown (NULL), exact, or when degraded a superset (still true: the
    rows hold only listed values), a filter with extra values, or a malformed filter."""
    from prunekit.kernels.bloomfilter import empty, insert
    from prunekit.kernels.valuesets import literal_hashes

    lists, blooms = [], []
    for rows in cells:
        present = [v for v in rows if v is not None]
        listed = list(dict.fromkeys(present if not any(is_nan(v) for v in present) else
                                    [v for v in present if not is_nan(v)] + [NAN]))
        extra = [pick(draw, palette) for _ in range(draw(st.integers(0, 2)))] if degrade else []
        k = draw(st.integers(0, 5))
        lists.append(None if k == 0 else listed + extra + ([None] if k == 1 else []))
        # NaN has no hash a filter may rule out; its rows are not inserted (writers differ).
        hashes = literal_hashes(tuple(_domain(v, t) for v in listed + extra if not is_nan(v)),
                                t)
        k = draw(st.integers(0, 5))
        if hashes is None or k == 0:
            blooms.append(None)
        elif k == 1 and degrade:
            blooms.append(b"\xff" * pick(draw, [0, 31, 33]))  # malformed: unknown
        else:
            blooms.append(insert(empty(pick(draw, [1, 2, 5])), hashes))
    names = [struct.type.field(i).name for i in range(struct.type.num_fields)]
    kids = struct.flatten()
    flat = [v for lst in lists if lst is not None for v in lst]
    offsets = np.cumsum([0] + [len(lst) if lst is not None else 0 for lst in lists])
    values_arr = pa.ListArray.from_arrays(pa.array(offsets, pa.int32()), arrow_array(flat, t),
                                          mask=pa.array([lst is None for lst in lists]))
    which = pick(draw, ["values", "bloom", "bloom", "both"])
    if which != "bloom":
        kids.append(values_arr)
        names.append("values")
    if which != "values":
        kids.append(pa.array(blooms, pa.binary()))
        names.append("bloom")
    mask = struct.is_null() if struct.null_count else None
    return pa.StructArray.from_arrays(kids, names, mask=mask)


# ---- the example ---------------------------------------------------------------------------
@dataclass
class Example:
    schema: pa.Schema
    containers: list  # per container, a list of rows (dicts of column name -> value)
    table: pa.Table  # statistics, canonical layout
    nan_bounds: object
    no_nan: tuple
    row_counts: list  # row_count as the statistics state it (None: unknown)
    predicate: n.Node
    palettes: dict = field(default_factory=dict)

    @property
    def types(self) -> dict:
        return {f.name: f.type for f in self.schema}

    def statistics(self) -> pk.Statistics:
        return pk.Statistics.from_arrow(self.table, nan_bounds=self.nan_bounds,
                                        no_nan=self.no_nan)

    def describe(self) -> str:
        try:
            text = self.predicate.sql()
        except Exception as e:  # describing a failure must not fail
            text = f"<sql() failed: {e!r}>"
        lines = [f"predicate: {text}", f"schema: {self.schema}",
                 f"nan_bounds={self.nan_bounds!r} no_nan={self.no_nan!r}"]
        stats = stats_rows(self.table)
        for i, rows in enumerate(self.containers):
            lines.append(f"container {i}: rows={rows}")
            lines.append(f"  stats={stats[i]}")
        return "\n".join(lines)


def stats_rows(table: pa.Table) -> list[dict]:
    """The statistics as Python rows, temporal values as integers (Python's datetime cannot
    hold nanoseconds or the extremes of int64)."""

    def plain(arr: pa.Array) -> list:
        if pa.types.is_struct(arr.type):
            kids = {arr.type.field(i).name: plain(arr.field(i)) for i in range(arr.type.num_fields)}
            valid = arr.is_valid().to_pylist()
            return [{k: v[i] for k, v in kids.items()} if valid[i] else None
                    for i in range(len(arr))]
        if pa.types.is_temporal(arr.type):
            width = pa.int32() if pa.types.is_date32(arr.type) else pa.int64()
            return arr.view(width).to_pylist()
        return arr.to_pylist()

    columns = {name: plain(table.column(name).combine_chunks()) for name in table.column_names}
    return [{k: v[i] for k, v in columns.items()} for i in range(table.num_rows)]


@st.composite
def examples(draw, max_depth: int = 3, faithful: bool = False, max_containers: int = 6,
             nest: bool = True) -> Example:
    """One schema, containers of rows, their statistics, and a predicate over them.

    ``faithful`` restricts CAST targets to types Spark SQL can name (for the SQL round trip);
    ``max_depth`` bounds the nesting of AND/OR/NOT; ``nest`` lets a third of the examples move
    columns into structs (``nested``)."""
    schema = draw(schemas())
    types = {f.name: f.type for f in schema}
    palettes = _palettes(draw, types)
    n_containers = draw(st.integers(1, max_containers))
    sizes = [pick(draw, [0, 1, 1, 2, 3, 4, 5, 8]) for _ in range(n_containers)]

    # Schema evolution: a column the statistics do not have at all is NULL in every row.
    absent = {c for c in types if one_in(draw, 20)}
    cells = {c: [[None] * k if c in absent else column_cells(draw, t, palettes[c], k)
                 for k in sizes] for c, t in types.items()}
    containers = [[{c: cells[c][i][r] for c in types} for r in range(k)]
                  for i, k in enumerate(sizes)]

    has_nan = {c: any(is_nan(v) for col in cells[c] for v in col) for c in types}
    floats = [c for c, t in types.items() if pa.types.is_floating(t)]
    mode = pick(draw, ["exclude", "exclude", "include", "mixed"])
    if mode == "mixed":
        nan_bounds = {c: pick(draw, ["exclude", "include"]) for c in floats}
        nan_bounds = {c: m for c, m in nan_bounds.items() if c not in absent}
    else:
        nan_bounds = mode
    include = {c: (nan_bounds if isinstance(nan_bounds, str) else nan_bounds.get(c, "exclude"))
               == "include" for c in types}
    no_nan = tuple(c for c in floats if not has_nan[c] and one_in(draw, 3))

    degrade = not one_in(draw, 3)
    row_counts = []
    for k in sizes:
        rc = k
        if degrade and one_in(draw, 10):
            rc = pick(draw, [None, -1])
        row_counts.append(rc)
    columns: dict[str, pa.Array] = {}
    for c, t in types.items():
        if c in absent:
            continue
        cs = ColumnStats()
        for i, k in enumerate(sizes):
            container_stats(draw, cells[c][i], t, include[c], row_counts[i] == k,
                            degrade and one_in(draw, 3), cs)
        floating = pa.types.is_floating(t)
        inexact = any(e is not True for e in cs.min_exact + cs.max_exact)
        with_flags = inexact or draw(st.booleans())
        with_nan = floating and not one_in(draw, 4)
        if floating and not with_nan:
            cs.nans = []
        columns[c] = struct_array(cs, t, with_nan, with_flags)
        if not one_in(draw, 3):
            columns[c] = with_value_sets(draw, columns[c], [cells[c][i] for i in
                                                            range(n_containers)], t,
                                         palettes[c], degrade)
    rc_type = pick(draw, [pa.int64(), pa.int64(), pa.int32()])
    data = {"row_count": pa.array(row_counts, rc_type), **columns}
    if one_in(draw, 5):
        data["path"] = pa.array([f"part-{i}" for i in range(n_containers)])
    table = pa.table(data)
    layout = pick(draw, ["plain", "plain", "sliced", "batches"])
    if layout == "sliced":  # a leading container sliced away: arrays with an offset
        table = pa.concat_tables([table.slice(0, 1), table]).slice(1)
    elif layout == "batches" and n_containers > 1:
        cut = draw(st.integers(1, n_containers - 1))
        table = pa.Table.from_batches(table.slice(0, cut).to_batches() +
                                      table.slice(cut).to_batches())
    ctx = Ctx(types, palettes, faithful)
    predicate = predicates(draw, ctx, max_depth)
    example = Example(schema, containers, table, nan_bounds, no_nan, row_counts, predicate,
                      palettes)
    return draw(nested(example)) if nest and one_in(draw, 3) else example


def _palettes(draw, types: dict) -> dict[str, list]:
    """Per column, the few values its rows take (some shared with a column of its type)."""
    palettes: dict[str, list] = {}
    for c, t in types.items():
        palettes[c] = draw(st.lists(values(t), min_size=1, max_size=4))
        twins = [palettes[d] for d, u in types.items() if u == t and d in palettes and d != c]
        if twins and draw(st.booleans()):  # share values with a column of the same type
            palettes[c] += [pick(draw, twins[0]) for _ in range(draw(st.integers(1, 3)))]
    return palettes


@st.composite
def function_calls(draw) -> n.Node:
    """A call as the property tests' generator draws one (``functions``), of a column of any
    type it draws: for tests of which rules the generator reaches."""
    types = {"c": pick(draw, TYPES)}
    ctx = Ctx(types, _palettes(draw, types), False)
    op = Operand(n.Column("c"), types["c"], tuple(ctx.palettes["c"]))
    if ref.is_text(op.type) and one_in(draw, 4):  # a LIKE leaf's (``leaves``)
        return ilike_call(draw, op)
    return functions(draw, ctx, op).node


# Where a generated column may move: a field of a struct, of a struct whose
# name holds a dot, two levels down, or a top-level column whose own name holds a dot.
NEST_PLACES = [(), ("s",), ("s.t",), ("n", "m"), None]


@st.composite
def nested(draw, ex: Example) -> Example:
    """``ex`` with some columns moved into struct columns (or renamed to hold a dot): the rows
    nest as dicts, a struct is sometimes NULL where all its leaves are, the statistics columns
    are renamed to the leaves' keys (``leaf_key``), and the predicate follows, sometimes with
    an ``IS NULL`` of a whole struct added."""
    paths = {}
    for f in ex.schema:
        place = pick(draw, NEST_PLACES)
        paths[f.name] = (f"{f.name}.v",) if place is None else (*place, f.name)
    tree: dict = {}  # nested dict of the schema: name -> type or dict
    for f in ex.schema:
        node = tree
        for part in paths[f.name][:-1]:
            node = node.setdefault(part, {})
        node[paths[f.name][-1]] = f.type

    def struct_type(node: dict) -> pa.DataType:
        return pa.struct([pa.field(k, struct_type(v) if isinstance(v, dict) else v)
                          for k, v in node.items()])

    schema = pa.schema([pa.field(k, struct_type(v) if isinstance(v, dict) else v)
                        for k, v in tree.items()])

    leaf_of = {p: c for c, p in paths.items()}

    def build(node: dict, prefix: tuple, row: dict) -> dict | None:
        out = {k: build(v, (*prefix, k), row) if isinstance(v, dict) else row[leaf_of[
            (*prefix, k)]] for k, v in node.items()}
        if prefix and all(v is None for v in out.values()) and draw(st.booleans()):
            return None  # a NULL struct: every leaf below is NULL, as the rows say
        return out

    containers = [[build(tree, (), row) for row in rows] for rows in ex.containers]
    renames = {c: leaf_key(p) for c, p in paths.items()}
    table = ex.table.rename_columns([renames.get(c, c) for c in ex.table.column_names])
    nan_bounds = ex.nan_bounds if isinstance(ex.nan_bounds, str) else {
        renames[c]: m for c, m in ex.nan_bounds.items()}
    no_nan = tuple(renames[c] for c in ex.no_nan)
    predicate = n.transform(ex.predicate, lambda x: n.Column(paths[x.name][0], tuple(
        paths[x.name][1:])) if isinstance(x, n.Column) else x)
    structs = [(k,) for k, v in tree.items() if isinstance(v, dict)]
    structs += [(*p, k) for p in structs for k, v in _at(tree, p).items() if isinstance(v, dict)]
    if structs and draw(st.booleans()):
        p = pick(draw, structs)
        test = _maybe_not(draw, n.IsNull(n.Column(p[0], p[1:])))
        predicate = (n.and_ if draw(st.booleans()) else n.or_)(predicate, test)
    return Example(schema, containers, table, nan_bounds, no_nan, ex.row_counts, predicate,
                   ex.palettes)


def _at(tree: dict, path: tuple) -> dict:
    for part in path:
        tree = tree[part]
    return tree


def exact_example(columns: dict, predicate: n.Node, nan_bounds: str = "exclude",
                  no_nan: tuple = ()) -> Example:
    """An example with exact statistics, for hand-written cases: ``columns`` maps a name to
    ``(type, [values of container 0, values of container 1, ...])``.

    >>> ex = exact_example({"x": (pa.int8(), [[1, None], []])}, n.Column("x") > n.Literal(0))
    >>> ex.row_counts, ex.table.column("x").to_pylist()[0]["min"]
    ([2, 0], 1)
    """
    schema = pa.schema([(c, t) for c, (t, _) in columns.items()])
    sizes = [len(v) for v in next(iter(columns.values()))[1]]
    containers = [[{c: vals[i][r] for c, (_, vals) in columns.items()} for r in range(k)]
                  for i, k in enumerate(sizes)]
    data = {"row_count": pa.array(sizes, pa.int64())}
    for c, (t, vals) in columns.items():
        include = nan_bounds == "include"
        cs = ColumnStats()
        for cells in vals:
            lo, hi, nulls, nans = exact_stats(cells, t, include)
            cs.mins.append(lo)
            cs.maxs.append(hi)
            cs.nulls.append(nulls)
            cs.nans.append(nans)
            cs.struct_null.append(False)
        data[c] = struct_array(cs, t, pa.types.is_floating(t), False)
    return Example(schema, containers, pa.table(data), nan_bounds, tuple(no_nan), sizes,
                   predicate)


# ---- operands ------------------------------------------------------------------------------
@dataclass(frozen=True)
class Ctx:
    types: dict
    palettes: dict
    faithful: bool


@dataclass(frozen=True)
class Operand:
    """A non-boolean expression with its SQL type and sample values of that type."""

    node: n.Node
    type: pa.DataType
    samples: tuple  # row-representation values of ``type`` (no NULL, no NaN)
    opaque: bool = False  # an unknown function: any literal of the family will do


def cmp_family(t: pa.DataType) -> str:
    if ref.is_text(t):
        return "text"
    if ref.is_bin(t):
        return "bin"
    return ref.family(t)


def cast_targets(t: pa.DataType, faithful: bool) -> list:
    if pa.types.is_integer(t):
        out = INT_TYPES + [pa.float64(), pa.float32(), pa.decimal128(20, 0),
                           pa.decimal128(10, 2), pa.decimal128(38, 5), pa.string(), pa.bool_()]
    elif pa.types.is_floating(t):
        out = [pa.float64(), pa.float32(), pa.int64(), pa.int32(), pa.decimal128(10, 2),
               pa.string()]
    elif pa.types.is_decimal(t):
        p, s = t.precision, t.scale
        out = [pa.decimal128(min(38, p + 2), min(s + 1, 38)), pa.decimal128(p, max(s - 1, 0)),
               pa.decimal128(38, s), pa.float64(), pa.int64(), pa.string()]
    elif ref.is_text(t) or ref.is_bin(t):
        out = [pa.string(), pa.large_string(), pa.binary()]
    elif pa.types.is_boolean(t):
        out = [pa.int32(), pa.int8(), pa.string(), pa.bool_()]
    elif pa.types.is_date(t):
        out = [pa.date32(), pa.date64(), pa.timestamp("us", "UTC"), pa.timestamp("s"),
               pa.string()]
    else:
        out = [pa.date32(), pa.date64(), pa.timestamp("us", "UTC"), pa.timestamp("us"),
               pa.timestamp("ns"), pa.timestamp("s", "UTC"), pa.string()]
    if faithful:
        out = [x for x in out if x in SPARK_TYPES or pa.types.is_decimal(x)]
    return out


def operands(draw, ctx: Ctx, fam: str | None = None, depth: int = 2, other: Operand | None = None
             ) -> Operand | None:
    """A column, possibly under CAST, unary minus or an unknown function; of comparison family
    ``fam`` if given (None when no column has it), and mostly on a column other than
    ``other``'s."""
    names = [c for c, t in ctx.types.items() if fam is None or cmp_family(t) == fam]
    if not names:
        return None
    taken = {x.name for x in other.node.walk() if isinstance(x, n.Column)} if other else set()
    if set(names) - taken and not one_in(draw, 4):
        names = [c for c in names if c not in taken]
    name = pick(draw, names)
    t = ctx.types[name]
    op = Operand(n.Column(name), t, tuple(ctx.palettes[name]))
    for _ in range(pick(draw, [0] * 6 + [1] * 3 + [2]) if depth else 0):
        numeric = pa.types.is_integer(op.type) or pa.types.is_floating(op.type) or \
            pa.types.is_decimal(op.type)
        kinds = ["cast"] * 3 + ["neg"] * 2 + ["func"] if numeric else ["cast"] * 3 + ["func"]
        if pa.types.is_signed_integer(op.type) or pa.types.is_decimal(op.type):
            kinds += ["arith"] * 6
        if pa.types.is_signed_integer(op.type) or pa.types.is_floating(op.type) or \
                pa.types.is_decimal(op.type):
            kinds += ["div"] * 3
        kinds += ["fn"] * (6 if pa.types.is_signed_integer(op.type) else 3)  # more rules
        kind = pick(draw, kinds)
        if kind == "arith":
            op = _arithmetic(draw, op)
        elif kind == "div":
            op = _arithmetic(draw, op, division=True)
        elif kind == "fn":
            op = functions(draw, ctx, op)
        elif kind == "cast":
            to = pick(draw, cast_targets(op.type, ctx.faithful))
            samples = ref.samples_through(op.samples, lambda v, to=to: ref.cast(v, to), op.type,
                                       to)
            op = Operand(n.Cast(op.node, to, draw(st.booleans())), to, samples, op.opaque)
        elif kind == "neg":
            samples = ref.samples_through(op.samples, ref.negate, op.type, op.type)
            op = Operand(n.Neg(op.node), op.type, samples, op.opaque)
        else:
            op = Operand(n.Func("my_udf", (op.node,)), op.type, op.samples, True)
    if fam is not None and cmp_family(op.type) != fam:
        return Operand(n.Column(name), t, tuple(ctx.palettes[name]))
    return op


TRUNC_UNITS = ["year", "yy", "quarter", "month", "mon", "week", "day", "hour", "minute",
               "second", "millisecond", "microsecond", "bogus"]


def functions(draw, ctx: Ctx, op: Operand) -> Operand:
    """A function of ``op`` with a rule (``prunekit.expr.binding.functions.RULES``: ``year``,
    ``month``, ``day``, ``dayofmonth``, ``hour``, ``minute``, ``second``, ``date_trunc``,
    ``trunc``, ``floor``, ``ceil``,
    ``round``, ``bround``, ``abs``, ``sign``, ``signum``, ``negative``, ``greatest``, ``least``,
    ``date_add``, ``date_sub``, ``add_months``, ``datediff``, ``unix_seconds``,
    ``unix_millis``, ``unix_micros``, ``unix_timestamp``, ``timestamp_seconds``,
    ``timestamp_millis``, ``timestamp_micros``, ``%``, ``pmod``, ``months_between``,
    ``from_unixtime`` (with literals of ``op``'s type), ``left``, ``substring``, ``coalesce``,
    CASE as ``if``, and DataFusion's casts of a DECIMAL to DOUBLE and back);
    the result type and samples follow
    Spark's semantics as ``tests/support/reference.py`` computes them."""
    t = op.type
    if pa.types.is_date(t) or pa.types.is_timestamp(t):
        # add_months early: hypothesis picks the ends of a list more than its middle, where
        # this rule went undrawn for thousands of examples
        kinds = ["year", "add_months", "date_trunc", "date_trunc", "trunc", "month", "day",
                 "date_add", "date_sub", "dayofmonth", "datediff", "datediff"]
        kinds += ["hour", "minute", "second"] if pa.types.is_timestamp(t) else []
        kinds += ["unix_timestamp"] + (["unix_seconds", "unix_millis", "unix_micros"]
                                       if pa.types.is_timestamp(t) else [])
        kinds += ["months_between", "months_between"]
    elif pa.types.is_integer(t) or pa.types.is_floating(t) or pa.types.is_decimal(t):
        kinds = ["floor", "ceil", "abs", "abs", "round", "round", "bround", "sign", "signum",
                 "greatest", "greatest", "least", "least"]
        if t != pa.uint64():  # Spark's DECIMAL(20, 0): the reference negates in the type
            kinds += ["negative"] if not pa.types.is_unsigned_integer(t) else []
        if pa.types.is_decimal(t):  # DataFusion's cast of a DECIMAL to DOUBLE, to BIGINT
            kinds += ["__prunekit_arrow_double", "__prunekit_arrow_bigint"]
        if pa.types.is_floating(t) or pa.types.is_decimal(t):  # of a DOUBLE to DECIMAL
            kinds += ["__prunekit_arrow_decimal"]
    elif ref.is_text(t):
        kinds = ["left", "left", "substring"]
    else:
        kinds = []
    kind = pick(draw, kinds + ["coalesce", "case"])
    if pa.types.is_signed_integer(t) and not draw(st.booleans()):  # of integers only
        # (the others are drawn on every number). Hypothesis draws the first few indexes of
        # a list almost only, here: the column's own values choose instead, evenly.
        family = ["timestamp_seconds", "timestamp_millis", "timestamp_micros", "from_unixtime",
                  "pmod", "%", "from_unixtime", "%", "timestamp_seconds"]
        kind = family[hash(tuple(int(v) for v in op.samples)) % len(family)]  # ints: stable
    if kind in ("year", "month", "day", "dayofmonth", "floor", "ceil", "abs", "sign", "signum",
                "negative", "hour", "minute", "second", "unix_seconds", "unix_millis",
                "unix_micros", "timestamp_seconds", "timestamp_millis", "timestamp_micros",
                "from_unixtime", "__prunekit_arrow_double", "__prunekit_arrow_bigint"):
        node, args = n.Func(kind, (op.node,)), ()
    elif kind == "unix_timestamp":
        fmt = (n.Literal(pick(draw, ["yyyy-MM-dd HH:mm:ss", "yyyy"])),) if one_in(draw, 3) \
            else ()
        node = n.Func(kind, (op.node, *fmt))
    elif kind == "months_between":
        day = n.Literal(pick(draw, MONTHS_BETWEEN_DAYS), pa.date32())
        round_off = (n.Literal(draw(st.booleans())),) if one_in(draw, 3) else ()
        node = n.Func(kind, ((op.node, day) if draw(st.booleans()) else (day, op.node))
                      + round_off)
    elif kind in ("%", "pmod"):
        node = n.Func(kind, (op.node, n.Literal(pick(draw, DIVISORS_OF_REMAINDERS))))
    elif kind == "__prunekit_arrow_decimal":
        precision, scale = pick(draw, ARROW_DECIMALS)
        node = n.Func(kind, (op.node, n.Literal(precision), n.Literal(scale)))
    elif kind in ("round", "bround"):
        scale = () if one_in(draw, 5) else (n.Literal(pick(draw, ROUND_SCALES)),)
        node = n.Func(kind, (op.node, *scale))
    elif kind in ("greatest", "least"):
        others = [literals(draw, op, mode="exact", null=one_in(draw, 4))
                  for _ in range(pick(draw, [1, 1, 2]))]
        at = draw(st.integers(0, len(others)))
        node = n.Func(kind, (*others[:at], op.node, *others[at:]))
    elif kind in ("date_add", "date_sub", "add_months"):
        node = n.Func(kind, (op.node, n.Literal(pick(draw, DATE_STEPS))))
    elif kind == "datediff":
        day = n.Literal(pick(draw, DATEDIFF_DAYS), pa.date32())
        node = n.Func(kind, (op.node, day) if draw(st.booleans()) else (day, op.node))
    elif kind in ("date_trunc", "trunc"):
        unit = n.Literal(pick(draw, TRUNC_UNITS))
        node = n.Func(kind, (unit, op.node) if kind == "date_trunc" else (op.node, unit))
    elif kind in ("left", "substring"):
        k = n.Literal(pick(draw, [-1, 0, 1, 2, 3, 5]))
        start = () if kind == "left" else (n.Literal(pick(draw, [0, 1, 1, 2])),)
        node = n.Func(kind, (op.node, *start, k))
    elif kind == "coalesce":
        node = n.Func("coalesce", (op.node, literals(draw, op, null=one_in(draw, 5))))
    else:
        base = operands(draw, ctx, depth=0)
        cond = n.Compare(pick(draw, list(n.Op)), base.node, literals(draw, base))
        other = pick(draw, ["literal", "literal", "null", "self"])
        alt = {"literal": lambda: literals(draw, op, null=False), "null": lambda: n.Literal(None),
               "self": lambda: op.node}[other]()
        node = n.Func("if", (cond, op.node, alt) if draw(st.booleans()) else (cond, alt, op.node))
    args = [None if a is op.node or any(isinstance(x, n.Column) for x in a.walk()) else
            ref.evaluate_value(a, {}, {}) for a in node.args]
    position = [i for i, a in enumerate(node.args) if a is op.node][0]
    if kind == "if" or kind == "case":
        return Operand(node, t, op.samples, op.opaque)

    def through(v):
        values = list(args)
        values[position] = v
        got = ref.FUNCTIONS[kind](*values)
        if kind in ("greatest", "least") and isinstance(got, ref.V):
            got = ref.cast(got, t)  # a literal argument (0.5 beside INT): a sample near it
        return got if isinstance(got, ref.V) else None  # not modelled there: no sample

    result = {"year": pa.int32(), "month": pa.int32(), "day": pa.int32(), "dayofmonth": pa.int32(),
              "hour": pa.int32(), "minute": pa.int32(), "second": pa.int32(),
              "date_trunc": pa.timestamp("us", "UTC"), "trunc": pa.date32(),
              "left": t, "substring": t, "coalesce": t, "abs": t, "negative": t,
              "greatest": t, "least": t, "sign": pa.float64(), "signum": pa.float64(),
              "date_add": pa.date32(), "date_sub": pa.date32(), "add_months": pa.date32(),
              "datediff": pa.int32(), "unix_seconds": pa.int64(), "unix_millis": pa.int64(),
              "unix_micros": pa.int64(), "unix_timestamp": pa.int64(),
              "timestamp_seconds": pa.timestamp("us", "UTC"),
              "timestamp_millis": pa.timestamp("us", "UTC"),
              "timestamp_micros": pa.timestamp("us", "UTC"),
              "months_between": pa.float64(), "from_unixtime": pa.string(),
              "__prunekit_arrow_double": pa.float64(),
              "__prunekit_arrow_bigint": pa.int64()}.get(kind)
    if kind in ("%", "pmod"):
        c = node.args[1].value
        c_type = pa.int32() if -(2**31) <= c < 2**31 else pa.int64()
        result = t if t.bit_width >= c_type.bit_width else c_type
    if kind == "__prunekit_arrow_decimal":
        result = pa.decimal128(node.args[1].value, node.args[2].value)
    if kind in ("round", "bround"):
        probe = through(ref.from_python(op.samples[0], t)) if op.samples else None
        result = probe.type if isinstance(probe, ref.V) and probe.type is not None else t
    if result is None:  # floor / ceil: BIGINT, or DECIMAL(p - s + 1, 0)
        result = pa.decimal128(min(38, t.precision - t.scale + 1), 0) if pa.types.is_decimal(
            t) else pa.int64()
    samples = ref.samples_through(op.samples, through, t, result) if kind != "coalesce" \
        else op.samples
    return Operand(node, result, samples, op.opaque)


ROUND_SCALES = [-2, -1, -1, 0, 1, 1, 2, 5, -20, -400]
# (precision, scale) of DataFusion's DECIMAL for a DOUBLE met by a DECIMAL: 15 places, or the
# DECIMAL's own beyond that (at most 22), few digits before the point or many.
ARROW_DECIMALS = [(31, 15), (38, 15), (30, 15), (38, 22), (17, 15), (22, 22)]
# The ends of February break months_between's order (left unknown); the others are month
# ends of each length, a mid-month day and a leap day.
MONTHS_BETWEEN_DAYS = [dt.date(2023, 2, 28), dt.date(2024, 2, 29), dt.date(2024, 1, 31),
                       dt.date(2024, 4, 30), dt.date(2024, 2, 28), dt.date(1970, 1, 15),
                       dt.date(2000, 3, 31), dt.date(1, 1, 1), dt.date(9999, 12, 31)]
DIVISORS_OF_REMAINDERS = [2, 3, -3, 7, 7, 10, 100, -1, 1, 0, 2**31, 2**61, -(2**63)]
DATE_STEPS = [-400, -31, -1, 0, 1, 1, 12, 30, 365, 2**31 - 1, -(2**31)]
DATEDIFF_DAYS = [dt.date(2024, 2, 29), dt.date(1970, 1, 1), dt.date(2000, 3, 31),
                 dt.date(1, 1, 1), dt.date(9999, 12, 31)]
ARITH_CONSTANTS = [-3, -1, 0, 1, 2, 7, 1000, -100_000, 2**31 - 1, 2**31, 2**62, -(2**63) + 1]
DECIMAL_CONSTANTS = [D("0.05"), D("-1.5"), D("100.001"), D("1E+2"), D("-0.000001")]
# Divisors: INT and DOUBLE ones give DOUBLE division, decimal ones DECIMAL division for integer
# and decimal operands; 0 gives NULL (legacy) or an error (ANSI).
DIVISORS = [2, -3, 7, 0, 1000, 2**40, 0.5, -0.25, 3.0, 1e-300, D("2.5"), D("-0.1")]


def _arithmetic(draw, op: Operand, division: bool = False) -> Operand:
    """``op + c``, ``op - c``, ``c - op``, ``op * c`` or ``c * op`` on a signed integer or a
    decimal; with ``division``, ``op / c`` on any number. Its type and samples are the
    reference's (an operand the reference does not model is left as it was)."""
    if division:
        c, form = n.Literal(pick(draw, DIVISORS)), "/"
    else:
        pool = ARITH_CONSTANTS + (DECIMAL_CONSTANTS if pa.types.is_decimal(op.type) else [])
        c = n.Literal(pick(draw, pool))
        form = pick(draw, ["+", "-", "*", "c-", "c*", "c+"])
    name = form[-1]
    args = (c, op.node) if form.startswith("c") else (op.node, c)
    node = n.Func(name, args)
    c_value = ref.literal_value(c)

    def through(v):
        return ref.arithmetic(node, (c_value, v) if form.startswith("c") else (v, c_value))

    probe = through(ref.from_python(op.samples[0] if op.samples else 0, op.type))
    if probe is ref.NOT_INTEGER:
        return op
    if isinstance(probe, ref.V):
        t = probe.type
    elif name == "/" and not pa.types.is_decimal(op.type) and not isinstance(c.value, D):
        t = pa.float64()
    elif pa.types.is_signed_integer(op.type) and isinstance(c.value, int):
        t = max([op.type, pa.int32() if abs(c.value) < 2**31 else pa.int64()],
                key=lambda x: x.bit_width)
    else:
        return op  # a zero divisor or an overflow at the probe: the type is not at hand
    return Operand(node, t, ref.samples_through(op.samples, through, op.type, t), op.opaque)


# ---- literals ------------------------------------------------------------------------------
def _L(v) -> n.Node:
    return v if isinstance(v, n.Node) else n.Literal(v)


def _date(days: int) -> dt.date | None:
    return dt.date(1970, 1, 1) + dt.timedelta(days=days) if _DATE_MIN <= days <= _DATE_MAX \
        else None


def _datetime(us: int, tz) -> dt.datetime | None:
    if not _DT_MIN_US + 86_400 * 10**6 <= us <= _DT_MAX_US - 86_400 * 10**6:
        return None
    value = dt.datetime(1970, 1, 1, tzinfo=dt.timezone.utc) + dt.timedelta(microseconds=us)
    return value.replace(tzinfo=None) if tz is None else value.astimezone(tz)


def _to_double(x) -> n.Node:
    return n.Cast(n.Literal(x), pa.float64())


# Each ``_*_choices`` returns literal candidates by category; ``literals`` picks a category
# first, so rare but important kinds (a CAST, a value just outside the type) are not diluted.
def _int_choices(v: int | None, t: pa.DataType, exact: bool) -> dict:
    lo, hi = ref.int_range(t)
    if exact:
        out = {"edge": [lo - 1, hi + 1, lo, hi, CTX.add(D(hi), D("0.5"))],
               "special": [0, -1, 2**53 + 1, 2**63, D("1E+1"), D("-0.5")]}
    else:
        out = {"edge": [float(hi) + 1, float(lo) - 1, float(hi), 2.0**63, 2.0**64],
               "special": [INF, -INF, -0.0, 0.5, 2.0**53], "nan": [NAN]}
    if v is not None:
        if exact:
            out["same"] = [v, D(f"{v}.0"), D(v).normalize(context=CTX)]
            out["near"] = [v + 1, v - 1]
            out["between"] = [CTX.add(D(v), D("0.5")), CTX.subtract(D(v), D("0.5")),
                              CTX.add(D(v), D("0.001"))]
        else:
            fv = float(v)
            out["same"] = [fv, _to_double(v)]
            out["near"] = [math.nextafter(fv, INF), math.nextafter(fv, -INF), _to_double(v + 1),
                           _to_double(v - 1)]
            out["between"] = [fv + 0.5, fv - 0.5]
    return out


def _decimal_choices(v: D | None, t: pa.DataType, exact: bool) -> dict:
    ulp = D(1).scaleb(-t.scale)
    top = CTX.multiply(10**t.precision - 1, ulp)
    if exact:
        out = {"edge": [CTX.add(top, ulp), CTX.minus(CTX.add(top, ulp)), top, CTX.minus(top),
                        CTX.add(top, CTX.divide(ulp, 2))],
               "special": [D(0), 1, -1, D("1E+1"), 10**t.precision]}
    else:
        out = {"edge": [float(top), -float(top), float(top) * 10], "special": [INF, -INF, 0.5],
               "nan": [NAN]}
    if v is not None:
        half = CTX.divide(ulp, 2)
        if exact:
            out["same"] = [v, v.normalize(context=CTX), int(v) if v == int(v) else v]
            out["near"] = [CTX.add(v, ulp), CTX.subtract(v, ulp), int(v)]
            out["between"] = [CTX.add(v, half), CTX.subtract(v, half)]
            # Spark rounds CAST(... AS DECIMAL(p, s)) half up: these land on v or its neighbour.
            target = pa.decimal128(t.precision, t.scale)
            out["cast"] = [n.Cast(n.Literal(CTX.add(v, half)), target),
                           n.Cast(n.Literal(CTX.subtract(v, CTX.divide(ulp, 4))), target)]
        else:
            out["same"] = [float(v), _to_double(v)]
            out["near"] = [math.nextafter(float(v), INF), math.nextafter(float(v), -INF)]
    return out


def _within_38_digits(x: object) -> bool:
    """Whether Spark reads literal ``x`` (or the literal a CAST node casts) at all: a number
    of more than 38 digits is no DECIMAL, and Spark's parser refuses it.

    >>> _within_38_digits(D("1E+37")), _within_38_digits(CTX.add(D(1e38), D("1E-30")))
    (True, False)
    """
    value = x.arg.value if isinstance(x, n.Cast) and isinstance(x.arg, n.Literal) else x
    if isinstance(value, bool) or not isinstance(value, (int, D)):
        return True
    return literal_type(value).bit_width <= 128


def _float_choices(v: float | None, t: pa.DataType) -> dict:
    out = {"special": [INF, -INF, 0.0, -0.0, 0, D("0.1")], "nan": [NAN],
           "edge": [2**24 + 1, 2**53 + 1, 3.4028235677973366e38, 1e308, 5e-324]}
    if v is not None:
        out["same"] = [v]
        out["near"] = [math.nextafter(v, INF), math.nextafter(v, -INF), v + 1, v - 1]
        if math.isfinite(v):
            out["same"] += [D(repr(v)), _to_double(D(repr(v)))]
            out["between"] = [D(v), int(v), CTX.add(D(v), D("1E-30"))]
            out["cast"] = [_to_double(int(v)), n.Cast(n.Literal(v), pa.float32())]
            if t == pa.float32():  # a double that only CAST(... AS FLOAT) turns into v
                with np.errstate(over="ignore"):
                    up = float(np.nextafter(np.float32(v), np.float32(INF)))
                if math.isfinite(up):
                    d = v + (up - v) / 4
                    out["between"].append(d)
                    out["cast"] += [n.Cast(n.Literal(d), pa.float32()),
                                    n.Cast(n.Literal(D(repr(d))), pa.float32())]
    return out


def _text_choices(v: str | None) -> dict:
    out = {"special": ["", "a", "ab", "é", "\U0010ffff", "\x00"]}
    if v is not None:
        out["same"] = [v]
        out["near"] = [v[: len(v) // 2], v + "a", v + "\x00", v[:-1]]
        if v and ord(v[-1]) < 0x10FFFF and not 0xD7FF <= ord(v[-1]) <= 0xDFFF:
            out["near"].append(v[:-1] + chr(ord(v[-1]) + 1))
    return out


def _bin_choices(v: bytes | None) -> dict:
    out = {"special": [b"", b"a", b"\x00", b"\xff", b"ab"]}
    if v is not None:
        out["same"] = [v]
        out["near"] = [v[: len(v) // 2], v + b"\x00", v + b"\xff", v[:-1]]
        if v and v[-1] < 0xFF:
            out["near"].append(v[:-1] + bytes([v[-1] + 1]))
    return out


def _temporal_choices(v: int | None, t: pa.DataType, tz) -> dict:
    out = {"special": [dt.date(2020, 1, 1), dt.datetime(2020, 1, 1), dt.date(1970, 1, 1),
                       dt.datetime(1969, 12, 31, 23, 59, 59, 999999, tzinfo=dt.timezone.utc)]}
    if v is None:
        return out
    if pa.types.is_date(t):
        out["same"] = [d for d in (_date(v),) if d is not None]
        out["near"] = [d for d in (_date(v + 1), _date(v - 1)) if d is not None]
        us = v * 86_400 * 10**6  # a date compares with a timestamp as its midnight
        out["cast"] = [x for delta in (0, 1, -1, 43_200 * 10**6)
                       if (x := _datetime(us + delta, tz)) is not None]
        return out
    ns = v * ref.NS_PER_UNIT[t.unit]
    us = ns // 1000
    out["same"] = [x for x in (_datetime(us, tz),) if x is not None]
    out["near"] = [x for delta in (1, -1, 1000) if (x := _datetime(us + delta, tz)) is not None]
    day = ns // ref.NS_PER_DAY
    out["cast"] = [d for d in (_date(day), _date(day + 1)) if d is not None]
    return out


def literals(draw, op: Operand, mode: str = "any", null: bool = True) -> n.Node:
    """A literal near ``op``'s sample values, comparable with ``op`` in Spark.

    ``mode`` for exact numeric operands: "exact" (integers and decimals), "float" or "any"."""
    if null and one_in(draw, 25):
        return n.Literal(None)
    t = op.type
    v = pick(draw, op.samples) if op.samples else None
    if pa.types.is_integer(t) or pa.types.is_decimal(t):
        if mode == "any":
            mode = pick(draw, ["exact", "exact", "float"])
        exact = mode == "exact"
        if pa.types.is_integer(t):
            choices = _int_choices(v, t, exact)
        else:
            choices = _decimal_choices(v, t, exact)
        rand = st.integers(-5, 300) if exact else st.floats(-1e3, 1e3)
    elif pa.types.is_floating(t):
        choices, rand = _float_choices(v, t), st.floats(width=32)
    elif ref.is_text(t):
        choices, rand = _text_choices(v), string_values()
    elif ref.is_bin(t):
        choices, rand = _bin_choices(v), binary_values()
    elif pa.types.is_boolean(t):
        return _L(draw(st.booleans()))
    else:
        tz = pick(draw, [None, *OFFSETS])
        choices, rand = _temporal_choices(v, t, tz), st.nothing()
    choices = {k: [x for x in xs if _within_38_digits(x)] for k, xs in choices.items()}
    kinds = [k for k in ("same", "same", "near", "between", "edge", "special", "nan", "cast")
             if choices.get(k)]
    kind = pick(draw, kinds + (["random"] if not rand.is_empty else []))
    value = draw(rand) if kind == "random" else pick(draw, choices[kind])
    if isinstance(value, (int, float, D)) and not isinstance(value, bool) and one_in(draw, 6):
        # The same value written as a unary minus: -(5), -(1.5), -(CAST('NaN' AS DOUBLE)).
        return n.Neg(n.Literal(CTX.minus(value) if isinstance(value, D) else -value))
    return _L(value)


# ---- predicates ----------------------------------------------------------------------------
def _maybe_not(draw, node: n.Node) -> n.Node:
    return n.Not(node) if one_in(draw, 4) else node


_MARK = "\uf8ff"  # a character of the value a wildcard will stand for


def _like_pattern(draw, v: str) -> tuple[str, str]:
    """A LIKE pattern built from ``v`` (mostly one that ``v`` matches) and its escape."""
    escape = pick(draw, ["\\", "\\", "\\", "!", "#"])

    def lit(text: str) -> str:
        return "".join(escape + ch if ch in ("%", "_", escape) else ch for ch in text)

    k = draw(st.integers(0, len(v)))
    head, rest = lit(v[:k]), v[k:]
    if k and one_in(draw, 5):  # a wildcard inside the prefix
        j = draw(st.integers(0, k - 1))
        head = lit(v[:j]) + "_" + lit(v[j + 1: k])
    if k < len(v) and one_in(draw, 8):  # a wildcard where the value has a character
        j = draw(st.integers(k, len(v) - 1))
        rest = rest[: j - k] + _MARK + rest[j - k + 1:]
    one_char = pick(draw, ["_", "%"])  # what stands for the character marked above
    tail = pick(draw, [
        "%", "%", lit(rest), "_" * len(rest), "_" * len(rest) + "%", lit(rest[:1]) + "%",
        "%" + lit(rest[-1:]), "%%", "_" * (len(rest) + 1), "%a", "a%", "%_", "_a%",
        # beyond a prefix: '_' then literals, '%' inside, one character short or long, an
        # escaped wildcard, U+FFFD (which no value's character is replaced by here)
        "_" + lit(rest[1:]), lit(rest[:1]) + "_" + lit(rest[2:]) + "%", "%" + lit(rest[1:]),
        lit(rest[:1]) + "%" + lit(rest[-1:]), "_" * max(len(rest) - 1, 0), lit(rest) + "_",
        lit("%") + "%", lit("_") + "_", "\ufffd%", "_%_"])
    return head + tail.replace(_MARK, one_char), escape


def ilike_call(draw, op: Operand) -> n.Node:
    """``ilike(s, pattern[, escape])``: a LIKE pattern drawn from a sample, some of its
    letters in the other case."""
    v = pick(draw, op.samples) if op.samples else ""
    pattern, escape = _like_pattern(draw, v if isinstance(v, str) else "")
    pattern = "".join(c.swapcase() if c != escape and c.isascii() and draw(st.booleans())
                      else c for c in pattern)
    extra = () if escape == "\\" else (n.Literal(escape),)
    return n.Func("ilike", (op.node, n.Literal(pattern), *extra))


LEAF_KINDS = (["cmp"] * 8 + ["colcmp"] * 5 + ["is_null"] * 2 + ["in"] * 3 + ["between"] * 2 +
              ["like"] * 6 + ["startswith"] * 3 + ["bool"] * 2 + ["isnan"] * 2 +
              ["distinct"] * 2 + ["const", "func", "case"])


def leaves(draw, ctx: Ctx) -> n.Node:
    kind = pick(draw, LEAF_KINDS)
    fams = {cmp_family(t) for t in ctx.types.values()}
    if kind == "like" and "text" not in fams or kind == "startswith" and not fams & {
            "text", "bin"} or kind == "bool" and "bool" not in fams or kind == "isnan" and \
            "num" not in fams:
        kind = "cmp"
    if kind == "cmp":
        op = operands(draw, ctx)
        lit = literals(draw, op)
        cmp = pick(draw, list(n.Op))
        if draw(st.booleans()):
            return n.Compare(cmp, op.node, lit)
        return n.Compare(cmp, lit, op.node)
    if kind == "colcmp":
        a = operands(draw, ctx)
        b = operands(draw, ctx, cmp_family(a.type), other=a) or a
        return n.Compare(pick(draw, list(n.Op)), a.node, b.node)
    if kind == "is_null":
        op = operands(draw, ctx)
        return _maybe_not(draw, n.IsNull(op.node))
    if kind == "in":
        op = operands(draw, ctx)
        # "any" mixes exact and DOUBLE elements in one list: Spark then compares in DOUBLE.
        mode = "any" if pa.types.is_floating(op.type) else pick(
            draw, ["exact", "exact", "float", "any"])
        items = [literals(draw, op, mode, null=False) for _ in range(draw(st.integers(1, 4)))]
        if one_in(draw, 3):
            items.insert(draw(st.integers(0, len(items))), n.Literal(None))
        node = n.In(op.node, tuple(items))
        return n.Not(node) if draw(st.booleans()) else node
    if kind == "between":
        op = operands(draw, ctx)
        mode = "any" if pa.types.is_floating(op.type) else pick(
            draw, ["exact", "float"])
        lo, hi = literals(draw, op, mode), literals(draw, op, mode)
        return _maybe_not(draw, n.Between(op.node, lo, hi))
    if kind == "like":
        op = operands(draw, ctx, "text")
        if one_in(draw, 4):
            return _maybe_not(draw, ilike_call(draw, op))
        v = pick(draw, op.samples) if op.samples else ""
        pattern, escape = _like_pattern(draw, v if isinstance(v, str) else "")
        return _maybe_not(draw, n.Like(op.node, pattern, escape))
    if kind == "startswith":
        fam = pick(draw, sorted(fams & {"text", "bin"}))
        op = operands(draw, ctx, fam)
        v = pick(draw, op.samples) if op.samples else ""
        if one_in(draw, 10):
            prefix = n.Literal(None)
        else:
            prefix = n.Literal(v[: draw(st.integers(0, len(v)))] + pick(
                draw, ["", "", "", "a"] if fam == "text" else [b"", b"", b"\xff"]))
        return _maybe_not(draw, n.StartsWith(op.node, prefix))
    if kind == "bool":
        op = operands(draw, ctx, "bool", depth=0)
        form = draw(st.integers(0, 3))
        if form == 0:
            return n.Compare(pick(draw, list(n.Op)), op.node, literals(draw, op))
        return _maybe_not(draw, op.node)
    if kind == "isnan":
        op = operands(draw, ctx, "num")
        return _maybe_not(draw, n.IsNan(op.node))
    if kind == "distinct":
        op = operands(draw, ctx)
        if one_in(draw, 4):
            other = (operands(draw, ctx, cmp_family(op.type), other=op) or op).node
        else:
            other = literals(draw, op)
        pair = (op.node, other) if draw(st.booleans()) else (other, op.node)
        return _maybe_not(draw, n.DistinctFrom(*pair))
    if kind == "const":
        return n.Literal(pick(draw, [True, False, None]))
    if kind == "case":  # CASE WHEN c THEN p ELSE q END as a predicate (Spark's if)
        parts = [leaves(draw, ctx) for _ in range(3)]
        if one_in(draw, 3):
            parts[draw(st.integers(1, 2))] = n.Literal(pick(draw, [True, False, None]))
        return _maybe_not(draw, n.Func("if", tuple(parts)))
    op = operands(draw, ctx)  # an unknown function used as a predicate
    return n.Func(pick(draw, ["my_udf", "is_valid"]), (op.node, n.Literal(3)))


def predicates(draw, ctx: Ctx, depth: int) -> n.Node:
    if depth <= 0 or draw(st.booleans()):  # shallow trees: a wrong leaf is not masked
        return leaves(draw, ctx)
    kind = pick(draw, ["and", "and", "or", "or", "not", "isbool", "isnull", "cmpbool"])
    if kind in ("and", "or"):
        kids = [predicates(draw, ctx, depth - 1) for _ in range(draw(st.integers(2, 3)))]
        return n.And(tuple(kids)) if kind == "and" else n.Or(tuple(kids))
    kid = predicates(draw, ctx, depth - 1)
    if kind == "not":
        return n.Not(kid)
    if kind == "isbool":
        return _maybe_not(draw, n.IsBool(kid, draw(st.booleans())))
    if kind == "isnull":
        return _maybe_not(draw, n.IsNull(kid))
    return n.Compare(pick(draw, [n.Op.EQ, n.Op.NE]), kid,
                     n.Literal(pick(draw, [True, False])))


# ---- session time zones (tests/expr/test_zones.py) -------------------------------------------
# Zones with every kind of change: DST both ways (New York), DST starting and ending at midnight
# (Sao Paulo before 2019), a skipped day (Apia, 2011-12-30), half-hour DST (Lord Howe), a
# negative DST (Dublin), a half-hour zone (Kolkata), fixed offsets, and local mean time before
# each zone's first change (dates before 1900).
SESSION_ZONES = ["America/New_York", "America/Sao_Paulo", "Pacific/Apia", "Asia/Kolkata",
                 "Australia/Lord_Howe", "Europe/Dublin", "+05:30", "-03:00", "UTC"]
_ZONE_YEARS = (1883, 1890, 1916, 1945, 1971, 2011, 2018, 2024)


@functools.cache
def zone_transitions(name: str) -> tuple[int, ...]:
    """Instants (microseconds) where the zone's offset changes, in a few chosen years: found
    by sampling every day and bisecting to the second (a test helper, independent of
    prunekit's own search)."""
    from prunekit.expr.syntax.moments import zone

    tz = zone(name)

    def offset(second: int) -> dt.timedelta:
        return ref.zone_datetime(second * 10**6, tz).utcoffset()

    found = []
    for year in _ZONE_YEARS:
        start = int((dt.datetime(year, 1, 1, tzinfo=dt.timezone.utc) - ref._UTC_EPOCH)
                    .total_seconds())
        for k in range(366):
            lo, hi = start + k * 86_400, start + (k + 1) * 86_400
            if offset(lo) == offset(hi):
                continue
            while hi - lo > 1:
                mid = (lo + hi) // 2
                lo, hi = (mid, hi) if offset(mid) == offset(lo) else (lo, mid)
            found.append(hi * 10**6)
    return tuple(found)


@st.composite
def zoned_instants(draw, name: str) -> int:
    """An instant (microseconds) near one of the zone's changes of offset (or, one time in
    five, anywhere from 1850 to 2100)."""
    anchors = zone_transitions(name)
    if not anchors or one_in(draw, 5):
        return draw(st.integers(-3_786_825_600, 4_102_444_800)) * 10**6
    anchor = pick(draw, anchors)
    step = pick(draw, [1, 10**6, 60 * 10**6, 1800 * 10**6, 3600 * 10**6, 86_400 * 10**6])
    return anchor + draw(st.integers(-50, 50)) * step + pick(draw, [0, 0, 0, -1, 1])
