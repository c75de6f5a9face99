"""Arithmetic on the column side: the column seen through the arithmetic.

``x + c``, ``x - c``, ``c - x``, ``x * c`` on signed integers become an affine conversion of the
column (``BColumn.convert = ("affine", steps)``); ``a + b`` of two integer columns a ``BSum``;
``+ - *`` in DOUBLE a ``BFloatOp``. ``rewrite.py`` moves the statistics through them.
"""

from __future__ import annotations

import decimal

import pyarrow as pa

from prunekit.expr.binding import bound as b
from prunekit.expr.binding.operands import ColOp, LitOp
from prunekit.expr.domains import EXACT, int_range
from prunekit.expr.spark_types import literals as L


def _int_literal_type(lit: LitOp) -> pa.DataType | None:
    """Spark's type of an integer literal: INT when it fits, else BIGINT (wider: DECIMAL)."""
    if isinstance(lit.value, bool) or not isinstance(lit.value, int):
        return None
    if lit.type is not None:
        return lit.type if pa.types.is_signed_integer(lit.type) else None
    for t in (pa.int32(), pa.int64()):
        lo, hi = int_range(t)
        if lo <= lit.value <= hi:
            return t
    return None


def _affine_base(x: ColOp) -> b.BColumn | None:
    """The column as an integer expression arithmetic can extend, or None."""
    col = x.col
    if not isinstance(col, b.BColumn):
        return None  # (a + b) * 2: arithmetic on a sum is left to the general rule
    steps = col.convert[1] if col.convert and col.convert[0] == "affine" else ()
    # Day counts of a DATE column are integers too once a step made them INT (datediff).
    counts = pa.types.is_signed_integer(col.stats_type) or col.stats_type == pa.date32()
    if (col.convert and not steps) or col.domain != "int" or not pa.types.is_signed_integer(
            col.type) or not counts:
        return None
    if x.negated:
        return extend(col, steps, col.type, (("mul", -1),))
    return col


def extend(col: b.BColumn, steps: tuple, t: pa.DataType, more: tuple) -> b.BColumn:
    tmin, tmax = type_range(t)
    return b.BColumn(col.name, col.stats_type, t, "int",
                     ("affine", steps + tuple(s + (tmin, tmax) for s in more)))


def arith(op: str, left: object, right: object) -> object | None:
    """``x + c``, ``x - c``, ``c - x``, ``x * c`` (also nested) on a signed integer column, as
    the column seen through that map (``BColumn.convert = ("affine", steps)``): the kernel
    moves the bounds step by step, and where a step could overflow the result type (Spark's
    legacy mode wraps, ANSI mode fails) both bounds become unknown. None: not such a case."""
    for rule in (_float_arith, _int_arith, _decimal_arith):
        got = rule(op, left, right)
        if got is not None:
            return got
    return None


def _int_arith(op: str, left: object, right: object) -> object | None:
    if isinstance(left, ColOp) and isinstance(right, ColOp):
        return _column_sum(op, left, right)
    if isinstance(left, LitOp) and isinstance(right, ColOp) and op in ("+", "*"):
        left, right = right, left
    if isinstance(left, LitOp) and isinstance(right, ColOp) and op == "-":
        base = _affine_base(right)
        c_type = _int_literal_type(left)
        if base is None or c_type is None:
            return None
        t = _wider(base.type, c_type)
        return ColOp(extend(base, steps_of(base), t, (("mul", -1), ("add", left.value))))
    if not (isinstance(left, ColOp) and isinstance(right, LitOp)):
        return None
    base, c_type = _affine_base(left), _int_literal_type(right)
    if base is None or c_type is None:
        return None
    c = right.value
    t = _wider(base.type, c_type)
    tmin, tmax = int_range(pa.int64())
    if op == "*" and c == 0:
        return None  # every value becomes 0: left to the general rule
    if op == "-" and not tmin <= -c <= tmax:
        return None
    step = ("mul", c) if op == "*" else ("add", c if op == "+" else -c)
    return ColOp(extend(base, steps_of(base), t, (step,)))


