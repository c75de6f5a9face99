"""DataFusion's optimizer merges IN lists and equalities on one column (``list_merges``):
which merges keep the rows, read in full, and which may not, left unknown. Every answer is
checked against DataFusion's own rows, one row per row group, NULLs among them."""

import datetime
import decimal
import itertools
import random
import re

import numpy as np
import pyarrow as pa
import pytest

import prunekit as pk
from prunekit.expr.syntax.signed_nans import SIGNED_NAN
from tests.support import tiers

datafusion = pytest.importorskip("datafusion", reason="datafusion runs the predicates")

_DAY = datetime.datetime(2020, 1, 1)
# Per column: its type, the values of its one-row groups, the items lists draw from (the
# same value spelled twice, zeros of both signs, a DATE and a TIMESTAMP of one instant,
# NULL, a fraction cast to an integer, a DECIMAL), and the operands random predicates write
# (a cast the optimizer keeps, x * 1 that its simplifier makes x).
COLUMNS = {"x": (pa.int64(), [1, 2, 3, 4, 0, None],
                 ["1", "2", "3", "1.0", "-0", "0", "-0.0", "CAST(0 AS FLOAT)", "NULL",
                  "CAST(1.5 AS BIGINT)", "CAST(2 AS DECIMAL(10,2))"],
                 ["x", "x", "CAST(x AS DOUBLE)", "(x * 1)", "(x / 1)"]),
           "s": (pa.string(), ["a", "b", "c", "d", "a ", None],
                 ["'a'", "'b'", "'c'", "'a '", "NULL"], ["s"]),
           "f": (pa.float64(), [0.0, -0.0, 1.5, 2.0, 7.0, None],
                 ["0.0", "-0.0", "1.5", "2", "1.50", "CAST(1.5 AS FLOAT)", "NULL"],
                 ["f", "f", "CAST(f AS BIGINT)", "(1 * f)"]),
           "d": (pa.date32(), [_DAY.date() + datetime.timedelta(days=n) for n in range(3)] + [None],
                 ["DATE '2020-01-01'", "DATE '2020-01-02'", "TIMESTAMP '2020-01-01 00:00:00'",
                  "TIMESTAMP '2020-01-02 12:00:00'", "CAST('2020-01-03' AS DATE)", "NULL"],
                 ["d", "d", "CAST(d AS TIMESTAMP)"]),
           "t": (pa.timestamp("us"), [_DAY, _DAY.replace(hour=12), _DAY.replace(day=2), None],
                 ["TIMESTAMP '2020-01-01 00:00:00'", "TIMESTAMP '2020-01-01 12:00:00'",
                  "DATE '2020-01-01'", "DATE '2020-01-02'", "NULL"],
                 ["t", "t", "CAST(t AS DATE)"]),
           "q": (pa.decimal128(10, 2), [decimal.Decimal(v) for v in ("1.50", "2.00", "0.00",
                                                                    "1.00")] + [None],
                 ["1.5", "2", "1.50", "CAST(1.5 AS DOUBLE)", "1e0", "0", "1.505", "NULL"],
                 ["q", "q", "CAST(q AS DOUBLE)"]),
           "u": (pa.uint64(), [0, 1, 2, 2**64 - 1, None],
                 ["1", "2", "0", "18446744073709551615", "1.5", "NULL"],
                 ["u", "u", "CAST(u AS DOUBLE)", "(u * 1)"])}


class _Groups:
    """One row group per (column value, y) pair, a DataFusion table of the same rows."""

    def __init__(self, column: str):
        kind, values, self.items, self.operands = COLUMNS[column]
        self.rows = list(itertools.product(values, [0, 1, None]))
        self.schema = pa.schema([(column, kind), ("y", pa.int64())])
        table = pa.table({column: pa.array([r[0] for r in self.rows], kind),
                          "y": pa.array([r[1] for r in self.rows], pa.int64()),
                          "g": pa.array(range(len(self.rows)), pa.int64())})
        self.ctx = datafusion.SessionContext()
        self.ctx.register_record_batches("t", [table.to_batches()])
        self.stats = pk.Statistics.from_numpy(row_count=np.ones(len(self.rows), np.int64),
                                              columns={column: _exact([r[0] for r in self.rows],
                                                                      kind),
                                                       "y": _exact([r[1] for r in self.rows],
                                                                   pa.int64())})

    def check(self, sql: str) -> bool:
        """Whether ``sql`` was read in full (no unknown leaf); asserts that no group is
        decided against DataFusion's rows, and that one read in full decides every group."""
        hits = set(self.ctx.sql(f"SELECT g FROM t WHERE {sql}").to_pydict()["g"])
        pred = pk.PruningPredicate(sql, self.schema, dialect="datafusion")
        read = all(SIGNED_NAN in line for line in pred.explain().splitlines()
                   if line.startswith("weakened:"))  # (unknown on NaN rows alone)
        for g, outcome in enumerate(pred.classify(self.stats)):
            assert outcome != (pk.NONE_MATCH if g in hits else pk.ALL_MATCH), (sql, self.rows[g])
            if read:
                assert outcome == (pk.ALL_MATCH if g in hits else pk.NONE_MATCH), (
                    sql, self.rows[g])
        return read


def _exact(values: list, kind: pa.DataType) -> dict:
    nulls = np.array([v is None for v in values])
    nans = np.array([isinstance(v, float) and v != v for v in values])
    if not pa.types.is_integer(kind) and not pa.types.is_floating(kind):
        bounds = pa.array(values, kind)
    else:  # (a NaN is counted, and left out of the bounds, as Parquet writers do)
        bounds = np.ma.masked_array([0 if v is None or n else v for v, n in zip(
            values, nans, strict=True)], mask=nulls | nans, dtype=kind.to_pandas_dtype())
    stats = {"min": bounds, "max": bounds, "null_count": nulls.astype(np.int64)}
    if pa.types.is_floating(kind):
        stats["nan_count"] = nans.astype(np.int64)
    return stats


@pytest.fixture(scope="module")
def groups():
    return {c: _Groups(c) for c in COLUMNS}


