"""Adding or removing one person moves every count by at most ℓ, for every ℓ at once."""

from __future__ import annotations

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

import matching
from tests.strategies import neighbours

ELL_MAX = 10


def _check(smaller_curve: np.ndarray, larger_curve: np.ndarray) -> None:
    ell = np.arange(1, ELL_MAX + 1)
    change = larger_curve - smaller_curve
    assert np.all(change >= 0), "adding a person never lowers these counts"
    assert np.all(change <= ell), f"change {change.tolist()} exceeds ℓ"


@settings(max_examples=300)
@given(neighbours())
def test_exact_sensitivity(pair) -> None:
    smaller, larger = pair
    _check(matching.dc_curve(smaller, ELL_MAX), matching.dc_curve(larger, ELL_MAX))


@settings(max_examples=300)
@given(neighbours())
def test_greedy_sensitivity(pair) -> None:
    smaller, larger = pair
    _check(
        matching.dc_curve(smaller, ELL_MAX, method="greedy"),
        matching.dc_curve(larger, ELL_MAX, method="greedy"),
    )


@settings(max_examples=300)
@given(neighbours(), st.integers(0, 2**32))
def test_sampling_sensitivity_with_the_others_randomness_fixed(pair, seed: int) -> None:
    smaller, larger = pair
    _check(
        matching.dc_curve(smaller, ELL_MAX, method="sampling", rng=seed),
        matching.dc_curve(larger, ELL_MAX, method="sampling", rng=seed),
    )


@settings(max_examples=100)
@given(neighbours(), st.integers(0, 2**32))
def test_sampling_neighbour_keeps_everyone_elses_sample(pair, seed: int) -> None:
    smaller, larger = pair
    small = matching.contributions(smaller, 2, method="sampling", rng=seed)
    large = matching.contributions(larger, 2, method="sampling", rng=seed)
    from matching.sampling import pair_ranks

    def samples(graph, ranks):
        persons, items = graph.pairs()
        keep = ranks < 2
        return {
            (graph.person_labels[p], graph.item_labels[i])
            for p, i in zip(persons[keep], items[keep], strict=True)
        }

    before = samples(smaller, pair_ranks(smaller, seed))
    after = samples(larger, pair_ranks(larger, seed))
    assert before == {x for x in after if x[0] != "zz-added"}
    assert small.value <= large.value <= small.value + 2
