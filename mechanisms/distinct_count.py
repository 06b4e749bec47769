"""DPDistinctCount (Knop & Steinke, Algorithms 1 and 2): a private lower bound on distinct count.

The mechanism spends ε/2 to choose a contribution bound ℓ̂ ∈ {1, …, ℓ_max} with GEM on the
utilities q_ℓ = DC(D;ℓ) − (2ℓ/ε)·ln(1/(2β)) (sensitivity ℓ), and ε/2 to release
ν̂ = DC(D;ℓ̂) + Lap(2ℓ̂/ε) − shift, where the shift is the full (1 − β) quantile of the noise
(Algorithm 1 lines 11–14; for exact discrete noise the discrete tail of docs/algorithms.md §3).
A **public** ℓ – ``ell=`` fixed before seeing the data, e.g. a contribution cap known from the
schema, or ``ell_max=1`` where there is only one candidate – needs no choice: nothing is spent on
GEM and the whole ε goes to the count, ν̂ = DC(D;ℓ) + Lap(ℓ/ε) − shift (Eq. 3 and 4).
``counting`` picks how DC(D;ℓ) is computed: ``"matching"`` (exact, Algorithm 1), ``"greedy"``
(Algorithm 2, linear time) or ``"sampling"`` (the baseline of §4.2, each person keeps ℓ random
items).  All three have sensitivity ℓ, so all three are ε-DP.

The paper's non-private comparison points (§4.2, Tables 4–7) are available as ``selection``
values and are marked as such (:class:`~dpcount.errors.PrivacyLeakWarning`, infinite ε):

* ``"max_degree"`` — ℓ = the largest number of items of one person (Tables 4–7 "Max Contrib");
* ``"percentile"`` — ℓ = ⌈90th percentile⌉ of the persons' item counts (§4.2 item 2 and the
  tables' "90th PC Contrib"; the paper's §4.3 text says 99th once, the tables and §4.2 say 90th).
  NumPy's linear interpolation over all persons, those without items included (Table 3 lists
  persons with 0 items);
* ``"max_utility"`` — ℓ = argmax_ℓ≤ℓ_max q_ℓ (the non-private "Max Utility" rows).

For these the selection spends no budget, so the count gets all of ε: Lap(ℓ/ε).  That matches
the paper: its Table 4 "Max Contrib DP" rows spread like Lap(139/1), not Lap(2·139/1), and
§4.2 defines the utility with ℓ/ε (as does ℓ*_A in Theorem 1.1).  Accordingly
``"max_utility"`` maximises q_ℓ = DC(D;ℓ) − (ℓ/ε)·ln(1/(2β)), the median of the lower bound it
then releases (the paper fixed β = 0.001 there; we use the caller's β).  Unlike the paper's
tables, which report the unshifted DC(D;ℓ) + Lap(ℓ/ε), ν̂ is shifted here too, so every
``estimate`` is a (1 − β) lower bound for the ℓ it used.  ℓ from the degrees may exceed ℓ_max
(the paper's 139 > 100); ℓ_max only bounds the candidates of GEM and ``"max_utility"``.

Examples
--------
>>> from dpcount import PersonItemGraph
>>> g = PersonItemGraph.from_sets({f"p{i}": {i, i + 1, 100} for i in range(300)})
>>> r = dp_distinct_count(g, epsilon=1.0, ell_max=5, rng=7)
>>> r.estimate <= g.n_items, r.privacy_loss.epsilon
(True, 1.0)
>>> print(r)
With probability ≥ 95% the data holds at least 295 distinct items; ε = 1 spent (ε/2 to choose ℓ
with GEM, ε/2 for the count).
Counted by exact maximum matching (Algorithm 1) with each person contributing at most ℓ = 2
items; exact discrete Laplace noise of scale 4, shift 9.
"""

from __future__ import annotations

import math
import warnings
from dataclasses import dataclass, field
from typing import ClassVar, Literal

import numpy as np
import numpy.typing as npt

import matching
from dpcount.common.rng import RNGLike, spawn
from dpcount.errors import InvalidParameterError, PrivacyLeakWarning
from dpcount.graph import PersonItemGraph
from dpcount.validation import (
    MAX_ELL,
    check_beta,
    check_choice,
    check_epsilon,
    check_graph,
    check_positive_int,
)
from mechanisms._defaults import DEFAULT_BETA
from mechanisms.accounting import NoiseCurve, PrivacyLoss
from mechanisms.declaration import register
from mechanisms.gem_tail import LinearTailGEM
from mechanisms.generalized_exponential import Selection, gem, gem_probabilities
from mechanisms.laplace import continuous_shift, laplace_lower_bound, laplace_scale
from mechanisms.noise import NoiseMode, float_laplace, warn_unsafe
from mechanisms.release import Release, confidence_text, count_lower_bound

