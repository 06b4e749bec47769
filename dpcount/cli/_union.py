"""``dpcount union``: a differentially private set of items (DP set union / partition selection)."""

from __future__ import annotations

import argparse
import sys
import warnings
from typing import TYPE_CHECKING, Any

import numpy as np

import dpcount
from dpcount.errors import UnsafeNoiseWarning
from mechanisms.registry import DEFAULT_SET_UNION, get, names
from mechanisms.release import seeded_copy

from ._common import (
    SEED_HELP,
    Source,
    UserError,
    add_source_arguments,
    delta_type,
    epsilon_type,
    load_graph,
    note,
    positive_int_type,
    seed_type,
    show_progress,
    source_from_args,
    wrap,
)
from ._formats import add_output_arguments, csv_text, emit, formatted, output_target
from ._outputs import OutputFile
from ._progress import progress
from ._spark import add_engine_arguments, check_spark, spark_pairs, start_spark

if TYPE_CHECKING:  # the set-union package loads its compiled kernels; import it when run
    from dpcount import PersonItemGraph
    from dpcount.spark import SparkPairs
    from mechanisms.set_union import SetUnionResult

#: The set-union mechanisms the command offers: every one registered (read from the sources,
#: without loading their compiled kernels); the first is the default on both engines, the one
#: every front end runs (:data:`mechanisms.registry.DEFAULT_SET_UNION`).
DEFAULT_ALGORITHM = DEFAULT_SET_UNION
ALGORITHMS = (DEFAULT_ALGORITHM, *sorted(set(names(family="set_union")) - {DEFAULT_ALGORITHM}))

EPILOG = """\
examples:
  dpcount union words.parquet --person user --item word --epsilon 3 --delta 1e-6 --output words.txt
  dpcount union --dataset fashion-like --max-items 20 | head
  dpcount union queries.csv --person uid --item query --algorithm dp_sips --json > released.json

Each person contributes at most --max-items (Δ0) of their items, chosen at random; items whose
noisy weight clears a threshold are released.  The set is (ε, δ)-DP for adding or removing one
person with all their items.  Choose δ well below 1 / (number of persons).
"""


