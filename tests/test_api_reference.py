"""The API reference (docs/api.md) documents every public name of every public module.

A public module is one whose dotted path has no segment starting with ``_`` (``dpcount.cli``,
a command, not a library, is left out); its public names are its ``__all__``.  A name counts
as documented when the object it refers to appears in the reference under any path (a
re-export documented at the package level covers the defining module too).
"""

from __future__ import annotations

import importlib
import pkgutil
import re
import types
import warnings
from collections.abc import Iterator
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
PACKAGES = ("dpcount", "matching", "mechanisms")
#: Commands and deprecated paths: not part of the library's reference.
LEFT_OUT = ("dpcount.cli", "dpcount.__main__")
_DIRECTIVE = re.compile(r"^\.\. (auto\w+):: (\S+)\n((?:[ \t]+:[^\n]*\n)*)", re.MULTILINE)
_ANY_DIRECTIVE = re.compile(r"^\.\. auto\w+::", re.MULTILINE)


def public_modules() -> Iterator[str]:
    """Every public module of the three packages, by name."""
    for package in PACKAGES:
        yield package
        path = importlib.import_module(package).__path__
        for info in pkgutil.walk_packages(path, prefix=f"{package}."):
            parts = info.name.split(".")
            if any(p.startswith("_") for p in parts) or info.name.startswith(LEFT_OUT):
                continue
            yield info.name


def _is_deprecated_shim(module: types.ModuleType) -> bool:
    return "deprecated" in (module.__doc__ or "").splitlines()[0].lower()


def documented_objects(text: str) -> dict[int, str]:
    """The objects the reference documents (by ``id``), each with the path it is shown under."""
    assert len(_DIRECTIVE.findall(text)) == len(_ANY_DIRECTIVE.findall(text)), (
        "a directive the test cannot read"
    )
    shown: dict[int, str] = {}
    for kind, target, options in _DIRECTIVE.findall(text):
        if kind != "automodule":
            module_name, _, attr = target.rpartition(".")
            shown[id(getattr(importlib.import_module(module_name), attr))] = target
            continue
        module = importlib.import_module(target)
        if ":no-members:" in options:
            names: list[str] = []
        elif match := re.search(r":members:[ \t]*(\S[^\n]*)", options):
            names = [n.strip() for n in match.group(1).split(",")]
        else:
            names = list(getattr(module, "__all__", ()))
        for name in names:
            shown[id(getattr(module, name))] = f"{target}.{name}"
    return shown


def missing_names(text: str) -> list[str]:
    """Public names of public modules that the reference does not show."""
    shown = documented_objects(text)
    missing = []
    for name in public_modules():
        module = importlib.import_module(name)
        if _is_deprecated_shim(module):
            continue
        for attr in getattr(module, "__all__", ()):
            value = getattr(module, attr)
            if isinstance(value, types.ModuleType) or id(value) in shown:
                continue
            missing.append(f"{name}.{attr}")
    return missing


@pytest.mark.filterwarnings("ignore::DeprecationWarning")
def test_every_public_name_is_in_the_reference() -> None:
    missing = missing_names((ROOT / "docs" / "api.md").read_text(encoding="utf-8"))
    assert missing == [], "not in docs/api.md: " + ", ".join(missing)


@pytest.mark.filterwarnings("ignore::DeprecationWarning")
def test_the_check_notices_a_module_left_out() -> None:
    """Power check: without the reference's section on dpcount.validation, its names are missing."""
    text = (ROOT / "docs" / "api.md").read_text(encoding="utf-8")
    section = re.compile(r"^\.\. automodule:: dpcount\.validation\n(?:[ \t]+:[^\n]*\n)*", re.M)
    assert section.search(text)
    assert "dpcount.validation.check_epsilon" in missing_names(section.sub("", text))


def test_every_public_module_has_all() -> None:
    """A public module says which of its names are public (the reference is built from them)."""
    with warnings.catch_warnings():  # the old paths' shims warn on purpose
        warnings.simplefilter("ignore", DeprecationWarning)
        without = [
            m for m in public_modules() if not hasattr(importlib.import_module(m), "__all__")
        ]
    assert without == []
