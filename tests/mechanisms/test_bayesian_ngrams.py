"""Tests of the Bayesian n-gram mechanism (Ramadan, Withers & Orr) and its Laplace baselines.

The oracles here are written independently of the package: dense person × word count matrices,
recomputed from scratch for every neighbour.  Statistical tests use fixed seeds and state their
false-failure rate (the probability that a correct implementation fails with a fresh seed);
each has a power check with a noise scale wrong by 30%.
"""

from __future__ import annotations

import math
import warnings

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy import stats

from dpcount import PersonItemGraph
from dpcount.errors import DataError, InvalidParameterError, PrivacyLeakWarning, UnsafeNoiseWarning
from mechanisms.accounting import NoiseCurve, PrivacyLoss
from mechanisms.bayesian_ngrams import (
    LOCAL_SENSITIVITY,
    WORST_CASE,
    BayesianDPResult,
    bayesian_dp,
    end_to_end_dp,
    kl_divergence,
    laplace_ngrams,
    laplace_ngrams_public,
    noisy_argmin_probabilities,
    perplexity,
)
from mechanisms.bayesian_ngrams._data import (
    PrivateCounts,
    clamp,
    private_counts,
    public_vocabulary,
)
from mechanisms.bayesian_ngrams.bayesian import gaussian_noise_scale
from mechanisms.bayesian_ngrams.discrete import discrete_calibration
from mechanisms.bayesian_ngrams.laplace import cap_contributions, threshold_normalise, word_counts
from mechanisms.bayesian_ngrams.sensitivity import (
    brute_force_sensitivity,
    claim1_bound,
    removal_sensitivities,
)
from mechanisms.bayesian_ngrams.tuning import local_score_lipschitz, noisy_argmin, score_lipschitz

# The mechanisms always warn PrivacyLeakWarning; tests that are not about the warning ignore it.
quiet = pytest.mark.filterwarnings("ignore::dpcount.errors.PrivacyLeakWarning")
#: The noise forms a test compares; the float form is expected to warn.
NOISES = [
    "exact",
    pytest.param(
        "float", marks=pytest.mark.filterwarnings("ignore::dpcount.errors.UnsafeNoiseWarning")
    ),
]

ALPHA = 1e-3  # false-failure rate of every statistical test below (per test, fresh seed)


# --------------------------------------------------------------------------------------------
# Independent oracles on dense matrices
# --------------------------------------------------------------------------------------------


def graph_from_dense(dense: np.ndarray, words: list[str]) -> PersonItemGraph:
    """Person k is "p{k}"; zero rows become persons without items."""
    persons, items, counts, empty = [], [], [], []
    for k, row in enumerate(dense):
        held = np.flatnonzero(row)
        if held.size == 0:
            empty.append(f"p{k:03d}")
        for j in held:
            persons.append(f"p{k:03d}")
            items.append(words[j])
            counts.append(int(row[j]))
    return PersonItemGraph.from_pairs(persons, items, counts=counts, persons_without_items=empty)


def r_vector(dense: np.ndarray, S: float, C: int) -> np.ndarray:
    """w⊙x̂ from scratch (Eq. 2 and 5)."""
    clamped = np.minimum(dense, C).astype(float)
    c = clamped.sum(axis=0)
    holders = (clamped > 0).sum(axis=0)
    a = np.log(c + 1.0)
    return np.minimum(1.0, S * holders / C) * (a - a.mean())


def naive_sensitivities(dense: np.ndarray, S: float, C: int) -> np.ndarray:
    full = r_vector(dense, S, C)
    return np.array(
        [
            np.linalg.norm(full - r_vector(np.delete(dense, n, axis=0), S, C))
            for n in range(len(dense))
        ]
    )


def log_softmax(x: np.ndarray) -> np.ndarray:
    m = x.max()
    return x - m - math.log(np.exp(x - m).sum())


def prior_mean(alpha: np.ndarray) -> np.ndarray:
    a = np.log(np.asarray(alpha, dtype=float) + 1.0)
    return a - a.mean()


@st.composite
def count_matrices(draw, max_persons: int = 6, max_words: int = 6):
    """A dense count matrix with at least one positive entry."""
    n = draw(st.integers(1, max_persons))
    v = draw(st.integers(1, max_words))
    flat = draw(st.lists(st.integers(0, 6), min_size=n * v, max_size=n * v))
    dense = np.array(flat, dtype=np.int64).reshape(n, v)
    if dense.sum() == 0:
        dense[draw(st.integers(0, n - 1)), draw(st.integers(0, v - 1))] = 1
    return dense


def pc_from_dense(dense: np.ndarray, C: int) -> PrivateCounts:
    p, w = np.nonzero(dense)
    return clamp(PrivateCounts(p, w, dense[p, w].astype(float), *dense.shape), C)


S_VALUES = st.sampled_from([0.01, 0.2, 0.4, 0.7, 1.0, 2.5, 10.0])


# --------------------------------------------------------------------------------------------
# Inputs: vocabulary, mismatch, clamping
# --------------------------------------------------------------------------------------------


def test_public_counts_as_mapping_or_pair_are_sorted():
    a = public_vocabulary({"b": 2, "a": 0, "c": 1.5})
    b = public_vocabulary((np.array(["c", "a", "b"]), [1.5, 0, 2]))
    assert a.labels.tolist() == b.labels.tolist() == ["a", "b", "c"]
    assert a.counts.tolist() == b.counts.tolist() == [0.0, 2.0, 1.5]


