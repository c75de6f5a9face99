"""Errors: each mistake raises the right prunekit error class with a clear message, and nothing
ever surfaces as a raw Numba, LLVM or Arrow exception."""

from __future__ import annotations

import numpy as np
import pyarrow as pa
import pytest

import prunekit as pk
from tests.support.cases import ALL, BACKENDS, MAYBE, NONE

SCHEMA = pa.schema([("x", pa.int64()), ("y", pa.int64()), ("amount", pa.int64()),
                    ("s", pa.string()), ("f", pa.float64()), ("d", pa.date32()),
                    ("flag", pa.bool_()), ("u", pa.uint64())])


def _struct(**fields) -> pa.StructArray:
    return pa.StructArray.from_arrays(list(fields.values()), list(fields))


# ---- malformed SQL ---------------------------------------------------------------------------
MALFORMED = [  # text, line of the problem
    ("x > 5 AND", 1), ("x >", 1), ("(x > 5", 1), ("x > 5)", 1), ("x = = 5", 1),
    ("x > 5 AND AND y < 3", 1), ("x IN (1, 2", 1), ("s = 'abc", 1), ("", 1), ("   ", 1),
    ("x > 5\nAND AND y < 3", 2), ("x > 5\n  AND (y < 3", 2), ("x > 5 garbage", 1),
    ("SELECT x FROM t", 1), ("x BETWEEN 1", 1), ("x > 5; y < 3", 1),
]


@pytest.mark.parametrize(("sql", "line"), MALFORMED, ids=[repr(s) for s, _ in MALFORMED])
def test_malformed_sql(sql, line):
    with pytest.raises(pk.SqlSyntaxError) as info:
        pk.PruningPredicate(sql, SCHEMA)
    e = info.value
    assert isinstance(e, ValueError) and isinstance(e, pk.PrunekitError)
    assert e.line == line, (e.line, str(e))
    lines = sql.split("\n")
    assert isinstance(e.col, int) and 1 <= e.col <= len(lines[e.line - 1]) + 1, (e.col, str(e))
    assert f"line {e.line}" in str(e)


def test_malformed_sql_column_points_at_the_problem():
    # 'x > 5 AND ' ends where the missing operand should start (column 9 or 10, 1-based).
    e = pytest.raises(pk.SqlSyntaxError, pk.PruningPredicate, "x > 5 AND", SCHEMA).value
    assert e.line == 1 and 7 <= e.col <= 10, e.col
    e = pytest.raises(pk.SqlSyntaxError, pk.PruningPredicate, "x > 5\nAND AND y < 3",
                      SCHEMA).value
    assert e.line == 2 and 1 <= e.col <= 8, e.col


# ---- unknown columns ---------------------------------------------------------------------------
@pytest.mark.parametrize("predicate", [
    "amout > 5", "x > 5 AND (amout < 3 OR y = 1)", "amout IN (1, 2)", "amout IS NULL",
    "CAST(amout AS DOUBLE) > 1", "x < amout", pk.col("amout") > 5,
    (pk.col("x") > 5) & pk.col("amout").is_null(),
], ids=str)
def test_unknown_column_suggests_close_name(predicate):
    with pytest.raises(pk.UnknownColumnError) as info:
        pk.PruningPredicate(predicate, SCHEMA)
    e = info.value
    assert isinstance(e, LookupError) and isinstance(e, pk.PrunekitError)
    assert "amout" in str(e) and "amount" in str(e), str(e)
    assert not str(e).startswith(("'", '"')), "the message, not the repr of the message"


def test_unknown_column_without_close_name_lists_columns():
    e = pytest.raises(pk.UnknownColumnError, pk.PruningPredicate, "zzzz > 1", SCHEMA).value
    assert "zzzz" in str(e) and "amount" in str(e)


# ---- literals Spark casts, and comparisons it refuses ------------------------------------------
def _x_from_0_to_10() -> pk.Statistics:
    return pk.Statistics.from_numpy(row_count=np.array([5]), columns={
        "x": {"min": np.array([0]), "max": np.array([10]), "null_count": np.array([0])}})


