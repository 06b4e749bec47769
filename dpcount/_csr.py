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
>>> indptr, indices = csr_by_counting(persons, items, 3)  # empties the two lists
>>> indptr.tolist(), indices.tolist()
([0, 1, 1, 3], [0, 0, 1])
"""

from __future__ import annotations

import numpy as np

from dpcount._jit import kernel
from dpcount._memory import release_free_memory

__all__ = ["csr_by_counting"]

_RELEASED = np.empty(0, dtype=np.int32)


@kernel("(ro(int32[::1]), int64[::1])")
def _count_rows(person_codes: np.ndarray, starts: np.ndarray) -> None:
    for p in person_codes:
        starts[p + 1] += 1


@kernel("(ro(int32[::1]), ro(int32[::1]), int64[::1], int32[::1])")
def _scatter(
    person_codes: np.ndarray, item_codes: np.ndarray, cursor: np.ndarray, indices: np.ndarray
) -> None:
    for k in range(person_codes.size):
        p = person_codes[k]
        indices[cursor[p]] = item_codes[k]
        cursor[p] += 1


@kernel("(ro(int64[::1]), int32[::1])")
def _sort_and_compact_rows(starts: np.ndarray, indices: np.ndarray) -> tuple[np.ndarray, int]:
    n = starts.size - 1
    indptr = np.empty(n + 1, dtype=np.int64)
    indptr[0] = 0
    written = 0  # rows are compacted to the front; written <= starts[p] always
    for p in range(n):
        start, stop = starts[p], starts[p + 1]
        indices[start:stop].sort()  # in place: no allocation per row
        previous = -1
        for k in range(start, stop):  # writes at written <= k: never ahead of the reads
            item = indices[k]
            if item != previous:
                indices[written] = item
                written += 1
                previous = item
        indptr[p + 1] = written
    return indptr, written


def csr_by_counting(
    person_codes: list[np.ndarray], item_codes: list[np.ndarray], n: int
) -> tuple[np.ndarray, np.ndarray]:
    """``indptr`` (int64) and sorted, deduplicated ``indices`` (int32) of the pairs.

    ``person_codes[k]`` and ``item_codes[k]`` are one group of pairs (integer arrays of equal
    length, converted to contiguous ``int32`` if they are not); person codes lie in
    ``[0, n)``.  The arrays are not modified, but each group is dropped from the two lists
    once scattered, so that memory is released group by group when the caller holds no other
    reference: the peak stays near the codes' own size, as the output fills while the input
    empties.
    """
    for groups in (person_codes, item_codes):  # the kernels' declared types (no copy if so)
        groups[:] = [np.ascontiguousarray(g, dtype=np.int32) for g in groups]
    starts = np.zeros(n + 1, dtype=np.int64)
    for persons in person_codes:
        _count_rows(persons, starts)
    np.cumsum(starts, out=starts)
    indices = np.empty(int(starts[-1]), dtype=np.int32)
    cursor = starts[:-1].copy()
    release_free_memory()  # what the caller freed before: the output's pages come from there
    for k in range(len(person_codes)):
        _scatter(person_codes[k], item_codes[k], cursor, indices)
        person_codes[k] = item_codes[k] = _RELEASED
        if k % 4 == 3:
            release_free_memory()  # the freed groups, so the output can reuse their pages
    del cursor
    indptr, written = _sort_and_compact_rows(starts, indices)
    if written < indices.size:
        indices = indices[:written].copy()  # do not keep the duplicates' memory alive
    return indptr, indices
