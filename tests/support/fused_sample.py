"""Pick the hand-written cases whose fused kernel ``make test`` compiles
(``tests/kernels/fused_sample.txt``): few cases that together take every path of the kernel
generator (``prunekit.kernels.codegen.PATHS``).

Record which paths each case's kernels take in a deep run of the ``numba`` cases, then pick::

    PRUNEKIT_RECORD_KERNEL_PATHS=/tmp/paths.json \\
        python -m pytest -n auto --deep --check-kernel-paths -k numba
    python -m tests.support.fused_sample /tmp/paths.json

The pick is greedy: the case that adds the most paths not yet taken, the one with fewer paths
(a smaller kernel, a quicker compile) on a tie, until no case adds any. Only cases that run
with ``backend="numba"`` as a parameter are candidates: those are the ones ``make test`` leaves
out unless sampled. A path no case takes must come from a test that compiles kernels itself, or
``--check-kernel-paths`` fails the run.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

SAMPLE = Path(__file__).resolve().parents[1] / "kernels" / "fused_sample.txt"

HEADER = """\
# The hand-written cases whose fused kernel (backend "numba") make test compiles; make test-deep
# compiles it for every case. Together they take every path of the kernel generator, which
# make test checks (--check-kernel-paths, tests/conftest.py). Made by tests/support/fused_sample.py.
"""


def pick(paths_by_test: dict[str, list[str]]) -> list[str]:
    """Test ids that together take every path any candidate takes, greedily.

    >>> pick({"a[numba]": ["x", "y"], "b[numba]": ["y"], "c[numba]": ["z"], "d": ["w"]})
    ['a[numba]', 'c[numba]']
    """
    candidates = {k: set(v) for k, v in paths_by_test.items() if "numba" in k.rsplit("[", 1)[-1]}
    taken: set[str] = set()
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
    chosen = pick(recorded)
    SAMPLE.write_text(HEADER + "".join(f"{k}\n" for k in sorted(chosen)))
    print(f"{len(chosen)} cases written to {SAMPLE}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
