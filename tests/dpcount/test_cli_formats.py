"""One meaning per output option, and one shape per format (issue 27, item 2).

``--json`` on every subcommand reads back into the result types; grouped and ungrouped JSON
share their fields and agree with the tables; CSV output is read by ``pandas.read_csv``;
``--output FILE`` is the file of every subcommand; reported column names are the user's.
"""

from __future__ import annotations

import io
import json
import warnings
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

import matching
import mechanisms.set_union as set_union
from dpcount import datasets, read_pairs
from dpcount.cli import main
from dpcount.errors import LargeDeltaWarning
from dpcount.graph import GraphSummary
from dpcount.io.triples import read_triples
from mechanisms.distinct_count import DistinctCountResult, dp_distinct_count
from mechanisms.grouped_counts import GroupedDistinctCountResult, grouped_distinct_count
from mechanisms.set_union import SetUnionResult

#: Fields every private release's JSON carries, grouped or not.
SHARED = {"result", "mechanism", "is_private", "secure", "source", "seed", "dpcount_version"}


@pytest.fixture
def sales(tmp_path: Path) -> Path:
    """60 customers in two regions: 'big' (all of them, 6 products each) and 'tiny' (two)."""
    rows = [f"c{p},big,p{(p * 7 + j) % 50}" for p in range(60) for j in range(6)]
    rows += ["c0,tiny,p1", "c1,tiny,p2"]
    path = tmp_path / "sales.csv"
    path.write_text("customer,region,product\n" + "\n".join(rows) + "\n")
    return path


@pytest.fixture
def keys(tmp_path: Path) -> Path:
    path = tmp_path / "regions.txt"
    path.write_text("big\ntiny\n")
    return path


COLUMNS = ["--person", "customer", "--item", "product"]
GROUPED = [*COLUMNS, "--group", "region", "--max-groups", "1"]


def stdout_of(capsys: pytest.CaptureFixture[str], args: list[str]) -> str:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        assert main(args) == 0
    return capsys.readouterr().out


# --------------------------------------------------------------------------------------------
# --json on every subcommand, read back into the result types
# --------------------------------------------------------------------------------------------


def test_count_json_round_trips(sales, capsys):
    doc_text = stdout_of(capsys, ["count", str(sales), *COLUMNS, "--json", "--seed", "3"])
    expected = dp_distinct_count(read_pairs(sales, person="customer", item="product"), 1.0, rng=3)
    back = DistinctCountResult.from_json(doc_text)
    assert back == expected and back.seeded


def test_grouped_json_round_trips(sales, keys, capsys):
    args = ["count", str(sales), *GROUPED, "--groups-file", str(keys), "--json", "--seed", "2"]
    doc = json.loads(stdout_of(capsys, args))
    graph = read_triples(sales, person="customer", group="region", item="product")
    expected = grouped_distinct_count(graph, 1.0, groups=["big", "tiny"], max_groups=1, rng=2)
    assert GroupedDistinctCountResult.from_dict(doc) == expected


def test_union_json_round_trips(sales, capsys):
    args = ["union", str(sales), *COLUMNS, "--json", "--seed", "5", "--epsilon", "4"]
    back = SetUnionResult.from_json(stdout_of(capsys, [*args, "--delta", "1e-3"]))
    graph = read_pairs(sales, person="customer", item="product")
    with pytest.warns(LargeDeltaWarning):  # δ = 10⁻³ is above 1/n for these persons
        expected = set_union.dp_sips(graph, 4.0, 1e-3, max_items=100, rng=5)
    assert expected.count > 0
    assert np.array_equal(back.items, expected.items)
    assert (back.count, back.privacy_loss, back.threshold) == (
        expected.count,
        expected.privacy_loss,
        expected.threshold,
    )


def test_curve_json_round_trips(sales, capsys):
    doc = json.loads(stdout_of(capsys, ["curve", str(sales), *COLUMNS, "--json"]))
    graph = read_pairs(sales, person="customer", item="product")
    largest = int(graph.degrees().max())  # rows stop where the curve becomes constant
    expected = matching.dc_curve(graph, largest)
    assert np.array_equal(np.asarray(doc["dc_not_private"], dtype=np.int64), expected)
    assert (doc["result"], doc["is_private"]) == ("dc_curve", False)
    assert doc["ell"] == list(range(1, largest + 1))


def test_datasets_json_round_trips(capsys):
    listing = json.loads(stdout_of(capsys, ["datasets", "--json"]))
    assert [d["name"] for d in listing["datasets"]] == datasets.names()
    doc = json.loads(stdout_of(capsys, ["datasets", "southern-women", "--json"]))
    assert GraphSummary(**doc["summary"]) == datasets.load("southern-women").summary()
    assert (doc["result"], doc["is_private"]) == ("GraphSummary", False)


# --------------------------------------------------------------------------------------------
# Grouped and ungrouped JSON share their fields and agree with the tables
# --------------------------------------------------------------------------------------------


def test_grouped_and_ungrouped_json_share_the_release_fields(sales, keys, capsys):
    plain = json.loads(stdout_of(capsys, ["count", str(sales), *COLUMNS, "--json"]))
    args = ["count", str(sales), *GROUPED, "--groups-file", str(keys), "--json"]
    grouped = json.loads(stdout_of(capsys, args))
    for doc in (plain, grouped):
        assert SHARED | {"confidence", "epsilon", "beta", "privacy_loss"} <= set(doc)
        assert doc["is_private"] is True and doc["secure"] is True
    assert plain["lower_bound"] == max(0, int(np.ceil(plain["estimate"])))
    assert plain["confidence"] == grouped["confidence"] == 0.95
    for row in grouped["rows"]:
        assert row["lower_bound"] == max(0, int(np.ceil(row["estimate"])))


