"""``x IN (...)``: Spark casts ``x`` and every element to one type per mode
(``coercion.list_type``), then it is exactly the OR of the equalities in three-valued logic;
one ``BInList`` leaf where the column is compared as itself.

>>> import pyarrow as pa
>>> x = ColOp(b.BColumn("x", pa.int64(), pa.int64(), "int"))
>>> bind_in(None, (x, LitOp(1), LitOp(3)))
BInList(col=x, values=(1, 3), nan=False, null=False)
"""

from __future__ import annotations

import pyarrow as pa

from prunekit.expr.binding import bound as b
from prunekit.expr.binding.arith import decimal_expression
from prunekit.expr.binding.comparisons import (
    compare,
    needs_of,
    null_without,
    operand_type,
    per_mode,
    reading,
    seen_as,
    typed_operand,
    values_range,
)
from prunekit.expr.binding.operand_rules import is_null
from prunekit.expr.binding.operands import ColOp, LitOp, operand_label, shown_literal
from prunekit.expr.spark_types import coercion as C
from prunekit.expr.spark_types import literals as L
from prunekit.expr.syntax import nodes as n


def bind_in(node: n.In, kids: tuple) -> object:
    """``x IN (...)``: Spark casts ``x`` and every element to one type per mode
    (``coercion.list_type``: a DOUBLE element makes an integer list DOUBLE, so exact elements
    round first; legacy mode compares a list of strings and numbers as strings), then it is
    exactly the OR of the equalities in three-valued logic.

    >>> x = ColOp(b.BColumn("x", pa.int64(), pa.int64(), "int"))
    >>> bind_in(None, (x, LitOp(1.5), LitOp(2)))  # compared as DOUBLE: no integer is 1.5
    BInList(col=x, values=(2,), nan=False, null=False)
    """
    arg, values = kids[0], kids[1:]
    if not values:
        return b.BConst(False)
    if not typed_operand(arg):
        return b.BOr(tuple(compare(n.Op.EQ, arg, v) for v in values))
    if not all(isinstance(v, LitOp) for v in values):
        return _in_with_columns(arg, values)
    arg_t = operand_type(arg)
    types = [C.literal_type(v.value, v.type) for v in values]
    return null_without(per_mode(lambda mode: C.list_type([arg_t, *types], mode),
                    lambda t, mode: _list_reading(arg, arg_t, values, types, t, mode),
                    lambda: f"{operand_label(arg)} ({arg_t}) IN a list of "
                            f"{sorted(set(map(str, types)))}: Spark refuses this list in both "
                            "of its modes"), needs_of(arg))  # NULL where x is


def _in_with_columns(arg: object, values: tuple) -> object:
    """``x IN (y, 1)``: the OR of its equalities where every operand keeps its values exactly
    in the list's type (so each equality means what it means alone), else unknown (legacy
    Spark compares a list holding a string as strings)."""
    kinds = [operand_type(v) if typed_operand(v) else C.literal_type(v.value, v.type)
             if isinstance(v, LitOp) else None for v in (arg, *values)]
    if None in kinds:
        return b.BOpaque("IN list with an element of unknown type")

    def reading(t: pa.DataType, mode: str) -> object:
        if not all(C.widens_exactly(k, t) for k in kinds):
            return b.BOpaque(f"Spark ({mode} mode) compares {operand_label(arg)} IN (...) as {t}")
        return b.BOr(tuple(compare(n.Op.EQ, arg, v) for v in values))

    return per_mode(lambda mode: C.list_type(kinds, mode), reading,
                    lambda: f"{operand_label(arg)} IN a list of "
                            f"{sorted(set(map(str, kinds[1:])))}: "
                            "Spark refuses this list in both of its modes")


