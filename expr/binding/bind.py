"""Binding: resolve column names against the data schema, coerce literals, normalise.

The result uses the bound vocabulary of ``bound.py``. Binding also does the normalisations that
need types: ``BETWEEN`` becomes two bounds, ``LIKE`` a prefix or an equality, ``IS DISTINCT
FROM`` an ``IS TRUE`` form, comparisons put the column on the left, and literals outside the
type fold to constants (``x > 300`` on an int8 column is FALSE for every non-NULL row).

>>> import pyarrow as pa
>>> from prunekit.expr.syntax.sql import parse
>>> schema = pa.schema([("x", pa.int8())])
>>> bind(parse("5 < x AND x <= 300"), schema)
BAnd(args=(BCompare(col=x, op='gt', value=5), BNonNull(col=x, truth=True)))
"""

from __future__ import annotations

import datetime as dt

import pyarrow as pa

from prunekit.errors import TypeMismatchError
from prunekit.expr.binding import bound as b
from prunekit.expr.binding import likes
from prunekit.expr.binding.arith import arith, extend, steps_of
from prunekit.expr.binding.comparisons import (
    compare,
    each_mode,
    needs_of,
    operand_type,
    reading,
    typed_operand,
    without_empty_ranges,
)
from prunekit.expr.binding.equalities import with_implied_equalities
from prunekit.expr.binding.functions import bind_call, why_not
from prunekit.expr.binding.functions.date_shifts import plus_interval
from prunekit.expr.binding.functions.dates import local_date, local_wall
from prunekit.expr.binding.functions.rounding import integral_quotient, to_double, truncated
from prunekit.expr.binding.in_lists import bind_in
from prunekit.expr.binding.operand_rules import (
    as_predicate,
    cast_column,
    is_null,
    kind_of,
    value_kind,
)
from prunekit.expr.binding.operands import ColOp, LitOp, OpaqueOp, operand_label, shown_literal
from prunekit.expr.binding.quotient import divide
from prunekit.expr.domains import domain_of, is_stringlike
from prunekit.expr.paths import leaf_key
from prunekit.expr.resolve import resolve
from prunekit.expr.spark_types import coercion as C
from prunekit.expr.spark_types import literals as L
from prunekit.expr.spark_types.session import zone_of_session
from prunekit.expr.spark_types.spark_functions import result_kind
from prunekit.expr.syntax import nodes as n


def bind(root: n.Node, schema: pa.Schema, zone: dt.tzinfo = dt.timezone.utc) -> object:
    """Bind a predicate tree against ``schema``; the result is a bound predicate. ``zone`` is
    Spark's session time zone (``prunekit.expr.spark_types.session``), which the rules read."""
    with zone_of_session(zone):
        return with_implied_equalities(as_predicate(_operand(root, schema)))


def bind_conjunction(parts: tuple, schema: pa.Schema, zone: dt.tzinfo = dt.timezone.utc,
                     memo: dict | None = None) -> object:
    """``bind(n.and_(*parts), schema, zone)``, binding each part once per ``memo``: a dict the
    caller keeps for one ``schema`` and ``zone``. A query's join keys change one conjunct of a
    scan's filter between rounds (``prunekit.joins``) and leave the others, which may be long
    lists of keys, as they were.

    >>> import pyarrow as pa
    >>> from prunekit.expr.syntax.sql import parse
    >>> schema, memo = pa.schema([("x", pa.int64())]), {}
    >>> low, high = parse("x > 1"), parse("x IN (5, 7)")
    >>> both = bind(parse("x > 1 AND x IN (5, 7)"), schema)
    >>> bind_conjunction((low, high), schema, memo=memo) == both
    True
    >>> len(memo)  # the next call with ``low`` binds only its other parts
    2
    """
    memo = {} if memo is None else memo
    out: list = []
    with zone_of_session(zone):
        for part in parts:
            got = memo.get(id(part))
            if got is None or got[0] is not part:  # the node is the key: kept alive here
                got = memo[id(part)] = (part, as_predicate(_operand(part, schema), "logic"))
            out.extend(got[1].args if isinstance(got[1], b.BAnd) else (got[1],))
        return with_implied_equalities(as_predicate(b.BAnd(without_empty_ranges(tuple(out)))))


