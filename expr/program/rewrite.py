"""Rewrite a bound predicate into a statistics program (docs/semantics.md §3).

Outcomes
--------
For every container the program computes three bits for each node of the predicate: *may be
TRUE*, *may be FALSE*, *may be NULL* for some row of the container. Then

=========== ===== ==================================== ============================
outcome     value when                                 use
=========== ===== ==================================== ============================
NONE_MATCH  0     not may-TRUE, or ``row_count == 0``  skip the container
MAYBE_MATCH 1     otherwise                            read it and filter
ALL_MATCH   2     neither may-FALSE nor may-NULL       read it without the filter
=========== ===== ==================================== ============================

Leaves set the bits from statistics (an unknown statistic reads "maybe"); ``NOT`` swaps TRUE and
FALSE; ``AND``/``OR`` follow three-valued logic over the possible values:

- ``AND``: TRUE iff all may be TRUE; FALSE iff any may be FALSE; NULL iff any may be NULL and
  every child may be TRUE or NULL. ``OR`` is the mirror image.

Leaf rules (``hn``: some row may be non-NULL; ``nulls``: some row may be NULL; ``nan``: some row
may be NaN; a bound that is unknown is "anything"):

=================== ============================ ================================= ==========
predicate           may be TRUE (and ``hn``)      may be FALSE (and ``hn``)          may be NULL
=================== ============================ ================================= ==========
``x < c``           ``min < c``                  ``max >= c`` or ``nan``            ``nulls``
``x > c``           ``max > c`` or ``nan``       ``min <= c``                       ``nulls``
``x = c``           ``min <= c <= max``          not (``min = max = c``, exact)     ``nulls``
                                                 or ``nan``
``x IS NULL``       ``nulls`` (no ``hn``)         ``hn``                              never
``x IN (..)``       a listed value in [min, max] values not all listed              ``nulls``
``s LIKE 'p%'``     [min, max] meets [p, p+1)    not [min, max] within [p, p+1)     ``nulls``
``s LIKE 'p_c%'``   [min, max] meets             not (min = max exact, and it         ``nulls``
                    [floor, p+1), and not        matches)
                    (min = max exact, and it
                    does not match)
``a < b``           ``min(a) < max(b)``          ``max(a) >= min(b)``               either
=================== ============================ ================================= ==========

Value sets (``leaves.value_sets``): ``x = v``, ``x IN (..)`` and ``x = NaN`` also need "some
literal may occur" (the ``values`` list holds one, and the ``bloom`` filter does not rule all
out) to be TRUE, and "some value is not a literal" (``values`` unknown or not all literals) to
be FALSE; ``NOT`` carries both to ``x <> v`` and ``x NOT IN``.

Worked example, ``x = 5`` (DataFusion's containers A, B, C, with 10 rows and no NULLs):

>>> import pyarrow as pa
>>> from prunekit.expr.binding.bind import bind
>>> from prunekit.expr.syntax.sql import parse
>>> program = rewrite(bind(parse("x = 5"), pa.schema([("x", pa.int64())])))
>>> program.always_true, [s.stat for s in program.slots]
(False, ['row_count', 'null_count', 'min', 'max', 'min_exact', 'max_exact', 'values', 'bloom'])

A: [0, 4] is NONE_MATCH (``min <= 5 <= max`` fails); B: [2, 10] MAYBE_MATCH; C: [5, 8]
MAYBE_MATCH; a container [5, 5] with exact bounds and no NULLs is ALL_MATCH (tested).
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import pyarrow as pa

from prunekit.expr.binding import bound as b
from prunekit.expr.binding.arith import LIMIT, type_range
from prunekit.expr.calendar import PERIOD_OF, month_or_day_bounds
from prunekit.expr.program.impossible import analyse, where_true
from prunekit.expr.program.ir import Program, ProgramBuilder
from prunekit.expr.program.leaves import Bits, LeafBits
from prunekit.expr.remainders import remainder_bounds


@dataclass(frozen=True)
class Facts:
    """Per-container facts about one (possibly converted) column, as step indices."""

    hn: int  # some row may be non-NULL
    nulls: int  # some row may be NULL
    lo: int
    lo_ok: int  # min is known and usable
    hi: int
    hi_ok: int
    lo_exact: int
    hi_exact: int
    nan: int  # some row may be NaN
    not_nan: int  # some non-NULL row may be a number


class Rewriter:
    """Turns one bound predicate into a program; facts are derived once per column."""

    def __init__(self) -> None:
        self.p = ProgramBuilder()
        self._facts: dict[b.BColumn, Facts] = {}
        self.names: dict[int, str] = {}  # readable names of fact steps, for explain()
        self.leaf_bits: dict[int, Bits] = {}  # id(leaf) -> its bits, for explain()
        self._rules = LeafBits(self)
        self.root: object = None
        self._walks: dict[int, tuple] = {}  # id(root) -> (root, never(root), where_true)
        rows = self.p.slot(None, "row_count")
        rc, rv = self.p.load(rows), self.p.valid(rows)
        zero = self.p.const(0)
        self.rows, self.rows_ok = rc, self.p.and_(rv, self.p.ge(rc, zero))
        self.empty = self.p.and_(self.rows_ok, self.p.eq(rc, zero))

    # ---- facts about a column ----------------------------------------------------------
    def facts(self, col: b.BColumn) -> Facts:
        found = self._facts.get(col)
        if found is None and isinstance(col, b.BCalendar):  # month(d), day(d)
            found = self._facts[col] = self._calendar_facts(col)
        if found is None and isinstance(col, b.BRemainder):  # x % c, pmod(x, c)
            found = self._facts[col] = self._remainder_facts(col)
        if found is None:
            derive = (self._derive_sum if isinstance(col, b.BSum) else self._derive_float_op
                      if isinstance(col, b.BFloatOp) else self._derive_prod
                      if isinstance(col, b.BProd) else self._derive)
            found = self._facts[col] = derive(col)
        return found

    def _calendar_facts(self, e: b.BCalendar) -> Facts:
        """Facts of ``month(d)`` / ``day(d)``: monotone only within a year / a month, so the
        month (day) of min and max bound it when both fall in one year (month); else the bounds
        are unknown. Exact where the day bound is (that day occurs, and so its month)."""
        p, f = self.p, self.facts(e.col)
        lo, hi, same = month_or_day_bounds(p, f.lo, f.hi, f.lo_ok, f.hi_ok, e.field, e.per_day)
        period = PERIOD_OF[e.field]
        self.names.setdefault(same, f"{e.col.label()} bounds in one {period}")
        self.names.setdefault(lo, f"{e.label()}.min")
        self.names.setdefault(hi, f"{e.label()}.max")
        return Facts(f.hn, f.nulls, lo, same, hi, same, p.and_(same, f.lo_exact),
                     p.and_(same, f.hi_exact), p.const(False), p.const(True))

    def _remainder_facts(self, e: b.BRemainder) -> Facts:
        """Facts of ``x % c`` / ``pmod(x, c)``: x's bounds shifted where both fall in one block
        of the divisor (exact where x's are), else its general range
        (``remainders.remainder_bounds``); unknown where x's bounds are."""
        p, f = self.p, self.facts(e.col)
        lo, hi, same = remainder_bounds(p, f.lo, f.hi, e.divisor, e.floor)
        known = p.and_(f.lo_ok, f.hi_ok)
        self.names.setdefault(same, f"{e.col.label()} bounds in one block of {abs(e.divisor)}")
        self.names.setdefault(lo, f"{e.label()}.min")
        self.names.setdefault(hi, f"{e.label()}.max")
        return Facts(f.hn, f.nulls, lo, known, hi, known, p.and_(known, same, f.lo_exact),
                     p.and_(known, same, f.hi_exact), p.const(False), p.const(True))

    def _float_side(self, x: object, name: str) -> Facts:
        if not isinstance(x, float):
            return self.facts(x)
        p = self.p
        c = p.param(x, name)
        self.names.setdefault(c, repr(x))
        t, f = p.const(True), p.const(False)
        return Facts(t, f, c, t, c, t, t, t, f, t)

    def _derive_float_op(self, e: b.BFloatOp) -> Facts:
        """``a + b``, ``a - b``, ``a * b`` in DOUBLE. Rounding to nearest is monotone in the
        exact result, and the exact sum or product over two intervals is extreme at their
        ends, so the operation applied to the bounds (all four corners for ``*``) bounds every
        non-NaN result exactly as Spark computes it. NaN where either side may be NaN, and
        where infinities can meet: inf - inf, inf * 0. Bounds are used only when all four are
        known and none computed is NaN; never exact."""
        p, name = self.p, e.name
        fa, fb = self._float_side(e.a, name), self._float_side(e.b, name)
        inf = p.param(math.inf, name)
        neg_inf = p.param(-math.inf, name)
        zero = p.param(0.0, name)

        def may_be(f: Facts, value: int, at_hi: bool) -> int:  # +-inf at one end
            end, ok = (f.hi, f.hi_ok) if at_hi else (f.lo, f.lo_ok)
            return p.and_(f.hn, f.not_nan, p.or_(p.not_(ok), p.eq(end, value)))

        a_pinf, a_ninf = may_be(fa, inf, True), may_be(fa, neg_inf, False)
        b_pinf, b_ninf = may_be(fb, inf, True), may_be(fb, neg_inf, False)
        b_lo, b_hi = fb.lo, fb.hi
        if e.op == "-":  # a - b is a + (-b) exactly: negation does not round
            minus = p.param(-1.0, name)
            b_lo, b_hi = p.op("mul", fb.hi, minus), p.op("mul", fb.lo, minus)
            b_pinf, b_ninf = b_ninf, b_pinf
        if e.op in ("+", "-"):
            lo, hi = p.op("add", fa.lo, b_lo), p.op("add", fa.hi, b_hi)
            made_nan = p.or_(p.and_(a_pinf, b_ninf), p.and_(a_ninf, b_pinf))
        else:
            corners = [p.op("mul", x, y) for x in (fa.lo, fa.hi) for y in (fb.lo, fb.hi)]
            lo = p.op("min2", p.op("min2", corners[0], corners[1]),
                      p.op("min2", corners[2], corners[3]))
            hi = p.op("max2", p.op("max2", corners[0], corners[1]),
                      p.op("max2", corners[2], corners[3]))

            def may_be_zero(f: Facts) -> int:
                inside = p.and_(f.lo_ok, f.hi_ok, p.le(f.lo, zero), p.ge(f.hi, zero))
                return p.and_(f.hn, f.not_nan, p.or_(p.not_(p.and_(f.lo_ok, f.hi_ok)), inside))

            a_inf, b_inf = p.or_(a_pinf, a_ninf), p.or_(b_pinf, b_ninf)
            made_nan = p.or_(p.and_(a_inf, may_be_zero(fb)), p.and_(b_inf, may_be_zero(fa)))
            # A corner of 0 * inf is NaN: min/max would then be meaningless.
            ok_corners = p.not_(p.or_(*(p.op("isnan", c) for c in corners)))
        known = p.and_(fa.lo_ok, fa.hi_ok, fb.lo_ok, fb.hi_ok,
                       p.not_(p.op("isnan", lo)), p.not_(p.op("isnan", hi)))
        if e.op == "*":
            known = p.and_(known, ok_corners)
        if e.type == pa.float32():
            lo, hi = self._to_float32_outwards(e, lo, hi)
        nan = p.or_(fa.nan, fb.nan, made_nan)
        shown = e.label()
        self.names.setdefault(known, f"{shown} bounds known")
        self.names.setdefault(lo, f"{shown}.min")
        self.names.setdefault(hi, f"{shown}.max")
        self.names.setdefault(nan, f"{shown} may be NaN")
        return Facts(p.and_(fa.hn, fb.hn), p.or_(fa.nulls, fb.nulls), lo, known, hi, known,
                     p.const(False), p.const(False), nan, p.const(True))

    def _to_float32_outwards(self, e: b.BFloatOp, lo: int, hi: int) -> tuple[int, int]:
        """Bounds of a FLOAT result (Spark computes FLOAT op FLOAT in FLOAT) from bounds
        computed in DOUBLE. The FLOAT result of a row is its exact result rounded to the nearest
        FLOAT, which is at most one FLOAT ulp (2**-23 relative, or 2**-149 near zero) beyond the
        exact value, itself within 2**-53 relative of the DOUBLE bound. Widening by 2**-22
        relative and 2**-149 absolute, then rounding to FLOAT (monotone, and infinite beyond
        FLOAT's range as the row's result is), bounds every row's result."""
        p, name = self.p, e.name
        down, up = p.param(1 - 2.0**-22, name), p.param(1 + 2.0**-22, name)
        tiny = p.param(2.0**-149, name)
        lo = p.op("add", p.op("min2", p.op("mul", lo, down), p.op("mul", lo, up)),
                  p.op("mul", tiny, p.param(-1.0, name)))
        hi = p.op("add", p.op("max2", p.op("mul", hi, down), p.op("mul", hi, up)), tiny)
        return p.op("tofloat32", lo), p.op("tofloat32", hi)

    def _derive_sum(self, s: b.BSum) -> Facts:
        """``a + b`` (or ``a - b``) over the rows where both are non-NULL lies within the sum
        of the bounds (``a - b``: ``[min(a) - max(b), max(a) - min(b)]``). The bounds are used
        only when all four are known and within 2**62 (their sums cannot overflow int64) and
        the sums lie in the result type (else a row may wrap, in Spark's legacy mode). Never
        exact: the two minima need not sit in one row. NULL where either is NULL."""
        p, fa, fb = self.p, self.facts(s.a), self.facts(s.b)
        name = s.a.name
        small = p.param(2**62, name)
        known = p.and_(fa.lo_ok, fa.hi_ok, fb.lo_ok, fb.hi_ok,
                       *(p.op("within", v, small) for v in (fa.lo, fa.hi, fb.lo, fb.hi)))
        # In int64 before adding: NumPy adds two int32 arrays in int32 (wrapping).
        a_lo, a_hi, b_lo, b_hi = (p.op("toint", v) for v in (fa.lo, fa.hi, fb.lo, fb.hi))
        if s.sign < 0:
            minus = p.param(-1, name)
            b_lo, b_hi = p.op("mul", b_hi, minus), p.op("mul", b_lo, minus)
        lo, hi = p.op("add", a_lo, b_lo), p.op("add", a_hi, b_hi)
        return self._ranged(s, fa, fb, known, lo, hi)

    def _ranged(self, e: object, fa: Facts, fb: Facts, known: int, lo: int, hi: int) -> Facts:
        """Facts of a sum or product whose bounds are ``lo``, ``hi`` where ``known``: usable
        only within the result type (``arith.type_range``). Beyond it an integer wraps (legacy
        mode) and a DECIMAL is NULL (legacy mode; ANSI fails the query), so NULL is possible
        wherever the bounds are unusable."""
        p, name = self.p, e.name
        tmin, tmax = type_range(e.type)
        ok = p.and_(known, p.ge(lo, p.param(tmin, name)), p.le(hi, p.param(tmax, name)))
        nulls = p.or_(fa.nulls, fb.nulls)
        if pa.types.is_decimal(e.type):
            nulls = p.or_(nulls, p.not_(ok))
        shown = e.label()
        self.names.setdefault(ok, f"{shown} bounds known")
        self.names.setdefault(lo, f"{shown}.min")
        self.names.setdefault(hi, f"{shown}.max")
        return Facts(p.and_(fa.hn, fb.hn), nulls, lo, ok, hi, ok,
                     p.const(False), p.const(False), p.const(False), p.const(True))

    def _derive_prod(self, e: b.BProd) -> Facts:
        """``a * b`` of integers (or of unscaled DECIMAL values) lies between the least and
        greatest of the four products of the bounds (the product is bilinear, so extreme at
        the corners, whatever the signs). Used only when all four bounds are known and within
        2**31 - 1, so that no corner overflows int64, and the corners lie in the result type
        (``_ranged``). Never exact; NULL where either side is NULL."""
        p, fa, fb = self.p, self.facts(e.a), self.facts(e.b)
        small = p.param(2**31 - 1, e.name)
        ends = (fa.lo, fa.hi, fb.lo, fb.hi)
        known = p.and_(fa.lo_ok, fa.hi_ok, fb.lo_ok, fb.hi_ok,
                       *(p.op("within", v, small) for v in ends))
        a_lo, a_hi, b_lo, b_hi = (p.op("toint", v) for v in ends)
        corners = [p.op("mul", x, y) for x in (a_lo, a_hi) for y in (b_lo, b_hi)]
        lo = p.op("min2", p.op("min2", corners[0], corners[1]),
                  p.op("min2", corners[2], corners[3]))
        hi = p.op("max2", p.op("max2", corners[0], corners[1]),
                  p.op("max2", corners[2], corners[3]))
        return self._ranged(e, fa, fb, known, lo, hi)

    def _derive(self, col: b.BColumn) -> Facts:
        p, name = self.p, col.name
        p.column_types[name] = col.stats_type
        zero = p.const(0)
        nc_slot = p.slot(name, "null_count")
        nc, nc_v = p.load(nc_slot), p.valid(nc_slot)
        # A null count is unknown when missing, negative or above the row count
        # (docs/semantics.md §1).
        nulls_ok = p.and_(nc_v, p.ge(nc, zero), p.or_(p.not_(self.rows_ok), p.le(nc, self.rows)))
        nulls = p.or_(p.not_(nulls_ok), p.gt(nc, zero))
        hn = p.not_(p.and_(nulls_ok, self.rows_ok, p.eq(nc, self.rows)))

        lo_slot, hi_slot = p.slot(name, "min"), p.slot(name, "max")
        lo, hi = p.load(lo_slot), p.load(hi_slot)
        lo_v, hi_v = p.valid(lo_slot), p.valid(hi_slot)
        # min > max makes both unknown (docs/semantics.md §1); compare before any conversion.
        ordered = p.not_(p.and_(lo_v, hi_v, p.gt(lo, hi)))
        lo_ok, hi_ok = p.and_(lo_v, ordered), p.and_(hi_v, ordered)
        nan, not_nan = p.const(False), p.const(True)
        if col.domain == "float" and not col.convert:
            # Where bounds include NaN it is the greatest value: a NaN min over a numeric max
            # is min > max, which IEEE's NaN > 5.0 (False) does not see; both are unknown.
            nan_over = p.and_(p.flag(name, "nan_in_bounds"), lo_v, hi_v, p.op("isnan", lo),
                              p.not_(p.op("isnan", hi)))
            ordered = p.and_(ordered, p.not_(nan_over))
            lo_ok = p.and_(lo_ok, p.not_(nan_over), p.not_(p.op("isnan", lo)))
            hi_ok = p.and_(hi_ok, p.not_(nan_over), p.not_(p.op("isnan", hi)))
            nan_slot = p.slot(name, "nan_count")
            nan_n, nan_v = p.load(nan_slot), p.valid(nan_slot)
            no_nan = p.or_(p.and_(nan_v, p.eq(nan_n, zero)), p.flag(name, "no_nan"))
            # Bounds that include NaN (Spark, Delta) prove "no NaN" by a numeric max (§4).
            proven = p.and_(p.flag(name, "nan_in_bounds"), hi_ok)
            nan = p.not_(p.or_(no_nan, proven))
            counted = p.and_(nan_v, nulls_ok, self.rows_ok,
                             p.eq(p.op("add", nan_n, nc), self.rows))
            # With NaN as the greatest value, a NaN minimum means every value is NaN.
            nan_min = p.and_(p.flag(name, "nan_in_bounds"), lo_v, p.op("isnan", lo), ordered)
            not_nan = p.not_(p.or_(counted, nan_min))
        x_slots = p.slot(name, "min_exact"), p.slot(name, "max_exact")
        lo_x = p.and_(p.valid(x_slots[0]), p.load(x_slots[0]))
        hi_x = p.and_(p.valid(x_slots[1]), p.load(x_slots[1]))
        for kind, *args in [col.convert] if col.convert else []:
            if kind in ("tofloat", "tofloat32"):  # rounding is monotone: bounds stay bounds
                lo, hi = p.op(kind, lo), p.op(kind, hi)
            elif kind == "floordiv":
                k = p.const(args[0])
                lo, hi = p.op("floordiv", lo, k), p.op("floordiv", hi, k)
            elif kind == "mul":  # decimal rescale; bind checked it cannot overflow
                k = p.const(args[0])
                lo, hi = p.op("mul", lo, k), p.op("mul", hi, k)
            elif kind == "mulchk":  # timestamp unit change: a bound that would overflow is unknown
                k, limit = p.const(args[0]), p.const((2**63 - 1) // args[0])
                lo_ok = p.and_(lo_ok, p.op("within", lo, limit))
                hi_ok = p.and_(hi_ok, p.op("within", hi, limit))
                lo, hi = p.op("mul", lo, k), p.op("mul", hi, k)
            elif kind == "affine":  # integer arithmetic with constants (arith.arith)
                lo, lo_ok, hi, hi_ok, lo_x, hi_x = self._affine(
                    name, args[0], lo, lo_ok, hi, hi_ok, lo_x, hi_x)
                if pa.types.is_decimal(col.type):
                    # A DECIMAL result beyond its precision is NULL (legacy mode): possible
                    # wherever a step may overflow. Known bounds stay within 2**62
                    # (``arith.clamp`` relies on it), even from malformed statistics.
                    limit = p.param(LIMIT, name)
                    lo_ok = p.and_(lo_ok, p.op("within", lo, limit))
                    hi_ok = p.and_(hi_ok, p.op("within", hi, limit))
                    nulls = p.or_(nulls, p.not_(p.and_(lo_ok, hi_ok)))
            elif kind == "toint":  # uint64 as int64 where it fits
                lo_ok = p.and_(lo_ok, p.op("fits_int64", lo))
                hi_ok = p.and_(hi_ok, p.op("fits_int64", hi))
                lo, hi = p.op("toint", lo), p.op("toint", hi)
        facts = Facts(hn, nulls, lo, lo_ok, hi, hi_ok, lo_x, hi_x, nan, not_nan)
        shown = col.label()
        for field, label in (("hn", "has values"), ("nulls", "has nulls"), ("lo_ok", ".min known"),
                             ("hi_ok", ".max known"), ("lo_exact", ".min exact"),
                             ("hi_exact", ".max exact"), ("nan", "may be NaN"),
                             ("not_nan", "may hold numbers")):
            step = getattr(facts, field)
            if p.steps[step].op != "const":
                self.names.setdefault(step, shown + (label if label[0] == "." else " " + label))
        if col.convert:
            self.names.setdefault(lo, f"{shown}.min")
            self.names.setdefault(hi, f"{shown}.max")
        return facts

    def _affine(self, name: str, steps: tuple, lo, lo_ok, hi, hi_ok, lo_x, hi_x) -> tuple:
        """Bounds through ``+ c`` and ``* c`` steps in a result type [tmin, tmax]. A step that
        could overflow for some value between the bounds makes both bounds unknown: Spark's
        legacy mode wraps such a value anywhere (ANSI mode fails the query)."""
        p = self.p
        for op, c, tmin, tmax in steps:
            if op == "add":
                safe = (p.and_(hi_ok, p.le(hi, p.param(tmax - c, name))) if c >= 0 else
                        p.and_(lo_ok, p.ge(lo, p.param(tmin - c, name))))
                k = p.param(c, name)
                lo, hi = p.op("add", lo, k), p.op("add", hi, k)
            else:  # mul by c != 0: every value v with tmin <= v * c <= tmax
                low, high = (-(-tmin // c), tmax // c) if c > 0 else (-(-tmax // c), tmin // c)
                low, high = max(low, -(2**63)), min(high, 2**63 - 1)  # x itself is an int64
                safe = p.and_(lo_ok, hi_ok, p.ge(lo, p.param(low, name)),
                              p.le(hi, p.param(high, name)))
                k = p.param(c, name)
                lo, hi = p.op("mul", lo, k), p.op("mul", hi, k)
                if c < 0:  # decreasing: the bounds trade places
                    lo, hi, lo_x, hi_x = hi, lo, hi_x, lo_x
            lo_ok, hi_ok = p.and_(lo_ok, safe), p.and_(hi_ok, safe)
        return lo, lo_ok, hi, hi_ok, lo_x, hi_x

    # ---- nodes -------------------------------------------------------------------------
    def bits(self, node: b.BPredicate) -> Bits:
        """The three bits of ``node`` (``_Bits``)."""
        return b.visit(node, _Bits(self, node))

    def never(self, root: b.BPredicate) -> tuple[dict, dict]:
        """The nodes of ``root`` never TRUE, and those never FALSE, whatever the statistics
        (``impossible.py``), once per root."""
        return self._walk(root)[0]

    def _walk(self, root: b.BPredicate) -> tuple:
        """(never TRUE, never FALSE) of ``root`` and a predicate TRUE wherever it is, or None
        (``impossible.analyse``, ``where_true``), once per root."""
        known = self._walks.get(id(root))
        if known is None or known[0] is not root:
            walk = analyse(root)
            found = ({}, {}) if walk is None else (walk.never_true, walk.never_false)
            known = self._walks[id(root)] = (root, found, where_true(walk))
        return known[1:]

    def implied(self, root: b.BPredicate) -> b.BPredicate | None:
        """A predicate TRUE wherever ``root`` is (``impossible.where_true``), or None."""
        return self._walk(root)[1]

    def may_be_true(self, root: b.BPredicate, may: int) -> int:
        """``may`` ("may be TRUE" of ``root``) and "may be TRUE" of a predicate TRUE wherever
        ``root`` is (``impossible.where_true``): where none of a container's rows can make
        that TRUE, none makes the root TRUE either."""
        implied = self.implied(root)
        if implied is None:
            return may
        return self.p.and_(may, b.visit(implied, _Bits(self, implied)).true)

    def leaf(self, x: b.BLeaf) -> Bits:
        """The bits of a leaf by its rule (``leaves.py``), once per leaf object."""
        bits = self.leaf_bits.get(id(x))
        if bits is None:
            bits = self.leaf_bits[id(x)] = getattr(self._rules, x.method)(x)  # its rule
        return bits

    def decisive(self, node: b.BPredicate) -> tuple[int, int]:
        """Steps of "may be TRUE" and "may be other than TRUE" (FALSE or NULL) of ``node``: all
        an outcome asks (docs/semantics.md, the lattice). AND and OR combine these pairs with
        one and/or per child, where their NULL bit took one per child and two more (``bits``);
        below a NOT the dual pair, "may be FALSE" and "may be other than FALSE", is combined
        (``_Decisive``).

        "May be TRUE" is ``bits(node).true``. The other bit is never below ``bits``' FALSE or
        NULL, so an outcome from the pair is as sound; it is higher only where some child is
        impossible in every way at once, and the property tests find the outcomes equal.

        >>> import pyarrow as pa
        >>> from prunekit.expr.binding.bind import bind
        >>> from prunekit.expr.syntax.sql import parse
        >>> r = Rewriter()
        >>> bound = bind(parse("NOT (x > 5 OR x < 0)"), pa.schema([("x", pa.int64())]))
        >>> may, other = r.decisive(bound)
        >>> r.p.steps[may].op, r.p.steps[other].op  # NOT (a OR b): FALSE of both, other of one
        ('and', 'or')
        """
        return b.visit(node, _Decisive(self, node))[True]

    def on_values(self, f: Facts, true: int, false: int, nulls: int | None = None) -> Bits:
        """Bits of a comparison-like leaf: TRUE/FALSE need a non-NULL row, NULL rows give NULL."""
        p = self.p
        return Bits(p.and_(f.hn, true), p.and_(f.hn, false), f.nulls if nulls is None else nulls)

    def program(self, root: object, prune_only: bool = False) -> Program:
        """The program of a bound predicate; ``prune_only``: one that tells NONE_MATCH from
        the rest and nothing more (every other container MAYBE_MATCH). Only "may be TRUE" is
        asked, so the build drops every step, and every statistic, that only FALSE and NULL
        needed (``x = 5`` reads no exactness flags). Bounds stay checked against each other
        (``min > max`` is malformed, unknown), so ``prune`` agrees with ``classify``."""
        self.root = root
        if prune_only:
            anything = self.p.const(True)
            may = self.may_be_true(root, self.bits(root).true)
            outcome = self.p.op("outcome", may, anything, anything, self.empty)
        else:
            may, other = self.decisive(root)
            may = self.may_be_true(root, may)
            outcome = self.p.op("outcome", may, other, self.p.const(False), self.empty)
        return self.p.build(outcome)


class _Bits(b.EveryLeafAlike[Bits]):
    """The lattice: a leaf's bits by its rule, each combinator's from its children's (the
    module's table)."""

    def __init__(self, r: Rewriter, root: b.BPredicate) -> None:
        self.r, self.p = r, r.p
        self.never_true, self.never_false = r.never(root)
        self.found: dict[int, Bits] = {}  # id -> bits of each AND, OR, reading and rewrite

    def _cut(self, node: b.BPredicate, bits: Bits) -> Bits:
        """``bits`` with TRUE (FALSE) impossible where no row can give it (impossible.py);
        kept in ``found`` by node."""
        no = self.p.const(False)
        bits = Bits(no if id(node) in self.never_true else bits.true,
                    no if id(node) in self.never_false else bits.false, bits.null)
        self.found[id(node)] = bits
        return bits

    def visit_leaf(self, leaf: b.BLeaf) -> Bits:
        return self.r.leaf(leaf)

    def visit_not(self, node: b.BNot, results: list[Bits]) -> Bits:
        k = results[0]
        return Bits(k.false, k.true, k.null)

    def visit_and(self, node: b.BAnd, results: list[Bits]) -> Bits:
        p = self.p
        return self._cut(node, Bits(
            p.and_(*(k.true for k in results)), p.or_(*(k.false for k in results)),
            p.and_(p.or_(*(k.null for k in results)), *(p.or_(k.true, k.null) for k in results))))

    def visit_or(self, node: b.BOr, results: list[Bits]) -> Bits:
        p = self.p
        return self._cut(node, Bits(
            p.or_(*(k.true for k in results)), p.and_(*(k.false for k in results)),
            p.and_(p.or_(*(k.null for k in results)), *(p.or_(k.false, k.null) for k in results))))

    def visit_is_bool(self, node: b.BIsBool, results: list[Bits]) -> Bits:
        k = results[0]
        yes, no = (k.true, k.false) if node.value else (k.false, k.true)
        return Bits(yes, self.p.or_(no, k.null), self.p.const(False))

    def visit_either(self, node: b.BEither, results: list[Bits]) -> Bits:
        p = self.p
        return self._cut(node, Bits(p.or_(*(k.true for k in results)),
                                    p.or_(*(k.false for k in results)),
                                    p.or_(*(k.null for k in results))))

    def visit_rewritten(self, node: b.BRewritten, results: list[Bits]) -> Bits:
        return self._cut(node, results[0])  # the same predicate, spelled on the column

    def visit_widen(self, node: b.BWiden, results: list[Bits]) -> Bits:
        p = self.p
        k, g = results[0], results[1].true
        return Bits(p.or_(k.true, g), p.or_(k.false, g), p.or_(k.null, g))


class _Decisive(b.EveryLeafAlike[dict]):
    """``Rewriter.decisive``: each node's pairs from its children's, by sign. Under sign True
    a pair is (may be TRUE, may be other than TRUE); under False (what a NOT above asks) it is
    (may be FALSE, may be other than FALSE). Only the signs a node is asked under are built
    (``_signs``), so no step is made that the outcome does not reach."""

    def __init__(self, r: Rewriter, root: b.BPredicate) -> None:
        self.r, self.p = r, r.p
        self.signs = _signs(root)
        never_true, never_false = r.never(root)
        self.never = {True: never_true, False: never_false}
        self.root, self._bits = root, None

    def _bits_of(self, node: b.BPredicate) -> Bits:
        """The bits of a combinator of the root (``_Bits``), from one walk over the root."""
        if self._bits is None:
            walk = _Bits(self.r, self.root)
            b.visit(self.root, walk)
            self._bits = walk.found
        return self._bits[id(node)]

    def _cut(self, node: b.BPredicate, pairs: dict) -> dict:
        """``pairs`` where no row can give the node one truth (impossible.py): under sign
        True, never TRUE makes "may be TRUE" false, and never FALSE leaves of "may be other
        than TRUE" the NULL bit alone (``bits``); under sign False the same, TRUE and FALSE
        swapped."""
        out = {}
        for s, (may, other) in pairs.items():
            if id(node) in self.never[s]:
                may = self.p.const(False)
            if id(node) in self.never[not s]:
                other = self._bits_of(node).null
            out[s] = (may, other)
        return out

    def visit_leaf(self, leaf: b.BLeaf) -> dict:
        bits, p = self.r.leaf(leaf), self.p
        return {s: (bits.true, p.or_(bits.false, bits.null)) if s else
                (bits.false, p.or_(bits.true, bits.null)) for s in self.signs[id(leaf)]}

    def visit_not(self, node: b.BNot, results: list[dict]) -> dict:
        return {s: results[0][not s] for s in self.signs[id(node)]}

    def _every(self, pairs: list[tuple[int, int]]) -> tuple[int, int]:  # every child must
        return self.p.and_(*(k[0] for k in pairs)), self.p.or_(*(k[1] for k in pairs))

    def _any(self, pairs: list[tuple[int, int]]) -> tuple[int, int]:  # one child is enough
        return self.p.or_(*(k[0] for k in pairs)), self.p.and_(*(k[1] for k in pairs))

    def visit_and(self, node: b.BAnd, results: list[dict]) -> dict:
        # TRUE of AND: every child TRUE; FALSE of AND: some child FALSE.
        return self._cut(node, {s: (self._every if s else self._any)([k[s] for k in results])
                                for s in self.signs[id(node)]})

    def visit_or(self, node: b.BOr, results: list[dict]) -> dict:
        return self._cut(node, {s: (self._any if s else self._every)([k[s] for k in results])
                                for s in self.signs[id(node)]})

    def visit_is_bool(self, node: b.BIsBool, results: list[dict]) -> dict:
        # Never NULL: IS TRUE is TRUE where the argument may be TRUE, FALSE where it may be
        # other than TRUE; IS FALSE likewise with the argument's FALSE.
        pair = results[0][node.value]
        return {s: pair if s else pair[::-1] for s in self.signs[id(node)]}

    def visit_either(self, node: b.BEither, results: list[dict]) -> dict:
        p = self.p
        return self._cut(node, {s: (p.or_(*(k[s][0] for k in results)),
                                    p.or_(*(k[s][1] for k in results)))
                                for s in self.signs[id(node)]})

    def visit_rewritten(self, node: b.BRewritten, results: list[dict]) -> dict:
        return self._cut(node, results[0])

    def visit_widen(self, node: b.BWiden, results: list[dict]) -> dict:
        p = self.p
        arg, guard = results[0], results[1][True][0]  # anything where the guard may be TRUE
        return {s: (p.or_(arg[s][0], guard), p.or_(arg[s][1], guard))
                for s in self.signs[id(node)]}


def _signs(root: b.BPredicate) -> dict[int, tuple[bool, ...]]:
    """The signs each node of ``root`` is asked under (True at the root), without recursion:
    NOT flips its sign, IS TRUE / IS FALSE asks its argument under its own value, a widening
    asks its guard under True; every other combinator asks its children under its own. A
    kind that asked otherwise would find a child's pair missing (a ``KeyError``), never a
    wrong one."""
    found: dict[int, tuple[bool, ...]] = {}
    stack = [(root, True)]
    while stack:
        x, sign = stack.pop()
        signs = found.get(id(x), ())
        if sign in signs:
            continue
        found[id(x)] = (*signs, sign)
        kids = x.children()
        if isinstance(x, b.BNot):
            stack.append((x.arg, not sign))
        elif isinstance(x, b.BIsBool):
            stack.append((x.arg, x.value))
        elif isinstance(x, b.BWiden):
            stack.extend([(x.arg, sign), (x.guard, True)])
        else:
            stack.extend((k, sign) for k in kids)
    return found


def rewrite(bound: object, prune_only: bool = False) -> Program:
    """The statistics program of a bound predicate (``Rewriter.program``).

    >>> import pyarrow as pa
    >>> from prunekit.expr.binding.bind import bind
    >>> from prunekit.expr.syntax.sql import parse
    >>> bound = bind(parse("x = 5"), pa.schema([("x", pa.int64())]))
    >>> full, prune = rewrite(bound), rewrite(bound, prune_only=True)
    >>> len(full.steps), len(prune.steps)
    (69, 49)
    >>> sorted({s.stat for s in full.slots} - {s.stat for s in prune.slots})  # ALL_MATCH's
    ['max_exact', 'min_exact']
    """
    return Rewriter().program(bound, prune_only)

