"""Readers (read_pairs, read_texts) and write_pairs, on files generated in tmp_path."""

from __future__ import annotations

import datetime
import gzip
import json
import re
import warnings
from pathlib import Path

import duckdb
import numpy as np
import pandas as pd
import pyarrow as pa
import pyarrow.parquet as pq
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from dpcount import DataError, InvalidParameterError, PersonItemGraph
from dpcount.common.tuning import TUNING
from dpcount.errors import DroppedRowsWarning
from dpcount.io import ngram_graph, read_pairs, read_texts, tokenize, write_pairs
from dpcount.io.tokens import tokens_sql
from tests.strategies import item_sets

ROWS = [("ann", "home"), ("ann", "faq"), ("bob", "home"), ("ann", "home"), ("cy", "blog")]


def _expected(rows=ROWS) -> PersonItemGraph:
    return PersonItemGraph.from_pairs([p for p, _ in rows], [i for _, i in rows])


def _write_csv(path: Path, rows, header=("user", "page"), sep=",") -> Path:
    lines = [sep.join(header)] + [sep.join(map(str, row)) for row in rows]
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return path


def _write_parquet(path: Path, columns: dict) -> Path:
    pq.write_table(pa.table(columns), path)
    return path


def _write_jsonl(path: Path, records) -> Path:
    path.write_text("".join(json.dumps(r) + "\n" for r in records), encoding="utf-8")
    return path


# --------------------------------------------------------------------------------------------
# Formats
# --------------------------------------------------------------------------------------------


def test_csv(tmp_path):
    path = _write_csv(tmp_path / "visits.csv", ROWS)
    g = read_pairs(path, person="user", item="page")
    assert g == _expected()
    assert g.n_pairs == 4  # the duplicate (ann, home) is merged


def test_tsv_and_custom_delimiter(tmp_path):
    tsv = _write_csv(tmp_path / "visits.tsv", ROWS, sep="\t")
    assert read_pairs(tsv, "user", "page") == _expected()
    semi = _write_csv(tmp_path / "visits.txt", ROWS, sep=";")
    assert read_pairs(semi, "user", "page", format="csv", delimiter=";") == _expected()


def test_csv_without_header(tmp_path):
    path = tmp_path / "raw.csv"
    path.write_text("".join(f"{p},{i}\n" for p, i in ROWS))
    assert read_pairs(path, "column0", "column1", header=False) == _expected()


def test_gzip_csv(tmp_path):
    path = tmp_path / "visits.csv.gz"
    with gzip.open(path, "wt") as f:
        f.write("user,page\n" + "".join(f"{p},{i}\n" for p, i in ROWS))
    assert read_pairs(path, "user", "page") == _expected()


def test_parquet(tmp_path):
    path = _write_parquet(
        tmp_path / "visits.parquet",
        {"user": [p for p, _ in ROWS], "page": [i for _, i in ROWS], "other": [1.0] * len(ROWS)},
    )
    assert read_pairs(path, "user", "page") == _expected()


def test_jsonl_and_json_array(tmp_path):
    records = [{"user": p, "page": i, "extra": [1, 2]} for p, i in ROWS]
    jsonl = _write_jsonl(tmp_path / "visits.jsonl", records)
    assert read_pairs(jsonl, "user", "page") == _expected()
    array = tmp_path / "visits.json"
    array.write_text(json.dumps(records))
    assert read_pairs(array, "user", "page") == _expected()


def test_glob_reads_all_parts(tmp_path):
    _write_csv(tmp_path / "part-1.csv", ROWS[:2])
    _write_csv(tmp_path / "part-2.csv", ROWS[2:])
    assert read_pairs(str(tmp_path / "part-*.csv"), "user", "page") == _expected()


def test_format_override_and_unknown_suffix(tmp_path):
    path = _write_csv(tmp_path / "visits.data", ROWS)
    with pytest.raises(InvalidParameterError, match="format"):
        read_pairs(path, "user", "page")
    assert read_pairs(path, "user", "page", format="csv") == _expected()
    with pytest.raises(InvalidParameterError, match="unknown format"):
        read_pairs(path, "user", "page", format="xlsx")


def test_default_column_names(tmp_path):
    path = _write_csv(tmp_path / "pairs.csv", ROWS, header=("person", "item"))
    assert read_pairs(path) == _expected()


