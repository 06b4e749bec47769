"""Sphinx configuration of the dpcount documentation (build: ``python -m sphinx -W docs out``)."""

from __future__ import annotations

import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(Path(__file__).resolve().parent / "_ext"))

project = "dpcount"
author = "The dpcount developers"
copyright = "The dpcount developers, Apache-2.0"
release = "0.1.0"

extensions = [
    "sphinx.ext.autodoc",
    "sphinx.ext.autosummary",
    "sphinx.ext.napoleon",
    "sphinx.ext.mathjax",
    "myst_nb",
    "argparse_cli",
]

# Notebooks are rendered with their committed outputs; the docs build never runs them.
nb_execution_mode = "off"
myst_enable_extensions = ["dollarmath", "amsmath"]
myst_heading_anchors = 3
source_suffix = {".rst": "restructuredtext", ".md": "myst-nb", ".ipynb": "myst-nb"}

# No network during the build: intersphinx is deliberately not enabled.
autodoc_default_options = {"members": True, "undoc-members": False, "show-inheritance": False}
autodoc_typehints = "description"
autodoc_member_order = "bysource"
napoleon_numpy_docstring = True
napoleon_google_docstring = False
napoleon_use_rtype = False

exclude_patterns = ["_build", "notebooks/README.md", "**/.ipynb_checkpoints"]
html_theme = "furo"
html_title = "dpcount"
suppress_warnings = ["myst.header", "ref.python"]
napoleon_use_ivar = True

# Docstrings write set sizes as |X| in plain text; reStructuredText would read those as
# substitutions, so the bars of the known ones are escaped before autodoc parses them.
_BARS = ["Y", "𝒱", "Δq", "log θᵢ", "W"]


def _escape_bars(app, what, name, obj, options, lines):
    for k, line in enumerate(lines):
        for b in _BARS:
            line = line.replace(f"|{b}|", f"\\|{b}\\|")
        lines[k] = line


def setup(app):
    app.connect("autodoc-process-docstring", _escape_bars)
