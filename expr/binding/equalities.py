"""Conjuncts implied by column equalities: from ``a = b AND b = 5`` also ``a = 5``, so the
bounds of ``a`` prune too; and by a column's value sets: from ``a IN (1, 2) AND a IN (2, 3)``
also ``a = 2``, which its bounds may rule out where neither list alone is.

>>> import pyarrow as pa
>>> a, c = (b.BColumn(k, pa.int64(), pa.int64(), "int") for k in "ac")
>>> with_implied_equalities(b.BAnd((b.BColumnCompare(a, "eq", c), b.BCompare(c, "ge", 5)))).args[-1]
BCompare(col=a, op='ge', value=5)
"""

from __future__ import annotations

import dataclasses

from prunekit.expr.binding import bound as b


class _HoldsForEqualColumn(b.LeafVisitor[bool]):
    """Whether the leaf, moved onto a column equal to its own, holds there too: so for the
    leaves that compare one column with constants."""

    def _yes(self, leaf: b.BLeaf) -> bool:
        return True

    def _no(self, leaf: b.BLeaf) -> bool:
        return False

    visit_compare = visit_in_range = visit_in_list = visit_prefix = _yes
    visit_nan_eq = visit_is_nan = _yes
    # Not carried (an implied conjunct only narrows, so leaving one out is always sound):
    # constants and unknowns, tests of NULL, column pairs, and LIKE patterns.
    visit_const = visit_opaque = visit_non_null = visit_is_null = _no
    visit_column_compare = visit_pattern = _no


_TRANSFERS = _HoldsForEqualColumn()


def with_implied_equalities(root: object) -> object:
    """``root`` with conjuncts implied by column equalities added to every AND reached from
    the root through AND and OR only: from ``a = b AND b = 5`` also
    ``a = 5``, so the bounds of ``a`` prune too.

    An implied conjunct keeps the rows that make its AND TRUE, but can turn a NULL row FALSE
    (``a = 7``, ``b`` NULL: ``a = b AND b = 5`` is NULL, ``a = 5`` is FALSE). Through AND and
    OR that changes no outcome: NONE_MATCH depends on TRUE rows only, and ALL_MATCH needs every
    row TRUE. Under NOT it would turn a NULL into TRUE, so negated positions are left alone.

    >>> import pyarrow as pa
    >>> a, c = (b.BColumn(k, pa.int64(), pa.int64(), "int") for k in "ac")
    >>> both = b.BAnd((b.BColumnCompare(a, "eq", c), b.BInRange(c, 5, 5)))
    >>> with_implied_equalities(b.BNot(both)) == b.BNot(both)  # under NOT: left alone
    True
    """
    spine = (b.BAnd, b.BOr)
    stack, seen_eq, value_sets = [root], False, 0
    while stack and not seen_eq and value_sets < 2:  # cheap check first: most predicates
        x = _through_double_not(stack.pop())  # compare no columns, and list no values twice
        if isinstance(x, spine):
            stack.extend(x.args)
        seen_eq = isinstance(x, b.BColumnCompare) and x.op == "eq"
        value_sets += _value_set(x) is not None
    if not seen_eq and value_sets < 2:
        return root
    return b.visit(root, _WithImplied())


class _WithImplied(b.EveryLeafAlike[object]):
    """Each node with the implied conjuncts added along the AND/OR spine below it; a node off
    the spine (under NOT, IS, a rewrite) is itself, whatever was found inside it."""

    def visit_leaf(self, leaf: b.BLeaf) -> object:
        return leaf

    def _itself(self, node: b.BCombinator, results: list) -> object:
        return node

    visit_not = visit_is_bool = visit_widen = visit_either = visit_rewritten = _itself

    def visit_and(self, node: b.BAnd, results: list) -> object:
        args = tuple(results)
        return b.BAnd(args + _implied_by_equalities(args) + _implied_by_value_sets(args))

    def visit_or(self, node: b.BOr, results: list) -> object:
        return b.BOr(tuple(results))


def _implied_by_equalities(args: tuple) -> tuple:
    """The conjuncts the column equalities among ``args`` imply for the other leaves; only
    between columns of one type and kernel domain, with no conversion, so that each literal
    keeps its placement."""
    group: dict[b.BColumn, b.BColumn] = {}  # union-find over equal columns

    def root(c: b.BColumn) -> b.BColumn:
        while group.get(c, c) != c:
            c = group[c]
        return c

    for x in args:
        if isinstance(x, b.BColumnCompare) and x.op == "eq" and x.a != x.b and not x.a.convert and \
                not x.b.convert and x.a.type == x.b.type and x.a.domain == x.b.domain:
            group.setdefault(x.a, x.a)
            group.setdefault(x.b, x.b)
            group[root(x.a)] = root(x.b)
    if not group:
        return ()
    members: dict[b.BColumn, list[b.BColumn]] = {}
    for c in group:
        members.setdefault(root(c), []).append(c)
    implied = []
    for x in args:
        if isinstance(x, b.BLeaf) and b.visit(x, _TRANSFERS) and x.col in group:
            for other in members[root(x.col)]:
                if other != x.col:
                    implied.append(dataclasses.replace(x, col=other))
    return tuple(implied)


def _through_double_not(x: object) -> object:
    """``x`` without pairs of NOT around it (NOT NOT p is p, NULL included)."""
    while isinstance(x, b.BNot) and isinstance(x.arg, b.BNot):
        x = x.arg.arg
    return x


def _value_set(x: object) -> tuple | None:
    """(column, the values it may take for ``x`` to be TRUE) of ``col IN (...)`` or ``col =
    c``; None for any other node."""
    x = _through_double_not(x)
    if isinstance(x, b.BInList) and not x.nan:
        return x.col, frozenset(x.values)
    if isinstance(x, b.BInRange) and x.first == x.last and x.first == x.first:
        return x.col, frozenset((x.first,))
    return None


def _implied_by_value_sets(args: tuple) -> tuple:
    """Where two or more of ``args`` list the values one column may take, ``col IN`` the
    values they share (NaN left out: a list with NaN lists nothing here).

    >>> import pyarrow as pa
    >>> a = b.BColumn("a", pa.int64(), pa.int64(), "int")
    >>> _implied_by_value_sets((b.BInList(a, (1, 2), False, True), b.BInRange(a, 2, 2)))
    (BInList(col=a, values=(2,), nan=False, null=False),)
    """
    sets: dict[b.BColumn, list[frozenset]] = {}
    for x in args:
        found = _value_set(x)
        if found is not None:
            sets.setdefault(found[0], []).append(found[1])
    implied = []
    for col, found in sets.items():
        if len(found) > 1:
            shared = frozenset.intersection(*found)
            implied.append(b.BInList(col, tuple(sorted(shared)), False, False) if shared
                           else b.BNonNull(col, False))
    return tuple(implied)
