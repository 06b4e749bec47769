"""The person–item graph: one immutable CSR representation that every algorithm reads.

Persons are one side of a bipartite graph, items the other, and an edge says that a person holds
an item.  Persons and items are numbered ``0..n-1`` and ``0..m-1`` **in the sorted order of their
labels**: a total order of the universe fixed before anyone looks at who holds what.  The greedy
algorithm's sensitivity proof (Knop & Steinke, Thm 1.2) and the keyed user order of set union
rely on that; never renumber by frequency or first appearance.

Labels must be mutually orderable.  Strings sort as Python strings (by code point), numbers
numerically; a mix of strings and numbers (or bytes) is rejected rather than silently coerced,
because ``1`` and ``"1"`` would otherwise collide or sort inconsistently.  Nulls (``None``, NaN,
NaT) are rejected.

Examples
--------
>>> from dpcount import PersonItemGraph
>>> g = PersonItemGraph.from_sets({"ann": {"a", "b"}, "bob": {"b"}, "cy": set()})
>>> g
PersonItemGraph(n_persons=3, n_items=2, n_pairs=3)
>>> g.degrees().tolist(), g.item_labels.tolist()
([2, 1, 0], ['a', 'b'])
>>> g.without_persons(["ann"]).n_items
1
"""

from __future__ import annotations

import numbers
from collections.abc import Hashable, Iterable, Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import numpy as np
import numpy.typing as npt

from dpcount._deferred_labels import DeferredLabels
from dpcount._dense import dense_codes
from dpcount._memory import release_free_memory
from dpcount.errors import DataError, InvalidParameterError
from dpcount.validation import MAX_ITEMS

if TYPE_CHECKING:
    import igraph
    import networkx
    import scipy.sparse

__all__ = ["GraphSummary", "PersonItemGraph"]

#: Labels as NumPy, or strings kept as Arrow made them until first read.
Labels = np.ndarray | DeferredLabels

#: Pairs from which CSR is built by the compiled passes of :mod:`dpcount._csr`; below, NumPy
#: alone (compiling or loading the kernels would cost more than it saves).
COMPILED_MIN_PAIRS = 1 << 21


# --------------------------------------------------------------------------------------------
# Label handling
# --------------------------------------------------------------------------------------------


def _label_kind(label_type: type) -> str:
    """Coarse kind of a label type; labels of different kinds are not mutually orderable."""
    if issubclass(label_type, str | np.str_):
        return "str"
    if issubclass(label_type, bytes | np.bytes_):
        return "bytes"
    if issubclass(label_type, bool | np.bool_):  # True == 1 would silently merge two labels
        return "bool"
    if issubclass(label_type, numbers.Number | np.number):
        return "number"
    if label_type is type(None) or label_type.__name__ == "NAType":  # pandas.NA
        return "null"
    return label_type.__name__


def _is_nan(value: Any) -> bool:
    return isinstance(value, float | np.floating) and value != value


def _null_count(values: np.ndarray) -> int:
    """Number of null entries (None, NaN, NaT) in a label array."""
    if values.dtype.kind == "f":
        return int(np.isnan(values).sum())
    if values.dtype.kind in "mM":
        return int(np.isnat(values).sum())
    if values.dtype.kind == "O":
        return sum(1 for v in values if _label_kind(type(v)) == "null" or _is_nan(v))
    return 0


def _as_label_array(values: Any, what: str) -> np.ndarray:
    """Turn labels into a 1-D numpy array without coercing between kinds.

    ``np.asarray([1, "a"])`` would silently produce strings, so sequences of Python objects are
    type-checked first and become object arrays when they are not all str or all int.
    """
    if isinstance(values, np.ndarray):
        arr = values
    elif hasattr(values, "to_numpy"):  # pandas Series / Index, pyarrow-backed columns
        arr = values.to_numpy()
    else:
        seq = list(values)
        kinds = {_label_kind(type(v)) for v in seq}
        if kinds == {"str"}:
            arr = np.array(seq, dtype=str) if seq else np.empty(0, dtype=str)
        elif kinds == {"number"} and all(isinstance(v, int | np.integer) for v in seq):
            try:
                arr = np.array(seq, dtype=np.int64)
            except OverflowError:  # beyond int64: keep Python ints
                arr = np.empty(len(seq), dtype=object)
                arr[:] = seq
        else:
            arr = np.empty(len(seq), dtype=object)
            arr[:] = seq
    if arr.ndim != 1:
        raise DataError(f"{what} must be one-dimensional, got an array of shape {arr.shape}")
    nulls = _null_count(arr)
    if nulls:
        raise DataError(
            f"{nulls} null {what} (None/NaN); drop or fill them before building the graph"
        )
    if arr.dtype.kind == "O" and arr.size:
        kinds = {_label_kind(t) for t in set(map(type, arr))}
        if len(kinds) > 1:
            raise DataError(
                f"{what} mix label types {sorted(kinds)}; convert them to one type "
                "(e.g. all str) so that their order is well defined"
            )
    return arr


