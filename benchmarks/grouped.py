"""Grouped distinct counts: exact matching vs the truncation baseline per forum, and timing.

A Reddit-shaped graph (``dpcount.datasets`` preset) is split into forums: every person is
active in 1–3 forums (uniform) and each of their pairs lands in one of them.  For each counting
method the script reports, per forum, the median relative error of the lower bound against the
forum's true distinct count, the coverage over the runs, and the seconds per release, all at the
same ε, β, k and ℓ_max in the same run.

Run ``python -m benchmarks.grouped`` (``--smoke`` for a tiny size); the table goes to
``benchmarks/results/grouped.md``.
"""

from __future__ import annotations

import argparse
import resource
import time
from pathlib import Path

import numpy as np

from benchmarks._common import RESULTS, machine, markdown_table
from dpcount.datasets._synthetic import reddit_like
from mechanisms.grouped_distinct_count import grouped_distinct_count


def forum_triples(scale: float, n_forums: int, seed: int) -> list[tuple[int, int, int]]:
    """(person, forum, item) triples of a Reddit-shaped graph split into ``n_forums`` forums."""
    graph = reddit_like(scale=scale, seed=seed)
    rng = np.random.default_rng(seed)
    persons, items = graph.pairs()
    forums_of = rng.integers(0, n_forums, size=(graph.n_persons, 3))
    how_many = rng.integers(1, 4, size=graph.n_persons)
    codes = np.searchsorted(graph.person_labels, persons)
    pick = rng.integers(0, 1 << 30, size=codes.size) % how_many[codes]
    forums = forums_of[codes, pick]
    return list(
        zip(
            codes.tolist(),
            forums.tolist(),
            np.searchsorted(graph.item_labels, items).tolist(),
            strict=True,
        )
    )


def main(argv: list[str] | None = None) -> int:
    """Run the comparison and write the Markdown table."""
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--smoke", action="store_true")
    parser.add_argument("--out", type=Path, default=RESULTS)
    args = parser.parse_args(argv)
    scale, n_forums, runs = (0.01, 3, 3) if args.smoke else (0.2, 10, 20)
    epsilon, beta, k, ell_max = 1.0, 0.05, 3, 30
    triples = forum_triples(scale, n_forums, seed=0)
    forums = list(range(n_forums))
    truth: dict[object, int] = {g: len({i for _, gg, i in triples if gg == g}) for g in forums}
    rows = []
    for counting in ("matching", "sampling"):
        errors: list[float] = []
        covered, seconds = 0, 0.0
        for run in range(runs):
            start = time.perf_counter()
            table = grouped_distinct_count(
                triples,
                epsilon,
                groups=forums,
                max_groups=k,
                beta=beta,
                ell_max=ell_max,
                counting=counting,
                rng=run,
            )
            seconds += time.perf_counter() - start
            for r in table.rows:
                errors.append(abs(truth[r.group] - r.estimate) / max(1, truth[r.group]))
                covered += int(r.estimate <= truth[r.group])
        rows.append(
            [counting, float(np.median(errors)), covered / (runs * n_forums), seconds / runs]
        )
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    text = (
        f"# Grouped distinct counts ({len(triples):,} triples, {n_forums} forums)\n\n"
        f"ε = {epsilon}, β = {beta}, k = {k}, ℓ_max = {ell_max}, {runs} runs; {machine()}; "
        f"peak RSS {peak:.0f} MiB; shared machine, timings are indicative.\n\n"
        + markdown_table(["counting", "median rel. error", "coverage", "s / release"], rows)
        + "\n"
    )
    args.out.mkdir(parents=True, exist_ok=True)
    (args.out / "grouped.md").write_text(text)
    print(text)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
