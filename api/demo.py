"""``make demo``: prune a generated ``lineitem`` dataset, as Parquet files and as a Delta table.

Run with ``python -m prunekit.demo [--dir DIR]`` (default ``demo_data/``). The first run writes
36 Parquet files of 12 row groups each (432 row groups, 648,000 rows sorted on ``l_shipdate``:
dates, timestamps with time zone, decimals, strings, floats with some NaN, NULLs) and the same
files as a Delta table whose log carries Spark-style statistics (millisecond timestamps,
strings cut at 32 characters, NaN as the greatest float). Later runs reuse them. Then, for a
few filters, it runs ``prunekit scan`` on both and checks itself: the rows matching the filter
counted by DuckDB over the kept containers only must equal the count over everything.
"""

from __future__ import annotations

import argparse
import datetime as dt
import decimal
import json
import os
import shutil
import sys

import numpy as np
import pyarrow as pa
import pyarrow.parquet as pq

import prunekit as pk
from prunekit import cli
from prunekit.sources import delta, parquet

SCHEMA = pa.schema([
    ("l_shipdate", pa.date32()),
    ("l_commit_ts", pa.timestamp("us", "UTC")),
    ("l_discount", pa.decimal128(12, 2)),
    ("l_quantity", pa.int64()),
    ("l_extendedprice", pa.float64()),
    ("l_shipmode", pa.string()),
    ("l_comment", pa.string()),
])
DELTA_TYPES = {"l_shipdate": "date", "l_commit_ts": "timestamp", "l_discount": "decimal(12,2)",
               "l_quantity": "long", "l_extendedprice": "double", "l_shipmode": "string",
               "l_comment": "string"}
FILTERS = [
    "l_shipdate >= DATE '1995-03-01' AND l_shipdate < DATE '1995-04-01' "
    "AND l_discount BETWEEN 0.05 AND 0.07",
    "l_commit_ts >= TIMESTAMP '1998-11-30 12:00:00+00:00' AND l_shipmode IN ('AIR', 'REG AIR')",
    "l_shipdate <= DATE '1992-03-01' AND l_discount <= 0.10",
    "l_extendedprice < 1000 AND l_shipdate < DATE '1993-01-01'",
    "l_comment LIKE 'sleep%' AND l_quantity IS NULL AND l_shipdate >= DATE '1997-01-01'",
]
MODES = ["AIR", "FOB", "MAIL", "RAIL", "REG AIR", "SHIP", "TRUCK"]
WORDS = ["carefully", "final", "deposits", "quickly", "regular", "accounts", "sleep",
         "furiously", "ironic", "packages", "blithely", "express", "requests", "haggle"]
VERSION = "prunekit-demo-1"


def generate(root: str, files: int = 36, groups: int = 12, rows: int = 1_500,
             seed: int = 0) -> None:
    """Write ``root/parquet`` and ``root/delta`` unless a complete dataset is there."""
    marker = os.path.join(root, ".complete")
    if os.path.exists(marker) and open(marker).read() == f"{VERSION} {files} {groups} {rows}":
        return
    shutil.rmtree(root, ignore_errors=True)
    os.makedirs(os.path.join(root, "parquet"))
    os.makedirs(os.path.join(root, "delta", "_delta_log"))
    rng = np.random.default_rng(seed)
    total, span = files * groups * rows, 2_557  # seven years of ship dates
    days = np.sort(rng.integers(0, span, total))
    adds = []
    for i in range(files):
        part = slice(i * groups * rows, (i + 1) * groups * rows)
        table = _rows(rng, days[part], i)
        name = f"part-{i:03d}.parquet"
        path = os.path.join(root, "parquet", name)
        pq.write_table(table, path, row_group_size=rows)
        target = os.path.join(root, "delta", name)
        try:
            os.link(path, target)
        except OSError:
            shutil.copyfile(path, target)
        adds.append({"add": {"path": name, "partitionValues": {}, "dataChange": True,
                             "size": os.path.getsize(path), "modificationTime": 0,
                             "stats": json.dumps(_spark_stats(table))}})
    _write_log(os.path.join(root, "delta", "_delta_log"), adds)
    with open(marker, "w") as f:
        f.write(f"{VERSION} {files} {groups} {rows}")


