"""Every expression form, in SQL text and through the builder, with the column on either side.

Each form lists its spellings (all must mean the same) and a few containers with the outcome and
the reason. Spellings of one form compile to one kernel shape, so the table stays cheap.
"""

from __future__ import annotations

import pyarrow as pa
import pytest

import prunekit as pk
from tests.support.cases import (
    ALL,
    BACKENDS,
    MAYBE,
    NONE,
    NOT_ALL,
    NOT_NONE,
    check,
    classify,
    label,
    multi,
    row,
    stats_table,
)

C, L = pk.col, pk.lit
SCHEMA = pa.schema([
    ("x", pa.int64()), ("y", pa.int64()), ("a", pa.int64()), ("b", pa.int64()),
    ("x32", pa.int32()), ("s", pa.string()), ("flag", pa.bool_()), ("f", pa.float64()),
])


def c(mn, mx, nulls, expected, why, col="x", rows=10, **extra):
    """A container of one column (predicate filled in per spelling)."""
    return row(mn, mx, nulls, rows, None, expected, why, col=col, **extra)


def m(expected, why, rows=10, **columns):
    """A container of several columns."""
    return multi(rows, None, expected, why, **columns)


VALUES = list(range(0, 30000, 3))  # 10,000 values
VALS = ", ".join(map(str, VALUES))


def _deep_not(n: int) -> str:
    return "NOT (" * n + "x > 5" + ")" * n


def _deep_mixed_sql(n: int) -> str:
    # ((((x > 5 AND y < 3) OR FALSE) AND y < 3) OR FALSE ...: means x > 5 AND y < 3.
    s = "x > 5"
    for i in range(n):
        s = f"({s} AND y < 3)" if i % 2 == 0 else f"({s} OR FALSE)"
    return s


def _deep_mixed_builder(n: int):
    e = C("x") > 5
    for i in range(n):
        e = (e & (C("y") < 3)) if i % 2 == 0 else (e | L(False))
    return e


def _deep_not_builder(n: int):
    e = C("x") > 5
    for _ in range(n):
        e = ~e
    return e


AND_CONTAINERS = [
    m(ALL, "x > 5 and y < 3 on every row", x=(6, 9, 0), y=(0, 2, 0)),
    m(NONE, "x > 5 impossible", x=(0, 4, 0), y=(0, 2, 0)),
    m(NONE, "y < 3 impossible", x=(6, 9, 0), y=(3, 9, 0)),
    m(MAYBE, "x = 5 may occur", x=(5, 9, 0), y=(0, 2, 0)),
]
GT5 = [c(0, 5, 0, NONE, "max 5"), c(6, 9, 0, ALL, "min 6"), c(5, 6, 0, MAYBE, "6 may occur"),
       c(6, 9, 1, MAYBE, "a NULL row")]
NOT_GT5 = [c(0, 5, 0, ALL, "max 5, no NULL"), c(6, 9, 0, NONE, "min 6"),
           c(0, 5, 1, MAYBE, "a NULL row")]
LIKE_UNDERSCORE = [c("b", "c", 0, NONE, "prefix 'a'", col="s"),
                   c("abc", "abd", 0, NOT_NONE, "'abc' matches a_c%", col="s")]
LIKE_ESCAPED = [c("abc", "abd", 0, NONE, "prefix 'a_c' (a literal _)", col="s"),
                c("a_c", "a_d", 0, NOT_NONE, "'a_c' matches", col="s")]

