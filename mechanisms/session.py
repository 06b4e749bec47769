"""A privacy budget that is enforced: every release is charged before any noise is drawn.

A :class:`Session` holds the data and an (ε, δ) budget fixed at creation.  Its methods are the
private mechanisms — one per mechanism registered with a worst-case guarantee
(:mod:`mechanisms.registry`), made from its declaration, and the generic
:meth:`Session.release` they call; each call

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
import functools
import threading
import warnings
from collections.abc import Callable, Mapping
from fractions import Fraction
from types import MappingProxyType
from typing import TYPE_CHECKING, Any, ClassVar, NoReturn

import numpy as np

from dpcount.common.engines import EngineData
from dpcount.errors import (
    BudgetExceededError,
    InvalidParameterError,
    ReleaseFailedError,
)
from dpcount.graph import GroupedGraph, PersonItemGraph
from dpcount.validation import check_delta, check_epsilon
from mechanisms import registry
from mechanisms.accounting import PrivacyLoss, as_written
from mechanisms.composition import Total, basic_total, compose, pld_total, zcdp_total
from mechanisms.declaration import Declaration
from mechanisms.privacy_loss import privacy_loss_of
from mechanisms.release import Release, seeded_copy

__all__ = ["SeededSession", "Session", "SessionEntry"]

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
        # What engine data allow (EngineData.check), decided before any charge.
        self._allowed: Mapping[str, bool] = {}
        if isinstance(data, PersonItemGraph | GroupedGraph | EngineData):
            if read_options:
                raise InvalidParameterError(
                    f"read options {sorted(read_options)} apply to files, not to a graph"
                )
            if isinstance(data, EngineData):  # what a release could refuse, decided here
                self._allowed = data.check()
            self._data: PersonItemGraph | GroupedGraph | EngineData = data
        else:
            from dpcount.io import read_pairs

            self._data = read_pairs(data, **read_options)
        self._seeds = seeds  # spawned once per release, under the lock
        self._lock = threading.Lock()
        self._log: list[SessionEntry] = []
        # The basic totals, exactly as written, kept up to date under the lock.
        self._charged = (Fraction(0), Fraction(0))

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
        with self._lock:
            eps, dlt = self._charged
        eps_left = max(as_written(self._epsilon) - eps, Fraction(0))
        dlt_left = max(as_written(self._delta) - dlt, Fraction(0))
        return PrivacyLoss(float(eps_left), float(dlt_left), "remaining budget")

    def can_afford(self, loss: PrivacyLoss) -> bool:
        """Whether ``loss`` composed with everything so far fits in the budget."""
        with self._lock:
            return self._fits(loss)

    def _fits(self, loss: PrivacyLoss) -> bool:
        """Whether ``loss`` fits in what is left (basic composition, exactly; lock held)."""
        if not loss.is_private:
            return False
        eps, dlt = self._charged
        return eps + as_written(loss.epsilon) <= as_written(self._epsilon) and dlt + as_written(
            loss.delta
        ) <= as_written(self._delta)

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
            eps, dlt = self._charged
            if not self._fits(loss):
                raise BudgetExceededError(
                    f"{name} needs epsilon={loss.epsilon:g}"
                    + (f", delta={loss.delta:g}" if loss.delta else "")
                    + f" but the session has spent {float(eps):g} of epsilon={self._epsilon:g}"
                    + (f" and {float(dlt):g} of delta={self._delta:g}" if loss.delta else "")
                )
            self._charged = (eps + as_written(loss.epsilon), dlt + as_written(loss.delta))
            self._log.append(SessionEntry(name, MappingProxyType(dict(params)), loss))
            return len(self._log) - 1, np.random.default_rng(self._seeds.spawn(1)[0])

    def _record(self, entry_index: int, result: Release) -> None:
        with self._lock:
            entry = self._log[entry_index]
            self._log[entry_index] = dataclasses.replace(entry, result=result)

    def release(self, mechanism: str, /, **params: Any) -> Any:
        """Charge and run the registered mechanism ``mechanism`` with ``params``.

        The named methods (``session.dp_distinct_count(...)`` …) call this.  ``params`` are
        the mechanism's keyword arguments without its data and ``rng``; the parameters a
        session fixes (non-private outputs, floating-point noise …) are refused.

        Raises
        ------
        InvalidParameterError
            For an unknown or nominal mechanism, data of the other kind, a parameter the
            mechanism does not take or the session fixes, or an invalid value — all before
            any charge.
        BudgetExceededError
            When the release would exceed the budget (nothing is drawn).
        ReleaseFailedError
            When the mechanism fails after its charge (the cause is withheld).
        """
        declaration = self._offered(mechanism)
        for key in params:
            if key in ("rng", "seed"):
                raise InvalidParameterError(
                    f"{key} is not available in a session, which draws its own randomness "
                    "(a SeededSession reproduces runs for research)"
                )
            if key in declaration.session:
                raise InvalidParameterError(
                    f"{key} is not private or not safe in a session and is fixed to "
                    f"{declaration.session[key]!r} there"
                )
            if key not in declaration.session_parameters() and key not in declaration.inputs:
                raise InvalidParameterError(f"{mechanism} has no parameter {key!r}")
        inputs = {k: v for k, v in params.items() if k in declaration.inputs}
        options = {k: v for k, v in params.items() if k not in declaration.inputs}
        loss = privacy_loss_of(mechanism, **options)
        if not loss.is_private:
            raise InvalidParameterError(
                f"{mechanism} with these parameters is not private ({loss!r}); a session "
                "releases only differentially private outputs"
            )
        call = functools.partial(declaration.function, **inputs, **options, **declaration.session)
        if isinstance(self._data, EngineData):  # what the engine cannot do, refused without it
            adapter = registry.engine_adapter(self._data.engine)
            given = {**inputs, **options, **declaration.session}
            adapter.engine_arguments(declaration, given, self._allowed)
        empty = _empty_like(self._data)
        with _DRY_RUN, warnings.catch_warnings():
            # The mechanism's own checks on empty data: whatever fails here fails on any data.
            warnings.simplefilter("ignore")
            call(**{declaration.data: empty}, rng=0)
        index, rng = self._charge(mechanism, options, loss)
        try:
            result = call(**{declaration.data: self._data}, rng=rng)
        except Exception:
            if self._SEEDED:
                raise  # research: the cause is shown
            failed = True
        else:
            failed = False
        if failed:  # raised outside the handler, so the cause is not even chained
            raise ReleaseFailedError(
                f"{mechanism} failed after its charge of epsilon={loss.epsilon:g}"
                + (f", delta={loss.delta:g}" if loss.delta else "")
                + "; the cause is withheld since it may depend on the data (a SeededSession "
                "on test data shows it)"
            )
        if result.privacy_loss != loss:  # pragma: no cover - tested for every mechanism
            raise AssertionError(f"{mechanism} spent {result.privacy_loss!r}, not its charge")
        if self._SEEDED:
            result = seeded_copy(result)
        self._record(index, result)
        return result

    def _offered(self, mechanism: str) -> Declaration:
        """The declaration of a mechanism this session offers on its data, or a refusal."""
        if mechanism not in offered():
            raise InvalidParameterError(
                f"a session offers no mechanism {mechanism!r}"
                + (" (its guarantee is nominal only)" if mechanism in registry.names() else "")
                + f"; it offers {', '.join(offered())}"
            )
        declaration = registry.get(mechanism)
        kind = "grouped" if isinstance(self._data, GroupedGraph) else "graph"
        if declaration.dataset != kind:
            raise InvalidParameterError(
                f"{mechanism} needs "
                + (
                    "grouped data: create the session from a GroupedGraph or read with group=..."
                    if declaration.dataset == "grouped"
                    else "person-item data, and this session holds grouped data"
                )
            )
        if isinstance(self._data, EngineData):
            declaration.check_engine(self._data.engine)
        return declaration

    if TYPE_CHECKING:  # the mechanisms' methods are made from the registry (see below)

        def __getattr__(self, name: str) -> Callable[..., Any]: ...


def offered() -> tuple[str, ...]:
    """The mechanisms a session offers: every registered one with a worst-case guarantee.

    Examples
    --------
    >>> "dp_distinct_count" in offered(), "bayesian_dp" in offered()
    (True, False)
    """
    return tuple(name for name in registry.names() if not registry.entry(name).nominal)


def _method(declaration: Declaration) -> Callable[..., Any]:
    """The session method of one mechanism: its parameters (inputs first), then ``release``."""
    name = declaration.name
    signature = declaration.session_signature()
    listed = list(signature.parameters.values())[1:]  # without self
    positional = [p.name for p in listed if p.kind is p.POSITIONAL_OR_KEYWORD]
    required = [p.name for p in listed if p.default is p.empty]

    def method(self: _BudgetedSession, *args: Any, **kwargs: Any) -> Any:
        if len(args) > len(positional):
            raise TypeError(
                f"{name}() takes {len(positional)} positional arguments but {len(args)} were given"
            )
        params = dict(zip(positional, args, strict=False))
        for key, value in kwargs.items():
            if key in params:
                raise TypeError(f"{name}() got multiple values for argument {key!r}")
            params[key] = value
        missing = [key for key in required if key not in params]
        if missing:
            raise TypeError(f"{name}() missing required arguments {missing}")
        return self.release(name, **params)

    fixed = ", ".join(f"``{k}={v!r}``" for k, v in declaration.session.items())
    path = f"{declaration.module}.{name}".replace(".bayesian_ngrams.laplace", ".bayesian_ngrams")
    method.__name__ = name
    method.__qualname__ = f"Session.{name}"
    method.__signature__ = signature  # type: ignore[attr-defined]
    method.__doc__ = (
        f":func:`~{path}` on the session's data, charged before any noise is drawn."
        + (f"\n\nFixed in a session: {fixed}." if fixed else "")
        + "\n\nSee :meth:`Session.release` for what is refused and raised."
    )
    return method


for _name in offered():
    setattr(_BudgetedSession, _name, _method(registry.get(_name)))
del _name


class Session(_BudgetedSession):
    """Data plus an (ε, δ) budget; private mechanisms that charge the budget before releasing.

    Parameters
    ----------
    data
        A :class:`dpcount.PersonItemGraph`, a :class:`dpcount.GroupedGraph` (for
        ``grouped_distinct_count``), an engine's pairs (:class:`dpcount.spark.SparkPairs`:
        the mechanisms declared for Spark run there, their data checks run once here), or
        anything :func:`dpcount.read_pairs` accepts (a path or glob; ``None`` with
        ``sql=...``), read with ``read_options`` (``group=`` reads grouped data).
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


def _empty_like(
    data: PersonItemGraph | GroupedGraph | EngineData,
) -> PersonItemGraph | GroupedGraph:
    """Data of the same kind with no pairs (with counts if ``data`` has them), for the checks;
    a graph for an engine's pairs (the engine's mechanism takes the local one's parameters)."""
    empty = np.array([], dtype=object)
    if isinstance(data, GroupedGraph):
        return GroupedGraph.from_triples(empty, empty, empty)
    counts = (
        None
        if isinstance(data, EngineData) or data.counts is None
        else np.zeros(0, dtype=data.counts.dtype)
    )
    return PersonItemGraph.from_pairs(empty, empty, counts)
