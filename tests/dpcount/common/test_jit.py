"""Kernels compiled on demand: the cache directory, and interpreted versus compiled runs."""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap
from pathlib import Path

import numpy as np
import pytest

from dpcount.common import jit as _jit
from dpcount.common.jit import CACHE_ENV, INTERPRETED_BUDGET_CALLS, cache_dir, kernel

ROOT = Path(__file__).resolve().parents[3]


def test_a_set_cache_dir_is_honoured_and_left_alone(tmp_path: Path) -> None:
    env = {CACHE_ENV: str(tmp_path / "mine")}
    assert cache_dir(env) == str(tmp_path / "mine")
    assert env == {CACHE_ENV: str(tmp_path / "mine")}
    assert not (tmp_path / "mine").exists()  # numba creates it when it writes


def test_unset_or_empty_cache_dir_becomes_the_user_cache_dir(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    target = tmp_path / "cache" / "dpcount" / "numba"
    monkeypatch.setattr(_jit, "default_cache_dir", lambda: target)
    for env in ({}, {CACHE_ENV: ""}):
        assert cache_dir(env) == str(target)
        assert env[CACHE_ENV] == str(target) and target.is_dir()


def test_an_unwritable_cache_dir_leaves_the_choice_to_numba(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    blocker = tmp_path / "a-file"
    blocker.write_text("not a directory")
    monkeypatch.setattr(_jit, "default_cache_dir", lambda: blocker / "numba")
    env: dict[str, str] = {}
    assert cache_dir(env) is None
    assert env == {}


def _run_child(script: str, env_changes: dict[str, str | None]) -> subprocess.CompletedProcess:
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    for key, value in env_changes.items():
        if value is None:
            env.pop(key, None)
        else:
            env[key] = value
    return subprocess.run(
        [sys.executable, "-c", textwrap.dedent(script)],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=300,
    )


# A kernel from a real source file (numba caches nothing for code given with -c).
KERNEL_SCRIPT = """
    import os
    import numpy as np
    from mechanisms.generalized_exponential import _hull

    hull = _hull.compiled(np.array([0.0, 1.0, 0.0]), np.array([1.0, 2.0, 3.0]))
    print(hull.tolist(), os.environ.get("NUMBA_CACHE_DIR"))
"""


def test_compiled_kernels_are_cached_in_the_user_cache_dir(tmp_path: Path) -> None:
    # platformdirs puts the user cache under XDG_CACHE_HOME on Linux.
    if not sys.platform.startswith("linux"):
        pytest.skip("XDG_CACHE_HOME locates the user cache dir on Linux only")
    result = _run_child(KERNEL_SCRIPT, {"NUMBA_CACHE_DIR": None, "XDG_CACHE_HOME": str(tmp_path)})
    assert result.returncode == 0, result.stderr[-2000:]
    target = tmp_path / "dpcount" / "numba"
    assert result.stdout.split() == ["[0,", "1,", "2]", str(target)]
    assert any(target.rglob("*.nbi")), "no numba cache index was written"


def test_kernels_still_run_when_no_cache_dir_is_writable(tmp_path: Path) -> None:
    if not sys.platform.startswith("linux"):
        pytest.skip("XDG_CACHE_HOME locates the user cache dir on Linux only")
    blocker = tmp_path / "a-file"
    blocker.write_text("not a directory")
    result = _run_child(KERNEL_SCRIPT, {"NUMBA_CACHE_DIR": None, "XDG_CACHE_HOME": str(blocker)})
    assert result.returncode == 0, result.stderr[-2000:]
    assert result.stdout.split() == ["[0,", "1,", "2]", "None"]


def test_small_inputs_run_interpreted_until_compiling_pays() -> None:
    @kernel("(int64[::1],)", interpret_below=100)
    def fill(out):
        for i in range(out.size):
            out[i] = i * i
        return out.sum()

    assert fill.select(100) is fill.compiled  # not small: compiled
    fresh = kernel("(int64[::1],)", interpret_below=100)(fill.py_func)
    assert fresh.select(99) is fresh.interpreted and not fresh.is_compiled
    calls = 1
    while fresh.select(99) is fresh.interpreted:
        calls += 1
        assert calls < 10 * INTERPRETED_BUDGET_CALLS
    # After about the budget's worth of small calls the loop is worth compiling, and once
    # compiled a kernel stays compiled whatever the size.
    assert INTERPRETED_BUDGET_CALLS - 1 <= calls <= INTERPRETED_BUDGET_CALLS + 1
    assert fresh.is_compiled and fresh.select(1) is fresh.compiled
    out_a, out_b = np.zeros(7, dtype=np.int64), np.zeros(7, dtype=np.int64)
    assert fresh.interpreted(out_a) == fresh.compiled(out_b) == 91
    assert np.array_equal(out_a, out_b)


def test_a_kernel_rejects_arguments_outside_its_signature() -> None:
    @kernel("(ro(int64[::1]),)")
    def first(values):
        return values[0]

    assert first(np.arange(3)) == 0
    with pytest.raises(TypeError):
        first(np.arange(3, dtype=np.int32))


def test_kernels_pickle_by_reference() -> None:
    import pickle

    from matching.incremental import _incremental_kernel

    assert pickle.loads(pickle.dumps(_incremental_kernel)) is _incremental_kernel


@kernel("(int64,)", inline=True)
def _plus_one(x):
    return x + 1


@kernel("(int64,)")
def _calls_plus_one(x):
    return _plus_one(x) * 2


@pytest.fixture
def builds(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """The names of the kernels built (compiled or loaded) while the test runs, in order."""
    built: list[str] = []
    compile_once = _jit.Kernel._compile

    def counted(self):
        built.append(self.__name__)
        return compile_once(self)

    monkeypatch.setattr(_jit.Kernel, "_compile", counted)
    return built


def test_an_inline_kernel_is_built_into_its_caller_not_on_its_own(builds: list[str]) -> None:
    assert _calls_plus_one(3) == 8 == _calls_plus_one.interpreted(3)
    assert builds == ["_calls_plus_one"] and not _plus_one.is_compiled
    assert _plus_one(3) == 4  # called from Python, it is compiled after all
    assert builds == ["_calls_plus_one", "_plus_one"]


def test_threads_calling_a_new_kernel_at_once_build_it_once(builds: list[str]) -> None:
    import threading

    @kernel("(int64,)")
    def twice(x):
        return 2 * x

    start = threading.Barrier(4)
    results = []

    def call() -> None:
        start.wait()
        results.append(twice(21))

    threads = [threading.Thread(target=call) for _ in range(4)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert results == [42] * 4
    assert builds == ["twice"]
