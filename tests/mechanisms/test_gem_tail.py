"""GEM with a closed-form flat tail: the same distribution as dense GEM, in memory O(head).

Statistical tests use fixed seeds; ALPHA is the false-failure rate of each one with a fresh
seed, and each has a power check that fails when ε (the noise scale) is off by 30%.
"""

from __future__ import annotations

import math
import subprocess
import sys
import time
import tracemalloc

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy import stats

import matching
from dpcount import PersonItemGraph
from dpcount.errors import InvalidParameterError
from mechanisms import (
    distinct_count,
    dp_distinct_count,
    dp_distinct_count_from_curve,
    gem_probabilities,
)
from mechanisms.distinct_count import DENSE_ELL_MAX, curve_length
from mechanisms.gem_tail import LinearTailGEM, bernoulli_exp_times_power_of_two
from tests.strategies import graphs

ALPHA = 1e-4


def _dense(dc: np.ndarray, m: int, slope: float) -> tuple[np.ndarray, np.ndarray]:
    """q_ℓ = DC(ℓ) − slope·ℓ over all ℓ = 1..m with DC flat past the head, and Δ_ℓ = ℓ."""
    ells = np.arange(1, m + 1, dtype=np.float64)
    curve = np.concatenate([dc, np.full(m - dc.size, dc[-1])]).astype(np.float64)
    return curve - slope * ells, ells


@st.composite
def tail_cases(draw):
    head = draw(st.integers(1, 12))
    dc = np.cumsum(draw(st.lists(st.integers(0, 6), min_size=head, max_size=head)))
    m = draw(st.integers(head, 3000))
    epsilon = draw(st.floats(0.02, 5.0))
    beta = draw(st.floats(0.001, 0.45))
    slope = draw(st.floats(0.0, 40.0))
    return dc, m, epsilon, beta, slope


@settings(max_examples=40)
@given(tail_cases())
def test_probabilities_equal_the_dense_gem(case) -> None:
    dc, m, epsilon, beta, slope = case
    q, ells = _dense(dc, m, slope)
    tail = LinearTailGEM(q[: dc.size], float(dc[-1]), slope, m, epsilon, beta)
    dense = gem_probabilities(q, ells, epsilon, beta)
    np.testing.assert_allclose(tail.probabilities(), dense, rtol=1e-11, atol=1e-300)


def test_distinct_count_tail_equals_dense_beyond_the_dense_limit() -> None:
    """The exact objects dp_distinct_count builds past DENSE_ELL_MAX, against dense GEM."""
    eps, beta, m = 0.7, 0.05, DENSE_ELL_MAX + 5000
    dc = np.array([3, 5, 6, 6, 7])
    count_eps = eps / 2
    slope = math.log(1 / (2 * beta)) / count_eps
    q, ells = _dense(dc, m, slope)
    tail = LinearTailGEM(q[: dc.size], 7.0, slope, m, eps / 2, beta)
    np.testing.assert_allclose(
        tail.probabilities(), gem_probabilities(q, ells, eps / 2, beta), rtol=1e-11
    )


def _block_bins(tail: LinearTailGEM, draws: np.ndarray, probabilities: np.ndarray):
    """Observed and expected counts per head ℓ and per tail block (chi-square bins)."""
    edges = [*range(1, tail.head.size + 1), *(b.first for b in tail._blocks), tail.m + 1]
    observed = np.histogram(draws, bins=edges)[0]
    cumulative = np.concatenate([[0.0], np.cumsum(probabilities)])
    expected = np.diff(cumulative[np.array(edges) - 1]) * draws.size
    return observed, expected


def test_sampler_follows_the_probabilities_with_power() -> None:
    dc = np.array([10, 18, 24, 27, 28])
    eps, beta, m, slope = 2.0, 0.2, 3000, 0.05
    q, _ = _dense(dc, m, slope)
    tail = LinearTailGEM(q[:5], 28.0, slope, m, eps, beta)
    assert len(tail._blocks) >= 4 and max(b.power for b in tail._blocks) >= 8  # blocks exercised
    probabilities = tail.probabilities()
    assert probabilities[5:].sum() > 0.1  # ~11% of the draws land in the tail
    rng = np.random.default_rng(2026)
    draws = np.array([tail.sample(rng) for _ in range(20000)])
    observed, expected = _block_bins(tail, draws, probabilities)
    assert expected.min() > 20
    assert stats.chisquare(observed, expected).pvalue > ALPHA
    # Power: the distribution of a mechanism with ε off by 30% is rejected.
    wrong = LinearTailGEM(q[:5], 28.0, slope, m, eps * 1.3, beta)
    _, wrong_expected = _block_bins(tail, draws, wrong.probabilities())
    assert stats.chisquare(observed, wrong_expected).pvalue < ALPHA


