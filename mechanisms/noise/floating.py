"""Floating-point noise for Monte-Carlo experiments, and the warning that marks its use.

The samplers here (Laplace, Gaussian, exponential, Gumbel) are vectorised NumPy.  They are not
hardened against the floating-point attacks of Mironov (2012): releases use the exact samplers
of :mod:`mechanisms.noise.discrete`.  Code that draws with them calls :func:`warn_unsafe` and
records ``secure=False`` on its result.

Examples
--------
>>> float_laplace(2.0, rng=0, size=3).shape
(3,)
"""

from __future__ import annotations

import warnings
from typing import Literal

from dpcount.common.rng import RNGLike, as_generator
from dpcount.errors import UnsafeNoiseWarning
from dpcount.validation import check_positive

__all__ = [
    "NoiseMode",
    "float_exponential",
    "float_gaussian",
    "float_gumbel",
    "float_laplace",
    "warn_unsafe",
]

#: ``"exact"``: exact discrete noise (releases); ``"float"``: NumPy noise (experiments).
NoiseMode = Literal["exact", "float"]


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
