"""Properties of PersonItemGraph: constructors agree, CSR invariants, neighbours, conversions."""

from __future__ import annotations

import copy
import pickle
from collections import Counter

import numpy as np
import pandas as pd
import pytest
from hypothesis import given
from hypothesis import strategies as st

from dpcount import DataError, InvalidParameterError, PersonItemGraph
from tests.strategies import graphs, item_sets, neighbours


def _pairs_of(sets: dict) -> tuple[list, list]:
    persons = [p for p, items in sets.items() for _ in items]
    items = [i for held in sets.values() for i in held]
    return persons, items


def _edges(g: PersonItemGraph) -> set[tuple]:
    persons, items = g.pairs()
    return {
        (g.person_labels[p].item(), g.item_labels[i].item())
        for p, i in zip(persons, items, strict=True)
    }


def _expected_edges(sets: dict) -> set[tuple]:
    return {(p, i) for p, held in sets.items() for i in held}


# --------------------------------------------------------------------------------------------
# Construction paths agree
# --------------------------------------------------------------------------------------------


@given(item_sets(), st.randoms(use_true_random=False))
def test_from_pairs_from_sets_from_dataframe_agree(sets, random):
    persons, items = _pairs_of(sets)
    # duplicates and order must not matter
    order = list(range(len(persons))) * 2
    random.shuffle(order)
    shuffled_p = [persons[k] for k in order]
    shuffled_i = [items[k] for k in order]
    empty = [p for p, held in sets.items() if not held]

    from_sets = PersonItemGraph.from_sets(sets)
    from_pairs = PersonItemGraph.from_pairs(shuffled_p, shuffled_i, persons_without_items=empty)
    assert from_pairs == from_sets
    if persons:
        df = pd.DataFrame({"user": shuffled_p, "thing": shuffled_i})
        from_df = PersonItemGraph.from_dataframe(df, person="user", item="thing")
        assert from_df == PersonItemGraph.from_pairs(persons, items)


@given(item_sets())
def test_labels_are_sorted_and_edges_preserved(sets):
    g = PersonItemGraph.from_sets(sets)
    assert g.person_labels.tolist() == sorted(sets)
    assert g.item_labels.tolist() == sorted(set().union(*sets.values()))
    assert _edges(g) == _expected_edges(sets)
    assert g.n_pairs == sum(map(len, sets.values()))
    assert g.n_items == len(set().union(*sets.values()))


# --------------------------------------------------------------------------------------------
# CSR invariants
# --------------------------------------------------------------------------------------------


@given(graphs())
def test_csr_invariants(g):
    assert g.indptr.dtype == np.int64 and g.indptr.shape == (g.n_persons + 1,)
    assert g.indices.dtype == np.int32
    assert g.indptr[0] == 0 and g.indptr[-1] == g.indices.size
    assert np.all(np.diff(g.indptr) >= 0)
    for p in range(g.n_persons):
        row = g.indices[g.indptr[p] : g.indptr[p + 1]]
        assert np.all(np.diff(row) > 0)  # strictly ascending: no duplicate pairs
    assert len(_edges(g)) == g.n_pairs
    assert np.all(g.item_degrees() >= 1)  # every item has a holder
    assert g.degrees().sum() == g.n_pairs == g.item_degrees().sum()
    for labels in (g.person_labels, g.item_labels):
        assert labels.tolist() == sorted(set(labels.tolist()))


@given(graphs())
def test_arrays_are_read_only(g):
    for arr in (g.indptr, g.indices, g.person_labels, g.item_labels):
        assert not arr.flags.writeable
        if arr.size:
            with pytest.raises(ValueError):
                arr[0] = arr[0]
    with pytest.raises(AttributeError):
        g._indptr = None  # type: ignore[misc]


def test_constructor_rejects_broken_csr():
    labels = np.array(["p"]), np.array(["x", "y"])
    with pytest.raises(DataError, match="strictly increasing"):
        PersonItemGraph(np.array([0, 2]), np.array([1, 0]), *labels)
    with pytest.raises(DataError, match="at least one holder"):
        PersonItemGraph(np.array([0, 1]), np.array([0]), *labels)
    with pytest.raises(DataError, match="sorted and unique"):
        PersonItemGraph(np.array([0, 1, 2]), np.array([0, 1]), np.array(["q", "p"]), labels[1])


# --------------------------------------------------------------------------------------------
# Input is not modified
# --------------------------------------------------------------------------------------------


