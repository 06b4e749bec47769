"""Readers and a writer for person–item data: CSV, TSV, Parquet, JSON lines and SQL, via DuckDB.

DuckDB does the relational work out of core – reading, checking ids, deduplicating pairs (when
many repeat) and dictionary-encoding labels into integer codes that index the **sorted** distinct
labels – and hands back NumPy arrays; no Python object is created per row.  The result is a
:class:`~dpcount.graph.PersonItemGraph`.  Local Parquet files whose id columns are strings or
32/64-bit integers are read by Arrow's Parquet reader instead, with the dictionaries the file
already stores, so rows are not hashed again (same graph, same errors: anything else goes
through DuckDB).

Rules shared by the readers:

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
  ``drop_nulls=True`` those rows are dropped instead and a :class:`DroppedRowsWarning` says how
  many.  A person whose every row is dropped is not in the graph.
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
import re
import uuid
import warnings
from collections.abc import Callable, Iterable, Iterator, Mapping
from contextlib import AbstractContextManager, contextmanager, nullcontext
from dataclasses import dataclass, field
from functools import cached_property, partial
from pathlib import Path
from typing import TYPE_CHECKING, Any, overload

import numpy as np

from dpcount._database import private_connection, shared_cursor
from dpcount._deferred_labels import DeferredLabels
from dpcount._encode import EncodedPairs, NeedsChecks, encode_batches
from dpcount._frames import frame_kind, integer_columns, registrable
from dpcount.errors import DataError, InvalidParameterError
from dpcount.graph import COMPILED_MIN_PAIRS, PersonItemGraph
from dpcount.text import NGRAM_SIZES, TOKEN_PATTERN, tokenize

if TYPE_CHECKING:
    import duckdb
    import pyarrow as pa

    from dpcount.graph import Labels
    from dpcount.grouped import GroupedGraph

__all__ = [
    "FORMATS",
    "DroppedRowsWarning",
    "read_pairs",
    "read_texts",
    "tokenize",
    "write_pairs",
]

#: Input formats the readers understand.
FORMATS = ("csv", "tsv", "parquet", "jsonl")

_SUFFIX_FORMATS = {
    ".csv": "csv",
    ".tsv": "tsv",
    ".tab": "tsv",
    ".parquet": "parquet",
    ".pq": "parquet",
    ".jsonl": "jsonl",
    ".ndjson": "jsonl",
    ".json": "jsonl",
}
_COMPRESSION_SUFFIXES = {".gz", ".gzip", ".zst", ".zstd"}
_GLOB_CHARS = set("*?[")
_WRITE_FORMATS = {".csv": "csv", ".parquet": "parquet"}

_INTEGER_TYPES = {
    "TINYINT",
    "SMALLINT",
    "INTEGER",
    "BIGINT",
    "UTINYINT",
    "USMALLINT",
    "UINTEGER",
    "UBIGINT",
}
_PLAIN_ID_TYPES = _INTEGER_TYPES | {
    "FLOAT",
    "DOUBLE",
    "BOOLEAN",
    "DATE",
    "TIME",
    "TIMESTAMP",
    "TIMESTAMP_S",
    "TIMESTAMP_MS",
    "TIMESTAMP_NS",
    "TIMESTAMP WITH TIME ZONE",
    "UUID",
}
# Rows per Arrow batch fetched from DuckDB.
_BATCH_ROWS = 1 << 20
#: Id types whose pair keys can be made from the values (dpcount._int_keys) ...
_INT_KEY_TYPES = {"INTEGER", "BIGINT"}
#: ... from this many rows on (it compiles kernels, as the large-input CSR does).
INT_KEYS_MIN_ROWS = COMPILED_MIN_PAIRS
_MAX_EXACT_DECIMAL_DIGITS = 15  # every decimal with ≤ 15 digits survives a trip through float64


class DroppedRowsWarning(UserWarning):
    """Rows with null or empty ids were dropped because ``drop_nulls=True`` was passed."""


# --------------------------------------------------------------------------------------------
# Public readers
# --------------------------------------------------------------------------------------------


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
        :class:`~dpcount.grouped.GroupedGraph` instead (:func:`dpcount.triples.read_triples`).
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
        :class:`DroppedRowsWarning` reports how many) instead of raising.
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
    read_texts : texts to n-gram graphs.

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
        from dpcount.triples import read_triples

        if count is not None:
            raise InvalidParameterError("count= is not supported together with group=")
        return read_triples(
            source, person, group, item, sql=sql, connection=connection, format=format,
            drop_nulls=drop_nulls, delimiter=delimiter, header=header, encoding=encoding,
            column_types=column_types,
        )  # fmt: skip
    src = _resolve_source(source, sql, format, delimiter, header, encoding, column_types)
    roles = {"person": person, "item": item} | ({"count": count} if count is not None else {})
    with _session(connection, src, [person, item]) as session:
        types = session.column_types(roles)
        projection = {
            "p": _label_expr(person, types[person], src),
            "i": _label_expr(item, types[item], src),
        }
        if count is not None:
            if types[count] not in _INTEGER_TYPES:
                raise DataError(
                    f"count column {count!r} has type {types[count]}, expected an integer type; "
                    "cast it in SQL or fix the file",
                    source=src.name,
                )
            projection["c"] = _quote_ident(count)
        invalid = {
            person: _invalid_expr("p", types[person]),
            item: _invalid_expr("i", types[item]),
        } | ({count: "c IS NULL"} if count is not None else {})
        columns = {"p": person, "i": item} | ({"c": count} if count is not None else {})
        build = session.stream_pairs(projection, invalid, drop_nulls, count, types, columns)
    # After the session: a private database has handed back its memory (~100 MB of a CSV's).
    return build()


def read_texts(
    source: str | os.PathLike[str] | None = None,
    person: str = "person",
    text: str = "text",
    ngram: int = 1,
    *,
    sql: str | None = None,
    connection: duckdb.DuckDBPyConnection | None = None,
    format: str | None = None,
    drop_nulls: bool = False,
    delimiter: str | None = None,
    header: bool = True,
    encoding: str = "utf-8",
    column_types: Mapping[str, str] | None = None,
) -> PersonItemGraph:
    """Read texts written by persons into a person–n-gram graph with usage counts.

    Tokenization (:func:`dpcount.text.tokenize`: lower-case, ASCII ``[a-z0-9]+`` tokens) and
    n-gram counting run inside DuckDB; the result equals
    ``dpcount.text.ngram_graph(persons, texts, n=ngram)`` on the same rows.

    Parameters
    ----------
    source, sql, connection, format, drop_nulls, delimiter, header, encoding, column_types
        As in :func:`read_pairs`; ``drop_nulls`` concerns person ids only.  A null or empty
        text has no tokens (CSV files cannot tell the two apart).
    person
        Column with the person id.
    text
        Column with the text (a string type).  A person may have many rows.
    ngram
        n-gram length: 1, 2 or 3.  n-grams never span two rows.

    Returns
    -------
    PersonItemGraph
        Items are the n-grams as space-joined strings; ``counts`` says how many times the person
        used each.  Persons whose texts yield no n-gram are persons without items.

    Raises
    ------
    DataError, InvalidParameterError
        As in :func:`read_pairs`; also when the text column is not a string column.

    Examples
    --------
    >>> query = "SELECT * FROM (VALUES (1, 'To be, or not to be'), (2, '')) t(person, text)"
    >>> g = read_texts(sql=query, ngram=2)
    >>> g.item_labels.tolist(), g.counts.tolist(), g.n_persons
    (['be or', 'not to', 'or not', 'to be'], [1, 1, 1, 2], 2)
    """
    if isinstance(ngram, bool) or ngram not in NGRAM_SIZES:
        raise InvalidParameterError(f"ngram must be one of {NGRAM_SIZES}, got {ngram!r}")
    src = _resolve_source(source, sql, format, delimiter, header, encoding, column_types)
    with _session(connection, src) as session:
        types = session.column_types({"person": person, "text": text})
        if types[text] != "VARCHAR":
            raise DataError(
                f"text column {text!r} has type {types[text]}, expected VARCHAR (strings)",
                source=src.name,
            )
        projection = {"p": _label_expr(person, types[person], src), "t": _quote_ident(text)}
        invalid = {person: _invalid_expr("p", types[person])}  # a null text is just no text
        valid = session.valid_rows(projection, invalid, drop_nulls)
        tokens = f"SELECT p, {_tokens_sql('t')} AS w FROM {valid}"
        grams = f"SELECT p, unnest({_ngram_list_sql('w', int(ngram))}) AS i FROM ({tokens})"
        pairs = session.table(
            "pairs", f"SELECT p, i, count(*)::BIGINT AS c FROM ({grams}) GROUP BY p, i"
        )
        return session.encode(valid, pairs, with_counts=True, types=(types[person], "VARCHAR"))


def write_pairs(
    graph: PersonItemGraph, path: str | os.PathLike[str], *, format: str | None = None
) -> Path:
    """Write a graph's pairs to CSV or Parquet, atomically, in CSR order.

    Columns are ``person``, ``item`` and, when the graph has counts, ``count`` – the defaults of
    :func:`read_pairs`, so ``read_pairs(write_pairs(g, path))`` gives ``g`` back.  Persons
    without items cannot be represented in a pairs file and are not written.

    The file is written under a temporary name in the same folder and renamed into place, so a
    failure or an interruption never leaves a half-written ``path``.

    Parameters
    ----------
    graph
        The graph to write.
    path
        Destination ending in ``.csv`` or ``.parquet``.
    format
        ``"csv"`` or ``"parquet"``; inferred from the suffix.

    Returns
    -------
    pathlib.Path
        The written file.

    Examples
    --------
    >>> import pathlib, tempfile
    >>> g = PersonItemGraph.from_sets({"ann": ["x", "y"], "bob": ["y"]})
    >>> with tempfile.TemporaryDirectory() as folder:
    ...     path = write_pairs(g, pathlib.Path(folder) / "pairs.parquet")
    ...     read_pairs(path) == g
    True
    """
    import duckdb

    target = Path(path).expanduser()
    fmt = format if format is not None else _WRITE_FORMATS.get(target.suffix.lower())
    if fmt not in ("csv", "parquet"):
        raise InvalidParameterError(
            f"cannot write {str(target)!r}: use a .csv or .parquet file name, or format='csv' "
            "or format='parquet'"
        )
    if not target.parent.is_dir():
        raise DataError(f"folder {str(target.parent)!r} does not exist", source=str(target))
    persons, items = graph.pairs()
    tables = {
        "codes": {"pc": persons, "ic": items}
        | ({"c": np.asarray(graph.counts)} if graph.counts is not None else {}),
        "person_labels": {
            "pc": np.arange(graph.n_persons),
            "label": _duckdb_array(graph.person_labels),
        },
        "item_labels": {"ic": np.arange(graph.n_items), "label": _duckdb_array(graph.item_labels)},
    }
    count_column = ', codes.c AS "count"' if graph.counts is not None else ""
    query = (
        f"SELECT pl.label AS person, il.label AS item{count_column} FROM codes "
        "JOIN person_labels pl USING (pc) JOIN item_labels il USING (ic) ORDER BY pc, ic"
    )
    options = "FORMAT csv, HEADER true" if fmt == "csv" else "FORMAT parquet"
    # A unique name beside the target (same file system, so the rename is atomic); DuckDB creates
    # it, so it gets the usual permissions rather than mkstemp's owner-only ones.
    tmp_name = str(target.parent / f".{target.name}.{uuid.uuid4().hex[:12]}.tmp")
    try:
        with duckdb.connect() as con:
            for name, columns in tables.items():
                con.register(name, columns)
            con.execute(f"COPY ({query}) TO {_quote_literal(tmp_name)} ({options})")
        os.replace(tmp_name, target)
    except BaseException as exc:
        Path(tmp_name).unlink(missing_ok=True)
        if isinstance(exc, duckdb.Error):
            raise DataError(
                f"could not write the pairs: {_first_line(exc)}", source=str(target)
            ) from exc
        raise
    return target


# --------------------------------------------------------------------------------------------
# Sources
# --------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class _Source:
    """Where rows come from: SQL usable after ``FROM`` and a name for error messages."""

    relation: str
    name: str
    path: str | None = None
    csv_header: bool = False  # a CSV/TSV file whose first line is taken as the column names
    format: str | None = None  # of a file source
    frame: Any = field(default=None, compare=False)  # an in-memory table registered as relation


def _looks_like_data(name: str) -> bool:
    """Whether a header field reads as a value (a number or an ISO date), not a column name."""
    try:
        float(name)
    except ValueError:
        return bool(re.fullmatch(r"\d{4}-\d{2}-\d{2}.*", name))
    return True


def _resolve_source(
    source: str | os.PathLike[str] | None,
    sql: str | None,
    format: str | None,
    delimiter: str | None,
    header: bool,
    encoding: str,
    column_types: Mapping[str, str] | None,
) -> _Source:
    """Check the source options and turn them into a ``FROM`` clause."""
    if (source is None) == (sql is None):
        raise InvalidParameterError(
            "give exactly one of a file or table (source=...) and a query (sql=...)"
        )
    kind = frame_kind(source)
    if sql is not None or kind is not None:
        for option, value, default in (
            ("format", format, None),
            ("delimiter", delimiter, None),
            ("header", header, True),
            ("encoding", encoding, "utf-8"),
            ("column_types", column_types, None),
        ):
            if value != default:
                advice = "with sql=, express it in the query" if kind is None else "not tables"
                raise InvalidParameterError(f"{option}= applies to files only; {advice}")
    if kind is not None:
        name = f"dpcount_frame_{uuid.uuid4().hex[:12]}"
        return _Source(relation=name, name=kind, frame=source)
    if sql is not None:
        query = sql.strip().rstrip(";").strip()
        if not query:
            raise InvalidParameterError("sql is empty; pass a SELECT query")
        return _Source(relation=f"({query}) AS dpcount_query", name="SQL query")
    if not isinstance(source, str | os.PathLike):
        raise InvalidParameterError(
            f"cannot read a {type(source).__name__}: pass a path, a glob, or a pandas, polars, "
            "Arrow or DuckDB table"
        )
    path = os.path.expanduser(os.fspath(source))
    fmt = _check_format(format, path)
    _check_file(path)
    return _Source(
        relation=_reader_sql(path, fmt, delimiter, header, encoding, column_types),
        name=path,
        path=path,
        csv_header=header and fmt in ("csv", "tsv"),
        format=fmt,
    )


def _plain_suffix(path: str) -> str:
    """The lower-cased file suffix, ignoring a compression suffix (``a.csv.gz`` → ``.csv``)."""
    suffixes = [s.lower() for s in Path(path).suffixes]
    while suffixes and suffixes[-1] in _COMPRESSION_SUFFIXES:
        suffixes.pop()
    return suffixes[-1] if suffixes else ""


def _infer_format(path: str) -> str | None:
    """The format implied by the file suffix, or None."""
    return _SUFFIX_FORMATS.get(_plain_suffix(path))


def _check_format(format: str | None, path: str) -> str:
    if format is not None:
        if format not in FORMATS:
            raise InvalidParameterError(
                f"unknown format {format!r}; choose one of {', '.join(map(repr, FORMATS))}"
            )
        return format
    inferred = _infer_format(path)
    if inferred is None:
        raise InvalidParameterError(
            f"cannot tell the format of {path!r} from its suffix; pass format= one of "
            f"{', '.join(map(repr, FORMATS))}"
        )
    return inferred


def _check_file(path: str) -> None:
    """Fail early, with a clear message, on a missing or empty local file (globs/URLs pass)."""
    if "://" in path or _GLOB_CHARS & set(path):
        return
    if not os.path.exists(path):
        raise DataError("file not found; check the path", source=path)
    if os.path.isdir(path):
        raise DataError(
            "is a folder; pass a file, or a glob such as 'folder/*.parquet'", source=path
        )
    if os.path.getsize(path) == 0:
        raise DataError("file is empty; expected a header and at least one row", source=path)


def _reader_sql(
    path: str,
    fmt: str,
    delimiter: str | None,
    header: bool,
    encoding: str,
    column_types: Mapping[str, str] | None,
) -> str:
    """The DuckDB table function call that reads ``path``."""
    literal = _quote_literal(path)
    if fmt in ("csv", "tsv"):
        delim = delimiter if delimiter is not None else ("," if fmt == "csv" else "\t")
        options = [
            f"delim={_quote_literal(delim)}",
            # RFC 4180 quoting, as pandas, Excel and Python's csv write it; sniffing the quote
            # character mistakes apostrophes in ids for quotes.
            "quote='\"'",
            "escape='\"'",
            f"header={'true' if header else 'false'}",
            f"encoding={_quote_literal(encoding)}",
        ]
        if column_types:
            entries = ", ".join(
                f"{_quote_literal(k)}: {_quote_literal(v)}" for k, v in column_types.items()
            )
            options.append(f"types={{{entries}}}")
        return f"read_csv({literal}, {', '.join(options)})"
    for option, value, default in (
        ("delimiter", delimiter, None),
        ("header", header, True),
        ("encoding", encoding, "utf-8"),
        ("column_types", column_types, None),
    ):
        if value != default:
            raise InvalidParameterError(
                f"{option}= applies to CSV/TSV files only, not to {fmt}; for other conversions "
                "read the file with sql=..."
            )
    if fmt == "parquet":
        return f"read_parquet({literal})"
    # A ".json" file may be one JSON array or JSON lines; ".jsonl"/".ndjson" are JSON lines.
    style = "auto" if _plain_suffix(path) == ".json" else "newline_delimited"
    return f"read_json({literal}, format={_quote_literal(style)})"


# --------------------------------------------------------------------------------------------
# The DuckDB session: temporary tables, checks, encoding
# --------------------------------------------------------------------------------------------


class _Session:
    """Runs the reader's statements on one connection and translates DuckDB errors."""

    def __init__(self, con: duckdb.DuckDBPyConnection, source: _Source) -> None:
        self.con = con
        self.source = source
        self.prefix = f"dpcount_{uuid.uuid4().hex[:12]}"
        self.created: list[tuple[str, str]] = []

    # -- plumbing --------------------------------------------------------------------------

    def run(self, statement: str, fetch: str | None = None) -> Any:
        """Execute ``statement``; with ``fetch`` ("all", "one", "numpy") return its result.

        Fetching happens inside the ``try`` too: DuckDB may report errors only while streaming.
        """
        import duckdb

        try:
            result = self.con.execute(statement)
            if fetch == "all":
                return result.fetchall()
            if fetch == "one":  # fetchall: an unfinished result would block register()
                rows = result.fetchall()
                return rows[0] if rows else None
            if fetch == "numpy":
                return result.fetchnumpy()
            return None
        except duckdb.Error as exc:
            raise _data_error(exc, self.source) from exc

    def table(self, name: str, select: str, kind: str = "TABLE") -> str:
        """Create a temporary table (or view) holding ``select``; dropped when the session ends."""
        full = f"{self.prefix}_{name}"
        self.run(f"CREATE TEMP {kind} {full} AS {select}")
        self.created.append((kind, full))
        return full

    def drop_all(self) -> None:
        """Drop what the session created; never mask the error that ended the session."""
        import duckdb

        for kind, name in reversed(self.created):
            try:
                self.con.execute(f"DROP {kind} IF EXISTS {name}")
            except duckdb.Error:  # e.g. the caller's transaction was aborted by that error
                break
        self.created.clear()

    # -- steps -------------------------------------------------------------------------------

    def column_types(self, roles: Mapping[str, str]) -> dict[str, str]:
        """DuckDB type of each column of the source; missing columns raise a DataError."""
        described = self.run(f"DESCRIBE SELECT * FROM {self.source.relation}", "all")
        types = {str(row[0]): str(row[1]) for row in described}
        missing = [f"{role} column {col!r}" for role, col in roles.items() if col not in types]
        if missing:
            hint = ""
            if len(types) == 1 and self.source.path is not None:
                hint = " (a single column: is the delimiter or the format right?)"
            elif self.source.csv_header and any(map(_looks_like_data, types)):
                hint = (
                    "; the first row looks like data, not a header: pass header=False "
                    "(CLI: --no-header --columns NAME,NAME,...)"
                )
            raise DataError(
                f"{' and '.join(missing)} not found; available columns: {list(types)}{hint}",
                source=self.source.name,
            )
        return types

    def stream_pairs(
        self,
        projection: Mapping[str, str],
        invalid: Mapping[str, str],
        drop_nulls: bool,
        count: str | None,
        types: Mapping[str, str],
        columns: Mapping[str, str],
    ) -> Callable[[], PersonItemGraph]:
        """What builds the graph of the projected rows (``p``, ``i`` and optionally ``c``),
        read in one pass; it needs the session no more.

        ``types`` are the source's DuckDB column types, ``columns`` the source column of each
        alias.  The rows stream out of DuckDB as Arrow batches – or, from Parquet files whose
        id columns allow it, out of Arrow's own Parquet reader with the files' dictionaries
        (:meth:`encode_parquet`) – and are dictionary-encoded on the way
        (:mod:`dpcount._encode`); nothing is materialised.  Only when the stream shows a problem
        (null, empty or NaN ids, null or negative counts, no rows) are the rows materialised
        and checked by :meth:`valid_rows`, which words the error or the warning, and the valid
        rows streamed again.
        """
        select = ", ".join(f"{expr} AS {alias}" for alias, expr in projection.items())
        with_counts = count is not None
        graph = None if with_counts else self.int_keys_graph(columns, types)
        if graph is not None:
            return lambda: graph
        try:
            encoded = self.encode_parquet(columns, types, with_counts)
            if encoded is None:
                encoded = self.encode_stream(
                    f"SELECT {select} FROM {self.source.relation}", with_counts
                )
        except NeedsChecks:
            valid = self.valid_rows(projection, invalid, drop_nulls, 4, materialise=False)
            if count is not None:
                self.check_non_negative(valid, count)
            try:
                encoded = self.encode_stream(
                    f"SELECT {', '.join(projection)} FROM {valid}", with_counts
                )
            except NeedsChecks as exc:  # the checks above rule this out
                raise DataError(
                    f"unexpected {exc} after the checks", source=self.source.name
                ) from exc
        return partial(self.graph_of, encoded, types[columns["p"]], types[columns["i"]])

    def graph_of(self, encoded: EncodedPairs, person_type: str, item_type: str) -> PersonItemGraph:
        """The graph of encoded pairs whose id columns have these DuckDB types."""
        with self.label_errors():
            return PersonItemGraph._from_code_groups(
                encoded.person_codes,
                encoded.item_codes,
                _arrow_labels(encoded.person_labels, person_type),
                _arrow_labels(encoded.item_labels, item_type),
                encoded.counts,
                all_items_held=encoded.counts is None and not encoded.unused_items,
                drop_unused_persons=encoded.unused_persons,
                person_maps=encoded.person_maps,
                item_maps=encoded.item_maps,
            )

    @contextmanager
    def label_errors(self) -> Iterator[None]:
        """Reword a graph's label complaint as advice about the source's id columns."""
        try:
            yield
        except DataError as exc:
            raise DataError(
                f"the ids could not be represented exactly as NumPy labels ({exc}); cast the "
                "id columns to VARCHAR or BIGINT in SQL",
                source=self.source.name,
            ) from exc

    @cached_property
    def parquet_files(self) -> list[str] | None:
        """The files of a Parquet source given by path or glob (DuckDB's glob rules), listed
        once per session."""
        if self.source.format != "parquet" or self.source.path is None:
            return None
        pattern = _quote_literal(self.source.path)
        return [str(row[0]) for row in self.run(f"SELECT file FROM glob({pattern})", "all")]

    def int_keys_graph(
        self, columns: Mapping[str, str], types: Mapping[str, str]
    ) -> PersonItemGraph | None:
        """The graph of a large Parquet source or table in memory whose ids are integers from
        narrow ranges, its pair keys made from the values (:mod:`dpcount._int_keys`); None
        where that does not apply (then the rows are encoded as any others)."""
        import pyarrow as pa

        from dpcount import _int_keys
        from dpcount._parquet import parquet_batches

        person, item = columns["p"], columns["i"]
        if {types[person], types[item]} - _INT_KEY_TYPES:
            return None
        if self.source.frame is not None:
            found = integer_columns(self.source.frame, self.source.name, [person, item])
            if found is None or len(found[0]) < INT_KEYS_MIN_ROWS:
                return None
            persons, items = found
            plan = _int_keys.plan_int_columns(persons, items, person, item)
            batches: Iterator[pa.RecordBatch] | None = _int_keys.column_batches(persons, items)
        else:
            files = self.parquet_files
            if not files:
                return None
            plan = _int_keys.plan_int_keys(files, person, item)
            batches = parquet_batches(files, columns, types)
        if plan is None or plan.rows < INT_KEYS_MIN_ROWS or batches is None:
            return None
        try:
            keyed = _int_keys.read_int_keys(batches, plan)
        except (pa.ArrowException, OSError):  # Arrow re-raises some errors as OSError
            return None
        if keyed is None:
            return None
        indptr, indices, person_labels, item_labels = keyed
        return PersonItemGraph._finish(
            indptr, indices, person_labels, item_labels, all_items_held=True
        )

    def encode_parquet(
        self, columns: Mapping[str, str], types: Mapping[str, str], with_counts: bool
    ) -> EncodedPairs | None:
        """Encode a Parquet source read by Arrow (:mod:`dpcount._parquet`), or None if it
        cannot be read that way exactly: then DuckDB reads it (and words any error)."""
        import pyarrow as pa

        from dpcount._parquet import parquet_batches

        files = self.parquet_files
        if files is None:
            return None
        batches = parquet_batches(files, columns, types)
        if batches is None:
            return None
        try:
            return encode_batches(batches, with_counts=with_counts)
        except (pa.ArrowException, OSError):  # Arrow re-raises some errors as OSError
            return None

    def encode_stream(self, select: str, with_counts: bool) -> EncodedPairs:
        """Run ``select`` and encode its rows batch by batch (see :func:`encode_batches`)."""
        import duckdb
        import pyarrow as pa

        try:
            reader = self.con.sql(select).to_arrow_reader(_BATCH_ROWS)
            try:
                return encode_batches(reader, with_counts=with_counts)
            finally:
                reader.close()  # frees the connection for the checks after NeedsChecks
        except (duckdb.Error, pa.ArrowException, OSError) as exc:  # Arrow re-raises as OSError
            raise _data_error(exc, self.source) from exc

    def valid_rows(
        self,
        projection: Mapping[str, str],
        invalid: Mapping[str, str],
        drop_nulls: bool,
        stacklevel: int = 3,
        *,
        materialise: bool = True,
    ) -> str:
        """Count unusable rows: raise, or warn and return a view of the rows with usable ids.

        The projected rows are materialised once (callers that read the result several times
        want that), and always without ``drop_nulls``, so that the error can name the first bad
        row (its ``rowid``).  With ``drop_nulls`` and ``materialise=False`` a view is used
        instead (no copy of the rows) – except for floating-point ids: DuckDB 2.0 folds
        ``isnan`` to false from Parquet column statistics that do not record NaN, so NaN rows
        would pass a view's filter.
        """
        select = ", ".join(f"{expr} AS {alias}" for alias, expr in projection.items())
        uses_nan = any("isnan(" in expr for expr in invalid.values())
        kind = "VIEW" if drop_nulls and not materialise and not uses_nan else "TABLE"
        raw = self.table("raw", f"SELECT {select} FROM {self.source.relation}", kind=kind)
        any_invalid = " OR ".join(invalid.values())
        filters = ", ".join(f"count(*) FILTER (WHERE {expr})" for expr in invalid.values())
        first = "NULL" if kind == "VIEW" else f"min(rowid) FILTER (WHERE {any_invalid})"
        stats = self.run(
            f"SELECT count(*), count(*) FILTER (WHERE {any_invalid}), {first}, {filters} "
            f"FROM {raw}",
            "one",
        )
        assert stats is not None
        total, n_invalid, first_bad, *per_column = (
            int(x) if x is not None else None for x in stats
        )
        if not total:
            raise DataError(
                "no rows; expected at least one person–item row", source=self.source.name
            )
        if n_invalid and not drop_nulls:
            parts = [f"{n} in {col!r}" for col, n in zip(invalid, per_column, strict=True) if n]
            raise DataError(
                f"{n_invalid} of {total} rows (not private) have a null, empty or NaN id "
                f"({', '.join(parts)}; first in data row {int(first_bad or 0) + 1}); "
                "fill or remove them, or pass drop_nulls=True to skip those rows",
                source=self.source.name,
            )
        if not n_invalid:
            return raw
        warnings.warn(
            f"{self.source.name}: dropped {n_invalid} of {total} rows (not private) with a null, "
            "empty or NaN id",
            DroppedRowsWarning,
            stacklevel=stacklevel,
        )
        if n_invalid == total:
            raise DataError(
                f"no rows left after dropping {n_invalid} rows (not private) with null, "
                "empty or NaN ids",
                source=self.source.name,
            )
        return self.table("valid", f"SELECT * FROM {raw} WHERE NOT ({any_invalid})", kind="VIEW")

    def check_non_negative(self, rows: str, count: str) -> None:
        row = self.run(f"SELECT count(*) FROM {rows} WHERE c < 0", "one")
        assert row is not None
        if row[0]:
            raise DataError(
                f"count column {count!r} has {row[0]} negative values (not private); "
                "counts must be >= 0",
                source=self.source.name,
            )

    def encode(
        self, valid: str, pairs: str, *, with_counts: bool, types: tuple[str, str]
    ) -> PersonItemGraph:
        """Dictionary-encode persons and items in label order and build the graph.

        ``types`` are the DuckDB types of the person and item columns.  :func:`read_texts`
        uses this rather than streaming (:meth:`stream_pairs`): its rows are already grouped
        (person, n-gram, count) and n-gram vocabularies are nearly as large as the pairs
        (4.4M distinct bigrams in 4.4M pairs), so per-batch dictionaries would shrink nothing
        while Arrow's one-threaded sort of millions of strings replaces DuckDB's parallel one:
        measured twice as slow for bigrams and no faster for words, where tokenizing and
        grouping inside DuckDB dominate.
        """
        persons = self.table(
            "persons",
            f"SELECT p, (row_number() OVER (ORDER BY p) - 1)::BIGINT AS pc "
            f"FROM (SELECT DISTINCT p FROM {valid})",
        )
        items = self.table(
            "items",
            f"SELECT i, (row_number() OVER (ORDER BY i) - 1)::INTEGER AS ic "
            f"FROM (SELECT DISTINCT i FROM {pairs})",
        )
        columns = "pc, ic, c" if with_counts else "pc, ic"
        codes = self.run(
            f"SELECT {columns} FROM {pairs} JOIN {persons} USING (p) JOIN {items} USING (i)",
            "numpy",
        )
        person_labels = self.labels(f"SELECT p FROM {persons} ORDER BY pc", types[0])
        item_labels = self.labels(f"SELECT i FROM {items} ORDER BY ic", types[1])
        with self.label_errors():
            return PersonItemGraph._from_codes(
                _plain(codes["pc"]),
                _plain(codes["ic"]),
                person_labels,
                item_labels,
                _plain(codes["c"]) if with_counts else None,
            )

    def labels(self, select: str, duck_type: str) -> np.ndarray:
        """The one column of ``select`` as a label array (DATE as ``datetime64[D]``)."""
        values = _plain(next(iter(self.run(select, "numpy").values())))
        return values.astype("datetime64[D]") if duck_type == "DATE" else values


