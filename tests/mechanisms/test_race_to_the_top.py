"""Tests of R2T (mechanisms/race_to_the_top.py).

Statistical tests use fixed seeds; each states its false-failure rate and has a power check:
the same test, run on a deliberately wrong mechanism (shift or noise scale off by 30 %), fails.
"""

from __future__ import annotations

import math
from fractions import Fraction

import numpy as np
import pytest
from hypothesis import given, settings
from scipy import stats

import mechanisms.race_to_the_top as r2t_module
from dpcount import PersonItemGraph
from dpcount.errors import InvalidParameterError, UnsafeNoiseWarning
from mechanisms.laplace import discrete_shift, discrete_tail, laplace_scale
from mechanisms.race_to_the_top import r2t, r2t_thresholds, release_r2t, truncated_counts
from tests.strategies import neighbours

ALPHA = 1e-3  # false-failure rate of each statistical test below


def _singletons(n: int) -> PersonItemGraph:
    """n persons with one private item each: DC(D;τ) = DC(D) = n for every τ ≥ 1."""
    return PersonItemGraph.from_sets({f"p{i:04d}": {i} for i in range(n)})


# --------------------------------------------------------------------------------------------
# Thresholds
# --------------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("gs", "base", "expected"),
    [
        (8, 2, (2, 4, 8)),  # GS an exact power: k = log2 GS = 3, τ_k = GS
        (7, 2, (2, 4)),
        (2**40, 2, tuple(2**j for j in range(1, 41))),
        (1000, 10, (10, 100, 1000)),  # float log10(1000)/… would give k = 2
        (243, 3, (3, 9, 27, 81, 243)),
        (10**6, 5.5, (5, 30, 166, 915, 5032, 27680, 152243, 837339)),
        (1, 2, (1,)),  # GS < base: k = 1, τ_1 = GS (documented degenerate case)
        (5, 5.5, (5,)),
        (4, 1.5, (1, 2, 3)),  # ⌊1.5⌋, ⌊2.25⌋, ⌊3.375⌋; ⌊5.06⌋ > 4
        (3, 1.1, (1, 2)),  # duplicates of ⌊1.1^j⌋ dropped
    ],
)
def test_thresholds(gs, base, expected):
    assert r2t_thresholds(gs, base) == expected


def test_thresholds_k_is_floor_log():
    for gs in range(1, 300):
        k = len(r2t_thresholds(gs, 2))
        assert k == max(1, gs.bit_length() - 1)  # ⌊log2 GS⌋, at least 1


@pytest.mark.parametrize(
    ("gs", "base"), [(0, 2), (2.5, 2), (10, 1), (10, 0.5), (10, float("inf")), (10, True)]
)
def test_thresholds_reject(gs, base):
    with pytest.raises(InvalidParameterError):
        r2t_thresholds(gs, base)


# --------------------------------------------------------------------------------------------
# Truncated counts and their sensitivity
# --------------------------------------------------------------------------------------------


def test_truncated_counts_vector():
    g = PersonItemGraph.from_sets({"a": {1, 2, 3}, "b": {1}, "c": {1}, "d": set()})
    assert truncated_counts(g, (1, 2, 4, 2**30)).tolist() == [2, 3, 3, 3]
    assert truncated_counts(PersonItemGraph.from_sets({"a": set()}), (2, 4)).tolist() == [0, 0]


@settings(max_examples=100)
@given(pair=neighbours(max_persons=6, max_items=8))
def test_truncated_counts_sensitivity(pair):
    """|DC(D;τ) − DC(D';τ)| ≤ τ on neighbours: the sensitivity each release is calibrated to."""
    smaller, larger = pair
    taus = r2t_thresholds(16)
    diff = truncated_counts(larger, taus) - truncated_counts(smaller, taus)
    assert np.all(diff >= 0) and np.all(diff <= np.array(taus))


# --------------------------------------------------------------------------------------------
# The release
# --------------------------------------------------------------------------------------------


def test_release_arithmetic():
    g = _singletons(500)
    r = r2t(g, 0.5, beta=0.2, max_contribution=16, rng=9)
    k = 4
    assert r.thresholds == (2, 4, 8, 16)
    for tau, shift, cand in zip(r.thresholds, r.shifts, r.candidates, strict=True):
        scale = laplace_scale(k * tau, 0.5)
        assert scale == Fraction(k * tau * 2)
        assert shift == discrete_shift(scale, 0.2 / (2 * k))
        # Same failure as the continuous shift k·τ·ln(k/β)/ε, within one unit.
        assert abs(shift - k * tau * math.log(k / 0.2) / 0.5) <= 1
        assert isinstance(cand, int)
    assert r.estimate == max(0, *r.candidates)
    assert r.secure and r.noise == "exact"
    assert r.privacy_loss.epsilon == 0.5
    assert [p.epsilon for p in r.privacy_loss.parts] == [0.125] * 4
    assert "R2TResult(estimate=" in repr(r)


def test_reproducible_and_independent_streams():
    g = _singletons(200)
    a = r2t(g, 1.0, max_contribution=64, rng=4)
    b = r2t(g, 1.0, max_contribution=64, rng=4)
    assert a == b
    noise = np.array(a.candidates) + np.array(a.shifts) - 200
    assert len(set(noise.tolist())) > 1  # not the same draw reused for every threshold


