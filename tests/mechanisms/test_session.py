"""Session: charge before release, refuse overspending without drawing, read-only budget."""

from __future__ import annotations

import dataclasses
import functools
import math
import warnings
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from dpcount import PersonItemGraph
from dpcount.errors import BudgetExceededError, InvalidParameterError
from mechanisms import SeededSession, Session, registry
from mechanisms.privacy_loss import privacy_loss_of

GRAPH = PersonItemGraph.from_sets({f"p{i:03d}": {i % 50, (i + 7) % 50, 500} for i in range(150)})
NGRAMS = PersonItemGraph.from_sets({f"u{k:03d}": {"a b": 2, "b c": 1} for k in range(100)})
NOMINAL = {"bayesian_dp", "end_to_end_dp"}

#: One call of every private mechanism on a person-item graph: (method name, args, kwargs).
CALLS: list[tuple[str, tuple[Any, ...], dict[str, Any]]] = [
    ("dp_distinct_count", (0.5,), {"ell_max": 10}),
    ("r2t", (0.5,), {"max_contribution": 8}),
    ("shifted_inverse", (0.5,), {"upper": 1000}),
    *[(name, (0.5, 1e-7), {"max_items": 3}) for name in registry.names(family="set_union")],
]


def _quiet(call: Any) -> Any:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # set union and the shifted inverse warn: float noise
        return call()


def test_every_private_mechanism_has_a_method_and_nothing_else() -> None:
    private = set(registry.names()) - NOMINAL
    assert private <= set(dir(Session))
    ngrams = {"laplace_ngrams", "laplace_ngrams_public"}
    assert {name for name, _, _ in CALLS} | ngrams | {"grouped_distinct_count"} == private
    for name in (*NOMINAL, "greedy_policy", "dp_distinct_count_from_curve", "gem"):
        assert not hasattr(Session, name)


@pytest.mark.parametrize(("name", "args", "kwargs"), CALLS, ids=[c[0] for c in CALLS])
def test_each_call_charges_its_stated_loss(name: str, args: tuple, kwargs: dict) -> None:
    s = Session(GRAPH, epsilon=1.0, delta=1e-6)
    result = _quiet(lambda: getattr(s, name)(*args, **kwargs))
    budget = {"epsilon": args[0]} | ({"delta": args[1]} if len(args) > 1 else {})
    stated = privacy_loss_of(name, **budget, **kwargs)
    assert result.privacy_loss == stated and result.is_private and not result.seeded
    (entry,) = s.log
    assert (entry.mechanism, entry.privacy_loss, entry.result) == (name, stated, result)
    basic = s.totals["basic"]
    assert (basic.epsilon, basic.delta) == (stated.epsilon, stated.delta)
    assert s.spent.epsilon <= stated.epsilon and s.spent.delta <= 1e-6  # tightest, in budget
    assert s.remaining.epsilon == pytest.approx(1.0 - stated.epsilon)


def test_laplace_ngrams_through_a_session() -> None:
    s = Session(NGRAMS, epsilon=1.0)
    r = _quiet(lambda: s.laplace_ngrams({"a b": 1, "b c": 1}, 0.25, max_contribution=3))
    assert r.privacy_loss.epsilon == 0.25 and s.remaining.epsilon == 0.75


def test_overspend_draws_nothing_and_returns_nothing(monkeypatch: pytest.MonkeyPatch) -> None:
    s = Session(GRAPH, epsilon=1.0)
    first = s.dp_distinct_count(0.7, ell_max=10)
    children = s._seeds.n_children_spawned
    seen: list[Any] = []
    declared = registry.get("dp_distinct_count")

    @functools.wraps(declared.function)
    def spy(graph: PersonItemGraph, *args: Any, **kwargs: Any) -> Any:
        seen.append(graph)
        return declared.function(graph, *args, **kwargs)

    spied = dataclasses.replace(declared, function=spy)
    real_get = registry.get
    monkeypatch.setattr(registry, "get", lambda n: spied if n == declared.name else real_get(n))
    with pytest.raises(BudgetExceededError, match=r"needs epsilon=0\.5 but the session has"):
        s.dp_distinct_count(0.5, ell_max=10)
    assert seen and all(g.n_pairs == 0 for g in seen)  # only the check on empty data ran
    assert s._seeds.n_children_spawned == children  # no stream was spawned
    assert [e.result for e in s.log] == [first]
    assert s.remaining.epsilon == 0.3  # exactly, as written
    s.dp_distinct_count(0.3, ell_max=10)  # exactly the rest still fits
    assert s.remaining.epsilon == 0.0 and len(s.log) == 2


