"""Random statistics of every Spark type as a Spark DataFrame, and their outcomes in Spark
against ``PruningPredicate.classify`` on the same Arrow table: what the Spark glue's tests,
and the rule tests that also run in Spark, compare container by container."""

from __future__ import annotations

import decimal

import numpy as np
import pyarrow as pa

import prunekit as pk
import prunekit.spark_glue as sg

# Containers in the shared random frame. Spark's cost hardly depends on it below this (a plan
# per predicate, a kernel compile per shape), and every outcome each of PREDICATES reaches on
# 100,000 containers of random_statistics is reached on these (the rarest, ALL_MATCH of
# x = i, once; ``REACHES`` lists the predicates that cannot reach all three).
N = 20_000
DATA = pa.schema([
    ("x", pa.int64()), ("i", pa.int32()), ("f", pa.float64()), ("g", pa.float32()),
    ("s", pa.string()), ("bn", pa.binary()), ("b", pa.bool_()), ("d", pa.decimal128(10, 2)),
    ("w", pa.decimal128(30, 3)), ("t", pa.timestamp("us", tz="UTC")), ("nt", pa.timestamp("us")),
    ("dt", pa.date32()),
])
T2020 = 1_577_836_800_000_000  # 2020-01-01 00:00:00 UTC in microseconds
D2020 = 18262

# The core grammar over every type Spark has (docs/semantics.md, README "What is supported").
PREDICATES = [
    "x > 5", "x <= -3 OR x = 7", "x IN (1, 3, 5, 7)", "x NOT IN (2, 3, NULL)", "x IN (1, NULL)",
    "x IS NULL", "x IS NOT NULL AND i BETWEEN 0 AND 4", "NOT (x < 2 AND i > 5)", "x < i",
    "x = i", "CAST(i AS BIGINT) >= 3", "CAST(x AS DOUBLE) >= 7.5", "CAST(x AS FLOAT) < 16777217",
    "-x < 2", "x <=> 3", "x IS DISTINCT FROM i", "i NOT IN (0, 1, 2, 3, 4, 5, 6)",
    "f > 0.5", "f = CAST('NaN' AS DOUBLE)", "isnan(f) OR g < 0", "f < g", "g >= 1.5",
    "f BETWEEN -1 AND 1", "f IN (0.0, 1.5, -2.25)", "f <> 0", "NOT f > 0.25",
    "s LIKE 'ab%'", "s > 'b'", "s IN ('a', 'é', 'abc')", "s = 'ab' OR s IS NULL",
    "startswith(s, 'a')", "s LIKE 'é%'", "bn >= X'6162'", "bn < X'62' AND s <> 'c'",
    "b", "NOT b", "b IS NOT TRUE", "b = FALSE OR x > 3",
    "d > 1.5", "d BETWEEN -2 AND 2.55", "w < 12345.678", "w IN (1.5, 2.25, -7)", "w <= d",
    "CAST(d AS DECIMAL(12, 4)) > 1.2345", "w > 99999999999999999999999.5",
    "t > TIMESTAMP '2020-01-01 00:00:00'", "CAST(t AS DATE) = DATE '2020-01-02'",
    "nt <= TIMESTAMP_NTZ '2020-01-01 12:00:00'", "dt >= DATE '2020-01-05'",
    "CAST(dt AS TIMESTAMP) < TIMESTAMP '2020-01-03 00:00:00'", "t IS NULL OR dt IS NULL",
    "(x > 3 AND (s < 'b' OR f > 1)) OR (NOT b AND d IN (0.5, 1.25) AND t < TIMESTAMP "
    "'2020-01-02 00:00:00') OR (i = 4 AND w > 0)",
    "my_udf(x) AND x > 3", "1 = 0", "TRUE", "x > 3 AND x < 2",
]
# The outcomes of the predicates of PREDICATES that cannot reach all three on these
# statistics (0 NONE_MATCH, 1 MAYBE_MATCH, 2 ALL_MATCH); every other one reaches all three.
REACHES = {
    "x NOT IN (2, 3, NULL)": {0}, "1 = 0": {0}, "TRUE": {0, 2},
    "f IN (0.0, 1.5, -2.25)": {0, 1}, "w IN (1.5, 2.25, -7)": {0, 1}, "w <= d": {0, 1},
    "my_udf(x) AND x > 3": {0, 1}, "x > 3 AND x < 2": {0},  # an empty range: no row
}
# The predicates whose kernels compile in Spark's Python worker when the Arrow UDF classifies
# PREDICATES (``classify_all``): each column type the compiled kernels read there (integers,
# doubles, strings, booleans, dates), and a program that reads no statistic.
COMPILED = ("x IS NOT NULL AND i BETWEEN 0 AND 4", "f = CAST('NaN' AS DOUBLE)",
            "startswith(s, 'a')", "b IS NOT TRUE", "dt >= DATE '2020-01-05'", "TRUE")


