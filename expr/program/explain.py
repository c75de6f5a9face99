"""Readable text for a rewritten predicate: the bound tree, and for each leaf the statistics
conditions under which it may be TRUE, FALSE or NULL.

>>> import pyarrow as pa
>>> from prunekit.expr.binding.bind import bind
>>> from prunekit.expr.program.rewrite import Rewriter
>>> from prunekit.expr.syntax.sql import parse
>>> r = Rewriter()
>>> _ = r.program(bind(parse("x > 5"), pa.schema([("x", pa.int64())])))
>>> print(explain_tree(r, "x > 5"))   # doctest: +NORMALIZE_WHITESPACE
predicate: x > 5
x > 5
    may be TRUE:  x has values AND (NOT x.max known OR x.max > 5)
    may be FALSE: x has values AND (NOT x.min known OR x.min <= 5)
    may be NULL:  x has nulls
outcome: NONE_MATCH when row_count = 0 or the root cannot be TRUE; ALL_MATCH when it can be
neither FALSE nor NULL; otherwise MAYBE_MATCH.
"""

from __future__ import annotations

from dataclasses import dataclass

from prunekit.expr.binding import bound as b
from prunekit.expr.syntax.render import domain_literal_sql, key_sql, literal_sql

_SYMBOL = {"lt": "<", "le": "<=", "gt": ">", "ge": ">=", "eq": "=", "ne": "<>"}


def leaf_sql(leaf: b.BLeaf) -> str:
    """A short SQL-like spelling of a bound leaf.

    >>> import pyarrow as pa
    >>> x = b.BColumn("x", pa.int64(), pa.int64(), "int")
    >>> leaf_sql(b.BInRange(x, 2, 5)), leaf_sql(b.BInList(x, (1, 2), nan=False, null=True))
    ('x BETWEEN 2 AND 5', 'x IN (1, 2, NULL)')
    """
    return b.visit(leaf, _LEAF_SQL)


class _LeafSql(b.LeafVisitor[str]):
    def visit_const(self, leaf: b.BConst) -> str:
        return {True: "TRUE", False: "FALSE", None: "NULL"}[leaf.value]

    def visit_opaque(self, leaf: b.BOpaque) -> str:
        if leaf.needs:
            names = " or ".join(c.label() for c in leaf.needs)
            return f"<NULL where {names} is NULL, else anything: {leaf.why}>"
        return f"<anything: {leaf.why}>"

    def visit_compare(self, leaf: b.BCompare) -> str:
        return f"{leaf.col.label()} {_SYMBOL[leaf.op]} {_literal(leaf.value, leaf.col)}"

    def visit_in_range(self, leaf: b.BInRange) -> str:
        first, last = _literal(leaf.first, leaf.col), _literal(leaf.last, leaf.col)
        return (f"{leaf.col.label()} = {first}" if leaf.first == leaf.last
                else f"{leaf.col.label()} BETWEEN {first} AND {last}")

    def visit_non_null(self, leaf: b.BNonNull) -> str:
        return (f"{leaf.col.label()} IS NOT NULL AND {'TRUE' if leaf.truth else 'FALSE'}  "
                "(whatever the value)")

    def visit_nan_eq(self, leaf: b.BNanEq) -> str:
        return f"{leaf.col.label()} = NaN"

    def visit_is_null(self, leaf: b.BIsNull) -> str:
        return f"{leaf.col.label()} IS NULL"

    def visit_is_nan(self, leaf: b.BIsNan) -> str:
        return f"isnan({leaf.col.label()})"

    def visit_column_compare(self, leaf: b.BColumnCompare) -> str:
        return f"{key_sql(leaf.a.name)} {_SYMBOL[leaf.op]} {key_sql(leaf.b.name)}"

    def visit_in_list(self, leaf: b.BInList) -> str:
        shown = ", ".join(_literal(v, leaf.col) for v in leaf.values[:8])
        more = f", ... ({len(leaf.values)} values)" if len(leaf.values) > 8 else ""
        extra = (", NaN" if leaf.nan else "") + (", NULL" if leaf.null else "")
        return f"{leaf.col.label()} IN ({shown}{more}{extra})"

    def visit_prefix(self, leaf: b.BPrefix) -> str:
        kind = "starts with" if leaf.exact else "implies prefix"
        return f"{leaf.col.label()} {kind} {_literal(leaf.prefix, leaf.col)}"

    def visit_pattern(self, leaf: b.BPattern) -> str:
        return f"{leaf.col.label()} LIKE {literal_sql(leaf.text)}"


_LEAF_SQL = _LeafSql()


def _literal(value: object, col) -> str:
    return domain_literal_sql(value, col.type)


@dataclass(frozen=True)
class _Line:
    label: str
    node: object
    kids: list


