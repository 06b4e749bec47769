"""Knop & Steinke Figure 2 analogue: private distinct counts against ε, with 10th–90th bands.

For each ε in 0.5..30 the four mechanisms of the figure are run ``--runs`` times:
DPDistinctCount with exact matching, with the greedy Algorithm 2, with per-person sampling
(``dp_distinct_count(counting=...)``, β = 0.05, ℓ_max = 100 as in the figure's caption), and
the shifted inverse mechanism (LP inverse, log10 grid with step 0.001, β = 0.05).  As in the
paper's caption, the shifted inverse's domain bound D is the true distinct count — a choice
taken from the data, so that curve is **not** a private release; it shows the mechanism at its
best.  Each panel shows the median (line), the 10th–90th percentile band and the true count.

Data: the Fashion-like synthetic preset (``dpcount.datasets.fashion_like``, the size of the
paper's Amazon Fashion) and one TPC-H query (O.OD at scale factor 1 by default).

Usage::

    python -m benchmarks.epsilon_sweep              # 100 runs per ε (~5 min)
    python -m benchmarks.epsilon_sweep --smoke      # 5 runs, 3 values of ε, small data
"""

from __future__ import annotations

import argparse
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Literal, cast

import numpy as np

import matching
from benchmarks._common import RESULTS, machine
from dpcount import PersonItemGraph, datasets
from mechanisms.distinct_count import dp_distinct_count, dp_distinct_count_from_curve
from mechanisms.shifted_inverse_mechanism import ShiftedInversePlan, plan_shifted_inverse

EPSILONS = (0.5, 1.0, 2.0, 3.0, 5.0, 7.5, 10.0, 15.0, 20.0, 25.0, 30.0)
SMOKE_EPSILONS = (1.0, 10.0, 30.0)
BETA = 0.05
ELL_MAX = 100
MECHANISMS = ("matching", "greedy", "sampling", "shifted inverse")
COLORS = {
    "matching": "tab:blue",
    "greedy": "tab:orange",
    "sampling": "tab:green",
    "shifted inverse": "tab:red",
}


def _estimates(
    graph: PersonItemGraph, epsilon: float, runs: int, seed: int
) -> dict[str, np.ndarray]:
    """``runs`` estimates of each mechanism at one ε (data-only work shared across runs)."""
    streams = np.random.SeedSequence([seed, int(epsilon * 1000)]).spawn(len(MECHANISMS))
    out: dict[str, np.ndarray] = {}
    degrees = graph.degrees()
    for mechanism, stream in zip(MECHANISMS, streams, strict=True):
        rngs = [np.random.default_rng(s) for s in stream.spawn(runs)]
        draw: Callable[[np.random.Generator], float]
        if mechanism in ("matching", "greedy"):
            method = "auto" if mechanism == "matching" else "greedy"
            curve = matching.dc_curve(graph, ELL_MAX, method=method)

            def draw(
                rng: np.random.Generator, curve: np.ndarray = curve, mechanism: str = mechanism
            ) -> float:
                selection, noise = rng.spawn(2)
                return dp_distinct_count_from_curve(
                    curve, degrees, epsilon, beta=BETA, ell_max=ELL_MAX,
                    counting=cast(Literal["matching", "greedy"], mechanism),
                    selection_rng=selection, noise_rng=noise,
                ).estimate  # fmt: skip
        elif mechanism == "sampling":
            # A sampling curve must be drawn afresh for every release: the full public call.
            def draw(rng: np.random.Generator) -> float:
                return dp_distinct_count(
                    graph, epsilon, beta=BETA, ell_max=ELL_MAX, counting="sampling", rng=rng
                ).estimate
        else:
            plan = plan_shifted_inverse(graph, epsilon, beta=BETA, upper=max(1, graph.n_items))

            def draw(rng: np.random.Generator, plan: ShiftedInversePlan = plan) -> float:
                return plan.draw(rng).estimate

        out[mechanism] = np.array([float(draw(rng)) for rng in rngs])
    return out