def _masked(rng, values, p, t=None):
    mask = rng.random(len(values)) < p
    if t is not None and pa.types.is_date32(t):
        return pa.array(np.asarray(values, np.int32), mask=mask).view(t)
    return pa.array(values, type=t, mask=mask)


def _struct(rng, lo, hi, t, *, nulls=0.1, struct_nulls=0.03, extra=()):
    """min/max (swapped in 3% of containers: min > max is unknown), random null counts."""
    n = len(lo)
    swap = rng.random(n) < 0.03
    lo, hi = np.where(swap, hi, lo), np.where(swap, lo, hi)
    if t is not None and pa.types.is_decimal(t):
        def conv(v):
            return [decimal.Decimal(int(u)).scaleb(-t.scale) for u in v]
        lo, hi = conv(lo), conv(hi)
    arrays = [_masked(rng, lo, nulls, t), _masked(rng, hi, nulls, t),
              _masked(rng, rng.integers(-1, 6, n), 0.1, pa.int64())]
    names = ["min", "max", "null_count"]
    for name, arr in extra:
        arrays.append(arr)
        names.append(name)
    return pa.StructArray.from_arrays(arrays, names,
                                      mask=pa.array(rng.random(n) < struct_nulls))


def random_statistics(n: int, seed: int = 0) -> pa.Table:
    """Statistics of every Spark type: nulls everywhere, null structs, min > max, NaN
    bounds, inexact bounds, empty containers, plus pass-through columns."""
    rng = np.random.default_rng(seed)

    def ints(lo, hi, width):
        a = rng.integers(lo, hi, n)
        return a, a + rng.integers(0, width, n)

    words = np.array(["", "a", "ab", "abc", "abd", "b", "c", "é", "éa", "z"], dtype=object)
    si = np.sort(rng.integers(0, len(words), (n, 2)), axis=1)
    blobs = np.array([b"", b"a", b"ab", b"b", b"\xff"], dtype=object)
    bi = np.sort(rng.integers(0, len(blobs), (n, 2)), axis=1)
    flo = np.round(rng.normal(size=n), 2)
    fhi = flo + np.round(rng.random(n), 2)
    flo[rng.random(n) < 0.02] = np.nan
    fhi[rng.random(n) < 0.03] = np.nan
    glo = rng.normal(size=n).astype(np.float32)
    bl = np.sort(rng.integers(0, 2, (n, 2)), axis=1).astype(bool)
    x_lo, x_hi = ints(-5, 10, 5)
    big = 10**26
    w_lo = rng.integers(-10**6, 10**6, n).astype(object) * (10**20 + 7)
    w_hi = w_lo + rng.integers(0, 10**6, n).astype(object) * 10**15
    w_lo[rng.random(n) < 0.05] = big
    t_lo = T2020 + rng.integers(-3, 3, n) * 86_400_000_000 + rng.integers(0, 10**9, n)
    d_lo, d_hi = ints(-500, 500, 300)
    dt_lo, dt_hi = ints(D2020 - 10, D2020 + 10, 5)
    cols = {
        "id": pa.array(np.arange(n)),
        "row_count": _masked(rng, rng.integers(0, 5, n), 0.1, pa.int64()),
        "x": _struct(rng, x_lo, x_hi, pa.int64(), extra=[
            ("min_exact", _masked(rng, rng.random(n) < 0.8, 0.1)),
            ("max_exact", pa.array(rng.random(n) < 0.8))]),
        "i": _struct(rng, *ints(-2, 8, 3), pa.int32()),
        "f": _struct(rng, flo, fhi, pa.float64(), extra=[
            ("nan_count", _masked(rng, rng.integers(0, 3, n), 0.2, pa.int64()))]),
        "g": _struct(rng, glo, glo + rng.random(n).astype(np.float32), pa.float32(),
                     extra=[("nan_count", _masked(rng, rng.integers(0, 2, n), 0.3,
                                                  pa.int64()))]),
        "s": _struct(rng, list(words[si[:, 0]]), list(words[si[:, 1]]), pa.string(), extra=[
            ("min_exact", pa.array(rng.random(n) < 0.9)),
            ("max_exact", _masked(rng, rng.random(n) < 0.9, 0.1))]),
        "bn": _struct(rng, list(blobs[bi[:, 0]]), list(blobs[bi[:, 1]]), pa.binary()),
        "b": _struct(rng, bl[:, 0], bl[:, 1], pa.bool_()),
        "d": _struct(rng, d_lo, d_hi, pa.decimal128(10, 2)),
        "w": _struct(rng, w_lo, w_hi, pa.decimal128(30, 3)),
        "t": _struct(rng, t_lo, t_lo + rng.integers(0, 2 * 86_400_000_000, n),
                     pa.timestamp("us", tz="UTC")),
        "nt": _struct(rng, t_lo, t_lo + rng.integers(0, 86_400_000_000, n),
                      pa.timestamp("us")),
        "dt": _struct(rng, dt_lo, dt_hi, pa.date32()),
        "path": pa.array([f"s3://bucket/part-{k}.parquet" for k in range(n)]),
        "part": pa.array(rng.integers(0, 4, n), pa.int16()),
    }
    return pa.table(cols)


