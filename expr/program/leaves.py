"""One rule per leaf kind: the three bits of a bound leaf, from the column facts.

Each rule's docstring is its derivation; ``rewrite.py`` has the table and the lattice. Literal
values become program *params* (arguments), never source text.
"""

from __future__ import annotations

from dataclasses import dataclass

import pyarrow as pa

from prunekit.expr.binding import bound as b
from prunekit.expr.binding.likes import prefix_successor
from prunekit.expr.domains import is_stringlike
from prunekit.expr.syntax.render import domain_literal_sql, literal_sql


def _param(r, col: b.BColumn, value: object, is_list: bool = False) -> int:
    """A literal argument, named in the column's own type for explain()."""
    step = r.p.param(value, col.name, is_list)
    if step not in r.names:
        r.names[step] = ("(" + _shown(value, col.type) + ")" if is_list
                         else domain_literal_sql(value, col.type))
    return step


# explain() shows a name up to this many characters (``explain.render_step``)
_SHOWN = 60


def _shown(values: tuple, t) -> str:
    """The literals of a list as explain() shows them: the first ones, as many as make
    ``_SHOWN`` characters. A carried join list holds thousands of keys, and rendering all of
    them was most of the time of building its program."""
    text = ""
    for k, x in enumerate(values):
        text += (", " if k else "") + (domain_literal_sql(x, t) if x == x else "NaN")
        if len(text) > _SHOWN and k + 1 < len(values):
            return text + ", ..."
    return text


@dataclass(frozen=True)
class Bits:
    """Step indices of the three possibilities of one node: may be TRUE / FALSE / NULL."""

    true: int
    false: int
    null: int


# Every rule takes (rewriter, leaf) and returns Bits; see rewrite.Rewriter for the facts.
# ``LeafBits`` at the end is the visitor that sends each leaf kind to its rule.


def const(r, leaf: b.BConst):
    """TRUE, FALSE or NULL for every row."""
    p = r.p
    v = leaf.value
    return Bits(p.const(v is True), p.const(v is False), p.const(v is None))


def opaque(r, leaf: b.BOpaque):
    """Anything is possible; the reason is kept for explain(). A leaf that needs columns
    (NULL on a row where one is NULL) is TRUE or FALSE only where every one has values."""
    p = r.p
    p.note(leaf.why)
    t = p.const(True)
    if not leaf.needs:
        return Bits(t, t, t)
    values = t
    for col in leaf.needs:
        values = p.and_(values, r.facts(col).hn)
    return Bits(values, values, t)


def compare(r, leaf: b.BCompare):
    """``x < c``: TRUE needs ``min < c``; FALSE needs ``max >= c`` or a NaN (NaN is greatest).
    ``x > c``: TRUE needs ``max > c`` or a NaN; FALSE needs ``min <= c``. Likewise <=, >=."""
    p, f = r.p, r.facts(leaf.col)
    c = _param(r, leaf.col, leaf.value)
    # Bounds speak only for numbers: the numeric part needs a number (f.not_nan).
    if leaf.op in ("lt", "le"):
        true = p.and_(f.not_nan, p.or_(p.not_(f.lo_ok), p.cmp(leaf.op, f.lo, c)))
        numeric_false = p.or_(p.not_(f.hi_ok), p.cmp("ge" if leaf.op == "lt" else "gt", f.hi, c))
        false = p.or_(p.and_(f.not_nan, numeric_false), f.nan)
    else:
        numeric_true = p.or_(p.not_(f.hi_ok), p.cmp(leaf.op, f.hi, c))
        true = p.or_(p.and_(f.not_nan, numeric_true), f.nan)
        false = p.and_(f.not_nan,
                       p.or_(p.not_(f.lo_ok), p.cmp("le" if leaf.op == "gt" else "lt", f.lo, c)))
    return r.on_values(f, true, false)


