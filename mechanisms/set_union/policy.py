"""Policy Laplace and Policy Gaussian: sequential ℓ1/ℓ2-descent (Gopi et al. 2020, §4–5).

Users, in a secret random order, each move the histogram towards the cutoff point (Γ, …, Γ)
on their own items by distance at most 1: ℓ1-descent (Algorithm 3) raises all their
below-cutoff items uniformly until the ℓ1 budget 1 is spent; ℓ2-descent (Algorithm 5) moves
straight towards (Γ, …, Γ) by ℓ2 distance min(1, ‖gap‖₂).  Both updates are contractive
(Lemmas 4.1, 5.2), so the histogram has sensitivity 1 (Thm 1.1) although every user reacts to
the users before them.  Γ = ρ + α·(b or σ) with α ∈ [2, 6] in the paper's experiments.

With exact noise (Policy Laplace's default) the histogram holds integers in units of 2⁻ᵏ and
each user spends exactly min(2ᵏ, Σ gaps) units: the uniform raise is rounded down to whole
units and the remainder goes one unit each to the lowest item ids still below Γ.  That rule
keeps Lemma 4.1's contraction on the lattice (docs/algorithms.md §6, "Exact noise on
fixed-point weights"); rounding the raise down alone does not.  ℓ2-descent has no such rule
yet, so Policy Gaussian draws floating-point noise.

The loops are compiled with numba; each user costs O(|W| log |W|) (ℓ1) or O(|W|) (ℓ2).

Examples
--------
>>> from mechanisms.set_union._bounding import CappedSets
>>> sets = CappedSets.from_lists([[0, 1], [0, 1]], n_items=2)
>>> l1_descent_weights(sets, np.array([0, 1]), cutoff=0.75).tolist()
[0.75, 0.75]
>>> l2_descent_weights(sets, np.array([0, 1]), cutoff=10.0).round(4).tolist()
[1.4142, 1.4142]
>>> l1_descent_units(sets, np.array([0, 1]), cutoff=100, budget=5).tolist()  # odd unit: low id
[6, 4]
"""

from __future__ import annotations

import math

import numpy as np

from dpcount.common.jit import SMALL_PAIRS, Kernel, kernel
from dpcount.common.rng import RNGLike
from dpcount.graph import PersonItemGraph
from dpcount.validation import check_choice, check_nonnegative
from mechanisms.declaration import register
from mechanisms.noise import NoiseMode
from mechanisms.set_union._bounding import CappedSets, keyed_hash_order, random_order
from mechanisms.set_union._release import (
    NO_WEIGHTS,
    Streams,
    check_common,
    single_round_result,
    threshold_loss,
)
from mechanisms.set_union.calibration import calibrate
from mechanisms.set_union.result import SetUnionResult

__all__ = [
    "l1_descent_units",
    "l1_descent_weights",
    "l2_descent_weights",
    "policy_gaussian",
    "policy_laplace",
]


@kernel("(ro(int64[:]), ro(int32[:]), ro(int64[:]), float64, int64)", interpret_below=SMALL_PAIRS)
def _l1_descent(
    indptr: np.ndarray, indices: np.ndarray, order: np.ndarray, cutoff: float, n_items: int
) -> np.ndarray:  # pragma: no cover - compiled
    h = np.zeros(n_items)
    width = 0
    for p in range(indptr.size - 1):
        width = max(width, indptr[p + 1] - indptr[p])
    gaps = np.empty(width)
    items = np.empty(width, dtype=np.int64)
    for p in order:
        k = 0
        for idx in range(indptr[p], indptr[p + 1]):
            i = indices[idx]
            if h[i] < cutoff:
                gaps[k] = cutoff - h[i]
                items[k] = i
                k += 1
        if k == 0:
            continue
        by_gap = np.argsort(gaps[:k])
        # Gopi Alg. 3: raise every below-cutoff item by the same amount; an item that reaches
        # Γ stops (it is set to Γ exactly) and the rest continue until the budget 1 is spent.
        # (The paper's listing has a stray `break` inside the last loop; the text and the
        # proof of Lemma 4.1 describe this uniform raise.)
        budget = 1.0
        raised = 0.0
        left = k
        j = 0
        while j < k:
            step = gaps[by_gap[j]] - raised
            cost = step * left
            if cost > budget:
                raised += budget / left
                break
            budget -= cost
            raised = gaps[by_gap[j]]
            h[items[by_gap[j]]] = cutoff
            left -= 1
            j += 1
        for jj in range(j, k):
            h[items[by_gap[jj]]] += raised
    return h


