"""The privacy loss of a mechanism from its parameters alone, before it touches any data.

:func:`privacy_loss_of` answers "what would this call cost?" without data, from the privacy map
each mechanism declares with :func:`~mechanisms.declaration.register`: the result of the call
records exactly this loss (``result.privacy_loss == privacy_loss_of(f, **params)``), and
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

from collections.abc import Callable
from typing import Any

from dpcount.errors import InvalidParameterError
from mechanisms import registry
from mechanisms.accounting import PrivacyLoss
from mechanisms.declaration import ATTRIBUTE, Declaration

__all__ = ["declaration_of", "privacy_loss_of"]


def declaration_of(mechanism: str | Callable[..., Any]) -> Declaration:
    """The declaration of a registered mechanism, given as itself or by name.

    Raises
    ------
    InvalidParameterError
        For anything that is not a registered mechanism.
    """
    if isinstance(mechanism, str):
        try:
            return registry.get(mechanism)
        except InvalidParameterError:
            pass
    else:
        declared = getattr(mechanism, ATTRIBUTE, None)
        name = getattr(mechanism, "__name__", "")
        if isinstance(declared, Declaration) and name in registry.names():
            if registry.get(name) is declared:
                return declared
    raise InvalidParameterError(
        f"no stated privacy loss for {mechanism!r}; known: {', '.join(registry.names())}"
    )


def privacy_loss_of(mechanism: str | Callable[..., Any], /, **params: Any) -> PrivacyLoss:
    """The :class:`~mechanisms.accounting.PrivacyLoss` a call would record, without data.

    Parameters
    ----------
    mechanism
        A registered mechanism or its name (``"dp_distinct_count"``, ``"r2t"``,
        ``"shifted_inverse"``, the set-union mechanisms, the n-gram mechanisms,
        ``"grouped_distinct_count"``; :func:`mechanisms.registry.names` lists them).
    **params
        The keyword arguments the call would get, without the data (``graph``,
        ``public_counts`` …).  Parameters that do not change the loss (``rng``, ``ell_max`` …)
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
    declaration = declaration_of(mechanism)
    taken = declaration.parameters()
    for key in params:
        if key in (declaration.data, *declaration.inputs):
            raise InvalidParameterError(f"privacy_loss_of needs no data; drop {key!r}")
        if key not in taken and key != "rng":
            raise InvalidParameterError(f"{declaration.name} has no parameter {key!r}")
    accepted = declaration.loss_parameters()
    return declaration.loss(**{k: v for k, v in params.items() if k in accepted})
