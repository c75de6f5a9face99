"""The bound vocabulary: predicate leaves after names are resolved and literals coerced.

Before binding, a tree holds names and Python values (``nodes.py``); after, each leaf knows its
column's Arrow type and *domain* (how its statistics are compared in a kernel) and holds
literals already placed in that domain (``literals.py``). ``rewrite.py`` turns these into the
statistics program, one small function per class.

Domains: ``int`` (signed integers, dates, timestamps, decimals of precision <= 18 as unscaled
int64), ``uint`` (uint64), ``float``, ``code`` (strings, binary and wide decimals, compared
through order-preserving integer codes assigned per batch), ``bool`` (0/1).
"""

from __future__ import annotations

from dataclasses import dataclass

import pyarrow as pa


@dataclass(frozen=True)
class BColumn:
    """A column reference, possibly through an order-preserving cast.

    ``convert`` is how the kernel maps the column's statistic values into the compared domain:
    ``()`` as is, ``("tofloat",)`` integer to DOUBLE, ``("floordiv", k)`` timestamp to date,
    ``("mul", k)`` a decimal rescaled to a larger scale (for comparing two decimal columns),
    ``("tofloat32",)`` integer to FLOAT (rounded to nearest, as Spark's legacy mode casts),
    ``("affine", steps)`` integer arithmetic with constants, each step ``("add" | "mul", c,
    tmin, tmax)`` in a result type of range [tmin, tmax] (``arith.arith``).
    ``type`` is the type literals are coerced to (the cast's target type).
    """

    name: str
    stats_type: pa.DataType  # the type of its min/max statistics (the data column's type)
    type: pa.DataType
    domain: str
    convert: tuple = ()

    def sql(self) -> str:
        from .render import key_sql  # name is a leaf key (expr/paths.py): address.city

        return key_sql(self.name)

    def __repr__(self) -> str:  # short: doctests and explain() show bound trees
        return self.sql()

    def label(self) -> str:
        """How explain() shows the column with its conversion: ``tofloat(x)``, ``(x + 5) * -2``.
        """
        if not self.convert:
            return self.sql()
        if self.convert[0] != "affine":
            return f"{self.convert[0]}({self.sql()})"
        text = self.sql()
        for op, c, _, _ in self.convert[1]:
            if op == "add":
                text = f"{text} {'+' if c >= 0 else '-'} {abs(c)}"
            else:
                text = f"({text}) * {c}" if " " in text else f"{text} * {c}"
        # DECIMAL steps act on unscaled values: (1 - q) on DECIMAL(15, 2) is q * -1 + 100.
        return f"unscaled({text})" if pa.types.is_decimal(self.type) else text


class _Expression:
    """What a computed operand shares with a column for the leaves: its statistics are of its
    own type, and it shows as its label."""

    @property
    def stats_type(self) -> pa.DataType:
        return self.type

    def sql(self) -> str:
        return self.label()


@dataclass(frozen=True)
class BSum(_Expression):
    """``a + b`` (``sign`` 1) or ``a - b`` (-1) of two signed integer columns, or of two
    DECIMAL operands at one scale (unscaled), in Spark's result type ``type``; leaves use it
    like a column (``rewrite.Rewriter.facts``)."""

    a: object
    b: object
    sign: int
    type: pa.DataType
    domain: str = "int"
    convert: tuple = ()

    @property
    def name(self) -> str:  # literals compared with it are integers: no ranking by column
        return self.a.name

    def label(self) -> str:
        return f"({self.a.label()} {'+' if self.sign > 0 else '-'} {self.b.label()})"


@dataclass(frozen=True)
class BProd(_Expression):
    """``a * b`` of two integer columns, or of two DECIMAL operands on unscaled values (the
    product of unscaled values is the result's unscaled value, ``arith._decimal_pair``), in
    Spark's result type ``type``; leaves use it like a column (``rewrite.Rewriter.facts``)."""

    a: object
    b: object
    type: pa.DataType
    domain: str = "int"
    convert: tuple = ()

    @property
    def name(self) -> str:  # literals compared with it are unscaled integers
        return self.a.name

    def label(self) -> str:
        return f"({self.a.label()} * {self.b.label()})"  # unscaled(...) marks DECIMAL steps


@dataclass(frozen=True)
class BFloatOp(_Expression):
    """``a op b`` (op ``+``, ``-`` or ``*``) in DOUBLE, where each side is a DOUBLE column, a
    float constant or another BFloatOp; leaves use it like a float column
    (``rewrite.Rewriter.facts``)."""

    op: str
    a: object
    b: object
    type: pa.DataType = pa.float64()
    domain: str = "float"
    convert: tuple = ()

    @property
    def name(self) -> str:  # a float column's: literals compared with it are floats
        for side in (self.a, self.b):
            if isinstance(side, BFloatOp) or isinstance(side, BColumn) and not side.convert:
                return side.name
        raise ValueError("a BFloatOp has a float column")

    def label(self) -> str:
        def side(x: object) -> str:
            return repr(x) if isinstance(x, float) else x.label()

        return f"({side(self.a)} {self.op} {side(self.b)})"


