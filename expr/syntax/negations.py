"""``-x`` of a signed integer column where the engine's arithmetic wraps (``Engine.
negation_wraps``, DataFusion 55): ``-x`` of the type's least value is that value again (or
the query fails), so ``-x op c`` is ``x op' -c`` wherever ``x`` is not the least value, and
``least op c`` where it is. Spark's binding leaves that one row unknown (DuckDB's optimizer
moves the minus to the constant instead); written out, a row group holding the least value
is decided too.
"""

from __future__ import annotations

import decimal
import math
from collections.abc import Mapping

from sqlglot import exp

from prunekit.expr.spark_types.arrow_casts import decimal_units
from prunekit.expr.spark_types.engines import engine
from prunekit.expr.syntax.engine_lists import decimals_among_doubles
from prunekit.expr.syntax.engine_operands import (
    EXACT,
    FLIPPED,
    INTEGER_TYPES,
    kind_of,
    number_value,
)
from prunekit.expr.syntax.list_merges import OWN_EQUALITY

_LEAST = {"int8": -2**7, "int16": -2**15, "int32": -2**31, "int64": -2**63}

# -x op c is x op' -c: op' by op.
_MIRRORED = FLIPPED
_HOLDS = {exp.EQ: lambda a, b: a == b, exp.NEQ: lambda a, b: a != b,
          exp.NullSafeEQ: lambda a, b: a == b, exp.NullSafeNEQ: lambda a, b: a != b,
          exp.LT: lambda a, b: a < b, exp.LTE: lambda a, b: a <= b,
          exp.GT: lambda a, b: a > b, exp.GTE: lambda a, b: a >= b}


def wrapping_negations(tree: exp.Expression, dialect: str,
                       types: Mapping[str, object] | None) -> exp.Expression:
    """``-x op c`` (``op`` a comparison or IS [NOT] DISTINCT FROM), ``-x IN (c, ...)`` and
    ``-x BETWEEN a AND b`` of a signed integer column ``x`` and numbers (whole ones below
    2**63) written with ``x`` itself, the least value apart. The tree is returned (another
    one where the whole predicate was rewritten).

    >>> import sqlglot
    >>> wrapping_negations(sqlglot.parse_one("-x > 5"), "datafusion", {"x": "int8"}).sql()
    'x < -5 AND x <> -128'
    >>> wrapping_negations(sqlglot.parse_one("-x IN (2, -128)"), "datafusion",
    ...                    {"x": "int8"}).sql()
    'x IN (-2, 128) OR x = -128'
    """
    if not engine(dialect).negation_wraps:
        return tree
    for node in list(tree.find_all(*_MIRRORED, exp.In, exp.Between)):
        written = _written(node, types)
        if written is None:
            continue
        if node is tree:
            return written
        node.replace(exp.Paren(this=written))
    return tree


