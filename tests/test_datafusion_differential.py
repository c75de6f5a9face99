"""prunekit under ``dialect="datafusion"`` against DataFusion's own rows and DataFusion's own
row-group pruning (tests/support/datafusion_differential.py) within make test's budget: a fixed
range of seeds (random Parquet files written by pyarrow and by DuckDB, random predicates in
DataFusion's SQL), every saved reproducer (tests/regressions/datafusion/datafusion-*.json)
replayed, and broken classifiers caught by the same checks. The long form is ``python -m
tests.support.datafusion_differential --minutes 10``.

The bounded run is made once per process and read by two tests: soundness (never to be
weakened) and pruning power (prunekit skips every row group DataFusion's statistics pruning
skips, except where DataFusion is unsound, assumes no float is NaN or takes a zero bound for
both zeros), which can be marked expected to fail on its own while the dialect's rules are
incomplete. A saved case whose JSON names a ``known_unsound`` construct (a key of
``datafusion_differential.KNOWN_UNSOUND``) is a strict xfail until the library reads that
construct soundly.
"""

from __future__ import annotations

import functools
import json

import numpy as np
import pytest

import prunekit as pk
from tests.support import datafusion_differential as dfd

SEED0 = 9_000  # the bounded run's seeds (the long run starts from the clock)
DATASETS = 24  # about 5 s on the 2-core VM in its fast hours, 8 in its slow ones
PREDICATES = 20


@functools.cache
def bounded_run() -> dfd.Summary:
    """One run for the tests below (under xdist, once per worker that runs one of them)."""
    return dfd.run(datasets=DATASETS, seed=SEED0, predicates=PREDICATES, save_failures=False)


