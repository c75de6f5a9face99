"""Random statistics in every layout a kernel reads (dense, masked, all-null, sliced, absent
fields, bit-packed booleans, strings, uint64, decimals, timestamps of two units) and predicates
that together use every op of the program vocabulary: what the kernel tests compare the
evaluators on."""

from __future__ import annotations

import decimal

import numpy as np
import pyarrow as pa

SCHEMA = pa.schema([("x", pa.int64()), ("f", pa.float64()), ("s", pa.string()),
                    ("b", pa.bool_()), ("u", pa.uint64()), ("t", pa.timestamp("ms")),
                    ("d", pa.decimal128(10, 2)), ("e", pa.decimal128(12, 4)),
                    ("ts", pa.timestamp("s"))])

# Together these exercise every op of the program vocabulary (checked below).
PREDICATES = [
    "x > 5 AND f <= 2.5", "x IN (1, 3, 5, 7) OR s IN ('a', 'c')", "x NOT IN (2, 3, NULL)",
    "s LIKE 'ab%' AND NOT b", "isnan(f) OR f = CAST('NaN' AS DOUBLE)", "x < f",
    "CAST(x AS DOUBLE) >= 7.5", "CAST(t AS DATE) = DATE '1970-01-01'", "u > 5 AND x <=> 3",
    "b IS NOT TRUE OR x IS NULL", "-f < 2", "x = 4 AND (s > 'b' OR s IS NULL)", "d < e",
    "x < u", "t > ts", "CAST(x AS FLOAT) < 16777217", "f * (1 - f) > 0.2",
]


def decimal_stats(rng: np.random.Generator, n: int, t: pa.DataType) -> pa.StructArray:
    lo = rng.integers(-500, 500, n)
    hi = lo + rng.integers(0, 300, n)
    scale = 10 ** (4 - t.scale)  # both columns span the same real range

    def dec(v):
        return pa.array([decimal.Decimal(int(x) * scale).scaleb(-4) for x in v], t)

    return pa.StructArray.from_arrays([dec(lo), dec(hi), pa.array(np.zeros(n, np.int64))],
                                      ["min", "max", "null_count"])


def random_statistics(rng: np.random.Generator, n: int) -> pa.Table:
    """Statistics with every layout: dense, masked, all-null, sliced, absent fields."""

    def masked(values, p):
        return pa.array(values, mask=rng.random(len(values)) < p)

    lo = rng.integers(-5, 10, n)
    flo = rng.normal(size=n)
    words = np.array(["", "a", "ab", "abc", "b", "c", "é"], dtype=object)
    si = np.sort(rng.integers(0, len(words), (n, 2)), axis=1)
    bl = np.sort(rng.integers(0, 2, (n, 2)), axis=1).astype(bool)
    cols = {
        "row_count": masked(rng.integers(0, 5, n), 0.1),
        "x": pa.StructArray.from_arrays(
            [masked(lo, 0.1), masked(lo + rng.integers(0, 5, n), 0.1),
             masked(rng.integers(-1, 5, n), 0.2),
             masked(rng.random(n) < 0.8, 0.1), pa.array(rng.random(n) < 0.8)],
            ["min", "max", "null_count", "min_exact", "max_exact"]),
        "f": pa.StructArray.from_arrays(
            [masked(flo, 0.1), masked(flo + rng.random(n), 0.1),
             masked(rng.integers(0, 3, n), 0.2), masked(rng.integers(0, 2, n), 0.3)],
            ["min", "max", "null_count", "nan_count"]),
        "s": pa.StructArray.from_arrays(
            [masked(list(words[si[:, 0]]), 0.1), masked(list(words[si[:, 1]]), 0.1),
             pa.array(rng.integers(0, 2, n))], ["min", "max", "null_count"],
            mask=pa.array(rng.random(n) < 0.1)),
        "b": pa.StructArray.from_arrays(
            [masked(bl[:, 0], 0.1), masked(bl[:, 1], 0.1), pa.array(rng.integers(0, 2, n))],
            ["min", "max", "null_count"]),
        "u": pa.StructArray.from_arrays(
            [pa.array(rng.integers(0, 10, n).astype(np.uint64)),
             pa.array(np.where(rng.random(n) < 0.3, np.uint64(2**63 + 5),
                               rng.integers(10, 20, n).astype(np.uint64))),
             pa.nulls(n, pa.int64())], ["min", "max", "null_count"]),
        "ts": pa.StructArray.from_arrays(
            [pa.array(rng.integers(-10**17, 10**5, n), pa.timestamp("s")),
             pa.array(rng.integers(10**5, 2 * 10**17, n), pa.timestamp("s")),
             pa.array(np.zeros(n, np.int64))], ["min", "max", "null_count"]),
        "d": decimal_stats(rng, n, pa.decimal128(10, 2)),
        "e": decimal_stats(rng, n, pa.decimal128(12, 4)),
        "t": pa.StructArray.from_arrays(
            [pa.array(rng.integers(0, 10**8, n), pa.timestamp("ms")),
             pa.array(rng.integers(10**8, 2 * 10**8, n), pa.timestamp("ms")),
             pa.array(np.zeros(n, np.int64))], ["min", "max", "null_count"]),
    }
    return pa.table(cols)
