"""Literals as the engine types them, written so that Spark's rules read the engine's rows
(``dialects.read_predicate`` runs these before the checks of ``portability``):

- ``read_engine_numbers``: DataFusion's numbers: a fraction is a DOUBLE, a whole number a
  BIGINT (from 2**63 an unsigned BIGINT, beyond 2**64 a DOUBLE), and a DOUBLE against a
  DECIMAL column the DECIMAL it is compared as;
- ``split_zero_items``: an IN list whose set may tell 0 from -0.0, read but for the zero's
  sign;
- ``drop_integer_casts``: ``CAST(d AS BIGINT)`` of a DECIMAL or integer column compared with
  whole numbers, as DataFusion's optimizer compares it (the column itself);
- ``read_timestamp_literals``: strings and TIMESTAMP literals against TIMESTAMP columns, cast
  as DataFusion casts them; ``read_date_strings``: day strings in a list against DATEs;
- ``fold_null_comparisons``: a comparison with NULL (an IN list of NULLs, a BETWEEN of
  NULLs), NULL in every engine;
- ``identity_arithmetic``: ``x * 1`` and ``x / 1`` as DataFusion's simplifier makes them;
- ``integer_divisions``: an integer column's ``/`` as Spark's ``div``;
- ``floats_against_integers``: an integer column (or a cast to BIGINT) against a FLOAT;
- ``arrow_decimal_doubles``: ``CAST(d AS DOUBLE)`` and ``CAST(d AS BIGINT)`` of a wide
  DECIMAL, as Arrow casts them.
"""

from __future__ import annotations

import datetime
import decimal
import math
from collections.abc import Mapping

from sqlglot import exp

from prunekit.expr.spark_types.arrow_casts import decimal_units, nearest_float
from prunekit.expr.spark_types.engines import engine
from prunekit.expr.syntax.engine_lists import (
    common_kind,
    decimals_among_doubles,
    doubles_against_decimals,
    list_in_one_type,
)
from prunekit.expr.syntax.engine_operands import (
    ARROW_BIGINT,
    ARROW_DOUBLE,
    COMPARISONS,
    EXACT,
    FLIPPED,
    FRACTION_DIGITS,
    INTEGER_BITS,
    INTEGER_KINDS,
    INTEGER_TYPES,
    WALL_TIME,
    beyond_unsigned_bigint,
    decimal_kind,
    in_arithmetic,
    inside_unknown_part,
    is_day,
    is_whole_number,
    is_zero,
    kind_of,
    negative_zero,
    never_negative_zero,
    no_negative_zero,
    number_value,
    partners_of,
    timestamp_unit,
    unknown_part,
)
from prunekit.expr.syntax.list_merges import (
    ALONE,
    MERGED_LIST,
    MERGES_EXACTLY,
    OWN_EQUALITY,
    merge_drops_null,
)
from prunekit.expr.syntax.optimizer_terms import column_names


def read_engine_numbers(tree: exp.Expression, dialect: str,
                        types: Mapping[str, object] | None = None) -> exp.Expression:
    """``tree`` with its numbers written as Spark must read them to mean what ``dialect``
    means, where the engine types them otherwise (``Engine.fractions_are_double``,
    ``whole_numbers_are_bigint``): an operand of ``+ - *`` that is a whole number is a BIGINT
    (``CAST(5 AS BIGINT)``); a fraction is a DOUBLE (``1.5E0``), except against a DECIMAL
    column, where it is the DECIMAL the engine compares with. DataFusion turns the DOUBLE into
    a DECIMAL of max(s, 15) places by Arrow's cast, rounding the DOUBLE times 10**places
    (itself a DOUBLE product) half away from zero, and compares the column with it exactly;
    written with those places, Spark compares exactly too, or, where the two would need more
    than 38 digits, written as the bound at the column's scale that keeps the same rows
    (``_double_against_decimal``). Numbers are changed in place; the tree is returned (another
    one where the whole predicate was rewritten).

    >>> import sqlglot
    >>> read_engine_numbers(sqlglot.parse_one("x > 1.5 AND p = 0.1"), "datafusion",
    ...                     {"x": "int64", "p": "decimal128(10, 2)"}).sql()
    'x > 1.5E0 AND p = 0.100000000000000'
    """
    reads = engine(dialect)
    if not reads.fractions_are_double and not reads.whole_numbers_are_bigint:
        return tree
    if reads.fractions_are_double:
        doubles_against_decimals(tree, types)
        for holder in list(tree.find_all(exp.In, exp.Between)):
            if reads.real_literals:
                reals_widened_in_doubles(holder, types)
            written = list_in_one_type(holder, types)
            if written is not None:
                tree = written if holder is tree else tree
                continue
            if decimals_among_doubles(holder, types):
                why = "its items compared with the column as DECIMALs there"
                if holder is tree:
                    return unknown_part(why, holder)
                holder.replace(unknown_part(why, holder))
        for between in list(tree.find_all(exp.Between)):
            if not inside_unknown_part(between) and not _one_type_between(between, types):
                part = unknown_part("its bounds compared in one type there", between)
                if between is tree:
                    return part
                between.replace(part)
        _doubles_against_decimals(tree, types)
    for lit in list(tree.find_all(exp.Literal)):
        text = lit.this
        if lit.is_string or inside_unknown_part(lit) or lit.meta.get(EXACT):
            continue
        if reads.real_literals and _real_against_decimals(lit, types):
            continue
        whole = not ("." in text or "e" in text.lower())
        if whole and not (reads.fractions_are_double and beyond_unsigned_bigint(lit)):
            if reads.whole_numbers_are_bigint and in_arithmetic(lit) and int(text) < 2**63:
                lit.replace(exp.Cast(this=lit.copy(), to=exp.DataType.build("BIGINT")))
            continue
        if not reads.fractions_are_double:
            continue
        value = decimal.Decimal(text)
        target = decimal_target(lit)
        if target is not None:  # CAST(1.005 AS DECIMAL(10, 2)): the DOUBLE cast by Arrow
            units = decimal_units(float(value), target[1])
            if units is not None and abs(units) < 10 ** target[0]:
                lit.replace(exp.Literal.number(_decimal_text(units, target[1])))
            continue
        kinds = [decimal_kind(col, types) for col in partners_of(lit)]
        if kinds and all(kinds):
            written = _double_against_decimal(lit, float(value), {
                (int(k[1]), int(k[2])) for k in kinds})
            if written is not None:
                if written.parent is None:  # the whole predicate was the comparison
                    tree = written
                continue
        double = str(value)  # 0.0000000001 is 1E-10: an exponent either way
        lit.replace(exp.Literal.number(double if "E" in double else f"{double}E0"))
    return tree


def reals_widened_in_doubles(holder: exp.In | exp.Between,
                             types: Mapping[str, object] | None) -> None:
    """In an IN list or a BETWEEN that DataFusion compares in DOUBLE (``common_kind``: a
    DOUBLE among its items or bounds, or its operand), each ``CAST(n AS REAL)`` of a number is
    the DOUBLE its FLOAT widens to, exactly; so it is written, in place, as Spark compares a
    DOUBLE literal with any operand there (a BIGINT's cast to DOUBLE too), where it would
    compare a FLOAT with an integer in FLOAT. A number no FLOAT holds (an infinity there) and a
    whole number beyond unsigned BIGINT (a DOUBLE first, rounded twice) are left as they are.

    >>> import sqlglot
    >>> tree = sqlglot.parse_one("CAST(d AS BIGINT) BETWEEN CAST(0.0001 AS REAL) AND 0.5",
    ...                          read="postgres")
    >>> reals_widened_in_doubles(tree, {"d": "decimal128(18, 4)"})
    >>> tree.sql()
    'CAST(d AS BIGINT) BETWEEN 9.999999747378752E-05 AND 0.5'
    """
    if inside_unknown_part(holder) or common_kind(holder, types) != "double":
        return
    for cast in list(holder.iter_expressions()):
        cast = cast.unnest()
        if cast is holder.this.unnest() or not isinstance(cast, exp.Cast) or \
                cast.to.this != exp.DataType.Type.FLOAT:
            continue
        number, negated = cast.this.unnest(), False
        while isinstance(number, exp.Neg):
            number, negated = number.this.unnest(), not negated
        if not isinstance(number, exp.Literal) or number.is_string:
            continue
        whole = not ("." in number.this or "e" in number.this.lower())
        if whole and int(number.this) >= 2**64:
            continue
        magnitude = nearest_float(int(number.this) if whole else float(
            decimal.Decimal(number.this)))
        if magnitude is None or not math.isfinite(magnitude):
            continue
        text = repr(magnitude).upper()  # (the shortest text Spark reads as that DOUBLE)
        written = exp.Literal.number(text if "E" in text else f"{text}E0")
        cast.replace(exp.Neg(this=written) if negated else written)


