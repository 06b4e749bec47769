"""Small graphs run the kernels interpreted; the result must not depend on that choice.

``dpcount.common.jit`` runs a kernel's own code in the interpreter for graphs below
``SMALL_GRAPH_PAIRS`` pairs (no compilation on a first call) and compiled above.  These tests
hold both forms to each other and to every exact method, for every ℓ.
"""

from __future__ import annotations

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

import matching
from dpcount import PersonItemGraph
from dpcount.common.hashing import SEED, _ranks_kernel, hash_word, label_keys
from dpcount.datasets import reddit_like
from matching._common import SMALL_GRAPH_PAIRS, fill_curve
from matching.greedy import _greedy_rounds
from matching.incremental import _incremental_kernel
from matching.sampling import _best_ranks
from tests.strategies import graphs

ELL_MAX = 8
EXACT = ("incremental", "flow", "hopcroft_karp", "igraph")


def _both_forms(kernel, graph: PersonItemGraph, ell: int):
    args = (graph.indptr, graph.indices, graph.n_items, ell)
    return kernel.interpreted(*args), kernel.compiled(*args)


@settings(max_examples=120, deadline=None)
@given(graphs(max_persons=9, max_items=10))
def test_interpreted_and_compiled_kernels_agree_with_every_exact_method(
    graph: PersonItemGraph,
) -> None:
    for ell in range(1, ELL_MAX + 1):
        (small_sizes, small_owner), (sizes, owner) = _both_forms(_incremental_kernel, graph, ell)
        assert small_sizes.tolist() == sizes.tolist() and small_owner.tolist() == owner.tolist()
        expected = int(fill_curve(sizes, ell)[-1])
        for method in (*EXACT, "auto"):
            assert matching.dc_value(graph, ell, method=method) == expected, (method, ell)
        (small_sizes, small_taken), (sizes, taken) = _both_forms(_greedy_rounds, graph, ell)
        assert small_sizes.tolist() == sizes.tolist() and small_taken.tolist() == taken.tolist()
    curve = matching.dc_curve(graph, ELL_MAX)
    for method in EXACT:
        assert matching.dc_curve(graph, ELL_MAX, method=method).tolist() == curve.tolist()


def test_forms_agree_on_reddit_shaped_graphs() -> None:
    for scale in (0.0003, 0.001):
        graph = reddit_like(scale, seed=3)
        for ell in (1, 2, 5, 30):
            (a, b), (c, d) = _both_forms(_incremental_kernel, graph, ell)
            assert np.array_equal(a, c) and np.array_equal(b, d), (scale, ell)
            (a, b), (c, d) = _both_forms(_greedy_rounds, graph, ell)
            assert np.array_equal(a, c) and np.array_equal(b, d), (scale, ell)


def test_large_graphs_use_the_compiled_kernel() -> None:
    n = SMALL_GRAPH_PAIRS // 4 + 1  # 4 items per person: just above the threshold
    persons = np.repeat(np.arange(n), 4)
    items = (persons + np.tile(np.arange(4), n)) % (n // 2)
    graph = PersonItemGraph.from_pairs(persons, items)
    assert graph.n_pairs >= SMALL_GRAPH_PAIRS
    assert _incremental_kernel.select(graph.n_pairs) is _incremental_kernel.compiled
    assert matching.dc_curve(graph, 3).tolist() == matching.dc_curve(graph, 3, "flow").tolist()


@settings(max_examples=60, deadline=None)
@given(graphs(max_persons=9, max_items=10), st.integers(0, 2**64 - 1))
def test_sampling_kernels_agree_interpreted_and_compiled(graph: PersonItemGraph, key: int) -> None:
    with np.errstate(over="ignore"):
        key_seed = hash_word.interpreted(np.uint64(key), SEED)
        person_seeds = hash_word.interpreted(label_keys(graph.person_labels), key_seed)
        args = (graph.indptr, graph.indices, person_seeds, label_keys(graph.item_labels))
        small = _ranks_kernel.interpreted(*args)
    ranks = _ranks_kernel.compiled(*args)
    assert small.tolist() == ranks.tolist()
    for cap in (1, 3, 8):
        best = (graph.indices, ranks, graph.n_items, cap)
        assert _best_ranks.interpreted(*best).tolist() == _best_ranks.compiled(*best).tolist()
