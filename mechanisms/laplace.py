"""The Laplace mechanism and its (1 − β) lower bound, for continuous and exact discrete noise.

For a query q of sensitivity Δ, releasing q(D) + Z with Z of scale s = Δ/ε is ε-DP.  Knop &
Steinke Eq. 4 turns the release into a lower bound that holds with probability ≥ 1 − β by
subtracting the (1 − β)-quantile of the noise:

* continuous Laplace: P[Z > s·ln(1/(2β))] = β, so the shift is s·ln(1/(2β)) (Eq. 4);
* discrete Laplace (P[Z = z] ∝ e^{−|z|/s}): P[Z > k] = e^{−(k+1)/s} / (1 + e^{−1/s}), so the shift
  is the smallest integer k with that tail ≤ β (docs/algorithms.md §3).  It equals or is one below
  ⌈s·ln(1/(2β))⌉, and it is computed in closed form, exactly, for any scale
  (:func:`mechanisms.noise.discrete_laplace_quantile`): no search over k, so a tiny ε cannot
  make it loop.

Examples
--------
>>> discrete_shift(4, 0.05), discrete_shift(1, 0.05)
(9, 2)
>>> round(continuous_shift(4, 0.05), 4)
9.2103
>>> r = laplace_lower_bound(100, sensitivity=2, epsilon=1.0, beta=0.05, rng=0)
>>> r.estimate == 100 + r.noise - r.shift
True
"""

from __future__ import annotations

import math
import warnings
from dataclasses import dataclass
from fractions import Fraction

from dpcount.common.rng import RNGLike
from dpcount.errors import InvalidParameterError
from dpcount.validation import check_beta, check_choice, check_epsilon
from mechanisms.noise import (
    NoiseMode,
    discrete_laplace,
    discrete_laplace_quantile,
    discrete_laplace_tail,
    float_laplace,
    rational_scale_at_least,
    warn_unsafe,
)

__all__ = [
    "MAX_NOISE_SCALE",
    "LaplaceLowerBound",
    "continuous_shift",
    "discrete_shift",
    "discrete_tail",
    "laplace_lower_bound",
    "laplace_scale",
]

NOISE_MODES = ("exact", "float")
#: Largest noise scale Δ/ε accepted: beyond it the release is pure noise and its shift would
#: not fit in a float.
MAX_NOISE_SCALE = 1e300


def laplace_scale(sensitivity: float, epsilon: float) -> Fraction:
    """The noise scale Δ/ε as an exact rational, rounded up to a multiple of 2⁻³².

    Rounding up only adds noise, so the release stays ε-DP; the lower-bound shift is computed
    from this exact scale.

    Raises
    ------
    InvalidParameterError
        When Δ/ε exceeds :data:`MAX_NOISE_SCALE` (ε below ~Δ·1e-300).

    Examples
    --------
    >>> laplace_scale(2, 0.5)
    Fraction(4, 1)
    """
    scale = Fraction(sensitivity) / Fraction(check_epsilon(epsilon))
    if scale > MAX_NOISE_SCALE:
        raise InvalidParameterError(
            f"epsilon={epsilon!r} is too small for sensitivity {sensitivity!r}: the noise scale "
            f"sensitivity/epsilon would exceed {MAX_NOISE_SCALE:g} and the release would be "
            "pure noise"
        )
    return rational_scale_at_least(scale)


def continuous_shift(scale: float, beta: float) -> float:
    """s·ln(1/(2β)): P[Lap(s) > shift] = β (Knop & Steinke, Eq. 4)."""
    return float(scale) * math.log(1.0 / (2.0 * check_beta(beta)))


def discrete_tail(k: int, scale: float | Fraction) -> float:
    """P[Z > k] = e^{−(k+1)/s} / (1 + e^{−1/s}) for discrete Laplace Z of scale s, k ≥ 0."""
    return discrete_laplace_tail(k, scale)