def _real_against_decimals(lit: exp.Literal, types: Mapping[str, object] | None) -> bool:
    """Where ``lit`` is the number of ``CAST(n AS REAL)`` compared with DECIMAL columns of one
    type only (``Engine.real_literals``): the cast is written as the DECIMAL DataFusion
    compares with, a DECIMAL(14, 7) of the FLOAT widened (``_double_against_decimal``), and
    True; False where it is not such a cast, or cannot be written so (kept: unknown), or
    where a DOUBLE in its IN list or BETWEEN makes the places 15 (kept too).

    >>> import sqlglot
    >>> tree = sqlglot.parse_one("d <= CAST(0.1235 AS REAL)", read="postgres")
    >>> _real_against_decimals(tree.find(exp.Literal), {"d": "decimal128(18, 4)"}), tree.sql()
    (True, 'd <= 0.1235000')
    """
    cast, negated = lit.parent, False
    while isinstance(cast, (exp.Neg, exp.Paren)):
        negated ^= isinstance(cast, exp.Neg)
        cast = cast.parent
    if not isinstance(cast, exp.Cast) or cast.to.this != exp.DataType.Type.FLOAT:
        return False
    kinds = [decimal_kind(c, types) for c in partners_of(cast)]
    whole = not ("." in lit.this or "e" in lit.this.lower())
    if not kinds or not all(kinds) or (whole and int(lit.this) > 2**53):
        return False  # (beyond 2**53 a whole number would round twice here)
    holder = cast.parent
    while isinstance(holder, exp.Paren):
        holder = holder.parent
    if isinstance(holder, (exp.In, exp.Between)) and _a_double_among(
            [x for x in holder.iter_expressions() if x is not holder.this and not (
                isinstance(x, exp.Cast) and x.to.this == exp.DataType.Type.FLOAT)]):
        return False  # a DOUBLE beside it: all compared at 15 places there
    magnitude = nearest_float(float(decimal.Decimal(lit.this)))
    if not math.isfinite(magnitude):
        return False
    number = exp.Literal.number(repr(magnitude))
    written = exp.Neg(this=number) if negated else number
    cast.replace(written)
    if _double_against_decimal(number, magnitude, {(int(k[1]), int(k[2])) for k in kinds},
                               digits=7) is None:
        written.replace(cast)
        return False
    return True


_FLOAT_INTEGERS = {"int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64"}


def floats_against_integers(tree: exp.Expression, dialect: str,
                            types: Mapping[str, object] | None) -> None:
    """Where ``Engine.real_literals``: an integer column compared alone with ``CAST(n AS
    REAL)`` is written ``CAST(c AS FLOAT)``, as DataFusion compares it (in FLOAT, the column
    rounded to the nearest FLOAT); Spark casts it so too, outside ANSI mode only. A cast to
    BIGINT against a FLOAT below 2**24 (where every integer is a FLOAT, and rounding keeps
    larger ones beyond it) compares as against that value exactly: written as its DOUBLE,
    which Spark compares exactly too. In place.

    >>> import sqlglot
    >>> tree = sqlglot.parse_one("i = CAST(16777217 AS REAL) OR CAST(d AS BIGINT) < "
    ...                          "CAST(-2.5 AS REAL)", read="postgres")
    >>> floats_against_integers(tree, "datafusion", {"i": "int64", "d": "decimal128(9, 2)"})
    >>> tree.sql()
    'CAST(i AS FLOAT) = CAST(16777217 AS FLOAT) OR CAST(d AS BIGINT) < -2.5E0'
    """
    if not engine(dialect).real_literals:
        return
    _whole_numbers_as_floats(tree, types)
    for cmp in list(tree.find_all(*COMPARISONS, exp.NullSafeEQ, exp.NullSafeNEQ)):
        sides = [cmp.this, cmp.expression]
        for side, other in (sides, sides[::-1]):
            number = other.this.this if isinstance(other, exp.Cast) and isinstance(
                other.this, exp.Neg) else getattr(other, "this", None)
            if not (isinstance(other, exp.Cast) and other.to.this == exp.DataType.Type.FLOAT
                    and isinstance(number, exp.Literal) and not number.is_string and
                    not inside_unknown_part(cmp)):
                continue
            if isinstance(side, exp.Column) and kind_of(side, types) in _FLOAT_INTEGERS:
                side.replace(exp.Cast(this=side.copy(), to=exp.DataType.build("FLOAT")))
            elif isinstance(side, exp.Cast) and isinstance(side.this, exp.Column) and kind_of(
                    side, types) == "int64":
                value = nearest_float(float(number.this))
                if abs(value) < 2**24:  # (a sign of zero is no matter against integers)
                    shown = repr(value)  # a DOUBLE in Spark: with an exponent
                    text = exp.Literal.number(shown if "e" in shown else f"{shown}E0")
                    other.replace(exp.Neg(this=text) if isinstance(other.this, exp.Neg)
                                  else text)


def _whole_numbers_as_floats(tree: exp.Expression, types: Mapping[str, object] | None) -> None:
    """A FLOAT (``_a_float``) against whole numbers beyond 2**24 (and within unsigned
    BIGINT), alone (``=``, ``<`` and the like, IS [NOT] DISTINCT FROM) or with only whole
    numbers and NULL in its IN list or BETWEEN: DataFusion casts each to FLOAT, as Spark's
    ``CAST(n AS FLOAT)`` does (the nearest, ties to even, rounded once: 9007199791611905 is
    9007200328482816), and compares in FLOAT. Written so, in place; Spark's own readings of
    the bare number part in its two modes.

    >>> import sqlglot
    >>> tree = sqlglot.parse_one("f >= 16777217 OR f IN (5, 33554435)")
    >>> _whole_numbers_as_floats(tree, {"f": "float"})
    >>> tree.sql()
    'f >= CAST(16777217 AS FLOAT) OR f IN (5, CAST(33554435 AS FLOAT))'
    """
    for holder in list(tree.find_all(*COMPARISONS, exp.NullSafeEQ, exp.NullSafeNEQ, exp.In,
                                     exp.Between)):
        if isinstance(holder, exp.In):
            column, items = holder.this, list(holder.expressions)
        elif isinstance(holder, exp.Between):
            column, items = holder.this, [holder.args.get("low"), holder.args.get("high")]
        else:
            column, items = holder.this, [holder.expression]
            if not _a_float(column, types):
                column, items = holder.expression, [holder.this]
        if not _a_float(column, types) or inside_unknown_part(holder) or not all(
                    isinstance(i, exp.Null) or is_whole_number(i) or _unsigned_bigint(i)
                    for i in items):
            continue
        for item in items:
            number = item.this if isinstance(item, exp.Neg) else item
            if isinstance(number, exp.Literal) and 2**24 < int(number.this) < 2**64:
                item.replace(exp.Cast(this=item.copy(), to=exp.DataType.build("FLOAT")))


def _unsigned_bigint(x: exp.Expression) -> bool:
    """A whole number literal beyond BIGINT and within unsigned BIGINT (a UInt64 there)."""
    return isinstance(x, exp.Literal) and not x.is_string and x.this.isdigit() and (
        2**63 <= int(x.this) < 2**64)


def _a_float(x: exp.Expression, types: Mapping[str, object] | None) -> bool:
    """Whether ``x`` is a FLOAT in DataFusion: a FLOAT column, a cast of a column to REAL, or
    the negation of either."""
    while isinstance(x, (exp.Neg, exp.Paren)):
        x = x.this
    if isinstance(x, exp.Cast):
        return x.to.this == exp.DataType.Type.FLOAT and isinstance(x.this, exp.Column)
    return isinstance(x, exp.Column) and kind_of(x, types) == "float"


def _a_double_among(items: list) -> bool:
    """Whether a number among ``items`` is a DOUBLE there (a fraction, an exponent, a cast)."""
    for item in items:
        while isinstance(item, (exp.Neg, exp.Paren)):
            item = item.this
        if isinstance(item, exp.Cast) or (isinstance(item, exp.Literal) and not item.is_string
                                          and ("." in item.this or "e" in item.this.lower())):
            return True
    return False


