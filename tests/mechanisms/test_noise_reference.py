"""The row samplers draw exactly what Canonne, Kamath & Steinke's algorithms, as written, draw.

The kernels flip their coins from one place in a loop, to compile quickly
(:mod:`mechanisms.noise._kernels`).  Below, the same algorithms are written plainly — one
function per coin, nested as in the paper — and read the same row stream
(:func:`mechanisms.noise.counter.stream_bits`).  Equal values row by row, over parameters that
take every branch, show that the loop flips the same coins in the same order.
"""

from __future__ import annotations

from fractions import Fraction

import numpy as np
import pytest

from mechanisms.noise import _kernels as kernels
from mechanisms.noise import noise_key
from mechanisms.noise.counter import new_state, round_keys, stream_bits
from mechanisms.noise.discrete import _gaussian_parameters

State = list[int]


def _below(state: State, n: int) -> int:
    """Uniform below n ≥ 2: bit_length(n − 1) fresh bits (≤ 32 at a time), rejected while ≥ n."""
    while True:
        x, need = 0, (n - 1).bit_length()
        while need > 0:
            take = min(need, 32)
            x = (x << take) | stream_bits(state, take)
            need -= take
        if x < n:
            return x


def _one_in(state: State, k: int) -> bool:
    return k == 1 or _below(state, k) == 0


def _exp_fraction(state: State, factors: list[tuple[int, int]]) -> bool:
    """Bernoulli(exp(−∏ p/q)), each p/q ≤ 1 (Algorithm 1; Bernoulli(γ/K) as Bernoulli(1/K) and
    one coin per factor, stopping at the first tails)."""
    k = 1
    while _one_in(state, k) and all(_below(state, q) < p for p, q in factors):
        k += 1
    return k % 2 == 1


def _exp(state: State, n: int, m: int) -> bool:
    """Bernoulli(exp(−n/m)): ⌊n/m⌋ coins Bernoulli(e⁻¹), then the fraction."""
    whole = n // m
    if not all(_exp_fraction(state, []) for _ in range(whole)):
        return False
    return n == whole * m or _exp_fraction(state, [(n - whole * m, m)])


def _laplace(state: State, t: int, s: int) -> int:
    """Algorithm 2: scale t/s."""
    while True:
        u = _below(state, t) if t > 1 else 0
        if u > 0 and not _exp_fraction(state, [(u, t)]):
            continue
        v = 0
        while _exp_fraction(state, []):
            v += 1
        y = (u + t * v) // s
        negative = stream_bits(state, 1) == 1
        if not (negative and y == 0):
            return -y if negative else y


def _gaussian(state: State, a: int, b: int, t: int, split: bool, swap: bool = False) -> int:
    """Algorithm 3 for σ² = a/b, t = ⌊σ⌋ + 1; with ``split``, the acceptance as three coins
    (``swap``: the first two in the other order, for the power check)."""
    while True:
        y = _laplace(state, t, 1)
        x = abs(abs(y) * t * b - a)
        if not split:
            if _exp(state, x * x, 2 * a * b * t * t):
                return y
            continue
        d = t * b
        q, r = divmod(x, d)
        exponents = [(q * q * b, 2 * a), (q * r, a * t)]
        if all(_exp(state, n, m) for n, m in (exponents[::-1] if swap else exponents)) and (
            r == 0 or _exp_fraction(state, [(r, d), (r, d), (b, 2 * a)])
        ):
            return y


ROWS = range(300)


@pytest.mark.parametrize(
    ("variance", "split"),
    [
        (Fraction(1, 2), False),  # t = 1
        (Fraction(7, 2), False),
        (Fraction(10**4), False),
        (Fraction(10**6), True),
        (Fraction(17_000**2), True),
        (Fraction(2**40 + 1, 2**20), True),
    ],
)
def test_gaussian_row_draws_what_algorithm_3_draws(variance, split):
    a, b, t = _gaussian_parameters(variance)
    keys = round_keys(noise_key(int(variance) % 991))
    sampler = kernels.gaussian_row.interpreted
    got = [sampler(new_state(keys, r, 0), a, b, t, split, False)[1] for r in ROWS]
    assert got == [_gaussian(new_state(keys, r, 0), a, b, t, split) for r in ROWS]


@pytest.mark.parametrize(("t", "s"), [(1, 1), (2, 1), (17_001, 1), (2**26 + 5, 7)])
def test_laplace_row_draws_what_algorithm_2_draws(t, s):
    keys = round_keys(noise_key(t % 991))
    sampler = kernels.laplace_row.interpreted
    got = [sampler(new_state(keys, r, 0), t, s, False)[1] for r in ROWS]
    assert got == [_laplace(new_state(keys, r, 0), t, s) for r in ROWS]


def test_the_compiled_gaussian_rows_equal_the_reference():
    a, b, t = _gaussian_parameters(Fraction(17_000**2))
    keys = round_keys(noise_key(5))
    rows = np.arange(2_000, dtype=np.uint64)
    out = np.empty(rows.size, dtype=np.int64)
    pending = np.zeros(rows.size, dtype=np.uint8)
    template = np.array(new_state(keys, 0, 0), dtype=np.uint64)
    kernels.gaussian_rows.compiled(template, rows, a, b, t, True, out, pending)
    assert not pending.any()
    assert out.tolist() == [_gaussian(new_state(keys, int(r), 0), a, b, t, True) for r in rows]


def test_the_same_coins_in_another_order_give_other_values():
    # Power of the comparisons above: swapping two coins of the reference changes its draws.
    a, b, t = _gaussian_parameters(Fraction(17_000**2))
    keys = round_keys(noise_key(5))
    sampler = kernels.gaussian_row.interpreted
    got = [sampler(new_state(keys, r, 0), a, b, t, True, False)[1] for r in ROWS]
    assert got != [_gaussian(new_state(keys, r, 0), a, b, t, True, swap=True) for r in ROWS]
