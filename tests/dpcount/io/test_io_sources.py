"""Every input kind of read_pairs gives the identical graph; bad input fails alike everywhere.

Sources: CSV, TSV, Parquet and a Parquet glob (each read by Arrow and by DuckDB), JSON lines,
SQL, pandas (NumPy- and Arrow-backed), polars eager and lazy, an Arrow table and reader, a DuckDB
relation.  The streaming encoder is run with one encoding group and with many (tiny groups),
and the CSR built by NumPy alone and by the compiled passes around NumPy's sort.
"""

from __future__ import annotations

import datetime
import os
import tempfile
import warnings
from pathlib import Path

import duckdb
import numpy as np
import pandas as pd
import polars as pl
import pyarrow as pa
import pyarrow.parquet as pq
import pytest
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st

import dpcount.graph
import dpcount.graph.csr_kernels
import dpcount.io
import dpcount.io._parquet
from dpcount import DataError, PersonItemGraph
from dpcount.common.tuning import TUNING
from dpcount.errors import DroppedRowsWarning
from dpcount.graph.assembly import csr_from_keys, pair_keys
from dpcount.graph.csr_kernels import csr_by_sorting
from dpcount.io import read_pairs

_PARQUET_BATCHES = dpcount.io._parquet.parquet_batches

# --------------------------------------------------------------------------------------------
# Generated rows
# --------------------------------------------------------------------------------------------

_TEXT = st.text(
    alphabet=st.sampled_from("abAB,;\"' \té😀\u00a0Ωz0-"), min_size=1, max_size=6
).filter(lambda s: s.strip() == s and s != "")
_LONG_TEXT = st.text(alphabet="xyé", min_size=200, max_size=400)
_NEAR_MAX = st.integers(2**63 - 40, 2**63 - 1) | st.integers(-(2**63), -(2**63) + 40)
_DATES = st.dates(datetime.date(1900, 1, 1), datetime.date(2100, 12, 31))

KINDS = {
    "text": (st.one_of(_TEXT, _LONG_TEXT), pa.string()),
    "int": (_NEAR_MAX | st.integers(-5, 5), pa.int64()),
    "date": (_DATES, pa.date32()),
}


def _rows(values: st.SearchStrategy) -> st.SearchStrategy:
    """Rows with repeats (small pools), sometimes a null id."""
    pool = st.lists(values, min_size=1, max_size=6, unique=True)
    return pool.flatmap(
        lambda labels: st.lists(
            st.tuples(
                st.sampled_from(labels) | st.none() if len(labels) > 3 else st.sampled_from(labels),
                st.sampled_from(labels) | st.none() if len(labels) > 4 else st.sampled_from(labels),
            ),
            min_size=1,
            max_size=25,
        )
    )


def _table(rows, arrow_type: pa.DataType) -> pa.Table:
    return pa.table(
        {
            "person": pa.array([p for p, _ in rows], arrow_type),
            "item": pa.array([i for _, i in rows], arrow_type),
        }
    )


