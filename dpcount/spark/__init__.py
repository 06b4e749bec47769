"""Run dpcount releases where the data lives: in Spark (extra ``spark``).

See :mod:`dpcount.spark.ingest`, :mod:`dpcount.spark.set_union` and :mod:`dpcount.spark.count`.
"""

from dpcount.spark.count import distinct_count
from dpcount.spark.ingest import DRIVER_PAIR_LIMIT, read_pairs, source_frame
from dpcount.spark.set_union import set_union

__all__ = ["DRIVER_PAIR_LIMIT", "distinct_count", "read_pairs", "set_union", "source_frame"]
