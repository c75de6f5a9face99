"""Avro object container files as bytes for ``avro_decode``: the header (magic, metadata
map, sync marker), the block framing found in one Numba pass, and each block inflated by its
codec (null, deflate, snappy, bzip2, zstandard when installed) into one payload buffer.

A file this module cannot read raises ``Unsupported`` (a codec it does not know: the caller
reads the file another way) or ``Malformed`` (bytes that break the format: a bad magic, a
truncated block, a wrong sync marker, a block that does not inflate).
"""

from __future__ import annotations

import bz2
import functools
import zlib

import numpy as np
from numba import njit

from .. import varints

# The compiled forms of the shared varint readers (this decoder is always compiled). Avro
# longs are zigzag varints too.
grow = varints.grow.compiled
_long = varints.zigzag.compiled

__all__ = ["Malformed", "Unsupported", "read_container"]

MAGIC = b"Obj\x01"
SYNC = 16


class Unsupported(Exception):
    """A valid file this reader does not handle (the caller falls back)."""


class Malformed(Exception):
    """Bytes that are not a well-formed Avro container file."""


@njit(cache=True, nogil=True)
def _frame(buf, pos, sync):  # pragma: no cover - compiled
    """Blocks after the header at ``pos``: rows (record count, data start, data length);
    the status is 0, or -1 when a block is cut short, negative, or not followed by ``sync``."""
    end = buf.shape[0]
    out = np.empty((16, 3), np.int64)
    n = 0
    while pos < end:
        count, pos = _long(buf, pos, end)
        if pos < 0 or count < 0:
            return out[:n], -1
        size, pos = _long(buf, pos, end)
        if pos < 0 or size < 0 or size > end - pos - SYNC:
            return out[:n], -1
        out = grow(out, n)
        out[n, 0], out[n, 1], out[n, 2] = count, pos, size
        n += 1
        pos += size
        for k in range(SYNC):
            if buf[pos + k] != sync[k]:
                return out[:n], -1
        pos += SYNC
    return out[:n], 0


def _header(data: bytes) -> tuple[dict, int]:
    """(metadata, position of the first block)."""
    if data[:4] != MAGIC:
        raise Malformed("not an Avro container file")
    pos, meta = 4, {}
    view = memoryview(data)
    while True:
        count, pos = _py_long(data, pos)
        if count == 0:
            break
        if count < 0:
            count = -count
            _, pos = _py_long(data, pos)
        for _ in range(count):
            size, pos = _py_long(data, pos)
            key = bytes(view[pos:pos + size])
            pos += size
            size, pos = _py_long(data, pos)
            value = bytes(view[pos:pos + size])
            pos += size
            if pos > len(data) or size < 0:
                raise Malformed("the header is cut short")
            meta[key.decode("utf-8", "replace")] = value
    if pos + SYNC > len(data):
        raise Malformed("the header is cut short")
    return meta, pos


def _py_long(data: bytes, pos: int) -> tuple[int, int]:
    result = shift = 0
    for _ in range(10):
        if pos >= len(data):
            raise Malformed("the header is cut short")
        b = data[pos]
        pos += 1
        result |= (b & 0x7F) << shift
        if b < 0x80:
            return (result >> 1) ^ -(result & 1), pos
        shift += 7
    raise Malformed("a varint longer than 10 bytes")


def _inflater(codec: str):
    """A function inflating one block of ``codec``; Unsupported for others."""
    if codec in ("null", ""):
        return None
    if codec == "deflate":  # raw deflate, no zlib header; a partial, not a lambda: one
        return functools.partial(zlib.decompress, wbits=-15)  # Python frame less per block
    if codec == "bzip2":
        return bz2.decompress
    if codec == "snappy":
        return _snappy
    if codec == "zstandard":
        try:
            import zstandard
        except ImportError:
            raise Unsupported("zstandard is not installed") from None
        # decompressobj: frames need not record their content size.
        return lambda b: zstandard.ZstdDecompressor().decompressobj().decompress(b)
    raise Unsupported(f"codec {codec!r}")


def _snappy(block) -> bytes:
    """Avro's snappy: a raw snappy block, then the inflated bytes' big-endian CRC-32."""
    import pyarrow as pa

    block = bytes(block)
    body, crc = block[:-4], block[-4:]
    size = shift = 0
    for b in body[:10]:  # raw snappy starts with the inflated length as an unsigned varint
        size |= (b & 0x7F) << shift
        shift += 7
        if b < 0x80:
            break
    out = pa.decompress(body, decompressed_size=size, codec="snappy").to_pybytes()
    if len(crc) != 4 or zlib.crc32(out) != int.from_bytes(crc, "big"):
        raise Malformed("a snappy block's checksum does not match")
    return out


def read_container(data: bytes) -> tuple[dict, np.ndarray, np.ndarray]:
    """(metadata, payload, blocks): the header's metadata (``avro.schema``, ``avro.codec``,
    the writer's own keys), the inflated blocks as one uint8 array, and per block
    (record count, start, end) in it.

    >>> import json
    >>> header = (MAGIC + b"\\x02\\x16avro.schema\\x0c\\"long\\"\\x00" + bytes(16))
    >>> meta, payload, blocks = read_container(header + b"\\x04\\x04\\x02\\x06" + bytes(16))
    >>> (count, start, end), = blocks.tolist()
    >>> json.loads(meta["avro.schema"]), count, payload[start:end].tolist()
    ('long', 2, [2, 6])
    """
    meta, pos = _header(data)
    sync = np.frombuffer(data, np.uint8, SYNC, pos)
    buf = np.frombuffer(data, np.uint8)
    frames, status = _frame(buf, pos + SYNC, sync)
    if status != 0:
        raise Malformed("a block is cut short or its sync marker is wrong")
    inflate = _inflater(meta.get("avro.codec", b"null").decode("ascii", "replace"))
    blocks = np.empty((len(frames), 3), np.int64)
    blocks[:, 0] = frames[:, 0]
    if inflate is None:
        blocks[:, 1] = frames[:, 1]
        blocks[:, 2] = frames[:, 1] + frames[:, 2]
        return meta, buf, blocks
    view = memoryview(data)
    try:
        # Two lists of ints rather than a list per block: no objects for the collector.
        starts, ends = frames[:, 1].tolist(), (frames[:, 1] + frames[:, 2]).tolist()
        parts = [inflate(view[s:e]) for s, e in zip(starts, ends, strict=True)]
    except Malformed:
        raise
    except Exception as e:  # zlib.error, OSError, pyarrow's errors: a corrupt block
        raise Malformed(f"a block does not inflate ({type(e).__name__})") from None
    sizes = np.fromiter((len(p) for p in parts), np.int64, len(parts))
    ends = np.cumsum(sizes)
    blocks[:, 1] = ends - sizes
    blocks[:, 2] = ends
    return meta, np.frombuffer(b"".join(parts), np.uint8), blocks
