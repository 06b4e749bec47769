"""How a grouped distinct count chooses ℓ: once for all groups, per group, or not at all.

After each person keeps at most k groups (:mod:`mechanisms.grouped_counts`), the table
of counts has a budget ε_count.  Three rules spend it (docs/grouped.md has the comparison):

* ``"shared"`` – **one ℓ for all groups.**  GEM (Knop & Steinke Algorithm 3) with
  ε_choose = ``ell_share``·ε_count picks ℓ̂ from the summed utilities
  Q_ℓ = Σ_g DC_g(D;ℓ) − G·(kℓ/ε_c)·ln(1/(2β)), ε_c = ε_count − ε_choose, the sum over the G
  released groups of the expected lower bound each will get.  One person touches at most k
  groups and moves each DC_g(D;ℓ) by at most ℓ (Lemma A.1), so Q_ℓ has sensitivity kℓ: GEM
  on Q_ℓ/k with Δ_ℓ = ℓ is the same mechanism and ε_choose-DP.  Then every group is counted
  at the public ℓ̂: DC_g(D;ℓ̂) + Lap(kℓ̂/ε_c) − shift.  The vector of counts moves by at most
  kℓ̂ in ℓ1, so the counts are ε_c-DP, and basic composition gives ε_count.
* ``"per_group"`` – Algorithm 1 in every group at ε_count/k: GEM at ε_count/(2k) and the
  count at ε_count/(2k) per group, so in total ε_count/2 choosing ℓ and ε_count/2 counting
  (at most k groups touched per person).
* ``"public"`` – ``ell=`` (or ``ell_max=1``): ℓ is fixed in advance, nothing is spent
  choosing it, and every group is counted at ε_count/k: Lap(kℓ/ε_count).

Examples
--------
>>> plan = plan_ell(1.0, ell=None, ell_max=30, ell_choice="shared", ell_share=0.1)
>>> plan.choice, plan.choose_epsilon, round(plan.count_epsilon, 12)
('shared', 0.1, 0.9)
>>> plan_ell(1.0, ell=3, ell_max=30, ell_choice="shared", ell_share=0.1).choose_epsilon
0.0
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from dpcount.common.rng import RNGLike
from dpcount.validation import check_choice, check_probability
from mechanisms.accounting import PrivacyLoss
from mechanisms.distinct_count import dp_distinct_count_from_curve, gem_ell, public_ell

__all__ = [
    "DEFAULT_ELL_SHARE",
    "ELL_CHOICES",
    "EllPlan",
    "ell_loss",
    "plan_ell",
    "release_rows",
    "shared_curve",
    "shared_ell",
]

#: The private rules; ``"public"`` is what a given ``ell`` (or ``ell_max=1``) makes of either.
ELL_CHOICES: tuple[str, ...] = ("shared", "per_group")
#: Share of ε_count that the shared rule spends choosing ℓ (benchmarks/results/grouped.md).
DEFAULT_ELL_SHARE = 0.1
_NO_DEGREES = np.zeros(0, dtype=np.int64)  # read only by non-private ℓ rules, never here


@dataclass(frozen=True)
class EllPlan:
    """The rule for ℓ and the split of ε_count, fixed before the data are read.

    Attributes
    ----------
    choice
        ``"shared"``, ``"per_group"`` or ``"public"``.
    ell
        The public ℓ (``None`` unless ``choice == "public"``).
    choose_epsilon
        ε spent choosing ℓ, over the whole table (0 for a public ℓ).
    count_epsilon
        ε of the table of counts; every group is counted at ``count_epsilon / k``.
    """

    choice: str
    ell: int | None
    choose_epsilon: float
    count_epsilon: float


def plan_ell(
    epsilon_count: float,
    *,
    ell: int | None,
    ell_max: int,
    ell_choice: str,
    ell_share: float,
) -> EllPlan:
    """Check the ℓ parameters and split ε_count (no data is read).

    Raises
    ------
    InvalidParameterError
        An unknown ``ell_choice``, an ``ell`` that is not a positive integer, or an
        ``ell_share`` outside (0, 1).
    """
    check_choice(ell_choice, "ell_choice", ELL_CHOICES)
    share = check_probability(ell_share, "ell_share")  # in (0, 1): the counts need some ε
    fixed = public_ell(ell, ell_max, "gem")
    if fixed is not None:
        return EllPlan("public", fixed, 0.0, epsilon_count)
    if ell_choice == "shared":
        choose = epsilon_count * share
        return EllPlan("shared", None, choose, epsilon_count - choose)
    # Algorithm 1 per group: half of each group's ε_count/k chooses, half counts.
    return EllPlan("per_group", None, epsilon_count / 2, epsilon_count / 2)


def ell_loss(plan: EllPlan, k: int, counting: str) -> PrivacyLoss:
    """The loss of choosing ℓ and counting every group (the key selection excluded).

    Examples
    --------
    >>> plan = plan_ell(1.0, ell=2, ell_max=30, ell_choice="shared", ell_share=0.1)
    >>> [p.epsilon for p in ell_loss(plan, 3, "matching").parts]
    [0.0, 1.0]
    """
    if plan.choice == "public":
        choose = PrivacyLoss(0.0, description=f"public ℓ = {plan.ell}: nothing to choose")
    elif plan.choice == "shared":
        choose = PrivacyLoss(plan.choose_epsilon, description="one ℓ for all groups by GEM")
    else:
        choose = PrivacyLoss(plan.choose_epsilon, description=f"GEM per group at ε/{2 * k} each")
    counts = PrivacyLoss(
        plan.count_epsilon,
        description=f"group counts ({counting}), ≤ {k} groups per person",
    )
    return choose.compose(counts, description=f"grouped counts, ℓ {plan.choice}")


def shared_curve(curves: np.ndarray, k: int) -> np.ndarray:
    """Σ_g DC_g(D;ℓ) / k for ℓ = 1..: a score of sensitivity ℓ, as GEM needs (Δ_ℓ = ℓ).

    One person is in at most k groups and moves each DC_g(D;ℓ) by at most ℓ (Lemma A.1), so
    the sum moves by at most kℓ.

    Examples
    --------
    >>> shared_curve(np.array([[3, 4], [5, 9]]), 2).tolist()
    [4.0, 6.5]
    """
    return curves.sum(axis=0, dtype=np.float64) / k


def shared_ell(
    curves: np.ndarray,
    n_rows: int,
    k: int,
    plan: EllPlan,
    beta: float,
    ell_max: int,
    rng: RNGLike,
) -> int:
    """ℓ̂ for all groups: GEM on Σ_g q_g(ℓ) / k with Δ_ℓ = ℓ (module docstring).

    ``curves`` holds DC_g(D;ℓ) of the groups in the data (absent released keys count 0);
    each of the ``n_rows`` released groups pays its shift (kℓ/ε_c)·ln(1/(2β)), so the summed
    utility over k is Σ_g DC_g(D;ℓ)/k − ℓ/(ε_c/n_rows)·ln(1/(2β)).
    """
    per_row = plan.count_epsilon / max(1, n_rows)
    ell, *_ = gem_ell(shared_curve(curves, k), ell_max, per_row, plan.choose_epsilon, beta, rng=rng)
    return ell


def release_rows(
    plan: EllPlan,
    curves: list[np.ndarray],
    data_curves: np.ndarray,
    k: int,
    beta: float,
    ell_max: int,
    counting: str,
    selection_rng: RNGLike,
    noise_rng: RNGLike,
) -> list[tuple[int | float, int, float]]:
    """(estimate, ℓ, scale) of every released group under the plan.

    ``curves`` has one curve per released group (zeros for keys absent from the data), and
    ``data_curves`` the curves of the groups in the data, for the shared choice.
    """
    ell = plan.ell
    if plan.choice == "shared":
        ell = shared_ell(data_curves, len(curves), k, plan, beta, ell_max, selection_rng)
    rows = []
    for curve in curves:
        if ell is None:  # Algorithm 1 in the group at ε_count/k (half chooses, half counts)
            r = dp_distinct_count_from_curve(
                curve,
                _NO_DEGREES,
                2 * plan.count_epsilon / k,
                beta=beta,
                ell_max=ell_max,
                counting=counting,  # type: ignore[arg-type]
                selection_rng=selection_rng,
                noise_rng=noise_rng,
            )
        else:  # ℓ public or chosen once before: the count alone, at ε_c/k
            r = dp_distinct_count_from_curve(
                curve,
                _NO_DEGREES,
                plan.count_epsilon / k,
                beta=beta,
                ell=ell,
                counting=counting,  # type: ignore[arg-type]
                noise_rng=noise_rng,
            )
        rows.append((r.estimate, r.ell, r.scale))
    return rows
