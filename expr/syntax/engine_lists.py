"""An IN list or a BETWEEN the engine compares in one type (DataFusion: its operand and every
item cast to a common type folded left to right, ``arrow_casts.common_type``) written so that
Spark compares the same values: each item's value in that type, computed as Arrow casts it,
written exactly.

- a DECIMAL common type (an unsigned BIGINT meeting a signed integer, or a cast to DECIMAL,
  among DOUBLEs): the column (integer or DECIMAL) keeps its own values, so an item off the
  column's grid of values can equal none (dropped from a list; a BETWEEN's bound moves onto
  the grid), and the rest are written at the column's scale;
- a DOUBLE (or FLOAT) common type: the column cast to it, every item as the DOUBLE (FLOAT)
  it becomes (a REAL widened, a DECIMAL by Arrow's cast, a whole number rounded); against
  an integer column a fraction is dropped from a list, as its DOUBLE is a whole number.

Spark would compare these lists otherwise (a DECIMAL meeting a DOUBLE is a DOUBLE there, and
its ANSI and legacy modes type an integer against a FLOAT apart).

In every engine a BETWEEN whose constant bounds are out of order in any type they may meet in
is never TRUE, whatever its operand (``never_true_betweens``).
"""

from __future__ import annotations

import decimal
import math
from collections.abc import Mapping
from fractions import Fraction

from sqlglot import exp

from prunekit.expr.spark_types.arrow_casts import (
    arrow_double,
    coerce,
    common_type,
    decimal_units,
    nearest_float,
)
from prunekit.expr.syntax.engine_operands import (
    ARROW_BIGINT,
    ARROW_DECIMAL,
    COMPARISONS,
    DECIMAL,
    EXACT,
    INTEGER_BITS,
    INTEGER_KINDS,
    beyond_unsigned_bigint,
    decimal_kind,
    integer_digits,
    kind_of,
    number_value,
    unknown_part,
)
from prunekit.expr.syntax.list_merges import ALONE, COMPARED_IN, MAY_MERGE, merge_drops_null
from prunekit.expr.syntax.optimizer_terms import FLOAT_KINDS, rounded, value_of

_CAST_TYPES = {exp.DataType.Type.DOUBLE: "double", exp.DataType.Type.FLOAT: "float",
               exp.DataType.Type.BIGINT: "int64", exp.DataType.Type.INT: "int32"}


