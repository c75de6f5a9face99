"""Values made by a function rule (``functions/``): what bind's comparisons, IS NULL and
boolean uses ask of them. ``Monotone`` is ``f(x)`` for a non-decreasing ``f`` of a column;
compared with a literal, it becomes a predicate on the column itself (``functions/`` explains
the thresholds).

>>> import pyarrow as pa
>>> x = ColOp(b.BColumn("x", pa.int64(), pa.int64(), "int"))
>>> f = Monotone("f(x)", x, pa.int64(), *int_valued(lambda m: at_least(x.col, m)))
>>> f.compare(n.Op.GT, LitOp(5))
BRewritten(arg=BCompare(col=x, op='ge', value=6), text='f(x) > 5')
"""

from __future__ import annotations

from dataclasses import dataclass

import pyarrow as pa

from prunekit.errors import TypeMismatchError
from prunekit.expr.binding import bound as b
from prunekit.expr.binding.operands import ColOp, LitOp, shown_literal
from prunekit.expr.domains import int_range
from prunekit.expr.spark_types import literals as L
from prunekit.expr.spark_types.session import is_utc, session_zone
from prunekit.expr.spark_types.zones import zone_name
from prunekit.expr.syntax import nodes as n

UTC_NOTE = "; timestamps read in UTC, as Spark with session time zone UTC"


def zone_note() -> str:
    """What explain() adds to a rule that reads a timestamp's calendar: the session zone.

    >>> import datetime as dt
    >>> from prunekit.expr.spark_types.session import zone_of_session
    >>> with zone_of_session(dt.timezone(dt.timedelta(hours=-3))):
    ...     zone_note()
    '; timestamps read in session time zone -03:00, as Spark'
    """
    tz = session_zone()
    if is_utc(tz):
        return UTC_NOTE
    return f"; timestamps read in session time zone {zone_name(tz)}, as Spark"


class Applied:
    """A bound value made by a function rule; comparisons, IS NULL and boolean uses ask it.
    ``why`` is what a use it cannot prune shows in explain().

    >>> x = ColOp(b.BColumn("x", pa.int64(), pa.int64(), "int"))
    >>> Monotone("f(x)", x, pa.int64(), None, None).as_predicate()
    Traceback (most recent call last):
    ...
    prunekit.errors.TypeMismatchError: not a boolean predicate: f(x) is used for pruning only ...
    """

    why: str = ""

    def compare(self, op: n.Op, lit: LitOp) -> object:  # pragma: no cover - abstract
        raise NotImplementedError

    def is_null(self) -> object:  # pragma: no cover - abstract
        raise NotImplementedError

    def as_predicate(self) -> object:
        raise TypeMismatchError(f"not a boolean predicate: {self.why}")


class OfColumn(Applied):
    """``f(x)`` of one column operand ``arg``, used only compared with a literal: a NULL
    literal gives NULL, ``<>`` is ``NOT =``, and otherwise the literal, coerced to ``type``
    (Spark's result type), is placed by the subclass's ``_placed(op, coerced)``. ``f(x)`` is
    NULL exactly when x is, except on the rows of ``fails`` (a bound predicate, or None): there
    Spark fails the query, so every use of ``f(x)`` is unknown on them."""

    fails: object = None

    @property
    def why(self) -> str:
        return f"{self.label} is used for pruning only compared with a literal"

    def shown(self, op: n.Op, lit: LitOp) -> str:
        return f"{self.label} {op.value} {shown_literal(lit)}"

    def compare(self, op: n.Op, lit: LitOp) -> object:
        if lit.value is None:
            return b.BConst(None)
        if op is n.Op.NE:
            return b.BNot(self.compare(n.Op.EQ, lit))
        # The literal is already cast to the comparison's type (comparisons.typed_comparison).
        placed = self._placed(op, L.coerce(lit.value, self.type))
        return b.BRewritten(self._unknown_where_failing(placed), self.shown(op, lit))

    def _unknown_where_failing(self, got: object) -> object:
        """``got`` off the rows where f fails, unknown on them (anything: the query fails)."""
        if self.fails is None:
            return got
        unknown = b.BOpaque(f"{self.label} fails the query on some values")
        return b.BOr((b.BAnd((b.BNot(self.fails), got)), b.BAnd((self.fails, unknown))))

    def _placed(self, op: n.Op, c: L.Coerced) -> object:  # pragma: no cover - abstract
        raise NotImplementedError

    def is_null(self) -> object:
        got = b.BIsNull(self.arg.col)  # f(x) is NULL exactly when x is
        return got if self.fails is None else b.BOr((got, self.fails))


