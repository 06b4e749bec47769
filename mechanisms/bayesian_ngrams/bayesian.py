"""BayesianDP (Ramadan, Withers & Orr, Algorithm 1): public counts as a Gaussian prior in log space.

The public counts α give the prior mean μ_p (Eq. 1), the clamped private counts c the
"observation" x̂ (Eq. 2); word-wise clipping w (Eq. 5) shrinks rare words towards the prior.
The release is θ = softmax(h) with h ~ N(μ_ps, σ_ps² I), μ_ps = ρ·w⊙x̂ + (1 − ρ)·μ_p and σ_ps
calibrated to the sensitivity γ of w⊙x̂ (Corollary 1).

Examples
--------
>>> import warnings
>>> from dpcount import PersonItemGraph
>>> g = PersonItemGraph.from_sets({f"u{k}": {"the cat": 1, "a dog": 2} for k in range(50)})
>>> public = {"the cat": 900, "a dog": 300, "my hat": 50}
>>> with warnings.catch_warnings():
...     warnings.simplefilter("ignore")
...     r = bayesian_dp(g, public, epsilon=0.5, delta=1e-6, clip_slope=1.0, max_count=1,
...                     private_weight=0.5, rng=0)
>>> r.labels.tolist()
['a dog', 'my hat', 'the cat']
>>> round(float(r.probabilities.sum()), 12), r.guarantee
(1.0, 'local sensitivity (not worst-case DP)')
"""

from __future__ import annotations

import math
import warnings
from typing import Any, Literal

import numpy as np
from scipy.special import softmax

from dpcount.common.rng import RNGLike, as_generator
from dpcount.errors import InvalidParameterError, PrivacyLeakWarning
from dpcount.graph import PersonItemGraph
from dpcount.validation import (
    check_choice,
    check_delta,
    check_epsilon,
    check_positive,
    check_positive_int,
    check_real_in,
    check_release_delta,
)
from mechanisms.accounting import PrivacyLoss
from mechanisms.bayesian_ngrams._data import (
    PublicCounts,
    clamp,
    private_counts,
    public_vocabulary,
    word_totals,
)
from mechanisms.bayesian_ngrams.discrete import discrete_calibration, release_exact
from mechanisms.bayesian_ngrams.result import LOCAL_SENSITIVITY, BayesianDPResult
from mechanisms.bayesian_ngrams.sensitivity import (
    brute_force_sensitivity,
    centered_log,
    claim1_bound,
    clip_weights,
)
from mechanisms.declaration import register
from mechanisms.noise import NoiseMode, warn_unsafe

__all__ = [
    "SENSITIVITY_METHODS",
    "bayesian_dp",
    "bayesian_dp_loss",
    "gaussian_noise_scale",
    "gaussian_release",
    "posterior_mean",
]

SensitivityMethod = Literal["brute_force", "bound"]
Calibration = Literal["classical", "analytic"]
SENSITIVITY_METHODS = ("brute_force", "bound")
CALIBRATIONS = ("classical", "analytic")
NOISE_MODES = ("exact", "float")


# --------------------------------------------------------------------------------------------
# Parameter checks (shared with tuning.py)
# --------------------------------------------------------------------------------------------


def check_clip_slope(value: Any, name: str = "clip_slope") -> float:
    """S > 0 and finite: the slope of the clipping weights wᵢ = min(1, S·Nᵢ/C) (Eq. 5)."""
    return check_positive(value, name)


def check_private_weight(value: Any, name: str = "private_weight") -> float:
    """ρ ∈ (0, 1]: the weight of the private log counts against the public prior."""
    return check_real_in(value, name, 0, 1, open_high=False, note="ρ = σ_l/(σ_l + σ_p)")


def check_calibration(calibration: Any, epsilon: float, noise: str = "float") -> str:
    """``"classical"`` needs ε < 1 (Dwork & Roth, Thm A.1); ``"analytic"`` works for any ε.

    Both calibrate the floating-point Gaussian; exact discrete noise has its own (zCDP,
    any ε; :mod:`mechanisms.bayesian_ngrams.discrete`), recorded as ``"discrete"``.
    """
    method = check_choice(calibration, "calibration", CALIBRATIONS)
    if check_choice(noise, "noise", NOISE_MODES) == "exact":
        return "discrete"
    if method == "classical" and epsilon >= 1:
        raise InvalidParameterError(
            f"the classical Gaussian calibration σ = Δ·√(2 ln(1.25/δ))/ε is proven only for "
            f"ε < 1, got epsilon={epsilon:g}; pass calibration='analytic' (Balle–Wang) for "
            "larger ε"
        )
    return method


