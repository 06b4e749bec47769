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

    The stream, the uniform integers and the coin are called dozens of times per value; as
    separate compiled functions those calls would cost more than the work they do.  Each row
    sampler calls the coin from as few places as it can, because every inlined call site is
    compiled again: with a coin function per kind of coin, inlined at a dozen sites, numba
    took 45–90 s to compile the Gaussian sampler.

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


@_helper("(uint64[::1], int64, int64, int64, int64, int64, int64, int64, int64, int64, int64)")
def _coin(
    state: np.ndarray,
    factors: int,
    p1: int,
    q1: int,
    l1: int,
    p2: int,
    q2: int,
    l2: int,
    p3: int,
    q3: int,
    l3: int,
) -> bool:
    """Bernoulli(exp(−γ)), γ = ∏ p_i/q_i ≤ 1 over the first ``factors`` (0–3) factors (γ = 1
    for none), ``l_i`` the bit length of q_i − 1 (CKS20, Algorithm 1).

    K counts up while Bernoulli(γ/K) lands heads; heads iff K ends odd.  Bernoulli(γ/K) is
    drawn as Bernoulli(1/K) and one exact coin Bernoulli(p_i/q_i) per factor, stopping at the
    first tails, so no product of denominators is ever formed.
    """
    k = 1
    while _one_in(state, k):
        for i in range(factors):
            if i == 0:
                p, q, length = p1, q1, l1
            elif i == 1:
                p, q, length = p2, q2, l2
            else:
                p, q, length = p3, q3, l3
            if _below(state, q, length) >= p:
                return k % 2 == 1
        k += 1
    return k % 2 == 1


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
        if u > 0 and not _coin(state, 1, u, t, t_length, 0, 0, 0, 0, 0, 0):
            continue  # D ~ Bernoulli(e^{−U/t}) landed tails (heads for U = 0, with no draw)
        v = 0
        while _coin(state, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0):  # V ~ Geometric(1 − e⁻¹)
            v += 1
        if bounded and v > (LIMIT - u) // t:
            return 1, 0
        y = (u + t * v) // s
        negative = _bits(state, 1) == 1
        if negative and y == 0:  # zero would otherwise be counted twice
            continue
        return 0, -y if negative else y


# Steps of gaussian_row's loop.  Each step flips at most one coin, at the loop's single coin site.
_PROPOSE = 0  # U uniform below t, then Bernoulli(exp(−U/t))          (CKS20 Algorithm 2)
_GEOMETRIC = 1  # Bernoulli(e⁻¹) while V counts up                    (CKS20 Algorithm 2)
_EXPONENT = 2  # start the coin Bernoulli(exp(−n/m)) of the current exponent (no coin)
_WHOLE = 3  # one of its ⌊n/m⌋ coins Bernoulli(e⁻¹)
_FRACTION = 4  # its last coin Bernoulli(exp(−(n mod m)/m))
_PASSED = 5  # that coin landed heads: the next exponent, or accept (no coin)
_SQUARE = 6  # the split form's last coin Bernoulli(exp(−(r/D)²·b/(2a)))
# The exponents of the acceptance coin: split into two (then _SQUARE), or plain.
_SPLIT_FIRST, _SPLIT_SECOND, _PLAIN = 0, 1, 2


