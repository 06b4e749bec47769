"""A SeedSequence passed as ``rng`` is spawned, never reused, by every randomized function.

For each function we draw ``REPEATS`` releases with ONE SeedSequence object and require that they
are not all identical, and draw twice with two fresh SeedSequences of the same entropy and
require identical releases.  The second half is the power check: it shows that the compared
output carries the randomness, so reusing the sequence (the old behaviour of
``shifted_inverse``) would make the first half fail with certainty.

False-failure rate: each case is set up so one release takes any single value with probability
p ≤ 0.1 (stated per case), so ``REPEATS`` = 6 independent releases coincide with probability
≤ p^5 ≤ 1e-5; the binary Bernoulli sampler uses 40 draws (≤ 2^-39).
"""

from __future__ import annotations

import warnings
from collections.abc import Callable
from typing import Any

import numpy as np
import pytest

import matching.sampling
from dpcount import PersonItemGraph
from dpcount.errors import PrivacyLeakWarning, UnsafeNoiseWarning
from dpcount.spark.hashing import release_key
from mechanisms import (
    bayesian_dp,
    dp_distinct_count,
    dp_distinct_count_from_curve,
    end_to_end_dp,
    exponential_mechanism,
    gem,
    grouped_distinct_count,
    laplace_lower_bound,
    permute_and_flip,
    r2t,
    shifted_inverse,
)
from mechanisms.bayesian_ngrams import laplace_ngrams, laplace_ngrams_public
from mechanisms.noise import bernoulli_exp, discrete_laplace, float_gaussian, float_laplace
from mechanisms.set_union import (
    count_gaussian,
    count_laplace,
    dp_sips,
    max_adaptive_degree,
    policy_gaussian,
    policy_laplace,
    weighted_gaussian,
    weighted_laplace,
)
from mechanisms.set_union.greedy_policy import greedy_policy
from mechanisms.spark.union import release_keys

REPEATS = 6
ENTROPY = 20261125


def _graph() -> PersonItemGraph:
    """300 persons; item k is held by about k/2 persons, so many items sit near any threshold."""
    gen = np.random.default_rng(0)
    sets = {f"p{j}": {int(k) for k in gen.integers(0, 400, size=6)} for j in range(300)}
    return PersonItemGraph.from_sets(sets)


def _union_graph() -> PersonItemGraph:
    """3000 persons with 3 of 100 items each, item k chosen with weight k + 1.

    Item counts spread from 2 to ~170, so dozens of items sit near every mechanism's threshold
    and the released set varies between draws.
    """
    gen = np.random.default_rng(0)
    weights = np.arange(1, 101) / np.arange(1, 101).sum()
    return PersonItemGraph.from_sets(
        {
            f"p{j}": set(gen.choice(100, size=3, replace=False, p=weights).tolist())
            for j in range(3000)
        }
    )


GRAPH = _graph()
UNION_GRAPH = _union_graph()
PUBLIC = {f"w{k}": 1.0 + k % 7 for k in range(40)}
NGRAM_GRAPH = PersonItemGraph.from_pairs(
    [f"p{j}" for j in range(60) for _ in range(3)],
    [f"w{(j * 7 + i) % 40}" for j in range(60) for i in range(3)],
    counts=[1 + (j + i) % 3 for j in range(60) for i in range(3)],
)
CURVE = np.minimum(np.arange(0, 101) * 50, 2000)
DEGREES = np.full(2000, 1)
UNIFORM = np.zeros(100)


def _items(result: Any) -> tuple[Any, ...]:
    return tuple(sorted(result.items.tolist()))


def _probabilities(result: Any) -> tuple[float, ...]:
    return tuple(result.probabilities.tolist())


def _union(mechanism: Callable[..., Any], rng: Any, **options: Any) -> tuple[Any, ...]:
    return _items(mechanism(UNION_GRAPH, 1.0, 1e-6, max_items=3, rng=rng, **options))


def _ngrams(mechanism: Callable[..., Any], rng: Any) -> tuple[float, ...]:
    return _probabilities(mechanism(NGRAM_GRAPH, PUBLIC, 1.0, max_contribution=3, rng=rng))


