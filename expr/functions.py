"""Monotone functions, ``coalesce`` and ``CASE WHEN`` in predicates.

A whitelist. Each function of a column is rewritten, when compared with a literal, into a
predicate on the column itself, so no kernel op is new: a non-decreasing ``f`` whose every
preimage is an interval has ``f(x) >= m`` exactly when ``x >= A(m)`` for one threshold ``A(m)``,
and ``f(x) > m`` exactly when ``x >= A'(m)``. Every comparison is one of those or its negation
(``f(x) < m`` is ``NOT f(x) >= m``, exact in three-valued logic: f is NULL exactly when x is),
and ``f(x) = m`` is ``f(x) >= m AND NOT f(x) > m``. Inexact bounds of ``x`` stay what they are:
the leaves compare the column, which is what its statistics describe.

==================================== ======================================================
function (Spark)                      ``f(x) >= m`` as a predicate on ``x``
==================================== ======================================================
``year(d)`` (dates, timestamps)       ``d >= m-01-01``
``date_trunc(u, t)``, ``trunc(d, u)`` ``t >= m`` if m starts a u-period, else the next start
``floor(x)`` DOUBLE/FLOAT (BIGINT)    ``x >= m`` (real); NaN rows are 0, ±inf saturate
``ceil(x)``                           ``x > m - 1``
``floor``/``ceil`` of DECIMAL, ints   the same, exactly (integers: ``floor(x)`` is ``x``)
``left(s, k)``, ``substring(s,1,k)``  ``s >= m`` (m of at most k characters), else
                                      ``s >= succ(m[:k])`` (prefix successor, bytes)
==================================== ======================================================

``coalesce(x, c) op lit`` is ``(x op lit) IS TRUE`` when ``c op lit`` is FALSE, else ``NOT (x op
lit) IS FALSE`` (``x op lit`` is NULL exactly where x is, and there c decides);
and ``CASE WHEN c1 THEN v1 ... ELSE v END op lit`` is ``OR_i (sel_i AND v_i op lit)``, where
``sel_i`` = ``c_i IS TRUE AND NOT c_j IS TRUE (j < i)`` is never NULL (a row takes the first
branch whose condition is TRUE). Both are exact in three-valued logic.

The date rules live in ``dates.py``, coalesce and CASE in ``branches.py``; this module has
the shared ``Monotone`` operand, floor/ceil, the prefixes and the dispatch (``bind_call``).

Timestamps: ``year``, ``to_date`` and ``date_trunc`` of a TIMESTAMP follow Spark's session time
zone; prunekit reads them in **UTC**, as it reads timestamp literals without an offset (a
session in another zone may see other calendar days: use UTC sessions, or TIMESTAMP_NTZ,
which has no zone). explain() says so where it applies.

>>> import pyarrow as pa
>>> from .bind import bind
>>> from .sql import parse
>>> bind(parse("year(d) = 2024"), pa.schema([("d", pa.date32())]))
Rewritten(arg=BAnd(args=(Bound(col=d, op='ge', value=19723), BNot(arg=Bound(col=d, op='ge', \
value=20089)))), text='year(d) = 2024')
"""

from __future__ import annotations

import decimal
import math
from dataclasses import dataclass
from fractions import Fraction

import pyarrow as pa

from prunekit.errors import TypeMismatchError

from . import bind as B
from . import bound as b
from . import literals as L
from . import nodes as n
from .domains import int_range, is_text

INT64_MIN, INT64_MAX = -(2**63), 2**63 - 1
UTC_NOTE = "; timestamps read in UTC, as Spark with session time zone UTC"


# ---- operands made by a whitelisted function ------------------------------------------------
class Applied:
    """A bound value made by a whitelisted function; bind's compare, IS NULL and boolean uses
    ask it. ``why`` is what a use it cannot prune shows in explain()."""

    why: str = ""

    def compare(self, op: n.Op, lit: B.LitOp) -> object:  # pragma: no cover - abstract
        raise NotImplementedError

    def is_null(self) -> object:  # pragma: no cover - abstract
        raise NotImplementedError

    def as_predicate(self) -> object:
        raise TypeMismatchError(f"not a boolean predicate: {self.why}")


