"""The generalized exponential mechanism (GEM) of Raskhodnikova & Smith, as Knop & Steinke use it.

GEM selects among m queries q_i with *different* sensitivities Δ_i.  With
t = (2/ε)·ln(m/β) and a_i = q_i(D) − t·Δ_i it computes the normalized scores
(Knop & Steinke, Algorithm 3 line 5)

    s_i = min_j (a_i − a_j) / (Δ_i + Δ_j)  ≤ 0,

each of sensitivity 1, and samples î with P[î = i] ∝ exp(½·ε·s_i) (Algorithm 3 line 7).

**Scores in O(m log m)** (Knop & Steinke, Appendix B; docs/algorithms.md §3).  s_i is the largest λ
with a_i − λΔ_i ≥ F(λ) := max_j (a_j + λΔ_j).  F is the upper envelope of the lines
y = a_j + xΔ_j: convex, increasing, piecewise linear.  We build it once (sort by slope, drop
lines that never attain the maximum), then for every i binary-search the piece of F where the
decreasing line a_i − λΔ_i crosses it; on the piece of line j the crossing is exactly
λ = (a_i − a_j)/(Δ_i + Δ_j), the same expression as the O(m²) formula, which is kept as
:func:`gem_normalized_scores_naive` (the test oracle).

Examples
--------
>>> q, sens = [5.0, 9.0, 10.0], [1.0, 2.0, 3.0]
>>> s = gem_normalized_scores(q, sens, epsilon=1.0, beta=0.05)
>>> bool(np.allclose(s, gem_normalized_scores_naive(q, sens, epsilon=1.0, beta=0.05)))
True
>>> float(s.max())
0.0
>>> gem(q, sens, epsilon=1.0, beta=0.05, rng=0) in (0, 1, 2)
True
"""

from __future__ import annotations

import math
from typing import Literal

import numpy as np
import numpy.typing as npt

from dpcount.common.jit import kernel
from dpcount.common.rng import RNGLike
from dpcount.errors import InvalidParameterError
from dpcount.validation import check_choice, check_epsilon, check_probability
from mechanisms.selection import (
    exponential_mechanism,
    exponential_mechanism_probabilities,
    permute_and_flip,
    permute_and_flip_probabilities,
)

__all__ = [
    "SELECTIONS",
    "Selection",
    "gem",
    "gem_normalized_scores",
    "gem_normalized_scores_naive",
    "gem_probabilities",
    "gem_threshold",
    "shifted_normalized_scores",
]

Selection = Literal["exponential", "permute_and_flip"]
#: The samplers GEM can use on its normalized scores (Knop & Steinke, App. B).
SELECTIONS: tuple[str, ...] = ("exponential", "permute_and_flip")

_NAIVE_BLOCK = 1 << 22  # entries of the m×m matrix evaluated at a time by the naive oracle
_SMALL_M = 32  # up to this many candidates gem() evaluates the O(m²) formula directly
_INTERPRET_M = 2048  # below this many the envelope kernels run interpreted (no compilation)


def gem_threshold(m: int, epsilon: float, beta: float) -> float:
    """t = (2/ε)·ln(m/β) (Knop & Steinke, Algorithm 3 line 3).

    Examples
    --------
    >>> round(gem_threshold(100, 0.5, 0.05), 4)
    30.4036
    """
    if m < 1:
        raise InvalidParameterError(f"GEM needs at least one candidate, got m={m}")
    eps = check_epsilon(epsilon)
    b = check_probability(beta, "beta")
    return (2.0 / eps) * math.log(m / b)


def _shifted_scores(
    scores: npt.ArrayLike, sensitivities: npt.ArrayLike, epsilon: float, beta: float
) -> tuple[np.ndarray, np.ndarray]:
    """(a, Δ) with a_i = q_i − tΔ_i, after checking the inputs."""
    q = np.asarray(scores, dtype=np.float64)
    if q.ndim != 1 or q.size == 0:
        raise InvalidParameterError(f"scores must be a non-empty 1-D array, got shape {q.shape}")
    sens = np.asarray(sensitivities, dtype=np.float64)
    if sens.ndim > 1 or sens.size not in (1, q.size):
        raise InvalidParameterError(
            f"sensitivities must be one number or one per score ({q.size}), got shape {sens.shape}"
        )
    sens = np.broadcast_to(sens.reshape(-1), q.shape)
    if not np.all(np.isfinite(q)):
        raise InvalidParameterError("GEM scores must be finite (no NaN or infinity)")
    if not (np.all(np.isfinite(sens)) and np.all(sens > 0)):
        raise InvalidParameterError("GEM sensitivities must be finite and > 0")
    t = gem_threshold(q.size, epsilon, beta)
    return q - t * sens, np.array(sens)


