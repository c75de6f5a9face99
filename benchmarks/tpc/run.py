"""One measurement per query: row groups scanned, skipped by prunekit and by DataFusion, and
whether DuckDB's result over prunekit's kept row groups equals the full result."""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass

from benchmarks.tpc import counts, data, queries


@dataclass
class Row:
    query: int
    scanned: int  # row groups a scan-everything plan reads: per table, scans x row groups
    prunekit: int  # skipped by prunekit, per scan
    datafusion: int | None  # skipped by DataFusion; None when it could not run the query
    equal: str  # the soundness verdict (soundness.Checker.check) or "" when not checked
    note: str = ""  # why DataFusion or DuckDB failed, or how the scans were counted


def measure(suite: str, scale: float, *, check: bool = True, selected: list[int] | None = None,
            dynamic_filters: bool = True) -> Iterator[Row]:
    """A Row per query of ``suite`` (all, or the numbers in ``selected``), in order;
    ``dynamic_filters=False`` turns DataFusion's run-time filters off."""
    from benchmarks.tpc.soundness import Checker

    paths = data.tables(suite, scale)
    tables = counts.table_statistics(paths)
    ctx = counts.datafusion_context(paths, dynamic_filters=dynamic_filters)
    checker = Checker(paths) if check else None
    try:
        for number, sql in queries.queries(suite).items():
            if selected and number not in selected:
                continue
            yield measure_one(number, sql, tables, ctx, checker)
    finally:
        if checker is not None:
            checker.close()


def measure_one(number, sql, tables, ctx, checker) -> Row:
    outcomes = counts.prunekit_outcomes(sql, tables)
    note = ""
    try:
        scans = counts.datafusion_scans(ctx, sql)
    except Exception as e:  # DataFusion raises plain Exception subclasses
        scans, note = None, f"DataFusion: {str(e).splitlines()[0][:120]}"
    if scans is None:  # one scan per table prunekit says the query reads
        per_table = {t: 1 for t in outcomes}
        datafusion = None
    else:
        per_table = counts.scan_counts(scans)
        datafusion = sum(len(tables[s.table][0]) - s.kept for s in scans)
        closed = sorted(s.table for s in scans if not s.opened)
        if closed:
            note = "DataFusion never opened " + ", ".join(closed)
    scanned = sum(n * len(tables[t][0]) for t, n in per_table.items())
    skipped = sum(n * int((outcomes[t] == 0).sum()) for t, n in per_table.items()
                  if t in outcomes)
    equal = ""
    if checker is not None:
        try:
            equal = checker.check(sql, outcomes)
        except Exception as e:  # DuckDB's errors: reported, not raised
            equal, note = "error", (note + "; " if note else "") + f"DuckDB: {str(e)[:120]}"
    return Row(number, scanned, skipped, datafusion, equal, note)
