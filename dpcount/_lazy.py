"""Deprecated path: ``dpcount._lazy`` moved to :mod:`dpcount.common.lazy`.

This shim keeps old imports working for one release and warns once.
"""

from __future__ import annotations

import warnings

from dpcount.common.lazy import (  # noqa: F401
    lazy_attributes,
)

warnings.warn(
    "dpcount._lazy moved to dpcount.common.lazy; import it from there "
    "(this path goes in the next release)",
    DeprecationWarning,
    stacklevel=2,
)
