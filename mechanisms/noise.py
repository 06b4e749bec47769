"""Noise samplers: exact discrete Laplace (the default) and floating-point samplers for sweeps.

Integer-valued releases use the **exact** discrete Laplace sampler of Canonne, Kamath & Steinke
(2020), "The Discrete Gaussian for Differential Privacy", Algorithms 1 and 2: only integer and
:class:`fractions.Fraction` arithmetic and uniform integers, so the output distribution is
exactly the intended one and immune to the floating-point attacks of Mironov (2012).

The floating-point samplers (Laplace, Gaussian, exponential, Gumbel) are vectorised NumPy for
Monte-Carlo experiments; they warn :class:`~dpcount.errors.UnsafeNoiseWarning` and results built
with them record ``secure=False``.

Examples
--------
>>> from fractions import Fraction
>>> discrete_laplace(Fraction(4), rng=1, size=5).tolist()
[...]
>>> rational_scale_at_least(2 / 0.3) >= Fraction(2) / Fraction(0.3)
True
"""

from __future__ import annotations

import math
import warnings
from fractions import Fraction
from typing import Literal

import numpy as np

from dpcount._rng import RNGLike, as_generator
from dpcount.errors import InvalidParameterError, UnsafeNoiseWarning
from dpcount.validation import check_positive

__all__ = [
    "NoiseMode",
    "bernoulli_exp",
    "discrete_laplace",
    "discrete_laplace_pmf",
    "float_exponential",
    "float_gaussian",
    "float_gumbel",
    "float_laplace",
    "rational_scale_at_least",
    "uniform_below",
    "warn_unsafe",
]

NoiseMode = Literal["exact", "float"]

# Scales are rounded *up* to a multiple of 2**-_SCALE_BITS: more noise never hurts privacy, and
# small denominators keep the exact arithmetic fast.
_SCALE_BITS = 32


def warn_unsafe(what: str, kind: str = "", stacklevel: int = 3) -> None:
    """Warn that floating-point noise is in use (not for releases).

    ``kind`` names the floating-point step of a mechanism that has no exact sampler here; by
    default the warning points at ``noise='exact'``.
    """
    advice = f"{kind}, no exact sampler available" if kind else "use noise='exact'"
    warnings.warn(
        f"{what} uses floating-point noise: fine for experiments, not for a release "
        f"({advice}); the result records secure=False",
        UnsafeNoiseWarning,
        stacklevel=stacklevel,
    )


def rational_scale_at_least(scale: float | Fraction) -> Fraction:
    """The smallest multiple of 2⁻³² that is ≥ ``scale`` (exact, no rounding down).

    Examples
    --------
    >>> rational_scale_at_least(0.5)
    Fraction(1, 2)
    """
    exact = Fraction(scale)
    if exact <= 0:
        raise InvalidParameterError(f"noise scale must be > 0, got {scale!r}")
    denominator = 2**_SCALE_BITS
    return Fraction(math.ceil(exact * denominator), denominator)


# --------------------------------------------------------------------------------------------
# Exact samplers (Canonne, Kamath & Steinke 2020)
# --------------------------------------------------------------------------------------------


def uniform_below(n: int, rng: np.random.Generator) -> int:
    """A uniform integer in ``{0, …, n-1}`` for any positive Python int ``n`` (rejection)."""
    if n <= 0:
        raise InvalidParameterError(f"uniform_below needs n >= 1, got {n}")
    if n <= 2**62:
        return int(rng.integers(0, n))
    bits = n.bit_length()
    nbytes = (bits + 7) // 8
    while True:
        x = int.from_bytes(rng.bytes(nbytes), "little") >> (8 * nbytes - bits)
        if x < n:
            return x


def _bernoulli(p: Fraction, rng: np.random.Generator) -> bool:
    """Exact Bernoulli(p) for a rational p in [0, 1]."""
    return uniform_below(p.denominator, rng) < p.numerator


def bernoulli_exp(gamma: float | Fraction, rng: RNGLike = None) -> bool:
    """Exact Bernoulli(exp(−γ)) for a rational γ ≥ 0 (CKS20, Algorithm 1).

    A float ``gamma`` is taken at its exact binary value.

    Examples
    --------
    >>> bernoulli_exp(0, rng=0)
    True
    """
    g = Fraction(gamma)
    if g < 0:
        raise InvalidParameterError(f"bernoulli_exp needs gamma >= 0, got {gamma!r}")
    gen = as_generator(rng)
    # exp(−γ) = exp(−1)^⌊γ⌋ · exp(−(γ − ⌊γ⌋)): one coin per whole unit, then the fraction.
    for _ in range(math.floor(g)):
        if not _bernoulli_exp_unit(Fraction(1), gen):
            return False
    return _bernoulli_exp_unit(g - math.floor(g), gen)


