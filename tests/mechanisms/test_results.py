"""One result shape: every mechanism's result has the fields of mechanisms.release.Release."""

from __future__ import annotations

import dataclasses
import inspect
import json
import math
import warnings
from collections.abc import Callable
from functools import partial
from typing import Any

import numpy as np
import pytest

import mechanisms
from dpcount import GroupedGraph, PersonItemGraph
from dpcount.errors import BudgetExceededError, UnsafeNoiseWarning
from mechanisms import registry, set_union
from mechanisms._defaults import DEFAULT_BETA
from mechanisms.accounting import PrivacyAccountant, PrivacyLoss
from mechanisms.bayesian_ngrams import (
    bayesian_dp,
    end_to_end_dp,
    laplace_ngrams,
    laplace_ngrams_public,
)
from mechanisms.release import Release, seeded_copy
from mechanisms.set_union.calibration import EXACT

GRAPH = PersonItemGraph.from_sets({f"p{i:03d}": {i % 40, (i + 1) % 40, 99} for i in range(120)})
GROUPED = GroupedGraph.from_triples(
    [f"p{i:03d}" for i in range(120)],
    ["ab"[i % 2] for i in range(120)],
    [i % 40 for i in range(120)],
)
NGRAMS = PersonItemGraph.from_sets(
    {f"u{k:03d}": {"a b": 3, "b c": 1, f"x{k % 5}": 1} for k in range(200)}
)
PUBLIC = {"a b": 10, "b c": 5, "x0": 1, "x1": 1, "zz": 2}

SET_UNION = registry.names(family="set_union")

#: name → (call with rng, expected is_private, expected secure)
CASES: dict[str, tuple[Callable[[int], Release], bool, bool]] = {
    "dp_distinct_count": (
        lambda s: mechanisms.dp_distinct_count(GRAPH, 1.0, ell_max=5, rng=s),
        True,
        True,
    ),
    "dp_distinct_count float": (
        lambda s: mechanisms.dp_distinct_count(GRAPH, 1.0, ell_max=5, noise="float", rng=s),
        True,
        False,
    ),
    "dp_distinct_count diagnostics": (
        lambda s: mechanisms.dp_distinct_count(GRAPH, 1.0, ell_max=5, rng=s, diagnostics=True),
        False,
        True,
    ),
    "dp_distinct_count max_degree": (
        lambda s: mechanisms.dp_distinct_count(GRAPH, 1.0, selection="max_degree", rng=s),
        False,
        True,
    ),
    "r2t": (lambda s: mechanisms.r2t(GRAPH, 1.0, max_contribution=8, rng=s), True, True),
    "shifted_inverse": (
        lambda s: mechanisms.shifted_inverse(GRAPH, 1.0, upper=1000, rng=s),
        True,
        True,
    ),
    "shifted_inverse float": (
        lambda s: mechanisms.shifted_inverse(GRAPH, 1.0, upper=1000, noise="float", rng=s),
        True,
        False,
    ),
    **{
        name: (
            partial(lambda n, s: getattr(set_union, n)(GRAPH, 1.0, 1e-6, rng=s), name),
            True,
            name in EXACT,  # exact discrete noise by default; the others float only
        )
        for name in SET_UNION
    },
    "weighted_gaussian float": (
        lambda s: set_union.weighted_gaussian(GRAPH, 1.0, 1e-6, rng=s, noise="float"),
        True,
        False,
    ),
    "weighted_gaussian weights": (
        lambda s: set_union.weighted_gaussian(GRAPH, 1.0, 1e-6, rng=s, return_weights=True),
        False,
        True,
    ),
    "laplace_ngrams": (
        lambda s: laplace_ngrams(NGRAMS, PUBLIC, 1.0, max_contribution=4, rng=s),
        True,
        True,
    ),
    "laplace_ngrams float": (
        lambda s: laplace_ngrams(NGRAMS, PUBLIC, 1.0, max_contribution=4, noise="float", rng=s),
        True,
        False,
    ),
    "laplace_ngrams_public": (
        lambda s: laplace_ngrams_public(NGRAMS, PUBLIC, 1.0, max_contribution=4, rng=s),
        True,
        True,
    ),
    "bayesian_dp": (
        lambda s: bayesian_dp(
            NGRAMS, PUBLIC, 0.5, 1e-6, clip_slope=1.0, max_count=2, private_weight=0.5, rng=s
        ),
        False,
        True,
    ),
    "bayesian_dp float": (
        lambda s: bayesian_dp(
            NGRAMS,
            PUBLIC,
            0.5,
            1e-6,
            clip_slope=1.0,
            max_count=2,
            private_weight=0.5,
            noise="float",
            rng=s,
        ),
        False,
        False,
    ),
    "end_to_end_dp": (
        lambda s: end_to_end_dp(NGRAMS, PUBLIC, 0.2, 0.5, 1e-6, max_count=2, rng=s),
        False,
        True,
    ),
}


