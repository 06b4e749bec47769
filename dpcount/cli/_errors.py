"""The command line's errors: its own :class:`UserError`, and dpcount's errors in its flags.

dpcount's errors hold the parameters they name as :class:`~dpcount.errors.Option` pieces (a
Python keyword and the suggested values).  :func:`flag_spelling` writes each one as the flag of
the running subcommand, found in the argument parser's own table of options: an option's
``dest`` is the keyword (``--drop-nulls`` → ``drop_nulls``), or :func:`python_keyword` marks the
keyword an option stands for when the names differ (``--no-header`` stands for ``header``,
``--groups-file`` for ``groups``).

Examples
--------
>>> import argparse
>>> from dpcount.errors import DataError, Option
>>> parser = argparse.ArgumentParser(prog="dpcount count")
>>> _ = parser.add_argument("--drop-nulls", action="store_true")
>>> _ = python_keyword(parser.add_argument("--no-header", action="store_true"), "header")
>>> _ = parser.add_argument("--encoding", choices=("utf-8", "utf-16", "latin-1"))
>>> error = DataError("not UTF-8; pass ", Option("encoding", "latin-1", "utf-16"), source="a.csv")
>>> error.render(flag_spelling(parser))
'a.csv: not UTF-8; pass --encoding latin-1 or --encoding utf-16'
>>> [flag_spelling(parser)(o) for o in (Option("drop_nulls", True), Option("header", False))]
['--drop-nulls', '--no-header']
"""

from __future__ import annotations

import argparse
import shlex
from collections.abc import Callable, Mapping
from typing import Any

from dpcount.errors import Option

__all__ = ["UserError", "flag_spelling", "python_keyword"]

_KEYWORD = "dpcount_keyword"  # the attributes python_keyword sets on an argparse action
_SPELLING = "dpcount_spelling"


class UserError(Exception):
    """A mistake on the command line, reported in one line with exit status 2."""


def python_keyword(
    action: argparse.Action, keyword: str, *, spelled: str | None = None
) -> argparse.Action:
    """Mark ``action`` as the command line's spelling of the Python keyword ``keyword``;
    ``spelled`` is what a message suggesting the switch says (default: the flag)."""
    setattr(action, _KEYWORD, keyword)
    setattr(action, _SPELLING, spelled)
    return action


def flag_spelling(parser: argparse.ArgumentParser) -> Callable[[Option], str]:
    """A speller for :meth:`~dpcount.errors.DPCountError.render` that names ``parser``'s flags.

    An option the parser does not have keeps its Python spelling.
    """
    table = _option_table(parser)

    def spell(option: Option) -> str:
        action = table.get(option.keyword)
        if action is None:
            return option.python()
        return _flag_text(action, option)

    return spell


def _option_table(parser: argparse.ArgumentParser) -> dict[str, argparse.Action]:
    """Python keyword → the visible option that sets it."""
    table: dict[str, argparse.Action] = {}
    for action in parser._actions:  # argparse keeps no public list of its options
        if not action.option_strings or action.help == argparse.SUPPRESS:
            continue
        table.setdefault(getattr(action, _KEYWORD, action.dest), action)
    return table


def _flag_text(action: argparse.Action, option: Option) -> str:
    flag = next((s for s in action.option_strings if s.startswith("--")), action.option_strings[0])
    if action.nargs == 0:  # a switch: it stands for one value of the keyword
        stands_for = getattr(action, "const", True)
        if action.dest != option.keyword and action.dest.startswith("no_"):
            stands_for = not stands_for  # --no-header stands for header=False
        if not option.values or option.values == (stands_for,):
            return getattr(action, _SPELLING, None) or flag
        return f"no {flag}"
    if not option.values:
        return flag
    if len(option.values) == 1 and isinstance(option.values[0], Mapping):  # a repeated option
        return " ".join(f"{flag} {_typed(f'{k}={v}')}" for k, v in option.values[0].items())
    if len(option.values) <= 2:
        return " or ".join(f"{flag} {_typed(value)}" for value in option.values)
    return f"{flag} one of {', '.join(_typed(v) for v in option.values)}"


def _typed(value: Any) -> str:
    """A value as typed on a shell command line."""
    return shlex.quote(str(value))
