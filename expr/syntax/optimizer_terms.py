"""What DataFusion 55's optimizer sees of a comparison before it merges lists or weighs
comparisons on one column together: its operand as the optimizer may rewrite it
(``operand_key``: casts dropped, ``x * 1`` made ``x``), and its constants as the optimizer
folds them (``value_of``, ``folded_value``, the signs a zero may have: ``zero_signs_of``),
told ``apart`` where no type it may compare them in takes them for one value.
"""

from __future__ import annotations

import datetime
import decimal
import operator
import re
import struct

from sqlglot import exp

from prunekit.expr.syntax.engine_operands import (
    DECIMAL,
    is_zero,
    number_value,
)

# Regular expressions its simplifier may rewrite into lists (``x ~ '^(a|b)$'``).
PATTERN_LISTS = (exp.RegexpLike, exp.RegexpILike, exp.SimilarTo)

# Types by their names as Arrow and sqlglot give them.
FLOAT_KINDS = ("float", "double", "halffloat")  # Arrow's floats, as kind_of names them
FLOAT_TYPES = (exp.DataType.Type.FLOAT, exp.DataType.Type.DOUBLE)
DATE_TYPES = (exp.DataType.Type.DATE, exp.DataType.Type.DATE32)
TIMESTAMP_TYPES = tuple(t for t in exp.DataType.TEMPORAL_TYPES if "TIMESTAMP" in t.value
                         or "DATETIME" in t.value)


def kind_family(kind: str | None) -> str | None:
    """A column's type, as ``kind_of`` names it, by family: "float", "decimal", "date",
    "timestamp" or "other"; None where unknown.

    >>> kind_family("date32[day]"), kind_family("decimal128(5, 0)"), kind_family("int8")
    ('date', 'decimal', 'other')
    """
    if not kind:
        return None
    if kind in FLOAT_KINDS:
        return "float"
    if DECIMAL.fullmatch(kind):
        return "decimal"
    return next((f for f in ("date", "timestamp") if kind.startswith(f)), "other")


def type_family(to: exp.DataType) -> str:
    """A cast's target type by family, as ``kind_family`` names them."""
    return ("float" if to.is_type(*FLOAT_TYPES) else "date" if to.is_type(*DATE_TYPES)
            else "timestamp" if to.is_type(*TIMESTAMP_TYPES)
            else "decimal" if to.is_type(exp.DataType.Type.DECIMAL) else "other")


def kept_cast(own: str | None, to: str) -> bool:
    """Whether DataFusion 55's optimizer keeps a cast of a column of the family ``own`` to the
    family ``to`` (neither drops it nor moves it onto the constants): between a float and
    another type (it moves none to a float literal), and between a DATE and a TIMESTAMP (a
    day is no instant). Checked on its plans.

    >>> kept_cast("other", "float"), kept_cast("timestamp", "date"), kept_cast("float", "float")
    (True, True, False)
    """
    return own is not None and own != to and (
        "float" in (own, to) or {own, to} == {"date", "timestamp"})


def column_names(x: exp.Expression) -> set[str]:
    """The columns in ``x`` as the engine may resolve them, each name part lower-cased: ``x``,
    ``"x"`` and ``t.x`` share ``x``; ``st.a`` and ``st['a']`` share ``st``, to be safe.

    >>> import sqlglot
    >>> sorted(column_names(sqlglot.parse_one('"X" + t.y')))
    ['t', 'x', 'y']
    """
    return {part.lower() for c in x.find_all(exp.Column)
            for part in (c.name, c.table, c.db, c.catalog) if part}


def ancestors(node: exp.Expression | None):
    """``node`` and each node above it, up to the root."""
    while node is not None:
        yield node
        node = node.parent


def may_fold(branch: exp.Expression) -> bool:
    """Whether the simplifier may fold a branch to a constant, which it then drops from its
    OR (or AND): one without a column, or with two comparisons on one column (lists it
    merges into an empty one: ``y IN (1) AND y IN (2)`` is FALSE there).

    >>> import sqlglot
    >>> [may_fold(sqlglot.parse_one(t)) for t in ("1 > 2", "y IN (1) AND y > 2", "y > 2")]
    [True, True, False]
    """
    seen: set[str] = set()
    for node in branch.walk():
        if isinstance(node, _TERMS):
            names = column_names(node)
            if names & seen:
                return True
            seen |= names
    return branch.find(exp.Column) is None


