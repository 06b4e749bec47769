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
from dpcount.graph.assembly import MAX_ITEMS
from dpcount.graph.labels import as_key_list
from dpcount.graph.person_item import PersonItemGraph

__all__ = [
    "MAX_ELL",
    "MAX_ITEMS",
    "check_beta",
    "check_choice",
    "check_delta",
    "check_epsilon",
    "check_graph",
    "check_keys",
    "check_nonnegative",
    "check_nonnegative_int",
    "check_positive",
    "check_positive_int",
    "check_probability",
    "check_real_in",
]

#: The largest ℓ (and ℓ_max) accepted anywhere.  No person holds more than ``MAX_ITEMS`` items,
#: so DC(D;ℓ) is the same for every larger ℓ.
MAX_ELL = MAX_ITEMS


def _real(name: str, value: Any) -> float:
    if isinstance(value, bool) or not isinstance(value, numbers.Real):
        raise InvalidParameterError(f"{name} must be a real number, got {value!r}")
    return float(value)


def check_graph(graph: Any, name: str = "graph") -> PersonItemGraph:
    """``graph`` must be a :class:`~dpcount.PersonItemGraph`; the error says how to build one.

    Examples
    --------
    >>> check_graph([("ann", 1)])
    Traceback (most recent call last):
    ...
    dpcount.errors.InvalidParameterError: graph must be a dpcount.PersonItemGraph, got list; \
build one with PersonItemGraph.from_pairs / from_sets / from_dataframe
    """
    if not isinstance(graph, PersonItemGraph):
        raise InvalidParameterError(
            f"{name} must be a dpcount.PersonItemGraph, got {type(graph).__name__}; build one "
            "with PersonItemGraph.from_pairs / from_sets / from_dataframe"
        )
    return graph


def check_keys(values: Any, name: str) -> list[Any]:
    """A list of hashable labels (group keys …): not one string, which would be split into
    letters, nor labels that cannot be hashed.

    Examples
    --------
    >>> check_keys(["a", "b"], "groups")
    ['a', 'b']
    """
    return as_key_list(values, name)


def check_positive(value: Any, name: str) -> float:
    """A finite real > 0."""
    x = _real(name, value)
    if not (math.isfinite(x) and x > 0):
        raise InvalidParameterError(f"{name} must be finite and > 0, got {value!r}")
    return x


def check_nonnegative(value: Any, name: str) -> float:
    """A finite real ≥ 0."""
    x = _real(name, value)
    if not (math.isfinite(x) and x >= 0):
        raise InvalidParameterError(f"{name} must be finite and >= 0, got {value!r}")
    return x


def check_real_in(
    value: Any,
    name: str,
    low: float,
    high: float,
    *,
    open_low: bool = True,
    open_high: bool = True,
    note: str = "",
) -> float:
    """A real in the interval from ``low`` to ``high``, each end open unless told otherwise.

    ``note`` (e.g. the formula the bound comes from) is added to the error in parentheses.

    Examples
    --------
    >>> check_real_in(1, "prior_weight", 0, 1, open_high=False)
    1.0
    >>> check_real_in(0, "fraction", 0, 1)
    Traceback (most recent call last):
    ...
    dpcount.errors.InvalidParameterError: fraction must lie in (0, 1), got 0
    """
    x = _real(name, value)
    low_ok = x > low if open_low else x >= low
    high_ok = x < high if open_high else x <= high
    if not (low_ok and high_ok):
        interval = f"{'(' if open_low else '['}{low:g}, {high:g}{')' if open_high else ']'}"
        extra = f" ({note})" if note else ""
        raise InvalidParameterError(f"{name} must lie in {interval}{extra}, got {value!r}")
    return x


def check_epsilon(epsilon: Any, name: str = "epsilon") -> float:
    """ε must be finite and > 0."""
    return check_positive(epsilon, name)


def check_beta(beta: Any, name: str = "beta") -> float:
    """β (the failure probability of a lower bound) must lie in (0, ½)."""
    return check_real_in(beta, name, 0, 0.5)


def check_delta(delta: Any, name: str = "delta") -> float:
    """δ must lie in (0, 1)."""
    return check_real_in(delta, name, 0, 1)


def check_probability(p: Any, name: str, *, open_low: bool = True, open_high: bool = True) -> float:
    """A probability in (0, 1), with either end optionally closed."""
    return check_real_in(p, name, 0, 1, open_low=open_low, open_high=open_high)


def check_positive_int(value: Any, name: str, *, maximum: int | None = None) -> int:
    """A whole number ≥ 1 (``numpy`` integers accepted, floats and bools rejected)."""
    if isinstance(value, bool) or not isinstance(value, numbers.Integral):
        raise InvalidParameterError(f"{name} must be a positive integer, got {_shown(value)}")
    v = int(value)
    if v < 1:
        raise InvalidParameterError(f"{name} must be a positive integer, got {_shown(value)}")
    if maximum is not None and v > maximum:
        raise InvalidParameterError(f"{name} must be at most {maximum}, got {_shown(value)}")
    return v


def _shown(value: Any, limit: int = 40) -> str:
    """``repr(value)`` for an error message, cut short when long (a 400-digit integer).

    Examples
    --------
    >>> _shown(10**400)
    'a 401-digit integer'
    >>> len(_shown("x" * 50))
    40
    """
    if isinstance(value, int) and not isinstance(value, bool) and abs(value) >= 10**limit:
        return f"a {len(str(abs(value)))}-digit integer"
    text = repr(value)
    return text if len(text) <= limit else text[: limit - 3] + "..."


def check_nonnegative_int(value: Any, name: str) -> int:
    """A whole number ≥ 0 (``numpy`` integers accepted, floats and bools rejected)."""
    if isinstance(value, bool) or not isinstance(value, numbers.Integral) or value < 0:
        raise InvalidParameterError(f"{name} must be a non-negative integer, got {value!r}")
    return int(value)


def check_choice(value: Any, name: str, choices: Sequence[str]) -> str:
    """One of a fixed set of strings; the error lists the valid ones."""
    if value not in choices:
        valid = ", ".join(repr(c) for c in choices)
        raise InvalidParameterError(f"unknown {name} {value!r}; choose one of {valid}")
    return str(value)
