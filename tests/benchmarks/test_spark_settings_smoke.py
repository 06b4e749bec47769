"""Smoke run of benchmarks/spark_settings.py at a tiny size (so the script cannot rot)."""

from __future__ import annotations

import re
import shutil

import pytest

pytest.importorskip("pyspark")


@pytest.mark.slow
@pytest.mark.skipif(shutil.which("java") is None, reason="PySpark needs Java")
def test_smoke_run_writes_table(tmp_path):
    from benchmarks import spark_settings as bench

    assert (
        bench.main(["--scale", "0.002", "--repeats", "1", "--warmups", "0", "--out", str(tmp_path)])
        == 0
    )
    text = (tmp_path / "spark_settings.md").read_text()
    rows = re.findall(r"^\| (\d+) \| 1 \|", text, flags=re.M)
    assert rows == ["200", "4"]
