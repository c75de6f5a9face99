"""Keys carried across joins (``prunekit.joins``): each rule by hand, and differential fuzzing
of random star and snowflake queries against DuckDB (``tests/support/join_fuzz.py``)."""

import os

import numpy as np
import pyarrow as pa
import pyarrow.parquet as pq
import pytest

import prunekit as pk
from prunekit.parquet import data_schema, statistics
from tests.support import join_fuzz

INT = pa.int64()


def stats(lo, hi, nulls=None, rows=10, **more):
    """Containers of one key column ``k`` (plus ``more``: name -> (lo, hi))."""
    def bound(values):
        values = np.array(values, dtype=float)
        return np.ma.masked_array(np.nan_to_num(values).astype(np.int64), np.isnan(values))

    def col(lo, hi, nulls):
        return {"min": bound(lo), "max": bound(hi),
                "null_count": np.array(nulls if nulls is not None else [0] * len(lo))}
    columns = {"k": col(lo, hi, nulls), **{c: col(a, b, None) for c, (a, b) in more.items()}}
    return pk.Statistics.from_numpy(row_count=np.full(len(lo), rows), columns=columns)


# dim: keys 1..100, 101..200, 201..300 with a = 1, 2, 3; fact: keys in blocks of 50.
DIM = stats([1, 101, 201], [100, 200, 300], a=([1, 2, 3], [1, 2, 3]))
FACT = stats([1, 51, 101, 151, 201, 251], [50, 100, 150, 200, 250, 300])
TABLES = {"dim": (DIM, {"k": INT, "a": INT}), "fact": (FACT, {"k": INT})}


def skipped(sql, tables=TABLES, **kw):
    return {name: np.flatnonzero(o == 0).tolist()
            for name, o in pk.prune_query(sql, tables, **kw).items()}


@pytest.mark.parametrize("sql, fact", [
    ("SELECT * FROM fact f JOIN dim d ON f.k = d.k WHERE d.a = 2", [0, 1, 4, 5]),
    ("SELECT * FROM fact f, dim d WHERE f.k = d.k AND d.a = 2", [0, 1, 4, 5]),
    ("SELECT * FROM fact f JOIN dim d ON f.k = d.k AND d.a >= 2", [0, 1]),
    ("SELECT * FROM dim d LEFT JOIN fact f ON f.k = d.k WHERE d.a = 3", [0, 1, 2, 3]),
    ("SELECT * FROM fact f RIGHT JOIN dim d ON f.k = d.k WHERE d.a = 1", [2, 3, 4, 5]),
    ("SELECT * FROM fact f LEFT SEMI JOIN dim d ON f.k = d.k AND d.a = 1", [2, 3, 4, 5]),
    ("SELECT * FROM dim d LEFT ANTI JOIN fact f ON f.k = d.k WHERE d.a = 1", [2, 3, 4, 5]),
], ids=["inner", "comma", "on", "left-null-supplying", "right", "semi", "anti-right-side"])
def test_a_join_carries_the_other_sides_key_ranges(sql, fact):
    assert skipped(sql)["fact"] == fact


@pytest.mark.parametrize("sql", [
    "SELECT * FROM fact f LEFT JOIN dim d ON f.k = d.k AND d.a = 2",
    "SELECT * FROM dim d RIGHT JOIN fact f ON f.k = d.k AND d.a = 2",
    "SELECT * FROM fact f FULL JOIN dim d ON f.k = d.k WHERE d.a = 2",
    "SELECT * FROM fact f LEFT ANTI JOIN dim d ON f.k = d.k AND d.a = 2",
    "SELECT * FROM fact f JOIN dim d ON f.k <=> d.k WHERE d.a = 2",
    "SELECT * FROM fact f JOIN dim d ON f.k = d.k + 0 WHERE d.a = 2",
    "SELECT * FROM fact f JOIN dim d ON f.k = d.k OR f.k = 7 WHERE d.a = 2",
    "SELECT * FROM fact f JOIN (SELECT * FROM dim) d ON f.k = d.k WHERE d.a = 2",
    "SELECT * FROM fact f JOIN other.dim d ON f.k = d.k WHERE d.a = 2",
], ids=["left-preserved", "right-preserved", "full", "anti-left", "null-safe", "expression",
        "or", "derived", "qualified"])
