"""Kernels compiled in a background process while this one works, then loaded from the cache."""

from __future__ import annotations

from collections.abc import Callable
from types import ModuleType

import pytest

from dpcount.common import precompile
from dpcount.common.jit import is_cached

#: The real check (the fixture below replaces it in the module).
_SPARE_CORE = precompile._spare_core


def _cache_hits(module: ModuleType, name: str) -> int:
    return sum(getattr(module, name).compiled.stats.cache_hits.values())


@pytest.fixture(autouse=True)
def _spare_core(monkeypatch: pytest.MonkeyPatch) -> None:
    """A core to spare, whatever the load of the machine running the tests."""
    monkeypatch.setattr(precompile, "_spare_core", lambda: True)
    monkeypatch.delenv(precompile.ENV, raising=False)


def test_a_background_process_compiles_and_this_one_loads(
    fresh_kernels: Callable[[str], ModuleType],
) -> None:
    module = fresh_kernels("precompiled_kernels")
    assert not is_cached(module.second) and not is_cached(module.first)
    with precompile.precompiling([module.second]) as started:
        assert started
        assert module.second(1) == 4  # waits for the other process, then loads
    assert is_cached(module.second) and is_cached(module.first)  # the callee came along
    assert _cache_hits(module, "second") == 1 and _cache_hits(module, "first") == 1


def test_nothing_starts_when_cached_disabled_busy_or_switched_off(
    fresh_kernels: Callable[[str], ModuleType], monkeypatch: pytest.MonkeyPatch
) -> None:
    module = fresh_kernels("not_precompiled_kernels")
    with precompile.precompiling([module.first], enabled=False) as started:
        assert not started
    monkeypatch.setenv(precompile.ENV, "0")
    with precompile.precompiling([module.first]) as started:
        assert not started
    monkeypatch.delenv(precompile.ENV)
    monkeypatch.setattr(precompile, "_spare_core", lambda: False)  # every core busy
    with precompile.precompiling([module.first]) as started:
        assert not started
    monkeypatch.setenv(precompile.ENV, "1")  # … unless asked regardless
    with precompile.precompiling([module.first]) as started:
        assert started
        assert module.first(1) == 2  # waits, then loads what the other process compiled
    assert _cache_hits(module, "first") == 1
    monkeypatch.delenv(precompile.ENV)
    monkeypatch.setattr(precompile, "_spare_core", lambda: True)
    with precompile.precompiling([module.first]) as started:  # built in this process
        assert not started
    module.first._compiled = None  # as in a new process: found in the cache
    with precompile.precompiling([module.first]) as started:
        assert not started


def test_a_failed_background_process_leaves_the_work_to_this_one(
    fresh_kernels: Callable[[str], ModuleType], monkeypatch: pytest.MonkeyPatch
) -> None:
    module = fresh_kernels("failed_precompiled_kernels")
    monkeypatch.setenv("PYTHONPATH", "/nonexistent")  # the other process cannot import it …
    monkeypatch.setattr(precompile, "_package_root", lambda name: "/nonexistent")
    with precompile.precompiling([module.second]) as started:
        assert started
        assert module.second(2) == 6  # … so this one compiles
    assert _cache_hits(module, "second") == 0


def test_a_spare_core_is_read_from_the_load_average(monkeypatch: pytest.MonkeyPatch) -> None:
    spare = _SPARE_CORE
    monkeypatch.setattr(precompile.os, "cpu_count", lambda: 2)
    monkeypatch.setattr(precompile.os, "getloadavg", lambda: (0.7, 0.0, 0.0))
    assert spare()
    monkeypatch.setattr(precompile.os, "getloadavg", lambda: (1.6, 0.0, 0.0))
    assert not spare()
