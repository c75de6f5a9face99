"""The compiled interpreter: one Numba function that runs any program ``vmcode.assemble`` built.

It answers a program shape whose fused kernel is not compiled yet, once Numba is loaded in the
process (``run.py``). Per chunk of ``CHUNK`` containers it walks the instruction table and runs
one loop per instruction over rows of registers, which LLVM vectorises; the dispatch costs a
few nanoseconds per instruction and chunk. The rarer instructions live in functions of their
own, not inlined: compiling one function with all of them took 20 s, against 13 s, for a
dispatch about 5% slower. Statistics are read through their addresses (the slot table), so one
compiled function serves every dtype and layout.

Measured on the 2-core VM (1M containers, one thread, cycles per container and instruction):
AND/OR/NOT 0.05-0.08 (0.4 when an AND wrote a row it read: see ``vmcode.new``), an int64 or
float64 comparison 0.5, a load 2.2 (memory bandwidth: the statistic comes from DRAM).

This module is not imported as itself: ``machine.py`` loads its source through
``codegen.load_kernel``, like a generated kernel, so that it is cached on disk in the same
place (which works with a read-only site-packages) and dropped when prunekit or Numba changes.
Its ``kernel`` has a generated kernel's signature, ``(start, stop, out, *args) -> 0`` (1 when
a string keyed here is longer than 7 bytes), so ``run.run_kernel`` splits batches for it the
same way.
"""

import numpy as np
from numba import carray, njit

from prunekit.kernels import vmcode as isa  # the instruction set
from prunekit.kernels.compiled import (
    P_F32,
    P_F64,
    P_I8,
    P_I16,
    P_I32,
    P_I64,
    P_U8,
    P_U16,
    P_U32,
    P_U64,
    any_in_from,
    covers_from,
    outcome,
    short_string_keys,
    unpack_bits,
)


@njit(inline="always")
def _copy(src, base, stride, dst, m):  # pragma: no cover - compiled
    """Entries ``base .. base + m`` of ``src`` (every ``stride``-th element) into ``dst``."""
    if stride == 1:
        for j in range(m):
            dst[j] = src[base + j]
    else:
        for j in range(m):
            dst[j] = src[(base + j) * stride]


@njit(inline="always")
def _bytes(address, length):  # pragma: no cover - compiled
    return carray(P_U8(address), length)


@njit(cache=True, nogil=True)
def _load_int(row, base, m, dst, scratch):  # pragma: no cover - compiled
    """Statistic ``row`` of the slot table as int64 into ``dst``; False: a string too long."""
    code, address, stride, count = row[0], row[1], row[2], row[3]
    if code == isa.I64:
        _copy(carray(P_I64(address), count), base, stride, dst, m)
    elif code == isa.I32:
        _copy(carray(P_I32(address), count), base, stride, dst, m)
    elif code == isa.BITS:  # boolean statistics compare as 0/1
        unpack_bits(_bytes(address, count), row[5] + base, m, scratch)
        for j in range(m):
            dst[j] = scratch[j]
    elif code == isa.KEYS32 or code == isa.KEYS64:  # short strings, keyed where read
        data = _bytes(row[7], row[8])
        if code == isa.KEYS32:
            return short_string_keys(carray(P_I32(address), count), data, base, m, dst)
        return short_string_keys(carray(P_I64(address), count), data, base, m, dst)
    elif code == isa.I8:
        _copy(carray(P_I8(address), count), base, stride, dst, m)
    elif code == isa.I16:
        _copy(carray(P_I16(address), count), base, stride, dst, m)
    elif code == isa.U8:
        _copy(carray(P_U8(address), count), base, stride, dst, m)
    elif code == isa.U16:
        _copy(carray(P_U16(address), count), base, stride, dst, m)
    elif code == isa.U32:
        _copy(carray(P_U32(address), count), base, stride, dst, m)
    return True