def test_float_noise_warns_and_is_insecure():
    with pytest.warns(UnsafeNoiseWarning):
        r = r2t(_singletons(100), 1.0, max_contribution=8, noise="float", rng=1)
    assert not r.secure and isinstance(r.estimate, float | int)
    assert r.shifts[0] == pytest.approx(3 * 2 * math.log(3 / 0.05))  # the default β


def test_output_is_clamped_at_zero():
    r = r2t(_singletons(3), 0.1, max_contribution=2**10, rng=0)
    assert r.estimate == 0 and r.selected is None


def test_selected_threshold_tracks_the_truncation():
    # 40 persons with 30 private items each: DC(D;τ) = 40·τ up to τ = 30; the winner must be a
    # threshold where the truncated count is large relative to its shift.
    g = PersonItemGraph.from_sets({f"p{i}": {f"{i}-{k}" for k in range(30)} for i in range(40)})
    r = r2t(g, 4.0, max_contribution=64, rng=1)
    assert r.selected in (16, 32)
    assert 0 < r.estimate <= 1200


@pytest.mark.parametrize(
    ("kwargs", "match"),
    [
        ({"epsilon": -1}, "epsilon"),
        ({"beta": 0}, "beta"),
        ({"max_contribution": 0}, "max_contribution"),
        ({"base": 1}, "base"),
        ({"noise": "gaussian"}, "noise"),
    ],
)
def test_rejects_bad_parameters(kwargs, match):
    params = {"epsilon": 1.0, "beta": 0.1, "max_contribution": 8, **kwargs}
    with pytest.raises(InvalidParameterError, match=match):
        r2t(_singletons(5), params.pop("epsilon"), beta=params.pop("beta"), **params)


def test_release_validates_counts():
    with pytest.raises(InvalidParameterError, match="one count per threshold"):
        release_r2t([1, 2], (2, 4, 8), 1.0, max_contribution=8)


# --------------------------------------------------------------------------------------------
# Under-estimate with probability ≥ 1 − β/2 (statistical, with power checks)
# --------------------------------------------------------------------------------------------

N_RUNS = 3000
EPS, BETA, GS = 1.0, 0.2, 8  # k = 3, per-release failure β/(2k) = 1/30


def _over_rate(monkeypatch=None, shift_factor=1.0, scale_factor=1.0, seed=77) -> int:
    """Number of over-estimates in N_RUNS releases with DC(D;τ_j) = DC(D) for every j.

    With ``monkeypatch`` the mechanism is deliberately broken: shifts scaled by
    ``shift_factor`` or the noise scale by ``scale_factor`` (for the power checks).
    """
    if monkeypatch is not None:
        shift, noise = r2t_module._shift, r2t_module.discrete_laplace
        monkeypatch.setattr(
            r2t_module, "_shift", lambda s, f, n: math.floor(shift(s, f, n) * shift_factor)
        )
        monkeypatch.setattr(
            r2t_module,
            "discrete_laplace",
            lambda s, rng=None: noise(s * Fraction(scale_factor), rng=rng),
        )
    thresholds = r2t_thresholds(GS)
    truth = 1000
    gen = np.random.default_rng(seed)
    over = 0
    for _ in range(N_RUNS):
        r = release_r2t(
            [truth] * len(thresholds), thresholds, EPS, beta=BETA, max_contribution=GS, rng=gen
        )
        over += r.estimate > truth
    return over


def _exact_over_probability() -> float:
    """1 − Π_j P[Z_j ≤ shift_j]: the exact over-estimate probability of the correct mechanism."""
    k = len(r2t_thresholds(GS))
    p_ok = 1.0
    for tau in r2t_thresholds(GS):
        scale = laplace_scale(k * tau, EPS)
        p_ok *= 1 - discrete_tail(discrete_shift(scale, BETA / (2 * k)), float(scale))
    return 1 - p_ok


def _coverage_ok(over: int) -> bool:
    """One-sided binomial test of H0: P[over-estimate] ≤ β/2, level ALPHA."""
    return stats.binomtest(over, N_RUNS, BETA / 2, alternative="greater").pvalue > ALPHA


def test_coverage():
    """P[R2T > DC(D)] ≤ β/2: exactly (union bound) and empirically; false failure ≤ 1e-3."""
    p = _exact_over_probability()
    assert 0.8 * BETA / 2 < p <= BETA / 2  # tight: the test below has something to detect
    over = _over_rate()
    assert _coverage_ok(over)
    # And the rate matches the exact probability (two-sided), so the noise law is right.
    assert stats.binomtest(over, N_RUNS, p).pvalue > ALPHA


def test_coverage_power_shift(monkeypatch):
    """Power: a shift 30 % too small is detected by the same test."""
    assert not _coverage_ok(_over_rate(monkeypatch, shift_factor=0.7))


def test_coverage_power_scale(monkeypatch):
    """Power: noise 30 % too wide (shift unchanged) is detected by the same test."""
    assert not _coverage_ok(_over_rate(monkeypatch, scale_factor=1.3))