@contextmanager
def _session(
    connection: duckdb.DuckDBPyConnection | None, source: _Source, columns: Iterable[str] = ()
) -> Iterator[_Session]:
    """A session on the caller's connection, or else on a database of dpcount's own: shared by
    the reads of Parquet files and tables in memory, whose rows Arrow reads, and private to any
    other read (see :mod:`dpcount._database`).

    An in-memory table source is registered under its unique name for the session only.
    """
    with _connection(connection, source) as con:
        session = _Session(con, source)
        try:
            with _registered(session, connection, columns):
                yield session
        finally:
            session.drop_all()


def _connection(
    connection: duckdb.DuckDBPyConnection | None, source: _Source
) -> AbstractContextManager[duckdb.DuckDBPyConnection]:
    if connection is not None:
        return nullcontext(connection)
    if source.frame is not None or source.format == "parquet":
        return shared_cursor()
    return private_connection()


@contextmanager
def _registered(
    session: _Session, connection: duckdb.DuckDBPyConnection | None, columns: Iterable[str]
) -> Iterator[None]:
    """Register the session's in-memory table (if any) while the block runs.

    ``connection`` is the caller's connection, if any; ``columns`` the id columns to check.
    """
    import duckdb

    source = session.source
    if source.frame is None:
        yield
        return
    table = registrable(source.frame, source.name, connection, columns)
    # A statement first: DuckDB refuses register() while the caller's last execute() result
    # is unfinished, and executing anything discards it (as every reader statement would).
    session.run("SELECT 1", "all")
    try:
        session.con.register(source.relation, table)
    except duckdb.Error as exc:
        raise _data_error(exc, source) from exc
    try:
        yield
    finally:
        try:
            session.con.unregister(source.relation)
        except duckdb.Error:  # e.g. the caller's transaction was aborted by the error
            pass


