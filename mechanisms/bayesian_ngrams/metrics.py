"""Evaluation of released n-gram distributions: KL divergence and perplexity (not private).

Examples
--------
>>> import numpy as np
>>> round(kl_divergence([0.5, 0.5], [0.25, 0.75]), 6)
0.143841
>>> round(perplexity([0.5, 0.25, 0.25], counts=[2, 1, 1]), 6)  # exp of the entropy 1.5 log 2
2.828427
"""

from __future__ import annotations

import numpy as np
import numpy.typing as npt
from scipy.special import rel_entr, xlogy

from dpcount.errors import InvalidParameterError

__all__ = ["kl_divergence", "perplexity"]


def _distribution(values: npt.ArrayLike, name: str) -> np.ndarray:
    """A non-negative finite 1-D array with a positive sum, normalised to sum 1."""
    arr = np.asarray(values, dtype=np.float64)
    if arr.ndim != 1 or arr.size == 0:
        raise InvalidParameterError(f"{name} must be a non-empty 1-D array, got shape {arr.shape}")
    if not np.all(np.isfinite(arr)) or arr.min() < 0:
        raise InvalidParameterError(f"{name} must be finite and non-negative")
    total = arr.sum()
    if not total > 0:
        raise InvalidParameterError(f"{name} must have a positive sum")
    return arr / total


def kl_divergence(p: npt.ArrayLike, q: npt.ArrayLike) -> float:
    """KL(p ‖ q) = Σᵢ pᵢ·log(pᵢ/qᵢ) in nats, for aligned distributions over one vocabulary.

    Both inputs are normalised to sum 1 (so counts can be passed).  Terms with pᵢ = 0 are 0;
    ``inf`` if some qᵢ = 0 < pᵢ.  The paper's figures plot the KL divergence of the released
    θ from the private distribution, i.e. ``kl_divergence(private, theta)``.

    Raises
    ------
    InvalidParameterError
        Different shapes, negative or non-finite entries, or a zero sum.
    """
    p_arr, q_arr = _distribution(p, "p"), _distribution(q, "q")
    if p_arr.shape != q_arr.shape:
        raise InvalidParameterError(
            f"p and q must be aligned over one vocabulary, got sizes {p_arr.size} and {q_arr.size}"
        )
    return float(np.sum(rel_entr(p_arr, q_arr)))


def perplexity(probabilities: npt.ArrayLike, counts: npt.ArrayLike) -> float:
    """exp(−Σᵢ cᵢ·log θᵢ / Σᵢ cᵢ): the per-n-gram perplexity of held-out counts under θ.

    Parameters
    ----------
    probabilities
        θ over the vocabulary (normalised here).
    counts
        How often each n-gram of the vocabulary occurs in the evaluation data (≥ 0).

    Returns
    -------
    float
        ``inf`` if an n-gram with a positive count has probability 0.
    """
    theta = _distribution(probabilities, "probabilities")
    c = np.asarray(counts, dtype=np.float64)
    if c.shape != theta.shape:
        raise InvalidParameterError(
            f"counts must align with probabilities, got sizes {c.size} and {theta.size}"
        )
    if not np.all(np.isfinite(c)) or c.min() < 0 or not c.sum() > 0:
        raise InvalidParameterError("counts must be finite, non-negative, with a positive sum")
    with np.errstate(divide="ignore"):
        log_likelihood = float(np.sum(xlogy(c, theta)))
    return float(np.exp(-log_likelihood / c.sum()))
