"""Whether each construct of another dialect's predicate means what Spark means by it
(``why_not_portable``, ``unportable_parts``): the table of ``dialects``' docstring, construct
by construct, each answer read from the engine's entry (``spark_types.engines``).
"""

from __future__ import annotations

import re
from collections.abc import Mapping

from sqlglot import exp

from prunekit.expr.spark_types.engines import SPARK, Engine, engine, syntax
from prunekit.expr.syntax.column_terms import ZEROS_APART, zeros_apart
from prunekit.expr.syntax.engine_literals import (
    decimal_target,
)
from prunekit.expr.syntax.engine_operands import (
    ARROW_BIGINT,
    COMPARISONS,
    DECIMAL,
    EQUALITIES,
    FRACTION_DIGITS,
    INTEGER_KINDS,
    WALL_OR_UTC,
    WALL_TIME,
    decimal_kind,
    family_of,
    fits_float,
    is_arrow_cast,
    is_arrow_double,
    is_day,
    is_unknown_part,
    is_whole_number,
    kind_of,
    partners_of,
    timestamp_unit,
)
from prunekit.expr.syntax.list_merges import MAY_MERGE, MERGED_LIST, merge_drops_null

_ALIKE = (exp.Column, exp.Identifier, exp.Dot, exp.And, exp.Or, exp.Not, exp.Paren, exp.EQ,
          exp.NEQ, exp.GT, exp.GTE, exp.LT, exp.LTE, exp.In, exp.Between, exp.Is, exp.Null,
          exp.Boolean, exp.Neg, exp.Literal, exp.Cast, exp.DataType, exp.Tuple)


def why_not_portable(e: exp.Expression, dialect: str,
                     types: Mapping[str, object] | None) -> str | None:
    """Why a predicate in ``dialect`` may not mean what Spark means by it, or None.
    ``types``: lower-case column name to a type (pyarrow, or a name such as "string"); a
    column of unknown type takes no string and, where NaN compares otherwise, no comparison.

    >>> import sqlglot
    >>> why_not_portable(sqlglot.parse_one("x / 2 > 1", read="trino"), "trino", {"x": "int"})
    'x / 2'
    >>> why_not_portable(sqlglot.parse_one("x > 1"), "trino", {"x": "int"}) is None
    True
    """
    found = unportable_parts(e, dialect, types)
    return found[0][1] if found else None


def unportable_parts(e: exp.Expression, dialect: str, types: Mapping[str, object] | None,
                     utc: bool = False) -> list[tuple[exp.Expression, str]]:
    """Each node of ``e`` that may not mean in ``dialect`` what it means in Spark, with the
    text that says which construct (``dialects``' docstring); ``utc``: the session zone is
    UTC.

    >>> import sqlglot
    >>> tree = sqlglot.parse_one("x / 2 > 1 AND x > 1", read="trino")
    >>> [(part.sql(), why) for part, why in unportable_parts(tree, "trino", {"x": "int"})]
    [('x / 2', 'x / 2')]
    """
    if dialect in SPARK:
        return []
    return [(x, why) for x in e.find_all(exp.Expression)
            if (why := _why_not(x, dialect, types, utc)) is not None]


def _why_not(x: exp.Expression, dialect: str, types: Mapping[str, object] | None,
             utc: bool = False) -> str | None:
    reads, shown = engine(dialect), syntax(dialect)
    if is_unknown_part(x):
        return f"{x.expressions[1].sql(dialect=shown)} ({x.expressions[0].this})"
    if is_arrow_cast(x):
        return None  # the engine's cast, written for its own rule
    if isinstance(x, exp.Var) and isinstance(x.parent, (exp.Extract, exp.Interval,
                                                         exp.TimestampTrunc)):
        return None  # a field or unit: its parent is read or not as a whole
    if isinstance(x, exp.Literal) and isinstance(x.parent, exp.Interval):
        return None  # the interval is read or not as a whole
    if isinstance(x, exp.DataTypeParam) or isinstance(x.parent, exp.DataTypeParam):
        return None  # DECIMAL(p, s): its cast is read or not as a whole
    if not isinstance(x, _ALIKE) and not _read_alike(x, reads, types):
        return x.sql(dialect=shown)
    if isinstance(x, exp.Cast) and not _cast_read_alike(x, reads, types, utc):
        return x.sql(dialect=shown)
    if isinstance(x, exp.Cast) and x.to.this == exp.DataType.Type.DATE and any(
            "tz=" in (kind_of(c, types) or "") for c in partners_of(x)) and not (
            reads.utc_timestamps and utc and _against_utc_columns(x, types, reads)):
        # A DATE meets a zoned TIMESTAMP at midnight in the engine's own session zone (DuckDB:
        # in UTC for nanosecond columns, whatever its zone), not in prunekit's time_zone.
        return f"{x.parent.sql(dialect=shown)} (a DATE against a TIMESTAMP with a zone)"
    # (the reasons that leave a part unknown together with others first: a merged list's
    # reason may let it be read where its column holds a value)
    merged = _merged_reason(x, reads, types)
    if merged is not None:
        return f"{x.sql(dialect=shown)} {merged}"
    if isinstance(x, exp.Literal):
        if not x.is_string and "e" in x.this.lower() and not reads.exponents_are_double:
            return x.sql(dialect=shown)
        if x.is_string and not isinstance(x.parent, exp.Cast) and not _string_read_alike(
                x, reads, types):
            return x.parent.sql(dialect=shown)
        if not x.is_string and not _number_meets_alike(x, reads, types):
            return x.parent.sql(dialect=shown)
    if isinstance(x, exp.Column) and not isinstance(x.parent, exp.Is):  # IS NULL: alike
        kind = kind_of(x, types)
        widened = (isinstance(x.parent, exp.Cast) and x.parent.to.this in (
            exp.DataType.Type.DOUBLE, exp.DataType.Type.BIGINT)) or is_arrow_cast(x.parent)
        if kind in ("float", "halffloat") and not (reads.float_meets_double and kind == "float"
                                                   and (widened or _meets_doubles(x, types))):
            # Spark widens a FLOAT to DOUBLE against anything but a FLOAT or an integer
            return f"{x.sql(dialect=shown)} (a FLOAT compares in another type)"
        if not _decimals_meet_alike(x, types):
            return f"{x.parent.sql(dialect=shown)} (Spark rounds DECIMALs beyond 38 digits)"
        if not reads.nan_as_spark and (
                kind is None or "float" in kind or "double" in kind or "halffloat" in kind):
            return f"{x.sql(dialect=shown)} (NaN compares otherwise)"
    return None


