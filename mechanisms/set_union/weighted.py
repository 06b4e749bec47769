"""Non-adaptive set union: count and weighted Laplace/Gaussian (Gopi et al. 2020, §1.1, App. B).

Each person contributes to their (at most Δ0 sampled) items independently of everyone else:

* count: +1 per item; ℓ1-sensitivity Δ0, ℓ2-sensitivity √Δ0 (Korolova et al. 2009;
  Wilson et al. 2020).
* weighted: +1/|W| (Laplace, Gopi Alg. 7) or +1/√|W| (Gaussian, Gopi Alg. 8) per item;
  sensitivity 1 in ℓ1 resp. ℓ2.  The Gaussian version is the "basic weighting" of
  Chen et al. (2024) and one round of DP-SIPS.

Examples
--------
>>> from dpcount import PersonItemGraph
>>> sets = {f"u{k}": {"common", f"own{k}"} for k in range(50)}
>>> g = PersonItemGraph.from_sets(sets)
>>> r = weighted_gaussian(g, epsilon=1.0, delta=1e-5, max_items=2, rng=0)
>>> r.items.tolist()
['common']
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

from dpcount.common.jit import SMALL_PAIRS, kernel
from dpcount.common.rng import RNGLike
from dpcount.graph import PersonItemGraph
from mechanisms.declaration import register
from mechanisms.noise import NoiseMode
from mechanisms.set_union._bounding import CappedSets
from mechanisms.set_union._release import (
    NO_WEIGHTS,
    check_common,
    single_round_result,
    threshold_loss,
)
from mechanisms.set_union.calibration import Calibration, calibrate
from mechanisms.set_union.fixed_point import MAX_UNIT_BITS, contribution_units
from mechanisms.set_union.result import SetUnionResult

__all__ = [
    "UNIT",
    "basic_units",
    "basic_weights",
    "contribution_units",
    "count_gaussian",
    "count_laplace",
    "count_weights",
    "weighted_gaussian",
    "weighted_laplace",
]


def count_weights(sets: CappedSets) -> np.ndarray:
    """Number of persons holding each item (after capping).

    Examples
    --------
    >>> count_weights(CappedSets.from_lists([[0, 1], [1]], n_items=3)).tolist()
    [1.0, 2.0, 0.0]
    """
    return sets.holders().astype(float)


def basic_weights(sets: CappedSets, norm: int) -> np.ndarray:
    """Each person adds |W|^(−1/p) to each of their items (Gopi Alg. 7 for p=1, Alg. 8 for p=2).

    Contributions are fixed-point numbers, rounded *down* to a multiple of 2^−30
    (:func:`basic_units`), and summed as integers.  Rounding down keeps every person's
    contribution vector within norm 1, as the thresholds assume; exact integer sums make the
    weights independent of summation order, so the Spark engine gets the same weights bit
    for bit however the pairs are partitioned.  The rounding moves a weight by less than
    2^−30 per holder.

    Parameters
    ----------
    sets
        The capped sets.
    norm
        1 (ℓ1, Laplace) or 2 (ℓ2, Gaussian): each person's contribution has norm at most 1.

    Examples
    --------
    >>> sets = CappedSets.from_lists([[0, 1, 2, 3], [0]], n_items=4)
    >>> basic_weights(sets, 2).tolist()
    [1.5, 0.5, 0.5, 0.5]
    """
    return basic_units(sets, norm, MAX_UNIT_BITS) * UNIT


def basic_units(sets: CappedSets, norm: int, bits: int) -> np.ndarray:
    """Per-item sums of ⌊2ᵏ·|W|^(−1/p)⌋ over the holders: the weights in integer units of 2⁻ᵏ.

    Examples
    --------
    >>> sets = CappedSets.from_lists([[0, 1, 2, 3], [0]], n_items=4)
    >>> basic_units(sets, 1, 3).tolist()
    [10, 2, 2, 2]
    """
    degrees = sets.degrees()
    units = contribution_units(int(degrees.max(initial=0)), norm, bits)
    run = _unit_sums.select(sets.indices.size)
    return run(sets.indptr, sets.indices, units[degrees], sets.n_items)


#: Float-noise contributions are multiples of this (2^−30): integer sums stay exact up to 2^33.
UNIT = 2.0**-MAX_UNIT_BITS


def _weigh(norm: int | None, calibration: Calibration) -> Callable[[CappedSets, Any], np.ndarray]:
    """The weighting of a one-round mechanism: counts (norm None) or basic weights, as reals
    for floating-point noise or as integer units for exact noise."""
    exact = calibration.exact
    if norm is None:
        if exact is None:
            return lambda sets, _: count_weights(sets)
        return lambda sets, _: sets.holders().astype(np.int64)
    if exact is None:
        return lambda sets, _: basic_weights(sets, norm)
    bits = exact.bits
    return lambda sets, _: basic_units(sets, norm, bits)


@kernel("(ro(int64[:]), ro(int32[:]), ro(int64[:]), int64)", interpret_below=SMALL_PAIRS)
def _unit_sums(
    indptr: np.ndarray, indices: np.ndarray, person_units: np.ndarray, n_items: int
) -> np.ndarray:  # pragma: no cover - compiled
    """Per item, the exact integer sum of its holders' contribution units."""
    sums = np.zeros(n_items, dtype=np.int64)
    for p in range(indptr.size - 1):
        for e in range(indptr[p], indptr[p + 1]):
            sums[indices[e]] += person_units[p]
    return sums


