"""Compiled CSR construction for large inputs: a counting sort of the pairs by person.

For millions of pairs this replaces "sort the int64 pair keys" (``O(N log N)``, one thread) by
two linear passes – count the pairs of each person, then drop each item code into its person's
slot – followed by sorting each person's short row.  The codes may come in groups (as the reader
produces them), so they are never concatenated; rows are deduplicated in place, so the extra
memory is the ``int32`` output.  :mod:`dpcount.graph` calls it from
``dpcount.graph.COMPILED_MIN_PAIRS`` pairs on and sorts keys with NumPy below.

Examples
--------
>>> import numpy as np
>>> persons = [np.array([2, 0], np.int32), np.array([2, 2], np.int32)]
>>> items = [np.array([1, 0], np.int32), np.array([0, 1], np.int32)]
>>> indptr, indices = csr_by_counting(persons, items, 3)
>>> indptr.tolist(), indices.tolist()
([0, 1, 1, 3], [0, 0, 1])
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
from numba import njit

__all__ = ["csr_by_counting"]


@njit(cache=True, nogil=True)
def _count_rows(person_codes: np.ndarray, starts: np.ndarray) -> None:
    for p in person_codes:
        starts[p + 1] += 1


@njit(cache=True, nogil=True)
def _scatter(
    person_codes: np.ndarray, item_codes: np.ndarray, cursor: np.ndarray, indices: np.ndarray
) -> None:
    for k in range(person_codes.size):
        p = person_codes[k]
        indices[cursor[p]] = item_codes[k]
        cursor[p] += 1


@njit(cache=True, nogil=True)
def _sort_and_compact_rows(starts: np.ndarray, indices: np.ndarray) -> tuple[np.ndarray, int]:
    n = starts.size - 1
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
    return indptr, written


def csr_by_counting(
    person_codes: Sequence[np.ndarray], item_codes: Sequence[np.ndarray], n: int
) -> tuple[np.ndarray, np.ndarray]:
    """``indptr`` (int64) and sorted, deduplicated ``indices`` (int32) of the pairs.

    ``person_codes[k]`` and ``item_codes[k]`` are one group of pairs (``int32`` arrays of equal
    length); person codes lie in ``[0, n)``.  Nothing is modified.
    """
    starts = np.zeros(n + 1, dtype=np.int64)
    for persons in person_codes:
        _count_rows(persons, starts)
    np.cumsum(starts, out=starts)
    indices = np.empty(int(starts[-1]), dtype=np.int32)
    cursor = starts[:-1].copy()
    for persons, items in zip(person_codes, item_codes, strict=True):
        _scatter(persons, items, cursor, indices)
    del cursor
    indptr, written = _sort_and_compact_rows(starts, indices)
    if written < indices.size:
        indices = indices[:written].copy()  # do not keep the duplicates' memory alive
    return indptr, indices
