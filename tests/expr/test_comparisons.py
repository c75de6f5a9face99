"""Spark's two readings of a comparison: ANSI mode (the default since Spark 4) and legacy mode.

They differ for an integer literal against a FLOAT column (ANSI: DOUBLE, legacy: FLOAT), an
integer column against a FLOAT column, and a string literal against a numeric column (legacy
casts the string to the column's type, truncating, and gives NULL beyond its range). prunekit
does not know which mode the query will run in, so its answer must be sound under both
(``bound.BEither``). Each row below was run in Spark 4.3 with ``spark.sql.ansi.enabled`` true
and false (``ERROR``: the query fails under ANSI, so no outcome can be wrong there).
"""

from __future__ import annotations

import numpy as np
import pyarrow as pa
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import prunekit as pk
from prunekit.expr.domains import least_integer_rounding_to, round_to_float32
from tests.support.cases import BACKENDS

ERROR = "error"
F32_2_24 = 16777216.0  # 2**24: the float32 neighbours are 2**24 - 1 and 2**24 + 2

# (column type, the one value every row holds, predicate, ANSI value, legacy value): prunekit
# must give the tightest outcome sound under every reading that runs (under ANSI an error is no
# answer). tests/expr/test_spark_typing.py runs such predicates in Spark itself, over every type.
SPARK_4_3 = [
    (pa.float32(), F32_2_24, "c = 16777217", False, True),
    (pa.float32(), F32_2_24, "c < 16777217", True, False),
    (pa.float32(), F32_2_24, "c <= 16777217", True, True),
    (pa.float32(), F32_2_24, "c = 16777217.0", False, False),  # a decimal: DOUBLE in both
    (pa.float32(), F32_2_24, "c = 1.6777217E7", False, False),  # a double
    (pa.float32(), F32_2_24, "c = '16777217'", False, True),
    (pa.float32(), F32_2_24, "c IN (16777217, 2)", False, True),
    # The list's common type is DOUBLE in both modes (a DECIMAL element): 16777217 stays.
    (pa.float32(), F32_2_24, "c IN (16777217, 1.5)", False, False),
    (pa.float32(), F32_2_24, "c <> 16777217", True, False),
    (pa.int32(), 1, "c = '1.9'", ERROR, True),
    (pa.int32(), -1, "c = '-1.9'", ERROR, True),
    (pa.int32(), 1, "c < '1.5'", ERROR, False),
    (pa.int32(), 1, "c = ' 1 '", True, True),
    (pa.int32(), 1, "c = '3000000001'", False, None),
    (pa.int8(), 100, "c < '300'", True, None),
    (pa.int8(), 100, "c = '300'", False, None),
    (pa.int8(), 100, "c < 300", True, True),
    # Legacy mode compares a list of strings and numbers as strings: '1.5' is no integer's text.
    (pa.int32(), 1, "c IN ('1.5', 2)", ERROR, False),
    (pa.int64(), 16777217, "c = CAST(16777216 AS FLOAT)", False, True),
    (pa.decimal128(5, 2), "1.25", "c = '1.245'", False, False),
    (pa.decimal128(5, 2), "1.25", "c = '1.25'", True, True),
    (pa.float64(), 1.5, "c = '1.5'", True, True),
    # An IN list is compared in one common type of the column and every element: a DOUBLE
    # element makes it DOUBLE in both modes (so 2**53 + 1 rounds to 2**53 and matches), a FLOAT
    # element with an integer column makes it DOUBLE under ANSI and FLOAT under legacy.
    (pa.int64(), 2**53, "c IN (9007199254740993, 1.0E0)", True, True),
    (pa.int64(), 2**53, "c IN (9007199254740993, 1.0E0, 2.5)", True, True),
    (pa.int64(), 2**53, "c IN (9007199254740993, 2.5)", False, False),
    (pa.decimal128(20, 0), str(2**53), "c IN (9007199254740993, 1.0E0)", True, True),
    (pa.int32(), 16777217, "c IN (CAST(16777216 AS FLOAT), 3)", False, True),
    (pa.int32(), 16777217, "c IN (16777216.0, 3)", False, False),
    (pa.int32(), 2, "c IN (2.5, 1E0)", False, False),
    # A cast to a float type compares in that type even where every integer is representable:
    # the DECIMAL literal rounds to DOUBLE -128.0 (found by the value-set property test).
    (pa.int8(), -128, "CAST(c AS DOUBLE) = -127.999999999999999999999999999999", True, True),
    (pa.int8(), -128, "CAST(c AS DOUBLE) IN (-127.999999999999999999999999999999, 50)",
     True, True),
    (pa.int8(), -128, "CAST(c AS FLOAT) = -127.999999999999999999999999999999", True, True),
    # A computed integer (a cast, a sum) against a FLOAT: legacy mode rounds it to FLOAT too
    # (16777217 to 2**24), read as a threshold on the integer.
    (pa.decimal128(18, 0), "16777217", "CAST(c AS BIGINT) < CAST(16777216 AS FLOAT)",
     False, False),
    (pa.decimal128(18, 0), "16777217", "CAST(c AS BIGINT) <= CAST(16777216 AS FLOAT)",
     False, True),
    (pa.decimal128(18, 0), "16777217", "CAST(c AS BIGINT) = CAST(16777216 AS FLOAT)",
     False, True),
    (pa.int64(), 16777216, "c + 1 >= CAST(16777216 AS FLOAT)", True, True),
    (pa.int64(), 16777216, "c + 1 > CAST(16777216 AS FLOAT)", True, False),
]


