"""Render the command-line parser of :mod:`dpcount.cli` as a page (``.. dpcount-cli::``)."""

from __future__ import annotations

import argparse

from docutils import nodes
from sphinx.application import Sphinx
from sphinx.util.docutils import SphinxDirective


def _subparsers(parser: argparse.ArgumentParser) -> dict[str, argparse.ArgumentParser]:
    for action in parser._actions:  # argparse keeps sub-commands in a private action
        if isinstance(action, argparse._SubParsersAction):
            return dict(action.choices)
    return {}


class CliDirective(SphinxDirective):
    """Insert ``dpcount --help`` and every sub-command's ``--help`` text."""

    def run(self) -> list[nodes.Node]:
        from dpcount.cli import build_parser

        parser = build_parser()
        parser.prog = "dpcount"
        out: list[nodes.Node] = [nodes.literal_block(text=parser.format_help())]
        for name, sub in _subparsers(parser).items():
            section = nodes.section(ids=[f"dpcount-{name}"])
            section += nodes.title(text=f"dpcount {name}")
            section += nodes.literal_block(text=sub.format_help())
            out.append(section)
        return out


def setup(app: Sphinx) -> dict[str, object]:
    app.add_directive("dpcount-cli", CliDirective)
    return {"parallel_read_safe": True, "parallel_write_safe": True}