# (predicate, read in full): one case per rule of ``mark_exact_merges``.
CASES = [
    # instants apart by less than a second are two items (found by a review)
    ("t IN (TIMESTAMP '2020-01-01 00:00:00') AND "
     "t NOT IN (TIMESTAMP '2020-01-01 00:00:00.5', NULL)", False),
    ("d IN (TIMESTAMP '2020-01-01 00:00:00') AND "
     "d NOT IN (TIMESTAMP '2020-01-01 00:00:00.5', NULL)", False),
    # alone on its column: nothing to merge with (<> and a LIKE with a wildcard are no lists)
    ("NOT (x IN (1, 2))", True), ("x NOT IN (1, 2) AND x <> 3", True),
    ("NOT (s NOT IN ('a') OR s LIKE 'a%')", True),
    # under AND and OR alone: only NOT IN lists under OR may fold to TRUE (sharing an item
    # they cannot), under AND alone they join; IN lists fold to FALSE at worst
    ("x NOT IN (1, 2) OR x NOT IN (2, 3)", True), ("x NOT IN (1) AND x NOT IN (2)", True),
    ("x IN (1) AND x IN (2) OR y > 0", True), ("x IN (1, 2) AND x NOT IN (1, 2)", True),
    ("x NOT IN (1) OR x NOT IN (2)", False),
    # a NULL item: an IN list's intersection drops it where a row is FALSE or NULL anyway; in
    # a NOT IN list a merge may make a NULL row TRUE
    ("s IN ('a', NULL) AND NOT (s NOT IN ('a'))", True), ("x IN (1, NULL) AND x NOT IN (1)", True),
    ("x IN (1) AND x NOT IN (2, NULL)", False), ("x NOT IN (1, NULL) OR x NOT IN (1)", False),
    ("(y > 0 AND x NOT IN (1)) OR (y > 0 AND x NOT IN (2))", False),
    # a union of NOT IN lists keeps it; beside an IN list under AND, or where NOT IN lists
    # meet in an intersection (an OR above both), it may be dropped
    ("x NOT IN (1, NULL) AND x NOT IN (2)", True),
    ("x NOT IN (1, NULL) AND (x NOT IN (2) OR y > 0)", True),
    ("x NOT IN (1, NULL) AND x NOT IN (2) AND x IN (1, 3)", False),
    ("(x NOT IN (1, NULL) AND x NOT IN (3)) OR x NOT IN (3)", False),
    # two side by side under NOT: the one merge their op makes
    ("NOT (x IN (1, 2) OR x IN (3))", True), ("NOT (x IN (1, 2) AND x IN (2, 3))", True),
    ("NOT (x IN (1, 2) AND x NOT IN (1))", True), ("NOT (x IN (1) AND x IN (2))", False),
    ("NOT (x IN (1, 2) AND x NOT IN (1, 2, 3))", False),
    ("NOT (s IN ('a', 'b') AND s NOT IN ('a'))", True),
    # kept apart (OR of IN and NOT IN) until NOT turns it into an AND, where the empty merge
    # is FALSE: as good as the NULL of the rows of x NULL
    ("NOT (x NOT IN (1) OR x IN (1))", True), ("NOT (x NOT IN (1) OR x IN (2))", True),
    # apart under NOT: merged by the first op above both (a union here), however NOTs are
    # pushed in, and read in full where no merge leaves a list without an item
    ("NOT ((x IN (1, 2) AND y > 0) OR x IN (2, 3))", True),
    ("NOT ((x IN (1) AND y > 0) OR x IN (2))", True),
    ("NOT ((x IN (1) AND x IN (2)) AND y > 0)", False),
    ("NOT ((x IN (1) AND y > 0) AND x IN (2))", True),  # y > 0 between: never merged
    # lists on two expressions of a column are no partners, unless the optimizer may make
    # them one (a cast it drops, x * 1)
    ("NOT ((x * 2) IN (2) AND x IN (4))", True),
    ("NOT (left(s, 1) IN ('a', 'b') AND s IN ('b', 'c'))", True),
    # a DATE cast beside a day and an instant is compared as a TIMESTAMP: another operand
    # than the cast beside days alone, so the two lists are never merged
    ("NOT (CAST(t AS DATE) NOT IN (DATE '2020-01-02', TIMESTAMP '2020-01-01 12:00:00') OR "
     "CAST(t AS DATE) IN (NULL, DATE '2020-01-01'))", True),
    # a DATE cast beside an instant is a midnight: neither the column nor its day (found by
    # the deep random merges), so its NOT IN rules out no instant of the column's list
    ("CAST(t AS DATE) IN (NULL) IS TRUE OR (NOT CAST(t AS DATE) IN (TIMESTAMP "
     "'2020-01-01 12:00:00') AND t IN (TIMESTAMP '2020-01-01 12:00:00', DATE '2020-01-01'))",
     False),
    ("NOT (substr(s, 1, 1) IN ('a') AND s NOT IN ('a', 'b'))", True),
    ("NOT (CAST(x AS BIGINT) IN (1) AND x IN (2))", False),
    ("NOT ((x * 1) IN (1) AND x IN (2))", False),
    # one column however written; a regular expression it may make a list
    ('NOT ("x" IN (1) AND x IN (2))', False), ("NOT (s ~ '^(a|b)$' AND s IN ('c'))", False),
    # items that are expressions: compared as such there (x IN (x, 1) AND x IN (2) is FALSE)
    ("x IN (x, 1) AND x IN (2)", False), ("NOT (x IN (x, 1) AND x IN (2))", False),
    ("x IN (1, 2) AND x IN (2, x + 0)", False), ("1 IN (x, 2) AND 1 IN (y, 3)", False),
    # an operand its simplifier makes the column
    ("x NOT IN (5, NULL) AND coalesce(x) IN (1, 2)", False),
    ("x NOT IN (5, NULL) AND CASE WHEN TRUE THEN x END IN (1, 2)", False),
    # a zero spelled as a string, cast
    ("f IN (CAST('-0' AS DOUBLE), 1.5, 2, 3)", False),
    # which no integer matches in a set of DOUBLEs (it compares bits, and 0 is 0.0 there)
    ("x IN (CAST('-0' AS DOUBLE), 1.5)", True),
    # items the optimizer may take for one value, or tell apart where = does not
    ("NOT (x IN (1.0) AND x NOT IN (1.00, 2))", False),
    ("NOT (f IN (1.5) AND f NOT IN (1.50))", False),
    ("NOT (x IN (0) AND x NOT IN (-0, 1))", False), ("NOT (x IN (0, 2) AND x NOT IN (-0))", True),
    ("NOT (f IN (2, 1.5) AND f IN (1.5))", True),
    # an integer column beside a DOUBLE is CAST(x AS DOUBLE) there: another expression than x
    ("NOT (x IN (1) AND x NOT IN (1.0))", True),
    ("NOT (CAST(x AS DOUBLE) IN (1) AND x IN (2))", True),
    ("NOT (CAST(x AS DOUBLE) IN (1) AND x IN (2.0))", False),
    # an equality joins a list in a union only: two of them merge into a list that keeps an
    # item; with more, equalities fold with the lists under NOT: unknown too (an all-NULL
    # group is kept)
    ("NOT (x = 3 OR (x IN (1) OR y > 0))", True), ("NOT (x = 3 AND x IN (1))", True),
    ("NOT (x = 3 OR x NOT IN (NULL))", True), ("NOT (f = 0.0 OR f IN (1.5))", False),
    # two equalities make a list of two, which its simplifier writes as equalities again:
    # no set, so a zero of either sign is both zeros there
    ("NOT (f <> 1.5 OR f <> 0.0)", True), ("f = -0.0 OR f = 2", True),
    ("f <> -0.0 AND f <> 2", True), ("NOT (x <> -0.0 OR x <> 1)", True),
    # a float's zero merged into a set of four or more holds for 0.0 alone there
    ("f = 0.0 OR f IN (2, 1.5, 3)", False), ("f IN (0.0) OR f IN (1.5, 2, 3)", False),
    ("(f = 0.0 OR f IN (2, 1.50, NULL)) AND y > 0", False),
    ("f = 0.0 OR f = 1 OR f = 2 OR f = 3", False), ("(f = 0.0 OR f = 2) AND f IN (-0.0, 2)", False),
    ("NOT ((s LIKE 'c' OR s = 'b') AND (s IN ('a ', 'a') OR s = 'a'))", False),
    ("NOT ((x = 1 OR x = 2) AND (x IN (3) OR x = 4))", False),
    # a list split at its zero still merges with the rest
    ("NOT (x IN (-0, 0)) OR x NOT IN (2, 3)", False),
    ("NOT (y > 0 AND (x IN (-0, 0) AND x NOT IN (3, 0)))", False),
    ("NOT (f = 0.0 OR NOT (f <> 1.5)) AND f IN (2, -0.0)", False),
    # its optimizer weighs equalities with 0.0 and -0.0 apart (FALSE together), of an integer
    # column too, which it compares with a DOUBLE as a DOUBLE
    ("f = -0.0 AND f = 0.0", False), ("f <> -0.0 AND f = 0.0", False),
    ("f IN (0.0) AND f = -0.0", False), ("f = 0.0 AND f = 0", True),
    ("x = -0.0 AND x = 0.0", False), ("x IN (0.0) AND x = -0.0", False),
    ("x = -0.0 OR x IN (1.5, 2, 3)", False), ("x = -0 OR x IN (1, 2, 3)", True),
    ("x NOT IN (1.5, 2.5) OR x IN (CAST(0 AS FLOAT))", True),  # (the cast of x is 0.0)
    # where a NOT above makes a merge's NULL-to-constant as good as NULL: FALSE under none or
    # two, TRUE under one (a NULL item dropped, an empty merge folded)
    ("NOT (x NOT IN (NULL) OR x IN (2))", True),
    ("NOT (x NOT IN (1, NULL) AND x NOT IN (2))", True),
    ("NOT (x IN (1, 2) AND x NOT IN (2, NULL))", True),
    ("NOT (x IN (1, NULL) AND x IN (1, 2))", False), ("NOT (x IN (1, NULL) OR x IN (2))", False),
    ("NOT (NOT (x IN (1) AND x IN (2)))", True), ("NOT (x IN (1) AND x NOT IN (1, NULL))", False),
    ("(NOT (x IN (1) AND x IN (2))) IS TRUE", False),
    # a chain of one op: a term it keeps between two lists keeps them apart
    ("NOT ((x IN (1) OR y > 0) OR x IN (2))", True),
    ("NOT ((x IN (1) AND y > 0) AND x IN (2))", True),
    ("NOT ((y > 0 AND x IN (1)) AND x IN (2))", False),
    # NOT IN lists meet in an intersection only under an OR above both
    ("(x NOT IN (1) OR y > 0) AND x NOT IN (2)", True),
    ("x NOT IN (1) OR (abs(y) > 0 AND x NOT IN (2))", False),
    # a <> a NOT makes an = merged into a set: that = may fail -0.0, so the <> may hold there
    # (once ALL_MATCH on a group of -0.0; found by a fuzz of nested lists and bounds)
    ("NOT (f <> 0.0) OR f IN (-1, 1.5, NULL)", False),
    ("(NOT f IN (NULL) AND f IN (NULL)) OR NOT f <> 0.0 OR f IN (-1, 1.5, NULL)", False),
    # x >= a AND x <= a, an = there, as two branches of the AND chain it lies in (once a
    # KeyError; found by the nested fuzz below)
    ("f <= 2 AND f >= 2 AND f IN (0)", False), ("x >= 2 AND x <= 2 AND x IN (3, NULL)", True),
    # ... but never where a bound it keeps stands in a chain of the other op around one list:
    # that one is never a side of the op above both (checked on its plans)
    ("x NOT IN (1) OR (y > 0 AND x NOT IN (2))", True),
    ("NOT (x IN (1, NULL) OR (x IN (2) AND y > 0))", True),
    ("NOT (x IN (1, 2) AND (x IN (2, NULL) OR y > 0))", True),
    ("NOT ((x NOT IN (1, 2, NULL) AND y > 0) OR x NOT IN (2, 3))", True),
    # a DATE column beside a TIMESTAMP is a TIMESTAMP; CAST(t AS DATE) is a day, not t, but
    # the cast of a list of NULLs moves to them; DATEs and TIMESTAMPs apart by a second or more
    ("NOT (CAST(d AS TIMESTAMP) IN (TIMESTAMP '2020-01-01 00:00:00') AND d IN (DATE '2020-01-02'))",
     True),
    ("NOT (d IN (TIMESTAMP '2020-01-01 00:00:00') AND CAST(d AS TIMESTAMP) IN (DATE '2020-01-02'))",
     False),
    ("NOT (CAST(t AS DATE) IN (DATE '2020-01-01') AND t IN (DATE '2020-01-02'))", True),
    ("CAST(t AS DATE) NOT IN (NULL) OR t NOT IN (DATE '2020-01-02')", False),
    ("NOT (d IN (DATE '2020-01-01') AND d NOT IN (CAST('2020-01-03' AS DATE)))", True),
    ("NOT (d IN (DATE '2020-01-01') AND d NOT IN (CAST('2020-01-01' AS DATE)))", False),
    ("NOT (t IN (DATE '2020-01-01') AND t NOT IN (TIMESTAMP '2020-01-01 00:00:00.5'))", False),
    # a DATE drops a time of day (found by a review, as the cases below)
    ("NOT (d IN (DATE '2020-01-01 12:00:00') AND d NOT IN (DATE '2020-01-01'))", False),
    ("NOT (t IN (CAST('2020-01-01 12:00:00' AS DATE)) AND t NOT IN "
     "(TIMESTAMP '2020-01-01 00:00:00'))", False),
    # a DECIMAL beside a DOUBLE compares in a DECIMAL, which it may move onto the column; an
    # unsigned BIGINT beside a whole number beyond BIGINT is its own type
    ("NOT (q IN (2) AND q IN (1.5))", False), ("q NOT IN (1.5) OR q NOT IN (2)", False),
    ("NOT (q NOT IN (1.5) AND q IN (NULL, 0))", False),
    ("NOT (u IN (18446744073709551615) AND u IN (1))", False),
    ("u NOT IN (18446744073709551615) OR u NOT IN (1)", False),
    # <> and NOT LIKE that a NOT above makes = (and an OR of them a list)
    ("NOT (x <> 1 AND x <> 3) AND x NOT IN (2, NULL)", False),
    ("NOT (s <> 'a' AND s <> 'c') AND s NOT IN ('b', NULL)", False),
    ("NOT (s NOT LIKE 'a' AND s NOT LIKE 'c') AND s NOT IN ('b', NULL)", False),
    # BETWEEN a AND a, and x >= a AND x <= a, are = there
    ("(x BETWEEN 1 AND 1 OR x = 3) AND x NOT IN (2, NULL)", False),
    ("((x >= 1 AND x <= 1) OR x = 3) AND x NOT IN (2, NULL)", False),
    ("(x BETWEEN 1 AND 2 OR x = 3) AND x NOT IN (2, NULL)", True),
    # a DECIMAL's list with a DOUBLE item off its grid compares a cast of it, which the
    # optimizer keeps: another expression than the column a list on its grid compares
    # (found by the DataFusion differential, seed 91001998)
    ("q NOT IN (1.5, NULL, 1.505) OR q NOT IN (2, 0.5)", True),
    ("q NOT IN (1.5, NULL, 1.5) OR q NOT IN (2, 0.5)", False),
    # but under an odd count of NOTs, which its simplifier pushes in first: x < a OR x > a
    # (found by the DataFusion differential, seed 91000264)
    ("NOT (f BETWEEN -0.0 AND -0.0 OR f IN (3.5, -4.0, 3.5, 7.5))", True),
    ("NOT (NOT (f BETWEEN 1.5 AND 1.5)) OR f IN (2, 3, 4, 0.0)", False),
    # a number cast to an integer type is a value (a fraction folded toward zero first)
    ("NOT (x <> 1 OR x IN (CAST(3 AS BIGINT), CAST(-4 AS BIGINT)))", True),
    ("NOT (x <> 1 OR x IN (CAST(3 AS BIGINT), CAST(1 AS BIGINT)))", True),
    ("NOT (x IN (CAST(2.5 AS BIGINT), 3) AND x NOT IN (2))", True),
    ("NOT (x IN (CAST(2.5 AS BIGINT), 3) AND x NOT IN (2, 3))", False),
    ("NOT (x IN (CAST(-0.5 AS BIGINT), 3) AND x NOT IN (0))", True),
    # and a number cast to a DECIMAL that holds it as it is
    ("NOT (x NOT IN (4, CAST(3 AS DECIMAL(20,4))) OR x = 3)", True),
    ("NOT (x IN (CAST(1 AS DECIMAL(5,2))) AND x NOT IN (1))", False),
    ("NOT (x IN (CAST(1.5 AS DECIMAL(5,2)), 2) AND x NOT IN (2))", True),
    # x * 1 and x / 1 are x there: merged with x's lists, not with its DOUBLE's
    ("NOT (x IN (1) AND (x * 1) IN (2))", False), ("NOT ((x / 1) IN (1) AND 1 * x IN (2))", False),
    ("NOT (x IN (1, 0.5) AND (x / 1) IN (1, 0))", True),
    # IN and NOT IN under OR with no NOT above are kept apart: never merged, NULLs and all
    ("x NOT IN (1, NULL) OR x IN (2, NULL)", True),
    ("x NOT IN (1, CAST(2 AS DECIMAL(20,4))) OR x = 2", True),
    ("NOT (x NOT IN (1, NULL) OR x IN (2, NULL))", False),
]


