"""Every read and allocation of the command line is bounded; every odd value is one line.

Issue 24, items 4 and 6 (the command line's part): ``--groups-file`` on ``/dev/zero``, a FIFO
without a writer, non-UTF-8 text; ``curve --ell-max 2147483647`` on a three-row file; 400-digit
``--max-items``/``--max-groups``; a huge ``--scale-factor``; β = 1e-300 shown as "≥ 100%";
``--person ""`` and one column in two roles.  Cases that could exhaust memory or wait forever
with a broken implementation run in a subprocess under a memory limit and a timeout (or in a
thread with a deadline), so that a regression fails the test instead of the machine.
"""

from __future__ import annotations

import os
import resource
import subprocess
import sys
import threading
from pathlib import Path

import pytest

import matching
from dpcount import PersonItemGraph, datasets
from dpcount.cli import _keys_file, main
from dpcount.errors import InvalidParameterError
from tests.dpcount.cli_errors import one_line_error

ROOT = Path(__file__).resolve().parents[2]
HUGE = "9" * 400
MEMORY_LIMIT = 3 << 30  # bytes of address space for the subprocess cases


@pytest.fixture
def triples(tmp_path: Path) -> Path:
    path = tmp_path / "sales.csv"
    path.write_text("person,item,region\na,1,north\nb,2,south\nc,3,north\n")
    return path


@pytest.fixture
def keys(tmp_path: Path) -> Path:
    path = tmp_path / "regions.txt"
    path.write_text("north\nsouth\n")
    return path


def limited_run(args: list[str], timeout: float = 120) -> subprocess.CompletedProcess[str]:
    """``python -m dpcount ARGS`` with at most :data:`MEMORY_LIMIT` of address space."""

    def limit() -> None:
        resource.setrlimit(resource.RLIMIT_AS, (MEMORY_LIMIT, MEMORY_LIMIT))

    return subprocess.run(
        [sys.executable, "-m", "dpcount", *args],
        capture_output=True,
        text=True,
        env={**os.environ, "PYTHONPATH": str(ROOT)},
        preexec_fn=limit,
        timeout=timeout,
        check=False,
    )


def grouped(triples: Path, *extra: str) -> list[str]:
    return ["count", str(triples), "--group", "region", "--max-groups", "1", *extra]


# --------------------------------------------------------------------------------------------
# --groups-file: bounded, never waiting forever, one line on bad text
# --------------------------------------------------------------------------------------------


def test_groups_file_dev_zero_is_refused_before_reading(triples):
    """``--groups-file /dev/zero`` read without limit."""
    done = limited_run(grouped(triples, "--groups-file", "/dev/zero"))
    assert done.returncode == 2, done.stderr
    assert done.stderr == (
        "dpcount count: error: --groups-file '/dev/zero' is a character device, not a text "
        "file of group keys\n"
    )


def test_groups_file_fifo_without_writer_gives_up(triples, tmp_path, capsys, monkeypatch):
    """A FIFO with no writer behind ``--groups-file`` blocked forever."""
    fifo = tmp_path / "keys.fifo"
    os.mkfifo(fifo)
    monkeypatch.setattr(_keys_file, "PIPE_TIMEOUT", 0.2)
    codes: list[int] = []
    worker = threading.Thread(
        target=lambda: codes.append(main(grouped(triples, "--groups-file", str(fifo)))),
        daemon=True,  # a broken implementation stays blocked: the deadline fails the test
    )
    worker.start()
    worker.join(timeout=60)
    assert not worker.is_alive(), "--groups-file on a FIFO without a writer is still waiting"
    assert codes == [2]
    assert capsys.readouterr().err == (
        f"dpcount count: error: --groups-file {str(fifo)!r}: nothing was written to the pipe "
        "for 0.2 s\n"
    )


def test_groups_file_from_a_pipe_is_read(triples, tmp_path, capsys):
    """``--groups-file <(command)``: keys written into a FIFO by another thread are read."""
    fifo = tmp_path / "keys.fifo"
    os.mkfifo(fifo)

    def write() -> None:
        with open(fifo, "w") as pipe:  # waits until the command opens the FIFO
            pipe.write("south\n")

    writer = threading.Thread(target=write, daemon=True)
    writer.start()
    args = grouped(triples, "--groups-file", str(fifo), "--json", "--seed", "1")
    assert main(args) == 0
    writer.join(timeout=60)
    assert '"group": "south"' in capsys.readouterr().out


@pytest.mark.parametrize(
    ("content", "line"),
    [(b"north\nS\xfcd\n", 2), (b"\xff\xfenorth\n", 1), (b"a\nb\nc\n\x80", 4)],
    ids=["latin-1", "utf-16-bom", "last-line"],
)
def test_groups_file_not_utf8_names_file_and_line(triples, tmp_path, capsys, content, line):
    """A non-UTF-8 ``--groups-file`` ended in a ``UnicodeDecodeError`` traceback."""
    path = tmp_path / "keys.txt"
    path.write_bytes(content)
    one_line_error(
        capsys,
        grouped(triples, "--groups-file", str(path)),
        f"--groups-file {str(path)!r}, line {line}: not valid UTF-8",
        "save the file as UTF-8",
    )


def test_groups_file_utf8_bom_is_skipped(triples, tmp_path, capsys):
    path = tmp_path / "keys.txt"
    path.write_bytes(b"\xef\xbb\xbfnorth\n")
    assert main(grouped(triples, "--groups-file", str(path), "--json", "--seed", "1")) == 0
    assert '"group": "north"' in capsys.readouterr().out


