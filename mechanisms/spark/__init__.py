"""The mechanisms' Spark engine: distributed set union and distinct count.

Callers pass pairs held in Spark to the usual functions as a handle,
``weighted_gaussian(dpcount.spark.SparkPairs(df, person="user", item="item"), 1.0, 1e-6)``,
and the mechanism's declaration routes the call here (:mod:`mechanisms.spark.adapter`).  The two
functions below are the same releases with the Spark data as three arguments:

* :func:`set_union` — the weight-and-threshold set unions, fully distributed
  (:mod:`mechanisms.spark.union`, one round in :mod:`mechanisms.spark.weights`, DP-SIPS in
  :mod:`mechanisms.spark.sips`, the adaptive weighting in :mod:`mechanisms.spark.adaptive`); the
  sequential policy mechanisms are refused.
* :func:`distinct_count` — the person-level distinct count (:mod:`mechanisms.spark.count`):
  ``counting="sampling"`` distributed; ``"matching"`` (default) / ``"greedy"`` collect the graph.

The data plumbing (reading, validating, ranking, hashing) is :mod:`dpcount.spark`'s.
"""

from mechanisms.spark.count import distinct_count
from mechanisms.spark.union import set_union

__all__ = ["distinct_count", "set_union"]