def _written(node: exp.Expression, types: Mapping[str, object] | None) -> exp.Expression | None:
    """``node`` written with ``x`` itself, or None where it is not such a comparison."""
    if isinstance(node, exp.In):
        column, least = _negated_column(node.this, types)
        if column is None or node.args.get("query"):
            return None
        if decimals_among_doubles(node, types):
            return _in_a_decimal(node, column, least)
        items = _unsigned_as_doubles(node.expressions)
        values = [_number(i) for i in items]
        if not values or None in values:
            return None
        if any(float(v) == 0 and _is_double(i)
               for v, i in zip(values, items, strict=True)):
            return None  # a set of DOUBLEs tells -0.0 from the 0.0 that -x of 0 gives (1e-400
            # is a zero too)
        mirrored = exp.In(this=column.copy(), expressions=[_negated(i) for i in items])
        mirrored.meta.update(node.meta)  # what list_merges found of the list holds for it
        double = any(map(_is_double, items))  # (its items meet in one type)
        return _apart(mirrored, column, least, any(
            _compared(least, v, double, exp.EQ) for v in values))
    if isinstance(node, exp.Between):
        column, least = _negated_column(node.this, types)
        low, high = _number(node.args["low"]), _number(node.args["high"])
        if column is None or low is None or high is None or decimals_among_doubles(
                node, types):
            return None
        mirrored = exp.Between(this=column.copy(), low=_negated(node.args["high"]),
                               high=_negated(node.args["low"]))
        mirrored.meta.update(node.meta)
        double = _is_double(node.args["low"]) or _is_double(node.args["high"])  # (all three
        # in one type there: -2**63 is at least -9223372036854775807 beside 1e0)
        return _apart(mirrored, column, least, _compared(least, low, double, exp.GTE) and
                      _compared(least, high, double, exp.LTE))
    for negated, other, op in ((node.this, node.expression, type(node)),
                               (node.expression, node.this, _MIRRORED[type(node)])):
        column, least = _negated_column(negated, types)
        value = _number(other)
        if column is not None and value is not None:
            mirrored = _MIRRORED[op](this=column.copy(), expression=_negated(other))
            mirrored.meta.update(node.meta)  # (an equality list_merges found may merge)
            return _apart(mirrored, column, least, _compared(least, value, _is_double(other),
                                                             op),
                          distinct=op in (exp.NullSafeEQ, exp.NullSafeNEQ))
    return None


def _in_a_decimal(node: exp.In, column: exp.Column, least: int) -> exp.Expression | None:
    """``-x IN (...)`` that DataFusion compares in a DECIMAL(35, 15) (a signed BIGINT, an
    unsigned one and a DOUBLE among its items: ``decimals_among_doubles``), written with
    ``x`` against the items' negations, each the exact value it has there (a DOUBLE as
    Arrow casts it to 15 places: 9.223372e+18 is 9223372000000000458.862585475760128), the
    least value apart; None where an item is anything else (a cast to DECIMAL, whose common
    type with the others may be another) or beyond that DECIMAL (the query fails there)."""
    values: list[decimal.Decimal | None] = []
    for item in node.expressions:
        bare = item.unnest()
        sign = -1 if isinstance(bare, exp.Neg) else 1
        bare = bare.this.unnest() if sign < 0 else bare
        if isinstance(bare, exp.Null):
            values.append(None)
            continue
        if isinstance(bare, exp.Cast) and bare.to.this == exp.DataType.Type.DOUBLE and (
                number_value(bare.this) is not None):
            double = float(number_value(bare.this))
        elif isinstance(bare, exp.Literal) and not bare.is_string and (
                number := number_value(bare)) is not None:
            if bare.this.isdigit() and int(bare.this) < 2**64:  # (a BIGINT, signed or not)
                values.append(sign * decimal.Decimal(int(bare.this)))
                continue
            double = float(number)
        else:
            return None
        units = decimal_units(sign * double, 15) if math.isfinite(double) else None
        if units is None:
            return None
        values.append(decimal.Decimal(units).scaleb(-15, decimal.Context(prec=80)))
    if any(v is not None and abs(v) >= 10**20 for v in values):
        return None
    mirrored = exp.In(this=column.copy(), expressions=[
        exp.Null() if v is None else _literal(-v) for v in values])
    mirrored.meta.update(node.meta)
    return _apart(mirrored, column, least, any(v == least for v in values if v is not None))


def _apart(mirrored: exp.Expression, column: exp.Column, least: int,
           holds_at_least: bool, distinct: bool = False) -> exp.Expression:
    """``(mirrored AND x <> least) OR (x = least AND holds)``, written ``mirrored OR x =
    least`` where ``holds`` and ``mirrored AND x <> least`` where not (the column once in each
    part, so a group holding the least value is decided too): NULL where ``x`` is, as the
    comparison is; ``distinct`` (IS [NOT] DISTINCT FROM, never NULL): with ``IS [NOT]
    DISTINCT FROM least``, ``mirrored`` where ``x`` is NULL."""
    apart, alike = (exp.NullSafeNEQ, exp.NullSafeEQ) if distinct else (exp.NEQ, exp.EQ)
    other = apart(this=column.copy(), expression=_literal(least))
    at_least = alike(this=column.copy(), expression=_literal(least))
    other.meta[OWN_EQUALITY] = at_least.meta[OWN_EQUALITY] = True
    # (the same rows as written with the column once: where the least value holds, mirrored
    # OR x = least; where it does not, mirrored AND x <> least; NULL where x is NULL in both)
    if holds_at_least:
        return exp.or_(mirrored, at_least)
    return exp.and_(mirrored, other)


