"""Comparisons as Spark types them: ``left op right`` for bound operands, the column on the
left, each of Spark's two modes (ANSI, legacy) read on its own and the readings joined
(``per_mode``), a literal placed exactly in the column's domain (``column_vs_literal``).
Bind, the IN lists and the function rules all compare through here.

>>> import pyarrow as pa
>>> x = ColOp(b.BColumn("x", pa.int8(), pa.int8(), "int"))
>>> compare(n.Op.LT, LitOp(5), x), compare(n.Op.LT, x, LitOp(5.5))
(BCompare(col=x, op='gt', value=5), BCompare(col=x, op='lt', value=6))
"""

from __future__ import annotations

import decimal
import math

import numpy as np
import pyarrow as pa

from prunekit.errors import TypeMismatchError
from prunekit.expr.binding import bound as b
from prunekit.expr.binding.applied import Applied, OfColumn
from prunekit.expr.binding.arith import clamp
from prunekit.expr.binding.column_pairs import column_vs_column
from prunekit.expr.binding.operand_rules import as_predicate, kind_of
from prunekit.expr.binding.operands import ColOp, LitOp, OpaqueOp, operand_label, shown_literal
from prunekit.expr.binding.quotient import Quotient, compare_quotient
from prunekit.expr.domains import int_range, least_integer_rounding_to, round_to_float32
from prunekit.expr.spark_types import coercion as C
from prunekit.expr.spark_types import literals as L
from prunekit.expr.syntax import nodes as n


def compare(op: n.Op, left: object, right: object) -> object:
    """``left op right`` for two bound operands as one leaf, a literal on the left moved right.
    A reading prunekit does not know is still NULL where a column of either side is NULL
    (``null_without``).

    >>> x = ColOp(b.BColumn("x", pa.int8(), pa.int8(), "int"))
    >>> compare(n.Op.NE, x, LitOp(5)), compare(n.Op.EQ, x, LitOp(None))
    (BNot(arg=BInRange(col=x, first=5, last=5)), BConst(value=None))
    """
    return null_without(_compare(op, left, right), needs_of(left) + needs_of(right))


def needs_of(x: object) -> tuple:
    """The columns a value operand is NULL without: a column (read through its casts), a
    function of one column NULL exactly where it is (``OfColumn``), or what an unknown cast or
    sum of columns records; none for a literal or another function (coalesce).

    >>> needs_of(ColOp(b.BColumn("x", pa.int8(), pa.int8(), "int"))), needs_of(LitOp(5))
    ((x,), ())
    """
    if isinstance(x, ColOp):
        return (x.col,)
    if isinstance(x, OfColumn):
        return (x.arg.col,)
    return x.needs if isinstance(x, OpaqueOp) else ()


def null_without(leaf: object, needs: tuple) -> object:
    """``leaf``, the whole value of a comparison that is NULL wherever one of ``needs`` is,
    with its unknown readings (itself, a mode's, or under NOT) told so (``BOpaque.needs``)."""
    if not needs:
        return leaf
    if isinstance(leaf, b.BOpaque) and not leaf.needs:
        return b.BOpaque(leaf.why, tuple(dict.fromkeys(needs)))
    if isinstance(leaf, b.BNot):
        return b.BNot(null_without(leaf.arg, needs))
    if isinstance(leaf, b.BEither):
        return b.BEither(tuple(null_without(x, needs) for x in leaf.args))
    return leaf


