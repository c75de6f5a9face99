"""Pick the hand-written cases whose fused kernel ``make test`` compiles
(``tests/kernels/fused_sample.txt``): few cases that together take every path of the kernel
generator (``prunekit.kernels.codegen.PATHS``).

Record which paths each case's kernels take in a deep run of the ``numba`` cases, and which
paths ``make test`` takes without them (its tests that compile kernels themselves: property
tests, kernel tests, benchmarks), then pick::

    PRUNEKIT_RECORD_KERNEL_PATHS=/tmp/paths.json \\
        python -m pytest -n auto --deep --check-kernel-paths -k numba
    PRUNEKIT_RECORD_KERNEL_PATHS=/tmp/make-test.json PRUNEKIT_CACHE_DIR=$(mktemp -d) make test
    python -m tests.support.fused_sample /tmp/paths.json /tmp/make-test.json

The pick is greedy: the case that adds the most paths not yet taken, the one with fewer paths
(a smaller kernel, a quicker compile) on a tie, until no case adds any. Only cases that run
with ``backend="numba"`` as a parameter are candidates: those are the ones ``make test`` leaves
out unless sampled. Paths the other tests of ``make test`` take count as taken from the start
(recorded with an empty kernel cache, as CI runs: with the default backend a test loads a
kernel another run left on disk, and takes its paths only then);
without the second file every path must come from a candidate. A path no test takes fails the
run (``--check-kernel-paths``), so a pick from a stale recording is caught, not trusted.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

SAMPLE = Path(__file__).resolve().parents[1] / "kernels" / "fused_sample.txt"

HEADER = """\
# The hand-written cases whose fused kernel (backend "numba") make test compiles; make test-deep
# compiles it for every case. With the kernels the rest of make test compiles, they take every
# path of the kernel generator, which make test checks (--check-kernel-paths, tests/conftest.py).
# Made by tests/support/fused_sample.py.
"""


def is_candidate(test: str) -> bool:
    """Whether ``test`` is a case run with ``backend="numba"`` as a parameter (not a test
    with numba in its name).

    >>> is_candidate("t.py::test_x[a > b-numba]"), is_candidate("t.py::test_numba_kernel")
    (True, False)
    """
    return "[" in test and "numba" in test.rsplit("[", 1)[1]


def pick(paths_by_test: dict[str, list[str]], taken_anyway: set[str] = frozenset()) -> list[str]:
    """Test ids that together take every path any candidate takes and ``taken_anyway`` does
    not, greedily.

    >>> pick({"a[numba]": ["x", "y"], "b[numba]": ["y"], "c[numba]": ["z"], "d": ["w"]})
    ['a[numba]', 'c[numba]']
    >>> pick({"a[numba]": ["x", "y"], "b[numba]": ["y"], "c[numba]": ["z"]}, {"x", "z"})
    ['b[numba]']
    """
    candidates = {k: set(v) for k, v in paths_by_test.items() if is_candidate(k)}
    taken = set(taken_anyway)
    chosen: list[str] = []
    while True:
        best = max(sorted(candidates), default=None,
                   key=lambda k: (len(candidates[k] - taken), -len(candidates[k])))
        if best is None or not candidates[best] - taken:
            return chosen
        chosen.append(best)
        taken |= candidates.pop(best)


def main(argv: list[str]) -> int:
    recorded = json.loads(Path(argv[0]).read_text())
    others = json.loads(Path(argv[1]).read_text()) if len(argv) > 1 else {}
    taken = {p for test, paths in others.items() if not is_candidate(test) for p in paths}
    chosen = pick(recorded, taken)
    SAMPLE.write_text(HEADER + "".join(f"{k}\n" for k in sorted(chosen)))
    print(f"{len(chosen)} cases written to {SAMPLE}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
