"""DC(D;ℓ): the most distinct items reachable when each person contributes at most ℓ items.

DC(D;ℓ) is Eq. 2 of Knop & Steinke, a maximum flow source → person (capacity ℓ) → item → sink.
:func:`dc_curve` gives the whole curve ℓ = 1..ℓ_max, :func:`dc_value` one point and
:func:`contributions` a witness.  Methods: exact ``"incremental"`` (the default via ``"auto"``),
``"flow"``, ``"hopcroft_karp"``, ``"networkx"``, ``"igraph"``; approximate ``"greedy"``
(Algorithm 2/4) and the ``"sampling"`` baseline.

Examples
--------
>>> import matching
>>> from dpcount import PersonItemGraph
>>> g = PersonItemGraph.from_sets({"ann": {"x", "y", "z"}, "bob": {"x"}, "cy": {"x"}})
>>> matching.dc_curve(g, 3).tolist()
[2, 3, 3]
>>> matching.dc_value(g, 1, method="greedy")
1
"""

from matching.contributions import Contributions
from matching.dispatch import (
    APPROXIMATE_METHODS,
    EXACT_METHODS,
    METHODS,
    contributions,
    dc_curve,
    dc_value,
)

__all__ = [
    "APPROXIMATE_METHODS",
    "EXACT_METHODS",
    "METHODS",
    "Contributions",
    "contributions",
    "dc_curve",
    "dc_value",
]
