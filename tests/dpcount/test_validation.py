"""The shared parameter checks: values normalised, every bad value refused by name."""

from __future__ import annotations

import math

import numpy as np
import pytest

from dpcount import PersonItemGraph
from dpcount.errors import InvalidParameterError
from dpcount.validation import (
    MAX_ELL,
    MAX_ITEMS,
    check_graph,
    check_nonnegative,
    check_nonnegative_int,
    check_positive,
    check_real_in,
)


def test_limits_are_the_int32_item_ids() -> None:
    assert MAX_ELL == MAX_ITEMS == np.iinfo(np.int32).max


def test_check_graph_accepts_graphs_and_says_how_to_build_one() -> None:
    g = PersonItemGraph.from_sets({"a": {1}})
    assert check_graph(g) is g
    with pytest.raises(
        InvalidParameterError, match=r"^data must be a dpcount.PersonItemGraph, got"
    ):
        check_graph({"a": {1}}, "data")
    with pytest.raises(InvalidParameterError, match="from_pairs / from_sets / from_dataframe"):
        check_graph(None)


@pytest.mark.parametrize(
    ("value", "expected"), [(1, 1.0), (2.5, 2.5), (np.float32(0.25), 0.25), (np.int64(3), 3.0)]
)
def test_positive_and_nonnegative_accept_finite_reals(value: object, expected: float) -> None:
    assert check_positive(value, "x") == expected
    assert check_nonnegative(value, "x") == expected
    assert check_nonnegative(0, "x") == 0.0


@pytest.mark.parametrize(
    ("value", "match"),
    [
        (0, "x must be finite and > 0"),
        (-1.0, "x must be finite and > 0"),
        (math.inf, "x must be finite and > 0"),
        (math.nan, "x must be finite and > 0"),
        (True, "x must be a real number"),
        ("1", "x must be a real number"),
    ],
)
def test_check_positive_refuses(value: object, match: str) -> None:
    with pytest.raises(InvalidParameterError, match=match):
        check_positive(value, "x")


@pytest.mark.parametrize("value", [-1e-12, math.inf, math.nan])
def test_check_nonnegative_refuses(value: float) -> None:
    with pytest.raises(InvalidParameterError, match="y must be finite and >= 0"):
        check_nonnegative(value, "y")


def test_check_real_in_ends() -> None:
    assert check_real_in(1, "w", 0, 1, open_high=False) == 1.0
    assert check_real_in(0, "w", 0, 1, open_low=False) == 0.0
    for value in (0, 1):
        with pytest.raises(InvalidParameterError, match=r"w must lie in \(0, 1\), got"):
            check_real_in(value, "w", 0, 1)
    with pytest.raises(InvalidParameterError, match=r"w must lie in \(0, 0.5\] \(why\), got 0.6"):
        check_real_in(0.6, "w", 0, 0.5, open_high=False, note="why")


def test_check_nonnegative_int() -> None:
    assert check_nonnegative_int(np.int64(0), "j") == 0
    for bad in (-1, 1.0, True, "2"):
        with pytest.raises(InvalidParameterError, match="j must be a non-negative integer"):
            check_nonnegative_int(bad, "j")
