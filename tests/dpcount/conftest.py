"""Shared fixtures: one TPC-H cache per test session, inside pytest's temporary folder; fresh
kernels compiled into a private kernel cache."""

from __future__ import annotations

import importlib
from collections.abc import Callable
from pathlib import Path
from types import ModuleType

import pytest

from dpcount.common.jit import CACHE_ENV, _numba

#: Two kernels, the second calling the first.
_KERNELS = """
from dpcount.common.jit import kernel

@kernel("(int64,)")
def first(x):
    return x + 1

@kernel("(int64,)")
def second(x):
    return first(x) * 2
"""


@pytest.fixture(scope="session")
def tpch_cache(tmp_path_factory: pytest.TempPathFactory):
    """A cache folder for generated TPC-H tables, shared by the tests of one session."""
    return tmp_path_factory.mktemp("tpch-cache")


@pytest.fixture
def fresh_kernels(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Callable[[str], ModuleType]:
    """Import a new module ``NAME`` of two kernels (``first``; ``second`` calls it) that no
    cache has seen, with numba's cache (this process's and child processes') in ``tmp_path``."""
    numba = _numba()
    cache = tmp_path / "numba-cache"
    monkeypatch.setenv(CACHE_ENV, str(cache))
    monkeypatch.setattr(numba.core.config, "CACHE_DIR", str(cache))
    monkeypatch.syspath_prepend(str(tmp_path))

    def load(name: str) -> ModuleType:
        (tmp_path / f"{name}.py").write_text(_KERNELS)
        return importlib.import_module(name)

    return load