def split_zero_items(tree: exp.Expression, dialect: str,
                      types: Mapping[str, object] | None) -> exp.Expression:
    """Where the engine's IN list of two or more numbers may tell 0 from -0.0 (not
    ``Engine.zeros_in_lists``: DataFusion's set compares their bits), ``x IN (0, a, b)`` is
    ``x IN (a, b) OR (x = 0 AND <unknown>)``: Spark's reading but for a zero, where the sign
    decides. Not for an integer column among whole numbers (no -0.0 on either side).

    >>> import sqlglot
    >>> split = split_zero_items(sqlglot.parse_one("f IN (0.0, 1.5)"), "datafusion",
    ...                           {"f": "double"})
    >>> split.this.sql(), split.expression.this.this.sql()
    ('f IN (1.5)', 'f = 0')
    """
    if engine(dialect).zeros_in_lists:
        return tree
    for x in list(tree.find_all(exp.In)):
        matching = _items_matching(x, types)
        if matching is not None:
            x.set("expressions", matching)
        if len(x.expressions) >= 2 and not inside_unknown_part(x) and _zero_of_a_column(
                x, types):
            # (x IN (...) AND NOT x = 0) OR (x = 0 AND <unknown>)
            at_zero = exp.EQ(this=x.this.copy(), expression=exp.Literal.number(0))
            at_zero.meta[OWN_EQUALITY] = True
            why = "a set of numbers may tell 0 from -0.0 (a column among its items)"
            split = exp.or_(exp.and_(x.copy(), exp.not_(at_zero.copy())),
                            exp.and_(at_zero, unknown_part(why, x)))
            if x is tree:
                return split
            x.replace(exp.Paren(this=split))
            continue
        if len(x.expressions) < 2 or x.meta.get(EXACT) or no_negative_zero(x, types) or not any(
                is_zero(item) for item in x.expressions) or _equalities_there(x, types):
            continue
        others = [item.copy() for item in x.expressions if not is_zero(item)]
        # Where the list may be merged with another, its rows are not its own, NULL or not.
        why = "a set of numbers may tell 0 from -0.0" + (
            f" {MERGED_LIST}" if not engine(dialect).null_in_lists and merge_drops_null(x) else "")
        if (not _a_double_operand(x.this, types) and any(
                isinstance(i.unnest(), exp.Cast) and i.unnest().to.this ==
                exp.DataType.Type.FLOAT for i in x.expressions)) or (
                others and _a_double_among(x.expressions) and not _a_double_among(others) and
                not _as_doubles(others)):
            # a FLOAT item (the list compares in FLOAT there), or without its DOUBLE zero
            # the list would compare in another type: all unknown
            part = unknown_part(why, x)
            if x is tree:
                return part
            x.replace(part)
            continue
        at_zero = exp.EQ(this=x.this.copy(), expression=exp.Literal.number(0))
        at_zero.meta[OWN_EQUALITY] = True  # no equality of the engine's (merge_drops_null)
        zero = exp.and_(at_zero, unknown_part(why, x))
        rest = exp.In(this=x.this.copy(), expressions=others)
        rest.meta.update(x.meta)  # what mark_exact_merges found holds for what is left
        split = exp.or_(rest, zero) if others else zero
        if x is tree:
            return split
        x.replace(exp.Paren(this=split))
    return tree


def _items_matching(x: exp.In, types: Mapping[str, object] | None) -> list | None:
    """The items of ``x`` but its -0.0s where DataFusion keeps ``x`` a set of DOUBLEs (or
    FLOATs) that no value of its operand matches a -0.0 of (the set compares bits, and its
    operand, ``never_negative_zero``, is 0.0 where it is a zero), whole numbers written as
    the DOUBLEs they are there; None elsewhere. It stays a set where nothing on its columns
    may merge with it (no other list or equality) and its simplifier cannot write it as
    equalities, which take 0 and -0.0 for one: only lists of three items or fewer on a column
    as it is, which its common-expression pass may make of an operand named elsewhere.

    >>> import sqlglot
    >>> from prunekit.expr.syntax.list_merges import mark_exact_merges
    >>> types = {"x": "int64", "y": "int64"}
    >>> tree = sqlglot.parse_one("x IN (-0.0, 5) AND y IN (-0.0, 5) AND y > 1")
    >>> mark_exact_merges(tree, types)
    >>> [_items_matching(x, types) for x in tree.find_all(exp.In)]
    [[Literal(this=5E0, is_string=False)], None]
    """
    if not (x.meta.get(ALONE) and never_negative_zero(x.this, types) and common_kind(
            x, types) in ("double", "float")):
        return None
    items = [i.copy() for i in x.expressions if not negative_zero(i)]
    if len(items) == len(x.expressions) or not items or not (
            _a_double_among(items) or _as_doubles(items)):
        return None  # (without a DOUBLE the list would compare in another type)
    names = column_names(x.this)
    named_here = sum(1 for _ in x.this.find_all(exp.Column))
    if len(x.expressions) <= 3 and sum(
            c.name.lower() in names for c in x.root().find_all(exp.Column)) > named_here:
        return None
    return items


def _equalities_there(x: exp.In, types: Mapping[str, object] | None) -> bool:
    """Whether DataFusion writes the list as equalities (``=`` ORed, ``<>`` ANDed for NOT IN),
    which take 0 and -0.0 for one: its simplifier does so for a list of three items or fewer
    on a column as it is (a DOUBLE column: items of other types are cast to it), once its
    merges are made, so only one no merge of which changes its rows (``MERGES_EXACTLY``: a
    zero against a float has none)."""
    operand = x.this.unnest()
    return len(x.expressions) <= 3 and isinstance(operand, exp.Column) and kind_of(
        operand, types) == "double" and bool(x.meta.get(MERGES_EXACTLY))


def _zero_of_a_column(x: exp.In, types: Mapping[str, object] | None) -> bool:
    """Whether DataFusion's list ``x`` may compare a zero of one sign with a column's zero of
    the other by bits: an item reads a column (a float's zero has either sign; an integer's
    is 0 beside an operand's -0.0), and the operand is no bare DOUBLE column (a FLOAT or
    integer cast to DOUBLE there, and any cast, tells the signs apart beside a column item:
    ``r IN (g, 2.0)`` on a FLOAT ``r`` of 0.0 and a DOUBLE ``g`` of -0.0 is FALSE)."""
    operand = x.this.unnest()
    if isinstance(operand, exp.Column) and kind_of(operand, types) == "double":
        return False
    return any(item.find(exp.Column) is not None for item in x.expressions)


def _a_double_operand(x: exp.Expression, types: Mapping[str, object] | None) -> bool:
    """Whether ``x`` is a DOUBLE column or a cast to DOUBLE of a column, maybe negated: a
    list on it compares in DOUBLE whatever its items, a FLOAT among them widened exactly
    (a zero keeping its sign)."""
    x = x.unnest()
    while isinstance(x, exp.Neg):
        x = x.this.unnest()
    return isinstance(x, (exp.Column, exp.Cast)) and (
        isinstance(x, exp.Column) or isinstance(x.this.unnest(), exp.Column)) and kind_of(
        x, types) == "double"


def _as_doubles(items: list) -> bool:
    """Whole numbers (maybe negated) and NULLs written as the DOUBLEs a DOUBLE among them makes
    them, with an exponent, in place (``items`` is a list of the copies to write); False (and
    left alone) where there is anything else.

    >>> import sqlglot
    >>> items = [sqlglot.parse_one("91"), sqlglot.parse_one("-5"), sqlglot.parse_one("NULL")]
    >>> _as_doubles(items), [i.sql() for i in items]
    (True, ['91E0', '-5E0', 'NULL'])
    """
    def bare(item: exp.Expression) -> exp.Expression:
        return item.this if isinstance(item, exp.Neg) else item

    if not all(isinstance(i, exp.Null) or (isinstance(bare(i), exp.Literal) and not bare(
            i).is_string and bare(i).this.isdigit()) for i in items):
        return False
    for k, item in enumerate(items):
        if not isinstance(item, exp.Null):
            double = exp.Literal.number(f"{bare(item).this}E0")
            items[k] = exp.Neg(this=double) if isinstance(item, exp.Neg) else double
    return True


def drop_integer_casts(tree: exp.Expression, dialect: str,
                                    types: Mapping[str, object] | None) -> None:
    """Where ``Engine.truncating_casts`` (DataFusion 55): ``CAST(d AS BIGINT)`` (or INT, ...)
    of a DECIMAL column compared with whole numbers (and NULL) only (``=``, ``<>``, ``<``, ``IN``,
    ``BETWEEN``, ``IS DISTINCT FROM``, ...) is compared as ``d`` itself there: its optimizer
    drops the cast and compares the DECIMAL exactly (``CAST(0.1161 AS BIGINT) = 0`` is FALSE
    in a WHERE clause), a number cast to an integer type being a whole number there too
    (``CAST(d AS BIGINT) <> CAST(0.0531 AS BIGINT)`` is ``d <> 0``), and a whole DECIMAL
    (``CAST(0.0000 AS DECIMAL(38,10))``). Written so, in place;
    against DOUBLEs the cast stays, truncating in both. So is such a cast of an integer
    column, signed or not, and in a comparison of its own against any number: its own value,
    or a failed query where the type does not hold it (no rows to keep; Spark's legacy mode
    would wrap an unsigned BIGINT's high values instead), a number cast to FLOAT or DOUBLE
    too. (In a list, the cast may change the list's type there.)

    >>> import sqlglot
    >>> tree = sqlglot.parse_one("CAST(d AS BIGINT) IN (0, 2)", read="postgres")
    >>> drop_integer_casts(tree, "datafusion", {"d": "decimal128(18, 4)"})
    >>> tree.sql()
    'd IN (0, 2)'
    """
    if not engine(dialect).truncating_casts:
        return
    for cast in list(tree.find_all(exp.Cast)):
        if isinstance(cast, exp.TryCast):  # (NULL where the type cannot hold the value)
            continue
        if not (cast.to.this in INTEGER_TYPES and isinstance(cast.this, exp.Column) and (
                decimal_kind(cast.this, types) or kind_of(cast.this, types) in INTEGER_KINDS)):
            continue
        others = _compared_with(cast)
        if others is None or cast.parent.meta.get(EXACT):
            continue  # (a list ``list_in_one_type`` wrote as the engine compares it: its
            # items were not all whole numbers there, so the cast stays)
        integer = kind_of(cast.this, types) in INTEGER_KINDS
        places = decimal_kind(cast.this, types)
        if places and isinstance(cast.parent, exp.In) and not all(_fits_both(
                o, int(places[1]) - int(places[2]), INTEGER_BITS[cast.to.this])
                for o in others):
            continue  # (it drops a list's cast only where both types hold every item)
        if others and (all(is_whole_number(o) or _integer_cast_of_number(o) or
                           _whole_decimal_cast(o) or isinstance(o.unnest(), exp.Null)
                           for o in others) or (
                integer and len(others) == 1 and (_number_literal(others[0]) or
                                                  _float_cast_of_number(others[0])))):
            cast.replace(cast.this.copy())


