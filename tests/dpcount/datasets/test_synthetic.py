"""The synthetic generator and the Reddit-like / fashion-like presets."""

from __future__ import annotations

import itertools
import time

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy import stats

import matching
from dpcount import InvalidParameterError
from dpcount.datasets import fashion_like, reddit_like, synthetic
from dpcount.datasets._synthetic import (
    _REDDIT,
    _head_and_tail_draws,
    _sorted_uniforms,
    _tail_fraction,
    _zipf_cdf,
)
from mechanisms.distinct_count import dp_distinct_count


def _within(value: float, target: float, tolerance: float = 0.10) -> bool:
    return abs(value - target) <= tolerance * target


def _single_holder_degrees(g) -> np.ndarray:
    """The degree of the holder of each item that only one person holds."""
    holder_degree = np.repeat(g.degrees(), np.diff(g.indptr))
    return holder_degree[g.item_degrees()[g.indices] == 1]


def _deficit(g, curve: np.ndarray, ell: int) -> float:
    """How far DC(D;ℓ) lies below DC(D), as a fraction of DC(D)."""
    return 1 - curve[ell - 1] / g.n_items


@settings(max_examples=30, deadline=None)
@given(
    n_persons=st.integers(1, 60),
    n_items=st.integers(1, 80),
    data=st.data(),
    zipf_exponent=st.sampled_from([0.0, 0.7, 1.0, 2.5]),
    tail_share=st.sampled_from([0.0, 0.3, 1.0]),
    tail_exponent=st.sampled_from([0.0, 1.0, 2.0]),
    seed=st.integers(0, 2**32),
)
def test_synthetic_structure(
    n_persons, n_items, data, zipf_exponent, tail_share, tail_exponent, seed
):
    degree_max = data.draw(st.integers(1, n_items))
    degree_median = data.draw(st.integers(1, degree_max))
    tail_items = data.draw(st.integers(1 if tail_share else 0, n_items - 1)) if n_items > 1 else 0
    kwargs = dict(
        degree_median=degree_median,
        degree_max=degree_max,
        zipf_exponent=zipf_exponent,
        seed=seed,
        tail_items=tail_items,
        tail_share=tail_share if tail_items else 0.0,
        tail_exponent=tail_exponent,
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
        dict(tail_items=-1),
        dict(tail_items=100),
        dict(tail_items=2.5),
        dict(tail_items=True),
        dict(tail_share=0.1),  # without tail items
        dict(tail_items=10, tail_share=1.5),
        dict(tail_items=10, tail_share=-0.1),
        dict(tail_items=10, tail_share=float("nan")),
        dict(tail_items=10, tail_share="0.1"),
        dict(tail_items=10, tail_share=0.1, tail_exponent=-1.0),
        dict(tail_items=10, tail_share=0.1, tail_exponent=float("inf")),
    ],
)
def test_invalid_parameters(kwargs):
    params = dict(
        n_persons=10, n_items=100, degree_median=4, degree_max=40, zipf_exponent=1.0, seed=0
    )
    with pytest.raises(InvalidParameterError):
        synthetic(**(params | kwargs))


def test_no_tail_is_the_plain_zipf_model():
    kwargs = dict(degree_median=4, degree_max=40, zipf_exponent=1.0, seed=3)
    plain = synthetic(300, 200, **kwargs)
    assert synthetic(300, 200, tail_items=0, tail_share=0.0, **kwargs) == plain
    # a tail nobody draws from only shrinks the head
    unused = synthetic(300, 250, tail_items=50, **kwargs)
    assert unused.n_items <= 200 and np.array_equal(unused.degrees(), plain.degrees())


def test_tail_fraction_grows_with_degree():
    degrees = np.array([10, 100, 1000])
    assert _tail_fraction(degrees, 1000, 0.05, 1.0).tolist() == pytest.approx([5e-4, 5e-3, 0.05])
    assert _tail_fraction(degrees, 1000, 0.05, 0.0).tolist() == [0.05, 0.05, 0.05]


def test_head_and_tail_draws_follow_the_tail_fraction():
    rng = np.random.default_rng(4)
    degrees = np.repeat([20, 200], 2000)
    fraction = _tail_fraction(degrees, 200, 0.1, 1.0)  # 1% and 10%
    persons, ranks = _head_and_tail_draws(rng, degrees, fraction, _zipf_cdf(1000, 1.0), 50_000)
    assert np.array_equal(np.bincount(persons), degrees)  # every person gets its degree
    keys = persons * 100_000 + ranks
    assert np.unique(keys).size == keys.size  # distinct items per person
    tail_per_person = np.bincount(persons[ranks >= 1000], minlength=degrees.size)
    assert tail_per_person[:2000].mean() == pytest.approx(0.2, rel=0.15)
    assert tail_per_person[2000:].mean() == pytest.approx(20, rel=0.05)


