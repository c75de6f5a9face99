"""The main soundness property: rows -> statistics -> outcome, checked against brute force.

For every generated container, the outcome is judged by ``tests/support/soundness.py``
(docs/semantics.md §3): ``tests/support/reference.py`` evaluates each row;
``tests/support/strategies.py`` draws the rows, their statistics (degraded only soundly) and the
predicate. The hypothesis profile ``ci``
(tests/conftest.py) is derandomized, so a run is reproducible; HYPOTHESIS_PROFILE=dev explores.
Hand-picked cases that were once unsound follow the properties (``EDGE_CASES``).
"""

from __future__ import annotations

import datetime as dt
import decimal
import math
from collections import Counter

import numpy as np
import pyarrow as pa
import pytest
from hypothesis import event, given, settings, target
from hypothesis import strategies as st

import prunekit as pk
from prunekit.expr.syntax import nodes as n
from tests.support import reference as ref
from tests.support import strategies as strat
from tests.support import tiers
from tests.support.soundness import NAMES, assert_sound, row_truths, violations

D = decimal.Decimal
NAN = math.nan


def record(example: strat.Example, outcome) -> None:
    """Steer hypothesis towards decisive outcomes on non-empty containers, and report them."""
    decisive = 0
    for o, rows in zip(np.asarray(outcome).tolist(), example.containers, strict=True):
        if rows and o != pk.MAYBE_MATCH:
            decisive += 1
            event(f"{NAMES[o]} on a non-empty container")
    target(float(decisive), label="decisive outcomes")


# ---- (a) soundness through the NumPy reference interpreter ------------------------------------
@pytest.mark.slow
@settings(max_examples=4000)
@given(strat.examples())
def test_outcomes_are_sound_numpy(example):
    pred = pk.PruningPredicate(example.predicate, example.schema)
    stats = example.statistics()
    outcome = pred.classify(stats, backend="numpy")
    assert outcome.dtype == np.int8 and outcome.shape == (len(example.containers),)
    record(example, outcome)
    assert_sound(example, outcome, "numpy")
    # prune() runs its own program (no ALL_MATCH): it must keep exactly what classify keeps
    # compared as bytes: a stray ALL_MATCH (2) in a prune program would read as True
    assert pred.prune(stats, backend="numpy").view(np.int8).tolist() == (
        outcome != pk.NONE_MATCH).view(np.int8).tolist()


# ---- (b) the compiled kernel: sound, and equal to the interpreter -----------------------------
@pytest.mark.slow
@settings(max_examples=150)
@given(strat.examples(max_depth=2, max_containers=4))
def test_numba_kernel_is_sound_and_matches_numpy(example):
    pred = pk.PruningPredicate(example.predicate, example.schema)
    stats = example.statistics()
    compiled = pred.classify(stats, backend="numba")
    interpreted = pred.classify(stats, backend="numpy")
    assert compiled.dtype == np.int8
    assert compiled.tolist() == interpreted.tolist(), (
        f"numba {compiled.tolist()} != numpy {interpreted.tolist()}\n" + example.describe())
    assert_sound(example, compiled, "numba")


# ---- (b') the compiled interpreter: equal to the NumPy one, on programs of any size ------------
# It compiles nothing per shape, so it sees the full-size examples of (a), not (b)'s small ones.
@pytest.mark.slow
@settings(max_examples=1500)
@given(strat.examples())
def test_compiled_interpreter_matches_numpy(example):
    pred = pk.PruningPredicate(example.predicate, example.schema)
    stats = example.statistics()
    run = pred.classify(stats, backend="vm")
    interpreted = pred.classify(stats, backend="numpy")
    assert run.dtype == np.int8
    assert run.tolist() == interpreted.tolist(), (
        f"vm {run.tolist()} != numpy {interpreted.tolist()}\n" + example.describe())
    assert pred.prune(stats, backend="vm").view(np.int8).tolist() == (
        run != pk.NONE_MATCH).view(np.int8).tolist()


