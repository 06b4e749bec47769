"""The set-union mechanisms as functions: parameters, results, validation, edge cases."""

from __future__ import annotations

import math
import pickle
import warnings
from functools import partial

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import mechanisms.set_union as su
from dpcount import PersonItemGraph
from dpcount.errors import InvalidParameterError, PrivacyLeakWarning, UnsafeNoiseWarning
from mechanisms.accounting import PrivacyAccountant
from mechanisms.set_union.calibration import EXACT
from mechanisms.set_union.greedy_policy import greedy_policy
from mechanisms.set_union.sips import round_shares

# Every mechanism runs here, the float-only ones (Policy Gaussian, MAD) and noise="float" forms
# included, to test parameters and results; whether each warns is tested in
# test_exact_release.py.  Some tests use the paper's δ of Table 2, above 1/n for these graphs.
pytestmark = [
    pytest.mark.filterwarnings("ignore::dpcount.errors.UnsafeNoiseWarning"),
    pytest.mark.filterwarnings("ignore::dpcount.errors.LargeDeltaWarning"),
]

MECHANISMS = {
    "count_laplace": su.count_laplace,
    "count_gaussian": su.count_gaussian,
    "weighted_laplace": su.weighted_laplace,
    "weighted_gaussian": su.weighted_gaussian,
    "policy_laplace": su.policy_laplace,
    "policy_gaussian": su.policy_gaussian,
    "max_adaptive_degree": su.max_adaptive_degree,
    "dp_sips": su.dp_sips,
    "dp_sips_mad": partial(su.dp_sips, weighting="mad"),
}
GAUSSIAN_FAMILY = {"weighted_gaussian", "policy_gaussian", "max_adaptive_degree"}


@pytest.fixture(scope="module")
def zipf_graph() -> PersonItemGraph:
    rng = np.random.default_rng(42)
    degrees = rng.geometric(0.15, size=600)
    persons = np.repeat(np.arange(600), degrees)
    p = 1 / np.arange(1, 301)
    items = rng.choice(300, size=persons.size, p=p / p.sum())
    return PersonItemGraph.from_pairs([f"u{k:03d}" for k in persons], [f"w{k:03d}" for k in items])


@pytest.mark.parametrize("name", MECHANISMS)
def test_result_describes_the_release(name: str, zipf_graph: PersonItemGraph) -> None:
    f = MECHANISMS[name]
    r = f(zipf_graph, 1.0, 1e-6, max_items=10, rng=1)
    assert r.mechanism == name.removesuffix("_mad")
    assert r.count == len(r) == r.items.size > 0
    assert np.isin(r.items, zipf_graph.item_labels).all()
    assert np.all(r.items[1:] > r.items[:-1])  # distinct, in label order
    assert (r.epsilon, r.delta, r.max_items) == (1.0, 1e-6, 10)
    assert (r.privacy_loss.epsilon, r.privacy_loss.delta) == (1.0, 1e-6)
    assert r.is_private and r.weights is None
    assert PrivacyAccountant(1.0, 1e-6).spend(r) is r.privacy_loss
    assert name.removesuffix("_mad") in repr(r) and "<table>" in r._repr_html_()
    # Reproducible with a seed; the parameters do not depend on it.
    again = f(zipf_graph, 1.0, 1e-6, max_items=10, rng=1)
    assert np.array_equal(again.items, r.items)
    assert np.array_equal(pickle.loads(pickle.dumps(r)).items, r.items)
    other = f(zipf_graph, 1.0, 1e-6, max_items=10, rng=2)
    assert (other.scale, other.threshold, other.cutoff) == (r.scale, r.threshold, r.cutoff)


@pytest.mark.parametrize("name", MECHANISMS)
def test_return_weights_marks_the_result_non_private(name: str, zipf_graph) -> None:
    r = MECHANISMS[name](zipf_graph, 1.0, 1e-6, max_items=10, rng=1, return_weights=True)
    assert not r.is_private and "NOT PRIVATE" in repr(r)
    assert r.weights.shape[-1] == zipf_graph.n_items and not r.weights.flags.writeable
    assert r.privacy_loss.is_private  # the items themselves are still the private release
    plain = MECHANISMS[name](zipf_graph, 1.0, 1e-6, max_items=10, rng=1)
    assert np.array_equal(plain.items, r.items)  # asking for weights changes no draw


