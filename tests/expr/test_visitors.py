"""Every walk over a tree is a visitor with one method per kind (``expr/binding/bound.py``,
``expr/syntax/node_visitor.py``): a kind added without its method fails at import, and a visitor
that misses a kind is found here even if no other test makes one."""

from __future__ import annotations

import importlib
import inspect

import pyarrow as pa
import pytest

from prunekit.expr.binding import bound as b
from prunekit.expr.syntax import nodes as n
from prunekit.expr.syntax.node_visitor import NodeVisitor
from tests.test_layering import modules

# Test helpers that walk trees too: the row-by-row reference and the JSON the engines read.
SUPPORT = ("tests.support.reference", "tests.support.differential")


def _visitors(base: type) -> list[type]:
    """Every class below ``base`` that nothing derives from: the visitors that are made."""
    for name in modules():
        if not name.startswith("prunekit.spark_glue"):  # imports pyspark; it walks no tree
            importlib.import_module(name)
    for name in SUPPORT:
        importlib.import_module(name)
    found, stack = [], [base]
    while stack:
        cls = stack.pop()
        below = cls.__subclasses__()
        stack.extend(below)
        if not below and cls is not base:
            found.append(cls)
    return found


@pytest.mark.parametrize("base", [b.LeafVisitor, NodeVisitor], ids=["bound", "nodes"])
def test_every_visitor_has_a_method_for_every_kind(base):
    visitors = _visitors(base)
    assert len(visitors) >= (6 if base is b.LeafVisitor else 3), visitors
    missing = {f"{v.__module__}.{v.__qualname__}": sorted(v.__abstractmethods__)
               for v in visitors if inspect.isabstract(v)}
    assert missing == {}


def test_every_kind_has_its_method_where_every_leaf_is_alike():
    assert {f"visit_{k}" for k in b.KINDS} <= {
        m for m in dir(b.EveryLeafAlike) if m.startswith("visit_")}
    assert b.EveryLeafAlike.__abstractmethods__ == {"visit_leaf"} | {
        f"visit_{k}" for k, c in b.KINDS.items() if issubclass(c, b.BCombinator)}


def test_a_kind_without_its_visitor_method_cannot_be_made():
    with pytest.raises(TypeError, match="LeafVisitor has no visit_between_dates for BBetween"):
        class BBetween(b.BLeaf, kind="between_dates"):
            pass
    with pytest.raises(TypeError, match="BoundVisitor has no visit_xor for BXor"):
        class BXor(b.BCombinator, kind="xor"):
            pass
    with pytest.raises(TypeError, match="NodeVisitor has no visit_xor for Xor"):
        class Xor(n.Node, kind="xor"):
            pass
    assert "between_dates" not in b.KINDS and "xor" not in n.KINDS


def test_a_visitor_that_misses_a_kind_cannot_be_made():
    class OnlyCompare(b.LeafVisitor):
        def visit_compare(self, leaf):
            return leaf.op

    with pytest.raises(TypeError, match="visit_in_list"):
        OnlyCompare()


def test_a_deep_tree_is_visited_without_recursion():
    x = b.BColumn("x", pa.int64(), pa.int64(), "int")
    tree: b.BPredicate = b.BCompare(x, "gt", 0)
    for _ in range(20_000):
        tree = b.BNot(tree)

    class Depth(b.EveryLeafAlike):
        def visit_leaf(self, leaf):
            return 0

        def deeper(self, node, results):
            return 1 + results[0]

        visit_not = visit_and = visit_or = visit_is_bool = visit_widen = deeper
        visit_either = visit_rewritten = deeper

    assert b.visit(tree, Depth()) == 20_000
    chain = n.col("x") > 0
    for _ in range(20_000):
        chain = n.Not(chain)
    assert chain.sql().count("NOT") == 20_000
