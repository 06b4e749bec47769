"""``dpcount count``: a differentially private lower bound on the number of distinct items."""

from __future__ import annotations

import argparse
from typing import TYPE_CHECKING, Any

import dpcount
from mechanisms.distinct_count import COUNTINGS, DistinctCountResult, dp_distinct_count
from mechanisms.release import seeded_copy

from ._common import (
    SEED_HELP,
    Source,
    add_source_arguments,
    beta_type,
    epsilon_type,
    load_graph,
    positive_int_type,
    seed_type,
    show_progress,
    source_from_args,
    wrap,
)
from ._formats import add_output_arguments, csv_text, emit, finish, formatted, output_target
from ._grouped import add_grouped_arguments, grouped_requested, run_grouped
from ._kernels import compiling_ahead
from ._progress import progress
from ._spark import add_engine_arguments, check_spark, spark_pairs, start_spark

if TYPE_CHECKING:  # PySpark is an optional extra
    from dpcount import PersonItemGraph
    from dpcount.spark import SparkPairs

EPILOG = """\
examples:
  dpcount count --dataset fashion-like --epsilon 1
  dpcount count reviews.csv --person user --item product --json
  dpcount count --sql "SELECT user_id AS person, word AS item FROM 'posts.parquet'" --beta 0.01
  dpcount count logs.tsv --person uid --item page --counting greedy --ell-max 50
  dpcount count customers.csv --person customer --item home_store --ell 1

With probability ≥ 1 − β over the mechanism's randomness the data holds at least the released
number of distinct items.  The release is ε-DP for adding or removing one person with all their
items: ε/2 chooses the contribution bound ℓ, ε/2 pays for the count – or, with a public --ell
(a cap the data guarantee, such as one home store per customer), all of ε pays for the count.
"""


def add_parser(commands: argparse._SubParsersAction) -> None:
    """Register ``dpcount count``."""
    parser = commands.add_parser(
        "count",
        help="a private lower bound on the distinct count",
        description=wrap(
            "Release a differentially private lower bound on the number of distinct items in "
            "person–item data (Knop & Steinke 2023): GEM chooses how many items each person "
            "may contribute (ℓ), then a Laplace count of DC(D;ℓ) is shifted down so that it "
            "stays below the true count with probability 1 − β."
        ),
        epilog=EPILOG,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    add_source_arguments(parser)
    group = parser.add_argument_group("privacy and accuracy")
    group.add_argument(
        "--epsilon",
        type=epsilon_type,
        default=1.0,
        metavar="EPS",
        help="privacy budget ε > 0 spent by the release (default: 1)",
    )
    group.add_argument(
        "--beta",
        type=beta_type,
        default=0.05,
        metavar="B",
        help="failure probability in (0, 0.5): the bound holds with confidence 1 − β "
        "(default: 0.05)",
    )
    group.add_argument(
        "--ell-max",
        type=positive_int_type("ell-max"),
        default=100,
        metavar="L",
        help="largest contribution bound ℓ GEM may choose (default: 100)",
    )
    group.add_argument(
        "--ell",
        type=positive_int_type("ell"),
        metavar="L",
        help="a public contribution bound ℓ, fixed in advance (e.g. a cap the schema "
        "guarantees): nothing is spent choosing ℓ, all of ε goes to the count",
    )
    group.add_argument(
        "--counting",
        choices=COUNTINGS,
        default="matching",
        help="how DC(D;ℓ) is computed: exact maximum matching (default), the linear-time "
        "greedy 2-approximation, or per-person sampling (a baseline)",
    )
    group.add_argument("--seed", type=seed_type, metavar="N", help=SEED_HELP)
    add_output_arguments(parser, what="the release (a row per group with --group)")
    add_engine_arguments(parser)
    add_grouped_arguments(parser)
    parser.set_defaults(handler=run)


def run(args: argparse.Namespace) -> int:
    """Read the data, run :func:`dp_distinct_count` and print the release."""
    if grouped_requested(args):
        return run_grouped(args)
    source = source_from_args(args)
    check_spark(args, source)
    target = output_target(args, source.inputs())
    show = show_progress(args)
    if args.engine == "spark":
        start_spark(args, "count")
        # Spark's own console progress bar is off (dpcount_session): one line here instead.
        with progress(f"counting {source.value} on Spark", enabled=show):
            result = lower_bound(spark_pairs(source), args)
    else:
        with compiling_ahead(source, args.counting):
            graph = load_graph(source, show=show)
            with progress("computing the private lower bound", enabled=show):
                result = lower_bound(graph, args)
    if args.seed is not None:  # whoever knows the seed can remove the noise
        result = seeded_copy(result)
    text = formatted(
        args,
        text=lambda: report(result, source) + "\n",
        json_doc=lambda: result_json(result, source, args.seed),
        table=lambda: result_csv(result),
    )
    emit(text, target)
    finish("count", target, args.seed)
    return 0


def lower_bound(
    data: PersonItemGraph | SparkPairs, args: argparse.Namespace
) -> DistinctCountResult:
    """:func:`dp_distinct_count` with the command's options, on a graph or on the Spark pairs
    (which it runs through the mechanisms' Spark adapter, as the Python API does)."""
    return dp_distinct_count(
        data,  # type: ignore[arg-type]  # its declaration hands SparkPairs to the adapter
        args.epsilon,
        beta=args.beta,
        ell_max=args.ell_max,
        ell=args.ell,
        counting=args.counting,
        rng=args.seed,
    )


def report(result: DistinctCountResult, source: Source) -> str:
    """The human-readable release: the bound on one line, then the result's own sentences."""
    headline = (
        f"{source.describe()}: at least {result.lower_bound:,} distinct items "
        f"(private lower bound, ε = {result.epsilon:g}, ℓ = {result.ell})"
    )
    return wrap(f"{headline}\n{result}")


#: Columns of ``count --csv`` (one row; ``group`` first with ``--group``).
CSV_COLUMNS = ("lower_bound", "estimate", "ell", "epsilon", "beta", "confidence", "is_private")


def result_csv(result: DistinctCountResult) -> str:
    """The release as a one-row CSV table: the bound, ν̂ as released, and what it cost."""
    row = [
        result.lower_bound,
        result.estimate,
        result.ell,
        result.epsilon,
        result.beta,
        result.confidence,
        result.is_private,
    ]
    return csv_text(CSV_COLUMNS, [row])


def result_json(result: DistinctCountResult, source: Source, seed: int | None) -> dict[str, Any]:
    """The release as a JSON object: the result's own :meth:`to_dict` plus where it came from.

    Nothing in it is computed from the data without noise (the CLI never asks for diagnostics).
    """
    return {
        **result.to_dict(),
        "lower_bound": result.lower_bound,
        "confidence": result.confidence,
        "source": source.to_json(),
        "seed": seed,
        "dpcount_version": dpcount.__version__,
    }
