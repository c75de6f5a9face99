"""Batches read through a schema's recipe (``recipe.Recipe``) give the slots and parameters
the general path (``inputs.read_slots``) gives (and, read straight into a kernel's
arguments, the arguments its slots give), and every batch the recipe does not cover
goes the general way: struct nulls, bounds to conform, uint64 counts, value sets, malformed
statistics (whose errors stay the general path's)."""

import ctypes
import datetime as dt
from decimal import Decimal

import numpy as np
import pyarrow as pa
import pytest

import prunekit as pk
from prunekit.errors import StatisticsError
from prunekit.kernels import codegen, inputs, slots
from prunekit.kernels import recipe as recipes
from tests.support import tiers

N = 23


def _column(lo, hi, t, *, nulls=None, mask=None, extra=None, struct_mask=None):
    arrays = {"min": pa.array(lo, t, mask=mask), "max": pa.array(hi, t, mask=mask),
              "null_count": nulls if nulls is not None else pa.array(np.arange(N) % 3)}
    arrays.update(extra or {})
    return pa.StructArray.from_arrays(list(arrays.values()), list(arrays),
                                      mask=struct_mask)


def _ints(t=None, **kw):
    t = t or pa.int64()
    lo = np.arange(N) * 10
    return _column(lo, lo + 5, t, **kw)


def _strings(t=None, **kw):
    t = t or pa.string()
    words = [f"w{i:02d}" for i in range(N)]
    return _column(words, [w + "z" for w in words], t, **kw)


_MASK = np.arange(N) % 4 == 1
_FLAGS = {"min_exact": pa.array(np.arange(N) % 2 == 0), "max_exact": pa.nulls(N, pa.bool_())}
_DATES = [dt.date(2020, 1, 1) + dt.timedelta(days=int(d)) for d in np.arange(N) * 3]

# (name, SQL, column type, statistics column, row counts, whether the recipe reads it)
CASES = [
    ("ints", "x > 40 AND x < 150", pa.int64(), _ints(), None, True),
    ("nulls in bounds", "x > 40", pa.int64(), _ints(mask=_MASK), None, True),
    ("int32 counts", "x IS NULL OR x = 50", pa.int64(),
     _ints(nulls=pa.array(np.arange(N) % 2, pa.int32())), None, True),
    ("exactness flags", "x = 50", pa.int64(), _ints(extra=_FLAGS), None, True),
    ("unknown null counts", "x <> 50", pa.int64(), _ints(nulls=pa.nulls(N, pa.int64())), None,
     True),
    ("dates", "x >= DATE '2020-02-01'", pa.date32(),
     _column(_DATES, _DATES, pa.date32()), None, True),
    ("booleans", "x", pa.bool_(),
     _column(np.arange(N) % 2 == 0, np.arange(N) % 3 == 0, pa.bool_(), mask=_MASK), None, True),
    ("short strings", "x >= 'w05' AND x < 'w1'", pa.string(), _strings(), None, True),
    ("large strings", "x = 'w07z'", pa.string(), _strings(pa.large_string(), mask=_MASK), None,
     True),
    ("long strings", "x > 'w05 and beyond'", pa.string(),
     _column([f"long word {i:02d}" for i in range(N)], [f"long word {i:02d}z" for i in range(N)],
             pa.string()), None, True),
    ("uint64 row counts", "x > 40", pa.int64(), _ints(), pa.array(np.full(N, 9), pa.uint64()),
     False),
    ("struct nulls", "x > 40", pa.int64(), _ints(struct_mask=pa.array(_MASK)), None, None),
    ("int32 bounds of an int64 column", "x > 40", pa.int64(), _ints(pa.int32()), None, False),
    ("timestamps of another unit", "x > TIMESTAMP '2020-01-01 00:00:01'", pa.timestamp("us"),
     _column(np.arange(N) * 10**9, np.arange(N) * 10**9 + 5, pa.timestamp("ns")), None, False),
    ("decimals", "x > 1.5", pa.decimal128(9, 2),
     _column([Decimal(i) / 4 for i in range(N)], [Decimal(i) / 2 for i in range(N)],
             pa.decimal128(9, 2)), None, False),
    ("uint64 null counts", "x IS NULL", pa.int64(),
     _ints(nulls=pa.array(np.arange(N) % 2, pa.uint64())), None, False),
    ("value sets", "x = 50", pa.int64(),
     _ints(extra={"values": pa.array([[50, 51]] * N, pa.list_(pa.int64()))}), None, False),
    ("LIKE patterns", "x LIKE 'w0_z%'", pa.string(), _strings(), None, False),
    ("string views", "x > 'w05'", pa.string(), _strings(pa.string_view()), None, False),
    ("a column without statistics", "y > 4 OR x > 40", pa.int64(), _ints(), None, True),
]


