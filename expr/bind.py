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

import pyarrow as pa

from prunekit.errors import SqlSyntaxError, TypeMismatchError

from . import bound as b
from . import coercion as C
from . import functions
from . import literals as L
from . import nodes as n
from .arith import arith, clamp, decimal_expression, extend, steps_of
from .domains import domain_of, int_range, is_stringlike, is_text
from .operands import ColOp, LitOp, OpaqueOp
from .paths import leaf_key, split_leaf_key
from .quotient import Quotient, compare_quotient, divide
from .resolve import resolve, walk_leaves
from .spark_functions import result_kind


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


# Where Spark casts a value to BOOLEAN in a boolean position, by the value's kind: the modes
# that do (read off Spark 4.3). A filter and a CASE condition take BOOLEAN only.
_CAST_TO_BOOLEAN = {
    ("logic", "string"): "ANSI",  # NOT s, s AND p, s OR p
    ("is", "string"): "ANSI and legacy",  # s IS TRUE
    ("is", "numeric"): "legacy",  # x IS NOT FALSE
}


def as_predicate(x: object, where: str = "filter") -> object:
    """An operand used where a boolean is expected: a BOOLEAN column is ``col = TRUE``; a value
    is an error unless Spark casts it to BOOLEAN there (``_CAST_TO_BOOLEAN``), which makes an
    unknown leaf. ``where``: ``"filter"`` (the predicate itself), ``"logic"`` (under NOT, AND,
    OR), ``"is"`` (``IS [NOT] TRUE/FALSE``) or ``"case"`` (a CASE condition)."""
    kind = _kind_of(x)
    if kind not in ("boolean", None):
        modes = _CAST_TO_BOOLEAN.get((where, kind))
        shown = _shown_operand(x)
        if modes is None:
            raise TypeMismatchError(f"not a boolean predicate: {shown}")
        return b.Opaque(f"{shown} is cast to BOOLEAN (Spark, {modes} mode)")
    if isinstance(x, functions.Applied):
        return x.as_predicate()
    if isinstance(x, ColOp):
        if not x.negated and not x.col.convert:
            return b.InRange(x.col, 1, 1)
        return b.Opaque(f"{x.col.label()} as a boolean")
    if isinstance(x, LitOp):
        return b.Const(x.value)
    if isinstance(x, OpaqueOp):
        return b.Opaque(x.why)
    return x


def _kind_of(x: object) -> str | None:
    """What kind of value an operand is (``spark_functions`` kinds); a bound predicate is a
    boolean."""
    if isinstance(x, ColOp):
        return "numeric" if x.negated else _value_kind(x.col.type)
    if isinstance(x, LitOp):  # NULL is a boolean as well as anything else
        return "boolean" if x.value is None else _value_kind(C.literal_type(x.value, x.type))
    if isinstance(x, Quotient):
        return "numeric"
    if isinstance(x, OpaqueOp):
        return x.kind
    if isinstance(x, functions.Applied):
        t = getattr(x, "type", None)
        return None if t is None else _value_kind(t)
    return "boolean"


def _value_kind(t: pa.DataType) -> str:
    k = C.kind(t)
    if k in ("boolean", "string"):
        return k
    if k == "null":
        return "boolean"  # NULL is a boolean as well as anything else
    return "numeric" if k in ("integral", "decimal", "float", "double") else "other"


def _shown_operand(x: object) -> str:
    if isinstance(x, ColOp) and not x.negated and isinstance(x.col, b.BColumn) and \
            not x.col.convert:
        return f"column {_label(x)} of type {x.col.type}"
    if isinstance(x, ColOp):
        return f"{_label(x)} is a {_kind_of(x)} value ({x.col.type})"
    if isinstance(x, LitOp):
        return f"literal {_shown(x)}"
    if isinstance(x, OpaqueOp) and x.text:
        return f"{x.text} is a {x.kind} value"
    return getattr(x, "why", None) or _label(x)


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
            return typed_comparison(op, left, right)
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
    return typed_comparison(op, left, right)


