"""No import cycles among the modules of ``dpcount``, ``matching`` and ``mechanisms``.

A cycle held together by imports inside functions still ties its modules into one: none can be
understood, tested or moved without the others.  So every import counts:

* ``import`` and ``from … import`` anywhere in a module, inside functions too — except under
  ``if TYPE_CHECKING:``, which never runs;
* ``importlib.import_module("…")`` with a literal name, and any other string constant that is
  exactly the dotted name of a project module (the tables of the lazy package façades,
  ``{"read_pairs": "dpcount.io"}``);
* the packages above an imported module, whose ``__init__`` runs first (importing
  ``dpcount.io._sources`` runs ``dpcount/io/__init__.py``) — except the importer's own
  packages, which are already being imported;
* ``from package import name`` counts as an import of ``package.name`` when that is a module,
  else of ``package`` itself — also when the importer sits inside ``package`` (a submodule
  that takes names from its own package's ``__init__`` depends on it).
"""

from __future__ import annotations

import ast
import functools
import shutil
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.imports import from_module, import_module_literal, module_name

ROOT = Path(__file__).resolve().parents[1]
PACKAGES = ("dpcount", "matching", "mechanisms")

#: Cycles that are known and owned elsewhere, each with the reason it may stay for now.  A
#: cycle listed here that no longer exists fails the test too, so that the list only shrinks.
KNOWN_CYCLES: set[frozenset[str]] = set()


def project_modules(root: Path) -> dict[str, Path]:
    """Every module of the packages under ``root``, by dotted name."""
    modules = {}
    for package in PACKAGES:
        for path in sorted((root / package).rglob("*.py")):
            modules[module_name(path, root)] = path
    return modules


def _type_checking_nodes(tree: ast.AST) -> set[int]:
    skipped: set[int] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.If) and "TYPE_CHECKING" in ast.unparse(node.test):
            skipped.update(id(n) for statement in node.body for n in ast.walk(statement))
    return skipped


def _imported(node: ast.AST, module: str, is_package: bool, modules: set[str]) -> Iterator[str]:
    """The project modules one AST node imports (before adding parent packages)."""
    if isinstance(node, ast.Import):
        for alias in node.names:
            yield alias.name
    elif isinstance(node, ast.ImportFrom):
        base = from_module(node, module, is_package)
        for alias in node.names:
            yield f"{base}.{alias.name}" if f"{base}.{alias.name}" in modules else base
    elif (literal := import_module_literal(node)) is not None:
        yield literal
    elif isinstance(node, ast.Constant) and isinstance(node.value, str):
        if "." in node.value and node.value in modules:
            yield node.value  # a lazy-attribute table


def import_edges(root: Path) -> dict[str, set[str]]:
    """Module → the project modules importing it runs (see the module docstring)."""
    paths = project_modules(root)
    modules = set(paths)
    edges: dict[str, set[str]] = {}
    for module, path in paths.items():
        tree = ast.parse(path.read_text(encoding="utf-8"))
        skipped = _type_checking_nodes(tree)
        own_packages = {module.rsplit(".", k)[0] for k in range(1, module.count(".") + 1)}
        found: set[str] = set()
        for node in ast.walk(tree):
            if id(node) in skipped:
                continue
            for name in _imported(node, module, path.name == "__init__.py", modules):
                while name and name not in modules:  # a name inside a module: the module
                    name = name.rpartition(".")[0]
                if not name or name == module:
                    continue
                found.add(name)
                parent = name.rpartition(".")[0]
                while parent:  # packages run their __init__ before their submodules
                    if parent not in own_packages:
                        found.add(parent)
                    parent = parent.rpartition(".")[0]
        edges[module] = found - {module}
    return edges


def cycles(edges: dict[str, set[str]]) -> set[frozenset[str]]:
    """The strongly connected components of more than one module (Tarjan, iteratively)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: set[frozenset[str]] = set()
    for start in sorted(edges):
        if start in index:
            continue
        work = [(start, iter(sorted(edges[start])))]
        index[start] = low[start] = len(index)
        stack.append(start)
        on_stack.add(start)
        while work:
            node, successors = work[-1]
            for successor in successors:
                if successor not in index:
                    index[successor] = low[successor] = len(index)
                    stack.append(successor)
                    on_stack.add(successor)
                    work.append((successor, iter(sorted(edges.get(successor, ())))))
                    break
                if successor in on_stack:
                    low[node] = min(low[node], index[successor])
            else:
                work.pop()
                if work:
                    low[work[-1][0]] = min(low[work[-1][0]], low[node])
                if low[node] == index[node]:
                    component = set()
                    while True:
                        member = stack.pop()
                        on_stack.discard(member)
                        component.add(member)
                        if member == node:
                            break
                    if len(component) > 1:
                        found.add(frozenset(component))
    return found


def _describe(found: set[frozenset[str]]) -> list[str]:
    return sorted(" <-> ".join(sorted(component)) for component in found)


@functools.cache
def _project_cycles() -> frozenset[frozenset[str]]:
    return frozenset(cycles(import_edges(ROOT)))


def test_no_import_cycles() -> None:
    assert _describe(_project_cycles() - KNOWN_CYCLES) == []


def test_every_known_cycle_still_exists() -> None:
    """Remove a cycle from :data:`KNOWN_CYCLES` once it is broken."""
    assert _describe(KNOWN_CYCLES - _project_cycles()) == []


def _copy_tree(target: Path) -> None:
    for package in PACKAGES:
        shutil.copytree(ROOT / package, target / package, ignore=shutil.ignore_patterns("*.pyc"))


@pytest.mark.parametrize(
    ("file", "added", "cycle"),
    [
        # a deferred import inside a function closes a cycle just the same
        (
            "dpcount/graph/labels.py",
            "def _added() -> None:\n    from dpcount.io import read_pairs\n",
            "dpcount.io",
        ),
        # a lazy-attribute table names the module in a string
        (
            "dpcount/errors.py",
            '_LAZY = {"PersonItemGraph": "dpcount.graph.person_item"}\n',
            "dpcount.graph.person_item",
        ),
        # importing a submodule runs its package's __init__ first
        ("dpcount/graph/dense.py", "import dpcount.io._sql\n", "dpcount.io"),
        # importlib with a literal name
        (
            "dpcount/common/rng.py",
            "def _added() -> None:\n    importlib.import_module('matching')\n",
            "matching",
        ),
    ],
)
def test_the_check_finds_an_added_cycle(tmp_path: Path, file: str, added: str, cycle: str) -> None:
    """Power: a copy of the tree with one import added must show a new cycle through it."""
    _copy_tree(tmp_path)
    target = tmp_path / file
    target.write_text(target.read_text(encoding="utf-8") + "\n\n" + added, encoding="utf-8")
    new = cycles(import_edges(tmp_path)) - _project_cycles()
    module = module_name(target, tmp_path)
    assert any(module in component and cycle in component for component in new), new


def test_type_checking_imports_are_not_edges(tmp_path: Path) -> None:
    _copy_tree(tmp_path)
    target = tmp_path / "dpcount" / "graph" / "labels.py"
    added = "\nfrom typing import TYPE_CHECKING\nif TYPE_CHECKING:\n    import dpcount.io\n"
    target.write_text(target.read_text(encoding="utf-8") + added, encoding="utf-8")
    assert cycles(import_edges(tmp_path)) == _project_cycles()
