"""Log-space counts, word-wise clipping and the ℓ2-sensitivity of the posterior mean.

Ramadan, Withers & Orr model the private counts in log space (Eq. 2), weight each word by
wᵢ = min(1, S·Nᵢ/C) (Eq. 5) and release softmax of a Gaussian around
μ_ps = ρ·w⊙x̂ + (1 − ρ)·μ_p (Corollary 1).  The noise is calibrated to

    γ = max over persons n of ‖w⊙x̂ − w₋ₙ⊙x̂₋ₙ‖₂          (Corollary 1, Appendix A)

computed either exactly for every person present (the "brute-force" method of Algorithm 1) or
bounded by Claim 1.  **Both are local sensitivities**: the maximum runs over the persons in the
data, for removal only, and Claim 1's bound depends on the data through x̂ and N.  Neither gives
a worst-case differential-privacy guarantee; see docs/algorithms.md §7.

Examples
--------
>>> import numpy as np
>>> centered_log(np.array([0.0, np.e - 1])).tolist()
[-0.5, 0.5]
>>> clip_weights(np.array([0.0, 1.0, 5.0]), clip_slope=0.5, max_count=1).tolist()
[0.0, 0.5, 1.0]
"""

from __future__ import annotations

import numpy as np

from mechanisms.bayesian_ngrams._data import PrivateCounts, word_totals

__all__ = [
    "brute_force_sensitivity",
    "centered_log",
    "claim1_bound",
    "clip_weights",
    "removal_sensitivities",
]


def centered_log(counts: np.ndarray) -> np.ndarray:
    """log(c + 1) minus its mean over the vocabulary (Eq. 1 for α, Eq. 2 for c).

    The +1 keeps words with count 0 finite (the paper's remark under Eq. 1).
    """
    a = np.log1p(np.asarray(counts, dtype=np.float64))
    return a - a.mean()


def clip_weights(holders: np.ndarray, clip_slope: float, max_count: float) -> np.ndarray:
    """Word-wise clipping weights wᵢ = min(1, S·Nᵢ/C) (Eq. 5).

    Words held by few persons get small weights: their mass then comes from the public prior.
    """
    return np.minimum(1.0, clip_slope * np.asarray(holders, dtype=np.float64) / max_count)


def removal_sensitivities(pc: PrivateCounts, clip_slope: float, max_count: float) -> np.ndarray:
    """‖w⊙x̂ − w₋ₙ⊙x̂₋ₙ‖₂ for every person n of the graph, in O(number of pairs).

    Parameters
    ----------
    pc
        Clamped per-person counts over the vocabulary.
    clip_slope, max_count
        S and C of Eq. 5 (see :func:`~mechanisms.bayesian_ngrams.bayesian_dp`).

    Returns
    -------
    numpy.ndarray
        One value per person id (0 for persons without in-vocabulary n-grams).

    Notes
    -----
    Algorithm 1 writes the change as w⊙Δx̂ + (S/C)·𝟙(Δcⁿ > 0)⊙x̂₋ₙ, the rearrangement of
    Appendix A; that rearrangement is exact only where S·(Nᵢ − 1)/C ≤ 1 − S/C.  We evaluate the
    left-hand side of Corollary 1 directly instead, which is the quantity the Gaussian
    mechanism needs.  Let T be the words of person n, aᵢ = log(cᵢ + 1), a'ᵢ = log(cᵢ − Δcᵢⁿ + 1)
    and s = (1/|𝒱|)·Σ_{i∈T}(aᵢ − a'ᵢ) the drop of the mean.  Off T only the mean moves and the
    weights stay, so each such coordinate changes by −wᵢ·s and

        ‖Δ‖² = Σ_{i∈T} (wᵢx̂ᵢ − w'ᵢx̂'ᵢ)² + s²·(Σ_{all i} wᵢ² − Σ_{i∈T} wᵢ²),

    with w'ᵢ = min(1, S·(Nᵢ − 1)/C) and x̂'ᵢ = a'ᵢ − ā + s: O(``|T|``) per person, O(pairs) in total,
    the cost the paper states for the brute-force method.
    """
    c, holders = word_totals(pc)
    size = pc.n_words
    a = np.log1p(c)
    a_mean = a.mean()
    w = clip_weights(holders, clip_slope, max_count)
    i, person = pc.word, pc.person
    # c_i − Δc_i ≥ 0 exactly for integer counts; the maximum guards float round-off.
    a_without = np.log1p(np.maximum(c[i] - pc.count, 0.0))
    shift = np.bincount(person, weights=a[i] - a_without, minlength=pc.n_persons) / size
    w_without = clip_weights(holders[i] - 1.0, clip_slope, max_count)
    x = a[i] - a_mean
    x_without = a_without - a_mean + shift[person]
    own = np.bincount(
        person, weights=(w[i] * x - w_without * x_without) ** 2, minlength=pc.n_persons
    )
    held_weight = np.bincount(person, weights=w[i] ** 2, minlength=pc.n_persons)
    rest = np.maximum(float(np.dot(w, w)) - held_weight, 0.0)
    return np.sqrt(own + shift**2 * rest)


