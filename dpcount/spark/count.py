"""The person-level distinct count on Spark (Knop & Steinke 2023, Algorithm 1 + GEM).

``counting="sampling"`` runs distributed: each person ranks its items by the keyed pair hash
(:mod:`dpcount.spark.hashing`); an item is counted at ℓ when its smallest rank over its holders
is below ℓ, so the whole curve is the cumulative histogram of per-item minimum ranks (§4.2,
counting option 1).  Only that histogram — at most ℓ_max + 1 rows — reaches the driver, where
GEM and the Laplace release run through
:func:`mechanisms.distinct_count.dp_distinct_count_from_curve`.
With the same seed the curve, and hence the release, equals the local ``counting="sampling"``.

``counting="matching"`` (the default, as in the local function and the CLI) and ``"greedy"``
need the whole graph: it is encoded in Spark and collected (:func:`dpcount.spark.read_pairs`),
then solved locally.  Above the driver's pair limit that is refused with a message naming
``counting="sampling"``, the distributed option.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from dpcount.common.rng import RNGLike, draw_key, spawn
from dpcount.spark._frames import as_numpy, collect, explode_ranks, person_items
from dpcount.spark.ingest import DRIVER_PAIR_LIMIT, prepare_pairs, read_pairs
from mechanisms._defaults import DEFAULT_BETA
from mechanisms.distinct_count import (
    Counting,
    DistinctCountResult,
    SelectionRule,
    _check_parameters,
    curve_length,
    dp_distinct_count,
    dp_distinct_count_from_curve,
    public_ell,
)
from mechanisms.noise import NoiseMode

__all__ = ["distinct_count", "sampling_curve"]


def _degrees(per_person: Any) -> np.ndarray:
    """Every person's degree, rebuilt from the degree histogram (O(max degree) rows)."""
    from pyspark.sql import functions as F

    hist = collect(per_person.groupBy(F.size("s").alias("d")).count())
    return np.repeat(as_numpy(hist, "d").astype(np.int64), as_numpy(hist, "count"))


def sampling_curve(pairs: Any, ell_max: int, key: int, *, per_person: Any = None) -> np.ndarray:
    """The nested-sampling curve for ℓ = 1..ℓ_max from validated pairs (``p``, ``i``).

    Equals :func:`matching.sampling.sampling_curve` on the same data with the same key: an
    item with smallest rank b over its holders is counted for every ℓ > b (Knop & Steinke
    2023, §4.2), so the curve is the cumulative histogram of b.  ``per_person`` reuses a
    :func:`~dpcount.spark._frames.person_items` frame of the same key.
    """
    from pyspark.sql import functions as F

    grouped = person_items(pairs, key) if per_person is None else per_person
    best = explode_ranks(grouped, ell_max).groupBy("i").agg(F.min("r").alias("b"))
    hist = collect(best.groupBy("b").count())
    counts = np.zeros(ell_max, dtype=np.int64)
    counts[as_numpy(hist, "b").astype(np.int64)] = as_numpy(hist, "count")
    return np.cumsum(counts)


def distinct_count(
    data: Any,
    person: str,
    item: str,
    epsilon: float,
    *,
    beta: float = DEFAULT_BETA,
    ell_max: int = 100,
    ell: int | None = None,
    counting: Counting = "matching",
    selection: SelectionRule = "gem",
    noise: NoiseMode = "exact",
    rng: RNGLike = None,
    drop_nulls: bool = False,
    max_pairs: int = DRIVER_PAIR_LIMIT,
    diagnostics: bool = False,
) -> DistinctCountResult:
    """:func:`mechanisms.dp_distinct_count` on pairs held in Spark.

    Parameters
    ----------
    data, person, item, drop_nulls
        As in :func:`dpcount.spark.read_pairs`.
    epsilon, beta, ell_max, ell, selection, noise, diagnostics
        As in :func:`mechanisms.dp_distinct_count` (a public ``ell`` spends all of ε on the
        count; only DC(D;ℓ) up to that ℓ is computed).
    counting
        ``"matching"`` (the default, as in the local function) or ``"greedy"``: the graph is
        collected to the driver, up to ``max_pairs`` pairs, and solved locally.
        ``"sampling"``: distributed, only a histogram of at most ℓ_max rows reaches the driver;
        for data whose graph does not fit the driver.
    rng
        As in the local function; the same seed gives the same release as the local path.
    max_pairs
        Driver limit for ``"matching"`` / ``"greedy"`` (see :func:`dpcount.spark.read_pairs`).

    Returns
    -------
    DistinctCountResult
    """
    eps, b, ell_max = _check_parameters(epsilon, beta, ell_max, counting, selection, noise)
    fixed = public_ell(ell, ell_max, selection)
    if counting != "sampling":
        graph = read_pairs(data, person, item, None, drop_nulls, max_pairs=max_pairs)
        return dp_distinct_count(
            graph,
            eps,
            beta=b,
            ell_max=ell_max,
            ell=ell,
            counting=counting,
            selection=selection,
            noise=noise,
            rng=rng,
            diagnostics=diagnostics,
        )
    # The local function's stream layout, so one seed gives the same release on both paths.
    selection_rng, noise_rng, curve_rng = spawn(rng, 3)
    key = draw_key(curve_rng)
    pairs = prepare_pairs(data, person, item, None, drop_nulls, dedupe=False)
    per_person = person_items(pairs, int(key)).cache()
    try:
        degrees = _degrees(per_person)
        length = curve_length(degrees, ell_max if fixed is None else fixed, selection)
        curve = sampling_curve(pairs, length, int(key), per_person=per_person)
    finally:
        per_person.unpersist()
    return dp_distinct_count_from_curve(
        curve,
        degrees,
        eps,
        beta=b,
        ell_max=ell_max,
        ell=ell,
        counting="sampling",
        selection=selection,
        noise=noise,
        selection_rng=selection_rng,
        noise_rng=noise_rng,
        diagnostics=diagnostics,
    )
