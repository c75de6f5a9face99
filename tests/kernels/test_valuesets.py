"""Value-set statistics: ``values`` lists and Parquet bloom filters.

One container per case, the reason beside the expectation; every case runs on both interpreters
(and the fused kernel in the deep tier: ``tests.support.tiers``).
The bloom filter reader is checked against DuckDB's ``parquet_bloom_probe`` and against the
data; DataFusion 55's own bloom filter pruning is compared at the end.
"""

from __future__ import annotations

import math
import re
import struct

import numpy as np
import pyarrow as pa
import pyarrow.parquet as pq
import pytest

import prunekit as pk
import prunekit.parquet
from prunekit.errors import StatisticsError
from prunekit.kernels.bloomfilter import empty, insert, probe, xxh64
from prunekit.kernels.valuesets import literal_hashes
from tests.support import tiers

NONE, MAYBE, ALL = 0, 1, 2


def table(t: pa.DataType, rows: list[dict]) -> pa.Table:
    """Statistics of one column ``x`` of type ``t``, one container per dict."""
    fields = {
        "min": pa.array([r.get("min") for r in rows], t),
        "max": pa.array([r.get("max") for r in rows], t),
        "null_count": pa.array([r.get("nulls", 0) for r in rows], pa.int64()),
        "values": pa.array([r.get("values") for r in rows], pa.list_(t)),
        "bloom": pa.array([r.get("bloom") for r in rows], pa.binary()),
    }
    x = pa.StructArray.from_arrays(list(fields.values()), list(fields))
    return pa.table({"row_count": pa.array([r.get("rows", 10) for r in rows], pa.int64()),
                     "x": x})


def outcome(sql: str, t: pa.DataType, row: dict) -> int:
    pred = pk.PruningPredicate(sql, {"x": t})
    got = {b: pred.classify(table(t, [row]), backend=b).tolist()[0]
           for b in tiers.backends()}
    assert len(set(got.values())) == 1, got
    return got["numpy"]


def bloom_of(values, t: pa.DataType, blocks: int = 4) -> bytes:
    return insert(empty(blocks), literal_hashes(tuple(values), t))


