"""A record batch read into a kernel's table in compiled code, through Arrow's C data interface.

On a notebook's 1,000 containers, reading a batch through pyarrow objects costs more than the
kernel: a Python object for each column, child and buffer, a NumPy array for each buffer.
Here the batch is exported once (``RecordBatch._export_to_c``: a tree of C structs holding
lengths, offsets and buffer addresses), and one compiled function (``fill``) walks the tree
and writes the kernel's table (``slots.TABLE_COLUMNS``) and each slot's layout code, as
``recipe.Recipe.kernel_inputs`` would from the same batch. It handles the recipe's common
slots, plain numbers, booleans and short strings keyed in the kernel; a recipe with other
slots (exactness flags) reads through pyarrow, and a batch whose structs have nulls in it, or
whose tree is not what its schema says, is left to the general path (``fill`` returns -1).

Numba loads with this module: ``inputs.prepare`` uses it only once a kernel has been loaded
in the process (``recipe.use_compiled_read``), so an answer that needs no Numba never waits
for it.

>>> import pyarrow as pa
>>> x = pa.StructArray.from_arrays([pa.array([1, None, 3])], ["min"])
>>> batch = pa.record_batch({"x": x})
>>> table, codes = np.zeros((1, 7), np.int64), np.zeros(1, np.int8)
>>> paths = np.array([[0, 0]], np.int64)
>>> slots = np.array([[READ_VALUES, 0, 8, -1]], np.int64)
>>> read(batch, paths, slots, 3, table, codes), codes.tolist(), table[0, [1, 2, 4]].tolist()
(0, [2], [3, 0, 1])
>>> bool(table[0, 3] == x.field(0).buffers()[0].address)  # the bitmap, masked: its own
True
"""

from __future__ import annotations

import ctypes
import threading
import weakref
from pathlib import Path

import numpy as np
import pyarrow as pa
from numba import carray, njit, types
from numba.extending import intrinsic

from .compiled import P_I32, P_I64, P_U8, P_U64
from .slots import (
    FOUND_ABSENT,
    FOUND_DENSE,
    FOUND_MASKED,
    FOUND_SHARED,
    READ_ABSENT,
    READ_BITS,
    READ_OFFSETS32,
    READ_VALUES,
)

# The fields of an ``ArrowArray`` struct, in 8-byte words.
_LENGTH, _NULLS, _OFFSET, _N_BUFFERS, _N_CHILDREN, _BUFFERS, _CHILDREN = range(7)
_RELEASE = 8
_WORDS = 10


@intrinsic
def _popcount(typingctx, word):
    """The number of set bits of a uint64 (one instruction)."""
    def codegen(context, builder, signature, args):
        return builder.ctpop(args[0])

    return types.uint64(types.uint64), codegen


@njit(cache=True, nogil=True)
def _nulls(address, first, n):  # pragma: no cover - compiled
    """How many of bits ``first .. first + n`` of the bitmap at ``address`` are 0: bit by
    bit to a byte boundary, then eight bytes at a time, then bit by bit."""
    bits = carray(P_U8(address), (first + n + 7) >> 3)
    valid = 0
    i = first
    stop = first + n
    while i < stop and i & 7:
        valid += (bits[i >> 3] >> (i & 7)) & 1
        i += 1
    while i + 64 <= stop:
        valid += _popcount(carray(P_U64(address + (i >> 3)), 1)[0])
        i += 64
    while i < stop:
        valid += (bits[i >> 3] >> (i & 7)) & 1
        i += 1
    return n - valid


@njit(cache=True, nogil=True)
def _array(address):  # pragma: no cover - compiled
    return carray(P_I64(address), _WORDS)


@njit(cache=True, nogil=True)
def _whole(node, first, n):  # pragma: no cover - compiled
    """Whether the rows, entries ``first .. first + n`` of ``node``'s buffers, are all of it,
    and its null count is known (not -1): then that count is theirs, and needs no counting."""
    return node[_NULLS] >= 0 and first == node[_OFFSET] and node[_LENGTH] == n


