"""Tests of read_triples / read_pairs(group=...): files, SQL, DataFrames, errors."""

from __future__ import annotations

import tempfile
from pathlib import Path

import duckdb
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from dpcount.errors import DataError, InvalidParameterError
from dpcount.graph import GroupedGraph
from dpcount.io import read_pairs, read_triples

ROWS = [("ann", "eu", "x"), ("ann", "us", "x"), ("bob", "eu", "y"), ("ann", "eu", "x")]
EXPECTED = GroupedGraph.from_triples(*zip(*ROWS, strict=True))


def _csv(tmp_path, rows=ROWS, header="user,region,product"):
    path = tmp_path / "t.csv"
    path.write_text(header + "\n" + "".join(",".join(r) + "\n" for r in rows))
    return path


def test_csv_parquet_and_read_pairs_group(tmp_path):
    path = _csv(tmp_path)
    g = read_triples(path, person="user", group="region", item="product")
    assert g == EXPECTED
    assert read_pairs(path, person="user", item="product", group="region") == EXPECTED
    parquet = tmp_path / "t.parquet"
    duckdb.sql(f"COPY (SELECT * FROM read_csv('{path}')) TO '{parquet}' (FORMAT parquet)")
    assert read_triples(parquet, "user", "region", "product") == EXPECTED


def test_sql_and_dataframe_sources():
    pd = pytest.importorskip("pandas")
    df = pd.DataFrame(ROWS, columns=["u", "g", "i"])
    assert read_triples(df, "u", "g", "i") == EXPECTED
    con = duckdb.connect()
    con.register("t", df)
    assert (
        read_triples(sql="SELECT * FROM t", person="u", group="g", item="i", connection=con)
        == EXPECTED
    )
    assert {r[0] for r in con.execute("SHOW TABLES").fetchall()} == {"t"}


def test_a_person_column_mixing_1_and_quoted_1_is_refused_as_read_pairs_refuses_it():
    """read_triples once had a DataFrame path of its own, where DuckDB made the two ids text and
    merged two persons into one, silently."""
    pd = pytest.importorskip("pandas")
    frame = pd.DataFrame({"person": [1, "1"], "group": ["eu", "eu"], "item": ["x", "y"]})
    message = r"person labels in column 'person' mix label types \['number', 'str'\]"
    with pytest.raises(DataError, match=message):
        read_pairs(frame)
    with pytest.raises(DataError, match=message):
        read_triples(frame)
    with pytest.raises(DataError, match=message):
        read_pairs(frame, group="group")


def test_a_duckdb_relation_is_read_as_read_pairs_reads_it():
    """read_triples once registered a relation as a DataFrame: a raw duckdb error."""
    con = duckdb.connect()
    relation = con.sql(
        "SELECT * FROM (VALUES ('ann', 'eu', 'x'), ('ann', 'us', 'x'), ('bob', 'eu', 'y')) "
        "t(u, g, i)"
    )
    assert read_triples(relation, "u", "g", "i") == EXPECTED
    assert read_triples(relation, "u", "g", "i", connection=con) == EXPECTED
    with pytest.raises(DataError, match=r"DuckDB relation: item column 'item' not found"):
        read_triples(relation, "u", "g")


def test_integer_and_date_labels_keep_their_types():
    g = read_triples(
        sql="SELECT * FROM (VALUES (2, DATE '2024-01-02', 10), (1, DATE '2024-01-01', 3)) "
        "t(person, grp, item)",
        group="grp",
    )
    assert g.person_labels.tolist() == [1, 2]
    assert str(g.group_labels.dtype) == "datetime64[D]"


def test_errors(tmp_path):
    path = _csv(tmp_path)
    with pytest.raises(DataError, match="group column 'forum' not found"):
        read_triples(path, person="user", group="forum", item="product")
    with pytest.raises(DataError, match="null, empty or NaN"):
        read_triples(_csv(tmp_path, [("ann", "", "x")]), "user", "region", "product")
    with pytest.raises(InvalidParameterError, match="must name different columns"):
        read_triples(path, person="user", group="user", item="product")
    with pytest.raises(InvalidParameterError, match="count"):
        read_pairs(path, person="user", item="product", count="region", group="region")


@settings(max_examples=25, deadline=None)
@given(
    st.lists(
        st.tuples(st.integers(0, 9), st.sampled_from(["a", "B", "é", "a b"]), st.integers(-3, 30)),
        min_size=1,
        max_size=30,
    )
)
def test_files_agree_with_from_triples(rows):
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "rows.csv"
        path.write_text("u,g,i\n" + "".join(f'{p},"{g}",{i}\n' for p, g, i in rows))
        got = read_triples(path, person="u", group="g", item="i")
    assert got == GroupedGraph.from_triples(*zip(*rows, strict=True))
