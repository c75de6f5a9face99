"""A Parquet footer walker: Thrift compact-protocol ``FileMetaData`` bytes to flat tables.

All footers of a scan are concatenated into one byte buffer and walked by one Numba pass
(``cache=True``), so 10,000 files cost no Python object per row group, column chunk or statistic.
The walk reads only what prunekit uses and skips every other field, known or not, by its wire
type (Thrift's rule for unknown fields). Its output is integer tables of byte offsets into the
buffer; values are decoded later, vectorised, by ``prunekit/_footer_values.py``.

A footer the walk cannot read (a varint or length running past its end, an unknown wire type,
nesting deeper than 64, a list header with a negative size) gets an error code and the byte
offset where it stopped; the caller names the file. A known field with an unexpected wire type
is skipped and stays unset, so its statistic is unknown.

This module imports Numba; ``prunekit/parquet.py`` imports it only inside
``row_group_statistics``, so ``import prunekit`` stays Numba-free.
"""

from __future__ import annotations

import numpy as np
from numba import njit

# Thrift compact wire types.
_TRUE, _FALSE, _I8, _I16, _I32, _I64, _DOUBLE, _BINARY, _LIST, _SET, _MAP, _STRUCT = range(1, 13)
_FRAME_STRUCT, _FRAME_LIST, _FRAME_MAP = 0, 1, 2
_DEPTH = 64

# Column-chunk table columns (one row per ColumnChunk, in footer order).
(C_FILE, C_RG, C_COL, C_HAS_META, C_TYPE, C_NUM_VALUES, C_UNCOMPRESSED, C_COMPRESSED,
 C_HAS_STATS, C_NULLS, C_NULLS_SET, C_MAX_OFF, C_MAX_LEN, C_MIN_OFF, C_MIN_LEN, C_MAXV_OFF,
 C_MAXV_LEN, C_MINV_OFF, C_MINV_LEN, C_MAX_EXACT, C_MIN_EXACT, C_BLOOM_OFF, C_BLOOM_LEN,
 C_CRYPTO) = range(24)
N_CHUNK_FIELDS = 24
# Row-group table columns.
(R_FILE, R_NUM_ROWS, R_NUM_ROWS_SET, R_FIRST_CHUNK, R_N_CHUNKS, R_BYTES, R_COMPRESSED) = range(7)
N_RG_FIELDS = 7
# Per-file table columns.
(F_ERROR, F_ERROR_POS, F_SCHEMA_START, F_SCHEMA_END, F_ARROW_OFF, F_ARROW_LEN, F_CREATED_OFF,
 F_CREATED_LEN, F_ORDERS_FIRST, F_ORDERS_COUNT, F_FIRST_RG, F_N_RG, F_FIRST_ELEMENT,
 F_N_ELEMENTS, F_ENCRYPTED) = range(15)
N_FILE_FIELDS = 15
# Schema-element table columns.
S_NAME_OFF, S_NAME_LEN, S_CHILDREN, S_REPETITION, S_TYPE = range(5)
N_SCHEMA_FIELDS = 5

# Column orders: none written (old writers), TYPE_ORDER, or another union member (the spec:
# readers that do not know it ignore the column's min and max).
ORDER_NONE, ORDER_TYPE_DEFINED, ORDER_UNKNOWN = 0, 1, 2
ERRORS = {1: "a value runs past the end of the footer", 2: "an unknown Thrift wire type",
          3: "nesting deeper than 64", 4: "a negative size", 5: "no schema"}


@njit(cache=True)
def _varint(buf, pos, end):
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


@njit(cache=True)
def _zigzag(buf, pos, end):
    u, pos = _varint(buf, pos, end)
    return np.int64(u >> np.uint64(1)) ^ -np.int64(u & np.uint64(1)), pos


@njit(cache=True)
def _field(buf, pos, end, last):
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
        fid, pos = _zigzag(buf, pos, end)
        return fid, t, pos
    return last + delta, t, pos


@njit(cache=True)
def _list_header(buf, pos, end):
    """(size, element type, new pos)."""
    if pos >= end:
        return 0, 0, -1
    b = np.int64(buf[pos])
    pos += 1
    n = b >> 4
    if n == 15:
        u, pos = _varint(buf, pos, end)
        n = np.int64(u)
    return n, b & 0x0F, pos


@njit(cache=True)
def _binary(buf, pos, end):
    """(offset, length, new pos) of a binary value; pos -1 when it runs past ``end``."""
    u, pos = _varint(buf, pos, end)
    if pos < 0 or u > np.uint64(end - pos):
        return 0, 0, -1
    n = np.int64(u)
    return pos, n, pos + n