count_laplace_loss = threshold_loss(
    "count_laplace", "count Laplace set union (Gopi et al. 2020, A.1)", "laplace"
)


@register(
    family="set_union", loss=count_laplace_loss, engines=("local", "spark"), session=NO_WEIGHTS
)
def count_laplace(
    graph: PersonItemGraph,
    epsilon: float,
    delta: float,
    *,
    max_items: int = 100,
    rng: RNGLike = None,
    sampling: str = "uniform",
    noise: NoiseMode = "exact",
    return_weights: bool = False,
) -> SetUnionResult:
    """Set union by noisy counts with Laplace noise (the baseline of Gopi et al. §1.1).

    Parameters
    ----------
    graph
        Persons and the items they hold.
    epsilon, delta
        Privacy parameters, ε > 0 and δ ∈ (0, 1).
    max_items
        Δ0: persons with more items contribute a uniformly random Δ0 of them.
    rng
        Randomness (docs/concepts.md); child streams for sampling and noise.
    sampling
        ``"uniform"`` or ``"keyed"`` Δ0 sampling, the latter as the Spark engine
        (:mod:`mechanisms.spark`) does it (see
        :func:`~mechanisms.set_union._bounding.sample_contributions`); same guarantee.
    noise
        ``"exact"`` (default): fixed-point weights and exact discrete noise, ``secure=True``
        (:mod:`~mechanisms.set_union.fixed_point`).  ``"float"``: the papers' continuous noise
        on real weights, for Monte-Carlo experiments (warns, ``secure=False``).
    return_weights
        Also return the pre-noise counts (**not private**, for research).

    Returns
    -------
    SetUnionResult

    Notes
    -----
    (ε, δ)-DP under adding or removing one person.  Each person adds 1 to each of their
    capped items, so the counts have ℓ1-sensitivity Δ0: Laplace noise of scale b = Δ0/ε.
    An item held only by the added person has count 1, hence (Gopi Thm A.1 in count units,
    max at t = Δ0) ρ = 1 + b·ln(1/(2(1−(1−δ)^{1/Δ0}))).
    Accuracy: an item in k persons' capped sets is released with probability
    P[Lap(b) > ρ − k].

    References
    ----------
    Gopi, Gulhane, Kulkarni, Shen, Shokouhi, Yekhanin, "Differentially Private Set Union",
    ICML 2020, arXiv:2002.09745.  Korolova, Kenthapadi, Mishra, Ntoulas, "Releasing Search
    Queries and Clicks Privately", WWW 2009, doi:10.1145/1526709.1526733.

    Examples
    --------
    >>> from dpcount import PersonItemGraph
    >>> g = PersonItemGraph.from_sets({f"u{k}": {"x"} for k in range(100)})
    >>> count_laplace(g, 1.0, 1e-6, max_items=1, rng=0).items.tolist()
    ['x']
    """
    eps, dlt, delta0 = check_common(graph, epsilon, delta, max_items, noise)
    calibration = calibrate("count_laplace", eps, dlt, delta0, mode=noise)
    return single_round_result(
        graph,
        calibration,
        epsilon=eps,
        delta=dlt,
        max_items=delta0,
        rng=rng,
        sampling=sampling,
        weigh=_weigh(None, calibration),
        privacy_loss=count_laplace_loss(eps, dlt),
        return_weights=return_weights,
    )


count_gaussian_loss = threshold_loss(
    "count_gaussian", "count Gaussian set union (Gopi et al. 2020, A.2)", "gaussian"
)