def _negated_column(x: exp.Expression, types: Mapping[str, object] | None
                    ) -> tuple[exp.Column | None, int]:
    """The column of ``-x`` (maybe parenthesized) of a signed integer column, its least."""
    x = x.unnest()
    if not isinstance(x, exp.Neg) or not isinstance(x.this.unnest(), exp.Column):
        return None, 0
    column = x.this.unnest()
    least = _LEAST.get(kind_of(column, types) or "")
    return (column, least) if least is not None else (None, 0)


def _compared(least: int, value: decimal.Decimal, double: bool, op: type) -> bool:
    """Whether ``least op value`` holds, as DOUBLEs where the engine compares in DOUBLE
    (beside a fraction, a DOUBLE there): -2**63 equals -9223372036854775807.5 then."""
    if double:
        return _HOLDS[op](float(least), float(value))
    return _HOLDS[op](least, value)


def _is_double(x: exp.Expression) -> bool:
    """Whether a number is a DOUBLE to the engine (``fractions_are_double``, the one engine
    whose negation wraps): a fraction, a number with an exponent, a cast to DOUBLE (not a
    whole number's cast to an integer type)."""
    x = _uncast(x)
    if x is None:
        return False
    inner = x.this.unnest() if isinstance(x, exp.Neg) else x
    if isinstance(inner, exp.Cast):
        return inner.to.this == exp.DataType.Type.DOUBLE
    return "." in x.sql() or "e" in x.sql().lower() or (
        _beyond_bigint(x) and int(x.this) >= 2**64)


def _beyond_bigint(x: exp.Expression) -> bool:
    """A whole number written as such (no sign, no cast) beyond BIGINT: an unsigned BIGINT
    (compared exactly, as DECIMAL(20, 0), with a BIGINT there), a DOUBLE beyond that. (A
    negative one beyond BIGINT is a DOUBLE whose negation would be an unsigned BIGINT.)"""
    return isinstance(x, exp.Literal) and not x.is_string and x.this.isdigit() and int(
        x.this) >= 2**63


def _uncast(x: exp.Expression) -> exp.Expression | None:
    """A number literal, maybe negated, or ``CAST(n AS DOUBLE)`` of one (maybe negated), or
    a cast of a whole number (maybe negated) to an integer type."""
    x = x.unnest()
    inner = x.this.unnest() if isinstance(x, exp.Neg) else x
    if isinstance(inner, exp.Cast) and (number := number_value(inner.this)) is not None and (
            inner.to.this == exp.DataType.Type.DOUBLE or (
                inner.to.this in INTEGER_TYPES and number == number.to_integral_value()
                and "." not in inner.this.sql() and "e" not in inner.this.sql().lower())
            or _decimal_cast(inner)):
        return x
    return x if number_value(x) is not None else None


def _unsigned_as_doubles(items: list) -> list:
    """A list's items, an unsigned BIGINT among DOUBLEs written as the DOUBLE it is there
    (``CAST(n AS DOUBLE)``: the nearest, as Arrow's cast rounds) where the list is not
    compared in a DECIMAL (``decimals_among_doubles``), so its negation is the DOUBLE's: in
    ``(-x) IN (-8.5, 9223372036854775808)`` all meet as DOUBLEs.

    >>> import sqlglot
    >>> items = sqlglot.parse_one("x IN (1.5, 9223372036854775808)").expressions
    >>> [i.sql() for i in _unsigned_as_doubles(items)]
    ['1.5', 'CAST(9223372036854775808 AS DOUBLE)']
    """
    if not any(map(_is_double, items)):
        return items
    return [exp.cast(i.unnest().copy(), exp.DataType.Type.DOUBLE)
            if _beyond_bigint(i.unnest()) and not _is_double(i) else i for i in items]


