"""Deprecated path: ``dpcount._rng`` moved to :mod:`dpcount.common.rng`.

This module keeps old imports working for one release: each name taken from it warns
with a :class:`DeprecationWarning` (importing the module alone does not, so that tools scanning
every module stay quiet).
"""

from __future__ import annotations

import warnings
from typing import Any

import dpcount.common.rng as _moved

_RENAMED = {"_seed_sequence": "seed_sequence"}


def __getattr__(name: str) -> Any:
    value = getattr(_moved, _RENAMED.get(name, name))
    warnings.warn(
        f"dpcount._rng.{name} moved to dpcount.common.rng; import it from there "
        "(this path goes in the next release)",
        DeprecationWarning,
        stacklevel=2,
    )
    return value
