"""LIKE beyond a literal prefix (expr/binding/likes.py, leaves.pattern, kernels/patterns.py): a
container's one value tested against the whole pattern, the floor every match reaches, and
DataFusion's own LIKE pruning cases, which prunekit must prune at least as well."""

from __future__ import annotations

import re

import numpy as np
import pyarrow as pa
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import prunekit as pk
from prunekit.errors import SqlSyntaxError
from prunekit.expr.binding import likes
from prunekit.kernels.patterns import like_slot
from tests.support.cases import ALL, BACKENDS, MAYBE, NONE, check, row
from tests.support.reference import like_regex

S = pa.schema([("s", pa.string())])
B = pa.schema([("s", pa.binary())])
E = "\U0001F600"  # four UTF-8 bytes, one character


def one(v, pred, expected, why, nulls=0, rows=4, exact=True):
    """A container whose every non-NULL value is ``v`` (min = max)."""
    extra = {"min_exact": exact, "max_exact": exact}  # a table's missing entries are inexact
    return row(v, v, nulls, rows, pred, expected, why, col="s", **extra)


ONE_VALUE = [
    one("zz", "s LIKE 'zz_%'", NONE, "'zz' has two characters; the pattern needs three"),
    one("zz", "s NOT LIKE 'zz_%'", ALL, "no row matches and none is NULL"),
    one("zz", "s NOT LIKE 'zz_%'", MAYBE, "NULL rows are neither TRUE nor FALSE", nulls=1),
    one("zz", "s LIKE 'zz_%'", NONE, "inexact bounds still bound: max 'zz' < 'zz\\x00', "
        "the least match", exact=False),
    one("zz", "s NOT LIKE 'zz_%'", ALL, "inexact, yet every value is at most 'zz'",
        exact=False),
    one("zz", "s NOT LIKE 'zz%'", NONE, "inexact, yet [zz, zz] lies inside the prefix range",
        exact=False),
    one("zza", "s LIKE 'zz_%'", ALL, "the one value matches"),
    one("zza", "s LIKE 'zz_%'", MAYBE, "inexact: 'zza' may stand for other values",
        exact=False),
    one("zza", "s NOT LIKE 'zz_%'", NONE, "the one value matches"),
    one("axb", "s LIKE 'a%b'", ALL, "'%' inside the pattern"),
    one("axc", "s LIKE 'a%b'", NONE, "the one value does not end with b"),
    one("axc", "s NOT LIKE 'a%b'", ALL, "the one value does not match"),
    one("", "s LIKE ''", ALL, "the empty pattern matches only ''"),
    one("a", "s LIKE ''", NONE, "the empty pattern matches only ''"),
    one("a", "s LIKE '%'", ALL, "'%' matches every non-NULL value"),
    one("a", "s LIKE '%'", MAYBE, "'%' is NULL on NULL rows", nulls=1),
    one("", "s LIKE '_'", NONE, "'_' needs one character; max '' < '\\x00'", exact=False),
    one("a", "s LIKE '_'", ALL, "one character"),
    one("é", "s LIKE '_'", ALL, "'_' is one character, here two bytes"),
    one(E, "s LIKE '_'", ALL, "'_' is one code point, here four bytes"),
    one("ab", "s LIKE '_'", NONE, "two characters"),
    one("ab", "s LIKE '_'", MAYBE, "inexact: the values may be one character", exact=False),
    one("a", "s LIKE '_a'", NONE, "'_' at the start: 'a' lacks a character before the a"),
    one("ba", "s LIKE '_a'", ALL, "'_' at the start"),
    one(E + "x", f"s LIKE '{E}_'", ALL, "a multibyte literal, then one character"),
    one(E, f"s LIKE '{E}_'", NONE, "a multibyte literal with nothing after it"),
    one("éé", "s LIKE 'é_'", ALL, "a two-byte character matched by '_'"),
    one("a_b", "s LIKE 'a\\\\_%'", ALL, "an escaped '_' is literal: a plain prefix 'a_'"),
    one("ab", "s LIKE 'a\\\\_%'", NONE, "an escaped '_' is literal"),
    one("a_x", "s LIKE 'a\\\\__'", ALL, "an escaped '_' then a wildcard"),
    one("abx", "s LIKE 'a\\\\__'", NONE, "an escaped '_' then a wildcard"),
    one("a%b", "s LIKE 'a!%b' ESCAPE '!'", ALL, "an escaped '%': plain equality"),
    one("a%xb", "s LIKE 'a!%_b' ESCAPE '!'", ALL, "an escaped '%' then a wildcard"),
    one("axb", "s LIKE 'a._'", NONE, "'.' is literal, not a regular expression"),
    one("a.bc", "s LIKE 'a._c'", ALL, "'.' is literal, not a regular expression"),
    one("a(*", "s LIKE 'a(_'", ALL, "regular-expression syntax in the pattern is literal"),
    one("a\nb", "s LIKE 'a_b'", ALL, "'_' matches a line break"),
    one("a\\b", "s LIKE 'a\\\\\\\\_'", ALL, "an escaped escape character"),
    one("a\ufffd", "s LIKE 'a\ufffd'", ALL, "U+FFFD as a character of a valid value"),
    row(None, None, 4, 4, "s LIKE 'zz_%'", NONE, "every row NULL", col="s"),
    row(None, None, 4, 4, "s NOT LIKE 'zz_%'", NONE, "every row NULL", col="s"),
    row(None, None, None, 4, "s LIKE 'zz_%'", MAYBE, "nothing known", col="s"),
    row(None, None, None, 4, "s NOT LIKE 'zz_%'", MAYBE, "nothing known", col="s"),
    row("zz", None, 0, 4, "s LIKE 'zz_%'", MAYBE, "max unknown: no single value", col="s"),
    row("a", "b", 0, 4, "s LIKE 'a_'", MAYBE, "a range: FALSE and TRUE possible", col="s"),
    row("a", "az", 0, 4, "s LIKE 'b_'", NONE, "the prefix b lies above the range", col="s"),
    row("b", "c", 0, 4, "s LIKE 'ab_c%'", NONE, "the prefix ab lies below the range",
        col="s"),
    row("a", "ab", 0, 4, "s LIKE 'ab_c%'", NONE, "every match is at least 'ab\\x00c' > max",
        col="s"),
    row("a", "ab\x00c", 0, 4, "s LIKE 'ab_c%'", MAYBE, "max is the least match", col="s"),
]