@pytest.mark.parametrize(
    ("public", "match"),
    [
        ({}, "empty"),
        ({"a": -1}, "non-negative"),
        ({"a": float("nan")}, "finite"),
        ({"a": float("inf")}, "finite"),
        ((["a", "a"], [1, 2]), "unique"),
        ((["a", "b"], [1]), "one count per n-gram"),
        ([("a", 1)], "mapping"),
        ({"a": 1, 2: 1}, "mix types"),
        ({"a": "many"}, "numbers"),
    ],
)
def test_bad_public_counts_raise_data_error(public, match):
    with pytest.raises(DataError, match=match):
        public_vocabulary(public)


def test_out_of_vocabulary_ngrams_are_dropped_and_unused_words_kept():
    g = PersonItemGraph.from_pairs(["u", "u", "v"], ["a", "oov", "b"], counts=[2, 7, 1])
    pc = private_counts(g, public_vocabulary({"a": 1, "b": 1, "z": 1}))
    assert pc.n_words == 3 and pc.n_persons == 2
    assert sorted(zip(pc.person.tolist(), pc.word.tolist(), pc.count.tolist(), strict=True)) == [
        (0, 0, 2.0),
        (1, 1, 1.0),
    ]


def test_vocabulary_mismatch_and_bad_graphs_raise():
    g = PersonItemGraph.from_pairs(["u"], ["a"], counts=[1])
    with pytest.raises(DataError, match="none of the graph's n-grams"):
        private_counts(g, public_vocabulary({"b": 1}))
    with pytest.raises(DataError, match="str labels but the graph's items are number"):
        private_counts(
            PersonItemGraph.from_pairs(["u"], [1], counts=[1]), public_vocabulary({"a": 1})
        )
    with pytest.raises(DataError, match="no per-pair counts"):
        private_counts(PersonItemGraph.from_pairs(["u"], ["a"]), public_vocabulary({"a": 1}))
    with pytest.raises(DataError, match="no persons"):
        private_counts(PersonItemGraph.from_pairs([], [], counts=[]), public_vocabulary({"a": 1}))
    with pytest.raises(InvalidParameterError, match="PersonItemGraph"):
        private_counts({"u": {"a": 1}}, public_vocabulary({"a": 1}))


def test_clamp_limits_every_count_to_C():
    pc = PrivateCounts(np.array([0, 0, 1]), np.array([0, 1, 1]), np.array([1.0, 9.0, 3.0]), 2, 2)
    assert clamp(pc, 2).count.tolist() == [1.0, 2.0, 2.0]
    assert pc.count.tolist() == [1.0, 9.0, 3.0]  # input untouched


@quiet
@pytest.mark.parametrize("mechanism", ["bayesian_dp", "end_to_end_dp"])
def test_counts_above_C_do_not_change_the_release(mechanism):
    """A heavy user's count 1000 acts exactly like C: same output for the same seed."""
    words = ["a", "b", "c", "d"]
    dense = np.array([[3, 2, 0, 1], [3, 1, 1, 0], [2, 2, 2, 2], [1, 0, 0, 1]] * 5)
    heavy = dense.copy()
    heavy[0, 0] = 1000
    public = dict(zip(words, [10, 5, 3, 1], strict=True))
    results = []
    for data in (dense, heavy):
        g = graph_from_dense(data, words)
        if mechanism == "bayesian_dp":
            r = bayesian_dp(
                g, public, 0.5, 1e-6, clip_slope=0.5, max_count=3, private_weight=0.6, rng=4
            )
        else:
            r = end_to_end_dp(
                g,
                public,
                0.2,
                0.5,
                1e-6,
                max_count=3,
                clip_slopes=[0.5, 2],
                private_weights=[0.3, 0.8],
                rng=4,
            )
        results.append(r)
    assert np.array_equal(results[0].probabilities, results[1].probabilities)
    assert results[0].sensitivity == results[1].sensitivity


# --------------------------------------------------------------------------------------------
# Sensitivity: brute force is exact, Claim 1 bounds it
# --------------------------------------------------------------------------------------------


@settings(max_examples=150, deadline=None)
@given(dense=count_matrices(), S=S_VALUES, C=st.integers(1, 3))
def test_brute_force_equals_recomputation_without_each_person(dense, S, C):
    fast = removal_sensitivities(pc_from_dense(dense, C), S, C)
    np.testing.assert_allclose(fast, naive_sensitivities(dense, S, C), rtol=1e-9, atol=1e-12)


@settings(max_examples=150, deadline=None)
@given(dense=count_matrices(), S=S_VALUES, C=st.integers(1, 3), extra=st.integers(0, 3))
def test_claim1_bound_is_at_least_brute_force(dense, S, C, extra):
    """Claim 1 (as corrected) ≥ brute force, also with public-only words (N = 0)."""
    dense = np.hstack([dense, np.zeros((dense.shape[0], extra), dtype=np.int64)])
    pc = pc_from_dense(dense, C)
    assert claim1_bound(pc, S, C) >= brute_force_sensitivity(pc, S, C) * (1 - 1e-12)


def test_published_claim1_indicator_undercuts_the_sensitivity():
    """Paper bug: 𝟙(N ≤ C/S) misses C/S < N < C/S + 1, where the weight still drops.

    Three persons share one word (N = 3) and C/S = 2.5: removing one moves w from 1 to 0.8.
    """
    pc = PrivateCounts(np.array([0, 1, 2]), np.zeros(3, dtype=np.int64), np.ones(3), 3, 50)
    exact = brute_force_sensitivity(pc, 0.4, 1)
    assert claim1_bound(pc, 0.4, 1, as_published=True) < 0.7 * exact
    assert claim1_bound(pc, 0.4, 1) >= exact