# ---- (b'') classify's pairs: the same outcomes as the lattice's three bits ----------------------
def _three_bit_program(pred: pk.PruningPredicate):
    """The classify program as the lattice spells it: three bits at every node."""
    from prunekit.expr.program.rewrite import Rewriter

    r = Rewriter()
    bits = r.bits(pred.bound)
    return r.p.build(r.p.op("outcome", bits.true, bits.false, bits.null, r.empty))


@pytest.mark.slow
@settings(max_examples=600)
@given(strat.examples())
def test_decisive_pairs_answer_as_three_bits(example):
    """Classify's program combines two bits per node (``Rewriter.decisive``): its outcomes
    are those of the lattice's three bits (docs/semantics.md)."""
    from prunekit.evaluation import outcomes

    pred = pk.PruningPredicate(example.predicate, example.schema)
    stats = example.statistics()
    paired = pred.classify(stats, backend="numpy")
    three = outcomes(_three_bit_program(pred), stats, pred._leaf_keys, "numpy")
    assert paired.tolist() == three.tolist(), (
        f"pairs {paired.tolist()} != three bits {three.tolist()}\n" + example.describe())


# ---- (c) SQL round trip: the tree and its rendering give the same outcomes ---------------------
@pytest.mark.slow
@settings(max_examples=1000)
@given(strat.examples(faithful=True))
def test_sql_rendering_round_trips(example):
    tree = pk.PruningPredicate(example.predicate, example.schema)
    text = example.predicate.sql()
    parsed = pk.PruningPredicate(text, example.schema)
    stats = example.statistics()
    a = tree.classify(stats, backend="numpy")
    b = parsed.classify(stats, backend="numpy")
    assert a.tolist() == b.tolist(), (
        f"tree gives {a.tolist()}, its SQL {text!r} gives {b.tolist()}\n" + example.describe())
    assert_sound(example, b, "round-tripped")


# ---- the property cannot pass vacuously --------------------------------------------------------
@pytest.mark.slow
def test_property_is_not_vacuous(examples):
    """The generator reaches every outcome on non-empty containers, and the check rejects
    trivially unsound answers (always NONE_MATCH, always ALL_MATCH, NONE and ALL swapped)."""
    seen: Counter = Counter()
    caught: Counter = Counter()

    @settings(max_examples=examples, database=None, derandomize=True)
    @given(strat.examples())
    def run(example):
        pred = pk.PruningPredicate(example.predicate, example.schema)
        outcome = pred.classify(example.statistics(), backend="numpy")
        truths = row_truths(example)
        for o, rows in zip(outcome.tolist(), example.containers, strict=True):
            seen[(NAMES[o], bool(rows))] += 1
        k = len(example.containers)
        for name, fake in (("all NONE_MATCH", np.zeros(k, np.int8)),
                           ("all ALL_MATCH", np.full(k, 2, np.int8)),
                           ("negated", np.where(outcome == 1, 1, 2 - outcome))):
            if violations(example, fake, truths):
                caught[name] += 1

    run()
    for o in ("NONE_MATCH", "MAYBE_MATCH", "ALL_MATCH"):
        assert seen[(o, True)] >= 10, f"{o} is rare on non-empty containers: {dict(seen)}"
    for name in ("all NONE_MATCH", "all ALL_MATCH", "negated"):
        assert caught[name] >= 10, f"the check misses a {name} classifier: {dict(caught)}"


_INT_TYPES = [pa.int8(), pa.int16(), pa.int32(), pa.int64()]