@register(
    family="set_union", loss=count_gaussian_loss, engines=("local", "spark"), session=NO_WEIGHTS
)
def count_gaussian(
    graph: PersonItemGraph,
    epsilon: float,
    delta: float,
    *,
    max_items: int = 100,
    rng: RNGLike = None,
    sampling: str = "uniform",
    noise: NoiseMode = "exact",
    return_weights: bool = False,
) -> SetUnionResult:
    """Set union by noisy counts with Gaussian noise (the baseline of Gopi et al. §1.1).

    Parameters
    ----------
    graph
        Persons and the items they hold.
    epsilon, delta
        Privacy parameters, ε > 0 and δ ∈ (0, 1).
    max_items
        Δ0: persons with more items contribute a uniformly random Δ0 of them.
    rng
        Randomness (docs/concepts.md); child streams for sampling and noise.
    sampling
        ``"uniform"`` or ``"keyed"`` Δ0 sampling, the latter as the Spark engine
        (:mod:`mechanisms.spark`) does it (see
        :func:`~mechanisms.set_union._bounding.sample_contributions`); same guarantee.
    noise
        ``"exact"`` (default): fixed-point weights and exact discrete noise, ``secure=True``
        (:mod:`~mechanisms.set_union.fixed_point`).  ``"float"``: the papers' continuous noise
        on real weights, for Monte-Carlo experiments (warns, ``secure=False``).
    return_weights
        Also return the pre-noise counts (**not private**, for research).

    Returns
    -------
    SetUnionResult

    Notes
    -----
    (ε, δ)-DP under adding or removing one person.  The counts have ℓ2-sensitivity √Δ0;
    σ = √Δ0·σ₁ with σ₁ the Balle–Wang σ for (ε, δ/2).  An item held only by the added person
    has count 1, so (Gopi Thm A.2 in count units, max at t = Δ0)
    ρ = 1 + σ·Φ⁻¹((1−δ/2)^{1/Δ0}).  Accuracy: an item in k capped sets is released with
    probability Φ((k − ρ)/σ).

    Examples
    --------
    >>> from dpcount import PersonItemGraph
    >>> g = PersonItemGraph.from_sets({f"u{k}": {"x"} for k in range(100)})
    >>> count_gaussian(g, 1.0, 1e-6, max_items=1, rng=0).count
    1
    """
    eps, dlt, delta0 = check_common(graph, epsilon, delta, max_items, noise)
    calibration = calibrate("count_gaussian", eps, dlt, delta0, mode=noise)
    return single_round_result(
        graph,
        calibration,
        epsilon=eps,
        delta=dlt,
        max_items=delta0,
        rng=rng,
        sampling=sampling,
        weigh=_weigh(None, calibration),
        privacy_loss=count_gaussian_loss(eps, dlt),
        return_weights=return_weights,
    )


weighted_laplace_loss = threshold_loss(
    "weighted_laplace", "weighted Laplace set union (Gopi et al. 2020, B.1)", "laplace"
)


@register(
    family="set_union", loss=weighted_laplace_loss, engines=("local", "spark"), session=NO_WEIGHTS
)
def weighted_laplace(
    graph: PersonItemGraph,
    epsilon: float,
    delta: float,
    *,
    max_items: int = 100,
    rng: RNGLike = None,
    sampling: str = "uniform",
    noise: NoiseMode = "exact",
    return_weights: bool = False,
) -> SetUnionResult:
    """Weighted Laplace set union: each person adds 1/|W| to each item (Gopi Alg. 7).

    Parameters
    ----------
    graph
        Persons and the items they hold.
    epsilon, delta
        Privacy parameters, ε > 0 and δ ∈ (0, 1).
    max_items
        Δ0: persons with more items contribute a uniformly random Δ0 of them.
    rng
        Randomness (docs/concepts.md); child streams for sampling and noise.
    sampling
        ``"uniform"`` or ``"keyed"`` Δ0 sampling, the latter as the Spark engine
        (:mod:`mechanisms.spark`) does it (see
        :func:`~mechanisms.set_union._bounding.sample_contributions`); same guarantee.
    noise
        ``"exact"`` (default): fixed-point weights and exact discrete noise, ``secure=True``
        (:mod:`~mechanisms.set_union.fixed_point`).  ``"float"``: the papers' continuous noise
        on real weights, for Monte-Carlo experiments (warns, ``secure=False``).
    return_weights
        Also return the pre-noise weights (**not private**, for research).

    Returns
    -------
    SetUnionResult

    Notes
    -----
    (ε, δ)-DP under adding or removing one person (Gopi Thm B.1): ℓ1-sensitivity 1, b = 1/ε,
    and each of the t items held only by the added person weighs 1/t, so
    ρ = max_t [1/t + (1/ε)·ln(1/(2(1−(1−δ)^{1/t})))].  Accuracy: an item held by k persons
    with at most Δ0 capped items each weighs at least k/Δ0.

    Examples
    --------
    >>> from dpcount import PersonItemGraph
    >>> g = PersonItemGraph.from_sets({f"u{k}": {"x", "y"} for k in range(40)})
    >>> weighted_laplace(g, 1.0, 1e-6, max_items=2, rng=0).items.tolist()
    ['x', 'y']
    """
    eps, dlt, delta0 = check_common(graph, epsilon, delta, max_items, noise)
    calibration = calibrate("weighted_laplace", eps, dlt, delta0, mode=noise)
    return single_round_result(
        graph,
        calibration,
        epsilon=eps,
        delta=dlt,
        max_items=delta0,
        rng=rng,
        sampling=sampling,
        weigh=_weigh(1, calibration),
        privacy_loss=weighted_laplace_loss(eps, dlt),
        return_weights=return_weights,
    )


