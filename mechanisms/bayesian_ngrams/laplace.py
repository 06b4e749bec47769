"""The two Laplace baselines of Ramadan, Withers & Orr §4.2.

1. :func:`laplace_ngrams` — each person's counts over the public vocabulary are capped at a
   total of W, Laplace noise of scale W/ε is added to every word count, negative values are
   set to 0 and the result is normalised.  ε-DP in the worst case (add/remove one person;
   the vocabulary is public).
2. :func:`laplace_ngrams_public` — the "modified Laplace mechanism that utilises public
   counts": max[Σₙ wₙ(Δc̃ⁿ − α̃) + e + α̃, 0], renormalised, with α̃ the normalised public
   counts, Δc̃ⁿ person n's normalised counts and wₙ = ‖Δcⁿ‖₁/‖c‖₁.  It equals baseline 1 with
   twice the noise scale (docs/algorithms.md §7), so it is worst-case DP as well.

Counts stay integers: the paper does not say how the cap W is enforced; we scale a person's
counts down to W in proportion and round down, handing the remaining units to the largest
remainders (:func:`cap_contributions`; a per-person rule, so the ℓ1 contribution is ≤ W)
**[open]**.  The noise is exact discrete Laplace by default (``noise="exact"``); ``"float"``
adds NumPy Laplace noise for Monte-Carlo sweeps (warns, ``secure=False``).

Examples
--------
>>> from dpcount import PersonItemGraph
>>> g = PersonItemGraph.from_sets({f"u{k}": {"a": 3, "b": 1} for k in range(500)})
>>> r = laplace_ngrams(g, {"a": 1, "b": 1, "c": 1}, epsilon=1.0, max_contribution=4, rng=0)
>>> r.labels.tolist(), [round(p, 2) for p in r.probabilities.tolist()], r.secure
(['a', 'b', 'c'], [0.75, 0.25, 0.0], True)
"""

from __future__ import annotations

import numpy as np

from dpcount.common.rng import RNGLike, as_generator
from dpcount.errors import DataError
from dpcount.graph import PersonItemGraph
from dpcount.validation import check_choice, check_epsilon, check_positive_int
from mechanisms.accounting import NoiseCurve, PrivacyLoss
from mechanisms.bayesian_ngrams._data import (
    PrivateCounts,
    PublicCounts,
    private_counts,
    public_vocabulary,
)
from mechanisms.bayesian_ngrams.result import WORST_CASE, LaplaceNgramResult
from mechanisms.declaration import register
from mechanisms.laplace import laplace_scale
from mechanisms.noise import NoiseMode, discrete_laplace, warn_unsafe

__all__ = [
    "MAX_CONTRIBUTION",
    "cap_contributions",
    "laplace_ngrams",
    "laplace_ngrams_loss",
    "laplace_ngrams_public",
    "laplace_ngrams_public_loss",
    "threshold_normalise",
]

NOISE_MODES = ("exact", "float")
#: Largest cap W: counts times W stay within 64-bit integers (2³¹ · 2³¹ = 2⁶²).
MAX_CONTRIBUTION = 2**31


