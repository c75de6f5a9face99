"""Statistics of one type standing for a column of another, as the canonical layout
(``prunekit.statistics``) allows: which types may (``compatible``, ``values_compatible``), and
bounds made values of the column's type (``conform_timestamps``, ``conform_decimals``), each
widened outwards, never rounded inwards. With what a ``bloom`` statistic holds: Parquet
split-block filters (``BLOCK`` bytes a block) of the PLAIN bytes of ``bloom_encoding(t)``.

The layout checks statistics with these when they are made; the kernels read bounds through
them; the Parquet source keeps a bloom filter only where its hashes are the literals'. Shared
vocabulary: this module imports no kernel and no source.

>>> import pyarrow as pa
>>> compatible(pa.int32(), pa.int64()), bloom_encoding(pa.string()), BLOCK
(True, 'bytes', 32)
"""

from __future__ import annotations

import numpy as np
import pyarrow as pa

from prunekit.expr.domains import is_stringlike

BLOCK = 32  # bytes per block


def compatible(stats_type: pa.DataType, expected: pa.DataType) -> bool:
    """Whether statistics of ``stats_type`` can stand for a column of ``expected`` type.

    >>> compatible(pa.int32(), pa.int64()), compatible(pa.uint64(), pa.int64())
    (True, False)
    """
    if stats_type == expected:
        return True
    if pa.types.is_decimal(stats_type) and pa.types.is_decimal(expected):
        return (stats_type.precision, stats_type.scale) == (expected.precision, expected.scale)
    if is_stringlike(stats_type) and is_stringlike(expected):
        return True
    if pa.types.is_integer(stats_type) and pa.types.is_integer(expected):
        return pa.types.is_uint64(stats_type) == pa.types.is_uint64(expected)
    return pa.types.is_floating(stats_type) and pa.types.is_floating(expected)


def values_compatible(value_type: pa.DataType, column_type: pa.DataType) -> bool:
    """Whether a ``values`` list of ``value_type`` can describe a column of ``column_type``.

    >>> values_compatible(pa.int32(), pa.int64()), values_compatible(pa.string(), pa.int64())
    (True, False)
    """
    return pa.types.is_null(value_type) or compatible(value_type, column_type)


PER_SECOND = {"s": 1, "ms": 1_000, "us": 1_000_000, "ns": 1_000_000_000}


def timestamp_readable(stats_type: pa.DataType, column_type: pa.DataType) -> bool:
    """Timestamp bounds of another unit that stand for a timestamp column once converted:
    naive ones, for a column with a zone read as UTC instants (as Arrow stores them), for a
    naive column as wall-clock times; or bounds with the column's own zone. Another zone label
    stays an error (a writer that labels bounds differently from the data says something
    prunekit does not guess), and so do zoned bounds for a naive column."""
    if not (pa.types.is_timestamp(stats_type) and pa.types.is_timestamp(column_type)):
        return False
    return stats_type != column_type and stats_type.tz in (None, column_type.tz)


def conform_timestamps(arr: pa.Array, t: pa.DataType, bound: str) -> tuple[pa.Array, np.ndarray]:
    """Timestamp bounds as values of the column's type ``t`` (same instants, or wall-clock
    times, counted in ``t``'s unit), and where one was widened: a bound finer than ``t``'s unit
    is floored (``min``) or ceiled (``max``) to it; a coarser one that overflows int64 is
    unknown.

    >>> import datetime as dt
    >>> a = pa.array([1_500, -1_500, 2_000, None], pa.timestamp("ns"))
    >>> lo, widened = conform_timestamps(a, pa.timestamp("us", tz="UTC"), "min")
    >>> lo.cast(pa.int64()).to_pylist(), widened.tolist()
    ([1, -2, 2, None], [True, True, False, False])
    >>> conform_timestamps(a, pa.timestamp("us"), "max")[0].cast(pa.int64()).to_pylist()
    [2, -1, 2, None]
    """
    raw = arr.cast(pa.int64())
    valid = raw.is_valid().to_numpy(zero_copy_only=False)
    v = raw.fill_null(0).to_numpy().astype(np.int64)
    have, want = PER_SECOND[arr.type.unit], PER_SECOND[t.unit]
    widened = np.zeros(len(v), bool)
    if have > want:  # finer: round outwards
        k = have // want
        q, r = np.divmod(v, k)  # floor division
        widened = (r != 0) & valid
        v = q + (widened if bound == "max" else 0)
    elif have < want:  # coarser: exact, unless beyond int64
        k = want // have
        limit = (2**63 - 1) // k
        valid = valid & (v <= limit) & (v >= -limit)
        v = np.where(valid, v, 0) * k
    return pa.array(v, pa.int64(), mask=~valid).cast(t), widened


def conform_decimals(arr: pa.Array, t: pa.DataType) -> pa.Array:
    """DECIMAL bounds of another precision or scale as values of the column's type ``t``; a
    bound that is no value of ``t`` (more digits than it holds) is unknown, never rounded.

    >>> from decimal import Decimal
    >>> conform_decimals(pa.array([Decimal("1.5"), Decimal("1.25"), None]),
    ...                  pa.decimal128(10, 1)).to_pylist()
    [Decimal('1.5'), None, None]
    """
    try:
        return arr.cast(t)  # exact, or it raises
    except (pa.ArrowInvalid, pa.ArrowNotImplementedError):
        pass
    import decimal

    unit = decimal.Decimal(1).scaleb(-t.scale)
    context = decimal.Context(prec=200)

    def fits(v: decimal.Decimal) -> bool:
        q = v.quantize(unit, context=context)
        return q == v and len(q.as_tuple().digits) <= t.precision

    return pa.array([v if v is not None and fits(v) else None for v in arr.to_pylist()], t)


def bloom_encoding(t: pa.DataType) -> str | None:
    """The Parquet physical type whose PLAIN bytes a ``t`` column's bloom filter hashes, as
    ``i32``/``i64``/``f32``/``f64``/``bytes``; None where no encoding is fixed by the Arrow
    type alone (decimals: INT32, INT64 or FIXED_LEN_BYTE_ARRAY; booleans; date64).

    >>> [bloom_encoding(t) for t in (pa.int8(), pa.timestamp("ms"), pa.decimal128(5, 2))]
    ['i32', 'i64', None]
    """
    if pa.types.is_integer(t):
        return "i64" if t.bit_width == 64 else "i32"
    if pa.types.is_date32(t) or pa.types.is_time32(t):
        return "i32"
    if pa.types.is_timestamp(t) or pa.types.is_time64(t):
        return "i64"
    if pa.types.is_float32(t):
        return "f32"
    if pa.types.is_float64(t):
        return "f64"
    if is_stringlike(t) and not pa.types.is_decimal(t):
        return "bytes"
    return None