FORMS = {
    "=": (["x = 5", "5 = x", "x == 5", C("x") == 5, L(5) == C("x")],
          [c(0, 4, 0, NONE, "max < 5"), c(6, 9, 0, NONE, "min > 5"),
           c(5, 5, 0, ALL, "every row is 5"), c(4, 6, 0, MAYBE, "5 within"),
           c(5, 5, 1, MAYBE, "a NULL row")]),
    "<>": (["x <> 5", "x != 5", "5 <> x", "5 != x", C("x") != 5, L(5) != C("x")],
           [c(5, 5, 0, NONE, "every row is 5"), c(0, 4, 0, ALL, "no 5, no NULL"),
            c(0, 4, 1, MAYBE, "a NULL row"), c(4, 6, 0, MAYBE, "5 within")]),
    "<": (["x < 5", "5 > x", C("x") < 5, L(5) > C("x")],
          [c(5, 9, 0, NONE, "min 5"), c(0, 4, 0, ALL, "max 4"), c(4, 6, 0, MAYBE, "both"),
           c(0, 4, 2, MAYBE, "NULL rows")]),
    "<=": (["x <= 5", "5 >= x", C("x") <= 5, L(5) >= C("x")],
           [c(6, 9, 0, NONE, "min 6"), c(0, 5, 0, ALL, "max 5"), c(5, 6, 0, MAYBE, "both")]),
    ">": (["x > 5", "5 < x", C("x") > 5, L(5) < C("x")], GT5),
    ">=": (["x >= 5", "5 <= x", C("x") >= 5, L(5) <= C("x")],
           [c(0, 4, 0, NONE, "max 4"), c(5, 9, 0, ALL, "min 5"), c(4, 5, 0, MAYBE, "both")]),
    "AND": (["x > 5 AND y < 3", "(x > 5) AND (y < 3)", "y < 3 AND x > 5",
             "NOT (NOT (x > 5) OR NOT (y < 3))",  # De Morgan
             (C("x") > 5) & (C("y") < 3), pk.and_(C("y") < 3, C("x") > 5)], AND_CONTAINERS),
    "OR": (["x > 5 OR y < 3", "y < 3 OR x > 5", "NOT (NOT (x > 5) AND NOT (y < 3))",
            (C("x") > 5) | (C("y") < 3), pk.or_(C("y") < 3, C("x") > 5)],
           [m(NONE, "neither", x=(0, 4, 0), y=(3, 9, 0)),
            m(ALL, "x > 5 everywhere", x=(6, 9, 0), y=(3, 9, 0)),
            m(ALL, "y < 3 everywhere", x=(0, 4, 0), y=(0, 2, 0)),
            m(MAYBE, "x = 5 rows", x=(5, 9, 0), y=(3, 9, 0))]),
    "NOT": (["NOT (x > 5)", "NOT x > 5", "NOT(x > 5)", "!(x > 5)", ~(C("x") > 5)], NOT_GT5),
    "deep": ([_deep_not(1000), "NOT " * 1000 + "x > 5", _deep_not_builder(1000),
              "((((((((((x > 5))))))))))"], GT5),
    "deep odd": ([_deep_not(999), _deep_not_builder(999)], NOT_GT5),
    "deep AND/OR": ([_deep_mixed_sql(300), _deep_mixed_builder(300)], AND_CONTAINERS),
    "IS NULL": (["x IS NULL", C("x").is_null(), "x <=> NULL", "NOT (x IS NOT NULL)",
                 ~C("x").is_not_null()],
                [c(0, 9, 0, NONE, "no NULL"), c(None, None, 10, ALL, "all NULL"),
                 c(0, 9, 3, MAYBE, "some NULL")]),
    "IS NOT NULL": (["x IS NOT NULL", C("x").is_not_null(), ~C("x").is_null(),
                     "NOT x IS NULL", "x IS DISTINCT FROM NULL", C("x").is_distinct_from(None)],
                    [c(0, 9, 0, ALL, "no NULL"), c(None, None, 10, NONE, "all NULL"),
                     c(0, 9, 3, MAYBE, "some NULL")]),
    "IS TRUE": (["flag IS TRUE", C("flag").is_true()],
                [c(False, False, 2, NONE, "FALSE or NULL", col="flag"),
                 c(True, True, 0, ALL, "every row TRUE", col="flag"),
                 c(True, True, 2, MAYBE, "NULL rows are not TRUE", col="flag"),
                 c(None, None, 10, NONE, "all NULL", col="flag")]),
    "IS NOT TRUE": (["flag IS NOT TRUE", ~C("flag").is_true()],
                    [c(False, False, 2, ALL, "FALSE or NULL: both are NOT TRUE", col="flag"),
                     c(True, True, 0, NONE, "every row TRUE", col="flag"),
                     c(True, True, 2, MAYBE, "TRUE rows and NULL rows", col="flag"),
                     c(None, None, 10, ALL, "NULL IS NOT TRUE", col="flag")]),
    "IS FALSE": (["flag IS FALSE", C("flag").is_false()],
                 [c(False, False, 0, ALL, "every row FALSE", col="flag"),
                  c(False, False, 2, MAYBE, "NULL rows are not FALSE", col="flag"),
                  c(True, True, 2, NONE, "TRUE or NULL", col="flag"),
                  c(None, None, 10, NONE, "all NULL", col="flag")]),
    "IS NOT FALSE": (["flag IS NOT FALSE", ~C("flag").is_false()],
                     [c(False, False, 0, NONE, "every row FALSE", col="flag"),
                      c(True, True, 2, ALL, "TRUE or NULL", col="flag"),
                      c(False, True, 0, MAYBE, "both", col="flag"),
                      c(None, None, 10, ALL, "NULL IS NOT FALSE", col="flag")]),
    "(x > 5) IS TRUE": (["(x > 5) IS TRUE", (C("x") > 5).is_true()],
                        [c(0, 4, 2, NONE, "FALSE or NULL"), c(6, 9, 2, MAYBE, "NULL rows"),
                         c(6, 9, 0, ALL, "TRUE everywhere")]),
    "(x > 5) IS NOT FALSE": (["(x > 5) IS NOT FALSE", ~(C("x") > 5).is_false()],
                             [c(0, 4, 2, MAYBE, "NULL rows are NOT FALSE"),
                              c(0, 4, 0, NONE, "FALSE everywhere"),
                              c(6, 9, 2, ALL, "TRUE or NULL")]),
    "IS DISTINCT FROM": (["x IS DISTINCT FROM 5", "5 IS DISTINCT FROM x", "NOT (x <=> 5)",
                          C("x").is_distinct_from(5), L(5).is_distinct_from(C("x"))],
                         [c(5, 5, 0, NONE, "every row is 5"),
                          c(5, 5, 2, MAYBE, "NULL rows are distinct"),
                          c(6, 9, 2, ALL, "NULL and 6..9 are distinct from 5"),
                          c(None, None, 10, ALL, "NULL is distinct from 5")]),
    "IS NOT DISTINCT FROM": (["x IS NOT DISTINCT FROM 5", "x <=> 5", "5 <=> x",
                              ~C("x").is_distinct_from(5), ~L(5).is_distinct_from(C("x"))],
                             [c(5, 5, 0, ALL, "every row is 5"),
                              c(5, 5, 2, MAYBE, "NULL <=> 5 is FALSE"),
                              c(6, 9, 2, NONE, "no 5; NULL rows FALSE"),
                              c(None, None, 10, NONE, "all NULL")]),
    "<=> columns": (["a <=> b", ~C("a").is_distinct_from(C("b"))],
                    [m(NONE, "disjoint, no NULL", a=(1, 4, 0), b=(5, 9, 0)),
                     m(MAYBE, "overlap", a=(1, 5, 0), b=(5, 9, 0))]),
    "IN 10,000": ([f"x IN ({VALS})", C("x").isin(VALUES)],
                  [c(1, 2, 0, NONE, "no multiple of 3 in [1, 2]"),
                   c(30000, 40000, 0, NONE, "above the largest value 29997"),
                   c(-5, -1, 0, NONE, "below 0"), c(3, 3, 0, ALL, "every row is 3"),
                   c(1, 3, 0, MAYBE, "3 may occur"), c(3, 3, 1, MAYBE, "a NULL row")]),
    "IN 10,000 with NULL": ([f"x IN ({VALS}, NULL)", f"x IN (NULL, {VALS})",
                             C("x").isin(VALUES + [None])],
                            [c(3, 3, 0, ALL, "x = 3 is TRUE"),
                             c(1, 2, 0, NONE, "FALSE OR NULL is NULL"),
                             c(1, 3, 0, MAYBE, "3 may occur")]),
    "NOT IN 10,000": ([f"x NOT IN ({VALS})", f"NOT x IN ({VALS})", ~C("x").isin(VALUES)],
                      [c(1, 2, 0, ALL, "no listed value in [1, 2], no NULL"),
                       c(3, 3, 0, NONE, "every row is 3"), c(1, 3, 0, MAYBE, "both"),
                       c(1, 2, 1, MAYBE, "a NULL row")]),
    "NOT IN 10,000 with NULL": ([f"x NOT IN ({VALS}, NULL)", ~C("x").isin([None] + VALUES)],
                                [c(1, 2, 0, NONE, "NOT IN with a NULL is never TRUE"),
                                 c(3, 3, 0, NONE, "every row is 3"),
                                 c(None, None, 0, NONE, "never TRUE")]),
    "IN mixed literals": (["x IN (1, 2.5, 3)", C("x").isin([1, 2.5, 3])],
                          [c(2, 2, 0, NONE, "2 is not listed; 2.5 never equals an integer"),
                           c(1, 1, 0, ALL, "every row is 1"), c(1, 3, 0, MAYBE, "both")]),
    "IN strings": (["s IN ('b', 'é', NULL)", C("s").isin(["b", "é", None])],
                   [c("c", "d", 0, NONE, "neither 'b' nor 'é' in [c, d]", col="s"),
                    c("é", "é", 0, ALL, "every row is 'é'", col="s"),
                    c("a", "z", 0, MAYBE, "'b' may occur", col="s")]),
    "BETWEEN": (["x BETWEEN 3 AND 5", C("x").between(3, 5), "x >= 3 AND x <= 5",
                 "x BETWEEN 3.0 AND 5"],
                [c(0, 2, 0, NONE, "max 2"), c(6, 9, 0, NONE, "min 6"),
                 c(3, 5, 0, ALL, "within"), c(2, 4, 0, MAYBE, "both"),
                 c(3, 5, 1, MAYBE, "a NULL row")]),
    "NOT BETWEEN": (["x NOT BETWEEN 3 AND 5", "NOT (x BETWEEN 3 AND 5)",
                     ~C("x").between(3, 5)],
                    [c(0, 2, 0, ALL, "outside, no NULL"), c(3, 5, 0, NONE, "inside"),
                     c(2, 4, 0, MAYBE, "both"), c(0, 2, 1, MAYBE, "a NULL row")]),
    "literal BETWEEN columns": (["5 BETWEEN a AND b", L(5).between(C("a"), C("b"))],
                                [m(NONE, "a > 5 everywhere", a=(6, 9, 0), b=(7, 9, 0)),
                                 m(NONE, "b < 5 everywhere", a=(0, 1, 0), b=(0, 4, 0)),
                                 m(ALL, "a <= 5 <= b everywhere", a=(0, 5, 0), b=(5, 9, 0)),
                                 m(MAYBE, "anything", a=(0, 9, 0), b=(0, 9, 0))]),
    "LIKE prefix": (["s LIKE 'ab%'", "startswith(s, 'ab')", C("s").like("ab%"),
                     C("s").startswith("ab")],
                    [c("ac", "ad", 0, NONE, "none starts with 'ab'", col="s"),
                     c("aa", "az", 0, MAYBE, "'ab...' within", col="s"),
                     c("ab", "abz", 0, NOT_NONE, "every value starts with 'ab'", col="s")]),
    "NOT LIKE": (["s NOT LIKE 'ab%'", "NOT s LIKE 'ab%'", "NOT (s LIKE 'ab%')",
                  ~C("s").like("ab%")],
                 [c("ac", "ad", 0, ALL, "none starts with 'ab', no NULL", col="s"),
                  c("ac", "ad", 1, MAYBE, "a NULL row", col="s"),
                  c("aa", "az", 0, MAYBE, "both", col="s")]),
    "LIKE _": (["s LIKE 'a_c%'", C("s").like("a_c%")], LIKE_UNDERSCORE),
    "LIKE escape": ([r"s LIKE 'a\_c%'", C("s").like("a\\_c%")], LIKE_ESCAPED),
    "LIKE ESCAPE clause": (["s LIKE 'a!_c%' ESCAPE '!'", C("s").like("a!_c%", escape="!")],
                           LIKE_ESCAPED),
    "NOT LIKE ESCAPE clause": (["s NOT LIKE 'a!_c%' ESCAPE '!'",
                                ~C("s").like("a!_c%", escape="!")],
                               [c("abc", "abd", 0, ALL, "no value starts with 'a_c'", col="s"),
                                c("a_c", "a_c", 0, NONE, "every value is 'a_c'", col="s")]),
    "LIKE without wildcard": (["s LIKE 'abc'", C("s").like("abc"), "s = 'abc'", "'abc' = s"],
                              [c("abc", "abc", 0, ALL, "equality", col="s"),
                               c("abd", "abz", 0, NONE, "'abc' < min", col="s"),
                               c("abb", "abd", 0, MAYBE, "'abc' within", col="s")]),
    "NOT LIKE without wildcard": (["s NOT LIKE 'abc'", ~C("s").like("abc"), "s <> 'abc'"],
                                  [c("abc", "abc", 0, NONE, "every value is 'abc'", col="s"),
                                   c("abd", "abz", 0, ALL, "no 'abc', no NULL", col="s")]),
    "bare boolean": (["flag", C("flag"), "flag = TRUE", "TRUE = flag", C("flag") == L(True)],
                     [c(True, True, 0, ALL, "every row TRUE", col="flag"),
                      c(False, False, 0, NONE, "every row FALSE", col="flag"),
                      c(False, True, 0, MAYBE, "both", col="flag"),
                      c(True, True, 1, MAYBE, "a NULL row", col="flag")]),
    "NOT boolean": (["NOT flag", ~C("flag"), "flag = FALSE", C("flag") == L(False)],
                    [c(False, False, 0, ALL, "every row FALSE", col="flag"),
                     c(True, True, 0, NONE, "every row TRUE", col="flag"),
                     c(False, True, 0, MAYBE, "both", col="flag"),
                     c(False, False, 1, MAYBE, "a NULL row", col="flag")]),
    "boolean in AND": (["flag AND x > 5", C("flag") & (C("x") > 5)],
                       [m(ALL, "both TRUE", flag=(True, True, 0), x=(6, 9, 0)),
                        m(NONE, "flag FALSE", flag=(False, False, 0), x=(6, 9, 0))]),
    "isnan": (["isnan(f)", pk.isnan(C("f"))],
              [c(1.0, 2.0, 0, NONE, "nan_count 0", col="f", nan_count=0),
               c(1.0, 2.0, 0, MAYBE, "nan_count unknown", col="f"),
               c(None, None, 10, NONE, "all NULL: isnan(NULL) is FALSE", col="f")]),
    "NOT isnan": (["NOT isnan(f)", ~pk.isnan(C("f"))],
                  [c(1.0, 2.0, 3, ALL, "no NaN; NULL rows give NOT FALSE", col="f", nan_count=0),
                   c(1.0, 2.0, 0, MAYBE, "nan_count unknown", col="f")]),
    "CAST widening": (["CAST(x32 AS BIGINT) > 5", "TRY_CAST(x32 AS BIGINT) > 5",
                       "5 < CAST(x32 AS BIGINT)", C("x32").cast(pa.int64()) > 5,
                       C("x32").cast(pa.int64(), safe=True) > 5, L(5) < C("x32").cast(pa.int64())],
                      [c(0, 4, 0, NONE, "max 4", col="x32"), c(6, 9, 0, ALL, "min 6", col="x32"),
                       c(5, 6, 0, MAYBE, "both", col="x32")]),
    "CAST int to double": (["CAST(x32 AS DOUBLE) > 5.5", "5.5 < TRY_CAST(x32 AS DOUBLE)",
                            C("x32").cast(pa.float64()) > 5.5],
                           [c(0, 5, 0, NONE, "max 5", col="x32"),
                            c(6, 9, 0, NOT_NONE, "min 6", col="x32")]),
    "CAST not order-preserving": (["CAST(x AS STRING) = '9'", "TRY_CAST(x AS STRING) = '9'",
                                   "'9' = CAST(x AS STRING)", C("x").cast(pa.string()) == "9"],
                                  [c(8, 12, 0, NOT_NONE, "x = 9 is in [8, 12]"),
                                   c(0, 4, 0, NOT_ALL, "'0'..'4' are never '9'")]),
    "CAST not order-preserving AND": (["CAST(x AS STRING) = '9' AND y > 5",
                                       (C("x").cast(pa.string()) == "9") & (C("y") > 5)],
                                      [m(NONE, "y > 5 impossible", x=(8, 12, 0), y=(0, 4, 0)),
                                       m(MAYBE, "the cast decides", x=(8, 12, 0), y=(6, 9, 0))]),
    "unary minus": (["-x > 5", "5 < -x", -C("x") > 5, L(5) < -C("x"), "-x >= 6"],
                    [c(-10, -6, 0, NOT_NONE, "every -x is in [6, 10]"),
                     c(0, 4, 0, NOT_ALL, "every -x is in [-4, 0]")]),
    "negative literal": (["x > -5", "-5 < x", C("x") > -5, "x > - 5", "x > -(5)"],
                         [c(-4, 0, 0, ALL, "min -4"), c(-9, -5, 0, NONE, "max -5"),
                          c(-5, -4, 0, MAYBE, "both")]),
    "TRUE": (["TRUE", L(True), "NOT FALSE", "x > 5 OR TRUE", "TRUE OR x > 5"],
             [c(0, 9, 0, ALL, "every row"), c(0, 9, 0, NONE, "empty", rows=0),
              c(None, None, 10, ALL, "TRUE even where x is NULL")]),
    "FALSE": (["FALSE", L(False), "NOT TRUE", "x > 5 AND FALSE"],
              [c(0, 9, 0, NONE, "FALSE"), c(6, 9, 0, NONE, "FALSE")]),
    "NULL": (["NULL", L(None), "NULL AND x > 5", "x > 5 AND NULL", "NOT NULL"],
             [c(0, 9, 0, NONE, "NULL passes no row"), c(6, 9, 0, NONE, "TRUE AND NULL: NULL")]),
    "OR NULL": (["x > 5 OR NULL", (C("x") > 5) | L(None)],
                [c(6, 9, 0, ALL, "TRUE OR NULL"), c(0, 4, 0, NONE, "FALSE OR NULL: NULL"),
                 c(0, 9, 0, MAYBE, "both")]),
    "a < b": (["a < b", "b > a", C("a") < C("b"), C("b") > C("a")],
              [m(NONE, "min(a) 5 >= max(b) 5", a=(5, 9, 0), b=(1, 5, 0)),
               m(ALL, "max(a) 4 < min(b) 5", a=(1, 4, 0), b=(5, 9, 0)),
               m(MAYBE, "both", a=(1, 5, 0), b=(5, 9, 0))]),
    "a <= b": (["a <= b", "b >= a", C("a") <= C("b"), C("b") >= C("a")],
               [m(NONE, "min(a) 6 > max(b) 5", a=(6, 9, 0), b=(1, 5, 0)),
                m(ALL, "max(a) 5 <= min(b) 5", a=(1, 5, 0), b=(5, 9, 0)),
                m(MAYBE, "both", a=(5, 9, 0), b=(1, 5, 0))]),
    "a > b": (["a > b", "b < a", C("a") > C("b"), C("b") < C("a")],
              [m(NONE, "max(a) 5 <= min(b) 5", a=(1, 5, 0), b=(5, 9, 0)),
               m(ALL, "min(a) 6 > max(b) 5", a=(6, 9, 0), b=(1, 5, 0)),
               m(MAYBE, "both", a=(1, 6, 0), b=(5, 9, 0))]),
    "a >= b": (["a >= b", "b <= a", C("a") >= C("b"), C("b") <= C("a")],
               [m(NONE, "max(a) 4 < min(b) 5", a=(1, 4, 0), b=(5, 9, 0)),
                m(ALL, "min(a) 5 >= max(b) 5", a=(5, 9, 0), b=(1, 5, 0)),
                m(MAYBE, "both", a=(1, 5, 0), b=(5, 9, 0))]),
    "a = b": (["a = b", "b = a", C("a") == C("b"), C("b") == C("a")],
              [m(NONE, "disjoint", a=(1, 4, 0), b=(5, 9, 0)),
               m(MAYBE, "5 in both", a=(1, 5, 0), b=(5, 9, 0)),
               m(ALL, "both exactly 5", a=(5, 5, 0), b=(5, 5, 0))]),
    "a <> b": (["a <> b", "a != b", "b <> a", C("a") != C("b")],
               [m(ALL, "disjoint, no NULL", a=(1, 4, 0), b=(5, 9, 0)),
                m(NONE, "both exactly 5", a=(5, 5, 0), b=(5, 5, 0)),
                m(MAYBE, "both", a=(1, 5, 0), b=(5, 9, 0))]),
    "unknown function": (["my_udf(x)", "NOT my_udf(x)", "my_udf(x, 'a', 1)", "my_udf(x) > 3",
                          "my_udf() = 1", "x % 3 = y"],
                         [m(MAYBE, "the function decides", x=(0, 4, 0), y=(0, 1, 0)),
                          m(MAYBE, "the function decides", x=(6, 9, 0), y=(0, 1, 0))]),
    "unknown function AND": (["my_udf(x) AND x > 5", "x > 5 AND my_udf(x)",
                              "NOT my_udf(x) AND x > 5", "my_udf(x) > 3 AND x > 5",
                              "x > 5 AND upper(s) = 'A'", "x > 5 AND x % 7 > 0",
                              "x > 5 AND (my_udf(x) OR my_udf(s))", "x > 5 AND s RLIKE 'a'"],
                             [c(0, 4, 0, NONE, "x > 5 impossible; the function is irrelevant"),
                              c(6, 9, 0, MAYBE, "the function decides")]),
    "unknown function OR": (["my_udf(x) OR x > 5", "x > 5 OR my_udf(x)"],
                            [c(6, 9, 0, ALL, "x > 5 on every row"),
                             c(0, 4, 0, MAYBE, "the function may be TRUE")]),
}

