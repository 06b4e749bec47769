"""How a mechanism declares itself, once, beside its code: privacy map, data, family, engines.

Every mechanism module decorates each of its mechanisms with :func:`register`::

    @register(family="distinct_count", loss=r2t_loss, engines=("local",))
    def r2t(graph, epsilon, *, max_contribution, ..., rng=None) -> R2TResult: ...

The declaration is the mechanism's *privacy map* (OpenDP's word): ``loss`` gives the
:class:`~mechanisms.accounting.PrivacyLoss` from the parameters alone, and the result of every
call records exactly that loss.  :mod:`mechanisms.registry` collects the declarations, and
everything that lists or charges mechanisms derives from it: :func:`mechanisms.privacy_loss_of`,
the methods of :class:`mechanisms.Session` (and its generic ``release``), the names
``mechanisms`` exports, the CLI's algorithm choices and the mechanisms each engine offers.

``family`` and ``engines`` must be written as literals: the registry reads them from the source
without importing the module, so that listing names (the CLI's ``--help``) stays light.

**Engines.**  A mechanism is called the same way on every engine: data held elsewhere comes
as a handle (a :class:`dpcount.common.engines.EngineData`, e.g.
:class:`dpcount.spark.SparkPairs`), and the decorated function hands such a call to that
engine's adapter — when the declaration lists the engine; otherwise it refuses in one line
before any work.  The adapters are found by :mod:`mechanisms.registry`, which installs its
lookup here when ``mechanisms`` is imported (:func:`use_engine_adapters`).

This module imports nothing of the package, so that every mechanism module can import it
without a cycle.

Examples
--------
>>> from mechanisms.accounting import PrivacyLoss
>>> def toy_loss(epsilon: float) -> PrivacyLoss:
...     return PrivacyLoss(epsilon, description="toy")
>>> @register(family="distinct_count", loss=toy_loss)
... def toy(graph, epsilon, *, rng=None):
...     ...
>>> toy.__mechanism__.name, toy.__mechanism__.engines, toy.__mechanism__.session_parameters()
('toy', ('local',), ('epsilon',))
"""

from __future__ import annotations

import functools
import inspect
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field, replace
from types import MappingProxyType
from typing import TYPE_CHECKING, Any, Protocol, TypeVar

from dpcount.common.engines import EngineData
from dpcount.errors import InvalidParameterError

if TYPE_CHECKING:
    from mechanisms.accounting import PrivacyLoss

__all__ = ["ENGINES", "FAMILIES", "Declaration", "EngineAdapter", "register", "use_engine_adapters"]

#: Families of mechanisms, and the kind of private data each takes: ``"graph"`` a
#: :class:`dpcount.PersonItemGraph`, ``"grouped"`` a :class:`dpcount.GroupedGraph`.
FAMILIES: Mapping[str, str] = MappingProxyType(
    {
        "distinct_count": "graph",
        "set_union": "graph",
        "ngrams": "graph",
        "grouped_count": "grouped",
    }
)
#: Where a mechanism can run: this process, or Apache Spark (:mod:`mechanisms.spark`, whose data
#: handle is :class:`dpcount.spark.SparkPairs`).
ENGINES = ("local", "spark")
#: The attribute that carries a mechanism's declaration.
ATTRIBUTE = "__mechanism__"

F = TypeVar("F", bound=Callable[..., Any])


