"""Combinations no row can make TRUE (or FALSE), whatever the statistics: terms on one column
that no value meets together, in each way a node may have a truth.

The lattice (``rewrite.py``) weighs the children of an AND one by one: in a container holding
0.1 and 0.6, ``f IN (0.1, 0.2)`` may be TRUE and so may ``f > 0.5``, so their AND may be TRUE
too, though no value is both. Here each node gets, for each of TRUE and FALSE, the ways a row
may give it that truth (``_Case``): in each, the values each column read twice may hold there,
and the truths other leaves must have. A node with no way left is never of that truth, in any
container. ``rewrite.py`` then takes its bit "may be TRUE" (or "may be FALSE") for false; its
other bits stay as the lattice makes them. The root's TRUE ways also give a predicate TRUE on
every row that makes the root TRUE (``where_true``), whose "may be TRUE" ``rewrite.py`` asks of
each container too.

The values of a column are a union of boxes (``Box``): a range, maybe a finite set of values
it lies among, values it is not, and whether NaN and NULL are in. Per node and truth:

- a leaf on a column read twice: its values (``x > 5``: TRUE on (5, +inf] and NaN, FALSE on
  [-inf, 5]); on integer arithmetic of one (``c * 3 IN (6, 7)``), the column's values that the
  arithmetic takes there (``_through_affine``); a constant is never the truth it is not; any
  other leaf (another column, an unknown part) needs its own truth;
- ``NOT``: the child's ways with TRUE and FALSE swapped;
- ``AND``: TRUE where every child is, so each way of one child met with each of the others',
  column by column (a way whose values meet in none, or that needs a leaf both TRUE and FALSE,
  is dropped); FALSE where some child is, so every way of each; ``OR`` the mirror image; a
  rewrite as its argument; one of several readings (``BEither``) every way of each. Anything
  else may be anything. Beyond ``MAX_CASES`` ways a node keeps one holding all their rows.

Each node's ways hold every row that can give its truth, so having none is a proof. Values compare
as in the rows' order (``docs/semantics.md`` §4): NaN above every number, -0.0 equal to 0.0,
and where Python cannot order two constants the column is left unbounded.

>>> import pyarrow as pa
>>> from prunekit.expr.binding.bind import bind
>>> from prunekit.expr.syntax.sql import parse
>>> bound = bind(parse("f IN (0.1, 0.2) AND f > 0.5"), pa.schema([("f", pa.float64())]))
>>> never_true, never_false = never(bound)
>>> id(bound) in never_true, id(bound) in never_false
(True, False)
>>> never_true[id(bound)]  # why, for explain()
'never TRUE: no value of f makes its terms on f TRUE together'
"""

from __future__ import annotations

import math
from dataclasses import dataclass, replace
from fractions import Fraction
from typing import NamedTuple

import pyarrow as pa

from prunekit.expr.binding import bound as b

MAX_BOXES = 16  # boxes per column and node; beyond, the column is left unbounded there
MAX_CASES = 16  # ways per node and truth; beyond, one way holding all their rows
MAX_GIVEN = 8  # leaves' truths per way that ``where_true`` asks of a container
MAX_NEEDED = 64  # leaves' truths a way keeps: beyond, it keeps the larger set of two it meets
# Values a box excludes, gathered from several terms: beyond this many it keeps the larger
# set alone (fewer exclusions: more values, so still every value that gives the truth). A
# chain of 10,000 ``x <> c`` took a second copying the growing set, level by level.
MAX_BUT = 64
NEVER = None  # the sets of a truth the node never has (no row, no column, no value)


@dataclass(frozen=True)
class Box:
    """Values ``lo``..``hi`` (``None``: unbounded; ``*_in``: the end itself is in), among
    ``only`` if given, not among ``but``; ``nan`` and ``null``: whether NaN and NULL are in."""

    lo: object = None
    lo_in: bool = True
    hi: object = None
    hi_in: bool = True
    only: tuple | frozenset | None = None
    but: frozenset = frozenset()
    nan: bool = False
    null: bool = False