PARAMS = [pytest.param(name, spelling, id=f"{name}: {label(spelling)[:80]}")
          for name, (spellings, _) in FORMS.items() for spelling in spellings]


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize(("form", "spelling"), PARAMS)
def test_form(form, spelling, backend):
    containers = FORMS[form][1]
    check([r._replace(predicate=spelling) for r in containers], SCHEMA, backend)


def test_builder_sql_round_trips():
    # A builder tree's SQL text parses back to a predicate with the same answers.
    for spellings, containers in FORMS.values():
        stats = stats_table([r.stats for r in containers], SCHEMA)
        for sp in spellings:
            if isinstance(sp, str) or len(sp.sql()) > 2000:
                continue
            again = pk.PruningPredicate(sp.sql(), SCHEMA).classify(stats, backend="numpy")
            built = pk.PruningPredicate(sp, SCHEMA).classify(stats, backend="numpy")
            assert again.tolist() == built.tolist(), sp.sql()


# ---- required_columns, always_true, explain ----------------------------------------------------
STATS = ("min", "max", "null_count", "nan_count", "min_exact", "max_exact")


def test_required_columns_basic():
    rc = pk.PruningPredicate("x > 5", SCHEMA).required_columns
    assert set(rc) == {"x"}
    assert {"min", "max", "null_count"} <= set(rc["x"]) <= set(STATS)
    assert pk.PruningPredicate("x IS NULL", SCHEMA).required_columns == {"x": ("null_count",)}
    assert pk.PruningPredicate(C("x").is_null(), SCHEMA).required_columns == \
        {"x": ("null_count",)}
    # Both columns of a column-vs-column comparison; nan_count for a float (NaN may hide).
    assert set(pk.PruningPredicate("a < b", SCHEMA).required_columns) == {"a", "b"}
    assert "nan_count" in pk.PruningPredicate("f > 5", SCHEMA).required_columns["f"]
    # Equality can only be proven with exact bounds: the flags are read.
    assert {"min_exact", "max_exact"} <= set(
        pk.PruningPredicate("x = 5", SCHEMA).required_columns["x"])
    # A leaf of 'anything' reads no statistics; a constant predicate reads none at all.
    assert set(pk.PruningPredicate("my_udf(y) AND x > 5", SCHEMA).required_columns) == {"x"}
    assert pk.PruningPredicate("TRUE", SCHEMA).required_columns == {}
    # SQL and builder agree.
    assert pk.PruningPredicate("x > 5 AND s LIKE 'ab%'", SCHEMA).required_columns == \
        pk.PruningPredicate((C("x") > 5) & C("s").like("ab%"), SCHEMA).required_columns


