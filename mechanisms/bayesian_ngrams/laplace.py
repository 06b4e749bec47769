"""The two Laplace baselines of Ramadan, Withers & Orr §4.2.

1. :func:`laplace_ngrams` — each person's counts over the public vocabulary are capped at a
   total of W, Laplace noise of scale W/ε is added to every word count, negative values are
   set to 0 and the result is normalised.  ε-DP in the worst case (add/remove one person;
   the vocabulary is public).
2. :func:`laplace_ngrams_public` — the "modified Laplace mechanism that utilises public
   counts": max[Σₙ wₙ(Δc̃ⁿ − α̃) + e + α̃, 0], renormalised, with α̃ the normalised public
   counts, Δc̃ⁿ person n's normalised counts and wₙ = ‖Δcⁿ‖₁/‖c‖₁.

The paper does not say how the cap W is enforced; we scale a person's counts down
proportionally when their total exceeds W (a per-person rule, so the ℓ1 contribution is ≤ W)
**[open]**.

Examples
--------
>>> from dpcount import PersonItemGraph
>>> g = PersonItemGraph.from_sets({f"u{k}": {"a": 3, "b": 1} for k in range(500)})
>>> r = laplace_ngrams(g, {"a": 1, "b": 1, "c": 1}, epsilon=1.0, max_contribution=4, rng=0)
>>> r.labels.tolist(), [round(p, 2) for p in r.probabilities.tolist()]
(['a', 'b', 'c'], [0.75, 0.25, 0.0])
"""

from __future__ import annotations

import warnings

import numpy as np

from dpcount.common.rng import RNGLike, as_generator
from dpcount.errors import DataError, PrivacyLeakWarning
from dpcount.graph import PersonItemGraph
from dpcount.validation import check_epsilon, check_positive_int
from mechanisms.accounting import NoiseCurve, PrivacyLoss
from mechanisms.bayesian_ngrams._data import (
    PrivateCounts,
    PublicCounts,
    private_counts,
    public_vocabulary,
)
from mechanisms.bayesian_ngrams.result import LOCAL_SENSITIVITY, WORST_CASE, LaplaceNgramResult
from mechanisms.declaration import register
from mechanisms.noise import warn_unsafe

__all__ = [
    "laplace_ngrams",
    "laplace_ngrams_loss",
    "laplace_ngrams_public",
    "laplace_ngrams_public_loss",
    "rescale_contributions",
    "threshold_normalise",
]


def rescale_contributions(pc: PrivateCounts, max_contribution: float) -> PrivateCounts:
    """Scale each person's counts by min(1, W/total) so that their ℓ1 total is at most W.

    Examples
    --------
    >>> import numpy as np
    >>> pc = PrivateCounts(np.array([0, 0, 1]), np.array([0, 1, 0]), np.array([6., 2., 1.]), 2, 2)
    >>> rescale_contributions(pc, 4).count.tolist()
    [3.0, 1.0, 1.0]
    """
    totals = np.bincount(pc.person, weights=pc.count, minlength=pc.n_persons)
    factor = np.minimum(1.0, max_contribution / np.maximum(totals, 1e-300))
    return PrivateCounts(pc.person, pc.word, pc.count * factor[pc.person], pc.n_persons, pc.n_words)


def threshold_normalise(values: np.ndarray) -> np.ndarray:
    """max(values, 0) normalised to sum 1; the uniform distribution if nothing is positive.

    Examples
    --------
    >>> threshold_normalise(np.array([2.0, -1.0, 2.0])).tolist()
    [0.5, 0.0, 0.5]
    >>> threshold_normalise(np.array([-2.0, -1.0])).tolist()
    [0.5, 0.5]
    """
    positive = np.maximum(values, 0.0)
    total = positive.sum()
    if not total > 0:
        return np.full(values.size, 1.0 / values.size)
    return positive / total


def laplace_ngrams_loss(epsilon: float, *, max_contribution: int) -> PrivacyLoss:
    """The privacy loss of :func:`laplace_ngrams` from its parameters alone: pure ε-DP.

    Examples
    --------
    >>> laplace_ngrams_loss(1.0, max_contribution=4)
    PrivacyLoss(epsilon=1, delta=0, 'Laplace n-gram counts (Ramadan et al. §4.2, 1)')
    """
    cap = check_positive_int(max_contribution, "max_contribution")
    eps = check_epsilon(epsilon)
    curve = NoiseCurve("laplace", cap / eps, float(cap))  # Lap(W/ε) on an ℓ1-sensitivity W
    return PrivacyLoss(eps, 0.0, "Laplace n-gram counts (Ramadan et al. §4.2, 1)", curve=curve)