# --------------------------------------------------------------------------------------------
# Pieces of Algorithm 1
# --------------------------------------------------------------------------------------------


def gaussian_noise_scale(
    private_weight: float,
    sensitivity: float,
    epsilon: float,
    delta: float,
    calibration: Calibration | str = "classical",
) -> float:
    """σ_ps for the ℓ2-sensitivity ρ·γ of μ_ps (ρ = ``private_weight``, γ = ``sensitivity``).

    ``"classical"``: σ_ps = ργ·√(2 ln(1.25/δ))/ε (Algorithm 1, Corollary 1; valid for ε < 1).
    ``"analytic"``: the smallest σ of the Balle–Wang analytic Gaussian mechanism for ℓ2-
    sensitivity ργ (any ε > 0; never larger than the classical σ).

    Examples
    --------
    >>> round(gaussian_noise_scale(0.5, 2.0, 0.5, 1e-5), 4)
    9.6896
    >>> gaussian_noise_scale(0.5, 2.0, 0.5, 1e-5, "analytic") < 9.6896
    True
    """
    l2 = private_weight * sensitivity
    if l2 == 0:
        return 0.0
    if calibration == "classical":
        return l2 * math.sqrt(2.0 * math.log(1.25 / delta)) / epsilon
    from mechanisms.set_union import gaussian_sigma

    return gaussian_sigma(epsilon, delta, l2)


def posterior_mean(
    x_hat: np.ndarray, weights: np.ndarray, prior_mean: np.ndarray, private_weight: float
) -> np.ndarray:
    """μ_ps = ρ·w⊙x̂ + (1 − ρ)·μ_p, ρ = ``private_weight`` (Corollary 1; Theorem 1 with w = 1)."""
    rho = private_weight
    return rho * weights * x_hat + (1.0 - rho) * prior_mean


def sensitivity_of(pc: Any, clip_slope: float, max_count: int, method: str) -> float:
    """γ by the brute-force method or Claim 1 (both data dependent)."""
    if method == "brute_force":
        return brute_force_sensitivity(pc, clip_slope, max_count)
    return claim1_bound(pc, clip_slope, max_count)


def warn_local(what: str, stacklevel: int = 3) -> None:
    """Warn that the noise was calibrated to a sensitivity taken from the data."""
    warnings.warn(
        f"{what} calibrates its noise to a sensitivity computed from the private data (the "
        "maximum over the persons present, or Claim 1's data-dependent bound): the nominal "
        "(epsilon, delta) is not a worst-case differential-privacy guarantee",
        PrivacyLeakWarning,
        stacklevel=stacklevel,
    )


def release(mean: np.ndarray, sigma: float, rng: np.random.Generator) -> np.ndarray:
    """θ = softmax(h), h ~ N(mean, σ² I) (Algorithm 1, last two lines; Eq. 4)."""
    h = mean + sigma * rng.standard_normal(mean.size)
    return softmax(h)


def gaussian_release(
    mean: np.ndarray,
    private_weight: float,
    sensitivity: float,
    epsilon: float,
    delta: float,
    calibration: str,
    rng: np.random.Generator,
) -> tuple[np.ndarray, float]:
    """(θ, σ_ps): the Gaussian step with ℓ2-sensitivity ρ·γ, exact unless ``calibration`` is a
    floating-point one (``"classical"`` or ``"analytic"``, from :func:`check_calibration`)."""
    if calibration == "discrete":
        exact = discrete_calibration(
            private_weight * sensitivity, epsilon, delta, dimension=mean.size
        )
        return release_exact(mean, exact, rng), exact.sigma
    sigma = gaussian_noise_scale(private_weight, sensitivity, epsilon, delta, calibration)
    return release(mean, sigma, rng), sigma


# --------------------------------------------------------------------------------------------
# Algorithm 1
# --------------------------------------------------------------------------------------------


