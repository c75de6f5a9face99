"""Each column type end to end: a container that can be pruned, one that cannot, one that matches
on every row; and the shapes statistics arrive in (slices, chunks, batches, no containers)."""

from __future__ import annotations

import datetime as dt
from decimal import Decimal

import numpy as np
import pyarrow as pa
import pytest

import prunekit as pk
from tests.support.cases import (
    ALL,
    BACKENDS,
    MAYBE,
    NONE,
    check,
    classify,
    groups,
    multi,
    row,
    stats_table,
)

UTC = dt.timezone.utc
D = Decimal
V = pk.col("v")


def _int_cases(t: pa.DataType) -> list:
    info = np.iinfo(t.to_pandas_dtype())
    lo, hi = int(info.min), int(info.max)
    sql = "v > 4"
    return [
        row(1, 3, 0, 10, sql, NONE, "max 3 <= 4", col="v"),
        row(5, 9, 0, 10, sql, ALL, "min 5 > 4", col="v"),
        row(3, 5, 0, 10, sql, MAYBE, "5 may occur", col="v"),
        row(lo, lo, 0, 10, sql, NONE, f"the type's minimum {lo}", col="v"),
        row(hi, hi, 0, 10, sql, ALL, f"the type's maximum {hi}", col="v"),
        row(lo, hi, 0, 10, sql, MAYBE, "the whole range", col="v"),
        row(1, 3, 0, 10, V > 4, NONE, "builder: max 3", col="v"),
        row(hi, hi, 0, 10, V > 4, ALL, "builder: the type's maximum", col="v"),
        row(lo, lo, 0, 10, f"v = {lo}", ALL, "equality at the type's minimum", col="v"),
        row(hi, hi, 0, 10, f"v < {hi}", NONE, "nothing below the maximum", col="v"),
    ]


_UINT64 = [
    row(0, 2**63, 0, 10, "v > 9223372036854775808", NONE, "max 2**63 is not > 2**63", col="v"),
    row(2**63 + 1, 2**64 - 1, 0, 10, "v > 9223372036854775808", ALL, "above 2**63", col="v"),
    row(2**63, 2**63 + 1, 0, 10, "v > 9223372036854775808", MAYBE, "2**63 + 1 may occur",
        col="v"),
    row(2**63, 2**64 - 1, 0, 10, "v < 5", NONE, "values above 2**63 are not negative",
        col="v"),
    row(0, 4, 0, 10, "v < 5", ALL, "small values", col="v"),
    row(2**64 - 1, 2**64 - 1, 0, 10, "v = 18446744073709551615", ALL, "2**64 - 1 itself",
        col="v"),
    row(2**64 - 2, 2**64 - 2, 0, 10, V == 2**64 - 1, NONE, "builder: 2**64 - 2 != 2**64 - 1",
        col="v"),
]


def _float_cases() -> list:
    return [
        row(1.0, 3.0, 0, 10, "v > 4.5", NONE, "max 3", col="v", nan_count=0),
        row(5.0, 9.0, 0, 10, "v > 4.5", ALL, "min 5, no NaN", col="v", nan_count=0),
        row(3.0, 5.0, 0, 10, "v > 4.5", MAYBE, "5 may occur", col="v", nan_count=0),
        row(-np.inf, 3.0, 0, 10, "v > 4.5", NONE, "-inf min", col="v", nan_count=0),
        row(1.0, 3.0, 0, 10, V > 4.5, NONE, "builder: max 3", col="v", nan_count=0),
        row(1.5, 1.5, 0, 10, "v = 1.5", ALL, "exact equality", col="v", nan_count=0),
    ]