@kernel("(ro(float64[:]), ro(float64[:]))", interpret_below=_INTERPRET_M)
def _hull(a: np.ndarray, d: np.ndarray) -> np.ndarray:
    """Positions (into a, d sorted by increasing slope d, distinct slopes) of the lines on the
    upper envelope of y = a_j + x·d_j; consecutive ones meet at increasing x."""
    hull = np.empty(a.size, dtype=np.int64)
    top = 0
    for k in range(a.size):
        while top >= 2:
            i, j = hull[top - 2], hull[top - 1]
            # Line j never attains the maximum if line k overtakes line i no later than j does:
            # (a_i − a_k)/(d_k − d_i) ≤ (a_i − a_j)/(d_j − d_i), both denominators > 0.
            if (a[i] - a[k]) * (d[j] - d[i]) <= (a[i] - a[j]) * (d[k] - d[i]):
                top -= 1
            else:
                break
        hull[top] = k
        top += 1
    return hull[:top]


@kernel("(ro(float64[:]), ro(float64[:]), ro(int64[:]))", interpret_below=_INTERPRET_M)
def _envelope_scores(a: np.ndarray, d: np.ndarray, env: np.ndarray) -> np.ndarray:
    """s_i for every i, given the envelope lines ``env`` (indices into a, d, by slope)."""
    pieces = env.size
    # Breakpoint k (k = 1..pieces−1) is where line env[k] takes over from env[k−1].
    x = np.empty(max(pieces - 1, 0))
    fx = np.empty(max(pieces - 1, 0))
    for k in range(1, pieces):
        p, q = env[k - 1], env[k]
        x[k - 1] = (a[p] - a[q]) / (d[q] - d[p])
        fx[k - 1] = a[q] + d[q] * x[k - 1]
    s = np.empty(a.size)
    for i in range(a.size):
        # The last piece whose left breakpoint still has a_i − x·d_i ≥ F(x): there the
        # decreasing line a_i − λ·d_i meets F.
        lo, hi = 0, pieces
        while hi - lo > 1:
            mid = (lo + hi) // 2
            if a[i] - x[mid - 1] * d[i] >= fx[mid - 1]:
                lo = mid
            else:
                hi = mid
        # On line j's piece the crossing is λ = (a_i − a_j)/(d_i + d_j), the Alg. 3 line 5
        # term; its neighbours guard against rounding in the breakpoints, j = i gives 0.
        best = 0.0
        for k in range(max(lo - 1, 0), min(lo + 2, pieces)):
            j = env[k]
            best = min(best, (a[i] - a[j]) / (d[i] + d[j]))
        s[i] = best
    return s


def _upper_envelope(a: np.ndarray, d: np.ndarray) -> np.ndarray:
    """Indices of the lines y = a_j + x·d_j on their upper envelope, in increasing slope."""
    order = np.lexsort((a, d))  # by slope, then intercept
    last_of_slope = np.append(d[order][1:] != d[order][:-1], True)
    order = order[last_of_slope]  # of equal slopes only the highest line can matter
    return order[_hull.select(a.size)(a[order], d[order])]


def gem_normalized_scores(
    scores: npt.ArrayLike, sensitivities: npt.ArrayLike, epsilon: float, beta: float
) -> np.ndarray:
    """GEM's normalized scores s_i in O(m log m) time (Knop & Steinke, App. B).

    Parameters
    ----------
    scores
        q_i(D), finite floats (non-empty, 1-D).
    sensitivities
        Δ_i > 0 (an array like ``scores`` or one number for all).
    epsilon
        GEM's privacy parameter (enters through t = (2/ε)·ln(m/β)).
    beta
        GEM's failure probability, in (0, 1).

    Returns
    -------
    numpy.ndarray
        s_i = min_j (a_i − a_j)/(Δ_i + Δ_j) with a_i = q_i − tΔ_i.  Every s_i ≤ 0 and the
        largest is exactly 0 (at argmax a).  Equal to :func:`gem_normalized_scores_naive` up to
        floating-point rounding.

    Notes
    -----
    Algorithm 3 lines 3–5 with the upper-envelope evaluation of Appendix B.  Sorting takes
    O(m log m), the envelope O(m) and the binary searches O(m log m) (compiled loops: 10⁷
    candidates in a few seconds).  The found piece is cross-checked against its two neighbours,
    so a rounding error in a breakpoint can only make s_i larger by the rounding of one
    neighbouring term.

    Examples
    --------
    >>> gem_normalized_scores([0.0, 0.0], [1.0, 1.0], epsilon=1.0, beta=0.5).tolist()
    [0.0, 0.0]
    """
    a, d = _shifted_scores(scores, sensitivities, epsilon, beta)
    return _envelope_scores.select(a.size)(a, d, _upper_envelope(a, d))


def gem_normalized_scores_naive(
    scores: npt.ArrayLike, sensitivities: npt.ArrayLike, epsilon: float, beta: float
) -> np.ndarray:
    """The O(m²) normalized scores of Knop & Steinke Algorithm 3 line 5 (a test oracle).

    Examples
    --------
    >>> gem_normalized_scores_naive([0.0, 3.0], [1.0, 1.0], epsilon=1.0, beta=0.5).tolist()
    [-1.5, 0.0]
    """
    return _naive_scores(*_shifted_scores(scores, sensitivities, epsilon, beta))