def _merged_reason(x: exp.Expression, reads: Engine,
                   types: Mapping[str, object] | None) -> str | None:
    """Why the engine's optimizer may rewrite ``x`` together with another part on its column:
    zeros of both signs weighed apart, or a list or equality merged (None where neither)."""
    if isinstance(x, (exp.EQ, exp.NEQ, exp.In, exp.Between, exp.GT, exp.GTE, exp.LT, exp.LTE)) \
            and not reads.signed_zeros_alike and zeros_apart(x, types):
        return ZEROS_APART
    if isinstance(x, exp.In) and not reads.null_in_lists and merge_drops_null(x):
        return MERGED_LIST
    if isinstance(x, (exp.EQ, exp.NEQ, exp.Like, exp.ILike, exp.RegexpLike, exp.RegexpILike,
                      exp.SimilarTo, exp.Between, exp.And)) and not reads.null_in_lists and \
            x.meta.get(MAY_MERGE):
        return MERGED_LIST
    return None


def _meets_doubles(col: exp.Column, types: Mapping[str, object] | None) -> bool:
    """Whether every operand ``col`` (maybe negated) is compared with is a DOUBLE (a number
    with an exponent, a DOUBLE column, a cast to DOUBLE), a FLOAT (a column, a cast, checked
    on its own), NULL
    or a whole number a FLOAT holds exactly (any up to 2**24), so that Spark and the engine
    compare the same values: in DOUBLE, or in FLOAT where every reading of the whole number
    is the same FLOAT."""
    node = col
    while isinstance(node.parent, (exp.Neg, exp.Paren)):
        node = node.parent
    parent = node.parent
    if not isinstance(parent, (*COMPARISONS, exp.In, exp.Between, exp.NullSafeEQ,
                               exp.NullSafeNEQ)):
        return False
    others = [e for e in parent.iter_expressions() if e is not node]
    if isinstance(parent, exp.In):
        others = list(parent.expressions)
    if not others:
        return False
    for other in others:
        while isinstance(other, (exp.Neg, exp.Paren)):
            other = other.this
        if not (family_of(other, types) == "double" or is_arrow_double(other) or isinstance(
                other, exp.Null) or (isinstance(other, exp.Column) and kind_of(
                    other, types) == "float") or (
                isinstance(other, exp.Cast) and other.to.this in (
                    exp.DataType.Type.DOUBLE, exp.DataType.Type.FLOAT)) or (
                isinstance(other, exp.Literal) and not other.is_string
                and ("e" in other.this.lower() or (
                    other.this.isdigit() and fits_float(int(other.this)))))):
            return False
    return True