def test_persons_without_vocabulary_words_have_zero_sensitivity():
    g = PersonItemGraph.from_pairs(["u", "v", "w"], ["a", "b", "oov"], counts=[1, 2, 5])
    pc = clamp(private_counts(g, public_vocabulary({"a": 1, "b": 1})), 2)
    values = removal_sensitivities(pc, 1.0, 2)
    assert values.shape == (3,) and values[2] == 0 and values[:2].min() > 0


# --------------------------------------------------------------------------------------------
# Outputs are distributions over exactly the public vocabulary
# --------------------------------------------------------------------------------------------


def _small_case(seed: int = 0):
    rng = np.random.default_rng(seed)
    words = [f"w{j:02d}" for j in range(12)]
    dense = rng.poisson(rng.uniform(0.1, 3, size=12), size=(40, 12))
    # The private data has an n-gram the public data lacks; the public data has two unused ones.
    graph = graph_from_dense(np.hstack([dense, np.ones((40, 1), dtype=int)]), [*words, "zzz"])
    public = {w: float(rng.integers(0, 50)) for w in words} | {"unused1": 3, "unused2": 0}
    return graph, public


# clip_slope, max_count, private_weight: the paper's S, C and ρ.
HYPER = dict(clip_slope=0.5, max_count=2, private_weight=0.5)


def _all_mechanisms(graph, public, rng):
    return [
        bayesian_dp(graph, public, 0.5, 1e-6, **HYPER, rng=rng),
        bayesian_dp(graph, public, 0.5, 1e-6, **HYPER, sensitivity="bound", rng=rng),
        bayesian_dp(graph, public, 3.0, 1e-6, **HYPER, calibration="analytic", rng=rng),
        end_to_end_dp(graph, public, 0.2, 0.5, 1e-6, max_count=2, rng=rng),
        end_to_end_dp(graph, public, 0.2, 0.5, 1e-6, max_count=2, sensitivity="bound", rng=rng),
        laplace_ngrams(graph, public, 1.0, max_contribution=5, rng=rng),
        laplace_ngrams_public(graph, public, 1.0, max_contribution=5, rng=rng),
    ]


@quiet
@pytest.mark.parametrize("seed", [0, 1, 2])
def test_outputs_are_distributions_over_the_public_vocabulary(seed):
    graph, public = _small_case(seed)
    vocabulary = sorted(public)
    for r in _all_mechanisms(graph, public, seed):
        assert r.labels.tolist() == vocabulary
        assert r.probabilities.shape == (len(vocabulary),)
        assert np.all(r.probabilities >= 0)
        assert math.isclose(r.probabilities.sum(), 1.0, rel_tol=1e-12)
        assert list(r.distribution()) == vocabulary
        assert not r.probabilities.flags.writeable


@quiet
def test_reproducible_with_a_seed_and_different_across_seeds():
    graph, public = _small_case()
    first = _all_mechanisms(graph, public, 11)
    again = _all_mechanisms(graph, public, 11)
    other = _all_mechanisms(graph, public, 12)
    for a, b, c in zip(first, again, other, strict=True):
        assert np.array_equal(a.probabilities, b.probabilities)
        assert not np.array_equal(a.probabilities, c.probabilities)
    hyper = dict(clip_slope=1.0, max_count=1, private_weight=0.5)
    gen_a, gen_b = (
        bayesian_dp(graph, public, 0.5, 1e-6, **hyper, rng=np.random.default_rng(3)) for _ in "ab"
    )
    assert np.array_equal(gen_a.probabilities, gen_b.probabilities)


# --------------------------------------------------------------------------------------------
# The Gaussian release: mean and noise scale
# --------------------------------------------------------------------------------------------


def test_classical_noise_scale_formula_and_analytic_is_smaller():
    assert gaussian_noise_scale(0.5, 2.0, 0.5, 1e-5) == pytest.approx(
        0.5 * 2.0 * math.sqrt(2 * math.log(1.25e5)) / 0.5
    )
    assert gaussian_noise_scale(0.5, 2.0, 0.5, 1e-5, "analytic") < gaussian_noise_scale(
        0.5, 2.0, 0.5, 1e-5
    )
    assert gaussian_noise_scale(0.7, 0.0, 0.5, 1e-5) == 0.0


@quiet
@pytest.mark.parametrize("noise", NOISES)
def test_release_is_gaussian_around_the_posterior_mean_with_sigma_ps(noise):
    """log θ − μ_ps is h − μ_ps plus a constant: its centred sample variance must be σ_ps².

    (V−1)s²/σ² ~ χ²(V−1); two-sided test at level ALPHA.  Power: the same sample must reject
    σ·1.3 and σ/1.3.  Exact noise: h = (round(U·μ_ps) + Z)/U with Z discrete Gaussian of
    σ_U = U·σ_ps; the rounding adds a variance below 1/(12U²), about 10⁻⁸ of σ_ps² here.
    """
    rng = np.random.default_rng(5)
    V = 2000
    words = [f"w{j:04d}" for j in range(V)]
    zipf = 1.0 / np.arange(1, V + 1)
    dense = rng.poisson(1000 * zipf / zipf.sum(), size=(150, V))
    graph = graph_from_dense(dense, words)
    public = dict(zip(words, rng.poisson(5000 * zipf).tolist(), strict=True))
    S, C, rho = 0.5, 2, 0.7
    r = bayesian_dp(
        graph,
        public,
        0.2,
        1e-6,
        clip_slope=S,
        max_count=C,
        private_weight=rho,
        noise=noise,
        rng=6,
    )
    gamma = naive_sensitivities(dense, S, C).max()
    assert r.sensitivity == pytest.approx(gamma, rel=1e-9)
    if noise == "float":
        assert r.scale == pytest.approx(rho * gamma * math.sqrt(2 * math.log(1.25e6)) / 0.2)
    else:  # fixed point + discrete Gaussian, zCDP calibration (rounding residue ≪ σ)
        assert r.secure and r.calibration == "discrete"
        assert r.scale == discrete_calibration(rho * gamma, 0.2, 1e-6, V).sigma
    mean = rho * r_vector(dense, S, C) + (1 - rho) * prior_mean([public[w] for w in words])
    residual = np.log(r.probabilities) - mean
    ss = np.sum((residual - residual.mean()) ** 2)

    def p_value(sigma: float) -> float:
        cdf = stats.chi2.cdf(ss / sigma**2, V - 1)
        return 2 * min(cdf, 1 - cdf)

    assert p_value(r.scale) > ALPHA
    assert p_value(1.3 * r.scale) < ALPHA and p_value(r.scale / 1.3) < ALPHA


