"""Integer arithmetic with constants on the column side: hand-written edges.

Spark types ``x + c`` as the wider of the column's type and the literal's (INT for a literal
that fits, else BIGINT); on overflow its legacy mode wraps and ANSI mode fails the query. prunekit
moves the bounds through each step and, where a step could overflow for some value between
them, treats both bounds as unknown. Every case is checked against the row-level reference
(which wraps) and for its exact outcome.
"""

from __future__ import annotations

import math

import pyarrow as pa
import pytest

import prunekit as pk
from tests.support import reference as ref
from tests.support import strategies as strat
from tests.support import tiers
from tests.support.cases import BACKENDS

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
    (I8, [-128, 5], "-1 <= -(x % 0)", NONE, "x % 0 is NULL, and so is its negation"),
    (I8, [-128, 5], "-(x % 0) IS NULL", ALL, "the negated NULL is NULL in every row"),
    (I64, [3, 9], "-NULL IS NULL", ALL, "-NULL is NULL"),
    (I64, [3, 9], "x > -NULL OR x > 5", MAYBE, "NULL OR x > 5: TRUE where x > 5"),
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
    (I32, I64, [(8, 13)], "b > a * a", NONE, "a product against a BIGINT column: 64 > 13"),
    # against a DOUBLE column, unknown: never read as b > a (the arithmetic dropped)
    (I32, pa.float64(), [(8, 13.0)], "b > a * a", MAYBE, "a product against a DOUBLE"),
    (I32, pa.float64(), [(8, 13.0)], "b > a + a", MAYBE, "a sum against a DOUBLE"),
    (I32, pa.uint64(), [(8, 13)], "b > a * a", MAYBE, "a product against an unsigned BIGINT"),
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


# ---- x / c: DOUBLE division, compared through its exact preimage ----------------------------
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


# ---- DECIMAL arithmetic: Spark's result types, unscaled values -------------------------------
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
    (DEC, ["7.25", "7.25"], "p / 3 = 2.416667", ALL, "DECIMAL(19, 6), HALF_UP, as Spark"),
    (DEC, ["7.25", "7.25"], "p / 3 > 2.416667", NONE, "2.41666666.. rounds to 2.416667"),
    (DEC, ["-7.25", "-7.25"], "p / 3 = -2.416667", ALL, "HALF_UP rounds away from zero"),
    (DEC, ["1.00", "9.00"], "p / -0.5 BETWEEN -18 AND -2", ALL, "a negative divisor reverses"),
    (DEC, ["1.00", "9.00"], "p / 0 > 1", MAYBE, "a zero divisor is left unused"),
    (I32, [4, 6], "x / 2.5 >= 1.6", ALL, "INT / 2.5 is DECIMAL(17, 6): 1.6 exactly"),
    (I32, [4, 6], "x / 2.5 > 2.4", NONE, "6 / 2.5 = 2.4"),
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


# ---- Spark's types and values, recorded from Spark 4.3 ---------------------------------------
# SELECT <expression> FROM one row: i INT 7, l BIGINT 7, b TINYINT 3, d DOUBLE 7, f FLOAT 7,
# p DECIMAL(15, 2) 7.25, q DECIMAL(15, 2) 0.05, w DECIMAL(38, 1) 12345678901234567.8; the same
# under spark.sql.ansi.enabled true and false, except where noted. (type, value): the
# reference must give both; None for a type: the reference does not model it, and prunekit
# must not use it.
SPARK_TYPES = pa.schema([("i", I32), ("l", I64), ("b", I8), ("d", F64), ("f", F32),
                         ("p", DEC), ("q", DEC), ("w", pa.decimal128(38, 1))])
SPARK_ROW = {"i": 7, "l": 7, "b": 3, "d": 7.0, "f": 7.0, "p": Dm("7.25"), "q": Dm("0.05"),
             "w": Dm("12345678901234567.8")}
