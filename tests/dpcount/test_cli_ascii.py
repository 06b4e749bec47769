"""The CLI falls back to ASCII ("eps", "<=") when stdout/stderr cannot encode its text."""

from __future__ import annotations

import io
import os
import subprocess
import sys
from pathlib import Path

import pytest

from dpcount.cli import main
from dpcount.cli._output import ERROR_HANDLER, to_ascii

ROOT = Path(__file__).resolve().parents[2]


def test_spelled_out_characters() -> None:
    assert to_ascii("ε = 1, β ≤ 0.5, δ, ℓ̂ − 1") == "eps = 1, beta <= 0.5, delta, ell^ - 1"
    assert to_ascii("café ✓") == "cafe ?"
    assert "ν̂ ≥ 3".encode("latin-1", errors=ERROR_HANDLER) == b"nu^ >= 3"


def _run(args: list[str], tmp_path: Path) -> subprocess.CompletedProcess[bytes]:
    env = {**os.environ, "PYTHONIOENCODING": "ascii", "PYTHONPATH": str(ROOT)}
    return subprocess.run(
        [sys.executable, "-m", "dpcount", *args],
        capture_output=True,
        env=env,
        cwd=tmp_path,
        timeout=120,
        check=False,
    )


@pytest.mark.parametrize(
    ("args", "code", "expected"),
    [
        (["count", "pairs.csv", "--seed", "1"], 0, "eps = 1"),
        (["count", "--help"], 0, "eps"),
        (["curve", "pairs.csv", "--ell-max", "2"], 0, "DC(D;ell)"),
        (["count", "pairs.csv", "--epsilon", "-1"], 2, "epsilon"),
    ],
)
def test_ascii_terminal_gets_no_traceback(tmp_path, args, code, expected) -> None:
    (tmp_path / "pairs.csv").write_text("person,item\na,x\nb,y\nb,x\n", encoding="utf-8")
    done = _run(args, tmp_path)
    out, err = done.stdout.decode("ascii"), done.stderr.decode("ascii")  # both pure ASCII
    assert done.returncode == code, err
    assert "Traceback" not in err and "UnicodeEncodeError" not in err
    assert expected in out + err


def test_in_process_ascii_stdout_is_restored_after_the_command(monkeypatch) -> None:
    raw = io.BytesIO()
    stream = io.TextIOWrapper(raw, encoding="ascii", errors="strict")
    monkeypatch.setattr(sys, "stdout", stream)
    assert main(["curve", "--dataset", "southern-women", "--ell-max", "2"]) == 0
    stream.flush()
    assert b"DC(D;ell)" in raw.getvalue()
    assert stream.errors == "strict"  # the handler is only installed for the command
