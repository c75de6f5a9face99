"""Every rule of docs/semantics.md (the correctness contract), one container per row, the reason
beside the answer.

Where a rule can be broken in two directions the cases come in pairs: a container where pruning
(or ALL_MATCH) is allowed, next to one where the same shortcut would lose rows. ``NOT_NONE`` marks
containers that hold a matching row but where docs/semantics.md does not demand ALL_MATCH: only the
unsound answer NONE_MATCH fails there.
"""

from __future__ import annotations

import datetime as dt
from decimal import Decimal

import numpy as np
import pyarrow as pa
import pytest

import prunekit as pk
from tests.support.cases import (
    ABSENT,
    ALL,
    BACKENDS,
    MAYBE,
    NONE,
    NOT_NONE,
    by_predicate,
    check,
    classify,
    multi,
    row,
    stats_table,
)

UTC = dt.timezone.utc
NAN, INF = float("nan"), float("inf")
NAN_SQL = "CAST('NaN' AS DOUBLE)"
INF_SQL = "CAST('Infinity' AS DOUBLE)"

SCHEMA = pa.schema([
    ("x", pa.int64()), ("y", pa.int64()), ("a", pa.int64()), ("b", pa.int64()),
    ("x32", pa.int32()), ("i8", pa.int8()), ("u8", pa.uint8()), ("u64", pa.uint64()),
    ("f", pa.float64()), ("fa", pa.float64()), ("fb", pa.float64()), ("g", pa.float32()),
    ("s", pa.string()), ("bo", pa.bool_()),
    ("d", pa.decimal128(10, 2)), ("dd", pa.decimal128(20, 18)), ("e", pa.decimal128(12, 4)),
    ("ts", pa.timestamp("s", tz="UTC")), ("tms", pa.timestamp("ms", tz="UTC")),
    ("tns", pa.timestamp("ns", tz="UTC")), ("tny", pa.timestamp("us", tz="America/New_York")),
    ("ntz", pa.timestamp("us")), ("dt", pa.date32()),
])


def _run(rows, backend, **options):
    check(rows, SCHEMA, backend, **options)


# ---- §1 row_count: unknown when missing or negative; 0 means empty ----------------------------
ROW_COUNT = [  # min, max, nulls, rows, predicate, expected, why
    row(None, None, 10, 10, "x IS NULL", ALL, "null_count == row_count: every row is NULL"),
    row(None, None, 10, None, "x IS NULL", MAYBE,
        "row_count unknown: there may be rows beyond the 10 NULLs"),
    row(None, None, 10, -1, "x IS NULL", MAYBE, "a negative row_count is unknown"),
    row(None, None, 10, 10, "x IS NOT NULL", NONE, "every row is NULL"),
    row(None, None, 10, None, "x IS NOT NULL", MAYBE, "row_count unknown: maybe more rows"),
    row(None, None, 10, -5, "x IS NOT NULL", MAYBE,
        "-5 is unknown, not 'fewer rows than NULLs' (that would prune unsoundly)"),
    row(0, 10, 0, 0, "x = 5", NONE, "row_count 0: an empty container matches nothing"),
    row(0, 10, 0, -1, "x = 5", MAYBE, "row_count -1 is unknown, not empty"),
    row(0, 10, 0, None, "x = 5", MAYBE, "row_count unknown, 5 within [0, 10]"),
]


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("rows", by_predicate(ROW_COUNT))
def test_row_count(rows, backend):
    _run(rows, backend)


# ---- §1 null_count: unknown when missing, negative or > row_count -----------------------------
NULL_COUNT = [
    row(5, 5, 0, 10, "x = 5", ALL, "exact (the default) min = max = 5, no NULL"),
    row(5, 5, None, 10, "x = 5", MAYBE, "null_count unknown: a NULL row is not TRUE"),
    row(5, 5, -1, 10, "x = 5", MAYBE, "a negative null_count is unknown, not 'no NULL'"),
    row(5, 5, 11, 10, "x = 5", MAYBE, "null_count > row_count is unknown, not 'all NULL'"),
    row(0, 10, 0, 10, "x IS NULL", NONE, "null_count 0: no NULL row"),
    row(0, 10, 2, 10, "x IS NULL", MAYBE, "two NULL rows, eight values"),
    row(0, 10, None, 10, "x IS NULL", MAYBE, "null_count unknown"),
    row(0, 10, -1, 10, "x IS NULL", MAYBE, "a negative null_count is unknown, not 'no NULL'"),
    row(None, None, 11, 10, "x IS NULL", MAYBE,
        "null_count > row_count is unknown, not 'all NULL'"),
    row(0, 10, 0, 10, "x IS NOT NULL", ALL, "null_count 0: every row has a value"),
    row(0, 10, -1, 10, "x IS NOT NULL", MAYBE, "a negative null_count is unknown"),
    row(0, 10, None, 10, "x IS NOT NULL", MAYBE, "null_count unknown"),
    row(None, None, 11, 10, "x IS NOT NULL", MAYBE,
        "null_count > row_count is unknown, not 'all NULL'"),
]


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("rows", by_predicate(NULL_COUNT))
def test_null_count(rows, backend):
    _run(rows, backend)


# ---- §1 min / max: each may be missing; min > max makes both unknown --------------------------
MIN_MAX = [
    row(0, 4, 0, 10, "x = 5", NONE, "max 4 < 5"),
    row(6, 9, 0, 10, "x = 5", NONE, "min 6 > 5"),
    row(0, 10, 0, 10, "x = 5", MAYBE, "5 within [0, 10]"),
    row(None, 4, 0, 10, "x = 5", NONE, "max < 5 alone suffices"),
    row(6, None, 0, 10, "x = 5", NONE, "min > 5 alone suffices"),
    row(None, 10, 0, 10, "x = 5", MAYBE, "min unknown, max 10 >= 5"),
    row(None, None, 0, 10, "x = 5", MAYBE, "bounds unknown"),
    row(8, 4, 0, 10, "x = 5", MAYBE, "min > max: both bounds unknown"),
    row(7, 9, 0, 10, "x > 6", ALL, "min 7 > 6, no NULL"),
    row(0, 4, 0, 10, "x > 6", NONE, "max 4"),
    row(8, 4, 0, 10, "x > 6", MAYBE, "min > max: the max 4 cannot prune"),
    row(0, 4, 0, 10, "x < 6", ALL, "max 4 < 6, no NULL"),
    row(8, 4, 0, 10, "x < 6", MAYBE, "min > max: the min 8 cannot prune"),
    row(8, 4, 0, 10, "x >= 0", MAYBE, "min > max: the min 8 cannot prove ALL_MATCH"),
    row(0, 4, 0, 10, "x >= 0", ALL, "min 0 >= 0"),
]


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("rows", by_predicate(MIN_MAX))
def test_min_max(rows, backend):
    _run(rows, backend)


# ---- §1 min_exact / max_exact: an inexact bound bounds, but never proves equality -------------
EXACT = [
    row(0, 4, 0, 10, "x = 5", NONE, "an inexact max 4 is still an upper bound",
        min_exact=False, max_exact=False),
    row(6, 9, 0, 10, "x = 5", NONE, "an inexact min 6 is still a lower bound",
        min_exact=False, max_exact=False),
    row(5, 5, 0, 10, "x = 5", ALL, "exact min = max = 5", min_exact=True, max_exact=True),
    row(5, 5, 0, 10, "x = 5", MAYBE, "inexact bounds never prove equality",
        min_exact=False, max_exact=False),
    row(5, 5, 0, 10, "x = 5", MAYBE, "one inexact bound cannot prove equality",
        min_exact=True, max_exact=False),
    row(5, 5, 0, 10, "x != 5", NONE, "min == max == 5, both exact",
        min_exact=True, max_exact=True),
    row(5, 5, 0, 10, "x != 5", MAYBE, "x != 5 is impossible only when both bounds are exact",
        min_exact=False, max_exact=True),
    row(5, 5, 0, 10, "x != 5", MAYBE, "inexact bounds", min_exact=False, max_exact=False),
    row(5, 7, 0, 10, "x < 5", NONE, "inexact min 5 is still <= every value",
        min_exact=False, max_exact=False),
    row(5, 7, 0, 10, "x > 4", ALL, "inexact bounds still bound every value: all > 4",
        min_exact=False, max_exact=False),
    row(4, 7, 0, 10, "x > 4", MAYBE, "4 itself may occur", min_exact=False, max_exact=False),
    row(5, 5, 0, 10, "x IN (5, 7)", ALL, "exact min = max = 5", min_exact=True,
        max_exact=True),
    row(5, 5, 0, 10, "x IN (5, 7)", MAYBE, "IN is equality: inexact bounds cannot prove it",
        min_exact=False, max_exact=False),
    row(5, 5, 0, 10, "x NOT IN (5, 7)", NONE, "exact min = max = 5", min_exact=True,
        max_exact=True),
    row(5, 5, 0, 10, "x NOT IN (5, 7)", MAYBE,
        "x != 5 is impossible only when both bounds are exact", min_exact=False,
        max_exact=False),
    row(8, 9, 0, 10, "x IN (5, 7)", NONE, "inexact bounds still bound: no 5 or 7",
        min_exact=False, max_exact=False),
    row("ab", "ab", 0, 10, "s IN ('ab', 'zz')", MAYBE, "truncated bounds: values may be longer",
        col="s", min_exact=False, max_exact=False),
    row("ab", "ac", 0, 10, "s > 'ad'", NONE, "a truncated (inexact) max 'ac' still bounds",
        col="s", min_exact=False, max_exact=False),
    row("ab", "ab", 0, 10, "s = 'ab'", MAYBE, "truncated bounds: values may be longer",
        col="s", min_exact=False, max_exact=False),
    row("ab", "ab", 0, 10, "s = 'ab'", ALL, "exact bounds", col="s",
        min_exact=True, max_exact=True),
]


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("rows", by_predicate(EXACT))
def test_exactness(rows, backend):
    _run(rows, backend)