def _encode(values: np.ndarray, what: str) -> tuple[np.ndarray, np.ndarray]:
    """Sorted unique labels and, for each value, the index of its label."""
    dense = dense_codes(values)  # narrow-range integers (the common case): no sort
    if dense is not None:
        return dense
    # Sort-based (np.unique hashes in NumPy >= 2.3, many times slower on per-pair arrays).
    try:
        order = np.argsort(values, kind="stable")
        ordered = values[order]
        first = np.ones(ordered.size, dtype=bool)
        first[1:] = ordered[1:] != ordered[:-1]
    except TypeError as exc:
        raise DataError(f"{what} are not mutually orderable: {exc}") from exc
    codes = np.empty(values.size, dtype=np.intp)
    codes[order] = np.cumsum(first) - 1
    return ordered[first], codes


def _concat_labels(a: np.ndarray, b: np.ndarray, what: str) -> np.ndarray:
    """Concatenate two label arrays, refusing to coerce numbers into strings."""
    if not b.size:
        return a
    if not a.size:
        return b
    numeric = set("biuf")
    if a.dtype.kind != b.dtype.kind and not {a.dtype.kind, b.dtype.kind} <= numeric:
        merged = np.empty(a.size + b.size, dtype=object)
        merged[: a.size] = a
        merged[a.size :] = b
        return _as_label_array(merged, what)
    return np.concatenate([a, b])


def _readonly(arr: np.ndarray) -> np.ndarray:
    arr.flags.writeable = False
    return arr


# --------------------------------------------------------------------------------------------
# Summary
# --------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class GraphSummary:
    """Sizes and degree statistics of a :class:`PersonItemGraph` (not private)."""

    n_persons: int
    n_items: int
    n_pairs: int
    persons_without_items: int
    degree_median: float
    degree_p90: float
    degree_p99: float
    degree_max: int
    item_degree_max: int
    has_counts: bool

    def __str__(self) -> str:
        rows = [
            ("persons", f"{self.n_persons:,}"),
            ("items (distinct count)", f"{self.n_items:,}"),
            ("person–item pairs", f"{self.n_pairs:,}"),
            ("persons without items", f"{self.persons_without_items:,}"),
            (
                "items per person",
                f"median {self.degree_median:g}, p90 {self.degree_p90:g}, "
                f"p99 {self.degree_p99:g}, max {self.degree_max:,}",
            ),
            ("most holders of one item", f"{self.item_degree_max:,}"),
        ]
        width = max(len(k) for k, _ in rows)
        return "\n".join(f"{k:<{width}}  {v}" for k, v in rows)


# --------------------------------------------------------------------------------------------
# The graph
# --------------------------------------------------------------------------------------------