@njit(cache=True, nogil=True)
def kernel(start, stop, out, code, slots, floats, uints, lists_i, lists_f, lists_u, lists,
           sizes):  # pragma: no cover - compiled
    """Fill ``out[start:stop]`` with the outcomes of the assembled program; 1 if a string
    keyed here is longer than 7 bytes (the caller ranks the strings and runs again), else 0."""
    rb = np.zeros((max(sizes[0], 1), isa.CHUNK + 8), np.uint8)  # +8: unpack_bits writes words
    ri = np.zeros((max(sizes[1], 1), isa.CHUNK), np.int64)
    rf = np.zeros((max(sizes[2], 1), isa.CHUNK), np.float64)
    ru = np.zeros((max(sizes[3], 1), isa.CHUNK), np.uint64)
    scratch = np.zeros(isa.CHUNK + 8, np.uint8)
    count = np.zeros(isa.CHUNK, np.int64)  # list elements counted per container (_count_in)
    hints = np.zeros(code.shape[0], np.int64)  # where each list search ended last
    first = 0
    while first < code.shape[0] and code[first, 0] < isa.FIRST_BODY:
        op, d, a = code[first, 0], code[first, 1], code[first, 2]
        if op == isa.FILL_B:
            rb[d, :] = a
        elif op == isa.FILL_I:
            ri[d, :] = a
        elif op == isa.FILL_F:
            rf[d, :] = floats[a]
        elif op == isa.FILL_U:
            ru[d, :] = uints[a]
        first += 1
    for base in range(start, stop, isa.CHUNK):
        m = min(isa.CHUNK, stop - base)
        for k in range(first, code.shape[0]):
            op, d, a, b, c = code[k, 0], code[k, 1], code[k, 2], code[k, 3], code[k, 4]
            if op == isa.AND:
                x, y, z = rb[a], rb[b], rb[d]
                for j in range(m):
                    z[j] = x[j] & y[j]
            elif op == isa.OR:
                x, y, z = rb[a], rb[b], rb[d]
                for j in range(m):
                    z[j] = x[j] | y[j]
            elif op == isa.NOT:
                x, z = rb[a], rb[d]
                for j in range(m):
                    z[j] = x[j] ^ 1
            elif op <= isa.EQ_U:  # the comparisons (isa.LT_I .. isa.EQ_U)
                _compare(op, ri, rf, ru, a, b, rb[d], m)
            elif op == isa.LOAD_I:
                if not _load_int(slots[a], base, m, ri[d], scratch):
                    return 1
            elif op == isa.LOAD_F:
                row = slots[a]
                if row[0] == isa.F64:
                    _copy(carray(P_F64(row[1]), row[3]), base, row[2], rf[d], m)
                else:
                    _copy(carray(P_F32(row[1]), row[3]), base, row[2], rf[d], m)
            elif op == isa.LOAD_U:
                row = slots[a]
                _copy(carray(P_U64(row[1]), row[3]), base, row[2], ru[d], m)
            elif op == isa.LOAD_B:
                row = slots[a]
                if row[0] == isa.BOOL:
                    z = rb[d]
                    src = _bytes(row[1], row[3])
                    for j in range(m):
                        z[j] = src[base + j] != 0
                else:  # bit-packed exactness flags
                    unpack_bits(_bytes(row[1], row[3]), row[5] + base, m, rb[d])
            elif op == isa.VALID:
                row = slots[a]
                unpack_bits(_bytes(row[4], row[6]), row[5] + base, m, rb[d])
            elif op == isa.OUTCOME:
                t, f, n, e = rb[a], rb[b], rb[c], rb[code[k, 5]]
                dst = out[base:base + m]
                for j in range(m):
                    dst[j] = outcome(t[j] != 0, f[j] != 0, n[j] != 0, e[j] != 0)
            elif op >= isa.FIRST_SEARCH and op <= isa.LAST_SEARCH:
                _search(op, d, a, b, c, code[k, 5], code[k, 6], ri, rf, ru, rb, m, lists_i,
                        lists_f, lists_u, lists, hints, k, count)
            else:
                _other(op, d, a, b, c, ri, rf, ru, rb, m)
    return 0


@njit(inline="always")
def _lt(x, y, z, m):  # pragma: no cover - compiled
    for j in range(m):
        z[j] = x[j] < y[j]


@njit(inline="always")
def _le(x, y, z, m):  # pragma: no cover - compiled
    for j in range(m):
        z[j] = x[j] <= y[j]


@njit(inline="always")
def _eq(x, y, z, m):  # pragma: no cover - compiled
    for j in range(m):
        z[j] = x[j] == y[j]


@njit(cache=True, nogil=True)
def _compare(op, ri, rf, ru, a, b, z, m):  # pragma: no cover - compiled
    """``rb[d] = x op y`` for the comparisons of one register file (LT_I .. EQ_U)."""
    if op == isa.LT_I:
        _lt(ri[a], ri[b], z, m)
    elif op == isa.LE_I:
        _le(ri[a], ri[b], z, m)
    elif op == isa.EQ_I:
        _eq(ri[a], ri[b], z, m)
    elif op == isa.LT_F:
        _lt(rf[a], rf[b], z, m)
    elif op == isa.LE_F:
        _le(rf[a], rf[b], z, m)
    elif op == isa.EQ_F:
        _eq(rf[a], rf[b], z, m)
    elif op == isa.LT_U:
        _lt(ru[a], ru[b], z, m)
    elif op == isa.LE_U:
        _le(ru[a], ru[b], z, m)
    else:
        _eq(ru[a], ru[b], z, m)


