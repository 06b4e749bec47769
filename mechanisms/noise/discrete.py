"""Exact discrete Laplace and discrete Gaussian noise, many values at once.

The samplers of Canonne, Kamath & Steinke (2020), "The Discrete Gaussian for Differential
Privacy", with integer arithmetic only:

* :func:`discrete_laplace` — P[Z = z] ∝ exp(−|z|/s) for a rational scale s (their Algorithm 2);
* :func:`discrete_gaussian` — P[Z = z] ∝ exp(−z²/(2σ²)) for a rational σ² (their Algorithm 3).

Each value is drawn from its own counter-based stream (:mod:`mechanisms.noise.counter`) by a
compiled rejection loop that keeps every integer below 2⁶² and redraws the rare row that would
need more in Python's arbitrary-precision integers (:mod:`mechanisms.noise._kernels`), so the
output distribution is exactly the stated one for every parameter, with no floating point
anywhere.  Parameters are taken exactly: a float is its binary value (never rounded down);
:func:`rational_scale_at_least` and :func:`rational_variance_at_least` round a float *up* to a
rational with a small denominator, which keeps the arithmetic within 64 bits (fast).

Two entry points per distribution:

* ``discrete_laplace(scale, rng, size)`` — the usual form: a fresh 128-bit key from ``rng``
  (OS entropy for ``None``) and rows 0..size−1;
* ``discrete_laplace_rows(scale, key, rows, stream=0)`` — row *r*'s value is a function of
  (key, r, stream) alone, whatever else is drawn in the same call.  Engines that split the
  rows over machines (Spark executors) draw the same values as one local call, given the same
  per-release key and the same row ids (e.g. keyed hashes of item labels).  Equal rows give
  equal values: use distinct rows, or distinct ``stream`` ids, for independent noise.

Examples
--------
>>> z = discrete_gaussian(100, rng=0, size=10_000)
>>> z.dtype.name, bool(abs(z.std() - 10) < 0.5)
('int64', True)
>>> key = noise_key(1)
>>> a = discrete_laplace_rows(3, key, np.array([5, 9, 11], dtype=np.uint64))
>>> b = discrete_laplace_rows(3, key, np.array([11, 5], dtype=np.uint64))
>>> a[[2, 0]].tolist() == b.tolist()  # row 11 and row 5 get the same noise in both calls
True
"""

from __future__ import annotations

import math
import numbers
from collections.abc import Callable
from fractions import Fraction
from typing import Any

import numpy as np
import numpy.typing as npt

from dpcount.common.cores import in_two_halves
from dpcount.common.rng import RNGLike
from dpcount.errors import InvalidParameterError
from mechanisms.noise import _kernels
from mechanisms.noise.counter import NoiseKey, new_state, noise_key, round_keys

__all__ = [
    "discrete_gaussian",
    "discrete_gaussian_rows",
    "discrete_laplace",
    "discrete_laplace_rows",
    "rational_scale_at_least",
    "rational_variance_at_least",
]

# Scales are rounded *up* to a multiple of 2**-_SCALE_BITS: more noise never hurts privacy, and
# small denominators keep the exact arithmetic fast.
_SCALE_BITS = 32
_INT64_MAX = 2**63 - 1
#: Draws of fewer rows run interpreted unless the kernel is already compiled: compiling costs
#: more than interpreting so few.
_FEW_ROWS = 64
#: From this many rows on, a compiled draw runs its two halves on two threads: each row's value
#: depends on (key, row, stream) alone, so the values are the same.
PARALLEL_ROWS = 1 << 15
_STREAM_MAX = 2**64 - 1


def _positive_rational(value: Any, name: str) -> Fraction:
    """``value`` as an exact positive rational (a float at its binary value)."""
    if isinstance(value, bool) or not isinstance(value, numbers.Real):
        raise InvalidParameterError(f"{name} must be a positive number, got {value!r}")
    try:
        exact = Fraction(value)  # type: ignore[call-overload]
    except (TypeError, ValueError, OverflowError):
        raise InvalidParameterError(
            f"{name} must be a finite positive number, got {value!r}"
        ) from None
    if exact <= 0:
        raise InvalidParameterError(f"{name} must be > 0, got {value!r}")
    return exact