ANY_VALUE = Box(nan=True)  # every non-NULL value (NaN dropped where the domain has none)
NULL_ONLY = Box(only=(), null=True)
NAN_ONLY = Box(only=(), nan=True)


def never(root: b.BPredicate) -> tuple[dict[int, str | None], dict[int, str | None]]:
    """The combinators of ``root`` that are never TRUE, and those never FALSE, on any row (this
    module's rules): by id, why (the column whose terms meet in no value), or None where a
    child is never that truth already."""
    walk = analyse(root)
    return ({}, {}) if walk is None else (walk.never_true, walk.never_false)


def analyse(root: b.BPredicate) -> _Sets | None:
    """The walk over ``root`` (its ``never_true``, ``never_false`` and ``root_true``), or None
    where no column is read twice (most predicates: nothing to weigh together)."""
    twice = _columns_twice(root)
    if not twice:
        return None
    walk = _Sets(twice, _top_terms(root))
    walk.root_true = b.visit(root, walk)[0]
    return walk


def where_true(walk: _Sets | None) -> b.BPredicate | None:
    """A predicate TRUE on every row where the walk's root is (None where it says nothing):
    for each way the root may be TRUE (``_Case``), the values of each column read twice, as
    comparisons, lists, values excluded (``NOT IN``) and ``IS NULL``, and the truths of the
    other leaves that way needs, the ways ORed. A container none of whose rows can make it
    TRUE holds no row making the root TRUE, though the lattice, weighing the root's terms one
    by one, may not see it: in a container of 1e300 and NULL, ``x = 0`` or its NULL, in an
    AND, meet neither row; where ``y`` has no NULL, ``(y IS NULL OR x = 1) AND x > 5`` is
    never TRUE.

    >>> import pyarrow as pa
    >>> from prunekit.expr.binding.bind import bind
    >>> from prunekit.expr.syntax.sql import parse
    >>> schema = pa.schema([("x", pa.int64()), ("y", pa.int64())])
    >>> where_true(analyse(bind(parse("x > 5 AND (x < 3 OR x IS NULL OR x = 9)"), schema)))
    BAnd(args=(BCompare(col=x, op='ge', value=9), BCompare(col=x, op='le', value=9)))
    >>> where_true(analyse(bind(parse("(y IS NULL OR x = 1) AND x > 5"), schema)))
    BAnd(args=(BCompare(col=x, op='gt', value=5), BIsNull(col=y)))
    """
    if walk is None or walk.root_true is NEVER:
        return None
    bounded, alternatives = False, []
    for case in walk.root_true:
        parts = []
        for col, boxes in case.cols.items():
            if any(x.lo is None and x.hi is None and x.only is None and not x.but
                   for x in boxes):
                continue  # (a column bounded nowhere: every row may hold its value)
            try:
                kinds = [a for a in (_box_predicate(col, x) for x in dict.fromkeys(boxes))
                         if a is not None]
            except TypeError:  # (values Python cannot sort together)
                continue
            parts.append(_any_of(kinds) if kinds else b.BConst(False))
        bounded |= bool(parts)
        # the truths of other leaves this way needs, in the tree's order
        needed = sorted(case.given, key=walk.order.__getitem__)
        parts += [walk.leaves[i] if truth else b.BNot(walk.leaves[i])
                  for i, truth in needed[:MAX_GIVEN]]
        if not parts:
            return None  # (a way that may hold on any row)
        alternatives.append(_all_of(parts))
    if not bounded and len(alternatives) == 1:
        return None  # (a column's values nowhere, one way: the lattice's own reading)
    return _any_of(alternatives)


