"""Compiled CSR construction for large inputs: pair keys, NumPy's sort, one pass to the rows.

Each pair becomes the key ``person << 32 | item`` (one compiled pass per group of codes,
applying the group's dictionary maps on the way), the keys are sorted in place by NumPy, and
one compiled pass over the sorted keys writes the items, skips repeated pairs and counts each
person's row.  NumPy sorts 64-bit integers with SIMD instructions where the processor has them
(x86-simd-sort), which beats counting sorts whose scattered writes miss the caches (the
measurements are in ``benchmarks/results/end_to_end.md``, third and fourth rounds).

Every step runs in two threads, one per part of the keys: the keys of persons below a sampled
median fill the front of the buffer, the others the back (a first pass counts each group's
share of each part, so that groups can be written by either thread).  The two parts are
sorted at once (about half the time of one sort on two cores), which leaves the whole buffer in
order, and each
part writes its own rows; the second part's items are then moved down behind the first's.

The codes come in groups, as the reader produces them; a group is dropped from the caller's
lists once its keys are written, so the input's memory empties while the keys fill; the items
are written over the sorted keys and the buffer shrunk in place, so the peak is the keys
(8 bytes per pair) and no second array of that size is ever touched (on virtual machines a
first touch of memory costs several times the work done on it).  :mod:`dpcount.graph.assembly`
calls this from ``TUNING.compiled_min_pairs`` pairs on and uses NumPy alone below.

Examples
--------
>>> import numpy as np
>>> persons = [np.array([2, 0], np.int32), np.array([2, 2], np.int32)]
>>> items = [np.array([1, 0], np.int32), np.array([0, 1], np.int32)]
>>> indptr, indices = csr_by_sorting(persons, items, 3, 2)  # empties the two lists
>>> indptr.tolist(), indices.tolist()
([0, 1, 1, 3], [0, 0, 1])

A group whose codes index its own dictionaries (here: person code 0 is global person 2):

>>> indptr, indices = csr_by_sorting(
...     [np.array([0, 1], np.int32)], [np.array([1, 0], np.int32)], 3, 2,
...     [np.array([2, 0], np.int32)], [np.array([0, 1], np.int32)])
>>> indptr.tolist(), indices.tolist()
([0, 1, 1, 2], [0, 1])
"""

from __future__ import annotations

from collections.abc import Callable
from functools import partial
from typing import TypeVar

import numpy as np

from dpcount.common.jit import kernel
from dpcount.common.memory import release_free_memory
from dpcount.common.tuning import TUNING

__all__ = ["csr_by_sorting", "held_items", "rows_of_parts"]

_RELEASED = np.empty(0, dtype=np.int32)
_T = TypeVar("_T")
_IDENTITY = np.empty(0, dtype=np.int32)  # no rank table: key halves are persons and items

#: One pair in this many is sampled to choose the person that splits the keys in two.
_SAMPLE_STRIDE = 1024


@kernel("(ro(int32[::1]), ro(int32[::1]), int64)")
def _count_below(person_codes: np.ndarray, person_map: np.ndarray, cut: int) -> int:
    """How many of the pairs have a person (mapped through the group's dictionary) below ``cut``."""
    count = 0
    for k in range(person_codes.size):
        if person_map[person_codes[k]] < cut:
            count += 1
    return count


@kernel(
    "(ro(int32[::1]), ro(int32[::1]), ro(int32[::1]), ro(int32[::1]),"
    " int64, int64[::1], int64, int64)"
)
def _fill_keys(
    person_codes: np.ndarray,
    item_codes: np.ndarray,
    person_map: np.ndarray,
    item_map: np.ndarray,
    cut: int,
    keys: np.ndarray,
    below: int,
    above: int,
) -> None:
    """Key ``person << 32 | item`` of each pair, each mapped through its group's dictionary:
    keys of persons below ``cut`` go to ``keys[below]`` on, the others to ``keys[above]`` on."""
    for k in range(person_codes.size):
        person = person_map[person_codes[k]]
        key = (np.int64(person) << 32) | item_map[item_codes[k]]
        if person < cut:
            keys[below] = key
            below += 1
        else:
            keys[above] = key
            above += 1


