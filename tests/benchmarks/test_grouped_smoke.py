"""Smoke run of benchmarks/grouped.py at a tiny size, and checks of its peer baselines.

OpenDP and Tumult are optional: the smoke run skips them (``--libraries none``) and the OpenDP
check is skipped where OpenDP is not installed.
"""

from __future__ import annotations

import numpy as np
import pytest

from benchmarks import grouped
from benchmarks._peers import NumpyPeer, OpenDPRunner, opendp_available, truncated_counts
from dpcount.graph import GroupedGraph


def test_smoke_run_writes_table(tmp_path):
    assert grouped.main(["--smoke", "--libraries", "none", "--out", str(tmp_path)]) == 0
    text = (tmp_path / "grouped.md").read_text()
    for row in (
        "| dpcount, one ℓ for all groups (default",
        "| dpcount, GEM per group",
        "| dpcount, public ℓ",
        "| truncation + Laplace (ours), shifted",
    ):
        assert text.count(row) == 3, row  # once per workload
    targets = text[text.index("## Targets") : text.index("## TPC-H")]
    assert targets.count("| yes |") + targets.count("| **no** |") == 3
    assert "| dp_distinct_count(g, ε, ell=1) | 1 | 1 |" in targets


def _rows(ours: tuple[float, float], peers: list[float]) -> list[list[object]]:
    """Table rows: dpcount's default (median, coverage), a non-default rule, shifted peers."""
    rows: list[list[object]] = [
        [grouped.DEFAULT_ROW + ", …)", "k = 1", ours[0], 0.0, ours[1], 0.1],
        ["dpcount, GEM per group", "k = 1", 0.0, 0.0, 1.0, 0.1],  # not the default: ignored
        ["peer, raw (not a bound)", "k = 1, r = 1", 0.0, 0.0, 0.5, 0.1],  # not shifted: ignored
    ]
    rows += [
        [f"p{i}" + grouped.SHIFTED_ROW, "k = 1, r = 1", m, 0.0, 1.0, 0.1]
        for i, m in enumerate(peers)
    ]
    return rows


def test_target_is_met_only_below_every_shifted_peer_with_coverage():
    met = grouped.target_row("d", _rows((0.2, 0.96), [0.3, 0.25]))
    assert met[-1] == "yes" and met[3] == pytest.approx(0.2 / 0.25) and "p1" in str(met[2])
    assert grouped.target_row("d", _rows((0.26, 0.96), [0.3, 0.25]))[-1] == "**no**"
    assert grouped.target_row("d", _rows((0.2, 0.94), [0.3, 0.25]))[-1] == "**no**"


def _graph(seed: int = 0) -> GroupedGraph:
    rng = np.random.default_rng(seed)
    persons = rng.integers(0, 40, 600)
    return GroupedGraph.from_triples(persons, rng.integers(0, 5, 600), rng.integers(0, 90, 600))


def test_truncation_keeps_at_most_k_groups_and_r_items():
    graph = _graph()
    rng = np.random.default_rng(1)
    # With caps above every degree nothing is dropped.
    assert truncated_counts(graph, 5, 600, rng).tolist() == graph.distinct_counts().tolist()
    # k = 1, r = 1: every person leaves at most one item in one group, so at most 40 in all.
    counts = truncated_counts(graph, 1, 1, rng)
    assert counts.sum() <= graph.n_persons and np.all(counts <= graph.distinct_counts())
    # r = 2 keeps at most two items per person and group.
    assert np.all(truncated_counts(graph, 5, 2, rng) <= 2 * np.bincount(graph.row_groups()))


def test_numpy_peer_noise_scale_is_k_r_over_epsilon():
    release = NumpyPeer(_graph()).release(3, 4, 2.0, seed=0)
    assert release.scale == 6.0 and release.counts.shape == (5,)


@pytest.mark.skipif(not opendp_available(), reason="OpenDP is optional")
def test_opendp_runner_maps_groups_back_and_reports_its_scale():
    # One own item per person, groups of 10, 30, 50, 70 and 90 persons.  OpenDP keeps k − 1
    # groups per person (module docstring), so k = 2 keeps each person's one group; at ε = 5
    # the noise has scale 2/5 and |Z| ≤ 5 fails with probability < 1e-5, while the counts are
    # 20 apart: a group mapped back to the wrong label cannot pass.
    sizes = [10, 30, 50, 70, 90]
    groups = np.repeat(np.arange(5), sizes)
    persons = np.arange(groups.size)
    graph = GroupedGraph.from_triples(persons, groups, persons)
    release = OpenDPRunner(graph).release(2, 1, 5.0, seed=3)
    assert np.all(np.abs(release.counts - np.array(sizes)) <= 5), release.counts
    assert release.scale == 2 / 5.0
    # The scale the runner assumes is the one OpenDP reports.
    summary = OpenDPRunner(graph).query(3, 4, 2.0).summarize()
    assert float(summary["scale"][0]) == 3 * 4 / 2.0