def _float_side(x: object) -> object | None:
    """An operand of DOUBLE arithmetic as a BFloatOp side: a DOUBLE column or DOUBLE
    arithmetic; a FLOAT column (widened exactly); a signed integer column seen as DOUBLE
    (``tofloat``: rounding to nearest is monotone, so its bounds stay bounds); a numeric
    literal as its DOUBLE value (Spark casts it so). None otherwise."""
    if isinstance(x, ColOp) and not x.negated:
        col = x.col
        if isinstance(col, b.BFloatOp) or (isinstance(col, b.BColumn) and not col.convert and
                                           pa.types.is_floating(col.type)):
            return col
        if isinstance(col, b.BColumn) and not col.convert and col.domain == "int" and \
                pa.types.is_signed_integer(col.type):
            return b.BColumn(col.name, col.stats_type, pa.float64(), "float", ("tofloat",))
        return None
    if isinstance(x, LitOp) and x.value is not None and not isinstance(x.value, bool) and \
            isinstance(x.value, (int, float, decimal.Decimal)) and (
            x.type is None or pa.types.is_floating(x.type) or pa.types.is_integer(x.type)
            or pa.types.is_decimal(x.type)):
        return float(x.value)
    return None


def _spark_kind(x: object) -> str | None:
    """Which operands make Spark's arithmetic DOUBLE: "double" (a DOUBLE column, DOUBLE
    arithmetic, a DOUBLE literal), "float" (a FLOAT column), "decimal" (a decimal literal)."""
    if isinstance(x, ColOp):
        col = x.col
        if col.type == pa.float64():
            return "double"
        return "float" if col.type == pa.float32() else None
    if isinstance(x, LitOp):
        t = x.type
        if isinstance(x.value, float) and (t is None or t == pa.float64()) or t == pa.float64():
            return "double"
        if isinstance(x.value, decimal.Decimal) and t is None or t is not None and \
                pa.types.is_decimal(t):
            return "decimal"
    return None


def _float_arith(op: str, left: object, right: object) -> object | None:
    """``a + b``, ``a - b``, ``a * b`` where Spark computes in DOUBLE (``bound.BFloatOp``; the
    price * (1 - discount) of an alias): a DOUBLE takes part, or a FLOAT with a decimal
    literal; the other side may be a DOUBLE, FLOAT or integer column or a number. Left out:
    FLOAT with FLOAT (computed in FLOAT) and FLOAT with an integer literal (DOUBLE under ANSI,
    FLOAT in legacy mode). A column must be a float one: its name carries the constants."""
    if op not in ("+", "-", "*"):
        return None
    kinds = {_spark_kind(left), _spark_kind(right)}
    if kinds == {"float"} and all(isinstance(x, ColOp) for x in (left, right)):
        return _float32_arith(op, left, right)
    if "double" not in kinds and kinds != {"float", "decimal"}:
        return None
    a, c = _float_side(left), _float_side(right)
    if a is None or c is None or (isinstance(a, float) and isinstance(c, float)):
        return None
    op_ = b.BFloatOp(op, a, c)
    if not any(isinstance(s, b.BFloatOp) or isinstance(s, b.BColumn) and not s.convert
               for s in (a, c)):
        return None  # an integer column with a DOUBLE literal: its name would carry floats
    return ColOp(op_)


def _float32_arith(op: str, left: ColOp, right: ColOp) -> object | None:
    """FLOAT op FLOAT, computed by Spark in FLOAT (both modes): a BFloatOp of type FLOAT,
    whose bounds rewrite rounds outwards to FLOAT (``Rewriter._to_float32_outwards``)."""
    a, c = _float_side(left), _float_side(right)
    if a is None or c is None:
        return None
    return ColOp(b.BFloatOp(op, a, c, pa.float32()))


def _column_sum(op: str, left: ColOp, right: ColOp) -> object | None:
    """``a + b``, ``a - b`` (``bound.BSum``) or ``a * b`` (``bound.BProd``: the extremes of a
    product lie at the corners of the two ranges, whatever their signs) of two plain signed
    integer columns, in Spark's result type: the wider of the two, where a result beyond it
    wraps (legacy mode) or fails (ANSI), so bounds beyond it are unknown (``rewrite``)."""
    cols = (left.col, right.col)
    if op not in ("+", "-", "*") or left.negated or right.negated or not all(
            isinstance(c, b.BColumn) and not c.convert and c.domain == "int" and
            pa.types.is_signed_integer(c.type) for c in cols):
        return None
    t = _wider(left.col.type, right.col.type)
    if op == "*":
        return ColOp(b.BProd(left.col, right.col, t))
    return ColOp(b.BSum(left.col, right.col, 1 if op == "+" else -1, t))


def steps_of(col: b.BColumn) -> tuple:
    return col.convert[1] if col.convert and col.convert[0] == "affine" else ()


