"""Tests of the grouped distinct count: bounding, neighbours, coverage with power, bad input."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import matching
from dpcount.errors import DataError, InvalidParameterError
from dpcount.graph import PersonItemGraph
from mechanisms.grouped_distinct_count import grouped_distinct_count, keep_groups

KEY = b"0123456789abcdef"
triple = st.tuples(st.integers(0, 6), st.sampled_from("abcd"), st.integers(0, 9))


def _group_values(rows, k, ell):
    kept = keep_groups(rows, k, KEY)
    out = {}
    for g in "abcd":
        ps = [p for p, gg, _ in kept if gg == g]
        its = [i for _, gg, i in kept if gg == g]
        graph = PersonItemGraph.from_pairs(ps, its)
        out[g] = int(matching.dc_curve(graph, ell)[ell - 1]) if graph.n_persons else 0
    return out


@settings(max_examples=60, deadline=None)
@given(
    st.lists(triple, max_size=40),
    st.lists(triple, min_size=1, max_size=8),
    st.integers(1, 3),
    st.integers(1, 3),
)
def test_neighbour_changes_at_most_k_groups_by_at_most_ell(rows, extra, k, ell):
    newcomer = [(99, g, i) for _, g, i in extra]  # one added person (label 99)
    before = _group_values(rows, k, ell)
    after = _group_values(rows + newcomer, k, ell)
    changed = [g for g in "abcd" if before[g] != after[g]]
    assert len(changed) <= k
    assert all(0 <= after[g] - before[g] <= ell for g in "abcd")


@settings(max_examples=40, deadline=None)
@given(st.lists(triple, max_size=30), st.lists(triple, max_size=30), st.integers(1, 3))
def test_keyed_choice_of_one_person_ignores_others(mine, others, k):
    me = [(99, g, i) for _, g, i in mine]
    alone = {g for _, g, _ in keep_groups(me, k, KEY)}
    together = {g for p, g, _ in keep_groups(me + others, k, KEY) if p == 99}
    assert alone == together
    assert len(alone) <= k


def _data():
    rng = np.random.default_rng(3)
    return [(p, f"g{p % 3}", int(i)) for p in range(300) for i in rng.integers(0, 400, 3)]


def test_coverage_per_group_and_power_of_half_shift():
    # Per group P[estimate <= DC_g] >= 1 - beta = 0.8; 100 runs x 2 groups: the count of
    # misses is <= Binomial(200, 0.2); P[> 60 misses] < 1e-3 (false-failure rate).
    data = _data()
    truth = {g: len({i for _, gg, i in data if gg == g}) for g in ("g0", "g1")}
    misses = half_misses = 0
    for seed in range(100):
        t = grouped_distinct_count(
            data, 1.0, groups=["g0", "g1"], max_groups=1, beta=0.2, ell_max=6, rng=seed
        )
        for r in t.rows:
            misses += r.estimate > truth[r.group]
            # power: with half the shift the bound misses far more often (~> 35%)
            shift = r.noise_scale * np.log(1 / (2 * 0.2))
            half_misses += r.estimate + shift / 2 > truth[r.group]
    assert misses <= 60
    assert half_misses > misses


def test_absent_public_group_gives_bound_at_most_zero():
    t = grouped_distinct_count(_data(), 1.0, groups=["nope"], max_groups=2, rng=0)
    assert t.rows[0].estimate <= 0
    assert t.to_dict()["rows"][0]["group"] == "nope"
    assert list(t.to_pandas().columns) == ["group", "estimate", "ell", "noise_scale"]
    assert "<table>" in t._repr_html_()


def test_family_wise_splits_beta():
    t = grouped_distinct_count(
        _data(), 1.0, groups=["g0", "g1"], max_groups=1, beta=0.1, family_wise=True, rng=0
    )
    assert t.group_beta == pytest.approx(0.05)


def test_input_not_modified():
    data = _data()
    copy = list(data)
    grouped_distinct_count(data, 1.0, groups=["g0"], max_groups=1, rng=0)
    assert data == copy


@pytest.mark.parametrize(
    ("kwargs", "error", "match"),
    [
        ({"groups": [], "max_groups": 1}, InvalidParameterError, "at least one group"),
        ({"groups": ["a"], "max_groups": 0}, InvalidParameterError, "max_groups"),
        ({"groups": ["a", "a"], "max_groups": 1}, InvalidParameterError, "repeat"),
    ],
)
def test_bad_parameters(kwargs, error, match):
    with pytest.raises(error, match=match):
        grouped_distinct_count([(1, "a", 2)], 1.0, **kwargs)


def test_missing_group_column():
    with pytest.raises(DataError, match="row 1"):
        grouped_distinct_count([(1, 2)], 1.0, groups=["a"], max_groups=1)
