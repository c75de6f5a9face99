"""Which tier this run is: ``make test`` or ``make test-deep`` (``pytest --deep``). Set by
tests/conftest.py before any test module is imported."""

DEEP = False


def backends() -> tuple[str, ...]:
    """The backends a test that loops over them runs: the fused kernel (``numba``) only in the
    deep tier, where every hand-written case compiles it (tests/conftest.py)."""
    return ("numba", "vm", "numpy") if DEEP else ("vm", "numpy")
