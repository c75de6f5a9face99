"""Readable text for a rewritten predicate: the bound tree, and for each leaf the statistics
conditions under which it may be TRUE, FALSE or NULL.

>>> import pyarrow as pa
>>> from .bind import bind
>>> from .rewrite import Rewriter
>>> from .sql import parse
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

from . import bound as b
from .render import domain_literal_sql, key_sql, literal_sql

_SYMBOL = {"lt": "<", "le": "<=", "gt": ">", "ge": ">=", "eq": "=", "ne": "<>"}


def leaf_sql(leaf: object) -> str:
    """A short SQL-like spelling of a bound leaf."""
    if isinstance(leaf, b.Const):
        return {True: "TRUE", False: "FALSE", None: "NULL"}[leaf.value]
    if isinstance(leaf, b.Opaque):
        return f"<anything: {leaf.why}>"
    col = leaf.col.label() if hasattr(leaf, "col") else ""
    t = leaf.col.type if hasattr(leaf, "col") else None

    def lit(v: object) -> str:
        return domain_literal_sql(v, t)

    if isinstance(leaf, b.Bound):
        return f"{col} {_SYMBOL[leaf.op]} {lit(leaf.value)}"
    if isinstance(leaf, b.InRange):
        return (f"{col} = {lit(leaf.first)}" if leaf.first == leaf.last
                else f"{col} BETWEEN {lit(leaf.first)} AND {lit(leaf.last)}")
    if isinstance(leaf, b.NonNull):
        return f"{col} IS NOT NULL AND {'TRUE' if leaf.truth else 'FALSE'}  (literal out of range)"
    if isinstance(leaf, b.NanEq):
        return f"{col} = NaN"
    if isinstance(leaf, b.IsNullLeaf):
        return f"{col} IS NULL"
    if isinstance(leaf, b.IsNanLeaf):
        return f"isnan({col})"
    if isinstance(leaf, b.ColCmp):
        return f"{key_sql(leaf.a.name)} {_SYMBOL[leaf.op]} {key_sql(leaf.b.name)}"
    if isinstance(leaf, b.InList):
        shown = ", ".join(lit(v) for v in leaf.values[:8])
        more = f", ... ({len(leaf.values)} values)" if len(leaf.values) > 8 else ""
        extra = (", NaN" if leaf.nan else "") + (", NULL" if leaf.null else "")
        return f"{col} IN ({shown}{more}{extra})"
    if isinstance(leaf, b.Pattern):
        return f"{col} LIKE {literal_sql(leaf.text)}"
    if isinstance(leaf, b.Prefix):
        kind = "starts with" if leaf.exact else "implies prefix"
        return f"{col} {kind} {lit(leaf.prefix)}"
    return type(leaf).__name__


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
    stack: list[tuple[object, int]] = [(r.root, 0)]
    while stack:
        node, depth = stack.pop()
        pad = "    " * depth
        if isinstance(node, (b.BAnd, b.BOr)):
            lines.append(pad + ("AND" if isinstance(node, b.BAnd) else "OR"))
            stack.extend((k, depth + 1) for k in reversed(node.args))
        elif isinstance(node, b.BNot):
            lines.append(pad + "NOT")
            stack.append((node.arg, depth + 1))
        elif isinstance(node, b.BIsBool):
            lines.append(pad + f"IS {'TRUE' if node.value else 'FALSE'}")
            stack.append((node.arg, depth + 1))
        elif isinstance(node, b.Either):
            lines.append(pad + "EITHER (Spark's ANSI and legacy readings; anything either allows)")
            stack.extend((k, depth + 1) for k in reversed(node.args))
        elif isinstance(node, b.Rewritten):
            lines.append(pad + printable(node.text) + "  (as a predicate on the column:)")
            stack.append((node.arg, depth + 1))
        elif isinstance(node, b.Widen):
            lines.append(pad + "WIDENED (anything where the guard may hold)")
            stack.extend([(node.arg, depth + 1), (node.guard, depth + 1)])
        else:
            lines.append(pad + printable(leaf_sql(node)))
            bits = r.leaf_bits.get(id(node))
            if bits is not None:
                for label, step in (("TRUE: ", bits.true), ("FALSE:", bits.false),
                                    ("NULL: ", bits.null)):
                    lines.append(f"{pad}    may be {label} {printable(render_step(r, step))}")
    lines.append("outcome: NONE_MATCH when row_count = 0 or the root cannot be TRUE; ALL_MATCH "
                 "when it can be\nneither FALSE nor NULL; otherwise MAYBE_MATCH.")
    for note in r.p.notes:
        lines.append(f"weakened: {printable(note)}")
    return "\n".join(lines)
