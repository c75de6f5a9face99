"""The moment of a query (``expr/syntax/moments.py``): ``current_date()``, ``now()``,
``localtimestamp()`` fixed as one literal in the session time zone (across a daylight-saving
change too), a window of the last days pruned from that moment, and clear errors for a bad time
zone or moment."""

import datetime as dt

import pyarrow as pa
import pytest

import prunekit as pk
from tests.support.cases import container_of

DATE = pa.date32()
D = {"d": DATE}
UTC = dt.timezone.utc
AT = dt.datetime(2024, 3, 1, 23, 30, tzinfo=UTC)


@pytest.mark.parametrize("sql, zone, text", [
    ("d >= date_sub(current_date(), 7)", "UTC", "d >= date_sub(DATE '2024-03-01', 7)"),
    ("d >= date_sub(current_date, 7)", "Asia/Tokyo", "d >= date_sub(DATE '2024-03-02', 7)"),
    ("d >= curdate()", "America/Los_Angeles", "d >= DATE '2024-03-01'"),
    ("t > now() - INTERVAL 1 DAY", "UTC",
     "t > (TIMESTAMP '2024-03-01 23:30:00' - INTERVAL '1' DAY)"),
    # with the session's offset: Spark, given this text in that session, reads the same instant
    ("t > now() - INTERVAL 1 DAY", "Asia/Tokyo",
     "t > (TIMESTAMP '2024-03-02 08:30:00+09:00' - INTERVAL '1' DAY)"),
    ("n < localtimestamp()", "Asia/Tokyo", "n < TIMESTAMP_NTZ '2024-03-02 08:30:00'"),
])
def test_the_moment_is_one_literal_in_the_session_time_zone(sql, zone, text):
    schema = {"d": pa.date32(), "t": pa.timestamp("us", tz="UTC"), "n": pa.timestamp("us")}
    pred = pk.PruningPredicate(sql, schema, now=AT, time_zone=zone)
    assert pred.expression.sql() == text and pred.now == AT


def test_the_last_seven_days_prune():
    at = dt.datetime(2024, 3, 10, 8, 0)  # naive: UTC
    days = [dt.date(2024, 3, d) for d in (1, 2, 3, 4, 5, 6, 7, 8, 9, 10)]
    pred = pk.PruningPredicate("d > date_sub(current_date(), 7)", D, now=at)
    got = [int(pred.classify(container_of([v], DATE, "d"))[0]) for v in days]
    assert got == [0, 0, 0, 2, 2, 2, 2, 2, 2, 2]
    assert pk.PruningPredicate("x > 1", {"x": pa.int64()}).now is None


def test_moment_errors_are_clear():
    with pytest.raises(ValueError, match="unknown time zone 'Mars/Base'"):
        pk.PruningPredicate("d = current_date()", D, time_zone="Mars/Base")
    with pytest.raises(TypeError, match="now must be a datetime"):
        pk.PruningPredicate("d = current_date()", D, now="today")


@pytest.mark.parametrize("utc_hour, local_date", [(7, "2024-03-09"), (9, "2024-03-10"),
                                                  (11, "2024-03-10")])
def test_current_date_across_a_daylight_saving_change(utc_hour, local_date):
    """Los Angeles moves from UTC-8 to UTC-7 at 10:00 UTC on 2024-03-10."""
    at = dt.datetime(2024, 3, 10, utc_hour, 30, tzinfo=UTC)
    pred = pk.PruningPredicate("d = current_date()", D, now=at, time_zone="America/Los_Angeles")
    assert pred.expression.sql() == f"d = DATE '{local_date}'"
