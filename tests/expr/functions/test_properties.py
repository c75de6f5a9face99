"""Property tests for the epoch, remainder and month functions (``unix_seconds`` ..
``timestamp_micros``, ``from_unixtime``, ``%``, ``pmod``, ``months_between``): the general
generator (``tests/support/strategies.py``) draws them too, but rarely on the containers where an
off-by-one shows; here each is drawn over values near its edges (the epoch, a block of the
divisor, month ends, the window of years 0000-9999, the integer limits), compared with a
literal next to a result a row takes, and judged by the brute-force rows of
``tests/support/reference.py``, as ``tests/test_property.py`` judges every predicate."""

from __future__ import annotations

import datetime as dt
import decimal
import math
from collections import Counter

import pyarrow as pa
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import prunekit as pk
from prunekit.expr.syntax import nodes as n
from tests.support import reference as ref
from tests.support import strategies as strat
from tests.support import tiers
from tests.support.functions import day
from tests.support.soundness import assert_sound

TS = pa.timestamp("us", "UTC")
MICROS = 10**6
_EPOCH = dt.date(1970, 1, 1)


def _near(points, spread):
    return st.sampled_from(points).flatmap(lambda p: st.integers(p - spread, p + spread))


def _days(*dates):
    return [(d - _EPOCH).days for d in dates]


# name -> (column type, values, how the call is made of the column node)
FORMS = {
    "unix_seconds": (TS, _near([0, 5 * MICROS, -3 * MICROS], 2 * MICROS),
                     lambda x, d: n.Func("unix_seconds", (x,))),
    "unix_millis": (TS, _near([0, -7000], 3000), lambda x, d: n.Func("unix_millis", (x,))),
    "unix_micros": (TS, st.integers(-50, 50), lambda x, d: n.Func("unix_micros", (x,))),
    "unix_timestamp": (TS, _near([0, -MICROS, 2 * MICROS], 2 * MICROS),
                       lambda x, d: n.Func("unix_timestamp", (x,))),
    "unix_timestamp_date": (pa.date32(), _near([0, -1, 19_000], 3),
                            lambda x, d: n.Func("unix_timestamp", (x,))),
    "timestamp_seconds": (pa.int64(), st.one_of(st.integers(-5, 5), st.sampled_from(
        [2**63 - 1, -(2**63), 9223372036854, 9223372036855])),
        lambda x, d: n.Func("timestamp_seconds", (x,))),
    "timestamp_millis": (pa.int32(), st.integers(-3000, 3000),
                         lambda x, d: n.Func("timestamp_millis", (x,))),
    "timestamp_micros": (pa.int64(), st.integers(-5, 5),
                         lambda x, d: n.Func("timestamp_micros", (x,))),
    "%": (pa.int64(), st.one_of(st.integers(-30, 30), st.sampled_from([-(2**63), 2**63 - 1])),
          lambda x, d: n.Func("%", (x, n.Literal(d)))),
    "pmod": (pa.int32(), st.one_of(st.integers(-30, 30), st.sampled_from([-(2**31),
                                                                             2**31 - 1])),
             lambda x, d: n.Func("pmod", (x, n.Literal(d)))),
    "months_between": (pa.date32(), _near(_days(dt.date(2024, 1, 31), dt.date(2024, 2, 29),
                                                dt.date(2023, 4, 30), dt.date(2023, 3, 1)), 3),
                       lambda x, d: n.Func("months_between", (x, n.Literal(d, pa.date32())))),
    "months_between_second": (pa.date32(), _near(_days(dt.date(2024, 3, 31),
                                                       dt.date(2024, 2, 28)), 3),
                              lambda x, d: n.Func("months_between",
                                                  (n.Literal(d, pa.date32()), x))),
    "from_unixtime": (pa.int64(), st.one_of(
        _near([0, -62167219200, 253402300800, 9223372036854, -9223372036854], 2),
        st.sampled_from([2**63 - 1, -(2**63)])), lambda x, d: n.Func("from_unixtime", (x,))),
}
# Remainders need a container over two blocks and a row at a block's edge: drawn more often.
NAMES = sorted(FORMS) + ["%", "pmod"] * 4
DIVISORS = [2, 3, -3, 7, 10, -10]
MONTH_DAYS = [dt.date(2024, 1, 31), dt.date(2023, 2, 28), dt.date(2024, 2, 29),
              dt.date(2024, 1, 15), dt.date(2023, 4, 30)]
OPS = [n.Op.LT, n.Op.LE, n.Op.GT, n.Op.GE, n.Op.EQ, n.Op.NE]


@st.composite
def examples(draw) -> strat.Example:
    name = draw(st.sampled_from(NAMES))
    t, values, call = FORMS[name]
    d = draw(st.sampled_from(MONTH_DAYS if name.startswith("months") else DIVISORS))
    node = call(n.Column("x"), d)
    cells = st.lists(st.one_of(values, values, values, st.none()), max_size=4)
    containers = draw(st.lists(cells, min_size=1, max_size=5))
    rows = [v for c in containers for v in c if v is not None]
    if not rows:  # a row to take the literal from (its type is the result's)
        rows = [draw(values)]
        containers[0] = containers[0] + rows
    got = ref.evaluate_value(node, {"x": t}, {"x": draw(st.sampled_from(rows))})
    literal = _next_to(draw, got) if isinstance(got, ref.V) else n.Literal(None)
    op = draw(st.sampled_from(OPS))
    return strat.exact_example({"x": (t, containers)}, n.Compare(op, node, literal))


