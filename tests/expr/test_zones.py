"""The session time zone (``time_zone=``): TIMESTAMP literals without an offset, DATE <->
TIMESTAMP, and calendar functions of a TIMESTAMP read as Spark reads them in that zone.

Three ways: hand-written edges (DST gaps and overlaps, a skipped day, half-hour zones, local
mean time before 1900, NULL), a property test over drawn zones and instants near their changes
of offset against ``tests/support/reference.py`` (which computes with Python's ``zoneinfo`` alone),
and the transition search's assumption checked against every zone's data.
"""

from __future__ import annotations

import datetime as dt
import zoneinfo

import pyarrow as pa
import pytest
from hypothesis import HealthCheck, Phase, find, given, settings
from hypothesis import strategies as st

import prunekit as pk
from prunekit.expr.spark_types import zones
from prunekit.expr.syntax.moments import zone
from tests.support import reference as ref
from tests.support import strategies as strat
from tests.support.cases import ALL, MAYBE, NONE, stats_table

SCHEMA = pa.schema([("ts", pa.timestamp("us", "UTC")), ("d", pa.date32()),
                    ("n", pa.timestamp("us")), ("tms", pa.timestamp("ms", "UTC"))])
NAMES = {NONE: "NONE_MATCH", MAYBE: "MAYBE_MATCH", ALL: "ALL_MATCH"}


def us(*args) -> int:
    """Microseconds since 1970 of a UTC date-time (or a wall time)."""
    return zones.wall_of(dt.datetime(*args))


def day(*args) -> int:
    return (dt.date(*args) - dt.date(1970, 1, 1)).days


def outcome(predicate: str, zone_name: str, column: str, lo, hi, nulls: int = 0,
            rows: int = 10) -> int:
    """The outcome for one container of ``column`` with bounds [lo, hi]."""
    container = {"row_count": rows, column: {"min": lo, "max": hi, "null_count": nulls}}
    pred = pk.PruningPredicate(predicate, SCHEMA, time_zone=zone_name)
    stats = pk.Statistics.from_arrow(stats_table([container], SCHEMA))
    return int(pred.classify(stats, backend="numpy")[0])