def test_nothing_is_carried_where_unmatched_rows_still_matter(sql):
    assert skipped(sql)["fact"] == []


@pytest.mark.parametrize("sql, fact", [
    ("SELECT * FROM fact WHERE k IN (SELECT k FROM dim WHERE a = 2)", [0, 1, 4, 5]),
    ("SELECT * FROM fact f WHERE f.k IN (SELECT DISTINCT d.k FROM dim d WHERE d.a = 2 LIMIT 3)",
     [0, 1, 4, 5]),
    ("SELECT * FROM fact WHERE k NOT IN (SELECT k FROM dim WHERE a = 2)", []),
    ("SELECT * FROM fact WHERE k IN (SELECT k FROM dim WHERE a = 2) OR k < 5", []),
    ("SELECT * FROM fact WHERE k IN (SELECT max(k) FROM dim WHERE a = 2)", []),
    ("SELECT * FROM fact WHERE k IN (SELECT k FROM dim JOIN fact USING (k) WHERE a = 2)", []),
    ("WITH dim AS (SELECT 1 AS k) SELECT * FROM fact WHERE k IN (SELECT k FROM dim)", []),
], ids=["in", "distinct-limit", "not-in", "or", "aggregate", "join-inside", "cte-shadows"])
def test_an_in_subquery_is_a_semi_join(sql, fact):
    assert skipped(sql)["fact"] == fact


@pytest.mark.parametrize("sql, fact", [
    ("SELECT * FROM (SELECT k AS key FROM fact) f JOIN dim d ON f.key = d.k WHERE d.a = 2",
     [0, 1, 4, 5]),
    ("SELECT * FROM (SELECT k FROM fact WHERE k > 60 UNION ALL SELECT k FROM fact) u "
     "JOIN dim d ON u.k = d.k WHERE d.a = 3", [0, 1, 2, 3]),
    ("WITH g AS (SELECT k, count(*) AS c FROM fact GROUP BY k) SELECT * FROM g "
     "JOIN dim ON g.k = dim.k WHERE a = 1", [2, 3, 4, 5]),
    ("SELECT * FROM fact WHERE k = (SELECT k FROM dim WHERE a = 2 LIMIT 1)", [0, 1, 4, 5]),
    ("SELECT * FROM (SELECT k FROM fact LIMIT 5) f JOIN dim d ON f.k = d.k WHERE d.a = 2", []),
    ("SELECT * FROM (SELECT k + 0 AS k FROM fact) f JOIN dim d ON f.k = d.k WHERE d.a = 2",
     []),
    ("SELECT * FROM (SELECT sum(k) AS k FROM fact GROUP BY a) f JOIN dim d ON f.k = d.k "
     "WHERE d.a = 2", []),
], ids=["derived", "union", "grouped-cte", "scalar", "limit", "expression", "aggregate"])
def test_keys_reach_scans_inside_derived_tables(sql, fact):
    tables = {"dim": TABLES["dim"], "fact": (FACT, {"k": INT, "a": INT})}
    assert skipped(sql, tables)["fact"] == fact


def test_a_key_of_another_type_or_a_float_carries_nothing():
    for t in (pa.string(), pa.float64(), pa.date32()):
        tables = {"dim": (DIM, {"k": INT, "a": INT}), "fact": (FACT, {"k": t})}
        pred = pk.PruningPredicate.from_query(
            "SELECT * FROM fact f JOIN dim d ON f.k = d.k WHERE d.a = 2", "fact", {"k": t},
            statistics=tables)
        assert pred.always_true and pred.carried == [], t
    # integers of other widths and decimals compare exactly: carried
    tables = {"dim": (DIM, {"k": pa.int16(), "a": INT}), "fact": (FACT, {"k": INT})}
    assert skipped("SELECT * FROM fact JOIN dim ON fact.k = dim.k WHERE a = 2",
                   tables)["fact"] == [0, 1, 4, 5]


