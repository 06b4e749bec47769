"""Progress on stderr across the subcommands: a terminal sees it, a pipe sees nothing unless
``--progress`` asks, and stdout is byte for byte the same either way."""

from __future__ import annotations

import io
import os
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path
from types import ModuleType

import pytest

import dpcount
from dpcount.cli import _common, _kernels, _progress, main

#: What only a drawn progress line writes: the erase sequence (carriage return, clear line).
ERASE = "\r\x1b[K"


class _Terminal(io.StringIO):
    def isatty(self) -> bool:
        return True


class _Pipe(io.StringIO):
    def isatty(self) -> bool:
        return False


def _run(
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
    stderr: io.StringIO,
    args: list[str],
) -> str:
    """Run the CLI with ``stderr`` as sys.stderr and every step slow enough to draw; stdout."""
    monkeypatch.setattr(_progress, "DELAY", 0.0)
    monkeypatch.setattr(sys, "stderr", stderr)
    assert main(args) == 0
    return capsys.readouterr().out


COMMANDS = [
    ["count", "--dataset", "southern-women", "--seed", "1"],
    ["curve", "--dataset", "southern-women", "--ell-max", "3"],
    ["union", "--dataset", "southern-women", "--seed", "1"],
    ["datasets", "southern-women"],
]


@pytest.mark.parametrize("args", COMMANDS, ids=lambda a: a[0])
def test_a_terminal_sees_progress_a_pipe_does_not_and_stdout_is_the_same(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str], args: list[str]
) -> None:
    terminal, pipe, asked = _Terminal(), _Pipe(), _Pipe()
    on_terminal = _run(monkeypatch, capsys, terminal, args)
    in_pipe = _run(monkeypatch, capsys, pipe, args)
    with_flag = _run(monkeypatch, capsys, asked, [*args, "--progress"])
    assert "building southern-women … 0 s" in terminal.getvalue()
    assert terminal.getvalue().count(ERASE) >= 2  # each step drew and erased its line
    assert ERASE not in pipe.getvalue() and "building" not in pipe.getvalue()
    assert "building southern-women" in asked.getvalue()  # --progress draws into the pipe
    assert on_terminal.encode() == in_pipe.encode() == with_flag.encode()
    assert ERASE not in on_terminal


