"""Exact selection samplers: vectorised Bernoulli(exp(−γ)), exponential mechanism, permute-and-flip.

Statistical tests use fixed seeds; each states its false-failure rate (the probability that a
correct sampler fails it, for a fresh seed) and has a power check: the same test applied to a
sampler with a 30% wrong parameter must fail.
"""

from __future__ import annotations

import itertools
import math

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st
from scipy import stats

from dpcount.errors import InvalidParameterError
from mechanisms.selection import (
    _bernoulli_exp_one,
    bernoulli_exp_array,
    exponential_mechanism,
    exponential_mechanism_probabilities,
    penalties,
    permute_and_flip,
    permute_and_flip_probabilities,
)

ALPHA = 1e-4  # false-failure rate of each statistical assertion below


def chi2_pvalue(observed: np.ndarray, probabilities: np.ndarray) -> float:
    """Pearson χ² p-value, pooling categories with expected count < 5 into one."""
    observed = np.asarray(observed, dtype=float)
    expected = probabilities * observed.sum()
    small = expected < 5
    if small.any():
        observed = np.append(observed[~small], observed[small].sum())
        expected = np.append(expected[~small], expected[small].sum())
    if expected[-1] == 0:  # nothing pooled had any mass
        observed, expected = observed[:-1], expected[:-1]
    return float(stats.chisquare(observed, expected).pvalue)


def brute_force_permute_and_flip(weights: np.ndarray) -> np.ndarray:
    """P[output = r] by enumerating every order (McKenna & Sheldon, Algorithm 1)."""
    m = weights.size
    p = np.zeros(m)
    for order in itertools.permutations(range(m)):
        reach = 1.0 / math.factorial(m)
        for r in order:
            p[r] += reach * weights[r]
            reach *= 1 - weights[r]
    return p


# --------------------------------------------------------------------------------------------
# Bernoulli(exp(−γ))
# --------------------------------------------------------------------------------------------

GAMMAS = np.array([0.0, 1e-12, 0.3, 1.0, 1.5, 2.0, 3.7, 2**-30, 0.999999])


def test_bernoulli_exp_array_frequencies_and_power():
    # 200k coins per γ; each two-sided binomial test has false-failure rate ALPHA (Bonferroni
    # over the γ values gives ≤ 9·ALPHA for the whole test).
    n = 200_000
    coins = bernoulli_exp_array(np.repeat(GAMMAS, n), rng=20240601).reshape(GAMMAS.size, n)
    heads = coins.sum(axis=1)
    for gamma, k in zip(GAMMAS, heads, strict=True):
        assert stats.binomtest(int(k), n, math.exp(-gamma)).pvalue > ALPHA, gamma
    # Power: the same test against exp(−0.7γ) (a 30% error in γ) rejects where γ is not tiny.
    for gamma, k in zip(GAMMAS, heads, strict=True):
        if gamma >= 0.3:
            assert stats.binomtest(int(k), n, math.exp(-0.7 * gamma)).pvalue < ALPHA, gamma


def test_scalar_bernoulli_exp_frequencies_and_power():
    # The one-at-a-time twin used for the first proposals; same test, same power check.
    n = 20_000
    rng = np.random.default_rng(8)
    for gamma in (0.0, 0.3, 1.0, 2.5, 2**-40):
        k = sum(_bernoulli_exp_one(gamma, rng) for _ in range(n))
        assert stats.binomtest(k, n, math.exp(-gamma)).pvalue > ALPHA, gamma
        if gamma >= 0.3:
            assert stats.binomtest(k, n, math.exp(-0.7 * gamma)).pvalue < ALPHA, gamma
    assert not any(_bernoulli_exp_one(1e300, rng) for _ in range(100))


def test_bernoulli_exp_array_edge_values():
    assert bernoulli_exp_array([0.0] * 1000, rng=1).all()  # exp(0) = 1 exactly
    assert not bernoulli_exp_array([50.0, 1e9, 1e300] * 100, rng=2).any()
    assert bernoulli_exp_array([], rng=3).shape == (0,)
    for bad in ([-1e-9], [math.nan], [math.inf]):
        with pytest.raises(InvalidParameterError):
            bernoulli_exp_array(bad, rng=0)


def test_bernoulli_exp_array_is_reproducible():
    g = np.linspace(0, 4, 1000)
    assert np.array_equal(bernoulli_exp_array(g, rng=9), bernoulli_exp_array(g, rng=9))


# --------------------------------------------------------------------------------------------
# Exponential mechanism and permute-and-flip
# --------------------------------------------------------------------------------------------

SCORES = np.array([0.0, 3.0, 6.0, 4.0, -2.0, 5.8])


@pytest.mark.parametrize(
    ("sampler", "probabilities"),
    [
        (exponential_mechanism, exponential_mechanism_probabilities),
        (permute_and_flip, permute_and_flip_probabilities),
    ],
)
def test_selection_frequencies_match_exact_probabilities(sampler, probabilities):
    # χ² with false-failure rate ALPHA.  Power: draws with ε·0.7 fail the same test; the χ²
    # non-centrality is ≈ 0.076 per draw, ≈ 150 at n = 2000 against a critical value of 25.7
    # (5 d.o.f.): power 1 − 3e-14.
    n, eps = 2000, 1.0
    rng = np.random.default_rng(77)
    draws = [sampler(SCORES, eps, rng=rng) for _ in range(n)]
    observed = np.bincount(draws, minlength=SCORES.size)
    assert chi2_pvalue(observed, probabilities(SCORES, eps)) > ALPHA
    wrong = [sampler(SCORES, 0.7 * eps, rng=rng) for _ in range(n)]
    observed = np.bincount(wrong, minlength=SCORES.size)
    assert chi2_pvalue(observed, probabilities(SCORES, eps)) < ALPHA