def _statistics(column, rows, offset):
    rows = rows if rows is not None else pa.array(np.full(N, 9))
    table = pa.table({"row_count": rows, "x": column})
    return table.slice(offset).to_batches()[0]


def _general(monkeypatch, program, batch):
    with monkeypatch.context() as m:
        m.setattr(recipes.Plan, "recipe", lambda self, schema: None)
        return inputs.prepare(program, batch, {}, frozenset())


def _same_slots(a, b, n):
    assert a.layout == b.layout
    assert a.bit_offset == b.bit_offset
    if a.values is None:
        return
    if a.bits:
        bits = slice(a.bit_offset, a.bit_offset + n)
        assert (np.unpackbits(a.values, bitorder="little")[bits]
                == np.unpackbits(b.values, bitorder="little")[bits]).all()
    else:
        assert np.array_equal(a.values, b.values)
    assert (a.keys_of is None) == (b.keys_of is None)
    if a.keys_of is not None:
        assert np.array_equal(a.keys_of, b.keys_of)
    assert np.array_equal(a.valid_mask(n), b.valid_mask(n))


def _table_slots(prepared):
    """The slots a kernel reads through ``prepared.table``, copied back out of memory."""
    out = []
    for row, entry, kind in zip(prepared.table.tolist(), prepared.layout, prepared.dtypes,
                                strict=True):
        if entry[0] == "absent":
            assert kind is None
            out.append(slots.ABSENT)
            continue
        dtype, step = kind if isinstance(kind, tuple) else (kind, 1)
        values = np.frombuffer(ctypes.string_at(row[0], row[1] * step * dtype.itemsize),
                               dtype)[::step]
        bitmap = np.frombuffer(ctypes.string_at(row[3], row[4]), np.uint8) if row[3] else None
        data = (np.frombuffer(ctypes.string_at(row[5], row[6]), np.uint8)
                if entry[1] == "keys" else None)
        assert (entry[0] == "masked") == (bitmap is not None)
        out.append(slots.SlotData(values, bitmap, row[2], entry[1] is True, data))
    return out


def _keys(s, n):
    try:
        return s.value_array(n).tolist()
    except slots.LongStrings:
        return "long"


def _same_kernel_inputs(program, batch, want, read_by_recipe):
    """A batch read straight into a kernel's table (``for_kernel``), through pyarrow and in
    compiled code (``exported``), gives the layout, dtypes, keyed bounds, parameters and the
    statistics behind the table's addresses that the general path's slots give."""
    recipes.use_compiled_read(wait=True)
    plan = recipes.plans.get(program, recipes.Plan)
    recipe = plan.recipe(batch.schema)
    got = [inputs.prepare(program, batch, {}, frozenset(), for_kernel=True)]
    assert (got[0].slots is None) == read_by_recipe  # else the general path's slots
    if read_by_recipe:
        assert (recipe.compiled is None) == any(kind == recipes.READ_FLAG for kind, _, _ in
                                                recipe.slots)
        with_pyarrow = recipe.kernel_inputs(plan, batch, len(batch), None, True)
        got.append(inputs.Prepared(len(batch), None, want.params, want.flags, with_pyarrow[3]))
        got[-1].__dict__.update(_table=with_pyarrow[0], _layout=with_pyarrow[1],
                                _dtypes=with_pyarrow[2])
    n = want.n
    for prepared in got:
        assert prepared.layout == want.layout
        assert prepared.dtypes == want.dtypes
        assert codegen.keyed_bounds(prepared) == codegen.keyed_bounds(want)
        assert [np.asarray(p).tolist() for p in prepared.params] == \
            [np.asarray(p).tolist() for p in want.params]
        for a, b in zip(_table_slots(prepared), want.slots, strict=True):
            assert a.layout[:2] == b.layout[:2] and a.bit_offset == b.bit_offset
            assert np.array_equal(a.valid_mask(n), b.valid_mask(n))
            if a.values is not None:
                assert _keys(a, n) == _keys(b, n)
    for a, b in zip(_table_slots(want), want.slots, strict=True):  # the general path's table
        assert np.array_equal(a.valid_mask(n), b.valid_mask(n))
        if a.values is not None:
            assert _keys(a, n) == _keys(b, n)


