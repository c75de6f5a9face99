"""The benchmark workload is deterministic and every benchmark query binds and runs."""

import os

import numpy as np
import pytest

from benchmarks import workload


def test_workload_is_deterministic():
    a, b = workload.statistics(2_000, seed=3), workload.statistics(2_000, seed=3)
    assert a.table.equals(b.table)


@pytest.mark.parametrize("query", sorted(workload.QUERIES))
def test_every_query_runs_and_prunes_something(query):
    stats = workload.statistics(20_000)
    outcome = workload.predicate(query).classify(stats)
    assert len(outcome) == 20_000 and set(np.unique(outcome)) <= {0, 1, 2}
    assert (outcome == 0).any(), f"{query} prunes nothing on the benchmark workload"


def test_new_queries_are_what_the_issue_asks():
    assert len(workload.IN_VALUES) == len(set(workload.IN_VALUES)) == 64
    assert workload.QUERIES["Q6"].startswith("id IN (")
    q7 = workload.QUERIES["Q7"]
    assert all(c in q7 for c in workload.SCHEMA.names)
    program = workload.predicate("Q7").program
    assert {s.column for s in program.slots} >= set(workload.SCHEMA.names)


@pytest.mark.parametrize("query", sorted(workload.QUERIES))
def test_pyarrow_baseline_equals_classify(query):
    from benchmarks import baselines

    stats = workload.statistics(20_000, seed=1)
    pred = workload.predicate(query)
    expected = pred.classify(stats)
    np.testing.assert_array_equal(baselines.pyarrow_compute(pred.program, stats), expected)
    np.testing.assert_array_equal(pred.classify(stats, backend="numpy"), expected)


@pytest.mark.parametrize("query", sorted(workload.QUERIES))
def test_hand_written_keep_masks_agree_and_keep_what_prune_keeps(query):
    """pyarrow.compute, Polars and DuckDB evaluate the same hand-written keep tree; each keeps
    every container ``prune`` keeps (prunekit is at least as tight), and prunes some."""
    from benchmarks import keep

    stats = workload.statistics(20_000, seed=1)
    table = stats.table
    by_pyarrow = keep.pyarrow_keep(query, table)
    np.testing.assert_array_equal(keep.polars_keep(query, keep.frame(table)), by_pyarrow)
    np.testing.assert_array_equal(keep.duckdb_keep(query, table), by_pyarrow)
    kept = workload.predicate(query).prune(stats)
    assert not (kept & ~by_pyarrow).any(), "a hand-written keep mask drops a kept container"
    assert not by_pyarrow.all()


@pytest.mark.slow
def test_floor_reads_the_query_buffers():
    from benchmarks import baselines

    stats = workload.statistics(5_000)
    program = workload.predicate("Q2").program  # row_count, id and price
    words, tails = baselines.floor_buffers(stats, program)
    nbytes = sum(w.nbytes for w in words) + sum(t.nbytes for t in tails)
    assert nbytes >= 5_000 * 8 * 7  # row_count, 3 per column (min, max, null_count)
    expected = sum(int(w.sum(dtype=np.int64)) for w in words) + sum(int(t.sum()) for t in tails)
    wrapped = (expected + 2**63) % 2**64 - 2**63  # int64 adds wrap
    assert baselines.floor((words, tails)) == wrapped


def test_large_workloads_come_from_a_memory_mapped_file(tmp_path, monkeypatch):
    monkeypatch.setenv("PRUNEKIT_BENCH_DIR", str(tmp_path))
    path = workload.ipc_path(3_000, seed=2)
    assert path.startswith(str(tmp_path))
    assert workload.read_table(3_000, seed=2).equals(workload.generate(3_000, seed=2))


def test_new_shapes_bind_and_run():
    from benchmarks import bench_latency

    stats = workload.statistics(2_000)
    for seed in range(5):
        pred = workload.pk.PruningPredicate(bench_latency.new_shape_sql(seed), workload.SCHEMA)
        np.testing.assert_array_equal(pred.classify(stats),
                                      pred.classify(stats, backend="numpy"))


