"""The predicate tree: what SQL text and the Python builder both turn into.

Nodes are frozen dataclasses without parent pointers. Each class lists its child fields once
(``child_fields``), so walking, rebuilding and printing are written once, iteratively: sqlglot
parses a 5,000-term ``OR`` into a chain 5,000 deep, past Python's recursion limit.

The builder operators make trees the way polars and pyarrow.compute users expect:

>>> pred = (col("x") > 5) & col("s").like("ab%")
>>> pred.sql()
"x > 5 AND s LIKE 'ab%'"
>>> (~col("x").isin([1, None])).sql()
'NOT x IN (1, NULL)'

``==`` builds a comparison (as in polars); use :meth:`Node.same_as` for structural equality.
"""

from __future__ import annotations

import datetime as _dt
import decimal
import enum
from collections.abc import Callable, Iterator
from dataclasses import dataclass, fields
from typing import Any, ClassVar

import pyarrow as pa

from prunekit.expr.syntax.node_visitor import fold, has_method


class Op(enum.Enum):
    """A comparison operator; ``value`` is its SQL spelling."""

    EQ = "="
    NE = "<>"
    LT = "<"
    LE = "<="
    GT = ">"
    GE = ">="

    @property
    def flipped(self) -> Op:
        """The operator with its operands swapped: ``5 < x`` is ``x > 5``."""
        return _FLIPPED[self]


KINDS: dict[str, type] = {}  # kind -> node class, filled as the classes are made

_FLIPPED = {Op.EQ: Op.EQ, Op.NE: Op.NE, Op.LT: Op.GT, Op.LE: Op.GE, Op.GT: Op.LT, Op.GE: Op.LE}