def _box_predicate(col: object, x: Box) -> b.BPredicate | None:
    """TRUE on every row whose value of ``col`` lies in ``x``, a box bounded somewhere or
    excluding values; None where no value does."""
    if x.only is not None:
        listed = tuple(sorted({v for v in x.only if _inside(v, x)}))
        values = [b.BInList(col, listed, nan=False, null=False)] if listed else []
    else:
        values = [b.BCompare(col, op, end) for op, end in (
            ("ge" if x.lo_in else "gt", x.lo), ("le" if x.hi_in else "lt", x.hi))
            if end is not None]
        # the values it excludes within its range (``x NOT IN (0, 1444)``: a container of
        # 1444 and NULL holds no row of it)
        but = tuple(sorted(v for v in x.but if _inside(v, replace(x, but=frozenset()))))
        if but:
            values.append(b.BNot(b.BInList(col, but, nan=False, null=False)))
    kinds = [_all_of(values)] if values else []
    if x.nan and col.domain == "float":
        kinds.append(b.BIsNan(col))
    if x.null:
        kinds.append(b.BIsNull(col))
    return _any_of(kinds) if kinds else None


def _all_of(preds: list) -> b.BPredicate:
    return preds[0] if len(preds) == 1 else b.BAnd(tuple(preds))


def _any_of(preds: list) -> b.BPredicate:
    return preds[0] if len(preds) == 1 else b.BOr(tuple(preds))


def _columns_twice(root: b.BPredicate) -> set:
    """The columns two leaves of ``root`` (a shared one counted once) read."""
    seen_nodes, seen_cols, twice, stack = set(), set(), set(), [root]
    while stack:
        x = stack.pop()
        if id(x) in seen_nodes:
            continue
        seen_nodes.add(id(x))
        stack.extend(x.children())
        col = getattr(x, "col", None) if isinstance(x, b.BLeaf) else None
        if col is not None and _hashable(col):
            col = _through_affine(col)[0]
            (twice if col in seen_cols else seen_cols).add(col)
    return twice


def _plain(value: object) -> bool:
    """A constant the boxes can hold: not NaN (a float NaN is ``nan``), not None."""
    return value is not None and value == value


def _leaf_sets(leaf: b.BLeaf) -> tuple:
    """(TRUE sets, FALSE sets) of a leaf, each ``NEVER`` or a dict column -> boxes."""
    if isinstance(leaf, b.BConst):
        return ({} if leaf.value is True else NEVER), ({} if leaf.value is False else NEVER)
    col = getattr(leaf, "col", None)
    if col is None or not _hashable(col):
        return {}, {}
    float_like = col.domain == "float"
    if isinstance(leaf, b.BCompare) and _plain(leaf.value):
        v, op = leaf.value, leaf.op  # NaN sorts above every number: TRUE of > and >=
        true, false = {"lt": (Box(hi=v, hi_in=False), Box(lo=v, nan=True)),
                       "le": (Box(hi=v), Box(lo=v, lo_in=False, nan=True)),
                       "gt": (Box(lo=v, lo_in=False, nan=True), Box(hi=v)),
                       "ge": (Box(lo=v, nan=True), Box(hi=v, hi_in=False))}[op]
        true, false = [true], [false]
    elif isinstance(leaf, b.BInRange) and _plain(leaf.first) and _plain(leaf.last):
        true = [Box(lo=leaf.first, hi=leaf.last)]
        false = ([Box(but=frozenset((leaf.first,)), nan=True)] if leaf.first == leaf.last else
                 [Box(hi=leaf.first, hi_in=False), Box(lo=leaf.last, lo_in=False, nan=True)])
    elif isinstance(leaf, b.BInList) and all(map(_plain, leaf.values)):
        true = [Box(only=leaf.values, nan=leaf.nan)]
        # A NULL item makes every other row NULL: never FALSE.
        false = NEVER if leaf.null else [Box(but=frozenset(leaf.values), nan=not leaf.nan)]
    elif isinstance(leaf, b.BNanEq):
        true, false = [NAN_ONLY], [Box()]
    elif isinstance(leaf, b.BNonNull):
        true, false = ([ANY_VALUE], NEVER) if leaf.truth else (NEVER, [ANY_VALUE])
    elif isinstance(leaf, b.BIsNull):
        true, false = [NULL_ONLY], [ANY_VALUE]
    elif isinstance(leaf, b.BIsNan):  # FALSE for NULL rows too
        true, false = [NAN_ONLY], [Box(null=True)]
    else:
        return {}, {}

    key, inverse = _through_affine(col)

    def sets(boxes):
        if boxes is NEVER:
            return NEVER
        boxes = [x if float_like else replace(x, nan=False) for x in boxes]
        if inverse is None:
            return {col: boxes}
        on_column = inverse(boxes)  # (None: a bound it cannot map, kept on the operand)
        return {col: boxes} if on_column is None else {key: on_column}

    return sets(true), sets(false)