@dataclass(frozen=True)
class Monotone(OfColumn):
    """``f(x)`` for a non-decreasing ``f`` of the column operand ``arg``: ``ge(m)`` / ``gt(m)``
    give ``f(x) >= m`` / ``f(x) > m`` for a value ``m`` of ``type`` in its kernel domain.

    >>> x = ColOp(b.BColumn("x", pa.int64(), pa.int64(), "int"))
    >>> f = Monotone("f(x)", x, pa.int64(), *int_valued(lambda m: at_least(x.col, m)))
    >>> f.compare(n.Op.LT, LitOp(5)), f.is_null()
    (BRewritten(arg=BNot(arg=BCompare(col=x, op='ge', value=5)), text='f(x) < 5'), BIsNull(col=x))
    """

    label: str
    arg: ColOp
    type: pa.DataType  # Spark's result type, which literals are coerced to
    ge: object  # m -> bound predicate on arg
    gt: object
    utc: bool = False  # reads a timestamp's calendar fields (explain names the session zone)
    between: object = None  # (first, last) -> first <= f(x) <= last, where one leaf is tighter
    keeps_nan: bool = False  # f(NaN) is NaN (round): compared with NaN, f(x) is x
    fails: object = None  # the rows where Spark fails the query (OfColumn)

    def shown(self, op: n.Op, lit: LitOp) -> str:
        return super().shown(op, lit) + (zone_note() if self.utc else "")

    def _placed(self, op: n.Op, c: L.Coerced) -> object:
        col = self.arg.col
        nan = isinstance(c, L.Exact) and isinstance(c.value, float) and c.value != c.value
        if nan and self.keeps_nan:  # f(x) is NaN exactly where x is, above every number
            return {n.Op.EQ: b.BNanEq(col), n.Op.GE: b.BNanEq(col), n.Op.LT: b.BNot(b.BNanEq(col)),
                    n.Op.LE: b.BNonNull(col, True), n.Op.GT: b.BNonNull(col, False)}[op]
        if isinstance(c, (L.BelowMin, L.AboveMax)) or nan:  # NaN is above every number
            return b.BNonNull(col, L.truth_beyond(op, above=not isinstance(c, L.BelowMin)))
        if op is n.Op.GE:
            return self.ge(c.first)
        if op is n.Op.LT:
            return b.BNot(self.ge(c.first))
        if op is n.Op.GT:
            return self.gt(c.last)
        if op is n.Op.LE:
            return b.BNot(self.gt(c.last))
        if c.first > c.last:  # a literal between two results: equals none
            return b.BNonNull(col, False)
        if self.between is not None:
            return self.between(c.first, c.last)
        lower, upper = self.ge(c.first), self.gt(c.last)
        if lower == upper and _decided(lower):  # no x has f(x) = m (a DATE skipped in the
            return b.BNonNull(col, False)  # session zone); not when either may be anything
        return b.BAnd((lower, b.BNot(upper)))


def _decided(x: object) -> bool:
    """Whether a bound predicate has no part that may be anything (``BOpaque``, ``BWiden``):
    two equal ones then hold on the same rows.

    >>> _decided(b.BAnd((b.BConst(True), b.BNot(b.BConst(False))))), _decided(b.BOpaque("?"))
    (True, False)
    """
    if isinstance(x, (b.BOpaque, b.BWiden)):
        return False
    if isinstance(x, (b.BAnd, b.BOr, b.BEither)):
        return all(_decided(a) for a in x.args)
    if isinstance(x, (b.BNot, b.BIsBool)):
        return _decided(x.arg)
    return True


def at_least(col: b.BColumn, a: object) -> object:
    """``col >= a`` for an integer ``a`` of any size in the column's int domain.

    >>> x = b.BColumn("x", pa.int8(), pa.int8(), "int")
    >>> at_least(x, 3), at_least(x, 200)
    (BCompare(col=x, op='ge', value=3), BNonNull(col=x, truth=False))
    """
    lo, hi = int_range(col.type)
    if a <= lo:
        return b.BNonNull(col, True)
    if a > hi:
        return b.BNonNull(col, False)
    return b.BCompare(col, "ge", a)


def int_valued(ge_of) -> tuple:
    """(ge, gt) of an integer-valued function from its ``ge``: ``f > m`` is ``f >= m + 1``.

    >>> ge, gt = int_valued(lambda m: at_least(b.BColumn("x", pa.int8(), pa.int8(), "int"), m))
    >>> gt(5)
    BCompare(col=x, op='ge', value=6)
    """
    return ge_of, lambda m: ge_of(m + 1)