def discrete_shift(scale: float | Fraction, beta: float) -> int:
    """Smallest integer k ≥ 0 with P[Z > k] ≤ β for discrete Laplace Z of scale s (algorithms §3).

    From e^{−(k+1)/s} ≤ β(1 + e^{−1/s}): k = ⌈s·(ln(1/β) − ln(1 + e^{−1/s}))⌉ − 1, evaluated
    exactly in closed form (:func:`mechanisms.noise.discrete_laplace_quantile`) — for any
    scale, in time independent of k.

    Examples
    --------
    >>> discrete_shift(10**30, 0.25) == discrete_shift(Fraction(10**30), 0.25)
    True
    """
    return discrete_laplace_quantile(check_beta(beta), scale)


@dataclass(frozen=True)
class LaplaceLowerBound:
    """A value plus Laplace noise, minus the noise's (1 − β) quantile: a building block.

    Not a :class:`~mechanisms.Release`: it records no privacy loss; the mechanism that uses
    it (e.g. :func:`mechanisms.dp_distinct_count`) accounts for its ε.

    Attributes
    ----------
    estimate
        ``value + noise − shift``: below the true value with probability ≥ 1 − β.
    noise
        The noise drawn (an ``int`` for exact discrete noise).
    shift
        The (1 − β) quantile of the noise that was subtracted.
    scale
        The noise scale actually used (≥ sensitivity / ε).
    secure
        ``True`` for exact discrete noise, ``False`` for floating-point noise.
    """

    estimate: float
    noise: float
    shift: float
    scale: float
    secure: bool


def laplace_lower_bound(
    value: float,
    sensitivity: float,
    epsilon: float,
    beta: float,
    *,
    noise: NoiseMode = "exact",
    rng: RNGLike = None,
) -> LaplaceLowerBound:
    """Release ``value`` with Laplace noise and subtract the noise's (1 − β) quantile.

    Parameters
    ----------
    value
        The true query answer (an integer for ``noise="exact"``).
    sensitivity
        Its sensitivity Δ under add/remove-one-person neighbours.
    epsilon
        Privacy parameter of this release; the release is ε-DP.
    beta
        Failure probability: P[estimate > value] ≤ β.
    noise
        ``"exact"`` discrete Laplace (secure, default) or ``"float"`` continuous Laplace.
    rng
        Randomness per docs/concepts.md.

    Notes
    -----
    Knop & Steinke (2023), Eq. 4 and Algorithm 1 line 14; the discrete shift is from
    docs/algorithms.md §3.  P[estimate ≤ value] ≥ 1 − β exactly (continuous) or at least (discrete).
    """
    check_choice(noise, "noise", NOISE_MODES)
    check_beta(beta)
    scale = laplace_scale(sensitivity, epsilon)
    if noise == "exact":
        if int(value) != value:
            raise InvalidParameterError(f"exact discrete noise needs an integer, got {value!r}")
        z = int(discrete_laplace(scale, rng=rng))
        shift: float = discrete_shift(scale, beta)
        return LaplaceLowerBound(int(value) + z - int(shift), z, shift, float(scale), True)
    warn_unsafe("laplace_lower_bound")
    s = float(scale)
    zf = float(float_laplace(s, rng=rng))
    shift = continuous_shift(s, beta)
    return LaplaceLowerBound(float(value) + zf - shift, zf, shift, s, False)


def __getattr__(name: str) -> type[LaplaceLowerBound]:
    """``LaplaceRelease``, the old name of :class:`LaplaceLowerBound`, for one release."""
    if name == "LaplaceRelease":
        warnings.warn(
            "mechanisms.laplace.LaplaceRelease is now LaplaceLowerBound (it is a lower bound, "
            "not a Release with a privacy loss); the old name goes in the next release",
            DeprecationWarning,
            stacklevel=2,
        )
        return LaplaceLowerBound
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
