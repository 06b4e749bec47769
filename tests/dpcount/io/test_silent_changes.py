"""Data never change silently on the way in (issue 24): ids never merge through floating
point, and the files of one glob agree on their columns or the error names the one that
differs.  Each test reproduces a finding that passed silently (or raised a raw KeyError)
before."""

from __future__ import annotations

import json

import pandas as pd
import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from dpcount import read_pairs, read_texts, read_triples
from dpcount.errors import DataError

BIG = 2**60  # above 2**53: BIG and BIG + 1 are one float64


def test_a_csv_column_with_a_decimal_keeps_big_ids_apart_or_refuses(tmp_path):
    path = tmp_path / "ids.csv"
    path.write_text(f"person,item\n{BIG},a\n{BIG + 1},a\n1.5,b\n")
    with pytest.raises(DataError, match=r"ids\.csv: id column 'person' was read as floating point"):
        read_pairs(path)
    as_text = read_pairs(path, column_types={"person": "VARCHAR"})  # the advice works
    assert as_text.n_persons == 3


def test_128_bit_json_ids_are_refused_not_merged(tmp_path):
    path = tmp_path / "ids.jsonl"
    path.write_text("".join(json.dumps({"person": 2**100 + k, "item": "a"}) + "\n" for k in (0, 1)))
    with pytest.raises(DataError, match="read_json"):
        read_pairs(path)


@pytest.mark.parametrize("reader", ["triples", "texts"])
def test_every_reader_checks_float_ids(tmp_path, reader):
    path = tmp_path / "rows.csv"
    if reader == "triples":
        path.write_text(f"person,group,item\n{BIG},g,a\n{BIG + 1},g,a\n1.5,g,b\n")
        call = lambda: read_triples(path)  # noqa: E731
    else:
        path.write_text(f"person,text\n{BIG},hello world\n1.5,hi there\n")
        call = lambda: read_texts(path, ngram=1)  # noqa: E731
    with pytest.raises(DataError, match="was read as floating point"):
        call()


def test_small_floats_and_float_tables_are_kept(tmp_path):
    path = tmp_path / "small.csv"
    path.write_text("person,item\n0.5,a\n1.5,b\n2,c\n")
    assert read_pairs(path).person_labels.tolist() == [0.5, 1.5, 2.0]
    frame = pd.DataFrame({"person": [float(BIG), 0.5], "item": ["a", "b"]})
    assert read_pairs(frame).n_persons == 2  # the caller's own floats: nothing was converted


def _parquet(path, **columns):
    pq.write_table(pa.table(columns), path)


def test_a_glob_whose_files_disagree_in_type_names_the_file(tmp_path):
    _parquet(tmp_path / "a.parquet", person=[1, 2], item=["a", "b"])
    _parquet(tmp_path / "b.parquet", person=[0.5, 1.5, 2.5], item=["a", "b", "c"])
    with pytest.raises(
        DataError,
        match=r"b\.parquet: column 'person' is of type double here but an integer in .*a\.parquet",
    ):
        read_pairs(str(tmp_path / "*.parquet"))


@pytest.mark.parametrize(
    ("name", "hint"), [("Person", "it has 'Person'"), ("user", "same columns")]
)
def test_a_glob_member_without_the_column_names_the_file(tmp_path, name, hint):
    _parquet(tmp_path / "a.parquet", person=[1, 2], item=["a", "b"])
    _parquet(tmp_path / "b.parquet", **{name: [3, 4], "item": ["a", "b"]})
    with pytest.raises(DataError, match=rf"b\.parquet: has no column 'person'.*{hint}"):
        read_pairs(str(tmp_path / "*.parquet"))


def test_a_glob_of_agreeing_files_is_read(tmp_path):
    _parquet(tmp_path / "a.parquet", person=pa.array([1, 2], pa.int32()), item=["a", "b"])
    _parquet(tmp_path / "b.parquet", person=[3, 4], item=pa.array(["a", "c"]).dictionary_encode())
    assert read_pairs(str(tmp_path / "*.parquet")).n_persons == 4