# ---- §1 an all-NULL column (null_count == row_count) ------------------------------------------
ALL_NULL = [
    row(None, None, 10, 10, "x = 5", NONE, "all NULL: x = 5 is NULL on every row"),
    row(None, None, 10, 10, "x != 5", NONE, "all NULL: x != 5 is NULL on every row"),
    row(None, None, 10, 10, "x < 5 OR x >= 5", NONE, "NULL OR NULL is NULL"),
    row(None, None, 9, 10, "x < 5 OR x >= 5", MAYBE, "one row has a value"),
    row(None, None, 10, None, "x = 5", MAYBE, "row_count unknown: not known to be all NULL"),
    row(None, None, 10, 10, "x IS DISTINCT FROM 5", ALL, "NULL is distinct from 5"),
    row(None, None, 10, 10, "x IN (1, 2)", NONE, "NULL IN (1, 2) is NULL"),
    row(None, None, 10, 10, "x NOT IN (1, 2)", NONE,
        "NULL NOT IN (1, 2) is NULL: not derived from 'x IN cannot match'"),
    row(None, None, 10, 10, "isnan(f)", NONE, "isnan(NULL) is FALSE", col="f"),
    row(None, None, 10, 10, "NOT isnan(f)", ALL, "isnan(NULL) is FALSE, so NOT is TRUE",
        col="f"),
    row(None, None, 10, 10, "s LIKE 'a%'", NONE, "NULL LIKE is NULL", col="s"),
]


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("rows", by_predicate(ALL_NULL))
def test_all_null_column(rows, backend):
    _run(rows, backend)


@pytest.mark.parametrize("backend", BACKENDS)
def test_schema_evolution_column_missing_from_container(backend):
    # A container written before column x existed: x is NULL on all its rows. An adapter reports
    # that as null_count = row_count with no bounds; the bounds carry no type (Arrow null type).
    x = pa.StructArray.from_arrays(
        [pa.nulls(3), pa.nulls(3), pa.array([10, 10, None], pa.int64())],
        ["min", "max", "null_count"])
    stats = pa.table({"row_count": pa.array([10, None, 10], pa.int64()), "x": x})
    expected = {
        "x = 5": [NONE, MAYBE, MAYBE],  # all NULL / row_count unknown / null_count unknown
        "x IS NULL": [ALL, MAYBE, MAYBE],
        "x IS NOT NULL": [NONE, MAYBE, MAYBE],
        "NOT (x > 5)": [NONE, MAYBE, MAYBE],
    }
    for sql, want in expected.items():
        got = pk.PruningPredicate(sql, SCHEMA).classify(stats, backend=backend).tolist()
        assert got == want, sql


@pytest.mark.parametrize("backend", BACKENDS)
def test_statistics_missing_entirely_are_unknown(backend):
    # Every statistic is optional: a column without a statistics struct, or a struct that is
    # NULL for one container, is unknown (not all NULL) - only row_count 0 still prunes.
    stats = pa.table({"row_count": pa.array([10, 0], pa.int64())})
    for sql in ("x = 5", "x IS NULL", "x IS NOT NULL", "x NOT IN (1, 2)"):
        got = pk.PruningPredicate(sql, SCHEMA).classify(stats, backend=backend).tolist()
        assert got == [MAYBE, NONE], sql
    # A NULL struct hides whatever its children hold: here they would say max 4, no NULL.
    x = pa.StructArray.from_arrays(
        [pa.array([0, 0]), pa.array([4, 4]), pa.array([0, 0])], ["min", "max", "null_count"],
        mask=pa.array([True, False]))
    stats = pa.table({"row_count": pa.array([10, 10], pa.int64()), "x": x})
    got = pk.PruningPredicate("x = 5", SCHEMA).classify(stats, backend=backend).tolist()
    assert got == [MAYBE, NONE], "a NULL statistics struct is unknown"
    # No row_count column at all: bounds still prune, but 'all NULL' cannot be known.
    x = pa.StructArray.from_arrays(
        [pa.array([0, None]), pa.array([4, None]), pa.array([0, 10])],
        ["min", "max", "null_count"])
    stats = pa.table({"x": x})
    got = pk.PruningPredicate("x = 5", SCHEMA).classify(stats, backend=backend).tolist()
    assert got == [NONE, MAYBE], "max 4 prunes; 10 NULLs of an unknown number of rows do not"
    got = pk.PruningPredicate("x IS NULL", SCHEMA).classify(stats, backend=backend).tolist()
    assert got == [NONE, MAYBE], "no NULL / row_count unknown"


# ---- §2 three-valued logic ----------------------------------------------------------------------
THREE_VALUED = [
    row(1, 10, 0, 10, "x = NULL", NONE, "a comparison with NULL is NULL, never TRUE"),
    row(1, 10, 0, 10, "x <> NULL", NONE, "a comparison with NULL is NULL"),
    row(1, 10, 0, 10, "NOT (x = NULL)", NONE, "NOT NULL is NULL"),
    row(1, 10, 0, 10, "x = NULL OR x > 0", ALL, "NULL OR TRUE = TRUE"),
    row(1, 10, 0, 10, "x = NULL OR x > 20", NONE, "NULL OR FALSE = NULL"),
    row(1, 10, 0, 10, "x = NULL AND x > 20", NONE, "NULL AND FALSE = FALSE"),
    row(1, 10, 0, 10, "NOT (x = NULL AND x > 20)", ALL, "NOT (NULL AND FALSE) = NOT FALSE"),
    row(1, 10, 0, 10, "NOT (x = NULL OR x > 0)", NONE, "NOT (NULL OR TRUE) = FALSE"),
    row(1, 10, 0, 10, "x > 0 AND NULL", NONE, "TRUE AND NULL = NULL"),
    row(1, 10, 0, 10, "x > 0 OR NULL", ALL, "TRUE OR NULL = TRUE"),
    row(1, 10, 2, 10, "x > 0 OR NULL", MAYBE, "NULL rows: NULL OR NULL = NULL"),
    multi(10, "x = 1 AND y = 1", NONE, "y = 1 impossible: FALSE AND anything = FALSE",
          x=(0, 5, None), y=(2, 3, None)),
    multi(10, "x = 1 OR y = 1", MAYBE, "x = 1 may hold", x=(0, 5, None), y=(2, 3, None)),
    multi(10, "x = 1 OR y = 1", NONE, "neither can hold", x=(2, 5, None), y=(2, 3, None)),
    multi(10, "NOT (x > 5 AND y < 3)", ALL, "y < 3 is FALSE on every row, no NULL",
          x=(0, 9, 0), y=(3, 9, 0)),
    multi(10, "NOT (x > 5 AND y < 3)", MAYBE, "y has NULLs: NOT (TRUE AND NULL) is NULL",
          x=(6, 9, 0), y=(3, 9, 2)),
    multi(10, "NOT (x > 5 AND y < 3)", NONE, "both TRUE on every row", x=(6, 9, 0),
          y=(0, 2, 0)),
]


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("rows", by_predicate(THREE_VALUED))
def test_three_valued_logic(rows, backend):
    _run(rows, backend)