# --------------------------------------------------------------------------------------------
# SQL helpers
# --------------------------------------------------------------------------------------------


def _quote_ident(name: str) -> str:
    return '"' + name.replace('"', '""') + '"'


def _quote_literal(value: str) -> str:
    return "'" + value.replace("'", "''") + "'"


def _label_expr(column: str, duck_type: str, source: _Source) -> str:
    """SQL for an id column whose values NumPy represents exactly and orders like DuckDB."""
    col = _quote_ident(column)
    if duck_type == "VARCHAR":
        return f"{col} COLLATE C"  # byte order = code point order, as Python sorts strings
    if duck_type.startswith("ENUM("):
        return f"CAST({col} AS VARCHAR) COLLATE C"  # enums sort by declaration order otherwise
    if duck_type in _PLAIN_ID_TYPES:
        return col
    if duck_type in ("HUGEINT", "UHUGEINT"):
        # e.g. JSON integers; NumPy has no 128-bit integers, and a value out of range fails
        # loudly in the cast rather than turning into a float.
        return f"CAST({col} AS {'BIGINT' if duck_type == 'HUGEINT' else 'UBIGINT'})"
    decimal = re.fullmatch(r"DECIMAL\((\d+),(\d+)\)", duck_type.replace(" ", ""))
    if decimal and int(decimal.group(1)) <= _MAX_EXACT_DECIMAL_DIGITS:
        return f"CAST({col} AS DOUBLE)"
    raise DataError(
        f"id column {column!r} has type {duck_type}, which dpcount cannot use as a label; "
        "cast it in SQL to VARCHAR, BIGINT or DOUBLE",
        source=source.name,
    )


