"""Differentially private set union (partition selection) on a person–item graph.

Release as many items (words, queries, …) of the union of all persons' sets as possible under
person-level (ε, δ)-DP.  Every mechanism caps each person at Δ0 = ``max_items`` sampled items,
builds a weight per item, adds Laplace or Gaussian noise and releases the items above a
threshold ρ (Gopi et al. 2020, Algorithm 1):

=========================  ==========================================================  =====
function                   weighting                                                   noise
=========================  ==========================================================  =====
``count_laplace``          +1 per item (ℓ1-sensitivity Δ0)                             Lap
``count_gaussian``         +1 per item (ℓ2-sensitivity √Δ0)                            N
``weighted_laplace``       +1/|W| per item (Gopi Alg. 7)                               Lap
``weighted_gaussian``      +1/√|W| per item (Gopi Alg. 8; "basic weighting")           N
``policy_laplace``         sequential ℓ1-descent (Gopi Alg. 3–4)                       Lap
``policy_gaussian``        sequential ℓ2-descent (Gopi Alg. 5–6)                       N
``max_adaptive_degree``    truncate and reroute excess (Chen et al. 2024; our proof)   N
``dp_sips``                R rounds of basic/adaptive weighting (Swanberg et al. 2023)  N
=========================  ==========================================================  =====

Each returns a :class:`SetUnionResult` with the released labels, σ or b, ρ, the cutoff and the
privacy loss.  By default the weights are integers in units of 2⁻ᵏ and the noise is exact
discrete Laplace or Gaussian (:mod:`~mechanisms.set_union.fixed_point`, ``secure=True``);
``noise="float"`` gives the papers' real-valued forms for experiments.  Policy Gaussian and MAD
have no exact form yet: they draw floating-point noise, warn
:class:`~dpcount.errors.UnsafeNoiseWarning` and record ``secure=False``.  The greedy policy of
Gopi Alg. 9 is not private and lives in :mod:`mechanisms.set_union.greedy_policy` as a teaching
example only.

Examples
--------
>>> from dpcount import PersonItemGraph
>>> from mechanisms.set_union import dp_sips
>>> sets = {f"user{k}": {"the", "a", f"name{k}"} for k in range(100)}
>>> r = dp_sips(PersonItemGraph.from_sets(sets), epsilon=1.0, delta=1e-6, max_items=3, rng=7)
>>> r.items.tolist(), r.secure
(['a', 'the'], True)
"""

from mechanisms.set_union.adaptive import max_adaptive_degree
from mechanisms.set_union.policy import policy_gaussian, policy_laplace
from mechanisms.set_union.result import SetUnionResult, SetUnionRound
from mechanisms.set_union.sips import dp_sips
from mechanisms.set_union.thresholds import (
    balle_wang_delta,
    gaussian_sigma,
    gaussian_threshold,
    laplace_threshold,
)
from mechanisms.set_union.weighted import (
    count_gaussian,
    count_laplace,
    weighted_gaussian,
    weighted_laplace,
)

__all__ = [
    "SetUnionResult",
    "SetUnionRound",
    "balle_wang_delta",
    "count_gaussian",
    "count_laplace",
    "dp_sips",
    "gaussian_sigma",
    "gaussian_threshold",
    "laplace_threshold",
    "max_adaptive_degree",
    "policy_gaussian",
    "policy_laplace",
    "weighted_gaussian",
    "weighted_laplace",
]
