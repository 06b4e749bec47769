"""DPDistinctCount (Knop & Steinke Algorithms 1–2): parameters, accounting, coverage, privacy.

Statistical tests use fixed seeds and state their false-failure rate (for a correct mechanism
and a fresh seed).  Each has a power check on the same draws or the same procedure: coverage
must fail with half the shift, and the privacy audit must flag noise that is 30% too small.
"""

from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import given, settings
from scipy import stats

import matching
import mechanisms.distinct_count as dc
from dpcount import PersonItemGraph
from dpcount.common.rng import spawn
from dpcount.errors import InvalidParameterError, PrivacyLeakWarning, UnsafeNoiseWarning
from mechanisms.distinct_count import (
    DistinctCountResult,
    curve_length,
    dp_distinct_count,
    dp_distinct_count_from_curve,
)
from mechanisms.generalized_exponential import gem_probabilities
from mechanisms.laplace import discrete_shift, laplace_scale
from tests.strategies import graphs

ALPHA = 1e-4  # false-failure rate of each statistical assertion

# Every person holds one item, so DC(D;ℓ) = DC(D) for every ℓ and every counting method: the
# lower bound is tight and its failure rate is exactly P[noise > shift].
FLAT = PersonItemGraph.from_sets({f"p{i:03d}": {i % 40} for i in range(120)})
# A concave curve that keeps growing up to ℓ = 30.
SKEW = PersonItemGraph.from_sets(
    {"big": set(range(100, 130)), **{f"s{i:02d}": {i % 7, (i + 1) % 7} for i in range(40)}}
)
MIXED = PersonItemGraph.from_sets({f"p{i:03d}": {i, i + 1, 500} for i in range(150)})
EMPTY = PersonItemGraph.from_sets({})


def curve_for(graph: PersonItemGraph, counting: str, length: int, rng=None) -> np.ndarray:
    method = {"matching": "auto", "greedy": "greedy", "sampling": "sampling"}[counting]
    return matching.dc_curve(graph, length, method=method, rng=rng)


def binomial_excess_pvalue(failures: int, n: int, beta: float) -> float:
    """One-sided p-value of H0: failure probability ≤ β."""
    return float(stats.binomtest(failures, n, beta, alternative="greater").pvalue)


# --------------------------------------------------------------------------------------------
# Parameters, results and accounting
# --------------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("kwargs", "match"),
    [
        ({"epsilon": 0.0}, "epsilon"),
        ({"epsilon": -1.0}, "epsilon"),
        ({"epsilon": math.inf}, "epsilon"),
        ({"epsilon": math.nan}, "epsilon"),
        ({"epsilon": True}, "epsilon"),
        ({"beta": 0.0}, "beta"),
        ({"beta": 0.5}, "beta"),
        ({"beta": 0.7}, "beta"),
        ({"ell_max": 0}, "ell_max"),
        ({"ell_max": 2.5}, "ell_max"),
        ({"ell_max": -3}, "ell_max"),
        ({"ell_max": True}, "ell_max"),
        ({"ell_max": 2**31}, "ell_max"),
        ({"counting": "flow"}, "'matching', 'greedy', 'sampling'"),
        ({"selection": "exponential"}, "'gem', 'gem_permute_and_flip', 'max_utility'"),
        ({"noise": "gaussian"}, "'exact', 'float'"),
    ],
)
def test_invalid_parameters(kwargs, match):
    args = {"epsilon": 1.0, **kwargs}
    with pytest.raises(InvalidParameterError, match=match):
        dp_distinct_count(FLAT, rng=0, **args)


def test_graph_must_be_a_person_item_graph():
    with pytest.raises(InvalidParameterError, match="PersonItemGraph"):
        dp_distinct_count({"a": {1}}, 1.0)  # type: ignore[arg-type]


@pytest.mark.parametrize("counting", dc.COUNTINGS)
@pytest.mark.parametrize("selection", dc.PRIVATE_SELECTIONS)
def test_empty_graph_is_valid_and_private(counting, selection):
    r = dp_distinct_count(EMPTY, 1.0, ell_max=4, counting=counting, selection=selection, rng=3)
    assert 1 <= r.ell <= 4 and r.is_private and r.privacy_loss.epsilon == 1.0
    assert isinstance(r.estimate, int)