def _invalid_expr(alias: str, duck_type: str) -> str:
    """SQL condition that an id is unusable: null, an empty string, or NaN."""
    if duck_type == "VARCHAR" or duck_type.startswith("ENUM("):
        return f"({alias} IS NULL OR {alias} = '')"
    if duck_type in ("FLOAT", "DOUBLE") or duck_type.startswith("DECIMAL"):
        return f"({alias} IS NULL OR isnan({alias}))"
    return f"({alias} IS NULL)"


def _tokens_sql(column: str) -> str:
    """DuckDB twin of :func:`dpcount.text.tokenize`.

    Python lower-cases ``"İ"`` (U+0130) to ``"i"`` plus a combining dot, which then separates
    tokens; DuckDB lower-cases it to a bare ``"i"``.  It is the only code point where the two
    disagree (checked over all of Unicode in the tests), so it is mapped explicitly.
    """
    return f"regexp_extract_all(lower(replace({column}, 'İ', 'i ')), '{TOKEN_PATTERN}')"


def _ngram_list_sql(tokens: str, n: int) -> str:
    """DuckDB list of the ``n``-grams (space-joined) of the token-list column ``tokens``."""
    if n == 1:
        return tokens
    # k = 1 .. len - n + 1 (range's end is exclusive); slices are 1-based and inclusive.
    return (
        f"list_transform(range(1, len({tokens}) - {n - 2}), "
        f"lambda k: array_to_string({tokens}[k:k + {n - 1}], ' '))"
    )


