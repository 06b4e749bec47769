"""Privacy accounting: the loss every result records, and an accountant that enforces a budget.

Composition is basic (sequential) composition of (ε, δ)-DP: ε and δ add up (Dwork & Roth,
Thm 3.16).  That is what every mechanism here uses internally (GEM on ε/2 plus the Laplace
release on ε/2 in Knop & Steinke Algorithm 1; the thresholds of R2T), and it is always valid.

Examples
--------
>>> acct = PrivacyAccountant(epsilon_total=1.0)
>>> acct.spend(PrivacyLoss(0.6, description="first count"))
PrivacyLoss(epsilon=0.6, delta=0, 'first count')
>>> acct.remaining_epsilon
0.4
>>> acct.spend(PrivacyLoss(0.5, description="second count"))
Traceback (most recent call last):
...
dpcount.errors.BudgetExceededError: 'second count' needs epsilon=0.5 but only 0.4 of 1 is left
"""

from __future__ import annotations

import dataclasses
import math
import warnings
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from fractions import Fraction
from typing import Any, Protocol

from dpcount.errors import BudgetExceededError, InvalidParameterError, UnsafeNoiseWarning

__all__ = [
    "NOISE_KINDS",
    "NoiseCurve",
    "PrivacyAccountant",
    "PrivacyLoss",
    "as_written",
    "exact_sum",
    "fits",
]

#: The noise distributions whose privacy curves :mod:`mechanisms.composition` knows exactly.
NOISE_KINDS = ("laplace", "discrete_laplace", "gaussian")


def as_written(value: float) -> Fraction:
    """``value`` as the decimal it prints as (its shortest ``repr``), exactly: 0.1 → 1/10.

    Budgets are added and compared in this exact arithmetic, so three releases of 0.5 spend
    1.5 and 0.1 + 0.2 fits a budget of 0.3, as written.  A float ε differs from its decimal
    by less than 10⁻¹⁶ relative, far below any meaningful privacy difference.

    Examples
    --------
    >>> as_written(0.1), as_written(1e-6)
    (Fraction(1, 10), Fraction(1, 1000000))
    """
    return Fraction(repr(float(value)))


def exact_sum(values: Iterable[float]) -> float:
    """The sum of ``values`` as written (:func:`as_written`), rounded once; ∞ if any is ∞.

    Examples
    --------
    >>> exact_sum([0.1, 0.2]), exact_sum([0.5, 0.5, 0.5]), 0.1 + 0.2
    (0.3, 1.5, 0.30000000000000004)
    """
    values = [float(v) for v in values]
    if any(math.isinf(v) for v in values):
        return math.inf
    return float(sum((as_written(v) for v in values), Fraction(0)))


@dataclass(frozen=True)
class NoiseCurve:
    """The additive noise of a release, for accountants that use its exact privacy curve.

    Parameters
    ----------
    kind
        ``"laplace"`` (density ∝ e^{−|x|/scale}), ``"discrete_laplace"`` (P[k] ∝ e^{−|k|/scale}
        on the integers) or ``"gaussian"`` (standard deviation ``scale``).
    scale
        b, t or σ — exactly the scale that was sampled (not rounded).
    sensitivity
        Δ: the most one person can move the value the noise is added to (ℓ1; ℓ2 for Gaussian).

    Examples
    --------
    >>> NoiseCurve("laplace", 2.0, 1.0).epsilon
    0.5
    """

    kind: str
    scale: float
    sensitivity: float

    def __post_init__(self) -> None:
        if self.kind not in NOISE_KINDS:
            raise InvalidParameterError(f"kind must be one of {NOISE_KINDS}, got {self.kind!r}")
        if not (self.scale > 0 and self.sensitivity > 0):
            raise InvalidParameterError("noise scale and sensitivity must be > 0")

    @property
    def epsilon(self) -> float:
        """Δ/scale: the ε of a Laplace curve (its pure-DP level); the μ of a Gaussian one."""
        return self.sensitivity / self.scale

    @property
    def rho(self) -> float:
        """ρ of zCDP: Δ²/(2σ²) for Gaussian noise (Bun & Steinke 2016, Prop. 1.6), else ε²/2."""
        return self.epsilon**2 / 2


