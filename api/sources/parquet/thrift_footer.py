"""A Parquet footer walker: Thrift compact-protocol ``FileMetaData`` bytes to flat tables.

All footers of a scan are concatenated into one byte buffer and walked by one pass, so
10,000 files cost no Python object per row group, column chunk or statistic. The functions are
``prunekit.sources.jit`` functions: compiled by Numba (``cache=True``) for many footers, plain
Python for a few.
The walk reads only what prunekit uses and skips every other field, known or not, by its wire
type (Thrift's rule for unknown fields). Its output is integer tables of byte offsets into the
buffer; values are decoded later, vectorised, by ``prunekit.sources.parquet.footer_values``.

A footer the walk cannot read (a varint or length running past its end, an unknown wire type,
nesting deeper than 64, a list header with a negative size) gets an error code and the byte
offset where it stopped; the caller names the file. A known field with an unexpected wire type
is skipped and stays unset, so its statistic is unknown.
"""

from __future__ import annotations

import numpy as np

from ..jit import jit
from ..varints import grow, zigzag
from .thrift_compact import (
    BINARY,
    DEPTH,
    FALSE,
    I32,
    I64,
    LIST,
    STRUCT,
    TRUE,
    binary,
    field,
    list_header,
    skip,
)

# Column-chunk table columns (one row per ColumnChunk, in footer order).
(C_FILE, C_RG, C_COL, C_HAS_META, C_TYPE, C_NUM_VALUES, C_UNCOMPRESSED, C_COMPRESSED,
 C_HAS_STATS, C_NULLS, C_NULLS_SET, C_MAX_OFF, C_MAX_LEN, C_MIN_OFF, C_MIN_LEN, C_MAXV_OFF,
 C_MAXV_LEN, C_MINV_OFF, C_MINV_LEN, C_MAX_EXACT, C_MIN_EXACT, C_BLOOM_OFF, C_BLOOM_LEN,
 C_CRYPTO, C_NANS, C_NANS_SET) = range(26)
N_CHUNK_FIELDS = 26
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

# Column orders: none written (old writers), TYPE_ORDER, IEEE_754_TOTAL_ORDER (floats: bounds
# of the non-NaN values, NaN only when every value is), or another union member (the spec:
# readers that do not know it ignore the column's min and max).
ORDER_NONE, ORDER_TYPE_DEFINED, ORDER_UNKNOWN, ORDER_TOTAL = 0, 1, 2, 3
ERRORS = {1: "a value runs past the end of the footer", 2: "an unknown Thrift wire type",
          3: "nesting deeper than 64", 4: "a negative size", 5: "no schema"}


@jit
def _fail(files, f, code, pos):
    files[f, F_ERROR] = code
    files[f, F_ERROR_POS] = pos


@jit
def _skip_code(pos):
    return 1 if pos == -1 else (2 if pos == -2 else (3 if pos == -3 else 4))


@jit
def _statistics(buf, pos, end, row, stack):
    """Fill one chunk row from a Statistics struct; new pos (negative: skip's codes)."""
    last = 0
    while True:
        fid, t, pos = field(buf, pos, end, last)
        if pos < 0:
            return -1
        if t == 0:
            return pos
        last = fid
        if fid == 1 and t == BINARY:
            row[C_MAX_OFF], row[C_MAX_LEN], pos = binary(buf, pos, end)
        elif fid == 2 and t == BINARY:
            row[C_MIN_OFF], row[C_MIN_LEN], pos = binary(buf, pos, end)
        elif fid == 3 and t == I64:
            row[C_NULLS], pos = zigzag(buf, pos, end)
            row[C_NULLS_SET] = 1
        elif fid == 5 and t == BINARY:
            row[C_MAXV_OFF], row[C_MAXV_LEN], pos = binary(buf, pos, end)
        elif fid == 6 and t == BINARY:
            row[C_MINV_OFF], row[C_MINV_LEN], pos = binary(buf, pos, end)
        elif fid == 7 and (t == TRUE or t == FALSE):
            row[C_MAX_EXACT] = 1 if t == TRUE else 0
        elif fid == 8 and (t == TRUE or t == FALSE):
            row[C_MIN_EXACT] = 1 if t == TRUE else 0
        elif fid == 9 and t == I64:
            row[C_NANS], pos = zigzag(buf, pos, end)
            row[C_NANS_SET] = 1
        else:
            pos = skip(buf, pos, end, t, stack)
        if pos < 0:
            return pos


