"""A column compared with a column: both read in one domain (``a < b`` is impossible where
``min(a) >= max(b)``), or unknown where their types compare in Spark by a conversion the
statistics do not follow.

>>> import pyarrow as pa
>>> a = ColOp(b.BColumn("a", pa.int32(), pa.int32(), "int"))
>>> c = ColOp(b.BColumn("c", pa.int64(), pa.int64(), "int"))
>>> column_vs_column(n.Op.GT, a, c)
BColumnCompare(a=c, op='lt', b=a)
"""

from __future__ import annotations

import pyarrow as pa

from prunekit.expr.binding import bound as b
from prunekit.expr.binding.operands import ColOp
from prunekit.expr.calendar import PER_SECOND
from prunekit.expr.domains import int_range, is_stringlike
from prunekit.expr.syntax import nodes as n


def column_vs_column(op: n.Op, a: ColOp, c: ColOp) -> object:
    """``a op c`` for two column operands: one leaf read in a common domain, else unknown.

    >>> a = ColOp(b.BColumn("a", pa.int32(), pa.int32(), "int"))
    >>> column_vs_column(n.Op.NE, a, ColOp(b.BColumn("c", pa.int64(), pa.int64(), "int")))
    BNot(arg=BColumnCompare(a=a, op='eq', b=c))
    >>> column_vs_column(n.Op.LT, a, ColOp(b.BColumn("s", pa.string(), pa.string(), "code")))
    BOpaque(why='a (int32) and s (string) are not compared from statistics')
    >>> column_vs_column(n.Op.LE, a, a)  # TRUE wherever a is not NULL
    BNonNull(col=a, truth=True)
    """
    if a.col == c.col and not a.negated and not c.negated and not a.col.convert:
        # x compared with itself: equal wherever it is not NULL (NaN equals NaN in Spark)
        return b.BNonNull(a.col, op in (n.Op.EQ, n.Op.LE, n.Op.GE))
    if a.negated or c.negated:
        return b.BOpaque("negated column compared with a column")
    if "none" in (a.col.domain, c.col.domain):
        return b.BOpaque(f"{a.col.name} or {c.col.name} has a type without an order")
    left, right = _common_domain(a.col, c.col)
    if left is None:
        return b.BOpaque(f"{a.col.name} ({a.col.type}) and {c.col.name} ({c.col.type}) are "
                        "not compared from statistics")
    for x, y in ((a.col, c.col), (c.col, a.col)):
        if y.type == pa.float32() and not y.convert and _rounds_to_float32(x):
            # ANSI Spark compares an integer with a FLOAT in DOUBLE, legacy Spark in FLOAT.
            as_float = b.BColumn(x.name, x.stats_type, pa.float32(), "float", ("tofloat32",))
            pair = (as_float, y) if x is a.col else (y, as_float)
            return b.BEither((_col_cmp(op, left, right), _col_cmp(op, *pair)))
    return _col_cmp(op, left, right)


def _col_cmp(op: n.Op, left: b.BColumn, right: b.BColumn) -> object:
    if op is n.Op.NE:
        return b.BNot(b.BColumnCompare(left, "eq", right))
    if op in (n.Op.GT, n.Op.GE):
        op, left, right = op.flipped, right, left
    return b.BColumnCompare(left, {n.Op.EQ: "eq", n.Op.LT: "lt", n.Op.LE: "le"}[op], right)