def rational_scale_at_least(scale: float | Fraction) -> Fraction:
    """The smallest multiple of 2⁻³² that is ≥ ``scale`` (exact, no rounding down).

    Examples
    --------
    >>> rational_scale_at_least(0.5)
    Fraction(1, 2)
    """
    exact = _positive_rational(scale, "noise scale")
    denominator = 2**_SCALE_BITS
    return Fraction(math.ceil(exact * denominator), denominator)


def _gaussian_parameters(sigma_squared: Fraction) -> tuple[int, int, int]:
    """(a, b, t) with σ² = a/b in lowest terms and t = ⌊σ⌋ + 1 = ⌊√⌊σ²⌋⌋ + 1 (CKS20, Alg. 3)."""
    a, b = sigma_squared.numerator, sigma_squared.denominator
    return a, b, math.isqrt(a // b) + 1


#: Numerators a of σ² = a/b above this take the split acceptance coin: the plain one's
#: (|Y|·b·t − a)² would pass 2⁶² for |Y| beyond ~2⁶σ and leave rows to redo in Python ints.
_PLAIN_NUMERATOR = 2**25


def _gaussian_split(a: int, b: int, t: int) -> bool:
    """Whether the acceptance coin is split in three (large numerator or denominator 2abt²);
    needs σ² ≥ ½ (b ≤ 2a) for the split's third coin."""
    large = a > _PLAIN_NUMERATOR or 2 * a * b * t * t > _kernels.LIMIT
    return large and b <= 2 * a


def _gaussian_fits(a: int, b: int, t: int) -> bool:
    """Whether the compiled sampler holds every integer of σ² = a/b within 64 bits."""
    limit = _kernels.LIMIT
    if _gaussian_split(a, b, t):
        return 2 * a <= limit and t * b <= limit and a * t <= limit
    return 2 * a * b * t * t <= limit  # then a and b·t are below it too


def rational_variance_at_least(sigma_squared: float | Fraction) -> Fraction:
    """σ² rounded up to c/2^j, c ≤ 2²⁵, with the largest such j ≤ 62: the fastest exact form.

    :func:`discrete_gaussian` takes σ² exactly; a float such as 13.9 has a denominator near
    2⁵⁰ and would be sampled with larger integers (correct, but slower).  This rounds it up
    (more noise, never less) to a dyadic rational with a numerator of at most 25 bits, which
    the compiled sampler draws fastest; the relative increase is below 2⁻²⁴ ≈ 6·10⁻⁸.  From
    σ² = 2²⁵ (σ ≈ 5800) on it is ⌈σ²⌉ (relative increase below 1/σ²); beyond σ ≈ 1.6·10⁶
    integers need arbitrary precision (correct, slower).

    Examples
    --------
    >>> rational_variance_at_least(4)
    Fraction(4, 1)
    >>> v = rational_variance_at_least(13.9)
    >>> v >= Fraction(13.9), float(v - Fraction(13.9)) < 1e-6, v.denominator < 2**62
    (True, True, True)
    """
    exact = _positive_rational(sigma_squared, "sigma_squared")
    for bits in range(62, -1, -1):
        candidate = Fraction(math.ceil(exact * 2**bits), 2**bits)
        a, b, t = _gaussian_parameters(candidate)
        if a <= _PLAIN_NUMERATOR and _gaussian_fits(a, b, t):
            return candidate
    return Fraction(math.ceil(exact))


def _rows(rows: npt.ArrayLike) -> np.ndarray:
    """Row ids as a contiguous uint64 array (any integer dtype, taken modulo 2⁶⁴)."""
    array = np.asarray(rows)
    if array.ndim != 1 or not (array.size == 0 or np.issubdtype(array.dtype, np.integer)):
        raise InvalidParameterError("rows must be a 1-D array of integer row ids")
    return np.ascontiguousarray(array.astype(np.uint64, copy=False))


def _check_stream(stream: Any) -> int:
    if isinstance(stream, bool) or not isinstance(stream, int | np.integer):
        raise InvalidParameterError(f"stream must be an integer in [0, 2**64), got {stream!r}")
    if not 0 <= int(stream) <= _STREAM_MAX:
        raise InvalidParameterError(f"stream must be an integer in [0, 2**64), got {stream!r}")
    return int(stream)


def _check_key(key: Any) -> NoiseKey:
    if not isinstance(key, NoiseKey):
        raise InvalidParameterError(
            f"key must be a NoiseKey (see mechanisms.noise.noise_key), got {type(key).__name__}"
        )
    return key


def _draw(
    batch: Any,
    row: Any,
    params: tuple[int, ...],
    fits: bool,
    key: NoiseKey,
    rows: np.ndarray,
    stream: int,
) -> np.ndarray:
    """Run ``batch`` compiled over ``rows`` and redo its pending rows with ``row`` interpreted.

    Small calls (or parameters beyond 64 bits) run every row interpreted; calls of fewer than
    ``_FEW_ROWS`` rows never compile.  Both forms give the same value for each row.  The
    result is int64, or an object array of Python ints if some value does not fit in 64 bits.
    """
    keys = round_keys(key)
    interpreted: Callable[..., tuple[int, int]] = row.interpreted

    def exact(r: int) -> int:
        return interpreted(new_state(keys, r, stream), *params, False)[1]

    if rows.size < _FEW_ROWS:  # one-off draws never pay for compiling (or loading) a kernel
        compiled = batch.is_compiled
    else:
        compiled = batch.select(rows.size) is not batch.interpreted
    if fits and compiled:
        out = np.empty(rows.size, dtype=np.int64)
        pending = np.zeros(rows.size, dtype=np.uint8)
        template = np.array(new_state(keys, 0, stream), dtype=np.uint64)

        def run(first: int, stop: int) -> None:
            part = slice(first, stop)
            batch.compiled(template, rows[part], *params, out[part], pending[part])

        in_two_halves(run, rows.size, min_rows=PARALLEL_ROWS)
        redo = np.flatnonzero(pending)
        if redo.size == 0:
            return out
        values: list[int] = out.tolist()
        for i in redo.tolist():
            values[i] = exact(int(rows[i]))
    else:
        values = [exact(r) for r in rows.tolist()]
    if all(-_INT64_MAX <= v <= _INT64_MAX for v in values):
        return np.array(values, dtype=np.int64)
    return np.array(values, dtype=object)


def discrete_laplace_rows(
    scale: float | Fraction, key: NoiseKey, rows: npt.ArrayLike, *, stream: int = 0
) -> np.ndarray:
    """Exact discrete Laplace noise for each row id, a function of (key, row, stream) alone.

    Parameters
    ----------
    scale
        s > 0: P[Z = z] ∝ exp(−|z|/s).  Taken exactly (a float at its binary value).
    key
        The release's secret :class:`~mechanisms.noise.NoiseKey`.
    rows
        Row ids (integers, taken modulo 2⁶⁴); equal ids get equal values.
    stream
        Separates independent draws for the same rows (e.g. rounds of one release).

    Returns
    -------
    numpy.ndarray
        One value per row, ``int64`` (an object array of Python ints in the astronomically
        unlikely case that a value exceeds 64 bits).

    Notes
    -----
    Canonne, Kamath & Steinke (2020), Algorithm 2 with scale t/s = ``scale`` in lowest terms.
    Adding it to an integer query of ℓ1-sensitivity Δ with ``scale`` ≥ Δ/ε is ε-DP.

    Examples
    --------
    >>> z = discrete_laplace_rows(2, noise_key(0), np.arange(5))
    >>> z.shape, z.dtype.name
    ((5,), 'int64')
    """
    exact = _positive_rational(scale, "noise scale")
    t, s = exact.numerator, exact.denominator
    fits = t <= _kernels.LIMIT and s <= _kernels.LIMIT
    return _draw(
        _kernels.laplace_rows,
        _kernels.laplace_row,
        (t, s),
        fits,
        _check_key(key),
        _rows(rows),
        _check_stream(stream),
    )


def discrete_gaussian_rows(
    sigma_squared: float | Fraction, key: NoiseKey, rows: npt.ArrayLike, *, stream: int = 0
) -> np.ndarray:
    """Exact discrete Gaussian noise for each row id, a function of (key, row, stream) alone.

    Parameters
    ----------
    sigma_squared
        σ² > 0: P[Z = z] ∝ exp(−z²/(2σ²)).  Taken exactly; see
        :func:`rational_variance_at_least` for a fast representation of a float.
    key, rows, stream
        As for :func:`discrete_laplace_rows`.

    Returns
    -------
    numpy.ndarray
        One value per row, ``int64`` (object array if a value exceeds 64 bits).

    Notes
    -----
    Canonne, Kamath & Steinke (2020), Algorithm 3.  Adding independent N_ℤ(0, σ²) to each
    coordinate of an integer vector query of ℓ2-sensitivity Δ is (Δ²/(2σ²))-zCDP (their
    Theorem 4 per coordinate, summed over coordinates as zCDP composes; Bun & Steinke
    2016, Lemma 2.3).

    Examples
    --------
    >>> z = discrete_gaussian_rows(Fraction(9, 4), noise_key(0), np.arange(4), stream=2)
    >>> z.shape
    (4,)
    """
    exact = _positive_rational(sigma_squared, "sigma_squared")
    a, b, t = _gaussian_parameters(exact)
    return _draw(
        _kernels.gaussian_rows,
        _kernels.gaussian_row,
        (a, b, t, _gaussian_split(a, b, t)),
        _gaussian_fits(a, b, t),
        _check_key(key),
        _rows(rows),
        _check_stream(stream),
    )


def _check_size(size: Any) -> int:
    if isinstance(size, bool) or not isinstance(size, int | np.integer) or int(size) < 0:
        raise InvalidParameterError(f"size must be None or an integer >= 0, got {size!r}")
    return int(size)


def discrete_laplace(
    scale: float | Fraction, rng: RNGLike = None, size: int | None = None
) -> np.ndarray | int:
    """Exact discrete Laplace noise: P[Z = z] ∝ exp(−|z| / scale) on the integers.

    Parameters
    ----------
    scale
        The scale ``s > 0``.  A float is taken exactly (its binary value), never rounded down.
    rng
        Randomness per docs/concepts.md: it supplies the 128-bit key of the draw.
    size
        ``None`` for one Python ``int``, else the number of draws (an ``int64`` array).

    Notes
    -----
    Canonne, Kamath & Steinke (2020), Algorithm 2 (see :func:`discrete_laplace_rows`).
    Adding Z with scale Δ/ε to an integer query of sensitivity Δ is ε-DP.  Expected work per
    draw is O(1) uniform integers.

    Examples
    --------
    >>> z = discrete_laplace(2, rng=0, size=1000)
    >>> z.dtype.name, bool(abs(z.mean()) < 0.5)
    ('int64', True)
    """
    exact = _positive_rational(scale, "noise scale")
    n = 1 if size is None else _check_size(size)
    values = discrete_laplace_rows(exact, noise_key(rng), np.arange(n, dtype=np.uint64))
    return int(values[0]) if size is None else values


def discrete_gaussian(
    sigma_squared: float | Fraction, rng: RNGLike = None, size: int | None = None
) -> np.ndarray | int:
    """Exact discrete Gaussian noise: P[Z = z] ∝ exp(−z²/(2σ²)) on the integers.

    Parameters
    ----------
    sigma_squared
        σ² > 0, taken exactly (see :func:`rational_variance_at_least`).
    rng
        Randomness per docs/concepts.md: it supplies the 128-bit key of the draw.
    size
        ``None`` for one Python ``int``, else the number of draws (an ``int64`` array).

    Notes
    -----
    Canonne, Kamath & Steinke (2020), Algorithm 3 (see :func:`discrete_gaussian_rows`).  Its
    variance is slightly below σ² (their §2.2); the privacy statements use σ².

    Examples
    --------
    >>> discrete_gaussian(Fraction(1, 100), rng=0, size=5).tolist()  # σ = 0.1: almost all 0
    [0, 0, 0, 0, 0]
    """
    exact = _positive_rational(sigma_squared, "sigma_squared")
    n = 1 if size is None else _check_size(size)
    values = discrete_gaussian_rows(exact, noise_key(rng), np.arange(n, dtype=np.uint64))
    return int(values[0]) if size is None else values
