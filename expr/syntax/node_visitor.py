"""The visitor over the predicate tree of ``nodes.py``: one method per node kind, run bottom-up
by ``visit`` over ``fold`` (the walk every bottom-up pass over a tree uses). Apart from
``nodes.py`` so that rendering (``render.py``), which ``Node.sql()`` calls, is a visitor too
without an import loop.

Each node class names its kind (``class Compare(Node, kind="compare")``); ``nodes.py`` checks
at import that every kind has its method here, and a visitor that misses one cannot be made
(``TypeError`` naming the method). A method gets the node and its children's results, in
``children()`` order (``()`` for a column or a literal).

>>> from prunekit.expr.syntax.nodes import col
>>> class Depth(NodeVisitor):
...     def visit_node(self, node, results): return 1 + max(results, default=0)
...     visit_column = visit_literal = visit_compare = visit_and = visit_or = visit_node
...     visit_not = visit_is_null = visit_is_bool = visit_distinct_from = visit_node
...     visit_in = visit_between = visit_like = visit_starts_with = visit_is_nan = visit_node
...     visit_cast = visit_neg = visit_func = visit_opaque = visit_node
>>> visit((col("x") > 5) & ~col("s").is_null(), Depth())
4
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Callable
from typing import Any, Generic, TypeVar

T = TypeVar("T")


class NodeVisitor(ABC, Generic[T]):
    """One method per node kind of ``nodes.py``; see the module docstring."""

    @abstractmethod
    def visit_column(self, node, results: tuple) -> T: ...
    @abstractmethod
    def visit_literal(self, node, results: tuple) -> T: ...
    @abstractmethod
    def visit_compare(self, node, results: tuple) -> T: ...
    @abstractmethod
    def visit_and(self, node, results: tuple) -> T: ...
    @abstractmethod
    def visit_or(self, node, results: tuple) -> T: ...
    @abstractmethod
    def visit_not(self, node, results: tuple) -> T: ...
    @abstractmethod
    def visit_is_null(self, node, results: tuple) -> T: ...
    @abstractmethod
    def visit_is_bool(self, node, results: tuple) -> T: ...
    @abstractmethod
    def visit_distinct_from(self, node, results: tuple) -> T: ...
    @abstractmethod
    def visit_in(self, node, results: tuple) -> T: ...
    @abstractmethod
    def visit_between(self, node, results: tuple) -> T: ...
    @abstractmethod
    def visit_like(self, node, results: tuple) -> T: ...
    @abstractmethod
    def visit_starts_with(self, node, results: tuple) -> T: ...
    @abstractmethod
    def visit_is_nan(self, node, results: tuple) -> T: ...
    @abstractmethod
    def visit_cast(self, node, results: tuple) -> T: ...
    @abstractmethod
    def visit_neg(self, node, results: tuple) -> T: ...
    @abstractmethod
    def visit_func(self, node, results: tuple) -> T: ...
    @abstractmethod
    def visit_opaque(self, node, results: tuple) -> T: ...


def has_method(kind: str) -> bool:
    """Whether ``NodeVisitor`` declares the method of ``kind`` (``nodes.py`` asks at import)."""
    return getattr(getattr(NodeVisitor, f"visit_{kind}", None), "__isabstractmethod__", False)


def fold(root: Any, fn: Callable[[Any, tuple], Any]) -> Any:
    """Compute ``fn(node, values_of_children)`` bottom-up over the tree, without recursion.

    >>> from prunekit.expr.syntax.nodes import col
    >>> fold(col("a") > 1, lambda n, kids: 1 + sum(kids))
    3
    """
    results: list[Any] = []
    stack: list[tuple[Any, bool]] = [(root, False)]
    while stack:
        node, expanded = stack.pop()
        kids = node.children()
        if not kids:
            results.append(fn(node, ()))
        elif not expanded:
            stack.append((node, True))
            stack.extend((k, False) for k in reversed(kids))
        else:
            values = tuple(results[len(results) - len(kids) :])
            del results[len(results) - len(kids) :]
            results.append(fn(node, values))
    return results[0]


def visit(root: Any, visitor: NodeVisitor[T]) -> T:
    """``visitor``'s result for ``root``: each node's method after its children's (``fold``)."""
    return fold(root, lambda node, values: getattr(visitor, node.method)(node, values))
