"""Where DataFusion 55's optimizer merges IN lists, and whether a merge changes the rows.

Its simplifier merges two IN lists on one expression that are the two sides of an AND or an
OR (an OR of equalities ``x = 1 OR x = 2`` becomes a list first), item by item:

====  ================  ================  ==================
op    IN, IN            NOT IN, NOT IN    IN, NOT IN
====  ================  ================  ==================
AND   IN (A ∩ B)        NOT IN (A ∪ B)    IN (A minus B)
OR    IN (A ∪ B)        NOT IN (A ∩ B)    (kept apart)
====  ================  ================  ==================

For a value that is not NULL that is the rows of the lists, as long as their items are
literals (it compares expressions, not values) and no zero meets a float (its sets tell 0
from -0.0, its ``=`` does not). Two things differ. It drops a NULL item (``x IN (1) AND
x NOT IN (2, NULL)`` returns the row 1), and a merge that leaves no item folds to a
constant, ``x IN ()`` FALSE and ``x NOT IN ()`` TRUE, where ``x`` is NULL too: ``NOT (x IN
(1) AND x IN (2))`` returns the NULL rows. ``merge_drops_null`` says which lists may be read
as SQL reads them; ``mark_exact_merges`` marks, in the predicate as written, the lists whose
merges are proven to keep the rows. Its optimizer also weighs equalities on one column by
their literals (``f = -0.0 AND f = 0.0`` is FALSE there): ``zeros_apart``.
"""

from __future__ import annotations

import datetime
import decimal
import operator
import re
import struct
from collections.abc import Mapping
from typing import NamedTuple

from sqlglot import exp

from prunekit.expr.syntax.engine_operands import (
    DECIMAL,
    INTEGER_KINDS,
    inside_unknown_part,
    is_zero,
    kind_of,
    number_value,
)

# The mark (in a sqlglot node's ``meta``) of an equality a rewrite writes (the ``x = 0`` that
# ``split_zero_items`` writes beside a list): prunekit's, not one the engine's optimizer sees.
OWN_EQUALITY = "prunekit_own_equality"

# The marks of an IN list every merge of which keeps its rows, and of one a merge may change
# (``mark_exact_merges``).
MERGES_EXACTLY = "prunekit_merges_exactly"
MAY_MERGE = "prunekit_may_merge"
# MAY_MERGE's value for a list or ``=`` whose merges change rows of values too: a float's
# zero (its sets tell -0.0 from 0), an item that is an expression (compared as such: x IN
# (y, 1) AND x IN (2) is FALSE there)
_INEXACT = "inexact"
# The mark of a MAY_MERGE list or equality every merge of which is a union keeping an item:
# NULL where its operand is, merged or not (no empty merge folds to a constant).
NULL_KEPT = "prunekit_null_kept"

# The mark of a MAY_MERGE list or equality whose operand is NULL with one column and only
# then (``_null_column``): its value is that column, where the merge is NULL or its constant
# (``merged_at_null``).
NULL_SIDE = "prunekit_null_side"
# The mark of such a list or equality whose merges keep the rows of every value of the
# column but NULL (``_values_only``).
EXACT_BUT_NULL = "prunekit_exact_but_null"

# The mark of a MAY_MERGE list or equality that no NOT stands above and none negates: every
# merge of it keeps at most its rows as written (an AND's intersection or difference leaves
# fewer; an OR's union is the OR's own rows), so it is read as written AND an unknown leaf.
AT_MOST_WRITTEN = "prunekit_at_most_written"

# Why a part the engine's optimizer rewrites together with others on its column is unknown:
# its rows are not its own, not even NULL where its column is.
MERGED_LIST = "(its optimizer may merge it with another list or equality on its column)"


def merge_drops_null(x: exp.In) -> bool:
    """Whether an optimizer may merge ``x`` with another IN list, ``=`` or ``<>`` on a column
    of ``x``'s where that changes which rows pass: DataFusion 55's does where ``x`` is negated
    (NOT IN, or under NOT or IS), dropping a NULL item (``x IN (1) AND x NOT IN (2, NULL)``
    and ``(x = 1 OR x = 2) AND x NOT IN (2, NULL)`` return the row 1) and folding lists that
    share no value to a constant (``NOT (x IN (1) AND x IN (2))`` returns the NULL rows).
    Under AND and OR alone a merged list passes the rows it passes alone (216 such forms
    checked against DuckDB's rows); IS [NOT] DISTINCT FROM it keeps apart; and not a list
    ``mark_exact_merges`` marked so (and always one it marked as merging, whatever stands
    beside it now).

    >>> import sqlglot
    >>> tree = sqlglot.parse_one("x NOT IN (2, NULL) AND x IN (1, NULL)")
    >>> [(x.sql(), merge_drops_null(x)) for x in tree.find_all(exp.In)]
    [('x IN (1, NULL)', False), ('x IN (2, NULL)', True)]
    >>> merge_drops_null(sqlglot.parse_one("x NOT IN (2, NULL)").this)  # alone
    False
    """
    if x.meta.get(MERGES_EXACTLY):
        return False
    if x.meta.get(MAY_MERGE) == _INEXACT and any(
            is_zero(i) or _value(i) is None for i in x.expressions
            if not isinstance(i.unnest(), exp.Null)):
        return True  # a merge changes rows of values, under AND and OR alone too
    node = x
    while node.parent is not None:
        if not isinstance(node.parent, (exp.And, exp.Or, exp.Paren)):
            break
        node = node.parent
    else:
        return False  # under AND and OR alone
    if x.meta.get(MAY_MERGE):  # its partner may since be rewritten (``split_zero_items``)
        return True
    columns = _names(x.this)
    return not columns or any(
        other is not x and columns & _names(other)
        for other in x.root().find_all(exp.EQ, exp.NEQ, exp.In)
        if not other.meta.get(OWN_EQUALITY) and not inside_unknown_part(other))