def list_in_one_type(holder: exp.In | exp.Between, types: Mapping[str, object] | None
                     ) -> exp.Expression | None:
    """``holder`` written as Spark must read it to compare as DataFusion does, in place, where
    its operand is a number column (or its cast to DOUBLE, an integer column's to BIGINT, a
    DECIMAL column negated) and some item is not a whole number (a fraction, an exponent, a
    cast to DOUBLE, REAL or DECIMAL); returns the node now in its place (itself, or the
    never-true ``x BETWEEN 1 AND 0`` of a list left empty), or None where it is not such a
    list or is not modelled (a cast of a string, a value beyond the type): left as it was.

    >>> import sqlglot
    >>> x = sqlglot.parse_one("u IN (8, 15.5, 18446744073709551615)")
    >>> list_in_one_type(x, {"u": "uint64"}).sql()  # in DECIMAL(35, 15) there
    'u IN (8, 18446744073709551615)'
    >>> x = sqlglot.parse_one("u IN (8E+0, 12)")
    >>> list_in_one_type(x, {"u": "uint64"}).sql()  # in DOUBLE there
    'CAST(u AS DOUBLE) IN (8.0E0, 12.0E0)'
    """
    operand = holder.this
    items = list(holder.expressions) if isinstance(holder, exp.In) else [
        holder.args.get("low"), holder.args.get("high")]
    negated_float = _negated_float(operand, types)
    first = _type_of(negated_float, types) if negated_float is not None else _operand_type(
        operand, types)
    if first is None or any(i is None for i in items):
        return None
    if isinstance(operand, exp.Cast) and first == "int64" and kind_of(
            operand.this, types) in INTEGER_KINDS:  # an integer column's own values
        holder.set("this", operand.this.copy())
        operand = holder.this
    kinds = [_type_of(i, types) for i in items]
    if None in kinds or all(k in ("null", *INTEGER_KINDS) for k in kinds):
        return None
    if isinstance(holder, exp.In):
        to = common_type([first, *kinds])
    else:
        to = coerce(coerce(first, kinds[0]), coerce(first, kinds[1]))
    places = decimal_kind(operand.this, types) if isinstance(operand, exp.Cast) else None
    decimal_bigint = places is not None and operand.to.this == exp.DataType.Type.BIGINT
    digits = int(places[1]) - int(places[2]) if decimal_bigint else 0
    float_bigint = isinstance(operand, exp.Cast) and operand.to.this == (
        exp.DataType.Type.BIGINT) and kind_of(operand.this, types) in ("float", "double")
    # a truncation (of a DECIMAL or a float) in a list compared in DOUBLE (FLOAT)
    exact_truncation = (decimal_bigint or float_bigint) and isinstance(holder, exp.In) and (
        to in ("double", "float"))
    if (isinstance(operand.unnest(), (exp.Add, exp.Sub, exp.Mul)) or (
            decimal_bigint and not exact_truncation)) and not isinstance(to, tuple):
        return None  # (a DECIMAL's BIGINT, or integer arithmetic, in DOUBLE: as it is)
    negated_integer = isinstance(operand.unnest(), exp.Neg) and first in INTEGER_KINDS
    if negated_integer and not (to == "double" and isinstance(holder, exp.In)):
        return None  # (an integer's minus: modelled in a list of DOUBLEs alone)
    values = [None if k == "null" else _value_in(i, to) for i, k in zip(items, kinds, strict=True)]
    if any(v is None for v, k in zip(values, kinds, strict=True) if k != "null"):
        return None
    if negated_integer:
        return _negated_integers_in_double(holder, values)
    if decimal_bigint and isinstance(to, tuple) and all(v is None or (
            Fraction(v).denominator == 1 and abs(v) < 10**digits and -(2**63) <= v < 2**63)
            for v in values):
        return None  # (whole numbers BIGINT and its DECIMAL hold: its optimizer drops the
        # cast there, drop_integer_casts)
    if isinstance(to, tuple):
        if first in ("float", "double"):  # the column cast to that DECIMAL by Arrow
            if negated_float is not None and to[2] <= 22:
                # Arrow's cast of -v is minus its cast of v (a DOUBLE product negated, rounded
                # half away from zero): -g IN (a, b) is g IN (-a, -b), a BETWEEN's bounds
                # swapped
                operand = negated_float
                values = [None if v is None else -v for v in values]
                if isinstance(holder, exp.Between):
                    values.reverse()
            elif not _arrow_decimal_operand(operand, types) or to[2] > 22:
                return None
            holder.set("this", arrow_decimal(operand, to, types))
            _set_items(holder, [exp.Null() if v is None else _number(v, scale=to[2])
                                for v in values])
            holder.meta[EXACT] = True
            return holder
        if decimal_bigint and digits > 15:
            _arrow_truncation(holder)
        return _on_grid(holder, values, int(first[2]) if isinstance(first, tuple) else 0)
    if isinstance(operand.unnest(), exp.Neg) and negated_float is None:
        return None  # (a negated DECIMAL column compared in DOUBLE: not modelled)
    if to in ("double", "float") and all(v is None or math.isfinite(v) for v in values):
        integral = first not in ("float", "double") or (
            isinstance(operand, exp.Cast) and kind_of(operand.this, types) in INTEGER_KINDS)
        if exact_truncation:
            # a whole number, never -0.0, whose DOUBLE (FLOAT) equals a whole item below
            # 2**53 (2**24) only where it is that item: compared so, as that BIGINT (its cast
            # kept); an item beyond, which a DOUBLE of another number may round to (unless
            # the DECIMAL's every truncation lies below), or -0.0, which a set tells from 0:
            # not modelled
            bits = 53 if to == "double" else 24
            below = decimal_bigint and 10**digits <= 2**bits
            values = [v for v in values if v is None or float(v).is_integer() and not (
                below and abs(v) >= 10**digits)]  # (one no truncation reaches: equal to none)
            if any(v is not None and ((abs(v) >= 2**bits and not below) or (
                    v == 0 and math.copysign(1.0, v) < 0)) for v in values):
                return None
            if decimal_bigint and digits > 15:
                _arrow_truncation(holder)
            if not values:
                return _never(holder)
            _set_items(holder, [exp.Null() if v is None else _number(Fraction(v))
                                for v in values])
            holder.meta[EXACT] = True
            return holder
        if first not in ("float", "double"):  # (a FLOAT widens exactly in Spark)
            holder.set("this", exp.Cast(this=operand.copy(), to=exp.DataType.build(to.upper())))
        if integral and isinstance(holder, exp.In) and 0 not in values:
            # its DOUBLE (FLOAT) is a whole number (beside a zero the list stays a set of as
            # many items, which tells 0 from -0.0)
            values = [v for v in values if v is None or float(v).is_integer()]
            if not values:
                return _never(holder)
        written = [exp.Null() if v is None else _number(v, double=True) for v in values]
        _set_items(holder, written)
        return holder
    return None


def _arrow_truncation(holder: exp.In | exp.Between) -> None:
    """``CAST(d AS BIGINT)``, the operand of ``holder``, of a DECIMAL of more than 15 digits
    before the point, as Arrow's cast (``ARROW_BIGINT``: toward zero, the query failing beyond
    BIGINT, where Spark's legacy mode would wrap); in place."""
    holder.set("this", exp.Anonymous(this=ARROW_BIGINT, expressions=[holder.this.this.copy()]))


