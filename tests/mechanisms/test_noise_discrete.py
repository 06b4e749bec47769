"""Exact discrete samplers: counter-based streams, compiled = interpreted, distributions.

Statistical tests use fixed seeds and state their false-failure rate; each has a power check:
the same test must reject a sampler whose σ (or scale) is 30% off.
"""

from __future__ import annotations

import math
from fractions import Fraction

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy import stats

import mechanisms.noise.discrete as discrete
from dpcount.common import cores
from dpcount.errors import InvalidParameterError
from mechanisms.noise import (
    NoiseKey,
    discrete_gaussian,
    discrete_gaussian_pmf,
    discrete_gaussian_rows,
    discrete_laplace,
    discrete_laplace_pmf,
    discrete_laplace_rows,
    noise_key,
    noise_key_from_bytes,
    rational_variance_at_least,
)
from mechanisms.noise import _kernels as kernels
from mechanisms.noise.counter import (
    STATE_SIZE,
    RowStream,
    new_state,
    philox4x64,
    round_keys,
    stream_bits,
)
from mechanisms.noise.discrete import _gaussian_fits, _gaussian_parameters, _gaussian_split

ALPHA = 1e-4  # false-failure rate of each statistical assertion


def chi2_pvalue(samples: np.ndarray, pmf) -> float:
    """χ² of integer samples against a symmetric pmf on ℤ.

    Bins: each z with |z| < k, and the two tails z ≤ −k and z ≥ k, for the largest k whose
    cell still expects ≥ 5 draws.
    """
    n = samples.size
    k = 1
    while pmf(np.array([k + 1]))[0] * n >= 5:
        k += 1
    inner = np.arange(-k + 1, k)
    p_inner = pmf(inner)
    tail = max(0.0, (1.0 - p_inner.sum()) / 2)
    observed = np.concatenate(
        [
            [np.sum(samples <= -k)],
            np.bincount(samples[np.abs(samples) < k] + k - 1, minlength=2 * k - 1),
            [np.sum(samples >= k)],
        ]
    )
    expected = n * np.concatenate([[tail], p_inner, [tail]])
    expected *= n / expected.sum()  # the float pmf sums to 1 within ~1e-15
    return float(stats.chisquare(observed, expected).pvalue)


# --------------------------------------------------------------------------------------------
# The counter-based stream
# --------------------------------------------------------------------------------------------


def test_philox_matches_numpy_and_random123():
    assert philox4x64((0, 0, 0, 0), (0, 0)) == [
        0x16554D9ECA36314C,
        0xDB20FE9D672D0FDC,
        0xD7E772CEE186176B,
        0x7E68B68AEC7BA23B,
    ]
    rng = np.random.default_rng(0)
    for _ in range(20):
        key = [int(x) for x in rng.integers(0, 2**64, size=2, dtype=np.uint64)]
        counter = [int(x) for x in rng.integers(0, 2**63, size=4, dtype=np.uint64)]
        bg = np.random.Philox(
            key=np.array(key, dtype=np.uint64), counter=np.array(counter, dtype=np.uint64)
        )
        counter[0] += 1  # numpy increments the counter before its first block
        assert philox4x64(tuple(counter), tuple(key)) == bg.random_raw(4).tolist()


def test_compiled_stream_reads_the_same_bits_as_its_python_twin():
    key = noise_key(5)
    python_state = new_state(round_keys(key), 77, 3)
    compiled_state = np.array(python_state, dtype=np.uint64)
    assert compiled_state.size == STATE_SIZE
    takes = np.random.default_rng(1).integers(1, 33, size=600).tolist()
    compiled = [int(kernels._bits.compiled(compiled_state, t)) for t in takes]
    assert compiled == [stream_bits(python_state, t) for t in takes]


