"""The linear-time greedy approximation of DC(D;ℓ) (Knop & Steinke, Algorithms 2 and 4).

In round r = 1, 2, … every person (in id order) that still holds an item outside the chosen set
S adds the *smallest-id* such item to S.  ``|S|`` after r rounds is the greedy value for
ℓ = r, so a single pass of ℓ_max rounds gives the whole curve: the state after r rounds does not
depend on ℓ_max (docs/algorithms.md §2).  Cost O(``|D|`` + n·ℓ_max): each person keeps a pointer
into its sorted item list that only moves forward, because S only grows.

The item order is the item id, i.e. the sorted item labels — a total order of the universe
fixed before looking at the data.  That is what the sensitivity-ℓ proof of Theorem 1.2 needs;
choosing items by frequency or rarity would make one person's pick depend on the others and
void it.  Do not add data-dependent tie-breaking here.

Examples
--------
>>> from dpcount import PersonItemGraph
>>> g = PersonItemGraph.from_sets({"a": {1, 2, 3}, "b": {1}, "c": {1}})
>>> greedy_curve(g, 3).tolist()  # "a" takes item 1 first, so "b" and "c" get nothing
[1, 2, 3]
"""

from __future__ import annotations

import numpy as np

from dpcount.common.jit import kernel
from dpcount.graph import PersonItemGraph
from matching._common import SMALL_GRAPH_PAIRS, Solver, check_ell, fill_curve, run_curve_kernel

__all__ = ["greedy_assignment", "greedy_curve", "greedy_value"]


@kernel("(ro(int64[::1]), ro(int32[::1]), int64, int64)", interpret_below=SMALL_GRAPH_PAIRS)
def _greedy_rounds(
    indptr: np.ndarray, indices: np.ndarray, n_items: int, ell_max: int
) -> tuple[np.ndarray, np.ndarray]:
    """Run up to ``ell_max`` rounds of Algorithm 4; stop early when nobody can add an item.

    Returns ``|S|`` after each round run, and per item the person that took it (−1: not in S).
    """
    n = indptr.size - 1
    taken_by = np.full(n_items, -1, dtype=np.int64)  # S = the items with taken_by ≥ 0
    pointer = indptr[:-1].copy()  # first item of each person that may still be outside S
    active = np.empty(n, dtype=np.int64)  # persons that may still add an item, in id order
    n_active = 0
    for p in range(n):
        if indptr[p + 1] > indptr[p]:
            active[n_active] = p
            n_active += 1
    sizes = np.zeros(ell_max, dtype=np.int64)
    size = 0
    rounds = 0
    while rounds < ell_max and n_active > 0:
        rounds += 1
        kept = 0
        for a in range(n_active):
            p = active[a]
            q = pointer[p]
            end = indptr[p + 1]
            while q < end and taken_by[indices[q]] != -1:
                q += 1
            if q < end:  # Algorithm 4 line 5: the first item of u_p outside S
                j = indices[q]
                taken_by[j] = p
                size += 1
                q += 1
            pointer[p] = q
            if q < end:
                active[kept] = p
                kept += 1
        n_active = kept
        sizes[rounds - 1] = size
        if size == n_items:
            break  # every item is in S; later rounds add nothing
    return sizes[: max(rounds, 1)], taken_by  # sizes[0] = 0 if nobody holds items


def _run(graph: PersonItemGraph, ell_max: int) -> tuple[np.ndarray, np.ndarray]:
    return run_curve_kernel(_greedy_rounds, graph, ell_max)


def greedy_curve(graph: PersonItemGraph, ell_max: int) -> np.ndarray:
    """The greedy values for ℓ = 1..ℓ_max in one pass (Knop & Steinke, Algorithm 2 lines 3–9).

    Parameters
    ----------
    graph
        The person–item graph.
    ell_max
        Largest contribution bound.

    Returns
    -------
    numpy.ndarray
        int64 array of length ``ell_max``; entry ℓ−1 is the greedy value for ℓ, which lies in
        [DC(D;ℓ)/2, DC(D;ℓ)] (a maximal matching, Theorem 1.2) and has sensitivity ℓ.

    Examples
    --------
    >>> from dpcount import PersonItemGraph
    >>> greedy_curve(PersonItemGraph.from_sets({"a": {1, 2}, "b": {2, 3}}), 3).tolist()
    [2, 3, 3]
    """
    ell_max = check_ell(ell_max, "ell_max")
    return fill_curve(_run(graph, ell_max)[0], ell_max)


def greedy_value(graph: PersonItemGraph, ell: int) -> int:
    """The greedy value for one ℓ (Knop & Steinke, Algorithm 4, SensitiveApproxDistinctCount).

    Examples
    --------
    >>> from dpcount import PersonItemGraph
    >>> greedy_value(PersonItemGraph.from_sets({"a": {1, 2}, "b": {1}}), 1)
    1
    """
    return int(_run(graph, check_ell(ell))[0][-1])


def greedy_assignment(graph: PersonItemGraph, ell: int) -> np.ndarray:
    """The greedy choice for ℓ as an item → person array (−1 for items no one took).

    Examples
    --------
    >>> from dpcount import PersonItemGraph
    >>> greedy_assignment(PersonItemGraph.from_sets({"a": {1, 2}, "b": {1, 3}}), 1).tolist()
    [0, -1, 1]
    """
    ell = check_ell(ell)
    return _run(graph, ell)[1]  # every take happened in a round ≤ ℓ


#: This method's entry points for :mod:`matching.dispatch`.
SOLVER = Solver(curve=greedy_curve, value=greedy_value, assignment=greedy_assignment)
