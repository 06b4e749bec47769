"""``dpcount datasets``: list the built-in data sets, or build one and print its summary."""

from __future__ import annotations

import argparse
import dataclasses
import sys
import time
from typing import Any

import dpcount
from dpcount.graph import GraphSummary

from ._common import (
    MAX_SCALE_FACTOR,
    DeprecatedAlias,
    UserError,
    json_text,
    scale_factor_type,
    seed_type,
    show_progress,
    wrap,
)
from ._outputs import output_file
from ._progress import progress

EPILOG = """\
examples:
  dpcount datasets                                   list the data sets
  dpcount datasets fashion-like --data-seed 3        build one and print its summary
  dpcount datasets reddit-like --scale-factor 0.1 --output reddit.parquet
  dpcount datasets tpch-o-od --scale-factor 1        TPC-H SF 1 (generated once, then cached)
"""


def add_parser(commands: argparse._SubParsersAction) -> None:
    """Register ``dpcount datasets``."""
    parser = commands.add_parser(
        "datasets",
        help="list or build the built-in data sets",
        description=wrap(
            "Without NAME, list the built-in data sets. With NAME, build that data set, print "
            "its summary (sizes and degree statistics, not a private release) and, with "
            "--output, write its person–item pairs."
        ),
        epilog=EPILOG,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("name", nargs="?", metavar="NAME", help="data set to build")
    parser.add_argument(
        "--scale-factor",
        "--scale",
        dest="scale_factor",
        type=scale_factor_type,
        default=1.0,
        metavar="S",
        help="fraction of persons (synthetic) or TPC-H scale factor, at most "
        f"{MAX_SCALE_FACTOR:g} (default: 1)",
    )
    parser.add_argument(
        "--data-seed",
        type=seed_type,
        default=0,
        metavar="N",
        help="seed of synthetic data, as 'count --data-seed' (default: 0)",
    )
    parser.add_argument(  # the name before 'count --data-seed' set one name for it
        "--seed",
        dest="data_seed",
        type=seed_type,
        action=DeprecatedAlias,
        new="--data-seed",
        help=argparse.SUPPRESS,
    )
    parser.add_argument(
        "--output",
        metavar="FILE",
        help="write the pairs to FILE.csv or FILE.parquet (columns person, item[, count])",
    )
    parser.add_argument(
        "--json",
        action="store_true",
        help="the list, or the data set's summary, as one JSON object instead of text",
    )
    parser.add_argument(
        "--cache-dir",
        metavar="DIR",
        help="folder for generated TPC-H tables (default: the user cache folder)",
    )
    parser.set_defaults(handler=run)


def run(args: argparse.Namespace) -> int:
    """List the data sets, or build ``args.name``, print its summary and maybe write it."""
    from dpcount import datasets

    if args.name is None:
        names = datasets.names()
        if args.json:
            listing = [{"name": n, "description": datasets.description(n)} for n in names]
            print(json_text({"datasets": listing, "dpcount_version": dpcount.__version__}))
            return 0
        width = max(map(len, names))
        for name in names:
            print(f"{name:<{width}}  {datasets.description(name)}")
        print(
            "\n--scale-factor is the fraction of persons for synthetic data, TPC-H's scale factor "
            "for TPC-H."
        )
        return 0
    if args.name not in datasets.names():
        raise UserError(
            f"unknown data set {args.name!r}; choose one of {', '.join(datasets.names())}"
        )
    target = None
    if args.output is not None:
        target = output_file(args.output, "--output", suffixes=(".csv", ".parquet"))
    start = time.perf_counter()
    with progress(f"building {args.name}", enabled=show_progress(args)):
        graph = datasets.load(
            args.name, scale_factor=args.scale_factor, seed=args.data_seed, cache_dir=args.cache_dir
        )
    elapsed = time.perf_counter() - start
    if target is not None:
        from dpcount.io import write_pairs

        with (
            progress(f"writing {target.given}", enabled=show_progress(args)),
            target.writing() as tmp,
        ):
            write_pairs(graph, tmp, format=target.suffix[1:])
    if args.json:
        print(json_text(summary_json(graph.summary(), args)))
    else:
        print(f"{args.name}: {datasets.description(args.name)}")
        print(graph.summary())
    if target is not None:
        print(f"wrote {graph.n_pairs:,} pairs to {target.given}", file=sys.stderr)
    print(f"built in {elapsed:.2f} s", file=sys.stderr)
    return 0


def summary_json(summary: GraphSummary, args: argparse.Namespace) -> dict[str, Any]:
    """The data set's summary as JSON; ``GraphSummary(**doc["summary"])`` reads it back."""
    from dpcount import datasets

    return {
        "result": type(summary).__name__,
        "is_private": False,
        "name": args.name,
        "description": datasets.description(args.name),
        "scale_factor": args.scale_factor,
        "data_seed": args.data_seed,
        "summary": dataclasses.asdict(summary),
        "output": args.output,
        "dpcount_version": dpcount.__version__,
    }