@quiet
@pytest.mark.filterwarnings("ignore::dpcount.errors.LargeDeltaWarning")  # δ = 0.5 on purpose
def test_rho_one_and_tiny_noise_recovers_the_clipped_private_distribution():
    graph, public = _small_case()
    words = sorted(public)
    r = bayesian_dp(
        graph,
        public,
        1e4,
        0.5,
        clip_slope=1e6,
        max_count=1,
        private_weight=1.0,
        calibration="analytic",
        rng=0,
    )
    dense = np.zeros((graph.n_persons, len(words)), dtype=np.int64)
    persons, items = graph.pairs()
    for p, i, c in zip(persons, items, graph.counts, strict=True):
        label = graph.item_labels[i]
        if label in public:
            dense[p, words.index(label)] = c
    expected = np.exp(log_softmax(r_vector(dense, 1e6, 1)))
    np.testing.assert_allclose(r.probabilities, expected, rtol=0.05)


# --------------------------------------------------------------------------------------------
# Tuning: noisy-min probabilities, score sensitivity (Theorem 2, Claim 2)
# --------------------------------------------------------------------------------------------


@pytest.mark.parametrize("gap", [0.0, 0.3, 1.0, 4.0])
def test_two_candidate_probabilities_match_the_closed_form(gap):
    """P[η₁ − η₂ < d] for i.i.d. Laplace(b): 1 − ½e^{−d/b}(1 + d/(2b)), d ≥ 0."""
    b = 1.7
    p = noisy_argmin_probabilities(np.array([0.0, gap]), b)
    exact = 1 - 0.5 * math.exp(-gap / b) * (1 + gap / (2 * b))
    assert p[0] == pytest.approx(exact, abs=1e-9)
    assert p.sum() == pytest.approx(1.0, abs=1e-9)


def test_noisy_min_selection_frequencies_match_the_stated_probabilities():
    """χ² goodness of fit at level ALPHA on 20 000 selections; power: scale wrong by 30%."""
    scores = np.array([0.0, 0.5, 1.0, 2.0, 2.0])
    b = 1.0
    draws = noisy_argmin(scores, b, rng=2024, size=20_000)
    observed = np.bincount(draws, minlength=scores.size)
    for scale, should_pass in [(b, True), (1.3 * b, False), (b / 1.3, False)]:
        expected = noisy_argmin_probabilities(scores, scale) * draws.size
        p_value = stats.chisquare(observed, expected).pvalue
        assert (p_value > ALPHA) == should_pass, (scale, p_value)
    assert noisy_argmin(scores, 0.0, rng=0) == 0  # no noise: the first smallest score


@quiet
@quiet
@pytest.mark.parametrize("noise", NOISES)
def test_end_to_end_selection_follows_the_noisy_min_probabilities(noise):
    """Identical persons make every split give the same scores, so end_to_end_dp's choice over
    many seeds must follow the selection's probabilities: noisy_argmin_probabilities(scores, b)
    for float noise, the exponential mechanism ∝ exp(−q/b) for the exact default.  χ² at level
    ALPHA; power: the same frequencies must reject the probabilities for b·1.3 and b/1.3."""
    words = ["a", "b", "c", "d", "e"]
    person = np.array([3, 1, 1, 0, 2])
    dense = np.tile(person, (30, 1))
    graph = graph_from_dense(dense, words)
    public = dict(zip(words, [5, 40, 2, 9, 1], strict=True))
    grid_s, grid_rho, C = [0.05, 1.0], [0.3, 0.9], 2
    kwargs = dict(max_count=C, clip_slopes=grid_s, private_weights=grid_rho, tuning_fraction=0.5)
    eps1, eps2, delta = 1.0, 0.5, 1e-6
    runs = [
        end_to_end_dp(graph, public, eps1, eps2, delta, noise=noise, rng=seed, **kwargs)
        for seed in range(3000)
    ]
    scores, rel_terms, tune_terms = expected_tuning(dense, 15, public, grid_s, grid_rho, C)
    b = 2 * np.maximum(rel_terms, tune_terms).max() / eps1
    assert runs[0].tuning.scale == pytest.approx(b, rel=1e-9)
    observed = np.bincount([r.tuning.selected for r in runs], minlength=4)

    def probabilities(scale: float) -> np.ndarray:
        if noise == "float":
            return noisy_argmin_probabilities(scores, scale)
        weights = np.exp(-(scores - scores.min()) / scale)
        return weights / weights.sum()

    for scale, should_pass in [(b, True), (1.3 * b, False), (b / 1.3, False)]:
        expected = probabilities(scale) * len(runs)
        assert (stats.chisquare(observed, expected).pvalue > ALPHA) == should_pass


def lipschitz_on_ball(c: np.ndarray, theta: np.ndarray, radius: float) -> float:
    """Corrected Claim 2 constant: gradient norm at μ plus ‖c‖₁·radius/2, capped globally."""
    total = c.sum()
    everywhere = math.sqrt(total**2 - 2 * total * c.min() + c @ c)
    return min(np.linalg.norm(total * theta - c) + total * radius / 2, everywhere)