def _quotient_vs_literal(op: n.Op, q: Quotient, lit: LitOp) -> object:
    if op is n.Op.NE:
        return b.BNot(_quotient_vs_literal(n.Op.EQ, q, lit))
    if lit.value is None:
        return b.Const(None)
    if isinstance(lit.value, (bool, str, bytes)) or not isinstance(lit.value, (int, float,
                                                                             decimal.Decimal)):
        return b.Opaque(f"{q.label()} compared with {lit.value!r}")
    return compare_quotient(op, q, lit, _column_vs_literal)


def operand_type(x: object) -> pa.DataType:
    """The Spark type of a value operand: a column (seen through its conversions), or what a
    function returns."""
    if isinstance(x, ColOp):
        return C.spark_type(x.col.type)
    return C.spark_type(x.type)


def typed_comparison(op: n.Op, left: object, lit: LitOp) -> object:
    """``left op lit`` as Spark types it: per mode, both sides cast to the comparison type
    (``coercion.comparison_type``); the column read through the cast when it keeps order
    (else the leaf is unknown), the literal cast as Spark casts it. The modes' readings are
    one leaf when they agree, else ``Either`` of them; a comparison both modes refuse is an
    error, one whose literal fails in every mode that reads it is NULL (the query fails)."""
    if isinstance(left, functions.Applied) and getattr(left, "type", None) is None:
        return left.compare(op, lit)  # no one type (CASE of predicates): it says why
    left_t = operand_type(left)
    lit_t = C.compared_literal_type(lit.value, lit.type, left_t)
    return each_mode(left, left_t, lit, lit_t, lambda t, mode: _reading(
        op, left, left_t, lit, lit_t, t, mode))


def each_mode(left: object, left_t: pa.DataType, lit: LitOp, lit_t: pa.DataType,
              reading) -> object:
    """The leaves ``reading(t, mode)`` gives for each Spark mode that accepts comparing
    ``left`` with ``lit`` (``t`` the comparison type; None: the query fails in that mode),
    as one leaf (``_one_of``)."""
    return per_mode(lambda mode: C.comparison_type(left_t, lit_t, mode), reading,
                    lambda: f"cannot compare {_label(left)} ({left_t}) with {_shown(lit)} "
                            f"({lit_t}): Spark refuses this comparison in both of its modes")


def per_mode(common_type, reading, refused) -> object:
    """``reading(t, mode)`` for each Spark mode, where ``t = common_type(mode)`` is the type
    that mode casts the operands to (None: the mode refuses them; ``refused()`` is the error
    when both do), as one leaf (``_one_of``)."""
    found: list = []
    accepted = False
    for mode in C.MODES:
        t = common_type(mode)
        if t is None:
            continue
        accepted = True
        leaf = reading(t, mode)
        if leaf is not None and leaf not in found:
            found.append(leaf)
    if not accepted:
        raise TypeMismatchError(refused())
    return _one_of(found)


def _one_of(found: list) -> object:
    """The leaf of the modes' readings: NULL when none runs (the query fails), one when they
    agree or are all unknown, else ``Either``."""
    if not found:
        return b.Const(None)
    if len(found) == 1 or all(isinstance(x, b.Opaque) for x in found):
        return found[0]
    return b.Either(tuple(found))


def _typed_operand(x: object) -> bool:
    """A value whose Spark type prunekit knows: a column with an order, or a function's
    result of one type."""
    if isinstance(x, ColOp):
        return x.col.domain != "none"
    return isinstance(x, functions.Applied) and getattr(x, "type", None) is not None


def _label(x: object) -> str:
    if isinstance(x, LitOp):
        return _shown(x)
    if isinstance(x, ColOp):
        return ("-" if x.negated else "") + x.col.label()
    return getattr(x, "label", None) or type(x).__name__


def _shown(lit: LitOp) -> str:
    from .render import literal_text

    return literal_text(lit.value, lit.type)


