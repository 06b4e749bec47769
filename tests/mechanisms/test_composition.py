"""Composition: basic, PLD (dp-accounting) and zCDP totals, and what the session reports."""

from __future__ import annotations

import math
import warnings

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import mechanisms.composition as composition
from dpcount import PersonItemGraph
from mechanisms import Session
from mechanisms.accounting import NoiseCurve, PrivacyLoss
from mechanisms.composition import PLD_DISCRETIZATION, basic_total, compose, pld_total, zcdp_total
from mechanisms.privacy_loss import privacy_loss_of
from mechanisms.set_union import balle_wang_delta, count_gaussian, weighted_gaussian

pytest.importorskip("dp_accounting")

GRAPH = PersonItemGraph.from_sets({f"p{i:03d}": {i % 40, (i + 3) % 40, 99} for i in range(120)})
#: How far above the true ε the pessimistic PLD may land for one release.
UPPER = 10 * PLD_DISCRETIZATION


def _laplace(eps: float) -> PrivacyLoss:
    return PrivacyLoss(eps, description="Laplace", curve=NoiseCurve("laplace", 1 / eps, 1.0))


def test_one_release_pld_equals_basic_on_the_upper_side() -> None:
    cases = [
        (PrivacyLoss(0.7), 0.0),  # a pure pair (GEM, exponential mechanism)
        (PrivacyLoss(0.7, 1e-6), 1e-6),  # an (ε, δ) pair (thresholded set union)
        (_laplace(0.7), 0.0),  # a Laplace curve at δ = 0 is exactly ε-DP
        (privacy_loss_of("weighted_gaussian", epsilon=0.7, delta=1e-6), 1e-6),
    ]
    for loss, delta in cases:
        total = pld_total([loss], delta)
        assert total is not None and total.accountant == "pld"
        assert loss.epsilon - 1e-9 <= total.epsilon <= loss.epsilon + UPPER, loss


def test_discrete_laplace_curve_is_read_the_right_way_round() -> None:
    # R2T's parts are discrete Laplace with sensitivity τ and scale ≥ k·τ/ε: at δ = 0 the PLD
    # must give Σ τ/t ≤ ε (not Σ t/τ, which would be huge).
    loss = privacy_loss_of("r2t", epsilon=1.0, max_contribution=64)
    exact = sum(p.curve.sensitivity / p.curve.scale for p in loss.parts)
    total = pld_total([loss], 0.0)
    assert exact <= 1.0 and exact - 1e-9 <= total.epsilon <= exact + len(loss.parts) * UPPER


def test_gaussian_curve_matches_balle_wang() -> None:
    sigma, eps = 2.0, 1.0
    delta = balle_wang_delta(sigma, eps)  # the exact δ of N(0, σ²) at ε, sensitivity 1
    loss = PrivacyLoss(eps, delta, curve=NoiseCurve("gaussian", sigma, 1.0))
    total = pld_total([loss], delta)
    assert eps - 1e-3 <= total.epsilon <= eps + UPPER


_release = st.one_of(
    st.floats(0.01, 1.0).map(PrivacyLoss),
    st.floats(0.01, 1.0).map(_laplace),
    st.tuples(st.floats(0.01, 1.0), st.floats(1e-9, 1e-7)).map(lambda p: PrivacyLoss(*p)),
)


@settings(max_examples=30, deadline=None)
@given(st.lists(_release, min_size=1, max_size=8), st.sampled_from([0.0, 1e-6, 1e-4]))
def test_pld_is_never_looser_than_basic(losses: list[PrivacyLoss], extra_delta: float) -> None:
    basic = basic_total(losses)
    delta = basic.delta + extra_delta
    total = pld_total(losses, delta)
    if total is None:  # only when no δ is left beyond the pairs' own: a PLD's truncated tails
        assert extra_delta == 0  # need some δ
        return
    assert total.epsilon <= basic.epsilon + len(losses) * UPPER
    best = compose(losses, delta)
    assert best.epsilon <= basic.epsilon and best.delta <= delta