def test_row_stream_depends_on_key_row_and_stream_only():
    key = noise_key(2)
    first = [RowStream(key, 9, 1).bits(32) for _ in range(2)]
    assert first[0] == first[1]
    others = {
        RowStream(key, 10, 1).bits(32),
        RowStream(key, 9, 2).bits(32),
        RowStream(noise_key(3), 9, 1).bits(32),
    }
    assert first[0] not in others
    with pytest.raises(InvalidParameterError):
        RowStream(key, 1).bits(33)


def test_noise_keys():
    assert noise_key(4) == noise_key(4) != noise_key(5)
    assert noise_key(None) != noise_key(None)
    assert noise_key_from_bytes(bytes(range(32))) == NoiseKey(
        int.from_bytes(bytes(range(8)), "little"), int.from_bytes(bytes(range(8, 16)), "little")
    )
    assert "secret" in repr(noise_key(1)) and str(noise_key(1).low) not in repr(noise_key(1))
    for bad in (b"short", "x" * 32):
        with pytest.raises(InvalidParameterError):
            noise_key_from_bytes(bad)  # type: ignore[arg-type]
    with pytest.raises(InvalidParameterError):
        NoiseKey(-1, 0)


# --------------------------------------------------------------------------------------------
# Compiled and interpreted forms agree, including rows redone in Python ints
# --------------------------------------------------------------------------------------------


def _compiled_laplace(t: int, s: int, rows: np.ndarray, key: NoiseKey):
    out = np.empty(rows.size, dtype=np.int64)
    pending = np.zeros(rows.size, dtype=np.uint8)
    template = np.array(new_state(round_keys(key), 0, 0), dtype=np.uint64)
    kernels.laplace_rows.compiled(template, rows, t, s, out, pending)
    return out, pending


def _compiled_gaussian(a: int, b: int, t: int, split: bool, rows: np.ndarray, key: NoiseKey):
    out = np.empty(rows.size, dtype=np.int64)
    pending = np.zeros(rows.size, dtype=np.uint8)
    template = np.array(new_state(round_keys(key), 0, 0), dtype=np.uint64)
    kernels.gaussian_rows.compiled(template, rows, a, b, t, split, out, pending)
    return out, pending


@pytest.mark.parametrize(("t", "s"), [(1, 1), (3, 1), (7, 2), (1, 5), (2**40 + 3, 2**32)])
def test_laplace_compiled_equals_interpreted(t, s):
    key = noise_key(t % 1000)
    rows = np.arange(1000, 1200, dtype=np.uint64)
    out, pending = _compiled_laplace(t, s, rows, key)
    assert not pending.any()
    keys = round_keys(key)
    interpreted = [
        kernels.laplace_row.interpreted(new_state(keys, int(r), 0), t, s, False)[1] for r in rows
    ]
    assert out.tolist() == interpreted


@pytest.mark.parametrize(
    ("a", "b", "split"),
    [
        (1, 1, False),
        (9, 4, False),
        (100, 1, False),
        (13, 7, False),
        (10**9, 1, False),  # σ ≈ 31623 unsplit: |Y|·t − σ² passes 2³¹ beyond |Y| ≈ 2.3σ
        (10**9, 1, True),
        (10**12 + 7, 1, True),
        (2**40 + 1, 2**20, True),
    ],
)
def test_gaussian_compiled_equals_interpreted_and_redoes_pending_rows(a, b, split):
    key = noise_key(a % 997)
    a_, b_, t = _gaussian_parameters(Fraction(a, b))
    rows = np.arange(200, dtype=np.uint64)
    out, pending = _compiled_gaussian(a_, b_, t, split, rows, key)
    keys = round_keys(key)
    interpreted = [
        kernels.gaussian_row.interpreted(new_state(keys, int(r), 0), a_, b_, t, split, False)[1]
        for r in rows
    ]
    done = pending == 0
    assert out[done].tolist() == np.array(interpreted)[done].tolist()
    if (a, split) == (10**9, False):  # rows to redo in Python ints, and some done compiled
        assert 0 < pending.sum() < rows.size
    else:
        assert not pending.any()
    if split == _gaussian_split(a_, b_, t):  # the public function's own choice of coin
        assert _gaussian_fits(a_, b_, t)
        assert discrete_gaussian_rows(Fraction(a, b), key, rows).tolist() == interpreted


