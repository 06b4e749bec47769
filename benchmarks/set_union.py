"""Set union benchmarks: analogues of Gopi et al. (2020) Table 2 and Chen et al. (2024) Table 1.

Runs the set-union mechanisms on two generated data sets — the Reddit-like preset and a preset
with heavier users — and writes ``set_union.md`` (tables, sizes, timings, machine) and
``set_union_epsilon.png`` (released items against ε).

Usage::

    python -m benchmarks.set_union            # full scale, a few minutes
    python -m benchmarks.set_union --smoke    # tiny, seconds (CI)
    python -m benchmarks.set_union --out DIR  # write somewhere else than benchmarks/results
    python -m benchmarks.set_union --noise-only  # only the exact-versus-float noise section

The tables report the released-set size, mean ± sd over independent runs (each run draws a new
user order, sampling and noise).  As in both papers, the Chen-style table shows the best setting
of a small Δ0 grid; choosing a parameter by looking at private outputs is itself not private,
so read it as what each algorithm can reach, not as a release.
"""

from __future__ import annotations

import argparse
import math
import time
import warnings
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from functools import partial
from pathlib import Path

import numpy as np

from benchmarks._common import (
    best_time,
    best_times_alternating,
    machine,
    markdown_table,
    write_result,
)
from dpcount import PersonItemGraph
from dpcount.datasets import reddit_like, synthetic
from dpcount.errors import LargeDeltaWarning, UnsafeNoiseWarning
from mechanisms.set_union import (
    SetUnionResult,
    count_gaussian,
    count_laplace,
    dp_sips,
    max_adaptive_degree,
    policy_gaussian,
    policy_laplace,
    weighted_gaussian,
    weighted_laplace,
)

Mechanism = Callable[..., SetUnionResult]

GOPI: dict[str, Mechanism] = {  # Gopi et al. Table 2 rows
    "Count Laplace": count_laplace,
    "Count Gaussian": count_gaussian,
    "Weighted Laplace": weighted_laplace,
    "Weighted Gaussian": weighted_gaussian,
    "Policy Laplace": policy_laplace,
    "Policy Gaussian": policy_gaussian,
}
CHEN: dict[str, Mechanism] = {  # Chen et al. Table 1 columns (GreedyUpdate is not implemented)
    "MAD": max_adaptive_degree,
    "Basic (weighted Gaussian)": weighted_gaussian,
    "DP-SIPS": dp_sips,
    "DP-SIPS + MAD": partial(dp_sips, weighting="mad"),
    "Policy Gaussian": policy_gaussian,
}
FIGURE: dict[str, Mechanism] = {
    "Count Gaussian": count_gaussian,
    "Weighted Laplace": weighted_laplace,
    "Weighted Gaussian": weighted_gaussian,
    "Policy Laplace": policy_laplace,
    "Policy Gaussian": policy_gaussian,
    "MAD": max_adaptive_degree,
    "DP-SIPS": dp_sips,
}
GOPI_PAPER = {  # Gopi Table 2 (real Reddit data), for comparison
    "Count Laplace": (4484, 3666, 2199, 1502, 882, 647),
    "Count Gaussian": (3179, 6616, 6998, 6470, 5492, 4813),
    "Weighted Laplace": (4479, 4309, 4012, 3875, 3726, 3648),
    "Weighted Gaussian": (3194, 6591, 8570, 8904, 8996, 8936),
    "Policy Laplace": (4482, 12840, 15268, 14739, 14173, 13870),
    "Policy Gaussian": (3169, 11010, 16181, 16954, 17113, 17022),
}
CHEN_PAPER_REDDIT = {  # Chen Table 1, reddit row (real data, best of their grid)
    "MAD": 5826,
    "Basic (weighted Gaussian)": 4062,
    "DP-SIPS": 5783,
    "Policy Gaussian": 7170,
}


@dataclass(frozen=True)
class Config:
    scale: float
    runs: int
    gopi_max_items: tuple[int, ...]
    chen_max_items: tuple[int, ...]
    epsilons: tuple[float, ...]
    timing_repeat: int


FULL = Config(1.0, 5, (1, 10, 50, 100, 200, 300), (10, 30, 100), (0.5, 1, 2, 3, 4, 6, 8), 3)
SMOKE = Config(0.002, 2, (1, 10), (10,), (1.0, 3.0), 1)


