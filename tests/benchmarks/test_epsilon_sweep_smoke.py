"""Smoke test of benchmarks/epsilon_sweep.py (5 runs, 3 values of ε, small data)."""

from __future__ import annotations

import numpy as np
import pytest

from benchmarks import epsilon_sweep
from dpcount import PersonItemGraph
from dpcount.errors import DataError


def test_sweep_percentiles_are_ordered():
    g = PersonItemGraph.from_sets({f"p{i}": {i, i + 1} for i in range(60)})
    table = epsilon_sweep.sweep(g, (1.0, 10.0), runs=5, seed=0)
    for mechanism in epsilon_sweep.MECHANISMS:
        low, mid, high = table[mechanism].T
        assert np.all(low <= mid) and np.all(mid <= high)
        assert mid[1] <= g.n_items + 1  # lower bounds: at ε = 10 below the truth (or at it)


def test_smoke(tmp_path):
    try:
        path = epsilon_sweep.main(["--smoke", "--out", str(tmp_path)])
    except DataError as exc:  # pragma: no cover - TPC-H generator not installed
        pytest.skip(f"TPC-H data unavailable: {exc}")
    assert path.name == "epsilon_sweep_smoke.png"
    assert path.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
