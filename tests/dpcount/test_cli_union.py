"""``dpcount union``: a private set of items on stdout or in a file, summary on stderr."""

from __future__ import annotations

import io
import json
from pathlib import Path

import pytest

import mechanisms.set_union as set_union
from dpcount import PersonItemGraph, datasets, read_pairs
from dpcount.cli import _union, main


@pytest.fixture
def words(tmp_path: Path) -> Path:
    """200 writers: everyone uses 'the', a fifth each of five other words, and one own word."""
    rows = [f"w{k},the\nw{k},word{k % 5}\nw{k},own{k}" for k in range(200)]
    path = tmp_path / "words.csv"
    path.write_text("writer,word\n" + "\n".join(rows) + "\n")
    return path


def labels(result: set_union.SetUnionResult) -> list[str]:
    return [str(x) for x in result.items.tolist()]


def assert_user_error(capsys: pytest.CaptureFixture[str], args: list[str], message: str) -> None:
    assert main(args) == 2
    captured = capsys.readouterr()
    assert captured.out == ""
    lines = captured.err.strip().splitlines()
    assert len(lines) == 1, captured.err
    assert lines[0].startswith("dpcount union: error: ") and message in lines[0], lines[0]


def test_items_on_stdout_summary_on_stderr(words, capsys):
    args = ["union", str(words), "--person", "writer", "--item", "word", "--epsilon", "3"]
    assert main([*args, "--delta", "1e-5", "--max-items", "3", "--seed", "2"]) == 0
    captured = capsys.readouterr()
    graph = read_pairs(words, person="writer", item="word")
    expected = set_union.dp_sips(graph, 3.0, 1e-5, max_items=3, rng=2)
    assert expected.count >= 1
    assert captured.out.splitlines() == labels(expected)
    summary, note = captured.err.strip().splitlines()
    assert summary == (
        f"dpcount union: released {expected.count} items with dp_sips "
        "(ε = 3, δ = 1e-05, at most 3 items per person; exact noise: may be released)"
    )
    assert note.startswith("dpcount union: note: --seed 2 makes this release reproducible")


@pytest.mark.parametrize("algorithm", _union.ALGORITHMS)
@pytest.mark.filterwarnings("ignore::dpcount.errors.UnsafeNoiseWarning")  # float-only ones too
def test_every_algorithm(capsys, algorithm):
    args = ["union", "--dataset", "fashion-like", "--algorithm", algorithm, "--seed", "5"]
    assert main([*args, "--epsilon", "2", "--max-items", "20"]) == 0
    captured = capsys.readouterr()
    mechanism = getattr(set_union, algorithm)
    expected = mechanism(datasets.load("fashion-like"), 2.0, 1e-6, max_items=20, rng=5)
    assert captured.out.splitlines() == labels(expected)
    assert f"released {expected.count} items with {algorithm} (ε = 2, δ = 1e-06" in captured.err


def test_default_algorithm_is_dp_sips_with_exact_noise(capsys):
    assert main(["union", "--dataset", "southern-women", "--seed", "1"]) == 0
    err = capsys.readouterr().err
    assert "with dp_sips (ε = 1, δ = 1e-06, at most 100" in err
    assert "exact noise: may be released" in err


def test_same_seed_same_items(capsys):
    args = ["union", "--dataset", "fashion-like", "--max-items", "10", "--seed", "9"]
    outputs = []
    for _ in range(2):
        assert main(args) == 0
        outputs.append(capsys.readouterr().out)
    assert outputs[0] == outputs[1] != ""


def test_output_file(words, tmp_path, capsys):
    target = tmp_path / "released.txt"
    args = ["union", str(words), "--person", "writer", "--item", "word", "--epsilon", "3"]
    assert main([*args, "--seed", "4", "--output", str(target)]) == 0
    captured = capsys.readouterr()
    graph = read_pairs(words, person="writer", item="word")
    expected = set_union.dp_sips(graph, 3.0, 1e-6, max_items=100, rng=4)
    assert captured.out == ""
    assert f"released {expected.count} items to {target} with dp_sips" in captured.err
    assert target.read_text(encoding="utf-8").splitlines() == labels(expected)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["released.txt", "words.csv"]


def test_output_file_is_replaced_atomically(tmp_path, capsys, monkeypatch):
    target = tmp_path / "released.txt"
    target.write_text("old\n")

    def broken(*args, **kwargs):
        raise OSError("No space left on device")

    monkeypatch.setattr(Path, "write_text", broken)
    assert_user_error(
        capsys,
        ["union", "--dataset", "southern-women", "--output", str(target)],
        "No space left on device",
    )
    monkeypatch.undo()
    assert target.read_text() == "old\n"
    assert [p.name for p in tmp_path.iterdir()] == ["released.txt"]


