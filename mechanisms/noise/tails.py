"""Probabilities of the discrete Laplace and discrete Gaussian: pmf, tails P[Z > k], quantiles.

For Z with P[Z = z] ∝ exp(−|z|/s) (discrete Laplace of scale s) or ∝ exp(−z²/(2σ²)) (discrete
Gaussian, Canonne, Kamath & Steinke 2020) these give

* ``*_pmf(z, ·)`` — P[Z = z];
* ``*_log_tail(k, ·)`` / ``*_tail(k, ·)`` — log P[Z > k] and P[Z > k] for any integer k, to
  ~1e-15 relative precision (log space: no underflow for tails far below 1e-308);
* ``*_quantile(beta, ·)`` — the smallest integer k with P[Z > k] ≤ β, the integer threshold or
  lower-bound shift that a release with failure probability β subtracts.

Discrete Laplace (docs/algorithms.md §3): for k ≥ 0, P[Z > k] = e^{−(k+1)/s}/(1 + e^{−1/s}), so
the quantile has the closed form k = ⌈s·L⌉ − 1 with L = ln(1/β) − ln(1 + e^{−1/s}).  It is
computed **exactly**: s·L is enclosed with :mod:`decimal` (correctly rounded ln and exp) at a
precision that grows until the enclosure decides the ceiling; s·L is never an integer (that
would make e^{−1/s} algebraic, against Lindemann–Weierstrass), so this ends — and it ends fast
for any scale up to 10^9999, i.e. for any ε the API accepts.

Discrete Gaussian: the normaliser by Poisson summation, Σ_z e^{−z²/(2σ²)} =
σ√(2π)·(1 + 2Σ_{n≥1} e^{−2π²σ²n²}); the tail Σ_{z≥a} e^{−z²/(2σ²)} by direct summation for
σ < 1000 and by the Euler–Maclaurin formula with three correction terms beyond (its remainder
is below 1e-13 relative there; docs/algorithms.md, "Exact noise").  The quantile returns the
smallest k whose tail is ≤ β·(1 − 10⁻⁹): always valid, and the smallest valid k unless the tail
of k − 1 lies within 10⁻⁹ (relative) of β.

Examples
--------
>>> discrete_laplace_quantile(0.05, 4), discrete_laplace_quantile(0.05, 1)
(9, 2)
>>> discrete_laplace_tail(8, 4) > 0.05 >= discrete_laplace_tail(9, 4)
True
>>> k = discrete_gaussian_quantile(1e-6, 100)
>>> discrete_gaussian_tail(k, 100) <= 1e-6 < discrete_gaussian_tail(k - 1, 100)
True
"""

from __future__ import annotations

import decimal
import math
from fractions import Fraction
from typing import Any

import numpy as np
import numpy.typing as npt

from dpcount.errors import InvalidParameterError
from mechanisms.noise.discrete import _positive_rational

__all__ = [
    "discrete_gaussian_log_tail",
    "discrete_gaussian_pmf",
    "discrete_gaussian_quantile",
    "discrete_gaussian_tail",
    "discrete_laplace_log_tail",
    "discrete_laplace_pmf",
    "discrete_laplace_quantile",
    "discrete_laplace_tail",
]

#: Decimal digits beyond the integer part of s·L at which the Laplace quantile starts.
_GUARD_DIGITS = 30
#: Largest precision tried before returning the (always valid) upper candidate.
_MAX_DIGITS = 20_000
#: The Gaussian tails switch from direct summation to Euler–Maclaurin at this σ.
_SUMMATION_SIGMA = 1000.0
#: Relative safety margin of the Gaussian quantile (far above the tails' ~1e-13 accuracy).
_GAUSSIAN_MARGIN = 1e-9
#: Largest σ² the floating-point Gaussian formulas accept.
_MAX_SIGMA_SQUARED = 1e300
#: Terms are summed while their log is within this of the first one (e^−70 ≈ 4e-31).
_LOG_TERM_DROP = 70.0


def _check_integer(k: Any, name: str = "k") -> int:
    if isinstance(k, bool) or not isinstance(k, int | np.integer):
        raise InvalidParameterError(f"{name} must be an integer, got {k!r}")
    return int(k)