def _fits_both(x: exp.Expression, digits: int, bits: int) -> bool:
    """Whether item ``x`` (a number, maybe cast, or NULL), once truncated, has fewer than
    ``digits`` digits before the point and is a signed integer of ``bits``: a DECIMAL of that
    many digits and the cast's integer type both hold it. DataFusion drops the cast of
    ``CAST(d AS INT) IN (...)`` only where both hold every item; else it compares the
    truncated value with each (``IN (3, 100000)`` on a DECIMAL(5, 1), or ``CAST(d AS INT) IN
    (3, 2147483648)``, is not TRUE for 3.5 there)."""
    x = x.unnest()
    if isinstance(x, exp.Null):
        return True
    value = number_value(x.this if isinstance(x, exp.Cast) else x)
    if value is None or not value.is_finite():
        return False
    whole = int(value)
    return abs(whole) < 10**digits and -(2 ** (bits - 1)) <= whole < 2 ** (bits - 1)


def _float_cast_of_number(x: exp.Expression) -> bool:
    """``CAST(1.5 AS REAL)`` or ``CAST(-2 AS DOUBLE)``: an integer column's ``CAST(c AS
    BIGINT)`` meets it as ``CAST(CAST(c AS BIGINT) AS REAL)`` there, ``c``'s own value
    rounded to FLOAT (or DOUBLE) as ``c`` alone meets it, where the query does not fail."""
    return isinstance(x, exp.Cast) and x.to.this in (
        exp.DataType.Type.FLOAT, exp.DataType.Type.DOUBLE) and _number_literal(x.this)


_SIGNED_INTEGERS = {"int8", "int16", "int32", "int64"}


def _integer_cast_of_number(x: exp.Expression) -> bool:
    """``CAST(0.0531 AS BIGINT)``: a whole number once DataFusion folds it (the cast of a
    DOUBLE toward zero), before its optimizer drops a cast on the other side."""
    return isinstance(x, exp.Cast) and x.to.this in INTEGER_TYPES and _number_literal(x.this)


def _whole_decimal_cast(x: exp.Expression) -> bool:
    """``CAST(0.0000 AS DECIMAL(38,10))``: a DECIMAL of a whole value within BIGINT, which
    DataFusion's optimizer moves onto the other side's BIGINT as it would a whole number
    (the cast of the DECIMAL column dropped, found by its differential, seed 30113049)."""
    value = number_value(x.this) if isinstance(x, exp.Cast) and (
        x.to.this == exp.DataType.Type.DECIMAL) else None
    return value is not None and value.is_finite() and value == value.to_integral_value() \
        and abs(value) < 2**63


def _number_literal(x: exp.Expression) -> bool:
    """A number literal, maybe negated."""
    x = x.this if isinstance(x, exp.Neg) else x
    return isinstance(x, exp.Literal) and not x.is_string


def arrow_decimal_doubles(tree: exp.Expression, dialect: str,
                          types: Mapping[str, object] | None) -> None:
    """Where ``Engine.decimal_doubles_by_arrow`` (DataFusion): ``CAST(d AS DOUBLE)`` of a
    DECIMAL column of more than 15 digits is written as the call ``__prunekit_arrow_double(d)``,
    which binds to Arrow's two roundings (``rounding.arrow_to_double``); with fewer digits the
    unscaled integer is below 2**53 and the cast is Spark's nearest DOUBLE. ``CAST(d AS
    BIGINT)`` of one of more than 15 integer digits compared with DOUBLEs only, or with
    DECIMALs beside whole numbers (against whole numbers and whole DECIMALs alone DataFusion
    drops the cast) as ``__prunekit_arrow_bigint(d)``:
    truncated toward zero, the query failing beyond BIGINT (``rounding.arrow_to_bigint``),
    where Spark's legacy mode would wrap. Run after the other rewrites, which read such a cast
    as a DOUBLE (BIGINT) operand. Changed in place.

    >>> import sqlglot
    >>> tree = sqlglot.parse_one("CAST(d AS DOUBLE) > 0.5 OR CAST(d AS BIGINT) < 0.5E0")
    >>> arrow_decimal_doubles(tree, "datafusion", {"d": "decimal128(38, 10)"})
    >>> tree.sql()
    '__PRUNEKIT_ARROW_DOUBLE(d) > 0.5 OR __PRUNEKIT_ARROW_BIGINT(d) < 0.5E0'
    """
    if not engine(dialect).decimal_doubles_by_arrow:
        return
    for cast in list(tree.find_all(exp.Cast)):
        kind = decimal_kind(cast.this, types) if isinstance(cast.this, exp.Column) else None
        if not kind or inside_unknown_part(cast) or isinstance(cast, exp.TryCast):
            continue
        if cast.to.this == exp.DataType.Type.DOUBLE and int(kind[1]) > 15:
            cast.replace(exp.Anonymous(this=ARROW_DOUBLE, expressions=[cast.this.copy()]))
        elif cast.to.this == exp.DataType.Type.BIGINT and int(kind[1]) - int(kind[2]) > 15 and \
                _against_doubles_only(cast):
            cast.replace(exp.Anonymous(this=ARROW_BIGINT, expressions=[cast.this.copy()]))


def _against_doubles_only(x: exp.Expression) -> bool:
    """Whether ``x`` is compared (alone, in an IN list or a BETWEEN) with DOUBLE numbers and
    NULL only, or with DECIMALs beside whole numbers and NULL only: there DataFusion keeps a
    cast to BIGINT (against whole numbers and whole DECIMALs alone its optimizer drops the
    cast and compares the column itself: ``drop_integer_casts``), and compares in DOUBLE, or
    exactly in a DECIMAL, as Spark does."""
    others = _compared_with(x)
    return others is not None and (all(_double_number(o) for o in others) or all(
        isinstance(o.unnest(), exp.Null) or is_whole_number(o) or _unsigned_only(o) or
        decimal_target(o.unnest().find(exp.Literal) or exp.Null()) is not None for o in others))


def _compared_with(x: exp.Expression) -> list | None:
    """What ``x`` is compared with: the other side of its comparison, or, as the operand of
    an IN list or a BETWEEN, its items or bounds; None where ``x`` is no such operand."""
    holder = x.parent
    if isinstance(holder, exp.In) and x.arg_key == "this":
        return list(holder.expressions)
    if isinstance(holder, exp.Between) and x.arg_key == "this":
        return [holder.args.get("low"), holder.args.get("high")]
    if isinstance(holder, (*COMPARISONS, exp.NullSafeEQ, exp.NullSafeNEQ)):
        return [holder.expression if x.arg_key == "this" else holder.this]
    return None


def _unsigned_only(x: exp.Expression) -> bool:
    """A whole number literal from 2**63 to 2**64 - 1: an unsigned BIGINT in DataFusion, which
    meets a BIGINT in DECIMAL(20, 0), exactly (as Spark's DECIMAL of it)."""
    return isinstance(x, exp.Literal) and not x.is_string and x.this.isdigit() and (
        2**63 <= int(x.this) < 2**64)


def _double_number(x: exp.Expression) -> bool:
    """NULL, or a number DataFusion reads as a DOUBLE: with an exponent (as
    ``read_engine_numbers`` writes fractions) or cast to DOUBLE."""
    while isinstance(x, (exp.Neg, exp.Paren)):
        x = x.this
    if isinstance(x, exp.Null):
        return True
    if isinstance(x, exp.Cast) and x.to.this == exp.DataType.Type.DOUBLE:
        x = x.this.this if isinstance(x.this, exp.Neg) else x.this
        return isinstance(x, exp.Literal) and not x.is_string
    return isinstance(x, exp.Literal) and not x.is_string and "e" in x.this.lower()