def test_negative_estimate_one_truth_in_table_csv_and_json(sales, keys, capsys):
    """JSON showed -13 where the table showed 0: ``estimate`` is ν̂ as released and
    ``lower_bound`` the bound every format shows (0 for a negative ν̂)."""
    args = ["count", str(sales), *GROUPED, "--groups-file", str(keys), "--seed", "1"]
    doc = json.loads(stdout_of(capsys, [*args, "--json"]))
    table = pd.read_csv(io.StringIO(stdout_of(capsys, [*args, "--csv"])))
    text = stdout_of(capsys, args)
    tiny = next(row for row in doc["rows"] if row["group"] == "tiny")
    assert tiny["estimate"] < 0 and tiny["lower_bound"] == 0  # two persons: noise dominates
    csv_tiny = table[table["group"] == "tiny"].iloc[0]
    assert (csv_tiny["estimate"], csv_tiny["lower_bound"]) == (tiny["estimate"], 0)
    text_row = next(line.split() for line in text.splitlines() if line.startswith("tiny "))
    assert text_row[1] == "0"
    for row in doc["rows"]:  # every format gives each group the same bound
        line = next(line.split() for line in text.splitlines() if line.startswith(row["group"]))
        assert line[1].replace(",", "") == str(row["lower_bound"])


def test_a_seed_makes_the_release_say_it_is_not_private(sales, capsys):
    """Whoever knows the seed can remove the noise: the JSON and the text say so."""
    args = ["count", str(sales), *COLUMNS]
    seeded = json.loads(stdout_of(capsys, [*args, "--json", "--seed", "1"]))
    assert (seeded["is_private"], seeded.get("seeded")) == (False, True)
    assert "SEEDED, NOT PRIVATE" in stdout_of(capsys, [*args, "--seed", "1"])
    fresh = json.loads(stdout_of(capsys, [*args, "--json"]))
    assert (fresh["is_private"], fresh.get("seeded")) == (True, None)


# --------------------------------------------------------------------------------------------
# CSV that CSV readers read, and --output everywhere
# --------------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("args", "columns"),
    [
        (["count", "SALES", *COLUMNS], ["lower_bound", "estimate", "ell", "epsilon"]),
        (["count", "SALES", *GROUPED, "--groups-file", "KEYS"], ["group", "lower_bound"]),
        (["curve", "SALES", *COLUMNS], ["ell", "dc_not_private"]),
        (["union", "SALES", *COLUMNS, "--epsilon", "5", "--delta", "0.01"], ["item"]),
    ],
    ids=["count", "grouped", "curve", "union"],
)
def test_csv_is_read_by_pandas(sales, keys, capsys, args, columns):
    args = [str(sales) if a == "SALES" else str(keys) if a == "KEYS" else a for a in args]
    seed = [] if args[0] == "curve" else ["--seed", "1"]
    frame = pd.read_csv(io.StringIO(stdout_of(capsys, [*args, "--csv", *seed])))
    assert list(frame.columns[: len(columns)]) == columns and len(frame) >= 1


@pytest.mark.parametrize("fmt", ["--json", "--csv", None])
@pytest.mark.parametrize("command", ["count", "grouped", "curve", "union"])
def test_output_file_holds_what_stdout_would(sales, keys, tmp_path, capsys, command, fmt):
    args = (
        {
            "count": ["count", str(sales), *COLUMNS],
            "grouped": ["count", str(sales), *GROUPED, "--groups-file", str(keys)],
            "curve": ["curve", str(sales), *COLUMNS],
            "union": ["union", str(sales), *COLUMNS, "--epsilon", "5", "--delta", "0.01"],
        }[command]
        + ([fmt] if fmt else [])
        + ([] if command == "curve" else ["--seed", "7"])
    )
    printed = stdout_of(capsys, args)
    target = tmp_path / "out.txt"
    assert stdout_of(capsys, [*args, "--output", str(target)]) == ""
    assert target.read_text(encoding="utf-8") == printed


def test_groups_file_is_an_input_no_output_may_replace(sales, keys, capsys):
    args = ["count", str(sales), *GROUPED, "--groups-file", str(keys), "--output", str(keys)]
    assert main(args) == 2
    assert "is the input file" in capsys.readouterr().err
    assert keys.read_text() == "big\ntiny\n"


# --------------------------------------------------------------------------------------------
# The user's column names
# --------------------------------------------------------------------------------------------


def test_headerless_columns_are_reported_by_the_users_names(tmp_path, capsys):
    """``--columns a,b --json`` reported the source's columns as column0/column1."""
    path = tmp_path / "rows.tsv"
    path.write_text("".join(f"c{p}\tr{p % 2}\tp{p % 7}\n" for p in range(40)))
    args = ["--no-header", "--columns", "who,where,what", "--person", "who", "--item", "what"]
    plain = json.loads(stdout_of(capsys, ["count", str(path), *args, "--json"]))
    assert (plain["source"]["person"], plain["source"]["item"]) == ("who", "what")
    assert plain["source"]["columns"] == ["who", "where", "what"]
    grouped_args = [*args, "--group", "where", "--max-groups", "1", "--delta", "1e-6"]
    grouped = json.loads(stdout_of(capsys, ["count", str(path), *grouped_args, "--json"]))
    source = grouped["source"]
    assert (source["person"], source["item"], source["group"]) == ("who", "what", "where")
