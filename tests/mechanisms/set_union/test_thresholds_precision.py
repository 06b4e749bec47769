"""Noise scales and thresholds against 90-digit arithmetic: the guarantee holds exactly.

The float evaluation of the Balle–Wang δ(σ) used to lose the digits that decide when ε is tiny
(ε = 1e-14, δ = 1e-12 gave δ(σ) = 1.0000586 δ).  Here every returned σ and ρ is checked with
mpmath at 90 significant digits: the true δ (or tail probability) must not exceed the target
at all, and σ must not be wastefully large either.
"""

from __future__ import annotations

import itertools
import math
import time

import mpmath as mp
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy.special import ndtri

from dpcount.errors import InvalidParameterError
from mechanisms.set_union.thresholds import (
    NovelWeight,
    _log_balle_wang_delta,
    _round_up,
    balle_wang_delta,
    gaussian_sigma,
    gaussian_threshold,
    laplace_threshold,
)

mp.mp.dps = 90

EPSILONS = [1e-16, 1e-14, 1e-10, 1e-7, 1e-3, 0.1, 1.0, 3.0, 20.0, 100.0]
DELTAS = [0.5, 1e-3, 1e-5, 1e-10, 1e-12, 1e-30, 1e-100, 1e-300]


def exact_delta(sigma: float, epsilon: float) -> mp.mpf:
    """δ(σ) = Φ(1/(2σ) − εσ) − e^ε Φ(−1/(2σ) − εσ) (Balle & Wang 2018, Thm 8), 90 digits."""
    s, e = mp.mpf(sigma), mp.mpf(epsilon)
    return mp.ncdf(1 / (2 * s) - e * s) - mp.exp(e) * mp.ncdf(-1 / (2 * s) - e * s)


@pytest.mark.parametrize(
    ("epsilon", "delta"),
    [(1e-14, 1e-12), (1e-7, 1e-10), *itertools.product(EPSILONS, DELTAS)],
)
def test_sigma_meets_delta_exactly_and_is_tight(epsilon: float, delta: float) -> None:
    sigma = gaussian_sigma(epsilon, delta)
    assert exact_delta(sigma, epsilon) <= delta
    # Not wasteful: 1e-9 less noise already misses δ (bisection rtol 1e-12 + the certificate).
    assert exact_delta(sigma * (1 - 1e-9), epsilon) > delta


def test_certified_bound_covers_the_float_evaluation() -> None:
    """log δ ≤ the certified bound, and δ̂ is accurate, on a log grid σ × ε."""
    checked = 0
    for sigma, epsilon in itertools.product(np.logspace(-2, 14, 33), np.logspace(-16, 2.5, 38)):
        exact = exact_delta(float(sigma), float(epsilon))
        if exact < mp.mpf("1e-300"):  # below float range: not a δ anyone asks for
            continue
        log_delta, log_upper = _log_balle_wang_delta(float(sigma), float(epsilon))
        log_exact = float(mp.log(exact))
        assert log_exact <= log_upper, (sigma, epsilon)
        assert log_upper - log_delta < 1e-6, (sigma, epsilon)  # every case resolved
        assert abs(log_delta - log_exact) <= log_upper - log_delta, (sigma, epsilon)
        checked += 1
    assert checked > 600


def test_unresolvable_delta_falls_back_to_the_phi_bound() -> None:
    """ε = 1e4: δ(σ) ≈ 0 beyond float precision; δ ≤ Φ(a) still certifies a small σ."""
    log_delta, log_upper = _log_balle_wang_delta(1.0, 1e4)
    assert log_upper < -1e7 and log_delta <= log_upper
    assert exact_delta(gaussian_sigma(1e4, 0.5), 1e4) <= 0.5
    assert exact_delta(gaussian_sigma(1e4, 0.5) * (1 - 1e-9), 1e4) > 0.5  # and tight


def test_balle_wang_delta_is_accurate_for_tiny_epsilon() -> None:
    for sigma, epsilon in [(396960620515.8579, 1e-14), (24364077.8, 1e-7), (3.73, 1.0)]:
        got = balle_wang_delta(sigma, epsilon)
        assert got == pytest.approx(float(exact_delta(sigma, epsilon)), rel=1e-12)


def test_sigma_beyond_float_range_is_refused() -> None:
    with pytest.raises(InvalidParameterError, match="cannot calibrate Gaussian noise"):
        gaussian_sigma(1e-300, 1e-300)


