"""Reading person–group–item triples (``GROUP BY`` data) into a :class:`GroupedGraph`, via DuckDB.

The same path as :func:`dpcount.read_pairs` – the same sources (CSV, TSV, Parquet, JSON lines,
globs, ``sql=`` on a fresh or your own DuckDB connection), the same label rules (ids keep their
DuckDB types, strings compare by code point, nulls and empty ids are errors unless
``drop_nulls``), the same errors naming the file and line – with a third id column, the group.
A pandas, polars or pyarrow DataFrame may be passed as ``source`` too; DuckDB scans it in place.

DuckDB dictionary-encodes persons, groups and items into codes that index their **sorted**
distinct labels; :meth:`GroupedGraph._from_codes` then orders and deduplicates the triples with
one sort.

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

import uuid
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from dpcount.errors import DataError, InvalidParameterError
from dpcount.grouped import GroupedGraph
from dpcount.io import (
    _invalid_expr,
    _label_expr,
    _plain,
    _resolve_source,
    _session,
)

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
    """Read (person, group, item) rows from a file, a SQL query or a DataFrame.

    Duplicate triples are merged.

    Parameters
    ----------
    source
        Path (or glob) of a CSV, TSV, Parquet or JSON lines file, or a pandas / polars /
        pyarrow DataFrame.  Omit it when giving ``sql``.
    person, group, item
        Columns holding the person id, the group key and the item id.
    sql, connection, format, drop_nulls, delimiter, header, encoding, column_types
        As in :func:`dpcount.read_pairs`.

    Returns
    -------
    GroupedGraph

    Raises
    ------
    DataError
        Missing, empty or malformed file (with the line where DuckDB reports one), a missing
        column (e.g. no group column), null or empty ids (unless ``drop_nulls``), no rows.
    InvalidParameterError
        Contradictory options (both ``source`` and ``sql`` …).

    Examples
    --------
    >>> import pandas as pd
    >>> df = pd.DataFrame({"u": [1, 1, 2], "forum": ["a", "b", "a"], "w": ["x", "x", "y"]})
    >>> read_triples(df, person="u", group="forum", item="w").group_labels.tolist()
    ['a', 'b']
    """
    if source is not None and hasattr(source, "columns") and not isinstance(source, str | bytes):
        return _read_frame(source, person, group, item, connection, sql, drop_nulls)
    src = _resolve_source(source, sql, format, delimiter, header, encoding, column_types)
    roles = {"person": person, "group": group, "item": item}
    if len(set(roles.values())) != 3:
        raise InvalidParameterError(f"person, group and item must be 3 different columns: {roles}")
    with _session(connection, src) as session:
        types = session.column_types(roles)
        aliases = {"p": person, "g": group, "i": item}
        projection = {a: _label_expr(c, types[c], src) for a, c in aliases.items()}
        invalid = {c: _invalid_expr(a, types[c]) for a, c in aliases.items()}
        valid = session.valid_rows(projection, invalid, drop_nulls)
        dictionaries = {
            a: session.table(
                f"{a}_labels",
                f"SELECT {a}, (row_number() OVER (ORDER BY {a}) - 1)::BIGINT AS {a}c "
                f"FROM (SELECT DISTINCT {a} FROM {valid})",
            )
            for a in aliases
        }
        joins = " ".join(f"JOIN {t} USING ({a})" for a, t in dictionaries.items())
        codes = session.run(f"SELECT pc, gc, ic FROM {valid} {joins}", "numpy")
        labels = [
            session.labels(f"SELECT {a} FROM {t} ORDER BY {a}c", types[aliases[a]])
            for a, t in dictionaries.items()
        ]
    try:
        return GroupedGraph._from_codes(
            _plain(codes["pc"]), _plain(codes["gc"]), _plain(codes["ic"]), *labels
        )
    except DataError as exc:
        raise DataError(
            f"the ids could not be represented exactly as NumPy labels ({exc}); cast the id "
            "columns to VARCHAR or BIGINT in SQL",
            source=src.name,
        ) from exc


def _read_frame(
    frame: Any,
    person: str,
    group: str,
    item: str,
    connection: duckdb.DuckDBPyConnection | None,
    sql: str | None,
    drop_nulls: bool,
) -> GroupedGraph:
    """A DataFrame source: DuckDB scans it in place under a unique view name."""
    import duckdb

    if sql is not None:
        raise InvalidParameterError("give exactly one of a DataFrame (source=...) and sql=...")
    name = f"dpcount_frame_{uuid.uuid4().hex[:12]}"
    con = connection if connection is not None else duckdb.connect()
    con.register(name, frame)
    try:
        return read_triples(
            sql=f"SELECT * FROM {name}",
            person=person,
            group=group,
            item=item,
            connection=con,
            drop_nulls=drop_nulls,
        )
    finally:
        con.unregister(name)
        if connection is None:
            con.close()