# ---- §3 ALL_MATCH is never "NOT p cannot match": NULL rows satisfy neither --------------------
NOT_P = [
    row(0, 4, 0, 10, "x != 5", ALL, "max < 5 and no NULL: every row differs from 5"),
    row(0, 4, 2, 10, "x != 5", MAYBE, "x = 5 cannot match, yet NULL rows make x != 5 NULL"),
    row(0, 4, 2, 10, "NOT (x = 5)", MAYBE, "same through NOT"),
    row(0, 4, None, 10, "NOT (x = 5)", MAYBE, "null_count unknown"),
    row(0, 4, 0, 10, "NOT (x = 5)", ALL, "no NULL"),
    row(0, 4, 2, 10, "NOT (x > 4)", MAYBE, "NULL rows"),
    row(0, 4, 2, 10, "x NOT IN (5, 6)", MAYBE, "NULL rows"),
    row(0, 4, 0, 10, "x NOT IN (5, 6)", ALL, "no NULL, no 5 or 6"),
    row(0, 4, 2, 10, "NOT (x BETWEEN 5 AND 6)", MAYBE, "NULL rows"),
    row("ac", "ad", 2, 10, "NOT (s LIKE 'ab%')", MAYBE, "NULL rows", col="s"),
]


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("rows", by_predicate(NOT_P))
def test_all_match_needs_no_null(rows, backend):
    _run(rows, backend)


# ---- §3 the three outcomes; empty containers; never NULL ----------------------------------------
OUTCOMES = [
    row(None, None, 0, 0, "x IS NULL", NONE, "row_count 0: nothing to match"),
    row(None, None, 0, 0, "x IS NOT NULL", NONE, "row_count 0"),
    row(0, 10, 0, 0, "x IS NULL OR x IS NOT NULL", NONE, "row_count 0, although true per row"),
    row(0, 10, 0, 0, "TRUE", NONE, "an empty container is NONE_MATCH even for TRUE"),
    row(0, 10, 0, 10, "TRUE", ALL, "every row passes"),
    row(0, 10, 0, 10, "FALSE", NONE, "no row passes"),
    row(0, 10, 0, 10, "NULL", NONE, "a NULL filter passes no row"),
    row(0, 10, 0, 10, "NOT NULL", NONE, "NOT NULL is NULL"),
    row(None, None, None, None, "x = 5", MAYBE, "nothing known: MAYBE (never a NULL answer)"),
    row(None, None, None, None, "x IS NULL", MAYBE, "nothing known"),
    row(None, None, None, None, "NOT (x = 5)", MAYBE, "nothing known"),
]


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("rows", by_predicate(OUTCOMES))
def test_outcomes(rows, backend):
    _run(rows, backend)


# ---- §2 / §4 floats: NaN = NaN, NaN greatest; bounds that exclude NaN (the default) ------------
NAN_EXCLUDE = [
    row(1.0, 2.0, 0, 10, f"f = {NAN_SQL}", MAYBE,
        "bounds exclude NaN, nan_count unknown: a NaN row equals NaN", col="f"),
    row(1.0, 2.0, 0, 10, f"f = {NAN_SQL}", NONE, "nan_count 0", col="f", nan_count=0),
    row(1.0, 2.0, 0, 10, "f > 5", MAYBE, "a NaN row makes f > 5 TRUE (NaN is greatest)",
        col="f"),
    row(1.0, 2.0, 0, 10, "f > 5", NONE, "nan_count 0 and max 2", col="f", nan_count=0),
    row(1.0, 2.0, 0, 10, "f >= 5", MAYBE, "NaN >= 5", col="f"),
    row(1.0, 2.0, 0, 10, "f >= 5", NONE, "nan_count 0", col="f", nan_count=0),
    row(1.0, INF, 0, 10, f"f > {INF_SQL}", MAYBE, "NaN > +inf is TRUE", col="f"),
    row(1.0, INF, 0, 10, f"f > {INF_SQL}", NONE, "no NaN, nothing above +inf", col="f",
        nan_count=0),
    row(1.5, 1.5, 0, 10, "f != 1.5", MAYBE, "a NaN row differs from 1.5", col="f"),
    row(1.5, 1.5, 0, 10, "f != 1.5", NONE, "exact min = max = 1.5 and no NaN", col="f",
        nan_count=0),
    row(1.0, 2.0, 0, 10, "f < 3", MAYBE, "a NaN row makes f < 3 FALSE", col="f"),
    row(1.0, 2.0, 0, 10, "f < 3", ALL, "no NaN, max 2", col="f", nan_count=0),
    row(1.0, 2.0, 0, 10, "f <= 0", NONE, "min 1, and NaN <= 0 is FALSE", col="f"),
    row(1.0, 2.0, 0, 10, "f = 5", NONE, "max 2, and NaN != 5", col="f"),
    row(1.0, 2.0, 0, 10, "f != 5", ALL, "values in [1, 2] and NaN all differ from 5", col="f"),
    row(1.0, 2.0, 0, 10, "f >= 1", ALL, "min 1, and NaN >= 1 is TRUE too", col="f"),
    # A NaN bound where bounds exclude NaN makes that bound (only) unknown.
    row(1.0, NAN, 0, 10, "f > 5", MAYBE, "max NaN is unknown", col="f", nan_count=0),
    row(NAN, 10.0, 0, 10, "f < 5", MAYBE, "min NaN is unknown", col="f", nan_count=0),
    row(1.0, NAN, 0, 10, "f < 0", NONE, "min 1 still bounds", col="f", nan_count=0),
    row(NAN, 10.0, 0, 10, "f > 20", NONE, "max 10 still bounds", col="f", nan_count=0),
    row(1.0, 2.0, 0, 10, "isnan(f)", MAYBE, "nan_count unknown", col="f"),
    row(1.0, 2.0, 0, 10, "isnan(f)", NONE, "nan_count 0", col="f", nan_count=0),
    row(None, None, 0, 10, "isnan(f)", NOT_NONE, "10 NaN rows of 10", col="f", nan_count=10),
    row(1.0, 2.0, 3, 10, "NOT isnan(f)", ALL, "no NaN; isnan(NULL) is FALSE", col="f",
        nan_count=0),
    row(2.0, 3.0, 0, 10, f"f IN ({NAN_SQL}, 1.0)", MAYBE, "a NaN row is IN (NaN, ...)",
        col="f"),
    row(2.0, 3.0, 0, 10, f"f IN ({NAN_SQL}, 1.0)", NONE, "no NaN, no 1.0", col="f",
        nan_count=0),
    row(1.0, 2.0, 0, 10, f"f NOT IN ({NAN_SQL})", ALL, "no NaN, no NULL", col="f",
        nan_count=0),
    row(1.0, 2.0, 0, 10, f"f NOT IN ({NAN_SQL})", MAYBE, "a NaN row is not NOT IN (NaN)",
        col="f"),
    row(1.0, 2.0, 0, 10, f"f > {NAN_SQL}", NONE, "nothing is above NaN", col="f"),
    row(1.0, 2.0, 0, 10, f"f <= {NAN_SQL}", ALL, "everything is <= NaN", col="f"),
    row(1.0, 2.0, 0, 10, f"f < {NAN_SQL}", ALL, "numbers are < NaN", col="f", nan_count=0),
    row(1.0, 2.0, 0, 10, f"f < {NAN_SQL}", MAYBE, "a NaN row is not < NaN", col="f"),
    row(1.0, 2.0, 0, 10, "g > 5", MAYBE, "float32: a NaN row makes g > 5 TRUE", col="g"),
    row(1.0, 2.0, 0, 10, "g > 5", NONE, "float32, nan_count 0", col="g", nan_count=0),
]


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("rows", by_predicate(NAN_EXCLUDE))
def test_nan_bounds_exclude(rows, backend):
    _run(rows, backend)


# ---- §4 bounds that include NaN as the greatest value (Spark / Delta max) ----------------------
NAN_INCLUDE = [
    row(1.0, 2.0, 0, 10, "f > 5", NONE, "a finite max proves there is no NaN", col="f"),
    row(1.0, NAN, 0, 10, "f > 5", MAYBE, "max NaN: a NaN may be present, NaN > 5", col="f"),
    row(1.0, INF, 0, 10, f"f > {INF_SQL}", NONE, "max +inf (not NaN): nothing exceeds it",
        col="f"),
    row(1.0, NAN, 0, 10, f"f > {INF_SQL}", MAYBE, "NaN > +inf", col="f"),
    row(1.0, NAN, 0, 10, "f < 0", NONE, "min 1", col="f"),
    row(NAN, NAN, 0, 10, "f < 5", NONE, "min NaN: every value is NaN", col="f"),
    row(NAN, NAN, 0, 10, "f > 5", ALL, "every value is NaN, greater than 5", col="f"),
    row(NAN, NAN, 0, 10, f"f = {NAN_SQL}", ALL, "every value is NaN, and NaN = NaN", col="f"),
    row(1.0, 2.0, 0, 10, f"f = {NAN_SQL}", NONE, "finite max: no NaN", col="f"),
    row(1.0, NAN, 0, 10, f"f = {NAN_SQL}", MAYBE, "a NaN may be present", col="f"),
    row(NAN, NAN, 0, 10, f"f != {NAN_SQL}", NONE, "every value is NaN", col="f"),
    row(1.0, 2.0, 0, 10, "isnan(f)", NONE, "finite max: no NaN", col="f"),
    row(1.0, NAN, 0, 10, "isnan(f)", MAYBE, "a NaN may be present", col="f"),
    row(NAN, NAN, 0, 10, "isnan(f)", ALL, "every value is NaN", col="f"),
    row(1.0, 2.0, 0, 10, "f < 3", ALL, "finite max 2: no NaN", col="f"),
    row(1.0, NAN, 0, 10, "f < 3", MAYBE, "a NaN row is not < 3", col="f"),
]


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("rows", by_predicate(NAN_INCLUDE))
def test_nan_bounds_include(rows, backend):
    _run(rows, backend, nan_bounds="include")


