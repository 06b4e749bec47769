"""One weight-and-threshold round on Spark: per-item weights, executor noise, released labels.

The building blocks :mod:`dpcount.spark.set_union` and :mod:`dpcount.spark.sips` share (Gopi
et al. 2020, Algorithm 1 with the distributed choices of its Algorithm 2).
"""

from typing import Any

import numpy as np

from dpcount.spark._frames import collect, explode_ranks, person_items
from dpcount.spark.hashing import item_noise, label_key_column
from dpcount.spark.ingest import label_array
from mechanisms.set_union.calibration import Calibration
from mechanisms.set_union.weighted import UNIT, contribution_units

__all__ = ["NORMS", "kept_column", "released_labels", "weights_frame"]

#: The one-round weightings → the norm of a person's contribution (None for counts).
NORMS: dict[str, int | None] = {
    "count_laplace": None,
    "count_gaussian": None,
    "weighted_laplace": 1,
    "weighted_gaussian": 2,
}


def weights_frame(pairs: Any, mechanism: str, max_items: int, key: int) -> Any:
    """Per-item weights ``(i, w)`` of the keyed capped sets, computed in Spark, for every item
    (weight 0 when no holder keeps it).

    Counts are sums of ones; weighted contributions are the local fixed-point units
    (:func:`~mechanisms.set_union.weighted.contribution_units`), so the per-item sums are exact
    integers and equal the local :func:`~mechanisms.set_union.weighted.basic_weights` and
    :func:`~mechanisms.set_union.weighted.count_weights` bit for bit, whatever the partitioning.
    One shuffle by person to rank, one by item to sum.
    """
    from pyspark.sql import functions as F

    norm = NORMS[mechanism]
    if norm is None:
        unit, scale = F.lit(1), 1.0
    else:
        units = F.array(*[F.lit(int(u)) for u in contribution_units(max_items, norm)])
        unit, scale = F.element_at(units, F.least("deg", F.lit(max_items)).cast("int") + 1), UNIT
    kept_unit = F.when(F.col("r") < max_items, unit).otherwise(F.lit(0)).cast("long")
    total = F.sum(kept_unit).cast("double") * F.lit(scale)
    ranked = explode_ranks(person_items(pairs, key, sort_above=max_items))  # every item
    return ranked.groupBy("i").agg(total.alias("w"))


def kept_column(weights: Any, noise_key: bytes, calibration: Calibration) -> Any:
    """Whether an item is released: held after capping and weight plus noise above ρ (Gopi
    Alg. 1).  The noise is keyed by the item's label key, on the executors."""
    import pandas as pd
    from pyspark.sql import functions as F

    noise, scale, rho = calibration.noise, calibration.scale, calibration.threshold

    @F.pandas_udf("double")  # type: ignore[call-overload]
    def noisy(keys: pd.Series, w: pd.Series) -> pd.Series:
        z = item_noise(keys.to_numpy().view(np.uint64), noise_key, noise, scale)
        return pd.Series(w.to_numpy() + z)

    held = F.col("w") > 0  # an item nobody contributed to is never a candidate
    return held & (noisy(label_key_column(weights, "i"), "w") > rho)


def released_labels(weights: Any, noise_key: bytes, calibration: Calibration) -> np.ndarray:
    """Sorted labels of the released items of ``weights`` (only those reach the driver)."""
    chosen = weights.where(kept_column(weights, noise_key, calibration)).select("i")
    return np.sort(label_array(collect(chosen).column("i"), "item labels"))
