"""The vocabulary of types every layer shares: how a type's values are ordered in a kernel
(its *domain*), its range, and how its statistics are represented. A leaf module: the
kernels, the sources and ``spark_glue`` read types through it without touching binding.

==========  =================================================================================
domain      values compared as
==========  =================================================================================
``int``     int64: integers, booleans, dates, timestamps, DECIMAL of at most 18 digits
            (unscaled)
``uint``    uint64
``float``   IEEE doubles (float32 bounds widen exactly)
``code``    ranks of a sorted set of distinct values: strings and binaries by their bytes,
            DECIMAL of more than 18 digits
==========  =================================================================================

>>> domain_of(pa.int8()), domain_of(pa.string()), domain_of(pa.list_(pa.int8()))
('int', 'code', None)
"""

from __future__ import annotations

import decimal
import functools
import math
from fractions import Fraction

import numpy as np
import pyarrow as pa

# Decimal arithmetic in the default context rounds to 28 digits; decimal128 holds 38 and
# decimal256 76, so every operation here names this exact-enough context.
EXACT = decimal.Context(prec=100, Emax=10**6, Emin=-(10**6))


def domain_of(t: pa.DataType) -> str | None:
    """How a type's statistics are compared in a kernel; None if prunekit cannot order it.

    >>> domain_of(pa.decimal128(10, 2)), domain_of(pa.decimal128(30, 2)), domain_of(pa.uint64())
    ('int', 'code', 'uint')
    """
    if pa.types.is_uint64(t):
        return "uint"
    if pa.types.is_integer(t) or pa.types.is_boolean(t) or pa.types.is_temporal(t) and (
            pa.types.is_date(t) or pa.types.is_timestamp(t)):
        return "int"
    if pa.types.is_decimal(t):  # decimal32 and decimal64 statistics are read as decimal128
        return "int" if t.bit_width <= 128 and t.precision <= 18 else "code"
    if pa.types.is_float32(t) or pa.types.is_float64(t):
        return "float"
    if is_stringlike(t):
        return "code"
    return None


def is_stringlike(t: pa.DataType) -> bool:
    """Strings and binaries of every Arrow layout: ordered by their bytes.

    >>> is_stringlike(pa.large_binary()), is_stringlike(pa.string_view()), is_stringlike(pa.int8())
    (True, True, False)
    """
    return (pa.types.is_string(t) or pa.types.is_large_string(t) or pa.types.is_binary(t)
            or pa.types.is_large_binary(t) or t in (pa.string_view(), pa.binary_view()))


def is_text(t: pa.DataType) -> bool:
    """Strings (UTF-8), not binaries.

    >>> is_text(pa.large_string()), is_text(pa.binary())
    (True, False)
    """
    return pa.types.is_string(t) or pa.types.is_large_string(t) or t == pa.string_view()


@functools.lru_cache(maxsize=256)  # asked once per literal of a list of thousands
def int_range(t: pa.DataType) -> tuple[int, int]:
    """Smallest and largest value of an integer-domain type (dates and timestamps included).

    >>> int_range(pa.uint8()), int_range(pa.decimal128(3, 1))
    ((0, 255), (-999, 999))
    """
    if pa.types.is_decimal(t):
        return -(10**t.precision) + 1, 10**t.precision - 1
    if pa.types.is_boolean(t):
        return 0, 1
    if pa.types.is_date32(t):
        return -(2**31), 2**31 - 1
    if pa.types.is_integer(t):
        info = np.iinfo(t.to_pandas_dtype())
        return int(info.min), int(info.max)
    return -(2**63), 2**63 - 1  # date64, timestamps


def unscaled_to_decimal(unscaled: int, scale: int) -> decimal.Decimal:
    """The decimal value of an unscaled integer, exactly.

    >>> unscaled_to_decimal(-99999999999999999999999999999, 3)
    Decimal('-99999999999999999999999999.999')
    """
    return decimal.Decimal(unscaled).scaleb(-scale, context=EXACT)


_F32_MAX = Fraction(float(np.finfo(np.float32).max))
_F32_OVERFLOW = _F32_MAX + Fraction(2**103)  # FLOAT's max plus half its last step rounds to inf


def round_to_float32(x: int | Fraction | decimal.Decimal) -> float:
    """The FLOAT nearest ``x`` (ties to even; +-inf beyond the range), in one rounding, as
    Java's ``(float)`` cast gives it; going through a double could round twice.

    >>> round_to_float32(16777217), round_to_float32(2**24 + 3)
    (16777216.0, 16777220.0)
    """
    x = Fraction(x)
    if abs(x) >= _F32_OVERFLOW:
        return math.inf if x > 0 else -math.inf
    with np.errstate(over="ignore"):  # just below the threshold a double may round to inf
        f = np.float32(float(x))  # at most one FLOAT step from the answer
        near = [np.nextafter(f, np.float32(-np.inf)), f, np.nextafter(f, np.float32(np.inf))]
    near = [c for c in near if np.isfinite(c)]
    return float(min(near, key=lambda c: (abs(Fraction(float(c)) - x),
                                          int(np.float32(c).view(np.uint32)) & 1)))


def least_integer_rounding_to(c: float) -> int | float:
    """The least integer whose FLOAT (``round_to_float32``) is ``c`` or above, for a FLOAT
    ``c``: rounding is monotone, so an integer compares with ``c`` in FLOAT as it compares
    with this threshold exactly. -inf where every integer does, inf where none does.

    >>> least_integer_rounding_to(16777218.0), least_integer_rounding_to(16777220.0)  # ties even
    (16777218, 16777219)
    >>> least_integer_rounding_to(-9.223372036854776e18) < -2**63
    True
    """
    if math.isnan(c):
        raise ValueError("NaN has no threshold")
    with np.errstate(over="ignore"):  # below the least FLOAT is -inf
        below = float(np.nextafter(np.float32(c), np.float32(-np.inf)))
    if below == -math.inf:
        return -math.inf
    if c == math.inf:
        return math.inf
    # Past the midpoint between c and the FLOAT below it an integer rounds to c or above; the
    # midpoint's floor is at most one step from the answer, and each step is checked exactly.
    v = math.floor((Fraction(below) + Fraction(c)) / 2)
    while round_to_float32(v) < c:
        v += 1
    while round_to_float32(v - 1) >= c:
        v -= 1
    return v