def test_groups_file_larger_than_the_bound_is_refused(triples, tmp_path, capsys, monkeypatch):
    monkeypatch.setattr(_keys_file, "MAX_BYTES", 1000)
    path = tmp_path / "keys.txt"
    path.write_text("north\n" * 200)
    one_line_error(capsys, grouped(triples, "--groups-file", str(path)), "larger than")


@pytest.mark.parametrize("kind", ["folder", "missing"])
def test_groups_file_folder_or_missing(triples, tmp_path, capsys, kind):
    target = tmp_path if kind == "folder" else tmp_path / "missing.txt"
    expected = "is a folder" if kind == "folder" else "file not found"
    one_line_error(capsys, grouped(triples, "--groups-file", str(target)), expected)


# --------------------------------------------------------------------------------------------
# Sizes: every allocation bounded by the data or a public cap
# --------------------------------------------------------------------------------------------


def test_curve_ell_max_at_its_maximum_on_three_rows(tmp_path):
    """``curve --ell-max 2147483647`` on a 3-row file allocated 16 GiB."""
    path = tmp_path / "three.csv"
    path.write_text("person,item\na,1\na,2\nb,2\n")
    done = limited_run(["curve", str(path), "--ell-max", "2147483647"])
    assert done.returncode == 0, done.stderr
    assert done.stdout.splitlines()[1:] == ["ℓ  DC(D;ℓ)", "1        2", "2        2"]
    assert "constant from ℓ = 2 on" in done.stderr


def test_dc_curve_refuses_lengths_above_its_public_cap():
    """The API caps the curve it returns; one ℓ at any size stays available."""
    graph = PersonItemGraph.from_sets({"a": {1, 2}, "b": {2}})
    from matching.dispatch import MAX_CURVE_LENGTH

    assert matching.dc_curve(graph, 5).tolist() == [2, 2, 2, 2, 2]
    with pytest.raises(InvalidParameterError, match=f"at most {MAX_CURVE_LENGTH} for a curve"):
        matching.dc_curve(graph, MAX_CURVE_LENGTH + 1)
    assert matching.dc_value(graph, 2**31 - 1) == 2


@pytest.mark.parametrize(
    ("command", "flag"),
    [("union", "--max-items"), ("count", "--ell-max"), ("curve", "--ell-max")],
)
def test_400_digit_counts_are_one_line(triples, capsys, command, flag):
    """400-digit ``--max-items`` ended in ``OverflowError``."""
    one_line_error(
        capsys, [command, str(triples), flag, HUGE], f"argument {flag}: must be at most 2147483647"
    )


def test_400_digit_max_groups_is_one_line(triples, keys, capsys):
    args = ["count", str(triples), "--group", "region", "--max-groups", HUGE]
    one_line_error(capsys, [*args, "--groups-file", str(keys)], "argument --max-groups: must be")


@pytest.mark.parametrize("command", ["count", "datasets"])
def test_huge_scale_factor_is_refused_before_building(capsys, monkeypatch, command):
    """A large ``--scale-factor`` ended in ``MemoryError`` after trying to build."""

    def fail(*args: object, **kwargs: object) -> None:
        raise AssertionError("built before the scale factor was checked")

    monkeypatch.setattr(datasets, "load", fail)
    args = ["--dataset", "reddit-like"] if command == "count" else ["reddit-like"]
    one_line_error(capsys, [command, *args, "--scale-factor", "1e12"], "must be at most 100")


def test_out_of_memory_is_one_line(capsys, monkeypatch):
    def exhausted(*args: object, **kwargs: object) -> None:
        raise MemoryError("Unable to allocate 2.87 PiB for an array")

    monkeypatch.setattr(datasets, "load", exhausted)
    one_line_error(
        capsys, ["count", "--dataset", "reddit-like", "--scale-factor", "100"], "out of memory"
    )


# --------------------------------------------------------------------------------------------
# What is printed and which columns are read
# --------------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("beta", "shown"), [("1e-300", "1 − 1e-300"), ("0.00004", "1 − 4e-05"), ("0.05", "95%")]
)
def test_confidence_is_never_rounded_up_to_100_percent(triples, capsys, beta, shown):
    """β = 1e-300 printed as "with probability ≥ 100%"."""
    assert main(["count", str(triples), "--beta", beta, "--seed", "1"]) == 0
    out = capsys.readouterr().out
    assert f"With probability ≥ {shown} the data" in out and "100%" not in out


@pytest.mark.parametrize(
    ("extra", "message"),
    [
        (["--person", ""], "--person is empty; give the name of a column"),
        (["--item", ""], "--item is empty"),
        (["--person", "item", "--item", "item"], "--person and --item name the same column"),
        (["--person", "region"], None),
        (["--item", "region", "--group", "region"], "--item and --group name the same column"),
        (["--person", "region", "--group", "region"], "--person and --group name the same"),
    ],
)
def test_column_options_empty_or_in_two_roles_are_refused(triples, keys, capsys, extra, message):
    """``--person ""`` silently read the column ``person``; one column could be both roles."""
    grouped_run = "--group" in extra
    args = ["count", str(triples), *extra, "--seed", "1"]
    if grouped_run:
        args += ["--max-groups", "1", "--groups-file", str(keys)]
    if message is None:  # a legitimate choice of columns still runs
        assert main(args) == 0
        return
    one_line_error(capsys, args, message)
