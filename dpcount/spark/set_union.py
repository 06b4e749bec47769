"""Set union on Spark: the weight-and-threshold mechanisms, fully distributed.

Gopi et al. (2020), Algorithm 1 with the distributed choices of its Algorithm 2: each person
keeps the Δ0 items of smallest keyed hash of (person, item) (:mod:`dpcount.spark.hashing`), adds
its contribution (1, 1/|W| or 1/√|W|, in the local fixed-point units) to each, Spark sums per
item, noise keyed by item is added on the executors, and the driver receives one row per item
(its label, whether it is released and, on request, its weight) — O(items) rows, nothing per
pair.

Available: ``count_laplace``, ``count_gaussian``, ``weighted_laplace``, ``weighted_gaussian``,
``max_adaptive_degree`` and ``dp_sips`` (basic weighting, :mod:`dpcount.spark.sips`).
The policy mechanisms (``policy_laplace``, ``policy_gaussian``, ``greedy_policy``) are
**sequential by nature** — each person's contribution depends on the weights left by everyone
before them in a secret order — so they cannot run as one aggregation and are refused.
``max_adaptive_degree`` runs as a few joins and aggregations (:mod:`dpcount.spark.adaptive`);
DP-SIPS with the adaptive weighting is not available on Spark yet.

The same data and seed give the same capped sets as the local
:func:`mechanisms.set_union._bounding.cap_contributions_keyed`, and per-item weights equal to
the local ones bit for bit (:func:`weights_frame`); MAD's rerouted weights agree up to the order
of floating-point summation.
"""

import math
from typing import Any

import numpy as np

from dpcount.common.rng import RNGLike, draw_key, spawn
from dpcount.errors import InvalidParameterError
from dpcount.spark._frames import as_numpy, collect, explode_ranks, person_items
from dpcount.spark.adaptive import mad_weights_frame
from dpcount.spark.hashing import item_noise, label_key_column, release_key
from dpcount.spark.ingest import label_array, prepare_pairs, sorted_labels
from dpcount.spark.sips import sips_rounds
from dpcount.validation import check_delta, check_epsilon, check_nonnegative, check_positive_int
from mechanisms.noise import warn_unsafe
from mechanisms.privacy_loss import privacy_loss_of
from mechanisms.registry import names
from mechanisms.set_union import thresholds
from mechanisms.set_union._release import Noise
from mechanisms.set_union.result import SetUnionResult, SetUnionRound
from mechanisms.set_union.weighted import UNIT, contribution_units

__all__ = ["SEQUENTIAL", "release_keys", "set_union"]

#: The one-round mechanisms → (norm of a person's contribution or None for counts, noise).
#: Which mechanisms run on Spark at all is declared with each one (:mod:`mechanisms.registry`).
_WEIGHTING: dict[str, tuple[int | None, Noise]] = {
    "count_laplace": (None, "laplace"),
    "count_gaussian": (None, "gaussian"),
    "weighted_laplace": (1, "laplace"),
    "weighted_gaussian": (2, "gaussian"),
}
#: Mechanisms whose weighting is a sequential pass over the persons.
SEQUENTIAL = ("policy_laplace", "policy_gaussian", "greedy_policy")


def release_keys(rng: RNGLike) -> tuple[np.uint64, bytes]:
    """(64-bit Δ0-sampling key, 256-bit noise key), fresh from OS entropy when ``rng`` is None.

    The streams are laid out as the local mechanisms' (user order, sampling, noise), so a
    local mechanism with ``sampling="keyed"`` and the same seed keeps the same Δ0 subsets.

    Examples
    --------
    >>> release_keys(3) == release_keys(3)
    True
    """
    _, sampling_rng, noise_rng = spawn(rng, 3)
    return draw_key(sampling_rng), release_key(noise_rng)


def _scale_threshold(mechanism: str, eps: float, dlt: float, delta0: int) -> tuple[float, float]:
    """Noise scale and ρ exactly as the local mechanisms (mechanisms/set_union/weighted.py)."""
    norm, noise = _WEIGHTING[mechanism]
    if norm is None and noise == "laplace":  # ℓ1-sensitivity Δ0 (Gopi Thm A.1)
        scale = delta0 / eps
        return scale, thresholds.laplace_threshold(scale, dlt, delta0, novel_weight="unit")
    if norm is None:  # ℓ2-sensitivity √Δ0 (Gopi Thm A.2)
        sigma = thresholds.gaussian_sigma(eps, dlt / 2, sensitivity=math.sqrt(delta0))
        return sigma, thresholds.gaussian_threshold(sigma, dlt, delta0, novel_weight="unit")
    if noise == "laplace":  # Gopi Thm B.1
        return 1.0 / eps, thresholds.laplace_threshold(1.0 / eps, dlt, delta0)
    sigma = thresholds.gaussian_sigma(eps, dlt / 2)  # Gopi Thm B.2
    return sigma, thresholds.gaussian_threshold(sigma, dlt, delta0)