_TERMS = (exp.In, exp.Between, exp.EQ, exp.NEQ, exp.GT, exp.GTE, exp.LT, exp.LTE, exp.Like,
          exp.ILike, exp.Is, exp.NullSafeEQ, exp.NullSafeNEQ, *PATTERN_LISTS)


def branches(node: exp.Expression) -> list[exp.Expression]:
    """The branches of a chain of one op (an AND's conjuncts, an OR's disjuncts), in order.

    >>> import sqlglot
    >>> [b.sql() for b in branches(sqlglot.parse_one("a OR (b OR c AND d) OR NOT (e OR f)"))]
    ['a', 'b', 'c AND d', 'NOT (e OR f)']
    """
    out = []
    for side in (node.this, node.expression):
        inner = side.unnest()
        out += branches(inner) if type(inner) is type(node) else [side]
    return out


def operand_key(x: exp.Expression) -> str | None:
    """An operand as the optimizer may rewrite it: casts dropped (it drops those it need not
    make, and moves others to the literals; ``list_merges`` tells those it keeps), ``x * 1``,
    ``x + 0`` and such to ``x``; None where a constant part may fold to such a 0 or 1 (any
    operand it may equal then).

    >>> import sqlglot
    >>> [operand_key(sqlglot.parse_one(t)) for t in ("CAST(x AS DOUBLE)", "-x", "x * 2", "x * 1")]
    ['x', '-x', 'Mul(2, x)', None]
    >>> operand_key(sqlglot.parse_one("SUBSTRING(s, 1, 2)")), operand_key(sqlglot.parse_one(
    ...     "abs(x)"))
    ('Substring(s, 1, 2)', 'Abs(x)')
    """
    while isinstance(x, (exp.Paren, exp.Cast, exp.TryCast)):
        x = x.this
    if isinstance(x, exp.Column):
        return x.name.lower()
    if x.find(exp.Column) is None:
        return f"constant {constant_key(x)}"
    if isinstance(x, exp.Neg):
        inner = operand_key(x.this)
        return None if inner is None or inner.startswith("-") else f"-{inner}"
    if isinstance(x, (exp.Add, exp.Sub, exp.Mul, exp.Div)):
        sides = [x.this, x.expression]
        free = [side for side in sides if side.find(exp.Column) is None]
        if len(free) == 1:
            key = constant_key(free[0])
            if not is_number(key) or decimal.Decimal(key) in (0, 1):
                return None  # x + 0, x * 1, or a constant that may fold to one
        keys = [operand_key(side) if side.find(exp.Column) else constant_key(side)
                for side in sides]
        if None in keys:
            return None
        if isinstance(x, (exp.Add, exp.Mul)):
            keys.sort()  # (either order, to be safe)
        return f"{type(x).__name__}({keys[0]}, {keys[1]})"
    if isinstance(x, (exp.Left, exp.Right, exp.Substring)) and x.this.find(exp.Column) and all(
            v.find(exp.Column) is None for k, v in x.args.items() if k != "this" and v):
        # a part of a string, by constant places: never the string itself to the optimizer
        inner = operand_key(x.this)
        places = ", ".join(constant_key(v) for k, v in x.args.items() if k != "this" and v)
        return None if inner is None else f"{type(x).__name__}({inner}, {places})"
    if isinstance(x, exp.Abs):  # never its argument to the optimizer (abs(u) of an unsigned
        inner = operand_key(x.this)  # column included, checked on its plans)
        return None if inner is None else f"Abs({inner})"
    return None  # another function, CASE...: the optimizer may make it the column
    # (coalesce(x))