@given(item_sets())
def test_input_is_not_modified(sets):
    before = copy.deepcopy(sets)
    PersonItemGraph.from_sets(sets)
    assert sets == before

    persons, items = _pairs_of(sets)
    p_arr = np.array(persons, dtype=object)
    i_arr = np.array(items, dtype=np.int64)[::-1].copy()
    p_arr = p_arr[::-1].copy()
    copies = p_arr.copy(), i_arr.copy()
    counts = np.arange(1, len(persons) + 1)
    counts_copy = counts.copy()
    PersonItemGraph.from_pairs(p_arr, i_arr, counts=counts)
    assert np.array_equal(p_arr, copies[0]) and np.array_equal(i_arr, copies[1])
    assert np.array_equal(counts, counts_copy)
    assert p_arr.flags.writeable and i_arr.flags.writeable


def test_dataframe_is_not_modified():
    df = pd.DataFrame({"u": ["b", "a", "b"], "w": ["y", "x", "y"], "n": [1, 2, 3]})
    before = df.copy()
    g = PersonItemGraph.from_dataframe(df, person="u", item="w", count="n")
    pd.testing.assert_frame_equal(df, before)
    assert g.counts.tolist() == [2, 4]


# --------------------------------------------------------------------------------------------
# Labels: kinds, nulls
# --------------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("persons", "items"),
    [
        ([1, "1"], ["a", "b"]),
        (["a", "b"], ["x", 2]),
        ([1, 2], [b"x", "y"]),
    ],
)
def test_mixed_label_kinds_rejected(persons, items):
    with pytest.raises(DataError, match="mix label types"):
        PersonItemGraph.from_pairs(persons, items)


def test_mixed_kinds_rejected_in_from_sets_and_with_person():
    with pytest.raises(DataError):
        PersonItemGraph.from_sets({"a": {1}, "b": {"1"}})
    with pytest.raises(DataError):
        PersonItemGraph.from_sets({"a": {"x"}, 2: {"x"}})
    with pytest.raises(DataError):
        PersonItemGraph.from_sets({"a": {1}}).with_person("b", ["z"])


@pytest.mark.parametrize(
    ("persons", "items"),
    [
        ([None, "a"], ["x", "y"]),
        (["a", "b"], ["x", None]),
        ([1.0, float("nan")], ["x", "y"]),
        (["a", "b"], np.array(["2020-01-01", "NaT"], dtype="datetime64[D]")),
        (pd.Series(["a", None]), ["x", "y"]),
        (pd.Series([1, None], dtype="Int64"), ["x", "y"]),
    ],
)
def test_nulls_rejected(persons, items):
    with pytest.raises(DataError, match="null"):
        PersonItemGraph.from_pairs(persons, items)


def test_length_mismatch_and_bad_counts_rejected():
    with pytest.raises(DataError, match="differ in length"):
        PersonItemGraph.from_pairs(["a", "b"], ["x"])
    with pytest.raises(DataError, match="non-negative integers"):
        PersonItemGraph.from_pairs(["a"], ["x"], counts=[-1])
    with pytest.raises(DataError, match="non-negative integers"):
        PersonItemGraph.from_pairs(["a"], ["x"], counts=[1.5])
    with pytest.raises(DataError, match="one per pair"):
        PersonItemGraph.from_pairs(["a"], ["x"], counts=[1, 2])


def test_missing_dataframe_column_lists_columns():
    df = pd.DataFrame({"user": ["a"], "word": ["x"]})
    with pytest.raises(DataError, match=r"'item' not found.*\['user', 'word'\]"):
        PersonItemGraph.from_dataframe(df, person="user", item="item")


def test_label_types_are_kept():
    g = PersonItemGraph.from_pairs(np.array([3, 1], dtype=np.int64), np.array([2.5, 0.5]))
    assert g.person_labels.dtype == np.int64 and g.item_labels.dtype == np.float64
    dates = np.array(["2021-05-01", "2020-01-01"], dtype="datetime64[D]")
    g = PersonItemGraph.from_pairs(["a", "b"], dates)
    assert g.item_labels.dtype == dates.dtype and g.item_labels[0] == dates[1]


# --------------------------------------------------------------------------------------------
# Counts
# --------------------------------------------------------------------------------------------


_counted_pairs = st.lists(
    st.tuples(st.integers(0, 4), st.sampled_from("abcde"), st.integers(0, 5)), max_size=30
)


@given(_counted_pairs)
def test_counts_merge_by_summing(rows):
    persons = [p for p, _, _ in rows]
    items = [i for _, i, _ in rows]
    counts = [c for _, _, c in rows]
    g = PersonItemGraph.from_pairs(persons, items, counts=counts)
    total: Counter = Counter()
    for p, i, c in rows:
        total[(p, i)] += c
    expected = {pair: c for pair, c in total.items() if c > 0}
    got = {}
    ps, its = g.pairs()
    for p, i, c in zip(ps, its, g.counts, strict=True):
        got[(int(g.person_labels[p]), str(g.item_labels[i]))] = int(c)
    assert got == expected
    assert g.person_labels.tolist() == sorted(set(persons))  # zero-count persons stay
    assert set(g.item_labels.tolist()) == {i for _, i in expected}  # zero-count items go
    if g.n_pairs:
        assert g.biadjacency(counts=True).sum() == sum(counts)


