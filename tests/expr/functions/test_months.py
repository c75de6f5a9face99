"""``months_between`` of a DATE column and a DATE literal (``expr/binding/functions/months.py``):
the reference (``tests/reference.months_between_seconds``, Spark's algorithm written out) checked
against Spark on a sample of pairs, the order the rule relies on checked over every day of several
years, and prunekit's outcome on every one-day container and on windows of days compared with the
rows, exactly (the bounds are exact, so the outcome is decided where the rows decide it)."""

import datetime as dt
import random

import numpy as np
import pyarrow as pa
import pytest

import prunekit as pk
from tests.support import reference as ref

DATE = pa.date32()
E = dt.date(1970, 1, 1)
DAYS = list(range((dt.date(2022, 12, 1) - E).days, (dt.date(2025, 3, 31) - E).days + 1))
LITERALS = [dt.date(2024, 1, 31), dt.date(2024, 4, 30), dt.date(2023, 3, 31), dt.date(2024, 2, 28),
            dt.date(2023, 1, 1), dt.date(2024, 3, 15), dt.date(2023, 12, 30),
            dt.date(2023, 2, 28), dt.date(2024, 2, 29)]  # the last two: ends of February
FEBRUARY_ENDS = LITERALS[-2:]


def f(a: int, c: int, round_off: bool = True) -> float:
    return ref.months_between_seconds(a * 86_400, c * 86_400, round_off)


def days_of(d: dt.date) -> int:
    return (d - E).days


def test_the_example_of_a_short_month():
    feb28 = days_of(dt.date(2023, 2, 28))
    assert f(days_of(dt.date(2023, 3, 30)), feb28) == 1.06451613
    assert f(days_of(dt.date(2023, 3, 31)), feb28) == 1.0
    assert f(days_of(dt.date(2024, 3, 31)), days_of(dt.date(2024, 2, 29))) == 1.0
    assert f(days_of(dt.date(2024, 3, 30)), days_of(dt.date(2024, 2, 29)), False) == \
        1 + 1 / 31


@pytest.mark.parametrize("literal", LITERALS)
@pytest.mark.parametrize("round_off", [True, False])
def test_order_over_every_day(literal, round_off):
    c = days_of(literal)
    first = [f(a, c, round_off) for a in DAYS]  # the column first: non-decreasing
    second = [f(c, a, round_off) for a in DAYS]  # the column second: non-increasing
    up = all(x <= y for x, y in zip(first, first[1:], strict=False))
    down = all(x >= y for x, y in zip(second, second[1:], strict=False))
    assert (up and down) == (literal not in FEBRUARY_ENDS), literal


def container_table(windows):
    mins = pa.array([lo for lo, _ in windows], DATE)
    maxs = pa.array([hi for _, hi in windows], DATE)
    col = pa.StructArray.from_arrays([mins, maxs, pa.array([0] * len(windows), pa.int64())],
                                     ["min", "max", "null_count"])
    return pk.Statistics.from_arrow(pa.table({
        "row_count": [hi - lo + 1 for lo, hi in windows], "d": col}))


OPS = {"=": np.equal, "<": np.less, "<=": np.less_equal, ">": np.greater,
       ">=": np.greater_equal, "<>": np.not_equal}


@pytest.mark.parametrize("literal", LITERALS)
def test_outcomes_are_exact_over_every_day(literal):
    c = days_of(literal)
    rng = random.Random(c)
    windows = [(a, a) for a in DAYS]
    for _ in range(300):
        lo = rng.choice(DAYS)
        windows.append((lo, min(lo + rng.choice([1, 2, 5, 30, 60, 400]), DAYS[-1])))
    stats = container_table(windows)
    lo = np.array([a for a, _ in windows]) - DAYS[0]  # day indices of each window's ends
    hi = np.array([b for _, b in windows]) - DAYS[0]
    exact = hi - lo <= 1  # both rows are min and max: decided exactly; else sound
    for first in (True, False):
        for round_off in (True, False):
            values = np.array([f(a, c, round_off) if first else f(c, a, round_off)
                               for a in DAYS])
            # literals: the rows' own results and the doubles either side of some
            picks = list(values[:: 193]) + [float(np.nextafter(v, np.inf)) for v in values[5::
                                                                                        389]]
            picks += [float(np.nextafter(v, -np.inf)) for v in values[11:: 401]] + [0.5, -1.0]
            for m in picks:
                for op, cmp in OPS.items():
                    args = (f"d, DATE '{literal}'" if first else f"DATE '{literal}', d") + (
                        "" if round_off else ", false")
                    sql = f"months_between({args}) {op} {float(m)!r}"
                    got = pk.PruningPredicate(sql, {"d": DATE}).classify(stats)
                    if literal in FEBRUARY_ENDS:
                        assert (got == pk.MAYBE_MATCH).all(), sql
                        continue
                    # the TRUE rows of each window, from a running count over the days
                    true = np.concatenate([[0], np.cumsum(cmp(values, m))])
                    count = true[hi + 1] - true[lo]
                    want = np.where(count == hi - lo + 1, pk.ALL_MATCH,
                                    np.where(count == 0, pk.NONE_MATCH, pk.MAYBE_MATCH))
                    wrong = np.flatnonzero((got != want) & (exact | (got != pk.MAYBE_MATCH)))
                    if len(wrong):
                        k = wrong[0]
                        raise AssertionError((sql, windows[k], got[k], want[k]))


def test_null_arguments_and_unknown_forms():
    stats = container_table([(0, 10)])

    def outcome(sql):
        return int(pk.PruningPredicate(sql, {"d": DATE}).classify(stats)[0])

    assert outcome("months_between(d, NULL) > 1") == pk.NONE_MATCH
    assert outcome("months_between(d, DATE '2023-02-28') > 1000") == pk.MAYBE_MATCH
    assert outcome("months_between(d, '2024-01-15') > 1000") == pk.NONE_MATCH  # a date string
    assert outcome("months_between(d, '2024-01-15 10:00:00') > 1000") == pk.MAYBE_MATCH


@pytest.mark.spark
def test_reference_matches_spark(spark):
    rng = random.Random(7)
    days = [days_of(dt.date(y, m, d)) for y in (1, 1900, 2000, 2023, 2024, 9999)
            for m in range(1, 13) for d in (1, 15, 28, 29, 30, 31) if d <= 28 or (
                dt.date(y, m, 1) + dt.timedelta(days=d - 1)).month == m]
    pairs = [(rng.choice(days), rng.choice(days)) for _ in range(300)]
    # The suite's session (the ``spark`` fixture): stopping one of its own would stop that
    # one too, which the process's other Spark tests still use.
    rows = ", ".join(f"(DATE '{E + dt.timedelta(a)}', DATE '{E + dt.timedelta(b)}')"
                     for a, b in pairs)
    got = spark.sql("SELECT months_between(a, b), months_between(a, b, false) FROM VALUES "
                    f"{rows} AS t(a, b)").collect()
    for (a, b), r in zip(pairs, got, strict=True):
        assert tuple(r) == (f(a, b), f(a, b, False)), (E + dt.timedelta(a), E + dt.timedelta(b))
