"""The three layers import downwards only: dpcount <- matching <- mechanisms.

``dpcount`` (the graph, readers, shared rules) imports neither ``matching`` nor ``mechanisms``;
``matching`` never imports ``mechanisms``.  ``dpcount.cli``, the front end over all three
layers, is the one exemption (Spark's data plumbing, ``dpcount.spark``, obeys the rule; its
mechanisms are ``mechanisms.spark``).  Every import counts, also one inside a function and
``importlib.import_module("...")`` with a literal name.

And no module takes another room's private names: ``matching`` and ``mechanisms`` use only
public names of ``dpcount``, and the rooms of ``dpcount`` (``common``, ``graph``, ``io`` …) only
each other's public ones.
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

from tests.imports import from_module, import_module_literal, module_name

ROOT = Path(__file__).resolve().parents[1]

# package -> (packages it must not import, its sub-packages exempt from the rule)
RULES = {
    "dpcount": (("matching", "mechanisms"), ("dpcount.cli",)),
    "matching": (("mechanisms",), ()),
}


def imported_modules(source: str, module: str, is_package: bool) -> list[tuple[int, str]]:
    """(line, absolute module name) of every import in ``source``.

    Examples
    --------
    >>> imported_modules("import a.b\\nfrom .c import d\\nimport_module('e')", "p.q", False)
    [(1, 'a.b'), (2, 'p.c'), (3, 'e')]
    """
    found = []
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Import):
            found += [(node.lineno, alias.name) for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            found.append((node.lineno, from_module(node, module, is_package)))
        elif (literal := import_module_literal(node)) is not None:
            found.append((node.lineno, literal))
    return found


def violations(root: Path) -> list[str]:
    """Every import that goes against :data:`RULES`, as ``file:line imports module``."""
    out = []
    for package, (forbidden, exempt) in RULES.items():
        for path in sorted((root / package).rglob("*.py")):
            module = module_name(path, root)
            if any(module == e or module.startswith(e + ".") for e in exempt):
                continue
            source = path.read_text(encoding="utf-8")
            for line, name in imported_modules(source, module, path.name == "__init__.py"):
                top = name.split(".")[0]
                if top in forbidden:
                    out.append(f"{path.relative_to(root)}:{line} imports {name}")
    return out


def test_layers_import_downwards_only() -> None:
    assert violations(ROOT) == []


def _room(module: str) -> str:
    """The room a module belongs to: a sub-package of ``dpcount``, else its top-level package."""
    parts = module.split(".")
    if parts[0] == "dpcount" and len(parts) > 1 and not parts[1].startswith("_"):
        return ".".join(parts[:2])
    return parts[0]


def _private_owner(module: str, names: list[str]) -> str | None:
    """The module whose private name an import takes (``a._b`` or ``from a import _b``)."""
    parts = module.split(".")
    for k, part in enumerate(parts):
        if part.startswith("_") and not part.startswith("__"):
            return ".".join(parts[:k]) or part
    if any(n.startswith("_") and not n.startswith("__") for n in names):
        return module
    return None


def private_imports(root: Path, packages: tuple[str, ...] = ("dpcount", "matching", "mechanisms")):
    """Every import of another room's private module or name, as ``file:line takes name``."""
    out = []
    for package in packages:
        for path in sorted((root / package).rglob("*.py")):
            module = module_name(path, root)
            for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
                if isinstance(node, ast.ImportFrom):
                    target = from_module(node, module, path.name == "__init__.py")
                    names = [alias.name for alias in node.names]
                elif isinstance(node, ast.Import):
                    target, names = "", []
                    for alias in node.names:
                        if _private_owner(alias.name, []) is not None:
                            target = alias.name
                else:
                    continue
                owner = _private_owner(target, names) if target else None
                if owner is not None and _room(owner) != _room(module):
                    out.append(f"{path.relative_to(root)}:{node.lineno} takes {target} {names}")
    return out


def test_no_module_takes_another_rooms_private_names() -> None:
    assert private_imports(ROOT) == []


@pytest.mark.parametrize(
    ("file", "line"),
    [
        ("mechanisms/race_to_the_top.py", "from dpcount.io._strategy import stream_pairs"),
        ("matching/flow.py", "from dpcount.graph.labels import label_kind, _is_nan"),
        ("dpcount/graph/labels.py", "import dpcount.io._sql"),
        ("dpcount/io/pairs.py", "from dpcount.graph.grouped import _offsets"),
    ],
)
def test_the_check_finds_a_private_import(tmp_path: Path, file: str, line: str) -> None:
    """Power: one private import added to a copy of the tree is reported."""
    for package in ("dpcount", "matching", "mechanisms"):
        for path in (ROOT / package).rglob("*.py"):
            target = tmp_path / path.relative_to(ROOT)
            target.parent.mkdir(parents=True, exist_ok=True)
            target.write_text(path.read_text(encoding="utf-8"), encoding="utf-8")
    changed = tmp_path / file
    changed.write_text(changed.read_text(encoding="utf-8") + f"\n{line}\n", encoding="utf-8")
    found = private_imports(tmp_path)
    assert len(found) == 1 and found[0].startswith(file), found


@pytest.mark.parametrize(
    ("file", "line"),
    [
        ("dpcount/graph/person_item.py", "from mechanisms.noise import float_laplace"),
        ("dpcount/io/pairs.py", "    import matching  # inside a function"),
        ("matching/flow.py", "from mechanisms import gem"),
        ("matching/greedy.py", "importlib.import_module('mechanisms.r2t')"),
        ("dpcount/spark/frames.py", "from mechanisms.set_union import calibration"),
    ],
)
def test_the_check_fails_on_an_upward_import(tmp_path: Path, file: str, line: str) -> None:
    """Power: a copy of the tree with one upward import added must be reported."""
    for package in RULES:
        for path in (ROOT / package).rglob("*.py"):
            target = tmp_path / path.relative_to(ROOT)
            target.parent.mkdir(parents=True, exist_ok=True)
            target.write_text(path.read_text(encoding="utf-8"), encoding="utf-8")
    assert violations(tmp_path) == []
    target = tmp_path / file
    source = target.read_text(encoding="utf-8")
    if line.startswith("    "):
        source += f"\n\ndef _added() -> None:\n{line}\n"
    else:
        source += f"\n{line}\n"
    target.write_text(source, encoding="utf-8")
    found = violations(tmp_path)
    assert len(found) == 1 and found[0].startswith(file), found


def test_front_ends_are_exempt(tmp_path: Path) -> None:
    cli = tmp_path / "dpcount" / "cli" / "_count.py"
    cli.parent.mkdir(parents=True)
    cli.write_text("import mechanisms\n", encoding="utf-8")
    (tmp_path / "matching").mkdir()
    assert violations(tmp_path) == []
