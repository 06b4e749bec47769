"""Inverse values for the shifted inverse mechanism: the fewest distinct items left after removing
``j`` persons, exactly (brute force) or by its LP relaxation (parametric minimum cut or HiGHS).

For a graph D with ``DC(D)`` distinct items, the *inverse* at distance j is

* exact: ``f̌_j = DC(D) − max_{|S| ≤ j} cov(S)``, where ``cov(S)`` counts the items **all** of whose
  holders are in S (removing S removes exactly those items).  NP-hard in general (it contains
  densest subgraph), so only for small graphs;
* LP (Fang, Dong & Yi 2022, the polynomial "approximate" variant; docs/algorithms.md §5):
  ``f̌_j = DC(D) − LP_j`` with ``LP_j = max Σ_v y_v`` s.t. ``y_v ≤ x_u`` for every pair (u, v),
  ``Σ_u x_u ≤ j``, ``0 ≤ x, y ≤ 1``.

Direction.  LP_j relaxes the integer programme whose optimum is ``max_{|S| ≤ j} cov(S)``, so
``LP_j ≥`` that maximum and the **LP inverse is ≤ the exact inverse** (it removes more, hence it
is a lower bound on what is left).  Both satisfy the property the privacy proof needs
(docs/algorithms.md §5): for D' = D minus one person p holding ``a`` items that nobody else holds,
``f̌(D, j+1) ≤ f̌(D', j) ≤ f̌(D, j)``.  For the LP: extend an optimum of D' by ``x_p = 1`` and
``y = 1`` on p's private items (cost j + 1, value LP_j(D') + a); restrict an optimum of D to D'
(loses at most the a private items).

Parametric minimum cut.  ``max_S [cov(S) − λ|S|]`` is a maximum-closure ("project selection")
problem: source → item (capacity 1), item → each holder (∞), person → sink (λ) (Picard 1976).
Its constraint matrix is totally unimodular, so adding the budget ``Σ x ≤ j`` gives
``LP_j = min_λ [g(λ) + λ j]`` (Lagrangian duality): ``LP_j`` is the upper concave envelope of the
points ``(|S|, cov(S))`` evaluated at j.  Its vertices are found by the Eisner–Severance
recursion (one min cut per segment), and the search for a segment's new vertex can be restricted
to persons between the segment's two end sets because ``cov`` is supermodular (Topkis:
maximisers are nested in λ).  All arithmetic is integer, so the values are exact rationals.

Examples
--------
>>> from dpcount import PersonItemGraph
>>> g = PersonItemGraph.from_sets({"a": {1, 2}, "b": {2, 3}, "c": {4}})
>>> exact_inverse(g, 3).tolist()
[4, 3, 1, 0]
>>> lp_inverse(g, 3).tolist()
[4.0, 2.5, 1.0, 0.0]
>>> [str(v) for v in lp_removed(g, 2)]
['0', '3/2', '3']
"""

from __future__ import annotations

import itertools
import math
from fractions import Fraction

import numpy as np
import scipy.sparse
from scipy.sparse.csgraph import breadth_first_order, maximum_flow

from dpcount.errors import InvalidParameterError
from dpcount.graph import PersonItemGraph
from dpcount.validation import MAX_ITEMS, check_choice, check_nonnegative_int

__all__ = [
    "MAX_EXACT_PERSONS",
    "exact_inverse",
    "exact_removed",
    "lp_hull",
    "lp_inverse",
    "lp_removed",
    "lp_removed_highs",
]

# 2**20 subsets × items stays well under a second; beyond that brute force is hopeless anyway.
MAX_EXACT_PERSONS = 20


def _item_holders(graph: PersonItemGraph) -> tuple[np.ndarray, np.ndarray]:
    """CSC view: ``holders[ptr[v]:ptr[v+1]]`` are the persons holding item v."""
    csc = graph.biadjacency().tocsc()
    return csc.indptr.astype(np.int64), csc.indices.astype(np.int64)


def _covered(ptr: np.ndarray, holders: np.ndarray, chosen: np.ndarray) -> np.ndarray:
    """Boolean mask of the items all of whose holders are ``chosen`` (a person mask)."""
    if ptr.size <= 1:
        return np.zeros(0, dtype=bool)
    outside = np.add.reduceat((~chosen[holders]).astype(np.int64), ptr[:-1])
    return outside == 0


# --------------------------------------------------------------------------------------------
# Exact inverse (brute force)
# --------------------------------------------------------------------------------------------


