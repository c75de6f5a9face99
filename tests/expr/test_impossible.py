"""Terms on one column that no value makes TRUE (or FALSE) together (expr/program/impossible.py):
hand-written cases per rule, each judged row by row by the reference evaluator and decided
as written; a property test over random terms on one column against brute force; and
DataFusion's own rows on the predicates of its differential where its optimizer finds the
same.
"""

from __future__ import annotations

import math

import pyarrow as pa
import pytest
from hypothesis import event, given
from hypothesis import strategies as st

import prunekit as pk
from prunekit.expr.program.impossible import MAX_CASES, never
from prunekit.expr.syntax.sql import parse
from tests.support import tiers
from tests.support.soundness import NAMES, row_truths, violations
from tests.support.strategies import exact_example

NONE, MAYBE, ALL = pk.NONE_MATCH, pk.MAYBE_MATCH, pk.ALL_MATCH
NAN, INF = math.nan, math.inf
I32, I64, F64 = pa.int32(), pa.int64(), pa.float64()

# (type, containers of x's values, predicate, outcome per container, why). Every container
# holds rows making each term TRUE on its own, so only the terms' joint values decide.
CASES = [
    (I64, [[1, 2, 9]], "x IN (1, 2) AND x > 5", [NONE], "1 and 2 are not above 5"),
    (I64, [[1, 2, 9, 12]], "x IN (1, 2, 12) AND x > 5", [MAYBE], "12 is"),
    (I64, [[4, 5, 6, 7, 8]], "x >= 5 AND x <= 7 AND x NOT IN (5, 6, 7)", [NONE],
     "5, 6 and 7 are every integer from 5 to 7"),
    (I64, [[4, 5, 6, 7, 8]], "x >= 5 AND x <= 8 AND x NOT IN (5, 6, 7)", [MAYBE],
     "8 makes all three TRUE"),
    (I64, [[5, 6, 7]], "x BETWEEN 5 AND 7 AND x NOT IN (5, 6, 8, 9)", [MAYBE],
     "more values excluded than the range holds, but not 7"),
    (I64, [[5, 6, 7]], "x BETWEEN 5 AND 7 AND x NOT IN (6, 7, 9)", [MAYBE], "5 is left"),
    (I64, [[1, None], [None, None]], "x = 1 AND x IS NULL", [NONE, NONE],
     "a NULL row is no value"),
    (I64, [[1, 2, None]], "NOT (x IS NULL OR x > 0 OR x <= 0)", [NONE],
     "every row makes some term TRUE: never FALSE together, so NOT never TRUE"),
    (I64, [[1, 2, 3]], "NOT (x IN (1, NULL) OR x = 5)", [NONE],
     "a list with a NULL item is never FALSE"),
    (I64, [[1, 2, 3, 4]], "(x = 1 OR x = 3) AND (x = 2 OR x = 4)", [NONE],
     "OR: the union of its branches' values, {1, 3} and {2, 4}"),
    (I64, [[1, 2, 3]], "NOT (x <> 1 OR x <> 2)", [NONE], "NOT OR: x = 1 and x = 2"),
    (I64, [[1, 2, 3]], "NOT (x = 1 AND x = 2)", [ALL],
     "its AND never TRUE, every row non-NULL: TRUE on every row"),
    (I64, [[1, 2, None]], "NOT (x = 1 AND x = 2)", [MAYBE], "NULL on the NULL row"),
    (F64, [[0.0, -0.0, 1.0]], "x = 0.0 AND NOT x = -0.0", [NONE], "-0.0 equals 0.0"),
    (F64, [[NAN, 5.0, INF]], "x = CAST('inf' AS DOUBLE) AND isnan(x)", [NONE],
     "infinity is no NaN"),
    (F64, [[NAN, 1.0, 9.0]], "x > 5 AND isnan(x)", [MAYBE], "NaN is above every number"),
    (F64, [[NAN, 1.0, 9.0]], "x > CAST('inf' AS DOUBLE) AND x < 3", [NONE],
     "above infinity is only NaN, which is not below 3"),
    (F64, [[NAN, 1.0, 9.0]], "x > CAST('inf' AS DOUBLE) AND x <> 3", [MAYBE],
     "NaN <> 3 is TRUE"),
    (F64, [[0.1, 0.6]], "x IN (0.1, 0.2) AND x > 0.5", [NONE], "neither value is above 0.5"),
    (F64, [[0.1, 0.6, None]], "NOT (x IN (0.1, 0.2) AND x > 0.5)", [MAYBE],
     "NULL on the NULL row"),
    (F64, [[0.1, 0.6]], "NOT (x IN (0.1, 0.2) AND x > 0.5)", [ALL], "no NULL, no NaN"),
    # a container none of whose rows holds a value of the root's TRUE set (where_true): the
    # NULL row makes the first term TRUE, 1e300 the second, no row both
    (F64, [[1e300, None], [0.0, None], [1e300, 2.0]],
     "(x = 0 OR x IS NULL) AND (x IS NOT NULL OR NULL)", [NONE, MAYBE, NONE],
     "only 0 makes both TRUE"),
    (I64, [[7, None], [1, None]], "(x IN (1, 2) OR x IS NULL) AND (x > 0 OR NULL)",
     [NONE, MAYBE], "the NULL row is NULL in the second term, 7 FALSE in the first"),
    # values a way excludes (where_true): a container holding only them, and NULL, has no
    # row of that way (DataFusion's differential, seed 92002065: the NULL rows NULL, the
    # value 1444 FALSE in the NOT IN, though each may be TRUE in the other term)
    (I64, [[1444, None], [5, None], [0, None]],
     "x NOT IN (276) AND ((x NOT IN (0, 1444) AND x IS NOT NULL) OR (x IS NULL AND NULL))",
     [NONE, MAYBE, NONE], "1444 and 0 are excluded, a NULL row is NULL"),
    (I64, [[3, None], [3, 4, None]], "(x <> 3 OR x IS NULL) AND (x IS NOT NULL OR NULL)",
     [NONE, MAYBE], "only a value but 3 makes both TRUE"),
    # through arithmetic: the operand's values taken back to the column's
    (I32, [[-9, 2, 9]], "x * 3 IN (6, 7) AND x > 5", [NONE],
     "only 2 times 3 is 6, and 7 is no multiple of 3"),
    (I64, [[1, 2, 3, 9]], "x + 1 IN (3, 4) AND x > 5", [NONE], "x + 1 is 3 or 4 only at 2, 3"),
    (I64, [[1, 2, 3, 9]], "2 - x IN (0, -1) AND x < 2", [NONE], "2 - x is 0 or -1 at 2, 3"),
    (I32, [[2, 3, 2**31 - 1]], "x + 1 = -2147483648 AND x > 5", [MAYBE],
     "the largest INT plus 1 wraps to the smallest"),
    (I32, [[-1, 3, 2**31 - 1]], "x * 2 = -2 AND x > 5", [MAYBE],
     "twice the largest INT wraps to -2"),
    (I32, [[-2**31, 5]], "2 - x < 0 AND x < 0", [MAYBE],
     "2 minus the smallest INT wraps to the smallest plus 2"),
    (I32, [[-1, 3, 2**30]], "(x + 1) * 2 = 0 AND x > 5", [MAYBE],
     "two steps, the second past the largest INT: any value there"),
]