def _run(name: str, seed: int = 0) -> Release:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return CASES[name][0](seed)


@pytest.mark.parametrize("name", CASES)
def test_every_result_has_the_shape(name: str) -> None:
    r = _run(name)
    _, private, secure = CASES[name]
    assert isinstance(r, Release)
    assert isinstance(r.mechanism, str) and name.startswith(r.mechanism)
    assert isinstance(r.privacy_loss, PrivacyLoss)
    assert r.is_private is private and r.secure is secure
    assert isinstance(r.scale, float) and math.isfinite(r.scale) and r.scale > 0
    assert str(r) and r._repr_html_().startswith("<")
    if not private:
        assert "NOT PRIVATE" in str(r) or not r.privacy_loss.is_private
    if not secure:
        assert "Floating-point noise" in str(r)


@pytest.mark.parametrize("name", CASES)
def test_to_json_round_trips(name: str) -> None:
    r = _run(name, seed=3)
    text = r.to_json()
    doc = json.loads(text)  # standard JSON: allow_nan=False would have raised
    assert doc["result"] == type(r).__name__ and doc["mechanism"] == r.mechanism
    assert (doc["is_private"], doc["secure"]) == (r.is_private, r.secure)
    back = type(r).from_json(text)
    assert back.to_dict() == r.to_dict()
    assert back.privacy_loss == r.privacy_loss and back.is_private == r.is_private


def test_set_union_results_hold_labels_only() -> None:
    # An item id is the item's rank among all the data's items: one unreleased item that sorts
    # before a released one shifts its id.  The result holds the labels, which are the release.
    r = _run("weighted_gaussian")
    assert r.count > 0 and not hasattr(r, "item_ids") and "item_ids" not in r.to_dict()
    fields = {f.name for f in dataclasses.fields(r)}
    assert not any("id" in name.split("_") for name in fields)
    back = type(r).from_json(r.to_json())
    assert back.items.tolist() == r.items.tolist()


def test_seeded_results_say_so_everywhere() -> None:
    r = _run("dp_distinct_count", seed=2)
    s = seeded_copy(r)
    assert r.is_private and s.seeded and not s.is_private and not r.seeded
    assert "SEEDED, NOT PRIVATE" in str(s) and "SEEDED, NOT PRIVATE" in s._repr_html_()
    doc = s.to_dict()
    assert doc["seeded"] is True and doc["is_private"] is False and "seeded" not in r.to_dict()
    back = type(s).from_json(s.to_json())
    assert back.seeded and not back.is_private
    with pytest.raises(BudgetExceededError, match="not differentially private"):
        PrivacyAccountant(10.0).spend(s)


def test_round_trip_keeps_arrays_and_infinite_losses() -> None:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        r = mechanisms.dp_distinct_count(GRAPH, 1.0, ell_max=5, rng=1, diagnostics=True)
        n = mechanisms.dp_distinct_count(GRAPH, 1.0, selection="percentile", rng=1)
    back = type(r).from_json(r.to_json())
    assert np.array_equal(back.curve, r.curve) and np.allclose(back.probabilities, r.probabilities)
    assert back.scale == r.scale and back.estimate == r.estimate
    assert math.isinf(type(n).from_json(n.to_json()).privacy_loss.epsilon)
    assert json.loads(n.to_json())["privacy_loss"]["epsilon"] is None


def test_accountant_refuses_results_with_non_private_data() -> None:
    acct = PrivacyAccountant(100.0, 0.5)
    for name in ("dp_distinct_count diagnostics", "weighted_gaussian weights"):
        r = _run(name)
        assert r.privacy_loss.is_private and not r.is_private  # the loss alone would fit
        with pytest.raises(BudgetExceededError, match="not differentially private"):
            acct.spend(r)
    assert acct.releases == ()