def common_kind(holder: exp.In | exp.Between, types: Mapping[str, object] | None
                ) -> object | None:
    """The type DataFusion compares an IN list (or a BETWEEN) of numbers in, as
    ``arrow_casts`` names it: its operand's type (a number column, a cast of one, ``-x`` of
    one, integer arithmetic), then each item's, folded left to right (a BETWEEN: the operand
    with each bound, then the two); None where one is of a type not modelled here. So on an
    integer column the order decides: ``i IN (9223372036854775808, 1.5)`` is compared in a
    DECIMAL, ``i IN (1.5, 9223372036854775808)`` in DOUBLE.

    >>> import sqlglot
    >>> [common_kind(sqlglot.parse_one(t), {"i": "int64", "f": "double"})
    ...  for t in ("i IN (9223372036854775808, 1.5)", "i IN (1.5, 9223372036854775808)",
    ...            "CAST(f AS BIGINT) IN (0, -0.0)", "i BETWEEN 1 AND 9223372036854775808",
    ...            "abs(i) IN (1.5, 2)")]
    [('decimal', 35, 15), 'double', 'double', ('decimal', 20, 0), None]
    """
    items = holder.expressions if isinstance(holder, exp.In) else [
        holder.args.get("low"), holder.args.get("high")]
    operand = holder.this.unnest()
    while isinstance(operand, exp.Neg):  # (-x has x's type)
        operand = operand.this.unnest()
    if isinstance(operand, exp.Cast) and isinstance(operand.this.unnest(), exp.Column):
        params = [q.this for q in operand.to.expressions]
        first = ("decimal", int(params[0].this), int(params[1].this)) if (
            operand.to.this == exp.DataType.Type.DECIMAL and len(params) == 2) else (
            _CAST_TYPES.get(operand.to.this))
    elif isinstance(operand, (exp.Add, exp.Sub, exp.Mul)):
        first = "int64" if _signed_integers_only(operand, types) else None
    else:
        first = _type_of(operand, types) if isinstance(operand, exp.Column) else None
    kinds = [None if i is None else _item_kind(i, types) for i in items]
    if first in (None, "null") or None in kinds:
        return None
    if isinstance(holder, exp.Between):
        return coerce(coerce(first, kinds[0]), coerce(first, kinds[1]))
    return common_type([first, *kinds])


def split_decimal_cast_betweens(tree: exp.Expression, types: Mapping[str, object] | None
                                ) -> exp.Expression:
    """DataFusion's ``CAST(d AS BIGINT) BETWEEN a AND b`` (or another integer type) of a
    DECIMAL column ``d``, compared in a DECIMAL (a bound cast to one, an unsigned BIGINT
    beside a whole number: ``common_kind``), as its optimizer plans it: the two comparisons
    ``>= a AND <= b``, each bound its value in that DECIMAL, written exactly. Its simplifier
    splits the BETWEEN, then drops the cast one comparison at a time: where a bound is a
    whole number the integer type holds, that comparison reads ``d`` itself (``CAST(d AS
    BIGINT) BETWEEN CAST(1.5 AS DECIMAL(5,2)) AND 3`` holds for 2.5, not for 3.5 there);
    elsewhere the cast stays, toward zero (Arrow's cast to BIGINT, failing the query beyond
    it, where ``d`` has more than 15 digits before the point; of more digits than another
    integer type holds: unknown). In a DOUBLE the cast stays on both sides (one column to its
    common-expression pass), as Spark reads it. Under NOT the split keeps its rows (NOT (A
    AND B) is NOT A OR NOT B in SQL's logic too). The tree is returned (another one where
    the BETWEEN was the root).

    >>> import sqlglot
    >>> x = sqlglot.parse_one("CAST(d AS BIGINT) BETWEEN CAST(1.5 AS DECIMAL(5,2)) AND 3")
    >>> split_decimal_cast_betweens(x, {"d": "decimal128(10, 2)"}).sql()
    '(CAST(d AS BIGINT) >= 1.50 AND d <= 3)'
    """
    for between in list(tree.find_all(exp.Between)):
        cast = between.this.unnest()
        if not (isinstance(cast, exp.Cast) and not isinstance(cast, exp.TryCast) and isinstance(
                cast.this, exp.Column) and cast.to.this in INTEGER_BITS):
            continue
        places = decimal_kind(cast.this, types)
        to = common_kind(between, types)
        if not places or not isinstance(to, tuple):
            continue
        bounds = [between.args.get("low"), between.args.get("high")]
        values = [_value_in(b, to) if _type_of(b, types) in ("int64", "uint64", "double") or
                  isinstance(_type_of(b, types), tuple) else None for b in bounds]
        bits = INTEGER_BITS[cast.to.this]
        top, wide = 2 ** (bits - 1), int(places[1]) - int(places[2])
        halves = []
        for op, v in zip((exp.GTE, exp.LTE), values, strict=True):
            if v is None:
                halves = None
                break
            if v.denominator == 1 and -top <= v < top:  # the cast dropped
                halves.append(op(this=cast.this.copy(), expression=_number(v)))
                continue
            if wide > integer_digits(bits) and bits != 64:
                halves = None
                break
            kept = exp.Anonymous(this=ARROW_BIGINT, expressions=[cast.this.copy()]) if (
                wide > 15) else cast.copy()
            half = op(this=kept, expression=_number(v, scale=to[2]))
            half.meta[EXACT] = True  # (its cast kept: no later rewrite drops it)
            halves.append(half)
        written = exp.Paren(this=exp.And(this=halves[0], expression=halves[1])) if halves else \
            unknown_part("its bounds compared in one DECIMAL there", between)
        if between is tree:
            return written
        between.replace(written)
    return tree