I = pa.int64()
CASES = [  # type, container, predicate, expected, why
    (I, {"min": 1, "max": 9, "values": [1, 9]}, "x = 5", NONE, "5 not listed"),
    (I, {"min": 1, "max": 9, "values": [1, 9]}, "x = 9", MAYBE, "9 listed, 1 too"),
    (I, {"min": 9, "max": 9, "values": [9]}, "x = 9", ALL, "bounds alone"),
    (I, {"min": 1, "max": 9, "values": [1, 9]}, "x IN (1, 9)", ALL, "every value listed"),
    (I, {"min": 1, "max": 9, "values": [1, 9], "nulls": 2}, "x IN (1, 9)", MAYBE, "NULL rows"),
    (I, {"min": 1, "max": 9, "values": [1, 9]}, "x IN (2, 3, 4)", NONE, "none listed"),
    (I, {"min": 1, "max": 9, "values": [1, 9]}, "x NOT IN (1, 9)", NONE, "all listed"),
    (I, {"min": 1, "max": 9, "values": [1, 9], "nulls": 3}, "x NOT IN (1, 9)", NONE,
     "NULL rows are NULL, not TRUE"),
    (I, {"min": 1, "max": 9, "values": [1, 9]}, "x NOT IN (1, 5)", MAYBE, "9 is not 1 or 5"),
    (I, {"min": 1, "max": 9, "values": [1, 9]}, "x NOT IN (4, 5)", ALL, "bounds: 4, 5 absent"),
    (I, {"min": 1, "max": 9, "values": [1, 9]}, "x NOT IN (2, 3)", ALL,
     "values: 2, 3 absent though inside [min, max]"),
    (I, {"min": 1, "max": 9, "values": [1, 9]}, "x <> 5", ALL, "5 not listed, no NULLs"),
    (I, {"min": 1, "max": 9, "values": [1, 9], "nulls": 1}, "x <> 5", MAYBE, "a NULL row"),
    (I, {"min": 1, "max": 9, "values": [1, 9]}, "x IN (1, 9, NULL)", ALL, "TRUE for 1, 9"),
    (I, {"min": 1, "max": 9, "values": [1, 9]}, "x IN (3, NULL)", NONE, "NULL at best"),
    (I, {"min": 1, "max": 9, "values": [1, 9]}, "x NOT IN (3, NULL)", NONE,
     "NOT IN with a NULL is never TRUE"),
    (I, {"min": 1, "max": 9, "values": [1, None, 9]}, "x = 5", NONE, "NULL entries ignored"),
    (I, {"min": 1, "max": 9, "values": [1, None, 9]}, "x IN (1, 9)", ALL, "NULL entries ignored"),
    (I, {"min": 1, "max": 9, "values": None}, "x = 5", MAYBE, "list unknown"),
    (I, {"min": 1, "max": 9, "values": None}, "x NOT IN (1, 9)", MAYBE, "list unknown"),
    (I, {"min": 1, "max": 9, "values": [1, 9]}, "x = 5 OR x = 6", NONE, "each leaf"),
    (I, {"min": 1, "max": 9, "values": [1, 9]}, "NOT (x IN (1, 9))", NONE, "under NOT"),
    (I, {"min": 1, "max": 9, "values": [1, 9]}, "NOT (x = 1 OR x = 9)", NONE,
     "the one way it is TRUE excludes 1 and 9, all the values list holds (the walk)"),
    (I, {"min": 1, "max": 9, "values": [1, 5, 9]}, "NOT (x = 1 OR x = 9)", MAYBE,
     "5 is neither"),
    (I, {"min": 1, "max": 9, "values": [1, 9]}, "x + 1 = 6", MAYBE, "arithmetic: not used"),
    (I, {"min": 1, "max": 9, "values": [1, 9]}, "x > 2 AND x < 8", MAYBE,
     "ranges do not read values lists (a first pass, as LiteralGuarantee)"),
    (pa.int32(), {"min": 1, "max": 9, "values": [1, 9]}, "CAST(x AS BIGINT) = 5", NONE,
     "an integer widening keeps the values"),
    (pa.string(), {"min": "a", "max": "z", "values": ["a", "z"]}, "x = 'm'", NONE, "bytes"),
    (pa.string(), {"min": "a", "max": "z", "values": ["a", "z"]}, "x IN ('a', 'z')", ALL, ""),
    (pa.string(), {"min": "a", "max": "z", "values": ["a", "z"]}, "x LIKE 'm%'", MAYBE,
     "prefixes read bounds, not values lists"),
    (pa.float64(), {"min": -1.0, "max": 1.0, "values": [-0.0, 1.0]}, "x = 0.0", MAYBE,
     "-0.0 = 0.0"),
    (pa.float64(), {"min": -1.0, "max": 1.0, "values": [-0.0, 1.0]}, "x NOT IN (0.0, 1.0)",
     NONE, "-0.0 is 0.0"),
    (pa.float64(), {"min": -1.0, "max": 1.0, "values": [1.0, math.nan]}, "x = 0.5", NONE, ""),
    (pa.float64(), {"min": -1.0, "max": 1.0, "values": [1.0, math.nan]},
     "x = CAST('NaN' AS DOUBLE)", MAYBE, "NaN = NaN in Spark"),
    (pa.float64(), {"min": -1.0, "max": 1.0, "values": [1.0]}, "x = CAST('NaN' AS DOUBLE)",
     NONE, "the list says no NaN"),
    (pa.float64(), {"min": -1.0, "max": 1.0, "values": [1.0, math.nan]},
     "x NOT IN (1.0, CAST('NaN' AS DOUBLE))", NONE, "every value listed, NaN included"),
    (pa.float64(), {"min": -1.0, "max": 1.0, "values": [1.0, math.nan]}, "x NOT IN (1.0)",
     MAYBE, "NaN is not 1.0"),
    (pa.bool_(), {"min": False, "max": True, "values": [True]}, "x", ALL, "booleans"),
    (pa.bool_(), {"min": False, "max": True, "values": [True]}, "NOT x", NONE, ""),
    (pa.date32(), {"min": 0, "max": 100, "values": [0, 100]}, "x = DATE '1970-01-02'", NONE,
     "dates as days"),
    (pa.decimal128(30, 2), {"min": 0, "max": 100, "values": [0, 100]}, "x = 50", NONE,
     "wide decimals"),
    (pa.decimal128(30, 2), {"min": 0, "max": 100, "values": [0, 100]}, "x IN (0, 100)", ALL,
     "wide decimals"),
    (pa.decimal128(9, 2), {"min": 0, "max": 100, "values": [0, 100]}, "x = 50", NONE,
     "narrow decimals"),
    (pa.decimal256(9, 2), {"min": 0, "max": 100, "values": [0, 100]}, "x = 50", NONE,
     "decimal256 of few digits"),
    (pa.decimal256(9, 2), {"min": 0, "max": 100, "values": [0, 100]}, "x IN (0, 100)", ALL,
     "decimal256 of few digits"),
    (I, {"min": 1, "max": 9, "bloom": bloom_of([1, 9], I)}, "x = 5", NONE, "filter: absent"),
    (I, {"min": 1, "max": 9, "bloom": bloom_of([1, 9], I)}, "x IN (1, 5)", MAYBE, "1 may be"),
    (I, {"min": 1, "max": 9, "bloom": bloom_of([1, 9], I)}, "x NOT IN (1, 9)", MAYBE,
     "a filter never proves presence"),
    (I, {"min": 1, "max": 9, "bloom": bloom_of([1, 9], I)[:33]}, "x = 5", MAYBE,
     "malformed: not whole blocks"),
    (I, {"min": 1, "max": 9, "bloom": b""}, "x = 5", MAYBE, "malformed: empty"),
    (pa.float64(), {"min": -1.0, "max": 1.0, "bloom": bloom_of([-0.0], pa.float64())}, "x = 0.0",
     MAYBE, "0.0 is looked up as both zeros"),
    (pa.float64(), {"min": -1.0, "max": 1.0, "bloom": bloom_of([1.0], pa.float64())},
     "x = CAST('NaN' AS DOUBLE)", MAYBE, "NaN is never ruled out by a filter"),
    (pa.decimal128(9, 2), {"min": 0, "max": 100, "bloom": empty(1)}, "x = 50", MAYBE,
     "decimals: no fixed encoding"),
    (pa.string(), {"min": "a", "max": "z", "bloom": bloom_of([b"a", b"z"], pa.string())},
     "x = 'm'", NONE, ""),
]


