"""Integer arithmetic with constants on the column side (issue 7, item 1): hand-written edges.

Spark types ``x + c`` as the wider of the column's type and the literal's (INT for a literal
that fits, else BIGINT); on overflow its legacy mode wraps and ANSI mode fails the query. prunekit
moves the bounds through each step and, where a step could overflow for some value between
them, treats both bounds as unknown. Every case is checked against the row-level reference
(which wraps) and for its exact outcome.
"""

from __future__ import annotations

import sys
from pathlib import Path

import pyarrow as pa
import pytest

import prunekit as pk
from tests.cases import BACKENDS

sys.path.insert(0, str(Path(__file__).parent))  # as tests/test_property.py imports them
import reference as ref  # noqa: E402
import strategies as strat  # noqa: E402

I8, I32, I64 = pa.int8(), pa.int32(), pa.int64()
MIN64, MAX64 = -(2**63), 2**63 - 1
NONE, MAYBE, ALL = pk.NONE_MATCH, pk.MAYBE_MATCH, pk.ALL_MATCH

# (type, rows of one container, predicate, expected outcome, why)
CASES = [
    (I8, [120, 127], "x + 10 > 136", MAYBE, "int8 + INT is INT: 137 exists, no wrap at 127"),
    (I8, [120, 127], "x + 10 > 137", NONE, "the INT result tops out at 137"),
    (I8, [120, 127], "x + 10 >= 130", ALL, "every row reaches 130 in INT"),
    (I32, [2**31 - 2, 2**31 - 1], "x + 1 > 0", MAYBE, "INT + INT wraps: 2**31 - 1 + 1 < 0"),
    (I32, [2**31 - 2, 2**31 - 1], "x + 2147483648 > 0", ALL,
     "a BIGINT literal makes the sum BIGINT: no wrap"),
    (I64, [MAX64 - 1, MAX64], "x + 1 > 0", MAYBE, "BIGINT wraps at its maximum"),
    (I64, [MAX64 - 3, MAX64 - 2], "x + 1 > 0", ALL, "no row reaches the maximum"),
    (I64, [MIN64, MIN64 + 5], "-x > 0", MAYBE, "-(minimum) wraps to the minimum"),
    (I64, [MIN64 + 1, MIN64 + 5], "-x > 0", ALL, "negation without the minimum is exact"),
    (I64, [MIN64 + 1, MIN64 + 5], "x * -1 > 0", ALL, "multiplying by -1 likewise"),
    (I64, [MIN64, MIN64 + 5], "x * -1 > 0", MAYBE, "and it wraps at the minimum"),
    (I64, [3, 9], "x * 0 = 0", MAYBE, "x * 0 is left to the general rule (weakened)"),
    (I64, [3, 9], "20 - x BETWEEN 11 AND 17", ALL, "c - x reverses the bounds: [11, 17]"),
    (I64, [3, 9], "20 - x < 11", NONE, "20 - 9 = 11 is the smallest"),
    (I64, [3, 9], "(x - 3) * -2 > 0", NONE, "(x - 3) * -2 is at most 0"),
    (I64, [3, None, 9], "x + 1 > 0", MAYBE, "a NULL row gives NULL"),
    (I64, [None, None], "x + 1 > 0", NONE, "all NULL: no row is TRUE"),
    (I64, [4, 4], "x * 3 = 12", ALL, "exact bounds stay exact through the steps"),
    (I64, [4, 5], "x * 3 <> 13", MAYBE,
     "bounds [12, 15] cannot rule out 13 (values are multiples of 3, which bounds do not say)"),
]


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize(("t", "rows", "sql", "expected", "why"), CASES,
                         ids=[f"{c[2]} {c[1]}" for c in CASES])
def test_arithmetic_edges(t, rows, sql, expected, why, backend):
    schema = pa.schema([("x", t)])
    pred = pk.PruningPredicate(sql, schema)
    example = strat.exact_example({"x": (t, [rows])}, pred.expression)
    got = int(pred.classify(example.statistics(), backend=backend)[0])
    truths = [ref.evaluate(pred.expression, {"x": t}, {"x": v}) for v in rows]
    assert got != NONE or True not in truths, f"unsound NONE_MATCH: {why}"
    assert got != ALL or all(v is True for v in truths), f"unsound ALL_MATCH: {why}"
    assert got == expected, f"{why}\n{pred.explain()}"


