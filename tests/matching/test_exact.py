"""Exact methods: agreement with each other, with the definition, and the curve's shape."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import matching
from dpcount import PersonItemGraph
from matching._common import fill_curve
from matching.flow import flow_value
from matching.incremental import (
    AUTO,
    BACKWARD,
    FORWARD,
    _exact_curve,
    _transpose,
    _transpose_in_halves,
    _workspace,
)
from tests.matching.reference import brute_force_dc, min_cut_dc
from tests.strategies import graphs

FAST_EXACT = ("incremental", "flow", "hopcroft_karp", "igraph")
ELL_MAX = 9


@settings(max_examples=150)
@given(graphs(max_persons=5, max_items=7), st.integers(1, 4))
def test_exact_values_equal_the_definition(graph: PersonItemGraph, ell: int) -> None:
    expected = brute_force_dc(graph, ell)
    assert min_cut_dc(graph, ell) == expected  # the two oracles agree (max-flow = min-cut)
    for method in (*FAST_EXACT, "networkx"):
        assert matching.dc_value(graph, ell, method=method) == expected, method


@settings(max_examples=150)
@given(graphs(max_persons=7, max_items=8))
def test_exact_curves_agree_and_match_independent_solves(graph: PersonItemGraph) -> None:
    # Per-ℓ Dinic solves without any early stopping check the "stop when flat and fill" logic.
    direct = [flow_value(graph, ell) for ell in range(1, ELL_MAX + 1)]
    for method in (*FAST_EXACT, "auto"):
        curve = matching.dc_curve(graph, ELL_MAX, method=method)
        assert curve.dtype == np.int64 and curve.shape == (ELL_MAX,)
        assert curve.tolist() == direct, method


@settings(max_examples=40)
@given(graphs(max_persons=5, max_items=6))
def test_networkx_curve_agrees(graph: PersonItemGraph) -> None:
    expected = matching.dc_curve(graph, 5, method="flow")
    assert matching.dc_curve(graph, 5, method="networkx").tolist() == expected.tolist()


@settings(max_examples=200)
@given(graphs(max_persons=7, max_items=8))
def test_exact_curve_is_non_decreasing_concave_and_reaches_dc(graph: PersonItemGraph) -> None:
    curve = matching.dc_curve(graph, ELL_MAX)
    steps = np.diff(np.concatenate([[0], curve]))
    assert np.all(steps >= 0)
    assert np.all(np.diff(steps) <= 0)  # increments never grow (docs/algorithms.md §1)
    max_degree = int(graph.degrees().max(initial=0))
    assert np.all(curve[max(max_degree, 1) - 1 :] == graph.n_items)
    assert np.all(curve <= graph.n_items)
    assert curve[0] <= graph.n_persons  # ℓ = 1 is a matching


def _random_graph(rng: np.random.Generator, n: int, m: int, mean_degree: float) -> PersonItemGraph:
    degrees = np.minimum(rng.geometric(1 / mean_degree, size=n), m)
    persons = np.repeat(np.arange(n), degrees)
    # Zipf-like items: a few popular ones and a long tail, as in text data.
    items = np.minimum(rng.zipf(1.3, size=persons.size) - 1, m - 1)
    return PersonItemGraph.from_pairs(persons, items)


@pytest.mark.parametrize("seed", range(6))
def test_incremental_matches_dinic_on_medium_random_graphs(seed: int) -> None:
    rng = np.random.default_rng(seed)
    graph = _random_graph(
        rng, n=int(rng.integers(50, 400)), m=int(rng.integers(20, 300)), mean_degree=6
    )
    expected = matching.dc_curve(graph, 30, method="flow")
    assert matching.dc_curve(graph, 30, method="incremental").tolist() == expected.tolist()
    assert matching.dc_curve(graph, 30, method="hopcroft_karp").tolist() == expected.tolist()


def test_long_augmenting_path() -> None:
    # A chain: person k holds items k and k+1.  The ℓ = 1 greedy start gives person k item k;
    # then "q", holding only item 0, is served by one path that shifts every person right.
    n = 200
    sets = {f"p{k:03d}": {k, k + 1} for k in range(n)}
    sets["q"] = {0}
    graph = PersonItemGraph.from_sets(sets)
    assert matching.dc_value(graph, 1) == matching.dc_value(graph, 1, method="flow") == n + 1


def _uniform_graph(seed: int, n: int, m: int, max_degree: int) -> PersonItemGraph:
    rng = np.random.default_rng(seed)
    degrees = rng.integers(1, max_degree + 1, size=n)
    persons = np.repeat(np.arange(n), degrees)
    return PersonItemGraph.from_pairs(persons, rng.integers(0, m, size=persons.size))


@pytest.mark.parametrize(("n", "m"), [(3000, 3000), (1000, 2500), (2500, 800)])
def test_incremental_on_sparse_uniform_graphs(n: int, m: int) -> None:
    # Sparse random graphs near the perfect-matching threshold need long augmenting paths, so
    # the Hopcroft–Karp phases and the dead marking of the incremental kernel do real work.
    graph = _uniform_graph(n + m, n, m, max_degree=4)
    expected = matching.dc_curve(graph, 12, method="flow")
    assert matching.dc_curve(graph, 12).tolist() == expected.tolist()
    witness = matching.contributions(graph, 2, method="incremental")
    witness.check()
    assert witness.value == expected[1]


@pytest.mark.slow
@pytest.mark.parametrize("seed", range(3))
def test_incremental_on_large_graphs(seed: int) -> None:
    graph = _uniform_graph(seed, 60_000, 60_000, max_degree=6)
    curve = matching.dc_curve(graph, 20)
    for ell in (1, 2, 3, 5):
        assert curve[ell - 1] == matching.dc_value(graph, ell, method="flow")


DIRECTIONS = {"auto": AUTO, "forward": FORWARD, "backward": BACKWARD}


#: No item degrees and transpose given: the kernel builds them on first use.
def _curve(run, graph: PersonItemGraph, ell_max: int, directions: int, given=None):
    """(sizes, owner) of ``run`` (a form of ``_exact_curve``) in a fresh workspace, with the
    transpose built inside or ``given``."""
    work = _workspace.interpreted(graph.indptr, graph.n_items, graph.n_pairs, ell_max)
    if given is not None:
        work = (*work[:5], *given)
    args = (graph.indptr, graph.indices, graph.n_items, ell_max, directions)
    points = run(*args, *work, given is not None)
    return work[3][: max(points, 1)], work[2]


def _check_assignment(graph: PersonItemGraph, owner: np.ndarray, ell: int, size: int) -> None:
    """``owner`` gives each item to one of its holders, at most ℓ items each, ``size`` in all."""
    held = owner >= 0
    assert int(held.sum()) == size
    for item in np.flatnonzero(held):
        assert item in graph.indices[graph.indptr[owner[item]] : graph.indptr[owner[item] + 1]]
    assert np.bincount(owner[held], minlength=graph.n_persons).max(initial=0) <= ell


@settings(max_examples=200)
@given(graphs(max_persons=9, max_items=6), st.sampled_from(sorted(DIRECTIONS)))
def test_every_phase_direction_gives_the_exact_curve(graph: PersonItemGraph, name: str) -> None:
    # More persons than items: many wait for few free items, where the backward phases help.
    expected = matching.dc_curve(graph, 6, method="flow")
    sizes, owner = _curve(_exact_curve.interpreted, graph, 6, DIRECTIONS[name])
    assert fill_curve(sizes, 6).tolist() == expected.tolist()
    _check_assignment(graph, owner, sizes.size, int(sizes[-1]))


@pytest.mark.parametrize("seed", range(4))
def test_phase_directions_agree_on_contested_graphs(seed: int) -> None:
    # Ten times more persons than items (Reddit-like at ℓ = 1: half the persons wait for a
    # few free items): the compiled kernel in every direction, against Dinic's max-flow.
    # Each with the transpose built inside the kernel and given by the two-thread builder.
    graph = _uniform_graph(seed, 4000, 400, max_degree=12)
    expected = matching.dc_curve(graph, 15, method="flow")
    given = _transpose_in_halves(graph.indptr, graph.indices, graph.n_items)
    for directions in DIRECTIONS.values():
        for transpose in (None, given):
            sizes, owner = _curve(_exact_curve, graph, 15, directions, transpose)
            assert fill_curve(sizes, 15).tolist() == expected.tolist()
            _check_assignment(graph, owner, sizes.size, int(sizes[-1]))


@given(graphs(max_persons=30, max_items=12))
def test_two_thread_transpose_equals_the_one_thread_transpose(graph: PersonItemGraph) -> None:
    degree, item_indptr, holders = _transpose_in_halves(graph.indptr, graph.indices, graph.n_items)
    assert degree.tolist() == np.bincount(graph.indices, minlength=graph.n_items).tolist()
    expected_indptr = np.empty(graph.n_items + 1, np.int64)
    expected_holders = np.empty(graph.n_pairs, np.int32)
    _transpose(graph.indptr, graph.indices, degree, expected_indptr, expected_holders)
    assert item_indptr.tolist() == expected_indptr.tolist()
    assert holders.tolist() == expected_holders.tolist()  # holders of each item by person
