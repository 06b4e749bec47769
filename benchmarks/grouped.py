"""Grouped distinct counts as (1 − β) lower bounds: dpcount against the peers' truncation.

Three workloads, every method at the same ε and β in the same run, public group keys:

* **TPC-H O.OD by segment**: distinct ``o_orderdate`` per ``c_mktsegment``, person
  ``o_custkey`` (5 groups; every customer is in one segment, so dpcount uses k = 1).
* **TPC-H L.RD by supplier nation**: distinct ``l_receiptdate`` per supplier nation key, person
  ``o_custkey`` (25 groups; a customer's line items come from many nations, dpcount uses k = 5).
* **Forum-like**: the ``reddit_like`` shape at the plan's number of persons (50,000 in the full
  plan) split into 20 forums; every person is active in 1–3 forums and each of their pairs
  lands in one of them (dpcount uses k = 3).

**dpcount** rows are :func:`mechanisms.grouped_distinct_count` at the API's defaults
(ℓ_max = 100) under each rule for ℓ (:mod:`mechanisms.grouped_ell`): one ℓ for all groups (the
default, and other shares of the budget for the choice), GEM per group (the rule before),
its own truncation (``counting="sampling"``), and a public (k, ℓ) picked like the peers' (k, r)
below – a non-private tuning shown as an upper limit.  Every dpcount estimate is a lower bound.

**Peer** rows are the mechanism of Tumult Analytics (``count_distinct`` after ``MaxGroupsPerID``
and ``MaxRowsPerGroupPerID``) and OpenDP (Polars ``truncate_num_groups``,
``truncate_per_group``, ``n_unique``): each person keeps k groups and r rows per group, then
discrete Laplace noise of scale k·r/ε (:mod:`benchmarks._peers`).  It runs as our NumPy
implementation always, and through the libraries where they are installed (OpenDP in this
environment; Tumult through ``--tumult-python``, an interpreter that has it).  Our NumPy peer
gets its best (k, r) of the plan's grid (``k_grid`` × ``r_grid``), chosen by median relative
error on ``tuning_runs`` separate releases whose seeds the reported runs do not use; the
libraries – the same truncation, but seconds to tens of seconds a release – are tuned on one
release of each of the ``SHORTLIST`` best settings of our NumPy peer.  Each peer is reported
twice: its raw noisy counts (what it releases; not a bound) and **shifted** by the (1 − β)
quantile of its own noise, so that it too releases a lower bound.  The peers read the distinct
(person, group, item) triples (duplicate rows removed first, which only helps them).

The results open with the issue-29 **Targets**: per data set, dpcount's default against the
best shifted peer (met when its median relative error is at most every shifted peer's and its
coverage at least 1 − β), and the Laplace scale of a public ℓ.

Per method: the median and 90th percentile over groups × runs of the relative error
|DC_g(D) − estimate| / DC_g(D), the coverage (share of estimates ≤ DC_g(D)) and seconds per
release.  A last section times the release on the 7.1M-triple Reddit-shaped data split into
1,000 forums and compares the per-group curves against one ``matching.dc_curve`` per group.

Run ``python -m benchmarks.grouped`` (``--plan medium`` for TPC-H SF 0.2 and 20,000 forum
persons, 22 minutes with the peers on 2 cores shared at a load average of ~9; ``--smoke`` for
tiny sizes; ``--libraries none`` to skip OpenDP and Tumult); the tables go to
``benchmarks/results/grouped.md``.
"""

from __future__ import annotations

import argparse
import resource
import tempfile
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path

import numpy as np

import matching
from benchmarks._common import RESULTS, best_time, machine, markdown_table
from benchmarks._peers import (
    NumpyPeer,
    OpenDPRunner,
    Peer,
    PeerRelease,
    TumultRunner,
    opendp_available,
    tumult_python,
)
from dpcount.datasets._synthetic import reddit_like
from dpcount.datasets._tpch import tpch_tables
from dpcount.graph import GroupedGraph, PersonItemGraph
from dpcount.io import read_triples
from matching.grouped import grouped_curves
from mechanisms.distinct_count import dp_distinct_count
from mechanisms.grouped_counts import grouped_distinct_count
from mechanisms.grouped_ell import DEFAULT_ELL_SHARE
from mechanisms.laplace import discrete_shift