def test_split_and_plain_acceptance_coins_draw_the_same_distribution():
    # σ = 1000 both ways: χ² of the split form against the exact pmf (false-failure rate
    # ALPHA), with the power check of a 30% larger σ.
    a, b, t = _gaussian_parameters(Fraction(10**6))
    rows = np.arange(20_000, dtype=np.uint64)
    split, pending = _compiled_gaussian(a, b, t, True, rows, noise_key(31))
    assert not pending.any()
    assert chi2_pvalue(split, lambda k: discrete_gaussian_pmf(k, 10**6)) > ALPHA
    assert chi2_pvalue(split, lambda k: discrete_gaussian_pmf(k, 1.69e6)) < ALPHA


def test_small_and_large_calls_agree_row_by_row():
    key = noise_key(8)
    rows = np.arange(5000, dtype=np.uint64)  # compiled
    few = np.array([4999, 17, 0], dtype=np.uint64)  # interpreted
    for draw in (discrete_laplace_rows, discrete_gaussian_rows):
        many = draw(Fraction(25, 3), key, rows)
        assert many[few.astype(np.int64)].tolist() == draw(Fraction(25, 3), key, few).tolist()


def test_a_draw_on_two_threads_equals_one_call(monkeypatch):
    # Rows on two threads (the default above PARALLEL_ROWS) against one call: value for value.
    monkeypatch.setattr(cores, "available_cores", lambda: 2)
    key = noise_key(21)
    rows = np.arange(2 * discrete.PARALLEL_ROWS + 7, dtype=np.uint64)
    split = discrete_gaussian_rows(Fraction(10**8), key, rows)
    monkeypatch.setattr(discrete, "PARALLEL_ROWS", rows.size + 1)
    assert np.array_equal(split, discrete_gaussian_rows(Fraction(10**8), key, rows))


def test_rows_streams_and_duplicates():
    key = noise_key(11)
    rows = np.arange(3000, dtype=np.uint64)
    a = discrete_gaussian_rows(100, key, rows)
    assert not np.array_equal(a, discrete_gaussian_rows(100, key, rows, stream=1))
    assert not np.array_equal(a, discrete_gaussian_rows(100, noise_key(12), rows))
    twice = discrete_gaussian_rows(100, key, np.array([7, 7, 8], dtype=np.uint64))
    assert twice[0] == twice[1] == a[7]
    signed = np.array([-1, 5], dtype=np.int64)  # ids are taken modulo 2⁶⁴
    assert np.array_equal(
        discrete_laplace_rows(3, key, signed),
        discrete_laplace_rows(3, key, np.array([2**64 - 1, 5], dtype=np.uint64)),
    )
    assert discrete_laplace_rows(3, key, np.array([], dtype=np.uint64)).shape == (0,)


def test_values_beyond_64_bits_come_back_as_python_ints():
    z = discrete_laplace(Fraction(2**80), rng=3, size=4)
    assert z.dtype == object and all(isinstance(v, int) for v in z)
    assert max(abs(v) for v in z) > 2**63  # |Z| ≤ 2⁶³ has probability ~4·2⁻¹⁷
    big = discrete_gaussian(Fraction(2**130), rng=3)  # σ = 2⁶⁵: arbitrary precision
    assert isinstance(big, int)


def test_validation():
    key = noise_key(0)
    for bad in (0, -1.0, math.nan, math.inf, "2", True, Fraction(-1, 3)):
        with pytest.raises(InvalidParameterError):
            discrete_gaussian(bad, rng=0)
        with pytest.raises(InvalidParameterError):
            discrete_laplace(bad, rng=0)
    for bad_rows in (np.zeros((2, 2), dtype=np.uint64), np.array([0.5]), [[1]]):
        with pytest.raises(InvalidParameterError):
            discrete_gaussian_rows(1, key, bad_rows)
    for bad_stream in (-1, 2**64, 1.5, True):
        with pytest.raises(InvalidParameterError):
            discrete_laplace_rows(1, key, [1], stream=bad_stream)
    with pytest.raises(InvalidParameterError):
        discrete_laplace_rows(1, (1, 2), [1])  # type: ignore[arg-type]
    for bad_size in (-1, 2.0, True):
        with pytest.raises(InvalidParameterError):
            discrete_gaussian(1, rng=0, size=bad_size)  # type: ignore[arg-type]