def mark_exact_merges(tree: exp.Expression, types: Mapping[str, object] | None) -> None:
    """Mark (``MERGES_EXACTLY``) each IN list of ``tree``, the predicate as the user wrote it,
    whose merges by DataFusion's optimizer keep every row, and the others that have a partner
    (``MAY_MERGE``, and so the equalities beside them under NOT): of those on its columns (lists,
    ``=`` and LIKE without wildcards, each maybe under NOT, on an operand the optimizer may
    hold in one type: ``_family``) none holds an expression or a zero against a float, and
    what a merge turns from NULL into a constant (a NULL item dropped, an empty merge folded)
    passes the rows NULL passes:

    - all under AND and OR alone (NOT only around a list): FALSE passes the rows NULL does
      there; TRUE comes only of NOT IN lists (a NULL item dropped beside an IN list or in an
      intersection under OR, or two under an OR sharing none; a union keeps a NULL item);
    - a list and an equality: they merge only in a union, which leaves an item;
    - two lists joined by one AND or OR (or a chain of one), with only AND, OR and NOT above:
      FALSE passes the rows NULL does under an even count of NOTs, TRUE under an odd one,
      for the merge as written and for its De Morgan twin (a NOT above pushed in);
    - two lists joined otherwise: their one merge must leave an item and no NULL;
    - two lists apart: every merge must (they share an item and each has one of its own).

    >>> import sqlglot
    >>> tree = sqlglot.parse_one("NOT (x IN (1, 2) AND x IN (2, 3)) OR x NOT IN (4)")
    >>> mark_exact_merges(tree, {"x": "int64"})
    >>> [bool(x.meta.get(MERGES_EXACTLY)) for x in tree.find_all(exp.In)]
    [False, False, False]
    >>> tree = sqlglot.parse_one("NOT (x IN (1, 2) AND x IN (2, 3))")
    >>> mark_exact_merges(tree, {"x": "int64"})
    >>> [bool(x.meta.get(MERGES_EXACTLY)) for x in tree.find_all(exp.In)]
    [True, True]
    >>> tree = sqlglot.parse_one("NOT (x NOT IN (NULL) OR x IN (2))")  # FALSE, as good as NULL
    >>> mark_exact_merges(tree, {"x": "int64"})
    >>> [bool(x.meta.get(MERGES_EXACTLY)) for x in tree.find_all(exp.In)]
    [True, True]
    """
    members = [m for m in (_as_list(x, types) for x in tree.find_all(
        exp.In, exp.EQ, exp.NEQ, exp.Like, exp.ILike, *_PATTERN_LISTS, exp.Between, exp.And))
        if m is not None]
    for group in _sharing_columns(members):
        if len(group) < 2 or _merges_exactly(group, types):  # (alone: nothing to merge with)
            for m in group:
                if isinstance(m.node, exp.In):
                    m.node.meta[MERGES_EXACTLY] = True
            continue
        # Under AND and OR alone a merge is TRUE only of NOT IN lists; under NOT an equality
        # may be part of what folds to a constant too. A float's zero, merged into a set, no
        # longer holds for -0.0 (f = 0.0 OR f IN (1.5, 2, 3)), wherever it stands
        # (equalities alone make a set of four items or more: fewer stay equalities).
        monotone = all(_monotone(m) for m in group)
        sets = any(m.is_list for m in group) or sum(
            len(m.items) for m in group) > 3
        inexact = [(sets and _float_zero(m, types)) or any(
            i.find(exp.Column) is not None for i in m.items) for m in group]
        column = _null_column(group)
        values = column is not None and not any(inexact) and _values_only(group)
        for m, m_inexact in zip(group, inexact, strict=True):
            if m.is_list or not monotone or m_inexact:
                m.node.meta[MAY_MERGE] = _INEXACT if m_inexact else True
                m.node.meta[AT_MOST_WRITTEN] = _monotone(m) and not m.negated
                if _unions_only(group):
                    m.node.meta[NULL_KEPT] = True
                if column is not None:
                    m.node.meta[NULL_SIDE] = column.copy()
                    m.node.meta[EXACT_BUT_NULL] = values


def merged_at_null(part: exp.Expression, unknown: exp.Expression) -> exp.Expression:
    """What a list or equality marked ``NULL_SIDE`` may be where its operand is NULL once
    merged: NULL, or the constant an empty merge folds to, which is the value the
    part has for a value in none of the group's lists. A merge's list holds the values its
    parts' boolean op picks from theirs (an AND of lists, their intersection; IN and NOT IN,
    the difference), so where it folds, that op over parts all FALSE (all TRUE for ``<>``
    and NOT LIKE) is its constant: each part is NULL or FALSE (TRUE), as ``NULL AND
    unknown`` (``NOT (NULL AND unknown)``) is. ``unknown`` itself for any other part.

    >>> import sqlglot
    >>> unknown = exp.Anonymous(this="f", expressions=[])
    >>> merged_at_null(sqlglot.parse_one("x <> 1"), unknown).sql()
    'NOT (NULL AND F())'
    """
    node = part.unnest()
    like = isinstance(node, (exp.Like, exp.ILike))
    if isinstance(node, (exp.In, exp.EQ, exp.Between, exp.And, *_PATTERN_LISTS)) or (
            like and not node.args.get("negate")):
        return exp.paren(exp.and_(exp.null(), unknown))
    if isinstance(node, exp.NEQ) or like:
        return exp.not_(exp.paren(exp.and_(exp.null(), unknown)))
    return unknown


# What an operand may hold for its merges to change only rows where its column is NULL: it is
# no NULL where the column is none (a failed cast or division fails the query).
_NULL_FREE = (exp.Column, exp.Identifier, exp.Paren, exp.Cast, exp.DataType, exp.DataTypeParam,
              exp.Neg, exp.Literal, exp.Mul, exp.Div, exp.Add, exp.Sub)


def _null_column(group: list[_Member]) -> exp.Column | None:
    """The one column the operands of ``group`` are NULL with, and only with: each holds that
    column alone, under casts, minus signs and arithmetic with literals (``_NULL_FREE``: a
    failed cast or division fails the query); None where there is no such column.

    >>> import sqlglot
    >>> def members(*texts):
    ...     return [_as_list(sqlglot.parse_one(t), {}) for t in texts]
    >>> _null_column(members("x IN (1)", "CAST(x AS INT) = 2")).sql()
    'x'
    >>> _null_column(members("x IN (1)", "x + y IN (3)")) is None
    True
    """
    found = set()
    for m in group:
        columns = list(m.operand.find_all(exp.Column))
        if len(columns) != 1 or not all(isinstance(x, _NULL_FREE) and not isinstance(
                x, exp.TryCast) for x in m.operand.walk()):  # (TRY_CAST makes NULLs)
            return None
        found.add(tuple(part.name for part in columns[0].parts))
    return next(m.operand.find(exp.Column) for m in group) if len(found) == 1 else None


