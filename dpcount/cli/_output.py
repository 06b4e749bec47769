"""ASCII fallback for terminals that cannot encode the CLI's text ("ε", "≤", "ℓ", ...).

The command line writes Greek letters and mathematical signs.  On a stream whose encoding lacks
them (``PYTHONIOENCODING=ascii``, a Latin-1 console, ``LANG=C`` on old systems) Python would
end the run with a ``UnicodeEncodeError`` traceback.  :func:`ascii_fallback` installs, for the
duration of one command, an encoding error handler on stdout and stderr that spells such
characters out: "ε" → "eps", "≤" → "<=", "β" → "beta", "δ" → "delta", "ℓ" → "ell".  Streams that
can encode everything (UTF-8) are left exactly as they are.

Examples
--------
>>> "ε = 1, ℓ ≤ 5".encode("ascii", errors=ERROR_HANDLER)
b'eps = 1, ell <= 5'
>>> to_ascii("β − δ")
'beta - delta'
"""

from __future__ import annotations

import codecs
import contextlib
import io
import sys
import unicodedata
from collections.abc import Iterator

__all__ = ["ERROR_HANDLER", "ascii_fallback", "to_ascii"]

#: Name of the registered codec error handler.
ERROR_HANDLER = "dpcount-ascii"

_SPELLED = {
    "ε": "eps",
    "β": "beta",
    "δ": "delta",
    "ℓ": "ell",
    "σ": "sigma",
    "ρ": "rho",
    "τ": "tau",
    "ν": "nu",
    "μ": "mu",
    "Δ": "Delta",
    "Φ": "Phi",
    "≤": "<=",
    "≥": ">=",
    "≠": "!=",
    "≈": "~",
    "−": "-",
    "–": "-",
    "—": "--",
    "·": "*",
    "×": "x",
    "…": "...",
    "→": "->",
    "←": "<-",
    "∞": "inf",
    "√": "sqrt",
    "∈": "in",
    "‖": "||",
    "²": "^2",
    "³": "^3",
    "̂": "^",  # combining circumflex (ν̂, ℓ̂)
    "‘": "'",
    "’": "'",
    "“": '"',
    "”": '"',
    "•": "*",
    "°": " deg",
    "\u00a0": " ",
}


def to_ascii(text: str) -> str:
    """``text`` with every non-ASCII character spelled out (or its accent dropped, or '?')."""
    return "".join(ch if ch.isascii() else _spell(ch) for ch in text)


def _spell(ch: str) -> str:
    if ch in _SPELLED:
        return _SPELLED[ch]
    stripped = unicodedata.normalize("NFKD", ch).encode("ascii", "ignore").decode("ascii")
    return stripped or "?"


def _handler(exc: UnicodeError) -> tuple[str, int]:
    if not isinstance(exc, UnicodeEncodeError):
        raise exc
    return to_ascii(exc.object[exc.start : exc.end]), exc.end


codecs.register_error(ERROR_HANDLER, _handler)


def _needs_fallback(stream: object) -> bool:
    encoding = getattr(stream, "encoding", None)
    if not encoding or not isinstance(stream, io.TextIOWrapper):
        return False
    try:
        "εβδℓ≤−·".encode(encoding)
    except (UnicodeEncodeError, LookupError):
        return True
    return False


@contextlib.contextmanager
def ascii_fallback() -> Iterator[None]:
    """Within the block, stdout and stderr spell out what their encoding cannot represent."""
    changed: list[tuple[io.TextIOWrapper, str | None]] = []
    for stream in (sys.stdout, sys.stderr):
        if _needs_fallback(stream):
            assert isinstance(stream, io.TextIOWrapper)
            changed.append((stream, stream.errors))
            stream.reconfigure(errors=ERROR_HANDLER)
    try:
        yield
    finally:
        for stream, errors in changed:
            with contextlib.suppress(ValueError):  # closed meanwhile
                stream.reconfigure(errors=errors)
