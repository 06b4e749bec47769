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
import warnings
from collections.abc import Sequence
from typing import Any

from dpcount.errors import InvalidParameterError, LargeDeltaWarning
from dpcount.graph.assembly import MAX_ITEMS
from dpcount.graph.labels import as_key_list
from dpcount.graph.person_item import PersonItemGraph

__all__ = [
    "DELTA_PER_PERSON",
    "DELTA_WARNING_BOUND",
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
    "check_release_delta",
    "delta_bound",
]

#: The largest ℓ (and ℓ_max) accepted anywhere.  No person holds more than ``MAX_ITEMS`` items,
#: so DC(D;ℓ) is the same for every larger ℓ.
MAX_ELL = MAX_ITEMS
#: δ above this draws a :class:`~dpcount.errors.LargeDeltaWarning` when no public bound on the
#: number of persons is given: it is 0.01/n for n = 1,000 persons (docs/budget.md §6).
DELTA_WARNING_BOUND = 1e-5
#: With a public upper bound n on the number of persons, δ above this / n warns: δ should be
#: far below 1/n, the probability of picking any one person (docs/budget.md §6).
DELTA_PER_PERSON = 0.01


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


def delta_bound(max_persons: Any = None) -> float:
    """The public bound above which a release's δ warns: 0.01/n, or 10⁻⁵ without a bound n.

    ``max_persons`` is a *public* upper bound on the number of persons (never counted from the
    data: the warning would then depend on the data).

    Examples
    --------
    >>> delta_bound(), delta_bound(500)
    (1e-05, 2e-05)
    """
    if max_persons is None:
        return DELTA_WARNING_BOUND
    return DELTA_PER_PERSON / check_positive_int(max_persons, "max_persons")


def check_release_delta(
    delta: Any, name: str = "delta", *, max_persons: Any = None, stacklevel: int = 3
) -> float:
    """The δ of a release: refused unless 0 < δ < 1, warned about above :func:`delta_bound`.

    Every public entry point that takes δ (the mechanisms, ``Session``, the CLI, Spark) calls
    this; internal calibrations use :func:`check_delta`.  The rule reads only its arguments,
    never the data (docs/budget.md §6).

    Parameters
    ----------
    delta
        δ of the release.
    name
        The parameter's name in messages (e.g. ``"--delta"`` in the CLI).
    max_persons
        Optional public upper bound on the number of persons; tightens or relaxes the bound
        to 0.01/max_persons.
    stacklevel
        Passed to :func:`warnings.warn` (3: the caller of the function that checks).

    Raises
    ------
    InvalidParameterError
        δ not a number in (0, 1).

    Warns
    -----
    LargeDeltaWarning
        δ above the public bound: with probability δ the guarantee may fail outright, and a
        mechanism that publishes one random person's records is already (0, 1/n)-DP.

    Examples
    --------
    >>> check_release_delta(1e-8)
    1e-08
    >>> import warnings
    >>> with warnings.catch_warnings(record=True) as caught:
    ...     warnings.simplefilter("always")
    ...     _ = check_release_delta(0.01)
    >>> caught[0].category.__name__
    'LargeDeltaWarning'
    """
    value = check_delta(delta, name)
    bound = delta_bound(max_persons)
    if value > bound:
        about = (
            f"0.01/max_persons = {bound:g}"
            if max_persons is not None
            else f"{bound:g} (0.01/n for n = 1,000 persons; pass max_persons to adjust)"
        )
        warnings.warn(
            f"{name}={value:g} is large: with probability {name} the guarantee may fail "
            f"outright, so it should be far below 1/n for n persons; it is above {about}",
            LargeDeltaWarning,
            stacklevel=stacklevel,
        )
    return value


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
