"""Package attributes imported on first access (PEP 562), so that importing a package is light.

Examples
--------
>>> namespace = {"__name__": "pkg"}
>>> getattr_, dir_ = lazy_attributes(namespace, {"sqrt": "math"}, ["sqrt"])
>>> getattr_("sqrt")(4.0), "sqrt" in namespace, dir_()
(2.0, True, ['sqrt'])
"""

from __future__ import annotations

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
        that name (``pkg.name``), the attribute is the module itself.
    public
        The package's ``__all__``, listed by ``dir()``.
    """
    package = namespace["__name__"]

    def __getattr__(name: str) -> Any:
        if name not in lazy:
            raise AttributeError(f"module {package!r} has no attribute {name!r}")
        module = import_module(lazy[name])
        value = module if module.__name__ == f"{package}.{name}" else getattr(module, name)
        namespace[name] = value
        return value

    def __dir__() -> list[str]:
        return sorted(public)

    return __getattr__, __dir__
