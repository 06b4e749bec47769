"""Tests of the shifted inverse mechanism and its inverses (mechanisms/inverse.py).

Statistical tests use fixed seeds; each states its false-failure rate and has a power check:
the same test, run on a deliberately wrong mechanism, must fail.
"""

from __future__ import annotations

import math
import warnings

import numpy as np
import pytest
from hypothesis import given, settings
from scipy import stats

import mechanisms.shifted_inverse_mechanism as si
from dpcount import PersonItemGraph
from dpcount.errors import InvalidParameterError, UnsafeNoiseWarning
from mechanisms.inverse import (
    MAX_EXACT_PERSONS,
    exact_inverse,
    lp_hull,
    lp_inverse,
    lp_removed,
    lp_removed_highs,
)
from mechanisms.shifted_inverse_mechanism import (
    output_grid,
    plan_from_inverse,
    plan_shifted_inverse,
    point_probabilities,
    point_scores,
    shifted_inverse,
    tau_for,
)
from tests.strategies import graphs, neighbours

ALPHA = 1e-3  # false-failure rate of each statistical test below


def _private_items_graph(n_persons: int, per_person: int) -> PersonItemGraph:
    """Each person holds ``per_person`` items nobody else holds: f̌_j = f − per_person·j."""
    return PersonItemGraph.from_sets(
        {f"p{i:02d}": {f"i{i:02d}-{k}" for k in range(per_person)} for i in range(n_persons)}
    )


# --------------------------------------------------------------------------------------------
# The inverses
# --------------------------------------------------------------------------------------------


def test_exact_inverse_vector():
    # a:{1,2} b:{2,3} c:{4}: removing c leaves 3; removing a and b leaves 1 (item 4).
    g = PersonItemGraph.from_sets({"a": {1, 2}, "b": {2, 3}, "c": {4}, "d": set()})
    assert exact_inverse(g, 5).tolist() == [4, 3, 1, 0, 0, 0]
    assert lp_hull(g) == [(0, 0), (2, 3), (3, 4)]
    assert [str(v) for v in lp_removed(g, 4)] == ["0", "3/2", "3", "4", "4"]


def test_lp_is_below_exact_on_a_gap_instance():
    # Item i_k is held by persons k and k+1 on a cycle of 4: removing 2 persons removes at most
    # one item exactly, but x = ½ everywhere removes all 4 items "half" for a budget of 2.
    g = PersonItemGraph.from_sets({f"p{k}": {f"i{k}", f"i{(k - 1) % 4}"} for k in range(4)})
    assert exact_inverse(g, 2).tolist() == [4, 4, 3]
    assert lp_inverse(g, 2).tolist() == [4.0, 3.0, 2.0]


def test_exact_inverse_refuses_large_graphs():
    g = _private_items_graph(MAX_EXACT_PERSONS + 1, 1)
    with pytest.raises(InvalidParameterError, match=f"MAX_EXACT_PERSONS = {MAX_EXACT_PERSONS}"):
        exact_inverse(g, 3)
    with pytest.raises(InvalidParameterError, match="inverse='lp'"):
        shifted_inverse(g, 1.0, upper=100, inverse="exact", rng=0)
    # Persons without items do not count towards the limit.
    padded = PersonItemGraph.from_sets(
        {**{f"e{k}": set() for k in range(30)}, "a": {1}, "b": {1, 2}}
    )
    assert exact_inverse(padded, 2).tolist() == [2, 1, 0]


@settings(max_examples=150)
@given(graphs(max_persons=7, max_items=8))
def test_lp_below_exact_and_monotone(graph):
    """LP_j relaxes the integer programme, so f̌_LP ≤ f̌_exact; both non-increasing, f̌_0 = f."""
    j_max = 9
    lp, ex = lp_inverse(graph, j_max), exact_inverse(graph, j_max)
    assert lp[0] == ex[0] == graph.n_items
    assert np.all(lp <= ex + 1e-12)
    assert np.all(np.diff(lp) <= 0) and np.all(np.diff(ex) <= 0)
    assert lp[-1] == ex[-1] == 0  # removing everyone (≤ 7 persons) removes everything


@settings(max_examples=60)
@given(graphs(max_persons=6, max_items=7))
def test_mincut_lp_agrees_with_highs(graph):
    j_max = 7
    np.testing.assert_allclose(
        lp_inverse(graph, j_max), lp_inverse(graph, j_max, solver="highs"), atol=1e-7
    )


