"""The check every command-line error test shares: status 2, one line, the expected words."""

from __future__ import annotations

import re

import pytest

from dpcount.cli import main


def one_line_error(capsys: pytest.CaptureFixture[str], args: list[str], *fragments: str) -> str:
    """Run ``dpcount ARGS``; it must fail with one ``dpcount COMMAND: error:`` line holding every
    fragment, print nothing on stdout, and never name an internal file or echo a huge value."""
    assert main(args) == 2
    captured = capsys.readouterr()
    assert captured.out == ""
    lines = captured.err.strip().splitlines()
    assert len(lines) == 1, captured.err
    assert lines[0].startswith(f"dpcount {args[0]}: error: "), lines[0]
    for fragment in fragments:
        assert fragment in lines[0], lines[0]
    assert ".tmp" not in lines[0] and "dpcount-" not in lines[0]  # never an internal file
    assert not re.search(r"\d{100}", lines[0])  # no echo of a 400-digit value
    return lines[0]
