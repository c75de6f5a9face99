"""Monotone functions, ``coalesce`` and ``CASE WHEN`` in predicates (issue 7, item 2).

A whitelist. Each function of a column is rewritten, when compared with a literal, into a
predicate on the column itself, so no kernel op is new: a non-decreasing ``f`` whose every
preimage is an interval has ``f(x) >= m`` exactly when ``x >= A(m)`` for one threshold ``A(m)``,
and ``f(x) > m`` exactly when ``x >= A'(m)``. Every comparison is one of those or its negation
(``f(x) < m`` is ``NOT f(x) >= m``, exact in three-valued logic: f is NULL exactly when x is),
and ``f(x) = m`` is ``f(x) >= m AND NOT f(x) > m``. Inexact bounds of ``x`` stay what they are:
the leaves compare the column, which is what its statistics describe.

==================================== ======================================================
function (Spark)                      ``f(x) >= m`` as a predicate on ``x``
==================================== ======================================================
``year(d)`` (dates, timestamps)       ``d >= m-01-01``
``date_trunc(u, t)``, ``trunc(d, u)`` ``t >= m`` if m starts a u-period, else the next start
``floor(x)`` DOUBLE/FLOAT (BIGINT)    ``x >= m`` (real); NaN rows are 0, ±inf saturate
``ceil(x)``                           ``x > m - 1``
``floor``/``ceil`` of DECIMAL, ints   the same, exactly (integers: ``floor(x)`` is ``x``)
``left(s, k)``, ``substring(s,1,k)``  ``s >= m`` (m of at most k characters), else
                                      ``s >= succ(m[:k])`` (prefix successor, bytes)
==================================== ======================================================

``coalesce(x, c) op lit`` is ``(x op lit) IS TRUE`` when ``c op lit`` is FALSE, else ``NOT (x op
lit) IS FALSE`` (``x op lit`` is NULL exactly where x is, and there c decides);
and ``CASE WHEN c1 THEN v1 ... ELSE v END op lit`` is ``OR_i (sel_i AND v_i op lit)``, where
``sel_i`` = ``c_i IS TRUE AND NOT c_j IS TRUE (j < i)`` is never NULL (a row takes the first
branch whose condition is TRUE). Both are exact in three-valued logic.

Timestamps: ``year``, ``to_date`` and ``date_trunc`` of a TIMESTAMP follow Spark's session time
zone; prunekit reads them in **UTC**, as it reads timestamp literals without an offset (a
session in another zone may see other calendar days: use UTC sessions, or TIMESTAMP_NTZ,
which has no zone). explain() says so where it applies.

>>> import pyarrow as pa
>>> from .bind import bind
>>> from .sql import parse
>>> bind(parse("year(d) = 2024"), pa.schema([("d", pa.date32())]))
Rewritten(arg=BAnd(args=(Bound(col=d, op='ge', value=19723), BNot(arg=Bound(col=d, op='ge', \
value=20089)))), text='year(d) = 2024')
"""

from __future__ import annotations

import decimal
import math
from dataclasses import dataclass
from fractions import Fraction

import pyarrow as pa

from . import bind as B
from . import bound as b
from . import literals as L
from . import nodes as n
from .errors import TypeMismatchError

INT64_MIN, INT64_MAX = -(2**63), 2**63 - 1
UTC_NOTE = "; timestamps read in UTC, as Spark with session time zone UTC"


# ---- the proleptic Gregorian calendar (Spark's, java.time) --------------------------------
def days_from_civil(y: int, m: int, d: int) -> int:
    """Days since 1970-01-01 of a date, for any year (H. Hinnant's algorithm).

    >>> days_from_civil(1970, 1, 1), days_from_civil(2000, 3, 1), days_from_civil(-1, 12, 31)
    (0, 11017, -719529)
    """
    y -= m <= 2
    era = y // 400
    yoe = y - era * 400
    doy = (153 * (m + (-3 if m > 2 else 9)) + 2) // 5 + d - 1
    doe = yoe * 365 + yoe // 4 - yoe // 100 + doy
    return era * 146097 + doe - 719468


