"""Compiled kernels on demand: numba is imported, and a kernel compiled, on its first call.

The sequential loops of ``matching`` and ``mechanisms`` (augmenting paths, greedy rounds, the
set-union policies, GEM's envelope) are numba kernels.  Declaring them with :func:`kernel`
instead of ``numba.njit`` keeps ``import matching``, ``import mechanisms`` and ``dpcount --help``
free of numba: nothing is imported or compiled until a kernel is first called, and then only
that kernel and the kernels it calls.  Each kernel declares its signature, so it is compiled
exactly once (a helper called with slightly different argument types would otherwise be
compiled again) and the compiled code is written to numba's on-disk cache, where the next
process finds it.

Compiled kernels release the GIL while they run, so Python threads can run two at once (the
halves of one pass over a large graph, on two cores).

Each kernel compiled on its own costs about 0.1 s on a first run, and a kernel that calls
another links the callee's code in and optimises it again.  A small helper is therefore
declared ``inline=True``: numba types it into each caller and never compiles it alone.

A kernel calls only kernels of its own module: numba checks a cached kernel against its own
source file only, so a helper from another file could change without the caller noticing.

Where the cache lives
    If ``NUMBA_CACHE_DIR`` is set, numba uses it and dpcount does not touch it.  Otherwise,
    before importing numba, dpcount sets it to ``platformdirs.user_cache_dir("dpcount")/numba``
    (e.g. ``~/.cache/dpcount/numba`` on Linux) when that directory can be created and written,
    so that installs into a read-only ``site-packages`` still cache.  If it cannot, the
    variable stays unset and numba falls back to its own choice (``__pycache__`` beside the
    source or its user-wide directory); if numba finds no writable place either, kernels are
    compiled without caching.  The variable is process-wide, so other numba code in the same
    process caches there too.

Examples
--------
>>> import numpy as np
>>> @kernel("(ro(int64[::1]),)")
... def total(values):
...     s = 0
...     for v in values:
...         s += v
...     return s
>>> total(np.arange(5)), int(total.interpreted(np.arange(5)))
(10, 10)
"""

from __future__ import annotations

import os
import sys
import threading
import types
from collections.abc import Callable, Iterator, MutableMapping
from contextlib import contextmanager
from pathlib import Path
from typing import Any

__all__ = [
    "CACHE_ENV",
    "INTERPRETED_BUDGET_CALLS",
    "SMALL_PAIRS",
    "Kernel",
    "before_compiling",
    "cache_dir",
    "default_cache_dir",
    "is_cached",
    "kernel",
]

#: The environment variable numba reads its cache directory from.
CACHE_ENV = "NUMBA_CACHE_DIR"
#: Inputs with fewer (person, item) pairs run a per-pair kernel interpreted (a fraction of a
#: second) where compiling costs seconds per kernel (``benchmarks/results/first_call.md``):
#: the ``interpret_below`` of the graph kernels in ``matching`` and ``mechanisms.set_union``.
SMALL_PAIRS = 50_000
#: A kernel runs interpreted for small inputs until it has done this many largest-small calls'
#: worth of work in the process; then compiling pays off (see :meth:`Kernel.select`).
INTERPRETED_BUDGET_CALLS = 20


def default_cache_dir() -> Path:
    """dpcount's own cache directory for compiled kernels: ``user_cache_dir("dpcount")/numba``."""
    import platformdirs

    return Path(platformdirs.user_cache_dir("dpcount")) / "numba"


def _writable_dir(path: Path) -> bool:
    """Whether ``path`` exists (or can be created) and a file can be written in it."""
    import tempfile

    try:
        path.mkdir(parents=True, exist_ok=True)
        with tempfile.TemporaryFile(dir=path):
            pass
    except OSError:
        return False
    return True


def cache_dir(environ: MutableMapping[str, str] | None = None) -> str | None:
    """Choose numba's cache directory before numba is imported; return it (None: numba's own).

    Honours a non-empty ``NUMBA_CACHE_DIR``; otherwise sets it to :func:`default_cache_dir` if
    that is writable, and leaves it unset if not.

    Parameters
    ----------
    environ
        The environment to read and update (default :data:`os.environ`).

    Examples
    --------
    >>> cache_dir({"NUMBA_CACHE_DIR": "/tmp/kernels"})
    '/tmp/kernels'
    """
    env = os.environ if environ is None else environ
    chosen = env.get(CACHE_ENV)
    if chosen:
        return chosen
    candidate = default_cache_dir()
    if not _writable_dir(candidate):
        return None
    env[CACHE_ENV] = str(candidate)
    return str(candidate)


_numba_ready = False
#: Held while a kernel is compiled or loaded (re-entrant: a kernel builds its callees first).
_COMPILING = threading.RLock()
#: Called with each kernel just before this process builds it (see :func:`before_compiling`).
_BEFORE_COMPILING: list[Callable[[Kernel], None]] = []


