"""Binding: resolve column names against the data schema, coerce literals, normalise.

The result uses the bound vocabulary of ``bound.py``. Binding also does the normalisations that
need types: ``BETWEEN`` becomes two bounds, ``LIKE`` a prefix or an equality, ``IS DISTINCT
FROM`` an ``IS TRUE`` form, comparisons put the column on the left, and literals outside the
type fold to constants (``x > 300`` on an int8 column is FALSE for every non-NULL row).

>>> import pyarrow as pa
>>> from .sql import parse
>>> schema = pa.schema([("x", pa.int8())])
>>> bind(parse("5 < x AND x <= 300"), schema)
BAnd(args=(Bound(col=x, op='gt', value=5), NonNull(col=x, truth=True)))
"""

from __future__ import annotations

import dataclasses
import decimal
import math

import pyarrow as pa

from . import bound as b
from . import functions
from . import literals as L
from . import nodes as n
from .arith import arith, clamp, decimal_expression, extend, steps_of
from .errors import SqlSyntaxError, TypeMismatchError
from .operands import ColOp, LitOp, OpaqueOp
from .paths import leaf_key, split_leaf_key
from .quotient import Quotient, compare_quotient, divide
from .resolve import resolve, walk_leaves

# Functions known to return non-boolean values (the arithmetic operators among them).
VALUE_FUNCTIONS = {"+", "-", "*", "/", "%", "div", "||", "&", "|", "^", "abs", "lower", "upper",
                   "length", "coalesce", "concat", "substring", "substr", "round", "floor",
                   "ceil", "year", "month", "day", "date_trunc", "to_date"}


b.BColumn.__repr__ = lambda self: self.sql()  # short reprs in doctests and explain


def domain_of(t: pa.DataType) -> str | None:
    """How a type's statistics are compared in a kernel; None if prunekit cannot order it.

    >>> domain_of(pa.decimal128(10, 2)), domain_of(pa.decimal128(30, 2)), domain_of(pa.uint64())
    ('int', 'code', 'uint')
    """
    if pa.types.is_uint64(t):
        return "uint"
    if pa.types.is_integer(t) or pa.types.is_boolean(t) or pa.types.is_temporal(t) and (
            pa.types.is_date(t) or pa.types.is_timestamp(t)):
        return "int"
    if pa.types.is_decimal(t):
        return "int" if isinstance(t, pa.Decimal128Type) and t.precision <= 18 else "code"
    if pa.types.is_float32(t) or pa.types.is_float64(t):
        return "float"
    if L._is_stringlike(t):
        return "code"
    return None


def bind(root: n.Node, schema: pa.Schema) -> object:
    """Bind a predicate tree against ``schema``; the result is a bound predicate."""
    def step(node: n.Node, kids: tuple) -> object:
        if isinstance(node, n.Column):  # a path of struct fields: expr/resolve.py
            path, t = resolve(schema, node.parts)
            return ColOp(b.BColumn(leaf_key(path), t, t, domain_of(t) or "none"))
        if isinstance(node, n.Literal):
            return LitOp(node.value, node.type)
        return _BIND[type(node)](node, kids)

    result = n.fold(root, step)
    return with_implied_equalities(as_predicate(result))


def as_predicate(x: object) -> object:
    """An operand used where a boolean is expected: a BOOLEAN column is ``col = TRUE``."""
    if isinstance(x, functions.Applied):
        return x.as_predicate()
    if isinstance(x, ColOp):
        if pa.types.is_boolean(x.col.type) and not x.negated and not x.col.convert:
            return b.InRange(x.col, 1, 1)
        raise TypeMismatchError(f"column {x.col.name!r} of type {x.col.type} is not a boolean")
    if isinstance(x, LitOp):
        if x.value is None or isinstance(x.value, bool):
            return b.Const(x.value)
        raise TypeMismatchError(f"literal {x.value!r} is not a boolean")
    if isinstance(x, Quotient):
        raise TypeMismatchError(f"not a boolean predicate: {x.label()}")
    if isinstance(x, OpaqueOp):
        if x.boolean is False:
            raise TypeMismatchError(f"not a boolean predicate: {x.why}")
        return b.Opaque(x.why)
    return x


# ---- comparisons -----------------------------------------------------------------------
def _compare(node: n.Compare, kids: tuple) -> object:
    return compare(node.op, kids[0], kids[1])