def exact_removed(graph: PersonItemGraph, j_max: int) -> np.ndarray:
    """``max_{|S| ≤ j} cov(S)`` for j = 0..j_max by enumerating person subsets.

    Parameters
    ----------
    graph
        A graph with at most :data:`MAX_EXACT_PERSONS` persons holding items.
    j_max
        The largest number of removed persons.

    Returns
    -------
    numpy.ndarray
        ``int64`` array of length ``j_max + 1``.

    Raises
    ------
    InvalidParameterError
        When more than :data:`MAX_EXACT_PERSONS` persons hold items.

    Examples
    --------
    >>> from dpcount import PersonItemGraph
    >>> exact_removed(PersonItemGraph.from_sets({"a": {1}, "b": {1, 2}}), 2).tolist()
    [0, 1, 2]
    """
    j_max = check_nonnegative_int(j_max, "j_max")
    active = np.flatnonzero(graph.degrees() > 0)
    if active.size > MAX_EXACT_PERSONS:
        raise InvalidParameterError(
            f"the exact inverse enumerates all person subsets and is limited to "
            f"MAX_EXACT_PERSONS = {MAX_EXACT_PERSONS} persons holding items; this graph has "
            f"{active.size}.  Use inverse='lp' for larger graphs."
        )
    n = active.size
    position = np.full(graph.n_persons, -1, dtype=np.int64)
    position[active] = np.arange(n)
    ptr, holders = _item_holders(graph)
    # One bit mask of holders per item (persons renumbered among those holding items).
    bits = np.left_shift(np.int64(1), position[holders])
    item_masks = np.bitwise_or.reduceat(bits, ptr[:-1]) if graph.n_items else bits[:0]
    subsets = np.arange(2**n, dtype=np.int64)
    cover = np.zeros(subsets.size, dtype=np.int64)
    for mask in item_masks:
        cover += (subsets & mask) == mask
    sizes = np.zeros(subsets.size, dtype=np.int64)
    for b in range(n):
        sizes += (subsets >> b) & 1
    best = np.zeros(n + 1, dtype=np.int64)
    np.maximum.at(best, sizes, cover)
    best = np.maximum.accumulate(best)  # at most j persons, not exactly j
    out = np.full(j_max + 1, best[-1], dtype=np.int64)
    out[: min(n, j_max) + 1] = best[: min(n, j_max) + 1]
    return out


def exact_inverse(graph: PersonItemGraph, j_max: int) -> np.ndarray:
    """The exact inverse ``f̌_j = DC(D) − max_{|S| ≤ j} cov(S)`` for j = 0..j_max (brute force).

    See :func:`exact_removed` for the size limit.

    Examples
    --------
    >>> from dpcount import PersonItemGraph
    >>> exact_inverse(PersonItemGraph.from_sets({"a": {1}, "b": {1, 2}}), 3).tolist()
    [2, 1, 0, 0]
    """
    return graph.n_items - exact_removed(graph, j_max)


# --------------------------------------------------------------------------------------------
# LP inverse by parametric minimum cut
# --------------------------------------------------------------------------------------------


def _max_closure(
    ptr: np.ndarray, holders: np.ndarray, n_persons: int, profit: int, cost: int
) -> np.ndarray:
    """Persons of the minimal maximiser of ``profit·cov(T) − cost·|T|`` (a person mask).

    Items are given in CSC form over local person ids ``0..n_persons-1``.  Network (Picard 1976):
    node 0 source, ``1..m`` items, ``m+1..m+n`` persons, last node sink; source → item
    ``profit``, item → holder ``profit + 1`` (never worth cutting, since cutting the item's own
    source edge is cheaper, so it acts as ∞ while staying int32), person → sink ``cost``.  The
    source side of a minimum cut (vertices reachable in the residual network) is the minimal
    maximiser.
    """
    m = ptr.size - 1
    sink = m + n_persons + 1
    if profit + 1 > MAX_ITEMS or cost > MAX_ITEMS:
        raise OverflowError("min-cut capacities exceed int32")  # pragma: no cover (n, m < 2³¹)
    row_counts = np.concatenate([[m], np.diff(ptr), np.ones(n_persons, np.int64), [0]])
    indptr = np.concatenate([[0], np.cumsum(row_counts)])
    indices = np.concatenate(
        [np.arange(1, m + 1), m + 1 + holders, np.full(n_persons, sink)]
    ).astype(np.int32)
    data = np.concatenate(
        [
            np.full(m, profit, dtype=np.int32),
            np.full(holders.size, profit + 1, dtype=np.int32),
            np.full(n_persons, cost, dtype=np.int32),
        ]
    )
    capacity = scipy.sparse.csr_array((data, indices, indptr), shape=(sink + 1, sink + 1))
    flow = maximum_flow(capacity, 0, sink, method="dinic").flow
    residual = (capacity - flow).tocsr()
    residual.data = (residual.data > 0).astype(np.int8)
    residual.eliminate_zeros()
    reached = breadth_first_order(residual, 0, directed=True, return_predecessors=False)
    chosen = np.zeros(n_persons, dtype=bool)
    persons = reached[(reached > m) & (reached < sink)] - (m + 1)
    chosen[persons] = True
    return chosen


