"""Seeded synthetic person–item data: heavy-tailed degrees, Zipf items and a tail of rare ones.

:func:`synthetic` is the generator; :func:`reddit_like` and :func:`fashion_like` are presets
calibrated to the Reddit and Amazon Fashion data sets of the distinct-count and set-union
papers – their sizes, and the shape of their DC(D;ℓ) curves – so benchmarks can run on data
like them without the original data.

Examples
--------
>>> g = synthetic(100, 50, degree_median=4, degree_max=20, zipf_exponent=1.0, seed=1)
>>> g.n_persons, int(g.degrees().max()), int(g.degrees().min())
(100, 20, 1)
>>> g == synthetic(100, 50, degree_median=4, degree_max=20, zipf_exponent=1.0, seed=1)
True
"""

from __future__ import annotations

import math
from statistics import NormalDist

import numpy as np

from dpcount.errors import InvalidParameterError
from dpcount.graph import PersonItemGraph, graph_from_codes
from dpcount.validation import MAX_ITEMS, check_positive_int

__all__ = ["fashion_like", "reddit_like", "synthetic"]

# Reddit-like preset (Gopi et al. 2020; Knop & Steinke 2023, Tables 3 and 6): 223,388 persons,
# ~7.1M distinct pairs, ~102.8k distinct items, median degree 18, max degree 1,724.  The tail
# (about 18k of the 80k tail items are drawn, mostly by one heavy person each) is calibrated to
# the paper's curve (seeds 0-2): DC(D;ℓ) is 6-7% below DC(D) at ℓ = 1, 0.3-0.5% below at
# ℓ ≈ 15-25 and 0.1-0.2% below at ℓ ≈ 30; sampling ℓ = 96 items per person loses ~7% (paper
# 7%); GEM (ε = 1, β = 0.05, ℓ_max = 100) picks ℓ̂ with median ≈ 22 (paper 18.5) and the
# non-private "Max Utility" ℓ is 35-40 (paper 32).
_REDDIT = {
    "n_persons": 223_388,
    "n_items": 164_700,  # 84.7k head items (all drawn) + 80k tail items (~18k drawn)
    "degree_median": 18,
    "degree_mean": 31.8,  # 7.1M pairs / 223k persons
    "degree_max": 1_724,
    "zipf_exponent": 1.0,
    "tail_items": 80_000,
    "tail_share": 0.05,  # 5% of the heaviest person's items are rare, 0.5% at degree 172
    "tail_exponent": 1.0,
}
# Fashion-like preset (Amazon Fashion 5-core; Knop & Steinke, Tables 3 and 4): 404 persons,
# ~8.5k pairs, ~1.45k items, median 14, max 139.  Most of the vocabulary is rare: ~1.1k of the
# 1.45k items come from the tail.  Calibrated (mean of seeds 0-5) to the paper's curve:
# DC(D)-DC(D;ℓ) ≈ 186/124/46/24 at ℓ = 7/9/14/17 (paper 198/133/50/22), sampling loses
# 50/34/20/12% at ℓ = 9/16/28/41 (paper 54/39/23/13%), GEM picks ℓ̂ ≈ 9 (paper 9).
_FASHION = {
    "n_persons": 404,
    "n_items": 1_930,  # 330 head items + 1,600 tail items; about 1.45k are drawn
    "degree_median": 14.5,  # the rounded degrees then have median 14
    "degree_mean": 22.0,
    "degree_max": 139,
    "zipf_exponent": 1.0,
    "tail_items": 1_600,
    "tail_share": 0.5,
    "tail_exponent": 0.6,
}
_TOP_UP_ROUNDS = 64  # rounds of re-drawing duplicates before filling the rest uniformly


