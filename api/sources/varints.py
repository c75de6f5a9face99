"""Primitives the binary formats share: unsigned LEB128 varints and their zigzag form
(Thrift's compact protocol, which Parquet footers are written in, and Avro's ints and longs,
which Iceberg manifests are written in), and a growable table of decoded rows. Each returns
the new position, -1 when a value runs past ``end``. They are ``prunekit.sources.jit``
functions: Numba-compiled, or plain Python for a small input.
"""

from __future__ import annotations

import numpy as np

from .jit import jit


@jit
def varint(buf, pos, end):
    """(unsigned value, new pos); pos -1 when the varint runs past ``end`` or 10 bytes."""
    result = np.uint64(0)
    shift = np.uint64(0)
    for _ in range(10):
        if pos >= end:
            return np.uint64(0), -1
        b = buf[pos]
        pos += 1
        result |= np.uint64(b & 0x7F) << shift
        if b < 0x80:
            return result, pos
        shift += np.uint64(7)
    return np.uint64(0), -1


@jit
def zigzag(buf, pos, end):
    u, pos = varint(buf, pos, end)
    return np.int64(u >> np.uint64(1)) ^ -np.int64(u & np.uint64(1)), pos


@jit
def grow(table, n):
    """``table`` with room for row ``n`` (doubling)."""
    if n < table.shape[0]:
        return table
    out = np.empty((max(2 * table.shape[0], n + 1), table.shape[1]), table.dtype)
    # Element by element: a slice assignment makes Numba compile its shape-mismatch error,
    # with the string formatting that needs (5 s of a 20 s cold compile of the decoder).
    for i in range(table.shape[0]):
        for j in range(table.shape[1]):
            out[i, j] = table[i, j]
    return out
