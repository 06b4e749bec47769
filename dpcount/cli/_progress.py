"""A tiny progress indicator on stderr: a spinner and the elapsed seconds of a slow step.

It draws only on a terminal, and only once a step has run longer than ``delay`` seconds, so fast
commands and pipes see nothing.  The line is erased when the step ends.

Examples
--------
>>> import io, time
>>> with progress("reading data.csv", enabled=False):
...     pass
>>> class Terminal(io.StringIO):
...     def isatty(self) -> bool:
...         return True
>>> screen = Terminal()
>>> with progress("reading", enabled=True, stream=screen, delay=0.0, interval=0.01):
...     while not screen.getvalue():  # a slow step: wait for the first frame
...         time.sleep(0.01)
>>> "reading" in screen.getvalue() and screen.getvalue().endswith("\\r\\x1b[K")
True
"""

from __future__ import annotations

import shutil
import sys
import threading
import time
from contextlib import AbstractContextManager, nullcontext
from types import TracebackType
from typing import TextIO

__all__ = ["Progress", "progress", "stderr_is_terminal"]

_FRAMES = "|/-\\"
_ERASE = "\r\x1b[K"  # carriage return, then clear to the end of the line


def stderr_is_terminal() -> bool:
    """Whether stderr is an interactive terminal (``False`` when it is missing or redirected)."""
    stream = sys.stderr
    try:
        return stream is not None and stream.isatty()
    except (AttributeError, ValueError):  # a replaced or closed stream
        return False


class Progress(AbstractContextManager["Progress"]):
    """Draw ``label``, a spinner and the elapsed time on ``stream`` while a step runs.

    Parameters
    ----------
    label
        What is happening, e.g. ``"reading data.csv"``.
    stream
        A terminal stream; nothing is checked here, see :func:`progress`.
    delay
        Seconds of silence before the first frame, so that fast steps draw nothing.
    interval
        Seconds between frames.
    """

    def __init__(self, label: str, stream: TextIO, *, delay: float = 2.0, interval: float = 0.2):
        self.label = label
        self.stream = stream
        self.delay = delay
        self.interval = interval
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, name="dpcount-progress", daemon=True)
        self._start = 0.0
        self._drawn = False

    def __enter__(self) -> Progress:
        self._start = time.monotonic()
        self._thread.start()
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self._stop.set()
        self._thread.join()
        if self._drawn:
            self._write(_ERASE)

    def _run(self) -> None:
        if self._stop.wait(self.delay):
            return
        frame = 0
        while not self._stop.is_set():
            elapsed = time.monotonic() - self._start
            spinner = _FRAMES[frame % len(_FRAMES)]
            line = f"{spinner} {self.label} … {elapsed:.0f} s"
            # A line longer than the terminal would wrap, and "\r" could no longer erase it.
            width = shutil.get_terminal_size().columns - 1
            self._write(_ERASE + (line if len(line) <= width else line[: width - 1] + "…"))
            self._drawn = True
            frame += 1
            self._stop.wait(self.interval)

    def _write(self, text: str) -> None:
        try:
            self.stream.write(text)
            self.stream.flush()
        except (OSError, ValueError):  # the terminal went away; progress is optional
            pass


def progress(
    label: str,
    *,
    enabled: bool,
    stream: TextIO | None = None,
    delay: float = 2.0,
    interval: float = 0.2,
) -> AbstractContextManager[object]:
    """A :class:`Progress` on ``stream`` (default stderr) when ``enabled``, else a no-op.

    Callers pass ``enabled=stderr_is_terminal() and not json_output``: no drawing in pipes, in
    files or under ``--json``.
    """
    if not enabled:
        return nullcontext()
    return Progress(
        label, stream if stream is not None else sys.stderr, delay=delay, interval=interval
    )
