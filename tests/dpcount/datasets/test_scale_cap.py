"""A huge scale factor is refused before anything is built (issue 24: ``MemoryError``)."""

from __future__ import annotations

import pytest

from dpcount import datasets
from dpcount.datasets import _synthetic
from dpcount.errors import InvalidParameterError


@pytest.mark.parametrize("name", ["reddit-like", "fashion-like", "tpch-o-od"])
@pytest.mark.parametrize("scale_factor", [1e12, datasets.MAX_SCALE_FACTOR * 1.001])
def test_a_scale_factor_above_the_cap_is_refused_before_building(monkeypatch, name, scale_factor):
    def fail(**kwargs: object) -> None:
        raise AssertionError("built before the scale factor was checked")

    monkeypatch.setattr(_synthetic, "synthetic", fail)
    with pytest.raises(InvalidParameterError, match="scale_factor must be at most 100"):
        datasets.load(name, scale_factor=scale_factor)


@pytest.mark.parametrize("function", [datasets.reddit_like, datasets.fashion_like])
def test_the_presets_refuse_it_too(function):
    with pytest.raises(InvalidParameterError, match="at most 100"):
        function(scale_factor=1e12)
    with pytest.raises(InvalidParameterError, match="positive number"):
        function(scale_factor=True)


def test_the_cap_itself_is_accepted_by_the_check():
    assert _synthetic.check_scale_factor(datasets.MAX_SCALE_FACTOR) == 100.0
