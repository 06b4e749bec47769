"""Noise scales and release thresholds of the weight-and-threshold set-union mechanisms.

Every set-union mechanism here builds a weight per item, adds Laplace or Gaussian noise and
releases the items whose noisy weight exceeds a threshold ρ.  This module holds the formulas
that make that (ε, δ)-DP:

* Laplace, ℓ1-sensitivity 1 (weighted Laplace, Policy Laplace): scale b = 1/ε and
  ρ = max_{1≤t≤Δ0} [1/t + b·ln(1/(2(1−(1−δ)^{1/t})))]   (Gopi et al. 2020, Thm 4.1 / B.1).
* Gaussian, ℓ2-sensitivity 1 (weighted Gaussian, Policy Gaussian, MAD): the smallest σ with
  Φ(1/(2σ) − εσ) − e^ε Φ(−1/(2σ) − εσ) ≤ δ/2  (Balle & Wang 2018, Thm 8; Gopi Thm 5.1) and
  ρ = max_{1≤t≤Δ0} [1/√t + σ·Φ⁻¹((1−δ/2)^{1/t})]   (Gopi Thm 5.1 / B.2).
* ``novel_weight="unit"``: the general forms of Gopi Thm A.1 / A.2, where an item held only by
  the added person may carry weight up to 1 (used by the count mechanisms, in count units).

All tails are evaluated in log space (``log_ndtr``, ``expm1``, ``log1p``) so that δ down to
1e-300 works.  docs/algorithms.md §6 has the test vectors these functions are tested against.

Examples
--------
>>> import math
>>> round(gaussian_sigma(1.0, 1e-5), 5)
3.73063
>>> sigma = gaussian_sigma(3.0, math.exp(-10) / 2)
>>> round(sigma, 5), round(gaussian_threshold(sigma, math.exp(-10), 10), 4)
(1.33279, 6.4353)
>>> round(laplace_threshold(1 / 3, math.exp(-10), 10), 4)
4.1023
"""

from __future__ import annotations

import math
from typing import Literal

import numpy as np
from scipy.special import log_ndtr, ndtri

from dpcount.errors import InvalidParameterError
from dpcount.validation import check_delta, check_epsilon, check_positive_int

__all__ = [
    "NovelWeight",
    "balle_wang_delta",
    "gaussian_sigma",
    "gaussian_threshold",
    "laplace_threshold",
]

NovelWeight = Literal["split", "unit"]

# The max over t = 1..Δ0 is evaluated exactly, in chunks so that a large Δ0 stays in memory.
_CHUNK = 1 << 20


def _log_one_minus_exp(x: float) -> float:
    """log(1 − eˣ) for x < 0, accurate at both ends (Mächler 2012)."""
    if x > -math.log(2.0):
        return math.log(-math.expm1(x))
    return math.log1p(-math.exp(x))


def _log_balle_wang_delta(sigma: float, epsilon: float) -> float:
    """log δ(σ) of the Gaussian mechanism with ℓ2-sensitivity 1 (−inf when δ(σ) = 0)."""
    # Balle & Wang (2018) Thm 8 (Gopi Prop. 2.2): δ = Φ(a) − e^ε Φ(b) with
    # a = 1/(2σ) − εσ, b = −1/(2σ) − εσ; as exp(la)·(1 − exp(lb − la)), docs/algorithms.md §6.
    la = float(log_ndtr(0.5 / sigma - epsilon * sigma))
    lb = epsilon + float(log_ndtr(-0.5 / sigma - epsilon * sigma))
    if lb >= la:  # equal up to rounding: δ(σ) is below what float64 can resolve
        return -math.inf
    return la + _log_one_minus_exp(lb - la)