@pytest.mark.parametrize("name", MECHANISMS)
@pytest.mark.parametrize(
    "sets", [{}, {"a": []}, {"a": [], "b": []}], ids=["no persons", "one empty", "two empty"]
)
def test_empty_graph(name: str, sets) -> None:
    r = MECHANISMS[name](PersonItemGraph.from_sets(sets), 1.0, 1e-6, max_items=5, rng=0)
    assert r.count == 0 and r.items.size == 0


@pytest.mark.parametrize("name", MECHANISMS)
@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"epsilon": 0.0}, "epsilon"),
        ({"epsilon": -1.0}, "epsilon"),
        ({"epsilon": math.inf}, "epsilon"),
        ({"epsilon": math.nan}, "epsilon"),
        ({"epsilon": "1"}, "epsilon"),
        ({"delta": 0.0}, "delta"),
        ({"delta": 1.0}, "delta"),
        ({"max_items": 0}, "max_items"),
        ({"max_items": 2.0}, "max_items"),
        ({"max_items": True}, "max_items"),
        ({"rng": -1}, "rng"),
    ],
)
def test_common_validation(name: str, kwargs, message: str) -> None:
    args = {"epsilon": 1.0, "delta": 1e-6, "max_items": 5, "rng": 0} | kwargs
    graph = PersonItemGraph.from_sets({"a": ["x"]})
    with pytest.raises(InvalidParameterError, match=message):
        MECHANISMS[name](graph, **args)


@pytest.mark.parametrize(
    ("call", "message"),
    [
        (lambda g: su.policy_laplace(g, 1, 1e-6, max_items=5, alpha=-1), "alpha"),
        (lambda g: su.policy_gaussian(g, 1, 1e-6, max_items=5, alpha=math.inf), "alpha"),
        (lambda g: su.max_adaptive_degree(g, 1, 1e-6, max_items=5, d_max=0), "d_max"),
        (lambda g: su.max_adaptive_degree(g, 1, 1e-6, max_items=5, d_max=6), "d_max"),
        (lambda g: su.max_adaptive_degree(g, 1, 1e-6, max_items=5, tau_offset=-0.1), "tau_offset"),
        (lambda g: su.dp_sips(g, 1, 1e-6, max_items=5, rounds=0), "rounds"),
        (lambda g: su.dp_sips(g, 1, 1e-6, max_items=5, ratio=0.0), "ratio"),
        (lambda g: su.dp_sips(g, 1, 1e-6, max_items=5, weighting="greedy"), "weighting"),
        (lambda g: su.weighted_gaussian({"a": ["x"]}, 1, 1e-6, max_items=5), "PersonItemGraph"),
    ],
)
def test_specific_validation(call, message: str) -> None:
    with pytest.raises(InvalidParameterError, match=message):
        call(PersonItemGraph.from_sets({"a": ["x"]}))


def test_parameters_follow_the_theorems() -> None:
    g = PersonItemGraph.from_sets({"a": ["x"]})
    eps, delta, d0 = 3.0, math.exp(-10), 100
    sigma = su.gaussian_sigma(eps, delta / 2)
    # The papers' continuous forms (noise="float"; the exact forms: test_fixed_point.py).
    wg = su.weighted_gaussian(g, eps, delta, max_items=d0, noise="float")
    assert (wg.scale, wg.threshold) == (sigma, su.gaussian_threshold(sigma, delta, d0))
    pg = su.policy_gaussian(g, eps, delta, max_items=d0, alpha=5)
    assert pg.cutoff == pytest.approx(pg.threshold + 5 * sigma)
    pl = su.policy_laplace(g, eps, delta, max_items=d0, alpha=2)
    assert pl.scale == 1 / eps and pl.cutoff == pytest.approx(pl.threshold + 2 / eps)
    assert pl.threshold == pytest.approx(4.6473, abs=5e-5)  # docs/algorithms.md §6
    cl = su.count_laplace(g, eps, delta, max_items=d0, noise="float")
    assert cl.scale == d0 / eps
    cg = su.count_gaussian(g, eps, delta, max_items=d0, noise="float")
    assert cg.scale == pytest.approx(10 * sigma, rel=1e-9)
    mad = su.max_adaptive_degree(g, eps, delta, max_items=d0, d_max=30, tau_offset=2)
    assert (mad.scale, mad.threshold) == (wg.scale, wg.threshold)  # same σ, ρ as basic
    assert mad.cutoff == pytest.approx(mad.threshold + 2 * sigma)
    assert dict(mad.parameters) == {"d_max": 30, "tau_offset": 2.0, "sampling": "uniform"}


