"""EndToEndDP (Ramadan, Withers & Orr, Algorithm 2): private choice of (S, ρ), then BayesianDP.

The persons are split at random into a tuning set U₁ and a release set U₂.  For every (S, ρ)
of a public grid, U₂ gives the posterior mean μ_ps (Algorithm 1) and U₁ scores it by the
un-normalised cross-entropy q = −Σᵢ c₁ᵢ·log softmax(μ_ps)ᵢ (Eq. 6).  A Laplace noisy-min
(Theorem 2) picks one pair with ε₁; the Gaussian release on U₂ at that pair spends (ε₂, δ).

Examples
--------
>>> import numpy as np
>>> scores = np.array([0.0, 1.0, 3.0])
>>> p = noisy_argmin_probabilities(scores, scale=1.0)
>>> np.round(p, 4).tolist(), round(float(p.sum()), 9)
([0.7042, 0.2645, 0.0313], 1.0)
>>> noisy_argmin(scores, scale=1.0, rng=0, size=5).tolist()
[0, 0, 0, 2, 1]
"""

from __future__ import annotations

import math
import numbers
from collections.abc import Sequence
from typing import Any

import numpy as np
from scipy import integrate
from scipy.special import log_softmax

from dpcount.common.rng import RNGLike, as_generator, spawn
from dpcount.errors import InvalidParameterError
from dpcount.graph import PersonItemGraph
from dpcount.validation import (
    check_choice,
    check_delta,
    check_epsilon,
    check_positive_int,
    check_real_in,
    check_release_delta,
)
from mechanisms.accounting import PrivacyLoss
from mechanisms.bayesian_ngrams._data import (
    PrivateCounts,
    PublicCounts,
    clamp,
    private_counts,
    public_vocabulary,
    restrict_persons,
    word_totals,
)
from mechanisms.bayesian_ngrams.bayesian import (
    SENSITIVITY_METHODS,
    Calibration,
    SensitivityMethod,
    check_calibration,
    check_clip_slope,
    check_private_weight,
    gaussian_release,
    posterior_mean,
    sensitivity_of,
    warn_local,
)
from mechanisms.bayesian_ngrams.result import LOCAL_SENSITIVITY, BayesianDPResult, TuningReport
from mechanisms.bayesian_ngrams.sensitivity import centered_log, clip_weights
from mechanisms.declaration import register
from mechanisms.noise import NoiseMode, warn_unsafe
from mechanisms.selection import exponential_mechanism

__all__ = [
    "DEFAULT_CLIP_SLOPES",
    "DEFAULT_PRIVATE_WEIGHTS",
    "cross_entropy_score",
    "end_to_end_dp",
    "end_to_end_dp_loss",
    "local_score_lipschitz",
    "noisy_argmin",
    "noisy_argmin_probabilities",
    "score_lipschitz",
]

#: S ∈ [10⁻³, 10⁴] as in the paper's §4.3, one value per decade.
DEFAULT_CLIP_SLOPES: tuple[float, ...] = (1e-3, 1e-2, 1e-1, 1.0, 10.0, 100.0, 1e3, 1e4)
#: A grid of ρ over (0, 1) (the paper does not list its ρ grid).
DEFAULT_PRIVATE_WEIGHTS: tuple[float, ...] = (0.1, 0.3, 0.5, 0.7, 0.9)


def cross_entropy_score(counts: np.ndarray, mean: np.ndarray) -> float:
    """q(c, μ_ps) = −Σᵢ cᵢ·(μ_psᵢ − log Σⱼ exp μ_psⱼ) (Eq. 6).

    Examples
    --------
    >>> round(cross_entropy_score(np.array([1.0, 1.0]), np.zeros(2)), 6)  # 2·log 2
    1.386294
    """
    return -float(np.dot(counts, log_softmax(mean)))