def synthetic(
    n_persons: int,
    n_items: int,
    *,
    degree_median: float,
    degree_max: int,
    zipf_exponent: float,
    seed: int | np.random.Generator = 0,
    degree_mean: float | None = None,
    tail_items: int = 0,
    tail_share: float = 0.0,
    tail_exponent: float = 1.0,
) -> PersonItemGraph:
    """A random person–item graph: log-normal degrees, Zipf items and a tail of rare items.

    Parameters
    ----------
    n_persons
        Number of persons (labels ``0 .. n_persons-1``).
    n_items
        Size of the item universe (labels ``0 .. n_items-1``), tail included; items nobody
        draws are absent, so the graph usually has fewer distinct items.
    degree_median
        Median number of distinct items per person.
    degree_max
        The largest number of distinct items of one person (at most ``n_items``); it is the
        realised maximum, not just a cap.
    zipf_exponent
        ``s >= 0``: the head item of popularity rank ``k`` is drawn with probability ∝
        ``k**-s`` (``s = 0`` is uniform).
    seed
        Seed or NumPy ``Generator``; the same seed gives the same graph.
    degree_mean
        Optional target mean degree (``> degree_median``): fixes the spread of the log-normal
        instead of deriving it from ``degree_max``.
    tail_items
        How many of the ``n_items`` form the rare tail (``0 <= tail_items < n_items``); the
        other ``n_items - tail_items`` are the Zipf head.
    tail_share
        In ``[0, 1]``: the fraction of tail items among the items of a person of degree
        ``degree_max``.  ``0`` (the default) gives the plain Zipf model.
    tail_exponent
        ``γ >= 0``: a person of degree ``d`` has the tail fraction
        ``tail_share·(d/degree_max)**γ``, so heavier persons hold more rare items.

    Returns
    -------
    PersonItemGraph
        Every person holds at least one item; no counts.

    Raises
    ------
    InvalidParameterError
        On non-positive sizes, ``degree_median`` outside ``[1, degree_max]``,
        ``degree_max > n_items``, a negative exponent, ``tail_items`` outside
        ``[0, n_items)``, ``tail_share`` outside ``[0, 1]`` or ``tail_share > 0`` without
        tail items.

    Notes
    -----
    Degrees are ``round(X)`` clipped to ``[1, degree_max]`` with ``X`` log-normal of median
    ``degree_median``.  Its spread ``σ`` makes the ``n/(n+1)`` quantile equal ``degree_max`` (so
    the largest of ``n`` draws lands near it), or, with ``degree_mean``, makes the mean
    ``median·exp(σ²/2)`` equal ``degree_mean``.  The person with the largest draw then gets
    exactly ``degree_max``.

    *Rarity follows activity.*  A person of degree ``d`` takes ``t ~ Binomial(d, φ(d))`` of its
    items from the tail, ``φ(d) = tail_share·(d/degree_max)**tail_exponent``, uniformly and
    without repetition, and the other ``d - t`` from the head (``t`` is clipped so both parts
    fit).  With ``γ = 1`` the expected number of rare items grows like ``d²``: a tail item is
    usually held by a single heavy person (or a few), as rare words in text are typed mostly by
    prolific writers.  Such items make DC(D;ℓ) – the most distinct items when each person
    contributes at most ℓ – climb slowly towards DC(D), since a heavy person with ``t``
    exclusive items needs ``ℓ >= t`` to contribute them all, and they are what sampling ℓ items
    per person misses.  Without a tail, once the draws cover the whole universe (as at the
    Reddit preset's size), every item has many holders and DC(D;1) = DC(D).

    Each person's head items are a Zipf sample *without* replacement (successive sampling):
    draws are repeated for duplicates until the person has its count, all vectorised over
    persons; the tail items likewise.  Popularity ranks (the tail after the head) are mapped to
    item labels by a seeded random permutation, so the label order – the fixed item order the
    greedy algorithm uses – is unrelated to popularity or rarity, as in real data.  With
    ``tail_items=0`` (the default) the random draws are exactly those of the plain Zipf model.

    Examples
    --------
    >>> g = synthetic(1000, 500, degree_median=5, degree_max=60, zipf_exponent=1.1, seed=7)
    >>> float(np.median(g.degrees())), int(g.degrees().max())
    (5.0, 60)

    With a tail, the items that only one person holds belong to heavy persons:

    >>> g = synthetic(5000, 3000, degree_median=5, degree_max=300, zipf_exponent=1.0,
    ...               tail_items=2000, tail_share=0.2, seed=1)
    >>> holder = np.repeat(g.degrees(), np.diff(g.indptr))  # the degree of each pair's person
    >>> alone = g.item_degrees()[g.indices] == 1  # pairs whose item has no other holder
    >>> float(g.degrees().mean()), float(np.median(holder[alone]))
    (9.7846, 89.0)
    """
    n_persons = check_positive_int(n_persons, "n_persons")
    n_items = check_positive_int(n_items, "n_items", maximum=MAX_ITEMS)
    degree_max = check_positive_int(degree_max, "degree_max", maximum=n_items)
    if not 1 <= degree_median <= degree_max:
        raise InvalidParameterError(
            f"degree_median must lie in [1, degree_max={degree_max}], got {degree_median!r}"
        )
    if not (math.isfinite(zipf_exponent) and zipf_exponent >= 0):
        raise InvalidParameterError(f"zipf_exponent must be >= 0, got {zipf_exponent!r}")
    if degree_mean is not None and not degree_median < degree_mean < degree_max:
        raise InvalidParameterError(
            f"degree_mean must lie in (degree_median, degree_max), got {degree_mean!r}"
        )
    tail_items, tail_share, tail_exponent = _check_tail(
        n_items, tail_items, tail_share, tail_exponent
    )
    rng = _rng(seed)
    sigma = _spread(n_persons, float(degree_median), degree_max, degree_mean)
    degrees = _degrees(rng, n_persons, float(degree_median), degree_max, sigma)
    head_cdf = _zipf_cdf(n_items - tail_items, float(zipf_exponent))
    if tail_items == 0:  # the plain Zipf model: same draws, same graph as without a tail
        persons, ranks = _distinct_draws(rng, degrees, head_cdf)
    else:
        fraction = _tail_fraction(degrees, degree_max, tail_share, tail_exponent)
        persons, ranks = _head_and_tail_draws(rng, degrees, fraction, head_cdf, tail_items)
    labels_of_rank = rng.permutation(n_items)
    return graph_from_codes(
        persons,
        labels_of_rank[ranks],
        np.arange(n_persons, dtype=np.int64),
        np.arange(n_items, dtype=np.int64),
    )