@st.composite
def arithmetic_examples(draw) -> strat.Example:
    """One signed integer column with values near zero and near its limits, and a comparison
    of a chain of +, -, * with constants (and unary minus) against a literal near a value the
    chain takes, so that bounds often decide."""
    t = draw(st.sampled_from(_INT_TYPES))
    lo, hi = ref.int_range(t)
    value = st.one_of(st.integers(-50, 50), st.integers(lo, hi),
                      st.sampled_from([lo, lo + 1, hi - 1, hi]))
    cells = st.lists(st.one_of(value, value, value, st.none()), max_size=5)
    containers = draw(st.lists(cells, min_size=1, max_size=6))
    node: n.Node = n.Column("x")
    for _ in range(draw(st.integers(1, 3))):
        if draw(st.integers(0, 5)) == 0:
            node = n.Neg(node)
            continue
        c = n.Literal(draw(st.sampled_from(strat.ARITH_CONSTANTS)))
        form = draw(st.sampled_from(["+", "-", "*", "c-", "c*"]))
        node = n.Func(form[-1], (c, node) if form.startswith("c") else (node, c))
    rows = [v for cells_ in containers for v in cells_ if v is not None]
    probe = draw(st.sampled_from(rows)) if rows else 0
    ex = strat.exact_example({"x": (t, [[probe]])}, node == n.Literal(0))
    got = ref.evaluate_value(node, ex.types, {"x": probe})
    base = int(got.value) if isinstance(got, ref.V) else draw(st.integers(-100, 100))
    literal = base + draw(st.sampled_from([-1, 0, 0, 1]))
    op = draw(st.sampled_from([n.Op.LT, n.Op.LE, n.Op.GT, n.Op.GE, n.Op.EQ, n.Op.NE]))
    return strat.exact_example({"x": (t, containers)}, n.Compare(op, node, n.Literal(literal)))


@settings(max_examples=400, database=None, derandomize=True)
@given(arithmetic_examples())
def test_integer_arithmetic_is_sound(example):
    pred = pk.PruningPredicate(example.predicate, example.schema)
    assert_sound(example, pred.classify(example.statistics(), backend="numpy"), "numpy")
    record(example, pred.classify(example.statistics(), backend="numpy"))


@st.composite
def sum_examples(draw) -> strat.Example:
    """Two signed integer columns of any widths, ``a + b`` or ``a - b`` compared with a
    literal near a sum the rows take (or with ``b``), values near zero and the limits."""
    ta, tb = draw(st.sampled_from(_INT_TYPES)), draw(st.sampled_from(_INT_TYPES))

    def cells(t):
        lo, hi = ref.int_range(t)
        value = st.one_of(st.integers(-50, 50), st.integers(lo, hi), st.sampled_from([lo, hi]))
        return st.one_of(value, value, value, st.none())

    k = draw(st.integers(1, 5))
    sizes = draw(st.lists(st.integers(0, 4), min_size=k, max_size=k))
    a = [[draw(cells(ta)) for _ in range(m)] for m in sizes]
    b = [[draw(cells(tb)) for _ in range(m)] for m in sizes]
    node = n.Func(draw(st.sampled_from(["+", "-"])), (n.Column("a"), n.Column("b")))
    pairs = [(x, y) for xs, ys in zip(a, b, strict=True) for x, y in zip(xs, ys, strict=True)
             if x is not None and y is not None]
    probe = ref.evaluate_value(node, {"a": ta, "b": tb},
                               dict(zip("ab", draw(st.sampled_from(pairs)), strict=True))
                               ) if pairs else None
    base = int(probe.value) if isinstance(probe, ref.V) else draw(st.integers(-100, 100))
    other = n.Column("b") if draw(st.booleans()) else n.Literal(
        base + draw(st.sampled_from([-1, 0, 1])))
    op = draw(st.sampled_from([n.Op.LT, n.Op.LE, n.Op.GT, n.Op.GE, n.Op.EQ, n.Op.NE]))
    return strat.exact_example({"a": (ta, a), "b": (tb, b)}, n.Compare(op, node, other))


@settings(max_examples=300, database=None, derandomize=True)
@given(sum_examples())
def test_column_sums_are_sound(example):
    pred = pk.PruningPredicate(example.predicate, example.schema)
    outcome = pred.classify(example.statistics(), backend="numpy")
    assert_sound(example, outcome, "numpy")
    record(example, outcome)


_SPECIAL = [0.0, -0.0, math.inf, -math.inf, NAN, 1e308, -1e308, 5e-324, 1.0, -1.0]