EPSILON, BETA, ELL_MAX = 1.0, 0.05, 100  # ℓ_max: the API default
SHORTLIST = 3
TUNING_SEED = 1_000_000  # tuning releases use seeds from here on, reported runs 0, 1, ...
FORUM_PERSONS, FORUMS = 50_000, 20


@dataclass(frozen=True)
class Plan:
    """Sizes, grids and repetitions of one run of the benchmark."""

    sf: float  # TPC-H scale factor
    forum_persons: int
    speed_scale: float  # Reddit-shaped scale of the speed section
    speed_forums: int
    runs: int  # reported releases per method
    tuning_runs: int  # separate releases per setting when tuning
    k_grid: tuple[int, ...]
    r_grid: tuple[int, ...]  # r for the peers, ℓ for dpcount's public (k, ℓ)
    shares: tuple[float, ...]  # ε_choose / ε_count of the shared choice of ℓ


FULL = Plan(
    1.0,
    FORUM_PERSONS,
    1.0,
    1000,
    10,
    3,
    (1, 2, 3, 4, 6),
    tuple(2**i for i in range(9)),
    (0.05, 0.1, 0.25, 0.5),
)
# Smaller data for a shared 2-core machine: 22 minutes with the peers at a load average of ~9.
MEDIUM = Plan(
    0.2,
    20_000,
    1.0,
    1000,
    10,
    3,
    (1, 2, 3, 4, 6),
    tuple(2**i for i in range(9)),
    (0.05, 0.1, 0.25),
)
SMOKE = Plan(0.01, 1_000, 0.005, 20, 2, 1, (1, 2), (1, 4), (DEFAULT_ELL_SHARE,))
PLANS = {"full": FULL, "medium": MEDIUM, "smoke": SMOKE}
HEADER = ["method", "setting", "median rel. error", "p90 rel. error", "coverage", "s / release"]


@dataclass(frozen=True)
class Workload:
    """One benchmark data set, dpcount's k for it, and how long reading it took."""

    title: str
    graph: GroupedGraph
    k: int
    read_seconds: float | None


@dataclass(frozen=True)
class Scores:
    """Median / p90 relative error and coverage of a method over groups × runs."""

    median: float
    p90: float
    coverage: float

    @classmethod
    def of(cls, truth: np.ndarray, estimates: Sequence[np.ndarray]) -> Scores:
        """Scores of estimates (one array per run, groups in label order) against the truth."""
        est = np.asarray(estimates, dtype=float)
        errors = np.abs(truth - est) / np.maximum(truth, 1)
        return cls(
            float(np.median(errors)), float(np.quantile(errors, 0.9)), float(np.mean(est <= truth))
        )


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


# --------------------------------------------------------------------------------------------
# dpcount
# --------------------------------------------------------------------------------------------


def dpcount_release(graph: GroupedGraph, k: int, **options: object) -> Callable[[int], np.ndarray]:
    """seed → the lower bounds of :func:`grouped_distinct_count` on every group, label order."""

    def release(seed: int) -> np.ndarray:
        table = grouped_distinct_count(
            graph,
            EPSILON,
            groups=graph.group_labels.tolist(),
            max_groups=k,
            beta=BETA,
            ell_max=ELL_MAX,
            rng=seed,
            **options,  # type: ignore[arg-type]
        )
        return np.array([row.estimate for row in table.rows], dtype=float)

    return release


def dpcount_variants(shares: Sequence[float]) -> list[tuple[str, dict[str, object]]]:
    """(name, options) of the private dpcount rules compared on every workload."""
    return [
        (f"dpcount, one ℓ for all groups (default, ε_choose = {DEFAULT_ELL_SHARE}·ε)", {}),
        *(
            (f"dpcount, one ℓ for all groups, ε_choose = {share}·ε", {"ell_share": share})
            for share in shares
            if share != DEFAULT_ELL_SHARE
        ),
        ("dpcount, GEM per group (before issue 29)", {"ell_choice": "per_group"}),
        ("dpcount, own truncation (`counting='sampling'`)", {"counting": "sampling"}),
    ]


def run(
    release: Callable[[int], np.ndarray], seeds: Sequence[int]
) -> tuple[list[np.ndarray], float]:
    """The estimates of one release per seed and the mean seconds per release."""
    estimates, seconds = [], 0.0
    for seed in seeds:
        start = time.perf_counter()
        estimates.append(release(seed))
        seconds += time.perf_counter() - start
    return estimates, seconds / max(1, len(seeds))