@pytest.mark.slow
@pytest.mark.spark  # bench_reader.py reads with Spark
@pytest.mark.deep
def test_every_asv_benchmark_runs_once(spark, tmp_path, monkeypatch):
    """A one-repetition dry run of the whole asv suite on small inputs (``asv check`` only
    checks signatures), so a broken benchmark fails ``make test-deep``. ``make test`` runs the
    workload, its queries and baselines (above), the fresh-process scan benchmarks (below) and
    the join benchmarks (test_tpc.py), but not this (40 to 50 s of its 8 minutes). Spark is the
    session the test process shares with its other Spark tests (``spark``, one core), which
    ``bench_reader.session`` returns as its own."""
    from benchmarks import bench_classify, bench_latency

    monkeypatch.setenv("PRUNEKIT_BENCH_DIR", str(tmp_path / "data"))
    monkeypatch.setenv("PRUNEKIT_CACHE_DIR", os.environ.get("PRUNEKIT_CACHE_DIR", ""))
    monkeypatch.setattr(bench_latency, "N", 3_000)
    monkeypatch.setattr(bench_latency.FreshProcess, "runs", 1)
    monkeypatch.setattr(bench_classify.Ratios, "budget", 0.01)
    monkeypatch.setattr(workload, "DISK_CACHE_MIN", 3_000)  # the memory-mapped path too
    workload.statistics.cache_clear()

    def run(cls, *params, covered=()):
        """Every method of ``cls`` once, but ``covered``: one-line timings whose calls the
        class's setup or its ``track_`` ratios make too (a Spark query each, seconds)."""
        bench = cls()
        try:
            bench.setup(*params)
        except NotImplementedError:  # asv's "skipped"
            return
        try:
            for name in dir(cls):
                if name.startswith(("time_", "peakmem_", "track_")) and name not in covered:
                    value = getattr(bench, name)(*params)
                    assert name.startswith(("time_", "peakmem_")) or value >= 0, name
        finally:
            getattr(bench, "teardown", lambda *a: None)(*params)

    # The classes that compile each query's kernels (seconds per query, cold) run the same
    # code for every query: a string query and the widest one. The others run every query.
    compiled = ("Q4", "Q7")
    for cls in (bench_classify.Classify, bench_classify.Prune, bench_classify.ClassifyCached,
                bench_classify.Ratios, bench_classify.PeakMemory):
        for query in cls.params[1]:
            if query in compiled:
                run(cls, 3_000, query)
    for cls in (bench_classify.Floor, bench_classify.PyArrow, bench_classify.Keep,
                bench_classify.NumPy):
        for query in cls.params[1]:
            run(cls, 3_000, query)
    monkeypatch.setattr(bench_classify.FixedCost, "calls", 3)
    for query in compiled:
        run(bench_classify.FixedCost, 1_000, query)
    # One kind: the two differ only in the generator of their SQL, and each new shape compiles
    # a kernel (seconds); test_new_shapes_bind_and_run runs the numeric generator. The default
    # backend's timing only: the other two time the same calls (one with backend="numba", a
    # compile of its own, which the kernel tests make).
    monkeypatch.setattr(bench_latency.NewShape, "shapes", 1)
    assert "strings" in bench_latency.NewShape.params[1]
    with monkeypatch.context() as m:
        # Its setup waits for the compiled interpreter, which the suite's other worker is
        # compiling at this point of a cold run (30 s on two cores): this worker would idle.
        # The default backend does not wait for it (machine.ready).
        m.setattr(bench_latency.machine, "wait", lambda: None)
        run(bench_latency.NewShape, 3_000, "strings",
            covered=("time_new_shape_first_result", "track_new_shape_compiled_result_ms"))
    for query in bench_latency.FreshProcess.params:
        run(bench_latency.FreshProcess, query)
    from benchmarks import bench_reader

    # The TPC data and lake below are test_tpc.py's (the same scales, in the shared data
    # directory): generated once per run, by whichever test asks first.
    monkeypatch.delenv("PRUNEKIT_BENCH_DIR")
    monkeypatch.setattr(bench_reader.ReadParquet, "files", 12)  # TPC-H at scale 0.01
    monkeypatch.setattr(bench_reader.ReadParquet, "scale", 0.01)
    monkeypatch.setattr(bench_reader.ReadParquet, "budget", 0.0)
    # Every method of both once, and each filter once (a prunable and an unprunable one): the
    # filter is only the text of the query; tests/spark_glue/test_reader.py checks rows.
    # time_native and time_prunekit: track_speedup runs both functions
    run(bench_reader.ReadParquet, "one_day", covered=("time_native", "time_prunekit"))
    run(bench_reader.ReadDelta, "unprunable", covered=("time_native", "time_prunekit"))
    from benchmarks import bench_queries

    monkeypatch.setattr(bench_queries.WholeQuery, "scale", 0.01)  # the TPC-DS of test_tpc.py
    monkeypatch.setattr(bench_queries.WholeQuery, "files", 6)
    monkeypatch.setattr(bench_queries.WholeQuery, "budget", 0.0)
    monkeypatch.setattr(bench_queries, "_SESSION", [spark])
    # a join query; setup checks the rows (by time_native and time_prunekit), and
    # track_planning_share runs time_planning
    run(bench_queries.WholeQuery, "q52",
        covered=("time_native", "time_prunekit", "time_planning"))
    from benchmarks import bench_parquet

    monkeypatch.chdir(tmp_path)  # asv runs setup_cache in its own directory
    monkeypatch.setattr(bench_parquet.WideTable, "files", 3)
    monkeypatch.setattr(bench_parquet.WideTable, "columns", 20)
    bench = bench_parquet.WideTable()
    roots = bench.setup_cache()
    bench.setup(roots)
    for name in ("time_every_column", "time_one_column", "time_one_column_dataset"):
        getattr(bench, name)(roots)
    from benchmarks import bench_delta

    monkeypatch.setenv("PRUNEKIT_BENCH_DIR", str(tmp_path / "data"))  # its own table again
    run(bench_delta.FileStatistics, 100)  # a log of 100 files (the suite's are 10,000, 100,000)


