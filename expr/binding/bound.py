"""The bound vocabulary: predicate leaves after names are resolved and literals coerced.

Before binding, a tree holds names and Python values (``nodes.py``); after, each leaf knows its
column's Arrow type and *domain* (how its statistics are compared in a kernel) and holds
literals already placed in that domain (``literals.py``). ``rewrite.py`` turns these into the
statistics program.

Every class derives from ``BoundNode`` and is named ``B`` and what it is: *operands*
(``BOperand``: ``BColumn``, sums, products, calendar fields) are values; *leaves* (``BLeaf``)
are predicates their operands' statistics decide; *combinators* (``BCombinator``) are
predicates over predicates. Each leaf and combinator has a *kind*, and every walk over the tree
is a ``BoundVisitor`` with one method per kind, run by ``visit``: adding a kind without a
method in the visitor fails this module's import, and a visitor without it cannot be made.

Domains: ``int`` (signed integers, dates, timestamps, decimals of precision <= 18 as unscaled
int64), ``uint`` (uint64), ``float``, ``code`` (strings, binary and wide decimals, compared
through order-preserving integer codes assigned per batch), ``bool`` (0/1).
"""

from __future__ import annotations

from abc import ABC, abstractmethod, update_abstractmethods
from dataclasses import dataclass, field
from typing import ClassVar, Generic, TypeVar

import pyarrow as pa

T = TypeVar("T")


class BoundNode:
    """The base of every class of the bound tree. ``BOperand``: a value a leaf reads (a column,
    a sum, a calendar field); ``BLeaf``: a predicate its statistics decide alone;
    ``BCombinator``: a predicate over predicates. Every class is named ``B`` and what it is."""

    __slots__ = ()

    def children(self) -> tuple:
        """The predicates this one combines, in the order visitors get their results."""
        return ()


class BOperand(BoundNode):
    """A value the leaves compare (``BColumn`` and the computed operands above)."""

    __slots__ = ()


class BPredicate(BoundNode):
    """A node of the predicate tree; ``kind`` names the ``BoundVisitor`` method it goes to
    (``visit_<kind>``), given as ``class BX(BLeaf, kind="x")``."""

    __slots__ = ()
    kind: ClassVar[str] = ""
    method: ClassVar[str] = ""  # ``visit_<kind>``, spelled once per class for ``visit``
    combines: ClassVar[bool] = False  # a combinator: its method gets its children's results

    def __init_subclass__(cls, kind: str = "", **rest) -> None:
        super().__init_subclass__(**rest)
        if kind:  # every kind has its visitor method before it can exist
            base = LeafVisitor if issubclass(cls, BLeaf) else BoundVisitor
            if not getattr(getattr(base, f"visit_{kind}", None), "__isabstractmethod__", False):
                raise TypeError(f"{base.__name__} has no visit_{kind} for {cls.__name__}")
            cls.kind, cls.method = kind, f"visit_{kind}"
            cls.combines = issubclass(cls, BCombinator)
            KINDS[kind] = cls


class BLeaf(BPredicate):
    """A predicate the statistics of its operands decide (``leaves.py`` has one rule each)."""

    __slots__ = ()


class BCombinator(BPredicate):
    """A predicate over predicates; ``children()`` lists them."""

    __slots__ = ()


KINDS: dict[str, type] = {}  # kind -> class, filled as the classes below are made


class LeafVisitor(ABC, Generic[T]):
    """One method per leaf kind, ``visit_<kind>(leaf)``; ``BoundVisitor`` adds the
    combinators. Every method is abstract: a visitor that misses a kind cannot be made
    (``TypeError`` naming the method), and a kind with no method here fails this module's
    import, so a new kind is handled by every walker before anything runs."""

    @abstractmethod
    def visit_const(self, leaf: BConst) -> T: ...
    @abstractmethod
    def visit_opaque(self, leaf: BOpaque) -> T: ...
    @abstractmethod
    def visit_compare(self, leaf: BCompare) -> T: ...
    @abstractmethod
    def visit_in_range(self, leaf: BInRange) -> T: ...
    @abstractmethod
    def visit_non_null(self, leaf: BNonNull) -> T: ...
    @abstractmethod
    def visit_nan_eq(self, leaf: BNanEq) -> T: ...
    @abstractmethod
    def visit_is_null(self, leaf: BIsNull) -> T: ...
    @abstractmethod
    def visit_is_nan(self, leaf: BIsNan) -> T: ...
    @abstractmethod
    def visit_column_compare(self, leaf: BColumnCompare) -> T: ...
    @abstractmethod
    def visit_in_list(self, leaf: BInList) -> T: ...
    @abstractmethod
    def visit_prefix(self, leaf: BPrefix) -> T: ...
    @abstractmethod
    def visit_pattern(self, leaf: BPattern) -> T: ...


