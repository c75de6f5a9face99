"""``x / c`` in DOUBLE, compared with a constant through its exact preimage.

Spark's ``/`` of an integer or floating operand and a non-decimal constant casts both to DOUBLE
and divides (``x / 2`` is DOUBLE even for an INT ``x``; ``x / 2.5`` with INT ``x`` is DECIMAL
and not handled here; a zero divisor is NULL in legacy mode and an error under ANSI, and is left
unused). For a finite non-zero ``c`` the map ``f(x) = fl(double(x) / c)`` is monotone:
increasing for ``c > 0``, decreasing for ``c < 0``, since rounding to nearest is monotone in the
exact quotient. So ``f(x) > k`` holds on a half-line of ``x``, whose end we find exactly by
binary search over the column's own values (integers of its type, or doubles or floats in
their bit order): ``x / 3 > 5`` on a BIGINT column binds as ``x >= 16``, never rounded the
wrong way because no bound is rounded at all. NaN is the one value a decreasing map does not
mirror (``NaN / -2`` is NaN, still the greatest), so NaN rows are given their own truth.

>>> import pyarrow as pa
>>> from prunekit.expr.binding.bind import bind
>>> from prunekit.expr.syntax.sql import parse
>>> bind(parse("x / 3 > 5"), pa.schema([("x", pa.int64())]))
BCompare(col=x, op='ge', value=16)
>>> bind(parse("x / -2.0E0 <= 1"), pa.schema([("x", pa.int32())]))
BCompare(col=x, op='ge', value=-2)

DECIMAL division (a DECIMAL operand, or an integer over a decimal constant) is the same over the
unscaled values, with Spark's HALF_UP rounding to its result scale: ``p / 3`` on DECIMAL(15, 2)
is DECIMAL(19, 6), and ``p / 3 > 1`` holds from p = 3.01 (unscaled 301) on.

>>> bind(parse("p / 3 > 1"), pa.schema([("p", pa.decimal128(15, 2))]))
BCompare(col=p, op='ge', value=301)
"""

from __future__ import annotations

import decimal
import math
import struct
from collections.abc import Callable
from dataclasses import dataclass
from fractions import Fraction

import pyarrow as pa

from prunekit.expr.binding import bound as b
from prunekit.expr.binding.operands import ColOp, LitOp
from prunekit.expr.domains import int_range
from prunekit.expr.spark_types import literals as L

_F64 = pa.float64()


@dataclass(frozen=True)
class Quotient:
    """``inner / divisor`` in DOUBLE, or in DECIMAL when ``result`` is a decimal type: an
    operand only a comparison with a constant can use."""

    inner: object  # a BColumn (signed integer, float, double or decimal), a BSum or a BFloatOp
    divisor: float | Fraction
    keys: str  # the inner values: "int" (its type's integers, unscaled), "f64" or "f32"
    result: pa.DataType | None = None  # DECIMAL(p, s) division; None: DOUBLE

    boolean = False  # for bind's fallbacks: a number, not a predicate

    @property
    def why(self) -> str:
        return f"{self.label()} is used only against a constant"

    def label(self) -> str:
        d = self.divisor
        return f"{self.inner.label()} / {d if isinstance(d, float) else _decimal_text(d)}"

    @property
    def increasing(self) -> bool:
        return self.divisor > 0

    def value(self, x: int | float) -> float | int:
        """Spark's value of the quotient for an inner value ``x``: in DOUBLE (Python floats
        are IEEE doubles; ``float(int)`` rounds to nearest like Java's ``(double)`` cast), or
        for DECIMAL the unscaled result: Spark's ``Decimal./`` divides to 38 places, HALF_UP,
        then rounds HALF_UP to the result's scale (both monotone)."""
        if self.result is None:
            return float(x) / self.divisor
        scale = self.inner.type.scale if pa.types.is_decimal(self.inner.type) else 0
        q = Fraction(x, 10**scale) / self.divisor
        return _half_up(Fraction(_half_up(q * 10**38), 10 ** (38 - self.result.scale)))


def _half_up(x: Fraction) -> int:
    r = math.floor(abs(x) + Fraction(1, 2))
    return r if x >= 0 else -r


def _decimal_text(d: Fraction) -> str:
    return str(decimal.Decimal(d.numerator) / decimal.Decimal(d.denominator))