@pytest.mark.parametrize("predicate", [
    "x = 'abc'", "'abc' = x", "x > 'abc'", "x BETWEEN 'a' AND 5", "x = ''", "x < 'NaN'",
    pk.col("x") == "abc",
], ids=str)
def test_text_that_is_no_number_is_null(predicate):
    # Spark casts the string to the column's type: NULL in legacy mode, a failed query under
    # ANSI. Accepted, and no row can match.
    pred = pk.PruningPredicate(predicate, SCHEMA)
    assert pred.classify(_x_from_0_to_10()).tolist() == [NONE], pred.explain()


def test_list_of_numbers_and_text_compares_as_text_in_legacy_mode():
    # Legacy Spark compares x IN (1, 'abc') as strings: '1' is the text of 1, 'abc' of nothing.
    pred = pk.PruningPredicate("x IN (1, 'abc')", SCHEMA)
    assert pred.classify(_x_from_0_to_10()).tolist() == [MAYBE]
    assert pk.PruningPredicate("x IN (20, 'abc')", SCHEMA).classify(
        _x_from_0_to_10()).tolist() == [NONE]


@pytest.mark.parametrize("predicate", [
    "x = DATE '2024-01-01'", "d = 5", "d > 1.5E0", "d IN (1, 2)", "x = X'01'",
    pk.col("d") == 5,
], ids=str)
def test_comparison_spark_refuses_in_both_modes(predicate):
    with pytest.raises(pk.TypeMismatchError) as info:
        pk.PruningPredicate(predicate, SCHEMA)
    e = info.value
    assert isinstance(e, TypeError) and isinstance(e, pk.PrunekitError)
    message = str(e)
    assert "Spark refuses" in message and ("int64" in message or "date32" in message), message


# ---- predicates that are not boolean -----------------------------------------------------------
@pytest.mark.parametrize("predicate", [
    "x + 1", "5", "x", "'abc'", "s", "1.5", "x * 2 AND y > 1", "CAST(x AS STRING)", "-x",
    "x > 1 AND (y - 1)", pk.col("x"), pk.lit(5), pk.col("x") & (pk.col("y") > 1),
], ids=str)
def test_non_boolean_predicate(predicate):
    with pytest.raises(pk.PrunekitError) as info:
        pk.PruningPredicate(predicate, SCHEMA)
    assert isinstance(info.value, (pk.TypeMismatchError, pk.UnsupportedError))
    assert "boolean" in str(info.value), str(info.value)


# ---- statistics in the wrong shape -------------------------------------------------------------
def test_from_numpy_arrays_of_different_lengths():
    with pytest.raises(pk.StatisticsError) as info:
        pk.Statistics.from_numpy(row_count=np.array([10, 10, 10]), columns={
            "x": {"min": np.array([1, 2]), "max": np.array([3, 4, 5]),
                  "null_count": np.array([0, 0, 0])}})
    assert isinstance(info.value, ValueError)
    assert "length" in str(info.value) and "x.min" in str(info.value), str(info.value)
    with pytest.raises(pk.StatisticsError, match="length"):
        pk.Statistics.from_numpy(row_count=np.array([10, 10]), columns={
            "x": {"min": np.array([1, 2, 3]), "max": np.array([3, 4, 5]),
                  "null_count": np.array([0, 0, 0])}})


@pytest.mark.parametrize("missing", ["min", "max", "null_count"])
def test_struct_without_a_required_field(missing):
    fields = {"min": pa.array([1]), "max": pa.array([3]), "null_count": pa.array([0])}
    del fields[missing]
    table = pa.table({"row_count": [10], "x": _struct(**fields)})
    with pytest.raises(pk.StatisticsError) as info:
        pk.Statistics.from_arrow(table)
    assert isinstance(info.value, ValueError)
    assert repr(missing) in str(info.value) and "'x'" in str(info.value), str(info.value)
    with pytest.raises(pk.StatisticsError):  # classify on the raw table checks it too
        pk.PruningPredicate("x > 5", SCHEMA).classify(table)


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize(("column", "fields", "predicate"), [
    ("x", {"min": pa.array(["a"]), "max": pa.array(["b"])}, "x > 5"),
    ("x", {"min": pa.array([1.0]), "max": pa.array([2.0])}, "x > 5"),
    ("x", {"min": pa.array([1], pa.uint64()), "max": pa.array([2], pa.uint64())}, "x > 5"),
    ("s", {"min": pa.array([1]), "max": pa.array([2])}, "s > 'a'"),
    ("f", {"min": pa.array(["a"]), "max": pa.array(["b"])}, "f > 1"),
    ("d", {"min": pa.array([1.5]), "max": pa.array([2.5])}, "d > DATE '2024-01-01'"),
])
def test_statistics_type_contradicts_schema(column, fields, predicate, backend):
    table = pa.table({"row_count": [10], column: _struct(**fields, null_count=pa.array([0]))})
    with pytest.raises(pk.StatisticsError) as info:
        pk.PruningPredicate(predicate, SCHEMA).classify(table, backend=backend)
    assert column in str(info.value), str(info.value)


