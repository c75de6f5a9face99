"""Shared test settings: the two tiers, the property tests' example budgets, the check that the
fused-kernel generator was compiled down every path, and the Spark session.

Tiers. ``make test`` (what CI runs) keeps every hand-written case, run through the NumPy and the
compiled interpreters; the fused kernel is compiled for the sample of those cases listed in
``tests/kernels/fused_sample.txt``; every property test runs at its ``make test`` budget
(``BUDGETS``). ``make test-deep`` (``pytest --deep``) compiles the fused kernel for every
hand-written case, runs the property tests at their deep budgets, the random checks at their
deep sizes (``tests.support.tiers.pick``) and the tests marked ``deep``: checks of the test
generators and the benchmarks' dry run, whose subjects ``make test`` covers otherwise. Marks:
``spark`` tests start a local Spark session (one per test process, shared: the ``spark``
fixture); ``slow`` ones take seconds. ``make test-fast`` leaves both out.

Generator coverage. Every kernel source lists the generator paths it took
(``prunekit.kernels.codegen.PATHS``, ``paths_of``). With ``--check-kernel-paths`` (both make
targets pass it) each test process records the paths of the kernels it loads, and the run
fails at its end unless together they took every path: a sample that no longer reaches an op
or a layout is caught in the run that loses it.

Kernels: ``backend="auto"`` answers a new shape by interpreting it while a thread compiles its
kernel, so which path answered would depend on the compiler's timing, and every test of
outcomes would pay for compiling kernels nobody asked for. The suite turns that thread off
(``PRUNEKIT_BACKGROUND_COMPILE=0``, unless set); tests of the kernels ask for them with
``backend="numba"``, and the tests of the thread turn it back on.

Hypothesis profiles: ``ci`` (the default) is derandomized so a run is reproducible; ``dev``
explores with fresh randomness. Select with HYPOTHESIS_PROFILE=dev.
"""

from __future__ import annotations

import os
import sys
from pathlib import Path

import pytest
from hypothesis import HealthCheck, settings

os.environ.setdefault("PRUNEKIT_BACKGROUND_COMPILE", "0")

settings.register_profile(
    "ci", derandomize=True, deadline=None, print_blob=True,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)
settings.register_profile(
    "dev", deadline=None, print_blob=True,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "ci"))

