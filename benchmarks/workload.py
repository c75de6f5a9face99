"""The deterministic statistics workload the benchmarks share (one generator, fixed seed).

Columns (per container): ``id`` int64 clustered (container i spans about i*1000 .. i*1000+990),
``price`` float64 (min in [0, 100), max = min + [0, 50), 1% unknown bounds), ``qty`` int32
(small ranges, random null counts, 0.5% all-null containers), ``ts`` timestamp[us] increasing,
``cat`` string (bounds drawn from a sorted 1,000-word vocabulary), ``row_count`` 100,000.
"""

from __future__ import annotations

import functools

import numpy as np
import pyarrow as pa

import prunekit as pk

ROWS = 100_000
SCHEMA = pa.schema([("id", pa.int64()), ("price", pa.float64()), ("qty", pa.int32()),
                    ("ts", pa.timestamp("us")), ("cat", pa.string())])
TS0 = 1_600_000_000_000_000  # 2020-09-13, microseconds

QUERIES = {
    "Q1": "id = 4242424",
    "Q2": "id BETWEEN 1000000 AND 5000000 AND price > 120.5",
    "Q3": "(qty IN (3, 17, 42) OR qty IS NULL) AND price < 10",
    "Q4": "cat >= 'k' AND cat < 'l' AND ts > TIMESTAMP_NTZ '2020-09-13 12:00:00'",
    "Q5": "NOT (price >= 10 AND price <= 90) AND qty <> 5",
}


def _struct(lo, hi, nulls, mask=None) -> pa.StructArray:
    return pa.StructArray.from_arrays(
        [pa.array(lo, mask=mask), pa.array(hi, mask=mask), pa.array(nulls)],
        ["min", "max", "null_count"])


@functools.lru_cache(maxsize=2)
def statistics(n: int, seed: int = 0) -> pk.Statistics:
    """Statistics of ``n`` containers, the same for the same ``(n, seed)``."""
    rng = np.random.default_rng(seed)
    i = np.arange(n, dtype=np.int64)
    id_lo = i * 1000 + rng.integers(0, 10, n)
    price_lo = rng.uniform(0, 100, n)
    price_mask = rng.random(n) < 0.01
    qty_lo = rng.integers(0, 60, n).astype(np.int32)
    qty_nulls = rng.integers(0, 50, n)
    all_null = rng.random(n) < 0.005
    qty_nulls[all_null] = ROWS
    ts_lo = TS0 + i * 40_000
    words = np.array(sorted(f"{a}{b}{c}" for a in "abcdefghijklmnopqrst"
                            for b in "aeiou" for c in "lmnrstxyz"))[:1000]
    w = np.sort(rng.integers(0, len(words), (n, 2)), axis=1)
    table = pa.table({
        "row_count": pa.array(np.full(n, ROWS, np.int64)),
        "id": _struct(id_lo, id_lo + 980, np.zeros(n, np.int64)),
        "price": _struct(price_lo, price_lo + rng.uniform(0, 50, n), np.zeros(n, np.int64),
                         price_mask),
        "qty": _struct(qty_lo, qty_lo + rng.integers(0, 5, n).astype(np.int32), qty_nulls,
                       all_null),
        "ts": _struct(pa.array(ts_lo, pa.timestamp("us")),
                      pa.array(ts_lo + 39_000, pa.timestamp("us")), np.zeros(n, np.int64)),
        "cat": _struct(words[w[:, 0]], words[w[:, 1]], np.zeros(n, np.int64)),
    })
    return pk.Statistics.from_arrow(table, no_nan=["price"])


def predicate(query: str) -> pk.PruningPredicate:
    return pk.PruningPredicate(QUERIES[query], SCHEMA)
