"""``dpcount count --ell``: a public contribution bound reaches the mechanism, plain and grouped."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from dpcount import datasets
from dpcount.cli import main
from dpcount.io import read_triples
from mechanisms.distinct_count import dp_distinct_count
from mechanisms.grouped_counts import grouped_distinct_count
from tests.dpcount.cli_errors import one_line_error


def test_public_ell_spends_all_of_epsilon_on_the_count(capsys):
    args = ["count", "--dataset", "fashion-like", "--epsilon", "2", "--ell", "3", "--seed", "5"]
    assert main([*args, "--json"]) == 0
    doc = json.loads(capsys.readouterr().out)
    expected = dp_distinct_count(datasets.load("fashion-like"), 2.0, ell=3, rng=5)
    assert (doc["estimate"], doc["ell"], doc["selection"]) == (expected.estimate, 3, "public")
    assert doc["scale"] == 1.5  # ℓ/ε, not 2ℓ/ε
    assert main(args) == 0
    assert "nothing was spent choosing it" in " ".join(capsys.readouterr().out.split())


@pytest.mark.parametrize(
    ("value", "words"),
    [
        ("0", "ell must be a positive integer"),
        ("2.5", "expected a whole number"),
        ("2147483648", "must be at most 2147483647"),  # the CLI's cap on every count of items
        ("9" * 400, "must be at most 2147483647"),  # refused while parsing, not echoed
    ],
)
def test_bad_ell_is_refused_while_parsing_in_one_line(capsys, value, words):
    # The file does not exist: an error about --ell shows the flag was checked before reading.
    args = ["count", "missing.csv", "--ell", value]
    one_line_error(capsys, args, f"argument --ell: {words}")


@pytest.fixture
def sales(tmp_path: Path) -> Path:
    """60 users, each in one of three regions with 2 products there."""
    rows = [f"u{p},{p % 3},item{(5 * p + j) % 40}" for p in range(60) for j in range(2)]
    path = tmp_path / "sales.csv"
    path.write_text("user,region,product\n" + "\n".join(rows) + "\n")
    return path


def test_grouped_public_ell(sales, tmp_path, capsys):
    keys = tmp_path / "keys.txt"
    keys.write_text("0\n1\n2\n")
    args = ["--person", "user", "--item", "product", "--group", "region", "--max-groups", "1"]
    options = ["--groups-file", str(keys), "--ell", "2", "--seed", "4", "--json"]
    assert main(["count", str(sales), *args, *options]) == 0
    doc = json.loads(capsys.readouterr().out)
    graph = read_triples(sales, person="user", group="region", item="product")
    expected = grouped_distinct_count(graph, 1.0, groups=[0, 1, 2], max_groups=1, ell=2, rng=4)
    assert [row["estimate"] for row in doc["rows"]] == [r.estimate for r in expected.rows]
    assert doc["ell_choice"] == "public" and doc["ell_epsilon"] == 0.0
    assert all(row["ell"] == 2 and row["scale"] == 2.0 for row in doc["rows"])
