"""A public ℓ (``ell=``, or ``ell_max=1``): no budget spent choosing it, the count gets all of ε.

Statistical tests use fixed seeds and state their false-failure rate (for a correct mechanism
and a fresh seed); each has a power check on the same draws: coverage must fail with half the
shift, and the noise test must reject a scale 30 % off (and the old scale 2ℓ/ε).
"""

from __future__ import annotations

import math

import numpy as np
import pytest
from scipy import stats

from dpcount import PersonItemGraph
from dpcount.common.rng import spawn
from dpcount.errors import InvalidParameterError
from mechanisms import privacy_loss_of
from mechanisms.distinct_count import (
    dp_distinct_count,
    dp_distinct_count_from_curve,
    public_ell,
)
from mechanisms.laplace import discrete_shift, laplace_scale

ALPHA = 1e-4  # false-failure rate of each statistical assertion

# Every person holds one item: DC(D;ℓ) = DC(D) for every ℓ, so the bound is tight.
FLAT = PersonItemGraph.from_sets({f"p{i:03d}": {i % 40} for i in range(120)})
# Persons with 1..5 items: DC(D;ℓ) grows up to ℓ = 5.
STEPS = PersonItemGraph.from_sets({f"p{i:02d}": set(range(i, i + 1 + i % 5)) for i in range(60)})


@pytest.mark.parametrize(
    ("kwargs", "match"),
    [
        ({"ell": 0}, "ell"),
        ({"ell": 2.5}, "ell"),
        ({"ell": True}, "ell"),
        ({"ell": -1}, "ell"),
        ({"ell": 2**31}, "ell"),
        ({"ell": 3, "selection": "gem_permute_and_flip"}, "selection='gem_permute_and_flip'"),
        ({"ell": 3, "selection": "max_degree"}, "fixes it"),
    ],
)
def test_bad_public_ell(kwargs, match):
    with pytest.raises(InvalidParameterError, match=match):
        dp_distinct_count(FLAT, 1.0, **kwargs)
    with pytest.raises(InvalidParameterError, match=match):
        privacy_loss_of(dp_distinct_count, epsilon=1.0, **kwargs)


@pytest.mark.parametrize(
    ("kwargs", "ell"),
    [({"ell": 1}, 1), ({"ell_max": 1}, 1), ({"ell": 4}, 4), ({"ell": 4, "ell_max": 2}, 4)],
)
@pytest.mark.parametrize("epsilon", [0.5, 1.0, 3.0])
def test_public_ell_spends_all_of_epsilon_on_the_count(kwargs, ell, epsilon):
    r = dp_distinct_count(STEPS, epsilon, rng=1, diagnostics=True, **kwargs)
    assert (r.ell, r.ell_max, r.selection) == (ell, ell, "public")
    assert r.scale == float(laplace_scale(ell, epsilon))  # ℓ/ε, not 2ℓ/ε
    assert r.shift == discrete_shift(laplace_scale(ell, epsilon), r.beta)
    loss = r.privacy_loss
    assert [p.epsilon for p in loss.parts] == [0.0, epsilon] and loss.epsilon == epsilon
    assert loss == privacy_loss_of(dp_distinct_count, epsilon=epsilon, **kwargs)
    assert loss == privacy_loss_of("dp_distinct_count", epsilon=epsilon, ell=ell)
    assert r.utilities is None and r.probabilities is None
    assert r.count_at_ell == int(r.curve[min(ell, r.curve.size) - 1])
    assert "nothing was spent choosing it" in str(r)


@pytest.mark.filterwarnings("ignore::dpcount.errors.UnsafeNoiseWarning")
@pytest.mark.parametrize(("noise", "kind"), [("exact", "discrete_laplace"), ("float", "laplace")])
def test_public_count_records_its_noise_for_tight_accountants(noise, kind):
    r = dp_distinct_count(STEPS, 2.0, ell=3, noise=noise, rng=0)
    curve = r.privacy_loss.parts[1].curve
    assert (curve.kind, curve.scale, curve.sensitivity) == (kind, r.scale, 3.0)
    assert r.privacy_loss == privacy_loss_of(dp_distinct_count, epsilon=2.0, ell=3, noise=noise)
    # GEM's ℓ̂ depends on the data: no curve is known in advance.
    gem_parts = dp_distinct_count(STEPS, 2.0, rng=0).privacy_loss.parts
    assert all(part.curve is None for part in gem_parts)


def test_gem_still_splits_epsilon():
    r = dp_distinct_count(STEPS, 1.0, ell_max=2, rng=1)
    assert r.selection == "gem" and r.scale == 2 * r.ell
    assert [p.epsilon for p in r.privacy_loss.parts] == [0.5, 0.5]
    assert public_ell(None, 2, "gem") is None and public_ell(None, 1, "max_degree") is None


