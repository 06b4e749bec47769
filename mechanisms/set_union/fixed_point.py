"""Fixed-point weights and exact discrete noise for set union: precision, noise, thresholds.

With ``noise="exact"`` (the default) a set-union mechanism works on integers only: every
person's contribution is an integer number of units of 2⁻ᵏ, rounded **down** (so the norm of
a contribution can only shrink), per-item weights are exact integer sums, the noise is the
exact discrete Laplace or discrete Gaussian of Canonne, Kamath & Steinke (2020) in the same
units, and the threshold ρ is an integer computed from the discrete distribution's own tail.
This module decides those numbers (docs/algorithms.md §6, "Exact noise on fixed-point
weights"):

* :func:`unit_bits` — the precision k (as fine as the 64-bit exact samplers allow);
* :func:`contribution_units` — ``⌊2ᵏ·d^(−1/p)⌋``, the units of one of d items in p-norm 1;
* :func:`discrete_gaussian_sigma` — the σ whose discrete Gaussian is (ε, δ)-DP at
  ℓ2-sensitivity 1, from the discrete Gaussian's zCDP bound;
* :func:`discrete_threshold` — the smallest integer ρ that keeps the novel items of the added
  person below ρ with probability ≥ 1 − δ, for the discrete noise;
* :func:`noisy_above` — the release decision, with the noise keyed by item (every engine).

Examples
--------
>>> k = unit_bits("gaussian", 3.9)
>>> k, contribution_units(4, 2, 3).tolist()
(12, [0, 8, 5, 4, 4])
>>> round(discrete_gaussian_sigma(1.0, 5e-6), 3)
4.196
"""

from __future__ import annotations

import math
from collections.abc import Callable
from fractions import Fraction
from functools import cache, lru_cache
from typing import Literal

import numpy as np

from dpcount.validation import check_delta, check_epsilon, check_positive_int
from mechanisms.noise import (
    NoiseKey,
    discrete_gaussian_quantile,
    discrete_gaussian_rows,
    discrete_laplace_quantile,
    discrete_laplace_rows,
    rational_scale_at_least,
    rational_variance_at_least,
)
from mechanisms.set_union import thresholds

__all__ = [
    "MAX_UNIT_BITS",
    "contribution_units",
    "discrete_gaussian_sigma",
    "discrete_threshold",
    "gaussian_variance_units",
    "laplace_scale_units",
    "noisy_above",
    "unit_bits",
    "zcdp_delta",
]

#: The finest precision: weights in units of 2⁻³⁰ (sums stay exact in int64 up to 2³³).
MAX_UNIT_BITS = 30
# The exact samplers run in 64-bit integers while a Laplace scale in units stays below 2³⁰
# (rational_scale_at_least's numerator ≤ 2⁶²) and a Gaussian σ below ≈ 4·10⁴ (2·a·b·t² ≤ 2⁶²);
# these caps leave room for the rational rounding of the parameters.
_LAPLACE_SCALE_MAX = 2.0**26
_GAUSSIAN_SIGMA_MAX = 2.0**14
# β_t is computed in floating point (relative error ~1e-16); shrinking it by this factor makes
# the quantile valid for the exact β_t.
_BETA_SHRINK = 1.0 - 2.0**-40


def unit_bits(noise: Literal["laplace", "gaussian"], scale: float) -> int:
    """The precision k ≤ 30 of the fixed-point weights for noise of ``scale`` (weight units).

    The largest k whose scale in units (scale·2ᵏ) keeps the exact sampler in 64-bit integers:
    a function of the public parameters only.

    Examples
    --------
    >>> unit_bits("laplace", 1.0), unit_bits("gaussian", 3.9), unit_bits("gaussian", 1e6)
    (26, 12, 0)
    """
    limit = _LAPLACE_SCALE_MAX if noise == "laplace" else _GAUSSIAN_SIGMA_MAX
    k = MAX_UNIT_BITS
    while k > 0 and math.ldexp(scale, k) > limit:
        k -= 1
    return k