def to_spark(spark, table: pa.Table, partitions: int = 2):
    """A Spark DataFrame of ``table``; Arrow timestamps without zone stay TIMESTAMP_NTZ."""
    from pyspark.sql import functions as F

    df = spark.createDataFrame(table)
    for f in table.schema:
        if pa.types.is_struct(f.type):
            casts = []
            for k in f.type:
                ref = F.col(f"`{f.name}`.`{k.name}`")
                if pa.types.is_timestamp(k.type) and k.type.tz is None:
                    ref = ref.cast("timestamp_ntz")
                casts.append(ref.alias(k.name))
            if any(pa.types.is_timestamp(k.type) and k.type.tz is None for k in f.type):
                df = df.withColumn(f.name, F.when(F.col(f"`{f.name}`").isNull(), None)
                                   .otherwise(F.struct(*casts)))
    return df.repartition(partitions, "id").sortWithinPartitions("id")


def expected(table: pa.Table, predicates: list[str], **stats_options) -> dict[str, list]:
    stats = pk.Statistics.from_arrow(table, **stats_options)
    return {q: pk.PruningPredicate(q, DATA).classify(stats, backend="numpy").tolist()
            for q in predicates}


# Programs rendered as Spark SQL per job: each step of the DataFrame analyses the whole plan
# so far, so that a plan of 50 programs analyses slowly, and one job per program spends most
# of its time starting the job (four per job took two thirds of the time of one).
SQL_TOGETHER = 4


def classify_all(df, predicates: list[str], compiled=None, **options) -> dict[str, list]:
    """Each predicate's outcomes by ``classify_dataframe`` in Spark, in one job (the SQL
    engine: a job per ``SQL_TOGETHER``). The kernels of the predicates in ``compiled`` (by
    default the first one) run compiled in Spark's Python worker, the others interpreted: each
    shape compiles there, seconds each on 2 cores. The glue (payload, batches, conformed types)
    is what these tests check; the property tests hold the kernels equal to the interpreter."""
    if options.get("engine") == "sql":
        rest = {k: v for k, v in options.items() if k != "engine"}
        out: dict[str, list] = {}
        for at in range(0, len(predicates), SQL_TOGETHER):
            out.update(classify_all(df, predicates[at:at + SQL_TOGETHER], engine="sql-one",
                                    **rest))
        return out
    if options.get("engine") == "sql-one":
        options["engine"] = "sql"
    compiled = predicates[:1] if compiled is None else compiled
    out = df
    for k, q in enumerate(predicates):
        backend = {} if "backend" in options or options.get("engine") == "sql" else {
            "backend": "numba" if q in compiled else "numpy"}
        out = sg.classify_dataframe(out, q, column=f"o{k}", **options, **backend)
    got = out.select("id", *[f"o{k}" for k in range(len(predicates))]).toArrow()
    got = got.sort_by("id")
    assert got.column("id").to_pylist() == list(range(got.num_rows))
    return {q: got.column(f"o{k}").to_pylist() for k, q in enumerate(predicates)}


def mismatches(want: dict, got: dict, table: pa.Table) -> list[str]:
    bad = []
    for q in want:
        rows = [k for k, (a, b) in enumerate(zip(want[q], got[q], strict=True)) if a != b]
        if rows:
            k = rows[0]
            bad.append(f"{q!r}: {len(rows)} containers differ, first #{k}: prunekit "
                       f"{want[q][k]}, Spark {got[q][k]}; statistics "
                       f"{ {c: table.column(c)[k].as_py() for c in table.column_names} }")
    return bad