def _laplace_tail(rho: float, b: float, weight: mp.mpf, t: int) -> mp.mpf:
    """P(one of t novel items of this weight passes ρ) under Lap(b) noise, 90 digits."""
    return -mp.expm1(t * mp.log1p(-mp.exp(-(mp.mpf(rho) - weight) / b) / 2))


def _gauss_tail(rho: float, sigma: float, weight: mp.mpf, t: int) -> mp.mpf:
    return -mp.expm1(t * mp.log1p(-mp.ncdf(-(mp.mpf(rho) - weight) / sigma)))


@pytest.mark.parametrize("novel_weight", ["split", "unit"])
@pytest.mark.parametrize("scale", [0.01, 1 / 3, 1.0, 7.0, 1e3, 1e8])
@pytest.mark.parametrize("delta", [0.3, 1e-5, 1e-12, 1e-100, 1e-300])
def test_thresholds_bound_the_novel_items_exactly(
    novel_weight: NovelWeight, scale: float, delta: float
) -> None:
    """Gopi et al. Thm 4.1/5.1/A.1/A.2: every t ≤ Δ0 novel items pass ρ w.p. ≤ δ (δ/2 Gauss)."""
    max_items = 30
    lap = laplace_threshold(scale, delta, max_items, novel_weight=novel_weight)
    gauss = gaussian_threshold(scale, delta, max_items, novel_weight=novel_weight)
    worst_lap = worst_gauss = mp.mpf(0)
    for t in range(1, max_items + 1):
        split = novel_weight == "split"
        worst_lap = max(worst_lap, _laplace_tail(lap, scale, mp.mpf(1) / t if split else 1, t))
        weight = 1 / mp.sqrt(t) if split else mp.mpf(1)
        worst_gauss = max(worst_gauss, _gauss_tail(gauss, scale, weight, t))
    assert worst_lap <= delta and worst_gauss <= delta / 2
    # Tight: the worst t sits at the bound up to the ~1e-13 rounding margin.
    assert worst_lap > delta * (1 - 1e-9) and worst_gauss > delta / 2 * (1 - 1e-9)
    assert math.isfinite(lap) and math.isfinite(gauss)


def _scan(kind: str, scale: float, delta: float, max_items: int, novel_weight: str) -> float:
    """The plain maximum over every t = 1..Δ0 (the reference of the branch and bound)."""
    t = np.arange(1, max_items + 1, dtype=float)
    if kind == "laplace":  # Gopi Thm 4.1 / A.1
        weight = 1.0 / t if novel_weight == "split" else np.ones_like(t)
        return float((weight - scale * np.log(2.0 * -np.expm1(math.log1p(-delta) / t))).max())
    weight = t**-0.5 if novel_weight == "split" else np.ones_like(t)  # Gopi Thm 5.1 / A.2
    return float((weight - scale * ndtri(-np.expm1(math.log1p(-delta / 2.0) / t))).max())


@settings(max_examples=60, deadline=None)
@given(
    scale=st.floats(0.005, 1e3),
    log_delta=st.floats(-300.0, -0.5),
    max_items=st.integers(1, 30_000),
    novel_weight=st.sampled_from(["split", "unit"]),
)
def test_branch_and_bound_equals_the_full_scan(scale, log_delta, max_items, novel_weight):
    delta = 10.0**log_delta
    lap = laplace_threshold(scale, delta, max_items, novel_weight=novel_weight)
    gauss = gaussian_threshold(scale, delta, max_items, novel_weight=novel_weight)
    assert lap == _round_up(_scan("laplace", scale, delta, max_items, novel_weight), scale)
    assert gauss == _round_up(_scan("gauss", scale, delta, max_items, novel_weight), scale)


@pytest.mark.parametrize("novel_weight", ["split", "unit"])
def test_largest_max_items_is_fast(novel_weight: NovelWeight) -> None:
    start = time.perf_counter()
    for scale, delta in [(1 / 3, math.exp(-10)), (0.01, 1e-12), (3.7, 1e-6), (100.0, 0.3)]:
        laplace_threshold(scale, delta, 2**31 - 1, novel_weight=novel_weight)
        gaussian_threshold(scale, delta, 2**31 - 1, novel_weight=novel_weight)
    assert time.perf_counter() - start < 2.0
