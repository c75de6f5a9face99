"""Operands: what a non-boolean sub-expression binds to (a column, a literal, or something
prunekit cannot use), before a comparison turns it into a predicate leaf (``bind.py``)."""

from __future__ import annotations

from dataclasses import dataclass

import pyarrow as pa

from . import bound as b


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
    boolean: bool | None = None  # False: known not to be a boolean (x + 1, CAST(x AS INT))