@dataclass(frozen=True)
class Monotone(Applied):
    """``f(x)`` for a non-decreasing ``f`` of the column operand ``arg``: ``ge(m)`` / ``gt(m)``
    give ``f(x) >= m`` / ``f(x) > m`` for a value ``m`` of ``type`` in its kernel domain."""

    label: str
    arg: B.ColOp
    type: pa.DataType  # Spark's result type, which literals are coerced to
    ge: object  # m -> bound predicate on arg
    gt: object
    utc: bool = False  # reads a timestamp's calendar fields (explain says: in UTC)
    between: object = None  # (first, last) -> first <= f(x) <= last, where one leaf is tighter

    @property
    def why(self) -> str:
        return f"{self.label} is used for pruning only compared with a literal"

    def compare(self, op: n.Op, lit: B.LitOp) -> object:
        if lit.value is None:
            return b.Const(None)
        if op is n.Op.NE:
            return b.BNot(self.compare(n.Op.EQ, lit))
        shown = f"{self.label} {op.value} {B._shown(lit)}"
        if self.utc:
            shown += UTC_NOTE
        # The literal is already cast to the comparison's type (bind.typed_comparison).
        return b.Rewritten(self._placed(op, L.coerce(lit.value, self.type)), shown)

    def _placed(self, op: n.Op, c: L.Coerced) -> object:
        col = self.arg.col
        if isinstance(c, (L.BelowMin, L.AboveMax)) or (  # NaN is above every number
                isinstance(c, L.Exact) and isinstance(c.value, float) and c.value != c.value):
            above = not isinstance(c, L.BelowMin)
            truth = {n.Op.EQ: False, n.Op.LT: above, n.Op.LE: above, n.Op.GT: not above,
                     n.Op.GE: not above}[op]
            return b.NonNull(col, truth)
        if op is n.Op.GE:
            return self.ge(c.first)
        if op is n.Op.LT:
            return b.BNot(self.ge(c.first))
        if op is n.Op.GT:
            return self.gt(c.last)
        if op is n.Op.LE:
            return b.BNot(self.gt(c.last))
        if _gt_key(c.first, c.last):  # a literal between two results: equals none
            return b.NonNull(col, False)
        if self.between is not None:
            return self.between(c.first, c.last)
        return b.BAnd((self.ge(c.first), b.BNot(self.gt(c.last))))

    def is_null(self) -> object:
        return B._is_null(None, (self.arg,))


def _gt_key(x: object, y: object) -> bool:
    return x > y


def _at_least(col: b.BColumn, a: object) -> object:
    """``col >= a`` for an integer ``a`` of any size in the column's int domain."""
    lo, hi = int_range(col.type)
    if a <= lo:
        return b.NonNull(col, True)
    if a > hi:
        return b.NonNull(col, False)
    return b.Bound(col, "ge", a)


def _int_valued(ge_of) -> tuple:
    """(ge, gt) of an integer-valued function from its ``ge``: ``f > m`` is ``f >= m + 1``."""
    return ge_of, lambda m: ge_of(m + 1)


# ---- floor and ceil -------------------------------------------------------------------------
def _double_at_least(x: Fraction | int) -> float:
    """The smallest double >= x (x finite)."""
    f = float(x)
    return f if Fraction(f) >= x else math.nextafter(f, math.inf)


def _rounding(name: str, x: B.ColOp) -> object | None:
    """``floor(x)`` or ``ceil(x)``: Spark gives BIGINT for integers (their own value) and for
    DOUBLE/FLOAT (NaN is 0, beyond the range saturates: ANSI mode fails instead), and
    DECIMAL(p - s + 1, 0) for DECIMAL(p, s)."""
    col = x.col
    if col.domain == "int" and pa.types.is_integer(col.type) and pa.types.is_signed_integer(
            col.stats_type):
        if isinstance(col, b.BColumn) and not col.convert and not x.negated:
            return B.ColOp(B.cast_column(col, pa.int64()) or col)  # BIGINT, the same values
        return x  # an integer is its own floor
    if x.negated:
        return None
    ceil = name == "ceil"
    if col.domain == "float" and (isinstance(col, b.BFloatOp) or pa.types.is_floating(col.type)):
        def between(first: int, last: int) -> object:
            """first <= f(x) <= last. The numbers x with that are one interval [lo, hi] (the
            ends saturate), which InRange tests for numbers only (NaN is above inf); NaN rows
            are 0. One leaf each, so a NaN the statistics cannot rule out costs no pruning."""
            lo = -math.inf if first == INT64_MIN else (
                _ceil_threshold(first) if ceil else _double_at_least(first))
            hi = math.inf if last >= INT64_MAX else math.nextafter(
                _ceil_threshold(last + 1) if ceil else _double_at_least(last + 1), -math.inf)
            parts = ([b.InRange(col, lo, hi)] if lo <= hi else []) + (
                [b.NanEq(col)] if first <= 0 <= last else [])
            return b.BOr(tuple(parts)) if len(parts) > 1 else parts[0] if parts else \
                b.NonNull(col, False)

        def gt(m: int) -> object:
            return between(m + 1, INT64_MAX) if m < INT64_MAX else b.NonNull(col, False)

        return Monotone(f"{name}({col.label()})", x, pa.int64(),
                        lambda m: between(m, INT64_MAX), gt, between=between)
    if pa.types.is_decimal(col.type) and not col.convert:
        p, s = col.type.precision, col.type.scale

        def ge_dec(m: int) -> object:
            # floor(x) >= m iff x >= m; ceil(x) >= m iff x > m - 1
            lit = B.LitOp(decimal.Decimal(m - 1 if ceil else m))
            return B._column_vs_literal(n.Op.GT if ceil else n.Op.GE, col,
                                        L.coerce(lit.value, col.type))

        ge, gt = _int_valued(ge_dec)
        return Monotone(f"{name}({col.label()})", x, pa.decimal128(min(38, p - s + 1), 0), ge,
                        gt)
    return None


