"""PruningPredicate.from_query: the conjuncts pushed to one table's scans (exact text, rule by
rule), and soundness: the query gives the same result on the table with the pruned containers
removed (DuckDB runs each query on random data)."""

import datetime as dt

import duckdb
import numpy as np
import pyarrow as pa
import pyarrow.compute as pc
import pytest

import prunekit as pk
from prunekit import TableNotReadError

LINEITEM = pa.schema([("l_orderkey", pa.int64()), ("l_quantity", pa.int64()),
                      ("l_discount", pa.float64()), ("l_shipdate", pa.date32()),
                      ("l_shipmode", pa.string()), ("l_returnflag", pa.string())])


def pushed(sql: str, table: str = "lineitem") -> str:
    return pk.PruningPredicate.from_query(sql, table, LINEITEM).expression.sql()


# (query, the predicate pushed to lineitem, the rule)
CASES = [
    ("SELECT * FROM lineitem WHERE l_quantity < 24 AND l_discount > 0.05",
     "l_quantity < 24 AND l_discount > 0.05", "WHERE of a single scan"),
    ("SELECT sum(l_quantity) FROM lineitem WHERE l_shipdate >= DATE '1994-01-01' AND "
     "l_shipdate < DATE '1994-01-01' + INTERVAL '1' YEAR AND l_discount BETWEEN 0.06 - 0.01 "
     "AND 0.06 + 0.01",
     "l_shipdate >= DATE '1994-01-01' AND l_shipdate < DATE '1995-01-01' AND "
     "l_discount BETWEEN 0.05 AND 0.07", "TPC-H Q6: date and decimal constants folded"),
    ("SELECT * FROM orders o JOIN lineitem l ON o.o_orderkey = l.l_orderkey AND "
     "l.l_quantity > 5 WHERE o.o_orderdate < DATE '1995-03-15' AND l.l_shipmode = 'AIR'",
     "l_quantity > 5 AND l_shipmode = 'AIR'", "inner join: ON and WHERE on this side"),
    ("SELECT * FROM lineitem l LEFT JOIN orders o ON l.l_orderkey = o.o_orderkey AND "
     "l.l_quantity > 5 WHERE l.l_discount < 0.05",
     "l_discount < 0.05", "LEFT JOIN preserved side: WHERE yes, ON no"),
    ("SELECT * FROM orders o LEFT JOIN lineitem l ON l.l_orderkey = o.o_orderkey AND "
     "l.l_quantity > 5 WHERE l.l_discount < 0.05 OR l.l_discount IS NULL",
     "l_quantity > 5", "LEFT JOIN null-supplying side: ON yes, non-strict WHERE no"),
    ("SELECT * FROM orders o LEFT JOIN lineitem l ON l.l_orderkey = o.o_orderkey "
     "WHERE l.l_discount < 0.05 AND l.l_shipmode IS NOT NULL",
     "l_discount < 0.05 AND NOT l_shipmode IS NULL",
     "null-supplying side: WHERE conjuncts never TRUE on NULLs"),
    ("SELECT * FROM lineitem l RIGHT JOIN orders o ON l.l_orderkey = o.o_orderkey AND "
     "l.l_quantity > 5 WHERE o.o_orderdate > DATE '1995-01-01'",
     "l_quantity > 5", "RIGHT JOIN: ON onto the null-supplying left side"),
    ("SELECT * FROM lineitem l FULL OUTER JOIN orders o ON l.l_orderkey = o.o_orderkey AND "
     "l.l_quantity > 5 WHERE l.l_discount < 0.05 OR l.l_discount IS NULL",
     "TRUE", "FULL JOIN: nothing from ON, non-strict WHERE stays"),
    ("SELECT * FROM (SELECT * FROM lineitem WHERE l_quantity > 1 ORDER BY l_shipdate LIMIT 10) t"
     " WHERE l_discount > 0.05", "l_quantity > 1", "never below a LIMIT"),
    ("SELECT * FROM (SELECT *, row_number() OVER (ORDER BY l_shipdate) AS r FROM lineitem) t "
     "WHERE l_discount > 0.05", "TRUE", "never below a window function"),
    ("SELECT l_returnflag, sum(l_quantity) AS s FROM lineitem GROUP BY l_returnflag "
     "HAVING sum(l_quantity) > 100 AND l_returnflag = 'R'",
     "l_returnflag = 'R'", "HAVING: grouping key yes, aggregate no"),
    ("SELECT * FROM (SELECT l_shipmode, sum(l_quantity) AS q FROM lineitem GROUP BY l_shipmode)"
     " t WHERE q > 10 AND l_shipmode < 'M'", "l_shipmode < 'M'",
     "through GROUP BY onto keys only"),
    ("SELECT * FROM (SELECT count(*) AS c, max(l_quantity) AS m FROM lineitem) t WHERE m > 3",
     "TRUE", "never onto a global aggregate"),
    ("SELECT * FROM (SELECT l_quantity AS q FROM lineitem WHERE l_discount > 0.1 UNION ALL "
     "SELECT l_quantity FROM lineitem WHERE l_discount < 0.01) u WHERE q > 5",
     "l_discount > 0.1 AND l_quantity > 5 OR l_discount < 0.01 AND l_quantity > 5",
     "UNION ALL: into every branch, by position; two scans OR-ed"),
    ("SELECT l_quantity FROM lineitem WHERE l_discount > 0.1 UNION ALL SELECT l_quantity "
     "FROM lineitem", "TRUE", "UNION with an unfiltered branch"),
    ("SELECT * FROM (SELECT l_quantity AS q FROM lineitem EXCEPT SELECT l_quantity FROM "
     "lineitem WHERE l_discount < 0.01) u WHERE q > 5", "l_quantity > 5 OR l_discount < 0.01",
     "EXCEPT: nothing into the right branch (its own WHERE stays)"),
    ("SELECT * FROM lineitem a JOIN lineitem b ON a.l_orderkey = b.l_orderkey "
     "WHERE a.l_quantity > 5 AND b.l_quantity < 2", "l_quantity > 5 OR l_quantity < 2",
     "table twice: OR of the scans"),
    ("SELECT * FROM lineitem a JOIN lineitem b ON a.l_orderkey = b.l_orderkey "
     "WHERE a.l_quantity > 5", "TRUE", "table twice, one scan unfiltered"),
    ("WITH c AS (SELECT * FROM lineitem WHERE l_quantity > 1) SELECT * FROM c x JOIN c y "
     "ON x.l_orderkey = y.l_orderkey WHERE x.l_discount > 0.05 AND y.l_discount < 0.01",
     "l_quantity > 1 AND l_discount > 0.05 OR l_quantity > 1 AND l_discount < 0.01",
     "CTE used twice: each use a scan"),
    ("WITH c AS (SELECT * FROM lineitem WHERE l_quantity > 1) SELECT * FROM c WHERE "
     "l_discount > 0.05 UNION ALL SELECT * FROM c", "l_quantity > 1",
     "CTE used twice, once unfiltered: its own WHERE stays"),
    ("SELECT * FROM orders WHERE EXISTS (SELECT 1 FROM lineitem WHERE l_orderkey = o_orderkey "
     "AND l_shipmode = 'MAIL')", "l_shipmode = 'MAIL'",
     "EXISTS: the subquery's own conjuncts, not the correlated one"),
    ("SELECT * FROM part WHERE p_size < (SELECT avg(l_quantity) FROM lineitem WHERE "
     "l_orderkey = p_partkey AND l_returnflag = 'N')", "l_returnflag = 'N'",
     "scalar subquery"),
    ("SELECT * FROM lineitem WHERE l_quantity > 3 AND l_orderkey IN (SELECT o_orderkey FROM "
     "orders)", "l_quantity > 3", "IN (subquery) stays above"),
    ("SELECT * FROM lineitem l JOIN orders o ON l.l_orderkey = o.o_orderkey "
     "WHERE l.l_quantity > o.o_totalprice OR l.l_discount > 0.1", "TRUE",
     "conjunct over two sources stays"),
    ("SELECT * FROM lineitem TABLESAMPLE (10 PERCENT) WHERE l_quantity > 3", "TRUE",
     "TABLESAMPLE: read unfiltered"),
    ("SELECT * FROM (SELECT l_quantity AS q, l_discount AS d FROM lineitem) s(a, b) "
     "WHERE a > 5", "l_quantity > 5", "derived column list renames by position"),
    ("SELECT * FROM lineitem l LEFT ANTI JOIN orders o ON l.l_orderkey = o.o_orderkey AND "
     "l.l_quantity > 5", "TRUE", "LEFT ANTI: not onto the left side"),
    ("SELECT * FROM orders o LEFT SEMI JOIN lineitem l ON l.l_orderkey = o.o_orderkey AND "
     "l.l_quantity > 5", "l_quantity > 5", "LEFT SEMI: onto the right side"),
    ("SELECT * FROM lineitem JOIN other USING (l_quantity) WHERE l_quantity > 5", "TRUE",
     "USING columns are not resolved"),
    ("WITH RECURSIVE r AS (SELECT * FROM lineitem WHERE l_quantity > 1) SELECT * FROM r",
     "TRUE", "recursive CTE: unfiltered"),
]


