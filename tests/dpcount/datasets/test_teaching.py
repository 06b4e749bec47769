"""Davis's Southern Women."""

from __future__ import annotations

import networkx as nx

from dpcount.datasets import southern_women


def test_southern_women_sizes_and_edges():
    g = southern_women()
    assert (g.n_persons, g.n_items, g.n_pairs) == (18, 14, 89)
    reference = nx.davis_southern_women_graph()
    women = set(reference.graph["top"])
    expected = {(u, v) if u in women else (v, u) for u, v in reference.edges()}
    persons, items = g.pairs()
    got = {(g.person_labels[p], g.item_labels[i]) for p, i in zip(persons, items, strict=True)}
    assert got == expected
    assert g.person_labels.tolist() == sorted(women)
