"""Contribution bounding and the secret user order shared by the set-union mechanisms.

:class:`CappedSets` is the input of every weighting: each person's items after sampling at most
Δ0 of them (Gopi et al. 2020, Algorithm 2), as CSR arrays over the item ids of the graph.  The
weightings are pure functions of a ``CappedSets`` (and, for the sequential policies, an explicit
user order), so tests can fix the sampling and the order and audit neighbouring datasets.

User order
----------
Gopi's Algorithm 2 sorts users by a secret random hash of their id.  We draw a uniformly random
permutation from the mechanism's own child stream instead.  For the privacy proof (Gopi Thm 1.1)
what matters is the joint law of (order of the others, position of the added person): under a
random hash without collisions, and under a uniform permutation, the order restricted to the
other users is uniform and the added person's position is uniform and independent of it, so the
two choices give the same output distribution on every dataset.  The permutation needs no label
encoding (labels may be any orderable type) and costs O(n).  Like the hash key, it is secret:
it is never part of the result.  The paper's keyed hash is available too
(:func:`keyed_hash_order`, ``user_order="keyed_hash"``): it is what a distributed job needs,
since each person's position key is computed from their own label alone.

Examples
--------
>>> sets = CappedSets.from_lists([[0, 1], [1]], n_items=3)
>>> sets.degrees().tolist(), sets.holders().tolist()
([2, 1], [1, 2, 0])
"""

from __future__ import annotations

import hashlib
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from dpcount.common.hashing import keyed_pair_ranks
from dpcount.common.jit import SMALL_PAIRS, kernel
from dpcount.common.rng import draw_key
from dpcount.graph import PersonItemGraph
from dpcount.validation import check_choice

__all__ = [
    "SAMPLINGS",
    "CappedSets",
    "cap_contributions",
    "cap_contributions_keyed",
    "random_order",
    "remove_items",
    "sample_contributions",
]


@dataclass(frozen=True)
class CappedSets:
    """Each person's (sampled) items in CSR form: person ``p`` holds
    ``indices[indptr[p]:indptr[p+1]]``, item ids in ``0..n_items-1``."""

    indptr: np.ndarray  # int64, n_persons + 1
    indices: np.ndarray  # int32
    n_items: int

    @property
    def n_persons(self) -> int:
        return int(self.indptr.size - 1)

    def degrees(self) -> np.ndarray:
        """Number of items of each person (``int64``)."""
        return np.diff(self.indptr)

    def holders(self) -> np.ndarray:
        """Number of persons holding each item; items with a holder are the candidates."""
        return np.bincount(self.indices, minlength=self.n_items).astype(np.int64)

    def person_of_pair(self) -> np.ndarray:
        """The person of each entry of :attr:`indices`."""
        return np.repeat(np.arange(self.n_persons, dtype=np.int64), self.degrees())

    @classmethod
    def from_graph(cls, graph: PersonItemGraph) -> CappedSets:
        """All items of every person (no sampling)."""
        return cls(
            np.asarray(graph.indptr, np.int64), np.asarray(graph.indices, np.int32), graph.n_items
        )

    @classmethod
    def from_lists(cls, sets: Sequence[Sequence[int]], n_items: int) -> CappedSets:
        """From explicit item-id lists (duplicates are merged), e.g. for audits.

        Examples
        --------
        >>> CappedSets.from_lists([[2, 0, 2], []], n_items=3).indices.tolist()
        [0, 2]
        """
        rows = [np.unique(np.asarray(s, dtype=np.int64)) for s in sets]
        indptr = np.zeros(len(rows) + 1, dtype=np.int64)
        np.cumsum([r.size for r in rows], out=indptr[1:])
        indices = np.concatenate(rows).astype(np.int32) if rows else np.zeros(0, np.int32)
        if indices.size and (indices.min() < 0 or indices.max() >= n_items):
            raise ValueError(f"item ids must lie in [0, {n_items})")
        return cls(indptr, indices, int(n_items))


