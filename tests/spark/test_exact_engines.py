"""A seeded Spark release with exact noise equals the local one bit for bit.

The same function is called on both engines, with a graph or with the Spark pairs
(:class:`dpcount.spark.SparkPairs`, through the mechanisms' Spark adapter).

Both engines weigh in the same integer units, key each item's discrete noise by its label and
the release's noise key (drawn from the same stream layout), and compare integers with the same
integer threshold; so the released items are identical, not just close.  Items sit near the
threshold, so that releases differ between seeds (the equality is not a trivial one).
"""

from __future__ import annotations

import functools
import warnings
from typing import Any

import pytest

from dpcount import PersonItemGraph
from dpcount.errors import UnsafeNoiseWarning
from dpcount.spark import SparkPairs
from mechanisms import registry, set_union
from mechanisms.set_union.calibration import EXACT

OPTIONS = {"dp_sips": {"rounds": 2, "ratio": 0.5}}


@pytest.fixture(scope="module")
def data(skewed_pairs: tuple[Any, PersonItemGraph]) -> tuple[Any, PersonItemGraph]:
    return skewed_pairs


@pytest.mark.parametrize("mechanism", [m for m in EXACT if m in registry.names(engine="spark")])
def test_spark_equals_local_bit_for_bit(data: tuple[Any, PersonItemGraph], mechanism: str) -> None:
    frame, graph = data
    releases = []
    for seed in (1, 2, 3):
        with warnings.catch_warnings():
            # Exact noise at defaults: no UnsafeNoiseWarning (pyspark's own warnings aside).
            warnings.simplefilter("error", UnsafeNoiseWarning)
            # The same call on both engines: only the data differs.
            call = functools.partial(
                getattr(set_union, mechanism),
                epsilon=1.0,
                delta=1e-6,
                max_items=4,
                rng=seed,
                sampling="keyed",
                **OPTIONS.get(mechanism, {}),
            )
            remote = call(SparkPairs(frame, person="u", item="w"))
            local = call(graph)
        assert remote.secure and local.secure
        assert remote.items.tolist() == local.items.tolist()
        assert [r.released for r in remote.rounds] == [r.released for r in local.rounds]
        releases.append(tuple(local.items.tolist()))
    assert all(0 < len(r) < graph.n_items for r in releases)
    assert len(set(releases)) > 1  # the seed (hence the noise) matters
