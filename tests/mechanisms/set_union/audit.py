"""The neighbour audit of set-union weightings, and slow reference implementations.

A weighting is audited on a pair of neighbouring datasets: ``others`` (the smaller one) and
``others + [added]``.  The other persons' capped sets and their relative order stay fixed; the
added person is inserted at every position of the order.  For every pair the weight vectors must
differ by at most ``bound`` in the given norm, and each of the t items held only by the added
person must weigh at most ``novel(t)`` — the two facts the thresholds of Gopi et al. rest on.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass

import numpy as np

from mechanisms.set_union._bounding import CappedSets

# (sets, order) -> weights over all item ids
Weigh = Callable[[CappedSets, np.ndarray], np.ndarray]
TOL = 1e-9


@dataclass(frozen=True)
class Violation:
    what: str
    value: float
    limit: float
    others: tuple[tuple[int, ...], ...]
    added: tuple[int, ...]
    position: int


def audit_pair(
    weigh: Weigh,
    others: Sequence[Sequence[int]],
    added: Sequence[int],
    n_items: int,
    *,
    norm: float,
    bound: float,
    novel: Callable[[int], float],
    base_order: np.ndarray | None = None,
    positions: Sequence[int] | None = None,
) -> list[Violation]:
    """Every violation for the added person inserted at each of ``positions`` (default: all)."""
    n = len(others)
    order = np.arange(n) if base_order is None else np.asarray(base_order)
    smaller = CappedSets.from_lists(others, n_items)
    larger = CappedSets.from_lists([*others, added], n_items)
    w_small = weigh(smaller, order)
    held_by_others = set().union(*map(set, others)) if others else set()
    only_added = sorted(set(added) - held_by_others)
    t = len(only_added)
    found = []
    key = (tuple(map(tuple, others)), tuple(added))
    for k in positions if positions is not None else range(n + 1):
        order_large = np.insert(order, k, n)
        w_large = weigh(larger, order_large)
        distance = float(np.linalg.norm(w_large - w_small, ord=norm))
        if distance > bound + TOL:
            found.append(Violation(f"l{norm:g} distance", distance, bound, *key, k))
        if t:
            heaviest = float(w_large[only_added].max())
            if heaviest > novel(t) + TOL:
                found.append(Violation(f"novel weight (t={t})", heaviest, novel(t), *key, k))
    return found


def random_instance(
    rng: np.random.Generator, max_persons: int = 6, max_items: int = 6
) -> tuple[list[list[int]], list[int], int, int]:
    """Small random neighbours: (others, added, n_items, Δ0), sets already capped at Δ0.

    A small universe makes items shared and cutoffs reachable, which is where sensitivity
    breaks if it breaks.
    """
    n_items = int(rng.integers(1, max_items + 1))
    delta0 = int(rng.integers(1, n_items + 1))

    def one_set() -> list[int]:
        size = int(rng.integers(0, delta0 + 1))
        return sorted(rng.choice(n_items, size=size, replace=False).tolist())

    n = int(rng.integers(0, max_persons + 1))
    others = [one_set() for _ in range(n)]
    added = one_set()
    return others, added, n_items, delta0


def l1_split(t: int) -> float:
    return 1.0 / t


def l2_split(t: int) -> float:
    return 1.0 / math.sqrt(t)


# -- slow reference implementations (oracles for the compiled / vectorised ones) ---------------


def reference_l1_descent(sets: CappedSets, order: np.ndarray, cutoff: float) -> np.ndarray:
    """Gopi Alg. 3 as a continuous flow: all below-cutoff items rise at the same rate."""
    h = np.zeros(sets.n_items)
    for p in order:
        active = [
            int(i) for i in sets.indices[sets.indptr[p] : sets.indptr[p + 1]] if h[i] < cutoff
        ]
        budget = 1.0
        while budget > 0 and active:
            step = min(cutoff - h[i] for i in active)
            if step * len(active) <= budget:
                budget -= step * len(active)
                for i in active:
                    h[i] += step
                reached = [i for i in active if cutoff - h[i] <= 1e-12]
                for i in reached:
                    h[i] = cutoff
                active = [i for i in active if i not in reached]
            else:
                for i in active:
                    h[i] += budget / len(active)
                budget = 0.0
    return h


def reference_l1_descent_units(
    sets: CappedSets, order: np.ndarray, cutoff: int, budget: int, *, remainder: bool = True
) -> np.ndarray:
    """Lattice ℓ1-descent one unit at a time: while a whole round of units is affordable every
    below-cutoff item gets one; the last, partial round goes to the lowest item ids.
    ``remainder=False`` drops that partial round instead (the rounding that is not private)."""
    h = np.zeros(sets.n_items, dtype=np.int64)
    for p in order:
        items = sorted(int(i) for i in sets.indices[sets.indptr[p] : sets.indptr[p + 1]])
        left = budget
        while left > 0:
            active = [i for i in items if h[i] < cutoff]
            if not active:
                break
            if left < len(active):
                if remainder:
                    h[active[:left]] += 1
                break
            h[active] += 1
            left -= len(active)
    return h


def reference_l2_descent(sets: CappedSets, order: np.ndarray, cutoff: float) -> np.ndarray:
    """Gopi Alg. 5, literally."""
    h = np.zeros(sets.n_items)
    for p in order:
        items = sets.indices[sets.indptr[p] : sets.indptr[p + 1]]
        if items.size == 0:
            continue
        gap = cutoff - h[items]
        z = math.sqrt(float(gap @ gap))
        h[items] = cutoff if z <= 1 else h[items] + gap / z
    return h


def reference_mad(sets: CappedSets, d_max: int, tau: float) -> np.ndarray:
    """docs/algorithms.md §6 steps 1–7 with dictionaries and loops."""
    persons = [
        [int(i) for i in sets.indices[sets.indptr[p] : sets.indptr[p + 1]]]
        for p in range(sets.n_persons)
    ]
    adaptive = [s for s in persons if 0 < len(s) <= d_max]
    w_raw: dict[int, float] = {}
    for s in adaptive:
        for i in s:
            w_raw[i] = w_raw.get(i, 0.0) + 1 / len(s)
    trunc = {i: min(v, tau) for i, v in w_raw.items()}
    excess = {i: v - trunc[i] for i, v in w_raw.items()}
    f = 1 / math.sqrt(d_max) - 1 / (2 * d_max)
    w = np.zeros(sets.n_items)
    for i, v in trunc.items():
        w[i] += v
    for s in persons:
        if not s:
            continue
        if len(s) > d_max:
            for i in s:
                w[i] += 1 / math.sqrt(len(s))
            continue
        returned = sum((1 / len(s)) * excess[i] / w_raw[i] for i in s)
        for i in s:
            w[i] += f * returned / len(s) + 1 / math.sqrt(len(s)) - 1 / len(s)
    return w
