"""``make demo``: prune generated TPC-H-like ``lineitem`` statistics and show why.

Run with ``python -m prunekit.demo``. It builds statistics for 16 containers sorted on
``l_shipdate`` (as a table clustered by date would be), classifies a few filters, prints one
line per container and the explanation of the first filter, and checks the outcomes against the
rows the statistics were computed from.
"""

from __future__ import annotations

import datetime as dt
import decimal

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

import prunekit as pk

SCHEMA = pa.schema([
    ("l_shipdate", pa.date32()),
    ("l_discount", pa.decimal128(12, 2)),
    ("l_quantity", pa.int64()),
    ("l_extendedprice", pa.float64()),
    ("l_shipmode", pa.string()),
])

FILTERS = [
    "l_shipdate >= DATE '1994-01-01' AND l_shipdate < DATE '1995-01-01' "
    "AND l_discount BETWEEN 0.05 AND 0.07 AND l_quantity < 24",
    "l_shipmode IN ('AIR', 'REG AIR') AND l_extendedprice > 90000",
    "l_shipmode LIKE 'T%' OR l_quantity IS NULL",
]
NAMES = ["NONE_MATCH", "MAYBE_MATCH", "ALL_MATCH"]
MODES = ["AIR", "FOB", "MAIL", "RAIL", "REG AIR", "SHIP", "TRUCK"]


def generate_rows(containers: int = 16, rows: int = 2_000, seed: int = 0) -> list[pa.Table]:
    """Rows of each container: dates advance container by container; other columns vary."""
    rng = np.random.default_rng(seed)
    start = dt.date(1992, 1, 1)
    out = []
    for i in range(containers):
        days = np.sort(rng.integers(i * 160, i * 160 + 200, rows))
        discount = rng.integers(0, 11, rows) if i % 4 else rng.integers(8, 11, rows)
        qty = rng.integers(1, 51, rows).astype(object)
        qty[rng.random(rows) < (0.01 if i % 5 == 0 else 0.0)] = None
        price = rng.uniform(900, 50_000 if i % 3 else 105_000, rows)
        if i % 4 == 1:  # a few NaN prices: NaN > 90000 is TRUE in Spark, so these stay
            price[rng.random(rows) < 0.001] = np.nan
        # Some containers ship by a few modes only, so the string filters prune.
        modes = MODES if i % 2 else ["FOB", "MAIL"]
        out.append(pa.table({
            "l_shipdate": pa.array([start + dt.timedelta(days=int(d)) for d in days]),
            "l_discount": pa.array([decimal.Decimal(int(d)).scaleb(-2) for d in discount],
                                   pa.decimal128(12, 2)),
            "l_quantity": pa.array(list(qty), pa.int64()),
            "l_extendedprice": pa.array(price),
            "l_shipmode": pa.array(rng.choice(modes, rows)),
        }, schema=SCHEMA))
    return out


def statistics_of(containers: list[pa.Table]) -> pa.Table:
    """Canonical statistics, as a Parquet writer computes them (float bounds exclude NaN)."""
    columns: dict[str, list] = {"row_count": [t.num_rows for t in containers]}
    for field in SCHEMA:
        structs = []
        for t in containers:
            values = t.column(field.name)
            finite = pc.drop_null(values)
            if pa.types.is_floating(field.type):
                finite = finite.filter(pc.invert(pc.is_nan(finite)))
            mm = pc.min_max(finite)
            entry = {"min": mm["min"].as_py(), "max": mm["max"].as_py(),
                     "null_count": values.null_count}
            if pa.types.is_floating(field.type):
                entry["nan_count"] = int(pc.sum(pc.is_nan(pc.drop_null(values))).as_py() or 0)
            structs.append(entry)
        fields = [pa.field("min", field.type), pa.field("max", field.type),
                  pa.field("null_count", pa.int64())]
        if pa.types.is_floating(field.type):
            fields.append(pa.field("nan_count", pa.int64()))
        columns[field.name] = pa.array(structs, pa.struct(fields))
    columns["container"] = [f"part-{i:02d}.parquet" for i in range(len(containers))]
    return pa.table(columns)


def rows_matching(table: pa.Table, predicate: str) -> int:
    """Count rows where the predicate is TRUE, with pyarrow's own evaluation (the truth)."""
    expressions = {
        0: (pc.field("l_shipdate") >= pa.scalar(dt.date(1994, 1, 1)))
        & (pc.field("l_shipdate") < pa.scalar(dt.date(1995, 1, 1)))
        & (pc.field("l_discount") >= pa.scalar(decimal.Decimal("0.05"), pa.decimal128(12, 2)))
        & (pc.field("l_discount") <= pa.scalar(decimal.Decimal("0.07"), pa.decimal128(12, 2)))
        & (pc.field("l_quantity") < 24),
        1: pc.field("l_shipmode").isin(["AIR", "REG AIR"]) & (pc.field("l_extendedprice") > 90000),
        2: pc.starts_with(pc.field("l_shipmode"), "T") | pc.field("l_quantity").is_null(),
    }
    return table.filter(expressions[FILTERS.index(predicate)]).num_rows


def main() -> int:
    containers = generate_rows()
    stats_table = statistics_of(containers)
    stats = pk.Statistics.from_arrow(stats_table)
    print(f"prunekit demo: {len(stats)} containers of generated lineitem rows\n")
    failures = 0
    for text in FILTERS:
        pred = pk.PruningPredicate(text, SCHEMA)
        outcome = pred.classify(stats)
        print(f"WHERE {text}")
        for name, o, t in zip(stats_table.column("container").to_pylist(), outcome,
                              containers, strict=True):
            print(f"  {name}  {NAMES[o]:<11}  rows matching: {rows_matching(t, text)}")
        counts = np.bincount(outcome, minlength=3)
        read = sum(rows_matching(t, text) for t, o in zip(containers, outcome, strict=True) if o)
        truth = sum(rows_matching(t, text) for t in containers)
        print(f"  skip {counts[0]}, read and filter {counts[1]}, read without filter "
              f"{counts[2]}; matching rows from kept containers {read}, from all {truth}\n")
        failures += read != truth
    print(pk.PruningPredicate(FILTERS[0], SCHEMA).explain())
    if failures:
        print(f"\nUNSOUND: {failures} filters lost rows")
        return 1
    print("\nevery matching row is in a kept container")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
