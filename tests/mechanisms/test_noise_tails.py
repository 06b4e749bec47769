"""Tails and quantiles of the discrete Laplace and discrete Gaussian against 100-digit mpmath."""

from __future__ import annotations

import math
from fractions import Fraction

import mpmath as mp
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from dpcount.errors import InvalidParameterError
from mechanisms.noise import (
    discrete_gaussian_log_tail,
    discrete_gaussian_pmf,
    discrete_gaussian_quantile,
    discrete_gaussian_tail,
    discrete_laplace_log_tail,
    discrete_laplace_quantile,
    discrete_laplace_tail,
)

DIGITS = 100


def _mp(x) -> mp.mpf:
    x = Fraction(x)
    return mp.mpf(x.numerator) / x.denominator


def mp_laplace_tail(k: int, scale) -> mp.mpf:
    """P[Z > k] by summing the pmf's geometric series in closed form (independent of the
    formula under test: Σ_{z>k} e^{−|z|/s} / Σ_z e^{−|z|/s})."""
    s = _mp(scale)
    q = mp.exp(-1 / s)
    norm = (1 + q) / (1 - q)
    if k >= 0:
        return q ** (k + 1) / (1 - q) / norm
    return 1 - mp_laplace_tail(-k - 1, scale)


def mp_gaussian_tail(k: int, sigma_squared) -> mp.mpf:
    """P[Z > k] for N_ℤ(0, σ²): direct summation for σ < 1000; from σ = 1000 on, mpmath's
    Euler–Maclaurin summation (``sumem``: corrections to any order from numerical
    derivatives) given the exact integral σ·√(π/2)·erfc(a/(σ√2)); normaliser by Poisson
    summation."""
    s2 = _mp(sigma_squared)
    norm = mp.sqrt(2 * mp.pi * s2) * (
        1 + 2 * mp.nsum(lambda n: mp.exp(-2 * mp.pi**2 * s2 * n * n), [1, mp.inf])
    )

    def term(z):
        return mp.exp(-z * z / (2 * s2))

    def tail_from(a: int) -> mp.mpf:
        if s2 < 10**6:
            count = int(mp.ceil(mp.sqrt(a * a + 520 * s2) - a)) + 2  # terms down to e^−260
            return mp.fsum(term(a + i) for i in range(count))
        integral = mp.sqrt(s2 * mp.pi / 2) * mp.erfc(a / mp.sqrt(2 * s2))
        return mp.sumem(term, [a, mp.inf], integral=integral)

    if k >= 0:
        return tail_from(k + 1) / norm
    return 1 - tail_from(-k) / norm


# --------------------------------------------------------------------------------------------
# Discrete Laplace
# --------------------------------------------------------------------------------------------


@pytest.mark.parametrize("scale", [0.3, 1.0, 4.0, 1000.0, Fraction(10**20, 3)])
@pytest.mark.parametrize("k", [-40, -1, 0, 3, 50, 10**6])
def test_laplace_tail_matches_mpmath(scale, k):
    with mp.workdps(DIGITS):
        exact = mp_laplace_tail(k, scale)
        if exact < mp.mpf("1e-300"):  # below float range: the log must still be right
            assert math.isclose(
                discrete_laplace_log_tail(k, scale), float(mp.log(exact)), rel_tol=1e-13
            )
            return
        assert math.isclose(discrete_laplace_tail(k, scale), float(exact), rel_tol=1e-12)
        assert math.isclose(
            discrete_laplace_log_tail(k, scale), float(mp.log(exact)), rel_tol=1e-12, abs_tol=1e-15
        )


@given(
    st.one_of(st.floats(1e-4, 1e9), st.fractions(Fraction(1, 10**6), Fraction(10**40))),
    st.one_of(st.floats(1e-300, 0.5), st.sampled_from([Fraction(1, 20), Fraction(1, 2)])),
)
@settings(max_examples=120, deadline=None)
def test_laplace_quantile_is_exact(scale, beta):
    # The smallest k with P[Z > k] ≤ β, checked at enough digits to resolve k (≤ 10⁴³).
    k = discrete_laplace_quantile(beta, scale)
    assert isinstance(k, int) and k >= 0
    with mp.workdps(DIGITS + 2 * len(str(k))):
        b = _mp(beta)
        assert mp_laplace_tail(k, scale) <= b
        assert k == 0 or mp_laplace_tail(k - 1, scale) > b


