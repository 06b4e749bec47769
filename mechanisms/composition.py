"""The total privacy loss of several releases on the same data: three accountants.

* **basic** — the ε's add and the δ's add (Dwork & Roth 2014, Thm 3.16).  Always valid, also
  when each release was chosen after seeing the earlier ones (a privacy *filter*, Rogers et al.
  2016, Thm 3.5); tight for one release and for pure ε-DP at δ = 0.
* **pld** — the privacy loss distributions of Google's ``dp-accounting`` library (Doroshenko
  et al. 2022), composed numerically with pessimistic rounding: exact for Laplace, discrete
  Laplace and Gaussian noise (a release's :class:`~mechanisms.accounting.NoiseCurve`), and the
  worst ε-DP curve of an (ε, δ) pair for everything else (GEM, exponential mechanisms, the
  thresholded set-union mechanisms).  ε for the caller's δ budget.
* **zcdp** — ρ's add and the approximate δ₀'s add (Bun & Steinke 2016, Lemma 1.7, Def. 1.8);
  then ε = ρ + 2·√(ρ·ln(1/δ')) with δ' = δ − δ₀ (ibid. Prop. 1.3).

:func:`compose` returns the smallest ε among the accountants whose δ fits the budget, and
names the accountant; the basic total (summed exactly, as written) stands unless another is
smaller by more than :data:`MEANINGFUL_GAIN`.  The pld and zcdp totals hold for the releases
as a sequence fixed in advance; when later releases were chosen after seeing earlier outputs,
the basic total is the one that holds (fully adaptive composition; see docs/budget.md).
``dp-accounting`` is optional (``pip install 'dpcount[accounting]'``); without it,
:func:`compose` uses the other two and says so.

Examples
--------
>>> total = compose([PrivacyLoss(0.5, 1e-7, "a"), PrivacyLoss(0.25, description="b")], 1e-7)
>>> total.epsilon, total.delta, total.accountant
(0.75, 1e-07, 'basic')
"""

from __future__ import annotations

import importlib.util
import math
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from mechanisms.accounting import PrivacyLoss, exact_sum

__all__ = [
    "MEANINGFUL_GAIN",
    "PLD_DISCRETIZATION",
    "PLD_MAX_EPSILON",
    "Total",
    "basic_total",
    "compose",
    "have_pld",
    "pld_total",
    "zcdp_total",
]

#: Width of the privacy-loss buckets of the PLD accountant (rounding is pessimistic: ε comes
#: out at most about this much too large per composed release, never too small).
PLD_DISCRETIZATION = 1e-4
#: The PLD accountant is skipped when a release's ε exceeds this: ``dp-accounting`` evaluates
#: e^ε in double precision (which overflows beyond ε ≈ 709.8), and at such ε the basic total
#: is as good as any.
PLD_MAX_EPSILON = 500.0
#: A tighter accountant replaces the basic total only when its ε is smaller by more than this
#: fraction: smaller gains are within the PLD's own rounding and would show a total such as
#: 1.49997 for three releases of 0.5 (spending δ to save nothing).
MEANINGFUL_GAIN = 1e-3
_SLACK = 1e-12  # relative tolerance for δ's computed by the accountants


@dataclass(frozen=True)
class Total:
    """A valid (ε, δ) for a sequence of releases, and the accountant that proved it.

    Attributes
    ----------
    epsilon, delta
        The guarantee of all releases together.
    accountant
        ``"basic"``, ``"pld"`` or ``"zcdp"`` (see the module docstring); ``"basic"`` carries
        a note when ``dp-accounting`` is missing.
    """

    epsilon: float
    delta: float
    accountant: str

    def as_loss(self, releases: int) -> PrivacyLoss:
        """The total as a :class:`PrivacyLoss` that names its accountant."""
        return PrivacyLoss(
            self.epsilon,
            self.delta,
            f"{releases} release{'s' if releases != 1 else ''} ({self.accountant} composition)",
        )


def have_pld() -> bool:
    """Whether the optional ``dp-accounting`` package is installed."""
    return importlib.util.find_spec("dp_accounting") is not None


def basic_total(losses: Sequence[PrivacyLoss]) -> Total:
    """Basic composition: the sums of ε and of δ (δ capped at 1).

    Examples
    --------
    >>> basic_total([PrivacyLoss(0.5), PrivacyLoss(0.5, 1e-6)])
    Total(epsilon=1.0, delta=1e-06, accountant='basic')
    >>> basic_total([PrivacyLoss(0.1)] * 3).epsilon  # as written, not 0.30000000000000004
    0.3
    """
    return Total(
        epsilon=exact_sum(p.epsilon for p in losses),
        delta=min(1.0, exact_sum(p.delta for p in losses)),
        accountant="basic",
    )


