"""DC_g(D;ℓ) curves of every group of a :class:`~dpcount.graph.GroupedGraph` in one pass.

Group ``g``'s rows form a CSR block of the grouped graph (its persons × the shared item ids).
The solvers need item ids ``0..m_g−1``, so the items of each group are renumbered in their label
order (a monotone map: rows stay sorted, and the greedy count keeps its data-independent item
order, docs/algorithms.md §2).  The exact and greedy curves then run the compiled kernels of
:mod:`matching.incremental` and :mod:`matching.greedy` group after group inside one compiled
loop, so a thousand small groups cost no per-group Python overhead.  The sampling baseline is
vectorised over all groups at once: each person ranks its items of a group by the keyed hash of
:func:`dpcount.common.hashing.keyed_pair_ranks`, and item (g, j) counts for every ℓ above the
smallest rank a holder in g gives it.

Examples
--------
>>> from dpcount.graph import GroupedGraph
>>> g = GroupedGraph.from_triples(["a", "a", "a", "b", "c", "a"], ["x"] * 5 + ["y"],
...                               [1, 2, 3, 1, 1, 9])
>>> grouped_curves(g, 4).tolist()
[[2, 3, 3, 3], [1, 1, 1, 1]]
"""

from __future__ import annotations

import numpy as np

from dpcount.common.hashing import keyed_pair_ranks
from dpcount.common.jit import SMALL_PAIRS, kernel
from dpcount.common.rng import RNGLike, draw_key
from dpcount.graph import GroupedGraph
from dpcount.validation import check_choice
from matching._common import check_ell
from matching.greedy import _greedy_rounds
from matching.incremental import _incremental_kernel
from matching.sampling import _best_ranks

__all__ = ["GROUPED_METHODS", "grouped_curves", "local_items"]

#: Methods :func:`grouped_curves` accepts; ``"auto"`` is ``"incremental"`` (exact).
GROUPED_METHODS = ("auto", "incremental", "greedy", "sampling")


@kernel("(ro(int64[::1]), ro(int64[::1]), ro(int32[::1]), int64)", interpret_below=SMALL_PAIRS)
def _local_items(
    group_indptr: np.ndarray, indptr: np.ndarray, indices: np.ndarray, n_items: int
) -> tuple[np.ndarray, np.ndarray]:
    """Per triple, its item's rank among its group's items in id order; items per group."""
    n_groups = group_indptr.size - 1
    local = np.empty(indices.size, dtype=np.int32)
    counts = np.zeros(n_groups, dtype=np.int64)
    slot = np.full(n_items, -1, dtype=np.int64)
    held = np.empty(n_items, dtype=np.int64)
    for g in range(n_groups):
        a, b = indptr[group_indptr[g]], indptr[group_indptr[g + 1]]
        m = 0
        for q in range(a, b):
            j = indices[q]
            if slot[j] == -1:
                slot[j] = 0
                held[m] = j
                m += 1
        mine = np.sort(held[:m])
        for r in range(m):
            slot[mine[r]] = r
        for q in range(a, b):
            local[q] = slot[indices[q]]
        for r in range(m):
            slot[mine[r]] = -1
        counts[g] = m
    return local, counts


# Calls the curve kernels of matching.greedy / matching.incremental: numba's cache checks only
# this file, so clear the cache after changing those (see dpcount.common.jit).
@kernel(
    "(ro(int64[::1]), ro(int64[::1]), ro(int32[::1]), ro(int64[::1]), int64, boolean)",
    interpret_below=SMALL_PAIRS,
)
def _curves(
    group_indptr: np.ndarray,
    indptr: np.ndarray,
    local: np.ndarray,
    counts: np.ndarray,
    ell_max: int,
    greedy: bool,
) -> np.ndarray:
    """The exact (or greedy) curve of every group, each on its own CSR block."""
    n_groups = group_indptr.size - 1
    out = np.zeros((n_groups, ell_max), dtype=np.int64)
    for g in range(n_groups):
        r0, r1 = group_indptr[g], group_indptr[g + 1]
        if r1 == r0:
            continue
        block = indptr[r0 : r1 + 1] - indptr[r0]
        items = local[indptr[r0] : indptr[r1]]
        max_degree = 0
        for r in range(r1 - r0):
            max_degree = max(max_degree, block[r + 1] - block[r])
        ell_run = max(1, min(ell_max, max_degree))  # flat beyond the max degree
        if greedy:
            sizes, _ = _greedy_rounds(block, items, counts[g], ell_run)
        else:
            sizes, _ = _incremental_kernel(block, items, counts[g], ell_run)
        k = sizes.size
        out[g, :k] = sizes
        out[g, k:] = sizes[k - 1]
    return out


