"""Parameter checks shared by ``matching`` and ``mechanisms``.

Each check returns the value normalised (a Python ``int`` or ``float``) or raises
:class:`~dpcount.errors.InvalidParameterError` with a message that says what was expected.

Examples
--------
>>> check_epsilon(1)
1.0
>>> check_beta(0.7)
Traceback (most recent call last):
...
dpcount.errors.InvalidParameterError: beta must lie in (0, 0.5), got 0.7
"""

from __future__ import annotations

import math
import numbers
from collections.abc import Sequence
from typing import Any

from dpcount.errors import InvalidParameterError

__all__ = [
    "check_beta",
    "check_choice",
    "check_delta",
    "check_epsilon",
    "check_positive_int",
    "check_probability",
]


def _real(name: str, value: Any) -> float:
    if isinstance(value, bool) or not isinstance(value, numbers.Real):
        raise InvalidParameterError(f"{name} must be a real number, got {value!r}")
    return float(value)


def check_epsilon(epsilon: Any, name: str = "epsilon") -> float:
    """ε must be finite and > 0."""
    eps = _real(name, epsilon)
    if not (math.isfinite(eps) and eps > 0):
        raise InvalidParameterError(f"{name} must be finite and > 0, got {epsilon!r}")
    return eps


def check_beta(beta: Any, name: str = "beta") -> float:
    """β (the failure probability of a lower bound) must lie in (0, ½)."""
    b = _real(name, beta)
    if not 0 < b < 0.5:
        raise InvalidParameterError(f"{name} must lie in (0, 0.5), got {beta!r}")
    return b


def check_delta(delta: Any, name: str = "delta") -> float:
    """δ must lie in (0, 1)."""
    d = _real(name, delta)
    if not 0 < d < 1:
        raise InvalidParameterError(f"{name} must lie in (0, 1), got {delta!r}")
    return d


def check_probability(p: Any, name: str, *, open_low: bool = True, open_high: bool = True) -> float:
    """A probability in (0, 1), with either end optionally closed."""
    x = _real(name, p)
    low_ok = x > 0 if open_low else x >= 0
    high_ok = x < 1 if open_high else x <= 1
    if not (low_ok and high_ok):
        interval = f"{'(' if open_low else '['}0, 1{')' if open_high else ']'}"
        raise InvalidParameterError(f"{name} must lie in {interval}, got {p!r}")
    return x


def check_positive_int(value: Any, name: str, *, maximum: int | None = None) -> int:
    """A whole number ≥ 1 (``numpy`` integers accepted, floats and bools rejected)."""
    if isinstance(value, bool) or not isinstance(value, numbers.Integral):
        raise InvalidParameterError(f"{name} must be a positive integer, got {value!r}")
    v = int(value)
    if v < 1:
        raise InvalidParameterError(f"{name} must be a positive integer, got {value!r}")
    if maximum is not None and v > maximum:
        raise InvalidParameterError(f"{name} must be at most {maximum}, got {value!r}")
    return v


def check_choice(value: Any, name: str, choices: Sequence[str]) -> str:
    """One of a fixed set of strings; the error lists the valid ones."""
    if value not in choices:
        valid = ", ".join(repr(c) for c in choices)
        raise InvalidParameterError(f"unknown {name} {value!r}; choose one of {valid}")
    return str(value)
