"""The graph room: person–item and person–group–item data as immutable CSR arrays.

* :class:`PersonItemGraph` (:mod:`dpcount.graph.person_item`) — the one representation every
  algorithm reads, with :class:`GraphSummary`;
* :class:`GroupedGraph` (:mod:`dpcount.graph.grouped`) — (person, group, item) triples, one
  CSR with group offsets;
* :mod:`dpcount.graph.labels` — the label rules (sorted order, no nulls, no mixed kinds) that
  every builder and reader applies;
* :mod:`dpcount.graph.assembly` — codes → CSR, with a documented contract, used by the readers,
  the data sets and grouped data alike; :func:`graph_from_codes`, :func:`graph_from_code_groups`,
  :func:`graph_from_rows` and :func:`grouped_from_codes` wrap its output as graphs;
* :mod:`dpcount.graph.csr_kernels`, :mod:`dpcount.graph.dense`, :mod:`dpcount.graph.deferred` —
  the compiled sort passes for large inputs, integer ids encoded through a table, and string
  labels kept as Arrow made them;
* :mod:`dpcount.graph.tables` — how ``from_dataframe`` reaches the readers of :mod:`dpcount.io`.

This room imports only :mod:`dpcount.common` and :mod:`dpcount.errors` (and numpy).

Examples
--------
>>> from dpcount.graph import PersonItemGraph
>>> PersonItemGraph.from_pairs(["ann", "bob"], ["x", "x"]).n_items
1
"""

from __future__ import annotations

from dpcount.graph.assembly import MAX_ITEMS
from dpcount.graph.grouped import GroupedGraph, grouped_from_codes
from dpcount.graph.labels import Labels
from dpcount.graph.person_item import (
    GraphSummary,
    PersonItemGraph,
    graph_from_code_groups,
    graph_from_codes,
    graph_from_rows,
)

__all__ = [
    "MAX_ITEMS",
    "GraphSummary",
    "GroupedGraph",
    "Labels",
    "PersonItemGraph",
    "graph_from_code_groups",
    "graph_from_codes",
    "graph_from_rows",
    "grouped_from_codes",
]
