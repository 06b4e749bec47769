"""GEM (Knop & Steinke Algorithm 3): O(m log m) scores, their sensitivity, selection frequencies."""

from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st
from scipy import stats

import mechanisms.generalized_exponential as gem_module
from dpcount.errors import InvalidParameterError
from mechanisms.generalized_exponential import (
    gem,
    gem_normalized_scores,
    gem_normalized_scores_naive,
    gem_probabilities,
    gem_threshold,
)

ALPHA = 1e-4  # false-failure rate of each statistical assertion


def chi2_pvalue(observed: np.ndarray, probabilities: np.ndarray) -> float:
    """Pearson χ² p-value, pooling categories with expected count < 5 into one."""
    observed = np.asarray(observed, dtype=float)
    expected = probabilities * observed.sum()
    small = expected < 5
    if small.any():
        observed = np.append(observed[~small], observed[small].sum())
        expected = np.append(expected[~small], expected[small].sum())
    if expected[-1] == 0:
        observed, expected = observed[:-1], expected[:-1]
    return float(stats.chisquare(observed, expected).pvalue)


def close_to_naive(q, d, eps, beta) -> None:
    fast = gem_normalized_scores(q, d, eps, beta)
    naive = gem_normalized_scores_naive(q, d, eps, beta)
    scale = 1.0 + np.abs(naive)
    np.testing.assert_array_less(np.abs(fast - naive) / scale, 1e-9)


# --------------------------------------------------------------------------------------------
# Normalized scores
# --------------------------------------------------------------------------------------------


@given(
    st.lists(
        st.tuples(st.floats(-1e7, 1e7), st.floats(1e-3, 1e4)),
        min_size=1,
        max_size=40,
    ),
    st.floats(1e-3, 10.0),
    st.floats(1e-6, 0.99),
)
def test_fast_scores_equal_naive_on_floats(pairs, eps, beta):
    q, d = (np.array(x) for x in zip(*pairs, strict=True))
    close_to_naive(q, d, eps, beta)


@given(
    st.lists(st.tuples(st.integers(0, 50), st.integers(1, 6)), min_size=1, max_size=30),
    st.sampled_from([0.5, 1.0, 2.0]),
)
def test_fast_scores_equal_naive_with_ties(pairs, eps):
    # Small integers give many equal slopes, parallel lines and three lines through one point.
    q, d = (np.array(x, dtype=float) for x in zip(*pairs, strict=True))
    close_to_naive(q, d, eps, 0.05)
    assert np.array_equal(
        gem_normalized_scores(q, d, eps, 0.05), gem_normalized_scores_naive(q, d, eps, 0.05)
    )


@given(
    st.lists(st.integers(0, 1000), min_size=1, max_size=60).map(sorted),
    st.floats(0.1, 5.0),
    st.floats(0.001, 0.49),
)
def test_fast_scores_equal_naive_on_distinct_count_utilities(counts, eps, beta):
    # The shape GEM sees in Algorithm 1: a non-decreasing curve minus a linear penalty.
    ell = np.arange(1, len(counts) + 1, dtype=float)
    q = np.array(counts, dtype=float) - (2 * ell / eps) * math.log(1 / (2 * beta))
    close_to_naive(q, ell, eps / 2, beta)


@given(
    st.lists(st.tuples(st.floats(-100, 100), st.floats(0.1, 10)), min_size=1, max_size=12),
    st.floats(0.1, 3.0),
)
def test_scores_are_non_positive_with_maximum_zero(pairs, eps):
    q, d = (np.array(x) for x in zip(*pairs, strict=True))
    s = gem_normalized_scores(q, d, eps, 0.1)
    assert np.all(s <= 0) and s.max() == 0.0
    t = gem_threshold(q.size, eps, 0.1)
    assert s[np.argmax(q - t * d)] == 0.0