def _reading(op: n.Op, left: object, left_t: pa.DataType, lit: LitOp, lit_t: pa.DataType,
             t: pa.DataType, mode: str) -> object | None:
    """``left op lit`` compared in type ``t`` under ``mode``; None when the literal's cast fails
    the query in that mode."""
    if not C.keeps_order(left_t, t):
        return b.Opaque(f"Spark ({mode} mode) compares {_label(left)} as {t}: a cast that does "
                        "not keep its order")
    value = C.cast_literal(lit.value, lit_t, t, mode)
    if value is C.FAILS:
        return None
    if value is C.UNSURE:
        return b.Opaque(f"prunekit does not work out {_shown(lit)} as {t} as Spark does")
    if value is None:
        return b.Const(None)
    if isinstance(left, functions.Applied):
        if _rounds_in(left_t, t):  # the function's result rounded to FLOAT: no threshold
            return b.Opaque(f"Spark ({mode} mode) compares {_label(left)} in FLOAT")
        return left.compare(op, LitOp(value, t))
    if left.negated:
        return _negated(op, left, LitOp(value, t))
    col = _seen_as(left.col, left_t, t)
    if col is None:
        return b.Opaque(f"Spark ({mode} mode) compares {_label(left)} in FLOAT")
    return _column_vs_literal(op, col, clamp(col, L.coerce(value, col.type)))


def _rounds_in(left_t: pa.DataType, t: pa.DataType) -> bool:
    """An integer type whose values FLOAT cannot all hold, compared in FLOAT."""
    return C.kind(t) == "float" and C.kind(left_t) == "integral" and left_t.bit_width > 16


def _seen_as(col: b.BColumn, left_t: pa.DataType, t: pa.DataType) -> b.BColumn | None:
    """The column as it compares in type ``t``: rounded to FLOAT as legacy Spark rounds it
    (None for a computed one, which is not), a BOOLEAN as 0 and 1, else itself (a value
    placed in the column's type compares as in ``t``)."""
    if _rounds_in(left_t, t):
        if not isinstance(col, b.BColumn) or col.convert:
            return None
        return b.BColumn(col.name, col.stats_type, pa.float32(), "float", ("tofloat32",))
    if C.kind(left_t) == "boolean" and C.kind(t) != "boolean":
        return b.BColumn(col.name, col.stats_type, pa.int8(), "int")  # FALSE, TRUE as 0, 1
    return col


def _rounds_to_float32(col: b.BColumn) -> bool:
    """An integer column (not uint64, which Spark reads as DECIMAL) whose values FLOAT cannot
    all represent."""
    if not isinstance(col, b.BColumn) or col.convert or not pa.types.is_integer(
            col.type) or col.type == pa.uint64():
        return False
    lo, hi = int_range(col.type)
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
    lo = int_range(col.type)[0]
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


def _same_family(s: pa.DataType, t: pa.DataType) -> bool:
    if s == t:
        return True
    if is_stringlike(s) and is_stringlike(t):
        return True
    if pa.types.is_integer(s) and pa.types.is_integer(t):
        return pa.types.is_uint64(s) == pa.types.is_uint64(t)
    if pa.types.is_floating(s) and pa.types.is_floating(t):
        return True
    return False


def _fold_literals(op: n.Op, x: LitOp, y: LitOp) -> object:
    """Two literals compared as Spark types them in each mode (``'1' = 1`` is TRUE)."""
    if x.value is None or y.value is None:
        return b.Const(None)
    tx, ty = C.literal_type(x.value, x.type), C.literal_type(y.value, y.type)
    tx, ty = C.compared_literal_type(x.value, x.type, ty), C.compared_literal_type(
        y.value, y.type, tx)

    def reading(t: pa.DataType, mode: str) -> object | None:
        u, v = C.cast_literal(x.value, tx, t, mode), C.cast_literal(y.value, ty, t, mode)
        if C.FAILS in (u, v):
            return None
        if C.UNSURE in (u, v):
            return b.Opaque(f"prunekit does not work out {_shown(x)} {op.value} {_shown(y)} as "
                            "Spark does")
        if u is None or v is None:
            return b.Const(None)
        cu, cv = L.coerce(u, t), L.coerce(v, t)
        if not (isinstance(cu, L.Exact) and isinstance(cv, L.Exact)):  # cast, so exact
            return b.Opaque(f"{_shown(x)} {op.value} {_shown(y)} as {t}")
        return b.Const(_ordered(op, cu.value, cv.value))

    return each_mode(x, tx, y, ty, reading)


