"""What the hand-written tables of the function rules share: day and microsecond counts of a
calendar date, and the check of one case, a container of rows, whose outcome must be sound for
every row the reference evaluates (``tests/support/reference.py``, Spark's semantics) and equal
the expected one."""

from __future__ import annotations

import datetime as dt

import pyarrow as pa

import prunekit as pk
from tests.support import reference as ref
from tests.support import strategies as strat


def day(y: int, m: int, d: int) -> int:
    """Days since 1970-01-01: a DATE's value."""
    return (dt.date(y, m, d) - dt.date(1970, 1, 1)).days


def us(y: int, m: int, d: int, h: int = 0, mi: int = 0, s: int = 0, micro: int = 0) -> int:
    """Microseconds since the epoch (UTC): a TIMESTAMP's value."""
    return (day(y, m, d) * 86_400 + h * 3600 + mi * 60 + s) * 10**6 + micro


def outcome(columns: dict, sql: str, backend: str):
    """The predicate, its outcome on one container of exact statistics and the reference's
    truth of each row; ``columns`` maps a name to ``(type, rows)``, all of one length."""
    data = {c: (t, [rows]) for c, (t, rows) in columns.items()}
    schema = pa.schema([(c, t) for c, (t, _) in columns.items()])
    pred = pk.PruningPredicate(sql, schema)
    example = strat.exact_example(data, pred.expression)
    got = int(pred.classify(example.statistics(), backend=backend)[0])
    types = {c: t for c, (t, _) in columns.items()}
    rows = [dict(zip(columns, values, strict=True))
            for values in zip(*(rows for _, rows in columns.values()), strict=True)]
    truths = [ref.evaluate(pred.expression, types, row) for row in rows]
    return pred, got, truths


def check(columns: dict, sql: str, expected: int, why: str, backend: str) -> None:
    """One case: sound for every row, and the expected outcome (``why`` says why)."""
    pred, got, truths = outcome(columns, sql, backend)
    assert got != pk.NONE_MATCH or True not in truths, f"unsound NONE_MATCH: {why}"
    assert got != pk.ALL_MATCH or all(v is True for v in truths), f"unsound ALL_MATCH: {why}"
    assert got == expected, f"{why}: {truths}\n{pred.explain()}"
