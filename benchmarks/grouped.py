"""Grouped distinct counts: exact matching vs the truncation baseline per group, and speed.

Three workloads, all at the same ε, β and ℓ_max for both counting methods in the same run:

* **TPC-H O.OD by segment**: distinct ``o_orderdate`` per ``c_mktsegment``, person
  ``o_custkey`` (5 public groups, k = 1: a customer has one segment).
* **TPC-H L.RD by supplier nation**: distinct ``l_receiptdate`` per supplier nation key, person
  ``o_custkey`` (25 public groups, k = 5: a customer's line items come from many nations).
* **Reddit-shaped forums**: the ``reddit_like`` preset (7.1M pairs at scale 1) split into 1,000
  forums; every person is active in 1–3 forums and each pair lands in one of them (k = 3).

Per workload and method: the median and 90th percentile over groups × runs of the relative
error |DC_g(D) − estimate| / DC_g(D), the coverage (share of estimates ≤ DC_g(D)), and seconds
per release.  The speed section times (best of 3) the Reddit-shaped release end to end after
reading (building the grouped CSR from code arrays, bounding, all curves, all releases) and
compares the per-group curves against a reference in the same run: one ``PersonItemGraph`` and
one ``matching.dc_curve`` call per group.

Run ``python -m benchmarks.grouped`` (``--smoke`` for tiny sizes); the tables go to
``benchmarks/results/grouped.md``.
"""

from __future__ import annotations

import argparse
import resource
import time
from pathlib import Path

import numpy as np

import matching
from benchmarks._common import RESULTS, best_time, machine, markdown_table
from dpcount.datasets._synthetic import reddit_like
from dpcount.datasets._tpch import tpch_tables
from dpcount.graph import GroupedGraph
from dpcount.io import read_triples
from matching.grouped import grouped_curves
from mechanisms.grouped_distinct_count import grouped_distinct_count

EPSILON, BETA, ELL_MAX = 1.0, 0.05, 30


