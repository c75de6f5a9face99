"""``prunekit.spark_glue.sql``: whole queries in Spark read only the files prunekit keeps for
them, joins included, and return the rows of the plain query."""

from __future__ import annotations

import math
import os

import pyarrow as pa
import pyarrow.parquet as pq
import pytest

import prunekit as pk

pytest.importorskip("pyspark")
pytestmark = pytest.mark.spark

from prunekit import spark_glue as sg  # noqa: E402
from tests.support import tiers  # noqa: E402
from tests.support.star_lake import FACT_FILES  # noqa: E402


def _native(spark, query: str, tables: dict) -> list:
    """The query's rows with each table read whole, as Spark reads the folder."""
    for name, path in tables.items():
        spark.read.parquet(path).createOrReplaceTempView(name)
    try:
        return spark.sql(query).collect()
    finally:
        for name in tables:
            spark.catalog.dropTempView(name)


def _same(a: list, b: list) -> bool:
    def key(row):
        return tuple((v is None, str(v)) for v in row)

    a, b = sorted(a, key=key), sorted(b, key=key)
    return len(a) == len(b) and all(
        math.isclose(x, y, rel_tol=1e-6) if isinstance(x, float) else x == y
        for r, s in zip(a, b, strict=True) for x, y in zip(r, s, strict=True))


def _fact_files_read(df) -> set[str]:
    return {f for f in df.inputFiles() if "/store_sales/" in f}


QUERIES = {
    "one month of sales": """
        SELECT d_moy, sum(ss_quantity) AS q FROM store_sales
        JOIN date_dim ON ss_sold_date_sk = d_date_sk
        WHERE d_year = 2001 AND d_moy = 3 GROUP BY d_moy""",
    "three tables": """
        SELECT i_category, count(*) AS n FROM store_sales, date_dim, item
        WHERE ss_sold_date_sk = d_date_sk AND ss_item_sk = i_item_sk
          AND d_year = 2000 AND d_moy IN (11, 12) AND i_category = 'c3'
        GROUP BY i_category""",
    "semi join": """
        SELECT count(*) AS n FROM store_sales
        WHERE ss_sold_date_sk IN (SELECT d_date_sk FROM date_dim WHERE d_year = 2000
                                  AND d_moy = 1)""",
    "left join keeps every sale": """
        SELECT count(*) AS n, count(d_year) AS dated FROM store_sales
        LEFT JOIN date_dim ON ss_sold_date_sk = d_date_sk AND d_moy = 2""",
}


@pytest.mark.parametrize("name", sorted(QUERIES))
def test_rows_equal_the_plain_query(spark, lake, name):
    tables, _ = lake
    query = QUERIES[name]
    want = _native(spark, query, tables)
    df = sg.sql(spark, query, tables)
    assert _same(df.collect(), want), name
    read = _fact_files_read(df)
    if name == "left join keeps every sale":  # nothing of store_sales can be left out
        assert len(read) == FACT_FILES
    else:
        assert 0 < len(read) < FACT_FILES / 2, (name, len(read))


def test_the_frame_reads_the_kept_files_after_the_views_are_gone(spark, lake):
    tables, _ = lake
    df = sg.sql(spark, QUERIES["one month of sales"], tables)
    for name in tables:  # the views stood only while Spark analysed the query
        assert not spark.catalog.tableExists(name)
    rows = df.collect()
    assert _same(rows, _native(spark, QUERIES["one month of sales"], tables))
    assert len(_fact_files_read(df)) <= 2


def test_tables_that_keep_no_file_are_answered_while_spark_plans(spark, lake):
    """No day of 1999: date_dim keeps no file, so neither does store_sales; Spark's optimizer
    sees both reads as empty and plans no scan at all."""
    tables, _ = lake
    query = ("SELECT count(*) AS n, sum(ss_quantity) AS q FROM store_sales JOIN date_dim "
             "ON ss_sold_date_sk = d_date_sk WHERE d_year = 1999")
    df = sg.sql(spark, query, tables)
    assert _same(df.collect(), _native(spark, query, tables))
    optimized = df._jdf.queryExecution().optimizedPlan().toString()
    assert "LocalRelation" in optimized and "parquet" not in optimized.lower(), optimized
    assert df.inputFiles() == []
    # The same with a Delta fact table: a live file under LIMIT 0, which is no scan either.
    tables, delta_path = lake
    df = sg.sql(spark, query, {**tables, "store_sales": delta_path})
    assert _same(df.collect(), _native(spark, query, tables))
    optimized = df._jdf.queryExecution().optimizedPlan().toString()
    assert "LocalRelation" in optimized and "parquet" not in optimized.lower(), optimized
    assert df.inputFiles() == []
    fact = next(t for t in sg.plan_sql(spark, query, {**tables, "store_sales": delta_path})
                .tables if t.name == "store_sales")
    assert fact.kind == "delta" and fact.kept_files == 0, fact