def _statistics(t: pa.DataType, value: object) -> pk.Statistics:
    if pa.types.is_decimal(t):
        from decimal import Decimal

        value = Decimal(value)
    bound = pa.array([value], t)
    counts = pa.array([0], pa.int64())
    fields = [bound, bound, counts] + ([counts] if pa.types.is_floating(t) else [])
    names = ["min", "max", "null_count"] + (["nan_count"] if pa.types.is_floating(t) else [])
    return pk.Statistics.from_arrow(pa.table({"row_count": pa.array([10], pa.int64()),
                                              "c": pa.StructArray.from_arrays(fields, names)}))


def _tightest_sound(readings: list) -> int:
    """The outcome sound under every reading that can run, and no weaker."""
    ran = [r for r in readings if r is not ERROR]
    if all(r is True for r in ran):
        return pk.ALL_MATCH
    if all(r is not True for r in ran):
        return pk.NONE_MATCH
    return pk.MAYBE_MATCH


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("case", SPARK_4_3, ids=[c[2] for c in SPARK_4_3])
def test_sound_under_both_spark_modes(case, backend):
    t, value, sql, ansi, legacy = case
    pred = pk.PruningPredicate(sql, pa.schema([("c", t)]))
    got = int(pred.classify(_statistics(t, value), backend=backend)[0])
    ran = [r for r in (ansi, legacy) if r is not ERROR]
    assert got != pk.NONE_MATCH or True not in ran, "unsound: a reading is TRUE"
    assert got != pk.ALL_MATCH or all(r is True for r in ran), "unsound: a reading is not TRUE"
    assert got == _tightest_sound([ansi, legacy]), pred.explain()


def test_integer_column_against_float_column_rounds_in_legacy_mode():
    # Spark 4.3: `l = f` with l = 16777217 (BIGINT), f = 16777216 (FLOAT) is FALSE under ANSI
    # (DOUBLE) and TRUE under legacy mode (l rounds to FLOAT).
    schema = pa.schema([("l", pa.int64()), ("f", pa.float32())])

    def one(v, t):
        b = pa.array([v], t)
        z = pa.array([0], pa.int64())
        return pa.StructArray.from_arrays([b, b, z, z], ["min", "max", "null_count", "nan_count"])

    stats = pk.Statistics.from_arrow(pa.table({"row_count": [5], "l": one(16777217, pa.int64()),
                                               "f": one(F32_2_24, pa.float32())}))
    assert pk.PruningPredicate("l = f", schema).classify(stats)[0] == pk.MAYBE_MATCH
    assert pk.PruningPredicate("l > f", schema).classify(stats)[0] == pk.MAYBE_MATCH
    assert pk.PruningPredicate("l < f", schema).classify(stats)[0] == pk.NONE_MATCH


def test_cast_to_float_of_a_wide_integer_rounds():
    # CAST(l AS FLOAT) is explicit, so both modes round: 16777217 becomes 2**24.
    stats = _statistics(pa.int64(), 16777217)
    pred = pk.PruningPredicate("CAST(c AS FLOAT) = 16777216", pa.schema([("c", pa.int64())]))
    assert pred.classify(stats)[0] == pk.ALL_MATCH