def _check_mechanism(mechanism: str) -> None:
    if mechanism in SEQUENTIAL:
        raise InvalidParameterError(
            f"{mechanism} is sequential by nature (each person's weights depend on everyone "
            "before them) and cannot run on Spark; use weighted_gaussian or weighted_laplace, or "
            "collect the graph with dpcount.spark.read_pairs and run it locally"
        )
    available = names(family="set_union", engine="spark")
    if mechanism not in available:
        raise InvalidParameterError(
            f"mechanism {mechanism!r} is not available on Spark; choose one of {list(available)}"
        )


def weights_frame(pairs: Any, mechanism: str, max_items: int, key: int) -> Any:
    """Per-item weights ``(i, w)`` of the keyed capped sets, computed in Spark, for every item
    (weight 0 when no holder keeps it).

    Counts are sums of ones; weighted contributions are the local fixed-point units
    (:func:`~mechanisms.set_union.weighted.contribution_units`), so the per-item sums are exact
    integers and equal the local :func:`~mechanisms.set_union.weighted.basic_weights` and
    :func:`~mechanisms.set_union.weighted.count_weights` bit for bit, whatever the partitioning.
    One shuffle by person to rank, one by item to sum.
    """
    from pyspark.sql import functions as F

    norm = _WEIGHTING[mechanism][0]
    if norm is None:
        unit, scale = F.lit(1), 1.0
    else:
        units = F.array(*[F.lit(int(u)) for u in contribution_units(max_items, norm)])
        unit, scale = F.element_at(units, F.least("deg", F.lit(max_items)).cast("int") + 1), UNIT
    kept_unit = F.when(F.col("r") < max_items, unit).otherwise(F.lit(0)).cast("long")
    total = F.sum(kept_unit).cast("double") * F.lit(scale)
    ranked = explode_ranks(person_items(pairs, key, sort_above=max_items))  # every item
    return ranked.groupBy("i").agg(total.alias("w"))