@st.composite
def double_examples(draw) -> strat.Example:
    """Two DOUBLE columns with NaN, infinities, signed zeros and extremes among the values;
    ``+``, ``-``, ``*`` between them and with constants, compared with a literal near a value
    the rows take (price * (1 - discount))."""
    value = st.one_of(st.floats(-1e3, 1e3, allow_nan=False).map(lambda v: round(v, 2)),
                      st.sampled_from(_SPECIAL), st.floats(allow_nan=True))
    cells = st.lists(st.one_of(value, value, value, st.none()), max_size=4)
    k = draw(st.integers(1, 5))
    sizes = [len(c) for c in draw(st.lists(cells, min_size=k, max_size=k))]
    cols = {name: [[draw(st.one_of(value, st.none())) for _ in range(m)] for m in sizes]
            for name in "ab"}

    def operand(depth: int) -> n.Node:
        if depth == 0 or draw(st.integers(0, 2)) == 0:
            return n.Column(draw(st.sampled_from("ab")))
        x = operand(depth - 1)
        y = (operand(depth - 1) if draw(st.booleans()) else
             n.Literal(draw(st.sampled_from([1, 2, -1, 0, 0.5, D("0.05"), 1e300]))))
        if draw(st.booleans()):
            x, y = y, x
        return n.Func(draw(st.sampled_from(["+", "-", "*"])), (x, y))

    node = operand(2)
    if isinstance(node, n.Column):
        node = n.Func("-", (n.Literal(1), node))
    types = {"a": pa.float64(), "b": pa.float64()}
    rows = [dict(zip("ab", r, strict=True)) for i in range(k)
            for r in zip(cols["a"][i], cols["b"][i], strict=True)]
    probe = ref.evaluate_value(node, types, draw(st.sampled_from(rows))) if rows else None
    base = probe.value if isinstance(probe, ref.V) and math.isfinite(probe.value) else 0.0
    literal = draw(st.sampled_from([base, base + 1, base - 1, math.nextafter(base, math.inf)]))
    op = draw(st.sampled_from([n.Op.LT, n.Op.LE, n.Op.GT, n.Op.GE, n.Op.EQ, n.Op.NE]))
    return strat.exact_example({c: (pa.float64(), cols[c]) for c in "ab"},
                               n.Compare(op, node, n.Literal(literal)),
                               nan_bounds=draw(st.sampled_from(["exclude", "include"])))


@settings(max_examples=400, database=None, derandomize=True)
@given(double_examples())
def test_double_arithmetic_is_sound(example):
    pred = pk.PruningPredicate(example.predicate, example.schema)
    outcome = pred.classify(example.statistics(), backend="numpy")
    assert_sound(example, outcome, "numpy")
    record(example, outcome)


@pytest.mark.slow
def test_double_arithmetic_decides(examples):
    seen: Counter = Counter()

    @settings(max_examples=examples, database=None, derandomize=True)
    @given(double_examples())
    def run(example):
        pred = pk.PruningPredicate(example.predicate, example.schema)
        out = pred.classify(example.statistics(), backend="numpy")
        if seen["compiled"] < tiers.pick(2, 10):  # a compile each: few in make test
            seen["compiled"] += 1
            np.testing.assert_array_equal(
                pred.classify(example.statistics(), backend="numba"), out)
        for o, rows in zip(out.tolist(), example.containers, strict=True):
            seen[(NAMES[o], bool(rows))] += 1

    run()
    for o in ("NONE_MATCH", "ALL_MATCH"):
        assert seen[(o, True)] >= 10, dict(seen)


@pytest.mark.slow
def test_integer_arithmetic_decides_and_the_kernel_agrees(examples):
    """Not vacuous: the arithmetic examples reach NONE_MATCH and ALL_MATCH on non-empty
    containers, and the compiled kernel gives the interpreter's outcomes."""
    seen: Counter = Counter()

    @settings(max_examples=examples, database=None, derandomize=True)
    @given(arithmetic_examples())
    def run(example):
        pred = pk.PruningPredicate(example.predicate, example.schema)
        numpy_out = pred.classify(example.statistics(), backend="numpy")
        # each new chain is a new kernel: compile a sample of them (few in make test)
        if seen["compiled"] < tiers.pick(3, 20):
            seen["compiled"] += 1
            np.testing.assert_array_equal(
                pred.classify(example.statistics(), backend="numba"), numpy_out)
        for o, rows in zip(numpy_out.tolist(), example.containers, strict=True):
            seen[(NAMES[o], bool(rows))] += 1

    run()
    for o in ("NONE_MATCH", "ALL_MATCH"):
        assert seen[(o, True)] >= 10, dict(seen)


