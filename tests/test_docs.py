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


def test_the_repository_speaks_of_itself():
    """Tracked files cite docs/semantics.md, never a file outside the repository, a path of
    one machine, or an issue tracker's numbers."""
    import re
    import subprocess
    from pathlib import Path

    root = Path(__file__).resolve().parent.parent
    listed = subprocess.run(["git", "ls-files"], cwd=root, capture_output=True, text=True)
    if listed.returncode != 0:
        pytest.skip("not a git checkout: git ls-files names the tracked files")
    outside = re.compile("|".join([re.escape("../" + "shared"), "/" + "work/", "/" + "root/",
                                   "/" + "home/", r"\b[Ii]ssue #?\d", r"(?<![\w&])#\d{1,3}\b"]))
    found = []
    for name in listed.stdout.split():
        path = root / name
        if path.suffix in {".py", ".md", ".toml", ".cfg", ".json", ".txt", ""} and path.is_file():
            for i, line in enumerate(path.read_text(errors="replace").splitlines(), 1):
                if outside.search(line):
                    found.append(f"{name}:{i}: {line.strip()}")
    assert found == []
    assert (root / "docs" / "semantics.md").is_file()