def test_explain_names_what_kept_each_table(spark, lake):
    tables, _ = lake
    text = sg.explain_sql(spark, QUERIES["one month of sales"], tables)
    fact = next(line for line in text.splitlines() if line.startswith("store_sales"))
    assert f"of {FACT_FILES} files" in fact and f"of {2 * FACT_FILES} row groups" in fact
    assert "the keys of date_dim.d_date_sk by ss_sold_date_sk = d_date_sk" in text
    dim = next(line for line in text.splitlines() if line.startswith("date_dim"))
    assert "1 of 1 files" in dim and dim.endswith("read whole"), dim


def test_a_view_of_a_plain_folder_is_pruned_and_put_back_as_it_was(spark, lake):
    """A temporary view of the session that reads one Parquet folder as it is, and a catalog
    table over one, are read through their folders: statistics, carried keys and all. The
    user's view is put back with its own definition."""
    tables, _ = lake
    query = QUERIES["three tables"]
    want = _native(spark, query, tables)
    fact = next(t for t in sg.plan_sql(spark, query, tables).tables if t.name == "store_sales")
    spark.read.parquet(tables["date_dim"]).createOrReplaceTempView("date_dim")
    spark.sql(f"CREATE TABLE item USING parquet LOCATION '{tables['item']}'")
    catalog = spark._jsparkSession.sessionState().catalog()
    before = catalog.getRawTempView("date_dim").get()
    try:
        given = {"store_sales": tables["store_sales"]}
        plan = sg.plan_sql(spark, query, given)
        read = {t.name: t for t in plan.tables}
        assert read["date_dim"].kind == read["item"].kind == "parquet"
        assert read["date_dim"].path == os.path.abspath(tables["date_dim"])
        # keys carried from the view's folder narrow the sales files, as with tables=
        assert 0 < read["store_sales"].kept_files == fact.kept_files < FACT_FILES
        assert _same(sg.sql(spark, query, given).collect(), want)
        assert catalog.getRawTempView("date_dim").get().equals(before)  # as it was
        assert not catalog.getRawTempView("item").isDefined()  # the table shows again
        assert spark.table("item").count() == 100
    finally:
        spark.catalog.dropTempView("date_dim")
        spark.sql("DROP TABLE IF EXISTS item")


def test_a_view_that_is_more_than_a_plain_read_is_read_as_the_session_reads_it(spark, lake):
    tables, _ = lake
    query = QUERIES["one month of sales"]
    want = _native(spark, query, tables)
    spark.read.parquet(tables["date_dim"]).where("d_year > 1900") \
        .createOrReplaceTempView("date_dim")
    try:
        given = {"store_sales": tables["store_sales"]}
        plan = sg.plan_sql(spark, query, given)
        dim = next(t for t in plan.tables if t.name == "date_dim")
        assert dim.kind == "native" and "plain Parquet folder" in dim.why
        # its statistics are unknown, so nothing is carried from it: every sales file is read
        fact = next(t for t in plan.tables if t.name == "store_sales")
        assert fact.kind == "parquet" and fact.kept_files == fact.files == FACT_FILES
        assert _same(sg.sql(spark, query, given).collect(), want)
        assert spark.catalog.tableExists("date_dim")  # the user's view is left as it was
    finally:
        spark.catalog.dropTempView("date_dim")


def test_delta_fact_table(spark, lake):
    tables, delta_path = lake
    query = QUERIES["three tables"]
    want = _native(spark, query, tables)
    given = {**tables, "store_sales": delta_path}
    plan = sg.plan_sql(spark, query, given)
    fact = next(t for t in plan.tables if t.name == "store_sales")
    assert fact.kind == "delta" and 0 < fact.kept_files < FACT_FILES / 2, fact
    df = sg.sql(spark, query, given)
    assert _same(df.collect(), want)
    assert len([f for f in df.inputFiles() if "store_sales_delta" in f]) == fact.kept_files


