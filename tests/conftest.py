"""Shared test settings.

Tiers: tests marked ``spark`` start a local Spark session; ``slow`` ones take seconds each
(property runs of thousands of examples, subprocesses, the asv suite). ``make test-fast``
leaves both out; ``make test`` runs everything over the machine's cores (pytest-xdist), every
Spark test on one worker (``xdist_group``), so one JVM serves them all.

Hypothesis profiles: ``ci`` (the default under ``make test``) is derandomized so a CI run is
reproducible; ``dev`` explores with fresh randomness. Select with HYPOTHESIS_PROFILE=dev.
"""

import os

import pytest
from hypothesis import HealthCheck, settings

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


@pytest.hookimpl(tryfirst=True)  # before xdist reads the groups (--dist loadgroup)
def pytest_collection_modifyitems(config, items):
    for item in items:
        if item.get_closest_marker("spark"):
            item.add_marker(pytest.mark.xdist_group("spark"))