NO_NAN = [
    row(1.0, 2.0, 0, 10, "f > 5", NONE, "no_nan: max 2 proves f > 5 impossible", col="f"),
    row(1.0, 2.0, 0, 10, "f < 3", ALL, "no_nan: every value is in [1, 2]", col="f"),
    row(1.0, 2.0, 0, 10, f"f = {NAN_SQL}", NONE, "no_nan", col="f"),
    row(1.0, 9.0, 0, 10, "f > 5", MAYBE, "5 within [1, 9]", col="f"),
]


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("rows", by_predicate(NO_NAN))
def test_no_nan_option(rows, backend):
    _run(rows, backend, no_nan=["f"])
    # The same containers without the option: a NaN may hide behind bounds that exclude it, and
    # each of these predicates is TRUE for some values and FALSE for others among [1, 2] + NaN.
    _run([r._replace(expected=MAYBE, why="without no_nan a NaN may be present")
          for r in rows], backend)


@pytest.mark.parametrize("backend", BACKENDS)
def test_nan_bounds_per_column(backend):
    # nan_bounds given per column: f's max is Spark's (includes NaN), fa's is Parquet's.
    rows = [multi(10, "f > 5 OR fa > 5", NONE, "f finite max 2 (include), fa nan_count 0",
                  f=(1.0, 2.0, 0), fa={"min": 1.0, "max": 2.0, "null_count": 0,
                                       "nan_count": 0}),
            multi(10, "f > 5 OR fa > 5", MAYBE, "fa: bounds exclude NaN, nan_count unknown",
                  f=(1.0, 2.0, 0), fa=(1.0, 2.0, 0))]
    check(rows, SCHEMA, backend, nan_bounds={"f": "include", "fa": "exclude"})


# ---- §2 / §4 zeros: -0.0 = 0.0, and a zero bound stands for both -------------------------------
F = pk.col("f")
ZEROS = [
    row(-0.0, -0.0, 0, 10, "f = 0.0", ALL, "-0.0 = 0.0", col="f", nan_count=0),
    row(-5.0, -0.0, 0, 10, "f = 0.0", NOT_NONE, "max -0.0 stands for 0.0 too", col="f",
        nan_count=0),
    row(0.0, 0.0, 0, 10, F == pk.lit(-0.0), ALL, "0.0 = -0.0", col="f", nan_count=0),
    row(0.0, 5.0, 0, 10, F == pk.lit(-0.0), NOT_NONE, "min 0.0 stands for -0.0 too", col="f",
        nan_count=0),
    row(0.0, 5.0, 0, 10, F <= pk.lit(-0.0), NOT_NONE, "a 0.0 row is <= -0.0", col="f",
        nan_count=0),
    row(-5.0, -0.0, 0, 10, "f >= 0.0", NOT_NONE, "a -0.0 row is >= 0.0", col="f", nan_count=0),
    row(-0.0, 5.0, 0, 10, "f < 0.0", NONE, "-0.0 < 0.0 is FALSE", col="f", nan_count=0),
    row(-5.0, 0.0, 0, 10, F > pk.lit(-0.0), NONE, "0.0 > -0.0 is FALSE", col="f", nan_count=0),
    row(-0.0, 5.0, 0, 10, "f >= 0.0", ALL, "-0.0 >= 0.0", col="f", nan_count=0),
    row(-0.0, -0.0, 0, 10, "f != 0.0", NONE, "every value is a zero (exact bounds), no NaN",
        col="f", nan_count=0),
]


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("rows", by_predicate(ZEROS))
def test_signed_zeros(rows, backend):
    _run(rows, backend)


# ---- §2 strings compare by UTF-8 bytes ---------------------------------------------------
STRINGS = [
    row("é", "é", 0, 10, "s > 'f'", ALL, "é is C3 A9 in UTF-8, above f (66); locales differ",
        col="s"),
    row("é", "é", 0, 10, "s < 'f'", NONE, "C3 A9 > 66", col="s"),
    row("a", "b", 0, 10, "s < 'Z'", NONE, "a (61) > Z (5A): binary, case-sensitive", col="s"),
    row("A", "Z", 0, 10, "s = 'b'", NONE, "b (62) > Z (5A)", col="s"),
    row("A", "z", 0, 10, "s = 'b'", MAYBE, "b within [A, z]", col="s"),
    row("😀", "😀", 0, 10, "s > '\ufffd'", ALL,
        "U+1F600 is F0 9F 98 80, above U+FFFD (EF BF BD); UTF-16 order is the reverse", col="s"),
    row("😀", "😀", 0, 10, "s < '\ufffd'", NONE, "F0.. > EF..", col="s"),
    row("\ufffd", "\ufffd", 0, 10, "s < '😀'", ALL, "EF.. < F0..", col="s"),
    row("ab", "ab", 0, 10, "s < 'abc'", ALL, "a proper prefix sorts first", col="s"),
    row("abc", "abd", 0, 10, "s < 'ab'", NONE, "'ab' is a prefix of every value", col="s"),
    row("", "", 0, 10, "s = ''", ALL, "the empty string is a value, not NULL", col="s"),
    row("", "a", 0, 10, "s < ''", NONE, "nothing sorts below the empty string", col="s"),
]


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("rows", by_predicate(STRINGS))
def test_string_byte_order(rows, backend):
    _run(rows, backend)


# ---- §2 LIKE: % and _ wildcards, \ as escape (or the ESCAPE character) ------------------------
LIKE = [
    row("ac", "ad", 0, 10, "s LIKE 'ab%'", NONE, "every value >= 'ac': none starts with 'ab'",
        col="s"),
    row("aa", "aaz", 0, 10, "s LIKE 'ab%'", NONE, "every value < 'ab'", col="s"),
    row("aa", "az", 0, 10, "s LIKE 'ab%'", MAYBE, "'ab...' may lie within", col="s"),
    row("ab", "ab", 0, 10, "s LIKE 'ab%'", NOT_NONE, "% matches the empty string", col="s"),
    row("abé", "abé", 0, 10, "s LIKE 'ab%'", NOT_NONE,
        "'abé' starts with 'ab'; its bytes C3 A9 are above 7F", col="s"),
    row("ab😀", "ab😀", 0, 10, "s LIKE 'ab%'", NOT_NONE, "a 4-byte character after 'ab'",
        col="s"),
    row("a\U0010ffff\U0010ffff", "a\U0010ffff\U0010ffff", 0, 10, "s LIKE 'a\U0010ffff%'",
        NOT_NONE, "a prefix ending in the greatest code point has no successor", col="s"),
    row("a\x7fx", "a\x7fx", 0, 10, "s LIKE 'a\x7f%'", NOT_NONE,
        "the successor of 7F is the 2-byte U+0080", col="s"),
    row("a\ud7ffx", "a\ud7ffx", 0, 10, "s LIKE 'a\ud7ff%'", NOT_NONE,
        "U+D7FF is followed by surrogates, which are not characters", col="s"),
    row("b", "c", 0, 10, "s LIKE 'a_c%'", NONE, "the prefix before _ is 'a'", col="s"),
    row("abc", "abd", 0, 10, "s LIKE 'a_c%'", NOT_NONE, "_ matches 'b': 'abc' matches",
        col="s"),
    row("abc", "abd", 0, 10, r"s LIKE 'a\_c%'", NONE,
        "an escaped _ is literal: prefix 'a_c', yet every value starts with 'ab'", col="s"),
    row("a_c", "a_d", 0, 10, r"s LIKE 'a\_c%'", NOT_NONE, "'a_c' matches", col="s"),
    row("ab", "az", 0, 10, r"s LIKE 'a\%'", NONE,
        "an escaped %: the pattern is the string 'a%', and % (25) < b (62)", col="s"),
    row("a%", "a%", 0, 10, r"s LIKE 'a\%'", ALL, "s = 'a%' on every row", col="s"),
    row("abc", "abd", 0, 10, "s LIKE 'a!_c%' ESCAPE '!'", NONE, "!_ is a literal _", col="s"),
    row("a_c", "a_c", 0, 10, "s LIKE 'a!_c%' ESCAPE '!'", NOT_NONE, "'a_c' matches", col="s"),
    row("a\\x", "a\\x", 0, 10, r"s LIKE 'a\%' ESCAPE '!'", NOT_NONE,
        "with ESCAPE '!' the backslash is literal and % a wildcard", col="s"),
    row("a%", "a%", 0, 10, r"s LIKE 'a\%' ESCAPE '!'", NONE, "'a%' does not start with 'a\\'",
        col="s"),
    row("abc", "abc", 0, 10, "s LIKE 'abc'", ALL, "no wildcard: equality", col="s"),
    row("abd", "abz", 0, 10, "s LIKE 'abc'", NONE, "no wildcard: 'abc' < min", col="s"),
    row("abb", "abd", 0, 10, "s LIKE 'abc'", MAYBE, "'abc' within", col="s"),
    row("ac", "ad", 0, 10, "s NOT LIKE 'ab%'", ALL, "no value starts with 'ab', no NULL",
        col="s"),
    row("ac", "ad", 1, 10, "s NOT LIKE 'ab%'", MAYBE, "a NULL row", col="s"),
    row("aa", "az", 0, 10, "s NOT LIKE 'ab%'", MAYBE, "some values may start with 'ab'",
        col="s"),
    row("abc", "abc", 0, 10, "s NOT LIKE 'abc'", NONE, "every value is 'abc'", col="s"),
    row("abc", "abc", 0, 10, "s LIKE '%c'", NOT_NONE, "'abc' ends with c", col="s"),
    row("x", "y", 0, 10, "s LIKE '%c'", NOT_NONE, "no literal prefix: 'xc' may occur", col="s"),
]


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("rows", by_predicate(LIKE))
def test_like(rows, backend):
    _run(rows, backend)


