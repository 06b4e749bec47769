"""privacy_loss_of: every mechanism's loss is known from its parameters and equals the result's."""

from __future__ import annotations

import math
import warnings
from typing import Any

import pytest

import mechanisms
from dpcount import GroupedGraph, PersonItemGraph
from dpcount.errors import InvalidParameterError
from mechanisms import registry
from mechanisms.privacy_loss import privacy_loss_of

SET_UNION_NAMES = registry.names(family="set_union")

GRAPH = PersonItemGraph.from_sets({f"p{i:03d}": {i % 30, (i + 3) % 30, 77} for i in range(90)})
GROUPED = GroupedGraph.from_triples(
    [f"p{i % 40}" for i in range(120)], [f"g{i % 3}" for i in range(120)], list(range(120))
)
NGRAMS = PersonItemGraph.from_sets({f"u{k:03d}": {"a b": 2, "b c": 1} for k in range(150)})
PUBLIC = {"a b": 4, "b c": 2, "c d": 1}

#: Data arguments and a few parameter choices per mechanism (each must change nothing but the
#: loss's inputs: ε, δ, thresholds, rounds, sensitivity method …).
CALLS: dict[str, tuple[tuple[Any, ...], list[dict[str, Any]]]] = {
    "dp_distinct_count": (
        (GRAPH,),
        [
            {"epsilon": 1.0},
            {"epsilon": 0.3, "counting": "greedy", "ell_max": 7, "beta": 0.1},
            {"epsilon": 2.0, "selection": "gem_permute_and_flip"},
            {"epsilon": 1.0, "selection": "max_degree"},
        ],
    ),
    "r2t": (
        (GRAPH,),
        [
            {"epsilon": 1.0, "max_contribution": 8},
            {"epsilon": 0.5, "max_contribution": 100, "base": 5.5},
        ],
    ),
    "shifted_inverse": ((GRAPH,), [{"epsilon": 0.7, "upper": 500}]),
    **{
        name: (
            (GRAPH,),
            [{"epsilon": 1.0, "delta": 1e-6}, {"epsilon": 0.4, "delta": 1e-8, "max_items": 3}],
        )
        for name in SET_UNION_NAMES
        if name != "dp_sips"
    },
    "dp_sips": (
        (GRAPH,),
        [
            {"epsilon": 1.0, "delta": 1e-6},
            {"epsilon": 1.0, "delta": 1e-6, "rounds": 2, "weighting": "mad"},
        ],
    ),
    "laplace_ngrams": ((NGRAMS, PUBLIC), [{"epsilon": 1.0, "max_contribution": 3}]),
    "laplace_ngrams_public": ((NGRAMS, PUBLIC), [{"epsilon": 1.0, "max_contribution": 3}]),
    "bayesian_dp": (
        (NGRAMS, PUBLIC),
        [
            {
                "epsilon": 0.5,
                "delta": 1e-6,
                "clip_slope": 1.0,
                "max_count": 2,
                "private_weight": 0.5,
                "sensitivity": "bound",
            }
        ],
    ),
    "end_to_end_dp": (
        (NGRAMS, PUBLIC),
        [{"epsilon_tune": 0.2, "epsilon_release": 0.5, "delta": 1e-6, "max_count": 2}],
    ),
    "grouped_distinct_count": (
        (GROUPED,),
        [
            {"epsilon": 1.0, "max_groups": 2, "groups": ["g0", "g2", "zz"]},
            {"epsilon": 0.3, "max_groups": 1, "groups": ["g1"], "counting": "greedy"},
            {"epsilon": 1.0, "max_groups": 2, "delta": 1e-6},
            {"epsilon": 2.0, "max_groups": 3, "delta": 1e-7, "selection_share": 0.25},
        ],
    ),
}


def test_every_mechanism_is_covered() -> None:
    assert set(CALLS) == set(registry.names())


@pytest.mark.parametrize("name", registry.names())
def test_stated_loss_equals_the_results(name: str) -> None:
    function = registry.get(name).function
    data, choices = CALLS[name]
    for params in choices:
        stated = privacy_loss_of(function, **params)
        assert stated == privacy_loss_of(name, **params)
        for seed in (0, 1):
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                result = function(*data, **params, rng=seed)
            assert result.privacy_loss == stated, (name, params)
        assert stated.is_private is (
            name not in {"bayesian_dp", "end_to_end_dp"}
            and params.get("selection", "gem").startswith("gem")
        )


def test_loss_needs_no_data_and_validates() -> None:
    with pytest.raises(InvalidParameterError, match="needs no data"):
        privacy_loss_of("r2t", graph=GRAPH, epsilon=1.0, max_contribution=4)
    with pytest.raises(InvalidParameterError, match="no parameter 'delta'"):
        privacy_loss_of(mechanisms.dp_distinct_count, epsilon=1.0, delta=1e-6)
    with pytest.raises(InvalidParameterError, match="no stated privacy loss"):
        privacy_loss_of("greedy_policy", epsilon=1.0, delta=1e-6)
    with pytest.raises(InvalidParameterError, match="no stated privacy loss"):
        privacy_loss_of(print, epsilon=1.0)
    for bad in (0.0, -1.0, math.inf, math.nan):
        with pytest.raises(InvalidParameterError):
            privacy_loss_of("shifted_inverse", epsilon=bad)
    with pytest.raises(InvalidParameterError):
        privacy_loss_of("weighted_gaussian", epsilon=1.0, delta=1.5)
