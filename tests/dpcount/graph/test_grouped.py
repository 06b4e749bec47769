"""Tests of GroupedGraph: construction, order rules, restrictions, bad input."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from dpcount.errors import DataError, InvalidParameterError
from dpcount.graph import GroupedGraph, PersonItemGraph, grouped_from_codes

triples = st.lists(
    st.tuples(st.integers(0, 5), st.sampled_from("xyz"), st.integers(0, 7)),
    min_size=1,
    max_size=40,
)


def _graph(rows):
    return GroupedGraph.from_triples(*zip(*rows, strict=True))


@settings(max_examples=60, deadline=None)
@given(triples)
def test_each_group_equals_its_person_item_graph(rows):
    g = _graph(rows)
    assert g.n_triples == len(set(rows))
    for label in g.group_labels:
        pairs = {(p, i) for p, gg, i in rows if gg == label}
        expected = PersonItemGraph.from_pairs(*zip(*pairs, strict=True))
        assert g.group(label) == expected
    truth = [len({i for _, gg, i in rows if gg == label}) for label in g.group_labels]
    assert g.distinct_counts().tolist() == truth


@settings(max_examples=30, deadline=None)
@given(triples)
def test_triples_round_trip_and_labels_sorted(rows):
    g = _graph(rows)
    p, gr, i = g.triples()
    back = set(
        zip(
            g.person_labels[p].tolist(),
            g.group_labels[gr].tolist(),
            g.item_labels[i].tolist(),
            strict=True,
        )
    )
    assert back == set(rows)
    for labels in (g.person_labels, g.group_labels, g.item_labels):
        assert list(labels) == sorted(set(labels.tolist()))


def test_select_and_keep_groups():
    rows = [("p", grp, 1) for grp in "abcde"] + [("q", "a", 2)]
    g = _graph(rows)
    assert g.select_groups(["b", "a", "nope"]).group_labels.tolist() == ["a", "b"]
    kept = g.keep_groups(2, key=3)
    persons, _, _ = kept.triples()
    assert np.bincount(persons).tolist()[0] == 2  # p keeps 2 of its 5 groups
    assert kept.keep_groups(2, key=3) == kept  # already bounded: nothing changes
    with pytest.raises(InvalidParameterError, match="max_groups"):
        g.keep_groups(0, key=3)


def test_pickle_round_trip():
    import pickle

    g = _graph([(1, "a", 1), (2, "b", 3)])
    back = pickle.loads(pickle.dumps(g))
    assert back == g and not back.indices.flags.writeable


def test_wide_key_space_uses_the_three_column_sort():
    # 2^21 labels on each side: (group, person, item) no longer fits one int64 key.
    big = np.arange(2**21)
    g = grouped_from_codes(
        np.array([5, 5, 1]), np.array([2, 2, 0]), np.array([9, 9, 4]), big, big, big
    )
    assert [a.tolist() for a in g.triples()] == [[1, 5], [0, 2], [4, 9]]


def test_bad_input():
    with pytest.raises(DataError, match="differ in length"):
        GroupedGraph.from_triples([1, 2], ["a"], [1, 2])
    with pytest.raises(DataError, match="null"):
        GroupedGraph.from_triples([1], [None], [1])
    with pytest.raises(DataError, match="mix label types"):
        GroupedGraph.from_triples([1, 2], ["a", 3], [1, 2])
    pd = pytest.importorskip("pandas")
    with pytest.raises(DataError, match="group column 'forum' not found"):
        GroupedGraph.from_dataframe(pd.DataFrame({"u": [1], "w": [2]}), "u", "forum", "w")
    with pytest.raises(InvalidParameterError, match="no group"):
        _graph([(1, "a", 1)]).group("b")
    with pytest.raises(AttributeError, match="immutable"):
        _graph([(1, "a", 1)]).n = 3  # type: ignore[misc]
