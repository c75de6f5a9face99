"""Row groups skipped on TPC-DS and TPC-H (scale factor 1), prunekit against DataFusion.

Each fact table is sorted by its date key and every table cut into at most 100 row groups
(``benchmarks.tpc.data``). ``Skipped.track_*`` count row groups skipped per scan over all the
suite's queries (``benchmarks.tpc.counts`` says how): prunekit's, DataFusion's (its
statistics pruning with its defaults, run-time join filters included), and their ratio, over
the queries both run. ``PrunekitTime.time_all_queries``: prunekit's outcomes for every query
of the suite (statistics read once, kernels warm). ``python -m benchmarks.tpc`` prints the
per-query table and checks soundness with DuckDB.
"""

from __future__ import annotations

from benchmarks.tpc import counts, data, queries, run

SUITES = ["tpcds", "tpch"]
SCALE = 1.0


def totals(suite: str, scale: float) -> dict[str, int]:
    """Row groups scanned and skipped over the queries both prunekit and DataFusion ran."""
    rows = [r for r in run.measure(suite, scale, check=False) if r.datafusion is not None]
    return {"queries": len(rows), "scanned": sum(r.scanned for r in rows),
            "prunekit": sum(r.prunekit for r in rows),
            "datafusion": sum(r.datafusion for r in rows)}


class Skipped:
    params = [SUITES]
    param_names = ["suite"]
    timeout = 3600
    scale = SCALE

    def setup_cache(self):
        return {suite: totals(suite, self.scale) for suite in SUITES}

    setup_cache.timeout = 3600

    def track_prunekit_skipped(self, cache, suite):
        return cache[suite]["prunekit"]

    track_prunekit_skipped.unit = "row groups"

    def track_datafusion_skipped(self, cache, suite):
        return cache[suite]["datafusion"]

    track_datafusion_skipped.unit = "row groups"

    def track_prunekit_over_datafusion(self, cache, suite):
        return cache[suite]["prunekit"] / max(cache[suite]["datafusion"], 1)

    track_prunekit_over_datafusion.unit = "x DataFusion"

    def track_row_groups_scanned(self, cache, suite):
        return cache[suite]["scanned"]

    track_row_groups_scanned.unit = "row groups"


class PrunekitTime:
    params = [SUITES]
    param_names = ["suite"]
    timeout = 1800
    number = 1
    repeat = (3, 5, 120.0)
    scale = SCALE

    def setup(self, suite):
        self.tables = counts.table_statistics(data.tables(suite, self.scale))
        self.queries = list(queries.queries(suite).values())
        self.time_all_queries(suite)  # kernels compiled, as in a long-lived process

    def time_all_queries(self, suite):
        for sql in self.queries:
            counts.prunekit_outcomes(sql, self.tables)
