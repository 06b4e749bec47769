"""Smoke run of benchmarks/dc_curve.py at tiny sizes (so the script cannot rot)."""

from __future__ import annotations

import numpy as np

from benchmarks import dc_curve
from dpcount import PersonItemGraph


def test_smoke_run_writes_table_and_figure(tmp_path):
    assert dc_curve.main(["--smoke", "--quiet", "--out", str(tmp_path)]) == 0
    text = (tmp_path / "dc_curve.md").read_text()
    for method in (*dc_curve.FAST_METHODS, *dc_curve.SMOKE.slow_scales):
        rows = [
            line
            for line in text.splitlines()
            if line.startswith(f"| {method} |") and "×)" in line  # a cell with its ratio
        ]
        assert len(rows) == 1, method
    assert "Read pass" in text and "identical curves" in text
    assert (tmp_path / "dc_curve.png").stat().st_size > 1000


def test_growth_extrapolates_from_the_two_largest_scales():
    curve = np.zeros(1, dtype=np.int64)
    timings = [
        dc_curve.Timing("m", 0.01, 1.0, 1.0, curve),
        dc_curve.Timing("m", 0.1, 10.0, 1.0, curve),
        dc_curve.Timing("m", 0.001, 5.0, 1.0, curve),
    ]
    exponent, last, seconds = dc_curve.growth(timings, "m")
    assert (round(exponent, 6), last, seconds) == (1.0, 0.1, 10.0)
    assert dc_curve.growth(timings[:1], "m") is None


def test_reference_curve_and_read_pass():
    graph = PersonItemGraph.from_sets({"a": {1, 2, 3}, "b": {1}})
    assert dc_curve.reference_curve(graph, 4).tolist() == [2, 3, 3, 3]
    assert dc_curve.read_pass(graph) == 3