def test_accountant_warns_on_insecure_results_unless_told() -> None:
    acct = PrivacyAccountant(100.0, 0.5)
    r = _run("weighted_gaussian float")
    with pytest.warns(UnsafeNoiseWarning, match="allow_insecure"):
        acct.spend(r)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        acct.spend(r, allow_insecure=True)
        acct.spend(_run("dp_distinct_count"))  # secure: no warning
    assert len(acct.releases) == 3


def test_accountant_totals_are_read_only() -> None:
    acct = PrivacyAccountant(1.0, 1e-6)
    with pytest.raises(AttributeError):
        acct.epsilon_total = 10.0  # type: ignore[misc]
    with pytest.raises(AttributeError):
        acct.delta_total = 0.5  # type: ignore[misc]
    assert (acct.epsilon_total, acct.delta_total) == (1.0, 1e-6)


def test_deprecated_scale_aliases() -> None:
    r = _run("dp_distinct_count")
    with pytest.warns(DeprecationWarning):
        assert r.noise_scale == r.scale  # type: ignore[attr-defined]
    b = _run("bayesian_dp")
    with pytest.warns(DeprecationWarning):
        assert b.sigma == b.scale  # type: ignore[attr-defined]


def test_r2t_scale_is_the_winning_release() -> None:
    r = _run("r2t")
    assert r.selected is not None
    assert r.scale == r.scales[r.thresholds.index(r.selected)] == len(r.thresholds) * r.selected


# --------------------------------------------------------------------------------------------
# Signatures: keyword-only options after (graph, epsilon[, delta]); one β default
# --------------------------------------------------------------------------------------------

_LEADING = {"graph", "data", "person", "item", "curve", "degrees", "public_counts", "counts"}
_BUDGET = {"epsilon", "delta", "epsilon_tune", "epsilon_release", "thresholds"}


def _public_mechanisms() -> list[Callable[..., Any]]:
    from mechanisms.distinct_count import dp_distinct_count_from_curve
    from mechanisms.race_to_the_top import release_r2t
    from mechanisms.shifted_inverse_mechanism import plan_shifted_inverse

    names = ["dp_distinct_count", "r2t", "shifted_inverse", *SET_UNION]
    return [
        *(getattr(mechanisms, n) for n in names),
        dp_distinct_count_from_curve,
        release_r2t,
        plan_shifted_inverse,
        bayesian_dp,
        end_to_end_dp,
        laplace_ngrams,
        laplace_ngrams_public,
    ]


@pytest.mark.parametrize("f", _public_mechanisms(), ids=lambda f: f.__name__)
def test_options_are_keyword_only(f: Callable[..., Any]) -> None:
    for p in inspect.signature(f).parameters.values():
        if p.kind is p.POSITIONAL_OR_KEYWORD:
            assert p.name in _LEADING | _BUDGET, f"{f.__name__}: {p.name} is positional"
        else:
            assert p.kind is p.KEYWORD_ONLY


@pytest.mark.parametrize("f", _public_mechanisms(), ids=lambda f: f.__name__)
def test_one_beta_default(f: Callable[..., Any]) -> None:
    beta = inspect.signature(f).parameters.get("beta")
    assert beta is None or beta.default == DEFAULT_BETA == 0.05


def test_lower_bound_is_the_count_the_text_shows() -> None:
    """``lower_bound`` (plain and per group) is ⌈estimate⌉ clipped at 0, as printed and in JSON."""
    plain = mechanisms.dp_distinct_count(GRAPH, 1.0, rng=3)
    assert plain.lower_bound == max(0, math.ceil(plain.estimate))
    assert f"at least {plain.lower_bound:,}" in str(plain) or f"≥ {plain.lower_bound:,}" in str(
        plain
    )
    grouped = mechanisms.grouped_distinct_count(
        GROUPED, 1.0, groups=["a", "b"], max_groups=1, ell=1, rng=3
    )
    assert [r.lower_bound for r in grouped.rows] == [
        max(0, math.ceil(r.estimate)) for r in grouped.rows
    ]
    # Power: a group with a negative estimate shows 0, not the estimate.
    negative = dataclasses.replace(grouped.rows[0], estimate=-13)
    assert negative.lower_bound == 0
