"""``coalesce(x, c)`` and ``CASE WHEN`` (Spark's ``if``) in predicates; exact in three-valued
logic (``functions`` has the rules). The branch type decides how a constant branch compares
with a literal: only types Spark would not widen by rounding are used, else unknown.

>>> _const_truth(n.Op.LT, 5, L.coerce(7, pa.int64())), _const_truth(n.Op.EQ, 5, L.Between(4, 6))
(True, False)
"""

from __future__ import annotations

from dataclasses import dataclass

import pyarrow as pa

from prunekit.errors import TypeMismatchError
from prunekit.expr.binding import bound as b
from prunekit.expr.binding.applied import Applied, Monotone
from prunekit.expr.binding.comparisons import compare
from prunekit.expr.binding.functions.registry import Rule, register
from prunekit.expr.binding.operand_rules import as_predicate, is_null
from prunekit.expr.binding.operands import ColOp, LitOp
from prunekit.expr.spark_types import coercion as C
from prunekit.expr.spark_types import literals as L
from prunekit.expr.syntax import nodes as n


def value_type(x: object) -> pa.DataType | None:
    if isinstance(x, ColOp):
        return C.spark_type(x.col.type)
    if isinstance(x, Monotone):
        return C.spark_type(x.type)
    return None


def branch_type(typed: list[pa.DataType], lits: list[LitOp]) -> pa.DataType | None:
    """Spark's type of CASE (or coalesce) branches: the one type both modes widen them to
    (``coercion.list_type``), when every typed branch keeps its values exactly in it and every
    literal branch reads as the same value of it in both modes; else None (unknown).

    >>> branch_type([pa.int32()], [LitOp(1)]), branch_type([pa.int32()], [LitOp("1")])
    (DataType(int32), None)
    """
    lit_types = [C.literal_type(v.value, v.type) for v in lits]
    found = {C.list_type([*typed, *lit_types], mode) for mode in C.MODES} - {None}
    if len(found) != 1:
        return None  # the modes differ (legacy: a string among numbers makes all strings)
    t = found.pop()
    if not all(C.widens_exactly(u, t) for u in typed):
        return None
    for v, lt in zip(lits, lit_types, strict=True):
        if v.value is None:
            continue
        cast = {repr(C.cast_literal(v.value, lt, t, mode)) for mode in C.MODES}
        if len(cast) != 1 or not _fits(v, t):
            return None
    return t


def _const_truth(op: n.Op, value: object, c: L.Coerced) -> bool:
    """``value op literal`` for a value and a literal placed in one domain (``literals.py``);
    NaN is above every number and equal to itself."""
    def key(v: object) -> tuple:
        return (1, 0) if isinstance(v, float) and v != v else (0, v)

    if isinstance(c, (L.BelowMin, L.AboveMax)):
        return L.truth_beyond(op, above=isinstance(c, L.AboveMax))
    v, first, last = key(value), key(c.first), key(c.last)
    return {n.Op.EQ: first <= v <= last, n.Op.LT: v < first, n.Op.GE: v >= first,
            n.Op.LE: v <= last, n.Op.GT: v > last}[op]


def literal_branch(op: n.Op, value: LitOp, t: pa.DataType, lit: LitOp) -> object:
    """A constant branch compared with the literal (already cast by the comparison), in the
    branch type ``t``."""
    if value.value is None:
        return b.BConst(None)
    placed = L.coerce(value.value, t)
    if op is n.Op.NE:
        return b.BConst(not _const_truth(n.Op.EQ, placed.first, L.coerce(lit.value, t)))
    return b.BConst(_const_truth(op, placed.first, L.coerce(lit.value, t)))


def _fits(value: LitOp, t: pa.DataType) -> bool:
    """The literal is exactly a value of ``t``."""
    if value.value is None:
        return True
    if isinstance(value.value, bool) != pa.types.is_boolean(t) or isinstance(
            value.value, str) != (C.kind(t) == "string"):
        return False
    try:
        return isinstance(L.coerce(value.value, t), L.Exact)
    except TypeMismatchError:
        return False


