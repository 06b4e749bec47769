"""DC(D;ℓ) as a maximum flow, solved by SciPy's Dinic (``scipy.sparse.csgraph.maximum_flow``).

The network of Knop & Steinke §1.1 (Eq. 2): source → person (capacity ℓ) → item (capacity 1)
→ sink (capacity 1).  Its maximum flow value is DC(D;ℓ).  This is the cold-start reference
solver: each ℓ is solved from scratch.

Examples
--------
>>> from dpcount import PersonItemGraph
>>> g = PersonItemGraph.from_sets({"a": {1, 2, 3}, "b": {1}, "c": {1}})
>>> [flow_value(g, ell) for ell in (1, 2, 3)]
[2, 3, 3]
"""

from __future__ import annotations

import numpy as np
import scipy.sparse
from scipy.sparse.csgraph import maximum_flow

from dpcount.graph import PersonItemGraph
from matching._common import Solver, check_ell, curve_from_values, source_capacities

__all__ = ["flow_assignment", "flow_curve", "flow_network", "flow_value"]


def flow_network(graph: PersonItemGraph, ell: int) -> scipy.sparse.csr_array:
    """The flow network of Knop & Steinke §1.1 as an int32 CSR matrix.

    Node 0 is the source, ``1..n`` the persons, ``n+1..n+m`` the items and ``n+m+1`` the sink.
    Source capacities are min(ℓ, degree), built as int32 on purpose: SciPy wraps int64
    capacities above 2³¹ − 1 silently (docs/algorithms.md §1 pitfall).

    Examples
    --------
    >>> from dpcount import PersonItemGraph
    >>> net = flow_network(PersonItemGraph.from_sets({"a": {"x", "y"}}), 5)
    >>> net.shape, net.dtype, net[0, 1]
    ((5, 5), dtype('int32'), np.int32(2))
    """
    ell = check_ell(ell)
    n, m, n_pairs = graph.n_persons, graph.n_items, graph.n_pairs
    sink = n + m + 1
    indptr = np.concatenate(
        [
            [0],
            n + graph.indptr,  # row 0 (source) holds n entries, then the persons' rows
            n + n_pairs + np.arange(1, m + 1),  # one edge item → sink per item
            [n + n_pairs + m],  # the sink has no out-edges
        ]
    ).astype(np.int64)
    indices = np.concatenate(
        [
            np.arange(1, n + 1),
            n + 1 + graph.indices.astype(np.int64),
            np.full(m, sink),
        ]
    ).astype(np.int32)
    data = np.concatenate(
        [source_capacities(graph, ell), np.ones(n_pairs + m, dtype=np.int32)]
    ).astype(np.int32)
    return scipy.sparse.csr_array((data, indices, indptr), shape=(sink + 1, sink + 1))


def _solve(graph: PersonItemGraph, ell: int) -> tuple[int, scipy.sparse.csr_array]:
    net = flow_network(graph, ell)
    result = maximum_flow(net, 0, net.shape[0] - 1, method="dinic")
    return int(result.flow_value), result.flow


def flow_value(graph: PersonItemGraph, ell: int) -> int:
    """DC(D;ℓ) by one Dinic max-flow solve (Knop & Steinke §1.1).

    Parameters
    ----------
    graph
        The person–item graph.
    ell
        The contribution bound ℓ ≥ 1.

    Returns
    -------
    int
        DC(D;ℓ).

    Examples
    --------
    >>> from dpcount import PersonItemGraph
    >>> flow_value(PersonItemGraph.from_sets({"a": {1, 2}, "b": {2}}), 1)
    2
    """
    ell = check_ell(ell)
    if graph.n_pairs == 0:
        return 0
    return _solve(graph, ell)[0]


def flow_curve(graph: PersonItemGraph, ell_max: int) -> np.ndarray:
    """DC(D;ℓ) for ℓ = 1..ℓ_max by one cold Dinic solve per ℓ (stopping once the curve is flat).

    The network is built once; only the n source capacities change between solves.

    Examples
    --------
    >>> from dpcount import PersonItemGraph
    >>> flow_curve(PersonItemGraph.from_sets({"a": {1, 2, 3}, "b": {1}}), 4).tolist()
    [2, 3, 3, 3]
    """
    ell_max = check_ell(ell_max, "ell_max")
    net = flow_network(graph, 1)
    degrees = graph.degrees()
    sink = net.shape[0] - 1

    def value(ell: int) -> int:
        net.data[: graph.n_persons] = np.minimum(degrees, ell)  # row 0 = the source's edges
        return int(maximum_flow(net, 0, sink, method="dinic").flow_value)

    return curve_from_values(value, graph, ell_max)


def flow_assignment(graph: PersonItemGraph, ell: int) -> np.ndarray:
    """A maximum flow for ℓ as an item → person array (−1 for items no one contributes).

    Examples
    --------
    >>> from dpcount import PersonItemGraph
    >>> flow_assignment(PersonItemGraph.from_sets({"a": {1, 2}, "b": {2}}), 1).tolist()
    [0, 1]
    """
    ell = check_ell(ell)
    owner = np.full(graph.n_items, -1, dtype=np.int64)
    if graph.n_pairs == 0:
        return owner
    n = graph.n_persons
    _, flow = _solve(graph, ell)
    # Rows 1..n of the flow matrix are the persons; a unit of flow on person → item is a pick.
    block = scipy.sparse.csr_array(flow)[1 : n + 1].tocoo()
    picked = (block.data > 0) & (block.col > n)
    owner[block.col[picked] - n - 1] = block.row[picked]
    return owner


#: This method's entry points for :mod:`matching.dispatch`.
SOLVER = Solver(curve=flow_curve, value=flow_value, assignment=flow_assignment)