def test_min_and_max_of_different_types():
    table = pa.table({"row_count": [10], "x": _struct(min=pa.array([1]), max=pa.array(["b"]),
                                                      null_count=pa.array([0]))})
    with pytest.raises(pk.StatisticsError, match="x.min"):
        pk.Statistics.from_arrow(table)


def test_a_schema_checked_once_is_not_trusted_for_another():
    """Schemas that passed the layout check are remembered; one that differs only in a
    statistic's type (or in its columns) is checked again, however many came between."""
    good = pa.table({"row_count": [10], "x": _struct(min=pa.array([1]), max=pa.array([2]),
                                                     null_count=pa.array([0]))})
    for _ in range(2):
        stats = pk.Statistics.from_arrow(good)
        assert stats.columns == ["x"]
        stats.columns.append("y")  # a caller's list, not the remembered one
    for k in range(12):  # more schemas than are remembered
        pk.Statistics.from_arrow(pa.table({"row_count": [1], f"c{k}": good.column("x")}))
    assert pk.Statistics.from_arrow(good).columns == ["x"]
    bad = pa.table({"row_count": [10], "x": _struct(min=pa.array([1]), max=pa.array([2]),
                                                    null_count=pa.array([0.5]))})
    with pytest.raises(pk.StatisticsError, match="x.null_count must be an integer"):
        pk.Statistics.from_arrow(bad)


# ---- never a raw Numba / LLVM / Arrow error ---------------------------------------------------
def _raw(e: BaseException) -> bool:
    module = type(e).__module__ or ""
    return not isinstance(e, pk.PrunekitError) or module.startswith(("numba", "llvmlite"))


INVALID = {  # statistics that must be rejected with StatisticsError
    "row_count strings": pa.table({"row_count": ["10"], "x": _struct(
        min=pa.array([1]), max=pa.array([3]), null_count=pa.array([0]))}),
    "row_count floats": pa.table({"row_count": [10.0], "x": _struct(
        min=pa.array([1]), max=pa.array([3]), null_count=pa.array([0]))}),
    "null_count floats": pa.table({"row_count": [10], "x": _struct(
        min=pa.array([1]), max=pa.array([3]), null_count=pa.array([0.0]))}),
    "nan_count strings": pa.table({"row_count": [10], "f": _struct(
        min=pa.array([1.0]), max=pa.array([3.0]), null_count=pa.array([0]),
        nan_count=pa.array(["0"]))}),
    "min_exact integers": pa.table({"row_count": [10], "x": _struct(
        min=pa.array([1]), max=pa.array([3]), null_count=pa.array([0]),
        min_exact=pa.array([1]))}),
    "x not a struct": pa.table({"row_count": [10], "x": pa.array([1])}),
    "dictionary bounds": pa.table({"row_count": [10], "s": _struct(
        min=pa.array(["a"]).dictionary_encode(), max=pa.array(["b"]).dictionary_encode(),
        null_count=pa.array([0]))}),
    "list bounds": pa.table({"row_count": [10], "x": _struct(
        min=pa.array([[1]]), max=pa.array([[3]]), null_count=pa.array([0]))}),
}


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("name", list(INVALID))
def test_invalid_statistics_raise_statistics_error(name, backend):
    pred = pk.PruningPredicate("x > 5 AND s > 'a' AND f > 1", SCHEMA)
    try:
        pred.classify(INVALID[name], backend=backend)
    except BaseException as e:  # noqa: BLE001 - the point is which exception
        assert not _raw(e), f"{type(e).__module__}.{type(e).__name__}: {e}"
        assert isinstance(e, pk.StatisticsError), type(e)
    else:
        pytest.fail(f"{name}: accepted")


