"""The deterministic statistics workload the benchmarks share (one generator, fixed seed).

Columns (per container): ``id`` int64 clustered (container i spans about i*1000 .. i*1000+990),
``price`` float64 (min in [0, 100), max = min + [0, 50), 1% unknown bounds), ``qty`` int32
(small ranges, random null counts, 0.5% all-null containers), ``ts`` timestamp[us] increasing,
``cat`` string (bounds drawn from a sorted 1,000-word vocabulary), ``row_count`` 100,000.

Large workloads (``n >= DISK_CACHE_MIN``) are written once to an Arrow IPC file and memory-mapped
afterwards, so every asv benchmark process gets 10M containers in milliseconds: the directory is
``PRUNEKIT_BENCH_DIR``, else ``<tmp>/prunekit-bench-<uid>``; the file name holds a hash of the
generator's source, so a changed generator never reads a stale file.
"""

from __future__ import annotations

import functools
import hashlib
import inspect
import os
import tempfile
import time

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

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

# Q6: a 64-value IN list on the clustered ``id`` (values spread over [0, 1e9): a pseudo-random
# arithmetic sequence, the same with every NumPy).
IN_VALUES = sorted((k * 387_420_489 + 8_895_804) % 10**9 for k in range(64))
QUERIES["Q6"] = f"id IN ({', '.join(map(str, IN_VALUES))})"

# Q7: a 20-leaf AND/OR tree over all five columns (BETWEEN, IN and IS NULL count as one leaf).
QUERIES["Q7"] = " ".join("""
    ((id BETWEEN 100000000 AND 200000000 OR id > 900000000)
      AND (price < 20 OR price > 80 OR price IS NULL)
      AND (qty = 7 OR qty >= 55 OR qty IS NULL))
    OR (cat >= 'm' AND cat < 'p' AND ts < TIMESTAMP_NTZ '2020-09-13 18:00:00'
        AND (qty <> 3 OR price <= 5))
    OR (ts >= TIMESTAMP_NTZ '2020-09-13 20:00:00' AND NOT (id < 500000000 OR cat = 'kal')
        AND price BETWEEN 40 AND 41 AND qty IN (1, 2))
    OR (id = 123456789 AND price > 99.5)
""".split())
LEAVES = {"Q6": 1, "Q7": 20}

DISK_CACHE_MIN = 1_000_000


def _struct(lo, hi, nulls, mask=None) -> pa.StructArray:
    return pa.StructArray.from_arrays(
        [pa.array(lo, mask=mask), pa.array(hi, mask=mask), pa.array(nulls)],
        ["min", "max", "null_count"])


@functools.lru_cache(maxsize=2)
def statistics(n: int, seed: int = 0) -> pk.Statistics:
    """Statistics of ``n`` containers, the same for the same ``(n, seed)``."""
    table = read_table(n, seed) if n >= DISK_CACHE_MIN else generate(n, seed)
    return pk.Statistics.from_arrow(table, no_nan=["price"])


def generate(n: int, seed: int = 0) -> pa.Table:
    """The statistics table (vectorised: about 2 s per million containers)."""
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
    words = pa.array(sorted(f"{a}{b}{c}" for a in "abcdefghijklmnopqrst"
                            for b in "aeiou" for c in "lmnrstxyz")[:1000])
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
        "cat": _struct(pc.take(words, w[:, 0]), pc.take(words, w[:, 1]),
                       np.zeros(n, np.int64)),
    })
    return table


def data_dir() -> str:
    path = os.environ.get("PRUNEKIT_BENCH_DIR") or os.path.join(
        tempfile.gettempdir(), f"prunekit-bench-{os.getuid()}")
    os.makedirs(path, exist_ok=True)
    return path


def interleaved(calls: dict, rounds: int) -> dict[str, list[float]]:
    """Seconds per call of each of ``calls`` (name -> function of no arguments), ``rounds``
    rounds of one call each in turn: the machine's drift hits every side alike.

    >>> sorted(interleaved({"a": lambda: None, "b": lambda: None}, 2).items())[0][0]
    'a'
    """
    runs: dict[str, list[float]] = {name: [] for name in calls}
    for _ in range(rounds):
        for name, call in calls.items():
            start = time.perf_counter()
            call()
            runs[name].append(time.perf_counter() - start)
    return runs


_VERSION = hashlib.sha256(inspect.getsource(generate).encode()).hexdigest()[:12]


def ipc_path(n: int, seed: int = 0) -> str:
    """An Arrow IPC file holding ``generate(n, seed)``, written on first use."""
    path = os.path.join(data_dir(), f"statistics-{n}-{seed}-{_VERSION}.arrow")
    if not os.path.exists(path):
        table = generate(n, seed)
        tmp = f"{path}.{os.getpid()}.tmp"
        with pa.OSFile(tmp, "wb") as sink, pa.ipc.new_file(sink, table.schema) as writer:
            writer.write_table(table, max_chunksize=n)  # one batch: one kernel call
        os.replace(tmp, path)  # atomic: concurrent benchmark processes see a whole file
    return path


def read_table(n: int, seed: int = 0) -> pa.Table:
    """``generate(n, seed)`` memory-mapped from its IPC file (no copy)."""
    with pa.memory_map(ipc_path(n, seed)) as source:
        return pa.ipc.open_file(source).read_all()


def predicate(query: str) -> pk.PruningPredicate:
    return pk.PruningPredicate(QUERIES[query], SCHEMA)


def sample(stats: pk.Statistics, rows: int = 65_536) -> pk.Statistics:
    """The first ``rows`` containers: same layout (bitmaps present), to compile kernels on."""
    return pk.Statistics.from_arrow(stats.table.slice(0, rows), no_nan=sorted(stats.no_nan))
