"""prunekit under ``dialect="datafusion"`` and ``"duckdb"`` against each engine's rows on the
grid of operands and literal forms (tests/support/engine_grid.py): a fixed sample within make
test's budget, a larger one in the deep tier, and a broken classifier caught by the same
check. The long form is ``python -m tests.support.engine_grid --predicates 60000 [--engine
duckdb]``.
"""

from __future__ import annotations

import numpy as np
import pytest

import prunekit as pk

pytest.importorskip("datafusion", reason="datafusion runs the predicates")
pytest.importorskip("duckdb", reason="duckdb runs the predicates")

from tests.support import engine_grid as grid  # noqa: E402 - after the skip

# (a sample's size and seed, and the floors it must reach: about half of what it gives)
SAMPLES = {"datafusion": (250, 11, 1400, 1100, 80), "duckdb": (250, 11, 1500, 450, 35)}


def _no_failure(summary: grid.Summary) -> str:
    return "\n".join([summary.line(), *map(str, summary.unsound[:20]),
                      *map(str, summary.refused[:20])])


@pytest.mark.parametrize("engine", sorted(SAMPLES))
def test_a_sample_of_the_grid_is_sound_and_not_vacuous(engine):
    """250 predicates (about 4 s each): no group decided against the engine's rows, nothing
    it runs refused; and the sample has something to bite on."""
    size, seed, groups, decided, in_full = SAMPLES[engine]
    summary = grid.sample(size, seed=seed, engine=engine)
    assert not summary.unsound and not summary.refused, _no_failure(summary)
    assert summary.groups >= groups and summary.decided >= decided, summary.line()
    assert summary.read_in_full >= in_full, summary.line()


@pytest.mark.deep
@pytest.mark.parametrize("engine", sorted(SAMPLES))
def test_a_larger_sample_of_the_grid_is_sound(engine):
    summary = grid.sample(4000, seed=12, engine=engine)
    assert not summary.unsound and not summary.refused, _no_failure(summary)


@pytest.mark.parametrize("answer", [pk.NONE_MATCH, pk.ALL_MATCH])
def test_a_broken_classifier_is_caught_on_the_grid(answer, monkeypatch):
    """A classifier answering NONE_MATCH (or ALL_MATCH) for every group is unsound on the
    first predicates."""
    monkeypatch.setattr(pk.PruningPredicate, "classify", lambda self, stats, *, backend="auto":
                        np.full(len(stats), answer, np.int8))
    assert grid.sample(20, seed=11).unsound
    assert grid.sample(20, seed=11, engine="duckdb").unsound
