"""Row-group statistics of a 1,000-file Parquet dataset: ``prunekit.parquet`` (footers walked
by one Numba pass, bounds decoded by vector operations) against a plain pyarrow loop over
``ParquetFile.metadata`` (what one writes by hand: one Python object per statistic, one thread,
no Arrow output). ``ManyFiles``: the same at 10,000 files, written once by
``setup_cache`` (a few minutes)."""

import datetime
import decimal
import os
import time

import numpy as np
import pyarrow as pa
import pyarrow.parquet as pq

import prunekit.parquet as ppq

FILES, GROUPS, ROWS = 1_000, 8, 16  # 8,000 row groups of 16 rows, 7 columns


def write_dataset(root: str, files: int = FILES, seed: int = 0) -> str:
    """Write the dataset once (deterministic: fixed seed, fixed file names)."""
    rng = np.random.default_rng(seed)
    n = GROUPS * ROWS
    t0 = datetime.datetime(2024, 1, 1)
    for i in range(files):
        x = rng.integers(0, 10**6, n)
        table = pa.table({
            "id": pa.array(x, pa.int64()),
            "qty": pa.array(x % 50, pa.int32()),
            "price": pa.array(x / 7.0, pa.float64()),
            "flag": pa.array(rng.choice(["A", "N", "R"], n), pa.string()),
            "comment": pa.array([f"c{v:07d}" for v in x], pa.string()),
            "ship": pa.array([t0 + datetime.timedelta(seconds=int(v)) for v in x],
                             pa.timestamp("us")),
            "amount": pa.array([decimal.Decimal(int(v)).scaleb(-2) for v in x],
                               pa.decimal128(12, 2)),
        })
        part = os.path.join(root, f"part={i % 10}")
        os.makedirs(part, exist_ok=True)
        pq.write_table(table, os.path.join(part, f"{i:05d}.parquet"), row_group_size=ROWS)
    return root


def pyarrow_loop(files: list[str]) -> list:
    """What one writes by hand: every statistic as a Python object."""
    out = []
    for f in files:
        md = pq.ParquetFile(f).metadata
        for r in range(md.num_row_groups):
            rg = md.row_group(r)
            row = [rg.num_rows]
            for c in range(rg.num_columns):
                st = rg.column(c).statistics
                row.append((st.min, st.max, st.null_count) if st is not None else None)
            out.append(row)
    return out


class RowGroupStatistics:
    timeout = 600

    def setup_cache(self):
        root = os.path.abspath("parquet_dataset")
        if not os.path.exists(os.path.join(root, "part=9", f"{FILES - 1:05d}.parquet")):
            write_dataset(root)
        return root

    def setup(self, root):
        self.files = ppq.parquet_files(root)
        ppq.row_group_statistics(self.files[:1], progress=False)  # Numba loaded and compiled

    def time_prunekit(self, root):
        ppq.row_group_statistics(root, progress=False)

    def time_prunekit_one_thread(self, root):
        ppq.row_group_statistics(root, threads=1, progress=False)

    def time_pyarrow_loop(self, root):
        pyarrow_loop(self.files)

    def peakmem_prunekit(self, root):
        ppq.row_group_statistics(root, progress=False)

    def track_row_groups_per_second(self, root):
        start = time.perf_counter()
        stats = ppq.row_group_statistics(root, progress=False)
        return stats.num_rows / (time.perf_counter() - start)

    track_row_groups_per_second.unit = "row groups/s"

    def track_pyarrow_loop_row_groups_per_second(self, root):
        start = time.perf_counter()
        rows = pyarrow_loop(self.files)
        return len(rows) / (time.perf_counter() - start)

    track_pyarrow_loop_row_groups_per_second.unit = "row groups/s"


class ManyFiles:
    """10,000 files, 80,000 row groups: the scale where a Python object per statistic shows."""
    timeout = 1800
    files = 10_000

    def setup_cache(self):
        root = os.path.abspath("parquet_dataset_10k")
        if not os.path.exists(os.path.join(root, "part=9", f"{self.files - 1:05d}.parquet")):
            write_dataset(root, files=self.files)
        return root

    def setup(self, root):
        self.paths = ppq.parquet_files(root)
        ppq.row_group_statistics(self.paths[:1], progress=False)  # Numba loaded and compiled

    def track_row_groups_per_second(self, root):
        start = time.perf_counter()
        stats = ppq.row_group_statistics(root, progress=False)
        return stats.num_rows / (time.perf_counter() - start)

    track_row_groups_per_second.unit = "row groups/s"

    def track_pyarrow_loop_row_groups_per_second(self, root):
        start = time.perf_counter()
        rows = pyarrow_loop(self.paths)
        return len(rows) / (time.perf_counter() - start)

    track_pyarrow_loop_row_groups_per_second.unit = "row groups/s"


def write_wide(root: str, files: int = 200, columns: int = 500) -> str:
    """``files`` files of one row group of 64 rows and ``columns`` BIGINT columns (c0 sorted
    across files), written once."""
    os.makedirs(root, exist_ok=True)
    for i in range(files):
        base = np.arange(64, dtype=np.int64) + 64 * i
        pq.write_table(pa.table({f"c{j}": base * (j + 1) for j in range(columns)}),
                       os.path.join(root, f"{i:05d}.parquet"))
    return root


class WideTable:
    """200 files of 500 columns: statistics of every column, against those of the one column a
    predicate reads (``columns=``) and a one-column dataset of the same files and rows."""
    timeout = 900
    files, columns = 200, 500

    def setup_cache(self):
        wide = os.path.abspath(f"parquet_wide_{self.files}x{self.columns}")
        narrow = os.path.abspath(f"parquet_narrow_{self.files}")
        last = f"{self.files - 1:05d}.parquet"
        if not os.path.exists(os.path.join(wide, last)):
            write_wide(wide, self.files, self.columns)
        if not os.path.exists(os.path.join(narrow, last)):
            write_wide(narrow, self.files, columns=1)
        return wide, narrow

    def setup(self, roots):
        self.wide, self.narrow = (ppq.parquet_files(r) for r in roots)
        ppq.row_group_statistics(self.wide[:1], progress=False)  # Numba loaded and compiled

    def time_every_column(self, roots):
        ppq.row_group_statistics(self.wide, progress=False)

    def time_one_column(self, roots):
        ppq.row_group_statistics(self.wide, progress=False, columns=["c0"])

    def time_one_column_dataset(self, roots):
        ppq.row_group_statistics(self.narrow, progress=False)
