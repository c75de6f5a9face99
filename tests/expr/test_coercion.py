"""Spark's implicit casts, case by case (tests/expr/test_spark_typing.py checks the same forms in
Spark itself, over every type): a column cast in a way that keeps its order is read through the
cast, one that does not is unknown (never folded), and a literal is cast as Spark casts it, per
mode.
"""

from __future__ import annotations

import datetime as dt
from decimal import Decimal

import numpy as np
import pyarrow as pa
import pytest

import prunekit as pk
from prunekit.expr.spark_types import coercion as C
from tests.support.cases import ALL, BACKENDS, MAYBE, NONE


def _one(t: pa.DataType, lo, hi, nulls=0, rows=3) -> pk.Statistics:
    fields = [pa.array([lo], t), pa.array([hi], t), pa.array([nulls], pa.int64())]
    names = ["min", "max", "null_count"]
    return pk.Statistics.from_arrow(pa.table({
        "row_count": pa.array([rows], pa.int64()),
        "c": pa.StructArray.from_arrays(fields, names)}))


def _outcome(sql: str, t: pa.DataType, lo, hi, backend: str = "numpy", nulls=0) -> int:
    pred = pk.PruningPredicate(sql, {"c": t})
    return int(pred.classify(_one(t, lo, hi, nulls), backend=backend)[0])


