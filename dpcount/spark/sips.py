"""DP-SIPS on Spark (Swanberg, Desfontaines & Haney 2023), basic weighting.

R rounds of the distributed weighted Gaussian mechanism; after each round the released items
(public output, O(items) on the driver) are removed from every person's pairs by a broadcast
anti-join, and the next round samples Δ0 of the remaining items with a fresh keyed hash.  The
budget split, σ_i, ρ_i and the accounting are those of :func:`mechanisms.set_union.dp_sips`
(``round_shares``, thresholds module), so the guarantee is the same.
"""

import math
from typing import Any

import numpy as np

from dpcount.common.rng import RNGLike, draw_key, spawn
from dpcount.spark.hashing import release_key
from dpcount.spark.ingest import prepare_pairs
from mechanisms.set_union import thresholds
from mechanisms.set_union.result import SetUnionRound
from mechanisms.set_union.sips import round_shares

__all__ = ["sips_rounds"]


def sips_rounds(
    data: Any,
    person: str,
    item: str,
    eps: float,
    dlt: float,
    delta0: int,
    rounds: int,
    ratio: float,
    rng: RNGLike,
    drop_nulls: bool,
) -> tuple[np.ndarray, tuple[SetUnionRound, ...], Any]:
    """Released labels, per-round summaries and the validated pairs of a DP-SIPS run."""
    from pyspark.sql import functions as F

    from dpcount.spark.set_union import _released, weights_frame

    shares = round_shares(rounds, ratio)
    sigma = thresholds.gaussian_sigma(eps, dlt / 2)  # μ = 1/σ for the whole run
    _, sampling_rng, noise_rng = spawn(rng, 3)  # the local streams' layout
    sampling_keys = [draw_key(g) for g in spawn(sampling_rng, shares.size)]
    noise_keys = [release_key(g) for g in spawn(noise_rng, shares.size)]
    pairs = prepare_pairs(data, person, item, None, drop_nulls, dedupe=False).cache()
    remaining = pairs
    released_all: list[np.ndarray] = []
    info: list[SetUnionRound] = []
    for share, s_key, n_key in zip(shares, sampling_keys, noise_keys, strict=True):
        sigma_i = sigma / math.sqrt(share)  # Swanberg et al. budget split, as the local dp_sips
        delta_novel = share * dlt / 2
        rho_i = thresholds.gaussian_threshold(sigma_i, 2 * delta_novel, delta0)
        weights = weights_frame(remaining, "weighted_gaussian", delta0, int(s_key))
        released = _released(weights, n_key, "gaussian", sigma_i, rho_i)
        if released.size:
            spark = pairs.sparkSession
            gone = spark.createDataFrame([(x,) for x in released.tolist()], ["i"])
            remaining = remaining.join(F.broadcast(gone), on="i", how="left_anti")
        released_all.append(released)
        info.append(SetUnionRound(sigma_i, rho_i, None, delta_novel, int(released.size)))
    return np.sort(np.concatenate(released_all)), tuple(info), pairs