def expected_tuning(dense, n_tune, public, grid_s, grid_rho, C, method="brute_force"):
    """Scores (Eq. 6) and score sensitivities (Claim 2, corrected) from scratch, for data whose
    persons are all identical, so that every random split gives the same two sets."""
    tune, rel = dense[:n_tune], dense[n_tune:]
    person = np.minimum(dense[0], C)
    c1 = np.minimum(tune, C).sum(axis=0).astype(float)
    prior = prior_mean(list(public.values()))
    scores, rel_terms, tune_terms = [], [], []
    for s in grid_s:
        if method == "brute_force":
            gamma = naive_sensitivities(rel, s, C).max()
        else:
            gamma = claim1_bound(pc_from_dense(rel, C), s, C)
        for rho in grid_rho:
            log_theta = log_softmax(rho * r_vector(rel, s, C) + (1 - rho) * prior)
            scores.append(-(c1 @ log_theta))
            rel_terms.append(rho * gamma * lipschitz_on_ball(c1, np.exp(log_theta), rho * gamma))
            if method == "brute_force":
                tune_terms.append(person @ -log_theta)
            else:
                tune_terms.append(C * np.abs(log_theta).sum())
    return np.array(scores), np.array(rel_terms), np.array(tune_terms)


@quiet
@pytest.mark.parametrize(
    ("method", "n_tune", "deciding"),
    [
        ("brute_force", 117, "release"),
        ("brute_force", 60, "tuning"),
        ("bound", 108, "release"),
        ("bound", 12, "tuning"),
    ],
)
def test_end_to_end_noise_scale_follows_theorem2_and_claim2(method, n_tune, deciding):
    """b = 2·max over the grid of max(U₂ term, U₁ term) / ε₁, recomputed from scratch; the
    cases are chosen so that each term decides the maximum at least once."""
    words = ["a", "b", "c", "d"]
    dense = np.tile([2, 1, 1, 0], (120, 1))
    public = dict(zip(words, [30, 10, 10, 50], strict=True))
    grid_s, grid_rho, C = [0.01, 1.0], [0.3, 0.9], 2
    r = end_to_end_dp(
        graph_from_dense(dense, words),
        public,
        0.5,
        0.5,
        1e-6,
        max_count=C,
        clip_slopes=grid_s,
        private_weights=grid_rho,
        sensitivity=method,
        tuning_fraction=n_tune / 120,
        rng=0,
    )
    _, rel_terms, tune_terms = expected_tuning(dense, n_tune, public, grid_s, grid_rho, C, method)
    sens = np.maximum(rel_terms, tune_terms).max()
    assert (rel_terms.max() > tune_terms.max()) == (deciding == "release")
    assert r.tuning.score_sensitivity == pytest.approx(sens, rel=1e-9)
    assert r.tuning.scale == pytest.approx(2 * sens / 0.5, rel=1e-9)


def test_score_lipschitz_is_the_largest_gradient_norm():
    rng = np.random.default_rng(0)
    for _ in range(200):
        c = rng.integers(0, 5, size=6).astype(float)
        thetas = np.vstack([np.eye(6), rng.dirichlet(np.ones(6), size=200)])
        grads = np.linalg.norm(c.sum() * thetas - c, axis=1)
        assert grads.max() == pytest.approx(score_lipschitz(c), rel=1e-12, abs=1e-12)


def test_local_score_lipschitz_bounds_changes_within_the_ball():
    """|q(μ + d) − q(μ)| ≤ L·‖d‖ for random μ, c and ‖d‖ ≤ radius, with equality nearly
    reached somewhere (the ½ of the softmax bound is tight for two equal logits)."""
    rng = np.random.default_rng(1)
    ratios = []
    for _ in range(2000):
        k = int(rng.integers(2, 7))
        c = rng.integers(0, 6, size=k).astype(float)
        mu = rng.normal(0, rng.uniform(0.1, 3), size=k)
        radius = float(rng.uniform(0.01, 3))
        d = rng.normal(size=k)
        d *= radius * rng.uniform(0.1, 1) / np.linalg.norm(d)
        lip = local_score_lipschitz(c, np.exp(log_softmax(mu)), radius)
        change = abs(c @ (log_softmax(mu + d) - log_softmax(mu)))
        assert change <= lip * np.linalg.norm(d) * (1 + 1e-9) + 1e-12
        ratios.append(change / (lip * np.linalg.norm(d) + 1e-300))
    assert max(ratios) > 0.5


@settings(max_examples=100, deadline=None)
@given(
    dense=count_matrices(max_persons=7),
    S=S_VALUES,
    C=st.integers(1, 3),
    rho=st.sampled_from([0.1, 0.5, 1.0]),
    n_tune=st.integers(1, 3),
    alpha=st.lists(st.integers(0, 30), min_size=6, max_size=6),
)
def test_claim2_score_sensitivity_bounds_every_removal(dense, S, C, rho, n_tune, alpha):
    """The corrected Claim 2 bound covers removing any person from either set."""
    if dense.shape[0] <= n_tune:
        return
    tune, rel = dense[:n_tune], dense[n_tune:]
    c1 = np.minimum(tune, C).sum(axis=0).astype(float)
    prior = prior_mean(alpha[: dense.shape[1]])

    def score(counts: np.ndarray, release_set: np.ndarray) -> float:
        return -(counts @ log_softmax(rho * r_vector(release_set, S, C) + (1 - rho) * prior))

    q = score(c1, rel)
    gamma = naive_sensitivities(rel, S, C).max()
    log_theta = log_softmax(rho * r_vector(rel, S, C) + (1 - rho) * prior)
    bound_rel = rho * gamma * local_score_lipschitz(c1, np.exp(log_theta), rho * gamma)
    assert bound_rel <= rho * gamma * score_lipschitz(c1) * (1 + 1e-12)
    for n in range(rel.shape[0]):
        assert abs(q - score(c1, np.delete(rel, n, axis=0))) <= bound_rel * (1 + 1e-9) + 1e-12
    for n in range(n_tune):
        c_without = c1 - np.minimum(tune[n], C)
        change = abs(q - score(c_without, rel))
        assert change == pytest.approx(np.minimum(tune[n], C) @ -log_theta, abs=1e-9)
        assert change <= C * np.abs(log_theta).sum() + 1e-9


