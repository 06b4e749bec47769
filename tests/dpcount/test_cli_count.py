"""``dpcount count``: the private lower bound from files, SQL and built-in data sets."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from dpcount import datasets, read_pairs
from dpcount.cli import main
from mechanisms.distinct_count import COUNTINGS, dp_distinct_count

JSON_FIELDS = {
    "estimate",
    "lower_bound",
    "confidence",
    "ell",
    "epsilon",
    "beta",
    "ell_max",
    "counting",
    "selection",
    "noise",
    "secure",
    "privacy_loss",
    "source",
    "seed",
}


@pytest.fixture
def reviews(tmp_path: Path) -> Path:
    """60 users with 3 of 50 products each, under non-default column names."""
    rows = [f"u{p},item{(7 * p + j) % 50}" for p in range(60) for j in range(3)]
    path = tmp_path / "reviews.csv"
    path.write_text("user,product\n" + "\n".join(rows) + "\n")
    return path


def run_json(capsys: pytest.CaptureFixture[str], *args: str) -> dict:
    assert main(["count", *args, "--json"]) == 0
    return json.loads(capsys.readouterr().out)


def assert_user_error(capsys: pytest.CaptureFixture[str], args: list[str], message: str) -> None:
    assert main(args) == 2
    captured = capsys.readouterr()
    assert captured.out == ""
    lines = captured.err.strip().splitlines()
    assert len(lines) == 1, captured.err
    assert lines[0].startswith("dpcount count: error: "), lines[0]
    assert message in lines[0]
    assert "Traceback" not in captured.err


def test_human_output_states_bound_confidence_epsilon_and_ell(capsys):
    assert main(["count", "--dataset", "fashion-like", "--seed", "4"]) == 0
    captured = capsys.readouterr()
    expected = dp_distinct_count(datasets.load("fashion-like"), 1.0, rng=4)
    first, *rest = captured.out.splitlines()
    assert first.startswith(f"fashion-like: at least {expected.estimate:,} distinct items")
    assert "ε = 1" in first and f"ℓ = {expected.ell}" in first
    text = " ".join(rest)
    assert "With probability ≥ 95%" in text and "ε = 1 spent" in text
    assert all(len(line) <= 100 for line in captured.out.splitlines())
    # The only stderr line is the reminder that a seed is for research.
    assert captured.err.strip() == (
        "dpcount count: note: --seed 4 makes this release reproducible: for research only"
    )


def test_json_has_the_fields_and_matches_the_library(capsys):
    doc = run_json(capsys, "--dataset", "fashion-like", "--seed", "11")
    assert JSON_FIELDS <= doc.keys()
    expected = dp_distinct_count(datasets.load("fashion-like"), 1.0, rng=11)
    assert doc["estimate"] == expected.estimate and doc["ell"] == expected.ell
    assert doc["lower_bound"] == max(0, expected.estimate)
    assert (doc["epsilon"], doc["beta"], doc["ell_max"]) == (1.0, 0.05, 100)
    assert (doc["counting"], doc["selection"], doc["noise"]) == ("matching", "gem", "exact")
    assert doc["secure"] is True and doc["confidence"] == pytest.approx(0.95)
    assert doc["privacy_loss"]["epsilon"] == 1.0 and doc["privacy_loss"]["delta"] == 0.0
    assert doc["privacy_loss"]["private"] is True
    assert doc["source"] == {
        "kind": "dataset",
        "name": "fashion-like",
        "scale_factor": 1.0,
        "data_seed": 0,
    }
    assert doc["seed"] == 11


def test_options_reach_the_mechanism(capsys):
    args = ["--dataset", "fashion-like", "--scale-factor", "0.5", "--data-seed", "2", "--seed", "5"]
    options = ["--epsilon", "2", "--beta", "0.1", "--ell-max", "10", "--counting", "greedy"]
    doc = run_json(capsys, *args, *options)
    graph = datasets.load("fashion-like", scale_factor=0.5, seed=2)
    expected = dp_distinct_count(graph, 2.0, beta=0.1, ell_max=10, counting="greedy", rng=5)
    assert (doc["estimate"], doc["ell"]) == (expected.estimate, expected.ell)
    assert (doc["epsilon"], doc["beta"], doc["ell_max"], doc["counting"]) == (
        2.0,
        0.1,
        10,
        "greedy",
    )
    assert doc["source"]["scale_factor"] == 0.5 and doc["source"]["data_seed"] == 2


@pytest.mark.parametrize("counting", COUNTINGS)
def test_same_seed_same_release(capsys, counting):
    args = ["--dataset", "southern-women", "--counting", counting, "--seed", "8", "--ell-max", "5"]
    assert run_json(capsys, *args) == run_json(capsys, *args)


def test_without_seed_uses_fresh_entropy(capsys):
    docs = [run_json(capsys, "--dataset", "fashion-like", "--epsilon", "0.2") for _ in range(6)]
    assert all(doc["seed"] is None for doc in docs)
    assert len({doc["estimate"] for doc in docs}) > 1  # equal six times: ~impossible at scale 20


def test_from_a_file_with_named_columns(reviews, capsys):
    doc = run_json(capsys, str(reviews), "--person", "user", "--item", "product", "--seed", "1")
    graph = read_pairs(reviews, person="user", item="product")
    assert doc["estimate"] == dp_distinct_count(graph, 1.0, rng=1).estimate
    assert doc["source"] == {
        "kind": "file",
        "path": str(reviews),
        "person": "user",
        "item": "product",
    }


def test_format_option_overrides_the_suffix(reviews, capsys):
    renamed = reviews.rename(reviews.with_suffix(".txt"))
    args = [str(renamed), "--format", "csv", "--person", "user", "--item", "product"]
    doc = run_json(capsys, *args, "--seed", "1")
    assert doc["source"]["format"] == "csv"


def test_from_a_sql_query(reviews, capsys):
    query = f"SELECT user AS person, product AS item FROM read_csv('{reviews}')"
    doc = run_json(capsys, "--sql", query, "--seed", "3")
    graph = read_pairs(reviews, person="user", item="product")
    assert doc["estimate"] == dp_distinct_count(graph, 1.0, rng=3).estimate
    assert doc["source"]["kind"] == "sql" and doc["source"]["query"] == query


def test_json_output_is_only_json_and_quiet(capsys):
    assert main(["count", "--dataset", "southern-women", "--json"]) == 0
    captured = capsys.readouterr()
    json.loads(captured.out)
    assert captured.err == ""  # no seed note, no progress


def test_drop_nulls_warns_in_one_line(tmp_path, capsys):
    path = tmp_path / "gaps.csv"
    path.write_text("person,item\na,x\n,y\nb,z\n")
    assert main(["count", str(path), "--drop-nulls", "--json"]) == 0
    captured = capsys.readouterr()
    json.loads(captured.out)
    lines = captured.err.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("dpcount count: warning: ")
    assert "dropped" in lines[0].lower()


@pytest.mark.parametrize(
    ("extra", "message"),
    [
        (["--epsilon", "0"], "argument --epsilon: epsilon must be finite and > 0"),
        (["--epsilon", "-1"], "argument --epsilon: epsilon must be finite and > 0"),
        (["--epsilon", "inf"], "argument --epsilon: epsilon must be finite and > 0"),
        (["--epsilon", "nan"], "argument --epsilon: epsilon must be finite and > 0"),
        (["--epsilon", "one"], "argument --epsilon: expected a number, got 'one'"),
        (["--beta", "0.5"], "argument --beta: beta must lie in (0, 0.5)"),
        (["--ell-max", "0"], "argument --ell-max: ell-max must be a positive integer"),
        (["--ell-max", "2.5"], "argument --ell-max: expected a whole number, got '2.5'"),
        (["--seed", "-3"], "argument --seed: seed must be a non-negative integer"),
        (["--counting", "exact"], "argument --counting: invalid choice: 'exact'"),
        (["--person", "user"], "--person applies to a FILE or --sql"),
        (["--format", "csv"], "--format applies to a FILE or --sql"),
        (["--scale-factor", "0"], "scale factor must be a positive number"),
    ],
)
def test_bad_options(capsys, extra, message):
    assert_user_error(capsys, ["count", "--dataset", "southern-women", *extra], message)


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--dataset", "nope"], "argument --dataset: unknown data set 'nope'; choose one of"),
        ([], "give exactly one data source: a FILE, --sql QUERY or --dataset NAME"),
        (["x.csv", "--dataset", "southern-women"], "(got FILE and --dataset)"),
        (["--sql", "SELECT 1", "--dataset", "southern-women"], "(got --sql and --dataset)"),
        (["x.csv", "--scale", "2"], "--scale-factor applies to --dataset only"),
        (["x.csv", "--data-seed", "2"], "--data-seed applies to --dataset only"),
        (["--sql", "SELECT 1 AS person, 2 AS item", "--format", "csv"], "--format applies"),
        (["--sql", "SELEC 1"], "SQL query: cannot parse the query"),
    ],
)
def test_bad_sources(capsys, args, message):
    assert_user_error(capsys, ["count", *args], message)


def test_missing_column(reviews, capsys):
    args = ["count", str(reviews), "--person", "user", "--item", "prodcut"]
    assert_user_error(capsys, args, "item column 'prodcut' not found; available columns")
    assert_user_error(capsys, ["count", str(reviews)], "person column 'person' and item column")


def test_unreadable_files(tmp_path, capsys):
    assert_user_error(capsys, ["count", str(tmp_path / "none.csv")], "file not found")
    assert_user_error(capsys, ["count", str(tmp_path)], "cannot tell the format")
    empty = tmp_path / "empty.csv"
    empty.touch()
    assert_user_error(capsys, ["count", str(empty)], "file is empty")
    binary = tmp_path / "data.parquet"
    binary.write_bytes(b"not parquet at all")
    assert_user_error(capsys, ["count", str(binary)], str(binary))
    assert_user_error(capsys, ["count", str(tmp_path / "data.xlsx")], "cannot tell the format")


def test_negative_estimate_is_reported_as_zero(capsys):
    args = ["count", "--dataset", "southern-women", "--epsilon", "0.05", "--seed", "2"]
    expected = dp_distinct_count(datasets.load("southern-women"), 0.05, rng=2)
    assert expected.estimate < 0  # tiny data, tiny ε: the noise shift dominates
    assert main(args) == 0
    out = capsys.readouterr().out
    assert out.startswith("southern-women: at least 0 distinct items")
    assert f"the raw estimate {expected.estimate} is negative" in " ".join(out.split())
    doc = run_json(capsys, *args[1:])
    assert (doc["estimate"], doc["lower_bound"]) == (expected.estimate, 0)
