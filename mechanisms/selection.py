"""Private selection: the exponential mechanism and permute-and-flip, sampled exactly.

Both select an index ``i`` of a score vector ``u`` whose entries each have sensitivity Δ:

* **exponential mechanism** (McSherry & Talwar 2007): P[i] ∝ exp(ε·u_i / (2Δ));
* **permute-and-flip** (McKenna & Sheldon 2020): visit the candidates in a uniformly random
  order and stop at the first ``i`` for which a coin with P[heads] = exp(ε·(u_i − u*)/(2Δ))
  lands heads, u* = max u.  It is identical in distribution to report-noisy-max with
  exponential noise of scale 2Δ/ε (Ding et al. 2021) and never worse in expected score.

Both are ε-DP.

What is exact
-------------
Neither sampler evaluates ``exp``.  Each computes the penalty γ_i = ε·(u* − u_i)/(2Δ) ≥ 0 in
float64 (no overflow for any finite scores: the largest score has γ = 0) and then draws coins
with P[heads] = exp(−γ_i) **exactly** for the rational number γ_i that the float represents,
using only uniform integers (Canonne, Kamath & Steinke 2020, Algorithm 1, vectorised here).  The
exponential mechanism is rejection sampling with uniform proposals (accept ``i`` with
probability exp(−γ_i)); permute-and-flip is its own definition.  So the output distribution is
exactly the ideal one for the computed penalties; the only floating-point step is the penalty
itself (relative error ~1e-16, which moves the privacy loss by a negligible ~ε·1e-16·``|u|``/Δ and
leaves no gaps in the output distribution, unlike inverse-CDF sampling; Mironov 2012, Ilvento
2020).  Expected cost: O(m / Σ_i exp(−γ_i)) coins for the exponential mechanism, at most m for
permute-and-flip; the first 16 are flipped one at a time (cheaper than a NumPy call for so
few), the rest in NumPy batches.

Examples
--------
>>> exponential_mechanism([0.0, 1.0, 50.0], epsilon=1.0, rng=0)
2
>>> exponential_mechanism_probabilities([0.0, 0.0]).tolist()
[0.5, 0.5]
>>> permute_and_flip([3.0, 1.0, 3.0], epsilon=2.0, rng=1) in (0, 1, 2)
True
"""

from __future__ import annotations

import math
from fractions import Fraction

import numpy as np
import numpy.typing as npt

from dpcount.common.rng import RNGLike, as_generator
from dpcount.errors import InvalidParameterError
from dpcount.validation import check_epsilon
from mechanisms.noise import bernoulli_exp, uniform_below

__all__ = [
    "bernoulli_exp_array",
    "exponential_mechanism",
    "exponential_mechanism_probabilities",
    "penalties",
    "permute_and_flip",
    "permute_and_flip_probabilities",
]

_FRACTION_BITS = 62  # Bernoulli(f) compares f·2⁶² with a uniform 62-bit integer
_MAX_WHOLE = 2**62  # unit coins are counted in int64; larger parts take an exact slow path
_SCALAR_TRIES = 16  # coins flipped one at a time before switching to NumPy batches
_FIRST_CHUNK = 64  # candidates per batch of coins, doubled while nothing is accepted
_MAX_CHUNK = 1 << 16
_PROBABILITY_BLOCK = 1 << 22  # matrix entries per pass in permute_and_flip_probabilities


# --------------------------------------------------------------------------------------------
# Exact vectorised Bernoulli(exp(−γ)) (Canonne, Kamath & Steinke 2020, Algorithm 1)
# --------------------------------------------------------------------------------------------


def _bernoulli_exp_minus_one(n: int, rng: np.random.Generator) -> np.ndarray:
    """``n`` exact Bernoulli(e⁻¹) coins: the parity of the first k with Bernoulli(1/k) = 0."""
    k = np.full(n, 2, dtype=np.int64)  # Bernoulli(1/1) always lands heads
    active = np.arange(n)
    while active.size:
        # Bernoulli(1/k) is an exact uniform integer in [0, k) being 0.
        heads = rng.integers(0, k[active]) == 0
        active = active[heads]
        k[active] += 1
    return (k % 2) == 1


