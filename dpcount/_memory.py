"""Deprecated path: ``dpcount._memory`` moved to :mod:`dpcount.common.memory`.

This shim keeps old imports working for one release and warns once.
"""

from __future__ import annotations

import warnings

from dpcount.common.memory import (  # noqa: F401
    release_free_memory,
)

warnings.warn(
    "dpcount._memory moved to dpcount.common.memory; import it from there "
    "(this path goes in the next release)",
    DeprecationWarning,
    stacklevel=2,
)
