"""Every notebook in ``notebooks/`` runs top to bottom without an error (at small sizes).

Each notebook is executed with nbclient in a fresh ``python3`` kernel, with
``DPCOUNT_NOTEBOOK_SMALL=1`` (the notebooks then pick small data and few repetitions) and a
temporary working directory, so nothing is written into the repository.  A new notebook is
picked up automatically.
"""

from __future__ import annotations

import importlib
import os
import sys
from pathlib import Path

import pytest

nbformat = pytest.importorskip("nbformat")
nbclient = pytest.importorskip("nbclient")
pytest.importorskip("ipykernel")
pytest.importorskip("matplotlib")

NOTEBOOK_DIR = Path(__file__).resolve().parents[1] / "notebooks"
NOTEBOOKS = sorted(NOTEBOOK_DIR.glob("*.ipynb"))
CELL_TIMEOUT = 600  # seconds for one cell; the whole small run of a notebook takes seconds


def _package_roots() -> list[str]:
    """Folders from which this test session imports dpcount, matching and mechanisms."""
    roots: list[str] = []
    for name in ("dpcount", "matching", "mechanisms"):
        module = importlib.import_module(name)
        root = str(Path(next(iter(module.__path__))).resolve().parent)
        if root not in roots:
            roots.append(root)
    return roots


def test_notebooks_found() -> None:
    assert NOTEBOOKS, f"no notebooks in {NOTEBOOK_DIR}"


@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: p.stem)
def test_notebook_runs(path: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("DPCOUNT_NOTEBOOK_SMALL", "1")
    monkeypatch.setenv("MPLBACKEND", "Agg")
    # The kernel must import the same packages as this session (not a stale installed copy).
    path_entries = [*_package_roots(), os.environ.get("PYTHONPATH", "")]
    monkeypatch.setenv("PYTHONPATH", os.pathsep.join(p for p in path_entries if p))
    before = sorted(NOTEBOOK_DIR.iterdir())

    notebook = nbformat.read(path, as_version=4)
    client = nbclient.NotebookClient(
        notebook,
        timeout=CELL_TIMEOUT,
        kernel_name="python3",
        resources={"metadata": {"path": str(tmp_path)}},
    )
    client.execute()  # raises CellExecutionError (with the cell and traceback) on any error

    assert sorted(NOTEBOOK_DIR.iterdir()) == before, "the notebook wrote into notebooks/"


def test_kernel_is_this_interpreter(tmp_path: Path) -> None:
    """``python3`` resolves to the interpreter running the tests (ipykernel's own kernelspec)."""
    notebook = nbformat.v4.new_notebook(
        cells=[nbformat.v4.new_code_cell("import sys; print(sys.executable)")]
    )
    nbclient.NotebookClient(
        notebook, timeout=60, kernel_name="python3", resources={"metadata": {"path": str(tmp_path)}}
    ).execute()
    printed = notebook.cells[0].outputs[0]["text"].strip()
    assert Path(printed) == Path(sys.executable)
