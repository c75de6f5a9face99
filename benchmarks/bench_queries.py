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

import os

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
SCALE = 10.0
FILES = lake.FACT_FILES
_SESSION: list = []


def session():
    if not _SESSION:
        _SESSION.append(spark_run.session(2))
    return _SESSION[0]


def cache_dir(tables: dict[str, str]) -> str:
    """Where the statistics caches of the lake's tables are kept (beside the lake)."""
    return os.path.dirname(next(iter(tables.values()))) + ".prunekit-cache"


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
        self.cache = cache_dir(self.tables)
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