def _ordered(op: n.Op, u: object, v: object) -> bool:
    """``u op v`` for two values of one domain; NaN equals itself and is above every number."""
    def key(w: object) -> tuple:
        if isinstance(w, float) and w != w:
            return (1, 0)
        return (0, w)

    a, c = key(u), key(v)
    return bool({n.Op.EQ: a == c, n.Op.NE: a != c, n.Op.LT: a < c, n.Op.LE: a <= c,
                 n.Op.GT: a > c, n.Op.GE: a >= c}[op])


# ---- other predicates ------------------------------------------------------------------
def _in(node: n.In, kids: tuple) -> object:
    """``x IN (...)``: Spark casts ``x`` and every element to one type per mode
    (``coercion.list_type``: a DOUBLE element makes an integer list DOUBLE, so exact elements
    round first; legacy mode compares a list of strings and numbers as strings), then it is
    exactly the OR of the equalities in three-valued logic."""
    arg, values = kids[0], kids[1:]
    if not values:
        return b.Const(False)
    if not _typed_operand(arg):
        return b.BOr(tuple(compare(n.Op.EQ, arg, v) for v in values))
    if not all(isinstance(v, LitOp) for v in values):
        return _in_with_columns(arg, values)
    arg_t = operand_type(arg)
    types = [C.literal_type(v.value, v.type) for v in values]
    return per_mode(lambda mode: C.list_type([arg_t, *types], mode),
                    lambda t, mode: _list_reading(arg, arg_t, values, types, t, mode),
                    lambda: f"{_label(arg)} ({arg_t}) IN a list of "
                            f"{sorted(set(map(str, types)))}: Spark refuses this list in both "
                            "of its modes")


def _in_with_columns(arg: object, values: tuple) -> object:
    """``x IN (y, 1)``: the OR of its equalities where every operand keeps its values exactly
    in the list's type (so each equality means what it means alone), else unknown (legacy
    Spark compares a list holding a string as strings)."""
    kinds = [operand_type(v) if _typed_operand(v) else C.literal_type(v.value, v.type)
             if isinstance(v, LitOp) else None for v in (arg, *values)]
    if None in kinds:
        return b.Opaque("IN list with an element of unknown type")

    def reading(t: pa.DataType, mode: str) -> object:
        if not all(C.widens_exactly(k, t) for k in kinds):
            return b.Opaque(f"Spark ({mode} mode) compares {_label(arg)} IN (...) as {t}")
        return b.BOr(tuple(compare(n.Op.EQ, arg, v) for v in values))

    return per_mode(lambda mode: C.list_type(kinds, mode), reading,
                    lambda: f"{_label(arg)} IN a list of {sorted(set(map(str, kinds[1:])))}: "
                            "Spark refuses this list in both of its modes")


def _list_reading(arg: object, arg_t: pa.DataType, values: tuple, types: list,
                  t: pa.DataType, mode: str) -> object | None:
    """The list compared in type ``t`` under ``mode``; None when an element's cast fails the
    query."""
    if not C.keeps_order(arg_t, t):
        if C.kind(t) == "string":
            return _text_list_reading(arg, arg_t, values, types, t, mode)
        return b.Opaque(f"Spark ({mode} mode) compares {_label(arg)} IN (...) as {t}: a cast "
                        "that does not keep its order")
    cast = []
    for v, ty in zip(values, types, strict=True):
        c = C.cast_literal(v.value, ty, t, mode)
        if c is C.FAILS:
            return None
        cast.append(c)
    unsure = [b.Opaque(f"prunekit does not work out {_shown(v)} as {t} as Spark does")
              for v, c in zip(values, cast, strict=True) if c is C.UNSURE]
    known = [c for c in cast if c is not C.UNSURE]
    if isinstance(arg, ColOp) and not arg.negated and not decimal_expression(arg.col):
        leaf = _in_list(arg, arg_t, known, t, mode)
    else:
        leaf = b.BOr(tuple(_reading(n.Op.EQ, arg, arg_t, LitOp(c, t), t, t, mode)
                           for c in known)) if known else b.Const(False)
    return b.BOr((leaf, *unsure)) if unsure else leaf


