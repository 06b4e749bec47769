"""A privacy budget that is enforced: every release is charged before any noise is drawn.

A :class:`Session` holds the data and an (ε, δ) budget fixed at creation.  Its methods are the
private mechanisms; each call

1. computes the release's :class:`~mechanisms.accounting.PrivacyLoss` from the parameters alone
   (:func:`~mechanisms.privacy_loss.privacy_loss_of`) and checks the parameters on empty data;
2. composes it with everything released so far (:mod:`mechanisms.composition`) and raises
   :class:`~dpcount.errors.BudgetExceededError` if the total would exceed the budget — before
   any randomness is used, so a refused call draws nothing and returns nothing;
3. records the charge, then runs the mechanism with a fresh child stream of the session's rng
   and returns its result.

A charge stays even if the mechanism then fails (its failure may depend on the data).
Non-private and nominal outputs — diagnostics, the comparison selections, raw set-union
weights, the Bayesian n-gram mechanisms — have no method here.  The session guards against
accidental overspending by its user, not against code that reads its private attributes.

Examples
--------
>>> from dpcount import PersonItemGraph
>>> g = PersonItemGraph.from_sets({f"p{i}": {i, i + 1, 1000} for i in range(200)})
>>> s = Session(g, epsilon=1.0, rng=0)
>>> r = s.dp_distinct_count(0.5, ell_max=10)
>>> s.spent.epsilon, s.remaining.epsilon
(0.5, 0.5)
>>> s.r2t(0.6, max_contribution=8)
Traceback (most recent call last):
...
dpcount.errors.BudgetExceededError: r2t needs epsilon=0.6 but the session has spent 0.5 of epsilon=1
"""

from __future__ import annotations

import dataclasses
import warnings
from collections.abc import Callable, Mapping
from types import MappingProxyType
from typing import Any, TypeVar

import numpy as np

from dpcount._rng import RNGLike, _seed_sequence, spawn
from dpcount.errors import BudgetExceededError, DPCountError, InvalidParameterError
from dpcount.graph import PersonItemGraph
from dpcount.validation import check_delta, check_epsilon
from mechanisms import set_union
from mechanisms._defaults import DEFAULT_BETA
from mechanisms._result import Release
from mechanisms.accounting import PrivacyLoss
from mechanisms.bayesian_ngrams import LaplaceNgramResult, laplace_ngrams
from mechanisms.bayesian_ngrams._data import PublicCounts
from mechanisms.composition import Total, basic_total, compose, pld_total, zcdp_total
from mechanisms.distinct_count import PRIVATE_SELECTIONS, DistinctCountResult, dp_distinct_count
from mechanisms.privacy_loss import privacy_loss_of
from mechanisms.r2t import R2TResult, r2t
from mechanisms.set_union import SetUnionResult
from mechanisms.shifted_inverse import ShiftedInverseResult, shifted_inverse

__all__ = ["Session", "SessionEntry"]

R = TypeVar("R", bound=Release)
_SLACK = 1e-12  # relative tolerance for float sums such as 0.1 + 0.2 against 0.3


@dataclasses.dataclass(frozen=True)
class SessionEntry:
    """One charge of a session: what was asked for, what it cost, what was released.

    Attributes
    ----------
    mechanism
        The mechanism's name.
    parameters
        The parameters of the call (without data and rng), read-only.
    privacy_loss
        The loss charged before the release.
    result
        The release, or ``None`` when the mechanism failed after the charge.
    """

    mechanism: str
    parameters: Mapping[str, Any]
    privacy_loss: PrivacyLoss
    result: Release | None = dataclasses.field(default=None, repr=False)


def _set_union_method(function: Callable[..., SetUnionResult]) -> Callable[..., SetUnionResult]:
    name = function.__name__

    def method(
        self: Session,
        epsilon: float,
        delta: float,
        *,
        max_items: int = 100,
        rng: RNGLike = None,
        **options: Any,
    ) -> SetUnionResult:
        if "return_weights" in options:
            raise InvalidParameterError(
                "return_weights is not private and not available in a session"
            )
        params = {"epsilon": epsilon, "delta": delta, "max_items": max_items, **options}
        return self._release(name, function, (self._graph,), params, rng)

    method.__name__ = method.__qualname__ = name
    method.__doc__ = (
        f":func:`mechanisms.set_union.{name}`, charged first; ``options`` are its other "
        "keyword arguments (``return_weights`` is refused)."
    )
    return method


