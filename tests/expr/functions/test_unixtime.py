"""``from_unixtime(x)`` of an integer column (``expr/binding/functions/unixtime.py``), compared with
strings: the text written out here (``tests/reference.from_unixtime_text``, checked against
Spark on a sample), hand-written edges (the epoch, years 0000 and 9999 and beyond them, the
count that wraps, zones) and random containers judged row by row."""

import pyarrow as pa
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import prunekit as pk
from tests.support.cases import container_of
from tests.support.reference import from_unixtime_text as text

I32, I64 = pa.int32(), pa.int64()
YEAR_0 = -62167219200  # 0000-01-01 00:00:00 UTC
YEAR_10000 = 253402300800  # 10000-01-01 00:00:00 UTC
WRAP = 9223372036854  # beyond: x * 10**6 leaves BIGINT
OPS = {"=": lambda a, b: a == b, "<": lambda a, b: a < b, "<=": lambda a, b: a <= b,
       ">": lambda a, b: a > b, ">=": lambda a, b: a >= b, "<>": lambda a, b: a != b}


def container(values, t):
    return container_of(values, t, "x")


def outcome(sql, values, t=I64, zone="UTC"):
    pred = pk.PruningPredicate(sql, {"x": t}, time_zone=zone)
    return int(pred.classify(container(values, t))[0])


def check(op, m, values, t=I64, zone="UTC", offset=0):
    got = outcome(f"from_unixtime(x) {op} '{m}'", values, t, zone)
    rows = [None if v is None else OPS[op](text(v, offset), m) for v in values]
    if got == 0:
        assert not any(r is True for r in rows), (op, m, values, rows)
    if got == 2:
        assert all(r is True for r in rows), (op, m, values, rows)
    return got


def test_texts_as_spark_shows_them():
    assert [text(0), text(YEAR_0 - 1), text(YEAR_10000), text(2**63 - 1), text(WRAP)] == [
        "1970-01-01 00:00:00", "-0001-12-31 23:59:59", "+10000-01-01 00:00:00",
        "1969-12-31 23:59:59", "+294247-01-10 04:00:54"]


def test_within_the_window():
    assert outcome("from_unixtime(x) >= '2024'", [1704067199]) == 0
    assert outcome("from_unixtime(x) >= '2024'", [1704067200]) == 2
    assert outcome("from_unixtime(x) = '1970-01-01 00:00:00'", [0]) == 2
    assert outcome("from_unixtime(x) = '1970-01-01 00:00:00'", [1, 5]) == 0
    assert outcome("from_unixtime(x) < '1970-01-01 00:00:01'", [-5, 0], I32) == 2
    assert outcome("from_unixtime(x) BETWEEN '1970' AND '1971'", [0, 100]) == 2


def test_beyond_the_window():
    # years above 9999 start with '+', below 0 with '-': below every digit
    assert outcome("from_unixtime(x) < '0'", [YEAR_10000, YEAR_10000 + 5]) == 2
    assert outcome("from_unixtime(x) >= '0'", [YEAR_0 - 10, YEAR_0 - 1]) == 0
    assert outcome("from_unixtime(x) >= '0'", [YEAR_0 - 1, YEAR_0]) == 1
    assert outcome("from_unixtime(x) > '9999-12-31 23:59:58'", [YEAR_10000 - 1]) == 2
    assert outcome("from_unixtime(x) > '9999-12-31 23:59:59'", [YEAR_10000 - 1, YEAR_10000]) \
        == 0
    # a literal starting with a sign: the signed texts are unknown, the window's above it
    assert outcome("from_unixtime(x) > '+1'", [YEAR_10000]) == 1
    assert outcome("from_unixtime(x) > '-'", [0, 10]) == 2
    assert outcome("from_unixtime(x) > ''", [YEAR_0 - 1, YEAR_10000]) == 2


def test_a_wrapping_count_is_unknown():
    # 2**63 - 1 seconds read as 1969-12-31 23:59:59 (wrapped): not above 9999
    assert text(2**63 - 1) < "2"
    assert outcome("from_unixtime(x) < '2'", [2**63 - 1]) == 1
    assert outcome("from_unixtime(x) < '2'", [WRAP]) == 2  # the last count that does not wrap
    assert outcome("from_unixtime(x) >= '9999-12-31 23:59:59'", [-WRAP - 1, -WRAP - 1]) == 1


def test_zones_and_formats():
    assert outcome("from_unixtime(x) = '1970-01-01 02:00:00'", [0], zone="+02:00") == 2
    assert outcome("from_unixtime(x) = '1970-01-01 00:00:00'", [0], zone="+02:00") == 0
    assert outcome("from_unixtime(x) = '1970-01-01 01:00:00'", [0], zone="Europe/Paris") == 1
    assert outcome("from_unixtime(x, 'yyyy-MM-dd HH:mm:ss') = '1970-01-01 00:00:00'", [5]) == 0
    assert outcome("from_unixtime(x, 'dd/MM/yyyy') = '01/01/1970'", [5]) == 1
    assert outcome("from_unixtime(x, NULL) = '01/01/1970'", [5]) == 0
    assert outcome("from_unixtime(x) IS NULL", [None]) == 2
    assert outcome("from_unixtime(x) = '1970-01-01 00:00:00'", [0.0], pa.float64()) == 1


EDGES = [0, YEAR_0, YEAR_10000, WRAP, 2**63 - 1]


@settings(max_examples=500, deadline=None)
@given(st.sampled_from(list(OPS)), st.sampled_from([(I64, "UTC", 0), (I32, "UTC", 0),
                                                      (I64, "-05:30", -19800)]),
       st.lists(st.one_of(st.none(), st.integers(-5, 5).flatmap(
           lambda k: st.sampled_from([e + k for e in EDGES] + [-e - k for e in EDGES])),
           st.integers(-(2**63), 2**63 - 1), st.integers(-10**6, 10**6)),
           min_size=1, max_size=4),
       st.integers(0, 3), st.sampled_from(["", "0", "1970", "-", "+", "!", ":", "~"]))
def test_random_containers(op, setting, values, cut, other):
    t, zone, offset = setting
    lo, hi = (-(2**31), 2**31 - 1) if t == I32 else (-(2**63), 2**63 - 1)
    values = [None if v is None else min(max(v, lo), hi) for v in values]
    present = [v for v in values if v is not None]
    # literals: a row's own text, a prefix of it, or another start
    base = text(present[0], offset) if present else "1970"
    m = [base, base[: 4 + 3 * cut], base[:-1] + "9", other][cut]
    check(op, m, values, t, zone, offset)


@pytest.mark.spark
def test_texts_match_spark(spark):
    """In the suite's session (the ``spark`` fixture), its time zone set back to UTC after."""
    values = [0, -1, 1, YEAR_0, YEAR_0 - 1, YEAR_10000, YEAR_10000 - 1, WRAP, WRAP + 1, -WRAP,
              -WRAP - 1, 2**63 - 1, -(2**63), 1704067200, -2**31, 2**31 - 1]
    try:
        for zone, offset in (("UTC", 0), ("+02:00", 7200)):
            spark.conf.set("spark.sql.session.timeZone", zone)
            rows = ", ".join(f"(CAST({v} AS BIGINT))" for v in values)
            got = [r[0] for r in spark.sql(f"SELECT from_unixtime(x) FROM VALUES {rows} AS t(x)"
                                           ).collect()]
            assert got == [text(v, offset) for v in values], zone
    finally:
        spark.conf.set("spark.sql.session.timeZone", "UTC")
