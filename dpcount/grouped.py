"""Deprecated path: ``dpcount.grouped`` moved to :mod:`dpcount.graph.grouped`.

This shim keeps old imports working for one release and warns once.
"""

from __future__ import annotations

import warnings

from dpcount.graph.grouped import (  # noqa: F401
    GroupedGraph,
)

warnings.warn(
    "dpcount.grouped moved to dpcount.graph.grouped; import it from there "
    "(this path goes in the next release)",
    DeprecationWarning,
    stacklevel=2,
)