def test_bad_input_is_a_prunekit_error_before_any_job(spark, lake):
    tables, _ = lake
    with pytest.raises(pk.UnknownTableError, match="store_sale'.*did you mean 'store_sales'"):
        sg.sql(spark, "SELECT * FROM store_sale", tables)
    with pytest.raises(pk.SqlSyntaxError):
        sg.sql(spark, "SELECT * FROM store_sales WHERE (", tables)
    with pytest.raises(pk.StatisticsError, match="does not exist"):
        sg.sql(spark, "SELECT * FROM store_sales", {"store_sales": tables["store_sales"] + "x"})
    with pytest.raises(ValueError, match="dialect"):
        sg.sql(spark, "SELECT * FROM store_sales", tables, dialect="duckdb")
    with pytest.raises(ValueError, match="qualified"):
        sg.sql(spark, "SELECT * FROM db.store_sales", {"db.store_sales": tables["store_sales"]})
    spark.read.parquet(tables["item"]).createOrReplaceTempView("item")
    try:
        with pytest.raises(ValueError, match="also a temporary view"):
            sg.sql(spark, "SELECT * FROM item", tables)
    finally:
        spark.catalog.dropTempView("item")


def test_a_query_reading_the_moment_is_read_whole_with_a_warning(spark, lake):
    tables, _ = lake
    query = ("SELECT count(*) FROM store_sales JOIN date_dim ON ss_sold_date_sk = d_date_sk "
             "WHERE d_year = 2000 AND current_date() > DATE '2000-01-01'")
    with pytest.warns(UserWarning, match="the query reads the moment it runs"):
        df = sg.sql(spark, query, tables)
    assert len(_fact_files_read(df)) == FACT_FILES
    assert _same(df.collect(), _native(spark, query, tables))


def test_cached_statistics_give_the_same_plan(spark, lake, tmp_path):
    tables, _ = lake
    query = QUERIES["three tables"]
    first = sg.explain_sql(spark, query, tables, cache=tmp_path / "cache")
    kept = os.listdir(tmp_path / "cache")  # per table, its statistics and Spark's schema
    assert len([f for f in kept if f.endswith(".parquet")]) == len(tables)
    assert len([f for f in kept if f.endswith(".spark-schema.json")]) == len(tables)
    assert sg.explain_sql(spark, query, tables, cache=tmp_path / "cache") == first
    assert sg.explain_sql(spark, query, tables) == first


def test_random_join_queries_equal_the_plain_query(spark):
    """The join fuzzer's random star and snowflake queries, each table a folder of files:
    ``sql`` against Spark's plain query (``make fuzz`` runs more of them)."""
    from tests.support import join_fuzz

    failures, skipped = join_fuzz.spark_check(spark, seed=3, queries=tiers.pick(3, 6))
    assert not failures, "\n".join(failures)
    assert skipped > 0  # some files were left out, or the check proves nothing


def test_a_query_spark_reads_and_prunekit_cannot_runs_whole_with_a_warning(spark, lake,
                                                                          monkeypatch):
    tables, _ = lake
    query = QUERIES["one month of sales"]
    want = _native(spark, query, tables)
    from prunekit.spark_glue import query as module

    def unreadable(text, dialect):  # as if prunekit's parser refused text Spark reads
        raise pk.SqlSyntaxError("malformed SQL in query: something new", 1, 8)

    monkeypatch.setattr(module, "tables_read", unreadable)
    with pytest.warns(UserWarning, match="prunekit cannot read the query"):
        df = sg.sql(spark, query, tables)
    assert len(_fact_files_read(df)) == FACT_FILES
    assert _same(df.collect(), want)
    with pytest.raises(pk.SqlSyntaxError, match="line 1, column 8"):  # Spark refuses it too
        sg.sql(spark, "SELECT * FROM store_sales WHERE (", tables)


@pytest.mark.parametrize("query", [
    # a table read through IDENTIFIER: prunekit cannot see that scan
    QUERIES["one month of sales"] + " UNION ALL SELECT 0, count(*) FROM IDENTIFIER('store_sales')",
    # a CTE named like the table it reads
    "WITH date_dim AS (SELECT * FROM date_dim WHERE d_year = 2001) " + QUERIES["one month of sales"]
    .replace("WHERE d_year = 2001 AND", "WHERE"),
])
def test_tables_read_otherwise_are_read_whole(spark, lake, query):
    tables, _ = lake
    want = _native(spark, query, tables)
    with pytest.warns(UserWarning, match="prunekit cannot read the query"):
        df = sg.sql(spark, query, tables)
    assert len(_fact_files_read(df)) == FACT_FILES
    assert _same(df.collect(), want)


def test_a_join_hint_names_no_table(spark, lake):
    tables, _ = lake
    query = QUERIES["one month of sales"].replace("SELECT", "SELECT /*+ BROADCAST(date_dim) */")
    df = sg.sql(spark, query, tables)
    assert 0 < len(_fact_files_read(df)) <= 2
    assert _same(df.collect(), _native(spark, query, tables))


