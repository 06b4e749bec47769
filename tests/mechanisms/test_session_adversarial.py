"""A Session under an adversarial caller: threads racing for the budget, neighbouring data.

* Concurrency (issue S3): many threads with a 1 µs switch interval release against one
  budget; the budget is never overspent and no two releases share a random stream.
* Neighbours (S4): every Session method, on datasets that differ in one person (with all
  their items), either succeeds on both or fails on both with the same message, and charges
  the same; warnings are the same too.  Failures that would depend on the data would leak it.
"""

from __future__ import annotations

import dataclasses
import functools
import sys
import threading
import warnings
from collections.abc import Callable
from typing import Any

import numpy as np
import pytest
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from dpcount import GroupedGraph, PersonItemGraph
from dpcount.errors import BudgetExceededError
from mechanisms import Session, registry
from mechanisms.session import offered

GRAPH = PersonItemGraph.from_sets({f"p{i:03d}": {i % 30, (i + 3) % 30, 99} for i in range(60)})


# --------------------------------------------------------------------------------------------
# Concurrency
# --------------------------------------------------------------------------------------------


def _race(session: Session, threads: int, attempts: int, call: Callable[[Session], Any]) -> None:
    barrier = threading.Barrier(threads)

    def worker() -> None:
        barrier.wait()
        for _ in range(attempts):
            try:
                call(session)
            except BudgetExceededError:
                pass

    pool = [threading.Thread(target=worker) for _ in range(threads)]
    for t in pool:
        t.start()
    for t in pool:
        t.join()


