"""Names without traps: no public function hides a module, and result types say what they are."""

from __future__ import annotations

import importlib
import inspect
import pkgutil
import types
import warnings

import pytest

import mechanisms
from mechanisms.release import Release

PACKAGES = ["mechanisms", "mechanisms.set_union", "mechanisms.bayesian_ngrams"]


def _modules() -> list[types.ModuleType]:
    found = []
    for info in pkgutil.walk_packages(mechanisms.__path__, "mechanisms."):
        found.append(importlib.import_module(info.name))
    return found


@pytest.mark.parametrize("package", PACKAGES)
def test_no_public_name_hides_a_module(package: str) -> None:
    """``mechanisms.r2t`` was a function over a module of that name: ``.r2t_loss`` failed."""
    pkg = importlib.import_module(package)
    for info in pkgutil.iter_modules(pkg.__path__):
        module = importlib.import_module(f"{package}.{info.name}")
        assert getattr(pkg, info.name) is module, f"{package}.{info.name} is not the module"
        assert not isinstance(getattr(pkg, info.name, None), types.FunctionType)


def test_every_result_and_release_type_is_a_release() -> None:
    for module in _modules():
        for name, value in vars(module).items():
            if inspect.isclass(value) and value.__module__ == module.__name__:
                if name.endswith(("Result", "Release")):
                    assert issubclass(value, Release), f"{module.__name__}.{name}"


def test_the_laplace_building_block_says_what_it_is() -> None:
    from mechanisms import laplace

    assert not issubclass(laplace.LaplaceLowerBound, Release)
    with pytest.warns(DeprecationWarning, match="LaplaceLowerBound"):
        assert laplace.LaplaceRelease is laplace.LaplaceLowerBound
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", DeprecationWarning)  # warns on the first access only
        assert mechanisms.LaplaceRelease is laplace.LaplaceLowerBound
    assert "LaplaceRelease" not in mechanisms.__all__


def test_every_exported_name_resolves() -> None:
    for name in mechanisms.__all__:
        assert getattr(mechanisms, name) is not None