@pytest.mark.parametrize("inverse", [exact_inverse, lp_inverse])
@settings(max_examples=150)
@given(pair=neighbours(max_persons=6, max_items=7))
def test_inverse_neighbour_property(inverse, pair):
    """f̌(D, j+1) ≤ f̌(D', j) ≤ f̌(D, j) for D' = D minus one person (docs/algorithms.md §5)."""
    smaller, larger = pair
    j_max = 8
    big, small = inverse(larger, j_max + 1), inverse(smaller, j_max)
    assert np.all(big[1:] <= small)
    assert np.all(small <= big[:-1])


# --------------------------------------------------------------------------------------------
# Grid, τ, scores
# --------------------------------------------------------------------------------------------


def test_grid_and_tau():
    grid = output_grid(1e7)
    assert grid.size == 7002 and grid.values[0] == 0 and grid.values[1] == 1
    assert grid.values[-1] == pytest.approx(1e7)
    assert tau_for(1.0, 0.1, grid.size) == math.ceil(2 * math.log(70020)) == 23
    assert output_grid(10, log_domain=False).values.tolist() == list(range(11))
    assert output_grid(1000, step=1).values.tolist() == [0, 1, 10, 100, 1000]
    # The floor map rounds down and is monotone.
    assert grid.floor_index(np.array([0.0, 0.5, 1.0, 9999.0, 1e9])).tolist()[:3] == [0, 0, 1]
    assert (
        grid.values[grid.floor_index(9999.0)] <= 9999.0 < grid.values[grid.floor_index(9999.0) + 1]
    )
    with pytest.raises(InvalidParameterError, match="MAX_GRID_POINTS"):
        output_grid(1e9, log_domain=False)
    with pytest.raises(InvalidParameterError, match="upper"):
        output_grid(0.5)
    with pytest.raises(InvalidParameterError, match="step"):
        output_grid(10, step=-1)


def _oracle_scores(values: np.ndarray, grid: np.ndarray, tau: int) -> np.ndarray:
    """Scores straight from the definition, one grid point at a time (independent of the code).

    r(v) = largest grid point ≤ v; ℓ(y) = min{j : r(f̌_j) ≤ y}, ℓ̄(y) = min{j : r(f̌_j) < y},
    both 2τ + 1 when no j ≤ 2τ qualifies; s = −max(ℓ − τ, τ − ℓ̄).
    """
    rounded = [max(g for g in grid if g <= v) for v in values]
    scores = []
    for y in grid:
        ell = next((j for j, v in enumerate(rounded) if v <= y), len(rounded))
        ell_bar = next((j for j, v in enumerate(rounded) if v < y), len(rounded))
        scores.append(-max(ell - tau, tau - ell_bar))
    return np.array(scores)


@pytest.mark.parametrize("log_domain", [False, True])
@pytest.mark.parametrize("seed", range(6))
def test_run_probabilities_match_brute_force(log_domain, seed):
    """Run-based probabilities = per-point exp(ε·s/2) normalisation, scores from the oracle."""
    gen = np.random.default_rng(seed)
    epsilon, tau = float(gen.uniform(0.3, 3)), int(gen.integers(1, 6))
    grid = output_grid(60, step=0.1 if log_domain else 1, log_domain=log_domain)
    steps = gen.choice([0, 0, 0.5, 1, 3, 7.3], size=2 * tau)
    values = np.maximum(0.0, 45.0 - np.concatenate([[0], np.cumsum(steps)]))
    plan = plan_from_inverse(values, grid, epsilon, 0.1, tau)
    scores = _oracle_scores(values, grid.values, tau)
    np.testing.assert_array_equal(point_scores(values, grid, tau), scores)
    selection = si.selection_epsilon(epsilon)  # ε rounded down to 22 significant bits
    assert epsilon * (1 - 2**-21) <= selection <= epsilon
    weights = np.exp(selection / 2 * (scores - scores.max()))
    np.testing.assert_allclose(
        point_probabilities(plan.runs, grid.size), weights / weights.sum(), rtol=1e-9, atol=0
    )
    assert plan.runs.sizes.sum() == grid.size
    assert plan.runs.sizes.size <= 2 * (2 * tau + 1) + 1