def _check_quantile_beta(beta: Any) -> Fraction:
    if isinstance(beta, bool) or not isinstance(beta, int | float | Fraction | np.floating):
        raise InvalidParameterError(f"beta must be a number in (0, 0.5], got {beta!r}")
    if not (math.isfinite(float(beta)) and 0 < beta <= 0.5):
        raise InvalidParameterError(f"beta must lie in (0, 0.5], got {beta!r}")
    return Fraction(float(beta)) if isinstance(beta, np.floating) else Fraction(beta)


# --------------------------------------------------------------------------------------------
# Discrete Laplace
# --------------------------------------------------------------------------------------------


def discrete_laplace_pmf(z: npt.ArrayLike, scale: float | Fraction) -> np.ndarray:
    """P[Z = z] = tanh(1/(2s))·e^{−|z|/s}, the pmf the exact sampler draws from.

    Examples
    --------
    >>> float(discrete_laplace_pmf(np.arange(-200, 201), 3.0).sum())
    1.0
    """
    s = float(_positive_rational(scale, "noise scale"))
    z_arr = np.abs(np.asarray(z, dtype=float))
    return np.tanh(0.5 / s) * np.exp(-z_arr / s)


def _laplace_log_norm(s: Fraction) -> float:
    """ln(1 + e^{−1/s}) (0 to float precision once 1/s > 800)."""
    inverse = 1 / s
    return 0.0 if inverse > 800 else math.log1p(math.exp(-float(inverse)))


def discrete_laplace_log_tail(k: int, scale: float | Fraction) -> float:
    """ln P[Z > k] for the discrete Laplace of scale s and any integer k.

    For k ≥ 0 it is −(k+1)/s − ln(1 + e^{−1/s}); for k < 0, P[Z > k] = 1 − P[Z > −k − 1] by
    symmetry.

    Examples
    --------
    >>> round(math.exp(discrete_laplace_log_tail(-1, 1.0)), 6)  # P[Z ≥ 0] = 1/(1 + e^−1)
    0.731059
    """
    s = _positive_rational(scale, "noise scale")
    k = _check_integer(k)
    if k >= 0:
        exponent = Fraction(k + 1) / s
        if exponent > _MAX_SIGMA_SQUARED:  # e^{−1e300}: below any float, its log included
            return -math.inf
        return -float(exponent) - _laplace_log_norm(s)
    return math.log1p(-math.exp(discrete_laplace_log_tail(-k - 1, s)))


def discrete_laplace_tail(k: int, scale: float | Fraction) -> float:
    """P[Z > k] = e^{−(k+1)/s}/(1 + e^{−1/s}) for k ≥ 0 (docs/algorithms.md §3); any integer k.

    Examples
    --------
    >>> round(discrete_laplace_tail(0, 1.0), 6)  # e^−1/(1 + e^−1)
    0.268941
    """
    return math.exp(discrete_laplace_log_tail(k, scale))


def _laplace_scaled_threshold(
    s: Fraction, beta: Fraction, digits: int
) -> tuple[Fraction, Fraction]:
    """Rationals lo < s·L < hi, L = ln(1/β) − ln(1 + e^{−1/s}), from ``digits``-digit decimals.

    Each decimal operation is correctly rounded (relative error ≤ 10^{1−digits}); the bound
    below covers the six operations with a wide margin.
    """
    context = decimal.Context(prec=digits, Emin=-999_999_999, Emax=999_999_999)
    one = decimal.Decimal(1)
    s_dec = context.divide(decimal.Decimal(s.numerator), decimal.Decimal(s.denominator))
    beta_dec = context.divide(decimal.Decimal(beta.numerator), decimal.Decimal(beta.denominator))
    log_beta = context.ln(beta_dec)
    log_norm = context.ln(context.add(one, context.exp(context.minus(context.divide(one, s_dec)))))
    value = Fraction(context.multiply(s_dec, context.subtract(context.minus(log_beta), log_norm)))
    unit = Fraction(1, 10 ** (digits - 3))  # 1000 units in the last place, relative
    error = (abs(value) + s * (abs(Fraction(log_beta)) + 1)) * unit
    return value - error, value + error