def _text_list_reading(arg: object, arg_t: pa.DataType, values: tuple, types: list,
                       t: pa.DataType, mode: str) -> object | None:
    """A list compared as strings (legacy mode: numbers among strings) with a column that is
    not text. A row's text equals an element only if the element read as the row's type
    equals the row (a value's text reads back as it), so the row is TRUE at most where that
    reading is, and may be FALSE anywhere ('01' is never the text of 1)."""
    own, unsure = [], False
    for v, ty in zip(values, types, strict=True):
        text = C.cast_literal(v.value, ty, t, mode)  # the element's own text
        c = text if text is C.UNSURE else C.cast_literal(text, t, arg_t, mode)
        if c is C.FAILS or c is None and v.value is not None:
            continue  # text that is no value of the row's type equals no row's text
        if c is not C.UNSURE and c is not None and C.cast_literal(c, arg_t, t, mode) not in (
                text, C.UNSURE):
            continue  # not the value's own text ('1.5' is never an integer's)
        unsure = unsure or c is C.UNSURE
        if c is not C.UNSURE:
            own.append(LitOp(c, arg_t))
    if unsure:
        return b.Opaque(f"Spark ({mode} mode) compares {_label(arg)} IN (...) as strings")
    if not own:
        return _false_unless_null(arg)
    inner = _list_reading(arg, arg_t, tuple(own), [arg_t] * len(own), arg_t, mode)
    return None if inner is None else b.Either((inner, b.Const(False)))


def _false_unless_null(arg: object) -> object:
    """FALSE for every row where ``arg`` is not NULL, NULL where it is: ``arg IN (...)`` when
    no element can equal it."""
    if isinstance(arg, ColOp):
        return b.NonNull(arg.col, False)
    return b.BAnd((_is_null(None, (arg,)), b.Const(None)))


def _in_list(arg: ColOp, arg_t: pa.DataType, values: list, t: pa.DataType,
             mode: str) -> object:
    """One ``InList`` leaf for the values a column can equal (``Range`` elements apart)."""
    col = _seen_as(arg.col, arg_t, t)
    if col is None:
        return b.Opaque(f"Spark ({mode} mode) compares {_label(arg)} in FLOAT")
    exact, extra, nan, null = set(), [], False, False
    for v in values:
        if v is None:
            null = True
            continue
        c = L.coerce(v, col.type)
        if isinstance(c, L.Exact) and isinstance(c.value, float) and c.value != c.value:
            nan = True
        elif isinstance(c, L.Exact):
            exact.add(c.value)
        elif isinstance(c, L.Range):
            extra.append(b.InRange(col, c.first, c.last))
    leaf = b.InList(col, tuple(sorted(exact)), nan, null)
    return b.BOr((leaf, *extra)) if extra else leaf


def _between(node: n.Between, kids: tuple) -> object:
    return b.BAnd((compare(n.Op.GE, kids[0], kids[1]), compare(n.Op.LE, kids[0], kids[2])))


def _like(node: n.Like, kids: tuple) -> object:
    prefix, rest = _like_prefix(node.pattern, node.escape)
    arg = kids[0]
    if not rest:  # no wildcard: plain equality, when comparing strings
        if isinstance(arg, ColOp) and not is_stringlike(arg.col.type):
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
    # Spark casts another literal to its text (the same in both modes): startswith(s, 1) is
    # startswith(s, '1').
    text = C.cast_literal(prefix.value, C.literal_type(prefix.value, prefix.type), pa.string(),
                          C.LEGACY)
    if not isinstance(text, str):
        return b.Opaque(f"startswith with the prefix {_shown(prefix)}")
    return _prefix(arg, text.encode("utf-8"), exact=True)