@pytest.mark.parametrize("sql, read", CASES, ids=[c[0] for c in CASES])
def test_merges_read_as_datafusion_runs_them(groups, sql, read):
    column = next(c for c in ("s", "f", "x", "d", "t", "q", "u")
                  if re.search(rf"\b{c}\b", sql))
    assert groups[column].check(sql) == read, sql


@pytest.mark.parametrize("sql, null_kept", [
    ("NOT (x IN (1, NULL) OR x IN (2))", True), ("f = 0.0 OR f IN (1.5, 2, 3)", True),
    ("NOT (x NOT IN (1, NULL) AND x <> 2 AND x NOT IN (3))", True),
    ("NOT (x IN (1) OR x = 2 OR x IN (NULL, 3))", True),
    ("NOT (x IN (1, NULL) OR x IN (NULL))", True),
    ("NOT (x IN (1, NULL) OR (x IN (2) AND abs(y) > 0))", True),
    ("NOT (x IN (1, 2) AND x IN (2, NULL))", True),
    ("NOT (x IN (1, 2, NULL) AND x NOT IN (2))", True),
    ("NOT (x IN (1, 2) AND (x IN (2, NULL) OR abs(y) > 0))", True),
    ("NOT (x IN (1) AND x IN (2))", False), ("x NOT IN (1) OR x NOT IN (2)", False),
    ("NOT (x IN (1, 2) AND x NOT IN (1, 2, NULL))", False),
    ("NOT (x IN (1, 2, NULL) AND x IN (2, 3) AND x IN (1, 3))", False),
    ("NOT (x IN (1, NULL) AND (x IN (2) OR abs(y) > 0))", False)])