@pytest.mark.parametrize("sql, expected, rule", CASES, ids=[c[2] for c in CASES])
def test_pushed_predicate(sql, expected, rule):
    assert pushed(sql) == expected


def test_explain_shows_scans_and_notes():
    pred = pk.PruningPredicate.from_query(
        "SELECT * FROM (SELECT l_shipmode, sum(l_quantity) AS q FROM lineitem GROUP BY "
        "l_shipmode) t JOIN lineitem x ON x.l_shipmode = t.l_shipmode WHERE q > 10 AND "
        "x.l_quantity < 3", "lineitem", LINEITEM)
    text = pred.explain()
    assert "scan 1: TRUE (no filter)" in text and "scan 2: l_quantity < 3" in text
    assert "not pushed onto an aggregate or unknown output: q > 10" in text
    assert pred.always_true


def test_case_insensitive_names_and_qualified_table():
    assert pushed("SELECT * FROM tpch.LineItem L WHERE L.L_QUANTITY > 5") == "L_QUANTITY > 5"


def test_unbindable_conjunct_is_dropped_not_an_error():
    sql = "SELECT * FROM lineitem WHERE l_quantity > 5 AND l_shipmode > 5 AND l_quantity.x = 1"
    pred = pk.PruningPredicate.from_query(sql, "lineitem", LINEITEM)
    assert pred.expression.sql().startswith("l_quantity > 5")


