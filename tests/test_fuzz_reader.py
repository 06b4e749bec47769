"""Bounded-time fuzzing of the readers against the classes of issue 24 they own.

:mod:`tests.test_fuzz_inputs` feeds malformed files to the CLI and ``read_pairs``; this file
aims at what the audit found beyond malformed content:

* injection – a ``sql=`` query followed, in any of the ways text can close a statement, by a
  statement that writes a file, attaches or creates a database, installs an extension, changes
  a setting or drops, alters or fills the caller's table: the reader refuses it, and nothing
  changed (no file, the caller's tables, sequences and settings as they were);
* silent change – integer ids near and beyond 2**53 and 2**63, alone or beside a decimal, in
  CSV and JSON lines: the graph keeps every distinct id apart or the reader refuses; counts
  of one pair summing near 2**63 from every kind of source: the graph holds the exact sum or
  the reader refuses;
* hang and memory – named pipes without a writer, devices and ``/dev/zero`` under every
  suffix, as a file, a glob member or a path named in a query, for every reader: refused at
  once, never read.

Total time is bounded by small ``max_examples`` (a few seconds; the budget is 30 s).
"""

from __future__ import annotations

import json
import os
import warnings
from pathlib import Path

import duckdb
import pandas as pd
import pyarrow as pa
import pyarrow.parquet as pq
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from dpcount import read_pairs, read_texts, read_triples
from dpcount.errors import DataError, DPCountError
from dpcount.graph.assembly import MAX_COUNT
from tests.blocking import raised_without_blocking

FUZZ = settings(
    max_examples=30,
    deadline=None,
    database=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)

# --------------------------------------------------------------------------------------------
# Injection
# --------------------------------------------------------------------------------------------

QUERY = "SELECT u, w FROM visits"
STATEMENTS = (
    "COPY (SELECT 'x') TO '{out}'",
    "COPY visits TO '{out}' (FORMAT csv)",
    "EXPORT DATABASE '{folder}'",
    "ATTACH '{db}' AS evil",
    "ATTACH '{db}' AS evil; CREATE TABLE evil.t (x INT); INSERT INTO evil.t VALUES (1)",
    "INSTALL httpfs",
    "LOAD httpfs",
    "SET threads = 1",
    "RESET threads",
    "PRAGMA threads = 1",
    "CREATE TABLE made AS SELECT 1 AS x",
    "CREATE SEQUENCE made",
    "INSERT INTO visits VALUES (9, 'z')",
    "UPDATE visits SET u = 0",
    "DELETE FROM visits",
    "ALTER TABLE visits RENAME TO gone",
    "DROP TABLE visits",
    "SELECT nextval('seq')",
    "CHECKPOINT",
)
JOINS = (
    "{q}; {s}",
    "{q}) AS q; {s}; --",
    "{q};\n{s};\n",
    "{q} /* a */ ; {s} -- b",
    "{s}; {q}",
    "{s}",
    "{q} WHERE u IN (SELECT 1) OR u = 2) AS q; {s}; SELECT * FROM (SELECT 1",
)


def _state(con: duckdb.DuckDBPyConnection) -> tuple[object, ...]:
    """What a query must not change on the caller's connection."""
    return (
        con.execute("SELECT * FROM visits ORDER BY ALL").fetchall(),
        con.execute(
            "SELECT database_name, table_name FROM duckdb_tables() ORDER BY ALL"
        ).fetchall(),
        con.execute("SELECT sequence_name FROM duckdb_sequences() ORDER BY ALL").fetchall(),
        con.execute("SELECT database_name FROM duckdb_databases() ORDER BY ALL").fetchall(),
        con.execute("SELECT current_setting('threads')").fetchall(),
        con.execute("SELECT currval('seq')").fetchall(),
    )


@FUZZ
@given(
    statement=st.sampled_from(STATEMENTS),
    join=st.sampled_from(JOINS),
    on_callers=st.booleans(),
    upper=st.booleans(),
)
def test_a_query_runs_nothing_but_one_select(tmp_path, statement, join, on_callers, upper):
    out, db, folder = tmp_path / "out.csv", tmp_path / "made.duckdb", tmp_path / "export"
    extra = statement.format(out=out, db=db, folder=folder)
    query = QUERY.upper() if upper else QUERY
    text = join.format(q=query, s=extra)
    con = duckdb.connect()
    con.execute("CREATE TABLE visits AS SELECT * FROM (VALUES (1, 'a'), (2, 'b')) t(u, w)")
    con.execute("CREATE SEQUENCE seq")
    con.execute("SELECT nextval('seq')")
    before = _state(con)
    with pytest.raises(DPCountError) as raised:
        read_pairs(sql=text, person="u", item="w", connection=con if on_callers else None)
    assert len(str(raised.value).splitlines()) == 1
    assert not out.exists() and not db.exists() and not folder.exists()
    assert _state(con) == before
    assert list(tmp_path.iterdir()) == []


# --------------------------------------------------------------------------------------------
# Silent change
# --------------------------------------------------------------------------------------------