@njit(cache=True, nogil=True)
def _same_bytes(a, b, start, stop):  # pragma: no cover - compiled
    """Whether bytes ``start .. stop`` at addresses ``a`` and ``b`` are equal."""
    i = start
    while i + 8 <= stop:
        if carray(P_U64(a + i), 1)[0] != carray(P_U64(b + i), 1)[0]:
            return False
        i += 8
    x, y = carray(P_U8(a), stop), carray(P_U8(b), stop)
    while i < stop:
        if x[i] != y[i]:
            return False
        i += 1
    return True


@njit(cache=True, nogil=True)
def fill(top_address, paths, slots, n, table, codes):  # pragma: no cover - compiled
    """Walk the exported batch at ``top_address`` (``n`` rows) into ``table`` and ``codes``.

    ``paths[j]``: the j-th array the recipe fetches, a column index and a child index (-1:
    the column itself). ``slots[k]``: slot k's kind, its array's index in ``paths``, its
    values' width in bytes and the first of its bound pair (-1). Returns 0, or -1 when the
    batch must take the general path: a struct with nulls among the rows, or a tree that is
    not what the recipe expects (too few children, buffers or rows)."""
    top = _array(top_address)
    if top[_LENGTH] < top[_OFFSET] + n:
        return -1
    columns = carray(P_I64(top[_CHILDREN]), top[_N_CHILDREN])
    m = paths.shape[0]
    values = np.zeros(m, np.int64)  # the buffer after the bitmap: values, bits or offsets
    bitmaps = np.zeros(m, np.int64)
    data = np.zeros(m, np.int64)  # a string's bytes
    starts = np.zeros(m, np.int64)  # the rows' first entry in the buffers
    nulls = np.zeros(m, np.int64)
    for j in range(m):
        if paths[j, 0] >= top[_N_CHILDREN]:
            return -1
        column = _array(columns[paths[j, 0]])
        first = top[_OFFSET] + column[_OFFSET]  # a row's entry: its own offset plus these
        if column[_LENGTH] < top[_OFFSET] + n:
            return -1
        node = column
        if paths[j, 1] >= 0:  # a child of a struct column
            if column[_N_BUFFERS] < 1 or paths[j, 1] >= column[_N_CHILDREN]:
                return -1
            own = carray(P_I64(column[_BUFFERS]), column[_N_BUFFERS])
            if column[_NULLS] != 0 and own[0] != 0 and (
                    _whole(column, first, n) or _nulls(own[0], first, n) > 0):
                return -1  # struct nulls: folded into the children the general way
            node = _array(carray(P_I64(column[_CHILDREN]), column[_N_CHILDREN])[paths[j, 1]])
            if node[_LENGTH] < first + n:
                return -1
            first += node[_OFFSET]
        if node[_N_BUFFERS] < 2:
            return -1
        buffers = carray(P_I64(node[_BUFFERS]), node[_N_BUFFERS])
        starts[j] = first
        values[j] = buffers[1]
        bitmaps[j] = buffers[0]
        if node[_N_BUFFERS] >= 3:
            data[j] = buffers[2]
        if buffers[0] != 0 and node[_NULLS] != 0:
            nulls[j] = node[_NULLS] if _whole(node, first, n) else _nulls(buffers[0], first, n)
    for k in range(slots.shape[0]):
        kind, j, width, mate = slots[k, 0], slots[k, 1], slots[k, 2], slots[k, 3]
        for c in range(7):
            table[k, c] = 0
        if kind == READ_ABSENT or nulls[j] == n:
            codes[k] = FOUND_ABSENT
            continue
        first = starts[j]
        if values[j] == 0:
            return -1
        table[k, 2] = first
        if kind == READ_VALUES:
            table[k, 0] = values[j] + first * width
            table[k, 1] = n
        elif kind == READ_BITS:
            table[k, 0] = values[j]
            table[k, 1] = (first + n + 7) >> 3
        else:  # string offsets, from the rows' first; the bytes up to the last one's end
            if data[j] == 0 and n > 0:
                return -1
            table[k, 0] = values[j] + first * width
            table[k, 1] = n + 1
            if kind == READ_OFFSETS32:
                end = np.int64(carray(P_I32(values[j]), first + n + 1)[first + n])
            else:
                end = carray(P_I64(values[j]), first + n + 1)[first + n]
            table[k, 5] = data[j]
            table[k, 6] = max(end, np.int64(0))
        if nulls[j] == 0:
            codes[k] = FOUND_DENSE
            continue
        table[k, 3] = bitmaps[j]
        table[k, 4] = (first + n + 7) >> 3
        codes[k] = FOUND_MASKED
        if mate >= 0 and codes[mate] == FOUND_MASKED and table[mate, 2] == first:
            # the pair's bitmaps compared by whole bytes, as ``recipe.same_bits`` does
            if _same_bytes(table[mate, 3], bitmaps[j], first >> 3, table[k, 4]):
                codes[k] = FOUND_SHARED
    return 0