def _example(t: pa.DataType, containers: list, text: str):
    return exact_example({"x": (t, containers)}, parse(text))


@pytest.mark.parametrize(("t", "containers", "text", "want", "why"), CASES,
                         ids=[c[2] for c in CASES])
def test_terms_that_never_hold_together(t, containers, text, want, why):
    _decides(_example(t, containers, text), text, want, why)


def _decides(example, text: str, want: list, why: str) -> None:
    """Every backend's outcomes are sound on the example's rows and are ``want``."""
    truths = row_truths(example)
    pred = pk.PruningPredicate(text, example.schema)
    for backend in tiers.backends():
        got = pred.classify(example.statistics(), backend=backend)
        assert not violations(example, got, truths), (text, backend, truths)
        assert got.tolist() == want, (f"{text}: {[NAMES[o] for o in got.tolist()]}, expected "
                                      f"{[NAMES[o] for o in want]} ({why}); rows {truths}")


def test_explain_says_which_column_and_which_truth():
    schema = pa.schema([("x", I64)])
    text = pk.PruningPredicate("x IN (1, 2) AND x > 5", schema).explain()
    assert "never TRUE: no value of x makes its terms on x TRUE together" in text, text
    text = pk.PruningPredicate("x < 0 OR x IS NULL OR x > -5", schema).explain()
    assert "never FALSE: no value of x makes its terms on x FALSE together" in text, text


