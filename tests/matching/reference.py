"""Slow, obviously-correct references for DC(D;ℓ) and the greedy, used as test oracles."""

from __future__ import annotations

from itertools import combinations, pairwise

import numpy as np

from dpcount import PersonItemGraph


def rows(graph: PersonItemGraph) -> list[list[int]]:
    """Each person's item ids as a Python list."""
    return [graph.indices[a:b].tolist() for a, b in pairwise(graph.indptr.tolist())]


def brute_force_dc(graph: PersonItemGraph, ell: int) -> int:
    """max |∪ v_i| over v_i ⊆ u_i with |v_i| ≤ ℓ (Knop & Steinke Eq. 2), by enumeration.

    The reachable unions are kept as a set of item bitmasks, one person at a time; a person
    only ever needs subsets of size exactly min(ℓ, |u_i|) because adding items never hurts.
    """
    reachable = {0}
    for items in rows(graph):
        choices = [sum(1 << j for j in c) for c in combinations(items, min(ell, len(items)))]
        reachable = {r | c for r in reachable for c in choices}
    return max(bin(r).count("1") for r in reachable)


def min_cut_dc(graph: PersonItemGraph, ell: int) -> int:
    """DC(D;ℓ) = min over person sets B of |N(B)| + ℓ·(n − |B|) (algorithms.md §1, min-cut form)."""
    items = rows(graph)
    n = len(items)
    best = ell * n
    for mask in range(1 << n):
        members = [p for p in range(n) if mask >> p & 1]
        neighbourhood = set().union(*(items[p] for p in members)) if members else set()
        best = min(best, len(neighbourhood) + ell * (n - len(members)))
    return best


def literal_greedy(graph: PersonItemGraph, ell: int) -> int:
    """Knop & Steinke Algorithm 4 written as in the paper: ℓ rounds, persons in order, each
    takes the first (smallest-id) item of u_i \\ S."""
    chosen: set[int] = set()
    for _ in range(ell):
        for items in rows(graph):
            rest = [x for x in items if x not in chosen]
            if rest:
                chosen.add(min(rest))
    return len(chosen)


def frequency_greedy(graph: PersonItemGraph, ell: int) -> int:
    """The *wrong* greedy: each person takes its rarest item first (frequency from the data).

    A data-dependent item order; kept only to show that it breaks the sensitivity bound.
    """
    freq = np.bincount(graph.indices, minlength=graph.n_items)
    chosen: set[int] = set()
    for _ in range(ell):
        for items in rows(graph):
            rest = [x for x in items if x not in chosen]
            if rest:
                chosen.add(min(rest, key=lambda x: (freq[x], x)))
    return len(chosen)
