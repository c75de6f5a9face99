"""``greatest(...)`` and ``least(...)`` of columns and literals, exact in three-valued logic.

Spark casts the arguments to one type, skips NULL arguments, and gives NULL only when every
argument is NULL; NaN is the greatest value. So ``greatest(a, b) > m`` is TRUE exactly when
some argument is > m, NULL when every argument is NULL, else FALSE:

    (a > m) IS TRUE OR (b > m) IS TRUE OR (NULL-or-FALSE(a) AND NULL-or-FALSE(b))

where ``NULL-or-FALSE(a)`` (``NonNull(a, FALSE)``) is NULL on a NULL row and FALSE otherwise:
the AND is NULL exactly when both are NULL. ``greatest >= m`` likewise; ``greatest < m`` is
``NOT greatest >= m`` and ``=`` is ``>= AND NOT >``, exact since the comparison is NULL exactly
when greatest is. ``least`` mirrors it. The arguments' type is the one both modes give them
(``branches.branch_type``), holding every argument exactly, else the call is unknown.

>>> import pyarrow as pa
>>> from prunekit.expr.binding.bind import bind
>>> from prunekit.expr.syntax.sql import parse
>>> bind(parse("greatest(x, 0) > 25"), pa.schema([("x", pa.int32())])).arg
BIsBool(arg=BCompare(col=x, op='gt', value=25), value=True)
"""

from __future__ import annotations

from dataclasses import dataclass

import pyarrow as pa

from prunekit.expr.binding import bound as b
from prunekit.expr.binding.applied import Applied, Monotone
from prunekit.expr.binding.comparisons import compare
from prunekit.expr.binding.functions.branches import branch_type, literal_branch, value_type
from prunekit.expr.binding.functions.registry import Rule, register
from prunekit.expr.binding.operand_rules import as_predicate, is_null
from prunekit.expr.binding.operands import ColOp, LitOp, operand_label, shown_literal
from prunekit.expr.spark_types import coercion as C
from prunekit.expr.syntax import nodes as n

# greatest: ops for which "some argument op m" decides; least mirrors.
_DIRECT = {"greatest": (n.Op.GT, n.Op.GE), "least": (n.Op.LT, n.Op.LE)}
# The other ops as NOT of a direct one: greatest < m is NOT greatest >= m.
_NEGATED = {"greatest": {n.Op.LT: n.Op.GE, n.Op.LE: n.Op.GT},
            "least": {n.Op.GT: n.Op.LE, n.Op.GE: n.Op.LT}}


@dataclass(frozen=True)
class Extreme(Applied):
    """``greatest(args)`` or ``least(args)`` (``name``): column operands, ``Monotone`` values
    and non-NULL literals, in the arguments' common type ``type``."""

    name: str
    args: tuple
    type: pa.DataType
    shown: str = ""  # the call as written, NULL arguments included

    @property
    def label(self) -> str:
        return self.shown or f"{self.name}({', '.join(operand_label(a) for a in self.args)})"

    @property
    def why(self) -> str:
        return f"{self.label} is used for pruning only compared with a literal"

    def compare(self, op: n.Op, lit: LitOp) -> object:
        # Not OfColumn's: the literal stays as written, each argument compares with it.
        if lit.value is None:
            return b.BConst(None)
        shown = f"{self.label} {op.value} {shown_literal(lit)}"
        return b.BRewritten(self._placed(op, lit), shown)

    def _placed(self, op: n.Op, lit: LitOp) -> object:
        if op is n.Op.NE:
            return b.BNot(self._placed(n.Op.EQ, lit))
        if op is n.Op.EQ:
            upper, lower = _DIRECT[self.name]
            return b.BAnd((self._placed(lower, lit), b.BNot(self._placed(upper, lit))))
        if op in _NEGATED[self.name]:
            return b.BNot(self._placed(_NEGATED[self.name][op], lit))
        terms, null_or_false = [], []
        for a in self.args:
            if isinstance(a, LitOp):  # never NULL: decides TRUE or nothing
                if literal_branch(op, a, self.type, lit).value:
                    return b.BConst(True)
                continue
            terms.append(b.BIsBool(as_predicate(compare(op, a, lit)), True))
            null_or_false.append(b.BNonNull(_column(a), False))
        if len(null_or_false) == len(self.args):  # NULL when every argument is
            terms.append(null_or_false[0] if len(null_or_false) == 1 else
                         b.BAnd(tuple(null_or_false)))
        return terms[0] if len(terms) == 1 else b.BOr(tuple(terms)) if terms else \
            b.BConst(False)

    def is_null(self) -> object:
        if any(isinstance(a, LitOp) for a in self.args):
            return b.BConst(False)
        return b.BAnd(tuple(is_null(a) for a in self.args))


def _column(x: object) -> b.BColumn:
    """The column a value is NULL exactly where: a column operand's, a Monotone's argument's."""
    return x.col if isinstance(x, ColOp) else x.arg.col


def _usable(x: object) -> bool:
    return isinstance(x, Monotone) or isinstance(x, ColOp) and x.col.domain != "none"


def extreme(name: str):
    def bind(kids: tuple) -> object | None:
        args = tuple(k for k in kids if not (isinstance(k, LitOp) and k.value is None))
        if len(kids) < 2 or not args or not all(isinstance(a, LitOp) or _usable(a)
                                                  for a in args):
            return None  # Spark wants two arguments at least
        if all(isinstance(a, LitOp) for a in args):
            return None
        typed = [value_type(a) for a in args if not isinstance(a, LitOp)]
        t = branch_type(typed, [a for a in args if isinstance(a, LitOp)])
        if t is None or C.kind(t) in ("boolean", "null"):
            return None
        return Extreme(name, args, t, f"{name}({', '.join(operand_label(k) for k in kids)})")

    return bind


register(Rule("greatest", extreme("greatest"), "greatest(x, 0) > 25", (("x", pa.int64()),)),
         Rule("least", extreme("least"), "least(x, y) < 5", (("x", pa.int64()),
                                                             ("y", pa.int32()))))
