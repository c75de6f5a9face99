"""Operands: what a non-boolean sub-expression binds to (a column, a literal, or something
prunekit cannot use), before a comparison turns it into a predicate leaf (``comparisons.py``)."""

from __future__ import annotations

from dataclasses import dataclass

import pyarrow as pa

from prunekit.expr.binding import bound as b
from prunekit.expr.syntax.render import literal_text


@dataclass(frozen=True)
class ColOp:
    col: b.BColumn
    negated: bool = False  # -x


@dataclass(frozen=True)
class LitOp:
    value: object
    type: pa.DataType | None = None


@dataclass(frozen=True)
class OpaqueOp:
    why: str
    # What Spark's typing makes it, as spark_functions names kinds: "boolean", "numeric",
    # "string", "other" (x + 1 is "numeric"), or None when prunekit cannot tell.
    kind: str | None = None
    text: str = ""  # the expression as SQL, for errors
    # Columns without which it is NULL (a cast or a sum of columns), so that a comparison of
    # it is too; empty where that is not known (coalesce(x, 0) is not NULL where x is).
    needs: tuple = ()


def operand_label(x: object) -> str:
    """An operand as messages and explain() name it: ``-x``, ``year(d)``."""
    if isinstance(x, LitOp):
        return shown_literal(x)
    if isinstance(x, ColOp):
        return ("-" if x.negated else "") + x.col.label()
    return getattr(x, "label", None) or type(x).__name__


def shown_literal(lit: LitOp) -> str:
    """A literal as messages show it (``render.literal_text``)."""
    return literal_text(lit.value, lit.type)
