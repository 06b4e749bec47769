"""What a new user waits for: ``dpcount --help``, the imports and the first call.

Each command runs in a fresh interpreter, as after ``pip install``: the first call with an
empty numba cache (``NUMBA_CACHE_DIR`` pointing at a new temporary directory), then again with
the cache that call filled.  The reference measured in the same run is the interpreter with
NumPy alone (``python -c "import numpy"``), which every command pays; each time is also given
as a multiple of it.  Times are the best of ``--repeat`` rounds, each round running every
command once, so that load from elsewhere falls on all of them alike (wall clock); peak RSS
of the command's process from ``/usr/bin/time``; the 1-minute load average when it started.

The large rows count a 7.1M-pair Parquet file (``dpcount datasets reddit-like --output``,
written once to a temporary folder) with an empty cache three ways – as a user runs it (the
counting kernel compiled in a background process while the file is read when the load average
leaves a core idle, :mod:`dpcount.common.precompile`), with ``DPCOUNT_PRECOMPILE=1`` (that
process whatever the load) and with ``DPCOUNT_PRECOMPILE=0`` (all compiling in the command's
process) – and with a filled cache; each empty-cache call is also given as a multiple of the
filled-cache call.

Targets (issue 12): the first ``dpcount count --dataset fashion-like --epsilon 1`` ≤ 3 s and
``dpcount --help`` ≤ 0.3 s; (issue 27) the first count of the 7.1M-pair file ≤ 2× the
filled-cache call.

Run ``python -m benchmarks.first_call`` (``--smoke`` for a quick run, ``--out DIR``).
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import tempfile
import time
from collections.abc import Mapping, Sequence
from contextlib import ExitStack
from dataclasses import dataclass, field
from pathlib import Path

from benchmarks._common import machine, markdown_table, write_result

ROOT = Path(__file__).resolve().parents[1]
PYTHON = sys.executable
TARGETS = {"dpcount --help": 0.3, "dpcount count --dataset fashion-like (empty cache)": 3.0}
#: The file of the large rows (written by ``dpcount datasets``) and its size in pairs.
LARGE_FILE = "reddit-like-7.1M.parquet"
LARGE = "dpcount count FILE, 7.1M pairs"
#: Largest multiple of the filled-cache call for the first call on the large file (issue 27).
LARGE_TARGET_RATIO = 2.0


@dataclass(frozen=True)
class Command:
    """One measured command line; ``cache`` is "empty", "filled" or "" (not relevant);
    ``FILE`` in ``argv`` stands for the large file; ``env`` is added to the environment."""

    name: str
    argv: tuple[str, ...]
    cache: str = ""
    env: Mapping[str, str] = field(default_factory=dict)


def commands(smoke: bool) -> list[Command]:
    """The commands of one run, the NumPy reference first."""
    count = ("-m", "dpcount", "count", "--dataset", "fashion-like", "--epsilon", "1")
    union = ("-m", "dpcount", "union", "--dataset", "fashion-like")
    large = ("-m", "dpcount", "count", "--dataset", "reddit-like", "--scale-factor", "0.1")
    large_union = ("-m", "dpcount", "union", "--dataset", "reddit-like", "--scale-factor", "0.1")
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
    if not smoke:  # 710k and 7.1M pairs: above the interpreted-kernel threshold: numba compiles
        file = ("-m", "dpcount", "count", "FILE", "--epsilon", "1")
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
            Command(
                "dpcount union --dataset reddit-like --scale-factor 0.1 (empty cache)",
                large_union,
                "empty",
            ),
            Command(
                "dpcount union --dataset reddit-like --scale-factor 0.1 (filled cache)",
                large_union,
                "filled",
            ),
            Command(f"{LARGE} (empty cache)", file, "empty"),
            Command(
                f"{LARGE} (empty cache, DPCOUNT_PRECOMPILE=1)",
                file,
                "empty",
                {"DPCOUNT_PRECOMPILE": "1"},
            ),
            Command(
                f"{LARGE} (empty cache, DPCOUNT_PRECOMPILE=0)",
                file,
                "empty",
                {"DPCOUNT_PRECOMPILE": "0"},
            ),
            Command(f"{LARGE} (filled cache)", file, "filled"),
        ]
    return out


def write_large_file(folder: Path) -> Path:
    """The 7.1M-pair file of the large rows (reddit-like at scale 1, Parquet)."""
    path = folder / LARGE_FILE
    argv = ("-m", "dpcount", "datasets", "reddit-like", "--output", str(path))
    run(argv, None)
    return path


def run(
    argv: Sequence[str], cache_dir: str | None, extra: Mapping[str, str] | None = None
) -> tuple[float, float]:
    """Wall seconds and peak RSS (MB) of ``python ARGV`` in a fresh process."""
    env = {**os.environ, "PYTHONPATH": str(ROOT), **(extra or {})}
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


@dataclass
class Measured:
    """The best run of a command so far: wall seconds, peak RSS (MB), load average then."""

    wall: float = float("inf")
    rss: float = 0.0
    load: float = 0.0


def measure_all(
    commands: Sequence[Command], repeat: int, large_file: Path | None
) -> list[Measured]:
    """Best run of each command over ``repeat`` rounds of all of them (a new empty cache for
    every empty-cache run; a filled cache per command, filled once before the first round)."""
    best = [Measured() for _ in commands]
    with ExitStack() as stack:
        filled = {}
        for i, command in enumerate(commands):
            if command.cache == "filled":
                filled[i] = stack.enter_context(tempfile.TemporaryDirectory(prefix="dpcount-nb-"))
                run(_argv(command, large_file), filled[i], command.env)  # fill it once
        for _ in range(repeat):
            for i, command in enumerate(commands):
                load = os.getloadavg()[0]
                with tempfile.TemporaryDirectory(prefix="dpcount-numba-") as empty:
                    cache = empty if command.cache == "empty" else filled.get(i)
                    wall, rss = run(_argv(command, large_file), cache, command.env)
                if wall < best[i].wall:
                    best[i] = Measured(wall, rss, load)
    return best


def _argv(command: Command, large_file: Path | None) -> tuple[str, ...]:
    return tuple(str(large_file) if a == "FILE" else a for a in command.argv)


def verdict(command: Command, wall: float, warm: float | None) -> str:
    """The target column: met or MISSED, with the multiple of the filled-cache call."""
    target = TARGETS.get(command.name)
    if target is not None:
        return f"≤ {target} s: {'met' if wall <= target else 'MISSED'}"
    if command.name.startswith(LARGE) and command.cache == "empty" and warm is not None:
        ratio = wall / warm
        met = "met" if ratio <= LARGE_TARGET_RATIO else "MISSED"
        return f"{ratio:.2f}× filled cache (≤ {LARGE_TARGET_RATIO:g}×: {met})"
    return ""


def report(rows: list[list[object]], repeat: int) -> str:
    """The Markdown page."""
    header = ["command", "best wall s", "× reference", "peak RSS MB", "load", "target"]
    return "\n".join(
        [
            "# First call, `--help` and imports",
            "",
            f"Machine: {machine()}. Each command in a fresh interpreter, best of {repeat} "
            "rounds of all commands (wall clock; other load on the machine inflates it; *load*: "
            "the 1-minute load average when the best run started). *Empty cache*: "
            "`NUMBA_CACHE_DIR` is a new directory, as on a fresh install; *filled cache*: the "
            "one the previous call wrote. Reference: `python -c 'import numpy'` in the same "
            f"run. *FILE*: reddit-like at scale 1 (7,112,226 pairs) written by `dpcount "
            f"datasets reddit-like --output {LARGE_FILE}` (Parquet). Peak RSS is the "
            "command's own process; the background compiler of the first call is a second "
            "process (about 260 MB). That process starts by default only when the load average "
            "is at most the number of cores − 1, so under load the first two FILE rows run the "
            "same way.",
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
    measured = commands(args.smoke)
    with tempfile.TemporaryDirectory(prefix="dpcount-first-call-") as folder:
        large_file = None if args.smoke else write_large_file(Path(folder))
        best = measure_all(measured, repeat, large_file)
    reference = best[0].wall
    # the filled-cache call the empty-cache calls on the large file are compared with
    warm = next(
        (
            b.wall
            for c, b in zip(measured, best, strict=True)
            if c.name == f"{LARGE} (filled cache)"
        ),
        None,
    )
    rows: list[list[object]] = []
    for command, result in zip(measured, best, strict=True):
        said = verdict(command, result.wall, warm)
        rows.append(
            [command.name, result.wall, result.wall / reference, result.rss, result.load, said]
        )
        print(f"{command.name:<62} {result.wall:7.3f} s  {result.rss:6.0f} MB  {said}", flush=True)
    path = write_result("first_call.md", report(rows, repeat), args.out)
    print(f"wrote {path}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