def reddit_like(scale_factor: float = 1.0, seed: int | np.random.Generator = 0) -> PersonItemGraph:
    """Synthetic data the size and shape of the Reddit data set (Gopi et al., 2020).

    At ``scale_factor=1``: 223,388 persons, about 7.1M distinct person–item pairs and 102.8k
    distinct items, median degree 18, maximum degree 1,724 (Knop & Steinke, Table 3).  About 18k
    items are rare ones held mostly by a single heavy person (see :func:`synthetic`), so as in the
    real data DC(D;1) lies some 6% below DC(D), DC(D;ℓ) comes within 0.3–0.5% of DC(D) only
    around ℓ ≈ 15–25, and keeping 96 random items per person loses about 7% of the items.
    ``scale_factor`` multiplies the number of persons (the item universe stays, so a smaller scale
    shows fewer distinct items, and many head items are then rare too: the curve shape above
    holds at full scale).

    Examples
    --------
    >>> g = reddit_like(scale_factor=0.001)
    >>> g.n_persons, int(g.degrees().max())
    (223, 1724)
    """
    return synthetic(**_scaled(_REDDIT, scale_factor), seed=seed)  # type: ignore[arg-type]


def fashion_like(scale_factor: float = 1.0, seed: int | np.random.Generator = 0) -> PersonItemGraph:
    """Synthetic data the size and shape of the Amazon Fashion data set (Ni et al., 2019).

    404 persons, ~8.5k pairs, ~1.45k items, median degree 14, maximum 139 (Knop & Steinke,
    Table 3).  Most items are rare and held by one or two of the heavier persons, so as in the
    paper's Table 4 DC(D;ℓ) is ~9% below DC(D) at ℓ = 9 and ~1.5% below at ℓ = 17.

    Examples
    --------
    >>> g = fashion_like()
    >>> g.n_persons, int(g.degrees().max())
    (404, 139)
    """
    return synthetic(**_scaled(_FASHION, scale_factor), seed=seed)  # type: ignore[arg-type]


