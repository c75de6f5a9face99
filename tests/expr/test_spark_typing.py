"""Every function and operator prunekit reasons about, over every argument type, in real Spark
(both modes): prunekit's outcomes on containers of the same values are sound, it accepts what
Spark runs as a predicate, and refuses what Spark does not type as a BOOLEAN
(``tests/support/spark_typing.py`` has the tables and the check)."""

from __future__ import annotations

import pytest

from prunekit.expr.binding import bind
from prunekit.expr.syntax import nodes
from tests.support import spark_typing as st

pytest.importorskip("pyspark")
pytestmark = pytest.mark.spark


@pytest.mark.parametrize("name", list(st.TYPES))
def test_sound_against_spark(spark, name):
    found, counts = st.check_type(spark, st.TYPES[name])
    assert counts["checked"] > 150 and counts["not_boolean"] > 20, counts
    assert not found, "\n".join(map(str, found))


@pytest.mark.parametrize("name", list(st.TYPES))
def test_two_columns_sound_against_spark(spark, name):
    # A column against a column of every type: compared, added, multiplied, in a list.
    checked = st.check_pairs(spark, st.TYPES[name], list(st.TYPES.values()))
    found = [v for got, _ in checked for v in got]
    assert sum(counts["checked"] for _, counts in checked) > 0, checked
    assert not found, "\n".join(map(str, found))


def test_every_whitelisted_function_and_comparison_is_covered():
    families = {t.family for t in st.templates()}
    for function in ("year", "month", "day", "dayofmonth", "extract", "date_part", "to_date",
                     "date_trunc", "trunc", "floor", "ceil", "left", "substring", "coalesce_int",
                     "if", "case", "cast", "try_cast", "negate", "isnan", "like", "in", "not in",
                     "between", "distinct", "<=>", "null", "boolean", "x * x", "x + 1",
                     "abs", "sign", "signum", "negative", "round", "round_negative", "bround",
                     "greatest", "least", "unix_seconds", "unix_millis", "unix_micros",
                     "unix_timestamp", "timestamp_seconds", "timestamp_millis",
                     "timestamp_micros", "%", "pmod", "months_between",
                     "from_unixtime"):
        assert function in families, function
    assert {"x * y", "x + y", "x - y", "x / y", "column compare"} <= {
        t.family for t in st.pair_templates()}
    sqls = " ".join(t.sql for t in st.templates())
    for op in st.COMPARISONS:
        assert f"c {op} " in sqls, op
    assert {"int", "bigint", "double", "decimal", "string", "date", "timestamp",
            "boolean"} <= set(st.TYPES)


def test_a_reintroduced_fold_is_caught(spark, monkeypatch):
    # isnan of a string used to fold to FALSE (NONE_MATCH everywhere), though Spark casts the
    # string to DOUBLE and 'NaN' is NaN. Put the fold back: the check must find it.
    def folded(node, kids):
        x = kids[0]
        if isinstance(x, bind.ColOp) and x.col.domain != "float":
            return bind.b.BConst(False)
        return bind._is_nan(node, kids)

    monkeypatch.setitem(bind._BIND, nodes.IsNan, folded)
    found, _ = st.check_type(spark, st.TYPES["string"],
                             [t for t in st.templates() if t.family == "isnan"])
    assert any("NONE_MATCH but a row is TRUE" in str(v) for v in found), found
