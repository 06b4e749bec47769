"""The DuckDB plumbing of one read: statements run on one connection, temporary tables and
views that are dropped when the read ends, an in-memory table registered for the read only, and
every DuckDB error turned into a :class:`~dpcount.errors.DataError` naming the source.

Examples
--------
>>> from dpcount.io._sources import FileOptions, resolve_source
>>> source = resolve_source(None, "SELECT 1 AS person, 'x' AS item", FileOptions())
>>> with open_workspace(None, source, {}) as work:
...     rows = work.table("rows", f"SELECT * FROM {source.relation}")
...     work.run(f"SELECT count(*) FROM {rows}", "one")
(1,)
"""

from __future__ import annotations

import uuid
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from typing import TYPE_CHECKING, Any

from dpcount.io._connections import connection_for
from dpcount.io._errors import data_error
from dpcount.io._frames import registrable

if TYPE_CHECKING:
    import duckdb

    from dpcount.io._sources import Source

__all__ = ["Workspace", "open_workspace"]


class Workspace:
    """Runs a read's statements on one connection and keeps its temporary tables apart.

    Temporary tables and views get a unique prefix, so that several reads may share a
    connection (the caller's, or the process's shared database) without meeting.
    """

    def __init__(self, con: duckdb.DuckDBPyConnection, source: Source) -> None:
        self.con = con
        self.source = source
        self.prefix = f"dpcount_{uuid.uuid4().hex[:12]}"
        self.created: list[tuple[str, str]] = []

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
            raise data_error(exc, self.source.name) from exc

    def table(self, name: str, select: str, kind: str = "TABLE") -> str:
        """Create a temporary table (or view) holding ``select``; dropped when the read ends."""
        full = f"{self.prefix}_{name}"
        self.run(f"CREATE TEMP {kind} {full} AS {select}")
        self.created.append((kind, full))
        return full

    def drop_all(self) -> None:
        """Drop what the read created; never mask the error that ended the read."""
        import duckdb

        for kind, name in reversed(self.created):
            try:
                self.con.execute(f"DROP {kind} IF EXISTS {name}")
            except duckdb.Error:  # e.g. the caller's transaction was aborted by that error
                break
        self.created.clear()


@contextmanager
def open_workspace(
    connection: duckdb.DuckDBPyConnection | None, source: Source, id_columns: Mapping[str, str]
) -> Iterator[Workspace]:
    """A workspace on the caller's connection, or else on a database of dpcount's own: shared
    by the reads of Parquet files and tables in memory, whose rows Arrow reads, and private to
    any other read (see :mod:`dpcount.io._connections`).

    An in-memory table source is registered under its unique name while the block runs;
    ``id_columns`` (role → column) are the columns whose labels it checks first
    (:func:`dpcount.io._frames.registrable`).
    """
    with connection_for(connection, source) as con:
        work = Workspace(con, source)
        try:
            with _registered(work, connection, id_columns):
                yield work
        finally:
            work.drop_all()


@contextmanager
def _registered(
    work: Workspace,
    connection: duckdb.DuckDBPyConnection | None,
    id_columns: Mapping[str, str],
) -> Iterator[None]:
    """Register the workspace's in-memory table (if any) while the block runs.

    ``connection`` is the caller's connection, if any.
    """
    import duckdb

    source = work.source
    if source.frame is None:
        yield
        return
    table = registrable(source.frame, source.name, connection, id_columns)
    # A statement first: DuckDB refuses register() while the caller's last execute() result
    # is unfinished, and executing anything discards it (as every reader statement would).
    work.run("SELECT 1", "all")
    try:
        work.con.register(source.relation, table)
    except duckdb.Error as exc:
        raise data_error(exc, source.name) from exc
    try:
        yield
    finally:
        try:
            work.con.unregister(source.relation)
        except duckdb.Error:  # e.g. the caller's transaction was aborted by the error
            pass