def test_laplace_quantile_any_epsilon_is_fast_and_exact():
    # ε down to 1e-300 (scale 1e300, a 300-digit k): closed form, no iteration over k.
    for eps in (1e-24, 1e-100, 1e-300, 5e-324):
        scale = Fraction(1) / Fraction(eps)
        k = discrete_laplace_quantile(0.05, scale)
        with mp.workdps(DIGITS + 2 * len(str(k))):
            assert mp_laplace_tail(k, scale) <= _mp(0.05) < mp_laplace_tail(k - 1, scale)


# --------------------------------------------------------------------------------------------
# Discrete Gaussian
# --------------------------------------------------------------------------------------------

GAUSSIAN_CASES = [
    (Fraction(1, 25), [-1, 0, 1]),  # σ = 0.2: the normaliser by direct summation
    (Fraction(1, 4), [-2, 0, 2, 5]),
    (1, [-3, -1, 0, 1, 4, 30]),
    (Fraction(49, 4), [-7, 0, 3, 20, 100]),
    (100, [-10, 0, 9, 40, 370]),
    (998_001, [-500, 999, 30_000]),  # σ = 999: the last direct summation
    (10**6, [-500, 0, 1000, 5000, 30_000]),  # σ = 1000: the first Euler–Maclaurin
    (10**10, [0, 10**5, 3 * 10**6]),
]


@pytest.mark.parametrize(("sigma_squared", "ks"), GAUSSIAN_CASES)
def test_gaussian_tail_matches_mpmath(sigma_squared, ks):
    with mp.workdps(DIGITS):
        for k in ks:
            exact = mp_gaussian_tail(k, sigma_squared)
            got = discrete_gaussian_log_tail(k, sigma_squared)
            assert math.isclose(got, float(mp.log(exact)), rel_tol=1e-12, abs_tol=1e-14), k
            if exact > mp.mpf("1e-300"):
                assert math.isclose(
                    discrete_gaussian_tail(k, sigma_squared), float(exact), rel_tol=1e-11
                )


def test_gaussian_pmf_matches_mpmath():
    for s2 in (Fraction(1, 9), 2, 10**4):
        z = np.array([0, 1, 7, 40])
        got = discrete_gaussian_pmf(z, s2)
        with mp.workdps(DIGITS):
            exact = [mp_gaussian_tail(k - 1, s2) - mp_gaussian_tail(k, s2) for k in z.tolist()]
        np.testing.assert_allclose(got, [float(e) for e in exact], rtol=1e-12, atol=1e-300)


@pytest.mark.parametrize("sigma_squared", [Fraction(1, 4), 1, 30, 10**4, 4 * 10**6])
@pytest.mark.parametrize("beta", [0.5, 0.05, 1e-6, 1e-40, 1e-300])
def test_gaussian_quantile_is_valid_and_minimal(sigma_squared, beta):
    k = discrete_gaussian_quantile(beta, sigma_squared)
    with mp.workdps(DIGITS):
        b = _mp(beta)
        assert mp_gaussian_tail(k, sigma_squared) <= b
        # Smallest up to the documented 1e-9 margin.
        assert k == 0 or mp_gaussian_tail(k - 1, sigma_squared) > b * (1 - mp.mpf("1e-9"))


def test_tail_validation():
    for bad_beta in (0, 0.6, -1, math.nan, "0.1"):
        with pytest.raises(InvalidParameterError):
            discrete_laplace_quantile(bad_beta, 1)
        with pytest.raises(InvalidParameterError):
            discrete_gaussian_quantile(bad_beta, 1)
    with pytest.raises(InvalidParameterError):
        discrete_gaussian_tail(1.5, 1)  # type: ignore[arg-type]
    with pytest.raises(InvalidParameterError):
        discrete_gaussian_tail(1, 1e301)
    with pytest.raises(InvalidParameterError):
        discrete_laplace_tail(1, 0)