def test_overflowing_constant_is_not_folded():
    # x - (-2**63) would need +2**63, beyond BIGINT: the expression is weakened, not wrapped.
    pred = pk.PruningPredicate("x - -9223372036854775808 > 0", {"x": I64})
    assert "weakened" in pred.explain() or pred.always_true


def test_explain_shows_the_arithmetic():
    text = pk.PruningPredicate("(x + 1) * -3 > 5", {"x": I64}).explain()
    assert "(x + 1) * -3" in text


# Two columns (rows of one container as (a, b)); the sum is in the wider type.
SUM_CASES = [
    (I64, I64, [(1, 2), (4, 3)], "a + b > 10", NONE, "a + b <= 4 + 3"),
    (I64, I64, [(10, 5), (20, 6)], "a - b > 3", ALL, "a - b >= 10 - 6"),
    (I64, I64, [(10, 5), (20, 6)], "a - b > 5", MAYBE, "[4, 15] straddles 5"),
    (I64, I64, [(1, None), (4, None)], "a + b > 0", NONE, "b is NULL: the sum is NULL"),
    (I64, I64, [(1, None), (4, 3)], "a + b > 0", MAYBE, "a NULL sum in one row"),
    (I64, I64, [(MAX64, 1), (0, 0)], "a + b < 0", MAYBE, "the sum may wrap"),
    (I32, I32, [(2**31 - 1, 1), (0, 0)], "a + b > 0", MAYBE, "INT + INT wraps at 2**31"),
    (I32, I64, [(2**31 - 1, 1), (0, 1)], "a + b > 0", ALL, "INT + BIGINT is BIGINT"),
    (I64, I64, [(5, 1), (7, 3)], "a + b = 6", MAYBE, "bounds [6, 10], never exact"),
    (I64, I64, [(5, 1), (7, 3)], "(a + b) > b", ALL, "a sum against a column"),
]


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize(("ta", "tb", "rows", "sql", "expected", "why"), SUM_CASES,
                         ids=[f"{c[3]} {c[2]}" for c in SUM_CASES])
def test_column_sums(ta, tb, rows, sql, expected, why, backend):
    types = {"a": ta, "b": tb}
    pred = pk.PruningPredicate(sql, types)
    example = strat.exact_example({"a": (ta, [[r[0] for r in rows]]),
                                   "b": (tb, [[r[1] for r in rows]])}, pred.expression)
    got = int(pred.classify(example.statistics(), backend=backend)[0])
    truths = [ref.evaluate(pred.expression, types, {"a": r[0], "b": r[1]}) for r in rows]
    assert got != NONE or True not in truths, f"unsound NONE_MATCH: {why}"
    assert got != ALL or all(v is True for v in truths), f"unsound ALL_MATCH: {why}"
    assert got == expected, f"{why}\n{pred.explain()}"


