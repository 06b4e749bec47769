"""The dpcount command line: the datasets subcommand, errors, help, progress, console script.

``count``, ``curve`` and ``union`` have their own files (``test_cli_count.py`` …).
"""

from __future__ import annotations

import errno
import io
import json
import os
import shutil
import subprocess
import sys
import time
from pathlib import Path

import pytest

import dpcount
from dpcount import PersonItemGraph, datasets, read_pairs
from dpcount.cli import _common, _progress, build_parser, main
from mechanisms.distinct_count import dp_distinct_count

COMMANDS = ("count", "curve", "union", "datasets")


def test_no_command_prints_help(capsys):
    assert main([]) == 0
    out = capsys.readouterr().out
    assert all(command in out for command in COMMANDS)


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


def test_datasets_seed_has_the_name_count_gives_it(capsys):
    """``datasets --seed`` is ``count --data-seed``: one name, the old one warns."""
    assert main(["datasets", "fashion-like", "--seed", "2"]) == 0
    old = capsys.readouterr()
    assert old.err.startswith("dpcount datasets: warning: --seed is deprecated; use --data-seed\n")
    assert main(["datasets", "fashion-like", "--data-seed", "2"]) == 0
    new = capsys.readouterr()
    assert new.out == old.out and "warning" not in new.err
    assert main(["datasets", "fashion-like", "--data-seed", "3"]) == 0
    assert capsys.readouterr().out != new.out


def test_datasets_scale_and_seed(capsys):
    assert main(["datasets", "fashion-like", "--data-seed", "2", "--scale-factor", "0.5"]) == 0
    expected = datasets.fashion_like(scale_factor=0.5, seed=2)
    assert f"person–item pairs         {expected.n_pairs:,}" in capsys.readouterr().out


@pytest.mark.parametrize("suffix", ["csv", "parquet"])
def test_datasets_output(tmp_path, capsys, suffix):
    out = tmp_path / f"pairs.{suffix}"
    assert main(["datasets", "fashion-like", "--data-seed", "1", "--output", str(out)]) == 0
    expected = datasets.fashion_like(seed=1)
    assert f"wrote {expected.n_pairs:,} pairs to {out}" in capsys.readouterr().err
    assert read_pairs(out) == expected
    assert sorted(p.name for p in tmp_path.iterdir()) == [out.name]


def test_datasets_tpch_with_cache_dir(tpch_cache, capsys):
    args = ["datasets", "tpch-ps-aq", "--scale-factor", "0.01", "--cache-dir", str(tpch_cache)]
    assert main(args) == 0
    g = datasets.tpch("PS.AQ", 0.01, cache_dir=tpch_cache)
    assert f"persons                   {g.n_persons:,}" in capsys.readouterr().out


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["datasets", "nope"], "unknown data set 'nope'; choose one of reddit-like"),
        (["datasets", "fashion-like", "--data-seed", "-1"], "seed must be a non-negative integer"),
        (
            ["datasets", "fashion-like", "--scale-factor", "0"],
            "argument --scale-factor/--scale: scale factor must be a positive number, got '0'",
        ),
        (
            ["datasets", "reddit-like", "--scale-factor", "1e12"],
            "argument --scale-factor/--scale: scale factor must be at most 100, got '1e12'",
        ),
        (["datasets", "southern-women", "--scale-factor", "3"], "; --scale-factor must be 1"),
        (["datasets", "fashion-like", "--scale-factor", "x"], "expected a number, got 'x'"),
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
    args = ["datasets", "tpch-o-od", "--scale-factor", "0.01", "--cache-dir", str(tmp_path)]
    assert main(args) == 2
    err = capsys.readouterr().err
    assert err.startswith("dpcount datasets: error: the TPC-H generator 'tpchgen-cli' was not")
    assert len(err.strip().splitlines()) == 1


def test_help_texts_have_examples(capsys):
    assert main(["datasets", "--help"]) == 0
    out = capsys.readouterr().out
    assert "examples:" in out and "dpcount datasets reddit-like --scale-factor 0.1" in out
    assert main(["--help"]) == 0
    assert "COMMAND --help" in capsys.readouterr().out
    assert build_parser().prog == "dpcount"


