"""Person–group–item data (``GROUP BY`` queries): one CSR with group offsets.

A :class:`GroupedGraph` holds the distinct (person, group, item) triples.  Its rows are the
distinct (group, person) pairs, sorted by group and then by person; row ``r`` holds the items
``indices[indptr[r]:indptr[r+1]]`` (ascending) of person ``row_persons[r]`` in its group, and
group ``g`` owns the rows ``group_indptr[g]:group_indptr[g+1]``.  So the rows of one group are a
contiguous CSR block: the person–item graph of that group, with person and item ids that index
the labels shared by all groups.

Why one CSR with group offsets rather than one :class:`~dpcount.graph.PersonItemGraph` per
group: a thousand groups would mean a thousand small label arrays and Python objects; one array
set lets the per-group kernels (:mod:`matching.grouped`) run over all groups in one compiled
loop, and the slice of group ``g`` is still a valid CSR (:meth:`group` wraps it as a
``PersonItemGraph`` when one group is wanted).

Labels follow the rules of :mod:`dpcount.graph.labels`: persons, groups and items
are numbered in the sorted order of their labels (a data-independent order, which the greedy
count and the keyed choices rely on); nulls and mixed label kinds are rejected.

Examples
--------
>>> g = GroupedGraph.from_triples(["ann", "ann", "bob", "bob"], ["eu", "us", "eu", "eu"],
...                               ["x", "y", "x", "z"])
>>> g
GroupedGraph(n_groups=2, n_persons=2, n_items=3, n_triples=4)
>>> g.group_labels.tolist(), g.distinct_counts().tolist()
(['eu', 'us'], [2, 1])
>>> g.group("eu").item_labels.tolist()
['x', 'z']
"""

from __future__ import annotations

from collections.abc import Hashable, Iterable
from typing import Any

import numpy as np
import numpy.typing as npt

from dpcount.common.hashing import keyed_pair_ranks
from dpcount.common.jit import SMALL_PAIRS, kernel
from dpcount.errors import DataError, InvalidParameterError
from dpcount.graph import tables
from dpcount.graph.assembly import readonly
from dpcount.graph.labels import (
    as_key_list,
    as_label_array,
    check_no_nulls,
    check_sorted_unique,
    contains_label,
    encode_labels,
    label_array,
)
from dpcount.graph.person_item import PersonItemGraph, graph_from_codes

__all__ = ["GroupedGraph", "grouped_from_codes"]

_FIELDS = (
    "_group_indptr",
    "_row_persons",
    "_indptr",
    "_indices",
    "_person_labels",
    "_group_labels",
    "_item_labels",
)


