"""Deprecated path: ``dpcount.triples`` moved to :mod:`dpcount.io.triples`.

This shim keeps old imports working for one release and warns once.
"""

from __future__ import annotations

import warnings

from dpcount.io.triples import (  # noqa: F401
    read_triples,
)

warnings.warn(
    "dpcount.triples moved to dpcount.io.triples; import it from there "
    "(this path goes in the next release)",
    DeprecationWarning,
    stacklevel=2,
)
