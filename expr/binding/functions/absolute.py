"""``abs(x)``, ``negative(x)`` and ``sign(x)`` / ``signum(x)`` of a number: each compared with a
literal is a predicate on ``x`` itself, read off the set of results the comparison accepts.

``abs`` keeps its argument's type. Its preimage of a range of results ``[a, b]`` (``a >= 0``)
is at most two ranges of x, ``[a, b]`` and ``[-b, -a]``, so ``abs(x) < 3`` is ``-3 < x < 3``
and ``abs(x) >= 3`` is ``x >= 3 OR x <= -3``. Spark's edges: ``abs`` of an integer type's
minimum is that minimum in legacy mode (it wraps) and fails the query under ANSI, so the
minimum is placed by the legacy value; ``abs(NaN)`` is NaN (greatest), ``abs(-0.0)`` is 0.0.

``sign`` is DOUBLE: -1.0, 0.0, 1.0, or NaN for NaN; so ``sign(x) op m`` is an OR of ``x < 0``,
``x = 0``, ``x > 0`` and ``isnan(x)``, taking those whose result satisfies the comparison.
``negative(x)`` is unary minus (``-x``).

>>> import pyarrow as pa
>>> from prunekit.expr.binding.bind import bind
>>> from prunekit.expr.syntax.sql import parse
>>> bind(parse("abs(x) < 3"), pa.schema([("x", pa.int32())]))  # abs(INT_MIN) is INT_MIN
BRewritten(arg=BOr(args=(BInRange(col=x, first=-2, last=2), BInRange(col=x, first=-2147483648, \
last=-2147483648))), text='abs(x) < 3')
>>> bind(parse("sign(x) = 1"), pa.schema([("x", pa.int32())]))  # sign is DOUBLE: 1 is 1.0
BRewritten(arg=BCompare(col=x, op='gt', value=0), text='sign(x) = CAST(1.0 AS DOUBLE)')
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import pyarrow as pa

from prunekit.expr.binding import bound as b
from prunekit.expr.binding.applied import OfColumn
from prunekit.expr.binding.arith import extend, steps_of
from prunekit.expr.binding.comparisons import by_type, column_vs_literal
from prunekit.expr.binding.functions.registry import Rule, register
from prunekit.expr.binding.operands import ColOp, LitOp, OpaqueOp
from prunekit.expr.domains import int_range
from prunekit.expr.spark_types import coercion as C
from prunekit.expr.spark_types import literals as L
from prunekit.expr.syntax import nodes as n

_NUMBERS = ("integral", "decimal", "float", "double")


def numeric_column(x: object) -> b.BColumn | None:
    """The column of a numeric column operand (negated or not), or None."""
    if not isinstance(x, ColOp) or C.kind(x.col.type) not in _NUMBERS:
        return None
    # uint64 ("uint") compares as DECIMAL(20, 0) in its own domain: not used here.
    return x.col if x.col.domain in ("int", "float", "code") else None


def results(op: n.Op, c: L.Coerced, floating: bool) -> tuple:
    """The results ``r`` with ``r op literal``, for a literal placed among the values of the
    result type (``c``): ``(lo, hi, nan)``, the numbers in ``[lo, hi]`` (None: unbounded) and
    whether NaN is one of them (NaN is above every number).

    >>> results(n.Op.GT, L.coerce(5.5, pa.int64()), False), results(n.Op.LE, L.Exact(2.0), True)
    ((6, None, True), (None, 2.0, False))
    """
    if floating:
        def after(v):
            return math.nextafter(v, math.inf) if v < math.inf else None

        def before(v):
            return math.nextafter(v, -math.inf) if v > -math.inf else None
    else:
        def after(v):
            return v + 1

        def before(v):
            return v - 1
    if op is n.Op.GE:
        return c.first, None, True
    if op is n.Op.GT:
        lo = after(c.last)
        return (lo, None, True) if lo is not None else (1, 0, True)  # no number above inf
    if op is n.Op.LT:
        hi = before(c.first)
        return (None, hi, False) if hi is not None else (1, 0, False)
    if op is n.Op.LE:
        return None, c.last, False
    return c.first, c.last, False  # EQ


def interval(col: b.BColumn, lo: object, hi: object) -> object | None:
    """``lo <= col <= hi`` (None: unbounded) as one leaf; None when empty. Integers are clipped
    to the column's type; for floats the range holds numbers only (NaN is not in it).

    >>> x = b.BColumn("x", pa.int8(), pa.int8(), "int")
    >>> interval(x, -300, 5), interval(x, None, None), interval(x, 3, 2)
    (BCompare(col=x, op='le', value=5), BNonNull(col=x, truth=True), None)
    """
    if col.domain == "float":
        lo = -math.inf if lo is None else lo
        hi = math.inf if hi is None else hi
        return b.BInRange(col, lo, hi) if lo <= hi else None
    tmin, tmax = int_range(col.type)
    lo = tmin if lo is None else max(lo, tmin)
    hi = tmax if hi is None else min(hi, tmax)
    if lo > hi:
        return None
    if lo == tmin and hi == tmax:
        return b.BNonNull(col, True)
    if lo == tmin:
        return by_type(b.BCompare(col, "le", hi))
    if hi == tmax:
        return by_type(b.BCompare(col, "ge", lo))
    return by_type(b.BInRange(col, lo, hi))


def any_of(col: b.BColumn, parts: list) -> object:
    """An OR of leaves on one column (FALSE on every non-NULL row when there are none)."""
    parts = [p for p in parts if p is not None]
    if not parts:
        return b.BNonNull(col, False)
    return parts[0] if len(parts) == 1 else b.BOr(tuple(parts))


@dataclass(frozen=True)
class Abs(OfColumn):
    """``abs(x)`` of a numeric column operand; ``type`` is x's (Spark keeps it)."""

    arg: ColOp
    type: pa.DataType

    @property
    def label(self) -> str:
        return f"abs({self.arg.col.label()})"

    def _placed(self, op: n.Op, c: L.Coerced) -> object:
        col = self.arg.col
        floating = col.domain == "float"
        if isinstance(c, (L.BelowMin, L.AboveMax)):
            return b.BNonNull(col, L.truth_beyond(op, above=isinstance(c, L.AboveMax)))
        if isinstance(c, L.Exact) and floating and c.value != c.value:
            # abs(x) is NaN exactly when x is: compared with NaN, abs(x) is x.
            return column_vs_literal(op, col, c)
        lo, hi, nan = results(op, c, floating)
        # |x| in [lo, hi]: x in [a, hi] or [-hi, -a], a = max(lo, 0).
        a = 0 if lo is None or lo < 0 else lo
        parts: list = []
        if hi is None or a <= hi:
            neg_hi = None if hi is None else -hi
            if a == 0:
                parts.append(interval(col, neg_hi, hi))
            else:
                parts += [interval(col, neg_hi, -a), interval(col, a, hi)]
        if floating:
            if nan:
                parts.append(b.BNanEq(col))
        elif pa.types.is_signed_integer(col.type):
            # abs(MIN) is MIN in legacy mode (ANSI fails the query): MIN belongs where MIN
            # itself is a result the comparison accepts, whatever |MIN| would say.
            tmin = int_range(col.type)[0]
            takes_min = (lo is None or lo <= tmin) and (hi is None or tmin <= hi)
            minimum = b.BInRange(col, tmin, tmin)
            parts = [p for p in parts if p is not None]
            holds = any(_holds(p, tmin) for p in parts)
            if takes_min and not holds:
                parts.append(minimum)
            elif holds and not takes_min:
                parts = [b.BAnd((p, b.BNot(minimum))) if _holds(p, tmin) else p for p in parts]
        return any_of(col, parts)