def test_result_fields_and_accounting():
    r = dp_distinct_count(SKEW, 0.8, beta=0.1, ell_max=12, rng=5)
    assert isinstance(r, DistinctCountResult)
    assert (r.epsilon, r.beta, r.ell_max, r.counting, r.selection, r.noise, r.secure) == (
        0.8,
        0.1,
        12,
        "matching",
        "gem",
        "exact",
        True,
    )
    assert 1 <= r.ell <= 12 and isinstance(r.estimate, int)
    # Algorithm 1: ε/2 for GEM plus ε/2 for the count, composed.
    loss = r.privacy_loss
    assert loss.epsilon == 0.8 and loss.delta == 0 and r.is_private
    assert [p.epsilon for p in loss.parts] == [0.4, 0.4]
    # Noise Lap(2ℓ̂/ε) (exact rational, rounded up) and the full discrete (1 − β) quantile.
    scale = laplace_scale(r.ell, 0.4)
    assert r.scale == float(scale) and scale >= 2 * r.ell / 0.8
    assert r.shift == discrete_shift(scale, 0.1)
    assert r.confidence == 0.9
    with pytest.raises(AttributeError):
        r.estimate = 5  # type: ignore[misc]
    assert r.curve is None and r.utilities is None and r.probabilities is None


def test_readable_text():
    r = dp_distinct_count(MIXED, 1.0, ell_max=5, rng=2)
    text = str(r)
    assert "With probability ≥ 95%" in text and f"at least {max(0, r.estimate):,}" in text
    assert "ε = 1 spent" in text and f"ℓ = {r.ell}" in text
    assert "DistinctCountResult(estimate=" in repr(r) and "privacy_loss=" in repr(r)
    html = r._repr_html_()
    assert html.startswith("<p>") and "<table>" in html
    negative = dp_distinct_count(EMPTY, 0.1, ell_max=3, rng=1)
    assert negative.estimate < 0 and "at least 0 distinct items" in str(negative)
    assert "negative" in str(negative)


def test_float_noise_warns_and_is_not_secure():
    with pytest.warns(UnsafeNoiseWarning, match="dp_distinct_count"):
        r = dp_distinct_count(FLAT, 1.0, ell_max=5, noise="float", rng=0)
    assert r.secure is False and isinstance(r.estimate, float) and r.is_private
    assert math.isclose(r.shift, r.scale * math.log(1 / (2 * 0.05)))  # Alg. 1 line 14
    assert "not for release" in str(r)


@pytest.mark.parametrize("selection", ["max_utility", "max_degree", "percentile"])
def test_comparison_points_are_marked_non_private(selection):
    with pytest.warns(PrivacyLeakWarning, match="NOT differentially private"):
        r = dp_distinct_count(SKEW, 1.0, ell_max=10, selection=selection, rng=0)
    assert not r.is_private and math.isinf(r.privacy_loss.epsilon)
    assert r.privacy_loss.description.startswith("NOT PRIVATE")
    assert r.privacy_loss.parts[0].epsilon == 1.0  # the count alone is 1-DP
    assert str(r).startswith("NOT DIFFERENTIALLY PRIVATE")
    # No budget goes to the selection, so the count gets all of ε: Lap(ℓ/ε).
    assert r.scale == float(laplace_scale(r.ell, 1.0))


def test_comparison_point_definitions():
    degrees = SKEW.degrees()  # one person with 30 items, 40 with 2
    with pytest.warns(PrivacyLeakWarning):
        top = dp_distinct_count(SKEW, 1.0, ell_max=10, selection="max_degree", rng=0)
        pct = dp_distinct_count(SKEW, 1.0, ell_max=10, selection="percentile", rng=0)
        best = dp_distinct_count(
            SKEW, 1.0, ell_max=10, selection="max_utility", rng=0, diagnostics=True
        )
    assert top.ell == 30 > top.ell_max  # the degree rules are not capped by ℓ_max (as in §4.2)
    assert pct.ell == math.ceil(np.percentile(degrees, 90)) == 2
    curve = matching.dc_curve(SKEW, 10)
    ell = np.arange(1, 11)
    q = curve - (ell / 1.0) * math.log(1 / (2 * 0.05))  # §4.2: DC(D;ℓ) − (ℓ/ε)·ln(1/(2β))
    assert best.ell == 1 + int(np.argmax(q))
    np.testing.assert_allclose(best.utilities, q)
    assert curve_length(degrees, 10, "max_degree") == 30
    assert curve_length(degrees, 10, "gem") == 10


def test_diagnostics_are_the_algorithm_1_quantities():
    eps, beta = 1.0, 0.05
    r = dp_distinct_count(SKEW, eps, beta=beta, ell_max=40, rng=4, diagnostics=True)
    curve = matching.dc_curve(SKEW, 40)
    np.testing.assert_array_equal(r.curve, curve)
    ell = np.arange(1, 41)
    q = curve - (2 * ell / eps) * math.log(1 / (2 * beta))  # Algorithm 1 line 11
    np.testing.assert_allclose(r.utilities, q)
    np.testing.assert_allclose(r.probabilities, gem_probabilities(q, ell, eps / 2, beta))
    assert r.count_at_ell == curve[r.ell - 1]
    assert not r.curve.flags.writeable and not r.probabilities.flags.writeable