def test_delta_is_enforced_too() -> None:
    pure = Session(GRAPH, epsilon=5.0)
    with pytest.raises(BudgetExceededError, match="delta"):
        _quiet(lambda: pure.weighted_gaussian(1.0, 1e-6))
    assert pure.log == ()
    s = Session(GRAPH, epsilon=5.0, delta=1e-6)
    _quiet(lambda: s.weighted_gaussian(1.0, 6e-7))
    with pytest.raises(BudgetExceededError):
        _quiet(lambda: s.weighted_gaussian(1.0, 6e-7))
    assert len(s.log) == 1


def test_bad_parameters_are_refused_before_any_charge() -> None:
    s = Session(GRAPH, epsilon=1.0)
    bad: list[Any] = [
        lambda: s.r2t(-1.0, max_contribution=4),
        lambda: s.dp_distinct_count(0.5, ell_max=0),  # checked on empty data, not charged
        lambda: s.dp_distinct_count(0.5, counting="nope"),
        lambda: s.shifted_inverse(0.5, upper=-3),
        lambda: s.policy_gaussian(0.5, 1e-7, alpha=-1.0),
    ]
    for call in bad:
        with pytest.raises(InvalidParameterError):
            _quiet(call)
    assert s.log == () and s.spent.epsilon == 0.0


def test_non_private_outputs_are_not_available() -> None:
    s = Session(GRAPH, epsilon=10.0, delta=1e-5)
    for selection in ("max_degree", "percentile", "max_utility"):
        with pytest.raises(InvalidParameterError, match="not private"):
            s.dp_distinct_count(1.0, selection=selection)
    refused = [
        ("weighted_gaussian", (1.0, 1e-6), {"return_weights": True}),
        ("dp_distinct_count", (1.0,), {"diagnostics": True}),
        ("dp_distinct_count", (1.0,), {"noise": "float"}),
        ("r2t", (1.0,), {"max_contribution": 4, "noise": "float"}),
        ("shifted_inverse", (1.0,), {"upper": 100, "inverse": "exact"}),
    ]
    for name, args, kwargs in refused:
        (key,) = set(kwargs) - {"max_contribution", "upper"}
        with pytest.raises(InvalidParameterError, match=f"{key} is not private or not safe"):
            getattr(s, name)(*args, **kwargs)
    for name in ("bayesian_dp", "end_to_end_dp", "greedy_policy", "nope"):
        with pytest.raises(InvalidParameterError, match="a session offers no mechanism"):
            s.release(name, epsilon=1.0)
    assert s.log == ()


def test_no_caller_chosen_randomness() -> None:
    """S1: with a known seed the caller could subtract the noise (ε = ∞)."""
    s = Session(GRAPH, epsilon=10.0, delta=1e-5)
    for call in (
        lambda: s.dp_distinct_count(1.0, rng=0),
        lambda: s.r2t(1.0, max_contribution=4, rng=0),
        lambda: s.weighted_gaussian(1.0, 1e-6, rng=0),
        lambda: s.release("r2t", epsilon=1.0, max_contribution=4, seed=1),
    ):
        with pytest.raises(InvalidParameterError, match="draws its own randomness"):
            call()
    for option in ("rng", "seed"):
        with pytest.raises(InvalidParameterError, match="SeededSession"):
            Session(GRAPH, epsilon=1.0, **{option: 0})
    assert s.log == ()
    # Two sessions on the same data draw different noise (scale ≥ 20 at ε = 0.1: equal
    # estimates in all six releases would mean a fixed stream).
    runs = [Session(GRAPH, epsilon=1.0).dp_distinct_count(0.1, ell_max=5) for _ in range(6)]
    assert len({r.estimate for r in runs}) > 1


@pytest.mark.parametrize("make", [Session, lambda g, **kw: SeededSession(g, seed=1, **kw)])
def test_copies_and_pickles_are_refused(make: Any) -> None:
    """S2: a copy would hold the same budget (and stream) again."""
    import copy
    import pickle

    s = make(GRAPH, epsilon=1.0)
    for action in (copy.copy, copy.deepcopy, pickle.dumps, lambda x: pickle.dumps(x, 0)):
        with pytest.raises(TypeError, match="cannot be copied or pickled") as info:
            action(s)
        assert "\n" not in str(info.value)
    assert copy.deepcopy([1]) == [1]  # the refusal is the session's, not copy's


def test_budget_cannot_be_raised() -> None:
    s = Session(GRAPH, epsilon=1.0, delta=1e-6)
    for name in ("budget", "spent", "remaining", "log", "accountant"):
        with pytest.raises(AttributeError):
            setattr(s, name, None)
    assert all(k.startswith("_") for k in vars(s))  # no public mutable totals
    assert (s.budget.epsilon, s.budget.delta) == (1.0, 1e-6)
    with pytest.raises(AttributeError):
        s.budget.epsilon = 5.0  # type: ignore[misc]  # frozen


