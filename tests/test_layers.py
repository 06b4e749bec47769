"""The three layers import downwards only: dpcount <- matching <- mechanisms.

``dpcount`` (the graph, readers, shared rules) imports neither ``matching`` nor ``mechanisms``;
``matching`` never imports ``mechanisms``.  ``dpcount.cli`` and ``dpcount.spark`` are front ends
over all three layers and are exempt.  Every import counts, also one inside a function and
``importlib.import_module("...")`` with a literal name.
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

from tests.imports import from_module, import_module_literal, module_name

ROOT = Path(__file__).resolve().parents[1]

# package -> (packages it must not import, its sub-packages exempt from the rule)
RULES = {
    "dpcount": (("matching", "mechanisms"), ("dpcount.cli", "dpcount.spark")),
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


@pytest.mark.parametrize(
    ("file", "line"),
    [
        ("dpcount/graph/person_item.py", "from mechanisms.noise import float_laplace"),
        ("dpcount/io/pairs.py", "    import matching  # inside a function"),
        ("matching/flow.py", "from mechanisms import gem"),
        ("matching/greedy.py", "importlib.import_module('mechanisms.r2t')"),
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
