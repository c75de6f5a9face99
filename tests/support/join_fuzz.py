"""Differential fuzzing of pruning across joins: random star and snowflake schemas written as
Parquet with random row groups, random join queries (inner, comma, left, right, full, semi,
anti, nested, IN subqueries, a CTE read twice), and DuckDB's result of each query over only
the row groups ``prune_query`` keeps equal to its result over all of them.

``python -m tests.support.join_fuzz --minutes 10`` (``make fuzz`` runs it after the predicate
fuzzer); ``tests/api/test_joins.py`` runs a few seeds. A failure prints the seed, the query and
the two results; ``--seed S --schemas 1`` repeats it. With ``--spark`` each table is a folder of
files and each query runs in Spark through ``prunekit.spark_glue.sql`` against Spark's plain
query (``tests/spark_glue/test_query.py`` runs one lake).
"""

from __future__ import annotations

import argparse
import datetime as dt
import decimal
import os
import sys
import tempfile
import time
from dataclasses import dataclass

import duckdb
import numpy as np
import pyarrow as pa
import pyarrow.parquet as pq
import sqlglot

import prunekit as pk
from prunekit.parquet import data_schema, statistics

KEY_TYPES = ("int32", "int64", "date", "string", "decimal")
# Each key: (fact-side table, column, dimension table, column).
KEYS = (("f", "f_k1", "d1", "d1_key"), ("f", "f_k2", "d2", "d2_key"),
        ("d2", "d2_k3", "d3", "d3_key"))


@dataclass
class Lake:
    folder: str
    tables: dict[str, tuple[pk.Statistics, pa.Schema]]
    files: dict[str, str]


def _keys(rng: np.random.Generator, kind: str, ints: np.ndarray) -> pa.Array:
    mask = ints < 0  # NULL
    if kind == "int32":
        return pa.array(ints, pa.int32(), mask=mask)
    if kind == "int64":
        return pa.array(ints * 1_000_003, pa.int64(), mask=mask)
    if kind == "date":
        base = dt.date(2000, 1, 1)
        return pa.array([None if m else base + dt.timedelta(days=int(v))
                         for v, m in zip(ints, mask, strict=True)], pa.date32())
    if kind == "decimal":
        return pa.array([None if m else decimal.Decimal(int(v)).scaleb(-2)
                         for v, m in zip(ints, mask, strict=True)], pa.decimal128(9, 2))
    return pa.array([None if m else f"k{int(v):04d}" for v, m in zip(ints, mask, strict=True)])


