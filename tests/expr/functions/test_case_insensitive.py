"""``s ILIKE 'pattern'`` (``expr/binding/functions/case_insensitive.py``): hand-written edges
(the two characters beyond ASCII that lowercase to an ASCII letter, escapes, spellings cut
short) and random containers judged against rows: Spark's ``lower(s) LIKE lower(pattern)``,
computed here with Python's ``str.lower``, whose full case mapping is Java's (``İ`` becomes
``i`` and a combining dot; checked in Spark 4: ``'İb' ILIKE 'ib%'`` is FALSE, ``'İ' ILIKE
'i%'`` and ``'\u212ab' ILIKE 'kb%'`` TRUE)."""

import re

import pyarrow as pa
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import prunekit as pk
from prunekit.expr.binding.functions.case_insensitive import spellings
from tests.support.cases import container_of

S = {"s": pa.string()}


def ilike(value: str, pattern: str, escape: str = "\\") -> bool:
    """Spark's ILIKE on one row, independently of prunekit: a LIKE of the lowercased value."""
    out, i, pattern = [], 0, pattern.lower()
    while i < len(pattern):
        ch = pattern[i]
        if ch == escape and i + 1 < len(pattern):
            out.append(re.escape(pattern[i + 1]))
            i += 2
            continue
        out.append(".*" if ch == "%" else "." if ch == "_" else re.escape(ch))
        i += 1
    return re.fullmatch("".join(out), value.lower(), re.DOTALL) is not None


def outcome(sql: str, values: list) -> int:
    return int(pk.PruningPredicate(sql, S).classify(container_of(values, pa.string(), "s"))[0])


@pytest.mark.parametrize("sql, values, want", [
    ("s ILIKE 'ab%'", ["Ab", "Ab1", "Abz"], pk.ALL_MATCH),
    # every row matches, but the bounds span several spellings: min/max cannot tell
    ("s ILIKE 'ab%'", ["AB1", "Ab", "aB", "abz"], pk.MAYBE_MATCH),
    ("s ILIKE 'ab%'", ["AC", "AD"], pk.NONE_MATCH),
    ("s ILIKE 'AB%'", ["ab", "abc"], pk.ALL_MATCH),
    ("s NOT ILIKE 'ab%'", ["AB1", "AB"], pk.NONE_MATCH),
    ("s ILIKE 'ab%'", ["AB", None], pk.MAYBE_MATCH),  # NULL is not TRUE
    # In Spark İ lowercases to i and a combining dot: 'İb' does not match 'ib%' ...
    ("s ILIKE 'ib%'", ["\u0130b"], pk.MAYBE_MATCH),
    # ... but 'İ' matches 'i%', as does the Kelvin sign 'k%'
    ("s ILIKE 'i%'", ["\u0130"], pk.MAYBE_MATCH),
    ("s ILIKE 'kb%'", ["\u212ab", "\u212abc"], pk.ALL_MATCH),
    ("s ILIKE 'ab_'", ["AB1", "abc"], pk.MAYBE_MATCH),  # implied by the prefix, not exact
    ("s ILIKE 'ab_'", ["AC1", "AD"], pk.NONE_MATCH),
    ("s ILIKE 'ab'", ["AB", "ab"], pk.MAYBE_MATCH),  # an equality: read as its prefix only
    ("s ILIKE 'ab'", ["abc", "b"], pk.MAYBE_MATCH),
    ("s ILIKE 'a!%b%' ESCAPE '!'", ["A%B1"], pk.ALL_MATCH),
    ("s ILIKE 'a!%b%' ESCAPE '!'", ["AB1"], pk.NONE_MATCH),
    ("s ILIKE '%ab'", ["zzz"], pk.MAYBE_MATCH),  # no prefix: unknown
    ("s ILIKE 'é%'", ["x"], pk.MAYBE_MATCH),  # beyond ASCII: unknown
])
def test_hand_written_edges(sql, values, want):
    assert outcome(sql, values) == want, pk.PruningPredicate(sql, S).explain()


def test_a_long_prefix_is_cut_short_and_still_implied():
    words, whole = spellings("abcdefgh")
    assert not whole and len(words) == 64 and all(len(w) == 6 for w in words)
    assert outcome("s ILIKE 'abcdefgh%'", ["ABCDEFzz"]) == pk.MAYBE_MATCH
    assert outcome("s ILIKE 'abcdefgh%'", ["ABCDEGzz", "ABCDEZ"]) == pk.NONE_MATCH


def test_an_escape_of_more_than_one_character_is_an_error():
    with pytest.raises(pk.SqlSyntaxError, match="ILIKE escape must be one character"):
        pk.PruningPredicate("s ILIKE 'a%' ESCAPE 'ab'", S)


def test_a_binary_column_or_an_expression_is_unknown():
    pred = pk.PruningPredicate("b ILIKE 'ab%'", {"b": pa.binary()})
    assert "not used for pruning" in pred.explain()
    assert "not used for pruning" in pk.PruningPredicate("concat(s, 'x') ILIKE 'ab%'",
                                                         S).explain()


LETTERS = "aAbBkK_%!\u0130\u212a\u0307z"
words = st.text(LETTERS, max_size=4)


@settings(max_examples=500, deadline=None)
@given(pattern=st.text(LETTERS[:-3] + "z", min_size=1, max_size=4),
       values=st.lists(st.none() | words, min_size=1, max_size=5),
       negate=st.booleans(), escape=st.booleans())
def test_random_containers_against_rows(pattern, values, negate, escape):
    if pattern.count("!") and not escape:
        pattern = pattern.replace("!", "z")
    if escape and pattern.endswith("!") and not pattern.endswith("!!"):
        return  # a pattern ending in its escape character is an error in Spark
    clause = " ESCAPE '!'" if escape else ""
    sql = f"s {'NOT ' if negate else ''}ILIKE '{pattern}'{clause}"
    rows = [None if v is None else ilike(v, pattern, "!" if escape else "\\") != negate
            for v in values]
    got = outcome(sql, values)
    if got == pk.NONE_MATCH:
        assert True not in rows, (sql, values, rows)
    if got == pk.ALL_MATCH:
        assert all(r is True for r in rows), (sql, values, rows)