__all__ = [
    "COUNTINGS",
    "DEGREE_PERCENTILE",
    "DENSE_ELL_MAX",
    "NOISE_MODES",
    "PRIVATE_SELECTIONS",
    "PUBLIC_SELECTION",
    "SELECTIONS",
    "DistinctCountResult",
    "curve_length",
    "distinct_count_loss",
    "dp_distinct_count",
    "dp_distinct_count_from_curve",
    "gem_ell",
    "public_ell",
]

Counting = Literal["matching", "greedy", "sampling"]
SelectionRule = Literal["gem", "gem_permute_and_flip", "max_utility", "max_degree", "percentile"]

#: How DC(D;ℓ) is computed, and the :func:`matching.dc_curve` method used for it.
COUNTINGS: tuple[str, ...] = ("matching", "greedy", "sampling")
_CURVE_METHOD = {"matching": "auto", "greedy": "greedy", "sampling": "sampling"}
_COUNTING_NAME = {
    "matching": "exact maximum matching (Algorithm 1)",
    "greedy": "greedy maximal matching (Algorithm 2)",
    "sampling": "per-person sampling (baseline)",
}
#: Private selections (GEM with either sampler) followed by the paper's comparison points.
PRIVATE_SELECTIONS: tuple[str, ...] = ("gem", "gem_permute_and_flip")
SELECTIONS: tuple[str, ...] = (*PRIVATE_SELECTIONS, "max_utility", "max_degree", "percentile")
#: The ``selection`` a result records when ℓ was public (``ell=``, or ``ell_max=1``): no choice.
PUBLIC_SELECTION = "public"
NOISE_MODES: tuple[str, ...] = ("exact", "float")
#: The degree percentile of ``selection="percentile"`` (Knop & Steinke §4.2, Tables 4–7).
DEGREE_PERCENTILE = 90.0
#: Up to this ℓ_max GEM runs on the full candidate list; beyond it on the head up to the largest
#: degree plus a closed-form tail (:mod:`mechanisms.gem_tail`), with the same distribution.
DENSE_ELL_MAX = 1 << 16


