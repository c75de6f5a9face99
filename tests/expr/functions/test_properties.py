"""Property tests for the epoch, remainder and month functions (``unix_seconds`` ..
``timestamp_micros``, ``from_unixtime``, ``%``, ``pmod``, ``months_between``): the general
generator (``tests/support/strategies.py``) draws them too, but rarely on the containers where an
off-by-one shows; here each is drawn over values near its edges (the epoch, a block of the
divisor, month ends, the window of years 0000-9999, the integer limits), compared with a
literal next to a result a row takes, and judged by the brute-force rows of
``tests/support/reference.py``, as ``tests/test_property.py`` judges every predicate."""

from __future__ import annotations

import datetime as dt

import pyarrow as pa
from hypothesis import given, settings
from hypothesis import strategies as st

import prunekit as pk
from prunekit.expr import nodes as n
from tests.support import reference as ref
from tests.support import strategies as strat
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
