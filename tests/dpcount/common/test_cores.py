"""Splitting a batch of independent rows over two threads."""

from __future__ import annotations

import threading

import pytest

from dpcount.common import cores


def _calls(size: int, min_rows: int) -> list[tuple[int, int, str]]:
    seen: list[tuple[int, int, str]] = []

    def run(first: int, stop: int) -> None:
        seen.append((first, stop, threading.current_thread().name))

    cores.in_two_halves(run, size, min_rows=min_rows)
    return sorted(seen)


def test_two_cores_and_enough_rows_give_two_halves_on_other_threads(monkeypatch):
    monkeypatch.setattr(cores, "available_cores", lambda: 2)
    calls = _calls(9, 4)
    assert [(first, stop) for first, stop, _ in calls] == [(0, 4), (4, 9)]
    assert all(name != threading.current_thread().name for _, _, name in calls)


@pytest.mark.parametrize(("available", "size"), [(1, 100), (2, 3)])
def test_one_core_or_few_rows_give_one_call_here(monkeypatch, available, size):
    monkeypatch.setattr(cores, "available_cores", lambda: available)
    assert _calls(size, 4) == [(0, size, threading.current_thread().name)]


def test_a_failing_half_raises_in_the_caller(monkeypatch):
    monkeypatch.setattr(cores, "available_cores", lambda: 2)

    def run(first: int, stop: int) -> None:
        if first > 0:
            raise ValueError("second half")

    with pytest.raises(ValueError, match="second half"):
        cores.in_two_halves(run, 10, min_rows=2)
