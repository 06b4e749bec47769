"""Deprecated path: ``dpcount._rng`` moved to :mod:`dpcount.common.rng`.

This shim keeps old imports working for one release and warns once.
"""

from __future__ import annotations

import warnings

from dpcount.common.rng import (  # noqa: F401
    RNGLike,
    as_generator,
    draw_key,
    seed_sequence,
    spawn,
)

_seed_sequence = seed_sequence

warnings.warn(
    "dpcount._rng moved to dpcount.common.rng; import it from there "
    "(this path goes in the next release)",
    DeprecationWarning,
    stacklevel=2,
)
