"""What makes an outcome sound for a container of known rows (docs/semantics.md §3), checked
row by row against the reference evaluator (``tests/support/reference.py``): the judge of every
property test.

- NONE_MATCH: no row makes the predicate TRUE;
- ALL_MATCH: every row makes the predicate TRUE;
- a container whose statistics say ``row_count == 0`` is NONE_MATCH.
"""

from __future__ import annotations

import numpy as np

import prunekit as pk
from tests.support import reference as ref
from tests.support import strategies as strat

NAMES = {pk.NONE_MATCH: "NONE_MATCH", pk.MAYBE_MATCH: "MAYBE_MATCH", pk.ALL_MATCH: "ALL_MATCH"}


def row_truths(example: strat.Example) -> list[list[bool | None]]:
    """The reference value of the predicate for every row of every container."""
    types = example.types
    return [[ref.evaluate(example.predicate, types, row) for row in rows]
            for rows in example.containers]


def violations(example: strat.Example, outcome, truths=None) -> list[str]:
    """Every container whose outcome claims more than its rows allow."""
    truths = row_truths(example) if truths is None else truths
    out = []
    assert len(outcome) == len(example.containers)
    for i, (o, ts) in enumerate(zip(np.asarray(outcome).tolist(), truths, strict=True)):
        if o not in NAMES:
            out.append(f"container {i}: outcome {o!r} is not an outcome")
        elif example.row_counts[i] == 0 and o != pk.NONE_MATCH:
            out.append(f"container {i}: row_count == 0 but {NAMES[o]}")
        elif o == pk.NONE_MATCH and any(t is True for t in ts):
            out.append(f"container {i}: NONE_MATCH but row values {ts}")
        elif o == pk.ALL_MATCH and any(t is not True for t in ts):
            out.append(f"container {i}: ALL_MATCH but row values {ts}")
    return out


def assert_sound(example: strat.Example, outcome, label: str = "") -> None:
    bad = violations(example, outcome)
    assert not bad, (f"unsound {label} outcome {np.asarray(outcome).tolist()}:\n" +
                     "\n".join(bad) + "\n" + example.describe())