def test_public_function_uses_three_independent_child_streams():
    # selection, noise and (for sampling) the curve: children 0, 1 and 2 of rng.
    for counting in dc.COUNTINGS:
        r = dp_distinct_count(MIXED, 1.0, ell_max=6, counting=counting, rng=42)
        sel, noise, curve_rng = spawn(42, 3)
        curve = curve_for(MIXED, counting, 6, rng=curve_rng)
        again = dp_distinct_count_from_curve(
            curve,
            MIXED.degrees(),
            1.0,
            ell_max=6,
            counting=counting,
            selection_rng=sel,
            noise_rng=noise,
        )
        assert again == r
    runs = {dp_distinct_count(MIXED, 1.0, ell_max=6, rng=s).estimate for s in range(10)}
    assert len(runs) > 1
    assert dp_distinct_count(MIXED, 1.0, ell_max=6, counting="sampling", rng=7) == (
        dp_distinct_count(MIXED, 1.0, ell_max=6, counting="sampling", rng=7)
    )


def test_from_curve_warns_like_the_public_function():
    with pytest.warns(UnsafeNoiseWarning, match="dp_distinct_count_from_curve"):
        r = dp_distinct_count_from_curve([3, 4], [2, 2], 1.0, ell_max=2, noise="float")
    assert not r.secure
    with pytest.warns(PrivacyLeakWarning):
        r = dp_distinct_count_from_curve([3, 4], [2, 2], 1.0, ell_max=2, selection="max_degree")
    assert r.ell == 2 and not r.is_private
    for bad in ([1.5, 2.0], [-1, 2], [1, math.nan]):
        with pytest.raises(InvalidParameterError, match="integer counts"):
            dp_distinct_count_from_curve(bad, [2], 1.0, ell_max=2)
    with pytest.raises(InvalidParameterError, match="degrees"):
        dp_distinct_count_from_curve([1, 2], [[2]], 1.0, ell_max=2)


def test_from_curve_checks_the_curve_length():
    with pytest.raises(InvalidParameterError, match=r"1\.\.5"):
        dp_distinct_count_from_curve([1, 2, 3], [1, 7], 1.0, ell_max=5)
    # DC(D;ℓ) is flat from the largest degree on: the curve need not go further.
    r = dp_distinct_count_from_curve([1, 2], [1, 2], 1.0, ell_max=5, selection_rng=0, noise_rng=0)
    assert 1 <= r.ell <= 5
    with pytest.raises(InvalidParameterError, match=r"1\.\.30"):
        # max_degree needs DC(D;30); the public function computes it, a caller must too.
        dp_distinct_count_from_curve(
            np.arange(10), SKEW.degrees(), 1.0, ell_max=10, selection="max_degree"
        )


@settings(max_examples=30)
@given(graphs(max_persons=6, max_items=6))
def test_any_small_graph(graph):
    for counting in dc.COUNTINGS:
        r = dp_distinct_count(graph, 1.0, ell_max=4, counting=counting, rng=0, diagnostics=True)
        assert 1 <= r.ell <= 4 and r.privacy_loss.epsilon == 1.0
        assert r.count_at_ell <= graph.n_items


# --------------------------------------------------------------------------------------------
# Coverage: P[ν̂ ≤ DC(D)] ≥ 1 − β
# --------------------------------------------------------------------------------------------


def coverage_runs(graph, counting, noise, n, seed, ell_max=6, beta=0.05, eps=1.0):
    """(estimates, shifts) of n independent runs of the whole mechanism."""
    estimates, shifts = np.empty(n), np.empty(n)
    if counting == "sampling":  # the curve is random: the public function, fresh each run
        for k in range(n):
            r = dp_distinct_count(
                graph, eps, beta=beta, ell_max=ell_max, counting=counting, noise=noise, rng=seed + k
            )
            estimates[k], shifts[k] = r.estimate, r.shift
        return estimates, shifts
    curve = curve_for(graph, counting, ell_max)  # deterministic: computed once
    sel, noi = spawn(seed, 2)
    for k in range(n):
        r = dp_distinct_count_from_curve(
            curve,
            graph.degrees(),
            eps,
            beta=beta,
            ell_max=ell_max,
            counting=counting,
            noise=noise,
            selection_rng=sel,
            noise_rng=noi,
        )
        estimates[k], shifts[k] = r.estimate, r.shift
    return estimates, shifts


