"""A ``sql=`` source runs as one read-only SELECT: the injections of issue 24, reproduced.

Before the query was checked, its text was pasted into ``(<query>) AS dpcount_query``:
closing the parenthesis ran any statement after it.  Each test below names the statement that
ran then (a file written, a database created, an extension installed, the caller's table
dropped) and checks that it does not now, and that the reader refuses the query in words.
"""

from __future__ import annotations

import os

import duckdb
import pytest

from dpcount import PersonItemGraph, read_pairs
from dpcount.cli import main
from dpcount.errors import DataError, DPCountError, InvalidParameterError
from dpcount.io._connections import private_connection
from tests.blocking import raised_without_blocking

PAIRS = "SELECT 1 AS person, 'x' AS item"


def test_copy_after_a_closed_parenthesis_writes_no_file(tmp_path):
    out = tmp_path / "leak.csv"
    with pytest.raises(DPCountError):
        read_pairs(sql=f"{PAIRS}) AS q; COPY (SELECT 'x') TO '{out}'; --")
    with pytest.raises(InvalidParameterError, match=r"one SELECT query; got 2 statements"):
        read_pairs(sql=f"{PAIRS}; COPY (SELECT 'x') TO '{out}'")
    assert not out.exists()


def test_copy_through_the_cli_writes_no_file(tmp_path, capsys):
    out = tmp_path / "leak.csv"
    query = f"{PAIRS}) AS q; COPY (SELECT 'x') TO '{out}'; --"
    assert main(["count", "--sql", query, "--epsilon", "1"]) != 0
    assert not out.exists()
    err = capsys.readouterr().err.strip()
    assert "SQL query" in err and len(err.splitlines()) == 1


def test_attach_create_insert_creates_no_database(tmp_path):
    db = tmp_path / "made.duckdb"
    tail = f"ATTACH '{db}' AS evil; CREATE TABLE evil.t (x INT); INSERT INTO evil.t VALUES (1)"
    with pytest.raises(DPCountError):
        read_pairs(sql=f"{PAIRS}) AS q; {tail}; --")
    with pytest.raises(InvalidParameterError, match=r"got 4 statements \(SELECT, ATTACH"):
        read_pairs(sql=f"{PAIRS}; {tail}")
    with pytest.raises(InvalidParameterError, match="not ATTACH"):
        read_pairs(sql=f"ATTACH '{db}' AS evil")
    assert not db.exists()


@pytest.mark.parametrize("statement", ["INSTALL httpfs", "LOAD httpfs", "FORCE INSTALL httpfs"])
def test_install_and_load_are_refused_before_running(statement):
    with pytest.raises(InvalidParameterError, match=r"not (INSTALL|LOAD|FORCE)"):
        read_pairs(sql=statement)
    with pytest.raises(DPCountError):
        read_pairs(sql=f"{PAIRS}) AS q; {statement}; --")


@pytest.mark.parametrize(
    "statement",
    [
        "PRAGMA enable_profiling",
        "SET threads = 1",
        "CALL pragma_version()",
        "EXPORT DATABASE 'x'",
        "CREATE TABLE t AS SELECT 1",
        "INSERT INTO t VALUES (1)",
        "DROP TABLE t",
        "EXPLAIN SELECT 1",
    ],
)
def test_statements_that_are_not_select_are_refused(statement):
    with pytest.raises(InvalidParameterError, match="must be a SELECT query"):
        read_pairs(sql=statement)


def test_the_callers_table_survives_a_drop_in_the_query():
    con = duckdb.connect()
    con.execute("CREATE TABLE visits AS SELECT * FROM (VALUES (1, 'a'), (2, 'b')) t(u, w)")
    con.execute("CREATE SEQUENCE seq")
    for query in (
        "SELECT * FROM visits) AS q; DROP TABLE visits; --",
        "SELECT * FROM visits; DROP TABLE visits",
        "SELECT u, w FROM visits WHERE nextval('seq') > 0",
    ):
        with pytest.raises(DPCountError):
            read_pairs(sql=query, person="u", item="w", connection=con)
    assert con.execute("SELECT count(*) FROM visits").fetchone() == (2,)
    assert con.execute("SELECT nextval('seq')").fetchone() == (1,)  # never advanced
    g = read_pairs(sql="SELECT * FROM visits", person="u", item="w", connection=con)
    assert g == PersonItemGraph.from_pairs([1, 2], ["a", "b"])


@pytest.mark.parametrize(
    "options",
    ["store_rejects = true", "store_rejects := true", "rejects_table = 'r'", "rejects_scan = 's'"],
)
def test_csv_rejects_tables_are_refused(tmp_path, options):
    path = tmp_path / "p.csv"
    path.write_text("person,item\n1,a\n")
    con = duckdb.connect()
    query = f"SELECT * FROM read_csv('{path}', {options})"
    with pytest.raises(InvalidParameterError, match="creates tables"):
        read_pairs(sql=query, connection=con)
    pivoted = f"SELECT * FROM (PIVOT ({query}) ON item USING count(*))"  # two statements
    with pytest.raises(InvalidParameterError, match="not a statement of DuckDB's kind MULTI"):
        read_pairs(sql=pivoted, connection=con)
    assert con.execute("SELECT count(*) FROM duckdb_tables()").fetchone() == (0,)


def test_a_query_given_as_text_is_refused():
    with pytest.raises(InvalidParameterError, match=r"query\(\)"):
        read_pairs(sql="SELECT * FROM query('SELECT 1 AS person, 2 AS item')")


def test_parameters_are_refused():
    with pytest.raises(InvalidParameterError, match="parameters"):
        read_pairs(sql="SELECT $1 AS person, 'x' AS item")


def test_the_query_database_is_locked():
    with private_connection(locked=True) as con:
        for setting in ("autoinstall_known_extensions", "autoload_known_extensions"):
            assert con.execute(f"SELECT current_setting('{setting}')").fetchone() == (False,)
        with pytest.raises(duckdb.Error, match="locked"):
            con.execute("SET autoload_known_extensions = true")
    with private_connection() as con:  # the power check: an unlocked one can be changed
        con.execute("SET autoload_known_extensions = false")


def test_a_fifo_named_in_the_query_is_refused_without_blocking(tmp_path):
    fifo = tmp_path / "pipe.csv"
    os.mkfifo(fifo)
    error = raised_without_blocking(
        lambda: read_pairs(sql=f"SELECT * FROM read_csv('{fifo}')"), fifo
    )
    assert isinstance(error, DataError), error
    assert "named pipe (FIFO)" in str(error)


@pytest.mark.parametrize(
    "query",
    [
        f"{PAIRS};",
        f"  {PAIRS} ;; ",
        f"{PAIRS} -- a trailing comment",
        f"WITH t AS ({PAIRS}) SELECT * FROM t",
        "FROM (VALUES (1, 'x')) t(person, item)",
        "SELECT * FROM (VALUES (1, 'x')) t(person, item)",
        f"/* a comment */ {PAIRS}",
    ],
)
def test_selects_of_every_shape_are_read(query):
    assert read_pairs(sql=query) == PersonItemGraph.from_pairs([1], ["x"])
