"""Reading person–group–item triples (``GROUP BY`` data) into a :class:`GroupedGraph`, via DuckDB.

The same source path as :func:`dpcount.read_pairs` (:mod:`dpcount.io._columns`) – the same
sources (CSV, TSV, Parquet, JSON lines, globs, ``sql=`` on a fresh or your own DuckDB
connection, pandas, polars, Arrow and DuckDB tables), columns selected by name, the same label
rules (ids keep their DuckDB types, strings compare by code point, nulls and empty ids are
errors unless ``drop_nulls``, a pandas column mixing ``1`` and ``"1"`` is refused), the same
errors naming the file and line – with a third id column, the group.

DuckDB dictionary-encodes persons, groups and items into codes that index their **sorted**
distinct labels (:mod:`dpcount.io._sql_encoding`);
:func:`~dpcount.graph.grouped_from_codes` then orders and deduplicates the triples with one sort.

Examples
--------
>>> g = read_triples(sql="SELECT * FROM (VALUES ('ann', 'eu', 1), ('bob', 'eu', 2),"
...                  " ('ann', 'us', 1)) t(person, region, item)", group="region")
>>> g
GroupedGraph(n_groups=2, n_persons=2, n_items=2, n_triples=3)
>>> g.distinct_counts().tolist()
[2, 1]
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from dpcount.graph import GroupedGraph, grouped_from_codes
from dpcount.io._checks import valid_rows
from dpcount.io._columns import FileOptions, open_source
from dpcount.io._errors import label_errors
from dpcount.io._sql_encoding import dictionary_labels, plain, sorted_dictionary

if TYPE_CHECKING:
    import duckdb

__all__ = ["read_triples"]


def read_triples(
    source: Any = None,
    person: str = "person",
    group: str = "group",
    item: str = "item",
    *,
    sql: str | None = None,
    connection: duckdb.DuckDBPyConnection | None = None,
    format: str | None = None,
    drop_nulls: bool = False,
    delimiter: str | None = None,
    header: bool = True,
    encoding: str = "utf-8",
    column_types: Mapping[str, str] | None = None,
) -> GroupedGraph:
    """Read (person, group, item) rows from a file, a SQL query or a table in memory.

    Duplicate triples are merged.

    Parameters
    ----------
    source
        Path (or glob) of a CSV, TSV, Parquet or JSON lines file, or a table in memory (a
        pandas or polars DataFrame, a polars LazyFrame, a pyarrow Table or RecordBatchReader,
        a DuckDB relation), as in :func:`dpcount.read_pairs`.  Omit it when giving ``sql``.
    person, group, item
        Columns holding the person id, the group key and the item id, selected by name.
    sql, connection, format, drop_nulls, delimiter, header, encoding, column_types
        As in :func:`dpcount.read_pairs`.

    Returns
    -------
    GroupedGraph

    Raises
    ------
    DataError
        Missing, empty or malformed file (with the line where DuckDB reports one), a missing
        column (the message lists the columns there are), null or empty ids (unless
        ``drop_nulls``), ids of mixed kinds, no rows.
    InvalidParameterError
        Contradictory options (both ``source`` and ``sql``, two roles naming one column …).

    Examples
    --------
    >>> import pandas as pd
    >>> df = pd.DataFrame({"u": [1, 1, 2], "forum": ["a", "b", "a"], "w": ["x", "x", "y"]})
    >>> read_triples(df, person="u", group="forum", item="w").group_labels.tolist()
    ['a', 'b']
    """
    options = FileOptions(format, delimiter, header, encoding, column_types)
    ids = {"person": person, "group": group, "item": item}
    with open_source(source, sql, connection, options, ids) as opened:
        work = opened.work
        valid = valid_rows(work, opened.projection, opened.invalid, drop_nulls)
        dictionaries = {alias: sorted_dictionary(work, alias, valid) for alias in opened.columns}
        joins = " ".join(f"JOIN {table} USING ({alias})" for alias, table in dictionaries.items())
        codes = work.run(f"SELECT pc, gc, ic FROM {valid} {joins}", "numpy")
        labels = [
            dictionary_labels(
                work, table, alias, opened.types[opened.columns[alias]], opened.columns[alias]
            )
            for alias, table in dictionaries.items()
        ]
    with label_errors(opened.source.name):
        return grouped_from_codes(
            plain(codes["pc"]), plain(codes["gc"]), plain(codes["ic"]), *labels
        )