def test_public_ell_beyond_the_largest_degree_and_from_a_curve():
    # The curve is flat from the largest degree (5) on: a huge public ℓ reads its last value.
    r = dp_distinct_count(STEPS, 1.0, ell=10**6, rng=0, diagnostics=True)
    assert r.count_at_ell == STEPS.n_items and r.curve.size == 5
    curve = r.curve
    again = dp_distinct_count_from_curve(curve, STEPS.degrees(), 1.0, ell=10**6, noise_rng=0)
    assert again.ell == 10**6 and again.selection == "public"
    with pytest.raises(InvalidParameterError, match="curve must hold"):
        dp_distinct_count_from_curve(curve[:2], STEPS.degrees(), 1.0, ell=3)


def _public_runs(graph, ell, n, seed, beta=0.05, eps=1.0, how="ell"):
    """(estimate, shift, DC(D;ℓ)) of n independent releases at a public ℓ.

    ``how="ell"`` passes ``ell=ell``; ``how="ell_max"`` passes ``ell_max=ell`` (ℓ = 1 only).
    """
    fixed = {how: ell}
    curve = np.asarray(dp_distinct_count(graph, eps, rng=0, diagnostics=True, **fixed).curve)
    noise_streams = spawn(seed, n)
    out = np.empty((n, 3))
    for k, stream in enumerate(noise_streams):
        r = dp_distinct_count_from_curve(
            curve, graph.degrees(), eps, beta=beta, noise_rng=stream, **fixed
        )
        assert r.selection == "public" and r.ell == ell
        out[k] = r.estimate, r.shift, curve[min(ell, curve.size) - 1]
    return out


def _mean_abs_discrete_laplace(scale: float) -> float:
    """E|Z| for P[Z = z] ∝ q^|z|, q = e^{−1/s}: 2q / (1 − q²)."""
    q = math.exp(-1.0 / scale)
    return 2 * q / (1 - q * q)


def _z_of_mean_abs(noise: np.ndarray, scale: float) -> float:
    q = math.exp(-1.0 / scale)
    second = 2 * q / (1 - q) ** 2  # E Z²
    sd = math.sqrt(second - _mean_abs_discrete_laplace(scale) ** 2)
    return (np.abs(noise).mean() - _mean_abs_discrete_laplace(scale)) / (sd / math.sqrt(noise.size))


@pytest.mark.parametrize(("ell", "epsilon"), [(1, 1.0), (3, 2.0)])
def test_noise_has_scale_ell_over_epsilon(ell, epsilon):
    # Z = ν̂ + shift − DC(D;ℓ) is the drawn noise.  Two-sided z-test of E|Z| against the
    # discrete Laplace of scale ℓ/ε (n = 3000; CLT), false-failure rate ALPHA.  Power: the same
    # draws are rejected against a scale 30 % larger or smaller and against 2ℓ/ε (the GEM
    # split that ell_max=1 used to pay): each is off by > 10 standard errors.
    runs = _public_runs(FLAT, ell, 3000, seed=11, eps=epsilon)
    noise = runs[:, 0] + runs[:, 1] - runs[:, 2]
    critical = stats.norm.isf(ALPHA / 2)
    scale = ell / epsilon
    assert abs(_z_of_mean_abs(noise, scale)) < critical
    for wrong in (1.3 * scale, 0.7 * scale, 2 * scale):
        assert abs(_z_of_mean_abs(noise, wrong)) > critical, wrong


@pytest.mark.parametrize(
    ("graph", "ell", "how"),
    [(FLAT, 1, "ell"), (FLAT, 1, "ell_max"), (STEPS, 2, "ell"), (STEPS, 5, "ell")],
)
def test_public_ell_bound_covers_with_probability_one_minus_beta(graph, ell, how):
    # Failures ~ Binomial(n, p) with p = P[Z > shift] ≤ β (FLAT, and STEPS at ℓ = 5, are
    # tight: DC(D;ℓ) = DC(D)); one-sided binomial test, false-failure rate ≤ ALPHA.  Power on
    # the tight cases: half the shift fails with probability ≈ 0.10 (ℓ = 1) and ≈ 0.14 (ℓ = 5),
    # ≈ 150–200 of 1500 runs where the test tolerates ≈ 107.
    n, beta = 1500, 0.05
    runs = _public_runs(graph, ell, n, seed=5, beta=beta, how=how)
    truth = graph.n_items
    failures = int(np.sum(runs[:, 0] > truth))
    assert stats.binomtest(failures, n, beta, alternative="greater").pvalue > ALPHA
    if runs[0, 2] == truth:
        half = int(np.sum(runs[:, 0] + runs[:, 1] / 2 > truth))
        assert stats.binomtest(half, n, beta, alternative="greater").pvalue < ALPHA, half


def test_a_session_charges_a_public_ell_as_nothing_plus_the_count():
    from mechanisms import SeededSession

    session = SeededSession(STEPS, epsilon=1.0, seed=2)
    r = session.dp_distinct_count(0.4, ell=2)
    entry = session.log[-1]
    assert entry.privacy_loss == r.privacy_loss
    assert entry.privacy_loss == privacy_loss_of(dp_distinct_count, epsilon=0.4, ell=2)
    assert [p.epsilon for p in entry.privacy_loss.parts] == [0.0, 0.4]
    assert r.scale == 5.0 and session.remaining.epsilon == pytest.approx(0.6)
