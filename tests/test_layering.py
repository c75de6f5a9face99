"""The package's imports run one way (docs/architecture.md): text -> expr -> program -> kernels
-> outcome, sources -> the canonical Arrow table, spark_glue on top. Read from the source of
every module of the installed package, function-level imports included, without importing
it."""

from __future__ import annotations

import ast
import importlib
import pkgutil
from pathlib import Path

import pytest

import prunekit

# The parts of the namespace, each a folder of the repository (pyproject.toml maps them).
PACKAGES = ("prunekit", "prunekit.expr", "prunekit.kernels", "prunekit.spark_glue")

# The package's layers, in order: a module imports from its own part of a layer and from the
# layers before it; the parts of one layer do not import each other.
#  0 vocabulary every layer shares: errors, the statistics layout and its type rules,
#    statistics keys, types and their domains, the calendar, column paths, the program IR;
#  1 three parts side by side: sources (files to the statistics layout), expr (text to a
#    program) and kernels (a program over statistics to outcomes);
#  2 prunekit's public layer (PruningPredicate, joins, the readers' names, the command line);
#  3 spark_glue;
#  4 the demo, an application of all of them.
VOCABULARY = {"prunekit.errors", "prunekit.statistics", "prunekit.conformance",
              "prunekit.expr.paths", "prunekit.expr.domains", "prunekit.expr.calendar",
              "prunekit.expr.resolve", "prunekit.expr.program", "prunekit.expr.program.ir"}
# Iceberg's planner reads the literals of a predicate's bound top-level conjuncts: the one
# import of sources from expr beyond the vocabulary.
ACROSS = {("prunekit.sources.iceberg.buckets", "prunekit.expr.binding.bound")}


# expr's stages, in order (each package's __init__ is its map): what they share (statistics keys,
# domains, the calendar, column paths, remainders' bounds), Spark's types and time, the syntax
# of trees, binding, the program, and whole queries (which bind).
EXPR_STAGES = ("shared", "spark_types", "syntax", "binding", "program", "query")


def expr_stage(name: str) -> int:
    """The stage of a module of expr (``shared`` for a module at its top)."""
    rest = name.removeprefix("prunekit.expr").lstrip(".").split(".")[0]
    return EXPR_STAGES.index(rest) if rest in EXPR_STAGES else 0


def layer(name: str) -> tuple[int, str]:
    """(layer, part) of a module of the package."""
    if name in VOCABULARY:
        return 0, "vocabulary"
    for prefix, place in (("prunekit.sources", (1, "sources")), ("prunekit.expr", (1, "expr")),
                          ("prunekit.kernels", (1, "kernels")),
                          ("prunekit.spark_glue", (3, "spark_glue"))):
        if name == prefix or name.startswith(prefix + "."):
            return place
    return (4, "demo") if name == "prunekit.demo" else (2, "prunekit")


def modules() -> dict[str, Path]:
    """Every module of the package: its dotted name and source file."""
    found: dict[str, Path] = {}
    for name in PACKAGES:
        package = importlib.import_module(name)
        found[name] = Path(package.__file__)
        for info in pkgutil.walk_packages(package.__path__, name + "."):
            spec = importlib.util.find_spec(info.name)
            found[info.name] = Path(spec.origin)
    return found


def imported_from(node: ast.ImportFrom, name: str, path: Path) -> str:
    """The absolute name of the module a ``from ... import`` in module ``name`` reads."""
    if not node.level:
        return node.module or ""
    here = name if path.name == "__init__.py" else name.rpartition(".")[0]
    parts = here.split(".")
    parent = ".".join(parts[: len(parts) - node.level + 1])
    return f"{parent}.{node.module}" if node.module else parent


def imports(name: str, path: Path, known: set[str]) -> set[str]:
    """The package's modules that module ``name`` imports anywhere in its source."""
    out = set()
    for node in ast.walk(ast.parse(path.read_text(), str(path))):
        if isinstance(node, ast.Import):
            targets = [a.name for a in node.names]
        elif isinstance(node, ast.ImportFrom):
            base = imported_from(node, name, path)
            # `from pkg import mod` imports the module; `from mod import name` the module.
            targets = [f"{base}.{a.name}" if f"{base}.{a.name}" in known else base
                       for a in node.names]
        else:
            continue
        for t in targets:
            while t and t not in known:  # `import prunekit.expr.syntax.sql as S` -> that module
                t = t.rpartition(".")[0]
            if t and t != name:
                out.add(t)
    return out