_struct = threading.local()  # per thread: the 80 bytes a batch is exported into
_releases: dict = {}  # a release callback's address -> its ctypes function
_CALLBACK = ctypes.CFUNCTYPE(None, ctypes.c_void_p)
KEPT = ("exported",)  # the key of a batch's kept export in its cache


class _Export:
    """A batch exported once and kept in the batch's cache (a ``Statistics`` keeps one per
    batch) for the calls after it; released when the cache drops it."""

    __slots__ = ("words", "address", "__weakref__")


def _release(words: np.ndarray, address: int) -> None:
    """Calls the release callback of the struct in ``words``, at ``address`` (Arrow's C data
    interface; ``words.ctypes.data`` would cost more than the release)."""
    callback = int(words[_RELEASE])
    if callback == 0:  # released already
        return
    release = _releases.get(callback)
    if release is None:
        release = _releases[callback] = _CALLBACK(callback)
    release(address)


def _keep(batch, cache: dict) -> _Export:
    """``batch`` exported into a new ``_Export``, stored in ``cache``. Two threads may both
    make one: each reads through its own, and the one not stored is released when dropped."""
    export = _Export()
    export.words = np.zeros(_WORDS, np.int64)
    export.address = export.words.ctypes.data
    batch._export_to_c(export.address)
    # the finalizer holds the words, not the export
    weakref.finalize(export, _release, export.words, export.address)
    cache[KEPT] = export
    return export


def read(batch, paths: np.ndarray, slots: np.ndarray, n: int, table: np.ndarray,
         codes: np.ndarray, cache: dict | None = None) -> int:
    """``fill`` over ``batch`` (the arrays stay the batch's: the table's addresses are valid
    as long as ``batch`` lives). Exported for the call and released after it; with ``cache``
    (the batch's, kept by its ``Statistics``), exported once more on the second call and kept
    there: a notebook's predicates over one ``Statistics`` do not export it each time, and a
    batch read once (a new ``Statistics`` per call) pays nothing for it."""
    if cache is not None:
        export = cache.get(KEPT)
        if export is not None:
            if export is False:  # seen once
                export = _keep(batch, cache)
            # ``export`` is held here until ``fill`` returns, whatever the cache holds then
            return fill(export.address, paths, slots, n, table, codes)
        cache[KEPT] = False
    words = getattr(_struct, "words", None)
    if words is None:
        words = _struct.words = np.zeros(_WORDS, np.int64)
        _struct.address = words.ctypes.data
    address = _struct.address
    batch._export_to_c(address)
    try:
        return fill(address, paths, slots, n, table, codes)
    finally:
        _release(words, address)


def on_disk() -> bool:
    """Whether ``fill`` is in Numba's disk cache, so that ``loaded_read`` loads it in
    milliseconds instead of compiling it (seconds)."""
    path = fill.stats.cache_path
    return path is not None and any(Path(path).glob("exported.fill-*.nbi"))


def loaded_read():
    """``read``, its compiled code loaded (or compiled) by a call over an empty batch."""
    empty = pa.record_batch({"x": pa.array([], pa.int64())})
    read(empty, np.zeros((1, 2), np.int64) - np.array([[0, 1]]), np.zeros((1, 4), np.int64),
         0, np.zeros((1, 7), np.int64), np.zeros(1, np.int8))
    return read