def compare(op: n.Op, left: object, right: object) -> object:
    if isinstance(left, LitOp) and not isinstance(right, LitOp):
        op, left, right = op.flipped, right, left
    if isinstance(left, Quotient) and isinstance(right, LitOp):
        return _quotient_vs_literal(op, left, right)
    if isinstance(left, functions.Applied) or isinstance(right, functions.Applied):
        if isinstance(right, LitOp):  # f(x) op literal: a predicate on x (functions.py)
            return left.compare(op, right)
        return b.Opaque(getattr(left, "why", None) or right.why)
    for side in (left, right):
        if isinstance(side, OpaqueOp):
            return b.Opaque(side.why)
        if not isinstance(side, (ColOp, LitOp)):  # (x > 5) = TRUE: legal, but not used
            return b.Opaque("comparison of a predicate with a value")
    if isinstance(left, LitOp):  # both literals
        return _fold_literals(op, left, right)
    if isinstance(right, ColOp):
        return _column_vs_column(op, left, right)
    if op is n.Op.NE:
        return b.BNot(compare(n.Op.EQ, left, right))
    if right.value is None:
        return b.Const(None)
    if left.col.domain == "none":
        return b.Opaque(f"{left.col.name} has type {left.col.type}, which has no order")
    if left.negated:
        return _negated(op, left, right)
    return _either_reading(op, left.col, right)


def _quotient_vs_literal(op: n.Op, q: Quotient, lit: LitOp) -> object:
    if op is n.Op.NE:
        return b.BNot(_quotient_vs_literal(n.Op.EQ, q, lit))
    if lit.value is None:
        return b.Const(None)
    if isinstance(lit.value, (bool, str, bytes)) or not isinstance(lit.value, (int, float,
                                                                             decimal.Decimal)):
        return b.Opaque(f"{q.label()} compared with {lit.value!r}")
    return compare_quotient(op, q, lit, _column_vs_literal)


def _either_reading(op: n.Op, col: b.BColumn, lit: LitOp) -> object:
    """``col op lit`` as Spark's ANSI mode reads it, or under either mode where its legacy
    mode reads the literal (or the column) differently (``literals.legacy_reading``)."""
    ansi = _column_vs_literal(op, col, clamp(col, L.coerce(lit.value, col.type)))
    legacy = L.legacy_reading(lit.value, lit.type, col.type)
    if legacy is not L.SAME:
        other = b.Const(None) if legacy is None else _column_vs_literal(
            op, col, L.coerce(legacy, col.type))
        return b.Either((ansi, other))
    if lit.type == pa.float32() and _rounds_to_float32(col):
        # Legacy Spark compares an integer column with a FLOAT in FLOAT: the column rounds.
        as_float = b.BColumn(col.name, col.stats_type, pa.float32(), "float", ("tofloat32",))
        return b.Either((ansi, _column_vs_literal(op, as_float, L.coerce(lit.value,
                                                                          pa.float32()))))
    return ansi


def _rounds_to_float32(col: b.BColumn) -> bool:
    """An integer column (not uint64, which Spark reads as DECIMAL) whose values FLOAT cannot
    all represent."""
    if not isinstance(col, b.BColumn) or col.convert or not pa.types.is_integer(
            col.type) or col.type == pa.uint64():
        return False
    lo, hi = L.int_range(col.type)
    return max(-lo, hi) > 2**24


_OPS = {n.Op.LT: "lt", n.Op.LE: "le", n.Op.GT: "gt", n.Op.GE: "ge"}


def _column_vs_literal(op: n.Op, col: b.BColumn, c: L.Coerced) -> object:
    """Map a comparison with a placed literal onto one leaf (``literals.py`` explains first and
    last: the column values equal to the literal)."""
    if isinstance(c, (L.BelowMin, L.AboveMax)):
        above = isinstance(c, L.AboveMax)  # x < c is TRUE for every value when c is above all
        truth = {n.Op.EQ: False, n.Op.LT: above, n.Op.LE: above, n.Op.GT: not above,
                 n.Op.GE: not above}[op]
        return b.NonNull(col, truth)
    if isinstance(c, L.Exact) and isinstance(c.value, float) and c.value != c.value:  # NaN
        # NaN is above every number and equal to itself (SEMANTICS.md §2).
        return {n.Op.EQ: b.NanEq(col), n.Op.GE: b.NanEq(col), n.Op.LT: b.BNot(b.NanEq(col)),
                n.Op.LE: b.NonNull(col, True), n.Op.GT: b.NonNull(col, False)}[op]
    if op is n.Op.EQ:
        if c.first > c.last:
            return b.NonNull(col, False)
        return b.InRange(col, c.first, c.last)
    value = c.first if op in (n.Op.LT, n.Op.GE) else c.last
    return b.Bound(col, _OPS[op], value)


