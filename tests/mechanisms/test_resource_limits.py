"""Parameters that size arrays are bounded in memory or refused before anything is allocated."""

from __future__ import annotations

import tracemalloc

import numpy as np
import pytest

from dpcount import PersonItemGraph
from dpcount.errors import InvalidParameterError
from mechanisms import dp_sips, grouped_distinct_count, r2t, set_union, shifted_inverse
from mechanisms.inverse import lp_inverse
from mechanisms.set_union.calibration import MECHANISMS
from mechanisms.shifted_inverse_mechanism import MAX_TAU, plan_shifted_inverse

GRAPH = PersonItemGraph.from_sets({f"p{k}": {k, k + 1, 99} for k in range(30)})
MiB = 2**20


def _peak(call) -> int:
    """Peak traced memory of one call (that it returns at all shows its loops are bounded; no
    timing here: speed lives in benchmarks/)."""
    tracemalloc.start()
    try:
        call()
    finally:
        peak = tracemalloc.get_traced_memory()[1]
        tracemalloc.stop()
    return peak


@pytest.mark.parametrize(
    ("call", "match"),
    [
        (lambda: shifted_inverse(GRAPH, 1e-7, upper=1000), "too small for the shifted inverse"),
        (lambda: r2t(GRAPH, 1.0, max_contribution=10**6, base=1 + 1e-9), "too close to 1"),
        (lambda: dp_sips(GRAPH, 1.0, 1e-6, max_items=3, rounds=10**9), "rounds must be at most"),
        (lambda: shifted_inverse(GRAPH, 1.0, upper=1e12, log_domain=False), "MAX_GRID_POINTS"),
    ],
)
def test_huge_sizes_are_refused_at_once(call, match: str) -> None:
    tracemalloc.start()
    try:
        with pytest.raises(InvalidParameterError, match=match) as info:
            call()
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert peak < 4 * MiB  # refused before the work the size asks for, not after
    assert "\n" not in str(info.value)


def test_shift_beyond_the_persons_repeats_the_last_inverse_value() -> None:
    """f̌_j is constant for j ≥ n (everyone removed): the padded plan equals the full one."""
    plan = plan_shifted_inverse(GRAPH, 0.05, upper=100, log_domain=False)
    assert 2 * plan.tau > GRAPH.n_persons
    np.testing.assert_array_equal(plan.inverse_values, lp_inverse(GRAPH, 2 * plan.tau))


def test_small_epsilon_within_the_limit_runs_in_small_memory() -> None:
    plan = plan_shifted_inverse(GRAPH, 2e-4, upper=100, log_domain=False)
    assert GRAPH.n_persons < 2 * plan.tau <= 2 * MAX_TAU
    peak = _peak(lambda: shifted_inverse(GRAPH, 2e-4, upper=100, rng=0))
    assert peak < 50 * MiB


def test_huge_bounds_that_need_no_array_run_fast() -> None:
    peak = _peak(lambda: r2t(GRAPH, 1.0, max_contribution=2**40, rng=0))
    assert peak < 20 * MiB
    triples = [(p, "g", i) for p, items in [("a", (1, 2)), ("b", (2, 3))] for i in items]
    peak = _peak(
        lambda: grouped_distinct_count(
            triples, 1.0, groups=["g"], max_groups=1, ell_max=2**31 - 1, rng=0
        )
    )
    assert peak < 20 * MiB


@pytest.mark.parametrize("name", MECHANISMS)
@pytest.mark.filterwarnings("ignore::dpcount.errors.UnsafeNoiseWarning")  # float-only ones too
def test_set_union_with_the_largest_max_items(name: str) -> None:
    """Δ0 sizes only the threshold search (branch and bound) and per-person caps."""
    mechanism = getattr(set_union, name)
    peak = _peak(lambda: mechanism(GRAPH, 1.0, 1e-6, max_items=2**31 - 1, rng=0))
    assert peak < 50 * MiB
