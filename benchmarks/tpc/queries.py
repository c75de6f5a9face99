"""The vendored TPC-DS and TPC-H query texts (``benchmarks/queries/*.sql``), and the few fixes
they need to run on ``tpcgen-cli``'s tables. ``tpch-duckdb`` is DuckDB's own text of the TPC-H
queries (its tpch extension's), read with ``dialect="duckdb"``.

>>> qs = queries("tpch")
>>> len(qs), len(queries("tpcds")), len(queries("tpch-duckdb"))
(22, 99, 22)
>>> qs[6].split()[:2]
['select', 'sum(l_extendedprice']
"""

from __future__ import annotations

import functools
import os
import re

import sqlglot

FOLDER = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "queries")
NAMES = {"tpcds": "TPC-DS", "tpch": "TPC-H", "tpch-duckdb": "TPC-H"}

# (suite, query) -> [(old, new)]: the fixture's text names a column of an older TPC-DS schema
# (``c_last_review_date``); tpcgen-cli writes the current one.
FIXES = {
    ("tpcds", 30): [("c_last_review_date", "c_last_review_date_sk")],
}


@functools.cache
def queries(suite: str) -> dict[int, str]:
    """Query number -> text (no trailing ``;``), with ``FIXES`` applied."""
    if suite not in NAMES:
        raise ValueError(f"suite must be one of {sorted(NAMES)}, got {suite!r}")
    with open(os.path.join(FOLDER, f"{suite}.sql"), encoding="utf-8") as f:
        text = f.read()
    parts = re.split(rf"^-- {NAMES[suite]} (\d+)\n", text, flags=re.M)[1:]
    out = {}
    for number, body in zip(parts[::2], parts[1::2], strict=True):
        sql = body.strip().rstrip(";").strip()
        for old, new in FIXES.get((suite, int(number)), []):
            sql = re.sub(rf"\b{old}\b", new, sql)
        out[int(number)] = sql
    return out


def in_spark(sql: str) -> str:
    """``sql`` written in Spark's dialect (its double-quoted aliases in backticks).

    >>> in_spark('SELECT count(*) AS "_col_0" FROM t')
    'SELECT COUNT(*) AS `_col_0` FROM t'
    """
    return sqlglot.parse_one(sql).sql(dialect="spark")


def without_outer_limit(sql: str, dialect: str = "duckdb") -> str:
    """``sql`` in ``dialect`` with its outermost LIMIT removed (inner ones stay).

    >>> without_outer_limit("SELECT a FROM t ORDER BY a LIMIT 100")
    'SELECT a FROM t ORDER BY a NULLS FIRST'
    """
    tree = sqlglot.parse_one(sql)
    tree.set("limit", None)
    return tree.sql(dialect=dialect)