def _bernoulli_fraction(frac: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    """Exact Bernoulli(f) for floats f ∈ [0, 1): compare f·2⁶² with a uniform U + V, U < 2⁶²."""
    scaled = frac * float(2**_FRACTION_BITS)  # exact: multiplying by a power of two
    high = np.floor(scaled)
    u = rng.integers(0, 2**_FRACTION_BITS, size=frac.size, dtype=np.int64)
    high_int = high.astype(np.int64)
    out = u < high_int
    # U equal to ⌊f·2⁶²⌋ (probability 2⁻⁶²): decide on the remaining bits of f exactly.
    for idx in np.flatnonzero(u == high_int):
        rest = Fraction(float(scaled[idx])) - Fraction(int(high_int[idx]))
        out[idx] = bool(rest) and uniform_below(rest.denominator, rng) < rest.numerator
    return out


def _bernoulli_exp_fraction(frac: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    """Exact Bernoulli(exp(−f)) for f ∈ [0, 1): the parity of the first k with Bernoulli(f/k) = 0.

    Bernoulli(f/k) is drawn as Bernoulli(1/k) ∧ Bernoulli(f), two independent exact coins, so no
    product of denominators can overflow.
    """
    k = np.ones(frac.size, dtype=np.int64)
    active = np.flatnonzero(frac > 0)
    active = active[_bernoulli_fraction(frac[active], rng)]  # k = 1: Bernoulli(f/1)
    k[active] += 1
    while active.size:
        heads = (rng.integers(0, k[active]) == 0) & _bernoulli_fraction(frac[active], rng)
        active = active[heads]
        k[active] += 1
    return (k % 2) == 1


def _bernoulli_fraction_one(frac: float, rng: np.random.Generator) -> bool:
    """Exact Bernoulli(f) for one float f ∈ [0, 1) (scalar twin of :func:`_bernoulli_fraction`)."""
    scaled = frac * float(2**_FRACTION_BITS)
    high = math.floor(scaled)
    u = int(rng.integers(0, 2**_FRACTION_BITS))
    if u != high:
        return u < high
    rest = Fraction(scaled) - high
    return bool(rest) and uniform_below(rest.denominator, rng) < rest.numerator


def _bernoulli_exp_one(gamma: float, rng: np.random.Generator) -> bool:
    """Exact Bernoulli(exp(−γ)) for one float γ ≥ 0: the algorithm of
    :func:`bernoulli_exp_array` without NumPy's per-call overhead."""
    whole = math.floor(gamma)
    for _ in range(whole):  # stops at the first tails, after 1.6 coins on average
        k = 2  # Bernoulli(1/1) always lands heads
        while rng.integers(0, k) == 0:
            k += 1
        if k % 2 == 0:
            return False
    frac = gamma - whole
    k = 1
    while frac > 0 and (k == 1 or rng.integers(0, k) == 0) and _bernoulli_fraction_one(frac, rng):
        k += 1
    return k % 2 == 1


def bernoulli_exp_array(gamma: npt.ArrayLike, rng: RNGLike = None) -> np.ndarray:
    """Independent exact Bernoulli(exp(−γ_i)) coins for an array of γ_i ≥ 0.

    Each float γ_i is taken at its exact binary (rational) value.

    Parameters
    ----------
    gamma
        Non-negative finite floats.
    rng
        Randomness per docs/concepts.md.

    Returns
    -------
    numpy.ndarray
        Booleans, ``True`` with probability exp(−γ_i).

    Notes
    -----
    Canonne, Kamath & Steinke (2020), Algorithm 1, vectorised: exp(−γ) = exp(−1)^⌊γ⌋ ·
    exp(−(γ − ⌊γ⌋)), one Bernoulli(e⁻¹) coin per whole unit (stopping at the first tails) and one
    coin for the fractional part.  Only uniform integers are drawn.

    Examples
    --------
    >>> coins = bernoulli_exp_array([0.0, 1.0, 1e9], rng=0)
    >>> bool(coins[0]), bool(coins[2])
    (True, False)
    """
    g = np.asarray(gamma, dtype=np.float64).reshape(-1)
    if g.size and not (np.all(np.isfinite(g)) and g.min() >= 0):
        raise InvalidParameterError("bernoulli_exp_array needs finite gamma >= 0")
    gen = as_generator(rng)
    whole = np.floor(g)
    frac = g - whole  # exact: the fractional bits of a float
    alive = np.ones(g.size, dtype=bool)
    huge = np.flatnonzero(whole >= _MAX_WHOLE)
    remaining = np.minimum(whole, _MAX_WHOLE).astype(np.int64)
    active = np.flatnonzero(remaining > 0)
    while active.size:  # one unit coin per round; each survives with probability 1/e
        heads = _bernoulli_exp_minus_one(active.size, gen)
        alive[active[~heads]] = False
        remaining[active] -= 1
        active = active[heads & (remaining[active] > 0)]
    for idx in huge[alive[huge]]:  # survived 2⁶² unit coins: finish the rest exactly
        alive[idx] = bernoulli_exp(Fraction(float(whole[idx])) - _MAX_WHOLE, gen)
    todo = np.flatnonzero(alive & (frac > 0))
    alive[todo] = _bernoulli_exp_fraction(frac[todo], gen)
    return alive


# --------------------------------------------------------------------------------------------
# The two mechanisms
# --------------------------------------------------------------------------------------------


def penalties(scores: npt.ArrayLike, epsilon: float = 1.0, sensitivity: float = 1.0) -> np.ndarray:
    """γ_i = ε·(max u − u_i)/(2Δ) ≥ 0: each candidate's weight is exp(−γ_i) ≤ 1.

    Examples
    --------
    >>> penalties([1.0, 3.0], epsilon=2.0).tolist()
    [2.0, 0.0]
    """
    u = _check_scores(scores)
    eps = check_epsilon(epsilon)
    delta = check_epsilon(sensitivity, "sensitivity")
    gap = u.max() - u  # ≥ 0, exactly 0 at the maximum
    return gap * (eps / (2.0 * delta))


def exponential_mechanism(
    scores: npt.ArrayLike,
    epsilon: float,
    sensitivity: float = 1.0,
    *,
    rng: RNGLike = None,
) -> int:
    """Select index ``i`` with probability ∝ exp(ε·u_i/(2Δ)), exactly.

    Parameters
    ----------
    scores
        Finite scores u_i, each of sensitivity at most ``sensitivity`` (non-empty, 1-D).
    epsilon
        Privacy parameter; the selection is ε-DP.
    sensitivity
        Δ > 0.
    rng
        Randomness per docs/concepts.md.

    Returns
    -------
    int
        The selected index.

    Notes
    -----
    McSherry & Talwar (2007).  Rejection sampling: propose ``i`` uniformly, accept with an exact
    Bernoulli(exp(−γ_i)) coin (module docstring); the first accepted proposal has exactly the
    target distribution.  ε-DP for scores of sensitivity Δ (Dwork & Roth, Thm 3.10).

    Examples
    --------
    >>> exponential_mechanism([10.0, 0.0], epsilon=100.0, rng=3)
    0
    """
    gamma = penalties(scores, epsilon, sensitivity)
    gen = as_generator(rng)
    m = gamma.size
    for _ in range(_SCALAR_TRIES):  # usually enough; cheaper one at a time than in NumPy
        i = int(gen.integers(0, m))
        if _bernoulli_exp_one(float(gamma[i]), gen):
            return i
    chunk = _FIRST_CHUNK
    while True:
        proposals = gen.integers(0, m, size=chunk)
        accepted = np.flatnonzero(bernoulli_exp_array(gamma[proposals], gen))
        if accepted.size:
            return int(proposals[accepted[0]])
        chunk = min(2 * chunk, _MAX_CHUNK)


def permute_and_flip(
    scores: npt.ArrayLike,
    epsilon: float,
    sensitivity: float = 1.0,
    *,
    rng: RNGLike = None,
) -> int:
    """Permute-and-flip selection (report-noisy-max with exponential noise), exactly.

    Parameters
    ----------
    scores, epsilon, sensitivity, rng
        As in :func:`exponential_mechanism`.

    Returns
    -------
    int
        The selected index.

    Notes
    -----
    McKenna & Sheldon (2020), Algorithm 1: for a uniformly random order of the candidates,
    return the first ``i`` whose exact coin with P[heads] = exp(ε·(u_i − u*)/(2Δ)) lands heads;
    the best candidate's coin always does, so at most m coins are flipped.  ε-DP (their
    Theorem 1); equal in distribution to argmax_i u_i + Expo(2Δ/ε) (Ding et al. 2021).

    Examples
    --------
    >>> permute_and_flip([0.0, 5.0], epsilon=50.0, rng=0)
    1
    """
    gamma = penalties(scores, epsilon, sensitivity)
    gen = as_generator(rng)
    order = gen.permutation(gamma.size)
    for i in order[:_SCALAR_TRIES].tolist():  # the first few candidates one at a time
        if _bernoulli_exp_one(float(gamma[i]), gen):
            return int(i)
    start, chunk = _SCALAR_TRIES, _FIRST_CHUNK
    while True:  # coins beyond the first heads are never looked at, so batching is harmless
        block = order[start : start + chunk]
        heads = np.flatnonzero(bernoulli_exp_array(gamma[block], gen))
        if heads.size:
            return int(block[heads[0]])
        start += chunk
        chunk = min(2 * chunk, _MAX_CHUNK)


# --------------------------------------------------------------------------------------------
# Exact output probabilities (diagnostics and tests)
# --------------------------------------------------------------------------------------------


def exponential_mechanism_probabilities(
    scores: npt.ArrayLike, epsilon: float = 1.0, sensitivity: float = 1.0
) -> np.ndarray:
    """P[i] = exp(−γ_i) / Σ_k exp(−γ_k), computed without overflow (the weights lie in (0, 1]).

    Examples
    --------
    >>> import math
    >>> p = exponential_mechanism_probabilities([0.0, 2.0], epsilon=1.0)
    >>> bool(np.isclose(p[1], 1 / (1 + math.exp(-1))))
    True
    """
    weights = np.exp(-penalties(scores, epsilon, sensitivity))
    return weights / weights.sum()


def permute_and_flip_probabilities(
    scores: npt.ArrayLike, epsilon: float = 1.0, sensitivity: float = 1.0
) -> np.ndarray:
    """Output probabilities of :func:`permute_and_flip`, P[i] = w_i ∫₀¹ Π_{j≠i} (1 − w_j x) dx.

    Notes
    -----
    With w_j = exp(−γ_j), report-noisy-max with Expo(1) noise on −γ gives
    P[i] = ∫_0^∞ e^{−y−γ_i} Π_{j≠i} (1 − e^{−y−γ_j}) dy; substituting x = e^{−y} gives the
    formula above [derived].  The integrand is a polynomial of degree m − 1, so Gauss–Legendre
    quadrature with ⌊m/2⌋ + 1 nodes is exact up to rounding, and every term is positive.  Cost
    O(m²): meant for diagnostics and tests, not for large m.

    Examples
    --------
    >>> permute_and_flip_probabilities([0.0, 0.0]).tolist()
    [0.5, 0.5]
    """
    weights = np.exp(-penalties(scores, epsilon, sensitivity))
    nodes, node_weights = np.polynomial.legendre.leggauss(weights.size // 2 + 1)
    x = (nodes + 1.0) / 2.0  # nodes on (0, 1); the interval has length 1, so weights halve
    wx = node_weights / 2.0
    integrals = np.zeros(weights.size)
    block = max(1, _PROBABILITY_BLOCK // weights.size)  # nodes per pass, bounding memory
    for start in range(0, x.size, block):
        xs, ws = x[start : start + block], wx[start : start + block]
        log_terms = np.log1p(-np.outer(xs, weights))  # (nodes, m); finite since x < 1
        total = log_terms.sum(axis=1, keepdims=True)
        integrals += (ws[:, None] * np.exp(total - log_terms)).sum(axis=0)
    probabilities = weights * integrals
    return probabilities / probabilities.sum()  # removes the last ulp of quadrature rounding


def _check_scores(scores: npt.ArrayLike) -> np.ndarray:
    u = np.asarray(scores, dtype=np.float64)
    if u.ndim != 1 or u.size == 0:
        raise InvalidParameterError(f"scores must be a non-empty 1-D array, got shape {u.shape}")
    if not np.all(np.isfinite(u)):
        raise InvalidParameterError("scores must be finite (no NaN or infinity)")
    return u
