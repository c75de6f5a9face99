"""Thrift compact protocol primitives: field and list headers, binaries, and skipping any
value by its wire type (the rule that lets a reader pass fields it does not know). Each returns
the new position, -1 when a value runs past ``end``; ``skip`` is iterative, so a hostile footer
cannot overflow the call stack. They are ``prunekit.sources.jit`` functions.
"""

from __future__ import annotations

import numpy as np

from ..jit import jit
from ..varints import varint, zigzag

# Thrift compact wire types.
TRUE, FALSE, I8, I16, I32, I64, DOUBLE, BINARY, LIST, SET, MAP, STRUCT = range(1, 13)
_FRAME_STRUCT, _FRAME_LIST, _FRAME_MAP = 0, 1, 2
DEPTH = 64


@jit
def field(buf, pos, end, last):
    """(field id, wire type, new pos) of a struct field header; type 0 is the stop byte."""
    if pos >= end:
        return 0, 0, -1
    b = np.int64(buf[pos])
    pos += 1
    t = b & 0x0F
    if t == 0:
        return 0, 0, pos
    delta = b >> 4
    if delta == 0:
        fid, pos = zigzag(buf, pos, end)
        return fid, t, pos
    return last + delta, t, pos


@jit
def list_header(buf, pos, end):
    """(size, element type, new pos)."""
    if pos >= end:
        return 0, 0, -1
    b = np.int64(buf[pos])
    pos += 1
    n = b >> 4
    if n == 15:
        u, pos = varint(buf, pos, end)
        n = np.int64(u)
    return n, b & 0x0F, pos


@jit
def binary(buf, pos, end):
    """(offset, length, new pos) of a binary value; pos -1 when it runs past ``end``."""
    u, pos = varint(buf, pos, end)
    if pos < 0 or u > np.uint64(end - pos):
        return 0, 0, -1
    n = np.int64(u)
    return pos, n, pos + n


@jit
def skip(buf, pos, end, t, stack):
    """Position after one value of wire type ``t`` (a struct field's value: booleans have no
    payload); -1 when it runs past ``end``, -2 for an unknown type, -3 too deep, -4 negative
    size. Iterative: a hostile footer cannot overflow the call stack."""
    sp = 0
    while True:
        if t == TRUE or t == FALSE:
            pass
        elif t == I8:
            pos += 1
        elif t == I16 or t == I32 or t == I64:
            _, pos = varint(buf, pos, end)
        elif t == DOUBLE:
            pos += 8
        elif t == BINARY:
            _, _, pos = binary(buf, pos, end)
        elif t == LIST or t == SET:
            n, et, pos = list_header(buf, pos, end)
            if pos < 0:
                return -1
            if n < 0:
                return -4
            if et == TRUE or et == FALSE or et == I8:
                pos += n
            elif et == DOUBLE:
                pos += 8 * n
            elif n > 0:
                if sp == DEPTH:
                    return -3
                stack[sp, 0], stack[sp, 1], stack[sp, 2] = _FRAME_LIST, n, et
                sp += 1
        elif t == MAP:
            u, pos = varint(buf, pos, end)
            if pos < 0:
                return -1
            if u > np.uint64(end):
                return -4
            if u > 0:
                if pos >= end:
                    return -1
                kv = np.int64(buf[pos])
                pos += 1
                if sp == DEPTH:
                    return -3
                stack[sp, 0], stack[sp, 1], stack[sp, 2] = _FRAME_MAP, 2 * np.int64(u), kv
                sp += 1
        elif t == STRUCT:
            if sp == DEPTH:
                return -3
            stack[sp, 0], stack[sp, 1], stack[sp, 2] = _FRAME_STRUCT, 0, 0
            sp += 1
        else:
            return -2
        if pos < 0 or pos > end:
            return -1
        # The next value to skip, or done.
        while True:
            if sp == 0:
                return pos
            kind = stack[sp - 1, 0]
            if kind == _FRAME_STRUCT:
                _, ft, pos = field(buf, pos, end, 0)
                if pos < 0:
                    return -1
                if ft == 0:
                    sp -= 1
                    continue
                t = ft
                break
            remaining = stack[sp - 1, 1]
            if remaining == 0:
                sp -= 1
                continue
            stack[sp - 1, 1] = remaining - 1
            if kind == _FRAME_LIST:
                t = stack[sp - 1, 2]
            else:  # map: keys on even counts from the end, values on odd
                t = (stack[sp - 1, 2] >> 4) if remaining % 2 == 0 else (stack[sp - 1, 2] & 0x0F)
            if t == TRUE or t == FALSE:  # a boolean in a container is one byte
                pos += 1
                if pos > end:
                    return -1
                continue
            break
