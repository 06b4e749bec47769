"""Options that write files never destroy an input, a device or a link (issue 24, item 2).

Every refusal happens before the data is read (the reader is replaced by one that fails the
test), names the user's path and leaves every file as it was.
"""

from __future__ import annotations

import errno
import hashlib
import json
import os
import stat
import subprocess
import sys
import tempfile
from pathlib import Path

import pytest

import dpcount.io
from dpcount.cli import main
from tests.dpcount.cli_errors import one_line_error

ROOT = Path(__file__).resolve().parents[2]
PAIRS = "person,item\na,1\na,2\nb,2\nc,3\n"


@pytest.fixture
def data(tmp_path: Path) -> Path:
    path = tmp_path / "pairs.csv"
    path.write_text(PAIRS)
    return path


@pytest.fixture
def no_reading(monkeypatch: pytest.MonkeyPatch) -> None:
    """The data must not be read: every refusal comes before the work."""

    def fail(*args: object, **kwargs: object) -> None:
        raise AssertionError("the data was read before the output was checked")

    monkeypatch.setattr(dpcount.io, "read_pairs", fail)


def snapshot(folder: Path) -> dict[str, tuple[str, int, str]]:
    """Every entry of ``folder``: its kind, permission bits and content (or link target)."""
    out = {}
    for path in sorted(folder.rglob("*")):
        info = path.lstat()
        if stat.S_ISLNK(info.st_mode):
            out[path.name] = ("link", 0, os.readlink(path))
        elif stat.S_ISREG(info.st_mode):
            digest = hashlib.sha256(path.read_bytes()).hexdigest()
            out[path.name] = ("file", stat.S_IMODE(info.st_mode), digest)
        else:
            out[path.name] = ("other", stat.S_IMODE(info.st_mode), "")
    return out


def output_commands(data: Path, target: str) -> list[list[str]]:
    """Every option that writes a file, aimed at ``target``."""
    return [
        ["union", str(data), "--output", target],
        ["curve", str(data), "--csv", "--output", target],
        ["curve", str(data), "--plot", target],
    ]


# --------------------------------------------------------------------------------------------
# The input is never the output
# --------------------------------------------------------------------------------------------


@pytest.mark.parametrize("read_only", [False, True], ids=["writable", "read-only"])
def test_output_that_is_the_input_is_refused(tmp_path, data, capsys, no_reading, read_only):
    """``union X --output X`` replaced X (even a 0444 one) and exited 0."""
    plot = data.with_suffix(".png")  # --plot needs a plot suffix: an input named so
    plot.write_text(PAIRS)
    if read_only:
        data.chmod(0o444)
        plot.chmod(0o444)
    before = snapshot(tmp_path)
    for command, target in (("union", data), ("curve", data), ("curve", plot)):
        option = "--plot" if target == plot else "--output"
        args = [command, str(target), option, str(target)]
        one_line_error(capsys, args, f"{option} {str(target)!r} is the input file")
    assert snapshot(tmp_path) == before


@pytest.mark.parametrize("alias", ["symlink", "hardlink", "relative", "dotted"])
def test_input_reached_through_another_name_is_refused(tmp_path, data, capsys, no_reading, alias):
    name = tmp_path / "alias.csv"
    if alias == "symlink":
        name.symlink_to(data)
    elif alias == "hardlink":
        os.link(data, name)
    target = {
        "symlink": str(name),
        "hardlink": str(name),
        "relative": os.path.relpath(data),
        "dotted": f"{data.parent}/./sub/../{data.name}",
    }[alias]
    (tmp_path / "sub").mkdir()
    before = snapshot(tmp_path)
    for args in output_commands(data, target)[:2]:
        one_line_error(capsys, args, "is the input file", "writing it would destroy the data")
    assert snapshot(tmp_path) == before


