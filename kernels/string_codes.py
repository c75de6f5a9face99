"""Strings, binary and decimals wider than 18 digits as order-preserving int64 codes, for one
batch: ranked together with the literals compared with them, once per batch and outside the hot
loop (pyarrow's ``rank``, which orders binary data by bytes, i.e. UTF-8 binary collation), and
cached per ``Statistics``; strings of at most 7 bytes keyed as their own codes instead
(``slots.short_key``), by the kernel or by NumPy. ``plan`` arguments are a ``recipe.Plan``.
"""

from __future__ import annotations

import numpy as np
import pyarrow as pa

from prunekit.expr.domains import domain_of, is_stringlike, unscaled_to_decimal
from prunekit.expr.program.ir import Program

from .slots import (
    ABSENT,
    SlotData,
    short_key,
    validity,
)


def rank_key(t: pa.DataType) -> str:
    return "bytes" if is_stringlike(t) else str(t)


def _as_rankable(arr: pa.Array, key: str) -> pa.Array:
    if key != "bytes":
        return arr
    if arr.type in (pa.string_view(), pa.binary_view()):
        arr = arr.cast(pa.large_string() if arr.type == pa.string_view() else pa.large_binary())
    return arr.cast(pa.large_binary())


def rank_codes(plan, fields: dict, cache: dict | None, keys_in_kernel: bool) -> dict:
    """Order-preserving int64 codes for every code-domain min/max and literal, per rank group.

    Strings of at most 7 bytes are their own keys (``short_key``): with ``keys_in_kernel``
    the slots hold the strings, keyed chunk by chunk where they are read (the kernel, or the
    interpreter's ``short_keys``): no array of keys (at 10M containers, 80 MB per bound, and
    writing it cost 3x the kernel's reading), and the same kernel whether or not Numba was
    loaded when the batch was prepared. Longer ones are ranked: the distinct bound values of
    a group, sorted, are u_0 < u_1 < ...; u_i gets code 2i + 1, and a literal gets 2i + 1 if
    it equals u_i, else 2i where i values are below it. Coding the bounds is the expensive
    part (a sort of every min and max), so it is kept in ``cache`` (owned by the Statistics
    object: its arrays do not change) and only literals are placed per call, by counting or
    one rank over the distinct values."""
    types = plan.types
    out: dict = {}
    for key, (names, literals) in plan.code_groups.items():
        owners = []
        for name in names:
            for stat in ("min", "max"):
                arr = fields[name].get(stat)
                if arr is not None and not pa.types.is_null(arr.type):
                    owners.append((name, stat, arr))
        literal_type = pa.large_binary() if key == "bytes" else types[names[0]]
        cache_key = ("codes", key, tuple((name, stat) for name, stat, _ in owners))
        coded = cache.get(cache_key) if cache is not None else None
        if coded is None and keys_in_kernel and key == "bytes" and _keyable(owners):
            coded = None, [string_slot(arr) for _, _, arr in owners]
        elif coded is None:
            coded = code_bounds([arr for _, _, arr in owners], key, literal_type)
            if cache is not None:
                cache[cache_key] = coded
        distinct, codes = coded
        for (name, stat, arr), c in zip(owners, codes, strict=True):
            out[(name, stat)] = (ABSENT if arr.null_count == len(arr) else
                                 c if isinstance(c, SlotData) else
                                 SlotData(c, validity(arr), arr.offset))
        if distinct is None:  # short strings: their keys, not ranks, whatever the batch
            params = _short_params(plan, key, literals)
        else:
            params = _literal_params(literals, _literal_codes(
                distinct, pa.array([v for _, v in literals], literal_type)), plan.list_params)
        out.update(params)
    return out


def _short_params(plan, key: str, literals: list) -> dict:
    """The parameters the literals of rank group ``key`` make when its bounds are short
    strings keyed in the kernel: their keys, the same for every batch (kept on the plan)."""
    params = plan.short_params.get(key)
    if params is None:
        params = plan.short_params[key] = _literal_params(
            literals, [short_key(v) for _, v in literals], plan.list_params)
    return params


def short_codes(plan) -> dict:
    """The parameters of every rank group's literals, its bounds keyed in the kernel."""
    out: dict = {}
    for key, (_, literals) in plan.code_groups.items():
        out.update(_short_params(plan, key, literals))
    return out


def _literal_params(literals: list, codes, lists: frozenset) -> dict:
    """``("param", index)`` -> the parameter the literals' codes make: an int64 array for a
    list parameter (an index in ``lists``), else an int64 scalar."""
    grouped: dict[int, list] = {}
    for (index, _), code in zip(literals, codes, strict=True):
        grouped.setdefault(index, []).append(code)
    return {("param", index): np.array(c, np.int64) if index in lists else np.int64(c[0])
            for index, c in grouped.items()}