_DEC_SMALL = [  # decimal(10, 2): unscaled values fit int64
    row(D("1.00"), D("3.00"), 0, 10, "v > 4.5", NONE, "max 3.00", col="v"),
    row(D("5.00"), D("9.00"), 0, 10, "v > 4.5", ALL, "min 5.00", col="v"),
    row(D("4.50"), D("4.51"), 0, 10, "v > 4.5", MAYBE, "4.51 may occur", col="v"),
    row(D("-99999999.99"), D("-99999999.99"), 0, 10, "v > 4.5", NONE, "the type's minimum",
        col="v"),
    row(D("99999999.99"), D("99999999.99"), 0, 10, V > D("4.5"), ALL, "builder: maximum",
        col="v"),
]
BIG = "12345678901234567890.5"
_DEC_BIG = [  # decimal(30, 4): unscaled values far beyond int64
    row(D("-99999999999999999999999999.9999"), D("12345678901234567890.4999"), 0, 10,
        f"v > {BIG}", NONE, "max just below", col="v"),
    row(D("12345678901234567890.5001"), D("99999999999999999999999999.9999"), 0, 10,
        f"v > {BIG}", ALL, "min just above", col="v"),
    row(D("12345678901234567890.5000"), D("12345678901234567890.5001"), 0, 10, f"v > {BIG}",
        MAYBE, "the .5001 may occur", col="v"),
    row(D("12345678901234567890.5000"), D("12345678901234567890.5000"), 0, 10,
        V == D(BIG), ALL, "builder: exact equality", col="v"),
    row(D("-1.0000"), D("1.0000"), 0, 10, f"v = -{BIG}", NONE, "far below min", col="v"),
]


def _string_cases() -> list:
    return [
        row("a", "c", 0, 10, "v > 'd'", NONE, "max 'c'", col="v"),
        row("e", "z", 0, 10, "v > 'd'", ALL, "min 'e'", col="v"),
        row("c", "e", 0, 10, "v > 'd'", MAYBE, "'e' may occur", col="v"),
        row("é", "é", 0, 10, "v > 'd'", ALL, "UTF-8 bytes C3 A9 > 64", col="v"),
        row("a", "c", 0, 10, V > "d", NONE, "builder: max 'c'", col="v"),
        row("ac", "ad", 0, 10, "v LIKE 'ab%'", NONE, "no value starts with 'ab'", col="v"),
        row("aa", "az", 0, 10, "v LIKE 'ab%'", MAYBE, "'ab...' within", col="v"),
        row("b", "b", 0, 10, "v IN ('a', 'b', NULL)", ALL, "every value is 'b'", col="v"),
        row("c", "c", 0, 10, "v IN ('a', 'b', NULL)", NONE, "'c' is not listed", col="v"),
    ]


_BINARY = [
    row(b"\x00", b"\x7f", 0, 10, "v > X'80'", NONE, "bytes compare unsigned: 7F < 80", col="v"),
    row(b"\x81", b"\xff\xff", 0, 10, "v > X'80'", ALL, "81 > 80 (signed bytes would say <)",
        col="v"),
    row(b"\x7f", b"\x81", 0, 10, "v > X'80'", MAYBE, "81 may occur", col="v"),
    row(b"\x80", b"\x80", 0, 10, V == b"\x80", ALL, "builder: exact", col="v"),
    row(b"", b"\x00", 0, 10, V > b"\x00", NONE, "builder: nothing above 00", col="v"),
]

_BOOL = [
    row(False, False, 0, 10, "v", NONE, "every row FALSE", col="v"),
    row(True, True, 0, 10, "v", ALL, "every row TRUE", col="v"),
    row(False, True, 0, 10, "v", MAYBE, "both", col="v"),
    row(False, False, 0, 10, "v = TRUE", NONE, "every row FALSE", col="v"),
    row(True, True, 0, 10, V == pk.lit(True), ALL, "builder: every row TRUE", col="v"),
    row(True, True, 0, 10, "NOT v", NONE, "every row TRUE", col="v"),
]


def _date_cases() -> list:
    day = dt.date
    sql = "v > DATE '2024-01-01'"
    return [
        row(day(2023, 1, 1), day(2024, 1, 1), 0, 10, sql, NONE, "max is the date itself",
            col="v"),
        row(day(2024, 1, 2), day(2024, 12, 31), 0, 10, sql, ALL, "min the day after", col="v"),
        row(day(2023, 12, 31), day(2024, 1, 2), 0, 10, sql, MAYBE, "01-02 may occur", col="v"),
        row(day(1969, 12, 30), day(1969, 12, 31), 0, 10, "v >= DATE '1970-01-01'", NONE,
            "before the epoch", col="v"),
        row(day(2023, 1, 1), day(2024, 1, 1), 0, 10, V > pk.lit(day(2024, 1, 1)), NONE,
            "builder: max is the date itself", col="v"),
    ]


