"""A public ℓ on the Spark path: the same release as the local path with the same seed."""

from __future__ import annotations

from typing import Any

import numpy as np
import pandas as pd
import pytest

from dpcount import PersonItemGraph
from dpcount.errors import InvalidParameterError
from mechanisms import dp_distinct_count
from mechanisms.spark import distinct_count


@pytest.mark.parametrize("counting", ["sampling", "matching"])
@pytest.mark.parametrize("kwargs", [{"ell": 3}, {"ell_max": 1}])
def test_public_ell_equals_local_with_same_seed(spark: Any, counting: str, kwargs: dict) -> None:
    # Coverage and scale of the local release are tested in tests/mechanisms/test_public_ell.py;
    # equality with it carries them over.
    rng = np.random.default_rng(4)
    persons = [f"p{p}" for p in rng.integers(0, 30, 300)]
    items = [int(i) for i in rng.integers(0, 80, 300)]
    frame = spark.createDataFrame(pd.DataFrame({"u": persons, "w": items}))
    graph = PersonItemGraph.from_pairs(persons, items)
    for seed in (0, 1):
        got = distinct_count(frame, "u", "w", 2.0, counting=counting, rng=seed, **kwargs)
        want = dp_distinct_count(graph, 2.0, counting=counting, rng=seed, **kwargs)
        assert (got.estimate, got.ell, got.selection) == (want.estimate, want.ell, "public")
        assert got.scale == want.scale == got.ell / 2.0
        assert got.privacy_loss == want.privacy_loss


def test_public_ell_is_checked_before_spark_reads(spark: Any) -> None:
    frame = spark.createDataFrame(pd.DataFrame({"u": ["a"], "w": [1]}))
    with pytest.raises(InvalidParameterError, match="ell"):
        distinct_count(frame, "u", "w", 1.0, ell=0)