@dataclass(frozen=True)
class Declaration:
    """A mechanism and what is known about it without data.

    Attributes
    ----------
    function
        The mechanism.
    loss
        Its privacy map: keyword arguments (a subset of the mechanism's, with the same
        defaults) → the :class:`~mechanisms.accounting.PrivacyLoss` every result records.
    family
        One of :data:`FAMILIES`.
    engines
        The engines it runs on (:data:`ENGINES`); ``"local"`` always.
    data
        The parameter that takes the private data.
    inputs
        Parameters that take further, public inputs (e.g. the public n-gram counts).
    nominal
        ``True`` when the loss is only nominal (noise calibrated to a local sensitivity):
        such a mechanism is never offered by a :class:`~mechanisms.Session`.
    session
        Parameters a session fixes (and refuses from the caller): non-private outputs,
        floating-point noise, options whose failure would depend on the data.
    """

    function: Callable[..., Any]
    loss: Callable[..., PrivacyLoss]
    family: str
    engines: tuple[str, ...]
    data: str
    inputs: tuple[str, ...] = ()
    nominal: bool = False
    session: Mapping[str, Any] = field(default_factory=lambda: MappingProxyType({}))

    @property
    def name(self) -> str:
        """The mechanism's name (its function's)."""
        return self.function.__name__

    @property
    def module(self) -> str:
        """The module that defines it."""
        return self.function.__module__

    @property
    def dataset(self) -> str:
        """The kind of private data it takes: ``"graph"`` or ``"grouped"``."""
        return FAMILIES[self.family]

    def parameters(self) -> Mapping[str, inspect.Parameter]:
        """The mechanism's parameters other than its data, inputs and ``rng``."""
        skip = {self.data, *self.inputs, "rng"}
        return {
            name: p
            for name, p in inspect.signature(self.function).parameters.items()
            if name not in skip
        }

    def loss_parameters(self) -> tuple[str, ...]:
        """The parameters the privacy map reads (a subset of :meth:`parameters`)."""
        return tuple(inspect.signature(self.loss).parameters)

    def session_parameters(self) -> tuple[str, ...]:
        """The parameters a session takes from its caller (without the fixed ones)."""
        return tuple(name for name in self.parameters() if name not in self.session)

    def session_signature(self) -> inspect.Signature:
        """The signature of the session's method: ``self``, the inputs, the parameters."""
        own = inspect.signature(self.function).parameters
        keep = [*self.inputs, *self.session_parameters()]
        params = [own[name] for name in own if name in keep]
        this = inspect.Parameter("self", inspect.Parameter.POSITIONAL_OR_KEYWORD)
        return inspect.Signature([this, *params], return_annotation=self._return_annotation())

    def _return_annotation(self) -> Any:
        return inspect.signature(self.function).return_annotation

    def check_engine(self, engine: str) -> None:
        """Refuse, in one line, an engine this mechanism is not declared for.

        Examples
        --------
        >>> from mechanisms import registry
        >>> registry.get("r2t").check_engine("spark")
        Traceback (most recent call last):
        ...
        dpcount.errors.InvalidParameterError: r2t does not run on spark (its engines: local); ...
        """
        if engine not in self.engines:
            raise InvalidParameterError(
                f"{self.name} does not run on {engine} (its engines: {', '.join(self.engines)}); "
                "collect the data to a graph first"
            )


class EngineAdapter(Protocol):
    """What an engine offers the mechanisms (:mod:`mechanisms.spark.adapter` for Spark)."""

    def release(self, declaration: Declaration, data: Any, arguments: Mapping[str, Any]) -> Any:
        """Run the mechanism on the engine's ``data`` with the caller's ``arguments``."""
        ...  # pragma: no cover - a protocol

    def engine_arguments(
        self,
        declaration: Declaration,
        arguments: Mapping[str, Any],
        allowed: Mapping[str, bool] | None = None,
    ) -> Mapping[str, Any]:
        """The engine's arguments for the call; refuses what the engine cannot do, and what
        the data do not allow (``allowed``: :meth:`~dpcount.common.engines.EngineData.check`)."""
        ...  # pragma: no cover - a protocol


#: engine name -> its adapter; installed by mechanisms.registry (see use_engine_adapters).
_ADAPTER_OF: list[Callable[[str], EngineAdapter]] = []


def use_engine_adapters(lookup: Callable[[str], EngineAdapter]) -> None:
    """Install how a decorated mechanism finds an engine's adapter (the registry's lookup).

    :mod:`mechanisms.registry` calls it when it is imported, which ``import mechanisms`` does
    before any mechanism module runs; the adapter is imported on the first call with that
    engine's data only.
    """
    _ADAPTER_OF[:] = [lookup]


