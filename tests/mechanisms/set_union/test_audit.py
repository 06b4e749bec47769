"""Exhaustive neighbour audit of every set-union weighting (algorithms.md §6, docs/concepts.md).

For each weighting and each of many small random neighbour pairs, the added person is inserted
at every position of the (otherwise fixed) user order and with the other persons' capped sets
fixed.  Sensitivity-1 weightings must stay within distance 1 (ℓ1 for the Laplace family, ℓ2 for
the Gaussian family, MAD and each SIPS round) and keep items held only by the added person at
≤ 1/t (ℓ1) or ≤ 1/√t (ℓ2).  The same audit finds the greedy policy violating it.
"""

from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from mechanisms.set_union._bounding import CappedSets, remove_items
from mechanisms.set_union.adaptive import mad_weights
from mechanisms.set_union.greedy_policy import greedy_policy_weights
from mechanisms.set_union.policy import (
    l1_descent_units,
    l1_descent_weights,
    l2_descent_weights,
)
from mechanisms.set_union.weighted import basic_weights, count_weights
from tests.mechanisms.set_union.audit import (
    audit_pair,
    l1_split,
    l2_split,
    random_instance,
    reference_l1_descent,
    reference_l1_descent_units,
    reference_l2_descent,
    reference_mad,
)
from tests.strategies import neighbours

N_INSTANCES = 1500
CUTOFFS = (0.2, 0.5, 0.8, 1.0, 1.3, 2.0, 3.5)  # small Γ/τ so that caps bind with few users
TAUS = (0.1, 0.25, 0.5, 0.8, 1.0, 1.7, 3.0)


def _instances(seed: int, n: int = N_INSTANCES):
    rng = np.random.default_rng(seed)
    for _ in range(n):
        others, added, n_items, delta0 = random_instance(rng)
        order = rng.permutation(len(others))
        yield rng, others, added, n_items, delta0, order


