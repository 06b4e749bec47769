"""Smoke test of benchmarks/tpch_table2.py (SF 0.01, 10 runs) and of its helpers."""

from __future__ import annotations

import numpy as np
import pytest

from benchmarks import tpch_table2
from dpcount import PersonItemGraph
from dpcount.errors import DataError
from mechanisms.distinct_count import dp_distinct_count_from_curve
from mechanisms.laplace import laplace_lower_bound


def test_trimmed_relative_error_drops_20_percent_each_side():
    # Errors: 20 exact, 60 off by 10 %, 20 wild; only the middle 60 count.
    estimates = [100.0] * 20 + [110.0] * 30 + [90.0] * 30 + [1e9] * 20
    assert tpch_table2.trimmed_relative_error(estimates, 100) == pytest.approx(0.1)
    assert tpch_table2.trimmed_relative_error(np.arange(1, 101), 100) == pytest.approx(
        np.mean(np.abs(np.arange(21, 81) - 100) / 100)
    )


def test_fast_dp_distinct_count_path_matches_the_mechanism():
    """The benchmark's repeated releases use GEM's probabilities and the same Laplace release."""
    g = PersonItemGraph.from_sets({f"p{i}": {i, i + 1, i % 7 + 1000} for i in range(200)})
    curve = tpch_table2.full_curve(g, 50, "auto")
    assert curve.size == 50 and curve[-1] == g.n_items
    r = dp_distinct_count_from_curve(
        curve,
        g.degrees(),
        1.0,
        beta=0.1,
        ell_max=50,
        selection_rng=1,
        noise_rng=2,
        diagnostics=True,
    )
    release = laplace_lower_bound(int(curve[r.ell - 1]), r.ell, 0.5, 0.1, rng=2)
    assert (release.shift, release.scale) == (r.shift, r.scale)
    assert release.estimate == r.estimate  # same stream, same draw
    streams = [np.random.default_rng(s) for s in range(30)]
    runs = tpch_table2.run_dp_distinct_count(g, "matching", 50, streams)
    assert runs.estimates.shape == (30,) and np.median(runs.estimates) <= g.n_items


def test_smoke(tmp_path):
    try:
        path = tpch_table2.main(["--smoke", "--out", str(tmp_path)])
    except DataError as exc:  # pragma: no cover - TPC-H generator not installed
        pytest.skip(f"TPC-H data unavailable: {exc}")
    text = path.read_text()
    assert path.name == "tpch_table2.md"
    for name in (*tpch_table2.QUERIES, *tpch_table2.MECHANISMS, "Wall time"):
        assert name in text
    assert "0.0658" in text  # the published R2T value sits next to ours