# unit -> (fraction in the literal, ticks per second, ticks of the literal past midnight)
_UNITS = {"s": (".5", 1, 0.5), "ms": (".0005", 10**3, 0.5), "us": (".000001", 10**6, 1),
          "ns": (".000001", 10**9, 1000)}
_MIDNIGHT = 1_704_067_200  # 2024-01-01 00:00:00 UTC in seconds


def _timestamp_cases(unit: str, tz: str | None) -> list:
    frac, per_s, lit_ticks = _UNITS[unit]
    t0 = _MIDNIGHT * per_s
    below = t0 + int(np.ceil(lit_ticks)) - 1  # last tick before the literal
    at = t0 + int(np.ceil(lit_ticks))  # first tick at or after it
    if tz is None:
        sql = f"v >= TIMESTAMP_NTZ '2024-01-01 00:00:00{frac}'"
        lit = dt.datetime(2024, 1, 1, 0, 0, 0, round(float(frac) * 10**6))
    else:
        sql = f"v >= TIMESTAMP '2024-01-01 00:00:00{frac}+00:00'"
        lit = dt.datetime(2024, 1, 1, 0, 0, 0, round(float(frac) * 10**6), tzinfo=UTC)
    return [
        row(t0 - 10**6, below, 0, 10, sql, NONE, f"max is the last {unit} tick before", col="v"),
        row(at, at + 10**6, 0, 10, sql, ALL, f"min is the first {unit} tick at or after",
            col="v"),
        row(below, at, 0, 10, sql, MAYBE, "both sides", col="v"),
        row(t0 - 10**6, below, 0, 10, V >= pk.lit(lit), NONE, "builder: the same literal",
            col="v"),
        row(at, at + 10**6, 0, 10, V >= pk.lit(lit), ALL, "builder", col="v"),
    ]


TYPES = (
    [(t, _int_cases(t)) for t in (pa.int8(), pa.int16(), pa.int32(), pa.int64(),
                                   pa.uint8(), pa.uint16(), pa.uint32(), pa.uint64())]
    + [(pa.uint64(), _UINT64)]
    + [(t, _float_cases()) for t in (pa.float32(), pa.float64())]
    + [(pa.decimal128(10, 2), _DEC_SMALL), (pa.decimal128(30, 4), _DEC_BIG)]
    + [(t, _string_cases()) for t in (pa.string(), pa.large_string(), pa.string_view())]
    + [(pa.binary(), _BINARY), (pa.large_binary(), _BINARY), (pa.bool_(), _BOOL)]
    + [(t, _date_cases()) for t in (pa.date32(), pa.date64())]
    + [(pa.timestamp(u, tz), _timestamp_cases(u, tz)) for u in _UNITS
       for tz in (None, "UTC", "America/New_York")]
)


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize(("t", "rows"), [pytest.param(t, r, id=str(t)) for t, r in TYPES])
def test_type_end_to_end(t, rows, backend):
    check(rows, pa.schema([("v", t)]), backend)


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize(("t", "rows"), [pytest.param(t, r, id=str(t)) for t, r in TYPES])
def test_type_sliced_with_offset(t, rows, backend):
    # The first predicate's containers behind three containers of unknowns, sliced off again:
    # values and validity bits start at offset 3 (bit-packed booleans, strided decimals).
    group = groups(rows)[0]
    unknown = {"row_count": None, "v": {"min": None, "max": None, "null_count": None}}
    schema = pa.schema([("v", t)])
    table = stats_table([unknown] * 3 + [r.stats for r in group], schema).slice(3)
    got = pk.PruningPredicate(group[0].predicate, schema).classify(table, backend=backend)
    want = [r.expected for r in group]
    assert got.tolist() == want, [r.why for r in group]


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("precision", [1, 9, 18, 19, 38])
def test_decimal_precisions(precision, backend):
    # Every precision on both sides of 18 digits, with a scale that leaves one integer digit.
    t = pa.decimal128(precision, precision - 1)
    tiny = D(1).scaleb(-(precision - 1))  # the smallest step of the type
    rows = [
        row(D(0), D(0), 0, 10, "v > 0", NONE, "max 0", col="v"),
        row(tiny, D(1), 0, 10, "v > 0", ALL, "min is one step above 0", col="v"),
        row(D(0), tiny, 0, 10, "v > 0", MAYBE, "the step may occur", col="v"),
        row(tiny, tiny, 0, 10, V == tiny, ALL, "builder: exact equality at full scale",
            col="v"),
    ]
    check(rows, pa.schema([("v", t)]), backend)