# ---- §2 IN / NOT IN with NULL in the list -------------------------------------------------------
IN_LIST = [
    row(5, 5, 0, 10, "x IN (5, NULL)", ALL, "x = 5 on every row: TRUE"),
    row(6, 9, 0, 10, "x IN (5, NULL)", NONE, "x != 5: the NULL makes it NULL, never TRUE"),
    row(4, 6, 0, 10, "x IN (5, NULL)", MAYBE, "5 within [4, 6]"),
    row(6, 9, 0, 10, "x NOT IN (5, NULL)", NONE, "NOT IN with a NULL is never TRUE"),
    row(5, 5, 0, 10, "x NOT IN (5, NULL)", NONE, "x = 5: FALSE"),
    row(None, None, 0, 10, "x NOT IN (5, NULL)", NONE, "never TRUE, whatever the statistics"),
    row(None, None, None, None, "x NOT IN (5, NULL)", NONE, "never TRUE, nothing known"),
    row(8, 9, 0, 10, "x NOT IN (5, 7)", ALL, "neither 5 nor 7 in [8, 9], no NULL"),
    row(8, 9, 1, 10, "x NOT IN (5, 7)", MAYBE, "a NULL row"),
    row(6, 9, 0, 10, "x NOT IN (5, 7)", MAYBE, "7 within [6, 9]"),
    row(5, 5, 0, 10, "x NOT IN (5, 7)", NONE, "every value is 5"),
    row(6, 6, 0, 10, "x IN (5, 7)", NONE, "6 is between the values, not one of them"),
    row(5, 7, 0, 10, "x IN (5, 7)", MAYBE, "5 and 7 within"),
    row(8, 9, 0, 10, "x IN (5, 7)", NONE, "both below min"),
]


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("rows", by_predicate(IN_LIST))
def test_in_list_with_null(rows, backend):
    _run(rows, backend)


# ---- §2 exact literal coercion ----------------------------------------------------------------
F32_TENTH = float(np.float32(0.1))
COERCION = [
    row(5, 6, 0, 10, "x = 5.5", NONE, "no integer equals 5.5"),
    row(None, None, None, 10, "x = 5.5", NONE, "never TRUE, whatever the statistics"),
    row(5, 6, 0, 10, "x != 5.5", ALL, "every integer differs from 5.5, no NULL"),
    row(0, 5, 0, 10, "x > 5.5", NONE, "x > 5.5 means x >= 6"),
    row(6, 9, 0, 10, "x > 5.5", ALL, "x >= 6 on every row"),
    row(5, 6, 0, 10, "x > 5.5", MAYBE, "6 may occur"),
    row(0, 5, 0, 10, "x >= 5.5", NONE, "x >= 6"),
    row(6, 9, 0, 10, "x < 5.5", NONE, "x <= 5"),
    row(0, 5, 0, 10, "x < 5.5", ALL, "x <= 5 on every row"),
    row(6, 9, 0, 10, "x <= 5.5", NONE, "x <= 5"),
    row(-5, -5, 0, 10, "x > -5.5", ALL, "x > -5.5 means x >= -5 (ceiling, not truncation)"),
    row(-6, -6, 0, 10, "x > -5.5", NONE, "-6 < -5.5"),
    row(-6, -6, 0, 10, "x >= -5.5", NONE, "x >= -5"),
    row(-5, 0, 0, 10, "x < -5.5", NONE, "x < -5.5 means x <= -6"),
    row(-6, -6, 0, 10, "x < -5.5", ALL, "-6 < -5.5"),
    row(2**53, 2**53, 0, 10, "x < 9007199254740993", ALL,
        "exact integers: 2**53 < 2**53 + 1 (equal as doubles)"),
    row(2**53, 2**53, 0, 10, "x = 9007199254740993", NONE, "exact: 2**53 != 2**53 + 1"),
    row(2**53 + 1, 2**53 + 1, 0, 10, "x > 9007199254740992", ALL, "exact: 2**53 + 1 > 2**53"),
    row(1, 1, 0, 10, "x = 1e0", ALL, "the double 1.0 equals 1"),
    row(1, 1, 0, 10, "x = 1.00", ALL, "the decimal 1.00 equals 1"),
    row(0, 5, 0, 10, "x > 5.5e0", NONE, "double 5.5: x >= 6"),
    row(6, 6, 0, 10, "x > 5.5e0", ALL, "6 > 5.5"),
    row(F32_TENTH, F32_TENTH, 0, 10, "g > 0.1", ALL,
        "float32 0.1 is 0.100000001490116..., above the exact 0.1", col="g", nan_count=0),
    row(F32_TENTH, F32_TENTH, 0, 10, "g = 0.1", NONE, "float32 0.1 != 0.1 exactly", col="g",
        nan_count=0),
    # Spark 4.3, checked: ANSI compares in DOUBLE (2**24 < 2**24 + 1 is TRUE); legacy mode
    # rounds the literal to FLOAT (2**24 < 2**24 is FALSE). Sound under both: MAYBE.
    row(16777216.0, 16777216.0, 0, 10, "g < 16777217", MAYBE,
        "TRUE under ANSI (DOUBLE), FALSE under legacy Spark (FLOAT)", col="g", nan_count=0),
    row(16777216.0, 16777216.0, 0, 10, "g = 16777217", MAYBE,
        "FALSE under ANSI (DOUBLE), TRUE under legacy Spark (FLOAT)", col="g", nan_count=0),
    row(16777216.0, 16777216.0, 0, 10, "g <= 16777217", ALL, "TRUE under both readings",
        col="g", nan_count=0),
    row(16777216.0, 16777216.0, 0, 10, "g > 16777217", NONE, "FALSE under both readings",
        col="g", nan_count=0),
    row(None, None, 0, 10, "x < 1e19", ALL, "every int64 is below 1e19, no NULL"),
    row(None, None, 0, 10, "x > 9.3e18", NONE, "no int64 exceeds 9.3e18"),
    row(5, 5, 0, 10, "x IN (5.5, 6.5)", NONE, "no integer equals 5.5 or 6.5"),
    row(5, 5, 0, 10, "x IN (4.5, 5.0)", ALL, "5.0 equals 5"),
    # A list of uint64 values, some beyond BIGINT, compares exactly too (not as doubles, where
    # 2**53 + 1 is 2**53 and 2**64 - 2 is 2**64 - 1).
    row(2**53, 2**53, 0, 10, "u64 IN (9007199254740993, 18446744073709551615)", NONE,
        "exact: 2**53 is neither value", col="u64"),
    row(2**53, 2**53, 0, 10, "u64 NOT IN (9007199254740993, 18446744073709551615)", ALL,
        "exact: 2**53 is neither value, no NULL", col="u64"),
    row(2**53 + 1, 2**53 + 1, 0, 10, "u64 IN (9007199254740993, 18446744073709551615)", ALL,
        "2**53 + 1 is listed", col="u64"),
    row(2**64 - 1, 2**64 - 1, 0, 10, "u64 IN (3, 18446744073709551614)", NONE,
        "exact: 2**64 - 1 is neither value", col="u64"),
    row(2**64 - 1, 2**64 - 1, 0, 10, "u64 NOT IN (3, 18446744073709551614)", ALL,
        "exact: 2**64 - 1 is neither value, no NULL", col="u64"),
    row(2**64 - 2, 2**64 - 1, 0, 10, "u64 IN (3, 18446744073709551614)", MAYBE,
        "2**64 - 2 within [min, max]", col="u64"),
]


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("rows", by_predicate(COERCION))
def test_literal_coercion(rows, backend):
    _run(rows, backend)