def test_json(capsys):
    args = ["union", "--dataset", "fashion-like", "--algorithm", "dp_sips", "--seed", "3"]
    assert main([*args, "--json", "--delta", "1e-7"]) == 0
    doc = json.loads(capsys.readouterr().out)
    expected = set_union.dp_sips(datasets.load("fashion-like"), 1.0, 1e-7, rng=3)
    assert doc["items"] == expected.items.tolist() and doc["count"] == expected.count
    assert (doc["algorithm"], doc["epsilon"], doc["delta"], doc["max_items"]) == (
        "dp_sips",
        1.0,
        1e-7,
        100,
    )
    assert doc["privacy_loss"]["epsilon"] == pytest.approx(1.0)
    assert doc["privacy_loss"]["delta"] == pytest.approx(1e-7)
    assert len(doc["rounds"]) == 3 and doc["seed"] == 3
    assert "item_ids" not in doc and doc["weights"] is None  # ranks among all items: not private
    assert doc["source"]["name"] == "fashion-like"


def test_json_to_a_file(tmp_path, capsys):
    target = tmp_path / "released.json"
    args = ["union", "--dataset", "southern-women", "--json", "--output", str(target)]
    assert main(args) == 0
    assert capsys.readouterr().out == ""
    assert json.loads(target.read_text(encoding="utf-8"))["algorithm"] == "dp_sips"


def test_labels_with_line_breaks_need_json(capsys, monkeypatch):
    graph = PersonItemGraph.from_sets({f"u{k}": {"two\nlines", "the"} for k in range(300)})
    monkeypatch.setattr(datasets, "load", lambda *args, **kwargs: graph)
    args = ["union", "--dataset", "southern-women", "--epsilon", "3", "--seed", "1"]
    assert_user_error(capsys, args, "contains a line break")
    assert main([*args, "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["items"] == ["the", "two\nlines"]


def test_date_labels_are_iso(capsys, monkeypatch):
    import numpy as np

    dates = np.array(["2024-01-01", "2024-01-02"], dtype="datetime64[D]")
    graph = PersonItemGraph.from_pairs(np.repeat(np.arange(300), 2), np.tile(dates, 300))
    monkeypatch.setattr(datasets, "load", lambda *args, **kwargs: graph)
    args = ["union", "--dataset", "southern-women", "--epsilon", "3", "--seed", "1"]
    assert main(args) == 0
    assert capsys.readouterr().out.splitlines() == ["2024-01-01", "2024-01-02"]
    assert main([*args, "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["items"] == ["2024-01-01", "2024-01-02"]


def test_closed_pipe_is_quiet(capsys, monkeypatch):
    class ClosedPipe(io.StringIO):
        def write(self, text: str) -> int:
            raise BrokenPipeError(32, "Broken pipe")

    monkeypatch.setattr("sys.stdout", ClosedPipe())
    assert main(["union", "--dataset", "fashion-like", "--seed", "1"]) == 141
    assert "error" not in capsys.readouterr().err


@pytest.mark.parametrize(
    ("extra", "message"),
    [
        (["--epsilon", "0"], "argument --epsilon: epsilon must be finite and > 0"),
        (["--delta", "0"], "argument --delta: delta must lie in (0, 1)"),
        (["--delta", "1"], "argument --delta: delta must lie in (0, 1)"),
        (["--max-items", "0"], "argument --max-items: max-items must be a positive integer"),
        (["--algorithm", "greedy_policy"], "argument --algorithm: invalid choice"),
        (
            ["--output", "/no/such/folder/items.txt"],
            "--output '/no/such/folder/items.txt': folder '/no/such/folder' does not exist",
        ),
    ],
)
def test_bad_options(capsys, extra, message):
    assert_user_error(capsys, ["union", "--dataset", "southern-women", *extra], message)


def test_missing_column_and_unreadable_file(words, tmp_path, capsys):
    args = ["union", str(words), "--person", "writer"]
    assert_user_error(capsys, args, "item column 'item' not found")
    assert_user_error(capsys, ["union", str(tmp_path / "no.parquet")], "file not found")


def test_algorithms_exist():
    assert set(_union.ALGORITHMS) <= set(set_union.__all__)


def test_union_says_whether_its_output_may_be_released(capsys):
    """Exact noise: "may be released"; --noise float: "NOT for release"; --noise exact for an
    algorithm without an exact form is refused before any work."""
    args = ["union", "--dataset", "southern-women", "--seed", "1", "--max-items", "5"]
    assert main([*args, "--algorithm", "weighted_gaussian"]) == 0
    assert "; exact noise: may be released)" in capsys.readouterr().err
    assert main([*args, "--algorithm", "weighted_gaussian", "--noise", "float"]) == 0
    assert "floating-point noise: NOT for release" in capsys.readouterr().err
    assert main([*args, "--algorithm", "policy_gaussian", "--noise", "exact"]) == 2
    err = capsys.readouterr().err
    assert "no exact-noise form" in err and "released" not in err
