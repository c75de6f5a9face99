"""Run every docstring example in the package (as sqlglot's tests/test_docs.py does)."""

import doctest
import importlib
import pkgutil

import pytest

import prunekit

MODULES = ["prunekit"] + [
    m.name for m in pkgutil.walk_packages(prunekit.__path__, "prunekit.")
] + [f"prunekit.{sub}.{m.name}" for sub in ("expr", "kernels")
     for m in pkgutil.iter_modules(importlib.import_module(f"prunekit.{sub}").__path__)]


@pytest.mark.parametrize("name", sorted(set(MODULES)))
def test_docstrings(name):
    module = importlib.import_module(name)
    result = doctest.testmod(module, optionflags=doctest.ELLIPSIS | doctest.NORMALIZE_WHITESPACE)
    assert result.failed == 0, f"{result.failed} doctest failures in {name}"