def _rows(rng, days: np.ndarray, i: int) -> pa.Table:
    n = len(days)
    start = np.datetime64("1992-01-01")
    shipdate = start + days.astype("timedelta64[D]")
    micros = rng.integers(0, 86_400 * 10**6, n).astype("timedelta64[us]")
    qty = pa.array(rng.integers(1, 51, n), mask=rng.random(n) < (0.01 if i % 2 == 0 else 0))
    price = rng.uniform(900 if i % 7 == 0 else 1_500, 105_000, n)
    if i % 5 == 1:  # a few NaN prices (Parquet bounds leave them out; Delta's max is NaN)
        price[rng.random(n) < 0.0005] = np.nan
    modes = np.array(MODES if i % 3 else ["FOB", "MAIL", "SHIP"])
    comment = [f"{WORDS[i % len(WORDS)]} {' '.join(w)}" for w in rng.choice(WORDS, (n, 4))]
    return pa.table({
        "l_shipdate": pa.array(shipdate, pa.date32()),
        "l_commit_ts": pa.array(shipdate.astype("datetime64[us]") + micros,
                                pa.timestamp("us", "UTC")),
        "l_discount": pa.array([decimal.Decimal(int(d)).scaleb(-2)
                                for d in rng.integers(0, 11, n)], pa.decimal128(12, 2)),
        "l_quantity": qty,
        "l_extendedprice": pa.array(price),
        "l_shipmode": pa.array(modes[rng.integers(0, len(modes), n)]),
        "l_comment": pa.array(comment, mask=rng.random(n) < 0.02),
    }, schema=SCHEMA)


def _spark_stats(table: pa.Table) -> dict:
    """What Delta on Spark writes: timestamps to the millisecond, strings cut at 32 characters
    (a U+FFFD tie-breaker on the max), NaN as the greatest float."""
    lo, hi, nulls = {}, {}, {}
    for name in table.column_names:
        col = table.column(name)
        nulls[name] = col.null_count
        values = [v for v in col.to_pylist() if v is not None]
        if not values:
            continue
        a, b = min(values), max(values)
        if name == "l_extendedprice" and any(v != v for v in values):
            a, b = min(v for v in values if v == v), "NaN"
        if isinstance(a, dt.datetime):
            a, b = (v.strftime("%Y-%m-%dT%H:%M:%S.") + f"{v.microsecond // 1000:03d}Z"
                    for v in (a, b))
        elif isinstance(a, (dt.date, decimal.Decimal)):
            a, b = (str(v) if isinstance(v, dt.date) else float(v) for v in (a, b))
        elif isinstance(a, str):
            a, b = a[:32], (b if len(b) <= 32 else b[:32] + "\ufffd")
        lo[name], hi[name] = a, b
    return {"numRecords": table.num_rows, "minValues": lo, "maxValues": hi, "nullCount": nulls}


def _write_log(log: str, adds: list[dict]) -> None:
    schema = {"type": "struct", "fields": [{"name": n, "type": t, "nullable": True,
                                            "metadata": {}} for n, t in DELTA_TYPES.items()]}
    first = [{"protocol": {"minReaderVersion": 1, "minWriterVersion": 2}},
             {"metaData": {"id": "prunekit-demo", "format": {"provider": "parquet",
                                                             "options": {}},
                           "schemaString": json.dumps(schema), "partitionColumns": [],
                           "configuration": {}, "createdTime": 0}}]
    commits = [first + adds[:12]] + [adds[k:k + 12] for k in range(12, len(adds), 12)]
    for v, actions in enumerate(commits):
        with open(os.path.join(log, f"{v:020d}.json"), "w") as f:
            f.write("\n".join(json.dumps(a) for a in actions) + "\n")


def _count(con, table: pa.Table, where: str) -> int:
    con.register("t", table)
    try:
        return con.execute(f"SELECT count(*) FROM t WHERE {where}").fetchall()[0][0]
    finally:
        con.unregister("t")


