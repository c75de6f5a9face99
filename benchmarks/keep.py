"""The keep expressions a user writes by hand, DataFusion-style, in pyarrow.compute, Polars and
DuckDB: what ``prune`` is measured against (``bench_classify.Keep`` and ``Ratios``).

Each benchmark query is rewritten once, by hand, into a tree over its statistics: a container
is kept unless the tree is FALSE (``x = v`` keeps ``x.min <= v AND v <= x.max``; ``x IS NULL``
keeps ``x.null_count > 0``; ``x <> v`` keeps unless ``x.min = v AND x.max = v``); a statistic
that is unknown (NULL) makes its comparison NULL, Kleene AND/OR carry it, and a NULL result is
kept. Every peer evaluates the same tree in its own idiom, as its users write it: pyarrow's
``pc`` functions over the struct fields, one Polars expression (a long IN list through
``search_sorted``, the fastest form there), one DuckDB ``SELECT``.
``tests/benchmarks/test_benchmarks.py`` checks each keeps every container ``prune`` keeps.

>>> import pyarrow as pa
>>> from benchmarks.workload import generate
>>> table = generate(200)
>>> keep = pyarrow_keep("Q1", table)
>>> len(keep), keep.dtype
(200, dtype('bool'))
>>> bool((keep == polars_keep("Q1", frame(table))).all()), bool((keep == duckdb_keep(
...     "Q1", table)).all())
(True, True)
"""

from __future__ import annotations

import datetime as dt

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from .workload import IN_VALUES

T12 = dt.datetime(2020, 9, 13, 12)
T18 = dt.datetime(2020, 9, 13, 18)
T20 = dt.datetime(2020, 9, 13, 20)


# ---- the trees -----------------------------------------------------------------------------
# Leaves: (">=max", col, v) keeps "x.max >= v"; ("<min", col, v) "x.min < v"; likewise
# "<=min", ">max"; ("in", col, values) "some v in [x.min, x.max]"; ("nulls", col)
# "x.null_count > 0"; ("<>", col, v) "not (x.min = v and x.max = v)".
def _and(*kids):
    return ("and", kids)


def _or(*kids):
    return ("or", kids)


def _between(col, lo, hi):
    return _and((">=max", col, lo), ("<=min", col, hi))


TREES = {
    "Q1": ("in", "id", [4242424]),
    "Q2": _and(_between("id", 1000000, 5000000), (">max", "price", 120.5)),
    "Q3": _and(_or(("in", "qty", [3, 17, 42]), ("nulls", "qty")), ("<min", "price", 10)),
    "Q4": _and((">=max", "cat", "k"), ("<min", "cat", "l"), (">max", "ts", T12)),
    "Q5": _and(_or(("<min", "price", 10), (">max", "price", 90)), ("<>", "qty", 5)),
    "Q6": ("in", "id", IN_VALUES),
    "Q7": _or(
        _and(_or(_between("id", 100000000, 200000000), (">max", "id", 900000000)),
             _or(("<min", "price", 20), (">max", "price", 80), ("nulls", "price")),
             _or(("in", "qty", [7]), (">=max", "qty", 55), ("nulls", "qty"))),
        _and((">=max", "cat", "m"), ("<min", "cat", "p"), ("<min", "ts", T18),
             _or(("<>", "qty", 3), ("<=min", "price", 5))),
        _and((">=max", "ts", T20), (">=max", "id", 500000000), ("<>", "cat", "kal"),
             _between("price", 40, 41), ("in", "qty", [1, 2])),
        _and(("in", "id", [123456789]), (">max", "price", 99.5))),
}