@pytest.mark.parametrize("command", COMMANDS)
def test_every_command_has_help_with_examples(capsys, command):
    assert main([command, "--help"]) == 0
    out = capsys.readouterr().out
    assert out.startswith(f"usage: dpcount {command}")
    examples = out.split("examples:\n", 1)[1]
    assert f"  dpcount {command} " in examples


def test_help_explains_seeds_and_privacy(capsys):
    assert main(["count", "--help"]) == 0
    out = " ".join(capsys.readouterr().out.split())
    assert "default: fresh OS entropy" in out and "reproducible" in out
    assert "default: 1)" in out  # ε
    assert main(["curve", "--help"]) == 0
    assert "NOT PRIVATE" in capsys.readouterr().out


def test_version(capsys):
    assert main(["--version"]) == 0
    assert capsys.readouterr().out.strip() == f"dpcount {dpcount.__version__}"


def test_write_failure_is_reported(tmp_path, capsys, monkeypatch):
    import dpcount.io

    target = tmp_path / "pairs.csv"

    def failing_write(graph: PersonItemGraph, path: str | os.PathLike[str], **_: object) -> Path:
        raise OSError(errno.ENOSPC, "No space left on device")

    monkeypatch.setattr(dpcount.io, "write_pairs", failing_write)
    assert main(["datasets", "southern-women", "--output", str(target)]) == 2
    err = capsys.readouterr().err
    message = f"--output {str(target)!r}: cannot write: no space left on device"
    assert err == f"dpcount datasets: error: {message}\n"
    assert list(tmp_path.iterdir()) == []  # neither the file nor a temporary one


# --------------------------------------------------------------------------------------------
# Progress on stderr: on a terminal only, never with --json
# --------------------------------------------------------------------------------------------


class _Terminal(io.StringIO):
    def isatty(self) -> bool:
        return True

    def wait_for_output(self, timeout: float = 10.0) -> None:
        """Let the progress thread draw (it may be scheduled late on a busy machine)."""
        deadline = time.monotonic() + timeout
        while not self.getvalue() and time.monotonic() < deadline:
            time.sleep(0.01)


def test_progress_draws_on_a_terminal_and_erases_its_line():
    screen = _Terminal()
    with _progress.progress("reading big.csv", enabled=True, stream=screen, delay=0, interval=0.01):
        screen.wait_for_output()
    text = screen.getvalue()
    assert "reading big.csv … 0 s" in text
    assert text.endswith("\r\x1b[K") and "\n" not in text


def test_progress_line_fits_the_terminal(monkeypatch):
    monkeypatch.setattr(_progress.shutil, "get_terminal_size", lambda: os.terminal_size((30, 5)))
    screen = _Terminal()
    label = "reading /a/very/long/path/to/some/file.parquet"
    with _progress.progress(label, enabled=True, stream=screen, delay=0, interval=0.01):
        screen.wait_for_output()
    frames = [f for f in screen.getvalue().split("\r\x1b[K") if f]
    assert frames and all(len(f) <= 29 and f.endswith("…") for f in frames)


def test_progress_is_silent_for_fast_steps_and_when_disabled():
    screen = _Terminal()
    with _progress.progress("fast", enabled=True, stream=screen, delay=5):
        pass
    with _progress.progress("off", enabled=False, stream=screen, delay=0):
        time.sleep(0.05)
    assert screen.getvalue() == ""


def test_stderr_is_terminal_handles_missing_streams(monkeypatch):
    monkeypatch.setattr(sys, "stderr", None)
    assert _progress.stderr_is_terminal() is False
    monkeypatch.setattr(sys, "stderr", _Terminal())
    assert _progress.stderr_is_terminal() is True