def test_only_combinators_whose_terms_meet_in_no_value_are_marked():
    schema = pa.schema([("x", I64), ("y", I64)])
    bound = pk.PruningPredicate("(x > 5 AND y < 0) OR (x IN (1, 9) AND x < 2)", schema).bound
    never_true, never_false = never(bound)
    assert never_true == {} and never_false == {}  # each branch holds for some value
    bound = pk.PruningPredicate("(x > 5 AND y < 0) AND (x IN (1, 2) OR y = -3)", schema).bound
    assert never(bound) == ({}, {})  # y = -3 may make the OR TRUE with any x above 5
    # each way the OR may be TRUE meets the first AND in no value, on x one way, y the other
    bound = pk.PruningPredicate("(x > 5 AND y < 0) AND (x IN (1, 2) OR y = 3)", schema).bound
    assert never(bound)[0] == {id(bound): "never TRUE: each way its terms may be TRUE together "
                                          "needs values of x or y that no row holds"}


# (containers of x's values, of y's, predicate, outcome per container, why): the ways a node
# may be TRUE are kept apart, with the truths of leaves on other columns each way needs.
TWO_COLUMNS = [
    ([[1, 9], [1, 9]], [[1, 2], [None, 2]], "(y IS NULL OR x = 1) AND x > 5", [NONE, MAYBE],
     "x = 1 is not above 5, so a TRUE row has y NULL: the first container has none"),
    ([[1, 9], [9]], [[-1, 3], [None]], "(x > 5 AND y < 0) AND (x IN (1, 2) OR y = 3)",
     [NONE, NONE], "neither way the OR is TRUE meets the AND before it"),
    ([[1, 2]], [[1, 2]], "((x = 1 AND y = 1) OR (x = 2 AND y = 2)) AND x < 2 AND y > 1",
     [NONE], "x below 2 is the first way, y above 1 the second"),
    ([[1, 2], [1, 2]], [[1, 2], [2, 3]],
     "((x = 1 AND y = 1) OR (x = 2 AND y = 2)) AND x < 2", [MAYBE, NONE],
     "x below 2 leaves the first way, which needs y = 1: the second container has none"),
    ([[1, 7], [1, 7]], [[5, None], [5, 6]], "NOT (y IS NOT NULL AND x <= 5) AND x = 1",
     [MAYBE, NONE], "x = 1 is not above 5: a TRUE row has y NULL"),
]


@pytest.mark.parametrize(("xs", "ys", "text", "want", "why"), TWO_COLUMNS,
                         ids=[c[2] for c in TWO_COLUMNS])
def test_ways_of_a_truth_are_weighed_apart(xs, ys, text, want, why):
    _decides(exact_example({"x": (I64, xs), "y": (I64, ys)}, parse(text)), text, want, why)


def test_many_ways_are_one_way_holding_all_their_rows():
    """Beyond MAX_CASES ways, a node's ways are one: the truths every way needs (none here:
    only the first way needs ``s LIKE 'a%'``), and each column's values, within MAX_BOXES."""
    text = " OR ".join(["(s LIKE 'a%' AND x = 0)"] + [f"x = {k}" for k in range(1, MAX_CASES + 1)])
    text = f"({text}) AND x >= 0"
    example = exact_example({"x": (I64, [[5], [5, 99]]), "s": (pa.string(), [["b"], ["b", "c"]])},
                            parse(text))
    got = pk.PruningPredicate(text, example.schema).classify(example.statistics())
    assert got.tolist() == [ALL, MAYBE], got.tolist()  # x = 5 is a way, whatever s holds


# ---- property: random terms on one column against brute force ---------------------------------
# Literals, and every value a row may hold: the first container holds each of them (and NULL,
# and NaN for DOUBLE), so a combination wrongly found never TRUE prunes a container with a
# row that makes it TRUE. Integers run in a row, so that gaps between bounds are whole.
INTS = list(range(-1, 4))
FLOATS = [-INF, -1.5, -0.0, 0.0, 1.5, 2.5, INF]


def _literal(v: float) -> str:
    if isinstance(v, float) and (math.isinf(v) or v != v):
        return f"CAST('{'-' if v < 0 else ''}{'inf' if v == v else 'NaN'}' AS DOUBLE)"
    return repr(v)


# An INT column seen through arithmetic that wraps at its ends (``x + 1`` of the largest INT is
# the smallest), with those ends among the values and literals: a term's values taken back to
# the column's wrongly (a wrap missed, a step not inverted) make a combination wrongly never
# TRUE, which a row of the first container shows.
EDGES = [-2**31, -2**31 + 1, -2**31 + 2, 2**31 - 2, 2**31 - 1]
AFFINE = ["x", "x + 1", "x - 2", "x * 2", "x * -3", "-x", "(x + 1) * 2", "2 - x"]


