"""``coalesce(x, c)`` and ``CASE WHEN`` (Spark's ``if``) in predicates; exact in three-valued
logic (``functions.py`` has the rules). The branch type decides how a constant branch compares
with a literal: only types Spark would not widen by rounding are used, else unknown.

>>> _const_truth(n.Op.LT, 5, L.coerce(7, pa.int64())), _const_truth(n.Op.EQ, 5, L.Between(4, 6))
(True, False)
"""

from __future__ import annotations

from dataclasses import dataclass

import pyarrow as pa

from . import bind as B
from . import bound as b
from . import functions as F
from . import literals as L
from . import nodes as n
from .errors import TypeMismatchError


def _value_type(x: object) -> pa.DataType | None:
    if isinstance(x, B.ColOp):
        return x.col.type
    if isinstance(x, F.Monotone):
        return x.type
    return None


def _const_truth(op: n.Op, value: object, c: L.Coerced) -> bool:
    """``value op literal`` for a value and a literal placed in one domain (``literals.py``);
    NaN is above every number and equal to itself."""
    def key(v: object) -> tuple:
        return (1, 0) if isinstance(v, float) and v != v else (0, v)

    if isinstance(c, (L.BelowMin, L.AboveMax)):
        above = isinstance(c, L.AboveMax)
        return {n.Op.EQ: False, n.Op.LT: above, n.Op.LE: above, n.Op.GT: not above,
                n.Op.GE: not above}[op]
    v, first, last = key(value), key(c.first), key(c.last)
    return {n.Op.EQ: first <= v <= last, n.Op.LT: v < first, n.Op.GE: v >= first,
            n.Op.LE: v <= last, n.Op.GT: v > last}[op]


def _literal_branch(op: n.Op, value: B.LitOp, t: pa.DataType, lit: B.LitOp) -> object:
    """A constant branch compared with the literal, in the branch type ``t``; None when the
    engine's modes could read it differently."""
    if value.value is None:
        return b.Const(None)
    if L.legacy_reading(lit.value, lit.type, t) is not L.SAME:
        return None
    placed = L.coerce(value.value, t)
    if op is n.Op.NE:
        return b.Const(not _const_truth(n.Op.EQ, placed.first, L.coerce(lit.value, t)))
    return b.Const(_const_truth(op, placed.first, L.coerce(lit.value, t)))


def _fits(value: B.LitOp, t: pa.DataType) -> bool:
    """The literal is exactly a value of ``t`` (so the branch type is ``t`` in Spark)."""
    if value.value is None:
        return True
    if isinstance(value.value, bool) != pa.types.is_boolean(t):
        return False
    try:
        return isinstance(L.coerce(value.value, t), L.Exact)
    except TypeMismatchError:
        return False


@dataclass(frozen=True)
class Coalesce(F.Applied):
    """``coalesce(x, c)``: x where it is not NULL, else the constant c (never NULL)."""

    arg: object  # ColOp or Monotone
    const: B.LitOp
    type: pa.DataType

    @property
    def why(self) -> str:
        return "coalesce(...) is used for pruning only compared with a literal"

    def compare(self, op: n.Op, lit: B.LitOp) -> object:
        if lit.value is None:
            return b.Const(None)
        branch = _literal_branch(op, self.const, self.type, lit)
        if branch is None:
            return b.Opaque("coalesce(...) compared with a literal Spark's modes read "
                            "differently")
        # x op lit is NULL exactly where x is, and there the constant decides: c op lit FALSE
        # gives (x op lit) IS TRUE, TRUE gives NOT (x op lit) IS FALSE. One node, so the
        # lattice keeps NULL rows and the others apart.
        inner = B.as_predicate(B.compare(op, self.arg, lit))
        return b.BNot(b.BIsBool(inner, False)) if branch.value else b.BIsBool(inner, True)

    def is_null(self) -> object:
        return b.Const(False)

    def as_predicate(self) -> object:
        if not isinstance(self.const.value, bool):
            raise TypeMismatchError(f"coalesce(..., {self.const.value!r}) is not a boolean")
        inner = B.as_predicate(self.arg)
        return b.BNot(b.BIsBool(inner, False)) if self.const.value else b.BIsBool(inner, True)


@dataclass(frozen=True)
class Case(F.Applied):
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
            if isinstance(t, b.Const) and t.value is False:
                continue  # FALSE AND anything is FALSE, which OR ignores
            terms.append(sel if isinstance(t, b.Const) and t.value is True else
                         b.BAnd((sel, t)))
        return b.BOr(tuple(terms)) if len(terms) > 1 else terms[0] if terms else b.Const(False)

    def compare(self, op: n.Op, lit: B.LitOp) -> object:
        if lit.value is None:
            return b.Const(None)
        if self.type is None:
            return b.Opaque(self.why)

        def branch(v: object) -> object:
            if isinstance(v, B.LitOp):
                got = _literal_branch(op, v, self.type, lit)
                return b.Opaque("CASE branch Spark's modes read differently") if got is None \
                    else got
            return B.as_predicate(B.compare(op, v, lit))

        return self._each(branch)

    def is_null(self) -> object:
        return self._each(lambda v: B._is_null(None, (v,)))

    def as_predicate(self) -> object:
        return self._each(B.as_predicate)


def case(kids: tuple) -> F.Applied | None:
    """``if(c, a, b)`` (CASE arrives from sql.py as nested ifs): flattened, typed."""
    cond, then, other = kids
    conds, values = [B.as_predicate(cond)], [then]
    if isinstance(other, Case):
        conds += other.conds
        values += other.values
    else:
        values.append(other)
    typed = [_value_type(v) for v in values if not isinstance(v, B.LitOp)]
    lits = [v for v in values if isinstance(v, B.LitOp) and v.value is not None]
    if None in typed:  # a predicate or an unknown value among the branches
        t = None
    elif typed:
        t = typed[0]
        if any(u != t for u in typed):  # Spark widens to a common type: only integers agree
            ints = all(pa.types.is_signed_integer(u) for u in typed)
            t = max(typed, key=lambda u: u.bit_width) if ints else None
    else:
        t = _literal_type(lits)
    if t is not None and not all(_fits(v, t) for v in lits):
        t = None
    return Case(tuple(conds), tuple(values), t)


def _literal_type(lits: list) -> pa.DataType | None:
    """The type of CASE branches that are all literals of one kind, or None."""
    kinds = {type(v.value) for v in lits}
    if len(kinds) != 1 or any(v.type is not None for v in lits):
        return None
    kind = kinds.pop()
    return {int: pa.int64(), float: pa.float64(), str: pa.string(), bool: pa.bool_()}.get(kind)


def coalesce(kids: tuple) -> object | None:
    if len(kids) != 2 or not isinstance(kids[1], B.LitOp):
        return None
    x, c = kids
    if c.value is None:
        return x  # coalesce(x, NULL) is x
    t = _value_type(x)
    if t is None or not _fits(c, t):
        return None
    return Coalesce(x, c, t)