def _ok_tables():
    """Unusual but valid statistics: each must give the right answer (no error at all)."""
    yield ("x > 5", pa.table({"row_count": pa.array([10, 10], pa.uint64()), "x": _struct(
        min=pa.array([0, 6]), max=pa.array([4, 9]),
        null_count=pa.array([0, 0], pa.uint64()))}), [NONE, ALL])
    yield ("f > 5", pa.table({"row_count": [10, 10], "f": _struct(
        min=pa.array([0.0, 6.0], pa.float32()), max=pa.array([4.0, 9.0], pa.float32()),
        null_count=pa.array([0, 0], pa.int8()), nan_count=pa.array([0, 0], pa.int8()))}),
        [NONE, ALL])
    yield ("s > 'c'", pa.table({"row_count": [10, 10], "s": _struct(
        min=pa.array(["a", "d"], pa.large_string()), max=pa.array(["b", "e"], pa.large_string()),
        null_count=pa.array([0, 0]))}), [NONE, ALL])
    yield ("x > 5", pa.table({"row_count": pa.nulls(2), "x": _struct(
        min=pa.nulls(2), max=pa.nulls(2), null_count=pa.nulls(2))}), [MAYBE, MAYBE])
    yield ("x > 5", pa.table({"row_count": [10, 10], "x": _struct(
        min=pa.array([0, 6], pa.int8()), max=pa.array([4, 9], pa.int8()),
        null_count=pa.array([0, 0], pa.int32()), min_exact=pa.nulls(2, pa.bool_()),
        max_exact=pa.array([True, False]))}), [NONE, ALL])
    yield ("u > 9223372036854775808 OR u IN (1, 18446744073709551615)",
           pa.table({"row_count": [10, 10, 10], "u": _struct(
               min=pa.array([0, 2**63 + 1, 2**64 - 1], pa.uint64()),
               max=pa.array([5, 2**64 - 1, 2**64 - 1], pa.uint64()),
               null_count=pa.array([0, 0, 0]))}),
           [MAYBE, ALL, ALL])  # 1 may occur in [0, 5] / above 2**63 / 2**64 - 1 is listed
    yield ("x IN (-9223372036854775808, 9223372036854775807)",
           pa.table({"row_count": [10, 10], "x": _struct(
               min=pa.array([-2**63, 0]), max=pa.array([-2**63, 5]),
               null_count=pa.array([0, 0]))}), [ALL, NONE])


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize(("sql", "table", "expected"), list(_ok_tables()),
                         ids=[f"{i}-{t[0]}" for i, t in enumerate(_ok_tables())])
def test_unusual_but_valid_statistics(sql, table, expected, backend):
    try:
        got = pk.PruningPredicate(sql, SCHEMA).classify(table, backend=backend).tolist()
    except BaseException as e:  # noqa: BLE001
        pytest.fail(f"{type(e).__module__}.{type(e).__name__}: {e}")
    assert got == expected


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("bad", [None, {"row_count": [1]}, [1, 2], "x", np.array([1])],
                         ids=["None", "dict", "list", "str", "ndarray"])
def test_not_statistics_at_all(bad, backend):
    with pytest.raises(pk.PrunekitError):
        pk.PruningPredicate("x > 5", SCHEMA).classify(bad, backend=backend)


def test_error_classes():
    assert issubclass(pk.SqlSyntaxError, ValueError)
    assert issubclass(pk.UnknownColumnError, LookupError)
    assert issubclass(pk.TypeMismatchError, TypeError)
    assert issubclass(pk.StatisticsError, ValueError)
    for cls in (pk.SqlSyntaxError, pk.UnknownColumnError, pk.TypeMismatchError,
                pk.StatisticsError):
        assert issubclass(cls, pk.PrunekitError)


@pytest.mark.parametrize("kind", ["tinyint", "decimal128(18,4)", 5, None])
def test_a_schema_mapping_to_no_type_names_the_column(kind):
    """A schema given as a mapping whose value is no pyarrow type (nor one of its names: a
    Spark name, a type written as text) raises prunekit's error naming the column, not
    pyarrow's."""
    with pytest.raises(pk.TypeMismatchError, match="column 'c'"):
        pk.PruningPredicate("c > 1", {"x": "int64", "c": kind})