FULL = [  # containers with every statistic, including inexact bounds and NaN counts
    {"row_count": 10, "x": {"min": 5, "max": 5, "null_count": 0, "min_exact": False,
                            "max_exact": False},
     "s": {"min": "ab", "max": "ab", "null_count": 0, "min_exact": False, "max_exact": False},
     "f": {"min": 1.0, "max": 2.0, "null_count": 0, "nan_count": 3},
     "y": {"min": 0, "max": 1, "null_count": 0}},
    {"row_count": 10, "x": {"min": 5, "max": 5, "null_count": 0, "min_exact": True,
                            "max_exact": True},
     "s": {"min": "ab", "max": "ab", "null_count": 0, "min_exact": True, "max_exact": True},
     "f": {"min": 1.0, "max": 2.0, "null_count": 0, "nan_count": 0},
     "y": {"min": 0, "max": 1, "null_count": 0}},
]


@pytest.mark.parametrize("sql", ["x = 5", "x <> 5", "x IN (5, 6)", "x NOT IN (5, 6)",
                                 "s = 'ab'", "s LIKE 'ab'", "s LIKE 'a_'", "s NOT LIKE 'a%b'",
                                 "f > 5", "f < 3", "isnan(f)",
                                 "x = 5 AND f < 3", "x = 5 OR y = 3"])