def graph(found: dict[str, Path] | None = None) -> dict[str, set[str]]:
    found = modules() if found is None else found
    return {m: imports(m, p, set(found)) for m, p in found.items()}


def cycles(edges: dict[str, set[str]]) -> list[list[str]]:
    """The strongly connected components of more than one module (Tarjan, iterative)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found = []
    for root in sorted(edges):
        if root in index:
            continue
        work = [(root, iter(sorted(edges[root])))]
        index[root] = low[root] = len(index)
        stack.append(root)
        on_stack.add(root)
        while work:
            v, children = work[-1]
            w = next(children, None)
            if w is not None:
                if w not in index:
                    index[w] = low[w] = len(index)
                    stack.append(w)
                    on_stack.add(w)
                    work.append((w, iter(sorted(edges.get(w, ())))))
                elif w in on_stack:
                    low[v] = min(low[v], index[w])
                continue
            work.pop()
            if work:
                low[work[-1][0]] = min(low[work[-1][0]], low[v])
            if low[v] == index[v]:
                component = []
                while True:
                    w = stack.pop()
                    on_stack.discard(w)
                    component.append(w)
                    if w == v:
                        break
                if len(component) > 1:
                    found.append(sorted(component))
    return found


def layering_violations(edges: dict[str, set[str]]) -> list[str]:
    """Imports against the flow, one line each."""
    bad = [f"import cycle: {' <-> '.join(c)}" for c in cycles(edges)]
    for m, targets in sorted(edges.items()):
        (here, part) = layer(m)
        for t in sorted(targets):
            (there, other) = layer(t)
            if there > here or (there == here and other != part and (m, t) not in ACROSS):
                bad.append(f"{m} imports {t} (layer {part} may not import {other})")
            elif part == other == "expr" and expr_stage(t) > expr_stage(m):
                bad.append(f"{m} imports {t} (stage {EXPR_STAGES[expr_stage(m)]} of expr "
                           f"may not import stage {EXPR_STAGES[expr_stage(t)]})")
    return bad


def private_reads(found: dict[str, Path] | None = None) -> list[str]:
    """Reads of another module's private names, one line each: ``from m import _name``
    (a private module of the package is imported by name, as its siblings do), and
    ``x._name`` where only other modules of the package define ``_name`` (a def, a class,
    an assignment): such a name is theirs, whatever ``x`` is. ``self``/``cls`` read their own,
    and a module may read its own private names on any object."""
    found = modules() if found is None else found
    trees = {m: ast.parse(p.read_text(), str(p)) for m, p in found.items()}
    defined: dict[str, set[str]] = {}
    for m, tree in trees.items():
        names = defined[m] = set()
        for node in ast.walk(tree):
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
                names.add(node.name)
            elif isinstance(node, ast.Name) and isinstance(node.ctx, ast.Store):
                names.add(node.id)
            elif isinstance(node, ast.Attribute) and isinstance(node.ctx, ast.Store):
                names.add(node.attr)
    owners: dict[str, set[str]] = {}
    for m, names in defined.items():
        for name in names:
            owners.setdefault(name, set()).add(m)

    def private(name: str) -> bool:
        return name.startswith("_") and not name.startswith("__")

    bad = []
    for m, tree in trees.items():
        for node in ast.walk(tree):
            if isinstance(node, ast.ImportFrom):
                base = imported_from(node, m, found[m])
                for alias in node.names:
                    if private(alias.name) and f"{base}.{alias.name}" not in found:
                        bad.append(f"{m}:{node.lineno} imports {alias.name} from {base}")
            elif isinstance(node, ast.Attribute) and isinstance(node.ctx, ast.Load) and \
                    private(node.attr) and node.attr not in defined[m] and \
                    node.attr in owners and not (isinstance(node.value, ast.Name) and
                                                 node.value.id in ("self", "cls")):
                bad.append(f"{m}:{node.lineno} reads {node.attr} of "
                           f"{', '.join(sorted(owners[node.attr]))}")
    return bad


def test_no_module_reads_another_modules_private_names():
    assert private_reads() == []


def test_the_private_check_sees_imports_and_attributes(tmp_path):
    found = {"prunekit.expr.a": tmp_path / "a.py", "prunekit.expr.b": tmp_path / "b.py"}
    found["prunekit.expr.a"].write_text("_hidden = 1\nclass P:\n    def __init__(self):\n"
                                        "        self._bound = 2\n")
    found["prunekit.expr.b"].write_text("from .a import _hidden, P\n"
                                        "def f(p):\n    return p._bound\n")
    assert private_reads(found) == [
        "prunekit.expr.b:1 imports _hidden from prunekit.expr.a",
        "prunekit.expr.b:3 reads _bound of prunekit.expr.a"]


def test_imports_run_one_way():
    edges = graph()
    assert {"prunekit.expr.binding.bind", "prunekit.kernels.run",
            "prunekit.sources.parquet"} <= set(edges), "the walk must see every part"
    assert layering_violations(edges) == []


def test_the_check_fails_on_a_cycle_and_on_an_import_against_the_layers():
    edges = graph()
    looped = {**edges, "prunekit.expr.program.ir": edges["prunekit.expr.program.ir"] | {
        "prunekit.expr.program.rewrite"}}
    assert any("import cycle" in v and "prunekit.expr.program.ir" in v
               for v in layering_violations(looped))
    for m, t in [("prunekit.kernels.run", "prunekit.expr.binding.bind"),  # beside, not above
                 ("prunekit.statistics", "prunekit.kernels.inputs"),  # vocabulary, no kernel
                 ("prunekit.sources.parquet.bloom", "prunekit.kernels.valuesets"),
                 ("prunekit.sources.delta.rules", "prunekit.expr.syntax.sql"),  # beside
                 ("prunekit.expr.binding.likes", "prunekit.expr.program.leaves"),  # a later stage
                 ("prunekit.predicate", "prunekit.spark_glue.reader")]:
        leaking = {**edges, m: edges[m] | {t}}
        assert any(v.startswith(f"{m} imports {t}") for v in layering_violations(leaking)), m


def test_the_reader_sees_function_level_and_relative_imports(tmp_path):
    source = tmp_path / "m.py"
    source.write_text("from . import bound as b\n"
                      "def f():\n    from .bind import bind\n    import prunekit.kernels.run\n")
    known = {"prunekit.expr.binding.bound", "prunekit.expr.binding.bind", "prunekit.kernels.run",
             "prunekit.expr.binding", "prunekit.expr.binding.m"}
    assert imports("prunekit.expr.binding.m", source, known) == {
        "prunekit.expr.binding.bound", "prunekit.expr.binding.bind", "prunekit.kernels.run"}


def test_every_error_is_defined_in_prunekit_errors_and_exported():
    from prunekit import errors

    for m in modules():
        module = importlib.import_module(m) if not m.startswith("prunekit.spark_glue") else None
        for value in vars(module).values() if module else ():
            if isinstance(value, type) and issubclass(value, prunekit.PrunekitError):
                assert value.__module__ == "prunekit.errors", f"{value.__name__} in {m}"
    defined = [v for v in vars(errors).values() if isinstance(v, type) and issubclass(
        v, prunekit.PrunekitError)]
    assert len(defined) >= 8
    for cls in defined:
        assert cls.__name__ in prunekit.__all__ and getattr(prunekit, cls.__name__) is cls


def test_pyproject_lists_every_package():
    """A regular (non-editable) install ships only the packages pyproject.toml names."""
    tomllib = pytest.importorskip("tomllib", reason="tomllib (Python 3.11+) reads pyproject.toml")
    root = Path(__file__).resolve().parent.parent
    config = tomllib.loads((root / "pyproject.toml").read_text())["tool"]["setuptools"]
    listed = set(config["packages"])
    folders = {name: root / path for name, path in config["package-dir"].items()}
    on_disk = set()
    for name, folder in folders.items():
        for init in folder.rglob("__init__.py"):
            parts = init.parent.relative_to(folder).parts
            if "__pycache__" not in parts:
                on_disk.add(".".join((name, *parts)))
    assert on_disk == listed