@kernel(
    "(ro(int64[:]), ro(int32[:]), ro(int64[:]), int64, int64, int64)", interpret_below=SMALL_PAIRS
)
def _l1_descent_units(
    indptr: np.ndarray,
    indices: np.ndarray,
    order: np.ndarray,
    cutoff: int,
    budget: int,
    n_items: int,
) -> np.ndarray:  # pragma: no cover - compiled
    h = np.zeros(n_items, dtype=np.int64)
    width = 0
    for p in range(indptr.size - 1):
        width = max(width, indptr[p + 1] - indptr[p])
    gaps = np.empty(width, dtype=np.int64)
    items = np.empty(width, dtype=np.int64)
    for p in order:
        k = 0
        for idx in range(indptr[p], indptr[p + 1]):
            i = indices[idx]
            if h[i] < cutoff:
                gaps[k] = cutoff - h[i]
                items[k] = i
                k += 1
        if k == 0:
            continue
        by_gap = np.argsort(gaps[:k], kind="mergesort")
        # Gopi Alg. 3 on the lattice: fill the items whose gap the uniform raise closes ...
        left_budget = budget
        raised = 0
        left = k
        j = 0
        while j < k and gaps[by_gap[j]] - raised <= left_budget // left:
            left_budget -= (gaps[by_gap[j]] - raised) * left
            raised = gaps[by_gap[j]]
            h[items[by_gap[j]]] = cutoff
            left -= 1
            j += 1
        if j == k:
            continue
        # ... raise the rest by whole units, and give the remainder (< left units) one unit
        # each to the lowest item ids: min(budget, Σ gaps) is spent exactly, which keeps the
        # update monotone and ℓ1-contractive (docs/algorithms.md §6).
        raised += left_budget // left
        extra = left_budget % left
        rest = np.sort(items[by_gap[j:k]])
        for jj in range(rest.size):
            h[rest[jj]] += raised + (1 if jj < extra else 0)
    return h


@kernel("(ro(int64[:]), ro(int32[:]), ro(int64[:]), float64, int64)", interpret_below=SMALL_PAIRS)
def _l2_descent(
    indptr: np.ndarray, indices: np.ndarray, order: np.ndarray, cutoff: float, n_items: int
) -> np.ndarray:  # pragma: no cover - compiled
    h = np.zeros(n_items)
    for p in order:
        start, stop = indptr[p], indptr[p + 1]
        if start == stop:
            continue
        # Gopi Alg. 5: G = (Γ − H[u])_{u∈W}, Z = ‖G‖₂; move to Γ if Z ≤ 1, else by G/Z.
        z2 = 0.0
        for idx in range(start, stop):
            g = cutoff - h[indices[idx]]
            z2 += g * g
        z = math.sqrt(z2)
        if z <= 1.0:
            for idx in range(start, stop):
                h[indices[idx]] = cutoff
        else:
            for idx in range(start, stop):
                i = indices[idx]
                h[i] += (cutoff - h[i]) / z
    return h


def _check_order(sets: CappedSets, order: np.ndarray) -> np.ndarray:
    order = np.asarray(order, dtype=np.int64)
    if order.shape != (sets.n_persons,) or not np.array_equal(
        np.sort(order), np.arange(sets.n_persons)
    ):
        raise ValueError("order must be a permutation of the persons")
    return order


def l1_descent_weights(sets: CappedSets, order: np.ndarray, cutoff: float) -> np.ndarray:
    """Histogram built by ℓ1-descent, users visited in ``order`` (Gopi Alg. 2 + Alg. 3).

    Parameters
    ----------
    sets
        The capped sets.
    order
        A permutation of the persons: the processing order.
    cutoff
        Γ: no item is raised above it.

    Returns
    -------
    numpy.ndarray
        Weight of every item id (0 for items nobody contributed).
    """
    order = _check_order(sets, order)
    return _descend(_l1_descent, sets, order, float(cutoff))


