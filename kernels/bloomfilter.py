"""Parquet split-block bloom filters: XXH64 of literals, and a vectorised probe of many filters.

The format (parquet-format ``BloomFilter.md``): a bitset of ``z`` blocks of 256 bits, each eight
little-endian uint32 words. A value's 64-bit hash ``h`` (XXH64, seed 0, of its PLAIN encoding)
picks block ``((h >> 32) * z) >> 32``; its low 32 bits ``key`` set one bit in each word ``i``:
bit ``(key * SALT[i] mod 2**32) >> 27``. A value may be present only if all eight bits are set.

Literals are few (an IN list), so XXH64 is plain Python (no new dependency); the probe runs over
every container at once in NumPy.

>>> hex(xxh64(b"abc"))
'0x44bc2cf5ad770999'
>>> bits = insert(empty(1), [xxh64(b"abc")])
>>> probe(pa.array([bits, b"", None], pa.binary()), [xxh64(b"abc")]).tolist()
[1, -1, -1]
"""

from __future__ import annotations

import struct

import numpy as np
import pyarrow as pa

from prunekit.conformance import BLOCK

_M = (1 << 64) - 1
P1, P2, P3 = 11400714785074694791, 14029467366897019727, 1609587929392839161
P4, P5 = 9650029242287828579, 2870177450012600261
SALT = (0x47B6137B, 0x44974D91, 0x8824AD5B, 0xA2B7289D,
        0x705495C7, 0x2DF1424B, 0x9EFC4947, 0x5C6BFB31)



def _rotl(x: int, r: int) -> int:
    return ((x << r) | (x >> (64 - r))) & _M


def _round(acc: int, lane: int) -> int:
    return (_rotl((acc + lane * P2) & _M, 31) * P1) & _M


def xxh64(data: bytes, seed: int = 0) -> int:
    """XXH64 of ``data`` (the reference algorithm, in Python integers mod 2**64).

    >>> hex(xxh64(b"")), hex(xxh64(b"a"))
    ('0xef46db3751d8e999', '0xd24ec4f1a98c6e5b')
    """
    n, i = len(data), 0
    if n >= 32:
        v = [(seed + P1 + P2) & _M, (seed + P2) & _M, seed & _M, (seed - P1) & _M]
        while i + 32 <= n:
            lanes = struct.unpack_from("<4Q", data, i)
            v = [_round(a, lane) for a, lane in zip(v, lanes, strict=True)]
            i += 32
        h = (_rotl(v[0], 1) + _rotl(v[1], 7) + _rotl(v[2], 12) + _rotl(v[3], 18)) & _M
        for a in v:
            h = (((h ^ _round(0, a)) * P1) + P4) & _M
    else:
        h = (seed + P5) & _M
    h = (h + n) & _M
    while i + 8 <= n:
        (lane,) = struct.unpack_from("<Q", data, i)
        h = (_rotl(h ^ _round(0, lane), 27) * P1 + P4) & _M
        i += 8
    if i + 4 <= n:
        (lane,) = struct.unpack_from("<I", data, i)
        h = (_rotl(h ^ ((lane * P1) & _M), 23) * P2 + P3) & _M
        i += 4
    while i < n:
        h = (_rotl(h ^ ((data[i] * P5) & _M), 11) * P1) & _M
        i += 1
    h ^= h >> 33
    h = (h * P2) & _M
    h ^= h >> 29
    h = (h * P3) & _M
    return h ^ (h >> 32)


def _place(h: int) -> tuple[int, list[int]]:
    """(the hash's high 32 bits, the eight word masks of its low 32 bits)."""
    key = h & 0xFFFFFFFF
    return h >> 32, [1 << (((key * s) & 0xFFFFFFFF) >> 27) for s in SALT]


def empty(blocks: int) -> bytes:
    """An empty filter of ``blocks`` blocks (for tests and hand-made statistics)."""
    return bytes(BLOCK * blocks)


def insert(bitset: bytes, hashes) -> bytes:
    """``bitset`` with the values of ``hashes`` added (the writer's side, for tests)."""
    words = np.frombuffer(bitset, "<u4").copy()
    z = len(bitset) // BLOCK
    for h in hashes:
        high, masks = _place(h)
        block = (high * z) >> 32
        for i, m in enumerate(masks):
            words[block * 8 + i] |= m
    return words.tobytes()


def probe(bitsets: pa.Array, hashes) -> np.ndarray:
    """Per container (an int8 array): 1 if any of ``hashes`` may be in its filter, 0 if none
    is, -1 if the filter is unknown (NULL, empty, or not whole blocks: malformed)."""
    if not (pa.types.is_binary(bitsets.type) or pa.types.is_large_binary(bitsets.type)):
        bitsets = bitsets.cast(pa.large_binary())  # binary_view, fixed_size_binary
    n = len(bitsets)
    if n == 0:
        return np.zeros(0, np.int8)
    large = pa.types.is_large_binary(bitsets.type)
    bufs = bitsets.buffers()
    offsets = np.frombuffer(bufs[1], np.int64 if large else np.int32)[
        bitsets.offset: bitsets.offset + n + 1].astype(np.int64)
    data = np.frombuffer(bufs[2], np.uint8) if bufs[2] is not None else np.zeros(0, np.uint8)
    start, length = offsets[:-1], np.diff(offsets)
    valid = bitsets.is_valid().to_numpy(zero_copy_only=False)
    ok = valid & (length > 0) & (length % BLOCK == 0)
    z = np.where(ok, length // BLOCK, 1).astype(np.uint64)
    start = np.where(ok, start, 0)
    hit = np.zeros(n, bool)
    if not ok.any():
        return np.full(n, -1, np.int8)
    for h in hashes:
        high, masks = _place(h)
        block = ((np.uint64(high) * z) >> np.uint64(32)).astype(np.int64)
        base = start + block * BLOCK
        present = ok.copy()
        for i, m in enumerate(masks):
            at = np.where(present, base + 4 * i, 0)
            word = (data[at].astype(np.uint32) | data[at + 1].astype(np.uint32) << 8 |
                    data[at + 2].astype(np.uint32) << 16 | data[at + 3].astype(np.uint32) << 24)
            present &= (word & np.uint32(m)) != 0
        hit |= present
    return np.where(ok, hit.astype(np.int8), np.int8(-1)).astype(np.int8)