def test_output_matched_by_the_input_glob_is_refused(tmp_path, capsys, no_reading):
    for name in ("a.csv", "b.csv"):
        (tmp_path / name).write_text(PAIRS)
    before = snapshot(tmp_path)
    pattern = str(tmp_path / "*.csv")
    message = one_line_error(capsys, ["union", pattern, "--output", str(tmp_path / "b.csv")])
    assert f"is the input file {str(tmp_path / 'b.csv')!r}" in message
    assert snapshot(tmp_path) == before


def test_curve_csv_and_plot_on_one_file_are_refused(tmp_path, data, capsys, no_reading):
    target = str(tmp_path / "curve.png")
    Path(target).write_text("old")
    one_line_error(
        capsys,
        ["curve", str(data), "--output", target, "--plot", target],
        "same file as --output",
    )
    assert Path(target).read_text() == "old"


# --------------------------------------------------------------------------------------------
# Devices, FIFOs and links are written in place or refused, never replaced
# --------------------------------------------------------------------------------------------


def null_device(tmp_path: Path) -> Path:
    """A character device to write to: a private copy of /dev/null where this process may
    create one (root), else /dev/null itself, which only root could replace – so a broken
    implementation can never replace the machine's /dev/null."""
    if os.geteuid() != 0:
        return Path(os.devnull)
    node = tmp_path / "null"
    os.mknod(node, stat.S_IFCHR | 0o666, os.stat(os.devnull).st_rdev)
    return node


def test_character_device_stays_a_device(tmp_path, data, capsys):
    """``--output /dev/null`` renamed a regular file over /dev/null (as root)."""
    device = null_device(tmp_path)
    before = os.stat(device)
    assert main(["union", str(data), "--output", str(device), "--seed", "1"]) == 0
    after = os.stat(device)
    assert stat.S_ISCHR(after.st_mode)
    assert (after.st_ino, after.st_rdev) == (before.st_ino, before.st_rdev)
    assert "released" in capsys.readouterr().err


def test_fifo_with_a_reader_receives_the_output(tmp_path, data, capsys):
    fifo = tmp_path / "items.fifo"
    os.mkfifo(fifo)
    reader = os.open(fifo, os.O_RDONLY | os.O_NONBLOCK)
    try:
        args = ["union", str(data), "--output", str(fifo), "--json", "--seed", "1"]
        assert main([*args, "--epsilon", "5"]) == 0
        received = os.read(reader, 1 << 16).decode()
    finally:
        os.close(reader)
    assert stat.S_ISFIFO(fifo.lstat().st_mode)
    assert '"algorithm": "dp_sips"' in received
    assert sorted(p.name for p in tmp_path.iterdir()) == ["items.fifo", "pairs.csv"]


def test_fifo_without_a_reader_is_refused_not_waited_for(tmp_path, data, capsys):
    fifo = tmp_path / "items.fifo"
    os.mkfifo(fifo)
    one_line_error(
        capsys, ["union", str(data), "--output", str(fifo)], "nothing is reading the FIFO"
    )
    assert stat.S_ISFIFO(fifo.lstat().st_mode)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["items.fifo", "pairs.csv"]


def test_symlink_output_stays_a_link(tmp_path, data, capsys):
    """The link's target is replaced; the link is not replaced by a regular file."""
    real = tmp_path / "real.txt"
    real.write_text("old\n")
    real.chmod(0o640)
    link = tmp_path / "link.txt"
    link.symlink_to(real.name)
    assert main(["union", str(data), "--output", str(link), "--seed", "1", "--epsilon", "5"]) == 0
    assert link.is_symlink() and os.readlink(link) == real.name
    assert real.read_text() != "old\n"
    assert stat.S_IMODE(real.stat().st_mode) == 0o640  # the replaced file's permissions kept
    assert f"to {link}" in capsys.readouterr().err  # the user's name for it