big_ids = st.one_of(
    st.integers(2**53 - 3, 2**53 + 3),
    st.integers(2**63 - 3, 2**63 + 3),
    st.integers(2**64 - 3, 2**64 + 3),
    st.integers(-(2**63) - 2, -(2**63) + 2),
    st.integers(-(2**70), 2**70),
)


def _write_ids(path: Path, ids: list[int], decimal: bool) -> None:
    rows: list[object] = [*ids, 1.5] if decimal else list(ids)
    if path.suffix == ".csv":
        path.write_text("person,item\n" + "".join(f"{v},a\n" for v in rows))
    else:
        path.write_text("".join(json.dumps({"person": v, "item": "a"}) + "\n" for v in rows))


@FUZZ
@given(
    ids=st.lists(big_ids, min_size=1, max_size=6, unique=True),
    decimal=st.booleans(),
    suffix=st.sampled_from([".csv", ".jsonl"]),
)
def test_distinct_ids_never_merge(tmp_path, ids, decimal, suffix):
    path = tmp_path / f"ids{suffix}"
    _write_ids(path, ids, decimal)
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            graph = read_pairs(path)
    except DPCountError as exc:
        assert len(str(exc).splitlines()) == 1
        return
    assert graph.n_persons == len(ids) + decimal


def _count_source(kind: str, counts: list[int], folder: Path) -> object:
    persons, items = [1] * len(counts) + [2], ["a"] * len(counts) + ["b"]
    rows = {"p": persons, "i": items, "c": [*counts, 1]}
    if kind == "csv":
        path = folder / "c.csv"
        pd.DataFrame(rows).to_csv(path, index=False)
        return path
    if kind == "parquet":
        path = folder / "c.parquet"
        pq.write_table(pa.table({**rows, "c": pa.array(rows["c"], pa.int64())}), path)
        return path
    if kind == "uint64 parquet":
        path = folder / "u.parquet"
        pq.write_table(pa.table({**rows, "c": pa.array(rows["c"], pa.uint64())}), path)
        return path
    return pd.DataFrame(rows)


@FUZZ
@given(
    counts=st.lists(
        st.one_of(st.integers(0, 2**40), st.integers(2**61, MAX_COUNT)), min_size=1, max_size=5
    ),
    kind=st.sampled_from(["csv", "parquet", "uint64 parquet", "pandas"]),
)
def test_count_sums_are_exact_or_refused(tmp_path, counts, kind):
    source = _count_source(kind, counts, tmp_path)
    total = sum(counts)
    if total > MAX_COUNT:
        with pytest.raises(DataError, match="sum past 2\\*\\*63 - 1"):
            read_pairs(source, "p", "i", "c")
        return
    graph = read_pairs(source, "p", "i", "c")
    persons, items = graph.pairs()
    kept = {
        (int(graph.person_labels[p]), str(graph.item_labels[i]))
        for p, i in zip(persons, items, strict=True)
    }
    counts_by_pair = dict(zip(sorted(kept), graph.counts.tolist(), strict=True))
    assert counts_by_pair == ({(1, "a"): total, (2, "b"): 1} if total else {(2, "b"): 1})


# --------------------------------------------------------------------------------------------
# Hang and memory
# --------------------------------------------------------------------------------------------


READERS = {
    "read_pairs": lambda source, **kw: read_pairs(source, **kw),
    "read_triples": lambda source, **kw: read_triples(source, **kw),
    "read_texts": lambda source, **kw: read_texts(source, **kw),
}


@pytest.mark.parametrize("reader", sorted(READERS))
@pytest.mark.parametrize("suffix", [".csv", ".tsv", ".parquet", ".jsonl", ".csv.gz", ".csv.zst"])
@pytest.mark.parametrize("how", ["path", "glob", "query"])
def test_a_fifo_is_refused_at_once(tmp_path, reader, suffix, how):
    fifo = tmp_path / f"pipe{suffix}"
    os.mkfifo(fifo)
    read = READERS[reader]
    if how == "path":
        call = lambda: read(str(fifo))  # noqa: E731
    elif how == "glob":
        call = lambda: read(str(tmp_path / f"*{suffix}"))  # noqa: E731
    else:
        call = lambda: read(None, sql=f"SELECT * FROM '{fifo}'")  # noqa: E731
    error = raised_without_blocking(call, fifo)
    assert isinstance(error, DataError), error
    assert "named pipe (FIFO)" in str(error)


@pytest.mark.parametrize("device", ["/dev/zero", "/dev/urandom", "/dev/null"])
@pytest.mark.parametrize("fmt", ["csv", "parquet", "jsonl"])
def test_devices_are_never_read(device, fmt):
    error = raised_without_blocking(lambda: read_pairs(device, format=fmt))
    assert isinstance(error, DataError) and "character device" in str(error)
    error = raised_without_blocking(lambda: read_pairs(sql=f"SELECT * FROM read_csv('{device}')"))
    assert isinstance(error, DataError) and "character device" in str(error)