@settings(deadline=None)
@given(st.floats(width=32, allow_nan=False), st.integers(-2**64, 2**64))
def test_an_integer_compares_in_float_as_with_its_threshold(c, v):
    """The threshold a computed integer is compared with in FLOAT: FLOAT(v) >= c exactly
    where v is at least the threshold, for integers near it and anywhere."""
    m = least_integer_rounding_to(c)
    for k in ([m - 1, m, m + 1] if isinstance(m, int) else []) + [v]:
        assert (round_to_float32(k) >= c) == (k >= m), (c, k, m)


# ---- what the column's type decides (``by_type``), and a function compared with a column ------
NONE, MAYBE, ALL = pk.NONE_MATCH, pk.MAYBE_MATCH, pk.ALL_MATCH


def _unknown(nulls):
    """Two containers of a TINYINT column with no min/max; null counts as given."""
    import numpy as np

    counts = None if nulls is None else np.array(nulls)
    return pk.Statistics.from_numpy(row_count=np.array([10, 10]), columns={"t": {
        "min": None, "max": None, "null_count": counts}}, types={"t": pa.int8()})


@pytest.mark.parametrize(("sql", "known_nulls", "unknown_nulls"), [
    ("t > 300", [NONE, NONE], [NONE, NONE]),
    ("t < 300", [ALL, MAYBE], [MAYBE, MAYBE]),
    ("CAST(t AS INT) > 300", [NONE, NONE], [NONE, NONE]),
    ("CAST(t AS INT) <= 127", [ALL, MAYBE], [MAYBE, MAYBE]),
    ("t > 127", [NONE, NONE], [NONE, NONE]),
    ("CAST(t AS DOUBLE) < 1000", [ALL, MAYBE], [MAYBE, MAYBE]),
    ("CAST(t AS BIGINT) BETWEEN -200 AND 200", [ALL, MAYBE], [MAYBE, MAYBE]),
    ("t + 1 > 200", [NONE, NONE], [NONE, NONE]),
    ("t * 1000 < -200000", [NONE, NONE], [NONE, NONE]),
    ("t - 1 < -128", [MAYBE, MAYBE], [MAYBE, MAYBE]),  # -129 is an INT
    ("abs(t) > 200", [NONE, NONE], [NONE, NONE]),
    ("NOT CAST(t AS INT) > 300", [ALL, MAYBE], [MAYBE, MAYBE]),
])
def test_the_type_decides_without_statistics(sql, known_nulls, unknown_nulls):
    """A comparison constant over every value of the column's type folds before statistics
    are read; NULL rows still decide ALL_MATCH (a NULL count unknown: MAYBE)."""
    pred = pk.PruningPredicate(sql, pa.schema([("t", pa.int8())]))
    assert pred.classify(_unknown([0, 3])).tolist() == known_nulls
    assert pred.classify(_unknown(None)).tolist() == unknown_nulls


def test_a_function_of_a_column_compared_with_a_column_is_unknown():
    # A rule rewrites f(x) against a literal only: against a column there is no threshold. The
    # comparison is still NULL where d or y is: a group without values of one is skipped.
    pred = pk.PruningPredicate("year(d) = y", {"d": pa.date32(), "y": pa.int32()})
    assert "<NULL where d or y is NULL, else anything: " in pred.explain()
    days = pa.array([18000, 18000, None], pa.int32()).cast(pa.date32())
    years = pa.array([2019, None, 2019], pa.int32())
    stats = pk.Statistics.from_arrow(pa.table({"row_count": [4, 4, 4], **{
        c: pa.StructArray.from_arrays([v, v, pa.array(nulls, pa.int64())],
                                      ["min", "max", "null_count"])
        for c, v, nulls in (("d", days, [0, 0, 4]), ("y", years, [0, 4, 0]))}}))
    assert pred.classify(stats, backend="numpy").tolist() == [pk.MAYBE_MATCH, pk.NONE_MATCH,
                                                               pk.NONE_MATCH]


