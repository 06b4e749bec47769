"""Smoke run of benchmarks/exact_releases.py (so the script cannot rot)."""

from __future__ import annotations

from benchmarks import exact_releases


def test_smoke_run_writes_the_tables(tmp_path):
    assert exact_releases.main(["--smoke", "--quiet", "--out", str(tmp_path)]) == 0
    text = (tmp_path / "exact_releases.md").read_text()
    assert "| southern-women |" in text and "| bayesian_dp | 60 persons" in text
