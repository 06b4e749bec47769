"""Parquet read by Arrow with the files' dictionaries gives what DuckDB's reader gives.

The identical-graph property over generated data is in test_io_sources.py (both readers); here
are the cases that decide between the two readers or that only Arrow's reader meets:
dictionaries holding values no row uses, counts, 32-bit ids, schemas that differ between files,
types left to DuckDB, and rows that need DuckDB's checks.
"""

from __future__ import annotations

import warnings
from pathlib import Path

import numpy as np
import pyarrow as pa
import pyarrow.parquet as pq
import pytest

import dpcount.io._parquet
from dpcount import DataError
from dpcount.common.tuning import TUNING
from dpcount.errors import DroppedRowsWarning
from dpcount.io import _strategy, read_pairs


def _read_both(monkeypatch: pytest.MonkeyPatch, *args, **kwargs):
    """The graph read by Arrow's reader (asserted to be used) and by DuckDB's."""
    calls = []

    def traced(files, columns, types, with_counts):
        result = original(files, columns, types, with_counts)
        calls.append(result is not None)
        return result

    original = _strategy.encode_parquet
    with monkeypatch.context() as m:
        m.setattr(_strategy, "encode_parquet", traced)
        by_arrow = read_pairs(*args, **kwargs)
        m.setattr(_strategy, "encode_parquet", lambda *a: None)
        by_duckdb = read_pairs(*args, **kwargs)
    return by_arrow, by_duckdb, calls


def _same(a, b) -> bool:
    return (
        a == b
        and a.person_labels.dtype == b.person_labels.dtype
        and a.item_labels.dtype == b.item_labels.dtype
        and (a.counts is None) == (b.counts is None)
    )


def test_unused_dictionary_values_are_not_labels(tmp_path, monkeypatch):
    # A dictionary array written as is keeps its unused values in the file's dictionary page.
    persons = pa.DictionaryArray.from_arrays(pa.array([2, 0, 2], pa.int32()), ["a", "zz", "b"])
    items = pa.DictionaryArray.from_arrays(pa.array([1, 1, 3], pa.int32()), ["q", "x", "r", "y"])
    path = tmp_path / "d.parquet"
    pq.write_table(pa.table({"person": persons, "item": items}), path)
    by_arrow, by_duckdb, calls = _read_both(monkeypatch, path)
    assert calls == [True]
    assert _same(by_arrow, by_duckdb)
    assert by_arrow.person_labels.tolist() == ["a", "b"]
    assert by_arrow.item_labels.tolist() == ["x", "y"]
    assert by_arrow.indices.tolist() == [0, 0, 1]


@pytest.mark.parametrize("compiled", [False, True])
@pytest.mark.parametrize("with_counts", [False, True])
def test_unused_dictionary_values_across_row_groups(tmp_path, monkeypatch, compiled, with_counts):
    """Unused values of many row groups' dictionaries are dropped once the pairs are built; a
    person whose counts all sum to 0 is kept, as DuckDB's reader keeps it."""
    rng = np.random.default_rng(11)
    names = np.array([f"n{k:03d}" for k in range(200)])
    person_codes = rng.integers(0, 60, 3000)
    person_codes[:10] = 150  # only in rows of count 0
    persons = pa.DictionaryArray.from_arrays(pa.array(person_codes, pa.int32()), names)
    items = pa.DictionaryArray.from_arrays(
        pa.array(rng.integers(100, 140, 3000), pa.int32()), names
    )
    counts = pa.array(np.where(np.arange(3000) < 40, 0, rng.integers(0, 3, 3000)), pa.int16())
    path = tmp_path / "d.parquet"
    pq.write_table(
        pa.table({"person": persons, "item": items, "c": counts}), path, row_group_size=400
    )
    monkeypatch.setattr(TUNING, "compiled_min_pairs", 0 if compiled else 1 << 21)
    monkeypatch.setattr(TUNING, "rows_per_group", 500)
    by_arrow, by_duckdb, calls = _read_both(monkeypatch, path, count="c" if with_counts else None)
    assert calls == [True]
    assert _same(by_arrow, by_duckdb)
    assert set(by_arrow.person_labels) == set(names[person_codes])
    assert set(by_arrow.item_labels) <= set(names[100:140])
    assert by_arrow.degrees()[list(by_arrow.person_labels).index("n150")] == 0 or not with_counts


def test_dictionaries_nearly_as_long_as_their_row_groups_are_read_plainly(tmp_path, monkeypatch):
    """Persons in random order (most of a row group's persons distinct) are read as strings,
    items (few, repeated) as dictionaries; the graph is DuckDB's."""
    rng = np.random.default_rng(2)
    persons = [f"user{k}" for k in rng.integers(0, 5000, 4000)]
    items = [f"w{k}" for k in rng.integers(0, 20, 4000)]
    path = tmp_path / "shuffled.parquet"
    pq.write_table(pa.table({"person": persons, "item": items}), path, row_group_size=1000)
    batches = list(dpcount.io._parquet._scan([str(path)], {"p": "person", "i": "item"}))
    assert {str(b.schema.field("p").type) for b in batches} == {"string"}
    assert {str(b.schema.field("i").type) for b in batches} == {
        "dictionary<values=string, indices=int32, ordered=0>"
    }
    assert [v for b in batches for v in b.column("p").to_pylist()] == persons
    assert [v for b in batches for v in b.column("i").to_pylist()] == items
    by_arrow, by_duckdb, calls = _read_both(monkeypatch, path)
    assert calls == [True]
    assert _same(by_arrow, by_duckdb)