@pytest.mark.parametrize(("gamma", "n"), [(3.0, 4), (0.75, 1), (10.5, 14), (2.0, 0)])
def test_power_of_two_coin_has_the_stated_probability(gamma: float, n: int) -> None:
    p = math.exp(-gamma) * 2**n
    rng = np.random.default_rng(7)
    heads = sum(bernoulli_exp_times_power_of_two(gamma, n, rng) for _ in range(4000))
    assert stats.binomtest(heads, 4000, p).pvalue > ALPHA
    # Power: a coin of probability off by the factor e^(±0.3·γ) (30% wrong γ) is rejected.
    if 0.05 < p < 0.95 and gamma > 1:
        assert stats.binomtest(heads, 4000, math.exp(-1.3 * gamma) * 2**n).pvalue < ALPHA


def test_power_of_two_coin_refuses_a_probability_above_one() -> None:
    with pytest.raises(InvalidParameterError, match="exceeds 1"):
        bernoulli_exp_times_power_of_two(0.5, 1, 0)


def test_head_must_end_on_the_tail_line() -> None:
    with pytest.raises(InvalidParameterError, match="tail's line"):
        LinearTailGEM(np.array([1.0, 9.0]), value=2.0, slope=0.0, m=10, epsilon=1.0, beta=0.1)


SMALL = PersonItemGraph.from_sets({f"p{k}": {k, k + 1, 1000} for k in range(200)})


def test_huge_ell_max_runs_fast_in_small_memory() -> None:
    tracemalloc.start()
    start = time.perf_counter()
    r = dp_distinct_count(SMALL, epsilon=1.0, ell_max=2**31 - 1, rng=3)
    seconds = time.perf_counter() - start
    peak = tracemalloc.get_traced_memory()[1]
    tracemalloc.stop()
    assert 1 <= r.ell <= 2**31 - 1 and r.ell_max == 2**31 - 1
    assert peak < 20 * 2**20, f"peak {peak / 2**20:.1f} MiB"  # dense would need 16+ GiB
    assert seconds < 2.0, f"{seconds:.2f} s"


def test_choices_beyond_the_dense_limit_need_the_exponential_sampler() -> None:
    with pytest.raises(InvalidParameterError, match="gem_permute_and_flip"):
        dp_distinct_count(SMALL, 1.0, ell_max=2**31 - 1, selection="gem_permute_and_flip")
    with pytest.raises(InvalidParameterError, match="diagnostics"):
        dp_distinct_count(SMALL, 1.0, ell_max=DENSE_ELL_MAX + 1, diagnostics=True)


def test_cli_count_with_a_billion_ell_max(tmp_path) -> None:
    data = tmp_path / "pairs.csv"
    data.write_text("person,item\n" + "".join(f"p{k},i{k % 37}\n" for k in range(3790)))
    done = subprocess.run(
        [sys.executable, "-m", "dpcount", "count", str(data), "--ell-max", "1000000000"],
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    assert "distinct items" in done.stdout


@settings(max_examples=25)
@given(graphs(max_persons=6, max_items=8), st.integers(1, 4000), st.floats(0.05, 4.0))
def test_distinct_count_probabilities_on_graphs_equal_dense(graph, ell_max, epsilon) -> None:
    """The tail built as dp_distinct_count builds it, on DC(D;ℓ) of real small graphs."""
    beta = 0.05
    head = curve_length(graph.degrees(), ell_max, "gem")
    curve = matching.dc_curve(graph, head)
    count_eps = epsilon / 2
    slope = math.log(1 / (2 * beta)) / count_eps
    ells = np.arange(1, head + 1, dtype=np.float64)
    tail = LinearTailGEM(curve - slope * ells, float(curve[-1]), slope, ell_max, count_eps, beta)
    q, all_ells = _dense(curve, ell_max, slope)
    dense = gem_probabilities(q, all_ells, count_eps, beta)
    np.testing.assert_allclose(tail.probabilities(), dense, rtol=1e-11, atol=1e-300)


def test_release_through_the_tail_path_follows_gem_with_power(monkeypatch) -> None:
    """dp_distinct_count_from_curve forced onto the tail path: ℓ̂ ~ dense GEM (chi-square)."""
    monkeypatch.setattr(distinct_count, "DENSE_ELL_MAX", 1)
    curve, degrees, eps, beta, ell_max = [2, 5, 7, 8], [4, 2, 1], 8.0, 0.2, 40
    slope = math.log(1 / (2 * beta)) / (eps / 2)
    q, ells = _dense(np.array(curve), ell_max, slope)
    rng = np.random.default_rng(11)
    draws = [
        dp_distinct_count_from_curve(
            curve[:4], degrees, eps, beta=beta, ell_max=ell_max, selection_rng=rng, noise_rng=rng
        ).ell
        for _ in range(1500)
    ]
    observed = np.bincount(draws, minlength=ell_max + 1)[1:]

    def pvalue(epsilon: float) -> float:
        p = gem_probabilities(q, ells, epsilon / 2, beta)
        bins = [0, 1, 2, 3, 4]  # ℓ = 1, 2, 3, 4 and the tail 5..ℓ_max
        expected = np.add.reduceat(p, bins) * len(draws)
        return float(stats.chisquare(np.add.reduceat(observed, bins), expected).pvalue)

    assert pvalue(eps) > ALPHA
    assert pvalue(eps * 1.3) < ALPHA  # power: ε off by 30% is rejected