def contribution_units(max_degree: int, norm: int, bits: int = MAX_UNIT_BITS) -> np.ndarray:
    """``units[d] = ⌊2ᵏ · d^(−1/p)⌋`` for d = 1..max_degree (``units[0] = 0``), exactly.

    Integer arithmetic only: ⌊2ᵏ/d⌋ for p = 1 and ⌊√(4ᵏ/d)⌋ = ⌊√⌊4ᵏ/d⌋⌋ for p = 2, so the
    rounding is always downwards and a person's d contributions have p-norm at most 2ᵏ units.

    Examples
    --------
    >>> contribution_units(4, 1, 4).tolist(), contribution_units(4, 2, 4).tolist()
    ([0, 16, 8, 5, 4], [0, 16, 11, 9, 8])
    """
    units = np.zeros(max_degree + 1, dtype=np.int64)
    d = np.arange(1, max_degree + 1, dtype=np.int64)
    if norm == 1:
        units[1:] = (1 << bits) // d
        return units
    square = (1 << (2 * bits)) // d
    root = np.floor(np.sqrt(square.astype(float))).astype(np.int64)
    root -= root * root > square  # the float square root can be one off either way
    root += (root + 1) * (root + 1) <= square
    units[1:] = root
    return units


def laplace_scale_units(sensitivity_units: int, epsilon: float) -> Fraction:
    """The discrete Laplace scale s ≥ Δ/ε (exactly, as a rational) for ℓ1-sensitivity Δ units.

    Adding independent discrete Laplace noise of scale s to each coordinate of an integer vector
    whose ℓ1-sensitivity is Δ ≤ s·ε is ε-DP: the pmf ratio is at most e^{Δ/s} (Canonne, Kamath
    & Steinke 2020, Algorithm 2's distribution, P[Z = z] ∝ e^{−|z|/s}).

    Examples
    --------
    >>> laplace_scale_units(4, 0.5)
    Fraction(8, 1)
    """
    exact = Fraction(sensitivity_units) / Fraction(check_epsilon(epsilon))
    return rational_scale_at_least(exact)


def gaussian_variance_units(sigma: float, squared_sensitivity: Fraction | int) -> Fraction:
    """σ_u² ≥ σ²·Δ², rounded up: the discrete Gaussian variance in units for noise σ at
    sensitivity 1 and an ℓ2-sensitivity of Δ units (given as Δ², exactly).

    N_ℤ(0, σ_u²) on an integer vector of ℓ2-sensitivity Δ is Δ²/(2σ_u²)-zCDP (Canonne, Kamath
    & Steinke 2020, Theorem 4 per coordinate; coordinates compose, Bun & Steinke 2016,
    Lemma 2.3); with σ_u² ≥ σ²Δ² that is at most 1/(2σ²).

    Examples
    --------
    >>> gaussian_variance_units(0.5, 16)
    Fraction(4, 1)
    """
    exact = Fraction(sigma) ** 2 * Fraction(squared_sensitivity)
    return rational_variance_at_least(exact)


def zcdp_delta(rho: float, epsilon: float) -> float:
    """δ such that ρ-zCDP implies (ε, δ)-DP, upper bound (Canonne, Kamath & Steinke 2020,
    Corollary 13): δ = exp((α−1)(αρ−ε)) / (α−1) · (1 − 1/α)^α for the best α > 1.

    Every α > 1 gives a valid δ; α is found by bisection on the derivative of the exponent,
    (2α−1)ρ − ε + ln(1 − 1/α), which increases in α.  The bound at that α is returned with a
    relative margin of 10⁻⁹ for its floating-point evaluation.

    Examples
    --------
    >>> round(zcdp_delta(0.5 / 4.216**2, 1.0) * 1e6, 3) <= 5.0
    True
    """
    if rho <= 0:
        return 0.0
    eps = epsilon

    def slope(a: float) -> float:
        return (2 * a - 1) * rho - eps + math.log1p(-1 / a)

    lo, hi = 1.0 + 1e-12, max(2.0, (eps + 1) / (2 * rho) + 2)
    while slope(hi) < 0:
        hi *= 2
    for _ in range(200):
        mid = (lo + hi) / 2
        if slope(mid) < 0:
            lo = mid
        else:
            hi = mid
    a = hi
    log_delta = (a - 1) * (a * rho - eps) + a * math.log1p(-1 / a) - math.log(a - 1)
    if log_delta >= 0:  # no guarantee at all (and exp would overflow for tiny ε)
        return 1.0
    return min(1.0, math.exp(log_delta) * (1 + 1e-9))


