"""Conjuncts implied by column equalities: from ``a = b AND b = 5`` also ``a = 5``, so the
bounds of ``a`` prune too.

>>> import pyarrow as pa
>>> a, c = (b.BColumn(k, pa.int64(), pa.int64(), "int") for k in "ac")
>>> with_implied_equalities(b.BAnd((b.ColCmp(a, "eq", c), b.Bound(c, "ge", 5)))).args[-1]
Bound(col=a, op='ge', value=5)
"""

from __future__ import annotations

import dataclasses

from . import bound as b

# Leaves that compare one column with constants; an equal column satisfies the same leaf.
_COLUMN_LEAVES = (b.Bound, b.InRange, b.InList, b.Prefix, b.NanEq, b.IsNanLeaf)


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
    >>> both = b.BAnd((b.ColCmp(a, "eq", c), b.InRange(c, 5, 5)))
    >>> with_implied_equalities(b.BNot(both)) == b.BNot(both)  # under NOT: left alone
    True
    """
    spine = (b.BAnd, b.BOr)
    stack, seen_eq = [root], False
    while stack and not seen_eq:  # cheap check first: most predicates compare no columns
        x = stack.pop()
        if isinstance(x, spine):
            stack.extend(x.args)
        seen_eq = isinstance(x, b.ColCmp) and x.op == "eq"
    if not seen_eq:
        return root
    done: dict[int, object] = {}
    work: list[tuple[object, bool]] = [(root, False)]
    while work:  # post-order without recursion: chains may be 10,000 deep
        x, expanded = work.pop()
        if not isinstance(x, spine):
            done[id(x)] = x
        elif not expanded:
            work.append((x, True))
            work.extend((a, False) for a in x.args)
        else:
            args = tuple(done[id(a)] for a in x.args)
            done[id(x)] = (b.BAnd(args + _implied_by_equalities(args))
                           if isinstance(x, b.BAnd) else b.BOr(args))
    return done[id(root)]


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
        if isinstance(x, b.ColCmp) and x.op == "eq" and x.a != x.b and not x.a.convert and \
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
        if isinstance(x, _COLUMN_LEAVES) and x.col in group:
            for other in members[root(x.col)]:
                if other != x.col:
                    implied.append(dataclasses.replace(x, col=other))
    return tuple(implied)