@pytest.mark.parametrize("offset", [0, 5])
@pytest.mark.parametrize("case", CASES, ids=[c[0] for c in CASES])
def test_a_recipe_reads_what_the_general_path_reads(case, offset, monkeypatch, request):
    """The kernel's inputs are compared with the general path's for every case; the fused
    kernel's answer end to end for a sample (``tiers.fused_backend``)."""
    _, sql, t, column, rows, covered = case
    pred = pk.PruningPredicate(sql, {"x": t, "y": pa.int64()})
    batch = _statistics(column, rows, offset)
    for program in (pred.program, pred.prune_program):
        recipe = recipes.plans.get(program, recipes.Plan).recipe(batch.schema)
        if covered is not None:
            assert (recipe is not None) == covered
        if covered is None:  # struct nulls: a recipe, but this batch goes the general way
            assert recipe.read(recipes.plans.get(program, recipes.Plan), batch, len(batch),
                               None, True) is None
        got = inputs.prepare(program, batch, {}, frozenset())
        want = _general(monkeypatch, program, batch)
        assert got.n == want.n == N - offset
        for a, b in zip(got.slots, want.slots, strict=True):
            _same_slots(a, b, got.n)
        assert [np.asarray(p).tolist() for p in got.params] == \
            [np.asarray(p).tolist() for p in want.params]
        assert got.flags == want.flags
        _same_kernel_inputs(program, batch, want, read_by_recipe=covered is True)
    stats = pk.Statistics.from_arrow(pa.Table.from_batches([batch]))
    for backend in {tiers.fused_backend(request.node.nodeid.split("[")[0]), "vm"}:
        np.testing.assert_array_equal(pred.classify(stats, backend=backend),
                                      pred.classify(stats, backend="numpy"))


@pytest.mark.parametrize("bad", [
    pa.StructArray.from_arrays([pa.array(["a"] * N), pa.array(["b"] * N), pa.array([0] * N)],
                               ["min", "max", "null_count"]),
    pa.array(np.arange(N)),
])
def test_malformed_statistics_keep_the_general_paths_error(bad):
    """A bound of the wrong type, or a column that is no struct, is named in an error, also
    where no slot reads it (``x > 5`` reads only max): the recipe leaves such a schema to the
    general path."""
    pred = pk.PruningPredicate("x > 5", {"x": pa.int64()})
    stats = pk.Statistics.from_arrow(pa.table({"row_count": np.full(N, 9), "x": bad}))
    with pytest.raises(StatisticsError, match="'x'|x.min|x.max"):
        pred.prune(stats)


def test_a_predicate_reads_batches_of_alternating_schemas():
    """The recipe is kept for the schema last read: batches of two schemas in turn are each
    read with their own (field order and bound nulls differ)."""
    pred = pk.PruningPredicate("x > 40", {"x": pa.int64()})
    first = _statistics(_ints(), None, 0)
    lo = np.arange(N) * 10
    other = pa.StructArray.from_arrays(
        [pa.array(np.zeros(N, np.int64)), pa.array(lo + 5, mask=_MASK), pa.array(lo)],
        ["null_count", "max", "min"])
    second = _statistics(other, None, 0)
    want = {id(b): pred.classify(pk.Statistics.from_arrow(b), backend="numpy").tolist()
            for b in (first, second)}
    for batch in (first, second, first, second):
        got = pred.classify(pk.Statistics.from_arrow(batch), backend="numba").tolist()
        assert got == want[id(batch)]


