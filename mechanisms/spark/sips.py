"""DP-SIPS on Spark (Swanberg, Desfontaines & Haney 2023), basic weighting.

R rounds of the distributed weighted Gaussian mechanism; after each round the released items
(public output, O(items) on the driver) are removed from every person's pairs by a broadcast
anti-join, and the next round samples Δ0 of the remaining items with a fresh keyed hash.  The
budget split, σ_i, ρ_i and the accounting are those of :func:`mechanisms.set_union.dp_sips`
(one calibration, :func:`mechanisms.set_union.calibration.calibrate`), so the guarantee is
the same.
"""

from typing import Any

import numpy as np

from dpcount.common.rng import RNGLike, draw_key, spawn
from dpcount.spark.hashing import release_key
from dpcount.spark.ingest import prepare_pairs
from mechanisms.noise import noise_key
from mechanisms.set_union.calibration import Calibration
from mechanisms.set_union.result import SetUnionRound
from mechanisms.spark.weights import released_labels, weights_frame

__all__ = ["sips_rounds"]


def sips_rounds(
    data: Any,
    person: str,
    item: str,
    delta0: int,
    calibration: Calibration,
    rng: RNGLike,
    drop_nulls: bool,
) -> tuple[np.ndarray, tuple[SetUnionRound, ...], Any]:
    """Released labels, per-round summaries and the validated pairs of a DP-SIPS run.

    ``calibration`` is :func:`mechanisms.set_union.calibration.calibrate` of ``"dp_sips"``
    with basic weighting: the local function's σ_i, ρ_i and δ_i.
    """
    from pyspark.sql import functions as F

    n_rounds = len(calibration.rounds)
    _, sampling_rng, noise_rng = spawn(rng, 3)  # the local streams' layout
    sampling_keys = [draw_key(g) for g in spawn(sampling_rng, n_rounds)]
    exact = calibration.exact is not None
    # The local dp_sips's per-round keys: NoiseKey for exact noise, 256 bits for float noise.
    noise_keys = [noise_key(g) if exact else release_key(g) for g in spawn(noise_rng, n_rounds)]
    pairs = prepare_pairs(data, person, item, None, drop_nulls, dedupe=False).cache()
    remaining = pairs
    released_all: list[np.ndarray] = []
    info: list[SetUnionRound] = []
    for plan, s_key, n_key in zip(calibration.rounds, sampling_keys, noise_keys, strict=True):
        bits = None if plan.exact is None else plan.exact.bits
        weights = weights_frame(remaining, "weighted_gaussian", delta0, int(s_key), bits)
        round_calibration = Calibration(
            "dp_sips", "gaussian", plan.scale, plan.threshold, exact=plan.exact
        )
        released = released_labels(weights, n_key, round_calibration)
        if released.size:
            spark = pairs.sparkSession
            gone = spark.createDataFrame([(x,) for x in released.tolist()], ["i"])
            remaining = remaining.join(F.broadcast(gone), on="i", how="left_anti")
        released_all.append(released)
        info.append(
            SetUnionRound(plan.scale, plan.threshold, None, plan.delta_novel, int(released.size))
        )
    return np.sort(np.concatenate(released_all)), tuple(info), pairs
