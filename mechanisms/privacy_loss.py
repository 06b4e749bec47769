"""The privacy loss of a mechanism from its parameters alone, before it touches any data.

:func:`privacy_loss_of` answers "what would this call cost?" without data: the result of the
call records exactly this loss (``result.privacy_loss == privacy_loss_of(f, **params)``), and
:class:`~mechanisms.session.Session` charges it before any noise is drawn.

Examples
--------
>>> import mechanisms
>>> privacy_loss_of(mechanisms.dp_distinct_count, epsilon=1.0, ell_max=50)
PrivacyLoss(epsilon=1, delta=0, 'DPDistinctCount (matching, gem)')
>>> privacy_loss_of("weighted_gaussian", epsilon=1.0, delta=1e-6).delta
1e-06
"""

from __future__ import annotations

import inspect
from collections.abc import Callable
from functools import partial
from typing import Any

from dpcount.errors import InvalidParameterError
from mechanisms.accounting import PrivacyLoss
from mechanisms.bayesian_ngrams import bayesian, laplace, tuning
from mechanisms.distinct_count import distinct_count_loss, dp_distinct_count
from mechanisms.r2t import r2t, r2t_loss
from mechanisms.set_union import MECHANISMS as SET_UNION
from mechanisms.set_union._release import set_union_loss
from mechanisms.shifted_inverse import shifted_inverse, shifted_inverse_loss

__all__ = ["MECHANISMS", "privacy_loss_of"]

#: Every mechanism with a stated loss: name → (the mechanism, its loss from parameters).
MECHANISMS: dict[str, tuple[Callable[..., Any], Callable[..., PrivacyLoss]]] = {
    "dp_distinct_count": (dp_distinct_count, distinct_count_loss),
    "r2t": (r2t, r2t_loss),
    "shifted_inverse": (shifted_inverse, shifted_inverse_loss),
    **{f.__name__: (f, partial(set_union_loss, f.__name__)) for f in SET_UNION},
    "laplace_ngrams": (laplace.laplace_ngrams, laplace.laplace_ngrams_loss),
    "laplace_ngrams_public": (laplace.laplace_ngrams_public, laplace.laplace_ngrams_public_loss),
    "bayesian_dp": (bayesian.bayesian_dp, bayesian.bayesian_dp_loss),
    "end_to_end_dp": (tuning.end_to_end_dp, tuning.end_to_end_dp_loss),
}

#: Parameters that carry data; the loss never depends on them.
_DATA = frozenset({"graph", "public_counts"})


def privacy_loss_of(mechanism: str | Callable[..., Any], /, **params: Any) -> PrivacyLoss:
    """The :class:`~mechanisms.accounting.PrivacyLoss` a call would record, without data.

    Parameters
    ----------
    mechanism
        A mechanism of :data:`MECHANISMS` or its name (``"dp_distinct_count"``, ``"r2t"``,
        ``"shifted_inverse"``, the set-union mechanisms, the n-gram mechanisms).
    **params
        The keyword arguments the call would get, without the data (``graph``,
        ``public_counts``).  Parameters that do not change the loss (``rng``, ``ell_max`` …)
        are accepted and ignored; names the mechanism does not take are refused.

    Returns
    -------
    PrivacyLoss
        Equal to the ``privacy_loss`` of the result the call returns.

    Raises
    ------
    InvalidParameterError
        For an unknown mechanism, an unknown or data parameter, or invalid values (the same
        checks as the mechanism, e.g. ε ≤ 0).

    Examples
    --------
    >>> privacy_loss_of("r2t", epsilon=2.0, max_contribution=100).parts[0].epsilon
    0.3333333333333333
    """
    name = mechanism if isinstance(mechanism, str) else getattr(mechanism, "__name__", "")
    if name not in MECHANISMS or (
        not isinstance(mechanism, str) and MECHANISMS[name][0] is not mechanism
    ):
        raise InvalidParameterError(
            f"no stated privacy loss for {mechanism!r}; known: {', '.join(MECHANISMS)}"
        )
    function, loss = MECHANISMS[name]
    taken = inspect.signature(function).parameters
    for key in params:
        if key in _DATA:
            raise InvalidParameterError(f"privacy_loss_of needs no data; drop {key!r}")
        if key not in taken:
            raise InvalidParameterError(f"{name} has no parameter {key!r}")
    accepted = inspect.signature(loss).parameters
    return loss(**{k: v for k, v in params.items() if k in accepted})