# --------------------------------------------------------------------------------------------
# Errors and arrays
# --------------------------------------------------------------------------------------------


_LINE_PATTERNS = (re.compile(r"Line: (\d+)"), re.compile(r"\bline (\d+)"))


def _first_line(exc: BaseException) -> str:
    text = str(exc).strip()
    return text.splitlines()[0] if text else type(exc).__name__


def _duckdb_summary(text: str, max_lines: int = 3) -> str:
    """The informative head of a DuckDB error, without its advice about DuckDB options."""
    kept: list[str] = []
    for line in text.strip().splitlines():
        line = line.strip()
        if not line or line.startswith(("Possible", "The search space", "file =")):
            break
        kept.append(line.rstrip("."))
    return "; ".join(kept[:max_lines])


def _data_error(exc: Exception, source: _Source) -> DataError:
    """A DataError for a DuckDB failure: the file, the line if DuckDB names one, what to do."""
    text = str(exc)
    line = None
    for pattern in _LINE_PATTERNS:
        match = pattern.search(text)
        if match:
            line = int(match.group(1))
            break
    summary = _duckdb_summary(text)
    if "Invalid unicode" in text or "not utf-8 encoded" in text:
        message = (
            "the file is not valid UTF-8; pass encoding='latin-1' or encoding='utf-16', or "
            "convert the file to UTF-8"
        )
    elif "No magic bytes" in text:
        message = "not a Parquet file (no Parquet footer); check the file or pass format="
    elif "Error when sniffing" in text:
        message = (
            f"could not parse the file as delimited text ({summary}); check delimiter= and "
            "format=, and look for rows with a different number of fields"
        )
    elif "Could not convert" in text or "Error when converting" in text:
        message = (
            f"a value does not fit the detected column type ({summary}); pass "
            "column_types={'column': 'VARCHAR'} to read it as text"
        )
    else:
        message = f"could not read the data: {summary}"
    return DataError(message, source=source.name, line=line)


