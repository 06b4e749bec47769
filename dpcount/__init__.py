"""dpcount: counting distinct elements under person-level differential privacy.

The top level is a light façade over the rooms of the ground floor (``docs/architecture.md``):
the graph (:mod:`dpcount.graph`), errors and randomness import eagerly (numpy only); the readers
(:mod:`dpcount.io`), datasets and the algorithm packages load on first use so that
``import dpcount`` stays fast.

Examples
--------
>>> import dpcount
>>> g = dpcount.PersonItemGraph.from_sets({"ann": {"a", "b"}, "bob": {"b", "c"}})
>>> g.n_items
3
"""

from __future__ import annotations

from dpcount.common.lazy import lazy_attributes
from dpcount.common.rng import RNGLike
from dpcount.errors import (
    BudgetExceededError,
    DataError,
    DPCountError,
    DroppedRowsWarning,
    InvalidParameterError,
    PrivacyLeakWarning,
    UnsafeNoiseWarning,
)
from dpcount.graph import GraphSummary, GroupedGraph, PersonItemGraph
from dpcount.graph import tables as _tables

__version__ = "0.1.0"

# name -> module that defines it, imported on first attribute access (PEP 562).
_LAZY = {
    "read_pairs": "dpcount.io",
    "read_texts": "dpcount.io",
    "read_triples": "dpcount.io",
    "write_pairs": "dpcount.io",
    "tokenize": "dpcount.io",
    "ngram_graph": "dpcount.io",
    "datasets": "dpcount.datasets",
}

__all__ = [
    "BudgetExceededError",
    "DPCountError",
    "DataError",
    "DroppedRowsWarning",
    "GraphSummary",
    "GroupedGraph",
    "InvalidParameterError",
    "PersonItemGraph",
    "PrivacyLeakWarning",
    "RNGLike",
    "UnsafeNoiseWarning",
    "__version__",
    *_LAZY,
]


def _table_readers() -> _tables.TableReaders:
    """The readers of tables in memory that ``from_dataframe`` uses (the graph room cannot
    import the reading room above it; see :mod:`dpcount.graph.tables`)."""
    from dpcount.io.tables import READERS

    return READERS


_tables.set_loader(_table_readers)

__getattr__, __dir__ = lazy_attributes(globals(), _LAZY, __all__)
