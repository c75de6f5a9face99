"""Predicates in other SQL dialects (``prunekit.expr.syntax.dialects``): the table of
docs/semantics.md §7 both ways for each listed dialect (what is accepted prunes as the same
predicate in Spark SQL and soundly against DuckDB's own rows; what differs is refused by
name), and the warning for a double-quoted column name in Spark's dialect."""

import datetime as dt
import warnings

import duckdb
import numpy as np
import pyarrow as pa
import pyarrow.parquet as pq
import pytest

import prunekit as pk
from prunekit.cli import main
from prunekit.parquet import statistics

SCHEMA = pa.schema([("x", pa.int64()), ("f", pa.float64()), ("s", pa.string()),
                    ("d", pa.date32()), ("Mixed Case", pa.int32())])
DIALECTS = ["spark", "databricks", "duckdb", "postgres", "trino", "snowflake", "bigquery"]
QUOTE = {"spark": "`", "databricks": "`", "bigquery": "`"}  # others quote names with "


def name(dialect: str, column: str) -> str:
    q = QUOTE.get(dialect, '"')
    return f"{q}{column}{q}"


def stats():
    rng = np.random.default_rng(3)
    n = 8
    lo = np.sort(rng.integers(0, 100, n))
    days = np.array("2024-01-01", dtype="datetime64[D]") + lo
    return pk.Statistics.from_numpy(row_count=np.full(n, 10), columns={
        "x": {"min": lo, "max": lo + 9, "null_count": np.zeros(n)},
        "f": {"min": lo * 1.0, "max": lo + 9.5, "null_count": np.zeros(n)},
        "s": {"min": np.array([f"s{v:03d}" for v in lo], dtype=object),
              "max": np.array([f"s{v + 9:03d}" for v in lo], dtype=object),
              "null_count": np.zeros(n)},
        "d": {"min": days, "max": days + 9, "null_count": np.zeros(n)},
        "Mixed Case": {"min": lo, "max": lo + 9, "null_count": np.zeros(n)}})


# Accepted in every dialect: the same outcomes as the Spark text.
PORTABLE = [
    ("{x} > 50 AND {x} <= 80", "x > 50 AND x <= 80"),
    ("{x} IN (3, 45, 99) OR {x} BETWEEN 10 AND 12", "x IN (3, 45, 99) OR x BETWEEN 10 AND 12"),
    ("{s} = 's050' OR {s} IN ('s001', 's002')", "s = 's050' OR s IN ('s001', 's002')"),
    ("NOT ({x} < 20) AND {s} IS NOT NULL", "NOT (x < 20) AND s IS NOT NULL"),
    ("{d} >= DATE '2024-03-01'", "d >= DATE '2024-03-01'"),
    ("{d} < CAST('2024-02-01' AS DATE)", "d < DATE '2024-02-01'"),
    ("-{x} < -60 AND {mixed} > 20", "-x < -60 AND `Mixed Case` > 20"),
    ("{x} > 2.5", "x > 2.5"),
]
# Refused outside Spark's dialects, each for its reason.
DIFFERENT = ["{x} / 2 > 10", "{s} < 's050'", "{x} = '5'", "{x} > 1e1", "lower({s}) = 's001'",
             "{s} LIKE 's0%'", "CAST({x} AS DOUBLE) > 5", "{x} % 7 = 1"]


@pytest.mark.parametrize("dialect", DIALECTS)
@pytest.mark.parametrize("text, spark", PORTABLE)
def test_portable_predicates_prune_as_in_spark(dialect, text, spark):
    sql = text.format(x=name(dialect, "x"), s=name(dialect, "s"), d=name(dialect, "d"),
                      mixed=name(dialect, "Mixed Case"))
    s = stats()
    got = pk.PruningPredicate(sql, SCHEMA, dialect=dialect).classify(s)
    want = pk.PruningPredicate(spark, SCHEMA).classify(s)
    assert got.tolist() == want.tolist()
    assert (want != pk.MAYBE_MATCH).any()


@pytest.mark.parametrize("dialect", [d for d in DIALECTS if d not in ("spark", "databricks")])
@pytest.mark.parametrize("text", DIFFERENT)
def test_constructs_that_differ_are_refused_by_name(dialect, text):
    sql = text.format(x=name(dialect, "x"), s=name(dialect, "s"))
    with pytest.raises(pk.UnsupportedError, match=f"not read the same in {dialect}"):
        pk.PruningPredicate(sql, SCHEMA, dialect=dialect)