def balle_wang_delta(sigma: float, epsilon: float, sensitivity: float = 1.0) -> float:
    """The smallest δ for which N(0, σ²) noise makes a query (ε, δ)-DP.

    Parameters
    ----------
    sigma
        Standard deviation of the Gaussian noise (> 0).
    epsilon
        Privacy parameter ε (> 0).
    sensitivity
        ℓ2-sensitivity Δ2 of the query (> 0).

    Returns
    -------
    float
        δ(σ) = Φ(Δ2/(2σ) − εσ/Δ2) − e^ε·Φ(−Δ2/(2σ) − εσ/Δ2).

    Notes
    -----
    Balle & Wang (2018), Theorem 8; Gopi et al. (2020), Proposition 2.2.  The condition is
    necessary and sufficient.  With ``sigma = 1/μ`` it is also the (ε, δ) curve of μ-Gaussian
    DP (Dong, Roth & Su 2022, Cor. 2.13), which DP-SIPS uses to convert its composed budget.

    Examples
    --------
    >>> round(balle_wang_delta(3.730632, 1.0) * 1e5, 4)
    1.0
    """
    s = _check_positive_real(sigma, "sigma") / _check_positive_real(sensitivity, "sensitivity")
    log_delta = _log_balle_wang_delta(s, check_epsilon(epsilon))
    return math.exp(log_delta)


def gaussian_sigma(
    epsilon: float, delta: float, sensitivity: float = 1.0, *, rtol: float = 1e-12
) -> float:
    """The smallest Gaussian noise σ (up to ``rtol``) that is (ε, δ)-DP for ℓ2-sensitivity Δ2.

    Parameters
    ----------
    epsilon, delta
        Target privacy parameters, ε > 0 and δ ∈ (0, 1).  The set-union mechanisms pass δ/2
        here (Gopi Thm 5.1): the other δ/2 covers items held only by the added person.
    sensitivity
        ℓ2-sensitivity Δ2 (σ scales linearly with it).
    rtol
        Relative width of the final bracket.

    Returns
    -------
    float
        The upper end σ_hi of a bracket [σ_lo, σ_hi] with δ(σ_lo) > δ ≥ δ(σ_hi) and
        σ_hi/σ_lo − 1 ≤ rtol, so the returned σ always satisfies the guarantee.

    Notes
    -----
    δ(σ) is decreasing in σ (Gopi §5.2).  Bracket by doubling/halving from σ = 1, then bisect
    on log σ with a relative tolerance and return the upper end (docs/algorithms.md §6): the
    Balle–Wang reference stops on an absolute tolerance and returns too small a σ for small δ.

    Examples
    --------
    >>> round(gaussian_sigma(0.1, 1e-6), 4)
    36.3047
    >>> round(gaussian_sigma(1.0, 1e-5, sensitivity=2.0) / gaussian_sigma(1.0, 1e-5), 9)
    2.0
    """
    eps = check_epsilon(epsilon)
    log_target = math.log(check_delta(delta))
    scale = _check_positive_real(sensitivity, "sensitivity")
    if not 0 < rtol < 1:
        raise InvalidParameterError(f"rtol must lie in (0, 1), got {rtol!r}")

    def ok(s: float) -> bool:
        return _log_balle_wang_delta(s, eps) <= log_target

    hi = 1.0
    while not ok(hi):
        hi *= 2.0
    lo = hi / 2.0
    while ok(lo):
        hi, lo = lo, lo / 2.0
    while hi / lo - 1.0 > rtol:
        mid = math.sqrt(lo * hi)
        if ok(mid):
            hi = mid
        else:
            lo = mid
    if not ok(hi):  # pragma: no cover - the loop invariant makes this impossible
        raise AssertionError("Balle–Wang calibration returned a σ that misses δ")
    return hi * scale