@dataclass(frozen=True)
class BCalendar(_Expression):
    """``month(d)``, ``day(d)``, ``hour(t)``, ``minute(t)`` or ``second(t)`` (``field``) of
    ``col``: a day count (a DATE, or a timestamp through its UTC day) when ``per_day`` is 1,
    else a wall time in ticks, ``per_day`` a day (``functions.dates``); leaves use it like an
    INT column (``rewrite.Rewriter.facts``)."""

    col: BColumn
    field: str
    type: pa.DataType = pa.int32()
    domain: str = "int"
    convert: tuple = ("calendar",)  # not a plain column: no IN-list coverage, no equalities
    per_day: int = 1

    @property
    def name(self) -> str:
        return self.col.name

    def label(self) -> str:
        return f"{self.field}({self.col.sql()})"


@dataclass(frozen=True)
class BRemainder(_Expression):
    """``x % divisor`` (Java's remainder, x's sign) or ``pmod(x, divisor)`` (``floor``: a
    positive divisor, the remainder in ``[0, divisor)``) of an integer column ``col``; leaves use
    it like a column of ``type`` (``remainders.remainder_bounds`` has its bounds)."""

    col: BColumn
    divisor: int
    floor: bool
    type: pa.DataType
    domain: str = "int"
    convert: tuple = ("remainder",)  # not a plain column: no IN-list coverage, no equalities

    @property
    def name(self) -> str:
        return self.col.name

    def label(self) -> str:
        inner = self.col.sql()
        return f"pmod({inner}, {self.divisor})" if self.floor else f"({inner} % {self.divisor})"


@dataclass(frozen=True)
class Const:
    """TRUE, FALSE or NULL (None) for every row."""

    value: bool | None


@dataclass(frozen=True)
class Opaque:
    """Anything at all: unknown functions, non-monotonic casts. ``why`` is shown by explain."""

    why: str


@dataclass(frozen=True)
class Bound:
    """``col op value`` with op one of lt, le, gt, ge and value a non-NaN domain value."""

    col: BColumn
    op: str
    value: object


@dataclass(frozen=True)
class InRange:
    """``first <= col <= last`` (equality when first == last)."""

    col: BColumn
    first: object
    last: object


@dataclass(frozen=True)
class NonNull:
    """Every non-NULL row has truth ``truth`` (a literal beyond the type's range); NULL rows
    give NULL."""

    col: BColumn
    truth: bool


@dataclass(frozen=True)
class NanEq:
    """``col = NaN``: TRUE exactly for NaN rows, NULL for NULL rows."""

    col: BColumn


@dataclass(frozen=True)
class IsNullLeaf:
    col: BColumn


@dataclass(frozen=True)
class IsNanLeaf:
    """``isnan(col)``: never NULL (``isnan(NULL)`` is FALSE in Spark)."""

    col: BColumn


@dataclass(frozen=True)
class ColCmp:
    """``a op b`` for two columns in one domain; op one of lt, le, eq."""

    a: BColumn
    op: str
    b: BColumn


@dataclass(frozen=True)
class InList:
    """``col IN (values)``: values sorted, distinct, non-NaN; ``nan``/``null`` mark NaN or NULL
    among the listed values."""

    col: BColumn
    values: tuple
    nan: bool
    null: bool


@dataclass(frozen=True)
class Prefix:
    """``col`` starts with ``prefix`` (bytes). ``exact`` False: the predicate implies the
    prefix but is not implied by it (``LIKE 'ab%c'``)."""

    col: BColumn
    prefix: bytes
    exact: bool


@dataclass(frozen=True)
class Pattern:
    """``col LIKE pattern`` beyond a plain prefix (``expr/likes.py``): every match starts with
    ``prefix`` and is at least ``floor`` (bytes); ``regex`` decides one known value;
    ``text`` is the pattern as written, for explain()."""

    col: BColumn
    prefix: bytes
    floor: bytes
    regex: str
    text: str


@dataclass(frozen=True)
class BNot:
    arg: object


@dataclass(frozen=True)
class BAnd:
    args: tuple


@dataclass(frozen=True)
class BOr:
    args: tuple


@dataclass(frozen=True)
class BIsBool:
    """``arg IS TRUE`` (value True) or ``arg IS FALSE``."""

    arg: object
    value: bool


@dataclass(frozen=True)
class Widen:
    """``arg``, except that where ``guard`` may be TRUE anything is possible (``-x`` at the
    integer minimum, where negation overflows)."""

    arg: object
    guard: object


@dataclass(frozen=True)
class Either:
    """One of ``args``, depending on the engine's settings: Spark's ANSI mode (the default
    since 4.0) and its legacy mode read some literals and casts differently (``float_col =
    16777217`` compares in DOUBLE under ANSI, in FLOAT otherwise). Whatever any reading allows
    is possible, so the answer is sound under every one."""

    args: tuple


@dataclass(frozen=True)
class Rewritten:
    """``arg``, a predicate on a column that a function of it was rewritten into
    (``functions/``); ``text`` is what explain() shows: the original and any assumption."""

    arg: object
    text: str


def children(x: object) -> tuple:
    """The operands of a combinator (``()`` for a leaf)."""
    if isinstance(x, (BAnd, BOr, Either)):
        return x.args
    if isinstance(x, (BNot, BIsBool, Rewritten)):
        return (x.arg,)
    if isinstance(x, Widen):
        return (x.arg, x.guard)
    return ()


LEAVES = (Const, Opaque, Bound, InRange, NonNull, NanEq, IsNullLeaf, IsNanLeaf, ColCmp, InList,
          Prefix, Pattern)
COMBINATORS = (BNot, BAnd, BOr, BIsBool, Widen, Either, Rewritten)