def _values_only(group: list[_Member]) -> bool:
    """Whether a merge of ``group`` changes which rows pass only where its operand is NULL:
    the members share one operand, and every item of theirs is a value (a literal, a cast of
    one: no NULL, no expression, no float's zero, which are asked before) or a pattern. A
    merge changes rows by a NULL item it drops and by a constant it folds an empty merge to,
    which is the members' own answer for every value but NULL (``x IN ()`` is FALSE where
    ``x IN (1) AND x IN (2)`` is, ``x NOT IN ()`` TRUE where ``x NOT IN (1) OR x NOT IN
    (2)`` is).

    >>> import sqlglot
    >>> _values_only([_as_list(x, {}) for x in sqlglot.parse_one(
    ...     "NOT (x IN (1) AND CAST(x AS INT) = 2)").find_all(exp.In, exp.EQ)])
    True
    >>> _values_only([_as_list(sqlglot.parse_one("x IN (2, NULL)"), {})])
    False
    """
    return not any(m.key is None or m.key != group[0].key for m in group) and not any(
        i.find(exp.Null) is not None or (_value(i) is None and not _is_pattern(i))
        for m in group for i in m.items)  # (an item it cannot fold to a value may be
    # compared as an expression)


def _unions_only(group: list[_Member]) -> bool:
    """Whether every merge of ``group`` is a union that keeps an item, however NOTs above are
    pushed in: the members share one operand and one chain of one op, IN lists (and ``=``)
    under OR or NOT IN lists (and ``<>``) under AND (De Morgan's twin of the one is the
    other), and each holds an item that is no NULL. The merge is then NULL wherever that
    operand is, as each member is.

    >>> import sqlglot
    >>> members = [_as_list(x, {}) for x in sqlglot.parse_one(
    ...     "NOT (x IN (1, NULL) OR x = 2 OR x IN (3))").find_all(exp.In, exp.EQ)]
    >>> _unions_only(members), _unions_only([_as_list(x, {}) for x in sqlglot.parse_one(
    ...     "x IN (1) AND x IN (2)").find_all(exp.In)])
    (True, False)
    """
    if any(m.key is None or m.key != group[0].key or not any(
            i.find(exp.Null) is None for i in m.items) for m in group):
        return False
    for k, a in enumerate(group):
        for b in group[k + 1:]:
            top = _joint(a, b)
            if top is None or a.negated != b.negated or isinstance(top, exp.And) != a.negated:
                return False
    return True


class _Member:
    """A list (or what DataFusion's optimizer may make one) on a column: its node, items,
    whether it is negated once NOTs around it are pushed in, and the node holding it."""

    def __init__(self, node: exp.Expression, items: list[exp.Expression], negated: bool,
                 types: Mapping[str, object] | None, operand: exp.Expression | None = None):
        holder = node
        while isinstance(holder.parent, (exp.Not, exp.Paren)):
            negated ^= isinstance(holder.parent, exp.Not)
            holder = holder.parent
        self.node, self.items, self.negated = node, items, negated
        self.top = holder.parent  # None: the list is the whole predicate
        self.columns = _names(node)  # (its items' too: x IN (x, 1) is on x)
        operand = _operand(node) if operand is None else operand
        operand = _identity_of(operand, types) or operand
        self.operand = operand
        self.key = _operand_key(operand)
        self.family = _family(operand, items, types)
        # a list, or what the optimizer may make one of several items (a regular expression)
        self.is_list = isinstance(node, (exp.In, *_PATTERN_LISTS))


def _as_list(x: exp.Expression, types: Mapping[str, object] | None) -> _Member | None:
    """``x`` as a list on a column, if the optimizer may make it one: an IN list, a ``=``
    (``<>`` under NOT, even one a NOT above turns) of a column-free side, ``BETWEEN a AND a``
    and ``x >= a AND x <= a`` (an ``=`` there), a LIKE (NOT LIKE under NOT) of a pattern,
    which it reads as ``=`` without wildcards, a regular expression, which it may read as a
    list."""
    if inside_unknown_part(x):
        return None
    if isinstance(x, (exp.Between, exp.And)):
        point = _point(x)
        return None if point is None else _Member(x, [point[1]], False, types, point[0])
    if isinstance(x, exp.In):
        plain = x.expressions and not any(x.args.get(k) for k in ("query", "unnest", "field"))
        return _Member(x, list(x.expressions), False, types) if plain and x.find(
            exp.Column) else None
    free = [s for s in (x.this, x.expression) if s.find(exp.Column) is None]
    like = isinstance(x, (exp.Like, exp.ILike))
    if len(free) != 1 or (like and _wildcards(free[0])):
        return None
    member = _Member(x, free, bool(x.args.get("negate")) if like else isinstance(x, exp.NEQ),
                     types)
    if like or member.is_list:  # an item never shared nor surely apart: not its value
        member.items = [exp.Anonymous(this="pattern", expressions=[free[0].copy()])]
    if member.negated and not member.is_list and not any(
            isinstance(a, exp.Not) for a in _ancestors(member.top)):
        return None  # <> is no list, unless a NOT above turns it into an =
    return member


def _point(x: exp.Between | exp.And) -> tuple[exp.Expression, exp.Expression] | None:
    """(operand, value) of ``e BETWEEN a AND a`` or ``e >= a AND e <= a`` (either side
    flipped), which its simplifier makes ``e = a``; None otherwise."""
    if isinstance(x, exp.Between):
        low, high = x.args.get("low"), x.args.get("high")
        if low is None or high is None or low.find(exp.Column) is not None or \
                low.sql() != high.sql():
            return None
        return x.this, low
    bounds = []
    for side in (x.this.unnest(), x.expression.unnest()):
        if not isinstance(side, (exp.GTE, exp.LTE)):
            return None
        operand, value = side.this, side.expression
        above = isinstance(side, exp.GTE)
        if operand.find(exp.Column) is None:
            operand, value, above = value, operand, not above
        if value.find(exp.Column) is not None:
            return None
        bounds.append((operand.sql(), value.sql(), above, operand, value))
    (o1, v1, a1, operand, value), (o2, v2, a2, _, _) = bounds
    return (operand, value) if o1 == o2 and v1 == v2 and a1 != a2 else None