def _decimal_cast(x: exp.Expression) -> bool:
    """A cast of a number to a DECIMAL that holds its value (``_decimal_value``): a DECIMAL
    meets an integer exactly, as does its negation."""
    return _decimal_value(x) is not None


def _decimal_value(x: exp.Expression) -> decimal.Decimal | None:
    """The value of ``CAST(n AS DECIMAL(p, s))`` (``n`` maybe negated) as the engine casts
    it: a whole number exactly, a fraction (a DOUBLE there) by Arrow's rounding of the DOUBLE
    (``-9223372036854775806.5`` is -2**63 then); None for anything else, or where the DECIMAL
    cannot hold it (the query fails)."""
    if not (isinstance(x, exp.Cast) and x.to.this == exp.DataType.Type.DECIMAL):
        return None
    params = [q.this for q in x.to.expressions]
    number = x.this.unnest()
    sign = -1 if isinstance(number, exp.Neg) else 1
    number = number.this.unnest() if sign < 0 else number
    if len(params) != 2 or not all(isinstance(q, exp.Literal) for q in params) or not (
            isinstance(number, exp.Literal) and not number.is_string):
        return None
    p, s = int(params[0].this), int(params[1].this)
    if any(c in number.this.lower() for c in ".e") or not (
            -(2**63) <= sign * int(number.this) < 2**64):  # (a DOUBLE there)
        double = sign * float(number.this)
        units = decimal_units(double, s) if math.isfinite(double) else None
    else:
        units = sign * int(number.this) * 10**s
    if units is None or not 0 <= s <= 38 or abs(units) >= 10**p:
        return None
    return decimal.Decimal(units).scaleb(-s, decimal.Context(prec=80))


def _bare(x: exp.Expression) -> exp.Expression:
    """The number under a cast to DOUBLE (the number itself where there is none)."""
    inner = x.this.unnest() if isinstance(x, exp.Neg) else x
    return inner.this if isinstance(inner, exp.Cast) else x


def _number(x: exp.Expression) -> decimal.Decimal | None:
    """A number (``_uncast``) as its value: a DOUBLE's whatever its size (its negation is
    exact), a whole number's below 2**63 in magnitude (beyond, the engine types the number
    and its negation apart)."""
    x = _uncast(x)
    if x is None:
        return None
    inner = x.this.unnest() if isinstance(x, exp.Neg) else x
    value = _decimal_value(inner) if _decimal_cast(inner) else number_value(_bare(x))
    if value is None or not value.is_finite():
        return None
    if isinstance(x, exp.Neg) and x is not _bare(x):
        value = -value
    return value if _is_double(x) or _decimal_cast(inner) or abs(value) < 2**63 or (
        _beyond_bigint(x)) else None


def _negated(x: exp.Expression) -> exp.Expression:
    """``-x`` of a number as it is written (so its type stays: ``1e0`` gives ``-1e0``); of a
    whole number's cast to an integer type, the negated number (a type's least value has no
    negation in that type)."""
    x = x.unnest()
    if not _is_double(x) and (x is not _bare(x) or _beyond_bigint(x)):  # (a cast to an
        # integer type or a DECIMAL, an unsigned BIGINT: exact, a DECIMAL to Spark)
        value = _number(x)
        return _literal(-int(value) if value == value.to_integral_value() else -value)
    return x.this.copy() if isinstance(x, exp.Neg) else exp.Neg(this=x.copy())


def _literal(value: decimal.Decimal | int) -> exp.Expression:
    """``value`` written as a literal, negated through ``Neg`` (so 1.50 stays 1.50)."""
    text = str(abs(value)) if isinstance(value, int) else format(abs(value), "f")
    number = exp.Literal.number(text)
    number.meta[EXACT] = True  # (a DECIMAL's value: no DOUBLE to the later rewrites)
    return exp.Neg(this=number) if value < 0 else number
