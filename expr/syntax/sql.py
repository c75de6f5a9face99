"""SQL text to a predicate tree, through sqlglot's Spark dialect: it converts at the boundary
and turns sqlglot's parse errors into ours, with position. sqlglot's other users read SQL too:
``dialects.py`` (another dialect's text, checked and written as Spark's), ``query.py`` (a whole
query) and ``identifiers.py`` (whether a name needs quoting).

>>> parse("x > 5 AND s LIKE 'ab%'").sql()
"x > 5 AND s LIKE 'ab%'"
>>> parse("d >= DATE '1994-01-01' AND x <=> NULL").sql()
"d >= DATE '1994-01-01' AND NOT x IS DISTINCT FROM NULL"
>>> parse("x > 5 AND")
Traceback (most recent call last):
...
prunekit.errors.SqlSyntaxError: malformed SQL in predicate: ... (line 1, column 9)
"""

from __future__ import annotations

import decimal
import functools
import re
import sys
import threading

import pyarrow as pa
import sqlglot
from sqlglot import exp
from sqlglot.errors import ParseError, TokenError

from prunekit.errors import SqlSyntaxError, TypeMismatchError
from prunekit.expr.spark_types.coercion import check_literal
from prunekit.expr.spark_types.intervals import Interval, interval
from prunekit.expr.spark_types.literals import cast_literal, negate
from prunekit.expr.syntax import nodes as n

_COMPARE = {exp.EQ: n.Op.EQ, exp.NEQ: n.Op.NE, exp.LT: n.Op.LT, exp.LTE: n.Op.LE,
            exp.GT: n.Op.GT, exp.GTE: n.Op.GE}

_TYPES = {
    "TINYINT": pa.int8(), "SMALLINT": pa.int16(), "INT": pa.int32(), "BIGINT": pa.int64(),
    "UTINYINT": pa.uint8(), "USMALLINT": pa.uint16(), "UINT": pa.uint32(),
    "UBIGINT": pa.uint64(), "FLOAT": pa.float32(), "DOUBLE": pa.float64(),
    "BOOLEAN": pa.bool_(), "TEXT": pa.string(), "VARCHAR": pa.string(), "CHAR": pa.string(),
    "BINARY": pa.binary(), "VARBINARY": pa.binary(), "DATE": pa.date32(),
    "TIMESTAMP": pa.timestamp("us", tz="UTC"), "TIMESTAMPTZ": pa.timestamp("us", tz="UTC"),
    "TIMESTAMPLTZ": pa.timestamp("us", tz="UTC"), "TIMESTAMPNTZ": pa.timestamp("us"),
}

# sqlglot nodes that are never part of a boolean predicate: a parse that yields them means the
# text was not one expression (``x > 1 garbage`` parses as an alias).
_NOT_AN_EXPRESSION = (exp.Alias, exp.Query, exp.Star, exp.Command, exp.Create, exp.Insert,
                      exp.Block)

# Arithmetic and string operators yield values, never booleans: a predicate made of one is a
# type error, not an unknown leaf.
_VALUE_OPERATORS = {exp.Add: "+", exp.Sub: "-", exp.Mul: "*", exp.Div: "/", exp.Mod: "%",
                    exp.IntDiv: "div", exp.DPipe: "||", exp.BitwiseAnd: "&",
                    exp.BitwiseOr: "|", exp.BitwiseXor: "^", exp.BitwiseLeftShift: "<<",
                    exp.BitwiseRightShift: ">>", exp.BitwiseNot: "~"}

# sqlglot nodes Spark spells as operators, by the name of Spark's function.
_PREDICATE_OPERATORS = {"regexplike": "rlike", "ilike": "ilike", "like": "like",
                        "similarto": "similarto"}


@functools.lru_cache(maxsize=4096)
def parse(text: str) -> n.Node:
    """Parse one Spark SQL boolean expression into a predicate tree."""
    if not isinstance(text, str):
        raise TypeError(f"predicate must be SQL text or an expression, got {type(text).__name__}")
    if not text.strip():
        raise SqlSyntaxError("empty predicate", 1, 1)
    try:
        try:
            tree = sqlglot.parse_one(text, read="spark")
        except RecursionError:
            tree = _parse_deep(text)
    except (ParseError, TokenError) as e:
        raise _syntax_error(e, text) from None
    if isinstance(tree, _NOT_AN_EXPRESSION) or tree is None:
        raise SqlSyntaxError(f"not a single boolean expression: {text!r}", 1, 1)
    return _convert(tree)