class Node:
    """Base of every tree node. Subclasses are frozen dataclasses naming their ``child_fields``
    and their ``kind``, the ``NodeVisitor`` method they go to (``node_visitor.py``)."""

    __slots__ = ()
    child_fields: ClassVar[tuple[str, ...]] = ()
    kind: ClassVar[str] = ""
    method: ClassVar[str] = ""  # ``visit_<kind>``, spelled once per class for ``visit``

    def __init_subclass__(cls, kind: str = "", **rest) -> None:
        super().__init_subclass__(**rest)
        if kind:
            if not has_method(kind):
                raise TypeError(f"NodeVisitor has no visit_{kind} for {cls.__name__}")
            cls.kind, cls.method = kind, f"visit_{kind}"
            KINDS[kind] = cls

    # ---- generic structure -------------------------------------------------------------
    def children(self) -> tuple[Node, ...]:
        out: list[Node] = []
        for name in self.child_fields:
            value = getattr(self, name)
            out.extend(value if isinstance(value, tuple) else (value,))
        return tuple(out)

    def with_children(self, kids: tuple[Node, ...]) -> Node:
        """A copy of this node with its children replaced, in ``children()`` order."""
        changes: dict[str, Any] = {}
        i = 0
        for name in self.child_fields:
            value = getattr(self, name)
            if isinstance(value, tuple):
                changes[name] = tuple(kids[i : i + len(value)])
                i += len(value)
            else:
                changes[name] = kids[i]
                i += 1
        values = {f.name: changes.get(f.name, getattr(self, f.name)) for f in fields(self)}
        return type(self)(**values)

    def walk(self) -> Iterator[Node]:
        """Every node of the tree, parents before children, without recursion."""
        stack: list[Node] = [self]
        while stack:
            node = stack.pop()
            yield node
            stack.extend(reversed(node.children()))

    def fold(self, fn: Callable[[Node, tuple], Any]) -> Any:
        """``fold(self, fn)``: ``fn(node, values_of_children)`` bottom-up, without recursion."""
        return fold(self, fn)

    def same_as(self, other: object) -> bool:
        """Structural equality (``==`` is taken by the builder)."""
        return isinstance(other, Node) and _key(self) == _key(other)

    def sql(self) -> str:
        """Spark SQL text for this tree (identifiers quoted when needed). Raises
        UnsupportedError for a cast to a type Spark SQL cannot name (``uint8``)."""
        from prunekit.expr.syntax.render import to_sql  # sqlglot: not for every builder user

        return to_sql(self)

    def display(self) -> str:
        """SQL-like text for people: as ``sql()``, but a cast to a type Spark SQL cannot name
        shows the Arrow type (``CAST(x AS uint8)``) instead of failing."""
        from prunekit.expr.syntax.render import to_sql

        return to_sql(self, strict=False)

    def __repr__(self) -> str:
        return f"<{type(self).__name__} {self.display()}>"

    def __bool__(self) -> bool:
        raise TypeError(
            "a prunekit expression has no truth value: combine with & | ~, not and/or/not"
        )

    # ---- builder operators -------------------------------------------------------------
    def _cmp(self, op: Op, other: Any) -> Compare:
        return Compare(op, self, _node(other))

    def __eq__(self, other: Any) -> Compare:  # type: ignore[override]
        return self._cmp(Op.EQ, other)

    def __ne__(self, other: Any) -> Compare:  # type: ignore[override]
        return self._cmp(Op.NE, other)

    def __lt__(self, other: Any) -> Compare:
        return self._cmp(Op.LT, other)

    def __le__(self, other: Any) -> Compare:
        return self._cmp(Op.LE, other)

    def __gt__(self, other: Any) -> Compare:
        return self._cmp(Op.GT, other)

    def __ge__(self, other: Any) -> Compare:
        return self._cmp(Op.GE, other)

    def __and__(self, other: Any) -> And:
        return and_(self, _node(other))

    def __rand__(self, other: Any) -> And:
        return and_(_node(other), self)

    def __or__(self, other: Any) -> Or:
        return or_(self, _node(other))

    def __ror__(self, other: Any) -> Or:
        return or_(_node(other), self)

    def __invert__(self) -> Not:
        return Not(self)

    def __neg__(self) -> Neg:
        return Neg(self)

    __hash__ = object.__hash__

    def isin(self, values: Any) -> In:
        """``self IN (values...)``; ``None`` in the list is SQL NULL (then never FALSE).

        >>> col("x").isin([1, 2, None]).sql()
        'x IN (1, 2, NULL)'
        """
        return In(self, tuple(_node(v) for v in values))

    def is_null(self) -> IsNull:
        """``self IS NULL`` (never NULL itself).

        >>> col("x").is_null().sql()
        'x IS NULL'
        """
        return IsNull(self)

    def is_not_null(self) -> Not:
        """``self IS NOT NULL``.

        >>> col("x").is_not_null().sql()
        'NOT x IS NULL'
        """
        return Not(IsNull(self))

    def between(self, low: Any, high: Any) -> Between:
        """``self BETWEEN low AND high`` (both ends included).

        >>> col("x").between(1, 5).sql()
        'x BETWEEN 1 AND 5'
        """
        return Between(self, _node(low), _node(high))

    def like(self, pattern: str, escape: str = "\\") -> Like:
        """``self LIKE pattern``: ``%`` any run, ``_`` one character, ``escape`` quotes them.

        >>> col("s").like("ab!_%", escape="!").sql()
        "s LIKE 'ab!_%' ESCAPE '!'"
        """
        return Like(self, pattern, escape)

    def startswith(self, prefix: str | bytes) -> StartsWith:
        """``startswith(self, prefix)``, compared by UTF-8 bytes.

        >>> col("s").startswith("ab").sql()
        "startswith(s, 'ab')"
        """
        return StartsWith(self, _node(prefix))

    def cast(self, to: pa.DataType, safe: bool = False) -> Cast:
        """``CAST(self AS to)`` (``TRY_CAST`` when ``safe``); pruning uses it only where the
        cast preserves order.

        >>> col("x").cast(pa.float64()).sql()
        'CAST(x AS DOUBLE)'
        """
        return Cast(self, to, safe)

    def is_distinct_from(self, other: Any) -> DistinctFrom:
        """``self IS DISTINCT FROM other``: NULL-safe inequality, never NULL.

        >>> col("x").is_distinct_from(None).sql()
        'x IS DISTINCT FROM NULL'
        """
        return DistinctFrom(self, _node(other))

    def is_true(self) -> IsBool:
        """``self IS TRUE``: FALSE for NULL.

        >>> (~col("b").is_true()).sql()
        'NOT b IS TRUE'
        """
        return IsBool(self, True)

    def is_false(self) -> IsBool:
        """``self IS FALSE``: FALSE for NULL.

        >>> col("b").is_false().sql()
        'b IS FALSE'
        """
        return IsBool(self, False)


