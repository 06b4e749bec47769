"""``dpcount curve``: DC(D;ℓ) as a table, CSV or plot, labelled NOT PRIVATE everywhere."""

from __future__ import annotations

import csv
import io
import json
import sys
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

import matching
from dpcount import datasets, read_pairs
from dpcount.cli import main

PNG_SIGNATURE = b"\x89PNG\r\n\x1a\n"


@pytest.fixture
def visits(tmp_path: Path) -> Path:
    """Users visiting pages; user u0 visits many pages, the others a few."""
    rows = [f"u{p},page{(3 * p + j) % 30}" for p in range(40) for j in range(1 + p % 4)]
    rows += [f"u0,page{j}" for j in range(30)]
    path = tmp_path / "visits.csv"
    path.write_text("uid,page\n" + "\n".join(rows) + "\n")
    return path


def table_values(out: str) -> list[int]:
    lines = out.splitlines()
    assert lines[0].startswith("# NOT PRIVATE: DC(D;ℓ) of ")
    assert lines[1].split() == ["ℓ", "DC(D;ℓ)"]
    rows = [line.split() for line in lines[2:]]
    assert [int(ell) for ell, _ in rows] == list(range(1, len(rows) + 1))
    return [int(value) for _, value in rows]


def assert_user_error(capsys: pytest.CaptureFixture[str], args: list[str], message: str) -> None:
    assert main(args) == 2
    captured = capsys.readouterr()
    assert captured.out == ""
    lines = captured.err.strip().splitlines()
    assert len(lines) == 1, captured.err
    assert lines[0].startswith("dpcount curve: error: ") and message in lines[0], lines[0]


def test_table_on_stdout(capsys):
    assert main(["curve", "--dataset", "fashion-like", "--ell-max", "30"]) == 0
    captured = capsys.readouterr()
    expected = matching.dc_curve(datasets.load("fashion-like"), 30)
    assert table_values(captured.out) == expected.tolist()
    assert "exact (incremental)" in captured.out.splitlines()[0]
    assert captured.err == ""


@pytest.mark.parametrize("method", ["flow", "hopcroft_karp", "greedy"])
def test_methods(visits, capsys, method):
    args = ["curve", str(visits), "--person", "uid", "--item", "page", "--ell-max", "12"]
    assert main([*args, "--method", method]) == 0
    graph = read_pairs(visits, person="uid", item="page")
    assert table_values(capsys.readouterr().out) == matching.dc_curve(graph, 12, method).tolist()


def test_sampling_is_reproducible_with_a_seed(capsys):
    args = ["curve", "--dataset", "fashion-like", "--ell-max", "8", "--method", "sampling"]
    outputs = []
    for _ in range(2):
        assert main([*args, "--seed", "4"]) == 0
        outputs.append(capsys.readouterr().out)
    assert outputs[0] == outputs[1]
    graph = datasets.load("fashion-like")
    expected = matching.dc_curve(graph, 8, method="sampling", rng=4)
    assert table_values(outputs[0]) == expected.tolist()


def test_csv_file(tmp_path, capsys):
    """A plain CSV table (``pandas.read_csv`` misread the old ``# NOT PRIVATE`` first line); the
    notice goes to stderr and into the column name."""
    target = tmp_path / "curve.csv"
    args = ["curve", "--dataset", "southern-women", "--ell-max", "5", "--csv"]
    assert main([*args, "--output", str(target)]) == 0
    captured = capsys.readouterr()
    assert captured.out == ""
    assert f"wrote 5 rows to {target} (NOT PRIVATE)" in captured.err
    assert "dpcount curve: note: NOT PRIVATE: DC(D;ℓ) of southern-women" in captured.err
    rows = list(csv.DictReader(target.read_text(encoding="utf-8").splitlines()))
    expected = matching.dc_curve(datasets.load("southern-women"), 5)
    assert [int(r["ell"]) for r in rows] == [1, 2, 3, 4, 5]
    assert [int(r["dc_not_private"]) for r in rows] == expected.tolist()
    assert sorted(p.name for p in tmp_path.iterdir()) == ["curve.csv"]  # no temporary left
    frame = pd.read_csv(target)
    assert list(frame.columns) == ["ell", "dc_not_private"]
    assert frame["dc_not_private"].tolist() == expected.tolist()