def mark_compared_kinds(tree: exp.Expression, types: Mapping[str, object] | None) -> None:
    """Mark each IN list of ``tree`` with the type DataFusion compares it in (``common_kind``,
    as ``list_merges.COMPARED_IN``), where known: two lists on one operand compared in two
    types are two expressions to its optimizer.

    >>> import sqlglot
    >>> tree = sqlglot.parse_one("q IN (1, 2147483648)")
    >>> mark_compared_kinds(tree, {"q": "decimal128(5, 0)"})
    >>> tree.meta[COMPARED_IN]
    ('decimal', 20, 0)
    """
    for holder in tree.find_all(exp.In):
        if holder.expressions and not any(holder.args.get(k) for k in ("query", "unnest")):
            kind = common_kind(holder, types)
            if kind is not None:
                holder.meta[COMPARED_IN] = kind


def decimals_among_doubles(holder: exp.In | exp.Between,
                           types: Mapping[str, object] | None) -> bool:
    """Whether DataFusion compares an IN list (or a BETWEEN) in one DECIMAL where Spark
    compares in DOUBLE: its common type (``common_kind``) is a DECIMAL and a DOUBLE (a
    fraction, an exponent, a cast to DOUBLE or FLOAT) is among the items (``i IN (CAST(-2 AS
    DECIMAL(10, 2)), 17.5)`` compares ``i`` as a DECIMAL(35, 15)). Where the type is not
    known here, any order of the items is taken to reach a DECIMAL.

    >>> import sqlglot
    >>> [decimals_among_doubles(sqlglot.parse_one(t), {"i": "int64"})
    ...  for t in ("i IN (9223372036854775808, 1.5)", "i IN (1.5, 9223372036854775808)",
    ...            "-i IN (1, 9223372036854775808, 1e0)", "i BETWEEN 1.5 AND 9223372036854775808",
    ...            "abs(i) IN (1.5, 9223372036854775808, 1)")]
    [True, False, True, True, True]
    """
    items = [i.unnest() for i in (holder.expressions if isinstance(holder, exp.In) else [
        holder.args.get("low"), holder.args.get("high")]) if i is not None]
    kinds = [_item_kind(i, types) for i in items]
    if not {"double", "float"} & {k for k in kinds if not isinstance(k, tuple)}:
        return False
    common = common_kind(holder, types)
    if common is None:  # (a type not known here: the items in any order)
        return any(isinstance(k, tuple) or _cast_to(i, exp.DataType.Type.DECIMAL)
                   for i, k in zip(items, kinds, strict=True)) or (
            "uint64" in kinds and any(k in ("int64", "int32", "int16", "int8") for k in kinds))
    return isinstance(common, tuple)


def _item_kind(x: exp.Expression, types: Mapping[str, object] | None) -> object | None:
    """``_type_of`` an item, but a DOUBLE written exactly (``1.5E0``) is a DOUBLE, and any
    cast to DOUBLE or FLOAT (of a string too: ``CAST('-0' AS DOUBLE)``) is of that type."""
    number = x.unnest().this if isinstance(x.unnest(), exp.Neg) else x.unnest()
    if isinstance(number, exp.Literal) and number.meta.get(EXACT) and "e" in number.this.lower():
        return "double"
    if _cast_to(x, exp.DataType.Type.DOUBLE, exp.DataType.Type.FLOAT):
        cast = x.unnest()
        while not isinstance(cast, exp.Cast):
            cast = cast.this.unnest()
        return _CAST_TYPES[cast.to.this]
    return _type_of(x, types)


def _cast_to(x: exp.Expression, *to: exp.DataType.Type) -> bool:
    """Whether ``x`` (maybe negated) is a cast of anything to one of ``to``."""
    while isinstance(x, (exp.Neg, exp.Paren)):
        x = x.this
    return isinstance(x, exp.Cast) and x.to.this in to


