"""Reading person–item pairs into a graph: CSV, TSV, Parquet, JSON lines, SQL and tables in memory.

DuckDB does the relational work out of core – reading, checking ids, deduplicating pairs (when
many repeat) and dictionary-encoding labels into integer codes that index the **sorted** distinct
labels – and hands back NumPy arrays; no Python object is created per row.  The result is a
:class:`~dpcount.graph.PersonItemGraph`.  Local Parquet files whose id columns are strings or
32/64-bit integers are read by Arrow's Parquet reader instead, with the dictionaries the file
already stores, so rows are not hashed again (same graph, same errors: anything else goes
through DuckDB).

Rules shared by every reader (:func:`read_pairs`, :func:`dpcount.read_triples`,
:func:`dpcount.read_texts`), which open their sources by one path (:mod:`dpcount.io._columns`):

* The format comes from the file suffix (``.csv``, ``.tsv``, ``.tab``, ``.parquet``, ``.pq``,
  ``.jsonl``, ``.ndjson``, ``.json``, optionally followed by ``.gz`` or ``.zst``); pass
  ``format=`` to override.  Globs such as ``"logs/*.parquet"`` are read as one table.
* Instead of a file, pass ``sql="SELECT ..."``: a query run by a fresh in-memory DuckDB, or by your
  own ``connection=`` (its tables, views and settings are visible; dpcount creates uniquely named
  temporary tables there and drops them before returning).
* Ids keep DuckDB's column types: integers stay integers, strings stay strings (compared by code
  point), dates and timestamps become ``datetime64``, ``DECIMAL`` up to 15 digits becomes
  ``float64``, ``ENUM`` becomes strings, 128-bit integers become 64-bit ones (an error if a
  value does not fit).  Nested and binary columns are rejected – cast them in SQL.
* Null ids, empty-string ids and NaN are errors naming the column and how many there are; with
  ``drop_nulls=True`` those rows are dropped instead and a
  :class:`~dpcount.errors.DroppedRowsWarning` says how
  many.  A person whose every row is dropped is not in the graph.
* Columns are selected by name (``person=``, ``item=``, ``count=``); a missing column is an
  error listing the columns the source has.
* Every problem with the data – missing or unreadable file, malformed line, wrong encoding, missing
  column, no rows – raises :class:`~dpcount.errors.DataError` with the file and, where DuckDB
  reports one, the line.

Examples
--------
>>> import pathlib, tempfile
>>> tmp = tempfile.TemporaryDirectory()
>>> path = pathlib.Path(tmp.name) / "visits.csv"
>>> _ = path.write_text("user,page\\nann,home\\nann,faq\\nbob,home\\nann,home\\n")
>>> g = read_pairs(path, person="user", item="page")
>>> g
PersonItemGraph(n_persons=2, n_items=2, n_pairs=3)
>>> g.item_labels.tolist()
['faq', 'home']
>>> tmp.cleanup()
>>> read_pairs(sql="SELECT * FROM (VALUES (1, 'x'), (2, 'x')) t(person, item)").n_pairs
2
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, overload

from dpcount.errors import InvalidParameterError
from dpcount.graph import PersonItemGraph
from dpcount.io._checks import check_count_type
from dpcount.io._columns import FileOptions, open_source
from dpcount.io._strategy import stream_pairs
from dpcount.io.triples import read_triples

if TYPE_CHECKING:
    import duckdb

    from dpcount.graph import GroupedGraph

__all__ = ["read_pairs"]


@overload
def read_pairs(
    source: str | os.PathLike[str] | Any | None = ...,
    person: str = ...,
    item: str = ...,
    count: str | None = ...,
    *,
    group: None = ...,
    sql: str | None = ...,
    connection: duckdb.DuckDBPyConnection | None = ...,
    format: str | None = ...,
    drop_nulls: bool = ...,
    delimiter: str | None = ...,
    header: bool = ...,
    encoding: str = ...,
    column_types: Mapping[str, str] | None = ...,
) -> PersonItemGraph: ...


@overload
def read_pairs(
    source: str | os.PathLike[str] | Any | None = ...,
    person: str = ...,
    item: str = ...,
    count: str | None = ...,
    *,
    group: str,
    sql: str | None = ...,
    connection: duckdb.DuckDBPyConnection | None = ...,
    format: str | None = ...,
    drop_nulls: bool = ...,
    delimiter: str | None = ...,
    header: bool = ...,
    encoding: str = ...,
    column_types: Mapping[str, str] | None = ...,
) -> GroupedGraph: ...


def read_pairs(
    source: str | os.PathLike[str] | Any | None = None,
    person: str = "person",
    item: str = "item",
    count: str | None = None,
    *,
    group: str | None = None,
    sql: str | None = None,
    connection: duckdb.DuckDBPyConnection | None = None,
    format: str | None = None,
    drop_nulls: bool = False,
    delimiter: str | None = None,
    header: bool = True,
    encoding: str = "utf-8",
    column_types: Mapping[str, str] | None = None,
) -> PersonItemGraph | GroupedGraph:
    """Read person–item pairs from a file, a table in memory or a SQL query into a graph.

    Duplicate pairs are merged (their ``count`` values summed when a count column is given).
    The rows stream through once as Arrow batches; memory is about 12 bytes per row plus the
    distinct labels.

    Parameters
    ----------
    source
        Path (or glob) of a CSV, TSV, Parquet or JSON lines file, or a table in memory: a pandas
        or polars DataFrame, a polars LazyFrame, a pyarrow Table or RecordBatchReader (read into
        memory first, as it can be read only once), or a DuckDB relation (run on ``connection``
        when given – it must be the relation's own – otherwise fetched as an Arrow table).
        Omit it when giving ``sql``.
    person, item
        Columns holding the person id and the item id.
    count
        Optional column of non-negative integer multiplicities (e.g. how often a person used an
        item); pairs whose counts sum to 0 are dropped.
    group
        A group-key column: read (person, group, item) triples into a
        :class:`~dpcount.graph.GroupedGraph` instead (:func:`dpcount.read_triples`).
    sql
        A DuckDB ``SELECT`` query producing the columns, instead of ``source``.  It may read files
        itself, e.g. ``SELECT ... FROM read_parquet('logs/*.parquet') WHERE ...``, and tables
        registered on ``connection`` (``connection.register("visits", df)``).
    connection
        DuckDB connection to run on (for your tables, views, extensions or credentials); default
        an in-memory database of dpcount's own (one per read, or one per process for Parquet
        files and tables in memory, each read on a connection of its own).
    format
        One of ``"csv"``, ``"tsv"``, ``"parquet"``, ``"jsonl"``; inferred from the suffix.
    drop_nulls
        Drop rows whose person, item or count is null, empty or NaN (a
        :class:`~dpcount.errors.DroppedRowsWarning` reports how many) instead of raising.
    delimiter
        CSV/TSV field separator; default ``","`` for CSV and a tab for TSV.  Fields may be
        quoted with ``"`` (a quote inside is doubled), as in RFC 4180; for other dialects read
        the file with ``sql="SELECT ... FROM read_csv(...)"``.
    header
        Whether a CSV/TSV file starts with a header line; without one the columns are named
        ``column0``, ``column1``, …
    encoding
        Encoding of a CSV/TSV file: ``"utf-8"`` (default), ``"utf-16"`` or ``"latin-1"``.
    column_types
        DuckDB types for some CSV/TSV columns, overriding type detection, e.g.
        ``{"zip": "VARCHAR"}`` to keep ids such as ``"00501"`` as text.  For other sources, cast in
        ``sql``.

    Returns
    -------
    PersonItemGraph
        Persons and items numbered in the sorted order of their labels; with counts when
        ``count`` is given.

    Raises
    ------
    DataError
        If the file is missing, empty, unreadable or malformed (with the line when DuckDB reports
        it), a column is missing or of an unusable type, ids are null or empty (unless
        ``drop_nulls``), counts are negative, or no rows are left.
    InvalidParameterError
        On contradictory or unknown options (both ``source`` and ``sql``, an unknown format …).

    See Also
    --------
    PersonItemGraph.from_pairs, PersonItemGraph.from_dataframe : in-memory data.
    dpcount.read_texts : texts to n-gram graphs.

    Examples
    --------
    >>> g = read_pairs(sql="SELECT * FROM (VALUES ('a', 2), ('a', 1), ('b', 2)) t(u, w)",
    ...                person="u", item="w")
    >>> g.person_labels.tolist(), g.item_labels.tolist(), g.indices.tolist()
    (['a', 'b'], [1, 2], [0, 1, 1])
    >>> import pandas as pd
    >>> read_pairs(pd.DataFrame({"person": [1, 1, 2], "item": ["x", "y", "x"]})).n_pairs
    3
    """
    if group is not None:
        if count is not None:
            raise InvalidParameterError("count= is not supported together with group=")
        return read_triples(
            source, person, group, item, sql=sql, connection=connection, format=format,
            drop_nulls=drop_nulls, delimiter=delimiter, header=header, encoding=encoding,
            column_types=column_types,
        )  # fmt: skip
    options = FileOptions(format, delimiter, header, encoding, column_types)
    ids = {"person": person, "item": item}
    others = {"count": count} if count is not None else {}
    with open_source(source, sql, connection, options, ids, others) as opened:
        if count is not None:
            check_count_type(count, opened.types[count], opened.source.name)
        build = stream_pairs(opened, drop_nulls, count)
    # After the read: a private database has handed back its memory (~100 MB of a CSV's).
    return build()
