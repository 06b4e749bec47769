"""DC(D;ℓ) as a maximum flow computed by igraph (push–relabel in C).

Same network as :mod:`matching.flow` (Knop & Steinke §1.1): vertex 0 is the source, ``1..n``
the persons, ``n+1..n+m`` the items, ``n+m+1`` the sink.

Examples
--------
>>> from dpcount import PersonItemGraph
>>> g = PersonItemGraph.from_sets({"a": {1, 2, 3}, "b": {1}, "c": {1}})
>>> [igraph_value(g, ell) for ell in (1, 2)]
[2, 3]
"""

from __future__ import annotations

from typing import Any

import numpy as np

from dpcount.graph import PersonItemGraph
from matching._common import Solver, check_ell, curve_from_values, source_capacities

__all__ = ["igraph_assignment", "igraph_curve", "igraph_network", "igraph_value"]


def igraph_network(graph: PersonItemGraph, ell: int) -> tuple[Any, list[int]]:
    """The directed flow network as an ``igraph.Graph`` and its edge capacities.

    Edges are ordered: source → persons, then the pairs in CSR order, then items → sink.

    Examples
    --------
    >>> from dpcount import PersonItemGraph
    >>> net, capacity = igraph_network(PersonItemGraph.from_sets({"a": {"x", "y"}}), 5)
    >>> net.vcount(), net.ecount(), capacity
    (5, 5, [2, 1, 1, 1, 1])
    """
    import igraph as ig

    ell = check_ell(ell)
    n, m = graph.n_persons, graph.n_items
    sink = n + m + 1
    persons, items = graph.pairs()
    tails = np.concatenate([np.zeros(n, np.int64), persons + 1, np.arange(n + 1, n + m + 1)])
    heads = np.concatenate([np.arange(1, n + 1), items + n + 1, np.full(m, sink)])
    net = ig.Graph(n=sink + 1, edges=np.column_stack([tails, heads]), directed=True)
    capacity = np.concatenate(
        [source_capacities(graph, ell), np.ones(graph.n_pairs + m, np.int32)]
    ).tolist()
    return net, capacity


def igraph_value(graph: PersonItemGraph, ell: int) -> int:
    """DC(D;ℓ) by ``igraph.Graph.maxflow_value``.

    Examples
    --------
    >>> from dpcount import PersonItemGraph
    >>> igraph_value(PersonItemGraph.from_sets({"a": {1, 2}, "b": {1}}), 1)
    2
    """
    net, capacity = igraph_network(graph, ell)
    return round(net.maxflow_value(0, net.vcount() - 1, capacity))


def igraph_curve(graph: PersonItemGraph, ell_max: int) -> np.ndarray:
    """DC(D;ℓ) for ℓ = 1..ℓ_max, one igraph max flow per ℓ until the curve is flat.

    The graph is built once; only the source capacities change between solves.

    Examples
    --------
    >>> from dpcount import PersonItemGraph
    >>> igraph_curve(PersonItemGraph.from_sets({"a": {1, 2, 3}, "b": {1}}), 3).tolist()
    [2, 3, 3]
    """
    ell_max = check_ell(ell_max, "ell_max")
    net, capacity = igraph_network(graph, 1)
    degrees = graph.degrees()
    n, sink = graph.n_persons, net.vcount() - 1

    def value(ell: int) -> int:
        capacity[:n] = np.minimum(degrees, ell).tolist()
        return round(net.maxflow_value(0, sink, capacity))

    return curve_from_values(value, graph, ell_max)


def igraph_assignment(graph: PersonItemGraph, ell: int) -> np.ndarray:
    """A maximum flow for ℓ as an item → person array (−1 for items no one sends).

    Examples
    --------
    >>> from dpcount import PersonItemGraph
    >>> igraph_assignment(PersonItemGraph.from_sets({"a": {1, 2}, "b": {2}}), 1).tolist()
    [0, 1]
    """
    net, capacity = igraph_network(graph, ell)
    owner = np.full(graph.n_items, -1, dtype=np.int64)
    if graph.n_pairs == 0:
        return owner
    flow = np.rint(np.asarray(net.maxflow(0, net.vcount() - 1, capacity).flow)).astype(np.int64)
    n = graph.n_persons
    pair_flow = flow[n : n + graph.n_pairs]  # the person → item edges, in CSR order
    persons, items = graph.pairs()
    used = pair_flow > 0
    owner[items[used]] = persons[used]
    return owner


#: This method's entry points for :mod:`matching.dispatch`.
SOLVER = Solver(curve=igraph_curve, value=igraph_value, assignment=igraph_assignment)