class GroupedGraph:
    """Immutable person–group–item triples as one CSR with group offsets (module docstring).

    Build it with :meth:`from_triples`, :meth:`from_dataframe` or :func:`dpcount.read_triples`.

    Parameters
    ----------
    group_indptr
        ``int64``, length ``n_groups + 1``: group ``g`` owns rows ``group_indptr[g]:[g+1]``.
    row_persons
        ``int64`` person id of each row, strictly increasing within a group.
    indptr
        ``int64``, length ``n_rows + 1``: row ``r`` holds ``indices[indptr[r]:indptr[r+1]]``.
    indices
        ``int32`` item ids, strictly increasing within each row.
    person_labels, group_labels, item_labels
        Sorted unique labels; ids are positions in these arrays.

    Notes
    -----
    Every row holds at least one item.  Labels of persons, groups or items that no triple uses
    may remain after :meth:`keep_groups` or :meth:`select_groups`; :meth:`distinct_counts`
    counts per group only the items held there.

    Examples
    --------
    >>> g = GroupedGraph([0, 1, 2], [0, 0], [0, 1, 3], [0, 0, 1], ["p"], ["a", "b"], [1, 2])
    >>> g.n_rows, g.n_triples
    (2, 3)
    """

    __slots__ = _FIELDS
    _group_indptr: np.ndarray
    _row_persons: np.ndarray
    _indptr: np.ndarray
    _indices: np.ndarray
    _person_labels: np.ndarray
    _group_labels: np.ndarray
    _item_labels: np.ndarray

    def __init__(
        self,
        group_indptr: npt.ArrayLike,
        row_persons: npt.ArrayLike,
        indptr: npt.ArrayLike,
        indices: npt.ArrayLike,
        person_labels: npt.ArrayLike,
        group_labels: npt.ArrayLike,
        item_labels: npt.ArrayLike,
    ) -> None:
        values: tuple[np.ndarray, ...] = (
            np.array(group_indptr, dtype=np.int64),
            np.array(row_persons, dtype=np.int64),
            np.array(indptr, dtype=np.int64),
            np.array(indices, dtype=np.int32),
            np.array(as_label_array(person_labels, "person labels")),
            np.array(as_label_array(group_labels, "group labels")),
            np.array(as_label_array(item_labels, "item labels")),
        )
        _check(*values)
        for name, value in zip(_FIELDS, values, strict=True):
            object.__setattr__(self, name, readonly(value))

    # -- construction ------------------------------------------------------------------------

    @classmethod
    def from_triples(cls, persons: Any, groups: Any, items: Any) -> GroupedGraph:
        """Build the graph from parallel sequences of person, group and item labels.

        Duplicate triples are merged.

        Raises
        ------
        DataError
            On length mismatch, null labels or labels of mixed kinds.

        Examples
        --------
        >>> g = GroupedGraph.from_triples([1, 1, 2], ["a", "a", "b"], [5, 5, 6])
        >>> g.n_triples, g.row_persons.tolist()
        (2, [0, 1])
        """
        p = label_array(persons, "person labels")
        g = label_array(groups, "group labels")
        i = label_array(items, "item labels")
        for labels, what in ((p, "person labels"), (g, "group labels"), (i, "item labels")):
            check_no_nulls(labels, what)  # after the kinds of every column, as the readers do
        if not p.shape == g.shape == i.shape:
            raise DataError(
                f"persons, groups and items differ in length: {p.size}, {g.size}, {i.size}"
            )
        person_labels, pc = encode_labels(p, "person labels")
        group_labels, gc = encode_labels(g, "group labels")
        item_labels, ic = encode_labels(i, "item labels")
        return grouped_from_codes(pc, gc, ic, person_labels, group_labels, item_labels)

    @classmethod
    def from_dataframe(
        cls, df: Any, person: str, group: str, item: str, *, drop_nulls: bool = False
    ) -> GroupedGraph:
        """Build the graph from three columns of a table in memory, selected by name.

        ``df`` is a pandas or polars DataFrame, a polars LazyFrame, a pyarrow Table or
        RecordBatchReader, or a DuckDB relation; it is read exactly like a file by
        :func:`dpcount.read_triples` (same options, same errors).

        Examples
        --------
        >>> import pandas as pd
        >>> df = pd.DataFrame({"u": [1, 2, 1], "forum": ["a", "a", "b"], "w": ["x", "y", "x"]})
        >>> GroupedGraph.from_dataframe(df, person="u", group="forum", item="w").n_groups
        2
        """
        return tables.readers().read_triples(
            df, person=person, group=group, item=item, drop_nulls=drop_nulls
        )

    @classmethod
    def _new(cls, *arrays: np.ndarray) -> GroupedGraph:
        """An instance from arrays whose invariants hold by construction (no copies, no checks).

        Only for the builders in this module, which derive the arrays from sorted, deduplicated
        codes; the public constructor checks everything.
        """
        self = object.__new__(cls)
        for name, value in zip(_FIELDS, arrays, strict=True):
            object.__setattr__(self, name, readonly(value))
        return self

    # -- arrays and sizes --------------------------------------------------------------------

    @property
    def group_indptr(self) -> np.ndarray:
        """Read-only ``int64`` group offsets into the rows, length ``n_groups + 1``."""
        return self._group_indptr

    @property
    def row_persons(self) -> np.ndarray:
        """Read-only ``int64`` person id of each (group, person) row."""
        return self._row_persons

    @property
    def indptr(self) -> np.ndarray:
        """Read-only ``int64`` row pointer into :attr:`indices`, length ``n_rows + 1``."""
        return self._indptr

    @property
    def indices(self) -> np.ndarray:
        """Read-only ``int32`` item ids, ascending within each row."""
        return self._indices

    @property
    def person_labels(self) -> np.ndarray:
        """Read-only sorted person labels."""
        return self._person_labels

    @property
    def group_labels(self) -> np.ndarray:
        """Read-only sorted group labels."""
        return self._group_labels

    @property
    def item_labels(self) -> np.ndarray:
        """Read-only sorted item labels (shared by all groups)."""
        return self._item_labels

    @property
    def n_groups(self) -> int:
        return int(self._group_labels.size)

    @property
    def n_persons(self) -> int:
        return int(self._person_labels.size)

    @property
    def n_items(self) -> int:
        return int(self._item_labels.size)

    @property
    def n_rows(self) -> int:
        """Number of distinct (group, person) pairs."""
        return int(self._row_persons.size)

    @property
    def n_triples(self) -> int:
        """Number of distinct (person, group, item) triples."""
        return int(self._indices.size)

    def row_groups(self) -> np.ndarray:
        """Group id of each row (``int64``)."""
        return np.repeat(np.arange(self.n_groups, dtype=np.int64), np.diff(self._group_indptr))

    def triples(self) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """Person, group and item ids of every triple, in CSR order.

        Examples
        --------
        >>> g = GroupedGraph.from_triples([1, 2], ["b", "a"], ["x", "x"])
        >>> [a.tolist() for a in g.triples()]
        [[1, 0], [0, 1], [0, 0]]
        """
        sizes = np.diff(self._indptr)
        persons = np.repeat(self._row_persons, sizes)
        groups = np.repeat(self.row_groups(), sizes)
        return persons, groups, self._indices.astype(np.int64)

    def distinct_counts(self) -> np.ndarray:
        """The true number of distinct items of each group (``int64``; not private).

        Examples
        --------
        >>> GroupedGraph.from_triples([1, 2, 2], ["a", "a", "b"], [5, 5, 6]).distinct_counts()
        array([1, 1])
        """
        _, groups, items = self.triples()
        m = max(1, self.n_items)
        keys = np.sort(groups * m + items)
        first = np.ones(keys.size, dtype=bool)
        first[1:] = keys[1:] != keys[:-1]
        return np.bincount(keys[first] // m, minlength=self.n_groups)

    def group_index(self, label: Any) -> int:
        """Id of the group with this label, or −1 if there is none."""
        if not contains_label(self._group_labels, label):
            return -1
        return int(np.searchsorted(self._group_labels, label))

    def group(self, label: Hashable) -> PersonItemGraph:
        """The person–item graph of one group (its persons and items only).

        Examples
        --------
        >>> g = GroupedGraph.from_triples([1, 2, 2], ["a", "a", "b"], [5, 6, 6])
        >>> g.group("a").person_labels.tolist(), g.group("b").n_pairs
        ([1, 2], 1)
        """
        g = self.group_index(label)
        if g < 0:
            raise InvalidParameterError(f"no group with label {label!r} in the data")
        r0, r1 = int(self._group_indptr[g]), int(self._group_indptr[g + 1])
        a, b = int(self._indptr[r0]), int(self._indptr[r1])
        persons = np.repeat(self._row_persons[r0:r1], np.diff(self._indptr[r0 : r1 + 1]))
        items = self._indices[a:b]
        person_ids, person_codes = np.unique(persons, return_inverse=True)
        item_ids, item_codes = np.unique(items, return_inverse=True)
        return graph_from_codes(
            person_codes.reshape(-1),
            item_codes.reshape(-1),
            self._person_labels[person_ids],
            self._item_labels[item_ids],
        )

    # -- restrictions --------------------------------------------------------------------------

    def _keep_rows(
        self,
        keep: np.ndarray,
        group_labels: np.ndarray | None = None,
        group_map: np.ndarray | None = None,
    ) -> GroupedGraph:
        """The graph with only the rows where ``keep`` (groups optionally renumbered)."""
        sizes = np.diff(self._indptr)[keep]
        indptr = np.zeros(sizes.size + 1, dtype=np.int64)
        np.cumsum(sizes, out=indptr[1:])
        indices = self._indices[np.repeat(keep, np.diff(self._indptr))]
        groups = self.row_groups()[keep]
        labels = self._group_labels
        if group_map is not None and group_labels is not None:
            groups, labels = group_map[groups], group_labels
        return self._new(
            _offsets(groups, labels.size),
            self._row_persons[keep],
            indptr,
            indices,
            self._person_labels,
            labels,
            self._item_labels,
        )

    def select_groups(self, labels: Iterable[Hashable]) -> GroupedGraph:
        """The graph of the listed groups that occur in the data (others are ignored).

        Examples
        --------
        >>> g = GroupedGraph.from_triples([1, 2], ["a", "b"], [5, 6])
        >>> g.select_groups(["b", "zz"]).group_labels.tolist()
        ['b']
        """
        keys = as_key_list(labels, "select_groups labels")
        ids = sorted({g for g in map(self.group_index, keys) if g >= 0})
        wanted = np.zeros(self.n_groups, dtype=bool)
        wanted[ids] = True
        group_map = np.cumsum(wanted) - 1
        return self._keep_rows(wanted[self.row_groups()], self._group_labels[wanted], group_map)

    def keep_groups(self, max_groups: int, key: int) -> GroupedGraph:
        """Every person keeps only its ``max_groups`` groups of smallest keyed hash.

        The hash of a (person, group) row is XXH64 of the secret ``key`` and the two labels
        (:func:`dpcount.common.hashing.keyed_pair_ranks`), so which groups a person keeps depends on
        that person's own groups and the key only – never on another person.

        Examples
        --------
        >>> g = GroupedGraph.from_triples(["p"] * 5, list("abcde"), [1] * 5)
        >>> g.keep_groups(2, key=7).n_rows
        2
        """
        if max_groups < 1:
            raise InvalidParameterError(f"max_groups must be >= 1, got {max_groups}")
        order = np.argsort(self._row_persons, kind="stable")  # person-major, groups ascending
        person_indptr = np.zeros(self.n_persons + 1, dtype=np.int64)
        np.cumsum(np.bincount(self._row_persons, minlength=self.n_persons), out=person_indptr[1:])
        ranks = keyed_pair_ranks(
            person_indptr,
            self.row_groups()[order].astype(np.int32),
            self._person_labels,
            self._group_labels,
            np.uint64(key),
        )
        keep = np.empty(self.n_rows, dtype=bool)
        keep[order] = ranks < max_groups
        return self._keep_rows(keep)

    # -- dunder --------------------------------------------------------------------------------

    def __setattr__(self, name: str, value: Any) -> None:
        raise AttributeError("GroupedGraph is immutable; build a new graph instead")

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, GroupedGraph):
            return NotImplemented
        return all(np.array_equal(getattr(self, f), getattr(other, f)) for f in _FIELDS)

    __hash__ = None  # type: ignore[assignment]

    def __getstate__(self) -> tuple[np.ndarray, ...]:
        return tuple(getattr(self, name) for name in _FIELDS)

    def __setstate__(self, state: tuple[np.ndarray, ...]) -> None:
        for name, value in zip(_FIELDS, state, strict=True):
            object.__setattr__(self, name, readonly(np.array(value)))

    def __repr__(self) -> str:
        return (
            f"GroupedGraph(n_groups={self.n_groups:,}, n_persons={self.n_persons:,}, "
            f"n_items={self.n_items:,}, n_triples={self.n_triples:,})"
        )