@pytest.mark.parametrize(
    ("args", "expected"),
    [
        (["count", "--dataset", "southern-women"], ["building southern-women", "computing"]),
        (["curve", "--dataset", "southern-women", "--ell-max", "3"], ["building", "computing"]),
        (["union", "--dataset", "southern-women"], ["building", "running dp_sips"]),
        (["datasets", "southern-women"], ["building southern-women"]),
    ],
)
def test_progress_only_on_a_terminal(capsys, monkeypatch, progress_labels, args, expected):
    monkeypatch.setattr(_common, "stderr_is_terminal", lambda: True)
    assert main(args) == 0
    assert len(progress_labels) == len(expected)
    assert all(label.startswith(e) for label, e in zip(progress_labels, expected, strict=True))
    progress_labels.clear()
    monkeypatch.setattr(_common, "stderr_is_terminal", lambda: False)
    assert main(args) == 0
    assert progress_labels == []


@pytest.mark.parametrize("command", ["count", "union"])
def test_no_progress_with_json_even_on_a_terminal(capsys, monkeypatch, progress_labels, command):
    monkeypatch.setattr(_common, "stderr_is_terminal", lambda: True)
    assert main([command, "--dataset", "southern-women", "--json"]) == 0
    assert progress_labels == []


def test_no_progress_output_when_stderr_is_not_a_terminal(capsys):
    assert main(["count", "--dataset", "fashion-like"]) == 0
    assert capsys.readouterr().err == ""
    assert main(["curve", "--dataset", "fashion-like", "--ell-max", "20"]) == 0
    assert capsys.readouterr().err == ""


# --------------------------------------------------------------------------------------------
# The console script
# --------------------------------------------------------------------------------------------


def _console_script() -> list[str]:
    script = Path(sys.executable).with_name("dpcount")
    if script.exists():
        return [str(script)]
    found = shutil.which("dpcount")
    return [found] if found else [sys.executable, "-m", "dpcount.cli"]


def _run(*args: str) -> subprocess.CompletedProcess[str]:
    """Run the console script; the checkout comes first on the path (as in an editable install
    made before ``matching`` had its ``__init__.py``, which would otherwise shadow it)."""
    root = str(Path(dpcount.__file__).resolve().parents[1])
    env = os.environ | {
        "PYTHONPATH": os.pathsep.join(filter(None, [root, os.environ.get("PYTHONPATH")]))
    }
    return subprocess.run(
        [*_console_script(), *args], capture_output=True, text=True, check=False, env=env
    )


def test_console_script_smoke():
    result = _run("--version")
    assert result.returncode == 0 and result.stdout.strip() == f"dpcount {dpcount.__version__}"
    result = _run("datasets", "--help")
    assert result.returncode == 0 and "usage: dpcount datasets" in result.stdout
    result = _run("datasets", "nope")
    assert result.returncode == 2 and "Traceback" not in result.stderr


def test_python_dash_m_dpcount():
    root = str(Path(dpcount.__file__).resolve().parents[1])
    env = os.environ | {
        "PYTHONPATH": os.pathsep.join(filter(None, [root, os.environ.get("PYTHONPATH")]))
    }
    result = subprocess.run(
        [sys.executable, "-m", "dpcount", "--version"],
        capture_output=True,
        text=True,
        check=False,
        env=env,
    )
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip() == f"dpcount {dpcount.__version__}"


def test_console_script_count_fashion_like():
    result = _run("count", "--dataset", "fashion-like", "--seed", "6", "--json")
    assert result.returncode == 0, result.stderr
    doc = json.loads(result.stdout)
    expected = dp_distinct_count(datasets.load("fashion-like"), 1.0, rng=6)
    assert (doc["estimate"], doc["ell"], doc["epsilon"]) == (expected.estimate, expected.ell, 1.0)
    # stderr is a pipe: the seed note only, no progress indicator.
    assert result.stderr == (
        "dpcount count: note: --seed 6 makes this release reproducible: for research only\n"
    )
    result = _run("count", "--dataset", "fashion-like", "--epsilon", "0")
    assert result.returncode == 2 and result.stdout == ""
    assert result.stderr.startswith("dpcount count: error: argument --epsilon: ")
    assert len(result.stderr.splitlines()) == 1