def test_many_releases_pld_and_zcdp_are_tighter() -> None:
    losses = [PrivacyLoss(0.1) for _ in range(100)]
    basic = basic_total(losses)
    pld = pld_total(losses, 1e-6)
    zcdp = zcdp_total(losses, 1e-6)
    # ρ = 100·0.01/2 = 0.5: ε = 0.5 + 2·√(0.5·ln 10⁶) (Bun & Steinke Prop. 1.3)
    assert zcdp.epsilon == pytest.approx(0.5 + 2 * math.sqrt(0.5 * math.log(1e6)))
    assert pld.epsilon < zcdp.epsilon < basic.epsilon == pytest.approx(10.0)
    best = compose(losses, 1e-6)
    assert (best.accountant, best.epsilon) == ("pld", pld.epsilon)
    assert compose(losses, 0.0).accountant == "basic"  # pure budget: nothing to trade


def test_gaussian_set_union_states_its_zcdp() -> None:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        w = weighted_gaussian(GRAPH, 1.0, 1e-6, max_items=4, rng=0, noise="float")
        c = count_gaussian(GRAPH, 1.0, 1e-6, max_items=4, rng=0, noise="float")
        exact = weighted_gaussian(GRAPH, 1.0, 1e-6, max_items=4, rng=0)
    rho, delta0 = w.privacy_loss.zcdp
    assert rho == pytest.approx(1 / (2 * w.scale**2)) and delta0 == 5e-7  # sensitivity 1
    assert c.privacy_loss.zcdp[0] == pytest.approx(4 / (2 * c.scale**2))  # sensitivity √Δ0
    # Exact noise has the larger discrete σ: the same statement is an upper bound on its ρ.
    assert exact.privacy_loss == w.privacy_loss and rho > 1 / (2 * exact.scale**2)
    dc = privacy_loss_of("dp_distinct_count", epsilon=1.0)
    assert dc.as_zcdp() == (0.25, 0.0)  # two pure halves: 2·(1/2)²/2


def test_without_dp_accounting_basic_is_used_and_said(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(composition, "have_pld", lambda: False)
    assert pld_total([PrivacyLoss(1.0)], 1e-6) is None
    total = compose([PrivacyLoss(1.0, 1e-7)], 1e-6)
    assert total.accountant == "basic (dp-accounting not installed)" and total.epsilon == 1.0


def test_session_reports_the_tighter_total_and_enforces_basic() -> None:
    s = Session(GRAPH, epsilon=3.0, delta=1e-5)
    for _ in range(20):
        s.dp_distinct_count(0.15, ell_max=5)
    assert s.totals["basic"].epsilon == pytest.approx(3.0)
    assert s.accountant in ("pld", "zcdp") and s.spent.epsilon < 3.0 - 0.05
    assert s.accountant in s.spent.description and s.spent.delta <= 1e-5
    assert s.remaining.epsilon == 0.0  # enforcement is basic: valid under full adaptivity
    assert s.zcdp == pytest.approx((20 * 2 * 0.075**2 / 2, 0.0))


def test_loss_with_curve_round_trips() -> None:
    loss = privacy_loss_of("r2t", epsilon=1.0, max_contribution=8)
    back = PrivacyLoss.from_dict(loss.to_dict())
    assert back == loss and back.parts[0].curve == loss.parts[0].curve
    z = privacy_loss_of("dp_sips", epsilon=1.0, delta=1e-6)
    assert PrivacyLoss.from_dict(z.to_dict()).zcdp == z.zcdp


def test_tiny_pld_gains_do_not_replace_the_sum_as_written() -> None:
    losses = [PrivacyLoss(0.5)] * 3
    assert pld_total(losses, 1e-6).epsilon < 1.5  # pld spends δ to save ~3e-5
    total = compose(losses, 1e-6)
    assert (total.epsilon, total.delta, total.accountant) == (1.5, 0.0, "basic")
    # A real gain still wins: 40 Gaussian releases compose far below their sum.
    gauss = [privacy_loss_of("weighted_gaussian", epsilon=0.1, delta=1e-8)] * 40
    assert compose(gauss, 1e-6).accountant in ("pld", "zcdp")
    assert compose(gauss, 1e-6).epsilon < 4.0 * (1 - composition.MEANINGFUL_GAIN)


@pytest.mark.parametrize("epsilon", [700.0, 710.0, 1420.0, 1e6])
def test_huge_epsilon_does_not_overflow(epsilon: float) -> None:
    for delta in (0.0, 1e-6):
        for loss in (PrivacyLoss(epsilon), _laplace(epsilon)):
            total = compose([loss, PrivacyLoss(1.0)], delta)
            assert total.epsilon <= epsilon + 1.0 and math.isfinite(total.epsilon)