def _parse_deep(text: str) -> exp.Expression:
    """sqlglot's parser recurses once per nesting level; very deep predicates (thousands of
    parentheses) get a thread with a large stack and a matching recursion limit."""
    result: list = []

    def work() -> None:
        old = sys.getrecursionlimit()
        sys.setrecursionlimit(max(old, 200_000))
        try:
            result.append(sqlglot.parse_one(text, read="spark"))
        except BaseException as e:  # re-raised in the caller's thread
            result.append(e)
        finally:
            sys.setrecursionlimit(old)

    previous = threading.stack_size(512 * 1024 * 1024)
    try:
        worker = threading.Thread(target=work, name="prunekit-deep-parse")
        worker.start()
        worker.join()
    finally:
        threading.stack_size(previous)
    if isinstance(result[0], RecursionError):
        raise SqlSyntaxError("predicate nests too deeply to parse; build it with prunekit.col")
    if isinstance(result[0], BaseException):
        raise result[0]
    return result[0]


def _syntax_error(e: Exception, text: str) -> SqlSyntaxError:
    errors = getattr(e, "errors", None) or [{}]
    first = errors[0]
    desc = first.get("description") or str(e).splitlines()[0]
    return SqlSyntaxError(f"malformed SQL in predicate: {desc}", first.get("line", 1),
                          first.get("col", 1))


def _column_parts(e: exp.Expression) -> list[str] | None:
    """The path of a column reference: ``a.b.c`` is a Column with qualifiers, five parts or
    more nest it in Dot nodes; a backticked part keeps its dots (`` `a.b`.c ``)."""
    tail: list[str] = []
    while isinstance(e, exp.Dot) and isinstance(e.expression, exp.Identifier):
        tail.append(e.expression.name)
        e = e.this
    if not isinstance(e, exp.Column) or not isinstance(e.this, exp.Identifier):
        return None
    return [p.name for p in e.parts] + tail[::-1]


def _sub_expressions(e: exp.Expression) -> list[exp.Expression]:
    """The children of ``e`` that are converted before ``e`` itself."""
    if isinstance(e, (exp.Column, exp.Literal, exp.Null, exp.Boolean, exp.HexString)):
        return []
    if isinstance(e, exp.Dot) and _column_parts(e) is not None:
        return []
    if isinstance(e, (exp.Cast, exp.TryCast)) and _is_literal(e.this):
        return []
    if isinstance(e, exp.Neg) and _is_literal(e.this):
        return []
    if isinstance(e, exp.Interval) and _interval(e) is not None:
        return []
    if isinstance(e, (exp.Like, exp.Escape)):
        return [e.this] if isinstance(e, exp.Like) else [e.this.this]
    if isinstance(e, exp.In):
        return [e.this, *e.expressions]
    if isinstance(e, exp.Between):
        return [e.this, e.args["low"], e.args["high"]]
    if isinstance(e, exp.Case):  # operand, then (condition, value) per WHEN, then ELSE
        return [x for x in [e.this] + [y for i in e.args.get("ifs") or [] for y in (
            i.this, i.args.get("true"))] + [e.args.get("default")] if x is not None]
    if isinstance(e, (exp.TimestampTrunc, exp.DateTrunc)) and _unit(e) is not None:
        return [e.this]
    if isinstance(e, exp.Extract) and _field(e.this) is not None:
        return [e.expression]
    return [v for v in e.iter_expressions() if not isinstance(v, exp.DataType)]


def _is_literal(e: exp.Expression) -> bool:
    """A constant sqlglot node: a literal, NULL, a boolean, hex, or a negated literal."""
    while isinstance(e, (exp.Neg, exp.Paren)):
        e = e.this
    return isinstance(e, (exp.Literal, exp.Null, exp.Boolean, exp.HexString))


def _convert(root: exp.Expression) -> n.Node:
    # Post-order with an explicit stack: deep AND/OR chains must not recurse.
    results: list[n.Node] = []
    stack: list[tuple[exp.Expression, bool]] = [(root, False)]
    while stack:
        e, expanded = stack.pop()
        subs = _sub_expressions(e)
        if subs and not expanded:
            stack.append((e, True))
            stack.extend((s, False) for s in reversed(subs))
            continue
        kids = tuple(results[len(results) - len(subs):]) if subs else ()
        if subs:
            del results[len(results) - len(subs):]
        node = _build(e, kids)
        # sqlglot marks some negations with a flag instead of a Not node (`s NOT LIKE 'a%'`
        # is Like(negate=True)); dropping it would invert the predicate.
        inner = e.this if isinstance(e, exp.Escape) else e
        if e.args.get("negate") or (inner is not e and inner.args.get("negate")):
            node = n.Not(node)
        results.append(node)
    return results[0]