@given(
    st.lists(st.tuples(st.floats(-50, 50), st.floats(0.5, 5)), min_size=1, max_size=10),
    st.lists(st.floats(-1, 1), min_size=10, max_size=10),
    st.floats(0.1, 3.0),
)
def test_normalized_scores_have_sensitivity_one(pairs, moves, eps):
    # RS15: if every q_i moves by at most Δ_i, every s_i moves by at most 1 ...
    q, d = (np.array(x) for x in zip(*pairs, strict=True))
    q2 = q + np.array(moves[: q.size]) * d
    s1 = gem_normalized_scores(q, d, eps, 0.05)
    s2 = gem_normalized_scores(q2, d, eps, 0.05)
    assert np.all(np.abs(s1 - s2) <= 1 + 1e-9)
    # ... so the selection probabilities move by at most e^ε (both samplers).
    for selection in ("exponential", "permute_and_flip"):
        p1 = gem_probabilities(q, d, eps, 0.05, selection=selection)
        p2 = gem_probabilities(q2, d, eps, 0.05, selection=selection)
        assert np.all(p1 <= math.exp(eps) * p2 * (1 + 1e-9))


def test_kernels_run_as_plain_python():
    # Numba does not check bounds; the same kernels as plain Python do (IndexError on a slip).
    rng = np.random.default_rng(6)
    for m in (1, 2, 3, 10, 57, 200):
        q, d = rng.normal(0, 100, size=m), rng.integers(1, 8, size=m).astype(float)
        a = q - gem_threshold(m, 1.0, 0.05) * d
        order = np.lexsort((a, d))
        order = order[np.append(d[order][1:] != d[order][:-1], True)]
        env = order[gem_module._hull.py_func(a[order], d[order])]
        s = gem_module._envelope_scores.py_func(a, d, env)
        np.testing.assert_array_equal(s, gem_normalized_scores(q, d, 1.0, 0.05))
        np.testing.assert_allclose(s, gem_normalized_scores_naive(q, d, 1.0, 0.05), atol=1e-12)


def test_scores_by_hand():
    # Equal sensitivities: t cancels and s_i = (q_i − max q)/2.
    s = gem_normalized_scores([1.0, 4.0, 2.0], [1.0, 1.0, 1.0], epsilon=1.0, beta=0.05)
    assert s.tolist() == [-1.5, 0.0, -1.0]
    # Two candidates, Δ = (1, 2), t = (2/ε)·ln(2/β) with ε = 1, β = 2/e: t = 2.
    q, d = [0.0, 10.0], [1.0, 2.0]
    a = np.array(q) - 2.0 * np.array(d)  # (−2, 6)
    s = gem_normalized_scores(q, d, epsilon=1.0, beta=2 / math.e)
    np.testing.assert_allclose(s, [(a[0] - a[1]) / 3, 0.0])
    assert gem_normalized_scores([7.0], [3.0], 1.0, 0.5).tolist() == [0.0]


def test_threshold_formula():
    # Algorithm 3 line 3; inside Algorithm 1 GEM runs with ε/2: t = (4/ε)·ln(ℓ_max/β).
    assert math.isclose(gem_threshold(100, 0.5, 0.05), 4 * math.log(2000))
    assert math.isclose(gem_threshold(1, 2.0, 0.5), math.log(2))


def test_fast_scores_at_a_million_candidates():
    rng = np.random.default_rng(3)
    m = 1_000_000
    q = rng.normal(0, 1e7, size=m)
    d = rng.uniform(1, 1e3, size=m)
    s = gem_normalized_scores(q, d, 1.0, 0.05)
    a = q - gem_threshold(m, 1.0, 0.05) * d
    for i in rng.choice(m, size=50, replace=False):  # the O(m²) formula for a few rows
        assert math.isclose(s[i], np.min((a[i] - a) / (d[i] + d)), rel_tol=1e-12)


def test_fast_scores_scale_to_large_m():
    m = 100_000
    ell = np.arange(1, m + 1, dtype=float)
    q = np.minimum(ell * 50, 1e7) - 4.6 * ell  # a capped curve minus a penalty
    s = gem_normalized_scores(q, ell, 1.0, 0.05)
    assert s.shape == (m,) and s.max() == 0.0 and np.all(np.isfinite(s))


