"""Statistical tests of the set-union mechanisms, each with a power check.

One graph holds two kinds of persons whose items no one else touches:

* A: K persons with t private items each.  Each such person is, for the others, an "added
  person": the probability that any of their items is released is exactly computable and must
  not exceed δ (Laplace family) or δ/2 (Gaussian family; the other δ/2 is the Gaussian
  mechanism's) — the novel-item bound of Gopi Thm 4.1/5.1.
* B: G groups of k persons holding one shared item: its weight is exactly k for every
  weighting, so it is released with probability P(noise > ρ − k), which pins down σ (or b).

Reference σ, b and ρ are computed here, independently of the mechanism's own call, so the
power checks can make the mechanism use a wrong threshold or a wrong noise scale (−30%) and see
the same check fail.  Each check is a two-sided binomial z-test at |z| < 5: false-failure rate
≈ 5.7e-7 per check, about 2e-5 for this file.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from functools import partial

import numpy as np
import pytest
from scipy.stats import laplace, norm

import mechanisms.set_union as su
from dpcount import PersonItemGraph
from mechanisms import noise
from mechanisms.set_union import thresholds
from mechanisms.set_union.sips import round_shares

# The papers' continuous forms on purpose (noise="float", and the float-only mechanisms), and a
# δ far above 1/n so that the novel-item probabilities are large enough to measure.
pytestmark = [
    pytest.mark.filterwarnings("ignore::dpcount.errors.UnsafeNoiseWarning"),
    pytest.mark.filterwarnings("ignore::dpcount.errors.LargeDeltaWarning"),
]

EPS, DELTA, T = 1.0, 0.3, 3  # a large δ makes the novel-item probability measurable
K, G = 20_000, 4_000
Z = 5.0


@dataclass(frozen=True)
class Reference:
    """Exact per-person (A) and per-group (B) release probabilities."""

    p_novel: float
    bound: float
    p_group: float
    k: int


def _graph(k: int) -> PersonItemGraph:
    persons = [f"a{p:05d}" for p in range(K) for _ in range(T)]
    items = [f"a{p:05d}-{j}" for p in range(K) for j in range(T)]
    persons += [f"b{g:04d}-{j}" for g in range(G) for j in range(k)]
    items += [f"b{g:04d}" for g in range(G) for _ in range(k)]
    return PersonItemGraph.from_pairs(persons, items)


def _any_above(tail: float, t: int) -> float:
    """P(at least one of t independent items released), each with probability ``tail``."""
    return -math.expm1(t * math.log1p(-tail))


def _reference(name: str) -> Reference:
    """Exact probabilities from the theorems' parameters, computed without the mechanism."""
    if name in ("count_laplace", "weighted_laplace", "policy_laplace"):
        b = T / EPS if name == "count_laplace" else 1 / EPS
        form = "unit" if name == "count_laplace" else "split"
        rho = thresholds.laplace_threshold(b, DELTA, T, novel_weight=form)
        w = 1.0 if name == "count_laplace" else 1 / T
        p_novel = _any_above(float(laplace.sf(rho - w, scale=b)), T)
        return _with_group(p_novel, DELTA, lambda k, c: float(laplace.sf(rho - k, scale=c * b)))
    if name.startswith("dp_sips"):
        sigma = thresholds.gaussian_sigma(EPS, DELTA / 2)
        rounds = []
        for share in round_shares(3, 0.3):
            s_i = sigma / math.sqrt(share)
            rounds.append((s_i, thresholds.gaussian_threshold(s_i, share * DELTA, T)))
        none_novel = math.prod(
            1 - _any_above(float(norm.sf(r - T**-0.5, scale=s)), T) for s, r in rounds
        )
        return _with_group(
            1 - none_novel,
            DELTA / 2,
            lambda k, c: 1 - math.prod(float(norm.cdf(r - k, scale=c * s)) for s, r in rounds),
        )
    count = name == "count_gaussian"
    sigma = thresholds.gaussian_sigma(EPS, DELTA / 2, sensitivity=math.sqrt(T) if count else 1)
    rho = thresholds.gaussian_threshold(sigma, DELTA, T, novel_weight="unit" if count else "split")
    w = 1.0 if count else T**-0.5
    p_novel = _any_above(float(norm.sf(rho - w, scale=sigma)), T)
    return _with_group(p_novel, DELTA / 2, lambda k, c: float(norm.sf(rho - k, scale=c * sigma)))


