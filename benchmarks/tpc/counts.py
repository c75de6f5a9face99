"""Row groups a query skips: prunekit's outcomes per table, DataFusion's per scan.

Counting is per scan. A table scanned twice by a query (a CTE used twice, a self-join, a
subquery over the same table) reads its kept row groups twice, and DataFusion reports each
scan (``DataSourceExec``) on its own. The number of scans of a table is taken from
DataFusion's plan of the query (its ``DataSourceExec`` nodes reading that table's file), and
prunekit's skipped row groups of the table count once per such scan. prunekit answers one
outcome per table (the OR over its scans), so where two scans filter differently it is
counted at the looser of the two: a floor of what it would skip per scan.

DataFusion's count is its ``row_groups_pruned_statistics`` metric (``N total → M matched``):
a scan keeps the ``M`` row groups its statistics could not rule out, with its default
settings, which include the run-time filters a hash join or a TopK sends to the probe side's
scan before it opens its file (so DataFusion prunes with values of the build side, which
prunekit can only approach from the dimension's statistics). Row groups of a file range
DataFusion ruled out whole (``files_ranges_pruned_statistics``), and the row groups of a scan
that never opened its file (a join whose build side came out empty), are skipped too: skipped
is the table's row groups less those matched. Bloom filters, page indexes and LIMIT pruning
act after and are not counted.

>>> scans = parse_scans('''DataSourceExec: file_groups={1 group: [[d/t.parquet]]}, metrics=[
... files_ranges_pruned_statistics=1 total → 1 matched, row_groups_pruned_statistics=15 total
... → 4 matched, row_groups_pruned_bloom_filter=4 total → 4 matched]''')
>>> scans
[Scan(table='t', matched=4)]
"""

from __future__ import annotations

import os
import re
from collections import Counter
from collections.abc import Mapping
from dataclasses import dataclass

import numpy as np
import pyarrow as pa

import prunekit
import prunekit.parquet

Tables = Mapping[str, tuple[prunekit.Statistics, pa.Schema]]


def table_statistics(paths: Mapping[str, str]) -> dict[str, tuple[prunekit.Statistics, pa.Schema]]:
    """Table name -> (row-group statistics, data schema), read from each table's footer."""
    out = {}
    for name, path in paths.items():
        stats = prunekit.parquet.statistics(path, progress=False)
        out[name] = (stats, prunekit.parquet.data_schema(stats.table))
    return out


def prunekit_outcomes(sql: str, tables: Tables) -> dict[str, np.ndarray]:
    """Table name -> prunekit's outcome per row group (int8, 0 = skip) for every table of
    ``tables`` the query reads; a table it does not read is absent."""
    out = {}
    for name, (stats, schema) in tables.items():
        if not re.search(rf"\b{re.escape(name)}\b", sql, re.IGNORECASE):
            continue  # not named at all: spare from_query a parse
        try:
            pred = prunekit.PruningPredicate.from_query(sql, name, schema)
        except prunekit.TableNotReadError:
            continue
        out[name] = pred.classify(stats)
    return out


@dataclass(frozen=True)
class Scan:
    """One ``DataSourceExec``: the table it reads and the row groups its statistics kept."""

    table: str
    matched: int


_SCAN = re.compile(r"DataSourceExec: file_groups=\{[^\[]*\[\[([^\]:,]+)")
_MATCHED = re.compile(r"row_groups_pruned_statistics=\s*(\d+)\s+total\s*→\s*(\d+)\s+matched")


def parse_scans(plan: str) -> list[Scan]:
    """The table scans of an ``EXPLAIN ANALYZE`` plan text, in plan order. A scan that
    reports no row-group metric opened no file: it kept nothing."""
    nodes = plan.split("DataSourceExec:")[1:]
    scans = []
    for node in nodes:
        # A node's text runs to the next operator's line.
        text = "DataSourceExec:" + re.split(r"\n\s*[A-Za-z]+Exec[:,]", node, maxsplit=1)[0]
        head = _SCAN.search(text.replace("\n", " "))
        if head is None:
            continue  # in-memory data (VALUES), no table
        table = os.path.basename(head.group(1)).split(".")[0]
        found = _MATCHED.search(text.replace("\n", " "))
        scans.append(Scan(table, int(found.group(2)) if found else 0))
    return scans


def datafusion_context(paths: Mapping[str, str]):
    """A DataFusion session over the tables, its defaults kept (statistics pruning on)."""
    import datafusion

    config = datafusion.SessionConfig().set("datafusion.execution.parquet.pruning", "true")
    ctx = datafusion.SessionContext(config)
    for name, path in paths.items():
        ctx.register_parquet(name, path)
    return ctx


def datafusion_scans(ctx, sql: str) -> list[Scan]:
    """Run ``EXPLAIN ANALYZE`` of ``sql`` (as written, else transpiled to PostgreSQL's
    dialect, which DataFusion reads closely: ``DEC(15,4)``) and read its scans."""
    import sqlglot

    try:
        table = ctx.sql("EXPLAIN ANALYZE " + sql).to_arrow_table()
    except Exception as first:  # DataFusion raises plain Exception subclasses
        try:
            table = ctx.sql("EXPLAIN ANALYZE " + sqlglot.transpile(sql, write="postgres")[0]
                            ).to_arrow_table()
        except Exception:
            raise first from None
    rows = table.to_pylist()
    plan = next(r["plan"] for r in rows if r["plan_type"] == "Plan with Metrics")
    return parse_scans(plan)


def scan_counts(scans: list[Scan]) -> Counter:
    return Counter(s.table for s in scans)