def value_sets(r, col: b.BColumn, literals: tuple, true: int, false: int) -> tuple[int, int]:
    """Where a container's value set (statistics ``values``/``bloom``) says none of the
    literals occurs, TRUE is impossible (``x = v``, ``x IN``); where every value it holds is
    one of them, FALSE is (then ``x <> v``, ``x NOT IN`` are NONE_MATCH). Only for a column
    read as is, whose values are the compared values (a widening integer or string cast keeps
    them; a cast to DOUBLE or a rescale does not)."""
    same = (col.type == col.stats_type or (pa.types.is_integer(col.type) and
            pa.types.is_integer(col.stats_type)) or (col.domain == "code" and
            is_stringlike(col.type) and is_stringlike(col.stats_type)))
    if type(col) is not b.BColumn or col.convert or not same or col.domain == "none":
        return true, false
    p = r.p
    vs, bs = p.slot(col.name, "values", literals), p.slot(col.name, "bloom", literals)
    v, v_ok, bl, bl_ok = p.load(vs), p.valid(vs), p.load(bs), p.valid(bs)
    one, two = p.const(1), p.const(2)
    listed = p.or_(p.not_(v_ok), p.ge(v, one))  # some literal may occur
    may = p.and_(listed, p.or_(p.not_(bl_ok), p.ge(bl, one)))
    only = p.and_(v_ok, p.ge(v, two))  # every value is a literal
    shown = _shown(literals, col.type)
    r.names.setdefault(may, f"{col.label()} may hold one of ({shown})")
    r.names.setdefault(only, f"{col.label()} holds only ({shown})")
    return p.and_(true, may), p.and_(false, p.not_(only))


def in_range(r, leaf: b.BInRange):
    """``first <= x <= last``: TRUE needs the range to meet [min, max]; FALSE is impossible only
    when [min, max] lies inside the range (for equality, both bounds exact: an inexact bound
    never proves equality, docs/semantics.md §1) and no NaN is possible."""
    p, f = r.p, r.facts(leaf.col)
    first = _param(r, leaf.col, leaf.first)
    last = _param(r, leaf.col, leaf.last) if leaf.last != leaf.first else first
    true = p.and_(f.not_nan, p.or_(p.not_(f.lo_ok), p.le(f.lo, last)),
                  p.or_(p.not_(f.hi_ok), p.ge(f.hi, first)))
    inside = [f.lo_ok, f.hi_ok, p.ge(f.lo, first), p.le(f.hi, last)]
    if leaf.first == leaf.last:
        inside += [f.lo_exact, f.hi_exact]
    false = p.or_(p.not_(p.and_(*inside)), f.nan)
    if leaf.first == leaf.last:
        true, false = value_sets(r, leaf.col, (leaf.first,), true, false)
    return r.on_values(f, true, false)


def non_null(r, leaf: b.BNonNull):
    """Every non-NULL row has the same truth (a literal beyond the column's range)."""
    p, f = r.p, r.facts(leaf.col)
    return r.on_values(f, p.const(leaf.truth), p.const(not leaf.truth))


def nan_eq(r, leaf: b.BNanEq):
    """``x = NaN``: TRUE needs a NaN, FALSE a number."""
    f = r.facts(leaf.col)
    return r.on_values(f, *value_sets(r, leaf.col, (float("nan"),), f.nan, f.not_nan))


def is_null(r, leaf: b.BIsNull):
    """``x IS NULL``: TRUE needs a NULL row, FALSE a non-NULL one; never NULL."""
    f = r.facts(leaf.col)
    return Bits(f.nulls, f.hn, r.p.const(False))


def is_nan(r, leaf: b.BIsNan):
    """``isnan(x)``: TRUE needs a NaN; FALSE a number or a NULL (``isnan(NULL)`` is FALSE)."""
    p, f = r.p, r.facts(leaf.col)
    return Bits(p.and_(f.hn, f.nan), p.or_(f.nulls, p.and_(f.hn, f.not_nan)), p.const(False))