def _compare(op: n.Op, left: object, right: object) -> object:
    if isinstance(left, LitOp) and not isinstance(right, LitOp):
        op, left, right = op.flipped, right, left
    if isinstance(left, Quotient) and isinstance(right, LitOp):
        return _quotient_vs_literal(op, left, right)
    if isinstance(left, Applied) or isinstance(right, Applied):
        if isinstance(right, LitOp):  # f(x) op literal: a predicate on x (functions/)
            return typed_comparison(op, left, right)
        return b.BOpaque(getattr(left, "why", None) or right.why)
    if op in (n.Op.EQ, n.Op.NE) and _truth_values(left, right):
        return _same_truth(op, as_predicate(left, "logic"), as_predicate(right, "logic"))
    for side in (left, right):
        if isinstance(side, OpaqueOp):
            return b.BOpaque(side.why)
        if not isinstance(side, (ColOp, LitOp)):  # (x > 5) < TRUE: legal, but not used
            return b.BOpaque("comparison of a predicate with a value")
    if isinstance(left, LitOp):  # both literals
        return fold_literals(op, left, right)
    if isinstance(right, ColOp):
        return column_vs_column(op, left, right)
    if op is n.Op.NE:
        return b.BNot(compare(n.Op.EQ, left, right))
    if right.value is None:
        return b.BConst(None)
    if left.col.domain == "none":
        return b.BOpaque(f"{left.col.name} has type {left.col.type}, which has no order")
    return typed_comparison(op, left, right)


def _truth_values(left: object, right: object) -> bool:
    """Whether ``left = right`` compares two truth values, one of them a predicate's."""
    sides = (left, right)
    return all(kind_of(x) == "boolean" for x in sides) and any(
        not isinstance(x, (ColOp, LitOp, OpaqueOp)) for x in sides)


def _same_truth(op: n.Op, left: object, right: object) -> object:
    """``left = right`` (``<>``) of two predicates: both TRUE or both FALSE, NULL where either
    is NULL, as ``(l AND r) OR (NOT l AND NOT r)`` is.

    >>> x = ColOp(b.BColumn("x", pa.int8(), pa.int8(), "int"))
    >>> _same_truth(n.Op.EQ, compare(n.Op.GT, x, LitOp(5)), b.BConst(False))
    BOr(args=(BAnd(args=(BCompare(col=x, op='gt', value=5), BConst(value=False))), \
BAnd(args=(BNot(arg=BCompare(col=x, op='gt', value=5)), BNot(arg=BConst(value=False))))))
    """
    same = b.BOr((b.BAnd((left, right)), b.BAnd((b.BNot(left), b.BNot(right)))))
    return same if op is n.Op.EQ else b.BNot(same)


def _quotient_vs_literal(op: n.Op, q: Quotient, lit: LitOp) -> object:
    if op is n.Op.NE:
        return b.BNot(_quotient_vs_literal(n.Op.EQ, q, lit))
    if lit.value is None:
        return b.BConst(None)
    if isinstance(lit.value, (bool, str, bytes)) or not isinstance(lit.value, (int, float,
                                                                             decimal.Decimal)):
        return b.BOpaque(f"{q.label()} compared with {lit.value!r}")
    return compare_quotient(op, q, lit, column_vs_literal)


def operand_type(x: object) -> pa.DataType:
    """The Spark type of a value operand: a column (seen through its conversions), or what a
    function returns.

    >>> operand_type(ColOp(b.BColumn("s", pa.large_string(), pa.large_string(), "code")))
    DataType(string)
    """
    if isinstance(x, ColOp):
        return C.spark_type(x.col.type)
    return C.spark_type(x.type)


def typed_comparison(op: n.Op, left: object, lit: LitOp) -> object:
    """``left op lit`` as Spark types it: per mode, both sides cast to the comparison type
    (``coercion.comparison_type``); the column read through the cast when it keeps order
    (else the leaf is unknown), the literal cast as Spark casts it. The modes' readings are
    one leaf when they agree, else ``BEither`` of them; a comparison both modes refuse is an
    error, one whose literal fails in every mode that reads it is NULL (the query fails).

    >>> x = ColOp(b.BColumn("x", pa.int8(), pa.int8(), "int"))
    >>> typed_comparison(n.Op.LT, x, LitOp(2.5)), typed_comparison(n.Op.GT, x, LitOp(200))
    (BCompare(col=x, op='lt', value=3), BNonNull(col=x, truth=False))
    """
    if isinstance(left, Applied) and getattr(left, "type", None) is None:
        return left.compare(op, lit)  # no one type (CASE of predicates): it says why
    left_t = operand_type(left)
    lit_t = C.compared_literal_type(lit.value, lit.type, left_t)
    return each_mode(left, left_t, lit, lit_t, lambda t, mode: reading(
        op, left, left_t, lit, lit_t, t, mode))