# ---- example budgets ------------------------------------------------------------------------
# Examples per property test, by file and test: (make test, make test-deep). A run of ``make
# test`` must finish in 8 minutes on two cores with empty kernel caches, so its budgets are what
# fits beside everything else; the deep ones are the counts each test was written with. A
# property test missing here is an error at collection, so none runs at a count nobody chose.
# Tests that run hypothesis inside (``find``, a nested ``@given``) take theirs from the
# ``examples`` fixture. Tests that count what their examples reach ("not vacuous", "decides")
# run half their deep count under ``make test``, where each count they check came out at three
# times its threshold or more; those whose first hits come late keep one budget in both.
BUDGETS = {
    "tests/test_property.py": {  # the main soundness property and its companions
        "test_outcomes_are_sound_numpy": (300, 4000),
        "test_numba_kernel_is_sound_and_matches_numpy": (10, 150),  # a compile per example
        "test_compiled_interpreter_matches_numpy": (120, 1500),
        "test_decisive_pairs_answer_as_three_bits": (100, 600),
        "test_sql_rendering_round_trips": (80, 1000),
        "test_property_is_not_vacuous": (150, 300),
        "test_integer_arithmetic_is_sound": (150, 400),
        "test_column_sums_are_sound": (100, 300),
        "test_double_arithmetic_is_sound": (150, 400),
        "test_double_arithmetic_decides": (150, 300),
        "test_integer_arithmetic_decides_and_the_kernel_agrees": (150, 300),
    },
    "tests/test_differential.py": {"test_differential_run": (10, 60)},  # datasets
    "tests/sources/delta/test_delta_columnar.py": {"test_many_random_logs": (36, 360)},  # logs
    "tests/expr/test_arith.py": {
        "test_two_operand_arithmetic_is_sound": (150, 300),
        "test_two_operand_arithmetic_decides": (200, 400),
    },
    "tests/expr/test_comparisons.py": {
        "test_an_integer_compares_in_float_as_with_its_threshold": (300, 3000),
    },
    "tests/expr/test_impossible.py": {"test_random_terms_on_one_column_are_sound": (200, 2000),
                                      "test_random_terms_on_two_columns_are_sound": (150, 1500)},
    "tests/expr/test_likes.py": {
        "test_regex_and_floor_agree_with_the_reference": (150, 300),
        "test_like_outcomes_are_sound": (300, 1500),
    },
    "tests/expr/test_resolve.py": {
        "test_nested_outcomes_are_sound": (60, 400),
        "test_nested_property_is_not_vacuous": (150, 300),
    },
    "tests/expr/test_zones.py": {
        "test_outcomes_are_sound_in_any_session_zone": (200, 400),
        "test_reading_utc_instead_is_caught": (2000, 2000),  # stops at the first case found
    },
    "tests/expr/functions/test_date_shifts.py": {
        "test_random_containers_against_rows": (150, 400),
    },
    "tests/expr/functions/test_case_insensitive.py": {
        "test_random_containers_against_rows": (200, 1000),
    },
    "tests/expr/functions/test_epoch.py": {"test_random_containers": (150, 500)},
    "tests/expr/functions/test_properties.py": {
        "test_epoch_remainder_and_month_functions_are_sound": (300, 1500),
        "test_functions_are_sound_and_decide": (300, 500),
    },
    "tests/expr/functions/test_registry.py": {
        # a search that stops once every rule is drawn (after about 900 calls)
        "test_every_rule_is_drawn_by_the_property_tests": (3000, 3000),
    },
    "tests/expr/functions/test_remainder.py": {
        "test_random_containers": (150, 400),
        "test_one_block_equality_is_decided": (100, 200),
    },
    "tests/expr/functions/test_unixtime.py": {"test_random_containers": (150, 500)},
    "tests/kernels/test_string_keys.py": {
        "test_malformed_offsets_answer_not_short_and_stay_in_the_buffer": (100, 300),
    },
    "tests/kernels/test_valuesets.py": {
        # derandomized: the first bloom decision at example 663, the fifth list's at 993
        "test_property_generator_exercises_value_sets": (1200, 2000),
    },
    "tests/kernels/test_vm.py": {
        "test_random_programs_answer_as_numpy": (120, 3000),
        "test_random_programs_are_mostly_assembled": (150, 300),
    },
    "tests/sources/parquet/test_footer.py": {
        "test_decoder_equals_pyarrow_metadata": (40, 40),
        "test_nested_leaf_bounds_are_the_data_bounds": (25, 25),
    },
}


def pytest_addoption(parser):
    parser.addoption("--deep", action="store_true",
                     help="the deep tier: the fused kernel for every hand-written case, "
                          "property tests at their deep budgets (make test-deep)")
    parser.addoption("--check-kernel-paths", action="store_true",
                     help="fail the run unless the fused kernels it compiled took every path of "
                          "the generator (make test, make test-deep)")


def pytest_configure(config):
    from tests.support import tiers

    tiers.DEEP = config.getoption("--deep")
    if config.getoption("--check-kernel-paths"):
        config.pluginmanager.register(KernelPaths(config), "kernel-paths")


def _budget(item) -> tuple[int, int] | None:
    """An item's (make test, make test-deep) budget, or None if ``BUDGETS`` has none."""
    path = item.nodeid.split("::")[0]
    return BUDGETS.get(path, {}).get(getattr(item, "originalname", item.name))


@pytest.fixture
def examples(request) -> int:
    """The example budget of the requesting test (``BUDGETS``), for hypothesis run inside it."""
    fast, deep = _budget(request.node)
    return deep if request.config.getoption("--deep") else fast