def column_compare(r, leaf: b.BColumnCompare):
    """``a < b``: TRUE needs ``min(a) < max(b)`` (or a NaN in b); FALSE needs
    ``max(a) >= min(b)`` (or a NaN in a). ``a = b``: TRUE needs overlapping ranges; FALSE is
    impossible only when both are one and the same exact value. NULL if either may be NULL."""
    p, fa, fb = r.p, r.facts(leaf.a), r.facts(leaf.b)

    def rel(op: str, x: int, x_ok: int, y: int, y_ok: int) -> int:
        return p.or_(p.not_(x_ok), p.not_(y_ok), p.cmp(op, x, y))

    if leaf.op in ("lt", "le"):
        true = p.or_(rel(leaf.op, fa.lo, fa.lo_ok, fb.hi, fb.hi_ok), fb.nan)
        false = p.or_(rel("ge" if leaf.op == "lt" else "gt", fa.hi, fa.hi_ok, fb.lo, fb.lo_ok),
                      fa.nan)
    else:
        overlap = p.and_(rel("le", fa.lo, fa.lo_ok, fb.hi, fb.hi_ok),
                         rel("le", fb.lo, fb.lo_ok, fa.hi, fa.hi_ok))
        true = p.or_(overlap, p.and_(fa.nan, fb.nan))
        single = p.and_(fa.lo_ok, fa.hi_ok, fb.lo_ok, fb.hi_ok, fa.lo_exact, fa.hi_exact,
                        fb.lo_exact, fb.hi_exact, p.eq(fa.lo, fa.hi), p.eq(fb.lo, fb.hi),
                        p.eq(fa.lo, fb.lo))
        false = p.or_(p.not_(single), fa.nan, fb.nan)
    hn = p.and_(fa.hn, fb.hn)
    return Bits(p.and_(hn, true), p.and_(hn, false), p.or_(fa.nulls, fb.nulls))


def in_list(r, leaf: b.BInList):
    """``x IN (v...)``: TRUE needs a listed value within [min, max] (one binary search); FALSE
    needs a value not listed: impossible when every integer of [min, max] is listed, or
    [min, max] is one exact listed value. A NULL in the list turns FALSE into NULL."""
    p, f = r.p, r.facts(leaf.col)
    if leaf.values:
        lst = _param(r, leaf.col, leaf.values, is_list=True)
        some = p.op("any_in", lst, f.lo, f.lo_ok, f.hi, f.hi_ok)
        if leaf.col.domain in ("int", "uint") and not leaf.col.convert:
            # Every value is listed when the list covers every integer of [min, max]; that
            # proves equality, so the bounds must be exact (docs/semantics.md §1).
            covered = p.and_(f.lo_ok, f.hi_ok, f.lo_exact, f.hi_exact,
                             p.op("covers", lst, f.lo, f.hi))
        else:
            covered = p.and_(f.lo_ok, f.hi_ok, f.lo_exact, f.hi_exact, p.eq(f.lo, f.hi),
                             some)
    else:
        some, covered = p.const(False), p.const(False)
    true = p.or_(p.and_(f.not_nan, some), p.and_(f.nan, p.const(leaf.nan)))
    false = p.or_(p.and_(f.not_nan, p.not_(covered)), p.and_(f.nan, p.const(not leaf.nan)))
    literals = leaf.values + ((float("nan"),) if leaf.nan else ())
    true, false = value_sets(r, leaf.col, literals, true, false)
    if leaf.null:
        return Bits(p.and_(f.hn, true), p.const(False), p.or_(f.nulls, p.and_(f.hn, false)))
    return r.on_values(f, true, false)