def _common_domain(x: b.BColumn, y: b.BColumn) -> tuple:
    """The two columns converted to one comparable domain, or (None, None)."""
    if isinstance(x, _COMPUTED) or isinstance(y, _COMPUTED):
        # A sum or a product compares with integers only, exactly, in int64: every other
        # domain below rebuilds a column by its name, which would drop the arithmetic
        # (z > a * x read as z > a).
        ints = all(c.domain == "int" and pa.types.is_signed_integer(c.type) and (
            not c.convert or c.convert[0] == "affine") for c in (x, y))
        return (x, y) if ints else (None, None)
    if isinstance(x, b.BFloatOp) or isinstance(y, b.BFloatOp):  # DOUBLE with DOUBLE only
        doubles = all(isinstance(c, b.BFloatOp) or (c.type == pa.float64() and not c.convert)
                      for c in (x, y))
        return (x, y) if doubles else (None, None)
    if x.domain == y.domain and x.convert == y.convert and _same_family(x.type, y.type):
        return x, y
    if all(c.domain == "int" and pa.types.is_signed_integer(c.type) and (
            not c.convert or c.convert[0] == "affine") for c in (x, y)):
        return x, y  # integers (through arithmetic, a > b + 100) compare exactly as int64
    if x.convert or y.convert:
        return None, None
    if pa.types.is_decimal(x.type) and pa.types.is_decimal(y.type) and "code" not in (
            x.domain, y.domain):
        return _rescaled(x, y)
    if pa.types.is_timestamp(x.type) and pa.types.is_timestamp(y.type):
        return _same_unit(x, y)
    if {x.domain, y.domain} == {"int", "uint"} and pa.types.is_integer(x.type) and \
            pa.types.is_integer(y.type):
        # Spark reads uint64 as DECIMAL(20, 0) and compares exactly: view the uint64 bounds
        # as int64 where they fit (elsewhere that bound is unknown).
        def signed(c: b.BColumn) -> b.BColumn:
            return c if c.domain == "int" else b.BColumn(c.name, c.stats_type, pa.int64(),
                                                         "int", ("toint",))

        return signed(x), signed(y)
    if "float" not in (x.domain, y.domain):
        return None, None
    if (pa.types.is_integer(x.type) or pa.types.is_floating(x.type)) and (
            pa.types.is_integer(y.type) or pa.types.is_floating(y.type)):
        # Spark compares an integer with a float in DOUBLE; rounding is monotone, so sound.
        def f(c: b.BColumn) -> b.BColumn:
            return c if c.domain == "float" else b.BColumn(
                c.name, c.stats_type, pa.float64(), "float", ("tofloat",))

        return f(x), f(y)
    return None, None


_COMPUTED = (b.BSum, b.BProd, b.BCalendar, b.BRemainder)


def _same_unit(x: b.BColumn, y: b.BColumn) -> tuple:
    """Two timestamp columns at the finer unit: the coarser one's bounds are multiplied, and a
    bound that would overflow int64 becomes unknown."""
    if (x.type.tz is None) != (y.type.tz is None):
        return None, None  # an instant against a wall-clock time needs a session time zone
    kx, ky = PER_SECOND[x.type.unit], PER_SECOND[y.type.unit]
    if kx < ky:
        return b.BColumn(x.name, x.stats_type, y.type, "int", ("mulchk", ky // kx)), y
    return x, b.BColumn(y.name, y.stats_type, x.type, "int", ("mulchk", kx // ky))


def _rescaled(x: b.BColumn, y: b.BColumn) -> tuple:
    """Two narrow decimals at one scale: the smaller scale is multiplied by 10**k, which cannot
    overflow int64 while the result keeps at most 18 digits."""
    if x.type.scale > y.type.scale:
        b_, a_ = _rescaled(y, x)
        return a_, b_
    k = y.type.scale - x.type.scale
    if x.type.precision + k > 18:
        return None, None
    return b.BColumn(x.name, x.stats_type, x.type, "int", ("mul", 10**k)), y


def _same_family(s: pa.DataType, t: pa.DataType) -> bool:
    if s == t:
        return True
    if is_stringlike(s) and is_stringlike(t):
        return True
    if pa.types.is_integer(s) and pa.types.is_integer(t):
        return pa.types.is_uint64(s) == pa.types.is_uint64(t)
    if pa.types.is_floating(s) and pa.types.is_floating(t):
        return True
    return False


def _rounds_to_float32(col: b.BColumn) -> bool:
    """An integer column (not uint64, which Spark reads as DECIMAL) whose values FLOAT cannot
    all represent."""
    if not isinstance(col, b.BColumn) or col.convert or not pa.types.is_integer(
            col.type) or col.type == pa.uint64():
        return False
    lo, hi = int_range(col.type)
    return max(-lo, hi) > 2**24