def _through_affine(col: object) -> tuple:
    """The integer column an operand reads through affine steps (``c * k``, ``c + k``, ``-c``:
    ``BColumn.convert``), and the map from the operand's boxes to the column's: every value
    of the column the steps take into a box. A step's result wraps around its type's range
    where it leaves it (``arith``: as the engines without ANSI mode compute; those with it
    fail the query there, and no row is lost by keeping those values): one step that wraps
    once is followed, and otherwise every value where a step may leave its range is kept, for
    any may come of it. ``(col, None)`` for any other operand.

    So on a TINYINT ``c``, ``c * 3 IN (6, 7)`` (in INT) is TRUE only where ``c`` is 2, and
    meets ``c > 5`` in no value; on a BIGINT ``x``, ``x + 1 IN (3, 4)`` is TRUE where ``x`` is
    2 or 3 (the largest BIGINT plus 1 wraps to the smallest)."""
    convert = getattr(col, "convert", ())
    if not (convert and convert[0] == "affine" and col.domain == "int" and
            pa.types.is_integer(col.stats_type) and pa.types.is_integer(col.type)):
        return col, None
    width = col.stats_type.bit_width
    low, high = ((-(2 ** (width - 1)), 2 ** (width - 1) - 1)
                 if pa.types.is_signed_integer(col.stats_type) else (0, 2 ** width - 1))
    a, c, safe_lo, safe_hi = 1, 0, low, high  # the operand is a * x + c for x in safe
    for op, k, tmin, tmax in convert[1]:
        a, c = (a, c + k) if op == "add" else (a * k, c * k)
        if a == 0:  # (times zero: one value for every x, nothing to invert)
            return col, None
        ends = sorted((Fraction(tmin - c, a), Fraction(tmax - c, a)))  # no overflow between
        safe_lo, safe_hi = max(safe_lo, math.ceil(ends[0])), min(safe_hi, math.floor(ends[1]))
    pieces = [(a, c, safe_lo, safe_hi)] if safe_lo <= safe_hi else []  # y = a * x + c there
    anything = []  # values of x where the operand may be any value
    for lo, hi in ((low, min(high, safe_lo - 1)), (max(low, safe_hi + 1), high)):
        if lo > hi:
            continue
        _, _, tmin, tmax = convert[1][-1]
        wraps = [(a, c + m * (tmax - tmin + 1), lo, hi) for m in (-1, 1)
                 if len(convert[1]) == 1 and all(
                     tmin <= a * x + c + m * (tmax - tmin + 1) <= tmax for x in (lo, hi))]
        if not wraps and hi - lo < MAX_BOXES:  # a few values (``-x`` of the smallest): each
            wraps = [(1, _wrapped(x, convert[1]) - x, x, x) for x in range(lo, hi + 1)]
        pieces += wraps
        anything += [] if wraps else [Box(lo=lo, hi=hi)]

    def inverse(boxes: list) -> list | None:
        out = []
        try:
            for box in boxes:
                first = None if box.lo is None else (
                    math.ceil(Fraction(box.lo)) if box.lo_in else math.floor(Fraction(box.lo)) + 1)
                last = None if box.hi is None else (
                    math.floor(Fraction(box.hi)) if box.hi_in else math.ceil(Fraction(box.hi)) - 1)
                out += [_preimage(box, first, last, *piece) for piece in pieces]
        except (TypeError, ValueError, OverflowError):  # (a bound that is no number)
            return None
        return _cap(out + anything)

    return replace(col, type=col.stats_type, convert=()), inverse