def prefix(r, leaf: b.BPrefix):
    """``x`` starts with ``p``: the strings with prefix p are exactly [p, p+1) where p+1 is p
    with its last byte below 0xFF incremented (no upper end if there is none). TRUE needs
    [min, max] to meet it; FALSE is impossible when [min, max] lies inside it (exact form)."""
    p, f = r.p, r.facts(leaf.col)
    lo_p = _param(r, leaf.col, leaf.prefix)
    succ = prefix_successor(leaf.prefix)
    meets_hi = p.or_(p.not_(f.hi_ok), p.ge(f.hi, lo_p))
    if succ is None:
        true = meets_hi
        inside = p.and_(f.lo_ok, p.ge(f.lo, lo_p))
    else:
        hi_p = _param(r, leaf.col, succ)
        true = p.and_(meets_hi, p.or_(p.not_(f.lo_ok), p.lt(f.lo, hi_p)))
        inside = p.and_(f.lo_ok, f.hi_ok, p.ge(f.lo, lo_p), p.lt(f.hi, hi_p))
    false = p.not_(inside) if leaf.exact else p.const(True)
    return r.on_values(f, true, false)


def pattern(r, leaf: b.BPattern):
    """``x LIKE 'ab_c%'`` and other patterns (``expr/binding/likes.py``): TRUE needs [min, max] to
    meet [floor, p+1), every match being at least the floor and starting with the prefix p.
    FALSE cannot be ruled out from a range. Where min = max, both exact, is the container's one
    value, the value itself is tested against the whole pattern (a slot computed before the
    kernel, ``kernels/patterns.py``): it decides TRUE or FALSE."""
    p, f = r.p, r.facts(leaf.col)
    floor = _param(r, leaf.col, leaf.floor)
    true = p.or_(p.not_(f.hi_ok), p.ge(f.hi, floor))
    succ = prefix_successor(leaf.prefix)
    if succ is not None:
        true = p.and_(true, p.or_(p.not_(f.lo_ok), p.lt(f.lo, _param(r, leaf.col, succ))))
    false = p.const(True)
    col = leaf.col
    if type(col) is b.BColumn and not col.convert and is_stringlike(col.stats_type):
        s = p.slot(col.name, "like", (leaf.regex,))
        tested = p.valid(s)
        r.names.setdefault(tested, f"{col.label()}.min tested")
        single = p.and_(f.lo_ok, f.hi_ok, f.lo_exact, f.hi_exact, p.eq(f.lo, f.hi), tested)
        matches = p.ge(p.load(s), p.const(1))
        r.names.setdefault(matches, f"{col.label()}.min LIKE {literal_sql(leaf.text)}")
        true = p.and_(true, p.not_(p.and_(single, p.not_(matches))))
        false = p.not_(p.and_(single, matches))
    return r.on_values(f, true, false)


class LeafBits(b.LeafVisitor[Bits]):
    """The bits of each leaf kind by the rules above, for the rewriter ``r`` (its program, its
    facts and its names)."""

    def __init__(self, r) -> None:
        self.r = r

    def visit_const(self, leaf: b.BConst) -> Bits:
        return const(self.r, leaf)

    def visit_opaque(self, leaf: b.BOpaque) -> Bits:
        return opaque(self.r, leaf)

    def visit_compare(self, leaf: b.BCompare) -> Bits:
        return compare(self.r, leaf)

    def visit_in_range(self, leaf: b.BInRange) -> Bits:
        return in_range(self.r, leaf)

    def visit_non_null(self, leaf: b.BNonNull) -> Bits:
        return non_null(self.r, leaf)

    def visit_nan_eq(self, leaf: b.BNanEq) -> Bits:
        return nan_eq(self.r, leaf)

    def visit_is_null(self, leaf: b.BIsNull) -> Bits:
        return is_null(self.r, leaf)

    def visit_is_nan(self, leaf: b.BIsNan) -> Bits:
        return is_nan(self.r, leaf)

    def visit_column_compare(self, leaf: b.BColumnCompare) -> Bits:
        return column_compare(self.r, leaf)

    def visit_in_list(self, leaf: b.BInList) -> Bits:
        return in_list(self.r, leaf)

    def visit_prefix(self, leaf: b.BPrefix) -> Bits:
        return prefix(self.r, leaf)

    def visit_pattern(self, leaf: b.BPattern) -> Bits:
        return pattern(self.r, leaf)