# ---- hand-picked edges: each one has been unsound in some version ------------------------------
F32_1_1 = ref.round_f32(1.1)
UTC = dt.timezone.utc
x, f = pk.col("x"), pk.col("f")


def edge(columns: dict, tree: n.Node, sql: str | None, why: str, **options) -> tuple:
    """A hand-written case: the reference evaluates ``tree``; prunekit gets ``tree`` and, when
    given, the SQL text meaning the same (so that parser bugs are not hidden by the oracle)."""
    return columns, tree, sql, options, why


EDGE_CASES = [
    edge({"x": (pa.float32(), [[F32_1_1], [2.0]])}, x == pk.lit(1.1).cast(pa.float32()),
         "x = CAST(1.1 AS FLOAT)", "CAST(1.1 AS FLOAT) is the float32 nearest 1.1"),
    edge({"x": (pa.float32(), [[math.inf]])}, x == pk.lit(1e300).cast(pa.float32()),
         "x = CAST(1e300 AS FLOAT)", "1e300 overflows float32: CAST gives +inf"),
    edge({"f": (pa.float64(), [[1.0]])}, -f < pk.lit(NAN), "-f < CAST('NaN' AS DOUBLE)",
         "-f is a number, below NaN: TRUE (negation does not mirror NaN)", no_nan=("f",)),
    edge({"f": (pa.float64(), [[1.0]])}, pk.lit(NAN) >= -f, "CAST('NaN' AS DOUBLE) >= -f",
         "NaN is above -f", no_nan=("f",)),
    edge({"f": (pa.float64(), [[1.0]])}, -f > pk.lit(NAN), "-f > CAST('NaN' AS DOUBLE)",
         "nothing is above NaN: FALSE, so not ALL_MATCH", no_nan=("f",)),
    edge({"x": (pa.decimal128(30, 0), [[D("123456789012345678901234567891")]])},
         x == pk.lit(123456789012345678901234567891), "x = 123456789012345678901234567891",
         "30 digits: no rounding to 28"),
    edge({"x": (pa.decimal128(38, 0), [[D("-1234567890123456789012345678901")]])},
         x == pk.lit(D("-1234567890123456789012345678901.0")),
         "x = -1234567890123456789012345678901.0",
         "a negative 31-digit decimal literal is exact (no rounding to 28 digits)"),
    edge({"x": (pa.decimal128(38, 0), [[D("-1234567890123456789012345678901")]])},
         x == n.Neg(pk.lit(D("1234567890123456789012345678901.0"))),
         "x = -(1234567890123456789012345678901.0)",
         "unary minus of a 31-digit decimal literal is exact"),
    edge({"x": (pa.decimal128(5, 1), [[D("5.6")]])},
         x == pk.lit(D("5.55")).cast(pa.decimal128(3, 1)), "x = CAST(5.55 AS DECIMAL(3, 1))",
         "CAST rounds half up: 5.6"),
    edge({"x": (pa.decimal128(10, 2), [[D("1.00")]])},
         x == pk.lit(1e300).cast(pa.decimal128(10, 2)), "x = CAST(1e300 AS DECIMAL(10, 2))",
         "an overflowing CAST is NULL (not an error), however large the value"),
    edge({"a": (pa.int64(), [[2**53 + 1]]), "b": (pa.uint64(), [[2**53]])},
         pk.col("a") > pk.col("b"), "a > b", "int64 against uint64 compares exactly"),
    edge({"a": (pa.float64(), [[5.0, 5.0]]), "b": (pa.float64(), [[1.0, NAN]])},
         pk.col("a") < pk.col("b"), "a < b", "a number is below a NaN in the other column"),
    edge({"t": (pa.timestamp("s"), [[-1]])},
         pk.col("t").cast(pa.date32()) == pk.lit(dt.date(1969, 12, 31)),
         "CAST(t AS DATE) = DATE '1969-12-31'", "timestamp to date floors to the UTC day"),
    edge({"x": (pa.int64(), [[2]])}, ~x.isin([1, None]), "x NOT IN (1, NULL)",
         "NOT IN with a NULL is never TRUE"),
    edge({"f": (pa.float64(), [[NAN, NAN]])}, f == pk.lit(NAN), "f = CAST('NaN' AS DOUBLE)",
         "NaN = NaN"),
    edge({"f": (pa.float64(), [[-0.0, 0.0]])}, f > pk.lit(D("0.0")), "f > 0.0", "-0.0 = 0.0"),
    edge({"s": (pa.string(), [["a%b"], ["ab"]])}, pk.col("s").like("a\\%%"),
         "s LIKE 'a\\\\%%'", "an escaped %"),
    edge({"s": (pa.string(), [["ab"], ["a\U0010ffff"]])}, pk.col("s").like("a_"),
         "s LIKE 'a_'", "_ is one character"),
    edge({"b": (pa.binary(), [[b"\xff\x00"]])}, pk.col("b") >= pk.lit(b"\xff"), "b >= X'FF'",
         "bytes compare unsigned"),
    edge({"b": (pa.binary(), [[b"\xff\xff"]])}, pk.col("b").startswith(b"\xff"),
         "startswith(b, X'FF')", "a prefix of 0xFF bytes has no successor"),
    edge({"x": (pa.int8(), [[127]])}, x > pk.lit(D("127.5")), "x > 127.5", "beyond int8"),
    edge({"x": (pa.float64(), [[2.0**53]])}, x == pk.lit(9007199254740993),
         "x = 9007199254740993", "a float column compares with an integer in DOUBLE"),
    edge({"d": (pa.date32(), [[18_262]])}, pk.col("d") == pk.lit(dt.datetime(2020, 1, 1,
                                                                              tzinfo=UTC)),
         "d = TIMESTAMP '2020-01-01 00:00:00'", "a date is its UTC midnight"),
]