def grouped_from_codes(
    person_codes: np.ndarray,
    group_codes: np.ndarray,
    item_codes: np.ndarray,
    person_labels: np.ndarray,
    group_labels: np.ndarray,
    item_labels: np.ndarray,
) -> GroupedGraph:
    """Group-major CSR from codes into sorted label arrays; merges duplicate triples.

    The codes follow the contract of :mod:`dpcount.graph.assembly` (codes into sorted unique
    labels, any order, repeats allowed), with a third column, the groups.  One ``np.sort`` of
    an int64 key (group, person, item) orders and deduplicates everything (``np.unique`` would
    hash instead, many times slower on numpy ≥ 2.3).

    Examples
    --------
    >>> g = grouped_from_codes(np.array([0, 0, 1]), np.array([1, 1, 0]), np.array([0, 0, 0]),
    ...                        np.array(["ann", "bob"]), np.array(["eu", "us"]), np.array([7]))
    >>> g.n_triples, g.distinct_counts().tolist()
    (2, [1, 1])
    """
    n, n_groups, m = (max(1, x.size) for x in (person_labels, group_labels, item_labels))
    pc = np.asarray(person_codes, dtype=np.int64)
    gc = np.asarray(group_codes, dtype=np.int64)
    ic = np.asarray(item_codes, dtype=np.int64)
    if n_groups * n * m < 2**62:
        keys = np.sort(_triple_keys.select(gc.size)(gc, pc, ic, n, m))
        arrays = _csr_from_keys.select(keys.size)(keys, n, m, group_labels.size)
        return GroupedGraph._new(*arrays, person_labels, group_labels, item_labels)
    # Too many combinations for one int64 key: sort by the three columns.
    order = np.lexsort((ic, pc, gc))
    gc, pc, ic = gc[order], pc[order], ic[order]
    first = np.ones(order.size, dtype=bool)
    first[1:] = (gc[1:] != gc[:-1]) | (pc[1:] != pc[:-1]) | (ic[1:] != ic[:-1])
    gc, pc, ic = gc[first], pc[first], ic[first]
    new_row = np.ones(gc.size, dtype=bool)
    new_row[1:] = (gc[1:] != gc[:-1]) | (pc[1:] != pc[:-1])
    starts = np.flatnonzero(new_row)
    return GroupedGraph._new(
        _offsets(gc[starts], group_labels.size),
        pc[starts],
        np.append(starts, gc.size).astype(np.int64),
        ic.astype(np.int32),
        person_labels,
        group_labels,
        item_labels,
    )


