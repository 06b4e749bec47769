"""Shared pieces of the subcommands: option types, the data source, output files and JSON.

Option values are checked while the command line is parsed, so a bad ε or an unknown data set
fails at once – before a long read – with argparse's one-line error.
"""

from __future__ import annotations

import argparse
import json
import math
import sys
import textwrap
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any, Literal

import numpy as np

from dpcount.errors import InvalidParameterError
from dpcount.graph import PersonItemGraph
from dpcount.io import FORMATS
from dpcount.validation import (
    MAX_ITEMS,
    check_beta,
    check_delta,
    check_epsilon,
    check_positive_int,
)

from ._errors import UserError, python_keyword
from ._progress import progress, say, stderr_is_terminal

__all__ = [
    "MAX_SCALE_FACTOR",
    "SEED_HELP",
    "DeprecatedAlias",
    "Source",
    "UserError",
    "add_source_arguments",
    "beta_type",
    "check_distinct_columns",
    "delta_type",
    "epsilon_type",
    "json_text",
    "load_graph",
    "loss_json",
    "note",
    "positive_int_type",
    "scale_factor_type",
    "seed_type",
    "show_progress",
    "shown",
    "source_from_args",
    "wrap",
]

SEED_HELP = (
    "seed of the mechanism's randomness, a non-negative integer (default: fresh OS entropy). "
    "A seed makes the release reproducible: use it for research and tests, never for a real "
    "release"
)


# --------------------------------------------------------------------------------------------
# Option types (argparse ``type=`` callables)
# --------------------------------------------------------------------------------------------


def _checked(convert: Callable[[str], Any], check: Callable[[Any], Any]) -> Callable[[str], Any]:
    """An argparse type: ``convert`` the text, then ``check`` it with a dpcount validator."""
    what = "a whole number" if convert is int else "a number"

    def parse(text: str) -> Any:
        try:
            value = convert(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"expected {what}, got {shown(text)}") from None
        try:
            return check(value)
        except InvalidParameterError as exc:
            raise argparse.ArgumentTypeError(str(exc)) from None

    return parse


def shown(text: str, limit: int = 24) -> str:
    """``text`` quoted for a message, shortened when long (a 400-digit number stays one line).

    Examples
    --------
    >>> shown("12"), shown("9" * 400)
    ("'12'", "'999999999999…' (400 characters)")
    """
    if len(text) <= limit:
        return repr(text)
    return f"{text[: limit // 2]!r}"[:-1] + f"…' ({len(text)} characters)"


#: ε > 0 and finite.
epsilon_type = _checked(float, check_epsilon)
#: β ∈ (0, ½).
beta_type = _checked(float, check_beta)
#: δ ∈ (0, 1).
delta_type = _checked(float, check_delta)


def positive_int_type(name: str) -> Callable[[str], int]:
    """An argparse type for a whole number in ``[1, MAX_ITEMS]`` called ``name`` in messages.

    ``MAX_ITEMS`` (2³¹ − 1) is the public cap on every count of items or groups a person may
    contribute: larger values mean nothing more, and a 400-digit one must not reach code that
    converts it to a float.
    """

    def check(value: int) -> int:
        if value > MAX_ITEMS:  # before the validator, which would print all the digits
            raise InvalidParameterError(f"must be at most {MAX_ITEMS}")
        return check_positive_int(value, name)

    return _checked(int, check)


def _check_seed(value: int) -> int:
    if value < 0:
        raise InvalidParameterError(f"seed must be a non-negative integer, got {value}")
    return value


#: A seed: a whole number ≥ 0.
seed_type = _checked(int, _check_seed)


class DeprecatedAlias(argparse.Action):
    """An old spelling of an option: stores into the new option's ``dest`` and warns.

    Register it with ``help=argparse.SUPPRESS`` and ``new="--new-flag"``.
    """

    def __init__(self, option_strings: Sequence[str], dest: str, *, new: str, **kwargs: Any):
        super().__init__(option_strings, dest, **kwargs)
        self.new = new

    def __call__(
        self,
        parser: argparse.ArgumentParser,
        namespace: argparse.Namespace,
        values: Any,
        option_string: str | None = None,
    ) -> None:
        print(
            f"{parser.prog}: warning: {option_string} is deprecated; use {self.new}",
            file=sys.stderr,
        )
        setattr(namespace, self.dest, values)


def _dataset_type(text: str) -> str:
    from dpcount import datasets

    if text not in datasets.names():
        raise argparse.ArgumentTypeError(
            f"unknown data set {text!r}; choose one of {', '.join(datasets.names())}"
        )
    return text


#: The largest ``--scale-factor``: 100 times the Reddit-sized preset is 710M pairs, TPC-H at
#: scale 100 is 600M rows; beyond that no machine this runs on has the memory, so larger values
#: are refused before anything is built.
MAX_SCALE_FACTOR = 100.0


