"""dpcount: counting distinct elements under person-level differential privacy.

The top level is a light façade: the graph and errors import eagerly (numpy only); readers,
datasets and the algorithm packages load on first use so that ``import dpcount`` stays fast and
cycle-free.

Examples
--------
>>> import dpcount
>>> g = dpcount.PersonItemGraph.from_sets({"ann": {"a", "b"}, "bob": {"b", "c"}})
>>> g.n_items
3
"""

from __future__ import annotations

from dpcount._lazy import lazy_attributes
from dpcount.errors import (
    BudgetExceededError,
    DataError,
    DPCountError,
    InvalidParameterError,
    PrivacyLeakWarning,
    UnsafeNoiseWarning,
)
from dpcount.graph import GraphSummary, PersonItemGraph

__version__ = "0.1.0"

# name -> module that defines it, imported on first attribute access (PEP 562).
_LAZY = {
    "read_pairs": "dpcount.io",
    "read_texts": "dpcount.io",
    "write_pairs": "dpcount.io",
    "read_triples": "dpcount.triples",
    "GroupedGraph": "dpcount.grouped",
    "tokenize": "dpcount.text",
    "ngram_graph": "dpcount.text",
    "datasets": "dpcount.datasets",
}

__all__ = [
    "BudgetExceededError",
    "DPCountError",
    "DataError",
    "GraphSummary",
    "InvalidParameterError",
    "PersonItemGraph",
    "PrivacyLeakWarning",
    "UnsafeNoiseWarning",
    "__version__",
    *_LAZY,
]


__getattr__, __dir__ = lazy_attributes(globals(), _LAZY, __all__)