def laplace_ngrams_public_loss(epsilon: float) -> PrivacyLoss:
    """The nominal loss of :func:`laplace_ngrams_public` (local sensitivity: not worst-case DP)."""
    return PrivacyLoss(
        check_epsilon(epsilon),
        0.0,
        "Laplace n-gram distribution with public data (Ramadan et al. §4.2, 2); NOMINAL: "
        "local sensitivity 2W/T, not worst-case DP",
        worst_case=False,
    )


# In a session, data that share nothing with the vocabulary release zero counts: whether they
# overlap is private.
@register(
    family="ngrams",
    loss=laplace_ngrams_loss,
    inputs=("public_counts",),
    session={"require_overlap": False},
)
def laplace_ngrams(
    graph: PersonItemGraph,
    public_counts: PublicCounts,
    epsilon: float,
    *,
    max_contribution: int,
    rng: RNGLike = None,
    require_overlap: bool = True,
) -> LaplaceNgramResult:
    """The standard Laplace baseline (§4.2, item 1): noisy capped counts, thresholded at 0.

    Parameters
    ----------
    graph
        Persons and their n-gram counts (``graph.counts`` required).
    public_counts
        Only its labels are used: they are the output vocabulary (private n-grams outside it
        are dropped).
    epsilon
        ε > 0.
    max_contribution
        W ≥ 1: each person's total count over the vocabulary is scaled down to at most W.
    rng
        Randomness per docs/concepts.md.
    require_overlap
        Refuse data that share no n-gram with the vocabulary (default; usually a tokenizer
        mismatch).  ``False`` releases the noise of all-zero counts instead, as a
        :class:`~mechanisms.Session` does: whether the data overlap is itself private.

    Returns
    -------
    LaplaceNgramResult
        A distribution over the public vocabulary (uniform if every noisy count is ≤ 0).

    Notes
    -----
    Ramadan et al. §4.2 baseline 1 (Dwork & Roth's Laplace mechanism).  Removing or adding a
    person changes the capped count vector by at most W in ℓ1, so noise Lap(W/ε) on every
    word of the public vocabulary is ε-DP in the worst case; thresholding and normalising are
    post-processing.  Floating-point noise (NumPy), as in the paper: ``secure=False`` and an
    :class:`~dpcount.errors.UnsafeNoiseWarning`.

    Examples
    --------
    >>> from dpcount import PersonItemGraph
    >>> g = PersonItemGraph.from_pairs(["u", "v"], ["a", "b"], counts=[2, 1])
    >>> r = laplace_ngrams(g, {"a": 0, "b": 0}, 1.0, max_contribution=2, rng=0)
    >>> r.scale, r.worst_case_dp, r.privacy_loss.epsilon
    (2.0, True, 1.0)
    """
    eps = check_epsilon(epsilon)
    cap = check_positive_int(max_contribution, "max_contribution")
    vocab = public_vocabulary(public_counts)
    counts = private_counts(graph, vocab, require_overlap=require_overlap)
    pc = rescale_contributions(counts, cap)
    warn_unsafe("laplace_ngrams", "NumPy Laplace noise")
    c = np.bincount(pc.word, weights=pc.count, minlength=pc.n_words)
    scale = cap / eps
    noisy = c + as_generator(rng).laplace(0.0, scale, c.size)
    theta = threshold_normalise(noisy)
    theta.flags.writeable = False
    return LaplaceNgramResult(
        labels=vocab.labels,
        probabilities=theta,
        mechanism="laplace_ngrams",
        epsilon=eps,
        scale=scale,
        sensitivity=float(cap),
        max_contribution=cap,
        privacy_loss=laplace_ngrams_loss(eps, max_contribution=cap),
        guarantee=WORST_CASE,
    )