class PersonItemGraph:
    """Immutable bipartite person–item graph in CSR form.

    Build it with :meth:`from_pairs`, :meth:`from_sets`, :meth:`from_dataframe` or
    :func:`dpcount.read_pairs`; the constructor itself takes ready CSR arrays and checks them.

    Parameters
    ----------
    indptr
        ``int64`` array of length ``n_persons + 1``; person ``p`` holds
        ``indices[indptr[p]:indptr[p+1]]``.
    indices
        ``int32`` item ids, strictly increasing within each person (no duplicate pairs).
    person_labels, item_labels
        Strictly increasing (sorted, unique) labels; ids are positions in these arrays.
    counts
        Optional positive per-pair multiplicities (e.g. how often a person used an n-gram).
        Set semantics, and so every distinct-count algorithm, ignore them.

    Notes
    -----
    Persons without items are allowed (they change nothing for DC(D;ℓ) but count for the
    neighbouring relation and for set-union user orders).  Every item has at least one holder.
    Neighbouring datasets differ by one person with all their items: see
    :meth:`without_persons` and :meth:`with_person`.  Memory is about 12 bytes per pair
    (4 for the item id, 8 with counts) plus the labels.

    Examples
    --------
    >>> import numpy as np
    >>> g = PersonItemGraph(np.array([0, 2, 3]), np.array([0, 1, 1]),
    ...                     np.array(["p", "q"]), np.array(["x", "y"]))
    >>> g.summary().n_pairs
    3
    """

    __slots__ = ("_counts", "_indices", "_indptr", "_item_labels", "_person_labels")
    _indptr: np.ndarray
    _indices: np.ndarray
    _person_labels: Labels  # converted to NumPy on first access when deferred
    _item_labels: Labels
    _counts: np.ndarray | None

    def __init__(
        self,
        indptr: npt.ArrayLike,
        indices: npt.ArrayLike,
        person_labels: npt.ArrayLike,
        item_labels: npt.ArrayLike,
        counts: npt.ArrayLike | None = None,
    ) -> None:
        indptr_a = np.array(indptr, dtype=np.int64)
        indices_a = np.array(indices, dtype=np.int32)
        persons = np.array(_as_label_array(person_labels, "person labels"))
        items = np.array(_as_label_array(item_labels, "item labels"))
        counts_a = None if counts is None else np.array(counts, dtype=np.int64)
        _check_csr(indptr_a, indices_a, persons, items, counts_a)
        for name, value in (
            ("_indptr", indptr_a),
            ("_indices", indices_a),
            ("_person_labels", persons),
            ("_item_labels", items),
            ("_counts", counts_a),
        ):
            object.__setattr__(self, name, None if value is None else _readonly(value))

    # -- construction ------------------------------------------------------------------------

    @classmethod
    def from_pairs(
        cls,
        persons: Any,
        items: Any,
        counts: npt.ArrayLike | None = None,
        *,
        persons_without_items: Iterable[Hashable] = (),
    ) -> PersonItemGraph:
        """Build a graph from parallel sequences of person and item labels.

        Duplicate pairs are merged (their ``counts`` are summed when given).

        Parameters
        ----------
        persons, items
            Equal-length sequences or arrays of hashable, orderable labels.
        counts
            Optional non-negative integer multiplicity of each pair; pairs whose summed count is
            0 are dropped.
        persons_without_items
            Extra person labels that hold nothing.

        Returns
        -------
        PersonItemGraph

        Raises
        ------
        DataError
            On length mismatch, null labels, labels of mixed kinds or negative counts.

        Examples
        --------
        >>> g = PersonItemGraph.from_pairs([1, 1, 2, 1], ["b", "a", "a", "a"])
        >>> g.indptr.tolist(), g.indices.tolist(), g.item_labels.tolist()
        ([0, 2, 3], [0, 1, 0], ['a', 'b'])
        """
        p = _as_label_array(persons, "person labels")
        i = _as_label_array(items, "item labels")
        if p.shape != i.shape:
            raise DataError(f"persons and items differ in length: {p.size} vs {i.size}")
        c = None
        if counts is not None:
            c = np.asarray(counts)
            if c.shape != p.shape:
                raise DataError(f"counts has length {c.size}, expected {p.size} (one per pair)")
            if c.size and (c.dtype.kind not in "iub" or c.min() < 0):
                raise DataError("counts must be non-negative integers")
        extra = _as_label_array(list(persons_without_items), "person labels")
        return cls._from_label_arrays(_concat_labels(p, extra, "person labels"), p.size, i, c)

    @classmethod
    def from_sets(
        cls, sets: Mapping[Hashable, Iterable[Hashable]] | Mapping[Hashable, Mapping[Any, int]]
    ) -> PersonItemGraph:
        """Build a graph from ``{person: items}``; a mapping of item counts keeps the counts.

        Examples
        --------
        >>> g = PersonItemGraph.from_sets({"ann": {"x": 2, "y": 1}, "bob": {"x": 5}})
        >>> g.counts.tolist()
        [2, 1, 5]
        >>> PersonItemGraph.from_sets({"solo": []}).summary().persons_without_items
        1
        """
        persons: list[Hashable] = []
        items: list[Hashable] = []
        counts: list[int] = []
        empty: list[Hashable] = []
        mappings = [isinstance(v, Mapping) for v in sets.values()]
        with_counts = bool(sets) and all(mappings)
        if any(mappings) and not with_counts:
            raise DataError(
                "from_sets got item counts for some persons and plain item sets for others; "
                "give every person a mapping {item: count} or every person a set"
            )
        for person, held in sets.items():
            before = len(items)
            if with_counts:
                for item, count in held.items():  # type: ignore[union-attr]
                    items.append(item)
                    counts.append(count)
            else:
                items.extend(held)
            if len(items) == before:
                empty.append(person)
            persons.extend([person] * (len(items) - before))
        return cls.from_pairs(
            persons,
            items,
            counts=counts if with_counts else None,
            persons_without_items=empty,
        )

    @classmethod
    def from_dataframe(
        cls,
        df: Any,
        person: str = "person",
        item: str = "item",
        count: str | None = None,
        *,
        drop_nulls: bool = False,
    ) -> PersonItemGraph:
        """Build a graph from two (or three) columns of a table in memory.

        ``df`` is a pandas or polars DataFrame, a polars LazyFrame, a pyarrow Table or
        RecordBatchReader, or a DuckDB relation; the table is read exactly like a file by
        :func:`dpcount.read_pairs` (same options, same errors – e.g. null ids are an error
        unless ``drop_nulls=True``).

        Examples
        --------
        >>> import pandas as pd
        >>> df = pd.DataFrame({"user": ["u1", "u2", "u1"], "word": ["hi", "hi", "yo"]})
        >>> PersonItemGraph.from_dataframe(df, person="user", item="word").n_pairs
        3
        """
        from dpcount._frames import frame_kind
        from dpcount.io import read_pairs

        if frame_kind(df) is None:
            raise InvalidParameterError(
                f"from_dataframe takes a pandas, polars, Arrow or DuckDB table, not a "
                f"{type(df).__name__}; use from_pairs for sequences"
            )
        return read_pairs(df, person=person, item=item, count=count, drop_nulls=drop_nulls)

    @classmethod
    def _from_label_arrays(
        cls,
        person_values: np.ndarray,
        n_paired: int,
        item_values: np.ndarray,
        counts: np.ndarray | None,
    ) -> PersonItemGraph:
        """Encode labels and build CSR; ``person_values[n_paired:]`` are persons without items."""
        person_labels, person_codes = _encode(person_values, "person labels")
        item_labels, item_codes = _encode(item_values, "item labels")
        return cls._from_codes(
            person_codes[:n_paired], item_codes, person_labels, item_labels, counts
        )

    @classmethod
    def _from_codes(
        cls,
        person_codes: np.ndarray,
        item_codes: np.ndarray,
        person_labels: Labels,
        item_labels: Labels,
        counts: np.ndarray | None = None,
        *,
        all_items_held: bool = False,
    ) -> PersonItemGraph:
        """CSR from codes into sorted label arrays; merges duplicates, drops unheld items."""
        return cls._from_code_groups(
            [person_codes],
            [item_codes],
            person_labels,
            item_labels,
            counts,
            all_items_held=all_items_held,
        )

    @classmethod
    def _from_code_groups(
        cls,
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
    ) -> PersonItemGraph:
        """:meth:`_from_codes` for pairs given in groups (concatenated only if need be).

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
        fill), and the keys are sorted: for many pairs without counts by the compiled passes
        of :mod:`dpcount._csr` around NumPy's sort, otherwise by NumPy alone
        (:meth:`_from_keys`).
        """
        n, m = person_labels.size, item_labels.size
        if m > MAX_ITEMS or n > MAX_ITEMS:
            raise DataError(f"{n} persons and {m} items: ids are limited to 2**31 - 1 each")
        _check_key_range(n, m)
        if counts is None and sum(g.size for g in person_codes) >= COMPILED_MIN_PAIRS:
            from dpcount._csr import csr_by_sorting  # imports numba: only for large inputs

            indptr, indices = csr_by_sorting(
                person_codes, item_codes, n, max(m, 1), person_maps, item_maps
            )
            return cls._finish(
                indptr, indices, person_labels, item_labels, all_items_held, drop_unused_persons
            )
        keys = _pair_keys(person_codes, item_codes, max(m, 1), person_maps, item_maps)
        return cls._from_keys(
            keys,
            person_labels,
            item_labels,
            counts,
            all_items_held=all_items_held,
            drop_unused_persons=drop_unused_persons,
        )

    @classmethod
    def _from_keys(
        cls,
        keys: np.ndarray,
        person_labels: Labels,
        item_labels: Labels,
        counts: np.ndarray | None = None,
        *,
        all_items_held: bool = False,
        drop_unused_persons: bool = False,
    ) -> PersonItemGraph:
        """CSR from pair keys ``person * max(n_items, 1) + item``; **consumes** ``keys``.

        ``keys`` (``int64``) is sorted in place and reused as scratch space, so callers pass an
        array they own.  Duplicate pairs are merged by one sort and a neighbour mask (never
        ``np.unique``, which hashes in NumPy >= 2.3 and is many times slower here); with
        ``counts`` their multiplicities are summed and pairs summing to 0 dropped, and items
        left without holders are removed (skip that check with ``all_items_held=True`` when
        every item occurs in ``keys`` by construction).  With ``drop_unused_persons``, persons
        in no key are dropped (but not those whose pairs all summed to 0).  The CSR is correct
        by construction, so only the labels are checked.
        """
        m = max(item_labels.size, 1)
        if counts is None:
            indptr, indices = csr_from_keys(keys, person_labels.size, m)
            return cls._finish(
                indptr, indices, person_labels, item_labels, all_items_held, drop_unused_persons
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
        in_keys = None  # persons with a key, when those without are dropped
        if drop_unused_persons:
            in_keys = np.zeros(person_labels.size, dtype=bool)
            in_keys[sorted_keys[starts] // m] = True
        keep = merged > 0
        unique_keys, merged = sorted_keys[starts[keep]], merged[keep]
        del sorted_keys, sorted_counts
        cols = unique_keys % m
        from dpcount._csr import held_items

        held = held_items(cols, item_labels.size)
        if not held.all():  # an item whose pairs all had count 0 is not in the data
            unique_keys = (unique_keys // m) * int(held.sum()) + (np.cumsum(held) - 1)[cols]
            item_labels = item_labels[held]
        indptr, indices = csr_from_keys(unique_keys, person_labels.size, max(item_labels.size, 1))
        if in_keys is not None:
            indptr, person_labels = _only_persons(indptr, person_labels, in_keys)
        return cls._trusted(indptr, indices, person_labels, item_labels, merged)

    @classmethod
    def _finish(
        cls,
        indptr: np.ndarray,
        indices: np.ndarray,
        person_labels: Labels,
        item_labels: Labels,
        all_items_held: bool,
        drop_empty_persons: bool = False,
    ) -> PersonItemGraph:
        """:meth:`_trusted`, after dropping items without holders unless told there are none,
        and persons without items if told to."""
        if drop_empty_persons:
            indptr, person_labels = _only_persons(indptr, person_labels, indptr[1:] > indptr[:-1])
        if not all_items_held:
            from dpcount._csr import held_items

            held = held_items(indices, item_labels.size)
            if not held.all():
                indices = (np.cumsum(held, dtype=np.int32) - 1)[indices]
                item_labels = item_labels[held]
        return cls._trusted(indptr, indices, person_labels, item_labels)

    @classmethod
    def _trusted(
        cls,
        indptr: np.ndarray,
        indices: np.ndarray,
        person_labels: Labels,
        item_labels: Labels,
        counts: np.ndarray | None = None,
    ) -> PersonItemGraph:
        """A graph from CSR arrays correct by construction: no copies, labels checked only.

        ``indptr`` must be ``int64`` and ``indices`` ``int32`` already (asserted); the arrays
        are frozen in place, so callers must not keep writable references.  Labels may be
        :class:`~dpcount._deferred_labels.DeferredLabels`, converted on first access.
        """
        assert indptr.dtype == np.int64 and indices.dtype == np.int32
        assert counts is None or counts.dtype == np.int64
        if item_labels.size > MAX_ITEMS:
            raise DataError(f"{item_labels.size} items exceed the int32 item-id range")
        graph = cls.__new__(cls)
        for what, labels in (("person", person_labels), ("item", item_labels)):
            _check_sorted_unique(labels, what)
        for name, value in (
            ("_indptr", indptr),
            ("_indices", indices),
            ("_person_labels", person_labels),
            ("_item_labels", item_labels),
            ("_counts", counts),
        ):
            if isinstance(value, np.ndarray):
                value = _readonly(value)
            object.__setattr__(graph, name, value)
        return graph

    # -- arrays and sizes --------------------------------------------------------------------

    @property
    def indptr(self) -> np.ndarray:
        """Read-only ``int64`` row pointer, length ``n_persons + 1``."""
        return self._indptr

    @property
    def indices(self) -> np.ndarray:
        """Read-only ``int32`` item ids, ascending within each person."""
        return self._indices

    @property
    def person_labels(self) -> np.ndarray:
        """Read-only sorted person labels; person id ``p`` is ``person_labels[p]``."""
        return self._labels("_person_labels")

    @property
    def item_labels(self) -> np.ndarray:
        """Read-only sorted item labels; item id ``i`` is ``item_labels[i]``."""
        return self._labels("_item_labels")

    def _labels(self, name: str) -> np.ndarray:
        """The labels in slot ``name`` as NumPy, converted (and kept) on first access."""
        labels = getattr(self, name)
        if isinstance(labels, DeferredLabels):
            labels = _readonly(labels.to_numpy())
            object.__setattr__(self, name, labels)
        return labels

    @property
    def counts(self) -> np.ndarray | None:
        """Read-only per-pair multiplicities aligned with :attr:`indices`, or ``None``."""
        return self._counts

    @property
    def n_persons(self) -> int:
        return int(self._indptr.size - 1)

    @property
    def n_items(self) -> int:
        """Number of distinct items, i.e. the true distinct count DC(D) (not private)."""
        return int(self._item_labels.size)

    @property
    def n_pairs(self) -> int:
        return int(self._indices.size)

    def degrees(self) -> np.ndarray:
        """Number of items of each person (``int64``, length ``n_persons``)."""
        return np.diff(self._indptr)

    def item_degrees(self) -> np.ndarray:
        """Number of holders of each item (``int64``, length ``n_items``)."""
        return np.bincount(self._indices, minlength=self.n_items).astype(np.int64)

    def degree_quantiles(self, q: npt.ArrayLike) -> np.ndarray:
        """Quantiles of the person degrees (``q`` in [0, 1]); zeros for an empty graph."""
        q_arr = np.asarray(q, dtype=float)
        if np.any((q_arr < 0) | (q_arr > 1)):
            raise InvalidParameterError(f"quantiles must lie in [0, 1], got {q!r}")
        degrees = self.degrees()
        if degrees.size == 0:
            return np.zeros_like(q_arr)
        return np.quantile(degrees, q_arr)

    def pairs(self) -> tuple[np.ndarray, np.ndarray]:
        """Person ids and item ids of every pair, in CSR order.

        Examples
        --------
        >>> g = PersonItemGraph.from_sets({"a": [1, 2], "b": [2]})
        >>> [x.tolist() for x in g.pairs()]
        [[0, 0, 1], [0, 1, 1]]
        """
        persons = np.repeat(np.arange(self.n_persons, dtype=np.int64), self.degrees())
        return persons, self._indices.astype(np.int64)

    def items_of(self, person: Hashable) -> np.ndarray:
        """Item labels held by the person with label ``person``."""
        p = self.person_index(person)
        return self.item_labels[self._indices[self._indptr[p] : self._indptr[p + 1]]]

    def person_index(self, label: Hashable) -> int:
        """Id of the person with this label; ``InvalidParameterError`` if there is none."""
        return _index_of(self.person_labels, label, "person")

    def item_index(self, label: Hashable) -> int:
        """Id of the item with this label; ``InvalidParameterError`` if there is none."""
        return _index_of(self.item_labels, label, "item")

    def summary(self) -> GraphSummary:
        """Sizes and degree quantiles (a description of the data, not a private release)."""
        degrees = self.degrees()
        med, p90, p99 = (float(x) for x in self.degree_quantiles([0.5, 0.9, 0.99]))
        item_degrees = self.item_degrees()
        return GraphSummary(
            n_persons=self.n_persons,
            n_items=self.n_items,
            n_pairs=self.n_pairs,
            persons_without_items=int((degrees == 0).sum()),
            degree_median=med,
            degree_p90=p90,
            degree_p99=p99,
            degree_max=int(degrees.max(initial=0)),
            item_degree_max=int(item_degrees.max(initial=0)),
            has_counts=self._counts is not None,
        )

    # -- neighbours ---------------------------------------------------------------------------

    def without_persons(self, labels: Iterable[Hashable]) -> PersonItemGraph:
        """The graph with these persons and all their pairs removed (items nobody holds go).

        Examples
        --------
        >>> g = PersonItemGraph.from_sets({"a": ["x"], "b": ["x", "y"]})
        >>> g.without_persons(["b"]).item_labels.tolist()
        ['x']
        """
        drop = np.zeros(self.n_persons, dtype=bool)
        for label in labels:
            drop[self.person_index(label)] = True
        keep_pairs = np.repeat(~drop, self.degrees())
        persons, items = self.pairs()
        old_to_new = np.cumsum(~drop) - 1
        counts = None if self._counts is None else self._counts[keep_pairs]
        return type(self)._from_codes(
            old_to_new[persons[keep_pairs]],
            items[keep_pairs],
            self.person_labels[~drop],
            self.item_labels,
            counts,
        )

    def with_person(
        self, label: Hashable, items: Iterable[Hashable], counts: Iterable[int] | None = None
    ) -> PersonItemGraph:
        """The graph with one more person holding ``items`` (a neighbouring dataset).

        Parameters
        ----------
        label
            A person label not yet in the graph.
        items
            Item labels of the new person; duplicates are merged, new items are inserted in
            label order.
        counts
            Multiplicities of ``items`` for a graph with counts (default 1 each).

        Examples
        --------
        >>> g = PersonItemGraph.from_sets({"a": ["x"]})
        >>> g.with_person("b", ["w", "x"]).item_labels.tolist()
        ['w', 'x']
        """
        if _contains(self.person_labels, label):
            raise InvalidParameterError(f"person {label!r} is already in the graph")
        new_items = _as_label_array(list(items), "item labels")
        persons, item_ids = self.pairs()
        new_person = _as_label_array([label], "person labels")
        all_persons = _concat_labels(self.person_labels, new_person, "person labels")
        pair_persons = np.concatenate([persons, np.full(new_items.size, self.n_persons)])
        pair_items = _concat_labels(self.item_labels[item_ids], new_items, "item labels")
        pair_counts = None
        if self._counts is not None or counts is not None:
            old = self._counts if self._counts is not None else np.ones(self.n_pairs, np.int64)
            new = np.ones(new_items.size, np.int64) if counts is None else np.asarray(counts)
            if new.shape != new_items.shape:
                raise DataError(f"{new.size} counts for {new_items.size} items")
            pair_counts = np.concatenate([old, new])
        person_labels, person_codes = _encode(all_persons, "person labels")
        item_labels, item_codes = _encode(pair_items, "item labels")
        return type(self)._from_codes(
            person_codes[pair_persons], item_codes, person_labels, item_labels, pair_counts
        )

    # -- conversions --------------------------------------------------------------------------

    def biadjacency(self, *, counts: bool = False) -> scipy.sparse.csr_array:
        """The ``n_persons × n_items`` biadjacency matrix (entries 1, or the counts).

        Examples
        --------
        >>> g = PersonItemGraph.from_sets({"a": ["x", "y"], "b": ["y"]})
        >>> g.biadjacency().toarray().tolist()
        [[1, 1], [0, 1]]
        """
        import scipy.sparse

        if counts and self._counts is None:
            raise InvalidParameterError("this graph has no counts")
        data = self._counts if counts else np.ones(self.n_pairs, dtype=np.int32)
        return scipy.sparse.csr_array(
            (data, self._indices, self._indptr), shape=(self.n_persons, self.n_items)
        )

    def to_networkx(self) -> networkx.Graph:
        """An undirected networkx graph; nodes are ``("person", label)`` and ``("item", label)``.

        Nodes carry ``bipartite`` (0 persons, 1 items) and ``label``; edges carry ``count`` when
        the graph has counts.

        Examples
        --------
        >>> g = PersonItemGraph.from_sets({"a": ["x"]}).to_networkx()
        >>> sorted(g.nodes(data="bipartite"))
        [(('item', 'x'), 1), (('person', 'a'), 0)]
        """
        import networkx as nx

        graph = nx.Graph()
        person_nodes = [("person", _py(x)) for x in self.person_labels]
        item_nodes = [("item", _py(x)) for x in self.item_labels]
        graph.add_nodes_from((v, {"bipartite": 0, "label": v[1]}) for v in person_nodes)
        graph.add_nodes_from((v, {"bipartite": 1, "label": v[1]}) for v in item_nodes)
        persons, items = self.pairs()
        if self._counts is None:
            graph.add_edges_from(
                (person_nodes[p], item_nodes[i]) for p, i in zip(persons, items, strict=True)
            )
        else:
            graph.add_edges_from(
                (person_nodes[p], item_nodes[i], {"count": int(c)})
                for p, i, c in zip(persons, items, self._counts, strict=True)
            )
        return graph

    def to_igraph(self) -> igraph.Graph:
        """A bipartite igraph graph: vertices ``0..n-1`` persons, ``n..n+m-1`` items.

        Vertices carry ``type`` (False persons, True items) and ``label``.

        Examples
        --------
        >>> g = PersonItemGraph.from_sets({"a": ["x", "y"]}).to_igraph()
        >>> g.vcount(), g.ecount(), g.vs["type"]
        (3, 2, [False, True, True])
        """
        import igraph as ig

        persons, items = self.pairs()
        edges = np.column_stack([persons, items + self.n_persons]).tolist()
        types = [False] * self.n_persons + [True] * self.n_items
        graph = ig.Graph.Bipartite(types, edges)
        graph.vs["label"] = [_py(x) for x in self.person_labels] + [
            _py(x) for x in self.item_labels
        ]
        if self._counts is not None:
            graph.es["count"] = self._counts.tolist()
        return graph

    # -- dunder --------------------------------------------------------------------------------

    def __setattr__(self, name: str, value: Any) -> None:
        raise AttributeError("PersonItemGraph is immutable; build a new graph instead")

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, PersonItemGraph):
            return NotImplemented
        same_counts = (self._counts is None and other._counts is None) or (
            self._counts is not None
            and other._counts is not None
            and np.array_equal(self._counts, other._counts)
        )
        return (
            same_counts
            and np.array_equal(self._indptr, other._indptr)
            and np.array_equal(self._indices, other._indices)
            and np.array_equal(self.person_labels, other.person_labels)
            and np.array_equal(self.item_labels, other.item_labels)
        )

    __hash__ = None  # type: ignore[assignment]

    def __repr__(self) -> str:
        extra = ", with counts" if self._counts is not None else ""
        return (
            f"PersonItemGraph(n_persons={self.n_persons:,}, n_items={self.n_items:,}, "
            f"n_pairs={self.n_pairs:,}{extra})"
        )

    def __getstate__(self) -> tuple[Any, ...]:
        return (self._indptr, self._indices, self.person_labels, self.item_labels, self._counts)

    def __setstate__(self, state: tuple[Any, ...]) -> None:
        names = ("_indptr", "_indices", "_person_labels", "_item_labels", "_counts")
        for name, value in zip(names, state, strict=True):
            object.__setattr__(self, name, None if value is None else _readonly(value))


def _py(value: Any) -> Any:
    """A numpy scalar as the equivalent Python object (for networkx/igraph node labels)."""
    return value.item() if isinstance(value, np.generic) else value


def _contains(sorted_labels: np.ndarray, label: Any) -> bool:
    try:
        pos = int(np.searchsorted(sorted_labels, label))
    except TypeError:
        return False
    return pos < sorted_labels.size and sorted_labels[pos] == label


def _index_of(sorted_labels: np.ndarray, label: Any, what: str) -> int:
    if not _contains(sorted_labels, label):
        raise InvalidParameterError(f"no {what} with label {label!r} in the graph")
    return int(np.searchsorted(sorted_labels, label))


def _check_csr(
    indptr: np.ndarray,
    indices: np.ndarray,
    persons: np.ndarray,
    items: np.ndarray,
    counts: np.ndarray | None,
) -> None:
    """Validate the CSR invariants the algorithms rely on (all vectorised)."""
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
        _check_sorted_unique(labels, what)
    if counts is not None and (counts.shape != indices.shape or np.any(counts <= 0)):
        raise DataError("counts must be positive and aligned with indices")


def _check_sorted_unique(labels: Labels, what: str) -> None:
    """Raise a DataError unless ``labels`` are strictly increasing."""
    if isinstance(labels, DeferredLabels):
        if not labels.strictly_increasing():
            raise DataError(f"{what} labels must be sorted and unique")
    elif labels.size > 1:
        try:
            ordered = bool(np.all(labels[1:] > labels[:-1]))
        except TypeError as exc:
            raise DataError(f"{what} labels are not mutually orderable: {exc}") from exc
        if not ordered:
            raise DataError(f"{what} labels must be sorted and unique")


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


_BLOCK = 1 << 20  # elements per block when scanning pair keys (bounds temporaries)
_RELEASED = np.empty(0, dtype=np.int32)  # what a used group of codes is replaced by


def _pair_keys(
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
    so the extra memory is the int32 output plus one block of temporaries.

    Examples
    --------
    >>> keys = np.array([3 * 2 + 1, 0, 3 * 2 + 1, 2 * 2 + 0])  # pairs (3, 1), (0, 0), (2, 0)
    >>> [a.tolist() for a in csr_from_keys(keys, n=4, m=2)]
    [[0, 1, 1, 2, 3], [0, 0, 1]]
    """
    keys.sort()
    written = 0
    previous = None
    for start in range(0, keys.size, _BLOCK):
        block = keys[start : start + _BLOCK]
        fresh = np.empty(block.size, dtype=bool)
        fresh[0] = previous is None or block[0] != previous
        np.not_equal(block[1:], block[:-1], out=fresh[1:])
        previous = int(block[-1])
        distinct = block[fresh]  # a copy, so writing it to the front cannot clobber the block
        keys[written : written + distinct.size] = distinct
        written += distinct.size
    distinct_keys = keys[:written]
    indices = np.empty(written, dtype=np.int32)
    for start in range(0, written, _BLOCK):
        indices[start : start + _BLOCK] = distinct_keys[start : start + _BLOCK] % m
    bounds = np.arange(n + 1, dtype=np.int64) * m
    indptr = np.searchsorted(distinct_keys, bounds).astype(np.int64, copy=False)
    return indptr, indices
