"""Exact coins and uniform integers drawn from a NumPy generator, for one-off draws.

Selection mechanisms (GEM, permute-and-flip, the shifted inverse) draw a handful of exact coins
per release from the release's :class:`numpy.random.Generator`:

* :func:`uniform_below` — a uniform integer below any positive Python int;
* :func:`bernoulli_exp` — Bernoulli(exp(−γ)) for a rational γ ≥ 0, Canonne, Kamath & Steinke
  (2020), Algorithm 1, in :class:`fractions.Fraction` arithmetic.

Noise for many values at once comes from :mod:`mechanisms.noise.discrete` instead.

Examples
--------
>>> bernoulli_exp(0, rng=0), uniform_below(1, np.random.default_rng(0))
(True, 0)
"""

from __future__ import annotations

import math
from fractions import Fraction

import numpy as np

from dpcount.common.rng import RNGLike, as_generator
from dpcount.errors import InvalidParameterError

__all__ = ["bernoulli_exp", "uniform_below"]


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
