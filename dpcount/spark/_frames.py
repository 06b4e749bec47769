"""Spark building blocks shared by the distributed releases: ranked pairs and driver collects.

Every row that reaches the driver goes through :func:`collect`, so tests can audit how much
the driver receives (O(items) or O(ℓ_max), never per pair).
"""

from typing import Any

import numpy as np

from dpcount.spark.hashing import flip, pair_hash

__all__ = ["as_numpy", "collect", "explode_ranks", "ranked_pairs"]


def collect(df: Any) -> Any:
    """The rows of ``df`` on the driver, as an Arrow table."""
    return df.toArrow()


def ranked_pairs(pairs: Any, key: int, limit: int | None = None, *, grouped: bool = False) -> Any:
    """Per distinct pair ``(p, i)``: ``r``, its 0-based rank in its person's items by the keyed
    pair hash, and ``deg``, the person's number of distinct items; only ranks < ``limit``.

    One shuffle by person: each person's distinct (hash, item) structs are collected, sorted
    and exploded with their positions, so duplicate input pairs need no separate pass.  Ties of
    the hash (probability ~2⁻⁶⁴) break by item label, as the local kernel breaks them by id.
    With ``grouped=True`` returns the per-person frame ``(p, s)`` for :func:`explode_ranks`.
    """
    import pandas as pd
    from pyspark.sql import functions as F

    @F.pandas_udf("long")  # type: ignore[call-overload]
    def hashed(p: pd.Series, i: pd.Series) -> pd.Series:
        return pd.Series(flip(pair_hash(p.to_numpy(), i.to_numpy(), key)))

    items = F.array_sort(F.collect_set(F.struct(hashed("p", "i").alias("h"), F.col("i"))))
    per_person = pairs.groupBy("p").agg(items.alias("s"))
    return per_person if grouped else explode_ranks(per_person, limit)


def explode_ranks(per_person: Any, limit: int | None = None) -> Any:
    """``(p, i, r, deg)`` rows from each person's sorted distinct items ``s`` (ranks < limit)."""
    from pyspark.sql import functions as F

    kept = F.col("s") if limit is None else F.slice("s", 1, limit)
    exploded = per_person.select("p", F.size("s").alias("deg"), F.posexplode(kept).alias("r", "x"))
    return exploded.select("p", F.col("x.i").alias("i"), "r", "deg")


def as_numpy(table: Any, column: str) -> np.ndarray:
    """One column of an Arrow table as a NumPy array."""
    return np.asarray(table.column(column).to_numpy(zero_copy_only=False))