# Lists up to this long are searched by counting, as the fused kernels do (codegen.UNROLL): the
# elements <= hi are a prefix of the sorted list and those >= lo a suffix, so some element lies
# in [lo, hi] iff the two counts add up to more than the list's length. One vectorised pass per
# element: a binary search per container took 23 cycles on random bounds, this about 1 per
# element of the list.
UNROLL = 16


@njit(inline="always")
def _count_in(values, lo, lo_ok, hi, hi_ok, z, m, count):  # pragma: no cover - compiled
    """``any_in`` for each container of the chunk (an unknown end counts every element)."""
    n = values.shape[0]
    for j in range(m):
        count[j] = 0
    for q in range(n):
        v = values[q]
        for j in range(m):
            count[j] += np.int64((v <= hi[j]) | (hi_ok[j] == 0)) + np.int64(
                (v >= lo[j]) | (lo_ok[j] == 0))
    for j in range(m):
        z[j] = count[j] > n


@njit(inline="always")
def _count_covers(values, lo, hi, z, m, count, unsigned):  # pragma: no cover - compiled
    """``covers`` for each container of the chunk: the elements in [lo, hi] number hi - lo + 1
    (compared in the bounds' dtype, as NumPy does: uint64 widths wrap)."""
    n = values.shape[0]
    for j in range(m):
        count[j] = -n
    for q in range(n):
        v = values[q]
        for j in range(m):
            count[j] += np.int64(v <= hi[j]) + np.int64(v >= lo[j])
    for j in range(m):
        if unsigned:
            z[j] = (count[j] > 0) & ((hi[j] - lo[j]) == np.uint64(count[j] - 1))
        else:
            z[j] = (count[j] > 0) & ((hi[j] - lo[j]) == count[j] - 1)


@njit(inline="always")
def _any_in(values, lo, lo_ok, hi, hi_ok, z, m, count, hints, k):  # pragma: no cover
    if values.shape[0] <= UNROLL:
        _count_in(values, lo, lo_ok, hi, hi_ok, z, m, count)
        return
    hint = hints[k]  # a search from where the previous container's ended, as kernels do
    for j in range(m):
        z[j], hint = any_in_from(values, lo[j], lo_ok[j] != 0, hi[j], hi_ok[j] != 0, hint)
    hints[k] = hint


@njit(inline="always")
def _covers(values, lo, hi, z, m, count, hints, k, unsigned):  # pragma: no cover - compiled
    if values.shape[0] <= UNROLL:
        _count_covers(values, lo, hi, z, m, count, unsigned)
        return
    hint = hints[k]
    for j in range(m):
        z[j], hint = covers_from(values, lo[j], hi[j], hint)
    hints[k] = hint


@njit(cache=True, nogil=True)
def _search(op, d, a, b, c, e, g, ri, rf, ru, rb, m, lists_i, lists_f, lists_u, lists, hints,
            k, count):  # pragma: no cover - compiled
    """A list search: ``any_in`` (list a; lo b, lo_ok c, hi e, hi_ok g) or ``covers`` (list
    a; lo b, hi c) into ``rb[d]``."""
    at, stop = lists[a, 0], lists[a, 0] + lists[a, 1]
    if op == isa.ANY_IN_I:
        _any_in(lists_i[at:stop], ri[b], rb[c], ri[e], rb[g], rb[d], m, count, hints, k)
    elif op == isa.ANY_IN_F:
        _any_in(lists_f[at:stop], rf[b], rb[c], rf[e], rb[g], rb[d], m, count, hints, k)
    elif op == isa.ANY_IN_U:
        _any_in(lists_u[at:stop], ru[b], rb[c], ru[e], rb[g], rb[d], m, count, hints, k)
    elif op == isa.COVERS_I:
        _covers(lists_i[at:stop], ri[b], ri[c], rb[d], m, count, hints, k, False)
    elif op == isa.COVERS_F:
        _covers(lists_f[at:stop], rf[b], rf[c], rb[d], m, count, hints, k, False)
    else:
        _covers(lists_u[at:stop], ru[b], ru[c], rb[d], m, count, hints, k, True)