def test_best_point_scores_nonnegative_on_a_log_grid():
    """Rounding down to the grid keeps a point of score ≥ 0 at r(f̌_τ) even off-grid."""
    grid = output_grid(1e4)
    values = 2406.0 - np.arange(2 * 22 + 1) * 0.024  # O.OD-like: LP inverse nearly flat
    scores = point_scores(values, grid, 22)
    assert scores.max() >= 0
    assert scores[grid.floor_index(values[22])] >= 0


def _chi2_pvalue(draws: np.ndarray, probabilities: np.ndarray) -> float:
    """χ² goodness of fit, grid points with expected count < 5 lumped into one bin."""
    counts = np.bincount(draws, minlength=probabilities.size)
    expected = probabilities * draws.size
    big = expected >= 5
    observed = np.append(counts[big], counts[~big].sum())
    expected = np.append(expected[big], expected[~big].sum())
    if expected[-1] == 0:
        observed, expected = observed[:-1], expected[:-1]
    return float(stats.chisquare(observed, expected).pvalue)


def _sampler_case() -> tuple[np.ndarray, si.OutputGrid, int]:
    grid = output_grid(40, log_domain=False)
    values = np.array([30.0, 28, 28, 25, 20, 19, 10, 10, 9])  # 2τ + 1 = 9 values, τ = 4
    return values, grid, 4


def test_sampler_chi_square():
    """χ² of 20 000 draws against the exact point probabilities; false failure ≤ 1e-3."""
    values, grid, tau = _sampler_case()
    plan = plan_from_inverse(values, grid, 1.0, 0.1, tau)
    gen = np.random.default_rng(2024)
    draws = np.array([si._draw(plan.runs, gen) for _ in range(20_000)])
    assert _chi2_pvalue(draws, point_probabilities(plan.runs, grid.size)) > ALPHA


def test_sampler_chi_square_power():
    """Power: draws made with ε·0.7 are rejected by the same test."""
    values, grid, tau = _sampler_case()
    right = plan_from_inverse(values, grid, 1.0, 0.1, tau)
    wrong = plan_from_inverse(values, grid, 0.7, 0.1, tau)
    gen = np.random.default_rng(2024)
    draws = np.array([si._draw(wrong.runs, gen) for _ in range(20_000)])
    assert _chi2_pvalue(draws, point_probabilities(right.runs, grid.size)) < ALPHA


@pytest.mark.parametrize("epsilon", [0.3, 1.0, 7.5])
def test_exact_sampler_chi_square_and_power(epsilon):
    """The exact selection against the exact point probabilities (false failure ≤ 1e-3);
    power: the same draws are rejected against the probabilities of ε·0.7 (or ε/0.7)."""
    values, grid, tau = _sampler_case()
    plan = plan_from_inverse(values, grid, epsilon, 0.1, tau)
    gen = np.random.default_rng(7)
    proposal = si._exact_proposal(plan.runs, si.selection_epsilon(epsilon))
    draws = np.array([proposal.draw(gen) for _ in range(20_000)])
    assert _chi2_pvalue(draws, point_probabilities(plan.runs, grid.size)) > ALPHA
    wrong = plan_from_inverse(values, grid, epsilon * (0.7 if epsilon < 5 else 1 / 0.7), 0.1, tau)
    assert _chi2_pvalue(draws, point_probabilities(wrong.runs, grid.size)) < ALPHA


def test_exact_sampler_with_far_apart_scores():
    """Penalties up to hundreds (powers of two far beyond 64 bits) stay exact and fast; the
    best run (score τ) holds all but e^{-ε·τ}-small mass."""
    grid = output_grid(10**4, log_domain=False)
    values = np.full(2 * 60 + 1, 5000.0)  # τ = 60: one point scores τ, the rest far below
    plan = plan_from_inverse(values, grid, 20.0, 0.1, 60)
    gen = np.random.default_rng(3)
    draws = {si._draw_exact(plan.runs, si.selection_epsilon(20.0), gen) for _ in range(200)}
    assert draws == {int(grid.floor_index(np.array([5000.0]))[0])}


def test_selection_epsilon_makes_every_penalty_exact():
    from fractions import Fraction

    for epsilon in (0.1, 1 / 3, 2.0, 1e-3, 123.456):
        e = si.selection_epsilon(epsilon)
        assert e <= epsilon * (1 + 1e-16) and e >= epsilon * (1 - 2**-21)
        for gap in (1, 3, 2**20 + 1, 3 * 10**6 + 7):
            assert Fraction(gap * (e / 2)) == gap * (Fraction(e) / 2)  # no rounding