SPARK_4_3 = [
    ("i / 2", "double", 3.5), ("l / 2", "double", 3.5), ("i / 2.5E0", "double", 2.8),
    ("i / 2.5", "decimal(17,6)", Dm("2.800000")), ("d / 2.5", "double", 2.8),
    ("f / 2", "double", 3.5), ("f / 2.5", "double", 2.8), ("f / f", "double", 1.0),
    ("f + 1.5", "double", 8.5), ("f * d", "double", 49.0), ("i + d", "double", 14.0),
    ("l * d", "double", 49.0),
    ("i / 0", "double", None), ("d / 0", "double", None),  # legacy: NULL; ANSI: an error
    ("p / 0", "decimal(19,6)", None),
    ("p / 2", "decimal(19,6)", Dm("3.625000")), ("p / 3", "decimal(19,6)", Dm("2.416667")),
    ("p * 2", "decimal(17,2)", Dm("14.50")), ("p + 1", "decimal(16,2)", Dm("8.25")),
    ("1 - q", "decimal(16,2)", Dm("0.95")), ("p * (1 - q)", "decimal(32,4)", Dm("6.8875")),
    ("p + q", "decimal(16,2)", Dm("7.30")), ("p * q", "decimal(31,4)", Dm("0.3625")),
    ("p / q", "decimal(33,18)", Dm("145")), ("p * 2.5", "decimal(18,3)", Dm("18.125")),
    ("p + 0.001", "decimal(17,3)", Dm("7.251")), ("i + p", "decimal(16,2)", Dm("14.25")),
    ("l * p", "decimal(36,2)", Dm("50.75")), ("b * p", "decimal(19,2)", Dm("21.75")),
    ("p * 100000000000", "decimal(28,2)", Dm("725000000000.00")),
    ("w * 10", "decimal(38,1)", Dm("123456789012345678.0")),
    ("w + 1", "decimal(38,1)", Dm("12345678901234568.8")),
    ("w * p", "decimal(38,3)", Dm("89506172033950616.550")),
    ("p - 1.5", "decimal(16,2)", Dm("5.75")), ("2 - p", "decimal(16,2)", Dm("-5.25")),
    ("p * -3", "decimal(17,2)", Dm("-21.75")), ("p * i", "decimal(26,2)", Dm("50.75")),
    ("i * 2.5", "decimal(13,1)", Dm("17.5")),
    ("f + f", "float", 14.0), ("f - f", "float", 0.0),  # FLOAT in both modes
    ("f * 2", None, 14.0),  # DOUBLE under ANSI, FLOAT in legacy mode: not used
]


# Rounding (HALF_UP) and precision loss (DECIMAL(38, 10) * itself keeps 6 decimals), both
# modes alike: m DECIMAL(38, 10) 1234567890.0123456789, n DECIMAL(15, 2) -7.25,
# h DECIMAL(15, 3) 1.005, i INT 7.
ROUNDING_TYPES = {"m": pa.decimal128(38, 10), "n": DEC, "h": pa.decimal128(15, 3), "i": I32}
ROUNDING_ROW = {"m": Dm("1234567890.0123456789"), "n": Dm("-7.25"), "h": Dm("1.005"), "i": 7}
SPARK_4_3_ROUNDING = [
    ("m * m", "decimal(38,6)", Dm("1524157875049535257.500533")),
    ("m * 3.3333333333", "decimal(38,8)", Dm("4115226300.00000000")),
    ("n / 3", "decimal(19,6)", Dm("-2.416667")), ("h / 7", "decimal(18,6)", Dm("0.143571")),
    ("n * 0.3", "decimal(17,3)", Dm("-2.175")), ("i / 3", "double", 2.3333333333333335),
    ("1 / 3.0", "decimal(8,6)", Dm("0.333333")), ("h * 0.5", "decimal(17,4)", Dm("0.5025")),
    ("m / 0.7", "decimal(38,9)", Dm("1763668414.303350970")),
]


@pytest.mark.parametrize(("sql", "t", "value"), SPARK_4_3_ROUNDING,
                         ids=[c[0] for c in SPARK_4_3_ROUNDING])
def test_reference_rounds_as_spark(sql, t, value):
    from prunekit.expr.syntax.sql import parse

    got = ref.evaluate_value(parse(f"{sql} > 0").left, ROUNDING_TYPES, ROUNDING_ROW)
    assert got.type == _spark_type(t) and got.value == ref.Fraction(value)


def _spark_type(text: str) -> pa.DataType:
    if text in ("double", "float"):
        return F64 if text == "double" else F32
    p, s = text[len("decimal("):-1].split(",")
    return pa.decimal128(int(p), int(s))


