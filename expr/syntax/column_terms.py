"""Comparisons of one operand with constants that DataFusion 55's optimizer weighs together
by their literals, where that changes which rows pass. Its ``push_down_filter`` groups the
terms ``column op literal`` at the top of a WHERE clause, and its simplifier leaves a
constant it folds (a cast, a minus, an integer for a DOUBLE) on the left of a comparison:

- ``zeros_apart``: it weighs equalities and bounds by their literals, where -0.0 is not 0.0
  (``f = -0.0 AND f = 0.0`` is FALSE there), while its comparisons take them for one value;
- ``both_ways``: it takes ``c = v`` and ``v = c`` for two values, and the whole predicate for
  FALSE (``f = 5 AND 5 = f`` returns no row on a DOUBLE column);
- ``left_bound_dropped``: of two bounds one way, it keeps the first of equal constants unless
  the later one is strict with its constant on the right (``5 <= f AND 5 < f`` returns the
  row ``f = 5``).

The last two only on a column as it is (or what the optimizer may make one: ``_may_be_column``):
of a cast it keeps, a function or arithmetic, its plans show ``abs(f) = 5 AND 5 = abs(f)`` and
``5 <= abs(f) AND 5 < abs(f)`` read as written.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import NamedTuple

from sqlglot import exp

from prunekit.expr.syntax.engine_operands import (
    INTEGER_KINDS,
    decimal_kind,
    inside_unknown_part,
    kind_of,
)
from prunekit.expr.syntax.list_merges import OWN_EQUALITY
from prunekit.expr.syntax.optimizer_terms import (
    DATE_TYPES,
    FLOAT_KINDS,
    PATTERN_LISTS,
    TIMESTAMP_TYPES,
    ancestors,
    apart,
    branches,
    column_names,
    is_null_constant,
    kept_cast,
    kind_family,
    may_be_float,
    may_fold,
    operand_key,
    type_family,
    whole_seconds,
    zero_signs_of,
)

# ---- equalities with zeros of both signs ------------------------------------------------------
# Why such an equality is unknown: its rows are not its own, not even NULL where its column is.
ZEROS_APART = "(its optimizer tells -0.0 from 0.0 beside another equality on its column)"


def zeros_apart(x: exp.Expression, types: Mapping[str, object] | None) -> bool:
    """Whether ``x`` (a comparison: ``=``, ``<>``, an IN list, BETWEEN, or ``<``, ``>`` with
    another bound beside it, which the simplifier may make an ``=`` or keep in the other's
    place) compares with a zero, and another in the predicate compares its operand with a
    zero maybe of the other sign: DataFusion 55's optimizer weighs such equalities together
    by their literals, where -0.0 is not 0.0 (``f = -0.0 AND f = 0.0`` is FALSE there, ``f <>
    -0.0 AND f = 0.0`` is ``f = 0.0``, and so is ``NOT (f < 0 OR f > 0) AND f <> -0.0``; of
    ``f > -0.0 AND f >= 0`` it keeps ``f >= 0``), while its comparisons hold both for either
    zero. Not for a column that is not a float, unless a DOUBLE is beside it (``x = -0.0`` of
    an integer ``x`` is compared as DOUBLEs).

    >>> import sqlglot
    >>> tree = sqlglot.parse_one("f = -0.0 AND f = 0.0")
    >>> zeros_apart(tree.this, {"f": "double"}), zeros_apart(tree.this, {"f": "int64"})
    (True, True)
    >>> zeros_apart(sqlglot.parse_one("f = -0 AND f = 0").this, {"f": "int64"})
    False
    >>> tree = sqlglot.parse_one("NOT (f < 0 OR f > 0 OR f = -0.0)")
    >>> zeros_apart(tree.find(sqlglot.exp.LT), {"f": "double"})
    True
    >>> zeros_apart(sqlglot.parse_one("f >= 0 AND f <> -0.0").this, {"f": "double"})
    False
    """
    if x.meta.get(OWN_EQUALITY) or inside_unknown_part(x):
        return False  # split_zero_items' own, and the text of what it split
    found = {id(c.node): c for c in _comparisons(x.root(), types)
             if not c.node.meta.get(OWN_EQUALITY)}  # (a list split_zero_items left: its text)
    if id(x) not in found:
        return False
    mine = _zero_signs(x, found[id(x)].operand, types)
    return bool(mine) and any(
        _beside(found[id(x)], other) and any(a != b for a in mine for b in _zero_signs(
            other.node, other.operand, types)) for other in found.values())


def bounds_one_way(x: exp.Expression, types: Mapping[str, object] | None) -> bool:
    """Whether ``x`` (``zeros_apart``) and every comparison beside it on its operand are
    bounds of one way, NOTs pushed in (``NOT (f < 0.0) AND -0.0 < f``: both from below): the
    optimizer keeps one of them, and never folds them to a constant, so they are NULL where
    their operand is, under a NOT too.

    >>> import sqlglot
    >>> tree = sqlglot.parse_one("NOT (NOT (f < 0.0) AND -0.0 < f)")
    >>> bounds_one_way(tree.find(sqlglot.exp.LT), {"f": "double"})
    True
    >>> bounds_one_way(sqlglot.parse_one("NOT (f < 0.0 AND -0.0 < f)").find(sqlglot.exp.LT),
    ...                {"f": "double"})
    False
    """
    found = {id(c.node): c for c in _comparisons(x.root(), types)
             if not c.node.meta.get(OWN_EQUALITY)}  # (the x = 0 the reading writes beside)
    mine = found.get(id(x))
    if mine is None or mine.way not in _WAYS:
        return False
    way = _bound(x)[1]
    return all(other.way in _WAYS and _bound(other.node)[1] == way
               for other in found.values() if _beside(mine, other))


_WAYS = ("above", "below")


# ---- c = v and v = c taken for two values --------------------------------------------------
# Why a predicate holding ``c = v`` and ``v = c`` may return no row (``both_ways``).
BOTH_WAYS = "(its optimizer may take c = v and v = c on one column for two values)"

_ABOVE = {exp.GT: True, exp.GTE: True, exp.LT: False, exp.LTE: False}

_EQUALITIES = (exp.EQ, exp.NEQ, exp.NullSafeEQ, exp.NullSafeNEQ, exp.Like, exp.ILike,
               *PATTERN_LISTS)


def both_ways(tree: exp.Expression,
              types: Mapping[str, object] | None = None) -> list[exp.Expression]:
    """The comparisons of ``tree`` that DataFusion 55's optimizer may take for two equalities
    on one column, one written with its constant on the left; empty where there are none.
    Where its simplifier leaves a constant on the left (one it folds: a cast, a minus, a
    string for a DATE, an integer for a DOUBLE...), it takes ``c = v`` and ``v = c`` at the
    top of a WHERE for two values and the whole predicate for FALSE: ``f = 5 AND 5 = f``
    returns no row on a DOUBLE column, nor does ``CAST(5 AS INT) = i AND i = 5`` on an INT
    one. Its simplifier makes equalities of more than ``=``: ``NOT (v <> c)``, ``c >= v AND
    c <= v``, ``NOT (c < v OR c > v)``, an IN list (one item, or what two lists share), a
    LIKE without a wildcard. So every comparison of a column with constants counts (a ``<``
    or ``>`` where another bound is beside it), whatever the type, where it may become a term
    of the top AND (``_may_reach_top``).

    >>> import sqlglot
    >>> [x.sql() for x in both_ways(sqlglot.parse_one("f IN (5, 6) AND (5 = f OR 1 = 2)"))]
    ['f IN (5, 6)', '5 = f']
    >>> both_ways(sqlglot.parse_one("f IN (5, 6) AND (5 = f OR y > 1)"))  # (an OR's own)
    []
    >>> both_ways(sqlglot.parse_one("f = 5 AND f IN (5) AND 1 < f"))
    []
    >>> [x.sql() for x in both_ways(sqlglot.parse_one("NOT (f < 5 OR 5 < f)"))]
    ['f < 5', '5 < f']
    >>> both_ways(sqlglot.parse_one("5 = i AND i = 5"), {"i": "int64"})
    []
    """
    found = [c for c in _comparisons(tree, types, at_top=True)
             if _may_be_column(c.operand, c.node, types)]
    return [a.node for a in found if any(_beside(a, b) and (a.left or b.left) for b in found)]


def _may_be_column(operand: exp.Expression, x: exp.Expression,
                   types: Mapping[str, object] | None) -> bool:
    """Whether DataFusion 55's optimizer may hold ``operand`` of the comparison ``x`` as a
    column as it is, which its ``push_down_filter`` weighs with other terms on it
    (``both_ways``, ``left_bound_dropped``): a column (but a DATE one against a TIMESTAMP,
    which it casts to one); a cast of one it may drop or move to the constant (all but a cast
    between a float and another type, or between a DATE and a TIMESTAMP: kept, checked on its
    plans); arithmetic that may fold to the column (``x * 1``), or a function it may
    (``operand_key`` None). ``abs(f)``, ``-f``, ``f + 1``, ``CAST(x AS DOUBLE)`` of an integer
    and ``CAST(s AS DATE)`` of a TIMESTAMP stay what they are: their terms are read as
    written there.

    >>> import sqlglot
    >>> types = {"x": "int64", "f": "double", "s": "timestamp[us, tz=UTC]", "d": "date32[day]"}
    >>> [_may_be_column(sqlglot.parse_one(t), None, types) for t in (
    ...     "f", "CAST(x AS INT)", "x * 1", "abs(f)", "-f", "CAST(x AS DOUBLE)", "CAST(s AS DATE)")]
    [True, True, True, False, False, False, False]
    >>> x = sqlglot.parse_one("TIMESTAMP '2020-01-15 00:00:00' <= d")
    >>> _may_be_column(x.expression, x, types), _may_be_column(x.expression, None, types)
    (False, True)
    """
    bare = operand.unnest()
    if isinstance(bare, exp.Column):
        return x is None or kind_of(bare, types) != "date32[day]" or not any(
            isinstance(c.unnest(), exp.Cast) and c.unnest().to.is_type(*TIMESTAMP_TYPES)
            and isinstance(c.unnest().this, exp.Literal) for c in _constants(x))
    if isinstance(bare, (exp.Cast, exp.TryCast)):
        inner = bare.this.unnest()
        kind = kind_of(inner, types) if isinstance(inner, exp.Column) else None
        if kind is None:
            return True  # (a cast of a cast, or of an unknown column: it may drop them)
        return not kept_cast(kind_family(kind), type_family(bare.to))
    return operand_key(operand) is None


class _Comparison(NamedTuple):
    """A comparison of one operand holding a column with constants (``_compared``)."""
    node: exp.Expression
    operand: exp.Expression
    left: bool  # its constant stays on the left there
    key: str | None  # the operand as the optimizer may rewrite it (``operand_key``)
    way: str  # "=", "range", "above" or "below"


def _comparisons(tree: exp.Expression, types: Mapping[str, object] | None = None, *,
                 at_top: bool = False) -> list[_Comparison]:
    """Each comparison in ``tree`` the optimizer may weigh with another: all but a ``<`` or
    ``>`` without another beside it (``c >= 5 AND c <= 5.0`` is ``c = 5``; of ``c > 5 AND c
    >= 5.0`` it keeps one); ``at_top``: only those that may become terms of the top AND
    (``_may_reach_top``; its simplifier weighs ``=`` and ``<>`` with zeros anywhere)."""
    found = [_Comparison(x, c[0], c[1], _key(c[0], types), c[2]) for x in tree.find_all(
        exp.In, exp.Between, *_EQUALITIES, *_ABOVE) if (c := _compared(x, types)) is not None
        and (not at_top or _may_reach_top(x))]
    return [a for a in found if a.way in ("=", "range") or any(
        _beside(a, b) and b.way != "=" for b in found)]


def _may_reach_top(x: exp.Expression) -> bool:
    """Whether ``x`` may become a term of the WHERE clause's top AND, where the optimizer
    weighs terms together (within an OR it weighs none: ``(i = 1 AND i = 2) OR b > 0`` stays,
    checked on its plans): each AND or OR above it is an AND once NOTs are pushed in (an OR
    under an odd count of NOTs), or an OR every branch of which holds ``x``'s text (lifted
    out of it); anything else above it (IS, CASE, a function) may be anything.

    >>> import sqlglot
    >>> tree = sqlglot.parse_one("(i = 1 AND y) OR NOT (j = 1 OR k = 2)")
    >>> [(c.sql(), _may_reach_top(c)) for c in tree.find_all(exp.EQ)]
    [('i = 1', False), ('j = 1', False), ('k = 2', False)]
    >>> _may_reach_top(sqlglot.parse_one("(i = 1 AND i = 2) OR j = 1").expression)  # (FALSE?)
    True
    >>> tree = sqlglot.parse_one("NOT (j = 1 OR j = 2) AND ((k = 1 AND y) OR (k = 1 AND z))")
    >>> [(c.sql(), _may_reach_top(c)) for c in tree.find_all(exp.EQ)]
    [('j = 1', True), ('j = 2', True), ('k = 1', True), ('k = 1', True)]
    """
    above = list(ancestors(x.parent))
    text = x.sql()
    for k, node in enumerate(above):
        if isinstance(node, (exp.Paren, exp.Not)):
            continue
        if not isinstance(node, (exp.And, exp.Or)):
            return True
        nots = sum(isinstance(a, exp.Not) for a in above[k + 1:])
        if isinstance(node, exp.Or) == (nots % 2 == 0) and not all(
                any(type(y) is type(x) and y.sql() == text for y in branch.walk())
                or may_fold(branch) for branch in branches(node)):
            return False
    return True


def _key(operand: exp.Expression, types: Mapping[str, object] | None) -> str | None:
    """``operand_key``, but for the DATE of a TIMESTAMP column: a cast the optimizer neither
    drops nor moves to the constant (a day is no instant), so another operand than the
    column (``CAST(s AS DATE) > DATE '2020-01-01'`` stays beside ``s >= ...``; checked on its
    plans).

    >>> import sqlglot
    >>> _key(sqlglot.parse_one("CAST(s AS DATE)"), {"s": "timestamp[ms, tz=UTC]"})
    'date of s'
    """
    bare = operand.unnest()
    if isinstance(bare, exp.Cast) and bare.to.is_type(*DATE_TYPES) and isinstance(
            bare.this.unnest(), exp.Column) and (
            kind_of(bare.this.unnest(), types) or "").startswith("timestamp"):
        inner = operand_key(bare.this)
        return None if inner is None else f"date of {inner}"
    return operand_key(operand)


def _beside(a: _Comparison, b: _Comparison) -> bool:
    """Whether two comparisons are two, and the optimizer may take their operands for one (a
    key of None: any operand of a column they share; ``x / 1`` may be ``x``, never ``y``)."""
    return a.node is not b.node and (a.key == b.key if None not in (a.key, b.key) else
                                     bool(column_names(a.operand) & column_names(b.operand)))


# ---- a strict bound written on the left dropped ---------------------------------------------
# Why a bound with its constant on the left is unknown: its optimizer may drop it.
LEFT_BOUND = "its optimizer may keep another bound on its column in its place"


def left_bound_dropped(x: exp.Expression, types: Mapping[str, object] | None = None) -> bool:
    """Whether DataFusion 55's optimizer may drop ``x``, a strict bound (``<``, ``>``, or
    ``<=``, ``>=`` under a NOT) with its constant on the left, for a bound before it the same
    way on its operand. Of the bounds one way on a column among the terms of a WHERE clause's
    top AND (NOTs pushed in, and terms an OR shares lifted out of it), it keeps the one of
    the greatest (least) constant, and of equal ones the first, unless a later one is strict
    with its constant on the right. So where it leaves the constants on the left (a DOUBLE
    column against integers) it keeps ``5 <= f`` for ``5 <= f AND 5 < f``, and returns the
    row ``f = 5`` (found by a probe). Only where a bound before it, not strict (a BETWEEN,
    or one its simplifier makes of a function: ``floor(f) = 5``), may have the same
    constant; the bounds it keeps are read as they are.

    >>> import sqlglot
    >>> tree = sqlglot.parse_one("5 <= f AND 5 < f AND NOT (5 >= f) AND (1 < g OR 3 < f)")
    >>> [(x.sql(), left_bound_dropped(x)) for x in tree.find_all(sqlglot.exp.LT, sqlglot.exp.GTE)]
    [('5 < f', True), ('1 < g', False), ('3 < f', False), ('5 >= f', True)]
    >>> left_bound_dropped(sqlglot.parse_one("floor(f) = 7 AND 5 < f").expression)
    True
    >>> left_bound_dropped(sqlglot.parse_one("NOT ('a' < left(s, 3)) AND s >= 'a'").this.this)
    False
    >>> left_bound_dropped(sqlglot.parse_one("5 < f AND 5 <= f").this)
    False
    """
    if not isinstance(x, tuple(_ABOVE)) or inside_unknown_part(x):
        return False
    found = {id(c.node): c for c in _comparisons(x.root(), types, at_top=True)}
    mine = found.get(id(x))
    if mine is None or not mine.left or mine.way == "range" or not _may_be_column(
            mine.operand, x, types):
        return False  # (a function's comparison becomes bounds with constants on the right)
    strict, way = _bound(x)
    if not strict:
        return False
    value = x.this if mine.operand is x.expression else x.expression
    dates = _date_operand(mine.operand, types)
    order = {id(node): k for k, node in enumerate(x.root().walk(bfs=False))}
    for other in found.values():
        y = other.node
        if not _beside(mine, other) or order[id(y)] > order[id(x)]:
            continue
        if other.way == "range" and not isinstance(y, exp.Between):
            return True  # bounds of its own, of values prunekit does not weigh
        if isinstance(y, exp.Between):
            if _negations_above(y) % 2:
                continue  # (NOT BETWEEN: an OR)
            constants = [y.args["low" if way == "above" else "high"]]
        elif isinstance(y, tuple(_ABOVE)) and _bound(y) == (False, way):
            constants = _constants(y)
        else:
            continue
        if any(not apart(value, c, False) and not (dates and _dates_apart(value, c))
               for c in constants if c.find(exp.Column) is None):
            return True
    return False


# The one form of a DATE's text that prunekit reads as the engine does: DataFusion's cast
# also takes ``2020-1-4`` for the fourth of January, so any other text may be any day.
_ISO_DATE = re.compile(r"\d{4}-\d{2}-\d{2}")


def _date_operand(operand: exp.Expression, types: Mapping[str, object] | None) -> bool:
    """Whether ``operand`` is a DATE: a DATE column, or a cast of a column to DATE."""
    operand = operand.unnest()
    if isinstance(operand, exp.Cast):
        return operand.to.is_type(*DATE_TYPES)
    return isinstance(operand, exp.Column) and kind_of(operand, types) == "date32[day]"


def _dates_apart(x: exp.Expression, y: exp.Expression) -> bool:
    """Whether two constants compared with a DATE are days apart, one of them a DATE literal
    and the other a DATE's text, which its simplifier casts to a DATE (``d >= '2020-01-02'
    AND DATE '2020-01-04' < d`` keeps the second bound).

    >>> import sqlglot
    >>> _dates_apart(sqlglot.parse_one("'2020-01-02'"), sqlglot.parse_one("DATE '2020-01-04'"))
    True
    >>> _dates_apart(sqlglot.parse_one("'2020-1-2'"), sqlglot.parse_one("DATE '2020-01-04'"))
    False
    """
    days = []
    for c in (x.unnest(), y.unnest()):
        if isinstance(c, exp.Cast) and c.to.is_type(*DATE_TYPES):
            c = c.this  # (the DATE literal, as sqlglot writes it)
        if not (isinstance(c, exp.Literal) and c.is_string and _ISO_DATE.fullmatch(c.this)):
            return False
        days.append(whole_seconds(c.this, True))
    return None not in days and days[0] != days[1]


# ---- what a comparison compares, as the optimizer reads it ---------------------------------
def _negations_above(x: exp.Expression) -> int:
    return sum(isinstance(a, exp.Not) for a in ancestors(x.parent))


def _bound(x: exp.Expression) -> tuple[bool, str]:
    """(strict, which way its operand is bounded) of an order ``x`` as it holds, a NOT
    around it making ``<=`` a ``>`` (the simplifier's own reading)."""
    negated = _negations_above(x) % 2 == 1
    way = _compared(x)[2]
    strict = isinstance(x, (exp.GT, exp.LT)) != negated
    return strict, ({"above": "below", "below": "above"}[way] if negated else way)


def _constants(x: exp.Expression) -> list[exp.Expression]:
    """The constants a comparison, BETWEEN or IN list compares its operand with."""
    return [y for y in (x.this, x.args.get("expression"), *x.expressions, x.args.get("low"),
                        x.args.get("high")) if y is not None and y.find(exp.Column) is None]


def _compared(x: exp.Expression, types: Mapping[str, object] | None = None
              ) -> tuple[exp.Expression, bool, str] | None:
    """(operand, whether the constant stands on its left, which way) of a comparison of
    one operand holding a column with constants: "=" for an equality, a list or a pattern,
    "range" for BETWEEN and any comparison of a function (``_preimage``), "above" or "below"
    for an order, as the operand sees it; None where ``x`` is not such a comparison."""
    if isinstance(x, (exp.In, exp.Between)):
        if x.args.get("query") or x.args.get("unnest"):
            return None
        bounds = x.expressions if isinstance(x, exp.In) else [x.args.get("low"),
                                                               x.args.get("high")]
        if any(b is None for b in bounds) or (isinstance(x, exp.Between) and any(
                is_null_constant(b) for b in bounds)):
            return None  # (x BETWEEN NULL AND 5 is never TRUE, and no bound: NULL AND x <= 5)
        way = "=" if isinstance(x, exp.In) and not _preimage(x.this) else "range"
        held = [b for b in bounds if b.find(exp.Column) is not None]
        if x.this.find(exp.Column) is not None:
            return None if held else (x.this, False, way)
        return (held[0], True, way) if held else None  # (5 IN (f), 5 BETWEEN f AND f)
    left, right = (x.this.find(exp.Column) is not None), (x.expression.find(exp.Column)
                                                           is not None)
    if left == right or is_null_constant(x.expression if left else x.this):
        return None  # (c = NULL is NULL, NULL IS NOT DISTINCT FROM c is c IS NULL)
    operand = x.this if left else x.expression
    way = "=" if isinstance(x, _EQUALITIES) else "above" if _ABOVE[type(x)] == left else "below"
    if _preimage(operand):
        way = "range"
    return operand, right and not _kept_in_place(x.this, operand, types), way


def _kept_in_place(constant: exp.Expression, operand: exp.Expression,
                   types: Mapping[str, object] | None) -> bool:
    """Whether DataFusion 55's simplifier moves ``constant``, written on the left of a
    comparison with ``operand``, to the right (it needs no fold there): a whole number
    without sign or cast against an integer column, a string against a string column
    (checked against its rows: ``5 = i AND i = 5``, ``'a' <= s AND 'a' < s`` as written).

    >>> import sqlglot
    >>> [_kept_in_place(sqlglot.parse_one(v), sqlglot.parse_one("i"), {"i": "int32"})
    ...  for v in ("5", "-5", "5.0", "CAST(5 AS INT)")]
    [True, False, False, False]
    """
    if not isinstance(constant, exp.Literal) or not isinstance(operand, exp.Column):
        return False
    kind = kind_of(operand, types)
    return kind == "string" if constant.is_string else (
        kind in INTEGER_KINDS and constant.this.isdigit())


def _preimage(operand: exp.Expression) -> bool:
    """Whether ``operand`` is a function DataFusion 55's simplifier turns into bounds on its
    column: ``floor(f) = 5`` is ``f >= 5 AND f < 6`` there, ``date_part('year', d) = 2024``
    is ``d >= DATE '2024-01-01' AND d < DATE '2025-01-01'`` (found by a review; ``ceil``,
    ``abs``, another field stay functions). A call prunekit does not know is taken for one."""
    operand = operand.unnest()
    if isinstance(operand, exp.Extract):
        return operand.this.name.upper() in ("YEAR", "YEARS", "Y", "YY", "YYY", "YYYY",
                                             "YR", "YRS") or not isinstance(operand.this,
                                                                            exp.Var)
    return isinstance(operand, (exp.Floor, exp.Year, exp.Anonymous))


def _zero_signs(x: exp.Expression, operand: exp.Expression,
                types: Mapping[str, object] | None) -> set[str]:
    """The signs ``+ -`` a zero ``x`` compares ``operand`` with may have: against a float, or
    as a DOUBLE against any other column but a DECIMAL (which meets a DOUBLE as a DECIMAL,
    whose zero has no sign: checked on its plans)."""
    if isinstance(operand, exp.Column) and decimal_kind(operand, types) is not None:
        return set()
    floats = not isinstance(operand, exp.Column) or (kind_of(operand, types) or "float") in \
        FLOAT_KINDS
    signs: set[str] = set()
    for item in _constants(x):
        if floats or may_be_float(item):
            signs |= zero_signs_of(item)
    return signs