def test_isnan_of_a_string_is_not_folded():
    # The reproducer: 'NaN' and 'nan' are NaN once Spark casts the string to DOUBLE.
    st = pk.Statistics.from_numpy(row_count=np.array([3]), columns={"s": {
        "min": np.array(["NaN"], dtype=object), "max": np.array(["nan"], dtype=object),
        "null_count": np.array([0])}})
    assert pk.PruningPredicate("isnan(s)", {"s": pa.string()}).classify(st).tolist() == [MAYBE]
    assert pk.PruningPredicate("NOT isnan(s)", {"s": pa.string()}).classify(st).tolist() == [
        MAYBE]


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize(("sql", "t", "lo", "hi", "expected", "why"), [
    # A string column cast to a number, a date or a boolean does not keep its order.
    ("c = 12345", pa.string(), "12345", "12345", MAYBE, "' 12345' and '012345' are 12345 too"),
    ("c > 5", pa.string(), "6", "9", MAYBE, "'10' < '6' as text, 10 > 5 as a number"),
    ("c = DATE '2024-01-01'", pa.string(), "a", "b", MAYBE, "'2024-1-1' is that date too"),
    ("c IN (1, 'a')", pa.string(), "b", "c", MAYBE, "ANSI compares as BIGINT: unknown"),
    ("c = true", pa.string(), "x", "y", MAYBE, "'yes' is TRUE"),
    # A number column with a string: the string is cast to the number's type.
    ("c = '55'", pa.int64(), 50, 60, MAYBE, "55 in range"),
    ("c = '55'", pa.int64(), 60, 70, NONE, "55 below"),
    ("c = ' 55 '", pa.int64(), 55, 55, ALL, "trimmed"),
    ("c = 'abc'", pa.int64(), 0, 100, NONE, "NULL in legacy mode, fails under ANSI"),
    ("c < '1.5'", pa.int32(), 1, 1, NONE, "legacy: 1.5 as INT is 1; ANSI fails"),
    ("c = '2024-01-01'", pa.int32(), 0, 10, NONE, "no integer's text"),
    ("c > '1e3'", pa.float64(), 2000.0, 3000.0, ALL, "DOUBLE reads 1e3"),
    ("c = '1.25'", pa.decimal128(5, 2), Decimal("1.25"), Decimal("1.25"), ALL,
     "a string against a DECIMAL compares in DOUBLE"),
    # Dates and timestamps with strings, Spark's grammar.
    ("c >= '2024'", pa.date32(), dt.date(2024, 1, 1), dt.date(2024, 2, 1), ALL,
     "'2024' is 2024-01-01"),
    ("c = '20240101'", pa.date32(), dt.date(2024, 1, 1), dt.date(2024, 1, 1), NONE,
     "eight digits are no date"),
    ("c < '2024-01-01 23:59'", pa.date32(), dt.date(2024, 1, 1), dt.date(2024, 1, 1), NONE,
     "a date string ignores the time: 2024-01-01 < 2024-01-01 is FALSE"),
    ("c < '2024-01-01T12:00:00+01:00'", pa.timestamp("us", tz="UTC"),
     dt.datetime(2024, 1, 1, 11, tzinfo=dt.timezone.utc),
     dt.datetime(2024, 1, 1, 11, tzinfo=dt.timezone.utc), NONE, "the offset applies"),
    ("c < '12:00'", pa.timestamp("us", tz="UTC"),
     dt.datetime(2024, 1, 1, tzinfo=dt.timezone.utc),
     dt.datetime(2024, 1, 1, tzinfo=dt.timezone.utc), MAYBE, "a time alone is today's"),
    # Booleans and numbers (legacy mode only).
    ("c = 1", pa.int32(), 1, 1, ALL, "no cast"),
    ("c < 1.5", pa.bool_(), True, True, ALL, "legacy casts TRUE to 1; ANSI refuses"),
    ("c = true", pa.int32(), 2, 2, NONE, "legacy: TRUE as INT is 1"),
    # Literals with literals.
    ("'1' = 1", pa.int32(), 0, 0, ALL, "compared as numbers in both modes"),
    ("'abc' > 5", pa.int32(), 0, 0, NONE, "NULL, or a failed query"),
    # Beyond 38 digits Spark keeps a comparison's integer digits and cuts its scale (checked in
    # Spark 4.3): INT against DECIMAL(38,37) is DECIMAL(38,28); an integer literal has only
    # its own digits; a column whose scale is cut rounds, which is not worked out.
    ("10 = CAST(1 AS DECIMAL(38,37))", pa.int32(), 0, 0, NONE, "in DECIMAL(38,28)"),
    ("(c > CAST(1 AS DECIMAL(38,37))) IS NOT TRUE", pa.int32(), 100, 200, NONE,
     "DECIMAL(38,28) holds c and 1"),
    ("(c IN (CAST(1 AS DECIMAL(38,37)), 10)) IS NOT TRUE", pa.int32(), 10, 10, NONE,
     "the list's DECIMAL(38,28) holds 10"),
    ("c = 1", pa.decimal128(38, 37), Decimal("1.0000000000000000000000000000000000001"),
     Decimal("1.0000000000000000000000000000000000001"), NONE, "1 is DECIMAL(1,0): exact"),
    ("(c < 99999999999999999999) IS NOT TRUE", pa.decimal128(38, 37), Decimal(1),
     Decimal(2), MAYBE, "DECIMAL(38,18): c rounds, not worked out"),
    ("c = 0.00000000005", pa.decimal128(38, 10), Decimal("1E-10"), Decimal("1E-10"), ALL,
     "DECIMAL(38,10): the literal rounds half up to 1E-10"),
    # Text as Spark writes and reads it.
    ("c IN ('-0.0', 'abc')", pa.float64(), -1.0, 1.0, MAYBE, "legacy: -0.0 is '-0.0'"),
    ("c IN ('-0.0', 'abc')", pa.float64(), 1.0, 2.0, NONE, "no zero"),
    ("c = '2015-03-18T12:03:17-1:0'", pa.timestamp("us", tz="UTC"),
     dt.datetime(2015, 3, 18, 13, 3, 17, tzinfo=dt.timezone.utc),
     dt.datetime(2015, 3, 18, 13, 3, 17, tzinfo=dt.timezone.utc), MAYBE,
     "Java reads the offset -1:0; prunekit does not work it out"),
    ("(c = CAST('1_000' AS DECIMAL(10,2))) IS NOT TRUE", pa.int32(), 1000, 1000, ALL,
     "Java's BigDecimal reads no underscore: NULL"),
])
def test_implicit_cast(sql, t, lo, hi, expected, why, backend):
    assert _outcome(sql, t, lo, hi, backend) == expected, why


def test_distinct_from_a_string_that_is_null_in_legacy_mode():
    # c IS DISTINCT FROM 'abc' on an INT column: legacy reads 'abc' as NULL, so NULL rows are
    # not distinct (FALSE); ANSI fails. Never ALL_MATCH for a container with NULLs.
    assert _outcome("c IS DISTINCT FROM 'abc'", pa.int32(), 1, 5, nulls=1) == MAYBE
    assert _outcome("c IS DISTINCT FROM 'abc'", pa.int32(), 1, 5) == ALL
    assert _outcome("c <=> '1'", pa.date32(), dt.date(2024, 1, 1), dt.date(2024, 1, 1),
                    nulls=1) == MAYBE