def test_iceberg_asv_benchmark_runs_once(tmp_path, monkeypatch):
    """The Iceberg planning benchmark's asv class once, on a table of 200 files."""
    pytest.importorskip("pyiceberg")
    from benchmarks import bench_iceberg

    monkeypatch.setenv("PRUNEKIT_BENCH_DIR", str(tmp_path / "data"))
    monkeypatch.setattr(bench_iceberg, "FILES", 200)  # the suite's are 10,000 and 100,000
    bench = bench_iceberg.PlanFiles()
    location = bench.setup_cache()
    bench.setup(location)
    for name in dir(bench):
        if name.startswith("time_"):
            getattr(bench, name)(location)


@pytest.mark.slow
def test_fresh_process_scan_benchmarks_run_once(tmp_path, monkeypatch):
    """``bench_scan`` once (one file, warm: the other parameters run the same code), and both
    sides on both datasets, a lake of 12 files here: DuckDB's query finds the row groups
    prunekit keeps (a benchmark of two different questions would mean nothing)."""
    import json
    import subprocess
    import sys

    from benchmarks import bench_parquet, bench_scan

    monkeypatch.setenv("PRUNEKIT_BENCH_DIR", str(tmp_path / "data"))
    monkeypatch.setattr(bench_scan, "write_dataset",
                        lambda root: bench_parquet.write_dataset(root, files=12))
    monkeypatch.setattr(bench_scan.FreshScan, "rounds", 1)
    monkeypatch.setattr(bench_scan.Import, "rounds", 1)
    bench = bench_scan.FreshScan()
    bench.setup("one file", "warm")
    try:
        assert bench.track_prunekit_over_duckdb("one file", "warm") > 0
        assert bench.track_prunekit_s("one file", "warm") > 0
    finally:
        bench.teardown("one file", "warm")
    for path in (bench_scan.one_file(), bench_scan.lake()):
        ours = subprocess.run([sys.executable, "-m", "prunekit", "scan", path, "--where",
                               bench_scan.WHERE, "--format", "json"], capture_output=True,
                              text=True, check=True)
        kept = sum(c["outcome"] != "NONE_MATCH" for c in json.loads(ours.stdout)["containers"])
        glob = path if path.endswith(".parquet") else os.path.join(path, "**", "*.parquet")
        theirs = subprocess.run([sys.executable, "-c", bench_scan.DUCKDB.format(glob=glob)],
                                capture_output=True, text=True, check=True)
        assert kept == int(theirs.stdout) > 0, path
    imports = bench_scan.Import()
    assert imports.track_import_prunekit_s() > 0 and imports.track_import_over_pyarrow() > 0
    assert imports.track_heavy_modules_loaded() in (0, 1, 2, 3)