@pytest.mark.parametrize(("sql", "t", "value"), SPARK_4_3, ids=[c[0] for c in SPARK_4_3])
def test_reference_and_binding_follow_spark(sql, t, value):
    from prunekit.expr.syntax.sql import parse

    tree = parse(f"{sql} > 0").left
    types = {f.name: f.type for f in SPARK_TYPES}
    got = ref.evaluate_value(tree, types, SPARK_ROW)
    pred = pk.PruningPredicate(f"{sql} > 0", SPARK_TYPES)
    if t is None:
        assert not isinstance(got, ref.V), "the reference models FLOAT arithmetic"
        assert "weakened" in pred.explain() or "not used" in pred.explain()
        return
    if value is None:
        assert got is None
        return
    assert got.type == _spark_type(t) and got.value == ref.Fraction(value)
    if t.startswith("decimal") and "/" not in sql:  # prunekit binds the same type
        from prunekit.expr.binding.bind import bind

        leaf = bind(pred.expression, SPARK_TYPES)
        if "w" in sql:  # DECIMAL(38, 1) statistics are not int64: its arithmetic is not used
            assert not hasattr(leaf, "col"), leaf
        else:
            assert leaf.col.type == _spark_type(t), leaf


# FLOAT op FLOAT is FLOAT in Spark: rows of one container as (a, b), both FLOAT.
FLOAT_CASES = [
    ([(2.0**24, 1.0)], "a + b = 16777216", MAYBE,
     "2**24 + 1 rounds to 2**24 in FLOAT (DOUBLE arithmetic would say NONE)"),
    ([(2.0**24, 1.0)], "a + b > 16777218", MAYBE, "rounded outwards: the bound is 16777220"),
    ([(2.0**24, 1.0)], "a + b > 16777220", NONE, "a few FLOAT ulps, no more"),
    ([(1.0, 1.0), (2.0, 3.0)], "a * b < 0", NONE, "at least 1, rounded down a little"),
    ([(1.0, 1.0), (2.0, 3.0)], "a * b <= 6.5", ALL, "at most 6, rounded up a little"),
    ([(3e38, 3e38)], "a + b < 1e39", NONE, "FLOAT overflows to +inf, which is not < 1e39"),
    ([(3e38, 3e38)], "a + b > 1e39", ALL, "and +inf is above it (DOUBLE would be 6e38)"),
    ([(1.5, NAN), (2.0, 1.0)], "a - b < 100", MAYBE, "NaN - 1.5 is NaN"),
]


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize(("rows", "sql", "expected", "why"), FLOAT_CASES,
                         ids=[f"{c[1]} {c[0]}" for c in FLOAT_CASES])
def test_float_arithmetic(rows, sql, expected, why, backend):
    types = {"a": F32, "b": F32}
    pred = pk.PruningPredicate(sql, types)
    example = strat.exact_example({"a": (F32, [[r[0] for r in rows]]),
                                   "b": (F32, [[r[1] for r in rows]])}, pred.expression)
    got = int(pred.classify(example.statistics(), backend=backend)[0])
    truths = [ref.evaluate(pred.expression, types, {"a": r[0], "b": r[1]}) for r in rows]
    assert got != NONE or True not in truths, f"unsound NONE_MATCH: {why}"
    assert got != ALL or all(v is True for v in truths), f"unsound ALL_MATCH: {why}"
    assert got == expected, f"{why}\n{pred.explain()}"


# ---- properties: two-operand DECIMAL and mixed DOUBLE arithmetic, and division --------------
from hypothesis import given, settings  # noqa: E402
from hypothesis import strategies as st  # noqa: E402

from prunekit.expr.syntax import nodes as n  # noqa: E402

PAIR_TYPES = {
    "decimal": [pa.decimal128(5, 2), DEC, pa.decimal128(9, 0), pa.decimal128(18, 4), I32, I8],
    "double": [F64, F32, I32, I64],
    "float": [F32],
}
PAIR_CONSTANTS = [1, 2, -3, 0, Dm("0.05"), Dm("1.5"), Dm("-0.001"), 0.5, -2.0, 1e300]


