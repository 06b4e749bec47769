"""How grouped counts choose ℓ: one ℓ for all groups, per group, or a public ℓ.

Statistical tests state their false-failure rate and have a power check on the same draws
(half the shift must fail); the privacy of the shared choice is checked exactly on GEM's
probabilities, with a power check (the same pair breaks a choice that forgets the factor k).
"""

from __future__ import annotations

import math
import warnings

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy import stats

from dpcount.errors import InvalidParameterError, UnsafeNoiseWarning
from matching.grouped import grouped_curves
from mechanisms.distinct_count import gem_ell
from mechanisms.grouped_counts import grouped_distinct_count
from mechanisms.grouped_ell import plan_ell, shared_curve
from mechanisms.laplace import discrete_shift, laplace_scale
from tests.mechanisms.test_grouped_counts import KEY, _graph, _one_item_each, triple

ALPHA = 1e-4  # false-failure rate of each statistical assertion


def _shared_total(rows, k, ell_max):
    """Σ_g DC_g(D;ℓ) / k over every group of GROUPS after bounding (0 for absent groups)."""
    if not rows:
        return np.zeros(ell_max)
    curves = grouped_curves(_graph(rows).keep_groups(k, KEY), ell_max)
    return shared_curve(curves, k)


@settings(max_examples=60, deadline=None)
@given(
    st.lists(triple, max_size=40),
    st.lists(triple, min_size=1, max_size=12),
    st.integers(1, 4),
    st.integers(1, 4),
)
def test_shared_score_has_sensitivity_ell(rows, extra, k, ell_max):
    # Adding one person (label 99) moves Σ_g DC_g(D;ℓ)/k by at most ℓ for every ℓ (and never
    # down); read backwards it is removing one.
    newcomer = [(99, g, i) for _, g, i in extra]
    before, after = _shared_total(rows, k, ell_max), _shared_total(rows + newcomer, k, ell_max)
    ells = np.arange(1, ell_max + 1)
    assert np.all(after - before >= 0) and np.all(after - before <= ells + 1e-9)


def _shared_probabilities(rows, k, eps_choose, curve_of=shared_curve, ell_max=10):
    """GEM's exact probabilities of the shared choice (ε_count = 1, ε_choose of it)."""
    graph = _graph(rows)
    curves = grouped_curves(graph.keep_groups(k, KEY), ell_max)
    per_row = (1 - eps_choose) / graph.n_groups
    total = curve_of(curves, k)
    return gem_ell(total, ell_max, per_row, eps_choose, 0.05, diagnostics=True)[3]


def test_shared_choice_is_epsilon_choose_dp_exactly():
    # Six groups, k = 6: a newcomer with 10 own items in each group adds exactly kℓ to
    # Σ_g DC_g(D;ℓ) for ℓ ≤ 10, the largest move a neighbour can make.
    groups = "abcdef"
    base = [(p, g, f"{g}{p}") for p in range(3) for g in groups]
    newcomer = [(99, g, f"new{g}{i}") for g in groups for i in range(10)]
    eps = 0.5
    small = _shared_probabilities(base, 6, eps)
    large = _shared_probabilities(base + newcomer, 6, eps)
    assert np.all(np.maximum(small / large, large / small) <= math.exp(eps) * (1 + 1e-12))

    # Power: forgetting to divide the sum by k treats a score of sensitivity kℓ as one of
    # sensitivity ℓ; on the same neighbours the ratio then reaches ≈ 2·e^ε.
    def unscaled(curves, k):
        return curves.sum(axis=0, dtype=np.float64)

    small = _shared_probabilities(base, 6, eps, unscaled)
    large = _shared_probabilities(base + newcomer, 6, eps, unscaled)
    assert np.max(np.maximum(small / large, large / small)) > math.exp(eps)


@pytest.mark.parametrize(
    ("kwargs", "choice", "choose"),
    [
        ({"ell": 2}, "public", 0.0),
        ({"ell_max": 1}, "public", 0.0),
        ({"ell_choice": "shared"}, "shared", 0.1),
        ({"ell_choice": "shared", "ell_share": 0.25}, "shared", 0.25),
        ({"ell_choice": "per_group"}, "per_group", 0.5),
    ],
)
def test_scales_and_losses_of_each_rule(kwargs, choice, choose):
    k, eps = 4, 2.0
    params = {"ell_max": 5} | kwargs
    t = grouped_distinct_count(
        _one_item_each(), eps, groups=["g0", "g1"], max_groups=k, rng=0, **params
    )
    assert t.ell_choice == choice and t.ell_epsilon == pytest.approx(choose * eps)
    assert [p.epsilon for p in t.privacy_loss.parts] == pytest.approx(
        [choose * eps, (1 - choose) * eps]
    )
    assert t.privacy_loss.epsilon == pytest.approx(eps)
    for row in t.rows:
        # Every group is counted at (ε_count − ε_choose)/k with sensitivity ℓ.
        assert row.scale == float(laplace_scale(row.ell, (1 - choose) * eps / k))
    if choice != "per_group":
        assert len({row.ell for row in t.rows}) == 1  # one ℓ for the whole table
    if choice == "public":
        assert t.rows[0].ell == kwargs.get("ell", 1)


