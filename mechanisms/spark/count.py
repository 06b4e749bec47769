"""The person-level distinct count on Spark (Knop & Steinke 2023, Algorithm 1 + GEM).

``counting="sampling"`` runs distributed: the nested-sampling curve is computed in Spark
(:func:`dpcount.spark.curve.sampling_curve`, §4.2, counting option 1) and only its histogram —
at most ℓ_max + 1 rows — reaches the driver, where GEM and the Laplace release run through
:func:`mechanisms.distinct_count.dp_distinct_count_from_curve`.
With the same seed the curve, and hence the release, equals the local ``counting="sampling"``.

``counting="matching"`` (the default, as in the local function and the CLI) and ``"greedy"``
need the whole graph: it is encoded in Spark and collected (:func:`dpcount.spark.read_pairs`),
then solved locally.  Above the driver's pair limit that is refused with a message naming
``counting="sampling"``, the distributed option.
"""

from __future__ import annotations

from typing import Any

from dpcount.common.rng import RNGLike, draw_key, spawn
from dpcount.spark.curve import degrees, sampling_curve
from dpcount.spark.frames import person_items
from dpcount.spark.ingest import DRIVER_PAIR_LIMIT, prepare_pairs, read_pairs
from mechanisms._defaults import DEFAULT_BETA
from mechanisms.distinct_count import (
    Counting,
    DistinctCountResult,
    SelectionRule,
    _check_parameters,
    curve_length,
    dp_distinct_count,
    dp_distinct_count_from_curve,
    public_ell,
)
from mechanisms.noise import NoiseMode

__all__ = ["distinct_count"]


def distinct_count(
    data: Any,
    person: str,
    item: str,
    epsilon: float,
    *,
    beta: float = DEFAULT_BETA,
    ell_max: int = 100,
    ell: int | None = None,
    counting: Counting = "matching",
    selection: SelectionRule = "gem",
    noise: NoiseMode = "exact",
    rng: RNGLike = None,
    drop_nulls: bool = False,
    max_pairs: int = DRIVER_PAIR_LIMIT,
    diagnostics: bool = False,
) -> DistinctCountResult:
    """:func:`mechanisms.dp_distinct_count` on pairs held in Spark.

    Parameters
    ----------
    data, person, item, drop_nulls
        As in :func:`dpcount.spark.read_pairs`.
    epsilon, beta, ell_max, ell, selection, noise, diagnostics
        As in :func:`mechanisms.dp_distinct_count` (a public ``ell`` spends all of ε on the
        count; only DC(D;ℓ) up to that ℓ is computed).
    counting
        ``"matching"`` (the default, as in the local function) or ``"greedy"``: the graph is
        collected to the driver, up to ``max_pairs`` pairs, and solved locally.
        ``"sampling"``: distributed, only a histogram of at most ℓ_max rows reaches the driver;
        for data whose graph does not fit the driver.
    rng
        As in the local function; the same seed gives the same release as the local path.
    max_pairs
        Driver limit for ``"matching"`` / ``"greedy"`` (see :func:`dpcount.spark.read_pairs`).

    Returns
    -------
    DistinctCountResult
    """
    eps, b, ell_max = _check_parameters(epsilon, beta, ell_max, counting, selection, noise)
    fixed = public_ell(ell, ell_max, selection)
    if counting != "sampling":
        graph = read_pairs(data, person, item, None, drop_nulls, max_pairs=max_pairs)
        return dp_distinct_count(
            graph,
            eps,
            beta=b,
            ell_max=ell_max,
            ell=ell,
            counting=counting,
            selection=selection,
            noise=noise,
            rng=rng,
            diagnostics=diagnostics,
        )
    # The local function's stream layout, so one seed gives the same release on both paths.
    selection_rng, noise_rng, curve_rng = spawn(rng, 3)
    key = draw_key(curve_rng)
    pairs = prepare_pairs(data, person, item, None, drop_nulls, dedupe=False)
    per_person = person_items(pairs, int(key)).cache()
    try:
        person_degrees = degrees(per_person)
        length = curve_length(person_degrees, ell_max if fixed is None else fixed, selection)
        curve = sampling_curve(pairs, length, int(key), per_person=per_person)
    finally:
        per_person.unpersist()
    return dp_distinct_count_from_curve(
        curve,
        person_degrees,
        eps,
        beta=b,
        ell_max=ell_max,
        ell=ell,
        counting="sampling",
        selection=selection,
        noise=noise,
        selection_rng=selection_rng,
        noise_rng=noise_rng,
        diagnostics=diagnostics,
    )
