"""``x % c`` and ``pmod(x, c)`` of integer columns (``expr/binding/functions/remainder.py``):
Spark's semantics written out here with Python integers (Java's remainder: the dividend's sign),
checked against Spark on the edges in ``tests/expr/test_spark_typing.py``; hand-written edges (the
integer minimum, negative divisors, division by zero, NULL) and random containers judged row by
row."""

import pyarrow as pa
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import prunekit as pk
from tests.support.cases import container_of, containers_of

I64 = pa.int64()
MIN64, MAX64 = -(2**63), 2**63 - 1


def java_rem(x: int, c: int) -> int:
    """Java's ``x % c``: truncating division, the sign of x."""
    r = abs(x) % abs(c)
    return -r if x < 0 else r


def spark_pmod(x: int, c: int) -> int:
    """Spark's ``pmod``: ``r = x % c; if r < 0 then (r + c) % c else r`` (Java's ``%``)."""
    r = java_rem(x, c)
    return java_rem(r + c, c) if r < 0 else r


def container(values, t=I64):
    return container_of(values, t, "x")


def outcome(sql, values, t=I64):
    return int(pk.PruningPredicate(sql, {"x": t}).classify(container(values, t))[0])


OPS = {"=": lambda a, b: a == b, "<": lambda a, b: a < b, "<=": lambda a, b: a <= b,
       ">": lambda a, b: a > b, ">=": lambda a, b: a >= b, "<>": lambda a, b: a != b}


def check(sql_of, f, c, op, m, values, t=I64):
    """The outcome is sound against the rows: NONE_MATCH only if no row is TRUE, ALL_MATCH
    only if every row is."""
    return check_containers(sql_of, f, c, op, m, [values], t)[0]


def check_containers(sql_of, f, c, op, m, containers, t=I64):
    """``check`` for each container of ``containers`` (lists of values), in one call."""
    sql = f"{sql_of(c)} {op} {m}"
    got = pk.PruningPredicate(sql, {"x": t}).classify(containers_of(containers, t)).tolist()
    for values, o in zip(containers, got, strict=True):
        rows = [None if v is None else OPS[op](f(v, c), m) for v in values]
        if o == 0:
            assert not any(r is True for r in rows), (sql_of(c), op, m, values, rows)
        if o == 2:
            assert all(r is True for r in rows), (sql_of(c), op, m, values, rows)
    return got


FORMS = [(lambda c: f"x % {c}", java_rem), (lambda c: f"pmod(x, {c})", spark_pmod),
         (lambda c: f"mod(x, {c})", java_rem)]


def test_semantics_as_spark_shows_them():
    # Values Spark 4 returned (both modes) for these calls.
    assert [java_rem(-7, 3), java_rem(7, -3), spark_pmod(-7, 3), spark_pmod(7, -3),
            spark_pmod(-7, -3), java_rem(MIN64, -1), spark_pmod(MIN64, 3)] == \
        [-1, 1, 2, 1, -1, 0, 1]


@pytest.mark.parametrize("form, f", FORMS)
def test_one_block_gives_shifted_exact_bounds(form, f):
    # 14..20 is one block of 7: 14..17 have the remainders 0..3.
    assert outcome(f"{form(7)} >= 4", [14, 17]) == 0
    assert outcome(f"{form(7)} >= 0", [14, 17]) == 2
    assert outcome(f"{form(7)} = 3", [14, 15, 17]) == 1
    assert outcome(f"{form(7)} = 3", [15, 16]) == 0
    assert outcome(f"{form(-7)} < 3", [22, 23]) == 2  # 1 and 2, by -7 as by 7
    assert outcome(f"{form(7)} < 2", [22, 23]) == 1


def test_two_blocks_give_the_general_range():
    assert outcome("pmod(x, 7) >= 7", [-100, 100]) == 0
    assert outcome("pmod(x, 7) < 0", [-100, 100]) == 0
    assert outcome("pmod(x, 7) >= 6", [-100, 100]) == 1
    assert outcome("x % 7 > 6", [-100, 100]) == 0
    assert outcome("x % 7 < -6", [-100, 100]) == 0
    assert outcome("x % 7 >= 0", [0, 100]) == 2  # the dividend's sign
    assert outcome("x % 7 <= 0", [-100, 0]) == 2
    assert outcome("x % 7 > 0", [-100, 0]) == 0
    assert outcome("x % 100 > 5", [-3, 5]) == 0  # |r| <= |x|
    assert outcome("x % -7 > 0", [-100, -1]) == 0


