"""GEM over ℓ = 1..m with a linear tail, in memory O(head) for any m up to 2³¹ − 1.

Knop & Steinke choose ℓ̂ ∈ {1, …, ℓ_max} by GEM on q_ℓ = DC(D;ℓ) − kℓ with Δ_ℓ = ℓ.  From the
largest degree ℓ* on, DC(D;ℓ) = DC(D) is constant, so past a head ℓ = 1..H (H ≥ ℓ*) the scores
are q_ℓ = C − kℓ: a straight line.  This module selects from exactly the same distribution as
:func:`mechanisms.generalized_exponential.gem` on the full ℓ = 1..m, holding only the head
(docs/algorithms.md §3, "GEM with a flat tail"):

* **Scores.**  With a_ℓ = q_ℓ − tℓ, t = (2/ε)·ln(m/β) and κ = k + t, the tail is a_ℓ = C − κℓ.
  For a head ℓ_i, min over tail j of (a_i − a_j)/(ℓ_i + ℓ_j) is a Möbius function of ℓ_j,
  monotone, so attained at ℓ_j = H (on the line, in the head) or ℓ_j = m: the head scores are
  those of the head plus the single candidate m.  For a tail ℓ, tail j < ℓ give
  −κ(ℓ − ℓ_j)/(ℓ + ℓ_j), smallest at ℓ_j = H, and j > ℓ give positive terms, so
  s_ℓ = min over head j of (a_ℓ − a_j)/(ℓ + ℓ_j) = −κ + min_j B_j/(ℓ + ℓ_j) with
  B_j = C + κℓ_j − a_j ≥ 2κℓ_j > 0 (as q_j ≤ C − kℓ_j): decreasing in ℓ (docs/algorithms.md §3).
* **Sampling.**  Exactly, by rejection.  The tail is cut into blocks [l, r] in which the
  penalty γ_ℓ = −½·ε·s_ℓ rises by at most 1; block weights are bounded by the power of two
  2^{−n} ≥ e^{−γ_l} (n = ⌊γ_l/ln 2⌋ minus a safety margin), head weights by 1.  A proposal
  picks a head index with mass 1 or a block of s candidates with mass s·2^{−n} — rational
  masses, drawn with exact integer arithmetic — then a uniform index inside, and accepts with
  probability e^{−γ_ℓ}·2^{n} ≤ 1, an exact coin (:func:`bernoulli_exp_times_power_of_two`).
  The accepted index has probability ∝ e^{−γ_ℓ}: the exponential mechanism on all m scores.
  The number of blocks is at most γ_m − γ_{H+1} + 1 ≤ ln(m/β) + k·ε/2 + 1, and a proposal is
  accepted with probability ≥ 1/(H + 2e) overall.

Examples
--------
>>> head = np.array([3.5, 4.0, 4.5])  # q_ℓ = DC(ℓ) − kℓ with DC = 4, 5, 6 and k = 0.5
>>> tail = LinearTailGEM(head, value=6.0, slope=0.5, m=10**9, epsilon=1.0, beta=0.1)
>>> 1 <= tail.sample(rng=0) <= 10**9
True
>>> bool(tail.scores(np.array([2, 10**9])).max() <= 0.0)
True
"""

from __future__ import annotations

import decimal
import math
from collections.abc import Callable
from dataclasses import dataclass, field
from fractions import Fraction
from functools import lru_cache

import numpy as np

from dpcount.common.rng import RNGLike, as_generator
from dpcount.errors import InvalidParameterError
from mechanisms.generalized_exponential import gem_threshold, shifted_normalized_scores
from mechanisms.noise import bernoulli_exp, uniform_below
from mechanisms.selection import _bernoulli_exp_one

__all__ = ["LinearTailGEM", "bernoulli_exp_times_power_of_two"]

_BLOCK_RISE = 1.0  # largest rise of the penalty inside one tail block
_MARGIN = 1e-9  # relative slack in the block bounds, far above the rounding of γ (~1e-15)
_LN2 = math.log(2.0)
_LINE_TOLERANCE = 1e-9  # relative: the head's last score and the tail's line differ by rounding

Enclosure = Callable[[int], tuple[Fraction, Fraction]]


@lru_cache(maxsize=16)
def _ln2_enclosure(digits: int) -> tuple[Fraction, Fraction]:
    """Rationals lo < ln 2 < hi with hi − lo = 2·10^−digits (``decimal`` rounds ln correctly)."""
    context = decimal.Context(prec=digits)
    near = Fraction(context.ln(decimal.Decimal(2)))
    unit = Fraction(1, 10**digits)  # ln 2 < 1, so one unit in the last place is 10^−digits
    return near - unit, near + unit