@lru_cache(maxsize=256)
def discrete_gaussian_sigma(epsilon: float, delta: float) -> float:
    """The smallest σ (to 10⁻⁹ relative, rounded up) whose discrete Gaussian is (ε, δ)-DP at
    ℓ2-sensitivity 1 by its zCDP bound: ρ = 1/(2σ²) (Canonne, Kamath & Steinke 2020,
    Theorem 4) converted by :func:`zcdp_delta` (their Corollary 13).

    The same σ serves every coordinate of a weight vector of ℓ2-sensitivity 1 (zCDP composes
    over coordinates).  It is a few per cent above the continuous Balle–Wang σ, whose formula
    is not used for discrete noise.

    Examples
    --------
    >>> s = discrete_gaussian_sigma(1.0, 5e-6)
    >>> zcdp_delta(1 / (2 * s * s), 1.0) <= 5e-6
    True
    """
    eps, dlt = check_epsilon(epsilon), check_delta(delta)

    def ok(sigma: float) -> bool:
        return zcdp_delta(1 / (2 * sigma * sigma), eps) <= dlt

    what = f"discrete Gaussian noise for ε = {epsilon!r}, δ = {delta!r}"
    return thresholds.smallest_sigma(ok, 1e-9, what)


def discrete_threshold(
    noise: Literal["laplace", "gaussian"],
    parameter: Fraction,
    delta_novel: float,
    max_items: int,
    novel_units: Callable[[int], int],
) -> int:
    """The integer threshold ρ = max_{1≤t≤Δ0} [w(t) + q(t)] of a release on integer weights.

    ``parameter`` is the discrete Laplace scale s or the discrete Gaussian σ² (in units);
    ``novel_units(t)`` (non-increasing) bounds the weight of each of t items held only by the
    added person; q(t) is the smallest integer with P[Z > q(t)] ≤ β_t = 1 − (1 − δ_n)^{1/t},
    from the discrete distribution's own tail (:func:`~mechanisms.noise.discrete_laplace_quantile`,
    :func:`~mechanisms.noise.discrete_gaussian_quantile`).  An item of weight w ≤ w(t) is
    released when w + Z > ρ, so with probability ≤ P[Z > q(t)] ≤ β_t, and the t novel items
    together with probability ≤ 1 − (1 − β_t)^t = δ_n (Gopi et al. 2020, proof of Thm 4.1,
    Eq. (1), with the discrete tail in place of the continuous one).

    The maximum over t is found by branch and bound (w falls and q rises with t: on [a, b] the
    sum is at most w(a) + q(b)), so O(log Δ0) quantiles for the usual shapes.

    Examples
    --------
    >>> discrete_threshold("laplace", Fraction(4), 1e-6, 1, lambda t: 4)
    56
    """
    dlt = check_delta(delta_novel, "delta")
    n = check_positive_int(max_items, "max_items")
    log1p_delta = math.log1p(-dlt)
    quantile = discrete_laplace_quantile if noise == "laplace" else discrete_gaussian_quantile

    @cache
    def q(t: int) -> int:
        beta = -math.expm1(log1p_delta / t) * _BETA_SHRINK
        return int(quantile(beta, parameter))

    def value(t: int) -> int:
        return int(novel_units(t)) + q(t)

    best = max(value(1), value(n))
    stack = [(1, n)]
    while stack:
        a, b = stack.pop()
        if b - a <= 1 or int(novel_units(a)) + q(b) <= best:
            continue
        middle = min(b - 1, max(a + 1, math.isqrt(a * b)))
        best = max(best, value(middle))
        stack += [(a, middle), (middle, b)]
    return best


def noisy_above(
    units: np.ndarray,
    rows: np.ndarray,
    noise: Literal["laplace", "gaussian"],
    parameter: Fraction,
    threshold: int,
    key: NoiseKey,
    stream: int = 0,
) -> np.ndarray:
    """Whether ``units + Z > threshold`` for each item, Z the exact discrete noise of its row.

    Row r's noise is a function of (key, r, stream) only (:func:`~mechanisms.noise.
    discrete_laplace_rows`), so every engine that knows an item's row id (the keyed hash of its
    label) and the release's key draws the same value: the local path and the Spark executors
    release the same items bit for bit.  Integer arithmetic throughout (Python integers for
    the astronomically rare value beyond 2⁶¹).

    Examples
    --------
    >>> from mechanisms.noise import noise_key
    >>> noisy_above(np.array([0, 100]), np.array([1, 2], dtype=np.uint64), "laplace",
    ...             Fraction(1), 50, noise_key(0)).tolist()
    [False, True]
    """
    draw = discrete_laplace_rows if noise == "laplace" else discrete_gaussian_rows
    z = draw(parameter, key, rows, stream=stream)
    values = np.asarray(units)
    small = z.dtype != object and (z.size == 0 or int(np.abs(z).max()) < 2**61)
    if small and values.dtype != object and int(values.max(initial=0)) < 2**61:
        return values.astype(np.int64) + z > threshold
    return np.array(
        [int(u) + int(v) > threshold for u, v in zip(values.tolist(), z.tolist(), strict=True)],
        dtype=bool,
    )
