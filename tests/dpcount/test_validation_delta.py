"""The δ rule: refuse δ outside (0, 1), warn above a public bound, never look at the data."""

from __future__ import annotations

import math
import warnings

import pytest
from hypothesis import given
from hypothesis import strategies as st

from dpcount.errors import InvalidParameterError, LargeDeltaWarning
from dpcount.validation import (
    DELTA_PER_PERSON,
    DELTA_WARNING_BOUND,
    check_release_delta,
    delta_bound,
)


@pytest.mark.parametrize("bad", [0, -1e-9, 1, 1.5, math.nan, math.inf, "1e-6", None, True])
def test_delta_outside_the_open_unit_interval_is_refused(bad):
    with pytest.raises(InvalidParameterError, match="delta"):
        check_release_delta(bad)


def test_large_delta_warns_and_small_delta_does_not():
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert check_release_delta(DELTA_WARNING_BOUND) == DELTA_WARNING_BOUND
        assert check_release_delta(1e-12) == 1e-12
    for large in (0.5, 0.01, 2 * DELTA_WARNING_BOUND):
        with pytest.warns(LargeDeltaWarning, match="far below 1/n") as caught:
            assert check_release_delta(large, "--delta") == large
        assert "--delta=" in str(caught[0].message)


@given(st.integers(1, 10**12), st.floats(1e-300, 0.999))
def test_public_person_bound_sets_the_threshold(max_persons, delta):
    bound = delta_bound(max_persons)
    assert bound == DELTA_PER_PERSON / max_persons
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        check_release_delta(delta, max_persons=max_persons)
    assert bool(caught) == (delta > bound)
    assert all(w.category is LargeDeltaWarning for w in caught)


def test_person_bound_is_validated():
    for bad in (0, -3, 2.5, "10"):
        with pytest.raises(InvalidParameterError, match="max_persons"):
            check_release_delta(1e-9, max_persons=bad)


def test_the_warning_points_at_the_caller():
    def release(delta):
        return check_release_delta(delta, stacklevel=3)

    with pytest.warns(LargeDeltaWarning) as caught:
        release(0.1)
    assert caught[0].filename == __file__