def doubles_against_decimals(tree: exp.Expression, types: Mapping[str, object] | None) -> None:
    """A DOUBLE or FLOAT column (or an integer's DOUBLE) compared alone with a number cast to
    DECIMAL(p, s): DataFusion
    casts the column to the DECIMAL both meet in (DECIMAL(max(15, s) + ..., max(15, s))), as
    Arrow casts a DOUBLE, and compares exactly. Written ``__prunekit_arrow_decimal(x, P, S)``
    against the number's exact value, in place.

    >>> import sqlglot
    >>> tree = sqlglot.parse_one("g <> CAST(0.5 AS DECIMAL(38, 10))")
    >>> doubles_against_decimals(tree, {"g": "double"})
    >>> tree.sql()
    '__PRUNEKIT_ARROW_DECIMAL(g, 38, 15) <> 0.500000000000000'
    """
    for cmp in list(tree.find_all(*COMPARISONS, exp.NullSafeEQ, exp.NullSafeNEQ)):
        for key, other_key in (("this", "expression"), ("expression", "this")):
            column, other = cmp.args.get(key), cmp.args.get(other_key)
            negated = _negated_float(column, types)
            kind = _type_of(negated, types) if negated is not None else _operand_type(
                column, types) if _arrow_decimal_operand(column, types) else None
            cast = _type_of(other, types) if isinstance(other, exp.Cast) else None
            if kind not in ("float", "double") or not isinstance(cast, tuple):
                continue
            to = coerce(kind, cast)
            value = _value_in(other, to)
            if value is None or to[2] > 22:
                continue
            if negated is not None:
                # Arrow's cast of -g is minus its cast of g, and a op b is -b op -a: -g > c
                # is -c > g
                cmp.set(key, _number(-value, scale=to[2]))
                cmp.set(other_key, arrow_decimal(negated, to, types))
            else:
                cmp.set(key, arrow_decimal(column, to, types))
                cmp.set(other_key, _number(value, scale=to[2]))
            break


def never_true_betweens(tree: exp.Expression, types: Mapping[str, object] | None,
                        fractions_truncate: bool = True) -> exp.Expression:
    """Each ``e BETWEEN a AND b`` of a number or time operand whose constant bounds are out
    of order in any type the engine may compare them in (``_out_of_order``), written ``(e
    BETWEEN a AND b AND NULL)``: the same rows, as it is never TRUE (FALSE, or NULL where
    ``e`` is), said so where ``e`` is one prunekit cannot read (an unknown leaf AND NULL is
    never TRUE either). The engine does not fold it: ``NOT (abs(x) BETWEEN 5 AND 1)`` is
    NULL where x is. ``fractions_truncate``: the engine casts a fraction to an integer type
    toward zero (DataFusion; DuckDB and PostgreSQL round it: ``CAST(1.5 AS BIGINT)`` is 2
    there, so a bound of it is not weighed). In place; the tree is returned (another one
    where the whole predicate was such a BETWEEN).

    >>> import sqlglot
    >>> never_true_betweens(sqlglot.parse_one("abs(x) BETWEEN 5 AND 1.5"), {"x": "int64"}).sql()
    '(ABS(x) BETWEEN 5 AND 1.5 AND NULL)'
    >>> never_true_betweens(sqlglot.parse_one("s BETWEEN 5 AND 1"), {"s": "string"}).sql()
    's BETWEEN 5 AND 1'
    """
    for x in list(tree.find_all(exp.Between)):
        bounds = [x.args.get("low"), x.args.get("high")]
        if x.args.get("symmetric") or not _out_of_order(*bounds) or not fractions_truncate and any(
                _integer_cast_of_fraction(b) for b in bounds):
            continue
        kinds = [kind_of(c, types) or "" for c in x.this.find_all(exp.Column)]
        if not kinds or any(lit.is_string for lit in x.this.find_all(exp.Literal)) or not all(
                k in INTEGER_KINDS or k in FLOAT_KINDS or DECIMAL.fullmatch(k)
                or k.startswith(("date", "timestamp")) for k in kinds):
            continue  # (strings compare as text: '10' is below '9')
        never = exp.paren(exp.and_(x.copy(), exp.null()))
        if x is tree:
            return never
        x.replace(never)
    return tree


def _integer_cast_of_fraction(x: exp.Expression | None) -> bool:
    """``CAST(1.5 AS BIGINT)``: a number cast to an integer type that is no whole number
    (each engine folds it its own way: toward zero, or to the nearest)."""
    x = x.unnest() if x is not None else None
    if not (isinstance(x, exp.Cast) and x.to.is_type(*exp.DataType.INTEGER_TYPES)):
        return False
    value = number_value(x.this)
    return value is None or not value.is_finite() or value != value.to_integral_value()


def _out_of_order(low: exp.Expression | None, high: exp.Expression | None) -> bool:
    """Whether ``low`` is above ``high`` in any type the engine may compare them in: numbers
    as DECIMALs of 15 places (a DOUBLE meeting a DECIMAL; a DECIMAL literal's own places are
    fewer), DOUBLEs and FLOATs, apart by more than a DOUBLE's rounding of a DECIMAL; DATEs
    and TIMESTAMPs a day apart or more (a day's midnight is below the next day's).

    >>> import sqlglot
    >>> p = sqlglot.parse_one
    >>> _out_of_order(p("CAST(820 AS FLOAT)"), p("-0.0")), _out_of_order(p("1e-20"), p("0"))
    (True, False)
    >>> _out_of_order(p("DATE '2020-01-02'"), p("TIMESTAMP '2020-01-01 12:00:00'"))
    False
    >>> _out_of_order(p("1.5"), p("-1e+300")), _out_of_order(p("1e300"), p("-1e300"))
    (True, True)
    """
    if low is None or high is None:
        return False
    a, b = value_of(low), value_of(high)
    if a is None or b is None or a[0] != b[0]:
        return False
    if a[0] == "temporal":
        return isinstance(a[1], int) and isinstance(b[1], int) and a[1] - b[1] >= 86_400
    if a[0] != "number" or not (a[1].is_finite() and b[1].is_finite()) or a[1] <= b[1]:
        return False
    a, b = a[1], b[1]
    with decimal.localcontext() as context:
        context.prec = 100
        # (apart by 1e-14 or more: still apart rounded to 15 places either way)
        if a - b < decimal.Decimal("1e-14") or a - b <= max(abs(a), abs(b)) * decimal.Decimal(
                "1e-9"):
            return False
    return all(rounded(a, form) > rounded(b, form) for form in "df")


