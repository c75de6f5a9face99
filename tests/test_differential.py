"""Differential suite: random Parquet datasets x random predicates, prunekit against
the reference evaluator (soundness) and against DataFusion's row-group pruning (tightness).

``test_differential_run`` is the bounded CI run: its report (datasets, predicates, row groups,
unsound, groups DataFusion prunes more and why) is printed to the terminal whatever the capture
mode, and written to ``.pytest_cache/differential-report.txt`` (and ``.json``). ``make fuzz``
runs the same checks for longer (``tests/support/fuzz.py``) and writes shrunk failing cases into
``tests/regressions/``, which ``test_regression_replays`` replays here. A case whose JSON has a
``known_bug`` field is expected to fail (strict xfail) until that bug is fixed.
"""

from __future__ import annotations

import json
import math
import tempfile
from pathlib import Path

import numpy as np
import pyarrow as pa
import pytest

import prunekit as pk
from prunekit.expr.syntax import nodes as n
from tests.support import differential as diff

CI_SEED0 = 1_000  # datasets from seed CI_SEED0 on, as many as the budget (fuzz runs use others)
CI_PREDICATES = 25
REPORT_DIR = Path(__file__).parent.parent / ".pytest_cache"
CASES = sorted(diff.REGRESSIONS.glob("*.json"))
HANDMADE = [p for p in CASES if p.name.startswith("handmade-")]


@pytest.fixture
def root(tmp_path):
    return tmp_path


# ---- the bounded run ------------------------------------------------------------------------
@pytest.mark.slow
def test_differential_run(capsys, examples):
    """``examples`` datasets (tests/conftest.py), CI_PREDICATES predicates each."""
    seeds = range(CI_SEED0, CI_SEED0 + examples)
    report = diff.run(seeds, CI_PREDICATES, save_failures=False)
    text = report.text()
    REPORT_DIR.mkdir(exist_ok=True)
    (REPORT_DIR / "differential-report.txt").write_text(text + "\n", encoding="utf-8")
    (REPORT_DIR / "differential-report.json").write_text(
        json.dumps(report.to_json(), indent=1, ensure_ascii=False) + "\n", encoding="utf-8")
    with capsys.disabled():
        print("\n" + text)
    assert report.unsound == 0, text
    assert not report.failures, text  # unsound, SQL/tree mismatch, unexplained, crash
    assert "unexplained" not in report.df_more, text
    assert not [e for e in report.pk_errors if e.startswith("crash")], text
    # Not vacuous: the run covers many groups, decisive outcomes and DataFusion comparisons
    # (per dataset, about half of what the first 30 give: 150 groups, 57 NONE_MATCH, 33
    # ALL_MATCH, 42 groups DataFusion prunes).
    k = len(seeds)
    assert report.datasets == k
    assert report.groups_checked >= 80 * k, text
    assert report.none_match >= 25 * k and report.all_match >= 15 * k, text
    assert report.df_predicates >= 0.9 * report.predicates, text
    assert report.df_pruned >= 20 * k, text
    assert report.reader == "prunekit.parquet", "the suite must test the Parquet reader"


# ---- replays --------------------------------------------------------------------------------
def _replay_params():
    out = []
    for path in CASES:
        d = json.loads(path.read_text(encoding="utf-8"))
        marks = [pytest.mark.xfail(strict=True, reason=d["known_bug"])] if d.get(
            "known_bug") else []
        out.append(pytest.param(path, id=path.stem, marks=marks))
    return out


@pytest.mark.parametrize("path", _replay_params())
def test_regression_replays(path, root):
    ds, tree, d = diff.load_case(path)
    assert tree.sql() == d["spark_sql"], "the JSON tree and its SQL text disagree"
    res = diff.check_case(ds, tree, root)
    assert res.error is None, res.error
    assert not res.unsound, f"{path.name}: {res.unsound}\n{d['note']}"
    assert res.roundtrip is None, res.roundtrip
    unexplained = {k: v for k, v in res.df_more.items() if v.startswith("unexplained")}
    assert not unexplained, f"{path.name}: DataFusion prunes more, unexplained: {unexplained}"


def test_regression_cases_exist():
    """An empty directory must not make the replay pass vacuously."""
    assert len(HANDMADE) >= 8, [p.name for p in CASES]
    for path in CASES:
        ds, tree, d = diff.load_case(path)
        assert d["kind"] in ("handmade", "unsound", "unexplained", "roundtrip", "crash",
                             "datafusion")
        assert ds.groups and all(ds.groups)


def test_replay_fails_on_a_broken_classifier(monkeypatch, root):
    """The replay's check is not vacuous: a classifier that answers NONE_MATCH (or ALL_MATCH)
    everywhere is caught on the hand-made cases, and so is DataFusion's NaN-blind pruning."""
    truths = {p: diff.check_case(*diff.load_case(p)[:2], root, datafusion=False).truths
              for p in HANDMADE}
    for answer, name in ((0, "NONE_MATCH"), (2, "ALL_MATCH")):
        monkeypatch.setattr(pk.PruningPredicate, "classify", lambda self, stats, *, backend=
                            "numba", a=answer: np.full(len(stats), a, np.int8))
        caught = [p.name for p in HANDMADE if diff.check_case(
            *diff.load_case(p)[:2], root, datafusion=False).unsound]
        expected = [p.name for p, ts in truths.items() if any(
            (t is True) if answer == 0 else (t is not True) for g in ts for t in g)]
        assert caught == expected and len(caught) >= 4, (name, caught, expected)


