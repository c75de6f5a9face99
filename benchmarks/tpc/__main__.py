"""Row groups skipped per query, prunekit against DataFusion, with DuckDB's soundness check.

    python -m benchmarks.tpc --suite tpcds|tpch [--scale 1] [--no-check] [--query N ...]
                             [--static-datafusion]

Columns: row groups a scan-everything plan reads (per scan), skipped by prunekit, skipped by
DataFusion (statistics, its run-time join filters included), and whether DuckDB's result over
prunekit's kept row groups equals its full result ("no skip": prunekit kept everything).
"""

from __future__ import annotations

import argparse
import sys
import time

from benchmarks.tpc import run


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m benchmarks.tpc", description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--suite", choices=("tpcds", "tpch"), required=True)
    parser.add_argument("--scale", type=float, default=1.0)
    parser.add_argument("--no-check", action="store_true", help="skip DuckDB's soundness check")
    parser.add_argument("--query", type=int, nargs="*", help="only these query numbers")
    parser.add_argument("--static-datafusion", action="store_true",
                        help="turn DataFusion's run-time (dynamic) filters off")
    args = parser.parse_args(argv)

    print(f"{args.suite} scale {args.scale:g}"
          + (", DataFusion without run-time filters" if args.static_datafusion else ""), flush=True)
    print(f"{'query':>5} {'scanned':>8} {'prunekit':>8} {'datafusion':>10}  result", flush=True)
    rows, start = [], time.perf_counter()
    for row in run.measure(args.suite, args.scale, check=not args.no_check,
                           selected=args.query, dynamic_filters=not args.static_datafusion):
        rows.append(row)
        df = "-" if row.datafusion is None else str(row.datafusion)
        note = f"  ({row.note})" if row.note else ""
        print(f"{row.query:>5} {row.scanned:>8} {row.prunekit:>8} {df:>10}  {row.equal}{note}",
              flush=True)
    both = [r for r in rows if r.datafusion is not None]
    print(f"total {sum(r.scanned for r in rows):>8} {sum(r.prunekit for r in rows):>8} "
          f"{sum(r.datafusion for r in both):>10}  ({len(rows)} queries, "
          f"{time.perf_counter() - start:.0f} s)")
    if len(both) < len(rows):
        print(f"over the {len(both)} queries DataFusion ran: scanned "
              f"{sum(r.scanned for r in both)}, prunekit {sum(r.prunekit for r in both)}, "
              f"DataFusion {sum(r.datafusion for r in both)}")
    bad = [r.query for r in rows if r.equal.startswith(("DIFFERENT", "error"))]
    if bad:
        print(f"results differ or failed: queries {bad}")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