def test_published_claim2_constant_undercuts_the_score_change():
    """Paper bug: Claim 2's ρ‖c₁‖₂ drops the ‖c₁‖₁θ term of ∂q/∂μ.

    The tuning counts spread over 30 words; the release set's only word, which also carries
    the prior's mass, is one the tuning set never uses.  Removing one of its holders moves
    μ₀ and with it the normaliser log Σ exp μ, which every one of the 30 counts pays:
    |Δq| ≈ ‖c₁‖₁·ρ|Δr₀| = 30·ρ|Δr₀| against the printed ρ‖c₁‖₂·γ ≈ √30·ρ|Δr₀|.
    """
    V = 31
    tune = np.ones((1, V), dtype=np.int64)
    tune[0, 0] = 0
    rel = np.zeros((3, V), dtype=np.int64)
    rel[:, 0] = 1
    S, C, rho = 10.0, 1, 0.5
    c1 = tune.sum(axis=0).astype(float)
    prior = prior_mean([10**6] + [0] * (V - 1))  # the prior puts almost all mass on word 0

    def score(release_set: np.ndarray) -> float:
        return -(c1 @ log_softmax(rho * r_vector(release_set, S, C) + (1 - rho) * prior))

    gamma = naive_sensitivities(rel, S, C).max()
    change = max(abs(score(rel) - score(np.delete(rel, n, axis=0))) for n in range(3))
    assert rho * np.linalg.norm(c1) * gamma < change <= rho * score_lipschitz(c1) * gamma


@quiet
def test_end_to_end_records_grid_choice_and_total_privacy_loss():
    graph, public = _small_case()
    r = end_to_end_dp(
        graph,
        public,
        0.1,
        0.6,
        1e-7,
        max_count=2,
        clip_slopes=[0.1, 1, 10],
        private_weights=[0.2, 0.8],
        tuning_fraction=0.25,
        rng=9,
    )
    assert isinstance(r, BayesianDPResult)
    assert r.tuning.grid == (
        (0.1, 0.2),
        (0.1, 0.8),
        (1.0, 0.2),
        (1.0, 0.8),
        (10.0, 0.2),
        (10.0, 0.8),
    )
    assert (r.clip_slope, r.private_weight) == r.tuning.grid[r.tuning.selected]
    assert r.tuning.scale == pytest.approx(2 * r.tuning.score_sensitivity / 0.1)
    assert r.privacy_loss.epsilon == pytest.approx(0.7) and r.privacy_loss.delta == 1e-7
    assert [p.epsilon for p in r.privacy_loss.parts] == [0.1, 0.6]
    assert r.epsilon == 0.6 and r.tuning.tuning_fraction == 0.25
    assert r.guarantee == LOCAL_SENSITIVITY and not r.worst_case_dp
    assert "NOMINAL" in r.privacy_loss.description
    assert "clip_slope=" in repr(r.tuning) and "tuned" in repr(r)


@quiet
def test_end_to_end_with_huge_tuning_epsilon_picks_the_best_score():
    """With ε₁ → ∞ the noisy-min is the exact argmin of Eq. 6, computed here from scratch."""
    words = ["a", "b", "c"]
    dense = np.tile([2, 1, 1], (20, 1))  # identical persons: every split gives the same c₁
    graph = graph_from_dense(dense, words)
    public = {"a": 1, "b": 50, "c": 5}  # a misleading prior
    grid_rho = [0.05, 0.5, 1.0]
    r = end_to_end_dp(
        graph,
        public,
        1e12,
        0.5,
        1e-6,
        max_count=2,
        clip_slopes=[1.0],
        private_weights=grid_rho,
        tuning_fraction=0.5,
        rng=1,
    )
    scores, _, _ = expected_tuning(dense, 10, public, [1.0], grid_rho, 2)
    assert r.tuning.selected == int(np.argmin(scores))
    assert len(set(np.round(scores, 6))) == 3


# --------------------------------------------------------------------------------------------
# Laplace baselines
# --------------------------------------------------------------------------------------------


@settings(max_examples=100, deadline=None)
@given(dense=count_matrices(), W=st.integers(1, 8))
def test_capped_contributions_and_public_baseline_sensitivity(dense, W):
    """Capped counts are integers, no larger than the raw ones, each person's total is
    min(Σ min(c, W), W); removing a person moves the word counts by ≤ W in ℓ1 and c/T by
    ≤ 2W/T (the printed public baseline's local sensitivity)."""
    pc = cap_contributions(pc_from_dense(dense, 10**9), W)
    capped = np.zeros(dense.shape)
    capped[pc.person, pc.word] = pc.count
    assert np.array_equal(capped, np.round(capped)) and np.all(capped <= dense)
    assert np.array_equal(capped.sum(axis=1), np.minimum(np.minimum(dense, W).sum(axis=1), W))
    assert word_counts(pc).tolist() == capped.sum(axis=0).astype(int).tolist()
    total = capped.sum()
    for n in range(dense.shape[0]):
        rest = np.delete(capped, n, axis=0)
        assert np.abs(capped.sum(0) - rest.sum(0)).sum() <= W
        if rest.sum() > 0:
            moved = np.abs(capped.sum(0) / total - rest.sum(0) / rest.sum()).sum()
            assert moved <= 2 * W / total * (1 + 1e-9)


