"""Both engines report the same calibration: for every mechanism Spark runs and a grid of
(ε, δ, Δ0), the scale, threshold, cutoff, per-round numbers and privacy loss of a Spark release
equal the local release's.  Both ask :func:`mechanisms.set_union.calibration.calibrate`; this
test fails if either engine derives a number of its own.
"""

from __future__ import annotations

import warnings
from typing import Any

import pandas as pd
import pytest

from dpcount import PersonItemGraph
from mechanisms import registry, set_union
from mechanisms.spark import set_union as spark_set_union

GRID = [(0.5, 1e-6, 2), (2.0, 1e-9, 7)]
OPTIONS = {"dp_sips": {"rounds": 2, "ratio": 0.5}}  # the same names on both engines


@pytest.fixture(scope="module")
def data(spark: Any) -> tuple[Any, PersonItemGraph]:
    persons = [f"u{k}" for k in range(40) for _ in range(3)]
    items = [f"w{(k * j) % 11}" for k in range(40) for j in (1, 2, 3)]
    frame = spark.createDataFrame(pd.DataFrame({"u": persons, "w": items})).cache()
    return frame, PersonItemGraph.from_pairs(persons, items)


@pytest.mark.parametrize("mechanism", registry.names(family="set_union", engine="spark"))
@pytest.mark.parametrize(("epsilon", "delta", "max_items"), GRID)
def test_engines_report_the_same_calibration(
    data: tuple[Any, PersonItemGraph], mechanism: str, epsilon: float, delta: float, max_items: int
) -> None:
    frame, graph = data
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        remote = spark_set_union(
            frame,
            "u",
            "w",
            epsilon=epsilon,
            delta=delta,
            max_items=max_items,
            algorithm=mechanism,
            rng=1,
            **OPTIONS.get(mechanism, {}),
        )
        local = getattr(set_union, mechanism)(
            graph, epsilon, delta, max_items=max_items, rng=1, **OPTIONS.get(mechanism, {})
        )
    fields = ("noise", "scale", "threshold", "cutoff", "privacy_loss")
    assert [getattr(remote, f) for f in fields] == [getattr(local, f) for f in fields]
    assert [(r.scale, r.threshold, r.cutoff, r.delta_novel) for r in remote.rounds] == [
        (r.scale, r.threshold, r.cutoff, r.delta_novel) for r in local.rounds
    ]