def _operand(root: n.Node, schema: pa.Schema) -> object:
    """The bound form of ``root``: a bound predicate or an operand (a column, a literal, an
    expression), before it is read as a predicate."""
    def step(node: n.Node, kids: tuple) -> object:
        if isinstance(node, n.Column):  # a path of struct fields: expr/resolve.py
            path, t = resolve(schema, node.parts)
            return ColOp(b.BColumn(leaf_key(path), t, t, domain_of(t) or "none"))
        if isinstance(node, n.Literal):
            C.check_literal(node.value, node.type)
            return LitOp(node.value, node.type)
        return _BIND[type(node)](node, kids)

    return n.fold(root, step)


def _compare(node: n.Compare, kids: tuple) -> object:
    return compare(node.op, kids[0], kids[1])


def _between(node: n.Between, kids: tuple) -> object:
    return b.BAnd(without_empty_ranges(
        (compare(n.Op.GE, kids[0], kids[1]), compare(n.Op.LE, kids[0], kids[2]))))


def _like(node: n.Like, kids: tuple) -> object:
    """``LIKE``: an equality, a prefix, or a pattern leaf (``expr/binding/likes.py``)."""
    form = likes.shape(node.pattern, node.escape)
    arg = kids[0]
    if form.kind == "equal":  # no wildcard: plain equality, when comparing strings
        if isinstance(arg, ColOp) and not is_stringlike(arg.col.type):
            return b.BOpaque(f"LIKE on {arg.col.name} of type {arg.col.type}")
        return compare(n.Op.EQ, arg, LitOp(form.prefix))
    prefix = form.prefix.encode("utf-8", "surrogatepass")
    if form.kind == "prefix":
        return _prefix(arg, prefix, exact=True)
    leaf = _prefix(arg, prefix, exact=False)
    if not isinstance(leaf, b.BPrefix):
        return leaf
    return b.BPattern(leaf.col, prefix, form.floor, form.regex, node.pattern)


def _startswith(node: n.StartsWith, kids: tuple) -> object:
    arg, prefix = kids
    if not isinstance(prefix, LitOp):
        return b.BOpaque("startswith with a non-literal prefix")
    if prefix.value is None:
        return b.BConst(None)
    if isinstance(prefix.value, str):
        return _prefix(arg, prefix.value.encode("utf-8", "surrogatepass"), exact=True)
    if isinstance(prefix.value, bytes):
        return _prefix(arg, prefix.value, exact=True)
    # Spark casts another literal to its text (the same in both modes): startswith(s, 1) is
    # startswith(s, '1').
    text = C.cast_literal(prefix.value, C.literal_type(prefix.value, prefix.type), pa.string(),
                          C.LEGACY)
    if not isinstance(text, str):
        return b.BOpaque(f"startswith with the prefix {shown_literal(prefix)}")
    return _prefix(arg, text.encode("utf-8"), exact=True)


def _prefix(arg: object, prefix: bytes, exact: bool) -> object:
    if isinstance(arg, LitOp):
        if arg.value is None:
            return b.BConst(None)
        raw = arg.value.encode() if isinstance(arg.value, str) else arg.value
        return b.BConst(raw.startswith(prefix)) if exact else b.BOpaque("LIKE on a literal")
    if isinstance(arg, OpaqueOp) or not isinstance(arg, ColOp) or arg.negated:
        return b.BOpaque(getattr(arg, "why", "LIKE of an expression"))
    if not is_stringlike(arg.col.type):
        return b.BOpaque(f"LIKE on {arg.col.name} of type {arg.col.type}")
    if exact and not prefix:
        return b.BNonNull(arg.col, True)
    return b.BPrefix(arg.col, prefix, exact)