def _sources(table: pa.Table, kind: str, folder: Path) -> dict[str, dict]:
    """read_pairs keyword arguments, by source name, all holding the rows of ``table``."""
    csv_types = {"person": "VARCHAR", "item": "VARCHAR"} if kind == "text" else None
    frame = table.to_pandas(types_mapper=pd.ArrowDtype)
    pq.write_table(table, folder / "t.parquet")
    parts = folder / "parts"
    parts.mkdir()
    half = table.num_rows // 2
    pq.write_table(table.slice(0, half), parts / "a.parquet")
    pq.write_table(table.slice(half), parts / "b.parquet")
    frame.to_csv(folder / "t.csv", index=False)
    frame.to_csv(folder / "t.tsv", index=False, sep="\t")
    sources = {
        "parquet": {"source": folder / "t.parquet"},
        "glob": {"source": str(parts / "*.parquet")},
        "parquet, DuckDB's reader": {"source": folder / "t.parquet"},
        "glob, DuckDB's reader": {"source": str(parts / "*.parquet")},
        "csv": {"source": folder / "t.csv", "column_types": csv_types},
        "tsv": {"source": folder / "t.tsv", "column_types": csv_types},
        "sql": {"sql": f"SELECT * FROM read_parquet('{folder / 't.parquet'}')"},
        "pandas arrow-backed": {"source": frame},
        "polars": {"source": pl.from_arrow(table)},
        "polars lazy": {"source": pl.from_arrow(table).lazy()},
        "arrow table": {"source": table},
        "arrow reader": {"source": table.to_reader(max_chunksize=3)},
        "duckdb relation": {"source": duckdb.arrow(table)},
    }
    if kind != "date":  # JSON has no date type; DuckDB reads them as text
        frame.to_json(folder / "t.jsonl", orient="records", lines=True, date_format="iso")
        sources["jsonl"] = {"source": folder / "t.jsonl"}
    if table.column("person").null_count == 0 and table.column("item").null_count == 0:
        sources["pandas"] = {"source": table.to_pandas()}
    if kind == "date":
        del sources["pandas arrow-backed"]  # pandas has no plain date dtype: checked apart
    return sources


def _expected(rows, kind: str) -> PersonItemGraph:
    kept = [(p, i) for p, i in rows if p is not None and i is not None]
    persons = [p for p, _ in kept]
    items = [i for _, i in kept]
    if kind == "date":
        persons = np.array(persons, dtype="datetime64[D]")
        items = np.array(items, dtype="datetime64[D]")
    return PersonItemGraph.from_pairs(persons, items)


def _same(a: PersonItemGraph, b: PersonItemGraph) -> bool:
    return (
        a == b
        and a.person_labels.dtype == b.person_labels.dtype
        and a.item_labels.dtype == b.item_labels.dtype
    )


@pytest.mark.parametrize("kind", sorted(KINDS))
@settings(
    max_examples=10, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(data=st.data(), tiny=st.booleans())
def test_every_source_gives_the_same_graph(kind, data, tiny, monkeypatch):
    values, arrow_type = KINDS[kind]
    rows = data.draw(_rows(values))
    has_nulls = any(p is None or i is None for p, i in rows)
    assume(any(p is not None and i is not None for p, i in rows))
    # Tiny encoding groups (dictionaries unified across many), the compiled CSR builder and
    # Parquet integer ids keyed from their values, or one group and NumPy alone.
    monkeypatch.setattr(TUNING, "rows_per_group", 4 if tiny else 1 << 20)
    monkeypatch.setattr(TUNING, "compiled_min_pairs", 0 if tiny else 1 << 21)
    monkeypatch.setattr(TUNING, "int_keys_min_rows", 0 if tiny else 1 << 21)
    expected = _expected(rows, kind)
    table = _table(rows, arrow_type)
    with tempfile.TemporaryDirectory() as folder:
        for name, kwargs in _sources(table, kind, Path(folder)).items():
            # Parquet is read by Arrow with its dictionaries where it can be, else by DuckDB.
            monkeypatch.setattr(dpcount.io._parquet, "parquet_batches", _PARQUET_BATCHES)
            if "DuckDB's reader" in name:
                monkeypatch.setattr(dpcount.io._parquet, "parquet_batches", lambda *a: None)
            if has_nulls:
                with pytest.raises(DataError, match=r"rows \(not private\) have a null"):
                    read_pairs(**kwargs)
                if "reader" in name:  # a reader is consumed by the failed attempt
                    kwargs = {"source": table.to_reader(max_chunksize=3)}
                with pytest.warns(DroppedRowsWarning):
                    got = read_pairs(**kwargs, drop_nulls=True)
            else:
                with warnings.catch_warnings():
                    warnings.simplefilter("error")
                    got = read_pairs(**kwargs, drop_nulls=True)
            assert _same(got, expected) or got == expected, name
            if name == "parquet":
                reference = got
            else:
                assert _same(got, reference), name


def test_pandas_kinds_and_counts():
    df = pd.DataFrame(
        {
            "u": pd.Categorical(["b", "a", "b"]),
            "when": pd.to_datetime(["2020-01-02", "2020-01-01", "2020-01-02"]),
            "n": [1, 2, 3],
        }
    )
    g = read_pairs(df, person="u", item="when", count="n")
    assert g.person_labels.tolist() == ["a", "b"] and g.counts.tolist() == [2, 4]
    assert g.item_labels.dtype.kind == "M"
    assert PersonItemGraph.from_dataframe(df, person="u", item="when", count="n") == g


def test_frames_do_not_import_polars():
    import subprocess
    import sys

    code = (
        "import sys, pandas as pd; from dpcount import read_pairs; "
        "read_pairs(pd.DataFrame({'person': [1], 'item': [2]})); "
        "print('polars' in sys.modules)"
    )
    env = os.environ | {"PYTHONPATH": str(Path(__file__).resolve().parents[3])}
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env)
    assert out.stdout.strip() == "False", out.stderr