@kernel("(uint64[::1], int64, int64, int64, boolean, boolean)")
def gaussian_row(
    state: np.ndarray, a: int, b: int, t: int, split: bool, bounded: bool
) -> tuple[int, int]:
    """(pending, Z): Z with P[Z = z] ∝ exp(−z²/(2σ²)), σ² = a/b, t = ⌊σ⌋ + 1 (CKS20, Alg. 3).

    A discrete Laplace Y of scale t (CKS20, Algorithm 2) is accepted with probability exp(−γ),
    γ = (|Y| − σ²/t)²/(2σ²) = x²/(2·a·b·t²) with x = |Y|·b·t − a: integers throughout.  Without
    ``split`` the acceptance is one coin of that fraction (``bounded`` then needs
    2·a·b·t² ≤ LIMIT).  With ``split`` (large σ), D = t·b and x = qD + r (0 ≤ r < D):
    γ = q²b/(2a) + qr/(at) + (r/D)²·b/(2a), three coins with smaller integers (``bounded`` needs
    2a, b·t and a·t ≤ LIMIT; docs/algorithms.md §8).  The caller checks those and chooses
    ``split`` from the parameters alone, so both forms take the same path.

    Every coin is :func:`_coin`, flipped at one place in a loop whose ``step`` says which coin
    comes next, so the coin is inlined once.  The Laplace proposal is :func:`laplace_row`'s,
    written as two steps of that loop: calling :func:`laplace_row` instead made a first
    Gaussian draw compile for about 7.5 s rather than 3.5 s.  Coins and uniform integers are
    drawn in the order of the algorithms as written.
    """
    tb = t * b
    t_length = _bit_length(t - 1)
    two_a = 2 * a
    two_a_length = _bit_length(two_a - 1)
    if split:
        d_length = _bit_length(tb - 1)
        at_length = _bit_length(a * t - 1)
        plain = plain_length = 0
    else:
        d_length = at_length = 0
        plain = two_a * b * t * t
        plain_length = _bit_length(plain - 1)
    # Bounds of the checks below, divided once rather than once per draw.
    v_limit, magnitude_limit, q_squared_limit = LIMIT // t, LIMIT // tb, LIMIT // b
    step = _PROPOSE
    u = v = y = q = r = n = m = m_length = left = fraction = 0
    exponent = _PLAIN
    while True:
        # 1. The step's coin: up to three factors (p_i, q_i, bit length of q_i − 1).
        factors = 0
        p1 = q1 = l1 = p3 = q3 = l3 = 0
        if step == _PROPOSE:
            u = _below(state, t, t_length) if t > 1 else 0
            if u == 0:  # Bernoulli(e⁰): heads without a draw
                step, v = _GEOMETRIC, 0
                continue
            factors, p1, q1, l1 = 1, u, t, t_length
        elif step == _EXPONENT:
            left = n // m
            fraction = n - left * m
            step = _WHOLE if left > 0 else (_FRACTION if fraction > 0 else _PASSED)
            continue
        elif step == _FRACTION:
            factors, p1, q1, l1 = 1, fraction, m, m_length
        elif step == _PASSED:
            if exponent == _SPLIT_FIRST:
                exponent, n, m, m_length, step = _SPLIT_SECOND, q * r, a * t, at_length, _EXPONENT
            elif exponent == _SPLIT_SECOND and r > 0:
                step = _SQUARE
            else:
                return 0, y
            continue
        elif step == _SQUARE:
            factors, p1, q1, l1, p3, q3, l3 = 3, r, tb, d_length, b, two_a, two_a_length
        heads = _coin(state, factors, p1, q1, l1, p1, q1, l1, p3, q3, l3)
        # 2. Where the coin leads.
        if step == _PROPOSE:
            if heads:
                step, v = _GEOMETRIC, 0
        elif step == _GEOMETRIC:
            if heads:
                v += 1
                continue
            if bounded and v > 0 and (v > v_limit or t * v > LIMIT - u):  # U + t·V > LIMIT
                return 1, 0
            magnitude = u + t * v  # |Y|, Y = ±(U + t·V)
            negative = _bits(state, 1) == 1
            if negative and magnitude == 0:  # zero would otherwise be counted twice
                step = _PROPOSE
                continue
            y = -magnitude if negative else magnitude
            if bounded and magnitude > magnitude_limit:
                return 1, 0
            x = abs(magnitude * tb - a)
            if split:
                q = x // tb
                r = x - q * tb
                if bounded and (
                    q > _ROOT or (q > 0 and q * q > q_squared_limit) or (r > 0 and q > LIMIT // r)
                ):
                    return 1, 0
                exponent, n, m, m_length = _SPLIT_FIRST, q * q * b, two_a, two_a_length
            else:
                if bounded and x > _ROOT:
                    return 1, 0
                exponent, n, m, m_length = _PLAIN, x * x, plain, plain_length
            step = _EXPONENT
        elif step == _WHOLE:
            if not heads:
                step = _PROPOSE
            else:
                left -= 1
                if left == 0:
                    step = _FRACTION if fraction > 0 else _PASSED
        elif step == _FRACTION:
            step = _PASSED if heads else _PROPOSE
        else:  # _SQUARE
            if heads:
                return 0, y
            step = _PROPOSE


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