def _wider(s: pa.DataType, t: pa.DataType) -> pa.DataType:
    return s if s.bit_width >= t.bit_width else t


# ---- decimals ----------------------------------------------------------------------------
LIMIT = 2**62  # known bounds of a decimal expression lie within +-LIMIT (rewrite checks it)


def type_range(t: pa.DataType) -> tuple[int, int]:
    """The range a step's result must stay in: the type's, and for a decimal (whose unscaled
    values may need up to 127 bits) also within +-2**62, so that the kernel's int64 holds it.
    Beyond that a bound is unknown, as where Spark's result would overflow.

    >>> type_range(pa.int8()), type_range(pa.decimal128(3, 1)), type_range(pa.decimal128(38, 2))
    ((-128, 127), (-999, 999), (-4611686018427387904, 4611686018427387904))
    """
    lo, hi = int_range(t)
    if pa.types.is_decimal(t):
        return max(lo, -LIMIT), min(hi, LIMIT)
    return lo, hi


_DIGITS = {8: 3, 16: 5, 32: 10, 64: 20}  # Spark's DecimalType.forType of TINYINT .. BIGINT


def _adjusted(p: int, s: int) -> pa.DataType | None:
    """Spark's result type DECIMAL(p, s), or None where precision beyond 38 makes Spark cut
    the scale (the result is then rounded, which these exact maps do not model)."""
    if p <= 38:
        return pa.decimal128(p, s)
    scale = max(38 - (p - s), min(s, 6))
    return pa.decimal128(38, s) if scale == s else None


def decimal_result(op: str, t1: pa.DataType, t2: pa.DataType) -> pa.DataType | None:
    """Spark's DECIMAL type of ``t1 op t2`` for + - * (DecimalPrecision), if exact.

    >>> decimal_result("*", pa.decimal128(15, 2), pa.decimal128(16, 2))
    Decimal128Type(decimal128(32, 4))
    """
    p1, s1, p2, s2 = t1.precision, t1.scale, t2.precision, t2.scale
    if op == "*":
        return _adjusted(p1 + p2 + 1, s1 + s2)
    s = max(s1, s2)
    return _adjusted(max(p1 - s1, p2 - s2) + s + 1, s)


def as_decimal(t: pa.DataType) -> pa.DataType | None:
    if pa.types.is_decimal(t):
        return t
    if pa.types.is_signed_integer(t):
        return pa.decimal128(_DIGITS[t.bit_width], 0)
    return None


def literal_decimal(lit: LitOp) -> tuple[pa.DataType, int] | None:
    """Spark's DECIMAL type of a literal next to a decimal, and its unscaled value: an integer
    takes the fewest digits that hold it (``spark.sql.legacy.literal.pickMinimumPrecision``,
    default true), ``2.50`` is DECIMAL(3, 2)."""
    v, t = lit.value, lit.type
    if isinstance(v, bool) or not isinstance(v, (int, decimal.Decimal)):
        return None
    if t is not None:
        t = as_decimal(t)
        if t is None:
            return None
        d = decimal.Decimal(v).scaleb(t.scale, context=EXACT)
        return (t, int(d)) if d == d.to_integral_value() else None
    if isinstance(v, int):
        return pa.decimal128(len(str(abs(v))), 0), v
    if not v.is_finite():
        return None
    _, digits, exp = v.as_tuple()
    scale = max(-exp, 0)
    precision = max(len(digits) + max(exp, 0), scale, 1)
    if precision > 38:
        return None
    return pa.decimal128(precision, scale), int(v.scaleb(scale, context=EXACT))


def _decimal_base(x: ColOp) -> b.BColumn | None:
    """A decimal column, or a decimal or integer one through affine steps, that constant
    arithmetic can extend (its statistics are unscaled int64 values)."""
    col = x.col
    if not isinstance(col, b.BColumn) or col.domain != "int" or (
            col.convert and col.convert[0] != "affine") or as_decimal(col.type) is None:
        return None
    if not (pa.types.is_signed_integer(col.stats_type) or pa.types.is_decimal(
            col.stats_type) and col.stats_type.precision <= 18):
        return None
    if x.negated:  # -x: exact for a decimal, and an integer step checks its own overflow
        return extend(col, steps_of(col), col.type, (("mul", -1),))
    return col


