"""One calibration per set-union mechanism: noise kind, scale, threshold, cutoff, rounds.

Every engine asks :func:`calibrate` for the numbers that make a release (ε, δ)-DP — the local
mechanisms in this package and the Spark adapter alike — so each privacy formula is written
once.  The formulas themselves live in :mod:`mechanisms.set_union.thresholds`; this module
decides, per mechanism, which sensitivity and which share of δ each one gets.

==========================  ======================================================  ========
mechanism                   scale and threshold                                     paper
==========================  ======================================================  ========
``count_laplace``           b = Δ0/ε;  ρ with novel weight 1 (t = Δ0)               Gopi A.1
``count_gaussian``          σ = √Δ0·σ₁(ε, δ/2);  ρ with novel weight 1              Gopi A.2
``weighted_laplace``        b = 1/ε;  ρ = max_t [1/t + …]                           Gopi B.1
``weighted_gaussian``       σ = σ₁(ε, δ/2);  ρ = max_t [1/√t + …]                   Gopi B.2
``policy_laplace``          as weighted Laplace;  Γ = ρ + α·b                       Gopi 4.1
``policy_gaussian``         as weighted Gaussian;  Γ = ρ + α·σ                      Gopi 5.1
``max_adaptive_degree``     as weighted Gaussian;  τ = ρ + β_τ·σ                    ours
``dp_sips``                 σ_i = σ/√s_i, ρ_i at δ_i = s_i·δ/2, per round           Swanberg
==========================  ======================================================  ========

σ₁(ε, δ) is the Balle–Wang σ for ℓ2-sensitivity 1 (:func:`~.thresholds.gaussian_sigma`).
These are the continuous forms (``mode="float"``).  The exact forms (``mode="exact"``, the
default; :data:`EXACT` mechanisms) apply the same sensitivities and δ split to integer weights
in units of 2⁻ᵏ, with discrete noise and the discrete bounds of
:mod:`~mechanisms.set_union.fixed_point`.

Examples
--------
>>> c = calibrate("weighted_gaussian", 1.0, 1e-5, 10, mode="float")
>>> c.noise, round(c.scale, 4), round(c.threshold, 4), c.cutoff
('gaussian', 3.8841, 19.316, None)
>>> e = calibrate("weighted_gaussian", 1.0, 1e-5, 10)  # exact: discrete noise, integer ρ
>>> round(e.scale, 4), e.exact.bits, e.exact.threshold, e.secure
(4.1962, 11, 42684, True)
>>> [round(r.scale, 3) for r in calibrate("dp_sips", 1.0, 1e-5, 10, mode="float").rounds]
[15.264, 8.361, 4.579]
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping
from dataclasses import dataclass, replace
from fractions import Fraction
from functools import lru_cache
from typing import Literal

import numpy as np

from dpcount.errors import InvalidParameterError
from dpcount.validation import (
    check_choice,
    check_delta,
    check_epsilon,
    check_nonnegative,
    check_positive_int,
)
from mechanisms.noise import NoiseMode
from mechanisms.set_union import fixed_point, thresholds

__all__ = [
    "EXACT",
    "MAX_ROUNDS",
    "MECHANISMS",
    "WEIGHTINGS",
    "Calibration",
    "Noise",
    "RoundCalibration",
    "calibrate",
    "round_shares",
    "zcdp_statement",
]

Noise = Literal["laplace", "gaussian"]

#: The set-union mechanisms this module calibrates (the greedy policy is not private).
MECHANISMS = (
    "count_laplace",
    "count_gaussian",
    "weighted_laplace",
    "weighted_gaussian",
    "policy_laplace",
    "policy_gaussian",
    "max_adaptive_degree",
    "dp_sips",
)
#: The mechanisms with an exact form (fixed-point weights, discrete noise); Policy Gaussian and
#: the adaptive weighting run with floating-point noise only, for now (docs/algorithms.md §6).
EXACT = (
    "count_laplace",
    "count_gaussian",
    "weighted_laplace",
    "weighted_gaussian",
    "policy_laplace",
    "dp_sips",
)
#: The largest cutoff Γ in units the integer ℓ1-descent accepts (its sums stay in int64).
MAX_CUTOFF_UNITS = 2**52
#: The weightings of a DP-SIPS round: weighted Gaussian (Gopi Alg. 8) or the adaptive one (MAD).
WEIGHTINGS = ("basic", "mad")
#: Most rounds DP-SIPS runs (each is a full pass over the data; the paper uses R ≤ 10).
MAX_ROUNDS = 1000

_NOISE: Mapping[str, Noise] = {
    "count_laplace": "laplace",
    "weighted_laplace": "laplace",
    "policy_laplace": "laplace",
}


@dataclass(frozen=True)
class Exact:
    """The integer form of a release (``noise="exact"``): weights in units of 2⁻ᵏ.

    Attributes
    ----------
    bits
        k: a contribution of real weight x counts ⌊x·2ᵏ⌋ units (counts: k = 0).
    parameter
        The discrete Laplace scale s or the discrete Gaussian σ² in units, exactly.
    threshold
        ρ in units: an item is released when its units plus the noise exceed it.
    cutoff
        Γ in units for Policy Laplace, else None.
    """

    bits: int
    parameter: Fraction
    threshold: int
    cutoff: int | None = None


@dataclass(frozen=True)
class RoundCalibration:
    """One DP-SIPS round: σ_i, ρ_i, the adaptive cutoff τ_i (or None) and its novel-item δ_i
    (and the round's integer form with exact noise)."""

    scale: float
    threshold: float
    cutoff: float | None
    delta_novel: float
    exact: Exact | None = None


@dataclass(frozen=True)
class Calibration:
    """What makes one set-union release (ε, δ)-DP, from its parameters alone.

    Attributes
    ----------
    mechanism
        The mechanism's name.
    noise
        ``"laplace"`` or ``"gaussian"``.
    scale
        Laplace scale b or Gaussian σ, in the mechanism's weight units (of the last round for
        DP-SIPS).
    threshold
        Release threshold ρ (of the last round for DP-SIPS).
    cutoff
        Γ of a policy, τ of the adaptive weighting (of the last round for DP-SIPS), else None.
    rounds
        The per-round calibration of DP-SIPS (empty otherwise).
    exact
        The integer form with exact discrete noise, or None for floating-point noise.
    """

    mechanism: str
    noise: Noise
    scale: float
    threshold: float
    cutoff: float | None = None
    rounds: tuple[RoundCalibration, ...] = ()
    exact: Exact | None = None

    @property
    def secure(self) -> bool:
        """Whether the release draws exact discrete noise (every round for DP-SIPS)."""
        return self.exact is not None


def round_shares(rounds: int, ratio: float) -> np.ndarray:
    """Budget share of each DP-SIPS round, ∝ ratio^(R−1−i) for i = 0..R−1 (docs/algorithms.md §6).

    With ratio < 1 the last round gets the most.  Shares sum to 1.

    Examples
    --------
    >>> round_shares(3, 0.3).round(3).tolist()
    [0.065, 0.216, 0.719]
    >>> round_shares(2, 1.0).tolist()
    [0.5, 0.5]
    """
    r = check_positive_int(rounds, "rounds", maximum=MAX_ROUNDS)
    q = check_epsilon(ratio, "ratio")  # finite and > 0
    raw = q ** np.arange(r - 1, -1, -1, dtype=float)
    return raw / raw.sum()


def calibrate(
    mechanism: str,
    epsilon: float,
    delta: float,
    max_items: int,
    *,
    alpha: float = 5.0,
    tau_offset: float = 3.0,
    rounds: int = 3,
    ratio: float = 0.3,
    weighting: str = "basic",
    mode: NoiseMode = "exact",
) -> Calibration:
    """The noise, scale, threshold and cutoff that make ``mechanism`` (ε, δ)-DP.

    Parameters
    ----------
    mechanism
        One of :data:`MECHANISMS`.
    epsilon, delta
        The privacy parameters of the whole release, ε > 0 and δ ∈ (0, 1).
    max_items
        Δ0, the most items one person contributes.
    alpha
        The policies' cutoff offset α ≥ 0: Γ = ρ + α·(b or σ).
    tau_offset
        The adaptive weighting's β_τ ≥ 0: τ = ρ + β_τ·σ (also per DP-SIPS round with MAD).
    rounds, ratio, weighting
        DP-SIPS: R rounds with budget shares :func:`round_shares` and ``"basic"`` or ``"mad"``
        weighting.
    mode
        ``"exact"``: fixed-point weights and exact discrete noise (:data:`EXACT` mechanisms
        only); ``"float"``: real weights and continuous noise, as in the papers.

    Returns
    -------
    Calibration
        ``scale`` and ``threshold`` in weight units (for ``"exact"``: the integer numbers of
        :attr:`Calibration.exact` divided by 2ᵏ).

    Notes
    -----
    Laplace mechanisms have ℓ1-sensitivity 1 (Δ0 for counts) and spend all of δ on items held
    only by the added person (Gopi Thm 4.1, A.1, B.1).  Gaussian mechanisms spend δ/2 on the
    Gaussian mechanism over the items both neighbours hold (Balle & Wang 2018, Thm 8) and δ/2
    on the novel items (Gopi Thm 5.1, A.2, B.2).  DP-SIPS gives round i the share s_i of μ² and
    of δ/2: σ_i = σ/√s_i, so the rounds compose to μ = 1/σ Gaussian DP (Dong, Roth & Su 2022,
    Cor. 3.3), which is (ε, δ/2)-DP by the Balle–Wang curve, and its novel items are released
    with probability at most δ_i = s_i·δ/2.  With exact noise the same split holds with the
    discrete mechanisms' own bounds (:mod:`~mechanisms.set_union.fixed_point`): discrete
    Laplace of scale ≥ Δ1/ε, discrete Gaussian σ from zCDP (DP-SIPS: the rounds' ρ_i add up to
    ρ), integer thresholds from the discrete tails.

    Examples
    --------
    >>> c = calibrate("policy_laplace", 1.0, 1e-6, 5, alpha=2.0, mode="float")
    >>> c.noise, c.scale, round(c.cutoff - c.threshold, 12), c.secure
    ('laplace', 1.0, 2.0, False)
    >>> e = calibrate("weighted_laplace", 1.0, 1e-6, 5)
    >>> e.exact.bits, e.scale, e.threshold == e.exact.threshold / 2**26
    (26, 1.0, True)
    """
    name = check_choice(mechanism, "mechanism", MECHANISMS)
    eps, dlt = check_epsilon(epsilon), check_delta(delta)
    delta0 = check_positive_int(max_items, "max_items")
    exact = check_choice(mode, "noise", ("exact", "float")) == "exact"
    if (exact and name not in EXACT) or (exact and name == "dp_sips" and weighting == "mad"):
        raise InvalidParameterError(
            f"{name} has no exact-noise form yet (pass noise='float' for experiments)"
        )
    if name == "dp_sips":
        return _sips(eps, dlt, delta0, rounds, ratio, weighting, tau_offset, exact)
    noise = _NOISE.get(name, "gaussian")
    counts = name.startswith("count_")
    if exact:
        calibration = _exact(name, noise, counts, eps, dlt, delta0)
        if name == "policy_laplace":
            return _with_cutoff(calibration, check_nonnegative(alpha, "alpha"))
        return calibration
    # Counts: every capped item weighs 1, so one person moves the counts by Δ0 in ℓ1 and √Δ0
    # in ℓ2 and a novel item weighs 1 (Gopi Thm A.1/A.2 in count units).
    novel: thresholds.NovelWeight = "unit" if counts else "split"
    if noise == "laplace":
        scale = (delta0 if counts else 1.0) / eps  # Gopi Thm 4.1 / A.1 / B.1: b = Δ1/ε
        rho = thresholds.laplace_threshold(scale, dlt, delta0, novel_weight=novel)
    else:
        sensitivity = math.sqrt(delta0) if counts else 1.0
        scale = thresholds.gaussian_sigma(eps, dlt / 2, sensitivity=sensitivity)
        rho = thresholds.gaussian_threshold(scale, dlt, delta0, novel_weight=novel)
    cutoff = None
    if name.startswith("policy_"):  # Gopi Alg. 4 / 6: Γ = ρ + α·(b or σ)
        cutoff = rho + check_nonnegative(alpha, "alpha") * scale
    elif name == "max_adaptive_degree":  # τ = ρ + β_τ·σ (docs/algorithms.md §6)
        cutoff = rho + check_nonnegative(tau_offset, "tau_offset") * scale
    return Calibration(name, noise, scale, rho, cutoff)


def _exact_gaussian(sigma: float, share: Fraction, delta_novel: float, delta0: int) -> Exact:
    """The integer form of a weighted-Gaussian release whose noise has σ/√share at ℓ2 norm 1.

    k from the σ in weight units; σ_u² ≥ 4ᵏ·σ²/share (so ρ-zCDP with ρ ≤ share/(2σ²)); novel
    items weigh at most ⌊2ᵏ/√t⌋ units each (Gopi Thm 5.1 / B.2 with rounding down).
    """
    bits = fixed_point.unit_bits("gaussian", sigma / math.sqrt(share))
    variance = fixed_point.gaussian_variance_units(sigma, Fraction(4**bits) / share)
    full = 4**bits
    rho = fixed_point.discrete_threshold(
        "gaussian", variance, delta_novel, delta0, lambda t: math.isqrt(full // t)
    )
    return Exact(bits, variance, rho)


def _laplace_novel_units(name: str, full: int) -> Callable[[int], int]:
    """w(t), the most units each of t novel items weighs: 1 count, ⌊2ᵏ/t⌋ weighted, and
    ⌈2ᵏ/t⌉ for Policy Laplace, whose lattice ℓ1-descent may give one extra unit."""
    if name.startswith("count_"):
        return lambda t: 1
    if name == "policy_laplace":
        return lambda t: -(-full // t)
    return lambda t: full // t


@lru_cache(maxsize=512)  # public parameters only: many releases compute it once
def _exact(
    name: str, noise: Noise, counts: bool, eps: float, dlt: float, delta0: int
) -> Calibration:
    """Fixed-point form of a one-round mechanism (docs/algorithms.md §6, "Exact noise").

    Counts: k = 0, a person adds 1 to each of ≤ Δ0 items (ℓ1 Δ0, ℓ2² Δ0), a novel item weighs
    1.  Weighted: ⌊2ᵏ/d⌋ or ⌊2ᵏ/√d⌋ units per item (ℓ1 resp. ℓ2 ≤ 2ᵏ), a novel item of t
    weighs ≤ ⌊2ᵏ/t⌋ resp. ⌊2ᵏ/√t⌋ (Gopi Thm 4.1 / 5.1 / A.1 / A.2 / B.1 / B.2).
    """
    if noise == "laplace":
        bits = 0 if counts else fixed_point.unit_bits("laplace", 1.0 / eps)
        full = 1 << bits
        novel = _laplace_novel_units(name, full)
        # ε-DP discrete Laplace of scale ≥ Δ1/ε (Δ1 = Δ0 for counts, 2ᵏ units for weights).
        scale = fixed_point.laplace_scale_units(delta0 if counts else full, eps)
        rho = fixed_point.discrete_threshold("laplace", scale, dlt, delta0, novel)
        exact = Exact(bits, scale, rho)
        real_scale = float(scale) / full
    else:
        sigma = fixed_point.discrete_gaussian_sigma(eps, dlt / 2)  # zCDP, CKS20 Thm 4, Cor. 13
        if counts:  # ℓ2² = Δ0 in count units: σ_u² ≥ Δ0·σ²
            variance = fixed_point.gaussian_variance_units(sigma, delta0)
            rho = fixed_point.discrete_threshold("gaussian", variance, dlt / 2, delta0, lambda t: 1)
            exact = Exact(0, variance, rho)
        else:
            exact = _exact_gaussian(sigma, Fraction(1), dlt / 2, delta0)
        real_scale = math.sqrt(exact.parameter) / (1 << exact.bits)
    threshold = exact.threshold / (1 << exact.bits)
    return Calibration(name, noise, real_scale, threshold, exact=exact)


def _with_cutoff(calibration: Calibration, alpha: float) -> Calibration:
    """Policy Laplace's integer Γ_u = ρ_u + ⌈α·s_u⌉ (Gopi Alg. 4: Γ = ρ + α·b, in units)."""
    exact = calibration.exact
    assert exact is not None
    cutoff = exact.threshold + math.ceil(Fraction(alpha) * exact.parameter)
    if cutoff > MAX_CUTOFF_UNITS:
        raise InvalidParameterError(
            f"alpha = {alpha!r} puts the policy cutoff Γ beyond 2^52 units of the exact form; "
            "use a smaller alpha (the paper uses 2 to 6)"
        )
    unit = 1 << exact.bits
    return replace(calibration, cutoff=cutoff / unit, exact=replace(exact, cutoff=cutoff))


def _sips(
    eps: float,
    dlt: float,
    delta0: int,
    rounds: int,
    ratio: float,
    weighting: str,
    tau_offset: float,
    exact: bool,
) -> Calibration:
    """Per-round σ_i, ρ_i, τ_i, δ_i of DP-SIPS (see :func:`calibrate`)."""
    shares = round_shares(rounds, ratio)
    kind = check_choice(weighting, "weighting", WEIGHTINGS)
    beta = check_nonnegative(tau_offset, "tau_offset")
    if exact:
        return _exact_sips(eps, dlt, delta0, tuple(shares.tolist()))
    sigma = thresholds.gaussian_sigma(eps, dlt / 2)  # μ = 1/σ for the whole run
    if thresholds.balle_wang_delta(sigma, eps) > dlt / 2 * (1 + 1e-9):
        raise AssertionError("composed Gaussian DP does not meet δ/2")  # pragma: no cover
    out = []
    for share in shares.tolist():
        sigma_i = sigma / math.sqrt(share)  # μ_i² = s_i·μ²
        delta_novel = share * dlt / 2
        # The weighted-Gaussian ρ for "δ" = 2·δ_i bounds the novel-release probability by δ_i.
        rho_i = thresholds.gaussian_threshold(sigma_i, 2 * delta_novel, delta0)
        tau_i = rho_i + beta * sigma_i if kind == "mad" else None
        out.append(RoundCalibration(sigma_i, rho_i, tau_i, delta_novel))
    last = out[-1]
    return Calibration("dp_sips", "gaussian", last.scale, last.threshold, last.cutoff, tuple(out))


@lru_cache(maxsize=512)
def _exact_sips(eps: float, dlt: float, delta0: int, shares: tuple[float, ...]) -> Calibration:
    """DP-SIPS rounds on fixed-point weights: round i is ρ_i-zCDP with ρ_i ≤ s_i·ρ for exact
    rational shares s_i summing to 1, so the rounds compose to ρ (Bun & Steinke 2016,
    Lemma 2.3; adaptively), (ε, δ/2)-DP by CKS20 Cor. 13; round i's novel items get δ_i."""
    sigma = fixed_point.discrete_gaussian_sigma(eps, dlt / 2)
    raw = [Fraction(x) for x in shares]
    total = sum(raw, Fraction(0))
    out = []
    for part in raw:
        share = part / total  # exact: the shares sum to 1 exactly
        delta_novel = float(share) * dlt / 2 * (1 - 2**-40)  # Σ δ_i ≤ δ/2 despite rounding
        form = _exact_gaussian(sigma, share, delta_novel, delta0)
        unit = 1 << form.bits
        scale = math.sqrt(form.parameter) / unit
        out.append(RoundCalibration(scale, form.threshold / unit, None, delta_novel, form))
    last = out[-1]
    return Calibration(
        "dp_sips", "gaussian", last.scale, last.threshold, None, tuple(out), exact=last.exact
    )


def zcdp_statement(noise: Noise, epsilon: float, delta: float) -> tuple[float, float]:
    """(ρ, δ₀): the noise is ρ-zCDP on the items both neighbours hold, the threshold adds δ₀.

    Laplace mechanisms: pure ε-DP noise, ρ = ε²/2 (Bun & Steinke 2016, Prop. 1.4), and all of
    δ bounds the novel items (Gopi Thm A.1/B.1).  Gaussian ones, DP-SIPS included: σ is the
    Balle–Wang σ for (ε, δ/2) at sensitivity 1 (count: √Δ0 on both sides), so ρ = 1/(2σ²)
    (ibid. Prop. 1.6; DP-SIPS: μ = 1/σ over all rounds), and δ/2 bounds the novel items.

    Examples
    --------
    >>> zcdp_statement("laplace", 1.0, 1e-6)
    (0.5, 1e-06)
    """
    eps, dlt = check_epsilon(epsilon), check_delta(delta)
    if noise == "laplace":
        return (eps * eps / 2, dlt)  # ε²/2, ∞ beyond ε ≈ 1.3e154 (no OverflowError)
    if noise != "gaussian":
        raise InvalidParameterError(f"noise must be 'laplace' or 'gaussian', got {noise!r}")
    sigma = thresholds.gaussian_sigma(eps, dlt / 2)
    return (1 / (2 * sigma**2), dlt / 2)