def scale_factor_type(text: str) -> float:
    """An argparse type for ``--scale-factor``: a number in (0, :data:`MAX_SCALE_FACTOR`]."""
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a number, got {shown(text)}") from None
    if not (math.isfinite(value) and value > 0):
        raise argparse.ArgumentTypeError(
            f"scale factor must be a positive number, got {shown(text)}"
        )
    if value > MAX_SCALE_FACTOR:
        raise argparse.ArgumentTypeError(
            f"scale factor must be at most {MAX_SCALE_FACTOR:g}, got {shown(text)}"
        )
    return value


# --------------------------------------------------------------------------------------------
# The data source: FILE, --sql QUERY or --dataset NAME
# --------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Source:
    """Where the person–item pairs come from, as given on the command line.

    Column names are the user's; a headerless file's columns (``--no-header --columns A,B``)
    are ``column0``, ``column1`` … for the reader (:meth:`reader_column`).

    Examples
    --------
    >>> s = Source("file", "x.csv", person="user", item="word", header=False,
    ...            columns=("word", "user"))
    >>> s.reader_column("user"), s.to_json()["person"]
    ('column1', 'user')
    """

    kind: Literal["file", "sql", "dataset"]
    value: str  # the path, the query or the data set name
    person: str = "person"
    item: str = "item"
    format: str | None = None
    drop_nulls: bool = False
    scale_factor: float = 1.0
    data_seed: int = 0
    cache_dir: str | None = None
    header: bool = True
    delimiter: str | None = None
    encoding: str = "utf-8"
    column_types: tuple[tuple[str, str], ...] = ()
    columns: tuple[str, ...] = ()

    def reader_column(self, name: str) -> str:
        """The reader's name of the user's column ``name``."""
        return f"column{self.columns.index(name)}" if self.columns else name

    def describe(self) -> str:
        """A short name for messages: the file, ``SQL query`` or the data set."""
        if self.kind == "file":
            return self.value
        if self.kind == "sql":
            return "the SQL query"
        return self.value if self.scale_factor == 1 else f"{self.value} (×{self.scale_factor:g})"

    def inputs(self) -> tuple[str, ...]:
        """The files (or the glob) read, which no output may overwrite."""
        return (self.value,) if self.kind == "file" else ()

    def to_json(self) -> dict[str, Any]:
        """The source as a JSON object."""
        if self.kind == "dataset":
            return {
                "kind": "dataset",
                "name": self.value,
                "scale_factor": self.scale_factor,
                "data_seed": self.data_seed,
            }
        key = "path" if self.kind == "file" else "query"
        doc: dict[str, Any] = {"kind": self.kind, key: self.value}
        if self.format is not None:
            doc["format"] = self.format
        if self.columns:
            doc["columns"] = list(self.columns)
        return doc | {"person": self.person, "item": self.item}


def add_source_arguments(parser: argparse.ArgumentParser) -> None:
    """The data-source options shared by ``count``, ``curve`` and ``union``."""
    parser.add_argument(
        "path",
        nargs="?",
        metavar="FILE",
        help="CSV, TSV, Parquet or JSON lines file, or a glob such as 'logs/*.parquet'; the "
        "format comes from the suffix",
    )
    group = parser.add_argument_group("data (give exactly one of FILE, --sql and --dataset)")
    group.add_argument(
        "--sql", metavar="QUERY", help="a DuckDB SELECT query giving the person and item columns"
    )
    group.add_argument(
        "--dataset",
        metavar="NAME",
        type=_dataset_type,
        help="a built-in data set (list them with 'dpcount datasets')",
    )
    group.add_argument("--person", metavar="COLUMN", help="column of person ids (default: person)")
    group.add_argument("--item", metavar="COLUMN", help="column of item ids (default: item)")
    group.add_argument(
        "--format", choices=FORMATS, help="format of FILE when its suffix does not tell"
    )
    group.add_argument(
        "--drop-nulls",
        action="store_true",
        help="drop rows with null or empty ids (with a warning) instead of failing",
    )
    no_header = group.add_argument(
        "--no-header",
        action="store_true",
        help="FILE (CSV/TSV) has no header line; its columns are column0, column1, ... or the "
        "names given with --columns",
    )
    python_keyword(no_header, "header", spelled="--no-header (with --columns NAME,NAME,...)")
    group.add_argument(
        "--columns",
        metavar="A,B,...",
        help="with --no-header: names of the columns of FILE, in order, for --person/--item",
    )
    group.add_argument(
        "--delimiter",
        metavar="CHAR",
        help="field separator of a CSV/TSV FILE (default: ',' for CSV, a tab for TSV)",
    )
    group.add_argument(
        "--encoding",
        choices=("utf-8", "utf-16", "latin-1"),
        help="encoding of a CSV/TSV FILE (default: utf-8)",
    )
    group.add_argument(
        "--column-type",
        dest="column_types",
        action="append",
        type=_column_type,
        metavar="COLUMN=TYPE",
        help="read COLUMN of a CSV/TSV FILE as the DuckDB TYPE instead of the detected one, "
        "e.g. person=VARCHAR for ids too large for integers; repeat for more columns",
    )
    group.add_argument(
        "--scale-factor",
        "--scale",
        dest="scale_factor",
        type=scale_factor_type,
        metavar="S",
        help="with --dataset: fraction of persons (synthetic) or TPC-H scale factor, at most "
        f"{MAX_SCALE_FACTOR:g} (default: 1)",
    )
    group.add_argument(
        "--data-seed",
        type=seed_type,
        metavar="N",
        help="with --dataset: seed of the synthetic data (default: 0)",
    )
    group.add_argument(
        "--cache-dir",
        metavar="DIR",
        help="with --dataset: folder for generated TPC-H tables (default: the user cache)",
    )