@pytest.mark.filterwarnings("ignore::dpcount.errors.UnsafeNoiseWarning")
@pytest.mark.parametrize("noise", ["exact", "float"])
@pytest.mark.parametrize("counting", ["matching", "greedy", "sampling"])
def test_coverage_is_at_least_one_minus_beta(counting, noise):
    # FLAT makes the bound tight (DC(D;ℓ̂) = DC(D)), so failures ~ Binomial(n, P[Z > shift]) with
    # P[Z > shift] = β (continuous) or ≤ β (discrete).  The one-sided binomial test has
    # false-failure rate ≤ ALPHA.  Power: from the same draws, a mechanism subtracting only half
    # the shift fails with probability ≈ √(β/2) ≈ 0.16 per run (the error of the public
    # reference code, docs/algorithms.md §3); at n = 1500 that is ~240 failures where the test
    # tolerates ~100, so it must be rejected.
    n, beta = 1500, 0.05
    estimates, shifts = coverage_runs(FLAT, counting, noise, n, seed=1000, beta=beta)
    truth = FLAT.n_items
    failures = int(np.sum(estimates > truth))
    assert binomial_excess_pvalue(failures, n, beta) > ALPHA, failures
    half_shift_failures = int(np.sum(estimates + shifts / 2 > truth))
    assert binomial_excess_pvalue(half_shift_failures, n, beta) < ALPHA, half_shift_failures


@pytest.mark.parametrize(
    ("graph", "counting"),
    [(SKEW, "matching"), (MIXED, "matching"), (MIXED, "greedy"), (EMPTY, "matching")],
)
def test_coverage_on_curved_graphs(graph, counting):
    # Here DC(D;ℓ̂) ≤ DC(D) adds slack, so P[ν̂ > DC(D)] ≤ β strictly; false-failure ≤ ALPHA.
    n, beta = 800, 0.05
    estimates, _ = coverage_runs(graph, counting, "exact", n, seed=77, ell_max=40, beta=beta)
    failures = int(np.sum(estimates > graph.n_items))
    assert binomial_excess_pvalue(failures, n, beta) > ALPHA, failures


# --------------------------------------------------------------------------------------------
# Privacy audit on neighbouring datasets
# --------------------------------------------------------------------------------------------

AUDIT_EPS, AUDIT_BETA, AUDIT_ELL_MAX, AUDIT_RUNS = 1.0, 0.1, 3, 3000
SMALL = PersonItemGraph.from_sets({"a": {"x1", "x2"}, "b": {"x1"}})
LARGE = SMALL.with_person("c", ["y1", "y2", "y3"])  # DC(LARGE;ℓ) = DC(SMALL;ℓ) + ℓ, ℓ ≤ 3


def audit_runs(graph: PersonItemGraph, seed: int) -> np.ndarray:
    """(ℓ̂, ν̂, shift) of AUDIT_RUNS runs of the whole mechanism with exact noise."""
    curve = matching.dc_curve(graph, AUDIT_ELL_MAX)
    sel, noi = spawn(seed, 2)
    out = np.empty((AUDIT_RUNS, 3))
    for k in range(AUDIT_RUNS):
        r = dp_distinct_count_from_curve(
            curve,
            graph.degrees(),
            AUDIT_EPS,
            beta=AUDIT_BETA,
            ell_max=AUDIT_ELL_MAX,
            selection_rng=sel,
            noise_rng=noi,
        )
        out[k] = r.ell, r.estimate, r.shift
    return out


def log_ratio_excess(k1: int, n1: int, k2: int, n2: int, bound: float) -> float:
    """z-statistic of log(p̂1/p̂2) − log(bound) (delta method); large means p1 > bound·p2."""
    if min(k1, k2, n1 - k1, n2 - k2) < 30:
        return -math.inf  # too few observations for the normal approximation: no verdict
    p1, p2 = k1 / n1, k2 / n2
    se = math.sqrt((1 - p1) / (n1 * p1) + (1 - p2) / (n2 * p2))
    return (math.log(p1 / p2) - math.log(bound)) / se


