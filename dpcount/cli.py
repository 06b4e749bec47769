"""The ``dpcount`` command line.

Subcommands:

``dpcount datasets``
    List the built-in data sets, or build one, print its summary and optionally write its pairs.

User errors (bad options, unknown data set, unreadable data) print one line to stderr and exit
with status 2; no traceback.

Examples
--------
>>> main(["datasets", "southern-women"])  # doctest: +NORMALIZE_WHITESPACE
southern-women: Davis's Southern Women: 18 women, 14 social events, 89 attendances
persons                   18
items (distinct count)    14
...
0
"""

from __future__ import annotations

import argparse
import sys
import time
from collections.abc import Sequence
from pathlib import Path
from typing import NoReturn

import dpcount
from dpcount.errors import DPCountError

_EPILOG_DATASETS = """\
examples:
  dpcount datasets                                   list the data sets
  dpcount datasets fashion-like --seed 3             build one and print its summary
  dpcount datasets reddit-like --scale 0.1 --output reddit.parquet
  dpcount datasets tpch-o-od --scale 1               TPC-H SF 1 (generated once, then cached)
"""


class _UserError(Exception):
    """A mistake on the command line, reported in one line with exit status 2."""


class _Parser(argparse.ArgumentParser):
    """An argument parser whose usage errors are one line on stderr (exit status 2)."""

    def error(self, message: str) -> NoReturn:
        self.exit(2, f"{self.prog}: error: {message} (see '{self.prog} --help')\n")


def build_parser() -> argparse.ArgumentParser:
    """The argument parser of the ``dpcount`` command (one subparser per subcommand)."""
    parser = _Parser(
        prog="dpcount",
        description="Counting distinct elements under person-level differential privacy.",
        epilog="Run 'dpcount COMMAND --help' for the options of a command.",
    )
    parser.add_argument("--version", action="version", version=f"dpcount {dpcount.__version__}")
    commands = parser.add_subparsers(dest="command", metavar="COMMAND")
    _add_datasets_parser(commands)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    """Run the command line with ``argv`` (default ``sys.argv[1:]``); return the exit status."""
    parser = build_parser()
    try:
        args = parser.parse_args(argv)
    except SystemExit as exc:  # argparse already printed usage/help/version
        return exc.code if isinstance(exc.code, int) else 2
    if args.command is None:
        parser.print_help()
        return 0
    try:
        return int(args.handler(args))
    except (DPCountError, _UserError, OSError) as exc:
        print(f"dpcount {args.command}: error: {_one_line(exc)}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        print(f"dpcount {args.command}: interrupted", file=sys.stderr)
        return 130


# --------------------------------------------------------------------------------------------
# dpcount datasets
# --------------------------------------------------------------------------------------------


def _add_datasets_parser(commands: argparse._SubParsersAction) -> None:
    parser = commands.add_parser(
        "datasets",
        help="list or build the built-in data sets",
        description=(
            "Without NAME, list the built-in data sets. With NAME, build that data set, print "
            "its summary (sizes and degree statistics, not a private release) and, with "
            "--output, write its person–item pairs."
        ),
        epilog=_EPILOG_DATASETS,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("name", nargs="?", metavar="NAME", help="data set to build")
    parser.add_argument(
        "--scale",
        type=float,
        default=1.0,
        metavar="S",
        help="fraction of persons (synthetic) or TPC-H scale factor (default: 1)",
    )
    parser.add_argument(
        "--seed", type=int, default=0, metavar="N", help="seed of synthetic data (default: 0)"
    )
    parser.add_argument(
        "--output",
        metavar="FILE",
        help="write the pairs to FILE.csv or FILE.parquet (columns person, item[, count])",
    )
    parser.add_argument(
        "--cache-dir",
        metavar="DIR",
        help="folder for generated TPC-H tables (default: the user cache folder)",
    )
    parser.set_defaults(handler=_run_datasets)


def _run_datasets(args: argparse.Namespace) -> int:
    from dpcount import datasets

    if args.name is None:
        width = max(map(len, datasets.names()))
        for name in datasets.names():
            print(f"{name:<{width}}  {datasets.description(name)}")
        print(
            "\n--scale is the fraction of persons for synthetic data, the scale factor for TPC-H."
        )
        return 0
    if args.name not in datasets.names():
        raise _UserError(
            f"unknown data set {args.name!r}; choose one of {', '.join(datasets.names())}"
        )
    if args.output is not None:
        _check_output(args.output)
    start = time.perf_counter()
    graph = datasets.load(args.name, scale=args.scale, seed=args.seed, cache_dir=args.cache_dir)
    elapsed = time.perf_counter() - start
    print(f"{args.name}: {datasets.description(args.name)}")
    print(graph.summary())
    if args.output is not None:
        from dpcount.io import write_pairs

        path = write_pairs(graph, args.output)
        print(f"wrote {graph.n_pairs:,} pairs to {path}")
    print(f"built in {elapsed:.2f} s", file=sys.stderr)
    return 0


def _check_output(output: str) -> None:
    """Fail before the (possibly long) build when the output file cannot be written."""
    if not output.lower().endswith((".csv", ".parquet")):
        raise _UserError(f"--output must end in .csv or .parquet, got {output!r}")
    folder = Path(output).expanduser().parent
    if not folder.is_dir():
        raise _UserError(f"--output folder {str(folder)!r} does not exist")


def _one_line(exc: BaseException) -> str:
    text = " ".join(str(exc).split())
    return text or type(exc).__name__


if __name__ == "__main__":
    sys.exit(main())