@njit(cache=True)
def _skip(buf, pos, end, t, stack):
    """Position after one value of wire type ``t`` (a struct field's value: booleans have no
    payload); -1 when it runs past ``end``, -2 for an unknown type, -3 too deep, -4 negative
    size. Iterative: a hostile footer cannot overflow the call stack."""
    sp = 0
    while True:
        if t == _TRUE or t == _FALSE:
            pass
        elif t == _I8:
            pos += 1
        elif t == _I16 or t == _I32 or t == _I64:
            _, pos = _varint(buf, pos, end)
        elif t == _DOUBLE:
            pos += 8
        elif t == _BINARY:
            _, _, pos = _binary(buf, pos, end)
        elif t == _LIST or t == _SET:
            n, et, pos = _list_header(buf, pos, end)
            if pos < 0:
                return -1
            if n < 0:
                return -4
            if et == _TRUE or et == _FALSE or et == _I8:
                pos += n
            elif et == _DOUBLE:
                pos += 8 * n
            elif n > 0:
                if sp == _DEPTH:
                    return -3
                stack[sp, 0], stack[sp, 1], stack[sp, 2] = _FRAME_LIST, n, et
                sp += 1
        elif t == _MAP:
            u, pos = _varint(buf, pos, end)
            if pos < 0:
                return -1
            if u > np.uint64(end):
                return -4
            if u > 0:
                if pos >= end:
                    return -1
                kv = np.int64(buf[pos])
                pos += 1
                if sp == _DEPTH:
                    return -3
                stack[sp, 0], stack[sp, 1], stack[sp, 2] = _FRAME_MAP, 2 * np.int64(u), kv
                sp += 1
        elif t == _STRUCT:
            if sp == _DEPTH:
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
                _, ft, pos = _field(buf, pos, end, 0)
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
            if t == _TRUE or t == _FALSE:  # a boolean in a container is one byte
                pos += 1
                if pos > end:
                    return -1
                continue
            break


@njit(cache=True)
def _grow(table, n):
    """``table`` with room for row ``n`` (doubling)."""
    if n < table.shape[0]:
        return table
    out = np.empty((max(2 * table.shape[0], n + 1), table.shape[1]), table.dtype)
    out[:table.shape[0]] = table
    return out


@njit(cache=True)
def _fail(files, f, code, pos):
    files[f, F_ERROR] = code
    files[f, F_ERROR_POS] = pos


@njit(cache=True)
def _skip_code(pos):
    return 1 if pos == -1 else (2 if pos == -2 else (3 if pos == -3 else 4))


@njit(cache=True)
def _statistics(buf, pos, end, row, stack):
    """Fill one chunk row from a Statistics struct; new pos (negative: _skip's codes)."""
    last = 0
    while True:
        fid, t, pos = _field(buf, pos, end, last)
        if pos < 0:
            return -1
        if t == 0:
            return pos
        last = fid
        if fid == 1 and t == _BINARY:
            row[C_MAX_OFF], row[C_MAX_LEN], pos = _binary(buf, pos, end)
        elif fid == 2 and t == _BINARY:
            row[C_MIN_OFF], row[C_MIN_LEN], pos = _binary(buf, pos, end)
        elif fid == 3 and t == _I64:
            row[C_NULLS], pos = _zigzag(buf, pos, end)
            row[C_NULLS_SET] = 1
        elif fid == 5 and t == _BINARY:
            row[C_MAXV_OFF], row[C_MAXV_LEN], pos = _binary(buf, pos, end)
        elif fid == 6 and t == _BINARY:
            row[C_MINV_OFF], row[C_MINV_LEN], pos = _binary(buf, pos, end)
        elif fid == 7 and (t == _TRUE or t == _FALSE):
            row[C_MAX_EXACT] = 1 if t == _TRUE else 0
        elif fid == 8 and (t == _TRUE or t == _FALSE):
            row[C_MIN_EXACT] = 1 if t == _TRUE else 0
        else:
            pos = _skip(buf, pos, end, t, stack)
        if pos < 0:
            return pos


@njit(cache=True)
def _column_meta(buf, pos, end, row, stack):
    """Fill one chunk row from a ColumnMetaData struct."""
    last = 0
    row[C_HAS_META] = 1
    while True:
        fid, t, pos = _field(buf, pos, end, last)
        if pos < 0:
            return -1
        if t == 0:
            return pos
        last = fid
        if fid == 1 and t == _I32:
            row[C_TYPE], pos = _zigzag(buf, pos, end)
        elif fid == 5 and t == _I64:
            row[C_NUM_VALUES], pos = _zigzag(buf, pos, end)
        elif fid == 6 and t == _I64:
            row[C_UNCOMPRESSED], pos = _zigzag(buf, pos, end)
        elif fid == 7 and t == _I64:
            row[C_COMPRESSED], pos = _zigzag(buf, pos, end)
        elif fid == 12 and t == _STRUCT:
            row[C_HAS_STATS] = 1
            pos = _statistics(buf, pos, end, row, stack)
        elif fid == 14 and t == _I64:
            row[C_BLOOM_OFF], pos = _zigzag(buf, pos, end)
        elif fid == 15 and t == _I32:
            row[C_BLOOM_LEN], pos = _zigzag(buf, pos, end)
        else:
            pos = _skip(buf, pos, end, t, stack)
        if pos < 0:
            return pos