def code_bounds(arrays: list[pa.Array], key: str, literal_type: pa.DataType) -> tuple:
    """(sorted distinct values, codes per array) for the bounds of one rank group."""
    import pyarrow.compute as pc

    if key == "bytes" and len({a.type for a in arrays}) == 1 and arrays[0].type in OFFSETS:
        parts = list(arrays)  # one string type: encoded as they are, no copy (bytes order)
    else:
        parts = [_as_rankable(a, key) for a in arrays]
        parts = [p.cast(literal_type) if p.type != literal_type else p for p in parts]
    if sum(len(p) for p in parts) == 0:
        return pa.array([], literal_type), [np.zeros(0, np.int64) for _ in arrays]
    # Hash the bounds to their distinct values first (bounds repeat: a vocabulary, a date
    # prefix), then sort only those: ranking all of them took 3 s at 1M containers. The
    # arrays are encoded as one chunked array (one dictionary), not concatenated: Q4 of the
    # benchmarks at 10M containers peaked at 690 MB above the statistics with a copy.
    encoded = pc.dictionary_encode(pa.chunked_array(parts)).unify_dictionaries()
    dictionary = encoded.chunks[0].dictionary
    order = pc.sort_indices(dictionary).to_numpy()
    distinct = dictionary.take(pa.array(order)).cast(literal_type)  # sorted, distinct, no nulls
    # u_i gets code 2i + 1; a NULL bound is masked by its validity, so its code is unused.
    code_of = np.empty(len(order), np.int64)
    code_of[order] = np.arange(len(order), dtype=np.int64) * 2 + 1
    # Written chunk by chunk into one array, reading the indices in place: a NULL's index is
    # any value (clipped), its code unused. Chunks are not the parts (empty ones are dropped).
    codes = np.ones(sum(len(p) for p in parts), np.int64)
    start = 0
    for c in encoded.chunks:
        ind = c.indices
        raw = np.frombuffer(ind.buffers()[1], ind.type.to_pandas_dtype())[
            ind.offset: ind.offset + len(ind)]
        if len(order):
            np.take(code_of, raw, out=codes[start: start + len(c)], mode="clip")
        start += len(c)
    out, start = [], 0
    for p in parts:
        out.append(codes[start: start + len(p)])
        start += len(p)
    return distinct, out


OFFSETS = {pa.string(): np.int32, pa.binary(): np.int32, pa.large_string(): np.int64,
            pa.large_binary(): np.int64}


def _keyable(owners: list) -> bool:
    """Whether these string bounds can be keyed where they are read: plain offsets."""
    return all(arr.type in OFFSETS for _, _, arr in owners)


def string_slot(arr: pa.Array) -> SlotData:
    """The offsets (from the array's first entry) and bytes of a string array, uncopied."""
    bufs, off = arr.buffers(), arr.offset
    offsets = np.frombuffer(bufs[1], OFFSETS[arr.type])[off: off + len(arr) + 1]
    data = np.frombuffer(bufs[2], np.uint8) if bufs[2] is not None else np.zeros(0, np.uint8)
    bitmap = np.frombuffer(bufs[0], np.uint8) if arr.null_count and bufs[0] is not None else None
    return SlotData(offsets, bitmap, off, False, data)  # positional: keywords cost more


def _literal_codes(distinct: pa.Array, literals: pa.Array) -> np.ndarray:
    import pyarrow.compute as pc

    if len(literals) == 0:
        return np.zeros(0, np.int64)
    equal = pc.is_in(literals, value_set=distinct).to_numpy(zero_copy_only=False)
    if len(literals) <= 16:  # a comparison pass per literal
        below = np.array([pc.sum(pc.less(distinct, lit)).as_py() or 0 for lit in literals],
                         np.int64)
    else:  # one rank of distinct values and literals together, minus literals below
        together = pc.rank(pa.concat_arrays([distinct, literals]), tiebreaker="min").to_numpy()
        among = pc.rank(literals, tiebreaker="min").to_numpy()
        below = together[len(distinct):].astype(np.int64) - among.astype(np.int64)
    return below * 2 + equal.astype(np.int64)


def group_literals(program: Program, names: list[str], types: dict) -> list:
    """(param index, Arrow-ready value) for every literal compared with these columns."""
    out = []
    for i, p in enumerate(program.params):
        if p.column in names:
            t = types[p.column]
            values = p.value if p.is_list else (p.value,)
            out.extend((i, _to_arrow_value(v, t)) for v in values)
    return out


def _to_arrow_value(v: object, t: pa.DataType) -> object:
    if pa.types.is_decimal(t):  # domain values of decimals are unscaled integers
        return unscaled_to_decimal(v, t.scale)
    return v


def param_value(p, types: dict):
    """A parameter's value as kernels read it, or None if it is coded per batch (a literal
    compared with strings or wide decimals is placed among the batch's ranked bounds)."""
    t = types.get(p.column)
    if t is not None and domain_of(t) == "code":
        return None
    raw = p.value if p.is_list else (p.value,)
    # The dtype comes from the literals' domain, never from NumPy's inference: NumPy makes a
    # list of integers that do not all fit one integer type (2**53 + 1 and 2**64 - 1, both
    # uint64) a float64 array, where 2**53 + 1 is 2**53, so IN would find a value that is not
    # listed (docs/semantics.md §2: literals compare exactly).
    if any(isinstance(v, float) for v in raw):
        dtype = np.float64
    elif t is not None and domain_of(t) == "uint":
        dtype = np.uint64
    else:
        dtype = np.int64
    values = np.array(raw, dtype)
    return values if p.is_list else values[0]