def each_mode(left: object, left_t: pa.DataType, lit: LitOp, lit_t: pa.DataType,
              reading) -> object:
    """The leaves ``reading(t, mode)`` gives for each Spark mode that accepts comparing
    ``left`` with ``lit`` (``t`` the comparison type; None: the query fails in that mode),
    as one leaf (``_one_of``).

    >>> x = ColOp(b.BColumn("x", pa.int8(), pa.int8(), "int"))
    >>> each_mode(x, pa.int8(), LitOp("7"), pa.string(), lambda t, mode: f"{mode}: {t}")
    BEither(args=('ansi: int64', 'legacy: int8'))
    """
    return per_mode(lambda mode: C.comparison_type(left_t, lit_t, mode), reading,
                    lambda: f"cannot compare {operand_label(left)} ({left_t}) with "
                            f"{shown_literal(lit)} "
                            f"({lit_t}): Spark refuses this comparison in both of its modes")


def per_mode(common_type, reading, refused) -> object:
    """``reading(t, mode)`` for each Spark mode, where ``t = common_type(mode)`` is the type
    that mode casts the operands to (None: the mode refuses them; ``refused()`` is the error
    when both do), as one leaf (``_one_of``).

    >>> per_mode(lambda mode: pa.int32(), lambda t, mode: b.BConst(True), lambda: "refused")
    BConst(value=True)
    >>> per_mode(lambda mode: None, lambda t, mode: b.BConst(True), lambda: "refused")
    Traceback (most recent call last):
    ...
    prunekit.errors.TypeMismatchError: refused
    """
    found: list = []
    accepted = False
    for mode in C.MODES:
        t = common_type(mode)
        if t is None:
            continue
        accepted = True
        leaf = reading(t, mode)
        if leaf is not None and leaf not in found:
            found.append(leaf)
    if not accepted:
        raise TypeMismatchError(refused())
    return _one_of(found)


def _one_of(found: list) -> object:
    """The leaf of the modes' readings: NULL when none runs (the query fails), one when they
    agree or are all unknown, else ``BEither``."""
    if not found:
        return b.BConst(None)
    if len(found) == 1 or all(isinstance(x, b.BOpaque) for x in found):
        return found[0]
    return b.BEither(tuple(found))


def typed_operand(x: object) -> bool:
    """A value whose Spark type prunekit knows: a column with an order, or a function's
    result of one type.

    >>> typed_operand(ColOp(b.BColumn("x", pa.int8(), pa.int8(), "int"))), typed_operand(LitOp(5))
    (True, False)
    """
    if isinstance(x, ColOp):
        return x.col.domain != "none"
    return isinstance(x, Applied) and getattr(x, "type", None) is not None


def reading(op: n.Op, left: object, left_t: pa.DataType, lit: LitOp, lit_t: pa.DataType,
             t: pa.DataType, mode: str) -> object | None:
    """``left op lit`` compared in type ``t`` under ``mode``; None when the literal's cast fails
    the query in that mode.

    >>> x = ColOp(b.BColumn("x", pa.int8(), pa.int8(), "int"))
    >>> reading(n.Op.GT, x, pa.int8(), LitOp(5), pa.int32(), pa.int32(), "ansi")
    BCompare(col=x, op='gt', value=5)
    >>> reading(n.Op.EQ, x, pa.int8(), LitOp("a"), pa.string(), pa.int8(), "ansi") is None
    True
    """
    if not C.keeps_order(left_t, t):
        return b.BOpaque(f"Spark ({mode} mode) compares {operand_label(left)} as {t}: a cast "
                        "that does "
                        "not keep its order")
    value = C.cast_literal(lit.value, lit_t, t, mode)
    if value is C.FAILS:
        return None
    if value is C.UNSURE:
        return b.BOpaque(f"prunekit does not work out {shown_literal(lit)} as {t} as Spark does")
    if value is None:
        return b.BConst(None)
    if isinstance(left, Applied):
        if _rounds_in(left_t, t):  # the function's integer result rounded to FLOAT
            return _in_float32(op, value, lambda m: left.compare(n.Op.GE, LitOp(m, left_t))) \
                or b.BOpaque(f"Spark ({mode} mode) compares {operand_label(left)} in FLOAT")
        return left.compare(op, LitOp(value, t))
    if left.negated:
        return _negated(op, left, LitOp(value, t))
    col = seen_as(left.col, left_t, t)
    if col is None:  # a computed integer (CAST(d AS BIGINT), x + 1) rounded to FLOAT
        col = left.col
        return _in_float32(op, value, lambda m: column_vs_literal(
            n.Op.GE, col, clamp(col, L.coerce(m, col.type)))) \
            or b.BOpaque(f"Spark ({mode} mode) compares {operand_label(left)} in FLOAT")
    return column_vs_literal(op, col, clamp(col, L.coerce(value, col.type)))


