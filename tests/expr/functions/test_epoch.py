"""Counts since the epoch (``expr/binding/functions/epoch.py``): ``unix_seconds``, ``unix_millis``,
``unix_micros``, ``unix_timestamp`` of a TIMESTAMP or DATE, ``timestamp_seconds``,
``timestamp_millis``, ``timestamp_micros`` of an integer column. Spark's semantics written out
here with Python integers (the values in ``test_semantics_as_spark_shows_them`` are Spark 4's,
both modes); hand-written edges (the epoch, a second's fraction below it, years beyond 9999,
fixed-offset and daylight-saving zones, NULL) and random containers judged row by row."""

import datetime as dt

import pyarrow as pa
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import prunekit as pk
from tests.support.cases import container_of

TS = pa.timestamp("us", "UTC")
DATE = pa.date32()
MICROS = 10**6


def floor_div(a, k):
    return a // k


def toward_zero(a, k):
    q = abs(a) // k
    return -q if a < 0 else q


# (SQL, f(value of the column's ticks), column type)
FORMS = {
    "unix_seconds(x)": (lambda us: floor_div(us, MICROS), TS),
    "unix_millis(x)": (lambda us: floor_div(us, 1000), TS),
    "unix_micros(x)": (lambda us: us, TS),
    "unix_timestamp(x)": (lambda us: toward_zero(us, MICROS), TS),
    "unix_timestamp(x, 'yyyy')": (lambda us: toward_zero(us, MICROS), TS),  # format ignored
    "unix_timestamp(x)  ": (lambda d: d * 86_400, DATE),  # a DATE: its UTC midnight
    "timestamp_seconds(x)": (lambda s: s * MICROS, pa.int64()),  # values here never overflow
    "timestamp_millis(x)": (lambda s: s * 1000, pa.int32()),
    "timestamp_micros(x)": (lambda s: s, pa.int64()),
}
OPS = {"=": lambda a, b: a == b, "<": lambda a, b: a < b, "<=": lambda a, b: a <= b,
       ">": lambda a, b: a > b, ">=": lambda a, b: a >= b, "<>": lambda a, b: a != b}
EPOCH = dt.datetime(1970, 1, 1, tzinfo=dt.timezone.utc)


def container(values, t):
    return container_of(values, t, "x")


def outcome(sql, values, t, **kw):
    return int(pk.PruningPredicate(sql, {"x": t}, **kw).classify(container(values, t))[0])


def literal(form, m):
    """``m`` as the literal of the result's type: a count, or a TIMESTAMP of m microseconds."""
    if FORMS[form][1] in (TS, DATE):
        return str(m)
    when = EPOCH + dt.timedelta(microseconds=m)
    return f"TIMESTAMP '{when.strftime('%Y-%m-%d %H:%M:%S.%f')}'"


def check(form, op, m, values, **kw):
    f, t = FORMS[form]
    got = outcome(f"{form.strip()} {op} {literal(form, m)}", values, t, **kw)
    rows = [None if v is None else OPS[op](f(v), m) for v in values]
    if got == 0:
        assert not any(r is True for r in rows), (form, op, m, values, rows)
    if got == 2:
        assert all(r is True for r in rows), (form, op, m, values, rows)
    return got


def test_semantics_as_spark_shows_them():
    # unix_timestamp(TIMESTAMP '1969-12-31 23:59:59.5') is 0, unix_seconds of it -1,
    # unix_millis(TIMESTAMP '1969-12-31 23:59:59.9995') -1, unix_timestamp(DATE '1969-12-31')
    # -86400 (session zone UTC).
    assert [FORMS["unix_timestamp(x)"][0](-500_000), FORMS["unix_seconds(x)"][0](-500_000),
            FORMS["unix_millis(x)"][0](-500), FORMS["unix_timestamp(x)  "][0](-1)] == \
        [0, -1, -1, -86_400]


def test_around_the_epoch():
    assert outcome("unix_timestamp(x) = 0", [-999_999, 999_999], TS) == 2
    assert outcome("unix_timestamp(x) = 0", [-1_000_000], TS) == 0
    assert outcome("unix_seconds(x) = 0", [-1, 0], TS) == 1
    assert outcome("unix_seconds(x) = -1", [-1_000_000, -1], TS) == 2
    assert outcome("unix_seconds(x) >= 0", [-1], TS) == 0
    assert outcome("unix_timestamp(x) >= 0", [-1], TS) == 2
    assert outcome("unix_millis(x) < 0", [-1], TS) == 2
    assert outcome("unix_micros(x) <> 0", [0], TS) == 0


def test_beyond_9999_and_before_year_1():
    seconds_10000 = 253_402_300_800  # 10000-01-01 00:00:00 UTC
    assert outcome(f"unix_seconds(x) >= {seconds_10000}", [seconds_10000 * MICROS], TS) == 2
    assert outcome(f"unix_seconds(x) > {seconds_10000}", [seconds_10000 * MICROS], TS) == 0
    assert outcome("timestamp_seconds(x) >= TIMESTAMP '9999-12-31 23:59:59'",
                   [seconds_10000 - 1], pa.int64()) == 2
    assert outcome("timestamp_seconds(x) < TIMESTAMP '0001-01-01 00:00:00'",
                   [-62_135_596_801], pa.int64()) == 2


