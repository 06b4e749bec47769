"""Noise scales and thresholds: the algorithms.md §6 test vectors and their defining properties."""

from __future__ import annotations

import itertools
import math

import numpy as np
import pytest
from scipy.stats import laplace, norm

from dpcount.errors import InvalidParameterError
from mechanisms.set_union import thresholds
from mechanisms.set_union.thresholds import (
    balle_wang_delta,
    gaussian_sigma,
    gaussian_threshold,
    laplace_threshold,
)

GOPI_DELTA = math.exp(-10)


@pytest.mark.parametrize(
    ("epsilon", "delta", "sigma"),
    [
        (1.0, 1e-5, 3.730632),
        (0.1, 1e-6, 36.30469),
        (3.0, GOPI_DELTA, 1.282404),
        (8.0, 1e-9, 0.792237),
        (0.5, 1e-10, 11.43624),
        (20.0, 1e-12, 0.404051),
    ],
)
def test_balle_wang_sigma_vectors(epsilon: float, delta: float, sigma: float) -> None:
    got = gaussian_sigma(epsilon, delta)
    assert f"{got:.5g}" == f"{sigma:.5g}"  # 5 significant digits (docs/algorithms.md §6)
    assert got == pytest.approx(sigma, rel=2e-6)  # and the vectors' 6th digit up to rounding
    # The upper end of the bracket: it meets δ, and 1e-9 less noise would not.
    assert balle_wang_delta(got, epsilon) <= delta
    assert balle_wang_delta(got * (1 - 1e-9), epsilon) > delta


@pytest.mark.parametrize(
    ("max_items", "gauss_rho", "lap_rho"), [(10, 6.4353, 4.1023), (100, 6.8237, 4.6473)]
)
def test_gopi_setting_vectors(max_items: int, gauss_rho: float, lap_rho: float) -> None:
    sigma = gaussian_sigma(3.0, GOPI_DELTA / 2)
    assert f"{sigma:.5g}" == "1.3328" and sigma == pytest.approx(1.33279, rel=5e-6)
    assert gaussian_threshold(sigma, GOPI_DELTA, max_items) == pytest.approx(gauss_rho, abs=5e-5)
    assert laplace_threshold(1 / 3, GOPI_DELTA, max_items) == pytest.approx(lap_rho, abs=5e-5)


def test_balle_wang_delta_matches_direct_formula() -> None:
    for sigma, eps in [(0.5, 0.3), (2.0, 1.0), (1.0, 2.0)]:
        direct = norm.cdf(0.5 / sigma - eps * sigma) - math.exp(eps) * norm.cdf(
            -0.5 / sigma - eps * sigma
        )
        assert balle_wang_delta(sigma, eps) == pytest.approx(direct, rel=1e-10)
    # Sensitivity scales σ: (σ, Δ) behaves like (σ/Δ, 1).
    assert balle_wang_delta(6.0, 1.0, sensitivity=3.0) == pytest.approx(balle_wang_delta(2.0, 1.0))


def test_sigma_is_monotone_and_works_for_extreme_delta() -> None:
    deltas = [1e-2, 1e-5, 1e-10, 1e-30, 1e-100, 1e-300]
    sigmas = [gaussian_sigma(1.0, d) for d in deltas]
    assert all(a < b for a, b in itertools.pairwise(sigmas))
    for s, d in zip(sigmas, deltas, strict=True):
        assert balle_wang_delta(s, 1.0) <= d
        assert balle_wang_delta(s * (1 - 1e-9), 1.0) > d


def _tail_probability_laplace(rho: float, b: float, weights: np.ndarray) -> float:
    """P(some novel item with these weights beats ρ) under Lap(b), computed with scipy."""
    return -float(np.expm1(np.log1p(-laplace.sf(rho - weights, scale=b)).sum()))


def _tail_probability_gauss(rho: float, sigma: float, weights: np.ndarray) -> float:
    return -float(np.expm1(np.log1p(-norm.sf(rho - weights, scale=sigma)).sum()))


@pytest.mark.parametrize("delta", [0.3, 1e-3, 1e-8])
@pytest.mark.parametrize("epsilon", [0.5, 2.0])
def test_thresholds_meet_their_novel_item_guarantee(epsilon: float, delta: float) -> None:
    """The defining property (Gopi Eq. 2, 3): for every t ≤ Δ0, t items of weight 1/t (1/√t)
    are all below ρ except with probability ≤ δ (≤ δ/2), with equality at the worst t."""
    delta0 = 30
    b = 1 / epsilon
    rho_l = laplace_threshold(b, delta, delta0)
    sigma = gaussian_sigma(epsilon, delta / 2)
    rho_g = gaussian_threshold(sigma, delta, delta0)
    p_l = [_tail_probability_laplace(rho_l, b, np.full(t, 1 / t)) for t in range(1, delta0 + 1)]
    p_g = [_tail_probability_gauss(rho_g, sigma, np.full(t, t**-0.5)) for t in range(1, 31)]
    assert max(p_l) <= delta * (1 + 1e-9) and max(p_l) == pytest.approx(delta, rel=1e-6)
    assert max(p_g) <= delta / 2 * (1 + 1e-9) and max(p_g) == pytest.approx(delta / 2, rel=1e-6)
    # Unit form (Thm A.1/A.2): weights up to 1.
    rho_lu = laplace_threshold(b, delta, delta0, novel_weight="unit")
    rho_gu = gaussian_threshold(sigma, delta, delta0, novel_weight="unit")
    assert _tail_probability_laplace(rho_lu, b, np.ones(delta0)) == pytest.approx(delta, rel=1e-6)
    assert _tail_probability_gauss(rho_gu, sigma, np.ones(delta0)) == pytest.approx(
        delta / 2, rel=1e-6
    )
    assert rho_lu >= rho_l and rho_gu >= rho_g


def test_threshold_branch_and_bound_gives_the_same_max(monkeypatch: pytest.MonkeyPatch) -> None:
    expected = (laplace_threshold(0.5, 1e-6, 1000), gaussian_threshold(2.0, 1e-6, 1000))
    monkeypatch.setattr(thresholds, "_SCAN", 7)  # split and prune down to 7-point intervals
    assert (laplace_threshold(0.5, 1e-6, 1000), gaussian_threshold(2.0, 1e-6, 1000)) == expected


@pytest.mark.parametrize(
    ("call", "message"),
    [
        (lambda: gaussian_sigma(0.0, 1e-5), "epsilon"),
        (lambda: gaussian_sigma(math.inf, 1e-5), "epsilon"),
        (lambda: gaussian_sigma(1.0, 0.0), "delta"),
        (lambda: gaussian_sigma(1.0, 1.0), "delta"),
        (lambda: gaussian_sigma(1.0, 1e-5, sensitivity=-1), "sensitivity"),
        (lambda: laplace_threshold(1.0, 1e-5, 0), "max_items"),
        (lambda: laplace_threshold(1.0, 1e-5, 2.5), "max_items"),
        (lambda: gaussian_threshold(float("nan"), 1e-5, 3), "sigma"),
        (lambda: laplace_threshold(1.0, 1e-5, 3, novel_weight="half"), "novel_weight"),
        (lambda: balle_wang_delta(True, 1.0), "sigma"),
    ],
)
def test_invalid_parameters(call, message: str) -> None:
    with pytest.raises(InvalidParameterError, match=message):
        call()