def l1_descent_units(sets: CappedSets, order: np.ndarray, cutoff: int, budget: int) -> np.ndarray:
    """Integer histogram of ℓ1-descent on the lattice, users visited in ``order``.

    Each user raises their below-cutoff items uniformly by whole units; items the raise
    would lift past ``cutoff`` stop there; the remainder of ``budget`` (fewer units than the
    items still rising) goes one unit each to the lowest item ids among them.  A user spends
    exactly min(budget, Σ gaps).

    Parameters
    ----------
    sets
        The capped sets.
    order
        A permutation of the persons: the processing order.
    cutoff
        Γ in units (≥ 0): no item is raised above it.
    budget
        Each user's ℓ1 budget in units (2ᵏ for weights in units of 2⁻ᵏ), ≥ 0.

    Returns
    -------
    numpy.ndarray
        ``int64`` units of every item id (0 for items nobody contributed).

    Examples
    --------
    >>> sets = CappedSets.from_lists([[0, 1, 2]], n_items=3)
    >>> l1_descent_units(sets, np.array([0]), cutoff=9, budget=8).tolist()  # 8 = 3 + 3 + 2
    [3, 3, 2]
    """
    order = _check_order(sets, order)
    for value, name in ((cutoff, "cutoff"), (budget, "budget")):
        if not 0 <= int(value) < 2**62:
            raise ValueError(f"{name} must be an integer in [0, 2**62), got {value!r}")
    run = _l1_descent_units.select(sets.indices.size)
    result: np.ndarray = run(
        sets.indptr, sets.indices, order, int(cutoff), int(budget), sets.n_items
    )
    return result


def l2_descent_weights(sets: CappedSets, order: np.ndarray, cutoff: float) -> np.ndarray:
    """Histogram built by ℓ2-descent, users visited in ``order`` (Gopi Alg. 2 + Alg. 5).

    Parameters
    ----------
    sets
        The capped sets.
    order
        A permutation of the persons: the processing order.
    cutoff
        Γ: ℓ2-descent moves each person's items toward it by ℓ2 distance at most 1.

    Returns
    -------
    numpy.ndarray
        Weight of every item id (0 for items nobody contributed).
    """
    order = _check_order(sets, order)
    return _descend(_l2_descent, sets, order, float(cutoff))


def _descend(descent: Kernel, sets: CappedSets, order: np.ndarray, cutoff: float) -> np.ndarray:
    run = descent.select(sets.indices.size)
    result: np.ndarray = run(sets.indptr, sets.indices, order, cutoff, sets.n_items)
    return result


USER_ORDERS = ("permutation", "keyed_hash")


def _secret_order(sets: CappedSets, rngs: Streams, person_labels: np.ndarray | None) -> np.ndarray:
    """The secret user order, from its own stream: Gopi's keyed hash of ``person_labels``, or
    a uniform permutation without them (same distribution, see ``_bounding``)."""
    if person_labels is None:
        return random_order(sets.n_persons, rngs.order)
    return keyed_hash_order(person_labels, rngs.order)


def _labels_for_order(graph: PersonItemGraph, user_order: str) -> np.ndarray | None:
    check_choice(user_order, "user_order", USER_ORDERS)
    return graph.person_labels if user_order == "keyed_hash" else None


policy_laplace_loss = threshold_loss(
    "policy_laplace", "Policy Laplace set union (Gopi et al. 2020, Thm 4.1)", "laplace"
)