def _build(e: exp.Expression, kids: tuple[n.Node, ...]) -> n.Node:
    if isinstance(e, _NOT_AN_EXPRESSION):
        raise SqlSyntaxError(f"unexpected {e.key} in predicate: {e.sql(dialect='spark')!r}")
    if isinstance(e, exp.Paren):
        return kids[0]
    if isinstance(e, (exp.Column, exp.Dot)) and (parts := _column_parts(e)) is not None:
        # Every part after the first is a struct field: prunekit has no table qualifiers
        # (expr/resolve.py explains an unknown first part).
        return n.Column(parts[0], tuple(parts[1:]))
    if isinstance(e, exp.Column):  # t.* and the like
        raise SqlSyntaxError(f"not a column reference: {e.sql(dialect='spark')!r}")
    if isinstance(e, (exp.Literal, exp.Null, exp.Boolean, exp.HexString, exp.Neg)) and not kids:
        return n.Literal(_literal_value(e))
    if isinstance(e, exp.Interval) and not kids:
        return n.Literal(_interval(e))
    if isinstance(e, (exp.Cast, exp.TryCast)):
        to = _arrow_type(e.to)
        if not kids:  # a typed literal: DATE '...', CAST('NaN' AS DOUBLE), 5L
            return n.Literal(_cast_literal(_literal_value(e.this), to, e), to)
        if to is None:
            return n.Func("cast", kids)
        # sqlglot reads Spark's CAST as a TryCast too (lenient outside ANSI mode); TRY_CAST
        # is the one marked safe
        return n.Cast(kids[0], to, safe=isinstance(e, exp.TryCast) and e.args.get("safe") is True)
    if type(e) in _COMPARE:
        return n.Compare(_COMPARE[type(e)], kids[0], kids[1])
    if isinstance(e, exp.And):
        return n.and_(*kids)
    if isinstance(e, exp.Or):
        return n.or_(*kids)
    if isinstance(e, exp.Not):
        return n.Not(kids[0])
    if isinstance(e, exp.Is):
        target = e.expression
        if isinstance(target, exp.Null):
            return n.IsNull(kids[0])
        if isinstance(target, exp.Boolean):
            return n.IsBool(kids[0], bool(target.this))
        return n.Func("is", kids)
    if isinstance(e, exp.NullSafeNEQ):
        return n.DistinctFrom(kids[0], kids[1])
    if isinstance(e, exp.NullSafeEQ):
        return n.Not(n.DistinctFrom(kids[0], kids[1]))
    if isinstance(e, exp.In):
        if e.args.get("query") or e.args.get("unnest") or e.args.get("field"):
            return n.Func("in_subquery", kids[:1])
        return n.In(kids[0], kids[1:])
    if isinstance(e, exp.Between):
        return n.Between(*kids)
    if isinstance(e, exp.Escape) and isinstance(e.this, exp.ILike):  # ilike(s, pattern, esc)
        pattern, escape = e.this.expression, _literal_value(e.expression)
        if not isinstance(escape, str) or len(escape) != 1:
            raise SqlSyntaxError(f"ILIKE escape must be one character, got {escape!r}")
        if isinstance(pattern, exp.Literal) and pattern.is_string:
            return n.Func("ilike", (kids[0], n.Literal(pattern.this), n.Literal(escape)))
        return n.Func("ilike", kids)
    if isinstance(e, (exp.Like, exp.Escape)):
        like = e if isinstance(e, exp.Like) else e.this
        escape = "\\"
        if isinstance(e, exp.Escape):
            escape = _literal_value(e.expression)
        pattern = like.expression
        if isinstance(like, exp.Like) and isinstance(pattern, exp.Literal) and pattern.is_string:
            if not isinstance(escape, str) or len(escape) != 1:
                raise SqlSyntaxError(f"LIKE escape must be one character, got {escape!r}")
            return n.Like(kids[0], pattern.this, escape)
        return n.Func("like", kids)
    if isinstance(e, exp.StartsWith):
        return n.StartsWith(kids[0], kids[1])
    if isinstance(e, exp.IsNan):
        return n.IsNan(kids[0])
    if isinstance(e, exp.Neg):
        return n.Neg(kids[0])
    special = _functions(e, kids)
    if special is not None:
        return special
    if isinstance(e, exp.Concat) and all(isinstance(k, n.Literal) for k in kids):
        if all(isinstance(k.value, str) for k in kids):  # 'a''b' arrives as a concatenation
            return n.Literal("".join(k.value for k in kids))
    if isinstance(e, exp.Anonymous):
        name = str(e.this).lower()
        if name in ("isnull", "isnotnull") and len(kids) == 1:  # Spark's function forms
            return n.IsNull(kids[0]) if name == "isnull" else n.Not(n.IsNull(kids[0]))
        return n.Func(name, kids)
    if type(e) in _VALUE_OPERATORS:
        return n.Func(_VALUE_OPERATORS[type(e)], kids)
    # Anything else is accepted and weakens only its own leaf (docs/semantics.md §5), named as
    # Spark names it, so that bind knows whether it can be a predicate.
    return n.Func(_spark_name(e), kids)