def test_sql_sees_tables_registered_on_the_connection():
    con = duckdb.connect()
    con.register("visits", pl.DataFrame({"u": [1, 1, 2], "w": ["a", "b", "a"]}))
    g = read_pairs(sql="SELECT u, w FROM visits WHERE u = 1", person="u", item="w", connection=con)
    assert g.item_labels.tolist() == ["a", "b"]


# --------------------------------------------------------------------------------------------
# Bad input: the same one-line errors, nothing left behind
# --------------------------------------------------------------------------------------------


def _frames_missing_item() -> dict[str, object]:
    base = pa.table({"person": [1, 2], "thing": ["a", "b"]})
    return {
        "pandas DataFrame": base.to_pandas(),
        "polars DataFrame": pl.from_arrow(base),
        "polars LazyFrame": pl.from_arrow(base).lazy(),
        "Arrow table": base,
        "Arrow record batch reader": base.to_reader(),
        "DuckDB relation": duckdb.arrow(base),
    }


@pytest.mark.parametrize("name", sorted(_frames_missing_item()))
def test_missing_column_in_a_table(name):
    with pytest.raises(DataError) as info:
        read_pairs(_frames_missing_item()[name])
    message = str(info.value)
    assert "\n" not in message and message.startswith(f"{name}: item column 'item' not found")
    assert "['person', 'thing']" in message


def test_tables_leave_nothing_on_the_callers_connection():
    con = duckdb.connect()
    before = con.execute("SELECT count(*) FROM duckdb_tables()").fetchone()
    frame = pd.DataFrame({"person": ["a", None, "b"], "item": [1, 2, 3]})
    with pytest.raises(DataError, match="null"):
        read_pairs(frame, connection=con)
    with pytest.warns(DroppedRowsWarning):
        assert read_pairs(frame, connection=con, drop_nulls=True).n_pairs == 2
    relation = con.sql("SELECT * FROM (VALUES (1, 'x')) t(person, item)")
    assert read_pairs(relation, connection=con).n_pairs == 1
    assert con.execute("SELECT count(*) FROM duckdb_tables()").fetchone() == before
    assert con.execute("SELECT count(*) FROM duckdb_views() WHERE NOT internal").fetchone() == (0,)
    assert not [v for (v,) in con.execute("SHOW TABLES").fetchall() if v.startswith("dpcount")]


