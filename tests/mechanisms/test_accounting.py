"""PrivacyLoss arithmetic and the PrivacyAccountant's refusal to overspend."""

from __future__ import annotations

import math

import pytest
from hypothesis import given
from hypothesis import strategies as st

from dpcount import PersonItemGraph
from dpcount.errors import BudgetExceededError, InvalidParameterError
from mechanisms.accounting import PrivacyAccountant, PrivacyLoss
from mechanisms.distinct_count import dp_distinct_count

MIXED = PersonItemGraph.from_sets({f"p{i:03d}": {i, i + 1, 500} for i in range(50)})


def test_loss_validation():
    for eps in (-0.1, math.nan):
        with pytest.raises(InvalidParameterError):
            PrivacyLoss(eps)
    for delta in (-1e-9, 1.5, math.nan):
        with pytest.raises(InvalidParameterError):
            PrivacyLoss(1.0, delta)
    assert PrivacyLoss(0.0).is_private and PrivacyLoss(math.inf).is_private is False


def test_basic_composition():
    a = PrivacyLoss(0.5, 1e-6, "a")
    b = PrivacyLoss(0.25, 2e-6, "b")
    c = a + b
    assert (c.epsilon, c.delta, c.description, c.parts) == (0.75, 3e-6, "a + b", (a, b))
    d = a.compose(b, PrivacyLoss(1.0), description="three")
    assert math.isclose(d.epsilon, 1.75) and d.description == "three" and len(d.parts) == 3
    assert PrivacyLoss(1, 0.7).compose(PrivacyLoss(1, 0.6)).delta == 1.0  # δ is capped at 1
    assert (a + PrivacyLoss.non_private("x")).epsilon == math.inf


@given(st.lists(st.floats(0, 10), min_size=1, max_size=8))
def test_composition_adds_epsilons(epsilons):
    losses = [PrivacyLoss(e) for e in epsilons]
    assert math.isclose(losses[0].compose(*losses[1:]).epsilon, sum(epsilons))


def test_non_private_and_repr():
    loss = PrivacyLoss.non_private("max degree from the data")
    assert not loss.is_private and loss.description.startswith("NOT PRIVATE")
    assert repr(loss) == (
        "PrivacyLoss(epsilon=inf, delta=0, 'NOT PRIVATE: max degree from the data')"
    )
    assert repr(PrivacyLoss(0.5, 1e-6)) == "PrivacyLoss(epsilon=0.5, delta=1e-06)"


def test_accountant_spends_and_refuses():
    acct = PrivacyAccountant(1.0, delta_total=1e-6)
    acct.spend(PrivacyLoss(0.4, description="first"))
    assert math.isclose(acct.remaining_epsilon, 0.6)
    with pytest.raises(BudgetExceededError, match=r"'second' needs epsilon=0\.7 but only 0\.6"):
        acct.spend(PrivacyLoss(0.7, description="second"))
    assert len(acct.releases) == 1  # a refused release records nothing
    acct.spend(PrivacyLoss(0.6, 1e-6))  # exactly the rest of both budgets
    assert acct.remaining_epsilon == 0.0 and acct.remaining_delta == 0.0
    with pytest.raises(BudgetExceededError):
        acct.spend(PrivacyLoss(0.0, 1e-9))  # δ exhausted
    assert "releases=2" in repr(acct)
    assert acct.spent.epsilon == 1.0


def test_accountant_tolerates_float_sums():
    acct = PrivacyAccountant(0.3)
    acct.spend(PrivacyLoss(0.1))
    acct.spend(PrivacyLoss(0.2))  # 0.1 + 0.2 = 0.30000000000000004 must still fit
    assert acct.remaining_epsilon == 0.0
    assert not acct.can_afford(PrivacyLoss(1e-9))


def test_accountant_refuses_non_private_and_validates():
    acct = PrivacyAccountant(100.0)
    with pytest.raises(BudgetExceededError, match="not differentially private"):
        acct.spend(PrivacyLoss.non_private("percentile"))
    assert acct.releases == () and acct.spent.epsilon == 0.0
    for bad in (0.0, -1.0, math.inf, math.nan):
        with pytest.raises(InvalidParameterError):
            PrivacyAccountant(bad)
    for bad in (-0.1, 1.0):
        with pytest.raises(InvalidParameterError):
            PrivacyAccountant(1.0, bad)


def test_accountant_takes_results():
    acct = PrivacyAccountant(1.5)
    result = dp_distinct_count(MIXED, 1.0, ell_max=4, rng=0)
    assert acct.spend(result) is result.privacy_loss
    with pytest.raises(BudgetExceededError):
        acct.spend(dp_distinct_count(MIXED, 1.0, ell_max=4, rng=1))
    assert math.isclose(acct.remaining_epsilon, 0.5)


def test_tiny_budgets_are_not_rounded_away():
    acct = PrivacyAccountant(epsilon_total=1e-13)
    acct.spend(PrivacyLoss(5e-14))
    assert acct.remaining_epsilon == pytest.approx(5e-14)
    acct.spend(PrivacyLoss(5e-14))
    assert acct.remaining_epsilon == 0.0


@pytest.mark.parametrize(
    ("parts", "total", "left_of_one"),
    [([0.5, 0.5, 0.5], 1.5, 0.0), ([0.1, 0.2], 0.3, 0.7), ([0.1] * 7, 0.7, 0.3)],
)
def test_sums_are_exact_as_written(parts: list[float], total: float, left_of_one: float):
    loss = PrivacyLoss(parts[0]).compose(*(PrivacyLoss(p) for p in parts[1:]))
    assert loss.epsilon == total  # not 0.30000000000000004 or 0.7000000000000001
    acct = PrivacyAccountant(max(1.0, total))
    for p in parts:
        acct.spend(PrivacyLoss(p))
    if total <= 1.0:
        assert acct.remaining_epsilon == left_of_one
    assert acct.spent.epsilon == total
