"""Deprecated path: ``dpcount._lazy`` moved to :mod:`dpcount.common.lazy`.

This module keeps old imports working for one release: each name taken from it warns
with a :class:`DeprecationWarning` (importing the module alone does not, so that tools scanning
every module stay quiet).
"""

from __future__ import annotations

import warnings
from typing import Any

import dpcount.common.lazy as _moved


def __getattr__(name: str) -> Any:
    value = getattr(_moved, name)
    warnings.warn(
        f"dpcount._lazy.{name} moved to dpcount.common.lazy; import it from there "
        "(this path goes in the next release)",
        DeprecationWarning,
        stacklevel=2,
    )
    return value