@pytest.mark.parametrize("backend", BACKENDS)
def test_one_value_against_the_whole_pattern(backend):
    check(ONE_VALUE, S, backend)


BINARY = [
    one(b"ab", "s LIKE 'a_'", ALL, "binary is read as its UTF-8 text"),
    one(b"\xff", "s LIKE '_'", MAYBE, "Spark reads an invalid byte as one character (U+FFFD): "
        "not tested, never ruled out"),
    one(b"\xff", "s NOT LIKE '_'", MAYBE, "the same, negated"),
    one(b"a\xff", "s LIKE 'a\ufffd'", MAYBE, "a literal U+FFFD may stand for an invalid byte"),
    one(b"a\xff", "s LIKE 'a\ufffd%'", MAYBE, "a literal U+FFFD may stand for an invalid byte"),
    one(b"\xffa", "s LIKE '_a'", MAYBE, "an invalid byte is one character: TRUE in Spark"),
    one(b"\x00", "s LIKE '_'", ALL, "NUL is a character"),
]


@pytest.mark.parametrize("backend", BACKENDS)
def test_binary_columns(backend):
    check(BINARY, B, backend)


# DataFusion's LIKE pruning tests (datafusion/pruning/src/pruning_predicate.rs, utf8_setup,
# prune_utf8_like_one/many, prune_utf8_not_like_one/many): ten containers [min, max] with null
# and row counts unknown; True = DataFusion keeps, False = it prunes.
M = "\U0010ffff"
DF_MINS = ["A", "A", "N", "M", None, "A", "", "", "AB", "A" + M + M]
DF_MAXS = ["Z", "L", "Z", "M", None, None, "A", "", "A" + M + M + M, "A" + M + M]
K, P = True, False
DF_CASES = [  # (predicate, DataFusion keeps, prunekit's outcomes with exact bounds)
    # Null counts are unknown, so never ALL_MATCH. prunekit prunes more: ["", "A"] for 'A_'
    # (every match is at least 'A\x00' > max), and where min = max, exact, is one value that
    # the whole pattern rules out ('M' for '%A%', 'A' + two U+10FFFF for 'A_': 3 characters).
    ("s1 LIKE 'A_'", [K, K, P, P, K, K, K, P, K, K], [1, 1, 0, 0, 1, 1, 0, 0, 1, 0]),
    ("s1 LIKE '_A_'", [K] * 10, [1, 1, 1, 0, 1, 1, 1, 0, 1, 0]),
    ("s1 LIKE '_'", [K] * 10, [1, 1, 1, 1, 1, 1, 1, 0, 1, 0]),
    ("s1 LIKE ''", [P, P, P, P, K, P, K, K, P, P], [0, 0, 0, 0, 1, 0, 1, 1, 0, 0]),
    ("s1 LIKE 'A%'", [K, K, P, P, K, K, K, P, K, K], [1, 1, 0, 0, 1, 1, 1, 0, 1, 1]),
    ("s1 LIKE '%A%'", [K] * 10, [1, 1, 1, 0, 1, 1, 1, 0, 1, 1]),
    ("s1 LIKE '%'", [K] * 10, [1] * 10),
    (f"s1 NOT LIKE 'A{M}_'", [K] * 10, [1] * 9 + [0]),
    (f"s1 NOT LIKE 'A{M}%'", [K] * 9 + [P], [1] * 9 + [0]),
    (f"s1 NOT LIKE 'A{M}%{M}'", [K] * 10, [1] * 9 + [0]),
    (f"s1 NOT LIKE 'A{M}%{M}_'", [K] * 10, [1] * 10),
]