def _arrow_decimal_operand(x: exp.Expression, types: Mapping[str, object] | None) -> bool:
    """A DOUBLE or FLOAT column, or an integer, DECIMAL or DOUBLE column's cast to DOUBLE:
    what the binding's cast to DECIMAL reads."""
    if isinstance(x, exp.Cast) and x.to.this == exp.DataType.Type.DOUBLE:
        return isinstance(x.this, exp.Column) and (
            kind_of(x.this, types) in (*INTEGER_KINDS, "double")
            or decimal_kind(x.this, types) is not None)
    return isinstance(x, exp.Column) and _type_of(x, types) in ("float", "double")


def _negated_integers_in_double(holder: exp.In, values: list) -> exp.Expression | None:
    """``-a IN (...)`` of a signed integer column ``a`` compared in DOUBLE: DataFusion takes
    the minus in ``a``'s type (wrapping at its minimum, as the binding reads ``-a``), then
    casts (``CAST((- a) AS Float64)``). That whole number equals a DOUBLE item only where the
    item is whole, and, below 2**53, only where it is that integer: the list of those items
    as integers. None where an item is 2**53 or beyond (the cast rounds there) or -0.0.

    >>> import sqlglot
    >>> x = sqlglot.parse_one("-a IN (0.5, 0, -10.0)")
    >>> _negated_integers_in_double(x, [0.5, 0.0, -10.0]).sql()
    '-a IN (0, -10)'
    """
    whole = [v for v in values if v is None or float(v).is_integer()]
    if any(v is not None and (abs(v) >= 2**53 or (v == 0 and math.copysign(1.0, v) < 0))
           for v in whole):
        return None  # (a -0.0 item: a set there tells it from the 0.0 of a = 0)
    if not [v for v in whole if v is not None]:
        return _never(holder) if None not in whole else None
    _set_items(holder, [exp.Null() if v is None else exp.Literal.number(int(v)) for v in whole])
    holder.meta[EXACT] = True  # (integers: no zero of either sign to split off)
    return holder


def _negated_float(x: exp.Expression, types: Mapping[str, object] | None
                    ) -> exp.Column | None:
    """The DOUBLE or FLOAT column of ``-g`` (or of ``-CAST(g AS DOUBLE)`` of a DOUBLE), None
    for anything else: a float's minus is exact, so its cast to a DECIMAL is minus the
    column's (Arrow widens a FLOAT to a DOUBLE first)."""
    x = x.unnest()
    if not isinstance(x, exp.Neg):
        return None
    inner = x.this.unnest()
    if isinstance(inner, exp.Cast) and inner.to.this == exp.DataType.Type.DOUBLE:
        inner = inner.this.unnest()
        return inner if isinstance(inner, exp.Column) and kind_of(inner, types) == "double" \
            else None
    return inner if isinstance(inner, exp.Column) and kind_of(inner, types) in (
        "double", "float") else None


def arrow_decimal(column: exp.Expression, to: tuple,
                  types: Mapping[str, object] | None) -> exp.Expression:
    """The call the binding reads as Arrow's cast of a DOUBLE to DECIMAL ``to``: of a DOUBLE
    column, an integer column's DOUBLE, or (written as the column alone) a DECIMAL column's
    DOUBLE as Arrow casts it."""
    if isinstance(column, exp.Cast) and (decimal_kind(column.this, types) is not None
                                         or kind_of(column.this, types) == "double"):
        column = column.this  # (a DOUBLE column's cast to DOUBLE is the column)
    return exp.Anonymous(this=ARROW_DECIMAL, expressions=[
        column.copy(), exp.Literal.number(to[1]), exp.Literal.number(to[2])])


# The integer columns whose minus DataFusion takes in their own type (wrapping at the minimum).
SIGNED_KINDS = ("int8", "int16", "int32", "int64")


