"""prunekit against Spark in sessions of other time zones than UTC: a handful of predicates
(TIMESTAMP literals in gaps and overlaps, CAST AS DATE and AS TIMESTAMP_NTZ, year, hour,
date_trunc, trunc, a DATE against a TIMESTAMP, a TIMESTAMP literal plus an interval) over small
containers around changes of offset, in New York and Sao Paulo (DST changes at midnight, before
2019). prunekit's outcome must never be NONE_MATCH for a container holding a row Spark's filter
keeps, nor ALL_MATCH where Spark drops one; and read_parquet in such a session returns the rows
Spark's own filter does.
"""

from __future__ import annotations

import datetime as dt

import pyarrow as pa
import pyarrow.parquet as pq
import pytest

import prunekit as pk
import prunekit.spark_glue as sg
from prunekit.expr.syntax.moments import zone
from tests.support import reference as ref
from tests.support import strategies as strat
from tests.support.cases import ALL, NONE, stats_table

pytestmark = pytest.mark.spark

ZONES = ("America/New_York", "America/Sao_Paulo")
SCHEMA = pa.schema([("ts", pa.timestamp("us", "UTC")), ("d", pa.date32())])
MINUTE = 60 * 10**6


@pytest.fixture(autouse=True)
def _back_in_utc(spark):
    """Each test sets the shared session's time zone; the next finds it in UTC."""
    yield
    spark.conf.set("spark.sql.session.timeZone", "UTC")


def _text(wall: int) -> str:
    return (dt.datetime(1970, 1, 1) + dt.timedelta(microseconds=wall)).isoformat(sep=" ")


def _containers(name: str) -> list[list[int]]:
    """Containers of instants around the zone's changes of offset in one year: 40 minutes
    apart, each two hours long, from six hours before each change to six after."""
    year = 2024 if name == "America/New_York" else 2018
    changes = [t for t in strat.zone_transitions(name)
               if dt.datetime(year, 1, 1, tzinfo=dt.timezone.utc) <= ref.zone_datetime(
                   t, dt.timezone.utc) < dt.datetime(year + 1, 1, 1, tzinfo=dt.timezone.utc)]
    out = []
    for t in changes:
        for k in range(-9, 9):
            start = t + k * 40 * MINUTE
            out.append([start + j * 10 * MINUTE + 7 for j in range(13)])
    return out


def _predicates(name: str) -> list[str]:
    """Predicates whose literals fall at the zone's changes (wall times in gaps, overlaps and
    the days they change on)."""
    tz = zone(name)
    out = []
    for t in strat.zone_transitions(name):
        wall = ref.zone_wall(t, tz)
        if not 2017 <= wall // (365 * ref.US_PER_DAY) + 1970 <= 2025:
            continue
        for w in (wall - 30 * MINUTE, wall + 30 * MINUTE):
            out += [f"ts < TIMESTAMP '{_text(w)}'", f"ts = TIMESTAMP '{_text(w)}'"]
        day = wall // ref.US_PER_DAY
        date = (dt.date(1970, 1, 1) + dt.timedelta(days=day)).isoformat()
        hour = wall // (60 * MINUTE) * 60 * MINUTE
        out += [f"CAST(ts AS DATE) = DATE '{date}'", f"to_date(ts) >= '{date}'",
                f"year(ts) = {ref.civil(day)[0]}", f"hour(ts) = {wall // (60 * MINUTE) % 24}",
                f"date_trunc('HOUR', ts) = TIMESTAMP '{_text(hour)}'",
                f"date_trunc('DAY', ts) >= TIMESTAMP '{date} 00:00:00'",
                f"date_trunc('MONTH', ts) < TIMESTAMP '{_text(wall)}'",
                f"trunc(ts, 'MM') = DATE '{date[:8]}01'",
                f"d < TIMESTAMP '{_text(wall)}'", f"ts >= DATE '{date}'",
                f"ts < TIMESTAMP '{_text(wall - 120 * MINUTE)}' + INTERVAL '2' HOUR",
                f"ts < TIMESTAMP '{_text(wall - 31 * ref.US_PER_DAY)}' + INTERVAL '1' MONTH",
                f"CAST(ts AS TIMESTAMP_NTZ) >= TIMESTAMP_NTZ '{_text(wall - 30 * MINUTE)}'"]
    return out


@pytest.mark.parametrize("name", ZONES)
def test_outcomes_agree_with_sparks_filter(spark, name):
    containers = _containers(name)
    rows = [(c, v, v // ref.US_PER_DAY) for c, values in enumerate(containers) for v in values]
    predicates = _predicates(name)
    spark.conf.set("spark.sql.session.timeZone", name)
    frame = spark.createDataFrame(rows, "c INT, us BIGINT, day INT").selectExpr(
        "c", "timestamp_micros(us) AS ts", "date_from_unix_date(day) AS d")
    frame.createOrReplaceTempView("zoned")
    kept = ", ".join(f"max(CASE WHEN {p} THEN 1 ELSE 0 END) AS k{i}, "
                     f"min(CASE WHEN {p} THEN 1 ELSE 0 END) AS a{i}"
                     for i, p in enumerate(predicates))
    answers = {r["c"]: r for r in spark.sql(
        f"SELECT c, {kept} FROM zoned GROUP BY c").collect()}
    stats = pk.Statistics.from_arrow(stats_table([{
        "row_count": len(values),
        "ts": {"min": min(values), "max": max(values), "null_count": 0},
        "d": {"min": min(values) // ref.US_PER_DAY, "max": max(values) // ref.US_PER_DAY,
              "null_count": 0}} for values in containers], SCHEMA))
    wrong, decided = [], 0
    for i, p in enumerate(predicates):
        got = pk.PruningPredicate(p, SCHEMA, time_zone=name).classify(stats, backend="numpy")
        for c, outcome in enumerate(got.tolist()):
            some, every = answers[c][f"k{i}"], answers[c][f"a{i}"]
            decided += outcome != 1
            if outcome == NONE and some:
                wrong.append(f"{p}: container {c} NONE_MATCH, Spark keeps a row")
            if outcome == ALL and not every:
                wrong.append(f"{p}: container {c} ALL_MATCH, Spark drops a row")
    assert not wrong, "\n".join(wrong[:20])
    assert decided > len(predicates) * len(containers) // 4  # the rules prune, not only guess


def test_read_parquet_in_another_zone_returns_sparks_rows(spark, tmp_path):
    name = "America/New_York"
    containers = _containers(name)
    for k, values in enumerate(containers):
        table = pa.table({"ts": pa.array(values, pa.timestamp("us", "UTC")),
                          "d": pa.array([v // ref.US_PER_DAY for v in values], pa.date32())})
        pq.write_table(table, tmp_path / f"part-{k:03d}.parquet")
    spark.conf.set("spark.sql.session.timeZone", name)
    lake = str(tmp_path)
    skipped = 0
    for where in _predicates(name)[::6]:
        expected = sorted(spark.read.parquet(lake).where(where).collect())
        got = sg.read_parquet(spark, lake, where)
        assert sorted(got.collect()) == expected, where
        skipped += len(containers) - len(got.inputFiles())
    assert skipped > 0  # the session's zone did not turn pruning off