def set_union(
    data: Any,
    person: str,
    item: str,
    *,
    epsilon: float,
    delta: float,
    max_items: int = 100,
    mechanism: str = "weighted_gaussian",
    rng: RNGLike = None,
    drop_nulls: bool = False,
    return_weights: bool = False,
    sips_rounds_count: int = 3,
    sips_ratio: float = 0.3,
    mad_d_max: int | None = None,
    mad_tau_offset: float = 3.0,
) -> SetUnionResult:
    """A private set of items from pairs in Spark (Gopi et al. 2020), fully distributed.

    Parameters
    ----------
    data, person, item, drop_nulls
        As in :func:`dpcount.spark.read_pairs`.
    epsilon, delta, max_items
        ε, δ and Δ0, as in the local mechanisms.
    mechanism
        A set-union mechanism declared for the ``"spark"`` engine (the count and weighted ones,
        ``dp_sips`` with basic weighting, ``max_adaptive_degree``); the sequential policies
        are refused.
    rng
        ``None``: fresh secret keys for sampling and noise (the private default).  A seed
        reproduces a release, for research only.
    return_weights
        Also return the pre-noise per-item weights (**not private**; O(items) on the driver);
        not for ``dp_sips``.
    sips_rounds_count, sips_ratio
        R and r of ``mechanism="dp_sips"``, as ``rounds`` / ``ratio`` of the local function.
    mad_d_max, mad_tau_offset
        ``d_max`` and ``tau_offset`` of ``mechanism="max_adaptive_degree"``.

    Returns
    -------
    SetUnionResult
        As the local mechanism returns (``weights``, on request, index the sorted distinct
        items).

    Notes
    -----
    (ε, δ)-DP under adding or removing one person, by the theorems the local mechanisms cite:
    the capped set of a person depends on their labels and the secret key only.
    """
    _check_mechanism(mechanism)
    eps, dlt = check_epsilon(epsilon), check_delta(delta)
    delta0 = check_positive_int(max_items, "max_items")
    warn_unsafe("set union", "continuous noise on real weights")
    rounds: tuple[SetUnionRound, ...] = ()
    noise: Noise = "gaussian"
    cutoff: float | None = None
    parameters: dict[str, Any] = {"engine": "spark", "sampling": "keyed"}
    weight_vector = None
    if mechanism == "dp_sips":
        released, rounds, pairs = sips_rounds(
            data, person, item, eps, dlt, delta0, sips_rounds_count, sips_ratio, rng, drop_nulls
        )
        scale, rho = rounds[-1].scale, rounds[-1].threshold
        parameters |= {"rounds": len(rounds), "ratio": float(sips_ratio), "weighting": "basic"}
        labels = sorted_labels(pairs, "i", "item labels")
    elif mechanism == "max_adaptive_degree":
        dm = delta0 if mad_d_max is None else check_positive_int(mad_d_max, "d_max", maximum=delta0)
        beta = check_nonnegative(mad_tau_offset, "tau_offset")
        scale = thresholds.gaussian_sigma(eps, dlt / 2)  # as the local max_adaptive_degree
        rho = thresholds.gaussian_threshold(scale, dlt, delta0)
        cutoff = rho + beta * scale
        sampling_key, noise_key = release_keys(rng)
        pairs = prepare_pairs(data, person, item, None, drop_nulls, dedupe=False)
        weights = mad_weights_frame(pairs, delta0, int(sampling_key), dm, cutoff)
        released = _released(weights, noise_key, noise, scale, rho)
        parameters |= {"d_max": dm, "tau_offset": beta}
        labels = sorted_labels(pairs, "i", "item labels")
        if return_weights:
            table = collect(weights)
            weight_vector = np.zeros(labels.size)
            weight_vector[np.searchsorted(labels, as_numpy(table, "i"))] = as_numpy(table, "w")
    else:  # one round whose weights cover every item: labels, choices and weights in one job
        _, noise = _WEIGHTING[mechanism]
        scale, rho = _scale_threshold(mechanism, eps, dlt, delta0)
        sampling_key, noise_key = release_keys(rng)
        pairs = prepare_pairs(data, person, item, None, drop_nulls, dedupe=False)
        weights = weights_frame(pairs, mechanism, delta0, int(sampling_key))
        kept = _kept(weights, noise_key, noise, scale, rho).alias("kept")
        table = collect(weights.select("i", kept, *(["w"] if return_weights else [])))
        labels = label_array(table.column("i"), "item labels")
        order = np.argsort(labels, kind="stable")
        labels = labels[order]
        released = labels[as_numpy(table, "kept")[order]]
        if return_weights:
            weight_vector = as_numpy(table, "w")[order]
    ids = np.searchsorted(labels, released).astype(np.int64)
    if weight_vector is not None:
        weight_vector.flags.writeable = False
    return SetUnionResult(
        items=labels[ids],
        mechanism=mechanism,
        epsilon=eps,
        delta=dlt,
        max_items=delta0,
        noise=noise,
        scale=float(scale),
        threshold=float(rho),
        cutoff=cutoff,
        parameters=parameters,
        # The same loss as the local mechanism (from the parameters alone).
        privacy_loss=privacy_loss_of(
            mechanism, epsilon=eps, delta=dlt, **({"rounds": len(rounds)} if rounds else {})
        ),
        rounds=rounds,
        weights=weight_vector,
    )


def _kept(weights: Any, noise_key: bytes, noise: Noise, scale: float, rho: float) -> Any:
    """Whether an item is released: held after capping and weight plus noise above ρ (Gopi
    Alg. 1).  The noise is keyed by the item's label key, on the executors."""
    import pandas as pd
    from pyspark.sql import functions as F

    @F.pandas_udf("double")  # type: ignore[call-overload]
    def noisy(keys: pd.Series, w: pd.Series) -> pd.Series:
        z = item_noise(keys.to_numpy().view(np.uint64), noise_key, noise, scale)
        return pd.Series(w.to_numpy() + z)

    held = F.col("w") > 0  # an item nobody contributed to is never a candidate
    return held & (noisy(label_key_column(weights, "i"), "w") > rho)


def _released(weights: Any, noise_key: bytes, noise: Noise, scale: float, rho: float) -> np.ndarray:
    """Sorted labels of the released items of ``weights`` (only those reach the driver)."""
    chosen = weights.where(_kept(weights, noise_key, noise, scale, rho)).select("i")
    return np.sort(label_array(collect(chosen).column("i"), "item labels"))