def test_unknown_nulls_and_empty_containers_of_the_other_side():
    unknown = stats([1, np.nan], [100, np.nan], a=([2, 2], [2, 2]))
    tables = {"dim": (unknown, {"k": INT, "a": INT}), "fact": (FACT, {"k": INT})}
    sql = "SELECT * FROM fact JOIN dim ON fact.k = dim.k WHERE a = 2"
    assert skipped(sql, tables)["fact"] == []  # a kept container with unknown keys
    only_nulls = stats([1, np.nan], [100, np.nan], nulls=[0, 10], a=([2, 2], [2, 2]))
    tables["dim"] = (only_nulls, {"k": INT, "a": INT})
    assert skipped(sql, tables)["fact"] == [2, 3, 4, 5]  # NULL keys join with nothing
    empty = stats([1, np.nan], [100, np.nan], rows=0, a=([2, 2], [2, 2]))
    tables["dim"] = (empty, {"k": INT, "a": INT})
    assert skipped(sql, tables)["fact"] == [0, 1, 2, 3, 4, 5]


def test_a_filter_no_dimension_row_passes_skips_the_whole_fact_table():
    got = skipped("SELECT * FROM fact JOIN dim ON fact.k = dim.k WHERE a = 9")
    assert got == {"dim": [0, 1, 2], "fact": [0, 1, 2, 3, 4, 5]}


def test_snowflake_keys_travel_to_a_fixpoint():
    # fact.k -> mid.k (mid.k2 -> top.k); the filter is on top only.
    mid = stats([1, 101, 201], [100, 200, 300], k2=([1, 11, 21], [10, 20, 30]))
    top = stats([1, 11, 21], [10, 20, 30], c=([5, 6, 7], [5, 6, 7]))
    tables = {"fact": (FACT, {"k": INT}), "mid": (mid, {"k": INT, "k2": INT}),
              "top": (top, {"k": INT, "c": INT})}
    sql = ("SELECT * FROM fact JOIN mid ON fact.k = mid.k JOIN top ON mid.k2 = top.k "
           "WHERE top.c = 7")
    assert skipped(sql, tables) == {"fact": [0, 1, 2, 3], "mid": [0, 1], "top": [0, 1]}
    # and back: the fact's own filter narrows the dimension
    back = "SELECT * FROM fact JOIN mid ON fact.k = mid.k WHERE fact.k > 250"
    assert skipped(back, tables)["mid"] == [0, 1]


def test_a_cte_read_twice_and_a_self_join():
    sql = ("WITH x AS (SELECT fact.k FROM fact JOIN dim ON fact.k = dim.k WHERE a = 1) "
           "SELECT * FROM x a JOIN x b ON a.k = b.k")
    assert skipped(sql)["fact"] == [2, 3, 4, 5]
    self_join = "SELECT * FROM fact a JOIN fact b ON a.k = b.k WHERE b.k < 40"
    assert skipped(self_join, {"fact": TABLES["fact"]})["fact"] == [1, 2, 3, 4, 5]


