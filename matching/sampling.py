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
sensitivity as the exact and greedy counts.  The hash is SplitMix64's finalizer (Steele, Lea &
Flood 2014): statistically uniform, not cryptographic, which suffices for a baseline whose
privacy rests on the sensitivity bound, not on secrecy of the key.

Examples
--------
>>> from dpcount import PersonItemGraph
>>> g = PersonItemGraph.from_sets({"a": {1, 2, 3}, "b": {1}, "c": {1}})
>>> curve = sampling_curve(g, 4, rng=7)
>>> bool(curve[0] in (1, 2)), curve[2:].tolist()
(True, [3, 3])
"""

from __future__ import annotations

import hashlib

import numpy as np

from dpcount._jit import SMALL_PAIRS, kernel
from dpcount._rng import RNGLike, draw_key
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

_GAMMA = np.uint64(0x9E3779B97F4A7C15)
_M1 = np.uint64(0xBF58476D1CE4E5B9)
_M2 = np.uint64(0x94D049BB133111EB)
# Distinct domain constants so the label 1 and the label "1" get unrelated keys.
_INT_DOMAIN = np.uint64(0x243F6A8885A308D3)
_STR_DOMAIN = np.uint64(0x13198A2E03707344)


def _mix(z: np.ndarray) -> np.ndarray:
    """SplitMix64's output function applied elementwise (uint64 arithmetic wraps mod 2⁶⁴)."""
    z = np.asarray(z, dtype=np.uint64) + _GAMMA
    z = (z ^ (z >> np.uint64(30))) * _M1
    z = (z ^ (z >> np.uint64(27))) * _M2
    return z ^ (z >> np.uint64(31))


def _str_keys(labels: np.ndarray) -> np.ndarray:
    """Hash of each string's code points; independent of the array's fixed width."""
    n = labels.size
    if n == 0:
        return np.zeros(0, dtype=np.uint64)
    width = labels.dtype.itemsize // 4
    codes = np.ascontiguousarray(labels).view(np.uint32).reshape(n, width).astype(np.uint64)
    lengths = np.char.str_len(labels)
    h = np.full(n, _STR_DOMAIN, dtype=np.uint64)
    for c in range(width):  # a loop over character positions, vectorised over labels
        h = np.where(c < lengths, _mix(h ^ codes[:, c]), h)
    return _mix(h ^ lengths.astype(np.uint64))


def label_keys(labels: np.ndarray) -> np.ndarray:
    """A stable 64-bit key per label that depends on the label only (not on its neighbours).

    Strings hash by code point, integers by value; other labels by BLAKE2b of their type name
    and ``repr``.

    Examples
    --------
    >>> import numpy as np
    >>> a = label_keys(np.array(["x", "yy"]))
    >>> b = label_keys(np.array(["a-much-longer-label", "x"]))
    >>> bool(a[0] == b[1]), bool(label_keys(np.array([1]))[0] == label_keys(np.array(["1"]))[0])
    (True, False)
    """
    labels = np.asarray(labels)
    if labels.dtype.kind == "O" and labels.size:
        if all(isinstance(x, str) for x in labels):
            labels = labels.astype(str)
        elif all(isinstance(x, int | np.integer) and -(2**63) <= x < 2**63 for x in labels):
            labels = labels.astype(np.int64)
    if labels.dtype.kind == "U":
        return _str_keys(labels)
    if labels.dtype.kind in "iub":
        return _mix(labels.astype(np.int64).view(np.uint64) ^ _INT_DOMAIN)
    digests = [
        hashlib.blake2b(f"{type(x).__name__}:{x!r}".encode(), digest_size=8).digest()
        for x in labels.tolist()
    ]
    return np.frombuffer(b"".join(digests), dtype=np.uint64).copy()


@kernel("(uint64,)")
def _mix64(z: np.uint64) -> np.uint64:
    """SplitMix64's output function on one value (the compiled twin of :func:`_mix`)."""
    z = z + np.uint64(0x9E3779B97F4A7C15)
    z = (z ^ (z >> np.uint64(30))) * np.uint64(0xBF58476D1CE4E5B9)
    z = (z ^ (z >> np.uint64(27))) * np.uint64(0x94D049BB133111EB)
    return z ^ (z >> np.uint64(31))


@kernel("(ro(int64[:]), ro(int32[:]), ro(uint64[:]), ro(uint64[:]))", interpret_below=SMALL_PAIRS)
def _ranks_kernel(
    indptr: np.ndarray, indices: np.ndarray, person_keys: np.ndarray, item_keys: np.ndarray
) -> np.ndarray:
    """Per pair, its rank among its person's items ordered by the keyed hash (ties: item id)."""
    ranks = np.empty(indices.size, dtype=np.int64)
    for p in range(indptr.size - 1):
        start, end = indptr[p], indptr[p + 1]
        keys = np.empty(end - start, dtype=np.uint64)
        for q in range(start, end):
            keys[q - start] = _mix64(person_keys[p] ^ item_keys[indices[q]])
        order = np.argsort(keys, kind="mergesort")
        for r in range(order.size):
            ranks[start + order[r]] = r
    return ranks


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


def keyed_pair_ranks(
    indptr: np.ndarray,
    indices: np.ndarray,
    person_labels: np.ndarray,
    item_labels: np.ndarray,
    key: np.uint64,
) -> np.ndarray:
    """Ranks of CSR pairs under the keyed hash ``mix(mix(key(person) ^ key) ^ key(item))``.

    The hash depends on labels only, so a distributed engine computing it per pair (as
    ``dpcount.spark`` does) gets the same ranks; ties (probability ~2⁻⁶⁴) go to the smaller id.

    Examples
    --------
    >>> import numpy as np
    >>> keyed_pair_ranks(np.array([0, 2]), np.array([0, 1]), np.array(["p"]),
    ...                  np.array(["a", "b"]), np.uint64(5)).tolist() in ([0, 1], [1, 0])
    True
    """
    if indices.size == 0:
        return np.zeros(0, dtype=np.int64)
    person_keys = _mix(label_keys(person_labels) ^ np.uint64(key))
    ranks = _ranks_kernel.select(indices.size)  # small inputs: interpreted, no compilation
    with np.errstate(over="ignore"):  # interpreted, the hash wraps mod 2⁶⁴ as compiled code does
        return ranks(
            np.asarray(indptr, dtype=np.int64),
            np.asarray(indices, dtype=np.int32),
            person_keys,
            label_keys(item_labels),
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