def test_errors():
    with pytest.raises(TableNotReadError, match="'nation' is not read"):
        pushed("SELECT * FROM lineitem", table="nation")
    with pytest.raises(pk.SqlSyntaxError):
        pushed("SELECT * FROM WHERE")
    with pytest.raises(pk.UnsupportedError):
        pushed("SELECT 1; SELECT 2")


# ---- soundness: the query's result is the same without the pruned containers -----------
ORDERS = pa.schema([("o_orderkey", pa.int64()), ("o_orderdate", pa.date32()),
                    ("o_totalprice", pa.float64())])


def make_lineitem(seed: int, rows: int = 240) -> pa.Table:
    rng = np.random.default_rng(seed)
    def nulls(p):
        return rng.random(rows) < p
    q = rng.integers(1, 50, rows)
    d = np.round(rng.random(rows) * 0.11, 2)
    day = rng.integers(8000, 10000, rows)
    table = pa.table({
        "l_orderkey": pa.array(rng.integers(0, 60, rows)),
        "l_quantity": pa.array(q, mask=nulls(0.05)),
        "l_discount": pa.array(d, mask=nulls(0.05)),
        "l_shipdate": pa.array([dt.date(1970, 1, 1) + dt.timedelta(days=int(x)) for x in day],
                               pa.date32()),
        "l_shipmode": pa.array(rng.choice(["AIR", "MAIL", "RAIL", "SHIP", "TRUCK"], rows),
                               mask=nulls(0.05)),
        "l_returnflag": pa.array(rng.choice(["A", "N", "R"], rows)),
    }, schema=LINEITEM)
    # Sorted containers (as clustered data is) so that pruning has something to skip.
    key = ["l_quantity", "l_shipdate", "l_discount"][seed % 3]
    return table.sort_by([(key, "ascending")])


