"""The sampling baseline: nested uniform samples keyed by person."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy import stats

import matching
from dpcount import PersonItemGraph
from dpcount.errors import InvalidParameterError
from matching.sampling import label_keys, pair_ranks, sampling_curve
from tests.strategies import graphs

ELL_MAX = 9


@settings(max_examples=200)
@given(graphs(max_persons=7, max_items=8), st.integers(0, 2**32))
def test_sampling_is_below_exact_and_reaches_dc(graph: PersonItemGraph, seed: int) -> None:
    sampled = matching.dc_curve(graph, ELL_MAX, method="sampling", rng=seed)
    assert np.all(sampled <= matching.dc_curve(graph, ELL_MAX))
    assert np.all(np.diff(sampled) >= 0)
    max_degree = int(graph.degrees().max(initial=0))
    assert np.all(sampled[max(max_degree, 1) - 1 :] == graph.n_items)


@settings(max_examples=100)
@given(graphs(max_persons=7, max_items=8), st.integers(0, 2**32), st.integers(1, 5))
def test_curve_point_equals_the_witness_of_that_ell(graph, seed, ell) -> None:
    witness = matching.contributions(graph, ell, method="sampling", rng=seed)
    witness.check()
    assert witness.value == sampling_curve(graph, ell, rng=seed)[-1]
    # each person contributes exactly min(ℓ, degree) of its sampled items, up to shared items
    assert np.all(witness.loads() <= np.minimum(graph.degrees(), ell))


def test_each_order_is_a_permutation_of_the_persons_items() -> None:
    graph = PersonItemGraph.from_sets({"a": set(range(10)), "b": {3}, "c": set(range(4, 9))})
    ranks = pair_ranks(graph, rng=5)
    for p in range(graph.n_persons):
        row = ranks[graph.indptr[p] : graph.indptr[p + 1]]
        assert sorted(row.tolist()) == list(range(row.size))


def test_first_pick_is_uniform() -> None:
    # One person with 6 items, ℓ = 1: over 3000 seeds each item should be picked ~500 times.
    # χ² test at significance 1e-4 (a false failure once in 10⁴ runs; the seeds are fixed).
    graph = PersonItemGraph.from_sets({"solo": set(range(6))})
    picks = np.zeros(6, dtype=np.int64)
    for seed in range(3000):
        picks[np.flatnonzero(pair_ranks(graph, seed) == 0)[0]] += 1
    assert stats.chisquare(picks).pvalue > 1e-4
    # power: a sampler that favoured item 0 by 30% would be caught by the same test
    biased = picks.astype(float).copy()
    biased[0] *= 1.3
    assert stats.chisquare(biased, biased.sum() / 6 * np.ones(6)).pvalue < 1e-4


def test_reproducible_and_rng_policy() -> None:
    rng = np.random.default_rng(0)
    graph = PersonItemGraph.from_pairs(rng.integers(0, 50, 500), rng.integers(0, 80, 500))
    a = matching.dc_curve(graph, 8, method="sampling", rng=11)
    assert a.tolist() == matching.dc_curve(graph, 8, method="sampling", rng=11).tolist()
    # a Generator is consumed (one draw), so two calls with the same generator differ in key
    gen = np.random.default_rng(11)
    first = pair_ranks(graph, gen)
    assert not np.array_equal(first, pair_ranks(graph, gen))
    # None draws fresh OS entropy: two calls almost surely differ somewhere
    assert not np.array_equal(pair_ranks(graph, None), pair_ranks(graph, None))
    with pytest.raises(InvalidParameterError, match="rng"):
        matching.dc_curve(graph, 3, method="sampling", rng=-1)
    with pytest.raises(InvalidParameterError, match="rng"):
        matching.dc_curve(graph, 3, method="sampling", rng="seed")


def test_label_keys_do_not_depend_on_the_array_holding_them() -> None:
    short = label_keys(np.array(["ann", "bo"]))
    wide = label_keys(np.array(["bo", "a-very-long-label", "ann"]))
    as_objects = label_keys(np.array(["ann", "bo"], dtype=object))
    assert short.tolist() == [wide[2], wide[0]] == as_objects.tolist()
    ints = label_keys(np.array([1, 2], dtype=np.int64))
    assert ints.tolist() == label_keys(np.array([1, 2], dtype=object)).tolist()
    assert ints[0] != label_keys(np.array(["1"]))[0]
    mixed = label_keys(np.array([(1, 2), 3.5], dtype=object))
    assert mixed.shape == (2,) and mixed[0] != mixed[1]
    assert len(set(label_keys(np.arange(10_000)).tolist())) == 10_000