def test_required_columns_suffice(sql):
    # Keeping only the statistics required_columns names (optional ones can be dropped; a whole
    # column can be dropped) must not change any answer: absent optional statistics read as
    # defaults (exact bounds, unknown NaN), so omitting a needed one could even be unsound.
    pred = pk.PruningPredicate(sql, SCHEMA)
    full = pred.classify(stats_table(FULL, SCHEMA), backend="numpy")
    rc = pred.required_columns
    kept = []
    for cont in FULL:
        k = {"row_count": cont["row_count"]}
        for name, stats in cont.items():
            if name in rc:
                k[name] = {s: v for s, v in stats.items()
                           if s in rc[name] or s in ("min", "max", "null_count")}
        kept.append(k)
    assert pred.classify(stats_table(kept, SCHEMA), backend="numpy").tolist() == full.tolist()


@pytest.mark.parametrize(("sql", "expected"), [
    ("my_udf(x)", True), ("x > 1 OR my_udf(x)", True), ("NOT my_udf(x)", True),
    ("TRUE", True), ("x > 5", False), ("x > 5 AND my_udf(x)", False), ("FALSE", False),
    ("x IS NULL", False), ("NULL", False), ("my_udf(CAST(x AS STRING))", True),
    ("CAST(x AS STRING) = '9'", False),  # unknown, but NULL where x is: prunes all-NULL x
    ("x = 5.5", False),  # never TRUE: prunes every container
])
def test_always_true(sql, expected):
    pred = pk.PruningPredicate(sql, SCHEMA)
    assert pred.always_true is expected
    if expected:  # then no statistics prune a non-empty container
        containers = [r.stats for r in FORMS["="][1]]
        assert NONE not in classify(sql, SCHEMA, containers, "numpy").tolist()


