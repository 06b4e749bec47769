"""Bounded-time fuzzing of the CLI and ``read_pairs`` with malformed inputs.

Hypothesis generates broken or odd input files — random bytes under every suffix, truncated
Parquet, wrong delimiters, ragged rows, huge, negative, NaN and infinite numbers, unicode in
column names, empty globs, folders — and drives ``dpcount.cli.main`` in-process (a few cases in
a subprocess) and :func:`dpcount.read_pairs`.  Whatever the input:

* the CLI exits 0 (the input happened to be valid data) or 2 with exactly one line
  ``dpcount COMMAND: error: ...`` on stderr, and never prints a traceback;
* ``read_pairs`` returns a graph or raises a :class:`~dpcount.errors.DPCountError`, nothing else;
* no file is left behind in the working directory, the temp directory or the data folder;
* the input files are byte-for-byte unchanged (SHA-256 before and after).

Beyond malformed content, the classes of issue 24 that the command line owns:

* data loss – every option that writes, aimed at the input through any name (the path itself,
  a symbolic or hard link, a relative or dotted path, a member of the input glob), read-only or
  not, is refused and the input stays as it was;
* hang – every path option other than the data FILE (``--groups-file``, ``--output``, ``--csv``,
  ``--plot``) pointed at a FIFO nobody reads or writes, a device, a folder, a dangling link or a
  link loop answers within a deadline (the call runs in a thread that must finish);
* memory – every numeric option given huge, tiny, negative, non-finite or malformed values
  (hundreds of digits) ends in a result or a one-line error, with no allocation sized by the
  value (``curve --ell-max`` at its maximum on three rows among them).

Total time is bounded by small ``max_examples`` (~10 s here; the budget is 30 s).
"""

from __future__ import annotations

import hashlib
import io
import os
import subprocess
import sys
import tempfile
import threading
import warnings
from pathlib import Path

import numpy as np
import pyarrow as pa
import pyarrow.parquet as pq
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from dpcount import read_pairs
from dpcount.cli import _keys_file, main
from dpcount.errors import DPCountError

ROOT = Path(__file__).resolve().parents[1]
SUFFIXES = (".csv", ".tsv", ".parquet", ".jsonl", ".csv.gz", ".txt")
FUZZ = settings(
    max_examples=40,
    deadline=None,
    database=None,  # no example database written into the sandboxed working directory
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)

odd_text = st.text(
    alphabet=st.characters(blacklist_categories=("Cs",), blacklist_characters="\x00"),
    max_size=12,
)
numbers = st.one_of(
    st.integers(-(2**70), 2**70).map(str),
    st.sampled_from(["nan", "NaN", "inf", "-inf", "1e308", "-1e309", "0x1F", "", "-0", "1_000"]),
    st.floats(allow_nan=True, allow_infinity=True).map(repr),
)
cell = st.one_of(numbers, odd_text)


@st.composite
def delimited(draw) -> tuple[str, bytes]:
    """Delimited text with an odd header, delimiter, quoting, ragged rows and odd values."""
    delimiter = draw(st.sampled_from([",", "\t", ";", "|", " ", ",,"]))
    header = draw(
        st.one_of(
            st.just(["person", "item"]),
            st.lists(
                st.sampled_from(["person", "item", "pérson", "ítem", "人", "", '"']), max_size=4
            ),
        )
    )
    rows = draw(st.lists(st.lists(cell, min_size=0, max_size=4), max_size=6))
    lines = [delimiter.join(header), *(delimiter.join(r) for r in rows)]
    newline = draw(st.sampled_from(["\n", "\r\n", "\r"]))
    text = newline.join(lines) + draw(st.sampled_from(["", newline, '"']))
    bom = draw(st.sampled_from([b"", b"\xef\xbb\xbf", b"\xff\xfe"]))
    encoding = draw(st.sampled_from(["utf-8", "latin-1", "utf-16"]))
    data = bom + text.encode(encoding, errors="replace")
    return draw(st.sampled_from([".csv", ".tsv", ".txt"])), data


@st.composite
def truncated_parquet(draw) -> tuple[str, bytes]:
    n = draw(st.integers(1, 5))
    table = pa.table(
        {
            "person": [f"p{k}" for k in range(n)],
            "item": draw(st.lists(numbers, min_size=n, max_size=n)),
        }
    )
    buffer = io.BytesIO()
    pq.write_table(table, buffer)
    whole = buffer.getvalue()
    cut = draw(st.integers(0, len(whole) - 1))
    return ".parquet", whole[:cut]