@pytest.mark.parametrize("epsilon", [0.0, -1.0, math.inf, math.nan])
def test_budget_is_validated(epsilon: float) -> None:
    with pytest.raises(InvalidParameterError):
        Session(GRAPH, epsilon=epsilon)
    with pytest.raises(InvalidParameterError):
        Session(GRAPH, epsilon=1.0, delta=1.0)
    with pytest.raises(InvalidParameterError, match="read options"):
        Session(GRAPH, epsilon=1.0, person="x")


def test_built_from_a_file(tmp_path: Any) -> None:
    path = tmp_path / "pairs.csv"
    path.write_text("user,word\nann,a\nann,b\nbob,b\n", encoding="utf-8")
    s = Session(str(path), epsilon=1.0, person="user", item="word")
    assert s._data == PersonItemGraph.from_pairs(["ann", "ann", "bob"], ["a", "b", "b"])
    r = SeededSession(str(path), epsilon=1.0, seed=0, person="user", item="word").r2t(
        1.0, max_contribution=2
    )
    assert r.estimate <= 2  # a lower bound, for this seed


def test_seeded_sessions_reproduce_use_fresh_streams_and_say_so() -> None:
    def draws(seed: int) -> list[Any]:
        s = SeededSession(GRAPH, epsilon=1.0, seed=seed)
        return [s.dp_distinct_count(0.1, ell_max=5) for _ in range(6)]

    first = draws(9)
    assert [r.estimate for r in first] == [r.estimate for r in draws(9)]
    assert len({r.estimate for r in first}) > 1  # scale ≥ 20: six equal draws = a reused stream
    r = first[0]
    assert r.seeded and not r.is_private and r.privacy_loss.is_private
    assert "SEEDED, NOT PRIVATE" in str(r) and r.to_dict()["seeded"] is True
    s = SeededSession(GRAPH, epsilon=1.0, seed=3)
    assert not isinstance(s, Session) and s.seed == 3 and "NOT PRIVATE" in repr(s)
    for bad in (-1, 1.5, True, None, "3"):
        with pytest.raises(InvalidParameterError, match="seed"):
            SeededSession(GRAPH, epsilon=1.0, seed=bad)  # type: ignore[arg-type]


def test_large_epsilon_reports_without_overflow() -> None:
    """ε above ~709 overflowed dp-accounting's e^ε in `spent` and `repr`."""
    s = Session(GRAPH, epsilon=5000.0, delta=1e-6)
    s.dp_distinct_count(1500.0, ell_max=5)
    _quiet(lambda: s.count_laplace(1500.0, 1e-7))
    assert s.spent.epsilon == 3000.0 and s.totals["basic"].epsilon == 3000.0
    assert "spent epsilon=3000 of 5000" in repr(s)


@pytest.mark.parametrize(
    ("parts", "budget", "shown", "left"),
    [
        ([0.5, 0.5, 0.5], 2.0, "1.5", 0.5),
        ([0.1, 0.2], 0.3, "0.3", 0.0),
        ([0.1] * 3, 1.0, "0.3", 0.7),
    ],
)
def test_budgets_print_as_written(parts: list[float], budget: float, shown: str, left: float):
    s = Session(GRAPH, epsilon=budget, delta=1e-6)
    for eps in parts:
        s.r2t(eps, max_contribution=4)
    assert s.spent.epsilon == float(shown) and s.accountant == "basic"
    assert f"spent epsilon={shown} of" in repr(s) and repr(s.spent).startswith(
        f"PrivacyLoss(epsilon={shown},"
    )
    assert s.remaining.epsilon == left


@settings(max_examples=25, deadline=None)
@given(st.lists(st.floats(0.01, 0.6), min_size=1, max_size=6))
def test_totals_are_the_sum_of_the_stated_parts(epsilons: list[float]) -> None:
    s = Session(GRAPH, epsilon=1.5)
    charged = []
    for eps in epsilons:
        loss = privacy_loss_of("r2t", epsilon=eps, max_contribution=4)
        if s.can_afford(loss):
            s.r2t(eps, max_contribution=4)
            charged.append(eps)
        else:
            with pytest.raises(BudgetExceededError):
                s.r2t(eps, max_contribution=4)
    assert math.isclose(s.spent.epsilon, sum(charged), rel_tol=1e-12)
    assert sum(charged) <= 1.5 * (1 + 1e-12)
    assert [e.privacy_loss.epsilon for e in s.log] == charged
