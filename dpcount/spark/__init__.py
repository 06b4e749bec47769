"""Spark data plumbing (extra ``spark``; PySpark 4, Java 17): the pairs where they live.

* :class:`SparkPairs` — the handle that passes pairs held in Spark to the same release
  functions and :class:`mechanisms.Session` as a graph: ``weighted_gaussian(SparkPairs(df,
  person="user", item="item"), 1.0, 1e-6)`` runs distributed (the mechanisms' Spark engine is
  :mod:`mechanisms.spark`).
* :func:`read_pairs` — validate, deduplicate and encode in Spark, collect the codes to a
  :class:`~dpcount.PersonItemGraph` (below :data:`DRIVER_PAIR_LIMIT` pairs), for local solvers.
* :func:`dpcount_session` — the active SparkSession, or a new one with settings that suit its
  master (shuffle partitions from the local cores, quiet logs, the workers' Python), listed by
  :func:`session_defaults`.
* :mod:`dpcount.spark.frames`, :mod:`dpcount.spark.curve`, :mod:`dpcount.spark.hashing` — the
  building blocks: per-person ranked items, the nested-sampling curve, keyed hashes and noise
  identical on the executors and in NumPy (so a seeded Spark run reproduces the local one).

This package knows nothing of privacy: it imports neither ``matching`` nor ``mechanisms``.
"""

from dpcount.spark._session import dpcount_session, session_defaults
from dpcount.spark.ingest import DRIVER_PAIR_LIMIT, read_pairs, source_frame
from dpcount.spark.pairs import SparkPairs

__all__ = [
    "DRIVER_PAIR_LIMIT",
    "SparkPairs",
    "dpcount_session",
    "read_pairs",
    "session_defaults",
    "source_frame",
]