def datasets(scale: float) -> dict[str, tuple[PersonItemGraph, str]]:
    """The two data sets with a one-line description each."""
    heavy = synthetic(
        max(50, round(80_000 * scale)),
        200_000,
        degree_median=40,
        degree_max=4_000,
        degree_mean=70,
        zipf_exponent=1.1,
        seed=1,
    )
    return {
        "reddit-like": (reddit_like(scale, seed=0), f"`dpcount.datasets.reddit_like({scale}, 0)`"),
        "heavy-users": (
            heavy,
            f"`synthetic({heavy.n_persons}, 200000, degree_median=40, degree_max=4000, "
            "degree_mean=70, zipf_exponent=1.1, seed=1)`",
        ),
    }


def _counts(f: Mechanism, graph: PersonItemGraph, runs: int, seed: int, **kw: float) -> np.ndarray:
    return np.array([f(graph, rng=seed + r, **kw).count for r in range(runs)], dtype=float)


def _cell(counts: np.ndarray) -> str:
    sd = counts.std(ddof=1) if counts.size > 1 else 0.0
    return f"{counts.mean():,.0f} ± {sd:,.0f}"


def gopi_table(graph: PersonItemGraph, cfg: Config) -> str:
    """Gopi Table 2: ε = 3, δ = e^−10, α = 5, rows = algorithms, columns = Δ0."""
    rows = []
    for name, f in GOPI.items():
        kw = {"alpha": 5.0} if name.startswith("Policy") else {}
        means = [
            _counts(
                f, graph, cfg.runs, 100 * d, epsilon=3.0, delta=math.exp(-10), max_items=d, **kw
            )
            for d in cfg.gopi_max_items
        ]
        best = int(np.argmax([m.mean() for m in means]))
        rows.append(
            [name] + [f"**{_cell(m)}**" if i == best else _cell(m) for i, m in enumerate(means)]
        )
    return markdown_table(["Δ0"] + [str(d) for d in cfg.gopi_max_items], rows)


def chen_row(graph: PersonItemGraph, cfg: Config) -> tuple[list[str], dict[str, float]]:
    """Chen Table 1: ε = 1, δ = 1e-5; best Δ0 of the grid per algorithm."""
    cells, best_means = [], {}
    for name, f in CHEN.items():
        results = [
            (d, _counts(f, graph, cfg.runs, 7 * d, epsilon=1.0, delta=1e-5, max_items=d))
            for d in cfg.chen_max_items
        ]
        d, counts = max(results, key=lambda x: x[1].mean())
        cells.append(f"{_cell(counts)} (Δ0={d})")
        best_means[name] = float(counts.mean())
    return cells, best_means


def epsilon_sweep(graph: PersonItemGraph, cfg: Config) -> dict[str, list[float]]:
    """Released items against ε at Δ0 = 100, δ = e^−10, α = 5 (Gopi Fig. 1/6), one run each."""
    return {
        name: [
            float(f(graph, eps, math.exp(-10), max_items=100, rng=11).count) for eps in cfg.epsilons
        ]
        for name, f in FIGURE.items()
    }


def timings(graph: PersonItemGraph, cfg: Config) -> list[list[object]]:
    rows: list[list[object]] = []
    seen: set[int] = set()
    for name, f in {**GOPI, **CHEN}.items():
        if id(f) in seen:  # weighted Gaussian appears in both tables
            continue
        seen.add(id(f))
        f(graph, 1.0, 1e-5, max_items=100, rng=0)  # compile the numba kernels outside the timing
        seconds, _ = best_time(
            partial(f, graph, 1.0, 1e-5, max_items=100, rng=0), cfg.timing_repeat
        )
        rows.append([name, seconds])
    return rows


#: The mechanisms with an exact form, compared with their floating-point form.
EXACT_FORMS: dict[str, Mechanism] = {
    "Count Laplace": count_laplace,
    "Count Gaussian": count_gaussian,
    "Weighted Laplace": weighted_laplace,
    "Weighted Gaussian": weighted_gaussian,
    "Policy Laplace": policy_laplace,
    "DP-SIPS": dp_sips,
}
NOISE_EPSILONS = (1.0, 3.0)
MODES = ("exact", "float")


def _noise_rounds(cfg: Config) -> int:
    """Timing rounds of the exact-versus-float section: three times the others', as its calls
    take about 0.1 s, where one busy moment of the machine swings a ratio."""
    return 3 * cfg.timing_repeat