def constant_key(x: exp.Expression) -> str:
    """A constant by its value where it is a number (2 and 2.0 may fold to one DOUBLE), else
    its text.

    >>> import sqlglot
    >>> [constant_key(sqlglot.parse_one(t)) for t in ("CAST(2.0 AS DOUBLE)", "'a'")]
    ['2', "'a'"]
    """
    bare = x.unnest()
    while isinstance(bare, (exp.Cast, exp.TryCast, exp.Paren)):
        bare = bare.this
    value = value_of(bare)
    return f"{value[1].normalize()}" if value and value[0] == "number" else x.sql()


# Text a cast to a float reads as an infinity, and as a NaN (of the sign written: a NaN's
# sign tells two values apart in Arrow's order, ``-NaN`` below every number).
_INFINITY = re.compile(r"([+-]?)inf(?:inity)?", re.IGNORECASE)

_NAN = re.compile(r"([+-]?)nan", re.IGNORECASE)


def value_of(item: exp.Expression) -> tuple[str, object] | None:
    """A literal item (a number cast to a float too) as ``("number", Decimal)``, ``("string",
    text)``, ``("temporal", whole seconds or SQL)`` (``DATE '2020-01-01'``, which its
    optimizer folds to a value before it merges) or ``("nan", sign)`` (a NaN cast from text,
    which its optimizer merges and orders as a value, by Arrow's total order: checked on its
    plans); None otherwise.

    >>> import sqlglot
    >>> value_of(sqlglot.parse_one("CAST(2.5 AS BIGINT)")), value_of(sqlglot.parse_one("x"))
    (('number', Decimal('2')), None)
    >>> value_of(sqlglot.parse_one("DATE '1970-01-02'"))
    ('temporal', 86400)
    >>> value_of(sqlglot.parse_one("CAST('-Infinity' AS DOUBLE)"))
    ('number', Decimal('-Infinity'))
    >>> [value_of(sqlglot.parse_one(t)) for t in ("CAST(' NaN' AS REAL)", "CAST('-nan' AS DOUBLE)")]
    [('nan', '+'), ('nan', '-')]
    """
    bare = item.unnest()
    if isinstance(bare, exp.Literal) and bare.is_string:
        return "string", bare.this
    if isinstance(bare, exp.Cast) and isinstance(bare.this, exp.Literal) and bare.this.is_string \
            and bare.to.is_type(*DATE_TYPES, *TIMESTAMP_TYPES):
        seconds = whole_seconds(bare.this.this, bare.to.is_type(*DATE_TYPES))
        return "temporal", bare.sql() if seconds is None else seconds
    if isinstance(bare, exp.Cast) and bare.to.is_type(*FLOAT_TYPES) and isinstance(
            bare.this, exp.Literal) and bare.this.is_string:
        infinity = _INFINITY.fullmatch(bare.this.this.strip())
        if infinity:  # (an infinity the cast reads from text: one value in each float type)
            return "number", decimal.Decimal(f"{infinity[1]}Infinity")
        nan = _NAN.fullmatch(bare.this.this.strip())
        if nan:  # (the one NaN of its sign the cast makes, in either float type)
            return "nan", nan[1] or "+"
    if isinstance(bare, exp.Cast) and (bare.to.is_type(*FLOAT_TYPES) or (
            bare.to.is_type(*exp.DataType.INTEGER_TYPES)
            and number_family(bare.this.unnest().sql().lstrip("-")) == "other")):
        bare = bare.this  # a number cast to a float (its value, rounded where compared), a
        # whole number to an integer type (its value, or a failed query)
    elif isinstance(bare, exp.Cast) and bare.to.is_type(*exp.DataType.INTEGER_TYPES):
        value = number_value(bare.this)  # a fraction: folded toward zero before any merge
        if value is None or not value.is_finite() or abs(value) >= 2**63:
            return None
        return "number", value.to_integral_value(decimal.ROUND_DOWN)
    elif isinstance(bare, exp.Cast) and bare.to.is_type(exp.DataType.Type.DECIMAL):
        value = number_value(bare.this)  # a number the DECIMAL holds as it is: that value
        params = [q.this for q in bare.to.expressions]
        if value is None or not value.is_finite() or len(params) != 2 or not all(
                isinstance(q, exp.Literal) for q in params):
            return None
        p, s = int(params[0].this), int(params[1].this)
        if not 0 <= s <= 38 or abs(value) >= decimal.Decimal(10) ** (p - s):
            return None  # (a value the DECIMAL does not hold: the cast fails)
        with decimal.localcontext() as ctx:
            ctx.prec = 200  # (a 38-digit DECIMAL's places)
            exact = value == value.quantize(decimal.Decimal(1).scaleb(-s))
        return ("number", value) if exact else None
    value = number_value(bare)
    return None if value is None else ("number", value)


