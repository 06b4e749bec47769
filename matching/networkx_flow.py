"""DC(D;ℓ) as a maximum flow in a networkx DiGraph — the readable, teaching version.

The network of Knop & Steinke §1.1: ``"source"`` → ``("person", label)`` with capacity ℓ →
``("item", label)`` with capacity 1 → ``"sink"`` with capacity 1.  Slow (pure Python), but the
flow dictionary shows exactly which item each person sends, which is what a reader wants to see.

Examples
--------
>>> from dpcount import PersonItemGraph
>>> g = PersonItemGraph.from_sets({"ann": {"x", "y"}, "bob": {"x"}})
>>> value, flow = networkx_flow(g, 1)
>>> value, flow[("person", "ann")]
(2, {('item', 'x'): 0, ('item', 'y'): 1})
"""

from __future__ import annotations

from typing import Any

import numpy as np

from dpcount.graph import PersonItemGraph
from matching._common import Solver, check_ell, curve_from_values

__all__ = [
    "SINK",
    "SOURCE",
    "flow_digraph",
    "networkx_assignment",
    "networkx_curve",
    "networkx_flow",
    "networkx_value",
]

SOURCE = "source"
SINK = "sink"


def flow_digraph(graph: PersonItemGraph, ell: int) -> Any:
    """The flow network as a ``networkx.DiGraph`` with ``capacity`` on every edge.

    Persons are ``("person", label)``, items ``("item", label)``; the string nodes
    ``"source"`` and ``"sink"`` cannot collide with them.

    Examples
    --------
    >>> from dpcount import PersonItemGraph
    >>> net = flow_digraph(PersonItemGraph.from_sets({"a": {"x"}}), 3)
    >>> for edge in net.edges(data="capacity"):
    ...     print(edge)
    ('source', ('person', 'a'), 3)
    (('person', 'a'), ('item', 'x'), 1)
    (('item', 'x'), 'sink', 1)
    """
    import networkx as nx

    ell = check_ell(ell)
    persons = [("person", label) for label in graph.person_labels.tolist()]
    items = [("item", label) for label in graph.item_labels.tolist()]
    net = nx.DiGraph()
    net.add_node(SOURCE)
    net.add_node(SINK)
    net.add_edges_from((SOURCE, p, {"capacity": ell}) for p in persons)
    pair_persons, pair_items = graph.pairs()
    net.add_edges_from(
        (persons[p], items[i], {"capacity": 1})
        for p, i in zip(pair_persons.tolist(), pair_items.tolist(), strict=True)
    )
    net.add_edges_from((i, SINK, {"capacity": 1}) for i in items)
    return net


def networkx_flow(graph: PersonItemGraph, ell: int) -> tuple[int, dict[Any, dict[Any, int]]]:
    """DC(D;ℓ) and a maximum flow ``{u: {v: flow}}`` from ``networkx.maximum_flow``.

    Parameters
    ----------
    graph
        The person–item graph.
    ell
        The contribution bound ℓ ≥ 1.

    Returns
    -------
    tuple
        The flow value DC(D;ℓ) and networkx's flow dictionary (preflow-push).

    Examples
    --------
    >>> from dpcount import PersonItemGraph
    >>> networkx_flow(PersonItemGraph.from_sets({"a": {1, 2}}), 5)[0]
    2
    """
    import networkx as nx

    value, flow = nx.maximum_flow(flow_digraph(graph, ell), SOURCE, SINK)
    return int(value), flow


def networkx_value(graph: PersonItemGraph, ell: int) -> int:
    """DC(D;ℓ) by networkx's maximum flow.

    Examples
    --------
    >>> from dpcount import PersonItemGraph
    >>> networkx_value(PersonItemGraph.from_sets({"a": {1, 2}, "b": {1}}), 1)
    2
    """
    return networkx_flow(graph, ell)[0]


def networkx_curve(graph: PersonItemGraph, ell_max: int) -> np.ndarray:
    """DC(D;ℓ) for ℓ = 1..ℓ_max, one networkx max flow per ℓ until the curve is flat.

    Examples
    --------
    >>> from dpcount import PersonItemGraph
    >>> networkx_curve(PersonItemGraph.from_sets({"a": {1, 2, 3}, "b": {1}}), 3).tolist()
    [2, 3, 3]
    """
    ell_max = check_ell(ell_max, "ell_max")
    return curve_from_values(lambda ell: networkx_value(graph, ell), graph, ell_max)


def networkx_assignment(graph: PersonItemGraph, ell: int) -> np.ndarray:
    """A maximum flow for ℓ as an item → person array (−1 for items no one sends).

    Examples
    --------
    >>> from dpcount import PersonItemGraph
    >>> networkx_assignment(PersonItemGraph.from_sets({"a": {1, 2}, "b": {2}}), 1).tolist()
    [0, 1]
    """
    _, flow = networkx_flow(graph, ell)
    owner = np.full(graph.n_items, -1, dtype=np.int64)
    for p, label in enumerate(graph.person_labels.tolist()):
        for (_, item_label), units in flow[("person", label)].items():
            if units > 0:
                owner[graph.item_index(item_label)] = p
    return owner


#: This method's entry points for :mod:`matching.dispatch`.
SOLVER = Solver(curve=networkx_curve, value=networkx_value, assignment=networkx_assignment)