def civil_from_days(z: int) -> tuple[int, int, int]:
    """(year, month, day) of a day count since 1970-01-01; the inverse of days_from_civil.

    >>> civil_from_days(0), civil_from_days(11017), civil_from_days(-719529)
    ((1970, 1, 1), (2000, 3, 1), (-1, 12, 31))
    """
    z += 719468
    era = z // 146097
    doe = z - era * 146097
    yoe = (doe - doe // 1460 + doe // 36524 - doe // 146096) // 365
    doy = doe - (365 * yoe + yoe // 4 - yoe // 100)
    mp = (5 * doy + 2) // 153
    d = doy - (153 * mp + 2) // 5 + 1
    m = mp + 3 if mp < 10 else mp - 9
    return yoe + era * 400 + (m <= 2), m, d


# ---- operands made by a whitelisted function ------------------------------------------------
class Applied:
    """A bound value made by a whitelisted function; bind's compare, IS NULL and boolean uses
    ask it. ``why`` is what a use it cannot prune shows in explain()."""

    why: str = ""

    def compare(self, op: n.Op, lit: B.LitOp) -> object:  # pragma: no cover - abstract
        raise NotImplementedError

    def is_null(self) -> object:  # pragma: no cover - abstract
        raise NotImplementedError

    def as_predicate(self) -> object:
        raise TypeMismatchError(f"not a boolean predicate: {self.why}")


@dataclass(frozen=True)
class Monotone(Applied):
    """``f(x)`` for a non-decreasing ``f`` of the column operand ``arg``: ``ge(m)`` / ``gt(m)``
    give ``f(x) >= m`` / ``f(x) > m`` for a value ``m`` of ``type`` in its kernel domain."""

    label: str
    arg: B.ColOp
    type: pa.DataType  # Spark's result type, which literals are coerced to
    ge: object  # m -> bound predicate on arg
    gt: object
    utc: bool = False  # reads a timestamp's calendar fields (explain says: in UTC)
    between: object = None  # (first, last) -> first <= f(x) <= last, where one leaf is tighter

    @property
    def why(self) -> str:
        return f"{self.label} is used for pruning only compared with a literal"

    def compare(self, op: n.Op, lit: B.LitOp) -> object:
        if lit.value is None:
            return b.Const(None)
        if op is n.Op.NE:
            return b.BNot(self.compare(n.Op.EQ, lit))
        shown = f"{self.label} {op.value} {_shown(lit)}"
        if self.utc:
            shown += UTC_NOTE
        legacy = L.legacy_reading(lit.value, lit.type, self.type)
        ansi = self._placed(op, L.coerce(lit.value, self.type))
        if legacy is not L.SAME:
            other = b.Const(None) if legacy is None else self._placed(
                op, L.coerce(legacy, self.type))
            ansi = b.Either((ansi, other))
        return b.Rewritten(ansi, shown)

    def _placed(self, op: n.Op, c: L.Coerced) -> object:
        col = self.arg.col
        if isinstance(c, (L.BelowMin, L.AboveMax)) or (  # NaN is above every number
                isinstance(c, L.Exact) and isinstance(c.value, float) and c.value != c.value):
            above = not isinstance(c, L.BelowMin)
            truth = {n.Op.EQ: False, n.Op.LT: above, n.Op.LE: above, n.Op.GT: not above,
                     n.Op.GE: not above}[op]
            return b.NonNull(col, truth)
        if op is n.Op.GE:
            return self.ge(c.first)
        if op is n.Op.LT:
            return b.BNot(self.ge(c.first))
        if op is n.Op.GT:
            return self.gt(c.last)
        if op is n.Op.LE:
            return b.BNot(self.gt(c.last))
        if _gt_key(c.first, c.last):  # a literal between two results: equals none
            return b.NonNull(col, False)
        if self.between is not None:
            return self.between(c.first, c.last)
        return b.BAnd((self.ge(c.first), b.BNot(self.gt(c.last))))

    def is_null(self) -> object:
        return B._is_null(None, (self.arg,))


def _gt_key(x: object, y: object) -> bool:
    return x > y


def _shown(lit: B.LitOp) -> str:
    from .render import literal_sql

    try:
        return literal_sql(lit.value, lit.type)
    except Exception:  # only for explain: never fail on display
        return repr(lit.value)


def _at_least(col: b.BColumn, a: object) -> object:
    """``col >= a`` for an integer ``a`` of any size in the column's int domain."""
    lo, hi = L.int_range(col.type)
    if a <= lo:
        return b.NonNull(col, True)
    if a > hi:
        return b.NonNull(col, False)
    return b.Bound(col, "ge", a)


def _int_valued(ge_of) -> tuple:
    """(ge, gt) of an integer-valued function from its ``ge``: ``f > m`` is ``f >= m + 1``."""
    return ge_of, lambda m: ge_of(m + 1)


# ---- dates and timestamps -------------------------------------------------------------------
_PER_SECOND = {"s": 1, "ms": 10**3, "us": 10**6, "ns": 10**9}


def _per_day(t: pa.DataType) -> int | None:
    """Domain ticks per day of a date or timestamp type."""
    if pa.types.is_date32(t):
        return 1
    if pa.types.is_date64(t):
        return 86_400_000
    if pa.types.is_timestamp(t):
        return 86_400 * _PER_SECOND[t.unit]
    return None


def _temporal(x: object) -> b.BColumn | None:
    if not isinstance(x, B.ColOp) or x.negated or not isinstance(x.col, b.BColumn) or \
            x.col.domain != "int" or _per_day(x.col.type) is None:
        return None
    return x.col


def _year(x: B.ColOp) -> Monotone | None:
    col = _temporal(x)
    if col is not None and pa.types.is_timestamp(col.type):
        col = B.cast_column(col, pa.date32()) if not col.convert else None
    if col is None:
        return None
    k = _per_day(col.type)
    ge, gt = _int_valued(lambda m: _at_least(col, days_from_civil(m, 1, 1) * k))
    shown = x.col.sql() if x.col.convert and x.col.convert[0] == "floordiv" else x.col.label()
    return Monotone(f"year({shown})", B.ColOp(col), pa.int32(), ge, gt,
                    utc=pa.types.is_timestamp(x.col.stats_type))


def _days(x: B.ColOp) -> b.BColumn | None:
    """The column as a day count since 1970-01-01 (a timestamp: its UTC day), or None."""
    col = _temporal(x)
    if col is None or pa.types.is_date32(col.type):
        return col
    if col.convert:
        return None
    return b.BColumn(col.name, col.stats_type, pa.date32(), "int", ("floordiv", _per_day(
        col.type)))


def _civil_steps(p, days: int) -> tuple[int, int]:
    """Program steps for (months since year 0, day of month) of a day count, with the ops
    every backend has (Hinnant's civil_from_days: floor divisions by positive constants,
    products with constants, sums). The month count ``12 * year + month - 1`` is monotone in
    the day; the years of the March-based 400-year eras never overflow int64 here."""
    def c(v: int) -> int:
        return p.const(v)

    def div(a: int, k: int) -> int:
        return p.op("floordiv", a, c(k))

    def minus(a: int, b_: int) -> int:
        return p.op("add", a, p.op("mul", b_, c(-1)))

    z = p.op("add", p.op("toint", days), c(719468))
    era = div(z, 146097)
    doe = minus(z, p.op("mul", era, c(146097)))
    yoe = div(p.op("add", minus(doe, div(doe, 1460)), minus(div(doe, 36524), div(doe, 146096))),
              365)
    doy = minus(doe, minus(p.op("add", p.op("mul", yoe, c(365)), div(yoe, 4)), div(yoe, 100)))
    mp = div(p.op("add", p.op("mul", doy, c(5)), c(2)), 153)  # 0 is March
    day = p.op("add", minus(doy, div(p.op("add", p.op("mul", mp, c(153)), c(2)), 5)), c(1))
    year0 = p.op("add", yoe, p.op("mul", era, c(400)))  # the March-based year
    months = p.op("add", p.op("add", p.op("mul", year0, c(12)), mp), c(2))
    return months, day


def calendar_facts(r, e: b.BCalendar):
    """Facts of ``month(d)`` / ``day(d)``: monotone only within a year / a month, so the
    month (day) of min and max bound it when both fall in one year (month); else the bounds
    are unknown. Exact where the day bound is (that day occurs, and so its month)."""
    from .rewrite import Facts

    p, f = r.p, r.facts(e.col)
    m_lo, d_lo = _civil_steps(p, f.lo)
    m_hi, d_hi = _civil_steps(p, f.hi)
    known = p.and_(f.lo_ok, f.hi_ok)
    if e.field == "month":
        same = p.and_(known, p.eq(p.op("floordiv", m_lo, p.const(12)),
                                  p.op("floordiv", m_hi, p.const(12))))

        def month(m: int) -> int:
            return p.op("add", p.op("add", m, p.op("mul", p.op("floordiv", m, p.const(12)),
                                                      p.const(-12))), p.const(1))

        lo, hi = month(m_lo), month(m_hi)
    else:
        same = p.and_(known, p.eq(m_lo, m_hi))
        lo, hi = d_lo, d_hi
    shown = e.label()
    period = "year" if e.field == "month" else "month"
    r.names.setdefault(same, f"{e.col.label()} bounds in one {period}")
    r.names.setdefault(lo, f"{shown}.min")
    r.names.setdefault(hi, f"{shown}.max")
    return Facts(f.hn, f.nulls, lo, same, hi, same, p.and_(same, f.lo_exact),
                 p.and_(same, f.hi_exact), p.const(False), p.const(True))


# Spark's unit names: (months per period) for calendar units, (seconds, offset in days) else.
_CALENDAR = {"year": 12, "yyyy": 12, "yy": 12, "quarter": 3, "month": 1, "mm": 1, "mon": 1}
_FIXED = {"week": (7 * 86_400, 4), "day": (86_400, 0), "dd": (86_400, 0), "hour": (3600, 0),
          "minute": (60, 0), "second": (1, 0), "millisecond": (Fraction(1, 10**3), 0),
          "microsecond": (Fraction(1, 10**6), 0)}
_TRUNC_UNITS = {"year", "yyyy", "yy", "quarter", "month", "mm", "mon", "week"}


def _period(unit: str, t: pa.DataType) -> tuple:
    """(start, next_start) of the unit's periods in the domain of ``t``: the period start at or
    below a value, and the first start above it."""
    k = _per_day(t)
    if unit in _CALENDAR:
        months = _CALENDAR[unit]

        def start(v: int) -> int:
            y, m, _ = civil_from_days(v // k)
            return days_from_civil(y, m - (m - 1) % months, 1) * k

        def next_start(v: int) -> int:
            y, m, _ = civil_from_days(v // k)
            m0 = m - (m - 1) % months + months - 1  # 0-based month index of the next start
            return days_from_civil(y + m0 // 12, m0 % 12 + 1, 1) * k

        return start, next_start
    seconds, offset_days = _FIXED[unit]
    # Ticks per period; a unit finer than the column's tick (milliseconds of a column in
    # seconds) leaves every value as it is: one tick per period.
    step = max(1, int(Fraction(seconds) * k / 86_400))
    off = offset_days * k

    def start_fixed(v: int) -> int:
        return (v - off) // step * step + off

    return start_fixed, lambda v: start_fixed(v) + step


def _truncated(name: str, unit: object, x: B.ColOp) -> Monotone | None:
    """``date_trunc(unit, x)`` (TIMESTAMP) or ``trunc(x, unit)`` (DATE): the period start."""
    col = _temporal(x)
    if col is None or not isinstance(unit, B.LitOp) or not isinstance(unit.value, str):
        return None
    u = unit.value.lower()
    if name == "trunc":
        if u not in _TRUNC_UNITS:
            return None  # Spark gives NULL; left unknown
        if pa.types.is_timestamp(col.type):
            col = B.cast_column(col, pa.date32()) if not col.convert else None
            if col is None:
                return None
    elif u not in _CALENDAR and u not in _FIXED:
        return None
    start, next_start = _period(u, col.type)  # a date under a sub-day unit: itself

    def ge(m: int) -> object:
        return _at_least(col, m if start(m) == m else next_start(m))

    def gt(m: int) -> object:
        return _at_least(col, next_start(m))

    label = (f"date_trunc('{u}', {x.col.label()})" if name == "date_trunc" else
             f"trunc({x.col.label()}, '{u}')")
    return Monotone(label, B.ColOp(col), col.type, ge, gt,
                    utc=pa.types.is_timestamp(x.col.stats_type))


# ---- floor and ceil -------------------------------------------------------------------------
def _double_at_least(x: Fraction | int) -> float:
    """The smallest double >= x (x finite)."""
    f = float(x)
    return f if Fraction(f) >= x else math.nextafter(f, math.inf)


def _rounding(name: str, x: B.ColOp) -> object | None:
    """``floor(x)`` or ``ceil(x)``: Spark gives BIGINT for integers (their own value) and for
    DOUBLE/FLOAT (NaN is 0, beyond the range saturates: ANSI mode fails instead), and
    DECIMAL(p - s + 1, 0) for DECIMAL(p, s)."""
    col = x.col
    if col.domain == "int" and pa.types.is_integer(col.type) and pa.types.is_signed_integer(
            col.stats_type):
        if isinstance(col, b.BColumn) and not col.convert and not x.negated:
            return B.ColOp(B.cast_column(col, pa.int64()) or col)  # BIGINT, the same values
        return x  # an integer is its own floor
    if x.negated:
        return None
    ceil = name == "ceil"
    if col.domain == "float" and (isinstance(col, b.BFloatOp) or pa.types.is_floating(col.type)):
        def between(first: int, last: int) -> object:
            """first <= f(x) <= last. The numbers x with that are one interval [lo, hi] (the
            ends saturate), which InRange tests for numbers only (NaN is above inf); NaN rows
            are 0. One leaf each, so a NaN the statistics cannot rule out costs no pruning."""
            lo = -math.inf if first == INT64_MIN else (
                _ceil_threshold(first) if ceil else _double_at_least(first))
            hi = math.inf if last >= INT64_MAX else math.nextafter(
                _ceil_threshold(last + 1) if ceil else _double_at_least(last + 1), -math.inf)
            parts = ([b.InRange(col, lo, hi)] if lo <= hi else []) + (
                [b.NanEq(col)] if first <= 0 <= last else [])
            return b.BOr(tuple(parts)) if len(parts) > 1 else parts[0] if parts else \
                b.NonNull(col, False)

        def gt(m: int) -> object:
            return between(m + 1, INT64_MAX) if m < INT64_MAX else b.NonNull(col, False)

        return Monotone(f"{name}({col.label()})", x, pa.int64(),
                        lambda m: between(m, INT64_MAX), gt, between=between)
    if pa.types.is_decimal(col.type) and not col.convert:
        p, s = col.type.precision, col.type.scale

        def ge_dec(m: int) -> object:
            # floor(x) >= m iff x >= m; ceil(x) >= m iff x > m - 1
            lit = B.LitOp(decimal.Decimal(m - 1 if ceil else m))
            return B._column_vs_literal(n.Op.GT if ceil else n.Op.GE, col,
                                        L.coerce(lit.value, col.type))

        ge, gt = _int_valued(ge_dec)
        return Monotone(f"{name}({col.label()})", x, pa.decimal128(min(38, p - s + 1), 0), ge,
                        gt)
    return None


def _ceil_threshold(m: int) -> float:
    """The smallest double above m - 1: ``ceil(x) >= m`` iff ``x > m - 1``."""
    t = _double_at_least(m - 1)
    return math.nextafter(t, math.inf) if Fraction(t) == m - 1 else t


# ---- string prefixes --------------------------------------------------------------------------
def _prefix_of(x: B.ColOp, k: int, label: str) -> object | None:
    """``left(s, k)``: the first k characters. Byte order is code point order, and a prefix of
    k characters is a byte prefix of s, so for a literal m of j characters: ``left(s, k) >= m``
    is ``s >= m`` when j <= k, else ``s >= succ(m[:k])`` (nothing starting with m[:k] reaches
    m); ``left(s, k) > m`` is ``s > m`` when j < k, else ``s >= succ(m[:k])``."""
    col = x.col
    if x.negated or not isinstance(col, b.BColumn) or not B._is_text(col.type):
        return None
    from .leaves import prefix_successor

    def chars(m: bytes) -> str:
        return m.decode("utf-8", "surrogatepass")

    def at_least_succ(m: bytes) -> object:
        succ = prefix_successor(chars(m)[:k].encode("utf-8", "surrogatepass"))
        return b.NonNull(col, False) if succ is None else b.Bound(col, "ge", succ)

    def ge(m: bytes) -> object:
        if k <= 0:
            return b.NonNull(col, m == b"")  # '' >= m
        return b.Bound(col, "ge", m) if len(chars(m)) <= k else at_least_succ(m)

    def gt(m: bytes) -> object:
        if k <= 0:
            return b.NonNull(col, False)
        return b.Bound(col, "gt", m) if len(chars(m)) < k else at_least_succ(m)

    return Monotone(label, x, pa.string(), ge, gt)


def _int_literal(x: object) -> int | None:
    if isinstance(x, B.LitOp) and isinstance(x.value, int) and not isinstance(x.value, bool):
        return x.value
    return None


# ---- coalesce and CASE -----------------------------------------------------------------------
def _value_type(x: object) -> pa.DataType | None:
    if isinstance(x, B.ColOp):
        return x.col.type
    if isinstance(x, Monotone):
        return x.type
    return None


def _const_truth(op: n.Op, value: object, c: L.Coerced) -> bool:
    """``value op literal`` for a value and a literal placed in one domain (``literals.py``);
    NaN is above every number and equal to itself."""
    def key(v: object) -> tuple:
        return (1, 0) if isinstance(v, float) and v != v else (0, v)

    if isinstance(c, (L.BelowMin, L.AboveMax)):
        above = isinstance(c, L.AboveMax)
        return {n.Op.EQ: False, n.Op.LT: above, n.Op.LE: above, n.Op.GT: not above,
                n.Op.GE: not above}[op]
    v, first, last = key(value), key(c.first), key(c.last)
    return {n.Op.EQ: first <= v <= last, n.Op.LT: v < first, n.Op.GE: v >= first,
            n.Op.LE: v <= last, n.Op.GT: v > last}[op]


def _literal_branch(op: n.Op, value: B.LitOp, t: pa.DataType, lit: B.LitOp) -> object:
    """A constant branch compared with the literal, in the branch type ``t``; None when the
    engine's modes could read it differently."""
    if value.value is None:
        return b.Const(None)
    if L.legacy_reading(lit.value, lit.type, t) is not L.SAME:
        return None
    placed = L.coerce(value.value, t)
    if op is n.Op.NE:
        return b.Const(not _const_truth(n.Op.EQ, placed.first, L.coerce(lit.value, t)))
    return b.Const(_const_truth(op, placed.first, L.coerce(lit.value, t)))


def _fits(value: B.LitOp, t: pa.DataType) -> bool:
    """The literal is exactly a value of ``t`` (so the branch type is ``t`` in Spark)."""
    if value.value is None:
        return True
    if isinstance(value.value, bool) != pa.types.is_boolean(t):
        return False
    try:
        return isinstance(L.coerce(value.value, t), L.Exact)
    except TypeMismatchError:
        return False


@dataclass(frozen=True)
class Coalesce(Applied):
    """``coalesce(x, c)``: x where it is not NULL, else the constant c (never NULL)."""

    arg: object  # ColOp or Monotone
    const: B.LitOp
    type: pa.DataType

    @property
    def why(self) -> str:
        return "coalesce(...) is used for pruning only compared with a literal"

    def compare(self, op: n.Op, lit: B.LitOp) -> object:
        if lit.value is None:
            return b.Const(None)
        branch = _literal_branch(op, self.const, self.type, lit)
        if branch is None:
            return b.Opaque("coalesce(...) compared with a literal Spark's modes read "
                            "differently")
        # x op lit is NULL exactly where x is, and there the constant decides: c op lit FALSE
        # gives (x op lit) IS TRUE, TRUE gives NOT (x op lit) IS FALSE. One node, so the
        # lattice keeps NULL rows and the others apart.
        inner = B.as_predicate(B.compare(op, self.arg, lit))
        return b.BNot(b.BIsBool(inner, False)) if branch.value else b.BIsBool(inner, True)

    def is_null(self) -> object:
        return b.Const(False)

    def as_predicate(self) -> object:
        if not isinstance(self.const.value, bool):
            raise TypeMismatchError(f"coalesce(..., {self.const.value!r}) is not a boolean")
        inner = B.as_predicate(self.arg)
        return b.BNot(b.BIsBool(inner, False)) if self.const.value else b.BIsBool(inner, True)


@dataclass(frozen=True)
class Case(Applied):
    """``CASE WHEN c1 THEN v1 ... ELSE v END``: ``conds`` (bound predicates) and ``values``
    (one more than conds: the ELSE, NULL if absent); ``type`` the branch type (None: only
    booleans or NULL, usable as a predicate)."""

    conds: tuple
    values: tuple
    type: pa.DataType | None

    why = "CASE is used for pruning only as a predicate or compared with a literal"

    def _selectors(self) -> list:
        """Per branch, "this row takes it": never NULL."""
        out, rest = [], None
        for c in self.conds:
            hit = b.BIsBool(c, True)
            out.append(hit if rest is None else b.BAnd((rest, hit)))
            rest = b.BNot(hit) if rest is None else b.BAnd((rest, b.BNot(hit)))
        return out + [rest]

    def _each(self, branch) -> object:
        terms = []
        for sel, v in zip(self._selectors(), self.values, strict=True):
            t = branch(v)
            if isinstance(t, b.Const) and t.value is False:
                continue  # FALSE AND anything is FALSE, which OR ignores
            terms.append(sel if isinstance(t, b.Const) and t.value is True else
                         b.BAnd((sel, t)))
        return b.BOr(tuple(terms)) if len(terms) > 1 else terms[0] if terms else b.Const(False)

    def compare(self, op: n.Op, lit: B.LitOp) -> object:
        if lit.value is None:
            return b.Const(None)
        if self.type is None:
            return b.Opaque(self.why)

        def branch(v: object) -> object:
            if isinstance(v, B.LitOp):
                got = _literal_branch(op, v, self.type, lit)
                return b.Opaque("CASE branch Spark's modes read differently") if got is None \
                    else got
            return B.as_predicate(B.compare(op, v, lit))

        return self._each(branch)

    def is_null(self) -> object:
        return self._each(lambda v: B._is_null(None, (v,)))

    def as_predicate(self) -> object:
        return self._each(B.as_predicate)


def _case(kids: tuple) -> Applied | None:
    """``if(c, a, b)`` (CASE arrives from sql.py as nested ifs): flattened, typed."""
    cond, then, other = kids
    conds, values = [B.as_predicate(cond)], [then]
    if isinstance(other, Case):
        conds += other.conds
        values += other.values
    else:
        values.append(other)
    typed = [_value_type(v) for v in values if not isinstance(v, B.LitOp)]
    lits = [v for v in values if isinstance(v, B.LitOp) and v.value is not None]
    if None in typed:  # a predicate or an unknown value among the branches
        t = None
    elif typed:
        t = typed[0]
        if any(u != t for u in typed):  # Spark widens to a common type: only integers agree
            ints = all(pa.types.is_signed_integer(u) for u in typed)
            t = max(typed, key=lambda u: u.bit_width) if ints else None
    else:
        t = _literal_type(lits)
    if t is not None and not all(_fits(v, t) for v in lits):
        t = None
    return Case(tuple(conds), tuple(values), t)


def _literal_type(lits: list) -> pa.DataType | None:
    """The type of CASE branches that are all literals of one kind, or None."""
    kinds = {type(v.value) for v in lits}
    if len(kinds) != 1 or any(v.type is not None for v in lits):
        return None
    kind = kinds.pop()
    return {int: pa.int64(), float: pa.float64(), str: pa.string(), bool: pa.bool_()}.get(kind)


def _coalesce(kids: tuple) -> object | None:
    if len(kids) != 2 or not isinstance(kids[1], B.LitOp):
        return None
    x, c = kids
    if c.value is None:
        return x  # coalesce(x, NULL) is x
    t = _value_type(x)
    if t is None or not _fits(c, t):
        return None
    return Coalesce(x, c, t)


# ---- dispatch ----------------------------------------------------------------------------------
WHITELIST = ("year", "month", "day", "dayofmonth", "date_trunc", "trunc", "floor", "ceil",
             "left", "substring", "coalesce", "if")
NOT_MONOTONE = {"abs": "abs is not monotone", "lower": "lower is not monotone in byte order",
                "upper": "upper is not monotone in byte order"}


def bind_call(node: n.Func, kids: tuple) -> object | None:
    """The bound value of a whitelisted function call, or None (bind makes it unknown).

    >>> import pyarrow as pa
    >>> from .bind import bind
    >>> from .sql import parse
    >>> bind(parse("left(s, 2) = 'ab'"), pa.schema([("s", pa.string())]))  # doctest: +ELLIPSIS
    Rewritten(arg=BAnd(args=(Bound(col=s, op='ge', value=b'ab'), BNot(arg=Bound(col=s, \
op='ge', value=b'ac')))), text="left(s, 2) = 'ab'")
    """
    name, k = node.name, len(kids)
    if name == "if" and k == 3:
        return _case(kids)
    if name == "coalesce":
        return _coalesce(kids)
    if name in ("floor", "ceil") and k == 1 and isinstance(kids[0], B.ColOp):
        return _rounding(name, kids[0])
    if name == "year" and k == 1 and isinstance(kids[0], B.ColOp):
        return _year(kids[0])
    if name in ("month", "day", "dayofmonth") and k == 1 and isinstance(kids[0], B.ColOp):
        days = _days(kids[0])
        return None if days is None else B.ColOp(b.BCalendar(days, "day" if name != "month"
                                                             else "month"))
    if name == "date_trunc" and k == 2 and isinstance(kids[1], B.ColOp):
        return _truncated(name, kids[0], kids[1])
    if name == "trunc" and k == 2 and isinstance(kids[0], B.ColOp):
        return _truncated(name, kids[1], kids[0])
    if name in ("left", "substring") and isinstance(kids[0], B.ColOp):
        start = 1 if name == "left" else _int_literal(kids[1]) if k >= 2 else None
        length = _int_literal(kids[-1]) if (name == "left" and k == 2) or k == 3 else None
        if start in (0, 1) and length is not None:  # Spark reads position 0 as 1
            shown = f"{name}({kids[0].col.label()}, " + (
                f"{start}, " if name == "substring" else "") + f"{length})"
            return _prefix_of(kids[0], length, shown)
        if name == "substring" and k == 2 and start in (0, 1):
            return kids[0]  # the whole string
    return None


def why_not(node: n.Func, kids: tuple) -> str:
    """What explain() says about a function call that is not used for pruning."""
    reason = NOT_MONOTONE.get(node.name)
    if reason:
        return f"{node.display()}: {reason}"
    if node.name in WHITELIST:
        return f"{node.display()}: these arguments are not used for pruning (a column and " \
               "constants as the rule needs)"
    return f"{node.display()} is not used for pruning (not on the whitelist of monotone " \
           "functions)"