def audit(small: np.ndarray, large: np.ndarray) -> list[str]:
    """Violations of the privacy guarantee seen in the samples (empty if none).

    The joint bound P[(ℓ̂, ν̂) = o | D] ≤ e^ε P[o | D'] is checked on every output seen often
    enough, but for this mechanism it is far from tight (GEM rarely spends its whole ε/2), so a
    30% noise error cannot push it over e^ε.  The audit therefore also checks the composition
    the proof uses, from the same end-to-end runs: the selection marginal and the release given
    ℓ̂, each within e^{ε/2}.  Given ℓ̂ = ℓ the count differs by exactly ℓ between the datasets,
    so the tail events {ν̂ ≥ DC(LARGE;ℓ) − shift} and {ν̂ ≤ DC(SMALL;ℓ) − shift} have likelihood
    ratio exactly e^{ℓ/scale}: e^{ε/2} for the correct scale, e^{ε/(2·0.7)} for a 30% too
    small one.  Each one-sided z-test runs at ALPHA / (number of tests).
    """
    half, full = math.exp(AUDIT_EPS / 2), math.exp(AUDIT_EPS)
    small_curve = matching.dc_curve(SMALL, AUDIT_ELL_MAX)
    large_curve = matching.dc_curve(LARGE, AUDIT_ELL_MAX)
    checks: list[tuple[str, float]] = []
    n_s, n_l = len(small), len(large)
    for ell in range(1, AUDIT_ELL_MAX + 1):
        in_s, in_l = small[:, 0] == ell, large[:, 0] == ell
        k_s, k_l = int(in_s.sum()), int(in_l.sum())
        checks.append((f"P[ℓ̂={ell}] large/small", log_ratio_excess(k_l, n_l, k_s, n_s, half)))
        checks.append((f"P[ℓ̂={ell}] small/large", log_ratio_excess(k_s, n_s, k_l, n_l, half)))
        up = large_curve[ell - 1]  # ν̂ + shift ≥ DC(LARGE;ℓ): noise ≥ 0 on LARGE, ≥ ℓ on SMALL
        e_l = int(np.sum(large[in_l, 1] + large[in_l, 2] >= up))
        e_s = int(np.sum(small[in_s, 1] + small[in_s, 2] >= up))
        checks.append((f"upper tail | ℓ̂={ell}", log_ratio_excess(e_l, k_l, e_s, k_s, half)))
        down = small_curve[ell - 1]
        e_s = int(np.sum(small[in_s, 1] + small[in_s, 2] <= down))
        e_l = int(np.sum(large[in_l, 1] + large[in_l, 2] <= down))
        checks.append((f"lower tail | ℓ̂={ell}", log_ratio_excess(e_s, k_s, e_l, k_l, half)))
    outputs = {(int(a), int(b)) for a, b in np.concatenate([small, large])[:, :2]}
    for ell, value in sorted(outputs):
        k_s = int(np.sum((small[:, 0] == ell) & (small[:, 1] == value)))
        k_l = int(np.sum((large[:, 0] == ell) & (large[:, 1] == value)))
        checks.append((f"P[{ell}, {value}] l/s", log_ratio_excess(k_l, n_l, k_s, n_s, full)))
        checks.append((f"P[{ell}, {value}] s/l", log_ratio_excess(k_s, n_s, k_l, n_l, full)))
    critical = stats.norm.isf(ALPHA / len(checks))
    return [f"{name}: z = {z:.1f}" for name, z in checks if z > critical]


def test_gem_choice_of_ell_is_within_half_epsilon_exactly():
    # The selection marginal from exact probabilities (no sampling error).
    p = [
        dp_distinct_count(
            g, AUDIT_EPS, beta=AUDIT_BETA, ell_max=AUDIT_ELL_MAX, rng=0, diagnostics=True
        )
        for g in (SMALL, LARGE)
    ]
    ratio = p[0].probabilities / p[1].probabilities
    assert np.all(ratio <= math.exp(AUDIT_EPS / 2) * (1 + 1e-12))
    assert np.all(1 / ratio <= math.exp(AUDIT_EPS / 2) * (1 + 1e-12))


def test_privacy_audit_on_neighbouring_datasets(monkeypatch):
    # False-failure rate ≈ ALPHA (Bonferroni over the audit's tests; normal approximation).
    small, large = audit_runs(SMALL, seed=1), audit_runs(LARGE, seed=2)
    assert audit(small, large) == []
    # Power: the same audit flags a mechanism whose Laplace noise is 30% too small.  The tail
    # ratio is then e^{0.714} instead of e^{0.5}; with ~2.5k runs at ℓ̂ = 1 on each side the
    # z-statistic is ≈ 7 against a critical value ≈ 4.6.
    real = dc.laplace_lower_bound

    def too_little_noise(value, sensitivity, epsilon, beta, **kwargs):
        return real(value, sensitivity, epsilon / 0.7, beta, **kwargs)

    monkeypatch.setattr(dc, "laplace_lower_bound", too_little_noise)
    small, large = audit_runs(SMALL, seed=3), audit_runs(LARGE, seed=4)
    found = audit(small, large)
    assert any("tail" in v for v in found), found
