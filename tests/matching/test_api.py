"""The public entry points: parameters, edge cases, witnesses."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import matching
from dpcount import PersonItemGraph
from dpcount.errors import DataError, InvalidParameterError
from matching.flow import flow_network
from matching.networkx_flow import SINK, SOURCE, networkx_flow
from tests.strategies import graphs

ALL = tuple(m for m in matching.METHODS if m != "auto")


def _curve(graph, ell_max, method):
    return matching.dc_curve(graph, ell_max, method=method, rng=0)


@pytest.mark.parametrize("bad", [0, -1, 2.0, 1.5, "3", True, None, 2**31])
def test_bad_ell_is_rejected(bad) -> None:
    graph = PersonItemGraph.from_sets({"a": {1}})
    with pytest.raises(InvalidParameterError, match="ell"):
        matching.dc_value(graph, bad)
    with pytest.raises(InvalidParameterError, match="ell_max"):
        matching.dc_curve(graph, bad)
    with pytest.raises(InvalidParameterError, match="ell"):
        matching.contributions(graph, bad)


def test_unknown_method_lists_the_valid_ones() -> None:
    graph = PersonItemGraph.from_sets({"a": {1}})
    with pytest.raises(InvalidParameterError, match=r"'incremental'.*'greedy'.*'sampling'"):
        matching.dc_curve(graph, 3, method="dinic")
    with pytest.raises(InvalidParameterError, match="PersonItemGraph"):
        matching.dc_curve({"a": {1}}, 3)  # type: ignore[arg-type]


def test_numpy_integers_are_accepted() -> None:
    graph = PersonItemGraph.from_sets({"a": {1, 2}})
    assert matching.dc_value(graph, np.int64(1)) == 1
    assert matching.dc_curve(graph, np.int32(2)).tolist() == [1, 2]


@pytest.mark.parametrize("method", ALL)
def test_empty_graph(method: str) -> None:
    graph = PersonItemGraph.from_sets({})
    assert _curve(graph, 4, method).tolist() == [0, 0, 0, 0]
    assert matching.dc_value(graph, 2, method=method, rng=0) == 0
    witness = matching.contributions(graph, 2, method=method, rng=0)
    assert witness.value == 0 and witness.to_dict() == {}


@pytest.mark.parametrize("method", ALL)
def test_persons_without_items(method: str) -> None:
    graph = PersonItemGraph.from_sets({"a": set(), "b": {"x", "y"}, "c": set()})
    assert _curve(graph, 3, method).tolist() == [1, 2, 2]
    assert matching.contributions(graph, 3, method=method, rng=0).to_dict() == {
        "a": [],
        "b": ["x", "y"],
        "c": [],
    }


@pytest.mark.parametrize("method", ALL)
def test_one_person_one_item_and_large_ell(method: str) -> None:
    one = PersonItemGraph.from_sets({"a": {"x"}})
    assert _curve(one, 1, method).tolist() == [1]
    assert matching.dc_value(one, 2**31 - 1, method=method, rng=0) == 1
    many = PersonItemGraph.from_sets({"a": {"x"}, "b": {"x"}, "c": {"x"}})
    assert _curve(many, 3, method).tolist() == [1, 1, 1]
    star = PersonItemGraph.from_sets({"a": set(range(5))})
    assert _curve(star, 7, method).tolist() == [1, 2, 3, 4, 5, 5, 5]
    assert matching.dc_value(star, 10**6, method=method, rng=0) == 5


def test_flow_capacities_are_int32_and_capped() -> None:
    # SciPy wraps int64 capacities above 2³¹ − 1 (algorithms.md §1): build int32, cap at degree.
    graph = PersonItemGraph.from_sets({"a": {1, 2, 3}, "b": {1}})
    net = flow_network(graph, 2**31 - 1)
    assert net.dtype == np.int32
    assert net[[0], [1, 2]].tolist() == [3, 1]
    assert matching.dc_value(graph, 2**31 - 1, method="flow") == 3
    with pytest.raises(InvalidParameterError, match="at most 2147483647"):
        matching.dc_value(graph, 2**31, method="flow")


def test_networkx_flow_dict_is_a_valid_flow() -> None:
    graph = PersonItemGraph.from_sets({"ann": {"x", "y"}, "bob": {"x"}, "cy": {"x"}})
    value, flow = networkx_flow(graph, 1)
    assert value == 2
    assert sum(flow[SOURCE].values()) == value == sum(f[SINK] for f in flow.values() if SINK in f)
    assert flow[("person", "ann")][("item", "y")] == 1


@settings(max_examples=120)
@given(graphs(max_persons=7, max_items=8), st.integers(1, 5), st.sampled_from(ALL))
def test_witnesses_are_valid_and_have_the_curve_value(graph, ell, method) -> None:
    witness = matching.contributions(graph, ell, method=method, rng=3)
    witness.check()
    assert witness.method == method and witness.ell == ell
    assert witness.value == matching.dc_value(graph, ell, method=method, rng=3)
    assert witness.value == matching.dc_curve(graph, ell, method=method, rng=3)[-1]
    loads = witness.loads()
    assert loads.sum() == witness.value and np.all(loads <= ell)
    as_dict = witness.to_dict()
    assert sum(len(v) for v in as_dict.values()) == witness.value
    for label, items in as_dict.items():
        assert set(items) <= set(graph.items_of(label).tolist())


def test_contributions_result_object() -> None:
    graph = PersonItemGraph.from_sets({"ann": {"x", "y"}, "bob": {"x"}})
    witness = matching.contributions(graph, 1)  # the default is "auto", as for dc_curve
    assert repr(witness) == (
        "Contributions(ell=1, method='incremental', value=2, n_persons=2, n_items=2)"
    )
    assert witness.items_of(0).tolist() == [1] and witness.items_of(1).tolist() == [0]
    assert [x.tolist() for x in witness.pairs()] == [[1, 0], [0, 1]]
    with pytest.raises(ValueError, match="read-only"):
        witness.owner[0] = 1
    with pytest.raises(AttributeError):
        witness.ell = 2  # type: ignore[misc]
    assert matching.contributions(graph, 1, method="auto").method == "incremental"


def test_check_rejects_invalid_witnesses() -> None:
    graph = PersonItemGraph.from_sets({"ann": {"x", "y"}, "bob": {"x"}})
    with pytest.raises(DataError, match="not held"):
        matching.Contributions(graph, 2, "flow", np.array([-1, 1])).check()
    with pytest.raises(DataError, match="more than ell=1"):
        matching.Contributions(graph, 1, "flow", np.array([0, 0])).check()
    with pytest.raises(DataError, match="person ids"):
        matching.Contributions(graph, 1, "flow", np.array([5, -1])).check()
    with pytest.raises(DataError, match="one entry per item"):
        matching.Contributions(graph, 1, "flow", np.array([0])).check()


def test_input_is_not_modified() -> None:
    graph = PersonItemGraph.from_sets({"a": {1, 2}, "b": {2, 3}})
    before = (graph.indptr.copy(), graph.indices.copy())
    for method in ALL:
        _curve(graph, 4, method)
        matching.contributions(graph, 2, method=method, rng=0)
    assert np.array_equal(graph.indptr, before[0]) and np.array_equal(graph.indices, before[1])