def integer_divisions(tree: exp.Expression, dialect: str,
                      types: Mapping[str, object] | None) -> exp.Expression:
    """Where ``Engine.integers_divide_truncating`` (DataFusion): ``x / k`` of a signed integer
    column and a positive whole number is written as Spark's ``x DIV k`` (truncated toward
    zero in both), in place; the tree is returned (another one where it was the root).

    >>> import sqlglot
    >>> integer_divisions(sqlglot.parse_one("x / 2 > 3"), "datafusion", {"x": "int32"}).sql("spark")
    'x DIV 2 > 3'
    """
    if not engine(dialect).integers_divide_truncating:
        return tree
    for div in list(tree.find_all(exp.Div)):
        if isinstance(div.this, exp.Column) and kind_of(div.this, types) in _SIGNED_INTEGERS \
                and isinstance(div.expression, exp.Literal) and is_whole_number(
                    div.expression, nonzero=True):
            quotient = exp.IntDiv(this=div.this.copy(), expression=div.expression.copy())
            if div is tree:
                return quotient
            div.replace(quotient)
    return tree


def identity_arithmetic(tree: exp.Expression, dialect: str,
                        types: Mapping[str, object] | None) -> exp.Expression:
    """Where ``Engine.identity_arithmetic`` (DataFusion's simplifier): ``x * 1``, ``1 * x``
    and ``x / 1`` of an integer column below BIGINT as ``CAST(x AS BIGINT)``, the type its
    arithmetic gives, and of a BIGINT, FLOAT or DOUBLE column as ``x`` (its own type there):
    the value itself; of an unsigned BIGINT column as ``x`` where compared with whole
    numbers only, or with DOUBLEs beside them, each written as the DECIMAL of 15 places it
    meets the column as (``_doubles_as_decimals``). ``CAST(n AS BIGINT)`` of a number is
    the whole number it folds to. Run
    first, so that the other rewrites see the column. The tree is returned (another one where
    it was the root).

    >>> import sqlglot
    >>> tree = sqlglot.parse_one("1 * u > 3 AND f / 1 < 2")
    >>> identity_arithmetic(tree, "datafusion", {"u": "uint8", "f": "float"}).sql()
    'CAST(u AS BIGINT) > 3 AND f < 2'
    """
    if not engine(dialect).identity_arithmetic:
        return tree
    tree = _fold_bigint_casts(tree)
    tree = _unsigned_beyond_64_bits(tree, types)
    for op in list(tree.find_all(exp.Mul, exp.Div)):
        for x in _identity_operands(op):
            kind = kind_of(x, types)
            if kind in ("int8", "int16", "int32", "uint8", "uint16", "uint32"):
                same = exp.Cast(this=x.copy(), to=exp.DataType.build("BIGINT"))
            elif kind in ("float", "double", "int64") or (
                    kind == "uint64" and _compared_with_whole_numbers(op)):
                same = x.copy()
            elif kind == "uint64" and (decimals := _doubles_as_decimals(op)):
                for item, written in decimals:
                    item.replace(written)
                same = x.copy()
            else:
                continue
            while isinstance(op.parent, exp.Paren):  # (a column or a cast: none needed)
                op = op.parent
            if op is tree:
                return same
            op.replace(same)
            break
    return tree


def _identity_operands(op: exp.Expression) -> list:
    """The column ``c`` of ``c * 1``, ``1 * c`` or ``c / 1`` (none for other arithmetic)."""
    sides = [(op.this, op.expression), (op.expression, op.this)]
    return [x for x, one in sides if _is_one(one) and isinstance(x, exp.Column) and not (
        isinstance(op, exp.Div) and x is not op.this)]


# The least unsigned BIGINT beyond every value of one: ``u * 1 > _UNSIGNED_TOP`` is FALSE
# (NULL on a NULL) and ``u * 1 <= _UNSIGNED_TOP`` TRUE.
_UNSIGNED_TOP = str(2**64 - 1)


def _unsigned_beyond_64_bits(tree: exp.Expression,
                             types: Mapping[str, object] | None) -> exp.Expression:
    """An unsigned BIGINT's ``u * 1`` (or ``u / 1``) compared with whole numbers of which
    some lie beyond 64 bits (up to 38 digits), as the same comparisons with whole numbers
    within them, which ``identity_arithmetic`` then reads. DataFusion's simplifier compares
    ``u * 1`` as ``CAST(u AS DECIMAL(20, 0))`` with the DOUBLE such a number is, exactly; a
    DOUBLE beyond 64 bits rounds to one beyond them too, so it lies above every ``u`` (or, a
    negative one, below): never equal, always greater. So the number leaves an IN list;
    ``u * 1 < 2**64`` is ``u * 1 <= 18446744073709551615`` (TRUE, NULL on a NULL) and
    ``u * 1 >= 2**64`` is ``u * 1 > 18446744073709551615`` (FALSE, NULL on a NULL); IS
    DISTINCT FROM it is TRUE. A BETWEEN is its two comparisons. The tree is returned.

    >>> import sqlglot
    >>> tree = sqlglot.parse_one("u * 1 IN (18446744073709551616, 7) AND u / 1 >= 2e0")
    >>> _unsigned_beyond_64_bits(tree, {"u": "uint64"}).sql()
    'u * 1 IN (7) AND u / 1 >= 2e0'
    >>> tree = sqlglot.parse_one("(u / 1) BETWEEN 36893488147419103232 AND 7")
    >>> _unsigned_beyond_64_bits(tree, {"u": "uint64"}).sql()
    '((u / 1) > 18446744073709551615 AND (u / 1) <= 7)'
    """
    for op in list(tree.find_all(exp.Mul, exp.Div)):
        if not any(kind_of(x, types) == "uint64" for x in _identity_operands(op)):
            continue
        top = op
        while isinstance(top.parent, exp.Paren):
            top = top.parent
        others = [o.unnest() for o in _compared_with(top) or []]
        if not any(_whole_beyond_64_bits(o) for o in others) or not all(
                isinstance(o, exp.Null) or _whole_within_64_bits(o) or _whole_beyond_64_bits(o)
                for o in others):
            continue
        holder = top.parent
        if isinstance(holder, exp.Between):
            low, high = holder.args["low"], holder.args["high"]
            new = exp.paren(exp.and_(_beyond_apart(exp.GTE(this=top.copy(), expression=low)),
                                     _beyond_apart(exp.LTE(this=top.copy(), expression=high))))
        elif isinstance(holder, exp.In):
            kept = [i for i in holder.expressions if not _whole_beyond_64_bits(i.unnest())]
            if any(not isinstance(i.unnest(), exp.Null) for i in kept):
                new = exp.In(this=top.copy(), expressions=kept)
            elif kept:  # NULLs alone: NULL, whatever u is
                new = exp.In(this=top.copy(), expressions=[exp.null()])
            else:
                new = exp.GT(this=top.copy(), expression=exp.Literal.number(_UNSIGNED_TOP))
        else:
            new = _beyond_apart(holder.copy() if top.arg_key == "this" else _flipped(holder))
        if holder is tree:
            return new
        holder.replace(new)
    return tree


def _beyond_apart(comparison: exp.Expression) -> exp.Expression:
    """``e op n`` (``e`` an unsigned BIGINT) with ``n`` beyond 64 bits as the same comparison
    with a number within them; any other comparison as it is."""
    if not _whole_beyond_64_bits(comparison.expression.unnest()):
        return comparison
    e = comparison.this
    if isinstance(comparison, exp.NullSafeEQ):
        return exp.false()
    if isinstance(comparison, exp.NullSafeNEQ):
        return exp.true()
    above = not isinstance(comparison.expression.unnest(), exp.Neg)  # n above every value
    holds = isinstance(comparison, exp.NEQ) or (
        isinstance(comparison, (exp.LT, exp.LTE)) if above else
        isinstance(comparison, (exp.GT, exp.GTE)))
    top = exp.Literal.number(_UNSIGNED_TOP)
    return exp.LTE(this=e, expression=top) if holds else exp.GT(this=e, expression=top)


def _flipped(comparison: exp.Expression) -> exp.Expression:
    """``a op b`` as ``b op' a``."""
    kind = FLIPPED.get(type(comparison), type(comparison))
    return kind(this=comparison.expression.copy(), expression=comparison.this.copy())


def _whole_beyond_64_bits(x: exp.Expression) -> bool:
    """A whole number literal (maybe negated) of at most 38 digits below BIGINT's least or
    above unsigned BIGINT's greatest (a DOUBLE in DataFusion, which its DECIMAL
    comparisons hold exactly)."""
    number = x.this if isinstance(x, exp.Neg) else x
    return isinstance(number, exp.Literal) and not number.is_string and (
        number.this.isdigit() and len(number.this) <= 38 and beyond_unsigned_bigint(number))


