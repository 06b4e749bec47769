"""The total privacy loss of several releases on the same data.

Basic composition (Dwork & Roth, Thm 3.16) adds the ε and the δ of the releases and is always
valid; it is tight for one release and for pure ε-DP at δ = 0.

Examples
--------
>>> total = compose([PrivacyLoss(0.5, 1e-7, "a"), PrivacyLoss(0.25, description="b")], 1e-6)
>>> total.epsilon, total.delta, total.accountant
(0.75, 1e-07, 'basic')
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from mechanisms.accounting import PrivacyLoss

__all__ = ["Total", "basic_total", "compose"]


@dataclass(frozen=True)
class Total:
    """A valid (ε, δ) for a sequence of releases, and the accountant that proved it.

    Attributes
    ----------
    epsilon, delta
        The guarantee of all releases together.
    accountant
        ``"basic"`` (sums).
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


def basic_total(losses: Sequence[PrivacyLoss]) -> Total:
    """Basic composition: the sums of ε and of δ (δ capped at 1)."""
    return Total(
        epsilon=float(sum(p.epsilon for p in losses)),
        delta=min(1.0, float(sum(p.delta for p in losses))),
        accountant="basic",
    )


def compose(losses: Sequence[PrivacyLoss], delta_budget: float) -> Total:
    """The tightest total of ``losses`` that this module can prove within ``delta_budget``.

    Parameters
    ----------
    losses
        The releases' losses (worst-case DP; nominal losses are never composed).
    delta_budget
        The δ the caller can afford: an accountant may spend up to it to lower ε.
    """
    del delta_budget  # basic composition spends exactly the sum of the δ
    return basic_total(losses)