# ---- shapes of the statistics input -----------------------------------------------------------
SCHEMA = pa.schema([("x", pa.int64()), ("s", pa.string())])
PRED = "x > 5 AND s >= 'm'"
CONTAINERS = [
    multi(10, PRED, NONE, "x max 4", x=(0, 4, 0), s=("a", "z", 0)),
    multi(10, PRED, ALL, "both hold on every row", x=(6, 9, 0), s=("m", "z", 0)),
    multi(10, PRED, MAYBE, "x has a NULL row", x=(6, 9, 1), s=("m", "z", 0)),
    multi(10, PRED, NONE, "s max 'b'", x=(None, None, None), s=("a", "b", 0)),
    multi(10, PRED, MAYBE, "x straddles 5", x=(3, 7, 0), s=("n", "p", 0)),
    multi(10, PRED, NONE, "s is all NULL", x=(6, 9, 0), s=(None, None, 10)),
    multi(0, PRED, NONE, "empty", x=(6, 9, 0), s=("x", "y", 0)),
    multi(10, PRED, ALL, "both hold", x=(7, 8, 0), s=("q", "r", 0)),
    multi(10, PRED, MAYBE, "x bounds unknown", x=(None, None, 0), s=("m", "n", None)),
    multi(10, PRED, ALL, "both hold", x=(10, 10, 0), s=("zz", "zz", 0)),
]
EXPECTED = [r.expected for r in CONTAINERS]


def _full_table() -> pa.Table:
    return stats_table([r.stats for r in CONTAINERS], SCHEMA)


@pytest.mark.parametrize("backend", BACKENDS)
def test_whole_table(backend):
    check(CONTAINERS, SCHEMA, backend)


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize(("start", "length"), [(3, 5), (1, 9), (9, 1), (5, 0), (0, 10), (7, 3)])
def test_sliced_table(start, length, backend):
    # A slice keeps its parent's buffers with an offset (validity bits not at a byte boundary).
    pred = pk.PruningPredicate(PRED, SCHEMA)
    table = _full_table().slice(start, length)
    got = pred.classify(table, backend=backend).tolist()
    assert got == EXPECTED[start:start + length]
    batch = _full_table().to_batches()[0].slice(start, length)
    assert pred.classify(batch, backend=backend).tolist() == EXPECTED[start:start + length]


@pytest.mark.parametrize("backend", BACKENDS)
def test_sliced_struct_children(backend):
    # The struct column itself sliced (its children keep the parent's offset), and a struct whose
    # children are longer than it (StructArray.from_arrays of slices).
    pred = pk.PruningPredicate(PRED, SCHEMA)
    full = _full_table()
    x, s = full.column("x").chunk(0), full.column("s").chunk(0)
    table = pa.table({"row_count": full.column("row_count").chunk(0).slice(2, 6),
                      "x": x.slice(2, 6), "s": s.slice(2, 6)})
    assert pred.classify(table, backend=backend).tolist() == EXPECTED[2:8]


@pytest.mark.parametrize("backend", BACKENDS)
def test_chunked_tables(backend):
    pred = pk.PruningPredicate(PRED, SCHEMA)
    full = _full_table()
    # Several record batches.
    batches = [full.slice(0, 3), full.slice(3, 4), full.slice(7, 3)]
    table = pa.Table.from_batches([b for t in batches for b in t.to_batches()])
    assert table.column("x").num_chunks == 3
    assert pred.classify(table, backend=backend).tolist() == EXPECTED
    # Different chunking per column.
    def chunks(name, cuts):
        arr = full.column(name).chunk(0)
        bounds = [0, *cuts, len(arr)]
        return pa.chunked_array([arr.slice(a, b - a) for a, b in zip(bounds, bounds[1:],
                                                                         strict=False)])
    table = pa.table({"row_count": chunks("row_count", [5]), "x": chunks("x", [2, 3, 8]),
                      "s": chunks("s", [1, 6, 7, 9])})
    assert pred.classify(table, backend=backend).tolist() == EXPECTED
    # A chunk of length zero in the middle.
    table = pa.table({"row_count": chunks("row_count", [4, 4]), "x": chunks("x", [4]),
                      "s": chunks("s", [])})
    assert pred.classify(table, backend=backend).tolist() == EXPECTED