def _ceil_threshold(m: int) -> float:
    """The smallest double above m - 1: ``ceil(x) >= m`` iff ``x > m - 1``."""
    t = _double_at_least(m - 1)
    return math.nextafter(t, math.inf) if Fraction(t) == m - 1 else t


# ---- string prefixes --------------------------------------------------------------------------
def _prefix_of(x: B.ColOp, k: int, label: str) -> object | None:
    """``left(s, k)``: the first k characters. Byte order is code point order, and a prefix of
    k characters is a byte prefix of s, so for a literal m of j characters: ``left(s, k) >= m``
    is ``s >= m`` when j <= k, else ``s >= succ(m[:k])`` (nothing starting with m[:k] reaches
    m); ``left(s, k) > m`` is ``s > m`` when j < k, else ``s >= succ(m[:k])``."""
    col = x.col
    if x.negated or not isinstance(col, b.BColumn) or not is_text(col.type):
        return None
    from .leaves import prefix_successor

    def chars(m: bytes) -> str:
        return m.decode("utf-8", "surrogatepass")

    def at_least_succ(m: bytes) -> object:
        succ = prefix_successor(chars(m)[:k].encode("utf-8", "surrogatepass"))
        return b.NonNull(col, False) if succ is None else b.Bound(col, "ge", succ)

    def ge(m: bytes) -> object:
        if k <= 0:
            return b.NonNull(col, m == b"")  # '' >= m
        return b.Bound(col, "ge", m) if len(chars(m)) <= k else at_least_succ(m)

    def gt(m: bytes) -> object:
        if k <= 0:
            return b.NonNull(col, False)
        return b.Bound(col, "gt", m) if len(chars(m)) < k else at_least_succ(m)

    return Monotone(label, x, pa.string(), ge, gt)


def _int_literal(x: object) -> int | None:
    if isinstance(x, B.LitOp) and isinstance(x.value, int) and not isinstance(x.value, bool):
        return x.value
    return None


# ---- dispatch ----------------------------------------------------------------------------------
WHITELIST = ("year", "month", "day", "dayofmonth", "date_trunc", "trunc", "floor", "ceil",
             "left", "substring", "coalesce", "if")
NOT_MONOTONE = {"abs": "abs is not monotone", "lower": "lower is not monotone in byte order",
                "upper": "upper is not monotone in byte order"}


def bind_call(node: n.Func, kids: tuple) -> object | None:
    """The bound value of a whitelisted function call, or None (bind makes it unknown).

    >>> import pyarrow as pa
    >>> from .bind import bind
    >>> from .sql import parse
    >>> bind(parse("left(s, 2) = 'ab'"), pa.schema([("s", pa.string())]))  # doctest: +ELLIPSIS
    Rewritten(arg=BAnd(args=(Bound(col=s, op='ge', value=b'ab'), BNot(arg=Bound(col=s, \
op='ge', value=b'ac')))), text="left(s, 2) = 'ab'")
    """
    from . import branches, dates  # they build on Applied and Monotone above

    name, k = node.name, len(kids)
    if name == "if" and k == 3:
        return branches.case(kids)
    if name == "coalesce":
        return branches.coalesce(kids)
    if name in ("floor", "ceil") and k == 1 and isinstance(kids[0], B.ColOp):
        return _rounding(name, kids[0])
    if name == "year" and k == 1 and isinstance(kids[0], B.ColOp):
        return dates.year(kids[0])
    if name in ("month", "day", "dayofmonth") and k == 1 and isinstance(kids[0], B.ColOp):
        days = dates.days(kids[0])
        return None if days is None else B.ColOp(b.BCalendar(days, "day" if name != "month"
                                                             else "month"))
    if name == "date_trunc" and k == 2 and isinstance(kids[1], B.ColOp):
        return dates.truncated(name, kids[0], kids[1])
    if name == "trunc" and k == 2 and isinstance(kids[0], B.ColOp):
        return dates.truncated(name, kids[1], kids[0])
    if name in ("left", "substring") and isinstance(kids[0], B.ColOp):
        start = 1 if name == "left" else _int_literal(kids[1]) if k >= 2 else None
        length = _int_literal(kids[-1]) if (name == "left" and k == 2) or k == 3 else None
        if start in (0, 1) and length is not None:  # Spark reads position 0 as 1
            shown = f"{name}({kids[0].col.label()}, " + (
                f"{start}, " if name == "substring" else "") + f"{length})"
            return _prefix_of(kids[0], length, shown)
        if name == "substring" and k == 2 and start in (0, 1) and not kids[0].negated and \
                isinstance(kids[0].col, b.BColumn) and is_text(kids[0].col.type):
            return kids[0]  # the whole string (another type is cast to its text)
    return None


def why_not(node: n.Func, kids: tuple) -> str:
    """What explain() says about a function call that is not used for pruning."""
    reason = NOT_MONOTONE.get(node.name)
    if reason:
        return f"{node.display()}: {reason}"
    if node.name in WHITELIST:
        return f"{node.display()}: these arguments are not used for pruning (a column and " \
               "constants as the rule needs)"
    return f"{node.display()} is not used for pruning (not on the whitelist of monotone " \
           "functions)"
