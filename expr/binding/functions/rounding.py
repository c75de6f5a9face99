"""``floor(x)`` and ``ceil(x)``: Spark gives BIGINT for integers (their own value) and for
DOUBLE/FLOAT (NaN is 0, beyond the range saturates: ANSI mode fails instead), and
DECIMAL(p - s + 1, 0) for DECIMAL(p, s). ``floor(x) >= m`` is ``x >= m`` and ``ceil(x) >= m``
is ``x > m - 1``, exactly (doubles: the nearest double at or above).

>>> import pyarrow as pa
>>> from prunekit.expr.binding.bind import bind
>>> from prunekit.expr.syntax.sql import parse
>>> bind(parse("floor(x) >= 3"), pa.schema([("x", pa.float64())]))
BRewritten(arg=BInRange(col=x, first=3.0, last=inf), text='floor(x) >= 3')
"""

from __future__ import annotations

import dataclasses
import decimal
import math
import struct
from fractions import Fraction

import pyarrow as pa

from prunekit.expr.binding import bound as b
from prunekit.expr.binding.applied import Monotone, int_valued
from prunekit.expr.binding.comparisons import column_vs_literal
from prunekit.expr.binding.functions.registry import Rule, register
from prunekit.expr.binding.operand_rules import cast_column
from prunekit.expr.binding.operands import ColOp, LitOp
from prunekit.expr.domains import int_range
from prunekit.expr.spark_types import literals as L
from prunekit.expr.spark_types.arrow_casts import arrow_double
from prunekit.expr.syntax import nodes as n


def _double_at_least(x: Fraction | int) -> float:
    """The smallest double >= x (x finite)."""
    f = float(x)
    return f if Fraction(f) >= x else math.nextafter(f, math.inf)


def _rounding(name: str, x: ColOp) -> object | None:
    """``floor(x)`` or ``ceil(x)``: Spark gives BIGINT for integers (their own value) and for
    DOUBLE/FLOAT (NaN is 0, beyond the range saturates: ANSI mode fails instead), and
    DECIMAL(p - s + 1, 0) for DECIMAL(p, s)."""
    col = x.col
    if col.domain == "int" and pa.types.is_integer(col.type) and pa.types.is_signed_integer(
            col.stats_type):
        if isinstance(col, b.BColumn) and not col.convert and not x.negated:
            return ColOp(cast_column(col, pa.int64()) or col)  # BIGINT, the same values
        return x  # an integer is its own floor
    if x.negated:
        return None
    ceil = name == "ceil"
    label = f"{name}({col.label()})"
    if col.domain == "float" and (isinstance(col, b.BFloatOp) or pa.types.is_floating(col.type)):
        return _float_to_integer(x, label, pa.int64(),
                                 _ceil_threshold if ceil else _double_at_least)
    if pa.types.is_decimal(col.type) and not col.convert:
        p, s = col.type.precision, col.type.scale
        # floor(x) >= m iff x >= m; ceil(x) >= m iff x > m - 1
        return _decimal_to_integer(x, label, pa.decimal128(min(38, p - s + 1), 0),
                                   lambda m: ceil)
    return None


def truncated(x: ColOp, to: pa.DataType, safe: bool = False) -> object | None:
    """``CAST(x AS to)`` of a DOUBLE, FLOAT or DECIMAL column to BIGINT or INT (to any signed
    integer type from a DECIMAL whose every value it holds): Spark truncates toward zero, so
    ``CAST(x AS BIGINT) >= m`` is ``x >= m`` for m >= 1 and ``x > m - 1`` otherwise. Beyond
    the type a DOUBLE saturates and NaN is 0 outside ANSI mode (ANSI fails the query).
    ``TRY_CAST`` (``safe``) of a DOUBLE gives NULL for both, a NULL on a non-NULL row that a
    threshold on the column cannot stand for (``IS NULL``, ``NOT``): unknown. None where not
    such a cast.

    >>> import pyarrow as pa
    >>> from prunekit.expr.binding.bind import bind
    >>> from prunekit.expr.syntax.sql import parse
    >>> bind(parse("CAST(x AS BIGINT) = -2"), pa.schema([("x", pa.decimal128(9, 2))])).arg
    BAnd(args=(BCompare(col=x, op='gt', value=-300), BNot(arg=BCompare(col=x, op='gt', \
value=-200))))
    """
    col = x.col
    if x.negated or col.convert or not isinstance(col, b.BColumn) or not (
            pa.types.is_signed_integer(to)):
        return None
    label = f"CAST({col.label()} AS {to})"
    if col.domain == "float" and pa.types.is_floating(col.type) and to.bit_width >= 32 and \
            not safe:
        # the least double whose truncation is >= m
        return _float_to_integer(x, label, to, lambda m: _double_at_least(m) if m >= 1 else
                                 _ceil_threshold(m))
    if pa.types.is_decimal(col.type) and \
            10 ** (col.type.precision - col.type.scale) - 1 <= int_range(to)[1]:
        return _decimal_to_integer(x, label, to, lambda m: m < 1)
    return None


