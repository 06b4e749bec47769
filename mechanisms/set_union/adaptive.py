"""Adaptive weighting in the style of MaxAdaptiveDegree (Chen et al. 2024), as derived for dpcount.

Basic weighting (each person adds 1/√``|W|`` to each item) wastes weight on items far above the
threshold.  Adaptive weighting truncates item weights at τ = ρ + β_τ·σ and lets persons reroute
part of the excess to their other items, without changing σ or ρ.

Chen et al. give the algorithm only in outline (the body of the paper is not available to this
project), so **the reroute fraction f and the spreading rule follow the project's own derivation
and proof** (docs/algorithms.md §6, "Adaptive weighting (MAD-style)"), reproduced in
:func:`mad_weights`.  Any change to the rule needs a new proof and the exhaustive neighbour audit
of ``tests/mechanisms/set_union``.

Examples
--------
Item 0 is far above τ = 1.5, so part of its weight moves to item 1 (basic weighting would give
[3.4142, 1.4142]):

>>> from mechanisms.set_union._bounding import CappedSets
>>> sets = CappedSets.from_lists([[0, 1], [0, 1], [0], [0]], n_items=2)
>>> mad_weights(sets, d_max=2, tau=1.5).round(4).tolist()
[2.4856, 1.5285]
"""

from __future__ import annotations

import math

import numpy as np

from dpcount.common.rng import RNGLike
from dpcount.graph import PersonItemGraph
from dpcount.validation import check_nonnegative, check_positive_int
from mechanisms.declaration import register
from mechanisms.set_union._bounding import CappedSets
from mechanisms.set_union._release import (
    NO_WEIGHTS,
    check_common,
    single_round_result,
    threshold_loss,
)
from mechanisms.set_union.calibration import calibrate
from mechanisms.set_union.result import SetUnionResult

__all__ = ["mad_weights", "max_adaptive_degree", "reroute_fraction"]


def reroute_fraction(d_max: int) -> float:
    """f = 1/√d_max − 1/(2·d_max), the share of returned excess a person reroutes.

    It is κ_s/2 with κ_s = 2/√s − 1/s at s = d_max, the smallest over adaptive set sizes
    s ≤ d_max (docs/algorithms.md §6, proof sketch); f ≤ 1/2 for every d_max ≥ 1.

    Examples
    --------
    >>> reroute_fraction(1), reroute_fraction(4)
    (0.5, 0.375)
    """
    return 1.0 / math.sqrt(d_max) - 1.0 / (2.0 * d_max)


def mad_weights(sets: CappedSets, d_max: int, tau: float) -> np.ndarray:
    """Item weights of the adaptive weighting (docs/algorithms.md §6, steps 1–7 before the noise).

    Parameters
    ----------
    sets
        The capped sets (``|S_u|`` ≤ Δ0).
    d_max
        Persons with more than ``d_max`` items are non-adaptive.
    tau
        Truncation level τ of the adaptive part.

    Returns
    -------
    numpy.ndarray
        Weight of every item id.

    Notes
    -----
    1. Persons with ``|S_u|`` > d_max add 1/√``|S_u|`` to each item (basic weighting).
    2. Adaptive persons send 1/``|S_u|`` to each item: W_i.
    3. T_i = min(W_i, τ), excess E_i = W_i − T_i.
    4. Excess goes back in proportion to contribution: R_u = Σ_{i∈S_u} (1/``|S_u|``)·E_i/W_i.
    5. Each adaptive person spreads f·R_u uniformly over all of its items, f = 1/√d_max −
       1/(2·d_max).
    6. Each adaptive person adds 1/√``|S_u|`` − 1/``|S_u|`` to each of its items.
    7. w_i = T_i + rerouted + top-ups + non-adaptive weights.

    Sensitivity (project derivation).  Add a person v with s = ``|S_v|`` ≤ d_max: W rises by 1/s on
    S_v; E and E/W only rise, so every R_u rises; with a the truncated and b = 1 − a the
    excess part of v's mass, v's own change (ΔT plus top-up) has squared norm
    ≤ a/s + 2ca + sc² = 1 − b·κ_s (c = 1/√s − 1/s, κ_s = 2/√s − 1/s) and the reroute change
    has norm ≤ f·b, so ‖Δw‖₂ ≤ √(1 − bκ_s) + f·b ≤ 1 − bκ_s/2 + f·b ≤ 1 since f ≤ κ_s/2.
    A non-adaptive v changes only its own items, by a vector of norm 1.  Each of the t items
    held only by v weighs 1/√s + f·R_v/s with R_v ≤ (s − t)/s, which is ≤ 1/√t for f ≤ 1/2.
    So σ and ρ of the weighted Gaussian mechanism apply unchanged.  Spreading only over
    below-τ items would help more but breaks this proof.

    Examples
    --------
    >>> sets = CappedSets.from_lists([[0], [0], [0], [0, 1]], n_items=2)
    >>> mad_weights(sets, d_max=1, tau=10.0).round(4).tolist()
    [3.7071, 0.7071]
    """
    degrees = sets.degrees()
    person = sets.person_of_pair()
    deg = degrees[person].astype(float)  # |S_u| of the person of each pair (≥ 1)
    adaptive = degrees[person] <= d_max
    inv = 1.0 / deg
    w_adaptive = np.bincount(sets.indices[adaptive], weights=inv[adaptive], minlength=sets.n_items)
    truncated = np.minimum(w_adaptive, tau)
    excess_share = np.zeros(sets.n_items)
    held = w_adaptive > 0
    excess_share[held] = (w_adaptive[held] - truncated[held]) / w_adaptive[held]  # E_i/W_i
    returned = np.bincount(
        person[adaptive],
        weights=inv[adaptive] * excess_share[sets.indices[adaptive]],
        minlength=sets.n_persons,
    )  # R_u
    f = reroute_fraction(d_max)
    per_pair = np.where(
        adaptive,
        f * returned[person] * inv + (1.0 / np.sqrt(deg) - inv),  # steps 5 and 6
        1.0 / np.sqrt(deg),  # step 1
    )
    return truncated + np.bincount(sets.indices, weights=per_pair, minlength=sets.n_items)


