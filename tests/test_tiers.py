"""The fast tier (``pytest -m "not slow"``) leaves out the benchmark runs and notebooks."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
LONG = ["tests/benchmarks", "tests/test_notebooks.py"]


def collected(marker: str) -> int:
    """How many tests of :data:`LONG` pytest collects under ``-m marker``."""
    out = subprocess.run(
        [
            sys.executable,
            "-m",
            "pytest",
            "--collect-only",
            "-q",
            "-p",
            "no:randomly",
            "-m",
            marker,
            *LONG,
        ],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert out.returncode in (0, 5), out.stdout + out.stderr  # 5: nothing collected
    return sum(1 for line in out.stdout.splitlines() if "::" in line)


def test_the_fast_tier_leaves_out_benchmarks_and_notebooks() -> None:
    assert collected("not slow") == 0
    assert collected("slow") > 10  # power: the same files are collected when asked for