def _subproblem(
    ptr: np.ndarray, holders: np.ndarray, inner: np.ndarray, outer: np.ndarray
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Items covered by ``outer`` but not by ``inner``, with their holders outside ``inner``.

    Returns the CSC arrays of the subproblem over local person ids and the global ids of its
    persons (``outer`` minus ``inner``).  Persons in ``inner`` are already paid for, so their
    edges are dropped; items outside ``cov(outer)`` have a holder outside ``outer`` and cannot
    be covered.
    """
    items = np.flatnonzero(_covered(ptr, holders, outer) & ~_covered(ptr, holders, inner))
    persons = np.flatnonzero(outer & ~inner)
    local = np.full(inner.size, -1, dtype=np.int64)
    local[persons] = np.arange(persons.size)
    starts = ptr[items]
    lengths = ptr[items + 1] - starts
    offsets = np.concatenate([[0], np.cumsum(lengths)]).astype(np.int64)
    flat = np.repeat(starts - offsets[:-1], lengths) + np.arange(offsets[-1])
    sub_holders = local[holders[flat]]
    keep = sub_holders >= 0
    kept = np.add.reduceat(keep.astype(np.int64), offsets[:-1]) if items.size else offsets[:0]
    sub_ptr = np.concatenate([[0], np.cumsum(kept)])
    return sub_ptr.astype(np.int64), sub_holders[keep], persons


def lp_hull(graph: PersonItemGraph, k_max: int | None = None) -> list[tuple[int, int]]:
    """Vertices ``(|S|, cov(S))`` of the upper concave envelope that defines ``LP_j``.

    Parameters
    ----------
    graph
        The person–item graph.
    k_max
        Only the envelope on ``[0, k_max]`` is needed: segments starting at or beyond ``k_max``
        are not refined.  ``None`` computes the whole envelope.

    Returns
    -------
    list of (int, int)
        Vertices by increasing ``|S|``, from ``(0, 0)`` to ``(persons holding items, DC(D))``.

    Notes
    -----
    Eisner–Severance recursion: for a segment A–B of slope λ = p/q, one minimum cut finds the
    maximiser of ``q·cov(S) − p·|S|`` among ``S_A ⊆ S ⊆ S_B``; if it lies strictly above the
    segment it is a new vertex, otherwise A–B is an edge of the envelope.  About two cuts per
    vertex; on the TPC-H graphs the envelope on ``[0, 2τ]`` has 2 to 23 vertices.

    Examples
    --------
    >>> from dpcount import PersonItemGraph
    >>> lp_hull(PersonItemGraph.from_sets({"a": {1, 2}, "b": {2, 3}, "c": {4}}))
    [(0, 0), (2, 3), (3, 4)]
    """
    ptr, holders = _item_holders(graph)
    active = graph.degrees() > 0
    empty = np.zeros(graph.n_persons, dtype=bool)
    start = (0, 0, empty)
    end = (int(active.sum()), graph.n_items, active)
    if end[0] == 0:
        return [(0, 0)]
    limit = end[0] if k_max is None else int(k_max)
    vertices = {0: start, end[0]: end}
    stack = [(start, end)]
    while stack:
        a, b = stack.pop()
        if a[0] >= limit:
            continue
        dk, dh = b[0] - a[0], b[1] - a[1]
        g = math.gcd(dk, dh) or 1
        profit, cost = dk // g, dh // g  # λ = cost / profit, scaled to integers
        sub_ptr, sub_holders, persons = _subproblem(ptr, holders, a[2], b[2])
        chosen_local = _max_closure(sub_ptr, sub_holders, persons.size, profit, cost)
        gain = int(_covered(sub_ptr, sub_holders, chosen_local).sum())
        size = int(chosen_local.sum())
        if profit * gain - cost * size <= 0:
            continue  # A–B is an edge of the envelope
        chosen = a[2].copy()
        chosen[persons[chosen_local]] = True
        c = (a[0] + size, a[1] + gain, chosen)
        vertices[c[0]] = c
        stack.extend([(a, c), (c, b)])
    return [(k, vertices[k][1]) for k in sorted(vertices)]


def _envelope_at(hull: list[tuple[int, int]], j: int) -> Fraction:
    """The concave envelope through ``hull`` at j (flat after the last vertex)."""
    for (k1, h1), (k2, h2) in itertools.pairwise(hull):
        if j <= k2:
            return Fraction(h1) + Fraction((h2 - h1) * (j - k1), k2 - k1)
    return Fraction(hull[-1][1])


def lp_removed(graph: PersonItemGraph, j_max: int) -> list[Fraction]:
    """``LP_j`` for j = 0..j_max as exact fractions, by parametric minimum cut.

    Examples
    --------
    >>> from dpcount import PersonItemGraph
    >>> lp_removed(PersonItemGraph.from_sets({"a": {1}, "b": {1}}), 2)
    [Fraction(0, 1), Fraction(1, 2), Fraction(1, 1)]
    """
    j_max = check_nonnegative_int(j_max, "j_max")
    hull = lp_hull(graph, k_max=j_max)
    return [_envelope_at(hull, j) for j in range(j_max + 1)]


def lp_removed_highs(graph: PersonItemGraph, j: int) -> float:
    """``LP_j`` solved directly with SciPy's HiGHS (a cross-check of :func:`lp_removed`).

    Floating point with solver tolerances (~1e-9): use it to test, not inside the mechanism,
    whose privacy proof needs the inequalities between inverse values to hold exactly.

    Examples
    --------
    >>> from dpcount import PersonItemGraph
    >>> round(lp_removed_highs(PersonItemGraph.from_sets({"a": {1}, "b": {1}}), 1), 6)
    0.5
    """
    from scipy.optimize import linprog

    j = check_nonnegative_int(j, "j_max")
    n, m = graph.n_persons, graph.n_items
    if m == 0:
        return 0.0
    persons, items = graph.pairs()
    rows = np.arange(persons.size)
    # y_v − x_u ≤ 0 for every pair, then Σ_u x_u ≤ j.  Variables: x (n) then y (m).
    a_ub = scipy.sparse.csr_array(
        (
            np.concatenate([np.ones(rows.size), -np.ones(rows.size), np.ones(n)]),
            (
                np.concatenate([rows, rows, np.full(n, rows.size)]),
                np.concatenate([n + items, persons, np.arange(n)]),
            ),
        ),
        shape=(rows.size + 1, n + m),
    )
    b_ub = np.concatenate([np.zeros(rows.size), [j]])
    c = np.concatenate([np.zeros(n), -np.ones(m)])
    res = linprog(c, A_ub=a_ub, b_ub=b_ub, bounds=(0, 1), method="highs")
    if not res.success:  # pragma: no cover - the LP is always feasible (x = y = 0)
        raise RuntimeError(f"HiGHS failed: {res.message}")
    return float(-res.fun)


def lp_inverse(graph: PersonItemGraph, j_max: int, solver: str = "mincut") -> np.ndarray:
    """The LP inverse ``f̌_j = DC(D) − LP_j`` for j = 0..j_max as floats.

    Parameters
    ----------
    graph
        The person–item graph.
    j_max
        The largest number of removed persons.
    solver
        ``"mincut"`` (exact rationals, correctly rounded to float; the default and what the
        mechanism uses) or ``"highs"`` (one HiGHS LP per j; for cross-checks).

    Examples
    --------
    >>> from dpcount import PersonItemGraph
    >>> lp_inverse(PersonItemGraph.from_sets({"a": {1}, "b": {1}}), 2).tolist()
    [1.0, 0.5, 0.0]
    """
    check_choice(solver, "solver", ("mincut", "highs"))
    j_max = check_nonnegative_int(j_max, "j_max")
    if solver == "highs":
        removed = [lp_removed_highs(graph, j) for j in range(j_max + 1)]
        return graph.n_items - np.array(removed, dtype=float)
    # float(Fraction) rounds correctly, hence monotonically: the inequalities between the
    # exact values survive the conversion (ties may appear, order never flips).
    return np.array([float(graph.n_items - v) for v in lp_removed(graph, j_max)], dtype=float)