@dataclass(frozen=True)
class DistinctCountResult(Release):
    """A private lower bound on the number of distinct items, with what it cost.

    Attributes
    ----------
    estimate
        ν̂: with probability ≥ 1 − β (over the mechanism's randomness) the data holds at least
        this many distinct items.  An ``int`` with exact noise; may be negative on tiny data.
    ell
        ℓ̂, the contribution bound used: selected privately, public (``selection ==
        "public"``), or taken from the data by a comparison point.
    epsilon, beta, counting, noise
        The parameters of the call.
    ell_max
        The largest candidate ℓ (with a public ℓ, that ℓ itself).
    selection
        How ℓ was chosen: ``"gem"``/``"gem_permute_and_flip"`` (private, ε/2), ``"public"``
        (given or the only candidate; nothing spent) or a non-private comparison point.
    secure
        ``False`` when floating-point noise was used (experiments only).
    privacy_loss
        The (ε, δ) spent; ε = ∞ for the non-private comparison points.
    scale
        Scale of the Laplace noise added to DC(D;ℓ̂) (≥ ℓ̂/ε_count: ε_count = ε/2 after GEM,
        ε with a public ℓ).
    shift
        The (1 − β) noise quantile subtracted (a function of ℓ̂, ε, β only).
    curve, utilities, probabilities, count_at_ell
        Only with ``diagnostics=True`` — **not private**: DC(D;ℓ) for ℓ = 1.. (as computed by
        ``counting``), the utilities q_ℓ that selection saw, the exact selection probabilities
        of GEM, and DC(D;ℓ̂).
    """

    estimate: int | float
    ell: int
    epsilon: float
    beta: float
    ell_max: int
    counting: str
    selection: str
    noise: str
    secure: bool
    privacy_loss: PrivacyLoss
    scale: float
    shift: float
    curve: np.ndarray | None = field(default=None, repr=False, compare=False)
    utilities: np.ndarray | None = field(default=None, repr=False, compare=False)
    probabilities: np.ndarray | None = field(default=None, repr=False, compare=False)
    count_at_ell: int | None = field(default=None, repr=False, compare=False)

    NON_PRIVATE_FIELDS: ClassVar[tuple[str, ...]] = (
        "curve",
        "utilities",
        "probabilities",
        "count_at_ell",
    )
    mechanism: ClassVar[str] = "dp_distinct_count"

    @property
    def noise_scale(self) -> float:
        """Deprecated alias of :attr:`scale`."""
        warnings.warn(
            "DistinctCountResult.noise_scale is deprecated; use .scale",
            DeprecationWarning,
            stacklevel=2,
        )
        return self.scale

    @property
    def confidence(self) -> float:
        """1 − β: the probability that ``estimate`` is below the true distinct count."""
        return 1.0 - self.beta

    @property
    def lower_bound(self) -> int:
        """The bound as a count of items: ⌈``estimate``⌉, and 0 when it is negative."""
        return count_lower_bound(self.estimate)

    def _sentences(self) -> list[str]:
        level = confidence_text(self.beta)
        count = f"{self.lower_bound:,}"
        raw = "" if self.estimate >= 0 else f" (the raw estimate {self.estimate:,} is negative)"
        noise = "exact discrete Laplace" if self.noise == "exact" else "floating-point Laplace"
        how = (
            f"Counted by {_COUNTING_NAME[self.counting]} with each person contributing at most "
            f"ℓ = {self.ell} item{'s' if self.ell != 1 else ''}; {noise} noise of scale "
            f"{self.scale:.4g}, shift {self.shift:.4g}."
        )
        if self.selection == PUBLIC_SELECTION:
            first = (
                f"With probability ≥ {level} the data holds at least {count} distinct "
                f"items{raw}; ε = {self.epsilon:g} spent, all on the count (ℓ = {self.ell} was "
                "fixed in advance, so nothing was spent choosing it)."
            )
        elif self.privacy_loss.is_private:
            sampler = "" if self.selection == "gem" else " (permute-and-flip)"
            first = (
                f"With probability ≥ {level} the data holds at least {count} distinct "
                f"items{raw}; ε = {self.epsilon:g} spent (ε/2 to choose ℓ with GEM{sampler}, "
                f"ε/2 for the count)."
            )
        else:
            first = (
                f"NOT DIFFERENTIALLY PRIVATE: ℓ = {self.ell} was taken from the data "
                f"({self.selection}).  For that ℓ, with probability ≥ {level} the data holds "
                f"at least {count} distinct items{raw}; the count itself spent "
                f"ε = {self.epsilon:g}."
            )
        return [first, how]

    def _rows(self) -> list[tuple[str, str]]:
        return [
            ("lower bound ν̂", f"{self.estimate:,}"),
            ("confidence", confidence_text(self.beta)),
            ("ℓ̂", str(self.ell)),
            ("counting / selection / noise", f"{self.counting} / {self.selection} / {self.noise}"),
            ("scale / shift", f"{self.scale:.4g} / {self.shift:.4g}"),
        ]


# --------------------------------------------------------------------------------------------
# Parameter checks and the choice of ℓ
# --------------------------------------------------------------------------------------------


def _check_parameters(
    epsilon: float,
    beta: float,
    ell_max: int,
    counting: str,
    selection: str,
    noise: str,
    diagnostics: bool = False,
) -> tuple[float, float, int]:
    check_choice(counting, "counting", COUNTINGS)
    check_choice(selection, "selection", SELECTIONS)
    check_choice(noise, "noise", NOISE_MODES)
    checked = (
        check_epsilon(epsilon),
        check_beta(beta),
        check_positive_int(ell_max, "ell_max", maximum=MAX_ELL),
    )
    if checked[2] > DENSE_ELL_MAX:  # only the exponential GEM has a closed-form tail
        if selection == "gem_permute_and_flip":
            raise InvalidParameterError(
                f"selection='gem_permute_and_flip' supports ell_max <= {DENSE_ELL_MAX}, got "
                f"{ell_max}; use selection='gem' (any ell_max up to {MAX_ELL})"
            )
        if diagnostics:
            raise InvalidParameterError(
                f"diagnostics=True keeps arrays of length ell_max: it needs ell_max <= "
                f"{DENSE_ELL_MAX}, got {ell_max}"
            )
    return checked


def _degree_ell(degrees: np.ndarray, selection: str) -> int:
    """ℓ of the degree-based comparison points (not private), at least 1."""
    if degrees.size == 0:
        return 1
    if selection == "max_degree":
        value = float(degrees.max())
    else:
        value = float(np.percentile(degrees, DEGREE_PERCENTILE))
    return max(1, min(MAX_ELL, math.ceil(value)))


def curve_length(degrees: npt.ArrayLike, ell_max: int, selection: str) -> int:
    """How many points of DC(D;ℓ) a selection needs: ℓ_max, or more for the degree rules, but
    never more than the largest degree (from there on DC(D;ℓ) = DC(D) is constant).

    Examples
    --------
    >>> curve_length([3, 250, 4], 100, "max_degree"), curve_length([3, 250, 4], 100, "gem")
    (250, 100)
    >>> curve_length([3, 250, 4], 2**31 - 1, "gem")
    250
    """
    check_choice(selection, "selection", SELECTIONS)
    deg = np.asarray(degrees)
    flat_from = max(1, int(deg.max())) if deg.size else 1
    if selection in ("max_degree", "percentile"):
        return min(max(ell_max, _degree_ell(deg, selection)), flat_from)
    return min(ell_max, flat_from)


