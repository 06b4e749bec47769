"""Noise samplers: exact discrete Laplace (CKS20), Bernoulli(exp(−γ)), uniform integers, floats.

Statistical tests use fixed seeds and state their false-failure rate; each has a power check:
the same test must reject a sampler whose scale (or γ) is 30% off.
"""

from __future__ import annotations

import math
import warnings
from fractions import Fraction

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st
from scipy import stats

from dpcount.errors import InvalidParameterError, UnsafeNoiseWarning
from mechanisms.noise import (
    bernoulli_exp,
    discrete_laplace,
    discrete_laplace_pmf,
    float_exponential,
    float_gaussian,
    float_gumbel,
    float_laplace,
    rational_scale_at_least,
    uniform_below,
    warn_unsafe,
)

ALPHA = 1e-4  # false-failure rate of each statistical assertion


def chi2_pvalue_integers(samples: np.ndarray, scale: float) -> float:
    """χ² of integer samples against the discrete Laplace pmf of ``scale``.

    Bins: each z with |z| < k separately and the two tails |z| ≥ k, k the largest value whose
    expected count is still ≥ 5 (tail mass P[Z ≥ k] = e^{−k/s}/(1 + e^{−1/s})).
    """
    n = samples.size
    k = 1
    while discrete_laplace_pmf(k + 1, scale) * n >= 5:
        k += 1
    observed = np.bincount(np.clip(samples, -k, k) + k, minlength=2 * k + 1)
    expected = discrete_laplace_pmf(np.arange(-k, k + 1), scale) * n
    expected[0] = expected[-1] = n * math.exp(-k / scale) / (1 + math.exp(-1 / scale))
    return float(stats.chisquare(observed, expected).pvalue)


# --------------------------------------------------------------------------------------------
# Exact discrete Laplace
# --------------------------------------------------------------------------------------------


@pytest.mark.parametrize("scale", [0.4, 2.5, Fraction(10, 3)])
def test_discrete_laplace_matches_pmf_and_detects_wrong_scale(scale):
    # χ² with false-failure rate ALPHA.  Power: the same test against the pmf of a 30% larger
    # or smaller scale rejects (12k draws give non-centrality ≫ 100).
    n = 12_000
    z = discrete_laplace(scale, rng=int(10 * float(scale)), size=n)
    assert z.dtype == np.int64 and z.shape == (n,)
    s = float(scale)
    assert chi2_pvalue_integers(z, s) > ALPHA
    assert chi2_pvalue_integers(z, 1.3 * s) < ALPHA
    assert chi2_pvalue_integers(z, 0.7 * s) < ALPHA


def test_discrete_laplace_scalar_and_reproducible():
    a = discrete_laplace(3, rng=5)
    assert isinstance(a, int)
    assert a == discrete_laplace(3, rng=5)
    assert np.array_equal(discrete_laplace(3, rng=9, size=50), discrete_laplace(3, rng=9, size=50))
    assert discrete_laplace(np.float64(2.0), rng=0, size=3).shape == (3,)
    for bad in (0, -1.0, Fraction(-1, 2)):
        with pytest.raises(InvalidParameterError):
            discrete_laplace(bad, rng=0)


def test_discrete_laplace_far_tail():
    # The χ² test above pools the tails; check the far tail separately.  P[|Z| > 16] at s = 2
    # is 2·e^{−17/2}/(1 + e^{−1/2}) ≈ 2.5e-4: ≈ 2.5 of 10k draws; more than 15 has probability
    # < 1e-8 for a correct sampler (Poisson bound).
    z = discrete_laplace(2, rng=3, size=10_000)
    assert np.sum(np.abs(z) > 16) <= 15
    assert np.sum(z > 0) > 0 and np.sum(z < 0) > 0


@given(st.floats(0.05, 200.0))
def test_pmf_sums_to_one_and_is_symmetric(scale):
    z = np.arange(-int(60 * scale) - 50, int(60 * scale) + 51)
    p = discrete_laplace_pmf(z, scale)
    assert math.isclose(p.sum(), 1.0, rel_tol=1e-9)
    np.testing.assert_allclose(p, p[::-1])
    assert math.isclose(p[z == 1][0] / p[z == 0][0], math.exp(-1 / scale))


