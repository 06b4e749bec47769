"""The adaptive (MAD-style) weighting of :func:`mechanisms.set_union.max_adaptive_degree` in Spark.

The same seven steps as :func:`mechanisms.set_union.adaptive.mad_weights` (Chen et al. 2024,
as derived there), each an aggregation: W_i per item over adaptive persons, the excess share
E_i/W_i joined back to the pairs, R_u per person, and the final per-item sum.  Nothing per pair
reaches the driver.
"""

from typing import Any

from dpcount.spark.frames import capped_pairs
from mechanisms.set_union.adaptive import reroute_fraction

__all__ = ["mad_weights_frame"]


def mad_weights_frame(pairs: Any, max_items: int, key: int, d_max: int, tau: float) -> Any:
    """Per-item adaptive weights ``(i, w)`` of the keyed-hash capped sets."""
    from pyspark.sql import functions as F

    d = F.least(F.col("deg"), F.lit(max_items)).cast("double")  # |S_u| after capping
    capped = (
        capped_pairs(pairs, key, max_items)
        .withColumn("inv", F.lit(1.0) / d)
        .withColumn("root", F.lit(1.0) / F.sqrt(d))
        .withColumn("adaptive", d <= F.lit(float(d_max)))
    )
    # Steps 2–3: W_i over adaptive persons, T_i = min(W_i, τ), share E_i/W_i.
    items = (
        capped.where("adaptive")
        .groupBy("i")
        .agg(F.sum("inv").alias("wsum"))
        .withColumn("trunc", F.least(F.col("wsum"), F.lit(float(tau))))
        .withColumn("share", (F.col("wsum") - F.col("trunc")) / F.col("wsum"))
    )
    # Step 4: R_u = Σ_{i∈S_u} (1/|S_u|)·E_i/W_i over adaptive persons.
    returned = (
        capped.where("adaptive")
        .join(items.select("i", "share"), on="i")
        .groupBy("p")
        .agg(F.sum(F.col("inv") * F.col("share")).alias("back"))
    )
    f = reroute_fraction(d_max)
    # Steps 1, 5, 6: per-pair contributions; step 7: sum per item plus T_i.
    per_pair = F.when(
        F.col("adaptive"),
        F.lit(f) * F.coalesce(F.col("back"), F.lit(0.0)) * F.col("inv")
        + (F.col("root") - F.col("inv")),
    ).otherwise(F.col("root"))
    summed = (
        capped.join(returned, on="p", how="left").groupBy("i").agg(F.sum(per_pair).alias("added"))
    )
    total = F.coalesce(F.col("trunc"), F.lit(0.0)) + F.col("added")
    return summed.join(items.select("i", "trunc"), on="i", how="left").select("i", total.alias("w"))