def to_double(x: ColOp) -> Monotone | None:
    """``CAST(x AS DOUBLE)`` of a DECIMAL column: the nearest DOUBLE (ties to even), which
    Spark computes exactly as Java's ``BigDecimal.doubleValue``; non-decreasing, so
    ``CAST(x AS DOUBLE) >= m`` is ``x >= t``, t the least DECIMAL whose DOUBLE is at least m.
    None where not such a cast.

    >>> import pyarrow as pa
    >>> from prunekit.expr.binding.bind import bind
    >>> from prunekit.expr.syntax.sql import parse
    >>> bind(parse("CAST(x AS DOUBLE) >= 0.1"), pa.schema([("x", pa.decimal128(38, 20))])).arg
    BCompare(col=x, op='ge', value=9999999999999999862)
    """
    col = x.col
    if x.negated or col.convert or not isinstance(col, b.BColumn) or not pa.types.is_decimal(
            col.type):
        return None
    scale = col.type.scale

    def ge(m: float) -> object:
        if m > 1e39 or m <= -1e39:  # beyond every DECIMAL (of at most 38 digits)
            return b.BNonNull(col, m < 0)
        least = decimal.Decimal(_least_rounding_to(m, scale)).scaleb(-scale)
        return column_vs_literal(n.Op.GE, col, L.coerce(least, col.type))

    def gt(m: float) -> object:
        return ge(math.nextafter(m, math.inf))

    return Monotone(f"CAST({col.label()} AS DOUBLE)", x, pa.float64(), ge, gt)


def arrow_to_double(x: ColOp) -> Monotone | None:
    """``CAST(x AS DOUBLE)`` of a DECIMAL column as Arrow computes it (DataFusion): the
    unscaled integer as the nearest DOUBLE, divided by ``10.0 ** s`` as Rust's ``powi`` gives
    it. Two roundings (and above 10**22 an inexact divisor), so not always the nearest DOUBLE
    Spark gives, but non-decreasing in x all the same: ``CAST(x AS DOUBLE) >= m`` is ``x >=
    t``, t the least DECIMAL Arrow casts to at least m (bisection over the unscaled integers).
    ``dialects`` writes DataFusion's cast of a DECIMAL of more than 15 digits as the call
    ``__prunekit_arrow_double(x)``, which binds here; below 2**53 the two casts agree.

    >>> import pyarrow as pa
    >>> from prunekit.expr.binding.bind import bind
    >>> from prunekit.expr.syntax.sql import parse
    >>> bind(parse("__prunekit_arrow_double(x) >= 0.1"),
    ...      pa.schema([("x", pa.decimal128(38, 20))])).arg  # Spark's: ...9862
    BCompare(col=x, op='ge', value=9999999999999998976)
    """
    col = x.col
    if x.negated or col.convert or not isinstance(col, b.BColumn) or not pa.types.is_decimal(
            col.type):
        return None
    precision, scale = col.type.precision, col.type.scale
    largest = 10**precision - 1

    def ge(m: float) -> object:
        if m != m or arrow_double(largest, scale) < m:  # (NaN is above every number)
            return b.BNonNull(col, False)
        if arrow_double(-largest, scale) >= m:
            return b.BNonNull(col, True)
        lo, hi = -largest, largest  # arrow_double(lo) < m <= arrow_double(hi)
        while hi - lo > 1:
            mid = (lo + hi) // 2
            if arrow_double(mid, scale) >= m:
                hi = mid
            else:
                lo = mid
        return column_vs_literal(n.Op.GE, col, L.coerce(
            decimal.Decimal(hi).scaleb(-scale, decimal.Context(prec=80)), col.type))

    def gt(m: float) -> object:
        return ge(math.nextafter(m, math.inf))

    return Monotone(f"CAST({col.label()} AS DOUBLE)", x, pa.float64(), ge, gt)


def _bind_arrow_double(kids: tuple) -> object | None:
    return arrow_to_double(kids[0]) if len(kids) == 1 and isinstance(kids[0], ColOp) else None