def cap_contributions(sets: CappedSets, max_items: int, rng: np.random.Generator) -> CappedSets:
    """Keep a uniformly random subset of ``max_items`` items of every person who has more.

    Gopi et al. (2020), Algorithm 2 ("randomly choose Δ0 items from W_i").  Each person's
    subset depends only on their own items and fresh randomness, which the privacy proofs
    need.  A partial Fisher–Yates shuffle per heavy person, driven by exact uniform integers
    from ``rng``, picks the subset in O(degree) per heavy person; kept items stay in the order
    of ``sets`` (ascending ids, as in every graph).

    Examples
    --------
    >>> sets = CappedSets.from_lists([[0, 1, 2, 3], [1]], n_items=4)
    >>> capped = cap_contributions(sets, 2, np.random.default_rng(0))
    >>> capped.degrees().tolist()
    [2, 1]
    """
    degrees = sets.degrees()
    heavy = degrees > max_items
    if not heavy.any():
        return sets
    # Swap partners of the partial shuffle: position i swaps with i + U{0, …, d − i − 1}.
    bounds = degrees[heavy][:, None] - np.arange(max_items)[None, :]
    offsets = rng.integers(0, bounds).reshape(-1)
    indptr = np.zeros_like(sets.indptr)
    np.cumsum(np.minimum(degrees, max_items), out=indptr[1:])
    shuffles = _partial_shuffles.select(sets.indices.size)  # small inputs: interpreted
    largest = int(degrees.max())
    positions, chosen = np.empty(largest, dtype=np.int64), np.zeros(largest, dtype=bool)
    kept = np.empty(int(indptr[-1]), dtype=np.int32)
    shuffles(sets.indptr, sets.indices, indptr, offsets, max_items, positions, chosen, kept)
    return CappedSets(indptr, kept, sets.n_items)


def cap_contributions_keyed(
    sets: CappedSets, person_labels: np.ndarray, item_labels: np.ndarray, max_items: int, key: int
) -> CappedSets:
    """Keep each person's ``max_items`` items of smallest keyed hash of (person, item) labels.

    The distributed form of Gopi et al. (2020), Algorithm 2's Δ0 sampling: for a secret
    uniformly random 64-bit ``key`` each person's kept subset is a function of their own
    labels alone, so neighbouring datasets differ only in the added person's subset, as the
    proofs need.  The hash is :func:`dpcount.common.hashing.keyed_pair_ranks`, which
    the Spark engine evaluates per pair on executors with the same result.

    Examples
    --------
    >>> sets = CappedSets.from_lists([[0, 1, 2, 3], [1]], n_items=4)
    >>> labels = np.array(["a", "b", "c", "d"])
    >>> capped = cap_contributions_keyed(sets, np.array(["p", "q"]), labels, 2, key=9)
    >>> capped.degrees().tolist()
    [2, 1]
    """
    ranks = keyed_pair_ranks(sets.indptr, sets.indices, person_labels, item_labels, np.uint64(key))
    keep = ranks < max_items
    indptr = np.zeros_like(sets.indptr)
    np.cumsum(np.bincount(sets.person_of_pair()[keep], minlength=sets.n_persons), out=indptr[1:])
    return CappedSets(indptr, sets.indices[keep], sets.n_items)


#: How a person with more than Δ0 items keeps Δ0 of them (the ``sampling`` option).
SAMPLINGS = ("uniform", "keyed")


def sample_contributions(
    graph: PersonItemGraph,
    sets: CappedSets,
    max_items: int,
    rng: np.random.Generator,
    sampling: str,
) -> CappedSets:
    """Δ0 sampling of ``sets`` (persons and items of ``graph``) as ``sampling`` names it.

    ``"uniform"``: :func:`cap_contributions`, a uniformly random subset (Gopi Alg. 2);
    ``"keyed"``: :func:`cap_contributions_keyed`, the Δ0 items of smallest keyed hash of the
    (person, item) labels, with a 64-bit key drawn from ``rng`` — the key the Spark engine
    draws from the same stream, so the same seed keeps the same subsets on both engines.  Each
    person's subset depends on their own items and the secret randomness only, so the privacy
    guarantee is the same either way.

    Examples
    --------
    >>> g = PersonItemGraph.from_sets({"p": {"a", "b", "c"}, "q": {"b"}})
    >>> sets = CappedSets.from_graph(g)
    >>> capped = sample_contributions(g, sets, 2, np.random.default_rng(0), "keyed")
    >>> capped.degrees().tolist()
    [2, 1]
    """
    if check_choice(sampling, "sampling", SAMPLINGS) == "keyed":
        key = int(draw_key(rng))
        return cap_contributions_keyed(sets, graph.person_labels, graph.item_labels, max_items, key)
    return cap_contributions(sets, max_items, rng)