def _operand_type(x: exp.Expression, types: Mapping[str, object] | None) -> object | None:
    """The type of a list's operand: a number column, its cast to DOUBLE, an integer
    column's cast to BIGINT (its own values there, or a failed query), a DECIMAL column's
    (alone in a list, or of whole numbers that BIGINT holds), or a signed integer or DECIMAL
    column negated (its type, exactly); None otherwise."""
    negated = x.unnest()
    if isinstance(negated, exp.Neg) and isinstance(negated.this.unnest(), exp.Column):
        found = _type_of(negated.this.unnest(), types)
        return found if isinstance(found, tuple) or found in SIGNED_KINDS else None
    if isinstance(x, exp.Column):
        found = _type_of(x, types)
        return None if found == "null" else found
    if isinstance(x.unnest(), (exp.Add, exp.Sub, exp.Mul)) and _signed_integers_only(
            x.unnest(), types):
        return "int64"  # (integer arithmetic: a BIGINT there, its literals BIGINTs)
    if isinstance(x, exp.Cast) and isinstance(x.this, exp.Column):
        if x.to.this == exp.DataType.Type.DOUBLE and _type_of(x.this, types) is not None:
            return "double"
        if x.to.this == exp.DataType.Type.BIGINT and kind_of(x.this, types) in INTEGER_KINDS:
            return "int64"
        places = decimal_kind(x.this, types)
        if x.to.this == exp.DataType.Type.BIGINT and places and isinstance(
                x.parent, exp.In) and x.parent.meta.get(ALONE):
            return "int64"  # (its truncation, a BIGINT there: the optimizer keeps the cast
            # where an item is no whole number, and no merge makes the list one of those)
        if x.to.this == exp.DataType.Type.BIGINT and isinstance(x.parent, exp.In) and kind_of(
                x.this, types) in ("float", "double") and x.parent.meta.get(ALONE):
            return "int64"  # (its truncation, the query failing on NaN or beyond BIGINT; no
            # merge makes the list another)
        if x.to.this == exp.DataType.Type.BIGINT and places and int(places[2]) == 0 and int(
                places[1]) <= 18:
            return "int64"  # (a whole DECIMAL's own value, which BIGINT holds: the cast
            # changes nothing, kept or dropped by the optimizer on a side of a BETWEEN)
    return None


def _signed_integers_only(x: exp.Expression, types: Mapping[str, object] | None) -> bool:
    """Whether arithmetic ``x`` (``+ - *``) reads signed integer columns and whole numbers
    within BIGINT only: a BIGINT there (a narrower column widened to its literals' BIGINT).

    >>> import sqlglot
    >>> _signed_integers_only(sqlglot.parse_one("c * 2147483647 - b"), {"c": "int8", "b": "int64"})
    True
    >>> _signed_integers_only(sqlglot.parse_one("c * 2"), {"c": "uint64"})
    False
    """
    for node in x.walk():
        if isinstance(node, exp.Column):
            if kind_of(node, types) not in ("int8", "int16", "int32", "int64"):
                return False
        elif isinstance(node, exp.Literal):
            if node.is_string or not node.this.isdigit() or int(node.this) >= 2**63:
                return False
        elif not isinstance(node, (exp.Add, exp.Sub, exp.Mul, exp.Neg, exp.Paren,
                                   exp.Identifier)):
            return False
    return True


def _type_of(x: exp.Expression, types: Mapping[str, object] | None) -> object | None:
    """DataFusion's type of an operand or item, as ``arrow_casts`` names it; None where not
    modelled."""
    while isinstance(x, exp.Paren):
        x = x.this
    if isinstance(x, exp.Null):
        return "null"
    if isinstance(x, exp.Column):
        found = decimal_kind(x, types)
        if found:
            return "decimal", int(found[1]), int(found[2])
        kind = kind_of(x, types)
        return kind if kind in INTEGER_KINDS or kind in ("float", "double") else None
    number = x.this if isinstance(x, exp.Neg) else x
    if isinstance(number, exp.Literal) and number.meta.get(EXACT):
        return "decimal", 38, 15  # (a value an earlier rewrite wrote exactly: compared as
        # the DECIMAL it is, as the engine compares it)
    if isinstance(number, exp.Literal) and not number.is_string:
        if "." in number.this or "e" in number.this.lower() or beyond_unsigned_bigint(number):
            return "double"
        return "uint64" if int(number.this) >= 2**63 and number is x else "int64"
    if isinstance(x, exp.Neg) and isinstance(x.this.unnest(), exp.Cast):
        kind = _type_of(x.this, types)  # -CAST(1 AS DOUBLE): the cast's type
        return kind if kind in ("double", "float") else None
    if isinstance(x, exp.Cast) and _number_of(x.this) is not None:
        if x.to.this == exp.DataType.Type.DECIMAL:
            params = [q.this for q in x.to.expressions]
            if len(params) == 2 and all(isinstance(q, exp.Literal) for q in params):
                return "decimal", int(params[0].this), int(params[1].this)
            return None
        return _CAST_TYPES.get(x.to.this)
    return None


def _number_of(x: exp.Expression) -> int | float | None:
    """A number literal's value as DataFusion reads it (maybe negated): a whole number within
    unsigned BIGINT as an int, anything else as a DOUBLE; None for anything else."""
    number = x.this if isinstance(x, exp.Neg) else x
    if not isinstance(number, exp.Literal) or number.is_string:
        return None
    sign = -1 if number is not x else 1
    text = number.this
    if "." in text or "e" in text.lower() or beyond_unsigned_bigint(number):
        return sign * float(decimal.Decimal(text))
    return sign * int(text)