def test_sips_budget_split_and_single_round() -> None:
    g = PersonItemGraph.from_sets({"a": ["x"]})
    eps, delta, d0 = 1.0, 1e-5, 20
    r = su.dp_sips(g, eps, delta, max_items=d0, rounds=3, ratio=0.3, noise="float")
    shares = round_shares(3, 0.3)
    assert shares == pytest.approx([0.0647482, 0.2158273, 0.7194245], rel=1e-6)
    sigma = su.gaussian_sigma(eps, delta / 2)
    # μ² splits by the shares: Σ 1/σ_i² = 1/σ², so the composition is exactly μ = 1/σ.
    assert sum(1 / x.scale**2 for x in r.rounds) == pytest.approx(1 / sigma**2, rel=1e-12)
    assert sum(x.delta_novel for x in r.rounds) == pytest.approx(delta / 2, rel=1e-12)
    for x, s in zip(r.rounds, shares, strict=True):
        assert x.scale == pytest.approx(sigma / math.sqrt(s))
        assert x.threshold == su.gaussian_threshold(x.scale, 2 * x.delta_novel, d0)
    assert su.balle_wang_delta(sigma, eps) <= delta / 2
    one = su.dp_sips(g, eps, delta, max_items=d0, rounds=1, noise="float")
    wg = su.weighted_gaussian(g, eps, delta, max_items=d0, noise="float")
    assert (one.scale, one.threshold) == (wg.scale, wg.threshold)
    exact_one = su.dp_sips(g, eps, delta, max_items=d0, rounds=1)
    exact_wg = su.weighted_gaussian(g, eps, delta, max_items=d0)
    assert (exact_one.scale, exact_one.threshold) == (exact_wg.scale, exact_wg.threshold)


def test_sips_rounds_release_disjoint_items(zipf_graph) -> None:
    r = su.dp_sips(zipf_graph, 1.0, 1e-6, max_items=5, rng=3, rounds=4, ratio=0.5)
    assert sum(x.released for x in r.rounds) == r.count  # no item is released twice
    assert r.weights is None
    w = su.dp_sips(
        zipf_graph, 1.0, 1e-6, max_items=5, rng=3, rounds=4, ratio=0.5, return_weights=True
    )
    assert w.weights.shape == (4, zipf_graph.n_items)
    # Items released in earlier rounds are gone from every set: in the last round only the
    # items it releases itself are among the released ones with weight.
    last = w.weights[-1][np.searchsorted(zipf_graph.item_labels, w.items)] > 0
    assert int(last.sum()) == w.rounds[-1].released
    assert w.count == r.count


def test_capping_limits_what_a_person_contributes() -> None:
    sets = {f"u{k}": [f"w{j}" for j in range(k % 7 + 1)] for k in range(50)}
    g = PersonItemGraph.from_sets(sets)
    r = su.weighted_laplace(g, 1.0, 1e-6, max_items=3, rng=0, return_weights=True)
    assert r.weights.sum() == pytest.approx(50)  # every person adds exactly ℓ1 mass 1
    c = su.count_gaussian(g, 1.0, 1e-6, max_items=3, rng=0, return_weights=True)
    assert c.weights.sum() == sum(min(k % 7 + 1, 3) for k in range(50))
    # An item nobody kept after capping is not a candidate: it has no weight.
    solo = PersonItemGraph.from_sets({"a": [f"w{j}" for j in range(10)]})
    w = su.weighted_gaussian(solo, 1.0, 1e-6, max_items=2, rng=0, return_weights=True).weights
    assert np.count_nonzero(w) == 2


def test_mechanisms_accept_numpy_integers(zipf_graph) -> None:
    r = su.policy_gaussian(
        zipf_graph, np.float64(1.0), 1e-6, max_items=np.int64(10), rng=np.int64(1)
    )
    assert r.max_items == 10 and isinstance(r.max_items, int)


def test_greedy_policy_refuses_then_warns() -> None:
    g = PersonItemGraph.from_sets({"a": ["x"], "b": ["x"]})
    with pytest.raises(InvalidParameterError, match="allow_non_private"):
        greedy_policy(g, 1.0, 1e-6, max_items=5)
    with pytest.raises(InvalidParameterError, match="allow_non_private"):
        greedy_policy(g, 1.0, 1e-6, max_items=5, allow_non_private="yes")
    with pytest.warns(PrivacyLeakWarning):
        r = greedy_policy(g, 1.0, 1e-6, max_items=5, rng=0, allow_non_private=True)
    assert not r.privacy_loss.is_private and not r.is_private
    assert "NOT PRIVATE" in repr(r)
    with pytest.raises(Exception, match="not differentially private"):
        PrivacyAccountant(10.0, 0.5).spend(r)
    assert not any("greedy" in name for name in su.__all__)  # never offered as a mechanism