def _holds(leaf: object, v: int) -> bool:
    """Whether integer ``v`` satisfies a range leaf built by ``interval``."""
    if isinstance(leaf, b.BNonNull):
        return leaf.truth
    if isinstance(leaf, b.BCompare):
        return v <= leaf.value if leaf.op == "le" else v >= leaf.value
    return leaf.first <= v <= leaf.last


@dataclass(frozen=True)
class Sign(OfColumn):
    """``sign(x)``: DOUBLE -1.0, 0.0, 1.0, or NaN where x is NaN."""

    arg: ColOp
    name: str
    type: pa.DataType = pa.float64()

    @property
    def label(self) -> str:
        return f"{self.name}({self.arg.col.label()})"

    def _placed(self, op: n.Op, c: L.Coerced) -> object:
        col = self.arg.col
        zero = L.coerce(0, col.type)
        parts = []
        for value, test in ((-1.0, n.Op.LT), (0.0, n.Op.EQ), (1.0, n.Op.GT)):
            if _double_holds(op, value, c):
                parts.append(column_vs_literal(test, col, zero))
        if col.domain == "float" and _double_holds(op, math.nan, c):
            parts.append(b.BNanEq(col))
        if col.domain == "float" and not _double_holds(op, math.nan, c):
            # x > 0 holds for NaN rows too (NaN is greatest), which sign(x) = 1 does not.
            parts = [b.BAnd((p, b.BNot(b.BNanEq(col)))) if isinstance(p, b.BCompare) and
                     p.op == "gt" else p for p in parts]
        return any_of(col, parts)