# ---- §2 decimals rescaled exactly ------------------------------------------------------------
D = Decimal
DECIMALS = [  # d: decimal(10, 2) (fits int64); dd: decimal(20, 18) (wider than 18 digits)
    row(D("1.50"), D("1.50"), 0, 10, "d = 1.5", ALL, "1.5 rescales to 1.50", col="d"),
    row(D("1.50"), D("1.50"), 0, 10, "d = 1.500", ALL, "1.500 rescales to 1.50", col="d"),
    row(D("1.00"), D("1.01"), 0, 10, "d = 1.005", NONE, "scale 2 never equals 1.005", col="d"),
    row(D("1.00"), D("1.00"), 0, 10, "d > 1.005", NONE, "d > 1.005 means d >= 1.01", col="d"),
    row(D("1.01"), D("2.00"), 0, 10, "d > 1.005", ALL, "1.01 > 1.005", col="d"),
    row(D("1.01"), D("2.00"), 0, 10, "d <= 1.005", NONE, "d <= 1.00", col="d"),
    row(D("-1.00"), D("-1.00"), 0, 10, "d > -1.005", ALL, "-1.00 > -1.005 (round up)",
        col="d"),
    row(D("-1.01"), D("-1.01"), 0, 10, "d > -1.005", NONE, "-1.01 < -1.005", col="d"),
    row(D("1.50"), D("1.50"), 0, 10, "d = 1.5e0", ALL, "the double 1.5 is exactly 1.50",
        col="d"),
    row(D("1.000000000000000000"), D("1.000000000000000000"), 0, 10,
        "dd > 1.000000000000000001", NONE, "exact: as doubles both would be 1.0", col="dd"),
    row(D("1.000000000000000001"), D("1.000000000000000001"), 0, 10, "dd = 1.0", NONE,
        "1.000000000000000001 != 1.0 (equal as doubles)", col="dd"),
    row(D("1.000000000000000001"), D("1.000000000000000001"), 0, 10, "dd > 1.0", ALL,
        "exact: above 1.0", col="dd"),
    row(D("1.000000000000000001"), D("1.000000000000000001"), 0, 10,
        "dd = 1.000000000000000001", ALL, "exact equality at scale 18", col="dd"),
    row(D("1.000000000000000000"), D("2.000000000000000000"), 0, 10,
        "dd = 1.0000000000000000005", NONE, "19 decimals never equal a scale-18 value",
        col="dd"),
]


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("rows", by_predicate(DECIMALS))
def test_decimal_rescale(rows, backend):
    _run(rows, backend)


# ---- §2 literals outside the column type's range fold to constants ----------------------------
OUT_OF_RANGE = [
    row(None, None, None, 10, "i8 > 300", NONE, "no int8 exceeds 127: FALSE or NULL", col="i8"),
    row(None, None, 0, 10, "i8 < 300", ALL, "every int8 is below 300, no NULL", col="i8"),
    row(None, None, 2, 10, "i8 < 300", MAYBE, "NULL rows", col="i8"),
    row(None, None, 0, 10, "300 > i8", ALL, "the column on the right", col="i8"),
    row(None, None, 0, 10, "i8 != 300", ALL, "no int8 equals 300", col="i8"),
    row(None, None, 0, 10, "i8 = -129", NONE, "-129 is below int8's range", col="i8"),
    row(None, None, 0, 10, "i8 IN (-129, 128)", NONE, "both outside int8", col="i8"),
    row(None, None, 0, 10, "u8 < -1", NONE, "no uint8 is below -1", col="u8"),
    row(None, None, 0, 10, "u8 <= -1", NONE, "no uint8 is negative", col="u8"),
    row(None, None, 0, 10, "u8 = 256", NONE, "256 is above uint8", col="u8"),
    row(None, None, 0, 10, "u8 > -1", ALL, "every uint8 exceeds -1", col="u8"),
    row(None, None, 0, 10, "u64 = 18446744073709551616", NONE, "2**64 is above uint64",
        col="u64"),
    row(None, None, 0, 10, "u64 < 18446744073709551616", ALL, "every uint64 < 2**64",
        col="u64"),
    row(None, None, 0, 10, "x < -9223372036854775809", NONE, "below int64's range"),
    row(None, None, 0, 10, "i8 > 300 OR i8 IS NULL", NONE, "FALSE OR (no NULL)", col="i8"),
]


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("rows", by_predicate(OUT_OF_RANGE))
def test_out_of_range_literals_fold(rows, backend):
    _run(rows, backend)


# ---- §2 timestamps: UTC instants at the column's unit -----------------------------------------
T = dt.datetime(2024, 1, 1, tzinfo=UTC)
E = dt.datetime(1970, 1, 1, tzinfo=UTC)
S, MS, H = dt.timedelta(seconds=1), dt.timedelta(milliseconds=1), dt.timedelta(hours=1)
HALF = "TIMESTAMP '2024-01-01 00:00:00.5+00:00'"
PRE = "TIMESTAMP '1969-12-31 23:59:59.5+00:00'"
T_NS = 1_704_067_200 * 10**9  # 2024-01-01 00:00:00 UTC in ns
TIMESTAMPS = [
    row(T, T, 0, 10, f"ts > {HALF}", NONE, "seconds: ts > 00:00:00.5 means ts >= 00:00:01",
        col="ts"),
    row(T + S, T + S, 0, 10, f"ts > {HALF}", ALL, "00:00:01 > 00:00:00.5", col="ts"),
    row(T, T, 0, 10, f"ts >= {HALF}", NONE, "ts >= 00:00:01", col="ts"),
    row(T + S, T + S, 0, 10, f"ts >= {HALF}", ALL, "ts >= 00:00:01", col="ts"),
    row(T, T + S, 0, 10, f"ts = {HALF}", NONE, "no whole second equals 00:00:00.5", col="ts"),
    row(T, T, 0, 10, f"ts < {HALF}", ALL, "00:00:00 < 00:00:00.5", col="ts"),
    row(T + S, T + S, 0, 10, f"ts <= {HALF}", NONE, "ts <= 00:00:00", col="ts"),
    row(E - S, E - S, 0, 10, f"ts > {PRE}", NONE, "-1 s < -0.5 s", col="ts"),
    row(E, E, 0, 10, f"ts > {PRE}", ALL, "0 > -0.5 s (truncating -0.5 to 0 would lose it)",
        col="ts"),
    row(E - S, E - S, 0, 10, f"ts >= {PRE}", NONE, "ts >= -0.5 s means ts >= 0 (not -1)",
        col="ts"),
    row(E, E, 0, 10, f"ts >= {PRE}", ALL, "0 >= -0.5 s", col="ts"),
    row(E - S, E - S, 0, 10, f"ts < {PRE}", ALL, "-1 s < -0.5 s", col="ts"),
    row(E, E, 0, 10, f"ts < {PRE}", NONE, "ts <= -1 s", col="ts"),
    row(T, T, 0, 10, "tms >= TIMESTAMP '2024-01-01 00:00:00.0005+00:00'", NONE,
        "milliseconds: means tms >= 00:00:00.001", col="tms"),
    row(T + MS, T + MS, 0, 10, "tms >= TIMESTAMP '2024-01-01 00:00:00.0005+00:00'", ALL,
        "00:00:00.001 >= 00:00:00.0005", col="tms"),
    row(T + 5 * H, T + 5 * H, 0, 10, "tny = TIMESTAMP '2024-01-01 00:00:00-05:00'", ALL,
        "midnight in New York is 05:00 UTC; the column's zone is only for display", col="tny"),
    row(T, T, 0, 10, "tny = TIMESTAMP '2024-01-01 00:00:00-05:00'", NONE,
        "00:00 UTC is 19:00 the day before in New York", col="tny"),
    row(T + 5 * H, T + 5 * H, 0, 10, "tny = TIMESTAMP '2024-01-01 05:00:00Z'", ALL,
        "the same instant written in UTC", col="tny"),
    row(T_NS + 1001, T_NS + 1001, 0, 10, "tns > TIMESTAMP '2024-01-01 00:00:00.000001+00:00'",
        ALL, "nanoseconds: 1001 ns > 1000 ns (not truncated to microseconds)", col="tns"),
    row(T_NS + 1000, T_NS + 1000, 0, 10,
        "tns > TIMESTAMP '2024-01-01 00:00:00.000001+00:00'", NONE, "1000 ns is not > 1 us",
        col="tns"),
    row(T_NS + 999, T_NS + 999, 0, 10, "tns >= TIMESTAMP '2024-01-01 00:00:00.000001+00:00'",
        NONE, "999 ns < 1 us", col="tns"),
]


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("rows", by_predicate(TIMESTAMPS))
def test_timestamps(rows, backend):
    _run(rows, backend)