def _welch_z(a: np.ndarray, b: np.ndarray) -> float:
    """Welch's z of mean(a) − mean(b) (0 when both samples are constant and equal)."""
    se = math.sqrt(a.var(ddof=1) / a.size + b.var(ddof=1) / b.size) if a.size > 1 else 0.0
    diff = float(a.mean() - b.mean())
    return diff / se if se > 0 else (0.0 if diff == 0 else math.copysign(math.inf, diff))


def exact_vs_float(graph: PersonItemGraph, cfg: Config) -> list[list[object]]:
    """Released items (mean ± sd over ``cfg.runs`` runs) and seconds (best of
    :func:`_noise_rounds` rounds that call the exact and the float form in turn) with exact
    and with floating-point noise, δ = 1e-5, Δ0 = 100.

    "Equal within noise": Welch's two-sample z of the mean counts, |z| < 5 (false-alarm rate
    ≈ 6e-7 per row if the two forms released equally many items on average).
    """
    rows: list[list[object]] = []
    for eps in NOISE_EPSILONS:
        for name, f in EXACT_FORMS.items():
            calls = {m: partial(f, graph, eps, 1e-5, max_items=100, noise=m) for m in MODES}
            counts = {
                mode: np.array([call(rng=500 + r).count for r in range(cfg.runs)], float)
                for mode, call in calls.items()  # (the first call also compiles and calibrates)
            }
            seconds = best_times_alternating(
                {mode: partial(call, rng=0) for mode, call in calls.items()},
                _noise_rounds(cfg),
            )
            z = _welch_z(counts["exact"], counts["float"])
            rows.append(
                [
                    f"{eps:g}",
                    name,
                    _cell(counts["exact"]),
                    _cell(counts["float"]),
                    f"{z:+.1f}",
                    "yes" if abs(z) < 5 else "no",
                    f"{seconds['exact']:.3f}",
                    f"{seconds['float']:.3f}",
                    f"{seconds['exact'] / seconds['float']:.2f}",
                ]
            )
    return rows


NOISE_HEADER = [
    "ε",
    "algorithm",
    "items, exact",
    "items, float",
    "Welch z",
    "equal (|z| < 5)",
    "s exact",
    "s float",
    "time ratio",
]


def noise_section(graph: PersonItemGraph, name: str, cfg: Config) -> list[str]:
    """The exact-versus-float section of the report for one data set."""
    return [
        "",
        f"## Exact versus floating-point noise on {name}",
        "",
        f"δ = 1e-5, Δ0 = 100; released items over {cfg.runs} runs (mean ± sd) and seconds "
        f"(best of {_noise_rounds(cfg)} rounds that call the exact and the float form in turn, "
        "after the runs that count the items).  Exact: integer weights, "
        "exact discrete noise, discrete Gaussian σ from zCDP (a few per cent above the "
        "Balle–Wang σ of the float form, so Gaussian forms release slightly fewer items).",
        "",
        markdown_table(NOISE_HEADER, exact_vs_float(graph, cfg)),
    ]


def _plot(sweeps: dict[str, dict[str, list[float]]], cfg: Config, path: Path) -> bool:
    try:
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:  # the `plot` extra is not installed
        return False
    fig, axes = plt.subplots(1, len(sweeps), figsize=(5.5 * len(sweeps), 4), squeeze=False)
    for ax, (data_name, sweep) in zip(axes[0], sweeps.items(), strict=True):
        for name, counts in sweep.items():
            ax.plot(cfg.epsilons, counts, marker="o", label=name)
        ax.set(title=f"{data_name}: Δ0=100, δ=e⁻¹⁰, α=5", xlabel="ε", ylabel="released items")
        ax.grid(alpha=0.3)
    axes[0][0].legend(fontsize=8)
    fig.tight_layout()
    fig.savefig(path, dpi=120)
    plt.close(fig)
    return True


def _describe(graph: PersonItemGraph) -> list[object]:
    s = graph.summary()
    return [s.n_persons, s.n_items, s.n_pairs, s.degree_median, s.degree_p90, s.degree_max]


def run_noise_only(cfg: Config, out_dir: Path | None) -> Path:
    """Only the exact-versus-float section, on the Reddit-like data (``set_union_noise.md``)."""
    start = time.perf_counter()
    graph, how = datasets(cfg.scale)["reddit-like"]
    parts = [
        "# Set union: exact versus floating-point noise",
        "",
        f"Generated by `python -m benchmarks.set_union --noise-only` on {machine()}.  "
        f"Data: {how}, {graph.n_persons:,} persons, {graph.n_pairs:,} pairs.",
        *noise_section(graph, "reddit-like", cfg),
        "",
        f"Total benchmark time: {time.perf_counter() - start:.0f} s.",
        "",
    ]
    return write_result("set_union_noise.md", "\n".join(parts), out_dir)


