"""Results of the n-gram distribution mechanisms.

Examples
--------
>>> import numpy as np
>>> from mechanisms.accounting import PrivacyLoss
>>> r = LaplaceNgramResult(labels=np.array(["a", "b"]), probabilities=np.array([0.25, 0.75]),
...                        mechanism="laplace_ngrams", epsilon=1.0, scale=3.0, sensitivity=3.0,
...                        max_contribution=3, privacy_loss=PrivacyLoss(1.0),
...                        guarantee=WORST_CASE)
>>> r.distribution()
{'a': 0.25, 'b': 0.75}
>>> r
LaplaceNgramResult(mechanism='laplace_ngrams', vocabulary=2, epsilon=1, b=3, sensitivity=3, ...)
"""

from __future__ import annotations

import warnings
from dataclasses import dataclass
from typing import Any

import numpy as np

from mechanisms.accounting import PrivacyLoss
from mechanisms.release import Release, html_table

__all__ = [
    "LOCAL_SENSITIVITY",
    "WORST_CASE",
    "BayesianDPResult",
    "LaplaceNgramResult",
    "TuningReport",
]

#: The guarantee of a release whose noise is calibrated to a sensitivity taken from the data.
LOCAL_SENSITIVITY = "local sensitivity (not worst-case DP)"
#: The guarantee of a release calibrated to a worst-case (global) sensitivity.
WORST_CASE = "worst-case DP (add/remove one person)"


class _Distribution(Release):
    """Shared helpers of results that hold a distribution over the public vocabulary."""

    labels: np.ndarray
    probabilities: np.ndarray
    guarantee: str
    secure: bool

    @property
    def worst_case_dp(self) -> bool:
        """Whether the privacy loss holds for every pair of neighbouring datasets."""
        return self.guarantee == WORST_CASE

    def distribution(self) -> dict[Any, float]:
        """``{n-gram: probability}`` over the whole public vocabulary."""
        labels = (x.item() if isinstance(x, np.generic) else x for x in self.labels)
        return dict(zip(labels, self.probabilities.tolist(), strict=True))

    def __len__(self) -> int:
        return int(self.labels.size)

    def __repr__(self) -> str:
        inner = ", ".join(f"{k}={v}" for k, v in self._rows())
        return f"{type(self).__name__}({inner})"

    def _repr_html_(self) -> str:
        top = np.argsort(-self.probabilities, kind="stable")[:10]
        shown = ", ".join(f"{self.labels[i]}: {self.probabilities[i]:.3g}" for i in top)
        rows = [*self._rows(), ("privacy_loss", repr(self.privacy_loss)), ("most probable", shown)]
        return html_table(rows, caption=" ".join(self._warnings()))


@dataclass(frozen=True, repr=False)
class TuningReport:
    """The private hyperparameter selection of :func:`end_to_end_dp` (Algorithm 2).

    Attributes
    ----------
    grid
        The candidate (``clip_slope``, ``private_weight``) pairs, S and ρ in the paper, in the
        order they were scored.
    selected
        Index of the pair the Laplace noisy-min chose (the only data-dependent output here).
    epsilon
        ε₁ spent on the selection.
    scale
        Laplace scale b = 2|Δq|/ε₁ added to every score (Theorem 2).
    score_sensitivity
        |Δq|, the largest score sensitivity over the grid (Claim 2, corrected).
    tuning_fraction
        Share of persons put in the tuning (scoring) set.
    """

    grid: tuple[tuple[float, float], ...]
    selected: int
    epsilon: float
    scale: float
    score_sensitivity: float
    tuning_fraction: float

    def __repr__(self) -> str:
        slope, weight = self.grid[self.selected]
        return (
            f"TuningReport(selected=(clip_slope={slope:g}, private_weight={weight:g}), "
            f"candidates={len(self.grid)}, "
            f"epsilon={self.epsilon:g}, b={self.scale:.4g})"
        )