def test_largest_remainders_get_the_units_left():
    pc = PrivateCounts(
        np.array([0, 0, 0, 0]), np.array([0, 1, 2, 3]), np.array([3.0, 3.0, 3.0, 1.0]), 1, 4
    )
    # W = 5 of T = 10: 1.5, 1.5, 1.5, 0.5 → 1, 1, 1, 0 and two units to the remainders ½,
    # the lower word ids first.
    assert cap_contributions(pc, 5).count.tolist() == [2.0, 2.0, 1.0, 0.0]
    with pytest.raises(InvalidParameterError, match="max_contribution"):
        cap_contributions(pc, 2**31 + 1)


def test_laplace_baseline_is_worst_case_dp_and_warns_only_of_float_noise():
    graph, public = _small_case()
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # exact noise: nothing to warn about
        r = laplace_ngrams(graph, public, 0.5, max_contribution=4, rng=0)
        p = laplace_ngrams_public(graph, public, 0.5, max_contribution=4, rng=0)
    assert r.secure and r.is_private and p.secure and p.worst_case_dp
    assert r.scale == 8.0 and r.sensitivity == 4.0 and r.worst_case_dp
    assert r.guarantee == WORST_CASE and r.privacy_loss == PrivacyLoss(
        0.5, 0.0, r.privacy_loss.description, curve=NoiseCurve("discrete_laplace", 8.0, 4.0)
    )
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        f = laplace_ngrams(graph, public, 0.5, max_contribution=4, noise="float", rng=0)
    assert [w.category for w in caught] == [UnsafeNoiseWarning]  # no PrivacyLeakWarning
    assert not f.secure and f.privacy_loss.curve == NoiseCurve("laplace", 8.0, 4.0)


@quiet
@pytest.mark.filterwarnings("ignore::dpcount.errors.UnsafeNoiseWarning")  # both forms compared
def test_laplace_baselines_without_noise_return_the_capped_distribution():
    """ε huge: both baselines give c/T; the public term of §4.2 cancels before thresholding."""
    graph, public = _small_case()
    vocab = public_vocabulary(public)
    c = word_counts(cap_contributions(private_counts(graph, vocab), 3))
    for noise in ("exact", "float"):
        plain = laplace_ngrams(graph, public, 1e12, max_contribution=3, noise=noise, rng=0)
        with_public = laplace_ngrams_public(
            graph, public, 1e12, max_contribution=3, noise=noise, rng=0
        )
        np.testing.assert_allclose(plain.probabilities, c / c.sum(), atol=1e-9)
        np.testing.assert_allclose(with_public.probabilities, c / c.sum(), atol=1e-9)
        assert with_public.sensitivity == 6.0  # 2W: the plain baseline at twice the scale


def test_thresholding_falls_back_to_uniform_when_nothing_survives():
    assert threshold_normalise(np.array([-3.0, 0.0, -1.0])).tolist() == [1 / 3] * 3
    assert threshold_normalise(np.array([-3.0, 2.0, 6.0])).tolist() == [0.0, 0.25, 0.75]


def test_public_baseline_needs_positive_public_total():
    graph = PersonItemGraph.from_pairs(["u"], ["a"], counts=[1])
    with pytest.raises(DataError, match="positive total"):
        laplace_ngrams_public(graph, {"a": 0}, 1.0, max_contribution=1)


# --------------------------------------------------------------------------------------------
# Warnings and validation
# --------------------------------------------------------------------------------------------


def test_data_dependent_sensitivity_warns_privacy_leak():
    graph, public = _small_case()
    with pytest.warns(PrivacyLeakWarning, match="not a worst-case"):
        r = bayesian_dp(
            graph,
            public,
            0.5,
            1e-6,
            clip_slope=1.0,
            max_count=1,
            private_weight=0.5,
            sensitivity="bound",
            rng=0,
        )
    assert r.guarantee == LOCAL_SENSITIVITY and "NOMINAL" in r.privacy_loss.description
    with pytest.warns(PrivacyLeakWarning):
        end_to_end_dp(graph, public, 0.1, 0.5, 1e-6, max_count=1, rng=0)


@pytest.mark.parametrize(
    ("kwargs", "match"),
    [
        (dict(epsilon=0), "epsilon"),
        (dict(epsilon=float("nan")), "epsilon"),
        (dict(delta=0), "delta"),
        (dict(delta=1.0), "delta"),
        (dict(clip_slope=0), "clip_slope must be finite and > 0"),
        (dict(clip_slope=float("inf")), "clip_slope must be finite"),
        (dict(clip_slope=True), "clip_slope must be a real"),
        (dict(max_count=0), "max_count must be a positive integer"),
        (dict(max_count=1.5), "max_count must be a positive integer"),
        (dict(private_weight=0), r"private_weight must lie in \(0, 1\]"),
        (dict(private_weight=1.2), "private_weight must lie"),
        (dict(sensitivity="exact"), "unknown sensitivity"),
        (dict(calibration="fast"), "unknown calibration"),
        (dict(epsilon=1.0, noise="float"), "proven only for ε < 1"),
        (dict(noise="gaussian"), "unknown noise"),
        (dict(delta=1.0), "delta must lie"),
    ],
)
def test_bayesian_dp_rejects_bad_parameters(kwargs, match):
    graph, public = _small_case()
    args = dict(epsilon=0.5, delta=1e-6, clip_slope=1.0, max_count=1, private_weight=0.5) | kwargs
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # validation happens before any warning
        with pytest.raises(InvalidParameterError, match=match):
            bayesian_dp(graph, public, **args)