def bayesian_dp_loss(
    epsilon: float, delta: float, *, sensitivity: str = "brute_force"
) -> PrivacyLoss:
    """The nominal (ε, δ) of :func:`bayesian_dp` (local sensitivity: not worst-case DP)."""
    method = check_choice(sensitivity, "sensitivity", SENSITIVITY_METHODS)
    return PrivacyLoss(
        check_epsilon(epsilon),
        check_delta(delta),
        "Bayesian n-gram distribution (Ramadan et al. Alg. 1); NOMINAL: noise calibrated to a "
        f"local sensitivity ({method}), not worst-case DP",
        worst_case=False,
    )


@register(family="ngrams", loss=bayesian_dp_loss, inputs=("public_counts",), nominal=True)
def bayesian_dp(
    graph: PersonItemGraph,
    public_counts: PublicCounts,
    epsilon: float,
    delta: float,
    *,
    clip_slope: float,
    max_count: int,
    private_weight: float,
    sensitivity: SensitivityMethod = "brute_force",
    calibration: Calibration = "classical",
    noise: NoiseMode = "exact",
    rng: RNGLike = None,
) -> BayesianDPResult:
    """Release a distribution over the public n-gram vocabulary (BayesianDP, Algorithm 1).

    Parameters
    ----------
    graph
        Persons and the n-grams they used, **with counts** (``graph.counts``; see
        :func:`dpcount.ngram_graph`).  N-grams outside the public vocabulary are dropped.
    public_counts
        The public data: ``{n-gram: count}`` or ``(labels, counts)``, counts ≥ 0.  Its labels
        are the vocabulary 𝒱 of the output (same label type as the graph's items).
    epsilon, delta
        Privacy parameters of the Gaussian mechanism (ε < 1 for the classical calibration).
    clip_slope
        S in the paper: the slope of the word-wise clipping weights wᵢ = min(1, S·Nᵢ/C)
        (Eq. 5), > 0.  Small values shrink rare n-grams towards the prior.
    max_count
        C in the paper: each person's count of each n-gram is clamped to C ≥ 1 (integer).
    private_weight
        ρ in the paper, in (0, 1]: the weight of the private log counts against the public
        prior, μ_ps = ρ·w⊙x̂ + (1 − ρ)·μ_p (ρ = 1: the private counts alone).  Not a zCDP ρ.
    sensitivity
        ``"brute_force"`` (exact change for each person present) or ``"bound"`` (Claim 1).
    calibration
        For ``noise="float"``: ``"classical"`` (the paper's σ_ps, ε < 1) or ``"analytic"``
        (Balle–Wang, any ε).  Exact noise has its own calibration (recorded ``"discrete"``).
    noise
        ``"exact"`` (default): μ_ps on a fixed-point grid plus exact discrete Gaussian noise
        (:mod:`mechanisms.bayesian_ngrams.discrete`), ``secure=True``.  ``"float"``: NumPy
        Gaussian noise as in the paper, for sweeps (warns, ``secure=False``).
    rng
        Randomness per docs/concepts.md (one Gaussian draw of size |𝒱|).

    Returns
    -------
    BayesianDPResult
        θ over 𝒱 (positive, sums to 1), σ_ps, γ, the parameters, the nominal privacy loss and
        ``guarantee = "local sensitivity (not worst-case DP)"``.

    Raises
    ------
    InvalidParameterError
        Bad ε, δ, ``clip_slope``, ``max_count``, ``private_weight``, method or calibration
        (classical with ε ≥ 1).
    DataError
        Graph without counts or persons, empty/negative public counts, vocabulary mismatch
        (other label type, or no private n-gram in the public vocabulary).

    Warns
    -----
    PrivacyLeakWarning
        Always: both sensitivity methods depend on the data.
    LargeDeltaWarning
        δ above the public bound of :func:`dpcount.validation.check_release_delta`.

    Notes
    -----
    Ramadan, Withers & Orr, "N-grams Bayesian Differential Privacy", Algorithm 1 with
    Eq. 1, 2, 5, Corollary 1 and Claim 1.  Neighbouring relation: remove one person with all
    their n-grams (the paper's §2.1).

    **Privacy guarantee — read this.**  σ_ps is calibrated to γ, which is either the maximum
    change of w⊙x̂ over the persons *present in the data* (brute force: a local sensitivity for
    removal) or Claim 1's bound, which also depends on the data (x̂, N).  A person who could
    be *added* is not covered, and the noise scale itself reveals something about the data.
    The recorded (ε, δ) therefore is the Gaussian mechanism's parameter at that local
    sensitivity, **not** a worst-case (ε, δ)-DP guarantee; no global bound on γ exists
    without further assumptions (x̂ is unbounded in the data size).  The noise is exact by
    default: discrete Gaussian on a fixed-point grid, calibrated through zCDP for the rounded
    vector's sensitivity (docs/algorithms.md §7); ``noise="float"`` adds NumPy Gaussian noise
    as in the paper.

    Deviations from the printed algorithm, all in the direction of a correct calibration:
    the brute force evaluates ‖w⊙x̂ − w₋ₙ⊙x̂₋ₙ‖₂ exactly instead of its Appendix-A rewrite;
    Claim 1 uses the exact weight drop (the printed indicator 𝟙(N ≤ C/S) can undercut γ);
    μ_ps uses the clipped w⊙x̂ as in Corollary 1 (Algorithm 1's last lines print ρ·x̂).

    Accuracy: no guarantee is proven.  On generated Zipf corpora
    (benchmarks/results/bayesian_ngrams.md) it has a smaller KL divergence from the private
    distribution than the Laplace baselines of §4.2 for ε ≤ 0.2, and for all ε ≤ 0.9 unless
    the public data is far from the private data; it cannot beat the public distribution
    alone when both are drawn from the same law.

    References
    ----------
    O. Ramadan, J. Withers, D. Orr. "N-grams Bayesian Differential Privacy" (Microsoft).

    Examples
    --------
    >>> import warnings
    >>> from dpcount import PersonItemGraph
    >>> g = PersonItemGraph.from_pairs([1, 1, 2, 3], ["a", "b", "a", "c"], counts=[3, 1, 1, 1])
    >>> with warnings.catch_warnings(record=True) as caught:
    ...     warnings.simplefilter("always")
    ...     r = bayesian_dp(g, {"a": 10, "b": 5}, 0.9, 1e-5, clip_slope=1.0, max_count=1,
    ...                     private_weight=0.5, rng=1)
    >>> [w.category.__name__ for w in caught], r.distribution().keys()
    (['PrivacyLeakWarning'], dict_keys(['a', 'b']))
    >>> r.scale > 0, r.privacy_loss.epsilon, r.is_private, r.secure
    (True, 0.9, False, True)
    """
    eps = check_epsilon(epsilon)
    dlt = check_release_delta(delta)
    s_value = check_clip_slope(clip_slope)
    c_value = check_positive_int(max_count, "max_count")
    rho_value = check_private_weight(private_weight)
    method = check_choice(sensitivity, "sensitivity", SENSITIVITY_METHODS)
    calib = check_calibration(calibration, eps, noise)
    vocab = public_vocabulary(public_counts)
    pc = clamp(private_counts(graph, vocab), c_value)
    warn_local("bayesian_dp")
    if noise == "float":
        warn_unsafe("bayesian_dp")

    c, holders = word_totals(pc)
    x_hat = centered_log(c)  # Eq. 2
    weights = clip_weights(holders, s_value, c_value)  # Eq. 5
    gamma = sensitivity_of(pc, s_value, c_value, method)  # Alg. 1 brute force / Claim 1
    prior = centered_log(vocab.counts)  # Eq. 1
    mean = posterior_mean(x_hat, weights, prior, rho_value)
    # Corollary 1: σ for the ℓ2-sensitivity ρ·γ of μ_ps; then θ = softmax of the noisy mean.
    theta, sigma = gaussian_release(mean, rho_value, gamma, eps, dlt, calib, as_generator(rng))
    theta.flags.writeable = False
    loss = bayesian_dp_loss(eps, dlt, sensitivity=method)
    return BayesianDPResult(
        labels=vocab.labels,
        probabilities=theta,
        scale=sigma,
        sensitivity=gamma,
        sensitivity_method=method,
        epsilon=eps,
        delta=dlt,
        clip_slope=s_value,
        max_count=c_value,
        private_weight=rho_value,
        calibration=calib,
        privacy_loss=loss,
        guarantee=LOCAL_SENSITIVITY,
        secure=calib == "discrete",
    )