class Session:
    """Data plus an (ε, δ) budget; private mechanisms that charge the budget before releasing.

    Parameters
    ----------
    data
        A :class:`dpcount.PersonItemGraph`, or anything :func:`dpcount.read_pairs` accepts
        (a path or glob; ``None`` with ``sql=...``), read with ``read_options``.
    epsilon
        The total ε of the session (finite, > 0); fixed for the session's lifetime.
    delta
        The total δ in [0, 1) (default 0: pure ε-DP releases only).
    rng
        The session's randomness: ``None`` (OS entropy, for releases), an int seed or a
        Generator (reproducible, for research).  Every release draws from its own child stream.
    **read_options
        Passed to :func:`dpcount.read_pairs` (``person=``, ``item=``, ``count=``, ``sql=`` …).

    Raises
    ------
    InvalidParameterError
        For an ε or δ out of range.

    Notes
    -----
    The budget is enforced with basic composition (ε's and δ's add), which stays valid when each
    release is chosen after seeing the earlier ones (a privacy filter; Rogers, Roth, Ullman &
    Vadhan 2016).  :attr:`spent` reports the tightest total of
    :func:`mechanisms.composition.compose` — basic, PLD (``dp-accounting``) or zCDP — and names
    its accountant; the PLD and zCDP totals hold for the releases as a sequence fixed in
    advance.  :attr:`remaining` is what the enforced (basic) total leaves.

    Examples
    --------
    >>> from dpcount import PersonItemGraph
    >>> g = PersonItemGraph.from_sets({f"u{k}": {"the", "a", f"w{k}"} for k in range(300)})
    >>> s = Session(g, epsilon=2.0, delta=1e-6, rng=1)
    >>> import warnings
    >>> with warnings.catch_warnings():
    ...     warnings.simplefilter("ignore")  # set union draws floating-point noise
    ...     words = s.weighted_gaussian(1.0, 1e-6, max_items=3)
    >>> sorted(words.items.tolist()), [e.mechanism for e in s.log]
    (['a', 'the'], ['weighted_gaussian'])
    """

    def __init__(
        self,
        data: Any = None,
        *,
        epsilon: float,
        delta: float = 0.0,
        rng: RNGLike = None,
        **read_options: Any,
    ) -> None:
        self._epsilon = check_epsilon(epsilon)
        if isinstance(delta, bool) or not isinstance(delta, int | float | np.floating):
            raise InvalidParameterError(f"delta must be a number in [0, 1), got {delta!r}")
        self._delta = 0.0 if delta == 0 else check_delta(delta)
        if isinstance(data, PersonItemGraph):
            if read_options:
                raise InvalidParameterError(
                    f"read options {sorted(read_options)} apply to files, not to a graph"
                )
            self._graph = data
        else:
            from dpcount.io import read_pairs

            self._graph = read_pairs(data, **read_options)
        # A Generator is used as given; anything else becomes one SeedSequence that is spawned
        # from, so two releases never share a stream.
        self._rng: np.random.Generator | np.random.SeedSequence = (
            rng if isinstance(rng, np.random.Generator) else _seed_sequence(rng)
        )
        self._log: list[SessionEntry] = []

    # ---- the budget (read-only) --------------------------------------------------------------

    @property
    def budget(self) -> PrivacyLoss:
        """The (ε, δ) fixed at creation."""
        return PrivacyLoss(self._epsilon, self._delta, "session budget")

    @property
    def log(self) -> tuple[SessionEntry, ...]:
        """Every charge, in order, with its release."""
        return tuple(self._log)

    def _losses(self) -> list[PrivacyLoss]:
        return [e.privacy_loss for e in self._log]

    def _enforced(self, extra: PrivacyLoss | None = None) -> Total:
        """The total the budget is checked against: basic composition (see the Notes)."""
        return basic_total(self._losses() + ([extra] if extra is not None else []))

    @property
    def spent(self) -> PrivacyLoss:
        """The composed loss of all charges from the tightest accountant, named in it.

        Basic, PLD (``dp-accounting``) or zCDP, whichever gives the smallest ε with δ within
        the budget; see :func:`mechanisms.composition.compose`.
        """
        return compose(self._losses(), self._delta).as_loss(len(self._log))

    @property
    def accountant(self) -> str:
        """Which accountant gave :attr:`spent`."""
        return compose(self._losses(), self._delta).accountant

    @property
    def totals(self) -> dict[str, Total]:
        """Every accountant's total (``"basic"`` always; ``"pld"``, ``"zcdp"`` when they apply)."""
        losses = self._losses()
        out = {"basic": basic_total(losses)}
        for name, total in (
            ("pld", pld_total(losses, self._delta)),
            ("zcdp", zcdp_total(losses, self._delta)),
        ):
            if total is not None:
                out[name] = total
        return out

    @property
    def zcdp(self) -> tuple[float, float] | None:
        """(ρ, δ₀): the releases together are δ₀-approximately ρ-zCDP (``None`` if unknown).

        Gaussian mechanisms state their ρ = Δ²/(2σ²); pure ε-DP releases count ε²/2.
        """
        stated = [p.as_zcdp() for p in self._losses()]
        if any(z is None for z in stated):
            return None
        return (
            float(sum(z[0] for z in stated if z is not None)),
            float(sum(z[1] for z in stated if z is not None)),
        )

    @property
    def remaining(self) -> PrivacyLoss:
        """What the session still admits: the budget minus the basic total (floored at 0)."""
        enforced = self._enforced()
        eps_left = self._epsilon - enforced.epsilon
        eps_left = 0.0 if eps_left <= self._epsilon * _SLACK else eps_left
        return PrivacyLoss(eps_left, max(0.0, self._delta - enforced.delta), "remaining budget")

    def can_afford(self, loss: PrivacyLoss) -> bool:
        """Whether ``loss`` composed with everything so far fits in the budget."""
        if not loss.is_private:
            return False
        total = self._enforced(loss)
        return total.epsilon <= self._epsilon * (1 + _SLACK) and total.delta <= self._delta * (
            1 + _SLACK
        )

    def __repr__(self) -> str:
        spent = compose(self._losses(), self._delta)
        return (
            f"Session(spent epsilon={spent.epsilon:g} of {self._epsilon:g}, delta="
            f"{spent.delta:g} of {self._delta:g} ({spent.accountant}), releases={len(self._log)})"
        )

    # ---- charging ----------------------------------------------------------------------------

    def _charge(self, name: str, params: dict[str, Any], dry_run: Callable[[], Any]) -> int:
        """Check ``params`` without data, check the budget, record the charge; its index."""
        loss = privacy_loss_of(name, **params)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            try:
                dry_run()  # the mechanism's own parameter checks, on empty data
            except InvalidParameterError:
                raise
            except DPCountError:  # empty data may be refused (no counts …): not a parameter error
                pass
        if not self.can_afford(loss):
            spent = self._enforced()
            raise BudgetExceededError(
                f"{name} needs epsilon={loss.epsilon:g}"
                + (f", delta={loss.delta:g}" if loss.delta else "")
                + f" but the session has spent {spent.epsilon:g} of epsilon={self._epsilon:g}"
                + (f" and {spent.delta:g} of delta={self._delta:g}" if loss.delta else "")
            )
        self._log.append(SessionEntry(name, MappingProxyType(dict(params)), loss))
        return len(self._log) - 1

    def _child(self) -> np.random.Generator:
        """A fresh child stream of the session's rng (spawning never repeats a stream)."""
        return spawn(self._rng, 1)[0]

    def _release(
        self,
        name: str,
        function: Callable[..., R],
        data: tuple[Any, ...],
        params: dict[str, Any],
        rng: RNGLike,
    ) -> R:
        empty = _empty_like(self._graph)
        index = self._charge(name, params, lambda: function(empty, *data[1:], **params, rng=0))
        result = function(*data, **params, rng=self._child() if rng is None else rng)
        if result.privacy_loss != self._log[index].privacy_loss:  # pragma: no cover - tested
            raise AssertionError(f"{name} spent {result.privacy_loss}, not what was charged")
        entry = self._log[index]
        self._log[index] = SessionEntry(
            entry.mechanism, entry.parameters, entry.privacy_loss, result
        )
        return result

    # ---- the private mechanisms ----------------------------------------------------------------

    def dp_distinct_count(
        self,
        epsilon: float,
        *,
        beta: float = DEFAULT_BETA,
        ell_max: int = 100,
        counting: str = "matching",
        selection: str = "gem",
        rng: RNGLike = None,
    ) -> DistinctCountResult:
        """:func:`mechanisms.dp_distinct_count`, charged first (exact noise, private selections).

        ``rng`` overrides the session's stream for this release (research only).
        """
        if selection not in PRIVATE_SELECTIONS:
            raise InvalidParameterError(
                f"selection={selection!r} is not private and not available in a session; "
                f"use one of {PRIVATE_SELECTIONS}"
            )
        params: dict[str, Any] = {"epsilon": epsilon, "beta": beta, "ell_max": ell_max}
        params |= {"counting": counting, "selection": selection}
        return self._release("dp_distinct_count", dp_distinct_count, (self._graph,), params, rng)

    def r2t(
        self,
        epsilon: float,
        *,
        max_contribution: int,
        beta: float = DEFAULT_BETA,
        base: float = 2,
        rng: RNGLike = None,
    ) -> R2TResult:
        """:func:`mechanisms.r2t` with exact noise, charged first."""
        params = {"epsilon": epsilon, "beta": beta, "max_contribution": max_contribution}
        return self._release("r2t", r2t, (self._graph,), params | {"base": base}, rng)

    def shifted_inverse(
        self,
        epsilon: float,
        *,
        upper: float,
        beta: float = DEFAULT_BETA,
        step: float | None = None,
        log_domain: bool = True,
        inverse: str = "lp",
        rng: RNGLike = None,
    ) -> ShiftedInverseResult:
        """:func:`mechanisms.shifted_inverse`, charged first (floating-point selection)."""
        params: dict[str, Any] = {"epsilon": epsilon, "beta": beta, "upper": upper, "step": step}
        params |= {"log_domain": log_domain, "inverse": inverse}
        return self._release("shifted_inverse", shifted_inverse, (self._graph,), params, rng)

    def laplace_ngrams(
        self,
        public_counts: PublicCounts,
        epsilon: float,
        *,
        max_contribution: int,
        rng: RNGLike = None,
    ) -> LaplaceNgramResult:
        """:func:`mechanisms.bayesian_ngrams.laplace_ngrams` (worst-case ε-DP), charged first.

        The data must carry n-gram counts; ``public_counts`` is public and fixes the vocabulary.
        """
        params = {"epsilon": epsilon, "max_contribution": max_contribution}
        data = (self._graph, public_counts)
        return self._release("laplace_ngrams", laplace_ngrams, data, params, rng)

    count_laplace = _set_union_method(set_union.count_laplace)
    count_gaussian = _set_union_method(set_union.count_gaussian)
    weighted_laplace = _set_union_method(set_union.weighted_laplace)
    weighted_gaussian = _set_union_method(set_union.weighted_gaussian)
    policy_laplace = _set_union_method(set_union.policy_laplace)
    policy_gaussian = _set_union_method(set_union.policy_gaussian)
    max_adaptive_degree = _set_union_method(set_union.max_adaptive_degree)
    dp_sips = _set_union_method(set_union.dp_sips)


def _empty_like(graph: PersonItemGraph) -> PersonItemGraph:
    """A graph with no pairs (with counts if ``graph`` has them), for parameter checks."""
    counts = None if graph.counts is None else np.zeros(0, dtype=graph.counts.dtype)
    return PersonItemGraph.from_pairs(
        np.array([], dtype=object), np.array([], dtype=object), counts
    )