class BoundVisitor(LeafVisitor[T]):
    """One method per kind of bound predicate, as ``visit`` calls them: a leaf's gets the leaf;
    a combinator's gets the node and its children's results, in ``children()`` order.

    A visitor to which every leaf is alike derives from ``EveryLeafAlike`` instead of
    writing one method per leaf kind; it still writes one per combinator.

    >>> import pyarrow as pa
    >>> x = BColumn("x", pa.int64(), pa.int64(), "int")
    >>> class Depth(EveryLeafAlike):
    ...     def visit_leaf(self, leaf): return 1
    ...     def deeper(self, node, results): return 1 + max(results)
    ...     visit_not = visit_and = visit_or = visit_is_bool = visit_widen = deeper
    ...     visit_either = visit_rewritten = deeper
    >>> visit(BAnd((BCompare(x, "gt", 5), BNot(BIsNull(x)))), Depth())
    3
    """

    @abstractmethod
    def visit_not(self, node: BNot, results: list[T]) -> T: ...
    @abstractmethod
    def visit_and(self, node: BAnd, results: list[T]) -> T: ...
    @abstractmethod
    def visit_or(self, node: BOr, results: list[T]) -> T: ...
    @abstractmethod
    def visit_is_bool(self, node: BIsBool, results: list[T]) -> T: ...
    @abstractmethod
    def visit_widen(self, node: BWiden, results: list[T]) -> T: ...
    @abstractmethod
    def visit_either(self, node: BEither, results: list[T]) -> T: ...
    @abstractmethod
    def visit_rewritten(self, node: BRewritten, results: list[T]) -> T: ...


@dataclass(frozen=True)
class BColumn(BOperand):
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
        from prunekit.expr.syntax.render import key_sql  # name is a leaf key: address.city

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


class _Expression(BOperand):
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
class BConst(BLeaf, kind="const"):
    """TRUE, FALSE or NULL (None) for every row."""

    value: bool | None


@dataclass(frozen=True)
class BOpaque(BLeaf, kind="opaque"):
    """Anything at all: unknown functions, non-monotonic casts. ``why`` is shown by explain.
    ``needs``: columns without which it is NULL (a comparison of casts or sums of them is
    NULL on every row where one of them is NULL), so it can be TRUE or FALSE only where each
    has a value; empty, anything on every row."""

    why: str
    needs: tuple = field(default=(), repr=False)


@dataclass(frozen=True)
class BCompare(BLeaf, kind="compare"):
    """``col op value`` with op one of lt, le, gt, ge and value a non-NaN domain value."""

    col: BColumn
    op: str
    value: object


@dataclass(frozen=True)
class BInRange(BLeaf, kind="in_range"):
    """``first <= col <= last`` (equality when first == last)."""

    col: BColumn
    first: object
    last: object


@dataclass(frozen=True)
class BNonNull(BLeaf, kind="non_null"):
    """Every non-NULL row has truth ``truth`` (a literal beyond the type's range); NULL rows
    give NULL."""

    col: BColumn
    truth: bool


@dataclass(frozen=True)
class BNanEq(BLeaf, kind="nan_eq"):
    """``col = NaN``: TRUE exactly for NaN rows, NULL for NULL rows."""

    col: BColumn


@dataclass(frozen=True)
class BIsNull(BLeaf, kind="is_null"):
    """``col IS NULL``: never NULL."""

    col: BColumn


@dataclass(frozen=True)
class BIsNan(BLeaf, kind="is_nan"):
    """``isnan(col)``: never NULL (``isnan(NULL)`` is FALSE in Spark)."""

    col: BColumn


@dataclass(frozen=True)
class BColumnCompare(BLeaf, kind="column_compare"):
    """``a op b`` for two columns in one domain; op one of lt, le, eq."""

    a: BColumn
    op: str
    b: BColumn