def test_negative_values_and_java_blocks():
    # Java's blocks around 0: -6..6 have quotient 0 for 7, so [-6, 6] is one block.
    assert outcome("x % 7 >= -6", [-6, 6]) == 2
    assert outcome("x % 7 = -7", [-6, 6]) == 0
    assert outcome("x % 7 = -1", [-15, -14]) == 1  # -1, 0
    assert outcome("x % 7 < -1", [-15, -14]) == 0
    assert outcome("pmod(x, 7) = 6", [-15, -14]) == 1  # 6, 0
    assert outcome("pmod(x, 7) BETWEEN 1 AND 5", [-13, -9]) == 2  # one floor block
    assert outcome("pmod(x, -7) > 0", [-15, -14]) == 0  # pmod by a negative is x % c


@pytest.mark.parametrize("t", [pa.int8(), pa.int32(), pa.int64()])
def test_integer_minimum_and_maximum(t):
    lo, hi = (-(2 ** (t.bit_width - 1)), 2 ** (t.bit_width - 1) - 1)
    for form, f in FORMS:
        for c in (2, 3, -3, 7, 2**31 - 1, -(2**31), 2**61):
            for op in OPS:
                for m in (-1, 0, 1, 2):
                    check_containers(form, f, c, op, m,
                                     [[lo], [hi], [lo, lo + 1], [hi - 1, hi], [lo, hi]], t)
    assert outcome("pmod(x, 3) = 1", [lo], t) == (2 if spark_pmod(lo, 3) == 1 else 0)


def test_division_by_zero_null_and_unknown_divisors():
    assert outcome("x % 0 = 1", [1, 2]) == 0  # NULL in legacy mode; ANSI fails
    assert outcome("pmod(x, 0) IS NULL", [1, 2]) == 2
    assert outcome("x % NULL > 1", [1, 2]) == 0
    assert outcome("pmod(x, 3) IS NULL", [1, None]) == 1
    assert outcome("pmod(x, 3) IS NULL", [None, None]) == 2
    assert outcome("pmod(x, 3) > 1", [None, None]) == 0
    # |c| = 1 and divisors beyond 2**61 are unknown (every container is read)
    for sql in ("x % 1 = 5", "pmod(x, -1) = 5", f"x % {2**62} = 5", "x % 2.5 = 5"):
        assert outcome(sql, [1, 2]) == 1, sql


def test_explain_names_the_block():
    text = pk.PruningPredicate("pmod(x, 7) >= 5", {"x": I64}).explain()
    assert "pmod(x, 7).max >= 5" in text, text


@settings(max_examples=400, deadline=None)
@given(st.sampled_from(range(len(FORMS))),
       st.sampled_from([2, 3, -3, 7, 10, -10, 60, 1000, 2**40, -(2**61)]),
       st.sampled_from(list(OPS)), st.integers(-12, 12),
       st.lists(st.one_of(st.none(), st.integers(-30, 30),
                          st.integers(MIN64, MAX64)), min_size=1, max_size=5))
def test_random_containers(i, c, op, m, values):
    form, f = FORMS[i]
    check(form, f, c, op, m, values)


@settings(max_examples=200, deadline=None)
@given(st.sampled_from([3, 7, -7]), st.integers(-50, 50), st.integers(0, 5),
       st.integers(-7, 7))
def test_one_block_equality_is_decided(c, start, width, m):
    # Within one block the bounds are exact: = m is NONE_MATCH exactly when no row has m.
    values = list(range(start, start + width + 1))
    for form, f in FORMS[:2]:
        results = {f(v, c) for v in values}
        blocks = {(v // abs(c)) if form(c).startswith("pmod") and c > 0 else
                  int(v / abs(c)) for v in values}
        got = check(form, f, c, "=", m, values)
        if len(blocks) == 1 and m not in results:
            assert got == 0, (form(c), values, m)