def _is_nan(node: n.IsNan, kids: tuple) -> object:
    """``isnan(x)``: Spark casts a non-float argument to DOUBLE, so a string is NaN when its
    text reads as NaN (``'nan'``, ``' NaN '``), which no bound of the column decides; an
    integer, DECIMAL or boolean never is. Never NULL (``isnan(NULL)`` is FALSE)."""
    x = kids[0]
    if isinstance(x, LitOp):
        value = x.value
        if isinstance(value, str):
            value = C.cast_literal(value, pa.string(), pa.float64(), C.LEGACY)
        return b.BConst(isinstance(value, float) and value != value)
    if isinstance(x, ColOp) and not x.col.convert:
        k = C.kind(x.col.type)
        if x.col.domain == "float":
            return b.BIsNan(x.col)
        if k in ("integral", "decimal", "boolean"):
            return b.BConst(False)
        if k in ("string", "binary"):
            return b.BIsBool(b.BOpaque(f"isnan({x.col.label()}) casts a string to DOUBLE: "
                                      "'NaN' is NaN, which bounds do not rule out"), True)
        raise TypeMismatchError(f"isnan takes a number; {x.col.label()} is {x.col.type}")
    return b.BOpaque(getattr(x, "why", "isnan of an expression"))


def _distinct(node: n.DistinctFrom, kids: tuple) -> object:
    left, right = kids
    if isinstance(left, LitOp) and not isinstance(right, LitOp):
        left, right = right, left
    if isinstance(right, LitOp) and right.value is None:  # x IS DISTINCT FROM NULL
        return b.BNot(is_null(left))
    if isinstance(right, LitOp) and typed_operand(left):
        # x IS DISTINCT FROM c == (x = c) IS NOT TRUE, in each mode; where c is NULL in a mode
        # (legacy: text that is no value of x's type), x IS NOT NULL.
        left_t = operand_type(left)
        lit_t = C.compared_literal_type(right.value, right.type, left_t)

        def distinct_in(t: pa.DataType, mode: str) -> object:
            eq = reading(n.Op.EQ, left, left_t, right, lit_t, t, mode)
            if eq is None:
                return None
            if eq == b.BConst(None):
                return b.BNot(is_null(left))
            return b.BNot(b.BIsBool(as_predicate(eq), True))

        return each_mode(left, left_t, right, lit_t, distinct_in)
    eq = b.BIsBool(as_predicate(compare(n.Op.EQ, left, right)), True)
    if isinstance(right, LitOp):  # x IS DISTINCT FROM c  ==  (x = c) IS NOT TRUE
        if isinstance(left, LitOp) and left.value is None:
            return b.BConst(True)
        return b.BNot(eq)
    if not _casts_keep_nulls(left, right):
        return b.BOpaque(f"{operand_label(left)} IS DISTINCT FROM {operand_label(right)}: a "
                         "value may be cast to NULL (Spark's legacy mode)")
    both_null = b.BAnd((is_null(left), is_null(right)))
    return b.BNot(b.BOr((eq, both_null)))


# Kinds Spark compares without a cast that can make NULL of a value (numbers widen to DOUBLE).
_NUMBER_KINDS = {"integral", "float", "double"}


def _casts_keep_nulls(left: object, right: object) -> bool:
    """Whether comparing two value operands casts no value to NULL, so that each is NULL after
    the cast exactly where it was before: the same type, or integers and floats. Legacy mode
    casts a string that is no number to NULL (``c <=> ''`` is TRUE where the INT c is NULL),
    and a DECIMAL may overflow the common type. An operand of unknown type says nothing of its
    NULLs anyway (``is_null`` is unknown)."""
    if not (typed_operand(left) and typed_operand(right)):
        return True
    s, t = operand_type(left), operand_type(right)
    return s == t or {C.kind(s), C.kind(t)} <= _NUMBER_KINDS


