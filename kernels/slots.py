"""One statistic as a kernel reads it (``SlotData``): an Arrow array wrapped without copying,
the values buffer as a NumPy view and the validity bitmap as bytes plus a bit offset (sliced
arrays keep their offset). Shared by ``inputs`` (the batch) and ``valuesets`` (membership).

>>> import pyarrow as pa
>>> arr = pa.array([5, None, 7], pa.int64()).slice(1)
>>> s = slot_data(arr)
>>> s.values.tolist(), s.bit_offset, s.layout
([0, 7], 1, ('masked', False))
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pyarrow as pa


@dataclass(slots=True)
class SlotData:
    """One statistic for the kernel. ``layout`` is what the kernel source depends on.

    >>> SlotData(np.array([1, 2]), None).layout, SlotData(None, None).valid_mask(2).tolist()
    (('dense', False), [False, False])
    """

    values: np.ndarray | None  # None: absent (every entry unknown)
    bitmap: np.ndarray | None  # None: every entry valid
    bit_offset: int = 0
    bits: bool = False  # values are a bitmap (booleans), read at bit_offset
    # values are the Arrow offsets of strings of at most 7 bytes (entry i spans
    # data[values[i]:values[i + 1]]), keyed by ``compiled.short_string_keys`` where read
    keys_of: np.ndarray | None = None  # the strings' bytes
    # an earlier slot whose validity bits are these (``recipe.same_validity``), else -1: the
    # kernel unpacks and tests them once (only the kernel reads this; others use ``bitmap``)
    validity_of: int = -1

    @property
    def layout(self) -> tuple:
        """(absent | dense | masked, encoding), and for a masked slot whose validity is an
        earlier slot's, that slot's index third: encoding False (plain values), True (bits)
        or "keys" (string offsets)."""
        if self.values is None:
            return ("absent", False)
        encoding = "keys" if self.keys_of is not None else self.bits
        if self.bitmap is None:
            return ("dense", encoding)
        return ("masked", encoding) if self.validity_of < 0 else \
            ("masked", encoding, self.validity_of)

    def valid_mask(self, n: int) -> np.ndarray:
        """Validity as a bool array (for the NumPy interpreter)."""
        if self.values is None:
            return np.zeros(n, bool)
        if self.bitmap is None:
            return np.ones(n, bool)
        return _unpack(self.bitmap, self.bit_offset, n)

    def value_array(self, n: int) -> np.ndarray:
        if self.values is None:
            return np.zeros(n, np.int64)
        if self.keys_of is not None:
            return short_keys(self.values, self.keys_of, n)
        if self.bits:
            return _unpack(self.values, self.bit_offset, n).astype(np.int64)
        return self.values


class LongStrings(Exception):
    """A string slot keyed in the kernel (``SlotData.keys_of``) holds a string longer than 7
    bytes: the caller prepares the batch again with ranked codes (``prepare``).

    >>> short_keys(np.array([0, 8]), np.frombuffer(b"abcdefgh", np.uint8), 1)  # 8 bytes
    Traceback (most recent call last):
    ...
    prunekit.kernels.slots.LongStrings
    """


def _unpack(bitmap: np.ndarray, offset: int, n: int) -> np.ndarray:
    return np.unpackbits(bitmap, bitorder="little")[offset: offset + n].astype(bool)


ABSENT = SlotData(None, None)


# The columns of a kernel's table of statistics (``codegen.emit``), one row per slot: the
# values' address and length (elements), the bit offset (of the bitmap, and of bit-packed
# values), the validity bitmap's address and length (bytes), the strings' bytes' address and
# length. An absent slot's row is zeros, and so is a missing bitmap's or bytes' part.
TABLE_COLUMNS = 7
NO_ROW = (0,) * TABLE_COLUMNS


# How the compiled reader (``exported.fill``) reads a slot's array (``inputs`` plans a read in
# these terms without importing Numba): absent; plain values of a width; bits; string offsets
# of 4 or 8 bytes, the strings keyed in the kernel.
READ_ABSENT, READ_VALUES, READ_BITS, READ_OFFSETS32, READ_OFFSETS64 = range(5)
# The layout it finds per slot: absent; dense; masked with a bitmap of its own; masked with
# the bitmap of the first of its bound pair, bit for bit.
FOUND_ABSENT, FOUND_DENSE, FOUND_MASKED, FOUND_SHARED = range(4)


def address(array: np.ndarray) -> int:
    """Where ``array``'s first element is in memory.

    >>> a = np.arange(4, dtype=np.int64); address(a[1:]) - address(a)
    8
    """
    return array.__array_interface__["data"][0]


def slot_table(slots: list[SlotData]) -> np.ndarray:
    """The table a kernel reads ``slots`` through (``TABLE_COLUMNS``). It holds addresses
    only: the slots' arrays must outlive every call that reads it.

    >>> slot_table([slot_data(pa.array([5, None, 7]).slice(1)), ABSENT])[:, [1, 2, 4]].tolist()
    [[2, 1, 1], [0, 0, 0]]
    """
    return np.array([table_row(s) for s in slots], np.int64).reshape(len(slots), TABLE_COLUMNS)


def table_row(s: SlotData) -> tuple:
    """Slot ``s``'s row of a kernel's table (``TABLE_COLUMNS``)."""
    values, bitmap, keys = s.values, s.bitmap, s.keys_of
    if values is None:
        return NO_ROW
    return (address(values), len(values), s.bit_offset,
            0 if bitmap is None else address(bitmap), 0 if bitmap is None else len(bitmap),
            0 if keys is None else address(keys), 0 if keys is None else len(keys))


def value_kind(values: np.ndarray) -> np.dtype | tuple:
    """How a kernel reads ``values`` (its ``codegen.emit`` dtypes entry): the dtype, or for a
    strided view (a decimal's low words) the dtype and the step in elements.

    >>> value_kind(np.zeros(4, np.int32)), value_kind(np.zeros(8, np.int64)[::2])
    (dtype('int32'), (dtype('int64'), 2))
    """
    dtype = values.dtype
    stride = values.strides[0] if values.ndim == 1 and len(values) > 1 else dtype.itemsize
    return dtype if stride == dtype.itemsize else (dtype, stride // dtype.itemsize)


def validity(arr: pa.Array) -> np.ndarray | None:
    """The validity bitmap of ``arr`` (bit offset ``arr.offset``), or None when all valid.

    >>> validity(pa.array([1, 2])) is None, validity(pa.array([1, None, 3])).tolist()
    (True, [5])
    """
    buf = arr.buffers()[0]
    return np.frombuffer(buf, np.uint8) if arr.null_count and buf is not None else None


def slot_data(arr: pa.Array | None, kind: tuple | None = None) -> SlotData:
    """Wrap one Arrow array (already holding its parent's nulls) without copying values.
    ``kind``: ``read_kind(arr.type)``, if the caller worked it out already.

    >>> slot_data(pa.array([True, None])).layout, slot_data(pa.nulls(2)).layout
    (('masked', True), ('absent', False))
    """
    if arr is None:
        return ABSENT
    n, nulls = len(arr), arr.null_count
    if n == nulls:
        return ABSENT
    tag, dtype = read_kind(arr.type) if kind is None else kind
    if tag == "null":
        return ABSENT
    if tag == "float16":
        # Numba has no float16 (a raw NotImplementedError); widening to float64 is exact.
        arr, dtype = arr.cast(pa.float64()), np.dtype(np.float64)
    bufs = arr.buffers()
    bitmap = np.frombuffer(bufs[0], np.uint8) if nulls and bufs[0] is not None else None
    off = arr.offset
    if tag == "bits":
        return SlotData(np.frombuffer(bufs[1], np.uint8), bitmap, off, bits=True)
    if tag == "decimal":
        # The low 64 bits of a little-endian decimal128 are the value when |v| < 2**63
        # (precision <= 18): a strided view, no copy.
        words = np.frombuffer(bufs[1], "<i8")
        low, high = words[2 * off: 2 * (off + n): 2], words[2 * off + 1: 2 * (off + n): 2]
        fits = high == (low >> 63)
        if not fits.all():
            # A value beyond int64 does not fit the declared precision (Arrow's full
            # validation rejects it); its low word alone would be a wrong bound, so the
            # statistic is malformed and read as unknown (docs/semantics.md §1: never trusted).
            valid = fits & SlotData(low, bitmap, off).valid_mask(n)
            return SlotData(low, np.packbits(valid, bitorder="little"), 0)
        return SlotData(low, bitmap, off)
    # positional arguments: NumPy parses keywords slowly
    return SlotData(np.frombuffer(bufs[1], dtype, n, off * dtype.itemsize), bitmap, off)


# Arrow type -> (tag, NumPy dtype of the values buffer): how slot_data reads it, worked out
# once per type. Tags are plain strings, never compared with a dtype (``dtype == "null"``
# parses the string as a dtype name: a microsecond per comparison, per slot, per call).
_KINDS: dict = {}


def read_kind(t: pa.DataType) -> tuple[str, np.dtype | None]:
    """How an array of type ``t`` is read: a tag (``plain``, ``bits``, ``decimal``,
    ``float16``, ``null``) and the NumPy dtype of its values buffer.

    >>> read_kind(pa.date32()), read_kind(pa.bool_())
    (('plain', dtype('int32')), ('bits', None))
    """
    return _KINDS.get(t) or _learn_kind(t)


def _learn_kind(t: pa.DataType) -> tuple[str, np.dtype | None]:
    if pa.types.is_null(t):
        kind = ("null", None)
    elif pa.types.is_float16(t):
        kind = ("float16", None)
    elif pa.types.is_boolean(t):
        kind = ("bits", None)
    elif pa.types.is_decimal(t):
        kind = ("decimal", None)
    elif pa.types.is_date32(t):
        kind = ("plain", np.dtype(np.int32))
    elif pa.types.is_date64(t) or pa.types.is_timestamp(t):
        kind = ("plain", np.dtype(np.int64))
    else:
        kind = ("plain", np.dtype(t.to_pandas_dtype()))
    _KINDS[t] = kind
    return kind


def short_keys(offsets: np.ndarray, data: np.ndarray, n: int) -> np.ndarray:
    """``compiled.short_string_keys`` in NumPy, for the interpreter (which runs before Numba
    is loaded, and checks the kernels): the keys of strings ``0 .. n`` of Arrow ``offsets``
    and ``data``, or ``LongStrings`` if one is longer than 7 bytes or the offsets are
    malformed.

    >>> import pyarrow as pa
    >>> arr = pa.array(["ab", "", "abc"])
    >>> keys = short_keys(np.frombuffer(arr.buffers()[1], np.int32),
    ...                   np.frombuffer(arr.buffers()[2], np.uint8), 3)
    >>> keys.tolist() == [short_key(v) for v in ["ab", "", "abc"]]
    True
    """
    starts = offsets[:n].astype(np.int64)
    lengths = offsets[1: n + 1].astype(np.int64) - starts
    if n and (lengths.min() < 0 or lengths.max() > 7 or starts.min() < 0
              or (starts + lengths).max() > len(data)):
        raise LongStrings
    width = np.arange(8)
    inside = width < lengths[:, None]  # the 8th byte never: it holds the length
    padded = np.concatenate([data[: int((starts + lengths).max()) if n else 0],
                             np.zeros(8, np.uint8)])
    raw = np.where(inside, padded[np.where(inside, starts[:, None] + width, 0)], 0)
    words = np.ascontiguousarray(raw, np.uint8).view(">u8").reshape(n).astype(np.uint64)
    keys = (words | lengths.astype(np.uint64)) ^ np.uint64(1 << 63)
    return keys.view(np.int64)


def short_key(value: str | bytes) -> int:
    """The code of a literal compared with short-string keys: its first 7 bytes, zero-padded,
    and its length, 8 standing for "longer" (such a literal sorts after every string of at
    most 7 bytes that is a prefix of it, and is equal to none).

    >>> short_key("ab") < short_key("ab\\x00") < short_key("abc") < short_key("abcdefgh")
    True
    """
    raw = value.encode() if isinstance(value, str) else bytes(value)
    return (int.from_bytes(raw[:7].ljust(7, b"\0"), "big") << 8 | min(len(raw), 8)) - 2**63
