"""``dpcount count ... --group COLUMN``: a private lower bound per group (GROUP BY).

Hooked into ``dpcount count``: with ``--group`` the command reads (person, group, item) triples
and runs :func:`mechanisms.grouped_counts.grouped_distinct_count`, printing one row per
released group as a table, CSV (``--csv``) or JSON (``--json``).
"""

from __future__ import annotations

import argparse
from typing import Any

import numpy as np

import dpcount
from dpcount.graph import GroupedGraph
from mechanisms.grouped_counts import GroupedDistinctCountResult, grouped_distinct_count
from mechanisms.release import confidence_text, seeded_copy

from ._common import (
    Source,
    UserError,
    delta_type,
    positive_int_type,
    read_options,
    show_progress,
    source_from_args,
)
from ._errors import python_keyword
from ._formats import csv_text, emit, finish, formatted, output_target
from ._keys_file import MAX_BYTES, read_keys
from ._progress import progress

__all__ = ["add_grouped_arguments", "grouped_requested", "run_grouped"]

EPILOG = """\
GROUP BY (one bound per group):
  dpcount count sales.parquet --person customer --item product --group region --max-groups 2 \\
      --groups-file regions.txt --csv
  dpcount count posts.csv --person user --item word --group forum --max-groups 3 --delta 1e-6

Each person keeps at most K of their groups (a keyed hash, independent of other persons), so
each group's count runs at ε/K and the table is ε-DP.  Without --groups-file the group keys
themselves are chosen privately (weighted Gaussian set union, ε/2 of the budget, needs --delta).
"""


def add_grouped_arguments(parser: argparse.ArgumentParser) -> None:
    """The ``--group`` options of ``dpcount count`` (and their examples in its epilog)."""
    parser.epilog = f"{parser.epilog or ''}\n{EPILOG}"
    group = parser.add_argument_group("GROUP BY: one bound per group (with --group)")
    group.add_argument("--group", metavar="COLUMN", help="column of group keys")
    group.add_argument(
        "--max-groups",
        type=positive_int_type("max-groups"),
        metavar="K",
        help="groups each person may contribute to, K >= 1 (required with --group)",
    )
    groups_file = group.add_argument(
        "--groups-file",
        metavar="F",
        help="UTF-8 text file (or pipe) of the public group keys to release, one per line, at "
        f"most {MAX_BYTES >> 20} MiB; without it the keys are chosen privately (needs --delta)",
    )
    python_keyword(groups_file, "groups")
    group.add_argument(
        "--delta",
        type=delta_type,
        metavar="D",
        help="δ of the private choice of group keys (without --groups-file only)",
    )
    group.add_argument(
        "--family-wise",
        action="store_true",
        help="split β over the groups so that all bounds hold together with confidence 1 − β",
    )


_GROUP_ONLY = ("max_groups", "groups_file", "delta", "family_wise")


def grouped_requested(args: argparse.Namespace) -> bool:
    """Whether ``--group`` was given; its companion options without it are an error."""
    if args.group is not None:
        return True
    for name in _GROUP_ONLY:
        if getattr(args, name) not in (None, False):
            raise UserError(f"--{name.replace('_', '-')} applies with --group COLUMN only")
    return False


def run_grouped(args: argparse.Namespace) -> int:
    """Read triples, release the grouped bounds and print them."""
    _check_options(args)
    source = source_from_args(args)
    inputs = [*source.inputs(), *([args.groups_file] if args.groups_file else [])]
    target = output_target(args, inputs)
    keys = read_keys(args.groups_file, "--groups-file") if args.groups_file is not None else None
    show = show_progress(args)
    graph = _load(source, source.reader_column(args.group), show)
    with progress("computing the private lower bounds", enabled=show):
        result = grouped_distinct_count(
            graph,
            args.epsilon,
            max_groups=args.max_groups,
            groups=None if keys is None else _typed_keys(keys, graph.group_labels),
            delta=args.delta,
            beta=args.beta,
            ell_max=args.ell_max,
            ell=args.ell,
            counting=args.counting,
            family_wise=args.family_wise,
            rng=args.seed,
        )
    if args.seed is not None:  # whoever knows the seed can remove the noise
        result = seeded_copy(result)
    where = source.to_json() | {"group": args.group}
    text = formatted(
        args,
        text=lambda: table_text(result, source) + "\n",
        json_doc=lambda: grouped_json(result, where, args.seed),
        table=lambda: table_csv(result),
    )
    emit(text, target)
    finish("count", target, args.seed)
    return 0