@dataclass(frozen=True, repr=False, eq=False)
class BayesianDPResult(_Distribution):
    """A distribution θ over the public vocabulary released by the Bayesian n-gram mechanism.

    Attributes
    ----------
    labels
        The public vocabulary 𝒱 in sorted label order.
    probabilities
        θ = softmax(h), h ~ N(μ_ps, σ_ps² I): positive, sums to 1, aligned with ``labels``.
    scale
        σ_ps, the standard deviation of the Gaussian noise in log space (Algorithm 1); also
        readable as ``sigma`` (deprecated).
    sensitivity
        γ, the ℓ2-sensitivity of w⊙x̂ the noise was calibrated to (Corollary 1).
    sensitivity_method
        ``"brute_force"`` (maximum over persons present) or ``"bound"`` (Claim 1).
    epsilon, delta
        Parameters of the Gaussian release (ε₂ for :func:`end_to_end_dp`).
    clip_slope, max_count, private_weight
        The paper's S (slope of the clipping weights, Eq. 5), C (per-person count clamp) and
        ρ (weight of the private counts against the public prior); see :func:`bayesian_dp`.
    calibration
        ``"discrete"`` (exact noise, zCDP calibration), or for NumPy noise ``"classical"``
        (σ = ργ·√(2 ln(1.25/δ))/ε, the paper's) or ``"analytic"``.
    privacy_loss
        The nominal (ε, δ) spent, total of tuning and release for :func:`end_to_end_dp`.
    guarantee
        :data:`LOCAL_SENSITIVITY`: the noise depends on a data-dependent sensitivity, so the
        nominal (ε, δ) is **not** a worst-case differential-privacy guarantee.
    tuning
        The hyperparameter selection of :func:`end_to_end_dp`, else ``None``.
    secure
        ``True`` for exact discrete noise (default), ``False`` for NumPy noise.
    """

    labels: np.ndarray
    probabilities: np.ndarray
    scale: float
    sensitivity: float
    sensitivity_method: str
    epsilon: float
    delta: float
    clip_slope: float
    max_count: int
    private_weight: float
    calibration: str
    privacy_loss: PrivacyLoss
    guarantee: str
    tuning: TuningReport | None = None
    secure: bool = True

    @property
    def mechanism(self) -> str:
        """``"end_to_end_dp"`` when (S, ρ) were tuned privately, else ``"bayesian_dp"``."""
        return "bayesian_dp" if self.tuning is None else "end_to_end_dp"

    @property
    def sigma(self) -> float:
        """Deprecated alias of :attr:`scale`."""
        warnings.warn(
            "BayesianDPResult.sigma is deprecated; use .scale", DeprecationWarning, stacklevel=2
        )
        return self.scale

    def _rows(self) -> list[tuple[str, str]]:
        rows = [
            ("vocabulary", f"{len(self)}"),
            ("sigma", f"{self.scale:.4g}"),
            ("sensitivity", f"{self.sensitivity:.4g} ({self.sensitivity_method})"),
            ("epsilon", f"{self.privacy_loss.epsilon:g}"),
            ("delta", f"{self.delta:g}"),
            ("clip_slope", f"{self.clip_slope:g}"),
            ("max_count", f"{self.max_count}"),
            ("private_weight", f"{self.private_weight:g}"),
            ("guarantee", repr(self.guarantee)),
        ]
        if self.tuning is not None:
            rows.insert(4, ("tuned", f"{len(self.tuning.grid)} candidates"))
        return rows


@dataclass(frozen=True, repr=False, eq=False)
class LaplaceNgramResult(_Distribution):
    """A distribution over the public vocabulary released by a Laplace baseline (§4.2).

    Attributes
    ----------
    labels, probabilities
        The public vocabulary and the released distribution (zeros where the noisy value was
        thresholded away; uniform if everything was).
    mechanism
        ``"laplace_ngrams"`` or ``"laplace_ngrams_public"``.
    epsilon
        The ε of the release.
    scale
        Laplace scale b = Δ₁/ε.
    sensitivity
        Δ₁, the ℓ1-sensitivity the noise was calibrated to.
    max_contribution
        W, the cap on each person's total count.
    privacy_loss, guarantee
        As for :class:`BayesianDPResult`.
    secure
        ``True`` for exact discrete Laplace noise (default), ``False`` for NumPy noise.
    """

    labels: np.ndarray
    probabilities: np.ndarray
    mechanism: str
    epsilon: float
    scale: float
    sensitivity: float
    max_contribution: int
    privacy_loss: PrivacyLoss
    guarantee: str
    secure: bool = True

    def _rows(self) -> list[tuple[str, str]]:
        return [
            ("mechanism", repr(self.mechanism)),
            ("vocabulary", f"{len(self)}"),
            ("epsilon", f"{self.epsilon:g}"),
            ("b", f"{self.scale:.4g}"),
            ("sensitivity", f"{self.sensitivity:.4g}"),
            ("max_contribution", f"{self.max_contribution}"),
            ("guarantee", repr(self.guarantee)),
        ]