def test_a_list_no_merge_empties_is_null_where_its_column_is(groups, sql, null_kept):
    """Lists left unknown because their merge changes rows stay NULL where their column is
    NULL when no merge the optimizer may make of them leaves a list without an item (none
    folds to a constant): a union, an intersection of lists written with a common item, IN
    minus a NOT IN that leaves an item. Such groups are skipped. Where some merge may leave
    none (each pair of three lists shares an item, but not all three), it may fold, and
    DataFusion may return the NULL rows there."""
    column = "f" if "f " in sql else "x"
    assert not groups[column].check(sql), sql  # (sound on every group, and not read in full)
    pred = pk.PruningPredicate(sql, groups[column].schema, dialect="datafusion")
    outcomes = pred.classify(groups[column].stats)
    at_null = {int(o) for o, (v, _) in zip(outcomes, groups[column].rows, strict=True)
               if v is None}
    assert at_null == ({pk.NONE_MATCH} if null_kept else {pk.MAYBE_MATCH}), (sql, at_null)


@pytest.mark.parametrize("sql, apart", [
    # (found by the DataFusion differential, seed 81191025)
    ("x NOT IN (1) OR x > 5 OR x NOT IN (2)", True),
    ("NOT (x IN (1) AND x > 0 AND x IN (2))", True),
    ("x > 0 AND (x NOT IN (1) OR x <> 5 OR x > 7 OR x NOT IN (2))", True),
    ("NOT (CAST(q AS DOUBLE) IN (9223372036854775808, 0.1)) OR q <= 0 OR "
     "CAST(q AS DOUBLE) NOT IN (100, CAST(-9223372036854775808 AS BIGINT), 0, NULL)", True),
    # a bound of a float it keeps in a chain of the other op around one list: never a side
    # of the op above both (found by the DataFusion differential, seed 93001941)
    ("(f < 4.25 AND f NOT IN (4.5)) OR f NOT IN (2)", True),
    ("(f > 4.249999999999999 AND f < 4.25 AND f NOT IN (4.5)) OR f NOT IN (2)", True),
    ("NOT ((f >= 1 OR f IN (4.5)) AND f IN (2))", True),
    ("x NOT IN (1) OR 1 > 2 OR x NOT IN (2)", False),  # a term it folds away
    ("NOT (f < 4.25 AND f IN (4.5)) OR f NOT IN (2)", False),  # NOT pushed in: one chain
    ("x NOT IN (1) OR x NOT IN (2) OR x > 5", False),  # siblings
    # x > 0 moved out of both branches: IN (1) and IN (2) meet there
    ("NOT ((x IN (1) AND x > 0 AND x IN (2)) OR (x > 0 AND y > 0))", False),
    ("NOT ((NOT (x NOT IN (1) OR x <= 0 OR x NOT IN (2))) OR (x > 0 AND y > 0))", False)])
