"""prunekit under ``dialect="datafusion"`` against DataFusion's rows on the grid of operands and
literal forms (tests/support/datafusion_grid.py): a fixed sample within make test's budget, a
larger one in the deep tier, and a broken classifier caught by the same check. The long form
is ``python -m tests.support.datafusion_grid --predicates 60000``.
"""

from __future__ import annotations

import numpy as np
import pytest

import prunekit as pk

pytest.importorskip("datafusion", reason="datafusion runs the predicates")

from tests.support import datafusion_grid as grid  # noqa: E402 - after the skip


def _no_failure(summary: grid.Summary) -> str:
    return "\n".join([summary.line(), *map(str, summary.unsound[:20]),
                      *map(str, summary.refused[:20])])


def test_a_sample_of_the_grid_is_sound_and_not_vacuous():
    """250 predicates (about 4 s): no group decided against DataFusion's rows, nothing
    DataFusion plans refused; and the sample has something to bite on (floors about half of
    what this seed gives)."""
    summary = grid.sample(250, seed=11)
    assert not summary.unsound and not summary.refused, _no_failure(summary)
    assert summary.groups >= 1400 and summary.decided >= 1100, summary.line()
    assert summary.read_in_full >= 80, summary.line()


@pytest.mark.deep
def test_a_larger_sample_of_the_grid_is_sound():
    summary = grid.sample(4000, seed=12)
    assert not summary.unsound and not summary.refused, _no_failure(summary)


@pytest.mark.parametrize("answer", [pk.NONE_MATCH, pk.ALL_MATCH])
def test_a_broken_classifier_is_caught_on_the_grid(answer, monkeypatch):
    """A classifier answering NONE_MATCH (or ALL_MATCH) for every group is unsound on the
    first predicates."""
    monkeypatch.setattr(pk.PruningPredicate, "classify", lambda self, stats, *, backend="auto":
                        np.full(len(stats), answer, np.int8))
    assert grid.sample(20, seed=11).unsound