def _utilities(curve: np.ndarray, ell_max: int, count_epsilon: float, beta: float) -> np.ndarray:
    """q_ℓ = DC(D;ℓ) − (ℓ/ε_count)·ln(1/(2β)) for ℓ = 1..ℓ_max (Algorithm 1 line 11).

    With ε_count = ε/2 this is the paper's (2ℓ/ε)·ln(1/(2β)); its sensitivity is ℓ.
    """
    ells = np.arange(1, ell_max + 1, dtype=np.float64)
    return curve[:ell_max].astype(np.float64) - (ells / count_epsilon) * math.log(1 / (2 * beta))


# --------------------------------------------------------------------------------------------
# The mechanism
# --------------------------------------------------------------------------------------------


def dp_distinct_count_from_curve(
    curve: npt.ArrayLike,
    degrees: npt.ArrayLike,
    epsilon: float,
    *,
    beta: float = DEFAULT_BETA,
    ell_max: int = 100,
    ell: int | None = None,
    counting: Counting = "matching",
    selection: SelectionRule = "gem",
    noise: NoiseMode = "exact",
    selection_rng: RNGLike = None,
    noise_rng: RNGLike = None,
    diagnostics: bool = False,
) -> DistinctCountResult:
    """:func:`dp_distinct_count` on a precomputed curve (for repeated runs on the same data).

    Parameters
    ----------
    curve
        DC(D;ℓ) for ℓ = 1..L as returned by :func:`matching.dc_curve` on the graph, with the
        method that ``counting`` names and L ≥ :func:`curve_length` (of ``ell`` when given).
        **The guarantees hold only if the curve was computed from the data by that method**;
        a sampling curve must be freshly drawn for every release.
    degrees
        The persons' item counts (``graph.degrees()``); read only by the degree-based
        comparison points.
    epsilon, beta, ell_max, ell, counting, selection, noise, diagnostics
        As in :func:`dp_distinct_count`.
    selection_rng, noise_rng
        Independent streams for choosing ℓ and for the Laplace noise.

    Returns
    -------
    DistinctCountResult

    See Also
    --------
    dp_distinct_count : Computes the curve and releases.
    matching.dc_curve : The curve this function expects.

    Examples
    --------
    >>> r = dp_distinct_count_from_curve([40, 60, 65, 66], [4, 2, 3], 1.0, ell_max=4,
    ...                                  selection_rng=0, noise_rng=1)
    >>> 1 <= r.ell <= 4, r.estimate <= 66
    (True, True)
    """
    eps, b, ell_max = _check_parameters(
        epsilon, beta, ell_max, counting, selection, noise, bool(diagnostics)
    )
    fixed = public_ell(ell, ell_max, selection)
    curve_arr, degrees_arr = _check_curve(
        curve, degrees, ell_max if fixed is None else fixed, selection
    )
    _warn(noise, selection, "dp_distinct_count_from_curve")
    return _release(
        curve_arr,
        degrees_arr,
        eps,
        b,
        ell_max,
        counting,
        selection,
        noise,
        selection_rng,
        noise_rng,
        bool(diagnostics),
        fixed,
    )


def _check_curve(
    curve: npt.ArrayLike, degrees: npt.ArrayLike, ell_max: int, selection: str
) -> tuple[np.ndarray, np.ndarray]:
    """The curve and degrees as arrays, refusing ones that cannot be counts of this data."""
    degrees_arr = np.asarray(degrees)
    if degrees_arr.ndim != 1 or (degrees_arr.size and degrees_arr.min() < 0):
        raise InvalidParameterError("degrees must be the persons' item counts (graph.degrees())")
    curve_arr = np.asarray(curve)
    needed = curve_length(degrees_arr, ell_max, selection)
    if curve_arr.ndim != 1 or curve_arr.size < needed:
        raise InvalidParameterError(
            f"the curve must hold DC(D;ℓ) for ℓ = 1..{needed} (selection {selection!r}), got "
            f"shape {curve_arr.shape}; compute it with matching.dc_curve(graph, {needed}, ...)"
        )
    if curve_arr.size and (
        not np.all(np.isfinite(curve_arr))
        or np.any(curve_arr != np.round(curve_arr))
        or curve_arr.min() < 0
    ):
        raise InvalidParameterError("the curve must hold non-negative integer counts DC(D;ℓ)")
    return curve_arr.astype(np.int64), degrees_arr


