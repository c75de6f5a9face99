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
merges are proven to keep the rows. How its optimizer weighs other comparisons on one column
together is ``column_terms``.
"""

from __future__ import annotations

import datetime
import decimal
import itertools
import struct
from collections import Counter
from collections.abc import Mapping

from sqlglot import exp

from prunekit.expr.spark_types.arrow_casts import common_type, decimal_units
from prunekit.expr.syntax.engine_operands import (
    DECIMAL,
    INTEGER_KINDS,
    inside_unknown_part,
    is_zero,
    kind_of,
)
from prunekit.expr.syntax.optimizer_terms import (
    FLOAT_KINDS,
    FLOAT_TYPES,
    PATTERN_LISTS,
    ancestors,
    apart,
    branches,
    column_names,
    is_null_constant,
    kept_cast,
    kind_family,
    may_be_float,
    may_fold,
    number_family,
    operand_key,
    type_family,
    value_of,
    zero_signs_of,
)

# The mark (in a sqlglot node's ``meta``) of an equality a rewrite writes (the ``x = 0`` that
# ``split_zero_items`` writes beside a list): prunekit's, not one the engine's optimizer sees.
OWN_EQUALITY = "prunekit_own_equality"


# The marks of an IN list every merge of which keeps its rows, and of one a merge may change
# (``mark_exact_merges``).
MERGES_EXACTLY = "prunekit_merges_exactly"

MAY_MERGE = "prunekit_may_merge"

# The mark of an IN list with no list, equality or pattern on its columns beside it: nothing
# its optimizer may merge it with.
ALONE = "prunekit_alone"


# MAY_MERGE's value for a list or ``=`` whose merges change rows of values too: a float's
# zero (its sets tell -0.0 from 0), an item that is an expression (compared as such: x IN
# (y, 1) AND x IN (2) is FALSE there)
_INEXACT = "inexact"


# The mark of a MAY_MERGE list or equality no merge of which can leave a list without an
# item (``_never_emptied``): NULL where its operand is, merged or not (no empty merge folds
# to a constant).
NULL_KEPT = "prunekit_null_kept"


# The mark of a MAY_MERGE list or equality whose operand is NULL with one column and only
# then (``_null_column``): its value is that column, where the merge is NULL or its constant
# (``merged_at_null``).
NULL_SIDE = "prunekit_null_side"


# The mark of such a list or equality whose merges keep the rows of every value of the
# column but NULL (``_values_only``): True, or NULL_ITEMS_OPTIONAL.
EXACT_BUT_NULL = "prunekit_exact_but_null"

# The mark of an EXACT_BUT_NULL list or equality whose merges keep those rows but where its
# operand (the mark's value) is a zero: a float's zero in a set, told from -0.0 there.
BUT_AT_ZERO = "prunekit_but_at_zero"

# Its value for a list with NULL items whose merges keep the rows of every value of the
# column but NULL as written or without those items (``_values_only`` with ``nulls``).
NULL_ITEMS_OPTIONAL = "but its NULL items may be dropped"


# The mark of a MAY_MERGE list or equality that no NOT stands above and none negates: every
# merge of it keeps at most its rows as written (an AND's intersection or difference leaves
# fewer; an OR's union is the OR's own rows), so it is read as written AND an unknown leaf.
# Its value AT_LEAST_WRITTEN marks an IN list (or ``=``) that only NOTs around it negate,
# in a group of literal items no two negated members of which meet under an OR: each merge
# of it, IN minus NOT IN under AND, a union of NOT IN lists, or none, passes only values in
# none of its items but NULL (a merge drops its NULL items), so the list is read as written
# without NULL items OR an unknown leaf, under those NOTs.
AT_MOST_WRITTEN = "prunekit_at_most_written"

AT_LEAST_WRITTEN = "at least as written without NULL"


# The mark of an AT_MOST_WRITTEN IN list that lies within an AND (once NOTs are pushed in) one
# of whose conjuncts is a NOT IN list on its operand, in its type: that list's items but
# NULL, which a row the AND passes holds none of (the NOT IN is FALSE there), merged
# (DataFusion's IN minus NOT IN) or not. ``without_values`` drops them from the list.
NONE_OF = "prunekit_none_of"


# The mark of an IN list with the type DataFusion compares it in, as ``engine_lists.common_kind``
# names it (``("decimal", 38, 15)``), set before ``mark_exact_merges`` (``_family``).
COMPARED_IN = "prunekit_compared_in"


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
            is_zero(i) or value_of(i) is None for i in x.expressions
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
    columns = column_names(x.this)
    return not columns or any(
        other is not x and columns & column_names(other)
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
        exp.In, exp.EQ, exp.NEQ, exp.Like, exp.ILike, *PATTERN_LISTS, exp.Between, exp.And))
        if m is not None]
    for group in _sharing_columns(members, types):
        if len(group) < 2 or _merges_exactly(group, types):  # (alone: nothing to merge with)
            for m in group:
                if isinstance(m.node, exp.In):
                    m.node.meta[MERGES_EXACTLY] = True
                    m.node.meta[ALONE] = len(group) < 2
            continue
        # Under AND and OR alone a merge is TRUE only of NOT IN lists; under NOT an equality
        # may be part of what folds to a constant too. A float's zero, merged into a set, no
        # longer holds for -0.0 (f = 0.0 OR f IN (1.5, 2, 3)), wherever it stands
        # (equalities alone make a set of four items or more: fewer stay equalities).
        monotone = all(_monotone(m) for m in group)
        sets = any(m.is_list for m in group) or sum(
            len(m.items) for m in group) > 3
        by_columns = [any(i.find(exp.Column) is not None for i in m.items) for m in group]
        inexact = [(sets and _float_zero(m, types)) or c
                   for m, c in zip(group, by_columns, strict=True)]
        column = _null_column(group)
        never_emptied, null_apart = _never_emptied(group, types)
        # (a float's zero in a set parts from SQL's rows only where the operand is a zero)
        values = column is not None and not any(by_columns) and _values_only(group, null_apart)
        polarities = [_polarity(m) for m in group]
        negations = [m for m, negated in zip(group, polarities, strict=True)
                     if negated is not False]
        # (an intersection of NOT IN lists, under OR once NOTs are pushed in, may fold to TRUE,
        # NULL rows and all)
        apart = None not in polarities and not any(
            _meet_under_or(a, b) for k, a in enumerate(negations) for b in negations[k + 1:])
        for m, m_inexact, negated in zip(group, inexact, polarities, strict=True):
            if m.is_list or not monotone or m_inexact:
                m.node.meta[MAY_MERGE] = _INEXACT if m_inexact else True
                # (under a NOT the optimizer may merge before it pushes the NOT in, folding
                # an empty merge to a constant the NOT turns: only NOTs around the list)
                m.node.meta[AT_MOST_WRITTEN] = _monotone(m) and (not m.negated or (
                    apart and not any(inexact) and isinstance(m.node, (exp.In, exp.EQ))
                    and any(not isinstance(i.unnest(), exp.Null) for i in m.items)
                    and AT_LEAST_WRITTEN))
                if m.node.meta[AT_MOST_WRITTEN] is True and _negates_itself(m.node):
                    # ``NOT (f <> 0.0)``: at most the ``=`` a NOT makes of it is at least the
                    # ``<>`` as written (its merge into a set may make the <> TRUE of -0.0)
                    m.node.meta[AT_MOST_WRITTEN] = AT_LEAST_WRITTEN
                if m.node.meta[AT_MOST_WRITTEN] is True and negated is False and isinstance(
                        m.node, exp.In):
                    excluded = [i.copy() for b, b_negated in zip(group, polarities, strict=True)
                                if b_negated and _excludes(b, m, types) for i in b.items
                                if not isinstance(i.unnest(), exp.Null)]
                    if excluded:
                        m.node.meta[NONE_OF] = excluded
                if id(m) in never_emptied or _unions_only(group):
                    m.node.meta[NULL_KEPT] = True
                if column is not None:
                    m.node.meta[NULL_SIDE] = column.copy()
                    m.node.meta[EXACT_BUT_NULL] = values and (NULL_ITEMS_OPTIONAL if any(
                        isinstance(i.unnest(), exp.Null) for i in m.items) else True)
                    if values and m_inexact:  # (one without a zero item is FALSE at a
                        # zero, as is every merge of it with a list: the others' zeros are
                        # their own unknowns)
                        m.node.meta[BUT_AT_ZERO] = m.operand.copy()


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
    if isinstance(node, (exp.In, exp.EQ, exp.Between, exp.And, *PATTERN_LISTS)) or (
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


def _values_only(group: list[_Member], nulls: bool = False) -> bool:
    """Whether a merge of ``group`` changes which rows pass only where its operand is NULL:
    the members share one operand, and every item of theirs is a value (a literal, a cast of
    one: no NULL, no expression, no float's zero, which are asked before) or a pattern. A
    merge changes rows by a NULL item it drops and by a constant it folds an empty merge to,
    which is the members' own answer for every value but NULL (``x IN ()`` is FALSE where
    ``x IN (1) AND x IN (2)`` is, ``x NOT IN ()`` TRUE where ``x NOT IN (1) OR x NOT IN
    (2)`` is). With ``nulls``, NULL items too: a merge keeps a list's NULL items or drops
    them, so each list passes the rows it passes as written or without its NULL items (the
    caller asks that no merge keeps the NULL of an IN list minus a NOT IN list).

    >>> import sqlglot
    >>> _values_only([_as_list(x, {}) for x in sqlglot.parse_one(
    ...     "NOT (x IN (1) AND CAST(x AS INT) = 2)").find_all(exp.In, exp.EQ)])
    True
    >>> _values_only([_as_list(sqlglot.parse_one("x IN (2, NULL)"), {})])
    False
    """
    def a_value(item: exp.Expression) -> bool:
        if isinstance(item.unnest(), exp.Null):
            return nulls
        # (an item it cannot fold to a value may equal any value, or none)
        return item.find(exp.Null) is None and (value_of(item) is not None or _is_pattern(item))

    return not any(m.key is None or m.key != group[0].key for m in group) and all(
        a_value(i) for m in group for i in m.items)


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


def _never_emptied(group: list[_Member], types: Mapping[str, object] | None
                   ) -> tuple[set[int], bool]:
    """The members of ``group`` (by ``id``) no merge of which can leave a list without an
    item, however the optimizer pairs them: each is then NULL wherever its operand is,
    merged or not (a list that keeps an item is NULL there; only an empty one folds to a
    constant). And whether no merge is an IN list holding NULL minus a NOT IN list: that
    one keeps the NULL, and is NULL, not FALSE, for a value of the NOT IN list.

    Any two lists whose operands may be one expression (``_may_meet``) may be merged, and
    the lists merged from them again, by the first AND or OR above them all, as written or
    with the NOTs above pushed in (IN minus NOT IN under AND is kept apart under OR, its De
    Morgan twin), and by either op, either sign, where something else stands between. Each
    list made so is followed by the items it surely keeps: an intersection the items
    written alike in both, a union both's, IN minus NOT IN the IN list's items surely apart
    from every item the NOT IN list may hold. A list made of two members or more that surely
    keeps none may fold. (Pulling a conjunct common to every branch of an OR out of it,
    which the optimizer does, makes no other merge: each branch holds a copy, which meets
    the rest of its branch by the same op.)

    >>> import sqlglot
    >>> def kept(text):
    ...     group = [_as_list(x, {}) for x in sqlglot.parse_one(text).find_all(exp.In, exp.EQ)]
    ...     ids, null_apart = _never_emptied(group, {})
    ...     return sorted(m.node.sql() for m in group if id(m) in ids), null_apart
    >>> kept("NOT (x = 1 OR x = 2) AND (x IN (3, NULL) OR y)")  # unions, and (3) minus them
    (['x = 1', 'x = 2', 'x IN (3, NULL)'], False)
    >>> kept("(x IN (1, 2) AND z) OR x NOT IN (5)")  # kept apart: IN beside NOT IN under OR
    (['x IN (1, 2)', 'x IN (5)'], True)
    >>> kept("x IN (1, 2) AND x IN (2, 3) AND x IN (1, 3)")  # each pair shares, not all three
    ([], True)
    """
    by_id = {id(m): m for m in group}
    # (members, the node above them, negated there, sure item texts): (every item it may
    # hold but NULL, whether it may hold NULL)
    lists: dict[tuple, tuple] = {}
    for m in group:
        items = tuple(i for i in m.items if not isinstance(i.unnest(), exp.Null))
        sure = frozenset(i.unnest().sql() for i in items if value_of(i) is not None)
        lists[(frozenset([id(m)]), m.top, m.negated, sure)] = (items, len(items) < len(m.items))
    folding: set[int] = set()
    null_apart = True
    done: set[tuple] = set()
    while True:
        pairs = [(x, y) for x in lists for y in lists if (id(x), id(y)) not in done]
        if not pairs:
            return {k for k in by_id if k not in folding}, null_apart
        for x, y in pairs:
            done.add((id(x), id(y)))
            if x[0] & y[0] or not all(
                    _may_meet(by_id[a], by_id[b]) for a in x[0] for b in y[0]) or _kept_apart(
                    [by_id[k] for k in x[0]], [by_id[k] for k in y[0]], group):
                continue
            for key, held, kept_null in _merges(x, lists[x], y, lists[y], by_id, types):
                if not key[3]:
                    folding |= key[0]
                null_apart &= not kept_null
                lists.setdefault(key, held)
            if len(lists) > _MOST_LISTS:
                return set(), False


def _kept_apart(xs: list[_Member], ys: list[_Member], group: list[_Member]) -> bool:
    """Whether the optimizer never makes a list of ``xs`` and one of ``ys`` the two sides of
    one AND or OR, which it merges only then (``x IN (1) OR y > 0 OR x IN (2)`` stays): in
    the chain of one op that first holds them all, a branch between theirs that it keeps
    stands between them (a barrier: no list of ``group`` inside, nothing it may fold to a
    constant, and no text another branch repeats, which it may drop as such). Its
    simplifier keeps a chain's order: it pushes NOTs in (an AND chain becomes an OR chain,
    in order), and flattens the top AND in order. But an AND chain that is a branch of an
    OR gives up the terms it shares with the OR's other branch, in that branch's order: so
    no chain is read so that may be an AND under something that may be an OR, as written
    or with some of the NOTs above pushed in.

    >>> import sqlglot
    >>> def apart(text):
    ...     group = [_as_list(x, {}) for x in sqlglot.parse_one(text).find_all(exp.In)]
    ...     return _kept_apart(group[:1], group[1:], group)
    >>> apart("x IN (1) OR x > 0 OR x IN (2)"), apart("x IN (1) OR 1 > 2 OR x IN (2)")
    (True, False)
    >>> apart("(x IN (1) AND y) OR (x IN (2) AND y)")  # y lifted out: IN (1) OR IN (2)
    False
    """
    members = xs + ys
    top = _first_above_all(members)
    if not isinstance(top, (exp.And, exp.Or)):
        return False
    head = top  # the chain's first node
    while type(_above_parens(head)) is type(top):
        head = _above_parens(head)
    # An AND chain under an OR may give up terms out of order. Its simplifier pushes NOTs
    # in (through AND, OR and NOT only) one node at a time, so each op may be either where a
    # NOT stands above it.
    path = list(itertools.takewhile(lambda n: isinstance(n, (exp.Paren, exp.Not, exp.And,
                                                             exp.Or)), ancestors(head.parent)))
    for k, node in enumerate(path):
        if isinstance(node, (exp.And, exp.Or)) and (
                isinstance(top, exp.And) or any(isinstance(n, exp.Not) for n in path[:k])) and (
                isinstance(node, exp.Or) or any(isinstance(n, exp.Not) for n in path[k:])):
            return False
    chain = branches(head)
    texts = [b.sql() for b in chain]
    inside = {id(n): k for k, b in enumerate(chain) for n in b.walk()}
    # (a member ``x >= a AND x <= a`` of an AND chain is two of its branches: held, both)
    held = {id(n) for m in group for n in m.node.walk()}
    barriers = [not any(id(n) in held for n in b.walk()) and not may_fold(b) and all(
        t != texts[k] and texts[k] not in t for j, t in enumerate(texts) if j != k)
        for k, b in enumerate(chain)]
    # (each barrier starts a new stretch of branches; lists in one stretch may meet)
    stretch = [sum(barriers[:k + 1]) for k in range(len(chain))]

    def branch(m: _Member) -> int:
        node = m.node
        while id(node) not in inside:  # (a point in the chain: its first bound's branch)
            node = node.this
        return inside[id(node)]

    return not ({stretch[branch(m)] for m in xs} & {stretch[branch(m)] for m in ys})


def _above_parens(node: exp.Expression) -> exp.Expression | None:
    up = node.parent
    while isinstance(up, exp.Paren):
        up = up.parent
    return up


# How many merged lists ``_never_emptied`` follows before it gives up (a group of a few
# members makes a few dozen).
_MOST_LISTS = 200


def _merges(x: tuple, x_held: tuple, y: tuple, y_held: tuple, by_id: dict,
            types: Mapping[str, object] | None):
    """Each merge the optimizer may make of two lists ((members, the node above them,
    negated there, sure items), (all items but NULL, may hold NULL)): the same for the list
    it makes, which stands at the first node above both, and whether it is IN minus NOT IN
    that keeps a NULL item of the IN list."""
    members = [by_id[k] for k in x[0] | y[0]]
    top = _first_above_all(members)
    strings = all(_string_column(m, types) for m in members)
    x_signs, y_signs = _signs_at(x[1], x[2], top), _signs_at(y[1], y[2], top)
    ops = [isinstance(top, exp.And)] if isinstance(top, (exp.And, exp.Or)) else [True, False]
    pushes = (False, True) if any(isinstance(n, exp.Not) for n in ancestors(top)) else (False,)
    (x_all, x_null), (y_all, y_null) = x_held, y_held
    for op_and, pushed, x_negated, y_negated in itertools.product(
            ops, pushes, x_signs, y_signs):
        op_and, x_negated, y_negated = op_and != pushed, x_negated != pushed, y_negated != pushed
        kept_null = False
        if x_negated == y_negated:
            if op_and != x_negated:  # IN lists under AND, NOT IN lists under OR
                sure, held = x[3] & y[3], (x_all, x_null and y_null)
            else:
                sure, held = x[3] | y[3], (x_all + y_all, x_null or y_null)
            negated = x_negated
        elif op_and:  # IN minus NOT IN
            (kept, (every, null)), dropped = ((x[3], x_held), y_all) if not x_negated else (
                (y[3], y_held), x_all)
            sure = frozenset(t for t in kept if all(apart(
                next(i for i in every if i.unnest().sql() == t), j, strings)
                for j in dropped))
            held, negated, kept_null = (every, null), False, null
        else:
            continue  # kept apart
        yield (x[0] | y[0], top, negated != pushed, sure), held, kept_null


def _signs_at(at: exp.Expression | None, negated: bool, top: exp.Expression | None
              ) -> tuple[bool, ...]:
    """Whether a list standing under ``at``, negated there, is negated under ``top`` above it:
    the NOTs between turn it; both where anything but AND, OR and NOT stands between."""
    for node in ancestors(at):
        if node is top:
            return (negated,)
        if isinstance(node, exp.Not):
            negated = not negated
        elif not isinstance(node, (exp.And, exp.Or, exp.Paren)):
            return (False, True)
    return (False, True)


def _first_above_all(members: list[_Member]) -> exp.Expression | None:
    """The first node above the holders of all ``members``."""
    common = None
    for m in members:
        above = {id(n) for n in ancestors(m.top)}
        common = above if common is None else common & above
    return next((n for n in ancestors(members[0].top) if id(n) in common), None)


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
        self.columns = column_names(node)  # (its items' too: x IN (x, 1) is on x)
        operand = _operand(node) if operand is None else operand
        operand = _identity_of(operand, types) or operand
        self.operand = operand
        self.key = operand_key(operand)
        self.family = _family(operand, items, types, node.meta.get(COMPARED_IN))
        # a list, or what the optimizer may make one of several items (a regular expression)
        self.is_list = isinstance(node, (exp.In, *PATTERN_LISTS))


def _as_list(x: exp.Expression, types: Mapping[str, object] | None) -> _Member | None:
    """``x`` as a list on a column, if the optimizer may make it one: an IN list, a ``=``
    (``<>`` under NOT, even one a NOT above turns) of a column-free side, ``BETWEEN a AND a``
    (but under an odd count of NOTs, which its simplifier pushes in first, making it ``x < a
    OR x > a``) and ``x >= a AND x <= a`` (an ``=`` there), a LIKE (NOT LIKE under NOT) of a
    pattern,
    which it reads as ``=`` without wildcards, a regular expression, which it may read as a
    list."""
    if inside_unknown_part(x):
        return None
    if isinstance(x, exp.Between) and sum(isinstance(a, exp.Not) for a in ancestors(x)) % 2:
        return None  # (with a NOT pushed in, x < a OR x > a there: no <>)
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
    if isinstance(x, (exp.EQ, exp.NEQ)) and is_null_constant(free[0]):
        return None  # (its simplifier folds x = NULL to NULL before it merges: checked on its
        # plans, NOT (x IN (1) AND x = NULL) is x <> 1 OR NULL there)
    member = _Member(x, free, bool(x.args.get("negate")) if like else isinstance(x, exp.NEQ),
                     types)
    if like or member.is_list:  # an item never shared nor surely apart: not its value
        member.items = [exp.Anonymous(this="pattern", expressions=[free[0].copy()])]
    if member.negated and not member.is_list and not any(
            isinstance(a, exp.Not) for a in ancestors(member.top)):
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


def _wildcards(pattern: exp.Expression) -> bool:
    """Whether a LIKE pattern has a wildcard or an escape: no ``=`` to the optimizer."""
    return isinstance(pattern, exp.Literal) and pattern.is_string and any(
        c in pattern.this for c in "%_\\")


def _sharing_columns(members: list[_Member], types: Mapping[str, object] | None = None
                     ) -> list[list[_Member]]:
    """The members grouped so that any two the optimizer may take for lists on one
    expression are in one group: sharing a column, their operands alike (``operand_key``).
    """
    groups: list[list[_Member]] = []
    for m in members:
        joined = [g for g in groups if any(_may_meet(m, other, types) for other in g)]
        for g in joined:
            groups.remove(g)
        groups.append([m] + [other for g in joined for other in g])
    return groups


def _may_meet(a: _Member, b: _Member, types: Mapping[str, object] | None = None) -> bool:
    ka, kb = a.key, b.key
    if (ka is not None and kb is not None and ka != kb) or _families_apart(a.family, b.family):
        return False
    constants = all(k is not None and k.startswith("constant ") for k in (ka, kb))
    if not (a.columns & b.columns or constants):  # (1 IN (x, 2) beside 1 IN (y, 3))
        return False
    return not (_walled_off(a, b, types) or _walled_off(b, a, types))


_BOUNDS = (exp.LT, exp.LTE, exp.GT, exp.GTE)
_BOUND_TEXTS = "prunekit_bound_texts"  # a predicate's bounds, as written, counted


def _walled_off(a: _Member, b: _Member, types: Mapping[str, object] | None) -> bool:
    """Whether ``a`` never becomes a side of the AND or OR above both (so the two never
    merge): on its way up stands a chain of the other op (NOTs pushed in: ``(f < 4.25 AND
    f NOT IN (4.5)) OR f NOT IN (2)``, ``x NOT IN (1) OR (y > 0 AND x NOT IN (2))``) holding
    a bound its optimizer keeps there (``_kept_bound``), which no rewrite of it drops or
    lifts out of the chain. (Where its simplifier writes a short list as equalities and lifts
    one that every branch holds out of an OR, that one is an item of a list beside, which
    meets what that list meets.)

    >>> import sqlglot
    >>> tree = sqlglot.parse_one("(f < 4.25 AND f NOT IN (4.5)) OR f NOT IN (2)")
    >>> b, a = [_Member(x, list(x.expressions), True, {"f": "double"})
    ...         for x in tree.find_all(exp.In)]
    >>> _walled_off(a, b, {"f": "double"}), _walled_off(b, a, {"f": "double"})
    (True, False)
    """
    top = _first_above_both(a, b)
    if not isinstance(top, (exp.And, exp.Or)):
        return False
    path, node = [], a.node  # from ``a`` up to the node below ``top``
    while node is not None and node is not top:
        path.append(node)
        node = node.parent
    if node is None:
        return False
    for k, chain in enumerate(path[1:], start=1):
        if not isinstance(chain, (exp.And, exp.Or)):
            continue
        nots = sum(isinstance(n, exp.Not) for n in path[k + 1:])
        if isinstance(chain, type(top)) != (nots % 2 == 1):
            continue  # (the same op as the one above both, NOTs pushed in: one chain)
        # the chain's terms but the one holding ``a`` (``path[k - 1]``, or in a chain of
        # this op below, which holds no bound that walls ``a`` in here)
        others = [c for c in branches(chain) if c is not path[k - 1]]
        if any(_kept_bound(c, others, types) for c in others):
            return True
    return False


def _within(number: exp.Expression, kind: str | None) -> bool:
    """Whether ``number`` is a whole number (maybe negated) an integer column of ``kind``
    holds: compared with the column in its own type there, never folded."""
    bare, sign = number.unnest(), 1
    while isinstance(bare, exp.Neg):
        bare, sign = bare.this.unnest(), -sign
    if kind not in INTEGER_KINDS or not isinstance(bare, exp.Literal) or not bare.this.isdigit():
        return False
    bits = int(kind.lstrip("uint"))
    low, high = (0, 2**bits - 1) if kind.startswith("u") else (-(2**(bits - 1)),
                                                                2**(bits - 1) - 1)
    return low <= sign * int(bare.this) <= high


def _kept_bound(term: exp.Expression, others: list, types: Mapping[str, object] | None) -> bool:
    """A bound of a float column by a number (``f < 4.25``, under NOTs too), or of an integer
    column by a whole number it holds (``y > 0``), written once in the predicate (no rewrite
    lifts or drops a term it shares with another branch), and no other bound on its column in
    ``others`` by a number that may be its own as a DOUBLE (``x >= a AND x <= a`` would be
    an ``=``; of two bounds one way, its simplifier keeps one): its optimizer keeps a bound
    there, never a constant, never a list."""
    parts = _bound_parts(term, types)
    if parts is None:
        return False
    bare, name, number = parts
    root = term.root()
    texts = root.meta.get(_BOUND_TEXTS)
    if texts is None:  # (once per predicate: this is asked of every pair of members)
        texts = root.meta[_BOUND_TEXTS] = Counter(x.sql() for x in root.find_all(*_BOUNDS))
    if texts[bare.sql()] != 1:
        return False
    for other in others:
        for x in other.find_all(*_BOUNDS):
            theirs = _bound_parts(x, types)
            if x is not bare and column_names(x) & name and (
                    theirs is None or not _doubles_apart(number, theirs[2])):
                return False
    return True


def _doubles_apart(a: exp.Expression, b: exp.Expression) -> bool:
    """Whether two numbers are two DOUBLEs (as DataFusion compares a float column with them,
    and an integer column with whole numbers it holds, exactly below 2**53)."""
    va, vb = value_of(a), value_of(b)
    return va is not None and vb is not None and va[0] == vb[0] == "number" and float(
        va[1]) != float(vb[1])


def _bound_parts(term: exp.Expression, types: Mapping[str, object] | None) -> tuple | None:
    """(the bound, its column's names, its number) of a bound of a float
    column by a number or of an integer column by a whole number it holds (maybe under
    NOTs); None for anything else."""
    bare = term.unnest()
    while isinstance(bare, exp.Not):
        bare = bare.this.unnest()
    if not isinstance(bare, _BOUNDS):
        return None
    sides = [bare.this.unnest(), bare.expression.unnest()]
    columns = [x for x in sides if isinstance(x, exp.Column)]
    numbers = [x for x in sides if isinstance(x, (exp.Literal, exp.Neg))
               and x.find(exp.Column) is None and not x.find(exp.Literal).is_string]
    kind = kind_of(columns[0], types) if len(columns) == 1 else None
    if len(numbers) != 1 or not (kind in FLOAT_KINDS or _within(numbers[0], kind)):
        return None
    return bare, column_names(columns[0]), numbers[0]


def _families_apart(a: str | None, b: str | None) -> bool:
    """Whether two families are two types (None: any; "decimal cast", a DECIMAL of places not
    worked out here: any "decimal cast to ...")."""
    if a is None or b is None or a == b:
        return False
    return not ({a, b} & {_SOME_DECIMAL_CAST} and all(
        f.startswith(_SOME_DECIMAL_CAST) for f in (a, b)))


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


def _family(operand: exp.Expression, items: list[exp.Expression],
            types: Mapping[str, object] | None, compared: object = None) -> str | None:
    """The type ("float", "decimal", "date", "timestamp", "timestamp of a date" or "other") in
    which the optimizer holds an operand of a column beside these items, once the engine casts
    it to their type (a signed integer column beside 1.5 is ``CAST(x AS DOUBLE)``, a DATE one
    beside a TIMESTAMP a TIMESTAMP); None where unknown (a DECIMAL beside a DOUBLE: maybe the
    column again). Two operands of one column in two types are two expressions to it, never
    merged: it keeps a cast between a float and another type (it moves none to a float literal)
    and between a DATE and a TIMESTAMP (a day is no instant), but moves a cast of NULL items to
    them."""
    operand = operand.unnest()
    known = [i for i in items if not isinstance(i.unnest(), exp.Null)]
    typed = _decimal_whole_family(operand, known, types, compared)
    if typed is not None:
        return typed
    if isinstance(operand, (exp.Cast, exp.TryCast)):
        column = operand.this.unnest()
        own = kind_family(kind_of(column, types)) if isinstance(column, exp.Column) else None
        to = type_family(operand.to)
        kept = kept_cast(own, to)
        if kept and to == "date" and any(_item_family(i) == "timestamp" for i in known):
            # a day beside an instant: the day cast to a TIMESTAMP again, a midnight, which
            # is neither the column nor its day
            return "timestamp of a date"
        if known and own is not None and to != "float" and compared in ("double", "float"):
            # compared in a float: the cast cast again to it, which stays (CAST(d AS BIGINT)
            # IN (0.5, 1) is CAST(CAST(d AS Int64) AS Float64) IN (...) there, never d)
            return "float"
        return to if kept and known else None
    if not isinstance(operand, exp.Column):
        return None
    kind = kind_of(operand, types)
    own = kind_family(kind)
    theirs = {_item_family(i) for i in known}
    if own is None:
        return None
    if None in theirs:
        return _numbers_family(kind, known)
    if own == "decimal" and theirs & {"float", "decimal"}:
        return _decimal_list_family(kind, known)
    if own == "decimal" or kind == "uint64" or "decimal" in theirs:
        # compared in a DECIMAL beside a DOUBLE or a DECIMAL, which it may move back onto
        # the column (q IN (1.5) is q = 1.50) or not (CAST(q AS DECIMAL(30, 15)))
        return None if theirs & {"float", "decimal"} else own
    if own == "other" and "float" in theirs:
        return "float"
    return "timestamp" if own == "date" and "timestamp" in theirs else own


_SOME_DECIMAL_CAST = "decimal cast"


def _decimal_whole_family(operand: exp.Expression, known: list[exp.Expression],
                          types: Mapping[str, object] | None, compared: object) -> str | None:
    """The family of an IN list on a DECIMAL(p, s) column (or its negation) whose items are
    whole numbers, maybe cast to DECIMALs, compared in the DECIMAL ``compared``
    (``COMPARED_IN``): "decimal" where that is the column's own type or every item fits it
    exactly (its simplifier then moves the cast onto the items), else the cast, which stays
    (``CAST(-q AS DECIMAL(38, 15)) IN (23, 2147483648)`` and ``CAST(-q AS DECIMAL(20, 0)) IN
    (...)`` are two expressions to it, checked on its plans); None for anything else.

    >>> import sqlglot
    >>> items = sqlglot.parse_one("q IN (23, 2147483648)").expressions
    >>> types = {"q": "decimal128(5, 0)"}
    >>> _decimal_whole_family(sqlglot.parse_one("-q"), items, types, ("decimal", 20, 0))
    'decimal cast to DECIMAL(20, 0)'
    >>> _decimal_whole_family(sqlglot.parse_one("q"), items[:1], types, ("decimal", 20, 0))
    'decimal'
    """
    column = operand
    while isinstance(column, exp.Neg):
        column = column.this.unnest()
    kind = kind_of(column, types) if isinstance(column, exp.Column) else None
    own = DECIMAL.fullmatch(kind or "")
    if own is None or not (isinstance(compared, tuple) and compared[0] == "decimal"):
        return None
    p, s = (int(g) for g in own.groups())
    values = []
    for item in known:
        inner = item.unnest()
        if isinstance(inner, exp.Cast) and inner.to.is_type(exp.DataType.Type.DECIMAL):
            inner = inner.this.unnest()
        literal, sign = _signed_literal(inner)
        if literal is None or not literal.this.isdigit():
            return None  # (a fraction or an exponent: a DOUBLE first, rounded by the cast)
        value = sign * int(literal.this)
        if abs(value) >= 2**63 and p - s > 18:
            return None  # (read otherwise by the engine, and maybe within the column)
        values.append(value)
    if compared[1:] == (p, s) or all(abs(v) * 10**s < 10**p for v in values):
        return "decimal"
    return f"{_SOME_DECIMAL_CAST} to DECIMAL({compared[1]}, {compared[2]})"


def _signed_literal(item: exp.Expression) -> tuple[exp.Literal | None, int]:
    """A number literal under its minus signs, and their sign; (None, 1) for anything else."""
    bare, sign = item.unnest(), 1
    while isinstance(bare, exp.Neg):
        bare, sign = bare.this.unnest(), -sign
    if not isinstance(bare, exp.Literal) or bare.is_string:
        return None, 1
    return bare, sign


def _decimal_list_family(kind: str, items: list[exp.Expression]) -> str | None:
    """The family of a DECIMAL(p, s) column's list of numbers with a DOUBLE among them (a
    fraction, an exponent), which DataFusion compares in a DECIMAL of max(s, 15) places:
    "decimal" where every item is on the column's grid (its optimizer moves that cast back
    onto the items: ``q IN (0.5, 0.1)`` is ``q = 0.5000 OR q = 0.1000`` there), "decimal
    cast" where one is off it (the cast stays, another expression: ``CAST(q AS
    DECIMAL(30, 15)) IN (0.5, 0.06115)`` never merges with a list on ``q``); None for any
    other item, or a scale beyond 15.

    >>> import sqlglot
    >>> [_decimal_list_family("decimal128(18, 4)", sqlglot.parse_one(t).expressions)
    ...  for t in ("q IN (0.5, 0.1, 7)", "q IN (0.5, -0.06115)", "q IN (0.5, q)")]
    ['decimal', 'decimal cast', None]
    """
    p, s = (int(g) for g in DECIMAL.fullmatch(kind).groups())
    if s > 15:
        return None
    off_grid = False
    for item in items:
        bare, sign = _signed_literal(item)
        if bare is None:
            return None
        text = bare.this.lower()
        if "." in text or "e" in text:  # a DOUBLE, cast to 15 places as Arrow casts it
            units = decimal_units(sign * float(text), 15)
            if units is None:
                return None
            off_grid |= units % 10**(15 - s) != 0 or abs(units) >= 10**(p + 15 - s)
        elif abs(int(text)) >= 2**63:
            return None  # (an unsigned BIGINT or a DOUBLE there)
        else:
            off_grid |= int(text) * 10**s >= 10**p
    return "decimal cast" if off_grid else "decimal"


def _numbers_family(kind: str | None, items: list[exp.Expression]) -> str | None:
    """The family in which an integer or float column meets number items, some of them whole
    numbers beyond BIGINT (an unsigned BIGINT, or a DOUBLE beyond that): their common type
    (a DOUBLE: "float", the column cast; an integer: "other", the column); None for a
    DECIMAL, or for any other item.

    >>> import sqlglot
    >>> items = sqlglot.parse_one("x IN (9223372036854775808, 18446744073709551616, 1)")
    >>> _numbers_family("uint8", items.expressions), _numbers_family("int64", items.expressions)
    ('float', None)
    """
    if kind not in INTEGER_KINDS and kind not in ("float", "double"):
        return None
    found = [kind]
    for item in items:
        bare, sign = _signed_literal(item)
        if bare is None:
            return None
        family = number_family(bare.this)
        if family is not None:
            found.append("double" if family == "float" else "int64")
            continue
        value = sign * int(decimal.Decimal(bare.this))
        if not -(2**63) <= value < 2**64:
            found.append("double")
        elif sign > 0:
            found.append("uint64")
        else:
            return None
    to = common_type(found)
    return "float" if to in ("double", "float") else None if isinstance(to, tuple) else "other"


def _item_family(item: exp.Expression) -> str | None:
    """A literal item's type family as the engine reads it (1.5, 1e3 and a whole number
    beyond BIGINT are DOUBLEs); None for anything else."""
    bare = item.unnest()
    while isinstance(bare, exp.Neg):
        bare = bare.this.unnest()
    if isinstance(bare, exp.Cast):
        inner = bare.this.unnest()
        while isinstance(inner, exp.Neg):  # (CAST(-1 AS REAL))
            inner = inner.this.unnest()
        return type_family(bare.to) if isinstance(inner, exp.Literal) else None
    if not isinstance(bare, exp.Literal):
        return None
    if bare.is_string:
        return "other"
    return number_family(bare.this)


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
    above = {id(n) for n in ancestors(a.top)}
    return next((n for n in ancestors(b.top) if id(n) in above), None)


def _nots_above(node: exp.Expression) -> int | None:
    """The NOTs above ``node`` where only AND, OR and NOT do; None where anything else does
    (a NULL there is not as good as FALSE)."""
    count = 0
    for above in ancestors(node.parent):
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


def _polarity(m: _Member) -> bool | None:
    """Whether the list (or equality) is negated once every NOT above it is pushed in, as
    the optimizer may push them: its own negation (``m.negated``: NOT IN, ``<>``, NOTs around
    it) and an odd count of NOTs above; None where anything but AND, OR and NOT stands above
    (a NULL there is not as good as FALSE).

    >>> import sqlglot
    >>> tree = sqlglot.parse_one("NOT (x NOT IN (1) OR x IN (2))")
    >>> sorted((x.sql(), _polarity(_as_list(x, {}))) for x in tree.find_all(exp.In))
    [('x IN (1)', False), ('x IN (2)', True)]
    """
    negated = m.negated
    for above in ancestors(m.top):
        if isinstance(above, exp.Not):
            negated = not negated
        elif not isinstance(above, (exp.And, exp.Or, exp.Paren)):
            return None
    return negated


def _meet_under_or(a: _Member, b: _Member) -> bool:
    """Whether the first op above both members is an OR once the NOTs above it are pushed in
    (or no AND or OR joins them: True)."""
    top = _first_above_both(a, b)
    if not isinstance(top, (exp.And, exp.Or)):
        return True
    odd = sum(isinstance(n, exp.Not) for n in ancestors(top.parent)) % 2 == 1
    return isinstance(top, exp.Or) != odd


def _excludes(b: _Member, a: _Member, types: Mapping[str, object] | None) -> bool:
    """Whether ``b``, a NOT IN list, is a conjunct of an AND above ``a`` (only ANDs between
    ``b`` and that AND, and an even count of NOTs above it), on ``a``'s operand in ``a``'s
    type (the optimizer's; in DOUBLE only where both operands are DOUBLEs): where its column
    holds one of ``b``'s items but NULL, ``b`` is FALSE, and so is that AND, whatever ``a``
    is, merged with ``b`` or not."""
    if not isinstance(b.node, exp.In) or a.key is None or a.key != b.key or a.family is None \
            or a.family != b.family or not isinstance(b.top, exp.And):
        return False
    if a.family == "float" and not (_in_double(a, types) and _in_double(b, types)):
        return False  # (one in FLOAT, the other in DOUBLE: 0.1 is two values there)
    node = b.top
    above_a = {id(n) for n in ancestors(a.top)}
    while id(node) not in above_a:
        if not isinstance(node.parent, (exp.And, exp.Paren)):
            return False
        node = node.parent
    return isinstance(node, exp.And) and sum(
        isinstance(n, exp.Not) for n in ancestors(node.parent)) % 2 == 0


def _in_double(m: _Member, types: Mapping[str, object] | None) -> bool:
    """Whether the list compares in DOUBLE: its operand is surely a DOUBLE (a DOUBLE column, a
    cast to DOUBLE), or a number column beside an item that is (a fraction or an exponent
    written plainly, a cast to DOUBLE): the engine takes the widest type of them all, and
    nothing is wider than a DOUBLE.

    >>> import sqlglot
    >>> [_in_double(_as_list(sqlglot.parse_one(t), {"x": "int8"}), {"x": "int8"}) for t in (
    ...     "x IN (1, 0.5)", "x IN (1, CAST(0.5 AS REAL))", "CAST(x AS DOUBLE) IN (1)")]
    [True, False, True]
    """
    operand = m.operand.unnest()
    if isinstance(operand, exp.Cast):
        return operand.to.this == exp.DataType.Type.DOUBLE
    kind = kind_of(operand, types) if isinstance(operand, exp.Column) else None
    return kind == "double" or (kind in (*INTEGER_KINDS, *FLOAT_KINDS) and any(
        map(_a_double_item, m.items)))


def _a_double_item(item: exp.Expression) -> bool:
    bare = item.unnest()
    while isinstance(bare, exp.Neg):
        bare = bare.this.unnest()
    if isinstance(bare, exp.Cast):
        return bare.to.this == exp.DataType.Type.DOUBLE and isinstance(
            bare.this.unnest(), exp.Literal)
    return isinstance(bare, exp.Literal) and not bare.is_string and number_family(
        bare.this) == "float"


def without_values(part: exp.Expression) -> exp.Expression:
    """An IN list marked ``NONE_OF`` (a copy) without the items surely equal to one of those
    it is marked with, in the type the engine compares them in (the same number, a float's
    only where that float holds it; the same string, day or instant); FALSE where none is
    left.

    >>> import sqlglot
    >>> x = sqlglot.parse_one("x IN (1, 2.5, 0.1, -0.0)")  # the FLOAT 0.1 is no DOUBLE 0.1
    >>> x.meta[NONE_OF] = [sqlglot.parse_one(t) for t in ("CAST(2.5 AS REAL)",
    ...                                                   "CAST(0.1 AS REAL)", "0.0")]
    >>> without_values(x).sql()
    'x IN (1, 0.1, -0.0)'
    """
    written = part.copy()
    inner = written.unnest()
    excluded = part.unnest().meta.get(NONE_OF)
    if not isinstance(inner, exp.In) or not excluded:
        return written
    kept = [i for i in inner.expressions if not any(_surely_equal(i, e) for e in excluded)]
    if not kept:
        return exp.false()
    inner.set("expressions", kept)
    return written


def _surely_equal(x: exp.Expression, y: exp.Expression) -> bool:
    vx, vy = value_of(x), value_of(y)
    if vx is None or vy is None or vx != vy:
        return False
    if vx[0] == "temporal":  # (value_of's whole seconds tell apart, not alike)
        ix, iy = _instant(x), _instant(y)
        return ix is not None and ix == iy
    if vx[0] != "number":
        return True
    if vx[1] == 0:
        return False  # (a float's sets tell 0 from -0.0 there)
    # a number cast to a float is that float: the same only where it holds the number
    return all(not _float_cast(i) or _exact_in(vx[1], _float_cast(i)) for i in (x, y))


def _instant(x: exp.Expression) -> datetime.datetime | None:
    """A DATE or TIMESTAMP literal's instant, to the microsecond (a day at its midnight);
    None for one with a zone or text it does not read."""
    bare = x.unnest()
    if not (isinstance(bare, exp.Cast) and isinstance(bare.this, exp.Literal)
            and bare.this.is_string):
        return None
    try:
        moment = datetime.datetime.fromisoformat(bare.this.this.strip())
    except ValueError:
        return None
    return moment if moment.tzinfo is None else None


def _float_cast(x: exp.Expression) -> str | None:
    bare = x.unnest()
    while isinstance(bare, exp.Neg):
        bare = bare.this.unnest()
    if isinstance(bare, exp.Cast) and bare.to.is_type(*FLOAT_TYPES):
        return "f" if bare.to.this == exp.DataType.Type.FLOAT else "d"
    return None


def _exact_in(v: object, form: str) -> bool:
    try:
        return decimal.Decimal(struct.unpack(form, struct.pack(form, float(v)))[0]) == v
    except (OverflowError, struct.error, ValueError):
        return False


def _negates_itself(node: exp.Expression) -> bool:
    """A ``<>`` (or a LIKE written negated): a member read as the ``=`` a NOT around it makes,
    whose rows as written are the other way round."""
    return isinstance(node, exp.NEQ) or bool(node.args.get("negate"))


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
        if value_of(item) is None and not _is_pattern(item) and not (
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
    if (kind or "float") not in FLOAT_KINDS:
        return any(map(_negative_double_zero, m.items))
    return any(is_zero(item) or (value_of(item) is None and not _is_pattern(item)
                                 and not isinstance(item.unnest(), exp.Null))
               for item in m.items)


def _negative_double_zero(item: exp.Expression) -> bool:
    """Whether a constant item may be the DOUBLE -0.0, which a set holding it tells from the
    0.0 an integer or DECIMAL column cast to a DOUBLE gives (a literal zero written negative,
    or arithmetic with a DOUBLE in it, which the optimizer folds)."""
    if item.find(exp.Column) is not None or isinstance(item.unnest(), exp.Null) or \
            _is_pattern(item) or not may_be_float(item):
        return False
    return "-" in zero_signs_of(item) if value_of(item) is not None else True


def _exact_column(m: _Member, types: Mapping[str, object] | None) -> bool:
    operand = _operand(m.node)
    kind = (kind_of(operand, types) or "") if isinstance(operand, exp.Column) else ""
    return kind in INTEGER_KINDS or DECIMAL.fullmatch(kind) is not None


def _is_pattern(item: exp.Expression) -> bool:
    return isinstance(item, exp.Anonymous) and item.name == "pattern"


def _texts(m: _Member) -> set[str]:
    """The items as written: two alike are one value wherever the optimizer merges."""
    return {item.unnest().sql() for item in m.items if not _is_pattern(item)}


def _has_own_item(a: _Member, b: _Member, types: Mapping[str, object] | None) -> bool:
    """Whether ``a`` holds an item that is surely none of ``b``'s in any type the engine
    compares them in: numbers apart as DECIMALs, DOUBLEs and FLOATs, strings that differ
    against a string column. ``b``'s NULL items are none: a merge drops them."""
    strings = all(_string_column(m, types) for m in (a, b))
    return any(all(apart(x, y, strings) for y in b.items
                   if not isinstance(y.unnest(), exp.Null)) for x in a.items)


def _string_column(m: _Member, types: Mapping[str, object] | None) -> bool:
    operand = _operand(m.node)
    return isinstance(operand, exp.Column) and (kind_of(operand, types) or "") in (
        "string", "large_string", "string_view")


def _operand(x: exp.Expression) -> exp.Expression:
    if isinstance(x, exp.In) or x.this.find(exp.Column):
        return x.this
    return x.expression
