"""DuckDB's errors as the readers' one-line :class:`~dpcount.errors.DataError`.

Examples
--------
>>> str(data_error(RuntimeError("Invalid Input Error: Error when sniffing file"), "a.csv"))
'a.csv: could not parse the file as delimited text (Invalid Input Error: Error when sniffing \
file); check delimiter and format, and look for rows with a different number of fields'
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from contextlib import contextmanager

from dpcount.errors import DataError, Option
from dpcount.graph.assembly import CountOverflowError

__all__ = ["data_error", "first_line", "label_errors"]

_LINE_PATTERNS = (re.compile(r"Line: (\d+)"), re.compile(r"\bline (\d+)"))
_COLUMN_PATTERN = re.compile(r'converting column "([^"]+)"')


def first_line(exc: BaseException) -> str:
    """The first line of an exception's text (or its type's name)."""
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


def data_error(exc: Exception, source_name: str) -> DataError:
    """A DataError for a DuckDB failure: the file, the line if DuckDB names one, what to do."""
    text = str(exc)
    line = None
    for pattern in _LINE_PATTERNS:
        match = pattern.search(text)
        if match:
            line = int(match.group(1))
            break
    summary = _duckdb_summary(text)
    message: tuple[str | Option, ...]
    if "Invalid unicode" in text or "not utf-8 encoded" in text:
        message = (
            "the file is not valid UTF-8; pass ",
            Option("encoding", "latin-1", "utf-16"),
            ", or convert the file to UTF-8",
        )
    elif "No magic bytes" in text:
        message = (
            "not a Parquet file (no Parquet footer); check the file, or give its ",
            Option("format"),
        )
    elif "Error when sniffing" in text:
        message = (
            f"could not parse the file as delimited text ({summary}); check ",
            Option("delimiter"),
            " and ",
            Option("format"),
            ", and look for rows with a different number of fields",
        )
    elif "Could not convert" in text or "Error when converting" in text:
        column = _COLUMN_PATTERN.search(text)
        message = (
            f"a value does not fit the detected column type ({summary}); pass ",
            Option("column_types", {column.group(1) if column else "column": "VARCHAR"}),
            " to read it as text",
        )
    else:
        message = (f"could not read the data: {summary}",)
    return DataError(*message, source=source_name, line=line)


@contextmanager
def label_errors(source_name: str) -> Iterator[None]:
    """Reword a graph's label complaint as advice about the source's id columns (and name the
    source in a complaint about its counts)."""
    try:
        yield
    except CountOverflowError as exc:
        raise DataError(exc.message, source=source_name) from exc
    except DataError as exc:
        raise DataError(
            f"the ids could not be represented exactly as NumPy labels ({exc}); cast the "
            "id columns to VARCHAR or BIGINT in SQL",
            source=source_name,
        ) from exc