def whole_seconds(text: str, date: bool) -> int | None:
    """A DATE (``date``: its midnight, a time of day dropped as the engine drops it) or a
    TIMESTAMP without a zone as whole seconds from 1970, truncated toward zero as a column of
    seconds truncates it: two apart here are apart in any unit; None where the text is not
    one.

    >>> whole_seconds("1970-01-02 12:00:00", True), whole_seconds("1969-12-31 23:59:59.5", False)
    (86400, 0)
    """
    try:
        moment = datetime.datetime.fromisoformat(text.strip())
    except ValueError:
        return None
    if moment.tzinfo is not None:
        return None
    if date:
        moment = datetime.datetime(moment.year, moment.month, moment.day)
    since = moment - datetime.datetime(1970, 1, 1)
    micros = (since.days * 86_400 + since.seconds) * 1_000_000 + since.microseconds
    return micros // 1_000_000 if micros >= 0 else -(-micros // 1_000_000)


def number_family(number: str) -> str | None:
    """A number's type family as the engine reads its text: "float" for a fraction or an
    exponent, "other" for a whole number within BIGINT; None beyond (an unsigned BIGINT, a
    DECIMAL or a DOUBLE there) or for what is no number.

    >>> [number_family(t) for t in ("1.5", "1e3", "7", "9223372036854775808")]
    ['float', 'float', 'other', None]
    """
    if any(c in number for c in ".eE"):
        return "float"
    try:
        magnitude = abs(decimal.Decimal(number))
    except decimal.InvalidOperation:
        return None
    # (beyond BIGINT an unsigned BIGINT, a DECIMAL or a DOUBLE there)
    return "other" if magnitude < 2 ** 63 else None


def is_number(text: str) -> bool:
    """Whether ``text`` is a finite number.

    >>> is_number("-1.5e3"), is_number("NaN"), is_number("x")
    (True, False, False)
    """
    try:
        return decimal.Decimal(text).is_finite()
    except decimal.InvalidOperation:
        return False


def may_be_float(item: exp.Expression) -> bool:
    """Whether a constant item may be a DOUBLE (a float literal in it, or a cast to one),
    so that an integer or DECIMAL column beside it is compared as a DOUBLE.

    >>> import sqlglot
    >>> may_be_float(sqlglot.parse_one("2 + 0.5")), may_be_float(sqlglot.parse_one("-2"))
    (True, False)
    """
    return any(number_family(v.this) != "other" for v in item.find_all(exp.Literal)
               if not v.is_string) or any(
        c.to.is_type(*FLOAT_TYPES) for c in item.find_all(exp.Cast))


def is_null_constant(constant: exp.Expression) -> bool:
    """Whether ``constant`` is NULL, maybe cast (its simplifier folds a comparison with it).

    >>> import sqlglot
    >>> is_null_constant(sqlglot.parse_one("CAST(NULL AS INT)"))
    True
    """
    constant = constant.unnest()
    while isinstance(constant, exp.Cast):
        constant = constant.this.unnest()
    return isinstance(constant, exp.Null)