@pytest.mark.parametrize(("sql", "message"), [
    ("c >> 1", "(c >> 1) is a numeric value"),
    ("c IS NULL AND c >> 1", "(c >> 1)"),
    ("NOT abs(c)", "abs(c)"),
    ("CASE WHEN c + 1 THEN true END", "c + 1"),
    ("c > > 1", ">>"),
    ("length(s)", "length(s)"),
    ("c", "column c of type int32"),
    ("c = DATE '2024-01-01'", "Spark refuses"),
    ("-d > '1'", "cannot negate d"),
    ("-CAST(NULL AS DATE) IS NULL", "cannot negate NULL of type date32"),
])
def test_not_a_boolean_or_refused_names_it(sql, message):
    with pytest.raises(pk.TypeMismatchError) as info:
        pk.PruningPredicate(sql, {"c": pa.int32(), "s": pa.string(), "d": pa.date32()})
    assert message in str(info.value), str(info.value)


WIDE = "-9999999999999999999999999999.99999999995"  # 39 digits: no DECIMAL holds it


@pytest.mark.parametrize("predicate", [
    f"w IN ({WIDE}, -0.00000000005)",  # the fuzzer's case: Spark fails the query in both modes
    f"w > {WIDE}", f"w > CAST({WIDE} AS DECIMAL(38, 10))", f"c < {WIDE}",
    "w = 123456789012345678901234567890123456789",
    pk.col("w") > pk.lit(Decimal(WIDE)), pk.col("c").isin([Decimal(WIDE)]),
], ids=str)
def test_a_literal_of_more_than_38_digits_is_refused_as_spark_refuses_it(predicate):
    with pytest.raises(pk.TypeMismatchError, match="39 digits.*Spark refuses it"):
        pk.PruningPredicate(predicate, {"w": pa.decimal128(38, 10), "c": pa.int32()})


def test_without_the_wide_literal_the_list_is_read_as_spark_reads_it():
    # Spark rounds -0.00000000005 to scale 10 (half up: -0.0000000001), which the container's
    # one value equals.
    t = pa.decimal128(38, 10)
    value = Decimal("-0.0000000001")
    assert _outcome("c IN (-0.00000000005)", t, value, value) == ALL


@pytest.mark.parametrize("sql", ["(c + 1) IS TRUE", "NOT s", "s OR c > 10", "s IS NOT FALSE"])
def test_a_value_spark_casts_to_boolean_is_unknown(sql):
    # Legacy mode casts a number to BOOLEAN under IS TRUE; ANSI a string under NOT/AND/OR.
    pred = pk.PruningPredicate(sql, {"c": pa.int32(), "s": pa.string()})
    stats = pk.Statistics.from_numpy(row_count=np.array([2]), columns={
        "c": {"min": np.array([5]), "max": np.array([6]), "null_count": np.array([0])},
        "s": {"min": np.array(["a"], dtype=object), "max": np.array(["b"], dtype=object),
              "null_count": np.array([0])}})
    assert pred.classify(stats).tolist() == [MAYBE]


@pytest.mark.parametrize(("a", "b", "ansi", "legacy"), [
    (pa.int32(), pa.string(), pa.int64(), pa.int32()),
    (pa.string(), pa.decimal128(5, 2), pa.float64(), pa.float64()),
    (pa.string(), pa.float32(), pa.float64(), pa.float32()),
    (pa.int64(), pa.float32(), pa.float64(), pa.float32()),
    (pa.int16(), pa.float32(), pa.float32(), pa.float32()),
    (pa.bool_(), pa.int64(), None, pa.int64()),
    (pa.date32(), pa.timestamp("us", tz="UTC"), C.TIMESTAMP, C.TIMESTAMP),
    (pa.date32(), pa.timestamp("us"), C.TIMESTAMP_NTZ, C.TIMESTAMP_NTZ),
    (pa.date32(), pa.int32(), None, None),
    (pa.decimal128(10, 2), pa.int64(), pa.decimal128(22, 2), pa.decimal128(22, 2)),
    (pa.uint32(), pa.string(), pa.int64(), pa.int64()),
])
def test_comparison_type(a, b, ansi, legacy):
    assert C.comparison_type(a, b, C.ANSI) == ansi
    assert C.comparison_type(b, a, C.LEGACY) == legacy