@dataclass(frozen=True)
class Coalesce(Applied):
    """``coalesce(x, c)``: x where it is not NULL, else the constant c (never NULL)."""

    arg: object  # ColOp or Monotone
    const: LitOp
    type: pa.DataType

    @property
    def why(self) -> str:
        return "coalesce(...) is used for pruning only compared with a literal"

    def compare(self, op: n.Op, lit: LitOp) -> object:
        if lit.value is None:
            return b.BConst(None)
        branch = literal_branch(op, self.const, self.type, lit)
        # x op lit is NULL exactly where x is, and there the constant decides: c op lit FALSE
        # gives (x op lit) IS TRUE, TRUE gives NOT (x op lit) IS FALSE. One node, so the
        # lattice keeps NULL rows and the others apart.
        inner = as_predicate(compare(op, self.arg, lit))
        return b.BNot(b.BIsBool(inner, False)) if branch.value else b.BIsBool(inner, True)

    def is_null(self) -> object:
        return b.BConst(False)

    def as_predicate(self) -> object:
        if not isinstance(self.const.value, bool):
            raise TypeMismatchError(f"coalesce(..., {self.const.value!r}) is not a boolean")
        inner = as_predicate(self.arg, "logic")
        return b.BNot(b.BIsBool(inner, False)) if self.const.value else b.BIsBool(inner, True)


@dataclass(frozen=True)
class Case(Applied):
    """``CASE WHEN c1 THEN v1 ... ELSE v END``: ``conds`` (bound predicates) and ``values``
    (one more than conds: the ELSE, NULL if absent); ``type`` the branch type (None: only
    booleans or NULL, usable as a predicate)."""

    conds: tuple
    values: tuple
    type: pa.DataType | None

    why = "CASE is used for pruning only as a predicate or compared with a literal"

    def _selectors(self) -> list:
        """Per branch, "this row takes it": never NULL."""
        out, rest = [], None
        for c in self.conds:
            hit = b.BIsBool(c, True)
            out.append(hit if rest is None else b.BAnd((rest, hit)))
            rest = b.BNot(hit) if rest is None else b.BAnd((rest, b.BNot(hit)))
        return out + [rest]

    def _each(self, branch) -> object:
        terms = []
        for sel, v in zip(self._selectors(), self.values, strict=True):
            t = branch(v)
            if isinstance(t, b.BConst) and t.value is False:
                continue  # FALSE AND anything is FALSE, which OR ignores
            terms.append(sel if isinstance(t, b.BConst) and t.value is True else
                         b.BAnd((sel, t)))
        return b.BOr(tuple(terms)) if len(terms) > 1 else terms[0] if terms else b.BConst(False)

    def compare(self, op: n.Op, lit: LitOp) -> object:
        if lit.value is None:
            return b.BConst(None)
        if self.type is None:
            return b.BOpaque(self.why)

        def branch(v: object) -> object:
            if isinstance(v, LitOp):
                return literal_branch(op, v, self.type, lit)
            return as_predicate(compare(op, v, lit))

        return self._each(branch)

    def is_null(self) -> object:
        return self._each(is_null)

    def as_predicate(self) -> object:
        return self._each(as_predicate)


def case(kids: tuple) -> Applied | None:
    """``if(c, a, b)`` (CASE arrives from sql.py as nested ifs): flattened, typed."""
    cond, then, other = kids
    conds, values = [as_predicate(cond, "case")], [then]
    if isinstance(other, Case):
        conds += other.conds
        values += other.values
    else:
        values.append(other)
    typed = [value_type(v) for v in values if not isinstance(v, LitOp)]
    lits = [v for v in values if isinstance(v, LitOp)]
    t = None if None in typed else branch_type(typed, lits)  # None: a predicate among them
    return Case(tuple(conds), tuple(values), t)


def coalesce(kids: tuple) -> object | None:
    if len(kids) != 2 or not isinstance(kids[1], LitOp):
        return None
    x, c = kids
    if c.value is None:
        return x  # coalesce(x, NULL) is x
    t = value_type(x)
    t = None if t is None else branch_type([t], [c])
    if t is None:
        return None
    return Coalesce(x, c, t)


def _if(kids: tuple) -> object | None:
    return case(kids) if len(kids) == 3 else None


register(Rule("coalesce", coalesce, "coalesce(x, 0) > 5", (("x", pa.int64()),)),
         Rule("if", _if, "if(x > 5, 1, 0) = 1", (("x", pa.int64()),)))