@jit
def _column_meta(buf, pos, end, row, stack):
    """Fill one chunk row from a ColumnMetaData struct."""
    last = 0
    row[C_HAS_META] = 1
    while True:
        fid, t, pos = field(buf, pos, end, last)
        if pos < 0:
            return -1
        if t == 0:
            return pos
        last = fid
        if fid == 1 and t == I32:
            row[C_TYPE], pos = zigzag(buf, pos, end)
        elif fid == 5 and t == I64:
            row[C_NUM_VALUES], pos = zigzag(buf, pos, end)
        elif fid == 6 and t == I64:
            row[C_UNCOMPRESSED], pos = zigzag(buf, pos, end)
        elif fid == 7 and t == I64:
            row[C_COMPRESSED], pos = zigzag(buf, pos, end)
        elif fid == 12 and t == STRUCT:
            row[C_HAS_STATS] = 1
            pos = _statistics(buf, pos, end, row, stack)
        elif fid == 14 and t == I64:
            row[C_BLOOM_OFF], pos = zigzag(buf, pos, end)
        elif fid == 15 and t == I32:
            row[C_BLOOM_LEN], pos = zigzag(buf, pos, end)
        else:
            pos = skip(buf, pos, end, t, stack)
        if pos < 0:
            return pos


@jit
def _new_chunk(chunks, c, f, r, k):
    chunks[c, :] = 0
    chunks[c, C_FILE], chunks[c, C_RG], chunks[c, C_COL] = f, r, k
    chunks[c, C_TYPE] = -1
    for j in (C_MAX_LEN, C_MIN_LEN, C_MAXV_LEN, C_MINV_LEN, C_MAX_EXACT, C_MIN_EXACT,
              C_BLOOM_OFF, C_BLOOM_LEN):
        chunks[c, j] = -1


