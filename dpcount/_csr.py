"""Compiled CSR construction for large inputs: two counting sorts of the pairs, by item then person.

For millions of pairs this replaces "sort the int64 pair keys" (``O(N log N)``, one thread) by
linear passes, as a least-significant-digit radix sort does:

1. count the pairs of each person and of each item;
2. drop each pair's person into its item's slot (the pairs in item order);
3. walk the items in order and append each one to the rows of its holders.

Rows come out sorted by item without sorting any row, and a duplicate pair is seen as the item
just appended to its row, so it is skipped on the way (the rows are closed up afterwards only if
there was one).  The codes may come in groups (as the reader produces them), each with maps from
its own codes to the global ones (its dictionary's ranks among the sorted labels): the maps are
applied while counting and scattering, so the codes are read but never rewritten.  A group is
dropped from the caller's lists once scattered, so the memory of the input is released while the
item-ordered copy fills; the peak stays near 12 bytes per pair.  :mod:`dpcount.graph` calls
this from ``dpcount.graph.COMPILED_MIN_PAIRS`` pairs on and sorts keys with NumPy below.

Examples
--------
>>> import numpy as np
>>> persons = [np.array([2, 0], np.int32), np.array([2, 2], np.int32)]
>>> items = [np.array([1, 0], np.int32), np.array([0, 1], np.int32)]
>>> indptr, indices = csr_by_counting(persons, items, 3, 2)  # empties the two lists
>>> indptr.tolist(), indices.tolist()
([0, 1, 1, 3], [0, 0, 1])

A group whose codes index its own dictionary (here: person code 0 is global person 2):

>>> indptr, indices = csr_by_counting(
...     [np.array([0, 1], np.int32)], [np.array([1, 0], np.int32)], 3, 2,
...     [np.array([2, 0], np.int32)], [np.array([0, 1], np.int32)])
>>> indptr.tolist(), indices.tolist()
([0, 1, 1, 2], [0, 1])
"""

from __future__ import annotations

import numpy as np

from dpcount._jit import kernel
from dpcount._memory import release_free_memory

__all__ = ["csr_by_counting"]

_RELEASED = np.empty(0, dtype=np.int32)


@kernel("(ro(int32[::1]), ro(int32[::1]), ro(int32[::1]), ro(int32[::1]), int64[::1], int64[::1])")
def _count(
    person_codes: np.ndarray,
    item_codes: np.ndarray,
    person_map: np.ndarray,
    item_map: np.ndarray,
    row_starts: np.ndarray,
    item_starts: np.ndarray,
) -> None:
    """Add one group's pairs per person and per item (at index + 1, for the prefix sums)."""
    for k in range(person_codes.size):
        row_starts[person_map[person_codes[k]] + 1] += 1
        item_starts[item_map[item_codes[k]] + 1] += 1


@kernel("(ro(int32[::1]), ro(int32[::1]), ro(int32[::1]), ro(int32[::1]), int64[::1], int32[::1])")
def _scatter_by_item(
    person_codes: np.ndarray,
    item_codes: np.ndarray,
    person_map: np.ndarray,
    item_map: np.ndarray,
    cursor: np.ndarray,
    persons_by_item: np.ndarray,
) -> None:
    """Drop each pair's person into the next slot of its item."""
    for k in range(person_codes.size):
        j = item_map[item_codes[k]]
        persons_by_item[cursor[j]] = person_map[person_codes[k]]
        cursor[j] += 1


@kernel("(ro(int64[::1]), ro(int32[::1]), ro(int64[::1]), int32[::1])")
def _fill_rows(
    item_starts: np.ndarray,
    persons_by_item: np.ndarray,
    row_starts: np.ndarray,
    indices: np.ndarray,
) -> tuple[np.ndarray, int]:
    """Append the items, in order, to their holders' rows; skip repeats. (row ends, repeats)."""
    row_ends = row_starts[:-1].copy()
    repeats = 0
    for j in range(item_starts.size - 1):
        for r in range(item_starts[j], item_starts[j + 1]):
            p = persons_by_item[r]
            end = row_ends[p]
            if end > row_starts[p] and indices[end - 1] == j:
                repeats += 1  # the pair (p, j) again: items arrive in order, so it is adjacent
                continue
            indices[end] = j
            row_ends[p] = end + 1
    return row_ends, repeats


@kernel("(ro(int64[::1]), ro(int64[::1]), int32[::1])")
def _close_up(row_starts: np.ndarray, row_ends: np.ndarray, indices: np.ndarray) -> np.ndarray:
    """Move the rows together where repeats left gaps; the new ``indptr``."""
    n = row_ends.size
    indptr = np.empty(n + 1, dtype=np.int64)
    indptr[0] = 0
    written = 0  # rows move to the front only: written <= row_starts[p] always
    for p in range(n):
        for k in range(row_starts[p], row_ends[p]):
            indices[written] = indices[k]
            written += 1
        indptr[p + 1] = written
    return indptr


def csr_by_counting(
    person_codes: list[np.ndarray],
    item_codes: list[np.ndarray],
    n: int,
    m: int,
    person_maps: list[np.ndarray] | None = None,
    item_maps: list[np.ndarray] | None = None,
) -> tuple[np.ndarray, np.ndarray]:
    """``indptr`` (int64) and sorted, deduplicated ``indices`` (int32) of the pairs.

    ``person_codes[k]`` and ``item_codes[k]`` are one group of pairs (integer arrays of equal
    length, converted to contiguous ``int32`` if they are not).  With ``person_maps`` (and
    ``item_maps``), group k's codes are indices into ``person_maps[k]``, whose values are the
    persons in ``[0, n)``; without, the codes are the persons themselves (items likewise, in
    ``[0, m)``).  The arrays are not modified, but each group is dropped from the two code
    lists once scattered, so that its memory is released when the caller holds no other
    reference.
    """
    for groups in (person_codes, item_codes):  # the kernels' declared types (no copy if so)
        groups[:] = [np.ascontiguousarray(g, dtype=np.int32) for g in groups]
    p_maps = person_maps or [np.arange(n, dtype=np.int32)] * len(person_codes)
    i_maps = item_maps or [np.arange(m, dtype=np.int32)] * len(item_codes)
    row_starts = np.zeros(n + 1, dtype=np.int64)
    item_starts = np.zeros(m + 1, dtype=np.int64)
    for k in range(len(person_codes)):
        _count(person_codes[k], item_codes[k], p_maps[k], i_maps[k], row_starts, item_starts)
    np.cumsum(row_starts, out=row_starts)
    np.cumsum(item_starts, out=item_starts)
    persons_by_item = np.empty(int(item_starts[-1]), dtype=np.int32)
    cursor = item_starts[:-1].copy()
    release_free_memory()  # what the caller freed before: the output's pages come from there
    for k in range(len(person_codes)):
        _scatter_by_item(
            person_codes[k], item_codes[k], p_maps[k], i_maps[k], cursor, persons_by_item
        )
        person_codes[k] = item_codes[k] = _RELEASED
        if k % 4 == 3:
            release_free_memory()  # the freed groups, so the next arrays can reuse their pages
    del cursor, p_maps, i_maps
    release_free_memory()
    indices = np.empty(persons_by_item.size, dtype=np.int32)
    row_ends, repeats = _fill_rows(item_starts, persons_by_item, row_starts, indices)
    del persons_by_item
    if not repeats:
        return row_starts, indices
    indptr = _close_up(row_starts, row_ends, indices)
    return indptr, indices[: indptr[-1]].copy()  # do not keep the repeats' memory alive