def brute_force_sensitivity(pc: PrivateCounts, clip_slope: float, max_count: float) -> float:
    """γ by the brute-force method of Algorithm 1: the largest change over persons present.

    This is a **local** sensitivity (removal of a person in the data); it says nothing about
    a person who could be added.

    Examples
    --------
    >>> import numpy as np
    >>> from mechanisms.bayesian_ngrams._data import PrivateCounts
    >>> pc = PrivateCounts(np.array([0, 1, 1]), np.array([0, 0, 1]), np.ones(3), 2, 3)
    >>> round(brute_force_sensitivity(pc, clip_slope=1.0, max_count=1), 6)
    0.302216
    """
    values = removal_sensitivities(pc, clip_slope, max_count)
    return float(values.max(initial=0.0))


def claim1_bound(
    pc: PrivateCounts, clip_slope: float, max_count: float, *, as_published: bool = False
) -> float:
    """γ bounded by Claim 1: ‖w⊙L·C + d⊙|x̂|‖₂ with Lᵢ = (1 − 1/|𝒱|)/Nᵢ + Σ_{j≠i} 1/(|𝒱|Nⱼ).

    Parameters
    ----------
    pc
        Clamped per-person counts (every count ≤ C).
    clip_slope, max_count
        S and C of Eq. 5 (see :func:`~mechanisms.bayesian_ngrams.bayesian_dp`).
    as_published
        Use the paper's weight drop d = (S/C)·𝟙(N ≤ C/S).  It misses the words with
        C/S < Nᵢ < C/S + 1, whose weight still drops by 1 − S(Nᵢ − 1)/C when a holder leaves,
        and can then fall below the true sensitivity (see the tests).  The default uses the
        exact drop dᵢ = min(1, SNᵢ/C) − min(1, S(Nᵢ − 1)/C) ≤ S/C.  Only for comparisons.

    Notes
    -----
    Proof of Claim 1 (Appendix B) with two corrections [derived]: the weight drop above, and
    1/Nⱼ := 0 for words no one holds (Nⱼ = 0; their counts cannot change when a person is
    removed, whereas the printed Lᵢ would be infinite).  Lemma 1 needs cⱼ − Δcⱼⁿ ≥ Nⱼ − 1,
    true because every holder's clamped count is ≥ 1 (C ≥ 1).  The bound is still **data
    dependent** (through x̂ and N) and holds for removals only; it is no worst-case guarantee.

    Examples
    --------
    >>> import numpy as np
    >>> from mechanisms.bayesian_ngrams._data import PrivateCounts
    >>> pc = PrivateCounts(np.array([0, 1, 1]), np.array([0, 0, 1]), np.ones(3), 2, 3)
    >>> claim1_bound(pc, 1.0, 1) >= brute_force_sensitivity(pc, clip_slope=1.0, max_count=1)
    True
    """
    S, C = clip_slope, max_count  # the paper's symbols, as in the formulas above
    c, holders = word_totals(pc)
    size = pc.n_words
    x_hat = centered_log(c)
    w = clip_weights(holders, S, C)
    inv = np.divide(1.0, holders, out=np.zeros(size), where=holders > 0)
    lipschitz = (1.0 - 1.0 / size) * inv + (inv.sum() - inv) / size  # Lemma 1
    if as_published:
        drop = (S / C) * (holders <= C / S)
    else:
        drop = w - clip_weights(np.maximum(holders - 1.0, 0.0), S, C)
    return float(np.linalg.norm(w * lipschitz * C + drop * np.abs(x_hat)))
