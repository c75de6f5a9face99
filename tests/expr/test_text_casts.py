"""prunekit's reading of string literals (``expr/spark_types/text_casts.py``) against Spark's own
casts, in both modes: ``CAST(s AS t)`` for every string of the corpus, evaluated by Spark row by
row.

A string Spark reads as a value must give that value (or UNSURE, where prunekit does not work it
out); one Spark refuses must give INVALID (NULL in legacy mode, an error under ANSI).
"""

from __future__ import annotations

import datetime as dt
import math
import re

import numpy as np
import pyarrow as pa
import pytest

from prunekit.expr.domains import round_to_float32
from prunekit.expr.spark_types import text_casts as tc
from prunekit.expr.spark_types import zones
from tests.support import spark_typing as st

pytest.importorskip("pyspark")

CORPUS = (
    "1", " 1 ", "+1", "-1", "1.", ".5", "-.5", ".", "+", "-", "+.", "", " ", "1.9", "-1.9",
    "1e3", "1E3", "1.5e2", "0x10", "1_000", "127", "128", "-129", "32767", "32768",
    "2147483647", "2147483648", "-2147483648", "-2147483649", "9223372036854775807",
    "9223372036854775808", "-9223372036854775808", "1.0", "01", "\t1\n", "1 2", "\u0661", "\x7f5",
    "NaN", "nan", "-nan", "+NaN", "-NaN", "inf", "-inf", "Infinity", "-Infinity", "+infinity",
    "INF", "1.5d", "1.5f", "1.5F", "0x1p3", "0x1.8P1", "-0x.8p0", "1e400", "-1e400", "1e-400",
    "0.1", "16777217", "3.4028235677973366e38", "1e39", "123456789012345678901234567890",
    "true", "TRUE", "t", "yes", "y", "no", "n", "0", "f", "false ", "tru", "ye",
    "2024", "2024-1", "2024-01", "2024-1-5", "2024-01-01", " 2024-01-01 ", "2024-01-01 12:00:00",
    "2024-01-01T12:00:00", "2024-01-01T12:00:00Z", "2024-01-01 12:00:00+01:00",
    "2024-01-01 12:00:00.123456789", "2024-01-01 12:00", "2024-01-01 12", "2024-01-01T",
    "2024-01-01 ", "2024-01-01x", "2024-01-01-05", "20240101", "+2024-01-01", "-0001-01-01",
    "0000-01-01", "12345-01-01", "1234567-01-01", "2024-02-30", "2024-02-29", "2023-02-29",
    "2024-13-01", "2024-00-10", "2024-01-00", "12:00:00", "T12:00", "2024-01-01 12:00:00 UTC",
    "2024-01-01 12:00:00 America/New_York", "2024-01-01 12:00:00-0800", "2024-01-01 12:00:00+08",
    "2024-01-01 12:00:00+8:30", "2024-01-01 12:00:00 GMT+02:00", "2024-01-01 12:00:00 utc",
    "2024-01-01 25:00:00", "2024-01-01 12:60:00", "2024-01-01 12:00:60", "2024-01-01 1:2:3",
    "2024-01-01 12:00:00.5Z", "2024-01-01 12:00Z", "2024-01-01 123:00:00", "1-1-1", "999-01-01",
    "2024-01-01T12:00:00.123+05:30", "2024-1-1 1:1:1.1", "2024-01-01 12:00:00.",
    "2024-01-01 12:00:00+19:00", "2024-01-01 12:00:00 +01:00",
)

TARGETS = ("TINYINT", "INT", "BIGINT", "DOUBLE", "FLOAT", "BOOLEAN", "DATE", "TIMESTAMP",
           "TIMESTAMP_NTZ")
_BITS = {"TINYINT": 8, "INT": 32, "BIGINT": 64}
_EPOCH = dt.datetime(1970, 1, 1)


def prunekit_cast(text: str, target: str, ansi: bool) -> object:
    """prunekit's value in Spark's internal form (days, microseconds), or a marker."""
    if target in _BITS:
        return tc.to_integral(text, _BITS[target], ansi=ansi)
    if target == "DOUBLE":
        return tc.to_double(text)
    if target == "FLOAT":
        exact = tc.to_real(text)
        return exact if not hasattr(exact, "numerator") else round_to_float32(exact)
    if target == "BOOLEAN":
        return tc.to_boolean(text)
    if target == "DATE":
        got = tc.to_date(text)
        return got if not isinstance(got, dt.date) else (got - dt.date(1970, 1, 1)).days
    got = tc.to_timestamp(text, ntz=target == "TIMESTAMP_NTZ")
    if not isinstance(got, dt.datetime):
        return got
    if got.tzinfo is not None:  # an instant (a wall time without an offset: in UTC, here)
        return zones.instant_of(got)
    delta = got - _EPOCH
    return (delta.days * 86_400 + delta.seconds) * 1_000_000 + delta.microseconds


def _same(a: object, b: object) -> bool:
    if isinstance(a, float) and isinstance(b, float) and math.isnan(a) and math.isnan(b):
        return True
    return type(a) is type(b) and a == b or (isinstance(a, float) and a == b)


@pytest.fixture(scope="module")
def spark_casts(spark):
    sessions = st.mode_sessions(spark)
    corpus = st.single(st.ArgType("string", pa.string(), "STRING", CORPUS))
    sqls = [f"CAST(c AS {t})" for t in TARGETS]
    return {mode: dict(zip(TARGETS, st.SparkTable(sessions[mode], corpus).answers(
        sqls, mode, values=True), strict=True)) for mode in st.MODES}


@pytest.mark.parametrize("target", TARGETS)
@pytest.mark.spark
def test_string_literals_read_as_spark_casts_them(spark_casts, target):
    wrong = []
    for mode in st.MODES:
        rows = spark_casts[mode][target].rows
        for text, spark_value in zip(CORPUS, rows, strict=True):
            ours = prunekit_cast(text, target, ansi=mode == "ansi")
            invalid = spark_value is None or spark_value == st.ERROR
            if target == "FLOAT" and not invalid:  # py4j sends a Java float as its shortest text
                spark_value = float(np.float32(spark_value))
            if ours is tc.UNSURE:
                continue  # sound either way; the next test keeps it for valid text
            if ours is tc.INVALID and invalid:
                continue
            if ours is not tc.INVALID and not _same(ours, spark_value):
                wrong.append(f"{mode} CAST({text!r} AS {target}): Spark {spark_value!r}, "
                             f"prunekit {ours!r}")
            elif ours is tc.INVALID:
                wrong.append(f"{mode} CAST({text!r} AS {target}): Spark {spark_value!r}, "
                             "prunekit INVALID")
    assert not wrong, "\n".join(wrong)


@pytest.mark.spark
def test_unsure_only_where_spark_reads_a_value(spark_casts):
    # UNSURE is for valid text prunekit does not evaluate; on text Spark refuses it would cost
    # pruning, never soundness, but says the parser is looser than it should be.
    # A zone prunekit does not spell out (a region, 'utc', '-1:0') is UNSURE whatever it is.
    named_zone = re.compile(r"[0-9](?: ?[A-Za-z]{2,}| ?[+-][0-9]:)")
    loose = [f"{text!r} AS {t}" for t in ("DATE", "TIMESTAMP", "TIMESTAMP_NTZ")
             for text, v in zip(CORPUS, spark_casts["legacy"][t].rows, strict=True)
             if v is None and prunekit_cast(text, t, ansi=False) is tc.UNSURE
             and not named_zone.search(text)]
    assert not loose, loose