def _naive_scores(a: np.ndarray, d: np.ndarray) -> np.ndarray:
    """min_j (a_i − a_j)/(Δ_i + Δ_j) for every i by the m×m formula, in row blocks."""
    m = a.size
    out = np.empty(m)
    rows_per_block = max(1, _NAIVE_BLOCK // m)
    for start in range(0, m, rows_per_block):
        i = np.arange(start, min(m, start + rows_per_block))[:, None]
        out[i[:, 0]] = ((a[i] - a[None, :]) / (d[i] + d[None, :])).min(axis=1)
    return out


def _scores(
    scores: npt.ArrayLike, sensitivities: npt.ArrayLike, epsilon: float, beta: float
) -> np.ndarray:
    """Normalized scores by whichever formula is faster: for a few candidates one m×m NumPy
    expression beats the envelope's Python loop and binary search (both give the same s)."""
    return shifted_normalized_scores(*_shifted_scores(scores, sensitivities, epsilon, beta))


def shifted_normalized_scores(a: np.ndarray, d: np.ndarray) -> np.ndarray:
    """s_i = min_j (a_i − a_j)/(Δ_i + Δ_j) from the shifted scores a_i = q_i − tΔ_i.

    For callers that fix t themselves (:mod:`mechanisms.gem_tail`, where m exceeds the number
    of candidates held in memory).  Small m: the m×m formula; otherwise the envelope.

    Examples
    --------
    >>> shifted_normalized_scores(np.array([0.0, 2.0]), np.array([1.0, 1.0])).tolist()
    [-1.0, 0.0]
    """
    if a.size <= _SMALL_M:
        return _naive_scores(a, d)
    return _envelope_scores.select(a.size)(a, d, _upper_envelope(a, d))


def gem_probabilities(
    scores: npt.ArrayLike,
    sensitivities: npt.ArrayLike,
    epsilon: float,
    beta: float,
    *,
    selection: Selection = "exponential",
) -> np.ndarray:
    """The exact output distribution of :func:`gem` (diagnostics and tests; not private).

    ``"exponential"``: P[i] ∝ exp(½·ε·s_i) (Algorithm 3 line 7); ``"permute_and_flip"``: see
    :func:`mechanisms.selection.permute_and_flip_probabilities` (O(m²)).

    Examples
    --------
    >>> p = gem_probabilities([1.0, 1.0, 1.0], 1.0, epsilon=1.0, beta=0.1)
    >>> bool(np.allclose(p, 1 / 3))
    True
    """
    check_choice(selection, "selection", SELECTIONS)
    s = _scores(scores, sensitivities, epsilon, beta)
    if selection == "exponential":
        return exponential_mechanism_probabilities(s, epsilon)
    return permute_and_flip_probabilities(s, epsilon)


def gem(
    scores: npt.ArrayLike,
    sensitivities: npt.ArrayLike,
    epsilon: float,
    beta: float,
    *,
    selection: Selection = "exponential",
    rng: RNGLike = None,
) -> int:
    """Select a query with the generalized exponential mechanism (ε-DP).

    Parameters
    ----------
    scores
        q_i(D) for the m candidates (finite, non-empty, 1-D).
    sensitivities
        Δ_i > 0: q_i changes by at most Δ_i between neighbouring datasets.
    epsilon
        Privacy parameter of the selection.
    beta
        Failure probability of the utility guarantee, in (0, 1).
    selection
        ``"exponential"`` (Algorithm 3 as written) or ``"permute_and_flip"`` (Appendix B: the
        same ε-DP guarantee, never worse utility).  Both are sampled exactly
        (:mod:`mechanisms.selection`).
    rng
        Randomness per docs/concepts.md.

    Returns
    -------
    int
        The 0-based index î of the selected query.

    See Also
    --------
    gem_probabilities : The exact output distribution (not private).
    mechanisms.dp_distinct_count : Uses GEM to choose ℓ.

    Notes
    -----
    Raskhodnikova & Smith (2016); Knop & Steinke (2023), Algorithm 3 and Theorem 3.4.
    **Privacy:** the normalized scores have sensitivity 1 under add/remove-one-person
    neighbours, so sampling ∝ exp(½·ε·s_i) (or permute-and-flip with the same weights) is ε-DP.
    **Utility:** with probability ≥ 1 − β, q_î(D) ≥ max_j [q_j(D) − Δ_j·(4/ε)·ln(m/β)]
    (Theorem 3.4).

    References
    ----------
    S. Raskhodnikova, A. Smith. "Lipschitz extensions for node-private graph statistics and the
    generalized exponential mechanism", FOCS 2016.
    A. Knop, T. Steinke. "Counting Distinct Elements Under Person-Level Differential Privacy",
    NeurIPS 2023, arXiv:2308.12947 (Algorithm 3, Appendix B).

    Examples
    --------
    >>> gem([0.0, 100.0, 90.0], [1.0, 1.0, 1.0], epsilon=1.0, beta=0.05, rng=0)
    1
    """
    check_choice(selection, "selection", SELECTIONS)
    s = _scores(scores, sensitivities, epsilon, beta)
    if selection == "exponential":
        return exponential_mechanism(s, epsilon, rng=rng)
    return permute_and_flip(s, epsilon, rng=rng)