# Regular expressions its simplifier may rewrite into lists (``x ~ '^(a|b)$'``).
_PATTERN_LISTS = (exp.RegexpLike, exp.RegexpILike, exp.SimilarTo)


def _names(x: exp.Expression) -> set[str]:
    """The columns in ``x`` as the engine may resolve them, each name part lower-cased: ``x``,
    ``"x"`` and ``t.x`` share ``x``; ``st.a`` and ``st['a']`` share ``st``, to be safe."""
    return {part.lower() for c in x.find_all(exp.Column)
            for part in (c.name, c.table, c.db, c.catalog) if part}


def _wildcards(pattern: exp.Expression) -> bool:
    """Whether a LIKE pattern has a wildcard or an escape: no ``=`` to the optimizer."""
    return isinstance(pattern, exp.Literal) and pattern.is_string and any(
        c in pattern.this for c in "%_\\")


def _sharing_columns(members: list[_Member]) -> list[list[_Member]]:
    """The members grouped so that any two the optimizer may take for lists on one
    expression are in one group: sharing a column, their operands alike (``_operand_key``).
    """
    groups: list[list[_Member]] = []
    for m in members:
        joined = [g for g in groups if any(_may_meet(m, other) for other in g)]
        for g in joined:
            groups.remove(g)
        groups.append([m] + [other for g in joined for other in g])
    return groups


def _may_meet(a: _Member, b: _Member) -> bool:
    ka, kb = a.key, b.key
    if (ka is not None and kb is not None and ka != kb) or None not in (
            a.family, b.family) and a.family != b.family:
        return False
    constants = all(k is not None and k.startswith("constant ") for k in (ka, kb))
    return bool(a.columns & b.columns) or constants  # (1 IN (x, 2) beside 1 IN (y, 3))


def _identity_of(x: exp.Expression, types: Mapping[str, object] | None) -> exp.Column | None:
    """The column of ``x * 1``, ``1 * x`` or ``x / 1`` of an integer or float column, which
    the optimizer's simplifier makes the column (or its cast to BIGINT, the same values,
    which it moves onto whole numbers beside it); None for anything else."""
    x = x.unnest()
    if not isinstance(x, (exp.Mul, exp.Div)):
        return None
    for column, one in ((x.this, x.expression), (x.expression, x.this)):
        column, one = column.unnest(), one.unnest()
        if isinstance(column, exp.Column) and isinstance(one, exp.Literal) and (
                not one.is_string and one.this == "1") and (
                kind_of(column, types) in INTEGER_KINDS or kind_of(column, types) in (
                    "float", "double")):
            return column
        if isinstance(x, exp.Div):
            return None  # (1 / x is no identity)
    return None


def _operand_key(x: exp.Expression) -> str | None:
    """An operand as the optimizer may rewrite it: casts dropped (it drops those it need not
    make, and moves others to the literals; ``_family`` tells those it keeps), ``x * 1``,
    ``x + 0`` and such to ``x``; None where a constant part may fold to such a 0 or 1 (any
    operand it may equal then)."""
    while isinstance(x, (exp.Paren, exp.Cast, exp.TryCast)):
        x = x.this
    if isinstance(x, exp.Column):
        return x.name.lower()
    if x.find(exp.Column) is None:
        return f"constant {_constant_key(x)}"
    if isinstance(x, exp.Neg):
        inner = _operand_key(x.this)
        return None if inner is None or inner.startswith("-") else f"-{inner}"
    if isinstance(x, (exp.Add, exp.Sub, exp.Mul, exp.Div)):
        sides = [x.this, x.expression]
        free = [side for side in sides if side.find(exp.Column) is None]
        if len(free) == 1:
            key = _constant_key(free[0])
            if not _is_number(key) or decimal.Decimal(key) in (0, 1):
                return None  # x + 0, x * 1, or a constant that may fold to one
        keys = [_operand_key(side) if side.find(exp.Column) else _constant_key(side)
                for side in sides]
        if None in keys:
            return None
        if isinstance(x, (exp.Add, exp.Mul)):
            keys.sort()  # (either order, to be safe)
        return f"{type(x).__name__}({keys[0]}, {keys[1]})"
    return None  # a function, CASE...: the optimizer may make it the column (coalesce(x))


_FLOAT_KINDS = ("float", "double", "halffloat")  # Arrow's floats, as kind_of names them
_FLOAT_TYPES = (exp.DataType.Type.FLOAT, exp.DataType.Type.DOUBLE)
_DATE_TYPES = (exp.DataType.Type.DATE, exp.DataType.Type.DATE32)
_TIMESTAMP_TYPES = tuple(t for t in exp.DataType.TEMPORAL_TYPES if "TIMESTAMP" in t.value
                         or "DATETIME" in t.value)


def _family(operand: exp.Expression, items: list[exp.Expression],
            types: Mapping[str, object] | None) -> str | None:
    """The type ("float", "decimal", "date", "timestamp" or "other") in which the optimizer
    holds an operand of a column beside these items, once the engine casts it to their type
    (a signed integer column beside 1.5 is ``CAST(x AS DOUBLE)``, a DATE one beside a
    TIMESTAMP a TIMESTAMP); None where unknown (a DECIMAL beside a DOUBLE: maybe the column
    again). Two operands of one column in two types are two expressions to it, never merged:
    it keeps a cast between a float and another type (it moves none to a float literal) and
    between a DATE and a TIMESTAMP (a day is no instant), but moves a cast of NULL items to
    them."""
    operand = operand.unnest()
    known = [i for i in items if not isinstance(i.unnest(), exp.Null)]
    if isinstance(operand, (exp.Cast, exp.TryCast)):
        column = operand.this.unnest()
        own = _kind_family(kind_of(column, types)) if isinstance(column, exp.Column) else None
        to = _type_family(operand.to)
        kept = own is not None and ("float" in (own, to) or {own, to} == {"date", "timestamp"})
        return to if kept and own != to and known else None
    if not isinstance(operand, exp.Column):
        return None
    kind = kind_of(operand, types)
    own = _kind_family(kind)
    theirs = {_item_family(i) for i in known}
    if own is None or None in theirs:
        return None
    if own == "decimal" or kind == "uint64" or "decimal" in theirs:
        # compared in a DECIMAL beside a DOUBLE or a DECIMAL, which it may move back onto
        # the column (q IN (1.5) is q = 1.50) or not (CAST(q AS DECIMAL(30, 15)))
        return None if theirs & {"float", "decimal"} else own
    if own == "other" and "float" in theirs:
        return "float"
    return "timestamp" if own == "date" and "timestamp" in theirs else own