def _warn(noise: str, selection: str, where: str) -> None:
    """The warnings of docs/concepts.md, pointing at the caller of the public function."""
    if noise == "float":
        warn_unsafe(where, stacklevel=4)
    if selection not in PRIVATE_SELECTIONS:
        warnings.warn(
            f"selection={selection!r} takes ℓ from the data without privacy: the result is "
            "NOT differentially private (a comparison point of Knop & Steinke §4.2); use "
            "selection='gem' for a private release",
            PrivacyLeakWarning,
            stacklevel=3,
        )


def _padded(curve_arr: np.ndarray, ell_max: int) -> np.ndarray:
    """The curve extended to ℓ_max by its last value (up to :data:`DENSE_ELL_MAX`)."""
    if curve_arr.size < ell_max and ell_max <= DENSE_ELL_MAX:
        # The curve stops at the largest degree, where DC(D;ℓ) = DC(D) stays (curve_length).
        return np.pad(curve_arr, (0, ell_max - curve_arr.size), mode="edge")
    return curve_arr


def gem_ell(
    curve: np.ndarray,
    ell_max: int,
    count_epsilon: float,
    gem_epsilon: float,
    beta: float,
    *,
    selection: str = "gem",
    rng: RNGLike = None,
    diagnostics: bool = False,
) -> tuple[int, np.ndarray, np.ndarray, np.ndarray | None]:
    """ℓ̂ by GEM on q_ℓ = curve_ℓ − (ℓ/ε_count)·ln(1/(2β)) with Δ_ℓ = ℓ (Algorithm 1 lines 10–13).

    ``curve`` holds a score of sensitivity ℓ at ℓ = 1.. and stays flat past its end (the largest
    degree); GEM runs at ``gem_epsilon`` on the candidates 1..ℓ_max, with the closed-form tail
    beyond :data:`DENSE_ELL_MAX`.  Returns ℓ̂, the curve padded to ℓ_max, the utilities and
    (with ``diagnostics``, dense case) GEM's exact probabilities.

    Examples
    --------
    >>> ell, _, q, _ = gem_ell(np.array([50, 90, 92]), 3, 0.5, 0.5, 0.05, rng=0)
    >>> 1 <= ell <= 3, q.round(1).tolist()
    (True, [45.4, 80.8, 78.2])
    """
    curve_arr = _padded(curve, ell_max)
    head = min(ell_max, curve_arr.size)  # < ℓ_max only beyond DENSE_ELL_MAX
    utilities = _utilities(curve_arr, head, count_epsilon, beta)
    if head < ell_max:  # exponential GEM on the head plus its closed-form tail
        slope = math.log(1 / (2 * beta)) / count_epsilon  # q_ℓ = DC(D) − slope·ℓ past the head
        tail = LinearTailGEM(utilities, float(curve_arr[-1]), slope, ell_max, gem_epsilon, beta)
        return tail.sample(rng), curve_arr, utilities, None
    sampler: Selection = "exponential" if selection == "gem" else "permute_and_flip"
    ells = np.arange(1, ell_max + 1, dtype=np.float64)  # Δ_ℓ = ℓ (Lemma A.1)
    ell = 1 + gem(utilities, ells, gem_epsilon, beta, selection=sampler, rng=rng)
    probabilities = None
    if diagnostics:
        probabilities = gem_probabilities(utilities, ells, gem_epsilon, beta, selection=sampler)
    return ell, curve_arr, utilities, probabilities


def _choose_ell(
    curve_arr: np.ndarray,
    degrees_arr: np.ndarray,
    eps: float,
    b: float,
    ell_max: int,
    selection: str,
    selection_rng: RNGLike,
    diagnostics: bool,
) -> tuple[int, float, np.ndarray, np.ndarray, np.ndarray | None]:
    """Algorithm 1 lines 10–13: ℓ̂, the count's ε, the padded curve, the utilities, GEM's law."""
    if selection in PRIVATE_SELECTIONS:
        # Algorithm 1: ε/2 for GEM, ε/2 for the count.
        ell, curve_arr, utilities, probabilities = gem_ell(
            curve_arr,
            ell_max,
            eps / 2,
            eps / 2,
            b,
            selection=selection,
            rng=selection_rng,
            diagnostics=diagnostics,
        )
        return ell, eps / 2, curve_arr, utilities, probabilities
    # A non-private selection spends nothing, so its count gets all of ε (as in the paper's
    # comparison points, module docstring).
    curve_arr = _padded(curve_arr, ell_max)
    utilities = _utilities(curve_arr, min(ell_max, curve_arr.size), eps, b)
    if selection == "max_utility":
        ell = 1 + int(np.argmax(utilities))  # the smallest maximiser (q falls past the head)
    else:
        ell = _degree_ell(degrees_arr, selection)
    return ell, eps, curve_arr, utilities, None


