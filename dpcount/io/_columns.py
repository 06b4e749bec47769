"""The one source path of every reader: the source resolved and opened on DuckDB, its columns
selected **by name** and their types checked.

:func:`dpcount.read_pairs`, :func:`dpcount.read_triples` (and ``read_pairs(group=)``) and
:func:`dpcount.read_texts` all open their source here, so they accept the same sources (files,
globs, SQL, tables in memory), register tables the same way, apply the same label rules to
their id columns (:mod:`dpcount.graph.labels`, with DuckDB's types:
:func:`dpcount.io._sql.label_expr`) and word every problem alike.  What each reader does with
the open source – stream pairs, encode triples, tokenize texts – is its own.

Examples
--------
>>> import pandas as pd
>>> frame = pd.DataFrame({"user": [1, 2], "product": ["a", "b"], "region": ["eu", "us"]})
>>> with open_source(frame, None, None, FileOptions(), {"person": "user", "item": "item"}):
...     pass
Traceback (most recent call last):
...
dpcount.errors.DataError: pandas DataFrame: item column 'item' not found; available columns: \
['user', 'product', 'region']
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from dpcount.errors import InvalidParameterError
from dpcount.io._checks import check_glob_schemas, check_json_kinds, column_types
from dpcount.io._sources import FileOptions, Source, resolve_source
from dpcount.io._sql import invalid_expr, label_expr
from dpcount.io._workspace import Workspace, open_workspace

if TYPE_CHECKING:
    import duckdb

__all__ = ["ALIASES", "FileOptions", "OpenSource", "open_source"]

#: The SQL alias of each id column, by role.
ALIASES = {"person": "p", "group": "g", "item": "i"}


@dataclass(frozen=True)
class OpenSource:
    """A source open on DuckDB, with its id columns checked.

    Attributes
    ----------
    work
        The workspace that runs the read's statements.
    source
        The resolved source.
    types
        DuckDB type of every column of the source.
    columns
        The source column of each id alias (``p``, ``g``, ``i``).
    projection
        SQL of each id alias: the column as a label (:func:`dpcount.io._sql.label_expr`).
    invalid
        For each id column, the SQL condition that its id is unusable (null, empty or NaN).
    """

    work: Workspace
    source: Source
    types: dict[str, str]
    columns: dict[str, str]
    projection: dict[str, str]
    invalid: dict[str, str]


@contextmanager
def open_source(
    source: Any,
    sql: str | None,
    connection: duckdb.DuckDBPyConnection | None,
    options: FileOptions,
    ids: Mapping[str, str],
    others: Mapping[str, str] | None = None,
) -> Iterator[OpenSource]:
    """Open ``source`` (or ``sql``) with its id columns ``ids`` (role → column name) and other
    columns ``others`` (e.g. ``{"count": "n"}``), which the reader checks itself.

    Raises
    ------
    InvalidParameterError
        A column name that is not a non-empty string, two roles naming one column, or
        contradictory source options.
    DataError
        A missing column (the message lists the columns the source has), an id column of an
        unusable type, or anything DuckDB cannot read, worded with the source's name.
    """
    roles = dict(ids) | dict(others or {})
    _check_column_names(roles)
    resolved = resolve_source(source, sql, options)
    with open_workspace(connection, resolved, ids) as work:
        types = column_types(work, roles)
        check_glob_schemas(work, list(roles.values()))
        check_json_kinds(work, ids, types)
        columns = {ALIASES[role]: column for role, column in ids.items()}
        yield OpenSource(
            work=work,
            source=resolved,
            types=types,
            columns=columns,
            projection={a: label_expr(c, types[c], resolved.name) for a, c in columns.items()},
            invalid={c: invalid_expr(a, types[c]) for a, c in columns.items()},
        )


def _check_column_names(roles: Mapping[str, str]) -> None:
    """Every role names a column (a non-empty string), and no two name the same one."""
    for role, column in roles.items():
        if not isinstance(column, str) or not column:
            raise InvalidParameterError(
                f"{role}= must name a column (a non-empty string), got {column!r}"
            )
    if len(set(roles.values())) != len(roles):
        names = ", ".join(roles)
        raise InvalidParameterError(f"{names} must name different columns, got {dict(roles)}")