def _weightings(rng: np.random.Generator, delta0: int):
    """(name, weigh(sets, order), norm, bound, novel(t)) for one random parameter draw."""
    cutoff = float(rng.choice(CUTOFFS))
    tau = float(rng.choice(TAUS))
    d_max = int(rng.integers(1, delta0 + 1))
    unit = 1 << int(rng.integers(0, 6))  # coarse units, where rounding matters most
    cutoff_units = max(1, round(cutoff * unit))
    return [
        ("count (ℓ1, /Δ0)", lambda s, o: count_weights(s) / delta0, 1, 1.0, lambda t: 1 / delta0),
        (
            "count (ℓ2, /√Δ0)",
            lambda s, o: count_weights(s) / math.sqrt(delta0),
            2,
            1.0,
            lambda t: 1 / math.sqrt(delta0),
        ),
        ("weighted Laplace", lambda s, o: basic_weights(s, 1), 1, 1.0, l1_split),
        ("weighted Gaussian", lambda s, o: basic_weights(s, 2), 2, 1.0, l2_split),
        (f"ℓ1-descent Γ={cutoff}", lambda s, o: l1_descent_weights(s, o, cutoff), 1, 1.0, l1_split),
        (f"ℓ2-descent Γ={cutoff}", lambda s, o: l2_descent_weights(s, o, cutoff), 2, 1.0, l2_split),
        (
            f"lattice ℓ1-descent Γ={cutoff_units}/{unit}",
            lambda s, o: l1_descent_units(s, o, cutoff_units, unit) / unit,
            1,
            1.0,
            lambda t: -(-unit // t) / unit,  # ⌈2ᵏ/t⌉ units
        ),
        (f"MAD d_max={d_max} τ={tau}", lambda s, o: mad_weights(s, d_max, tau), 2, 1.0, l2_split),
    ]


def _without(sets: list[list[int]], removed: np.ndarray, n_items: int) -> list[list[int]]:
    """The lists after a DP-SIPS round released ``removed`` (through ``remove_items``)."""
    kept = remove_items(CappedSets.from_lists(sets, n_items), removed)
    return [kept.indices[kept.indptr[p] : kept.indptr[p + 1]].tolist() for p in range(len(sets))]


def _sips_round(rng, others, added, n_items, delta0):
    """A later DP-SIPS round: the earlier rounds' released items are gone from every set."""
    removed = rng.choice(n_items, size=int(rng.integers(0, n_items + 1)), replace=False)
    remaining = _without([*others, added], removed, n_items)
    return remaining[:-1], remaining[-1]


def test_every_weighting_passes_the_exhaustive_audit() -> None:
    checked = 0
    for rng, others, added, n_items, delta0, order in _instances(seed=20240607):
        for name, weigh, norm, bound, novel in _weightings(rng, delta0):
            found = audit_pair(
                weigh, others, added, n_items, norm=norm, bound=bound, novel=novel, base_order=order
            )
            assert not found, f"{name}: {found[0]}"
            checked += len(others) + 1
        # Each DP-SIPS round is basic or MAD weighting on the remaining sets.
        later_others, later_added = _sips_round(rng, others, added, n_items, delta0)
        tau, d_max = float(rng.choice(TAUS)), int(rng.integers(1, delta0 + 1))
        for name, weigh in (
            ("SIPS round, basic", lambda s, o: basic_weights(s, 2)),
            ("SIPS round, MAD", lambda s, o, d=d_max, c=tau: mad_weights(s, d, c)),
        ):
            found = audit_pair(
                weigh,
                later_others,
                later_added,
                n_items,
                norm=2,
                bound=1.0,
                novel=l2_split,
                base_order=order,
            )
            assert not found, f"{name}: {found[0]}"
    assert checked > 8 * N_INSTANCES * 2  # every insertion position was visited


@settings(max_examples=150, deadline=None)
@given(pair=neighbours(max_persons=6, max_items=6), data=st.data())
def test_audit_on_hypothesis_neighbours(pair, data) -> None:
    smaller, larger = pair
    assert larger.person_labels[-1] == "zz-added"  # the added person sorts last
    ids = np.searchsorted(larger.item_labels, smaller.item_labels)
    others = [
        ids[smaller.indices[smaller.indptr[p] : smaller.indptr[p + 1]]].tolist()
        for p in range(smaller.n_persons)
    ]
    p = larger.n_persons - 1
    added = larger.indices[larger.indptr[p] : larger.indptr[p + 1]].tolist()
    n = len(others)
    order = np.array(data.draw(st.permutations(range(n))), dtype=np.int64)
    position = data.draw(st.integers(0, n))
    delta0 = max([len(s) for s in [*others, added]] + [1])
    rng = np.random.default_rng(data.draw(st.integers(0, 2**32 - 1)))
    for name, weigh, norm, bound, novel in _weightings(rng, delta0):
        found = audit_pair(
            weigh,
            others,
            added,
            larger.n_items,
            norm=norm,
            bound=bound,
            novel=novel,
            base_order=order,
            positions=[position],
        )
        assert not found, f"{name}: {found[0]}"


# -- the greedy policy fails the same audit ----------------------------------------------------


def test_greedy_policy_fails_the_same_audit() -> None:
    violations = 0
    for rng, others, added, n_items, _, order in _instances(seed=7, n=400):
        cutoff = float(rng.choice(CUTOFFS))
        violations += len(
            audit_pair(
                lambda s, o, c=cutoff: greedy_policy_weights(s, o, c),
                others,
                added,
                n_items,
                norm=1,
                bound=1.0,
                novel=l1_split,
                base_order=order,
            )
        )
    assert violations > 0


@pytest.mark.parametrize("later", [1, 5, 20])
def test_gopi_appendix_c_counterexample(later: int) -> None:
    """Gopi App. C: H[u1] < H[u2] < 1 + H[u1] before user i, who holds only u1; ``later``
    users hold both.  With user i they all fill u1, without they fill u2."""
    cutoff = 100.5
    prefix = [[2]] * 100 + [[2, 0], [1]]  # item 2 fills to 100, then H = (0.5, 1) on (u1, u2)
    others = prefix + [[0, 1]] * later
    added = [0]
    position = len(prefix)
    found = audit_pair(
        lambda s, o: greedy_policy_weights(s, o, cutoff),
        others,
        added,
        3,
        norm=1,
        bound=1.0,
        novel=l1_split,
        positions=[position],
    )
    distance = next(v.value for v in found if v.what.startswith("l1"))
    assert distance == pytest.approx(2 * later + 1)  # grows with the number of later users
    # ℓ1-descent on the same pair stays within 1.
    assert not audit_pair(
        lambda s, o: l1_descent_weights(s, o, cutoff),
        others,
        added,
        3,
        norm=1,
        bound=1.0,
        novel=l1_split,
        positions=[position],
    )


# -- the audit has teeth -------------------------------------------------------------------------


def test_audit_catches_a_wrong_reroute_fraction(monkeypatch: pytest.MonkeyPatch) -> None:
    """MAD rerouting more than the derived fraction f breaks ℓ2-sensitivity in the same audit."""
    import mechanisms.set_union.adaptive as adaptive

    monkeypatch.setattr(adaptive, "reroute_fraction", lambda d_max: 1.0)
    violations = 0
    for rng, others, added, n_items, delta0, _ in _instances(seed=3, n=600):
        tau = float(rng.choice(TAUS))
        d_max = int(rng.integers(1, delta0 + 1))
        violations += len(
            audit_pair(
                lambda s, o, d=d_max, c=tau: mad_weights(s, d, c),
                others,
                added,
                n_items,
                norm=2,
                bound=1.0,
                novel=l2_split,
                positions=[len(others)],
            )
        )
    assert violations > 0


def test_audit_catches_unnormalised_weights() -> None:
    """Weighted Laplace weights (1/|W|) fail the ℓ1 audit once scaled up by 10%."""
    violations = sum(
        len(
            audit_pair(
                lambda s, o: 1.1 * basic_weights(s, 1),
                others,
                added,
                n_items,
                norm=1,
                bound=1.0,
                novel=l1_split,
                positions=[0],
            )
        )
        for _, others, added, n_items, _, _ in _instances(seed=5, n=100)
    )
    assert violations > 0


def test_audit_catches_lattice_descent_that_drops_the_remainder() -> None:
    """Power check for the exact Policy Laplace: rounding each user's raise down to whole units
    and dropping the remainder breaks Lemma 4.1's contraction, and the audit sees it.  With
    Γ = 9 and budget 8 units, the added person lifts item 0 to 8; the next person's gaps are
    (1, 9, 9) instead of (9, 9, 9) and spend 7 units instead of 6: the histograms end 9 > 8
    units apart."""
    example = audit_pair(
        lambda s, o: reference_l1_descent_units(s, o, 9, 8, remainder=False) / 8,
        [[0, 1, 2]],
        [0],
        3,
        norm=1,
        bound=1.0,
        novel=lambda t: 1.0,
        positions=[0],
    )
    assert example and example[0].what == "l1 distance"
    found = 0
    for rng, others, added, n_items, _, order in _instances(seed=23, n=300):
        unit = 1 << int(rng.integers(2, 5))
        cutoff = int(rng.integers(1, 3 * unit))
        found += bool(
            audit_pair(
                lambda s, o, c=cutoff, u=unit: (
                    reference_l1_descent_units(s, o, c, u, remainder=False) / u
                ),
                others,
                added,
                n_items,
                norm=1,
                bound=1.0,
                novel=lambda t: 1.0,
                base_order=order,
            )
        )
    assert found > 0
    # ... and a novel item may weigh ⌈2ᵏ/t⌉ units, not ⌊2ᵏ/t⌋ (the threshold uses the former).
    floor_bound = audit_pair(
        lambda s, o: l1_descent_units(s, o, 9, 8) / 8,
        [],
        [0, 1, 2],
        3,
        norm=1,
        bound=1.0,
        novel=lambda t: (8 // t) / 8,
    )
    assert floor_bound and floor_bound[0].what == "novel weight (t=3)"


# -- the fast implementations agree with the slow references ------------------------------------


def test_compiled_policies_and_mad_match_references() -> None:
    for rng, others, added, n_items, delta0, order in _instances(seed=11, n=600):
        sets = CappedSets.from_lists([*others, added], n_items)
        full_order = np.insert(order, int(rng.integers(0, len(others) + 1)), len(others))
        cutoff = float(rng.choice(CUTOFFS))
        np.testing.assert_allclose(
            l1_descent_weights(sets, full_order, cutoff),
            reference_l1_descent(sets, full_order, cutoff),
            atol=1e-12,
        )
        unit = 1 << int(rng.integers(0, 8))
        cutoff_units = int(rng.integers(0, 4 * unit))
        np.testing.assert_array_equal(
            l1_descent_units(sets, full_order, cutoff_units, unit),
            reference_l1_descent_units(sets, full_order, cutoff_units, unit),
        )
        np.testing.assert_allclose(
            l2_descent_weights(sets, full_order, cutoff),
            reference_l2_descent(sets, full_order, cutoff),
            atol=1e-12,
        )
        tau = float(rng.choice(TAUS))
        d_max = int(rng.integers(1, delta0 + 1))
        np.testing.assert_allclose(
            mad_weights(sets, d_max, tau), reference_mad(sets, d_max, tau), atol=1e-12
        )


def test_policies_respect_the_cutoff_and_budget() -> None:
    for rng, others, _, n_items, _, order in _instances(seed=13, n=300):
        sets = CappedSets.from_lists(others, n_items)
        cutoff = float(rng.choice(CUTOFFS))
        for weigh, norm in ((l1_descent_weights, 1), (l2_descent_weights, 2)):
            w = weigh(sets, order, cutoff)
            assert w.min() >= 0 and w.max() <= cutoff + 1e-12
            # n users each move the histogram by at most 1.
            assert np.linalg.norm(w, ord=norm) <= len(others) + 1e-9