@kernel(
    "(ro(int64[:]), ro(int32[:]), ro(int64[:]), ro(int64[:]), int64, int64[::1], boolean[::1],"
    " int32[::1])",
    interpret_below=SMALL_PAIRS,
)
def _partial_shuffles(
    indptr: np.ndarray,
    indices: np.ndarray,
    out_indptr: np.ndarray,
    offsets: np.ndarray,
    max_items: int,
    positions: np.ndarray,
    chosen: np.ndarray,
    out: np.ndarray,
) -> None:  # pragma: no cover - compiled
    """Each person's kept items into ``out``, in their order in ``indices``.

    A heavy person's partial shuffle permutes positions (``positions``, as long as the largest
    degree) and marks the first ``max_items`` in ``chosen`` (all False between persons); the
    marked items are then copied in order, so no sort is needed.  Plain loops, no slicing
    assignment or ``np.sort``: numba would compile their error formatting and a sort for
    seconds on a first run.
    """
    used = 0
    for p in range(indptr.size - 1):
        start, stop, to = indptr[p], indptr[p + 1], out_indptr[p]
        if stop - start <= max_items:
            for q in range(start, stop):
                out[to + q - start] = indices[q]
            continue
        for q in range(stop - start):
            positions[q] = q
        for i in range(max_items):
            j = i + offsets[used + i]
            positions[i], positions[j] = positions[j], positions[i]
            chosen[positions[i]] = True
        used += max_items
        for q in range(stop - start):
            if chosen[q]:
                out[to] = indices[start + q]
                to += 1
                chosen[q] = False


def remove_items(sets: CappedSets, removed: np.ndarray) -> CappedSets:
    """Every person's items minus the item ids in ``removed`` (DP-SIPS between rounds).

    Examples
    --------
    >>> sets = CappedSets.from_lists([[0, 1], [1, 2]], n_items=3)
    >>> remove_items(sets, np.array([1])).indices.tolist()
    [0, 2]
    """
    drop = np.zeros(sets.n_items, dtype=bool)
    drop[removed] = True
    keep = ~drop[sets.indices]
    indptr = np.zeros_like(sets.indptr)
    np.cumsum(np.bincount(sets.person_of_pair()[keep], minlength=sets.n_persons), out=indptr[1:])
    return CappedSets(indptr, sets.indices[keep], sets.n_items)


def keyed_hash_order(person_labels: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    """Gopi's Algorithm 2 order: persons sorted by a secret keyed hash of their label.

    The hash is keyed BLAKE2b (a pseudorandom function) with a fresh 256-bit key from ``rng``, of
    the label's type name and ``repr``.  Each person's position key depends only on their own
    label and the key, so a distributed job can compute it per person, and adding or removing
    a person never reorders the others.

    Examples
    --------
    >>> labels = np.array(["ann", "bob", "cy"])
    >>> order = keyed_hash_order(labels, np.random.default_rng(0))
    >>> sorted(order.tolist())
    [0, 1, 2]
    >>> bigger = keyed_hash_order(np.array(["ann", "bob", "cy", "dee"]), np.random.default_rng(0))
    >>> [int(i) for i in bigger if i != 3] == order.tolist()
    True
    """
    key = rng.bytes(32)
    digests = b"".join(
        hashlib.blake2b(f"{type(x).__name__}:{x!r}".encode(), key=key, digest_size=8).digest()
        for x in np.asarray(person_labels).tolist()
    )
    hashes = np.frombuffer(digests, dtype=np.uint64)
    return np.argsort(hashes, kind="stable").astype(np.int64)


def random_order(n_persons: int, rng: np.random.Generator) -> np.ndarray:
    """The secret processing order of the sequential policies: a uniform permutation.

    See the module docstring for why this is equivalent to Gopi's keyed hash.

    Examples
    --------
    >>> sorted(random_order(4, np.random.default_rng(1)).tolist())
    [0, 1, 2, 3]
    """
    return rng.permutation(n_persons).astype(np.int64)