def test_from_numpy_decimals_follow_the_schema_or_types():
    # Decimal objects: the inferred DECIMAL(3, 2) is read as the schema's DECIMAL(10, 2); a
    # bound with more digits than the column holds is unknown, not rounded.
    stats = pk.Statistics.from_numpy(row_count=np.array([3, 3, 3]), columns={"p": {
        "min": np.array([Decimal("1.50"), Decimal("5.25"), Decimal("1.005")], dtype=object),
        "max": np.array([Decimal("2.00"), Decimal("9.99"), Decimal("2.5")], dtype=object),
        "null_count": np.array([0, 0, 0])}})
    pred = pk.PruningPredicate("p > 3", {"p": pa.decimal128(10, 2)})
    assert pred.classify(stats).tolist() == [NONE, ALL, NONE]
    assert pk.PruningPredicate("p < 1.1", {"p": pa.decimal128(10, 2)}).classify(
        stats).tolist() == [NONE, NONE, MAYBE]
    # Integers with types=: unscaled, as Parquet stores them, at any precision and width.
    for t in (pa.decimal32(9, 2), pa.decimal64(12, 2), pa.decimal128(10, 2),
              pa.decimal128(38, 2), pa.decimal256(60, 2)):
        stats = pk.Statistics.from_numpy(row_count=np.array([3, 3]), columns={"p": {
            "min": np.ma.masked_array([150, -525], mask=[0, 1]), "max": np.array([200, 999]),
            "null_count": np.array([0, 0])}}, types={"p": t})
        assert stats.table.column("p").to_pylist()[0]["min"] == Decimal("1.50")
        assert pk.PruningPredicate("p > 3", {"p": t}).classify(stats).tolist() == [NONE, MAYBE]
    with pytest.raises(pk.StatisticsError, match="more than 10 digits"):
        pk.Statistics.from_numpy(row_count=None, columns={"p": {
            "min": np.array([10**10]), "max": np.array([1]), "null_count": None}},
            types={"p": pa.decimal128(10, 2)})


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize(("t", "x", "y", "sql", "expected"), [
    (pa.int64(), (1, 5), (1, 10), "x * y > 100", NONE),
    (pa.int64(), (-20, -10), (1, 5), "x * y > 0", NONE),
    (pa.int64(), (-20, -10), (-5, -2), "x * y >= 20", ALL),
    (pa.int64(), (100000, 200000), (100000, 200000), "x * y > 100", ALL),
    (pa.int32(), (100000, 200000), (100000, 200000), "x * y > 100", MAYBE),  # INT overflows
    (pa.int64(), (2**40, 2**41), (1, 2), "x * y > 100", MAYBE),  # beyond the corner check
])
def test_product_of_two_columns(t, x, y, sql, expected, backend):
    stats = pk.Statistics.from_numpy(row_count=np.array([4]), columns={
        "x": {"min": np.array([x[0]]), "max": np.array([x[1]]), "null_count": np.array([0])},
        "y": {"min": np.array([y[0]]), "max": np.array([y[1]]), "null_count": np.array([0])}})
    pred = pk.PruningPredicate(sql, {"x": t, "y": t})
    assert pred.classify(stats, backend=backend).tolist() == [expected], pred.explain()


@pytest.mark.parametrize("backend", BACKENDS)
def test_a_list_item_beyond_the_column_equals_none_of_its_rows(backend):
    """``CAST(c AS uint64) IN (1.8446744073709552e19)`` of a uint8 column: the DOUBLE 2**64
    is every uint64 from 2**64 - 1024 up, none of which a uint8 holds, so no row matches
    (found by the property test: the kernels failed on a parameter beyond BIGINT)."""
    from prunekit.expr.syntax import nodes as n

    pred = n.In(arg=n.Cast(arg=n.Column(name="c", fields=()), to=pa.uint64(), safe=False),
                values=(n.Literal(value=1.8446744073709552e19, type=None),))
    schema = pa.schema([("c", pa.uint8())])
    outcome = pk.PruningPredicate(pred, schema).classify(_one(pa.uint8(), 0, 255), backend=backend)
    assert outcome.tolist() == [NONE]
