"""``x % c`` (``mod(x, c)``) and ``pmod(x, c)`` of an integer column ``x`` and an integer literal
``c``, as Spark 4 computes them (checked in Spark, both modes):

- ``x % c`` is Java's remainder: the sign of x, ``|c|`` alone matters (``-7 % 3`` is -1, ``7 %
  -3`` is 1); ``MIN % -1`` is 0 (no overflow);
- ``pmod(x, c)`` is the remainder in ``[0, c)`` for ``c > 0`` (``pmod(-7, 3)`` is 2); for ``c <
  0`` Spark's ``(r + c) % c`` of a negative ``r`` gives ``r`` back, so it is ``x % c``
  (``pmod(-7, -3)`` is -1, ``pmod(7, -3)`` 1);
- the result type is the wider of x's and c's (``TINYINT % 3`` is INT), whose literals are
  coerced to it;
- ``c = 0``: NULL in legacy mode, an error under ANSI (a failed query: any answer will do), so
  the call is the NULL literal; a NULL ``c`` is NULL.

The column becomes ``bound.BRemainder``, whose bounds the program computes per container
(``prunekit.expr.remainders``): x's min and max shifted where both fall in one block of the
divisor, else the remainder's general range. Left unknown: ``|c| = 1`` (every result is 0, the
block argument needs two values), ``|c| > 2**61``, DECIMAL and DOUBLE operands, a literal
dividend with a column divisor.

>>> import pyarrow as pa
>>> from prunekit.expr.binding.bind import bind
>>> from prunekit.expr.syntax.sql import parse
>>> bind(parse("pmod(x, 7) = 3"), pa.schema([("x", pa.int64())]))
BInRange(col=BRemainder(col=x, divisor=7, floor=True, type=DataType(int64), domain='int', \
convert=('remainder',)), first=3, last=3)
"""

from __future__ import annotations

import pyarrow as pa

from prunekit.expr.binding import bound as b
from prunekit.expr.binding.arith import extend, steps_of
from prunekit.expr.binding.functions.registry import Rule, register
from prunekit.expr.binding.operands import ColOp, LitOp
from prunekit.expr.remainders import MAX_DIVISOR


def _divisor_type(lit: LitOp) -> pa.DataType | None:
    """Spark's type of an integer literal divisor (INT if it fits, else BIGINT)."""
    v = lit.value
    if isinstance(v, bool) or not isinstance(v, int):
        return None
    if lit.type is not None:
        return lit.type if pa.types.is_signed_integer(lit.type) else None
    return pa.int32() if -(2**31) <= v < 2**31 else pa.int64() if -(2**63) <= v < 2**63 else None


def _integer_column(x: object) -> b.BColumn | None:
    """A signed integer column, possibly moved by constant steps (``x + 1``)."""
    if not isinstance(x, ColOp) or not isinstance(x.col, b.BColumn):
        return None
    col = x.col
    if col.domain != "int" or not pa.types.is_signed_integer(col.type) or \
            not pa.types.is_signed_integer(col.stats_type) or \
            (col.convert and col.convert[0] != "affine"):
        return None
    if x.negated:
        return extend(col, steps_of(col), col.type, (("mul", -1),))
    return col


def _remainder(pmod: bool):
    def bind(kids: tuple) -> object | None:
        if len(kids) != 2 or not isinstance(kids[1], LitOp):
            return None
        x, c = kids
        col = _integer_column(x)
        if col is None:
            return None
        if c.value is None:
            return LitOp(None, col.type)
        c_type = _divisor_type(c)
        if c_type is None:
            return None
        t = col.type if col.type.bit_width >= c_type.bit_width else c_type
        if c.value == 0:
            return LitOp(None, t)  # NULL (legacy); ANSI fails the query
        if not 2 <= abs(c.value) <= MAX_DIVISOR:
            return None
        return ColOp(b.BRemainder(col, c.value, pmod and c.value > 0, t))

    return bind


_X = (("x", pa.int64()),)
register(
    Rule("%", _remainder(False), "x % 10 = 3", _X),
    Rule("pmod", _remainder(True), "pmod(x, 7) >= 5", _X),
)
