"""Short-string keys, every way the kernels compute them (``compiled.short_string_keys_scalar``,
on CPUs with AVX2 ``short_string_keys_vector``, with AVX-512 VBMI ``short_string_keys_permute``):
equal to the NumPy oracle
(``slots.short_keys``) on valid offsets, "not short" on malformed ones, and never a read outside
the data buffer, which sits against pages that fault on any access."""

import ctypes
import mmap
import sys

import numpy as np
import pyarrow as pa
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from prunekit.kernels import compiled, slots

KEYERS = [
    pytest.param(compiled.short_string_keys_scalar, id="scalar"),
    pytest.param(compiled.short_string_keys_vector, id="vector", marks=pytest.mark.skipif(
        not compiled.VECTOR, reason="this CPU has no AVX2: the vector keys are not used here")),
    pytest.param(compiled.short_string_keys_permute, id="permute", marks=pytest.mark.skipif(
        not compiled.PERMUTE,
        reason="this CPU has no AVX-512 VBMI: the permuted keys are not used here")),
]


def test_kernels_use_the_fastest_keys_the_cpu_has():
    expected = compiled.short_string_keys_permute if compiled.PERMUTE else \
        compiled.short_string_keys_vector if compiled.VECTOR else \
        compiled.short_string_keys_scalar
    assert compiled.short_string_keys is expected


@pytest.mark.parametrize("keys", KEYERS)
@pytest.mark.parametrize("offset_type", [pa.binary(), pa.large_binary()])
def test_keys_equal_the_numpy_oracle(keys, offset_type):
    rng = np.random.default_rng(23)
    alphabet = [b"\x00", b"a", b"\x7f", b"\x80", b"\xff"]
    strings = [b"".join(rng.choice(alphabet, int(rng.integers(0, 8)))) for _ in range(1001)]
    arr = pa.array(strings, offset_type).slice(3)
    width = np.int32 if offset_type == pa.binary() else np.int64
    offsets = np.frombuffer(arr.buffers()[1], width)[arr.offset:]
    data = np.frombuffer(arr.buffers()[2], np.uint8)
    expected = slots.short_keys(offsets, data, len(arr))
    for first, n in [(0, len(arr)), (5, 990), (1, 3), (0, 0), (990, 8)]:  # odd starts and tails
        out = np.full(n, -1, np.int64)
        assert keys(offsets, data, first, n, out)
        np.testing.assert_array_equal(out, expected[first: first + n])


@pytest.fixture(scope="module")
def guarded():
    """``place(raw, at_end)``: ``raw`` copied into memory with an inaccessible page right after
    it (``at_end``) or right before it, returned as a uint8 array over that memory."""
    if not sys.platform.startswith("linux"):
        pytest.skip("needs Linux mprotect to fence the buffer with inaccessible pages")
    page = mmap.PAGESIZE
    region = mmap.mmap(-1, 4 * page)
    base = ctypes.addressof(ctypes.c_char.from_buffer(region))
    libc = ctypes.CDLL(None, use_errno=True)
    libc.mprotect.argtypes = [ctypes.c_void_p, ctypes.c_size_t, ctypes.c_int]
    for guard in (base, base + 3 * page):  # pages 0 and 3 fault; 1 and 2 hold the data
        assert libc.mprotect(guard, page, 0) == 0, ctypes.get_errno()
    usable = np.frombuffer(region, np.uint8, count=2 * page, offset=page)

    def place(raw: bytes, at_end: bool) -> np.ndarray:
        start = 2 * page - len(raw) if at_end else 0
        usable[start: start + len(raw)] = np.frombuffer(raw, np.uint8)
        return usable[start: start + len(raw)]

    yield place
    for guard in (base, base + 3 * page):
        libc.mprotect(guard, page, mmap.PROT_READ | mmap.PROT_WRITE)


@st.composite
def offsets_and_size(draw):
    """Offsets of up to 40 strings over a buffer, valid or broken at one or more places."""
    lengths = draw(st.lists(st.integers(0, 9), max_size=40))
    offsets = np.concatenate([[0], np.cumsum(lengths)]).astype(np.int64) + draw(st.integers(0, 3))
    size = int(offsets[-1]) + draw(st.integers(0, 3))
    for _ in range(draw(st.integers(0, 3))):
        at = draw(st.integers(0, len(offsets) - 1))
        offsets[at] = draw(st.sampled_from([-9, -1, size - 1, size + 1, 2**31 - 1,
                                            int(offsets[at]) - 2, int(offsets[at]) + 5]))
    return offsets.astype(np.int32), size


@pytest.mark.parametrize("keys", KEYERS)
@pytest.mark.parametrize("at_end", [True, False], ids=["guard-after", "guard-before"])
@settings(max_examples=300, deadline=None)
@given(case=offsets_and_size(), first=st.integers(0, 2))
def test_malformed_offsets_answer_not_short_and_stay_in_the_buffer(keys, at_end, guarded, case,
                                                                    first):
    offsets, size = case
    n = max(len(offsets) - 1 - first, 0)
    data = guarded(bytes((7 * i + 1) % 256 for i in range(size)), at_end)
    pairs = list(zip(offsets[first:-1].tolist(), offsets[first + 1:].tolist(), strict=True))
    short = all(0 <= a <= b <= size and b - a <= 7 for a, b in pairs) and \
        (n == 0 or offsets[first] >= 0)
    out = np.empty(n, np.int64)
    assert keys(offsets, data, first, n, out) == short
    if short:
        np.testing.assert_array_equal(out, slots.short_keys(offsets[first:], data, n))