# --------------------------------------------------------------------------------------------


def _rng(seed: int | np.random.Generator) -> np.random.Generator:
    if isinstance(seed, np.random.Generator):
        return seed
    if isinstance(seed, bool) or not isinstance(seed, int | np.integer) or seed < 0:
        raise InvalidParameterError(f"seed must be a non-negative integer, got {seed!r}")
    return np.random.default_rng(int(seed))


#: The largest scale factor of a built-in data set: reddit-like at 100 is about 710M pairs, some
#: 20 GB to build; beyond it a build would only end in running out of memory.
MAX_SCALE_FACTOR = 100.0


def check_scale_factor(scale_factor: object) -> float:
    """A scale factor in (0, :data:`MAX_SCALE_FACTOR`], refused before anything is built.

    Examples
    --------
    >>> check_scale_factor(1e12)
    Traceback (most recent call last):
    ...
    dpcount.errors.InvalidParameterError: scale_factor must be at most 100, got 1e+12: a \
larger data set would not fit in memory
    """
    if not (
        isinstance(scale_factor, int | float)
        and not isinstance(scale_factor, bool)
        and math.isfinite(scale_factor)
        and scale_factor > 0
    ):
        raise InvalidParameterError(f"scale_factor must be a positive number, got {scale_factor!r}")
    if scale_factor > MAX_SCALE_FACTOR:
        raise InvalidParameterError(
            f"scale_factor must be at most {MAX_SCALE_FACTOR:g}, got {scale_factor:g}: a larger "
            "data set would not fit in memory"
        )
    return float(scale_factor)


def _scaled(preset: dict[str, float], scale_factor: float) -> dict[str, float]:
    scale_factor = check_scale_factor(scale_factor)
    n_persons = max(1, round(preset["n_persons"] * scale_factor))
    return preset | {"n_persons": n_persons}


def _spread(n: int, median: float, maximum: int, mean: float | None) -> float:
    """σ of the log-normal degree law (see :func:`synthetic`, Notes)."""
    if mean is not None:
        return math.sqrt(2 * math.log(mean / median))
    z = NormalDist().inv_cdf(n / (n + 1))
    return math.log(maximum / median) / max(z, 1.0)


def _degrees(
    rng: np.random.Generator, n: int, median: float, maximum: int, sigma: float
) -> np.ndarray:
    """Rounded log-normal degrees in ``[1, maximum]``, the largest set to ``maximum``."""
    raw = median * np.exp(sigma * rng.standard_normal(n))
    degrees = np.clip(np.rint(raw), 1, maximum).astype(np.int64)
    degrees[np.argmax(raw)] = maximum
    return degrees


def _zipf_cdf(n_items: int, exponent: float) -> np.ndarray:
    weights = np.arange(1, n_items + 1, dtype=np.float64) ** -exponent
    cdf = np.cumsum(weights)
    return cdf / cdf[-1]