def _bernoulli_real(enclose: Enclosure, rng: np.random.Generator) -> bool:
    """Bernoulli(x) for a real x ∈ [0, 1) known through enclosures ``enclose(bits)``.

    Draws the uniform U bit by bit (64 at a time) and compares it with x, asking for a tighter
    enclosure of x only while U's interval still overlaps it; exact, ~1 round on average.
    """
    u, bits = 0, 0
    while True:
        u = (u << 64) | int.from_bytes(rng.bytes(8), "little")
        bits += 64
        lo, hi = enclose(bits + 16)
        if Fraction(u + 1, 1 << bits) <= lo:
            return True
        if Fraction(u, 1 << bits) >= hi:
            return False


def bernoulli_exp_times_power_of_two(gamma: float, n: int, rng: RNGLike = None) -> bool:
    """An exact coin with P[heads] = e^{−γ}·2^n, for a float γ ≥ n·ln 2 and an integer n ≥ 0.

    Parameters
    ----------
    gamma
        The penalty γ, taken at its exact binary value.
    n
        The power of two; e^{−γ}·2^n must not exceed 1.
    rng
        Randomness per docs/concepts.md.

    Returns
    -------
    bool

    Notes
    -----
    e^{−γ}·2^n = e^{−r} with r = γ − n·ln 2, irrational for n ≥ 1.  Canonne, Kamath & Steinke
    (2020), Algorithm 1 needs only coins Bernoulli(r') for r' = r − ⌊r⌋ and Bernoulli(e^{−1});
    the first are drawn by comparing uniform bits with enclosures of r' from a correctly
    rounded ln 2 (:mod:`decimal`), refined until they decide.

    Examples
    --------
    >>> bernoulli_exp_times_power_of_two(0.0, 0, rng=1)
    True
    >>> coins = [bernoulli_exp_times_power_of_two(3.0, 4, rng=s) for s in range(2000)]
    >>> abs(sum(coins) / 2000 - 16 * math.exp(-3.0)) < 0.05
    True
    """
    gen = as_generator(rng)
    if n == 0:
        return _bernoulli_exp_one(gamma, gen)
    g = Fraction(gamma)

    def enclose(bits: int) -> tuple[Fraction, Fraction]:
        digits = int(bits * 0.302) + len(str(n)) + 2  # 10^−digits·n ≪ 2^−bits
        lo, hi = _ln2_enclosure(digits)
        return g - n * hi, g - n * lo

    bits = 64
    lo, hi = enclose(bits)
    while math.floor(lo) != math.floor(hi):  # r is irrational: a finer enclosure decides ⌊r⌋
        bits *= 2
        lo, hi = enclose(bits)
    whole = math.floor(lo)
    if whole < 0:
        raise InvalidParameterError(f"e^(-{gamma!r})*2^{n} exceeds 1: not a probability")
    for _ in range(whole):  # e^{−⌊r⌋}: ⌊r⌋ coins Bernoulli(e^{−1}), stop at the first tails
        if not bernoulli_exp(1, gen):
            return False

    def enclose_fraction(b: int) -> tuple[Fraction, Fraction]:
        low, high = enclose(b)
        return low - whole, high - whole

    k = 1  # CKS Algorithm 1 on the fractional part x: K odd ⇔ heads
    while True:
        if k > 1 and uniform_below(k, gen) != 0:  # Bernoulli(x/k) = Bernoulli(1/k) ∧ Bern(x)
            break
        if not _bernoulli_real(enclose_fraction, gen):
            break
        k += 1
    return k % 2 == 1


@dataclass(frozen=True)
class _Block:
    first: int  # ℓ of the first candidate
    size: int
    power: int  # weights in the block are ≤ 2^−power


