"""Seeded synthetic person–item data: heavy-tailed person degrees, Zipf item popularity.

:func:`synthetic` is the generator; :func:`reddit_like` and :func:`fashion_like` are presets
calibrated to the sizes of the Reddit and fashion data sets used in the distinct-count and
set-union papers, so benchmarks can run at those sizes without the original data.

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
from dpcount.graph import PersonItemGraph
from dpcount.validation import check_positive_int

__all__ = ["fashion_like", "reddit_like", "synthetic"]

# Reddit-like preset (Gopi et al. 2020; Knop & Steinke 2023): ~223k persons, ~7.1M distinct
# pairs, ~103k distinct items, median degree 18, max degree ~1.7k.  Constants calibrated by
# generating with seeds 0-2 (distinct pairs and items within 1% of the targets).
_REDDIT = {
    "n_persons": 223_388,
    "n_items": 103_000,  # nearly every item of the universe is drawn at this size
    "degree_median": 18,
    "degree_mean": 31.8,  # 7.1M pairs / 223k persons
    "degree_max": 1_700,
    "zipf_exponent": 1.0,
}
# Fashion-like preset: 404 persons, ~8.5k distinct pairs, ~1.45k distinct items (seeds 0-2:
# 7.9k-8.7k pairs, 1.44k-1.49k items; with only 404 persons the seed matters more).
_FASHION = {
    "n_persons": 404,
    "n_items": 1_950,  # about 1.45k of them are drawn
    "degree_median": 16,
    "degree_mean": 22.0,
    "degree_max": 110,
    "zipf_exponent": 1.0,
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
) -> PersonItemGraph:
    """A random person–item graph with log-normal person degrees and Zipf item popularity.

    Parameters
    ----------
    n_persons
        Number of persons (labels ``0 .. n_persons-1``).
    n_items
        Size of the item universe (labels ``0 .. n_items-1``); items nobody draws are absent,
        so the graph usually has fewer distinct items.
    degree_median
        Median number of distinct items per person.
    degree_max
        The largest number of distinct items of one person (at most ``n_items``); it is the
        realised maximum, not just a cap.
    zipf_exponent
        ``s >= 0``: the item of popularity rank ``k`` is drawn with probability ∝ ``k**-s``
        (``s = 0`` is uniform).
    seed
        Seed or NumPy ``Generator``; the same seed gives the same graph.
    degree_mean
        Optional target mean degree (``> degree_median``): fixes the spread of the log-normal
        instead of deriving it from ``degree_max``.

    Returns
    -------
    PersonItemGraph
        Every person holds at least one item; no counts.

    Raises
    ------
    InvalidParameterError
        On non-positive sizes, ``degree_median`` outside ``[1, degree_max]``,
        ``degree_max > n_items`` or a negative exponent.

    Notes
    -----
    Degrees are ``round(X)`` clipped to ``[1, degree_max]`` with ``X`` log-normal of median
    ``degree_median``.  Its spread ``σ`` makes the ``n/(n+1)`` quantile equal ``degree_max`` (so
    the largest of ``n`` draws lands near it), or, with ``degree_mean``, makes the mean
    ``median·exp(σ²/2)`` equal ``degree_mean``.  The person with the largest draw then gets
    exactly ``degree_max``.
    Each person's items are a Zipf sample *without* replacement (successive sampling): draws are
    repeated for duplicates until the person has its degree, all vectorised over persons.
    Popularity ranks are mapped to item labels by a seeded random permutation, so the label
    order – the fixed item order the greedy algorithm uses – is unrelated to popularity, as in
    real data.

    Examples
    --------
    >>> g = synthetic(1000, 500, degree_median=5, degree_max=60, zipf_exponent=1.1, seed=7)
    >>> float(np.median(g.degrees())), int(g.degrees().max())
    (5.0, 60)
    """
    n_persons = check_positive_int(n_persons, "n_persons")
    n_items = check_positive_int(n_items, "n_items", maximum=2**31 - 1)
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
    rng = _rng(seed)
    sigma = _spread(n_persons, float(degree_median), degree_max, degree_mean)
    degrees = _degrees(rng, n_persons, float(degree_median), degree_max, sigma)
    cdf = _zipf_cdf(n_items, float(zipf_exponent))
    persons, ranks = _distinct_draws(rng, degrees, cdf)
    labels_of_rank = rng.permutation(n_items)
    return PersonItemGraph._from_codes(
        persons,
        labels_of_rank[ranks],
        np.arange(n_persons, dtype=np.int64),
        np.arange(n_items, dtype=np.int64),
    )


def reddit_like(scale: float = 1.0, seed: int | np.random.Generator = 0) -> PersonItemGraph:
    """Synthetic data the size and shape of the Reddit data set (Gopi et al., 2020).

    At ``scale=1``: 223,388 persons, about 7.1M distinct person–item pairs and 103k distinct
    items, median degree 18, maximum degree 1,700.  ``scale`` multiplies the number of persons
    (the item universe stays, so a smaller scale shows fewer distinct items).

    Examples
    --------
    >>> g = reddit_like(scale=0.001)
    >>> g.n_persons, int(g.degrees().max())
    (223, 1700)
    """
    return synthetic(**_scaled(_REDDIT, scale), seed=seed)  # type: ignore[arg-type]


def fashion_like(scale: float = 1.0, seed: int | np.random.Generator = 0) -> PersonItemGraph:
    """Synthetic data the size of the fashion data set: 404 persons, ~8.5k pairs, ~1.45k items.

    Examples
    --------
    >>> g = fashion_like()
    >>> g.n_persons
    404
    """
    return synthetic(**_scaled(_FASHION, scale), seed=seed)  # type: ignore[arg-type]


# --------------------------------------------------------------------------------------------


def _rng(seed: int | np.random.Generator) -> np.random.Generator:
    if isinstance(seed, np.random.Generator):
        return seed
    if isinstance(seed, bool) or not isinstance(seed, int | np.integer) or seed < 0:
        raise InvalidParameterError(f"seed must be a non-negative integer, got {seed!r}")
    return np.random.default_rng(int(seed))


def _scaled(preset: dict[str, float], scale: float) -> dict[str, float]:
    if not (isinstance(scale, int | float) and math.isfinite(scale) and scale > 0):
        raise InvalidParameterError(f"scale must be a positive number, got {scale!r}")
    n_persons = max(1, round(preset["n_persons"] * scale))
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
    keys = np.concatenate(finished)
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