def _number_meets_alike(lit: exp.Literal, reads: Engine,
                        types: Mapping[str, object] | None) -> bool:
    """Whether a number literal compares with the columns beside it as in Spark. Not where
    Spark rounds it: against a DECIMAL(p, s) column, Spark compares in the wider DECIMAL only
    if it has at most 38 digits, else it rounds the literal into the column's scale
    (``b <= 0.00000000005`` on DECIMAL(38, 10) is ``b <= 1E-10`` in Spark, exact in DuckDB
    and PostgreSQL). Nor a fraction of more than 15 significant digits against a DOUBLE
    column, which an engine may turn into a DOUBLE one unit off Spark's. Nor a number of more
    than 38 digits (a DOUBLE in DuckDB, refused by Spark), nor one against a BOOLEAN column
    (DuckDB casts 1 to TRUE, Spark refuses the comparison). Where the engine's fractions are
    DOUBLEs (``read_engine_numbers`` has written them as such), not a DOUBLE against a DECIMAL
    column it could not write as the engine's DECIMAL, nor a whole number beyond BIGINT (an
    unsigned BIGINT in DataFusion)."""
    text = lit.this.lower()
    if reads.fractions_are_double and text.isdigit() and int(text) >= 2**63 and not (
            text == str(2**63) and isinstance(lit.parent, exp.Neg)):
        # beyond BIGINT (-2**63 is BIGINT's least), below 2**64 (``read_engine_numbers``
        # writes larger ones as DOUBLEs): an unsigned BIGINT there
        return _unsigned_bigint_alike(lit, types)
    if "e" in text:
        # a DOUBLE wherever it is read at all (the exponent rule)
        return not reads.fractions_are_double or not any(
            decimal_kind(col, types) for col in partners_of(lit))
    whole, _, fraction = text.partition(".")
    whole = whole.lstrip("0")
    if len(whole) + len(fraction) > 38:
        return False
    for col in partners_of(lit):
        kind = kind_of(col, types)
        if kind is None:
            continue
        if kind in ("bool", "boolean"):
            return False
        decimal = DECIMAL.fullmatch(kind)
        if decimal:
            p, s = int(decimal[1]), int(decimal[2])
            if max(s, len(fraction)) + max(p - s, len(whole)) > 38:
                return False
        elif "double" in kind and fraction and len((whole + fraction).lstrip("0")) > 15:
            return False
    return True


def _unsigned_bigint_alike(lit: exp.Literal, types: Mapping[str, object] | None) -> bool:
    """Whether DataFusion's unsigned BIGINT ``lit`` meets its columns as Spark's DECIMAL(20,
    0) does: exactly against integer columns and a DECIMAL(p, s) holding s + max(p - s, 20)
    digits within 38 (a DECIMAL(20, 0) there), as the nearest DOUBLE against DOUBLEs (and
    FLOATs that hold it exactly: DataFusion rounds it to a FLOAT there; Arrow's DOUBLE of a
    DECIMAL column too); not in a list or a
    BETWEEN beside a fraction (another common type). Cast to a FLOAT or a DOUBLE, it is that
    cast's nearest value in both (one rounding of the whole number); cast to a DECIMAL that
    holds it, that DECIMAL's same value in both."""
    if isinstance(lit.parent, exp.Cast) and lit.parent.to.this in (
            exp.DataType.Type.FLOAT, exp.DataType.Type.DOUBLE):
        return True
    if isinstance(lit.parent, exp.Cast) and lit.parent.to.this == exp.DataType.Type.DECIMAL:
        params = [q.this for q in lit.parent.to.expressions]
        return len(params) == 2 and all(isinstance(q, exp.Literal) and q.this.isdigit()
                                        for q in params) and (
            len(lit.this.lstrip("0")) <= int(params[0].this) - int(params[1].this))
    holder = lit.parent.parent if isinstance(lit.parent, exp.Tuple) else lit.parent
    if isinstance(holder, (exp.In, exp.Between)) and any(
            isinstance(item, exp.Literal) and not item.is_string and (
                "." in item.this or "e" in item.this.lower())
            for item in holder.find_all(exp.Literal)):
        return False
    partners = partners_of(lit)
    value = int(lit.this)
    if not partners and isinstance(holder, (*COMPARISONS, exp.In, exp.NullSafeEQ,
                                            exp.NullSafeNEQ)):
        # Arrow's DOUBLE of a DECIMAL column (``arrow_decimal_doubles``): a DOUBLE, which the
        # number meets as its nearest DOUBLE there, as in Spark
        # and Arrow's BIGINT of one, which it meets in DECIMAL(20, 0) there, as Spark does
        return any(is_arrow_double(side.unnest()) or is_arrow_cast(side.unnest(), ARROW_BIGINT)
                   for side in holder.iter_expressions())

    def meets(kind: str | None) -> bool:
        decimal = DECIMAL.fullmatch(kind or "")
        if decimal:
            p, s = int(decimal[1]), int(decimal[2])
            return s + max(p - s, 20) <= 38
        if kind == "float":
            return fits_float(value)
        return kind in INTEGER_KINDS or kind == "double"

    return bool(partners) and all(meets(kind_of(c, types)) for c in partners)


def _bigint_number(x: exp.Expression) -> bool:
    """``CAST(n AS BIGINT)`` of a whole number: a BIGINT in every engine."""
    return (isinstance(x, exp.Cast) and x.to.this == exp.DataType.Type.BIGINT
            and is_whole_number(x.this))