def _release(
    curve_arr: np.ndarray,
    degrees_arr: np.ndarray,
    eps: float,
    b: float,
    ell_max: int,
    counting: str,
    selection: str,
    noise: str,
    selection_rng: RNGLike,
    noise_rng: RNGLike,
    diagnostics: bool,
    fixed: int | None = None,
) -> DistinctCountResult:
    """Algorithm 1 lines 10–14 on checked inputs (the curve is DC(D;ℓ), ℓ = 1..).

    ``fixed`` is a public ℓ (:func:`public_ell`): no choice, the count gets all of ε.
    """
    utilities: np.ndarray | None = None
    probabilities: np.ndarray | None = None
    if fixed is None:
        ell, count_eps, curve_arr, utilities, probabilities = _choose_ell(
            curve_arr, degrees_arr, eps, b, ell_max, selection, selection_rng, diagnostics
        )
    else:
        # Eq. 3 and 4: with ℓ fixed in advance, DC(D;ℓ) + Lap(ℓ/ε) is ε-DP by itself.
        ell, count_eps, ell_max, selection = fixed, eps, fixed, PUBLIC_SELECTION

    value = int(curve_arr[min(ell, curve_arr.size) - 1])  # the curve is flat past its end
    if noise == "exact":
        release = laplace_lower_bound(value, ell, count_eps, b, noise="exact", rng=noise_rng)
        estimate: int | float = int(release.estimate)
        scale, shift = float(release.scale), float(release.shift)
    else:  # Algorithm 1 line 14 with continuous noise (UnsafeNoiseWarning was raised)
        scale = float(laplace_scale(ell, count_eps))
        shift = continuous_shift(scale, b)
        estimate = value + float(float_laplace(scale, rng=noise_rng)) - shift

    return DistinctCountResult(
        estimate=estimate,
        ell=ell,
        epsilon=eps,
        beta=b,
        ell_max=ell_max,
        counting=counting,
        selection=selection,
        noise=noise,
        secure=noise == "exact",
        privacy_loss=distinct_count_loss(
            eps,
            counting=counting,
            selection=selection if fixed is None else "gem",
            ell=fixed,
            noise=noise,
        ),
        scale=scale,
        shift=shift,
        curve=_readonly(curve_arr.astype(np.int64)) if diagnostics else None,
        utilities=_readonly(utilities) if diagnostics and utilities is not None else None,
        probabilities=_readonly(probabilities) if probabilities is not None else None,
        count_at_ell=value if diagnostics else None,
    )


def public_ell(ell: int | None, ell_max: int, selection: str) -> int | None:
    """The ℓ fixed before seeing the data, or ``None`` when a selection is to choose it.

    ``ell`` is a public ℓ; without it, ``ell_max = 1`` leaves a private selection a single
    candidate, which is no choice either.  Both spend nothing on choosing ℓ.

    Examples
    --------
    >>> public_ell(None, 100, "gem"), public_ell(None, 1, "gem"), public_ell(4, 100, "gem")
    (None, 1, 4)
    """
    if ell is None:
        return 1 if ell_max == 1 and selection in PRIVATE_SELECTIONS else None
    fixed = check_positive_int(ell, "ell", maximum=MAX_ELL)
    if selection != "gem":
        raise InvalidParameterError(
            f"selection={selection!r} chooses ℓ from the data, but ell={fixed} fixes it: "
            "pass one of them"
        )
    return fixed


