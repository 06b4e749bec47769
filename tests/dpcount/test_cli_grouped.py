"""``dpcount count --group``: one private bound per group as a table, CSV or JSON."""

from __future__ import annotations

import csv
import io
import json
import subprocess
import sys
from pathlib import Path

import pytest

from dpcount.cli import main
from dpcount.io import read_triples
from mechanisms.grouped_counts import grouped_distinct_count

ARGS = ["--person", "user", "--item", "product", "--group", "region", "--max-groups", "2"]


@pytest.fixture
def sales(tmp_path: Path) -> Path:
    """90 users, each in 1–3 of three regions (integer keys) with 2 products there."""
    rows = [
        f"u{p},{(p + g) % 3},item{(5 * p + 7 * g + j) % 80}"
        for p in range(90)
        for g in range(1 + p % 3)
        for j in range(2)
    ]
    path = tmp_path / "sales.csv"
    path.write_text("user,region,product\n" + "\n".join(rows) + "\n")
    return path


@pytest.fixture
def keys(tmp_path: Path) -> Path:
    path = tmp_path / "keys.txt"
    path.write_text("0\n2\n\n7\n")
    return path


def test_csv_equals_the_library_release(sales, keys, capsys):
    assert (
        main(["count", str(sales), *ARGS, "--groups-file", str(keys), "--csv", "--seed", "4"]) == 0
    )
    rows = list(csv.DictReader(io.StringIO(capsys.readouterr().out)))
    graph = read_triples(sales, person="user", group="region", item="product")
    expected = grouped_distinct_count(graph, 1.0, groups=[0, 2, 7], max_groups=2, rng=4)
    assert [r["group"] for r in rows] == ["0", "2", "7"]
    assert [float(r["estimate"]) for r in rows] == [r.estimate for r in expected.rows]
    assert rows[2]["lower_bound"] == "0"  # key 7 is not in the data


def test_table_and_json(sales, keys, capsys):
    assert main(["count", str(sales), *ARGS, "--groups-file", str(keys), "--seed", "1"]) == 0
    text = capsys.readouterr().out
    assert "keys: public" in text and text.splitlines()[1].split()[:2] == ["group", "at"]
    assert main(["count", str(sales), *ARGS, "--delta", "1e-6", "--json", "--seed", "1"]) == 0
    doc = json.loads(capsys.readouterr().out)
    assert doc["selection"] == "weighted_gaussian" and doc["privacy_loss"]["delta"] == 1e-6
    assert doc["source"]["group"] == "region"


@pytest.mark.parametrize(
    ("extra", "message"),
    [
        (["--max-groups", "0"], "max-groups"),
        (["--groups-file", "missing.txt"], "missing.txt"),
        (["--delta", "1e-6", "--json", "--csv"], "--csv: not allowed with argument --json"),
        ([], "--delta"),
    ],
)
def test_bad_options_one_line(sales, capsys, extra, message):
    assert main(["count", str(sales), *ARGS, *extra]) == 2
    err = capsys.readouterr().err
    assert message in err and len(err.strip().splitlines()) == 1


def test_group_options_need_group_and_column_must_exist(sales, keys, capsys):
    assert (
        main(["count", str(sales), "--person", "user", "--item", "product", "--max-groups", "2"])
        == 2
    )
    assert "--max-groups applies with --group" in capsys.readouterr().err
    bad = ["count", str(sales), *ARGS[:5], "forum", "--max-groups", "1", "--groups-file", str(keys)]
    assert main(bad) == 2
    assert "group column 'forum' not found" in capsys.readouterr().err


def test_empty_groups_file_is_one_clear_error(sales, tmp_path, capsys):
    empty = tmp_path / "none.txt"
    empty.write_text("\n")
    assert main(["count", str(sales), *ARGS, "--groups-file", str(empty)]) == 2
    assert "holds no group keys; write one key per line" in capsys.readouterr().err


def test_python_m_dpcount(sales, keys):
    out = subprocess.run(
        [
            sys.executable,
            "-m",
            "dpcount",
            "count",
            str(sales),
            *ARGS,
            "--groups-file",
            str(keys),
            "--csv",
        ],
        capture_output=True,
        text=True,
        check=True,
    ).stdout
    assert out.splitlines()[0] == "group,lower_bound,estimate,ell,scale"