def _key(node: Node) -> tuple:
    """A hashable structural key, built iteratively."""
    out: list = []
    for n in node.walk():
        attrs = tuple(
            (f.name, repr(getattr(n, f.name))) for f in fields(n) if f.name not in n.child_fields
        )
        out.append((n.kind, attrs, len(n.children())))
    return tuple(out)


def transform(root: Node, fn: Callable[[Node], Node]) -> Node:
    """Rebuild ``root`` bottom-up, applying ``fn`` to each node after its children.

    >>> transform(col("x") > 5, lambda n: Column("y") if isinstance(n, Column) else n).sql()
    'y > 5'
    """

    def step(node: Node, kids: tuple) -> Node:
        same = all(a is b for a, b in zip(kids, node.children(), strict=True))
        return fn(node if same else node.with_children(kids))

    return fold(root, step)


# ---- node classes ----------------------------------------------------------------------
@dataclass(frozen=True, eq=False, repr=False)
class Column(Node, kind="column"):
    """A data column, or with ``fields`` a field of a struct column: ``address.city`` is
    ``Column("address", ("city",))``. ``name`` is always the top-level column."""

    name: str
    fields: tuple[str, ...] = ()

    @property
    def parts(self) -> tuple[str, ...]:
        """The whole path: ``(name, *fields)``."""
        return (self.name, *self.fields)


@dataclass(frozen=True, eq=False, repr=False)
class Literal(Node, kind="literal"):
    """A constant. ``value`` is a Python value (None = NULL); ``type`` an optional Arrow type."""

    value: Any
    type: pa.DataType | None = None


@dataclass(frozen=True, eq=False, repr=False)
class Compare(Node, kind="compare"):
    op: Op
    left: Node
    right: Node
    child_fields: ClassVar[tuple[str, ...]] = ("left", "right")


@dataclass(frozen=True, eq=False, repr=False)
class And(Node, kind="and"):
    args: tuple[Node, ...]
    child_fields: ClassVar[tuple[str, ...]] = ("args",)


@dataclass(frozen=True, eq=False, repr=False)
class Or(Node, kind="or"):
    args: tuple[Node, ...]
    child_fields: ClassVar[tuple[str, ...]] = ("args",)


@dataclass(frozen=True, eq=False, repr=False)
class Not(Node, kind="not"):
    arg: Node
    child_fields: ClassVar[tuple[str, ...]] = ("arg",)


@dataclass(frozen=True, eq=False, repr=False)
class IsNull(Node, kind="is_null"):
    arg: Node
    child_fields: ClassVar[tuple[str, ...]] = ("arg",)


@dataclass(frozen=True, eq=False, repr=False)
class IsBool(Node, kind="is_bool"):
    """``arg IS TRUE`` (value=True) or ``arg IS FALSE``; never NULL. ``IS NOT`` wraps it in Not."""

    arg: Node
    value: bool
    child_fields: ClassVar[tuple[str, ...]] = ("arg",)


@dataclass(frozen=True, eq=False, repr=False)
class DistinctFrom(Node, kind="distinct_from"):
    """``left IS DISTINCT FROM right``; ``<=>`` is its negation. Never NULL."""

    left: Node
    right: Node
    child_fields: ClassVar[tuple[str, ...]] = ("left", "right")


@dataclass(frozen=True, eq=False, repr=False)
class In(Node, kind="in"):
    arg: Node
    values: tuple[Node, ...]
    child_fields: ClassVar[tuple[str, ...]] = ("arg", "values")


@dataclass(frozen=True, eq=False, repr=False)
class Between(Node, kind="between"):
    arg: Node
    low: Node
    high: Node
    child_fields: ClassVar[tuple[str, ...]] = ("arg", "low", "high")


@dataclass(frozen=True, eq=False, repr=False)
class Like(Node, kind="like"):
    arg: Node
    pattern: str
    escape: str = "\\"
    child_fields: ClassVar[tuple[str, ...]] = ("arg",)


@dataclass(frozen=True, eq=False, repr=False)
class StartsWith(Node, kind="starts_with"):
    arg: Node
    prefix: Node
    child_fields: ClassVar[tuple[str, ...]] = ("arg", "prefix")


@dataclass(frozen=True, eq=False, repr=False)
class IsNan(Node, kind="is_nan"):
    arg: Node
    child_fields: ClassVar[tuple[str, ...]] = ("arg",)


