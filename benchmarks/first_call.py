"""What a new user waits for: ``dpcount --help``, the imports and the first call.

Each command runs in a fresh interpreter, as after ``pip install``: the first call with an
empty numba cache (``NUMBA_CACHE_DIR`` pointing at a new temporary directory), then again with
the cache that call filled.  The reference measured in the same run is the interpreter with
NumPy alone (``python -c "import numpy"``), which every command pays; each time is also given
as a multiple of it.  Times are the best of ``--repeat`` runs (wall clock, so they include
other load on the machine); peak RSS from ``/usr/bin/time``.

Targets (issue 12): the first ``dpcount count --dataset fashion-like --epsilon 1`` ≤ 3 s and
``dpcount --help`` ≤ 0.3 s.

Run ``python -m benchmarks.first_call`` (``--smoke`` for a quick run, ``--out DIR``).
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import tempfile
import time
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from benchmarks._common import machine, markdown_table, write_result

ROOT = Path(__file__).resolve().parents[1]
PYTHON = sys.executable
TARGETS = {"dpcount --help": 0.3, "dpcount count --dataset fashion-like (empty cache)": 3.0}


@dataclass(frozen=True)
class Command:
    """One measured command line; ``cache`` is "empty", "filled" or "" (not relevant)."""

    name: str
    argv: tuple[str, ...]
    cache: str = ""


def commands(smoke: bool) -> list[Command]:
    """The commands of one run, the NumPy reference first."""
    count = ("-m", "dpcount", "count", "--dataset", "fashion-like", "--epsilon", "1")
    union = ("-m", "dpcount", "union", "--dataset", "fashion-like")
    large = ("-m", "dpcount", "count", "--dataset", "reddit-like", "--scale-factor", "0.1")
    out = [
        Command("python -c 'import numpy' (reference)", ("-c", "import numpy")),
        Command("dpcount --help", ("-m", "dpcount", "--help")),
        Command(
            "import dpcount, matching, mechanisms", ("-c", "import dpcount, matching, mechanisms")
        ),
        Command("dpcount count --dataset fashion-like (empty cache)", count, "empty"),
        Command("dpcount count --dataset fashion-like (filled cache)", count, "filled"),
        Command("dpcount union --dataset fashion-like (empty cache)", union, "empty"),
    ]
    if not smoke:  # 710k pairs: above the interpreted-kernel threshold, so numba compiles
        out += [
            Command(
                "dpcount count --dataset reddit-like --scale-factor 0.1 (empty cache)",
                large,
                "empty",
            ),
            Command(
                "dpcount count --dataset reddit-like --scale-factor 0.1 (filled cache)",
                large,
                "filled",
            ),
        ]
    return out


def run(argv: Sequence[str], cache_dir: str | None) -> tuple[float, float]:
    """Wall seconds and peak RSS (MB) of ``python ARGV`` in a fresh process."""
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    env.pop("NUMBA_CACHE_DIR", None)
    if cache_dir is not None:
        env["NUMBA_CACHE_DIR"] = cache_dir
    timed = ["/usr/bin/time", "-f", "%M", PYTHON, *argv]
    start = time.perf_counter()
    done = subprocess.run(timed, capture_output=True, text=True, env=env, cwd=ROOT)
    wall = time.perf_counter() - start
    if done.returncode != 0:
        raise RuntimeError(f"{' '.join(argv)} failed: {done.stderr.strip()[-500:]}")
    return wall, int(done.stderr.strip().splitlines()[-1]) / 1024


def measure(command: Command, repeat: int) -> tuple[float, float]:
    """Best wall time and its peak RSS over ``repeat`` runs (a new empty cache for each)."""
    best = (float("inf"), 0.0)
    with tempfile.TemporaryDirectory(prefix="dpcount-numba-") as filled:
        if command.cache == "filled":
            run(command.argv, filled)  # fill it once
        for _ in range(repeat):
            if command.cache == "empty":
                with tempfile.TemporaryDirectory(prefix="dpcount-numba-") as empty:
                    result = run(command.argv, empty)
            else:
                result = run(command.argv, filled if command.cache == "filled" else None)
            best = min(best, result)
    return best


def report(rows: list[list[object]], repeat: int) -> str:
    """The Markdown page."""
    header = ["command", "best wall s", "× reference", "peak RSS MB", "target"]
    return "\n".join(
        [
            "# First call, `--help` and imports",
            "",
            f"Machine: {machine()}. Each command in a fresh interpreter, best of {repeat} "
            "runs (wall clock; other load on the machine inflates it). *Empty cache*: "
            "`NUMBA_CACHE_DIR` is a new directory, as on a fresh install; *filled cache*: the "
            "one the previous call wrote. Reference: `python -c 'import numpy'` in the same "
            "run.",
            "",
            markdown_table(header, rows),
            "",
        ]
    )


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--smoke", action="store_true", help="one run each, small data only")
    parser.add_argument("--repeat", type=int, default=5, help="runs per command (best kept)")
    parser.add_argument("--out", type=Path, help="folder for first_call.md")
    args = parser.parse_args(argv)
    repeat = 1 if args.smoke else args.repeat
    rows: list[list[object]] = []
    reference = None
    for command in commands(args.smoke):
        wall, rss = measure(command, repeat)
        reference = reference or wall
        target = TARGETS.get(command.name)
        verdict = "" if target is None else f"≤ {target} s: {'met' if wall <= target else 'MISSED'}"
        rows.append([command.name, wall, wall / reference, rss, verdict])
        print(f"{command.name:<62} {wall:7.3f} s  {rss:6.0f} MB  {verdict}", flush=True)
    path = write_result("first_call.md", report(rows, repeat), args.out)
    print(f"wrote {path}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
