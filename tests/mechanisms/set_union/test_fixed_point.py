"""Fixed-point weights and exact discrete noise for set union (docs/algorithms.md §6).

* contributions are the largest integers within norm 2ᵏ (rounding down, never up);
* the neighbour audit passes on the integer weights of every exact mechanism, and fails when
  contributions are rounded up (power check);
* the integer thresholds keep every novel-item release probability within its budget, checked
  with 100-digit mpmath tails, and are the smallest such integers (ρ − 1 fails somewhere);
* the discrete Gaussian σ meets δ by its zCDP bound at 100 digits, and 0.1 % less does not.
"""

from __future__ import annotations

import math
from fractions import Fraction

import mpmath
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from mechanisms.set_union import fixed_point
from mechanisms.set_union._bounding import CappedSets
from mechanisms.set_union.calibration import calibrate
from mechanisms.set_union.weighted import basic_units
from tests.mechanisms.set_union.audit import audit_pair, random_instance

mpmath.mp.dps = 100


@given(
    d=st.integers(1, 10**6),
    bits=st.integers(0, fixed_point.MAX_UNIT_BITS),
    norm=st.sampled_from([1, 2]),
)
def test_contributions_are_the_largest_units_within_the_norm(d: int, bits: int, norm: int) -> None:
    u = int(fixed_point.contribution_units(d, norm, bits)[d])
    full = 1 << (norm * bits)
    assert d * u**norm <= full < d * (u + 1) ** norm


def _units_weighting(norm: int, bits: int, round_up: bool = False):
    def weigh(sets: CappedSets, order: np.ndarray) -> np.ndarray:
        units = basic_units(sets, norm, bits)
        if not round_up:
            return units
        # Power check: contributions rounded up, ⌈2ᵏ·d^(−1/p)⌉, exceed norm 2ᵏ.
        degrees = sets.degrees()
        up = np.zeros(sets.n_items, dtype=np.int64)
        for p in range(sets.n_persons):
            d = int(degrees[p])
            if d == 0:
                continue
            c = math.ceil((1 << bits) / d) if norm == 1 else math.ceil((1 << bits) / math.sqrt(d))
            up[sets.indices[sets.indptr[p] : sets.indptr[p + 1]]] += c
        return up

    return weigh


@pytest.mark.parametrize("norm", [1, 2])
def test_neighbour_audit_on_integer_weights(norm: int) -> None:
    """Exhaustive on 400 small neighbour pairs: integer weights move by ≤ 2ᵏ units (ℓ1 or ℓ2)
    and each of t novel items weighs ≤ ⌊2ᵏ/t⌋ (⌊2ᵏ/√t⌋) units — the facts the integer
    thresholds rest on.  Rounding up instead is caught."""
    rng = np.random.default_rng(11)
    bits = 5  # coarse units, so that rounding matters
    full = 1 << bits

    def novel(t: int) -> int:
        return full // t if norm == 1 else math.isqrt(full * full // t)

    caught = 0
    for _ in range(400):
        others, added, n_items, _ = random_instance(rng)
        kwargs = {"norm": norm, "bound": float(full), "novel": novel, "positions": [0]}
        assert audit_pair(_units_weighting(norm, bits), others, added, n_items, **kwargs) == []
        bad = _units_weighting(norm, bits, round_up=True)
        caught += bool(audit_pair(bad, others, added, n_items, **kwargs))
    assert caught > 0


def _mp_laplace_tail(k: int, s: Fraction) -> mpmath.mpf:
    """P[Z > k], Z discrete Laplace of scale s, at 100 digits (k ≥ 0 closed form)."""
    inv = mpmath.mpf(s.denominator) / s.numerator
    if k >= 0:
        return mpmath.exp(-(k + 1) * inv) / (1 + mpmath.exp(-inv))
    return 1 - _mp_laplace_tail(-k - 1, s)


def _mp_gaussian_tail(k: int, var: Fraction) -> mpmath.mpf:
    """P[Z > k], Z ~ N_ℤ(0, σ²), by direct summation at 100 digits (|z| ≤ 60σ + 60)."""
    v = mpmath.mpf(var.numerator) / var.denominator
    bound = int(60 * math.sqrt(float(var))) + 60
    terms = {z: mpmath.exp(-mpmath.mpf(z * z) / (2 * v)) for z in range(-bound, bound + 1)}
    total = mpmath.fsum(terms.values())
    return mpmath.fsum(w for z, w in terms.items() if z > k) / total


