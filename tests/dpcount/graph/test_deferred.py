"""String labels read from files stay Arrow arrays until first read, invisibly to users."""

from __future__ import annotations

import pickle

import numpy as np
import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from dpcount import DataError, PersonItemGraph, read_pairs
from dpcount.graph import graph_from_rows
from dpcount.graph.deferred import DeferredLabels
from mechanisms import dp_distinct_count

PERSONS = ["bob", "ann", "bob", "cy", "ann", "dé"]
ITEMS = ["y", "x", "x", "z", "x", "😀"]


@pytest.fixture
def graph(tmp_path) -> PersonItemGraph:
    path = tmp_path / "pairs.parquet"
    pq.write_table(pa.table({"person": PERSONS, "item": ITEMS}), path)
    return read_pairs(path)


def test_labels_are_deferred_until_read(graph: PersonItemGraph) -> None:
    assert isinstance(graph._person_labels, DeferredLabels)
    assert isinstance(graph._item_labels, DeferredLabels)
    assert (graph.n_persons, graph.n_items, graph.n_pairs) == (4, 4, 5)
    dp_distinct_count(graph, 1.0, rng=0)  # counting never reads them
    assert isinstance(graph._item_labels, DeferredLabels)
    labels = graph.item_labels
    assert labels.tolist() == ["x", "y", "z", "😀"] and labels.dtype == object
    assert not labels.flags.writeable
    assert graph.item_labels is labels  # converted once, then kept
    assert isinstance(graph._person_labels, DeferredLabels)


def test_a_deferred_graph_equals_the_one_built_in_memory(graph: PersonItemGraph) -> None:
    expected = PersonItemGraph.from_pairs(PERSONS, ITEMS)
    assert graph == expected
    assert pickle.loads(pickle.dumps(graph)) == expected
    assert graph.person_index("cy") == expected.person_index("cy")
    assert graph.items_of("bob").tolist() == ["x", "y"]


def test_pickling_converts_deferred_labels(graph: PersonItemGraph) -> None:
    restored = pickle.loads(pickle.dumps(graph))
    assert isinstance(restored._person_labels, np.ndarray)
    assert restored.person_labels.tolist() == ["ann", "bob", "cy", "dé"]


def test_unsorted_deferred_labels_are_refused() -> None:
    indptr, indices = np.array([0, 1, 2], np.int64), np.array([0, 0], np.int32)
    items = DeferredLabels(pa.array(["x"]))
    for persons in (["b", "a"], ["a", "a"]):
        with pytest.raises(DataError, match="sorted and unique"):
            graph_from_rows(
                indptr, indices, DeferredLabels(pa.array(persons)), items, all_items_held=True
            )
    persons = DeferredLabels(pa.array(["a", "b"]))
    graph = graph_from_rows(indptr, indices, persons, items, all_items_held=True)
    assert graph.person_labels.tolist() == ["a", "b"]