@register(family="set_union", loss=policy_laplace_loss, engines=("local",), session=NO_WEIGHTS)
def policy_laplace(
    graph: PersonItemGraph,
    epsilon: float,
    delta: float,
    *,
    max_items: int = 100,
    alpha: float = 5.0,
    user_order: str = "permutation",
    rng: RNGLike = None,
    sampling: str = "uniform",
    noise: NoiseMode = "exact",
    return_weights: bool = False,
) -> SetUnionResult:
    """Policy Laplace set union: sequential ℓ1-descent, then Laplace noise (Gopi Alg. 4).

    Parameters
    ----------
    graph
        Persons and the items they hold.
    epsilon, delta
        Privacy parameters, ε > 0 and δ ∈ (0, 1).
    max_items
        Δ0: persons with more items contribute a uniformly random Δ0 of them.
    alpha
        Cutoff offset: Γ = ρ + α·b (the paper finds α ∈ [2, 6] best and uses 5).
    user_order
        The secret order users are processed in: ``"permutation"`` (uniform, default) or
        ``"keyed_hash"`` (Gopi Alg. 2: keyed BLAKE2b of each label); same output distribution.
    rng
        Randomness; child streams for the secret user order, the sampling and the noise.
    sampling
        ``"uniform"`` or ``"keyed"`` Δ0 sampling, the latter as the Spark engine
        (:mod:`mechanisms.spark`) does it (see
        :func:`~mechanisms.set_union._bounding.sample_contributions`); same guarantee.
    noise
        ``"exact"`` (default): ℓ1-descent on integer units of 2⁻ᵏ and exact discrete Laplace
        noise, ``secure=True``.  ``"float"``: the paper's real weights and continuous noise
        (warns :class:`~dpcount.errors.UnsafeNoiseWarning`; for experiments).
    return_weights
        Also return the pre-noise histogram (**not private**, for research).

    Returns
    -------
    SetUnionResult
        With ``cutoff`` = Γ.

    Notes
    -----
    (ε, δ)-DP under adding or removing one person (Gopi Thm 4.1): ℓ1-descent is
    ℓ1-contractive (Lemma 4.1), so the histogram has ℓ1-sensitivity 1 (Lemma 4.2); the t items
    held only by the added person weigh at most 1/t each; b = 1/ε and
    ρ = max_t [1/t + (1/ε)·ln(1/(2(1−(1−δ)^{1/t})))].  Users are visited in a uniformly random
    secret order (see ``_bounding`` for why this equals the paper's keyed hash).  With exact
    noise the same two facts hold on the lattice: each user spends exactly min(2ᵏ, Σ gaps)
    units (:func:`l1_descent_units`), the update stays monotone and ℓ1-contractive, and a
    novel item weighs at most ⌈2ᵏ/t⌉ units, which the integer threshold uses
    (docs/algorithms.md §6).
    Accuracy: no per-item guarantee is known (Gopi §7); empirically 2–4× the weighted
    mechanisms (Gopi Table 2).

    Examples
    --------
    >>> from dpcount import PersonItemGraph
    >>> sets = {f"u{k}": {"a", "b", "c"} for k in range(80)}
    >>> r = policy_laplace(PersonItemGraph.from_sets(sets), 1.0, 1e-6, max_items=3, rng=1)
    >>> r.items.tolist(), r.cutoff > r.threshold, r.secure
    (['a', 'b', 'c'], True, True)
    """
    eps, dlt, delta0 = check_common(graph, epsilon, delta, max_items, noise)
    a = check_nonnegative(alpha, "alpha")
    calibration = calibrate("policy_laplace", eps, dlt, delta0, alpha=a, mode=noise)
    labels = _labels_for_order(graph, user_order)
    exact = calibration.exact
    if exact is None:
        cutoff = float(calibration.cutoff)  # type: ignore[arg-type]  # Gopi Alg. 4: Γ = ρ + α·b

        def weigh(sets: CappedSets, rngs: Streams) -> np.ndarray:
            order = _secret_order(sets, rngs, labels)
            return _descend(_l1_descent, sets, order, cutoff)

    else:
        cutoff_units, budget = int(exact.cutoff), 1 << exact.bits  # type: ignore[arg-type]

        def weigh(sets: CappedSets, rngs: Streams) -> np.ndarray:
            order = _secret_order(sets, rngs, labels)
            return _l1_descent_units.select(sets.indices.size)(
                sets.indptr, sets.indices, order, cutoff_units, budget, sets.n_items
            )

    return single_round_result(
        graph,
        calibration,
        epsilon=eps,
        delta=dlt,
        max_items=delta0,
        rng=rng,
        sampling=sampling,
        weigh=weigh,
        parameters={"alpha": a, "user_order": user_order},
        privacy_loss=policy_laplace_loss(eps, dlt),
        return_weights=return_weights,
    )