@pytest.mark.parametrize(("t", "row", "sql", "expected", "why"), CASES,
                         ids=[f"{c[0]}:{c[2]}:{c[4]}" for c in CASES])
def test_rule(t, row, sql, expected, why):
    assert outcome(sql, t, row) == expected, why


def test_empty_list_proves_no_value():
    # An empty list: no non-NULL value, so no equality can be TRUE.
    assert outcome("x = 5", I, {"values": [], "nulls": None}) == NONE
    assert outcome("x IS NULL", I, {"values": [], "nulls": None}) == MAYBE


def test_statistics_validation():
    bad_values = pa.StructArray.from_arrays(
        [pa.array([1]), pa.array([2]), pa.array([0]), pa.array([1])],
        ["min", "max", "null_count", "values"])
    with pytest.raises(StatisticsError, match="values must be a list"):
        pk.Statistics.from_arrow(pa.table({"row_count": [1], "x": bad_values}))
    wrong_type = pa.StructArray.from_arrays(
        [pa.array([1]), pa.array([2]), pa.array([0]), pa.array([["a"]])],
        ["min", "max", "null_count", "values"])
    with pytest.raises(StatisticsError, match="values holds string"):
        pk.Statistics.from_arrow(pa.table({"row_count": [1], "x": wrong_type}))
    bad_bloom = pa.StructArray.from_arrays(
        [pa.array([1]), pa.array([2]), pa.array([0]), pa.array([3])],
        ["min", "max", "null_count", "bloom"])
    with pytest.raises(StatisticsError, match="bloom must be binary"):
        pk.Statistics.from_arrow(pa.table({"row_count": [1], "x": bad_bloom}))
    # Through classify on a raw table too, not only through Statistics.
    pred = pk.PruningPredicate("x = 1", {"x": I})
    with pytest.raises(StatisticsError):
        pred.classify(pa.table({"row_count": [1], "x": wrong_type}))