def _check_tail(
    n_items: int, tail_items: object, tail_share: object, tail_exponent: object
) -> tuple[int, float, float]:
    """Validated ``(tail_items, tail_share, tail_exponent)`` (see :func:`synthetic`)."""
    if isinstance(tail_items, bool) or not isinstance(tail_items, int | np.integer):
        raise InvalidParameterError(f"tail_items must be an integer, got {tail_items!r}")
    if not 0 <= tail_items < n_items:
        raise InvalidParameterError(
            f"tail_items must lie in [0, n_items={n_items}), got {tail_items!r}"
        )
    share = _finite(tail_share, "tail_share")
    if not 0 <= share <= 1:
        raise InvalidParameterError(f"tail_share must lie in [0, 1], got {tail_share!r}")
    if share > 0 and tail_items == 0:
        raise InvalidParameterError("tail_share > 0 needs tail_items > 0")
    exponent = _finite(tail_exponent, "tail_exponent")
    if exponent < 0:
        raise InvalidParameterError(f"tail_exponent must be >= 0, got {tail_exponent!r}")
    return int(tail_items), share, exponent


def _finite(value: object, name: str) -> float:
    if isinstance(value, bool) or not isinstance(value, int | float | np.integer | np.floating):
        raise InvalidParameterError(f"{name} must be a real number, got {value!r}")
    if not math.isfinite(value):
        raise InvalidParameterError(f"{name} must be finite, got {value!r}")
    return float(value)


def _tail_fraction(
    degrees: np.ndarray, degree_max: int, share: float, exponent: float
) -> np.ndarray:
    """Each person's expected fraction of tail items: ``share·(d/degree_max)**exponent``.

    Examples
    --------
    >>> _tail_fraction(np.array([1, 10, 100]), 100, 0.2, 1.0).tolist()
    [0.002, 0.02, 0.2]
    """
    return share * (degrees / degree_max) ** exponent


def _tail_counts(
    rng: np.random.Generator,
    degrees: np.ndarray,
    fraction: np.ndarray,
    n_head: int,
    n_tail: int,
) -> np.ndarray:
    """Number of tail items of each person: ``Binomial(d, fraction)``, clipped to what fits.

    A person takes at most ``n_tail`` tail items and at most ``n_head`` head items, so its
    count lies in ``[max(0, d - n_head), min(d, n_tail)]``.

    Examples
    --------
    >>> rng = np.random.default_rng(0)
    >>> _tail_counts(rng, np.array([5, 5, 9]), np.array([0.0, 1.0, 0.0]), 6, 3).tolist()
    [0, 3, 3]
    """
    counts = rng.binomial(degrees, fraction)
    return np.clip(counts, np.maximum(degrees - n_head, 0), np.minimum(degrees, n_tail))


def _head_and_tail_draws(
    rng: np.random.Generator,
    degrees: np.ndarray,
    fraction: np.ndarray,
    head_cdf: np.ndarray,
    n_tail: int,
) -> tuple[np.ndarray, np.ndarray]:
    """Person ids and item ranks: distinct Zipf head ranks plus distinct uniform tail ranks.

    Tail ranks follow the ``head_cdf.size`` head ranks.

    Examples
    --------
    >>> rng = np.random.default_rng(0)
    >>> persons, ranks = _head_and_tail_draws(
    ...     rng, np.array([3, 4]), np.array([0.0, 1.0]), _zipf_cdf(5, 1.0), 10)
    >>> persons.tolist()
    [0, 0, 0, 1, 1, 1, 1]
    >>> bool(np.all(ranks[:3] < 5)), bool(np.all(ranks[3:] >= 5))  # head, then tail ranks
    (True, True)
    """
    n_head = head_cdf.size
    tail_counts = _tail_counts(rng, degrees, fraction, n_head, n_tail)
    head_persons, head_ranks = _distinct_draws(rng, degrees - tail_counts, head_cdf)
    tail_persons, tail_ranks = _distinct_draws(rng, tail_counts, _uniform_cdf(n_tail))
    return (
        np.concatenate([head_persons, tail_persons]),
        np.concatenate([head_ranks, n_head + tail_ranks]),
    )


def _uniform_cdf(n_items: int) -> np.ndarray:
    """The cumulative distribution of the uniform law on ``n_items`` ranks."""
    return np.arange(1, n_items + 1, dtype=np.float64) / n_items