def _cast(node: n.Cast, kids: tuple) -> object:
    x = kids[0]
    if isinstance(x, LitOp):
        return LitOp(L.cast_literal(x.value, node.to), node.to)
    if not isinstance(x, ColOp) or x.negated or x.col.convert or not isinstance(x.col,
                                                                                 b.BColumn):
        return OpaqueOp(getattr(x, "why", f"CAST of an expression to {node.to}"),
                        kind=value_kind(node.to), needs=needs_of(x))
    if pa.types.is_date32(node.to):
        local = local_date(x.col)  # a TIMESTAMP read in a session zone other than UTC
        if local is not None:
            return local
    wall = local_wall(x.col, node.to)  # a TIMESTAMP's wall time in the session zone
    if wall is not None:
        return wall
    if pa.types.is_integer(node.to):  # a DOUBLE or DECIMAL truncated toward zero
        got = truncated(x, node.to, node.safe)
        if got is not None:
            return got
    if pa.types.is_float64(node.to):  # a DECIMAL rounded to the nearest DOUBLE
        got = to_double(x)
        if got is not None:
            return got
    converted = cast_column(x.col, node.to)
    if converted is None:
        return OpaqueOp(f"CAST({x.col.name} AS {node.to}) does not preserve order",
                        kind=value_kind(node.to), needs=needs_of(x))
    return ColOp(converted)


_NEGATABLE = ("null", "integral", "decimal", "float", "double")


def _neg(node: n.Neg, kids: tuple) -> object:
    x = kids[0]
    if isinstance(x, LitOp):
        if x.value is None and (x.type is None or C.kind(x.type) in _NEGATABLE):
            return x  # -NULL is NULL: a NULL literal, or a fold such as b % 0
        if isinstance(x.value, (int, float)) and not isinstance(x.value, bool):
            return LitOp(L.negate(x.value), x.type)
        if hasattr(x.value, "as_tuple"):
            return LitOp(L.negate(x.value), x.type)
        if x.value is None:
            raise TypeMismatchError(f"cannot negate NULL of type {x.type}")
        raise TypeMismatchError(f"cannot negate {x.value!r}")
    if isinstance(x, ColOp) and C.kind(x.col.type) in ("date", "timestamp", "timestamp_ntz",
                                                        "binary"):
        raise TypeMismatchError(f"cannot negate {operand_label(x)} of type {x.col.type}")
    if isinstance(x, ColOp) and x.col.convert and x.col.convert[0] == "affine":
        return ColOp(extend(x.col, steps_of(x.col), x.col.type, (("mul", -1),)))
    if isinstance(x, ColOp):
        return ColOp(x.col, not x.negated)
    return OpaqueOp(getattr(x, "why", "negation of an expression"), kind="numeric",
                    needs=needs_of(x))


def _func(node: n.Func, kids: tuple) -> object:
    if node.name == "/" and len(kids) == 2:
        got = divide(kids[0], kids[1])
        if got is not None:
            return got
    if node.name == "div" and len(kids) == 2:
        got = integral_quotient(kids[0], kids[1])
        if got is not None:
            return got
    if node.name in ("+", "-", "*") and len(kids) == 2:
        got = arith(node.name, kids[0], kids[1]) or plus_interval(node.name, kids[0], kids[1])
        if got is not None:
            return got
    got = bind_call(node, kids)  # the whitelist of monotone functions, CASE
    if got is not None:
        return got
    kind = _kind_by_arguments(node.name, kids) if node.name in _BY_ARGUMENTS else \
        result_kind(node.name)
    # Arithmetic is NULL where an operand is; a function may not be (coalesce).
    needs = sum(map(needs_of, kids), ()) if node.name in _ARITHMETIC and all(
        isinstance(k, (ColOp, LitOp, OpaqueOp)) for k in kids) else ()
    return OpaqueOp(why_not(node, kids), kind=kind, text=node.display(), needs=needs)


_ARITHMETIC = ("+", "-", "*", "/", "div", "%")


# Spark functions whose result has the type their value arguments share (by position).
_BY_ARGUMENTS = {"coalesce": 0, "nvl": 0, "ifnull": 0, "greatest": 0, "least": 0,
                 "nullif": 0, "if": 1, "nvl2": 1}