def _prefix(arg: object, prefix: bytes, exact: bool) -> object:
    if isinstance(arg, LitOp):
        if arg.value is None:
            return b.Const(None)
        raw = arg.value.encode() if isinstance(arg.value, str) else arg.value
        return b.Const(raw.startswith(prefix)) if exact else b.Opaque("LIKE on a literal")
    if isinstance(arg, OpaqueOp) or not isinstance(arg, ColOp) or arg.negated:
        return b.Opaque(getattr(arg, "why", "LIKE of an expression"))
    if not is_stringlike(arg.col.type):
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
    """``isnan(x)``: Spark casts a non-float argument to DOUBLE, so a string is NaN when its
    text reads as NaN (``'nan'``, ``' NaN '``), which no bound of the column decides; an
    integer, DECIMAL or boolean never is. Never NULL (``isnan(NULL)`` is FALSE)."""
    x = kids[0]
    if isinstance(x, LitOp):
        value = x.value
        if isinstance(value, str):
            value = C.cast_literal(value, pa.string(), pa.float64(), C.LEGACY)
        return b.Const(isinstance(value, float) and value != value)
    if isinstance(x, ColOp) and not x.col.convert:
        k = C.kind(x.col.type)
        if x.col.domain == "float":
            return b.IsNanLeaf(x.col)
        if k in ("integral", "decimal", "boolean"):
            return b.Const(False)
        if k in ("string", "binary"):
            return b.BIsBool(b.Opaque(f"isnan({x.col.label()}) casts a string to DOUBLE: "
                                      "'NaN' is NaN, which bounds do not rule out"), True)
        raise TypeMismatchError(f"isnan takes a number; {x.col.label()} is {x.col.type}")
    return b.Opaque(getattr(x, "why", "isnan of an expression"))


def _distinct(node: n.DistinctFrom, kids: tuple) -> object:
    left, right = kids
    if isinstance(left, LitOp) and not isinstance(right, LitOp):
        left, right = right, left
    if isinstance(right, LitOp) and right.value is None:  # x IS DISTINCT FROM NULL
        return b.BNot(_is_null(node, (left,)))
    if isinstance(right, LitOp) and _typed_operand(left):
        # x IS DISTINCT FROM c == (x = c) IS NOT TRUE, in each mode; where c is NULL in a mode
        # (legacy: text that is no value of x's type), x IS NOT NULL.
        left_t = operand_type(left)
        lit_t = C.compared_literal_type(right.value, right.type, left_t)

        def reading(t: pa.DataType, mode: str) -> object:
            eq = _reading(n.Op.EQ, left, left_t, right, lit_t, t, mode)
            if eq is None:
                return None
            if eq == b.Const(None):
                return b.BNot(_is_null(node, (left,)))
            return b.BNot(b.BIsBool(as_predicate(eq), True))

        return each_mode(left, left_t, right, lit_t, reading)
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
                        kind=_value_kind(node.to))
    converted = cast_column(x.col, node.to)
    if converted is None:
        return OpaqueOp(f"CAST({x.col.name} AS {node.to}) does not preserve order",
                        kind=_value_kind(node.to))
    return ColOp(converted)


