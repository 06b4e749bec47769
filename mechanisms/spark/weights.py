"""One weight-and-threshold round on Spark: per-item weights, executor noise, released labels.

The building blocks :mod:`mechanisms.spark.union` and :mod:`mechanisms.spark.sips` share (Gopi
et al. 2020, Algorithm 1 with the distributed choices of its Algorithm 2).
"""

from typing import Any

import numpy as np

from dpcount.spark.frames import collect, explode_ranks, person_items
from dpcount.spark.hashing import item_noise, label_key_column
from dpcount.spark.ingest import label_array
from mechanisms.noise import NoiseKey
from mechanisms.set_union.calibration import Calibration
from mechanisms.set_union.fixed_point import MAX_UNIT_BITS, contribution_units, noisy_above
from mechanisms.set_union.weighted import UNIT

__all__ = ["NORMS", "kept_column", "released_labels", "weights_frame"]

#: The one-round weightings → the norm of a person's contribution (None for counts).
NORMS: dict[str, int | None] = {
    "count_laplace": None,
    "count_gaussian": None,
    "weighted_laplace": 1,
    "weighted_gaussian": 2,
}


def weights_frame(
    pairs: Any, mechanism: str, max_items: int, key: int, bits: int | None = None
) -> Any:
    """Per-item weights ``(i, w, n)`` of the keyed capped sets, computed in Spark, for every
    item: ``w`` the weight (0 when no holder keeps it), ``n`` how many holders keep it.

    Counts are sums of ones; weighted contributions are the local fixed-point units
    (:func:`~mechanisms.set_union.fixed_point.contribution_units`), so the per-item sums are
    exact integers and equal the local ones bit for bit, whatever the partitioning.  With
    ``bits`` (exact noise) ``w`` is the integer sum in units of 2⁻ᵏ (as the local
    :func:`~mechanisms.set_union.weighted.basic_units`); without, a double in weight units (as
    :func:`~mechanisms.set_union.weighted.basic_weights`).  One shuffle by person to rank, one
    by item to sum.
    """
    from pyspark.sql import functions as F

    norm = NORMS[mechanism]
    precision = MAX_UNIT_BITS if bits is None else bits
    if norm is None:
        unit, scale = F.lit(1), 1.0
    else:
        table = contribution_units(max_items, norm, precision)
        units = F.array(*[F.lit(int(u)) for u in table])
        unit, scale = F.element_at(units, F.least("deg", F.lit(max_items)).cast("int") + 1), UNIT
    kept = F.col("r") < max_items
    kept_unit = F.when(kept, unit).otherwise(F.lit(0)).cast("long")
    total = F.sum(kept_unit)
    weight = total if bits is not None else total.cast("double") * F.lit(scale)
    holders = F.sum(F.when(kept, F.lit(1)).otherwise(F.lit(0)).cast("long"))
    ranked = explode_ranks(person_items(pairs, key, sort_above=max_items))  # every item
    return ranked.groupBy("i").agg(weight.alias("w"), holders.alias("n"))


def kept_column(weights: Any, noise_key: bytes | NoiseKey, calibration: Calibration) -> Any:
    """Whether an item is released: held after capping and weight plus noise above ρ (Gopi
    Alg. 1).  The noise is keyed by the item's label key, on the executors: exact discrete
    noise (the local :func:`~mechanisms.set_union.fixed_point.noisy_above`, bit for bit) for an
    exact calibration, floating-point noise otherwise."""
    import pandas as pd
    from pyspark.sql import functions as F

    # An item nobody contributed to is never a candidate (the adaptive frame has no count).
    held = F.col("n") > 0 if "n" in weights.columns else F.col("w") > 0
    exact = calibration.exact
    if exact is not None:
        assert isinstance(noise_key, NoiseKey)
        noise = calibration.noise

        @F.pandas_udf("boolean")  # type: ignore[call-overload]
        def above(keys: pd.Series, w: pd.Series) -> pd.Series:
            rows = keys.to_numpy().view(np.uint64)
            return pd.Series(
                noisy_above(w.to_numpy(), rows, noise, exact.parameter, exact.threshold, noise_key)
            )

        return held & above(label_key_column(weights, "i"), "w")
    assert isinstance(noise_key, bytes)
    kind, scale, rho = calibration.noise, calibration.scale, calibration.threshold

    @F.pandas_udf("double")  # type: ignore[call-overload]
    def noisy(keys: pd.Series, w: pd.Series) -> pd.Series:
        z = item_noise(keys.to_numpy().view(np.uint64), noise_key, kind, scale)
        return pd.Series(w.to_numpy() + z)

    return held & (noisy(label_key_column(weights, "i"), "w") > rho)


def released_labels(
    weights: Any, noise_key: bytes | NoiseKey, calibration: Calibration
) -> np.ndarray:
    """Sorted labels of the released items of ``weights`` (only those reach the driver)."""
    chosen = weights.where(kept_column(weights, noise_key, calibration)).select("i")
    return np.sort(label_array(collect(chosen).column("i"), "item labels"))
