"""The DuckDB database a reader runs on when the caller gives no connection.

Opening an in-memory database costs far more than a cursor on an open one
(``benchmarks/results/end_to_end.md``, fifth round).  Sources
whose rows Arrow reads (Parquet files, tables in memory) ask DuckDB little more than their
column types and file list, so they share one database per process, each read on a cursor of
its own (a connection of its own: temporary tables and registered tables stay private to it).
Files whose rows DuckDB itself reads (CSV, TSV, JSON lines) and queries get a private database,
closed when the read ends: DuckDB hands its memory back only then (about 100 MB of a 7M-row CSV
read).  A query's database is locked: it installs and loads no extension, and its settings
cannot change (see :mod:`dpcount.io._query` for what a query may be).

Both spill to a temporary folder of their own, never into the working directory, and return
freed memory above 8 MB promptly (DuckDB keeps up to 128 MB otherwise).  The shared database's
folder is created by DuckDB only if it spills, and removed when the process exits.

Examples
--------
>>> with shared_cursor() as con:
...     con.execute("SELECT 42").fetchall()
[(42,)]
>>> with private_connection() as con:
...     con.execute("SELECT 'private'").fetchall()
[('private',)]
"""

from __future__ import annotations

import atexit
import os
import shutil
import tempfile
import threading
import uuid
from collections.abc import Iterator
from contextlib import AbstractContextManager, contextmanager, nullcontext
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    import duckdb

    from dpcount.io._sources import Source

__all__ = ["connection_for", "private_connection", "shared_cursor"]

_SPILL_PREFIX = "dpcount-duckdb-"
_LOCK = threading.Lock()
_shared: dict[int, duckdb.DuckDBPyConnection] = {}  # by process id: a forked child opens its own


#: The settings of a database that runs a caller's query: no extension is installed or loaded
#: on the way (DuckDB would fetch one from the network for a function it does not know), and
#: no setting can change after these (``SET``, ``RESET``: also refused as statements).
_LOCKED: dict[str, str | bool] = {
    "autoinstall_known_extensions": False,
    "autoload_known_extensions": False,
    "allow_community_extensions": False,
    "lock_configuration": True,
}


def _connect(spill: str, *, locked: bool = False) -> duckdb.DuckDBPyConnection:
    import duckdb

    config: dict[str, str | bool | int | float | list[str]] = {
        "temp_directory": spill,
        "allocator_flush_threshold": "8MB",
        "allocator_background_threads": True,
    }
    if locked:
        config.update(_LOCKED)
    return duckdb.connect(":memory:", config=config)


def connection_for(
    connection: duckdb.DuckDBPyConnection | None, source: Source
) -> AbstractContextManager[duckdb.DuckDBPyConnection]:
    """The caller's connection, else the shared database for sources whose rows Arrow reads
    (Parquet files, tables in memory), else a private database."""
    if connection is not None:
        return nullcontext(connection)
    if source.frame is not None or source.format == "parquet":
        return shared_cursor()
    return private_connection(locked=source.query)


@contextmanager
def private_connection(*, locked: bool = False) -> Iterator[duckdb.DuckDBPyConnection]:
    """A fresh in-memory database, closed (and its spill folder removed) on leaving; with
    ``locked``, one that installs and loads no extension and whose settings cannot change
    (for a caller's query)."""
    with (
        tempfile.TemporaryDirectory(prefix=_SPILL_PREFIX) as spill,
        _connect(spill, locked=locked) as con,
    ):
        yield con


@contextmanager
def shared_cursor() -> Iterator[duckdb.DuckDBPyConnection]:
    """A new connection to this process's shared in-memory database, closed on leaving."""
    cursor = _shared_database().cursor()
    try:
        yield cursor
    finally:
        cursor.close()


def _shared_database() -> duckdb.DuckDBPyConnection:
    with _LOCK:
        pid = os.getpid()
        if pid not in _shared:
            spill = os.path.join(tempfile.gettempdir(), f"{_SPILL_PREFIX}{pid}-{uuid.uuid4().hex}")
            _shared.clear()  # a parent's database is unusable after fork
            _shared[pid] = _connect(spill)
            atexit.register(_close, _shared[pid], spill)
        return _shared[pid]


def _close(con: duckdb.DuckDBPyConnection, spill: str) -> None:
    """Close the shared database and remove its spill folder (DuckDB removes what it made)."""
    con.close()
    shutil.rmtree(spill, ignore_errors=True)