@dataclass(frozen=True, eq=False)
class LinearTailGEM:
    """GEM (exponential sampler) over ℓ = 1..m, Δ_ℓ = ℓ, with q_ℓ = value − slope·ℓ for ℓ > H.

    Parameters
    ----------
    head
        q_1..q_H.  The last one must lie on the tail's line (q_H = value − slope·H, up to
        rounding), which holds for DC(D;ℓ) − kℓ when H ≥ the largest degree; every head score
        must lie on or below the line.
    value, slope
        C and k ≥ 0 of the tail q_ℓ = C − kℓ.
    m
        The number of candidates (ℓ_max), H ≤ m ≤ 2³¹ − 1.
    epsilon, beta
        GEM's privacy parameter and failure probability (t = (2/ε)·ln(m/β)).
    """

    head: np.ndarray
    value: float
    slope: float
    m: int
    epsilon: float
    beta: float
    _t: float = field(init=False, repr=False)
    _head_scores: np.ndarray = field(init=False, repr=False)
    _blocks: tuple[_Block, ...] = field(init=False, repr=False)

    def __post_init__(self) -> None:
        q = np.asarray(self.head, dtype=np.float64)
        h = q.size
        if q.ndim != 1 or h == 0 or self.m < h:
            raise InvalidParameterError(f"need 1 <= len(head) <= m, got {h} and m={self.m}")
        line = self.value - self.slope * np.arange(1, h + 1, dtype=np.float64)
        tolerance = _LINE_TOLERANCE * (abs(self.value) + self.slope * h + 1.0)
        if self.slope < 0 or np.any(q > line + tolerance) or abs(q[-1] - line[-1]) > tolerance:
            raise InvalidParameterError(
                "the head must end on the tail's line q = value - slope*l and stay below it"
            )
        q = q.copy()
        q.flags.writeable = False
        object.__setattr__(self, "head", q)  # a private, read-only copy
        t = gem_threshold(self.m, self.epsilon, self.beta)
        object.__setattr__(self, "_t", t)
        ells = np.arange(1, h + 1, dtype=np.float64)
        if self.m > h:  # the head's scores also see candidate m (module docstring)
            ells = np.append(ells, float(self.m))
            q = np.append(q, self.value - self.slope * self.m)
        scores = shifted_normalized_scores(q - t * ells, ells)[:h]
        object.__setattr__(self, "_head_scores", scores)
        object.__setattr__(self, "_blocks", self._cut_blocks())

    # -- scores --------------------------------------------------------------------------------

    def _tail_scores(self, ells: np.ndarray) -> np.ndarray:
        """s_ℓ for tail ℓ > H: min over head j of (a_ℓ − a_j)/(ℓ + ℓ_j)."""
        h = self.head.size
        head_ells = np.arange(1, h + 1, dtype=np.float64)
        a_head = np.asarray(self.head, dtype=np.float64) - self._t * head_ells
        ell = np.asarray(ells, dtype=np.float64)[:, None]
        a = self.value - (self.slope + self._t) * ell  # a_ℓ = C − κℓ
        return ((a - a_head[None, :]) / (ell + head_ells[None, :])).min(axis=1)

    def scores(self, ells: np.ndarray) -> np.ndarray:
        """GEM's normalized scores s_ℓ at the given ℓ ∈ [1, m] (equal to the dense ones)."""
        ell = np.asarray(ells, dtype=np.int64).reshape(-1)
        if ell.size and (ell.min() < 1 or ell.max() > self.m):
            raise InvalidParameterError(f"candidates are l = 1..{self.m}")
        out = np.empty(ell.size)
        in_head = ell <= self.head.size
        out[in_head] = self._head_scores[ell[in_head] - 1]
        if np.any(~in_head):
            out[~in_head] = self._tail_scores(ell[~in_head])
        return out

    def _penalty(self, ell: int) -> float:
        return float(-self.scores(np.array([ell]))[0] * (self.epsilon / 2.0))

    # -- blocks ----------------------------------------------------------------------------------

    def _cut_blocks(self) -> tuple[_Block, ...]:
        blocks = []
        first = self.head.size + 1
        while first <= self.m:
            start = self._penalty(first)
            lo, hi = first, self.m  # the last ℓ whose penalty is ≤ start + 1 (penalty rises)
            while lo < hi:
                mid = (lo + hi + 1) // 2
                if self._penalty(mid) <= start + _BLOCK_RISE:
                    lo = mid
                else:
                    hi = mid - 1
            power = max(0, math.floor(start * (1.0 - _MARGIN) / _LN2))
            blocks.append(_Block(first, lo - first + 1, power))
            first = lo + 1
        return tuple(blocks)

    # -- sampling --------------------------------------------------------------------------------

    def sample(self, rng: RNGLike = None) -> int:
        """One ℓ̂ ∈ [1, m] with P[ℓ̂ = ℓ] ∝ exp(½·ε·s_ℓ), drawn exactly (module docstring)."""
        gen = as_generator(rng)
        h = self.head.size
        top = max((b.power for b in self._blocks), default=0)
        # Masses in units of 2^−top: a head index 2^top, a block size·2^(top − power).
        head_units = h << top
        block_units = [b.size << (top - b.power) for b in self._blocks]
        total = head_units + sum(block_units)
        gamma_head = -self._head_scores * (self.epsilon / 2.0)
        while True:
            u = uniform_below(total, gen)
            if u < head_units:
                i = u >> top
                if _bernoulli_exp_one(float(gamma_head[i]), gen):
                    return i + 1
                continue
            u -= head_units
            for block, units in zip(self._blocks, block_units, strict=True):
                if u < units:
                    ell = block.first + (u >> (top - block.power))
                    if bernoulli_exp_times_power_of_two(self._penalty(ell), block.power, gen):
                        return ell
                    break
                u -= units

    def probabilities(self) -> np.ndarray:
        """P[ℓ̂ = ℓ] for ℓ = 1..m as a dense array (tests and small m only)."""
        s = self.scores(np.arange(1, self.m + 1))
        w = np.exp((s - s.max()) * (self.epsilon / 2.0))
        return w / w.sum()