def _decimal_arith(op: str, left: object, right: object) -> object | None:
    """``+ - *`` where a DECIMAL takes part, in Spark's result type (``decimal_result``),
    on unscaled values: a constant is an affine step (rescale by 10**k, add, multiply), two
    operands a ``BSum`` or ``BProd``. A result beyond its precision is NULL in legacy mode
    (ANSI fails): where that may happen, the bounds are unknown and NULL is possible."""
    if op not in ("+", "-", "*"):
        return None
    if isinstance(left, ColOp) and isinstance(right, ColOp):
        return _decimal_pair(op, left, right)
    flipped = isinstance(left, LitOp)
    x, lit = (right, left) if flipped else (left, right)
    if not (isinstance(x, ColOp) and isinstance(lit, LitOp)):
        return None
    base, c = _decimal_base(x), literal_decimal(lit)
    if base is None or c is None or not (pa.types.is_decimal(base.type) or
                                         pa.types.is_decimal(c[0])):
        return None
    (tc, cu), tx = c, as_decimal(base.type)
    t = decimal_result(op, tx, tc) if not flipped else decimal_result(op, tc, tx)
    if t is None:
        return None
    if op == "*":
        steps = (("mul", cu),) if cu != 0 else None
    else:
        k = t.scale - tx.scale
        shift = ((("mul", 10**k),) if k else ()) + ((("mul", -1),) if flipped and op == "-"
                                                   else ())
        c_at = cu * 10 ** (t.scale - tc.scale)
        steps = shift + (("add", -c_at if op == "-" and not flipped else c_at),)
    if steps is None or any(abs(c) >= LIMIT for _, c in steps):
        return None
    return ColOp(extend(base, steps_of(base), t, steps))


def _decimal_side(x: ColOp) -> object | None:
    col = x.col
    if isinstance(col, (b.BSum, b.BProd)) and not x.negated and pa.types.is_decimal(col.type):
        return col
    return _decimal_base(x)


def _decimal_pair(op: str, left: ColOp, right: ColOp) -> object | None:
    a, c = _decimal_side(left), _decimal_side(right)
    if a is None or c is None or not (pa.types.is_decimal(a.type) or
                                      pa.types.is_decimal(c.type)):
        return None
    ta, tc = as_decimal(a.type), as_decimal(c.type)
    t = decimal_result(op, ta, tc)
    if t is None:
        return None
    if op == "*":
        return ColOp(b.BProd(a, c, t))
    sides = []
    for side, ts in ((a, ta), (c, tc)):
        k = t.scale - ts.scale
        if k and not isinstance(side, b.BColumn):
            return None  # a sum or product at another scale: not rescaled
        sides.append(extend(side, steps_of(side), pa.decimal128(min(ts.precision + k, 38),
                                                                t.scale), (("mul", 10**k),))
                     if k else side)
    return ColOp(b.BSum(sides[0], sides[1], 1 if op == "+" else -1, t))


def decimal_expression(col: object) -> bool:
    """DECIMAL arithmetic, whose known bounds lie within +-2**62 (``rewrite``).

    >>> p = b.BColumn("p", pa.decimal128(15, 2), pa.decimal128(15, 2), "int")
    >>> decimal_expression(p), decimal_expression(b.BProd(p, p, pa.decimal128(31, 4)))
    (False, True)
    """
    return pa.types.is_decimal(col.type) and (isinstance(col, (b.BSum, b.BProd)) or (
        isinstance(col, b.BColumn) and bool(steps_of(col))))


def clamp(col: object, c: L.Coerced) -> L.Coerced:
    """A literal placed against a decimal expression, with values beyond +-2**62 moved to
    +-(2**62 + 1): the expression's known bounds lie within +-2**62, so every comparison with
    them is the same, and the kernel's int64 holds the literal.

    >>> p = b.BColumn("p", pa.decimal128(15, 2), pa.decimal128(15, 2), "int")
    >>> clamp(b.BProd(p, p, pa.decimal128(31, 4)), L.Exact(10**25))
    Exact(value=4611686018427387905)
    """
    if not decimal_expression(col):
        return c

    def f(v: object) -> object:
        return max(-LIMIT - 1, min(LIMIT + 1, v)) if isinstance(v, int) else v

    if isinstance(c, L.Exact):
        return L.Exact(f(c.value))
    if isinstance(c, L.Between):
        return L.Between(f(c.below), f(c.above))
    if isinstance(c, L.Range):
        return L.Range(f(c.first), f(c.last))
    return c