def test_lists_a_kept_term_stands_between_never_merge(groups, sql, apart):
    """Its simplifier merges two lists only where they are the two sides of one AND or OR:
    a term it keeps between them in a chain keeps them apart, so no merge of theirs folds
    to a constant and each is NULL where its column is (a group of NULLs skipped). A term it
    folds away, or one it moves out of an OR's branches, leaves them side by side."""
    g = groups["q" if "q " in sql else "f" if "f " in sql else "x"]
    g.check(sql)  # (sound on every group; read in full where the merges keep the rows)
    outcomes = pk.PruningPredicate(sql, g.schema, dialect="datafusion").classify(g.stats)
    at_null = {int(o) for o, (v, y) in zip(outcomes, g.rows, strict=True) if v is None}
    assert (at_null == {pk.NONE_MATCH}) == apart, (sql, at_null)


@pytest.mark.parametrize("sql, reading", [
    ("NOT (x IN (1, 2) AND x IN (2, NULL))", "x <> 2"),
    ("NOT (x IN (1, 2, NULL) OR x IN (3))", "x NOT IN (1, 2, 3)"),
    ("NOT ((x NOT IN (1, 2, NULL) AND abs(y) > 0) OR x NOT IN (2, 3))",
     "x = 2 OR (x = 3 AND y <= 0)"),
    ("NOT (s IN ('a', 'b') AND s IN ('b', NULL))", "s <> 'b'")])
def test_a_list_whose_merges_may_drop_its_null_items_is_read_both_ways(groups, sql, reading):
    """Lists with NULL items whose merges are all unions, or intersections that keep an item
    (no IN list holding NULL minus a NOT IN list, which keeps that NULL where the NOT IN
    fails): each passes the rows it passes as written or without its NULL items, and is
    NULL where its column is. A group is skipped exactly where neither reading passes a row
    (``reading`` has none there), never taken whole."""
    _skipped_exactly_where_none(groups["s" if "s " in sql else "x"], sql, reading)


@pytest.mark.parametrize("sql, merged", [
    ("x IN (1, 2) AND x NOT IN (2, NULL)", "x IN (1)"),
    ("x IN (1, 2, 3) AND NOT (x IN (3, NULL))", "x IN (1, 2)"),
    ("(x IN (1, 3) AND y > 0) AND x NOT IN (3, NULL)", "x IN (1) AND y > 0"),
    ("x IN (1, 2) AND x NOT IN (1, 2, NULL)", "FALSE"),
    ("(x IN (1, 2) AND x NOT IN (2, NULL)) OR y IS NULL", "x IN (1) OR y IS NULL"),
    ("s IN ('a', 'b') AND s NOT IN ('b', NULL)", "s IN ('a')"),
    ("(x IN (1, 2) AND x NOT IN (2, NULL)) OR (x IN (3) AND y > 0)",
     "x IN (1) OR (x IN (3) AND y > 0)"),
    ("s IN ('a', 'b') AND NOT (s IN ('b', NULL))", "s IN ('a')")])
def test_a_null_item_a_merge_drops_is_read_as_dropped(groups, sql, merged):
    """A NOT IN list, the one negated list on its column, under AND and OR alone: DataFusion
    merges it with an IN list beside it under AND as IN (A minus B), dropping its NULL item,
    or keeps it apart (under OR). Either way a row passes only where its value is in none of
    the list's other items, so the list is read as written without NULL OR an unknown leaf
    under its NOT: a group is skipped exactly where ``merged`` (DataFusion's reading) has no
    row (found by the DataFusion differential, seed 81190000), never taken whole."""
    _skipped_exactly_where_none(groups["s" if "s " in sql else "x"], sql, merged)


# Row groups of two values each, on both sides of every item below: a group's bounds let an
# IN list and a NOT IN list beside it hold each on some value, but not on one value together.
_PAIRS = {"x": (pa.int64(), [(1, 3), (1, 2), (3, None), (2, 4)]),
          "f": (pa.float64(), [(1.5, 2.0), (1.5, 7.0), (2.0, None)]),
          "d": (pa.date32(), [(_DAY.date(), _DAY.date() + datetime.timedelta(days=2)),
                              (_DAY.date(), None)])}


@pytest.mark.parametrize("sql", [
    "x IN (1, 3) AND x NOT IN (3, NULL, 1)",
    "(x IN (1, 2) AND y > 0) AND x NOT IN (NULL, 1, 2)",
    "f IN (1.5, CAST(2 AS FLOAT)) AND f NOT IN (CAST(1.5 AS FLOAT), 2.0, NULL)",
    # an integer column beside a DOUBLE item compares in DOUBLE in both lists (found by the
    # DataFusion differential, seed 81190000)
    "x IN (0.5, 1, 3) AND x NOT IN (1, NULL, 2.5, CAST(3 AS FLOAT))",
    # a DATE beside a TIMESTAMP compares as one there (found by the DataFusion differential,
    # seed 81190000)
    "CAST(d AS TIMESTAMP) NOT IN (NULL, DATE '2020-01-01') AND d IN "
    "(CAST('2020-01-01' AS DATE), TIMESTAMP '2020-01-01 00:00:00')"])
def test_a_list_loses_the_items_a_not_in_beside_it_rules_out(sql):
    """An IN list within an AND one of whose conjuncts is a NOT IN list on its operand: where
    the operand holds one of that list's items but NULL, the NOT IN, and so the AND, is
    FALSE, merged or not. So the IN list is read without those items (the same value in the
    type compared, a float's only where it holds it). Here none is left: every group of two
    values is skipped, as DataFusion returns no row, though its bounds meet both lists."""
    column = next(c for c in _PAIRS if re.search(rf"\b{c}\b", sql))
    kind, pairs = _PAIRS[column]
    ctx = datafusion.SessionContext()
    for g, pair in enumerate(pairs):
        table = pa.table({column: pa.array(pair, kind), "y": pa.array([1, 1], pa.int64())})
        ctx.register_record_batches(f"rg{g}", [table.to_batches()])
        assert not ctx.sql(f"SELECT * FROM rg{g} WHERE {sql}").to_pydict()[column], sql
    values = [[v for v in pair if v is not None] for pair in pairs]
    low, high = ([f(v) for v in values] for f in (min, max))
    if kind == pa.date32():
        low, high = pa.array(low, kind), pa.array(high, kind)
    else:
        low, high = np.array(low, kind.to_pandas_dtype()), np.array(high, kind.to_pandas_dtype())
    stats = pk.Statistics.from_numpy(row_count=np.full(len(pairs), 2, np.int64), columns={
        column: {"min": low, "max": high, "null_count": np.array(
            [pair.count(None) for pair in pairs], np.int64)},
        "y": {"min": np.ones(len(pairs), np.int64), "max": np.ones(len(pairs), np.int64),
              "null_count": np.zeros(len(pairs), np.int64)}})
    schema = pa.schema([(column, kind), ("y", pa.int64())])
    outcomes = pk.PruningPredicate(sql, schema, dialect="datafusion").classify(stats)
    assert set(outcomes.tolist()) == {pk.NONE_MATCH}, (sql, outcomes)


