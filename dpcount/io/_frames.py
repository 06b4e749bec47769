"""In-memory tables as reader sources: pandas, polars, pyarrow and DuckDB relations.

Every reader of :mod:`dpcount.io` registers such a table on its DuckDB connection under a unique
name and reads it like a file, so the same options apply and the same errors come out.  The
kind of a table is told by its type's module name, so polars or pyarrow are never imported for
a caller who does not pass one of their objects.

Examples
--------
>>> import pandas as pd
>>> frame_kind(pd.DataFrame({"a": [1]})), frame_kind("file.csv")
('pandas DataFrame', None)
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any

import numpy as np

from dpcount.errors import DataError
from dpcount.graph.labels import label_kind, mixed_kinds_message

if TYPE_CHECKING:
    import duckdb
    import pyarrow as pa

__all__ = ["frame_kind", "integer_columns", "registrable"]

_KINDS = {
    ("pandas", "DataFrame"): "pandas DataFrame",
    ("polars", "DataFrame"): "polars DataFrame",
    ("polars", "LazyFrame"): "polars LazyFrame",
    ("pyarrow", "Table"): "Arrow table",
    ("pyarrow", "RecordBatch"): "Arrow record batch",
    ("pyarrow", "RecordBatchReader"): "Arrow record batch reader",
    ("duckdb", "DuckDBPyRelation"): "DuckDB relation",
}


def frame_kind(obj: Any) -> str | None:
    """A readable name of the kind of in-memory table ``obj`` is, or None if it is none (public
    as :func:`dpcount.io.table_kind`: what every reader accepts as a table)."""
    cls = type(obj)
    package = cls.__module__.partition(".")[0].lstrip("_")
    return _KINDS.get((package, cls.__name__))


def registrable(
    obj: Any,
    kind: str,
    connection: duckdb.DuckDBPyConnection | None,
    id_columns: Mapping[str, str],
) -> Any:
    """What to register on the reader's connection for ``obj`` (checked, maybe converted).

    * A record batch reader can be read only once, but the reader may need a second pass (to
      count and report bad rows), so it is read into an Arrow table first.
    * A DuckDB relation belongs to its connection; with ``connection=`` it is read there,
      otherwise it is run once into an Arrow table.
    * A table with two columns of one name is refused: which one a name selects is not
      defined (pandas hands back both; DuckDB renames one).
    * pandas ``object`` columns holding a mix of label kinds (e.g. ``1`` and ``"1"``) are
      refused, because DuckDB would turn them all into text and merge distinct labels.

    ``id_columns`` maps each id's role (``"person"``, ``"item"``, ``"group"``) to its column.
    """
    _check_unique_names(obj, kind)
    if kind == "Arrow record batch reader":
        return obj.read_all()
    if kind == "DuckDB relation" and connection is None:
        return obj.to_arrow_table()
    if kind == "pandas DataFrame":
        _check_object_columns(obj, id_columns)
    return obj


def _check_unique_names(obj: Any, kind: str) -> None:
    if kind.startswith("Arrow"):
        names = list(obj.schema.names)  # an Arrow table's .columns are its data
    elif kind == "polars LazyFrame":
        return  # polars refuses repeated names itself
    else:
        names = [str(name) for name in obj.columns]  # pandas, polars, DuckDB relations
    repeated = sorted({name for name in names if names.count(name) > 1})
    if repeated:
        raise DataError(
            f"has several columns named {', '.join(map(repr, repeated))}; rename them so that "
            "each column has its own name",
            source=kind,
        )


def _check_object_columns(frame: Any, id_columns: Mapping[str, str]) -> None:
    for role, column in id_columns.items():
        if column not in frame.columns or frame[column].dtype != object:
            continue
        values = frame[column]
        kinds = {label_kind(t) for t in set(map(type, values[values.notna()]))}
        if len(kinds) > 1:
            raise DataError(
                mixed_kinds_message(f"{role} labels in column {column!r}", kinds),
                source="pandas DataFrame",
            )


def integer_columns(obj: Any, kind: str, names: Sequence[str]) -> list[pa.ChunkedArray] | None:
    """The columns ``names`` of an in-memory table as Arrow arrays, without copying, if all are
    32/64-bit integers without nulls; otherwise (or for other kinds of table) None."""
    import pyarrow as pa

    if kind in ("Arrow table", "Arrow record batch"):
        found = [obj.column(name) for name in names]
    elif kind == "polars DataFrame":
        found = [obj.get_column(name).to_arrow() for name in names]
    elif kind == "pandas DataFrame":
        values = [obj[name].to_numpy() for name in names]
        if any(v.ndim != 1 or v.dtype not in (np.int32, np.int64) for v in values):
            return None
        found = [pa.array(v) for v in values]
    else:
        return None
    columns = [c if isinstance(c, pa.ChunkedArray) else pa.chunked_array([c]) for c in found]
    integer = (pa.int32(), pa.int64())
    if any(column.type not in integer or column.null_count for column in columns):
        return None
    return columns