policy_gaussian_loss = threshold_loss(
    "policy_gaussian", "Policy Gaussian set union (Gopi et al. 2020, Thm 5.1)", "gaussian"
)


@register(family="set_union", loss=policy_gaussian_loss, engines=("local",), session=NO_WEIGHTS)
def policy_gaussian(
    graph: PersonItemGraph,
    epsilon: float,
    delta: float,
    *,
    max_items: int = 100,
    alpha: float = 5.0,
    user_order: str = "permutation",
    rng: RNGLike = None,
    sampling: str = "uniform",
    return_weights: bool = False,
) -> SetUnionResult:
    """Policy Gaussian set union: sequential ℓ2-descent, then Gaussian noise (Gopi Alg. 6).

    Parameters
    ----------
    graph
        Persons and the items they hold.
    epsilon, delta
        Privacy parameters, ε > 0 and δ ∈ (0, 1).
    max_items
        Δ0: persons with more items contribute a uniformly random Δ0 of them.
    alpha
        Cutoff offset: Γ = ρ + α·σ (the paper finds α ∈ [2, 6] best and uses 5).
    user_order
        The secret order users are processed in: ``"permutation"`` (uniform, default) or
        ``"keyed_hash"`` (Gopi Alg. 2: keyed BLAKE2b of each label); same output distribution.
    rng
        Randomness; child streams for the secret user order, the sampling and the noise.
    sampling
        ``"uniform"`` or ``"keyed"`` Δ0 sampling, the latter as the Spark engine
        (:mod:`mechanisms.spark`) does it (see
        :func:`~mechanisms.set_union._bounding.sample_contributions`); same guarantee.
    return_weights
        Also return the pre-noise histogram (**not private**, for research).

    Returns
    -------
    SetUnionResult
        With ``cutoff`` = Γ.

    Notes
    -----
    (ε, δ)-DP under adding or removing one person (Gopi Thm 5.1): ℓ2-descent is
    ℓ2-contractive (Lemma 5.2), so the histogram has ℓ2-sensitivity 1; the t items held only
    by the added person weigh at most 1/√t each; σ from Balle–Wang at (ε, δ/2) and
    ρ = max_t [1/√t + σ·Φ⁻¹((1−δ/2)^{1/t})].  The paper's Algorithm 6 writes Γ = ρ_Lap + α·σ;
    ρ_Gauss is meant.  Accuracy: no per-item guarantee is known (Gopi §7).

    Examples
    --------
    >>> import warnings
    >>> from dpcount import PersonItemGraph
    >>> sets = {f"u{k}": {"a", "b"} for k in range(40)}
    >>> with warnings.catch_warnings(record=True) as caught:  # floating-point noise: it warns
    ...     warnings.simplefilter("always")
    ...     r = policy_gaussian(PersonItemGraph.from_sets(sets), 1.0, 1e-6, max_items=2, rng=1)
    >>> r.count, r.secure, caught[0].category.__name__
    (2, False, 'UnsafeNoiseWarning')
    """
    eps, dlt, delta0 = check_common(graph, epsilon, delta, max_items)
    a = check_nonnegative(alpha, "alpha")
    calibration = calibrate("policy_gaussian", eps, dlt, delta0, alpha=a, mode="float")
    cutoff = float(calibration.cutoff)  # type: ignore[arg-type]  # Gopi Alg. 6: Γ = ρ + α·σ
    labels = _labels_for_order(graph, user_order)

    def weigh(sets: CappedSets, rngs: Streams) -> np.ndarray:
        return _descend(_l2_descent, sets, _secret_order(sets, rngs, labels), cutoff)

    return single_round_result(
        graph,
        calibration,
        epsilon=eps,
        delta=dlt,
        max_items=delta0,
        rng=rng,
        sampling=sampling,
        weigh=weigh,
        parameters={"alpha": a, "user_order": user_order},
        privacy_loss=policy_gaussian_loss(eps, dlt),
        return_weights=return_weights,
    )
