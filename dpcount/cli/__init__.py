"""The ``dpcount`` command line.

Subcommands (one module each):

``dpcount count``
    A differentially private lower bound on the distinct count of a file, a SQL query or a
    built-in data set (:func:`mechanisms.distinct_count.dp_distinct_count`).
``dpcount curve``
    DC(D;ℓ) for ℓ = 1..ℓ_max as a table, CSV or plot – NOT private, labelled so everywhere.
``dpcount union``
    A differentially private set of items (:mod:`mechanisms.set_union`).
``dpcount datasets``
    List the built-in data sets, or build one, print its summary and optionally write its pairs.

Results go to stdout (or to ``--output FILE``, :mod:`dpcount.cli._outputs`), everything else
(summaries, notes, warnings, progress) to stderr; ``--json`` and ``--csv`` mean the same in
every subcommand (:mod:`dpcount.cli._formats`).  A progress indicator appears on a terminal
only, for steps longer than about two seconds, and never with ``--json``, unless
``--progress`` or ``--no-progress`` says otherwise; with it, a note says once when kernels are
compiled (:mod:`dpcount.cli._kernels`).  User errors (bad
options, a missing column, an unreadable file, an unknown data set) print one line
``dpcount COMMAND: error: ...`` to stderr and exit with status 2; no traceback, and options
are named by their flags (:mod:`dpcount.cli._errors`).  Ctrl-C, SIGTERM and SIGHUP clean up
and say so in one line (:mod:`dpcount.cli._signals`).  Programming errors are not caught.
On a terminal that cannot encode the Greek letters and signs, they are spelled in ASCII
("eps", "<=", "beta", "delta", "ell"; :mod:`dpcount.cli._output`).

Examples
--------
>>> main(["datasets", "southern-women"])  # doctest: +NORMALIZE_WHITESPACE
southern-women: Davis's Southern Women: 18 women, 14 social events, 89 attendances
persons                   18
items (distinct count)    14
...
0
>>> main(["curve", "--dataset", "southern-women", "--ell-max", "3"])
# NOT PRIVATE: DC(D;ℓ) of southern-women, exact (incremental), computed from the raw data ...
ℓ  DC(D;ℓ)
1       14
2       14
3       14
0
"""

from __future__ import annotations

import argparse
import os
import signal
import sys
import warnings
from collections.abc import Callable, Sequence
from typing import NoReturn, TextIO

import dpcount
from dpcount.errors import DPCountError, DPCountWarning

from . import _count, _curve, _datasets, _union
from ._common import UserError, show_progress
from ._errors import flag_spelling
from ._kernels import compile_note
from ._output import ascii_fallback
from ._progress import say
from ._signals import Signals, stop_signals

__all__ = ["build_parser", "main"]

_EPILOG = """\
examples:
  dpcount count --dataset fashion-like --epsilon 1          a private lower bound
  dpcount count reviews.csv --person user --item product --json
  dpcount curve --dataset fashion-like --ell-max 50 --plot curve.png   (not private)
  dpcount union words.parquet --person user --item word --epsilon 3 --output words.txt
  dpcount datasets                                          the built-in data sets

Run 'dpcount COMMAND --help' for the options of a command.
"""


class _Parser(argparse.ArgumentParser):
    """An argument parser whose usage errors are one line on stderr (exit status 2)."""

    def error(self, message: str) -> NoReturn:
        self.exit(2, f"{self.prog}: error: {_one_line(message)} (see '{self.prog} --help')\n")