def laplace_threshold(
    scale: float, delta: float, max_items: int, *, novel_weight: NovelWeight = "split"
) -> float:
    """Release threshold ρ for Laplace noise of scale ``b`` on an ℓ1-sensitivity-1 histogram.

    Parameters
    ----------
    scale
        Laplace scale b (1/ε for the weighted and policy mechanisms, Δ0/ε for count).
    delta
        The δ of the mechanism: items held only by the added person are released with
        probability at most δ.
    max_items
        Δ0, the most items one person contributes.
    novel_weight
        ``"split"``: each of the t items held only by the added person weighs at most 1/t
        (Gopi Thm 4.1, B.1).  ``"unit"``: at most 1 (Thm A.1; the count mechanisms).

    Returns
    -------
    float
        ρ = max_{1≤t≤Δ0} [w(t) + b·ln(1/(2(1−(1−δ)^{1/t})))], w(t) = 1/t or 1.

    Notes
    -----
    Gopi et al. (2020), proof of Thm 4.1, Eq. (2): the t novel items stay below ρ together
    with probability (1 − ½·exp(−(ρ − w)/b))^t ≥ 1 − δ.  ½·e^{−x/b} bounds the Laplace tail
    for every x, so the formula is valid for any δ ∈ (0, 1).  1−(1−δ)^{1/t} is computed as
    −expm1(log1p(−δ)/t).

    Examples
    --------
    >>> import math
    >>> round(laplace_threshold(1 / 3, math.exp(-10), 100), 4)
    4.6473
    >>> laplace_threshold(1.0, 0.5, 1, novel_weight="unit")
    1.0
    """
    b = _check_positive_real(scale, "scale")
    d = check_delta(delta)
    delta0 = check_positive_int(max_items, "max_items")
    log1p_delta = math.log1p(-d)
    best = -math.inf
    for t in _t_chunks(delta0):
        tail = -np.expm1(log1p_delta / t)  # 1 − (1−δ)^{1/t}
        value = _novel(t, novel_weight, power=1.0) - b * np.log(2.0 * tail)
        best = max(best, float(value.max()))
    return best


def gaussian_threshold(
    sigma: float, delta: float, max_items: int, *, novel_weight: NovelWeight = "split"
) -> float:
    """Release threshold ρ for N(0, σ²) noise on an ℓ2-sensitivity-1 histogram.

    Parameters
    ----------
    sigma
        Noise standard deviation σ (from :func:`gaussian_sigma` with δ/2).
    delta
        The δ of the mechanism; items held only by the added person are released with
        probability at most δ/2 (the other δ/2 is spent by σ).
    max_items
        Δ0, the most items one person contributes.
    novel_weight
        ``"split"``: each of the t novel items weighs at most 1/√t (Gopi Thm 5.1, B.2).
        ``"unit"``: at most 1 (Thm A.2; the count mechanism in count units).

    Returns
    -------
    float
        ρ = max_{1≤t≤Δ0} [w(t) + σ·Φ⁻¹((1−δ/2)^{1/t})], w(t) = 1/√t or 1.

    Notes
    -----
    Gopi et al. (2020), proof of Thm 5.1, Eq. (3).  Φ⁻¹(p) for p near 1 is computed as
    −Φ⁻¹(1−p) with 1 − p = −expm1(log1p(−δ/2)/t), which keeps full precision for tiny δ.

    Examples
    --------
    >>> import math
    >>> sigma = gaussian_sigma(3.0, math.exp(-10) / 2)
    >>> round(gaussian_threshold(sigma, math.exp(-10), 100), 4)
    6.8237
    """
    s = _check_positive_real(sigma, "sigma")
    d = check_delta(delta)
    delta0 = check_positive_int(max_items, "max_items")
    log1p_half_delta = math.log1p(-d / 2.0)
    best = -math.inf
    for t in _t_chunks(delta0):
        upper_tail = -np.expm1(log1p_half_delta / t)  # 1 − (1−δ/2)^{1/t}
        value = _novel(t, novel_weight, power=0.5) - s * ndtri(upper_tail)
        best = max(best, float(value.max()))
    return best


def _t_chunks(max_items: int):
    """t = 1..Δ0 as float arrays of at most ``_CHUNK`` values."""
    for start in range(1, max_items + 1, _CHUNK):
        yield np.arange(start, min(max_items, start + _CHUNK - 1) + 1, dtype=float)


def _novel(t: np.ndarray, novel_weight: str, power: float) -> np.ndarray:
    """Largest weight of one of t items held only by the added person."""
    if novel_weight == "split":
        return t**-power
    if novel_weight == "unit":
        return np.ones_like(t)
    raise InvalidParameterError(f"novel_weight must be 'split' or 'unit', got {novel_weight!r}")


def _check_positive_real(value: float, name: str) -> float:
    if isinstance(value, bool) or not isinstance(value, int | float | np.floating | np.integer):
        raise InvalidParameterError(f"{name} must be a real number, got {value!r}")
    x = float(value)
    if not (math.isfinite(x) and x > 0):
        raise InvalidParameterError(f"{name} must be finite and > 0, got {value!r}")
    return x