def _wrapped(x: int, steps: tuple) -> int:
    """``x`` through ``steps``, each result wrapped around its type's range."""
    for op, k, tmin, tmax in steps:
        x = x + k if op == "add" else x * k
        x = (x - tmin) % (tmax - tmin + 1) + tmin
    return x


def _preimage(box: Box, first: int | None, last: int | None, a: int, c: int, lo: int,
              hi: int) -> Box:
    """The values x in ``lo``..``hi`` for which ``a * x + c`` lies in ``box`` (whose integer
    range is ``first``..``last``)."""
    ends = [None if y is None else Fraction(y - c, a) for y in (first, last)]
    if a < 0:
        ends.reverse()
    lo = lo if ends[0] is None else max(lo, math.ceil(ends[0]))
    hi = hi if ends[1] is None else min(hi, math.floor(ends[1]))

    def back(values) -> frozenset:  # the x with a * x + c == y, where an integer there
        xs = ((Fraction(y) - c) / a for y in values)
        return frozenset(int(x) for x in xs if x.denominator == 1 and lo <= x <= hi)

    return Box(lo=lo, hi=hi, only=None if box.only is None else back(box.only),
               but=back(box.but), null=box.null)


def _hashable(col: object) -> bool:
    try:
        hash(col)
    except TypeError:
        return False
    return True


# ---- boxes -----------------------------------------------------------------------------------
def _tighter(a: tuple, b_: tuple, lower: bool) -> tuple:
    """Of two ends (value, in), the one that bounds more; ``None`` bounds nothing."""
    if a[0] is None:
        return b_
    if b_[0] is None:
        return a
    if a[0] == b_[0]:
        return a[0], a[1] and b_[1]
    return a if (a[0] > b_[0]) == lower else b_


def _meet(a: Box, c: Box) -> Box:
    """The values in both boxes (``TypeError`` where Python cannot order their constants)."""
    lo, lo_in = _tighter((a.lo, a.lo_in), (c.lo, c.lo_in), True)
    hi, hi_in = _tighter((a.hi, a.hi_in), (c.hi, c.hi_in), False)
    only = a.only if c.only is None else c.only if a.only is None else \
        frozenset(a.only) & frozenset(c.only)
    if len(a.but) + len(c.but) <= MAX_BUT:
        but = a.but | c.but
    else:
        but = a.but if len(a.but) >= len(c.but) else c.but
    return Box(lo, lo_in, hi, hi_in, only, but, a.nan and c.nan, a.null and c.null)


def _inside(v: object, x: Box) -> bool:
    return ((x.lo is None or v > x.lo or (v == x.lo and x.lo_in)) and
            (x.hi is None or v < x.hi or (v == x.hi and x.hi_in)) and v not in x.but)


def _empty(x: Box, domain: str) -> bool:
    """Whether no value is in the box (``TypeError`` where its constants do not compare)."""
    if x.nan or x.null:
        return False
    if x.only is not None:
        return not any(_inside(v, x) for v in x.only)
    lo, lo_in, hi, hi_in = x.lo, x.lo_in, x.hi, x.hi_in
    if domain == "float":  # the infinities are the ends of the numbers
        lo, lo_in = (-math.inf, True) if lo is None else (lo, lo_in)
        hi, hi_in = (math.inf, True) if hi is None else (hi, hi_in)
    if lo is None or hi is None or lo < hi and not _whole(lo, hi, domain):
        return False  # a range with more values in it than any finite ``but`` (strings: some
        # ranges hold none, but never one that says so here)
    if lo > hi:
        return True
    if lo == hi:
        return not (lo_in and hi_in) or lo in x.but
    first, last = lo + (not lo_in), hi - (not hi_in)  # integers: count them
    if last - first >= len(x.but):
        return False
    return all(v in x.but for v in range(first, last + 1))


def _whole(lo: object, hi: object, domain: str) -> bool:
    return domain in ("int", "uint") and type(lo) is int and type(hi) is int