def test_counts_and_int32_ids_and_many_row_groups(tmp_path, monkeypatch):
    rng = np.random.default_rng(5)
    n = 5000
    table = pa.table(
        {
            "u": pa.array(rng.integers(-50, 50, n), pa.int32()),
            "w": pa.array([f"w{k}" for k in rng.integers(0, 300, n)]),
            "c": pa.array(rng.integers(0, 3, n), pa.int16()),
        }
    )
    path = tmp_path / "c.parquet"
    pq.write_table(table, path, row_group_size=700)
    # Batches of 100 rows: seven share each row group's dictionary, groups span row groups.
    monkeypatch.setattr(TUNING, "parquet_batch_rows", 100)
    monkeypatch.setattr(TUNING, "rows_per_group", 1000)
    by_arrow, by_duckdb, calls = _read_both(monkeypatch, path, person="u", item="w", count="c")
    assert calls == [True]
    assert _same(by_arrow, by_duckdb)
    assert by_arrow.person_labels.dtype == np.int32
    # The counts are the sums per pair; pairs summing to 0 are gone.
    frame = table.to_pandas().groupby(["u", "w"])["c"].sum()
    frame = frame[frame > 0]
    assert by_arrow.n_pairs == frame.size and int(by_arrow.counts.sum()) == int(frame.sum())


def test_files_with_different_schemas_go_to_duckdb(tmp_path, monkeypatch):
    pq.write_table(pa.table({"person": ["a", "b"], "item": [1, 2]}), tmp_path / "1.parquet")
    pq.write_table(
        pa.table({"person": ["c"], "item": pa.array([3], pa.int32())}), tmp_path / "2.parquet"
    )
    by_arrow, by_duckdb, calls = _read_both(monkeypatch, str(tmp_path / "*.parquet"))
    assert calls == [False]
    assert _same(by_arrow, by_duckdb) and by_arrow.n_pairs == 3


@pytest.mark.parametrize(
    "column",
    [
        pa.array([1.5, 2.5, 1.5]),
        pa.array([b"x", b"y", b"x"]),
        pa.array([1, 2, 1], pa.uint64()),
        pa.array(np.array(["2020-01-01"] * 3, "datetime64[D]")),
    ],
    ids=str,
)
def test_other_id_types_go_to_duckdb(tmp_path, monkeypatch, column):
    pq.write_table(pa.table({"person": ["a", "b", "b"], "item": column}), tmp_path / "t.parquet")
    if pa.types.is_binary(column.type):
        with pytest.raises(DataError, match="BLOB"):
            read_pairs(tmp_path / "t.parquet")
        return
    by_arrow, by_duckdb, calls = _read_both(monkeypatch, tmp_path / "t.parquet")
    assert calls == [False]
    assert _same(by_arrow, by_duckdb)


@pytest.mark.parametrize("bad", [None, ""], ids=["null", "empty"])
def test_rows_needing_checks_are_reported_by_duckdb(tmp_path, monkeypatch, bad):
    path = tmp_path / "t.parquet"
    pq.write_table(pa.table({"person": ["a", bad, "b"], "item": ["x", "y", "y"]}), path)
    with pytest.raises(DataError, match=r"1 of 3 rows \(not private\) have a null, empty"):
        read_pairs(path)
    with pytest.warns(DroppedRowsWarning, match="dropped 1 of 3"):
        graph = read_pairs(path, drop_nulls=True)
    assert graph.person_labels.tolist() == ["a", "b"] and graph.n_pairs == 2


def test_a_file_arrow_cannot_read_is_reported_by_duckdb(tmp_path):
    path = tmp_path / "t.parquet"
    path.write_bytes(b"PAR1 not really parquet")
    with pytest.raises(DataError, match=r"t\.parquet"):
        read_pairs(path)


def test_arrow_batches_are_only_offered_for_matching_types(tmp_path):
    path = str(tmp_path / "t.parquet")
    pq.write_table(pa.table({"u": ["a"], "w": pa.array([1], pa.int32())}), path)
    columns = {"p": "u", "i": "w"}
    assert dpcount.io._parquet.parquet_batches([path], columns, {"u": "VARCHAR", "w": "INTEGER"})
    # DuckDB seeing another type (e.g. a cast in a view) or a URL: not Arrow's business.
    assert (
        dpcount.io._parquet.parquet_batches([path], columns, {"u": "VARCHAR", "w": "BIGINT"})
        is None
    )
    assert dpcount.io._parquet.parquet_batches(["s3://b/t.parquet"], columns, {}) is None
    assert (
        dpcount.io._parquet.parquet_batches([path], {"p": "u", "i": "u"}, {"u": "VARCHAR"}) is None
    )
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert read_pairs(Path(path), person="u", item="w").n_pairs == 1