# --------------------------------------------------------------------------------------------
# Bernoulli(exp(−γ)) and uniform integers
# --------------------------------------------------------------------------------------------


@pytest.mark.parametrize("gamma", [0, Fraction(1, 3), 0.5, 1, 2.25, Fraction(7, 3)])
def test_bernoulli_exp_frequencies(gamma):
    # Two-sided binomial test, false-failure rate ALPHA.  Power: a coin with exp(−0.7γ)
    # (30% off) is rejected by the same test on the same draws for every γ > 0 here.
    n = 8000
    rng = np.random.default_rng(17)
    heads = sum(bernoulli_exp(gamma, rng) for _ in range(n))
    p = math.exp(-float(gamma))
    assert stats.binomtest(heads, n, p).pvalue > ALPHA
    if gamma:
        assert stats.binomtest(heads, n, math.exp(-0.7 * float(gamma))).pvalue < ALPHA


def test_bernoulli_exp_extremes_and_validation():
    assert all(bernoulli_exp(0, rng=s) for s in range(50))
    assert not any(bernoulli_exp(60, rng=s) for s in range(50))
    assert not bernoulli_exp(10**9, rng=0)  # stops at the first failed unit coin
    with pytest.raises(InvalidParameterError):
        bernoulli_exp(-0.1, rng=0)


@pytest.mark.parametrize("n", [1, 7, 2**62, 2**62 + 3, 3 * 2**70 + 1])
def test_uniform_below_range_and_uniformity(n):
    rng = np.random.default_rng(2)
    draws = [uniform_below(n, rng) for _ in range(3000)]
    assert all(0 <= x < n for x in draws)
    if n > 100:
        # Ten equal-width bins: χ² false-failure rate ALPHA.  Power: a sampler that ignored the
        # top 30% of the range would put nothing in the last three bins.
        counts = np.bincount([x * 10 // n for x in draws], minlength=10)
        assert stats.chisquare(counts).pvalue > ALPHA
    with pytest.raises(InvalidParameterError):
        uniform_below(0, rng)


def test_rational_scale_at_least():
    for scale in (2 / 0.3, 1e-9, 0.1, 12345.678):
        r = rational_scale_at_least(scale)
        assert r >= Fraction(scale) and r - Fraction(scale) < Fraction(1, 2**32)
        assert r.denominator <= 2**32
    assert rational_scale_at_least(Fraction(1, 3)) > Fraction(1, 3)
    assert rational_scale_at_least(4) == 4
    for bad in (0, -1):
        with pytest.raises(InvalidParameterError):
            rational_scale_at_least(bad)


# --------------------------------------------------------------------------------------------
# Floating-point samplers
# --------------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("sampler", "dist"),
    [
        (float_laplace, stats.laplace),
        (float_gaussian, stats.norm),
        (float_exponential, stats.expon),
        (float_gumbel, stats.gumbel_r),
    ],
)
def test_float_samplers_have_the_stated_scale(sampler, dist):
    # KS test, false-failure rate ALPHA.  Power: the same test rejects a 30% larger scale.
    x = sampler(2.0, rng=4, size=20_000)
    assert stats.kstest(x, dist(scale=2.0).cdf).pvalue > ALPHA
    assert stats.kstest(x, dist(scale=2.6).cdf).pvalue < ALPHA
    assert stats.kstest(x, dist(scale=1.4).cdf).pvalue < ALPHA
    for bad in (0.0, -1.0, math.inf, math.nan):
        with pytest.raises(InvalidParameterError):
            sampler(bad, rng=0)


def test_warn_unsafe():
    with pytest.warns(UnsafeNoiseWarning, match="my_function uses floating-point noise"):
        warn_unsafe("my_function", stacklevel=2)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        float_laplace(1.0, rng=0)  # the samplers themselves do not warn; their callers do