def test_explain_mentions_each_leaf():
    sql = ("x > 5 AND s LIKE 'ab%' AND my_udf(y) AND flag IS NULL AND x IN (11, 12, 13) "
           "AND isnan(f) AND a < b AND CAST(x32 AS STRING) = '9'")
    text = pk.PruningPredicate(sql, SCHEMA).explain()
    assert isinstance(text, str)
    for token in ("x > 5", "'ab'", "my_udf", "flag", "11, 12, 13", "isnan(f)", "a < b", "x32"):
        assert token in text, (token, text)
    # The same from the builder.
    built = ((C("x") > 5) & C("s").like("ab%") & C("flag").is_null()
             & C("x").isin([11, 12, 13]) & pk.isnan(C("f")) & (C("a") < C("b")))
    text = pk.PruningPredicate(built, SCHEMA).explain()
    for token in ("x > 5", "'ab'", "flag", "11, 12, 13", "isnan(f)", "a < b"):
        assert token in text, (token, text)


@pytest.mark.parametrize("to", [pa.uint8(), pa.uint64(), pa.timestamp("s"),
                                pa.timestamp("ns", "UTC")])
def test_cast_to_a_type_spark_cannot_name_has_no_sql(to):
    # Rendering CAST(x AS UINT8) would read back as a syntax error, and CAST(x AS TIMESTAMP)
    # as a microsecond cast: sql() refuses; display() and explain() still show it.
    expr = pk.col("x").cast(to) > 1
    with pytest.raises(pk.UnsupportedError, match=str(to).split("[")[0]):
        expr.sql()
    assert f"AS {to}" in expr.display()
    assert f"AS {to}" in pk.PruningPredicate(expr, pa.schema([("x", pa.int64())])).explain()


