"""TPC-DS as a lake Spark reads: each fact table sorted by its date key and cut into many files
of two row groups, each dimension in one file, one folder per table; ``catalog_sales`` is a
Delta table of as many files. Written once under the benchmark data directory, beside the
one-file tables it is cut from (``data.tables``).

This is the shape whole-query pruning pays on: a filter on ``date_dim`` narrows a date-sorted
fact table to a run of files, which Spark's own pruning (partition columns only) never does.

>>> files_of(2_880_404, 100)[:2]
[(0, 28805), (28805, 28805)]
"""

from __future__ import annotations

import os
import shutil

from benchmarks import workload

from . import data

FACT_FILES = 100
GROUPS_PER_FILE = 2
DELTA_TABLES = ("catalog_sales",)


def files_of(rows: int, files: int) -> list[tuple[int, int]]:
    """(offset, length) of each file's rows: ``files`` runs of equal length (the last shorter),
    none empty."""
    per = max(-(-rows // files), 1)
    return [(at, min(per, rows - at)) for at in range(0, rows, per)]


def lake(scale: float, files: int = FACT_FILES) -> dict[str, str]:
    """Table name -> folder (a Parquet folder, or a Delta table's for ``DELTA_TABLES``) of the
    TPC-DS lake at ``scale``, generated on first use (processes asking at once take turns on a
    lock file; a half-written lake is never seen)."""
    path = data.written_once(os.path.join(workload.data_dir(), f"tpcds-lake-sf{scale:g}-{files}"),
                             lambda p: _write(scale, files, p))
    return {name: os.path.join(path, name) for name in sorted(os.listdir(path))}


def _write(scale: float, files: int, path: str) -> None:
    import pyarrow.parquet as pq

    tmp = f"{path}.{os.getpid()}.tmp"
    shutil.rmtree(tmp, ignore_errors=True)
    try:
        for name, file in data.tables("tpcds", scale).items():
            table = pq.read_table(file)  # fact tables come sorted by their date key
            folder = os.path.join(tmp, name)
            if name not in data.SORT_KEYS["tpcds"]:
                os.makedirs(folder)
                pq.write_table(table, os.path.join(folder, "part-00000.parquet"),
                               row_group_size=data.row_group_size(table.num_rows))
                continue
            parts = [table.slice(at, n) for at, n in files_of(table.num_rows, files)]
            group = max(-(-max(p.num_rows for p in parts) // GROUPS_PER_FILE), 1)
            if name in DELTA_TABLES:
                _write_delta(folder, parts, group)
                continue
            os.makedirs(folder)
            for k, part in enumerate(parts):
                pq.write_table(part, os.path.join(folder, f"part-{k:05d}.parquet"),
                               row_group_size=group)
        os.replace(tmp, path)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


def _write_delta(folder: str, parts: list, group: int) -> None:
    """One commit per file, so the table's files are the date runs the Parquet ones are."""
    from deltalake import WriterProperties, write_deltalake

    properties = WriterProperties(max_row_group_size=group)
    for part in parts:
        write_deltalake(folder, part, mode="append", writer_properties=properties)
