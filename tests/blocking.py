"""Run a call that must not block (a reader given a named pipe without a writer), and fail
the test, not the suite, if it does."""

from __future__ import annotations

import os
import threading
from collections.abc import Callable
from pathlib import Path

import pytest


def raised_without_blocking(
    call: Callable[[], object], fifo: str | Path | None = None, seconds: float = 60
) -> BaseException | None:
    """What ``call`` raised (None if it returned), run in a thread; if it is still running
    after ``seconds``, open ``fifo`` for writing (so that a read blocked on it returns and the
    suite goes on) and fail the test."""
    outcome: list[BaseException] = []

    def run() -> None:
        try:
            call()
        except BaseException as exc:  # handed to the test's thread
            outcome.append(exc)

    worker = threading.Thread(target=run, daemon=True)
    worker.start()
    worker.join(seconds)
    if worker.is_alive():
        if fifo is not None and os.path.exists(fifo) and not os.path.isfile(fifo):
            with open(fifo, "wb"):
                pass
        pytest.fail("the call blocked")
    return outcome[0] if outcome else None