def _given(args: argparse.Namespace, names: Sequence[str]) -> list[str]:
    """The options among ``names`` (attribute names) that were given on the command line."""
    return [name for name in names if getattr(args, name) not in (None, False)]


def _flag(name: str) -> str:
    """The flag of the option stored as ``name`` (``column_types`` → ``--column-type``)."""
    return _FLAGS.get(name, "--" + name.replace("_", "-"))


#: Options whose flag is not their ``dest`` spelled with dashes.
_FLAGS = {"column_types": "--column-type"}


def source_from_args(args: argparse.Namespace) -> Source:
    """Check the data-source options of ``args`` and return the :class:`Source`.

    Raises
    ------
    UserError
        When not exactly one source is given, or an option does not apply to it.
    """
    given = _given(args, ("path", "sql", "dataset"))
    names = {"path": "FILE", "sql": "--sql", "dataset": "--dataset"}
    if len(given) != 1:
        found = " and ".join(names[g] for g in given)
        raise UserError(
            "give exactly one data source: a FILE, --sql QUERY or --dataset NAME"
            + (f" (got {found})" if found else "")
        )
    kind = given[0]
    if kind == "dataset":
        misplaced = _given(args, ("person", "item", "format", "drop_nulls", *_FILE_ONLY))
        if misplaced:
            raise UserError(
                f"{_flag(misplaced[0])} applies to a FILE or --sql; the columns of --dataset "
                "are fixed"
            )
        return Source(
            "dataset",
            args.dataset,
            scale_factor=1.0 if args.scale_factor is None else args.scale_factor,
            data_seed=0 if args.data_seed is None else args.data_seed,
            cache_dir=args.cache_dir,
        )
    misplaced = _given(args, ("scale_factor", "data_seed", "cache_dir"))
    if misplaced:
        raise UserError(f"{_flag(misplaced[0])} applies to --dataset only")
    misplaced = _given(args, ("format", *_FILE_ONLY)) if kind == "sql" else []
    if misplaced:
        raise UserError(
            f"{_flag(misplaced[0])} applies to a FILE; a --sql query reads its own files"
        )
    person, item, columns = _column_names(args)
    return Source(
        "file" if kind == "path" else "sql",
        args.path if kind == "path" else args.sql,
        person=person,
        item=item,
        format=args.format,
        drop_nulls=args.drop_nulls,
        header=not args.no_header,
        delimiter=args.delimiter,
        encoding=args.encoding or "utf-8",
        column_types=_column_types(args, columns),
        columns=columns,
    )


_FILE_ONLY = ("no_header", "columns", "delimiter", "encoding", "column_types")


def _column_type(text: str) -> tuple[str, str]:
    """An argparse type for ``--column-type COLUMN=TYPE``."""
    column, _, kind = text.rpartition("=")
    if not column or not kind.strip():
        raise argparse.ArgumentTypeError(f"expected COLUMN=TYPE, got {shown(text)}")
    return column, kind.strip()


def _column_types(
    args: argparse.Namespace, columns: tuple[str, ...]
) -> tuple[tuple[str, str], ...]:
    """The ``--column-type`` pairs, each column named once (and among ``--columns``)."""
    pairs = tuple(args.column_types or ())
    names = [column for column, _ in pairs]
    if len(set(names)) != len(names):
        raise UserError("--column-type names a column twice")
    for column in names:
        if columns and column not in columns:
            raise UserError(f"--column-type {column!r} is not among --columns {args.columns!r}")
    return pairs


