"""Where a reader's rows come from: a file or glob, a SQL query, or a table in memory.

:func:`resolve_source` checks the source options of every reader (one wording for all) and
turns them into a :class:`Source`: SQL usable after ``FROM`` and a name for error messages.

* The format comes from the file suffix (``.csv``, ``.tsv``, ``.tab``, ``.parquet``, ``.pq``,
  ``.jsonl``, ``.ndjson``, ``.json``, optionally followed by ``.gz`` or ``.zst``); ``format=``
  overrides it.  Globs such as ``"logs/*.parquet"`` are read as one table.
* Local files are looked at before DuckDB opens them (:mod:`dpcount.io._files`): a named
  pipe, a device, a link loop or a compression DuckDB cannot read is refused in words that
  say so, and each file of a glob is looked at too.
* ``sql=`` is exactly one ``SELECT`` run by DuckDB, checked before it runs
  (:mod:`dpcount.io._query`); a table in memory (pandas, polars, Arrow, a DuckDB
  relation) is registered on the reader's connection under a unique name
  (:mod:`dpcount.io._frames`).  File options apply to files only.

Examples
--------
>>> src = resolve_source(None, "SELECT 1 AS person", FileOptions())
>>> print(src.relation, src.name, sep="; ")
(
SELECT 1 AS person
) AS dpcount_query; SQL query
>>> resolve_source("data.xlsx", None, FileOptions())
Traceback (most recent call last):
...
dpcount.errors.InvalidParameterError: cannot tell the format of 'data.xlsx' from its suffix; \
pass format= one of 'csv', 'tsv', 'parquet', 'jsonl'
"""

from __future__ import annotations

import os
import re
import uuid
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from dpcount.errors import DataError, InvalidParameterError, Option
from dpcount.io._files import (
    GLOB_CHARS,
    check_glob,
    check_input_file,
    is_local,
    unsupported_suffix,
)
from dpcount.io._frames import frame_kind
from dpcount.io._query import QUERY_NAME, checked_query
from dpcount.io._sql import quote_literal

__all__ = ["FORMATS", "FileOptions", "Source", "looks_like_data", "resolve_source"]

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


@dataclass(frozen=True)
class FileOptions:
    """The options that say how to read a file (every reader takes the same ones)."""

    format: str | None = None
    delimiter: str | None = None
    header: bool = True
    encoding: str = "utf-8"
    column_types: Mapping[str, str] | None = None

    def changed(self) -> list[str]:
        """The options that differ from their defaults, in signature order."""
        default = FileOptions()
        names = ("format", "delimiter", "header", "encoding", "column_types")
        return [name for name in names if getattr(self, name) != getattr(default, name)]


@dataclass(frozen=True)
class Source:
    """Where rows come from: SQL usable after ``FROM`` and a name for error messages."""

    relation: str
    name: str
    path: str | None = None
    csv_header: bool = False  # a CSV/TSV file whose first line is taken as the column names
    format: str | None = None  # of a file source
    query: bool = False  # a sql= source (run on a locked connection of dpcount's own)
    frame: Any = field(default=None, compare=False)  # an in-memory table registered as relation


def looks_like_data(name: str) -> bool:
    """Whether a header field reads as a value (a number or an ISO date), not a column name."""
    try:
        float(name)
    except ValueError:
        return bool(re.fullmatch(r"\d{4}-\d{2}-\d{2}.*", name))
    return True