def test_private_keys_compose_with_the_choice_of_ell():
    rows = _one_item_each(3, 200)
    with warnings.catch_warnings():  # the keys' set union draws exact discrete noise
        warnings.simplefilter("error", UnsafeNoiseWarning)
        t = grouped_distinct_count(
            rows, 2.0, max_groups=1, delta=1e-7, ell=1, rng=0, selection_share=0.25
        )
    assert t.secure
    assert [p.epsilon for p in t.privacy_loss.parts] == pytest.approx([0.5, 1.5])
    assert [p.epsilon for p in t.privacy_loss.parts[1].parts] == [0.0, 1.5]
    assert all(row.scale == float(laplace_scale(1, 1.5)) for row in t.rows)


@pytest.mark.parametrize(
    ("kwargs", "match"),
    [
        ({"ell_choice": "global"}, "ell_choice"),
        ({"ell_share": 0.0}, "ell_share"),
        ({"ell_share": 1.0}, "ell_share"),
        ({"ell": 0}, "ell"),
        ({"ell": 2.5}, "ell"),
    ],
)
def test_bad_ell_parameters(kwargs, match):
    with pytest.raises(InvalidParameterError, match=match):
        grouped_distinct_count([(1, "a", 2)], 1.0, groups=["a"], max_groups=1, **kwargs)
    with pytest.raises(InvalidParameterError, match=match):
        plan_ell(
            1.0, **{"ell": None, "ell_max": 9, "ell_choice": "shared", "ell_share": 0.1} | kwargs
        )


@pytest.mark.parametrize(
    "kwargs",
    [
        {"ell": 1},
        {"ell_max": 1},
        {"ell_choice": "shared"},
        {"ell_choice": "shared", "ell_share": 0.5},
        {"ell_choice": "per_group"},
    ],
)
def test_coverage_of_every_rule_and_power_of_half_shift(kwargs):
    # Every rule for ℓ: public (ell=1, or ell_max=1), one ℓ for all groups (default share and
    # half of ε_count), GEM per group.  Each person holds one item, so DC_g(D;ℓ) = DC_g(D)
    # whatever ℓ is chosen: the bound is tight and a row misses with probability
    # P[Z > shift] ≤ β = 0.2.  500 runs × 2 groups: misses ≤ Binomial(1000, 0.2); the
    # one-sided binomial test has false-failure rate ≤ ALPHA.
    # Power: with half the shift a row misses with probability ≈ 0.3 at these scales (≥ 5),
    # ≈ 300 misses (sd 14.5) where the test tolerates ≈ 247, missed with probability ≈ 1e-4.
    graph = _graph(_one_item_each())
    truth = dict(zip(graph.group_labels.tolist(), graph.distinct_counts().tolist(), strict=True))
    n, beta = 0, 0.2
    misses = half_misses = 0
    params = {"groups": ["g0", "g1"], "max_groups": 2, "beta": beta, "ell_max": 4} | kwargs
    for seed in range(500):
        t = grouped_distinct_count(graph, 0.4, rng=seed, **params)
        for r in t.rows:
            n += 1
            shift = discrete_shift(r.scale, beta)
            misses += r.estimate > truth[r.group]
            half_misses += r.estimate + shift / 2 > truth[r.group]
    assert stats.binomtest(misses, n, beta, alternative="greater").pvalue > ALPHA, misses
    assert stats.binomtest(half_misses, n, beta, alternative="greater").pvalue < ALPHA, half_misses


@pytest.mark.parametrize(
    "kwargs", [{"ell": 2}, {"ell_max": 1}, {}, {"ell_choice": "per_group"}, {"ell_share": 0.3}]
)
def test_stated_loss_equals_the_release_and_the_session_charge(kwargs):
    from mechanisms import SeededSession, privacy_loss_of

    rows = _one_item_each()
    params = {"groups": ["g0", "g1"], "max_groups": 2} | kwargs
    t = grouped_distinct_count(rows, 1.0, rng=0, **params)
    assert t.privacy_loss == privacy_loss_of(grouped_distinct_count, epsilon=1.0, **params)
    session = SeededSession(_graph(rows), epsilon=2.0, seed=1)
    charged = session.grouped_distinct_count(1.0, **params)
    assert session.log[-1].privacy_loss == charged.privacy_loss == t.privacy_loss
