"""The compiled kernels as the command line sees them: a note on the first compile, and the
kernels a command needs compiled in another process while it reads a large file.

A first run on a new install compiles dpcount's numba kernels (seconds; later runs load them
from the cache, :mod:`dpcount.common.jit`).  Where progress is shown, the command says so once
on stderr.  ``count`` and ``curve`` on a large FILE start compiling their counting kernel before
reading (:mod:`dpcount.common.precompile`), so that the two overlap.

Examples
--------
>>> counting_kernels("greedy")
[<dpcount kernel matching.greedy._greedy_rounds(ro(int64[::1]), ro(int32[::1]), int64, int64)>]
>>> counting_kernels("sampling")
[]
"""

from __future__ import annotations

import glob
import importlib
import os
from collections.abc import Iterator
from contextlib import AbstractContextManager, contextmanager, nullcontext
from pathlib import Path
from typing import TYPE_CHECKING

from ._common import Source
from ._progress import say

if TYPE_CHECKING:
    from dpcount.common.jit import Kernel

__all__ = ["COMPILE_NOTE", "LARGE_FILE_BYTES", "compile_note", "compiling_ahead"]

COMPILE_NOTE = (
    "compiling dpcount's kernels for this machine, once (they are cached for the next runs)…"
)
#: Files at least this large hold more pairs than the kernels run interpreted for
#: (:data:`dpcount.common.jit.SMALL_PAIRS`: 50k pairs are ~0.2 MB of Parquet, ~0.6 MB of CSV),
#: so the kernels will be compiled and compiling them ahead is never wasted.
LARGE_FILE_BYTES = 1 << 20

#: The kernel that computes DC(D;ℓ) for each ``--counting`` (``count``) or ``--method``
#: (``curve``) that has one; its callees are compiled with it.
_COUNTING_KERNELS = {
    "matching": "matching.incremental:_exact_curve",
    "auto": "matching.incremental:_exact_curve",
    "incremental": "matching.incremental:_exact_curve",
    "greedy": "matching.greedy:_greedy_rounds",
}


@contextmanager
def compile_note(command: str, *, enabled: bool) -> Iterator[None]:
    """While the block runs, say once on stderr when a kernel is compiled, not loaded."""
    if not enabled:
        yield
        return
    from dpcount.common.jit import before_compiling, is_cached

    said = False

    def note_once(kernel: Kernel) -> None:
        nonlocal said
        if not said and not is_cached(kernel):
            said = True
            say(f"dpcount {command}: note: {COMPILE_NOTE}")

    with before_compiling(note_once):
        yield


def counting_kernels(method: str) -> list[Kernel]:
    """The kernel computing DC(D;ℓ) with ``method`` (none for the NumPy-only methods)."""
    name = _COUNTING_KERNELS.get(method)
    if name is None:
        return []
    module, _, attribute = name.partition(":")
    found: Kernel = getattr(importlib.import_module(module), attribute)
    return [found]


def compiling_ahead(source: Source, method: str) -> AbstractContextManager[bool]:
    """Compile the counting kernel of ``method`` in another process while ``source`` is read,
    when it is a large FILE (a no-op otherwise; yields whether a process started)."""
    if source.kind != "file" or _bytes(source.value) < LARGE_FILE_BYTES:
        return nullcontext(False)
    kernels = counting_kernels(method)
    if not kernels:
        return nullcontext(False)
    from dpcount.common.precompile import precompiling

    return precompiling(kernels)


def _bytes(path: str) -> int:
    """Total size of the file, the files of the folder or the glob ``path`` (0 if none)."""
    total = 0
    for match in glob.glob(path) if glob.has_magic(path) else [path]:
        found = Path(match)
        files = found.rglob("*") if found.is_dir() else [found]
        total += sum(os.path.getsize(f) for f in files if f.is_file())
    return total