# --------------------------------------------------------------------------------------------
# Sensitivity of the score (privacy)
# --------------------------------------------------------------------------------------------


@pytest.mark.parametrize("inverse", ["exact", "lp"])
@pytest.mark.parametrize("log_domain", [False, True])
@settings(max_examples=100)
@given(pair=neighbours(max_persons=6, max_items=7))
def test_score_sensitivity_one(inverse, log_domain, pair):
    """|s(D, y) − s(D', y)| ≤ 1 for every grid point y, with τ and the grid fixed."""
    smaller, larger = pair
    tau = 3
    grid = output_grid(20, step=0.05 if log_domain else 1, log_domain=log_domain)
    compute = exact_inverse if inverse == "exact" else lp_inverse
    s_small = point_scores(compute(smaller, 2 * tau).astype(float), grid, tau)
    s_large = point_scores(compute(larger, 2 * tau).astype(float), grid, tau)
    assert np.max(np.abs(s_small - s_large)) <= 1


def test_score_sensitivity_power():
    """The bound is attained, and an inverse that is not neighbour-stable breaks it."""
    smaller = _private_items_graph(4, 2)
    larger = smaller.with_person("zz", [f"new-{k}" for k in range(10)])
    grid = output_grid(30, log_domain=False)
    s_small = point_scores(exact_inverse(smaller, 6).astype(float), grid, 3)
    s_large = point_scores(exact_inverse(larger, 6).astype(float), grid, 3)
    assert np.max(np.abs(s_small - s_large)) == 1

    def wrong(graph):  # f − j·(max degree): scales with a data-dependent quantity
        j = np.arange(7)
        return np.maximum(0.0, graph.n_items - j * graph.degrees().max())

    s_small, s_large = point_scores(wrong(smaller), grid, 3), point_scores(wrong(larger), grid, 3)
    assert np.max(np.abs(s_small - s_large)) > 1


# --------------------------------------------------------------------------------------------
# Under-estimate with probability ≥ 1 − β (statistical, with power check)
# --------------------------------------------------------------------------------------------


def _failure_rate_ok(estimates: np.ndarray, low: float, high: float, beta: float) -> bool:
    """One-sided binomial test of H0: P[estimate ∉ [low, high]] ≤ β at level ALPHA."""
    failures = int(np.sum((estimates < low) | (estimates > high)))
    return stats.binomtest(failures, estimates.size, beta, alternative="greater").pvalue > ALPHA


def _coverage_case(
    monkeypatch=None, tau_factor: float = 1.0
) -> tuple[np.ndarray, si.ShiftedInversePlan]:
    graph = _private_items_graph(16, 2)  # f = 32, exact f̌_j = 32 − 2j
    if monkeypatch is not None:
        original = si.tau_for
        monkeypatch.setattr(
            si, "tau_for", lambda e, b, n: max(1, int(original(e, b, n) * tau_factor))
        )
    plan = plan_shifted_inverse(graph, 3.0, beta=0.1, upper=200, log_domain=False, inverse="exact")
    gen = np.random.default_rng(11)
    proposal = si._exact_proposal(plan.runs, si.selection_epsilon(plan.epsilon))  # default
    estimates = np.array([plan.grid.values[proposal.draw(gen)] for _ in range(4000)])
    return estimates, plan


def test_coverage():
    """With prob. ≥ 1 − β the output is in [r(f̌_2τ), f]; false failure ≤ 1e-3."""
    estimates, plan = _coverage_case()
    low, high = plan.grid.values[plan.grid.floor_index(plan.inverse_values[-1])], 32
    # The exact failure probability from the run weights is below β too.
    p = point_probabilities(plan.runs, plan.grid.size)
    outside = (plan.grid.values < low) | (plan.grid.values > high)
    assert p[outside].sum() <= plan.beta
    assert _failure_rate_ok(estimates, low, high, plan.beta)


def test_coverage_power(monkeypatch):
    """Power: with τ cut to a third the same test fails (the shift is what buys coverage)."""
    estimates, plan = _coverage_case(monkeypatch, tau_factor=1 / 3)
    low = plan.grid.values[plan.grid.floor_index(plan.inverse_values[-1])]
    assert not _failure_rate_ok(estimates, low, 32, plan.beta)


# --------------------------------------------------------------------------------------------
# Public function
# --------------------------------------------------------------------------------------------


