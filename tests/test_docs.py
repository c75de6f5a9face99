"""Every docstring example in the installed package runs and passes (as sqlglot's
tests/test_docs.py does), and no module of the package is left out of that.

The modules are found by walking each root of the ``prunekit`` namespace: ``prunekit`` itself
(``api/``, with ``prunekit.sources``), ``prunekit.expr`` (with ``functions``),
``prunekit.kernels`` and ``prunekit.spark_glue``, which pyproject.toml maps from folders of
their own, so walking ``prunekit`` alone does not reach them. The Spark glue's examples import
pyspark but start no session.
"""

import doctest
import importlib
import pkgutil
import tempfile
from pathlib import Path

import pytest

ROOTS = ("prunekit", "prunekit.expr", "prunekit.kernels", "prunekit.spark_glue")
ROOT = Path(__file__).resolve().parent.parent


def collected() -> list[str]:
    """Every module under the namespace's roots, the roots included."""
    names = set(ROOTS)
    for root in ROOTS:
        package = importlib.import_module(root)
        names.update(m.name for m in pkgutil.walk_packages(package.__path__, root + "."))
    return sorted(names)


MODULES = collected()


@pytest.mark.parametrize("name", MODULES)
def test_docstrings(name, tmp_path, monkeypatch):
    # The examples make their files where a reader's would go, in temporary directories they
    # leave behind; here those are made inside this test's own directory, which pytest removes.
    monkeypatch.setattr(tempfile, "tempdir", str(tmp_path))
    module = importlib.import_module(name)
    result = doctest.testmod(module, optionflags=doctest.ELLIPSIS | doctest.NORMALIZE_WHITESPACE)
    assert result.failed == 0, f"{result.failed} doctest failures in {name}"


def test_every_installed_module_is_collected():
    """The modules an install ships (each package pyproject.toml lists, and the ``.py`` files
    in its folder) are exactly the ones collected: a module or package added where the walk
    does not reach fails here."""
    tomllib = pytest.importorskip("tomllib", reason="tomllib (Python 3.11+) reads pyproject.toml")
    config = tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["setuptools"]
    installed = set()
    for package in config["packages"]:
        folder = Path(importlib.import_module(package).__file__).parent
        installed.add(package)
        installed.update(f"{package}.{f.stem}" for f in folder.glob("*.py")
                         if f.name != "__init__.py")
    assert installed == set(MODULES)
    assert {"prunekit.expr.binding.functions.absolute", "prunekit.spark_glue.reader",
            "prunekit.sources.parquet"} <= installed


def test_the_repository_speaks_of_itself():
    """Tracked files cite docs/semantics.md, never a file outside the repository, a path of
    one machine, or an issue tracker's numbers."""
    import re
    import subprocess

    listed = subprocess.run(["git", "ls-files"], cwd=ROOT, capture_output=True, text=True)
    if listed.returncode != 0:
        pytest.skip("not a git checkout: git ls-files names the tracked files")
    outside = re.compile("|".join([re.escape("../" + "shared"), "/" + "work/", "/" + "root/",
                                   "/" + "home/", r"\b[Ii]ssue #?\d", r"(?<![\w&])#\d{1,3}\b"]))
    found = []
    for name in listed.stdout.split():
        path = ROOT / name
        if path.suffix in {".py", ".md", ".toml", ".cfg", ".json", ".txt", ""} and path.is_file():
            for i, line in enumerate(path.read_text(errors="replace").splitlines(), 1):
                if outside.search(line):
                    found.append(f"{name}:{i}: {line.strip()}")
    assert found == []
    assert (ROOT / "docs" / "semantics.md").is_file()


# ---- the names and files the README and docs/ speak of ----------------------------------------
def _documents() -> str:
    return "\n".join(p.read_text() for p in [ROOT / "README.md", *sorted((ROOT / "docs").glob(
        "*.md"))])


def _resolve(dotted: str):
    """The object a dotted name stands for: the longest importable module, then attributes."""
    parts = dotted.split(".")
    for cut in range(len(parts), 0, -1):
        try:
            obj = importlib.import_module(".".join(parts[:cut]))
        except ImportError:
            continue
        for attr in parts[cut:]:
            obj = getattr(obj, attr)
        return obj
    raise ImportError(dotted)


def names_in_documents(text: str) -> set[str]:
    """``prunekit.x.y`` and ``pk.X`` as the documents write them (``pk`` is ``prunekit``), and
    the names of ``from prunekit... import a, b`` lines in their code."""
    import re

    found = {m.replace("pk.", "prunekit.", 1) for m in re.findall(
        r"(?<![\w.])(?:prunekit|pk)(?:\.[A-Za-z_]\w*)+", text)}
    for module, names in re.findall(r"from (prunekit(?:\.\w+)*) import ([\w, ]+)", text):
        found |= {f"{module}.{n.strip()}" for n in names.split(",") if n.strip()}
    return {n.rstrip(".") for n in found}


def test_names_are_read_in_both_forms():
    assert names_in_documents("`pk.col` and `prunekit.sources.delta`; a sentence ends with "
                              "prunekit.expr. Then: from prunekit.spark_glue import sql, "
                              "read_parquet") == {
        "prunekit.col", "prunekit.sources.delta", "prunekit.expr", "prunekit.spark_glue",
        "prunekit.spark_glue.sql",
        "prunekit.spark_glue.read_parquet"}


def test_every_name_the_documents_use_imports():
    names = names_in_documents(_documents())
    assert {"prunekit.PruningPredicate", "prunekit.spark_glue.sql",
            "prunekit.sources.iceberg"} <= names, sorted(names)
    broken = []
    for name in sorted(names):
        try:
            _resolve(name)
        except (ImportError, AttributeError) as e:
            broken.append(f"{name}: {type(e).__name__}: {e}")
    assert broken == []


def test_the_architecture_names_every_module_and_only_modules_that_exist():
    """``docs/architecture.md`` matches the tree: each ``*.py`` it names is a file of the
    repository (named by its path, or its name where the row's folder says where), and each
    module of the package is named."""
    import re

    text = (ROOT / "docs" / "architecture.md").read_text()
    named = set(re.findall(r"`([\w/]*\w+\.py)`", text))
    files = {str(p.relative_to(ROOT)) for folder in ("api", "expr", "kernels", "spark_glue",
                                                      "benchmarks", "tests")
             for p in (ROOT / folder).rglob("*.py") if "__pycache__" not in p.parts}

    def matches(name: str, path: str) -> bool:
        return path == name or path.endswith("/" + name)

    assert sorted(n for n in named if not any(matches(n, f) for f in files)) == []
    package = sorted(f for f in files if f.split("/")[0] in ("api", "expr", "kernels",
                                                             "spark_glue")
                     and not f.endswith("__init__.py")
                     and not any(matches(n, f) for n in named))
    assert package == []
