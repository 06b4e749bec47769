"""Spark building blocks shared by the distributed releases: ranked items and driver collects.

Every row that reaches the driver goes through :func:`collect`, so tests can audit how much
the driver receives (O(items) or O(ℓ_max), never per pair).
"""

from typing import Any

import numpy as np

from dpcount.spark.hashing import label_key_column, native_label_key, pair_hash

__all__ = ["as_numpy", "capped_pairs", "collect", "explode_ranks", "person_items"]


def collect(df: Any) -> Any:
    """The rows of ``df`` on the driver, as an Arrow table."""
    return df.toArrow()


def person_items(pairs: Any, key: int, *, sort_above: int = 0) -> Any:
    """Per person ``p``: ``s``, their distinct items in the order of the keyed pair hash.

    One shuffle by person collects each person's distinct items, which are sorted by the hash
    (ties of the hash, probability ~2⁻⁶⁴, by item label, as the local kernel breaks them by
    id).  Persons with at most ``sort_above`` items are left unsorted: when only the first
    ``sort_above`` items matter (Δ0 capping keeps them all), the order is never used.  Items
    whose label key Spark computes natively are collected bare and keyed only inside the sort,
    for the persons that need it (a third less time than collecting (key, item) pairs at 7.1M
    pairs); other types are keyed by the local function before the shuffle.
    """
    from pyspark.sql import functions as F

    native = native_label_key(pairs.schema["i"].dataType)
    if native is not None:
        collected, item, item_key = F.col("i"), (lambda x: x), native
    else:
        collected = F.struct(label_key_column(pairs, "i").alias("k"), F.col("i"))
        item, item_key = (lambda x: x["i"]), (lambda x: x["k"])
    per_person = pairs.groupBy("p").agg(F.collect_set(collected).alias("s"))
    per_person = per_person.withColumn("pk", label_key_column(per_person, "p"))
    hashed = F.transform(
        "s",
        lambda x: F.struct(pair_hash(key, F.col("pk"), item_key(x)).alias("h"), item(x).alias("i")),
    )
    in_order = F.transform(F.array_sort(hashed), lambda x: x["i"])
    if sort_above:
        unsorted = F.transform("s", item)
        in_order = F.when(F.size("s") > sort_above, in_order).otherwise(unsorted)
    return per_person.select("p", in_order.alias("s"))


def explode_ranks(per_person: Any, limit: int | None = None) -> Any:
    """``(p, i, r, deg)`` rows from a :func:`person_items` frame: ``r`` is the item's position
    in ``s`` and ``deg`` the person's number of distinct items; only positions < ``limit``."""
    from pyspark.sql import functions as F

    kept = F.col("s") if limit is None else F.slice("s", 1, limit)
    return per_person.select("p", F.size("s").alias("deg"), F.posexplode(kept).alias("r", "i"))


def capped_pairs(pairs: Any, key: int, limit: int) -> Any:
    """``(p, i, r, deg)`` for the ``limit`` items of smallest keyed hash of each person (Δ0
    capping); ``r`` is a rank only for persons with more than ``limit`` items."""
    return explode_ranks(person_items(pairs, key, sort_above=limit), limit)


def as_numpy(table: Any, column: str) -> np.ndarray:
    """One column of an Arrow table as a NumPy array."""
    return np.asarray(table.column(column).to_numpy(zero_copy_only=False))