def check(root: str, where: str, con) -> list[tuple[str, int, int]]:
    """(reader, matching rows from kept containers, from everything) for both readers."""
    out = []
    stats = parquet.statistics(os.path.join(root, "parquet"))
    keep = pk.PruningPredicate(where, parquet.data_schema(stats.table)).prune(stats)
    files = stats.table.column("file").to_pylist()
    groups = stats.table.column("row_group").to_pylist()
    kept: dict[str, list[int]] = {}
    for f, g, k in zip(files, groups, keep.tolist(), strict=True):
        if k:
            kept.setdefault(f, []).append(g)
    everything = pq.read_table(os.path.join(root, "parquet"), schema=SCHEMA)
    part = [pq.ParquetFile(f).read_row_groups(gs) for f, gs in kept.items()]
    kept_table = pa.concat_tables(part) if part else SCHEMA.empty_table()
    out.append(("parquet", _count(con, kept_table, where), _count(con, everything, where)))
    stats = delta.statistics(os.path.join(root, "delta"))
    keep = pk.PruningPredicate(where, parquet.data_schema(stats.table)).prune(stats)
    paths = [p for p, k in zip(stats.table.column("path").to_pylist(), keep.tolist(),
                               strict=True) if k]
    kept_table = pa.concat_tables([pq.read_table(p, schema=SCHEMA) for p in paths]) \
        if paths else SCHEMA.empty_table()
    out.append(("delta", _count(con, kept_table, where), _count(con, everything, where)))
    return out


def run(root: str, spark: bool = False, **sizes) -> int:
    """Generate (once), scan, self-check; with ``spark`` also prune the row-group statistics
    in a local Spark session (``prunekit.spark_glue``) and check Spark agrees with classify."""
    import duckdb

    generate(root, **sizes)
    con = duckdb.connect()
    con.execute("SET TimeZone = 'UTC'")
    failures = 0
    for where in FILTERS:
        for sub in ("parquet", "delta"):
            print(f"$ prunekit scan {os.path.join(root, sub)} --where \"{where}\"")
            code = cli.main(["scan", os.path.join(root, sub), "--where", where])
            print()
            failures += code != 0
        for reader, kept, everything in check(root, where, con):
            ok = kept == everything
            failures += not ok
            print(f"self-check ({reader}): matching rows reading kept containers {kept:,}, "
                  f"reading everything {everything:,}  {'ok' if ok else 'MISMATCH'}")
        print("\n" + "-" * 100 + "\n")
    print(pk.PruningPredicate(FILTERS[0], SCHEMA).explain())
    if spark:
        failures += _spark_part(root)
    if failures:
        print(f"\nUNSOUND OR FAILED: {failures} checks failed", file=sys.stderr)
        return 1
    print("\nevery matching row is in a kept container (Parquet row groups and Delta files)")
    return 0


def _spark_part(root: str) -> int:
    """The same filters over the row-group statistics as a Spark DataFrame; 1 on a failure."""
    print("\n" + "-" * 100 + "\n\nThe same filters in Spark (prunekit.spark_glue, local[*]):")
    try:
        from prunekit import spark_glue
        from prunekit.sources import parquet

        result = spark_glue.demo(parquet.row_group_statistics(os.path.join(root, "parquet")),
                                 FILTERS, schema=SCHEMA)
    except ImportError as e:
        print(f"Spark part skipped ({e}): pip install 'prunekit[spark]'")
        return 0
    print(result["text"])
    print("\nThe same filters read by Spark, alone and through prunekit.spark_glue.read_parquet "
          "(statistics from a kept cache):")
    from prunekit.spark_glue._demo import read_demo

    read = read_demo(os.path.join(root, "parquet"), FILTERS)
    print(read["text"])
    return sum(not r["agree"] for r in result["predicates"] + read["predicates"])


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m prunekit.demo", description=__doc__)
    parser.add_argument("--dir", default=os.environ.get("PRUNEKIT_DEMO_DIR", "demo_data"),
                        help="where the generated data lives (default: demo_data)")
    parser.add_argument("--no-spark", action="store_true",
                        help="skip the Spark part (it starts a local Spark session)")
    args = parser.parse_args(argv)
    return run(args.dir, spark=not args.no_spark)


if __name__ == "__main__":
    raise SystemExit(main())
