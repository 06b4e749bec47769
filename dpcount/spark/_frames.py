"""Spark building blocks shared by the distributed releases: ranked pairs and driver collects.

Every row that reaches the driver goes through :func:`collect`, so tests can audit how much
the driver receives (O(items) or O(ℓ_max), never per pair).
"""

from typing import Any

import numpy as np

from dpcount.spark.hashing import flip, pair_hash

__all__ = ["collect", "ranked_pairs"]


def collect(df: Any) -> Any:
    """The rows of ``df`` on the driver, as an Arrow table."""
    return df.toArrow()


def ranked_pairs(pairs: Any, key: int) -> Any:
    """Add ``r``: each pair's 0-based rank in its person's items by the keyed pair hash, and
    ``deg``: the person's number of items.

    Ties of the hash (probability ~2⁻⁶⁴) break by item label, as the local kernel breaks them
    by item id.
    """
    import pandas as pd
    from pyspark.sql import Window
    from pyspark.sql import functions as F

    @F.pandas_udf("long")  # type: ignore[call-overload]
    def hashed(p: pd.Series, i: pd.Series) -> pd.Series:
        return pd.Series(flip(pair_hash(p.to_numpy(), i.to_numpy(), key)))

    by_person = Window.partitionBy("p")
    ordered = by_person.orderBy("h", "i")
    return (
        pairs.withColumn("h", hashed("p", "i"))
        .withColumn("r", F.row_number().over(ordered) - 1)
        .withColumn("deg", F.count(F.lit(1)).over(by_person))
    )


def as_numpy(table: Any, column: str) -> np.ndarray:
    """One column of an Arrow table as a NumPy array."""
    return np.asarray(table.column(column).to_numpy(zero_copy_only=False))