def _compared_with_whole_numbers(x: exp.Expression) -> bool:
    """Whether ``x`` is compared (alone, in an IN list or a BETWEEN) with whole numbers from
    BIGINT's least to unsigned BIGINT's greatest (or DECIMALs of such a value within BIGINT:
    ``CAST(0 AS DECIMAL(20,4))``) and NULL only, or alone with a DOUBLE
    (``3E+0``) holding a whole number below 2**53 that Arrow casts to 15 places exactly: an
    unsigned BIGINT's ``x * 1`` is a DECIMAL of scale 0 there, which such numbers meet
    exactly, as they meet ``x``. A DOUBLE meets it as the DECIMAL of 15 places Arrow casts
    it to (times 10**15, a DOUBLE product: 295149E+0 is 295148.999999999967232 there), so
    only where that is the number itself; and compares with ``x`` in DOUBLE in Spark, exactly
    below 2**53."""
    while isinstance(x.parent, exp.Paren):
        x = x.parent
    others = _compared_with(x)
    alone = isinstance(x.parent, (*COMPARISONS, exp.NullSafeEQ, exp.NullSafeNEQ))
    return bool(others) and all(o is not None and (
        isinstance(o.unnest(), exp.Null) or _whole_within_64_bits(o.unnest()) or (
            _whole_decimal_cast(o.unnest())) or (
            alone and _small_whole_double(o.unnest()))) for o in others)


def _doubles_as_decimals(x: exp.Expression) -> list[tuple[exp.Expression, exp.Expression]]:
    """Where an unsigned BIGINT's ``x * 1`` or ``x / 1`` (a DECIMAL of scale 0 or 4 there)
    is compared (alone, in an IN list or a BETWEEN) with DOUBLE literals (a fraction, an
    exponent) beside whole numbers within 64 bits and NULL only: each DOUBLE and the DECIMAL
    of 15 places it meets the column as (Arrow's cast, times 10**15 in DOUBLE:
    68228325681.5 is 68228325681.499999146344448 there), written exactly; empty otherwise
    (no DOUBLE, or anything else beside it). The column meets those DECIMALs exactly.

    >>> import sqlglot
    >>> op = sqlglot.parse_one("(u / 1) IN (68228325681.5, 100)").find(exp.Div)
    >>> [(a.sql(), b.sql()) for a, b in _doubles_as_decimals(op)]
    [('68228325681.5', '68228325681.499999146344448')]
    """
    while isinstance(x.parent, exp.Paren):
        x = x.parent
    out = []
    for other in _compared_with(x) or [None]:
        bare = other.unnest() if other is not None else None
        if isinstance(bare, exp.Null) or (bare is not None and _whole_within_64_bits(bare)):
            continue
        number = bare.this if isinstance(bare, exp.Neg) else bare
        if not (isinstance(number, exp.Literal) and not number.is_string and any(
                c in number.this.lower() for c in ".e")):
            return []
        value = float(number.this) * (-1 if number is not bare else 1)
        units = decimal_units(value, 15) if math.isfinite(value) and abs(value) < 1e20 \
            else None
        if units is None:
            return []
        lit = exp.Literal.number(_decimal_text(abs(units), 15))
        lit.meta[EXACT] = True
        out.append((other, exp.Neg(this=lit) if units < 0 else lit))
    return out


def _whole_within_64_bits(x: exp.Expression) -> bool:
    """A whole number literal from -2**63 to 2**64 - 1 (a BIGINT or an unsigned BIGINT)."""
    number = x.this if isinstance(x, exp.Neg) else x
    return isinstance(number, exp.Literal) and not number.is_string and (
        number.this.isdigit() and not beyond_unsigned_bigint(number))


def _small_whole_double(x: exp.Expression) -> bool:
    """A number with an exponent (a DOUBLE), maybe negated, whose value is a whole number of
    less than 2**53 (where every whole number is a DOUBLE: 2**53 + 1 is 2**53 there) that
    Arrow's cast to 15 places keeps (``decimal_units``: 3E+0 is, 295149E+0 is not)."""
    number = x.this if isinstance(x, exp.Neg) else x
    if not (isinstance(number, exp.Literal) and not number.is_string and
            "e" in number.this.lower()):
        return False
    value = float(number.this)
    return math.isfinite(value) and value == int(value) and abs(value) < 2**53 and (
        decimal_units(value, 15) == int(value) * 10**15)


def split_null_bounds(tree: exp.Expression) -> exp.Expression:
    """``e BETWEEN a AND NULL`` as ``e >= a AND NULL``, and ``e BETWEEN NULL AND b`` as ``NULL
    AND e <= b``: what BETWEEN means in every engine, and the NULL bound meets no type, so
    ``e`` and ``a`` compare as they do alone (an engine that compares a BETWEEN in one type
    takes theirs). Run first; the tree is returned (another one where it was the root).

    >>> import sqlglot
    >>> split_null_bounds(sqlglot.parse_one("x NOT BETWEEN 1.5 AND NULL")).sql()
    'NOT (x >= 1.5 AND NULL)'
    """
    for between in list(tree.find_all(exp.Between)):
        low, high = between.args.get("low"), between.args.get("high")
        nulls = [isinstance(b.unnest(), exp.Null) for b in (low, high)]
        if sum(nulls) != 1:
            continue
        halves = exp.And(this=exp.GTE(this=between.this.copy(), expression=low.copy()),
                         expression=exp.Null()) if nulls[1] else exp.And(
            this=exp.Null(), expression=exp.LTE(this=between.this.copy(), expression=high.copy()))
        if between is tree:
            return halves
        between.replace(exp.Paren(this=halves))
    return tree


def _fold_bigint_casts(tree: exp.Expression) -> exp.Expression:
    """``CAST(n AS BIGINT)`` of a number as the whole number DataFusion folds it to: a fraction
    or an exponent is a DOUBLE there, truncated toward zero; where BIGINT does not hold it the
    query fails, and the cast stays.

    >>> import sqlglot
    >>> _fold_bigint_casts(sqlglot.parse_one("f <= CAST(-7.9 AS BIGINT)")).sql()
    'f <= -7'
    """
    for cast in list(tree.find_all(exp.Cast)):
        number = cast.this.this if isinstance(cast.this, exp.Neg) else cast.this
        if cast.to.this != exp.DataType.Type.BIGINT or not isinstance(number, exp.Literal) or \
                number.is_string or isinstance(cast, exp.TryCast):
            continue
        text = number.this.lower()
        value = int(text) if text.isdigit() else float(text)
        if isinstance(value, float) and not math.isfinite(value):
            continue
        whole = math.trunc(-value if isinstance(cast.this, exp.Neg) else value)
        if not -(2**63) <= whole < 2**63:
            continue
        folded = exp.Literal.number(abs(whole))
        folded = exp.Neg(this=folded) if whole < 0 else folded
        if cast is tree:
            return folded
        cast.replace(folded)
    return tree


def respell_like_escapes(tree: exp.Expression, dialect: str) -> None:
    r"""Where ``Engine.backslash_escapes`` (DataFusion, Arrow's LIKE): a backslash in a LIKE
    pattern before a character other than ``%``, ``_`` or a backslash is that character, and
    one at the end a backslash; written as Spark reads them (the character itself, ``\\``),
    in place.

    >>> import sqlglot
    >>> tree = sqlglot.parse_one(r"s LIKE '\za%\' OR s LIKE 'a\%'", read="postgres")
    >>> respell_like_escapes(tree, "datafusion")
    >>> [x.expression.this for x in tree.find_all(exp.Like)]
    ['za%\\\\', 'a\\%']
    """
    if not engine(dialect).backslash_escapes:
        return
    for like in list(tree.find_all(exp.Like, exp.ILike)):
        pattern = like.expression
        if isinstance(like.parent, exp.Escape) or not (
                isinstance(pattern, exp.Literal) and pattern.is_string) or "\\" not in pattern.this:
            continue
        text, out, k = pattern.this, [], 0
        while k < len(text):
            if text[k] != "\\":
                out.append(text[k])
            elif k + 1 == len(text):
                out.append("\\\\")  # a backslash at the end: itself
            elif text[k + 1] in "%_\\":
                out.append(text[k:k + 2])
                k += 1
            else:
                out.append(text[k + 1])  # before another character: that character
                k += 1
            k += 1
        pattern.replace(exp.Literal.string("".join(out)))


def _is_one(x: exp.Expression) -> bool:
    """The whole number 1, maybe cast to BIGINT (``read_engine_numbers`` writes it so)."""
    if isinstance(x, exp.Cast) and x.to.this == exp.DataType.Type.BIGINT:
        x = x.this
    return isinstance(x, exp.Literal) and not x.is_string and x.this == "1"


_UNIT_MICROS = {"s": 1_000_000, "ms": 1_000, "us": 1, "ns": 1}