# Beyond every integer type: where no integer's FLOAT reaches a bound, or every one does.
_BEYOND_INTEGERS = 2**80


def _in_float32(op: n.Op, value: float, at_least) -> object | None:
    """``v op value`` for integers ``v`` compared in FLOAT (each rounded to its nearest FLOAT),
    given ``at_least(m)``, the leaf ``v >= m`` for an integer ``m`` of any size; None for NaN.
    Rounding is monotone: FLOAT(v) >= c is v >= ``least_integer_rounding_to(c)``, and
    FLOAT(v) > c is FLOAT(v) >= the next FLOAT above c.

    >>> x = b.BColumn("x", pa.int64(), pa.int64(), "int")
    >>> _in_float32(n.Op.GT, 16777216.0, lambda m: b.BCompare(x, "ge", m))  # 16777217 ties down
    BCompare(col=x, op='ge', value=16777218)
    """
    if math.isnan(value):
        return None
    above = float(np.nextafter(np.float32(value), np.float32(np.inf)))

    def ge(c: float) -> object:
        m = least_integer_rounding_to(c)
        return at_least(m if isinstance(m, int) else math.copysign(_BEYOND_INTEGERS, m))

    if op is n.Op.GE:
        return ge(value)
    if op is n.Op.GT:
        return ge(above)
    if op is n.Op.LT:
        return b.BNot(ge(value))
    if op is n.Op.LE:
        return b.BNot(ge(above))
    equal = b.BAnd((ge(value), b.BNot(ge(above))))
    return equal if op is n.Op.EQ else b.BNot(equal)


def _rounds_in(left_t: pa.DataType, t: pa.DataType) -> bool:
    """An integer type whose values FLOAT cannot all hold, compared in FLOAT."""
    return C.kind(t) == "float" and C.kind(left_t) == "integral" and left_t.bit_width > 16


def seen_as(col: b.BColumn, left_t: pa.DataType, t: pa.DataType) -> b.BColumn | None:
    """The column as it compares in type ``t``: rounded to FLOAT as legacy Spark rounds it
    (None for a computed one, which is not), a BOOLEAN as 0 and 1, else itself (a value
    placed in the column's type compares as in ``t``).

    >>> y = b.BColumn("y", pa.int64(), pa.int64(), "int")
    >>> seen_as(y, pa.int64(), pa.float32()).convert, seen_as(y, pa.int64(), pa.int64()) is y
    (('tofloat32',), True)
    """
    if _rounds_in(left_t, t):
        if not isinstance(col, b.BColumn) or col.convert:
            return None
        return b.BColumn(col.name, col.stats_type, pa.float32(), "float", ("tofloat32",))
    if C.kind(left_t) == "boolean" and C.kind(t) != "boolean":
        return b.BColumn(col.name, col.stats_type, pa.int8(), "int")  # FALSE, TRUE as 0, 1
    return col


_OPS = {n.Op.LT: "lt", n.Op.LE: "le", n.Op.GT: "gt", n.Op.GE: "ge"}


