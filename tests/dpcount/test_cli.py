"""The dpcount command line: the datasets subcommand, errors, and the console script."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

import dpcount
from dpcount import PersonItemGraph, datasets, read_pairs
from dpcount.cli import build_parser, main


def test_no_command_prints_help(capsys):
    assert main([]) == 0
    assert "datasets" in capsys.readouterr().out


def test_datasets_lists_every_dataset(capsys):
    assert main(["datasets"]) == 0
    out = capsys.readouterr().out
    for name in datasets.names():
        assert any(line.startswith(name + " ") for line in out.splitlines()), name
        assert datasets.description(name) in out


def test_datasets_prints_summary(capsys):
    assert main(["datasets", "southern-women"]) == 0
    captured = capsys.readouterr()
    assert captured.out.startswith("southern-women: ")
    assert "persons                   18" in captured.out
    assert "person–item pairs         89" in captured.out
    assert "built in" in captured.err


def test_datasets_scale_and_seed(capsys):
    assert main(["datasets", "fashion-like", "--seed", "2", "--scale", "0.5"]) == 0
    expected = datasets.fashion_like(scale=0.5, seed=2)
    assert f"person–item pairs         {expected.n_pairs:,}" in capsys.readouterr().out


@pytest.mark.parametrize("suffix", ["csv", "parquet"])
def test_datasets_output(tmp_path, capsys, suffix):
    out = tmp_path / f"pairs.{suffix}"
    assert main(["datasets", "fashion-like", "--seed", "1", "--output", str(out)]) == 0
    expected = datasets.fashion_like(seed=1)
    assert f"wrote {expected.n_pairs:,} pairs to {out}" in capsys.readouterr().out
    assert read_pairs(out) == expected
    assert sorted(p.name for p in tmp_path.iterdir()) == [out.name]


def test_datasets_tpch_with_cache_dir(tpch_cache, capsys):
    args = ["datasets", "tpch-ps-aq", "--scale", "0.01", "--cache-dir", str(tpch_cache)]
    assert main(args) == 0
    g = datasets.tpch("PS.AQ", 0.01, cache_dir=tpch_cache)
    assert f"persons                   {g.n_persons:,}" in capsys.readouterr().out


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["datasets", "nope"], "unknown data set 'nope'; choose one of reddit-like"),
        (["datasets", "fashion-like", "--seed", "-1"], "seed must be a non-negative integer"),
        (["datasets", "fashion-like", "--scale", "0"], "scale must be a positive number"),
        (["datasets", "southern-women", "--scale", "3"], "scale must be 1"),
        (["datasets", "fashion-like", "--scale", "x"], "invalid float value: 'x'"),
        (["datasets", "fashion-like", "--output", "pairs.xlsx"], "must end in .csv or .parquet"),
        (["datasets", "fashion-like", "--output", "/no/such/dir/p.csv"], "does not exist"),
        (["datasets", "--bogus"], "unrecognized arguments: --bogus"),
        (["frobnicate"], "invalid choice: 'frobnicate'"),
    ],
)
def test_user_errors_are_one_line_with_status_2(capsys, args, message):
    assert main(args) == 2
    captured = capsys.readouterr()
    assert captured.out == ""
    lines = captured.err.strip().splitlines()
    assert len(lines) == 1, captured.err
    assert message in lines[0]
    assert lines[0].startswith("dpcount")
    assert "Traceback" not in captured.err


def test_data_errors_are_reported(tmp_path, capsys, monkeypatch):
    import dpcount.datasets._tpch as tpch_module

    monkeypatch.setattr(tpch_module.shutil, "which", lambda *a, **k: None)
    args = ["datasets", "tpch-o-od", "--scale", "0.01", "--cache-dir", str(tmp_path)]
    assert main(args) == 2
    err = capsys.readouterr().err
    assert err.startswith("dpcount datasets: error: the TPC-H generator 'tpchgen-cli' was not")
    assert len(err.strip().splitlines()) == 1


def test_help_texts_have_examples(capsys):
    assert main(["datasets", "--help"]) == 0
    out = capsys.readouterr().out
    assert "examples:" in out and "dpcount datasets reddit-like --scale 0.1" in out
    assert main(["--help"]) == 0
    assert "COMMAND --help" in capsys.readouterr().out
    assert build_parser().prog == "dpcount"


def test_version(capsys):
    assert main(["--version"]) == 0
    assert capsys.readouterr().out.strip() == f"dpcount {dpcount.__version__}"


def test_write_failure_is_reported(tmp_path, capsys, monkeypatch):
    import dpcount.io

    target = tmp_path / "pairs.csv"

    def failing_write(graph: PersonItemGraph, path: str | os.PathLike[str]) -> Path:
        raise OSError("No space left on device")

    monkeypatch.setattr(dpcount.io, "write_pairs", failing_write)
    assert main(["datasets", "southern-women", "--output", str(target)]) == 2
    assert "No space left on device" in capsys.readouterr().err
    assert not target.exists()


def _console_script() -> list[str]:
    script = Path(sys.executable).with_name("dpcount")
    if script.exists():
        return [str(script)]
    found = shutil.which("dpcount")
    return [found] if found else [sys.executable, "-m", "dpcount.cli"]


def test_console_script_smoke():
    command = _console_script()
    result = subprocess.run([*command, "--version"], capture_output=True, text=True, check=False)
    assert result.returncode == 0 and result.stdout.strip() == f"dpcount {dpcount.__version__}"
    result = subprocess.run(
        [*command, "datasets", "--help"], capture_output=True, text=True, check=False
    )
    assert result.returncode == 0 and "usage: dpcount datasets" in result.stdout
    result = subprocess.run([*command, "datasets", "nope"], capture_output=True, text=True)
    assert result.returncode == 2 and "Traceback" not in result.stderr
