"""A seeded Spark release with exact noise equals the local one bit for bit.

Both engines weigh in the same integer units, key each item's discrete noise by its label and
the release's noise key (drawn from the same stream layout), and compare integers with the same
integer threshold; so the released items are identical, not just close.  Items sit near the
threshold, so that releases differ between seeds (the equality is not a trivial one).
"""

from __future__ import annotations

import warnings
from typing import Any

import numpy as np
import pandas as pd
import pytest

from dpcount import PersonItemGraph
from dpcount.errors import UnsafeNoiseWarning
from dpcount.spark import set_union as spark_set_union
from mechanisms import registry, set_union
from mechanisms.set_union.calibration import EXACT

SPARK_OPTIONS = {"dp_sips": {"sips_rounds_count": 2, "sips_ratio": 0.5}}
LOCAL_OPTIONS = {"dp_sips": {"rounds": 2, "ratio": 0.5}}


@pytest.fixture(scope="module")
def data(spark: Any) -> tuple[Any, PersonItemGraph]:
    rng = np.random.default_rng(4)
    persons = [f"p{p}" for p in rng.integers(0, 300, 3000)]
    items = [f"i{i}" for i in np.minimum(rng.geometric(0.1, 3000), 120)]
    frame = spark.createDataFrame(pd.DataFrame({"u": persons, "w": items})).cache()
    return frame, PersonItemGraph.from_pairs(persons, items)


@pytest.mark.parametrize("mechanism", [m for m in EXACT if m in registry.names(engine="spark")])
def test_spark_equals_local_bit_for_bit(data: tuple[Any, PersonItemGraph], mechanism: str) -> None:
    frame, graph = data
    releases = []
    for seed in (1, 2, 3):
        with warnings.catch_warnings():
            # Exact noise at defaults: no UnsafeNoiseWarning (pyspark's own warnings aside).
            warnings.simplefilter("error", UnsafeNoiseWarning)
            remote = spark_set_union(
                frame,
                "u",
                "w",
                epsilon=1.0,
                delta=1e-6,
                max_items=4,
                mechanism=mechanism,
                rng=seed,
                **SPARK_OPTIONS.get(mechanism, {}),
            )
            local = getattr(set_union, mechanism)(
                graph,
                1.0,
                1e-6,
                max_items=4,
                rng=seed,
                sampling="keyed",
                **LOCAL_OPTIONS.get(mechanism, {}),
            )
        assert remote.secure and local.secure
        assert remote.items.tolist() == local.items.tolist()
        assert [r.released for r in remote.rounds] == [r.released for r in local.rounds]
        releases.append(tuple(local.items.tolist()))
    assert all(0 < len(r) < graph.n_items for r in releases)
    assert len(set(releases)) > 1  # the seed (hence the noise) matters
