"""Every mechanism of the package, found from its declaration (:mod:`mechanisms.declaration`).

* :func:`names` — the mechanisms' names, optionally of one family or engine.  It reads the
  ``@register(...)`` lines from the package's source files without importing them, so listing
  names stays light (``dpcount union --help`` loads no compiled kernels).
* :func:`get` / :func:`declarations` — the full :class:`~mechanisms.declaration.Declaration`:
  these import the mechanism's module.
* :func:`engine_adapter` — an engine's adapter (``mechanisms.<engine>.adapter``), through which
  a mechanism called with that engine's data handle runs there; imported on first use.

Adding a mechanism touches one module: write the function (data first, ``rng`` last, a frozen
:class:`~mechanisms.Release` result whose ``privacy_loss`` is its loss function's value) and its
loss function, and decorate the function with ``@register(family=..., loss=..., engines=...)``.
It then has a :class:`~mechanisms.Session` method (unless nominal), a
:func:`~mechanisms.privacy_loss_of` entry, a name in ``mechanisms`` and, in its family, a CLI
choice; ``tests/mechanisms/test_registry.py`` asks for one call of it on test data and checks
that the result's loss is the declared one (docs/budget.md, "Adding a mechanism").

Examples
--------
>>> names(family="set_union", engine="spark")  # doctest: +NORMALIZE_WHITESPACE
('count_gaussian', 'count_laplace', 'dp_sips', 'max_adaptive_degree',
 'weighted_gaussian', 'weighted_laplace')
>>> get("r2t").family, get("r2t").data
('distinct_count', 'graph')
"""

from __future__ import annotations

import ast
import functools
import importlib
import re
from collections.abc import Iterator
from dataclasses import dataclass
from importlib.resources import files
from importlib.resources.abc import Traversable

from dpcount.errors import InvalidParameterError
from mechanisms.declaration import (
    ATTRIBUTE,
    ENGINES,
    FAMILIES,
    Declaration,
    EngineAdapter,
    use_engine_adapters,
)

__all__ = [
    "DEFAULT_SET_UNION",
    "Entry",
    "declarations",
    "engine_adapter",
    "entry",
    "get",
    "names",
    "registered_modules",
]

#: The set-union mechanism every front end runs when none is named (``dpcount union`` on both
#: engines, :func:`mechanisms.spark.set_union`): DP-SIPS draws exact noise (``secure=True``),
#: runs on both engines and releases within a few per cent of Policy Gaussian
#: (benchmarks/results/set_union.md), which still draws floating-point noise.
DEFAULT_SET_UNION = "dp_sips"

_MARK = "@register("
#: A top-level ``@register(...)`` line (or lines) and the function it decorates.
_DECORATED = re.compile(
    r"^@register\((?P<args>.*?)\)[ \t]*\n(?:@[^\n]*\n)*def (?P<name>\w+)\(",
    re.MULTILINE | re.DOTALL,
)


@dataclass(frozen=True)
class Entry:
    """What the source says of a mechanism before it is imported."""

    name: str
    module: str
    family: str
    engines: tuple[str, ...]
    nominal: bool


def names(family: str | None = None, engine: str | None = None) -> tuple[str, ...]:
    """The registered mechanisms' names, sorted, of ``family`` and ``engine`` if given.

    Examples
    --------
    >>> "dp_distinct_count" in names(engine="spark"), names(family="grouped_count")
    (True, ('grouped_distinct_count',))
    """
    if family is not None and family not in FAMILIES:
        raise InvalidParameterError(f"family must be one of {tuple(FAMILIES)}, got {family!r}")
    if engine is not None and engine not in ENGINES:
        raise InvalidParameterError(f"engine must be one of {ENGINES}, got {engine!r}")
    return tuple(
        e.name
        for e in _entries().values()
        if (family is None or e.family == family) and (engine is None or engine in e.engines)
    )


def registered_modules() -> dict[str, str]:
    """Every registered mechanism's name and the module that defines it (no import).

    Examples
    --------
    >>> registered_modules()["r2t"]
    'mechanisms.race_to_the_top'
    """
    return {e.name: e.module for e in _entries().values()}