def pytest_collection_modifyitems(config, items):
    deep = config.getoption("--deep")
    sample = _fused_sample()
    kept, dropped, seen = [], [], set()
    for item in items:
        test = getattr(item, "obj", None)
        if hasattr(test, "hypothesis") or "examples" in getattr(item, "fixturenames", ()):
            budget = _budget(item)
            if budget is None:
                raise pytest.UsageError(f"{item.nodeid} runs hypothesis: give it a budget in "
                                        "tests/conftest.py (BUDGETS)")
            if hasattr(test, "hypothesis"):
                _apply_budget(test, budget[1] if deep else budget[0])
        params = getattr(item, "callspec", None) and item.callspec.params or {}
        if ("spark" in getattr(item, "fixturenames", ()) and "spark" not in params
                and not item.get_closest_marker("spark")):
            raise pytest.UsageError(f"{item.nodeid} starts Spark: mark it spark")
        if item.get_closest_marker("deep") and not deep:
            dropped.append(item)
            continue
        backend = params.get("backend")
        if backend == "numba" and not deep:
            seen.add(item.nodeid)
            if item.nodeid not in sample:
                dropped.append(item)
                continue
        kept.append(item)
    if dropped:
        config.hook.pytest_deselected(items=dropped)
    # The Spark tests first, in their files' order. xdist's worksteal hands each worker a
    # contiguous half of the collection and a worker that runs dry steals from the tail of
    # another's queue, so all of them land on one worker and only one driver JVM starts, whose
    # classes and compiled code every Spark test then shares; the other worker runs the rest
    # (with two JVMs, each paid its own start and warm-up, about a sixth of the Spark tests'
    # time).
    kept.sort(key=lambda item: item.get_closest_marker("spark") is None)
    items[:] = kept
    stale = sample - seen
    if stale and not deep and config.getoption("--check-kernel-paths"):
        raise pytest.UsageError("tests/kernels/fused_sample.txt names cases that no longer "
                                "exist: " + ", ".join(sorted(stale)))


def _apply_budget(test, count: int) -> None:
    """Set a ``@given`` test's example count, keeping the rest of its settings. Hypothesis
    reads a test's settings from this attribute when it runs (``@settings`` sets it, once)."""
    current = getattr(test, "_hypothesis_internal_use_settings", None)
    if current is None:
        raise pytest.UsageError("hypothesis no longer keeps a test's settings where "
                                "tests/conftest.py sets its budget")
    test._hypothesis_internal_use_settings = settings(current, max_examples=count)


SAMPLE_FILE = Path(__file__).parent / "kernels" / "fused_sample.txt"


def _fused_sample() -> set[str]:
    """The test ids whose ``backend="numba"`` case runs in ``make test`` (one per line; ``#``
    starts a comment)."""
    if not SAMPLE_FILE.exists():
        return set()
    lines = (line.split("#", 1)[0].strip() for line in SAMPLE_FILE.read_text().splitlines())
    return {line for line in lines if line}