@dataclass(frozen=True, eq=False, repr=False)
class Cast(Node, kind="cast"):
    arg: Node
    to: pa.DataType
    safe: bool = False  # TRY_CAST
    child_fields: ClassVar[tuple[str, ...]] = ("arg",)


@dataclass(frozen=True, eq=False, repr=False)
class Neg(Node, kind="neg"):
    arg: Node
    child_fields: ClassVar[tuple[str, ...]] = ("arg",)


@dataclass(frozen=True, eq=False, repr=False)
class Func(Node, kind="func"):
    """A function prunekit does not reason about: it weakens only its own leaf."""

    name: str
    args: tuple[Node, ...]
    child_fields: ClassVar[tuple[str, ...]] = ("args",)


@dataclass(frozen=True, eq=False, repr=False)
class Opaque(Node, kind="opaque"):
    """A boolean part of a predicate that prunekit does not read: a construct of another SQL
    dialect whose rows may differ from Spark's (``syntax/dialects.py``). It binds as an
    unknown leaf (any outcome is possible), named by ``why``. ``columns``, the columns it
    reads, are children so that binding still checks they exist. ``needs``: the positions in
    ``columns`` of those it is NULL without, on every row (``x + 1 > y``: both; ``x IN (1, y)``:
    x alone, as ``1 IN (1, NULL)`` is TRUE).

    >>> Opaque("s ILIKE 'ab%'", "ILIKE in duckdb", (col("s"),)).display()
    "<ILIKE in duckdb: s ILIKE 'ab%'>"
    """

    text: str  # the part as written in its dialect
    why: str
    columns: tuple[Node, ...] = ()
    needs: tuple[int, ...] = ()  # which columns (positions) make it NULL where NULL
    child_fields: ClassVar[tuple[str, ...]] = ("columns",)


# ---- constructors ----------------------------------------------------------------------
def col(name: str, *fields: str) -> Column:
    """A reference to the data column ``name`` (any characters; no quoting needed), or with
    ``fields`` to a field of a struct column, one argument per level: ``col("address",
    "city")`` is ``address.city``, while ``col("address.city")`` is a top-level column whose
    name holds a dot (backticked in SQL). No string is ever split at dots.

    >>> (col("order date") >= lit(_dt.date(1994, 1, 1))).sql()
    "`order date` >= DATE '1994-01-01'"
    >>> col("address", "city").sql(), col("a.b").sql(), col("a.b", "c").sql()
    ('address.city', '`a.b`', '`a.b`.c')
    """
    for part in (name, *fields):
        if not isinstance(part, str):
            raise TypeError(f"column name must be a string, got {type(part).__name__}")
    return Column(name, tuple(fields))


def lit(value: Any, type: pa.DataType | None = None) -> Literal:
    """A literal; ``None`` is SQL NULL. Python int, float, Decimal, str, bytes, bool, date and
    datetime are accepted; ``type`` pins an Arrow type.

    >>> lit(None).sql(), lit(float("nan")).sql()
    ('NULL', "CAST('NaN' AS DOUBLE)")
    """
    ok = (bool, int, float, decimal.Decimal, str, bytes, _dt.date, _dt.datetime)
    if value is not None and not isinstance(value, ok):
        raise TypeError(f"unsupported literal {value!r} of type {value.__class__.__name__}")
    return Literal(value, type)


def isnan(arg: Any) -> IsNan:
    """``isnan(arg)``: TRUE for NaN, FALSE otherwise, FALSE for NULL (Spark).

    >>> isnan(col("f")).sql()
    'isnan(f)'
    """
    return IsNan(_node(arg))


def and_(*args: Node) -> And:
    """An n-ary AND, flattening nested ANDs so long chains stay shallow.

    >>> and_(col("a") > 1, and_(col("b") > 2, col("c") > 3)).sql()
    'a > 1 AND b > 2 AND c > 3'
    """
    flat: list[Node] = []
    for a in args:
        flat.extend(a.args if isinstance(a, And) else (a,))
    return And(tuple(flat))


def or_(*args: Node) -> Or:
    """An n-ary OR, flattening nested ORs.

    >>> or_(col("a") > 1, or_(col("b") > 2)).sql()
    'a > 1 OR b > 2'
    """
    flat: list[Node] = []
    for a in args:
        flat.extend(a.args if isinstance(a, Or) else (a,))
    return Or(tuple(flat))


def _node(value: Any) -> Node:
    return value if isinstance(value, Node) else lit(value)