@pytest.mark.parametrize("sql, pairs", [
    # a partner's expression item stays in IN (A minus B): x IN (y) there
    ("x IN (y, 2) AND x NOT IN (2)", [(2, 2)]), ("x IN (y, 2) AND x NOT IN (2, NULL)", [(2, 2)]),
    ("(NOT (x IN (2)) AND x IN (y))", [(2, 2)]),
    ("NOT (x NOT IN (y, 2) OR x IN (2))", [(2, 2)]),
    # merged inside the NOT before it is pushed in: IN () is FALSE, NOT makes every row TRUE
    ("NOT (x + y IN (1, 5) AND x + y NOT IN (1, 5, 2))", [(None, 1), (1, None)]),
    ("NOT (abs(x) IN (1, 5) AND abs(x) NOT IN (1, 5, 2))", [(None, 1)]),
    ("NOT (x + y IN (1, 5) AND NOT (x + y IN (1, 5, 2))) AND y > 0", [(None, 1)])])
def test_merges_a_review_found_are_not_skipped(sql, pairs):
    """Merges that kept rows prunekit's first reading of them skipped (found by a review): an
    expression item among a partner's, and lists merged under a NOT before it is pushed in,
    whose empty merge folds to FALSE and so, under the NOT, to TRUE on NULL rows. One row
    per group; no group DataFusion returns a row of is skipped."""
    ctx = datafusion.SessionContext()
    for g, (x, y) in enumerate(pairs):
        ctx.register_record_batches(f"rg{g}", [pa.table({
            "x": pa.array([x], pa.int64()), "y": pa.array([y], pa.int64())}).to_batches()])
    columns = {c: np.ma.masked_array([p[k] or 0 for p in pairs], [p[k] is None for p in pairs],
                                     np.int64) for k, c in enumerate("xy")}
    stats = pk.Statistics.from_numpy(row_count=np.ones(len(pairs), np.int64), columns={
        c: {"min": v, "max": v, "null_count": v.mask.astype(np.int64)}
        for c, v in columns.items()})
    schema = pa.schema([("x", pa.int64()), ("y", pa.int64())])
    outcomes = pk.PruningPredicate(sql, schema, dialect="datafusion").classify(stats)
    for g, pair in enumerate(pairs):
        rows = ctx.sql(f"SELECT count(*) AS n FROM rg{g} WHERE {sql}").to_pydict()["n"][0]
        assert outcomes[g] != (pk.NONE_MATCH if rows else pk.ALL_MATCH), (sql, pair, rows)


# Lists left unknown because a merge may fold them to a constant, but whose items are values
# and whose one operand is NULL only where its column is: read where the column holds a value.
FOLDING_CASES = [
    "x NOT IN (1) OR x NOT IN (2)", "NOT (x IN (1) AND x IN (2))",
    "(y > 0 AND x NOT IN (1)) OR (y > 0 AND x NOT IN (2))",
    "NOT (x IN (1, 2) AND x NOT IN (1, 2, 3))", "NOT ((x IN (1) AND x IN (2)) AND y > 0)",
    "NOT (CAST(x AS BIGINT) IN (1) AND x IN (2))", "NOT ((x / 1) IN (1) AND 1 * x IN (2))",
    'NOT ("x" IN (1) AND x IN (2))', "NOT (x IN (1.0) AND x NOT IN (1.00, 2))",
    "NOT (f IN (1.5) AND f NOT IN (1.50))", "NOT ((x = 1 OR x = 2) AND (x IN (3) OR x = 4))",
    "NOT ((s LIKE 'c' OR s = 'b') AND (s IN ('a ', 'a') OR s = 'a'))",
    "NOT (y > 0 AND (x IN (-0, 0) AND x NOT IN (3, 0)))",
    "NOT (d IN (DATE '2020-01-01') AND d NOT IN (CAST('2020-01-01' AS DATE)))",
    "NOT (d IN (DATE '2020-01-01 12:00:00') AND d NOT IN (DATE '2020-01-01'))",
    "NOT (t IN (DATE '2020-01-01') AND t NOT IN (TIMESTAMP '2020-01-01 00:00:00.5'))",
    "NOT (q IN (2) AND q IN (1.5))", "u NOT IN (18446744073709551615) OR u NOT IN (1)"]


@pytest.mark.parametrize("sql, written", [
    # items the optimizer compares as expressions: x IN (x + 0, 1, 2) AND x IN (2, 3) is x = 2
    ("x IN (x + 0, 1, 2) AND x IN (2, 3)", "x IN (2, 3)"),
    ("(x IN (x + 0, 1) AND x IN (1, 4)) OR y IS NULL", "x IN (1, 4) OR y IS NULL"),
    # a float's zero merged into a set of four holds for 0.0 alone there
    ("f IN (2, 1.5) AND f = 0.0", "FALSE"),
    ("f = 0.0 OR f IN (1.5, 2, 3)", "(f > -1 AND f < 1) OR f IN (1.5, 2, 3)"),
    ("(f = -0.0 OR f IN (7, 2, 3)) AND y > 0", "((f > -1 AND f < 1) OR f IN (7, 2, 3)) AND y > 0")])
def test_a_merge_under_and_and_or_alone_passes_at_most_its_rows_as_written(
        groups, sql, written):
    """With no NOT above, a merge of an IN list (or an equality) leaves at most its rows as
    written: an AND's intersection or difference leaves fewer, an OR's union is the OR's own
    rows. Such a list is read as written AND an
    unknown leaf: a group is skipped exactly where ``written`` (the lists' rows as SQL reads
    them) has no row, never taken whole."""
    column = next(c for c in ("f", "x") if re.search(rf"\b{c}\b", sql))
    _skipped_exactly_where_none(groups[column], sql, written)


def _skipped_exactly_where_none(g: _Groups, sql: str, reading: str) -> None:
    """``sql`` is sound on every group and not read in full, and skips a group exactly where
    ``reading`` (the rows it is proven to keep at most) has no row."""
    assert not g.check(sql), sql
    rows = set(g.ctx.sql(f"SELECT g FROM t WHERE {reading}").to_pydict()["g"])
    outcomes = pk.PruningPredicate(sql, g.schema, dialect="datafusion").classify(g.stats)
    for k, outcome in enumerate(outcomes):
        assert (outcome == pk.NONE_MATCH) == (k not in rows), (sql, g.rows[k])


