"""Compiled kernels of the exact discrete samplers, reading counter-based row streams.

One row's draw is a short sequential loop (rejection sampling); across rows there is nothing
to share, so the kernels loop over rows and run each row's sampler to the end.  Every sampler
function below is written once and runs in two forms (see :mod:`dpcount.common.jit`):

* **compiled** (numba, 64-bit integers): every intermediate integer is kept ≤ ``LIMIT = 2⁶²``
  by explicit checks; a row whose draw would need a larger integer stops and is reported
  *pending* — it never wraps around;
* **interpreted** with Python's arbitrary-precision integers and the pure-Python stream of
  :mod:`mechanisms.noise.counter` (its twin :func:`_bits`), with the checks switched off.

A pending row is redrawn interpreted from the start of its stream: both forms read the same
bits and take the same decisions, so the interpreted redraw repeats the compiled steps exactly
and then continues where 64 bits no longer suffice.  The result is therefore the same in both
forms, for every row (tested).

The samplers are Canonne, Kamath & Steinke (2020), "The Discrete Gaussian for Differential
Privacy": Algorithm 1 (Bernoulli(exp(−γ)) for rational γ), Algorithm 2 (discrete Laplace of
scale t/s) and Algorithm 3 (discrete Gaussian of variance parameter σ² = a/b).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

from dpcount.common.jit import Kernel, kernel
from mechanisms.noise.counter import PHILOX_M0, PHILOX_M1, ROUNDS, stream_bits

__all__ = [
    "INTERPRET_BELOW",
    "LIMIT",
    "gaussian_row",
    "gaussian_rows",
    "laplace_row",
    "laplace_rows",
]

#: Largest integer the compiled samplers hold; rows that need more are redrawn in Python ints.
LIMIT = 2**62
_ROOT = 2**31  # squares of numbers up to _ROOT stay within LIMIT
#: Rows per call below which the samplers run interpreted: below it, interpreting is cheaper
#: than compiling.
INTERPRET_BELOW = 2_000

_MASK32 = np.uint64(0xFFFFFFFF)
_SHIFT32 = np.uint64(32)
_M0_LOW, _M0_HIGH = np.uint64(PHILOX_M0 & 0xFFFFFFFF), np.uint64(PHILOX_M0 >> 32)
_M1_LOW, _M1_HIGH = np.uint64(PHILOX_M1 & 0xFFFFFFFF), np.uint64(PHILOX_M1 >> 32)
_ZERO = np.uint64(0)
_ONE = np.uint64(1)
_TWO = np.uint64(2)
_THREE = np.uint64(3)
_WORD = np.uint64(64)


def _helper(signature: str, twin: Any = None) -> Callable[[Callable[..., Any]], Kernel]:
    """Declare a small helper that numba inlines into the kernels calling it.

    The stream, the uniform integers and the two small coins are called dozens of times per
    value; as separate compiled functions those calls would cost more than the work they do
    (sampling 10⁶ discrete Gaussians took 0.57 s with the small coins compiled apart, 0.44 s
    inlined).  The larger coins and the row samplers are kernels of their own: inlining those
    as well made one row sampler a single function so large that numba took 45–90 s to
    compile it (now about 10 s for all of them).

    ``twin``, if given, is the interpreted form: a pure-Python function with the same results
    (the stream, whose compiled form works on ``uint64`` words and whose twin returns Python
    ints, so that the interpreted samplers compute with arbitrary precision).
    """

    return kernel(signature, inline=True, twin=twin)


# --------------------------------------------------------------------------------------------
# Philox4x64-10 and the row stream (compiled form; twin in mechanisms.noise.counter)
# --------------------------------------------------------------------------------------------


@_helper("(uint64, uint64, uint64)")
def _mulhilo(a_low: np.uint64, a_high: np.uint64, b: np.uint64) -> tuple[Any, Any]:
    """(high, low) 64-bit halves of the 128-bit product a·b, a given as 32-bit halves."""
    b0, b1 = b & _MASK32, b >> _SHIFT32
    p00, p01, p10, p11 = a_low * b0, a_low * b1, a_high * b0, a_high * b1  # each < 2⁶⁴
    middle = (p00 >> _SHIFT32) + (p01 & _MASK32) + (p10 & _MASK32)  # < 3·2³²
    high = p11 + (p01 >> _SHIFT32) + (p10 >> _SHIFT32) + (middle >> _SHIFT32)
    low = (p00 & _MASK32) | ((middle & _MASK32) << _SHIFT32)
    return high, low


@kernel("(uint64[::1],)")
def _refill(state: np.ndarray) -> None:
    """Load the next word into the reservoir; every fourth word computes a Philox block.

    Word j is word j mod 4 of Philox4x64-10 at counter (⌊j/4⌋, row, stream, 0) with the round
    keys state[7:27] (layout of ``counter.STATE_SIZE``).
    """
    j = state[0]
    if (j & _THREE) == _ZERO:
        x0, x1, x2, x3 = j >> _TWO, state[27], state[28], _ZERO
        for r in range(ROUNDS):
            high0, low0 = _mulhilo(_M0_LOW, _M0_HIGH, x0)
            high1, low1 = _mulhilo(_M1_LOW, _M1_HIGH, x2)
            x0, x1, x2, x3 = (
                high1 ^ x1 ^ state[7 + 2 * r],
                low1,
                high0 ^ x3 ^ state[8 + 2 * r],
                low0,
            )
        state[3], state[4], state[5], state[6] = x0, x1, x2, x3
    state[1] = state[np.intp(j & _THREE) + 3]
    state[0] = j + _ONE
    state[2] = _WORD


@_helper("(uint64[::1], int64)", stream_bits)
def _bits(state: np.ndarray, take: int) -> Any:
    """The next ``take`` ≤ 32 bits of the row stream (twin: ``counter.stream_bits``)."""
    wanted = np.uint64(take)
    if state[2] < wanted:
        _refill(state)
    value = state[1] & ((_ONE << wanted) - _ONE)
    state[1] = state[1] >> wanted
    state[2] = state[2] - wanted
    return np.int64(value)


# --------------------------------------------------------------------------------------------
# Uniform integers and exact coins (CKS20 Algorithm 1)
# --------------------------------------------------------------------------------------------


@_helper("(int64,)")
def _bit_length(n: int) -> int:
    """Number of bits of n ≥ 0 (0 for 0)."""
    length = 0
    while n >= 65536:
        n >>= 16
        length += 16
    while n > 0:
        n >>= 1
        length += 1
    return length


@_helper("(uint64[::1], int64, int64)")
def _below(state: np.ndarray, n: int, length: int) -> int:
    """A uniform integer in [0, n), n ≥ 2, ``length`` = bit length of n − 1: that many fresh
    bits, rejected while ≥ n (fewer than two tries on average)."""
    while True:
        x = 0
        need = length
        while need > 0:  # at most two words for n ≤ 2⁶², any number interpreted
            take = min(need, 32)
            x = (x << take) | _bits(state, take)
            need -= take
        if x < n:
            return x


@_helper("(uint64[::1], int64)")
def _one_in(state: np.ndarray, k: int) -> bool:
    """Bernoulli(1/k) for k ≥ 1: a uniform integer below k being 0."""
    if k == 1:
        return True
    return _below(state, k, _bit_length(k - 1)) == 0


@_helper("(uint64[::1],)")
def _coin_exp_minus_one(state: np.ndarray) -> bool:
    """Bernoulli(e⁻¹) (CKS20, Algorithm 1 with γ = 1): K counts up while Bernoulli(1/K) lands
    heads (always for K = 1); heads iff K ends odd."""
    k = 2
    while _one_in(state, k):
        k += 1
    return k % 2 == 1


@_helper("(uint64[::1], int64, int64, int64)")
def _coin_exp_fraction(state: np.ndarray, p: int, q: int, q_length: int) -> bool:
    """Bernoulli(exp(−p/q)) for integers 0 ≤ p < q, ``q_length`` the bit length of q − 1
    (CKS20, Algorithm 1).

    K counts up while Bernoulli(γ/K) lands heads; heads iff K ends odd.  Bernoulli(γ/K) is
    drawn as Bernoulli(1/K) ∧ Bernoulli(p/q), two independent exact coins, so no product of
    denominators is ever formed.
    """
    if p == 0:
        return True
    k = 1
    while _one_in(state, k) and _below(state, q, q_length) < p:
        k += 1
    return k % 2 == 1


@kernel("(uint64[::1], int64, int64, int64)")
def _coin_exp(state: np.ndarray, n: int, m: int, m_length: int) -> bool:
    """Bernoulli(exp(−n/m)) for integers n ≥ 0, m ≥ 2: ⌊n/m⌋ coins Bernoulli(e⁻¹) (stopping at
    the first tails), then one for the fractional part (CKS20, Algorithm 1 and the remark
    after it)."""
    whole = n // m
    for _ in range(whole):
        if not _coin_exp_minus_one(state):
            return False
    return _coin_exp_fraction(state, n - whole * m, m, m_length)


# --------------------------------------------------------------------------------------------
# The samplers of one row (CKS20 Algorithms 2 and 3)
# --------------------------------------------------------------------------------------------


@kernel("(uint64[::1], int64, int64, boolean)")
def laplace_row(state: np.ndarray, t: int, s: int, bounded: bool) -> tuple[int, int]:
    """(pending, Z): Z with P[Z = z] ∝ exp(−|z|·s/t) (CKS20, Algorithm 2), 1 ≤ s, t.

    ``bounded`` keeps every integer ≤ LIMIT and returns pending = 1 instead of passing it.
    """
    t_length = _bit_length(t - 1)
    while True:
        u = _below(state, t, t_length) if t > 1 else 0
        if not _coin_exp_fraction(state, u, t, t_length):  # D ~ Bernoulli(e^{−U/t})
            continue
        v = 0
        while _coin_exp_minus_one(state):  # V ~ Geometric(1 − e⁻¹)
            v += 1
        if bounded and v > (LIMIT - u) // t:
            return 1, 0
        y = (u + t * v) // s
        negative = _bits(state, 1) == 1
        if negative and y == 0:  # zero would otherwise be counted twice
            continue
        return 0, -y if negative else y


@kernel("(uint64[::1], int64, int64, int64, int64)")
def _coin_exp_square(state: np.ndarray, r: int, d: int, b: int, two_a: int) -> bool:
    """Bernoulli(exp(−(r/d)²·b/(2a))) for 0 ≤ r < d and b ≤ 2a (so the exponent is < 1).

    CKS20 Algorithm 1 with Bernoulli(γ/K) drawn as four independent exact coins:
    Bernoulli(1/K) ∧ Bernoulli(r/d) ∧ Bernoulli(r/d) ∧ Bernoulli(b/(2a)).
    """
    if r == 0:
        return True
    d_length, a_length = _bit_length(d - 1), _bit_length(two_a - 1)
    k = 1
    while (
        _one_in(state, k)
        and _below(state, d, d_length) < r
        and _below(state, d, d_length) < r
        and _below(state, two_a, a_length) < b
    ):
        k += 1
    return k % 2 == 1


@kernel("(uint64[::1], int64, int64, int64, int64, boolean)")
def _coin_exp_split(state: np.ndarray, x: int, a: int, b: int, t: int, bounded: bool) -> int:
    """Bernoulli(exp(−x²/(2abt²))) for x ≥ 0 as three coins whose integers stay small.

    With D = t·b and x = qD + r (0 ≤ r < D): x²/(2abt²) = q²b/(2a) + qr/(at) + (r/D)²·b/(2a),
    so the coin is the product of three exact coins (docs/algorithms.md §8).  Returns 1 or 0,
    or −1 (pending) when ``bounded`` and q²b or qr would pass LIMIT.
    """
    d = t * b
    q = x // d
    r = x - q * d
    if bounded and (q > _ROOT or (q > 0 and q * q > LIMIT // b) or (r > 0 and q > LIMIT // r)):
        return -1
    if not _coin_exp(state, q * q * b, 2 * a, _bit_length(2 * a - 1)):
        return 0
    if not _coin_exp(state, q * r, a * t, _bit_length(a * t - 1)):
        return 0
    return 1 if _coin_exp_square(state, r, d, b, 2 * a) else 0


@kernel("(uint64[::1], int64, int64, int64, boolean, boolean)")
def gaussian_row(
    state: np.ndarray, a: int, b: int, t: int, split: bool, bounded: bool
) -> tuple[int, int]:
    """(pending, Z): Z with P[Z = z] ∝ exp(−z²/(2σ²)), σ² = a/b, t = ⌊σ⌋ + 1 (CKS20, Alg. 3).

    A discrete Laplace Y of scale t is accepted with probability exp(−γ),
    γ = (|Y| − σ²/t)²/(2σ²) = (|Y|·b·t − a)² / (2·a·b·t²): integers throughout.  Without
    ``split`` the coin uses that fraction as it is (``bounded`` then needs 2·a·b·t² ≤ LIMIT);
    with ``split`` (large σ) it is three coins with smaller integers (:func:`_coin_exp_split`;
    ``bounded`` needs 2a, b·t and a·t ≤ LIMIT).  The caller checks those and chooses ``split``
    from the parameters alone, so both forms take the same path.
    """
    tb = t * b
    m = 0 if split else 2 * a * b * t * t
    m_length = 0 if split else _bit_length(m - 1)
    while True:
        pending, y = laplace_row(state, t, 1, bounded)
        if pending:
            return 1, 0
        magnitude = abs(y)
        if bounded and magnitude > LIMIT // tb:
            return 1, 0
        d = magnitude * tb - a
        if split:
            accepted = _coin_exp_split(state, abs(d), a, b, t, bounded)
            if accepted < 0:
                return 1, 0
            if accepted == 1:
                return 0, y
            continue
        if bounded and abs(d) > _ROOT:
            return 1, 0
        if _coin_exp(state, d * d, m, m_length):
            return 0, y


# --------------------------------------------------------------------------------------------
# Batches
# --------------------------------------------------------------------------------------------


@kernel(
    "(ro(uint64[::1]), ro(uint64[::1]), int64, int64, int64[::1], uint8[::1])",
    interpret_below=INTERPRET_BELOW,
)
def laplace_rows(
    template: np.ndarray, rows: np.ndarray, t: int, s: int, out: np.ndarray, pending: np.ndarray
) -> None:
    """:func:`laplace_row` for every row (bounded); ``pending[i] = 1`` marks rows to redo.

    ``template`` is a state with the round keys and the stream id set (row and words unset).
    """
    state = template.copy()
    for i in range(rows.size):
        for w in range(7):  # (a loop: slice assignment compiles its error formatting)
            state[w] = 0
        state[27] = rows[i]
        status, value = laplace_row(state, t, s, True)
        out[i] = value
        pending[i] = status


@kernel(
    "(ro(uint64[::1]), ro(uint64[::1]), int64, int64, int64, boolean, int64[::1], uint8[::1])",
    interpret_below=INTERPRET_BELOW,
)
def gaussian_rows(
    template: np.ndarray,
    rows: np.ndarray,
    a: int,
    b: int,
    t: int,
    split: bool,
    out: np.ndarray,
    pending: np.ndarray,
) -> None:
    """:func:`gaussian_row` for every row (bounded); ``pending[i] = 1`` marks rows to redo."""
    state = template.copy()
    for i in range(rows.size):
        for w in range(7):  # (a loop: slice assignment compiles its error formatting)
            state[w] = 0
        state[27] = rows[i]
        status, value = gaussian_row(state, a, b, t, split, True)
        out[i] = value
        pending[i] = status