def _kind_family(kind: str | None) -> str | None:
    if not kind:
        return None
    if kind in _FLOAT_KINDS:
        return "float"
    if DECIMAL.fullmatch(kind):
        return "decimal"
    return next((f for f in ("date", "timestamp") if kind.startswith(f)), "other")


def _type_family(to: exp.DataType) -> str:
    return ("float" if to.is_type(*_FLOAT_TYPES) else "date" if to.is_type(*_DATE_TYPES)
            else "timestamp" if to.is_type(*_TIMESTAMP_TYPES)
            else "decimal" if to.is_type(exp.DataType.Type.DECIMAL) else "other")


def _item_family(item: exp.Expression) -> str | None:
    """A literal item's type family as the engine reads it (1.5, 1e3 and a whole number
    beyond BIGINT are DOUBLEs); None for anything else."""
    bare = item.unnest()
    while isinstance(bare, exp.Neg):
        bare = bare.this.unnest()
    if isinstance(bare, exp.Cast):
        return _type_family(bare.to) if isinstance(bare.this.unnest(), exp.Literal) else None
    if not isinstance(bare, exp.Literal):
        return None
    if bare.is_string:
        return "other"
    return _number_family(bare.this)


def _number_family(number: str) -> str | None:
    if any(c in number for c in ".eE"):
        return "float"
    try:
        magnitude = abs(decimal.Decimal(number))
    except decimal.InvalidOperation:
        return None
    # (beyond BIGINT an unsigned BIGINT, a DECIMAL or a DOUBLE there)
    return "other" if magnitude < 2 ** 63 else None


def _may_be_float(item: exp.Expression) -> bool:
    """Whether a constant item may be a DOUBLE (a float literal in it, or a cast to one),
    so that an integer or DECIMAL column beside it is compared as a DOUBLE."""
    return any(_number_family(v.this) != "other" for v in item.find_all(exp.Literal)
               if not v.is_string) or any(
        c.to.is_type(*_FLOAT_TYPES) for c in item.find_all(exp.Cast))


def _is_number(text: str) -> bool:
    try:
        return decimal.Decimal(text).is_finite()
    except decimal.InvalidOperation:
        return False


def _constant_key(x: exp.Expression) -> str:
    """A constant by its value where it is a number (2 and 2.0 may fold to one DOUBLE)."""
    bare = x.unnest()
    while isinstance(bare, (exp.Cast, exp.TryCast, exp.Paren)):
        bare = bare.this
    value = _value(bare)
    return f"{value[1].normalize()}" if value and value[0] == "number" else x.sql()


def _merges_exactly(group: list[_Member], types: Mapping[str, object] | None) -> bool:
    if len(group) == 2 and group[0].negated != group[1].negated:
        top = _joint(*group)
        if isinstance(top, exp.Or) and _nots_above(top) == 0:
            return True  # IN and NOT IN under OR, no NOT to push in: kept apart, never merged
    if len(group) == 2 and not all(m.is_list for m in group):
        # an equality joins a list only as a union, under OR: NULL and all; two equalities
        # make a list of two, which its simplifier writes as equalities again (no set, so
        # a zero stays a zero of either sign)
        zeros = not any(m.is_list for m in group)
        return all(_plain_items(m, types, null=True, zeros=zeros) for m in group)
    if all(_monotone(m) for m in group):
        # An intersection of IN lists drops a NULL item where a row is FALSE or NULL anyway;
        # NOT IN lists meet in an intersection only where the first op above both is an OR
        # (its optimizer takes out what ORed ANDs share: (y AND x NOT IN (1)) OR (y AND x
        # NOT IN (2)) is y AND (x NOT IN (1) OR x NOT IN (2)) there). A union of NOT IN
        # lists keeps a NULL item; only an IN list beside one under AND (IN minus NOT IN)
        # or an intersection drops it.
        negated = [m for m in group if m.negated and m.is_list]
        meeting = [m for m in negated if any(
            isinstance(_first_above_both(m, other), exp.Or) for other in negated
            if other is not m)]
        unions = len(negated) == len(group)
        return all(_plain_items(m, types, null=m not in negated or (
            unions and m not in meeting)) for m in group) and (
            len(meeting) < 2 or bool(set.intersection(*(_texts(m) for m in meeting))))
    if len(group) != 2:
        return False
    a, b = group
    top = _joint(a, b)
    nots = _nots_above(top) if top is not None else None
    if nots is not None:
        return _pair_keeps_rows(a, b, isinstance(top, exp.And), nots, types)
    if not all(_plain_items(m, types) for m in group):
        return False
    if top is not None:
        op_and = isinstance(top, exp.And)
        merged = _merge_keeps_an_item(a, b, op_and, a.negated, b.negated, types)
        if merged is None:  # kept apart; NOT above may turn them into a merge
            merged = _merge_keeps_an_item(a, b, not op_and, not a.negated, not b.negated,
                                          types) is not False
        return merged
    return bool(_texts(a) & _texts(b)) and _has_own_item(a, b, types) and _has_own_item(
        b, a, types)


def _joint(a: _Member, b: _Member) -> exp.And | exp.Or | None:
    """The AND or OR that joins ``a`` and ``b`` as its two sides, counting a chain of one op
    as one (``(a OR c) OR b``); None where they stand apart."""
    if not isinstance(a.top, (exp.And, exp.Or)):
        return None
    chain, node, op = set(), a.top, type(a.top)
    while isinstance(node, (exp.Paren, op)):
        chain.add(id(node))
        node = node.parent
    node = b.top
    while isinstance(node, (exp.Paren, op)):
        if id(node) in chain and isinstance(node, op):
            return node
        node = node.parent
    return None