def test_a_statistics_object_keeps_its_batches_for_its_table():
    """Calls on one Statistics reuse its batches (pyarrow keeps what it boxed for them), and
    their caches; a replaced table gets its own, and answers as a new Statistics would."""
    pred = pk.PruningPredicate("x > 'long word 10'", {"x": pa.string()})
    stats = pk.Statistics.from_arrow(pa.Table.from_batches([_statistics(_column(
        [f"long word {i:02d}" for i in range(N)], [f"long word {i:02d}z" for i in range(N)],
        pa.string()), None, 0)]))
    first = pred.classify(stats)
    batches, caches = stats.batches_and_caches()
    assert stats.batches_and_caches()[0][0] is batches[0]
    assert stats.batches_and_caches()[1] is caches and caches[0]  # ranked codes kept
    words = [f"long word {N - i:02d}" for i in range(N)]
    stats.table = pa.Table.from_batches([_statistics(_column(words, words, pa.string()),
                                                     None, 0)])
    assert stats.batches_and_caches()[0][0] is not batches[0]
    assert stats.batches_and_caches()[1] is not caches
    got = pred.classify(stats)
    assert got.tolist() == pred.classify(pk.Statistics.from_arrow(stats.table)).tolist()
    assert got.tolist() != first.tolist()


def test_a_pickled_statistics_leaves_its_kept_batches_behind():
    import pickle

    pred = pk.PruningPredicate("x > 40", {"x": pa.int64()})
    stats = pk.Statistics.from_arrow(pa.Table.from_batches([_statistics(_ints(), None, 0)]))
    want = pred.classify(stats).tolist()
    lean = len(pickle.dumps(stats))
    assert "_batches" in stats.__dict__
    copy = pickle.loads(pickle.dumps(stats))
    assert "_batches" not in copy.__dict__
    assert pred.classify(copy).tolist() == want
    assert len(pickle.dumps(copy)) == lean


def _compiled_read(program, batch):
    recipes.use_compiled_read(wait=True)
    plan = recipes.plans.get(program, recipes.Plan)
    return plan.recipe(batch.schema).compiled_inputs(plan, batch, len(batch))


def _children_with_offsets():
    """A struct whose children are slices of longer arrays (offsets of their own), min and max
    NULL in different rows at one bit offset, and a batch sliced on top of that."""
    lo = np.arange(N + 7) * 10
    mins = pa.array(lo, mask=np.arange(N + 7) % 5 == 2).slice(3, N)
    maxs = pa.array(lo + 5, mask=np.arange(N + 7) % 3 == 0).slice(3, N)
    column = pa.StructArray.from_arrays([mins, maxs, pa.array(np.arange(N) % 3)],
                                        ["min", "max", "null_count"])
    return pa.table({"row_count": np.full(N, 9), "x": column}).slice(2).to_batches()[0]


def test_compiled_read_composes_offsets_and_pairs_only_equal_bitmaps(monkeypatch):
    pred = pk.PruningPredicate("x > 40 AND x < 150", {"x": pa.int64()})
    batch = _children_with_offsets()
    for program in (pred.program, pred.prune_program):
        want = _general(monkeypatch, program, batch)
        read = _compiled_read(program, batch)
        assert read is not None
        assert read[1] == want.layout and ("masked", False) in read[1]
        assert not any(len(entry) > 2 for entry in read[1])  # min and max NULL apart
        _same_kernel_inputs(program, batch, want, read_by_recipe=True)
    stats = pk.Statistics.from_arrow(pa.Table.from_batches([batch]))
    np.testing.assert_array_equal(pred.classify(stats, backend="numba"),
                                  pred.classify(stats, backend="numpy"))


def test_compiled_read_leaves_struct_nulls_among_the_rows_to_the_general_path():
    pred = pk.PruningPredicate("x > 40", {"x": pa.int64()})
    mask = np.zeros(N, bool)
    mask[1] = True  # a struct NULL in row 1 only
    table = pa.table({"row_count": np.full(N, 9), "x": _ints(struct_mask=pa.array(mask))})
    among = table.to_batches()[0]
    assert _compiled_read(pred.program, among) is None
    before = table.slice(2).to_batches()[0]  # the NULL row sliced away
    read = _compiled_read(pred.program, before)
    assert read is not None and read[1] == inputs.prepare(pred.program, before, {},
                                                           frozenset()).layout
    for batch in (among, before):
        stats = pk.Statistics.from_arrow(pa.Table.from_batches([batch]))
        np.testing.assert_array_equal(pred.classify(stats, backend="numba"),
                                      pred.classify(stats, backend="numpy"))