def cap_contributions(pc: PrivateCounts, max_contribution: int) -> PrivateCounts:
    """Integer counts with each person's total at most W: scaled down in proportion, rounded.

    A person whose total T exceeds W keeps ⌊c·W/T⌋ of each count c, and the W − Σ⌊c·W/T⌋
    units left over go to their largest remainders (ties: the lower word id) — the largest
    remainder rule, so the total is exactly W and no count grows.  A per-person rule: adding or
    removing a person moves the capped counts by at most W in ℓ1.  Counts are first clamped
    to W (a single count above W could not survive anyway), which keeps c·W below 2⁶².

    Examples
    --------
    >>> import numpy as np
    >>> pc = PrivateCounts(np.array([0, 0, 0, 1]), np.array([0, 1, 2, 0]),
    ...                    np.array([3., 2., 1., 2.]), 2, 3)
    >>> cap_contributions(pc, 4).count.tolist()  # 12/6, 8/6, 4/6 → 2, 1, 0; +1 to 4/6
    [2.0, 1.0, 1.0, 2.0]
    """
    cap = check_positive_int(max_contribution, "max_contribution", maximum=MAX_CONTRIBUTION)
    counts = np.minimum(pc.count, float(cap)).astype(np.int64)  # integer-valued floats
    totals = np.zeros(pc.n_persons, dtype=np.int64)
    np.add.at(totals, pc.person, counts)
    total = totals[pc.person]
    over = total > cap
    shares = np.where(over, counts * cap // np.maximum(total, 1), counts)
    remainders = np.where(over, counts * cap % np.maximum(total, 1), 0)
    left = np.zeros(pc.n_persons, dtype=np.int64)
    np.add.at(left, pc.person, shares)
    left = np.where(totals > cap, cap - left, 0)  # units still to hand out, per person
    # Rank each pair within its person by remainder (descending, then word id ascending).
    order = np.lexsort((pc.word, -remainders, pc.person))
    starts = np.searchsorted(pc.person[order], pc.person[order], side="left")
    rank = np.arange(order.size) - starts
    bonus = np.zeros(order.size, dtype=np.int64)
    bonus[order] = rank < left[pc.person[order]]
    capped = (shares + bonus).astype(np.float64)
    return PrivateCounts(pc.person, pc.word, capped, pc.n_persons, pc.n_words)


def word_counts(pc: PrivateCounts) -> np.ndarray:
    """Σ over persons of each word's (integer) count, as int64.

    Examples
    --------
    >>> import numpy as np
    >>> pc = PrivateCounts(np.array([0, 1]), np.array([1, 1]), np.array([2., 3.]), 2, 3)
    >>> word_counts(pc).tolist()
    [0, 5, 0]
    """
    c = np.zeros(pc.n_words, dtype=np.int64)
    np.add.at(c, pc.word, pc.count.astype(np.int64))
    return c


def noisy_counts(
    c: np.ndarray, scale_numerator: int, epsilon: float, noise: str, rng: RNGLike
) -> tuple[np.ndarray, float, bool]:
    """c + noise of scale Δ/ε (Δ = ``scale_numerator``): (noisy counts, scale, secure).

    Exact: discrete Laplace of the scale rounded up to a multiple of 2⁻³²
    (:func:`mechanisms.laplace.laplace_scale`), integers throughout.  Float: NumPy Laplace.
    """
    if noise == "exact":
        scale = laplace_scale(scale_numerator, epsilon)
        z = np.asarray(discrete_laplace(scale, rng=rng, size=c.size))
        noisy = np.asarray(c, dtype=object) + z if z.dtype == object else c + z
        return np.asarray(noisy, dtype=np.float64), float(scale), True
    scale_f = scale_numerator / epsilon
    return c + as_generator(rng).laplace(0.0, scale_f, c.size), scale_f, False


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


def laplace_ngrams_loss(
    epsilon: float, *, max_contribution: int, noise: NoiseMode = "exact"
) -> PrivacyLoss:
    """The privacy loss of :func:`laplace_ngrams` from its parameters alone: pure ε-DP.

    Examples
    --------
    >>> laplace_ngrams_loss(1.0, max_contribution=4)
    PrivacyLoss(epsilon=1, delta=0, 'Laplace n-gram counts (Ramadan et al. §4.2, 1)')
    """
    cap = check_positive_int(max_contribution, "max_contribution", maximum=MAX_CONTRIBUTION)
    eps = check_epsilon(epsilon)
    check_choice(noise, "noise", NOISE_MODES)
    # (Discrete) Laplace of scale W/ε on an ℓ1-sensitivity W.
    if noise == "exact":
        curve = NoiseCurve("discrete_laplace", float(laplace_scale(cap, eps)), float(cap))
    else:
        curve = NoiseCurve("laplace", cap / eps, float(cap))
    return PrivacyLoss(eps, 0.0, "Laplace n-gram counts (Ramadan et al. §4.2, 1)", curve=curve)


def laplace_ngrams_public_loss(
    epsilon: float, *, max_contribution: int, noise: NoiseMode = "exact"
) -> PrivacyLoss:
    """The loss of :func:`laplace_ngrams_public`: ε-DP in the worst case (ε/2 in fact).

    Examples
    --------
    >>> laplace_ngrams_public_loss(1.0, max_contribution=3).worst_case
    True
    """
    check_positive_int(max_contribution, "max_contribution", maximum=MAX_CONTRIBUTION)
    eps = check_epsilon(epsilon)
    check_choice(noise, "noise", NOISE_MODES)
    return PrivacyLoss(
        eps,
        0.0,
        "Laplace n-gram distribution with public data (Ramadan et al. §4.2, 2): the plain "
        "baseline at scale 2W/epsilon, worst-case epsilon/2-DP, recorded as epsilon",
    )


# In a session, data that share nothing with the vocabulary release zero counts: whether they
# overlap is private.
@register(
    family="ngrams",
    loss=laplace_ngrams_loss,
    inputs=("public_counts",),
    session={"require_overlap": False, "noise": "exact"},
)
def laplace_ngrams(
    graph: PersonItemGraph,
    public_counts: PublicCounts,
    epsilon: float,
    *,
    max_contribution: int,
    noise: NoiseMode = "exact",
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
        W ≥ 1 (at most 2³¹): each person's total count over the vocabulary is scaled down to
        at most W, in integers (:func:`cap_contributions`).
    noise
        ``"exact"`` discrete Laplace (default, ``secure=True``) or ``"float"`` NumPy Laplace
        for Monte-Carlo sweeps (warns :class:`~dpcount.errors.UnsafeNoiseWarning`).
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
    person changes the capped integer count vector by at most W in ℓ1, so discrete Laplace
    noise of scale ≥ W/ε on every word of the public vocabulary (Canonne, Kamath & Steinke
    2020, Algorithm 2) is ε-DP in the worst case; thresholding and normalising are
    post-processing.

    Examples
    --------
    >>> from dpcount import PersonItemGraph
    >>> g = PersonItemGraph.from_pairs(["u", "v"], ["a", "b"], counts=[2, 1])
    >>> r = laplace_ngrams(g, {"a": 0, "b": 0}, 1.0, max_contribution=2, rng=0)
    >>> r.scale, r.worst_case_dp, r.privacy_loss.epsilon, r.secure
    (2.0, True, 1.0, True)
    """
    eps = check_epsilon(epsilon)
    cap = check_positive_int(max_contribution, "max_contribution", maximum=MAX_CONTRIBUTION)
    check_choice(noise, "noise", NOISE_MODES)
    vocab = public_vocabulary(public_counts)
    counts = private_counts(graph, vocab, require_overlap=require_overlap)
    c = word_counts(cap_contributions(counts, cap))
    if noise == "float":
        warn_unsafe("laplace_ngrams")
    noisy, scale, secure = noisy_counts(c, cap, eps, noise, rng)
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
        privacy_loss=laplace_ngrams_loss(eps, max_contribution=cap, noise=noise),
        guarantee=WORST_CASE,
        secure=secure,
    )


@register(
    family="ngrams",
    loss=laplace_ngrams_public_loss,
    inputs=("public_counts",),
    session={"require_overlap": False, "noise": "exact"},
)
def laplace_ngrams_public(
    graph: PersonItemGraph,
    public_counts: PublicCounts,
    epsilon: float,
    *,
    max_contribution: int,
    noise: NoiseMode = "exact",
    rng: RNGLike = None,
    require_overlap: bool = True,
) -> LaplaceNgramResult:
    """The Laplace baseline with public data (§4.2, item 2), in its equivalent integer form.

    Parameters
    ----------
    graph, epsilon, max_contribution, noise, rng, require_overlap
        As for :func:`laplace_ngrams`.
    public_counts
        The vocabulary and the public counts α (their sum must be > 0).

    Returns
    -------
    LaplaceNgramResult
        ``guarantee = "worst-case DP (add/remove one person)"``; ``scale`` = 2W/ε and
        ``sensitivity`` = 2W, the calibration of the equivalent form.

    Raises
    ------
    DataError
        All public counts are 0 (a check of the public input only).

    Notes
    -----
    As printed: max[Σₙ wₙ(Δc̃ⁿ − α̃) + e + α̃, 0] renormalised, e ~ Lap(Δ₁/ε) per word, with
    Δ₁ left open by the paper; one person moves c/T by at most 2W/T in ℓ1 (T the private
    total after the cap) **[derived]**, so Δ₁ = 2W/T.  Because the weights wₙ = tₙ/T sum to
    1, Σₙ wₙ(Δc̃ⁿ − α̃) = c/T − α̃ and the public term cancels: the output is max(c/T + e, 0)
    renormalised.  Multiplying by T > 0 changes nothing after normalisation, and T·e ~
    Lap(2W/ε): the release has exactly the distribution of max(c + e', 0) renormalised with
    e' ~ Lap(2W/ε) — the plain baseline (:func:`laplace_ngrams`) with twice its noise scale,
    which is worst-case (ε/2)-DP since c has ℓ1-sensitivity W (docs/algorithms.md §7).  dpcount
    releases it in that form: integer counts, exact discrete Laplace noise of scale 2W/ε, no
    division by the private T (so no failure when T = 0), and records ε.  The paper reports this
    baseline doing better than the plain one, so the authors may have done something they did
    not describe **[open]**.

    Examples
    --------
    >>> from dpcount import PersonItemGraph
    >>> g = PersonItemGraph.from_sets({f"u{k}": {"a": 3, "b": 1} for k in range(500)})
    >>> r = laplace_ngrams_public(g, {"a": 1, "b": 1, "c": 2}, 1.0, max_contribution=4, rng=0)
    >>> r.sensitivity, r.scale, r.guarantee, r.secure
    (8.0, 8.0, 'worst-case DP (add/remove one person)', True)
    """
    eps = check_epsilon(epsilon)
    cap = check_positive_int(max_contribution, "max_contribution", maximum=MAX_CONTRIBUTION)
    check_choice(noise, "noise", NOISE_MODES)
    vocab = public_vocabulary(public_counts)
    if not vocab.counts.sum() > 0:
        raise DataError("laplace_ngrams_public needs public counts with a positive total")
    counts = private_counts(graph, vocab, require_overlap=require_overlap)
    c = word_counts(cap_contributions(counts, cap))
    if noise == "float":
        warn_unsafe("laplace_ngrams_public")
    noisy, scale, secure = noisy_counts(c, 2 * cap, eps, noise, rng)
    theta = threshold_normalise(noisy)
    theta.flags.writeable = False
    return LaplaceNgramResult(
        labels=vocab.labels,
        probabilities=theta,
        mechanism="laplace_ngrams_public",
        epsilon=eps,
        scale=scale,
        sensitivity=2.0 * cap,
        max_contribution=cap,
        privacy_loss=laplace_ngrams_public_loss(eps, max_contribution=cap, noise=noise),
        guarantee=WORST_CASE,
        secure=secure,
    )
