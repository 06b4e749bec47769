"""Noise samplers: exact discrete Laplace and Gaussian (the default), and floating-point noise.

Integer-valued releases use the **exact** samplers of Canonne, Kamath & Steinke (2020), "The
Discrete Gaussian for Differential Privacy": only integer arithmetic and uniform bits, so the
output distribution is exactly the intended one and immune to the floating-point attacks of
Mironov (2012).

=========================================  ====================================================
module                                     what
=========================================  ====================================================
:mod:`~mechanisms.noise.discrete`          exact discrete Laplace and Gaussian, vectorised;
                                           keyed per-row forms for distributed engines
:mod:`~mechanisms.noise.tails`             pmf, tails P[Z > k] and quantiles of both
:mod:`~mechanisms.noise.counter`           the counter-based streams (Philox4x64) they read
:mod:`~mechanisms.noise.coins`             exact one-off coins from a NumPy generator
:mod:`~mechanisms.noise.floating`          floating-point samplers for Monte-Carlo sweeps
=========================================  ====================================================

The floating-point samplers (Laplace, Gaussian, exponential, Gumbel) are for experiments; code
that uses them warns :class:`~dpcount.errors.UnsafeNoiseWarning` and records ``secure=False``.

Examples
--------
>>> from fractions import Fraction
>>> discrete_laplace(Fraction(4), rng=1, size=5).tolist()
[22, 8, 0, 3, -6]
>>> rational_scale_at_least(2 / 0.3) >= Fraction(2) / Fraction(0.3)
True
"""

from mechanisms.noise.coins import bernoulli_exp, uniform_below
from mechanisms.noise.counter import NoiseKey, noise_key, noise_key_from_bytes
from mechanisms.noise.discrete import (
    discrete_gaussian,
    discrete_gaussian_rows,
    discrete_laplace,
    discrete_laplace_rows,
    rational_scale_at_least,
    rational_variance_at_least,
)
from mechanisms.noise.floating import (
    NoiseMode,
    float_exponential,
    float_gaussian,
    float_gumbel,
    float_laplace,
    warn_unsafe,
)
from mechanisms.noise.tails import (
    discrete_gaussian_log_tail,
    discrete_gaussian_pmf,
    discrete_gaussian_quantile,
    discrete_gaussian_tail,
    discrete_laplace_log_tail,
    discrete_laplace_pmf,
    discrete_laplace_quantile,
    discrete_laplace_tail,
)

__all__ = [
    "NoiseKey",
    "NoiseMode",
    "bernoulli_exp",
    "discrete_gaussian",
    "discrete_gaussian_log_tail",
    "discrete_gaussian_pmf",
    "discrete_gaussian_quantile",
    "discrete_gaussian_rows",
    "discrete_gaussian_tail",
    "discrete_laplace",
    "discrete_laplace_log_tail",
    "discrete_laplace_pmf",
    "discrete_laplace_quantile",
    "discrete_laplace_rows",
    "discrete_laplace_tail",
    "float_exponential",
    "float_gaussian",
    "float_gumbel",
    "float_laplace",
    "noise_key",
    "noise_key_from_bytes",
    "rational_scale_at_least",
    "rational_variance_at_least",
    "uniform_below",
    "warn_unsafe",
]
