"""``dc_curve``, ``dc_value`` and ``contributions``: one entry point, a method per module.

The solvers live one per file (``flow.py``, ``hopcroft_karp.py``, ``incremental.py`` …); this
module checks parameters, picks the solver and wraps witnesses.  Solver modules are imported on
first use, so ``import matching`` does not pull in networkx or igraph.

Examples
--------
>>> from dpcount import PersonItemGraph
>>> g = PersonItemGraph.from_sets({"a": {1, 2, 3}, "b": {1}, "c": {1}})
>>> dc_curve(g, 4).tolist(), dc_curve(g, 4, method="greedy").tolist()
([2, 3, 3, 3], [1, 2, 3, 3])
"""

from __future__ import annotations

import importlib
from typing import Any

import numpy as np

from dpcount.common.rng import RNGLike
from dpcount.errors import InvalidParameterError, Option
from dpcount.graph import PersonItemGraph
from dpcount.validation import check_choice, check_graph
from matching._common import Solver, check_ell
from matching.contributions import Contributions

__all__ = [
    "APPROXIMATE_METHODS",
    "EXACT_METHODS",
    "MAX_CURVE_LENGTH",
    "METHODS",
    "contributions",
    "dc_curve",
    "dc_value",
]

#: Methods that return DC(D;ℓ) itself; all give the same numbers.
EXACT_METHODS = ("incremental", "flow", "hopcroft_karp", "networkx", "igraph")
#: Lower bounds on DC(D;ℓ) with sensitivity ℓ: Algorithm 2/4 and the sampling baseline.
APPROXIMATE_METHODS = ("greedy", "sampling")
#: Every accepted ``method``; ``"auto"`` is the fastest exact one (``"incremental"``).
METHODS = ("auto", *EXACT_METHODS, *APPROXIMATE_METHODS)

#: The longest curve :func:`dc_curve` returns (128 MiB of int64).  The curve is constant from the
#: largest degree on, so no data needs more; a public cap, so that ``ell_max = 2³¹ − 1`` on a
#: three-row file is refused at once instead of allocating 16 GiB.  :func:`dc_value` and
#: :func:`contributions` take any ℓ up to ``MAX_ELL``: they hold nothing of size ℓ.
MAX_CURVE_LENGTH = 1 << 24

# name -> the module whose ``SOLVER`` (a matching._common.Solver) implements it; imported on
# first use so that ``import matching`` loads neither networkx, igraph nor SciPy's csgraph.
_SOLVER_MODULES: dict[str, str] = {
    "incremental": "matching.incremental",
    "flow": "matching.flow",
    "hopcroft_karp": "matching.hopcroft_karp",
    "networkx": "matching.networkx_flow",
    "igraph": "matching.igraph_flow",
    "greedy": "matching.greedy",
    "sampling": "matching.sampling",
}


def _resolve(method: Any) -> str:
    name = check_choice(method, "method", METHODS)
    return "incremental" if name == "auto" else name


def _solver(method: str) -> Solver:
    solver: Solver = importlib.import_module(_SOLVER_MODULES[method]).SOLVER
    return solver


def _rng_kwargs(method: str, rng: RNGLike) -> dict[str, Any]:
    return {"rng": rng} if method == "sampling" else {}