def read_date_strings(tree: exp.Expression, dialect: str,
                      types: Mapping[str, object] | None) -> None:
    """Where ``Engine.date_strings_in_lists``: a ``'yyyy-mm-dd'`` string in an IN list whose
    operand is a DATE (a DATE column, a cast to DATE), or IS [NOT] DISTINCT FROM one, is
    written ``CAST('...' AS DATE)``, the
    DATE the engine casts it to (or its midnight, where a TIMESTAMP item makes the list's
    type a TIMESTAMP: as Spark compares a DATE item there). In place.

    >>> import sqlglot
    >>> tree = sqlglot.parse_one("d IN ('2020-01-04', DATE '2020-01-05')", read="postgres")
    >>> read_date_strings(tree, "datafusion", {"d": "date32[day]"})
    >>> tree.sql()
    "d IN (CAST('2020-01-04' AS DATE), CAST('2020-01-05' AS DATE))"
    """
    if not engine(dialect).date_strings_in_lists:
        return
    for x in list(tree.find_all(exp.In, exp.NullSafeEQ, exp.NullSafeNEQ)):
        sides = [x.this, x.expression] if not isinstance(x, exp.In) else [x.this]
        items = x.expressions if isinstance(x, exp.In) else sides
        if inside_unknown_part(x) or not any(isinstance(side, (exp.Column, exp.Cast)) and kind_of(
                side, types) == "date32[day]" for side in sides):
            continue
        for item in list(items):
            if isinstance(item, exp.Literal) and item.is_string and is_day(item.this):
                item.replace(exp.Cast(this=item.copy(), to=exp.DataType.build("DATE")))


def read_timestamp_literals(tree: exp.Expression, dialect: str,
                             types: Mapping[str, object] | None) -> None:
    """Where ``Engine.timestamp_literals_cast`` (the caller's session zone is UTC): a string
    ``'yyyy-mm-dd[ hh:mm:ss[.ffffff]]'`` compared with TIMESTAMP columns (without a zone or
    in UTC) only is written as the TIMESTAMP literal the engine casts it to, and a TIMESTAMP
    literal with more fraction digits than its columns' one unit holds as that unit's value
    toward zero (``TIMESTAMP '1969-12-31 23:59:59.9995'`` against milliseconds is 1970-01-01
    00:00:00 there). Changed in place.

    >>> import sqlglot
    >>> tree = sqlglot.parse_one("t = '2020-01-01 10:00:00.9999'", read="postgres")
    >>> read_timestamp_literals(tree, "datafusion", {"t": "timestamp[ms]"})
    >>> tree.sql()
    "t = CAST('2020-01-01 10:00:00.999' AS TIMESTAMP)"
    """
    reads = engine(dialect)
    if not reads.timestamp_literals_cast:
        return
    for lit in list(tree.find_all(exp.Literal)):
        wall = WALL_TIME.fullmatch(lit.this) if lit.is_string else None
        cast = lit.parent
        if wall is None or (isinstance(cast, exp.Cast) and cast.to.this not in (
                exp.DataType.Type.TIMESTAMP, exp.DataType.Type.TIMESTAMPNTZ)):
            continue
        units = {timestamp_unit(kind_of(c, types), reads) for c in partners_of(
            cast if isinstance(cast, exp.Cast) else lit)}
        if not units or None in units:
            continue
        if not isinstance(cast, exp.Cast):
            cast = exp.Cast(this=lit.copy(), to=exp.DataType.build("TIMESTAMP"))
            lit.replace(cast)
        digits = len((wall[2] or ".")[1:])
        (unit, *others) = units
        if others or digits <= FRACTION_DIGITS[unit]:
            continue
        moment = datetime.datetime.fromisoformat(cast.this.this)
        micros = (moment - datetime.datetime(1970, 1, 1)) // datetime.timedelta(microseconds=1)
        step = _UNIT_MICROS[unit]
        micros = micros // step * step if micros >= 0 else -(-micros // step * step)
        moment = datetime.datetime(1970, 1, 1) + datetime.timedelta(microseconds=micros)
        cast.this.replace(exp.Literal.string(moment.isoformat(" ", timespec=(
            "seconds" if unit == "s" else "milliseconds"))))


def fold_null_comparisons(tree: exp.Expression, types: Mapping[str, object] | None,
                           dialect: str) -> exp.Expression:
    """``NULL >= e`` (any comparison with a NULL operand), ``e IN (NULL, NULL)`` and
    ``e BETWEEN NULL AND NULL`` as the NULL they are in every engine, whatever ``e`` means
    there (``e`` failing at run time fails the query: no row either). Kept where ``e`` names a
    column the schema lacks, so that the error says so, and for a list of NULLs the engine's
    optimizer may merge with another on its column (``merge_drops_null``).

    >>> import sqlglot
    >>> fold_null_comparisons(sqlglot.parse_one("x / 2 IN (NULL) OR x > 1"), {"x": "int"},
    ...                       "duckdb").sql()
    'NULL OR x > 1'
    """
    keeps_null = engine(dialect).null_in_lists
    for cmp in list(tree.find_all(*COMPARISONS, exp.In, exp.Between)):
        if isinstance(cmp, exp.In):
            sides = cmp.expressions if keeps_null or not merge_drops_null(cmp) else []
            null = bool(sides) and all(isinstance(x.unnest(), exp.Null) for x in sides)
        elif isinstance(cmp, exp.Between):
            null = all(isinstance(cmp.args.get(k).unnest(), exp.Null) for k in ("low", "high"))
        else:
            null = any(isinstance(side.unnest(), exp.Null) for side in (cmp.this, cmp.expression))
        if not null or types is None or any(
                col.table or col.name.lower() not in types for col in cmp.find_all(exp.Column)):
            continue
        null = exp.Null()
        if cmp is tree:
            return null
        cmp.replace(null)
    return tree


def _doubles_against_decimals(tree: exp.Expression, types: Mapping[str, object] | None) -> None:
    """``CAST(n AS DOUBLE)`` of a number compared with DECIMAL columns only is the DOUBLE it
    gives, which DataFusion compares with them as any DOUBLE (``_double_against_decimal``):
    written as that number, in place, for ``read_engine_numbers`` to read so."""
    for cast in list(tree.find_all(exp.Cast)):
        inner = cast.this.this if isinstance(cast.this, exp.Neg) else cast.this
        if cast.to.this != exp.DataType.Type.DOUBLE or not isinstance(inner, exp.Literal) or \
                inner.is_string or inside_unknown_part(cast):
            continue
        kinds = [decimal_kind(c, types) for c in partners_of(cast)]
        value = float(decimal.Decimal(inner.this))
        if kinds and all(kinds) and math.isfinite(value):
            number = exp.Literal.number(repr(value))
            cast.replace(exp.Neg(this=number) if isinstance(cast.this, exp.Neg) else number)


def _one_type_between(x: exp.Between, types: Mapping[str, object] | None) -> bool:
    """DataFusion compares ``x BETWEEN a AND b`` in one type for both bounds: with a DOUBLE
    bound (a fraction) and a whole one, DOUBLE, where Spark compares each bound in its own
    (``a BETWEEN -9223372036854775807 AND 0.5`` holds for BIGINT's least there). So against
    an integer, DOUBLE or FLOAT column the whole bound is written as the DOUBLE it becomes
    (a whole number beyond unsigned BIGINT is a DOUBLE bound). False where such a BETWEEN
    cannot be written so (its operand's type not at hand): the caller leaves it unknown."""
    bounds = [b.this if isinstance(b, exp.Neg) else b for b in (x.args["low"], x.args["high"])]
    if any(b.meta.get(EXACT) for b in bounds):
        return True  # written in the engine's one type (``engine_lists``)
    numbers = [b for b in bounds if isinstance(b, exp.Literal) and not b.is_string]
    whole = [b for b in numbers if not ("." in b.this or "e" in b.this.lower()
                                        or beyond_unsigned_bigint(b))]
    casts = [b.unnest() for b in bounds if isinstance(b.unnest(), exp.Cast)]
    if len(whole) == 1 and casts and any(c.to.this not in INTEGER_TYPES for c in casts):
        # a cast beside a whole number (of text, say: ``CAST('-Infinity' AS DOUBLE)``): a
        # DOUBLE makes the BETWEEN one of DOUBLEs there; DECIMALs beside an integer or a
        # DECIMAL make it one of DECIMALs, exact, as each bound in its own type is; another
        # type is not modelled
        if all(c.to.this in (*INTEGER_TYPES, exp.DataType.Type.DECIMAL) for c in casts) and (
                _exact_operand(x.this, types)):
            return True
        if any(c.to.this != exp.DataType.Type.DOUBLE for c in casts):
            return False
    elif len(whole) != 1 or len(numbers) != 2:
        return True
    operand = x.this
    while isinstance(operand, (exp.Neg, exp.Paren)):  # (-x: x's type)
        operand = operand.this
    kind = kind_of(operand, types) if isinstance(operand, (exp.Column, exp.Cast)) else None
    if kind in INTEGER_KINDS or kind in ("double", "float"):
        whole[0].replace(exp.Literal.number(f"{whole[0].this}E0"))
        return True
    # another operand (arithmetic, a cast): its type, and so the bounds', is not at hand,
    # but a DECIMAL column (or its negation, of its type) compares both bounds as Spark does
    # (each as that DECIMAL)
    return decimal_kind(operand, types) is not None if isinstance(operand, exp.Column) else False