# ---- two truth values compared --------------------------------------------------------------
@pytest.mark.parametrize("sql", [
    "(x > 5) = (x < 50)", "(x > 5) <> (x < 50)", "(x > 5) = (x < 3)", "(x > 5) <=> (x < 50)",
    "NOT ((x > 5) <=> (x < 3))", "q = (x > 5)", "(x > 5) <> q", "(x IS NULL) = (x > 5)",
    "(x > 5) = NULL", "(x > 5) = TRUE", "(x > 5) <=> NULL", "(x > 5) = (q AND x < 50)",
])
def test_predicates_compared_as_truth_values_against_rows(sql):
    """``p = r`` of two truth values is TRUE where both are TRUE or both FALSE, NULL where
    either is NULL: each group's outcome is sound against its rows (the reference evaluator),
    and where the rows allow no other answer, decided."""
    from prunekit.expr.syntax.sql import parse
    from tests.support import reference as ref

    types = {"x": pa.int64(), "q": pa.bool_()}
    groups = [[(1, True), (2, False)], [(60, True), (70, True)], [(10, False), (None, True)],
              [(10, None), (20, None)], [(None, None)], [(7, True), (60, False)]]
    stats = pk.Statistics.from_arrow(pa.table({"row_count": [len(g) for g in groups], **{
        c: pa.StructArray.from_arrays([
            pa.array([min((r[k] for r in g if r[k] is not None), default=None) for g in groups],
                     types[c]),
            pa.array([max((r[k] for r in g if r[k] is not None), default=None) for g in groups],
                     types[c]),
            pa.array([sum(r[k] is None for r in g) for g in groups], pa.int64())],
            ["min", "max", "null_count"]) for k, c in enumerate(types)}}))
    got = pk.PruningPredicate(sql, types).classify(stats, backend="numpy").tolist()
    tree = parse(sql)
    for g, o in zip(groups, got, strict=True):
        truths = [ref.evaluate(tree, types, {"x": x, "q": q}) for x, q in g]
        assert o != pk.NONE_MATCH or True not in truths, (sql, g, o)
        assert o != pk.ALL_MATCH or set(truths) == {True}, (sql, g, o)
    # Groups of one x value throughout (and q known) are decided.
    for g, o in zip(groups[1:2] + groups[4:5], got[1:2] + got[4:5], strict=True):
        assert o != pk.MAYBE_MATCH, (sql, g)


# ---- bounds on one column that no value meets together ----------------------------------------
@pytest.mark.parametrize("sql", [
    "t BETWEEN 5 AND 3", "t > 5 AND t < 3", "t >= 3 AND t < 3", "t > 3 AND t <= 3",
    "t > 1 AND t = 0", "t BETWEEN 5 AND 3 AND t IS NULL", "t BETWEEN 50 AND 100 AND t <= 49.5",
    "t BETWEEN CAST(100.0 AS DOUBLE) AND -2.0",
    # TRUE in an AND and FALSE in an OR change no row: the bounds meet in one conjunction
    "t = 5 AND (t = 3 OR FALSE)", "(t > 5 AND TRUE) AND (FALSE OR t < 3 OR FALSE)",
    # a NOT moved down through OR and AND (De Morgan) and cancelled by another
    "NOT (t <> 5 OR t <> 3)", "NOT (NOT (t BETWEEN 5 AND 6) OR NOT (NOT (NOT (t < 3))))",
])
def test_an_empty_range_matches_no_row_whatever_the_statistics(sql):
    """No value lies in both bounds: NONE_MATCH with no min/max at all, and its negation is
    TRUE for every non-NULL row (the bounds' AND is NULL, not FALSE, on a NULL row)."""
    pred = pk.PruningPredicate(sql, pa.schema([("t", pa.int8())]))
    assert pred.classify(_unknown([0, 3])).tolist() == [NONE, NONE], pred.explain()
    if "IS NULL" not in sql:
        negated = pk.PruningPredicate(f"NOT ({sql})", pa.schema([("t", pa.int8())]))
        assert negated.classify(_unknown([0, 3])).tolist() == [ALL, MAYBE], negated.explain()
        assert "an empty range" in pred.explain()