def discrete_laplace_quantile(beta: float | Fraction, scale: float | Fraction) -> int:
    """The smallest integer k with P[Z > k] ≤ β for the discrete Laplace of scale s, exactly.

    Parameters
    ----------
    beta
        Failure probability in (0, ½]; taken at its exact binary value.
    scale
        s > 0 (a float at its exact binary value, or a Fraction).

    Returns
    -------
    int
        k = max(0, ⌈s·(ln(1/β) − ln(1 + e^{−1/s}))⌉ − 1) (docs/algorithms.md §3), a Python int
        of any size.

    Notes
    -----
    Closed form, no search over k: the ceiling is decided on an enclosure of s·L whose
    precision doubles until it does (module docstring).  If it has not decided at
    20,000 digits — never observed — the upper candidate is returned, which is still valid.

    Examples
    --------
    >>> discrete_laplace_quantile(Fraction(1, 20), Fraction(10**30))  # s·ln 10: fast, exact
    2302585092994045684017991454684
    """
    b = _check_quantile_beta(beta)
    s = _positive_rational(scale, "noise scale")
    # Digits of the integer part of s·L, from floats that cannot overflow (log10 of s exactly).
    magnitude = math.log10(max(-math.log(float(b)), 1.0)) + _log10(s)
    digits = max(0, math.ceil(magnitude)) + _GUARD_DIGITS
    while True:
        lo, hi = _laplace_scaled_threshold(s, b, digits)
        if math.ceil(lo) == math.ceil(hi) or digits >= _MAX_DIGITS:
            return max(0, math.ceil(hi) - 1)
        digits *= 2


def _log10(x: Fraction) -> float:
    """log10 of a positive rational of any size (as a float)."""
    return math.log10(x.numerator) - math.log10(x.denominator) if x.numerator > 0 else -math.inf


# --------------------------------------------------------------------------------------------
# Discrete Gaussian
# --------------------------------------------------------------------------------------------


def _sigma(sigma_squared: float | Fraction) -> float:
    exact = _positive_rational(sigma_squared, "sigma_squared")
    if exact > _MAX_SIGMA_SQUARED:
        raise InvalidParameterError(
            f"sigma_squared above {_MAX_SIGMA_SQUARED:g} is not supported, got {sigma_squared!r}"
        )
    return math.sqrt(float(exact))


def _gaussian_log_norm(sigma: float) -> float:
    """ln Σ_z e^{−z²/(2σ²)}: direct sum for σ < 1, Poisson summation beyond."""
    if sigma < 1.0:
        z = np.arange(-math.ceil(13 * sigma) - 1, math.ceil(13 * sigma) + 2, dtype=float)
        return float(np.log(np.exp(-(z**2) / (2 * sigma**2)).sum()))
    n = np.arange(1, 4, dtype=float)  # e^{−2π²σ²n²} ≤ e^{−19.7 n²}: three terms suffice
    dual = 2.0 * np.exp(-2 * math.pi**2 * sigma**2 * n**2).sum()
    return 0.5 * math.log(2 * math.pi) + math.log(sigma) + math.log1p(dual)


def _gaussian_log_sum_from(a: int, sigma: float) -> float:
    """ln Σ_{z ≥ a} e^{−z²/(2σ²)} for an integer a ≥ 1."""
    u = a / sigma
    if sigma < _SUMMATION_SIGMA:
        # Terms fall by more than e^−70 within √(a² + 140σ²) − a steps: the rest is negligible.
        count = math.ceil(math.sqrt(a * a + 2 * _LOG_TERM_DROP * sigma * sigma) - a) + 2
        z = a + np.arange(count, dtype=float)
        logs = -(z * z - float(a) * a) / (2 * sigma * sigma)  # relative to the first term
        return -(u * u) / 2 + float(np.log(np.exp(logs).sum()))
    # Euler–Maclaurin: Σ_{z≥a} f = ∫_a^∞ f + f(a)/2 − Σ_j B_2j/(2j)!·f^(2j−1)(a) + R_3, with
    # f^(n)(a) = (−1)^n σ^−n He_n(u) f(a) and ∫_a^∞ f = σ·√(π/2)·erfcx(u/√2)·f(a).
    from scipy.special import erfcx  # here, not at the top: slow to import for `dpcount --help`

    mills = math.sqrt(math.pi / 2) * float(erfcx(u / math.sqrt(2)))
    bracket = (
        sigma * mills
        + 0.5
        + u / (12 * sigma)
        - (u**3 - 3 * u) / (720 * sigma**3)
        + (u**5 - 10 * u**3 + 15 * u) / (30240 * sigma**5)
    )
    return -(u * u) / 2 + math.log(bracket)


