"""The person–item graph: one immutable CSR representation that every algorithm reads.

Persons are one side of a bipartite graph, items the other, and an edge says that a person holds
an item.  Persons and items are numbered ``0..n-1`` and ``0..m-1`` **in the sorted order of their
labels** (the rules are in :mod:`dpcount.graph.labels`), and the arrays are assembled from codes
by :mod:`dpcount.graph.assembly`, whose contract the readers, the data sets and grouped data
rely on too: :func:`graph_from_codes`, :func:`graph_from_code_groups` and
:func:`graph_from_rows` wrap its output as a graph.

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

from collections.abc import Hashable, Iterable, Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import numpy as np
import numpy.typing as npt

from dpcount.errors import DataError, InvalidParameterError
from dpcount.graph import tables
from dpcount.graph.assembly import (
    CSR,
    MAX_ITEMS,
    as_counts,
    check_csr,
    csr_from_code_groups,
    csr_from_codes,
    csr_from_rows,
    readonly,
)
from dpcount.graph.deferred import DeferredLabels
from dpcount.graph.labels import (
    Labels,
    as_key_list,
    as_label_array,
    check_no_nulls,
    check_sorted_unique,
    concat_labels,
    contains_label,
    encode_labels,
    label_array,
    label_index,
    python_label,
)

if TYPE_CHECKING:
    import igraph
    import networkx
    import scipy.sparse

__all__ = [
    "GraphSummary",
    "PersonItemGraph",
    "graph_from_code_groups",
    "graph_from_codes",
    "graph_from_rows",
]


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
        persons = np.array(as_label_array(person_labels, "person labels"))
        items = np.array(as_label_array(item_labels, "item labels"))
        counts_a = None if counts is None else as_counts(counts, indices_a.size)
        check_csr(indptr_a, indices_a, persons, items, counts_a)
        for name, value in (
            ("_indptr", indptr_a),
            ("_indices", indices_a),
            ("_person_labels", persons),
            ("_item_labels", items),
            ("_counts", counts_a),
        ):
            object.__setattr__(self, name, None if value is None else readonly(value))

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
        p = label_array(persons, "person labels")
        i = label_array(items, "item labels")
        extra = label_array(list(persons_without_items), "person labels")
        for labels, what in ((p, "person labels"), (i, "item labels"), (extra, "person labels")):
            check_no_nulls(labels, what)  # after the kinds of every column, as the readers do
        if p.shape != i.shape:
            raise DataError(f"persons and items differ in length: {p.size} vs {i.size}")
        c = None if counts is None else as_counts(counts, p.size)
        return cls._from_label_arrays(concat_labels(p, extra, "person labels"), p.size, i, c)

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
        if not isinstance(sets, Mapping):
            raise InvalidParameterError(
                f"from_sets takes a mapping {{person: items}} (a dict), got a "
                f"{type(sets).__name__}; for lists of persons and items use from_pairs"
            )
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
                items.extend(as_key_list(held, f"the items of person {person!r}", DataError))
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
        return tables.readers().read_pairs(
            df, person=person, item=item, count=count, drop_nulls=drop_nulls
        )

    @classmethod
    def _from_label_arrays(
        cls,
        person_values: np.ndarray,
        n_paired: int,
        item_values: np.ndarray,
        counts: np.ndarray | None,
    ) -> PersonItemGraph:
        """Encode labels and build CSR; ``person_values[n_paired:]`` are persons without items."""
        person_labels, person_codes = encode_labels(person_values, "person labels")
        item_labels, item_codes = encode_labels(item_values, "item labels")
        return cls._adopt(
            csr_from_codes(person_codes[:n_paired], item_codes, person_labels, item_labels, counts)
        )

    @classmethod
    def _adopt(cls, csr: CSR) -> PersonItemGraph:
        """A graph of arrays assembled by :mod:`dpcount.graph.assembly`: no copies, labels
        checked only (the rest holds by the assembly's contract).

        ``indptr`` must be ``int64`` and ``indices`` ``int32`` already (asserted); the arrays
        are frozen in place, so callers must not keep writable references.  Labels may be
        :class:`~dpcount.graph.deferred.DeferredLabels`, converted on first access.
        """
        indptr, indices, person_labels, item_labels, counts = csr
        assert indptr.dtype == np.int64 and indices.dtype == np.int32
        assert counts is None or counts.dtype == np.int64
        if item_labels.size > MAX_ITEMS:
            raise DataError(f"{item_labels.size} items exceed the int32 item-id range")
        graph = cls.__new__(cls)
        for what, labels in (("person", person_labels), ("item", item_labels)):
            check_sorted_unique(labels, what)
        for name, value in (
            ("_indptr", indptr),
            ("_indices", indices),
            ("_person_labels", person_labels),
            ("_item_labels", item_labels),
            ("_counts", counts),
        ):
            if isinstance(value, np.ndarray):
                value = readonly(value)
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
            labels = readonly(labels.to_numpy())
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
        return label_index(self.person_labels, label, "person")

    def item_index(self, label: Hashable) -> int:
        """Id of the item with this label; ``InvalidParameterError`` if there is none."""
        return label_index(self.item_labels, label, "item")

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
        return type(self)._adopt(
            csr_from_codes(
                old_to_new[persons[keep_pairs]],
                items[keep_pairs],
                self.person_labels[~drop],
                self.item_labels,
                counts,
            )
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
        if contains_label(self.person_labels, label):
            raise InvalidParameterError(f"person {label!r} is already in the graph")
        new_items = as_label_array(items, "item labels")
        persons, item_ids = self.pairs()
        new_person = as_label_array([label], "person labels")
        all_persons = concat_labels(self.person_labels, new_person, "person labels")
        pair_persons = np.concatenate([persons, np.full(new_items.size, self.n_persons)])
        pair_items = concat_labels(self.item_labels[item_ids], new_items, "item labels")
        pair_counts = None
        if self._counts is not None or counts is not None:
            old = self._counts if self._counts is not None else np.ones(self.n_pairs, np.int64)
            if counts is None:
                new = np.ones(new_items.size, np.int64)
            else:
                new = as_counts(list(counts), new_items.size)
            pair_counts = np.concatenate([old, new])
        person_labels, person_codes = encode_labels(all_persons, "person labels")
        item_labels, item_codes = encode_labels(pair_items, "item labels")
        return type(self)._adopt(
            csr_from_codes(
                person_codes[pair_persons], item_codes, person_labels, item_labels, pair_counts
            )
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
        person_nodes = [("person", python_label(x)) for x in self.person_labels]
        item_nodes = [("item", python_label(x)) for x in self.item_labels]
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
        graph.vs["label"] = [python_label(x) for x in self.person_labels] + [
            python_label(x) for x in self.item_labels
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
            object.__setattr__(self, name, None if value is None else readonly(value))


# --------------------------------------------------------------------------------------------
# Builders over the assembly (for readers, data sets and grouped data)
# --------------------------------------------------------------------------------------------


def graph_from_codes(
    person_codes: np.ndarray,
    item_codes: np.ndarray,
    person_labels: Labels,
    item_labels: Labels,
    counts: np.ndarray | None = None,
    *,
    all_items_held: bool = False,
) -> PersonItemGraph:
    """The graph of pairs given as codes into sorted label arrays (duplicates merged).

    See :func:`dpcount.graph.assembly.csr_from_codes` for the contract.

    Examples
    --------
    >>> g = graph_from_codes(np.array([1, 0, 1]), np.array([0, 0, 0]),
    ...                      np.array(["ann", "bob"]), np.array(["x", "y"]))
    >>> g, g.item_labels.tolist()
    (PersonItemGraph(n_persons=2, n_items=1, n_pairs=2), ['x'])
    """
    return PersonItemGraph._adopt(
        csr_from_codes(
            person_codes,
            item_codes,
            person_labels,
            item_labels,
            counts,
            all_items_held=all_items_held,
        )
    )


def graph_from_code_groups(
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
    """:func:`graph_from_codes` for codes in groups, each with its own maps; **empties** the
    lists (see :func:`dpcount.graph.assembly.csr_from_code_groups`)."""
    return PersonItemGraph._adopt(
        csr_from_code_groups(
            person_codes,
            item_codes,
            person_labels,
            item_labels,
            counts,
            all_items_held=all_items_held,
            drop_unused_persons=drop_unused_persons,
            person_maps=person_maps,
            item_maps=item_maps,
        )
    )


def graph_from_rows(
    indptr: np.ndarray,
    indices: np.ndarray,
    person_labels: Labels,
    item_labels: Labels,
    *,
    all_items_held: bool,
    drop_empty_persons: bool = False,
) -> PersonItemGraph:
    """The graph of CSR rows whose items are distinct and ascending within each row, dropping
    unheld items (see :func:`dpcount.graph.assembly.csr_from_rows`)."""
    return PersonItemGraph._adopt(
        csr_from_rows(
            indptr,
            indices,
            person_labels,
            item_labels,
            all_items_held=all_items_held,
            drop_empty_persons=drop_empty_persons,
        )
    )
