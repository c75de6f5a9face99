"""PruningPredicate(..., aliases=...): filters on derived columns rewritten onto base columns
(DataFusion's PushDownFilter through a projection)."""

import numpy as np
import pyarrow as pa
import pytest

import prunekit as pk
from prunekit import AliasError

SCHEMA = pa.schema([("x", pa.int64()), ("ts", pa.timestamp("us")),
                    ("l_extendedprice", pa.float64()), ("l_discount", pa.float64())])


def stats_x(mins, maxs):
    return pk.Statistics.from_numpy(row_count=np.full(len(mins), 10), columns={
        "x": {"min": np.array(mins), "max": np.array(maxs),
              "null_count": np.zeros(len(mins), np.int64)}})


def test_plain_rename_prunes_like_the_column():
    stats = stats_x([0, 6, 7], [5, 9, 8])
    via_alias = pk.PruningPredicate("x2 > 5", SCHEMA, aliases={"x2": "x"})
    assert via_alias.expression.sql() == "x > 5"
    assert via_alias.classify(stats).tolist() == [0, 2, 2]


def test_cast_to_date_prunes_timestamps():
    day = 86_400 * 10**6
    ts = pa.StructArray.from_arrays(
        [pa.array([0, 10 * day], pa.timestamp("us")),
         pa.array([day - 1, 11 * day], pa.timestamp("us")), pa.array([0, 0], pa.int64())],
        ["min", "max", "null_count"])
    stats = pk.Statistics.from_arrow(pa.table({"row_count": [5, 5], "ts": ts}))
    pred = pk.PruningPredicate("d = DATE '1970-01-11'", SCHEMA, aliases={"d": "CAST(ts AS DATE)"})
    assert pred.classify(stats).tolist() == [0, 1]


def test_aliases_may_use_aliases_and_builder_trees():
    pred = pk.PruningPredicate("a >= 7", SCHEMA, aliases={"a": "b", "B": pk.col("x")})
    assert pred.expression.sql() == "x >= 7"
    assert pred.classify(stats_x([0, 7], [6, 9])).tolist() == [0, 2]
    assert "alias: a = b" in pred.explain()


def test_cycle_is_an_error_naming_it():
    with pytest.raises(AliasError, match="cycle: a -> b -> c -> a"):
        pk.PruningPredicate("a > 1", SCHEMA, aliases={"a": "b + 1", "b": "c", "c": "a"})
    with pytest.raises(AliasError, match="cycle: s -> s"):
        pk.PruningPredicate("s > 1", SCHEMA, aliases={"s": "s + 1"})


def test_an_alias_never_shadows_a_column():
    with pytest.raises(AliasError, match="'X' is also a column"):
        pk.PruningPredicate("x > 1", SCHEMA, aliases={"X": "l_discount"})
    with pytest.raises(AliasError, match="differ only in case"):
        pk.PruningPredicate("r > 1", SCHEMA, aliases={"r": "x", "R": "x"})
    with pytest.raises(pk.UnknownColumnError):
        pk.PruningPredicate("r > 1", SCHEMA, aliases={"r": "nope"})


def revenue_case(seed):
    """Containers of random rows, their statistics, and the rows themselves."""
    rng = np.random.default_rng(seed)
    price = rng.uniform(0, 1000, (20, 8)).round(2)
    disc = rng.uniform(0, 0.1, (20, 8)).round(2)
    price = np.sort(price, axis=None).reshape(20, 8)  # clustered, so that pruning can bite
    stats = pk.Statistics.from_numpy(row_count=np.full(20, 8), columns={
        "l_extendedprice": {"min": price.min(1), "max": price.max(1),
                            "null_count": np.zeros(20, np.int64), "nan_count": np.zeros(20)},
        "l_discount": {"min": disc.min(1), "max": disc.max(1),
                       "null_count": np.zeros(20, np.int64), "nan_count": np.zeros(20)}})
    return stats, price * (1 - disc)


@pytest.mark.parametrize("seed", range(5))
def test_arithmetic_alias_is_sound(seed):
    stats, revenue = revenue_case(seed)
    pred = pk.PruningPredicate("revenue > 500", SCHEMA,
                               aliases={"revenue": "l_extendedprice * (1 - l_discount)"})
    out = pred.classify(stats)
    truth = (revenue > 500).any(axis=1)
    assert not (truth & (out == pk.NONE_MATCH)).any()
    assert not ((~(revenue > 500).all(axis=1)) & (out == pk.ALL_MATCH)).any()


def test_alias_arithmetic_prunes():
    stats, revenue = revenue_case(0)
    pred = pk.PruningPredicate("revenue > 500", SCHEMA,
                               aliases={"revenue": "l_extendedprice * (1 - l_discount)"})
    out = pred.classify(stats)
    # Containers whose prices are all below 500 cannot have revenue above 500.
    low = revenue.max(axis=1) < 450
    assert low.any() and (out[low] == pk.NONE_MATCH).all()


DECIMAL_SCHEMA = pa.schema([("l_extendedprice", pa.decimal128(15, 2)),
                            ("l_discount", pa.decimal128(15, 2))])


def decimal_revenue_case(seed):
    """TPC-H's DECIMAL(15, 2) columns: containers of random rows, their statistics, the rows."""
    from decimal import Decimal

    rng = np.random.default_rng(seed)
    price = np.sort(rng.integers(90_000, 10_500_000, 160)).reshape(20, 8)  # unscaled cents
    disc = rng.integers(0, 11, (20, 8))

    def column(unscaled):
        values = [[Decimal(int(v)).scaleb(-2) for v in row] for row in unscaled]
        t = pa.decimal128(15, 2)
        return pa.StructArray.from_arrays(
            [pa.array([min(r) for r in values], t), pa.array([max(r) for r in values], t),
             pa.array([0] * 20, pa.int64())], ["min", "max", "null_count"])

    stats = pk.Statistics.from_arrow(pa.table({"row_count": [8] * 20,
                                               "l_extendedprice": column(price),
                                               "l_discount": column(disc)}))
    revenue = price * (100 - disc)  # exact, in units of 0.0001 (DECIMAL(32, 4))
    return stats, revenue


@pytest.mark.parametrize("seed", range(5))
def test_decimal_revenue_alias_is_sound_and_prunes(seed):
    # Spark types l_extendedprice * (1 - l_discount) as DECIMAL(32, 4), exactly.
    stats, revenue = decimal_revenue_case(seed)
    pred = pk.PruningPredicate("revenue > 50000", DECIMAL_SCHEMA,
                               aliases={"revenue": "l_extendedprice * (1 - l_discount)"})
    out = pred.classify(stats)
    hit = revenue > 50000 * 10_000
    assert not (hit.any(axis=1) & (out == pk.NONE_MATCH)).any()
    assert not (~hit.all(axis=1) & (out == pk.ALL_MATCH)).any()
    low = revenue.max(axis=1) < 45000 * 10_000  # prices all below 45000: revenue too
    assert low.any() and (out[low] == pk.NONE_MATCH).all()
    assert (out == pk.ALL_MATCH).any()  # the dearest containers pass whole
