"""Writing a graph's pairs to CSV or Parquet, atomically, in the readers' default columns.

Examples
--------
>>> import pathlib, tempfile
>>> g = PersonItemGraph.from_sets({"ann": ["x"]})
>>> with tempfile.TemporaryDirectory() as folder:
...     write_pairs(g, pathlib.Path(folder) / "pairs.csv").read_text().splitlines()
['person,item', 'ann,x']
"""

from __future__ import annotations

import os
import uuid
from pathlib import Path

import numpy as np

from dpcount.errors import DataError, InvalidParameterError
from dpcount.graph import PersonItemGraph
from dpcount.io._errors import first_line
from dpcount.io._sql import quote_literal

__all__ = ["write_pairs"]

_WRITE_FORMATS = {".csv": "csv", ".parquet": "parquet"}


def write_pairs(
    graph: PersonItemGraph, path: str | os.PathLike[str], *, format: str | None = None
) -> Path:
    """Write a graph's pairs to CSV or Parquet, atomically, in CSR order.

    Columns are ``person``, ``item`` and, when the graph has counts, ``count`` – the defaults of
    :func:`dpcount.read_pairs`, so ``read_pairs(write_pairs(g, path))`` gives ``g`` back.  Persons
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
    >>> import pathlib, tempfile, dpcount
    >>> g = PersonItemGraph.from_sets({"ann": ["x", "y"], "bob": ["y"]})
    >>> with tempfile.TemporaryDirectory() as folder:
    ...     path = write_pairs(g, pathlib.Path(folder) / "pairs.parquet")
    ...     dpcount.read_pairs(path) == g
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
            con.execute(f"COPY ({query}) TO {quote_literal(tmp_name)} ({options})")
        os.replace(tmp_name, target)
    except BaseException as exc:
        Path(tmp_name).unlink(missing_ok=True)
        if isinstance(exc, duckdb.Error):
            raise DataError(
                f"could not write the pairs: {first_line(exc)}", source=str(target)
            ) from exc
        raise
    return target


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