@pytest.mark.parametrize(
    ("content", "kwargs", "pattern"),
    [
        ("", {}, "file is empty"),
        ("person,item\n", {}, "no rows"),
        ("person;item\na;b\n", {}, "a single column: is the delimiter or the format right"),
        ("person,item\na,b\n", {"delimiter": ";"}, "a single column"),
        ('person,item\na,"b\n', {}, "could not"),
    ],
)
def test_bad_files_fail_in_one_line_and_leave_no_files(
    tmp_path, monkeypatch, content, kwargs, pattern
):
    path = tmp_path / "bad.csv"
    path.write_text(content)
    spill = tmp_path / "temp"  # this test's own temp folder: other processes' spills stay out
    spill.mkdir()
    monkeypatch.setattr(tempfile, "tempdir", str(spill))
    with pytest.raises(DataError, match=pattern) as info:
        read_pairs(path, **kwargs)
    assert "\n" not in str(info.value) and str(path) in str(info.value)
    assert list(spill.iterdir()) == []
    assert sorted(p.name for p in tmp_path.iterdir()) == ["bad.csv", "temp"]


def test_unreadable_file(tmp_path):
    path = tmp_path / "locked.csv"
    path.write_text("person,item\na,b\n")
    path.chmod(0)
    try:
        if os.access(path, os.R_OK):
            pytest.skip("running as a user who reads any file (root)")
        with pytest.raises(DataError, match=r"locked\.csv"):
            read_pairs(path)
    finally:
        path.chmod(0o600)


# --------------------------------------------------------------------------------------------
# The two CSR builders
# --------------------------------------------------------------------------------------------


@settings(max_examples=50, deadline=None)
@given(
    st.integers(1, 6).flatmap(
        lambda n: st.tuples(
            st.just(n),
            st.integers(1, 5),
            st.lists(st.tuples(st.integers(0, n - 1), st.integers(0, 4)), max_size=40),
        )
    )
)
def test_both_csr_builders_give_the_pairs_csr(case):
    n, m, pairs = case
    pairs = [(p, i % m) for p, i in pairs]
    persons = np.array([p for p, _ in pairs], dtype=np.int32)
    items = np.array([i for _, i in pairs], dtype=np.int32)
    truth = sorted(set(pairs))
    cut = len(pairs) // 3
    groups = ([persons[:cut], persons[cut:]], [items[:cut], items[cut:]])
    # The same groups as the reader gives them: codes into each group's own dictionary (in
    # the order of first appearance, reversed), with the map from it to the global codes.
    local = [[], []], [[], []]
    for group in zip(*groups, strict=True):
        for column, values in enumerate(group):
            dictionary = list(dict.fromkeys(values.tolist()))[::-1]
            position = {value: code for code, value in enumerate(dictionary)}
            local[0][column].append(np.array([position[v] for v in values], dtype=np.int32))
            local[1][column].append(np.array(dictionary, dtype=np.int32))
    for codes, maps in ((groups, (None, None)), (local[0], local[1])):
        for build in (_numpy_csr, csr_by_sorting):
            person_groups, item_groups = list(codes[0]), list(codes[1])
            indptr, indices = build(person_groups, item_groups, n, m, *maps)
            assert all(g.size == 0 for g in person_groups + item_groups)  # released as used
            assert indices.dtype == np.int32 and indptr.dtype == np.int64
            assert indices.tolist() == [i for _, i in truth]
            rows = [sum(1 for p, _ in truth if p == q) for q in range(n)]
            assert np.diff(indptr).tolist() == rows


@settings(max_examples=50, deadline=None)
@given(st.integers(1, 40), st.lists(st.integers(0, 39), max_size=60), st.booleans())
def test_held_items_in_one_or_two_threads(m, values, two_threads):
    indices = np.array([v % m for v in values], dtype=np.int32)
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(TUNING, "parallel_flag_pairs", 0 if two_threads else 1 << 22)
        held = dpcount.graph.csr_kernels.held_items(indices, m)
    assert held.tolist() == [k in set(indices.tolist()) for k in range(m)]


def _numpy_csr(person_groups, item_groups, n, m, person_maps, item_maps):
    """The CSR builder for fewer pairs: keys by NumPy, sorted by NumPy."""
    return csr_from_keys(pair_keys(person_groups, item_groups, m, person_maps, item_maps), n, m)
