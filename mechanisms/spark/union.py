"""Set union on Spark: the weight-and-threshold mechanisms, fully distributed.

``dp_sips(SparkPairs(df, person=..., item=...), ...)`` and the other set-union mechanisms
declared for the ``"spark"`` engine reach :func:`set_union` through the engine's adapter
(:mod:`mechanisms.spark.adapter`), as ``dpcount union --engine spark`` does; it can also be
called directly.  Its default, like the command line's on both engines, is ``dp_sips``: exact
noise, ``secure=True``.

Gopi et al. (2020), Algorithm 1 with the distributed choices of its Algorithm 2: each person
keeps the Δ0 items of smallest keyed hash of (person, item) (:mod:`dpcount.spark.hashing`), adds
its contribution (1, 1/|W| or 1/√|W|, in the local fixed-point units) to each, Spark sums per
item, noise keyed by item is added on the executors, and the driver receives one row per item
(its label, whether it is released and, on request, its weight) — O(items) rows, nothing per
pair.

Available: ``dp_sips`` (basic weighting, :mod:`mechanisms.spark.sips`), ``count_laplace``,
``count_gaussian``, ``weighted_laplace``, ``weighted_gaussian`` and ``max_adaptive_degree``.
The policy mechanisms (``policy_laplace``, ``policy_gaussian``, ``greedy_policy``) are
**sequential by nature** — each person's contribution depends on the weights left by everyone
before them in a secret order — so they cannot run as one aggregation and are refused.
``max_adaptive_degree`` runs as a few joins and aggregations (:mod:`mechanisms.spark.adaptive`);
DP-SIPS with the adaptive weighting is not available on Spark yet.

The same data and seed give the same capped sets as the local
:func:`mechanisms.set_union._bounding.cap_contributions_keyed`, and per-item weights equal to
the local ones bit for bit (:func:`~mechanisms.spark.weights.weights_frame`); MAD's rerouted
weights agree up to the order of floating-point summation.
"""

import warnings
from typing import Any

import numpy as np

from dpcount.common.rng import RNGLike, draw_key, spawn
from dpcount.errors import InvalidParameterError
from dpcount.spark.frames import as_numpy, collect
from dpcount.spark.hashing import release_key
from dpcount.spark.ingest import label_array, prepare_pairs, sorted_labels
from dpcount.validation import (
    check_choice,
    check_delta,
    check_epsilon,
    check_nonnegative,
    check_positive_int,
)
from mechanisms.noise import NoiseKey, NoiseMode, noise_key, warn_unsafe
from mechanisms.privacy_loss import privacy_loss_of
from mechanisms.registry import DEFAULT_SET_UNION, names
from mechanisms.set_union.calibration import calibrate
from mechanisms.set_union.result import SetUnionResult, SetUnionRound
from mechanisms.spark.adaptive import mad_weights_frame
from mechanisms.spark.sips import sips_rounds
from mechanisms.spark.weights import kept_column, released_labels, weights_frame

__all__ = ["DEFAULT_ALGORITHM", "SEQUENTIAL", "check_algorithm", "release_keys", "set_union"]

#: Mechanisms whose weighting is a sequential pass over the persons.
SEQUENTIAL = ("policy_laplace", "policy_gaussian", "greedy_policy")
#: The mechanism :func:`set_union` runs without ``algorithm=``: the one every front end runs
#: (exact noise, ``secure=True``).
DEFAULT_ALGORITHM = DEFAULT_SET_UNION


def release_keys(rng: RNGLike, exact: bool = False) -> tuple[np.uint64, bytes | NoiseKey]:
    """(64-bit Δ0-sampling key, noise key), fresh from OS entropy when ``rng`` is None.

    The streams are laid out as the local mechanisms' (user order, sampling, noise), so a
    local mechanism with ``sampling="keyed"`` and the same seed keeps the same Δ0 subsets and,
    with ``exact``, draws the same noise: the :class:`~mechanisms.noise.NoiseKey` of the noise
    stream, as the local release takes it.  Without, a 256-bit key for floating-point noise.

    Examples
    --------
    >>> release_keys(3) == release_keys(3), release_keys(3, exact=True) == release_keys(3, True)
    (True, True)
    """
    _, sampling_rng, noise_rng = spawn(rng, 3)
    noise = noise_key(noise_rng) if exact else release_key(noise_rng)
    return draw_key(sampling_rng), noise