def divide(left: object, right: object) -> Quotient | None:
    """``left / right`` as a Quotient when Spark's result is DOUBLE or an exact DECIMAL type
    and the divisor is a usable constant; None otherwise (then the division is an unknown
    value).

    >>> x = ColOp(b.BColumn("x", pa.int32(), pa.int32(), "int"))
    >>> divide(x, LitOp(4)).result, divide(x, LitOp(decimal.Decimal("2.5"))).result, divide(
    ...     x, LitOp(0))
    (None, Decimal128Type(decimal128(17, 6)), None)
    """
    if not isinstance(left, ColOp) or left.negated or not isinstance(right, LitOp):
        return None
    c, t, inner = right.value, right.type, left.col
    if isinstance(c, bool) or not isinstance(c, (int, float, decimal.Decimal)):
        return None
    if t is not None and not (pa.types.is_integer(t) or pa.types.is_floating(t) or (
            pa.types.is_decimal(t) and not isinstance(c, int))):
        return None
    keys = _keys_of(inner)
    if keys is None:
        return None
    double_literal = isinstance(c, float) or t is not None and pa.types.is_floating(t)
    if keys == "int" and not double_literal and (
            pa.types.is_decimal(inner.type) or not (isinstance(c, int) and (
                t is None or pa.types.is_integer(t)))):
        return _decimal_division(inner, right)  # DECIMAL / c, INT / 2.5: DECIMAL in Spark
    if pa.types.is_decimal(inner.type):
        return None  # DECIMAL / DOUBLE is DOUBLE of the decimal: not modelled
    try:
        divisor = float(c)
    except OverflowError:
        return None
    if divisor == 0 or not math.isfinite(divisor):
        return None
    return Quotient(inner, divisor, keys)


def _decimal_division(inner: object, lit: LitOp) -> Quotient | None:
    """``inner / c`` in Spark's DECIMAL result type: scale max(6, s1 + p2 + 1), precision
    p1 - s1 + s2 + scale (a result that would need more than 38 digits is not used: Spark then
    cuts the scale). Its integer digits hold every quotient, so it never overflows."""
    from prunekit.expr.binding.arith import as_decimal, literal_decimal

    lit_t = literal_decimal(lit)
    t1 = as_decimal(inner.type)
    if lit_t is None or t1 is None or lit_t[1] == 0 or not isinstance(inner, b.BColumn) or (
            pa.types.is_decimal(inner.type) and inner.type.precision > 18):
        return None
    t2, unscaled = lit_t
    s = max(6, t1.scale + t2.precision + 1)
    p = t1.precision - t1.scale + t2.scale + s
    if p > 38:
        return None
    return Quotient(inner, Fraction(unscaled, 10**t2.scale), "int", pa.decimal128(p, s))


def _keys_of(col: object) -> str | None:
    if isinstance(col, b.BFloatOp):
        return "f64"
    if isinstance(col, b.BSum):
        return "int"
    if not isinstance(col, b.BColumn):
        return None
    if col.domain == "float":
        return "f64" if col.type == _F64 else "f32"
    if col.domain == "int" and (pa.types.is_signed_integer(col.type) or pa.types.is_decimal(
            col.type)) and (not col.convert or col.convert[0] == "affine"):
        return "int"
    return None


# ---- the inner values in order, as integer keys ----------------------------------------------
def _float_key(x: float, fmt: str) -> int:
    bits, = struct.unpack("<q" if fmt == "d" else "<i", struct.pack("<" + fmt, x))
    return bits if bits >= 0 else -(bits & (2 ** (63 if fmt == "d" else 31) - 1)) - 1


def _key_float(k: int, fmt: str) -> float:
    sign = 2 ** (63 if fmt == "d" else 31)
    bits = k if k >= 0 else (-(k + 1)) | sign
    if bits >= sign:
        bits -= 2 * sign  # to the signed integer struct expects
    value, = struct.unpack("<" + fmt, struct.pack("<q" if fmt == "d" else "<i", bits))
    return value


def _domain(q: Quotient) -> tuple[int, int, Callable[[int], int | float]]:
    """The search range of keys and the inner value of a key (±inf included, NaN excluded)."""
    if q.keys == "int":
        lo, hi = int_range(q.inner.type)
        return lo, hi, lambda k: k
    fmt = "d" if q.keys == "f64" else "f"
    return _float_key(-math.inf, fmt), _float_key(math.inf, fmt), lambda k: _key_float(k, fmt)


def _first(pred: Callable[[object], bool], q: Quotient) -> object | None:
    """The least inner value where ``pred`` (False, then True in value order) holds."""
    lo, hi, at = _domain(q)
    if not pred(at(hi)):
        return None
    while lo < hi:
        mid = (lo + hi) // 2
        if pred(at(mid)):
            hi = mid
        else:
            lo = mid + 1
    return at(lo)