def test_compiled_read_refuses_a_tree_shorter_than_the_batch():
    """``fill`` checks every array's length against the rows it reads (the C data interface
    carries no buffer sizes): a hand-made tree whose child is too short is refused."""
    from prunekit.kernels import exported

    values = np.arange(4, dtype=np.int64)
    buffers = np.array([0, values.ctypes.data], np.int64)
    child = np.array([3, 0, 0, 2, 0, buffers.ctypes.data, 0, 0, 0, 0], np.int64)
    children = np.array([child.ctypes.data], np.int64)
    column = np.array([4, 0, 0, 1, 1, np.array([0], np.int64).ctypes.data,
                       children.ctypes.data, 0, 0, 0], np.int64)
    columns = np.array([column.ctypes.data], np.int64)
    top = np.array([4, 0, 0, 1, 1, 0, columns.ctypes.data, 0, 0, 0], np.int64)
    paths = np.array([[0, 0]], np.int64)
    slot_kinds = np.array([[slots.READ_VALUES, 0, 8, -1]], np.int64)
    table, codes = np.zeros((1, 7), np.int64), np.zeros(1, np.int8)
    assert exported.fill(top.ctypes.data, paths, slot_kinds, 4, table, codes) == -1
    child[0] = 4  # long enough: read
    assert exported.fill(top.ctypes.data, paths, slot_kinds, 4, table, codes) == 0
    assert table[0, :2].tolist() == [values.ctypes.data, 4] and codes.tolist() == [1]


def test_compiled_read_releases_what_it_exports():
    """Arrow's release callback empties the exported struct's ``release`` field: after a read,
    and after a read that failed, it is empty (nothing held past the call)."""
    from prunekit.kernels import exported

    batch = _statistics(_ints(), None, 0)
    pred = pk.PruningPredicate("x > 40", {"x": pa.int64()})
    assert _compiled_read(pred.program, batch) is not None
    assert exported._struct.words[exported._RELEASE] == 0
    with pytest.raises(Exception):  # noqa: B017 - Numba's typing error for a float table
        exported.read(batch, np.zeros((1, 2), np.int64), np.zeros((1, 4), np.int64), N,
                      np.zeros((1, 7), np.float64), np.zeros(1, np.int8))
    assert exported._struct.words[exported._RELEASE] == 0


def test_a_statistics_object_keeps_its_batch_exported_from_the_second_call():
    """Over one Statistics, the compiled read exports a batch per call the first time, and
    from the second call on (any predicate) reads one export kept in the batch's cache; the
    answers stay NumPy's, a replaced table is exported anew, and the export is released when
    the Statistics goes."""
    import gc

    from prunekit.kernels import exported

    recipes.use_compiled_read(wait=True)
    stats = pk.Statistics.from_arrow(pa.Table.from_batches([_children_with_offsets()]))
    preds = [pk.PruningPredicate(sql, {"x": pa.int64()})
             for sql in ("x > 40 AND x < 150", "x = 55 OR x IS NULL")]

    def check(stats):
        fresh = pk.Statistics.from_arrow(stats.table)
        for pred in preds:
            for call in (pred.classify, pred.prune):
                assert call(stats, backend="numba").tolist() == \
                    call(fresh, backend="numpy").tolist()

    cache = stats.batches_and_caches()[1][0]
    seen = []
    for _ in range(3):
        check(stats)
        seen.append(cache[exported.KEPT])
    assert isinstance(seen[1], exported._Export) and seen[2] is seen[1]
    words = seen[1].words
    assert words[exported._RELEASE] != 0  # held while the Statistics keeps it
    lo = np.arange(N)[::-1] * 10
    stats.table = pa.table({"row_count": np.full(N, 9), "x": _column(lo, lo + 5, pa.int64())})
    check(stats)
    check(stats)
    assert stats.batches_and_caches()[1][0][exported.KEPT] is not seen[1]
    gc.collect()
    assert words[exported._RELEASE] != 0  # the old cache still holds the old export
    del seen, cache
    gc.collect()
    assert words[exported._RELEASE] == 0


def test_two_kept_exports_of_one_batch_are_each_released():
    """Two threads may both export a batch seen once: the export not stored is released when
    its reader drops it, and the stored one is kept."""
    import gc

    from prunekit.kernels import exported

    batch = _statistics(_ints(), None, 0)
    cache = {exported.KEPT: False}
    first = exported._keep(batch, cache)
    second = exported._keep(batch, cache)
    assert cache[exported.KEPT] is second
    words = first.words
    del first
    gc.collect()
    assert words[exported._RELEASE] == 0 and second.words[exported._RELEASE] != 0