def _truncated_number(x: exp.Expression) -> bool:
    """``CAST(n AS BIGINT)`` of a DOUBLE (a fraction or an exponent, which
    ``read_engine_numbers`` wrote as Spark's DOUBLE): toward zero in both (where BIGINT
    holds it; else the query fails there, and Spark's legacy mode saturates)."""
    number = x.this.this if isinstance(x, exp.Cast) and isinstance(x.this, exp.Neg) else (
        x.this if isinstance(x, exp.Cast) else None)
    return x.to.this == exp.DataType.Type.BIGINT and isinstance(number, exp.Literal) and (
        not number.is_string and "e" in number.this.lower()) if number is not None else False


def _decimals_meet_alike(col: exp.Column, types: Mapping[str, object] | None) -> bool:
    """Two DECIMAL columns compared: exact in Spark only where their wider type has at most
    38 digits (else Spark rounds one into a smaller scale)."""
    mine = decimal_kind(col, types)
    if not mine or not isinstance(col.parent, exp.Predicate):
        return True
    for other in col.parent.iter_expressions():
        theirs = decimal_kind(other, types) if isinstance(
            other, exp.Column) and other is not col else None
        if theirs:
            (p, s), (q, t) = (int(mine[1]), int(mine[2])), (int(theirs[1]), int(theirs[2]))
            if max(s, t) + max(p - s, q - t) > 38:
                return False
    return True


def _read_alike(x: exp.Expression, reads: Engine, types: Mapping[str, object] | None) -> bool:
    """Whether ``x``, outside what every dialect shares, reads in this engine as in Spark."""
    if isinstance(x, (exp.NullSafeEQ, exp.NullSafeNEQ)):
        return reads.distinct_from
    if isinstance(x, exp.Like):
        return reads.plain_like and _plain_like(x, types, reads.backslash_escapes)
    if isinstance(x, exp.Div):
        family = family_of(x.this, types)
        return is_whole_number(x.expression, nonzero=True) and (
            (family == "double" and reads.division_by_a_number)
            or (family == "integer" and reads.integers_divide_as_doubles))
    if isinstance(x, exp.IntDiv):  # written by ``integer_divisions`` where the engine truncates
        return reads.integers_divide_truncating and family_of(x.this, types) == "integer" and (
            isinstance(x.expression, exp.Literal) and is_whole_number(x.expression, nonzero=True))
    if isinstance(x, (exp.CurrentDate, exp.Interval)) or (
            isinstance(x, (exp.Add, exp.Sub)) and isinstance(x.this, exp.CurrentDate)):
        return reads.current_date and _today_against_dates(x, types)
    if isinstance(x, (exp.Add, exp.Sub, exp.Mul)):
        sides = (x.this, x.expression)
        if reads.integer_arithmetic and all(_integer_operand(side, types) for side in sides):
            return True
        return reads.double_arithmetic and all(
            _integer_operand(side, types) or _double_operand(side, types) for side in sides
        ) and any(_double_operand(side, types) for side in sides)
    if isinstance(x, (exp.Year, exp.Month, exp.Day)):
        return reads.calendar_of_dates and family_of(x.this, types) == "date"
    if isinstance(x, exp.Extract):  # EXTRACT(YEAR FROM d), date_part('year', d)
        return (reads.calendar_of_dates and x.name.upper() in ("YEAR", "MONTH", "DAY")
                and family_of(x.expression, types) == "date")
    if isinstance(x, exp.Abs):
        return reads.absolute_value and family_of(x.this, types) in ("integer", "double")
    if isinstance(x, (exp.Substring, exp.Left)):
        return _string_prefix(x, reads, types)
    if isinstance(x, exp.ILike):
        pattern = x.expression
        return (reads.ascii_ilike and _plain_like(x, types) and pattern.this.isascii()
                and not set(pattern.this.lower()) & {"i", "_"})
    if isinstance(x, exp.TimestampTrunc):
        return (reads.truncated_wall_times and isinstance(x.unit, exp.Var)
                and x.unit.name.upper() in _SPELLED_OUT_UNITS
                and isinstance(x.this, exp.Column) and kind_of(x.this, types) in _NAIVE)
    return False


# Units of date_trunc that Spark and DuckDB spell and read alike (DuckDB's 'mm' is no month)
_SPELLED_OUT_UNITS = {"YEAR", "QUARTER", "MONTH", "WEEK", "DAY", "HOUR", "MINUTE", "SECOND",
                      "MILLISECOND", "MICROSECOND"}


_NAIVE = ("timestamp[s]", "timestamp[ms]", "timestamp[us]")


def _today_against_dates(x: exp.Expression, types: Mapping[str, object] | None) -> bool:
    """``CURRENT_DATE``, ``CURRENT_DATE - 7`` or ``CURRENT_DATE + INTERVAL '7' DAY`` (``x`` or
    a part of it) compared with DATE columns only: a DATE, or its midnight, in both."""
    if isinstance(x, exp.Interval):
        unit = x.unit.name.upper() if isinstance(x.unit, exp.Var) else ""
        step = x.this.this if isinstance(x.this, exp.Literal) else ""
        return unit in ("DAY", "DAYS") and step.isdigit() and int(step) < 2**31 and (
            isinstance(x.parent, (exp.Add, exp.Sub)) and isinstance(x.parent.this,
                                                                     exp.CurrentDate))
    top = x.parent if isinstance(x, exp.CurrentDate) and isinstance(
        x.parent, (exp.Add, exp.Sub)) and x.parent.this is x else x
    step = top.expression if isinstance(top, (exp.Add, exp.Sub)) else None
    if step is not None and not (isinstance(step, exp.Interval) or (
            isinstance(step, exp.Literal) and is_whole_number(step) and int(step.this) < 2**31)):
        return False  # a whole number of days Spark takes as an INT
    partners = partners_of(top)
    return bool(partners) and all(family_of(c, types) == "date" for c in partners)