def _exact_operand(x: exp.Expression, types: Mapping[str, object] | None) -> bool:
    """Whether ``x`` is an integer or a DECIMAL (a column, a cast, the negation of one)."""
    while isinstance(x, (exp.Neg, exp.Paren)):
        x = x.this
    return isinstance(x, (exp.Column, exp.Cast)) and (
        kind_of(x, types) in INTEGER_KINDS or decimal_kind(x, types) is not None)


def bounds_in_one_type(tree: exp.Expression, dialect: str,
                       types: Mapping[str, object] | None) -> exp.Expression:
    """Where ``Engine.between_in_one_type`` (DuckDB): ``x BETWEEN a AND b`` with a DOUBLE
    bound (an exponent, a cast to DOUBLE) and a whole one compares all three in DOUBLE there
    (``-9223372036854775808 BETWEEN -9223372036854775807 AND 5e0`` holds), so against an
    integer or DOUBLE column the whole bound is written as the DOUBLE it becomes; with a
    fraction (a DECIMAL there) or another operand, the BETWEEN is unknown. The tree is
    returned (another one where the whole predicate was such a BETWEEN).

    >>> import sqlglot
    >>> tree = sqlglot.parse_one("b BETWEEN -9223372036854775807 AND 5e0", read="duckdb")
    >>> bounds_in_one_type(tree, "duckdb", {"b": "int64"}).sql()
    'b BETWEEN -9223372036854775807E0 AND 5e0'
    """
    if not engine(dialect).between_in_one_type:
        return tree
    for x in list(tree.find_all(exp.Between)):
        bounds = [x.args.get("low"), x.args.get("high")]
        kinds = [_duckdb_number(b) for b in bounds]
        if inside_unknown_part(x) or "double" not in kinds or all(
                k in ("double", "null") for k in kinds):
            continue
        kind = kind_of(x.this, types) if isinstance(x.this, exp.Column) else None
        if None in kinds or "fraction" in kinds or not (
                kind in INTEGER_KINDS or kind == "double"):
            part = unknown_part("its bounds compared in one type there", x)
            if x is tree:
                return part
            x.replace(part)
            continue
        for bound, k in zip(bounds, kinds, strict=True):
            if k == "whole":
                lit = bound.this if isinstance(bound, exp.Neg) else bound
                lit.replace(exp.Literal.number(f"{lit.this}E0"))
    return tree


def _duckdb_number(x: exp.Expression | None) -> str | None:
    """A BETWEEN bound as DuckDB types it: "double" (an exponent, a number cast to DOUBLE),
    "whole", "fraction" (a DECIMAL), "null"; None for anything else."""
    if isinstance(x, exp.Null):
        return "null"
    if isinstance(x, exp.Cast) and x.to.this == exp.DataType.Type.DOUBLE:
        inner = x.this.this if isinstance(x.this, exp.Neg) else x.this
        return "double" if isinstance(inner, exp.Literal) and not inner.is_string else None
    lit = x.this if isinstance(x, exp.Neg) else x
    if not isinstance(lit, exp.Literal) or lit.is_string:
        return None
    return "double" if "e" in lit.this.lower() else "fraction" if "." in lit.this else "whole"


def decimal_target(lit: exp.Literal) -> tuple[int, int] | None:
    """(p, s) where ``lit``, maybe negated, is cast to DECIMAL(p, s), else None.

    >>> import sqlglot
    >>> decimal_target(sqlglot.parse_one("CAST(-1.5 AS DECIMAL(10, 2))").find(
    ...     sqlglot.exp.Literal))
    (10, 2)
    """
    parent = lit.parent
    while isinstance(parent, (exp.Neg, exp.Paren)):
        parent = parent.parent
    if not isinstance(parent, exp.Cast) or parent.to.this != exp.DataType.Type.DECIMAL:
        return None
    params = [q.this for q in parent.to.expressions]
    if len(params) != 2 or not all(isinstance(q, exp.Literal) and q.this.isdigit()
                                   for q in params):
        return None
    return int(params[0].this), int(params[1].this)


def _double_against_decimal(lit: exp.Literal, value: float, decimals: set[tuple[int, int]],
                            digits: int = 15) -> exp.Expression | None:
    """DataFusion compares a DECIMAL(p, s) column with a DOUBLE ``value`` (``lit``, maybe
    negated) in DECIMAL(min(38, t + max(p - s, 15)), t), t = max(s, 15): the DOUBLE cast by
    Arrow (``arrow_casts.decimal_units``), the column exactly (the query fails where it
    overflows the type). A FLOAT is a DECIMAL(14, 7) there, not (30, 15): ``digits`` 7, and
    ``value`` the FLOAT.
    Writes the bound that makes Spark compare the same way: the DOUBLE at t places, where
    Spark's type for the two holds them in 38 digits; else, p - s > 23, the bound at the
    column's scale that gives the same rows (Spark would round a literal of more places into
    the column's scale, keeping its integral digits). Returns the node written in its place
    (or in its comparison's), or None where the comparison stays another one (the DOUBLE
    kept: unknown)."""
    if len(decimals) != 1:
        return None
    ((p, s),) = decimals
    places = max(s, digits)
    units = decimal_units(value, places)
    if units is None or abs(units) >= 10 ** min(38, places + max(p - s, digits)):
        return None
    if p - s <= 38 - places:
        return lit.replace(exp.Literal.number(_decimal_text(int(units), places)))
    return _bound_at_scale(lit, int(units), places - s, s)


def _decimal_text(units: int, scale: int) -> str:
    """``units`` in units of 10**-scale, as exact text (``_decimal_text(-15, 1)`` is
    ``-1.5``)."""
    return f"{decimal.Decimal(units).scaleb(-scale, decimal.Context(prec=80)):f}"


# Where a column's values lie on a grid of 10**-s and a bound b does not, ``x < b`` is ``x <
# ceil(b)`` and ``x <= b`` is ``x <= floor(b)`` on the grid: which rounding each comparison
# takes, with the literal on its right (on its left, the other one).
_ROUND_UP = {exp.LT: True, exp.GTE: True, exp.LTE: False, exp.GT: False}


def _bound_at_scale(lit: exp.Literal, units: int, shift: int, scale: int
                    ) -> exp.Expression | None:
    """Write ``lit`` (in ``units`` of 10**-(scale + shift), maybe negated) compared with
    values of ``scale`` decimal places as the bound of ``scale`` places that keeps the same
    rows: itself where it has no more places; else, by the comparison, the grid point below
    or above it; an equality never holds (an empty range: ``x BETWEEN ceil AND floor``; IS NOT
    DISTINCT FROM is FALSE, NULL too), an IN list's item is dropped. Returns the node written
    in its place or its comparison's (the list), or None where the comparison is another
    one."""
    operand, sign = lit, 1
    while isinstance(operand.parent, (exp.Neg, exp.Paren)):
        sign = -sign if isinstance(operand.parent, exp.Neg) else sign
        operand = operand.parent
    floor = (sign * units) // 10**shift
    exact = floor * 10**shift == sign * units
    ceil = floor if exact else floor + 1

    def at_scale(v: int) -> exp.Expression:
        number = exp.Literal.number(_decimal_text(abs(v), scale))  # (its own sign: -1.5E-7)
        return exp.Neg(this=number) if v < 0 else number

    node = operand.parent
    if exact:
        return operand.replace(at_scale(floor))
    if isinstance(node, exp.Between) and operand.arg_key in ("low", "high"):
        return operand.replace(at_scale(ceil if operand.arg_key == "low" else floor))
    if type(node) in _ROUND_UP:
        up = _ROUND_UP[type(node)] == (operand.arg_key == "expression")
        return operand.replace(at_scale(ceil if up else floor))
    if isinstance(node, (exp.EQ, exp.NEQ, exp.In)):
        other = node.this if operand is not node.this else node.expression
        if isinstance(node, exp.In):
            operand.pop()
            if node.expressions:
                return node
            other = node.this
        never = exp.Between(this=other.copy(), low=at_scale(ceil), high=at_scale(floor))
        written = exp.Not(this=exp.Paren(this=never)) if isinstance(node, exp.NEQ) else never
        node.replace(written)
        return written
    if isinstance(node, (exp.NullSafeEQ, exp.NullSafeNEQ)):  # FALSE (TRUE) on every row
        written = exp.Boolean(this=isinstance(node, exp.NullSafeNEQ))
        node.replace(written)
        return written
    return None