def make_orders(seed: int) -> pa.Table:
    rng = np.random.default_rng(seed + 1000)
    keys = np.arange(0, 70)
    return pa.table({"o_orderkey": keys,
                     "o_orderdate": pa.array([dt.date(1994, 1, 1) + dt.timedelta(days=int(x))
                                              for x in rng.integers(0, 700, keys.size)]),
                     "o_totalprice": rng.random(keys.size) * 50}, schema=ORDERS)


def statistics(table: pa.Table, size: int) -> tuple[pk.Statistics, list[pa.Table]]:
    chunks = [table.slice(i, size) for i in range(0, table.num_rows, size)]
    cols = {"row_count": [c.num_rows for c in chunks]}
    for name in table.column_names:
        mins = [pc.min(c[name]).as_py() for c in chunks]
        maxs = [pc.max(c[name]).as_py() for c in chunks]
        cols[name] = pa.StructArray.from_arrays(
            [pa.array(mins, table.schema.field(name).type),
             pa.array(maxs, table.schema.field(name).type),
             pa.array([c[name].null_count for c in chunks], pa.int64())],
            ["min", "max", "null_count"])
    return pk.Statistics.from_arrow(pa.table(cols)), chunks


def run(sql: str, lineitem: pa.Table, orders: pa.Table) -> list:
    con = duckdb.connect()
    con.register("lineitem", lineitem)
    con.register("orders", orders)
    rows = con.execute(sql).fetchall()
    con.close()
    return sorted(rows, key=repr)