def _first_above_both(a: _Member, b: _Member) -> exp.Expression | None:
    above = {id(n) for n in _ancestors(a.top)}
    return next((n for n in _ancestors(b.top) if id(n) in above), None)


def _ancestors(node: exp.Expression | None):
    while node is not None:
        yield node
        node = node.parent


def _nots_above(node: exp.Expression) -> int | None:
    """The NOTs above ``node`` where only AND, OR and NOT do; None where anything else does
    (a NULL there is not as good as FALSE)."""
    count = 0
    for above in _ancestors(node.parent):
        if isinstance(above, exp.Not):
            count += 1
        elif not isinstance(above, (exp.And, exp.Or, exp.Paren)):
            return None
    return count


def _pair_keeps_rows(a: _Member, b: _Member, op_and: bool, nots: int,
                     types: Mapping[str, object] | None) -> bool:
    """Whether two lists joined by one AND or OR (``op_and``) under ``nots`` NOTs and only
    AND and OR pass the same rows merged. A merge turns only NULLs into a constant: a NULL
    item dropped, or an empty merge folded, where ``x`` is NULL too. FALSE is as good as
    NULL where an even count of NOTs stands above; TRUE where an odd count does. The merge
    may be made as written, or after a NOT above is pushed in (De Morgan's twin)."""
    ways = [(op_and, a.negated, b.negated, nots % 2 == 1)]
    if nots:
        ways.append((not op_and, not a.negated, not b.negated, nots % 2 == 0))
    for op_and, a_negated, b_negated, odd in ways:
        if a_negated != b_negated and not op_and:
            continue  # kept apart
        # A NULL item makes NULL rows that the merge makes TRUE in a NOT IN list, FALSE in an
        # IN list; an empty merge is TRUE of NOT IN lists under OR, FALSE of an IN under AND.
        if not (_plain_items(a, types, null=a_negated == odd)
                and _plain_items(b, types, null=b_negated == odd)):
            return False
        empty_is_wrong = (op_and and not (a_negated and b_negated)) if odd else (
            not op_and and a_negated and b_negated)
        if empty_is_wrong and not _merge_keeps_an_item(a, b, op_and, a_negated, b_negated,
                                                       types):
            return False
    return True


def _merge_keeps_an_item(a: _Member, b: _Member, op_and: bool, a_negated: bool,
                         b_negated: bool, types: Mapping[str, object] | None) -> bool | None:
    """Whether the merge of ``a`` and ``b`` under AND (``op_and``) or OR with these
    negations leaves an item; None where they are kept apart."""
    if a_negated == b_negated:
        if op_and != a_negated:  # an intersection
            return bool(_texts(a) & _texts(b))
        return True  # a union
    if not op_and:
        return None
    positive, negated = (b, a) if a_negated else (a, b)
    return _has_own_item(positive, negated, types)


def _monotone(m: _Member) -> bool:
    """Whether only AND and OR lie above the list (and NOTs around it): no NOT the
    optimizer pushes in later."""
    return isinstance(m.top, (exp.And, exp.Or)) and _nots_above(m.top) == 0


def _plain_items(m: _Member, types: Mapping[str, object] | None, *,
                 null: bool = False, zeros: bool = False) -> bool:
    """Literals the optimizer compares as values: no NULL (unless ``null``), no expression,
    no zero against anything but an integer or DECIMAL column, and no DOUBLE's -0.0 there
    (a float's -0.0 is another item of its sets, not of its ``=``; ``zeros`` where no set
    is made)."""
    for item in m.items:
        if _value(item) is None and not _is_pattern(item) and not (
                null and isinstance(item.unnest(), exp.Null)):
            return False
        if is_zero(item) and not zeros and (not _exact_column(m, types)
                                            or _negative_double_zero(item)):
            return False
    return True


def _float_zero(m: _Member, types: Mapping[str, object] | None) -> bool:
    """Whether ``m`` may hold a zero its operand compares as a float: a zero, or an
    expression the optimizer may fold to one, against an operand that may be a float; a
    DOUBLE's -0.0 against any other (which the engine casts to a DOUBLE, never -0.0)."""
    operand = m.operand.unnest()  # (x * 1 of an integer column: the column, to the optimizer)
    kind = kind_of(operand, types) if isinstance(operand, (exp.Column, exp.Cast)) else None
    if (kind or "float") not in _FLOAT_KINDS:
        return any(map(_negative_double_zero, m.items))
    return any(is_zero(item) or (_value(item) is None and not _is_pattern(item)
                                 and not isinstance(item.unnest(), exp.Null))
               for item in m.items)


def _negative_double_zero(item: exp.Expression) -> bool:
    """Whether a constant item may be the DOUBLE -0.0, which a set holding it tells from the
    0.0 an integer or DECIMAL column cast to a DOUBLE gives (a literal zero written negative,
    or arithmetic with a DOUBLE in it, which the optimizer folds)."""
    if item.find(exp.Column) is not None or isinstance(item.unnest(), exp.Null) or \
            _is_pattern(item) or not _may_be_float(item):
        return False
    return "-" in _item_zero_signs(item) if _value(item) is not None else True


def _exact_column(m: _Member, types: Mapping[str, object] | None) -> bool:
    operand = _operand(m.node)
    kind = (kind_of(operand, types) or "") if isinstance(operand, exp.Column) else ""
    return kind in INTEGER_KINDS or DECIMAL.fullmatch(kind) is not None


def _is_pattern(item: exp.Expression) -> bool:
    return isinstance(item, exp.Anonymous) and item.name == "pattern"