def test_counts_from_sets_and_biadjacency_without_counts():
    g = PersonItemGraph.from_sets({"a": {"x": 3}, "b": {"x": 1, "y": 2}})
    assert g.counts.tolist() == [3, 1, 2]
    assert not g.counts.flags.writeable
    plain = PersonItemGraph.from_sets({"a": {"x"}})
    assert plain.counts is None
    with pytest.raises(InvalidParameterError):
        plain.biadjacency(counts=True)


# --------------------------------------------------------------------------------------------
# Neighbours
# --------------------------------------------------------------------------------------------


@given(item_sets(min_persons=1), st.data())
def test_without_persons_equals_rebuilt_graph(sets, data):
    removed = data.draw(st.sets(st.sampled_from(sorted(sets))))
    g = PersonItemGraph.from_sets(sets)
    expected = PersonItemGraph.from_sets({p: s for p, s in sets.items() if p not in removed})
    assert g.without_persons(removed) == expected


@given(item_sets(), st.sets(st.integers(0, 12), max_size=10))
def test_with_person_equals_rebuilt_graph(sets, new_items):
    g = PersonItemGraph.from_sets(sets)
    expected = PersonItemGraph.from_sets({**sets, "new": new_items})
    assert g.with_person("new", sorted(new_items, reverse=True)) == expected


@given(neighbours())
def test_neighbours_differ_by_one_person(pair):
    smaller, larger = pair
    assert larger.n_persons == smaller.n_persons + 1
    assert larger.without_persons(["zz-added"]) == smaller


def test_with_person_counts_and_errors():
    g = PersonItemGraph.from_sets({"a": {"x": 2}})
    h = g.with_person("b", ["x", "y"], counts=[4, 1])
    assert h.counts.tolist() == [2, 4, 1]
    assert g.with_person("c", ["x"]).counts.tolist() == [2, 1]
    with pytest.raises(InvalidParameterError, match="already"):
        g.with_person("a", ["y"])
    with pytest.raises(InvalidParameterError, match="no person"):
        g.without_persons(["zz"])
    with pytest.raises(DataError):
        g.with_person("b", ["x", "y"], counts=[1])


# --------------------------------------------------------------------------------------------
# Conversions
# --------------------------------------------------------------------------------------------


@given(item_sets())
def test_biadjacency_preserves_edges(sets):
    g = PersonItemGraph.from_sets(sets)
    matrix = g.biadjacency()
    assert matrix.shape == (g.n_persons, g.n_items)
    rows, cols = matrix.nonzero()
    got = {(g.person_labels[r], g.item_labels[c].item()) for r, c in zip(rows, cols, strict=True)}
    assert got == _expected_edges(sets)


@given(item_sets())
def test_to_networkx_preserves_edges(sets):
    g = PersonItemGraph.from_sets(sets)
    nx_graph = g.to_networkx()
    persons = {v for v, side in nx_graph.nodes(data="bipartite") if side == 0}
    assert persons == {("person", p) for p in sets}
    edges = set()
    for u, v in nx_graph.edges():
        person, item = (u, v) if u[0] == "person" else (v, u)
        edges.add((person[1], item[1]))
    assert edges == _expected_edges(sets)


@given(item_sets())
def test_to_igraph_preserves_edges(sets):
    g = PersonItemGraph.from_sets(sets)
    ig_graph = g.to_igraph()
    assert ig_graph.vcount() == g.n_persons + g.n_items
    assert ig_graph.vs["type"] == [False] * g.n_persons + [True] * g.n_items
    labels = ig_graph.vs["label"]
    edges = set()
    for u, v in ig_graph.get_edgelist():
        person, item = (u, v) if u < g.n_persons else (v, u)
        edges.add((labels[person], labels[item]))
    assert edges == _expected_edges(sets)


def test_conversions_carry_counts():
    g = PersonItemGraph.from_sets({"a": {"x": 3}})
    assert next(iter(g.to_networkx().edges(data="count")))[2] == 3
    assert g.to_igraph().es["count"] == [3]


# --------------------------------------------------------------------------------------------
# Pickling, repr, summary, lookups
# --------------------------------------------------------------------------------------------


@given(graphs())
def test_pickle_round_trip(g):
    assert pickle.loads(pickle.dumps(g)) == g