def arrow_to_bigint(x: ColOp) -> Monotone | None:
    """``CAST(x AS BIGINT)`` of a DECIMAL column as Arrow computes it (DataFusion): truncated
    toward zero, the query failing where that is beyond BIGINT (``fails``: unknown there;
    Spark's legacy mode would wrap instead). ``dialects`` writes it as the call
    ``__prunekit_arrow_bigint(x)`` for a DECIMAL of more than 15 integer digits.

    >>> import pyarrow as pa
    >>> from prunekit.expr.binding.bind import bind
    >>> from prunekit.expr.syntax.sql import parse
    >>> bind(parse("__prunekit_arrow_bigint(x) >= 2"),
    ...      pa.schema([("x", pa.decimal128(38, 10))])).arg.args[0].args[1]
    BCompare(col=x, op='ge', value=20000000000)
    """
    col = x.col
    if x.negated or col.convert or not isinstance(col, b.BColumn) or not pa.types.is_decimal(
            col.type):
        return None
    lo_t, hi_t = int_range(pa.int64())
    fails = b.BOr((column_vs_literal(n.Op.GE, col, L.coerce(decimal.Decimal(hi_t + 1), col.type)),
                   column_vs_literal(n.Op.LE, col, L.coerce(decimal.Decimal(lo_t - 1), col.type))))
    monotone = _decimal_to_integer(x, f"CAST({col.label()} AS BIGINT)", pa.int64(),
                                   lambda m: m < 1)
    return dataclasses.replace(monotone, fails=fails)


def _bind_arrow_bigint(kids: tuple) -> object | None:
    return arrow_to_bigint(kids[0]) if len(kids) == 1 and isinstance(kids[0], ColOp) else None


def arrow_to_decimal(x: ColOp, precision: int, scale: int) -> Monotone | None:
    """DataFusion's cast of a DOUBLE or FLOAT column (or of an integer column's DOUBLE) to
    DECIMAL(precision, scale), as Arrow computes it: the DOUBLE times 10**scale (a DOUBLE
    product), rounded half away from zero; NaN, the infinities and values beyond the
    precision fail the query (``fails``: unknown there). Non-decreasing, so ``f(x) >= m`` is
    ``x >= t``, t the least DOUBLE whose cast is at least m (bisection over the DOUBLEs in
    order). ``dialects`` writes the column side of a DOUBLE met by a DECIMAL there as the
    call ``__prunekit_arrow_decimal(x, p, s)``.

    >>> import pyarrow as pa
    >>> from prunekit.expr.binding.bind import bind
    >>> from prunekit.expr.syntax.sql import parse
    >>> bind(parse("__prunekit_arrow_decimal(g, 31, 15) >= 0"),
    ...      pa.schema([("g", pa.float64())])).arg.args[0].args[1]  # -5E-16 rounds to -1
    BCompare(col=g, op='ge', value=-4.999999999999999e-16)
    """
    col = x.col
    widened = col.convert and col.convert[0] == "tofloat"  # an integer column's DOUBLE
    if x.negated or (col.convert and not widened) or not isinstance(col, b.BColumn) or \
            not 0 <= scale <= min(precision, 22) or not 1 <= precision <= 38:
        return None
    if pa.types.is_decimal(col.type) and not col.convert:
        return _decimal_to_arrow_decimal(x, precision, scale)
    if not pa.types.is_floating(col.type):
        return None
    factor = float(10**scale)

    def least(units: int) -> float | None:
        """The least DOUBLE whose cast is at least ``units`` (of 10**-scale), None if none:
        the product rounds half away from zero to units or more from units - 1/2 up (for a
        positive units; beyond -1/2 otherwise)."""
        edge = Fraction(2 * units - 1, 2)
        return _least_double((lambda v: v * factor >= edge) if units >= 1 else
                             (lambda v: v * factor > edge))

    limit = 10**precision
    lowest, above = least(-(limit - 1)), least(limit)  # the cast holds [lowest, above)
    highest = math.inf if above is None else math.nextafter(above, -math.inf)
    fails = b.BNot(b.BInRange(col, -math.inf if lowest is None else lowest, highest))

    def ge(units: int) -> object:
        t = least(units)
        if t is None:
            return b.BNonNull(col, False)
        return column_vs_literal(n.Op.GE, col, L.coerce(t, col.type))

    return Monotone(f"CAST({col.label()} AS DECIMAL({precision}, {scale}))", x,
                    pa.decimal128(precision, scale), *int_valued(ge), fails=fails)