def _cap(boxes: list) -> list | None:
    return boxes if len(boxes) <= MAX_BOXES else None


# ---- the walk --------------------------------------------------------------------------------
class _Case(NamedTuple):
    """One way a node may have a truth: the values of each column read twice on such rows (a
    column not named may hold any), and the truths other leaves must have there (``given``:
    (leaf id, truth) pairs), for leaves whose values the boxes do not hold."""

    cols: dict
    given: frozenset


ANY_CASE = _Case({}, frozenset())


def _meet_cases(a: _Case, c: _Case) -> tuple[_Case | None, object]:
    """The rows of both ways: (the way, None), or (None, the column whose values meet in none,
    or None where a leaf would be both TRUE and FALSE)."""
    small, large = sorted((a.given, c.given), key=len)
    if any((i, not truth) in large for i, truth in small):
        return None, None
    # (beyond MAX_NEEDED the larger set alone: fewer truths needed, so still every row)
    given = large | small if len(large) + len(small) <= MAX_NEEDED else large
    cols = dict(a.cols)
    for col, boxes in c.cols.items():
        held = cols.get(col)
        if held is None:
            cols[col] = boxes
            continue
        try:
            met = [m for x in held for y in boxes if not _empty(m := _meet(x, y), col.domain)]
        except TypeError:  # constants Python cannot order together: leave it unbounded
            met = None
        if met is not None and not met:
            return None, col
        capped = _cap(met) if met is not None else None
        # (beyond the cap: anything, which keeps the key and bounds nothing)
        cols[col] = capped if capped is not None else [Box(nan=True, null=True)]
    return _Case(cols, given), None


def _every(kids: list) -> tuple:
    """The ways every kid holds together: each way of one kid met with each of the next's,
    the ways whose values meet in none dropped; and the columns that emptied them, where no
    way is left. Beyond ``MAX_CASES`` ways, their union (``_collapse``)."""
    if any(k is NEVER for k in kids):
        return NEVER, []
    out: tuple = (ANY_CASE,)
    for k in kids:
        ways, emptied = [], []
        for a in out:
            for c in k:
                met, col = _meet_cases(a, c)
                if met is not None:
                    ways.append(met)
                elif col is not None and col not in emptied:
                    emptied.append(col)
        if not ways:
            return NEVER, emptied
        out = tuple(ways) if len(ways) <= MAX_CASES else (_collapse(ways),)
    return out, []


def _some(kids: list) -> object:
    """The ways some kid holds: every way of each kid (a kid that may hold anywhere makes the
    union anything); beyond ``MAX_CASES`` ways, their union (``_collapse``)."""
    ways = [c for k in kids if k is not NEVER for c in k]
    if not ways:
        return NEVER
    if any(not c.cols and not c.given for c in ways):
        return (ANY_CASE,)
    return tuple(ways) if len(ways) <= MAX_CASES else (_collapse(ways),)


def _collapse(ways: list) -> _Case:
    """One way holding every row of ``ways``: the truths they all need, and for the columns
    each bounds, the union of their values (within ``MAX_BOXES``)."""
    given = frozenset.intersection(*(c.given for c in ways))
    shared = set(ways[0].cols).intersection(*(c.cols for c in ways[1:]))
    cols = {}
    for col in shared:
        boxes = _cap([x for c in ways for x in c.cols[col]])
        if boxes is not None:
            cols[col] = boxes
    return _Case(cols, given)


def _top_terms(root: b.BPredicate) -> frozenset:
    """(leaf id, truth) of the leaves an AND at the root needs (under NOTs, an OR's)."""
    found, stack, seen = set(), [(root, True)], set()
    while stack:
        x, truth = stack.pop()
        if (id(x), truth) in seen:  # (a subtree shared by two parents, once)
            continue
        seen.add((id(x), truth))
        if isinstance(x, b.BNot):
            stack.append((x.arg, not truth))
        elif isinstance(x, b.BRewritten) or isinstance(x, (b.BAnd if truth else b.BOr)):
            stack.extend((k, truth) for k in x.children())
        elif isinstance(x, b.BLeaf):
            found.add((id(x), truth))
    return frozenset(found)


