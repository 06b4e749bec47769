"""Helpers shared by the DC(D;ℓ) solvers: parameter checks and the shape of a curve.

Examples
--------
>>> fill_curve([3, 5], 4).tolist()
[3, 5, 5, 5]
>>> check_ell(2.0)
Traceback (most recent call last):
...
dpcount.errors.InvalidParameterError: ell must be a positive integer, got 2.0
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any, NamedTuple

import numpy as np

from dpcount.common.jit import SMALL_PAIRS, Kernel
from dpcount.graph import PersonItemGraph
from dpcount.validation import MAX_ELL, check_positive_int

__all__ = [
    "MAX_ELL",
    "SMALL_GRAPH_PAIRS",
    "Solver",
    "check_ell",
    "curve_from_values",
    "effective_ell",
    "fill_curve",
    "run_curve_kernel",
    "source_capacities",
]

# Capacities go to SciPy as int32; larger values wrap silently there (algorithms.md §1 pitfall),
# so every method rejects ℓ above dpcount.validation.MAX_ELL alike.  No person holds 2³¹ items,
# so nothing real is lost.

# Graphs with fewer pairs run the compiled kernels' code interpreted (dpcount.common.jit): for
# them the interpreter finishes before numba would have compiled the incremental kernel.
SMALL_GRAPH_PAIRS = SMALL_PAIRS


class Solver(NamedTuple):
    """One method's three entry points; each solver module exports one as ``SOLVER``.

    ``curve(graph, ell_max)`` → int64 array of length ℓ_max, ``value(graph, ell)`` → int and
    ``assignment(graph, ell)`` → item → person array (−1 for unused items).  The sampling
    baseline's functions take ``rng`` as well.
    """

    curve: Callable[..., np.ndarray]
    value: Callable[..., int]
    assignment: Callable[..., np.ndarray]


def check_ell(ell: Any, name: str = "ell") -> int:
    """ℓ (or ℓ_max) as a Python int in ``[1, 2³¹ − 1]``; otherwise InvalidParameterError."""
    return check_positive_int(ell, name, maximum=MAX_ELL)


def effective_ell(graph: PersonItemGraph, ell: int) -> int:
    """min(ℓ, max degree), at least 1: every count is the same for all larger ℓ.

    Lets the solvers answer ℓ = 2³¹ − 1 without allocating anything of size ℓ.

    Examples
    --------
    >>> from dpcount import PersonItemGraph
    >>> effective_ell(PersonItemGraph.from_sets({"a": {1, 2, 3}}), 10**9)
    3
    """
    return max(1, min(ell, int(graph.degrees().max(initial=0))))


def fill_curve(prefix: Sequence[int] | np.ndarray, ell_max: int) -> np.ndarray:
    """Extend a computed prefix to length ``ell_max`` with its last value (the flat tail).

    An exact curve is concave (algorithms.md §1), so once it stops rising it is flat; greedy and
    sampling curves are flat once every person has run out of items.
    """
    out = np.empty(ell_max, dtype=np.int64)
    k = min(len(prefix), ell_max)
    out[:k] = np.asarray(prefix[:k], dtype=np.int64)
    out[k:] = out[k - 1] if k else 0
    return out


def run_curve_kernel(
    kernel: Kernel, graph: PersonItemGraph, ell_max: int
) -> tuple[np.ndarray, np.ndarray]:
    """Run a kernel ``(indptr, indices, n_items, ℓ_max) -> (sizes, owner)`` on the graph.

    Runs ℓ only up to :func:`effective_ell`: beyond the max degree nothing changes, for the
    exact curve (flat, docs/algorithms.md §1) as for the greedy rounds (everyone has run out
    of items).  Graphs below ``SMALL_GRAPH_PAIRS`` pairs run it interpreted (no compilation).
    """
    run = kernel.select(graph.n_pairs)
    result: tuple[np.ndarray, np.ndarray] = run(
        graph.indptr, graph.indices, graph.n_items, effective_ell(graph, ell_max)
    )
    return result


def source_capacities(graph: PersonItemGraph, ell: int) -> np.ndarray:
    """min(ℓ, degree) per person as int32: the useful part of the source edge capacity ℓ.

    Capping at the degree changes no flow value (a person cannot send more than it holds) and
    keeps every capacity representable in int32.
    """
    return np.minimum(graph.degrees(), ell).astype(np.int32)


def curve_from_values(
    value: Callable[[int], int], graph: PersonItemGraph, ell_max: int
) -> np.ndarray:
    """The exact curve from a single-ℓ solver ``value(ℓ)``, solving ℓ = 1, 2, … only while it rises.

    Stops at the first ℓ with DC(D;ℓ) = DC(D;ℓ−1) (concavity: flat from there on) and at
    ℓ = max degree, where DC(D;ℓ) = DC(D) = number of items.
    """
    max_degree = int(graph.degrees().max(initial=0))
    values: list[int] = []
    for ell in range(1, ell_max + 1):
        if ell >= max_degree:
            values.append(graph.n_items)
            break
        v = value(ell)
        if values and v == values[-1]:
            break
        values.append(v)
    return fill_curve(values, ell_max)