def score_lipschitz(counts: np.ndarray) -> float:
    """Lipschitz constant of q(c, ·) in μ_ps, w.r.t. ℓ2, everywhere: sup over θ of ‖ ‖c‖₁θ − c ‖₂.

    Notes
    -----
    [derived] ∂q/∂μ_k = ‖c‖₁·θ_k − c_k with θ = softmax(μ).  The norm is convex in θ, so its
    supremum over the simplex is at a vertex: √(‖c‖₁² − 2‖c‖₁·minₖ cₖ + ‖c‖₂²).  Claim 2 prints
    ρ‖c‖₂ (as a constant in r, where μ_ps = ρ·r + const): its derivative drops the ‖c‖₁θ term,
    and ‖c‖₂ can be far below the true constant (c = (K, 0, …) against θ = e₂ gives √2·K).

    Examples
    --------
    >>> round(score_lipschitz(np.array([3.0, 0.0])), 6)  # √(9 + 9)
    4.242641
    """
    total = float(counts.sum())
    value = total * total - 2.0 * total * float(counts.min()) + float(np.dot(counts, counts))
    return math.sqrt(max(value, 0.0))


def local_score_lipschitz(counts: np.ndarray, theta: np.ndarray, radius: float) -> float:
    """Lipschitz constant of q(c, ·) on the ℓ2 ball of ``radius`` around μ, θ = softmax(μ).

    Notes
    -----
    [derived] Along a segment from μ of length ≤ r the gradient ‖c‖₁θₜ − c moves by at most
    ‖c‖₁·‖θₜ − θ‖₂ ≤ ‖c‖₁·r/2, because softmax is ½-Lipschitz in ℓ2 (its Jacobian
    diag(θ) − θθᵀ has quadratic form Var_θ(v) ≤ ¼(max v − min v)² ≤ ½‖v‖₂², Popoviciu).  So
    the constant is min(‖ ‖c‖₁θ − c ‖₂ + ‖c‖₁·r/2, :func:`score_lipschitz`).  With r = ρ·γ it
    bounds |Δq| for every removal that γ covers; it depends on μ, i.e. on the data.

    Examples
    --------
    >>> c, theta = np.array([3.0, 1.0]), np.array([0.75, 0.25])
    >>> local_score_lipschitz(c, theta, radius=0.1)  # gradient 0 at μ: only the ball counts
    0.2
    """
    total = float(counts.sum())
    at_mean = float(np.linalg.norm(total * theta - counts))
    return min(at_mean + 0.5 * total * radius, score_lipschitz(counts))


def noisy_argmin(
    scores: np.ndarray, scale: float, rng: RNGLike = None, size: int | None = None
) -> int | np.ndarray:
    """argminₖ (qₖ + ηₖ), ηₖ ~ Laplace(scale) i.i.d. (Theorem 2; Algorithm 2, selection).

    With ``scale = 2|Δq|/ε`` and one common |Δq| ≥ every score's sensitivity this is ε-DP
    (Theorem 2; report-noisy-max for scores that need not be monotone).  ``size`` draws many
    independent selections at once (for tests).
    """
    q = np.asarray(scores, dtype=np.float64)
    gen = as_generator(rng)
    shape = q.shape if size is None else (size, q.size)
    noisy = q + gen.laplace(0.0, scale, shape)
    choice = np.argmin(noisy, axis=-1)
    return int(choice) if size is None else choice


def _select(
    scores: np.ndarray, sensitivity: float, epsilon: float, exact: bool, rng: np.random.Generator
) -> int:
    """The index of the candidate chosen: exact exponential mechanism, or Laplace noisy-min."""
    if not exact:
        return int(noisy_argmin(scores, 2.0 * sensitivity / epsilon, rng))
    if sensitivity == 0:  # the scores do not depend on anyone: the best one, as noisy-min
        return int(np.argmin(scores))
    return exponential_mechanism(-scores, epsilon, sensitivity, rng=rng)


