"""The ``dpcount`` command line (skeleton; subcommands arrive with their features)."""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence

import dpcount


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="dpcount", description=__doc__)
    parser.add_argument("--version", action="version", version=f"dpcount {dpcount.__version__}")
    parser.add_subparsers(dest="command")
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    if args.command is None:
        parser.print_help()
    return 0


if __name__ == "__main__":
    sys.exit(main())