def check_algorithm(mechanism: str) -> None:
    """Refuse a set-union mechanism the Spark engine does not run (its declaration decides)."""
    if mechanism in SEQUENTIAL:
        raise InvalidParameterError(
            f"{mechanism} is sequential by nature (each person's weights depend on everyone "
            "before them) and cannot run on Spark; use dp_sips (the default) or "
            "weighted_gaussian, or collect the graph with dpcount.spark.read_pairs and run it "
            "locally"
        )
    available = names(family="set_union", engine="spark")
    if mechanism not in available:
        raise InvalidParameterError(
            f"mechanism {mechanism!r} is not available on Spark; choose one of {list(available)}"
        )


#: The Spark set union's old parameter names and the local mechanisms' names it takes now.
_OLD_NAMES = {
    "sips_rounds_count": "rounds",
    "sips_ratio": "ratio",
    "mad_d_max": "d_max",
    "mad_tau_offset": "tau_offset",
}


def _renamed(old_names: dict[str, Any]) -> dict[str, Any]:
    """The values given under old names, by their new names (each warns once)."""
    for key in old_names:
        if key not in _OLD_NAMES:
            raise TypeError(f"set_union() got an unexpected keyword argument {key!r}")
        warnings.warn(
            f"set_union({key}=...) is deprecated: pass {_OLD_NAMES[key]}=..., the local "
            "mechanisms' name",
            DeprecationWarning,
            stacklevel=3,
        )
    return {_OLD_NAMES[key]: value for key, value in old_names.items()}


def _algorithm(algorithm: str | None, mechanism: str | None) -> str:
    """``algorithm`` (default :data:`DEFAULT_ALGORITHM`), or the deprecated ``mechanism=``
    when given (not both)."""
    if mechanism is None:
        return DEFAULT_ALGORITHM if algorithm is None else algorithm
    if algorithm not in (None, mechanism):
        raise InvalidParameterError(
            "pass the algorithm once, as algorithm= (mechanism= is its old name)"
        )
    warnings.warn(
        "set_union(mechanism=...) is deprecated: pass algorithm=... (the CLI's --algorithm)",
        DeprecationWarning,
        stacklevel=3,
    )
    return mechanism