@contextmanager
def before_compiling(hook: Callable[[Kernel], None]) -> Iterator[None]:
    """Call ``hook(kernel)`` before each kernel is built (compiled, or loaded from the cache)
    in this process while the block runs.

    The command line uses it to say, once, that a first run compiles, and to wait for kernels
    that a background process is compiling (:mod:`dpcount.common.precompile`).  Hooks run
    under the compile lock, callees before their callers.
    """
    _BEFORE_COMPILING.append(hook)
    try:
        yield
    finally:
        _BEFORE_COMPILING.remove(hook)


def is_cached(kernel: Kernel, environ: MutableMapping[str, str] | None = None) -> bool:
    """Whether numba's on-disk cache holds ``kernel``, without importing numba.

    Looks for numba's index file of the function (``module.name-LINE.pyXY.nbi``) in the cache
    directory (:func:`cache_dir`) and in ``__pycache__`` beside the source.  A cheap estimate:
    an index left by an older version of the source counts as cached, so a caller may compile
    where it expected to load, never the other way round.

    Examples
    --------
    >>> @kernel("(int64,)")
    ... def never_compiled(x):
    ...     return x
    >>> is_cached(never_compiled)
    False
    """
    code = kernel.py_func.__code__
    source = Path(code.co_filename)
    # numba's file name: the module file's stem, the qualified name without "<>", the line
    name = f"{source.stem}.{kernel.__qualname__}".replace("<", "").replace(">", "")
    index = f"{name}-{code.co_firstlineno}.py{sys.version_info[0]}{sys.version_info[1]}*.nbi"
    folders = [source.parent / "__pycache__"]
    chosen = cache_dir(environ)
    if chosen and Path(chosen).is_dir():  # numba's folder per source directory inside it
        folders += [path for path in Path(chosen).iterdir() if path.is_dir()]
    return any(next(folder.glob(index), None) is not None for folder in folders)


def _numba() -> Any:
    """Import numba after choosing its cache directory (once per process)."""
    global _numba_ready
    if not _numba_ready:
        imported_before = "numba" in sys.modules
        chosen = cache_dir()
        import numba

        if imported_before and chosen and getattr(numba.config, "CACHE_DIR", None) != chosen:
            numba.core.config.reload_config()  # numba read its configuration before us
        _numba_ready = True
    else:
        import numba
    return numba


def _signature(text: str, numba: Any) -> Any:
    """A numba signature from text in numba's type names; ``ro(t)`` makes array ``t`` read-only."""
    namespace = dict(vars(numba.types))
    namespace["ro"] = lambda array: array.copy(readonly=True)
    return eval(text, {"__builtins__": {}}, namespace)


