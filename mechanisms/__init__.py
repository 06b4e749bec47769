"""Differentially private mechanisms over a :class:`dpcount.PersonItemGraph`.

* :func:`dp_distinct_count` — Knop & Steinke's private lower bound on the distinct count
  (Algorithm 1 with exact matching, Algorithm 2 with the greedy), ℓ chosen by :func:`gem`.
* :func:`r2t`, :func:`shifted_inverse` — the baselines of Knop & Steinke's Table 2.
* :mod:`mechanisms.set_union` — private sets of items (Gopi et al., MAD, DP-SIPS).
* :mod:`mechanisms.bayesian_ngrams` — the n-gram distribution of Ramadan, Withers & Orr.
* :class:`Session` — data and a budget; every release is charged before noise is drawn
  (:class:`SeededSession`: the same, reproducible from a seed and therefore not private).
* :class:`PrivacyLoss`, :class:`PrivacyAccountant` — what each release spent, and a budget;
  :func:`privacy_loss_of` — what a call will spend, from its parameters alone;
  :mod:`mechanisms.composition` — basic, PLD and zCDP totals.
* :class:`Release` — the shape every result shares (``to_dict``/``to_json``, ``is_private``).

Every randomized function takes ``rng`` (None = OS entropy; an int or Generator reproduces)
and returns a frozen result that records its ``privacy_loss``.

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

from dpcount._lazy import lazy_attributes

if TYPE_CHECKING:
    from mechanisms import bayesian_ngrams, set_union
    from mechanisms._defaults import DEFAULT_BETA
    from mechanisms._result import Release
    from mechanisms.accounting import PrivacyAccountant, PrivacyLoss
    from mechanisms.bayesian_ngrams import bayesian_dp, end_to_end_dp
    from mechanisms.distinct_count import (
        DistinctCountResult,
        dp_distinct_count,
        dp_distinct_count_from_curve,
    )
    from mechanisms.gem import gem, gem_normalized_scores, gem_probabilities
    from mechanisms.grouped_distinct_count import (
        GroupedDistinctCountResult,
        grouped_distinct_count,
    )
    from mechanisms.laplace import LaplaceRelease, laplace_lower_bound
    from mechanisms.privacy_loss import privacy_loss_of
    from mechanisms.r2t import R2TResult, r2t
    from mechanisms.selection import exponential_mechanism, permute_and_flip
    from mechanisms.session import SeededSession, Session, SessionEntry
    from mechanisms.set_union import (
        SetUnionResult,
        count_gaussian,
        count_laplace,
        dp_sips,
        max_adaptive_degree,
        policy_gaussian,
        policy_laplace,
        weighted_gaussian,
        weighted_laplace,
    )
    from mechanisms.shifted_inverse import ShiftedInverseResult, shifted_inverse

# name -> module that defines it (or the submodule itself), imported on first access (PEP 562).
_LAZY = {
    "bayesian_ngrams": "mechanisms.bayesian_ngrams",
    "set_union": "mechanisms.set_union",
    "DEFAULT_BETA": "mechanisms._defaults",
    "Release": "mechanisms._result",
    "privacy_loss_of": "mechanisms.privacy_loss",
    "Session": "mechanisms.session",
    "SeededSession": "mechanisms.session",
    "SessionEntry": "mechanisms.session",
    "PrivacyAccountant": "mechanisms.accounting",
    "PrivacyLoss": "mechanisms.accounting",
    "bayesian_dp": "mechanisms.bayesian_ngrams",
    "end_to_end_dp": "mechanisms.bayesian_ngrams",
    "DistinctCountResult": "mechanisms.distinct_count",
    "dp_distinct_count": "mechanisms.distinct_count",
    "dp_distinct_count_from_curve": "mechanisms.distinct_count",
    "gem": "mechanisms.gem",
    "gem_normalized_scores": "mechanisms.gem",
    "gem_probabilities": "mechanisms.gem",
    "GroupedDistinctCountResult": "mechanisms.grouped_distinct_count",
    "grouped_distinct_count": "mechanisms.grouped_distinct_count",
    "LaplaceRelease": "mechanisms.laplace",
    "laplace_lower_bound": "mechanisms.laplace",
    "R2TResult": "mechanisms.r2t",
    "r2t": "mechanisms.r2t",
    "exponential_mechanism": "mechanisms.selection",
    "permute_and_flip": "mechanisms.selection",
    "SetUnionResult": "mechanisms.set_union",
    "count_gaussian": "mechanisms.set_union",
    "count_laplace": "mechanisms.set_union",
    "dp_sips": "mechanisms.set_union",
    "max_adaptive_degree": "mechanisms.set_union",
    "policy_gaussian": "mechanisms.set_union",
    "policy_laplace": "mechanisms.set_union",
    "weighted_gaussian": "mechanisms.set_union",
    "weighted_laplace": "mechanisms.set_union",
    "ShiftedInverseResult": "mechanisms.shifted_inverse",
    "shifted_inverse": "mechanisms.shifted_inverse",
}

__all__ = [
    "DEFAULT_BETA",
    "DistinctCountResult",
    "GroupedDistinctCountResult",
    "LaplaceRelease",
    "PrivacyAccountant",
    "PrivacyLoss",
    "R2TResult",
    "Release",
    "SeededSession",
    "Session",
    "SessionEntry",
    "SetUnionResult",
    "ShiftedInverseResult",
    "bayesian_dp",
    "bayesian_ngrams",
    "count_gaussian",
    "count_laplace",
    "dp_distinct_count",
    "dp_distinct_count_from_curve",
    "dp_sips",
    "end_to_end_dp",
    "exponential_mechanism",
    "gem",
    "gem_normalized_scores",
    "gem_probabilities",
    "grouped_distinct_count",
    "laplace_lower_bound",
    "max_adaptive_degree",
    "permute_and_flip",
    "policy_gaussian",
    "policy_laplace",
    "privacy_loss_of",
    "r2t",
    "set_union",
    "shifted_inverse",
    "weighted_gaussian",
    "weighted_laplace",
]


__getattr__, __dir__ = lazy_attributes(globals(), _LAZY, __all__)