def add_parser(commands: argparse._SubParsersAction) -> None:
    """Register ``dpcount union``."""
    parser = commands.add_parser(
        "union",
        help="a private set of items (DP set union)",
        description=wrap(
            "Release a differentially private subset of the items held by the persons "
            "(Gopi et al. 2020; Chen et al. 2025; Swanberg et al. 2023), one label per line on "
            "stdout or in --output. A summary goes to stderr, so stdout can be piped."
        ),
        epilog=EPILOG,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    add_source_arguments(parser)
    group = parser.add_argument_group("privacy")
    group.add_argument(
        "--algorithm",
        choices=ALGORITHMS,
        help=f"set-union mechanism (default: {DEFAULT_ALGORITHM}, on both engines; --engine spark "
        f"runs {', '.join(names(family='set_union', engine='spark'))})",
    )
    group.add_argument(
        "--epsilon",
        type=epsilon_type,
        default=1.0,
        metavar="EPS",
        help="privacy budget ε > 0 (default: 1)",
    )
    group.add_argument(
        "--delta",
        type=delta_type,
        default=1e-6,
        metavar="D",
        help="δ in (0, 1), well below 1 / number of persons (default: 1e-6)",
    )
    group.add_argument(
        "--max-items",
        type=positive_int_type("max-items"),
        default=100,
        metavar="N",
        help="Δ0: most items one person contributes, sampled at random (default: 100)",
    )
    group.add_argument(
        "--noise",
        choices=("exact", "float"),
        help=(
            "exact: integer weights and exact discrete noise, the output may be released "
            "(default where the algorithm has it: count_*, weighted_*, policy_laplace, "
            "dp_sips); float: "
            "floating-point noise, for experiments only (not for release)"
        ),
    )
    group.add_argument("--seed", type=seed_type, metavar="N", help=SEED_HELP)
    add_output_arguments(parser, what="the released items (one per line)")
    add_engine_arguments(parser)
    parser.set_defaults(handler=run)


def run(args: argparse.Namespace) -> int:
    """Read the data, run the set-union mechanism and write the released items."""
    source = source_from_args(args)
    if args.algorithm is None:
        args.algorithm = DEFAULT_ALGORITHM
    check_spark(args, source)
    target = output_target(args, source.inputs())
    show = show_progress(args)
    noise_options(args)  # a bad --noise fails before any data is read
    with warnings.catch_warnings():
        # Floating-point noise (--noise float, or an algorithm without an exact form): the
        # summary line says so instead of a warning that would come before any error line.
        warnings.simplefilter("ignore", UnsafeNoiseWarning)
        result = _release(args, source, show)
    if args.seed is not None:  # whoever knows the seed can remove the noise
        result = seeded_copy(result)
    text = formatted(
        args,
        text=lambda: items_text(result.items),
        json_doc=lambda: result_json(result, source, args.seed),
        table=lambda: csv_text(["item"], ([label] for label in label_strings(result.items))),
    )
    emit(text, target)
    print(summary(result, target), file=sys.stderr)
    if args.seed is not None:
        note("union", f"--seed {args.seed} makes this release reproducible: for research only")
    return 0


def _release(args: argparse.Namespace, source: Source, show: bool) -> SetUnionResult:
    if args.engine == "spark":
        start_spark(args, "union")
        with progress(f"running {args.algorithm} on Spark", enabled=show):
            return release(spark_pairs(source), args)
    graph = load_graph(source, show=show)
    with progress(f"running {args.algorithm}", enabled=show):
        return release(graph, args)


def release(data: PersonItemGraph | SparkPairs, args: argparse.Namespace) -> SetUnionResult:
    """The mechanism's own function with the command's options, on a graph or on the Spark
    pairs (which it runs through the mechanisms' Spark adapter, as the Python API does)."""
    mechanism = get(args.algorithm).function
    return mechanism(
        data,
        args.epsilon,
        args.delta,
        max_items=args.max_items,
        rng=args.seed,
        **noise_options(args),
    )


def noise_options(args: argparse.Namespace) -> dict[str, str]:
    """``noise=`` for the mechanism: the choice of --noise, refused (before any work) for an
    algorithm that has floating-point noise only (and not passed to it: such a mechanism, e.g.
    ``max_adaptive_degree``, takes no ``noise=`` on either engine)."""
    from mechanisms.set_union.calibration import EXACT

    if args.noise is None:
        return {}
    if args.algorithm not in EXACT:
        if args.noise == "float":
            return {}  # its only form
        raise UserError(
            f"--noise exact: {args.algorithm} has no exact-noise form yet; choose one of "
            f"{', '.join(EXACT)}"
        )
    return {"noise": args.noise}


def label_strings(items: np.ndarray) -> list[str]:
    """The released labels as text (dates and times in ISO 8601).

    Examples
    --------
    >>> label_strings(np.array(["b", "a"])), label_strings(np.array([3, 10]))
    (['b', 'a'], ['3', '10'])
    >>> label_strings(np.array(["2024-02-29"], dtype="datetime64[ns]"))
    ['2024-02-29T00:00:00.000000000']
    """
    if items.dtype.kind == "M":
        return [str(s) for s in np.datetime_as_string(items)]
    return [str(x) for x in items.tolist()]


def items_text(items: np.ndarray) -> str:
    """One label per line; refuses labels that contain a line break (use ``--json``)."""
    labels = label_strings(items)
    if any("\n" in s or "\r" in s for s in labels):
        raise UserError(
            "a released item contains a line break, so one item per line is ambiguous; use "
            "--csv or --json"
        )
    return "".join(s + "\n" for s in labels)


def summary(result: SetUnionResult, target: OutputFile | None) -> str:
    """The stderr line: how many items were released, with ε and δ, and whether the output
    may be released (exact noise) or not (floating-point noise)."""
    where = f" to {target.given}" if target is not None else ""
    verdict = (
        "exact noise: may be released"
        if result.secure
        else "floating-point noise: NOT for release, experiments only"
    )
    return (
        f"dpcount union: released {result.count:,} items{where} with {result.mechanism} "
        f"(ε = {result.epsilon:g}, δ = {result.delta:g}, at most {result.max_items} items "
        f"per person; {verdict})"
    )


def result_json(result: SetUnionResult, source: Source, seed: int | None) -> dict[str, Any]:
    """The result's own :meth:`to_dict` (items last) plus where it came from."""
    doc = result.to_dict()
    items = doc.pop("items")
    return {
        "algorithm": result.mechanism,
        "count": result.count,
        **doc,
        "source": source.to_json(),
        "seed": seed,
        "dpcount_version": dpcount.__version__,
        "items": items,
    }
