"""The 99 TPC-DS queries in Spark, each read natively and through ``prunekit.spark_glue.sql``,
on the lake of ``lake.py`` (fact tables sorted by date in many files, ``catalog_sales`` as Delta).

Soundness (``make test-deep`` runs it at scale 1): every query gives the same rows both ways,
order aside and floats to a relative 1e-6, with its outermost LIMIT removed (rows tied at a
LIMIT's edge may differ between any two runs of Spark)::

    python -m benchmarks.tpc.spark_run --scale 1 --check

Speed: each query as written, both ways in turn (which goes first alternates), prunekit's time
with its planning (statistics from the cache kept beside the lake, ``prune_query``, the
views); per query the ratio native / prunekit and the fact-table files kept, then the
geometric mean of the ratios. Beside each ratio, the bound that planning costs nothing would
reach: native / the time Spark takes over the kept files alone (what no file-level pruning can
beat, whatever it costs to plan). Each query first runs once natively, untimed: Spark keeps the
code it compiles for a plan, and both sides' plans differ only in the files they list, so
whichever side ran a query first paid the compile for both (up to seconds on two cores; it
swung single ratios by a factor of two either way). ``--cold`` leaves that run out::

    python -m benchmarks.tpc.spark_run --scale 10 --cores 2 --runs 1

Native reads every table as ``spark.read.parquet(folder)``, made once: a Delta table written
by appends only has every file live, so that is the read Delta's reader would make.

>>> same_rows([(1, 2.0), (None, "a")], [(None, "a"), (1, 2.0000000001)])
True
>>> same_rows([(1, 2.0)], [(1, 2.001)]), same_rows([(1,)], [(1,), (1,)])
(False, False)
>>> geometric_mean([2.0, 0.5, 4.0])
1.5874
"""

from __future__ import annotations

import argparse
import math
import os
import sys
import time
import warnings

from . import lake, queries


def same_rows(a: list, b: list) -> bool:
    """Equal multisets of rows, floats to a relative 1e-6."""
    def key(row):
        return tuple((v is None, str(v) if not isinstance(v, float) else f"{v:.5e}")
                     for v in row)

    a, b = sorted(map(tuple, a), key=key), sorted(map(tuple, b), key=key)
    return len(a) == len(b) and all(
        len(r) == len(s) and all(
            math.isclose(x, y, rel_tol=1e-6) if isinstance(x, float) and isinstance(y, float)
            else x == y for x, y in zip(r, s, strict=True))
        for r, s in zip(a, b, strict=True))


def geometric_mean(ratios: list[float]) -> float:
    return round(math.exp(sum(map(math.log, ratios)) / len(ratios)), 4)


def session(cores: int):
    """The session both sides share (``local_session``: few shuffle partitions, the UI off)."""
    from prunekit.spark_glue import local_session

    return local_session(f"local[{cores}]", **{"spark.driver.memory": "6g",
                                               "spark.sql.session.timeZone": "UTC"})


class Runner:
    """Runs a query both ways on one session; native reads are made once."""

    def __init__(self, spark, tables: dict[str, str]):
        self.spark, self.tables = spark, tables
        self.frames = {name: spark.read.parquet(path) for name, path in tables.items()}
        # Statistics kept beside the lake, as a pipeline that queries it again keeps them:
        # a query opens only the footers of files changed since (none, here).
        self.cache = os.path.dirname(next(iter(tables.values()))) + ".prunekit-cache"

    def native(self, sql: str) -> list:
        for name, frame in self.frames.items():
            frame.createOrReplaceTempView(name)
        try:
            return self.spark.sql(sql).collect()
        finally:
            for name in self.frames:
                self.spark.catalog.dropTempView(name)

    def prunekit(self, sql: str):
        """(rows, plan, warnings given, seconds spent planning)."""
        from prunekit.spark_glue import plan_sql

        with warnings.catch_warnings(record=True) as given:
            warnings.simplefilter("always")
            start = time.perf_counter()
            plan = plan_sql(self.spark, sql, self.tables, cache=self.cache)
            planning = time.perf_counter() - start
            rows = plan.dataframe(self.spark).collect()
        return rows, plan, [str(w.message) for w in given], planning