def zcdp_total(losses: Sequence[PrivacyLoss], delta: float) -> Total | None:
    """The zCDP total at ``delta``, or ``None`` when a release has no zCDP statement or δ is
    spent by the approximate parts.

    Examples
    --------
    >>> t = zcdp_total([PrivacyLoss(0.1)] * 100, 1e-6)  # ρ = 100·0.1²/2 = 0.5
    >>> round(t.epsilon, 3), t.accountant
    (5.756, 'zcdp')
    """
    stated = [p.as_zcdp() for p in losses]
    if not losses or any(z is None for z in stated):
        return None
    rho = sum(z[0] for z in stated if z is not None)
    delta0 = sum(z[1] for z in stated if z is not None)
    rest = delta - delta0
    if not rest > 0:
        return None
    # Bun & Steinke 2016, Prop. 1.3: ρ-zCDP ⇒ (ρ + 2√(ρ ln(1/δ')), δ')-DP (docs/budget.md §3).
    return Total(rho + 2 * math.sqrt(rho * math.log(1 / rest)), delta, "zcdp")


def pld_total(losses: Sequence[PrivacyLoss], delta: float) -> Total | None:
    """The PLD total at ``delta`` (``dp-accounting``), or ``None`` without the package.

    Examples
    --------
    >>> t = pld_total([PrivacyLoss(1.0)], 0.0)
    >>> t is None or (1.0 <= t.epsilon <= 1.0 + 1e-3)
    True
    """
    if not losses or not have_pld():
        return None
    leaves = _leaves(losses)
    if any(leaf.epsilon > PLD_MAX_EPSILON for leaf in leaves):
        return None  # beyond double precision in dp-accounting (see PLD_MAX_EPSILON)
    from dp_accounting.pld import privacy_loss_distribution as pld  # optional, lazy

    try:
        composed = None
        for leaf in leaves:
            dist = _distribution(pld, leaf)
            composed = dist if composed is None else composed.compose(dist)
        assert composed is not None
        epsilon = float(composed.get_epsilon_for_delta(delta))
    except OverflowError:  # a curve beyond double precision: this accountant does not apply
        return None
    return Total(epsilon, delta, "pld") if math.isfinite(epsilon) else None


def _leaves(losses: Sequence[PrivacyLoss]) -> list[PrivacyLoss]:
    """Releases down to their parts: a composed loss is composed again part by part."""
    out: list[PrivacyLoss] = []
    for loss in losses:
        if loss.curve is None and loss.zcdp is None and loss.parts:
            out.extend(_leaves(loss.parts))
        else:
            out.append(loss)
    return out


def _distribution(pld: Any, loss: PrivacyLoss) -> Any:
    """The PLD of one release, rounded so that it never understates the loss (docs/budget.md §3)."""
    options = {"value_discretization_interval": PLD_DISCRETIZATION}
    curve = loss.curve
    if curve is None:
        from dp_accounting.pld import common

        params = common.DifferentialPrivacyParameters(loss.epsilon, loss.delta)
        return pld.from_privacy_parameters(params, **options)
    # Float rounding towards less noise: the curve used is at least as leaky as the real one.
    if curve.kind == "laplace":
        scale = math.nextafter(curve.scale, 0.0)
        return pld.from_laplace_mechanism(scale, sensitivity=curve.sensitivity, **options)
    if curve.kind == "gaussian":
        scale = math.nextafter(curve.scale, 0.0)
        return pld.from_gaussian_mechanism(scale, sensitivity=curve.sensitivity, **options)
    # Discrete Laplace: P[k] ∝ exp(−a·|k|) with a = 1/t; integer sensitivity.
    a = math.nextafter(1.0 / curve.scale, math.inf)
    sensitivity = round(curve.sensitivity)
    return pld.from_discrete_laplace_mechanism(a, sensitivity=sensitivity, **options)


def compose(losses: Sequence[PrivacyLoss], delta_budget: float) -> Total:
    """The tightest total of ``losses`` whose δ fits in ``delta_budget``.

    Parameters
    ----------
    losses
        The releases' losses (worst-case DP; nominal losses are never composed here).
    delta_budget
        The δ the caller can afford: the pld and zcdp accountants spend up to it to lower ε.

    Returns
    -------
    Total
        The candidate with the smallest ε among basic, pld and zcdp whose δ ≤ ``delta_budget``
        (the basic total if none fits, so that a budget check fails on it); the basic total
        also when no other is smaller by more than :data:`MEANINGFUL_GAIN`.

    Examples
    --------
    >>> compose([PrivacyLoss(0.5)] * 3, 1e-6).epsilon  # not pld's 1.49997 at δ = 1e-6
    1.5
    """
    basic = basic_total(losses)
    if not losses:
        return basic
    candidates = [basic, pld_total(losses, delta_budget), zcdp_total(losses, delta_budget)]
    fitting = [t for t in candidates if t is not None and t.delta <= delta_budget * (1 + _SLACK)]
    if not fitting:
        return basic
    best = min(fitting, key=lambda t: t.epsilon)
    if basic in fitting and best.epsilon >= basic.epsilon * (1 - MEANINGFUL_GAIN):
        best = basic
    if best.accountant == "basic" and not have_pld():
        return Total(best.epsilon, best.delta, "basic (dp-accounting not installed)")
    return best
