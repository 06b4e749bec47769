"""Compiled CSR construction for large inputs: a counting sort of the pairs by person.

For millions of pairs this replaces "sort the int64 pair keys" (``O(N log N)``, one thread) by
two linear passes – count the pairs of each person, then drop each item code into its person's
slot – followed by sorting each person's short row.  Rows are deduplicated in place, so the
extra memory is the ``int32`` output.  :mod:`dpcount.graph` calls it from
``dpcount.graph.COMPILED_MIN_PAIRS`` pairs on and sorts keys with NumPy below.

Examples
--------
>>> import numpy as np
>>> indptr, indices = csr_by_counting(np.array([2, 0, 2, 2]), np.array([1, 0, 0, 1]), 3)
>>> indptr.tolist(), indices.tolist()
([0, 1, 1, 3], [0, 0, 1])
"""

from __future__ import annotations

import numpy as np
from numba import njit

__all__ = ["csr_by_counting"]


@njit(cache=True, nogil=True)
def _counting_csr(
    person_codes: np.ndarray, item_codes: np.ndarray, n: int
) -> tuple[np.ndarray, np.ndarray, int]:
    starts = np.zeros(n + 1, dtype=np.int64)
    for p in person_codes:
        starts[p + 1] += 1
    for p in range(n):
        starts[p + 1] += starts[p]
    indices = np.empty(person_codes.size, dtype=np.int32)
    cursor = starts[:-1].copy()
    for k in range(person_codes.size):
        p = person_codes[k]
        indices[cursor[p]] = item_codes[k]
        cursor[p] += 1
    indptr = np.empty(n + 1, dtype=np.int64)
    indptr[0] = 0
    written = 0  # rows are compacted to the front; written <= starts[p] always
    for p in range(n):
        row = np.sort(indices[starts[p] : starts[p + 1]])  # a copy: safe to overwrite below
        previous = -1
        for item in row:
            if item != previous:
                indices[written] = item
                written += 1
                previous = item
        indptr[p + 1] = written
    return indptr, indices, written


def csr_by_counting(
    person_codes: np.ndarray, item_codes: np.ndarray, n: int
) -> tuple[np.ndarray, np.ndarray]:
    """``indptr`` (int64) and sorted, deduplicated ``indices`` (int32) of the pairs.

    ``person_codes`` must lie in ``[0, n)`` and ``item_codes`` in ``[0, 2**31)``; neither is
    modified.
    """
    indptr, indices, written = _counting_csr(
        person_codes, item_codes.astype(np.int32, copy=False), n
    )
    if written < indices.size:
        indices = indices[:written].copy()  # do not keep the duplicates' memory alive
    return indptr, indices