# ---- §5 unsupported expressions weaken only their own leaf ------------------------------------
UNSUPPORTED = [
    multi(10, "a > 5 AND my_udf(b)", NONE, "a > 5 impossible (max 4); the udf is irrelevant",
          a=(0, 4, 0), b=(0, 10, 0)),
    multi(10, "a > 5 AND my_udf(b)", MAYBE, "a > 5 may hold, the udf is unknown",
          a=(6, 9, 0), b=(0, 10, 0)),
    multi(10, "a > 5 OR my_udf(b)", MAYBE, "the udf may be TRUE", a=(0, 4, 0), b=(0, 10, 0)),
    multi(10, "NOT my_udf(b)", MAYBE, "NOT of anything is anything", a=(0, 4, 0), b=(0, 10, 0)),
    multi(10, "abs(a) > 5", NOT_NONE, "|a| >= 6 on every row: ABS is not monotonic",
          a=(-10, -6, 0), b=(0, 10, 0)),
    multi(10, "abs(a) > 5 AND b = 1", NONE, "b = 1 impossible (min 2)", a=(-10, -6, 0),
          b=(2, 3, 0)),
    multi(10, "a + 10 > 5", NOT_NONE, "a + 10 >= 10 on every row", a=(0, 4, 0), b=(0, 1, 0)),
    multi(10, "a > 5 AND b + 1 > 100", NONE, "a > 5 impossible", a=(0, 4, 0), b=(0, 1, 0)),
    multi(10, "my_udf(a) OR b < 0 OR a > 5", MAYBE, "the udf may be TRUE", a=(0, 4, 0),
          b=(0, 1, 0)),
    multi(10, "(my_udf(a) OR b < 0) AND a > 5", NONE, "a > 5 impossible", a=(0, 4, 0),
          b=(0, 1, 0)),
    # An unknown comparison is still NULL where a column of it is NULL (a cast or a sum of
    # columns is); a function may not be (coalesce), nor an IN list's items.
    row(None, None, 10, 10, "CAST(s AS INT) > 5", NONE, "CAST(NULL AS INT) > 5 is NULL",
        col="s"),
    row("1", "9", 0, 10, "CAST(s AS INT) > 5", MAYBE, "the cast does not keep order", col="s"),
    row(None, None, 10, 10, "NOT (CAST(s AS INT) > 5)", NONE, "NOT NULL is NULL", col="s"),
    row(None, None, 10, 10, "CAST(s AS INT) IN (1, 2)", NONE, "NULL IN (...) is NULL",
        col="s"),
    row(None, None, 10, 10, "CAST(s AS INT) + 1 = 5", NONE, "NULL + 1 is NULL", col="s"),
    row(None, None, 10, 10, "coalesce(CAST(s AS INT), 7) > 5", NOT_NONE,
        "coalesce(NULL, 7) > 5 is TRUE", col="s"),
    row(None, None, 10, 10, "CAST(s AS INT) > 5 IS NULL", ALL, "IS NULL of NULL is TRUE",
        col="s"),
    row(None, None, 10, 10, "my_udf(s)", MAYBE, "a function may be TRUE on NULL", col="s"),
    multi(10, "5 IN (CAST(s AS INT), a)", NOT_NONE, "a = 5 on some row: TRUE whatever s is",
          a=(5, 5, 0), s=(None, None, 10)),
    multi(10, "CAST(s AS INT) > a", NONE, "s is NULL on every row", a=(1, 5, 0),
          s=(None, None, 10)),
    multi(10, "CAST(s AS INT) > a", NONE, "a is NULL on every row", a=(None, None, 10),
          s=("1", "9", 0)),
]


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("rows", by_predicate(UNSUPPORTED))
def test_unsupported_weakens_only_its_leaf(rows, backend):
    _run(rows, backend)


# ---- §5 casts: usable when order-preserving, a leaf of 'anything' when not -------------------
NOON = dt.datetime(2024, 1, 1, 12)
CASTS = [
    row(0, 4, 0, 10, "CAST(x32 AS BIGINT) > 5", NONE, "int widening keeps order: max 4",
        col="x32"),
    row(6, 9, 0, 10, "CAST(x32 AS BIGINT) > 5", ALL, "min 6", col="x32"),
    row(5, 6, 0, 10, "CAST(x32 AS BIGINT) > 5", MAYBE, "6 may occur", col="x32"),
    row(0, 5, 0, 10, "CAST(x32 AS DOUBLE) > 5.5", NONE, "int to float keeps order: max 5",
        col="x32"),
    row(5, 6, 0, 10, "CAST(x32 AS DOUBLE) > 5.5", MAYBE, "6 may occur", col="x32"),
    row(0, 5, 0, 10, "CAST(i8 AS FLOAT) > 5.5", NONE, "int8 to float32 is exact: max 5",
        col="i8"),
    row(6, 9, 0, 10, "CAST(i8 AS FLOAT) > 5.5", NOT_NONE, "min 6", col="i8"),
    row(dt.datetime(2024, 1, 1, 10), dt.datetime(2024, 1, 1, 23, 59, 59), 0, 10,
        "CAST(ntz AS DATE) = DATE '2024-01-02'", NONE, "timestamp to date is a floor: all 01-01",
        col="ntz"),
    row(dt.datetime(2024, 1, 1, 23), dt.datetime(2024, 1, 2, 1), 0, 10,
        "CAST(ntz AS DATE) = DATE '2024-01-02'", MAYBE, "01:00 on 01-02 may occur", col="ntz"),
    row(dt.datetime(2024, 1, 2), dt.datetime(2024, 1, 2, 23), 0, 10,
        "CAST(ntz AS DATE) = DATE '2024-01-02'", NOT_NONE, "every row is on 01-02", col="ntz"),
    row(dt.datetime(2024, 1, 1), dt.datetime(2024, 1, 1, 23, 59, 59), 0, 10,
        "CAST(ntz AS DATE) > DATE '2024-01-01'", NONE, "every row floors to 01-01", col="ntz"),
    row(dt.datetime(1969, 12, 31, 12), dt.datetime(1969, 12, 31, 13), 0, 10,
        "CAST(ntz AS DATE) = DATE '1969-12-31'", NOT_NONE,
        "the floor of 12:00 on 1969-12-31 is 1969-12-31 (truncation toward 1970 is wrong)",
        col="ntz"),
    row(dt.datetime(1969, 12, 31, 12), dt.datetime(1969, 12, 31, 13), 0, 10,
        "CAST(ntz AS DATE) = DATE '1970-01-01'", NONE, "every row is on 1969-12-31", col="ntz"),
    row(dt.date(2024, 1, 1), dt.date(2024, 1, 1), 0, 10,
        "CAST(dt AS TIMESTAMP_NTZ) > TIMESTAMP_NTZ '2024-01-01 12:00:00'", NONE,
        "date to timestamp is midnight, before noon", col="dt"),
    row(dt.date(2024, 1, 2), dt.date(2024, 1, 3), 0, 10,
        "CAST(dt AS TIMESTAMP_NTZ) > TIMESTAMP_NTZ '2024-01-01 12:00:00'", NOT_NONE,
        "midnight of 01-02 is after noon of 01-01", col="dt"),
    row(D("1.50"), D("1.50"), 0, 10, "CAST(d AS DECIMAL(12, 4)) = 1.5", NOT_NONE,
        "decimal rescale keeps the value", col="d"),
    row(D("1.51"), D("2.00"), 0, 10, "CAST(d AS DECIMAL(12, 4)) = 1.5", NONE,
        "decimal rescale keeps order: min 1.51", col="d"),
    # Not order-preserving: the cast's leaf is 'anything', the rest still prunes.
    row(8, 12, 0, 10, "CAST(x AS STRING) = '9'", NOT_NONE,
        "9 is in [8, 12]; as strings '9' > '12', so cast bounds would wrongly exclude it"),
    multi(10, "CAST(x AS STRING) = '9' AND y > 5", NONE, "y > 5 impossible", x=(8, 12, 0),
          y=(0, 4, 0)),
    row("10", "9", 0, 10, "TRY_CAST(s AS INT) = 5", NOT_NONE,
        "'5' sorts between '10' and '9'", col="s"),
    row(250, 350, 0, 10, "CAST(x AS TINYINT) = 44", NOT_NONE,
        "narrowing wraps: 300 becomes 44 (or fails), so bounds say nothing"),
    row(-0.9, 0.9, 0, 10, "CAST(f AS INT) = 0", NOT_NONE, "every value truncates to 0",
        col="f", nan_count=0),
]


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("rows", by_predicate(CASTS))
def test_casts(rows, backend):
    _run(rows, backend)