def _df_stats(mins, maxs, exact=True):
    n = len(mins)
    arrays = [pa.array(mins, pa.string()), pa.array(maxs, pa.string()), pa.nulls(n, pa.int64())]
    names = ["min", "max", "null_count"]
    if not exact:
        arrays += [pa.array([False] * n), pa.array([False] * n)]
        names += ["min_exact", "max_exact"]
    return pk.Statistics.from_arrow(pa.table({"s1": pa.StructArray.from_arrays(arrays, names)}))


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize(("sql", "df_keeps", "expected"), DF_CASES,
                         ids=[c[0].encode("ascii", "backslashreplace").decode() for c in DF_CASES])
def test_datafusion_like_cases(sql, df_keeps, expected, backend):
    schema = pa.schema([("s1", pa.string())])
    pred = pk.PruningPredicate(sql, schema)
    got = pred.classify(_df_stats(DF_MINS, DF_MAXS), backend=backend).tolist()
    assert got == expected
    # At least as strong as DataFusion: every container it prunes, prunekit prunes. Its
    # statistics may be truncated, so also with every bound inexact.
    inexact = pred.classify(_df_stats(DF_MINS, DF_MAXS, exact=False), backend=backend).tolist()
    for i, keep in enumerate(df_keeps):
        if not keep:
            assert got[i] == NONE and inexact[i] == NONE, (i, got, inexact)


@pytest.mark.parametrize("backend", BACKENDS)
def test_datafusion_not_like_escaped_percent(backend):
    # s1 NOT LIKE 'A\%%' over [A%a, A%c] (every value starts with 'A%': pruned) and [A, A].
    pred = pk.PruningPredicate("s1 NOT LIKE 'A\\\\%%'", pa.schema([("s1", pa.string())]))
    stats = _df_stats(["A%a", "A"], ["A%c", "A"])
    assert pred.classify(stats, backend=backend).tolist() == [NONE, MAYBE]


# ---- the pattern's facts ------------------------------------------------------------------
def test_shapes():
    def facts(pattern):
        f = likes.shape(pattern, "\\")
        return f.kind, f.prefix, f.floor

    assert likes.shape("", "\\").kind == "equal"
    assert facts("%") == ("prefix", "", b"")
    assert facts("_") == ("pattern", "", b"\x00")
    assert facts("é_x%y") == ("pattern", "é", "é".encode() + b"\x00x")
    assert facts("a\ufffdb%") == ("pattern", "a", b"a\x00b")
    assert likes.shape("a\ufffd", "\\").kind == "pattern"  # never an equality
    with pytest.raises(SqlSyntaxError, match="ends with the escape"):
        likes.shape("ab\\", "\\")


TEXT = st.text(st.sampled_from(["a", "b", "_", "%", "\\", ".", "*", "\n", "é", E, "\x00", "$"]),
               max_size=6)


@settings(max_examples=300, deadline=None)
@given(TEXT, TEXT)
def test_regex_and_floor_agree_with_the_reference(value, pattern):
    """The RE2 expression matches exactly what the reference's LIKE matches, and every match
    is at least the floor and starts with the prefix, in UTF-8 byte order."""
    try:
        want = like_regex(pattern, "\\").fullmatch(value) is not None
    except ValueError:
        with pytest.raises(SqlSyntaxError):
            likes.shape(pattern, "\\")
        return
    form = likes.shape(pattern, "\\")
    s = like_slot(form.regex, {"min": pa.array([value]), "max": pa.array([value])})
    assert s.values.tolist() == [int(want)] and s.valid_mask(1).tolist() == [True]
    if want:
        raw = value.encode()
        assert raw >= form.floor and raw.startswith(form.prefix.encode())


