"""The Laplace lower bound (Knop & Steinke Eq. 4; discrete shift of docs/algorithms.md §3)."""

from __future__ import annotations

import math
from fractions import Fraction

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st
from scipy import stats

from dpcount.errors import InvalidParameterError, UnsafeNoiseWarning
from mechanisms.laplace import (
    LaplaceLowerBound,
    continuous_shift,
    discrete_shift,
    discrete_tail,
    laplace_lower_bound,
    laplace_scale,
)
from mechanisms.noise import discrete_laplace_pmf

ALPHA = 1e-4  # false-failure rate of each statistical assertion


def test_test_vectors():
    # docs/algorithms.md §3: s = 4, β = 0.05 → 9; s = 1 → 2.  Continuous: s·ln(1/(2β)).
    assert discrete_shift(4, 0.05) == 9
    assert discrete_shift(1, 0.05) == 2
    assert math.isclose(continuous_shift(4, 0.05), 4 * math.log(10))
    assert math.isclose(continuous_shift(1, 0.25), math.log(2))
    assert laplace_scale(2, 0.5) == 4 and isinstance(laplace_scale(2, 0.5), Fraction)


@given(st.floats(1e-3, 1e5), st.floats(1e-12, 0.4999))
def test_discrete_shift_is_the_smallest_valid_quantile(scale, beta):
    k = discrete_shift(scale, beta)
    assert discrete_tail(k, scale) <= beta
    assert k == 0 or discrete_tail(k - 1, scale) > beta
    c = math.ceil(scale * math.log(1 / (2 * beta)))
    assert k in (c - 1, c) or (c <= 0 and k == 0)  # "equals or is one below" the continuous


@given(st.floats(0.05, 50.0), st.integers(0, 200))
def test_discrete_tail_matches_the_pmf(scale, k):
    z = np.arange(k + 1, k + 1 + int(80 * scale) + 50)
    # Relative to the tail, and absolute below the normal doubles (a sum of subnormal pmf
    # values has lost its relative precision: scale 0.2, k = 144 failed at 9e-9 relative).
    expected = discrete_laplace_pmf(z, scale).sum()
    assert math.isclose(discrete_tail(k, scale), expected, rel_tol=1e-9, abs_tol=1e-300)


@given(st.floats(1e-3, 1e6), st.floats(1e-3, 1e3))
def test_laplace_scale_is_exact_and_never_smaller(sensitivity, epsilon):
    s = laplace_scale(sensitivity, epsilon)
    exact = Fraction(sensitivity) / Fraction(epsilon)
    assert exact <= s < exact + Fraction(1, 2**32)


def test_release_fields():
    r = laplace_lower_bound(100, sensitivity=2, epsilon=1.0, beta=0.05, rng=0)
    assert isinstance(r, LaplaceLowerBound) and r.secure
    assert isinstance(r.estimate, int) and isinstance(r.noise, int)
    assert r.estimate == 100 + r.noise - r.shift
    assert r.shift == discrete_shift(2, 0.05) and r.scale == 2.0
    with pytest.warns(UnsafeNoiseWarning):
        f = laplace_lower_bound(100.5, 2, 1.0, 0.05, noise="float", rng=0)
    assert not f.secure and math.isclose(f.estimate, 100.5 + f.noise - f.shift)
    assert math.isclose(f.shift, 2 * math.log(10))


def test_release_validation():
    with pytest.raises(InvalidParameterError, match="integer"):
        laplace_lower_bound(3.5, 1, 1.0, 0.05, rng=0)
    for kwargs in ({"epsilon": 0.0}, {"beta": 0.5}, {"beta": 0.0}, {"noise": "gauss"}):
        args = {"value": 3, "sensitivity": 1, "epsilon": 1.0, "beta": 0.05, **kwargs}
        with pytest.raises(InvalidParameterError):
            laplace_lower_bound(**args, rng=0)
    with pytest.raises(InvalidParameterError):
        laplace_scale(0, 1.0)


@pytest.mark.filterwarnings("ignore::dpcount.errors.UnsafeNoiseWarning")
@pytest.mark.parametrize("noise", ["exact", "float"])
@pytest.mark.parametrize(("sensitivity", "epsilon"), [(1, 1.0), (3, 0.5)])
def test_lower_bound_coverage_and_half_shift_power(noise, sensitivity, epsilon):
    # P[estimate > value] ≤ β: one-sided binomial test, false-failure rate ALPHA.  Power: from
    # the same draws, subtracting half the shift fails with probability ≈ √(β/2) ≈ 0.16, about
    # 480 of 3000 runs where the test tolerates ~190, so the test must reject it.
    n, beta, value = 3000, 0.05, 1000
    rng = np.random.default_rng(sensitivity)
    runs = [
        laplace_lower_bound(value, sensitivity, epsilon, beta, noise=noise, rng=rng)
        for _ in range(n)
    ]
    est = np.array([r.estimate for r in runs], dtype=float)
    shift = runs[0].shift
    fails = int(np.sum(est > value))
    assert stats.binomtest(fails, n, beta, alternative="greater").pvalue > ALPHA
    half = int(np.sum(est + shift / 2 > value))
    assert stats.binomtest(half, n, beta, alternative="greater").pvalue < ALPHA
    # The noise itself has the stated scale: its mean absolute value is within 4 standard
    # errors of E|Z| (false failure ~6e-5), and a 30% smaller scale is out of that range.
    z = np.abs(np.array([r.noise for r in runs], dtype=float))
    s = sensitivity / epsilon
    mean_abs = s if noise == "float" else 2 * math.exp(-1 / s) / (1 - math.exp(-2 / s))
    assert abs(z.mean() - mean_abs) < 4 * z.std() / math.sqrt(n)
    assert abs(z.mean() - 0.7 * mean_abs) > 4 * z.std() / math.sqrt(n)


@pytest.mark.parametrize("epsilon", [1e-24, 1e-60, 1e-150, 1e-300])
def test_tiny_epsilon_finishes_with_the_exact_shift(epsilon):
    # Issue 24: the shift's search stepped k by one from a float estimate and never ended for
    # ε between ~1e-300 and 1e-24 (k ≈ 10²⁴ is beyond the float resolution of a step of 1).
    # The closed form is exact: P[Z > k] ≤ β < P[Z > k − 1], checked at enough digits.
    import mpmath as mp

    scale = laplace_scale(1, epsilon)
    k = discrete_shift(scale, 0.05)
    with mp.workdps(2 * len(str(k)) + 50):
        s = mp.mpf(scale.numerator) / scale.denominator
        q = mp.exp(-1 / s)

        def tail(j):
            return q ** (j + 1) / (1 + q)

        assert tail(k) <= mp.mpf(0.05) < tail(k - 1)
    r = laplace_lower_bound(10, 1, epsilon, 0.05, rng=1)
    assert r.estimate == 10 + r.noise - r.shift and r.shift == k


def test_epsilon_whose_scale_overflows_is_refused_with_a_reason():
    with pytest.raises(InvalidParameterError, match="too small"):
        laplace_lower_bound(10, 1, 5e-324, 0.05, rng=0)
    with pytest.raises(InvalidParameterError, match="too small"):
        laplace_scale(1e10, 1e-295)