def test_a_dimension_file_prunekit_does_not_list_keeps_its_keys(spark, lake, tmp_path):
    """date_dim's days of 2001 in a file named otherwise (Spark reads it, prunekit's listing
    does not): no keys may be carried from date_dim's statistics, so it is read whole."""
    tables, _ = lake
    dim = pq.read_table(tables["date_dim"])
    folder = tmp_path / "date_dim"
    folder.mkdir()
    pq.write_table(dim.filter(pa.compute.equal(dim["d_year"], 2000)), folder / "a.parquet")
    pq.write_table(dim.filter(pa.compute.equal(dim["d_year"], 2001)), folder / "b.parq")
    given = {**tables, "date_dim": str(folder)}
    query = QUERIES["one month of sales"]
    with pytest.warns(UserWarning, match="Spark reads files prunekit does not list"):
        df = sg.sql(spark, query, given)
    assert _same(df.collect(), _native(spark, query, tables))


def test_a_table_changed_between_queries_of_a_session_is_read_as_it_is_now(spark, lake,
                                                                           tmp_path):
    """A session reuses a table's read while Spark's listing of its folder is unchanged, and
    reads it again once a file is added (named as prunekit lists, or otherwise) or rewritten."""
    tables, _ = lake
    dim = pq.read_table(tables["date_dim"])
    folder = tmp_path / "date_dim"
    folder.mkdir()
    pq.write_table(dim.filter(pa.compute.equal(dim["d_year"], 2000)), folder / "a.parquet")
    given = {**tables, "date_dim": str(folder)}
    query = QUERIES["one month of sales"]

    def check(expect_rows: bool):
        want = _native(spark, query, given)
        assert bool(want) == expect_rows
        assert _same(sg.sql(spark, query, given).collect(), want)

    check(False)
    whole = "SELECT count(*) AS n FROM date_dim"  # the read of the whole folder
    first = sg.plan_sql(spark, whole, given).frames["date_dim"]
    assert sg.plan_sql(spark, whole, given).frames["date_dim"] is first  # unchanged: reused
    pq.write_table(dim.filter(pa.compute.equal(dim["d_year"], 2001)), folder / "b.parq")
    with pytest.warns(UserWarning, match="Spark reads files prunekit does not list"):
        check(True)
    os.remove(folder / "b.parq")
    check(False)
    pq.write_table(dim, folder / "a.parquet")  # rewritten in place, every year
    check(True)
    pq.write_table(dim.filter(pa.compute.equal(dim["d_year"], 1999)), folder / "c.parquet")
    check(True)


def test_a_partition_column_stored_in_files_is_read_whole(spark, lake, tmp_path):
    tables, _ = lake
    for region, stored in (("EU", True), ("US", False)):
        folder = tmp_path / "regions" / f"region={region}"
        folder.mkdir(parents=True)
        t = pa.table({"k": [1, 2], **({"region": ["XX", "XX"]} if stored else {})})
        pq.write_table(t, folder / "part-0.parquet")
    query = "SELECT count(*) AS n FROM regions WHERE region = 'EU'"
    with pytest.warns(UserWarning, match="partition columns also stored"):
        rows = sg.sql(spark, query, {"regions": str(tmp_path / "regions")}).collect()
    assert rows[0].n == 2  # Spark reads the folder's value, not the file's


def test_settings_that_read_text_otherwise_read_tables_whole(spark, lake):
    tables, _ = lake
    query = QUERIES["one month of sales"]
    spark.conf.set("spark.sql.caseSensitive", "true")
    try:
        with pytest.warns(UserWarning, match="spark.sql.caseSensitive"):
            df = sg.sql(spark, query, tables)
        assert len(_fact_files_read(df)) == FACT_FILES
    finally:
        spark.conf.unset("spark.sql.caseSensitive")


def test_a_plan_is_not_run_after_the_time_zone_changed(spark, lake):
    tables, _ = lake
    plan = sg.plan_sql(spark, QUERIES["one month of sales"], tables)
    spark.conf.set("spark.sql.session.timeZone", "America/New_York")
    try:
        with pytest.raises(pk.PrunekitError, match="plan it again"):
            plan.dataframe(spark)
    finally:
        spark.conf.set("spark.sql.session.timeZone", "UTC")
    assert len(_fact_files_read(plan.dataframe(spark))) <= 2


def test_a_users_cached_read_stays_cached(spark, lake):
    tables, _ = lake
    cached = spark.read.parquet(tables["date_dim"]).cache()
    cached.count()
    try:
        sg.sql(spark, QUERIES["one month of sales"], tables).collect()
        assert cached.is_cached
        assert spark._jsparkSession.sharedState().cacheManager().lookupCachedData(
            cached._jdf).isDefined()
    finally:
        cached.unpersist()
