"""Numbers as DataFusion 55 types and casts them, where that parts from Spark: the common type
its coercion gives an IN list or a BETWEEN (``common_type``, folded left to right, so the order
of the items matters), and Arrow's casts of a DOUBLE to a DECIMAL (``decimal_units``) and of a
DECIMAL to a DOUBLE (``arrow_double``). Each was checked against DataFusion's own results
(tests/expr/test_dialects.py).

Types are named as ``engine_operands.kind_of`` names columns: ``"int64"``, ``"uint64"``,
``"float"``, ``"double"``, or ``("decimal", p, s)``; ``"null"`` for NULL.

>>> common_type(["uint64", "int64", "double"]), common_type(["uint64", "double", "int64"])
(('decimal', 35, 15), 'double')
"""

from __future__ import annotations

import decimal
import math
import struct

# How DataFusion widens an integer or float to meet a DECIMAL (its
# ``coerce_numeric_type_to_decimal``): precision and scale.
_AS_DECIMAL = {"int8": (3, 0), "int16": (5, 0), "int32": (10, 0), "int64": (20, 0),
               "uint8": (3, 0), "uint16": (5, 0), "uint32": (10, 0), "uint64": (20, 0),
               "float": (14, 7), "double": (30, 15)}
_SIGNED = {"int8", "int16", "int32", "int64"}
_INTEGERS = {"int8": 8, "int16": 16, "int32": 32, "int64": 64, "uint8": 8, "uint16": 16,
             "uint32": 32, "uint64": 64}


def coerce(a: object, b: object) -> object:
    """The type DataFusion compares ``a`` and ``b`` in (its ``comparison_coercion`` on
    numbers): a DECIMAL meets anything as a DECIMAL wide enough for both (at most 38 digits),
    then DOUBLE, then FLOAT, then the narrowest integer holding both (an unsigned BIGINT and a
    signed integer: DECIMAL(20, 0)).

    >>> coerce(("decimal", 9, 2), "double"), coerce("float", "int64"), coerce("uint32", "int8")
    (('decimal', 30, 15), 'float', 'int64')
    """
    if a == "null" or a == b:
        return b
    if b == "null":
        return a
    if isinstance(a, tuple) or isinstance(b, tuple):
        (p, s), (q, t) = (x[1:] if isinstance(x, tuple) else _AS_DECIMAL[x] for x in (a, b))
        scale = max(s, t)
        return ("decimal", min(38, scale + max(p - s, q - t)), scale)
    for floating in ("double", "float"):
        if floating in (a, b):
            return floating
    if "uint64" in (a, b) and {a, b} & _SIGNED:
        return ("decimal", 20, 0)
    bits = max(_INTEGERS[a], _INTEGERS[b])
    signed = bool({a, b} & _SIGNED)
    if signed and ((a not in _SIGNED and _INTEGERS[a] == bits) or (
            b not in _SIGNED and _INTEGERS[b] == bits)):
        bits *= 2  # an unsigned type meets a signed one no wider: the next signed type
    return f"{'' if signed else 'u'}int{bits}"


def common_type(types: list) -> object:
    """An IN list's type in DataFusion: its operand's type, then each item's, folded by
    ``coerce`` left to right (``get_coerce_type_for_list``).

    >>> common_type(["int64", ("decimal", 38, 10), "double"])
    ('decimal', 38, 15)
    """
    out = types[0]
    for t in types[1:]:
        out = coerce(out, t)
    return out


def decimal_units(value: float, scale: int) -> int | None:
    """Arrow's cast of a DOUBLE (or a FLOAT, widened) to a DECIMAL of ``scale`` places, in
    units of the scale: the DOUBLE times 10**scale (a DOUBLE product), rounded half away from
    zero (DataFusion's ``CAST(1.005 AS DECIMAL(10, 2))`` is 1.00). None for NaN, the
    infinities, a product beyond DOUBLE and scales beyond 22 (where 10**scale is no longer
    an exact DOUBLE).

    >>> decimal_units(1.005, 2), decimal_units(-2.5, 0)
    (100, -3)
    """
    product = value * float(10**scale) if scale <= 22 else math.nan
    if not math.isfinite(product):  # (beyond every DECIMAL: the cast fails there)
        return None
    return int(decimal.Decimal(product).to_integral_value(decimal.ROUND_HALF_UP))


def arrow_double(units: int, scale: int) -> float:
    """Arrow's DOUBLE of the DECIMAL ``units * 10**-scale``: ``units`` as the nearest DOUBLE
    (ties to even), divided by 10.0 to the power ``scale`` by repeated squaring (LLVM's
    ``powi``, exact up to 10**22). Checked against DataFusion 55's casts at every scale.

    >>> arrow_double(2**53 + 1, 0), arrow_double(15, 1)
    (9007199254740992.0, 1.5)
    """
    power, base, k = 1.0, 10.0, scale
    while k:
        if k & 1:
            power *= base
        k >>= 1
        if k:
            base *= base
    return float(units) / power


def nearest_float(v: int | float) -> float | None:
    """The nearest FLOAT (32 bits) to a whole number or a DOUBLE, as a Python float (one
    rounding, ties to even, as Arrow's and Java's casts: a whole number beyond 2**53 is
    rounded from its own value, not through a DOUBLE); None for a whole number beyond FLOAT.

    >>> nearest_float(16777217), nearest_float(0.1), nearest_float(2**63 + 2**39 + 1)
    (16777216.0, 0.10000000149011612, 9.223373136366404e+18)
    """
    if isinstance(v, int) and abs(v) > 2**53:
        shift = abs(v).bit_length() - 24  # a FLOAT holds 24 significant bits
        kept, rest = divmod(abs(v), 1 << shift)
        half = 1 << (shift - 1)
        if rest > half or (rest == half and kept & 1):
            kept += 1
        value = float(kept << shift)  # (24 bits, maybe 25 as 2**24: exact in a DOUBLE)
        return math.copysign(value, v) if value < 2.0**128 else None
    return struct.unpack("f", struct.pack("f", float(v)))[0]