def sweep(
    graph: PersonItemGraph, epsilons: Sequence[float], runs: int, seed: int
) -> dict[str, np.ndarray]:
    """Percentiles (10, 50, 90) per mechanism: arrays of shape (len(epsilons), 3)."""
    table = {m: np.empty((len(epsilons), 3)) for m in MECHANISMS}
    for i, eps in enumerate(epsilons):
        for mechanism, values in _estimates(graph, eps, runs, seed).items():
            table[mechanism][i] = np.percentile(values, [10, 50, 90])
    return table


def plot(
    panels: list[tuple[str, PersonItemGraph, dict[str, np.ndarray]]],
    epsilons: Sequence[float],
    runs: int,
    path: Path,
) -> Path:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, axes = plt.subplots(1, len(panels), figsize=(6 * len(panels), 4.2), squeeze=False)
    for ax, (title, graph, table) in zip(axes[0], panels, strict=True):
        ax.axhline(graph.n_items, color="black", lw=1, ls="--", label="true value")
        for mechanism in MECHANISMS:
            low, mid, high = table[mechanism].T
            label = mechanism + (" (D = true count)" if mechanism == "shifted inverse" else "")
            ax.plot(epsilons, mid, color=COLORS[mechanism], lw=1.5, label=label)
            ax.fill_between(epsilons, low, high, color=COLORS[mechanism], alpha=0.2, lw=0)
        ax.set_title(f"{title}: {graph.n_persons:,} persons, DC = {graph.n_items:,}")
        ax.set_xlabel("ε")
        ax.set_ylabel("distinct count")
        ax.set_xscale("log")
        ax.set_xticks(list(epsilons), [f"{e:g}" for e in epsilons])
        lows = [table[m][:, 0].min() for m in ("matching", "greedy", "shifted inverse")]
        ax.set_ylim(min(lows) - 0.01 * graph.n_items, graph.n_items * 1.01)
        ax.grid(alpha=0.3)
    axes[0][0].legend(fontsize=8, loc="lower right")
    fig.suptitle(
        f"Estimates against ε: median and 10th–90th percentile of {runs} runs, β = {BETA:g}, "
        f"ℓ_max = {ELL_MAX} ({machine()})",
        fontsize=9,
    )
    fig.tight_layout()
    path.parent.mkdir(parents=True, exist_ok=True)
    fig.savefig(path, dpi=120)
    plt.close(fig)
    return path


def main(argv: Sequence[str] | None = None) -> Path:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--smoke", action="store_true", help="5 runs, 3 ε values, small data")
    parser.add_argument("--runs", type=int, default=None, help="runs per ε (100)")
    parser.add_argument("--query", default="O.OD", choices=datasets.TPCH_QUERIES)
    parser.add_argument("--scale-factor", type=float, default=None, help="TPC-H SF (1)")
    parser.add_argument("--seed", type=int, default=7)
    parser.add_argument("--out", type=Path, default=None, help="output folder")
    args = parser.parse_args(argv)
    runs = args.runs or (5 if args.smoke else 100)
    epsilons = SMOKE_EPSILONS if args.smoke else EPSILONS
    scale_factor = args.scale_factor or (0.01 if args.smoke else 1.0)
    fashion = datasets.fashion_like(scale_factor=0.25 if args.smoke else 1.0, seed=0)
    tpch = datasets.tpch(args.query, scale_factor)
    panels = []
    for title, graph in (("Fashion-like", fashion), (f"TPC-H {args.query}", tpch)):
        print(f"{title}: {graph}", flush=True)
        panels.append((title, graph, sweep(graph, epsilons, runs, args.seed)))
    name = "epsilon_sweep_smoke.png" if args.smoke else "epsilon_sweep.png"
    path = plot(panels, epsilons, runs, (args.out or RESULTS) / name)
    print(f"wrote {path}")
    return path


if __name__ == "__main__":
    main()
