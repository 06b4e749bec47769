"""Deprecated path: ``dpcount._jit`` moved to :mod:`dpcount.common.jit`.

This shim keeps old imports working for one release and warns once.
"""

from __future__ import annotations

import warnings

from dpcount.common.jit import (  # noqa: F401
    CACHE_ENV,
    INTERPRETED_BUDGET_CALLS,
    SMALL_PAIRS,
    Kernel,
    cache_dir,
    default_cache_dir,
    kernel,
)

warnings.warn(
    "dpcount._jit moved to dpcount.common.jit; import it from there "
    "(this path goes in the next release)",
    DeprecationWarning,
    stacklevel=2,
)