def forum_arrays(
    scale: float, n_forums: int, seed: int = 0
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(person, forum, item) code arrays of a Reddit-shaped graph split into forums."""
    graph = reddit_like(scale_factor=scale, seed=seed)
    rng = np.random.default_rng(seed)
    persons, items = graph.pairs()
    forums_of = rng.integers(0, n_forums, size=(graph.n_persons, 3))
    how_many = rng.integers(1, 4, size=graph.n_persons)
    pick = rng.integers(0, 1 << 30, size=persons.size) % how_many[persons]
    return persons, forums_of[persons, pick], items


def _tpch_sql(folder: Path, select: str, tables: tuple[str, ...]) -> str:
    paths = {t: str(folder / f"{t}.parquet").replace("'", "''") for t in tables}
    views = ",\n".join(f"{t} AS (SELECT * FROM read_parquet('{p}'))" for t, p in paths.items())
    return f"WITH {views}\n{select}"


def tpch_segments(scale_factor: float) -> GroupedGraph:
    """Distinct o_orderdate per c_mktsegment, person o_custkey."""
    tables = ("orders", "customer")
    folder = Path(tpch_tables(scale_factor, tables))
    select = (
        "SELECT o_custkey AS person, c_mktsegment AS grp, o_orderdate AS item FROM orders "
        "JOIN customer ON c_custkey = o_custkey"
    )
    return read_triples(sql=_tpch_sql(folder, select, tables), group="grp")


def tpch_supplier_nations(scale_factor: float) -> GroupedGraph:
    """Distinct l_receiptdate per supplier nation key, person o_custkey."""
    tables = ("lineitem", "orders", "supplier")
    folder = Path(tpch_tables(scale_factor, tables))
    select = (
        "SELECT o_custkey AS person, s_nationkey AS grp, l_receiptdate AS item FROM lineitem "
        "JOIN orders ON o_orderkey = l_orderkey JOIN supplier ON s_suppkey = l_suppkey"
    )
    return read_triples(sql=_tpch_sql(folder, select, tables), group="grp")


def compare(graph: GroupedGraph, k: int, runs: int) -> list[list[object]]:
    """Per counting method: median / p90 relative error, coverage, seconds per release."""
    truth = graph.distinct_counts()
    groups = graph.group_labels.tolist()
    rows: list[list[object]] = []
    for counting in ("matching", "sampling"):
        errors: list[float] = []
        covered, seconds = 0, 0.0
        for run in range(runs):
            start = time.perf_counter()
            table = grouped_distinct_count(
                graph,
                EPSILON,
                groups=groups,
                max_groups=k,
                beta=BETA,
                ell_max=ELL_MAX,
                counting=counting,
                rng=run,
            )
            seconds += time.perf_counter() - start
            estimates = np.array([r.estimate for r in table.rows], dtype=float)
            errors.extend((np.abs(truth - estimates) / np.maximum(truth, 1)).tolist())
            covered += int(np.sum(estimates <= truth))
        rows.append(
            [
                counting,
                float(np.median(errors)),
                float(np.quantile(errors, 0.9)),
                covered / (runs * len(groups)),
                seconds / runs,
            ]
        )
    return rows


def speed(arrays: tuple[np.ndarray, np.ndarray, np.ndarray], k: int) -> list[list[object]]:
    """End-to-end seconds after reading, and the per-group curves against a per-group loop.

    Each time is the best of 3 (the machine is shared, so the minimum is the least noisy).
    """
    build_s, graph = best_time(lambda: GroupedGraph.from_triples(*arrays))
    groups = graph.group_labels.tolist()
    release_s, _ = best_time(
        lambda: grouped_distinct_count(
            graph, EPSILON, groups=groups, max_groups=k, ell_max=ELL_MAX, rng=0
        )
    )
    bounded = graph.keep_groups(k, 1)
    fast_s, fast = best_time(lambda: grouped_curves(bounded, ELL_MAX))
    loop_s, loop = best_time(
        lambda: np.array(
            [matching.dc_curve(bounded.group(g), ELL_MAX) for g in bounded.group_labels]
        )
    )
    assert np.array_equal(fast, loop), "grouped curves differ from per-group dc_curve"
    return [
        ["build grouped CSR (sort, dedupe)", build_s],
        ["release (bound, curves, GEM + Laplace per group)", release_s],
        ["end to end after reading", build_s + release_s],
        ["all curves: grouped_curves", fast_s],
        ["all curves: PersonItemGraph + dc_curve per group (reference)", loop_s],
        ["ratio reference / grouped_curves", loop_s / max(fast_s, 1e-9)],
    ]


def main(argv: list[str] | None = None) -> int:
    """Run the comparisons and write the Markdown tables."""
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--smoke", action="store_true")
    parser.add_argument("--out", type=Path, default=RESULTS)
    args = parser.parse_args(argv)
    sf, scale, n_forums, runs = (0.01, 0.005, 20, 2) if args.smoke else (1.0, 1.0, 1000, 10)
    sections = []
    start = time.perf_counter()
    segments = tpch_segments(sf)
    read_segments = time.perf_counter() - start
    start = time.perf_counter()
    nations = tpch_supplier_nations(sf)
    read_nations = time.perf_counter() - start
    arrays = forum_arrays(scale, n_forums)
    forums = GroupedGraph.from_triples(*arrays)
    header = ["counting", "median rel. error", "p90 rel. error", "coverage", "s / release"]
    for title, graph, k, read_s in (
        ("TPC-H O.OD by c_mktsegment (public groups, k = 1)", segments, 1, read_segments),
        ("TPC-H L.RD by supplier nation (public groups, k = 5)", nations, 5, read_nations),
        ("Reddit-shaped forums (public groups, k = 3)", forums, 3, None),
    ):
        size = (
            f"{graph.n_triples:,} triples, {graph.n_groups:,} groups, {graph.n_persons:,} persons"
            + (f"; read in {read_s:.2f} s" if read_s is not None else "")
        )
        sections.append(
            f"## {title}\n\n{size}\n\n" + markdown_table(header, compare(graph, k, runs))
        )
    sections.append(
        f"## Speed: Reddit-shaped, {len(arrays[0]):,} triples, {n_forums:,} groups, k = 3\n\n"
        + markdown_table(["step", "seconds"], speed(arrays, 3))
    )
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    text = (
        f"# Grouped distinct counts\n\nε = {EPSILON}, β = {BETA}, ℓ_max = {ELL_MAX}, {runs} runs "
        f"per method; TPC-H SF {sf:g}, Reddit-shaped scale {scale:g}; {machine()}; peak RSS "
        f"{peak:.0f} MiB; shared machine (other jobs running), timings are indicative.\n\n"
        + "\n\n".join(sections)
        + "\n"
    )
    args.out.mkdir(parents=True, exist_ok=True)
    (args.out / "grouped.md").write_text(text)
    print(text)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