# --------------------------------------------------------------------------------------------
# Selection
# --------------------------------------------------------------------------------------------

Q = np.array([10.0, 30.0, 38.0, 40.0, 41.0, 41.0])
DELTA = np.arange(1.0, 7.0)


@pytest.mark.parametrize("selection", ["exponential", "permute_and_flip"])
def test_gem_frequencies_match_probabilities(selection):
    # χ² with false-failure rate ALPHA.  Power: the same test rejects draws made with ε·0.7
    # (a mechanism whose exponent is 30% off): the χ² non-centrality is ≈ 0.21 per draw, ≈ 320
    # at n = 1500 against a critical value of 25.7 (5 d.o.f.), so a miss is vanishingly rare.
    n, eps, beta = 1500, 1.0, 0.05
    rng = np.random.default_rng(11)
    p = gem_probabilities(Q, DELTA, eps, beta, selection=selection)
    assert p.min() > 0.01  # every candidate matters in this example
    draws = [gem(Q, DELTA, eps, beta, selection=selection, rng=rng) for _ in range(n)]
    assert chi2_pvalue(np.bincount(draws, minlength=Q.size), p) > ALPHA
    wrong = [gem(Q, DELTA, 0.7 * eps, beta, selection=selection, rng=rng) for _ in range(n)]
    assert chi2_pvalue(np.bincount(wrong, minlength=Q.size), p) < ALPHA


def test_gem_exponential_probabilities_are_algorithm_3():
    # P[î = i] ∝ exp(½·ε·s_i) with s from the O(m²) formula.
    eps, beta = 0.7, 0.1
    s = gem_normalized_scores_naive(Q, DELTA, eps, beta)
    w = np.exp(0.5 * eps * s)
    np.testing.assert_allclose(gem_probabilities(Q, DELTA, eps, beta), w / w.sum())


def test_gem_utility_guarantee():
    # Theorem 3.4: P[q_î ≥ max_j (q_j − Δ_j·(4/ε)·ln(m/β))] ≥ 1 − β, from exact probabilities.
    eps, beta = 0.5, 0.05
    bar = np.max(Q - DELTA * (4 / eps) * math.log(Q.size / beta))
    for selection in ("exponential", "permute_and_flip"):
        p = gem_probabilities(Q, DELTA, eps, beta, selection=selection)
        assert p[Q >= bar].sum() >= 1 - beta


def test_gem_validation():
    with pytest.raises(InvalidParameterError):
        gem([], [], 1.0, 0.05, rng=0)
    with pytest.raises(InvalidParameterError):
        gem([1.0, math.nan], [1.0, 1.0], 1.0, 0.05, rng=0)
    with pytest.raises(InvalidParameterError):
        gem([1.0, 2.0], [1.0, 0.0], 1.0, 0.05, rng=0)
    with pytest.raises(InvalidParameterError):
        gem([1.0, 2.0], [1.0, 1.0, 1.0], 1.0, 0.05, rng=0)
    with pytest.raises(InvalidParameterError):
        gem([1.0], [1.0], 0.0, 0.05, rng=0)
    for beta in (0.0, 1.0, -0.1):
        with pytest.raises(InvalidParameterError):
            gem([1.0], [1.0], 1.0, beta, rng=0)
    with pytest.raises(InvalidParameterError, match="exponential"):
        gem([1.0], [1.0], 1.0, 0.05, selection="gumbel", rng=0)  # type: ignore[arg-type]


def test_gem_reproducible_and_scalar_sensitivity():
    a = [gem(Q, 2.0, 1.0, 0.05, rng=s) for s in range(10)]
    assert a == [gem(Q, [2.0] * Q.size, 1.0, 0.05, rng=s) for s in range(10)]
    assert all(isinstance(i, int) and 0 <= i < Q.size for i in a)
