"""Contribution bounding (Δ0 sampling), item removal and the secret user order."""

from __future__ import annotations

import itertools
from collections import Counter

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy.stats import chisquare

from mechanisms.set_union._bounding import (
    CappedSets,
    cap_contributions,
    keyed_hash_order,
    random_order,
    remove_items,
)


def _rows(sets: CappedSets) -> list[list[int]]:
    return [
        sets.indices[sets.indptr[p] : sets.indptr[p + 1]].tolist() for p in range(sets.n_persons)
    ]


def test_capping_keeps_sorted_subsets_of_the_right_size() -> None:
    rng = np.random.default_rng(0)
    lists = [
        sorted(rng.choice(50, size=int(rng.integers(0, 30)), replace=False).tolist())
        for _ in range(200)
    ]
    sets = CappedSets.from_lists(lists, 50)
    capped = cap_contributions(sets, 7, rng)
    for full, kept in zip(lists, _rows(capped), strict=True):
        assert len(kept) == min(len(full), 7)
        assert set(kept) <= set(full) and kept == sorted(kept)
    assert capped.indices.dtype == np.int32 and capped.indptr.dtype == np.int64
    assert cap_contributions(sets, 100, rng) is sets  # nobody over the cap: unchanged


def test_capping_draws_each_subset_uniformly() -> None:
    """χ² over the 10 two-item subsets of a five-item set; false-failure rate 1e-6."""
    sets = CappedSets.from_lists([[0, 1, 2, 3, 4]] * 20_000, 5)
    capped = cap_contributions(sets, 2, np.random.default_rng(1))
    counts = Counter(tuple(r) for r in _rows(capped))
    observed = [counts[s] for s in itertools.combinations(range(5), 2)]
    assert sum(observed) == 20_000
    assert chisquare(observed).pvalue > 1e-6
    # Power: the first two items every time is rejected at once.
    biased = [20_000] + [0] * 9
    assert chisquare(biased).pvalue < 1e-6


def test_capping_of_a_person_ignores_the_others() -> None:
    """A person's sample depends only on their own items and their share of the randomness:
    with the same stream, person 0's sample is the same whoever else is (not) heavy after."""
    a = CappedSets.from_lists([[0, 1, 2, 3, 4, 5], [1, 2]], 6)
    b = CappedSets.from_lists([[0, 1, 2, 3, 4, 5], [1, 2, 3, 4, 5]], 6)
    first_a = _rows(cap_contributions(a, 3, np.random.default_rng(9)))[0]
    first_b = _rows(cap_contributions(b, 3, np.random.default_rng(9)))[0]
    assert first_a == first_b


def test_remove_items_and_order() -> None:
    sets = CappedSets.from_lists([[0, 1, 2], [], [2, 3]], 4)
    assert _rows(remove_items(sets, np.array([2, 3]))) == [[0, 1], [], []]
    assert _rows(remove_items(sets, np.array([], dtype=np.int64))) == _rows(sets)
    order = random_order(1000, np.random.default_rng(3))
    assert sorted(order.tolist()) == list(range(1000)) and order.dtype == np.int64
    assert random_order(0, np.random.default_rng(3)).size == 0


def test_keyed_hash_order_is_uniform_over_permutations():
    # 4 labels, 12,000 keys: each of the 24 orders has probability 1/24 if the keyed hash
    # behaves as a random function.  False-failure rate 1e-4 (chi-square, 23 dof).
    from itertools import permutations

    from scipy import stats

    labels = np.array(["a", "b", "c", "d"])
    rng = np.random.default_rng(11)
    index = {p: k for k, p in enumerate(permutations(range(4)))}
    counts = np.zeros(24)
    for _ in range(12_000):
        counts[index[tuple(keyed_hash_order(labels, rng).tolist())]] += 1
    assert stats.chisquare(counts).pvalue > 1e-4
    # Power: a hash that ignores the key gives one fixed order every time.
    fixed = np.zeros(24)
    fixed[0] = 12_000
    assert stats.chisquare(fixed).pvalue < 1e-4


def test_keyed_hash_order_keeps_others_in_place_when_a_person_is_added():
    labels = np.array([f"user{k:03d}" for k in range(50)])
    order = keyed_hash_order(labels, np.random.default_rng(5))
    bigger = keyed_hash_order(np.append(labels, "zzz-new"), np.random.default_rng(5))
    assert [i for i in bigger.tolist() if i != 50] == order.tolist()


def _kept_labels(graph, max_items: int, key: int) -> dict[str, set[str]]:
    from mechanisms.set_union._bounding import cap_contributions_keyed

    capped = cap_contributions_keyed(
        CappedSets.from_graph(graph), graph.person_labels, graph.item_labels, max_items, key
    )
    return {
        str(p): {str(graph.item_labels[i]) for i in row}
        for p, row in zip(graph.person_labels, _rows(capped), strict=True)
    }


@given(
    sets=st.dictionaries(
        st.sampled_from([f"p{k}" for k in range(8)]),
        st.sets(st.sampled_from([f"i{k}" for k in range(12)]), min_size=1, max_size=9),
        min_size=1,
    ),
    new=st.sets(st.sampled_from([f"i{k}" for k in range(16)]), min_size=1, max_size=12),
    max_items=st.integers(1, 6),
    key=st.integers(0, 2**64 - 1),
)
@settings(max_examples=60, deadline=None)
def test_keyed_capping_of_a_person_depends_on_their_labels_only(sets, new, max_items, key):
    """Neighbour audit of keyed Δ0 sampling: adding one person (who may bring new items, which
    shifts every item id) changes nobody else's kept subset and keeps ≤ Δ0 of theirs."""
    from dpcount import PersonItemGraph

    before = _kept_labels(PersonItemGraph.from_sets(sets), max_items, key)
    after = _kept_labels(PersonItemGraph.from_sets({**sets, "added": new}), max_items, key)
    assert {p: after[p] for p in before} == before
    assert after["added"] <= new and len(after["added"]) == min(len(new), max_items)


def test_keyed_capping_is_uniform_over_keys() -> None:
    """Over 3,000 keys the kept pair of a person with 4 items is uniform over the 6 pairs
    (chi-square, false-failure rate 1e-4); a biased choice (always the smallest ids) fails."""
    from dpcount import PersonItemGraph

    graph = PersonItemGraph.from_sets({"p": {"a", "b", "c", "d"}})
    counts = Counter(
        tuple(sorted(_kept_labels(graph, 2, key)["p"])) for key in range(10**6, 10**6 + 3000)
    )
    assert len(counts) == 6 and chisquare(list(counts.values())).pvalue > 1e-4
    biased = [3000 - 5 * 100, *[100] * 5]  # power: one pair 5× as likely as the others
    assert chisquare(biased).pvalue < 1e-4