@kernel("(ro(int32[::1]), ro(int32[::1]), ro(int64[::1]), int32[::1], int64[::1])")
def _write_rows(
    person_rank: np.ndarray,
    item_rank: np.ndarray,
    keys: np.ndarray,
    indices: np.ndarray,
    row_sizes: np.ndarray,
) -> int:
    """Write the items of sorted pair keys to ``indices``, each repeated key once, and add 1 to
    ``row_sizes[person + 1]`` per item written; return how many were written.

    With rank tables (non-empty), a key's halves are offsets whose persons and items are
    ``person_rank[offset]`` and ``item_rank[offset]`` (tables that keep the order).
    ``indices`` may be the keys' own memory: item w (bytes 4w..4w+3) is written after key k
    (bytes 8k..8k+7) is read, and w ≤ k, so no key is overwritten before it is read.
    """
    ranked = item_rank.size > 0
    written = 0
    previous = -1
    for k in range(keys.size):
        key = keys[k]
        if key == previous:
            continue
        previous = key
        person, item = key >> 32, key & 0xFFFFFFFF
        if ranked:
            person, item = person_rank[person], item_rank[item]
        indices[written] = item
        written += 1
        row_sizes[person + 1] += 1
    return written


@kernel("(int32[::1], int64, int64, int64)")
def _move_down(values: np.ndarray, source: int, target: int, count: int) -> None:
    """``values[target:target + count] = values[source:source + count]`` for ``target ≤ source``
    (front to back, so overlapping ranges are safe, and without a temporary copy)."""
    for k in range(count):
        values[target + k] = values[source + k]


def _median_person(person_codes: list[np.ndarray], person_maps: list[np.ndarray]) -> int:
    """The median person of a sample of every ``_SAMPLE_STRIDE``-th pair: it splits the keys
    into two parts of about equal size, each part handled by its own thread."""
    sample = np.concatenate(
        [np.empty(0, np.int32)]
        + [m[codes[::_SAMPLE_STRIDE]] for codes, m in zip(person_codes, person_maps, strict=True)]
    )
    return int(np.median(sample)) if sample.size else 0


def _in_two_threads(first: Callable[[], _T], second: Callable[[], _T]) -> tuple[_T, _T]:
    """Run ``second`` in another thread while ``first`` runs in this one (the compiled kernels
    and NumPy's sort leave the GIL, so both use a core); return both results."""
    from concurrent.futures import ThreadPoolExecutor

    with ThreadPoolExecutor(max_workers=1) as pool:
        done = pool.submit(second)
        return first(), done.result()