@pytest.mark.parametrize("text", DIFFERENT)
def test_spark_reads_them_all(text):
    pk.PruningPredicate(text.format(x="x", s="s"), SCHEMA)


@pytest.mark.parametrize("dialect, accepted", [
    ("duckdb", True), ("postgres", True), ("snowflake", True), ("spark", True),
    ("trino", False), ("bigquery", False)])
def test_floats_only_where_nan_orders_as_in_spark(dialect, accepted):
    sql = f"NOT ({name(dialect, 'f')} > 5)"
    if accepted:
        pk.PruningPredicate(sql, SCHEMA, dialect=dialect)
    else:
        with pytest.raises(pk.UnsupportedError, match="NaN compares otherwise"):
            pk.PruningPredicate(sql, SCHEMA, dialect=dialect)


def test_double_quotes_are_columns_or_strings_as_each_dialect_says():
    s = stats()
    column = pk.PruningPredicate('"x" > 50', SCHEMA, dialect="postgres").classify(s)
    assert column.tolist() == pk.PruningPredicate("x > 50", SCHEMA).classify(s).tolist()
    # BigQuery and Spark read "x" as a string: against a number, BigQuery's is refused
    with pytest.raises(pk.UnsupportedError):
        pk.PruningPredicate('"x" > 50', SCHEMA, dialect="bigquery")


def test_unknown_dialect_and_malformed_text():
    with pytest.raises(pk.UnsupportedError, match="unknown SQL dialect 'klingon'"):
        pk.PruningPredicate("x > 1", SCHEMA, dialect="klingon")
    with pytest.raises(pk.SqlSyntaxError, match="malformed SQL in duckdb"):
        pk.PruningPredicate("x > (1", SCHEMA, dialect="duckdb")


def test_accepted_duckdb_predicates_are_sound_against_duckdb(tmp_path):
    """Rows in row groups; DuckDB evaluates each accepted predicate on them: a skipped row
    group never holds a row DuckDB keeps."""
    rng = np.random.default_rng(5)
    n = 400
    x = np.sort(rng.integers(0, 100, n))
    f = np.where(rng.random(n) < 0.05, np.nan, x + 0.5)
    table = pa.table({"x": x, "f": f, "s": [f"s{v:03d}" for v in x],
                      "d": [dt.date(2024, 1, 1) + dt.timedelta(days=int(v)) for v in x],
                      "Mixed Case": x.astype(np.int32)})
    path = str(tmp_path / "t.parquet")
    pq.write_table(table, path, row_group_size=40)
    rows = pq.ParquetFile(path)
    st = statistics(path)
    con = duckdb.connect()
    for text, _ in PORTABLE + [("NOT ({f} > 5.5) AND {f} < 90", None)]:
        sql = text.format(x='"x"', s='"s"', d='"d"', f='"f"', mixed='"Mixed Case"')
        outcome = pk.PruningPredicate(sql, SCHEMA, dialect="duckdb").classify(st)
        for g in range(rows.num_row_groups):
            rg = rows.read_row_group(g)  # noqa: F841 - read by DuckDB below
            hits = con.execute(f"SELECT count(*) FROM rg WHERE {sql}").fetchone()[0]
            assert outcome[g] != pk.NONE_MATCH or hits == 0, (sql, g)
            assert outcome[g] != pk.ALL_MATCH or hits == rg.num_rows, (sql, g)


def test_spark_warns_for_a_double_quoted_column_name(capsys, tmp_path):
    with pytest.warns(UserWarning, match='"x" is a string in Spark SQL, not the column x'):
        pred = pk.PruningPredicate('"x" = 5', SCHEMA)
    assert pred.always_true is False  # two strings compared: FALSE, as Spark says
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        pk.PruningPredicate('s = "x"', {"s": pa.string()})  # "x" names no column: silent
    with pytest.warns(UserWarning, match="not the column l_shipmode"):
        pk.PruningPredicate.from_query("SELECT * FROM t WHERE \"L_SHIPMODE\" = 'AIR'", "t",
                                       {"l_shipmode": pa.string()})
    path = str(tmp_path / "a.parquet")
    pq.write_table(pa.table({"x": [1, 2]}), path)
    assert main(["scan", path, "--where", '"x" = 5']) == 0
    err = capsys.readouterr().err.strip().splitlines()
    assert err == ['prunekit: warning: "x" is a string in Spark SQL, not the column x '
                   "(write x or `x`)"]
    assert main(["scan", path, "--where", '"x" = 5', "--dialect", "duckdb"]) == 0
    assert capsys.readouterr().err == ""