SOUNDNESS = [
    "SELECT l_orderkey, l_quantity FROM lineitem WHERE l_shipdate >= DATE '1994-01-01' AND "
    "l_shipdate < DATE '1994-01-01' + INTERVAL '1' YEAR AND l_discount BETWEEN 0.06 - 0.01 "
    "AND 0.06 + 0.01 AND l_quantity < 24",
    "SELECT o.o_orderkey, l.l_quantity FROM orders o JOIN lineitem l ON o.o_orderkey = "
    "l.l_orderkey AND l.l_quantity > 20 WHERE o.o_orderdate < DATE '1995-03-15' AND "
    "l.l_shipmode = 'AIR'",
    "SELECT l.l_orderkey, l.l_quantity, o.o_orderkey FROM lineitem l LEFT JOIN orders o "
    "ON l.l_orderkey = o.o_orderkey AND l.l_quantity > 30 WHERE l.l_discount < 0.05",
    "SELECT o.o_orderkey, l.l_quantity FROM orders o LEFT JOIN lineitem l ON l.l_orderkey = "
    "o.o_orderkey AND l.l_quantity > 40 WHERE l.l_discount < 0.05 OR l.l_discount IS NULL",
    "SELECT o.o_orderkey, l.l_quantity FROM orders o LEFT JOIN lineitem l ON l.l_orderkey = "
    "o.o_orderkey WHERE l.l_discount > 0.08",
    "SELECT l.l_quantity, o.o_orderkey FROM lineitem l FULL OUTER JOIN orders o ON "
    "l.l_orderkey = o.o_orderkey AND l.l_quantity > 30 WHERE l.l_quantity IS NULL OR "
    "l.l_quantity < 10",
    "SELECT * FROM (SELECT l_orderkey, l_quantity, l_shipdate, l_discount FROM lineitem WHERE "
    "l_quantity > 10 ORDER BY l_quantity, l_shipdate, l_orderkey, l_discount LIMIT 15) t "
    "WHERE l_discount > 0.05",
    "SELECT l_returnflag, sum(l_quantity), count(*) FROM lineitem GROUP BY l_returnflag "
    "HAVING sum(l_quantity) > 100 AND l_returnflag = 'R'",
    "SELECT * FROM (SELECT l_shipmode, count(*) AS c FROM lineitem GROUP BY l_shipmode) t "
    "WHERE c > 10 AND l_shipmode < 'M'",
    "SELECT * FROM (SELECT l_quantity AS q FROM lineitem WHERE l_discount > 0.09 UNION ALL "
    "SELECT l_quantity FROM lineitem WHERE l_discount < 0.01) u WHERE q > 25",
    "SELECT a.l_quantity, b.l_quantity FROM lineitem a JOIN lineitem b ON a.l_orderkey = "
    "b.l_orderkey WHERE a.l_quantity > 45 AND b.l_quantity < 3",
    "WITH c AS (SELECT * FROM lineitem WHERE l_quantity > 5) SELECT x.l_quantity, y.l_quantity"
    " FROM c x JOIN c y ON x.l_orderkey = y.l_orderkey WHERE x.l_shipdate < DATE '1993-01-01'"
    " AND y.l_shipdate > DATE '1996-06-01'",
    "SELECT o_orderkey FROM orders WHERE EXISTS (SELECT 1 FROM lineitem WHERE l_orderkey = "
    "o_orderkey AND l_quantity > 45)",
    "SELECT o_orderkey FROM orders WHERE o_totalprice < (SELECT avg(l_quantity) FROM lineitem "
    "WHERE l_orderkey = o_orderkey AND l_quantity < 10)",
    "SELECT * FROM (SELECT l_orderkey, l_quantity, row_number() OVER (ORDER BY l_quantity, "
    "l_orderkey, l_shipdate, l_discount) AS r FROM lineitem) t WHERE l_quantity > 40",
    "SELECT * FROM (SELECT count(*) AS c, max(l_quantity) AS m FROM lineitem) t WHERE m > 3",
]


def pruned_table(sql: str, lineitem: pa.Table, size: int = 8) -> tuple[pa.Table, int]:
    stats, chunks = statistics(lineitem, size)
    keep = pk.PruningPredicate.from_query(sql, "lineitem", LINEITEM).prune(stats)
    kept = [c for c, k in zip(chunks, keep, strict=True) if k]
    return (pa.concat_tables(kept) if kept else lineitem.slice(0, 0)), int((~keep).sum())


@pytest.mark.parametrize("sql", SOUNDNESS)
def test_pruned_containers_do_not_change_the_result(sql):
    skipped = 0
    for seed in range(3):
        lineitem, orders = make_lineitem(seed), make_orders(seed)
        smaller, n = pruned_table(sql, lineitem)
        skipped += n
        assert run(sql, smaller, orders) == run(sql, lineitem, orders), (seed, sql)


def test_soundness_check_catches_a_wrong_pushdown():
    """Pushing the preserved side's ON condition of a LEFT JOIN (a classic mistake) changes
    the result, and the check above would see it."""
    sql = ("SELECT l.l_orderkey, l.l_quantity, o.o_orderkey FROM lineitem l LEFT JOIN orders o "
           "ON l.l_orderkey = o.o_orderkey AND l.l_quantity > 30")
    lineitem, orders = make_lineitem(0), make_orders(0)
    stats, chunks = statistics(lineitem, 8)
    wrong = pk.PruningPredicate("l_quantity > 30", LINEITEM).prune(stats)
    smaller = pa.concat_tables([c for c, k in zip(chunks, wrong, strict=True) if k])
    assert run(sql, smaller, orders) != run(sql, lineitem, orders)
    assert pushed(sql) == "TRUE"


def test_pushdown_prunes_on_the_sorted_data():
    """The soundness tests have teeth: pushed predicates do skip containers."""
    lineitem = make_lineitem(0)  # sorted by l_quantity
    _, n = pruned_table(SOUNDNESS[12], lineitem)
    assert n > 10