max_adaptive_degree_loss = threshold_loss(
    "max_adaptive_degree",
    "adaptive-weighting set union (MAD-style, dpcount derivation)",
    "gaussian",
)


@register(
    family="set_union",
    loss=max_adaptive_degree_loss,
    engines=("local", "spark"),
    session=NO_WEIGHTS,
)
def max_adaptive_degree(
    graph: PersonItemGraph,
    epsilon: float,
    delta: float,
    *,
    max_items: int = 100,
    d_max: int | None = None,
    tau_offset: float = 3.0,
    rng: RNGLike = None,
    sampling: str = "uniform",
    return_weights: bool = False,
) -> SetUnionResult:
    """Set union with adaptive (MaxAdaptiveDegree-style) weighting and Gaussian noise.

    The spreading rule follows the project's derivation (docs/algorithms.md §6), not the full text
    of Chen et al. (2024), which is not available here; see :func:`mad_weights`.

    Parameters
    ----------
    graph
        Persons and the items they hold.
    epsilon, delta
        Privacy parameters, ε > 0 and δ ∈ (0, 1).
    max_items
        Δ0: persons with more items contribute a uniformly random Δ0 of them.
    d_max
        Maximum adaptive degree, 1 ≤ d_max ≤ Δ0 (default Δ0): persons with more capped items
        use basic weighting.  Larger d_max lets more persons adapt but lowers the reroute
        fraction f = 1/√d_max − 1/(2·d_max).  **[open]** no recommended value is available.
    tau_offset
        β_τ ≥ 0 in τ = ρ + β_τ·σ.  Items truncated at τ are still released with probability
        ≥ Φ(β_τ) (Chen et al. Thm 3.2, informal).  **[open]** the default 3 is ours.
    rng
        Randomness; child streams for the sampling and the noise.
    sampling
        ``"uniform"`` or ``"keyed"`` Δ0 sampling, the latter as the Spark engine
        (:mod:`mechanisms.spark`) does it (see
        :func:`~mechanisms.set_union._bounding.sample_contributions`); same guarantee.
    return_weights
        Also return the pre-noise weights (**not private**, for research).

    Returns
    -------
    SetUnionResult
        With ``cutoff`` = τ.

    Notes
    -----
    (ε, δ)-DP under adding or removing one person: the weights have ℓ2-sensitivity 1 and the
    t items held only by the added person weigh at most 1/√t (proof in :func:`mad_weights`),
    so σ (Balle–Wang at (ε, δ/2)) and ρ = max_t [1/√t + σ·Φ⁻¹((1−δ/2)^{1/t})] are those of the
    weighted Gaussian mechanism (Gopi Thm B.2).
    Accuracy: every item whose basic weight is below τ weighs at least as much as under basic
    weighting, and every other item at least τ; so each item is released with probability
    ≥ min(its probability under :func:`weighted_gaussian`, Φ(β_τ)).

    References
    ----------
    Chen, Cohen-Addad, Epasto, Zadimoghaddam, "Scalable Private Set Union Beyond Uniform
    Weighting" (2024).

    Examples
    --------
    >>> import warnings
    >>> from dpcount import PersonItemGraph
    >>> sets = {f"u{k}": {"a", "b"} for k in range(60)}
    >>> with warnings.catch_warnings(record=True) as caught:  # floating-point noise: it warns
    ...     warnings.simplefilter("always")
    ...     r = max_adaptive_degree(PersonItemGraph.from_sets(sets), 1.0, 1e-6, max_items=2, rng=0)
    >>> r.count, r.secure, caught[0].category.__name__
    (2, False, 'UnsafeNoiseWarning')
    """
    eps, dlt, delta0 = check_common(graph, epsilon, delta, max_items)
    dm = delta0 if d_max is None else check_positive_int(d_max, "d_max", maximum=delta0)
    beta = check_nonnegative(tau_offset, "tau_offset")
    calibration = calibrate("max_adaptive_degree", eps, dlt, delta0, tau_offset=beta, mode="float")
    tau = float(calibration.cutoff)  # type: ignore[arg-type]
    return single_round_result(
        graph,
        calibration,
        epsilon=eps,
        delta=dlt,
        max_items=delta0,
        rng=rng,
        sampling=sampling,
        weigh=lambda sets, _: mad_weights(sets, dm, tau),
        parameters={"d_max": dm, "tau_offset": beta},
        privacy_loss=max_adaptive_degree_loss(eps, dlt),
        return_weights=return_weights,
    )