def _with_group(p_novel: float, bound: float, p_group) -> Reference:
    """Pick the group size k whose release probability best reveals a noise scale off by 30%;
    ``p_group(k, c)`` is the probability with the noise scale multiplied by c."""

    def power(k: int) -> float:
        p = p_group(k, 1.0)
        return abs(p_group(k, 0.7) - p) / math.sqrt(p * (1 - p)) if 0.05 < p < 0.95 else 0.0

    k = max(range(1, 30), key=power)
    return Reference(p_novel, bound, p_group(k, 1.0), k)


# The continuous forms of the papers (noise="float"); the exact forms' own laws are tested in
# test_exact_release.py and their thresholds in test_fixed_point.py.
MECHANISMS = {
    "count_laplace": partial(su.count_laplace, noise="float"),
    "count_gaussian": partial(su.count_gaussian, noise="float"),
    "weighted_laplace": partial(su.weighted_laplace, noise="float"),
    "weighted_gaussian": partial(su.weighted_gaussian, noise="float"),
    "policy_laplace": partial(su.policy_laplace, noise="float"),
    "policy_gaussian": su.policy_gaussian,
    "max_adaptive_degree": su.max_adaptive_degree,
    "dp_sips": partial(su.dp_sips, noise="float"),
    "dp_sips_mad": partial(su.dp_sips, weighting="mad"),
}


def _z(observed: int, n: int, p: float) -> float:
    return (observed - n * p) / math.sqrt(n * p * (1 - p))


def _checks(name: str, ref: Reference, seed: int) -> tuple[float, float]:
    """z-scores of (A) persons with a released private item and (B) released group items."""
    r = MECHANISMS[name](_graph(ref.k), EPS, DELTA, max_items=T, rng=seed)
    labels = r.items.astype(str)
    persons_hit = np.unique(np.char.partition(labels[np.char.startswith(labels, "a")], "-")[:, 0])
    groups_hit = int(np.char.startswith(labels, "b").sum())
    return _z(persons_hit.size, K, ref.p_novel), _z(groups_hit, G, ref.p_group)


@pytest.mark.parametrize("name", MECHANISMS)
def test_release_probabilities_match_the_theorems(name: str) -> None:
    ref = _reference(name)
    z_novel, z_group = _checks(name, ref, seed=1)
    assert ref.p_novel <= ref.bound * (1 + 1e-9)  # the novel-item guarantee itself
    assert 0.05 < ref.p_group < 0.95  # the group check is sensitive to the noise scale
    assert abs(z_novel) < Z, f"persons with a released private item: z = {z_novel:.1f}"
    assert abs(z_group) < Z, f"released group items: z = {z_group:.1f}"


@pytest.mark.parametrize(
    "name",
    ["weighted_laplace", "policy_gaussian", "max_adaptive_degree", "dp_sips", "count_gaussian"],
)
def test_power_a_wrong_threshold_is_detected(name: str, monkeypatch) -> None:
    """The common bug of taking the threshold at t = 1 instead of the max over t ≤ Δ0."""
    ref = _reference(name)
    for fn in ("laplace_threshold", "gaussian_threshold"):
        original = getattr(thresholds, fn)
        monkeypatch.setattr(thresholds, fn, lambda s, d, m, _f=original, **kw: _f(s, d, 1, **kw))
    z_novel, _ = _checks(name, ref, seed=1)
    assert abs(z_novel) >= Z


