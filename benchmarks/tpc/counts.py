"""Row groups a query skips: prunekit's outcomes per table, DataFusion's per scan.

Counting is per scan. A table scanned twice by a query (a CTE used twice, a self-join, a
subquery over the same table) reads its kept row groups twice, and DataFusion reports each
scan (``DataSourceExec``) on its own. The number of scans of a table is taken from
DataFusion's plan of the query (its ``DataSourceExec`` nodes reading that table's file), and
prunekit's skipped row groups of the table count once per such scan. prunekit answers one
outcome per table (the OR over its scans), so where two scans filter differently it is
counted at the looser of the two: a floor of what it would skip per scan. When DataFusion
cannot run a query, each table prunekit says it reads counts as one scan.

DataFusion's count is read from its scan metrics, with its default settings, which include
the run-time filters a hash join or a TopK sends to the probe side's scan (so DataFusion
prunes with values of the build side, which prunekit can only approach from the dimension's
statistics). A scan keeps the ``M`` row groups of ``row_groups_pruned_statistics=N total → M
matched`` (its predicate, with the run-time filters as they stood when it opened its file),
less ``row_groups_pruned_dynamic_filter`` (row groups of those ``M`` the run-time filters,
updated since, ruled out by their statistics just before reading them). Skipped is the
table's row groups less those kept: row groups of a file range ruled out whole
(``files_ranges_pruned_statistics``) are skipped, and so are those of a scan that never opened
its file (no metrics: a join whose build side came out empty; ``Scan.opened`` is False).
Bloom filters, page indexes and LIMIT pruning act after and are not counted.
The run-time filters race with the scans they prune (a filter that arrives later prunes
less), so DataFusion's total may move by a few row groups from run to run.

>>> scans = parse_scans('''DataSourceExec: file_groups={1 group: [[d/t.parquet]]}, metrics=[
... files_ranges_pruned_statistics=1 total → 1 matched, row_groups_pruned_statistics=15 total
... → 4 matched, row_groups_pruned_bloom_filter=4 total → 4 matched,
... row_groups_pruned_dynamic_filter=1]''')
>>> scans
[Scan(table='t', kept=3, opened=True)]
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


def prunekit_outcomes(sql: str, tables: Tables, *, joins: bool = True
                      ) -> dict[str, np.ndarray]:
    """Table name -> prunekit's outcome per row group (int8, 0 = skip) for every table of
    ``tables`` the query reads; a table it does not read is absent. ``joins``: keys carried
    across joins from every other table's statistics and rows (``prune_query``), else each
    table's own conjuncts only (``from_query`` per table)."""
    named = {name: t for name, t in tables.items()
             if re.search(rf"\b{re.escape(name)}\b", sql, re.IGNORECASE)}
    if joins:
        return prunekit.prune_query(sql, named)
    out = {}
    for name, (stats, schema) in named.items():
        try:
            pred = prunekit.PruningPredicate.from_query(sql, name, schema)
        except prunekit.TableNotReadError:
            continue
        out[name] = pred.classify(stats)
    return out


@dataclass(frozen=True)
class Scan:
    """One ``DataSourceExec``: the table it reads, the row groups it kept, and whether it
    opened its file at all."""

    table: str
    kept: int
    opened: bool = True


_SCAN = re.compile(r"DataSourceExec: file_groups=\{[^\[]*\[\[([^\]:,]+)")
_MATCHED = re.compile(r"row_groups_pruned_statistics=\s*(\d+)\s+total\s*→\s*(\d+)\s+matched")
_DYNAMIC = re.compile(r"row_groups_pruned_dynamic_filter=\s*(\d+)")


def parse_scans(plan: str) -> list[Scan]:
    """The table scans of an ``EXPLAIN ANALYZE`` plan text, in plan order."""
    nodes = plan.split("DataSourceExec:")[1:]
    scans = []
    for node in nodes:
        # A node's text runs to the next operator's line.
        text = "DataSourceExec:" + re.split(r"\n\s*[A-Za-z]+Exec[:,]", node, maxsplit=1)[0]
        head = _SCAN.search(text.replace("\n", " "))
        if head is None:
            continue  # in-memory data (VALUES), no table
        table = os.path.basename(head.group(1)).split(".")[0]
        text = text.replace("\n", " ")
        found, dynamic = _MATCHED.search(text), _DYNAMIC.search(text)
        if found is None:
            scans.append(Scan(table, 0, opened=False))
        else:
            scans.append(Scan(table, int(found.group(2)) - int(dynamic.group(1) if dynamic else 0)))
    return scans


DYNAMIC_FILTERS = [f"datafusion.optimizer.enable_{kind}dynamic_filter_pushdown"
                   for kind in ("", "join_", "topk_", "aggregate_")]


def datafusion_context(paths: Mapping[str, str], *, dynamic_filters: bool = True):
    """A DataFusion session over the tables, its defaults kept (statistics pruning on), or
    without its run-time filters (``dynamic_filters=False``: only what the query's text
    says prunes, as for prunekit)."""
    import datafusion

    config = (datafusion.SessionConfig().with_information_schema(True)  # as SessionContext()
              .set("datafusion.execution.parquet.pruning", "true"))
    if not dynamic_filters:
        for key in DYNAMIC_FILTERS:
            config = config.set(key, "false")
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