def build_parser() -> argparse.ArgumentParser:
    """The argument parser of the ``dpcount`` command (one subparser per subcommand)."""
    parser = _Parser(
        prog="dpcount",
        description="Counting distinct elements under person-level differential privacy.",
        epilog=_EPILOG,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("--version", action="version", version=f"dpcount {dpcount.__version__}")
    commands = parser.add_subparsers(dest="command", metavar="COMMAND")
    for module in (_count, _curve, _union, _datasets):
        module.add_parser(commands)
    for subparser in commands.choices.values():  # errors name this subcommand's flags
        subparser.set_defaults(subparser=subparser)
        subparser.add_argument(
            "--progress",
            action=argparse.BooleanOptionalAction,
            help="show a progress line on stderr for steps longer than 2 s, and a note when "
            "kernels are compiled, even when stderr is not a terminal (--no-progress: never; "
            "default: on a terminal, without --json)",
        )
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    """Run the command line with ``argv`` (default ``sys.argv[1:]``); return the exit status.

    Output that the terminal cannot encode is spelled in ASCII ("eps", "<="), never a traceback.
    Ctrl-C, SIGTERM and SIGHUP end the command through the normal clean-up (temporary files
    and database folders removed) with one line on stderr and status 128 + the signal's number.
    """
    with ascii_fallback(), stop_signals() as signals:
        return _main(argv, signals)


def _main(argv: Sequence[str] | None, signals: Signals) -> int:
    parser = build_parser()
    try:
        args = parser.parse_args(argv)
    except SystemExit as exc:  # argparse already printed usage/help/version
        return exc.code if isinstance(exc.code, int) else 2
    if args.command is None:
        parser.print_help()
        return 0
    try:
        with (
            warnings.catch_warnings(),
            compile_note(args.command, enabled=show_progress(args)),
        ):
            warnings.showwarning = _warning_printer(args.command)
            # dpcount's warnings are part of the command's output, one line each on stderr,
            # whatever filters the interpreter runs with (python -W error, a test suite's).
            warnings.simplefilter("default", DPCountWarning)
            return int(args.handler(args))
    except KeyboardInterrupt:
        return _stopped(args.command, signals.received or signal.SIGINT)
    except BrokenPipeError:  # e.g. `dpcount union ... | head`: the reader has gone, stop quietly
        _silence_stdout()
        return 141  # 128 + SIGPIPE, as a shell reports it
    except (DPCountError, UserError, OSError) as exc:
        if signals.received is not None:
            return _stopped(args.command, signals.received)
        # dpcount's errors name the options as this subcommand's flags
        said = exc.render(flag_spelling(args.subparser)) if isinstance(exc, DPCountError) else exc
        print(f"dpcount {args.command}: error: {_one_line(said)}", file=sys.stderr)
        return 2
    except MemoryError as exc:  # the data (or --scale-factor) is too large for this machine
        print(f"dpcount {args.command}: error: out of memory ({_one_line(exc)})", file=sys.stderr)
        return 2
    except Exception:
        if signals.received is not None:  # e.g. DuckDB's "Query interrupted" RuntimeError
            return _stopped(args.command, signals.received)
        raise


def _stopped(command: str, signum: int) -> int:
    """Report a stop signal in one line; the exit status a shell gives for it."""
    name = signal.Signals(signum).name
    how = "interrupted" if signum == signal.SIGINT else f"terminated by {name}"
    print(f"dpcount {command}: {how}", file=sys.stderr)
    return 128 + signum


def _warning_printer(command: str) -> Callable[..., None]:
    """A ``warnings.showwarning`` that prints ``dpcount COMMAND: warning: ...`` in one line."""

    def show(
        message: Warning | str,
        category: type[Warning],
        filename: str,
        lineno: int,
        file: TextIO | None = None,
        line: str | None = None,
    ) -> None:
        # say() erases a drawn progress line first, so the warning starts a line of its own
        say(f"dpcount {command}: warning: {_one_line(message)}", stream=file)

    return show


def _silence_stdout() -> None:
    """Point stdout at /dev/null so the interpreter's final flush cannot fail again."""
    try:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
    except (OSError, ValueError, AttributeError):  # not a real file (e.g. captured in tests)
        pass


def _one_line(exc: BaseException | str) -> str:
    text = " ".join(str(exc).split())
    return text or type(exc).__name__


if __name__ == "__main__":
    sys.exit(main())
