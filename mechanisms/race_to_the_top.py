"""Race-to-the-Top (R2T; Dong, Fang, Yi, Tao & Machanavajjhala, SIGMOD 2022) for the distinct count.

The truncated query for distinct counting is DC(D;τ) itself (docs/algorithms.md §4): at most τ items
per person, sensitivity τ.  R2T releases it at k geometric thresholds τ_1 < … < τ_k ≤ GS, each
with Laplace noise of scale k·τ_j/ε and a downward shift, and outputs the largest:

    R2T(D) = max(0, max_j [DC(D;τ_j) + Lap(k·τ_j/ε) − k·τ_j·ln(k/β)/ε])

(the R2T mechanism of DFYTM22 with the truncated query DC(D;τ); docs/algorithms.md §4).

All k values come from **one** exact curve (``matching.dc_curve``).

Thresholds.  ``τ_j = ⌊base^j⌋`` for j = 1..⌊log_base GS⌋, duplicates dropped (only for bases
below 2).  ⌊log_base GS⌋ is found with exact rational arithmetic: ``math.log(1000, 10)`` is
2.9999999999999996, so a float logarithm would lose the last threshold whenever GS is an exact
power of the base.  When GS < base there would be no threshold at all; R2T then degenerates to
one Laplace release of DC(D;GS) = DC(D) (k = 1, τ_1 = GS); the R2T reference code likewise
raises k when log_base GS < 1.

Shift with discrete noise.  With continuous Laplace of scale s = k·τ_j/ε,
P[Lap(s) > s·ln(k/β)] = ½·e^{−ln(k/β)} = β/(2k), so a union bound over the k releases gives
P[R2T(D) > DC(D)] ≤ β/2 (each DC(D;τ_j) ≤ DC(D)).  For exact discrete Laplace noise we use the
smallest integer shift with discrete tail P[Z > shift] ≤ β/(2k) (``discrete_shift`` at failure
β/(2k)): the same per-release failure, hence the same β/2 guarantee by the same union bound.  It
is within one unit of ⌈s·ln(k/β)⌉.  (Using failure β/k instead would lower every shift by about
s·ln 2 and weaken the guarantee to β.)

Examples
--------
>>> r2t_thresholds(1000, base=10)
(10, 100, 1000)
>>> from dpcount import PersonItemGraph
>>> g = PersonItemGraph.from_sets({f"p{i}": {i, i + 1, i + 2} for i in range(100)})
>>> r = r2t(g, 1.0, max_contribution=16, rng=3)
>>> r.thresholds, r.secure, r.privacy_loss.epsilon
((2, 4, 8, 16), True, 1.0)
>>> 0 <= r.estimate <= g.n_items
True
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from fractions import Fraction
from typing import ClassVar, Literal

import numpy as np

from dpcount.common.rng import RNGLike, spawn
from dpcount.errors import InvalidParameterError
from dpcount.graph import PersonItemGraph
from dpcount.validation import check_beta, check_choice, check_epsilon, check_positive_int
from mechanisms._defaults import DEFAULT_BETA
from mechanisms.accounting import NoiseCurve, PrivacyLoss
from mechanisms.declaration import register
from mechanisms.laplace import continuous_shift, discrete_shift, laplace_scale
from mechanisms.noise import NoiseMode, discrete_laplace, float_laplace, warn_unsafe
from mechanisms.release import Release

__all__ = ["R2TResult", "r2t", "r2t_loss", "r2t_thresholds", "truncated_counts"]

NOISE_MODES = ("exact", "float")
#: Most thresholds R2T splits its budget over (log_base GS; 2 ≤ base gives at most 63).
MAX_THRESHOLDS = 10_000


def r2t_thresholds(max_contribution: int, base: float = 2) -> tuple[int, ...]:
    """The thresholds τ_j = ⌊base^j⌋, j = 1..⌊log_base GS⌋ (or ``(GS,)`` when GS < base).

    Parameters
    ----------
    max_contribution
        GS, the public upper bound on the number of items one person contributes (≥ 1).
    base
        Ratio between thresholds, > 1 (2 in the R2T paper, 5.5 in its reference code).

    Examples
    --------
    >>> r2t_thresholds(8), r2t_thresholds(7), r2t_thresholds(1)
    ((2, 4, 8), (2, 4), (1,))
    >>> r2t_thresholds(10**6, base=5.5)
    (5, 30, 166, 915, 5032, 27680, 152243, 837339)
    """
    gs = check_positive_int(max_contribution, "max_contribution")
    if isinstance(base, bool) or not isinstance(base, int | float | np.integer | np.floating):
        raise InvalidParameterError(f"base must be a real number > 1, got {base!r}")
    if not (math.isfinite(base) and base > 1):
        raise InvalidParameterError(f"base must be a finite number > 1, got {base!r}")
    if math.log(gs) / math.log(base) > MAX_THRESHOLDS:
        raise InvalidParameterError(
            f"base={base!r} is too close to 1: R2T would use about "
            f"{math.log(gs) / math.log(base):,.0f} thresholds (at most {MAX_THRESHOLDS:,})"
        )
    ratio = Fraction(base)  # exact binary value: no rounding in the comparisons below
    thresholds: list[int] = []
    power = ratio
    while power <= gs:
        tau = math.floor(power)
        if not thresholds or tau > thresholds[-1]:
            thresholds.append(tau)
        power *= ratio
    return tuple(thresholds) if thresholds else (gs,)


def truncated_counts(graph: PersonItemGraph, thresholds: Sequence[int]) -> np.ndarray:
    """DC(D;τ) for each threshold, from one exact curve.

    The curve is computed only up to min(max τ, max degree): DC(D;ℓ) = DC(D) for ℓ ≥ the
    largest degree (docs/algorithms.md §1), so the values are exact and nothing depends on how far
    the curve was computed.

    Examples
    --------
    >>> from dpcount import PersonItemGraph
    >>> g = PersonItemGraph.from_sets({"a": {1, 2, 3}, "b": {1}, "c": {1}})
    >>> truncated_counts(g, (1, 2, 1000)).tolist()
    [2, 3, 3]
    """
    import matching

    taus = np.asarray(thresholds, dtype=np.int64)
    max_degree = int(graph.degrees().max(initial=0))
    if max_degree == 0:
        return np.zeros(taus.size, dtype=np.int64)
    length = int(min(taus.max(), max_degree))
    curve = matching.dc_curve(graph, length)
    return curve[np.minimum(taus, length) - 1].astype(np.int64)


@dataclass(frozen=True)
class R2TResult(Release):
    """A release of :func:`r2t`.

    Attributes
    ----------
    estimate
        max(0, max of the candidates): ≤ DC(D) with probability ≥ 1 − β/2.
    thresholds
        The truncation thresholds τ_1 < … < τ_k.
    candidates
        The shifted noisy values DC(D;τ_j) + noise_j − shift_j (each an ε/k-DP release, so
        reporting them costs nothing extra).
    shifts
        The shifts subtracted, k·τ_j·ln(k/β)/ε or its discrete counterpart.
    scales
        The Laplace scale k·τ_j/ε of each release (:attr:`scale` is the winner's).
    epsilon, beta, max_contribution, base, noise
        The parameters.
    secure
        True for exact discrete noise, False for floating-point noise.
    privacy_loss
        ε in total: k releases of ε/k each, by basic composition.
    """

    estimate: float
    thresholds: tuple[int, ...]
    candidates: tuple[float, ...]
    shifts: tuple[float, ...]
    scales: tuple[float, ...]
    epsilon: float
    beta: float
    max_contribution: int
    base: float
    noise: str
    secure: bool
    privacy_loss: PrivacyLoss

    mechanism: ClassVar[str] = "r2t"

    @property
    def selected(self) -> int | None:
        """The threshold whose candidate won, or None when 0 was output."""
        best = int(np.argmax(self.candidates))
        return self.thresholds[best] if self.candidates[best] > 0 else None

    @property
    def scale(self) -> float:
        """The noise scale of the winning release (of the largest threshold when 0 won)."""
        best = int(np.argmax(self.candidates)) if self.selected is not None else -1
        return self.scales[best]

    def _rows(self) -> list[tuple[str, str]]:
        return [
            ("estimate", f"{self.estimate:,}"),
            ("thresholds τ", ", ".join(map(str, self.thresholds))),
            ("selected τ", str(self.selected)),
            ("β / GS / base", f"{self.beta:g} / {self.max_contribution:,} / {self.base:g}"),
            ("noise", self.noise),
        ]

    def __repr__(self) -> str:
        return (
            f"R2TResult(estimate={self.estimate:,}, selected tau={self.selected}, "
            f"k={len(self.thresholds)}, epsilon={self.epsilon:g}, beta={self.beta:g}, "
            f"GS={self.max_contribution:,}, base={self.base:g}, noise={self.noise!r}, "
            f"secure={self.secure})"
        )


def r2t_loss(
    epsilon: float, *, max_contribution: int, base: float = 2, noise: str = "exact"
) -> PrivacyLoss:
    """The privacy loss of :func:`r2t` from its parameters alone (no data).

    k = ``|thresholds|`` Laplace releases of ε/k each, composed to ε (basic composition); each part
    records its noise (scale k·τ/ε rounded up, sensitivity τ) for tighter accountants.

    Examples
    --------
    >>> r2t_loss(1.0, max_contribution=8)
    PrivacyLoss(epsilon=1, delta=0, 'R2T: 3 Laplace releases, basic composition')
    """
    eps = check_epsilon(epsilon)
    check_choice(noise, "noise", NOISE_MODES)
    return _thresholds_loss(eps, r2t_thresholds(max_contribution, base), noise)


def _thresholds_loss(eps: float, thresholds: Sequence[int], noise: str) -> PrivacyLoss:
    k = len(thresholds)
    kind = "discrete_laplace" if noise == "exact" else "laplace"
    parts = tuple(
        PrivacyLoss(
            eps / k,
            description=f"DC(D;{tau}) + Laplace",
            curve=NoiseCurve(kind, float(laplace_scale(k * tau, eps)), float(tau)),
        )
        for tau in thresholds
    )
    return PrivacyLoss(
        eps, description=f"R2T: {k} Laplace releases, basic composition", parts=parts
    )


def _shift(scale: Fraction, failure: float, noise: str) -> float:
    """The (1 − failure) quantile shift of one release (see the module docstring)."""
    if noise == "exact":
        return discrete_shift(scale, failure)
    return continuous_shift(float(scale), failure)


def release_r2t(
    counts: Sequence[int] | np.ndarray,
    thresholds: Sequence[int],
    epsilon: float,
    *,
    beta: float = DEFAULT_BETA,
    max_contribution: int,
    base: float = 2,
    noise: NoiseMode = "exact",
    rng: RNGLike = None,
) -> R2TResult:
    """R2T from precomputed truncated counts DC(D;τ_j) (internal; benchmarks reuse the counts).

    ``counts[j]`` must be DC(D;thresholds[j]) for the thresholds of :func:`r2t_thresholds`.
    """
    eps = check_epsilon(epsilon)
    b = check_beta(beta)
    check_choice(noise, "noise", NOISE_MODES)
    k = len(thresholds)
    if len(counts) != k or k == 0:
        raise InvalidParameterError(f"need one count per threshold, got {len(counts)} for {k}")
    if noise == "float":
        warn_unsafe("r2t")
    failure = b / (2 * k)  # per release; union bound → β/2 (module docstring)
    streams = spawn(rng, k)
    candidates, shifts, scales = [], [], []
    for count, tau, stream in zip(counts, thresholds, streams, strict=True):
        scale = laplace_scale(k * tau, eps)  # sensitivity τ at budget ε/k  →  k·τ/ε
        shift = _shift(scale, failure, noise)
        if noise == "exact":
            z: float = int(discrete_laplace(scale, rng=stream))
            candidates.append(int(count) + z - int(shift))
        else:
            z = float(float_laplace(float(scale), rng=stream))
            candidates.append(float(count) + z - shift)
        shifts.append(shift)
        scales.append(float(scale))
    estimate = max(0, max(candidates))
    loss = _thresholds_loss(eps, thresholds, noise)
    return R2TResult(
        estimate=estimate,
        thresholds=tuple(int(t) for t in thresholds),
        candidates=tuple(candidates),
        shifts=tuple(shifts),
        scales=tuple(scales),
        epsilon=eps,
        beta=b,
        max_contribution=int(max_contribution),
        base=float(base),
        noise=noise,
        secure=noise == "exact",
        privacy_loss=loss,
    )


@register(family="distinct_count", loss=r2t_loss, session={"noise": "exact"})
def r2t(
    graph: PersonItemGraph,
    epsilon: float,
    *,
    beta: float = DEFAULT_BETA,
    max_contribution: int,
    base: float = 2,
    noise: Literal["exact", "float"] = "exact",
    rng: RNGLike = None,
) -> R2TResult:
    """ε-DP distinct count by Race-to-the-Top over truncation thresholds τ_j = base^j.

    Parameters
    ----------
    graph
        The person–item graph.
    epsilon
        Privacy parameter ε > 0, split evenly over the k releases.
    beta
        Failure probability in (0, ½): the estimate exceeds DC(D) with probability ≤ β/2.
        Default 0.05 as for every mechanism (the R2T reference scripts use 0.1).
    max_contribution
        GS, a public bound on one person's number of items (**not** taken from the data).
    base
        Ratio between thresholds (> 1); 2 as in the paper, 5.5 as in the R2T reference code.
    noise
        ``"exact"`` discrete Laplace (default, secure) or ``"float"`` (Monte-Carlo only; warns).
    rng
        Randomness per docs/concepts.md; each release gets its own child stream.

    Returns
    -------
    R2TResult

    Raises
    ------
    InvalidParameterError
        For ε ≤ 0, β ∉ (0, ½), GS < 1, base ≤ 1 or an unknown noise mode.

    See Also
    --------
    mechanisms.dp_distinct_count : The matching-based lower bound.
    mechanisms.shifted_inverse : The other baseline.

    Notes
    -----
    Privacy: ε-DP under add/remove-one-person neighbours.  DC(D;τ) has sensitivity τ, so each
    release with scale k·τ/ε is (ε/k)-DP; basic composition over k releases gives ε, and the
    maximum is post-processing.  Accuracy (DFYTM22, Thm 5.1 for the paper's constants): with
    probability ≥ 1 − β/2 the output is ≤ DC(D) (union bound, module docstring), and with
    probability ≥ 1 − β/2 it is ≥ max_j DC(D;τ_j) − 2·k·τ_j·ln(k/β)/ε.

    References
    ----------
    W. Dong, J. Fang, K. Yi, Y. Tao, A. Machanavajjhala. "R2T: Instance-optimal Truncation for
    Differentially Private Query Evaluation with Foreign Keys", SIGMOD 2022,
    doi:10.1145/3514221.3517844.

    Examples
    --------
    >>> from dpcount import PersonItemGraph
    >>> g = PersonItemGraph.from_sets({f"p{i}": {i} for i in range(1000)})
    >>> r = r2t(g, 1.0, max_contribution=8, rng=0)
    >>> r.thresholds, r.shifts
    ((2, 4, 8), (25, 49, 98))
    """
    thresholds = r2t_thresholds(max_contribution, base)
    counts = truncated_counts(graph, thresholds)
    return release_r2t(
        counts,
        thresholds,
        epsilon,
        beta=beta,
        max_contribution=max_contribution,
        base=base,
        noise=noise,
        rng=rng,
    )
