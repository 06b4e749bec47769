"""Package attributes imported on first access (PEP 562), so that importing a package is light.

Examples
--------
>>> namespace = {"__name__": "pkg"}
>>> getattr_, dir_ = lazy_attributes(namespace, {"sqrt": "math"}, ["sqrt"])
>>> getattr_("sqrt")(4.0), "sqrt" in namespace, dir_()
(2.0, True, ['sqrt'])
"""

from __future__ import annotations

import sys
import types
from collections.abc import Callable, Mapping, MutableMapping, Sequence
from importlib import import_module
from typing import Any

__all__ = ["lazy_attributes"]


def lazy_attributes(
    namespace: MutableMapping[str, Any], lazy: Mapping[str, str], public: Sequence[str]
) -> tuple[Callable[[str], Any], Callable[[], list[str]]]:
    """A module's ``__getattr__`` and ``__dir__`` that import ``lazy[name]`` on first access.

    Parameters
    ----------
    namespace
        The package's ``globals()``; a loaded attribute is cached there.
    lazy
        Attribute name -> module defining it.  When the module is the package's submodule of
        that name (``pkg.name``), the attribute is that module's ``name`` if it has one (a
        function named like its module, e.g. ``mechanisms.r2t``), else the module itself.
    public
        The package's ``__all__``, listed by ``dir()``.
    """
    package = namespace["__name__"]

    def __getattr__(name: str) -> Any:
        if name not in lazy:
            raise AttributeError(f"module {package!r} has no attribute {name!r}")
        module = import_module(lazy[name])
        value = _exported(module, package, name)
        namespace[name] = value
        return value

    # Importing ``pkg.r2t`` (anywhere) binds the package attribute ``r2t`` to the submodule; the
    # package keeps exporting the function of that name instead, as an eager import would.
    this = sys.modules.get(package)
    if this is not None and type(this) is types.ModuleType:
        this.__class__ = _make_package_type(lazy)

    def __dir__() -> list[str]:
        return sorted(public)

    return __getattr__, __dir__


def _exported(module: types.ModuleType, package: str, name: str) -> Any:
    """What ``package.name`` exports when ``module`` defines it (see :func:`lazy_attributes`)."""
    if module.__name__ == f"{package}.{name}":
        return getattr(module, name, module)
    return getattr(module, name)


def _make_package_type(lazy: Mapping[str, str]) -> type[types.ModuleType]:
    """A module type whose submodule bindings never hide a lazily exported function."""

    class LazyPackage(types.ModuleType):
        def __setattr__(self, name: str, value: Any) -> None:
            if name in lazy and isinstance(value, types.ModuleType):
                value = _exported(value, self.__name__, name)
            super().__setattr__(name, value)

    return LazyPackage