def _distinct_draws(
    rng: np.random.Generator, degrees: np.ndarray, cdf: np.ndarray
) -> tuple[np.ndarray, np.ndarray]:
    """Person ids and item ranks: ``degrees[p]`` distinct Zipf draws for each person ``p``.

    Each round draws the missing number of items for the persons still short of their degree
    and removes duplicates; persons who are complete leave the working set, so later rounds are
    cheap.  Persons still short after ``_TOP_UP_ROUNDS`` (only when a degree is close to the
    universe size) get their remaining items uniformly from the items they lack.
    """
    n_items = cdf.size
    finished: list[np.ndarray] = []
    pending = np.empty(0, dtype=np.int64)  # sorted unique keys person * n_items + rank
    need = degrees.copy()
    for _ in range(_TOP_UP_ROUNDS):
        who = np.flatnonzero(need)
        if who.size == 0:
            break
        draw_persons = np.repeat(who, need[who])
        # Sorted uniforms per person give ranks sorted per person, hence globally sorted keys:
        # merging them into ``pending`` is a linear run merge instead of a full sort.
        ranks = np.searchsorted(cdf, _sorted_uniforms(rng, need[who]), side="right")
        ranks = np.minimum(ranks, n_items - 1)  # guard against cdf[-1] rounding below 1
        pending = _merge_unique(pending, draw_persons * n_items + ranks)
        person_of_key = pending // n_items
        held = np.bincount(person_of_key, minlength=degrees.size)
        need = np.zeros_like(degrees)
        need[who] = degrees[who] - held[who]
        done = need[person_of_key] == 0
        finished.append(pending[done])
        pending = pending[~done]
    if np.any(need):
        finished.append(_fill_uniform(rng, pending, need, n_items))
    keys = np.concatenate(finished) if finished else np.empty(0, dtype=np.int64)
    return keys // n_items, keys % n_items


def _fill_uniform(
    rng: np.random.Generator, pending: np.ndarray, need: np.ndarray, n_items: int
) -> np.ndarray:
    """Complete the few persons still short: their keys plus uniform draws from lacking items."""
    person_of_key = pending // n_items
    parts = [pending]
    for person in np.flatnonzero(need):  # a handful of persons, never one iteration per pair
        held = pending[person_of_key == person] % n_items
        lacking = np.setdiff1d(np.arange(n_items), held, assume_unique=True)
        extra = rng.choice(lacking, size=int(need[person]), replace=False)
        parts.append(person * n_items + extra)
    return np.concatenate(parts)


def _sorted_uniforms(rng: np.random.Generator, sizes: np.ndarray) -> np.ndarray:
    """Uniform(0, 1) samples, ``sizes[j]`` for segment ``j``, ascending within each segment.

    Uses normalised exponential spacings: for ``E_1..E_{d+1}`` i.i.d. Exp(1), the partial sums
    ``(E_1 + … + E_k) / (E_1 + … + E_{d+1})``, ``k = 1..d``, are the order statistics of ``d``
    uniforms.  One global cumulative sum serves every segment.
    """
    ends = np.cumsum(sizes + 1) - 1  # position of each segment's extra spacing
    spacings = rng.standard_exponential(int(ends[-1]) + 1)
    partial = np.cumsum(spacings)
    base = partial[ends - sizes] - spacings[ends - sizes]  # sum before the segment
    span = partial[ends] - base
    keep = np.ones(partial.size, dtype=bool)
    keep[ends] = False
    segment = np.repeat(np.arange(sizes.size), sizes)
    return (partial[keep] - base[segment]) / span[segment]


def _merge_unique(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """Sorted distinct values of two sorted arrays (timsort merges the two runs linearly)."""
    merged = np.sort(np.concatenate([a, b]), kind="stable")
    keep = np.ones(merged.size, dtype=bool)
    keep[1:] = merged[1:] != merged[:-1]
    return merged[keep]
