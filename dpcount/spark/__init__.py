"""Run dpcount releases where the data lives: in Spark (extra ``spark``; PySpark 4, Java 17).

* :func:`read_pairs` — validate, deduplicate and encode in Spark, collect the codes to a
  :class:`~dpcount.PersonItemGraph` (below :data:`DRIVER_PAIR_LIMIT` pairs), for local solvers.
* :func:`set_union` — the weight-and-threshold set unions, fully distributed; the sequential
  policy mechanisms are refused.
* :func:`dpcount_session` — the active SparkSession, or a new one with settings that suit its
  master (shuffle partitions from the local cores, quiet logs, the workers' Python), listed by
  :func:`session_defaults`.
* :func:`distinct_count` — ``counting="sampling"`` distributed (one histogram to the driver);
  ``"matching"`` / ``"greedy"`` collect the graph and run locally.

Keyed hashes of labels (:mod:`dpcount.spark.hashing`) make a seeded Spark run reproduce the
local one; without a seed every release draws fresh secret keys.
"""

from dpcount.spark._session import dpcount_session, session_defaults
from dpcount.spark.count import distinct_count
from dpcount.spark.ingest import DRIVER_PAIR_LIMIT, read_pairs, source_frame
from dpcount.spark.set_union import set_union

__all__ = [
    "DRIVER_PAIR_LIMIT",
    "distinct_count",
    "dpcount_session",
    "read_pairs",
    "session_defaults",
    "set_union",
    "source_frame",
]