def set_union(
    data: Any,
    person: str,
    item: str,
    *,
    epsilon: float,
    delta: float,
    max_items: int = 100,
    algorithm: str | None = None,
    rng: RNGLike = None,
    drop_nulls: bool = False,
    return_weights: bool = False,
    rounds: int = 3,
    ratio: float = 0.3,
    d_max: int | None = None,
    tau_offset: float = 3.0,
    noise: NoiseMode = "exact",
    mechanism: str | None = None,
    **old_names: Any,
) -> SetUnionResult:
    """A private set of items from pairs in Spark (Gopi et al. 2020), fully distributed.

    Parameters
    ----------
    data, person, item, drop_nulls
        As in :func:`dpcount.spark.read_pairs`.
    epsilon, delta, max_items
        ε, δ and Δ0, as in the local mechanisms.
    algorithm
        A set-union mechanism declared for the ``"spark"`` engine: ``dp_sips`` (the default,
        :data:`DEFAULT_ALGORITHM`; basic weighting), the count and weighted ones,
        ``max_adaptive_degree``; the sequential policies are refused.  The CLI's ``--algorithm``.
    rng
        ``None``: fresh secret keys for sampling and noise (the private default).  A seed
        reproduces a release, for research only.
    return_weights
        Also return the pre-noise per-item weights (**not private**; O(items) on the driver);
        refused for ``dp_sips``, whose per-round weights stay on the executors.
    rounds, ratio
        R and r of ``algorithm="dp_sips"``, as in the local :func:`~mechanisms.dp_sips`.
    d_max, tau_offset
        Of ``algorithm="max_adaptive_degree"``, as in the local mechanism.
    noise
        ``"exact"`` (default): fixed-point weights and exact discrete noise drawn on the
        executors, the local release bit for bit (``secure=True``).  ``"float"``: continuous
        noise for experiments (warns, ``secure=False``).  ``max_adaptive_degree`` has no exact
        form yet and always uses floating-point noise.
    mechanism
        The old name of ``algorithm`` (warns :class:`DeprecationWarning`).
    **old_names
        ``sips_rounds_count``, ``sips_ratio``, ``mad_d_max``, ``mad_tau_offset``: the old names
        of ``rounds``, ``ratio``, ``d_max``, ``tau_offset`` (warn :class:`DeprecationWarning`).

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
    mechanism = _algorithm(algorithm, mechanism)
    renamed = _renamed(old_names)
    rounds = renamed.get("rounds", rounds)
    ratio = renamed.get("ratio", ratio)
    d_max = renamed.get("d_max", d_max)
    tau_offset = renamed.get("tau_offset", tau_offset)
    check_algorithm(mechanism)
    if return_weights and mechanism == "dp_sips":
        raise InvalidParameterError(
            "return_weights=True is not available for dp_sips on Spark: pass another algorithm "
            "(e.g. weighted_gaussian) or run dp_sips on a graph"
        )
    eps, dlt = check_epsilon(epsilon), check_delta(delta)
    delta0 = check_positive_int(max_items, "max_items")
    mode: NoiseMode = (
        "exact" if check_choice(noise, "noise", ("exact", "float")) == "exact" else "float"
    )
    if mechanism == "max_adaptive_degree":
        mode = "float"
        warn_unsafe("set union", "continuous noise on real weights")
    elif mode == "float":
        warn_unsafe("set union")
    exact = mode == "exact"
    round_results: tuple[SetUnionRound, ...] = ()
    parameters: dict[str, Any] = {"engine": "spark", "sampling": "keyed"}
    weight_vector = None
    if mechanism == "dp_sips":
        calibration = calibrate("dp_sips", eps, dlt, delta0, rounds=rounds, ratio=ratio, mode=mode)
        released, round_results, pairs = sips_rounds(
            data, person, item, delta0, calibration, rng, drop_nulls
        )
        parameters |= {"rounds": len(round_results), "ratio": float(ratio), "weighting": "basic"}
        labels = sorted_labels(pairs, "i", "item labels")
    elif mechanism == "max_adaptive_degree":
        dm = delta0 if d_max is None else check_positive_int(d_max, "d_max", maximum=delta0)
        beta = check_nonnegative(tau_offset, "tau_offset")
        calibration = calibrate(
            "max_adaptive_degree", eps, dlt, delta0, tau_offset=beta, mode="float"
        )
        sampling_key, key = release_keys(rng)
        pairs = prepare_pairs(data, person, item, None, drop_nulls, dedupe=False)
        tau = float(calibration.cutoff)  # type: ignore[arg-type]
        weights = mad_weights_frame(pairs, delta0, int(sampling_key), dm, tau)
        released = released_labels(weights, key, calibration)
        parameters |= {"d_max": dm, "tau_offset": beta}
        labels = sorted_labels(pairs, "i", "item labels")
        if return_weights:
            table = collect(weights)
            weight_vector = np.zeros(labels.size)
            weight_vector[np.searchsorted(labels, as_numpy(table, "i"))] = as_numpy(table, "w")
    else:  # one round whose weights cover every item: labels, choices and weights in one job
        calibration = calibrate(mechanism, eps, dlt, delta0, mode=mode)
        bits = None if calibration.exact is None else calibration.exact.bits
        sampling_key, key = release_keys(rng, exact)
        pairs = prepare_pairs(data, person, item, None, drop_nulls, dedupe=False)
        weights = weights_frame(pairs, mechanism, delta0, int(sampling_key), bits)
        kept = kept_column(weights, key, calibration).alias("kept")
        table = collect(weights.select("i", kept, *(["w"] if return_weights else [])))
        labels = label_array(table.column("i"), "item labels")
        order = np.argsort(labels, kind="stable")
        labels = labels[order]
        released = labels[as_numpy(table, "kept")[order]]
        if return_weights:  # in weight units (exact: integer units / 2ᵏ)
            weight_vector = as_numpy(table, "w")[order] / float(1 << (bits or 0))
    ids = np.searchsorted(labels, released).astype(np.int64)
    if weight_vector is not None:
        weight_vector.flags.writeable = False
    return SetUnionResult(
        items=labels[ids],
        mechanism=mechanism,
        epsilon=eps,
        delta=dlt,
        max_items=delta0,
        noise=calibration.noise,
        scale=float(calibration.scale),
        threshold=float(calibration.threshold),
        cutoff=None if calibration.cutoff is None else float(calibration.cutoff),
        parameters=parameters,
        # The same loss as the local mechanism (from the parameters alone).
        privacy_loss=privacy_loss_of(
            mechanism,
            epsilon=eps,
            delta=dlt,
            **({"rounds": len(round_results)} if round_results else {}),
        ),
        rounds=round_results,
        weights=weight_vector,
        secure=calibration.secure,
    )
