"""Which tier this run is: ``make test`` or ``make test-deep`` (``pytest --deep``). Set by
tests/conftest.py before any test module is imported."""

DEEP = False


def pick(make_test, deep):
    """``make_test`` under ``make test``, ``deep`` in the deep tier: the size of a random check
    (containers, seeds, queries), smaller where ``make test`` must fit its time.

    >>> pick(20, 40) in (20, 40)
    True
    """
    return deep if DEEP else make_test


def backends() -> tuple[str, ...]:
    """The backends a test that loops over them runs: the fused kernel (``numba``) only in the
    deep tier, where every hand-written case compiles it (tests/conftest.py)."""
    return ("numba", "vm", "numpy") if DEEP else ("vm", "numpy")


_compiled: set[tuple[str, str]] = set()  # (test function, kernel kind) compiled in this process


def fused_backend(test: str, kind: str = "classify") -> str:
    """The backend for a call that a parametrized test makes in each of its cases: ``"numba"``
    (the fused kernel) for every case in the deep tier, and under ``make test`` for the first
    case of ``test`` (a test's node id without its parameters) that a test process runs, else
    ``"vm"`` (the compiled interpreter). A compile costs seconds with a cold cache; the first
    case keeps the fused kernel's answers checked against the interpreters in every run, and
    ``--check-kernel-paths`` still sees the generator paths its kernels take.

    >>> fused_backend("test_example_of_the_doc", "prune") in ("numba", "vm")
    True
    """
    if DEEP or (test, kind) not in _compiled:
        _compiled.add((test, kind))
        return "numba"
    return "vm"
