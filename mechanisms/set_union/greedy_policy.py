"""The greedy update policy of Gopi et al. (2020), Algorithm 9 — a teaching example, NOT private.

Each user spends their budget 1 on the items closest to the cutoff first.  That looks like the
best way to fill bins, but the choice of which items a user fills depends on the users before
them, and one added user can flip the choices of every later user: the histogram's sensitivity
is unbounded (Gopi App. C).  The exhaustive neighbour audit in ``tests/mechanisms/set_union``
shows it failing, next to the ℓ1/ℓ2-descent policies that pass.  This module is not exported as
a mechanism; :func:`greedy_policy` refuses to release unless ``allow_non_private=True``.

Examples
--------
The counterexample of Gopi App. C (cutoff 10.5): user ``i`` holds only item 0; five later users
hold both items.  Without user ``i`` they fill item 1, with user ``i`` they fill item 0.

>>> from mechanisms.set_union._bounding import CappedSets
>>> prefix = [[2]] * 10 + [[2, 0], [1]]   # item 0 at 0.5, item 1 at 1 before user i
>>> later = [[0, 1]] * 5
>>> with_i = CappedSets.from_lists(prefix + [[0]] + later, n_items=3)
>>> without_i = CappedSets.from_lists(prefix + later, n_items=3)
>>> a = greedy_policy_weights(with_i, np.arange(18), cutoff=10.5)
>>> b = greedy_policy_weights(without_i, np.arange(17), cutoff=10.5)
>>> a[:2].tolist(), b[:2].tolist(), float(np.abs(a - b).sum())
([6.5, 1.0], [0.5, 6.0], 11.0)
"""

from __future__ import annotations

import dataclasses
import warnings

import numpy as np

from dpcount.common.jit import kernel
from dpcount.common.rng import RNGLike
from dpcount.errors import InvalidParameterError, PrivacyLeakWarning
from dpcount.graph import PersonItemGraph
from dpcount.validation import check_nonnegative
from mechanisms.accounting import PrivacyLoss
from mechanisms.set_union._bounding import CappedSets, random_order
from mechanisms.set_union._release import (
    Streams,
    check_common,
    single_round_result,
)
from mechanisms.set_union.calibration import calibrate
from mechanisms.set_union.result import SetUnionResult

__all__ = ["greedy_policy", "greedy_policy_weights"]


@kernel("(ro(int64[:]), ro(int32[:]), ro(int64[:]), float64, int64)")
def _greedy(
    indptr: np.ndarray, indices: np.ndarray, order: np.ndarray, cutoff: float, n_items: int
) -> np.ndarray:  # pragma: no cover - compiled
    h = np.zeros(n_items)
    width = 0
    for p in range(indptr.size - 1):
        width = max(width, indptr[p + 1] - indptr[p])
    gaps = np.empty(width)
    items = np.empty(width, dtype=np.int64)
    for p in order:
        k = 0
        for idx in range(indptr[p], indptr[p + 1]):
            i = indices[idx]
            if h[i] < cutoff:
                gaps[k] = cutoff - h[i]
                items[k] = i
                k += 1
        # Gopi Alg. 9: fill the smallest gaps first, each completely, until the budget 1 ends.
        budget = 1.0
        for j in np.argsort(gaps[:k], kind="mergesort"):
            if gaps[j] <= budget:
                h[items[j]] = cutoff
                budget -= gaps[j]
            else:
                h[items[j]] += budget
                break
    return h


def greedy_policy_weights(sets: CappedSets, order: np.ndarray, cutoff: float) -> np.ndarray:
    """Histogram of the greedy policy (Gopi Alg. 9), users visited in ``order``.

    Ties between equal gaps go to the smaller item id.  Sensitivity is unbounded: do not
    release a noisy version of this histogram.
    """
    order = np.asarray(order, dtype=np.int64)
    return _greedy(sets.indptr, sets.indices, order, float(cutoff), sets.n_items)


def greedy_policy(
    graph: PersonItemGraph,
    epsilon: float,
    delta: float,
    *,
    max_items: int = 100,
    alpha: float = 5.0,
    rng: RNGLike = None,
    allow_non_private: bool = False,
    return_weights: bool = False,
) -> SetUnionResult:
    """Gopi's greedy policy with Policy-Laplace noise and threshold: **not differentially private**.

    A teaching example: it refuses to run unless ``allow_non_private=True``, then warns with
    :class:`~dpcount.errors.PrivacyLeakWarning` and records a non-private privacy loss.
    Use :func:`~mechanisms.set_union.policy.policy_laplace` instead.

    Parameters
    ----------
    graph, epsilon, delta, max_items, alpha, rng, return_weights
        As for :func:`~mechanisms.set_union.policy.policy_laplace`.
    allow_non_private
        Must be True to run.

    Raises
    ------
    InvalidParameterError
        Unless ``allow_non_private=True``.

    Notes
    -----
    Gopi et al. (2020), Algorithm 9 and Appendix C: the ℓ1-sensitivity of the histogram grows
    with the number of users, so no noise scale makes the release private.

    Examples
    --------
    >>> import warnings
    >>> from dpcount import PersonItemGraph
    >>> g = PersonItemGraph.from_sets({"u": {"a"}})
    >>> greedy_policy(g, 1.0, 1e-6)
    Traceback (most recent call last):
    ...
    dpcount.errors.InvalidParameterError: the greedy policy (Gopi et al. 2020, Alg. 9) ...
    >>> with warnings.catch_warnings():
    ...     warnings.simplefilter("ignore")
    ...     greedy_policy(g, 1.0, 1e-6, allow_non_private=True).privacy_loss.is_private
    False
    """
    if allow_non_private is not True:  # refused before anything else, warnings included
        raise InvalidParameterError(
            "the greedy policy (Gopi et al. 2020, Alg. 9) has unbounded sensitivity and is not "
            "differentially private (App. C); use policy_laplace, or pass "
            "allow_non_private=True to run it as a teaching example"
        )
    eps, dlt, delta0 = check_common(graph, epsilon, delta, max_items)
    a = check_nonnegative(alpha, "alpha")
    warnings.warn(
        "greedy_policy is not differentially private: its output may reveal individuals",
        PrivacyLeakWarning,
        stacklevel=2,
    )
    # Policy Laplace's numbers (the name says which are borrowed; the result is not private).
    calibration = dataclasses.replace(
        calibrate("policy_laplace", eps, dlt, delta0, alpha=a, mode="float"),
        mechanism="greedy_policy",
    )
    cutoff = float(calibration.cutoff)  # type: ignore[arg-type]

    def weigh(sets: CappedSets, rngs: Streams) -> np.ndarray:
        order = random_order(sets.n_persons, rngs.order)
        return _greedy(sets.indptr, sets.indices, order, cutoff, sets.n_items)

    return single_round_result(
        graph,
        calibration,
        epsilon=eps,
        delta=dlt,
        max_items=delta0,
        rng=rng,
        weigh=weigh,
        parameters={"alpha": a},
        privacy_loss=PrivacyLoss.non_private("greedy policy, unbounded sensitivity (Gopi App. C)"),
        return_weights=return_weights,
    )
