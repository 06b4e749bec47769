"""Smoke run of benchmarks/noise.py (so the script cannot rot)."""

from __future__ import annotations

from benchmarks import noise


def test_smoke_run_writes_the_table(tmp_path):
    assert noise.main(["--smoke", "--quiet", "--out", str(tmp_path)]) == 0
    text = (tmp_path / "noise.md").read_text()
    assert "| Gaussian | 1,000 | 3,000 |" in text and "| Laplace | 1 | 3,000 |" in text