def test_other_dialects_push_only_what_means_the_same():
    """PostgreSQL divides integers (-7 / 2 is -3, so x = -7 passes x / 2 >= -3), orders strings
    by collation and reads 1e3 as NUMERIC: such conjuncts are not read as Spark would read
    them. A column against a plain number or a DATE means the same everywhere."""
    schema = {"x": pa.int64(), "d": pa.date32(), "s": pa.string()}
    sql = ("SELECT * FROM t WHERE x / 2 >= -3 AND s > 'b' AND x = 1e3 AND "
           "d >= '1994-01-01'::date AND x BETWEEN -10 AND 10 AND x IS NOT NULL")
    pred = pk.PruningPredicate.from_query(sql, "t", schema, dialect="postgres")
    assert pred.expression.sql() == ("d >= DATE '1994-01-01' AND x BETWEEN -10 AND 10 AND "
                                     "NOT x IS NULL")
    assert "it may not mean in postgres what it means in Spark" in pred.explain()
    only_minus_seven = pk.Statistics.from_arrow(pa.table({
        "row_count": [1], "x": pa.array([{"min": -7, "max": -7, "null_count": 0}])}))
    division = pk.PruningPredicate.from_query("SELECT * FROM t WHERE x / 2 >= -3", "t", schema,
                                              dialect="postgres")
    assert division.always_true  # nothing pushed: the container is read
    spark = pk.PruningPredicate.from_query("SELECT * FROM t WHERE x / 2 >= -3", "t", schema)
    assert spark.classify(only_minus_seven).tolist() == [pk.NONE_MATCH]  # -3.5 in Spark


def test_tables_read_are_the_base_tables_in_order_of_the_text():
    from prunekit.expr.query import tables_read

    q = """WITH recent AS (SELECT * FROM Sales WHERE d > 3)
           SELECT * FROM recent JOIN db.items i ON recent.k = i.k, range(10) r
           WHERE recent.k IN (SELECT k FROM sales UNION SELECT k FROM returns)"""
    assert tables_read(q) == ["Sales", "db.items", "returns"]  # no CTE, no table function
    assert tables_read("SELECT * FROM `my table`") == ["my table"]
    with pytest.raises(pk.SqlSyntaxError):
        tables_read("SELECT * FROM (")


def test_join_keys_travel_into_derived_tables_as_keys_not_filters():
    """A join on a CTE's output reaches the scans inside it, renamed by each branch of a UNION
    and through GROUP BY keys, as a JoinKey naming the scan's own column; it is never pushed as a
    filter nor noted as one that was not pushed."""
    from prunekit.expr.query import pushdowns

    q = ("WITH s AS (SELECT ss_item AS it, ss_qty FROM sales UNION ALL "
         "SELECT cs_item, cs_qty FROM csales) "
         "SELECT it, sum(ss_qty) FROM (SELECT it, ss_qty FROM s) AS d "
         "JOIN item ON d.it = i_key WHERE i_color = 'red' GROUP BY it")
    found = pushdowns(q, {"sales": ["ss_item", "ss_qty"], "csales": ["cs_item", "cs_qty"],
                          "item": ["i_key", "i_color"]})
    item_scan = found["item"].scan_ids[0]
    for table, column in (("sales", "ss_item"), ("csales", "cs_item")):
        (keys,) = found[table].joins
        assert [(k.column, k.table, k.scan, k.key) for k in keys] == [
            (column, "item", item_scan, "i_key")]
        assert found[table].scans == [None] and found[table].notes == []
    # A key onto an aggregate output does not reach the scan, and is not noted as a filter.
    q2 = ("SELECT * FROM (SELECT max(ss_item) AS m FROM sales) AS d JOIN item ON d.m = i_key")
    found = pushdowns(q2, {"sales": ["ss_item", "ss_qty"], "item": ["i_key", "i_color"]})
    assert found["sales"].joins == [()] and found["sales"].notes == []
