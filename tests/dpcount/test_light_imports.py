"""``dpcount --help`` and the package imports stay light: no numba, no graph solvers.

Each check runs in a fresh interpreter and inspects its ``sys.modules`` afterwards.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
HEAVY = ("numba", "scipy.sparse.csgraph", "scipy.special")  # each is slow to import
#: Also kept out of a plain import: optional engines and conversions load on use.
OPTIONAL = ("duckdb", "pandas", "polars", "pyarrow", "pyspark", "networkx", "igraph")


def _modules_after(code: str) -> set[str]:
    body = textwrap.indent(code, " " * 8)
    script = (
        "import contextlib, io, json, runpy, sys\n"
        "with contextlib.redirect_stdout(io.StringIO()):\n"
        "    try:\n"
        f"{body}\n"
        "    except SystemExit as exc:\n"
        "        assert exc.code in (0, None), exc.code\n"
        "print(json.dumps(sorted(sys.modules)))\n"
    )
    result = subprocess.run(
        [sys.executable, "-c", script],
        cwd=ROOT,
        env={**os.environ, "PYTHONPATH": str(ROOT)},
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert result.returncode == 0, result.stderr[-2000:]
    return set(json.loads(result.stdout))


def _loaded(modules: set[str], names: tuple[str, ...]) -> list[str]:
    return [name for name in names if name in modules]


HELP_CALLS = {
    "python -m dpcount --help": (
        "sys.argv = ['dpcount', '--help']\nrunpy.run_module('dpcount', run_name='__main__')"
    ),
    "python -m dpcount.cli --help": (
        "sys.argv = ['dpcount', '--help']\nrunpy.run_module('dpcount.cli', run_name='__main__')"
    ),
    "console script dpcount.cli:main": "from dpcount.cli import main\nsys.exit(main(['--help']))",
    "dpcount count --help": "from dpcount.cli import main\nsys.exit(main(['count', '--help']))",
    "dpcount union --help": "from dpcount.cli import main\nsys.exit(main(['union', '--help']))",
    "dpcount curve --help": "from dpcount.cli import main\nsys.exit(main(['curve', '--help']))",
}


@pytest.mark.parametrize("call", sorted(HELP_CALLS))
def test_help_imports_neither_numba_nor_scipy_solvers(call: str) -> None:
    modules = _modules_after(HELP_CALLS[call])
    assert "dpcount.cli" in modules  # the check ran the command line
    assert _loaded(modules, HEAVY + OPTIONAL) == []


def test_importing_the_packages_is_light() -> None:
    modules = _modules_after("import dpcount, matching, mechanisms")
    assert _loaded(modules, HEAVY + OPTIONAL + ("scipy",)) == []


def test_a_first_count_on_a_small_dataset_compiles_nothing() -> None:
    modules = _modules_after(
        "from dpcount.cli import main\n"
        "sys.exit(main(['count', '--dataset', 'fashion-like', '--epsilon', '1', '--seed', '1']))"
    )
    assert "mechanisms.distinct_count" in modules
    assert _loaded(modules, HEAVY) == []
