"""Codes → CSR: the one way every builder and reader assembles a person–item graph.

The contract
------------
Input
    ``person_codes`` and ``item_codes``: integer arrays of equal length, one entry per pair,
    holding **codes into the sorted, unique label arrays** ``person_labels`` and
    ``item_labels`` (code ``k`` means label ``labels[k]``), as
    :func:`~dpcount.graph.labels.encode_labels` and the readers of :mod:`dpcount.io` produce
    them.  Pairs may repeat and come in any
    order.  Optionally ``counts``: one non-negative ``int64`` multiplicity per pair.  The codes
    may come in groups (a list of arrays each), and each group may index a map of its own
    (``person_maps[k][code]`` is the label's code), as a reader that encodes its input batch by
    batch produces them.
Output
    A :class:`CSR`: ``indptr`` (``int64``, length ``n_persons + 1``), ``indices`` (``int32``,
    strictly increasing within each person, so no pair twice), the labels, and the per-pair
    counts (summed over repeats; pairs summing to 0 dropped) or ``None``.  Items that no pair
    holds are dropped (and their labels with them) unless the caller says there are none
    (``all_items_held``); persons without items are kept, or dropped with
    ``drop_unused_persons``.  These are exactly the invariants :func:`check_csr` verifies, so
    the graph classes adopt the arrays without copying or checking them again.
Consumption
    The lists of code groups are **emptied** as the groups are used, and pair keys are sorted
    in place, so the peak memory is the keys (8 bytes per pair) plus one group: callers pass
    arrays and lists they own.

Persons and items keep the order of their labels: the assembly never renumbers by frequency
or first appearance (see :mod:`dpcount.graph.labels`).

Examples
--------
>>> import numpy as np
>>> csr = csr_from_codes(np.array([1, 0, 1, 1]), np.array([0, 1, 1, 0]),
...                      np.array(["ann", "bob"]), np.array(["x", "y", "z"]))
>>> csr.indptr.tolist(), csr.indices.tolist(), csr.item_labels.tolist()
([0, 1, 3], [1, 0, 1], ['x', 'y'])
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np

from dpcount.common.memory import release_free_memory
from dpcount.common.tuning import TUNING
from dpcount.errors import DataError
from dpcount.graph.labels import Labels, check_sorted_unique

__all__ = [
    "CSR",
    "MAX_COUNT",
    "MAX_ITEMS",
    "CountOverflowError",
    "as_counts",
    "check_count_sums",
    "check_csr",
    "csr_from_code_groups",
    "csr_from_codes",
    "csr_from_keys",
    "csr_from_pair_keys",
    "csr_from_rows",
    "pair_keys",
    "readonly",
]

#: The most items (and persons) a graph holds: their ids are int32.
MAX_ITEMS = 2**31 - 1


class CSR(NamedTuple):
    """The arrays of a person–item graph, satisfying the invariants of :func:`check_csr`."""

    indptr: np.ndarray
    indices: np.ndarray
    person_labels: Labels
    item_labels: Labels
    counts: np.ndarray | None = None


def readonly(arr: np.ndarray) -> np.ndarray:
    """``arr`` itself, made read-only (graphs are immutable)."""
    arr.flags.writeable = False
    return arr


def csr_from_codes(
    person_codes: np.ndarray,
    item_codes: np.ndarray,
    person_labels: Labels,
    item_labels: Labels,
    counts: np.ndarray | None = None,
    *,
    all_items_held: bool = False,
) -> CSR:
    """CSR from codes into sorted label arrays; merges duplicates, drops unheld items."""
    return csr_from_code_groups(
        [person_codes],
        [item_codes],
        person_labels,
        item_labels,
        counts,
        all_items_held=all_items_held,
    )


def csr_from_code_groups(
    person_codes: list[np.ndarray],
    item_codes: list[np.ndarray],
    person_labels: Labels,
    item_labels: Labels,
    counts: np.ndarray | None = None,
    *,
    all_items_held: bool = False,
    drop_unused_persons: bool = False,
    person_maps: list[np.ndarray] | None = None,
    item_maps: list[np.ndarray] | None = None,
) -> CSR:
    """:func:`csr_from_codes` for pairs given in groups (concatenated only if need be).

    With ``drop_unused_persons``, person labels that no pair has are dropped (values of a
    file's dictionary that no row uses); items without holders are dropped unless
    ``all_items_held``.

    The lists are emptied as the groups are used, so that their memory can be released
    early (callers pass lists they own).  With ``person_maps`` / ``item_maps`` (int32, one
    per group), group k's codes index ``person_maps[k]``, which holds the persons' codes
    into ``person_labels`` (items likewise): each group's own dictionary, mapped to the
    sorted labels.

    The pairs become 64-bit keys that order by person, then item, group by group, each
    group dropped from its list once used (so the input's memory empties as the keys
    fill), and the keys are sorted: for many pairs without counts (``TUNING.compiled_min_pairs``)
    by the compiled passes of :mod:`dpcount.graph.csr_kernels` around NumPy's sort, otherwise by
    NumPy alone (:func:`csr_from_pair_keys`).
    """
    n, m = person_labels.size, item_labels.size
    if m > MAX_ITEMS or n > MAX_ITEMS:
        raise DataError(f"{n} persons and {m} items: ids are limited to 2**31 - 1 each")
    _check_key_range(n, m)
    if counts is None and sum(g.size for g in person_codes) >= TUNING.compiled_min_pairs:
        from dpcount.graph.csr_kernels import csr_by_sorting  # imports numba: large inputs only

        indptr, indices = csr_by_sorting(
            person_codes, item_codes, n, max(m, 1), person_maps, item_maps
        )
        return csr_from_rows(
            indptr,
            indices,
            person_labels,
            item_labels,
            all_items_held=all_items_held,
            drop_empty_persons=drop_unused_persons,
        )
    keys = pair_keys(person_codes, item_codes, max(m, 1), person_maps, item_maps)
    return csr_from_pair_keys(
        keys,
        person_labels,
        item_labels,
        counts,
        all_items_held=all_items_held,
        drop_unused_persons=drop_unused_persons,
    )


def csr_from_pair_keys(
    keys: np.ndarray,
    person_labels: Labels,
    item_labels: Labels,
    counts: np.ndarray | None = None,
    *,
    all_items_held: bool = False,
    drop_unused_persons: bool = False,
) -> CSR:
    """CSR from pair keys ``person * max(n_items, 1) + item``; **consumes** ``keys``.

    ``keys`` (``int64``) is sorted in place and reused as scratch space, so callers pass an
    array they own.  Duplicate pairs are merged by one sort and a neighbour mask (never
    ``np.unique``, which hashes in NumPy >= 2.3 and is many times slower here); with
    ``counts`` their multiplicities are summed and pairs summing to 0 dropped, and items
    left without holders are removed (skip that check with ``all_items_held=True`` when
    every item occurs in ``keys`` by construction).  With ``drop_unused_persons``, persons
    in no key are dropped (but not those whose pairs all summed to 0).

    Examples
    --------
    >>> csr = csr_from_pair_keys(np.array([3, 0, 3]), np.array([0, 1]), np.array(["a", "b"]),
    ...                          np.array([2, 0, 5]))  # keys 3 = (1, 1) and 0 = (0, 0)
    >>> csr.indptr.tolist(), csr.indices.tolist(), csr.counts.tolist()
    ([0, 0, 1], [0], [7])
    """
    m = max(item_labels.size, 1)
    if counts is None:
        indptr, indices = csr_from_keys(keys, person_labels.size, m)
        return csr_from_rows(
            indptr,
            indices,
            person_labels,
            item_labels,
            all_items_held=all_items_held,
            drop_empty_persons=drop_unused_persons,
        )
    order = np.argsort(keys, kind="stable")
    sorted_keys = keys[order]
    del keys
    first = np.ones(sorted_keys.size, dtype=bool)
    np.not_equal(sorted_keys[1:], sorted_keys[:-1], out=first[1:])
    # Integer sums per run of equal keys (a float bincount would round above 2**53).
    starts = np.flatnonzero(first)
    sorted_counts = np.asarray(counts, dtype=np.int64)[order]
    del order
    merged = np.add.reduceat(sorted_counts, starts) if starts.size else starts
    check_count_sums(sorted_counts, starts)
    in_keys = None  # persons with a key, when those without are dropped
    if drop_unused_persons:
        in_keys = np.zeros(person_labels.size, dtype=bool)
        in_keys[sorted_keys[starts] // m] = True
    keep = merged > 0
    unique_keys, merged = sorted_keys[starts[keep]], merged[keep]
    del sorted_keys, sorted_counts
    cols = unique_keys % m
    from dpcount.graph.csr_kernels import held_items

    held = held_items(cols, item_labels.size)
    if not held.all():  # an item whose pairs all had count 0 is not in the data
        unique_keys = (unique_keys // m) * int(held.sum()) + (np.cumsum(held) - 1)[cols]
        item_labels = item_labels[held]
    indptr, indices = csr_from_keys(unique_keys, person_labels.size, max(item_labels.size, 1))
    if in_keys is not None:
        indptr, person_labels = _only_persons(indptr, person_labels, in_keys)
    return CSR(indptr, indices, person_labels, item_labels, merged)


def csr_from_rows(
    indptr: np.ndarray,
    indices: np.ndarray,
    person_labels: Labels,
    item_labels: Labels,
    *,
    all_items_held: bool,
    drop_empty_persons: bool = False,
) -> CSR:
    """CSR rows (items ascending and distinct within each row) that may leave some items
    unheld: those items are dropped unless told there are none, and persons without items
    are dropped if told to.

    Examples
    --------
    >>> csr = csr_from_rows(np.array([0, 1, 1]), np.array([2], np.int32), np.array([7, 8]),
    ...                     np.array(["x", "y", "z"]), all_items_held=False,
    ...                     drop_empty_persons=True)
    >>> csr.indptr.tolist(), csr.indices.tolist(), csr.person_labels.tolist()
    ([0, 1], [0], [7])
    """
    if drop_empty_persons:
        indptr, person_labels = _only_persons(indptr, person_labels, indptr[1:] > indptr[:-1])
    if not all_items_held:
        from dpcount.graph.csr_kernels import held_items

        held = held_items(indices, item_labels.size)
        if not held.all():
            indices = (np.cumsum(held, dtype=np.int32) - 1)[indices]
            item_labels = item_labels[held]
    return CSR(indptr, indices, person_labels, item_labels)


def check_csr(
    indptr: np.ndarray,
    indices: np.ndarray,
    persons: np.ndarray,
    items: np.ndarray,
    counts: np.ndarray | None,
) -> None:
    """Validate the CSR invariants the algorithms rely on (all vectorised).

    Examples
    --------
    >>> check_csr(np.array([0, 2]), np.array([1, 0]), np.array(["p"]), np.array(["x", "y"]),
    ...           None)
    Traceback (most recent call last):
    ...
    dpcount.errors.DataError: item ids must be strictly increasing within each person
    """
    n, m = persons.size, items.size
    if m > MAX_ITEMS:
        raise DataError(f"{m} items exceed the int32 item-id range")
    if indptr.ndim != 1 or indptr.size != n + 1 or indptr[0] != 0:
        raise DataError(f"indptr must have length n_persons + 1 = {n + 1} and start at 0")
    if np.any(np.diff(indptr) < 0) or indptr[-1] != indices.size:
        raise DataError("indptr must be non-decreasing and end at len(indices)")
    if indices.size and (indices.min() < 0 or indices.max() >= m):
        raise DataError(f"item ids must lie in [0, {m})")
    if indices.size > 1:
        steps = np.diff(indices.astype(np.int64))
        row_starts = np.zeros(indices.size, dtype=bool)
        row_starts[indptr[1:-1][indptr[1:-1] < indices.size]] = True
        if np.any((steps <= 0) & ~row_starts[1:]):
            raise DataError("item ids must be strictly increasing within each person")
    if m and np.bincount(indices, minlength=m).min() == 0:
        raise DataError("every item must have at least one holder")
    for what, labels in (("person", persons), ("item", items)):
        check_sorted_unique(labels, what)
    if counts is not None and (counts.shape != indices.shape or np.any(counts <= 0)):
        raise DataError("counts must be positive and aligned with indices")


#: The largest count a graph holds (counts are int64).
MAX_COUNT = 2**63 - 1


class CountOverflowError(DataError):
    """A count, or the sum of a pair's counts, exceeds :data:`MAX_COUNT`."""


def as_counts(values: object, size: int) -> np.ndarray:
    """``values`` as ``int64`` counts, one per pair: non-negative integers up to
    :data:`MAX_COUNT`, never wrapped round or truncated on the way.

    Examples
    --------
    >>> as_counts([3, 0, True], 3).tolist()
    [3, 0, 1]
    >>> as_counts(np.array([2**63], dtype=np.uint64), 1)
    Traceback (most recent call last):
    ...
    dpcount.graph.assembly.CountOverflowError: a count exceeds 2**63 - 1, the largest count \
dpcount holds
    """
    arr = np.asarray(values)
    if arr.shape != (size,):
        raise DataError(f"counts has length {arr.size}, expected {size} (one per pair)")
    if not arr.size:
        return np.zeros(0, dtype=np.int64)
    if arr.dtype.kind == "O" and all(
        isinstance(v, int | np.integer) and not isinstance(v, bool | np.bool_) for v in arr
    ):  # Python ints beyond int64
        if max(arr) > MAX_COUNT:
            raise CountOverflowError("a count exceeds 2**63 - 1, the largest count dpcount holds")
        arr = arr.astype(np.int64)
    if arr.dtype.kind not in "iub" or (arr.dtype.kind == "i" and arr.min() < 0):
        raise DataError("counts must be non-negative integers")
    if arr.dtype.kind == "u" and int(arr.max()) > MAX_COUNT:
        raise CountOverflowError("a count exceeds 2**63 - 1, the largest count dpcount holds")
    return arr.astype(np.int64, copy=False)


def check_count_sums(sorted_counts: np.ndarray, starts: np.ndarray) -> None:
    """Refuse runs of counts (``sorted_counts[starts[k]:starts[k + 1]]``, non-negative int64)
    whose sum exceeds :data:`MAX_COUNT`: ``np.add.reduceat`` would wrap it round silently.

    No run can overflow when the largest count times the longest run stays below 2**63,
    which settles every ordinary input with one maximum.  Otherwise each count is split into
    its high and low 32 bits and both halves summed per run, which no run of fewer than 2**31
    counts can overflow, and the sum is compared exactly.

    Examples
    --------
    >>> check_count_sums(np.array([2**62, 2**62, 5]), np.array([0, 2]))
    Traceback (most recent call last):
    ...
    dpcount.graph.assembly.CountOverflowError: the counts of 1 pair sum past 2**63 - 1, the \
largest count dpcount holds; check the counts, or scale them down
    >>> check_count_sums(np.array([2**62, 2**62 - 1, 5]), np.array([0, 2]))
    """
    if not starts.size:
        return
    longest = int(np.diff(starts, append=sorted_counts.size).max())
    if longest < 2 or int(sorted_counts.max()) * longest <= MAX_COUNT:
        return
    if longest >= 2**31:
        raise CountOverflowError(f"{longest} repeats of one pair; dpcount sums fewer than 2**31")
    high = np.add.reduceat(sorted_counts >> 32, starts)  # each < 2**31: no run overflows
    low = np.add.reduceat((sorted_counts & 0xFFFFFFFF).astype(np.uint64), starts)
    # sum = high * 2**32 + low; it exceeds 2**63 - 1 exactly when its 2**32s reach 2**31.
    over = int(np.count_nonzero(high + (low >> np.uint64(32)).astype(np.int64) >= 2**31))
    if over:
        raise CountOverflowError(
            f"the counts of {over} pair{'s' if over > 1 else ''} sum past 2**63 - 1, the largest "
            "count dpcount holds; check the counts, or scale them down"
        )


def _only_persons(
    indptr: np.ndarray, person_labels: Labels, keep: np.ndarray
) -> tuple[np.ndarray, Labels]:
    """``indptr`` and ``person_labels`` of the persons where ``keep``; the rows of the others
    must be empty."""
    if keep.all():
        return indptr, person_labels
    return np.concatenate([indptr[:1], indptr[1:][keep]]), person_labels[keep]


def _check_key_range(n: int, m: int) -> None:
    """Pair keys ``person * m + item`` must fit in int64."""
    if n and m and n * m >= 2**62:
        raise DataError(f"too many persons × items to encode pairs ({n} × {m})")


_RELEASED = np.empty(0, dtype=np.int32)  # what a used group of codes is replaced by


def pair_keys(
    person_codes: list[np.ndarray],
    item_codes: list[np.ndarray],
    m: int,
    person_maps: list[np.ndarray] | None,
    item_maps: list[np.ndarray] | None,
) -> np.ndarray:
    """``person * m + item`` (int64) of every pair, group by group; empties the two lists.

    Group k's codes are mapped through ``person_maps[k]`` / ``item_maps[k]`` when given.  A
    group is released as soon as its keys are written, and freed memory is handed back to the
    system every few groups, so the peak is the keys plus one group.
    """
    keys = np.empty(sum(g.size for g in person_codes), dtype=np.int64)
    start = 0
    for k in range(len(person_codes)):
        persons, items = person_codes[k], item_codes[k]
        if person_maps is not None:
            persons = person_maps[k][persons]
        if item_maps is not None:
            items = item_maps[k][items]
        block = keys[start : start + persons.size]
        np.multiply(persons, m, out=block, dtype=np.int64)
        np.add(block, items, out=block)
        start += persons.size
        person_codes[k] = item_codes[k] = _RELEASED
        del persons, items
        if k % 8 == 7:
            release_free_memory()
    release_free_memory()
    return keys


def csr_from_keys(keys: np.ndarray, n: int, m: int) -> tuple[np.ndarray, np.ndarray]:
    """``indptr`` (int64) and deduplicated ``indices`` (int32) from pair keys ``p * m + i``.

    ``keys`` is sorted in place and overwritten (the distinct keys are compacted to its front),
    so the extra memory is the int32 output plus one block (``TUNING.key_block``) of
    temporaries.

    Examples
    --------
    >>> keys = np.array([3 * 2 + 1, 0, 3 * 2 + 1, 2 * 2 + 0])  # pairs (3, 1), (0, 0), (2, 0)
    >>> [a.tolist() for a in csr_from_keys(keys, n=4, m=2)]
    [[0, 1, 1, 2, 3], [0, 0, 1]]
    """
    block_size = TUNING.key_block
    keys.sort()
    written = 0
    previous = None
    for start in range(0, keys.size, block_size):
        block = keys[start : start + block_size]
        fresh = np.empty(block.size, dtype=bool)
        fresh[0] = previous is None or block[0] != previous
        np.not_equal(block[1:], block[:-1], out=fresh[1:])
        previous = int(block[-1])
        distinct = block[fresh]  # a copy, so writing it to the front cannot clobber the block
        keys[written : written + distinct.size] = distinct
        written += distinct.size
    distinct_keys = keys[:written]
    indices = np.empty(written, dtype=np.int32)
    for start in range(0, written, block_size):
        indices[start : start + block_size] = distinct_keys[start : start + block_size] % m
    bounds = np.arange(n + 1, dtype=np.int64) * m
    indptr = np.searchsorted(distinct_keys, bounds).astype(np.int64, copy=False)
    return indptr, indices