def _value(item: exp.Expression) -> tuple[str, object] | None:
    """A literal item (a number cast to a float too) as ``("number", Decimal)``, ``("string",
    text)`` or ``("temporal", whole seconds or SQL)`` (``DATE '2020-01-01'``, which its
    optimizer folds to a value before it merges); None otherwise."""
    bare = item.unnest()
    if isinstance(bare, exp.Literal) and bare.is_string:
        return "string", bare.this
    if isinstance(bare, exp.Cast) and isinstance(bare.this, exp.Literal) and bare.this.is_string \
            and bare.to.is_type(*_DATE_TYPES, *_TIMESTAMP_TYPES):
        seconds = _whole_seconds(bare.this.this, bare.to.is_type(*_DATE_TYPES))
        return "temporal", bare.sql() if seconds is None else seconds
    if isinstance(bare, exp.Cast) and (bare.to.is_type(*_FLOAT_TYPES) or (
            bare.to.is_type(*exp.DataType.INTEGER_TYPES)
            and _number_family(bare.this.unnest().sql().lstrip("-")) == "other")):
        bare = bare.this  # a number cast to a float (its value, rounded where compared), a
        # whole number to an integer type (its value, or a failed query)
    elif isinstance(bare, exp.Cast) and bare.to.is_type(*exp.DataType.INTEGER_TYPES):
        value = number_value(bare.this)  # a fraction: folded toward zero before any merge
        if value is None or not value.is_finite() or abs(value) >= 2**63:
            return None
        return "number", value.to_integral_value(decimal.ROUND_DOWN)
    elif isinstance(bare, exp.Cast) and bare.to.is_type(exp.DataType.Type.DECIMAL):
        value = number_value(bare.this)  # a number the DECIMAL holds as it is: that value
        params = [q.this for q in bare.to.expressions]
        if value is None or not value.is_finite() or len(params) != 2 or not all(
                isinstance(q, exp.Literal) for q in params):
            return None
        p, s = int(params[0].this), int(params[1].this)
        with decimal.localcontext() as ctx:
            ctx.prec = 200  # (a 38-digit DECIMAL's places)
            exact = s <= 38 and value == value.quantize(decimal.Decimal(1).scaleb(-s))
        return ("number", value) if exact and abs(value) < decimal.Decimal(10) ** (p - s) \
            else None
    value = number_value(bare)
    return None if value is None else ("number", value)


def _whole_seconds(text: str, date: bool) -> int | None:
    """A DATE (``date``: its midnight, a time of day dropped as the engine drops it) or a
    TIMESTAMP without a zone as whole seconds from 1970, truncated toward zero as a column of
    seconds truncates it: two apart here are apart in any unit; None where the text is not
    one."""
    try:
        moment = datetime.datetime.fromisoformat(text.strip())
    except ValueError:
        return None
    if moment.tzinfo is not None:
        return None
    if date:
        moment = datetime.datetime(moment.year, moment.month, moment.day)
    since = moment - datetime.datetime(1970, 1, 1)
    micros = (since.days * 86_400 + since.seconds) * 1_000_000 + since.microseconds
    return micros // 1_000_000 if micros >= 0 else -(-micros // 1_000_000)


def _texts(m: _Member) -> set[str]:
    """The items as written: two alike are one value wherever the optimizer merges."""
    return {item.unnest().sql() for item in m.items if not _is_pattern(item)}


def _has_own_item(a: _Member, b: _Member, types: Mapping[str, object] | None) -> bool:
    """Whether ``a`` holds an item that is surely none of ``b``'s in any type the engine
    compares them in: numbers apart as DECIMALs, DOUBLEs and FLOATs, strings that differ
    against a string column. ``b``'s NULL items are none: a merge drops them."""
    strings = all(_string_column(m, types) for m in (a, b))
    return any(all(_apart(x, y, strings) for y in b.items
                   if not isinstance(y.unnest(), exp.Null)) for x in a.items)


def _string_column(m: _Member, types: Mapping[str, object] | None) -> bool:
    operand = _operand(m.node)
    return isinstance(operand, exp.Column) and (kind_of(operand, types) or "") in (
        "string", "large_string", "string_view")


def _apart(x: exp.Expression, y: exp.Expression, strings: bool) -> bool:
    vx, vy = _value(x), _value(y)
    if vx is None or vy is None or vx[0] != vy[0]:
        return False
    if vx[0] == "string":
        return strings and vx[1] != vy[1]
    if vx[0] == "temporal":
        return isinstance(vx[1], int) and isinstance(vy[1], int) and vx[1] != vy[1]
    return vx[1] != vy[1] and all(_rounded(vx[1], f) != _rounded(vy[1], f) for f in "df")


def _rounded(v: decimal.Decimal, form: str) -> float:
    try:
        return struct.unpack(form, struct.pack(form, float(v)))[0]
    except (OverflowError, struct.error):
        return float("inf") if v > 0 else float("-inf")


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


# Why a predicate holding ``c = v`` and ``v = c`` may return no row (``both_ways``).
BOTH_WAYS = "(its optimizer may take c = v and v = c on one column for two values)"

