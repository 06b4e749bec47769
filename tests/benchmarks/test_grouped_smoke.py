"""Smoke run of benchmarks/grouped.py at a tiny size (so the script cannot rot)."""

from __future__ import annotations

from benchmarks import grouped


def test_smoke_run_writes_table(tmp_path):
    assert grouped.main(["--smoke", "--out", str(tmp_path)]) == 0
    text = (tmp_path / "grouped.md").read_text()
    assert "| matching |" in text and "| sampling |" in text
