"""Date arithmetic in predicates (``expr/binding/functions/date_shifts.py``): ``date_add``,
``date_sub``, ``add_months``, ``datediff`` and ``+``/``-`` of an interval, on DATE and TIMESTAMP
columns. Hand-written edges (month ends, leap days, NULL steps, steps that may leave INT,
intervals finer than the column's unit), and random containers judged against rows computed
independently here with Python's datetime (Spark 3+ semantics: add_months clamps to the month's
end, no end-of-month rule)."""

import calendar
import datetime as dt

import pyarrow as pa
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import prunekit as pk
from tests.support.cases import container_of

DATE = pa.date32()
D = {"d": DATE}
UTC = dt.timezone.utc


def container(values, t=DATE):
    return container_of(values, t, "d")


def outcome(sql, values, t=DATE, **kw):
    return int(pk.PruningPredicate(sql, {"d": t}, **kw).classify(container(values, t))[0])


def add_months(d, k):
    total = d.year * 12 + d.month - 1 + k
    y, m = divmod(total, 12)
    return dt.date(y, m + 1, min(d.day, calendar.monthrange(y, m + 1)[1]))


OPS = {"=": lambda a, b: a == b, "<": lambda a, b: a < b, "<=": lambda a, b: a <= b,
       ">": lambda a, b: a > b, ">=": lambda a, b: a >= b, "<>": lambda a, b: a != b}

# (SQL of f(d) with {k}, Python f(d, k) or None where it leaves Python's dates, literal kind)
FORMS = [
    ("date_add(d, {k})", lambda d, k: d + dt.timedelta(days=k), "date"),
    ("date_sub(d, {k})", lambda d, k: d - dt.timedelta(days=k), "date"),
    ("d + INTERVAL '{k}' DAY", lambda d, k: d + dt.timedelta(days=k), "date"),
    ("d - INTERVAL '{k}' DAYS", lambda d, k: d - dt.timedelta(days=k), "date"),
    ("d + {k}", lambda d, k: d + dt.timedelta(days=k), "date"),  # Spark's date_add
    ("{k} + d", lambda d, k: d + dt.timedelta(days=k), "date"),
    ("d - {k}", lambda d, k: d - dt.timedelta(days=k), "date"),  # date_sub
    ("add_months(d, {k})", add_months, "date"),
    ("d + INTERVAL '{k}' MONTH", add_months, "date"),
    ("d - INTERVAL '{k}' YEAR", lambda d, k: add_months(d, -12 * k), "date"),
    ("datediff(DATE '2024-02-29', d) + {k}", lambda d, k: (dt.date(2024, 2, 29) - d).days + k,
     "int"),
    ("datediff(d, '2000-01-31') - {k}", lambda d, k: (d - dt.date(2000, 1, 31)).days - k,
     "int"),
]

EDGES = [dt.date(2024, 1, 31), dt.date(2024, 2, 29), dt.date(2023, 2, 28), dt.date(2024, 3, 1),
         dt.date(2000, 2, 29), dt.date(1900, 2, 28), dt.date(2024, 12, 31), dt.date(1970, 1, 1)]
dates = st.one_of(st.sampled_from(EDGES),
                  st.dates(dt.date(1890, 1, 1), dt.date(2110, 12, 31)))


def _apply(f, d, k):
    try:
        return f(d, k)
    except (OverflowError, ValueError):
        return "overflow"


@settings(max_examples=400, deadline=None)
@given(form=st.sampled_from(FORMS), op=st.sampled_from(sorted(OPS)),
       k=st.integers(-800, 800), values=st.lists(st.none() | dates, min_size=1, max_size=6),
       near=st.integers(0, 5), delta=st.integers(-2, 2), far=dates)