def _cast_read_alike(x: exp.Cast, reads: Engine, types: Mapping[str, object] | None,
                     utc: bool) -> bool:
    """``CAST('...' AS DATE)`` (and ``DATE '...'``) everywhere; in an engine whose entry says
    so, a widening cast of an integer column and a wall-time TIMESTAMP literal in UTC."""
    if x.to.this == exp.DataType.Type.DATE and isinstance(x.this, exp.Literal) and (
            x.this.is_string):
        return True
    return _bigint_number(x) or (reads.widening_casts and _widening(x, types)) or (
        reads.truncating_casts and (_truncating(x, types) or _truncated_number(x))) or (
        reads.naive_timestamps and utc and _naive_timestamp(x, types, reads)) or (
        reads.timestamps_as_dates and utc and _date_time_cast(x, types)) or (
        reads.fractions_are_double and (_decimal_literal(x, types) or _double_literal(
            x, types, reads))) or (reads.real_literals and (_real_literal(x, types) or
                                                            _float_of_integer(x, types)))


# Integer columns whose every value a FLOAT holds, and those it may round (compared in FLOAT
# in both engines: DataFusion and Spark cast the column to FLOAT against a FLOAT).
_FLOAT_EXACT = {"int8", "int16", "uint8", "uint16", "float", "double"}
_FLOAT_ROUNDED = {"int32", "int64", "uint32", "uint64"}


def _real_literal(x: exp.Cast, types: Mapping[str, object] | None) -> bool:
    """``CAST(n AS REAL)`` of a number: its nearest FLOAT in both, one rounding of the whole
    number or of the DOUBLE that ``read_engine_numbers`` made of a fraction (or of a whole
    number beyond unsigned BIGINT, a DOUBLE there too). Against FLOAT, DOUBLE (widened
    exactly) and small integer columns anywhere; against wider integers, which both engines
    cast to FLOAT, only compared alone (in an IN list or a BETWEEN the engine may take
    another type for the rest); against a DECIMAL, read as the DECIMAL it becomes
    (``read_engine_numbers``)."""
    number = x.this.this if isinstance(x.this, exp.Neg) else x.this
    if x.to.this != exp.DataType.Type.FLOAT or not isinstance(number, exp.Literal) or \
            number.is_string:
        return False
    kinds = {kind_of(c, types) for c in partners_of(x)} | (
        {"double"} if _beside_arrow_double(x) else set())
    if not kinds:
        return False
    return kinds <= _FLOAT_EXACT or (kinds <= _FLOAT_EXACT | _FLOAT_ROUNDED and isinstance(
        x.parent, (*COMPARISONS, exp.NullSafeEQ, exp.NullSafeNEQ)))


def _beside_arrow_double(x: exp.Expression) -> bool:
    """Whether ``x`` (maybe negated, or an IN list's item) is compared with Arrow's DOUBLE of
    a wide DECIMAL column (``is_arrow_double``): a DOUBLE, never -0.0, which a FLOAT meets
    widened exactly there as in Spark."""
    parent = x.parent
    while isinstance(parent, (exp.Neg, exp.Paren, exp.Tuple)):
        parent = parent.parent
    return parent is not None and any(
        is_arrow_double(side.unnest()) for side in parent.iter_expressions())


def _float_of_integer(x: exp.Cast, types: Mapping[str, object] | None) -> bool:
    """``CAST(c AS REAL)`` of an integer column: the nearest FLOAT, ties to even, in both
    (``floats_against_integers`` writes it). An unsigned BIGINT too: one rounding of the
    whole number in Arrow's cast, as in prunekit's reading of it."""
    return x.to.this == exp.DataType.Type.FLOAT and isinstance(x.this, exp.Column) and (
        kind_of(x.this, types) in INTEGER_KINDS)


_DOUBLE_TEXT = re.compile(r"-?\d+(\.\d+)?|-?inf(inity)?|nan", re.IGNORECASE)


