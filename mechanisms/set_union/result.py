"""The result every set-union mechanism returns.

Examples
--------
>>> import numpy as np
>>> from mechanisms.accounting import PrivacyLoss
>>> r = SetUnionResult(items=np.array(["a", "b"]), mechanism="weighted_gaussian", epsilon=1.0,
...                    delta=1e-5, max_items=10, noise="gaussian", scale=3.73, threshold=17.2,
...                    cutoff=None, parameters={}, privacy_loss=PrivacyLoss(1.0, 1e-5))
>>> r.count, r.is_private
(2, True)
>>> r
SetUnionResult(mechanism='weighted_gaussian', count=2, epsilon=1, delta=1e-05, max_items=10,
               scale=3.73 (gaussian), threshold=17.2)
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, ClassVar, Literal

import numpy as np

from mechanisms.accounting import PrivacyLoss
from mechanisms.release import Release

__all__ = ["SetUnionResult", "SetUnionRound"]


@dataclass(frozen=True)
class SetUnionRound:
    """One round of DP-SIPS: its noise, threshold, δ for novel items and what it released."""

    scale: float
    threshold: float
    cutoff: float | None
    delta_novel: float
    released: int


@dataclass(frozen=True, repr=False)
class SetUnionResult(Release):
    """Released items of a set-union mechanism, with its parameters and privacy loss.

    Attributes
    ----------
    items
        Labels of the released items, in label order.  This (and :attr:`count`) is the
        differentially private output, and all of it: the result holds no item ids, since an
        id is the item's rank among *all* the data's items and would reveal unreleased ones.
        Holding the graph, ``graph.item_index(label)`` (or ``np.searchsorted(
        graph.item_labels, items)``) finds them, e.g. to index :attr:`weights`.
    mechanism
        Name of the function that produced the result.
    epsilon, delta, max_items
        The privacy parameters and Δ0.
    noise
        ``"laplace"`` or ``"gaussian"``: discrete noise on fixed-point weights when
        :attr:`secure`, continuous noise on real weights (as in the papers) otherwise.
    scale
        Laplace scale b or Gaussian σ (of the last round for DP-SIPS).
    threshold
        Release threshold ρ (of the last round for DP-SIPS).
    cutoff
        Γ of a policy, τ of the adaptive weighting, ``None`` otherwise.
    parameters
        The other parameters (α, d_max, τ offset, rounds …).
    privacy_loss
        The (ε, δ) spent on :attr:`items`.
    rounds
        Per-round details of DP-SIPS (empty otherwise).
    weights
        Pre-noise item weights, indexed by item id, only with ``return_weights=True``
        (shape ``(rounds, n_items)`` for DP-SIPS).  **Not private**: for research only, and
        ``is_private`` is then false.
    secure
        ``True`` when the noise was exact discrete noise on integer weights (the default);
        ``False`` for floating-point noise (the call warned
        :class:`~dpcount.errors.UnsafeNoiseWarning`).
    """

    items: np.ndarray
    mechanism: str
    epsilon: float
    delta: float
    max_items: int
    noise: Literal["laplace", "gaussian"]
    scale: float
    threshold: float
    cutoff: float | None
    parameters: Mapping[str, Any]
    privacy_loss: PrivacyLoss
    rounds: tuple[SetUnionRound, ...] = ()
    weights: np.ndarray | None = field(default=None, compare=False)
    secure: bool = False

    NON_PRIVATE_FIELDS: ClassVar[tuple[str, ...]] = ("weights",)

    @property
    def count(self) -> int:
        """Number of released items."""
        return int(self.items.size)

    def __len__(self) -> int:
        return self.count

    def _rows(self, full: bool = True) -> list[tuple[str, str]]:
        rows = [
            ("count", f"{self.count}"),
            ("epsilon", f"{self.epsilon:g}"),
            ("delta", f"{self.delta:g}"),
            ("max_items", f"{self.max_items}"),
            ("scale", f"{self.scale:.4g} ({self.noise})"),
            ("threshold", f"{self.threshold:.4g}"),
        ]
        if self.cutoff is not None:
            rows.append(("cutoff", f"{self.cutoff:.4g}"))
        if self.rounds:
            rows.append(("rounds", f"{len(self.rounds)}"))
        if full and self.privacy_loss.zcdp is not None:
            rho, delta0 = self.privacy_loss.zcdp
            rows.append(("zCDP", f"ρ = {rho:.4g}, δ₀ = {delta0:g}"))
        if self.weights is not None:
            rows.append(("weights", f"<NOT PRIVATE: {self.weights.shape[-1]} values>"))
        if full:
            shown = ", ".join(str(x) for x in self.items[:20])
            rows.append(("items", shown + (" …" if self.count > 20 else "")))
        return rows

    def __repr__(self) -> str:
        rows = [("mechanism", repr(self.mechanism)), *self._rows(full=False)]
        if not self.privacy_loss.is_private:
            rows.append(("privacy_loss", repr(self.privacy_loss)))
        inner = ", ".join(f"{k}={v}" for k, v in rows)
        return f"SetUnionResult({inner})"