def test_shifted_inverse_result_and_reproducibility():
    g = _private_items_graph(12, 3)
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # the exact default warns of nothing
        a = shifted_inverse(g, 1.0, upper=1000, rng=5)
    b = shifted_inverse(g, 1.0, upper=1000, rng=5)
    assert a.estimate == b.estimate and a.secure and a.to_dict()["secure"]
    with pytest.warns(UnsafeNoiseWarning):
        f = shifted_inverse(g, 1.0, upper=1000, noise="float", rng=5)
    back = si.ShiftedInverseResult.from_json(f.to_json())
    assert not f.secure and not back.secure and back.estimate == f.estimate
    assert a.privacy_loss.epsilon == 1.0 and a.tau == tau_for(
        1.0, 0.05, a.grid_size
    )  # the default β
    assert a.inverse == "lp" and a.grid.log_domain
    assert "ShiftedInverseResult(estimate=" in repr(a)
    e = shifted_inverse(g, 1.0, upper=1000, inverse="exact", rng=5)
    assert e.inverse == "exact"


def test_shifted_inverse_empty_graph_answers_zero():
    # 0 scores +τ, every other point −τ: P[output ≠ 0] = 2001·e^{−ετ} ≈ 4e-6 per draw.
    g = PersonItemGraph.from_sets({"a": set()})
    assert all(shifted_inverse(g, 1.0, upper=100, rng=seed).estimate == 0.0 for seed in range(50))


@pytest.mark.parametrize(
    ("kwargs", "match"),
    [
        ({"epsilon": 0}, "epsilon"),
        ({"beta": 0.5}, "beta"),
        ({"inverse": "ilp"}, "inverse"),
        ({"upper": -3}, "upper"),
        ({"noise": "gauss"}, "noise"),
    ],
)
def test_shifted_inverse_rejects_bad_parameters(kwargs, match):
    g = _private_items_graph(3, 1)
    params = {"epsilon": 1.0, "beta": 0.1, "upper": 100, **kwargs}
    with pytest.raises(InvalidParameterError, match=match):
        shifted_inverse(g, params.pop("epsilon"), beta=params.pop("beta"), **params)


@pytest.mark.parametrize("epsilon", [1e-7, 1e-300, 5e-324])
def test_tiny_epsilon_is_refused_with_a_reason(epsilon):
    """τ = (2/ε)·ln(|Y|/β) beyond MAX_TAU, or infinite (a subnormal ε used to end in
    OverflowError from ceil(inf)), is refused before any work."""
    with pytest.raises(InvalidParameterError, match="too small for the shifted inverse"):
        shifted_inverse(_private_items_graph(3, 1), epsilon, upper=100)


def test_plan_from_inverse_validates():
    grid = output_grid(10, log_domain=False)
    with pytest.raises(InvalidParameterError, match="2τ"):
        plan_from_inverse(np.array([3.0, 2.0]), grid, 1.0, 0.1, 1)
    with pytest.raises(InvalidParameterError, match="non-increasing"):
        plan_from_inverse(np.array([3.0, 4.0, 2.0]), grid, 1.0, 0.1, 1)


# --------------------------------------------------------------------------------------------
# Larger instances
# --------------------------------------------------------------------------------------------


@pytest.mark.parametrize("seed", range(3))
def test_mincut_lp_agrees_with_highs_on_larger_graphs(seed):
    """Parametric min cut = HiGHS on 150 persons × 300 items with skewed item popularity."""
    gen = np.random.default_rng(seed)
    sets = {}
    for p in range(150):
        size = int(gen.integers(1, 12))
        sets[f"p{p:03d}"] = set(gen.zipf(1.6, size=size).clip(max=300).tolist())
    g = PersonItemGraph.from_sets(sets)
    j_values = [0, 1, 2, 5, 10, 20, 40]
    mincut = lp_inverse(g, max(j_values))[j_values]
    highs = np.array([g.n_items - lp_removed_highs(g, j) for j in j_values])
    np.testing.assert_allclose(mincut, highs, atol=1e-6)


def test_exact_inverse_at_the_size_limit():
    gen = np.random.default_rng(5)
    sets = {f"p{p:02d}": set(gen.choice(40, size=5, replace=False).tolist()) for p in range(20)}
    g = PersonItemGraph.from_sets(sets)
    ex, lp = exact_inverse(g, 20), lp_inverse(g, 20)
    assert np.all(lp <= ex + 1e-12) and ex[-1] == lp[-1] == 0
