"""A privacy budget that is enforced: every release is charged before any noise is drawn.

A :class:`Session` holds the data and an (ε, δ) budget fixed at creation.  Its methods are the
private mechanisms; each call

1. computes the release's :class:`~mechanisms.accounting.PrivacyLoss` from the parameters alone
   (:func:`~mechanisms.privacy_loss.privacy_loss_of`) and runs the mechanism's own checks on
   empty data (so a failure there cannot depend on the data);
2. under a lock, composes the loss with everything released so far
   (:mod:`mechanisms.composition`), raises :class:`~dpcount.errors.BudgetExceededError` if the
   total would exceed the budget — before any randomness is used, so a refused call draws
   nothing and returns nothing — records the charge and spawns the release's own child stream;
3. runs the mechanism on that stream and returns its result.

The session is built so that its user cannot talk it out of its guarantee:

* **no caller-chosen randomness**: the noise comes from operating-system entropy; nothing takes
  an ``rng`` (a :class:`SeededSession` reproduces runs for research, and every result it hands
  out says "seeded, not private");
* **no copies**: :func:`copy.copy`, :func:`copy.deepcopy` and :mod:`pickle` are refused, since a
  copy would hold the same budget twice;
* **atomic charges**: check and charge happen under one lock, and each release gets its own
  spawned stream, so concurrent calls can neither overspend nor share noise;
* **failures that reveal nothing**: a mechanism that fails after its charge raises
  :class:`~dpcount.errors.ReleaseFailedError` naming only the release and its cost (the charge
  stays); the failures known to depend on the data are removed at their source (the shifted
  inverse runs its polynomial inverse only; the Laplace n-grams release zero counts on data
  that share nothing with the vocabulary);
* **nothing beyond the release**: non-private options (diagnostics, raw weights,
  floating-point noise for the distinct count, non-private selections) are refused, and results
  carry no data-dependent extras (set-union results hold labels, not ids).

The session guards against its user, not against code that reads its private attributes.

Examples
--------
>>> from dpcount import PersonItemGraph
>>> g = PersonItemGraph.from_sets({f"p{i}": {i, i + 1, 1000} for i in range(200)})
>>> s = Session(g, epsilon=1.0)
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
import threading
import warnings
from collections.abc import Callable, Mapping
from types import MappingProxyType
from typing import Any, ClassVar, NoReturn, TypeVar

import numpy as np

from dpcount.errors import (
    BudgetExceededError,
    InvalidParameterError,
    ReleaseFailedError,
)
from dpcount.graph import PersonItemGraph
from dpcount.validation import check_delta, check_epsilon
from mechanisms import set_union
from mechanisms._defaults import DEFAULT_BETA
from mechanisms._result import Release, seeded_copy
from mechanisms.accounting import PrivacyLoss, exact_sum, fits
from mechanisms.bayesian_ngrams import LaplaceNgramResult, laplace_ngrams
from mechanisms.bayesian_ngrams._data import PublicCounts
from mechanisms.composition import Total, basic_total, compose, pld_total, zcdp_total
from mechanisms.distinct_count import PRIVATE_SELECTIONS, DistinctCountResult, dp_distinct_count
from mechanisms.privacy_loss import privacy_loss_of
from mechanisms.r2t import R2TResult, r2t
from mechanisms.set_union import SetUnionResult
from mechanisms.shifted_inverse import ShiftedInverseResult, shifted_inverse

__all__ = ["SeededSession", "Session", "SessionEntry"]

R = TypeVar("R", bound=Release)

#: Dry runs silence warnings with :class:`warnings.catch_warnings`, which is process-wide:
#: one lock for every session keeps two of them from restoring each other's filters.
_DRY_RUN = threading.Lock()


@dataclasses.dataclass(frozen=True)
class SessionEntry:
    """One charge of a session: what was asked for, what it cost, what was released.

    Attributes
    ----------
    mechanism
        The mechanism's name.
    parameters
        The parameters of the call (without data), read-only.
    privacy_loss
        The loss charged before the release.
    result
        The release, or ``None`` when the mechanism failed after the charge (or is running).
    """

    mechanism: str
    parameters: Mapping[str, Any]
    privacy_loss: PrivacyLoss
    result: Release | None = dataclasses.field(default=None, repr=False)


def _set_union_method(function: Callable[..., SetUnionResult]) -> Callable[..., SetUnionResult]:
    name = function.__name__

    def method(
        self: _BudgetedSession,
        epsilon: float,
        delta: float,
        *,
        max_items: int = 100,
        **options: Any,
    ) -> SetUnionResult:
        for refused in ("return_weights", "rng"):
            if refused in options:
                raise InvalidParameterError(
                    f"{refused} is not private and not available in a session"
                )
        params = {"epsilon": epsilon, "delta": delta, "max_items": max_items, **options}
        return self._release(name, function, (self._graph,), params)

    method.__name__ = method.__qualname__ = name
    method.__doc__ = (
        f":func:`mechanisms.set_union.{name}`, charged first; ``options`` are its other "
        "keyword arguments (``return_weights`` is refused)."
    )
    return method


class _BudgetedSession:
    """Data, an (ε, δ) budget and the private mechanisms; see :class:`Session`."""

    #: Whether the noise follows a caller's seed (:class:`SeededSession`).
    _SEEDED: ClassVar[bool] = False

    def __init__(
        self,
        data: Any,
        *,
        epsilon: float,
        delta: float,
        seeds: np.random.SeedSequence,
        read_options: Mapping[str, Any],
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
        self._seeds = seeds  # spawned once per release, under the lock
        self._lock = threading.Lock()
        self._log: list[SessionEntry] = []

    # ---- no copies -------------------------------------------------------------------------

    def _refuse_copy(self) -> NoReturn:
        raise TypeError(
            f"a {type(self).__name__} cannot be copied or pickled: each copy would spend the "
            "same budget again"
        )

    def __copy__(self) -> NoReturn:
        self._refuse_copy()

    def __deepcopy__(self, memo: Any) -> NoReturn:
        self._refuse_copy()

    def __reduce_ex__(self, protocol: Any) -> NoReturn:
        self._refuse_copy()

    # ---- the budget (read-only) --------------------------------------------------------------

    @property
    def budget(self) -> PrivacyLoss:
        """The (ε, δ) fixed at creation."""
        return PrivacyLoss(self._epsilon, self._delta, "session budget")

    @property
    def log(self) -> tuple[SessionEntry, ...]:
        """Every charge, in order, with its release."""
        with self._lock:
            return tuple(self._log)

    def _losses(self) -> list[PrivacyLoss]:
        with self._lock:
            return [e.privacy_loss for e in self._log]

    @property
    def spent(self) -> PrivacyLoss:
        """The composed loss of all charges from the tightest accountant, named in it.

        Basic (summed exactly as written: three releases of 0.5 spend 1.5), PLD
        (``dp-accounting``) or zCDP, whichever gives a meaningfully smaller ε with δ within
        the budget; see :func:`mechanisms.composition.compose`.
        """
        losses = self._losses()
        return compose(losses, self._delta).as_loss(len(losses))

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
        """What the session still admits: the budget minus the basic total, exactly."""
        losses = self._losses()
        eps = exact_sum([self._epsilon, *(-p.epsilon for p in losses)])
        dlt = exact_sum([self._delta, *(-p.delta for p in losses)])
        return PrivacyLoss(max(0.0, eps), max(0.0, dlt), "remaining budget")

    def can_afford(self, loss: PrivacyLoss) -> bool:
        """Whether ``loss`` composed with everything so far fits in the budget."""
        return loss.is_private and fits([*self._losses(), loss], self._epsilon, self._delta)

    def __repr__(self) -> str:
        losses = self._losses()
        spent = compose(losses, self._delta)
        seeded = "; seeded, NOT PRIVATE" if self._SEEDED else ""
        return (
            f"{type(self).__name__}(spent epsilon={spent.epsilon:g} of {self._epsilon:g}, "
            f"delta={spent.delta:g} of {self._delta:g} ({spent.accountant}), "
            f"releases={len(losses)}{seeded})"
        )

    # ---- charging ----------------------------------------------------------------------------

    def _charge(
        self, name: str, params: dict[str, Any], loss: PrivacyLoss
    ) -> tuple[int, np.random.Generator]:
        """Check the budget, record the charge and spawn the release's stream, atomically.

        Returns the charge's index in the log and the release's own child stream.
        """
        with self._lock:
            charged = [e.privacy_loss for e in self._log]
            if not (loss.is_private and fits([*charged, loss], self._epsilon, self._delta)):
                spent = basic_total(charged)
                raise BudgetExceededError(
                    f"{name} needs epsilon={loss.epsilon:g}"
                    + (f", delta={loss.delta:g}" if loss.delta else "")
                    + f" but the session has spent {spent.epsilon:g} of epsilon={self._epsilon:g}"
                    + (f" and {spent.delta:g} of delta={self._delta:g}" if loss.delta else "")
                )
            self._log.append(SessionEntry(name, MappingProxyType(dict(params)), loss))
            return len(self._log) - 1, np.random.default_rng(self._seeds.spawn(1)[0])

    def _record(self, entry_index: int, result: Release) -> None:
        with self._lock:
            entry = self._log[entry_index]
            self._log[entry_index] = dataclasses.replace(entry, result=result)

    def _release(
        self,
        name: str,
        function: Callable[..., R],
        data: tuple[Any, ...],
        params: dict[str, Any],
        fixed: Mapping[str, Any] | None = None,
    ) -> R:
        fixed = dict(fixed or {})
        loss = privacy_loss_of(name, **params)
        if not loss.is_private:
            raise InvalidParameterError(
                f"{name} with these parameters is not differentially private ({loss!r}); "
                "a session releases only private outputs"
            )
        empty = _empty_like(self._graph)
        with _DRY_RUN, warnings.catch_warnings():
            # The mechanism's own checks on empty data: whatever fails here fails on any data.
            warnings.simplefilter("ignore")
            function(empty, *data[1:], **params, **fixed, rng=0)
        index, rng = self._charge(name, params, loss)
        try:
            result = function(*data, **params, **fixed, rng=rng)
        except Exception:
            if self._SEEDED:
                raise  # research: the cause is shown
            failed = True
        else:
            failed = False
        if failed:  # raised outside the handler, so the cause is not even chained
            raise ReleaseFailedError(
                f"{name} failed after its charge of epsilon={loss.epsilon:g}"
                + (f", delta={loss.delta:g}" if loss.delta else "")
                + "; the cause is withheld since it may depend on the data (a SeededSession "
                "on test data shows it)"
            )
        if result.privacy_loss != loss:  # pragma: no cover - tested for every mechanism
            raise AssertionError(f"{name} spent {result.privacy_loss!r}, not what was charged")
        if self._SEEDED:
            result = seeded_copy(result)
        self._record(index, result)
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
    ) -> DistinctCountResult:
        """:func:`mechanisms.dp_distinct_count`, charged first (exact noise, private selections)."""
        if selection not in PRIVATE_SELECTIONS:
            raise InvalidParameterError(
                f"selection={selection!r} is not private and not available in a session; "
                f"use one of {PRIVATE_SELECTIONS}"
            )
        params: dict[str, Any] = {"epsilon": epsilon, "beta": beta, "ell_max": ell_max}
        params |= {"counting": counting, "selection": selection}
        return self._release("dp_distinct_count", dp_distinct_count, (self._graph,), params)

    def r2t(
        self,
        epsilon: float,
        *,
        max_contribution: int,
        beta: float = DEFAULT_BETA,
        base: float = 2,
    ) -> R2TResult:
        """:func:`mechanisms.r2t` with exact noise, charged first."""
        params = {"epsilon": epsilon, "beta": beta, "max_contribution": max_contribution}
        return self._release("r2t", r2t, (self._graph,), params | {"base": base})

    def shifted_inverse(
        self,
        epsilon: float,
        *,
        upper: float,
        beta: float = DEFAULT_BETA,
        step: float | None = None,
        log_domain: bool = True,
    ) -> ShiftedInverseResult:
        """:func:`mechanisms.shifted_inverse` with the LP inverse, charged first.

        The brute-force ``inverse="exact"`` is not offered: whether it runs depends on the
        number of persons.
        """
        params: dict[str, Any] = {"epsilon": epsilon, "beta": beta, "upper": upper, "step": step}
        params |= {"log_domain": log_domain}
        return self._release(
            "shifted_inverse", shifted_inverse, (self._graph,), params, {"inverse": "lp"}
        )

    def laplace_ngrams(
        self,
        public_counts: PublicCounts,
        epsilon: float,
        *,
        max_contribution: int,
    ) -> LaplaceNgramResult:
        """:func:`mechanisms.bayesian_ngrams.laplace_ngrams` (worst-case ε-DP), charged first.

        The data must carry n-gram counts; ``public_counts`` is public and fixes the vocabulary.
        Data that share nothing with it give the noise of zero counts (never an error).
        """
        params = {"epsilon": epsilon, "max_contribution": max_contribution}
        data = (self._graph, public_counts)
        return self._release(
            "laplace_ngrams", laplace_ngrams, data, params, {"require_overlap": False}
        )

    count_laplace = _set_union_method(set_union.count_laplace)
    count_gaussian = _set_union_method(set_union.count_gaussian)
    weighted_laplace = _set_union_method(set_union.weighted_laplace)
    weighted_gaussian = _set_union_method(set_union.weighted_gaussian)
    policy_laplace = _set_union_method(set_union.policy_laplace)
    policy_gaussian = _set_union_method(set_union.policy_gaussian)
    max_adaptive_degree = _set_union_method(set_union.max_adaptive_degree)
    dp_sips = _set_union_method(set_union.dp_sips)


class Session(_BudgetedSession):
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
    **read_options
        Passed to :func:`dpcount.read_pairs` (``person=``, ``item=``, ``count=``, ``sql=`` …).

    Raises
    ------
    InvalidParameterError
        For an ε or δ out of range.

    Notes
    -----
    The noise comes from operating-system entropy and nothing lets the caller choose it; for
    reproducible research runs use :class:`SeededSession`, whose results say they are not
    private.  A session cannot be copied or pickled, and its charges are atomic under threads.

    The budget is enforced with basic composition (ε's and δ's add, exactly as written), which
    stays valid when each release is chosen after seeing the earlier ones (a privacy filter;
    Rogers, Roth, Ullman & Vadhan 2016).  :attr:`spent` reports the tightest total of
    :func:`mechanisms.composition.compose` — basic, PLD (``dp-accounting``) or zCDP — and names
    its accountant; the PLD and zCDP totals hold for the releases as a sequence fixed in
    advance.  :attr:`remaining` is what the enforced (basic) total leaves.

    Examples
    --------
    >>> from dpcount import PersonItemGraph
    >>> g = PersonItemGraph.from_sets({f"u{k}": {"the", "a", f"w{k}"} for k in range(300)})
    >>> s = Session(g, epsilon=2.0, delta=1e-6)
    >>> import warnings
    >>> with warnings.catch_warnings():
    ...     warnings.simplefilter("ignore")  # set union draws floating-point noise
    ...     words = s.weighted_gaussian(1.0, 1e-6, max_items=3)
    >>> sorted(words.items.tolist()), [e.mechanism for e in s.log]
    (['a', 'the'], ['weighted_gaussian'])
    """

    def __init__(
        self, data: Any = None, *, epsilon: float, delta: float = 0.0, **read_options: Any
    ) -> None:
        if "rng" in read_options or "seed" in read_options:
            raise InvalidParameterError(
                "a Session draws its own randomness and takes no rng or seed; for reproducible "
                "research runs (not private) use mechanisms.SeededSession(..., seed=...)"
            )
        # No entropy given: numpy draws 128 bits from the operating system (secrets).
        super().__init__(
            data,
            epsilon=epsilon,
            delta=delta,
            seeds=np.random.SeedSequence(),
            read_options=read_options,
        )