def column_vs_literal(op: n.Op, col: b.BColumn, c: L.Coerced) -> object:
    """Map a comparison with a placed literal onto one leaf (``literals.py`` explains first and
    last: the column values equal to the literal).

    >>> x = b.BColumn("x", pa.int8(), pa.int8(), "int")
    >>> column_vs_literal(n.Op.EQ, x, L.coerce(5, x.type))
    BInRange(col=x, first=5, last=5)
    >>> column_vs_literal(n.Op.LT, x, L.coerce(500, x.type))  # above every int8: always TRUE
    BNonNull(col=x, truth=True)
    """
    if isinstance(c, (L.BelowMin, L.AboveMax)):
        return b.BNonNull(col, L.truth_beyond(op, above=isinstance(c, L.AboveMax)))
    if isinstance(c, L.Exact) and isinstance(c.value, float) and c.value != c.value:  # NaN
        # NaN is above every number and equal to itself (docs/semantics.md §2).
        return {n.Op.EQ: b.BNanEq(col), n.Op.GE: b.BNanEq(col), n.Op.LT: b.BNot(b.BNanEq(col)),
                n.Op.LE: b.BNonNull(col, True), n.Op.GT: b.BNonNull(col, False)}[op]
    if op is n.Op.EQ:
        if c.first > c.last:
            return b.BNonNull(col, False)
        return by_type(b.BInRange(col, c.first, c.last))
    value = c.first if op in (n.Op.LT, n.Op.GE) else c.last
    return by_type(b.BCompare(col, _OPS[op], value))


def by_type(leaf: b.BCompare | b.BInRange) -> object:
    """The leaf as a constant on non-NULL rows where every value the column's own type can
    produce decides it, whatever the statistics (known or not): ``CAST(t AS INT) > 300`` and
    ``t > 127`` on TINYINT are FALSE, ``t + 1 > 200`` too.

    >>> t = b.BColumn("t", pa.int8(), pa.int32(), "int")
    >>> by_type(b.BCompare(t, "gt", 127)), by_type(b.BInRange(t, -500, 500))
    (BNonNull(col=t, truth=False), BNonNull(col=t, truth=True))
    """
    span = values_range(leaf.col)
    if span is None:
        return leaf
    lo, hi = span
    if isinstance(leaf, b.BInRange):
        if leaf.last < lo or leaf.first > hi:
            return b.BNonNull(leaf.col, False)
        return b.BNonNull(leaf.col, True) if leaf.first <= lo and hi <= leaf.last else leaf
    v = leaf.value
    always, never = {"lt": (v > hi, v <= lo), "le": (v >= hi, v < lo),
                     "gt": (v < lo, v >= hi), "ge": (v <= lo, v > hi)}[leaf.op]
    return b.BNonNull(leaf.col, True) if always else b.BNonNull(leaf.col, False) if never else \
        leaf


# Which end of a range each bounding comparison gives, and whether it is strict.
_BOUND_ENDS = {"ge": (0, False), "gt": (0, True), "le": (1, False), "lt": (1, True)}
_ORDERED = (int, float, bytes, str)  # Python orders these as every modelled engine does