@pytest.mark.parametrize("backend", BACKENDS)
def test_no_containers(backend):
    pred = pk.PruningPredicate(PRED, SCHEMA)
    empty = _full_table().slice(0, 0)
    for stats in (empty, empty.to_batches()[0] if empty.to_batches() else
                  pa.RecordBatch.from_pylist([], schema=empty.schema),
                  stats_table([], SCHEMA),
                  pk.Statistics.from_numpy(row_count=np.array([], np.int64), columns={
                      "x": {"min": np.array([], np.int64), "max": np.array([], np.int64),
                            "null_count": np.array([], np.int64)}})):
        out = pred.classify(stats, backend=backend)
        assert out.dtype == np.int8 and out.shape == (0,)
        assert pred.prune(stats).shape == (0,)


@pytest.mark.parametrize("backend", BACKENDS)
def test_record_batch_statistics(backend):
    pred = pk.PruningPredicate(PRED, SCHEMA)
    full = _full_table()
    batch = pa.RecordBatch.from_arrays([c.combine_chunks() for c in full.columns],
                                       names=full.column_names)
    assert isinstance(batch, pa.RecordBatch)
    assert pred.classify(batch, backend=backend).tolist() == EXPECTED
    stats = pk.Statistics.from_arrow(batch)
    assert pred.classify(stats, backend=backend).tolist() == EXPECTED
    assert pred.prune(batch).tolist() == [e != NONE for e in EXPECTED]


@pytest.mark.parametrize("backend", BACKENDS)
def test_extra_columns_ignored(backend):
    pred = pk.PruningPredicate(PRED, SCHEMA)
    full = _full_table()
    n = full.num_rows
    other = pa.StructArray.from_arrays(  # statistics of a column the predicate does not name
        [pa.array([1.5] * n), pa.array([2.5] * n), pa.array([0] * n, pa.int64())],
        ["min", "max", "null_count"])
    table = (full.append_column("path", pa.array([f"part-{i}.parquet" for i in range(n)]))
             .append_column("row_group", pa.array(range(n), pa.int32()))
             .append_column("tags", pa.array([["a"]] * n, pa.list_(pa.string())))
             .append_column("unrelated", other))
    table = table.select(["path", "x", "unrelated", "row_count", "tags", "s", "row_group"])
    assert pred.classify(table, backend=backend).tolist() == EXPECTED


@pytest.mark.parametrize("backend", BACKENDS)
def test_from_numpy_matches_arrow(backend):
    # The same four containers given as NumPy arrays: plain, masked (masked = unknown), None.
    pred = pk.PruningPredicate("x > 5", SCHEMA)
    stats = pk.Statistics.from_numpy(
        row_count=np.array([10, 10, 10, 0]),
        columns={"x": {"min": np.ma.masked_array([0, 6, 0, 6], mask=[0, 0, 1, 0]),
                       "max": np.array([4, 9, 9, 9]),
                       "null_count": np.ma.masked_array([0, 0, 0, 0], mask=[0, 0, 0, 1])}})
    # max 4 / min 6 no NULL / min unknown / empty
    assert pred.classify(stats, backend=backend).tolist() == [NONE, ALL, MAYBE, NONE]
    stats = pk.Statistics.from_numpy(row_count=None, columns={
        "x": {"min": None, "max": np.array([4, 9]), "null_count": None}}, types={"x": pa.int64()})
    # max 4 still prunes; nothing else known
    assert pred.classify(stats, backend=backend).tolist() == [NONE, MAYBE]


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("types", [None, {"a": pa.uint64()}])
def test_from_numpy_python_ints_stay_exact(types, backend):
    # Python ints mixing 2**63 and above with smaller ones: NumPy alone would round them through
    # float64 (2**53 + 1 to 2**53), and the first container would be pruned though it matches.
    stats = pk.Statistics.from_numpy(row_count=[10, 10], columns={"a": {
        "min": [2**53 + 1, 2**63 + 1], "max": [2**53 + 1, 2**64 - 1], "null_count": [0, 0]}},
        types=types)
    assert stats.table.column("a").type.field("min").type == pa.uint64()
    assert stats.table.column("a").combine_chunks().field("min").to_pylist() == [
        2**53 + 1, 2**63 + 1]
    pred = pk.PruningPredicate("a = 9007199254740993", {"a": pa.uint64()})
    assert pred.classify(stats, backend=backend).tolist() == [ALL, NONE]