class Kernel:
    """A function compiled with ``numba.njit`` for one signature on its first call.

    Call it like the function.  :attr:`compiled` is the numba dispatcher (compiling on first
    access), :attr:`interpreted` the same code run by the Python interpreter — with the kernels
    it calls interpreted too — for small inputs, where compiling costs more than it saves, and
    for bounds-checked testing.  Both give the same results.
    """

    def __init__(
        self,
        function: Callable[..., Any],
        signature: str,
        interpret_below: int,
        inline: bool = False,
        twin: Callable[..., Any] | None = None,
    ) -> None:
        self.py_func = function
        self.signature = signature
        self.interpret_below = interpret_below
        self.inline = inline
        self._inlined: Callable[..., Any] | None = None
        self._interpreted_work = 0
        self._compiled: Callable[..., Any] | None = None
        self._interpreted: Callable[..., Any] | None = twin
        self.__name__ = function.__name__
        self.__qualname__ = function.__qualname__
        self.__module__ = function.__module__
        self.__doc__ = function.__doc__
        self.__wrapped__ = function

    def _with_callees(self, resolve: Callable[[Kernel], Any]) -> Callable[..., Any]:
        """The function with every kernel it names replaced by ``resolve(kernel)``.

        A copy with its own globals, so the module's names stay :class:`Kernel` objects.
        """
        code = self.py_func.__code__
        namespace = dict(self.py_func.__globals__)
        for name in code.co_names:
            value = namespace.get(name)
            if isinstance(value, Kernel):
                namespace[name] = resolve(value)
        function = types.FunctionType(
            code, namespace, code.co_name, self.py_func.__defaults__, self.py_func.__closure__
        )
        function.__qualname__ = self.py_func.__qualname__
        function.__module__ = self.py_func.__module__
        function.__doc__ = self.py_func.__doc__
        return function

    def callees(self) -> set[Kernel]:
        """The kernels this one calls, directly or through others (the ones built with it)."""
        found: set[Kernel] = set()
        todo = [self]
        while todo:
            current = todo.pop()
            namespace = current.py_func.__globals__
            for name in current.py_func.__code__.co_names:
                value = namespace.get(name)
                if isinstance(value, Kernel) and value not in found and value is not self:
                    found.add(value)
                    todo.append(value)
        return found

    @property
    def compiled(self) -> Callable[..., Any]:
        """The numba dispatcher, compiled (or loaded from the cache) on first access."""
        if self._compiled is None:
            with _COMPILING:  # threads calling a new kernel at once build it once
                if self._compiled is None:
                    for hook in list(_BEFORE_COMPILING):
                        hook(self)
                    self._compiled = self._compile()
        return self._compiled

    def _compile(self) -> Callable[..., Any]:
        """A numba dispatcher of the function, its callees compiled first."""
        numba = _numba()
        # The kernels this one calls must be compiled dispatchers (or inline) when numba types it.
        function = self._with_callees(_as_callee)
        signature = _signature(self.signature, numba)
        try:
            compiled = numba.njit(signature, cache=True, nogil=True)(function)
        except RuntimeError as exc:  # numba found no writable cache location at all
            if "cannot cache" not in str(exc):
                raise
            compiled = numba.njit(signature, nogil=True)(function)
        return compiled

    @property
    def inlined(self) -> Callable[..., Any]:
        """The function as numba inlines it into each caller (``inline="always"``): typed with
        the caller, never compiled on its own."""
        if self._inlined is None:
            self._inlined = _numba().njit(inline="always")(self._with_callees(_as_callee))
        return self._inlined

    @property
    def interpreted(self) -> Callable[..., Any]:
        """The same code run by the Python interpreter, its callees interpreted as well."""
        if self._interpreted is None:
            self._interpreted = self._with_callees(lambda callee: callee.interpreted)
        return self._interpreted

    @property
    def is_compiled(self) -> bool:
        """Whether :attr:`compiled` has been built in this process."""
        return self._compiled is not None

    def select(self, work: int) -> Callable[..., Any]:
        """The form to run a call of size ``work`` with: interpreted while that is cheaper.

        Interpreted for ``work < interpret_below`` until this process has interpreted
        ``INTERPRETED_BUDGET_CALLS`` such calls' worth of work (a loop over many small inputs
        is worth compiling for); compiled otherwise, and always once compiled.  Both forms run
        the same code, so the choice never changes a result.

        Examples
        --------
        >>> @kernel("(int64,)", interpret_below=10)
        ... def twice(x):
        ...     return 2 * x
        >>> twice.select(3) is twice.interpreted, twice.select(3)(4)
        (True, 8)
        """
        if (
            self._compiled is None
            and work < self.interpret_below
            and self._interpreted_work + work <= INTERPRETED_BUDGET_CALLS * self.interpret_below
        ):
            self._interpreted_work += work
            return self.interpreted
        return self.compiled

    def __call__(self, *args: Any) -> Any:
        return self.compiled(*args)

    def __reduce__(self) -> tuple[Callable[[str, str], Kernel], tuple[str, str]]:
        """Pickle by reference (module and name), as functions are."""
        return _kernel_named, (self.__module__, self.__qualname__)

    def __repr__(self) -> str:
        return f"<dpcount kernel {self.__module__}.{self.__qualname__}{self.signature}>"


def _as_callee(kernel: Kernel) -> Callable[..., Any]:
    """What a compiled caller calls: the kernel's dispatcher, or its inline form."""
    return kernel.inlined if kernel.inline else kernel.compiled


def _kernel_named(module: str, name: str) -> Kernel:
    """The kernel ``module.name`` (what a pickled :class:`Kernel` refers to)."""
    import importlib

    found = getattr(importlib.import_module(module), name)
    if not isinstance(found, Kernel):
        raise TypeError(f"{module}.{name} is not a dpcount kernel")
    return found


def kernel(
    signature: str,
    *,
    interpret_below: int = 0,
    inline: bool = False,
    twin: Callable[..., Any] | None = None,
) -> Callable[[Callable[..., Any]], Kernel]:
    """Declare a numba kernel with its argument types, compiled on first call.

    Parameters
    ----------
    signature
        The argument types as a tuple in numba's type names, e.g.
        ``"(ro(int64[::1]), int32[::1], int64)"``; ``ro(...)`` marks an array the kernel only
        reads (read-only arrays such as a graph's ``indptr`` need it).  Arrays of other dtypes
        or layouts are rejected with numba's TypeError rather than compiled again.
    interpret_below
        Inputs smaller than this (in the caller's unit of work, e.g. pairs) may run
        interpreted, see :meth:`Kernel.select`: compiling costs about a second per kernel, the
        interpreter a few microseconds per unit.

    Returns
    -------
    callable
        A decorator turning the function into a :class:`Kernel`.
    """

    def wrap(function: Callable[..., Any]) -> Kernel:
        return Kernel(function, signature, interpret_below, inline, twin)

    return wrap
