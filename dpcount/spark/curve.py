"""The nested-sampling curve of pairs held in Spark (Knop & Steinke 2023, §4.2, option 1).

Each person ranks its items by the keyed pair hash (:mod:`dpcount.spark.hashing`); an item is
counted at ℓ when its smallest rank over its holders is below ℓ, so the whole curve is the
cumulative histogram of per-item minimum ranks.  Only that histogram — at most ℓ_max rows —
and the degree histogram reach the driver.  With the same key the curve equals the local
:func:`matching.sampling.sampling_curve`.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from dpcount.spark.frames import as_numpy, collect, explode_ranks, person_items

__all__ = ["degrees", "sampling_curve"]


def degrees(per_person: Any) -> np.ndarray:
    """Every person's degree from a :func:`~dpcount.spark.frames.person_items` frame, rebuilt
    from the degree histogram (O(max degree) rows on the driver)."""
    from pyspark.sql import functions as F

    hist = collect(per_person.groupBy(F.size("s").alias("d")).count())
    return np.repeat(as_numpy(hist, "d").astype(np.int64), as_numpy(hist, "count"))


def sampling_curve(pairs: Any, ell_max: int, key: int, *, per_person: Any = None) -> np.ndarray:
    """The nested-sampling curve for ℓ = 1..ℓ_max from validated pairs (``p``, ``i``).

    Equals :func:`matching.sampling.sampling_curve` on the same data with the same key: an
    item with smallest rank b over its holders is counted for every ℓ > b (Knop & Steinke
    2023, §4.2), so the curve is the cumulative histogram of b.  ``per_person`` reuses a
    :func:`~dpcount.spark.frames.person_items` frame of the same key.
    """
    from pyspark.sql import functions as F

    grouped = person_items(pairs, key) if per_person is None else per_person
    best = explode_ranks(grouped, ell_max).groupBy("i").agg(F.min("r").alias("b"))
    hist = collect(best.groupBy("b").count())
    counts = np.zeros(ell_max, dtype=np.int64)
    counts[as_numpy(hist, "b").astype(np.int64)] = as_numpy(hist, "count")
    return np.cumsum(counts)