# ---- x / c (issue 7, item 1): DOUBLE division, compared through its exact preimage ----------
NAN = float("nan")
F32, F64 = pa.float32(), pa.float64()
DIVISION_CASES = [
    (I64, [30, 45], "x / 3 > 9", ALL, "30 / 3 = 10 is the least quotient"),
    (I64, [30, 45], "x / 3 > 15", NONE, "45 / 3 = 15 is the greatest, not above 15"),
    (I64, [30, 45], "x / -3 < -9", ALL, "a negative divisor reverses: at most -10"),
    (I64, [30, 45], "x / -3 > -10", NONE, "-10 is the greatest quotient"),
    (I64, [1, 2], "x / 2 = 0.5", MAYBE, "1 / 2 is 0.5 in DOUBLE: Spark's / does not truncate"),
    (I64, [3, 3], "x / 2 = 1", NONE, "3 / 2 = 1.5, not 1"),
    (I64, [3, 3], "x / 2 = 1.5", ALL, "exact bounds, exact quotient"),
    (I64, [2**53 + 1, 2**53 + 1], "x / 1 = 9007199254740992", ALL,
     "the BIGINT rounds to DOUBLE (2**53) before dividing"),
    (I32, [-7, 7], "x / 2 BETWEEN -3.5 AND 3.5", ALL, "both ends reached exactly"),
    (F64, [1.0, 2.0], "x / 3 > 0.6666666666666666", NONE, "2 / 3 rounds to that double"),
    (F64, [1.0, 2.0], "x / 3 >= 0.6666666666666666", MAYBE, "and 2 / 3 equals it"),
    (F64, [1.0, NAN], "x / -2 < 0", MAYBE, "NaN / -2 is NaN: FALSE, -0.5 is TRUE"),
    (F64, [2.0, 4.0], "x / -2 < 0", ALL, "no NaN: every quotient is negative"),
    (F64, [1e300, 1e308], "x / 0.5 = CAST('Infinity' AS DOUBLE)", MAYBE, "1e308 / 0.5 overflows"),
    (F32, [1.5, 3.0], "x / 2 <= 0.75", MAYBE, "FLOAT is widened exactly, 1.5 / 2 = 0.75"),
    (F32, [1.5, 3.0], "x / 2 < 0.75", NONE, "0.75 is the least quotient"),
    (I64, [1, 5], "x / 0 > 1", MAYBE, "a zero divisor is left unused (NULL or an error)"),
    (I32, [4, 4], "x / 2.5 > 1", MAYBE, "INT / 2.5 is DECIMAL division in Spark: not used"),
    (I64, [4, None], "x / 2 IS NULL", MAYBE, "NULL exactly where x is"),
    (I64, [4, 6], "x / 2 IS NULL", NONE, "no NULL x, no NULL quotient"),
]


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize(("t", "rows", "sql", "expected", "why"), DIVISION_CASES,
                         ids=[f"{c[2]} {c[1]}" for c in DIVISION_CASES])
def test_division(t, rows, sql, expected, why, backend):
    test_arithmetic_edges(t, rows, sql, expected, why, backend)


def test_division_binds_to_the_column_itself():
    # No bound is rounded: the threshold is the least x whose quotient passes.
    assert pk.PruningPredicate("x / 3 > 5", {"x": I64}).expression.sql() == "(x / 3) > 5"
    assert "x >= 16" in pk.PruningPredicate("x / 3 > 5", {"x": I64}).explain()
    assert "x >= -2" in pk.PruningPredicate("x / -2.0E0 <= 1", {"x": I32}).explain()


# ---- DECIMAL arithmetic (issue 7, item 1): Spark's result types, unscaled values -------------
DEC = pa.decimal128(15, 2)
Dm = __import__("decimal").Decimal
DECIMAL_CASES = [
    (DEC, ["7.25", "7.25"], "p + 1 > 8.25", NONE, "DECIMAL(16, 2): 8.25 exactly"),
    (DEC, ["7.25", "7.25"], "p + 1 >= 8.25", ALL, "exact bounds through the steps"),
    (DEC, ["7.25", "9.00"], "p * 2 BETWEEN 14.5 AND 18", ALL, "DECIMAL(17, 2) in [14.50, 18]"),
    (DEC, ["7.25", "9.00"], "2 - p > -5.25", NONE, "c - x reverses: at most -5.25"),
    (DEC, ["7.25", "7.25"], "p * 0.1 = 0.725", ALL, "DECIMAL(18, 3): no rounding"),
    (DEC, ["7.25", "9.00"], "p - 0.001 < 7.249", NONE, "the least is 7.249"),
    (DEC, ["7.25", "9.00"], "-p * 3 < -21.75", MAYBE, "-9 * 3 = -27 is below"),
    (DEC, ["7.25", None], "p + 1 IS NULL", MAYBE, "a NULL row"),
    (DEC, ["7.25", "9.00"], "p + 1 IS NULL", NONE, "no overflow in DECIMAL(16, 2)"),
    (DEC, ["7.25", "9.00"], "p + 1 IN (8.25, 100)", MAYBE, "8.25 is within the bounds"),
    (DEC, ["7.25", "9.00"], "p + 1 IN (1, 100)", NONE, "neither within [8.25, 10]"),
    (pa.decimal128(18, 0), ["900000000000000000", "900000000000000000"], "p * 100 > 0", MAYBE,
     "unscaled 9e19 is beyond int64: unknown, though Spark's DECIMAL(22, 0) holds it"),
    (I32, [4, 6], "x * 2.5 > 10", MAYBE, "INT * 2.5 is DECIMAL(13, 1): 10.0 and 15.0"),
    (I32, [4, 6], "x * 2.5 >= 10", ALL, "the least is 10.0"),
]


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize(("t", "rows", "sql", "expected", "why"), DECIMAL_CASES,
                         ids=[f"{c[2]} {c[1]}" for c in DECIMAL_CASES])