def test_unpickled_graph_stays_read_only():
    g = pickle.loads(pickle.dumps(PersonItemGraph.from_sets({"a": {"x": 2}})))
    for arr in (g.indptr, g.indices, g.person_labels, g.item_labels, g.counts):
        assert not arr.flags.writeable


def test_repr():
    assert (
        repr(PersonItemGraph.from_sets({})) == "PersonItemGraph(n_persons=0, n_items=0, n_pairs=0)"
    )
    g = PersonItemGraph.from_pairs(range(1500), [0] * 1500, counts=[1] * 1500)
    assert repr(g) == "PersonItemGraph(n_persons=1,500, n_items=1, n_pairs=1,500, with counts)"


@given(graphs())
def test_summary_matches_arrays(g):
    s = g.summary()
    degrees = g.degrees()
    assert (s.n_persons, s.n_items, s.n_pairs) == (g.n_persons, g.n_items, g.n_pairs)
    assert s.persons_without_items == int((degrees == 0).sum())
    assert s.degree_max == int(degrees.max(initial=0))
    assert s.item_degree_max == int(g.item_degrees().max(initial=0))
    if g.n_persons:
        assert s.degree_median == pytest.approx(float(np.median(degrees)))
    assert s.has_counts is False
    text = str(s)
    assert f"persons                   {g.n_persons:,}" in text
    assert len(text.splitlines()) == 6


def test_empty_graph():
    g = PersonItemGraph.from_sets({})
    assert (g.n_persons, g.n_items, g.n_pairs) == (0, 0, 0)
    assert g.indptr.tolist() == [0]
    assert g.summary().degree_median == 0.0
    assert g.biadjacency().shape == (0, 0)
    assert g.to_networkx().number_of_nodes() == 0
    assert g.to_igraph().vcount() == 0
    assert g.with_person("p", ["x"]) == PersonItemGraph.from_sets({"p": {"x"}})


def test_persons_without_items():
    g = PersonItemGraph.from_sets({"a": set(), "b": {"x"}, "c": []})
    assert g.degrees().tolist() == [0, 1, 0]
    assert g.summary().persons_without_items == 2
    assert g.items_of("a").size == 0
    assert g.without_persons(["b"]) == PersonItemGraph.from_sets({"a": [], "c": []})
    assert g.without_persons(["b"]).n_items == 0


def test_lookups():
    g = PersonItemGraph.from_sets({"b": {"y", "x"}, "a": {"y"}})
    assert g.person_index("b") == 1 and g.item_index("y") == 1
    assert g.items_of("b").tolist() == ["x", "y"]
    with pytest.raises(InvalidParameterError):
        g.item_index(3)
    assert g.degree_quantiles([0, 1]).tolist() == [1.0, 2.0]
    with pytest.raises(InvalidParameterError):
        g.degree_quantiles([1.5])


def test_equality_and_hash():
    a = PersonItemGraph.from_sets({"a": {"x"}})
    assert a == PersonItemGraph.from_pairs(["a"], ["x"])
    assert a != PersonItemGraph.from_sets({"a": {"x": 2}})
    assert a != "not a graph"
    with pytest.raises(TypeError):
        hash(a)


def test_large_uint64_labels():
    labels = np.array([2**63 + 1, 2**63 + 2], dtype=np.uint64)
    g = PersonItemGraph.from_pairs(labels, ["a", "b"])
    assert g.person_labels.dtype == np.uint64
    assert g.person_labels.tolist() == [2**63 + 1, 2**63 + 2]


# --- label and count edge cases found in review ------------------------------------------------


def test_pandas_na_is_reported_as_null():
    pd = pytest.importorskip("pandas")
    with pytest.raises(DataError, match="null"):
        PersonItemGraph.from_pairs(pd.Series(["a", None], dtype="string"), ["x", "y"])


def test_bools_do_not_merge_with_ints():
    # True == 1 in Python; silently merging them would lose a person.
    with pytest.raises(DataError, match="bool"):
        PersonItemGraph.from_pairs([True, 1, 2], ["a", "b", "c"])


def test_counts_are_summed_exactly_beyond_float_precision():
    g = PersonItemGraph.from_pairs(["a", "a"], ["x", "x"], counts=[2**53 + 1, 0])
    assert g.counts.tolist() == [2**53 + 1]


def test_integers_beyond_int64_are_kept_as_python_ints():
    g = PersonItemGraph.from_pairs([2**64, 3], ["a", "b"])
    assert g.person_labels.tolist() == [3, 2**64]


def test_from_sets_refuses_counts_for_only_some_persons():
    with pytest.raises(DataError, match="counts for some persons"):
        PersonItemGraph.from_sets({"a": {"x": 3}, "b": {"y"}})