def _double_holds(op: n.Op, value: float, c: L.Coerced) -> bool:
    """``value op literal`` in DOUBLE (NaN greatest and equal to itself)."""
    def key(v: float) -> tuple:
        return (1, 0.0) if v != v else (0, v)

    v, lit = key(value), key(c.first)
    return {n.Op.EQ: v == lit, n.Op.LT: v < lit, n.Op.LE: v <= lit, n.Op.GT: v > lit,
            n.Op.GE: v >= lit}[op]


def _abs(kids: tuple) -> object | None:
    if len(kids) != 1 or numeric_column(kids[0]) is None:
        return None
    col = kids[0].col
    # abs(-x) is abs(x): at an integer minimum both are the minimum (legacy) or fail (ANSI).
    return Abs(ColOp(col), col.type)


def _sign(name: str):
    def bind(kids: tuple) -> object | None:
        # sign(-x) is not -sign(x) at an integer minimum (legacy -x wraps): not used.
        if len(kids) != 1 or numeric_column(kids[0]) is None or kids[0].negated:
            return None
        return Sign(kids[0], name)

    return bind


def negative(kids: tuple) -> object | None:
    """``negative(x)``: what unary minus binds to (``bind._neg``)."""
    if len(kids) != 1:
        return None
    x = kids[0]
    if isinstance(x, LitOp):
        if isinstance(x.value, (int, float)) and not isinstance(x.value, bool) or hasattr(
                x.value, "as_tuple"):
            return LitOp(L.negate(x.value), x.type)
        return None
    if numeric_column(x) is None:
        return OpaqueOp(getattr(x, "why", "negative of an expression"), kind="numeric") if \
            not isinstance(x, ColOp) else None
    if x.col.convert and x.col.convert[0] == "affine":
        return ColOp(extend(x.col, steps_of(x.col), x.col.type, (("mul", -1),)))
    return ColOp(x.col, not x.negated)


_X = (("x", pa.int32()),)
register(Rule("abs", _abs, "abs(x) < 3", _X),
         Rule("sign", _sign("sign"), "sign(x) = 1", (("x", pa.float64()),)),
         Rule("signum", _sign("signum"), "signum(x) < 0", _X),
         Rule("negative", negative, "negative(x) > 3", _X))