class SeededSession(_BudgetedSession):
    """A :class:`Session` whose noise follows a seed: reproducible, and **not private**.

    For research, tests and teaching: the same seed, data and calls give the same results.
    Whoever knows the seed can recompute the noise and subtract it, so every result it hands
    out is marked ``seeded`` (``is_private`` false; its text and JSON say "seeded, not
    private"), and a failure after a charge shows its cause.  The budget is enforced exactly
    as in a :class:`Session`.  It is not a :class:`Session` (``isinstance`` tells them apart).

    Parameters
    ----------
    data, epsilon, delta, **read_options
        As for :class:`Session`.
    seed
        A non-negative integer; each release draws from its own child stream of it.

    Examples
    --------
    >>> from dpcount import PersonItemGraph
    >>> g = PersonItemGraph.from_sets({f"p{i}": {i, i + 1, 1000} for i in range(200)})
    >>> a = SeededSession(g, epsilon=1.0, seed=7).dp_distinct_count(0.5, ell_max=10)
    >>> b = SeededSession(g, epsilon=1.0, seed=7).dp_distinct_count(0.5, ell_max=10)
    >>> a.estimate == b.estimate, a.seeded, a.is_private
    (True, True, False)
    """

    _SEEDED: ClassVar[bool] = True

    def __init__(
        self,
        data: Any = None,
        *,
        epsilon: float,
        delta: float = 0.0,
        seed: int,
        **read_options: Any,
    ) -> None:
        if isinstance(seed, bool) or not isinstance(seed, int | np.integer) or seed < 0:
            raise InvalidParameterError(f"seed must be a non-negative integer, got {seed!r}")
        self._seed = int(seed)
        super().__init__(
            data,
            epsilon=epsilon,
            delta=delta,
            seeds=np.random.SeedSequence(self._seed),
            read_options=read_options,
        )

    @property
    def seed(self) -> int:
        """The seed every release's stream is spawned from."""
        return self._seed


def _empty_like(graph: PersonItemGraph) -> PersonItemGraph:
    """A graph with no pairs (with counts if ``graph`` has them), for parameter checks."""
    counts = None if graph.counts is None else np.zeros(0, dtype=graph.counts.dtype)
    return PersonItemGraph.from_pairs(
        np.array([], dtype=object), np.array([], dtype=object), counts
    )
