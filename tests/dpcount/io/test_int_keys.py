"""Parquet files of narrow-range integer ids, keyed from their values, give the general graph."""

from __future__ import annotations

import dataclasses
import tempfile
from contextlib import nullcontext
from pathlib import Path

import numpy as np
import pyarrow as pa
import pyarrow.parquet as pq
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import dpcount.io
import dpcount.io._int_keys
from dpcount import PersonItemGraph
from dpcount.common.tuning import TUNING
from dpcount.errors import DroppedRowsWarning
from dpcount.io import read_pairs
from dpcount.io._int_keys import plan_int_keys, read_int_keys


def _read_both(monkeypatch: pytest.MonkeyPatch, source, **kwargs):
    """The graph read with keys from the values (whether that path answered) and without."""
    answered = []

    def traced(*args):
        found = original(*args)
        answered.append(found is not None)
        return found

    original = dpcount.io._int_keys.read_int_keys
    with monkeypatch.context() as m:
        m.setattr(TUNING, "int_keys_min_rows", 0)
        m.setattr(dpcount.io._int_keys, "read_int_keys", traced)
        by_values = read_pairs(source, **kwargs)
        m.setattr(TUNING, "int_keys_min_rows", 2**62)
        general = read_pairs(source, **kwargs)
    return by_values, general, answered


def _same(a: PersonItemGraph, b: PersonItemGraph) -> bool:
    return (
        a == b
        and a.person_labels.dtype == b.person_labels.dtype
        and a.item_labels.dtype == b.item_labels.dtype
    )


@st.composite
def _int_files(draw: st.DrawFn) -> tuple[list[pa.Table], int]:
    """One to three tables of (person, item) rows of one integer type from narrow ranges
    anywhere in the type's range, with repeated pairs, and a row-group size."""
    arrow_type = draw(st.sampled_from([pa.int32(), pa.int64()]))
    info = np.iinfo(arrow_type.to_pandas_dtype())
    bases = [
        draw(st.sampled_from([0, int(info.min), int(info.max) - 50]) | st.integers(-100, 100))
        for _ in range(2)
    ]
    rows = st.tuples(st.integers(0, 50), st.integers(0, 12))
    tables = []
    for _ in range(draw(st.integers(1, 3))):
        drawn = draw(st.lists(rows, min_size=1, max_size=40))
        tables.append(
            pa.table(
                {
                    "person": pa.array([bases[0] + p for p, _ in drawn], arrow_type),
                    "item": pa.array([bases[1] + i for _, i in drawn], arrow_type),
                }
            )
        )
    return tables, draw(st.integers(1, 16))