class _Outline(b.EveryLeafAlike[_Line]):
    """Each node's line of an outline; ``short``: the labels of ``Explanation``."""

    def __init__(self, short: bool) -> None:
        self.short = short

    def visit_leaf(self, leaf: b.BLeaf) -> _Line:
        return _Line(printable(leaf_sql(leaf)), leaf, [])

    def visit_not(self, node: b.BNot, results: list[_Line]) -> _Line:
        return _Line("NOT", node, results)

    def visit_and(self, node: b.BAnd, results: list[_Line]) -> _Line:
        return _Line("AND", node, results)

    def visit_or(self, node: b.BOr, results: list[_Line]) -> _Line:
        return _Line("OR", node, results)

    def visit_is_bool(self, node: b.BIsBool, results: list[_Line]) -> _Line:
        return _Line(f"IS {'TRUE' if node.value else 'FALSE'}", node, results)

    def visit_either(self, node: b.BEither, results: list[_Line]) -> _Line:
        return _Line("EITHER (ANSI or legacy)" if self.short else
                     "EITHER (Spark's ANSI and legacy readings; anything either allows)",
                     node, results)

    def visit_rewritten(self, node: b.BRewritten, results: list[_Line]) -> _Line:
        text = printable(node.text)
        return _Line(text if self.short else text + "  (as a predicate on the column:)",
                     node, results)

    def visit_widen(self, node: b.BWiden, results: list[_Line]) -> _Line:
        return _Line("WIDENED" if self.short else "WIDENED (anything where the guard may hold)",
                     node, results)


def outline(root: b.BPredicate, short: bool = False) -> list[tuple[int, object, str]]:
    """The bound tree parents first, as (depth, node, label); a subtree two parents share is
    listed under each.

    >>> import pyarrow as pa
    >>> x = b.BColumn("x", pa.int64(), pa.int64(), "int")
    >>> [(depth, label) for depth, _, label in outline(
    ...     b.BNot(b.BOr((b.BCompare(x, "gt", 5), b.BIsNull(x)))))]
    [(0, 'NOT'), (1, 'OR'), (2, 'x > 5'), (2, 'x IS NULL')]
    """
    top = b.visit(root, _Outline(short))
    out: list[tuple[int, object, str]] = []
    stack = [(top, 0)]
    while stack:
        line, depth = stack.pop()
        out.append((depth, line.node, line.label))
        stack.extend((k, depth + 1) for k in reversed(line.kids))
    return out


def render_step(r, step: int, depth: int = 0) -> str:
    """A formula for a builder step, stopping at named facts."""
    p = r.p
    if step in r.names:
        name = r.names[step]
        return name if len(name) < 60 else name[:56] + " ...)"
    s = p.steps[step]
    if s.op == "const":
        return {True: "TRUE", False: "FALSE"}.get(s.args[0], str(s.args[0]))
    if s.op == "flag":
        col, name = p.flags[s.args[0]]
        return f"{key_sql(col)}.{name}"
    if s.op == "param":  # a constant of the rewrite itself (literals are named by leaves)
        value = p.params[s.args[0]].value
        return repr(value) if not isinstance(value, tuple) else f"({len(value)} values)"
    if s.op in ("load", "valid"):
        slot = p.slots[s.args[0]]
        name = ("row_count" if slot.column is None
                else f"{key_sql(slot.column)}.{slot.stat}")
        return name if s.op == "load" else f"{name} known"
    if depth > 6:
        return "..."
    parts = [render_step(r, a, depth + 1) for a in s.args]
    compound = [a not in r.names and p.steps[a].op in ("and", "or") for a in s.args]
    if s.op in ("and", "or"):
        shown = (f"({x})" if c else x for x, c in zip(parts, compound, strict=True))
        return f" {s.op.upper()} ".join(shown)
    if s.op == "not":
        return f"NOT ({parts[0]})" if compound[0] else f"NOT {parts[0]}"
    if s.op in _SYMBOL:
        return f"{parts[0]} {_SYMBOL[s.op]} {parts[1]}"
    return f"{s.op}({', '.join(parts)})"


def printable(text: str) -> str:
    """``text`` on one line: control characters and line separators (which a column name or a
    string literal may hold) shown as escapes, so they cannot forge lines of the explanation.

    >>> print(printable("a\\nb\\u2028c"))
    a\\nb\\u2028c
    """
    return "".join(ch if ch.isprintable() or ch == " " else
                   ch.encode("unicode_escape").decode("ascii") for ch in text)


def explain_tree(r, predicate_sql: str) -> str:
    """The whole explanation: predicate, bound tree with each leaf's conditions, notes."""
    lines = [f"predicate: {printable(predicate_sql)}"]
    for depth, node, label in outline(r.root):
        pad = "    " * depth
        lines.append(pad + label)
        for why in r.never(r.root):  # never TRUE, never FALSE: why, by node
            if why.get(id(node)):
                lines.append(f"{pad}    {printable(why[id(node)])}")
        bits = r.leaf_bits.get(id(node)) if isinstance(node, b.BLeaf) else None
        if bits is not None:
            for name, step in (("TRUE: ", bits.true), ("FALSE:", bits.false),
                               ("NULL: ", bits.null)):
                lines.append(f"{pad}    may be {name} {printable(render_step(r, step))}")
    implied = r.implied(r.root)
    if implied is not None:  # its terms' values on one column, weighed together
        lines.append("TRUE only on rows where this is TRUE too:")
        lines += ["    " * (depth + 1) + label for depth, _, label in outline(implied)]
    lines.append("outcome: NONE_MATCH when row_count = 0 or the root cannot be TRUE; ALL_MATCH "
                 "when it can be\nneither FALSE nor NULL; otherwise MAYBE_MATCH.")
    for note in r.p.notes:
        lines.append(f"weakened: {printable(note)}")
    return "\n".join(lines)