def test_like_slot_edges():
    regex = likes.shape("a_", "\\").regex
    # Only where min = max is anything tested; NULL and invalid UTF-8 are unknown.
    s = like_slot(regex, {"min": pa.array(["ab", "ab", None, b"a\xff"], pa.binary()),
                          "max": pa.array(["ab", "ac", "ab", b"a\xff"], pa.binary())})
    assert s.values.tolist()[:1] == [1] and s.valid_mask(4).tolist() == [True, False, False,
                                                                         False]
    assert like_slot(regex, {}).values is None
    assert like_slot(regex, {"min": pa.nulls(3, pa.string())}).values is None
    sliced = pa.array(["x", "ab", "zz"]).slice(1)
    assert like_slot(regex, {"min": sliced, "max": sliced}).values.tolist() == [1, 0]
    view = pa.array(["ab", "a"], pa.string_view())
    assert like_slot(regex, {"min": view}).values.tolist() == [1, 0]


def test_required_columns_and_explain():
    pred = pk.PruningPredicate("s LIKE 'zz_%'", S)
    assert {"min", "max", "min_exact", "max_exact"} <= set(pred.required_columns["s"])
    text = pred.explain()
    assert "s.min LIKE 'zz_%'" in text and "s.min tested" in text


def test_spark_sql_rendering_leaves_the_pattern_untested():
    # The program as Spark SQL (engine="sql") does not test the pattern: it reads as unknown,
    # which is sound; the floor and prefix still prune.
    from prunekit.spark_glue import to_sql

    pred = pk.PruningPredicate("s LIKE 'zz_%'", S)
    schema = pa.schema([("s", pa.struct([("min", pa.string()), ("max", pa.string()),
                                          ("null_count", pa.int64())]))])
    text = to_sql.to_spark_sql(pred, schema)
    assert "`like`" not in text and "X'7A7A00'" in text


def test_user_text_stays_data():
    # The pattern reaches RE2 as code points only: no character of it is syntax.
    form = likes.shape("a)|(.*", "\\")
    assert re.fullmatch(r"\(\?s\)\\A(\\x\{[0-9a-f]+\}|\.|\.\*)*\\z", form.regex)
    s = like_slot(form.regex, {"min": pa.array(["a)|(.*", "a)|(xyz"])})
    assert s.values.tolist() == [1, 0]
    assert np.array_equal(s.valid_mask(2), [True, True])


ALPHABET = st.sampled_from(["a", "b", "z", "_", "%", "é", E, "\x00", "\U0010ffff", "\ufffd"])
VALUES = st.lists(st.one_of(st.none(), st.text(ALPHABET, max_size=4)), min_size=1, max_size=4)


def _cut_max(v: bytes, k: int) -> bytes | None:
    """A truncated max: the first k bytes' successor (a writer's inexact upper bound)."""
    from prunekit.expr.binding.likes import prefix_successor
    return v if len(v) <= k else prefix_successor(v[:k])


@settings(max_examples=1500, deadline=None)
@given(VALUES, st.data(), st.booleans(), st.integers(1, 6), st.booleans())
def test_like_outcomes_are_sound(values, data, exact, cut, negate):
    """Random containers (exact bounds, or bounds truncated to ``cut`` bytes) and patterns
    (the property grammar's, built from a value, or any text): never NONE_MATCH with a TRUE
    row, never ALL_MATCH with a row not TRUE."""
    from tests.support import strategies
    if data.draw(st.booleans()):
        v = data.draw(st.sampled_from([v for v in values if v is not None] or [""]))
        pattern, escape = strategies._like_pattern(data.draw, v)
    else:
        pattern, escape = data.draw(TEXT), data.draw(st.sampled_from(["\\", "!"]))
    try:
        rx = like_regex(pattern, escape)
    except ValueError:
        return
    present = [v.encode() for v in values if v is not None]
    lo = min(present) if present else None
    hi = max(present) if present else None
    stats = {"min": lo, "max": hi, "null_count": values.count(None)}
    if not exact and present:
        stats.update(min=lo[:cut], max=_cut_max(hi, cut), min_exact=lo[:cut] == lo,
                     max_exact=_cut_max(hi, cut) == hi)
    truths = [None if v is None else (rx.fullmatch(v) is not None) != negate for v in values]
    pred = pk.col("s").like(pattern, escape)
    pred = ~pred if negate else pred
    from tests.support.cases import classify
    out = classify(pred, B, [{"row_count": len(values), "s": stats}], "numpy")[0]
    assert not (out == NONE and True in truths), (pred, values, stats, out)
    assert not (out == ALL and any(t is not True for t in truths)), (pred, values, stats, out)
