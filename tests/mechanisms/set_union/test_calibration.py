"""Every local set-union mechanism reports exactly the calibration of its calibration module.

The Spark engine asks the same module (``tests/spark/test_calibration_engines.py`` compares the
two engines' results); here each local mechanism's result is compared with ``calibrate`` over a
grid of (ε, δ, Δ0), and the calibration itself with the thresholds module's formulas.
"""

from __future__ import annotations

import math
import warnings

import pytest

from dpcount import PersonItemGraph
from mechanisms import registry, set_union
from mechanisms.set_union import thresholds
from mechanisms.set_union.calibration import EXACT, MECHANISMS, calibrate, round_shares

GRID = [(0.5, 1e-6, 2), (1.0, 1e-5, 5), (3.0, 1e-9, 40)]
OPTIONS = {
    "policy_laplace": {"alpha": 3.0},
    "policy_gaussian": {"alpha": 3.0},
    "max_adaptive_degree": {"tau_offset": 2.0},
    "dp_sips": {"rounds": 2, "ratio": 0.5},
}


@pytest.fixture(scope="module")
def graph() -> PersonItemGraph:
    return PersonItemGraph.from_sets({f"u{k}": {"a", "b", f"o{k % 7}"} for k in range(30)})


MODES = [(m, "exact") for m in EXACT] + [(m, "float") for m in MECHANISMS]


def test_every_registered_set_union_mechanism_has_a_calibration() -> None:
    """The calibration lists its mechanisms by hand on purpose: a newly registered mechanism
    must get its own rule here rather than fall into another's; this test names the gap."""
    assert sorted(MECHANISMS) == sorted(registry.names(family="set_union"))
    assert set(EXACT) <= set(MECHANISMS)


@pytest.mark.parametrize(("mechanism", "mode"), MODES)
@pytest.mark.parametrize(("epsilon", "delta", "max_items"), GRID)
def test_results_report_the_calibration(
    graph: PersonItemGraph,
    mechanism: str,
    mode: str,
    epsilon: float,
    delta: float,
    max_items: int,
) -> None:
    options = OPTIONS.get(mechanism, {})
    expected = calibrate(mechanism, epsilon, delta, max_items, **options, mode=mode)
    choice = {"noise": mode} if mechanism in EXACT else {}  # the others have float noise only
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        result = getattr(set_union, mechanism)(
            graph, epsilon, delta, max_items=max_items, rng=0, **options, **choice
        )
    assert (result.noise, result.scale, result.threshold, result.cutoff, result.secure) == (
        expected.noise,
        expected.scale,
        expected.threshold,
        expected.cutoff,
        expected.secure,
    )
    got_rounds = [(r.scale, r.threshold, r.cutoff, r.delta_novel) for r in result.rounds]
    assert got_rounds == [(r.scale, r.threshold, r.cutoff, r.delta_novel) for r in expected.rounds]


@pytest.mark.parametrize(("epsilon", "delta", "max_items"), GRID)
def test_calibration_applies_the_papers_formulas(
    epsilon: float, delta: float, max_items: int
) -> None:
    """Each mechanism's sensitivity and share of δ, written out (Gopi Thm 4.1, 5.1, A.1, A.2,
    B.1, B.2): a wrong share (all of δ to σ) or sensitivity (1 for counts) is caught."""
    sigma = thresholds.gaussian_sigma(epsilon, delta / 2)
    root = math.sqrt(max_items)

    def fp(name: str):  # the papers' continuous form
        return calibrate(name, epsilon, delta, max_items, mode="float")

    assert fp("weighted_gaussian").scale == sigma
    assert fp("count_gaussian").scale == pytest.approx(root * sigma, rel=1e-9)
    assert fp("count_laplace").scale == max_items / epsilon
    laplace = fp("weighted_laplace")
    assert laplace.threshold == thresholds.laplace_threshold(1 / epsilon, delta, max_items)
    # Power: the formulas with the wrong δ share or sensitivity give other numbers.
    assert thresholds.gaussian_sigma(epsilon, delta) < sigma
    if max_items > 1:
        assert fp("count_gaussian").scale > 1.4 * sigma


def test_sips_rounds_compose_to_the_single_round_sigma() -> None:
    """Σ 1/σ_i² = 1/σ² (the rounds compose to μ = 1/σ) and Σ δ_i = δ/2."""
    c = calibrate("dp_sips", 1.0, 1e-6, 10, rounds=4, ratio=0.4, mode="float")
    sigma = thresholds.gaussian_sigma(1.0, 1e-6 / 2)
    assert sum(r.scale**-2 for r in c.rounds) == pytest.approx(sigma**-2, rel=1e-12)
    assert sum(r.delta_novel for r in c.rounds) == pytest.approx(1e-6 / 2, rel=1e-12)
    assert [r.delta_novel for r in c.rounds] == pytest.approx(
        (round_shares(4, 0.4) * 1e-6 / 2).tolist(), rel=1e-12
    )