@register(family="ngrams", loss=laplace_ngrams_public_loss, inputs=("public_counts",), nominal=True)
def laplace_ngrams_public(
    graph: PersonItemGraph,
    public_counts: PublicCounts,
    epsilon: float,
    *,
    max_contribution: int,
    rng: RNGLike = None,
) -> LaplaceNgramResult:
    """The Laplace baseline with public data (§4.2, item 2).

    Parameters
    ----------
    graph, epsilon, max_contribution, rng
        As for :func:`laplace_ngrams`.
    public_counts
        The vocabulary and the public counts α (their sum must be > 0).

    Returns
    -------
    LaplaceNgramResult
        ``guarantee = "local sensitivity (not worst-case DP)"``.

    Raises
    ------
    DataError
        All public counts are 0, or the capped private total is 0.

    Warns
    -----
    PrivacyLeakWarning
        The sensitivity depends on the private total count.

    Notes
    -----
    Output max[Σₙ wₙ(Δc̃ⁿ − α̃) + e + α̃, 0], renormalised, e ~ Lap(Δ₁/ε) per word.  The paper
    leaves Δ₁ ("the ℓ1-sensitivity of the modified mechanism") open.  With T = ‖c‖₁ after the
    cap, Σₙ wₙ(Δc̃ⁿ − α̃) = c/T − α̃, and one person with total t ≤ W moves c/T by at most
    2t/T ≤ 2W/T in ℓ1 (removal; adding gives 2t/(T + t)) **[derived]**, so Δ₁ = 2W/T.
    T is private: this is a **local** sensitivity.

    Because the weights wₙ sum to 1, the public term cancels before the threshold:
    the output is max(c/T + e, 0) renormalised, i.e. the plain baseline with about twice its
    relative noise.  This is the formula as printed; the paper reports this baseline doing
    better than the plain one, so the authors may have done something they did not describe
    **[open]**.

    Examples
    --------
    >>> import warnings
    >>> from dpcount import PersonItemGraph
    >>> g = PersonItemGraph.from_sets({f"u{k}": {"a": 3, "b": 1} for k in range(500)})
    >>> with warnings.catch_warnings():
    ...     warnings.simplefilter("ignore")
    ...     r = laplace_ngrams_public(g, {"a": 1, "b": 1, "c": 2}, 1.0, max_contribution=4, rng=0)
    >>> round(r.sensitivity, 6), r.guarantee
    (0.004, 'local sensitivity (not worst-case DP)')
    """
    eps = check_epsilon(epsilon)
    cap = check_positive_int(max_contribution, "max_contribution")
    vocab = public_vocabulary(public_counts)
    if not vocab.counts.sum() > 0:
        raise DataError("laplace_ngrams_public needs public counts with a positive total")
    pc = rescale_contributions(private_counts(graph, vocab), cap)
    totals = np.bincount(pc.person, weights=pc.count, minlength=pc.n_persons)
    total = float(totals.sum())
    if not total > 0:
        raise DataError("the private counts over the public vocabulary sum to 0")
    public = vocab.counts / vocab.counts.sum()  # α̃
    # Σₙ wₙ(Δc̃ⁿ − α̃) with wₙ = tₙ/T and Δc̃ⁿ = Δcⁿ/tₙ, written out as printed (§4.2).
    person_weight = totals / total
    normalised = pc.count / np.maximum(totals[pc.person], 1e-300)
    centred = (
        np.bincount(pc.word, weights=person_weight[pc.person] * normalised, minlength=pc.n_words)
        - person_weight.sum() * public
    )
    sensitivity = 2.0 * cap / total
    warnings.warn(
        "laplace_ngrams_public calibrates its noise to 2W/T with T the private total count: "
        "a local sensitivity, not a worst-case DP guarantee",
        PrivacyLeakWarning,
        stacklevel=2,
    )
    warn_unsafe("laplace_ngrams_public", "NumPy Laplace noise")
    scale = sensitivity / eps
    noisy = centred + as_generator(rng).laplace(0.0, scale, centred.size) + public
    theta = threshold_normalise(noisy)
    theta.flags.writeable = False
    return LaplaceNgramResult(
        labels=vocab.labels,
        probabilities=theta,
        mechanism="laplace_ngrams_public",
        epsilon=eps,
        scale=scale,
        sensitivity=sensitivity,
        max_contribution=cap,
        privacy_loss=laplace_ngrams_public_loss(eps),
        guarantee=LOCAL_SENSITIVITY,
    )