def test_from_numpy_takes_value_sets():
    s = pk.Statistics.from_numpy(row_count=np.array([5, 5]), columns={"x": {
        "min": np.array([1, 1]), "max": np.array([9, 9]), "null_count": np.array([0, 0]),
        "values": [[1, 9], None], "bloom": [None, bloom_of([1, 9], I)]}})
    assert pk.PruningPredicate("x = 5", {"x": I}).classify(s).tolist() == [NONE, NONE]
    assert pk.PruningPredicate("x = 9", {"x": I}).classify(s).tolist() == [MAYBE, MAYBE]


def test_required_columns_and_explain():
    pred = pk.PruningPredicate("x = 5 OR x IN (6, 7)", {"x": I})
    assert pred.required_columns["x"].count("values") == 1
    assert {"values", "bloom"} <= set(pred.required_columns["x"])
    assert "x may hold one of (5)" in pred.explain()


def test_many_containers_and_slices():
    rng = np.random.default_rng(7)
    n = 5000
    lists = [sorted(set(rng.integers(0, 50, rng.integers(0, 6)).tolist())) for _ in range(n)]
    rows = [{"min": min(v) if v else None, "max": max(v) if v else None, "values": v,
             "nulls": 0, "rows": len(v)} for v in lists]
    t = table(I, rows)
    for sql in ("x = 7", "x IN (3, 4, 5)", "x NOT IN (3, 4, 5)", "x <> 7"):
        pred = pk.PruningPredicate(sql, {"x": I})
        want = pred.classify(t, backend="numpy")
        for k in (0, 1, 13):  # sliced batches: offsets into lists and bitmaps
            sliced = pa.Table.from_batches([b for b in t.slice(k).to_batches()])
            assert (pred.classify(sliced, backend="numba") == want[k:]).all(), (sql, k)
        # Brute force: an answer of NONE needs no TRUE row, ALL needs every row TRUE.
        for v, o in zip(lists, want.tolist(), strict=True):
            truth = [_row_truth(sql, x) for x in v]
            if not v:
                assert o == NONE
            elif o == NONE:
                assert not any(truth), (sql, v)
            elif o == ALL:
                assert all(truth), (sql, v)


def _row_truth(sql: str, x: int) -> bool:
    listed = [int(d) for d in re.findall(r"\d+", sql)]
    return {"x = 7": x == 7, "x <> 7": x != 7}.get(sql, (x in listed) != ("NOT" in sql))


# ---- the property test reaches value sets ----------------------------------------------------
def _without_value_sets(t: pa.Table, drop: tuple = ("values", "bloom")) -> pa.Table:
    for name in t.column_names:
        col = t.column(name).combine_chunks()
        if pa.types.is_struct(col.type):
            names = [col.type.field(i).name for i in range(col.type.num_fields)]
            keep = [i for i, f in enumerate(names) if f not in drop]
            kids = col.flatten()
            col = pa.StructArray.from_arrays([kids[i] for i in keep], [names[i] for i in keep],
                                             mask=col.is_null() if col.null_count else None)
            t = t.set_column(t.schema.get_field_index(name), name, col)
    return t


