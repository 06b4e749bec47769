"""The same release functions and Session on Spark data: ``SparkPairs`` through the adapter.

A seeded release through the new entry equals the old Spark function's bit for bit; what the
Spark engine does not run is refused in one line before any Spark work and before any charge.
"""

from __future__ import annotations

import warnings
from typing import Any

import numpy as np
import pandas as pd
import pytest

from dpcount import PersonItemGraph
from dpcount.errors import DataError, InvalidParameterError
from dpcount.spark import SparkPairs
from mechanisms import (
    SeededSession,
    dp_distinct_count,
    dp_sips,
    policy_laplace,
    r2t,
    registry,
    weighted_gaussian,
)
from mechanisms.spark import distinct_count, set_union


@pytest.fixture(scope="module")
def data(skewed_pairs: tuple[Any, PersonItemGraph]) -> tuple[Any, PersonItemGraph]:
    return skewed_pairs


def _same(a: Any, b: Any, fields: tuple[str, ...]) -> None:
    for f in fields:
        x, y = getattr(a, f), getattr(b, f)
        assert np.array_equal(x, y) if isinstance(x, np.ndarray) else x == y, f


def test_new_entry_equals_the_old_spark_functions(data: tuple[Any, PersonItemGraph]) -> None:
    frame, graph = data
    pairs = SparkPairs(frame, person="u", item="w")
    new = weighted_gaussian(pairs, 1.0, 1e-6, max_items=3, rng=7)
    old = set_union(
        frame, "u", "w", epsilon=1.0, delta=1e-6, max_items=3, algorithm="weighted_gaussian", rng=7
    )
    _same(new, old, ("items", "scale", "threshold", "privacy_loss", "parameters", "secure"))
    assert (
        0 < new.items.size < graph.n_items
    )  # items near the threshold: the equality is not trivial
    new_count = dp_distinct_count(pairs, 1.0, ell_max=6, counting="sampling", rng=3)
    old_count = distinct_count(frame, "u", "w", 1.0, ell_max=6, counting="sampling", rng=3)
    _same(new_count, old_count, ("estimate", "ell", "counting", "privacy_loss"))
    # The default counting="matching" on Spark: test_session.py's counting-defaults test.


def test_session_on_spark_refuses_before_spark_and_charge_then_equals_the_local_one(
    data: tuple[Any, PersonItemGraph], monkeypatch: pytest.MonkeyPatch
) -> None:
    """One session on Spark (its data checks are Spark jobs): every refusal comes before the
    engine and the charge, and its first release then equals a local session's."""
    frame, graph = data
    pairs = SparkPairs(frame, person="u", item="w", max_pairs=10)  # the graph does not fit
    session = SeededSession(pairs, epsilon=2.0, delta=1e-5, seed=5)

    def no_engine(engine: str) -> Any:
        raise AssertionError("the engine was reached")

    with monkeypatch.context() as m:
        m.setattr(registry, "engine_adapter", no_engine)
        m.setattr("mechanisms.declaration._ADAPTER_OF", [no_engine])
        for call in (
            lambda: policy_laplace(pairs, 1.0, 1e-6),
            lambda: r2t(pairs, 1.0, max_contribution=4),
            lambda: session.policy_gaussian(1.0, 1e-6),
            lambda: session.r2t(1.0, max_contribution=4),
        ):
            with pytest.raises(InvalidParameterError, match=r"does not run on spark") as info:
                call()
            assert "\n" not in str(info.value)
    with pytest.raises(InvalidParameterError, match="keyed hash"):
        session.weighted_gaussian(1.0, 1e-6, sampling="uniform")
    with pytest.raises(InvalidParameterError, match="weighting='mad'"):
        dp_sips(pairs, 1.0, 1e-6, weighting="mad")
    # A count that collects the graph, on pairs the driver cannot hold: refused before the
    # charge, from what the session found when it was created (no count in the message).
    with pytest.raises(DataError, match=r"^the pairs exceed the driver limit max_pairs \("):
        session.dp_distinct_count(0.5)
    assert session.spent.epsilon == 0 and session.log == ()
    # Refusals draw nothing: the first release takes the same stream as a local session's.
    remote = session.weighted_gaussian(1.0, 1e-6, max_items=3, sampling="keyed")
    local = SeededSession(graph, epsilon=2.0, delta=1e-5, seed=5).weighted_gaussian(
        1.0, 1e-6, max_items=3, sampling="keyed"
    )
    _same(remote, local, ("items", "scale", "threshold", "privacy_loss"))
    assert session.spent.epsilon == 1.0


def test_the_handle_checks_columns_by_name(spark: Any) -> None:
    frame = spark.createDataFrame(pd.DataFrame({"user": ["a", None], "item": ["x", "y"]}))
    with pytest.raises(DataError, match=r"person column 'u' not found; available columns"):
        SparkPairs(frame, person="u", item="item")
    with pytest.raises(InvalidParameterError, match="two columns"):
        SparkPairs(frame, person="item", item="item")
    with pytest.raises(InvalidParameterError, match="column name"):
        SparkPairs(frame, person=3, item="item")  # type: ignore[arg-type]
    pairs = SparkPairs(frame, person="user", item="item")
    with pytest.raises(DataError, match="null"):  # a Session checks the data before any charge
        SeededSession(pairs, epsilon=1.0, seed=1)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        kept = SparkPairs(frame, person="user", item="item", drop_nulls=True).to_graph()
    assert kept.n_pairs == 1