def _decimal_to_arrow_decimal(x: ColOp, precision: int, scale: int) -> Monotone:
    """``__prunekit_arrow_decimal(d, P, S)`` of a DECIMAL column: Arrow's cast to DECIMAL(P, S)
    of its DOUBLE (``arrow_double``), as DataFusion compares ``CAST(d AS DOUBLE)`` with a
    DECIMAL. Both casts are non-decreasing, so ``f(d) >= m`` is ``d >= t``, t the least value
    of d's grid whose cast is at least m (bisection over d's unscaled integers)."""
    col = x.col
    s, largest = col.type.scale, 10**col.type.precision - 1
    factor = float(10**scale)

    def least(units: int) -> int | None:
        """The least unscaled d whose cast is at least ``units`` (of 10**-scale), or None."""
        edge = Fraction(2 * units - 1, 2)

        def holds(u: int) -> bool:
            product = arrow_double(u, s) * factor
            return product >= edge if units >= 1 else product > edge

        if holds(-largest):
            return -largest
        if not holds(largest):
            return None
        lo, hi = -largest, largest
        while hi - lo > 1:
            mid = (lo + hi) // 2
            if holds(mid):
                hi = mid
            else:
                lo = mid
        return hi

    def at(u: int) -> L.Coerced:
        return L.coerce(decimal.Decimal(u).scaleb(-s, decimal.Context(prec=80)), col.type)

    limit = 10**precision
    lowest, above = least(-(limit - 1)), least(limit)  # the cast holds [lowest, above)
    inside = [column_vs_literal(n.Op.GE, col, at(lowest))] if lowest is not None else []
    inside += [b.BNot(column_vs_literal(n.Op.GE, col, at(above)))] if above is not None else []
    fails = b.BNot(b.BAnd(tuple(inside))) if inside else None

    def ge(units: int) -> object:
        t = least(units)
        return b.BNonNull(col, False) if t is None else column_vs_literal(n.Op.GE, col, at(t))

    return Monotone(f"CAST(CAST({col.label()} AS DOUBLE) AS DECIMAL({precision}, {scale}))", x,
                    pa.decimal128(precision, scale), *int_valued(ge), fails=fails)


def _least_double(holds) -> float | None:
    """The least DOUBLE (-inf and inf included, NaN not) for which the non-decreasing
    ``holds`` is true, or None: bisection over the DOUBLEs in their order."""
    lo, hi = _order(-math.inf), _order(math.inf)
    if holds(-math.inf):
        return -math.inf
    if not holds(math.inf):
        return None
    while hi - lo > 1:  # holds(lo) is false, holds(hi) true
        mid = (lo + hi) // 2
        if holds(_from_order(mid)):
            hi = mid
        else:
            lo = mid
    return _from_order(hi)


def _order(v: float) -> int:
    """A DOUBLE's place among the DOUBLEs (-0.0 just below 0.0)."""
    bits = struct.unpack("<q", struct.pack("<d", v))[0]
    return bits if bits >= 0 else -(bits & (2**63 - 1)) - 1


def _from_order(k: int) -> float:
    bits = k if k >= 0 else (-(k + 1)) | -(2**63)
    return struct.unpack("<d", struct.pack("<q", bits))[0]


def _bind_arrow_decimal(kids: tuple) -> object | None:
    if len(kids) != 3 or not isinstance(kids[0], ColOp) or not all(
            isinstance(k, LitOp) and type(k.value) is int for k in kids[1:]):
        return None
    return arrow_to_decimal(kids[0], kids[1].value, kids[2].value)


def integral_quotient(x: object, divisor: object) -> Monotone | None:
    """``x div k`` of a signed integer column and a positive whole number: Spark's BIGINT
    quotient truncated toward zero, non-decreasing in x, so ``x div k >= m`` is ``x >= m * k``
    for m >= 1 and ``x > (m - 1) * k`` otherwise (the quotient of -5 by 2 is -2). None where
    not such a quotient.

    >>> import pyarrow as pa
    >>> from prunekit.expr.binding.bind import bind
    >>> from prunekit.expr.syntax.sql import parse
    >>> bind(parse("x div 3 >= -1"), pa.schema([("x", pa.int32())])).arg
    BCompare(col=x, op='ge', value=-5)
    """
    if not (isinstance(x, ColOp) and isinstance(divisor, LitOp)):
        return None
    col, k = x.col, divisor.value
    if x.negated or col.convert or not isinstance(col, b.BColumn) or col.domain != "int" or \
            not pa.types.is_signed_integer(col.type) or isinstance(k, bool) or \
            not isinstance(k, int) or k <= 0:
        return None

    def ge(m: int) -> object:
        least = m * k if m >= 1 else (m - 1) * k + 1
        return column_vs_literal(n.Op.GE, col, L.coerce(least, col.type))

    return Monotone(f"{col.label()} div {k}", x, pa.int64(), *int_valued(ge))


