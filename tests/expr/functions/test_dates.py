"""Calendar functions in predicates (``expr/binding/functions/dates.py``): ``year`` (and
``EXTRACT``, ``date_part``, ``to_date``), ``month``, ``day``, ``date_trunc`` and ``trunc``.
Hand-written edges per rule (New Year, leap days, years beyond Python's dates, periods that wrap,
unknown units), inexact bounds, and what explain() says of the rewrite.

Each case is one container of rows: the outcome must be sound for every row the reference
evaluates (``tests/support/reference.py``, Spark's semantics) and equal the expected one.
Timestamps are microseconds since the epoch (UTC), dates days since 1970-01-01.
"""

from __future__ import annotations

import pyarrow as pa
import pytest

import prunekit as pk
from tests.support.cases import BACKENDS
from tests.support.functions import check, day, us

NONE, MAYBE, ALL = pk.NONE_MATCH, pk.MAYBE_MATCH, pk.ALL_MATCH
DATE, TS, TS_NTZ = pa.date32(), pa.timestamp("us", "UTC"), pa.timestamp("us")
STR = pa.string()

Y2024 = us(2024, 1, 1)

# (column type, rows of one container, predicate on column x, expected outcome, why)
CASES = [
    # year: d >= 2024-01-01 AND d < 2025-01-01
    (DATE, [day(2024, 1, 1), day(2024, 12, 31)], "year(x) = 2024", ALL, "the whole year"),
    (DATE, [day(2023, 12, 31), day(2024, 1, 1)], "year(x) = 2024", MAYBE, "straddles New Year"),
    (DATE, [day(2023, 1, 1), day(2023, 12, 31)], "year(x) = 2024", NONE, "all in 2023"),
    (DATE, [day(2024, 6, 1), None], "year(x) >= 2024", MAYBE, "a NULL row gives NULL"),
    (DATE, [day(2024, 1, 1), day(2024, 12, 31)], "year(x) <> 2024", NONE, "NOT of ALL"),
    (DATE, [day(2025, 1, 1)], "year(x) > 2024.5", ALL, "2025 > 2024.5: an INT against 2024.5"),
    (DATE, [day(2024, 3, 1)], "year(x) IN (2023, 2025)", NONE, "an IN list of years"),
    (DATE, [day(2024, 3, 1)], "EXTRACT(YEAR FROM x) = 2024", ALL, "EXTRACT is year()"),
    (TS, [us(2024, 3, 1)], "date_part('MONTH', x) = 4", NONE, "date_part is month()"),
    (TS, [us(2024, 3, 1)], "extract(DAYOFWEEK FROM x) = 4", MAYBE, "not on the whitelist"),
    (DATE, [-737_000], "year(x) < 0", ALL,
     "year -48 (proleptic Gregorian, before Python's dates)"),
    (DATE, [2**31 - 1], "year(x) > 9999", ALL, "year 5,881,580: beyond Python's dates"),
    (TS, [Y2024 - 1, Y2024], "year(x) = 2024", MAYBE, "one microsecond before 2024"),
    (TS, [Y2024, us(2024, 12, 31, 23, 59, 59, 999_999)], "year(x) = 2024", ALL, "UTC year"),
    (TS_NTZ, [Y2024 - 1], "year(x) = 2024", NONE, "a wall-clock 2023"),
    (TS, [Y2024], "to_date(x) = DATE '2024-01-01'", ALL, "to_date is a cast to DATE"),
    # month / day: bounded by the month (day) of min and max within one year (month)
    (DATE, [day(2024, 3, 1), day(2024, 3, 31)], "month(x) = 3", ALL, "all of March"),
    (DATE, [day(2024, 2, 29), day(2024, 3, 31)], "month(x) = 3", MAYBE, "leap day"),
    (DATE, [day(2024, 1, 5), day(2024, 2, 20)], "month(x) > 2", NONE, "January, February"),
    (DATE, [day(2023, 12, 5), day(2024, 1, 20)], "month(x) = 6", MAYBE,
     "two years: bounds unknown (December to January wraps)"),
    (DATE, [-737_000, -736_990], "month(x) BETWEEN 2 AND 3", ALL, "year -48: March"),
    (TS, [us(2024, 2, 29), us(2024, 2, 29, 23, 59, 59, 999_999)], "day(x) = 29", ALL,
     "one UTC day"),
    (TS, [us(2024, 2, 28, 23), us(2024, 3, 1, 1)], "dayofmonth(x) = 15", MAYBE,
     "two months: unknown"),
    (TS, [us(2024, 2, 10), us(2024, 2, 20)], "day(x) IN (1, 2, 25)", NONE, "days 10 to 20"),
    (pa.date64(), [day(2024, 7, 4)], "month(x) = 7", ALL, "date64 (milliseconds)"),
    # date_trunc / trunc: the period start, compared
    (TS, [us(2024, 3, 1), us(2024, 3, 31, 23, 59)],
     "date_trunc('month', x) = TIMESTAMP '2024-03-01 00:00:00'", ALL, "all of March"),
    (TS, [us(2024, 3, 5)], "date_trunc('month', x) = TIMESTAMP '2024-03-02 00:00:00'", NONE,
     "2024-03-02 starts no month"),
    (TS, [us(2024, 2, 29, 23, 59, 59, 999_999)],
     "date_trunc('MM', x) >= TIMESTAMP '2024-03-01 00:00:00'", NONE, "still February"),
    (TS, [us(2024, 2, 29, 23, 59, 59, 999_999)],
     "date_trunc('month', x) > TIMESTAMP '2024-02-01 00:00:00'", NONE, "February's start"),
    (TS, [us(2024, 3, 4), us(2024, 3, 10, 23)],
     "date_trunc('week', x) = TIMESTAMP '2024-03-04 00:00:00'", ALL, "Monday to Sunday"),
    (TS, [us(2024, 3, 3, 23)], "date_trunc('week', x) = TIMESTAMP '2024-03-04 00:00:00'", NONE,
     "Sunday belongs to the week before"),
    (TS, [us(2024, 5, 1), us(2024, 6, 30)],
     "date_trunc('quarter', x) = TIMESTAMP '2024-04-01 00:00:00'", ALL, "the second quarter"),
    (TS, [us(2024, 5, 1, 10, 30), us(2024, 5, 1, 10, 59)],
     "date_trunc('hour', x) = TIMESTAMP '2024-05-01 10:00:00'", ALL, "one hour"),
    (TS, [us(2024, 5, 1)], "date_trunc('year', x) < DATE '2024-01-01'", NONE,
     "a DATE literal compares as its midnight"),
    (TS, [us(2024, 5, 1)], "date_trunc('bogus', x) = TIMESTAMP '2024-01-01 00:00:00'", MAYBE,
     "an unknown unit (NULL in Spark) stays unknown"),
    (DATE, [day(2024, 3, 1), day(2024, 3, 31)], "trunc(x, 'MM') = DATE '2024-03-01'", ALL,
     "trunc of a DATE"),
    (DATE, [day(2024, 3, 1)], "date_trunc('hour', x) = TIMESTAMP '2024-03-01 00:00:00'", ALL,
     "a date is its own midnight"),
]


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize(("t", "rows", "sql", "expected", "why"), CASES,
                         ids=[f"{c[2]} {c[1]}" for c in CASES])
