"""The sampling baseline: each person keeps ℓ of its items uniformly at random.

The approach "currently used in practice" that Knop & Steinke compare against (§4.2, counting
option 1; Figure 1): every person samples min(ℓ, degree) of its items without replacement and
the count is the number of distinct sampled items.

One pass gives the whole curve because the samples are *nested*: each person's items are put
in one random order and the sample for ℓ is the first ℓ of them.  An item is then counted for
every ℓ above the smallest rank any holder gives it.

The random order of a person comes from a stream keyed by that person alone: a 64-bit key is
drawn once from ``rng``, and the person's items are sorted by a keyed hash of (key, person
label, item label).  Adding or removing one person therefore leaves every other person's sample
unchanged, so the sampling count moves by at most ℓ on neighbouring data for every ℓ — the same
sensitivity as the exact and greedy counts.  The hash is XXH64 (as Spark's ``xxhash64``, so
``dpcount.spark`` draws the same samples): statistically uniform, not cryptographic, which
suffices for a baseline whose privacy rests on the sensitivity bound, not on secrecy of the key.

Examples
--------
>>> from dpcount import PersonItemGraph
>>> g = PersonItemGraph.from_sets({"a": {1, 2, 3}, "b": {1}, "c": {1}})
>>> curve = sampling_curve(g, 4, rng=7)
>>> bool(curve[0] in (1, 2)), curve[2:].tolist()
(True, [3, 3])
"""

from __future__ import annotations

import numpy as np

from dpcount.common.hashing import keyed_pair_ranks, label_keys
from dpcount.common.jit import SMALL_PAIRS, kernel
from dpcount.common.rng import RNGLike, draw_key
from dpcount.graph import PersonItemGraph
from matching._common import Solver, check_ell, effective_ell, fill_curve

__all__ = [
    "keyed_pair_ranks",
    "label_keys",
    "pair_ranks",
    "sampling_assignment",
    "sampling_curve",
    "sampling_value",
]


def pair_ranks(graph: PersonItemGraph, rng: RNGLike = None) -> np.ndarray:
    """The rank of each pair (CSR order) in its person's random item order, 0-based.

    Person p samples its pairs of rank < ℓ.  A person's ranks depend only on the key drawn
    from ``rng`` and on its own label and item labels.

    Examples
    --------
    >>> from dpcount import PersonItemGraph
    >>> g = PersonItemGraph.from_sets({"a": {1, 2, 3}, "b": {1}})
    >>> r = pair_ranks(g, rng=1)
    >>> sorted(r[:3].tolist()), r[3:].tolist()
    ([0, 1, 2], [0])
    """
    root = draw_key(rng)  # drawn first, so a bad rng is reported even for an empty graph
    return keyed_pair_ranks(
        graph.indptr, graph.indices, graph.person_labels, graph.item_labels, root
    )


@kernel("(ro(int32[:]), ro(int64[:]), int64, int64)", interpret_below=SMALL_PAIRS)
def _best_ranks(indices: np.ndarray, ranks: np.ndarray, n_items: int, cap: int) -> np.ndarray:
    """Per item, the smallest rank any holder gives it, capped at ``cap``."""
    best = np.full(n_items, cap, dtype=np.int64)
    for q in range(indices.size):
        if ranks[q] < best[indices[q]]:
            best[indices[q]] = ranks[q]
    return best


def sampling_curve(graph: PersonItemGraph, ell_max: int, rng: RNGLike = None) -> np.ndarray:
    """Distinct sampled items for ℓ = 1..ℓ_max, each person keeping ℓ random items (nested).

    Parameters
    ----------
    graph
        The person–item graph.
    ell_max
        Largest contribution bound.
    rng
        ``None`` (fresh OS entropy), a non-negative int seed, or a numpy Generator (one 64-bit
        draw is taken from it).

    Returns
    -------
    numpy.ndarray
        int64 array of length ``ell_max``, a lower bound on DC(D;ℓ) with sensitivity ℓ.

    Examples
    --------
    >>> from dpcount import PersonItemGraph
    >>> g = PersonItemGraph.from_sets({"a": {1, 2}, "b": {3}})
    >>> sampling_curve(g, 3, rng=0).tolist()
    [2, 3, 3]
    """
    ell_max = check_ell(ell_max, "ell_max")
    ell_run = effective_ell(graph, ell_max)  # every person keeps everything from max degree on
    best_ranks = _best_ranks.select(graph.n_pairs)
    best = best_ranks(graph.indices, pair_ranks(graph, rng), graph.n_items, ell_run)
    counts = np.bincount(best, minlength=ell_run + 1)
    return fill_curve(np.cumsum(counts[:ell_run]), ell_max)


def sampling_value(graph: PersonItemGraph, ell: int, rng: RNGLike = None) -> int:
    """The sampling count for one ℓ.

    Examples
    --------
    >>> from dpcount import PersonItemGraph
    >>> sampling_value(PersonItemGraph.from_sets({"a": {1, 2}, "b": {3}}), 2, rng=0)
    3
    """
    ell = effective_ell(graph, check_ell(ell))
    return int(sampling_curve(graph, ell, rng)[-1])


def sampling_assignment(graph: PersonItemGraph, ell: int, rng: RNGLike = None) -> np.ndarray:
    """Item → person for the sample with bound ℓ (the holder that ranks it first; −1 if unsampled).

    Examples
    --------
    >>> from dpcount import PersonItemGraph
    >>> sampling_assignment(PersonItemGraph.from_sets({"a": {1}, "b": {2}}), 1, rng=0).tolist()
    [0, 1]
    """
    ell = check_ell(ell)
    ranks = pair_ranks(graph, rng)
    persons, items = graph.pairs()
    owner = np.full(graph.n_items, -1, dtype=np.int64)
    sampled = ranks < ell
    # Write the sampled pairs in decreasing rank so the holder ranking an item first wins.
    order = np.flatnonzero(sampled)[np.argsort(-ranks[sampled], kind="stable")]
    owner[items[order]] = persons[order]
    return owner


#: This method's entry points for :mod:`matching.dispatch`.
SOLVER = Solver(curve=sampling_curve, value=sampling_value, assignment=sampling_assignment)
