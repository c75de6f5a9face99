"""``coalesce(x, c)`` and ``CASE WHEN`` (Spark's ``if``) in predicates
(``expr/binding/functions/branches.py``): hand-written edges (NULL rows and NULL conditions, no
ELSE, NaN, branches of different types, functions inside and around coalesce), and CASE parsed into
nested ``if`` that reads back the same.

Each case is one container of rows: the outcome must be sound for every row the reference
evaluates (``tests/support/reference.py``, Spark's semantics) and equal the expected one.
Dates are days since 1970-01-01.
"""

from __future__ import annotations

import math

import pyarrow as pa
import pytest

import prunekit as pk
from tests.support import strategies as strat
from tests.support.cases import BACKENDS
from tests.support.functions import check, day

NONE, MAYBE, ALL = pk.NONE_MATCH, pk.MAYBE_MATCH, pk.ALL_MATCH
NAN = math.nan
DATE, F64, I64 = pa.date32(), pa.float64(), pa.int64()

# (column type, rows of one container, predicate on column x, expected outcome, why)
CASES = [
    # coalesce(x, c): x, and c where x is NULL
    (I64, [None, None], "coalesce(x, 0) = 0", ALL, "NULL becomes 0"),
    (I64, [5, None], "coalesce(x, 0) > 1", MAYBE, "the NULL row is 0"),
    (I64, [5, 6], "coalesce(x, 0) > 1", ALL, "no NULL"),
    (I64, [None], "NOT coalesce(x, 0) = 5", ALL, "0 <> 5 is TRUE, not NULL"),
    (I64, [None, None], "coalesce(x, 0) IS NULL", NONE, "never NULL"),
    (I64, [1, 2], "coalesce(x, 7) = 7", NONE, "no NULL, no 7"),
    (F64, [NAN, None], "coalesce(x, 0) > 100", MAYBE, "NaN is greatest"),
    (DATE, [None], "coalesce(x, DATE '2024-01-01') >= TIMESTAMP '2024-01-01 00:00:00'", ALL,
     "a DATE constant compared as its midnight"),
    (DATE, [day(2024, 5, 1), None], "year(coalesce(x, DATE '2024-01-01')) = 2024", MAYBE,
     "a function of coalesce is not on the whitelist"),
    (DATE, [day(2024, 5, 1), None], "coalesce(year(x), 2024) = 2024", ALL,
     "coalesce of a function"),
    # CASE WHEN: the first branch whose condition is TRUE
    (I64, [1, 3], "CASE WHEN x > 5 THEN 1 ELSE 0 END = 1", NONE, "no row above 5"),
    (I64, [6, 9], "CASE WHEN x > 5 THEN 1 ELSE 0 END = 1", ALL, "every row above 5"),
    (I64, [None], "CASE WHEN x > 5 THEN 1 ELSE 0 END = 0", ALL, "a NULL condition is not TRUE"),
    (I64, [6, 9], "CASE WHEN x > 8 THEN 'big' WHEN x > 5 THEN 'mid' END = 'mid'", MAYBE,
     "9 is big"),
    (I64, [6, 7], "CASE WHEN x > 8 THEN 'big' WHEN x > 5 THEN 'mid' END = 'mid'", ALL,
     "all mid"),
    (I64, [1, 2], "CASE WHEN x > 8 THEN 'big' WHEN x > 5 THEN 'mid' END = 'mid'", NONE,
     "no ELSE: NULL"),
    (I64, [1, 2], "CASE WHEN x > 5 THEN x ELSE 10 END < 5", NONE, "ELSE 10, and x > 5"),
    (I64, [6, 7], "CASE WHEN x > 5 THEN x ELSE 10 END < 8", ALL, "x itself, below 8"),
    (I64, [1, 1], "CASE x WHEN 1 THEN true ELSE false END", ALL, "simple CASE"),
    (I64, [4, 5], "if(x > 2, x > 3, false)", ALL, "if() as a predicate"),
    (I64, [2, 5], "if(x > 2, x > 3, false)", MAYBE, "2 takes the FALSE branch"),
    (I64, [2, 5], "NOT CASE WHEN x > 2 THEN NULL ELSE false END", MAYBE, "NULL stays NULL"),
    (I64, [1, 2], "CASE WHEN x > 5 THEN 1 ELSE 0.5 END = 0.5", ALL,
     "INT and DECIMAL(1,1) branches are DECIMAL(11,1) in Spark: 0.5 exactly"),
    (I64, [1, 2], "CASE WHEN x > 5 THEN x ELSE '2' END = 2", MAYBE,
     "legacy Spark makes BIGINT and STRING branches a STRING, ANSI a BIGINT: unknown"),
]


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize(("t", "rows", "sql", "expected", "why"), CASES,
                         ids=[f"{c[2]} {c[1]}" for c in CASES])
def test_function_edges(t, rows, sql, expected, why, backend):
    check({"x": (t, rows)}, sql, expected, why, backend)


def test_case_parses_into_nested_if_and_round_trips():
    pred = pk.PruningPredicate("CASE x WHEN 1 THEN 'a' WHEN 2 THEN 'b' END = 'b'", {"x": I64})
    text = pred.expression.sql()
    assert text.startswith("if(x = 1, 'a', if(x = 2, 'b', NULL))")
    again = pk.PruningPredicate(text, {"x": I64})
    assert again.expression.sql() == text
    stats = strat.exact_example({"x": (I64, [[2, 2], [1, 3]])}, pred.expression).statistics()
    assert again.classify(stats).tolist() == pred.classify(stats).tolist() == [ALL, MAYBE]