def run(cfg: Config, out_dir: Path | None, label: str) -> Path:
    start = time.perf_counter()
    data = datasets(cfg.scale)
    parts = [
        "# Set union benchmarks",
        "",
        f"Generated by `python -m benchmarks.set_union{' --smoke' if label == 'smoke' else ''}` "
        f"on {machine()}.  Scale {cfg.scale}, {cfg.runs} runs per cell (new user order, "
        "sampling and noise each run), mean ± sd.",
        "",
        "## Data",
        "",
        markdown_table(
            ["data set", "persons", "items", "pairs", "median degree", "p90", "max degree"],
            [[name, *_describe(g)] for name, (g, _) in data.items()],
        ),
        "",
        *[f"* {name}: {how}" for name, (_, how) in data.items()],
    ]
    chen_rows, sweeps = [], {}
    for name, (graph, _) in data.items():
        parts += [
            "",
            f"## Gopi et al. Table 2 analogue on {name}",
            "",
            "ε = 3, δ = e⁻¹⁰, α = 5; released items, best Δ0 of each row in bold.",
            "",
            gopi_table(graph, cfg),
        ]
        cells, _ = chen_row(graph, cfg)
        chen_rows.append([name, *cells])
        sweeps[name] = epsilon_sweep(graph, cfg)
    parts += [
        "",
        "Gopi et al. Table 2 on the real Reddit data, for comparison:",
        "",
        markdown_table(
            ["Δ0", "1", "10", "50", "100", "200", "300"], [[k, *v] for k, v in GOPI_PAPER.items()]
        ),
    ]
    parts += [
        "",
        "## Chen et al. Table 1 analogue",
        "",
        f"ε = 1, δ = 1e-5; best of Δ0 ∈ {list(cfg.chen_max_items)} per algorithm "
        "(MAD: d_max = Δ0, τ = ρ + 3σ; DP-SIPS: R = 3, r = 0.3).",
        "",
        markdown_table(["data set", *CHEN], chen_rows),
        "",
        "Chen et al. Table 1, reddit row (real data): "
        + ", ".join(f"{k} {v:,}" for k, v in CHEN_PAPER_REDDIT.items())
        + ".",
    ]
    png = out_dir if out_dir is not None else Path(__file__).parent / "results"
    png.mkdir(parents=True, exist_ok=True)
    plotted = _plot(sweeps, cfg, png / "set_union_epsilon.png")
    parts += [
        "",
        "## Released items against ε",
        "",
        "![released items against ε](set_union_epsilon.png)"
        if plotted
        else "(matplotlib not installed: no figure)",
        "",
    ]
    parts += [
        markdown_table(
            ["algorithm", *[f"ε={e:g}" for e in cfg.epsilons]],
            [[k, *map(int, v)] for k, v in sweeps["reddit-like"].items()],
        )
    ]
    parts += noise_section(data["reddit-like"][0], "reddit-like", cfg)
    for name, (graph, _) in data.items():
        parts += [
            "",
            f"## Time per algorithm on {name} (Δ0 = 100, ε = 1, best of {cfg.timing_repeat})",
            "",
            markdown_table(["algorithm", "seconds"], timings(graph, cfg)),
        ]
    parts += ["", f"Total benchmark time: {time.perf_counter() - start:.0f} s.", ""]
    return write_result("set_union.md", "\n".join(parts), out_dir)


def main(argv: Sequence[str] | None = None) -> Path:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--smoke", action="store_true", help="tiny sizes, for CI")
    parser.add_argument("--out", type=Path, default=None, help="output directory")
    parser.add_argument(
        "--noise-only", action="store_true", help="only the exact-versus-float noise section"
    )
    args = parser.parse_args(argv)
    cfg = SMOKE if args.smoke else FULL
    with warnings.catch_warnings():
        # The float-noise forms are measured on purpose (an experiment, not a release), and
        # Gopi's Table 2 uses δ = e⁻¹⁰, above the rule-of-thumb bound for these sizes.
        warnings.simplefilter("ignore", UnsafeNoiseWarning)
        warnings.simplefilter("ignore", LargeDeltaWarning)
        if args.noise_only:
            path = run_noise_only(cfg, args.out)
        else:
            path = run(cfg, args.out, "smoke" if args.smoke else "full")
    print(f"wrote {path}")
    return path


if __name__ == "__main__":
    main()