def noisy_argmin_probabilities(scores: np.ndarray, scale: float) -> np.ndarray:
    """P[noisy_argmin(scores, scale) = k] for every k, by numerical integration.

    P[k] = ∫ f(y − qₖ)·Π_{j≠k} P[ηⱼ > y − qⱼ] dy with the Laplace density f and tail.
    Accurate to ~1e-10 (quad with breakpoints at the scores).  Ties have probability 0 for
    scale > 0; for scale = 0 the first smallest score wins.
    """
    q = np.asarray(scores, dtype=np.float64)
    if scale == 0:
        out = np.zeros(q.size)
        out[int(np.argmin(q))] = 1.0
        return out
    b = float(scale)

    def log_tail(t: np.ndarray | float) -> np.ndarray:  # log P[η > t]
        t = np.asarray(t, dtype=np.float64)
        return np.where(
            t < 0,
            np.log1p(-0.5 * np.exp(np.minimum(t, 0) / b)),
            math.log(0.5) - np.maximum(t, 0) / b,
        )

    low, high = q.min() - 60 * b, q.max() + 60 * b
    points = np.unique(q)
    out = np.empty(q.size)
    for k in range(q.size):
        others = np.delete(q, k)

        def integrand(y: float, k: int = k, others: np.ndarray = others) -> float:
            log_density = -abs(y - q[k]) / b - math.log(2 * b)
            return math.exp(log_density + float(np.sum(log_tail(y - others))))

        out[k] = integrate.quad(
            integrand, low, high, points=points, limit=500, epsabs=1e-13, epsrel=1e-11
        )[0]
    return out


def _check_grid(values: Sequence[float], name: str, check: Any) -> tuple[float, ...]:
    if isinstance(values, numbers.Real) or len(values) == 0:
        raise InvalidParameterError(f"{name} must be a non-empty sequence of numbers")
    return tuple(check(v, name) for v in values)


def split_persons(
    n_persons: int, fraction: float, rng: np.random.Generator
) -> tuple[np.ndarray, np.ndarray]:
    """A uniformly random split of person ids into a tuning set (≈ fraction·n) and the rest.

    The split depends on nothing but n and the randomness, so the two sets are disjoint parts
    of the data as Theorem 2 needs.
    """
    if n_persons < 2:
        raise InvalidParameterError(
            f"end_to_end_dp splits the persons into two sets and needs at least 2, got {n_persons}"
        )
    n_tune = min(n_persons - 1, max(1, round(fraction * n_persons)))
    order = rng.permutation(n_persons)
    return np.sort(order[:n_tune]), np.sort(order[n_tune:])


def _tuning_sensitivity_set1(
    tune: PrivateCounts, log_theta: np.ndarray, C: int, method: str
) -> float:
    """|Δq| for a change of U₁ with μ_ps fixed (Claim 2, first term).

    Brute force: the largest Σᵢ Δc₁ᵢⁿ·|log θᵢ| over tuning persons (local, removal).  Bound:
    C·Σᵢ |log θᵢ| — worst case for adding or removing anyone with counts ≤ C.
    """
    if method == "bound":
        return C * float(np.abs(log_theta).sum())
    per_person = np.bincount(
        tune.person, weights=tune.count * -log_theta[tune.word], minlength=tune.n_persons
    )
    return float(per_person.max(initial=0.0))


def end_to_end_dp_loss(
    epsilon_tune: float,
    epsilon_release: float,
    delta: float,
    *,
    sensitivity: str = "brute_force",
) -> PrivacyLoss:
    """The nominal (ε₁ + ε₂, δ) of :func:`end_to_end_dp` (not worst-case DP)."""
    method = check_choice(sensitivity, "sensitivity", SENSITIVITY_METHODS)
    tune = PrivacyLoss(
        check_epsilon(epsilon_tune), 0.0, "Laplace noisy-min over (S, rho) (Alg. 2, Thm 2)"
    )
    release = PrivacyLoss(
        check_epsilon(epsilon_release),
        check_delta(delta),
        "Gaussian release (Alg. 1)",
        worst_case=False,
    )
    return tune.compose(
        release,
        description="Bayesian n-gram distribution with private tuning (Ramadan et al. Alg. 2); "
        f"NOMINAL: noise calibrated to local sensitivities ({method}), not worst-case DP",
    )


