"""Small classic data sets for teaching and for checking results by hand.

Examples
--------
>>> g = southern_women()
>>> g.n_persons, g.n_items, g.n_pairs
(18, 14, 89)
"""

from __future__ import annotations

from dpcount.graph import PersonItemGraph

__all__ = ["southern_women"]


def southern_women() -> PersonItemGraph:
    """Davis's Southern Women: which of 18 women attended which of 14 social events (1930s).

    Persons are the women (full names), items the events ``"E1"`` … ``"E14"`` (sorted as
    strings, so ``"E10"`` comes before ``"E2"``); 89 attendances.

    Returns
    -------
    PersonItemGraph

    References
    ----------
    A. Davis, B. B. Gardner, M. R. Gardner, *Deep South* (1941); the graph shipped with
    networkx as ``networkx.davis_southern_women_graph``.

    Examples
    --------
    >>> g = southern_women()
    >>> g.items_of("Evelyn Jefferson").tolist()
    ['E1', 'E2', 'E3', 'E4', 'E5', 'E6', 'E8', 'E9']
    """
    import networkx as nx

    graph = nx.davis_southern_women_graph()
    women = set(graph.graph["top"])
    persons, events = [], []
    for u, v in graph.edges():
        woman, event = (u, v) if u in women else (v, u)
        persons.append(woman)
        events.append(event)
    return PersonItemGraph.from_pairs(persons, events)