def make_lake(seed: int, folder: str) -> Lake:
    """Four tables: fact ``f`` with keys to ``d1`` and ``d2``, and ``d2`` with a key to
    ``d3``; random key types, dangling and NULL keys, sort orders and row-group sizes."""
    rng = np.random.default_rng(seed)
    kinds = {k[1]: rng.choice(KEY_TYPES) for k in KEYS}
    sizes = {"f": int(rng.integers(200, 3000)), "d1": int(rng.integers(5, 300)),
             "d2": int(rng.integers(5, 300)), "d3": int(rng.integers(3, 100))}
    span = {t: int(sizes[t] * rng.uniform(1.0, 3.0)) + 1 for t in ("d1", "d2", "d3")}
    cols: dict[str, dict[str, pa.Array]] = {t: {} for t in sizes}
    for table, key, dim, dim_key in KEYS:
        kind = str(kinds[key])
        own = rng.choice(span[dim], size=sizes[dim], replace=False)
        cols[dim][dim_key] = _keys(rng, kind, own)
        refs = rng.integers(0, int(span[dim] * rng.uniform(0.5, 1.5)) + 1, size=sizes[table])
        refs[rng.random(sizes[table]) < rng.uniform(0, 0.1)] = -1
        cols[table][key] = _keys(rng, kind, refs)
    n = sizes["f"]
    cols["f"]["f_id"] = pa.array(np.arange(n))
    cols["f"]["f_v"] = pa.array(rng.integers(-50, 50, n))
    cols["f"]["f_s"] = pa.array([f"s{v}" for v in rng.integers(0, 9, n)])
    for dim, name in (("d1", "d1_a"), ("d2", "d2_b"), ("d3", "d3_c")):
        m = sizes[dim]
        values = rng.integers(0, 40, m)
        cols[dim][name] = pa.array(values, mask=rng.random(m) < 0.05)
    cols["d1"]["d1_s"] = pa.array([f"x{v}" for v in rng.integers(0, 6, sizes["d1"])])
    tables, files = {}, {}
    for name, columns in cols.items():
        t = pa.table(columns)
        order = rng.choice(["random", *t.column_names])
        if order == "random":
            t = t.take(rng.permutation(t.num_rows))
        else:
            t = t.sort_by([(order, "ascending")])
        path = os.path.join(folder, f"{name}.parquet")
        pq.write_table(t, path, row_group_size=int(rng.integers(3, max(4, t.num_rows // 3))))
        stats = statistics(path)
        tables[name], files[name] = (stats, data_schema(stats.table)), path
    return Lake(folder, tables, files)


def _dim_filter(rng: np.random.Generator, dim: str, alias: str) -> str:
    col = {"d1": rng.choice(["d1_a", "d1_s"]), "d2": "d2_b", "d3": "d3_c"}[dim]
    if col == "d1_s":
        return f"{alias}.d1_s {rng.choice(['=', '<', '>='])} 'x{rng.integers(0, 6)}'"
    v = int(rng.integers(0, 40))
    return str(rng.choice([f"{alias}.{col} < {v}", f"{alias}.{col} = {v}",
                           f"{alias}.{col} BETWEEN {v} AND {v + int(rng.integers(0, 6))}",
                           f"{alias}.{col} IS NULL", f"{alias}.{col} > {v}"]))


def random_query(rng: np.random.Generator) -> str:
    """A random join query over ``f``, ``d1``, ``d2``, ``d3`` in Spark SQL."""
    shape = rng.choice(["chain", "chain", "chain", "in", "cte", "derived", "derived", "union",
                        "grouped", "scalar"])
    if shape == "union":
        return (f"SELECT count(*), sum(u.v) FROM (SELECT f_k1 AS k, f_v AS v FROM f WHERE f_v > "
                f"{int(rng.integers(-50, 50))} UNION ALL SELECT f_k1, -f_v FROM f WHERE f_s = "
                f"'s{rng.integers(0, 9)}') u JOIN d1 ON u.k = d1.d1_key WHERE "
                f"{_dim_filter(rng, 'd1', 'd1')}")
    if shape == "grouped":
        kind = rng.choice(["JOIN", "LEFT JOIN", "LEFT SEMI JOIN"])
        return (f"SELECT count(*), sum(g.total) FROM (SELECT f_k2, sum(f_v) AS total FROM f "
                f"GROUP BY f_k2) g {kind} d2 ON g.f_k2 = d2.d2_key AND "
                f"{_dim_filter(rng, 'd2', 'd2')}")
    if shape == "scalar":
        return (f"SELECT count(*), sum(f.f_v) FROM f WHERE f.f_k1 = (SELECT d1_key FROM d1 "
                f"WHERE {_dim_filter(rng, 'd1', 'd1')} ORDER BY d1_key LIMIT 1)")
    if shape == "in":
        inner = f"SELECT d1_key FROM d1 WHERE {_dim_filter(rng, 'd1', 'd1')}"
        neg = rng.choice(["", "NOT "])
        return (f"SELECT count(*), sum(f.f_v) FROM f WHERE f.f_k1 {neg}IN ({inner}) "
                f"AND f.f_v > {int(rng.integers(-60, 40))}")
    if shape == "cte":
        kind = rng.choice(["JOIN", "LEFT JOIN"])
        return (f"WITH x AS (SELECT f.f_k1, f.f_v FROM f {kind} d1 ON f.f_k1 = d1.d1_key "
                f"WHERE {_dim_filter(rng, 'd1', 'd1')}) SELECT count(*), sum(a.f_v) FROM x a "
                f"JOIN x b ON a.f_k1 = b.f_k1")
    if shape == "derived":
        limit = f" ORDER BY f.f_id LIMIT {int(rng.integers(1, 200))}" if rng.random() < 0.5 \
            else ""
        return (f"SELECT count(*), sum(g.f_v) FROM (SELECT * FROM f WHERE f.f_v < "
                f"{int(rng.integers(-40, 60))}{limit}) g JOIN d1 ON g.f_k1 = d1.d1_key WHERE "
                f"{_dim_filter(rng, 'd1', 'd1')}")
    sql, where, hidden = "FROM f", [], set()
    joins = [("d1", "f.f_k1 = d1.d1_key"), ("d2", "f.f_k2 = d2.d2_key")]
    rng.shuffle(joins)
    joins = joins[:int(rng.integers(1, 3))]
    if any(d == "d2" for d, _ in joins) and rng.random() < 0.6:
        joins.append(("d3", "d2.d2_k3 = d3.d3_key"))
    for dim, on in joins:
        if dim == "d3" and "d2" in hidden:
            break
        kind = rng.choice(["JOIN", "JOIN", ",", "LEFT JOIN", "RIGHT JOIN", "FULL JOIN",
                           "LEFT SEMI JOIN", "LEFT ANTI JOIN"])
        filt = _dim_filter(rng, dim, dim)
        if kind == ",":
            sql += f", {dim}"
            where += [on, filt]
        elif kind in ("LEFT SEMI JOIN", "LEFT ANTI JOIN"):
            sql += f" {kind} {dim} ON {on} AND {filt}"
            hidden.add(dim)
        else:
            in_on = rng.random() < 0.4
            sql += f" {kind} {dim} ON {on}" + (f" AND {filt}" if in_on else "")
            if not in_on:
                where.append(filt)
    if rng.random() < 0.5:
        where.append(f"f.f_v > {int(rng.integers(-60, 40))}")
    text = f"SELECT count(*), sum(f.f_v), count(f.f_s) {sql}"
    if where:
        text += " WHERE " + " AND ".join(where)
    if rng.random() < 0.3:
        text = text.replace("SELECT count(*),", "SELECT f.f_s, count(*),") + " GROUP BY f.f_s"
    return text


def _result(con: duckdb.DuckDBPyConnection, files: dict[str, str], sql: str) -> list:
    for name, path in files.items():
        con.execute(f"CREATE OR REPLACE VIEW {name} AS SELECT * FROM read_parquet('{path}')")
    rows = con.execute(sqlglot.transpile(sql, read="spark", write="duckdb")[0]).fetchall()
    return sorted(rows, key=repr)


def kept_files(lake: Lake, outcomes: dict[str, np.ndarray], folder: str) -> dict[str, str]:
    """Each table rewritten with only the row groups its outcomes keep."""
    out = {}
    for name, path in lake.files.items():
        keep = outcomes.get(name)
        f = pq.ParquetFile(path)
        groups = [i for i in range(f.num_row_groups) if keep is None or keep[i] != 0]
        t = f.read_row_groups(groups) if groups else f.schema_arrow.empty_table()
        out[name] = os.path.join(folder, f"{name}.kept.parquet")
        pq.write_table(t, out[name])
    return out


def check(seed: int, queries: int, log=print) -> list[str]:
    """Failures (as text) for one lake and ``queries`` random queries over it."""
    failures = []
    rng = np.random.default_rng(seed + 1)
    with tempfile.TemporaryDirectory() as folder:
        lake = make_lake(seed, folder)
        con = duckdb.connect()
        for q in range(queries):
            sql = random_query(rng)
            budget = int(rng.choice([0, 10**6]))
            try:
                outcomes = pk.prune_query(sql, lake.tables, row_budget=budget,
                                          backend="numpy")
                want = _result(con, lake.files, sql)
                got = _result(con, kept_files(lake, outcomes, folder), sql)
            except Exception as e:  # a crash is a failure too
                failures.append(f"seed {seed} query {q}: {sql}\n  crashed: {e!r}")
                continue
            if got != want:
                skipped = {k: int((v == 0).sum()) for k, v in outcomes.items()}
                failures.append(f"seed {seed} query {q} (row budget {budget}): {sql}\n"
                                f"  all row groups: {want}\n  kept ones: {got}\n"
                                f"  skipped: {skipped}")
                log(failures[-1])
    return failures


def folder_lake(seed: int, folder: str, max_files: int = 24) -> dict[str, str]:
    """``make_lake``'s tables as folders of Parquet files (name to folder): consecutive row
    groups in at most ``max_files`` files per table, so that a table's files can be skipped."""
    lake = make_lake(seed, folder)
    out = {}
    for name, path in lake.files.items():
        f = pq.ParquetFile(path)
        groups = f.num_row_groups
        per = -(-groups // max_files)
        out[name] = os.path.join(folder, name)
        os.makedirs(out[name])
        size = max(1, f.metadata.row_group(0).num_rows) if groups else 1
        for k in range(0, groups, per):
            pq.write_table(f.read_row_groups(list(range(k, min(k + per, groups)))),
                           os.path.join(out[name], f"part-{k:04d}.parquet"), row_group_size=size)
    return out


def _spark_rows(df) -> list:
    return sorted((tuple(r) for r in df.collect()), key=repr)


def spark_check(spark, seed: int, queries: int, log=print) -> tuple[list[str], int]:
    """Failures (as text) of ``prunekit.spark_glue.sql`` for one lake of folders and
    ``queries`` random queries over it, each against Spark's plain query, and of ``prune`` of
    the plain query's DataFrame; and how many files were left out in all."""
    from prunekit import spark_glue as sg

    failures, skipped = [], 0
    rng = np.random.default_rng(seed + 1)
    with tempfile.TemporaryDirectory() as folder:
        tables = folder_lake(seed, folder)
        for q in range(queries):
            sql = random_query(rng)
            try:
                for name, path in tables.items():
                    spark.read.parquet(path).createOrReplaceTempView(name)
                try:
                    frame = spark.sql(sql)
                    want = _spark_rows(frame)
                    # The same query as a DataFrame: prune() reads its optimized plan.
                    framed = sg.plan_frame(frame)
                    got_frame = _spark_rows(framed.frame)
                finally:
                    for name in tables:
                        spark.catalog.dropTempView(name)
                plan = sg.plan_sql(spark, sql, tables)
                got = _spark_rows(plan.dataframe(spark))
            except Exception as e:  # a crash is a failure too
                failures.append(f"seed {seed} query {q}: {sql}\n  crashed: {e!r}")
                continue
            skipped += sum(t.files - t.kept_files for t in plan.tables + framed.tables
                           if not t.why)
            if got != want:
                failures.append(f"seed {seed} query {q}: {sql}\n  all files: {want}\n"
                                f"  kept ones: {got}\n  {plan.explain()}")
                log(failures[-1])
            if got_frame != want:
                failures.append(f"seed {seed} query {q} as a DataFrame (prune): {sql}\n"
                                f"  all files: {want}\n  kept ones: {got_frame}\n"
                                f"  {framed.explain()}")
                log(failures[-1])
    return failures, skipped


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--minutes", type=float, default=10.0)
    ap.add_argument("--seed", type=int, default=None)
    ap.add_argument("--schemas", type=int, default=None, help="stop after this many lakes")
    ap.add_argument("--queries", type=int, default=30, help="queries per lake")
    ap.add_argument("--spark", action="store_true",
                    help="run each query in Spark through prunekit.spark_glue.sql against "
                         "Spark's plain query (tables as folders of files)")
    args = ap.parse_args(argv)
    first = args.seed if args.seed is not None else int(time.time() * 1000) % 10**9
    deadline = time.monotonic() + args.minutes * 60
    what = "spark join fuzz" if args.spark else "join fuzz"
    print(f"{what}: seeds from {first}, {args.minutes} minutes", flush=True)
    spark = None
    if args.spark:
        from prunekit.spark_glue import local_session

        spark = local_session("local[2]", **{"spark.sql.shuffle.partitions": "2"})
    seed, failures, lakes, skipped = first, [], 0, 0
    try:
        while time.monotonic() < deadline and (args.schemas is None or lakes < args.schemas):
            if spark is None:
                failures += check(seed, args.queries)
            else:
                found, left_out = spark_check(spark, seed, args.queries)
                failures, skipped = failures + found, skipped + left_out
            seed, lakes = seed + 1, lakes + 1
    finally:
        if spark is not None:
            spark.stop()
    print(f"{what}: {lakes} lakes, {lakes * args.queries} queries, {len(failures)} failures"
          + (f", {skipped} files left out" if spark is not None else ""), flush=True)
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