weighted_gaussian_loss = threshold_loss(
    "weighted_gaussian", "weighted Gaussian set union (Gopi et al. 2020, B.2)", "gaussian"
)


@register(
    family="set_union", loss=weighted_gaussian_loss, engines=("local", "spark"), session=NO_WEIGHTS
)
def weighted_gaussian(
    graph: PersonItemGraph,
    epsilon: float,
    delta: float,
    *,
    max_items: int = 100,
    rng: RNGLike = None,
    sampling: str = "uniform",
    noise: NoiseMode = "exact",
    return_weights: bool = False,
) -> SetUnionResult:
    """Weighted Gaussian set union: each person adds 1/√|W| to each item (Gopi Alg. 8).

    Parameters
    ----------
    graph
        Persons and the items they hold.
    epsilon, delta
        Privacy parameters, ε > 0 and δ ∈ (0, 1).
    max_items
        Δ0: persons with more items contribute a uniformly random Δ0 of them.
    rng
        Randomness (docs/concepts.md); child streams for sampling and noise.
    sampling
        ``"uniform"`` or ``"keyed"`` Δ0 sampling, the latter as the Spark engine
        (:mod:`mechanisms.spark`) does it (see
        :func:`~mechanisms.set_union._bounding.sample_contributions`); same guarantee.
    noise
        ``"exact"`` (default): fixed-point weights and exact discrete noise, ``secure=True``
        (:mod:`~mechanisms.set_union.fixed_point`).  ``"float"``: the papers' continuous noise
        on real weights, for Monte-Carlo experiments (warns, ``secure=False``).
    return_weights
        Also return the pre-noise weights (**not private**, for research).

    Returns
    -------
    SetUnionResult

    Notes
    -----
    (ε, δ)-DP under adding or removing one person (Gopi Thm B.2): ℓ2-sensitivity 1, σ from
    Balle–Wang at (ε, δ/2), and each of the t items held only by the added person weighs
    1/√t, so ρ = max_t [1/√t + σ·Φ⁻¹((1−δ/2)^{1/t})].  This is the "basic weighting" of
    Chen et al. (2024).  Accuracy: an item held by k persons with at most Δ0 capped items
    each weighs at least k/√Δ0, so it is released with probability ≥ Φ((k/√Δ0 − ρ)/σ).

    Examples
    --------
    >>> from dpcount import PersonItemGraph
    >>> g = PersonItemGraph.from_sets({f"u{k}": {"x"} for k in range(30)})
    >>> r = weighted_gaussian(g, 1.0, 1e-5, max_items=1, rng=0)
    >>> r.count, round(r.scale, 4), r.secure  # exact discrete noise: σ from zCDP
    (1, 4.1962, True)
    """
    eps, dlt, delta0 = check_common(graph, epsilon, delta, max_items, noise)
    calibration = calibrate("weighted_gaussian", eps, dlt, delta0, mode=noise)
    return single_round_result(
        graph,
        calibration,
        epsilon=eps,
        delta=dlt,
        max_items=delta0,
        rng=rng,
        sampling=sampling,
        weigh=_weigh(2, calibration),
        privacy_loss=weighted_gaussian_loss(eps, dlt),
        return_weights=return_weights,
    )