def entry(name: str) -> Entry:
    """The source's entry for ``name`` (no import); refuses unknown names."""
    found = _entries().get(name)
    if found is None:
        raise InvalidParameterError(
            f"no mechanism is registered as {name!r}; known: {', '.join(_entries())}"
        )
    return found


@functools.cache
def get(name: str) -> Declaration:
    """The declaration of mechanism ``name`` (imports its module)."""
    found = entry(name)
    module = importlib.import_module(found.module)
    declaration = getattr(getattr(module, found.name), ATTRIBUTE)
    assert isinstance(declaration, Declaration)
    if (declaration.family, declaration.engines, declaration.nominal) != (
        found.family,
        found.engines,
        found.nominal,
    ):  # pragma: no cover - the registry test compares every entry
        raise AssertionError(f"the source of {name} does not read as its declaration")
    return declaration


def declarations(family: str | None = None, engine: str | None = None) -> tuple[Declaration, ...]:
    """The declarations of :func:`names` (imports their modules)."""
    return tuple(get(name) for name in names(family, engine))


def engine_adapter(engine: str) -> EngineAdapter:
    """The adapter of ``engine`` (one of :data:`~mechanisms.declaration.ENGINES` but
    ``"local"``): the module ``mechanisms.<engine>.adapter``, imported on first use (like a
    mechanism's module, by the name the registry knows, so that the mechanisms below need not
    import the engines above them).

    Examples
    --------
    >>> engine_adapter("local")
    Traceback (most recent call last):
    ...
    dpcount.errors.InvalidParameterError: engine must be one of ('spark',), got 'local'
    """
    others = tuple(e for e in ENGINES if e != "local")
    if engine not in others:
        raise InvalidParameterError(f"engine must be one of {others}, got {engine!r}")
    adapter: EngineAdapter = importlib.import_module(f"{__package__}.{engine}.adapter")
    return adapter


use_engine_adapters(engine_adapter)


@functools.cache
def _entries() -> dict[str, Entry]:
    """Every ``@register`` of the package's source, by name (sorted)."""
    found: dict[str, Entry] = {}
    for module, text in _sources(files(__package__ or "mechanisms"), "mechanisms"):
        if _MARK not in text:
            continue
        for item in _read(text, module):
            if item.name in found:
                raise AssertionError(f"two mechanisms are registered as {item.name!r}")
            found[item.name] = item
    return dict(sorted(found.items()))


def _sources(folder: Traversable, package: str) -> Iterator[tuple[str, str]]:
    """(module name, source) of every module under ``folder``, through the import system's
    resource reader, so that a package shipped in a zip (``spark-submit --py-files``) finds its
    mechanisms too."""
    for child in sorted(folder.iterdir(), key=lambda c: c.name):
        if child.is_dir() and child.name != "__pycache__":
            yield from _sources(child, f"{package}.{child.name}")
        elif child.name.endswith(".py"):
            stem = child.name.removesuffix(".py")
            module = package if stem == "__init__" else f"{package}.{stem}"
            yield module, child.read_text(encoding="utf-8")


def _read(text: str, module: str) -> list[Entry]:
    """The entries of one module: its top-level functions decorated with ``register(...)``.

    Only the decorators are parsed (parsing whole modules would double the CLI's start-up).
    """
    out = []
    for match in _DECORATED.finditer(text):
        call = ast.parse(f"register({match['args']})", mode="eval").body
        assert isinstance(call, ast.Call)
        given = {k.arg: k.value for k in call.keywords if k.arg is not None}
        engines = _literal(given, "engines", ("local",), module)
        out.append(
            Entry(
                name=match["name"],
                module=module,
                family=str(_literal(given, "family", None, module)),
                engines=tuple(engines) if isinstance(engines, tuple) else (),
                nominal=bool(_literal(given, "nominal", False, module)),
            )
        )
    return out


def _literal(given: dict[str, ast.expr], key: str, default: object, module: str) -> object:
    if key not in given:
        if default is None:
            raise AssertionError(f"a @register in {module} names no {key}")
        return default
    try:
        return ast.literal_eval(given[key])
    except ValueError as exc:
        raise AssertionError(f"@register({key}=...) in {module} must be a literal") from exc