def _facts(plan) -> str:
    facts = [t for t in plan.tables if t.name in lake.data.SORT_KEYS["tpcds"]]
    return ", ".join(f"{t.name} {t.kept_files}/{t.files}" for t in facts) or "-"


def _runs(runner: Runner, sql: str) -> bool:
    try:
        runner.native(sql)
    except Exception:  # noqa: BLE001 - whatever Spark raises
        return False
    return True


def _timed(fn, *args):
    start = time.perf_counter()
    out = fn(*args)
    return time.perf_counter() - start, out


def run(spark, tables: dict[str, str], numbers, check: bool, runs: int = 1, warm: bool = True
        ) -> tuple[list[int], list[float]]:
    """Runs the queries ``numbers`` both ways on ``spark`` and prints a line each; returns the
    queries that failed (rows differ, or prunekit fails where Spark runs the text) and each
    compared query's speed-up. ``warm``: each query runs natively once first, untimed."""
    runner = Runner(spark, tables)
    failures, ratios = [], []
    for number, text in sorted(queries.queries("tpcds").items()):
        if number not in numbers:
            continue
        # The vendored texts are sqlglot's dialect (double-quoted aliases): written as Spark's.
        sql = queries.without_outer_limit(text, "spark") if check else queries.in_spark(text)
        times: dict[str, list[float]] = {"native": [], "prunekit": [], "reading": []}
        try:
            if warm and not check:
                runner.native(sql)
            for k in range(runs):
                odd = (number + k) % 2
                for side in ("prunekit", "native") if odd else ("native", "prunekit"):
                    seconds, out = _timed(getattr(runner, side), sql)
                    times[side].append(seconds)
                    if side == "native":
                        want = out
                    else:
                        got, plan, given, planning = out
                        times["reading"].append(seconds - planning)
        except Exception as e:  # noqa: BLE001 - reported; a failure where Spark runs it
            if not _runs(runner, sql):
                print(f"q{number}: Spark fails on its own ({type(e).__name__}); skipped",
                      flush=True)
                continue
            failures.append(number)
            print(f"q{number}: prunekit fails: {type(e).__name__}: {e}", flush=True)
            continue
        equal = same_rows(got, want)
        if not equal:
            failures.append(number)
        native_best, pruned_best = min(times["native"]), min(times["prunekit"])
        ratios.append(native_best / pruned_best)
        note = f"; {len(given)} warning(s): {given[0]}" if given else ""
        print(f"q{number}: {'equal' if equal else 'DIFFERENT'} rows ({len(want)}), "
              f"native {native_best:.2f} s, prunekit {pruned_best:.2f} s "
              f"(x{ratios[-1]:.2f}; reading the kept files alone "
              f"x{native_best / min(times['reading']):.2f}), kept {_facts(plan)}{note}",
              flush=True)
    return failures, ratios


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--scale", type=float, default=1)
    parser.add_argument("--files", type=int, default=lake.FACT_FILES)
    parser.add_argument("--cores", type=int, default=2)
    parser.add_argument("--runs", type=int, default=1, help="timed runs per query and side")
    parser.add_argument("--check", action="store_true",
                        help="compare rows (outer LIMIT removed) instead of timing")
    parser.add_argument("--queries", default="1-99", help="e.g. 3,7,52 or 1-20")
    parser.add_argument("--cold", action="store_true",
                        help="no untimed native run of each query before it is timed")
    args = parser.parse_args(argv)
    numbers = set()
    for part in args.queries.split(","):
        lo, _, hi = part.partition("-")
        numbers |= set(range(int(lo), int(hi or lo) + 1))
    started = time.perf_counter()
    tables = lake.lake(args.scale, args.files)
    print(f"lake at scale {args.scale:g}: {time.perf_counter() - started:.0f} s", flush=True)
    spark = session(args.cores)
    try:
        failures, ratios = run(spark, tables, numbers, args.check, args.runs, not args.cold)
    finally:
        spark.stop()
    if ratios:
        print(f"{len(ratios)} queries, geometric mean of the speed-ups x"
              f"{geometric_mean(ratios)}, slowest x{min(ratios):.2f}, fastest x{max(ratios):.2f}")
    if failures:
        print(f"FAILED: {', '.join(f'q{n}' for n in failures)}")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