@jit
def walk(buf, starts, ends, arrow_key):
    """Walk every footer ``buf[starts[f]:ends[f]]``; returns the tables
    (files, schema elements, column orders, row groups, chunks) described at the top."""
    nf = starts.size
    files = np.zeros((nf, N_FILE_FIELDS), np.int64)
    elements = np.empty((64, N_SCHEMA_FIELDS), np.int64)
    orders = np.empty((64, 1), np.int64)
    rgs = np.empty((64, N_RG_FIELDS), np.int64)
    chunks = np.empty((64, N_CHUNK_FIELDS), np.int64)
    stack = np.empty((DEPTH, 3), np.int64)
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
            fid, t, pos = field(buf, pos, end, last)
            if pos < 0:
                _fail(files, f, 1, end)
                break
            if t == 0:
                break
            last = fid
            start = pos
            if fid == 2 and t == LIST:  # schema: list<SchemaElement>
                n, et, pos = list_header(buf, pos, end)
                if pos < 0 or n < 0 or et != STRUCT:
                    _fail(files, f, 1 if pos < 0 else 4, start)
                    break
                files[f, F_SCHEMA_START] = start
                for _ in range(n):
                    elements = grow(elements, ne)
                    e = elements[ne]
                    e[:] = -1
                    e[S_NAME_LEN] = 0
                    ne += 1
                    el = 0
                    while pos >= 0:
                        efid, et2, pos = field(buf, pos, end, el)
                        if pos < 0 or et2 == 0:
                            break
                        el = efid
                        if efid == 1 and et2 == I32:
                            e[S_TYPE], pos = zigzag(buf, pos, end)
                        elif efid == 3 and et2 == I32:
                            e[S_REPETITION], pos = zigzag(buf, pos, end)
                        elif efid == 4 and et2 == BINARY:
                            e[S_NAME_OFF], e[S_NAME_LEN], pos = binary(buf, pos, end)
                        elif efid == 5 and et2 == I32:
                            e[S_CHILDREN], pos = zigzag(buf, pos, end)
                        else:
                            pos = skip(buf, pos, end, et2, stack)
                    if pos < 0:
                        break
                files[f, F_SCHEMA_END] = pos
                files[f, F_N_ELEMENTS] = ne - files[f, F_FIRST_ELEMENT]
            elif fid == 4 and t == LIST:  # row_groups: list<RowGroup>
                n, et, pos = list_header(buf, pos, end)
                if pos < 0 or n < 0 or et != STRUCT:
                    _fail(files, f, 1 if pos < 0 else 4, start)
                    break
                for _ in range(n):
                    rgs = grow(rgs, nr)
                    g = rgs[nr]
                    g[:] = 0
                    g[R_FILE] = f
                    g[R_FIRST_CHUNK] = nc
                    rl = 0
                    while pos >= 0:
                        rfid, rt, pos = field(buf, pos, end, rl)
                        if pos < 0 or rt == 0:
                            break
                        rl = rfid
                        if rfid == 1 and rt == LIST:
                            m, ct, pos = list_header(buf, pos, end)
                            if pos < 0 or m < 0 or ct != STRUCT:
                                pos = -1 if pos < 0 else -4
                                break
                            for k in range(m):
                                chunks = grow(chunks, nc)
                                _new_chunk(chunks, nc, f, nr, k)
                                row = chunks[nc]
                                g[R_N_CHUNKS] += 1
                                nc += 1
                                cl = 0
                                while pos >= 0:
                                    cfid, cty, pos = field(buf, pos, end, cl)
                                    if pos < 0 or cty == 0:
                                        break
                                    cl = cfid
                                    if cfid == 3 and cty == STRUCT:
                                        pos = _column_meta(buf, pos, end, row, stack)
                                    else:
                                        if cfid == 8:  # crypto_metadata: statistics hidden
                                            row[C_CRYPTO] = 1
                                        pos = skip(buf, pos, end, cty, stack)
                                if pos < 0:
                                    break
                        elif rfid == 2 and rt == I64:
                            g[R_BYTES], pos = zigzag(buf, pos, end)
                        elif rfid == 3 and rt == I64:
                            g[R_NUM_ROWS], pos = zigzag(buf, pos, end)
                            g[R_NUM_ROWS_SET] = 1
                        elif rfid == 6 and rt == I64:
                            g[R_COMPRESSED], pos = zigzag(buf, pos, end)
                        else:
                            pos = skip(buf, pos, end, rt, stack)
                    nr += 1
                    if pos < 0:
                        break
            elif fid == 5 and t == LIST:  # key_value_metadata: find ARROW:schema
                n, et, pos = list_header(buf, pos, end)
                if pos < 0 or n < 0 or et != STRUCT:
                    _fail(files, f, 1 if pos < 0 else 4, start)
                    break
                for _ in range(n):
                    kl = 0
                    key_off = key_len = val_off = -1
                    val_len = -1
                    while pos >= 0:
                        kfid, kt, pos = field(buf, pos, end, kl)
                        if pos < 0 or kt == 0:
                            break
                        kl = kfid
                        if kfid == 1 and kt == BINARY:
                            key_off, key_len, pos = binary(buf, pos, end)
                        elif kfid == 2 and kt == BINARY:
                            val_off, val_len, pos = binary(buf, pos, end)
                        else:
                            pos = skip(buf, pos, end, kt, stack)
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
            elif fid == 6 and t == BINARY:
                files[f, F_CREATED_OFF], files[f, F_CREATED_LEN], pos = binary(buf, pos, end)
            elif fid == 7 and t == LIST:  # column_orders: list<ColumnOrder union>
                n, et, pos = list_header(buf, pos, end)
                if pos < 0 or n < 0 or et != STRUCT:
                    _fail(files, f, 1 if pos < 0 else 4, start)
                    break
                files[f, F_ORDERS_FIRST] = no
                files[f, F_ORDERS_COUNT] = n
                for _ in range(n):
                    orders = grow(orders, no)
                    orders[no, 0] = ORDER_UNKNOWN  # a union member this code does not know
                    ol = 0
                    while pos >= 0:
                        ofid, ot, pos = field(buf, pos, end, ol)
                        if pos < 0 or ot == 0:
                            break
                        ol = ofid
                        if ofid == 1 and ot == STRUCT:
                            orders[no, 0] = ORDER_TYPE_DEFINED
                        elif ofid == 2 and ot == STRUCT:
                            orders[no, 0] = ORDER_TOTAL
                        pos = skip(buf, pos, end, ot, stack)
                    no += 1
                    if pos < 0:
                        break
            else:
                if fid == 8:  # encryption_algorithm: a plaintext footer of an encrypted file
                    files[f, F_ENCRYPTED] = 1
                pos = skip(buf, pos, end, t, stack)
            if pos < 0:
                _fail(files, f, _skip_code(pos) if pos < -1 else 1, start)
                break
        files[f, F_N_RG] = nr - files[f, F_FIRST_RG]
        if files[f, F_ERROR] == 0 and files[f, F_SCHEMA_START] < 0:
            _fail(files, f, 5, end)
    return files, elements[:ne], orders[:no, 0], rgs[:nr], chunks[:nc]


@jit
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
