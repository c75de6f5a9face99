"""NumPy's typing rules, as the NumPy interpreter meets them, for the compiled interpreter.

The NumPy interpreter (``interpret.py``) is the reference: each step is one NumPy operation on
the previous steps' arrays, in their own dtypes. The compiled interpreter keeps values in four
register files instead (``b`` bytes 0/1, ``i`` int64, ``f`` float64, ``u`` uint64), so for
each step ``vmcode.assemble`` asks here which file computes it and whether the result is the
same as NumPy's. Widening is exact for comparisons (an int32 against an int64 compares the
same in int64), but arithmetic wraps at its dtype's width (an int32 sum wraps at 32 bits: it
is computed in int64 and wrapped back), and a Python constant takes the array's dtype (a
float32 array against ``16777217`` compares with ``16777216.0``). Where the answer could differ,
these functions raise ``NotAssembled``, and the NumPy interpreter runs instead.

>>> i32, f32 = Reg("i", 0, np.dtype(np.int32)), Reg("f", 1, np.dtype(np.float32))
>>> compare_kind(i32, Weak(7)), compare_kind(i32, f32)
('i', 'f')
>>> try:
...     compare_kind(f32, Weak(16777217))
... except NotAssembled as e:
...     print(e)
constant 16777217 against a float32 value
>>> arithmetic_dtype(i32, Weak(1))
dtype('int32')
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np


class NotAssembled(Exception):
    """The program needs a type the compiled interpreter does not have, or a case where its
    answer could differ from NumPy's: interpret it with NumPy. The message names the case."""


# A step's value while assembling: a register (with the dtype NumPy's value would have), a
# Python constant (a const or flag step: NumPy's "weak" scalars, which take the other
# operand's dtype), a NumPy scalar parameter, or a sorted list parameter.
@dataclass(frozen=True)
class Reg:
    kind: str
    number: int
    dtype: np.dtype
    constant: object = None  # the value, for a register filled with one


@dataclass(frozen=True)
class Weak:
    value: object


@dataclass(frozen=True)
class Scalar:
    value: np.generic

    @property
    def kind(self) -> str:
        return kind_of(self.value.dtype)

    @property
    def dtype(self) -> np.dtype:
        return self.value.dtype


@dataclass(frozen=True)
class List:
    kind: str
    number: int


def kind_of(dtype: np.dtype) -> str:
    """The register file that holds values of ``dtype`` exactly."""
    if dtype == np.bool_:
        return "b"
    if dtype.kind == "i" or (dtype.kind == "u" and dtype.itemsize < 8):
        return "i"
    if dtype == np.uint64:
        return "u"
    if dtype.kind == "f" and dtype.itemsize in (4, 8):
        return "f"
    raise NotAssembled(f"values of type {dtype}")


_EXACT_INT = {np.dtype(np.float32): 2**24, np.dtype(np.float64): 2**53}


def weak_in(value, dtype: np.dtype) -> None:
    """Check that a Python constant converted to ``dtype`` (as NumPy does) keeps its value."""
    if isinstance(value, bool):
        return
    if isinstance(value, int):
        if dtype.kind in "iu":
            info = np.iinfo(dtype)
            if info.min <= value <= info.max:
                return
        elif dtype.kind == "f" and abs(value) <= _EXACT_INT[dtype]:
            return
        elif dtype == np.bool_ and abs(value) <= 2**63 - 1:
            return  # a bool array against an int compares in int64
    elif isinstance(value, float) and dtype == np.float64:
        return
    raise NotAssembled(f"constant {value!r} against a {dtype} value")


def _strong(*xs) -> list:
    if any(isinstance(x, List) for x in xs):
        raise NotAssembled("a list used as a value")
    return [x for x in xs if not isinstance(x, Weak)]


def compare_kind(a, b) -> str:
    """The file in which comparing ``a`` with ``b`` gives NumPy's answer, or ``"iu"`` /
    ``"ui"``: an int64 against a uint64, which NumPy 2 compares exactly.

    NumPy compares in the operands' common dtype; every dtype here widens exactly into its
    file, so comparing the widened values is the same, except for a Python constant, which
    NumPy first converts to the array's dtype."""
    strong = _strong(a, b)
    if not strong:
        raise NotAssembled("a comparison of constants")
    if len(strong) == 1:
        weak = (b if strong[0] is a else a).value
        weak_in(weak, strong[0].dtype)
        if strong[0].kind == "b" and not isinstance(weak, bool):
            return "i"  # a bool array against a Python int: int64
        return strong[0].kind
    if {strong[0].kind, strong[1].kind} == {"i", "u"}:
        return strong[0].kind + strong[1].kind  # NumPy 2 compares them exactly, not in float64
    common = np.result_type(strong[0].dtype, strong[1].dtype)
    if common.kind == "f" and common.itemsize < 4:
        raise NotAssembled(f"a comparison in {common}")
    return kind_of(common)


def arithmetic_dtype(*xs) -> np.dtype:
    """NumPy's result dtype of an arithmetic step on ``xs``: the register file of its kind
    computes it, and ``vmcode`` wraps the result back to this dtype when it is narrower."""
    strong = _strong(*xs)
    if not strong:
        raise NotAssembled("arithmetic on constants")
    dtype = np.result_type(*(x.dtype for x in strong))
    for x in xs:
        if isinstance(x, Weak):
            weak_in(x.value, dtype)
    if dtype == np.bool_ or dtype == np.uint64 or dtype == np.float16:
        raise NotAssembled(f"arithmetic in {dtype}")
    kind_of(dtype)
    return dtype