# --------------------------------------------------------------------------------------------
# SQL
# --------------------------------------------------------------------------------------------


def test_sql_query_reading_a_file(tmp_path):
    path = _write_parquet(
        tmp_path / "v.parquet", {"u": [p for p, _ in ROWS], "w": [i for _, i in ROWS]}
    )
    g = read_pairs(
        sql=f"SELECT u, w FROM read_parquet('{path}') WHERE w <> 'blog';", person="u", item="w"
    )
    assert g == _expected([r for r in ROWS if r[1] != "blog"])


def test_sql_on_user_connection_leaves_no_trace():
    con = duckdb.connect()
    con.execute(
        "CREATE TABLE visits AS SELECT * FROM (VALUES (1, 'a'), (1, 'b'), (2, 'a')) t(u, w)"
    )
    before = con.execute("SELECT count(*) FROM duckdb_tables()").fetchone()
    g = read_pairs(sql="SELECT * FROM visits", person="u", item="w", connection=con)
    assert g == PersonItemGraph.from_pairs([1, 1, 2], ["a", "b", "a"])
    with pytest.raises(DataError):
        read_pairs(
            sql="SELECT u, NULL::VARCHAR AS w FROM visits", person="u", item="w", connection=con
        )
    assert con.execute("SELECT count(*) FROM duckdb_tables()").fetchone() == before
    assert con.execute("SELECT count(*) FROM duckdb_views() WHERE NOT internal").fetchone() == (0,)
    assert con.execute("SELECT count(*) FROM visits").fetchone() == (3,)


def test_sql_options_checked():
    with pytest.raises(InvalidParameterError, match="exactly one"):
        read_pairs()
    with pytest.raises(InvalidParameterError, match="exactly one"):
        read_pairs("a.csv", sql="SELECT 1")
    with pytest.raises(InvalidParameterError, match="files only"):
        read_pairs(sql="SELECT 1 AS person, 2 AS item", format="csv")
    with pytest.raises(InvalidParameterError, match="empty"):
        read_pairs(sql=" ; ")


def test_sql_errors_are_data_errors():
    with pytest.raises(DataError, match="SQL query: cannot parse the query: Parser Error"):
        read_pairs(sql="SELEC 1")
    with pytest.raises(DataError, match="no rows"):
        read_pairs(sql="SELECT 1 AS person, 'x' AS item WHERE false")


# --------------------------------------------------------------------------------------------
# Dedupe, counts, label types
# --------------------------------------------------------------------------------------------


@pytest.mark.parametrize("group_rows", [7, 1 << 20])  # many encoding groups / one
def test_duplicates_merge_across_encoding_groups(tmp_path, monkeypatch, group_rows):
    monkeypatch.setattr(TUNING, "rows_per_group", group_rows)
    rows = [(k % 7, f"w{k % 5}") for k in range(200)]  # 35 distinct pairs, many repeats
    path = _write_csv(tmp_path / "dups.csv", rows, header=("person", "item"))
    g = read_pairs(path)
    assert g == PersonItemGraph.from_pairs([p for p, _ in rows], [i for _, i in rows])
    assert g.n_pairs == 35


def test_counts_column_sums_duplicates(tmp_path):
    rows = [("a", "x", 2), ("a", "x", 3), ("b", "x", 1), ("b", "y", 0), ("c", "z", 0)]
    path = _write_csv(tmp_path / "c.csv", rows, header=("person", "item", "n"))
    g = read_pairs(path, count="n")
    assert g == PersonItemGraph.from_pairs(
        *zip(*[(p, i) for p, i, _ in rows], strict=True), counts=[c for *_, c in rows]
    )
    assert g.counts.tolist() == [5, 1]
    assert g.person_labels.tolist() == ["a", "b", "c"]  # c's only pair has count 0
    assert g.item_labels.tolist() == ["x"]


def test_counts_must_be_non_negative_integers(tmp_path):
    neg = _write_csv(tmp_path / "neg.csv", [("a", "x", -1)], header=("person", "item", "n"))
    with pytest.raises(DataError, match=r"1 negative values \(not private\)"):
        read_pairs(neg, count="n")
    frac = _write_csv(tmp_path / "frac.csv", [("a", "x", 1.5)], header=("person", "item", "n"))
    with pytest.raises(DataError, match="expected an integer type"):
        read_pairs(frac, count="n")