@njit(cache=True)
def _new_chunk(chunks, c, f, r, k):
    chunks[c, :] = 0
    chunks[c, C_FILE], chunks[c, C_RG], chunks[c, C_COL] = f, r, k
    chunks[c, C_TYPE] = -1
    for j in (C_MAX_LEN, C_MIN_LEN, C_MAXV_LEN, C_MINV_LEN, C_MAX_EXACT, C_MIN_EXACT,
              C_BLOOM_OFF, C_BLOOM_LEN):
        chunks[c, j] = -1


@njit(cache=True)
def walk(buf, starts, ends, arrow_key):
    """Walk every footer ``buf[starts[f]:ends[f]]``; returns the tables
    (files, schema elements, column orders, row groups, chunks) described at the top."""
    nf = starts.size
    files = np.zeros((nf, N_FILE_FIELDS), np.int64)
    elements = np.empty((64, N_SCHEMA_FIELDS), np.int64)
    orders = np.empty((64, 1), np.int64)
    rgs = np.empty((64, N_RG_FIELDS), np.int64)
    chunks = np.empty((64, N_CHUNK_FIELDS), np.int64)
    stack = np.empty((_DEPTH, 3), np.int64)
    ne = no = nr = nc = 0
    for f in range(nf):
        pos, end = starts[f], ends[f]
        files[f, F_ORDERS_COUNT] = -1
        files[f, F_ARROW_LEN] = -1
        files[f, F_CREATED_LEN] = -1
        files[f, F_SCHEMA_START] = -1
        files[f, F_FIRST_RG] = nr
        files[f, F_FIRST_ELEMENT] = ne
        last = 0
        while True:
            fid, t, pos = _field(buf, pos, end, last)
            if pos < 0:
                _fail(files, f, 1, end)
                break
            if t == 0:
                break
            last = fid
            start = pos
            if fid == 2 and t == _LIST:  # schema: list<SchemaElement>
                n, et, pos = _list_header(buf, pos, end)
                if pos < 0 or n < 0 or et != _STRUCT:
                    _fail(files, f, 1 if pos < 0 else 4, start)
                    break
                files[f, F_SCHEMA_START] = start
                for _ in range(n):
                    elements = _grow(elements, ne)
                    e = elements[ne]
                    e[:] = -1
                    e[S_NAME_LEN] = 0
                    ne += 1
                    el = 0
                    while pos >= 0:
                        efid, et2, pos = _field(buf, pos, end, el)
                        if pos < 0 or et2 == 0:
                            break
                        el = efid
                        if efid == 1 and et2 == _I32:
                            e[S_TYPE], pos = _zigzag(buf, pos, end)
                        elif efid == 3 and et2 == _I32:
                            e[S_REPETITION], pos = _zigzag(buf, pos, end)
                        elif efid == 4 and et2 == _BINARY:
                            e[S_NAME_OFF], e[S_NAME_LEN], pos = _binary(buf, pos, end)
                        elif efid == 5 and et2 == _I32:
                            e[S_CHILDREN], pos = _zigzag(buf, pos, end)
                        else:
                            pos = _skip(buf, pos, end, et2, stack)
                    if pos < 0:
                        break
                files[f, F_SCHEMA_END] = pos
                files[f, F_N_ELEMENTS] = ne - files[f, F_FIRST_ELEMENT]
            elif fid == 4 and t == _LIST:  # row_groups: list<RowGroup>
                n, et, pos = _list_header(buf, pos, end)
                if pos < 0 or n < 0 or et != _STRUCT:
                    _fail(files, f, 1 if pos < 0 else 4, start)
                    break
                for _ in range(n):
                    rgs = _grow(rgs, nr)
                    g = rgs[nr]
                    g[:] = 0
                    g[R_FILE] = f
                    g[R_FIRST_CHUNK] = nc
                    rl = 0
                    while pos >= 0:
                        rfid, rt, pos = _field(buf, pos, end, rl)
                        if pos < 0 or rt == 0:
                            break
                        rl = rfid
                        if rfid == 1 and rt == _LIST:
                            m, ct, pos = _list_header(buf, pos, end)
                            if pos < 0 or m < 0 or ct != _STRUCT:
                                pos = -1 if pos < 0 else -4
                                break
                            for k in range(m):
                                chunks = _grow(chunks, nc)
                                _new_chunk(chunks, nc, f, nr, k)
                                row = chunks[nc]
                                g[R_N_CHUNKS] += 1
                                nc += 1
                                cl = 0
                                while pos >= 0:
                                    cfid, cty, pos = _field(buf, pos, end, cl)
                                    if pos < 0 or cty == 0:
                                        break
                                    cl = cfid
                                    if cfid == 3 and cty == _STRUCT:
                                        pos = _column_meta(buf, pos, end, row, stack)
                                    else:
                                        if cfid == 8:  # crypto_metadata: statistics hidden
                                            row[C_CRYPTO] = 1
                                        pos = _skip(buf, pos, end, cty, stack)
                                if pos < 0:
                                    break
                        elif rfid == 2 and rt == _I64:
                            g[R_BYTES], pos = _zigzag(buf, pos, end)
                        elif rfid == 3 and rt == _I64:
                            g[R_NUM_ROWS], pos = _zigzag(buf, pos, end)
                            g[R_NUM_ROWS_SET] = 1
                        elif rfid == 6 and rt == _I64:
                            g[R_COMPRESSED], pos = _zigzag(buf, pos, end)
                        else:
                            pos = _skip(buf, pos, end, rt, stack)
                    nr += 1
                    if pos < 0:
                        break
            elif fid == 5 and t == _LIST:  # key_value_metadata: find ARROW:schema
                n, et, pos = _list_header(buf, pos, end)
                if pos < 0 or n < 0 or et != _STRUCT:
                    _fail(files, f, 1 if pos < 0 else 4, start)
                    break
                for _ in range(n):
                    kl = 0
                    key_off = key_len = val_off = -1
                    val_len = -1
                    while pos >= 0:
                        kfid, kt, pos = _field(buf, pos, end, kl)
                        if pos < 0 or kt == 0:
                            break
                        kl = kfid
                        if kfid == 1 and kt == _BINARY:
                            key_off, key_len, pos = _binary(buf, pos, end)
                        elif kfid == 2 and kt == _BINARY:
                            val_off, val_len, pos = _binary(buf, pos, end)
                        else:
                            pos = _skip(buf, pos, end, kt, stack)
                    if pos < 0:
                        break
                    if key_len == arrow_key.size and val_len >= 0:
                        same = True
                        for j in range(key_len):
                            if buf[key_off + j] != arrow_key[j]:
                                same = False
                                break
                        if same:
                            files[f, F_ARROW_OFF], files[f, F_ARROW_LEN] = val_off, val_len
            elif fid == 6 and t == _BINARY:
                files[f, F_CREATED_OFF], files[f, F_CREATED_LEN], pos = _binary(buf, pos, end)
            elif fid == 7 and t == _LIST:  # column_orders: list<ColumnOrder union>
                n, et, pos = _list_header(buf, pos, end)
                if pos < 0 or n < 0 or et != _STRUCT:
                    _fail(files, f, 1 if pos < 0 else 4, start)
                    break
                files[f, F_ORDERS_FIRST] = no
                files[f, F_ORDERS_COUNT] = n
                for _ in range(n):
                    orders = _grow(orders, no)
                    orders[no, 0] = ORDER_UNKNOWN  # a union member this code does not know
                    ol = 0
                    while pos >= 0:
                        ofid, ot, pos = _field(buf, pos, end, ol)
                        if pos < 0 or ot == 0:
                            break
                        ol = ofid
                        if ofid == 1 and ot == _STRUCT:
                            orders[no, 0] = ORDER_TYPE_DEFINED
                        pos = _skip(buf, pos, end, ot, stack)
                    no += 1
                    if pos < 0:
                        break
            else:
                if fid == 8:  # encryption_algorithm: a plaintext footer of an encrypted file
                    files[f, F_ENCRYPTED] = 1
                pos = _skip(buf, pos, end, t, stack)
            if pos < 0:
                _fail(files, f, _skip_code(pos) if pos < -1 else 1, start)
                break
        files[f, F_N_RG] = nr - files[f, F_FIRST_RG]
        if files[f, F_ERROR] == 0 and files[f, F_SCHEMA_START] < 0:
            _fail(files, f, 5, end)
    return files, elements[:ne], orders[:no, 0], rgs[:nr], chunks[:nc]


@njit(cache=True)
def bytes_equal(buf, off_a, len_a, off_b, len_b):
    """Per row: whether two byte ranges of ``buf`` hold the same bytes (lengths -1: False)."""
    n = off_a.size
    out = np.zeros(n, np.bool_)
    for i in range(n):
        if len_a[i] < 0 or len_a[i] != len_b[i]:
            continue
        same = True
        for j in range(len_a[i]):
            if buf[off_a[i] + j] != buf[off_b[i] + j]:
                same = False
                break
        out[i] = same
    return out
