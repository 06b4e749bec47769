"""A tiny progress indicator on stderr: a spinner and the elapsed seconds of a slow step.

It draws only on a terminal (or when asked with ``--progress``), and only once a step has run
longer than ``delay`` seconds, so fast commands and pipes see nothing.  The line is erased when
the step ends.  :func:`say` prints a whole line (a note) without mixing it into a drawn frame.

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

__all__ = ["DELAY", "Progress", "progress", "say", "stderr_is_terminal"]

_FRAMES = "|/-\\"
_ERASE = "\r\x1b[K"  # carriage return, then clear to the end of the line
#: Seconds a step runs before its first frame: shorter steps draw nothing.
DELAY = 2.0
#: Held while anything is written to the screen, so that a note never lands inside a frame.
_SCREEN = threading.Lock()
#: The indicators whose line is on the screen now.
_DRAWN: set[Progress] = set()


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

    def __init__(
        self, label: str, stream: TextIO, *, delay: float = DELAY, interval: float = 0.2
    ) -> None:
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
        if not self._drawn and time.monotonic() - self._start >= self.delay:
            self._draw(0)  # a step that outlasted the delay shows, however the threads ran
        if self._drawn:
            with _SCREEN:
                _DRAWN.discard(self)
                _write(self.stream, _ERASE)

    def _run(self) -> None:
        if self._stop.wait(self.delay):
            return
        frame = 0
        while not self._stop.is_set():
            self._draw(frame)
            frame += 1
            self._stop.wait(self.interval)

    def _draw(self, frame: int) -> None:
        elapsed = time.monotonic() - self._start
        line = f"{_FRAMES[frame % len(_FRAMES)]} {self.label} … {elapsed:.0f} s"
        # A line longer than the terminal would wrap, and "\r" could no longer erase it.
        width = shutil.get_terminal_size().columns - 1
        with _SCREEN:
            _write(self.stream, _ERASE + (line if len(line) <= width else line[: width - 1] + "…"))
            _DRAWN.add(self)
            self._drawn = True


def _write(stream: TextIO, text: str) -> None:
    try:
        stream.write(text)
        stream.flush()
    except (OSError, ValueError):  # the terminal went away; progress is optional
        pass


def say(line: str, stream: TextIO | None = None) -> None:
    """Print ``line`` on ``stream`` (default stderr), erasing a drawn progress line first; the
    indicator draws itself again below it at its next frame.

    Examples
    --------
    >>> import io
    >>> screen = io.StringIO()
    >>> say("note: compiling", stream=screen)
    >>> screen.getvalue()
    'note: compiling\\n'
    """
    target = stream if stream is not None else sys.stderr
    with _SCREEN:
        _write(target, (_ERASE if _DRAWN else "") + line + "\n")


def progress(
    label: str,
    *,
    enabled: bool,
    stream: TextIO | None = None,
    delay: float | None = None,
    interval: float = 0.2,
) -> AbstractContextManager[object]:
    """A :class:`Progress` on ``stream`` (default stderr) when ``enabled``, else a no-op.

    Callers pass ``enabled=show_progress(args)``: a terminal without ``--json``, or
    ``--progress``.  ``delay`` defaults to :data:`DELAY`.
    """
    if not enabled:
        return nullcontext()
    return Progress(
        label,
        stream if stream is not None else sys.stderr,
        delay=DELAY if delay is None else delay,
        interval=interval,
    )