def _check(
    group_indptr: np.ndarray,
    row_persons: np.ndarray,
    indptr: np.ndarray,
    indices: np.ndarray,
    persons: np.ndarray,
    groups: np.ndarray,
    items: np.ndarray,
) -> None:
    """Validate the CSR invariants (vectorised): offsets, id ranges, strict orders, labels."""
    n_rows = row_persons.size
    if group_indptr.size != groups.size + 1 or group_indptr[0] != 0 or group_indptr[-1] != n_rows:
        raise DataError(
            f"group_indptr must have length n_groups + 1 = {groups.size + 1}, "
            "start at 0 and end at the number of rows"
        )
    if np.any(np.diff(group_indptr) < 0):
        raise DataError("group_indptr must be non-decreasing")
    if indptr.size != n_rows + 1 or indptr[0] != 0 or indptr[-1] != indices.size:
        raise DataError("indptr must have length n_rows + 1, start at 0 and end at len(indices)")
    if np.any(np.diff(indptr) <= 0):
        raise DataError("every (group, person) row must hold at least one item")
    for what, ids, size in (("person", row_persons, persons.size), ("item", indices, items.size)):
        if ids.size and (ids.min() < 0 or ids.max() >= size):
            raise DataError(f"{what} ids must lie in [0, {size})")
    for what, ids, ptr in (("person", row_persons, group_indptr), ("item", indices, indptr)):
        if ids.size > 1:
            starts = np.zeros(ids.size, dtype=bool)
            starts[ptr[1:-1][ptr[1:-1] < ids.size]] = True
            if np.any((np.diff(ids.astype(np.int64)) <= 0) & ~starts[1:]):
                raise DataError(
                    f"{what} ids must be strictly increasing within each "
                    f"{'group' if what == 'person' else 'row'}"
                )
    for what, labels in (("person", persons), ("group", groups), ("item", items)):
        check_sorted_unique(labels, what)


