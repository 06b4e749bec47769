"""The synthetic generator and the Reddit-like / fashion-like presets."""

from __future__ import annotations

import itertools
import time

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy import stats

from dpcount import InvalidParameterError
from dpcount.datasets import fashion_like, reddit_like, synthetic
from dpcount.datasets._synthetic import _sorted_uniforms


def _within(value: float, target: float, tolerance: float = 0.10) -> bool:
    return abs(value - target) <= tolerance * target


@settings(max_examples=30, deadline=None)
@given(
    n_persons=st.integers(1, 60),
    n_items=st.integers(1, 80),
    data=st.data(),
    zipf_exponent=st.sampled_from([0.0, 0.7, 1.0, 2.5]),
    seed=st.integers(0, 2**32),
)
def test_synthetic_structure(n_persons, n_items, data, zipf_exponent, seed):
    degree_max = data.draw(st.integers(1, n_items))
    degree_median = data.draw(st.integers(1, degree_max))
    kwargs = dict(
        degree_median=degree_median,
        degree_max=degree_max,
        zipf_exponent=zipf_exponent,
        seed=seed,
    )
    g = synthetic(n_persons, n_items, **kwargs)
    degrees = g.degrees()
    assert g.n_persons == n_persons
    assert g.person_labels.tolist() == list(range(n_persons))
    assert degrees.min() >= 1 and degrees.max() == degree_max
    assert g.n_items <= n_items
    assert set(g.item_labels.tolist()) <= set(range(n_items))
    assert g.counts is None
    assert synthetic(n_persons, n_items, **kwargs) == g  # deterministic for a seed


def test_degrees_follow_the_parameters():
    g = synthetic(5000, 2000, degree_median=12, degree_max=400, zipf_exponent=1.0, seed=3)
    degrees = g.degrees()
    assert np.median(degrees) == 12
    assert degrees.max() == 400
    assert stats.skew(degrees) > 2  # heavy right tail


def test_degree_mean():
    g = synthetic(
        20_000, 5000, degree_median=10, degree_max=900, zipf_exponent=1.0, degree_mean=16, seed=0
    )
    assert _within(g.degrees().mean(), 16, 0.03)


def test_item_popularity_is_zipf_and_unrelated_to_label_order():
    g = synthetic(4000, 300, degree_median=3, degree_max=30, zipf_exponent=1.2, seed=5)
    popularity = np.sort(g.item_degrees())[::-1]
    # log-log slope of holders against popularity rank is about -s over the head
    ranks = np.arange(1, 31)
    slope = np.polyfit(np.log(ranks), np.log(popularity[:30]), 1)[0]
    assert -1.5 < slope < -0.6
    # the permutation hides popularity from the label order (which the greedy algorithm uses)
    rho = stats.spearmanr(np.arange(g.n_items), g.item_degrees()).statistic
    assert abs(rho) < 0.2


def test_seeds_differ_and_generators_are_accepted():
    a = synthetic(200, 100, degree_median=4, degree_max=40, zipf_exponent=1.0, seed=1)
    b = synthetic(200, 100, degree_median=4, degree_max=40, zipf_exponent=1.0, seed=2)
    assert a != b
    c = synthetic(
        200, 100, degree_median=4, degree_max=40, zipf_exponent=1.0, seed=np.random.default_rng(1)
    )
    assert c == a


def test_degree_equal_to_universe_is_reached():
    # persons who need (almost) every item exercise the uniform fill after the Zipf rounds
    g = synthetic(50, 40, degree_median=35, degree_max=40, zipf_exponent=3.0, seed=0)
    assert g.degrees().max() == 40 and g.n_items == 40


@pytest.mark.parametrize(
    "kwargs",
    [
        dict(n_persons=0),
        dict(n_items=0),
        dict(degree_max=101),
        dict(degree_median=0),
        dict(degree_median=50),
        dict(zipf_exponent=-1.0),
        dict(zipf_exponent=float("nan")),
        dict(degree_mean=3.0),
        dict(seed=-1),
        dict(seed=1.5),
    ],
)
def test_invalid_parameters(kwargs):
    params = dict(
        n_persons=10, n_items=100, degree_median=4, degree_max=40, zipf_exponent=1.0, seed=0
    )
    with pytest.raises(InvalidParameterError):
        synthetic(**(params | kwargs))


def test_sorted_uniforms_are_sorted_uniforms():
    rng = np.random.default_rng(0)
    sizes = np.array([1, 5, 1000, 3, 20_000])
    u = _sorted_uniforms(rng, sizes)
    assert u.size == sizes.sum()
    bounds = np.concatenate([[0], np.cumsum(sizes)])
    for start, end in itertools.pairwise(bounds):
        assert np.all(np.diff(u[start:end]) >= 0)
    assert u.min() > 0 and u.max() < 1
    assert stats.kstest(u, "uniform").pvalue > 1e-3  # fixed seed: deterministic


# --------------------------------------------------------------------------------------------
# Presets
# --------------------------------------------------------------------------------------------


def test_fashion_like_sizes():
    g = fashion_like()
    assert g.n_persons == 404
    assert _within(g.n_pairs, 8_500) and _within(g.n_items, 1_450)
    assert fashion_like(seed=0) == g and fashion_like(seed=1) != g


def test_reddit_like_small_scale():
    g = reddit_like(scale=0.01)
    assert g.n_persons == 2_234
    assert _within(float(np.median(g.degrees())), 18)
    assert g.degrees().max() == 1_700
    assert _within(g.n_pairs, 7_100_000 * 0.01)
    assert reddit_like(scale=0.01, seed=0) == g


@pytest.mark.parametrize("scale", [0, -1, float("inf"), "1"])
def test_preset_scale_checked(scale):
    with pytest.raises(InvalidParameterError, match="scale"):
        fashion_like(scale=scale)


@pytest.mark.slow
def test_reddit_like_full_scale():
    start = time.perf_counter()
    g = reddit_like()
    elapsed = time.perf_counter() - start
    assert g.n_persons == 223_388
    assert _within(g.n_pairs, 7_100_000) and _within(g.n_items, 103_000)
    assert _within(float(np.median(g.degrees())), 18) and _within(g.degrees().max(), 1_700)
    assert elapsed < 30  # a few seconds on a laptop; generous for shared CI machines
