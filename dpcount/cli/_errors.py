"""The command line's own error: a mistake on the command line, reported in one line."""

from __future__ import annotations

__all__ = ["UserError"]


class UserError(Exception):
    """A mistake on the command line, reported in one line with exit status 2."""