@pytest.mark.parametrize("sampler", [exponential_mechanism, permute_and_flip])
def test_batched_path_frequencies(sampler):
    # 4 strong candidates among 300: the first 16 one-at-a-time coins succeed only ~7% of the
    # time, so most draws come from the NumPy batches.  χ² at false-failure rate ALPHA; power:
    # draws with ε·0.7 fail it (non-centrality ≈ 0.1 per draw, power > 0.99999 at n = 800).
    scores = np.full(300, -40.0)
    scores[[17, 123, 200, 299]] = [6.0, 3.0, 1.5, 0.0]
    prob = exponential_mechanism_probabilities
    if sampler is permute_and_flip:
        prob = permute_and_flip_probabilities
    rng = np.random.default_rng(4)
    for eps, ok in ((1.0, True), (0.7, False)):
        draws = [sampler(scores, eps, rng=rng) for _ in range(800)]
        pvalue = chi2_pvalue(np.bincount(draws, minlength=300), prob(scores, 1.0))
        assert (pvalue > ALPHA) is ok, (eps, pvalue)


def test_sensitivity_scales_epsilon():
    p1 = exponential_mechanism_probabilities(SCORES, epsilon=2.0, sensitivity=4.0)
    p2 = exponential_mechanism_probabilities(SCORES, epsilon=0.5, sensitivity=1.0)
    np.testing.assert_allclose(p1, p2)
    assert penalties([1.0, 3.0], 2.0, 4.0).tolist() == [0.5, 0.0]


@given(
    st.lists(st.floats(-20, 20), min_size=1, max_size=6),
    st.floats(0.05, 5.0),
)
def test_permute_and_flip_probabilities_match_enumeration(scores, eps):
    weights = np.exp(-penalties(scores, eps))
    expected = brute_force_permute_and_flip(weights)
    np.testing.assert_allclose(permute_and_flip_probabilities(scores, eps), expected, atol=1e-12)


@given(st.lists(st.floats(-1e7, 1e7), min_size=1, max_size=40), st.floats(1e-3, 10.0))
def test_probabilities_are_distributions(scores, eps):
    for p in (
        exponential_mechanism_probabilities(scores, eps),
        permute_and_flip_probabilities(scores, eps),
    ):
        assert np.all(p >= 0) and math.isclose(p.sum(), 1.0, rel_tol=1e-9)
        assert p[np.argmax(scores)] >= p.max() * (1 - 1e-9)  # the best is (one of) the likeliest


@given(
    st.lists(st.floats(-10, 10), min_size=2, max_size=6),
    st.lists(st.floats(-1, 1), min_size=6, max_size=6),
    st.floats(0.1, 3.0),
)
def test_selection_is_epsilon_dp_on_neighbouring_scores(scores, change, eps):
    # Scores of sensitivity 1: every output probability moves by at most a factor e^ε.
    u = np.array(scores)
    v = u + np.array(change[: u.size])
    for prob in (exponential_mechanism_probabilities, permute_and_flip_probabilities):
        p, q = prob(u, eps), prob(v, eps)
        assert np.all(p <= math.exp(eps) * q * (1 + 1e-9) + 1e-300)


def test_dp_check_detects_a_too_sharp_mechanism():
    # The check above can fail: with twice the exponent (exp(ε·u) instead of exp(ε·u/2)) the
    # exponential mechanism exceeds e^ε on these neighbouring scores.
    u, v, eps = np.array([0.0, 1.0]), np.array([1.0, 0.0]), 1.0
    p, q = (
        exponential_mechanism_probabilities(u, 2 * eps),
        exponential_mechanism_probabilities(v, 2 * eps),
    )
    assert np.max(p / q) > math.exp(eps)
    p, q = exponential_mechanism_probabilities(u, eps), exponential_mechanism_probabilities(v, eps)
    assert np.max(p / q) <= math.exp(eps) * (1 + 1e-12)


def test_large_inputs_are_numerically_safe():
    # m = 10⁶ candidates with scores around 10⁷: no overflow, no warning, a sensible choice.
    rng = np.random.default_rng(5)
    scores = rng.normal(0, 1e7, size=1_000_000)
    best = int(np.argmax(scores))
    with np.errstate(all="raise"):
        assert exponential_mechanism(scores, 1.0, rng=1) == best
        assert permute_and_flip(scores, 1.0, rng=2) == best
        flat = np.zeros(1_000_000)  # all tied: any index, uniformly
        assert 0 <= exponential_mechanism(flat, 1.0, rng=3) < flat.size
        ramp = -np.arange(1_000_000) * 1e-3  # weights decay slowly: many plausible winners
        assert exponential_mechanism(ramp, 1.0, rng=4) < 100_000
        p = exponential_mechanism_probabilities(scores, 1e-6)
    assert math.isclose(p.sum(), 1.0)


def test_selection_validation_and_reproducibility():
    for bad in ([], [[1.0]], [1.0, math.nan], [math.inf]):
        with pytest.raises(InvalidParameterError):
            exponential_mechanism(bad, 1.0, rng=0)
    with pytest.raises(InvalidParameterError):
        permute_and_flip([1.0], 0.0, rng=0)
    with pytest.raises(InvalidParameterError):
        permute_and_flip([1.0], 1.0, sensitivity=0.0, rng=0)
    draws = [exponential_mechanism(SCORES, 1.0, rng=s) for s in range(20)]
    assert draws == [exponential_mechanism(SCORES, 1.0, rng=s) for s in range(20)]
    assert len(set(draws)) > 1
    assert exponential_mechanism([4.0], 1.0, rng=0) == 0
    assert permute_and_flip([4.0], 1.0, rng=0) == 0