def _list_reading(arg: object, arg_t: pa.DataType, values: tuple, types: list,
                  t: pa.DataType, mode: str) -> object | None:
    """The list compared in type ``t`` under ``mode``; None when an element's cast fails the
    query."""
    if not C.keeps_order(arg_t, t):
        if C.kind(t) == "string":
            return _text_list_reading(arg, arg_t, values, types, t, mode)
        return b.BOpaque(f"Spark ({mode} mode) compares {operand_label(arg)} IN (...) as {t}: "
                        "a cast "
                        "that does not keep its order")
    cast = []
    for v, ty in zip(values, types, strict=True):
        c = C.cast_literal(v.value, ty, t, mode)
        if c is C.FAILS:
            return None
        cast.append(c)
    unsure = [b.BOpaque(f"prunekit does not work out {shown_literal(v)} as {t} as Spark does")
              for v, c in zip(values, cast, strict=True) if c is C.UNSURE]
    known = [c for c in cast if c is not C.UNSURE]
    if isinstance(arg, ColOp) and not arg.negated and not decimal_expression(arg.col):
        leaf = _in_list(arg, arg_t, known, t, mode)
    else:
        leaf = b.BOr(tuple(reading(n.Op.EQ, arg, arg_t, LitOp(c, t), t, t, mode)
                           for c in known)) if known else b.BConst(False)
    return b.BOr((leaf, *unsure)) if unsure else leaf


def _text_list_reading(arg: object, arg_t: pa.DataType, values: tuple, types: list,
                       t: pa.DataType, mode: str) -> object | None:
    """A list compared as strings (legacy mode: numbers among strings) with a column that is
    not text. A row's text equals an element only if the element read as the row's type
    equals the row (a value's text reads back as it), so the row is TRUE at most where that
    reading is, and may be FALSE anywhere ('01' is never the text of 1)."""
    own, unsure = [], False
    for v, ty in zip(values, types, strict=True):
        text = C.cast_literal(v.value, ty, t, mode)  # the element's own text
        c = text if text is C.UNSURE else C.cast_literal(text, t, arg_t, mode)
        if c is C.FAILS or c is None and v.value is not None:
            continue  # text that is no value of the row's type equals no row's text
        if c is not C.UNSURE and c is not None and C.cast_literal(c, arg_t, t, mode) not in (
                text, C.UNSURE):
            continue  # not the value's own text ('1.5' is never an integer's)
        unsure = unsure or c is C.UNSURE
        if c is not C.UNSURE:
            own.append(LitOp(c, arg_t))
    if unsure:
        return b.BOpaque(f"Spark ({mode} mode) compares {operand_label(arg)} IN (...) as strings")
    if not own:
        return _false_unless_null(arg)
    inner = _list_reading(arg, arg_t, tuple(own), [arg_t] * len(own), arg_t, mode)
    return None if inner is None else b.BEither((inner, b.BConst(False)))


def _false_unless_null(arg: object) -> object:
    """FALSE for every row where ``arg`` is not NULL, NULL where it is: ``arg IN (...)`` when
    no element can equal it."""
    if isinstance(arg, ColOp):
        return b.BNonNull(arg.col, False)
    return b.BAnd((is_null(arg), b.BConst(None)))


def _in_list(arg: ColOp, arg_t: pa.DataType, values: list, t: pa.DataType,
             mode: str) -> object:
    """One ``BInList`` leaf for the values a column can equal (``Range`` elements apart)."""
    col = seen_as(arg.col, arg_t, t)
    if col is None:
        return b.BOpaque(f"Spark ({mode} mode) compares {operand_label(arg)} in FLOAT")
    exact, extra, nan, null = set(), [], False, False
    for v in values:
        if v is None:
            null = True
            continue
        c = L.coerce(v, col.type)
        if isinstance(c, L.Exact) and isinstance(c.value, float) and c.value != c.value:
            nan = True
        elif isinstance(c, L.Exact):
            exact.add(c.value)
        elif isinstance(c, L.Range):
            extra.append(b.BInRange(col, c.first, c.last))
    bounds = values_range(col)
    if bounds is not None:  # a value the column cannot hold equals none of its rows (and
        lo, hi = bounds     # may not fit the kernels' type for it: 2**64 - 1024 and a uint8)
        exact = {v for v in exact if lo <= v <= hi}
        extra = [b.BInRange(col, max(r.first, lo), min(r.last, hi)) for r in extra
                 if r.first <= hi and r.last >= lo]
    leaf = b.BInList(col, tuple(sorted(exact)), nan, null)
    return b.BOr((leaf, *extra)) if extra else leaf
