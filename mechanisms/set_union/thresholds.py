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

All tails are evaluated in log space (``log_ndtr``, ``erfcx``, ``expm1``, ``log1p``) so that δ
down to 1e-300 and ε down to 1e-14 and below work; the Balle–Wang δ(σ) is evaluated without
cancellation and with an error bound, and σ is accepted only when the bound certifies it.
docs/algorithms.md §6 has the test vectors these functions are tested against.

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
from collections.abc import Callable
from typing import Literal

import numpy as np
from scipy.special import erfcx, log_ndtr, ndtri

from dpcount.errors import InvalidParameterError, Option
from dpcount.validation import check_delta, check_epsilon, check_positive, check_positive_int

__all__ = [
    "NovelWeight",
    "balle_wang_delta",
    "gaussian_sigma",
    "gaussian_threshold",
    "laplace_threshold",
    "smallest_sigma",
]

NovelWeight = Literal["split", "unit"]

# The max over t = 1..Δ0: intervals of at most this many t are evaluated point by point.
_SCAN = 1 << 12
Curve = Callable[[np.ndarray], np.ndarray]


def _log_one_minus_exp(x: float) -> float:
    """log(1 − eˣ) for x < 0, accurate at both ends (Mächler 2012)."""
    if x > -math.log(2.0):
        return math.log(-math.expm1(x))
    return math.log1p(-math.exp(x))


# Gauss–Legendre rule for ∫ φ/Φ over [b, a] (width 1/σ ≤ 2); see _log_ndtr_gap.
_GL_NODES, _GL_WEIGHTS = np.polynomial.legendre.leggauss(32)
_GL_MAX_HALF_WIDTH = 1.0
_ULP = 2.0**-52
_SIGMA_MAX = 1e150  # beyond it εσ or 1/σ leave the range where the evaluation is certified
# Relative accuracy assumed of log_ndtr, erfcx, expm1, log1p and the quadrature: 64 units in the
# last place, far above their documented few-ulp errors.
_SAFETY = 64.0 * _ULP


def _log_ndtr_gap(centre: float, half_width: float) -> float:
    """log Φ(centre + h) − log Φ(centre − h) to full relative precision, also for tiny h.

    The plain difference of two ``log_ndtr`` values loses every digit that the two share, which
    for h ≪ 1 is most of them.  Instead integrate (log Φ)' = φ/Φ over the interval, with
    φ(x)/Φ(x) = √(2/π) / erfcx(−x/√2) (no cancellation anywhere on the real line).  φ/Φ is
    analytic in a strip of half-width > 2 around the real axis, so a 32-point Gauss–Legendre
    rule on an interval of half-width ≤ 1 is exact to rounding (docs/algorithms.md §6).
    """
    if half_width > _GL_MAX_HALF_WIDTH:
        return float(log_ndtr(centre + half_width) - log_ndtr(centre - half_width))
    x = centre + half_width * _GL_NODES
    with np.errstate(over="ignore"):  # erfcx(−x/√2) = inf for x ≳ 38: there φ/Φ = 0
        ratio = math.sqrt(2.0 / math.pi) / erfcx(-x / math.sqrt(2.0))
    return half_width * float(np.dot(_GL_WEIGHTS, ratio))