@register(family="ngrams", loss=end_to_end_dp_loss, inputs=("public_counts",), nominal=True)
def end_to_end_dp(
    graph: PersonItemGraph,
    public_counts: PublicCounts,
    epsilon_tune: float,
    epsilon_release: float,
    delta: float,
    *,
    max_count: int,
    clip_slopes: Sequence[float] = DEFAULT_CLIP_SLOPES,
    private_weights: Sequence[float] = DEFAULT_PRIVATE_WEIGHTS,
    sensitivity: SensitivityMethod = "brute_force",
    tuning_fraction: float = 0.1,
    calibration: Calibration = "classical",
    noise: NoiseMode = "exact",
    rng: RNGLike = None,
) -> BayesianDPResult:
    """Choose (S, ρ) privately and release the Bayesian n-gram distribution (Algorithm 2).

    Parameters
    ----------
    graph, public_counts, max_count, sensitivity, calibration
        As for :func:`bayesian_dp`.
    epsilon_tune
        ε₁ of the Laplace noisy-min over the grid (the paper spends ε/3 here).
    epsilon_release
        ε₂ of the Gaussian release (the paper: 2ε/3; ε₂ < 1 for the classical calibration).
    delta
        δ of the Gaussian release.
    clip_slopes, private_weights
        The candidate values of S (``clip_slope``) and ρ (``private_weight``) of
        :func:`bayesian_dp`.  The grid is their Cartesian product (S outer, ρ inner), fixed
        before seeing the data.
    tuning_fraction
        Share of persons in the tuning set U₁ (the paper: 10%), drawn uniformly at random.
    noise
        ``"exact"`` (default): the choice of (S, ρ) by the exponential mechanism with exact
        coins, and the release as in :func:`bayesian_dp` (exact discrete Gaussian).
        ``"float"``: the paper's Laplace noisy-min and NumPy Gaussian noise, for sweeps
        (warns, ``secure=False``).
    rng
        Randomness per docs/concepts.md; the split, the Laplace noise and the Gaussian noise
        use independent child streams.

    Returns
    -------
    BayesianDPResult
        θ over the public vocabulary from the release set at the chosen (S, ρ); ``tuning``
        holds the grid, the choice, b and |Δq|; ``privacy_loss`` is (ε₁ + ε₂, δ) by basic
        composition, nominal as explained below.

    Raises
    ------
    InvalidParameterError
        Bad ε₁, ε₂, δ, ``max_count``, grid values, fraction, method or calibration; fewer
        than 2 persons.
    DataError
        As for :func:`bayesian_dp`.

    Warns
    -----
    PrivacyLeakWarning
        Always: the score sensitivity and σ_ps depend on the data.

    Notes
    -----
    Ramadan, Withers & Orr, Algorithm 2, Eq. 6, Theorem 2 and Claim 2.  U₁ and U₂ are disjoint,
    so removing a person changes either c₁ (the scores' counts) or μ_ps (the candidates), and
    |Δq| is the larger of the two effects (Theorem 2, second part):

    * U₂: |Δq| ≤ L·ρ·γ with γ of Algorithm 1 on U₂ (so ‖Δμ_ps‖₂ ≤ ργ) and L the Lipschitz
      constant of q(c₁, ·) on that ball, ‖ ‖c₁‖₁θ − c₁ ‖₂ + ‖c₁‖₁ργ/2 capped by its global
      value (:func:`local_score_lipschitz`, :func:`score_lipschitz`); the paper's ρ‖c₁‖₂ is
      not a valid constant;
    * U₁: the largest Σᵢ Δc₁ᵢⁿ·|log θᵢ| over tuning persons (brute force) or C·Σᵢ|log θᵢ|
      (``sensitivity="bound"``, Claim 2).

    Theorem 2's proof needs **one** noise scale for all candidates, so b = 2·maxₖ|Δqₖ|/ε₁
    (Algorithm 2 prints a per-candidate |Δq|).  The exact default replaces the Laplace
    noisy-min by the exponential mechanism P[k] ∝ exp(−qₖ/b) (McSherry & Talwar 2007; ε₁-DP
    for scores of sensitivity maxₖ|Δqₖ|, as Theorem 2's selection is), drawn with exact coins
    (:func:`mechanisms.selection.exponential_mechanism`).  The guarantee is **not** worst-case
    DP: γ is a local sensitivity (brute force) or a data-dependent bound (Claim 1), L(c₁) and
    the U₁ brute force depend on the data too.  See :func:`bayesian_dp` for the release itself.

    Examples
    --------
    >>> import warnings
    >>> from dpcount import PersonItemGraph
    >>> sets = {f"u{k}": {"a b": 1 + k % 3, "b c": 1, f"x{k % 7}": 1} for k in range(200)}
    >>> g = PersonItemGraph.from_sets(sets)
    >>> public = {"a b": 500, "b c": 200, "x0": 10, "x1": 10, "zz": 40}
    >>> with warnings.catch_warnings():
    ...     warnings.simplefilter("ignore")
    ...     r = end_to_end_dp(g, public, 0.3, 0.6, 1e-6, max_count=1,
    ...                       clip_slopes=[0.1, 1.0], private_weights=[0.5, 0.9], rng=3)
    >>> len(r.tuning.grid), r.privacy_loss.epsilon, r.privacy_loss.delta
    (4, 0.9, 1e-06)
    >>> (r.clip_slope, r.private_weight) in r.tuning.grid
    True
    """
    eps_tune = check_epsilon(epsilon_tune, "epsilon_tune")
    eps_release = check_epsilon(epsilon_release, "epsilon_release")
    dlt = check_release_delta(delta)
    c_value = check_positive_int(max_count, "max_count")
    s_grid = _check_grid(clip_slopes, "clip_slopes", check_clip_slope)
    rho_grid = _check_grid(private_weights, "private_weights", check_private_weight)
    method = check_choice(sensitivity, "sensitivity", SENSITIVITY_METHODS)
    calib = check_calibration(calibration, eps_release, noise)
    fraction = check_real_in(tuning_fraction, "tuning_fraction", 0, 1)
    vocab = public_vocabulary(public_counts)
    pc = clamp(private_counts(graph, vocab), c_value)  # Alg. 2, line 1
    rng_split, rng_tune, rng_release = spawn(rng, 3)
    tune_ids, release_ids = split_persons(pc.n_persons, fraction, rng_split)
    warn_local("end_to_end_dp")
    if noise == "float":
        warn_unsafe("end_to_end_dp")

    tune, rel = restrict_persons(pc, tune_ids), restrict_persons(pc, release_ids)
    c1, _ = word_totals(tune)
    c2, holders2 = word_totals(rel)
    x_hat2 = centered_log(c2)  # Eq. 2 on U₂
    prior = centered_log(vocab.counts)  # Eq. 1

    grid: list[tuple[float, float]] = []
    means: list[np.ndarray] = []
    gammas: list[float] = []
    scores: list[float] = []
    sens: list[float] = []
    for s_value in s_grid:
        weights = clip_weights(holders2, s_value, c_value)  # Eq. 5
        gamma = sensitivity_of(rel, s_value, c_value, method)  # γ does not depend on ρ
        for rho_value in rho_grid:
            mean = posterior_mean(x_hat2, weights, prior, rho_value)
            log_theta = log_softmax(mean)
            radius = rho_value * gamma  # ‖Δμ_ps‖₂ ≤ ρ·γ (Corollary 1)
            lipschitz = local_score_lipschitz(c1, np.exp(log_theta), radius)
            grid.append((s_value, rho_value))
            means.append(mean)
            gammas.append(gamma)
            scores.append(-float(np.dot(c1, log_theta)))  # Eq. 6
            sens.append(
                max(
                    lipschitz * radius,  # Claim 2, U₂ term (corrected constant)
                    _tuning_sensitivity_set1(tune, log_theta, c_value, method),  # Claim 2, U₁
                )
            )
    score_sens = max(sens)
    scale = 2.0 * score_sens / eps_tune  # Theorem 2: Lap(2|Δq|/ε₁)
    k = _select(np.array(scores), score_sens, eps_tune, calib == "discrete", rng_tune)

    s_best, rho_best = grid[k]
    theta, sigma = gaussian_release(
        means[k], rho_best, gammas[k], eps_release, dlt, calib, rng_release
    )
    theta.flags.writeable = False
    loss = end_to_end_dp_loss(eps_tune, eps_release, dlt, sensitivity=method)
    report = TuningReport(
        grid=tuple(grid),
        selected=k,
        epsilon=eps_tune,
        scale=scale,
        score_sensitivity=score_sens,
        tuning_fraction=fraction,
    )
    return BayesianDPResult(
        labels=vocab.labels,
        probabilities=theta,
        scale=sigma,
        sensitivity=gammas[k],
        sensitivity_method=method,
        epsilon=eps_release,
        delta=dlt,
        clip_slope=s_best,
        max_count=c_value,
        private_weight=rho_best,
        calibration=calib,
        privacy_loss=loss,
        guarantee=LOCAL_SENSITIVITY,
        tuning=report,
        secure=calib == "discrete",
    )