@pytest.fixture
def star(tmp_path):
    """date_dim with 10 row groups of 100 days; sales keyed by day, 8 row groups."""
    days = np.arange(1000)
    dim = pa.table({"d_key": days, "d_month": days // 30, "d_name": [f"n{d % 7}" for d in days]})
    pq.write_table(dim, tmp_path / "dim.parquet", row_group_size=100)
    sales = pa.table({"s_day": pa.array(list(np.repeat(days, 2)) + [None] * 8, pa.int64())})
    pq.write_table(sales, tmp_path / "sales.parquet", row_group_size=251)
    out = {}
    for name in ("dim", "sales"):
        s = statistics(str(tmp_path / f"{name}.parquet"))
        out[name] = (s, data_schema(s.table))
    return out


def test_exact_keys_from_the_rows_of_a_small_dimension(star):
    sql = "SELECT * FROM sales JOIN dim ON s_day = d_key WHERE d_month = 20 AND d_name = 'n3'"
    by_stats = pk.PruningPredicate.from_query(sql, "sales", star["sales"][1], statistics=star,
                                              row_budget=0)
    by_rows = pk.PruningPredicate.from_query(sql, "sales", star["sales"][1], statistics=star)
    # month 20 is days 600..629, in one dimension row group (600..699); its 'n3' days are 4
    assert by_stats.expression.sql() == "s_day BETWEEN 600 AND 699"
    assert by_rows.expression.sql() == "s_day IN (605, 612, 619, 626)"
    assert "rows of 1 of 10 containers" in by_rows.explain()
    assert "ranges from the statistics of 1 of 10 containers" in by_stats.explain()
    fact = star["sales"][0]
    assert (by_rows.classify(fact) == 0).sum() >= (by_stats.classify(fact) == 0).sum()


def test_rows_that_cannot_be_read_as_their_statistics_say_fall_back_to_statistics(star, tmp_path):
    sql = "SELECT * FROM sales JOIN dim ON s_day = d_key WHERE d_month = 20"
    moved = star["dim"][0].table.set_column(
        star["dim"][0].table.column_names.index("file"), "file",
        pa.array([str(tmp_path / "missing.parquet")] * len(star["dim"][0])))
    tables = {**star, "dim": (pk.Statistics.from_arrow(moved), star["dim"][1])}
    pred = pk.PruningPredicate.from_query(sql, "sales", star["sales"][1], statistics=tables)
    assert pred.expression.sql() == "s_day BETWEEN 600 AND 699"
    os.remove(tmp_path / "dim.parquet")
    pred = pk.PruningPredicate.from_query(sql, "sales", star["sales"][1], statistics=star)
    assert pred.expression.sql() == "s_day BETWEEN 600 AND 699"


def test_null_keys_of_the_rows_are_not_carried(tmp_path):
    pq.write_table(pa.table({"k": pa.array([None, 5, None], INT), "a": [1, 1, 2]}),
                   tmp_path / "dim.parquet")
    s = statistics(str(tmp_path / "dim.parquet"))
    tables = {"dim": (s, data_schema(s.table)), "fact": (FACT, {"k": INT})}
    pred = pk.PruningPredicate.from_query("SELECT * FROM fact JOIN dim USING (k) WHERE a = 1",
                                          "fact", {"k": INT}, statistics=tables)
    assert pred.expression.sql() == "TRUE"  # USING: names merged, nothing assumed
    pred = pk.PruningPredicate.from_query(
        "SELECT * FROM fact JOIN dim ON fact.k = dim.k WHERE a = 1", "fact", {"k": INT},
        statistics=tables)
    assert pred.expression.sql() == "k = 5"


def test_prune_query_answers_each_table_read_and_checks_its_input():
    out = pk.prune_query("SELECT * FROM fact JOIN dim ON fact.k = dim.k WHERE a = 2",
                         {**TABLES, "unused": (FACT, {"k": INT}), "Dim2": (None, {"k": INT})})
    assert sorted(out) == ["dim", "fact"]
    with pytest.raises(TypeError, match="must be a"):
        pk.prune_query("SELECT * FROM fact", {"fact": FACT})
    with pytest.raises(ValueError, match="row_budget"):
        pk.prune_query("SELECT * FROM fact", TABLES, row_budget=-1)
    with pytest.raises(pk.TableNotReadError):
        pk.PruningPredicate.from_query("SELECT * FROM dim", "fact", {"k": INT},
                                       statistics=TABLES)


@pytest.mark.parametrize("seed", [11, 12, 13])
def test_random_joins_give_the_same_result_over_kept_row_groups(seed):
    assert join_fuzz.check(seed, queries=12) == []


def test_one_moment_for_every_table_of_the_query():
    import datetime as dt

    days = np.array(["2022-01-01", "2022-02-10"], dtype="datetime64[D]")
    dim = pk.Statistics.from_numpy(row_count=np.full(2, 10), columns={
        "k": {"min": np.array([1, 11]), "max": np.array([10, 20]), "null_count": np.zeros(2)},
        "d": {"min": days, "max": days + 9, "null_count": np.zeros(2)}})
    fact = stats([1, 11], [10, 20])
    tables = {"dim": (dim, {"k": INT, "d": pa.date32()}), "fact": (fact, {"k": INT})}
    sql = ("SELECT * FROM fact JOIN dim ON fact.k = dim.k "
           "WHERE dim.d >= date_sub(current_date(), 3)")
    late = {name: o.tolist() for name, o in pk.prune_query(
        sql, tables, now=dt.datetime(2022, 2, 14)).items()}
    assert late == {"dim": [0, 1], "fact": [0, 2]}
    early = pk.prune_query(sql, tables, now=dt.datetime(2022, 1, 5), time_zone="Asia/Tokyo")
    assert early["fact"].tolist() == [2, 2]