class _Sets(b.EveryLeafAlike[tuple]):
    """Each node's (TRUE ways, FALSE ways), each ``NEVER`` or a tuple of ``_Case``; records
    the combinators found never one truth."""

    def __init__(self, twice: set, top_terms: frozenset) -> None:
        self.twice = twice  # the columns read twice
        self.top_terms = top_terms  # (leaf id, truth) of the root's own terms (``_top_terms``)
        self.never_true: dict[int, str | None] = {}
        self.never_false: dict[int, str | None] = {}
        self.root_true: object = (ANY_CASE,)  # the root's TRUE ways
        self.leaves: dict[int, b.BLeaf] = {}  # the leaves a way may need, by id
        self.order: dict[tuple, int] = {}  # their truths, in the order the walk met them

    def _note(self, node: object, true: object, false: object, emptied: list = (),
              truth: str = "TRUE") -> tuple:
        for sets, found, name in ((true, self.never_true, "TRUE"),
                                  (false, self.never_false, "FALSE")):
            if sets is NEVER:
                found[id(node)] = _why(name, emptied) if name == truth else None
        return true, false

    def _ways(self, leaf: b.BLeaf, sets: object, truth: bool) -> object:
        """A leaf's sets as its one way: its values where it bounds a column read twice, else
        its own truth (a leaf the boxes say nothing of: another column, an unknown part)."""
        if sets is NEVER:
            return NEVER
        cols = {col: boxes for col, boxes in sets.items() if col in self.twice}
        if cols or isinstance(leaf, (b.BConst, b.BOpaque)) or (
                id(leaf), truth) in self.top_terms:
            # (a term of the root's: every row making the root TRUE gives it that truth, and
            # the lattice asks it of each container already)
            return (_Case(cols, frozenset()),)
        self.leaves[id(leaf)] = leaf
        self.order.setdefault((id(leaf), truth), len(self.order))
        return (_Case({}, frozenset({(id(leaf), truth)})),)

    def visit_leaf(self, leaf: b.BLeaf) -> tuple:
        true, false = _leaf_sets(leaf)
        return self._ways(leaf, true, True), self._ways(leaf, false, False)

    def visit_not(self, node: b.BNot, results: list) -> tuple:
        true, false = results[0]
        return self._note(node, false, true)

    def visit_and(self, node: b.BAnd, results: list) -> tuple:
        true, emptied = _every([r[0] for r in results])
        return self._note(node, true, _some([r[1] for r in results]), emptied, "TRUE")

    def visit_or(self, node: b.BOr, results: list) -> tuple:
        false, emptied = _every([r[1] for r in results])
        return self._note(node, _some([r[0] for r in results]), false, emptied, "FALSE")

    def visit_either(self, node: b.BEither, results: list) -> tuple:
        return self._note(node, _some([r[0] for r in results]), _some([r[1] for r in results]))

    def visit_rewritten(self, node: b.BRewritten, results: list) -> tuple:
        return self._note(node, *results[0])

    def visit_is_bool(self, node: b.BIsBool, results: list) -> tuple:
        # IS TRUE is FALSE where its argument is NULL: no column bounds that
        return (ANY_CASE,), (ANY_CASE,)

    def visit_widen(self, node: b.BWiden, results: list) -> tuple:
        return (ANY_CASE,), (ANY_CASE,)  # anything where the guard may be TRUE


def _why(truth: str, emptied: list) -> str | None:
    """Why a combinator is never ``truth``: the columns whose values met in none, each way
    its terms may have it; None where a kid is never that truth already."""
    if not emptied:
        return None
    if len(emptied) == 1:
        name = emptied[0].label()
        return f"never {truth}: no value of {name} makes its terms on {name} {truth} together"
    names = " or ".join(col.label() for col in emptied)
    return (f"never {truth}: each way its terms may be {truth} together needs values of "
            f"{names} that no row holds")