@st.composite
def pair_examples(draw):
    """Containers of (a, b) rows and a comparison of arithmetic over both with a literal near
    a value it takes; each row's truth comes from the reference."""
    family = draw(st.sampled_from(sorted(PAIR_TYPES)))
    ta, tb = (draw(st.sampled_from(PAIR_TYPES[family])) for _ in "ab")
    if family == "double" and F64 not in (ta, tb):
        ta = F64
    constants = PAIR_CONSTANTS if family != "float" else []
    k = draw(st.integers(1, 4))
    cols = {}
    for name, t in (("a", ta), ("b", tb)):
        palette = draw(st.lists(strat.values(t), min_size=1, max_size=4))
        if pa.types.is_floating(t):
            palette += draw(st.sampled_from([[], [NAN], [float("inf")], [-float("inf"), 0.0]]))
        cols[name] = palette
    sizes = [draw(st.integers(0, 4)) for _ in range(k)]
    rows = {name: [[draw(st.one_of(st.sampled_from(cols[name]), st.none())) for _ in range(m)]
                   for m in sizes] for name in "ab"}

    def operand(depth):
        if depth == 0 or draw(st.integers(0, 2)) == 0:
            return n.Column(draw(st.sampled_from("ab")))
        x = operand(depth - 1)
        y = (operand(depth - 1) if draw(st.booleans()) or not constants else
             n.Literal(draw(st.sampled_from(constants))))
        if draw(st.booleans()):
            x, y = y, x
        return n.Func(draw(st.sampled_from(["+", "-", "*", "/"])), (x, y))

    node = operand(2)
    types = {"a": ta, "b": tb}
    flat = [{"a": ra, "b": rb} for i in range(k) for ra, rb in zip(rows["a"][i], rows["b"][i],
                                                                    strict=True)]
    probe = ref.evaluate_value(node, types, draw(st.sampled_from(flat))) if flat else None
    base = probe.value if isinstance(probe, ref.V) else 0
    if isinstance(base, float) and not math.isfinite(base):
        base = 0.0
    literal = draw(st.sampled_from([base, base + 1, base - 1, -base]))
    literal = Dm(literal.numerator) / Dm(literal.denominator) if isinstance(
        literal, ref.Fraction) else literal
    op = draw(st.sampled_from(list(n.Op)))
    return strat.exact_example({c: (types[c], rows[c]) for c in "ab"},
                               n.Compare(op, node, n.Literal(literal)),
                               nan_bounds=draw(st.sampled_from(["exclude", "include"])))


@settings(max_examples=300, database=None, derandomize=True, deadline=None)
@given(pair_examples())
def test_two_operand_arithmetic_is_sound(example):
    pred = pk.PruningPredicate(example.predicate, example.schema)
    out = pred.classify(example.statistics(), backend="numpy").tolist()
    for i, rows in enumerate(example.containers):
        truths = [ref.evaluate(example.predicate, example.types, r) for r in rows]
        assert out[i] != NONE or True not in truths, (i, truths, example.describe())
        assert out[i] != ALL or all(t is True for t in truths), (i, truths, example.describe())


def test_two_operand_arithmetic_decides(without_local_constants, examples):
    seen = {NONE: 0, ALL: 0}

    @settings(max_examples=examples, database=None, derandomize=True, deadline=None)
    @given(pair_examples())
    def run(example):
        pred = pk.PruningPredicate(example.predicate, example.schema)
        if "weakened" in pred.explain():
            return
        out = pred.classify(example.statistics(), backend="numpy").tolist()
        for o, rows in zip(out, example.containers, strict=True):
            if rows and o in seen:
                seen[o] += 1

    run()
    assert min(seen.values()) >= 10, seen


# ---- the same outcomes in Spark (kernels in executors, and the SQL rendering) ----------------
SPARK_PREDICATES = [
    "x / 3 > 5", "x / -2.5E0 <= 1", "f / 4 < 0.25", "i / 2 = 1.5", "g / -3 > 0",
    "d * 2 > 1.5", "d + 1 <= 2", "d * (1 - d) > 0.1", "1 - d < 0.5 AND d - 2 * d > -1",
    "f + x > 3", "x * f < 2", "g * f >= 1", "i + f <> 0", "g + g < 3", "g * g >= 2",
    "d / 3 > 0.5", "i / 2.5 <= 1", "d * d > 1", "d + d * 2 < 0",
]


# Compiled in Spark's Python worker in the deep tier (a kernel each, seconds to compile): integer
# division, and decimal arithmetic; the others run interpreted there. Under make test all run
# interpreted there: tests/spark_glue/test_frame.py compiles kernels in the worker, and the
# property tests hold these kernels equal to the interpreter.
SPARK_COMPILED = ("x / 3 > 5", "d + d * 2 < 0")


@pytest.mark.spark
def test_arithmetic_outcomes_in_spark_equal_classify(spark):
    from tests.support import spark_frames as ts

    table = ts.random_statistics(3000)
    df = ts.to_spark(spark, table).cache()
    want = ts.expected(table, SPARK_PREDICATES)
    assert set(SPARK_COMPILED) <= set(SPARK_PREDICATES)
    got = ts.classify_all(df, SPARK_PREDICATES, compiled=tiers.pick((), SPARK_COMPILED))
    assert not ts.mismatches(want, got, table)
    assert not ts.mismatches(want, ts.classify_all(df, SPARK_PREDICATES, engine="sql"), table)
    df.unpersist()
    decided = sum(o != MAYBE for v in want.values() for o in v)
    assert decided > len(SPARK_PREDICATES) * 300  # the predicates prune these statistics