def test_old_csv_file_spelling_still_writes_and_warns(tmp_path, capsys):
    """``curve --csv FILE`` (one meaning of --csv in curve, another in count) still works."""
    old, new = tmp_path / "old.csv", tmp_path / "new.csv"
    args = ["curve", "--dataset", "southern-women", "--ell-max", "5"]
    assert main([*args, "--csv", str(old)]) == 0
    assert capsys.readouterr().err.startswith(
        "dpcount curve: warning: --csv FILE is deprecated; use --csv --output FILE\n"
    )
    assert main([*args, "--csv", "--output", str(new)]) == 0
    assert "deprecated" not in capsys.readouterr().err
    assert old.read_text() == new.read_text()


def test_csv_and_json_on_stdout(capsys):
    args = ["curve", "--dataset", "southern-women", "--ell-max", "20"]
    expected = matching.dc_curve(datasets.load("southern-women"), 8)  # max degree 8
    assert main([*args, "--csv"]) == 0
    frame = pd.read_csv(io.StringIO(capsys.readouterr().out))
    assert frame["dc_not_private"].tolist() == expected.tolist()
    assert main([*args, "--json"]) == 0
    doc = json.loads(capsys.readouterr().out)
    assert (doc["result"], doc["is_private"], doc["ell_max"]) == ("dc_curve", False, 20)
    assert doc["ell"] == list(range(1, 9))
    assert np.array_equal(np.asarray(doc["dc_not_private"]), expected)


def test_png_plot_is_titled_not_private(tmp_path, capsys, monkeypatch):
    from matplotlib.figure import Figure

    titles = []
    savefig = Figure.savefig

    def spy(self, *args, **kwargs):
        titles.append(self.axes[0].get_title())
        return savefig(self, *args, **kwargs)

    monkeypatch.setattr(Figure, "savefig", spy)
    target = tmp_path / "curve.png"
    csv_target = tmp_path / "curve.csv"
    args = ["curve", "--dataset", "fashion-like", "--ell-max", "20"]
    assert main([*args, "--plot", str(target), "--csv", "--output", str(csv_target)]) == 0
    captured = capsys.readouterr()
    assert captured.out == "" and "(NOT PRIVATE)" in captured.err
    assert target.read_bytes().startswith(PNG_SIGNATURE)
    assert csv_target.exists()
    assert len(titles) == 1 and titles[0].startswith("NOT PRIVATE – DC(D;ℓ) of fashion-like")
    assert sorted(p.name for p in tmp_path.iterdir()) == ["curve.csv", "curve.png"]


def test_svg_plot(tmp_path, capsys):
    target = tmp_path / "curve.svg"
    assert main(["curve", "--dataset", "southern-women", "--plot", str(target)]) == 0
    assert target.read_text().lstrip().startswith("<?xml")


def test_plot_without_matplotlib_fails_early(tmp_path, capsys, monkeypatch):
    monkeypatch.setitem(sys.modules, "matplotlib", None)  # makes `import matplotlib` fail
    target = tmp_path / "curve.png"
    args = ["curve", "--dataset", "southern-women", "--plot", str(target)]
    assert_user_error(capsys, args, "--plot needs matplotlib, which is not installed")
    assert not target.exists()


@pytest.mark.parametrize(
    ("extra", "message"),
    [
        (["--method", "bogus"], "argument --method: invalid choice: 'bogus'"),
        (["--ell-max", "0"], "argument --ell-max: ell-max must be a positive integer"),
        (["--seed", "1"], "--seed applies to --method sampling only"),
        (["--plot", "curve.gif"], "--plot must end in .png, .svg or .pdf"),
        (
            ["--csv", "--output", "/no/such/folder/c.csv"],
            "--output '/no/such/folder/c.csv': folder '/no/such/folder' does not exist",
        ),
        (["--csv", "--json"], "argument --json: not allowed with argument --csv"),
        (["--dataset", "nope"], "unknown data set 'nope'"),
    ],
)
def test_bad_options(capsys, extra, message):
    assert_user_error(capsys, ["curve", "--dataset", "southern-women", *extra], message)


def test_missing_column_and_unreadable_file(visits, tmp_path, capsys):
    args = ["curve", str(visits), "--person", "user", "--item", "page"]
    assert_user_error(capsys, args, "person column 'user' not found")
    assert_user_error(capsys, ["curve", str(tmp_path / "no.csv")], "file not found")


def test_csv_to_a_folder_is_refused(tmp_path, capsys):
    args = ["curve", "--dataset", "southern-women", "--csv", "--output", str(tmp_path)]
    assert_user_error(capsys, args, "is a folder; give a file name")
