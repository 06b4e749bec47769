"""The row checks of every reader: columns present and of a usable type, ids usable.

Problems are counted by DuckDB and reported exactly, in the same words for every reader: a
missing column names the columns the source has; null, empty or NaN ids are an error naming
how many there are per column and the first bad row, or with ``drop_nulls=True`` dropped with
a :class:`~dpcount.errors.DroppedRowsWarning`.

Examples
--------
>>> from dpcount.io._sources import FileOptions, resolve_source
>>> source = resolve_source(None, "SELECT 1 AS user", FileOptions())
>>> with open_workspace(None, source, {}) as work:
...     column_types(work, {"person": "person"})
Traceback (most recent call last):
...
dpcount.errors.DataError: SQL query: person column 'person' not found; available columns: \
['user']
"""

from __future__ import annotations

import os
import sys
import warnings
from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np

from dpcount.errors import DataError, DroppedRowsWarning, Option
from dpcount.graph.assembly import MAX_COUNT
from dpcount.graph.labels import mixed_kinds_message
from dpcount.io._files import GLOB_CHARS, is_local
from dpcount.io._sources import Source, looks_like_data
from dpcount.io._sql import INTEGER_TYPES, quote_ident, quote_literal
from dpcount.io._workspace import Workspace, open_workspace

__all__ = [
    "check_count_type",
    "check_counts",
    "check_float_ids",
    "check_glob_schemas",
    "check_json_kinds",
    "check_text_type",
    "column_types",
    "open_workspace",
    "valid_rows",
]

#: The dpcount package folder (with a trailing separator), whose frames a warning skips.
_PACKAGE = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "")


def column_types(work: Workspace, roles: Mapping[str, str]) -> dict[str, str]:
    """DuckDB type of each column of the source; missing columns raise a DataError."""
    source = work.source
    described = work.run(f"DESCRIBE SELECT * FROM {source.relation}", "all")
    types = {str(row[0]): str(row[1]) for row in described}
    missing = [f"{role} column {col!r}" for role, col in roles.items() if col not in types]
    if missing:
        hint: tuple[str | Option, ...] = ()
        if len(types) == 1 and source.path is not None:
            hint = (
                " (a single column: is the ",
                Option("delimiter"),
                " or the ",
                Option("format"),
                " right?)",
            )
        elif source.csv_header and any(map(looks_like_data, types)):
            hint = ("; the first row looks like data, not a header: pass ", Option("header", False))
        raise DataError(
            f"{' and '.join(missing)} not found; available columns: {list(types)}",
            *hint,
            source=source.name,
        )
    return types


def check_glob_schemas(work: Workspace, columns: Sequence[str]) -> None:
    """The files of a local Parquet glob must agree on ``columns``: each file has them, spelt
    alike, of the same type (integers of any width agree: DuckDB casts them exactly or fails);
    otherwise the error names the file that differs.

    DuckDB reads every file as if it had the first file's schema: 0.5 in a later file becomes
    0 in an integer column.  Only the files' footers are read.  (CSV and JSON globs are sniffed
    file by file by DuckDB, which refuses names that differ.)
    """
    source = work.source
    path = source.path
    if (
        source.format != "parquet"
        or path is None
        or not is_local(path)
        or not GLOB_CHARS & set(path)
    ):
        return
    import pyarrow.parquet as pq

    files = [
        str(row[0]) for row in work.run(f"SELECT file FROM glob({quote_literal(path)})", "all")
    ]
    first: dict[str, str] | None = None
    for file in files:
        try:
            schema = pq.read_schema(file)
        except (OSError, ValueError):  # not Parquet: DuckDB words it
            continue
        found = {name: _schema_kind(schema.field(name).type) for name in schema.names}
        if first is None:
            first, first_file = found, file
            continue
        for column in columns:
            if column not in first:
                continue  # the first file lacks it: column_types says so
            if column not in found:
                alike = [name for name in found if name.lower() == column.lower()]
                hint = f" (it has {alike[0]!r}; names are case-sensitive)" if alike else ""
                raise DataError(
                    f"has no column {column!r}, which {first_file} has{hint}; the files of one "
                    "glob must have the same columns",
                    source=file,
                )
            if found[column] != first[column]:
                raise DataError(
                    f"column {column!r} is {found[column]} here but {first[column]} in "
                    f"{first_file}; the files of one glob must agree on column types (DuckDB "
                    "would convert this file's values to the first one's type)",
                    source=file,
                )