@st.composite
def random_bytes(draw) -> tuple[str, bytes]:
    return draw(st.sampled_from(SUFFIXES)), draw(st.binary(min_size=1, max_size=200))


@st.composite
def json_lines(draw) -> tuple[str, bytes]:
    rows = draw(
        st.lists(
            st.one_of(
                st.builds(lambda p, i: f'{{"person": {p}, "item": {i}}}', numbers, numbers),
                odd_text,
            ),
            max_size=5,
        )
    )
    return ".jsonl", "\n".join(rows).encode("utf-8", errors="replace")


inputs = st.one_of(delimited(), truncated_parquet(), random_bytes(), json_lines())
options = st.lists(
    st.sampled_from(
        [
            ["--person", "person", "--item", "item"],
            ["--person", "pérson", "--item", "ítem"],
            ["--no-header"],
            ["--delimiter", ";"],
            ["--drop-nulls"],
            ["--encoding", "latin-1"],
            ["--format", "csv"],
            ["--format", "parquet"],
        ]
    ),
    max_size=2,
).map(lambda groups: [arg for group in groups for arg in group])
commands = st.sampled_from(
    [
        ["count", "--seed", "1"],
        ["count", "--json", "--ell-max", "1000000000"],
        ["curve", "--ell-max", "3"],
        ["curve", "--ell-max", "3", "--csv", "--output", "curve.csv"],
        ["count", "--json", "--output", "count.json"],
        ["union", "--seed", "1", "--max-items", "2"],
        ["union", "--max-items", "2", "--output", "items.txt"],
    ]
)
OUTPUTS = ("curve.csv", "count.json", "items.txt")  # written only by a run that succeeds


