"""Dictionary encoding inside DuckDB: sorted dictionaries of labels, joined to the rows.

:func:`dpcount.read_texts` and :func:`dpcount.read_triples` encode this way rather than
streaming (:mod:`dpcount.io._strategy`): their rows are grouped inside DuckDB first (person,
n-gram, count; or distinct triples), and n-gram vocabularies are nearly as large as the pairs,
so per-batch dictionaries would shrink nothing while Arrow's one-threaded sort of millions of
strings would replace DuckDB's parallel one (the measurements are in
``benchmarks/results/end_to_end.md``).  Each id column gets a table of its distinct labels
numbered in label order (:func:`sorted_dictionary`), the rows are joined to those tables, and
the codes go to the graph assembly (:mod:`dpcount.graph.assembly`).

Examples
--------
>>> from dpcount.io._columns import FileOptions, open_source
>>> query = "SELECT * FROM (VALUES ('b', 'x', 2), ('a', 'x', 1)) t(person, item, c)"
>>> with open_source(None, query, None, FileOptions(), {"person": "person", "item": "item"}) as s:
...     rows = s.work.table("rows", f"SELECT person AS p, item AS i, c FROM {s.source.relation}")
...     encode_pairs(s.work, rows, rows, with_counts=True, types=("VARCHAR", "VARCHAR")).counts
array([1, 2])
"""

from __future__ import annotations

from typing import Any

import numpy as np

from dpcount.graph import PersonItemGraph, graph_from_codes
from dpcount.io._checks import check_float_ids
from dpcount.io._errors import label_errors
from dpcount.io._workspace import Workspace

__all__ = ["dictionary_labels", "encode_pairs", "plain", "sorted_dictionary"]


def sorted_dictionary(work: Workspace, alias: str, rows: str, code_type: str = "BIGINT") -> str:
    """A temporary table ``(alias, alias || 'c')`` of the distinct values of column ``alias`` of
    ``rows``, each with its rank in label order (0-based) as its code."""
    return work.table(
        f"{alias}_labels",
        f"SELECT {alias}, (row_number() OVER (ORDER BY {alias}) - 1)::{code_type} AS {alias}c "
        f"FROM (SELECT DISTINCT {alias} FROM {rows})",
    )


def dictionary_labels(
    work: Workspace, dictionary: str, alias: str, duck_type: str, column: str
) -> np.ndarray:
    """The labels of a :func:`sorted_dictionary` in code order (DATE as ``datetime64[D]``) of
    the id column ``column``, checked by :func:`dpcount.io._checks.check_float_ids`."""
    result = work.run(f"SELECT {alias} FROM {dictionary} ORDER BY {alias}c", "numpy")
    values = plain(next(iter(result.values())))
    check_float_ids(values, duck_type, column, work.source)
    return values.astype("datetime64[D]") if duck_type == "DATE" else values


def encode_pairs(
    work: Workspace,
    valid: str,
    pairs: str,
    *,
    with_counts: bool,
    types: tuple[str, str],
    names: tuple[str, str] = ("person", "item"),
) -> PersonItemGraph:
    """Dictionary-encode persons (of ``valid``) and items (of ``pairs``) in label order and
    build the graph of ``pairs`` (columns ``p``, ``i`` and, with counts, ``c``).

    ``types`` are the DuckDB types of the person and item columns, ``names`` how errors name
    them.  Persons of ``valid`` that
    no pair has stay in the graph as persons without items.
    """
    persons = sorted_dictionary(work, "p", valid)
    items = sorted_dictionary(work, "i", pairs, code_type="INTEGER")
    columns = "pc, ic, c" if with_counts else "pc, ic"
    codes = work.run(
        f"SELECT {columns} FROM {pairs} JOIN {persons} USING (p) JOIN {items} USING (i)",
        "numpy",
    )
    person_labels = dictionary_labels(work, persons, "p", types[0], names[0])
    item_labels = dictionary_labels(work, items, "i", types[1], names[1])
    with label_errors(work.source.name):
        return graph_from_codes(
            plain(codes["pc"]),
            plain(codes["ic"]),
            person_labels,
            item_labels,
            plain(codes["c"]) if with_counts else None,
        )


def plain(values: Any) -> np.ndarray:
    """A plain ndarray from a DuckDB result column (which may be a masked array)."""
    if isinstance(values, np.ma.MaskedArray):
        return np.asarray(values.filled())
    return np.asarray(values)
