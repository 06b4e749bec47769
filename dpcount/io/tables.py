"""Tables in memory as graphs: what ``PersonItemGraph.from_dataframe`` and
``GroupedGraph.from_dataframe`` run (handed to :mod:`dpcount.graph.tables` by the package
façade).

Each takes only a table (pandas, polars, Arrow, a DuckDB relation) and reads it by the readers'
one source path, so a table gives the graph a file with the same rows gives.

Examples
--------
>>> READERS.read_pairs([("ann", "x")])
Traceback (most recent call last):
...
dpcount.errors.InvalidParameterError: from_dataframe takes a pandas, polars, Arrow or DuckDB \
table, not a list; use from_pairs for sequences
"""

from __future__ import annotations

from typing import Any

from dpcount.errors import InvalidParameterError
from dpcount.graph import GroupedGraph, PersonItemGraph
from dpcount.graph.tables import TableReaders
from dpcount.io._frames import frame_kind
from dpcount.io.pairs import read_pairs
from dpcount.io.triples import read_triples

__all__ = ["READERS"]


def _check_table(table: Any, builder: str) -> None:
    if frame_kind(table) is None:
        raise InvalidParameterError(
            f"from_dataframe takes a pandas, polars, Arrow or DuckDB table, not a "
            f"{type(table).__name__}; use {builder} for sequences"
        )


def _pairs_of_table(table: Any, **columns: Any) -> PersonItemGraph:
    _check_table(table, "from_pairs")
    return read_pairs(table, **columns)


def _triples_of_table(table: Any, **columns: Any) -> GroupedGraph:
    _check_table(table, "from_triples")
    return read_triples(table, **columns)


#: The readers the graph classes use for tables in memory.
READERS = TableReaders(read_pairs=_pairs_of_table, read_triples=_triples_of_table)