@pytest.mark.slow
@pytest.mark.deep  # a check of the generator (its first bloom decision comes at example 663)
def test_property_generator_exercises_value_sets(without_local_constants, examples):
    """tests/support/strategies.py derives ``values``/``bloom`` from the rows (test_property.py
    checks soundness on them); here: they decide outcomes the other statistics leave MAYBE, and only
    ever make an outcome more decisive. The rules of value sets have hand-written cases above,
    in ``make test``; this check of the generator runs in the deep tier."""

    from hypothesis import given, settings

    from tests.support import strategies as strat

    decided = {"values": 0, "bloom": 0}

    # The whole grammar (functions, arithmetic, struct fields) dilutes plain `x = v` leaves, so
    # this check draws shallow flat predicates, where value sets matter, in more examples.
    @settings(max_examples=examples, database=None, derandomize=True, deadline=None)
    @given(strat.examples(max_depth=1, nest=False))
    def run(example):
        pred = pk.PruningPredicate(example.predicate, example.schema)

        def outcomes(table):
            stats = pk.Statistics.from_arrow(table, nan_bounds=example.nan_bounds,
                                             no_nan=example.no_nan)
            return pred.classify(stats, backend="numpy").tolist()

        with_sets = outcomes(example.table)
        blooms_only = outcomes(_without_value_sets(example.table, ("values",)))
        without = outcomes(_without_value_sets(example.table))
        for a, bl, b in zip(with_sets, blooms_only, without, strict=True):
            assert b == MAYBE or a == b == bl, (with_sets, blooms_only, without)
            assert bl == b or b == MAYBE, (blooms_only, without)
            decided["bloom"] += bl != b  # decided by the filters alone
            decided["values"] += a != bl  # then by the lists

    run()
    # Filters rarely decide beyond min/max here (palettes of 1-4 values leave few gaps); the
    # hand-written cases and the DuckDB probe comparison above cover them in depth.
    assert decided["values"] >= 5 and decided["bloom"] >= 1, decided


# ---- XXH64 and the bloom filter probe ---------------------------------------------------
@pytest.mark.parametrize(("data", "expected"), [
    (b"", 0xEF46DB3751D8E999), (b"a", 0xD24EC4F1A98C6E5B), (b"abc", 0x44BC2CF5AD770999),
    (b"Nobody inspects the spammish repetition", 0xFBCEA83C8A378BF1),
])
def test_xxh64_known_vectors(data, expected):
    assert xxh64(data) == expected


def test_probe_finds_what_was_inserted():
    hashes = [xxh64(struct.pack("<q", v)) for v in range(200)]
    bits = insert(empty(8), hashes)
    found = probe(pa.array([bits] * 3, pa.large_binary()).slice(1), hashes[:1])
    assert found.tolist() == [1, 1]
    assert all(probe(pa.array([bits]), [h]).tolist() == [1] for h in hashes)
    absent = [xxh64(struct.pack("<q", v)) for v in range(1000, 1400)]
    misses = sum(probe(pa.array([bits]), [h]).tolist() == [0] for h in absent)
    assert misses > 300  # 200 values in 8 blocks: most absent values are ruled out


# ---- Parquet: the reader against DuckDB and against the data ------------------------------
TYPES = {
    "i8": (pa.int8(), lambda k: k % 100 - 50), "i16": (pa.int16(), lambda k: k * 7 - 300),
    "i32": (pa.int32(), lambda k: k * 1_000_003), "i64": (pa.int64(), lambda k: k * 10**12),
    "u32": (pa.uint32(), lambda k: 2**32 - 1 - k), "u64": (pa.uint64(), lambda k: 2**64 - 1 - k),
    "f32": (pa.float32(), lambda k: k / 4), "f64": (pa.float64(), lambda k: k / 3),
    "s": (pa.string(), lambda k: "v" * (k % 40) + str(k)),  # lengths 1..42: all XXH64 paths
    "b": (pa.binary(), lambda k: bytes([k % 256]) * (k % 37)),
    "d": (pa.date32(), lambda k: k * 11), "ts": (pa.timestamp("us"), lambda k: k * 10**9),
}
ROWS, GROUP = 400, 50


@pytest.fixture(scope="module")
def bloom_file(tmp_path_factory):
    path = tmp_path_factory.mktemp("bloom") / "b.parquet"
    data = {c: pa.array([f(k) for k in range(ROWS)], t) for c, (t, f) in TYPES.items()}
    pq.write_table(pa.table(data), path, row_group_size=GROUP,
                   bloom_filter_options={c: {"ndv": GROUP, "fpp": 0.01} for c in TYPES})
    return path


