"""Deprecated path: ``dpcount.text`` moved to :mod:`dpcount.io.tokens`.

This module keeps old imports working for one release: each name taken from it warns
with a :class:`DeprecationWarning` (importing the module alone does not, so that tools scanning
every module stay quiet).
"""

from __future__ import annotations

import warnings
from typing import Any

import dpcount.io.tokens as _moved


def __getattr__(name: str) -> Any:
    value = getattr(_moved, name)
    warnings.warn(
        f"dpcount.text.{name} moved to dpcount.io.tokens; import it from there "
        "(this path goes in the next release)",
        DeprecationWarning,
        stacklevel=2,
    )
    return value
