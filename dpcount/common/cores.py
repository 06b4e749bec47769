"""The cores this process may use, and a compiled batch split over two of them.

Compiled kernels release the GIL (:mod:`dpcount.common.jit`), so two Python threads calling a
kernel on the two halves of its rows run at once.  That pays only for batches whose rows are
independent (each row's result depends on that row's inputs alone) and large enough to repay
starting a thread.
"""

from __future__ import annotations

import os
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor

__all__ = ["available_cores", "in_two_halves"]


def available_cores() -> int:
    """The cores this process may run on (what Spark's ``local[*]`` counts).

    Examples
    --------
    >>> available_cores() >= 1
    True
    """
    try:
        return len(os.sched_getaffinity(0))
    except AttributeError:  # pragma: no cover - not on Linux
        return os.cpu_count() or 1


def in_two_halves(run: Callable[[int, int], None], size: int, *, min_rows: int) -> None:
    """``run(0, size)``, or ``run(0, m)`` and ``run(m, size)`` on two threads at once.

    Two threads are used for ``min_rows`` rows or more when this process may use two cores.
    ``run(first, stop)`` must treat rows first..stop−1, each on its own, in a kernel that
    releases the GIL; then both ways give the same result.

    Examples
    --------
    >>> import numpy as np
    >>> out = np.zeros(6, dtype=np.int64)
    >>> def square(first, stop):
    ...     out[first:stop] = np.arange(first, stop) ** 2
    >>> in_two_halves(square, out.size, min_rows=2)
    >>> out.tolist()
    [0, 1, 4, 9, 16, 25]
    """
    if size < min_rows or available_cores() < 2:
        run(0, size)
        return
    middle = size // 2
    with ThreadPoolExecutor(max_workers=2) as pool:
        for half in [pool.submit(run, 0, middle), pool.submit(run, middle, size)]:
            half.result()
