"""Differentially private mechanisms over a :class:`dpcount.PersonItemGraph`.

* :func:`dp_distinct_count` — Knop & Steinke's private lower bound on the distinct count
  (Algorithm 1 with exact matching, Algorithm 2 with the greedy), ℓ chosen by :func:`gem`.
* :func:`r2t`, :func:`shifted_inverse` — the baselines of Knop & Steinke's Table 2.
* :mod:`mechanisms.set_union` — private sets of items (Gopi et al., MAD, DP-SIPS).
* :mod:`mechanisms.bayesian_ngrams` — the n-gram distribution of Ramadan, Withers & Orr.
* :func:`grouped_distinct_count` — one lower bound per group of a GROUP BY.
* :class:`Session` — data and a budget; every release is charged before noise is drawn
  (:class:`SeededSession`: the same, reproducible from a seed and therefore not private).
* :class:`PrivacyLoss`, :class:`PrivacyAccountant` — what each release spent, and a budget;
  :func:`privacy_loss_of` — what a call will spend, from its parameters alone;
  :mod:`mechanisms.composition` — basic, PLD and zCDP totals.
* :class:`Release` — the shape every result shares (``to_dict``/``to_json``, ``is_private``).
* :mod:`mechanisms.registry` — every mechanism, declared once beside its code with its privacy
  map (:mod:`mechanisms.declaration`); the Session's methods, :func:`privacy_loss_of`, the
  CLI's choices and the names here derive from it.

Every mechanism (:func:`mechanisms.registry.names`) takes ``rng`` (None = OS entropy; an int
or Generator reproduces) and returns a frozen :class:`Release` that records its
``privacy_loss``.  The building blocks — :func:`gem`, :func:`exponential_mechanism`,
:func:`permute_and_flip`, :func:`laplace_lower_bound` — return a bare selection or value: the
mechanism that uses them accounts for their loss.

Examples
--------
>>> import mechanisms
>>> from dpcount import PersonItemGraph
>>> g = PersonItemGraph.from_sets({f"p{k}": {f"item{k}", "common"} for k in range(50)})
>>> r = mechanisms.dp_distinct_count(g, epsilon=1.0, rng=0)
>>> r.estimate <= g.n_items, r.privacy_loss.epsilon
(True, 1.0)

Submodules and their dependencies (scipy's special functions and optimisers for the n-gram
code, the set-union kernels) load on first attribute access, so ``import mechanisms`` is light.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from dpcount.common.lazy import lazy_attributes
from mechanisms.registry import registered_modules as _registered

if TYPE_CHECKING:  # the names below, for type checkers (re-exported: `name as name`)
    from mechanisms import bayesian_ngrams as bayesian_ngrams
    from mechanisms import set_union as set_union
    from mechanisms._defaults import DEFAULT_BETA as DEFAULT_BETA
    from mechanisms.accounting import PrivacyAccountant as PrivacyAccountant
    from mechanisms.accounting import PrivacyLoss as PrivacyLoss
    from mechanisms.bayesian_ngrams import bayesian_dp as bayesian_dp
    from mechanisms.bayesian_ngrams import end_to_end_dp as end_to_end_dp
    from mechanisms.distinct_count import DistinctCountResult as DistinctCountResult
    from mechanisms.distinct_count import dp_distinct_count as dp_distinct_count
    from mechanisms.distinct_count import (
        dp_distinct_count_from_curve as dp_distinct_count_from_curve,
    )
    from mechanisms.generalized_exponential import gem as gem
    from mechanisms.generalized_exponential import gem_normalized_scores as gem_normalized_scores
    from mechanisms.generalized_exponential import gem_probabilities as gem_probabilities
    from mechanisms.grouped_counts import (
        GroupedDistinctCountResult as GroupedDistinctCountResult,
    )
    from mechanisms.grouped_counts import grouped_distinct_count as grouped_distinct_count
    from mechanisms.laplace import LaplaceLowerBound as LaplaceLowerBound
    from mechanisms.laplace import laplace_lower_bound as laplace_lower_bound
    from mechanisms.privacy_loss import privacy_loss_of as privacy_loss_of
    from mechanisms.race_to_the_top import R2TResult as R2TResult
    from mechanisms.race_to_the_top import r2t as r2t
    from mechanisms.release import Release as Release
    from mechanisms.selection import exponential_mechanism as exponential_mechanism
    from mechanisms.selection import permute_and_flip as permute_and_flip
    from mechanisms.session import SeededSession as SeededSession
    from mechanisms.session import Session as Session
    from mechanisms.session import SessionEntry as SessionEntry
    from mechanisms.set_union import SetUnionResult as SetUnionResult
    from mechanisms.set_union import count_gaussian as count_gaussian
    from mechanisms.set_union import count_laplace as count_laplace
    from mechanisms.set_union import dp_sips as dp_sips
    from mechanisms.set_union import max_adaptive_degree as max_adaptive_degree
    from mechanisms.set_union import policy_gaussian as policy_gaussian
    from mechanisms.set_union import policy_laplace as policy_laplace
    from mechanisms.set_union import weighted_gaussian as weighted_gaussian
    from mechanisms.set_union import weighted_laplace as weighted_laplace
    from mechanisms.shifted_inverse_mechanism import ShiftedInverseResult as ShiftedInverseResult
    from mechanisms.shifted_inverse_mechanism import shifted_inverse as shifted_inverse

# name -> module that defines it (or the submodule itself), imported on first access (PEP 562).
# Every registered mechanism is added from its declaration (mechanisms.registry reads the
# sources, importing nothing), so adding a mechanism does not touch this file.
_LAZY = {
    "bayesian_ngrams": "mechanisms.bayesian_ngrams",
    "set_union": "mechanisms.set_union",
    "registry": "mechanisms.registry",
    "DEFAULT_BETA": "mechanisms._defaults",
    "Release": "mechanisms.release",
    "privacy_loss_of": "mechanisms.privacy_loss",
    "SeededSession": "mechanisms.session",
    "Session": "mechanisms.session",
    "SessionEntry": "mechanisms.session",
    "PrivacyAccountant": "mechanisms.accounting",
    "PrivacyLoss": "mechanisms.accounting",
    "DistinctCountResult": "mechanisms.distinct_count",
    "dp_distinct_count_from_curve": "mechanisms.distinct_count",
    "gem": "mechanisms.generalized_exponential",
    "gem_normalized_scores": "mechanisms.generalized_exponential",
    "gem_probabilities": "mechanisms.generalized_exponential",
    "GroupedDistinctCountResult": "mechanisms.grouped_counts",
    "LaplaceLowerBound": "mechanisms.laplace",
    "LaplaceRelease": "mechanisms.laplace",  # the old name, for one release (it warns)
    "laplace_lower_bound": "mechanisms.laplace",
    "R2TResult": "mechanisms.race_to_the_top",
    "exponential_mechanism": "mechanisms.selection",
    "permute_and_flip": "mechanisms.selection",
    "SetUnionResult": "mechanisms.set_union",
    "ShiftedInverseResult": "mechanisms.shifted_inverse_mechanism",
    **_registered(),
}

__all__ = sorted(set(_LAZY) - {"LaplaceRelease"})


__getattr__, __dir__ = lazy_attributes(globals(), _LAZY, __all__)
