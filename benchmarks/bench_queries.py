"""Whole TPC-DS queries in Spark (local[2]): ``prunekit.spark_glue.sql(spark, q, lake)`` against
``spark.sql(q)`` over ``spark.read.parquet`` of every table, on the lake of
``benchmarks/tpc/lake.py`` at scale 10 (``store_sales`` sorted by date in 100 files of two row
groups, each dimension in one file).

The queries are the shapes whose speed-ups the issue measured by hand: a week of sales by
store, TPC-DS q52 (one month), q7 (``d_year = 2000``, five tables), q3 (``d_moy = 11`` of every
year) and a query with no date filter at all. Both sides ``collect()`` the rows; setup asserts
they are equal.

Read ratios, not times:

* ``track_speedup``: native time over prunekit's (planning included), best of alternating
  calls in one process (targets: at least 4 where the fact files are 75% skipped, never below
  0.95);
* ``track_planning_share``: prunekit's planning (``plan_sql``: statistics from the kept
  cache, ``prune_query``, the views) over the native query's time (target at most 0.1), and
  ``time_planning`` itself (target at most 0.2 s for q7's five tables).

``python -m benchmarks.tpc.spark_run`` runs all 99 queries both ways once.
"""

from __future__ import annotations

from benchmarks.bench_reader import best_ratio
from benchmarks.tpc import lake, queries, spark_run

QUERIES = {
    "week_by_store": """
        SELECT s_store_name, sum(ss_net_paid) AS paid
        FROM store_sales JOIN date_dim ON ss_sold_date_sk = d_date_sk
                         JOIN store ON ss_store_sk = s_store_sk
        WHERE d_date BETWEEN DATE '2001-03-05' AND DATE '2001-03-11'
        GROUP BY s_store_name ORDER BY s_store_name""",
    "q52": queries.queries("tpcds")[52],
    "q7": queries.queries("tpcds")[7],
    "q3": queries.queries("tpcds")[3],
    "no_date_filter": """
        SELECT i_category, sum(ss_quantity) AS quantity
        FROM store_sales JOIN item ON ss_item_sk = i_item_sk
        WHERE i_current_price > 90 GROUP BY i_category ORDER BY i_category""",
}


def frames(spark, paths: dict[str, str]) -> dict:
    """``QUERIES`` written with the DataFrame API, each table read as ``spark.read.parquet``
    of its path, for ``prunekit.spark_glue.prune``."""
    import datetime as dt

    from pyspark.sql import functions as F

    tables = {name: spark.read.parquet(path) for name, path in paths.items()}
    sales, dates, item = tables["store_sales"], tables["date_dim"], tables["item"]
    by_date = F.col("ss_sold_date_sk") == F.col("d_date_sk")
    by_item = F.col("ss_item_sk") == F.col("i_item_sk")

    def brands(moy: int, year: int | None, item_filter, measure: str):
        days = dates.where(F.col("d_moy") == moy)
        if year is not None:
            days = days.where(F.col("d_year") == year)
        return (days.join(sales, by_date).join(item.where(item_filter), by_item)
                .groupBy("d_year", "i_brand", "i_brand_id")
                .agg(F.sum(measure).alias("total"))
                .orderBy("d_year", F.desc("total"), "i_brand_id").limit(100))

    demographics = tables["customer_demographics"].where(
        (F.col("cd_gender") == "F") & (F.col("cd_marital_status") == "W")
        & (F.col("cd_education_status") == "2 yr Degree"))
    promotions = tables["promotion"].where((F.col("p_channel_email") == "N")
                                           | (F.col("p_channel_event") == "N"))
    return {
        "week_by_store": sales.join(dates, by_date)
        .join(tables["store"], F.col("ss_store_sk") == F.col("s_store_sk"))
        .where(F.col("d_date").between(dt.date(2001, 3, 5), dt.date(2001, 3, 11)))
        .groupBy("s_store_name").agg(F.sum("ss_net_paid").alias("paid"))
        .orderBy("s_store_name"),
        "q52": brands(11, 1999, F.col("i_manager_id") == 1, "ss_ext_sales_price"),
        "q7": sales.join(demographics, F.col("ss_cdemo_sk") == F.col("cd_demo_sk"))
        .join(dates.where(F.col("d_year") == 1998), by_date).join(item, by_item)
        .join(promotions, F.col("ss_promo_sk") == F.col("p_promo_sk"))
        .groupBy("i_item_id").agg(*(F.avg(c).alias(f"agg{k}") for k, c in enumerate(
            ["ss_quantity", "ss_list_price", "ss_coupon_amt", "ss_sales_price"], 1)))
        .orderBy("i_item_id").limit(100),
        "q3": brands(11, None, F.col("i_manufact_id") == 427, "ss_ext_discount_amt"),
        "no_date_filter": sales.join(item.where(F.col("i_current_price") > 90), by_item)
        .groupBy("i_category").agg(F.sum("ss_quantity").alias("quantity"))
        .orderBy("i_category"),
    }


SCALE = 10.0
FILES = lake.FACT_FILES
_SESSION: list = []


def session():
    if not _SESSION:
        _SESSION.append(spark_run.session(2))
    return _SESSION[0]


class WholeQuery:
    params = [list(QUERIES)]
    param_names = ["query"]
    timeout = 3600
    number = 1
    repeat = (3, 5, 120.0)
    scale = SCALE
    files = FILES
    budget = 30.0

    def setup(self, name):
        self.tables = lake.lake(self.scale, self.files)
        self.runner = spark_run.Runner(session(), self.tables)
        self.sql = QUERIES[name]
        self.cache = self.runner.cache
        want = self.time_native(name)
        got = self.time_prunekit(name)
        if not spark_run.same_rows(got, want):
            raise AssertionError(f"{name}: prunekit's rows differ from Spark's")

    def time_native(self, name):
        return self.runner.native(self.sql)

    def time_prunekit(self, name):
        from prunekit.spark_glue import sql

        return sql(session(), self.sql, self.tables, cache=self.cache).collect()

    def time_planning(self, name):
        from prunekit.spark_glue import plan_sql

        plan_sql(session(), self.sql, self.tables, cache=self.cache)

    def track_speedup(self, name):
        return best_ratio(lambda: self.time_native(name), lambda: self.time_prunekit(name),
                           self.budget)

    track_speedup.unit = "x native"

    def track_planning_share(self, name):
        return best_ratio(lambda: self.time_planning(name), lambda: self.time_native(name),
                           self.budget)

    track_planning_share.unit = "planning / native"