def dpcount_rows(workload: Workload, plan: Plan) -> list[list[object]]:
    """Every private rule at the workload's k, then a public (k, ℓ) tuned like the peers."""
    graph, truth, runs = workload.graph, workload.graph.distinct_counts(), plan.runs
    rows: list[list[object]] = []
    for name, options in dpcount_variants(plan.shares):
        estimates, seconds = run(dpcount_release(graph, workload.k, **options), range(runs))
        s = Scores.of(truth, estimates)
        rows.append(
            [name, f"k = {workload.k}, ℓ_max = {ELL_MAX}", s.median, s.p90, s.coverage, seconds]
        )
    tuning = range(TUNING_SEED, TUNING_SEED + plan.tuning_runs)
    scored = []
    for k, ell in ((k, ell) for k in plan.k_grid for ell in plan.r_grid):
        estimates, _ = run(dpcount_release(graph, k, ell=ell), tuning)
        scored.append((Scores.of(truth, estimates).median, (k, ell)))
    k, ell = min(scored)[1]
    estimates, seconds = run(dpcount_release(graph, k, ell=ell), range(runs))
    s = Scores.of(truth, estimates)
    name = "dpcount, public ℓ (k, ℓ best on the tuning runs, as the peers')"
    rows.append([name, f"k = {k}, ℓ = {ell}", s.median, s.p90, s.coverage, seconds])
    return rows


# --------------------------------------------------------------------------------------------
# Peers: tuned on separate seeds, reported raw and shifted
# --------------------------------------------------------------------------------------------


def shifted(release: PeerRelease) -> np.ndarray:
    """The release as a (1 − β) lower bound: minus its discrete Laplace noise's quantile."""
    return release.counts - discrete_shift(release.scale, BETA)


def _raw(release: PeerRelease) -> np.ndarray:
    return release.counts.astype(float)


VARIANTS: tuple[tuple[str, Callable[[PeerRelease], np.ndarray]], ...] = (
    ("raw (not a bound)", _raw),
    ("shifted: (1 − β) lower bound", shifted),
)


def tune(
    peer: Peer, truth: np.ndarray, settings: Sequence[tuple[int, int]], runs: int
) -> dict[str, list[tuple[float, tuple[int, int]]]]:
    """Per variant, the settings ranked by median relative error on ``runs`` tuning releases."""
    ranking: dict[str, list[tuple[float, tuple[int, int]]]] = {v: [] for v, _ in VARIANTS}
    for k, r in settings:
        releases = [peer.release(k, r, EPSILON, TUNING_SEED + i) for i in range(runs)]
        for variant, estimate in VARIANTS:
            score = Scores.of(truth, [estimate(rel) for rel in releases]).median
            ranking[variant].append((score, (k, r)))
    for scored in ranking.values():
        scored.sort()
    return ranking


def peer_rows(
    peer: Peer,
    truth: np.ndarray,
    ranking: dict[str, list[tuple[float, tuple[int, int]]]],
    runs: int,
) -> list[list[object]]:
    """Each variant at its best setting, over ``runs`` releases with seeds 0, 1, …"""
    releases: dict[tuple[int, int], list[PeerRelease]] = {}
    rows: list[list[object]] = []
    for variant, estimate in VARIANTS:
        k, r = ranking[variant][0][1]
        if (k, r) not in releases:
            releases[(k, r)] = [peer.release(k, r, EPSILON, seed) for seed in range(runs)]
        done = releases[(k, r)]
        s = Scores.of(truth, [estimate(rel) for rel in done])
        seconds = sum(rel.seconds for rel in done) / len(done)
        name = f"{peer.name}, {variant}"
        rows.append([name, f"k = {k}, r = {r}", s.median, s.p90, s.coverage, seconds])
    return rows


