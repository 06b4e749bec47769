"""Set-union parameters at their extremes: huge ε, and the δ rule of dpcount.validation."""

from __future__ import annotations

import warnings

import pytest

from dpcount import PersonItemGraph
from dpcount.errors import LargeDeltaWarning
from mechanisms.set_union import count_laplace, policy_laplace, weighted_gaussian, weighted_laplace

GRAPH = PersonItemGraph.from_sets({f"p{i}": {i, i + 1} for i in range(20)})


@pytest.mark.parametrize("mechanism", [count_laplace, weighted_laplace, policy_laplace])
@pytest.mark.parametrize("epsilon", [1.3e154, 1e155, 1e300])
def test_huge_epsilon_releases_without_overflow(mechanism, epsilon):
    # Issue 24: ε > ~1.3e154 raised OverflowError in ε² of the zCDP statement.
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        r = mechanism(GRAPH, epsilon, 1e-7, rng=0)
    assert r.privacy_loss.epsilon == epsilon
    rho, _ = r.privacy_loss.zcdp
    assert rho == epsilon * epsilon / 2  # ∞ once ε² passes the float range: no claim


@pytest.mark.parametrize("mechanism", [weighted_gaussian, weighted_laplace])
def test_large_delta_warns(mechanism):
    with pytest.warns(LargeDeltaWarning, match="far below 1/n"):
        mechanism(GRAPH, 1.0, 0.01, rng=0)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        mechanism(GRAPH, 1.0, 1e-9, rng=0)
    assert not [w for w in caught if w.category is LargeDeltaWarning]