def without_empty_ranges(args: tuple) -> tuple:
    """The conjuncts of one AND, with the bounds on one column that no value meets together
    (``x BETWEEN 5 AND 3``, ``x > 5 AND x < 3``) replaced by a leaf FALSE for every non-NULL
    row: their AND exactly, as each bound is NULL where the column is, so it prunes every
    container. Both bounds compare the same value of the column with constants in its
    domain, so an empty range is empty under any order that agrees with Python's on those
    constants; a NaN is never one (``BCompare``), and other kinds are left alone.

    >>> import pyarrow as pa
    >>> x = b.BColumn("x", pa.int64(), pa.int64(), "int")
    >>> without_empty_ranges((b.BCompare(x, "ge", 5), b.BInRange(x, 1, 3)))[0].arg
    BNonNull(col=x, truth=False)
    >>> without_empty_ranges((b.BCompare(x, "ge", 3), b.BCompare(x, "le", 3)))  # x = 3: kept
    (BCompare(col=x, op='ge', value=3), BCompare(col=x, op='le', value=3))
    """
    ends: dict = {}  # column -> [lower end, upper end], each (value, strict) or None
    mixed: set = set()  # columns whose constants Python cannot order together
    for leaf in args:
        for end, value, strict in _bounds(leaf):
            held = ends.setdefault(leaf.col, [None, None])[end]
            if held is None:
                ends[leaf.col][end] = (value, strict)
            elif not _comparable(value, held[0]):
                mixed.add(leaf.col)
            elif (value > held[0] if end == 0 else value < held[0]) or \
                    (value == held[0] and strict):
                ends[leaf.col][end] = (value, strict)
    empty = {col: lo_hi for col, lo_hi in ends.items()
             if col not in mixed and _is_empty(*lo_hi)}
    # A conjunct already FALSE on every non-NULL row (an empty range found in a nested AND, a
    # literal beyond the type) absorbs the column's bounds: the same leaves however the AND
    # was nested, as its SQL text parses flat.
    never = [c for c in map(_never_true_on, args) if c is not None]
    if not empty and not set(never) & ends.keys() and len(set(never)) == len(never):
        return args
    out: list = []
    placed: set = set()  # columns whose one FALSE-on-every-value conjunct is in ``out``
    for leaf in args:
        marker = _never_true_on(leaf)
        col = marker if marker is not None else leaf.col if _bounds(leaf) else None
        if col is None or (col not in empty and col not in never):
            out.append(leaf)
        elif col in placed or (marker is None and col in never):
            continue  # implied by the column's one FALSE conjunct, there or still to come
        elif marker is not None:
            out.append(leaf)
            placed.add(col)
        else:  # the column's first bound stands for all of them
            (lo, _), (hi, _) = empty[col]
            out.append(b.BRewritten(b.BNonNull(col, False),
                                    f"{col.label()} from {lo!r} to {hi!r}: an empty range"))
            placed.add(col)
    return tuple(out)


def _never_true_on(leaf: object) -> object | None:
    """The column a conjunct is FALSE for on every non-NULL row of (NULL on the others), or
    None: ``BNonNull(col, False)``, bare or as an empty range's rewriting."""
    inner = leaf.arg if isinstance(leaf, b.BRewritten) else leaf
    return inner.col if isinstance(inner, b.BNonNull) and not inner.truth else None


def _bounds(leaf: object) -> tuple:
    """The (end, value, strict) bounds a leaf puts on its column: 0 the lower end, 1 the upper."""
    if isinstance(leaf, b.BCompare) and type(leaf.value) in _ORDERED:
        end, strict = _BOUND_ENDS[leaf.op]
        return ((end, leaf.value, strict),)
    if isinstance(leaf, b.BInRange) and type(leaf.first) in _ORDERED \
            and type(leaf.last) is type(leaf.first):
        return ((0, leaf.first, False), (1, leaf.last, False))
    return ()


def _is_empty(lo: tuple | None, hi: tuple | None) -> bool:
    if lo is None or hi is None or not _comparable(lo[0], hi[0]):
        return False
    return lo[0] > hi[0] or (lo[0] == hi[0] and (lo[1] or hi[1]))


def _comparable(u: object, v: object) -> bool:
    numbers = (int, float)
    return type(u) is type(v) or (type(u) in numbers and type(v) in numbers)


def values_range(col: object) -> tuple | None:
    """The least and greatest value a column read through its conversion can take, from its
    data type alone (integers and DECIMAL, as the compared domain holds them), or None.

    >>> values_range(b.BColumn("t", pa.int8(), pa.float64(), "float", ("tofloat",)))
    (-128.0, 127.0)
    """
    if type(col) is not b.BColumn or not (pa.types.is_integer(col.stats_type) or
                                          pa.types.is_decimal(col.stats_type)):
        return None
    if col.domain not in ("int", "float"):
        return None
    lo, hi = int_range(col.stats_type)
    kind = col.convert[0] if col.convert else None
    if kind is None:
        return (lo, hi) if pa.types.is_integer(col.stats_type) else None
    if kind == "tofloat":
        return float(lo), float(hi)
    if kind == "tofloat32":
        return round_to_float32(lo), round_to_float32(hi)
    if kind != "affine":
        return None
    for step, c, tmin, tmax in col.convert[1]:
        lo, hi = (lo + c, hi + c) if step == "add" else (min(lo * c, hi * c), max(lo * c, hi * c))
        if lo < tmin or hi > tmax:
            return None  # may overflow: Spark's legacy mode wraps, a DECIMAL turns NULL
    return lo, hi