@settings(
    max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(_int_files())
def test_keys_from_values_give_the_general_graph(monkeypatch, files):
    tables, row_group_size = files
    with tempfile.TemporaryDirectory() as folder:
        for k, table in enumerate(tables):
            pq.write_table(table, Path(folder) / f"{k}.parquet", row_group_size=row_group_size)
        by_values, general, answered = _read_both(monkeypatch, str(Path(folder) / "*.parquet"))
    assert answered == [True]
    assert _same(by_values, general)


@pytest.mark.parametrize("cut", ["none below", "all below"])
def test_any_split_of_the_keys_gives_the_same_rows(tmp_path, cut):
    rng = np.random.default_rng(3)
    table = pa.table({"u": rng.integers(5, 60, 500), "w": rng.integers(-9, 9, 500)})
    path = str(tmp_path / "t.parquet")
    pq.write_table(table, path, row_group_size=64)
    plan = plan_int_keys([path], "u", "w")
    assert plan is not None and 0 < plan.cut < plan.person_span
    split = dataclasses.replace(plan, cut=0 if cut == "none below" else plan.person_span)
    expected = read_int_keys(pq.ParquetFile(path).iter_batches(batch_size=50), plan)
    got = read_int_keys(pq.ParquetFile(path).iter_batches(batch_size=50), split)
    assert expected is not None and got is not None
    for a, b in zip(got, expected, strict=True):
        assert a.tolist() == b.tolist()
    graph = PersonItemGraph.from_pairs(table["u"].to_numpy(), table["w"].to_numpy())
    assert got[0].tolist() == graph.indptr.tolist() and got[1].tolist() == graph.indices.tolist()


def test_values_contradicting_the_statistics_are_refused(tmp_path):
    path = str(tmp_path / "t.parquet")
    pq.write_table(pa.table({"u": [1, 2, 3], "w": [7, 8, 9]}), path)
    plan = plan_int_keys([path], "u", "w")
    assert plan is not None

    def batches():
        return pq.ParquetFile(path).iter_batches()

    assert read_int_keys(batches(), plan) is not None
    assert read_int_keys(batches(), dataclasses.replace(plan, person_span=2)) is None
    assert read_int_keys(batches(), dataclasses.replace(plan, item_min=8)) is None
    assert read_int_keys(batches(), dataclasses.replace(plan, rows=2)) is None  # more rows
    assert read_int_keys(batches(), dataclasses.replace(plan, rows=4)) is None  # fewer rows


def test_files_the_values_cannot_key_are_read_the_general_way(tmp_path, monkeypatch):
    cases = {
        "no statistics": ({"u": [1, 2], "w": [3, 4]}, {"write_statistics": False}),
        "a wide range": ({"u": [0, 2**40], "w": [3, 4]}, {}),
        "a null": ({"u": [1, None, 2], "w": [3, 4, 4]}, {}),
        "text": ({"u": ["a", "b"], "w": [3, 4]}, {}),
    }
    for name, (columns, options) in cases.items():
        path = tmp_path / f"{name}.parquet"
        pq.write_table(pa.table(columns), path, **options)
        kwargs = {"drop_nulls": True} if name == "a null" else {}
        expect = pytest.warns(DroppedRowsWarning) if name == "a null" else nullcontext()
        with expect:
            by_values, general, answered = _read_both(
                monkeypatch, path, person="u", item="w", **kwargs
            )
        assert answered == [], name
        assert _same(by_values, general), name
    # A count column takes the general path too.
    path = tmp_path / "counts.parquet"
    pq.write_table(pa.table({"u": [1, 1], "w": [3, 3], "n": [2, 5]}), path)
    by_values, general, answered = _read_both(monkeypatch, path, person="u", item="w", count="n")
    assert answered == [] and by_values.counts.tolist() == [7]


def _frames(table: pa.Table) -> dict[str, object]:
    import pandas as pd
    import polars as pl

    return {
        "Arrow table": table,
        "Arrow record batch": table.combine_chunks().to_batches()[0],
        "pandas": table.to_pandas(),
        "polars": pl.from_arrow(table),
        "pandas, Arrow-backed": table.to_pandas(types_mapper=pd.ArrowDtype),
    }


@settings(
    max_examples=20, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(_int_files())
def test_tables_in_memory_keyed_from_values_give_the_general_graph(monkeypatch, files):
    tables, _ = files
    table = pa.concat_tables(tables)
    for name, frame in _frames(table).items():
        by_values, general, answered = _read_both(monkeypatch, frame)
        assert answered == [True], name
        assert _same(by_values, general), name


def test_tables_the_values_cannot_key_are_read_the_general_way(monkeypatch):
    import pandas as pd

    cases = {
        "a null": pd.DataFrame({"u": pd.array([1, None, 2], "Int64"), "w": [3, 4, 4]}),
        "a wide range": pd.DataFrame({"u": [0, 2**40], "w": [3, 4]}),
        "small integers": pd.DataFrame({"u": np.array([1, 2], np.int8), "w": [3, 4]}),
        "text": pa.table({"u": ["a", "b"], "w": [3, 4]}),
    }
    for name, frame in cases.items():
        expect = pytest.warns(DroppedRowsWarning) if name == "a null" else nullcontext()
        with expect:
            by_values, general, answered = _read_both(
                monkeypatch, frame, person="u", item="w", drop_nulls=True
            )
        assert answered == [], name
        assert _same(by_values, general), name