@pytest.mark.parametrize(("t", "value", "sql"), [
    (pa.int8(), 3, "c BETWEEN 3 AND 3"),
    (pa.int8(), 3, "c >= 3 AND c <= 3.0"),
    # Each bound is placed in the column's type first: written as DOUBLEs they look empty
    # (2**53 + 1 rounds to 2**53 as a DOUBLE, below 2**53 + 0.5), and 2**53 meets both.
    (pa.int64(), 2**53, "c BETWEEN CAST(9007199254740993 AS DOUBLE) AND 9007199254740992.5"),
    (pa.float64(), 0.0, "c BETWEEN 0.0 AND -0.0"),  # Spark: -0.0 = 0.0
    (pa.float64(), -0.0, "c BETWEEN 0.0 AND -0.0"),
    (pa.string(), "b", "c > 'a' AND c < 'a\u00e9'"),  # compared as UTF-8 bytes: 'b' > 'a\u00e9'
])
def test_a_range_that_holds_a_value_is_kept(t, value, sql):
    pred = pk.PruningPredicate(sql, pa.schema([("c", t)]))
    got = int(pred.classify(_statistics(t, value))[0])
    if "'" in sql:
        assert got == NONE, pred.explain()  # 'b' lies above both bounds
        assert "an empty range" not in pred.explain()
    else:
        assert got == ALL, pred.explain()


def test_nan_meets_no_empty_range():
    # Spark orders NaN above every number: NaN >= 5 is TRUE, NaN <= 3 FALSE.
    stats = pk.Statistics.from_numpy(row_count=np.array([4]), columns={"f": {
        "min": None, "max": None, "null_count": np.array([0]), "nan_count": np.array([4])}},
        types={"f": pa.float64()})
    schema = pa.schema([("f", pa.float64())])
    assert pk.PruningPredicate("f BETWEEN 5 AND 3", schema).classify(stats).tolist() == [NONE]
    assert pk.PruningPredicate("f >= 5", schema).classify(stats).tolist() == [ALL]


def test_an_empty_range_reads_the_same_however_its_and_is_nested():
    """A nested AND found empty absorbs the outer bounds on its column, so a tree and its
    flat SQL text read the same statistics (found by the nested-columns property test)."""
    from prunekit.expr.syntax import nodes as n

    def eq(v):
        return n.Compare(n.Op.EQ, n.Literal(v), n.Column("t"))

    tree = n.And((n.And((eq(-127), eq(-128))), n.And((eq(-128), eq(-128)))))
    schema = pa.schema([("t", pa.int8())])
    nested, flat = pk.PruningPredicate(tree, schema), pk.PruningPredicate(tree.sql(), schema)
    assert nested.required_columns == flat.required_columns == {"t": ("null_count",)}
    both = pk.PruningPredicate("t > 300 AND t < 5 AND t > 300", schema)  # out of range too
    assert both.required_columns == {"t": ("null_count",)}
    assert both.explain().count("IS NOT NULL AND FALSE") == 1


# ---- negation of a DECIMAL of any precision: a mirror (its range is symmetric) ---------------
WIDE, NARROW = pa.decimal128(38, 10), pa.decimal128(5, 0)
NEGATIONS = [
    (WIDE, ["0.0000001970", "0.5000000000"], "-x < -0.0000001969", ALL, "both above 1.969E-7"),
    (WIDE, ["0.0000001969"], "-x < -0.0000001969", NONE, "equal: not below"),
    (WIDE, ["0.5000000000"], "-x IN (0.5, -0.5)", ALL, "-0.5 is in the list"),
    (WIDE, ["0.2500000000"], "-x IN (0.5, -0.5)", NONE, "-0.25 is not"),
    (WIDE, ["99999999999999999999999999.9999999999"], "-x <= -99999999999999999999999999",
     ALL, "the greatest value negates without overflow"),
    (WIDE, ["1.0000000000"], "-x > -1.5E0", ALL, "against a DOUBLE: -1.0 > -1.5"),
    (WIDE, ["1.0000000000"], "-x = CAST('NaN' AS DOUBLE)", NONE, "a DECIMAL is never NaN"),
    (NARROW, ["-99999"], "-x IN (-5, 99999)", ALL, "the least value negates exactly"),
    (NARROW, ["-99999", "-5"], "-x < 0", NONE, "no overflow at the least value"),
    (NARROW, ["-99999"], "-x = 99999", ALL, "-(-99999) is 99999"),
]


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize(("t", "rows", "sql", "expected", "why"), NEGATIONS,
                         ids=[c[2] for c in NEGATIONS])
def test_negation_of_a_decimal_mirrors_it(t, rows, sql, expected, why, backend):
    import decimal

    from tests.support.functions import check

    check({"x": (t, [decimal.Decimal(v) for v in rows])}, sql, expected, why, backend)