def _kind_by_arguments(name: str, kids: tuple) -> str | None:
    """The kind of ``coalesce(a, b)`` and the like: a boolean (or unknown) where an argument
    may be one, else a value."""
    kinds = {kind_of(k) for k in kids[_BY_ARGUMENTS[name]:]
             if not (isinstance(k, LitOp) and k.value is None)}
    if None in kinds or kinds == {"boolean"}:
        return None
    return kinds.pop() if len(kinds) == 1 else "other"  # mixed: no boolean comes of it


def _not(node: n.Not, kids: tuple) -> object:
    return negation(as_predicate(kids[0], "logic"))


def negation(p: object) -> object:
    """NOT ``p``, moved down through AND and OR by De Morgan's laws (exact in SQL's
    three-valued logic, NULL too) and cancelled against another NOT, so that the comparisons
    under it meet in one conjunction: ``NOT (x <> 1 OR x <> 2)`` is ``x = 1 AND x = 2``, an
    empty range.

    >>> import pyarrow as pa
    >>> from prunekit.expr.syntax.sql import parse
    >>> bind(parse("NOT (x <> 1 OR x <> 2)"), pa.schema([("x", pa.int64())])).text
    'x from 2 to 1: an empty range'
    """
    if isinstance(p, b.BNot):
        return p.arg
    if isinstance(p, b.BConst) and p.value is not None:
        return b.BConst(not p.value)
    if isinstance(p, (b.BAnd, b.BOr)):
        negated = tuple(negation(a) for a in p.args)
        return _or(None, negated) if isinstance(p, b.BAnd) else _and(None, negated)
    return b.BNot(p)


def _and(node: n.And, kids: tuple) -> object:
    args = without_empty_ranges(_flat(b.BAnd, kids))
    return args[0] if len(args) == 1 else b.BAnd(args)


def _flat(kind: type, kids: tuple) -> tuple:
    """The bound children of an AND (OR), an AND (OR) child's own children spliced in: a tree
    built as ``And(And(p, q), r)`` binds as its SQL text ``p AND q AND r`` parses, so constant
    folding and implied equalities see one conjunction (and read the same statistics). A
    TRUE among an AND's children (FALSE among an OR's) is left out, as it changes no row's
    value (``p AND TRUE`` is ``p``, NULL too): ``x = 1 AND (x = 2 OR FALSE)`` is the empty
    range it is written as.

    >>> import pyarrow as pa
    >>> from prunekit.expr.syntax.sql import parse
    >>> bind(parse("x = 1 AND (x = 2 OR FALSE)"), pa.schema([("x", pa.int64())])).text
    'x from 2 to 1: an empty range'
    """
    identity = b.BConst(kind is b.BAnd)
    out: list = []
    for k in kids:
        p = as_predicate(k, "logic")
        out.extend(a for a in (p.args if isinstance(p, kind) else (p,)) if a != identity)
    return tuple(out) or (identity,)


def _or(node: n.Or, kids: tuple) -> object:
    args = _flat(b.BOr, kids)
    return args[0] if len(args) == 1 else b.BOr(args)


def _is_bool(node: n.IsBool, kids: tuple) -> object:
    return b.BIsBool(as_predicate(kids[0], "is"), node.value)


def _is_null(node: n.IsNull, kids: tuple) -> object:
    return is_null(kids[0])


def _opaque(node: n.Opaque, kids: tuple) -> object:
    # Its columns were bound (an unknown one is an error); it reads as any outcome, but NULL
    # where one it needs is NULL.
    needs = [kids[i] for i in node.needs]
    if not all(isinstance(k, ColOp) for k in needs):
        needs = []
    return b.BOpaque(node.why, tuple(dict.fromkeys(k.col for k in needs)))


_BIND = {
    n.Compare: _compare, n.And: _and, n.Or: _or, n.Not: _not, n.IsNull: _is_null,
    n.IsBool: _is_bool, n.DistinctFrom: _distinct, n.In: bind_in, n.Between: _between,
    n.Like: _like, n.StartsWith: _startswith, n.IsNan: _is_nan, n.Cast: _cast, n.Neg: _neg,
    n.Func: _func, n.Opaque: _opaque,
}