def peers_section(
    workload: Workload,
    plan: Plan,
    libraries: str,
    tumult: str | None,
    folder: Path,
) -> tuple[list[list[object]], list[str]]:
    """Rows of every available peer and notes on the ones that are not."""
    graph, truth = workload.graph, workload.graph.distinct_counts()
    runs = plan.runs
    settings = [(k, r) for k in plan.k_grid for r in plan.r_grid]
    ours = NumpyPeer(graph)
    ranking = tune(ours, truth, settings, plan.tuning_runs)
    rows = peer_rows(ours, truth, ranking, runs)
    if libraries == "none":
        return rows, ["OpenDP and Tumult skipped (`--libraries none`)."]
    # The libraries run the same truncation as our NumPy peer (the smoke test checks OpenDP's
    # groups and scale), so they are tuned on its best settings only: a release through them
    # takes seconds (OpenDP) to tens of seconds (Tumult, a Spark job).
    shortlist = sorted(
        {setting for scored in ranking.values() for _, setting in scored[:SHORTLIST]}
    )
    library_runs = max(2, runs // 2)
    notes = [
        f"OpenDP and Tumult were tuned on one release of each of the {len(shortlist)} settings "
        f"that are among the {SHORTLIST} best of our NumPy peer (same mechanism) for a variant, "
        f"and reported over {library_runs} runs."
    ]
    if opendp_available():
        opendp = OpenDPRunner(graph)
        rows += peer_rows(opendp, truth, tune(opendp, truth, shortlist, 1), library_runs)
    else:
        notes.append("OpenDP is not installed here: no OpenDP rows.")
    if tumult is None:
        notes.append("Tumult Analytics is not installed here (`--tumult-python`): no Tumult rows.")
        return rows, notes
    runner = TumultRunner(graph, tumult, folder)
    try:
        rows += peer_rows(runner, truth, tune(runner, truth, shortlist, 1), library_runs)
    finally:
        runner.close()
    return rows, notes


# --------------------------------------------------------------------------------------------
# Targets (issue 29): dpcount's default against every peer's shifted release
# --------------------------------------------------------------------------------------------

DEFAULT_ROW = "dpcount, one ℓ for all groups (default"
SHIFTED_ROW = ", shifted: (1 − β) lower bound"
TARGET_HEADER = [
    "data",
    "dpcount default: median / coverage",
    "best peer shifted: median",
    "dpcount / peer",
    "every peer beaten, coverage ≥ 1 − β",
]


def _number(cell: object) -> float:
    assert isinstance(cell, (int, float)), cell
    return float(cell)


def target_row(title: str, rows: Sequence[Sequence[object]]) -> list[object]:
    """dpcount's default rule against the best shifted peer of one workload's table rows.

    The target is met when the default's median relative error is at most every shifted
    peer's and its coverage is at least 1 − β.
    """
    ours = next(row for row in rows if str(row[0]).startswith(DEFAULT_ROW))
    best = min(
        (row for row in rows if str(row[0]).endswith(SHIFTED_ROW)), key=lambda row: _number(row[2])
    )
    median, coverage, best_median = _number(ours[2]), _number(ours[4]), _number(best[2])
    met = median <= best_median and coverage >= 1 - BETA
    return [
        title,
        f"{median:.4g} / {coverage:.3g}",
        f"{best_median:.4g} ({str(best[0]).removesuffix(SHIFTED_ROW)}, {best[1]})",
        median / max(best_median, 1e-12),
        "yes" if met else "**no**",
    ]


def public_ell_scales() -> list[list[object]]:
    """ℓ and Laplace scale of ``dp_distinct_count`` with ``ell_max=1``, ``ell=1`` and by GEM."""
    graph = PersonItemGraph.from_pairs([0, 1, 2], [0, 1, 1])  # one item per person
    results = [
        ("dp_distinct_count(g, ε, ell_max=1)", dp_distinct_count(graph, EPSILON, ell_max=1)),
        ("dp_distinct_count(g, ε, ell=1)", dp_distinct_count(graph, EPSILON, ell=1)),
        ("dp_distinct_count(g, ε), ℓ̂ by GEM", dp_distinct_count(graph, EPSILON, rng=0)),
    ]
    return [[call, result.ell, result.scale] for call, result in results]


def targets_section(targets: Sequence[Sequence[object]]) -> str:
    """The Targets section: a row per workload, then the public-ℓ noise scales."""
    met = sum(row[-1] == "yes" for row in targets)
    return (
        "## Targets (issue 29)\n\n"
        "dpcount's default (one ℓ for all groups) as a (1 − β) lower bound against the best "
        "peer shifted to a (1 − β) lower bound, each at its best (k, r) of the grid; a ratio "
        f"below 1 is a win. Met on {met} of {len(targets)} data sets.\n\n"
        + markdown_table(TARGET_HEADER, targets)
        + "\n\nA public ℓ costs nothing to choose: Laplace scale ℓ/ε, where GEM's choice leaves "
        "the count ε/2, scale 2ℓ̂/ε:\n\n"
        + markdown_table(["call", "ℓ", "Laplace scale"], public_ell_scales())
    )


# --------------------------------------------------------------------------------------------
# Speed
# --------------------------------------------------------------------------------------------


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
        ["release (bound, curves, one ℓ by GEM, Laplace per group)", release_s],
        ["end to end after reading", build_s + release_s],
        ["all curves: grouped_curves", fast_s],
        ["all curves: PersonItemGraph + dc_curve per group (reference)", loop_s],
        ["ratio reference / grouped_curves", loop_s / max(fast_s, 1e-9)],
    ]