def _value_in(x: exp.Expression, to: object) -> Fraction | float | None:
    """The value of item ``x`` once cast to the common type ``to``: a Fraction in a DECIMAL, a
    float in DOUBLE; None where not modelled or beyond the type (the query fails there)."""
    while isinstance(x, exp.Paren):
        x = x.this
    if isinstance(x, exp.Neg) and isinstance(x.this.unnest(), exp.Cast):
        v = _value_in(x.this.unnest(), to)  # (a DOUBLE's or FLOAT's negation is exact)
        return None if v is None else -v
    if isinstance(x, exp.Cast):
        v = _number_of(x.this)
        kind = _type_of(x, None)
        if kind == "float":  # the nearest FLOAT (one rounding: whole numbers within 2**53)
            v = nearest_float(v)
        elif kind in ("int64", "int32"):  # a DOUBLE toward zero
            v = math.trunc(v) if isinstance(v, int) or math.isfinite(v) else None
        elif kind == "double":
            v = float(v)
        elif isinstance(kind, tuple):  # DECIMAL(p, s): whole numbers exactly, DOUBLEs by Arrow
            p, s = kind[1:]
            units = v * 10**s if isinstance(v, int) else decimal_units(v, s)
            if units is None or abs(units) >= 10**p:
                return None
            v = Fraction(units, 10**s)
            if to == "double":
                return arrow_double(units, s)
    elif (x.this if isinstance(x, exp.Neg) else x).meta.get(EXACT):
        v = Fraction(decimal.Decimal(x.sql()))  # (written exactly: that value)
    else:
        v = _number_of(x)
    if v is None:
        return None
    if isinstance(to, tuple):
        p, s = to[1:]
        if isinstance(v, float):
            units = decimal_units(v, s)
            if units is None:
                return None
            v = Fraction(units, 10**s)
        v = Fraction(v)
        return v if abs(v) < 10 ** (p - s) else None
    if to == "float":  # (only whole numbers and FLOATs meet in FLOAT)
        return nearest_float(v)
    return float(v) if to == "double" else None


def _on_grid(holder: exp.In | exp.Between, values: list, scale: int) -> exp.Expression:
    """Items compared exactly with a column of ``scale`` places: a list keeps those on the
    column's grid, a BETWEEN's bounds move onto it (up for the low one, down for the high)."""
    unit = Fraction(1, 10**scale)
    if isinstance(holder, exp.Between):
        low, high = values
        low = math.ceil(low / unit) if low is not None else None
        high = math.floor(high / unit) if high is not None else None
        _set_items(holder, [exp.Null() if v is None else _number(Fraction(v) * unit, scale=scale)
                            for v in (low, high)])
        return holder
    kept = [exp.Null() if v is None else _number(v, scale=scale) for v in values
            if v is None or (v / unit).denominator == 1]
    holder.meta[EXACT] = True  # compared as DECIMALs there: no -0.0 among the items
    if kept:
        _set_items(holder, kept)
        return holder
    return _never(holder)


def _never(holder: exp.In | exp.Between) -> exp.Expression:
    """A list none of whose items its operand can equal, as the never-true ``x BETWEEN 1 AND
    0`` in its place (NULL where ``x`` is, as the list is), returned."""
    never = exp.Between(this=holder.this.copy(), low=_number(Fraction(1), scale=0),
                        high=_number(Fraction(0), scale=0))
    if isinstance(holder, exp.In) and merge_drops_null(holder):
        # still a list to the engine's optimizer, which may merge it (and fold the empty
        # merge to a constant, NULL rows and all)
        never.meta.update(holder.meta)
        never.meta[MAY_MERGE] = holder.meta.get(MAY_MERGE) or True
    holder.replace(never)
    return never


def _set_items(holder: exp.In | exp.Between, written: list) -> None:
    if isinstance(holder, exp.In):
        holder.set("expressions", written)
    else:
        holder.set("low", written[0])
        holder.set("high", written[1])


def _number(v: Fraction | float, *, scale: int = 0, double: bool = False) -> exp.Expression:
    """``v`` as a literal Spark reads exactly: a DOUBLE (``double``: ``1.5E0``) or a number
    of ``scale`` places, negated through ``Neg`` (so -0.0 keeps its sign); marked ``EXACT``
    so that later rewrites leave it as it is."""
    negative = v < 0 or (double and math.copysign(1.0, v) < 0)
    magnitude = abs(v)
    if double:
        text = repr(float(magnitude))
        text = text if "e" in text else f"{text}E0"
    else:  # (on the grid: a whole number of units)
        units = int(magnitude * 10**scale)
        text = str(units) if scale == 0 else \
            f"{decimal.Decimal(units).scaleb(-scale, decimal.Context(prec=80)):f}"
    lit = exp.Literal.number(text)
    lit.meta[EXACT] = True
    return exp.Neg(this=lit) if negative else lit