def _schema_kind(arrow_type: Any) -> str:
    """How :func:`check_glob_schemas` compares a Parquet column's types: integers of any
    width alike, strings however stored, anything else by its name."""
    import pyarrow as pa

    if pa.types.is_dictionary(arrow_type):
        arrow_type = arrow_type.value_type
    if pa.types.is_integer(arrow_type):
        return "an integer"
    if pa.types.is_string(arrow_type) or pa.types.is_large_string(arrow_type):
        return "a string"
    return f"of type {arrow_type}"


#: The label kind (:func:`dpcount.graph.labels.label_kind`) of each of DuckDB's JSON types.
_JSON_KINDS = {
    "BIGINT": "number",
    "UBIGINT": "number",
    "HUGEINT": "number",
    "DOUBLE": "number",
    "VARCHAR": "str",
    "BOOLEAN": "bool",
    "OBJECT": "dict",
    "ARRAY": "list",
}


def check_json_kinds(work: Workspace, ids: Mapping[str, str], types: Mapping[str, str]) -> None:
    """Refuse an id column of JSON values of several kinds, as a pandas column is refused.

    DuckDB gives a column the type JSON when its values differ in kind (``1`` in one line,
    ``"1"`` in the next); read as text, the two would merge.
    """
    for role, column in ids.items():
        if types[column] != "JSON":
            continue
        rows = work.run(
            f"SELECT DISTINCT json_type({quote_ident(column)}) FROM {work.source.relation}",
            "all",
        )
        kinds = {_JSON_KINDS.get(str(row[0]), str(row[0])) for row in rows if row[0] is not None}
        kinds.discard("NULL")
        if len(kinds) > 1:
            raise DataError(
                mixed_kinds_message(f"{role} labels in column {column!r}", kinds),
                source=work.source.name,
            )


def check_count_type(count: str, duck_type: str, source_name: str) -> None:
    """A count column must hold integers of at most 64 bits."""
    if duck_type in ("HUGEINT", "UHUGEINT"):
        raise DataError(
            f"count column {count!r} holds integers beyond 64 bits; counts above 2**63 - 1, "
            "the largest count dpcount holds, are not supported",
            source=source_name,
        )
    if duck_type not in INTEGER_TYPES:
        raise DataError(
            f"count column {count!r} has type {duck_type}, expected an integer type; "
            "cast it in SQL or fix the file",
            source=source_name,
        )


def check_text_type(text: str, duck_type: str, source_name: str) -> None:
    """A text column must hold strings."""
    if duck_type != "VARCHAR":
        raise DataError(
            f"text column {text!r} has type {duck_type}, expected VARCHAR (strings)",
            source=source_name,
        )


def valid_rows(
    work: Workspace,
    projection: Mapping[str, str],
    invalid: Mapping[str, str],
    drop_nulls: bool,
    *,
    materialise: bool = True,
) -> str:
    """Count unusable rows: raise, or warn and return a view of the rows with usable ids.

    ``projection`` maps each alias to its SQL, ``invalid`` each id column to the SQL condition
    that its id is unusable.  The projected rows are materialised once (callers that read the
    result several times want that), and always without ``drop_nulls``, so that the error can
    name the first bad row (its ``rowid``).  With ``drop_nulls`` and ``materialise=False`` a
    view is used instead (no copy of the rows) – except for floating-point ids: DuckDB 2.0
    folds ``isnan`` to false from Parquet column statistics that do not record NaN, so NaN rows
    would pass a view's filter.
    """
    source = work.source
    select = ", ".join(f"{expr} AS {alias}" for alias, expr in projection.items())
    uses_nan = any("isnan(" in expr for expr in invalid.values())
    kind = "VIEW" if drop_nulls and not materialise and not uses_nan else "TABLE"
    raw = work.table("raw", f"SELECT {select} FROM {source.relation}", kind=kind)
    any_invalid = " OR ".join(invalid.values())
    filters = ", ".join(f"count(*) FILTER (WHERE {expr})" for expr in invalid.values())
    first = "NULL" if kind == "VIEW" else f"min(rowid) FILTER (WHERE {any_invalid})"
    stats = work.run(
        f"SELECT count(*), count(*) FILTER (WHERE {any_invalid}), {first}, {filters} FROM {raw}",
        "one",
    )
    assert stats is not None
    total, n_invalid, first_bad, *per_column = (int(x) if x is not None else None for x in stats)
    if not total:
        raise DataError("no rows; expected at least one person–item row", source=source.name)
    if n_invalid and not drop_nulls:
        parts = [f"{n} in {col!r}" for col, n in zip(invalid, per_column, strict=True) if n]
        raise DataError(
            f"{n_invalid} of {total} rows (not private) have a null, empty or NaN id "
            f"({', '.join(parts)}; first in data row {int(first_bad or 0) + 1}); "
            "fill or remove them, or pass ",
            Option("drop_nulls", True),
            " to skip those rows",
            source=source.name,
        )
    if not n_invalid:
        return raw
    warnings.warn(
        f"{source.name}: dropped {n_invalid} of {total} rows (not private) with a null, "
        "empty or NaN id",
        DroppedRowsWarning,
        stacklevel=_caller_level(),
    )
    if n_invalid == total:
        raise DataError(
            f"no rows left after dropping {n_invalid} rows (not private) with null, "
            "empty or NaN ids",
            source=source.name,
        )
    return work.table("valid", f"SELECT * FROM {raw} WHERE NOT ({any_invalid})", kind="VIEW")