# ---- pyarrow.compute -------------------------------------------------------------------------
def pyarrow_keep(query: str, table: pa.Table) -> np.ndarray:
    """The keep mask in ``pyarrow.compute``, struct fields read where used."""
    def stat(col, name):
        return pc.struct_field(table[col], name)

    def scalar(col, v):
        if col == "ts":
            return pa.scalar(v, pa.timestamp("us"))
        return v

    def build(node):
        kind = node[0]
        if kind in ("and", "or"):
            combine = pc.and_kleene if kind == "and" else pc.or_kleene
            out = build(node[1][0])
            for kid in node[1][1:]:
                out = combine(out, build(kid))
            return out
        col = node[1]
        if kind == "nulls":
            return pc.greater(stat(col, "null_count"), 0)
        v = scalar(col, node[2]) if kind != "in" else None
        if kind == ">=max":
            return pc.greater_equal(stat(col, "max"), v)
        if kind == ">max":
            return pc.greater(stat(col, "max"), v)
        if kind == "<min":
            return pc.less(stat(col, "min"), v)
        if kind == "<=min":
            return pc.less_equal(stat(col, "min"), v)
        if kind == "<>":
            return pc.invert(pc.and_kleene(pc.equal(stat(col, "min"), v),
                                           pc.equal(stat(col, "max"), v)))
        lo, hi = stat(col, "min"), stat(col, "max")  # "in": an OR of ranges
        out = None
        for value in node[2]:
            one = pc.and_kleene(pc.less_equal(lo, value), pc.greater_equal(hi, value))
            out = one if out is None else pc.or_kleene(out, one)
        return out

    return pc.fill_null(build(TREES[query]), True).to_numpy(zero_copy_only=False)


# ---- Polars --------------------------------------------------------------------------------
def frame(table: pa.Table):
    """The statistics as a Polars DataFrame (zero-copy where Arrow allows; outside timings)."""
    import polars as pl

    return pl.from_arrow(table)


def polars_expression(query: str):
    import polars as pl

    def stat(col, name):
        return pl.col(col).struct.field(name)

    def build(node):
        kind = node[0]
        if kind in ("and", "or"):
            out = build(node[1][0])
            for kid in node[1][1:]:
                out = (out & build(kid)) if kind == "and" else (out | build(kid))
            return out
        col = node[1]
        if kind == "nulls":
            return stat(col, "null_count") > 0
        if kind == "in":
            values = pl.Series(sorted(node[2]))
            if len(values) == 1:
                v = values[0]
                return (stat(col, "min") <= v) & (stat(col, "max") >= v)
            # some value in [min, max]: fewer values below min than at or below max
            below_lo = pl.lit(values).search_sorted(stat(col, "min"), side="left")
            upto_hi = pl.lit(values).search_sorted(stat(col, "max"), side="right")
            return pl.when(stat(col, "min").is_null() | stat(col, "max").is_null()).then(
                None).otherwise(below_lo < upto_hi)
        v = pl.lit(node[2])
        if kind == ">=max":
            return stat(col, "max") >= v
        if kind == ">max":
            return stat(col, "max") > v
        if kind == "<min":
            return stat(col, "min") < v
        if kind == "<=min":
            return stat(col, "min") <= v
        return ~((stat(col, "min") == v) & (stat(col, "max") == v))  # "<>"

    return build(TREES[query]).fill_null(True).alias("keep")


def polars_keep(query: str, df, expression=None) -> np.ndarray:
    """The keep mask by Polars (its own threads), from ``frame(table)``."""
    expression = polars_expression(query) if expression is None else expression
    return df.select(expression).to_series().to_numpy()


# ---- DuckDB --------------------------------------------------------------------------------
def duckdb_sql(query: str) -> str:
    def literal(col, v):
        if isinstance(v, dt.datetime):
            return f"TIMESTAMP '{v.isoformat(sep=' ')}'"
        return f"'{v}'" if isinstance(v, str) else repr(v)

    def build(node):
        kind = node[0]
        if kind in ("and", "or"):
            return "(" + f" {kind.upper()} ".join(build(k) for k in node[1]) + ")"
        col = node[1]
        if kind == "nulls":
            return f"({col}.null_count > 0)"
        if kind == "in":
            return "(" + " OR ".join(f"({col}.min <= {v} AND {col}.max >= {v})"
                                     for v in node[2]) + ")"
        v = literal(col, node[2])
        ops = {">=max": f"{col}.max >= {v}", ">max": f"{col}.max > {v}",
               "<min": f"{col}.min < {v}", "<=min": f"{col}.min <= {v}",
               "<>": f"NOT ({col}.min = {v} AND {col}.max = {v})"}
        return f"({ops[kind]})"

    return f"SELECT COALESCE({build(TREES[query])}, TRUE) AS keep FROM stats"


def duckdb_keep(query: str, table: pa.Table, connection=None) -> np.ndarray:
    """The keep mask by DuckDB (its own threads) over the Arrow table, registered as
    ``stats`` (pass a connection that has it registered to keep that out of a timing)."""
    import duckdb

    con = connection
    if con is None:
        con = duckdb.connect()
        con.register("stats", table)
    return con.execute(duckdb_sql(query)).fetchnumpy()["keep"].astype(bool)
