"""The steps every weight-and-threshold mechanism shares: checks, noise, threshold, result.

Gopi et al. (2020), Algorithm 1: add noise to the weight of every item in the union of the
(capped) sets and release the items whose noisy weight exceeds ρ.  By default (``noise=
"exact"``) the weights are integers in units of 2⁻ᵏ and the noise is exact discrete Laplace or
Gaussian keyed by each item's label (:mod:`~mechanisms.set_union.fixed_point`), so the Spark
engine draws the same values.  ``noise="float"`` keeps the papers' continuous noise on real
weights, drawn with NumPy (open to the attacks of Mironov 2012: for experiments only).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from types import MappingProxyType
from typing import Any

import numpy as np

from dpcount.common.hashing import label_keys
from dpcount.common.rng import RNGLike, spawn
from dpcount.graph import PersonItemGraph
from dpcount.validation import (
    check_choice,
    check_delta,
    check_epsilon,
    check_graph,
    check_positive_int,
    check_release_delta,
)
from mechanisms import noise as _noise
from mechanisms.accounting import PrivacyLoss
from mechanisms.noise import NoiseMode
from mechanisms.set_union._bounding import CappedSets, sample_contributions
from mechanisms.set_union.calibration import Calibration, Exact, Noise, zcdp_statement
from mechanisms.set_union.fixed_point import noisy_above
from mechanisms.set_union.result import SetUnionResult, SetUnionRound


@dataclass(frozen=True)
class Streams:
    """Independent child streams: user order, Δ0 sampling, noise (docs/concepts.md)."""

    order: np.random.Generator
    sampling: np.random.Generator
    noise: np.random.Generator


def check_common(
    graph: PersonItemGraph,
    epsilon: float,
    delta: float,
    max_items: int,
    noise: NoiseMode | None = None,
) -> tuple[float, float, int]:
    """Validate the arguments every mechanism takes; warn for floating-point noise.

    ``noise`` is the caller's choice, or None for a mechanism without an exact form.
    """
    check_graph(graph)
    checked = (
        check_epsilon(epsilon),
        check_release_delta(delta, stacklevel=4),  # refuse δ ≥ 1, warn far above 1/n
        check_positive_int(max_items, "max_items"),
    )
    if noise is None:
        _noise.warn_unsafe("set union", "continuous noise on real weights", stacklevel=4)
    elif check_choice(noise, "noise", ("exact", "float")) == "float":
        _noise.warn_unsafe("set union", stacklevel=4)
    return checked


def set_union_loss(guarantee: str, noise: Noise, epsilon: float, delta: float) -> PrivacyLoss:
    """The (ε, δ) of a weight-and-threshold mechanism from its parameters alone (no data).

    ``guarantee`` names the theorem the (ε, δ) rests on; each mechanism's module states it in
    its own loss function (e.g. :func:`~mechanisms.set_union.weighted.weighted_gaussian_loss`).

    Examples
    --------
    >>> set_union_loss("weighted Gaussian set union (Gopi et al. 2020, B.2)", "gaussian", 1.0, 1e-6)
    PrivacyLoss(epsilon=1, delta=1e-06, 'weighted Gaussian set union (Gopi et al. 2020, B.2)')
    """
    eps, dlt = check_epsilon(epsilon), check_delta(delta)
    return PrivacyLoss(eps, dlt, guarantee, zcdp=zcdp_statement(noise, eps, dlt))


def threshold_loss(
    name: str, guarantee: str, noise: Noise
) -> Callable[[float, float], PrivacyLoss]:
    """The privacy map of the one-round mechanism ``name``: :func:`set_union_loss` of the
    theorem it rests on (named in ``guarantee``) and its noise.

    Examples
    --------
    >>> loss = threshold_loss("toy", "toy set union (a theorem)", "laplace")
    >>> loss.__name__, loss(1.0, 1e-6).description
    ('toy_loss', 'toy set union (a theorem)')
    """

    def loss(epsilon: float, delta: float) -> PrivacyLoss:
        return set_union_loss(guarantee, noise, epsilon, delta)

    loss.__name__ = loss.__qualname__ = f"{name}_loss"
    loss.__doc__ = f"The (ε, δ) of :func:`{name}` from its parameters alone: {guarantee}."
    return loss


#: What a session fixes for every set-union mechanism: no raw (non-private) weights.
NO_WEIGHTS = MappingProxyType({"return_weights": False})


def streams(rng: RNGLike) -> Streams:
    """Three independent child streams of ``rng``."""
    order, sampling, noise_rng = spawn(rng, 3)
    return Streams(order, sampling, noise_rng)


def release(
    weights: np.ndarray,
    sets: CappedSets,
    noise: Noise,
    scale: float,
    threshold: float,
    rng: np.random.Generator,
) -> np.ndarray:
    """Ids of the items of ``sets`` whose weight plus noise exceeds ρ (Gopi Alg. 1).

    Only items some person holds after capping are candidates: an item nobody contributed
    has no entry in the histogram and is never released.
    """
    candidates = np.flatnonzero(sets.holders() > 0)
    if noise == "laplace":
        z = _noise.float_laplace(scale, rng, candidates.size)
    else:
        z = _noise.float_gaussian(scale, rng, candidates.size)
    return candidates[weights[candidates] + z > threshold]


def release_exact(
    units: np.ndarray,
    sets: CappedSets,
    graph: PersonItemGraph,
    noise: Noise,
    exact: Exact,
    key: _noise.NoiseKey,
) -> np.ndarray:
    """Ids of the held items whose integer weight plus exact discrete noise exceeds ρ.

    Each item's noise is drawn from the row of its label key (as the Spark engine draws it).
    """
    candidates = np.flatnonzero(sets.holders() > 0)
    rows = label_keys(graph.item_labels[candidates])
    kept = noisy_above(units[candidates], rows, noise, exact.parameter, exact.threshold, key)
    return candidates[kept]


def real_weights(weights: np.ndarray, exact: Exact | None) -> np.ndarray:
    """Weights in weight units (integer units divided by 2ᵏ), for ``return_weights``."""
    return weights if exact is None else weights / float(1 << exact.bits)


def build_result(
    graph: PersonItemGraph,
    released: np.ndarray,
    calibration: Calibration,
    *,
    epsilon: float,
    delta: float,
    max_items: int,
    parameters: Mapping[str, Any],
    privacy_loss: PrivacyLoss,
    rounds: tuple[SetUnionRound, ...] = (),
    weights: np.ndarray | None = None,
) -> SetUnionResult:
    """Assemble the frozen result (released ids sorted, so labels are in label order)."""
    ids = np.sort(np.asarray(released, dtype=np.int64))
    if weights is not None:
        weights = np.array(weights)
        weights.flags.writeable = False
    cutoff = calibration.cutoff
    return SetUnionResult(
        items=graph.item_labels[ids],
        mechanism=calibration.mechanism,
        epsilon=epsilon,
        delta=delta,
        max_items=max_items,
        noise=calibration.noise,
        scale=float(calibration.scale),
        threshold=float(calibration.threshold),
        cutoff=None if cutoff is None else float(cutoff),
        parameters=dict(parameters),
        privacy_loss=privacy_loss,
        rounds=rounds,
        weights=weights,
        secure=calibration.secure,
    )


def single_round_result(
    graph: PersonItemGraph,
    calibration: Calibration,
    *,
    epsilon: float,
    delta: float,
    max_items: int,
    rng: RNGLike,
    weigh: Callable[[CappedSets, Streams], np.ndarray],
    privacy_loss: PrivacyLoss,
    parameters: Mapping[str, Any] | None = None,
    return_weights: bool = False,
    sampling: str = "uniform",
) -> SetUnionResult:
    """One weigh–noise–threshold round and its result: the body of every one-round mechanism.

    Caps contributions (Δ0 sampling), weighs, adds the calibrated noise and keeps the items
    above the threshold (Gopi Alg. 1).  With an exact calibration ``weigh`` returns integer
    units of 2⁻ᵏ and the noise is exact.
    """
    rngs = streams(rng)
    sets = sample_contributions(
        graph, CappedSets.from_graph(graph), max_items, rngs.sampling, sampling
    )
    weights = weigh(sets, rngs)
    c = calibration
    if c.exact is None:
        released = release(weights, sets, c.noise, c.scale, c.threshold, rngs.noise)
    else:
        key = _noise.noise_key(rngs.noise)
        released = release_exact(weights, sets, graph, c.noise, c.exact, key)
    return build_result(
        graph,
        released,
        calibration,
        epsilon=epsilon,
        delta=delta,
        max_items=max_items,
        parameters={**(parameters or {}), "sampling": sampling},
        privacy_loss=privacy_loss,
        weights=real_weights(weights, c.exact) if return_weights else None,
    )