@st.composite
def _term(draw, values, operands=("x",)):
    x = draw(st.sampled_from(operands))
    op = draw(st.sampled_from(["<", "<=", ">", ">=", "=", "<>", "IN", "NOT IN", "BETWEEN",
                               "IS NULL", "isnan", "IN NULL"]))
    literals = values + [NAN] if isinstance(values[0], float) else values
    a, c = draw(st.sampled_from(literals)), draw(st.sampled_from(literals))
    if op in ("IN", "NOT IN"):
        more = draw(st.lists(st.sampled_from(literals), max_size=2))
        return f"{x} {op} ({', '.join(map(_literal, [a, c, *more]))})"
    if op == "IN NULL":
        return f"{x} IN ({_literal(a)}, NULL)"
    if op == "BETWEEN":
        a, c = sorted((a, c), key=lambda v: (v != v, v))  # NaN above every number
        return f"{x} BETWEEN {_literal(a)} AND {_literal(c)}"
    if op == "IS NULL":
        return f"{x if x in ('x', 'y') else 'x'} IS NULL"
    if op == "isnan":
        return "isnan(x)"
    return f"{x} {op} {_literal(a)}"


@st.composite
def _predicate(draw, values, depth=2, operands=("x",)):
    """An AND or OR of two to four terms, some of them combinations themselves."""
    if depth == 0 or (depth < 2 and draw(st.integers(0, 3))):
        term = draw(_term(values, operands))
        return f"NOT ({term})" if draw(st.integers(0, 3)) == 0 else term
    kids = draw(st.lists(_predicate(values, depth - 1, operands), min_size=2, max_size=4))
    text = "(" + (" AND " if draw(st.integers(0, 2)) else " OR ").join(kids) + ")"
    return f"NOT {text}" if draw(st.integers(0, 3)) == 0 else text


@st.composite
def _case(draw):
    kind = draw(st.sampled_from(["float", "int", "affine"]))
    values = {"float": FLOATS, "int": INTS, "affine": INTS + EDGES}[kind]
    every = values + [None] + ([NAN] if kind == "float" else [INTS[0] - 1, INTS[-1] + 1])
    cells = st.sampled_from(every)
    containers = [every] + draw(st.lists(st.lists(cells, max_size=4), max_size=2))
    operands = AFFINE if kind == "affine" else ("x",)
    t = {"float": F64, "int": I64, "affine": I32}[kind]
    return t, containers, draw(_predicate(values, operands=operands))


@given(_case())
def test_random_terms_on_one_column_are_sound(case):
    t, containers, text = case
    example = _example(t, containers, text)
    truths = row_truths(example)
    pred = pk.PruningPredicate(text, example.schema)
    got = pred.classify(example.statistics(), backend="numpy")
    assert not violations(example, got, truths), (text, containers, truths)
    event("some combination never TRUE or never FALSE" if any(never(pred.bound)) else
          "none found")
    # A root the module finds never TRUE prunes every container (and the check above found
    # no TRUE row in any of them).
    never_true, _ = never(pred.bound)
    if id(pred.bound) in never_true:
        assert all(o == NONE for o in got.tolist()), (text, got.tolist())


# Two INT columns, terms on either: the first container holds every pair of values (NULL too),
# so a way of a truth wrongly dropped, or a leaf's truth wrongly needed, prunes a container with
# a row the predicate makes TRUE; the others, a few rows each, are where another column's
# statistics decide (y with no NULL, say).
@st.composite
def _two_column_case(draw):
    every = INTS + [None, INTS[0] - 1, INTS[-1] + 1]
    pairs = [[(a, c) for a in every for c in every]] + draw(st.lists(st.lists(
        st.tuples(st.sampled_from(every), st.sampled_from(every)), min_size=1, max_size=4),
        max_size=3))
    columns = {name: (I64, [[row[k] for row in rows] for rows in pairs])
               for k, name in enumerate("xy")}
    return columns, draw(_predicate(INTS, operands=("x", "y")))


@given(_two_column_case())
def test_random_terms_on_two_columns_are_sound(case):
    columns, text = case
    example = exact_example(columns, parse(text))
    truths = row_truths(example)
    pred = pk.PruningPredicate(text, example.schema)
    got = pred.classify(example.statistics(), backend="numpy")
    assert not violations(example, got, truths), (text, columns, truths)
    never_true, _ = never(pred.bound)
    event("root never TRUE" if id(pred.bound) in never_true else
          "a TRUE implied" if "TRUE only on rows" in pred.explain() else "none found")
    if id(pred.bound) in never_true:
        assert all(o == NONE for o in got.tolist()), (text, got.tolist())