# ---- comparisons -----------------------------------------------------------------------------
_UP = {"gt": lambda y, v: y > v, "ge": lambda y, v: y >= v}  # closed upwards in y
_DOWN = {"lt": lambda y, v: y < v, "le": lambda y, v: y <= v}


def _half(q: Quotient, op: str, v: float) -> tuple[str, object | None]:
    """``q op v`` as ``("ge", t)`` (inner >= t) or ``("lt", t)`` (inner < t) over the numeric
    inner values; ``t`` None: the empty set for "ge", every value for "lt"."""
    test = _UP.get(op) or _DOWN[op]
    increasing = q.increasing
    if (op in _UP) == increasing:  # the inner values where it holds are closed upwards
        return "ge", _first(lambda x: test(q.value(x), v), q)
    return "lt", _first(lambda x: not test(q.value(x), v), q)


def _numbers(q: Quotient, halves: list[tuple[str, object | None]]) -> object:
    """The leaf for the intersection of half-lines of the inner values (NaN: see ``_nan``)."""
    col, lo, hi = q.inner, None, None  # inner >= lo and inner < hi
    for kind, t in halves:
        if kind == "ge":
            if t is None:
                return b.BNonNull(col, False)
            lo = t if lo is None else max(lo, t)
        elif t is not None:
            hi = t if hi is None else min(hi, t)
    if lo is None and hi is None:
        return b.BNonNull(col, True)
    if hi is None:
        return b.BCompare(col, "ge", lo)
    if lo is None:
        return b.BCompare(col, "lt", hi)
    if lo >= hi:
        return b.BNonNull(col, False)
    last = hi - 1 if q.keys == "int" else _before(hi, q)
    return b.BInRange(col, lo, last)


def _before(x: float, q: Quotient) -> float:
    fmt = "d" if q.keys == "f64" else "f"
    return _key_float(_float_key(x, fmt) - 1, fmt)


def _nan_truth(leaf: object) -> bool:
    """How a leaf on a float inner value treats a NaN row (NaN is above every number)."""
    if isinstance(leaf, b.BNonNull):
        return leaf.truth
    return isinstance(leaf, b.BCompare) and leaf.op in ("gt", "ge")


def _with_nan(q: Quotient, leaf: object, truth: bool) -> object:
    """``leaf`` made to give ``truth`` on NaN rows (a NaN inner value gives a NaN quotient)."""
    if q.keys == "int" or _nan_truth(leaf) == truth:
        return leaf
    nan = b.BNanEq(q.inner)
    return b.BOr((leaf, nan)) if truth else b.BAnd((leaf, b.BNot(nan)))


def compare_quotient(op: str, q: Quotient, lit: LitOp, placed: Callable) -> object:
    """``q op lit`` (op one of lt, le, gt, ge, eq) as leaves on the inner value. ``placed``
    is the column-vs-literal rule (``comparisons.column_vs_literal``, which imports this
    module), giving the comparison on a column ``y`` of the result type (Spark casts the
    literal so); its leaves on ``y`` are then mapped onto the inner value.

    >>> from prunekit.expr.syntax import nodes as n
    >>> from prunekit.expr.binding.comparisons import column_vs_literal
    >>> q = divide(ColOp(b.BColumn("f", pa.float64(), pa.float64(), "float")), LitOp(-2))
    >>> compare_quotient(n.Op.GT, q, LitOp(1), column_vs_literal)   # NaN / -2 is NaN: TRUE
    BOr(args=(BCompare(col=f, op='lt', value=-2.0), BNanEq(col=f)))
    """
    t = q.result or _F64
    y = b.BColumn("", t, t, "int" if q.result else "float")
    return _map(q, placed(op, y, L.coerce(lit.value, t)))


def _map(q: Quotient, leaf: object) -> object:
    if isinstance(leaf, b.BNot):
        return b.BNot(_map(q, leaf.arg))
    if isinstance(leaf, b.BNanEq):  # y = NaN exactly where the inner value is NaN
        return b.BNanEq(q.inner) if q.keys != "int" else b.BNonNull(q.inner, False)
    if isinstance(leaf, b.BNonNull):
        return _with_nan(q, b.BNonNull(q.inner, leaf.truth), leaf.truth)
    if isinstance(leaf, b.BCompare):
        return _with_nan(q, _numbers(q, [_half(q, leaf.op, leaf.value)]), leaf.op in _UP)
    if isinstance(leaf, b.BInRange):
        halves = [_half(q, "ge", leaf.first), _half(q, "le", leaf.last)]
        return _with_nan(q, _numbers(q, halves), False)
    raise TypeError(f"unexpected leaf {type(leaf).__name__}")
