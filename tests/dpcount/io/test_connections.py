"""Which DuckDB database a read runs on, and that reads sharing one stay apart."""

from __future__ import annotations

import threading
import warnings

import duckdb
import pandas as pd
import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from dpcount import DataError, PersonItemGraph, read_pairs
from dpcount.errors import DroppedRowsWarning
from dpcount.io import _connections as _database

PERSONS = ["ann", "ann", "bob", "cy"]
ITEMS = ["x", "y", "x", "z"]


@pytest.fixture
def connects(monkeypatch: pytest.MonkeyPatch) -> list[object]:
    """Every database opened from now on (one entry per ``duckdb.connect``)."""
    opened: list[object] = []
    real = duckdb.connect

    def counting(*args: object, **kwargs: object) -> duckdb.DuckDBPyConnection:
        opened.append(args)
        return real(*args, **kwargs)  # type: ignore[arg-type]

    monkeypatch.setattr(duckdb, "connect", counting)
    return opened


def _shared_objects() -> tuple[int, int]:
    """Tables and non-internal views visible on a fresh cursor of the shared database."""
    with _database.shared_cursor() as con:
        tables = con.execute("SELECT count(*) FROM duckdb_tables()").fetchone()
        views = con.execute("SELECT count(*) FROM duckdb_views() WHERE NOT internal").fetchone()
    assert tables is not None and views is not None
    return tables[0], views[0]


def test_parquet_and_frames_share_one_database(tmp_path, connects):
    path = tmp_path / "pairs.parquet"
    pq.write_table(pa.table({"person": PERSONS, "item": ITEMS}), path)
    expected = PersonItemGraph.from_pairs(PERSONS, ITEMS)
    read_pairs(path)  # opens the shared database if no earlier test did
    connects.clear()
    assert read_pairs(path) == expected
    assert read_pairs(pd.DataFrame({"person": PERSONS, "item": ITEMS})) == expected
    assert read_pairs(pa.table({"person": PERSONS, "item": ITEMS})) == expected
    assert connects == []


def test_csv_and_queries_get_a_private_database(tmp_path, connects):
    path = tmp_path / "pairs.csv"
    path.write_text(
        "person,item\n" + "".join(f"{p},{i}\n" for p, i in zip(PERSONS, ITEMS, strict=True))
    )
    read_pairs(path)
    read_pairs(sql=f"SELECT * FROM read_csv('{path}')")
    assert len(connects) == 2


def test_the_shared_database_is_reopened_after_fork(monkeypatch: pytest.MonkeyPatch):
    first = _database._shared_database()
    assert _database._shared_database() is first
    monkeypatch.setattr(_database.os, "getpid", lambda: -1)  # as in a forked child
    child = _database._shared_database()
    assert child is not first
    assert child.execute("SELECT 1").fetchall() == [(1,)]


def test_shared_reads_leave_nothing_behind(tmp_path):
    before = _shared_objects()
    frame = pd.DataFrame({"person": ["a", None, "b"], "item": ["x", "y", None]})
    with pytest.raises(DataError, match="null"):
        read_pairs(frame)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", DroppedRowsWarning)
        assert read_pairs(frame, drop_nulls=True).n_pairs == 1  # the path with temporary tables
    path = tmp_path / "nulls.parquet"
    pq.write_table(pa.Table.from_pandas(frame), path)
    with pytest.raises(DataError, match="null"):
        read_pairs(path)
    assert _shared_objects() == before


def test_concurrent_reads_on_the_shared_database():
    """Each thread's frame is registered on its own cursor under its own name."""
    frames = [
        pd.DataFrame({"person": [f"p{k}"] * (k + 1), "item": list(range(k + 1))}) for k in range(8)
    ]
    results: dict[int, PersonItemGraph] = {}

    def read(k: int) -> None:
        for _ in range(5):
            results[k] = read_pairs(frames[k])

    threads = [threading.Thread(target=read, args=(k,)) for k in range(len(frames))]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    for k, frame in enumerate(frames):
        assert results[k] == PersonItemGraph.from_pairs(frame["person"], frame["item"])


def test_private_spill_folders_are_removed_on_every_exit(tmp_path, monkeypatch):
    """A read on a private database leaves no ``dpcount-duckdb-*`` folder, whether it
    succeeds, fails on the data, or is interrupted (Ctrl-C) in the middle."""
    from dpcount.io import pairs

    temp = tmp_path / "temp"
    temp.mkdir()
    monkeypatch.setattr(_database.tempfile, "tempdir", str(temp))
    good, bad = tmp_path / "good.csv", tmp_path / "bad.csv"
    good.write_text("person,item\na,x\n")
    bad.write_text("person,item\na,\n")
    seen: list[int] = []

    def interrupted(*args: object, **kwargs: object) -> object:
        seen.append(len(list(temp.iterdir())))  # the folder exists while the read runs
        raise KeyboardInterrupt

    assert read_pairs(good).n_pairs == 1
    with pytest.raises(DataError):
        read_pairs(bad)
    monkeypatch.setattr(pairs, "stream_pairs", interrupted)
    with pytest.raises(KeyboardInterrupt):
        read_pairs(good)
    assert seen == [1]  # the power check: there was a folder to remove
    assert list(temp.iterdir()) == []