def _double_literal(x: exp.Cast, types: Mapping[str, object] | None, reads: Engine) -> bool:
    """``CAST(5 AS DOUBLE)``, ``CAST('1.5' AS DOUBLE)``, ``CAST('Infinity' AS DOUBLE)``: the
    nearest DOUBLE (or the infinity, NaN) in both, against anything but a DECIMAL column
    (which a DOUBLE meets as a DECIMAL of its own in DataFusion). Not NaN negated where
    ``Engine.negated_nan_below``: a NaN negated is another value there (below every number,
    apart from NaN); nor compared with a negation, unless ``Engine.signed_nans`` makes such a
    comparison unknown where its operand is NaN (``signed_nans``), as its sign may decide it,
    and it is read as written elsewhere (``-f`` a number there, a NaN without its sign bit
    above every number and equal to none)."""
    number = x.this.this if isinstance(x.this, exp.Neg) else x.this
    if x.to.this != exp.DataType.Type.DOUBLE or not isinstance(number, exp.Literal) or (
            number.is_string and (number is not x.this or not _DOUBLE_TEXT.fullmatch(
                number.this))):
        return False
    if reads.negated_nan_below and number.is_string and number.this.lower() == "nan" and (
            (_beside_a_negation(x) and not reads.signed_nans) or _negated(x)):
        return False
    return not any(decimal_kind(c, types) for c in partners_of(x))


def _negated(x: exp.Expression) -> bool:
    """Whether a minus stands around ``x``: ``-CAST('NaN' AS DOUBLE)``."""
    holder = x.parent
    while isinstance(holder, exp.Paren):
        holder = holder.parent
    return isinstance(holder, exp.Neg)


def _beside_a_negation(x: exp.Expression) -> bool:
    """Whether ``x`` (maybe in an IN list) is compared with a negation of a column, ``-f``
    (not a negative number, ``-2.5``)."""
    holder = x.parent
    while isinstance(holder, (exp.Neg, exp.Paren, exp.Tuple)):
        holder = holder.parent
    return holder is not None and any(
        isinstance(side.unnest(), exp.Neg) and side.find(exp.Column) is not None
        for side in holder.iter_expressions())


def _decimal_literal(x: exp.Cast, types: Mapping[str, object] | None) -> bool:
    """``CAST(n AS DECIMAL(p, s))`` of a number that DECIMAL holds (``read_engine_numbers``
    has written a fraction as the engine casts it) against integer or DECIMAL columns whose
    wider type with DECIMAL(p, s) has at most 38 digits: the same value compared exactly in
    both. Not against a DOUBLE column, which DataFusion casts to a DECIMAL of 15 places (by
    the DOUBLE product, rounded) where Spark compares in DOUBLE."""
    number = x.this.this if isinstance(x.this, exp.Neg) else x.this
    target = decimal_target(number) if isinstance(number, exp.Literal) else None
    if target is None or number.is_string or "e" in number.this.lower():
        return False
    p, s = target
    whole, _, fraction = number.this.partition(".")
    if len(fraction.rstrip("0")) > s or len(whole.lstrip("0")) > p - s or not _exact_partners(
            x, types):
        return False
    for col in partners_of(x):
        kind = kind_of(col, types) or ""
        theirs = DECIMAL.fullmatch(kind)
        if theirs:
            q, t = int(theirs[1]), int(theirs[2])
            if max(s, t) + max(p - s, q - t) > 38:
                return False
        elif kind not in INTEGER_KINDS:
            return False
    return True


def _exact_partners(x: exp.Expression, types: Mapping[str, object] | None) -> bool:
    """Whether every operand that ``x`` is compared with and that reads a column is a column
    or a cast of one (``partners_of`` checks their types), or reads integer and DECIMAL
    columns alone with no division or cast to a float: not ``abs(f)`` or ``f + 1`` of a DOUBLE
    ``f``, which DataFusion casts to a DECIMAL of 15 places.

    >>> import sqlglot
    >>> types = {"f": "double", "i": "int32"}
    >>> [_exact_partners(sqlglot.parse_one(t).find(exp.Cast), types) for t in (
    ...     "abs(f) <> CAST(0 AS DECIMAL(20, 4))", "i + 1 = CAST(0.5 AS DECIMAL(3, 1))")]
    [False, True]
    """
    parent = x.parent
    while isinstance(parent, (exp.Neg, exp.Paren, exp.Tuple)):
        parent = parent.parent
    if parent is None:
        return True
    found = {id(c) for c in partners_of(x)} | {id(x)}
    return all(_exact_arithmetic(side, types) for side in parent.iter_expressions()
               if side.find(exp.Column) is not None
               and not any(id(n) in found for n in side.walk()))


def _exact_arithmetic(x: exp.Expression, types: Mapping[str, object] | None) -> bool:
    """Whether ``x`` reads integer and DECIMAL columns alone, with no division and no cast to
    a float: a value a DECIMAL holds exactly."""
    return x.find(exp.Div) is None and not any(
        c.to.is_type(*exp.DataType.REAL_TYPES) for c in x.find_all(exp.Cast)) and all(
        (kind_of(c, types) or "") in INTEGER_KINDS or DECIMAL.fullmatch(kind_of(c, types) or "")
        for c in x.find_all(exp.Column))