def _check_options(args: argparse.Namespace) -> None:
    if args.max_groups is None:
        raise UserError("--group needs --max-groups K (groups each person may contribute to)")
    if args.groups_file is None and args.delta is None:
        raise UserError(
            "without --groups-file the group keys are chosen privately: give --delta D "
            "(e.g. 1e-6), or the public keys with --groups-file F"
        )
    if args.groups_file is not None and args.delta is not None:
        raise UserError(
            "--delta applies to the private choice of group keys; the keys of --groups-file "
            "are public: drop --delta"
        )
    if args.dataset is not None:
        raise UserError("--group reads a FILE or --sql; the built-in data sets have no groups")
    if getattr(args, "engine", "local") != "local":
        raise UserError("--group runs on the local engine only")


def _load(source: Source, group: str, show: bool) -> GroupedGraph:
    from dpcount.io import read_triples

    with progress(f"reading {source.describe()}", enabled=show):
        return read_triples(**read_options(source), group=group)


def _typed_keys(keys: list[str], labels: np.ndarray) -> list[Any]:
    """The keys as values of the group column's type (integers, numbers, dates or text)."""
    kind = labels.dtype.kind
    convert: Any = {"i": int, "u": int, "f": float, "M": np.datetime64}.get(kind, str)
    out = []
    for line, key in enumerate(keys, 1):
        try:
            out.append(convert(key))
        except ValueError:
            raise UserError(
                f"--groups-file line {line}: {key!r} is not a {labels.dtype} group key"
            ) from None
    return out


def table_csv(result: GroupedDistinctCountResult) -> str:
    """``group,lower_bound,estimate,ell,scale`` rows: ``lower_bound`` is what the table shows
    (⌈ν̂⌉, at least 0), ``estimate`` the released ν̂ (negative on groups with little data)."""
    rows = ([r.group, r.lower_bound, r.estimate, r.ell, r.scale] for r in result.rows)
    return csv_text(["group", "lower_bound", "estimate", "ell", "scale"], rows)


def grouped_json(
    result: GroupedDistinctCountResult, source: dict[str, Any], seed: int | None
) -> dict[str, Any]:
    """The release as a JSON object with the fields of ``count --json``.

    ``result``, ``is_private``, ``secure``, the result's fields (:meth:`to_dict`, which
    :meth:`~GroupedDistinctCountResult.from_dict` reads back), ``confidence`` (of each group's
    bound, 1 − ``group_beta``; with ``--family-wise`` all hold together with 1 − β),
    ``source``, ``seed`` and
    ``dpcount_version``; each row adds ``lower_bound``, the bound the table shows.  A seeded
    result (``--seed``) says ``is_private: false`` and ``seeded: true``.
    """
    doc = result.to_dict()
    rows = [
        row | {"lower_bound": r.lower_bound}
        for row, r in zip(doc.pop("rows"), result.rows, strict=True)
    ]
    return {
        **doc,
        "confidence": 1 - result.group_beta,
        "rows": rows,
        "source": source,
        "seed": seed,
        "dpcount_version": dpcount.__version__,
    }


def table_text(result: GroupedDistinctCountResult, source: Source) -> str:
    """An aligned table with a header line on the budget."""
    head = (
        f"{source.describe()}: private lower bounds on distinct items per group "
        f"(ε = {result.epsilon:g}"
        + (f", δ = {result.delta:g}" if result.delta else "")
        + f", k = {result.max_groups}, confidence {confidence_text(result.group_beta)} per group"
        + f", keys: {result.selection})"
    )
    rows = [["group", "at least", "ℓ", "noise scale"]] + [
        [str(r.group), f"{r.lower_bound:,}", str(r.ell), f"{r.scale:g}"] for r in result.rows
    ]
    widths = [max(len(row[c]) for row in rows) for c in range(4)]
    lines = [
        "  ".join(
            cell.ljust(w) if c == 0 else cell.rjust(w)
            for c, (cell, w) in enumerate(zip(row, widths, strict=True))
        )
        for row in rows
    ]
    if not result.rows:
        lines.append("(no group key passed the private selection)")
    return "\n".join([head, *lines])
