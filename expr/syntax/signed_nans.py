"""NaNs of both signs, where the engine orders floats by their bits.

DataFusion 55 compares floats with Arrow's kernels, which order them by IEEE 754's total
order: a NaN with its sign bit set sorts below every number, apart from a NaN without it,
and x86 makes such NaNs wherever arithmetic is invalid (numpy's ``0.0 / 0.0``, ``inf * 0``).
Spark, DuckDB and prunekit take every NaN for one value above every number, and statistics
count NaNs without their sign. So on a row where a compared operand is NaN the engine's
answer is unknown to prunekit: ``nan_rows_unknown`` reads each comparison as written where
its operands hold numbers (or NULL) and as an unknown leaf where one is NaN.
"""

from __future__ import annotations

import math
from collections.abc import Mapping

import pyarrow as pa

from prunekit.expr.syntax import nodes as n

# Why a comparison is unknown where an operand is NaN.
SIGNED_NAN = "(a NaN with its sign bit set sorts below every number there)"


def nan_rows_unknown(tree: n.Node, types: Mapping[str, object] | None,
                     dialect: str) -> n.Node:
    """``tree`` with each comparison whose answer on a NaN row depends on the NaN's sign read
    as written where no operand is NaN, and as an unknown leaf where one is: ``(c AND NOT
    isnan(f)) OR (isnan(f) AND <unknown>)``. That is an order (``f < 5``: TRUE of a NaN with
    its sign bit set, FALSE of one without), an equality between two operands that may both
    be NaN (``f = CAST('NaN' AS DOUBLE)``, ``f = g``), and a BETWEEN with a bound that may be
    NaN or reads a column; not ``f = 5``, ``f IN (1, 2)`` nor ``f BETWEEN 1 AND 2``, FALSE of
    a NaN of either sign. ``isnan`` is never NULL, so a row where ``f`` is NULL keeps the
    comparison's own answer (``f IS DISTINCT FROM 5`` is TRUE there).

    >>> import pyarrow as pa
    >>> types = {"f": pa.float64(), "x": pa.int64()}
    >>> read = nan_rows_unknown(n.col("f") < 5, types, "datafusion")
    >>> print(read.display().replace(SIGNED_NAN, "(...)").replace(" otherwise than Spark", ""))
    f < 5 AND NOT isnan(f) OR isnan(f) AND <datafusion reads f < 5 (...): f < 5>
    >>> [nan_rows_unknown(c, types, "datafusion").display() for c in (n.col("x") < 5,
    ...                                                             n.col("f") == 5)]
    ['x < 5', 'f = 5']
    """

    def wrap(node: n.Node) -> n.Node:
        if not _sign_decides(node, types):
            return node
        guards = [g for side in node.children() if _may_be_nan(side, types)
                  for g in _nan_guards(side, types)]
        guards = list({g.sql(): g for g in guards}.values())
        nan = n.or_(*guards) if len(guards) > 1 else guards[0]
        text = node.sql()
        columns = tuple({c.sql(): c for c in node.walk() if isinstance(c, n.Column)}.values())
        unknown = n.Opaque(text, f"{dialect} reads {text} {SIGNED_NAN} otherwise than Spark",
                           columns)
        return n.Or((n.And((node, n.Not(nan))), n.And((nan, unknown))))

    return n.transform(tree, wrap)


# Arithmetic that makes a NaN of numbers (``inf * 0``, ``inf - inf``, ``0.0 / 0.0``).
_ARITHMETIC = ("+", "-", "*", "/", "%")


def _nan_guards(side: n.Node, types: Mapping[str, object] | None) -> list[n.Node]:
    """What says ``side`` is NaN on a row: ``isnan(side)`` where arithmetic may make a NaN of
    numbers, else ``isnan`` of each float column it reads (a NaN where one is: ``-f``,
    ``abs(f)``, a cast prunekit reads as a function); ``isnan(side)`` too where it reads no
    float column (a NaN constant in a function of an integer column)."""
    columns = [n.IsNan(c) for c in side.walk() if isinstance(c, n.Column) and
               _float_or_unknown(c, types)]
    if not columns or any(_makes_nan(x) for x in side.walk()):
        return [n.IsNan(side)]
    return columns


def _makes_nan(x: n.Node) -> bool:
    """Whether ``x`` is arithmetic that may make a NaN of numbers: not ``e + c``, ``e - c``,
    nor ``e * c`` or ``e / c`` of a number ``c`` other than 0 (a NaN only of a NaN ``e``)."""
    if not (isinstance(x, n.Func) and x.name in _ARITHMETIC):
        return False
    constants = [a for a in x.args if isinstance(a, n.Literal) and isinstance(
        a.value, (int, float)) and not isinstance(a.value, bool) and math.isfinite(a.value)]
    if x.name == "%" or len(x.args) != 2 or not constants:
        return True
    return x.name in ("*", "/") and all(a.value == 0 for a in constants)


def _float_or_unknown(c: n.Column, types: Mapping[str, object] | None) -> bool:
    kind = None if types is None or c.fields else types.get(c.name.lower())
    return not isinstance(kind, pa.DataType) or pa.types.is_floating(kind)


def _sign_decides(node: n.Node, types: Mapping[str, object] | None) -> bool:
    """Whether a NaN's sign may change ``node``'s answer on a row."""
    if isinstance(node, n.Compare) and node.op not in (n.Op.EQ, n.Op.NE):
        return any(_may_be_nan(side, types) for side in (node.left, node.right))
    if isinstance(node, (n.Compare, n.DistinctFrom)):
        return _equal_nans(node.left, node.right, types)
    if isinstance(node, n.In):
        return any(_equal_nans(node.arg, value, types) for value in node.values)
    if isinstance(node, n.Between):
        return any(_may_be_nan(side, types) for side in node.children()) and any(
            _reads_columns(bound) or _nan_constant(bound) for bound in (node.low, node.high))
    return False


def _equal_nans(a: n.Node, b: n.Node, types: Mapping[str, object] | None) -> bool:
    """Whether an equality of ``a`` and ``b`` may meet NaNs on both sides (of two signs)."""
    return (_may_be_nan(a, types) and (_may_be_nan(b, types) or _nan_constant(b))) or (
        _may_be_nan(b, types) and _nan_constant(a))


def _reads_columns(side: n.Node) -> bool:
    return any(isinstance(c, n.Column) for c in side.walk())


def _nan_constant(side: n.Node) -> bool:
    """Whether a constant may be NaN: a NaN literal, a cast of text (``CAST('NaN' AS
    DOUBLE)``) or a function of constants (``0.0 / 0.0``)."""
    return not _reads_columns(side) and any(
        isinstance(x, (n.Cast, n.Func)) or (isinstance(x, n.Literal) and isinstance(
            x.value, float) and math.isnan(x.value)) for x in side.walk())


def _may_be_nan(side: n.Node, types: Mapping[str, object] | None) -> bool:
    """Whether an operand that reads a column may be NaN on a row: it reads a float column
    (or one of a type unknown here: a struct's field), or an infinity or NaN meets a column
    in it (``x * CAST('Infinity' AS DOUBLE)`` is NaN where ``x`` is 0)."""
    columns = [c for c in side.walk() if isinstance(c, n.Column)]
    if not columns or (isinstance(side, n.Cast) and not pa.types.is_floating(side.to)):
        return False  # (a NaN cast to another type fails the query there)
    if any(_float_or_unknown(c, types) for c in columns):
        return True
    return any(_nan_constant(x) or (isinstance(x, n.Literal) and isinstance(
        x.value, float) and not math.isfinite(x.value)) for x in side.walk())