def test_kernels_kept_per_layout_follow_the_layout_and_the_flags():
    """A kernel kept with a layout the compiled read found (``Prepared.kernels``) answers only
    batches of that layout and those flags: batches of one schema, with and without NULL
    bounds, under both settings of ``no_nan``, in turn, answer as NumPy does."""
    recipes.use_compiled_read(wait=True)
    pred = pk.PruningPredicate("x > 40 AND f < 2.5", {"x": pa.int64(), "f": pa.float64()})
    f_lo = np.linspace(0, 5, N)
    f_hi = np.where(np.arange(N) % 3 == 0, np.nan, f_lo + 1)

    none = pa.array(np.zeros(N, np.int64))  # no NULL rows: ALL_MATCH is possible

    def batch(mask):
        f = _column(f_lo, f_hi, pa.float64(), mask=mask, nulls=none)
        table = pa.table({"row_count": np.full(N, 9), "x": _ints(nulls=none), "f": f})
        return table.to_batches()[0]

    batches = [batch(None), batch(np.arange(N) % 4 == 3)]
    answers = set()
    for _ in range(2):
        for b in batches:
            for no_nan in ([], ["f"]):
                got = pred.classify(pk.Statistics.from_arrow(b, no_nan=no_nan), backend="numba")
                want = pred.classify(pk.Statistics.from_arrow(b, no_nan=no_nan),
                                     backend="numpy")
                np.testing.assert_array_equal(got, want)
                answers.add(tuple(got.tolist()))
    assert len(answers) == 4  # layouts and flags each change the answer


@pytest.mark.parametrize("start", [8, 13])
def test_compiled_read_counts_nulls_among_the_rows_of_a_longer_array(monkeypatch, start):
    """A batch sliced out of longer arrays: the compiled reader counts the NULLs among its
    rows (whole words, and bits before and after them), not the array's, so bounds NULL only
    outside the rows are dense, and bounds NULL in every row are absent."""
    n = 1000
    rows = np.arange(n)
    outside = (rows < start) | (rows >= n - 13)  # NULL only where sliced away
    lo = rows * 10
    x = pa.StructArray.from_arrays(
        [pa.array(lo, mask=outside), pa.array(lo + 5, mask=~outside), pa.array(rows % 2)],
        ["min", "max", "null_count"])
    batch = pa.table({"row_count": np.full(n, 9), "x": x}).slice(start, n - start - 13)
    batch = batch.to_batches()[0]
    pred = pk.PruningPredicate("x > 400 AND x < 5000", {"x": pa.int64()})
    want = _general(monkeypatch, pred.program, batch)
    read = _compiled_read(pred.program, batch)
    assert read is not None and read[1] == want.layout
    min_slot = [s.stat for s in pred.program.slots].index("min")
    max_slot = [s.stat for s in pred.program.slots].index("max")
    assert read[1][min_slot] == ("dense", False) and read[1][max_slot] == ("absent", False)


def test_compiled_null_count_matches_numpy():
    from prunekit.kernels import exported

    rng = np.random.default_rng(3)
    for _ in range(300):
        bits = rng.integers(0, 256, int(rng.integers(1, 60))).astype(np.uint8)
        first = int(rng.integers(0, 8 * len(bits)))
        n = int(rng.integers(0, 8 * len(bits) - first + 1))
        valid = np.unpackbits(bits, bitorder="little")[first:first + n].sum()
        assert exported._nulls(bits.ctypes.data, first, n) == n - valid


def test_a_ranked_decimal_without_bounds_in_the_batch_takes_the_general_path():
    """A DECIMAL beyond 18 digits is ranked, not keyed: where the batch holds no statistics
    for it, the compiled read must not take its literal for a string's key (it raised a
    TypeError from deep inside once the compiled read was loaded)."""
    recipes.use_compiled_read(wait=True)
    table = pa.table({"row_count": np.full(N, 3), "x": _ints()})
    schema = {"x": pa.int64(), "b": pa.decimal128(19, 0)}
    for sql in ("0 = b", "b > 5 OR x > 40", "x = 50 AND b IN (1, 2)"):
        pred = pk.PruningPredicate(sql, schema)
        stats = pk.Statistics.from_arrow(table)
        assert pred.classify(stats, backend="numba").tolist() == \
            pred.classify(stats, backend="numpy").tolist(), sql