CASES = [
    ("laplace", Fraction(7, 2), 1e-6, 12, lambda t: 16 // t),
    ("laplace", Fraction(40), 1e-9, 30, lambda t: 64 // t),
    ("laplace", Fraction(5, 3), 1e-5, 6, lambda t: 1),
    ("gaussian", Fraction(30), 5e-7, 10, lambda t: math.isqrt(256 // t)),
    ("gaussian", Fraction(81, 4), 1e-5, 25, lambda t: math.isqrt(4096 // t)),
]


@pytest.mark.parametrize(("noise", "parameter", "delta", "max_items", "novel"), CASES)
def test_integer_thresholds_against_100_digit_tails(
    noise, parameter, delta, max_items, novel
) -> None:
    rho = fixed_point.discrete_threshold(noise, parameter, delta, max_items, novel)
    tail = _mp_laplace_tail if noise == "laplace" else _mp_gaussian_tail
    d = mpmath.mpf(delta)

    def release_probability(threshold: int, t: int) -> mpmath.mpf:
        """P[one of t novel items of weight novel(t) is released], exactly."""
        return 1 - (1 - tail(threshold - novel(t), parameter)) ** t

    assert all(release_probability(rho, t) <= d for t in range(1, max_items + 1))
    # The smallest integer that works: one less releases a novel item too often for some t.
    assert any(release_probability(rho - 1, t) > d for t in range(1, max_items + 1))


@pytest.mark.parametrize(("epsilon", "delta"), [(1.0, 5e-6), (0.3, 1e-9), (4.0, 1e-7)])
def test_discrete_gaussian_sigma_meets_delta_by_its_zcdp_bound(
    epsilon: float, delta: float
) -> None:
    """σ: ρ = 1/(2σ²)-zCDP → (ε, δ) by CKS20 Cor. 13, at 100 digits; 0.1 % smaller σ fails."""

    def mp_delta(sigma: float) -> mpmath.mpf:
        rho, eps = 1 / (2 * mpmath.mpf(sigma) ** 2), mpmath.mpf(epsilon)

        def log_bound(a):
            return (a - 1) * (a * rho - eps) + a * mpmath.log1p(-1 / a) - mpmath.log(a - 1)

        best = mpmath.findroot(
            lambda a: (2 * a - 1) * rho - eps + mpmath.log1p(-1 / a), (eps + rho) / (2 * rho)
        )
        return mpmath.exp(log_bound(best))

    sigma = fixed_point.discrete_gaussian_sigma(epsilon, delta)
    assert mp_delta(sigma) <= delta
    assert mp_delta(sigma * 0.999) > delta


def test_exact_calibration_is_the_discrete_one() -> None:
    """The exact forms use the discrete σ and Laplace scale 2ᵏ/ε, not the continuous numbers."""
    gaussian = calibrate("weighted_gaussian", 1.0, 1e-5, 10)
    continuous = calibrate("weighted_gaussian", 1.0, 1e-5, 10, mode="float")
    assert gaussian.exact is not None and continuous.exact is None
    sigma = fixed_point.discrete_gaussian_sigma(1.0, 5e-6)
    assert gaussian.exact.parameter >= Fraction(sigma) ** 2 * 4**gaussian.exact.bits
    assert gaussian.scale > continuous.scale * 1.02  # the zCDP route costs a few per cent
    laplace = calibrate("weighted_laplace", 2.0, 1e-6, 10).exact
    assert laplace is not None and laplace.parameter >= Fraction(1 << laplace.bits) / 2
    assert laplace.parameter - Fraction(1 << laplace.bits) / 2 < Fraction(1, 2**31)
    counts = calibrate("count_laplace", 2.0, 1e-6, 10).exact
    assert counts is not None and (counts.bits, counts.parameter) == (0, Fraction(5))


@settings(max_examples=40, deadline=None)
@given(
    rounds=st.integers(1, 6),
    ratio=st.floats(0.1, 3.0),
    epsilon=st.floats(0.2, 5.0),
)
def test_exact_sips_rounds_compose_within_rho(rounds: int, ratio: float, epsilon: float) -> None:
    """Σ_i ρ_i ≤ ρ exactly (ρ_i = 4ᵏ/(2σ_i²) in units) and Σ δ_i ≤ δ/2."""
    delta = 1e-6
    c = calibrate("dp_sips", epsilon, delta, 8, rounds=rounds, ratio=ratio)
    sigma = fixed_point.discrete_gaussian_sigma(epsilon, delta / 2)
    total = sum(
        (Fraction(4**r.exact.bits) / (2 * r.exact.parameter) for r in c.rounds if r.exact),
        Fraction(0),
    )
    assert total <= 1 / (2 * Fraction(sigma) ** 2)
    assert sum(r.delta_novel for r in c.rounds) <= delta / 2


def test_zcdp_delta_without_a_guarantee_is_one_not_an_overflow() -> None:
    """A tiny ε made the bound's exponential overflow (OverflowError from every exact Gaussian
    release at ε = 1e-300); the bound is then simply 1, and the σ search says why it fails."""
    assert fixed_point.zcdp_delta(1e300, 1e-300) == 1.0
    assert 0 < fixed_point.zcdp_delta(1e-3, 1e-300) < 1.0
    with pytest.raises(ValueError, match="sigma would exceed"):
        fixed_point.discrete_gaussian_sigma(1e-300, 5e-301)