def check_counts(work: Workspace, rows: str, count: str) -> None:
    """The count column (alias ``c`` of ``rows``) must hold no negative value and none above
    2**63 - 1 (an unsigned column may: counts are int64)."""
    row = work.run(
        f"SELECT count(*) FILTER (WHERE c < 0), count(*) FILTER (WHERE c > {MAX_COUNT}) "
        f"FROM {rows}",
        "one",
    )
    assert row is not None
    negative, too_large = row
    if negative:
        raise DataError(
            f"count column {count!r} has {negative} negative values (not private); "
            "counts must be >= 0",
            source=work.source.name,
        )
    if too_large:
        raise DataError(
            f"count column {count!r} has {too_large} values above 2**63 - 1, the largest count "
            "dpcount holds",
            source=work.source.name,
        )


#: From here on a float64 cannot tell consecutive integers apart (IEEE 754: 53-bit significand).
FLOAT_EXACT_LIMIT = 2**53

#: Formats whose numbers DuckDB parses from text, choosing the type itself.
_TEXT_FORMATS = frozenset({"csv", "tsv", "jsonl"})


def check_float_ids(labels: Any, duck_type: str, column: str, source: Source) -> None:
    """Refuse the distinct ``labels`` of an id column that DuckDB parsed from text as floating
    point when any reaches 2**53 in size: distinct integer ids there may have merged (a CSV
    column with one decimal point is read as DOUBLE; so is a JSON integer beyond 64 bits).

    Only the distinct labels are looked at, once they are encoded: no pass over the rows.
    Floats from Parquet, tables in memory or a query are the caller's own and are kept.

    Examples
    --------
    >>> csv = Source(relation="read_csv('a.csv')", name="a.csv", format="csv")
    >>> check_float_ids(np.array([0.5, 2.0**60]), "DOUBLE", "user", csv)
    Traceback (most recent call last):
    ...
    dpcount.errors.DataError: a.csv: id column 'user' was read as floating point and holds \
values of 2**53 or more, where distinct integers merge; read it as text with \
column_types={'user': 'VARCHAR'}
    >>> check_float_ids(np.array([0.5, 2.0**52]), "DOUBLE", "user", csv)
    """
    if duck_type not in ("DOUBLE", "FLOAT") or source.format not in _TEXT_FORMATS:
        return
    values = labels.to_numpy(zero_copy_only=False) if hasattr(labels, "to_numpy") else labels
    values = np.asarray(values, dtype=np.float64)
    if not values.size or not np.nanmax(np.abs(values)) >= FLOAT_EXACT_LIMIT:
        return
    if source.format == "jsonl":
        fix = f"with sql= and read_json(..., columns={{{column!r}: 'VARCHAR', ...}})"
    else:
        fix = f"with column_types={{{column!r}: 'VARCHAR'}}"
    raise DataError(
        f"id column {column!r} was read as floating point and holds values of 2**53 or more, "
        f"where distinct integers merge; read it as text {fix}",
        source=source.name,
    )


def _caller_level() -> int:
    """The ``stacklevel`` of a warning that points at the first caller outside dpcount."""
    frame = sys._getframe(1)
    level = 1
    while frame is not None and frame.f_code.co_filename.startswith(_PACKAGE):
        frame = frame.f_back  # type: ignore[assignment]
        level += 1
    return level