def _negated(op: n.Op, left: ColOp, right: LitOp) -> object:
    """``-x op c`` is ``x op' -c`` except where negation is not a mirror: NaN stays greatest,
    and the integer minimum overflows; there anything is possible."""
    col = left.col
    if col.domain not in ("int", "float") or col.convert or pa.types.is_boolean(col.type) or (
            pa.types.is_temporal(col.type)) or pa.types.is_unsigned_integer(col.type):
        return b.Opaque(f"negation of {col.name} ({col.type})")
    value = right.value
    if not isinstance(value, (int, float)) and not hasattr(value, "as_tuple"):
        raise TypeMismatchError(f"cannot compare -{col.name} with {value!r}")
    if value != value:  # NaN: -x is NaN exactly when x is, and NaN does not mirror
        return compare(op, ColOp(col), right)
    inner = compare(op.flipped, ColOp(col), LitOp(L.negate(value), right.type))
    if col.domain == "float":
        return b.Widen(inner, b.NanEq(col))
    lo = L.int_range(col.type)[0]
    return b.Widen(inner, b.InRange(col, lo, lo))


def _column_vs_column(op: n.Op, a: ColOp, c: ColOp) -> object:
    if a.negated or c.negated:
        return b.Opaque("negated column compared with a column")
    if "none" in (a.col.domain, c.col.domain):
        return b.Opaque(f"{a.col.name} or {c.col.name} has a type without an order")
    left, right = _common_domain(a.col, c.col)
    if left is None:
        return b.Opaque(f"{a.col.name} ({a.col.type}) and {c.col.name} ({c.col.type}) are "
                        "not compared from statistics")
    for x, y in ((a.col, c.col), (c.col, a.col)):
        if y.type == pa.float32() and not y.convert and _rounds_to_float32(x):
            # ANSI Spark compares an integer with a FLOAT in DOUBLE, legacy Spark in FLOAT.
            as_float = b.BColumn(x.name, x.stats_type, pa.float32(), "float", ("tofloat32",))
            pair = (as_float, y) if x is a.col else (y, as_float)
            return b.Either((_col_cmp(op, left, right), _col_cmp(op, *pair)))
    return _col_cmp(op, left, right)


def _col_cmp(op: n.Op, left: b.BColumn, right: b.BColumn) -> object:
    if op is n.Op.NE:
        return b.BNot(b.ColCmp(left, "eq", right))
    if op in (n.Op.GT, n.Op.GE):
        op, left, right = op.flipped, right, left
    return b.ColCmp(left, {n.Op.EQ: "eq", n.Op.LT: "lt", n.Op.LE: "le"}[op], right)