@pytest.mark.parametrize("sql", FOLDING_CASES)
def test_a_merge_that_may_fold_is_read_where_its_column_holds_a_value(groups, sql):
    """DataFusion's merge folds an empty list to a constant, TRUE or FALSE where the column is
    NULL too, and otherwise keeps the rows of its lists for each value: read as written
    where the column holds a value (every such group decided as DataFusion's rows say), and
    unknown where it is NULL. Groups of two rows, a value beside a NULL among them, too."""
    column = next(c for c in ("s", "f", "x", "d", "t", "q", "u") if re.search(rf"\b{c}\b", sql))
    g = groups[column]
    assert not g.check(sql), sql  # (sound on every group, and not read in full)
    pred = pk.PruningPredicate(sql, g.schema, dialect="datafusion")
    outcomes = pred.classify(g.stats)
    for outcome, (value, _) in zip(outcomes, g.rows, strict=True):
        if value is not None:
            assert outcome != pk.MAYBE_MATCH, (sql, value)
    # two rows a group: every pair of the column's rows (y NULL in both)
    kind, values = COLUMNS[column][0], COLUMNS[column][1]
    pairs = list(itertools.combinations_with_replacement(values, 2))
    rows = [v for pair in pairs for v in pair]
    ctx = datafusion.SessionContext()
    ctx.register_record_batches("t", [pa.table({
        column: pa.array(rows, kind), "y": pa.array([None] * len(rows), pa.int64()),
        "g": pa.array([k // 2 for k in range(len(rows))], pa.int64())}).to_batches()])
    hits = {}
    for k in ctx.sql(f"SELECT g FROM t WHERE {sql}").to_pydict()["g"]:
        hits[k] = hits.get(k, 0) + 1
    stats = pk.Statistics.from_numpy(
        row_count=np.full(len(pairs), 2, np.int64),
        columns={column: _bounds(pairs, kind), "y": _exact([None] * len(pairs), pa.int64())})
    for k, outcome in enumerate(pred.classify(stats)):
        assert outcome != (pk.NONE_MATCH if hits.get(k) else pk.ALL_MATCH), (sql, pairs[k])
        assert outcome != pk.ALL_MATCH or hits.get(k) == 2, (sql, pairs[k])


@pytest.mark.parametrize("sql, at_null", [
    ("NOT (x NOT IN (1) OR (x IN (3, 4) OR x = 4))", {pk.NONE_MATCH}),
    ("NOT (x <> 1 AND x <> 3) AND x NOT IN (2)", {pk.NONE_MATCH}),
    ("NOT (s NOT LIKE 'a' AND s NOT LIKE 'c') AND s NOT IN ('b')", {pk.NONE_MATCH}),
    ("NOT ((x IN (1) AND x IN (2)) IS TRUE)", {pk.ALL_MATCH}),
    ("NOT (x IN (1) AND x IN (2))", {pk.MAYBE_MATCH}),
    ("(x NOT IN (1) OR x NOT IN (2)) IS NOT TRUE", {pk.MAYBE_MATCH}),
    ("NOT (((x >= 1 AND x <= 1) OR x = 3) AND x NOT IN (2))", {pk.MAYBE_MATCH}),
    # (BETWEEN under a NOT is x < 1 OR x > 1 there, no list: nothing merges)
    ("NOT ((x BETWEEN 1 AND 1 OR x = 3) AND x NOT IN (2))", {pk.NONE_MATCH}),
    # where a NULL item, an expression or a float's zero leaves the values unknown too
    ("NOT (x NOT IN (1, NULL) OR x IN (3, 4))", {pk.NONE_MATCH}),
    ("NOT (x NOT IN (x, 1) OR x = 2)", {pk.NONE_MATCH}),
    ("NOT (f NOT IN (0.0, 1.5) OR f IN (2, 3, -0.0))", {pk.NONE_MATCH}),
    ("NOT (d NOT IN (DATE '2020-01-01', NULL) OR d IN (TIMESTAMP '2020-01-01 00:00:00'))",
     {pk.NONE_MATCH}),
    ("NOT (x IN (x, 1) AND x IN (2))", {pk.MAYBE_MATCH})])
def test_a_merge_where_its_column_is_null_is_null_or_its_constant(groups, sql, at_null):
    """Where the column is NULL a merged list is NULL, or the constant an empty merge folds
    to: FALSE for a list or an ``=`` (TRUE for ``<>``, NOT LIKE), the value of its lists'
    op over parts that all fail. So a group of NULLs is skipped where neither makes the
    predicate TRUE, and kept where the constant may (DataFusion returns the NULL rows of
    ``NOT (x IN (1) AND x IN (2))``)."""
    column = next(c for c in ("s", "f", "x", "d") if re.search(rf"\b{c}\b", sql))
    groups[column].check(sql)  # (sound on every group)
    outcomes = pk.PruningPredicate(sql, groups[column].schema, dialect="datafusion").classify(
        groups[column].stats)
    assert {int(o) for o, (v, _) in zip(outcomes, groups[column].rows, strict=True)
            if v is None} == at_null, sql


def _bounds(pairs: list, kind: pa.DataType) -> dict:
    """Exact statistics of groups of two rows."""
    def low(pair):
        present = [v for v in pair if v is not None]
        return min(present) if present else None

    def high(pair):
        present = [v for v in pair if v is not None]
        return max(present) if present else None

    lows, highs = _exact([low(p) for p in pairs], kind), _exact([high(p) for p in pairs], kind)
    return {"min": lows["min"], "max": highs["max"],
            "null_count": np.array([sum(v is None for v in p) for p in pairs], np.int64)}


def _random_predicate(rng: random.Random, column: str, depth: int = 3) -> str:
    """A predicate of lists, equalities, LIKEs and IS tests on ``column``, beside ``y > 0``
    (and a float's bounds, which its optimizer keeps), under AND, OR and NOT."""
    _, _, items, operands = COLUMNS[column]
    if depth == 0 or rng.random() < 0.3:
        pick = ", ".join(rng.sample(items, rng.randint(1, 3)))
        r, on = rng.random(), rng.choice(operands)
        atom = (f"{on} IN ({pick})" if r < 0.3 else f"{on} NOT IN ({pick})" if r < 0.6
                else f"{on} = {rng.choice(items)}" if r < 0.7
                else f"{on} <> {rng.choice(items)}" if r < 0.77
                else f"s LIKE {rng.choice(items)}" if r < 0.85 and column == "s"
                else f"({on} IN ({pick})) IS NOT TRUE" if r < 0.9
                else f"f {rng.choice(('<', '>='))} 1.5" if r < 0.95 and column == "f"
                else "y > 0")
        return f"NOT ({atom})" if rng.random() < 0.2 else atom
    r = rng.random()
    if r < 0.2:
        return f"NOT ({_random_predicate(rng, column, depth - 1)})"
    return (f"({_random_predicate(rng, column, depth - 1)} {'AND' if r < 0.6 else 'OR'} "
            f"{_random_predicate(rng, column, depth - 1)})")


@pytest.mark.parametrize("column", list(COLUMNS))
def test_random_merges_never_part_from_datafusion(groups, column):
    """Random predicates with two or more lists or equalities on a column: no group decided
    against DataFusion's rows, every one decided where the predicate is read in full, and
    many read in full (the merges proven to keep the rows)."""
    rng = random.Random(f"merges-{column}")
    count = tiers.pick(60, 1500)
    seen, read = set(), 0
    while len(seen) < count:
        sql = _random_predicate(rng, column)
        if sql in seen or sql.count(f"{column} ") < 2:
            continue
        seen.add(sql)
        read += groups[column].check(sql)
    assert read >= count // (40 if column == "f" else 8), read  # (zeros split f's lists)


def _nested_float_predicate(rng: random.Random, depth: int = 3) -> str:
    """Lists (zeros of both signs, NULL, a number beyond INT among their items), equalities,
    BETWEENs and bounds on ``f``, nested two or three wide under AND, OR and NOT: chains of
    one op around lists, which its optimizer may or may not make sides of the op above."""
    items = ["0", "-0.0", "0.0", "1.5", "2", "7", "NULL", "2147483648"]
    if depth == 0 or rng.random() < 0.3:
        if rng.random() < 0.3:
            return f"f {rng.choice(('<', '<=', '>', '>='))} {rng.choice(('1.5', '2', '0.5'))}"
        pick = ", ".join(rng.choice(items) for _ in range(rng.randint(1, 4)))
        r = rng.random()
        atom = (f"f {'NOT ' if rng.random() < 0.5 else ''}IN ({pick})" if r < 0.6
                else f"f {rng.choice(('=', '<>'))} {rng.choice(items)}" if r < 0.8
                else f"f BETWEEN {rng.choice(items)} AND {rng.choice(items)}")
        return f"NOT ({atom})" if rng.random() < 0.25 else atom
    op = rng.choice(("AND", "OR"))
    text = "(" + f" {op} ".join(_nested_float_predicate(rng, depth - 1)
                                for _ in range(rng.randint(2, 3))) + ")"
    return f"NOT {text}" if rng.random() < 0.2 else text


def test_random_nested_lists_beside_bounds_never_part_from_datafusion(groups):
    """Lists and bounds on a float nested in chains of AND and OR: no group decided against
    DataFusion's rows (such a fuzz found ``NOT (f <> 0.0)`` beside a list with a NULL item
    ALL_MATCH on -0.0, which its merge into a set fails), every one decided where the
    predicate is read in full, and some read in full."""
    rng = random.Random("nested-f")
    count = tiers.pick(15, 800)  # (each a kernel compiled cold: the deep tier runs more)
    read = sum(groups["f"].check(_nested_float_predicate(rng)) for _ in range(count))
    assert read >= max(1, count // 20), read


def test_a_number_cast_to_a_wide_decimal_is_weighed_without_error():
    """An item cast to DECIMAL(38, 10) holds 29 digits at its scale, beyond the default decimal
    context: weighing it as a value among a merge's items must not raise (found by the
    DataFusion differential, seed 81190435)."""
    schema = pa.schema([("x", pa.int64()), ("t", pa.timestamp("us"))])
    sql = ("CAST(x AS BIGINT) IN (0, CAST(-9223372036854775808 AS DECIMAL(38,10)), 2.5) OR "
           "(x NOT IN (18446744073709551616, 1e-3, -9223372036854775808, 5) AND "
           "CAST(t AS DATE) = CAST(t AS DATE))")
    explained = pk.PruningPredicate(sql, schema, dialect="datafusion").explain()
    assert explained.startswith("predicate: x IN (0, -9223372036854775808) OR"), explained


def test_struct_fields_written_two_ways_are_one_column():
    """``st.a`` and ``st['a']`` are one field to DataFusion: lists on them may merge."""
    import sqlglot
    from sqlglot import exp

    from prunekit.expr.syntax.list_merges import MAY_MERGE, MERGES_EXACTLY, mark_exact_merges

    tree = sqlglot.parse_one("st.a NOT IN (5, NULL) AND st['a'] IN (1, 2)", read="postgres")
    mark_exact_merges(tree, {"st": pa.struct([("a", pa.int64())])})
    negated = next(x for x in tree.find_all(exp.In) if isinstance(x.parent, exp.Not))
    assert negated.meta.get(MAY_MERGE) and not negated.meta.get(MERGES_EXACTLY)


@pytest.mark.parametrize("sql", [
    "NOT (f IN (0.0, 1.5, 2) AND f NOT IN (2, 7))",
    "f NOT IN (1, 1e308, CAST('-Infinity' AS DOUBLE)) AND NOT (f <> -0.0)",
    "NOT (f IN (-0.0, 1.5) OR f IN (2, 7, NULL))",
    "NOT (x IN (-0.0, 1, 2) AND CAST(x AS DOUBLE) NOT IN (NULL, 3, 1.5))"])
def test_a_merge_of_a_float_zero_is_read_where_the_column_holds_another_value(groups, sql):
    """A float's zero in a merged set is told from -0.0 there, while ``=`` takes them for one:
    the merge parts from the rows as written only where the operand is a zero. Each group of
    another value is decided as DataFusion's rows say (sound on every group, and not read in
    full)."""
    column = "f" if re.search(r"\bf\b", sql) else "x"
    g = groups[column]
    assert not g.check(sql), sql
    outcomes = pk.PruningPredicate(sql, g.schema, dialect="datafusion").classify(g.stats)
    decided = [value for outcome, (value, _) in zip(outcomes, g.rows, strict=True)
               if outcome != pk.MAYBE_MATCH]
    assert {v for v, _ in g.rows if v is not None and v != 0} <= set(decided), (sql, decided)


@pytest.mark.parametrize("sql", [
    "NOT (f <> -1e308 OR f IN (0.5, -0.0, -0.0, 0.001))",
    "NOT (f <> 7 OR f IN (0.0, 1.5, 2, 3))",
    "NOT (f IN (1.5, 2, 3, 7) AND f NOT IN (-0.0, 2))"])
def test_a_list_without_a_zero_is_read_at_a_zero_beside_one_with(groups, sql):
    """Of a list (or equality) with a float's zero and one without, merged into a set, only
    the one with the zero parts from the rows as written at a zero: the other holds for no
    zero, merged or not (found by the DataFusion differential, seed 91000738). So a group of
    a zero is decided where that one decides the predicate alone, as DataFusion's rows say
    (sound on every group, and not read in full)."""
    g = groups["f"]
    assert not g.check(sql), sql
    outcomes = pk.PruningPredicate(sql, g.schema, dialect="datafusion").classify(g.stats)
    at_zero = [outcome for outcome, (value, _) in zip(outcomes, g.rows, strict=True)
               if value == 0]
    assert at_zero and pk.MAYBE_MATCH not in at_zero, (sql, at_zero)


@pytest.mark.parametrize("sql", [
    "NOT (x = 1 OR x = 2) OR x NOT IN (18446744073709551616, 1, 0)",
    "(x = 1 OR x = 2) AND x IN (18446744073709551616, 3, 0)",
    "NOT (x = 1 OR x = 2) OR x NOT IN (18446744073709551616, 1.5, 0)"])
def test_a_list_beside_a_number_beyond_bigint_is_compared_apart_from_the_column(groups, sql):
    """A whole number beyond unsigned BIGINT is a DOUBLE there, and an integer column's list
    holding one compares the column's DOUBLE: another expression than the column its
    equalities compare, which the optimizer never merges with them. Each is read in full,
    every group decided as DataFusion's rows say (the NULL ones skipped)."""
    assert groups["x"].check(sql), sql


@pytest.mark.parametrize("sql", [
    "NOT (x <> 1 OR x <> 2 OR abs(x) IN (9E+0, 18446744073709551616))",
    "x IN (1, 2) AND abs(x) IN (2, 3)", "NOT (x = 1 OR abs(x) = 2) OR x NOT IN (3, NULL)"])
def test_abs_of_a_column_is_another_operand_than_the_column(groups, sql):
    """The optimizer never makes ``abs(x)`` the column (checked on its plans, for an
    unsigned column too): its lists are never merged with the column's. Each is read in
    full, every group decided as DataFusion's rows say."""
    assert groups["x"].check(sql), sql
