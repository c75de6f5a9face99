"""``prunekit.spark_glue.prune(df)``: a DataFrame built with the DataFrame API reads only the
files prunekit keeps for its whole plan, joins included, and gives the rows it gave before;
parts of a plan prunekit does not understand are read as they are."""

from __future__ import annotations

import pytest

pytest.importorskip("pyspark")
pytestmark = pytest.mark.spark

from pyspark.sql import functions as F  # noqa: E402

from benchmarks.tpc.spark_run import same_rows  # noqa: E402
from prunekit import spark_glue as sg  # noqa: E402
from tests.support.star_lake import FACT_FILES  # noqa: E402


def by_date():  # a Column needs a running session: made when a test runs
    return F.col("ss_sold_date_sk") == F.col("d_date_sk")


def by_item():
    return F.col("ss_item_sk") == F.col("i_item_sk")


def _tables(spark, lake) -> dict:
    paths, _ = lake
    return {name: spark.read.parquet(path) for name, path in paths.items()}


# The DataFrame-API twins of test_query.py's QUERIES, and what sql() keeps of store_sales.
TWINS = {
    "one month of sales": lambda t: t["store_sales"].join(t["date_dim"], by_date())
    .where((F.col("d_year") == 2001) & (F.col("d_moy") == 3))
    .groupBy("d_moy").agg(F.sum("ss_quantity").alias("q")),
    "three tables": lambda t: t["store_sales"].join(t["date_dim"], by_date())
    .join(t["item"], by_item())
    .where((F.col("d_year") == 2000) & F.col("d_moy").isin(11, 12)
           & (F.col("i_category") == "c3"))
    .groupBy("i_category").agg(F.count("*").alias("n")),
    "semi join": lambda t: t["store_sales"].join(
        t["date_dim"].where((F.col("d_year") == 2000) & (F.col("d_moy") == 1)), by_date(),
        "left_semi").agg(F.count("*").alias("n")),
    "left join keeps every sale": lambda t: t["store_sales"].join(
        t["date_dim"].where(F.col("d_moy") == 2), by_date(), "left")
    .agg(F.count("*").alias("n"), F.count("d_year").alias("dated")),
}


@pytest.mark.parametrize("name", sorted(TWINS))
def test_twins_of_sql_queries_read_what_sql_reads(spark, lake, name):
    from tests.spark_glue.test_query import QUERIES

    df = TWINS[name](_tables(spark, lake))
    plan = sg.plan_frame(df)
    pruned = plan.frame
    assert same_rows(pruned.collect(), df.collect()), name
    read = {f for f in pruned.inputFiles() if "/store_sales/" in f}
    by_sql = sg.plan_sql(spark, QUERIES[name], lake[0])
    kept = next(t for t in by_sql.tables if t.name == "store_sales").kept_files
    assert len(read) == kept, (name, plan.explain())
    if name != "left join keeps every sale":
        assert kept < FACT_FILES / 2, plan.explain()


def test_explain_names_each_scan_and_what_kept_it(spark, lake):
    df = TWINS["one month of sales"](_tables(spark, lake))
    text = sg.plan_frame(df).explain()
    assert f"t0 (parquet {lake[0]['store_sales']}): 1 of 12 files, 2 of 24 row groups" in text
    assert "the keys of t1.d_date_sk" in text


# Plans with parts prunekit does not understand, or must not flatten: the same rows.
ODD = {
    # count(*) over no rows is one row (0): the aggregate is not flattened into the join, so
    # the empty filter on date_dim does not rule out every sale.
    "a global aggregate under a join": lambda t: t["store_sales"].crossJoin(
        t["date_dim"].where(F.col("d_year") == 1900).agg(F.count("*").alias("c")))
    .where(F.col("c") == 0).agg(F.count("*").alias("n")),
    "a limit under a join": lambda t: t["store_sales"].join(
        t["date_dim"].where(F.col("d_year") == 2001).limit(400), by_date())
    .agg(F.count("*").alias("n")),
    "a union": lambda t: t["store_sales"].where(F.col("ss_sold_date_sk") < 40)
    .union(t["store_sales"].where(F.col("ss_sold_date_sk") > 700))
    .agg(F.count("*").alias("n"), F.sum("ss_quantity").alias("q")),
    "an anti join": lambda t: t["store_sales"].join(
        t["date_dim"].where(F.col("d_year") == 2000), by_date(), "left_anti")
    .agg(F.count("*").alias("n")),
    "a self join, names repeated": lambda t: t["store_sales"].alias("a").join(
        t["store_sales"].alias("b"), F.col("a.ss_item_sk") == F.col("b.ss_item_sk"))
    .where((F.col("a.ss_sold_date_sk") < 30) & (F.col("b.ss_sold_date_sk") > 700))
    .agg(F.count("*").alias("n")),
    "a full join of filtered sides": lambda t: t["store_sales"]
    .where(F.col("ss_sold_date_sk") < 60).join(
        t["date_dim"].where(F.col("d_moy") == 1), by_date(), "full")
    .agg(F.count("*").alias("n"), F.count("ss_quantity").alias("sold")),
}


@pytest.mark.parametrize("name", sorted(ODD))
def test_plans_with_parts_not_flattened_give_the_same_rows(spark, lake, name):
    df = ODD[name](_tables(spark, lake))
    pruned = sg.prune(df)
    want = df.collect()
    assert same_rows(pruned.collect(), want), name
    if name == "a global aggregate under a join":
        assert want[0]["n"] == 24_000  # every sale, none pruned
    read = {f for f in pruned.inputFiles() if "/store_sales/" in f}
    if name == "a self join, names repeated":  # each side's own filter prunes it
        assert len(read) < FACT_FILES
    if name == "a union":  # not understood: its scans are read as they are
        assert len(read) == FACT_FILES


def test_a_frame_without_file_scans_is_given_back(spark):
    df = spark.createDataFrame([(1, "a")], "k int, v string").where("k > 0")
    assert sg.prune(df) is df


def test_a_scan_read_with_a_schema_of_its_own_is_read_as_it_is(spark, lake):
    """Statistics describe the files as a plain read reads them; a read with a schema of its
    own (here fewer columns; another type is another value) is read whole, carries no keys."""
    paths, _ = lake
    dates = spark.read.schema("d_date_sk long, d_year long").parquet(paths["date_dim"])
    df = spark.read.parquet(paths["store_sales"]).join(dates, by_date()) \
        .where(F.col("d_year") == 2001).agg(F.count("*").alias("n"))
    plan = sg.plan_frame(df)
    assert any("a schema of its own" in t.why for t in plan.tables), plan.explain()
    assert same_rows(plan.frame.collect(), df.collect())