@dataclass(frozen=True)
class BInList(BLeaf, kind="in_list"):
    """``col IN (values)``: values sorted, distinct, non-NaN; ``nan``/``null`` mark NaN or NULL
    among the listed values."""

    col: BColumn
    values: tuple
    nan: bool
    null: bool


@dataclass(frozen=True)
class BPrefix(BLeaf, kind="prefix"):
    """``col`` starts with ``prefix`` (bytes). ``exact`` False: the predicate implies the
    prefix but is not implied by it (``LIKE 'ab%c'``)."""

    col: BColumn
    prefix: bytes
    exact: bool


@dataclass(frozen=True)
class BPattern(BLeaf, kind="pattern"):
    """``col LIKE pattern`` beyond a plain prefix (``expr/binding/likes.py``): every match starts
    with ``prefix`` and is at least ``floor`` (bytes); ``regex`` decides one known value; ``text``
    is the pattern as written, for explain()."""

    col: BColumn
    prefix: bytes
    floor: bytes
    regex: str
    text: str


@dataclass(frozen=True)
class BNot(BCombinator, kind="not"):
    arg: object

    def children(self) -> tuple:
        return (self.arg,)


@dataclass(frozen=True)
class BAnd(BCombinator, kind="and"):
    args: tuple

    def children(self) -> tuple:
        return self.args


@dataclass(frozen=True)
class BOr(BCombinator, kind="or"):
    args: tuple

    def children(self) -> tuple:
        return self.args


@dataclass(frozen=True)
class BIsBool(BCombinator, kind="is_bool"):
    """``arg IS TRUE`` (value True) or ``arg IS FALSE``."""

    arg: object
    value: bool

    def children(self) -> tuple:
        return (self.arg,)


@dataclass(frozen=True)
class BWiden(BCombinator, kind="widen"):
    """``arg``, except that where ``guard`` may be TRUE anything is possible (``-x`` at the
    integer minimum, where negation overflows)."""

    arg: object
    guard: object

    def children(self) -> tuple:
        return (self.arg, self.guard)


@dataclass(frozen=True)
class BEither(BCombinator, kind="either"):
    """One of ``args``, depending on the engine's settings: Spark's ANSI mode (the default
    since 4.0) and its legacy mode read some literals and casts differently (``float_col =
    16777217`` compares in DOUBLE under ANSI, in FLOAT otherwise). Whatever any reading allows
    is possible, so the answer is sound under every one."""

    args: tuple

    def children(self) -> tuple:
        return self.args


@dataclass(frozen=True)
class BRewritten(BCombinator, kind="rewritten"):
    """``arg``, a predicate on a column that a function of it (``functions/``) or an empty
    range of bounds (``x BETWEEN 5 AND 3``) was rewritten into; ``text`` is what explain()
    shows: the original and any assumption."""

    arg: object
    text: str

    def children(self) -> tuple:
        return (self.arg,)


class EveryLeafAlike(BoundVisitor[T]):
    """A visitor to which every leaf kind is alike (``visit_leaf``): a new leaf kind needs
    nothing here, a new combinator kind still needs its method in every visitor. A walker
    whose answer depends on the leaf's kind derives from ``BoundVisitor``."""

    @abstractmethod
    def visit_leaf(self, leaf: BLeaf) -> T: ...


def _to_leaf(kind: str):
    def method(self, leaf):
        return self.visit_leaf(leaf)

    method.__name__ = f"visit_{kind}"
    return method


for _kind, _cls in KINDS.items():
    if issubclass(_cls, BLeaf):
        setattr(EveryLeafAlike, f"visit_{_kind}", _to_leaf(_kind))
update_abstractmethods(EveryLeafAlike)
del _kind, _cls


def visit(root: BPredicate, visitor: LeafVisitor[T]) -> T:
    """``visitor``'s result for ``root``: each node's method runs once per node (a subtree
    shared by two parents is visited once), after its children's. An explicit stack, not
    recursion: trees run 10,000 deep."""
    done: dict[int, object] = {}
    stack: list[tuple[object, bool]] = [(root, False)]
    while stack:
        x, expanded = stack.pop()
        if id(x) in done:
            continue
        kids = x.children()
        if kids and not expanded:
            stack.append((x, True))
            stack.extend((k, False) for k in kids)  # the last child first, as ever
            continue
        method = getattr(visitor, x.method)
        done[id(x)] = method(x, [done[id(k)] for k in kids]) if x.combines else method(x)
    return done[id(root)]
