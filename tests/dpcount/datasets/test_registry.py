"""names(), description() and load() of dpcount.datasets."""

from __future__ import annotations

import pytest

import dpcount
from dpcount import InvalidParameterError, datasets


def test_names_are_the_documented_ones():
    assert datasets.names() == [
        "reddit-like",
        "fashion-like",
        "tpch-ps-aq",
        "tpch-l-ep",
        "tpch-o-od",
        "tpch-l-rd",
        "southern-women",
    ]
    assert all(datasets.description(name) for name in datasets.names())


def test_load_dispatches():
    assert datasets.load("fashion-like", seed=4) == datasets.fashion_like(seed=4)
    assert datasets.load("reddit-like", scale_factor=0.002, seed=1) == datasets.reddit_like(
        0.002, 1
    )
    assert datasets.load("southern-women") == datasets.southern_women()


def test_load_tpch_dispatches(tpch_cache):
    g = datasets.load("tpch-o-od", scale_factor=0.01, cache_dir=tpch_cache)
    assert g == datasets.tpch("O.OD", 0.01, cache_dir=tpch_cache)


def test_load_errors():
    with pytest.raises(InvalidParameterError, match="choose one of 'reddit-like'"):
        datasets.load("reddit")
    with pytest.raises(InvalidParameterError, match="scale_factor must be 1"):
        datasets.load("southern-women", scale_factor=2)
    with pytest.raises(InvalidParameterError):
        datasets.description("nope")


def test_facade_exposes_the_module():
    assert dpcount.datasets is datasets