def _common_domain(x: b.BColumn, y: b.BColumn) -> tuple:
    """The two columns converted to one comparable domain, or (None, None)."""
    if isinstance(x, b.BSum) or isinstance(y, b.BSum):  # a sum compares with integers only
        ints = all(c.domain == "int" and pa.types.is_signed_integer(c.type) and (
            not c.convert or c.convert[0] == "affine") for c in (x, y))
        return (x, y) if ints else (None, None)
    if isinstance(x, b.BFloatOp) or isinstance(y, b.BFloatOp):  # DOUBLE with DOUBLE only
        doubles = all(isinstance(c, b.BFloatOp) or (c.type == pa.float64() and not c.convert)
                      for c in (x, y))
        return (x, y) if doubles else (None, None)
    if x.domain == y.domain and x.convert == y.convert and _same_family(x.type, y.type):
        return x, y
    if all(c.domain == "int" and pa.types.is_signed_integer(c.type) and (
            not c.convert or c.convert[0] == "affine") for c in (x, y)):
        return x, y  # integers (through arithmetic, a > b + 100) compare exactly as int64
    if x.convert or y.convert:
        return None, None
    if pa.types.is_decimal(x.type) and pa.types.is_decimal(y.type) and "code" not in (
            x.domain, y.domain):
        return _rescaled(x, y)
    if pa.types.is_timestamp(x.type) and pa.types.is_timestamp(y.type):
        return _same_unit(x, y)
    if {x.domain, y.domain} == {"int", "uint"} and pa.types.is_integer(x.type) and \
            pa.types.is_integer(y.type):
        # Spark reads uint64 as DECIMAL(20, 0) and compares exactly: view the uint64 bounds
        # as int64 where they fit (elsewhere that bound is unknown).
        def signed(c: b.BColumn) -> b.BColumn:
            return c if c.domain == "int" else b.BColumn(c.name, c.stats_type, pa.int64(),
                                                         "int", ("toint",))

        return signed(x), signed(y)
    if "float" not in (x.domain, y.domain):
        return None, None
    if (pa.types.is_integer(x.type) or pa.types.is_floating(x.type)) and (
            pa.types.is_integer(y.type) or pa.types.is_floating(y.type)):
        # Spark compares an integer with a float in DOUBLE; rounding is monotone, so sound.
        def f(c: b.BColumn) -> b.BColumn:
            return c if c.domain == "float" else b.BColumn(
                c.name, c.stats_type, pa.float64(), "float", ("tofloat",))

        return f(x), f(y)
    return None, None


_PER_SECOND = {"s": 1, "ms": 10**3, "us": 10**6, "ns": 10**9}


