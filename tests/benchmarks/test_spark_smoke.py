"""Smoke run of benchmarks/spark.py at tiny sizes (so the script cannot rot)."""

from __future__ import annotations

import re
import shutil

import pytest

pytest.importorskip("pyspark")


@pytest.mark.slow
@pytest.mark.skipif(shutil.which("java") is None, reason="PySpark needs Java")
def test_smoke_run_writes_table(tmp_path):
    from benchmarks import spark as bench

    assert bench.main(["--smoke", "--out", str(tmp_path), "--data-dir", str(tmp_path)]) == 0
    text = (tmp_path / "spark.md").read_text()
    rows = [line for line in text.splitlines() if re.match(r"\| [\d,]+ \| (union|count)", line)]
    assert len(rows) == 4
    assert "Growth exponent" in text and "peak RSS" in text


@pytest.mark.slow
@pytest.mark.skipif(shutil.which("java") is None, reason="PySpark needs Java")
def test_smoke_noise_only_writes_table(tmp_path):
    from benchmarks import spark as bench

    args = ["--smoke", "--noise-only", "--out", str(tmp_path), "--data-dir", str(tmp_path)]
    assert bench.main(args) == 0
    text = (tmp_path / "spark_noise.md").read_text()
    rows = [
        line for line in text.splitlines() if re.match(r"\| weighted_\w+ \| (local|spark)", line)
    ]
    assert len(rows) == 4