def test_overflow_of_timestamp_seconds_is_unknown():
    # Beyond 9223372036854 seconds Spark fails (DATETIME_OVERFLOW): those rows are unknown.
    later = "> TIMESTAMP '2024-01-01 00:00:00'"
    assert outcome(f"timestamp_seconds(x) {later}", [2**63 - 1], pa.int64()) == 1
    assert outcome(f"timestamp_seconds(x) {later}", [9223372036854], pa.int64()) == 2
    assert outcome(f"timestamp_seconds(x) {later}", [9223372036855], pa.int64()) == 1
    assert outcome(f"timestamp_millis(x) {later}", [-9223372036854775], pa.int64()) == 0
    assert outcome(f"timestamp_millis(x) {later}", [-9223372036854776], pa.int64()) == 1
    assert outcome(f"timestamp_seconds(x) {later}", [2**31 - 1], pa.int32()) == 2
    assert outcome(f"timestamp_micros(x) {later}", [-(2**63)], pa.int64()) == 0


def test_is_null_is_unknown_where_the_call_overflows():
    # IS NULL reads x IS NULL, except where Spark fails: a property run found NONE_MATCH over
    # rows of 9223372036854775806, where timestamp_seconds fails the query.
    big = 9223372036854775806
    assert outcome("timestamp_seconds(x) IS NULL", [big, big], pa.int64()) == 1
    assert outcome("timestamp_seconds(x) IS NOT NULL", [big], pa.int64()) == 1
    assert outcome("timestamp_millis(x) IS NULL", [-(2**63)], pa.int64()) == 1
    assert outcome("timestamp_seconds(x) IS NULL", [None, None], pa.int64()) == 2
    assert outcome("timestamp_seconds(x) IS NULL", [9223372036854, 5], pa.int64()) == 0
    assert outcome("timestamp_micros(x) IS NULL", [big], pa.int64()) == 0  # never overflows
    assert outcome("timestamp_seconds(x) IS NULL", [2**31 - 1], pa.int32()) == 0


def test_dates_in_the_session_zone():
    plus2 = "+02:00"
    # DATE '1970-01-01' at midnight in +02:00 is -7200 seconds.
    assert outcome("unix_timestamp(x) = -7200", [0], DATE, time_zone=plus2) == 2
    assert outcome("unix_timestamp(x) = 0", [0], DATE, time_zone=plus2) == 0
    assert outcome("unix_timestamp(x) = 0", [0], DATE) == 2
    # Daylight saving time: left unknown.
    paris = "Europe/Paris"
    assert outcome("unix_timestamp(x) = 12345", [0], DATE, time_zone=paris) == 1


def test_null_and_unknown_arguments():
    assert outcome("unix_seconds(NULL) = 1", [0], TS) == 0
    assert outcome("unix_seconds(x) IS NULL", [None], TS) == 2
    assert outcome("unix_seconds(x) IS NULL", [0], TS) == 0
    assert outcome("timestamp_seconds(x) > TIMESTAMP '2024-01-01 00:00:00'", [None],
                   pa.int64()) == 0
    # TIMESTAMP_NTZ and a DOUBLE count of seconds are not used
    assert outcome("unix_seconds(x) = 1", [0], pa.timestamp("us")) == 1
    assert outcome("timestamp_seconds(x) = TIMESTAMP '2024-01-01 00:00:00'", [0.0],
                   pa.float64()) == 1


@pytest.mark.parametrize("unit", ["s", "ms", "us"])
def test_units_of_the_column(unit):
    t = pa.timestamp(unit, "UTC")
    per = {"s": 1, "ms": 1000, "us": MICROS}[unit]
    assert outcome("unix_millis(x) >= 1500", [1 * per], t) == 0
    assert outcome("unix_millis(x) >= 1000", [1 * per], t) == 2
    assert outcome("unix_timestamp(x) < 0", [-1 * per], t) == 2


@settings(max_examples=500, deadline=None)
@given(st.sampled_from(sorted(FORMS)), st.sampled_from(list(OPS)),
       st.integers(-3, 3), st.sampled_from([1, 1000, MICROS, 86_400]),
       st.lists(st.one_of(st.none(), st.integers(-3 * MICROS, 3 * MICROS),
                          st.integers(-5, 5)), min_size=1, max_size=4))
def test_random_containers(form, op, k, scale, values):
    # literals next to the rows' own results: k steps of a unit from one of them
    f, t = FORMS[form]
    present = [f(v) for v in values if v is not None]
    m = (present[0] if present else 0) + k * scale
    if t == DATE:
        values = [None if v is None else v % 100_000 for v in values]
    check(form, op, m, values)