def cast_column(col: b.BColumn, to: pa.DataType) -> b.BColumn | None:
    """The column seen through ``CAST(col AS to)`` if that cast preserves order, else None.

    Value-preserving casts (integer widening, float32 to float64, decimal scale-up, int to a
    wide-enough decimal, string kinds) compare exactly like the column itself; rounding ones
    (integer to DOUBLE, timestamp to DATE) are monotone maps the kernel applies to bounds.
    """
    s = col.type
    if s == to or (is_stringlike(s) and is_stringlike(to) and is_text(s) == is_text(to)):
        return col  # string, large_string and string_view are one order (and so for binary)
    same = b.BColumn(col.name, col.stats_type, s, col.domain)
    if pa.types.is_integer(s) and pa.types.is_integer(to):
        lo, hi = int_range(s)
        lo2, hi2 = int_range(to)
        if not (lo2 <= lo and hi <= hi2):
            return None
        # The values are the column's own; the type is the target's, which arithmetic on the
        # cast (CAST(x AS BIGINT) * 1000) overflows at.
        return same if col.domain != "int" else b.BColumn(col.name, col.stats_type, to, "int")
    if pa.types.is_integer(s) and pa.types.is_decimal(to):
        lo, hi = int_range(s)
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
    if isinstance(x, ColOp) and C.kind(x.col.type) in ("date", "timestamp", "timestamp_ntz",
                                                        "binary"):
        raise TypeMismatchError(f"cannot negate {_label(x)} of type {x.col.type}")
    if isinstance(x, ColOp) and x.col.convert and x.col.convert[0] == "affine":
        return ColOp(extend(x.col, steps_of(x.col), x.col.type, (("mul", -1),)))
    if isinstance(x, ColOp):
        return ColOp(x.col, not x.negated)
    return OpaqueOp(getattr(x, "why", "negation of an expression"), kind="numeric")


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
    kind = _kind_by_arguments(node.name, kids) if node.name in _BY_ARGUMENTS else \
        result_kind(node.name)
    return OpaqueOp(functions.why_not(node, kids), kind=kind, text=node.display())


# Spark functions whose result has the type their value arguments share (by position).
_BY_ARGUMENTS = {"coalesce": 0, "nvl": 0, "ifnull": 0, "greatest": 0, "least": 0,
                 "nullif": 0, "if": 1, "nvl2": 1}


def _kind_by_arguments(name: str, kids: tuple) -> str | None:
    """The kind of ``coalesce(a, b)`` and the like: a boolean (or unknown) where an argument
    may be one, else a value."""
    kinds = {_kind_of(k) for k in kids[_BY_ARGUMENTS[name]:]
             if not (isinstance(k, LitOp) and k.value is None)}
    if None in kinds or kinds == {"boolean"}:
        return None
    return kinds.pop() if len(kinds) == 1 else "other"  # mixed: no boolean comes of it


def _not(node: n.Not, kids: tuple) -> object:
    return b.BNot(as_predicate(kids[0], "logic"))


def _and(node: n.And, kids: tuple) -> object:
    return b.BAnd(_flat(b.BAnd, kids))


def _flat(kind: type, kids: tuple) -> tuple:
    """The bound children of an AND (OR), an AND (OR) child's own children spliced in: a tree
    built as ``And(And(p, q), r)`` binds as its SQL text ``p AND q AND r`` parses, so constant
    folding and implied equalities see one conjunction (and read the same statistics)."""
    out: list = []
    for k in kids:
        p = as_predicate(k, "logic")
        out.extend(p.args if isinstance(p, kind) else (p,))
    return tuple(out)


# Leaves that compare one column with constants; an equal column satisfies the same leaf.
_COLUMN_LEAVES = (b.Bound, b.InRange, b.InList, b.Prefix, b.NanEq, b.IsNanLeaf)


def with_implied_equalities(root: object) -> object:
    """``root`` with conjuncts implied by column equalities added to every AND reached from
    the root through AND and OR only: from ``a = b AND b = 5`` also
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
    return b.BIsBool(as_predicate(kids[0], "is"), node.value)


_BIND = {
    n.Compare: _compare, n.And: _and, n.Or: _or, n.Not: _not, n.IsNull: _is_null,
    n.IsBool: _is_bool, n.DistinctFrom: _distinct, n.In: _in, n.Between: _between,
    n.Like: _like, n.StartsWith: _startswith, n.IsNan: _is_nan, n.Cast: _cast, n.Neg: _neg,
    n.Func: _func,
}
