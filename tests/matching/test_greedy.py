"""The linear-time greedy (Knop & Steinke, Algorithms 2 and 4)."""

from __future__ import annotations

import numpy as np
from hypothesis import given, settings

import matching
from dpcount import PersonItemGraph
from matching.greedy import greedy_assignment, greedy_curve
from tests.matching.reference import frequency_greedy, literal_greedy
from tests.strategies import graphs, neighbours

ELL_MAX = 9


@settings(max_examples=200)
@given(graphs(max_persons=7, max_items=8))
def test_one_pass_curve_equals_algorithm_4_run_per_ell(graph: PersonItemGraph) -> None:
    curve = greedy_curve(graph, ELL_MAX)
    assert curve.tolist() == [literal_greedy(graph, ell) for ell in range(1, ELL_MAX + 1)]


@settings(max_examples=200)
@given(graphs(max_persons=7, max_items=8))
def test_greedy_is_a_two_approximation(graph: PersonItemGraph) -> None:
    greedy = matching.dc_curve(graph, ELL_MAX, method="greedy")
    exact = matching.dc_curve(graph, ELL_MAX)
    assert np.all(greedy <= exact)
    assert np.all(exact <= 2 * greedy)  # a maximal matching of the ℓ-copies graph (Thm 1.2)


@settings(max_examples=200)
@given(graphs(max_persons=7, max_items=8))
def test_greedy_curve_non_decreasing_and_reaches_dc(graph: PersonItemGraph) -> None:
    curve = matching.dc_curve(graph, ELL_MAX, method="greedy")
    assert np.all(np.diff(curve) >= 0)
    max_degree = int(graph.degrees().max(initial=0))
    assert np.all(curve[max(max_degree, 1) - 1 :] == graph.n_items)


def test_the_state_after_r_rounds_does_not_depend_on_ell_max() -> None:
    rng = np.random.default_rng(3)
    persons, items = rng.integers(0, 60, 600), rng.integers(0, 200, 600)
    graph = PersonItemGraph.from_pairs(persons, items)
    long = greedy_curve(graph, 50)
    for ell_max in (1, 2, 7, 20):
        assert greedy_curve(graph, ell_max).tolist() == long[:ell_max].tolist()


def test_smallest_item_id_first() -> None:
    # Item ids follow sorted labels: "a" < "b" < "c", whatever the frequencies.
    graph = PersonItemGraph.from_sets({"p": {"c", "a", "b"}, "q": {"a"}})
    assert matching.contributions(graph, 1, method="greedy").to_dict() == {"p": ["a"], "q": []}
    assert greedy_assignment(graph, 2).tolist() == [0, 0, -1]


def test_frequency_order_breaks_the_sensitivity_bound() -> None:
    # Teaching check (docs/algorithms.md §2): taking the rarest item first lets one added person
    # change the count by 2 > ℓ = 1, because the added person changes everyone's frequencies.
    smaller = PersonItemGraph.from_sets({"b": {0, 2}, "c": {0}, "d": {1, 2}})
    larger = smaller.with_person("a", [0, 3])
    assert frequency_greedy(larger, 1) - frequency_greedy(smaller, 1) == 2
    # The fixed item order of Algorithm 4 keeps the change within ℓ on the same pair.
    assert abs(literal_greedy(larger, 1) - literal_greedy(smaller, 1)) <= 1
    assert (
        abs(matching.dc_value(larger, 1, "greedy") - matching.dc_value(smaller, 1, "greedy")) <= 1
    )


@settings(max_examples=100)
@given(neighbours(max_persons=6, max_items=7))
def test_frequency_greedy_reference_differs_from_greedy_only_in_order(pair) -> None:
    # Guards the teaching check: with all frequencies equal the two greedies coincide.
    smaller, _ = pair
    if smaller.n_items and len(set(smaller.item_degrees().tolist())) == 1:
        assert frequency_greedy(smaller, 2) == literal_greedy(smaller, 2)
