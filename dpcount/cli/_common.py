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
from dpcount.validation import check_beta, check_delta, check_epsilon, check_positive_int

from ._errors import UserError
from ._progress import progress, stderr_is_terminal

__all__ = [
    "SEED_HELP",
    "Source",
    "UserError",
    "add_source_arguments",
    "beta_type",
    "delta_type",
    "epsilon_type",
    "json_text",
    "load_graph",
    "loss_json",
    "note",
    "positive_int_type",
    "seed_type",
    "show_progress",
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
            raise argparse.ArgumentTypeError(f"expected {what}, got {text!r}") from None
        try:
            return check(value)
        except InvalidParameterError as exc:
            raise argparse.ArgumentTypeError(str(exc)) from None

    return parse


#: ε > 0 and finite.
epsilon_type = _checked(float, check_epsilon)
#: β ∈ (0, ½).
beta_type = _checked(float, check_beta)
#: δ ∈ (0, 1).
delta_type = _checked(float, check_delta)


def positive_int_type(name: str) -> Callable[[str], int]:
    """An argparse type for a whole number ≥ 1 called ``name`` in messages."""
    return _checked(int, lambda v: check_positive_int(v, name))


def _check_seed(value: int) -> int:
    if value < 0:
        raise InvalidParameterError(f"seed must be a non-negative integer, got {value}")
    return value


#: A seed: a whole number ≥ 0.
seed_type = _checked(int, _check_seed)


def _dataset_type(text: str) -> str:
    from dpcount import datasets

    if text not in datasets.names():
        raise argparse.ArgumentTypeError(
            f"unknown data set {text!r}; choose one of {', '.join(datasets.names())}"
        )
    return text


def _positive_float(text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a number, got {text!r}") from None
    if not (math.isfinite(value) and value > 0):
        raise argparse.ArgumentTypeError(f"scale factor must be a positive number, got {text!r}")
    return value


# --------------------------------------------------------------------------------------------
# The data source: FILE, --sql QUERY or --dataset NAME
# --------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Source:
    """Where the person–item pairs come from, as given on the command line."""

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
    group.add_argument(
        "--no-header",
        action="store_true",
        help="FILE (CSV/TSV) has no header line; its columns are column0, column1, ... or the "
        "names given with --columns",
    )
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
        "--scale-factor",
        "--scale",
        dest="scale_factor",
        type=_positive_float,
        metavar="S",
        help="with --dataset: fraction of persons (synthetic) or TPC-H scale factor (default: 1)",
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
    return "--" + name.replace("_", "-")


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
    person, item = _column_names(args)
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
    )


_FILE_ONLY = ("no_header", "columns", "delimiter", "encoding")


def _column_names(args: argparse.Namespace) -> tuple[str, str]:
    """The person and item columns to read: names from ``--columns`` become ``columnN``."""
    person, item = args.person or "person", args.item or "item"
    if args.columns is None:
        return person, item
    if not args.no_header:
        raise UserError("--columns names the columns of a headerless FILE; add --no-header")
    names = [name.strip() for name in args.columns.split(",")]
    if "" in names or len(set(names)) != len(names):
        raise UserError(f"--columns {args.columns!r}: give distinct, non-empty names")
    positions = {name: f"column{k}" for k, name in enumerate(names)}
    for flag, name in (("--person", person), ("--item", item)):
        if name not in positions:
            raise UserError(f"{flag} {name!r} is not among --columns {args.columns!r}")
    return positions[person], positions[item]


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
        "person": source.person,
        "item": source.item,
        "sql": source.value if source.kind == "sql" else None,
        "format": source.format,
        "drop_nulls": source.drop_nulls,
        "header": source.header,
        "delimiter": source.delimiter,
        "encoding": source.encoding,
    }


def show_progress(args: argparse.Namespace) -> bool:
    """Progress is drawn on a terminal only, and never with ``--json``."""
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
    """One ``dpcount COMMAND: note: ...`` line on stderr."""
    print(f"dpcount {command}: note: {message}", file=sys.stderr)


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