def _spark_name(e: exp.Expression) -> str:
    """The name of Spark's function for a sqlglot node (``TsOrDsAdd`` is ``date_add``).

    >>> _spark_name(sqlglot.parse_one("date_add(d, 1)", read="spark"))
    'date_add'
    """
    if e.key in _PREDICATE_OPERATORS:
        return _PREDICATE_OPERATORS[e.key]
    if isinstance(e, exp.Func):
        try:
            text = e.sql(dialect="spark")
        except Exception:  # a node sqlglot cannot write back: its own name will do
            return e.key
        m = re.match(r"([A-Za-z_][A-Za-z0-9_]*)\s*(\(|$)", text)
        if m:
            return m.group(1).lower()
    return e.key


def _unit(e: exp.Expression) -> str | None:
    """The unit of ``date_trunc`` / ``trunc`` when it is written as a constant."""
    unit = e.args.get("unit")
    if isinstance(unit, exp.Var) or isinstance(unit, exp.Literal) and unit.is_string:
        return str(unit.this).lower()
    return None


# Spark's EXTRACT / date_part fields that are year(), month(), day().
_FIELDS = {"year": "year", "y": "year", "years": "year", "yr": "year", "yrs": "year",
           "month": "month", "mon": "month", "mons": "month", "months": "month",
           "day": "day", "d": "day", "days": "day"}


def _field(e: exp.Expression) -> str | None:
    if isinstance(e, exp.Var) or isinstance(e, exp.Literal) and e.is_string:
        return _FIELDS.get(str(e.this).lower())
    return None


def _functions(e: exp.Expression, kids: tuple) -> n.Node | None:
    """Spark functions that ``functions/`` reasons about, in one spelling each: CASE as
    nested ``if`` (Spark's ``if(c, a, b)`` takes b when c is FALSE or NULL, as CASE does),
    ``to_date(x)`` as ``CAST(x AS DATE)``, the truncations with their unit as a literal."""
    if isinstance(e, exp.Case):
        kids = list(kids)
        operand = kids.pop(0) if e.this is not None else None
        other = kids.pop() if e.args.get("default") is not None else n.Literal(None)
        pairs = list(zip(kids[::2], kids[1::2], strict=True))
        for cond, value in reversed(pairs):
            if operand is not None:  # CASE x WHEN v: x = v
                cond = n.Compare(n.Op.EQ, operand, cond)
            other = n.Func("if", (cond, value, other))
        return other
    if isinstance(e, exp.Extract) and _field(e.this) is not None:  # EXTRACT(YEAR FROM d)
        return n.Func(_field(e.this), (kids[0],))
    if isinstance(e, exp.Anonymous) and str(e.this).lower() == "date_part" and len(kids) == 2 \
            and isinstance(kids[0], n.Literal) and isinstance(kids[0].value, str) and \
            _FIELDS.get(kids[0].value.lower()):
        return n.Func(_FIELDS[kids[0].value.lower()], (kids[1],))
    if isinstance(e, exp.If) and len(kids) in (2, 3):
        return n.Func("if", (kids[0], kids[1], kids[2] if len(kids) == 3 else n.Literal(None)))
    if isinstance(e, exp.TsOrDsToDate) and not e.args.get("format") and len(kids) == 1:
        if isinstance(kids[0], n.Cast) and kids[0].to == pa.date32():
            return kids[0]  # year(CAST(t AS DATE)): sqlglot casts to DATE again
        return n.Cast(kids[0], pa.date32())
    if isinstance(e, exp.TimestampTrunc) and _unit(e) is not None:
        return n.Func("date_trunc", (n.Literal(_unit(e)), kids[0]))
    if isinstance(e, exp.DateTrunc) and _unit(e) is not None:
        return n.Func("trunc", (kids[0], n.Literal(_unit(e))))
    return _dates(e, kids)


# The moment of the query, one spelling each (``expr/syntax/moments.py`` fixes them).
_MOMENTS = {exp.CurrentDate: "current_date", exp.CurrentTimestamp: "current_timestamp",
            exp.Localtimestamp: "localtimestamp"}