def dc_curve(
    graph: PersonItemGraph, ell_max: int, method: str = "auto", *, rng: RNGLike = None
) -> np.ndarray:
    """DC(D;ℓ) (or its approximation) for every ℓ = 1..ℓ_max.

    Parameters
    ----------
    graph
        The person–item graph D.
    ell_max
        Largest contribution bound, ≥ 1.
    method
        ``"auto"`` (= ``"incremental"``), an exact method (``"incremental"``, ``"flow"``,
        ``"hopcroft_karp"``, ``"networkx"``, ``"igraph"``), ``"greedy"`` (Knop & Steinke,
        Algorithm 2/4) or ``"sampling"`` (each person keeps ℓ random items).
    rng
        Only for ``"sampling"``: ``None`` (fresh OS entropy), an int seed or a
        :class:`numpy.random.Generator`.

    Returns
    -------
    numpy.ndarray
        int64 array of length ``ell_max``; entry ℓ−1 is the value for ℓ.

    Raises
    ------
    InvalidParameterError
        ``ell_max`` is not an integer in [1, ``MAX_CURVE_LENGTH``] (2²⁴) or ``method`` is
        unknown.

    See Also
    --------
    dc_value : DC(D;ℓ) at one ℓ.
    contributions : An optimal assignment at one ℓ.
    mechanisms.dp_distinct_count : The private release built on the curve.

    Notes
    -----
    DC(D;ℓ) is Eq. 2 of Knop & Steinke: the most distinct items when each person contributes
    at most ℓ of its own items, a maximum flow (§1.1).  Exact curves are non-decreasing and
    concave and reach the number of items at ℓ ≥ max degree (every method's curve is constant
    from there on: ask for no more than the largest degree).  Exact, greedy and sampling values
    all change by at most ℓ when one person is added or removed (for sampling: with the
    other persons' randomness fixed, see :mod:`matching.sampling`).

    References
    ----------
    Knop, Steinke. "Counting Distinct Elements Under Person-Level Differential Privacy",
    NeurIPS 2023, arXiv:2308.12947.

    Examples
    --------
    >>> from dpcount import PersonItemGraph
    >>> g = PersonItemGraph.from_sets({"a": {1, 2}, "b": {2, 3}, "c": set()})
    >>> dc_curve(g, 3).tolist()
    [2, 3, 3]
    """
    graph = check_graph(graph)
    ell_max = _check_curve_length(ell_max)
    name = _resolve(method)
    curve = _solver(name).curve(graph, ell_max, **_rng_kwargs(name, rng))
    return np.asarray(curve, dtype=np.int64)


def _check_curve_length(ell_max: Any) -> int:
    """``ell_max`` of :func:`dc_curve`: ℓ_max as an int in ``[1, MAX_CURVE_LENGTH]``.

    Examples
    --------
    >>> _check_curve_length(2**31 - 1)  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    dpcount.errors.InvalidParameterError: ell_max must be at most 16777216 for a curve, ...
    """
    ell_max = check_ell(ell_max, "ell_max")
    if ell_max > MAX_CURVE_LENGTH:
        raise InvalidParameterError(
            Option("ell_max"),
            f" must be at most {MAX_CURVE_LENGTH} for a curve, got {ell_max}: the curve has "
            "one value per ℓ and is constant from the largest number of items of one person "
            "on; for a single ℓ use dc_value",
        )
    return ell_max


def dc_value(graph: PersonItemGraph, ell: int, method: str = "auto", *, rng: RNGLike = None) -> int:
    """DC(D;ℓ) (or its approximation) for one ℓ.

    Parameters and methods as in :func:`dc_curve`.

    See Also
    --------
    dc_curve : The whole curve in one call (cheaper than ℓ_max calls).

    Examples
    --------
    >>> from dpcount import PersonItemGraph
    >>> g = PersonItemGraph.from_sets({"a": {1, 2}, "b": {2, 3}})
    >>> dc_value(g, 1), dc_value(g, 1, method="flow")
    (2, 2)
    """
    graph = check_graph(graph)
    ell = check_ell(ell)
    name = _resolve(method)
    return int(_solver(name).value(graph, ell, **_rng_kwargs(name, rng)))


def contributions(
    graph: PersonItemGraph, ell: int, method: str = "auto", *, rng: RNGLike = None
) -> Contributions:
    """A witness for DC(D;ℓ): which items each person contributes.

    Parameters
    ----------
    graph
        The person–item graph D.
    ell
        The contribution bound ℓ ≥ 1.
    method
        Any method of :func:`dc_curve`, with the same default ``"auto"``
        (= ``"incremental"``); an exact method gives a witness of size DC(D;ℓ).  Different
        exact methods may pick different witnesses of the same size.
    rng
        Only for ``"sampling"``.

    Returns
    -------
    Contributions
        The item → person assignment with helpers (``value``, ``loads()``, ``to_dict()`` …).

    See Also
    --------
    dc_value : The size of the assignment only.

    Examples
    --------
    >>> from dpcount import PersonItemGraph
    >>> g = PersonItemGraph.from_sets({"ann": {"x", "y"}, "bob": {"x"}})
    >>> w = contributions(g, 1)
    >>> w.value, w.to_dict()
    (2, {'ann': ['y'], 'bob': ['x']})
    """
    graph = check_graph(graph)
    ell = check_ell(ell)
    name = _resolve(method)
    owner = _solver(name).assignment(graph, ell, **_rng_kwargs(name, rng))
    return Contributions(graph=graph, ell=ell, method=name, owner=owner)
