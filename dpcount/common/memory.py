"""Give freed heap memory back to the operating system between the reader's phases.

The reader frees many blocks of a few MB (one group of codes or labels at a time).  glibc's
allocator serves blocks of that size from its heap once a larger block has been freed (its mmap
threshold adapts upwards) and keeps the freed pages, so the process's resident memory would
stay at its high-water mark although the data are gone – hundreds of MB at 10⁸ rows.
``malloc_trim(0)`` returns those free pages.  On other C libraries this is a no-op.

Examples
--------
>>> release_free_memory()
"""

from __future__ import annotations

import ctypes
import ctypes.util
import functools
import sys
from collections.abc import Callable

__all__ = ["release_free_memory"]


@functools.cache
def _malloc_trim() -> Callable[[int], int] | None:
    if not sys.platform.startswith("linux"):
        return None
    try:
        libc = ctypes.CDLL(ctypes.util.find_library("c") or "libc.so.6")
        trim: Callable[[int], int] = libc.malloc_trim
    except (OSError, AttributeError):  # musl and others have no malloc_trim
        return None
    return trim


def release_free_memory() -> None:
    """Return the C heap's free pages to the system (glibc only; otherwise nothing)."""
    trim = _malloc_trim()
    if trim is not None:
        trim(0)