@pytest.mark.parametrize(
    ("kwargs", "match"),
    [
        (dict(epsilon_tune=-1), "epsilon_tune"),
        (dict(epsilon_release=0), "epsilon_release"),
        (dict(clip_slopes=[]), "clip_slopes must be a non-empty"),
        (dict(clip_slopes=1.0), "clip_slopes must be a non-empty"),
        (dict(clip_slopes=[1.0, -2]), "clip_slopes must be finite"),
        (dict(private_weights=[0.5, 0.0]), "private_weights must lie"),
        (dict(tuning_fraction=1.0), "tuning_fraction"),
        (dict(tuning_fraction=0), "tuning_fraction"),
        (dict(max_count=-1), "max_count must be"),
        (dict(noise="normal"), "unknown noise"),
    ],
)
def test_end_to_end_rejects_bad_parameters(kwargs, match):
    graph, public = _small_case()
    args = dict(epsilon_tune=0.1, epsilon_release=0.5, delta=1e-6, max_count=1) | kwargs
    with pytest.raises(InvalidParameterError, match=match):
        end_to_end_dp(graph, public, **args)


def test_end_to_end_needs_two_persons_and_data_errors_propagate():
    one = PersonItemGraph.from_pairs(["u"], ["a"], counts=[1])
    with pytest.raises(InvalidParameterError, match="at least 2"):
        end_to_end_dp(one, {"a": 1}, 0.1, 0.5, 1e-6, max_count=1)
    no_counts = PersonItemGraph.from_pairs(["u", "v"], ["a", "b"])
    for call in (
        lambda: bayesian_dp(
            no_counts, {"a": 1}, 0.5, 1e-6, clip_slope=1.0, max_count=1, private_weight=0.5
        ),
        lambda: end_to_end_dp(no_counts, {"a": 1}, 0.1, 0.5, 1e-6, max_count=1),
        lambda: laplace_ngrams(no_counts, {"a": 1}, 1.0, max_contribution=1),
    ):
        with pytest.raises(DataError, match="no per-pair counts"):
            call()
    with pytest.raises(DataError, match="empty"):
        bayesian_dp(one, {}, 0.5, 1e-6, clip_slope=1.0, max_count=1, private_weight=0.5)


def test_laplace_rejects_bad_parameters():
    graph, public = _small_case()
    with pytest.raises(InvalidParameterError, match="max_contribution"):
        laplace_ngrams(graph, public, 1.0, max_contribution=0)
    with pytest.raises(InvalidParameterError, match="epsilon"):
        laplace_ngrams_public(graph, public, 0.0, max_contribution=3)


# --------------------------------------------------------------------------------------------
# Evaluation helpers
# --------------------------------------------------------------------------------------------


def test_kl_divergence_values_and_errors():
    assert kl_divergence([1, 2, 3], [2, 4, 6]) == 0.0  # inputs are normalised
    assert kl_divergence([0.5, 0.5], [0.25, 0.75]) == pytest.approx(
        0.5 * math.log(2) + 0.5 * math.log(2 / 3)
    )
    assert kl_divergence([0.0, 1.0], [1.0, 0.0]) == math.inf
    assert kl_divergence([0.0, 1.0], [0.5, 0.5]) == pytest.approx(math.log(2))
    for p, q in [([1, 2], [1, 2, 3]), ([-1, 2], [1, 2]), ([0, 0], [1, 1]), ([[1]], [[1]])]:
        with pytest.raises(InvalidParameterError):
            kl_divergence(p, q)


def test_perplexity_values_and_errors():
    assert perplexity(np.full(8, 1 / 8), np.arange(8)) == pytest.approx(8.0)
    assert perplexity([1.0, 0.0], [1, 1]) == math.inf
    assert perplexity([1.0, 0.0], [3, 0]) == pytest.approx(1.0)
    with pytest.raises(InvalidParameterError):
        perplexity([0.5, 0.5], [1, 1, 1])
    with pytest.raises(InvalidParameterError):
        perplexity([0.5, 0.5], [0, 0])


@quiet
def test_results_have_readable_repr_and_html():
    graph, public = _small_case()
    r = bayesian_dp(
        graph, public, 0.5, 1e-6, clip_slope=1.0, max_count=1, private_weight=0.5, rng=0
    )
    text = repr(r)
    assert text.startswith("BayesianDPResult(vocabulary=14, sigma=")
    assert "local sensitivity" in text and "<table>" in r._repr_html_()
    assert len(r) == 14


def test_accountant_refuses_nominal_losses_but_accepts_the_plain_laplace_baseline():
    # A local-sensitivity release keeps its nominal (ε, δ) for reporting, but a DP budget must
    # not treat it as worst-case DP; the plain Laplace baseline is worst-case ε-DP.
    from dpcount.errors import BudgetExceededError
    from mechanisms.accounting import PrivacyAccountant

    graph, public = _small_case()
    with pytest.warns(PrivacyLeakWarning):
        nominal = bayesian_dp(
            graph, public, 0.5, 1e-6, clip_slope=0.5, max_count=2, private_weight=0.5, rng=0
        )
    assert not nominal.privacy_loss.worst_case and not nominal.privacy_loss.is_private
    accountant = PrivacyAccountant(epsilon_total=10.0, delta_total=1e-3)
    with pytest.raises(BudgetExceededError, match="nominal"):
        accountant.spend(nominal)
    accountant.spend(laplace_ngrams(graph, public, 0.5, max_contribution=5, rng=0))
    assert accountant.remaining_epsilon == pytest.approx(9.5)