def _same_unit(x: b.BColumn, y: b.BColumn) -> tuple:
    """Two timestamp columns at the finer unit: the coarser one's bounds are multiplied, and a
    bound that would overflow int64 becomes unknown."""
    if (x.type.tz is None) != (y.type.tz is None):
        return None, None  # an instant against a wall-clock time needs a session time zone
    kx, ky = _PER_SECOND[x.type.unit], _PER_SECOND[y.type.unit]
    if kx < ky:
        return b.BColumn(x.name, x.stats_type, y.type, "int", ("mulchk", ky // kx)), y
    return x, b.BColumn(y.name, y.stats_type, x.type, "int", ("mulchk", kx // ky))


def _rescaled(x: b.BColumn, y: b.BColumn) -> tuple:
    """Two narrow decimals at one scale: the smaller scale is multiplied by 10**k, which cannot
    overflow int64 while the result keeps at most 18 digits."""
    if x.type.scale > y.type.scale:
        b_, a_ = _rescaled(y, x)
        return a_, b_
    k = y.type.scale - x.type.scale
    if x.type.precision + k > 18:
        return None, None
    return b.BColumn(x.name, x.stats_type, x.type, "int", ("mul", 10**k)), y


def _is_text(t: pa.DataType) -> bool:
    return pa.types.is_string(t) or pa.types.is_large_string(t) or t == pa.string_view()


def _same_family(s: pa.DataType, t: pa.DataType) -> bool:
    if s == t:
        return True
    if L._is_stringlike(s) and L._is_stringlike(t):
        return True
    if pa.types.is_integer(s) and pa.types.is_integer(t):
        return pa.types.is_uint64(s) == pa.types.is_uint64(t)
    if pa.types.is_floating(s) and pa.types.is_floating(t):
        return True
    return False


def _fold_literals(op: n.Op, x: LitOp, y: LitOp) -> b.Const:
    if x.value is None or y.value is None:
        return b.Const(None)

    def key(v: object) -> tuple:  # Spark: NaN equals itself and is above every number
        if isinstance(v, float) and v != v:
            return (1, 0)
        return (0, v)

    u, v = key(x.value), key(y.value)
    try:
        result = {n.Op.EQ: u == v, n.Op.NE: u != v, n.Op.LT: u < v, n.Op.LE: u <= v,
                  n.Op.GT: u > v, n.Op.GE: u >= v}[op]
    except TypeError:
        raise TypeMismatchError(f"cannot compare {x.value!r} with {y.value!r}") from None
    return b.Const(bool(result))


# ---- other predicates ------------------------------------------------------------------
def _in(node: n.In, kids: tuple) -> object:
    arg, values = kids[0], kids[1:]
    if not isinstance(arg, ColOp) or arg.negated or arg.col.domain == "none" or not all(
            isinstance(v, LitOp) for v in values) or decimal_expression(arg.col):
        # Exactly OR of equalities in three-valued logic.
        return b.BOr(tuple(compare(n.Op.EQ, arg, v) for v in values)) if values else b.Const(
            False)
    col = arg.col
    readings = _list_readings(col, values)
    if readings is not None:
        as_double = _in(node, (arg, *readings[0]))
        if len(readings) == 1:
            return as_double
        # Legacy FLOAT: each element as compare() reads a FLOAT literal (the column rounds too).
        return b.Either((as_double, b.BOr(tuple(compare(n.Op.EQ, arg, v) for v in readings[1]))))
    exact, extra, nan, null = set(), [], False, False
    for v in values:
        if v.value is None:
            null = True
            continue
        if L.legacy_reading(v.value, v.type, col.type) is not L.SAME:
            extra.append(_either_reading(n.Op.EQ, col, v))
            continue
        c = L.coerce(v.value, col.type)
        if isinstance(c, L.Exact) and isinstance(c.value, float) and c.value != c.value:
            nan = True
        elif isinstance(c, L.Exact):
            exact.add(c.value)
        elif isinstance(c, L.Range):
            extra.append(b.InRange(col, c.first, c.last))
    leaf = b.InList(col, tuple(sorted(exact)), nan, null)
    result = b.BOr((leaf, *extra)) if extra else leaf
    if not L._is_stringlike(col.type) and any(isinstance(v.value, str) for v in values):
        # Legacy Spark may compare such a list as strings ('01' never equals 1): a row can
        # then be FALSE where the numbers say TRUE, never TRUE where they say it cannot be.
        return b.Either((result, b.Const(False)))
    return result


def _list_readings(col: b.BColumn, values: tuple) -> tuple | None:
    """The element lists an IN list compares as, where that is not each element as itself.

    Spark compares an IN list in one common type of the column and every element (its
    ``InConversion``), not element by element. A DOUBLE element makes that type DOUBLE for an
    exact numeric column, so the exact elements round first: ``c IN (9007199254740993, 1.0E0)``
    holds for c = 2**53 in both modes (checked against Spark 4.3). A FLOAT element (no DOUBLE)
    with an integer column gives DOUBLE under ANSI and FLOAT under legacy mode: both readings,
    whose union is sound under either. ``None``: no element is approximate, or none is exact.

    >>> col = b.BColumn("c", pa.int64(), pa.int64(), "int")
    >>> _list_readings(col, (LitOp(9007199254740993), LitOp(1.0)))
    ((LitOp(value=9007199254740992.0, type=DataType(double)), \
LitOp(value=1.0, type=DataType(double))),)
    """
    if not (pa.types.is_integer(col.type) or pa.types.is_decimal(col.type)):
        return None
    approx = {_approximate(v) for v in values} - {None}
    exact = [_approximate(v) is None and not isinstance(v.value, bool)
             and isinstance(v.value, (int, decimal.Decimal)) for v in values]
    if not approx or not any(exact):
        return None
    as_double = tuple(LitOp(_to_double(v.value), pa.float64()) if e or _approximate(v) else v
                      for v, e in zip(values, exact, strict=True))
    if pa.float64() in approx or not pa.types.is_integer(col.type) or col.type == pa.uint64():
        return (as_double,)
    as_float = tuple(LitOp(L.round_to_float32(v.value), pa.float32()) if e else v
                     for v, e in zip(values, exact, strict=True))
    return (as_double, as_float)


def _approximate(v: LitOp) -> pa.DataType | None:
    """DOUBLE or FLOAT for an approximate literal (a Python float is a DOUBLE), else None."""
    if v.value is None or isinstance(v.value, str):
        return None
    if v.type in (pa.float64(), pa.float32()):
        return v.type
    return pa.float64() if v.type is None and isinstance(v.value, float) else None


def _to_double(value: object) -> float:
    try:
        return float(value)  # correctly rounded from int, Decimal and float32 values alike
    except OverflowError:
        return math.copysign(math.inf, value)


def _between(node: n.Between, kids: tuple) -> object:
    return b.BAnd((compare(n.Op.GE, kids[0], kids[1]), compare(n.Op.LE, kids[0], kids[2])))


def _like(node: n.Like, kids: tuple) -> object:
    prefix, rest = _like_prefix(node.pattern, node.escape)
    arg = kids[0]
    if not rest:  # no wildcard: plain equality, when comparing strings
        if isinstance(arg, ColOp) and not L._is_stringlike(arg.col.type):
            return b.Opaque(f"LIKE on {arg.col.name} of type {arg.col.type}")
        return compare(n.Op.EQ, arg, LitOp(prefix))
    return _prefix(arg, prefix.encode("utf-8", "surrogatepass"), exact=rest == "%")


def _like_prefix(pattern: str, escape: str) -> tuple[str, str]:
    """Split a LIKE pattern into its literal prefix and the rest (``%`` runs collapsed).

    >>> _like_prefix("ab!_c%", "!"), _like_prefix("a_c%", "!"), _like_prefix("ab%%", "\\\\")
    (('ab_c', '%'), ('a', '_c%'), ('ab', '%'))
    """
    out, i = [], 0
    while i < len(pattern):
        ch = pattern[i]
        if ch == escape:
            if i + 1 >= len(pattern):
                raise SqlSyntaxError(f"LIKE pattern {pattern!r} ends with the escape character")
            out.append(pattern[i + 1])
            i += 2
            continue
        if ch in "%_":
            rest = pattern[i:]
            return "".join(out), ("%" if set(rest) == {"%"} else rest)
        out.append(ch)
        i += 1
    return "".join(out), ""


def _startswith(node: n.StartsWith, kids: tuple) -> object:
    arg, prefix = kids
    if not isinstance(prefix, LitOp):
        return b.Opaque("startswith with a non-literal prefix")
    if prefix.value is None:
        return b.Const(None)
    if isinstance(prefix.value, str):
        return _prefix(arg, prefix.value.encode("utf-8", "surrogatepass"), exact=True)
    if isinstance(prefix.value, bytes):
        return _prefix(arg, prefix.value, exact=True)
    raise TypeMismatchError(f"startswith prefix must be a string, got {prefix.value!r}")


def _prefix(arg: object, prefix: bytes, exact: bool) -> object:
    if isinstance(arg, LitOp):
        if arg.value is None:
            return b.Const(None)
        raw = arg.value.encode() if isinstance(arg.value, str) else arg.value
        return b.Const(raw.startswith(prefix)) if exact else b.Opaque("LIKE on a literal")
    if isinstance(arg, OpaqueOp) or not isinstance(arg, ColOp) or arg.negated:
        return b.Opaque(getattr(arg, "why", "LIKE of an expression"))
    if not L._is_stringlike(arg.col.type):
        return b.Opaque(f"LIKE on {arg.col.name} of type {arg.col.type}")
    if exact and not prefix:
        return b.NonNull(arg.col, True)
    return b.Prefix(arg.col, prefix, exact)


def _is_null(node: n.IsNull, kids: tuple) -> object:
    x = kids[0]
    if isinstance(x, ColOp) and pa.types.is_struct(x.col.type):
        return _struct_is_null(x.col)
    if isinstance(x, functions.Applied):
        return x.is_null()
    if isinstance(x, ColOp):
        return b.IsNullLeaf(x.col)
    if isinstance(x, Quotient):  # a non-zero finite divisor: NULL exactly when x is
        return b.IsNullLeaf(x.inner)
    if isinstance(x, LitOp):
        return b.Const(x.value is None)
    if isinstance(x, OpaqueOp):
        return b.Opaque(x.why)
    # A predicate is NULL exactly when its value may be NULL: TRUE/FALSE rows give FALSE.
    return b.BAnd((b.BNot(b.BIsBool(x, True)), b.BNot(b.BIsBool(x, False))))


def _struct_is_null(col: b.BColumn) -> object:
    """``s IS NULL`` for a struct: statistics are per leaf, and a NULL struct makes every leaf
    NULL (Parquet and Delta null counts count those rows), so one leaf without NULLs proves
    ``s`` is never NULL. Nothing proves it NULL (all-NULL leaves fit a non-NULL struct): the
    AND's last term may be TRUE or FALSE, never NULL, as ``s IS NULL`` itself."""
    found = [b.IsNullLeaf(b.BColumn(leaf_key(p), t, t, domain_of(t) or "none"))
             for p, t in walk_leaves(split_leaf_key(col.name), col.type)]
    unknown = b.BIsBool(b.Opaque(f"{col.sql()} IS NULL: leaf statistics cannot prove a "
                                 "struct NULL"), True)
    return b.BAnd((*found, unknown))


def _is_nan(node: n.IsNan, kids: tuple) -> object:
    x = kids[0]
    if isinstance(x, ColOp) and not x.col.convert:
        return b.IsNanLeaf(x.col) if x.col.domain == "float" else b.Const(False)
    if isinstance(x, LitOp):
        return b.Const(isinstance(x.value, float) and x.value != x.value)
    return b.Opaque(getattr(x, "why", "isnan of an expression"))


def _distinct(node: n.DistinctFrom, kids: tuple) -> object:
    left, right = kids
    if isinstance(left, LitOp) and not isinstance(right, LitOp):
        left, right = right, left
    if isinstance(right, LitOp) and right.value is None:  # x IS DISTINCT FROM NULL
        return b.BNot(_is_null(node, (left,)))
    eq = b.BIsBool(as_predicate(compare(n.Op.EQ, left, right)), True)
    if isinstance(right, LitOp):  # x IS DISTINCT FROM c  ==  (x = c) IS NOT TRUE
        if isinstance(left, LitOp) and left.value is None:
            return b.Const(True)
        return b.BNot(eq)
    both_null = b.BAnd((_is_null(node, (left,)), _is_null(node, (right,))))
    return b.BNot(b.BOr((eq, both_null)))


def _cast(node: n.Cast, kids: tuple) -> object:
    x = kids[0]
    if isinstance(x, LitOp):
        return LitOp(L.cast_literal(x.value, node.to), node.to)
    if not isinstance(x, ColOp) or x.negated or x.col.convert or not isinstance(x.col,
                                                                                 b.BColumn):
        return OpaqueOp(getattr(x, "why", f"CAST of an expression to {node.to}"),
                        boolean=pa.types.is_boolean(node.to))
    converted = cast_column(x.col, node.to)
    if converted is None:
        return OpaqueOp(f"CAST({x.col.name} AS {node.to}) does not preserve order",
                        boolean=pa.types.is_boolean(node.to))
    return ColOp(converted)


def cast_column(col: b.BColumn, to: pa.DataType) -> b.BColumn | None:
    """The column seen through ``CAST(col AS to)`` if that cast preserves order, else None.

    Value-preserving casts (integer widening, float32 to float64, decimal scale-up, int to a
    wide-enough decimal, string kinds) compare exactly like the column itself; rounding ones
    (integer to DOUBLE, timestamp to DATE) are monotone maps the kernel applies to bounds.
    """
    s = col.type
    if s == to or (L._is_stringlike(s) and L._is_stringlike(to) and _is_text(s) == _is_text(to)):
        return col  # string, large_string and string_view are one order (and so for binary)
    same = b.BColumn(col.name, col.stats_type, s, col.domain)
    if pa.types.is_integer(s) and pa.types.is_integer(to):
        lo, hi = L.int_range(s)
        lo2, hi2 = L.int_range(to)
        if not (lo2 <= lo and hi <= hi2):
            return None
        # The values are the column's own; the type is the target's, which arithmetic on the
        # cast (CAST(x AS BIGINT) * 1000) overflows at.
        return same if col.domain != "int" else b.BColumn(col.name, col.stats_type, to, "int")
    if pa.types.is_integer(s) and pa.types.is_decimal(to):
        lo, hi = L.int_range(s)
        return same if max(-lo, hi) < 10 ** (to.precision - to.scale) else None
    if pa.types.is_decimal(s) and pa.types.is_decimal(to):
        grows = to.scale >= s.scale and to.precision - to.scale >= s.precision - s.scale
        return same if grows else None
    if pa.types.is_float32(s) and pa.types.is_float64(to):
        return same
    if pa.types.is_integer(s) and pa.types.is_floating(to) and col.domain in ("int", "uint"):
        # Through the float conversion even where every value is representable: a literal is
        # then placed as Spark compares it, in the float type (a DECIMAL -127.99...9 rounds to
        # DOUBLE -128.0, which an int8 -128 equals), not exactly against the integers.
        kind = "tofloat" if pa.types.is_float64(to) else "tofloat32"
        return b.BColumn(col.name, col.stats_type, to, "float", (kind,))
    if pa.types.is_timestamp(s) and pa.types.is_date32(to) and col.domain == "int":
        per_day = 86_400 * {"s": 1, "ms": 10**3, "us": 10**6, "ns": 10**9}[s.unit]
        return b.BColumn(col.name, col.stats_type, pa.date32(), "int", ("floordiv", per_day))
    if pa.types.is_date(s) and (pa.types.is_date(to) or pa.types.is_timestamp(to)):
        # A date as a timestamp is its (UTC) midnight, which is exactly how a timestamp literal
        # is placed against a date column: compare the date itself.
        return same
    return None


def _neg(node: n.Neg, kids: tuple) -> object:
    x = kids[0]
    if isinstance(x, LitOp):
        if isinstance(x.value, (int, float)) and not isinstance(x.value, bool):
            return LitOp(L.negate(x.value), x.type)
        if hasattr(x.value, "as_tuple"):
            return LitOp(L.negate(x.value), x.type)
        raise TypeMismatchError(f"cannot negate {x.value!r}")
    if isinstance(x, ColOp) and x.col.convert and x.col.convert[0] == "affine":
        return ColOp(extend(x.col, steps_of(x.col), x.col.type, (("mul", -1),)))
    if isinstance(x, ColOp):
        return ColOp(x.col, not x.negated)
    return OpaqueOp(getattr(x, "why", "negation of an expression"), boolean=False)



def _func(node: n.Func, kids: tuple) -> object:
    if node.name == "/" and len(kids) == 2:
        got = divide(kids[0], kids[1])
        if got is not None:
            return got
    if node.name in ("+", "-", "*") and len(kids) == 2:
        got = arith(node.name, kids[0], kids[1])
        if got is not None:
            return got
    got = functions.bind_call(node, kids)  # the whitelist of monotone functions, CASE
    if got is not None:
        return got
    returns_value = node.name in VALUE_FUNCTIONS
    return OpaqueOp(functions.why_not(node, kids), boolean=False if returns_value else None)


def _not(node: n.Not, kids: tuple) -> object:
    return b.BNot(as_predicate(kids[0]))


def _and(node: n.And, kids: tuple) -> object:
    return b.BAnd(_flat(b.BAnd, kids))


def _flat(kind: type, kids: tuple) -> tuple:
    """The bound children of an AND (OR), an AND (OR) child's own children spliced in: a tree
    built as ``And(And(p, q), r)`` binds as its SQL text ``p AND q AND r`` parses, so constant
    folding and implied equalities see one conjunction (and read the same statistics)."""
    out: list = []
    for k in kids:
        p = as_predicate(k)
        out.extend(p.args if isinstance(p, kind) else (p,))
    return tuple(out)


# Leaves that compare one column with constants; an equal column satisfies the same leaf.
_COLUMN_LEAVES = (b.Bound, b.InRange, b.InList, b.Prefix, b.NanEq, b.IsNanLeaf)


def with_implied_equalities(root: object) -> object:
    """``root`` with conjuncts implied by column equalities added to every AND reached from
    the root through AND and OR only (issue 7, item 3): from ``a = b AND b = 5`` also
    ``a = 5``, so the bounds of ``a`` prune too.

    An implied conjunct keeps the rows that make its AND TRUE, but can turn a NULL row FALSE
    (``a = 7``, ``b`` NULL: ``a = b AND b = 5`` is NULL, ``a = 5`` is FALSE). Through AND and
    OR that changes no outcome: NONE_MATCH depends on TRUE rows only, and ALL_MATCH needs every
    row TRUE. Under NOT it would turn a NULL into TRUE, so negated positions are left alone."""
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


def _or(node: n.Or, kids: tuple) -> object:
    return b.BOr(_flat(b.BOr, kids))


def _is_bool(node: n.IsBool, kids: tuple) -> object:
    return b.BIsBool(as_predicate(kids[0]), node.value)


_BIND = {
    n.Compare: _compare, n.And: _and, n.Or: _or, n.Not: _not, n.IsNull: _is_null,
    n.IsBool: _is_bool, n.DistinctFrom: _distinct, n.In: _in, n.Between: _between,
    n.Like: _like, n.StartsWith: _startswith, n.IsNan: _is_nan, n.Cast: _cast, n.Neg: _neg,
    n.Func: _func,
}
