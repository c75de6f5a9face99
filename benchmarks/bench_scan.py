"""A fresh process's first answer from Parquet footers: ``prunekit scan`` against DuckDB's
``parquet_metadata`` asked the same question, and ``python -c "import prunekit"``.

Each side is a new ``python`` process, as a shell or a pipeline step runs it, timed from
start to exit: prunekit's command line, and DuckDB's Python package running the query a DuckDB
user writes for it (the row groups whose footer statistics may satisfy both conjuncts). The
two alternate, one process each per round, and the ratio is the median of the rounds' ratios.
Data: one file of 100 row groups, and ``bench_parquet``'s lake of 1,000 files (8,000 row
groups, 7 columns).

Targets, prunekit's time over DuckDB's: the one-file scan within 2x with warm caches, the
1,000-file scan below 1. "Cold" gives prunekit an empty kernel cache; Numba's cache of
prunekit's own helpers (the footer decoder, beside the installed package) stays warm, as it is
after the first run on any machine.
"""

import os
import shutil
import statistics as stat
import subprocess
import sys
import tempfile
import time

import numpy as np
import pyarrow as pa
import pyarrow.parquet as pq

from .bench_parquet import write_dataset
from .workload import data_dir

WHERE = "id > 900000 AND price < 20000.0"  # both columns of both datasets
DUCKDB = """
import duckdb
rows = duckdb.sql('''
    SELECT file_name, row_group_id FROM parquet_metadata({glob!r})
    GROUP BY file_name, row_group_id
    HAVING bool_or(path_in_schema = 'id' AND TRY_CAST(stats_max_value AS BIGINT) > 900000)
       AND bool_or(path_in_schema = 'price'
                   AND TRY_CAST(stats_min_value AS DOUBLE) < 20000.0)''').fetchall()
print(len(rows))
"""


def one_file() -> str:
    """One Parquet file of 100 row groups (written once)."""
    path = os.path.join(data_dir(), "scan-one-file", "one.parquet")
    if not os.path.exists(path):
        os.makedirs(os.path.dirname(path), exist_ok=True)
        n = 100 * 10_000
        x = np.arange(n)  # sorted: the id conjunct skips most row groups
        price = np.random.default_rng(0).random(n) * 1e5  # every row group keeps its price
        table = pa.table({"id": x, "price": price, "qty": (x % 50).astype(np.int32)})
        pq.write_table(table, path + ".tmp", row_group_size=10_000)
        os.replace(path + ".tmp", path)
    return path


def lake() -> str:
    """``bench_parquet``'s 1,000 files (written once)."""
    root = os.path.join(data_dir(), "scan-lake-1000")
    if not os.path.exists(os.path.join(root, ".done")):
        shutil.rmtree(root, ignore_errors=True)
        write_dataset(root)
        open(os.path.join(root, ".done"), "w").close()
    return root


def _seconds(argv: list[str], env: dict | None = None) -> float:
    start = time.perf_counter()
    subprocess.run(argv, env=env, check=True, stdout=subprocess.DEVNULL,
                   stderr=subprocess.DEVNULL)
    return time.perf_counter() - start


def prunekit_scan(path: str, cache: str) -> float:
    """Seconds of ``prunekit scan PATH --where WHERE --format json`` in a new process."""
    env = dict(os.environ, PRUNEKIT_CACHE_DIR=cache)
    return _seconds([sys.executable, "-m", "prunekit", "scan", path, "--where", WHERE,
                     "--format", "json"], env)


def duckdb_scan(path: str) -> float:
    """Seconds of DuckDB's ``parquet_metadata`` query over the same files, in a new process."""
    glob = path if path.endswith(".parquet") else os.path.join(path, "**", "*.parquet")
    return _seconds([sys.executable, "-c", DUCKDB.format(glob=glob)])


class FreshScan:
    """``prunekit scan`` against DuckDB, each in a fresh process, alternating."""

    params = (["one file", "1,000 files"], ["warm", "cold"])
    param_names = ["data", "kernel cache"]
    timeout = 600
    rounds = 5

    def setup(self, data, cache):
        self.measured = None  # the rounds, measured once for both track methods
        self.path = one_file() if data == "one file" else lake()
        self.warm = tempfile.mkdtemp(prefix="prunekit-warm-")
        prunekit_scan(self.path, self.warm)  # fills the cache, and the OS's page cache
        duckdb_scan(self.path)

    def teardown(self, data, cache):
        shutil.rmtree(self.warm, ignore_errors=True)

    def _rounds(self, cache) -> tuple[list, list]:
        if self.measured is None:
            self.measured = self._measure(cache)
        return self.measured

    def _measure(self, cache) -> tuple[list, list]:
        ours, theirs = [], []
        for i in range(self.rounds):
            directory = self.warm if cache == "warm" else tempfile.mkdtemp(prefix="pk-cold-")
            try:
                if i % 2:  # who goes first alternates too
                    duck = duckdb_scan(self.path)
                    mine = prunekit_scan(self.path, directory)
                else:
                    mine = prunekit_scan(self.path, directory)
                    duck = duckdb_scan(self.path)
            finally:
                if cache != "warm":
                    shutil.rmtree(directory, ignore_errors=True)
            ours.append(mine)
            theirs.append(duck)
        print(f"prunekit {[round(t, 2) for t in ours]} s, DuckDB "
              f"{[round(t, 2) for t in theirs]} s", file=sys.stderr)
        return ours, theirs

    def track_prunekit_over_duckdb(self, data, cache):
        ours, theirs = self._rounds(cache)
        return stat.median(a / b for a, b in zip(ours, theirs, strict=True))

    track_prunekit_over_duckdb.unit = "ratio"

    def track_prunekit_s(self, data, cache):
        return stat.median(self._rounds(cache)[0])

    track_prunekit_s.unit = "s"


class Import:
    """``python -c "import prunekit"``, against ``import pyarrow`` (which it needs), alternating;
    and which heavy libraries the import leaves unloaded."""

    rounds = 7

    def track_import_prunekit_s(self):
        return stat.median(_seconds([sys.executable, "-c", "import prunekit"])
                           for _ in range(self.rounds))

    track_import_prunekit_s.unit = "s"

    def track_import_over_pyarrow(self):
        ratios = []
        for _ in range(self.rounds):
            ours = _seconds([sys.executable, "-c", "import prunekit"])
            floor = _seconds([sys.executable, "-c", "import numpy, pyarrow"])
            ratios.append(ours / floor)
        return stat.median(ratios)

    track_import_over_pyarrow.unit = "ratio"

    def track_heavy_modules_loaded(self):
        """How many of numba, sqlglot and pandas ``import prunekit`` loads (target 0)."""
        out = subprocess.run(
            [sys.executable, "-c", "import sys, prunekit; print(sum(m in sys.modules for m in "
             "('numba', 'sqlglot', 'pandas')))"], capture_output=True, text=True, check=True)
        return int(out.stdout)

    track_heavy_modules_loaded.unit = "modules"