def test_function_edges(t, rows, sql, expected, why, backend):
    check({"x": (t, rows)}, sql, expected, why, backend)


def test_inexact_bounds_stay_inexact():
    # A truncated max (inexact) proves year < 2025 but not that some row is in 2024.
    stats = pk.Statistics.from_arrow(pa.table({
        "row_count": pa.array([3], pa.int64()),
        "x": pa.StructArray.from_arrays(
            [pa.array([day(2024, 1, 1)], DATE), pa.array([day(2024, 1, 1)], DATE),
             pa.array([0], pa.int64()), pa.array([True]), pa.array([False])],
            ["min", "max", "null_count", "min_exact", "max_exact"])}))
    pred = pk.PruningPredicate("year(x) = 2024", {"x": DATE})
    assert pred.classify(stats).tolist() == [ALL]  # a range, not an equality: bounds suffice
    # The same with a rule of prefixes.py, on inexact bounds of a string.
    eq = pk.PruningPredicate("left(x, 2) <> 'ab'", {"x": STR})
    table = pa.table({"row_count": pa.array([3], pa.int64()), "x": pa.StructArray.from_arrays(
        [pa.array(["ab"]), pa.array(["ab"]), pa.array([0], pa.int64()), pa.array([False]),
         pa.array([False])], ["min", "max", "null_count", "min_exact", "max_exact"])})
    assert eq.classify(pk.Statistics.from_arrow(table)).tolist() == [NONE]


def test_explain_states_the_rewrite_and_the_utc_reading():
    text = pk.PruningPredicate("year(ts) = 2024 AND year(d) = 2024",
                               {"ts": TS, "d": DATE}).explain()
    assert "year(ts) = 2024; timestamps read in UTC" in text
    assert "year(d) = 2024  (as a predicate on the column:)" in text
    assert "floordiv(ts) >= DATE '2024-01-01'" in text and "d >= DATE '2025-01-01'" in text
