"""``left(s, k)`` and ``substring(s, 1, k)`` in predicates (``expr/binding/functions/prefixes.py``):
hand-written edges (strings shorter than k, characters of several bytes, literals longer than
k, positions Spark reads as 1, k <= 0), and the string functions that are not used: ``upper``
and ``lower`` (not monotone in byte order) and calls whose arguments no rule takes, with the
reason explain() gives.

Each case is one container of rows: the outcome must be sound for every row the reference
evaluates (``tests/support/reference.py``, Spark's semantics) and equal the expected one.
"""

from __future__ import annotations

import pyarrow as pa
import pytest

import prunekit as pk
from tests.support.cases import BACKENDS
from tests.support.functions import check

NONE, MAYBE, ALL = pk.NONE_MATCH, pk.MAYBE_MATCH, pk.ALL_MATCH
DATE, I64, STR = pa.date32(), pa.int64(), pa.string()

# (column type, rows of one container, predicate on column x, expected outcome, why)
CASES = [
    # left / substring(s, 1, k): prefixes, in characters
    (STR, ["abc", "abd"], "left(x, 2) = 'ab'", ALL, "both start with ab"),
    (STR, ["abc", "acd"], "left(x, 2) = 'ab'", MAYBE, "acd does not"),
    (STR, ["b", "bz"], "left(x, 2) = 'ab'", NONE, "above every ab..."),
    (STR, ["ab", "abz"], "left(x, 2) > 'ab'", NONE, "every 2-character prefix is ab"),
    (STR, ["a"], "left(x, 2) = 'a'", ALL, "a string shorter than k is its own prefix"),
    (STR, ["éa", "éz"], "left(x, 1) = 'é'", ALL, "one character, two bytes"),
    (STR, ["abc"], "left(x, 2) = 'abc'", NONE, "2 characters never equal 3"),
    (STR, ["ab"], "left(x, 1) >= 'ab'", NONE, "'a' < 'ab' although 'ab' >= 'ab'"),
    (STR, ["ab", "b"], "left(x, 1) >= 'ab'", MAYBE, "'b' >= 'ab'"),
    (STR, ["ab", "az"], "left(x, 1) < 'ab'", ALL, "'a' < 'ab'"),
    (STR, ["abc", "abz"], "substring(x, 1, 2) < 'abc'", ALL, "ab < abc"),
    (STR, ["abc", "abz"], "substring(x, 0, 2) = 'ab'", ALL, "Spark reads position 0 as 1"),
    (STR, ["x"], "left(x, 0) = ''", ALL, "k <= 0 gives ''"),
    (STR, ["abc"], "substring(x, 2, 2) = 'zz'", MAYBE, "not a prefix: unknown"),
    # not on the whitelist
    (STR, ["A"], "upper(x) = 'B'", MAYBE, "upper is not monotone"),
    (STR, ["a"], "lower(x) = 'b'", MAYBE, "lower is not monotone"),
]


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize(("t", "rows", "sql", "expected", "why"), CASES,
                         ids=[f"{c[2]} {c[1]}" for c in CASES])
def test_function_edges(t, rows, sql, expected, why, backend):
    check({"x": (t, rows)}, sql, expected, why, backend)


@pytest.mark.parametrize(("sql", "reason"), [
    ("upper(s) > 'A'", "upper is not monotone"),
    ("lower(s) = 'a'", "lower is not monotone"),
    ("floor(x, 2) > 1", "not used for pruning"),
    ("left(s, x) = 'a'", "these arguments are not used for pruning"),
    ("my_udf(x) > 1", "not on the whitelist"),
])
def test_explain_says_why_a_function_is_unknown(sql, reason):
    # The reasons are the registry's (registry.why_not), for string functions and others.
    pred = pk.PruningPredicate(sql, {"x": I64, "s": STR, "d": DATE})
    assert reason in pred.explain()
    assert pred.always_true
