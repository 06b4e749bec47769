"""The Gaussian step of the Bayesian n-gram mechanisms with exact discrete noise.

Algorithm 1 of Ramadan, Withers & Orr releases θ = softmax(h), h ~ N(μ_ps, σ_ps² I), with μ_ps
a real vector (log space) of ℓ2-sensitivity Δ = ρ·γ.  The exact form used by default
(docs/algorithms.md §7, "Exact noise"):

1. **Fixed point.**  μ_ps in units of 1/U, U = 2ᵏ, rounded to the nearest integer.  Rounding
   moves each coordinate by at most ½ unit, so neighbouring rounded vectors differ by at most
   Δ_U = U·Δ + √|𝒱| in ℓ2 (each coordinate's difference moves by less than one unit).  U is the
   smallest power of two with √|𝒱| ≤ U·Δ/100: rounding adds at most 1 % to the sensitivity.
2. **Discrete Gaussian noise.**  Independent N_ℤ(0, σ_U²) per coordinate (Canonne, Kamath &
   Steinke 2020, Algorithm 3, exact) is (Δ_U²/(2σ_U²))-zCDP (their Theorem 4 per coordinate;
   zCDP adds up over the coordinates).
3. **Calibration.**  ρ-zCDP implies (ρ + 2√(ρ·ln(1/δ)), δ)-DP (Bun & Steinke 2016, Prop. 1.3),
   so ρ_z = (√(ln(1/δ) + ε) − √(ln(1/δ)))² gives exactly ε, and σ_U² = Δ_U²/(2ρ_z), rounded up.
   Valid for every ε > 0 (the classical formula of the paper needs ε < 1).
4. **Release.**  θ = softmax((round(U·μ_ps) + Z)/U): post-processing of an integer vector.

The (ε, δ) is as nominal as the paper's: Δ is a local sensitivity (docs/algorithms.md §7).

Examples
--------
>>> c = discrete_calibration(0.5, epsilon=1.0, delta=1e-6, dimension=400)
>>> c.unit, round(c.sigma, 3)
(4096, 2.701)
>>> round(zcdp_for(1.0, 1e-6), 6)
0.017469
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from fractions import Fraction

import numpy as np
from scipy.special import softmax

from dpcount.common.rng import RNGLike
from mechanisms.noise import discrete_gaussian, rational_variance_at_least

__all__ = ["DiscreteCalibration", "discrete_calibration", "release_exact", "zcdp_for"]

#: Rounding to the grid may add at most this share to the ℓ2-sensitivity.
_ROUNDING_SHARE = 0.01
#: Largest power of two of the unit: |U·μ| stays below 2⁶² for |μ| ≤ 64 (log counts are < 45).
_MAX_UNIT_BITS = 56
_MARGIN = 1e-9  # relative, covers the float rounding of U·Δ + √|𝒱|


def zcdp_for(epsilon: float, delta: float) -> float:
    """The largest ρ with ρ + 2√(ρ·ln(1/δ)) ≤ ε: ρ-zCDP then implies (ε, δ)-DP.

    Bun & Steinke (2016), Proposition 1.3.

    Examples
    --------
    >>> rho = zcdp_for(0.5, 1e-5)
    >>> round(rho + 2 * math.sqrt(rho * math.log(1e5)), 12)
    0.5
    """
    log_term = math.log(1.0 / delta)
    # √(L + ε) − √L without cancellation: ε / (√(L + ε) + √L).
    root = epsilon / (math.sqrt(log_term + epsilon) + math.sqrt(log_term))
    return root * root


@dataclass(frozen=True)
class DiscreteCalibration:
    """The fixed-point unit U and the discrete Gaussian's σ² in units (``None``: no noise)."""

    unit: int
    sigma_squared: Fraction | None

    @property
    def sigma(self) -> float:
        """The noise's σ in the units of μ_ps (σ_U/U)."""
        if self.sigma_squared is None:
            return 0.0
        return math.sqrt(self.sigma_squared) / self.unit


def discrete_calibration(
    sensitivity: float, epsilon: float, delta: float, dimension: int
) -> DiscreteCalibration:
    """U and σ_U² for a vector of ℓ2-sensitivity Δ = ``sensitivity`` (module steps 1–3)."""
    if sensitivity == 0:
        return DiscreteCalibration(1, None)
    wanted = math.sqrt(dimension) / (_ROUNDING_SHARE * sensitivity)
    bits = min(_MAX_UNIT_BITS, max(0, math.ceil(math.log2(wanted))))
    unit = 2**bits
    units = (unit * sensitivity + math.sqrt(dimension)) * (1.0 + _MARGIN)
    sigma_squared = rational_variance_at_least(units * units / (2.0 * zcdp_for(epsilon, delta)))
    return DiscreteCalibration(unit, sigma_squared)


def release_exact(mean: np.ndarray, calibration: DiscreteCalibration, rng: RNGLike) -> np.ndarray:
    """θ = softmax((round(U·μ) + Z)/U), Z ~ N_ℤ(0, σ_U²) per coordinate (module step 4)."""
    grid = np.rint(mean * calibration.unit).astype(np.int64)  # U is a power of two: exact
    if calibration.sigma_squared is None:
        return softmax(grid / calibration.unit)
    z = np.asarray(discrete_gaussian(calibration.sigma_squared, rng=rng, size=grid.size))
    noisy = np.asarray(grid, dtype=object) + z if z.dtype == object else grid + z
    return softmax(np.asarray(noisy, dtype=np.float64) / calibration.unit)