@dataclass(frozen=True)
class PrivacyLoss:
    """The (ε, δ) a release spent, under add/remove-one-person neighbouring.

    Parameters
    ----------
    epsilon, delta
        The guarantee; ``epsilon = inf`` marks a non-private computation.
    description
        What was released, in words.
    parts
        The losses this one composes, for an audit trail.
    worst_case
        ``False`` when (ε, δ) is only *nominal*: the noise was calibrated to a data-dependent
        (local) sensitivity, so no worst-case DP guarantee holds.  Accountants refuse such
        losses; the numbers are kept for reporting.
    curve
        The noise of a single additive release (Laplace, discrete Laplace, Gaussian), when its
        exact privacy curve may be used by a tight accountant; ``None`` for anything else.
    zcdp
        (ρ, δ₀): the release is δ₀-approximately ρ-zCDP (Bun & Steinke 2016, Def. 1.8), when
        that is known beyond the (ε, δ) — e.g. the Gaussian set-union mechanisms, whose noise
        is ρ-zCDP and whose threshold adds δ₀.
    """

    epsilon: float
    delta: float = 0.0
    description: str = ""
    parts: tuple[PrivacyLoss, ...] = field(default=(), repr=False)
    worst_case: bool = True
    curve: NoiseCurve | None = field(default=None, repr=False)
    zcdp: tuple[float, float] | None = field(default=None, repr=False)

    def __post_init__(self) -> None:
        if math.isnan(self.epsilon) or self.epsilon < 0:
            raise InvalidParameterError(f"epsilon must be >= 0, got {self.epsilon!r}")
        if not 0 <= self.delta <= 1:
            raise InvalidParameterError(f"delta must lie in [0, 1], got {self.delta!r}")

    @classmethod
    def non_private(cls, description: str) -> PrivacyLoss:
        """The loss of a computation that is not differentially private (ε = ∞)."""
        return cls(math.inf, 0.0, f"NOT PRIVATE: {description}")

    @property
    def is_private(self) -> bool:
        """Whether this is a worst-case differential privacy guarantee with finite ε."""
        return math.isfinite(self.epsilon) and self.worst_case

    def as_zcdp(self) -> tuple[float, float] | None:
        """(ρ, δ₀) with this release δ₀-approximately ρ-zCDP, or ``None`` if unknown.

        The stated ``zcdp``; else the noise curve's ρ (Gaussian: Δ²/2σ²; Laplace: ε²/2); else
        the sum over the parts (zCDP composes additively, Bun & Steinke 2016, Lemma 1.7); else
        ε²/2 for pure ε-DP (ibid. Prop. 1.4).

        Examples
        --------
        >>> PrivacyLoss(1.0).as_zcdp(), PrivacyLoss(1.0, 1e-6).as_zcdp()
        ((0.5, 0.0), None)
        """
        if not self.is_private:
            return None
        if self.zcdp is not None:
            return self.zcdp
        if self.curve is not None:
            return (self.curve.rho, self.delta)
        if self.parts:  # the parts' sum is at most the whole's (Σ εᵢ²/2 ≤ (Σ εᵢ)²/2)
            parts = [p.as_zcdp() for p in self.parts]
            if all(p is not None for p in parts):
                return (
                    sum(p[0] for p in parts if p is not None),
                    sum(p[1] for p in parts if p is not None),
                )
        if self.delta == 0:
            return (self.epsilon**2 / 2, 0.0)
        return None

    def compose(self, *others: PrivacyLoss, description: str = "") -> PrivacyLoss:
        """Basic composition: the sum of the ε and of the δ.

        Examples
        --------
        >>> PrivacyLoss(0.5, description="a").compose(PrivacyLoss(0.5, 1e-6)).epsilon
        1.0
        """
        parts = (self, *others)
        return PrivacyLoss(
            epsilon=exact_sum(p.epsilon for p in parts),
            delta=min(1.0, exact_sum(p.delta for p in parts)),
            description=description or " + ".join(p.description or "?" for p in parts),
            parts=parts,
            worst_case=all(p.worst_case for p in parts),
        )

    def to_dict(self) -> dict[str, Any]:
        """The loss as JSON-able data; ε = ∞ becomes ``None``.

        Examples
        --------
        >>> PrivacyLoss(0.5, 1e-6, "a").to_dict()["epsilon"]
        0.5
        >>> PrivacyLoss.from_dict(PrivacyLoss.non_private("x").to_dict()).epsilon
        inf
        """
        return {
            "epsilon": self.epsilon if math.isfinite(self.epsilon) else None,
            "delta": self.delta,
            "description": self.description,
            "private": self.is_private,
            "worst_case": self.worst_case,
            "parts": [p.to_dict() for p in self.parts],
            "curve": None if self.curve is None else dataclasses.asdict(self.curve),
            "zcdp": None if self.zcdp is None else list(self.zcdp),
        }

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> PrivacyLoss:
        """The inverse of :meth:`to_dict`."""
        eps = data["epsilon"]
        return cls(
            epsilon=math.inf if eps is None else float(eps),
            delta=float(data.get("delta", 0.0)),
            description=str(data.get("description", "")),
            parts=tuple(cls.from_dict(p) for p in data.get("parts", ())),
            worst_case=bool(data.get("worst_case", True)),
            curve=None if data.get("curve") is None else NoiseCurve(**data["curve"]),
            zcdp=None if data.get("zcdp") is None else (data["zcdp"][0], data["zcdp"][1]),
        )

    def __add__(self, other: PrivacyLoss) -> PrivacyLoss:
        return self.compose(other)

    def __repr__(self) -> str:
        eps = "inf" if math.isinf(self.epsilon) else f"{self.epsilon:g}"
        text = f", {self.description!r}" if self.description else ""
        nominal = "" if self.worst_case else ", nominal only"
        return f"PrivacyLoss(epsilon={eps}, delta={self.delta:g}{text}{nominal})"


