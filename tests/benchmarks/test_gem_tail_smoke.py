"""Smoke run of benchmarks/gem_tail.py (so the script cannot rot)."""

from __future__ import annotations

from benchmarks import gem_tail


def test_smoke_run_writes_the_table(tmp_path):
    assert gem_tail.main(["--smoke", "--quiet", "--out", str(tmp_path)]) == 0
    text = (tmp_path / "gem_tail.md").read_text()
    assert "| 100 |" in text and "| 2,147,483,647 | not run" in text