@njit(cache=True, nogil=True)
def _other(op, d, a, b, c, ri, rf, ru, rb, m):  # pragma: no cover - compiled
    """The rarer instructions: arithmetic and conversions."""
    if op == isa.ISNAN:
        p, z = rf[a], rb[d]
        for j in range(m):
            z[j] = np.isnan(p[j])
    elif op == isa.B2I:
        x, w = rb[a], ri[d]
        for j in range(m):
            w[j] = x[j]
    elif op == isa.ADD_I:
        x, y, w = ri[a], ri[b], ri[d]
        for j in range(m):
            w[j] = x[j] + y[j]
    elif op == isa.ADD_F:
        p, q, r = rf[a], rf[b], rf[d]
        for j in range(m):
            r[j] = p[j] + q[j]
    elif op == isa.MUL_I:
        x, y, w = ri[a], ri[b], ri[d]
        for j in range(m):
            w[j] = x[j] * y[j]
    elif op == isa.MUL_F:
        p, q, r = rf[a], rf[b], rf[d]
        for j in range(m):
            r[j] = p[j] * q[j]
    elif op == isa.FLOORDIV_I:  # NumPy: x // 0 is 0 (with a warning the interpreter ignores)
        x, y, w = ri[a], ri[b], ri[d]
        for j in range(m):
            # x // -1 is -x, wrapping as NumPy does (INT64_MIN // -1 is INT64_MIN): LLVM's
            # division leaves that one quotient undefined. Programs divide by positive
            # constants; random programs reach it.
            w[j] = x[j] // y[j] if y[j] > 0 or y[j] < -1 else -x[j] if y[j] == -1 else 0
    elif op == isa.WITHIN_I:
        x, y, z = ri[a], ri[b], rb[d]
        for j in range(m):
            z[j] = (-y[j] <= x[j]) & (x[j] <= y[j])
    elif op == isa.WITHIN_F:
        p, q, z = rf[a], rf[b], rb[d]
        for j in range(m):
            z[j] = (-q[j] <= p[j]) & (p[j] <= q[j])
    elif op == isa.MIN_I:
        x, y, w = ri[a], ri[b], ri[d]
        for j in range(m):
            w[j] = min(x[j], y[j])
    elif op == isa.MAX_I:
        x, y, w = ri[a], ri[b], ri[d]
        for j in range(m):
            w[j] = max(x[j], y[j])
    elif op == isa.MIN_F:  # NumPy's minimum: NaN if either is
        p, q, r = rf[a], rf[b], rf[d]
        for j in range(m):
            r[j] = p[j] if (p[j] < q[j]) | (p[j] != p[j]) else q[j]
    elif op == isa.MAX_F:
        p, q, r = rf[a], rf[b], rf[d]
        for j in range(m):
            r[j] = p[j] if (p[j] > q[j]) | (p[j] != p[j]) else q[j]
    elif op == isa.LT_IU or op == isa.LE_IU or op == isa.EQ_IU:  # int64 x against uint64 u
        x, u, z = ri[a], ru[b], rb[d]
        for j in range(m):
            if op == isa.LT_IU:
                z[j] = (x[j] < 0) | (np.uint64(x[j]) < u[j])
            elif op == isa.LE_IU:
                z[j] = (x[j] < 0) | (np.uint64(x[j]) <= u[j])
            else:
                z[j] = (x[j] >= 0) & (np.uint64(x[j]) == u[j])
    elif op == isa.LT_UI or op == isa.LE_UI:  # uint64 u against int64 x
        u, x, z = ru[a], ri[b], rb[d]
        for j in range(m):
            if op == isa.LT_UI:
                z[j] = (x[j] >= 0) & (u[j] < np.uint64(x[j]))
            else:
                z[j] = (x[j] >= 0) & (u[j] <= np.uint64(x[j]))
    elif op == isa.I2U:
        x, u = ri[a], ru[d]
        for j in range(m):
            u[j] = np.uint64(x[j])
    elif op == isa.WRAP:  # NumPy's narrower integers wrap at their width
        x, w = ri[a], ri[d]
        if b == 32:
            for j in range(m):
                w[j] = np.int64(np.int32(x[j])) if c else np.int64(np.uint32(x[j]))
        elif b == 16:
            for j in range(m):
                w[j] = np.int64(np.int16(x[j])) if c else np.int64(np.uint16(x[j]))
        else:
            for j in range(m):
                w[j] = np.int64(np.int8(x[j])) if c else np.int64(np.uint8(x[j]))
    elif op == isa.FITS_INT64:
        u, z = ru[a], rb[d]
        for j in range(m):
            z[j] = u[j] <= np.uint64(9223372036854775807)
    elif op == isa.TOINT_U:
        u, w = ru[a], ri[d]
        for j in range(m):
            w[j] = np.int64(u[j])
    elif op == isa.TOFLOAT_I:
        x, r = ri[a], rf[d]
        for j in range(m):
            r[j] = np.float64(x[j])
    elif op == isa.TOFLOAT_U:
        u, r = ru[a], rf[d]
        for j in range(m):
            r[j] = np.float64(u[j])
    elif op == isa.TOFLOAT32_I:
        x, r = ri[a], rf[d]
        for j in range(m):
            r[j] = np.float64(np.float32(x[j]))
    elif op == isa.TOFLOAT32_U:
        u, r = ru[a], rf[d]
        for j in range(m):
            r[j] = np.float64(np.float32(u[j]))
    elif op == isa.TOFLOAT32_F:
        p, r = rf[a], rf[d]
        for j in range(m):
            r[j] = np.float64(np.float32(p[j]))
