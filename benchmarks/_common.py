"""Helpers shared by the benchmark scripts: timing, machine description, Markdown tables."""

from __future__ import annotations

import argparse
import os
import platform
import sys
import time
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import Any

RESULTS = Path(__file__).resolve().parent / "results"


def machine() -> str:
    """One line describing where the numbers were measured."""
    return (
        f"{platform.machine()}, {os.cpu_count()} cores, Python {platform.python_version()}, "
        f"{platform.system()}"
    )


def best_time(fn: Callable[[], Any], repeat: int = 3) -> tuple[float, Any]:
    """Minimum wall time of ``repeat`` calls (seconds) and the last call's result."""
    best, result = float("inf"), None
    for _ in range(max(1, repeat)):
        start = time.perf_counter()
        result = fn()
        best = min(best, time.perf_counter() - start)
    return best, result


def best_times_alternating(
    fns: Mapping[str, Callable[[], Any]], repeat: int = 3
) -> dict[str, float]:
    """Minimum wall time (seconds) of each function over ``repeat`` rounds, each round calling
    every function once in turn, so that load from elsewhere falls on all of them alike."""
    best = dict.fromkeys(fns, float("inf"))
    for _ in range(max(1, repeat)):
        for name, fn in fns.items():
            start = time.perf_counter()
            fn()
            best[name] = min(best[name], time.perf_counter() - start)
    return best


def markdown_table(header: Sequence[str], rows: Sequence[Sequence[Any]]) -> str:
    """A GitHub Markdown table; floats are shown with 4 significant digits."""

    def cell(x: Any) -> str:
        if isinstance(x, float):
            return f"{x:.4g}"
        if isinstance(x, int):
            return f"{x:,}"
        return str(x)

    lines = ["| " + " | ".join(header) + " |", "|" + "---|" * len(header)]
    lines += ["| " + " | ".join(cell(x) for x in row) + " |" for row in rows]
    return "\n".join(lines)


def write_result(name: str, text: str, out_dir: Path | None = None) -> Path:
    """Write ``text`` to ``<out_dir or benchmarks/results>/<name>`` and return the path."""
    directory = out_dir if out_dir is not None else RESULTS
    directory.mkdir(parents=True, exist_ok=True)
    path = directory / name
    path.write_text(text)
    return path


def report_main(
    doc: str, name: str, build: Callable[[bool], str], argv: Sequence[str] | None = None
) -> int:
    """The command line of a benchmark that writes one report: ``--smoke`` (a tiny run),
    ``--out`` (folder, default ``benchmarks/results``), ``--quiet`` (do not print it).

    ``build(smoke)`` runs the benchmark and returns the report's text, written to ``name``.
    """
    parser = argparse.ArgumentParser(description=doc.splitlines()[0])
    parser.add_argument("--smoke", action="store_true", help="a tiny run")
    parser.add_argument("--out", type=Path, default=None, help="output folder")
    parser.add_argument("--quiet", action="store_true", help="do not print the report")
    args = parser.parse_args(argv)
    text = build(args.smoke)
    path = write_result(name, text, args.out)
    if not args.quiet:
        print(text)
        print(f"wrote {path}", file=sys.stderr)
    return 0
