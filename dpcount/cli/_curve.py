"""``dpcount curve``: DC(D;ℓ) for ℓ = 1..ℓ_max as a table, a CSV file or a plot – NOT private."""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence
from typing import Any

import numpy as np

import dpcount
import matching
from dpcount.graph import PersonItemGraph

from ._common import (
    Source,
    UserError,
    add_source_arguments,
    json_text,
    load_graph,
    note,
    positive_int_type,
    seed_type,
    show_progress,
    source_from_args,
    wrap,
)
from ._formats import add_output_arguments, csv_text, emit, output_format, output_target
from ._kernels import compiling_ahead
from ._outputs import OutputFile, output_file
from ._progress import progress

NOT_PRIVATE = "NOT PRIVATE"
PLOT_SUFFIXES = (".png", ".svg", ".pdf")

EPILOG = """\
examples:
  dpcount curve --dataset fashion-like --ell-max 50 --plot curve.png
  dpcount curve reviews.csv --person user --item product --csv --output curve.csv
  dpcount curve --dataset southern-women --ell-max 14 --method greedy --json

NOT PRIVATE: DC(D;ℓ) is computed from the raw data without noise.  Use it to understand the
data and the choice of ℓ; never publish it.  'dpcount count' is the private release.
"""


def add_parser(commands: argparse._SubParsersAction) -> None:
    """Register ``dpcount curve``."""
    parser = commands.add_parser(
        "curve",
        help="DC(D;ℓ) for ℓ = 1..ℓ_max (NOT private)",
        description=wrap(
            "Compute DC(D;ℓ), the most distinct items reachable when each person contributes "
            "at most ℓ of theirs, for ℓ = 1..ℓ_max, and print it as a table (default), write it "
            "as CSV or plot it. NOT PRIVATE: for studying the data, not for publication."
        ),
        epilog=EPILOG,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    add_source_arguments(parser)
    group = parser.add_argument_group("curve")
    group.add_argument(
        "--ell-max",
        type=positive_int_type("ell-max"),
        default=100,
        metavar="L",
        help="largest ℓ (default: 100)",
    )
    group.add_argument(
        "--method",
        choices=matching.METHODS,
        default="auto",
        help="solver: 'auto' (the fastest exact one), an exact method, 'greedy' (Algorithm 2, "
        "a 2-approximation) or 'sampling' (baseline) (default: auto)",
    )
    group.add_argument(
        "--seed",
        type=seed_type,
        metavar="N",
        help="with --method sampling: seed of the sampling (default: fresh OS entropy)",
    )
    add_output_arguments(parser, what="the curve", deprecated_csv_file=True)
    parser.add_argument(
        "--plot",
        metavar="FILE",
        help="plot the curve to FILE.png, .svg or .pdf (needs matplotlib: the 'plot' extra)",
    )
    parser.set_defaults(handler=run)


def run(args: argparse.Namespace) -> int:
    """Read the data, compute the curve and write it where asked."""
    source = source_from_args(args)
    if args.seed is not None and args.method != "sampling":
        raise UserError("--seed applies to --method sampling only; the other methods are exact")
    inputs = source.inputs()
    target = output_target(args, inputs)
    plot_target = None
    if args.plot:
        others = [target] if target else []
        plot_target = output_file(
            args.plot, "--plot", inputs=inputs, suffixes=PLOT_SUFFIXES, others=others
        )
        _require_matplotlib()
    show = show_progress(args)
    with compiling_ahead(source, args.method):
        graph = load_graph(source, show=show)
        length = curve_length(graph, args.ell_max)
        with progress(f"computing DC(D;ℓ) for ℓ = 1..{length}", enabled=show):
            rng = args.seed if args.method == "sampling" else None
            curve = matching.dc_curve(graph, length, method=args.method, rng=rng)
    if length < args.ell_max:
        note(
            "curve",
            f"DC(D;ℓ) is constant from ℓ = {length} on (no person holds more items), so the "
            f"rows stop there, not at --ell-max {args.ell_max}",
        )
    caption = f"DC(D;ℓ) of {source.describe()}, {method_label(args.method)}"
    fmt = output_format(args)
    if target is not None or plot_target is None or fmt != "text":  # the plot alone is enough
        if fmt == "json":
            text = json_text(curve_json(curve, args, source)) + "\n"
        elif fmt == "csv":
            text = curve_csv(curve)
        else:
            text = table(curve, caption)
        if fmt != "text":  # the table says it in its first line; CSV and JSON readers cannot
            note("curve", _warning(caption))
        emit(text, target)
        if target is not None:
            print(f"wrote {curve.size} rows to {target.given} ({NOT_PRIVATE})", file=sys.stderr)
    if plot_target is not None:
        # matplotlib's first import in an environment builds its font cache: seconds
        with progress(f"drawing {plot_target.given}", enabled=show):
            write_plot(curve, caption, plot_target)
        print(f"wrote the plot to {plot_target.given} ({NOT_PRIVATE})", file=sys.stderr)
    return 0


def curve_length(graph: PersonItemGraph, ell_max: int) -> int:
    """min(ℓ_max, largest degree), at least 1: every method's curve is constant from there on,
    so longer output says nothing more (and ``--ell-max 2147483647`` must not allocate 16 GiB).

    Examples
    --------
    >>> from dpcount import PersonItemGraph
    >>> g = PersonItemGraph.from_sets({"a": {1, 2, 3}, "b": {1}})
    >>> curve_length(g, 2147483647), curve_length(g, 2)
    (3, 2)
    """
    return max(1, min(ell_max, int(graph.degrees().max(initial=0))))


def method_label(method: str) -> str:
    """How the curve was computed, in words."""
    if method == "auto":
        return "exact (incremental)"
    if method in matching.EXACT_METHODS:
        return f"exact ({method})"
    if method == "greedy":
        return "greedy 2-approximation"
    return "per-person sampling"


def _warning(caption: str) -> str:
    return f"{NOT_PRIVATE}: {caption}, computed from the raw data without noise; do not publish"


def table(curve: Sequence[int] | np.ndarray, caption: str) -> str:
    """The curve as an aligned text table under a NOT PRIVATE comment line.

    Examples
    --------
    >>> print(table([2, 3], "DC(D;ℓ) of x"), end="")
    # NOT PRIVATE: DC(D;ℓ) of x, computed from the raw data without noise; do not publish
    ℓ  DC(D;ℓ)
    1        2
    2        3
    """
    values = [int(v) for v in curve]
    ell_width = len(str(len(values)))
    dc_width = max(len("DC(D;ℓ)"), *(len(str(v)) for v in values)) if values else 7
    lines = [f"# {_warning(caption)}", f"{'ℓ':>{ell_width}}  {'DC(D;ℓ)':>{dc_width}}"]
    lines += [f"{ell:>{ell_width}}  {v:>{dc_width}}" for ell, v in enumerate(values, start=1)]
    return "\n".join(lines) + "\n"


def curve_csv(curve: Sequence[int] | np.ndarray) -> str:
    """The curve as a plain CSV table; the column name says it is not private (the notice
    goes to stderr: a comment line would break CSV readers such as ``pandas.read_csv``).

    Examples
    --------
    >>> print(curve_csv([2, 3]), end="")
    ell,dc_not_private
    1,2
    2,3
    """
    return csv_text(["ell", "dc_not_private"], enumerate((int(v) for v in curve), start=1))


def curve_json(curve: np.ndarray, args: argparse.Namespace, source: Source) -> dict[str, Any]:
    """The curve as a JSON object with the fields every ``--json`` output shares.

    ``dc_not_private[ℓ − 1]`` is DC(D;ℓ); ``ell_max`` is what was asked for, ``ell`` the ℓ
    the values cover (up to the largest degree, where the curve becomes constant).
    """
    return {
        "result": "dc_curve",
        "is_private": False,
        "secure": True,
        "method": args.method,
        "ell_max": args.ell_max,
        "ell": list(range(1, curve.size + 1)),
        "dc_not_private": [int(v) for v in curve],
        "source": source.to_json(),
        "seed": args.seed,
        "dpcount_version": dpcount.__version__,
    }


def _require_matplotlib() -> None:
    try:
        import matplotlib  # noqa: F401
    except ImportError:
        raise UserError(
            "--plot needs matplotlib, which is not installed; install it with "
            "pip install 'dpcount[plot]', or use --csv or --json"
        ) from None


def write_plot(curve: np.ndarray, caption: str, target: OutputFile) -> None:
    """Plot the curve to ``path`` (PNG, SVG or PDF by suffix), atomically, titled NOT PRIVATE."""
    from matplotlib.figure import Figure  # no pyplot: no global state, no display needed

    ells = np.arange(1, curve.size + 1)
    fig = Figure(figsize=(7, 4.5), layout="constrained")
    ax = fig.add_subplot()
    ax.plot(ells, curve, marker="." if curve.size <= 100 else None, color="tab:blue")
    ax.set_xlabel("ℓ (most items one person may contribute)")
    ax.set_ylabel("DC(D;ℓ)")
    ax.set_title(f"{NOT_PRIVATE} – {caption}", color="tab:red", fontsize=10)
    ax.grid(alpha=0.3)
    with target.writing() as tmp:
        fig.savefig(tmp, format=target.suffix[1:], dpi=120)