@pytest.mark.parametrize("backend", BACKENDS)
def test_from_numpy_python_ints_are_unscaled_decimals(backend):
    # Unscaled, as Parquet stores DECIMAL bounds, also when some do not fit BIGINT: 1234 is
    # 12.34, and 2**63 + 1 stays exact.
    t = pa.decimal128(38, 2)
    stats = pk.Statistics.from_numpy(row_count=[10, 10], columns={"d": {
        "min": [1234, 2**63 + 1], "max": [1234, 2**63 + 1], "null_count": [0, 0]}},
        types={"d": t})
    assert stats.table.column("d").combine_chunks().field("min").to_pylist() == [
        Decimal("12.34"), Decimal(2**63 + 1).scaleb(-2)]
    pred = pk.PruningPredicate("d = 12.34", {"d": t})
    assert pred.classify(stats, backend=backend).tolist() == [ALL, NONE]


def test_from_numpy_python_ints_for_booleans():
    # 0 and 1 still read as FALSE and TRUE for a BOOLEAN column and for exactness flags.
    stats = pk.Statistics.from_numpy(row_count=[10], columns={"b": {
        "min": [0], "max": [1], "null_count": [0], "min_exact": [1]}}, types={"b": pa.bool_()})
    got = stats.table.column("b").combine_chunks()
    assert (got.field("min").to_pylist(), got.field("min_exact").to_pylist()) == ([False], [True])


def test_from_numpy_python_ints_that_fit_no_integer_type():
    with pytest.raises(pk.StatisticsError, match=r"-1 \.\. 9223372036854775808 fit no integer"):
        pk.Statistics.from_numpy(row_count=[1, 1], columns={"a": {
            "min": [-1, 2**63], "max": [0, 2**63], "null_count": [0, 0]}})
    with pytest.raises(pk.StatisticsError, match="do not fit type int64"):
        pk.Statistics.from_numpy(row_count=[1, 1], columns={"a": {
            "min": [-1, 2**63], "max": [0, 2**63], "null_count": [0, 0]}},
            types={"a": pa.int64()})


@pytest.mark.parametrize("backend", BACKENDS)
def test_dense_and_masked_layouts_agree(backend):
    # The same container alone (no Arrow nulls anywhere) and next to one with unknowns.
    dense = [CONTAINERS[1].stats]
    mixed = [CONTAINERS[1].stats, CONTAINERS[8].stats]
    assert classify(PRED, SCHEMA, dense, backend).tolist() == [ALL]
    assert classify(PRED, SCHEMA, mixed, backend).tolist() == [ALL, MAYBE]


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize(("stat_type", "values"), [
    (pa.int32(), [0, 6]), (pa.int16(), [0, 6]), (pa.uint32(), [0, 6])])
def test_narrower_count_and_bound_types(stat_type, values, backend):
    # Counts and bounds in another integer type than the canonical int64 are still integers.
    x = pa.StructArray.from_arrays(
        [pa.array(values, stat_type), pa.array([4, 9], stat_type),
         pa.array([0, 0], stat_type)], ["min", "max", "null_count"])
    table = pa.table({"row_count": pa.array([10, 10], stat_type), "x": x})
    got = pk.PruningPredicate("x > 5", SCHEMA).classify(table, backend=backend).tolist()
    assert got == [NONE, ALL]  # max 4 / min 6, no NULL
