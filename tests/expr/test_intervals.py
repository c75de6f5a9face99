"""Interval literals (``expr/spark_types/intervals.py``): year-month and day-time values parsed as
Spark reads them (a fraction finer than a microsecond is refused), an interval is no value to
compare a column with, and a DATE plus hours (a TIMESTAMP in the session time zone) is not used."""

import pyarrow as pa
import pytest

import prunekit as pk
from prunekit.expr.spark_types.intervals import interval

D = {"d": pa.date32()}


def test_interval_literals():
    assert interval("1-6", "year", "month").months == 18
    assert interval("-1 2:30:00.5", "day", "second").micros == -(26 * 3600 + 1800) * 10**6 - \
        500_000
    assert interval("1.0000001", "second") is None  # finer than Spark's microseconds
    with pytest.raises(pk.TypeMismatchError, match="not a value to compare"):
        pk.PruningPredicate("d > INTERVAL 1 DAY", D)
    # a DATE plus hours is a TIMESTAMP in the session time zone: not used (but NULL where d is)
    pred = pk.PruningPredicate("d + INTERVAL 36 HOURS > TIMESTAMP '2024-01-01 00:00:00'", D)
    assert "<NULL where d is NULL, else anything: " in pred.explain()
