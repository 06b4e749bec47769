"""Smoke run of benchmarks/first_call.py (so the script cannot rot)."""

from __future__ import annotations

from benchmarks import first_call


def test_smoke_run_reports_every_command(tmp_path):
    assert first_call.main(["--smoke", "--out", str(tmp_path)]) == 0
    text = (tmp_path / "first_call.md").read_text()
    for command in first_call.commands(smoke=True):
        row = next(line for line in text.splitlines() if line.startswith(f"| {command.name} |"))
        wall, ratio, rss = (float(x.replace(",", "")) for x in row.split("|")[2:5])
        assert wall > 0 and ratio > 0 and rss > 0
    assert "≤ 3.0 s" in text and "≤ 0.3 s" in text