@pytest.mark.parametrize(
    "name",
    [
        "weighted_laplace",
        "policy_laplace",
        "weighted_gaussian",
        "policy_gaussian",
        "max_adaptive_degree",
        "dp_sips",
    ],
)
def test_power_a_noise_scale_30_percent_too_small_is_detected(name: str, monkeypatch) -> None:
    ref = _reference(name)
    laplace_ok, gaussian_ok = noise.float_laplace, noise.float_gaussian
    monkeypatch.setattr(noise, "float_laplace", lambda s, rng, size: laplace_ok(0.7 * s, rng, size))
    monkeypatch.setattr(
        noise, "float_gaussian", lambda s, rng, size: gaussian_ok(0.7 * s, rng, size)
    )
    _, z_group = _checks(name, ref, seed=1)
    assert abs(z_group) >= Z


# -- adaptive weighting releases at least as much as basic weighting -------------------------------


def _zipf_graph(seed: int) -> PersonItemGraph:
    rng = np.random.default_rng(seed)
    degrees = rng.geometric(0.08, size=4000)
    persons = np.repeat(np.arange(4000), degrees)
    p = 1 / np.arange(1, 3001)
    return PersonItemGraph.from_pairs(persons, rng.choice(3000, size=persons.size, p=p / p.sum()))


def _expected_count(r: su.SetUnionResult, graph_candidates: np.ndarray) -> float:
    w = r.weights[graph_candidates]
    return float(norm.sf(r.threshold - w, scale=r.scale).sum())


def _mean_difference_z(better: list[int], worse: list[int]) -> float:
    a, b = np.asarray(better, float), np.asarray(worse, float)
    se = math.sqrt(a.var(ddof=1) / a.size + b.var(ddof=1) / b.size)
    return float((a.mean() - b.mean()) / se)


def test_mad_releases_at_least_as_much_as_weighted_gaussian() -> None:
    """Same σ, ρ (asserted).  Deterministic part: with the same sampling, every item's weight is
    ≥ its basic weight or ≥ τ, and the exact expected count is larger.  Statistical part: over
    30 independent runs each, a one-sided Welch test (z > −5, false-failure rate 3e-7) that
    MAD's mean count is not below basic weighting's.  Power: the same test rejects "count
    Gaussian releases as much as weighted Gaussian", which is false here."""
    graph = _zipf_graph(3)
    eps, delta, d0 = 1.0, 1e-5, 20
    mad = su.max_adaptive_degree(graph, eps, delta, max_items=d0, rng=0, return_weights=True)
    basic = su.weighted_gaussian(
        graph, eps, delta, max_items=d0, rng=0, return_weights=True, noise="float"
    )
    assert (mad.scale, mad.threshold) == (basic.scale, basic.threshold)
    held = np.flatnonzero(basic.weights > 0)
    assert np.array_equal(held, np.flatnonzero(mad.weights > 0))  # same sampling
    below = basic.weights < mad.cutoff
    assert np.all(mad.weights[below] >= basic.weights[below] - 1e-12)
    assert np.all(mad.weights[~below] >= mad.cutoff - 1e-12)
    assert _expected_count(mad, held) > _expected_count(basic, held)

    runs = range(1, 31)
    mad_counts = [
        su.max_adaptive_degree(graph, eps, delta, max_items=d0, rng=s).count for s in runs
    ]
    basic_counts = [
        su.weighted_gaussian(graph, eps, delta, max_items=d0, rng=100 + s, noise="float").count
        for s in runs
    ]
    assert _mean_difference_z(mad_counts, basic_counts) > -Z
    count_counts = [
        su.count_gaussian(graph, eps, delta, max_items=d0, rng=200 + s, noise="float").count
        for s in runs
    ]
    assert _mean_difference_z(count_counts, basic_counts) < -Z  # power check