def _bernoulli_exp_unit(g: Fraction, rng: np.random.Generator) -> bool:
    """Bernoulli(exp(−γ)) for γ ∈ [0, 1]: the parity of the first k with Bernoulli(γ/k) = 0."""
    k = 1
    while _bernoulli(g / k, rng):
        k += 1
    return k % 2 == 1


def _discrete_laplace_one(numerator: int, denominator: int, rng: np.random.Generator) -> int:
    """One draw with P[Y = y] ∝ exp(−|y|·s/t), scale t/s = numerator/denominator (CKS20 Alg. 2)."""
    t, s = numerator, denominator
    while True:
        u = uniform_below(t, rng)
        if not bernoulli_exp(Fraction(u, t), rng):
            continue
        v = 0
        while bernoulli_exp(1, rng):
            v += 1
        y = (u + t * v) // s
        negative = bool(rng.integers(0, 2))
        if negative and y == 0:
            continue
        return -y if negative else y


def discrete_laplace(
    scale: float | Fraction, rng: RNGLike = None, size: int | None = None
) -> np.ndarray | int:
    """Exact discrete Laplace noise: P[Z = z] ∝ exp(−|z| / scale) on the integers.

    Parameters
    ----------
    scale
        The scale ``s > 0``.  A float is taken exactly (its binary value), never rounded down.
    rng
        Randomness per docs/concepts.md.
    size
        ``None`` for one Python ``int``, else the number of draws (an ``int64`` array).

    Notes
    -----
    Canonne, Kamath & Steinke (2020), Algorithm 2.  Adding Z with scale Δ/ε to an integer
    query of sensitivity Δ is ε-DP.  Expected work per draw is O(1) uniform integers.

    Examples
    --------
    >>> z = discrete_laplace(2, rng=0, size=1000)
    >>> z.dtype.name, bool(abs(z.mean()) < 0.5)
    ('int64', True)
    """
    exact = Fraction(scale)
    if exact <= 0:
        raise InvalidParameterError(f"noise scale must be > 0, got {scale!r}")
    gen = as_generator(rng)
    t, s = exact.numerator, exact.denominator
    if size is None:
        return _discrete_laplace_one(t, s, gen)
    return np.array([_discrete_laplace_one(t, s, gen) for _ in range(size)], dtype=np.int64)


def discrete_laplace_pmf(z: np.ndarray | int, scale: float) -> np.ndarray:
    """P[Z = z] = tanh(1/(2s)) · exp(−|z|/s), the pmf the exact sampler draws from.

    Examples
    --------
    >>> float(discrete_laplace_pmf(np.arange(-200, 201), 3.0).sum())
    1.0
    """
    z_arr = np.abs(np.asarray(z, dtype=float))
    return np.tanh(0.5 / scale) * np.exp(-z_arr / scale)


# --------------------------------------------------------------------------------------------
# Floating-point samplers (experiments only)
# --------------------------------------------------------------------------------------------


def _check_scale(scale: float) -> float:
    return check_positive(scale, "noise scale")


def float_laplace(scale: float, rng: RNGLike = None, size: int | tuple[int, ...] | None = None):
    """Continuous Laplace(0, scale) noise (vectorised; not for releases)."""
    return as_generator(rng).laplace(0.0, _check_scale(scale), size)


def float_gaussian(sigma: float, rng: RNGLike = None, size: int | tuple[int, ...] | None = None):
    """Gaussian N(0, σ²) noise (vectorised)."""
    return as_generator(rng).normal(0.0, _check_scale(sigma), size)


def float_exponential(scale: float, rng: RNGLike = None, size: int | tuple[int, ...] | None = None):
    """Exponential noise with mean ``scale`` (report-noisy-max form of permute-and-flip)."""
    return as_generator(rng).exponential(_check_scale(scale), size)


def float_gumbel(scale: float, rng: RNGLike = None, size: int | tuple[int, ...] | None = None):
    """Gumbel noise (report-noisy-max form of the exponential mechanism)."""
    return as_generator(rng).gumbel(0.0, _check_scale(scale), size)