# ---- §5 column against column -------------------------------------------------------------------
COLUMNS = [
    multi(10, "a < b", NONE, "min(a) 5 >= max(b) 5", a=(5, 9, 0), b=(1, 5, 0)),
    multi(10, "a < b", MAYBE, "a = 5, b = 6 may occur", a=(5, 9, 0), b=(1, 6, 0)),
    multi(10, "a < b", ALL, "max(a) 4 < min(b) 5, no NULL", a=(1, 4, 0), b=(5, 9, 0)),
    multi(10, "a < b", MAYBE, "a has a NULL row", a=(1, 4, 1), b=(5, 9, 0)),
    multi(10, "a < b", MAYBE, "bounds of b unknown", a=(1, 4, 0), b=(None, None, 0)),
    multi(10, "b > a", NONE, "the same, columns swapped", a=(5, 9, 0), b=(1, 5, 0)),
    multi(10, "a <= b", NONE, "min(a) 6 > max(b) 5", a=(6, 9, 0), b=(1, 5, 0)),
    multi(10, "a <= b", MAYBE, "a = b = 5 may occur", a=(5, 9, 0), b=(1, 5, 0)),
    multi(10, "a = b", NONE, "disjoint ranges", a=(1, 4, 0), b=(5, 9, 0)),
    multi(10, "a = b", MAYBE, "5 in both", a=(1, 5, 0), b=(5, 9, 0)),
    multi(10, "a <> b", ALL, "disjoint ranges, no NULL", a=(1, 4, 0), b=(5, 9, 0)),
    multi(10, "a <> b", NONE, "both exactly 5", a=(5, 5, 0), b=(5, 5, 0)),
    multi(10, "a >= b", NONE, "max(a) 4 < min(b) 5", a=(1, 4, 0), b=(5, 9, 0)),
    multi(10, "x32 < x", NONE, "int32 against int64: min 5 >= max 5", x32=(5, 9, 0),
          x=(1, 5, 0)),
    # int64 against uint64: exact integers (as doubles 2**60 and 2**60 + 1 are equal).
    multi(10, "x < u64", ALL, "max(x) 2**60 < min(u64) 2**60 + 1", x=(2**60, 2**60, 0),
          u64=(2**60 + 1, 2**60 + 1, 0)),
    multi(10, "u64 > x", ALL, "the same, swapped", x=(2**60, 2**60, 0),
          u64=(2**60 + 1, 2**60 + 1, 0)),
    multi(10, "x < u64", NONE, "min(x) 2**60 + 1 >= max(u64) 2**60", x=(2**60 + 1, 2**60 + 1, 0),
          u64=(2**60, 2**60, 0)),
    # Other units and scales compare as values (instants, rescaled decimals).
    multi(10, "d < e", NONE, "min(d) 1.50 >= max(e) 1.2000", d=(D("1.50"), D("1.50"), 0),
          e=(D("1.2000"), D("1.2000"), 0)),
    multi(10, "d > e", NOT_NONE, "1.50 > 1.2000 on every row", d=(D("1.50"), D("1.50"), 0),
          e=(D("1.2000"), D("1.2000"), 0)),
    multi(10, "ts > tms", NONE, "00:00:00 is not after 00:00:00.001", ts=(T, T, 0),
          tms=(T + MS, T + MS, 0)),
    multi(10, "ts < tms", NOT_NONE, "00:00:00 < 00:00:00.001", ts=(T, T, 0),
          tms=(T + MS, T + MS, 0)),
    # NaN is greater than everything: a NaN hiding behind bounds that exclude it can match.
    multi(10, "fa < fb", MAYBE, "fb may hold NaN, and 7 < NaN is TRUE",
          fa=(5.0, 9.0, 0), fb=(1.0, 5.0, 0)),
    multi(10, "fa < fb", NONE, "no NaN: min(fa) 5 >= max(fb) 5",
          fa={"min": 5.0, "max": 9.0, "null_count": 0, "nan_count": 0},
          fb={"min": 1.0, "max": 5.0, "null_count": 0, "nan_count": 0}),
    multi(10, "fa > fb", MAYBE, "fa may hold NaN, and NaN > 7 is TRUE",
          fa=(1.0, 2.0, 0), fb=(5.0, 9.0, 0)),
    multi(10, "fa = fb", MAYBE, "both may hold NaN, and NaN = NaN", fa=(1.0, 2.0, 0),
          fb=(5.0, 9.0, 0)),
    multi(10, "fa = fb", NONE, "fa has no NaN; ranges disjoint",
          fa={"min": 1.0, "max": 2.0, "null_count": 0, "nan_count": 0}, fb=(5.0, 9.0, 0)),
    # A column against itself: equal on every row but NULL ones (NaN equals NaN).
    multi(10, "a = a", ALL, "no NULL: a = a on every row", a=(1, 9, 0)),
    multi(10, "fa >= fa", ALL, "NaN >= NaN too", fa=(1.0, 9.0, 0)),
    multi(10, "a = a", MAYBE, "a NULL row", a=(1, 9, 1)),
    multi(10, "a = a", NONE, "every row NULL", a=(None, None, 10)),
    multi(10, "NOT (a = a)", NONE, "never FALSE on a non-NULL row", a=(1, 9, 3)),
    multi(10, "a < a", NONE, "never", a=(1, 9, 0)),
    multi(10, "a <> a", NONE, "never", a=(1, 9, 0)),
    multi(10, "NOT (fa < fa)", ALL, "no NULL", fa=(1.0, 9.0, 0)),
]


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("rows", by_predicate(COLUMNS))
def test_column_vs_column(rows, backend):
    _run(rows, backend)


# ---- IS [NOT] DISTINCT FROM, IS [NOT] TRUE / FALSE: never NULL ------------------------------
NULL_SAFE = [
    row(5, 5, 0, 10, "x <=> 5", ALL, "every row is 5"),
    row(5, 5, 2, 10, "x <=> 5", MAYBE, "NULL <=> 5 is FALSE"),
    row(6, 9, 2, 10, "x <=> 5", NONE, "no 5; NULL rows are FALSE, not NULL"),
    row(5, 5, 2, 10, "x IS DISTINCT FROM 5", MAYBE, "NULL rows TRUE, 5 rows FALSE"),
    row(5, 5, 0, 10, "x IS DISTINCT FROM 5", NONE, "every row is 5"),
    row(6, 9, 2, 10, "x IS DISTINCT FROM 5", ALL, "NULL and 6..9 are all distinct from 5"),
    row(False, False, 2, 10, "bo IS TRUE", NONE, "FALSE and NULL are not TRUE", col="bo"),
    row(False, False, 2, 10, "bo IS NOT TRUE", ALL, "NULL IS NOT TRUE is TRUE", col="bo"),
    row(False, False, 2, 10, "bo IS FALSE", MAYBE, "NULL rows are not FALSE", col="bo"),
    row(False, False, 0, 10, "bo IS FALSE", ALL, "every row FALSE", col="bo"),
    row(0, 4, 2, 10, "(x > 5) IS NOT TRUE", ALL, "FALSE or NULL on every row"),
    row(0, 4, 2, 10, "(x > 5) IS FALSE", MAYBE, "NULL rows are not FALSE"),
    row(6, 9, 2, 10, "(x > 5) IS NOT FALSE", ALL, "TRUE or NULL on every row"),
]


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("rows", by_predicate(NULL_SAFE))
def test_null_safe_forms(rows, backend):
    _run(rows, backend)


def test_outcome_constants():
    # §3: the values of the three outcomes are part of the contract.
    assert (pk.NONE_MATCH, pk.MAYBE_MATCH, pk.ALL_MATCH) == (0, 1, 2)


@pytest.mark.parametrize("backend", BACKENDS)
def test_prune_is_outcome_not_none(backend):
    # §3: prune() is outcome != NONE_MATCH.
    containers = [r.stats for r in MIN_MAX[:4]]
    got = classify("x = 5", SCHEMA, containers, backend)
    assert got.tolist() == [NONE, NONE, MAYBE, NONE]
    pred = pk.PruningPredicate("x = 5", SCHEMA)
    assert pred.prune(stats_table(containers, SCHEMA)).tolist() == [False, False, True, False]


@pytest.mark.parametrize("backend", BACKENDS)
def test_unknown_row_count_with_absent_column(backend):
    # An ABSENT statistics column for one container (NULL struct) mixed with known ones.
    rows = [multi(10, "x = 5 OR y = 5", NONE, "neither can hold", x=(0, 4, 0), y=(6, 9, 0)),
            multi(10, "x = 5 OR y = 5", MAYBE, "y's statistics missing for this container",
                  x=(0, 4, 0), y=ABSENT),
            multi(0, "x = 5 OR y = 5", NONE, "empty", x=(0, 4, 0), y=ABSENT)]
    check(rows, SCHEMA, backend)