def distinct_count_loss(
    epsilon: float,
    *,
    counting: str = "matching",
    selection: str = "gem",
    ell: int | None = None,
    ell_max: int = 100,
    noise: str = "exact",
) -> PrivacyLoss:
    """The privacy loss of :func:`dp_distinct_count` from its parameters alone (no data).

    ε/2 for GEM's choice of ℓ plus ε/2 for the count (Algorithm 1); with a public ℓ
    (:func:`public_ell`: ``ell=``, or ``ell_max=1``) nothing for the choice and ε for the count,
    whose noise (scale ℓ/ε, sensitivity ℓ) is then known in advance and recorded for tight
    accountants; ε = ∞ for the non-private comparison selections, whose count alone is ε-DP
    (module docstring).

    Examples
    --------
    >>> distinct_count_loss(1.0)
    PrivacyLoss(epsilon=1, delta=0, 'DPDistinctCount (matching, gem)')
    >>> [part.epsilon for part in distinct_count_loss(1.0, ell=3).parts]
    [0.0, 1.0]
    >>> distinct_count_loss(1.0, selection="max_degree").is_private
    False
    """
    eps = check_epsilon(epsilon)
    check_choice(counting, "counting", COUNTINGS)
    check_choice(selection, "selection", SELECTIONS)
    check_choice(noise, "noise", NOISE_MODES)
    fixed = public_ell(ell, check_positive_int(ell_max, "ell_max", maximum=MAX_ELL), selection)
    if fixed is not None:
        choose = PrivacyLoss(0.0, description=f"public ℓ = {fixed}: nothing to choose")
        kind = "discrete_laplace" if noise == "exact" else "laplace"
        count = PrivacyLoss(
            eps,
            description=f"Laplace count DC(D;{fixed}) ({counting})",
            curve=NoiseCurve(kind, float(laplace_scale(fixed, eps)), float(fixed)),
        )
        return choose.compose(count, description=f"DPDistinctCount ({counting}, public ℓ)")
    if selection in PRIVATE_SELECTIONS:
        choose = PrivacyLoss(eps / 2, description=f"GEM choice of ℓ ({selection})")
        count = PrivacyLoss(eps / 2, description=f"Laplace count DC(D;ℓ̂) ({counting})")
        return choose.compose(count, description=f"DPDistinctCount ({counting}, {selection})")
    count = PrivacyLoss(eps, description=f"Laplace count DC(D;ℓ) ({counting})")
    return PrivacyLoss(
        math.inf,
        0.0,
        f"NOT PRIVATE: ℓ taken from the data ({selection}); the count at that ℓ is {eps:g}-DP",
        parts=(count,),
    )


def _readonly(arr: np.ndarray) -> np.ndarray:
    arr = np.array(arr)
    arr.flags.writeable = False
    return arr