@settings(
    max_examples=15, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(
    st.lists(
        st.tuples(st.integers(-3, 3), st.text(alphabet="ab,\"' é😀Z\t", min_size=1, max_size=4)),
        min_size=1,
        max_size=20,
    ).filter(lambda rows: any(i.strip() for _, i in rows))
)
def test_files_agree_with_from_pairs(tmp_path, rows):
    rows = [(p, i) for p, i in rows if i.strip()]  # DuckDB's CSV reader keeps spaces, but all-blank
    expected = PersonItemGraph.from_pairs([p for p, _ in rows], [i for _, i in rows])
    columns = {"person": [p for p, _ in rows], "item": [i for _, i in rows]}
    parquet = _write_parquet(tmp_path / "h.parquet", columns)
    assert read_pairs(parquet) == expected
    csv = tmp_path / "h.csv"
    pd.DataFrame(columns).to_csv(csv, index=False)
    assert read_pairs(csv, column_types={"item": "VARCHAR"}) == expected
    jsonl = _write_jsonl(tmp_path / "h.jsonl", [{"person": p, "item": i} for p, i in rows])
    assert read_pairs(jsonl) == expected


def test_label_types_are_kept(tmp_path):
    path = _write_parquet(
        tmp_path / "t.parquet",
        {
            "i64": pa.array([5, 3], pa.int64()),
            "i16": pa.array([7, 7], pa.int16()),
            "f": pa.array([0.5, 2.25]),
            "s": ["b", "a"],
            "d": pa.array([datetime.date(2020, 1, 2), datetime.date(2020, 1, 1)], pa.date32()),
            "dec": pa.array([1, 2], pa.decimal128(10, 2)),
        },
    )
    g = read_pairs(path, person="i64", item="s")
    assert g.person_labels.dtype.kind == "i" and g.person_labels.tolist() == [3, 5]
    assert g.item_labels.tolist() == ["a", "b"]
    assert read_pairs(path, person="i16", item="f").item_labels.dtype == np.float64
    dates = read_pairs(path, person="s", item="d").item_labels
    assert dates.dtype == np.dtype("datetime64[D]")
    assert dates.tolist() == [
        np.datetime64("2020-01-01").item(),
        np.datetime64("2020-01-02").item(),
    ]
    assert read_pairs(path, person="s", item="dec").item_labels.tolist() == [1.0, 2.0]


def test_string_ids_that_look_numeric(tmp_path):
    path = _write_csv(tmp_path / "zip.csv", [("007", "x"), ("7", "y")], header=("person", "item"))
    assert read_pairs(path).person_labels.tolist() == ["007", "7"]
    ints = _write_csv(tmp_path / "ints.csv", [(1, "x"), (2, "y")], header=("person", "item"))
    assert read_pairs(ints).person_labels.tolist() == [1, 2]
    assert read_pairs(ints, column_types={"person": "VARCHAR"}).person_labels.tolist() == ["1", "2"]


def test_strings_sort_by_code_point():
    g = read_pairs(
        sql="SELECT 1 AS person, x AS item FROM (VALUES ('b'), ('B'), ('é'), ('a')) t(x)"
    )
    assert g.item_labels.tolist() == sorted(["b", "B", "é", "a"])
    con = duckdb.connect()
    con.execute("SET default_collation = 'nocase'")  # the user's collation must not merge ids
    g = read_pairs(
        sql="SELECT 1 AS person, x AS item FROM (VALUES ('b'), ('B')) t(x)", connection=con
    )
    assert g.item_labels.tolist() == ["B", "b"]


def test_unusable_label_types(tmp_path):
    with pytest.raises(DataError, match=r"INTEGER\[\].*cast it in SQL"):
        read_pairs(sql="SELECT 1 AS person, [1] AS item")
    with pytest.raises(DataError, match="BLOB"):
        read_pairs(sql="SELECT 1 AS person, 'x'::BLOB AS item")
    assert read_pairs(sql="SELECT 1::HUGEINT AS person, 1 AS item").person_labels.dtype == np.int64
    with pytest.raises(DataError, match="out of range"):
        read_pairs(sql="SELECT (2::HUGEINT ** 70)::HUGEINT AS person, 1 AS item")
    with pytest.raises(DataError, match="DECIMAL\\(20,3\\)"):
        read_pairs(sql="SELECT 1 AS person, 1.5::DECIMAL(20,3) AS item")
    g = read_pairs(sql="SELECT 'b'::ENUM('b', 'a') AS person, 1 AS item")
    assert g.person_labels.tolist() == ["b"]


# --------------------------------------------------------------------------------------------
# Nulls
# --------------------------------------------------------------------------------------------


def test_nulls_and_empty_ids_are_errors(tmp_path):
    path = tmp_path / "nulls.csv"
    path.write_text('person,item\na,x\n,y\nb,\nc,""\nd,z\n')
    with pytest.raises(DataError) as info:
        read_pairs(path)
    message = str(info.value)
    assert "3 of 5 rows (not private)" in message
    assert "1 in 'person'" in message and "2 in 'item'" in message
    assert "first in data row 2" in message and "drop_nulls=True" in message
    assert info.value.source == str(path)


def test_drop_nulls_drops_and_warns(tmp_path):
    path = tmp_path / "nulls.csv"
    path.write_text("person,item\na,x\n,y\nb,\nd,z\n")
    with pytest.warns(DroppedRowsWarning, match=r"dropped 2 of 4 rows \(not private\)") as record:
        g = read_pairs(path, drop_nulls=True)
    assert record[0].filename == __file__  # the warning points at the caller
    assert g == PersonItemGraph.from_pairs(["a", "d"], ["x", "z"])


def test_no_warning_without_nulls(tmp_path):
    path = _write_csv(tmp_path / "ok.csv", ROWS)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        read_pairs(path, "user", "page", drop_nulls=True)


def test_nan_ids_and_null_counts(tmp_path):
    path = _write_parquet(
        tmp_path / "nan.parquet",
        {
            "person": [1.0, float("nan"), 3.0],
            "item": ["a", "b", "c"],
            "who": ["x", "y", "z"],
            "n": pa.array([1, None, 2]),
        },
    )
    with pytest.raises(DataError, match="1 in 'person'"):
        read_pairs(path)
    with pytest.raises(DataError, match="1 in 'n'"):
        read_pairs(path, person="who", item="item", count="n")
    with pytest.warns(DroppedRowsWarning):
        g = read_pairs(path, drop_nulls=True)
    assert g.person_labels.tolist() == [1.0, 3.0]


def test_all_rows_dropped(tmp_path):
    path = tmp_path / "allnull.csv"
    path.write_text("person,item\n,x\n")
    with (
        pytest.warns(DroppedRowsWarning),
        pytest.raises(DataError, match=r"no rows left after dropping 1 rows \(not private\)"),
    ):
        read_pairs(path, drop_nulls=True)


# --------------------------------------------------------------------------------------------
# Broken input
# --------------------------------------------------------------------------------------------


def test_missing_column_lists_available(tmp_path):
    path = _write_csv(tmp_path / "v.csv", ROWS)
    with pytest.raises(
        DataError, match=r"item column 'word' not found; available columns: \['user', 'page'\]"
    ):
        read_pairs(path, "user", "word")


def test_missing_file_and_folder(tmp_path):
    with pytest.raises(DataError, match="file not found"):
        read_pairs(tmp_path / "nope.csv")
    with pytest.raises(DataError, match="is a folder"):
        read_pairs(tmp_path, format="parquet")
    with pytest.raises(DataError, match="No files found"):
        read_pairs(str(tmp_path / "*.csv"))


def test_empty_file_and_header_only(tmp_path):
    empty = tmp_path / "empty.csv"
    empty.write_text("")
    with pytest.raises(DataError, match="file is empty"):
        read_pairs(empty)
    header = tmp_path / "header.csv"
    header.write_text("person,item\n")
    with pytest.raises(DataError, match="no rows"):
        read_pairs(header)


def test_malformed_csv_reports_line(tmp_path):
    path = tmp_path / "bad.csv"
    body = "".join(f"p{k},i{k}\n" for k in range(30_000))
    path.write_text("person,item\n" + body + "x,y,z\n")
    with pytest.raises(DataError) as info:
        read_pairs(path)
    assert info.value.line == 30_002 and info.value.source == str(path)
    assert "Expected Number of Columns: 2 Found: 3" in str(info.value)


def test_value_not_matching_detected_type(tmp_path):
    path = tmp_path / "late.csv"
    path.write_text("person,item\n" + "".join(f"{k},x\n" for k in range(30_000)) + "abc,x\n")
    with pytest.raises(DataError, match="column_types") as info:
        read_pairs(path)
    assert info.value.line == 30_002
    assert read_pairs(path, column_types={"person": "VARCHAR"}).n_persons == 30_001


def test_malformed_jsonl_reports_line(tmp_path):
    path = tmp_path / "bad.jsonl"
    path.write_text('{"person": 1, "item": "a"}\n{"person": 2, "item": \n{"person": 3}\n')
    with pytest.raises(DataError, match="Malformed JSON") as info:
        read_pairs(path)
    assert info.value.line == 3


def test_corrupt_parquet(tmp_path):
    path = tmp_path / "bad.parquet"
    path.write_bytes(b"PAR1 this is not really parquet")
    with pytest.raises(DataError, match=re.escape(str(path))):
        read_pairs(path)
    csv_named_parquet = _write_csv(tmp_path / "csv.parquet", ROWS)
    with pytest.raises(DataError, match="not a Parquet file"):
        read_pairs(csv_named_parquet)


def test_non_utf8_file(tmp_path):
    path = tmp_path / "latin.csv"
    path.write_bytes("person,item\nJérôme,café\nann,tea\n".encode("latin-1"))
    with pytest.raises(DataError, match=r"not valid UTF-8.*encoding='latin-1'"):
        read_pairs(path)
    g = read_pairs(path, encoding="latin-1")
    assert g.person_labels.tolist() == ["Jérôme", "ann"]
    assert g.item_labels.tolist() == ["café", "tea"]


def test_csv_only_options_rejected_for_other_formats(tmp_path):
    path = _write_parquet(tmp_path / "v.parquet", {"person": ["a"], "item": ["b"]})
    with pytest.raises(InvalidParameterError, match="CSV/TSV files only"):
        read_pairs(path, delimiter=";")
    with pytest.raises(InvalidParameterError, match="CSV/TSV files only"):
        read_pairs(path, column_types={"person": "VARCHAR"})


# --------------------------------------------------------------------------------------------
# read_texts
# --------------------------------------------------------------------------------------------


_TEXT_ROWS = [
    ("ann", "To be, or not to be!"),
    ("bob", "be quick"),
    ("ann", "Or NOT."),
    ("cy", "???"),
    ("bob", ""),
]


@pytest.mark.parametrize("n", [1, 2, 3])
def test_read_texts_matches_ngram_graph(tmp_path, n):
    path = _write_jsonl(tmp_path / "t.jsonl", [{"user": p, "body": t} for p, t in _TEXT_ROWS])
    g = read_texts(path, person="user", text="body", ngram=n)
    assert g == ngram_graph([p for p, _ in _TEXT_ROWS], [t for _, t in _TEXT_ROWS], n=n)
    assert "cy" in g.person_labels.tolist()


@settings(max_examples=20, deadline=None)
@given(
    st.lists(
        st.tuples(st.integers(0, 3), st.text(alphabet="ab AB.-é\u0130\u212a1", max_size=15)),
        min_size=1,
        max_size=10,
    ),
    st.sampled_from([1, 2, 3]),
)
def test_read_texts_agrees_with_python_path(rows, n):
    con = duckdb.connect()
    con.register("texts", pa.table({"person": [p for p, _ in rows], "text": [t for _, t in rows]}))
    g = read_texts(sql="SELECT * FROM texts", ngram=n, connection=con)
    assert g == ngram_graph([p for p, _ in rows], [t for _, t in rows], n=n)


def test_sql_tokenizer_matches_python_on_every_code_point():
    strings = [f"x{chr(c)}y" for c in range(0x110000) if not 0xD800 <= c <= 0xDFFF]
    con = duckdb.connect()
    con.register("cp", pa.table({"s": strings}))
    got = con.execute(f"SELECT array_to_string({tokens_sql('s')}, ' ') FROM cp").fetchnumpy()
    sql_tokens = next(iter(got.values()))
    mismatches = [s for s, t in zip(strings, sql_tokens, strict=True) if " ".join(tokenize(s)) != t]
    assert mismatches == []


def test_read_texts_errors(tmp_path):
    with pytest.raises(InvalidParameterError, match="ngram"):
        read_texts(sql="SELECT 1 AS person, 'a' AS text", ngram=4)
    with pytest.raises(DataError, match="expected VARCHAR"):
        read_texts(sql="SELECT 1 AS person, 2 AS text")
    with pytest.raises(DataError, match="1 in 'person'"):
        read_texts(sql="SELECT NULL::INTEGER AS person, 'hi' AS text")
    with pytest.warns(DroppedRowsWarning):
        g = read_texts(
            sql="SELECT * FROM (VALUES (1, 'hi'), (NULL, 'yo')) t(person, text)", drop_nulls=True
        )
    assert g.person_labels.tolist() == [1] and g.item_labels.tolist() == ["hi"]


def test_null_text_is_no_text():
    g = read_texts(sql="SELECT * FROM (VALUES (1, 'hi'), (2, NULL)) t(person, text)")
    assert g == ngram_graph([1, 2], ["hi", ""])
    assert g.summary().persons_without_items == 1


def test_read_texts_csv(tmp_path):
    path = tmp_path / "t.csv"
    pd.DataFrame({"person": [p for p, _ in _TEXT_ROWS], "text": [t for _, t in _TEXT_ROWS]}).to_csv(
        path, index=False
    )
    g = read_texts(path)  # the empty text becomes an empty field, which DuckDB reads as NULL
    assert g == ngram_graph([p for p, _ in _TEXT_ROWS], [t for _, t in _TEXT_ROWS])


# --------------------------------------------------------------------------------------------
# write_pairs
# --------------------------------------------------------------------------------------------


@settings(
    max_examples=15, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(item_sets(min_persons=1), st.sampled_from(["csv", "parquet"]))
def test_write_read_round_trip(tmp_path, sets, fmt):
    g = PersonItemGraph.from_sets(sets)
    if g.n_pairs == 0:
        return
    path = write_pairs(g, tmp_path / f"g.{fmt}")
    with_items = g.without_persons([p for p, held in sets.items() if not held])
    assert read_pairs(path) == with_items


def test_write_with_counts_and_dates(tmp_path):
    g = PersonItemGraph.from_pairs(
        [2, 1, 2],
        np.array(["2020-01-02", "2020-01-01", "2020-01-01"], dtype="datetime64[D]"),
        counts=[1, 2, 3],
    )
    for name in ("g.csv", "g.parquet"):
        path = write_pairs(g, tmp_path / name)
        back = read_pairs(path, count="count")
        assert back.counts.tolist() == g.counts.tolist()
        assert back.person_labels.tolist() == [1, 2]
        assert back.item_labels.astype("datetime64[D]").tolist() == g.item_labels.tolist()
    assert (tmp_path / "g.csv").read_text().splitlines()[0] == "person,item,count"


def test_write_is_atomic(tmp_path, monkeypatch):
    g = PersonItemGraph.from_sets({"a": {"x"}})
    target = tmp_path / "out.csv"
    target.write_text("previous content")

    def broken_connect(*args, **kwargs):
        raise duckdb.IOException("disk full")

    monkeypatch.setattr(duckdb, "connect", broken_connect)
    with pytest.raises(DataError, match="disk full"):
        write_pairs(g, target)
    assert target.read_text() == "previous content"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["out.csv"]  # no temporary file left


def test_write_errors(tmp_path):
    g = PersonItemGraph.from_sets({"a": {"x"}})
    with pytest.raises(InvalidParameterError, match=r"\.csv or \.parquet"):
        write_pairs(g, tmp_path / "g.xlsx")
    with pytest.raises(DataError, match="does not exist"):
        write_pairs(g, tmp_path / "missing" / "g.csv")
    assert write_pairs(g, tmp_path / "g.dat", format="csv").read_text() == "person,item\na,x\n"


def test_headerless_numeric_file_says_first_row_looks_like_data(tmp_path):
    path = tmp_path / "bare.csv"
    path.write_text("1,10\n2,20\n")
    with pytest.raises(DataError, match=r"first row looks like data.*header=False"):
        read_pairs(path)
    g = read_pairs(path, "column0", "column1", header=False)
    assert g.person_labels.tolist() == [1, 2]  # the first row is kept