def _log_balle_wang_delta(sigma: float, epsilon: float) -> tuple[float, float]:
    """``(log δ̂, log δ⁺)``: log δ(σ) of the Gaussian mechanism with ℓ2-sensitivity 1, and a
    certified upper bound on it that covers the rounding of the float evaluation.
    """
    # Balle & Wang (2018) Thm 8 (Gopi Prop. 2.2): δ = Φ(a) − e^ε Φ(b), a = h − c, b = −h − c with
    # h = 1/(2σ), c = εσ.  Write δ = Φ(a)·(1 − exp(x)), x = ε − [log Φ(a) − log Φ(b)] < 0, and
    # take the bracket from _log_ndtr_gap so that x keeps its digits when h or ε is tiny
    # (docs/algorithms.md §6).
    h, c = 0.5 / sigma, epsilon * sigma
    la = float(log_ndtr(h - c))
    gap = _log_ndtr_gap(-c, h)
    x = epsilon - gap
    # Rounding of la (its value and its argument a, whose slope is φ/Φ(a) ≤ 1 + |a|), and of the
    # two terms of x (the gap also moves with the rounding of c, relative slope ≤ 1 + c), divided
    # by |x| where 1 − eˣ turns an absolute error of x into a relative error of δ.
    la_upper = la + _SAFETY * (1.0 + abs(la) + (2.0 + abs(h - c)) * (h + c))
    if not x < 0.0:  # rounding decides the sign of x: only δ ≤ Φ(a) is known
        return -math.inf, la_upper
    log_delta = la + _log_one_minus_exp(x)
    x_error = (_SAFETY * epsilon + gap * (_SAFETY + 2.0 * _ULP * (1.0 + c) * c)) / -x
    if x_error >= 0.01:  # the first-order bound is not trustworthy: again only δ ≤ Φ(a)
        return log_delta, la_upper
    return log_delta, min(la_upper, log_delta + (la_upper - la) + x_error)


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
    s = check_positive(sigma, "sigma") / check_positive(sensitivity, "sensitivity")
    log_delta = _log_balle_wang_delta(s, check_epsilon(epsilon))[0]
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
        The upper end σ_hi of a bracket [σ_lo, σ_hi] with σ_hi/σ_lo − 1 ≤ rtol, where δ(σ_hi) ≤ δ
        is certified: the float evaluation of δ(σ_hi) plus a bound on its rounding error is
        ≤ δ.  So the returned σ always satisfies the guarantee; it exceeds the exact smallest σ
        by at most ``rtol`` plus the (≈1e-12 relative) certification margin.

    Raises
    ------
    InvalidParameterError
        For bad parameters, or when σ would exceed 1e150 (ε and δ both astronomically small).

    Notes
    -----
    δ(σ) is decreasing in σ (Gopi §5.2).  Bracket by doubling/halving from σ = 1, then bisect
    on log σ with a relative tolerance and return the upper end (docs/algorithms.md §6): the
    Balle–Wang reference stops on an absolute tolerance and returns too small a σ for small δ.
    δ(σ) is evaluated without cancellation (the bracket log Φ(a) − log Φ(b) by quadrature of
    φ/Φ), so tiny ε (1e-14) and tiny δ (1e-300) keep full relative precision; a comparison the
    rounding could overturn counts as a failure, never as a pass.

    Examples
    --------
    >>> round(gaussian_sigma(0.1, 1e-6), 4)
    36.3047
    >>> round(gaussian_sigma(1.0, 1e-5, sensitivity=2.0) / gaussian_sigma(1.0, 1e-5), 9)
    2.0
    """
    eps = check_epsilon(epsilon)
    log_target = math.log(check_delta(delta))
    scale = check_positive(sensitivity, "sensitivity")
    if not 0 < rtol < 1:
        raise InvalidParameterError(f"rtol must lie in (0, 1), got {rtol!r}")

    def ok(s: float) -> bool:  # δ(σ) ≤ δ certified: the float error cannot overturn it
        return _log_balle_wang_delta(s, eps)[1] <= log_target

    what = f"Gaussian noise for ε = {epsilon!r}, δ = {delta!r}"
    return smallest_sigma(ok, rtol, what) * scale


def smallest_sigma(ok: Callable[[float], bool], rtol: float, what: str) -> float:
    """The upper end of a bracket [σ_lo, σ_hi], σ_hi/σ_lo − 1 ≤ ``rtol``, around the smallest
    σ with ``ok(σ)``, for a predicate that holds from some σ on (δ(σ) falls with σ).

    Bracket by doubling/halving from σ = 1 (refusing σ > 1e150), then bisect on log σ; the
    returned σ always satisfies ``ok``.

    Examples
    --------
    >>> round(smallest_sigma(lambda s: s >= 3.0, 1e-9, "x"), 6)
    3.0
    """
    hi = 1.0
    while not ok(hi):
        hi *= 2.0
        if hi > _SIGMA_MAX:
            raise InvalidParameterError(  # ε and δ of this step (a mechanism may split them)
                f"cannot calibrate {what}: sigma would exceed {_SIGMA_MAX:.0e} (use a larger ",
                Option("epsilon"),
                " or ",
                Option("delta"),
                ")",
            )
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
        raise AssertionError(f"calibration of {what} returned a σ that misses δ")
    return hi


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
    −expm1(log1p(−δ)/t), and ρ is rounded up past its float error (~1e-13 relative).

    Examples
    --------
    >>> import math
    >>> round(laplace_threshold(1 / 3, math.exp(-10), 100), 4)
    4.6473
    >>> laplace_threshold(1.0, 0.5, 1, novel_weight="unit")
    1.0
    """
    b = check_positive(scale, "scale")
    d = check_delta(delta)
    delta0 = check_positive_int(max_items, "max_items")
    log1p_delta = math.log1p(-d)

    def rise(t: np.ndarray) -> np.ndarray:
        tail = -np.expm1(log1p_delta / t)  # 1 − (1−δ)^{1/t}, falls with t
        return -b * np.log(2.0 * tail)

    best = _max_over_t(lambda t: _novel(t, novel_weight, power=1.0), rise, delta0)
    return _round_up(best, b)


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
    −Φ⁻¹(1−p) with 1 − p = −expm1(log1p(−δ/2)/t), which keeps full precision for tiny δ; ρ is
    rounded up past its float error (~1e-13 relative).

    Examples
    --------
    >>> import math
    >>> sigma = gaussian_sigma(3.0, math.exp(-10) / 2)
    >>> round(gaussian_threshold(sigma, math.exp(-10), 100), 4)
    6.8237
    """
    s = check_positive(sigma, "sigma")
    d = check_delta(delta)
    delta0 = check_positive_int(max_items, "max_items")
    log1p_half_delta = math.log1p(-d / 2.0)

    def rise(t: np.ndarray) -> np.ndarray:
        upper_tail = -np.expm1(log1p_half_delta / t)  # 1 − (1−δ/2)^{1/t}, falls with t
        return -s * ndtri(upper_tail)

    best = _max_over_t(lambda t: _novel(t, novel_weight, power=0.5), rise, delta0)
    return _round_up(best, s)


def _round_up(rho: float, scale: float) -> float:
    """ρ raised past the rounding error of its evaluation, so the tail bound holds exactly.

    ρ's float value is off by a few ulp of |ρ| + scale·|log tail| ≤ 2|ρ| + 2 + scale; rounding
    ρ up by a safe multiple of that keeps the novel items' release probability ≤ δ (checked
    against 80-digit arithmetic in the tests) at a cost of ~1e-13 relative in ρ.
    """
    return rho + _SAFETY * (2.0 * abs(rho) + 2.0 + scale)


def _max_over_t(weight: Curve, rise: Curve, max_items: int) -> float:
    """max over t = 1..Δ0 of weight(t) + rise(t), for weight non-increasing and rise
    non-decreasing in t (as float arrays), in memory O(_SCAN) and usually O(log Δ0) time.

    Branch and bound: on t ∈ [a, b] the sum is at most weight(a) + rise(b), so an interval whose
    bound does not beat the best value found is dropped; it is split at its geometric middle
    otherwise, and evaluated point by point once it has at most ``_SCAN`` values.  The result is
    the exact maximum of the evaluated values (rounding of the bound, ~1 ulp, is covered by
    :func:`_round_up`); docs/algorithms.md §6.
    """

    def at(t: float) -> float:
        point = np.array([t])
        return float((weight(point) + rise(point))[0])

    best = max(at(1.0), at(float(max_items)))
    stack = [(1, max_items)]
    while stack:
        a, b = stack.pop()
        if b - a < _SCAN:
            t = np.arange(a, b + 1, dtype=float)
            best = max(best, float((weight(t) + rise(t)).max()))
            continue
        if float(weight(np.array([float(a)]))[0] + rise(np.array([float(b)]))[0]) <= best:
            continue
        middle = min(b - 1, max(a + 1, math.isqrt(a * b)))
        best = max(best, at(float(middle)))
        stack += [(a, middle), (middle + 1, b)]
    return best


def _novel(t: np.ndarray, novel_weight: str, power: float) -> np.ndarray:
    """Largest weight of one of t items held only by the added person."""
    if novel_weight == "split":
        return t**-power
    if novel_weight == "unit":
        return np.ones_like(t)
    raise InvalidParameterError(f"novel_weight must be 'split' or 'unit', got {novel_weight!r}")
