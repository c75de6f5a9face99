"""TPC-DS and TPC-H tables as Parquet, one file per table, written once under the benchmark
data directory (``PRUNEKIT_BENCH_DIR``, default ``<tmp>/prunekit-bench-<uid>``).

The layout is what the pruning counts are measured on: each fact table sorted by its date key
(so a date range is a run of row groups, as a pipeline that appends by day leaves it), every
table cut into at most ``MAX_ROW_GROUPS`` row groups of at least ``MIN_ROWS_PER_GROUP`` rows
(fewer groups for small tables), column statistics on. ``tpcgen-cli`` generates the rows;
its string views are written as plain strings.

>>> row_group_size(6_001_215), row_group_size(73_049), row_group_size(12)
(60013, 1000, 1000)
"""

from __future__ import annotations

import fcntl
import os
import shutil
import subprocess
import sys
import sysconfig
import tempfile

from benchmarks import workload

MAX_ROW_GROUPS = 100
MIN_ROWS_PER_GROUP = 1_000

# The fact tables' sort keys: their date surrogate keys (TPC-DS) or dates (TPC-H).
SORT_KEYS = {
    "tpcds": {
        "store_sales": "ss_sold_date_sk", "store_returns": "sr_returned_date_sk",
        "catalog_sales": "cs_sold_date_sk", "catalog_returns": "cr_returned_date_sk",
        "web_sales": "ws_sold_date_sk", "web_returns": "wr_returned_date_sk",
        "inventory": "inv_date_sk",
    },
    "tpch": {"lineitem": "l_shipdate", "orders": "o_orderdate"},
}
SKIPPED_TABLES = {"dbgen_version"}  # tpcgen's run metadata, not a benchmark table


def row_group_size(rows: int) -> int:
    return max(-(-rows // MAX_ROW_GROUPS), MIN_ROWS_PER_GROUP)


def tpcgen() -> str:
    """The ``tpcgen-cli`` executable: beside this Python, in an environment whose packages
    this one reads (a venv layered on another), or on PATH."""
    dirs = [os.path.dirname(sys.executable), sysconfig.get_path("scripts")]
    for entry in sys.path:  # .../lib/pythonX.Y/site-packages -> .../bin
        if entry.endswith("site-packages"):
            dirs.append(os.path.join(entry, "..", "..", "..", "bin"))
    for d in dirs:
        path = os.path.join(d, "tpcgen-cli")
        if os.access(path, os.X_OK):
            return os.path.normpath(path)
    found = shutil.which("tpcgen-cli")
    if found is None:
        raise FileNotFoundError("tpcgen-cli not found: pip install tpcgen-cli")
    return found


def tables(suite: str, scale: float) -> dict[str, str]:
    """Table name -> Parquet file of ``suite`` ("tpcds" or "tpch") at ``scale``, generated on
    first use (reused after; a half-written folder is never seen: it is renamed when done).
    Processes asking at once (test workers) take turns on a lock file beside it, so one
    generates the tables and the others wait for them instead of generating them too."""
    if suite not in SORT_KEYS:
        raise ValueError(f"suite must be one of {sorted(SORT_KEYS)}, got {suite!r}")
    path = written_once(os.path.join(workload.data_dir(), f"{suite}-sf{scale:g}"),
                        lambda p: _generate(suite, scale, p))
    return {name[:-len(".parquet")]: os.path.join(path, name)
            for name in sorted(os.listdir(path)) if name.endswith(".parquet")}


def written_once(path: str, write) -> str:
    """``path``, made by ``write(path)`` first if it does not exist. Processes asking at once
    take turns on a lock file beside it: one writes, the others wait and find it written."""
    if not os.path.exists(path):
        with open(f"{path}.lock", "w") as lock:
            fcntl.flock(lock, fcntl.LOCK_EX)  # released when the file is closed
            if not os.path.exists(path):
                write(path)
    return path


def _generate(suite: str, scale: float, path: str) -> None:
    import pyarrow.parquet as pq

    raw = tempfile.mkdtemp(dir=workload.data_dir())
    tmp = f"{path}.{os.getpid()}.tmp"
    try:
        subprocess.run([tpcgen(), suite, "parquet", "-s", f"{scale:g}", f"--output-dir={raw}",
                        "--quiet"], check=True, capture_output=True)
        os.makedirs(tmp)
        for name in sorted(os.listdir(raw)):
            table_name = name.split(".")[0]
            if not name.endswith(".parquet") or table_name in SKIPPED_TABLES:
                continue
            table = _plain(pq.read_table(os.path.join(raw, name)))
            key = SORT_KEYS[suite].get(table_name)
            if key is not None:
                table = table.sort_by(key)  # NULL keys last
            pq.write_table(table, os.path.join(tmp, f"{table_name}.parquet"),
                           row_group_size=row_group_size(table.num_rows),
                           write_statistics=True)
            del table
        try:
            os.replace(tmp, path)
        except OSError:
            if not os.path.isdir(path):
                raise  # else another process wrote the tables first: theirs are used
    finally:
        shutil.rmtree(raw, ignore_errors=True)
        shutil.rmtree(tmp, ignore_errors=True)


def _plain(table):
    """String views as strings (every reader here reads those), field metadata dropped."""
    import pyarrow as pa

    fields = [pa.field(f.name, pa.string() if pa.types.is_string_view(f.type) else f.type,
                       f.nullable) for f in table.schema]
    return table.cast(pa.schema(fields))