def _digest(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def _listing(*folders: Path) -> set[str]:
    return {str(p) for folder in folders for p in folder.rglob("*")}


@pytest.fixture
def sandbox(tmp_path, monkeypatch):
    """A private working directory, temp directory and data folder."""
    work, temp, data = tmp_path / "work", tmp_path / "temp", tmp_path / "data"
    for folder in (work, temp, data):
        folder.mkdir()
    monkeypatch.chdir(work)
    monkeypatch.setattr(tempfile, "tempdir", str(temp))
    monkeypatch.setenv("TMPDIR", str(temp))
    return work, temp, data


def _write(data_dir: Path, suffix: str, content: bytes, name: str) -> Path:
    path = data_dir / f"{name}{suffix}"
    path.write_bytes(content)
    return path


def _check_cli(args: list[str], capsys) -> int:
    code = main(args)
    out, err = capsys.readouterr()
    assert code in (0, 2), (args, code, err)
    assert "Traceback" not in err + out
    if code == 2:
        lines = err.strip().splitlines()
        errors = [line for line in lines if ": error: " in line]
        assert len(errors) == 1 and errors[0].startswith(f"dpcount {args[0]}: error: "), err
        assert lines[-1] == errors[0], err  # the error is the last thing said, in one line
    return code


def _on_file(sandbox, content: tuple[str, bytes], call):
    """Write the input, run ``call(path)`` quietly, check the input is unchanged and return
    ``(call's result, paths added to the sandbox)``."""
    work, temp, data = sandbox
    suffix, raw = content
    path = _write(data, suffix, raw, "input")
    before, digest = _listing(work, temp, data), _digest(path)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        result = call(path)
    assert _digest(path) == digest
    after = _listing(work, temp, data)
    assert before <= after, before - after  # nothing removed
    path.unlink()
    return result, after - before


@FUZZ
@given(content=inputs, command=commands, extra=options)
def test_cli_on_malformed_files(sandbox, capsys, content, command, extra) -> None:
    code, added = _on_file(
        sandbox,
        content,
        lambda path: _check_cli([command[0], str(path), *command[1:], *extra], capsys),
    )
    written = {str(sandbox[0] / name) for name in OUTPUTS if name in command}
    assert added == (written if code == 0 else set())
    for name in added:
        Path(name).unlink()


# --------------------------------------------------------------------------------------------
# Data loss: an output that names the input, however spelled
# --------------------------------------------------------------------------------------------

WRITERS = (
    ("union", "--output"),
    ("union", "--json", "--output"),
    ("count", "--csv", "--output"),
    ("curve", "--csv", "--output"),
    ("curve", "--csv"),  # the old spelling of --csv --output
    ("curve", "--plot"),
)


def _alias(data: Path, how: str) -> str:
    """Another name for ``data`` (created on disk when it is a link)."""
    alias = data.with_name(f"alias{data.suffix}")
    if how == "symlink":
        alias.symlink_to(data.name)
    elif how == "hardlink":
        os.link(data, alias)
    elif how == "link-to-folder":
        folder = data.parent / "via"
        folder.symlink_to(data.parent)
        return str(folder / data.name)
    return {
        "same": str(data),
        "symlink": str(alias),
        "hardlink": str(alias),
        "relative": os.path.relpath(data),
        "dotted": f"{data.parent}/./{data.name}",
    }[how]


@FUZZ
@given(
    writer=st.sampled_from(WRITERS),
    how=st.sampled_from(["same", "symlink", "hardlink", "relative", "dotted", "link-to-folder"]),
    as_glob=st.booleans(),
    read_only=st.booleans(),
)
def test_outputs_never_overwrite_the_input(sandbox, capsys, writer, how, as_glob, read_only):
    folder = Path(tempfile.mkdtemp(dir=sandbox[2]))
    suffix = ".png" if "--plot" in writer else ".csv"
    data = folder / f"pairs{suffix}"
    data.write_text("person,item\na,1\nb,2\n", encoding="utf-8")
    target = _alias(data, how)
    if read_only:
        data.chmod(0o444)
    source = str(folder / f"*{suffix}") if as_glob else str(data)
    fmt = ["--format", "csv"] if suffix == ".png" else []
    digest = _digest(data)
    assert _check_cli([writer[0], source, *fmt, *writer[1:], target], capsys) == 2
    assert _digest(data) == digest and data.is_file() and not data.is_symlink()


# --------------------------------------------------------------------------------------------
# Hang: special files behind every path option the command line opens itself
# --------------------------------------------------------------------------------------------

DEADLINE = 120.0  # seconds; the new code answers each case in well under one (a loaded machine)


def _special(folder: Path, kind: str) -> str:
    path = folder / f"special-{kind}.txt"
    if kind == "fifo":
        os.mkfifo(path)
    elif kind == "folder":
        path.mkdir()
    elif kind == "dangling":
        path.symlink_to(folder / "missing" / "x.txt")
    elif kind == "loop":
        path.symlink_to(path)
    elif kind == "device":
        return "/dev/zero"
    return str(path)


def _within_deadline(args: list[str], capsys) -> int:
    codes: list[int] = []
    worker = threading.Thread(target=lambda: codes.append(main(args)), daemon=True)
    worker.start()
    worker.join(DEADLINE)
    assert not worker.is_alive(), f"still running after {DEADLINE:g} s: {args}"
    _, err = capsys.readouterr()
    assert codes and codes[0] in (0, 2), (args, codes, err)
    assert "Traceback" not in err
    if codes[0] == 2:  # warnings may come first; the error is one line, and the last
        lines = err.strip().splitlines()
        assert [line for line in lines if ": error: " in line] == lines[-1:], err
    return codes[0]


PATH_OPTIONS = (
    ("count", "--group", "g", "--max-groups", "1", "--groups-file"),
    ("count", "--group", "g", "--max-groups", "1", "--delta", "1e-6", "--output"),
    ("union", "--output"),
    ("curve", "--output"),
    ("curve", "--plot"),
)


@FUZZ
@given(
    option=st.sampled_from(PATH_OPTIONS),
    kind=st.sampled_from(["fifo", "folder", "dangling", "loop", "device"]),
)
def test_path_options_never_wait_forever(sandbox, capsys, monkeypatch, option, kind) -> None:
    monkeypatch.setattr(_keys_file, "PIPE_TIMEOUT", 0.05)
    folder = Path(tempfile.mkdtemp(dir=sandbox[2]))
    data = folder / "triples.csv"
    data.write_text("person,item,g\na,1,x\nb,2,y\n", encoding="utf-8")
    target = _special(folder, kind)
    if option[-1] == "--plot" and kind == "device":
        target = "/dev/zero.png"  # a plot needs a plot suffix: a missing folder-like path
    code = _within_deadline([option[0], str(data), *option[1:], target, "--seed", "1"], capsys)
    assert code == 2 or kind == "device"  # a character device is written in place
    assert data.read_text(encoding="utf-8") == "person,item,g\na,1,x\nb,2,y\n"


# --------------------------------------------------------------------------------------------
# Memory: numeric options at any size
# --------------------------------------------------------------------------------------------

odd_numbers = st.one_of(
    st.integers(1, 600).map(lambda n: "9" * n),
    st.integers(-(2**80), 2**80).map(str),
    st.floats(allow_nan=True, allow_infinity=True).map(repr),
    st.sampled_from(
        ["", "-0", "0x10", "1e400", "1e-400", "1e-300", "5e-324", "٣", "1_0", " 7 ", "2147483647"]
    ),
)
GROUPED = ("--group", "g", "--groups-file", "KEYS")
NUMERIC = (  # (command, other options, the option under test)
    ("count", (), "--ell-max"),
    ("count", (), "--epsilon"),
    ("count", (), "--beta"),
    ("count", (), "--seed"),
    ("curve", (), "--ell-max"),
    ("union", (), "--max-items"),
    ("union", (), "--delta"),
    ("count", (*GROUPED, "--max-groups", "1"), "--ell-max"),
    ("count", GROUPED, "--max-groups"),
)


@FUZZ
@given(option=st.sampled_from(NUMERIC), value=odd_numbers)
def test_numeric_options_at_any_size(sandbox, capsys, option, value) -> None:
    command, others, flag = option
    folder = Path(tempfile.mkdtemp(dir=sandbox[2]))
    data = folder / "triples.csv"
    data.write_text("person,item,g\na,1,x\na,2,y\nb,2,x\n", encoding="utf-8")
    keys = folder / "keys.txt"
    keys.write_text("x\ny\n", encoding="utf-8")
    others = [str(keys) if part == "KEYS" else part for part in others]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        _within_deadline([command, str(data), *others, flag, value], capsys)


def _read(path: Path, drop_nulls: bool) -> None:
    try:
        read_pairs(path, drop_nulls=drop_nulls)
    except DPCountError as exc:  # anything else is a bug
        assert str(exc).strip()


@FUZZ
@given(content=inputs, drop_nulls=st.booleans())
def test_read_pairs_on_malformed_files(sandbox, content, drop_nulls) -> None:
    _, added = _on_file(sandbox, content, lambda path: _read(path, drop_nulls))
    assert added == set()


@pytest.mark.parametrize(
    "target",
    ["missing.csv", "empty-dir", "empty-dir/*.csv", "empty-dir/*.parquet", "data-dir", "*.jsonl"],
)
def test_cli_on_missing_files_globs_and_folders(sandbox, capsys, target) -> None:
    work, temp, data = sandbox
    (work / "empty-dir").mkdir()
    (work / "data-dir").mkdir()
    (work / "data-dir" / "a.csv").write_text("person,item\na,1\n", encoding="utf-8")
    before = _listing(work, temp, data)
    for command in (["count"], ["curve"], ["union"]):
        _check_cli([*command, target], capsys)
    assert _listing(work, temp, data) == before


@pytest.mark.parametrize(
    ("name", "content"),
    [
        # Seeded, so that every xdist worker collects the same test ids.
        ("random.parquet", np.random.default_rng(64).bytes(64)),
        ("ragged.csv", b'person,item\n"a,1\nb\n\xff\xfe,,,\n'),
        ("numbers.csv", b"person,item\n-1,1e309\nnan,-inf\n" + b"9" * 40 + b",2\n"),
    ],
    ids=["random-bytes", "ragged", "huge-and-nan"],
)
def test_cli_subprocess_on_malformed_files(tmp_path, name, content) -> None:
    """The installed entry point too: stderr one line, status 2 or 0, nothing left behind."""
    path = tmp_path / name
    path.write_bytes(content)
    temp = tmp_path / "temp"
    temp.mkdir()
    before = _listing(tmp_path)
    env = {**os.environ, "PYTHONPATH": str(ROOT), "TMPDIR": str(temp)}
    done = subprocess.run(
        [sys.executable, "-m", "dpcount", "count", str(path), "--seed", "1"],
        capture_output=True,
        text=True,
        env=env,
        cwd=tmp_path,
        timeout=120,
        check=False,
    )
    assert done.returncode in (0, 2) and "Traceback" not in done.stderr
    if done.returncode == 2:
        assert done.stderr.count("\n") == 1 and done.stderr.startswith("dpcount count: error: ")
    assert path.read_bytes() == content
    assert _listing(tmp_path) == before