def local_items(graph: GroupedGraph) -> tuple[np.ndarray, np.ndarray]:
    """Each triple's item id within its group (label order) and each group's item count.

    Examples
    --------
    >>> g = GroupedGraph.from_triples([1, 1, 2], ["a", "b", "b"], [7, 8, 9])
    >>> [x.tolist() for x in local_items(g)]
    [[0, 0, 1], [1, 2]]
    """
    run = _local_items.select(graph.indices.size)
    return run(graph.group_indptr, graph.indptr, graph.indices, graph.n_items)


def _sampling_curves(
    graph: GroupedGraph, local: np.ndarray, counts: np.ndarray, ell_max: int, rng: RNGLike
) -> np.ndarray:
    """Nested sampling counts of every group (matching.sampling's rule, per group)."""
    root = draw_key(rng)
    ranks = keyed_pair_ranks(
        graph.indptr,
        graph.indices,
        graph.person_labels[graph.row_persons],
        graph.item_labels,
        root,
    )
    offsets = np.zeros(graph.n_groups + 1, dtype=np.int64)
    np.cumsum(counts, out=offsets[1:])
    group_of_triple = np.repeat(graph.row_groups(), np.diff(graph.indptr))
    # (group, item) as one id; fewer ids than triples, so int32 like any item id.
    cells = (offsets[group_of_triple] + local).astype(np.int32)
    best = _best_ranks.select(cells.size)(cells, ranks, int(offsets[-1]), ell_max)
    group_of_cell = np.repeat(np.arange(graph.n_groups, dtype=np.int64), counts)
    table = np.bincount(
        group_of_cell * (ell_max + 1) + best, minlength=graph.n_groups * (ell_max + 1)
    ).reshape(graph.n_groups, ell_max + 1)
    return np.cumsum(table[:, :ell_max], axis=1)


def grouped_curves(
    graph: GroupedGraph, ell_max: int, method: str = "auto", *, rng: RNGLike = None
) -> np.ndarray:
    """DC_g(D;ℓ) for every group g and ℓ = 1..ℓ_max (or its greedy / sampling version).

    Parameters
    ----------
    graph
        The grouped graph.
    ell_max
        Largest contribution bound, ≥ 1.
    method
        ``"auto"``/``"incremental"`` (exact, Knop & Steinke Eq. 2 per group), ``"greedy"``
        (Algorithm 2/4 per group) or ``"sampling"`` (each person keeps ℓ random items of each
        of its groups).
    rng
        Only for ``"sampling"``: the 64-bit hash key is drawn from it.

    Returns
    -------
    numpy.ndarray
        int64 array of shape ``(n_groups, ell_max)``; row g equals
        ``matching.dc_curve(graph.group(label_g), ell_max, method, rng=rng)`` (for
        ``"sampling"`` with the same int seed: the ranks depend on the key and labels only).

    Examples
    --------
    >>> from dpcount.graph import GroupedGraph
    >>> g = GroupedGraph.from_triples([1, 1, 2], ["a", "a", "a"], [5, 6, 5])
    >>> grouped_curves(g, 2).tolist(), grouped_curves(g, 2, "greedy").tolist()
    ([[2, 2]], [[1, 2]])
    """
    ell_max = check_ell(ell_max, "ell_max")
    name = check_choice(method, "method", GROUPED_METHODS)
    local, counts = local_items(graph)
    if name == "sampling":
        return _sampling_curves(graph, local, counts, ell_max, rng)
    run = _curves.select(local.size)
    return run(graph.group_indptr, graph.indptr, local, counts, ell_max, name == "greedy")
