"""LIKE-pattern slots: whether a container's ``min`` matches a whole pattern, computed once
per batch before the kernel (as value sets are, ``valuesets.py``).

A ``like`` slot (``expr/program/ir.py``) holds an RE2 expression made from a LIKE pattern
(``expr/binding/likes.py``). Per container the slot is an int8: 1 where ``min`` matches it, 0 where
it does not, NULL where ``min`` is unknown, is not valid UTF-8 (Spark would match the value
decoded with U+FFFD for invalid bytes), or need not be tested because ``max`` differs from it.
The program uses the answer only where ``min = max``, both exact: the container's one value.

>>> import pyarrow as pa
>>> regex = "(?s)\\\\A\\\\x{7a}\\\\x{7a}.\\\\z"  # LIKE 'zz_'
>>> s = like_slot(regex, {"min": pa.array(["zz", "zzz", None, b"z\\xff"], pa.binary()),
...                       "max": pa.array(["zz", "zzz", None, b"z\\xff"], pa.binary())})
>>> s.values.tolist(), s.valid_mask(4).tolist()
([0, 1, 0, 0], [True, True, False, False])
"""

from __future__ import annotations

import numpy as np
import pyarrow as pa

from prunekit.expr.domains import is_stringlike

from .slots import ABSENT, SlotData


def _binary(arr: pa.Array) -> pa.Array:
    if arr.type in (pa.string_view(), pa.binary_view()):
        arr = arr.cast(pa.large_string() if arr.type == pa.string_view() else pa.large_binary())
    return arr.cast(pa.large_binary())


def _decoded(raw: pa.Array) -> tuple[pa.Array, np.ndarray]:
    """``raw`` (large_binary, no NULLs) as strings, and which were valid UTF-8 (the others
    are empty strings here)."""
    try:
        return raw.cast(pa.large_string()), np.ones(len(raw), bool)
    except pa.ArrowInvalid:  # some value is not UTF-8: find which, one by one
        texts, ok = [], np.ones(len(raw), bool)
        for i, v in enumerate(raw.to_pylist()):
            try:
                texts.append(v.decode("utf-8"))
            except UnicodeDecodeError:
                texts.append("")
                ok[i] = False
        return pa.array(texts, pa.large_string()), ok


def like_slot(regex: str, fields: dict) -> SlotData:
    """The ``like`` slot of one batch whose statistics struct has ``fields``."""
    lo = fields.get("min")
    if lo is None or not is_stringlike(lo.type) or lo.null_count == len(lo):
        return ABSENT
    import pyarrow.compute as pc

    lo = _binary(lo)
    wanted = lo.is_valid()
    hi = fields.get("max")
    if hi is not None and is_stringlike(hi.type):
        wanted = pc.and_kleene(wanted, pc.fill_null(pc.equal(lo, _binary(hi)), False))
    wanted = wanted.to_numpy(zero_copy_only=False)
    where = np.flatnonzero(wanted)
    values = np.zeros(len(lo), np.int8)
    known = np.zeros(len(lo), bool)
    if len(where):
        texts, ok = _decoded(lo.take(pa.array(where)))
        try:
            hit = pc.match_substring_regex(texts, pattern=regex).to_numpy(zero_copy_only=False)
        except (pa.ArrowInvalid, pa.ArrowNotImplementedError):
            return ABSENT  # an expression RE2 refuses (a lone surrogate): nothing is known
        values[where] = hit
        known[where] = ok
    if not known.any():
        return ABSENT
    bitmap = None if known.all() else np.packbits(known, bitorder="little")
    return SlotData(values, bitmap, 0)