# (name, release(rng) -> comparable value).  p = largest probability of a single output.
CASES: list[tuple[str, Callable[[Any], Any]]] = [
    # p ≲ 0.02: discrete Laplace of scale ≥ 20 on the count.
    ("dp_distinct_count", lambda s: dp_distinct_count(GRAPH, epsilon=0.1, rng=s).estimate),
    (
        "dp_distinct_count_from_curve",
        lambda s: (
            dp_distinct_count_from_curve(
                CURVE, DEGREES, epsilon=0.1, selection_rng=s, noise_rng=s
            ).estimate
        ),
    ),
    (
        "grouped_distinct_count",
        lambda s: (
            grouped_distinct_count(
                [(p, "g", i) for p in GRAPH.person_labels[:50] for i in range(5)],
                0.05,
                groups=["g"],
                max_groups=1,
                rng=s,
            )
            .rows[0]
            .estimate
        ),
    ),
    # p ≈ tanh(1/200) ≈ 0.005.
    (
        "laplace_lower_bound",
        lambda s: laplace_lower_bound(1000, 10, epsilon=0.1, beta=0.05, rng=s).estimate,
    ),
    ("r2t", lambda s: r2t(GRAPH, epsilon=0.1, max_contribution=8, rng=s).estimate),
    # p ≤ 0.1: the exponential mechanism over a 1000-point linear grid at ε = 0.05.
    (
        "shifted_inverse",
        lambda s: (
            shifted_inverse(GRAPH, epsilon=0.05, upper=1000, log_domain=False, rng=s).estimate
        ),
    ),
    # p = 0.01: uniform selection among 100 candidates.
    ("gem", lambda s: gem(UNIFORM, np.ones(100), epsilon=1.0, beta=0.1, rng=s)),
    ("exponential_mechanism", lambda s: exponential_mechanism(UNIFORM, 1.0, rng=s)),
    ("permute_and_flip", lambda s: permute_and_flip(UNIFORM, 1.0, rng=s)),
    ("discrete_laplace", lambda s: discrete_laplace(50, rng=s)),
    ("float_laplace", lambda s: float(float_laplace(1.0, rng=s))),
    ("float_gaussian", lambda s: float(float_gaussian(1.0, rng=s))),
    # Set union: several items near the threshold; 74-88 of 100 released, varying per draw.
    ("count_laplace", lambda s: _union(count_laplace, s)),
    ("count_gaussian", lambda s: _union(count_gaussian, s)),
    ("weighted_laplace", lambda s: _union(weighted_laplace, s)),
    ("weighted_gaussian", lambda s: _union(weighted_gaussian, s)),
    ("policy_laplace", lambda s: _union(policy_laplace, s)),
    ("policy_gaussian", lambda s: _union(policy_gaussian, s)),
    (
        "max_adaptive_degree",
        lambda s: _union(max_adaptive_degree, s),
    ),
    ("dp_sips", lambda s: _union(dp_sips, s)),
    (
        "greedy_policy",
        lambda s: _union(greedy_policy, s, allow_non_private=True),
    ),
    # n-grams: continuous noise on every probability (p = 0).
    (
        "bayesian_dp",
        lambda s: _probabilities(
            bayesian_dp(
                NGRAM_GRAPH,
                PUBLIC,
                0.5,
                1e-6,
                clip_slope=0.5,
                max_count=2,
                private_weight=0.5,
                rng=s,
            )
        ),
    ),
    (
        "end_to_end_dp",
        lambda s: _probabilities(
            end_to_end_dp(NGRAM_GRAPH, PUBLIC, 0.2, 0.5, 1e-6, max_count=2, rng=s)
        ),
    ),
    (
        "laplace_ngrams",
        lambda s: _ngrams(laplace_ngrams, s),
    ),
    (
        "laplace_ngrams_public",
        lambda s: _ngrams(laplace_ngrams_public, s),
    ),
    # The sampling baseline's random ranks of every pair (p ≈ 1/1800!).
    ("sampling_pair_ranks", lambda s: tuple(matching.sampling.pair_ranks(GRAPH, rng=s).tolist())),
    # The Spark engine's secret keys (its mechanisms draw everything from these; p = 2^-64).
    ("spark_release_key", lambda s: release_key(s)),
    ("spark_set_union_keys", lambda s: tuple(release_keys(s))),
]


def _quietly(release: Callable[[Any], Any], rng: Any) -> Any:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", PrivacyLeakWarning)
        warnings.simplefilter("ignore", UnsafeNoiseWarning)
        return release(rng)


@pytest.mark.parametrize(("name", "release"), CASES, ids=[name for name, _ in CASES])
def test_one_seed_sequence_gives_fresh_releases(name: str, release: Callable[[Any], Any]) -> None:
    seq = np.random.SeedSequence(ENTROPY)
    outputs = [_quietly(release, seq) for _ in range(REPEATS)]
    assert len(set(outputs)) > 1, f"{name}: {REPEATS} releases with one SeedSequence coincide"
    # Power check: same entropy, fresh objects -> the same release (the output shows the noise).
    first = _quietly(release, np.random.SeedSequence(ENTROPY))
    assert first == _quietly(release, np.random.SeedSequence(ENTROPY)) == outputs[0]


def test_bernoulli_with_one_seed_sequence_is_not_constant() -> None:
    seq = np.random.SeedSequence(ENTROPY)
    draws = {bernoulli_exp(np.log(2), rng=seq) for _ in range(40)}  # p = 1/2 each
    assert draws == {True, False}