def test_concurrent_releases_never_overspend_nor_share_a_stream(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    streams: list[tuple[Any, ...]] = []
    declared = registry.get("r2t")

    @functools.wraps(declared.function)
    def spy(graph: PersonItemGraph, *args: Any, rng: Any, **kwargs: Any) -> Any:
        if graph.n_pairs:  # the release itself, not the check on empty data
            seq = rng.bit_generator.seed_seq
            streams.append((seq.entropy, seq.spawn_key))
        return declared.function(graph, *args, rng=rng, **kwargs)

    spied = dataclasses.replace(declared, function=spy)
    real_get = registry.get
    monkeypatch.setattr(registry, "get", lambda n: spied if n == "r2t" else real_get(n))
    old = sys.getswitchinterval()
    sys.setswitchinterval(1e-6)  # switch threads as often as the interpreter allows
    try:
        for _ in range(25):
            s = Session(GRAPH, epsilon=1.0)
            _race(s, threads=8, attempts=3, call=lambda x: x.r2t(0.1, max_contribution=4))
            # 24 attempts at 0.1 against 1.0: exactly ten fit, as written.
            assert len(s.log) == 10 and s.totals["basic"].epsilon == 1.0
            assert all(e.result is not None for e in s.log)
            assert s.remaining.epsilon == 0.0
    finally:
        sys.setswitchinterval(old)
    assert len(streams) == 250 and len(set(streams)) == 250  # no stream reused


# --------------------------------------------------------------------------------------------
# Neighbouring datasets
# --------------------------------------------------------------------------------------------

PUBLIC = {"a": 1, "b": 2, "c": 1}
Call = tuple[str, tuple[Any, ...], dict[str, Any]]


def _cases(args: tuple[Any, ...], kwargs: dict[str, Any], *traps: Call) -> list[Call]:
    """A valid call, an overspend, a bad ε, and the method's own traps."""
    at = 1 if isinstance(args[0], dict) else 0  # the n-gram release takes public counts first

    def epsilon(value: float) -> tuple[Any, ...]:
        return (*args[:at], value, *args[at + 1 :])

    return [
        ("valid", args, kwargs),
        ("overspend", epsilon(5.0), kwargs),
        ("bad epsilon", epsilon(-1.0), kwargs),
        *traps,
    ]


SET_UNION = ("count_laplace", "count_gaussian", "weighted_laplace", "weighted_gaussian")
SET_UNION += ("policy_laplace", "policy_gaussian", "max_adaptive_degree", "dp_sips")

#: method → calls that must behave identically on neighbours: (label, args, kwargs).
CASES: dict[str, list[Call]] = {
    "dp_distinct_count": _cases(
        (0.5,),
        {"ell_max": 4},
        ("bad ell_max", (0.5,), {"ell_max": 0}),
        ("non-private selection", (0.5,), {"selection": "max_degree"}),
    ),
    "r2t": _cases((0.5,), {"max_contribution": 4}, ("bad base", (0.5,), {"base": 1})),
    "shifted_inverse": _cases(
        (0.5,),
        {"upper": 100},
        # The brute-force inverse stated the number of persons once it exceeded 20.
        ("exact inverse", (0.5,), {"upper": 100, "inverse": "exact"}),
        ("bad upper", (0.5,), {"upper": -1}),
    ),
    "laplace_ngrams": _cases(
        (PUBLIC, 0.5),
        {"max_contribution": 3},
        # Succeeded or failed with whether the data shared an n-gram with the vocabulary.
        ("disjoint vocabulary", ({"zz": 1}, 0.5), {"max_contribution": 3}),
        ("other label type", ({7: 1}, 0.5), {"max_contribution": 3}),
        ("bad public counts", ({"a": -1}, 0.5), {"max_contribution": 3}),
    ),
    "laplace_ngrams_public": _cases(
        (PUBLIC, 0.5),
        {"max_contribution": 3},
        ("disjoint vocabulary", ({"zz": 1}, 0.5), {"max_contribution": 3}),
        ("other label type", ({7: 1}, 0.5), {"max_contribution": 3}),
        ("zero public total", ({"a": 0}, 0.5), {"max_contribution": 3}),
    ),
    **{
        name: _cases(
            (0.5, 1e-7), {"max_items": 2}, ("bad max_items", (0.5, 1e-7), {"max_items": 0})
        )
        for name in SET_UNION
    },
    "grouped_distinct_count": _cases(
        (0.5,),
        {"max_groups": 1, "groups": ["g1", "g2", "zz"], "ell_max": 4},
        ("private keys", (0.5,), {"max_groups": 1, "delta": 1e-7, "ell_max": 4}),
        ("keys of another type", (0.5,), {"max_groups": 1, "groups": [7, None]}),
        ("no delta for private keys", (0.5,), {"max_groups": 1}),
        ("bad max_groups", (0.5,), {"max_groups": 0, "groups": ["g1"]}),
    ),
}


def _graph(sets: dict[str, dict[str, int]], counts: bool) -> PersonItemGraph:
    """The persons' n-grams with their counts, or as plain sets; neighbours keep the schema."""
    if not sets:
        empty = np.array([], dtype=object)
        return PersonItemGraph.from_pairs(empty, empty, np.zeros(0, np.int64) if counts else None)
    if counts:
        return PersonItemGraph.from_sets(sets)
    return PersonItemGraph.from_sets({p: set(held) for p, held in sets.items()})


def _grouped(sets: dict[str, dict[str, int]]) -> GroupedGraph:
    """The same persons' items in two groups (items a–c in g1, the others in g2)."""
    rows = [(p, "g1" if i in "abc" else "g2", i) for p, held in sets.items() for i in held]
    persons, groups, items = (np.array([r[k] for r in rows], dtype=object) for k in range(3))
    return GroupedGraph.from_triples(persons, groups, items)


def _outcome(data: Any, method: str, args: tuple, kwargs: dict) -> tuple[Any, ...]:
    session = Session(data, epsilon=1.0, delta=1e-6)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        try:
            getattr(session, method)(*args, **kwargs)
            what: tuple[Any, ...] = ("released",)
        except Exception as exc:  # every failure's type and text must match on neighbours
            what = (type(exc).__name__, str(exc))
    said = sorted({(w.category.__name__, str(w.message)) for w in caught})
    return (*what, len(session.log), repr(session.totals["basic"]), tuple(said))


PERSONS = st.dictionaries(
    st.text("pqrs", min_size=1, max_size=2),
    st.dictionaries(st.sampled_from("abcdxy"), st.integers(1, 3), max_size=4),
    max_size=6,
)
ITEMS = st.dictionaries(st.sampled_from("abcdxy"), st.integers(1, 3), max_size=4)
MANY = {f"m{k:02d}": {"a": 1, "x": 1} for k in range(20)}  # 20 persons: the exact inverse's limit


@settings(max_examples=15, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(persons=PERSONS, added=ITEMS, counts=st.booleans())
@example(persons=MANY, added={"b": 1}, counts=True)  # 20 → 21 persons holding items
@example(persons={}, added={"a": 2}, counts=True)  # empty data → one person
@example(persons={"p": {"x": 1}}, added={"a": 1}, counts=True)  # no overlap → overlap
def test_every_method_behaves_the_same_on_neighbours(
    persons: dict[str, dict[str, int]], added: dict[str, int], counts: bool
) -> None:
    more = {**persons, "new person": added}
    small = {"graph": _graph(persons, counts), "grouped": _grouped(persons)}
    large = {"graph": _graph(more, counts), "grouped": _grouped(more)}
    for method, calls in CASES.items():
        kind = registry.get(method).dataset
        for label, args, kwargs in calls:
            a = _outcome(small[kind], method, args, kwargs)
            b = _outcome(large[kind], method, args, kwargs)
            assert a == b, (method, label, a, b)


def test_cases_cover_every_session_method() -> None:
    methods = {
        name
        for name in dir(Session)
        if not name.startswith("_") and callable(getattr(Session, name))
    }
    assert set(CASES) == set(offered()) == methods - {"can_afford", "release"}
