"""Run dpcount releases where the data lives: in Spark (extra ``spark``).

See :mod:`dpcount.spark.ingest`, :mod:`dpcount.spark.set_union` and :mod:`dpcount.spark.count`.
"""

from dpcount.spark.ingest import DRIVER_PAIR_LIMIT, read_pairs

__all__ = ["DRIVER_PAIR_LIMIT", "read_pairs"]