@pytest.mark.parametrize("backend", ["numpy", "numba", "vm"])
@pytest.mark.parametrize("case", EDGE_CASES, ids=lambda c: c[2] or c[1].sql())
def test_edge_cases_are_sound(case, backend):
    columns, tree, sql, options, why = case
    example = strat.exact_example(columns, tree, **options)
    for predicate in (tree, sql) if sql else (tree,):
        pred = pk.PruningPredicate(predicate, example.schema)
        outcome = pred.classify(example.statistics(), backend=backend)
        assert_sound(example, outcome, f"{backend}, from {type(predicate).__name__} ({why})")


# Trees whose SQL text must parse back to the same meaning.
ROUND_TRIP_CASES = [  # columns, tree, why
    ({"x": (pa.int32(), [[2], [-2]])}, n.Neg(n.Neg(pk.col("x"))) > 1,
     "--x would be an SQL comment"),
    ({"x": (pa.int32(), [[6], [4]])}, n.Neg(pk.lit(-5)) < pk.col("x"), "--5 likewise"),
    ({"x": (pa.int32(), [[-3], [3]])}, (-pk.col("x")).cast(pa.int64()) > 1,
     "CAST of a negated column is not a literal"),
    ({"x": (pa.decimal128(38, 0), [[100_000_000_000_000_011]])},
     pk.col("x") == pk.lit(D("1.0000000000000001E+17")),
     "an exact decimal literal must not come back as a DOUBLE"),
]


@pytest.mark.parametrize("case", ROUND_TRIP_CASES, ids=lambda c: c[2])
def test_sql_round_trip_edge_cases(case):
    columns, tree, why = case
    example = strat.exact_example(columns, tree)
    stats = example.statistics()
    expected = pk.PruningPredicate(tree, example.schema).classify(stats, backend="numpy")
    assert_sound(example, expected, "tree")
    text = tree.sql()
    got = pk.PruningPredicate(text, example.schema).classify(stats, backend="numpy")
    assert got.tolist() == expected.tolist(), f"{text!r}: {got.tolist()} != {expected.tolist()}"