def _plain(values: Any) -> np.ndarray:
    """A plain ndarray from a DuckDB result column (which may be a masked array)."""
    if isinstance(values, np.ma.MaskedArray):
        return np.asarray(values.filled())
    return np.asarray(values)


def _arrow_labels(labels: np.ndarray | pa.Array, duck_type: str) -> Labels:
    """Labels as the graph keeps them: strings from Arrow deferred (converted on first read),
    and UUIDs, which Arrow exports as text, made UUIDs.

    The canonical lower-case hex text sorts like the 128-bit value, so the order is kept.
    """
    if isinstance(labels, np.ndarray):
        return labels
    if duck_type != "UUID":
        return DeferredLabels(labels)
    out = np.empty(len(labels), dtype=object)
    out[:] = [uuid.UUID(text) for text in labels.to_pylist()]
    return out


def _duckdb_array(labels: np.ndarray) -> np.ndarray:
    """Labels in a NumPy dtype DuckDB can scan (it refuses e.g. ``datetime64[D]``)."""
    if labels.dtype.kind == "M" and np.datetime_data(labels.dtype)[0] not in (
        "s",
        "ms",
        "us",
        "ns",
    ):
        return labels.astype("datetime64[us]")
    if labels.dtype.kind == "U":
        return labels.astype(object)
    return labels