def resolve_source(source: Any, sql: str | None, options: FileOptions) -> Source:
    """Check the source options and turn them into a ``FROM`` clause."""
    if (source is None) == (sql is None):
        raise InvalidParameterError(
            "give exactly one of a file or table (source=...) and a query (sql=...)"
        )
    kind = frame_kind(source)
    if sql is not None or kind is not None:
        changed = options.changed()
        if changed:
            advice = (
                ("with ", Option("sql"), ", express it in the query")
                if kind is None
                else ("not tables",)
            )
            raise InvalidParameterError(Option(changed[0]), " applies to files only; ", *advice)
    if kind is not None:
        name = f"dpcount_frame_{uuid.uuid4().hex[:12]}"
        return Source(relation=name, name=kind, frame=source)
    if sql is not None:
        query = checked_query(sql)
        return Source(relation=f"(\n{query}\n) AS dpcount_query", name=QUERY_NAME, query=True)
    if not isinstance(source, str | os.PathLike):
        raise InvalidParameterError(
            f"cannot read a {type(source).__name__}: pass a path, a glob, or a pandas, polars, "
            "Arrow or DuckDB table"
        )
    path = os.path.expanduser(os.fspath(source))
    compression = unsupported_suffix(path)
    if compression is not None:  # before the format: 'a.csv.bz2' has no format suffix
        raise DataError(
            f"is compressed with {compression}, which dpcount cannot read; decompress it, or "
            "compress it with gzip (.gz) or zstd (.zst)",
            source=path,
        )
    fmt = _check_format(options.format, path)
    compression = _check_files(path, fmt)
    return Source(
        relation=_reader_sql(path, fmt, options, compression),
        name=path,
        path=path,
        csv_header=options.header and fmt in ("csv", "tsv"),
        format=fmt,
    )


def _plain_suffix(path: str) -> str:
    """The lower-cased file suffix, ignoring a compression suffix (``a.csv.gz`` → ``.csv``)."""
    suffixes = [s.lower() for s in Path(path).suffixes]
    while suffixes and suffixes[-1] in _COMPRESSION_SUFFIXES:
        suffixes.pop()
    return suffixes[-1] if suffixes else ""


def _check_format(format: str | None, path: str) -> str:
    if format is not None:
        if format not in FORMATS:
            raise InvalidParameterError(
                f"unknown format {format!r}; choose one of {', '.join(map(repr, FORMATS))}"
            )
        return format
    inferred = _SUFFIX_FORMATS.get(_plain_suffix(path))
    if inferred is None:
        raise InvalidParameterError(
            f"cannot tell the format of {path!r} from its suffix; pass ", Option("format", *FORMATS)
        )
    return inferred


def _check_files(path: str, fmt: str) -> str | None:
    """Check a local file, or each file of a local glob, before DuckDB opens it
    (:mod:`dpcount.io._files`); the compression of a single text file whose suffix does not
    name it."""
    if not is_local(path):
        return None
    if GLOB_CHARS & set(path):
        check_glob(path, text=fmt != "parquet")
        return None
    return check_input_file(path, text=fmt != "parquet")


def _reader_sql(path: str, fmt: str, options: FileOptions, compression: str | None = None) -> str:
    """The DuckDB table function call that reads ``path`` (compressed with ``compression``
    whatever its suffix says, if given)."""
    literal = quote_literal(path)
    compressed = [] if compression is None else [f"compression={quote_literal(compression)}"]
    if fmt in ("csv", "tsv"):
        delimiter = options.delimiter
        delim = delimiter if delimiter is not None else ("," if fmt == "csv" else "\t")
        settings = [
            f"delim={quote_literal(delim)}",
            # RFC 4180 quoting, as pandas, Excel and Python's csv write it; sniffing the quote
            # character mistakes apostrophes in ids for quotes.
            "quote='\"'",
            "escape='\"'",
            f"header={'true' if options.header else 'false'}",
            f"encoding={quote_literal(options.encoding)}",
            *compressed,
        ]
        if options.column_types:
            entries = ", ".join(
                f"{quote_literal(k)}: {quote_literal(v)}" for k, v in options.column_types.items()
            )
            settings.append(f"types={{{entries}}}")
        return f"read_csv({literal}, {', '.join(settings)})"
    changed = [name for name in options.changed() if name != "format"]
    if changed:
        raise InvalidParameterError(
            Option(changed[0]),
            f" applies to CSV/TSV files only, not to {fmt}; for other conversions read the "
            "file with ",
            Option("sql"),
        )
    if fmt == "parquet":
        return f"read_parquet({literal})"
    # A ".json" file may be one JSON array or JSON lines; ".jsonl"/".ndjson" are JSON lines.
    style = "auto" if _plain_suffix(path) == ".json" else "newline_delimited"
    settings = [f"format={quote_literal(style)}", *compressed]
    return f"read_json({literal}, {', '.join(settings)})"