def csr_by_sorting(
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
    lists once used, so that its memory is released when the caller holds no other reference.
    """
    if [g.size for g in person_codes] != [g.size for g in item_codes]:
        raise ValueError("each group needs as many person codes as item codes")
    for groups in (person_codes, item_codes):  # the kernels' declared types (no copy if so)
        groups[:] = [np.ascontiguousarray(g, dtype=np.int32) for g in groups]
    no_persons = [np.arange(n, dtype=np.int32)] * len(person_codes) if not person_maps else []
    no_items = [np.arange(m, dtype=np.int32)] * len(item_codes) if not item_maps else []
    p_maps, i_maps = person_maps or no_persons, item_maps or no_items
    # The keys' memory is reused for the items (4 of their 8 bytes), then shrunk in place.
    sizes = [g.size for g in person_codes]
    buffer = np.empty(2 * sum(sizes), dtype=np.int32)
    keys = buffer.view(np.int64)
    cut = _median_person(person_codes, p_maps)
    halves = _halves(sizes)
    below = np.concatenate(
        _in_two_threads(
            *[partial(_count_groups, person_codes, p_maps, cut, groups) for groups in halves]
        )
    )
    # Group k's keys below the cut start at below_start[k], the others at above_start[k].
    below_start = np.cumsum(below) - below
    boundary = int(below.sum())
    above_start = boundary + np.cumsum(sizes) - sizes - below_start
    _in_two_threads(
        *[
            partial(
                _fill_groups,
                person_codes,
                item_codes,
                p_maps,
                i_maps,
                cut,
                keys,
                below_start,
                above_start,
                groups,
            )
            for groups in halves
        ]
    )
    release_free_memory()
    del keys
    return rows_of_parts(buffer, boundary, n)


def rows_of_parts(
    buffer: np.ndarray,
    boundary: int,
    n: int,
    person_rank: np.ndarray = _IDENTITY,
    item_rank: np.ndarray = _IDENTITY,
) -> tuple[np.ndarray, np.ndarray]:
    """``indptr`` and ``indices`` from the pair keys in ``buffer``'s int64 view, whose first
    ``boundary`` keys all lie below the others: each part is sorted and written to rows by its
    own thread, over the part's own memory, and ``buffer`` (an int32 array owning its memory)
    is shrunk in place to the items.  ``n`` is the number of persons.  Keys made of offsets
    come with their rank tables (int32; see :func:`_write_rows`).
    """
    write = partial(_write_rows, person_rank, item_rank)
    keys = buffer.view(np.int64)
    first, second = keys[:boundary], keys[boundary:]  # every key of the first below the second's
    _in_two_threads(first.sort, second.sort)
    row_sizes = np.zeros(n + 1, dtype=np.int64)
    written = _in_two_threads(
        partial(write, first, buffer[: 2 * boundary], row_sizes),
        partial(write, second, buffer[2 * boundary :], row_sizes),
    )
    del keys, first, second
    _move_down(buffer, 2 * boundary, written[0], written[1])  # the second part's items
    buffer.resize(sum(written), refcheck=False)  # the owner, no view left: shrinks without a copy
    return np.cumsum(row_sizes, out=row_sizes), buffer


def held_items(indices: np.ndarray, m: int) -> np.ndarray:
    """Whether each of ``m`` items occurs in ``indices``, as bool flags.

    NumPy's indexed assignment leaves the GIL, so large inputs set flags in two threads, one
    half of ``indices`` each (several times faster than ``np.bincount``; measured in
    ``benchmarks/results/end_to_end.md``, fifth round).

    Examples
    --------
    >>> held_items(np.array([2, 0, 2], np.int32), 4).tolist()
    [True, False, True, False]
    """
    held = np.zeros(m, dtype=bool)
    if indices.size < TUNING.parallel_flag_pairs:
        held[indices] = True
        return held
    other = np.zeros(m, dtype=bool)
    half = indices.size // 2
    _in_two_threads(
        partial(held.__setitem__, indices[:half], True),
        partial(other.__setitem__, indices[half:], True),
    )
    return held | other


def _halves(sizes: list[int]) -> tuple[range, range]:
    """The groups split in two runs of about equal total size."""
    middle = int(np.searchsorted(np.cumsum(sizes), sum(sizes) / 2))
    return range(middle), range(middle, len(sizes))


def _count_groups(
    person_codes: list[np.ndarray], person_maps: list[np.ndarray], cut: int, groups: range
) -> np.ndarray:
    """Per group, its pairs with a person below ``cut``."""
    return np.array(
        [_count_below(person_codes[k], person_maps[k], cut) for k in groups], dtype=np.int64
    )


def _fill_groups(
    person_codes: list[np.ndarray],
    item_codes: list[np.ndarray],
    person_maps: list[np.ndarray],
    item_maps: list[np.ndarray],
    cut: int,
    keys: np.ndarray,
    below_start: np.ndarray,
    above_start: np.ndarray,
    groups: range,
) -> None:
    """Write the keys of ``groups``, each dropped from the code lists once written."""
    for done, k in enumerate(groups, 1):
        _fill_keys(
            person_codes[k], item_codes[k], person_maps[k], item_maps[k], cut, keys,
            below_start[k], above_start[k],
        )  # fmt: skip
        person_codes[k] = item_codes[k] = _RELEASED
        if done % 8 == 0:
            release_free_memory()  # the released groups' pages