def _probe_values(c: str) -> list:
    t, f = TYPES[c]
    out = [f(k) for k in range(0, ROWS, 7)] + [f(k) for k in range(ROWS, ROWS + 40)]
    if pa.types.is_integer(t):  # only values of the type
        lo, hi = (0, 2**t.bit_width - 1) if pa.types.is_unsigned_integer(t) else (
            -(2 ** (t.bit_width - 1)), 2 ** (t.bit_width - 1) - 1)
        out = [v for v in out if lo <= v <= hi]
    return out


@pytest.mark.parametrize("column", list(TYPES))
def test_bloom_reader_matches_duckdb_and_data(bloom_file, column):
    duckdb = pytest.importorskip("duckdb", reason="duckdb (a test dependency) is missing")
    stats = prunekit.parquet.row_group_statistics(bloom_file, bloom_filters=[column])
    assert stats.column(column).null_count == 0
    assert stats.column(column).combine_chunks().field("bloom").null_count == 0
    t, f = TYPES[column]
    groups = [set() for _ in range(ROWS // GROUP)]
    for k in range(ROWS):
        groups[k // GROUP].add(f(k))
    con = duckdb.connect()
    checked = 0
    for v in _probe_values(column):
        lit = pa.scalar(v, t)
        # The bloom filter alone: a statistics table with only the filter.
        struct = stats.column(column).combine_chunks()
        only = pa.StructArray.from_arrays(
            [pa.nulls(len(struct), t), pa.nulls(len(struct), t),
             pa.nulls(len(struct), pa.int64()), struct.field("bloom")],
            ["min", "max", "null_count", "bloom"])
        ours = pk.PruningPredicate(pk.col(column) == pk.lit(lit.as_py()), {column: t}).classify(
            pa.table({"row_count": stats.column("row_count"), column: only})).tolist()
        for g, o in enumerate(ours):
            if v in groups[g]:
                assert o != NONE, (column, v, g)  # never prunes a row group holding v
        duck = con.execute(f"SELECT row_group_id, bloom_filter_excludes FROM "
                           f"parquet_bloom_probe(?, ?, ?::{_duck_type(t)}) ORDER BY 1",
                           [str(bloom_file), column, lit.as_py()]).fetchall()
        assert [NONE if ex else MAYBE for _, ex in duck] == ours, (column, v)
        checked += 1
    assert checked > 40


def _duck_type(t: pa.DataType) -> str:
    return {"int8": "TINYINT", "int16": "SMALLINT", "int32": "INTEGER", "int64": "BIGINT",
            "uint32": "UINTEGER", "uint64": "UBIGINT", "float": "FLOAT", "double": "DOUBLE",
            "string": "VARCHAR", "binary": "BLOB", "date32[day]": "DATE",
            "timestamp[us]": "TIMESTAMP"}[str(t)]



# ---- against DataFusion 55's own bloom filter pruning ------------------------------------
# What DataFusion does (its PruningPredicate documentation, v50, and DataFusion 55 itself
# below): a first pass derives LiteralGuarantees
# (column IN / NOT IN a set of literals) from the predicate's conjunction, ORs of equalities
# on one column included, and asks ``PruningStatistics::contained`` per container; its Parquet
# reader answers ``contained`` from bloom filters, for IN guarantees only (a filter never
# proves presence), after the min/max pass (metric ``row_groups_pruned_bloom_filter``). So it
# prunes ``s = 'c'``, ``s IN (...)``, ``s = 'c' AND i = 5`` and ``CAST(i AS BIGINT) = 5`` by
# filters, but not an OR over two columns, which yields no guarantee. User-supplied value sets
# (``contained`` from a custom PruningStatistics) exist only in its Rust API, and never give
# ALL_MATCH. prunekit judges each leaf in the three-valued lattice, so filters work under OR
# and NOT, and ``values`` lists also give NONE_MATCH for NOT IN / <> and ALL_MATCH (CASES).
datafusion = pytest.importorskip("datafusion", reason="datafusion (a test dependency) is missing")


def _datafusion_bloom(path, where: str) -> tuple[int, int]:
    """(row groups the bloom filter pass saw, row groups it kept), from EXPLAIN ANALYZE."""
    ctx = datafusion.SessionContext(datafusion.SessionConfig().with_target_partitions(1))
    ctx.register_parquet("t", str(path))
    rows = ctx.sql(f"EXPLAIN ANALYZE SELECT * FROM t WHERE {where}").to_arrow_table()
    plan = "\n".join(rows.column("plan").to_pylist())
    m = re.search(r"row_groups_pruned_bloom_filter=(\d+) total \u2192 (\d+) matched", plan)
    assert m, plan
    return int(m.group(1)), int(m.group(2))


def _count(path, where: str, bloom: bool = True) -> int:
    config = datafusion.SessionConfig().set("datafusion.execution.parquet.bloom_filter_on_read",
                                            "true" if bloom else "false")
    ctx = datafusion.SessionContext(config)
    ctx.register_parquet("t", str(path))
    return ctx.sql(f"SELECT count(*) AS n FROM t WHERE {where}").to_arrow_table()["n"][0].as_py()


@pytest.fixture(scope="module")
def wide_file(tmp_path_factory):
    # Each row group spans the whole alphabet and 1..9: min/max prune nothing.
    path = tmp_path_factory.mktemp("df") / "wide.parquet"
    pq.write_table(pa.table({"s": ["a", "z", "b", "y"], "i": pa.array([1, 9, 2, 8], pa.int32()),
                             "f": pa.array([-0.0, 5.0, 1.0, 2.0])}), path, row_group_size=2,
                   bloom_filter_options={c: {"ndv": 16} for c in ("s", "i", "f")})
    return path


def _prunekit_kept(path, where: str) -> list[int]:
    stats = prunekit.parquet.row_group_statistics(path, bloom_filters=True)
    pred = pk.PruningPredicate(where, prunekit.parquet.data_schema(stats))
    return pred.classify(stats).tolist()


@pytest.mark.parametrize("where", ["s = 'c' OR i = 5", "NOT (s <> 'c' AND i <> 5)"])
def test_or_over_columns_datafusion_keeps_prunekit_prunes(wide_file, where):
    assert _count(wide_file, where) == 0  # no row matches
    assert _datafusion_bloom(wide_file, where) == (2, 2)  # DataFusion 55 keeps both
    assert _prunekit_kept(wide_file, where) == [NONE, NONE]
    # The same filters suffice for DataFusion on one column: the files are fine.
    assert _datafusion_bloom(wide_file, "s = 'c'") == (2, 0)
    assert _prunekit_kept(wide_file, "s = 'c'") == [NONE, NONE]


def test_zero_is_looked_up_as_both_zeros(wide_file):
    # Row group 0 holds -0.0, and -0.0 = 0.0 (docs/semantics.md §2; DataFusion agrees without its
    # filters). A filter holds the hash of the bits written: prunekit probes both zeros.
    assert _count(wide_file, "f = 0.0", bloom=False) == 1
    assert _prunekit_kept(wide_file, "f = 0.0") == [MAYBE, NONE]
    if datafusion.__version__.startswith("55."):
        # DataFusion 55 probes only 0.0's bits, drops row group 0 and answers 0: a wrong result.
        assert _count(wide_file, "f = 0.0", bloom=True) == 0


def test_cli_bloom_flag(wide_file, capsys):
    import json

    from prunekit.cli import main

    def skipped(*extra) -> int:
        assert main(["scan", str(wide_file), "--where", "s = 'c' OR i = 5", "--format", "json",
                     *extra]) == 0
        return json.loads(capsys.readouterr().out)["summary"]["skip"]["containers"]

    assert skipped() == 0
    assert skipped("--bloom") == 2


def test_spark_sql_rendering_treats_value_sets_as_unknown():
    # The program as Spark SQL (engine="sql") has no membership test: those slots read as
    # unknown, which is sound; the kernel engine uses them.
    from prunekit.spark_glue import to_sql  # plain Python: pyspark is imported by its callers

    pred = pk.PruningPredicate("x = 5", {"x": I})
    schema = table(I, [{"min": 1, "max": 9}]).schema
    text = to_sql.to_spark_sql(pred, schema)
    assert "`values`" not in text and "`bloom`" not in text and "`min`" in text