def discrete_gaussian_pmf(z: npt.ArrayLike, sigma_squared: float | Fraction) -> np.ndarray:
    """P[Z = z] = e^{−z²/(2σ²)} / Σ_y e^{−y²/(2σ²)} (CKS20, Definition 1).

    Examples
    --------
    >>> p = discrete_gaussian_pmf(np.arange(-60, 61), 25)
    >>> round(float(p.sum()), 12), bool(p[60] > p[61])
    (1.0, True)
    """
    sigma = _sigma(sigma_squared)
    z_arr = np.asarray(z, dtype=float)
    return np.exp(-(z_arr**2) / (2 * sigma * sigma) - _gaussian_log_norm(sigma))


def discrete_gaussian_log_tail(k: int, sigma_squared: float | Fraction) -> float:
    """ln P[Z > k] for the discrete Gaussian N_ℤ(0, σ²) and any integer k.

    Examples
    --------
    >>> round(math.exp(discrete_gaussian_log_tail(0, 1)), 6)
    0.300529
    """
    sigma = _sigma(sigma_squared)
    k = _check_integer(k)
    norm = _gaussian_log_norm(sigma)
    if k >= 0:
        return _gaussian_log_sum_from(k + 1, sigma) - norm
    # P[Z > k] = 1 − P[Z ≥ −k] by symmetry, −k ≥ 1.
    return math.log1p(-math.exp(_gaussian_log_sum_from(-k, sigma) - norm))


def discrete_gaussian_tail(k: int, sigma_squared: float | Fraction) -> float:
    """P[Z > k] for the discrete Gaussian N_ℤ(0, σ²) and any integer k.

    Examples
    --------
    >>> round(discrete_gaussian_tail(-1, 1) - discrete_gaussian_tail(0, 1), 6)  # P[Z = 0]
    0.398943
    """
    return math.exp(discrete_gaussian_log_tail(k, sigma_squared))


def discrete_gaussian_quantile(beta: float | Fraction, sigma_squared: float | Fraction) -> int:
    """The smallest integer k ≥ 0 with P[Z > k] ≤ β·(1 − 10⁻⁹) for Z ~ N_ℤ(0, σ²).

    Parameters
    ----------
    beta
        Failure probability in (0, ½].
    sigma_squared
        σ² > 0 (at most 1e300).

    Returns
    -------
    int
        A k with P[Z > k] ≤ β (the margin covers the tails' rounding), the smallest one unless
        P[Z > k − 1] lies within 10⁻⁹ (relative) above β.

    Notes
    -----
    Bisection over k on the monotone tail, bracketed by doubling from the continuous quantile:
    O(log k) tail evaluations.

    Examples
    --------
    >>> discrete_gaussian_quantile(0.5, 4), discrete_gaussian_quantile(1e-300, 1)
    (0, 37)
    """
    b = _check_quantile_beta(beta)
    sigma = _sigma(sigma_squared)
    target = math.log(float(b)) + math.log1p(-_GAUSSIAN_MARGIN)

    def valid(k: int) -> bool:
        return discrete_gaussian_log_tail(k, sigma_squared) <= target

    if valid(0):
        return 0
    lo = 0  # invalid
    hi = max(1, math.ceil(sigma * math.sqrt(2 * -math.log(float(b)))))
    while not valid(hi):
        lo, hi = hi, 2 * hi
    while hi - lo > 1:
        mid = (lo + hi) // 2
        if valid(mid):
            hi = mid
        else:
            lo = mid
    return hi