def _negated(op: n.Op, left: ColOp, right: LitOp) -> object:
    """``-x op c`` is ``x op' -c`` except where negation is not a mirror: NaN stays greatest,
    and the integer minimum overflows; there anything is possible. A DECIMAL's range is
    symmetric: a mirror everywhere, at any precision."""
    col = left.col
    wide_decimal = pa.types.is_decimal(col.type) and col.domain == "code"
    if (col.domain not in ("int", "float") and not wide_decimal) or col.convert or \
            pa.types.is_boolean(col.type) or pa.types.is_temporal(col.type) or \
            pa.types.is_unsigned_integer(col.type):
        return b.BOpaque(f"negation of {col.name} ({col.type})")
    value = right.value
    if not isinstance(value, (int, float)) and not hasattr(value, "as_tuple"):
        raise TypeMismatchError(f"cannot compare -{col.name} with {value!r}")
    if value != value:  # NaN: -x is NaN exactly when x is, and NaN does not mirror
        return compare(op, ColOp(col), right)
    inner = compare(op.flipped, ColOp(col), LitOp(L.negate(value), right.type))
    if pa.types.is_decimal(col.type):  # of any precision: its range is symmetric
        return inner
    if col.domain == "float":
        return b.BWiden(inner, b.BNanEq(col))
    lo = int_range(col.type)[0]
    return b.BWiden(inner, b.BInRange(col, lo, lo))


def fold_literals(op: n.Op, x: LitOp, y: LitOp) -> object:
    """Two literals compared as Spark types them in each mode (``'1' = 1`` is TRUE).

    >>> fold_literals(n.Op.EQ, LitOp("1"), LitOp(1)), fold_literals(n.Op.LT, LitOp(None), LitOp(1))
    (BConst(value=True), BConst(value=None))
    """
    if x.value is None or y.value is None:
        return b.BConst(None)
    tx, ty = C.literal_type(x.value, x.type), C.literal_type(y.value, y.type)
    tx, ty = C.compared_literal_type(x.value, x.type, ty), C.compared_literal_type(
        y.value, y.type, tx)

    def reading(t: pa.DataType, mode: str) -> object | None:
        u, v = C.cast_literal(x.value, tx, t, mode), C.cast_literal(y.value, ty, t, mode)
        if C.FAILS in (u, v):
            return None
        if C.UNSURE in (u, v):
            return b.BOpaque(f"prunekit does not work out {shown_literal(x)} {op.value} "
                            f"{shown_literal(y)} as "
                            "Spark does")
        if u is None or v is None:
            return b.BConst(None)
        cu, cv = L.coerce(u, t), L.coerce(v, t)
        if not (isinstance(cu, L.Exact) and isinstance(cv, L.Exact)):  # cast, so exact
            return b.BOpaque(f"{shown_literal(x)} {op.value} {shown_literal(y)} as {t}")
        return b.BConst(_ordered(op, cu.value, cv.value))

    return each_mode(x, tx, y, ty, reading)


def _ordered(op: n.Op, u: object, v: object) -> bool:
    """``u op v`` for two values of one domain; NaN equals itself and is above every number."""
    def key(w: object) -> tuple:
        if isinstance(w, float) and w != w:
            return (1, 0)
        return (0, w)

    a, c = key(u), key(v)
    return bool({n.Op.EQ: a == c, n.Op.NE: a != c, n.Op.LT: a < c, n.Op.LE: a <= c,
                 n.Op.GT: a > c, n.Op.GE: a >= c}[op])