def test_no_progress_silences_a_terminal_and_progress_overrides_json(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    terminal = _Terminal()
    _run(monkeypatch, capsys, terminal, ["count", "--dataset", "southern-women", "--no-progress"])
    assert terminal.getvalue() == ""
    _run(monkeypatch, capsys, terminal, ["count", "--dataset", "southern-women", "--json"])
    assert terminal.getvalue() == ""  # --json alone: no drawing, even on a terminal
    json_out = _run(
        monkeypatch,
        capsys,
        terminal,
        ["count", "--dataset", "fashion-like", "--json", "--progress"],
    )
    assert "building fashion-like" in terminal.getvalue()
    assert json_out.lstrip().startswith("{")


def test_a_real_pipe_gets_no_progress_on_stdout_or_stderr() -> None:
    """A child process whose stdout and stderr are pipes: nothing but the result and the notes,
    and the same stdout bytes with ``--progress`` (which has nothing to draw in this fast run)."""
    root = str(Path(dpcount.__file__).resolve().parents[1])
    env = os.environ | {
        "PYTHONPATH": os.pathsep.join(filter(None, [root, os.environ.get("PYTHONPATH")]))
    }
    runs = [
        subprocess.run(
            [
                sys.executable,
                "-m",
                "dpcount",
                "count",
                "--dataset",
                "fashion-like",
                "--seed",
                "3",
                *extra,
            ],
            capture_output=True,
            check=True,
            env=env,
        )
        for extra in ([], ["--progress"])
    ]
    assert runs[0].stdout == runs[1].stdout and runs[0].stdout
    for run in runs:
        assert b"\r" not in run.stdout + run.stderr and b"\x1b" not in run.stdout + run.stderr
        assert run.stderr.decode().splitlines() == [
            "dpcount count: note: --seed 3 makes this release reproducible: for research only"
        ]


def test_datasets_output_shows_writing(
    monkeypatch: pytest.MonkeyPatch,
    progress_labels: list[str],
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
) -> None:
    monkeypatch.setattr(_common, "stderr_is_terminal", lambda: True)
    target = tmp_path / "women.csv"
    assert main(["datasets", "southern-women", "--output", str(target)]) == 0
    assert progress_labels == ["building southern-women", f"writing {target}"]


def test_sql_source_shows_reading(
    monkeypatch: pytest.MonkeyPatch,
    progress_labels: list[str],
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
) -> None:
    path = tmp_path / "pairs.csv"
    path.write_text("person,item\n1,a\n2,b\n2,a\n")
    query = f"SELECT person, item FROM '{path}'"
    assert main(["count", "--sql", query, "--progress", "--seed", "1"]) == 0
    assert progress_labels == ["reading the SQL query", "computing the private lower bound"]


# --------------------------------------------------------------------------------------------
# The note on a first compile, and compiling ahead for large files
# --------------------------------------------------------------------------------------------


def test_a_first_compile_is_said_once(
    fresh_kernels: Callable[[str], ModuleType], monkeypatch: pytest.MonkeyPatch
) -> None:
    module = fresh_kernels("progress_note_kernels")
    screen = _Terminal()
    monkeypatch.setattr(sys, "stderr", screen)
    with _kernels.compile_note("count", enabled=True):
        assert module.second(1) == 4  # compiles second and first: one note
    assert screen.getvalue() == f"dpcount count: note: {_kernels.COMPILE_NOTE}\n"
    quiet = _Terminal()
    monkeypatch.setattr(sys, "stderr", quiet)
    with _kernels.compile_note("count", enabled=False):
        module.first.interpreted(1)
    assert quiet.getvalue() == ""


def test_the_note_is_not_said_for_cached_kernels(
    fresh_kernels: Callable[[str], ModuleType], monkeypatch: pytest.MonkeyPatch
) -> None:
    module = fresh_kernels("progress_cached_kernels")
    from dpcount.common.jit import is_cached

    assert not is_cached(module.first)
    module.first(1)  # compiled and written to the cache
    assert is_cached(module.first)
    module.first._compiled = None  # as in a new process: built again, from the cache
    screen = _Terminal()
    monkeypatch.setattr(sys, "stderr", screen)
    with _kernels.compile_note("count", enabled=True):
        assert module.first(2) == 3
    assert screen.getvalue() == ""


def test_large_files_compile_their_counting_kernel_ahead(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    started: list[list[object]] = []

    def recorder(kernels):  # type: ignore[no-untyped-def]
        started.append(list(kernels))
        from contextlib import nullcontext

        return nullcontext(True)

    import dpcount.common.precompile as precompile

    monkeypatch.setattr(precompile, "precompiling", recorder)
    small, large = tmp_path / "small.csv", tmp_path / "large.parquet"
    small.write_text("person,item\n1,a\n")
    with large.open("wb") as f:
        f.truncate(_kernels.LARGE_FILE_BYTES)
    for source, method in [
        (_common.Source("file", str(small)), "matching"),
        (_common.Source("file", str(large)), "sampling"),
        (_common.Source("dataset", "reddit-like"), "matching"),
    ]:
        with _kernels.compiling_ahead(source, method) as ahead:
            assert ahead is False
    assert started == []
    with _kernels.compiling_ahead(_common.Source("file", str(tmp_path / "*.parquet")), "matching"):
        pass
    assert [[k.__name__ for k in kernels] for kernels in started] == [["_exact_curve"]]


def test_a_note_during_a_drawn_step_starts_its_own_line() -> None:
    screen = _Terminal()
    with _progress.progress("reading", enabled=True, stream=screen, delay=0, interval=60):
        while "reading" not in screen.getvalue():  # the first frame (the next is a minute away)
            time.sleep(0.01)
        _progress.say("dpcount count: warning: w", stream=screen)
    frame, note, end = screen.getvalue().split(ERASE)[1:]
    assert frame.startswith("| reading … ")
    assert note == "dpcount count: warning: w\n" and end == ""
    _progress.say("plain", stream=screen)  # nothing drawn any more: no erasing
    assert screen.getvalue().endswith("w\n" + ERASE + "plain\n")


def test_curve_plot_shows_drawing(
    progress_labels: list[str], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    pytest.importorskip("matplotlib")
    target = tmp_path / "curve.svg"
    args = ["curve", "--dataset", "southern-women", "--ell-max", "3", "--plot", str(target)]
    assert main([*args, "--progress"]) == 0
    assert progress_labels[-1] == f"drawing {target}" and target.exists()