def _date_time_cast(x: exp.Cast, types: Mapping[str, object] | None) -> bool:
    """``CAST(ts AS DATE)`` of a TIMESTAMP column without a zone or in UTC, ``CAST(d AS
    TIMESTAMP)`` of a DATE column (``Engine.timestamps_as_dates``)."""
    if not isinstance(x.this, exp.Column):
        return False
    if x.to.this == exp.DataType.Type.DATE:
        return WALL_OR_UTC.fullmatch(kind_of(x.this, types) or "") is not None
    return x.to.this == exp.DataType.Type.TIMESTAMP and family_of(x.this, types) == "date"


def _naive_timestamp(x: exp.Cast, types: Mapping[str, object] | None,
                     reads: Engine) -> bool:
    """``TIMESTAMP 'yyyy-mm-dd[ hh:mm:ss[.ffffff]]'`` against TIMESTAMP columns without a zone
    and of at most microseconds: a wall time against wall times in DuckDB, which is Spark's
    reading when the session zone is UTC (the caller's condition; elsewhere Spark moves wall
    times in a gap). Against columns in UTC too where ``Engine.utc_timestamps``, against
    DATEs too, at their midnight, where ``Engine.timestamps_as_dates``, and against
    nanosecond columns where ``Engine.timestamp_literals_cast``."""
    partners = partners_of(x)
    if not (x.to.this in (exp.DataType.Type.TIMESTAMP, exp.DataType.Type.TIMESTAMPNTZ)
            and isinstance(x.this, exp.Literal) and x.this.is_string):
        return False
    wall = WALL_TIME.fullmatch(x.this.this)
    # DataFusion casts the literal to a coarser column's unit (truncating): only a literal
    # the column's unit holds is the same instant in both (``read_timestamp_literals``
    # writes it so)
    digits = len((wall[2] or ".")[1:].rstrip("0")) if wall else 0

    def holds(kind: str | None) -> bool:
        if reads.timestamps_as_dates and kind == "date32[day]":
            return True
        unit = timestamp_unit(kind, reads)
        return unit is not None and digits <= FRACTION_DIGITS[unit]

    return wall is not None and bool(partners) and all(holds(kind_of(c, types)) for c in partners)


def _against_utc_columns(x: exp.Expression, types: Mapping[str, object] | None,
                         reads: Engine) -> bool:
    """Whether every TIMESTAMP column ``x`` meets is one in UTC the engine reads as Spark does
    in UTC, or has no zone."""
    partners = partners_of(x)
    return bool(partners) and all(
        timestamp_unit(kind_of(c, types), reads) is not None or "tz=" not in (
            kind_of(c, types) or "") for c in partners)


def _widening(x: exp.Cast, types: Mapping[str, object] | None) -> bool:
    """``CAST(c AS BIGINT)`` or ``CAST(c AS DOUBLE)`` of an integer column, signed or not, and
    ``CAST(f AS DOUBLE)`` of a DOUBLE or FLOAT one: the same value in every engine (beyond 2**53 the
    nearest DOUBLE in both; an unsigned value beyond BIGINT fails the query in DuckDB and
    DataFusion, Spark's ANSI mode too). ``CAST(d AS DOUBLE)`` of a DECIMAL(p, s) column with
    p <= 15: the nearest DOUBLE in both (Arrow divides the unscaled integer, exact below 2**53,
    by 10**s, once rounded; Java rounds the DECIMAL once)."""
    if not isinstance(x.this, exp.Column):
        return False
    kind = kind_of(x.this, types) or ""
    decimal = DECIMAL.fullmatch(kind)
    if x.to.this == exp.DataType.Type.DOUBLE:
        return kind in INTEGER_KINDS or kind == "float" or family_of(x.this, types) in (
            "integer", "double") or (decimal is not None and int(decimal[1]) <= 15)
    return x.to.this == exp.DataType.Type.BIGINT and (
        kind in INTEGER_KINDS or family_of(x.this, types) == "integer")


def _truncating(x: exp.Cast, types: Mapping[str, object] | None) -> bool:
    """``CAST(c AS BIGINT)`` of a DOUBLE or FLOAT column (``Engine.truncating_casts``), or of a
    DECIMAL(p, s) column with p - s <= 15 (whose truncations BIGINT and DOUBLE hold), toward
    zero in both: compared with whole numbers the engine drops the cast
    (``drop_integer_casts`` has written it so), against DOUBLEs it keeps it."""
    if x.to.this != exp.DataType.Type.BIGINT:
        return False
    decimal = decimal_kind(x.this, types) if isinstance(
        x.this, exp.Column) else None
    return family_of(x.this, types) == "double" or (isinstance(x.this, exp.Column) and kind_of(
        x.this, types) == "float") or (
        decimal is not None and int(decimal[1]) - int(decimal[2]) <= 15)


