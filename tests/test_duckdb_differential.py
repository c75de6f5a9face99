"""prunekit under ``dialect="duckdb"`` against DuckDB's own rows
(tests/support/duckdb_differential.py) within make test's budget: a fixed range of seeds
(random Parquet files written by pyarrow and by DuckDB, random predicates in DuckDB's SQL),
every saved reproducer (tests/regressions/duckdb/duckdb-*.json) replayed, and a broken
classifier caught by the same checks. The long form is ``python -m
tests.support.duckdb_differential --minutes 10``.

A saved case whose JSON names a ``known_unsound`` construct (a key of
``duckdb_differential.KNOWN_UNSOUND``) is a strict xfail until the library reads that construct
soundly.
"""

from __future__ import annotations

import json

import numpy as np
import pytest

import prunekit as pk
from tests.support import duckdb_differential as dd

SEED0 = 7_000  # the bounded run's seeds (the long run starts from the clock)
DATASETS = 14  # about 5 s on the 2-core VM in its fast hours, 8 in its slow ones
PREDICATES = 20


@pytest.mark.slow
def test_bounded_run_is_sound_and_not_vacuous(tmp_path):
    """One test, not one per check: under xdist each worker would run a shared fixture's
    seeds again."""
    summary = dd.run(datasets=DATASETS, seed=SEED0, predicates=PREDICATES,
                     save_failures=False, scratch=tmp_path)
    text = summary.text()
    assert summary.unsound == 0, text
    assert summary.crashes == 0, text  # prunekit raises PrunekitError or nothing
    assert not summary.failures, text
    # Not vacuous: each check had something to bite on. The floors are about half of what
    # these seeds give (checked when they were chosen), so a generator that stops reaching a
    # kind of outcome fails here rather than making the run pass by deciding nothing.
    k = summary.datasets
    assert k == DATASETS and summary.files == {"pyarrow": k // 2, "duckdb": k // 2}, text
    assert summary.groups_checked >= 500, text
    assert summary.none_match >= 90 and summary.all_match >= 50, text
    # Predicates read in full and predicates with unknown leaves both decide row groups.
    assert summary.fully_read >= 35 and summary.with_unknown >= 100, text
    assert summary.decided_fully_read >= 80 and summary.decided_with_unknown >= 65, text
    # DuckDB's run-time errors (overflow, division by zero, conversions) are reached.
    assert sum(summary.errors.values()) >= 30, text
    # Nearly every predicate is valid DuckDB and read by prunekit: the run tests pruning,
    # not the generator's mistakes.
    assert sum(summary.duckdb_refused.values()) <= 0.05 * summary.predicates, text
    assert summary.refused <= 0.1 * summary.predicates, text


# ---- saved reproducers ----------------------------------------------------------------------
CASES = dd.saved_cases()


def _replay_params():
    out = []
    for path in CASES:
        known = json.loads(path.read_text(encoding="utf-8")).get("known_unsound")
        marks = [pytest.mark.xfail(strict=True, reason=f"{known}: {dd.KNOWN_UNSOUND[known]}")
                 ] if known else []
        out.append(pytest.param(path, id=path.stem, marks=marks))
    return out


@pytest.mark.parametrize("path", _replay_params())
def test_saved_case_replays_soundly(path, tmp_path):
    res = dd.replay(path, tmp_path)
    # The case must still be checked, not skipped: DuckDB runs it on every group and
    # prunekit answers it.
    assert res.duckdb_refused is None and res.pk_error is None and res.crash is None, res
    assert res.counts and not any(isinstance(k, str) for k in res.counts), res.counts
    assert not res.unsound, f"{path.name}: {res.unsound} ({res.text})"


def test_saved_cases_exist_and_name_known_constructs():
    """An empty directory must not make the replay pass vacuously; a known construct must be
    one KNOWN_UNSOUND describes (its reason is the xfail's)."""
    assert CASES
    for path in CASES:
        d = json.loads(path.read_text(encoding="utf-8"))
        assert d["kind"] == "duckdb" and d["predicate"] and d["row_groups"], path.name
        assert d.get("known_unsound") in (None, *dd.KNOWN_UNSOUND), path.name


# ---- the checks can fail --------------------------------------------------------------------
@pytest.mark.parametrize("answer", [pk.NONE_MATCH, pk.ALL_MATCH])
def test_a_broken_classifier_is_caught(answer, monkeypatch, tmp_path):
    """A classifier answering NONE_MATCH (or ALL_MATCH) for every group is unsound on the
    first datasets: the comparison with DuckDB's rows sees it."""
    monkeypatch.setattr(pk.PruningPredicate, "classify", lambda self, stats, *, backend="auto":
                        np.full(len(stats), answer, np.int8))
    broken = dd.run(datasets=2, seed=SEED0, predicates=5, save_failures=False,
                    scratch=tmp_path)
    assert broken.unsound > 0, broken.text()
