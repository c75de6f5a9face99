"""Numba functions that small inputs run as plain Python.

A fresh process reading one Parquet footer would spend about 0.85 s importing Numba and
loading the footer walker from Numba's cache, to walk a few kilobytes that plain Python walks
in milliseconds. So a function of the binary readers is written once, in the subset of Python
Numba compiles, and decorated with :func:`jit`, which keeps both forms:

- calling it runs the Python function (NumPy arrays and scalars give it Numba's integer
  types and wrap-around);
- ``f.compiled`` is ``numba.njit(cache=True)`` of the same code, made on first use; inside
  it, calls to other ``@jit`` functions go to their compiled forms.

The caller picks one for a whole input with :func:`pick`: the compiled form when it
is loaded already, or when the input is large enough that Python would take longer than
loading Numba. Both forms give the same tables (tested on every footer of the test suite and
on damaged ones).

>>> import numpy as np
>>> from prunekit.sources.varints import zigzag
>>> buf = np.array([0x03], np.uint8)  # the zigzag encoding of -2
>>> value, end = zigzag(buf, 0, 1)  # Python
>>> int(value), end
(-2, 1)
>>> pick(zigzag, 10_000_000) is zigzag.compiled
True
"""

from __future__ import annotations

import contextlib
import functools
import types

import numpy as np

__all__ = ["forced", "jit", "pick"]

# Measured on a 2-core VM: importing Numba and loading the footer walker from its cache takes
# 0.8-0.9 s in a fresh process (0.4-0.5 s each); plain Python walks footers at about 0.7 MB/s.
# Below this many bytes Python finishes first.
PYTHON_BYTES = 512 * 1024
_forced: str | None = None  # see forced()


class jit:  # noqa: N801 (a decorator, named like numba.njit)
    """A function with a Python form (calling it) and a Numba form (``.compiled``)."""

    def __init__(self, function: types.FunctionType):
        self.py_func = function
        self._forms: dict[str, object] = {}
        functools.update_wrapper(self, function)

    def __call__(self, *args):
        """The Python form; integer wrap-around is silent, as it is in the compiled form
        (NumPy scalars warn on it; Numba's integers wrap without a word)."""
        with np.errstate(over="ignore"):
            return self.python(*args)

    def __repr__(self) -> str:
        return f"<jit {self.__module__}.{self.__qualname__}>"

    @property
    def loaded(self) -> bool:
        """Whether the compiled form has run in this process (its code is loaded)."""
        return "compiled" in self._forms and bool(self._forms["compiled"].overloads)

    @property
    def python(self):
        """The Python function, its ``@jit`` callees called in their Python forms directly."""
        if "python" not in self._forms:
            self._forms["python"] = self._twin("python")
        return self._forms["python"]

    @property
    def compiled(self):
        """``numba.njit(cache=True)`` of the function, its ``@jit`` callees compiled too."""
        if "compiled" not in self._forms:
            from numba import njit

            self._forms["compiled"] = njit(cache=True)(self._twin("compiled"))
        return self._forms["compiled"]

    def _twin(self, form: str) -> types.FunctionType:
        """The same code over a copy of its module's names, where each ``@jit`` callee is its
        ``form``: Numba types a call only to a dispatcher, and Python calls the function
        without this wrapper in between. Code, file and line are the function's own, so
        Numba's disk cache finds the entries it wrote before."""
        f = self.py_func
        names = dict(f.__globals__)
        for name in f.__code__.co_names:
            if isinstance(names.get(name), jit):
                names[name] = getattr(names[name], form)
        twin = types.FunctionType(f.__code__, names, f.__name__, f.__defaults__, f.__closure__)
        twin.__qualname__ = f.__qualname__
        twin.__doc__ = f.__doc__
        return twin


def pick(function: jit, n_bytes: int):
    """``function``'s form for an input of ``n_bytes``: the compiled one when it is loaded
    already or the input is large enough to pay for loading it, else the Python one.

    >>> @jit
    ... def first(buf):
    ...     return buf[0]
    >>> pick(first, 100) is first  # never compiled in this process: Python
    True
    """
    if _forced is not None:
        return function.compiled if _forced == "compiled" else function
    if function.loaded or n_bytes >= PYTHON_BYTES:
        return function.compiled
    return function


@contextlib.contextmanager
def forced(form: str):
    """Within the block, :func:`pick` gives every function its ``form`` ("python" or
    "compiled") whatever the input's size: how the tests hold the two forms to one answer.

    >>> from prunekit.sources.varints import varint
    >>> with forced("python"):
    ...     pick(varint, 10_000_000) is varint
    True
    """
    global _forced
    if form not in ("python", "compiled"):
        raise ValueError(f"form must be 'python' or 'compiled', not {form!r}")
    before, _forced = _forced, form
    try:
        yield
    finally:
        _forced = before