# --------------------------------------------------------------------------------------------
# Driver
# --------------------------------------------------------------------------------------------


def workloads(sf: float, forum_persons: int) -> list[Workload]:
    """The three data sets (TPC-H at scale factor ``sf``; forums of ``forum_persons``)."""
    start = time.perf_counter()
    segments = tpch_segments(sf)
    read_segments = time.perf_counter() - start
    start = time.perf_counter()
    nations = tpch_supplier_nations(sf)
    read_nations = time.perf_counter() - start
    forums = GroupedGraph.from_triples(*forum_arrays(forum_persons / 223_388, FORUMS))
    return [
        Workload("TPC-H O.OD by c_mktsegment", segments, 1, read_segments),
        Workload("TPC-H L.RD by supplier nation", nations, 5, read_nations),
        Workload(f"Forum-like, {FORUMS} forums", forums, 3, None),
    ]


def _listed(values: Sequence[int]) -> str:
    return ", ".join(map(str, values))


def main(argv: list[str] | None = None) -> int:
    """Run the comparisons and write the Markdown tables."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "--plan", choices=sorted(PLANS), default="full", help="sizes, grids and repetitions"
    )
    parser.add_argument("--smoke", action="store_true", help="the same as --plan smoke (CI)")
    parser.add_argument("--out", type=Path, default=RESULTS)
    parser.add_argument(
        "--libraries",
        choices=("auto", "none"),
        default="auto",
        help="run OpenDP and Tumult where installed (auto) or not at all (none)",
    )
    parser.add_argument(
        "--tumult-python", default=None, help="a Python interpreter with tmlt.analytics"
    )
    args = parser.parse_args(argv)
    plan = SMOKE if args.smoke else PLANS[args.plan]
    tumult = None if args.libraries == "none" else tumult_python(args.tumult_python)
    sections: list[str] = []
    targets: list[list[object]] = []
    with tempfile.TemporaryDirectory() as folder:
        for workload in workloads(plan.sf, plan.forum_persons):
            graph = workload.graph
            size = (
                f"{graph.n_triples:,} triples, {graph.n_groups:,} groups, "
                f"{graph.n_persons:,} persons"
            )
            if workload.read_seconds is not None:
                size += f"; read in {workload.read_seconds:.2f} s"
            rows = dpcount_rows(workload, plan)
            peer, notes = peers_section(workload, plan, args.libraries, tumult, Path(folder))
            targets.append(target_row(workload.title, rows + peer))
            text = f"## {workload.title}\n\n{size}\n\n" + markdown_table(HEADER, rows + peer)
            if notes:
                text += "\n\n" + " ".join(notes)
            sections.append(text)
    sections.insert(0, targets_section(targets))
    arrays, n_forums = forum_arrays(plan.speed_scale, plan.speed_forums), plan.speed_forums
    sections.append(
        f"## Speed: Reddit-shaped, {len(arrays[0]):,} triples, {n_forums:,} groups, k = 3\n\n"
        + markdown_table(["step", "seconds"], speed(arrays, 3))
    )
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    text = (
        f"# Grouped distinct counts\n\nε = {EPSILON}, β = {BETA}, ℓ_max = {ELL_MAX}, {plan.runs} "
        f"reported runs per method; peers (and dpcount's public ℓ) tuned over "
        f"k ∈ {{{_listed(plan.k_grid)}}}, r ∈ {{{_listed(plan.r_grid)}}} on {plan.tuning_runs} "
        f"separate runs; TPC-H SF {plan.sf:g}, forum-like {plan.forum_persons:,} persons; "
        f"{machine()}; peak RSS {peak:.0f} MiB; shared machine (other jobs running), timings "
        "are indicative.\n\n" + "\n\n".join(sections) + "\n"
    )
    args.out.mkdir(parents=True, exist_ok=True)
    (args.out / "grouped.md").write_text(text)
    print(text)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