_ABOVE = {exp.GT: True, exp.GTE: True, exp.LT: False, exp.LTE: False}
_EQUALITIES = (exp.EQ, exp.NEQ, exp.NullSafeEQ, exp.NullSafeNEQ, exp.Like, exp.ILike,
               *_PATTERN_LISTS)


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
    or ``>`` where another bound is beside it), whatever the type, wherever it stands.

    >>> import sqlglot
    >>> [x.sql() for x in both_ways(sqlglot.parse_one("f IN (5, 6) AND (5 = f OR y > 1)"))]
    ['f IN (5, 6)', '5 = f']
    >>> both_ways(sqlglot.parse_one("f = 5 AND f IN (5) AND 1 < f"))
    []
    >>> [x.sql() for x in both_ways(sqlglot.parse_one("NOT (f < 5 OR 5 < f)"))]
    ['f < 5', '5 < f']
    >>> both_ways(sqlglot.parse_one("5 = i AND i = 5"), {"i": "int64"})
    []
    """
    found = _comparisons(tree, types)
    return [a.node for a in found if any(_beside(a, b) and (a.left or b.left) for b in found)]


class _Comparison(NamedTuple):
    """A comparison of one operand holding a column with constants (``_compared``)."""
    node: exp.Expression
    operand: exp.Expression
    left: bool  # its constant stays on the left there
    key: str | None  # the operand as the optimizer may rewrite it (``_operand_key``)
    way: str  # "=", "range", "above" or "below"


def _comparisons(tree: exp.Expression,
                 types: Mapping[str, object] | None = None) -> list[_Comparison]:
    """Each comparison in ``tree`` the optimizer may weigh with another: all but a ``<`` or
    ``>`` without another beside it (``c >= 5 AND c <= 5.0`` is ``c = 5``; of ``c > 5 AND c
    >= 5.0`` it keeps one)."""
    found = [_Comparison(x, c[0], c[1], _operand_key(c[0]), c[2]) for x in tree.find_all(
        exp.In, exp.Between, *_EQUALITIES, *_ABOVE) if (c := _compared(x, types)) is not None]
    return [a for a in found if a.way in ("=", "range") or any(
        _beside(a, b) and b.way != "=" for b in found)]


def _beside(a: _Comparison, b: _Comparison) -> bool:
    """Whether two comparisons are two, and the optimizer may take their operands for one (a
    key of None: any operand of a column they share; ``x / 1`` may be ``x``, never ``y``)."""
    return a.node is not b.node and (a.key == b.key if None not in (a.key, b.key) else
                                     bool(_names(a.operand) & _names(b.operand)))


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
    found = {id(c.node): c for c in _comparisons(x.root(), types)}
    mine = found.get(id(x))
    if mine is None or not mine.left or mine.way == "range":
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
        if any(not _apart(value, c, False) and not (dates and _dates_apart(value, c))
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
        return operand.to.is_type(*_DATE_TYPES)
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
        if isinstance(c, exp.Cast) and c.to.is_type(*_DATE_TYPES):
            c = c.this  # (the DATE literal, as sqlglot writes it)
        if not (isinstance(c, exp.Literal) and c.is_string and _ISO_DATE.fullmatch(c.this)):
            return False
        days.append(_whole_seconds(c.this, True))
    return None not in days and days[0] != days[1]


def _negations_above(x: exp.Expression) -> int:
    return sum(isinstance(a, exp.Not) for a in _ancestors(x.parent))


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
                _null(b) for b in bounds)):
            return None  # (x BETWEEN NULL AND 5 is never TRUE, and no bound: NULL AND x <= 5)
        way = "=" if isinstance(x, exp.In) and not _preimage(x.this) else "range"
        held = [b for b in bounds if b.find(exp.Column) is not None]
        if x.this.find(exp.Column) is not None:
            return None if held else (x.this, False, way)
        return (held[0], True, way) if held else None  # (5 IN (f), 5 BETWEEN f AND f)
    left, right = (x.this.find(exp.Column) is not None), (x.expression.find(exp.Column)
                                                           is not None)
    if left == right or _null(x.expression if left else x.this):
        return None  # (c = NULL is NULL, NULL IS NOT DISTINCT FROM c is c IS NULL)
    operand = x.this if left else x.expression
    way = "=" if isinstance(x, _EQUALITIES) else "above" if _ABOVE[type(x)] == left else "below"
    if _preimage(operand):
        way = "range"
    return operand, right and not _kept_in_place(x.this, operand, types), way


def _null(constant: exp.Expression) -> bool:
    """Whether ``constant`` is NULL, maybe cast (its simplifier folds a comparison with it)."""
    constant = constant.unnest()
    while isinstance(constant, exp.Cast):
        constant = constant.this.unnest()
    return isinstance(constant, exp.Null)


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


def _operand(x: exp.Expression) -> exp.Expression:
    if isinstance(x, exp.In) or x.this.find(exp.Column):
        return x.this
    return x.expression


def _zero_signs(x: exp.Expression, operand: exp.Expression,
                types: Mapping[str, object] | None) -> set[str]:
    """The signs ``+ -`` a zero ``x`` compares ``operand`` with may have: against a float, or
    as a DOUBLE against any other column."""
    floats = not isinstance(operand, exp.Column) or (kind_of(operand, types) or "float") in \
        _FLOAT_KINDS
    signs: set[str] = set()
    for item in _constants(x):
        if floats or _may_be_float(item):
            signs |= _item_zero_signs(item)
    return signs


def _item_zero_signs(item: exp.Expression) -> set[str]:
    bare, negated = item, False
    while isinstance(bare, (exp.Paren, exp.Cast, exp.Neg)):
        negated |= isinstance(bare, exp.Neg)
        bare = bare.this
    if isinstance(bare, exp.Literal):
        if not (_zero_text(bare.this) or is_zero(item)):  # (a FLOAT's too: CAST(1e-50 AS REAL))
            return set()
        return {"+", "-"} if negated or bare.this.lstrip().startswith("-") else {"+"}
    if not isinstance(bare, (exp.Binary, exp.Func)) or isinstance(bare, exp.Cast):
        return set()  # (NULL, a string, TRUE...)
    value = _folded_value(item)
    if value is None or any(abs(v) < 1e-44 for v in value):
        return {"+", "-"}  # arithmetic the optimizer folds, maybe to -0.0 (-(1.0 - 1.0))
    return set()


def _folded_value(x: exp.Expression) -> tuple[decimal.Decimal, float] | None:
    """A constant's value, exactly and as DOUBLE arithmetic gives it (which may underflow to
    0: ``1e-200 * 1e-200``), where it is arithmetic on numbers; None where it is anything
    else (a function, a cast to an integer or DECIMAL, a division by 0)."""
    x = x.unnest()
    if isinstance(x, exp.Cast) and x.to.is_type(*_FLOAT_TYPES):
        return _folded_value(x.this)
    if isinstance(x, exp.Literal) and not x.is_string:
        try:
            return decimal.Decimal(x.this), float(x.this)
        except (decimal.InvalidOperation, ValueError):
            return None
    if isinstance(x, exp.Neg):
        inner = _folded_value(x.this)
        return None if inner is None else (-inner[0], -inner[1])
    if not isinstance(x, (exp.Add, exp.Sub, exp.Mul, exp.Div)):
        return None
    a, b = _folded_value(x.this), _folded_value(x.expression)
    if a is None or b is None or (isinstance(x, exp.Div) and (b[0] == 0 or b[1] == 0)):
        return None
    op = {exp.Add: operator.add, exp.Sub: operator.sub, exp.Mul: operator.mul,
          exp.Div: operator.truediv}[type(x)]
    with decimal.localcontext() as context:
        context.prec = 60
        exact = op(a[0], b[0])
    return exact, op(a[1], b[1])


def _zero_text(text: str) -> bool:
    try:
        return float(text) == 0
    except ValueError:
        return False