def apart(x: exp.Expression, y: exp.Expression, strings: bool) -> bool:
    """Whether two constants are surely two values in any type the engine may compare them in:
    numbers apart as DECIMALs, DOUBLEs and FLOATs, a NaN and a number or a NaN of the other
    sign, DATEs and TIMESTAMPs a second apart or more, strings that differ where ``strings``
    (against a string column).

    >>> import sqlglot
    >>> p = sqlglot.parse_one
    >>> apart(p("1.5"), p("1.50"), False), apart(p("16777217"), p("16777216"), False)
    (False, False)
    >>> apart(p("'a'"), p("'b'"), True), apart(p("2"), p("3"), False)
    (True, True)
    >>> apart(p("CAST('NaN' AS DOUBLE)"), p("CAST('inf' AS DOUBLE)"), False)
    True
    """
    vx, vy = value_of(x), value_of(y)
    if vx is None or vy is None:
        return False
    if "nan" in (vx[0], vy[0]) and {vx[0], vy[0]} <= {"nan", "number"}:
        return vx != vy
    if vx[0] != vy[0]:
        return False
    if vx[0] == "string":
        return strings and vx[1] != vy[1]
    if vx[0] == "temporal":
        return isinstance(vx[1], int) and isinstance(vy[1], int) and vx[1] != vy[1]
    return vx[1] != vy[1] and all(rounded(vx[1], f) != rounded(vy[1], f) for f in "df")


def rounded(v: decimal.Decimal, form: str) -> float:
    """``v`` as the nearest DOUBLE (``form`` "d") or FLOAT ("f"), an infinity beyond."""
    try:
        return struct.unpack(form, struct.pack(form, float(v)))[0]
    except (OverflowError, struct.error):
        return float("inf") if v > 0 else float("-inf")


def zero_signs_of(item: exp.Expression) -> set[str]:
    """The signs ``+ -`` a constant may have where it is a zero: a zero literal by its text
    (under minus signs and casts), arithmetic the optimizer folds to what may be a zero of
    either sign; empty for anything else.

    >>> import sqlglot
    >>> [sorted(zero_signs_of(sqlglot.parse_one(t))) for t in ("0.0", "-(0)", "1 - 1", "1")]
    [['+'], ['+', '-'], ['+', '-'], []]
    """
    bare, negated = item, False
    while isinstance(bare, (exp.Paren, exp.Cast, exp.Neg)):
        negated |= isinstance(bare, exp.Neg)
        bare = bare.this
    if isinstance(bare, exp.Literal):
        if not (_zero_text(bare.this) or is_zero(item)):  # (a FLOAT's too: CAST(1e-50 AS REAL))
            return set()
        return {"+", "-"} if negated or bare.this.lstrip().startswith("-") else {"+"}
    if not isinstance(bare, (exp.Binary, exp.Func)) or isinstance(bare, exp.Cast):
        return set()  # (NULL, a string, TRUE...)
    value = folded_value(item)
    if value is None or any(abs(v) < 1e-44 for v in value):
        return {"+", "-"}  # arithmetic the optimizer folds, maybe to -0.0 (-(1.0 - 1.0))
    return set()


def folded_value(x: exp.Expression) -> tuple[decimal.Decimal, float] | None:
    """A constant's value, exactly and as DOUBLE arithmetic gives it (which may underflow to
    0: ``1e-200 * 1e-200``), where it is arithmetic on numbers; None where it is anything
    else (a function, a cast to an integer or DECIMAL, a division by 0)."""
    x = x.unnest()
    if isinstance(x, exp.Cast) and x.to.is_type(*FLOAT_TYPES):
        return folded_value(x.this)
    if isinstance(x, exp.Literal) and not x.is_string:
        try:
            return decimal.Decimal(x.this), float(x.this)
        except (decimal.InvalidOperation, ValueError):
            return None
    if isinstance(x, exp.Neg):
        inner = folded_value(x.this)
        return None if inner is None else (-inner[0], -inner[1])
    if not isinstance(x, (exp.Add, exp.Sub, exp.Mul, exp.Div)):
        return None
    a, b = folded_value(x.this), folded_value(x.expression)
    if a is None or b is None or (isinstance(x, exp.Div) and (b[0] == 0 or b[1] == 0)):
        return None
    op = {exp.Add: operator.add, exp.Sub: operator.sub, exp.Mul: operator.mul,
          exp.Div: operator.truediv}[type(x)]
    with decimal.localcontext() as context:
        context.prec = 60
        exact = op(a[0], b[0])
    return exact, op(a[1], b[1])


def _zero_text(text: str) -> bool:
    try:
        return float(text) == 0
    except ValueError:
        return False