def _column_names(args: argparse.Namespace) -> tuple[str, str, tuple[str, ...]]:
    """The person and item columns and the ``--columns`` names (empty without them)."""
    person = "person" if args.person is None else args.person
    item = "item" if args.item is None else args.item
    group = getattr(args, "group", None)
    check_distinct_columns({"--person": person, "--item": item, "--group": group})
    if args.columns is None:
        return person, item, ()
    if not args.no_header:
        raise UserError("--columns names the columns of a headerless FILE; add --no-header")
    columns = tuple(name.strip() for name in args.columns.split(","))
    if "" in columns or len(set(columns)) != len(columns):
        raise UserError(f"--columns {args.columns!r}: give distinct, non-empty names")
    for flag, name in (("--person", person), ("--item", item), ("--group", group)):
        if name is not None and name not in columns:
            raise UserError(f"{flag} {name!r} is not among --columns {args.columns!r}")
    return person, item, columns


def check_distinct_columns(columns: dict[str, str | None]) -> None:
    """Refuse an empty column name and one column in two roles (``None``: option not given).

    Examples
    --------
    >>> check_distinct_columns({"--person": "user", "--item": "user"})
    Traceback (most recent call last):
    ...
    dpcount.cli._errors.UserError: --person and --item name the same column 'user'; ...
    """
    seen: dict[str, str] = {}
    for flag, name in columns.items():
        if name is None:
            continue
        if not name:
            raise UserError(f"{flag} is empty; give the name of a column")
        if name in seen:
            raise UserError(
                f"{seen[name]} and {flag} name the same column {name!r}; each role needs its "
                "own column"
            )
        seen[name] = flag


def load_graph(source: Source, *, show: bool) -> PersonItemGraph:
    """Read or build the graph of ``source``, with a progress indicator when ``show``."""
    if source.kind == "dataset":
        from dpcount import datasets

        with progress(f"building {source.value}", enabled=show):
            return datasets.load(
                source.value,
                scale_factor=source.scale_factor,
                seed=source.data_seed,
                cache_dir=source.cache_dir,
            )
    from dpcount.io import read_pairs

    with progress(f"reading {source.describe()}", enabled=show):
        return read_pairs(**read_options(source))


def read_options(source: Source) -> dict[str, Any]:
    """The reader's keyword arguments for a FILE or --sql ``source`` (``read_pairs`` and
    ``read_triples`` take the same ones)."""
    return {
        "source": source.value if source.kind == "file" else None,
        "person": source.reader_column(source.person),
        "item": source.reader_column(source.item),
        "sql": source.value if source.kind == "sql" else None,
        "format": source.format,
        "drop_nulls": source.drop_nulls,
        "header": source.header,
        "delimiter": source.delimiter,
        "encoding": source.encoding,
        "column_types": {source.reader_column(c): t for c, t in source.column_types} or None,
    }


def show_progress(args: argparse.Namespace) -> bool:
    """Whether progress is drawn: as ``--progress``/``--no-progress`` say, else on a terminal
    without ``--json``."""
    asked: bool | None = getattr(args, "progress", None)
    if asked is not None:
        return asked
    return stderr_is_terminal() and not getattr(args, "json", False)


# --------------------------------------------------------------------------------------------
# Output
# --------------------------------------------------------------------------------------------


def _json_default(value: Any) -> Any:
    if isinstance(value, np.generic):
        return value.item()
    if isinstance(value, np.ndarray):
        return value.tolist()
    return str(value)


def json_text(doc: Any) -> str:
    """``doc`` as indented JSON; NumPy scalars become numbers, other objects strings."""
    return json.dumps(doc, indent=2, ensure_ascii=False, default=_json_default)


def loss_json(loss: Any) -> dict[str, Any]:
    """A :class:`~mechanisms.accounting.PrivacyLoss` as JSON (ε = ∞ becomes ``null``)."""
    return {
        "epsilon": loss.epsilon if math.isfinite(loss.epsilon) else None,
        "delta": loss.delta,
        "private": loss.is_private,
        "description": loss.description,
    }


def note(command: str, message: str) -> None:
    """One ``dpcount COMMAND: note: ...`` line on stderr (never inside a progress line)."""
    say(f"dpcount {command}: note: {message}")


def wrap(text: str, width: int = 79) -> str:
    """Wrap every line of ``text`` at ``width`` characters, never inside a word or a path.

    Examples
    --------
    >>> print(wrap("so ε = 1 was spent", width=8))
    so
    ε = 1
    was
    spent
    """
    fill = textwrap.TextWrapper(width, break_long_words=False, break_on_hyphens=False).fill
    glue = "\x00=\x00"  # keeps "ε = 1" and "ℓ = 4" on one line
    lines = (fill(line.replace(" = ", glue)) if line else "" for line in text.splitlines())
    return "\n".join(lines).replace(glue, " = ")
