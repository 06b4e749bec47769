"""Tables in memory for the graph classes, read by :mod:`dpcount.io`, the floor above.

:meth:`PersonItemGraph.from_dataframe <dpcount.graph.PersonItemGraph.from_dataframe>` and
:meth:`GroupedGraph.from_dataframe <dpcount.graph.GroupedGraph.from_dataframe>` read a pandas,
polars, Arrow or DuckDB table exactly as :func:`dpcount.read_pairs` and
:func:`dpcount.read_triples` do: one source path, the same options, the same errors.  Those
readers build graphs, so they import this package; importing them from here would close an
import cycle.  Instead the package façade (``dpcount/__init__.py``) hands this module a loader
of the readers (:func:`set_loader`), called on the first ``from_dataframe``, so that the readers
still load only when first used.

Examples
--------
>>> import pandas as pd
>>> readers().read_pairs(pd.DataFrame({"person": [1], "item": ["x"]})).n_pairs
1
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from dpcount.graph.grouped import GroupedGraph
    from dpcount.graph.person_item import PersonItemGraph

__all__ = ["TableReaders", "readers", "set_loader"]


@dataclass(frozen=True)
class TableReaders:
    """The readers of tables in memory: each refuses anything but a table, with advice."""

    read_pairs: Callable[..., PersonItemGraph]
    read_triples: Callable[..., GroupedGraph]


_loader: Callable[[], TableReaders] | None = None
_loaded: TableReaders | None = None


def set_loader(loader: Callable[[], TableReaders]) -> None:
    """Say how to load the readers (done once, by the package façade)."""
    global _loader, _loaded
    _loader, _loaded = loader, None


def readers() -> TableReaders:
    """The readers, loaded on first use."""
    global _loaded
    if _loaded is None:
        if _loader is None:
            raise RuntimeError("dpcount's table readers are not set up; import dpcount first")
        _loaded = _loader()
    return _loaded
