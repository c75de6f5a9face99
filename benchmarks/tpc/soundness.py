"""Soundness: DuckDB's result of a query over only the row groups prunekit keeps equals its
result over every row group.

Each table with a skipped row group is rewritten to a temporary Parquet file of its kept row
groups (pyarrow), and DuckDB views named as the tables point at those files or, for the
tables nothing was skipped of, at the originals. The query runs in DuckDB's dialect (sqlglot
transpiles the fixture's text).

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
import hashlib
import math
import os
import tempfile
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
    """DuckDB over the tables (``name -> Parquet file``), comparing each query's result over
    all row groups with its result over the kept ones. Kept-row-group files are written once
    per (table, kept set) into ``workdir`` (a temporary folder, removed by ``close``)."""

    def __init__(self, paths: Mapping[str, str], workdir: str | None = None):
        import duckdb

        self.paths = dict(paths)
        self._tmp = None if workdir else tempfile.TemporaryDirectory(prefix="prunekit-tpc-")
        self.workdir = workdir or self._tmp.name
        self._duckdb = duckdb
        self._full = self._connect(self.paths)
        self._kept: dict[tuple[str, str], str] = {}

    def close(self) -> None:
        self._full.close()
        if self._tmp is not None:
            self._tmp.cleanup()

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()

    def _connect(self, paths: Mapping[str, str]):
        con = self._duckdb.connect()
        for name, path in paths.items():
            con.execute(f"CREATE VIEW {name} AS SELECT * FROM read_parquet('{path}')")
        return con

    def kept_file(self, table: str, outcome: np.ndarray) -> str:
        """A Parquet file holding the row groups of ``table`` whose outcome is not 0."""
        import pyarrow.parquet as pq

        keep = np.flatnonzero(outcome != 0)
        digest = hashlib.sha256(keep.astype(np.int64).tobytes()).hexdigest()[:16]
        path = self._kept.get((table, digest))
        if path is None:
            source = pq.ParquetFile(self.paths[table])
            data = (source.read_row_groups(keep.tolist()) if len(keep)
                    else source.schema_arrow.empty_table())
            path = os.path.join(self.workdir, f"{table}-{digest}.parquet")
            pq.write_table(data, path)
            self._kept[(table, digest)] = path
        return path

    def check(self, sql: str, outcomes: Mapping[str, np.ndarray]) -> str:
        """``"equal"``, ``"no skip"`` (prunekit kept every row group: nothing to check) or
        ``"DIFFERENT: ..."``. DuckDB's own errors propagate."""
        skipped = {t: o for t, o in outcomes.items() if (o == 0).any()}
        if not skipped:
            return "no skip"
        text = queries.without_outer_limit(sql)
        full = self._full.execute(text).fetchall()
        paths = {t: self.kept_file(t, skipped[t]) if t in skipped else p
                 for t, p in self.paths.items()}
        con = self._connect(paths)
        try:
            kept = con.execute(text).fetchall()
        finally:
            con.close()
        if same_rows(full, kept):
            return "equal"
        return f"DIFFERENT: {len(full)} rows over all row groups, {len(kept)} over the kept"