def test_decimal_arithmetic(t, rows, sql, expected, why, backend):
    rows = [Dm(v) if isinstance(v, str) else v for v in rows]
    name = "p" if pa.types.is_decimal(t) else "x"
    schema = pa.schema([(name, t)])
    pred = pk.PruningPredicate(sql, schema)
    example = strat.exact_example({name: (t, [rows])}, pred.expression)
    got = int(pred.classify(example.statistics(), backend=backend)[0])
    truths = [ref.evaluate(pred.expression, {name: t}, {name: v}) for v in rows]
    assert got != NONE or True not in truths, f"unsound NONE_MATCH: {why}"
    assert got != ALL or all(v is True for v in truths), f"unsound ALL_MATCH: {why}"
    assert got == expected, f"{why}\n{pred.explain()}"


# Two DECIMAL(15, 2) columns (rows as (p, q)): sums at one scale, products of unscaled values.
DECIMAL_PAIR_CASES = [
    ([("100.00", "0.05"), ("200.00", "0.10")], "p * (1 - q) > 190", NONE,
     "at most 200.00 * 0.95 = 190.0000"),
    ([("100.00", "0.05"), ("200.00", "0.10")], "p * (1 - q) >= 90", ALL,
     "at least 100.00 * 0.90 = 90.0000 (corners, not rows)"),
    ([("100.00", "0.05"), ("200.00", None)], "p * (1 - q) >= 90", MAYBE, "a NULL product"),
    ([("1.50", "2.25"), ("3.00", "4.50")], "p + q <= 7.5", ALL, "DECIMAL(16, 2) sum"),
    ([("1.50", "2.25"), ("3.00", "4.50")], "p - q > 0.75", NONE, "p - q <= 3.00 - 2.25"),
    ([("1.50", "2.25"), ("3.00", "4.50")], "p * q < 3.375", NONE, "DECIMAL(31, 4) corners"),
    ([("-1.50", "2.25"), ("3.00", "4.50")], "p * q < -6.75", NONE, "a negative corner"),
    ([("21474836.48", "1.00"), ("1.00", "1.00")], "p * q > 0", MAYBE,
     "unscaled 2**31 is beyond what the product checks: unknown"),
]


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize(("rows", "sql", "expected", "why"), DECIMAL_PAIR_CASES,
                         ids=[f"{c[1]} {c[0]}" for c in DECIMAL_PAIR_CASES])
def test_decimal_columns(rows, sql, expected, why, backend):
    rows = [tuple(None if v is None else Dm(v) for v in r) for r in rows]
    types = {"p": DEC, "q": DEC}
    pred = pk.PruningPredicate(sql, types)
    example = strat.exact_example({"p": (DEC, [[r[0] for r in rows]]),
                                   "q": (DEC, [[r[1] for r in rows]])}, pred.expression)
    got = int(pred.classify(example.statistics(), backend=backend)[0])
    truths = [ref.evaluate(pred.expression, types, {"p": r[0], "q": r[1]}) for r in rows]
    assert got != NONE or True not in truths, f"unsound NONE_MATCH: {why}"
    assert got != ALL or all(v is True for v in truths), f"unsound ALL_MATCH: {why}"
    assert got == expected, f"{why}\n{pred.explain()}"