def _dates(e: exp.Expression, kids: tuple) -> n.Node | None:
    """Date arithmetic in Spark's spelling: ``date_sub(d, k)`` (sqlglot reads it as
    ``date_add(d, k * -1)``), ``now()`` as ``current_timestamp()``, two interval literals
    added (``INTERVAL 1 YEAR 2 MONTHS``) as one."""
    if type(e) in _MOMENTS and not kids:
        return n.Func(_MOMENTS[type(e)], ())
    if isinstance(e, exp.Anonymous) and str(e.this).lower() == "now" and not kids:
        return n.Func("current_timestamp", ())
    if isinstance(e, exp.TsOrDsAdd) and len(kids) >= 2 and str(
            e.args.get("unit") or "DAY").upper() == "DAY":
        kids, k = kids[:2], kids[1]  # the unit, a third child, is always DAY here
        if isinstance(k, n.Func) and k.name == "*" and isinstance(k.args[1], n.Literal) and \
                k.args[1].value == -1 and isinstance(e.expression, exp.Mul):
            return n.Func("date_sub", (kids[0], k.args[0]))
        return n.Func("date_add", kids)
    if isinstance(e, exp.DateDiff) and len(kids) == 2 and not e.args.get("unit"):
        # sqlglot wraps both arguments in to_date(); datediff casts them to DATE itself
        return n.Func("datediff", tuple(k.arg if isinstance(k, n.Cast) and k.to == pa.date32()
                                        and isinstance(x, exp.TsOrDsToDate) else k
                                        for k, x in zip(kids, (e.this, e.expression),
                                                        strict=True)))
    if isinstance(e, (exp.Add, exp.Sub)) and all(
            isinstance(k, n.Literal) and isinstance(k.value, Interval) for k in kids):
        a, b = kids[0].value, kids[1].value
        total = a.plus(b.negated() if isinstance(e, exp.Sub) else b)
        return None if total is None else n.Literal(total)
    return None


def _interval(e: exp.Interval) -> Interval | None:
    """An interval literal with a constant quantity and unit, else None."""
    q, unit = e.this, e.args.get("unit")
    if not isinstance(q, exp.Literal):
        return None
    if isinstance(unit, exp.Var):
        return interval(str(q.this), str(unit.this))
    if isinstance(unit, exp.IntervalSpan) and all(
            isinstance(u, exp.Var) for u in (unit.this, unit.expression)):
        return interval(str(q.this), str(unit.this.this), str(unit.expression.this))
    return None


def _literal_value(e: exp.Expression) -> object:
    if isinstance(e, exp.Null):
        return None
    if isinstance(e, exp.Boolean):
        return bool(e.this)
    if isinstance(e, exp.HexString):
        text = e.this
        return bytes.fromhex(text if len(text) % 2 == 0 else "0" + text)
    if isinstance(e, exp.Paren):
        return _literal_value(e.this)
    if isinstance(e, exp.Neg):
        value = _literal_value(e.this)
        if value is None:
            return None  # -NULL is NULL
        if isinstance(value, (int, float, decimal.Decimal)) and not isinstance(value, bool):
            return negate(value)
        raise TypeMismatchError(f"cannot negate {value!r}")
    if isinstance(e, exp.Literal):
        if e.is_string:
            return e.this
        return _number(e.this)
    raise SqlSyntaxError(f"expected a literal, got {e.sql(dialect='spark')!r}")


def _number(text: str) -> int | float | decimal.Decimal:
    """Spark's literal rules: ``1e3`` is DOUBLE, ``5.5`` is DECIMAL (exact), ``5`` integral."""
    if "e" in text.lower():
        return float(text)
    if "." in text:
        return decimal.Decimal(text)
    return int(text)


def _arrow_type(t: exp.DataType) -> pa.DataType | None:
    name = t.this.name if hasattr(t.this, "name") else str(t.this)
    if name == "DECIMAL":
        params = [int(p.name) for p in t.expressions]
        precision, scale = (params + [10, 0])[:2] if params else (10, 0)
        return pa.decimal128(precision, scale) if 0 < precision <= 38 else None
    return _TYPES.get(name)


def _cast_literal(value: object, to: pa.DataType | None, e: exp.Expression) -> object:
    """Evaluate ``CAST(literal AS type)`` now; refuse what Spark would reject."""
    try:
        check_literal(value)  # the literal itself first: Spark's parser reads it before the cast
        return cast_literal(value, to)
    except TypeMismatchError as exc:
        raise TypeMismatchError(f"cannot cast literal {e.sql(dialect='spark')}: {exc}") from None