def _offsets(ids: np.ndarray, size: int) -> np.ndarray:
    """Offsets (length ``size + 1``) of runs of sorted ids ``0..size-1``."""
    out = np.zeros(size + 1, dtype=np.int64)
    np.cumsum(np.bincount(ids, minlength=size), out=out[1:])
    return out


@kernel("(ro(int64[:]), ro(int64[:]), ro(int64[:]), int64, int64)", interpret_below=SMALL_PAIRS)
def _triple_keys(gc: np.ndarray, pc: np.ndarray, ic: np.ndarray, n: int, m: int) -> np.ndarray:
    """(group · n + person) · m + item for every triple, in one pass."""
    keys = np.empty(gc.size, dtype=np.int64)
    for q in range(gc.size):
        keys[q] = (gc[q] * n + pc[q]) * m + ic[q]
    return keys


@kernel("(ro(int64[:]), int64, int64, int64)", interpret_below=SMALL_PAIRS)
def _csr_from_keys(
    keys: np.ndarray, n: int, m: int, n_groups: int
) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """Group offsets, row persons, row pointer and items from sorted keys (duplicates skipped)."""
    items = np.empty(keys.size, dtype=np.int32)
    persons = np.empty(keys.size, dtype=np.int64)
    indptr = np.empty(keys.size + 1, dtype=np.int64)
    group_indptr = np.zeros(n_groups + 1, dtype=np.int64)
    rows = 0
    size = 0
    previous = -1
    previous_row = -1
    for q in range(keys.size):
        key = keys[q]
        if key == previous:
            continue
        previous = key
        row = key // m
        if row != previous_row:
            previous_row = row
            persons[rows] = row % n
            group_indptr[row // n + 1] += 1
            indptr[rows] = size
            rows += 1
        items[size] = key - row * m
        size += 1
    indptr[rows] = size
    for g in range(n_groups):
        group_indptr[g + 1] += group_indptr[g]
    return group_indptr, persons[:rows].copy(), indptr[: rows + 1].copy(), items[:size].copy()