@pytest.mark.parametrize("kind", ["dangling", "loop"])
def test_broken_symlink_outputs_are_refused(tmp_path, data, capsys, no_reading, kind):
    link = tmp_path / "out.txt"
    if kind == "dangling":
        link.symlink_to(tmp_path / "missing" / "x.txt")
        message = "is a symbolic link to a missing file"
    else:
        link.symlink_to(tmp_path / "loop.txt")
        (tmp_path / "loop.txt").symlink_to(link)
        message = "is a symbolic link loop"
    before = snapshot(tmp_path)
    for args in output_commands(data, str(link))[:2]:
        one_line_error(capsys, args, f"{str(link)!r}", message)
    assert snapshot(tmp_path) == before


def test_block_devices_and_folders_are_refused(tmp_path, data, capsys, no_reading):
    one_line_error(capsys, ["union", str(data), "--output", str(tmp_path)], "is a folder")
    block = next((p for p in Path("/dev").iterdir() if p.is_block_device()), None)
    if block is not None:  # containers may have none
        one_line_error(capsys, ["union", str(data), "--output", str(block)], "is a block device")


def test_own_stdout_redirected_to_a_file_is_appended_not_replaced(tmp_path, data):
    """``--output /dev/stdout >> file``: the shell's file keeps its inode and gets the items.

    ``/dev/fd/1`` is the same path as ``/dev/stdout`` (through ``/proc/self/fd``); it is used
    here because a broken implementation could not rename a file into ``/proc`` and so could
    never replace the machine's ``/dev/stdout``.
    """
    out = tmp_path / "out.txt"
    out.write_text("header\n")
    inode = out.stat().st_ino
    command = ["union", str(data), "--output", "/dev/fd/1", "--json", "--seed", "1"]
    with open(out, "a") as stdout:
        done = subprocess.run(
            [sys.executable, "-m", "dpcount", *command],
            stdout=stdout,
            stderr=subprocess.PIPE,
            text=True,
            env={**os.environ, "PYTHONPATH": str(ROOT)},
            timeout=120,
            check=False,
        )
    assert done.returncode == 0, done.stderr
    assert out.stat().st_ino == inode
    header, doc = out.read_text().split("\n", 1)
    assert header == "header" and json.loads(doc)["algorithm"] == "dp_sips"


# --------------------------------------------------------------------------------------------
# Writability checked before the work, in the user's words
# --------------------------------------------------------------------------------------------


def test_read_only_output_is_refused_before_the_work(tmp_path, data, capsys, no_reading):
    target = tmp_path / "items.txt"
    target.write_text("keep\n")
    target.chmod(0o444)
    for args in output_commands(data, str(target))[:2]:
        one_line_error(capsys, args, f"{str(target)!r} is read-only")
    assert target.read_text() == "keep\n"


def test_unwritable_folder_is_refused_before_the_work(
    tmp_path, data, capsys, monkeypatch, no_reading
):
    folder = tmp_path / "locked"
    folder.mkdir()
    real_mkstemp = tempfile.mkstemp

    def mkstemp(*args: object, dir: object = None, **kwargs: object) -> tuple[int, str]:
        if dir is not None and Path(str(dir)) == folder:  # as if chmod 0555 held for root
            raise PermissionError(errno.EACCES, "Permission denied")
        return real_mkstemp(*args, dir=dir, **kwargs)  # type: ignore[call-overload]

    monkeypatch.setattr(tempfile, "mkstemp", mkstemp)
    target = str(folder / "items.txt")
    for args in output_commands(data, target)[:2]:
        one_line_error(capsys, args, f"{target!r}: cannot write in folder", "permission denied")
    assert list(folder.iterdir()) == []


def test_failed_write_keeps_the_old_file_and_leaves_no_temporary(tmp_path, data, monkeypatch):
    target = tmp_path / "curve.png"
    target.write_text("old")
    from matplotlib.figure import Figure

    def fail(self: object, *args: object, **kwargs: object) -> None:
        raise OSError(errno.ENOSPC, "No space left on device")

    monkeypatch.setattr(Figure, "savefig", fail)
    assert main(["curve", str(data), "--plot", str(target)]) == 2
    assert target.read_text() == "old"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["curve.png", "pairs.csv"]
