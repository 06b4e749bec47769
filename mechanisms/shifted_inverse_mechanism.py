"""The shifted inverse mechanism (Fang, Dong & Yi, CCS 2022) for the distinct count.

The generic mechanism for a monotone f (Steinke 2023, "Beyond local sensitivity via down
sensitivity"; docs/algorithms.md §5): on a finite, public output grid Y,

* ``ℓ(x, y)`` = fewest persons to remove so that f ≤ y, ``ℓ̄(x, y)`` = the same with f < y,
  both read off the inverse values ``f̌_j`` (non-increasing in j): ``ℓ(y) = min{j : f̌_j ≤ y}``,
  ``ℓ̄(y) = min{j : f̌_j < y}``, capped at ``2τ + 1`` (only ``f̌_0..f̌_{2τ}`` are computed; the cap
  is a 1-Lipschitz map, so it keeps sensitivity 1 and changes no score above −τ);
* score ``s(x, y) = −max(ℓ(x, y) − τ, τ − ℓ̄(x, y))`` with sensitivity 1 on add/remove-one-person
  neighbours, because ``f̌(D, j+1) ≤ f̌(D', j) ≤ f̌(D, j)`` moves ℓ and ℓ̄ by at most one;
* output ``y`` with probability ∝ ``exp(ε·s/2)`` (the exponential mechanism), with
  ``τ = ⌈(2/ε)·ln(|Y|/β)⌉``.

Inverse values are first rounded **down** to the grid (``r(v)`` = largest grid point ≤ v): a fixed
monotone map, so the inequalities above survive it, and ``r(f̌_τ)`` is a grid point with score
≥ 0 — which the accuracy proof needs and which a log grid would otherwise miss (then every point
above f would score −τ and the output could land anywhere above f).

The sampler is the clean run-based one of docs/algorithms.md §5: the grid splits into at most
``4τ + 3`` runs of consecutive points with the same (ℓ, ℓ̄); a run of c points gets weight
``c·exp(ε·s/2)``, then a uniform point of the chosen run is output.  By default the choice is
**exact** (``noise="exact"``, docs/algorithms.md §8): rejection sampling with exact coins
Bernoulli(e^{−γ}·2ⁿ) and uniform integers, no floating-point probability anywhere; the
penalties γ = ε'·(s* − s)/2 are exact binary fractions because ε' is ε rounded *down* to 22
significant bits (ε' ≤ ε, so the release is ε-DP; τ is computed from ε').  ``noise="float"``
samples the same distribution from log-sum-exp probabilities (for sweeps; warns).

Examples
--------
>>> from dpcount import PersonItemGraph
>>> g = PersonItemGraph.from_sets({f"p{i}": {i, i + 1} for i in range(50)})
>>> r = shifted_inverse(g, 1.0, upper=1000, rng=7)
>>> r.tau, r.grid_size
(23, 3002)
>>> 0 < r.estimate <= g.n_items
True
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, ClassVar

import numpy as np

from dpcount.common.rng import RNGLike, as_generator
from dpcount.errors import InvalidParameterError
from dpcount.graph import PersonItemGraph
from dpcount.validation import check_beta, check_choice, check_epsilon
from mechanisms._defaults import DEFAULT_BETA
from mechanisms.accounting import PrivacyLoss
from mechanisms.declaration import register
from mechanisms.gem_tail import bernoulli_exp_times_power_of_two
from mechanisms.inverse import exact_inverse, lp_inverse
from mechanisms.noise import NoiseMode, uniform_below, warn_unsafe
from mechanisms.release import Release

__all__ = [
    "OutputGrid",
    "ShiftedInverseResult",
    "output_grid",
    "shifted_inverse",
    "shifted_inverse_loss",
]

INVERSES = ("lp", "exact")
NOISE_MODES = ("exact", "float")
#: Significant bits kept of ε/2: penalties (ε'/2)·g for integer gaps g < 2³¹ stay exact floats.
_EPSILON_BITS = 22
_LN2 = math.log(2.0)
_POWER_MARGIN = 1e-9  # relative: 2^n ≤ e^γ holds with room for the rounding of γ/ln 2
# A grid is materialised as float64 (8 bytes a point); 2·10⁷ points is 160 MB.
MAX_GRID_POINTS = 20_000_001
#: Largest shift τ = ⌈(2/ε)·ln(|Y|/β)⌉ planned: 2τ + 1 inverse values (ε ≳ 3e-5, default grid).
MAX_TAU = 1_000_000


# --------------------------------------------------------------------------------------------
# The output grid
# --------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class OutputGrid:
    """A public, increasing grid of candidate outputs Y.

    Attributes
    ----------
    values
        The grid points, strictly increasing, starting at 0.
    upper, step, log_domain
        How it was built (see :func:`output_grid`).
    """

    values: np.ndarray
    upper: float
    step: float
    log_domain: bool

    @property
    def size(self) -> int:
        """|Y|."""
        return int(self.values.size)

    def floor_index(self, v: np.ndarray) -> np.ndarray:
        """Index of the largest grid point ≤ v (0 below the grid, the top above it).

        A fixed monotone map (``searchsorted`` on a fixed array), so any order between inverse
        values is kept, which is all the privacy proof uses.
        """
        idx = np.searchsorted(self.values, np.asarray(v, dtype=float), side="right") - 1
        return np.clip(idx, 0, self.size - 1).astype(np.int64)

    def to_dict(self) -> dict[str, Any]:
        """How the grid was built (the points follow from it; see :func:`output_grid`)."""
        return {"upper": self.upper, "step": self.step, "log_domain": self.log_domain}

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> OutputGrid:
        """The grid :meth:`to_dict` describes."""
        return output_grid(data["upper"], data["step"], data["log_domain"])

    def __repr__(self) -> str:
        kind = "log10" if self.log_domain else "linear"
        return (
            f"OutputGrid({kind}, size={self.size:,}, step={self.step:g}, top={self.values[-1]:g})"
        )


def output_grid(upper: float, step: float | None = None, log_domain: bool = True) -> OutputGrid:
    """The grid Y: ``{0} ∪ {10^(k·step)}`` (log) or ``{k·step}`` (linear), up to ≥ ``upper``.

    Parameters
    ----------
    upper
        Public upper bound on the distinct count; the top grid point is the first one ≥ upper.
    step
        Spacing in log10 units (default 0.001, i.e. 0.23 % apart, as Fang et al. and Knop &
        Steinke use) or in counts for a linear grid (default 1).
    log_domain
        Logarithmic (default) or linear grid.  0 is always a grid point, so that an empty
        dataset is answered exactly and no count needs clamping before ``log10``.

    Examples
    --------
    >>> output_grid(100, step=0.5).values.tolist()
    [0.0, 1.0, 3.1622776601683795, 10.0, 31.622776601683793, 100.0]
    >>> output_grid(5, step=2, log_domain=False).values.tolist()
    [0.0, 2.0, 4.0, 6.0]
    """
    if step is None:
        step = 0.001 if log_domain else 1.0
    for name, value in (("upper", upper), ("step", step)):
        if isinstance(value, bool) or not isinstance(value, int | float | np.integer | np.floating):
            raise InvalidParameterError(f"{name} must be a real number, got {value!r}")
        if not (math.isfinite(value) and value > 0):
            raise InvalidParameterError(f"{name} must be finite and > 0, got {value!r}")
    upper, step = float(upper), float(step)
    if log_domain and upper < 1:
        raise InvalidParameterError(f"upper must be >= 1 for a log grid, got {upper!r}")
    top = math.log10(upper) if log_domain else upper
    n = math.ceil(top / step) + 1
    if n + 1 > MAX_GRID_POINTS:
        raise InvalidParameterError(
            f"the grid would have {n + 1:,} points, more than MAX_GRID_POINTS = "
            f"{MAX_GRID_POINTS:,}; increase step or use a log grid"
        )
    k = np.arange(n, dtype=float)
    values = np.concatenate([[0.0], 10.0 ** (k * step)]) if log_domain else k * step
    while values.size > 2 and values[-2] >= upper:  # ceil of a rounded quotient may overshoot
        values = values[:-1]
    if np.any(np.diff(values) <= 0):
        raise InvalidParameterError(f"step {step!r} is too small to give distinct grid points")
    return OutputGrid(values, upper, step, log_domain)


def selection_epsilon(epsilon: float) -> float:
    """ε' ≤ ε with ε'/2 rounded down to 22 significant bits: the ε the selection uses.

    The penalties ε'·(s* − s)/2 of integer score gaps below 2³¹ are then exact floats, so the
    exact sampler draws from exactly exp(−ε'(s* − s)/2).  ε' ≥ ε·(1 − 2⁻²¹); a smaller ε
    only strengthens the guarantee.

    Examples
    --------
    >>> selection_epsilon(1.0), selection_epsilon(0.5)
    (1.0, 0.5)
    >>> 0 < 0.1 - selection_epsilon(0.1) < 0.1 * 2**-21
    True
    """
    mantissa, exponent = math.frexp(check_epsilon(epsilon) / 2.0)
    return 2.0 * math.ldexp(math.floor(mantissa * 2**_EPSILON_BITS) / 2**_EPSILON_BITS, exponent)


def tau_for(epsilon: float, beta: float, grid_size: int) -> int:
    """τ = ⌈(2/ε)·ln(|Y|/β)⌉ (Steinke 2023; docs/algorithms.md §5).

    Examples
    --------
    >>> tau_for(1.0, 0.1, 7002)
    23
    """
    # ε below ~1e-300 (or 0 after selection_epsilon's rounding of a subnormal ε) gives ∞.
    value = 2.0 / epsilon * math.log(grid_size / beta) if epsilon > 0 else math.inf
    if not value <= MAX_TAU:
        raise InvalidParameterError(
            f"epsilon={epsilon!r} is too small for the shifted inverse: the shift "
            f"tau = (2/epsilon)*ln(|Y|/beta) exceeds MAX_TAU = {MAX_TAU:,} (it needs 2*tau + 1 "
            "inverse values)"
        )
    return math.ceil(value)


# --------------------------------------------------------------------------------------------
# Scores and the run-based exponential mechanism
# --------------------------------------------------------------------------------------------


def _losses(idx: np.ndarray, k: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """ℓ(k) = #{j : idx_j > k} and ℓ̄(k) = #{j : idx_j ≥ k} for grid indices k.

    With ``idx_j`` the floor index of f̌_j (non-increasing in j), ``#{j : idx_j > k}`` is the first
    j with f̌_j ≤ y_k, i.e. ℓ, capped at ``len(idx)`` = 2τ + 1; likewise ℓ̄ with "<".
    """
    ordered = np.sort(idx)
    total = ordered.size
    ell = total - np.searchsorted(ordered, k, side="right")
    ell_bar = total - np.searchsorted(ordered, k, side="left")
    return ell, ell_bar


def _score(ell: np.ndarray, ell_bar: np.ndarray, tau: int) -> np.ndarray:
    """s = −max(ℓ − τ, τ − ℓ̄) (Steinke 2023; docs/algorithms.md §5)."""
    return -np.maximum(ell - tau, tau - ell_bar)


def point_scores(inverse_values: np.ndarray, grid: OutputGrid, tau: int) -> np.ndarray:
    """The score of every grid point (O(|Y| log τ); for tests and small grids).

    Parameters
    ----------
    inverse_values
        ``f̌_0, …, f̌_{2τ}`` (non-increasing).
    grid
        The output grid.
    tau
        The shift τ.

    Examples
    --------
    >>> grid = output_grid(6, log_domain=False)
    >>> point_scores(np.array([5.0, 4, 4, 2, 1]), grid, 2).tolist()
    [-3, -2, -1, -1, 1, -1, -2]
    """
    idx = grid.floor_index(inverse_values)
    ell, ell_bar = _losses(idx, np.arange(grid.size))
    return _score(ell, ell_bar, tau)


@dataclass(frozen=True)
class _Runs:
    """Maximal runs of grid indices with constant (ℓ, ℓ̄) and their selection probabilities."""

    starts: np.ndarray  # first grid index of each run
    sizes: np.ndarray  # number of grid points in each run
    scores: np.ndarray  # the common score of the run's points
    probabilities: np.ndarray  # P[the output lies in the run]


def _runs(idx: np.ndarray, grid_size: int, tau: int, epsilon: float) -> _Runs:
    """Split ``0..grid_size-1`` into runs and weight each by ``size·exp(ε·s/2)``.

    ℓ changes only where k reaches a value v of ``idx`` and ℓ̄ only one step later, so the cut
    points are 0, every v and v + 1, and ``grid_size``: at most ``2·len(idx) + 1`` runs.
    """
    cuts = np.unique(np.concatenate([[0, grid_size], idx, idx + 1]))
    cuts = cuts[cuts <= grid_size]
    starts, sizes = cuts[:-1], np.diff(cuts)
    ell, ell_bar = _losses(idx, starts)
    scores = _score(ell, ell_bar, tau)
    log_weights = np.log(sizes) + 0.5 * epsilon * scores
    log_weights -= log_weights.max()  # log-sum-exp: the largest weight becomes 1
    weights = np.exp(log_weights)
    return _Runs(starts, sizes, scores, weights / weights.sum())


def _draw(runs: _Runs, rng: np.random.Generator) -> int:
    """One grid index: a run by its probability, then a uniform point inside it."""
    cumulative = np.cumsum(runs.probabilities)
    r = int(np.searchsorted(cumulative, rng.random() * cumulative[-1], side="right"))
    r = min(r, runs.sizes.size - 1)  # guards u·total == total after rounding
    return int(runs.starts[r] + rng.integers(runs.sizes[r]))


@dataclass(frozen=True)
class _ExactProposal:
    """The proposal of the exact selection (see :func:`_exact_proposal`), built once a plan."""

    runs: _Runs
    gammas: np.ndarray  # exact penalty of each run
    powers: np.ndarray  # n with 2^n ≤ e^γ, per run
    members: tuple[np.ndarray, ...]  # the runs of each class (one class per power)
    points: tuple[np.ndarray, ...]  # cumulative grid points over each class's runs
    cumulative: np.ndarray  # cumulative class masses (Python ints)

    def draw(self, rng: np.random.Generator) -> int:
        """One grid index with P[k] ∝ e^{−γ_k}: propose, accept with an exact coin."""
        total = int(self.cumulative[-1])
        while True:
            c = int(np.searchsorted(self.cumulative, uniform_below(total, rng), side="right"))
            point = uniform_below(int(self.points[c][-1]), rng)  # a uniform point of the class
            j = int(np.searchsorted(self.points[c], point, side="right"))
            r = int(self.members[c][j])
            if bernoulli_exp_times_power_of_two(float(self.gammas[r]), int(self.powers[r]), rng):
                before = int(self.points[c][j - 1]) if j else 0
                return int(self.runs.starts[r]) + point - before


def _exact_proposal(runs: _Runs, epsilon: float) -> _ExactProposal:
    """Prepare the exact exponential mechanism P[k] ∝ exp(−γ_k), γ = ε·(s* − s_k)/2.

    ``epsilon`` must be a :func:`selection_epsilon`, so every γ is an exact float.  Runs are
    grouped by n = ⌊γ/ln 2⌋ (less a tiny margin): a grid point of a run with power n is
    proposed with probability ∝ 2^{−n} — a class by its integer mass (points · 2^{top − n}),
    then a uniform point of the class — and accepted with the exact coin e^{−γ}·2ⁿ ∈ (¼, 1]
    (:func:`mechanisms.gem_tail.bernoulli_exp_times_power_of_two`).  An accepted point has
    probability ∝ e^{−γ}: the exponential mechanism; fewer than four proposals on average.
    """
    gaps = runs.scores.max() - runs.scores  # integers ≥ 0
    gammas = gaps * (epsilon / 2.0)  # exact: ε/2 has ≤ 22 significant bits, gaps < 2³¹
    powers = np.maximum(0, np.floor(gammas * (1.0 - _POWER_MARGIN) / _LN2)).astype(np.int64)
    classes = np.unique(powers)
    members = tuple(np.flatnonzero(powers == p) for p in classes)
    points = tuple(np.cumsum(runs.sizes[m]) for m in members)
    top = int(classes[-1])
    masses = [int(c[-1]) << (top - int(p)) for c, p in zip(points, classes, strict=True)]
    cumulative = np.cumsum(np.array(masses, dtype=object))
    return _ExactProposal(runs, gammas, powers, members, points, cumulative)


def _draw_exact(runs: _Runs, epsilon: float, rng: np.random.Generator) -> int:
    """One grid index drawn exactly by the exponential mechanism (:func:`_exact_proposal`)."""
    return _exact_proposal(runs, epsilon).draw(rng)


def point_probabilities(runs: _Runs, grid_size: int) -> np.ndarray:
    """P[output = grid point k] for every k (each run's mass spread evenly; for tests)."""
    return np.repeat(runs.probabilities / runs.sizes, runs.sizes)[:grid_size]


# --------------------------------------------------------------------------------------------
# The mechanism
# --------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class ShiftedInversePlan:
    """Everything the mechanism computes before drawing (reusable across draws).

    Not private: it holds the inverse values of the data.  Benchmarks use it to draw many
    releases from one computation; a real release draws once.
    """

    grid: OutputGrid
    epsilon: float
    beta: float
    tau: int
    inverse: str
    inverse_values: np.ndarray
    runs: _Runs

    def draw(self, rng: RNGLike = None, noise: NoiseMode = "exact") -> ShiftedInverseResult:
        """One release of the mechanism (exact selection by default; see the module notes)."""
        check_choice(noise, "noise", NOISE_MODES)
        gen = as_generator(rng)
        exact = noise == "exact"
        k = (
            _draw_exact(self.runs, selection_epsilon(self.epsilon), gen)
            if exact
            else _draw(self.runs, gen)
        )
        return ShiftedInverseResult(
            estimate=float(self.grid.values[k]),
            epsilon=self.epsilon,
            beta=self.beta,
            tau=self.tau,
            grid=self.grid,
            inverse=self.inverse,
            privacy_loss=shifted_inverse_loss(self.epsilon),
            secure=exact,
        )


def shifted_inverse_loss(epsilon: float) -> PrivacyLoss:
    """The privacy loss of :func:`shifted_inverse` from its parameters alone: pure ε-DP.

    Examples
    --------
    >>> shifted_inverse_loss(0.5)
    PrivacyLoss(epsilon=0.5, delta=0, 'shifted inverse (exponential mechanism)')
    """
    return PrivacyLoss(
        check_epsilon(epsilon), description="shifted inverse (exponential mechanism)"
    )


def plan_from_inverse(
    inverse_values: np.ndarray,
    grid: OutputGrid,
    epsilon: float,
    beta: float,
    tau: int,
    inverse: str = "given",
) -> ShiftedInversePlan:
    """A plan from precomputed inverse values ``f̌_0..f̌_{2τ}`` (internal, for benchmarks)."""
    values = np.asarray(inverse_values, dtype=float)
    if values.shape != (2 * tau + 1,):
        raise InvalidParameterError(
            f"need the inverse at j = 0..2τ = {2 * tau}, got {values.size} values"
        )
    if np.any(np.diff(values) > 0):
        raise InvalidParameterError("inverse values must be non-increasing in j")
    runs = _runs(grid.floor_index(values), grid.size, tau, selection_epsilon(epsilon))
    return ShiftedInversePlan(grid, epsilon, beta, tau, inverse, values, runs)


def plan_shifted_inverse(
    graph: PersonItemGraph,
    epsilon: float,
    *,
    beta: float = DEFAULT_BETA,
    upper: float,
    step: float | None = None,
    log_domain: bool = True,
    inverse: str = "lp",
) -> ShiftedInversePlan:
    """Validate parameters, build the grid, compute the inverse and the runs (no draw yet)."""
    eps = check_epsilon(epsilon)
    b = check_beta(beta)
    check_choice(inverse, "inverse", INVERSES)
    grid = output_grid(upper, step, log_domain)
    tau = tau_for(selection_epsilon(eps), b, grid.size)
    # Removing all n persons leaves nothing: f̌_j is the same for every j ≥ n, so compute up to
    # min(2τ, n) and repeat the last value.
    j_max = min(2 * tau, graph.n_persons)
    if inverse == "exact":
        values = exact_inverse(graph, j_max).astype(float)
    else:
        values = lp_inverse(graph, j_max)
    values = np.pad(values, (0, 2 * tau - j_max), mode="edge")
    return plan_from_inverse(values, grid, eps, b, tau, inverse)


@dataclass(frozen=True)
class ShiftedInverseResult(Release):
    """A release of :func:`shifted_inverse`.

    Attributes
    ----------
    estimate
        The released grid point: with probability ≥ 1 − β in
        ``[r(f̌_{2τ}), r(DC(D))] ⊆ [DC(D) − DS, DC(D)]`` (r = round down to the grid).
    epsilon, beta, tau
        Privacy parameter, failure probability and the shift τ = ⌈(2/ε)·ln(|Y|/β)⌉.
    grid
        The public output grid.
    inverse
        ``"lp"`` or ``"exact"``.
    privacy_loss
        ε-DP, pure.
    secure
        ``True`` for the exact selection (default), ``False`` for ``noise="float"``.
    scale
        2/ε, the exponential mechanism's temperature: P[y] ∝ exp(s(y)/scale).
    """

    estimate: float
    epsilon: float
    beta: float
    tau: int
    grid: OutputGrid
    inverse: str
    privacy_loss: PrivacyLoss
    secure: bool = True

    mechanism: ClassVar[str] = "shifted_inverse"

    @property
    def grid_size(self) -> int:
        """|Y|."""
        return self.grid.size

    @property
    def scale(self) -> float:
        """2/ε: outputs are drawn with probability ∝ exp(score/scale)."""
        return 2.0 / self.epsilon

    def _rows(self) -> list[tuple[str, str]]:
        return [
            ("estimate", f"{self.estimate:,.6g}"),
            ("β / τ", f"{self.beta:g} / {self.tau}"),
            ("inverse", self.inverse),
            ("grid", repr(self.grid)),
        ]

    def __repr__(self) -> str:
        return (
            f"ShiftedInverseResult(estimate={self.estimate:,.6g}, epsilon={self.epsilon:g}, "
            f"beta={self.beta:g}, tau={self.tau}, inverse={self.inverse!r}, grid={self.grid!r})"
        )


# A session runs the LP inverse only: the brute force refuses more than MAX_EXACT_PERSONS
# persons, so whether it runs would depend on the data.
@register(
    family="distinct_count",
    loss=shifted_inverse_loss,
    session={"inverse": "lp", "noise": "exact"},
)
def shifted_inverse(
    graph: PersonItemGraph,
    epsilon: float,
    *,
    beta: float = DEFAULT_BETA,
    upper: float,
    step: float | None = None,
    log_domain: bool = True,
    inverse: str = "lp",
    noise: NoiseMode = "exact",
    rng: RNGLike = None,
) -> ShiftedInverseResult:
    """ε-DP distinct count by the shifted inverse mechanism (an under-estimate w.p. ≥ 1 − β).

    Parameters
    ----------
    graph
        The person–item graph; f(D) = DC(D) = number of distinct items.
    epsilon
        Privacy parameter ε > 0.
    beta
        Failure probability in (0, ½); sets τ = ⌈(2/ε)·ln(|Y|/β)⌉.  Default 0.05 as for every
        mechanism (Knop & Steinke's Figure 2; the reference script uses 0.1).
    upper
        Public upper bound on the distinct count (the grid's top; **not** to be taken from the
        data).  Counts above it are answered with at most the top grid point.
    step
        Grid spacing: log10 units for a log grid (default 0.001), counts for a linear one
        (default 1).
    log_domain
        Log grid (default) or linear grid; see :func:`output_grid`.
    inverse
        ``"lp"``: the LP relaxation of Fang, Dong & Yi, solved exactly by parametric minimum cut
        (polynomial, the default).  ``"exact"``: brute force over person subsets, at most
        :data:`~mechanisms.inverse.MAX_EXACT_PERSONS` persons (teaching and tests).
    noise
        ``"exact"`` (default): the selection by exact coins, ``secure=True``.  ``"float"``:
        the same distribution from floating-point probabilities, for Monte-Carlo sweeps
        (warns :class:`~dpcount.errors.UnsafeNoiseWarning`, ``secure=False``).
    rng
        Randomness per docs/concepts.md.

    Returns
    -------
    ShiftedInverseResult

    Raises
    ------
    InvalidParameterError
        For ε ≤ 0, β ∉ (0, ½), a bad grid, an unknown inverse, too many persons for
        ``inverse="exact"``, or a shift τ above :data:`MAX_TAU` (ε too small).

    See Also
    --------
    mechanisms.dp_distinct_count : The matching-based lower bound.
    mechanisms.r2t : The truncation baseline.

    Notes
    -----
    Privacy: ε-DP under add/remove-one-person neighbours — the exponential mechanism with a
    score of sensitivity 1 (Steinke 2023; docs/algorithms.md §5), since both inverses
    satisfy ``f̌(D, j+1) ≤ f̌(D', j) ≤ f̌(D, j)`` (:mod:`mechanisms.inverse`).

    Accuracy: the points with score ≤ −τ weigh at most ``|Y|·e^{−ετ/2} ≤ β`` against the point
    ``r(f̌_τ)`` of score ≥ 0, so with probability ≥ 1 − β the output lies in
    ``[r(f̌_{2τ}), r(DC(D))]``: an under-estimate whose error is at most DC(D) − f̌_{2τ} plus one
    grid step.  For the exact inverse that gap is the down sensitivity at distance 2τ; the LP
    inverse is ≤ the exact one (it removes persons fractionally), so its gap can be larger.

    The selection uses ε' = :func:`selection_epsilon` (ε rounded down by at most a relative
    2⁻²¹, so the release is ε-DP) and, by default, draws exactly: rejection with exact coins,
    no floating-point probability (docs/algorithms.md §8).

    References
    ----------
    J. Fang, W. Dong, K. Yi. "Shifted Inverse: A General Mechanism for Monotonic Functions under
    User Differential Privacy", CCS 2022, doi:10.1145/3548606.3560567.
    T. Steinke, "Beyond Local Sensitivity via Down Sensitivity", differentialprivacy.org, 2023.

    Examples
    --------
    >>> from dpcount import PersonItemGraph
    >>> g = PersonItemGraph.from_sets({"a": {1, 2}, "b": {2, 3}, "c": {4}})
    >>> r = shifted_inverse(g, 2.0, upper=10, log_domain=False, inverse="exact", rng=1)
    >>> r.estimate <= 4
    True
    """
    check_choice(noise, "noise", NOISE_MODES)
    plan = plan_shifted_inverse(
        graph, epsilon, beta=beta, upper=upper, step=step, log_domain=log_domain, inverse=inverse
    )
    if noise == "float":
        warn_unsafe("shifted_inverse")
    return plan.draw(rng, noise)