def _plain_like(x: exp.Like, types: Mapping[str, object] | None,
                backslash_escapes: bool = False) -> bool:
    """``s LIKE 'pattern'`` (or NOT LIKE) on a string column, without ESCAPE and without a
    backslash (an escape in Spark, a plain character in DuckDB); ``backslash_escapes``: with
    backslashes each escaping a ``%``, a ``_`` or a backslash (``Engine.backslash_escapes``:
    the engine escapes as Spark does there; before another character, or at the end, Spark
    refuses the pattern)."""
    pattern = x.expression
    if isinstance(x.parent, exp.Escape) or family_of(x.this, types) != "string" or not (
            isinstance(pattern, exp.Literal) and pattern.is_string):
        return False
    if not backslash_escapes:
        return "\\" not in pattern.this
    return _ESCAPES_ALIKE.fullmatch(pattern.this) is not None


# A LIKE pattern whose every backslash escapes %, _ or a backslash.
_ESCAPES_ALIKE = re.compile(r"(?:[^\\]|\\[%_\\])*", re.DOTALL)


def _positive(x: exp.Expression) -> bool:
    """A literal whole number above 0 (a count of characters)."""
    return isinstance(x, exp.Literal) and is_whole_number(x, nonzero=True)


def _integer_operand(x: exp.Expression, types: Mapping[str, object] | None) -> bool:
    """An integer column, a whole number, or integer arithmetic (each checked on its own)."""
    while isinstance(x, (exp.Paren, exp.Neg)):
        x = x.this
    return (family_of(x, types) == "integer" or is_whole_number(x) or _bigint_number(x)
            or isinstance(x, (exp.Add, exp.Sub, exp.Mul)))


def _double_operand(x: exp.Expression, types: Mapping[str, object] | None) -> bool:
    """A DOUBLE column, a number with a fraction or an exponent (a DOUBLE there), a cast to
    DOUBLE, ``abs`` of one, or arithmetic (each checked on its own): a DOUBLE in Spark too
    (not a FLOAT, whose arithmetic with an integer may keep 32 bits there, nor an unsigned
    column, a DECIMAL to Spark)."""
    while isinstance(x, (exp.Paren, exp.Neg, exp.Abs)):
        x = x.this
    if isinstance(x, exp.Cast):
        return x.to.this == exp.DataType.Type.DOUBLE
    if isinstance(x, exp.Literal):
        return not x.is_string and ("." in x.this or "e" in x.this.lower())
    return family_of(x, types) == "double" or isinstance(x, (exp.Add, exp.Sub, exp.Mul))


def _string_read_alike(lit: exp.Literal, reads: Engine,
                       types: Mapping[str, object] | None) -> bool:
    """A string literal that the engine reads as Spark does: compared by ``=``, ``<>`` or
    ``IN`` with a string column (in every dialect: equality has no collation order and no
    coercion) or, where the engine's entry says so, with a prefix of one; a LIKE pattern it
    reads alike; a bound ordered against either where both order strings by their bytes."""
    parent = lit.parent
    if reads.timestamps_as_dates and isinstance(parent, (*COMPARISONS, exp.Between, exp.In)) and (
            is_day(lit.this) and partners_of(lit)
            and all(kind_of(c, types) == "date32[day]" for c in partners_of(lit))):
        return True  # 'yyyy-mm-dd' against DATEs: that DATE in both
    if isinstance(parent, exp.Like):
        return reads.plain_like and parent.expression is lit and _plain_like(
            parent, types, reads.backslash_escapes)
    if isinstance(parent, exp.ILike):
        return parent.expression is lit and _read_alike(parent, reads, types)
    if isinstance(parent, exp.Tuple):
        parent = parent.parent
    if isinstance(parent, EQUALITIES):
        other = parent.this if isinstance(parent, exp.In) or parent.this is not lit else (
            parent.expression)
        kind = kind_of(other, types) if isinstance(other, exp.Column) else None
        return (kind is not None and ("string" in kind or "utf8" in kind)) or _string_prefix(
            other, reads, types)
    if not reads.strings_by_bytes:
        return False
    if isinstance(parent, exp.Between):
        return _stringy(parent.this, reads, types)
    if isinstance(parent, (exp.LT, exp.LTE, exp.GT, exp.GTE)):
        other = parent.expression if parent.this is lit else parent.this
        return _stringy(other, reads, types)
    return False


def _stringy(x: exp.Expression, reads: Engine, types: Mapping[str, object] | None) -> bool:
    """A string column, or a prefix of one that the engine reads as Spark does."""
    return family_of(x, types) == "string" or _string_prefix(x, reads, types)


def _string_prefix(x: exp.Expression, reads: Engine, types: Mapping[str, object] | None
                   ) -> bool:
    """``substring(s, 1, k)`` or ``left(s, k)`` of a string column, ``k`` a positive whole
    number: its first ``k`` characters in both (DuckDB's ``left`` of a negative ``k`` drops
    characters from the end, Spark's gives ''; a ``substring`` from elsewhere is no prefix)."""
    if not reads.string_prefixes:
        return False
    if isinstance(x, exp.Substring):
        start, length = x.args.get("start"), x.args.get("length")
        return (family_of(x.this, types) == "string" and isinstance(start, exp.Literal)
                and start.this == "1" and not start.is_string
                and _positive(length))
    if isinstance(x, exp.Left):
        return family_of(x.this, types) == "string" and _positive(x.expression)
    return False