def test_datafusion_nan_blind_pruning_is_unsound_and_categorized(root):
    """DataFusion prunes ``f > 5`` on a group [1.0, NaN] from max = 1.0: the check calls that
    unsound (the NaN row is TRUE), and the harness attributes it per group."""
    (path,) = [p for p in HANDMADE if "f > CAST(5.0" in p.read_text(encoding="utf-8")]
    ds, tree, _ = diff.load_case(path)
    res = diff.check_case(ds, tree, root)
    df_outcomes = [1 if k else 0 for k in res.df_kept]
    assert diff.violations(df_outcomes, res.truths), (res.df_kept, res.truths)
    assert res.df_more == {0: "df-unsound-nan", 1: "nan-no-nan-count"}
    assert res.outcomes == [1, 1] and not res.unsound


# ---- pieces ---------------------------------------------------------------------------------
def test_json_round_trip(root):
    rng = np.random.default_rng(7)
    for _ in range(20):
        ds = diff.random_dataset(rng)
        tree = diff.predicate(rng, ds, diff.column_samples(ds))
        d = json.loads(json.dumps(diff.case_json(ds, tree, "unsound", 7, None)))
        ds2, tree2 = diff.Dataset.from_json(d), diff.tree_from_json(d["predicate"])
        assert tree2.same_as(tree) and tree2.sql() == tree.sql()
        assert diff.df_sql(tree2, ds2.types) == diff.df_sql(tree, ds.types)
        assert ds2.columns == ds.columns and ds2.options == ds.options
        for g1, g2 in zip(ds.groups, ds2.groups, strict=True):
            for r1, r2 in zip(g1, g2, strict=True):
                assert [repr(r1[c]) for c in r1] == [repr(r2[c]) for c in r1]


def test_shrinker_minimizes(root):
    """A failure that needs one row holding NULL in column 'a' and a predicate naming 'a'
    shrinks to one group of one row and a single leaf."""
    rng = np.random.default_rng(3)
    while True:
        ds = diff.random_dataset(rng)
        if len(ds.groups) > 2 and any(r["a"] is None for g in ds.groups for r in g):
            break
    leaf = n.IsNull(n.Column("a"))
    tree = n.And((n.Or((leaf, n.Literal(True))), n.Not(n.Literal(False))))

    def fails(d, t):
        return any(r["a"] is None for g in d.groups for r in g) and any(
            isinstance(x, n.Column) and x.name == "a" for x in t.walk())

    small, small_tree = diff.shrink(ds, tree, fails)
    assert len(small.groups) == 1 and len(small.groups[0]) == 1
    assert [c for c, _ in small.columns] == ["a"]
    assert small_tree.same_as(leaf) or small_tree.same_as(n.Column("a")) or \
        len(list(small_tree.walk())) <= 2


def test_parse_scans():
    line = ("  DataSourceExec: file_groups={1 group: [[tmp/x/g3.parquet]]}, projection=[x], "
            "metrics=[output_rows=2, files_ranges_pruned_statistics=1 total → 1 matched, "
            "row_groups_pruned_statistics=3 total → 2 matched -> 1 fully matched, "
            "row_groups_pruned_bloom_filter=1 total → 1 matched]")
    (s,) = diff.parse_scans("FilterExec: x@0 > 4\n" + line)
    assert (s.file, s.total, s.kept, s.fully) == ("g3.parquet", 3, 2, 1)
    pruned = line.replace("files_ranges_pruned_statistics=1 total → 1 matched",
                          "files_ranges_pruned_statistics=1 total → 0 matched")
    assert diff.parse_scans(pruned)[0].kept == 0


def test_self_compare_rewrite_is_equivalent():
    types = {"f": pa.float64()}
    for op in n.Op:
        tree = n.Compare(op, n.Column("f"), n.Column("f"))
        other = diff.without_self_compare(tree)
        for v in (None, math.nan, -0.0, 1.5):
            row = {"f": v}
            assert diff.ref.evaluate(tree, types, row) == diff.ref.evaluate(other, types, row)


def test_footer_reader_agrees_with_prunekit_parquet():
    """The harness's own footer reader (its fallback) and prunekit.parquet agree on bounds and
    null counts (prunekit's may widen zeros and add exactness flags)."""
    rng = np.random.default_rng(11)
    with tempfile.TemporaryDirectory() as tmp:
        for k in range(15):
            ds = diff.random_dataset(rng)
            path = Path(tmp) / f"{k}.parquet"
            diff.write_parquet(ds, path)
            mine = diff.footer_statistics(path)
            theirs, reader = diff.read_statistics(path)
            assert reader == "prunekit.parquet"
            for c, t in ds.columns:
                a, b = mine.column(c).to_pylist(), theirs.column(c).to_pylist()
                for x, y in zip(a, b, strict=True):
                    assert x["null_count"] == y["null_count"]
                    if pa.types.is_floating(t):
                        continue  # zeros widened, NaN bounds dropped
                    assert (x["min"], x["max"]) == (y["min"], y["max"]), (c, t, x, y)