@given(st.floats(1e-9, 1e12))
@settings(max_examples=60, deadline=None)
def test_rational_variance_at_least(sigma_squared):
    v = rational_variance_at_least(sigma_squared)
    assert v >= Fraction(sigma_squared)
    a, b, t = _gaussian_parameters(v)
    if sigma_squared < 2e12:  # σ ≲ 1.4·10⁶: the compiled sampler applies
        assert _gaussian_fits(a, b, t)
    if 1e-2 <= sigma_squared:  # a numerator of ≥ 24 bits (or an integer above 2²⁵)
        assert (v - Fraction(sigma_squared)) / Fraction(sigma_squared) < Fraction(1, 2**24)


# --------------------------------------------------------------------------------------------
# Distributions (χ² against the exact pmf, with power checks)
# --------------------------------------------------------------------------------------------


@pytest.mark.parametrize("sigma", [0.5, 1.0, 3.5, 10.0, Fraction(7, 3)])
def test_discrete_gaussian_matches_pmf_and_detects_a_30_percent_wrong_sigma(sigma):
    # χ² with false-failure rate ALPHA.  Power: the same test against the pmf of a 30% larger
    # or smaller σ rejects (20k draws give a non-centrality in the hundreds).
    s2 = Fraction(sigma) ** 2
    z = discrete_gaussian(s2, rng=int(100 * float(sigma)), size=20_000)
    assert z.dtype == np.int64
    assert chi2_pvalue(z, lambda k: discrete_gaussian_pmf(k, s2)) > ALPHA
    assert chi2_pvalue(z, lambda k: discrete_gaussian_pmf(k, s2 * Fraction(169, 100))) < ALPHA
    assert chi2_pvalue(z, lambda k: discrete_gaussian_pmf(k, s2 * Fraction(49, 100))) < ALPHA


@pytest.mark.parametrize("scale", [0.4, 3.0, Fraction(1000, 7)])
def test_keyed_discrete_laplace_matches_pmf_and_detects_a_30_percent_wrong_scale(scale):
    # As above, for the keyed form with scattered row ids (false-failure rate ALPHA).
    rows = np.random.default_rng(5).integers(0, 2**63, size=20_000).astype(np.uint64)
    z = discrete_laplace_rows(scale, noise_key(9), rows, stream=4)
    s = float(scale)
    assert chi2_pvalue(z, lambda k: discrete_laplace_pmf(k, s)) > ALPHA
    assert chi2_pvalue(z, lambda k: discrete_laplace_pmf(k, 1.3 * s)) < ALPHA
    assert chi2_pvalue(z, lambda k: discrete_laplace_pmf(k, 0.7 * s)) < ALPHA


def test_discrete_gaussian_large_sigma_moments():
    # σ = 1000 (the compiled path with σ² = 10⁶): the sample variance of 20k draws has relative
    # sd √(2/n) ≈ 1%; 5.5 sd (false-failure rate < 1e-7) is 5.5%, far below the 69% / 51%
    # change of a 30% error in σ, which this test therefore rejects.
    z = discrete_gaussian(10**6, rng=21, size=20_000).astype(float)
    tolerance = 5.5 * math.sqrt(2 / z.size)
    assert abs(z.var() / 1e6 - 1) < tolerance
    assert abs(z.mean()) < 5.5 * 1000 / math.sqrt(z.size)
    for wrong in (1.3, 0.7):  # power: the same test rejects σ off by 30%
        assert abs(z.var() / (wrong * 1000) ** 2 - 1) >= tolerance