def _next_to(draw, got: ref.V) -> n.Literal:
    """A literal at, or one step either side of, the result a row takes."""
    step = draw(st.sampled_from([-1, 0, 0, 1]))
    if got.kind == "num":
        return n.Literal(int(got.value) + step)
    if got.kind == "ts":
        try:
            when = _EPOCH_TS + dt.timedelta(microseconds=got.value // 1000 + step)
        except OverflowError:  # beyond years 1-9999: a literal Python can write
            when = dt.datetime(9999, 12, 31, tzinfo=dt.timezone.utc)
        return n.Literal(when, TS)
    if got.kind == "float":
        return n.Literal(got.value + step / 62)
    text = got.value.decode()
    return n.Literal(draw(st.sampled_from([text, text[:-1], text[:7], text[:-1] + "9",
                                           text + " ", "-", "+", "0"])))


_EPOCH_TS = dt.datetime(1970, 1, 1, tzinfo=dt.timezone.utc)


@settings(max_examples=1500, database=None, derandomize=True, deadline=None)
@given(examples())
def test_epoch_remainder_and_month_functions_are_sound(example):
    pred = pk.PruningPredicate(example.predicate, example.schema)
    assert_sound(example, pred.classify(example.statistics(), backend="numpy"), "numpy")


# ---- the monotone functions, coalesce and CASE: one function, rows near its breakpoints ------
# (year, month, day, date_trunc, trunc, floor, ceil, left, coalesce, if: each compared with a
# literal near a value it takes on the rows, so that bounds often decide, and counted: both
# NONE_MATCH and ALL_MATCH must be reached, not only MAYBE_MATCH)
NONE, ALL = pk.NONE_MATCH, pk.ALL_MATCH
D = decimal.Decimal
NAN, INF = math.nan, math.inf
DATE, TS_NTZ = pa.date32(), pa.timestamp("us")
F64, F32, I64, STR = pa.float64(), pa.float32(), pa.int64(), pa.string()
DEC = pa.decimal128(5, 2)
_UNITS = ["year", "quarter", "month", "week", "day", "hour", "second"]


@st.composite
def function_examples(draw) -> strat.Example:
    """One column, a whitelisted function of it compared with a literal near a value the
    function takes on the rows (so that bounds often decide), values near period edges."""
    kind = draw(st.sampled_from(["year", "month", "day", "date_trunc", "trunc", "floor", "ceil",
                                 "floor_dec", "left", "coalesce", "case"]))
    if kind in ("year", "month", "day", "date_trunc", "trunc"):
        t = draw(st.sampled_from([DATE, TS, TS_NTZ, pa.timestamp("ns"), pa.timestamp("s")]))
        per_day = 1 if t == DATE else 86_400 * {"s": 1, "us": 10**6, "ns": 10**9}[t.unit]
        edge = st.builds(lambda y, m, k: day(y, m, 1) * per_day + k,
                         st.integers(1999, 2001), st.integers(1, 12),
                         st.sampled_from([0, -1, 1, per_day * 3, per_day * 40]))
        wide = 2**31 - 1 if t == DATE else 2**62
        value = st.one_of(edge, edge, st.integers(-wide - 1, wide))
    elif kind in ("floor", "ceil"):
        t = draw(st.sampled_from([F64, F32]))
        value = st.one_of(st.sampled_from([NAN, INF, -INF, 0.0, -0.0, 2.0, 2.5, -2.5, 1e30]),
                          st.integers(-5, 5).map(lambda v: v / 2), st.floats(width=32))
    elif kind == "floor_dec":
        t = DEC
        value = st.integers(-99999, 99999).map(lambda u: D(u).scaleb(-2))
    elif kind == "left":
        t = STR
        value = st.text(st.sampled_from(["a", "b", "é", "\U0010ffff", "\x00"]), max_size=4)
    else:
        t = I64
        value = st.integers(-3, 3)
    cells = st.lists(st.one_of(value, value, value, st.none()), max_size=5)
    containers = draw(st.lists(cells, min_size=1, max_size=5))
    x = n.Column("x")
    if kind in ("year", "month", "day", "floor", "ceil"):
        node = n.Func(kind, (x,))
    elif kind == "floor_dec":
        node = n.Func(draw(st.sampled_from(["floor", "ceil"])), (x,))
    elif kind == "date_trunc":
        node = n.Func(kind, (n.Literal(draw(st.sampled_from(_UNITS))), x))
    elif kind == "trunc":
        node = n.Func(kind, (x, n.Literal(draw(st.sampled_from(_UNITS[:4])))))
    elif kind == "left":
        node = n.Func("left", (x, n.Literal(draw(st.integers(-1, 3)))))
    elif kind == "coalesce":
        node = n.Func("coalesce", (x, n.Literal(draw(st.integers(-2, 2)))))
    else:
        cond = n.Compare(draw(st.sampled_from(list(n.Op))), x, n.Literal(draw(st.integers(-2, 2))))
        node = n.Func("if", (cond, x, n.Literal(draw(st.integers(-2, 2)))))
    rows = [v for cs in containers for v in cs if v is not None]
    probe = draw(st.sampled_from(rows)) if rows else None
    got = ref.evaluate_value(node, {"x": t}, {"x": probe}) if rows else None
    if kind == "left" and rows and draw(st.booleans()):  # the row itself, longer than k
        got = ref.V("bytes", probe[: draw(st.integers(0, 5))].encode("utf-8"), text=True)
    literal: object = 0
    if isinstance(got, ref.V):
        if got.kind == "num":
            literal = int(got.value) + draw(st.sampled_from([-1, 0, 0, 1]))
        elif got.kind == "bytes":
            literal = got.value.decode("utf-8", "surrogatepass") + draw(
                st.sampled_from(["", "", "a", "\x00"]))
        elif got.kind in ("ts", "date"):
            ns = got.value * (ref.NS_PER_DAY if got.kind == "date" else 1)
            ns += draw(st.sampled_from([0, 0, 1000, -1000, ref.NS_PER_DAY]))
            us_ = ns // 1000
            if strat._DT_MIN_US < us_ < strat._DT_MAX_US:
                literal = dt.datetime(1970, 1, 1) + dt.timedelta(microseconds=us_)
    if isinstance(literal, int) and pa.types.is_temporal(t) and kind not in ("year", "month",
                                                                               "day"):
        literal = dt.datetime(2000, 1, 1)
    if isinstance(literal, int) and kind == "left":
        literal = "a"
    op = draw(st.sampled_from([n.Op.LT, n.Op.LE, n.Op.GT, n.Op.GE, n.Op.EQ, n.Op.NE]))
    return strat.exact_example({"x": (t, containers)}, n.Compare(op, node, n.Literal(literal)),
                               nan_bounds=draw(st.sampled_from(["exclude", "include"])))


def _run_property(examples: int, backend_sample: int) -> Counter:
    seen: Counter = Counter()

    @settings(max_examples=examples, database=None, derandomize=True, deadline=None)
    @given(function_examples())
    def run(example):
        pred = pk.PruningPredicate(example.predicate, example.schema)
        out = pred.classify(example.statistics(), backend="numpy")
        assert_sound(example, out, "numpy")
        if seen["compiled"] < backend_sample:
            seen["compiled"] += 1
            assert pred.classify(example.statistics(), backend="numba").tolist() == out.tolist()
        for o, rows in zip(out.tolist(), example.containers, strict=True):
            seen[(o, bool(rows))] += 1

    run()
    return seen


def test_functions_are_sound_and_decide(examples):
    # The fused kernel on the first few examples: 15 in the deep tier, where compiling is paid.
    seen = _run_property(examples, backend_sample=tiers.pick(2, 15))
    for o in (NONE, ALL):
        assert seen[(o, True)] >= 20, dict(seen)


# ---- Spark runs the same programs: the rewrites and month/day steps in Spark SQL ---------------
SPARK_PREDICATES = [
    "year(dt) = 1970", "month(dt) = 1", "day(t) BETWEEN 2 AND 4", "dayofmonth(nt) = 1",
    "month(t) IN (12, 1)", "date_trunc('day', t) = TIMESTAMP '2020-01-02 00:00:00'",
    "trunc(dt, 'MM') = DATE '1970-02-01'", "floor(f) = 0", "ceil(g) > 0", "floor(d) = 1",
    "left(s, 1) = 'a'", "substring(s, 1, 2) < 'ab'", "coalesce(x, 0) > 5",
    "CASE WHEN x > 5 THEN 1 WHEN i < 0 THEN 2 ELSE 0 END = 2",
]


@pytest.mark.spark
def test_function_programs_in_spark_sql_equal_classify(spark):
    """``to_spark_sql`` (engine="sql") gives the kernels' outcomes for every function rule,
    on statistics with NULLs, NaN bounds, min > max and inexact bounds
    (tests/spark_glue/test_frame.py)."""
    from tests.support import spark_frames as ts

    # 2,000 containers: each predicate reaches the same outcomes on them as on 20,000 of the
    # same seed (on 1,000, floor(d) = 1 misses one), and Spark renders each program the same.
    table = ts.random_statistics(2_000, seed=7)
    df = ts.to_spark(spark, table).cache()
    want = ts.expected(table, SPARK_PREDICATES)
    assert not ts.mismatches(want, ts.classify_all(df, SPARK_PREDICATES, engine="sql"), table)
    df.unpersist()  # the session is the process's, shared with its other Spark tests
    decided = [q for q, v in want.items() if 0 in v and 2 in v]
    assert len(decided) >= len(SPARK_PREDICATES) // 2, decided  # not all MAYBE