@register(
    family="distinct_count",
    loss=distinct_count_loss,
    engines=("local", "spark"),
    session={"noise": "exact", "diagnostics": False},
)
def dp_distinct_count(
    graph: PersonItemGraph,
    epsilon: float,
    *,
    beta: float = DEFAULT_BETA,
    ell_max: int = 100,
    ell: int | None = None,
    counting: Counting = "matching",
    selection: SelectionRule = "gem",
    noise: NoiseMode = "exact",
    rng: RNGLike = None,
    diagnostics: bool = False,
) -> DistinctCountResult:
    """A differentially private lower bound on the number of distinct items (Knop & Steinke).

    Parameters
    ----------
    graph
        The person–item data D.
    epsilon
        Total privacy budget ε > 0 (finite).
    beta
        Failure probability in (0, ½): P[estimate > DC(D)] ≤ β.  Default 0.05, the 95% level
        of Knop & Steinke's experiments and the default of every mechanism here.
    ell_max
        Largest contribution bound GEM may choose (a positive integer up to 2³¹ − 1; the paper
        uses 100).  Memory is O(min(ℓ_max, largest degree)): past the largest degree the
        utilities are a line that GEM samples in closed form (:mod:`mechanisms.gem_tail`).
        ``ell_max=1`` leaves one candidate: ℓ = 1 is then public, as with ``ell=1``.
    ell
        A **public** contribution bound, fixed without looking at the data (e.g. a cap the
        schema guarantees: one review per person per product).  Nothing is spent choosing it:
        the whole ε goes to the count, Laplace scale ℓ/ε instead of 2ℓ̂/ε, and the result
        records ``selection="public"``.  ``ell_max`` is not used; ``selection`` must stay at
        its default.
    counting
        ``"matching"`` (Algorithm 1, exact DC(D;ℓ) by maximum matching), ``"greedy"``
        (Algorithm 2, linear time, a 2-approximation) or ``"sampling"`` (each person keeps ℓ
        random items; the baseline of §4.2).
    selection
        ``"gem"`` (Algorithm 3 with the exponential mechanism, the default) or
        ``"gem_permute_and_flip"`` (App. B) — both private; or a **non-private** comparison
        point of §4.2: ``"max_utility"``, ``"max_degree"``, ``"percentile"`` (90th).  These
        warn :class:`~dpcount.errors.PrivacyLeakWarning` and record ε = ∞.
    noise
        ``"exact"`` discrete Laplace (default, secure) or ``"float"`` (experiments; warns
        :class:`~dpcount.errors.UnsafeNoiseWarning`, ``secure=False``).
    rng
        ``None``, an int seed or a Generator; selection, noise and (for sampling) the curve use
        independent child streams.
    diagnostics
        Keep the curve, the utilities and GEM's probabilities on the result (not private).

    Returns
    -------
    DistinctCountResult
        ``estimate`` (ν̂), ``ell`` (ℓ̂), the parameters, ``privacy_loss`` and a readable
        ``str()``.

    Raises
    ------
    InvalidParameterError
        For ε not finite and > 0, β ∉ (0, ½), ℓ_max not a positive integer ≤ 2³¹ − 1, an
        unknown counting/selection/noise, a ``graph`` that is not a PersonItemGraph,
        ℓ_max > :data:`DENSE_ELL_MAX` with ``"gem_permute_and_flip"`` or ``diagnostics=True``,
        ``ell`` not a positive integer ≤ 2³¹ − 1, or ``ell`` with a ``selection``.

    See Also
    --------
    dp_distinct_count_from_curve : The same release from a precomputed curve.
    mechanisms.Session.dp_distinct_count : The same release charged to a budget.
    matching.dc_curve : DC(D;ℓ) for ℓ = 1..ℓ_max (not private).
    mechanisms.r2t, mechanisms.shifted_inverse : The baselines it is compared with.

    Notes
    -----
    Knop & Steinke (2023), Algorithm 1 (``counting="matching"``) and Algorithm 2
    (``"greedy"``).  With q_ℓ = DC(D;ℓ) − (2ℓ/ε)·ln(1/(2β)), Δ_ℓ = ℓ:
    ℓ̂ = GEM(q, Δ, ε/2, β) and ν̂ = DC(D;ℓ̂) + Lap(2ℓ̂/ε) − shift, the shift being the noise's full
    (1 − β) quantile: (2ℓ̂/ε)·ln(1/(2β)) for continuous noise (line 14), the smallest k with
    P[Z > k] ≤ β for discrete noise (docs/algorithms.md §3).

    **Privacy:** ε-DP under adding or removing one person with all their items: DC(D;ℓ), its
    greedy and its sampling approximation all have sensitivity ℓ (Lemma A.1; Thm 1.2; for
    sampling with the per-person randomness fixed), GEM is ε/2-DP and the Laplace release
    ε/2-DP, so basic composition gives ε.  With a public ℓ (``ell=``, or ``ell_max=1``) there
    is no selection: DC(D;ℓ) + Lap(ℓ/ε) is ε-DP by itself (Eq. 3), and the shift (ℓ/ε)·ln(1/(2β))
    (Eq. 4; the discrete tail for discrete noise) keeps the bound.  An empty graph is valid and
    just as private.

    **Accuracy:** P[ν̂ ≤ DC(D)] ≥ 1 − β for every counting (Theorems 1.1, 1.2).  If nobody
    holds more than ℓ* ≤ ℓ_max items, then with probability ≥ 1 − 3β
    DC(D) ≥ ν̂ ≥ DC(D) − (28ℓ*/ε)·ln(ℓ_max/β) for matching (Eq. 8), and with probability
    ≥ 1 − 2β ν̂ ≥ ½·DC(D) − (28ℓ*/ε)·ln(ℓ_max/β) for greedy (Eq. 10).  Sampling has no such
    guarantee (the paper's baseline).

    References
    ----------
    A. Knop, T. Steinke. "Counting Distinct Elements Under Person-Level Differential Privacy",
    NeurIPS 2023, arXiv:2308.12947.

    Examples
    --------
    >>> from dpcount import PersonItemGraph
    >>> g = PersonItemGraph.from_sets({"ann": {"a", "b"}, "bob": {"b", "c"}, "cy": {"d"}})
    >>> r = dp_distinct_count(g, epsilon=2.0, ell_max=3, rng=1)
    >>> r.epsilon, r.counting, r.selection, r.noise, r.secure, isinstance(r.estimate, int)
    (2.0, 'matching', 'gem', 'exact', True, True)

    A public ℓ (here each person holds at most 2 items by construction) spends all of ε on
    the count:

    >>> r = dp_distinct_count(g, epsilon=2.0, ell=2, rng=1)
    >>> r.ell, r.selection, r.scale, r.privacy_loss.parts[0].epsilon
    (2, 'public', 1.0, 0.0)
    """
    eps, b, ell_max = _check_parameters(
        epsilon, beta, ell_max, counting, selection, noise, bool(diagnostics)
    )
    fixed = public_ell(ell, ell_max, selection)
    check_graph(graph)
    _warn(noise, selection, "dp_distinct_count")
    selection_rng, noise_rng, curve_rng = spawn(rng, 3)
    degrees = graph.degrees()
    length = curve_length(degrees, ell_max if fixed is None else fixed, selection)
    method = _CURVE_METHOD[counting]
    curve = matching.dc_curve(
        graph, length, method=method, rng=curve_rng if counting == "sampling" else None
    )
    return _release(
        curve,
        degrees,
        eps,
        b,
        ell_max,
        counting,
        selection,
        noise,
        selection_rng,
        noise_rng,
        bool(diagnostics),
        fixed,
    )
