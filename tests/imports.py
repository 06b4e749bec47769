"""Reading a module's imports from its source: shared by the layering and the cycle tests."""

from __future__ import annotations

import ast
from pathlib import Path


def module_name(path: Path, root: Path) -> str:
    """The dotted name of the module at ``path`` (a package's ``__init__`` is the package).

    Examples
    --------
    >>> module_name(Path("/r/dpcount/io/__init__.py"), Path("/r"))
    'dpcount.io'
    """
    parts = path.relative_to(root).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def from_module(node: ast.ImportFrom, module: str, is_package: bool) -> str:
    """The absolute name of the module a ``from … import`` statement in ``module`` names.

    Examples
    --------
    >>> from_module(ast.parse("from ..b import c").body[0], "p.q.r", False)
    'p.b'
    """
    base = node.module or ""
    if not node.level:
        return base
    anchor = (module if is_package else module.rpartition(".")[0]).split(".")
    anchor = anchor[: len(anchor) - (node.level - 1)]
    return ".".join([*anchor, base] if base else anchor)


def import_module_literal(node: ast.AST) -> str | None:
    """The literal name in ``importlib.import_module("…")`` / ``import_module("…")``, if any."""
    if (
        isinstance(node, ast.Call)
        and getattr(node.func, "attr", getattr(node.func, "id", None)) == "import_module"
        and node.args
        and isinstance(node.args[0], ast.Constant)
        and isinstance(node.args[0].value, str)
    ):
        return node.args[0].value
    return None
