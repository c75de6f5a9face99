"""explain(): without statistics the program text; with statistics, per container outcomes and
per conjunct and leaf how many containers each rules out alone; HTML for notebooks."""

import numpy as np
import pyarrow as pa
import pytest

import prunekit as pk

SCHEMA = pa.schema([("x", pa.int64()), ("y", pa.int64())])


def stats(xs, ys):
    """Containers from (min, max) pairs of x and y, 10 rows, no NULLs."""
    return pk.Statistics.from_numpy(row_count=np.full(len(xs), 10), columns={
        c: {"min": np.array([a for a, _ in v]), "max": np.array([b for _, b in v]),
            "null_count": np.zeros(len(v), np.int64)} for c, v in (("x", xs), ("y", ys))})


def alone(sql, s):
    return int((pk.PruningPredicate(sql, SCHEMA).classify(s) == pk.NONE_MATCH).sum())


def test_without_statistics_is_the_program_text():
    text = pk.PruningPredicate("x > 5", SCHEMA).explain()
    assert isinstance(text, str) and "may be TRUE" in text and text.startswith("predicate: x > 5")


def test_conjunct_counts_and_container_outcomes():
    s = stats([(0, 4), (6, 9), (0, 9), (6, 9)], [(0, 3), (0, 3), (-5, 3), (-9, -1)])
    pred = pk.PruningPredicate("x > 5 AND y < 0", SCHEMA)
    e = pred.explain(s)
    assert e.outcomes.tolist() == pred.classify(s).tolist() == [0, 0, 1, 2]
    assert [c.ruled_out for c in e.conjuncts] == [1, 2]
    assert e.counts() == {"NONE_MATCH": 2, "MAYBE_MATCH": 1, "ALL_MATCH": 1}
    text = str(e)
    assert "container 0: NONE_MATCH  (ruled out by conjuncts 1, 2)" in text
    assert "container 3: ALL_MATCH" in text


@pytest.mark.parametrize("sql", ["NOT (x > 5) OR y < 0", "(x > 5 OR y < 0) AND NOT y = 1",
                                 "x BETWEEN 2 AND 7 AND (y IS NULL OR NOT (x < 3 OR y > 2))"])
def test_each_node_counts_its_own_outcome(sql):
    rng = np.random.default_rng(len(sql))
    lo = rng.integers(-5, 10, (2, 30))
    s = stats(list(zip(lo[0], lo[0] + rng.integers(0, 4, 30), strict=True)),
              list(zip(lo[1], lo[1] + rng.integers(0, 4, 30), strict=True)))
    e = pk.PruningPredicate(sql, SCHEMA).explain(s)
    leaves = [nd for nd in e.nodes if nd.label not in ("AND", "OR", "NOT")]
    assert leaves
    for nd in leaves:  # a leaf alone is the predicate made of that leaf
        assert nd.ruled_out == alone(nd.label, s), nd.label
    root = e.nodes[0]
    assert root.ruled_out == int((e.outcomes == 0).sum())
    for c in e.conjuncts:  # AND: a conjunct ruling a container out rules the whole out
        assert not (c.none & ~root.none).any()


def test_long_listing_is_cut_and_html_escapes():
    s = stats([(i, i + 1) for i in range(30)], [(0, 1)] * 30)
    e = pk.PruningPredicate("x < 3 AND y <> 7", SCHEMA).explain(s)
    assert "... 10 more containers" in str(e)
    page = e._repr_html_()
    assert "<table>" in page and "x &lt; 3" in page and "x < 3" not in page
    assert "x &lt; 3" in pk.PruningPredicate("x < 3", SCHEMA)._repr_html_()


def test_explain_accepts_arrow_statistics_and_unknown_bounds():
    x = pa.StructArray.from_arrays([pa.array([0, None]), pa.array([4, None]),
                                    pa.array([0, 0], pa.int64())], ["min", "max", "null_count"])
    e = pk.PruningPredicate("x > 5", SCHEMA).explain(pa.table({"row_count": [5, 5], "x": x}))
    assert e.outcomes.tolist() == [0, 1] and e.nodes[0].ruled_out == 1