def fits(losses: Iterable[PrivacyLoss], epsilon: float, delta: float) -> bool:
    """Whether the basic total of ``losses`` is within (ε, δ), compared exactly as written.

    Examples
    --------
    >>> fits([PrivacyLoss(0.1), PrivacyLoss(0.2)], 0.3, 0.0)
    True
    """
    losses = list(losses)
    if not all(math.isfinite(p.epsilon) for p in losses):
        return False
    eps = sum((as_written(p.epsilon) for p in losses), Fraction(0))
    dlt = sum((as_written(p.delta) for p in losses), Fraction(0))
    return eps <= as_written(epsilon) and dlt <= as_written(delta)


class _HasLoss(Protocol):
    privacy_loss: PrivacyLoss


class PrivacyAccountant:
    """A budget of (ε, δ) that releases draw from, refusing any that would overspend.

    Charge a loss *before* releasing its result: :meth:`spend` raises
    :class:`~dpcount.errors.BudgetExceededError` and records nothing when the budget would be
    exceeded.  Non-private losses (ε = ∞) are always refused.

    Parameters
    ----------
    epsilon_total
        Total ε available (> 0).
    delta_total
        Total δ available (≥ 0).
    """

    def __init__(self, epsilon_total: float, delta_total: float = 0.0) -> None:
        if not (math.isfinite(epsilon_total) and epsilon_total > 0):
            raise InvalidParameterError(
                f"epsilon_total must be finite and > 0, got {epsilon_total!r}"
            )
        if not 0 <= delta_total < 1:
            raise InvalidParameterError(f"delta_total must lie in [0, 1), got {delta_total!r}")
        self._epsilon_total = float(epsilon_total)
        self._delta_total = float(delta_total)
        self._releases: list[PrivacyLoss] = []

    @property
    def epsilon_total(self) -> float:
        """The ε budget, fixed at creation (read-only)."""
        return self._epsilon_total

    @property
    def delta_total(self) -> float:
        """The δ budget, fixed at creation (read-only)."""
        return self._delta_total

    @property
    def releases(self) -> tuple[PrivacyLoss, ...]:
        """Everything charged so far, in order."""
        return tuple(self._releases)

    @property
    def spent(self) -> PrivacyLoss:
        """The composed loss of all releases so far."""
        if not self._releases:
            return PrivacyLoss(0.0, 0.0, "nothing released")
        return self._releases[0].compose(*self._releases[1:])

    @property
    def remaining_epsilon(self) -> float:
        """The ε left, in exact arithmetic (:func:`as_written`): 1 − 0.7 is 0.3."""
        return max(0.0, exact_sum([self.epsilon_total, *(-p.epsilon for p in self._releases)]))

    @property
    def remaining_delta(self) -> float:
        """The δ left, in exact arithmetic."""
        return max(0.0, exact_sum([self.delta_total, *(-p.delta for p in self._releases)]))

    def can_afford(self, loss: PrivacyLoss) -> bool:
        """Whether ``loss`` fits in what is left (sums compared exactly, as written)."""
        if not loss.is_private:
            return False
        return fits([*self._releases, loss], self.epsilon_total, self.delta_total)

    def spend(self, loss: PrivacyLoss | _HasLoss, *, allow_insecure: bool = False) -> PrivacyLoss:
        """Record ``loss`` (or a result's ``privacy_loss``); raise if it does not fit.

        A result that carries non-private data (``is_private`` false: diagnostics, raw
        weights, a nominal loss) is refused.  A result with ``secure=False`` (floating-point
        noise) warns :class:`~dpcount.errors.UnsafeNoiseWarning` unless ``allow_insecure``.
        """
        if not isinstance(loss, PrivacyLoss):
            result = loss
            loss = result.privacy_loss
            if loss.is_private and not getattr(result, "is_private", True):
                raise BudgetExceededError(
                    f"this {type(result).__name__} carries data that is not differentially "
                    "private (diagnostics, raw weights or a caller's seed); release one "
                    "without them"
                )
            if not getattr(result, "secure", True) and not allow_insecure:
                warnings.warn(
                    f"charging a {type(result).__name__} drawn with floating-point noise "
                    "(secure=False); pass allow_insecure=True to accept it",
                    UnsafeNoiseWarning,
                    stacklevel=2,
                )
        if not self.can_afford(loss):
            name = repr(loss.description) if loss.description else "this release"
            if not loss.worst_case:
                raise BudgetExceededError(
                    f"{name} has only a nominal guarantee (local sensitivity), not worst-case DP"
                )
            if not loss.is_private:
                raise BudgetExceededError(f"{name} is not differentially private")
            raise BudgetExceededError(
                f"{name} needs epsilon={loss.epsilon:g}"
                + (f", delta={loss.delta:g}" if loss.delta else "")
                + f" but only {self.remaining_epsilon:g} of {self.epsilon_total:g} is left"
                + (f" (delta {self.remaining_delta:g})" if loss.delta else "")
            )
        self._releases.append(loss)
        return loss

    def __repr__(self) -> str:
        return (
            f"PrivacyAccountant(spent epsilon={self.spent.epsilon:g} of {self.epsilon_total:g}, "
            f"delta={self.spent.delta:g} of {self.delta_total:g}, releases={len(self._releases)})"
        )