def engine_adapter(engine: str) -> EngineAdapter:
    """The adapter installed for ``engine``."""
    if not _ADAPTER_OF:  # pragma: no cover - import mechanisms installs it
        raise RuntimeError("no engine adapters installed: import mechanisms first")
    return _ADAPTER_OF[0](engine)


def register(
    *,
    family: str,
    loss: Callable[..., PrivacyLoss],
    engines: tuple[str, ...] = ("local",),
    data: str = "graph",
    inputs: tuple[str, ...] = (),
    nominal: bool = False,
    session: Mapping[str, Any] | None = None,
) -> Callable[[F], F]:
    """Declare the decorated function a mechanism (see the module docstring).

    Parameters
    ----------
    family
        One of :data:`FAMILIES`, as a literal.
    loss
        The privacy map: takes the mechanism's privacy parameters (a subset of its keyword
        arguments, with the same defaults) and returns the loss every result records.
    engines
        The engines it runs on, as a literal tuple (default: this process only).
    data
        The name of the parameter that takes the private data (default ``"graph"``).
    inputs
        Names of parameters that take public inputs besides the parameters.
    nominal
        The loss is nominal only (local sensitivity): no session offers it.
    session
        Parameters a session passes with these values and refuses from its caller.

    Raises
    ------
    TypeError
        For a declaration that does not match the function (an unknown family or engine, a
        data, input, loss or session parameter it does not take, no ``rng`` parameter).
    """
    fixed = MappingProxyType(dict(session or {}))

    def decorate(function: F) -> F:
        declaration = Declaration(
            function=function,
            loss=loss,
            family=family,
            engines=tuple(engines),
            data=data,
            inputs=tuple(inputs),
            nominal=nominal,
            session=fixed,
        )
        _check(declaration)
        return _on_every_engine(declaration)

    return decorate


def _on_every_engine(declaration: Declaration) -> Any:
    """The mechanism as callers get it: its own function for local data, the engine's adapter
    for an engine's data handle (refused when the declaration does not list that engine)."""
    function = declaration.function
    signature = inspect.signature(function)
    position = list(signature.parameters).index(declaration.data)

    @functools.wraps(function)
    def mechanism(*args: Any, **kwargs: Any) -> Any:
        data = args[position] if len(args) > position else kwargs.get(declaration.data)
        if not isinstance(data, EngineData):
            return function(*args, **kwargs)
        declaration.check_engine(data.engine)
        arguments = dict(signature.bind(*args, **kwargs).arguments)
        del arguments[declaration.data]
        return engine_adapter(data.engine).release(declared, data, arguments)

    declared = replace(declaration, function=mechanism)
    setattr(mechanism, ATTRIBUTE, declared)
    return mechanism


def _check(d: Declaration) -> None:
    """Refuse a declaration that does not fit its function (a programming error)."""
    where = f"@register of {d.module}.{d.name}"
    if d.family not in FAMILIES:
        raise TypeError(f"{where}: family must be one of {tuple(FAMILIES)}, got {d.family!r}")
    if "local" not in d.engines or not set(d.engines) <= set(ENGINES):
        raise TypeError(f"{where}: engines must include 'local' and lie in {ENGINES}")
    taken = inspect.signature(d.function).parameters
    needed = {d.data, *d.inputs, "rng", *d.session}
    missing = sorted(needed - set(taken))
    if missing:
        raise TypeError(f"{where}: {d.name} takes no parameter {missing}")
    for name, p in inspect.signature(d.loss).parameters.items():
        if name not in taken or name in (d.data, *d.inputs, "rng"):
            raise TypeError(f"{where}: the loss takes {name!r}, which is no parameter of {d.name}")
        if p.default is not taken[name].default:
            if p.default != taken[name].default:
                raise TypeError(
                    f"{where}: the loss's default {name}={p.default!r} differs from the "
                    f"mechanism's {taken[name].default!r}"
                )