def test_floating_point_noise_warns_and_is_not_secure(zipf_graph) -> None:
    """Continuous NumPy noise (noise="float", or a mechanism without an exact form) says so,
    once; exact noise (the default where it exists) is silent and secure."""
    for name, f in MECHANISMS.items():
        calls = [f] if name not in EXACT else [partial(f, noise="float")]
        for call in calls:
            with warnings.catch_warnings(record=True) as caught:
                warnings.simplefilter("always")
                r = call(zipf_graph, 1.0, 1e-6, max_items=5, rng=0)
            assert [w.category for w in caught] == [UnsafeNoiseWarning]
            assert r.secure is False and r.is_private and r.to_dict()["secure"] is False
        if name in EXACT:
            with warnings.catch_warnings():
                warnings.simplefilter("error")
                r = f(zipf_graph, 1.0, 1e-6, max_items=5, rng=0)
            assert r.secure is True and r.to_dict()["secure"] is True


@pytest.mark.parametrize("mechanism", ["policy_laplace", "policy_gaussian"])
def test_policies_accept_the_papers_keyed_hash_order(mechanism):
    mechanism = getattr(su, mechanism)
    sets = {f"u{k:03d}": {"a", "b", f"x{k % 7}"} for k in range(300)}
    graph = PersonItemGraph.from_sets(sets)
    first = mechanism(graph, 1.0, 1e-6, max_items=3, user_order="keyed_hash", rng=4)
    again = mechanism(graph, 1.0, 1e-6, max_items=3, user_order="keyed_hash", rng=4)
    assert first.items.tolist() == again.items.tolist()
    assert {"a", "b"} <= set(first.items.tolist())
    assert first.parameters["user_order"] == "keyed_hash"
    with pytest.raises(InvalidParameterError, match="user_order"):
        mechanism(graph, 1.0, 1e-6, user_order="by-frequency")


@pytest.mark.parametrize("name", MECHANISMS)
def test_keyed_sampling_option(name: str, zipf_graph: PersonItemGraph) -> None:
    """``sampling="keyed"`` is reproducible from the seed and recorded in the result."""
    first = MECHANISMS[name](zipf_graph, 1.0, 1e-6, max_items=5, rng=3, sampling="keyed")
    again = MECHANISMS[name](zipf_graph, 1.0, 1e-6, max_items=5, rng=3, sampling="keyed")
    assert first.items.tolist() == again.items.tolist()
    assert first.parameters["sampling"] == "keyed"
    with pytest.raises(InvalidParameterError, match="sampling"):
        MECHANISMS[name](zipf_graph, 1.0, 1e-6, max_items=5, sampling="hash")


def test_keyed_sampling_keeps_the_subsets_of_the_key_from_the_sampling_stream(zipf_graph):
    """The key is drawn from the sampling stream (the second of order, sampling, noise), as
    dpcount.spark draws it; the weights are those of the keyed subsets."""
    from dpcount.common.rng import draw_key, spawn
    from mechanisms.set_union._bounding import CappedSets, cap_contributions_keyed
    from mechanisms.set_union.weighted import basic_weights

    result = su.weighted_gaussian(
        zipf_graph,
        1.0,
        1e-6,
        max_items=4,
        rng=8,
        sampling="keyed",
        return_weights=True,
        noise="float",
    )
    key = int(draw_key(spawn(8, 3)[1]))
    g = zipf_graph
    capped = cap_contributions_keyed(
        CappedSets.from_graph(g), g.person_labels, g.item_labels, 4, key
    )
    assert np.array_equal(result.weights, basic_weights(capped, 2))
    uniform = su.weighted_gaussian(
        g, 1.0, 1e-6, max_items=4, rng=8, return_weights=True, noise="float"
    )
    assert not np.array_equal(uniform.weights, result.weights)  # the option is not ignored


@settings(max_examples=200, deadline=None)
@given(st.integers(1, 2**20), st.sampled_from([1, 2]))
def test_contribution_units_round_down_to_the_nearest_unit(degree: int, norm: int) -> None:
    """⌊2^30·d^(−1/p)⌋ exactly: d contributions of one person have p-norm ≤ 1, and one more
    unit would exceed it (so the rounding loses less than 2^−30 per holder)."""
    from mechanisms.set_union.weighted import contribution_units

    unit = int(contribution_units(degree, norm)[degree])  # exact integers: no rounding below
    assert degree * unit**norm <= 2 ** (30 * norm) < degree * (unit + 1) ** norm