# ---- generator coverage ---------------------------------------------------------------------
class KernelPaths:
    """Records the generator paths of every fused kernel a test process loads; the controller
    of an xdist run gathers its workers' (``workeroutput``) and fails the run if one of
    ``codegen.PATHS`` was never compiled."""

    def __init__(self, config):
        from prunekit.kernels import codegen, run

        self.config = config
        self.took: set[str] = set()
        self.by_test: dict[str, set[str]] = {}
        self.current = None
        self.missing: list[str] = []
        original = run.load_kernel

        def recording(source: str):
            paths = codegen.paths_of(source)
            self.took |= paths
            if self.current is not None:
                self.by_test.setdefault(self.current, set()).update(paths)
            return original(source)

        # run.py is the one caller of load_kernel for fused kernels (machine.py loads the
        # compiled interpreter through codegen's, which this leaves alone).
        run.load_kernel = recording

    @pytest.hookimpl(wrapper=True)
    def pytest_runtest_call(self, item):
        self.current = item.nodeid
        try:
            return (yield)
        finally:
            self.current = None

    def pytest_testnodedown(self, node, error):
        self.took |= set(getattr(node, "workeroutput", {}).get("kernel_paths", ()))
        for nodeid, paths in getattr(node, "workeroutput", {}).get("kernel_paths_by_test",
                                                                   {}).items():
            self.by_test.setdefault(nodeid, set()).update(paths)

    @pytest.hookimpl(trylast=True)
    def pytest_sessionfinish(self, session):
        from prunekit.kernels import codegen

        if hasattr(self.config, "workeroutput"):  # an xdist worker: hand them over
            self.config.workeroutput["kernel_paths"] = sorted(self.took)
            self.config.workeroutput["kernel_paths_by_test"] = {
                k: sorted(v) for k, v in self.by_test.items()}
            return
        record = os.environ.get("PRUNEKIT_RECORD_KERNEL_PATHS")
        if record:  # for tests/support/fused_sample.py, which picks the sample
            import json

            Path(record).write_text(json.dumps({k: sorted(v) for k, v in self.by_test.items()},
                                               indent=0, sort_keys=True))
        self.missing = sorted(codegen.PATHS - self.took)
        unknown = sorted(self.took - codegen.PATHS)
        if unknown:
            self.missing.append(f"(not in codegen.PATHS: {', '.join(unknown)})")
        if self.missing and session.exitstatus == 0 and session.testscollected:
            session.exitstatus = pytest.ExitCode.TESTS_FAILED

    def pytest_terminal_summary(self, terminalreporter):
        if self.missing:
            terminalreporter.section("generator coverage", red=True)
            terminalreporter.line(
                "no fused kernel compiled in this run took these paths of "
                "prunekit.kernels.codegen.PATHS: " + ", ".join(self.missing))
            terminalreporter.line(
                "add a case that takes them to tests/kernels/fused_sample.txt (see "
                "tests/support/fused_sample.py)")


# ---- shared fixtures ------------------------------------------------------------------------
JVM_OPTIONS = "-XX:TieredStopAtLevel=1 -XX:+UseSerialGC"

@pytest.fixture(scope="session")
def spark():
    """One local Spark session per test process, on one core (``local[1]``): the suite's other
    workers have the other cores. Stopped when the process's tests end.

    The driver JVM compiles with the client compiler only and collects garbage on one thread
    (``JVM_OPTIONS``): a test's queries are many and small, so the server compiler's work never
    pays back, and in a full run it took about 180 s of the two cores' CPU (of 425 s the JVMs
    used).

    Memory pages are 1 MB (``spark.buffer.pageSize``). By default a 2 GB driver on one core gets
    64 MB pages, and every broadcast join's hash table takes at least one. Those tables stay in
    the block store until the driver collects their plans, so two TPC tests left 800 MB of
    pages in the heap, and the JVM then spent up to 45 s on full collections. With 1 MB pages
    the same tests leave 120 MB. The queries' answers depend on none of these settings."""
    pytest.importorskip("pyspark", reason="pyspark (a test dependency) is missing")
    from prunekit.spark_glue import local_session

    session = local_session("local[1]", **{"spark.sql.shuffle.partitions": "2",
                                           "spark.buffer.pageSize": "1m",
                                           "spark.driver.extraJavaOptions": JVM_OPTIONS})
    yield session
    session.stop()


@pytest.fixture
def without_local_constants(monkeypatch):
    """Hypothesis also draws constants it finds in the source of the loaded modules, so which
    examples a derandomized run draws depends on what earlier tests imported. A test that
    counts what its examples exercise draws without them, the same examples in any order."""
    from hypothesis.internal.conjecture import providers

    if hasattr(providers, "_get_local_constants"):  # an internal of Hypothesis 6.1xx
        empty = providers.Constants(
            integers=providers.SortedSet(), floats=providers.SortedSet(
                key=providers.float_to_int), bytes=providers.SortedSet(),
            strings=providers.SortedSet())
        monkeypatch.setattr(providers, "_get_local_constants", lambda: empty)


@pytest.fixture(autouse=True)
def _spark_only_where_marked(request):
    """A test not marked ``spark`` must not start Spark: ``make test-fast`` would need Java and
    wait for a JVM."""

    def active() -> bool:
        context = sys.modules.get("pyspark.context")
        return context is not None and context.SparkContext._active_spark_context is not None

    before = active()
    yield
    if not before and active() and request.node.get_closest_marker("spark") is None:
        pytest.fail(f"{request.node.nodeid} starts Spark: mark it @pytest.mark.spark")