def test_random_containers_against_rows(form, op, k, values, near, delta, far):
    """The literal is most often a row's own result moved by at most two: the edges."""
    text, f, kind = form
    rows = [None if v is None else _apply(f, v, k) for v in values]
    if "overflow" in rows:
        return
    known = [r for r in rows if r is not None]
    if kind == "date":
        right = known[near % len(known)] + dt.timedelta(days=delta) if known and near else far
        lit = f"DATE '{right.isoformat()}'"
    else:
        right = known[near % len(known)] + delta if known else delta
        lit = str(right)
    sql = f"{text.format(k=k)} {op} {lit}"
    truth = [None if r is None else OPS[op](r, right) for r in rows]
    got = outcome(sql, values)
    if got == pk.NONE_MATCH:
        assert True not in truth, (sql, values, rows)
    if got == pk.ALL_MATCH:
        assert all(t is True for t in truth), (sql, values, rows)


@pytest.mark.parametrize("sql, values, want", [
    ("add_months(d, 1) = DATE '2024-02-29'", [dt.date(2024, 1, 29), dt.date(2024, 1, 31)],
     pk.ALL_MATCH),
    ("add_months(d, 1) = DATE '2024-02-29'", [dt.date(2024, 1, 27), dt.date(2024, 1, 28)],
     pk.NONE_MATCH),
    ("add_months(d, 12) = DATE '2025-02-28'", [dt.date(2024, 2, 29)], pk.ALL_MATCH),
    ("d - INTERVAL '1' MONTH >= DATE '2024-02-29'", [dt.date(2024, 3, 30)], pk.ALL_MATCH),
    ("date_add(d, 1) = DATE '2024-03-01'", [dt.date(2024, 2, 29)], pk.ALL_MATCH),
    ("date_sub(d, 366) = DATE '2023-02-28'", [dt.date(2024, 2, 29)], pk.ALL_MATCH),
    ("date_add(d, NULL) = DATE '2024-03-01'", [dt.date(2024, 2, 29)], pk.NONE_MATCH),
    ("datediff(DATE '2024-03-01', d) <= 7", [dt.date(2024, 1, 1), dt.date(2024, 2, 20)],
     pk.NONE_MATCH),
    ("datediff(DATE '2024-03-01', d) <= 7", [dt.date(2024, 2, 23), None], pk.MAYBE_MATCH),
    ("d >= DATE '2024-01-31' + INTERVAL 1 MONTH", [dt.date(2024, 2, 29)], pk.ALL_MATCH),
    ("d >= DATE '2024-01-31' + INTERVAL 1 YEAR 1 MONTH", [dt.date(2025, 2, 27)],
     pk.NONE_MATCH),
])
def test_edges(sql, values, want):
    assert outcome(sql, values) == want


def test_a_step_that_may_leave_int_makes_bounds_unknown():
    # 2**31 - 10 days is a date far beyond 9999; date_add(d, 100) could overflow INT there
    days = pa.array([2**31 - 10, 2**31 - 5], pa.int32()).cast(pa.date32())
    stats = pk.Statistics.from_arrow(pa.table({"row_count": [3], "d": pa.StructArray.from_arrays(
        [days[:1], days[1:], pa.array([0])], ["min", "max", "null_count"])}))
    pred = pk.PruningPredicate("date_add(d, 100) < DATE '2000-01-01'", D)
    assert pred.classify(stats).tolist() == [pk.MAYBE_MATCH]


@pytest.mark.parametrize("unit", ["us", "ms", "s"])
def test_timestamps_plus_day_time_intervals(unit):
    t = pa.timestamp(unit, tz="UTC")
    noon = dt.datetime(2024, 3, 1, 12, tzinfo=UTC)
    values = [noon, noon + dt.timedelta(hours=1)]
    sql = "d + INTERVAL '36' HOUR >= TIMESTAMP '2024-03-03 00:00:00'"
    assert outcome(sql, values, t) == pk.ALL_MATCH
    assert outcome(sql.replace("36", "11"), values, t) == pk.NONE_MATCH
    # half a second is no whole number of seconds: a column in seconds is unknown
    half = "d - INTERVAL '0.5' SECOND > TIMESTAMP '2030-01-01 00:00:00'"
    assert outcome(half, values, t) == (pk.MAYBE_MATCH if unit == "s" else pk.NONE_MATCH)
    # months on a timestamp are not monotone (the day is clamped): unknown, never wrong
    assert outcome("d + INTERVAL '1' MONTH < TIMESTAMP '2000-01-01 00:00:00'", values, t) == \
        pk.MAYBE_MATCH