def test_tail_counts_are_clipped_to_fit():
    # a person of degree 40 among 10 head and 30 tail items takes exactly 30 tail items
    full = dict(degree_median=35, degree_max=40, tail_items=30, tail_share=1.0)
    g = synthetic(50, 40, zipf_exponent=1.0, **full)
    assert g.degrees().max() == 40 and g.n_items == 40
    # everybody wants only tail items, but there are 5: the rest comes from the head
    few = dict(degree_median=8, degree_max=12, tail_items=5, tail_share=1.0, tail_exponent=0.0)
    g = synthetic(20, 40, zipf_exponent=1.0, **few)
    assert g.degrees().max() == 12 and g.degrees().min() >= 1


def test_tail_items_belong_to_heavy_persons_and_lower_dc_at_small_ell():
    # The Reddit preset's laws at 5% of its persons *and* items, so that, as at full scale,
    # every head item has many holders: the structure then comes from the tail alone.
    small = _REDDIT | dict(n_persons=11_169, n_items=8_235, tail_items=4_000)
    with_tail = synthetic(**small, seed=0)
    without = synthetic(**(small | dict(tail_share=0.0)), seed=0)
    exact = matching.dc_curve(with_tail, 100)
    assert matching.dc_curve(without, 1)[0] == without.n_items  # DC(D;1) = DC(D)
    assert _deficit(with_tail, exact, 1) > 0.03
    assert exact[-1] == with_tail.n_items  # every tail item has a holder with spare room
    lone = _single_holder_degrees(with_tail)
    assert lone.size > 500
    assert np.median(lone) > 4 * with_tail.degrees().mean()
    sampled = matching.dc_curve(with_tail, 96, method="sampling", rng=0)
    assert _deficit(with_tail, sampled, 96) > 0.03  # sampling loses rare items of heavy persons
    # rare items must not be recognisable from their labels (the greedy's item order)
    rho = stats.spearmanr(np.arange(with_tail.n_items), with_tail.item_degrees()).statistic
    assert abs(rho) < 0.1


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
    assert _within(g.n_pairs, 8_533) and _within(g.n_items, 1_450)
    assert np.median(g.degrees()) == 14 and g.degrees().max() == 139
    assert fashion_like(seed=0) == g and fashion_like(seed=1) != g


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_fashion_like_curve_shape(seed):
    # Knop & Steinke, Table 4: DC(D;ℓ) is ~9% below DC(D) at ℓ = 9 and ~1.5% below at ℓ = 17;
    # sampling ℓ = 41 items per person loses ~13%; "Max Utility Matching" picks ℓ = 17.
    g = fashion_like(seed=seed)
    exact = matching.dc_curve(g, 100)
    assert 0.04 < _deficit(g, exact, 9) < 0.15
    assert 0.002 < _deficit(g, exact, 17) < 0.04
    sampled = matching.dc_curve(g, 41, method="sampling", rng=0)
    assert 0.06 < _deficit(g, sampled, 41) < 0.20
    utility = exact - np.arange(1, 101) * np.log(1 / (2 * 0.001))
    assert 10 <= np.argmax(utility) + 1 <= 25


def test_reddit_like_small_scale():
    g = reddit_like(scale_factor=0.01)
    assert g.n_persons == 2_234
    assert _within(float(np.median(g.degrees())), 18)
    assert g.degrees().max() == 1_724
    assert _within(g.n_pairs, 7_117_494 * 0.01)
    assert reddit_like(scale_factor=0.01, seed=0) == g


@pytest.mark.parametrize("scale", [0, -1, float("inf"), "1"])
def test_preset_scale_checked(scale):
    with pytest.raises(InvalidParameterError, match="scale"):
        fashion_like(scale_factor=scale)


@pytest.mark.slow
def test_reddit_like_full_scale():
    start = time.perf_counter()
    g = reddit_like()
    elapsed = time.perf_counter() - start
    assert g.n_persons == 223_388
    assert _within(g.n_pairs, 7_117_494, 0.05) and _within(g.n_items, 102_835, 0.05)
    assert np.median(g.degrees()) == 18 and g.degrees().max() == 1_724
    assert elapsed < 30  # a few seconds on a laptop; generous for shared CI machines


@pytest.mark.slow
@pytest.mark.parametrize("seed", [0, 1, 2])
def test_reddit_like_curve_shape(seed):
    # Knop & Steinke, Table 6: GEM with exact matching picks ℓ̂ with median 18.5 (10th-90th
    # percentile 14-30), where DC(D;ℓ̂) is ~0.3% below DC(D); sampling at ℓ = 96 lies ~7% below.
    g = reddit_like(seed=seed)
    exact = matching.dc_curve(g, 100)
    assert _deficit(g, exact, 1) > 0.03  # DC(D;1) clearly below DC(D)
    assert _deficit(g, exact, 10) > 0.005  # not within 0.5% before ℓ = 10 …
    assert _deficit(g, exact, 15) > 0.003  # … nor within 0.3% before ℓ = 15 …
    assert _deficit(g, exact, 35) < 0.003  # … but by ℓ = 35
    assert np.all(np.diff(exact) >= 0)
    sampled = matching.dc_curve(g, 96, method="sampling", rng=0)
    assert 0.04 < _deficit(g, sampled, 96) < 0.10
    if seed == 0:  # ~0.4 s per release; the curve is recomputed each time
        ells = [dp_distinct_count(g, 1.0, rng=s).ell for s in range(20)]
        assert 10 <= np.median(ells) <= 30
