"""Compile kernels in a background process while this one reads its data.

A first run with an empty kernel cache spends most of its extra time compiling the kernels that
run after the data is read (``benchmarks/results/first_call.md``).  :func:`precompiling` starts
another Python process that compiles them into numba's on-disk cache while this process reads;
when this process reaches one of them (or a kernel it calls), it waits for that process and
then loads the kernel from the cache instead of compiling it.  Another process rather than a
thread, because numba holds the GIL for most of a compile and would stall the reader.

The overlap pays only with a core to spare: the other process repeats numba's start-up (about
a second of CPU), and on a machine whose cores are all busy the two processes only share the
same CPU time.  So it starts only when the 1-minute load average leaves a core idle (measured
in ``benchmarks/results/first_call.md``: with free cores the first count of a 7.1M-pair file
overlaps most of its reading with the compile; on a saturated machine it took longer than
compiling in one process).  ``DPCOUNT_PRECOMPILE=1`` starts it regardless, ``=0`` never.
Nothing starts either when the kernels are cached already or when there is no cache directory
to share.  If the other process fails or is slower than :data:`WAIT_SECONDS`, this process
compiles the kernels itself: the helper can only change how long a first run takes, never what
it computes.

Examples
--------
>>> from dpcount.common.jit import kernel
>>> @kernel("(int64,)")
... def plus_one(x):
...     return x + 1
>>> with precompiling([plus_one], enabled=False) as started:
...     started, plus_one(1)
(False, 2)
"""

from __future__ import annotations

import os
import subprocess
import sys
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path

from .jit import Kernel, _kernel_named, before_compiling, cache_dir, is_cached

__all__ = ["ENV", "WAIT_SECONDS", "precompiling"]

#: ``0``: compile in this process only; ``1``: start the other process even without a spare core.
ENV = "DPCOUNT_PRECOMPILE"
#: The longest this process waits for the other one before compiling itself.
WAIT_SECONDS = 300.0


@contextmanager
def precompiling(kernels: Sequence[Kernel], *, enabled: bool = True) -> Iterator[bool]:
    """Compile the uncached ``kernels`` in another process while the block runs.

    Yields whether a process was started.  Inside the block, building one of the kernels or
    of their callees first waits for that process.  On leaving the block a process still
    running is stopped (a cache entry is written whole or not at all, so stopping it midway
    leaves nothing broken).
    """
    process = _start(kernels) if enabled else None
    if process is None:
        yield False
        return
    covered = set(kernels).union(*(k.callees() for k in kernels))

    def wait(kernel: Kernel) -> None:
        if kernel in covered and process.poll() is None:
            try:
                process.wait(WAIT_SECONDS)
            except subprocess.TimeoutExpired:
                _stop(process)

    try:
        with before_compiling(wait):
            yield True
    finally:
        _stop(process)


def _start(kernels: Sequence[Kernel]) -> subprocess.Popen[bytes] | None:
    """The process compiling the uncached ``kernels``, or None when there is nothing to do."""
    wanted = os.environ.get(ENV, "")
    if wanted == "0" or (wanted != "1" and not _spare_core()):
        return None
    if cache_dir() is None:  # (sets NUMBA_CACHE_DIR for the other process to share)
        return None
    cold = [k for k in kernels if not k.is_compiled and not is_cached(k)]
    if not cold:
        return None
    roots = {_package_root(k.__module__) for k in cold}
    path = os.pathsep.join([*sorted(roots), os.environ.get("PYTHONPATH", "")]).rstrip(os.pathsep)
    names = [f"{k.__module__}:{k.__qualname__}" for k in cold]
    try:
        return subprocess.Popen(
            [sys.executable, "-m", __name__, *names],
            stdin=subprocess.DEVNULL,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
            env=os.environ | {"PYTHONPATH": path},
        )
    except OSError:  # no process to spare: compile here
        return None


def _spare_core() -> bool:
    """Whether the 1-minute load average leaves at least one core idle."""
    try:
        load = os.getloadavg()[0]
    except OSError:  # not available on this system: assume busy
        return False
    return load <= (os.cpu_count() or 1) - 1


def _package_root(module: str) -> str:
    """The folder that holds ``module``'s top-level package (what the other process imports)."""
    depth = module.count(".")
    return str(Path(sys.modules[module].__file__ or "").resolve().parents[depth])


def _stop(process: subprocess.Popen[bytes]) -> None:
    if process.poll() is None:
        process.terminate()
    process.wait()


def main(names: Sequence[str]) -> int:
    """Compile the kernels named ``module:qualname`` (the other process's entry point)."""
    for name in names:
        module, _, qualname = name.partition(":")
        _kernel_named(module, qualname).compiled  # noqa: B018 - compiles into the cache
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
