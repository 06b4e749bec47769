"""Ctrl-C, SIGTERM and SIGHUP stop a command through its normal clean-up, in one line.

Python's default for SIGTERM and SIGHUP is to die at once, skipping ``finally`` blocks and
``atexit`` hooks, so temporary files and DuckDB's spill folders stayed behind.  Within
:func:`stop_signals` those signals raise :class:`Terminated` (a :class:`KeyboardInterrupt`, so
code that stops cleanly on Ctrl-C stops cleanly on them too), and Ctrl-C raises it as well.
The signal is also recorded on the :class:`Signals` the block receives: DuckDB turns an
interrupt inside a query into ``RuntimeError("Query interrupted")``, and the command line must
still report the signal, not that error.

Only handlers left at Python's defaults are taken over: a SIGHUP ignored by ``nohup`` stays
ignored, and a handler installed by a program that embeds the command line is kept.  A signal
that arrives in a short critical section is delivered again a moment later: while a module is
imported (an exception inside a compiled module's initialisation, DuckDB's for one, aborts the
interpreter) and while :mod:`tempfile` or :mod:`shutil` make or remove a temporary folder (an
exception between ``mkdtemp`` and the registration of its clean-up leaves the folder behind).

Examples
--------
>>> import os, signal
>>> try:
...     with stop_signals() as signals:
...         os.kill(os.getpid(), signal.SIGTERM)
...         signal.sigtimedwait([], 0)  # let the handler run
... except Terminated as exc:
...     print(exc.name, exc.signum == signals.received == signal.SIGTERM)
SIGTERM True
"""

from __future__ import annotations

import os
import shutil
import signal
import tempfile
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from types import FrameType
from typing import Any

__all__ = ["Signals", "Terminated", "stop_signals"]

#: Each signal with the handler it must still have for the command line to take it over.
_DEFAULTS: dict[int, Any] = {signal.SIGINT: signal.default_int_handler} | {
    getattr(signal, name): signal.SIG_DFL for name in ("SIGTERM", "SIGHUP") if hasattr(signal, name)
}

#: Seconds before a signal that arrived during an import is delivered again.
_RETRY = 0.05


class Terminated(KeyboardInterrupt):
    """The command was asked to stop by a signal (Ctrl-C's SIGINT, SIGTERM or SIGHUP)."""

    def __init__(self, signum: int):
        super().__init__(signum)
        self.signum = signum
        self.name = signal.Signals(signum).name


@dataclass
class Signals:
    """The first stop signal received within :func:`stop_signals` (``None`` if none)."""

    received: int | None = None


@contextmanager
def stop_signals() -> Iterator[Signals]:
    """Within the block, Ctrl-C, SIGTERM and SIGHUP (at their defaults) raise
    :class:`Terminated` and are recorded on the yielded :class:`Signals`."""
    signals = Signals()
    if threading.current_thread() is not threading.main_thread():  # handlers live there only
        yield signals
        return

    def stop(signum: int, frame: FrameType | None) -> None:
        if signals.received is None:
            signals.received = signum
        if _critical(frame):
            retry = threading.Timer(_RETRY, os.kill, (os.getpid(), signum))
            retry.daemon = True
            retry.start()
            return
        raise Terminated(signum)

    replaced = {}
    for signum, default in _DEFAULTS.items():
        if signal.getsignal(signum) is default:
            replaced[signum] = signal.signal(signum, stop)
    try:
        yield signals
    finally:
        for signum, previous in replaced.items():
            signal.signal(signum, previous)


#: Files whose code must not be interrupted halfway (see the module docstring).
_CRITICAL_FILES = frozenset(
    os.path.normcase(os.path.abspath(module.__file__))
    for module in (tempfile, shutil)
    if module.__file__ is not None
)


def _critical(frame: FrameType | None) -> bool:
    """Whether ``frame`` (or a caller) runs in the import machinery, tempfile or shutil."""
    while frame is not None:
        name = frame.f_code.co_filename
        if name.startswith("<frozen importlib") or os.path.normcase(name) in _CRITICAL_FILES:
            return True
        frame = frame.f_back
    return False
