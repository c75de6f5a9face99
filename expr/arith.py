"""Arithmetic on the column side (issue 7, item 1): the column seen through the arithmetic.

``x + c``, ``x - c``, ``c - x``, ``x * c`` on signed integers become an affine conversion of the
column (``BColumn.convert = ("affine", steps)``); ``a + b`` of two integer columns a ``BSum``;
``+ - *`` in DOUBLE a ``BFloatOp``. ``rewrite.py`` moves the statistics through them.
"""

from __future__ import annotations

import decimal

import pyarrow as pa

from . import bound as b
from . import literals as L
from .operands import ColOp, LitOp


def _int_literal_type(lit: LitOp) -> pa.DataType | None:
    """Spark's type of an integer literal: INT when it fits, else BIGINT (wider: DECIMAL)."""
    if isinstance(lit.value, bool) or not isinstance(lit.value, int):
        return None
    if lit.type is not None:
        return lit.type if pa.types.is_signed_integer(lit.type) else None
    for t in (pa.int32(), pa.int64()):
        lo, hi = L.int_range(t)
        if lo <= lit.value <= hi:
            return t
    return None


def _affine_base(x: ColOp) -> b.BColumn | None:
    """The column as an integer expression arithmetic can extend, or None."""
    col = x.col
    if not isinstance(col, b.BColumn):
        return None  # (a + b) * 2: arithmetic on a sum is left to the general rule
    steps = col.convert[1] if col.convert and col.convert[0] == "affine" else ()
    if (col.convert and not steps) or col.domain != "int" or not pa.types.is_signed_integer(
            col.type) or not pa.types.is_signed_integer(col.stats_type):
        return None
    if x.negated:
        return extend(col, steps, col.type, (("mul", -1),))
    return col


def extend(col: b.BColumn, steps: tuple, t: pa.DataType, more: tuple) -> b.BColumn:
    tmin, tmax = L.int_range(t)
    return b.BColumn(col.name, col.stats_type, t, "int",
                     ("affine", steps + tuple(s + (tmin, tmax) for s in more)))


def arith(op: str, left: object, right: object) -> object | None:
    """``x + c``, ``x - c``, ``c - x``, ``x * c`` (also nested) on a signed integer column, as
    the column seen through that map (``BColumn.convert = ("affine", steps)``): the kernel
    moves the bounds step by step, and where a step could overflow the result type (Spark's
    legacy mode wraps, ANSI mode fails) both bounds become unknown. None: not such a case."""
    floats = _float_arith(op, left, right)
    if floats is not None:
        return floats
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
    tmin, tmax = L.int_range(pa.int64())
    if op == "*" and c == 0:
        return None  # every value becomes 0: left to the general rule
    if op == "-" and not tmin <= -c <= tmax:
        return None
    step = ("mul", c) if op == "*" else ("add", c if op == "+" else -c)
    return ColOp(extend(base, steps_of(base), t, (step,)))


def _float_side(x: object) -> object | None:
    """A DOUBLE column (or DOUBLE arithmetic) as a BFloatOp side, a numeric literal as its
    DOUBLE value (Spark casts it so), else None."""
    if isinstance(x, ColOp) and not x.negated:
        col = x.col
        if isinstance(col, b.BFloatOp) or (isinstance(col, b.BColumn) and not col.convert and
                                           col.type == pa.float64()):
            return col
        return None
    if isinstance(x, LitOp) and x.value is not None and not isinstance(x.value, bool) and \
            isinstance(x.value, (int, float, decimal.Decimal)) and (
            x.type is None or pa.types.is_floating(x.type) or pa.types.is_integer(x.type)
            or pa.types.is_decimal(x.type)):
        return float(x.value)
    return None


def _float_arith(op: str, left: object, right: object) -> object | None:
    """``a + b``, ``a - b``, ``a * b`` in DOUBLE where a DOUBLE column takes part
    (``bound.BFloatOp``; the price * (1 - discount) of an alias). FLOAT columns are left out:
    Spark computes FLOAT arithmetic in FLOAT, which the kernel does not reproduce."""
    if op not in ("+", "-", "*"):
        return None
    a, c = _float_side(left), _float_side(right)
    if a is None or c is None or (isinstance(a, float) and isinstance(c, float)):
        return None
    return ColOp(b.BFloatOp(op, a, c))


def _column_sum(op: str, left: ColOp, right: ColOp) -> object | None:
    """``a + b`` or ``a - b`` of two plain signed integer columns (``bound.BSum``)."""
    cols = (left.col, right.col)
    if op not in ("+", "-") or left.negated or right.negated or not all(
            isinstance(c, b.BColumn) and not c.convert and c.domain == "int" and
            pa.types.is_signed_integer(c.type) for c in cols):
        return None
    return ColOp(b.BSum(left.col, right.col, 1 if op == "+" else -1,
                        _wider(left.col.type, right.col.type)))


def steps_of(col: b.BColumn) -> tuple:
    return col.convert[1] if col.convert and col.convert[0] == "affine" else ()


def _wider(s: pa.DataType, t: pa.DataType) -> pa.DataType:
    return s if s.bit_width >= t.bit_width else t
