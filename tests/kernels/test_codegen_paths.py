"""Kernel specialisations give the interpreter's answers: bit unpacking, flags baked in as
constants, unrolled IN lists (counting form) and long IN lists (searches that start from the
previous container's answer). Each test also checks that the path it means is the one taken.
The compiled interpreter (``vm.py``) answers each case too."""

import re

import numpy as np
import pyarrow as pa
import pytest

import prunekit as pk
from prunekit.kernels import codegen, compiled, inputs, run, slots, string_codes
from prunekit.kernels import recipe as recipes
from prunekit.kernels.codegen import emit
from tests.support import tiers


def test_unpack_bits_matches_numpy():
    rng = np.random.default_rng(0)
    for _ in range(3000):
        bits = rng.integers(0, 256, int(rng.integers(1, 200))).astype(np.uint8)
        start = int(rng.integers(0, 8 * len(bits)))
        if rng.random() < 0.5:  # on a byte: whole words, then single bytes
            start -= start % 8
        m = int(rng.integers(0, 8 * len(bits) - start + 1))
        dst = np.full(((m + 7) // 8 + 1) * 8, 7, np.uint8)
        compiled.unpack_bits(bits, start, m, dst)
        expected = np.unpackbits(bits, bitorder="little")[start:start + m]
        np.testing.assert_array_equal(dst[:m], expected)


def _source(pred: pk.PruningPredicate, stats: pk.Statistics) -> str:
    batch = stats.table.to_batches()[0]
    prepared = run.prepare(pred.program, batch, stats.nan_in_bounds, stats.no_nan)
    layout, lengths, flags, dtypes = run.shape_of(prepared)
    return emit(pred.program, layout, list_lengths=lengths, flags=flags, dtypes=dtypes)


_running: list[str] = [""]  # the test function now running (any of its parametrized cases)


@pytest.fixture(autouse=True)
def _which_test(request):
    _running[0] = request.node.nodeid.split("[")[0]


def _fused(kind: str = "classify") -> str:
    """The backend of a call a parametrized test makes in each of its cases
    (``tiers.fused_backend``)."""
    return tiers.fused_backend(_running[0], kind)


def _agree(pred: pk.PruningPredicate, stats: pk.Statistics) -> np.ndarray:
    """The answer, the NumPy interpreter's and the compiled one's equal (whose lists are
    searched the same two ways: counted up to 16 elements, else from a hint), and the fused
    kernel's: for the first case a test function meets under ``make test`` (its first
    parametrized case, in each test process; a compile is seconds, cold, and the run checks
    that its kernels took every path of the generator), for every case in the deep tier."""
    got = pred.classify(stats, backend="numpy")
    np.testing.assert_array_equal(got, pred.classify(stats, backend="vm"))
    if _fused() == "numba":
        np.testing.assert_array_equal(pred.classify(stats, backend="numba"), got)
    return got


def _column(lo, hi, t, rng, nulls=0.1):
    mask = rng.random(len(lo)) < nulls
    return pa.StructArray.from_arrays(
        [pa.array(lo, t, mask=mask), pa.array(hi, t, mask=rng.random(len(lo)) < nulls),
         pa.array(rng.integers(0, 3, len(lo)))], ["min", "max", "null_count"])


def _table(lo, hi, t, rng, nulls=0.1) -> pa.Table:
    return pa.table({"row_count": pa.array(np.full(len(lo), 5)),
                     "x": _column(lo, hi, t, rng, nulls)})


def _bounds(rng, n, kind):
    """Clustered (consecutive containers in one gap of the list: the search's hint holds),
    random (it misses), narrow (ranges a list can cover) and extreme (widths that wrap)."""
    if kind == "clustered":
        lo = np.arange(n) * 7 + rng.integers(0, 3, n)
        return lo, lo + rng.integers(0, 9, n)
    if kind == "random":
        lo = rng.integers(-50, 400, n)
        return lo, lo + rng.integers(0, 60, n)
    if kind == "narrow":
        lo = rng.integers(0, 300, n)
        return lo, lo + rng.integers(0, 3, n)
    lo = rng.choice(np.array([-2**63, -5, 0, 2**62], np.int64), n)
    hi = rng.choice(np.array([2**63 - 1, 3, 10, 2**62 + 1], np.int64), n)
    return np.minimum(lo, hi), np.maximum(lo, hi)


LONG = sorted({int(v) for v in np.random.default_rng(3).integers(0, 300, 40)} | {100, 101, 102})


@pytest.mark.parametrize("kind", ["clustered", "random", "narrow", "extreme"])
@pytest.mark.parametrize("negate", [False, True])
def test_long_in_list_searches_from_a_hint(kind, negate):
    rng = np.random.default_rng(len(kind) + negate)
    lo, hi = _bounds(rng, 3000, kind)
    stats = pk.Statistics.from_arrow(_table(lo, hi, pa.int64(), rng))
    text = f"x {'NOT ' if negate else ''}IN ({', '.join(map(str, LONG))})"
    pred = pk.PruningPredicate(text, {"x": pa.int64()})
    source = _source(pred, stats)
    assert "any_in_from(" in source and "list_gap(" in source  # searched, not unrolled
    # the chunk and block sizes the comments measured (a typo once made chunks 40964096 long:
    # every per-chunk buffer left the cache, and string queries ran 3x slower)
    assert f"\nCHUNK = {codegen.CHUNK}\nBLOCK = {codegen.BLOCK}\n" in source
    got = _agree(pred, stats)
    # Sliced at an odd offset and cut into batches: each range starts its own hint.
    for part in (stats.table.slice(5, 1000), pa.Table.from_batches(
            stats.table.to_batches(max_chunksize=333))):
        np.testing.assert_array_equal(_agree(pred, pk.Statistics.from_arrow(part)),
                                      got[5:1005] if part.num_rows == 1000 else got)
    assert len(set(got.tolist())) > 1 or kind == "extreme"


def test_long_in_list_over_floats_uint64_and_strings():
    rng = np.random.default_rng(7)
    n = 2000
    flo = np.sort(rng.normal(size=n) * 10)
    fhi = flo + rng.random(n)
    flo[rng.random(n) < 0.05] = np.nan  # NaN bounds never match a listed number
    fhi[rng.random(n) < 0.05] = np.nan
    values = ", ".join(f"{v:.2f}" for v in np.linspace(-20, 20, 30))
    for t, lo, hi, text in [
        (pa.float64(), flo, fhi, f"x IN ({values})"),
        (pa.uint64(), np.arange(n, dtype=np.uint64) * 3 + np.uint64(2**63 - 100),
         np.arange(n, dtype=np.uint64) * 3 + np.uint64(2**63 - 98),
         f"x IN ({', '.join(str(2**63 + k) for k in range(0, 400, 7))})"),
        (pa.string(), [f"k{i:05d}" for i in range(n)], [f"k{i:05d}z" for i in range(n)],
         f"x IN ({', '.join(repr(f'k{i:05d}') for i in range(0, n, 60))})"),
    ]:
        stats = pk.Statistics.from_arrow(_table(lo, hi, t, rng))
        pred = pk.PruningPredicate(text, {"x": t})
        assert "any_in_from(" in _source(pred, stats)
        assert pk.MAYBE_MATCH in _agree(pred, stats)


@pytest.mark.parametrize("t", [pa.int32(), pa.int64(), pa.uint64(), pa.float64()])
def test_unrolled_in_list_counts(t):
    rng = np.random.default_rng(11)
    lo, hi = _bounds(rng, 2000, "narrow")
    if pa.types.is_floating(t):
        lo, hi = lo.astype(float), hi.astype(float)
        lo[rng.random(len(lo)) < 0.05] = np.nan
    stats = pk.Statistics.from_arrow(_table(lo, hi, t, rng))
    for text in ("x IN (3, 17, 42, 43, 44)", "x NOT IN (1, 2, 3, 4)", "x IN (7)"):
        pred = pk.PruningPredicate(text, {"x": t})
        source = _source(pred, stats)
        assert "any_in_from(" not in source and "np.int64(" in source  # unrolled
        got = _agree(pred, stats)
        assert len(set(got.tolist())) > 1


def test_long_and_or_are_folded_in_groups():
    """An AND or OR of more than 16 operands is written as a fold over groups of 16 (one
    expression of thousands of terms makes CPython's compiler recurse too deep)."""
    rng = np.random.default_rng(1)
    n = 500
    lo = rng.integers(0, 100, n)
    stats = pk.Statistics.from_numpy(row_count=np.full(n, 5), columns={
        c: {"min": lo + i, "max": lo + i + rng.integers(0, 20, n),
            "null_count": rng.integers(0, 2, n)} for i, c in enumerate("xy")})
    text = " OR ".join(f"(x > {10 + 3 * k} AND y < {5 * k})" for k in range(20))
    pred = pk.PruningPredicate(text, {"x": pa.int64(), "y": pa.int64()})
    assert {"op:or grouped", "op:and grouped"} <= codegen.paths_of(_source(pred, stats))
    assert len(set(_agree(pred, stats).tolist())) == 3


def test_flags_are_constants_of_the_kernel():
    rng = np.random.default_rng(5)
    lo = rng.normal(size=1000)
    hi = lo + rng.random(1000)
    hi[rng.random(1000) < 0.1] = np.nan
    table = _table(lo, hi, pa.float64(), rng)
    pred = pk.PruningPredicate("x > 0.5 AND NOT (x < 0.9)", {"x": pa.float64()})
    answers, sources = [], set()
    for options in ({}, {"no_nan": ["x"]}, {"nan_bounds": "include"}):
        stats = pk.Statistics.from_arrow(table, **options)
        sources.add(_source(pred, stats))
        answers.append(_agree(pred, stats).tolist())
    assert len(sources) == 3  # one kernel per flag combination
    assert answers[0] != answers[1]  # the flags change the answer, so they are honoured


def _short_keys(strings: list[bytes]) -> np.ndarray | None:
    arr = pa.array(strings, pa.binary())
    keys = np.empty(len(arr), np.int64)
    ok = compiled.short_string_keys(np.frombuffer(arr.buffers()[1], np.int32),
                                    np.frombuffer(arr.buffers()[2], np.uint8), 0, len(arr), keys)
    return keys if ok else None


def test_short_string_keys_order_like_bytes():
    rng = np.random.default_rng(13)
    alphabet = [b"\x00", b"\x01", b"a", b"b", b"\x7f", b"\x80", b"\xff"]

    def word(most):
        return b"".join(rng.choice(alphabet, int(rng.integers(0, most + 1))))

    bounds = [word(7) for _ in range(300)] + [b"", b"\x00", b"\xff" * 7]
    literals = [word(10) for _ in range(300)] + [b"\xff" * 8, b"\x00" * 9]
    keys = _short_keys(bounds)
    lit = [slots.short_key(v) for v in literals]
    for i, a in enumerate(bounds):
        for j, b in enumerate(bounds):
            assert (keys[i] < keys[j]) == (a < b) and (keys[i] == keys[j]) == (a == b)
        for j, b in enumerate(literals):
            assert (keys[i] < lit[j]) == (a < b) and (keys[i] == lit[j]) == (a == b)
    assert _short_keys([b"abc", b"abcdefgh"]) is None  # too long: the caller ranks instead


@pytest.mark.parametrize("offsets, size", [
    ([0, 3, 1, 4], 16),  # goes back
    ([0, 3, 1_000_000, 1_000_002, 1_000_003], 16),  # beyond the buffer, then back
    ([-5, -3, 0], 16),  # negative
    ([-5, -3], 4),  # negative, buffer shorter than a word
    ([0, 9], 16),  # one long string
    ([2, 4, 6], 6),  # every string in the last word
    ([10, 17], 16),  # runs past the end of the buffer
])
def test_short_string_keys_refuse_malformed_offsets(offsets, size):
    """Offsets no Arrow validation would pass answer "not short" (the batch is then ranked by
    Arrow instead) and are never read beyond the buffer."""
    offsets = np.array(offsets, np.int32)
    data = np.arange(size, dtype=np.uint8)
    keys = np.empty(len(offsets) - 1, np.int64)
    pairs = zip(offsets[:-1], offsets[1:], strict=True)
    short = all(0 <= a <= b and b - a <= 7 and b <= size for a, b in pairs)
    assert compiled.short_string_keys(offsets, data, 0, len(keys), keys) == short


def test_short_string_keys_answer_as_ranks(monkeypatch):
    """Strings keyed where they are read (kernel and interpreter) and ranked: the same."""
    rng = np.random.default_rng(17)
    words = sorted({"", "a", "ab", "b", "k", "kal", "l", "m\u00e9", "zzzzzzz", "\u00e9"})
    pick = np.sort(rng.integers(0, len(words), (1500, 2)), axis=1)
    table = _table([words[i] for i in pick[:, 0]], [words[i] for i in pick[:, 1]],
                   pa.string(), rng).slice(3)
    queries = ["x >= 'k' AND x < 'l'", "x = 'kal' OR x > 'm'", "x IN ('a', 'b', 'kalx')",
               "x LIKE 'k%'", "x < 'abcdefghij' OR x = 'zzzzzzzz'"]

    def outcomes(path):
        used = []
        real_slot, real_rank = string_codes.string_slot, string_codes.code_bounds
        with monkeypatch.context() as m:
            m.setattr(string_codes, "string_slot", lambda a: used.append("keyed") or real_slot(a))
            m.setattr(string_codes, "code_bounds",
                      lambda *a: used.append("ranked") or real_rank(*a))
            if path == "ranked":
                m.setattr(string_codes, "_keyable", lambda owners: False)
            got = [_agree(pk.PruningPredicate(q, {"x": pa.string()}),
                          pk.Statistics.from_arrow(table)) for q in queries]
        assert set(used) == {path}
        return got

    for keyed, ranked in zip(outcomes("keyed"), outcomes("ranked"), strict=True):
        np.testing.assert_array_equal(keyed, ranked)
        assert len(set(ranked.tolist())) > 1


def test_interpreter_keys_equal_kernel_keys():
    """``slots.short_keys`` (NumPy) and ``compiled.short_string_keys`` agree, on a slice."""
    rng = np.random.default_rng(5)
    alphabet = [b"\x00", b"a", b"\x7f", b"\x80", b"\xff"]
    strings = [b"".join(rng.choice(alphabet, int(rng.integers(0, 8)))) for _ in range(999)]
    arr = pa.array(strings, pa.binary()).slice(4)
    offsets = np.frombuffer(arr.buffers()[1], np.int32)[arr.offset:]
    data = np.frombuffer(arr.buffers()[2], np.uint8)
    numba_keys = np.empty(len(arr), np.int64)
    assert compiled.short_string_keys(offsets, data, 0, len(arr), numba_keys)
    np.testing.assert_array_equal(slots.short_keys(offsets, data, len(arr)), numba_keys)
    with pytest.raises(slots.LongStrings):
        slots.short_keys(np.array([0, 8], np.int32), np.zeros(8, np.uint8), 1)


@pytest.mark.parametrize("n, long_at", [(10_000, 0), (10_000, 5000), (10_000, 9999),
                                         (200_000, 140_000)])  # the interpreter's third chunk
@pytest.mark.parametrize("parallel", [False, True])
def test_long_string_in_a_keyed_batch_ranks_instead(monkeypatch, n, long_at, parallel):
    """A string of 8 bytes or more, anywhere in the batch, makes the kernel (or interpreter,
    on threads too) keying strings stop; the batch is prepared again with ranked codes and
    answers the same."""
    rng = np.random.default_rng(long_at)
    words = ["a", "b", "k", "ka", "kb", "l", "z"]
    pick = np.sort(rng.integers(0, len(words), (n, 2)), axis=1)
    lo = [words[i] for i in pick[:, 0]]
    hi = [words[i] for i in pick[:, 1]]
    hi[long_at] = "kaaaaaaaaa"  # 10 bytes, between ka and kb
    lo[long_at] = "a"
    table = _table(lo, hi, pa.string(), rng, nulls=0)
    if parallel:
        monkeypatch.setattr(run, "PARALLEL_MIN", 1)
        monkeypatch.setattr(run, "MIN_PIECE", 1)
    pred = pk.PruningPredicate("x = 'kaa' OR x > 'y'", {"x": pa.string()})
    attempts, ranked = [], []  # per reading of the batch: whether strings are keyed
    real_prepare, real_rank = run.prepare, string_codes.code_bounds
    monkeypatch.setattr(run, "prepare", lambda *a: attempts.append(a[5]) or real_prepare(*a))
    monkeypatch.setattr(string_codes, "code_bounds", lambda *a: ranked.append(1) or real_rank(*a))
    got = _agree(pred, pk.Statistics.from_arrow(table))
    assert attempts[:2] == [True, False] and ranked  # keyed in the kernel first, then ranked
    truth = np.array([(a <= "kaa" <= b) or b > "y" for a, b in zip(lo, hi, strict=True)])
    assert (got[~truth] == 0).all() and (got[truth] > 0).all()
    assert got[long_at] == 1  # "kaa" lies in [lo, "kaaaaaaaaa"]


def test_kernel_key_numbers_programs_by_value_in_this_process_only():
    """Kernels are keyed by a number per program (hashing hundreds of steps per call was slow):
    equal programs share it, a different one gets its own, the object itself carries nothing
    (a pickled copy gets its number here by value), and a program that is gone is forgotten."""
    import gc
    import pickle

    schema = pa.schema([("x", pa.int64()), ("y", pa.string())])
    a = pk.PruningPredicate("x > 5 AND y < 'k'", schema).program
    b = pk.PruningPredicate("x > 7 AND y < 'q'", schema).program
    c = pk.PruningPredicate("x > 5 OR y < 'k'", schema).program
    assert a is not b and a.steps == b.steps  # literals are parameters: one kernel
    assert run._program_id(a) == run._program_id(b) != run._program_id(c)
    fields = set(vars(a))
    copy = pickle.loads(pickle.dumps(a))
    assert set(vars(copy)) == fields == set(vars(b))
    assert run._program_id(copy) == run._program_id(a)
    known = id(c)
    del c
    gc.collect()
    assert known not in run._program_ids


def test_main_loop_holds_booleans_as_int64_masks():
    """Every boolean of the main loop is an int64 mask (LLVM packed bools of 64-bit comparisons
    into 32-bit lanes): comparisons and validity are widened where computed, NOT is ``~``, and
    a Python bool (flag, exactness flag) or a mask read as a value is converted where used.
    The answers are the interpreter's, with NULLs, NaN flags, a BOOLEAN column, short and long
    IN lists."""
    rng = np.random.default_rng(12)
    n = 3000
    lo = rng.integers(0, 100, n).astype(float)
    lo[rng.random(n) < 0.05] = np.nan
    table = pa.table({
        "row_count": pa.array(np.full(n, 5)),
        "x": _column(lo, lo + rng.integers(0, 9, n), pa.float64(), rng),
        "b": _column(rng.random(n) < 0.5, rng.random(n) < 0.9, pa.bool_(), rng),
        "k": _column(*_bounds(rng, n, "clustered"), pa.int64(), rng),
    })
    text = ("(x > 50 OR x IS NULL) AND NOT (b = true AND x < 20) "
            f"OR k IN ({', '.join(str(v) for v in range(3, 20_000, 37))}) "
            "OR k IN (3, 17, 42)")
    pred = pk.PruningPredicate(text, {"x": pa.float64(), "b": pa.bool_(), "k": pa.int64()})
    stats = pk.Statistics.from_arrow(table)
    source = _source(pred, stats)
    main = source.split("        for j in range(m):\n")[-1]
    assert "any_in_from(" in source and "(not " not in main and "~s" in main
    for line in main.splitlines():
        if " = (s" in line and any(op in line for op in (" < ", " <= ", " > ", " >= ", " == ")):
            raise AssertionError(f"a comparison left as a bool: {line.strip()}")
    assert len(set(_agree(pred, stats).tolist())) > 1


def test_what_the_source_knows_is_folded_away_and_each_pass_names_its_own_steps():
    """A bounds-only pass reads the counts as unknown: the steps they decide are worked out
    when the kernel is written, so its loop reads no count and is much shorter than the full
    pass; constants (the NaN flags of a column without NaN) fold in the full pass too. Each
    copy of the loop names its steps apart (Numba versions a name assigned in several loops).
    The answers are the interpreters'."""
    rng = np.random.default_rng(3)
    n = 2 * codegen.CHUNK
    lo = rng.integers(0, 100, n)
    stats = pk.Statistics.from_arrow(pa.table({
        "row_count": pa.array(np.full(n, 9)),
        "x": _column(lo, lo + 5, pa.int64(), rng),
        "y": _column(lo / 7, lo / 7 + 1, pa.float64(), rng)}))
    pred = pk.PruningPredicate("x > 5 AND y < 3", {"x": pa.int64(), "y": pa.float64()})
    source = _source(pred, stats)
    cheap = source.split("        if cheap0:\n")[1].split("        else:\n")[0]
    full = source.split("        for j in range(m):\n")[-1]
    counts = [k for k, s in enumerate(pred.program.slots)
              if s.stat in ("row_count", "null_count")]
    assert counts
    for k in counts:
        assert f"x{k}[j]" not in cheap and f"x{k}[j]" in full
    assert not re.search(r"\bs\d+ =", cheap)
    assert 2 * len(re.findall(r"\bc0s\d+ =", cheap)) < len(re.findall(r"\bs\d+ =", full))
    unfolded = [line for line in full.splitlines() if "!= 0)) &" in line or "& (-np" in line]
    assert not unfolded, unfolded  # a constant read as a mask inside an and
    got = _agree(pred, stats)
    assert len(set(got.tolist())) > 1


@pytest.mark.parametrize("sql", ["x = 4242", "x > 900000", "x IS NULL", "x < 100 OR x IS NULL",
                                 "NOT (x >= 5000 AND x <= 600000)", "x IS NOT NULL AND x < 70"])
def test_counts_are_read_only_where_the_bounds_leave_a_container_in(sql):
    """Each chunk is evaluated with row_count and null_count unknown first, and in full only if
    that leaves a container in. Chunks ruled out by bounds, chunks kept by bounds but ruled out
    by their counts (bounds present with every row NULL, or no rows), chunks that need the
    counts for IS NULL, and the waits before the bounds-only pass is tried again after chunks
    that needed both: the answers are the interpreters', for prune and classify."""
    rng = np.random.default_rng(5)
    chunk, n = codegen.CHUNK, codegen.CHUNK * 80
    lo = np.arange(n, dtype=np.int64) * 10 + rng.integers(0, 5, n)
    hi = lo + rng.integers(0, 12, n)
    rows = np.full(n, 50, np.int64)
    nulls = rng.integers(0, 2, n) * rng.integers(0, 3, n)
    for c in (3, 17, 40):  # chunks whose containers hold only NULLs (bounds left in place)
        nulls[c * chunk:(c + 1) * chunk] = 50
    rows[41 * chunk: 41 * chunk + 7] = 0  # empty containers
    stats = pk.Statistics.from_numpy(row_count=rows, columns={"x": {
        "min": lo, "max": hi, "null_count": nulls}})
    pred = pk.PruningPredicate(sql, {"x": pa.int64()})
    assert "if cheap0:" in _source(pred, stats)
    got = _agree(pred, stats)
    assert (got == 0).any()
    kept = pred.prune(stats, backend=_fused("prune"))
    np.testing.assert_array_equal(kept.view(np.int8), (got != 0).view(np.int8))
    np.testing.assert_array_equal(kept, pred.prune(stats, backend="numpy"))


@pytest.mark.parametrize("sql", ["t > 400000 AND s = 'kal'", "t > 400000 AND s < 'c'",
                                 "t > 400000 AND (s IS NULL OR s >= 'tom')",
                                 "t < 100000 OR s = 'kal'"])
@pytest.mark.parametrize("long_in", ["none", "ruled out", "kept"])
def test_strings_are_keyed_only_where_other_bounds_leave_a_container_in(sql, long_in):
    """A program with string bounds keyed in the kernel first evaluates each chunk with the
    strings (and counts) unknown: chunks ruled out by a clustered column are never keyed, so a
    string too long to key there does not stop the kernel, and one in a kept chunk does (the
    caller then ranks the strings). The answers are the interpreters' either way."""
    rng = np.random.default_rng(8)
    chunk, n = codegen.CHUNK, codegen.CHUNK * 40
    t = np.arange(n, dtype=np.int64) * 5 + rng.integers(0, 3, n)  # t > 400000 from chunk 19
    # chunks alternate between words of a and b and words of k, s and t, so that a pass
    # reading one chunk's keys for the next would answer wrongly
    pools = [np.array(sorted(f"{a}{b}l" for a in first for b in "aeiou")) for first in
             ("ab", "kst")]
    w = np.sort(rng.integers(0, 10, (n, 2)), axis=1)
    pool = (np.arange(n) // chunk) % 2
    lo = np.where(pool == 0, pools[0][w[:, 0]], pools[1][w[:, 0]]).astype(object)
    hi = np.where(pool == 0, pools[0][w[:, 1]], pools[1][w[:, 1]]).astype(object)
    if long_in != "none":  # a bound of 9 bytes, in a chunk the range on t rules out or not
        at = 3 * chunk + 5 if long_in == "ruled out" else 30 * chunk + 5
        lo[at], hi[at] = "aaaaaaaaa", "zzzzzzzzz"
    stats = pk.Statistics.from_numpy(row_count=np.full(n, 20), columns={
        "t": {"min": t, "max": t + 4, "null_count": np.zeros(n, np.int64)},
        "s": {"min": lo, "max": hi, "null_count": rng.integers(0, 2, n)}})
    pred = pk.PruningPredicate(sql, {"t": pa.int64(), "s": pa.string()})
    batch = stats.table.to_batches()[0]
    prepared = run.prepare(pred.program, batch, stats.nan_in_bounds, stats.no_nan)
    args = run.kernel_args(pred.program, prepared)
    kernel = run.ready_kernel(pred.program, prepared, args, wait=True)
    assert "if cheap1:" in _source(pred, stats)  # the pass without strings, then with them
    stopped = kernel(0, n, np.empty(n, np.int8), *args) != 0
    keyed_everywhere = sql.startswith("t < 100000")  # no chunk is ruled out without strings
    assert stopped == (long_in == "kept" or (long_in != "none" and keyed_everywhere))
    got = _agree(pred, stats)
    assert (got == 0).any() and (got != 0).any()
    np.testing.assert_array_equal(pred.prune(stats, backend=_fused("prune")),
                                  pred.prune(stats, backend="numpy"))


def _clustered_words(n: int, long_at: int | None = None, seed: int = 21) -> pk.Statistics:
    """``t`` clustered (t = container index) and string bounds ``s`` whose words change pool
    every chunk (keys read from the wrong place answer wrongly), one too long at ``long_at``."""
    rng = np.random.default_rng(seed)
    t = np.arange(n, dtype=np.int64)
    pools = [np.array(sorted(f"{a}{b}l" for a in first for b in "aeiou")) for first in
             ("ab", "kst")]
    w = np.sort(rng.integers(0, 10, (n, 2)), axis=1)
    pool = (t // codegen.CHUNK) % 2
    lo = np.where(pool == 0, pools[0][w[:, 0]], pools[1][w[:, 0]]).astype(object)
    hi = np.where(pool == 0, pools[0][w[:, 1]], pools[1][w[:, 1]]).astype(object)
    if long_at is not None:
        lo[long_at] = "aaaaaaaaaa"
    return pk.Statistics.from_numpy(row_count=np.full(n, 9), columns={
        "s": {"min": lo, "max": hi, "null_count": rng.integers(0, 2, n)},
        "t": {"min": t, "max": t + 3, "null_count": np.zeros(n, np.int64)}})


_WORDS = {"s": pa.string(), "t": pa.int64()}
_AHEAD_SQL = [f"t <= {codegen.KEY_AHEAD * 3 // 2} AND s = 'kal'",  # a string-free pass first
              "s >= 'k' AND s < 'm' OR t = 77"]  # strings decide every chunk: keyed ahead


def _kernel_stops(pred: pk.PruningPredicate, stats: pk.Statistics) -> bool:
    prepared = run.prepare(pred.program, stats.table.to_batches()[0], {}, frozenset())
    args = run.kernel_args(pred.program, prepared)
    kernel = run.ready_kernel(pred.program, prepared, args, wait=True)
    return kernel(0, prepared.n, np.empty(prepared.n, np.int8), *args) != 0


@pytest.mark.parametrize("sql", _AHEAD_SQL)
@pytest.mark.parametrize("long_at", [None, 5, codegen.KEY_AHEAD + codegen.CHUNK + 5])
def test_strings_keyed_ahead_answer_as_the_interpreters(sql, long_at, monkeypatch):
    """Where the string-free pass waits after misses (or there is none), the strings of the
    chunks it will skip are keyed in one stretch of up to ``KEY_AHEAD`` containers, and each
    chunk reads its keys from there: the answers are the interpreters', also in pieces that
    end inside a stretch; a string too long to key, in the first stretch or a later one,
    stops the kernel."""
    n = 2 * codegen.KEY_AHEAD + codegen.KEY_AHEAD // 2 + 3
    stats = _clustered_words(n, long_at)
    pred = pk.PruningPredicate(sql, _WORDS)
    assert _kernel_stops(pred, stats) == (long_at is not None)
    got = _agree(pred, stats)
    assert (got == 0).any() and (got != 0).any()
    monkeypatch.setattr(run, "PARALLEL_MIN", 0)
    monkeypatch.setattr(run, "MIN_PIECE", codegen.KEY_AHEAD // 2 + codegen.CHUNK)
    np.testing.assert_array_equal(pred.classify(stats, backend="numba"), got)
    np.testing.assert_array_equal(pred.prune(stats, backend="numba"),
                                  pred.prune(stats, backend="numpy"))


@pytest.mark.parametrize("kept", [8, 24])
def test_strings_are_keyed_ahead_only_where_the_string_free_pass_would_skip(kept, monkeypatch):
    """Keying ahead keys no chunk that chunk-by-chunk keying would not: a string too long to
    key stops the kernel at the same places either way, around the end of the ``kept``
    chunks (where the string-free pass waits 4 or 16 chunks, then tries again and rules
    chunks out)."""
    chunk, n = codegen.CHUNK, 3 * codegen.KEY_AHEAD + 3
    sql = f"t < {kept * chunk} AND s = 'kal'"
    places = [c * chunk + 5 for c in range(kept - 4, kept + 24)]
    ahead = pk.PruningPredicate(sql, _WORDS)
    data = [_clustered_words(n, p) for p in places]  # built once for both kernels
    stops_ahead = [_kernel_stops(ahead, stats) for stats in data]
    monkeypatch.setattr(codegen, "KEY_AHEAD", chunk)  # each chunk keyed alone
    monkeypatch.setattr(run, "_sources", {})
    monkeypatch.setattr(run, "_ready", {})
    alone = pk.PruningPredicate(sql, _WORDS)
    assert _kernel_stops(alone, data[0])  # the kept stretch: keyed
    stops_alone = [_kernel_stops(alone, stats) for stats in data]
    assert stops_ahead == stops_alone
    assert any(stops_alone) and not all(stops_alone)


def test_strings_beside_a_list_search_are_keyed_before_the_passes():
    """A program that searches a long IN list evaluates its steps in one pass over each chunk
    (the search's loop has written its answers by then), so string bounds keyed in the kernel
    are keyed before that pass, not after a pass without them. The answers are the
    interpreters'."""
    n = 3 * codegen.CHUNK + 5
    stats = _clustered_words(n)
    listed = ", ".join(str(v) for v in range(0, n, 7))  # a search: more than 16 items
    pred = pk.PruningPredicate(f"s = 'kal' OR t IN ({listed})", _WORDS)
    paths = codegen.paths_of(_source(pred, stats))
    assert "keys before the passes" in paths and "slot keys" in paths, sorted(paths)
    got = _agree(pred, stats)
    assert (got == 0).any() and (got != 0).any()


def test_key_buffers_come_from_each_thread_and_are_never_written_past(monkeypatch):
    """A kernel that keys strings keys them into its caller's buffer: each call through
    ``run_kernel`` gets its thread's, kept between calls, of ``KEY_AHEAD`` keys per keyed
    bound (fewer for a shorter range); one left over from other strings answers as a fresh
    one; a buffer too short is not written past (the kernel allocates its own)."""
    n = 2 * codegen.KEY_AHEAD + 3
    pred = pk.PruningPredicate("s >= 'k' AND s < 'm' OR t = 77", _WORDS)
    asked: list[int] = []
    key_buffer = run._key_buffer
    monkeypatch.setattr(run, "_key_buffer", lambda words: asked.append(words) or
                        key_buffer(words))
    monkeypatch.setattr(run, "PARALLEL_MIN", 0)
    monkeypatch.setattr(run, "MIN_PIECE", codegen.KEY_AHEAD + codegen.CHUNK)
    for seed in (1, 2):  # the second call reads a buffer holding the first one's keys
        stats = _clustered_words(n, seed=seed)
        np.testing.assert_array_equal(pred.classify(stats, backend="numba"),
                                      pred.classify(stats, backend="numpy"))
    piece = codegen.KEY_AHEAD + codegen.CHUNK  # two pieces a call, two keyed bounds each
    assert sorted(asked) == sorted(2 * [2 * codegen.KEY_AHEAD, 2 * (n - piece)])
    prepared = run.prepare(pred.program, stats.table.to_batches()[0], {}, frozenset())
    args = run.kernel_args(pred.program, prepared)
    kernel = run.ready_kernel(pred.program, prepared, args, wait=True)
    fenced = np.full(2 * codegen.KEY_AHEAD + 64, 7, np.int64)
    out = np.empty(n, np.int8)
    assert kernel(0, n, out, fenced[:64], *args[1:]) == 0
    assert (fenced == 7).all()
    np.testing.assert_array_equal(out, pred.classify(stats, backend="numpy"))


def test_statistics_fields_in_another_order_are_found_again():
    """A predicate remembers where each statistic sits in the struct type it read last; a
    batch whose structs order their fields otherwise (or hold more) is looked up afresh."""
    lo = np.array([0, 10, 20])
    hi = lo + 5
    pred = pk.PruningPredicate("x > 12", {"x": pa.int64()})

    def stats(order):
        arrays = {"min": pa.array(lo), "max": pa.array(hi), "null_count": pa.array([0, 0, 0]),
                  "max_exact": pa.array([True] * 3)}
        x = pa.StructArray.from_arrays([arrays[f] for f in order], list(order))
        return pk.Statistics.from_arrow(pa.table({"row_count": [5, 5, 5], "x": x}))
    for order in [("min", "max", "null_count"), ("max", "null_count", "min"),
                  ("null_count", "min", "max"), ("max_exact", "max", "null_count", "min"),
                  ("min", "max", "null_count")]:
        for backend in ("numba", "numpy"):
            assert pred.prune(stats(order), backend=backend).tolist() == [False, True, True]


@pytest.mark.parametrize("offset", [0, 3, 8])
@pytest.mark.parametrize("same", [True, False])
@pytest.mark.parametrize("strings", [False, True])
def test_bounds_null_together_share_one_validity(same, offset, strings):
    """Where a column's min and max are NULL in the same containers (as writers leave them),
    the kernel unpacks and tests one bitmap for both; where they differ, each its own. The
    answers are the interpreters' either way, on sliced batches and keyed strings too."""
    rng = np.random.default_rng(11)
    n = 3 * codegen.CHUNK + 77
    lo = rng.integers(0, 100, n)
    hi = lo + rng.integers(0, 20, n)
    if strings:  # zero-padded, so that they order as the numbers do (keyed: at most 7 bytes)
        lo, hi = np.char.zfill(lo.astype(str), 3), np.char.zfill(hi.astype(str), 3)
    lo_null = rng.random(n) < 0.2
    hi_null = lo_null if same else rng.random(n) < 0.2
    x = pa.StructArray.from_arrays(
        [pa.array(lo, mask=lo_null), pa.array(hi, mask=hi_null),
         pa.array(rng.integers(0, 3, n))], ["min", "max", "null_count"])
    table = pa.table({"row_count": pa.array(np.full(n, 5)), "x": x}).slice(offset)
    pred = (pk.PruningPredicate("x > '040' AND x < '070'", {"x": pa.string()}) if strings else
            pk.PruningPredicate("x > 40 AND x < 70", {"x": pa.int64()}))
    stats = pk.Statistics.from_arrow(table)
    prepared = run.prepare(pred.program, stats.table.to_batches()[0], {}, frozenset())
    bounds = [k for k, s in enumerate(pred.program.slots) if s.stat in ("min", "max")]
    shared = [len(prepared.slots[k].layout) > 2 for k in bounds]
    assert shared == [False, same]
    assert (f"m{bounds[1]}" in _source(pred, stats)) != same
    got = _agree(pred, stats)
    assert (got == 0).any() and (got == 1).any()


@pytest.mark.parametrize("n", [100, 4096 * 8 + 5, 100_000])
@pytest.mark.parametrize("offset", [0, 3])
def test_same_validity_compares_every_byte_of_small_and_large_bitmaps(n, offset):
    """Small bitmaps are compared as copies, large ones in place: either way a difference in
    the first or last container is seen."""
    mask = np.arange(n + offset) % 7 == 0
    a = slots.slot_data(pa.array(np.arange(n + offset), mask=mask).slice(offset))
    assert recipes.same_validity(a, slots.slot_data(
        pa.array(np.arange(n + offset), mask=mask).slice(offset)), n)
    for flip in (offset, n + offset - 1):
        other = mask.copy()
        other[flip] = not other[flip]
        b = slots.slot_data(pa.array(np.arange(n + offset), mask=other).slice(offset))
        assert not recipes.same_validity(a, b, n)


@pytest.mark.parametrize("sql", [
    "x IN ('a', 'bb', 'ccc')", "x NOT IN ({})".format(", ".join(f"'w{i}'" for i in range(20))),
    "n IN (1, 5, 9) OR x = 'a'", "n IN ({})".format(", ".join(map(str, range(40)))),
])
def test_list_lengths_depend_on_the_program_alone(sql):
    """A kernel's shape holds the lengths of its unrolled IN lists, worked out once per
    program: they are the same for batches whose strings are keyed and ranked."""
    pred = pk.PruningPredicate(sql, {"x": pa.string(), "n": pa.int64()})
    for words in (["a", "b"], ["a long string", "another long one"]):  # keyed, then ranked
        x = pa.StructArray.from_arrays([pa.array(words), pa.array(words),
                                        pa.array([0, 0])], ["min", "max", "null_count"])
        n = pa.StructArray.from_arrays([pa.array([1, 2]), pa.array([3, 4]),
                                        pa.array([0, 0])], ["min", "max", "null_count"])
        batch = pa.record_batch({"row_count": pa.array([5, 5]), "x": x, "n": n})
        for keyed in (True, False):
            prepared = inputs.prepare(pred.program, batch, {}, frozenset(), None, keyed)
            assert run.shape_of(prepared, pred.program) == run.shape_of(prepared)
