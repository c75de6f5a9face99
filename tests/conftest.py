"""Shared test settings.

Tiers: tests marked ``spark`` start a local Spark session (one per test process that runs
them); ``slow`` ones take seconds each (property runs of thousands of examples, subprocesses,
the asv suite). ``make test-fast`` leaves both out; ``make test`` runs everything over the
machine's cores (pytest-xdist). A test that starts Spark without the mark fails.

Kernels: ``backend="auto"`` answers a new shape by interpreting it while a thread compiles its
kernel, so which path answered would depend on the compiler's timing, and every test of
outcomes would pay for compiling kernels nobody asked for (most of a cold run's time). The
suite turns that thread off (``PRUNEKIT_BACKGROUND_COMPILE=0``, unless set); tests of the
kernels ask for them with ``backend="numba"``, and the tests of the thread turn it back on.

Hypothesis profiles: ``ci`` (the default under ``make test``) is derandomized so a CI run is
reproducible; ``dev`` explores with fresh randomness. Select with HYPOTHESIS_PROFILE=dev.
"""

import os

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
    import sys

    def active() -> bool:
        context = sys.modules.get("pyspark.context")
        return context is not None and context.SparkContext._active_spark_context is not None

    before = active()
    yield
    if not before and active() and request.node.get_closest_marker("spark") is None:
        pytest.fail(f"{request.node.nodeid} starts Spark: mark it @pytest.mark.spark")