def _least_rounding_to(m: float, scale: int) -> int:
    """The least k whose k / 10**scale rounds to a DOUBLE >= m (m finite, within 1e39).

    >>> _least_rounding_to(0.1, 1), _least_rounding_to(0.1, 20)
    (1, 9999999999999999862)
    """
    unit = 10**scale
    hi = math.ceil(Fraction(m) * unit)  # k / unit >= m: rounds to m or above
    lo = math.floor(Fraction(math.nextafter(m, -math.inf)) * unit)  # rounds below m
    while hi - lo > 1:  # float(lo / unit) < m <= float(hi / unit)
        mid = (lo + hi) // 2
        if float(Fraction(mid, unit)) >= m:
            hi = mid
        else:
            lo = mid
    return hi


def _float_to_integer(x: ColOp, label: str, to: pa.DataType, at_least) -> Monotone:
    """A rounding of a DOUBLE or FLOAT column to the integer type ``to`` (floor, ceil, a cast
    toward zero), given ``at_least(m)``: the least double whose result is >= m. Beyond the
    type the result saturates and NaN is 0 (Spark outside ANSI mode; ANSI fails instead)."""
    col = x.col
    lo_t, hi_t = int_range(to)

    def between(first: int, last: int) -> object:
        """first <= f(x) <= last. The numbers x with that are one interval [lo, hi] (the ends
        saturate), which InRange tests for numbers only (NaN is above inf); NaN rows are 0.
        One leaf each, so a NaN the statistics cannot rule out costs no pruning."""
        lo = -math.inf if first <= lo_t else at_least(first)
        hi = math.inf if last >= hi_t else math.nextafter(at_least(last + 1), -math.inf)
        parts = ([b.BInRange(col, lo, hi)] if lo <= hi and first <= last else []) + (
            [b.BNanEq(col)] if first <= 0 <= last else [])
        return b.BOr(tuple(parts)) if len(parts) > 1 else parts[0] if parts else \
            b.BNonNull(col, False)

    def gt(m: int) -> object:
        return between(m + 1, hi_t) if m < hi_t else b.BNonNull(col, False)

    return Monotone(label, x, to, lambda m: between(m, hi_t), gt, between=between)


def _decimal_to_integer(x: ColOp, label: str, to: pa.DataType, above_less_one) -> Monotone:
    """A rounding of a DECIMAL column to whole numbers of type ``to``: f(x) >= m is x > m - 1
    where ``above_less_one(m)`` (ceil; a cast toward zero for m < 1), else x >= m."""
    col = x.col

    def ge(m: int) -> object:
        strict = above_less_one(m)
        return column_vs_literal(n.Op.GT if strict else n.Op.GE, col,
                                 L.coerce(decimal.Decimal(m - 1 if strict else m), col.type))

    return Monotone(label, x, to, *int_valued(ge))


def _ceil_threshold(m: int) -> float:
    """The smallest double above m - 1: ``ceil(x) >= m`` iff ``x > m - 1``."""
    t = _double_at_least(m - 1)
    return math.nextafter(t, math.inf) if Fraction(t) == m - 1 else t


def _bind(name: str):
    def bind(kids: tuple) -> object | None:
        return _rounding(name, kids[0]) if len(kids) == 1 and isinstance(kids[0], ColOp) else None

    return bind


register(Rule("floor", _bind("floor"), "floor(x) = 3", (("x", pa.float64()),)),
         Rule("ceil", _bind("ceil"), "ceil(x) = 3", (("x", pa.float64()),)),
         # not a Spark function: the name dialects give DataFusion's CAST(x AS DOUBLE) of a
         # DECIMAL of more than 15 digits (see arrow_to_double)
         Rule("__prunekit_arrow_double", _bind_arrow_double,
              "__prunekit_arrow_double(x) > 0.1", (("x", pa.decimal128(38, 10)),)),
         # its cast of a wide DECIMAL to BIGINT (see arrow_to_bigint)
         Rule("__prunekit_arrow_bigint", _bind_arrow_bigint,
              "__prunekit_arrow_bigint(x) > 0.5", (("x", pa.decimal128(38, 10)),)),
         # and its cast of a DOUBLE column to DECIMAL (see arrow_to_decimal)
         Rule("__prunekit_arrow_decimal", _bind_arrow_decimal,
              "__prunekit_arrow_decimal(x, 31, 15) > 0.5", (("x", pa.float64()),)))
