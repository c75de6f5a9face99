"""Soundness: DuckDB's result of a query over only the row groups prunekit keeps equals its
result over every row group.

DuckDB views named as the tables read the original Parquet files: whole for the full result;
for the result over the kept row groups, each table with a skipped row group only through the
rows of its kept ones (their row numbers in the file, ``file_row_number``), so no file is
rewritten. The query runs in DuckDB's dialect (sqlglot transpiles the fixture's text).

Results are compared as multisets of rows: floats (and DECIMALs, which DuckDB's averages and
ratios turn into) compare within a relative 1e-6, since summing the same rows split into other
row groups may round differently. Ordering is left out on purpose: when ORDER BY fully
determines the order, equal multisets are equal ordered results; when it leaves ties, either
order is correct. The outermost LIMIT is removed before comparing (both runs): with ties at
the cut, two correct runs may return different rows; without it every row of the full result
must come back, a stronger check, and valid because prunekit never prunes through a LIMIT
(a predicate is never pushed below one).

>>> same_rows([(1, 0.1 + 0.2), (None, 2.0)], [(None, 2.0), (1, 0.3)])
True
>>> same_rows([(1,)], [(1,), (1,)])
False
"""

from __future__ import annotations

import decimal
import math
from collections.abc import Mapping

import numpy as np

from benchmarks.tpc import queries

REL_TOL = 1e-6


def same_rows(a: list[tuple], b: list[tuple], rel_tol: float = REL_TOL) -> bool:
    """Equal as multisets, numbers within ``rel_tol`` (NULL equals NULL, NaN equals NaN)."""
    if len(a) != len(b):
        return False
    for x, y in zip(sorted(a, key=_row_key), sorted(b, key=_row_key), strict=True):
        if len(x) != len(y) or not all(_close(u, v, rel_tol) for u, v in zip(x, y, strict=True)):
            return False
    return True


def _row_key(row: tuple) -> tuple:
    # NULLs first; numbers by 6 significant digits (close values sort together); other values
    # by themselves (a column has one type).
    out = []
    for v in row:
        if v is None:
            out.append((0, 0))
        elif isinstance(v, (float, decimal.Decimal)):
            f = float(v)
            out.append((1, -math.inf if math.isnan(f) else float(f"{f:.6g}")))
        else:
            out.append((1, v))
    return tuple(out)


def _close(u, v, rel_tol: float) -> bool:
    if isinstance(u, (float, decimal.Decimal)) and isinstance(v, (float, decimal.Decimal)):
        fu, fv = float(u), float(v)
        return (math.isnan(fu) and math.isnan(fv)) or math.isclose(fu, fv, rel_tol=rel_tol,
                                                                     abs_tol=1e-9)
    return u == v


class Checker:
    """DuckDB over the tables (``name -> Parquet file``), comparing each query's result over all
    row groups with its result over the kept ones. Two connections, each opened once: one whose
    views read every table whole, one whose views of the tables a check skipped row groups of
    read only the kept row groups during that check. Both keep the files' footers in memory
    (``parquet_metadata_cache``): every query reads them again, and they do not change."""

    def __init__(self, paths: Mapping[str, str]):
        import duckdb

        self.paths = dict(paths)
        self._duckdb = duckdb
        self._starts: dict[str, np.ndarray] = {}
        self._full = self._connect()
        self._kept = self._connect()

    def close(self) -> None:
        self._full.close()
        self._kept.close()

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()

    def _connect(self):
        con = self._duckdb.connect()
        con.execute("SET parquet_metadata_cache = true")
        for name in self.paths:
            con.execute(self.view(name))
        return con

    def row_starts(self, table: str) -> np.ndarray:
        """The first row of each row group of ``table`` in its file, then its row count."""
        if table not in self._starts:
            import pyarrow.parquet as pq

            meta = pq.ParquetFile(self.paths[table]).metadata
            sizes = [meta.row_group(i).num_rows for i in range(meta.num_row_groups)]
            self._starts[table] = np.concatenate([[0], np.cumsum(sizes, dtype=np.int64)])
        return self._starts[table]

    def view(self, table: str, outcome: np.ndarray | None = None) -> str:
        """The statement that makes the view ``table`` read the whole file, or only the row
        groups whose ``outcome`` is not 0."""
        path = self.paths[table]
        if outcome is None:
            return f"CREATE OR REPLACE VIEW {table} AS SELECT * FROM read_parquet('{path}')"
        starts = self.row_starts(table)
        if len(outcome) != len(starts) - 1:
            raise ValueError(f"{table}: {len(outcome)} outcomes for {len(starts) - 1} row groups")
        keep = np.flatnonzero(outcome != 0)
        # Runs of consecutive kept row groups, each one range of row numbers.
        breaks = np.flatnonzero(np.diff(keep) != 1) + 1
        ranges = [f"file_row_number BETWEEN {starts[run[0]]} AND {starts[run[-1] + 1] - 1}"
                  for run in np.split(keep, breaks) if len(run)]
        return (f"CREATE OR REPLACE VIEW {table} AS SELECT * EXCLUDE (file_row_number) "
                f"FROM read_parquet('{path}', file_row_number = true) "
                f"WHERE {' OR '.join(ranges) or 'false'}")

    def check(self, sql: str, outcomes: Mapping[str, np.ndarray]) -> str:
        """``"equal"``, ``"no skip"`` (prunekit kept every row group: nothing to check) or
        ``"DIFFERENT: ..."``. DuckDB's own errors propagate."""
        skipped = {t: o for t, o in outcomes.items() if (o == 0).any()}
        if not skipped:
            return "no skip"
        text = queries.without_outer_limit(sql)
        full = self._full.execute(text).fetchall()
        try:
            for table, outcome in skipped.items():
                self._kept.execute(self.view(table, outcome))
            kept = self._kept.execute(text).fetchall()
        finally:
            for table in skipped:
                self._kept.execute(self.view(table))
        if same_rows(full, kept):
            return "equal"
        return f"DIFFERENT: {len(full)} rows over all row groups, {len(kept)} over the kept"