@pytest.mark.parametrize(("source", "to"), [(pa.string(), pa.large_string()),
                                            (pa.large_string(), pa.string()),
                                            (pa.binary(), pa.large_binary())])
def test_cast_between_string_kinds_keeps_pruning(source, to):
    # One byte order: the cast is the column itself, so bounds still prune.
    stats = pa.StructArray.from_arrays([pa.array(["a", "m"], source), pa.array(["c", "z"], source),
                                        pa.array([0, 0], pa.int64())],
                                       ["min", "max", "null_count"])
    table = pa.table({"row_count": pa.array([5, 5], pa.int64()), "s": stats})
    pred = pk.PruningPredicate(pk.col("s").cast(to) > "k", pa.schema([("s", source)]))
    assert pred.classify(pk.Statistics.from_arrow(table)).tolist() == [pk.NONE_MATCH,
                                                                        pk.ALL_MATCH]


def test_nested_and_or_bind_as_their_sql_text():
    # And(And(p, q), r) is p AND q AND r: the same program, so the same statistics are read
    # (an opaque conjunct makes ALL_MATCH impossible, so a's exactness flags are not needed).
    from prunekit.expr.syntax import nodes as n
    from prunekit.expr.syntax.sql import parse

    schema = pa.schema([("a", pa.int8()), ("b", pa.int8()), ("c", pa.bool_())])
    inner = parse("-128 = b AND -128 = a AND 0 = CAST(c AS INT)")
    other = parse("-128 = a OR CAST(c AS INT) = a")
    for tree in (n.And((inner, other)), n.Or((n.Or((inner, other)), parse("b > 3")))):
        as_text = pk.PruningPredicate(tree.sql(), schema)
        as_tree = pk.PruningPredicate(tree, schema)
        assert as_tree.program == as_text.program, tree.sql()
        assert as_tree.required_columns == as_text.required_columns


def test_year_of_a_cast_to_date_reads_the_cast_once():
    # sqlglot wraps year()'s argument in a cast to DATE even where it is one already; read
    # twice, the column's cast was no longer a plain column and year() went unknown
    pred = pk.PruningPredicate("year(CAST(b AS DATE)) = 1970", {"b": pa.timestamp("s")})
    assert pred.expression.sql() == "year(CAST(b AS DATE)) = 1970"
    assert "not used for pruning" not in pred.explain()