NY, SAO, APIA = "America/New_York", "America/Sao_Paulo", "Pacific/Apia"
EDGES = [  # predicate, zone, column, min, max, expected, why
    ("ts = TIMESTAMP '2024-03-10 02:30:00'", NY, "ts", us(2024, 3, 10, 7, 30),
     us(2024, 3, 10, 7, 30), ALL, "02:30 is in the spring gap: Spark moves it to 03:30 EDT"),
    ("ts = TIMESTAMP '2024-03-10 02:30:00'", NY, "ts", us(2024, 3, 10, 6, 30),
     us(2024, 3, 10, 7, 29), NONE, "nothing before 07:30Z is 02:30 moved forward"),
    ("ts < TIMESTAMP '2024-11-03 01:30:00'", NY, "ts", us(2024, 11, 3, 6, 15),
     us(2024, 11, 3, 6, 15), NONE, "the repeated 01:30 is the first (EDT, 05:30Z); 01:15 EST "
     "is later"),
    ("date_trunc('hour', ts) = TIMESTAMP '2024-11-03 01:00:00'", NY, "ts",
     us(2024, 11, 3, 5), us(2024, 11, 3, 5, 59), ALL, "01:xx EDT truncates to 01:00 EDT"),
    ("date_trunc('hour', ts) = TIMESTAMP '2024-11-03 01:00:00'", NY, "ts",
     us(2024, 11, 3, 6), us(2024, 11, 3, 6, 59), NONE, "01:xx EST keeps its offset: 06:00Z"),
    ("CAST(ts AS DATE) = DATE '2024-11-03'", NY, "ts", us(2024, 11, 3, 4),
     us(2024, 11, 4, 4, 59), ALL, "local 2024-11-03 00:00 EDT to 23:59 EST"),
    ("CAST(ts AS DATE) = DATE '2024-11-03'", NY, "ts", us(2024, 11, 3, 3),
     us(2024, 11, 3, 3, 59), NONE, "still 2024-11-02 in New York"),
    ("to_date(ts) >= '2018-11-04'", SAO, "ts", us(2018, 11, 4, 2, 59), us(2018, 11, 4, 2, 59),
     NONE, "23:59 on 11-03: Sao Paulo's midnight of 11-04 did not exist (01:00 at 03:00Z)"),
    ("to_date(ts) >= '2018-11-04'", SAO, "ts", us(2018, 11, 4, 3), us(2018, 11, 4, 3), ALL,
     "the day starts at the end of the gap"),
    ("CAST(ts AS DATE) = DATE '2011-12-30'", APIA, "ts", us(2011, 1, 1), us(2012, 12, 31),
     NONE, "Apia skipped 2011-12-30: no instant has that date"),
    ("d = TIMESTAMP '2011-12-31 00:00:00'", APIA, "d", day(2011, 12, 30), day(2011, 12, 30),
     ALL, "the skipped day starts where 12-31 does (atStartOfDay: the end of the gap)"),
    ("year(ts) = 2024", NY, "ts", us(2024, 1, 1, 5), us(2025, 1, 1, 4, 59), ALL,
     "2024 in New York"),
    ("year(ts) = 2024", NY, "ts", us(2024, 1, 1, 4, 59), us(2024, 1, 1, 4, 59), NONE,
     "still 2023 in New York"),
    ("ts >= DATE '2024-03-10'", NY, "ts", us(2024, 3, 10, 4, 59), us(2024, 3, 10, 4, 59),
     NONE, "a DATE meets a TIMESTAMP at its local midnight (05:00Z)"),
    ("ts >= TIMESTAMP '1800-01-01 00:00:00'", NY, "ts", us(1800, 1, 1, 4, 56, 1),
     us(1800, 1, 1, 4, 56, 1), NONE, "local mean time: -04:56:02"),
    ("ts >= TIMESTAMP '1800-01-01 00:00:00'", NY, "ts", us(1800, 1, 1, 4, 56, 2),
     us(1800, 1, 1, 4, 56, 2), ALL, "local mean time: -04:56:02"),
    ("tms >= TIMESTAMP '1800-01-01 00:00:00'", NY, "tms", us(1800, 1, 1, 4, 56, 2) // 1000,
     us(1800, 1, 1, 4, 56, 2) // 1000, ALL, "in milliseconds"),
    ("hour(ts) = 5", "+05:30", "ts", us(2024, 1, 1), us(2024, 1, 1, 0, 29), ALL,
     "05:00 to 05:29 at +05:30"),
    ("hour(ts) = 5", "+05:30", "ts", us(2024, 1, 1, 1), us(2024, 1, 1, 1, 10), NONE,
     "06:30 at +05:30"),
    ("minute(ts) = 30", "+05:30", "ts", us(2024, 1, 1), us(2024, 1, 1), ALL, "05:30"),
    ("hour(ts) = 5", "Asia/Kolkata", "ts", us(2024, 1, 1, 1), us(2024, 1, 1, 1, 10), MAYBE,
     "a zone whose offset changes (in 1942-45): clock fields are unknown"),
    ("day(ts) = 1", "-03:00", "ts", us(2024, 1, 1, 3), us(2024, 1, 2, 2, 59), ALL,
     "2024-01-01 at -03:00"),
    ("month(ts) = 12", "-03:00", "ts", us(2024, 1, 1), us(2024, 1, 1, 2, 59), ALL,
     "still December at -03:00"),
    ("date_trunc('hour', ts) = TIMESTAMP '2024-01-01 05:00:00'", "Asia/Kolkata", "ts",
     us(2023, 12, 31, 23, 30), us(2024, 1, 1, 0, 29), ALL, "hours start at :30 UTC there"),
    ("date_trunc('month', ts) = TIMESTAMP '2024-03-01 00:00:00'", NY, "ts",
     us(2024, 3, 1, 5), us(2024, 4, 1, 3, 59), ALL, "March in New York, across the gap"),
    ("trunc(ts, 'MM') = DATE '2024-03-01'", NY, "ts", us(2024, 4, 1, 4), us(2024, 4, 1, 4),
     NONE, "April in New York"),
    ("n > TIMESTAMP '2024-01-01 00:00:00'", NY, "n", us(2024, 1, 2), us(2024, 1, 3), MAYBE,
     "TIMESTAMP_NTZ as an instant in a zone whose offset changes: not monotone, unknown"),
    ("n > TIMESTAMP '2024-01-01 00:00:00'", "+05:30", "n", us(2024, 1, 1, 0, 0, 1),
     us(2024, 1, 3), ALL, "a fixed offset: the wall times compare as themselves"),
    ("CAST(ts AS TIMESTAMP_NTZ) >= TIMESTAMP_NTZ '2024-11-03 01:30:00'", NY, "ts",
     us(2024, 11, 3, 6), us(2024, 11, 3, 6, 29), NONE, "01:00-01:29 EST: the repeated hour, "
     "before 01:30 on the wall"),
    ("CAST(ts AS TIMESTAMP_NTZ) >= TIMESTAMP_NTZ '2024-11-03 01:30:00'", NY, "ts",
     us(2024, 11, 3, 5, 30), us(2024, 11, 3, 5, 59), ALL, "01:30-01:59 EDT"),
    ("CAST(ts AS TIMESTAMP_NTZ) < TIMESTAMP_NTZ '2024-11-03 01:30:00'", NY, "ts",
     us(2024, 11, 3, 6), us(2024, 11, 3, 6, 29), ALL, "the negation, exact"),
    ("ts < TIMESTAMP '9999-12-31 23:59:59'", NY, "ts", us(9999, 12, 31), us(9999, 12, 31, 23,
     59, 59), ALL, "9999-12-31 23:59:59 EST is in year 10000 UTC: the yearly rule repeats"),
    ("ts > TIMESTAMP '0001-01-01 00:00:00'", NY, "ts", us(1, 1, 1, 4, 56, 1), us(1, 1, 1, 4,
     56, 1), NONE, "before the first change: local mean time"),
    ("year(ts) = NULL", NY, "ts", us(2024, 1, 1, 5), us(2024, 1, 1, 5), NONE, "NULL"),
    ("CAST(ts AS DATE) < DATE '2024-01-01'", NY, "ts", None, None, NONE, "every row NULL"),
]


@pytest.mark.parametrize(("predicate", "zone_name", "column", "lo", "hi", "expected", "why"),
                         EDGES, ids=[f"{e[0]} [{e[1]}]" for e in EDGES])
def test_edges(predicate, zone_name, column, lo, hi, expected, why):
    nulls = 10 if lo is None else 0
    got = outcome(predicate, zone_name, column, lo, hi, nulls)
    assert got == expected, f"{NAMES[got]}, expected {NAMES[expected]}: {why}"


def test_explain_names_the_zone():
    text = pk.PruningPredicate("year(ts) = 2024", SCHEMA, time_zone=NY).explain()
    assert "session time zone America/New_York" in text, text
    utc = pk.PruningPredicate("year(ts) = 2024", SCHEMA).explain()
    assert "read in UTC" in utc, utc


def test_literals_render_so_that_spark_reads_the_same_instant():
    at = dt.datetime(2024, 7, 1, 12, tzinfo=dt.timezone.utc)
    pred = pk.PruningPredicate("ts < now() AND ts > TIMESTAMP '2024-01-01 00:00:00Z'", SCHEMA,
                               now=at, time_zone=NY)
    text = pred.expression.sql()
    assert "TIMESTAMP '2024-07-01 08:00:00-04:00'" in text, text
    assert "TIMESTAMP '2024-01-01 00:00:00+00:00'" in text, text


# ---- the transition search's assumption ----------------------------------------------------
def test_no_two_changes_of_offset_are_closer_than_the_sampling_step():
    """zones.STEP is sound when no zone changes its offset twice within it: checked on every
    zone's transitions as Python's pure zoneinfo reads them (up to 2037, the POSIX rule's
    yearly changes after)."""
    pure = pytest.importorskip("zoneinfo._zoneinfo", reason="needs the pure-Python zoneinfo")
    closest = None
    for key in sorted(zoneinfo.available_timezones()):
        z = pure.ZoneInfo.no_cache(key)
        last, offset = None, z._tti_before.utcoff if z._tti_before else None
        for t, info in zip(z._trans_utc, z._ttinfos, strict=True):
            if info.utcoff != offset:
                if last is not None and (closest is None or t - last < closest[0]):
                    closest = (t - last, key)
                last, offset = t, info.utcoff
    assert closest is not None and closest[0] > zones.STEP, closest


def test_transitions_match_the_zone_data():
    """The bisection finds exactly the changes zoneinfo's data lists, in a few zones."""
    pure = pytest.importorskip("zoneinfo._zoneinfo", reason="needs the pure-Python zoneinfo")
    for key in (NY, SAO, APIA, "Australia/Lord_Howe", "Europe/Dublin"):
        z = pure.ZoneInfo.no_cache(key)
        lo, hi = us(1880, 1, 1), us(2030, 1, 1)
        expected, offset = [], z._tti_before.utcoff if z._tti_before else None
        for t, info in zip(z._trans_utc, z._ttinfos, strict=True):
            if info.utcoff != offset and lo <= t * 10**6 <= hi:
                expected.append(t * 10**6)
            offset = info.utcoff
        found = [t for t, _, _ in zones.transitions(zoneinfo.ZoneInfo(key), lo, hi)]
        assert found == expected, key


# ---- property test -------------------------------------------------------------------------
OPS = {"=": lambda a, b: a == b, "<": lambda a, b: a < b, "<=": lambda a, b: a <= b,
       ">": lambda a, b: a > b, ">=": lambda a, b: a >= b, "<>": lambda a, b: a != b}


def _text(wall: int) -> str:
    return (dt.datetime(1970, 1, 1) + dt.timedelta(microseconds=wall)).isoformat(sep=" ")


def _date_text(days: int) -> str:
    return (dt.date(1970, 1, 1) + dt.timedelta(days=days)).isoformat()


@st.composite
def zoned_cases(draw):
    """(zone name, column, SQL, truth of a row's value, the rows): one predicate over a
    TIMESTAMP, DATE or TIMESTAMP_NTZ column, its literal and rows near changes of offset."""
    name = strat.pick(draw, strat.SESSION_ZONES)
    tz = zone(name)
    near = strat.zoned_instants(name)
    anchor = draw(near)
    op = strat.pick(draw, list(OPS))
    compare = OPS[op]
    kind = strat.pick(draw, ["ts", "cast", "field", "date_trunc", "trunc", "date_col",
                             "ts_date", "ntz", "wall"])
    jitter = draw(st.sampled_from([0, 0, 1, -1, 1800 * 10**6, -3600 * 10**6]))
    wall = ref.zone_wall(anchor, tz) + jitter
    if kind == "ts":
        sql, lit = f"ts {op} TIMESTAMP '{_text(wall)}'", ref.zone_instant(wall, tz)

        def truth(v):
            return compare(v, lit)
    elif kind == "cast":
        d = wall // ref.US_PER_DAY + draw(st.integers(-1, 1))
        sql = f"CAST(ts AS DATE) {op} DATE '{_date_text(d)}'"

        def truth(v):
            return compare(ref.zone_wall(v, tz) // ref.US_PER_DAY, d)
    elif kind == "field":
        field = strat.pick(draw, ["year", "month", "day", "hour", "minute", "second"])
        k = ref.zone_field(anchor, field, tz) + draw(st.integers(-1, 1))
        sql = f"{field}(ts) {op} {k}"

        def truth(v):
            return compare(ref.zone_field(v, field, tz), k)
    elif kind == "date_trunc":
        unit = strat.pick(draw, ["year", "quarter", "month", "week", "day", "hour", "minute",
                                 "second"])
        lit_wall = ref.zone_wall(ref.zone_truncated(anchor, unit, tz), tz) + jitter
        sql = f"date_trunc('{unit}', ts) {op} TIMESTAMP '{_text(lit_wall)}'"
        lit = ref.zone_instant(lit_wall, tz)

        def truth(v):
            return compare(ref.zone_truncated(v, unit, tz), lit)
    elif kind == "trunc":
        unit = strat.pick(draw, ["year", "quarter", "month", "week"])
        d = ref.zone_wall(ref.zone_truncated(anchor, unit, tz), tz) // ref.US_PER_DAY + \
            draw(st.integers(-1, 1))
        sql = f"trunc(ts, '{unit}') {op} DATE '{_date_text(d)}'"

        def truth(v):
            return compare(ref.zone_wall(ref.zone_truncated(v, unit, tz), tz) //
                           ref.US_PER_DAY, d)
    elif kind == "date_col":
        sql, lit = f"d {op} TIMESTAMP '{_text(wall)}'", ref.zone_instant(wall, tz)

        def truth(v):
            return compare(ref.zone_day_start(v, tz), lit)
    elif kind == "ts_date":
        d = wall // ref.US_PER_DAY + draw(st.integers(-1, 1))
        sql, lit = f"ts {op} DATE '{_date_text(d)}'", ref.zone_day_start(d, tz)

        def truth(v):
            return compare(v, lit)
    elif kind == "wall":
        sql = f"CAST(ts AS TIMESTAMP_NTZ) {op} TIMESTAMP_NTZ '{_text(wall)}'"

        def truth(v):
            return compare(ref.zone_wall(v, tz), wall)
    else:
        sql, lit = f"n {op} TIMESTAMP '{_text(wall)}'", ref.zone_instant(wall, tz)

        def truth(v):
            return compare(ref.zone_instant(v, tz), lit)
    column = {"date_col": "d", "ntz": "n"}.get(kind, "ts")
    values = []
    for _ in range(draw(st.integers(1, 5))):
        v = draw(near)
        v = ref.zone_wall(v, tz) if column == "n" else v
        values.append(v // ref.US_PER_DAY if column == "d" else v)
    if draw(st.booleans()):
        values.append(None)
    negate = draw(st.booleans())
    if negate:
        sql = f"NOT ({sql})"
    return name, column, sql, truth, negate, values


def unsound(case) -> str | None:
    """What is wrong with prunekit's outcome for the case's container, or None."""
    name, column, sql, truth, negate, values = case
    rows = []
    for v in values:
        t = None if v is None else bool(truth(v))
        rows.append(None if t is None else (not t if negate else t))
    present = [v for v in values if v is not None]
    stats = {"row_count": len(values), column: {
        "min": min(present) if present else None, "max": max(present) if present else None,
        "null_count": len(values) - len(present)}}
    pred = pk.PruningPredicate(sql, SCHEMA, time_zone=name)
    got = int(pred.classify(pk.Statistics.from_arrow(stats_table([stats], SCHEMA)),
                            backend="numpy")[0])
    if got == NONE and any(r is True for r in rows):
        return f"NONE_MATCH, but a row matches: {sql} in {name}, rows {values} -> {rows}"
    if got == ALL and not all(r is True for r in rows):
        return f"ALL_MATCH, but a row does not match: {sql} in {name}, rows {values} -> {rows}"
    return None


@settings(max_examples=400, deadline=None, suppress_health_check=list(HealthCheck))
@given(zoned_cases())
def test_outcomes_are_sound_in_any_session_zone(case):
    problem = unsound(case)
    assert problem is None, problem


def test_reading_utc_instead_is_caught(monkeypatch, examples):
    """The property test fails for a rule that reads the wall time in UTC (the mutation)."""
    monkeypatch.setattr(zones, "local_at_least", lambda tz, wall: ((wall, None),))
    found = find(zoned_cases(), lambda case: unsound(case) is not None,
                 settings=settings(max_examples=examples, database=None, derandomize=True,
                                   phases=[Phase.generate],
                                   suppress_health_check=list(HealthCheck)))
    assert unsound(found) is not None


class _Conf:
    def __init__(self, name):
        self.name = name

    def get(self, key):
        assert key == "spark.sql.session.timeZone"
        return self.name


class _Session:  # what the Spark glue asks of a session: its time zone setting
    def __init__(self, name):
        self.conf = _Conf(name)


def test_a_session_zone_python_does_not_know_is_never_guessed():
    """Java's short name PST has no zoneinfo entry: the readers leave the predicate to Spark
    (every file read, with a warning), and classify_dataframe refuses text it would read in
    a guessed zone."""
    pytest.importorskip("pyspark")
    from prunekit.spark_glue import frame, reader
    from prunekit.spark_glue._spark import session_time_zone

    assert session_time_zone(_Session("PST")) is None
    assert session_time_zone(_Session("America/Los_Angeles")) == "America/Los_Angeles"
    with pytest.warns(UserWarning, match="PST"):
        pred, where = reader._predicate(_Session("PST"), "ts > '2024-01-01'",
                                        "ts > '2024-01-01'", None)
    assert pred is None and where == "ts > '2024-01-01'"

    class Frame:
        sparkSession = _Session("PST")

    with pytest.raises(pk.UnsupportedError, match="PST.*time_zone="):
        frame._predicate("ts > '2024-01-01'", {"ts": pa.timestamp("us", "UTC")}, Frame())
