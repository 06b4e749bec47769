"""One meaning per output option, for every subcommand.

* ``--json`` prints one JSON object instead of text, ``--csv`` a CSV table (where a table
  makes sense); the two exclude each other.
* ``--output FILE`` sends that output to FILE instead of stdout (checked before any work, written
  atomically: :mod:`dpcount.cli._outputs`).

The JSON objects share their fields across subcommands: ``result`` names the result type, then
``is_private``, ``secure``, the result's own fields, where the data came from (``source``) and
``dpcount_version``.  CSV output is a plain table that any CSV reader reads: notices (NOT
PRIVATE, seeded noise) go to stderr or into a column name, never into a comment line.

Examples
--------
>>> import argparse
>>> parser = argparse.ArgumentParser(prog="dpcount x")
>>> add_output_arguments(parser, what="the release")
>>> args = parser.parse_args(["--csv", "--output", "out.csv"])
>>> output_format(args), args.output
('csv', 'out.csv')
>>> print(csv_text(["group", "lower_bound"], [["a,b", 3]]), end="")
group,lower_bound
"a,b",3
"""

from __future__ import annotations

import argparse
import csv
import io
import sys
from collections.abc import Callable, Iterable, Sequence
from typing import Any, Literal

from ._common import json_text, note
from ._errors import UserError
from ._outputs import OutputFile, output_file

__all__ = [
    "add_output_arguments",
    "csv_text",
    "emit",
    "finish",
    "formatted",
    "output_format",
    "output_target",
]


def add_output_arguments(
    parser: argparse.ArgumentParser,
    *,
    what: str,
    csv: bool = True,
    deprecated_csv_file: bool = False,
) -> None:
    """``--json``, ``--csv`` (when ``csv``) and ``--output FILE`` for ``what`` the command prints.

    With ``deprecated_csv_file``, ``--csv FILE`` (the old spelling of ``--csv --output FILE``)
    is still accepted, with a warning.
    """
    group = parser.add_argument_group("output (default: text on stdout)")
    formats = group.add_mutually_exclusive_group()
    formats.add_argument(
        "--json", action="store_true", help=f"{what} as one JSON object instead of text"
    )
    if csv and deprecated_csv_file:
        formats.add_argument(
            "--csv",
            nargs="?",
            const=True,
            default=False,
            action=_CsvSwitchOrOldFile,
            metavar="FILE",
            help=f"{what} as a CSV table ('--csv FILE' is the old spelling of "
            "'--csv --output FILE')",
        )
    elif csv:
        formats.add_argument("--csv", action="store_true", help=f"{what} as a CSV table")
    group.add_argument(
        "--output",
        metavar="FILE",
        help=f"write {what} to FILE instead of stdout (never over an input; atomically)",
    )


class _CsvSwitchOrOldFile(argparse.Action):
    """``--csv`` as a switch; ``--csv FILE`` as the deprecated ``--csv --output FILE``."""

    def __call__(
        self,
        parser: argparse.ArgumentParser,
        namespace: argparse.Namespace,
        values: Any,
        option_string: str | None = None,
    ) -> None:
        namespace.csv = True
        if values is not True:
            print(
                f"{parser.prog}: warning: --csv FILE is deprecated; use --csv --output FILE",
                file=sys.stderr,
            )
            namespace.old_csv_file = values


def output_format(args: argparse.Namespace) -> Literal["text", "json", "csv"]:
    """The format the options ask for."""
    if getattr(args, "json", False):
        return "json"
    if getattr(args, "csv", False):
        return "csv"
    return "text"


def output_target(
    args: argparse.Namespace, inputs: Iterable[str], others: Sequence[OutputFile] = ()
) -> OutputFile | None:
    """The checked ``--output`` file (or ``--csv FILE``), or ``None`` for stdout."""
    old = getattr(args, "old_csv_file", None)
    if old is not None and args.output is not None and old != args.output:
        raise UserError("give the CSV file once: --csv --output FILE")
    path, option = (args.output, "--output") if old is None else (old, "--csv")
    if path is None:
        return None
    return output_file(path, option, inputs=list(inputs), others=others)


def emit(text: str, target: OutputFile | None) -> None:
    """``text`` to ``target``, or to stdout."""
    if target is None:
        sys.stdout.write(text)
        sys.stdout.flush()
    else:
        target.write_text(text)


def formatted(
    args: argparse.Namespace,
    *,
    text: Callable[[], str],
    json_doc: Callable[[], Any],
    table: Callable[[], str],
) -> str:
    """The output in the format the options ask for: ``text()``, ``json_doc()`` as JSON or the
    CSV ``table()`` (only the one asked for is built)."""
    fmt = output_format(args)
    if fmt == "json":
        return json_text(json_doc()) + "\n"
    if fmt == "csv":
        return table()
    return text()


def finish(command: str, target: OutputFile | None, seed: int | None) -> None:
    """The notes after a release: where it was written, and that a seed is for research."""
    if target is not None:
        note(command, f"wrote the release to {target.given}")
    if seed is not None:
        note(command, f"--seed {seed} makes this release reproducible: for research only")


def csv_text(header: Sequence[str], rows: Iterable[Sequence[Any]]) -> str:
    """A CSV table (RFC 4180 quoting, ``\\n`` line ends)."""
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\n")
    writer.writerow(header)
    writer.writerows(rows)
    return out.getvalue()