@pytest.mark.slow
def test_bounded_run_is_sound_and_not_vacuous():
    summary = bounded_run()
    text = summary.text()
    assert summary.dialect == "datafusion", text
    assert summary.unsound == 0, text
    assert summary.refused == 0, text  # an unmodelled construct is an unknown leaf, no error
    assert summary.crashes == 0, text  # prunekit raises PrunekitError or nothing
    assert not summary.failures, text
    # Not vacuous: each check had something to bite on. The floors are about half of what
    # these seeds give (checked when they were chosen), so a generator that stops reaching a
    # kind of outcome fails here rather than making the run pass by deciding nothing.
    k = summary.datasets
    assert k == DATASETS and summary.files == {"pyarrow": k // 2, "duckdb": k // 2}, text
    assert summary.groups >= 800, text
    assert summary.none_match >= 180 and summary.all_match >= 150, text
    assert summary.df_skipped >= 230, text  # DataFusion's pruning has something to show
    assert summary.fully_read >= 75, text  # read without an unknown leaf
    floors = {"comparison": 75, "fraction": 75, "exponent": 20, "arithmetic": 60,
              "function": 30, "cast": 60, "in": 45, "between": 40, "isnull": 30,
              "distinct": 40, "like": 8, "date": 30, "timestamp": 15}
    assert all(summary.kinds[kind] >= floor for kind, floor in floors.items()), text
    # DataFusion's run-time errors (division by zero, overflowing casts) are reached.
    assert sum(summary.df_runtime_errors.values()) >= 12, text
    # The run tests pruning, not the generator's mistakes: DataFusion plans nearly all of it.
    assert sum(summary.df_refused.values()) <= 0.15 * summary.predicates, text
    # Which groups DataFusion skips is read off the rows its scan returns; its own metric
    # must say as many.
    assert summary.metric_mismatch == 0, text


# What dialect="datafusion" does not read yet, from the shrunk predicates of the long runs (each an
# unknown leaf, or a reading whose bounds decide less, where DataFusion's own statistics pruning
# skips groups; none occurs in the bounded run's seeds): where its optimizer's common-expression
# column (a cast of a column used twice, made a column of its own) changes what its simplifier
# then does (a FLOAT's list of three items or fewer beside a bound becomes equalities, which take
# 0 and -0.0 for one); BETWEEN a AND a beside `<> 0` on a FLOAT under NOT, and a float's `< -0.0`
# beside `= 0` (zeros of two signs it may weigh apart); a DOUBLE's NOT IN or IS DISTINCT FROM
# holding a zero, on a group of one row DuckDB writes (its bounds are its first zero, so
# DataFusion may take them for that zero's sign); lists with a NULL item, or a LIKE without
# wildcards (an `=` there), merged with another list; `<>` under two NOTs (read as if a merge
# might come before the NOTs cancel); a list on -x or on an unsigned column's `u / 1` with REAL
# items or numbers beyond BIGINT; a BETWEEN whose two bounds its optimizer folds to one
# (`BETWEEN 11 AND CAST(11 AS FLOAT)`, `BETWEEN 1158 AND 1.158E+3`: an `=` there); and a LIKE on
# a one-character substring. Seeds 93000000 to 93002399 give 11 such predicates of 60,000.


@pytest.mark.slow
def test_prunekit_skips_every_group_datafusion_skips():
    """Where DataFusion's statistics pruning skips a row group, prunekit says NONE_MATCH too
    (groups DataFusion skips unsoundly, or only by assuming that no float is NaN, aside)."""
    summary = bounded_run()
    assert summary.groups, summary.text()
    weaker = [f"{text}   ({types}; {writer}; groups {groups}; seed {seed})"
              for text, groups, types, writer, seed in summary.weaker]
    assert not weaker, "DataFusion skips more:\n" + "\n".join(weaker)


# ---- saved reproducers ----------------------------------------------------------------------
CASES = dfd.saved_cases()


def _replay_params():
    out = []
    for path in CASES:
        known = json.loads(path.read_text(encoding="utf-8")).get("known_unsound")
        marks = [pytest.mark.xfail(strict=True, reason=f"{known}: {dfd.KNOWN_UNSOUND[known]}")
                 ] if known else []
        out.append(pytest.param(path, id=path.stem, marks=marks))
    return out


@pytest.mark.parametrize("path", _replay_params())
def test_saved_case_replays_soundly(path, tmp_path):
    res = dfd.replay(path, tmp_path)
    # The case must still be checked, not skipped: DataFusion runs it and prunekit answers.
    assert res.df_refused is None and res.df_runtime_error is None, res
    assert res.pk_error is None and res.crash is None, res
    assert not res.unsound, f"{path.name}: {res.unsound} ({res.text})"


def test_saved_cases_exist_and_name_known_constructs():
    """An empty directory must not make the replay pass vacuously; a known construct must be
    one KNOWN_UNSOUND describes (its reason is the xfail's)."""
    assert CASES
    for path in CASES:
        d = json.loads(path.read_text(encoding="utf-8"))
        assert d["kind"] == "datafusion" and d["predicate"] and d["row_groups"], path.name
        assert d.get("known_unsound") in (None, *dfd.KNOWN_UNSOUND), path.name


# ---- the checks can fail --------------------------------------------------------------------
@pytest.mark.parametrize("answer", [pk.NONE_MATCH, pk.ALL_MATCH])
def test_a_broken_classifier_is_caught(answer, monkeypatch, tmp_path):
    """A classifier answering NONE_MATCH (or ALL_MATCH) for every group is unsound on the
    first datasets: the comparison with DataFusion's rows sees it."""
    monkeypatch.setattr(pk.PruningPredicate, "classify", lambda self, stats, *, backend="auto":
                        np.full(len(stats), answer, np.int8))
    broken = dfd.run(datasets=2, seed=SEED0, predicates=5, save_failures=False,
                     scratch=tmp_path)
    assert broken.unsound > 0, broken.text()


def test_a_classifier_that_never_prunes_is_weaker(monkeypatch, tmp_path):
    """MAYBE_MATCH everywhere is sound, and weaker than DataFusion wherever it prunes: the
    pruning-power check sees it."""
    monkeypatch.setattr(pk.PruningPredicate, "classify", lambda self, stats, *, backend="auto":
                        np.full(len(stats), pk.MAYBE_MATCH, np.int8))
    lazy = dfd.run(datasets=2, seed=SEED0, predicates=5, save_failures=False,
                   shrink_weaker=False, scratch=tmp_path)
    assert lazy.unsound == 0 and lazy.weaker_groups > 0, lazy.text()


def test_a_skip_that_a_zero_of_the_other_sign_breaks_is_datafusions(tmp_path):
    """pyarrow writes a zero bound as -0.0 below and 0.0 above, whatever the sign of the zeros:
    a group of -0.0 has the statistics of a group of 0.0. DataFusion's pruning reads ``f NOT
    IN (1.0, -0.0, 1.5, -0.0)`` as if the two zeros were one and skips the group, while its set
    of four numbers tells them apart and returns a 0.0. The witness sees it; a group of other
    numbers has no witness, and a DOUBLE list of three (no set) takes the zeros for equal."""
    import pyarrow as pa

    ds = dfd.Dataset([("f", pa.float64())], [[{"f": -0.0}], [{"f": 5.0}]])
    with dfd.Workspace(ds, tmp_path, "pyarrow") as ws:
        res = ws.check('"f" NOT IN (1.0, -0.0, 1.5, -0.0)')
        assert res.df_kept == [False, True] and res.counts == [0, 1], res
        assert res.zero_rule == [0] and not res.weaker, res
        assert not ws.zero_witness('"f" NOT IN (1.0, -0.0, 1.5, -0.0)', 1)
        assert not ws.zero_witness('"f" NOT IN (1.0, -0.0, 1.5)', 0)


def test_a_skip_that_a_second_zero_of_the_other_sign_breaks_is_datafusions(tmp_path):
    """DuckDB writes the first zero it meets as both bounds: a group of 0.0, NULL, 0.0 has the
    statistics of one of 0.0, NULL, -0.0. DataFusion's pruning skips it for ``c NOT IN (0.0,
    12.0, 6.5, 1e-3)``, whose set of four tells -0.0 from 0.0 and returns a -0.0. The witness
    writes the variant as the file's writer does and sees it (found by the DataFusion
    differential, seed 92000727); a group of one 0.0 (a lone -0.0 would be its own bounds) has
    none."""
    import pyarrow as pa

    ds = dfd.Dataset([("c", pa.float64())], [[{"c": 0.0}, {"c": None}, {"c": 0.0}],
                                             [{"c": 0.0}]])
    text = '"c" NOT IN (0.0, 12.0, 6.5, 1e-3)'
    with dfd.Workspace(ds, tmp_path, "duckdb", row_group_size=3) as ws:
        res = ws.check(text)
        assert res.df_kept == [False, False] and res.counts == [0, 0], res
        assert ws.zero_witness(text, 0) and not ws.zero_witness(text, 1)
        assert res.zero_rule == [0] and res.weaker == [1], res


def test_a_skip_that_a_nan_of_the_other_sign_breaks_is_datafusions(tmp_path):
    """DataFusion's pruning reads ``-s <> 128`` of a TINYINT as ``s <> -128``, which takes no
    account of -128's negation wrapping to -128, and skips a group of -128s. No row of it is
    returned, as its NaN sorts above -2.5; the same group with that NaN's sign bit set has
    the same statistics (bounds leave NaNs out) and returns the row: the witness sees it
    (found by the DataFusion differential, seed 91001905). A group without a NaN or a zero
    has none."""
    import math

    import pyarrow as pa

    ds = dfd.Dataset([("s", pa.int8()), ("f", pa.float64())],
                     [[{"s": -128, "f": math.nan}, {"s": -128, "f": 1e300}],
                      [{"s": -128, "f": 2.0}]])
    text = '(-"s") <> 128 AND "f" NOT BETWEEN -2.5 AND NULL'
    with dfd.Workspace(ds, tmp_path, "pyarrow") as ws:
        res = ws.check(text)
        assert res.df_kept[0] is False and res.counts[0] == 0 and 0 not in res.weaker, res
        assert ws.zero_witness(text, 0)
        assert not ws.zero_witness(text, 1)


def test_a_skip_on_a_term_the_group_holds_a_row_of_is_datafusions(tmp_path):
    """DataFusion's pruning reads ``-c <= -19`` of a TINYINT as ``c >= 19``, which takes no
    account of -128, whose negation wraps to -128: it skips a group of -128 and -9 on that
    term, though the group holds a row the term returns, and no row passes ``c * 2 = -18``
    beside it there but -9's. No row passes both, but DataFusion's skip rests on a term it
    prunes wrongly and on none it prunes soundly: the witness sees it (found by the
    DataFusion differential, seed 91001366). A group of 5, which the term's rule skips
    soundly, has none. prunekit skips both groups: the values of ``c * 2 = -18`` taken back
    to ``c`` (-9) meet no value of ``-c <= -19`` (19 and up, and -128)."""
    import pyarrow as pa

    ds = dfd.Dataset([("c", pa.int8())], [[{"c": -128}, {"c": -9}], [{"c": 5}]])
    text = '(-"c") <= -19 AND ("c" * 2) = -18'
    with dfd.Workspace(ds, tmp_path, "pyarrow") as ws:
        res = ws.check(text)
        assert res.df_kept == [False, False] and res.counts == [0, 0], res
        assert res.outcomes == [pk.NONE_MATCH, pk.NONE_MATCH] and not res.weaker, res
        assert ws.term_witness(text, 0) and not ws.term_witness(text, 1)


def test_a_skip_that_rows_of_the_groups_own_values_break_is_datafusions(tmp_path):
    """DataFusion's pruning reads ``-s < -126`` of a TINYINT as ``-max(s) < -126``, which
    takes no account of -128, whose negation wraps to -128: it skips a group of (14, 10) and
    (-128, NULL), where no row passes ``x / 7 > 0`` too, by luck. The same group with a row
    (-128, 10) added has the same statistics and a row DataFusion returns: the witness sees
    it. A column of NULLs only stays so in the rows added (found by the DataFusion
    differential, seed 91001253). A group without -128 has no witness."""
    import pyarrow as pa

    ds = dfd.Dataset([("s", pa.int8()), ("x", pa.int8()), ("n", pa.int8())],
                     [[{"s": 14, "x": 10, "n": None}, {"s": -128, "x": None, "n": None}],
                      [{"s": 14, "x": 10, "n": None}, {"s": -2, "x": None, "n": None}]])
    text = '(("x" / 7) > 0 OR "n" <> "x") AND (-"s") < -126'
    with dfd.Workspace(ds, tmp_path, "pyarrow") as ws:
        res = ws.check(text)
        assert res.df_kept == [False, False] and res.counts == [0, 0], res
        assert res.zero_rule == [0] and not res.weaker, res
        assert not ws.mix_witness(text, 1)


def test_a_skip_of_rows_the_optimizer_drops_is_datafusions(tmp_path):
    """DataFusion 55 plans ``x = 2 AND CAST(2 AS BIGINT) = x`` as an empty relation (its
    simplifier leaves ``2 = x`` unswapped beside ``x = 2``, and its filter push-down then
    folds the pair to FALSE), so it skips the group holding 2 while the predicate as written
    returns that row. The group is listed apart, not as one prunekit should skip; a predicate
    its optimizer keeps, ``x = 2``, has no such group."""
    import pyarrow as pa

    ds = dfd.Dataset([("x", pa.int64())], [[{"x": 2}], [{"x": 5}]])
    with dfd.Workspace(ds, tmp_path, "pyarrow") as ws:
        res = ws.check("x = 2 AND CAST(2 AS BIGINT) = x")
        assert res.df_kept == [False, False] and res.counts == [0, 0], res
        assert ws.returned_as_written("x = 2 AND CAST(2 AS BIGINT) = x") == [1, 0]
        assert res.optimizer_rule == [0] and not res.weaker, res
        assert not ws.check("x = 2").optimizer_rule


def test_a_skip_by_a_wrong_fold_to_false_is_datafusions(tmp_path):
    """Where DataFusion's optimizer folds the whole predicate to FALSE (a plan without a scan),
    it skips every group whatever its statistics. A group whose bounds hold 2 but whose rows
    hold none (1 and 3) is then skipped by ``x = 2 AND CAST(2 AS BIGINT) = x``, while the
    predicate as written returns a row of 2: a table of the file's values and the
    predicate's literals shows the fold wrong, and the group is listed apart. A fold that
    is right (``x = 1 AND x = 2``) has no such row."""
    import pyarrow as pa

    ds = dfd.Dataset([("x", pa.int64())], [[{"x": 1}, {"x": 3}]])
    with dfd.Workspace(ds, tmp_path, "pyarrow") as ws:
        res = ws.check("x = 2 AND CAST(2 AS BIGINT) = x")
        assert res.df_kept == [False] and res.counts == [0] and res.df_metric == 0, res
        assert ws.returned_as_written("x = 2 AND CAST(2 AS BIGINT) = x") == [0]
        assert res.optimizer_rule == [0] and not res.weaker, res
        assert ws.fold_witness("x = 2 AND CAST(2 AS BIGINT) = x")
        assert not ws.fold_witness("x = 1 AND x = 2")
