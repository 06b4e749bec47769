"""The randomness policy of docs/concepts.md: what ``rng=`` means in every signature.

``rng=None`` draws a fresh seed from the operating system (:mod:`secrets`), an ``int`` seeds a
reproducible generator, a :class:`numpy.random.Generator` is used as given (and advanced), and a
:class:`numpy.random.SeedSequence` is *spawned*: every call takes a new child, so passing the same
SeedSequence to two releases gives two independent draws, never the same noise twice.  A mechanism
that draws more than once takes independent child streams from :func:`spawn`, never one stream
reused for two purposes.

Examples
--------
>>> a, b = spawn(7, 2)  # two children: two streams (equal draws from 2**62 values: ~1e-19)
>>> int(a.integers(2**62)) != int(b.integers(2**62))
True
>>> [int(g.integers(2**62)) for g in spawn(7, 2)] == [int(g.integers(2**62)) for g in spawn(7, 2)]
True
>>> int(as_generator(3).integers(10**6)) == int(as_generator(3).integers(10**6))
True
>>> seq = np.random.SeedSequence(5)
>>> int(as_generator(seq).integers(10**9)) == int(as_generator(seq).integers(10**9))
False
"""

from __future__ import annotations

import secrets
from typing import TypeAlias

import numpy as np

from dpcount.errors import InvalidParameterError

__all__ = ["RNGLike", "as_generator", "draw_key", "seed_sequence", "spawn"]

#: What every ``rng=`` parameter takes: None (fresh OS entropy), a non-negative int seed, a
#: Generator (used as given) or a SeedSequence (a new child per call); see the module docstring.
RNGLike: TypeAlias = int | np.random.Generator | np.random.SeedSequence | None


def seed_sequence(rng: RNGLike) -> np.random.SeedSequence:
    """The :class:`numpy.random.SeedSequence` a non-Generator ``rng`` stands for.

    ``None`` is 128 bits of fresh operating-system entropy, an int seeds the sequence, and a
    SeedSequence gives a new child on every call.  A Generator has no seed sequence to give
    (use :func:`spawn` for streams derived from it).

    Examples
    --------
    >>> seed_sequence(9).entropy
    9
    >>> seq = np.random.SeedSequence(5)
    >>> seed_sequence(seq).spawn_key != seed_sequence(seq).spawn_key
    True
    """
    if rng is None:
        return np.random.SeedSequence(secrets.randbits(128))
    if isinstance(rng, np.random.SeedSequence):
        # A fresh child per call: reusing the sequence itself would repeat the same noise.
        return rng.spawn(1)[0]
    if isinstance(rng, int | np.integer) and not isinstance(rng, bool):
        if rng < 0:
            raise InvalidParameterError(f"an integer rng seed must be >= 0, got {rng}")
        return np.random.SeedSequence(int(rng))
    raise InvalidParameterError(
        "rng must be None, a non-negative int, a numpy Generator or a SeedSequence, "
        f"got {type(rng).__name__}"
    )


def as_generator(rng: RNGLike) -> np.random.Generator:
    """A :class:`numpy.random.Generator` following the policy above."""
    if isinstance(rng, np.random.Generator):
        return rng
    return np.random.default_rng(seed_sequence(rng))


def spawn(rng: RNGLike, n: int) -> list[np.random.Generator]:
    """``n`` statistically independent child generators of ``rng``."""
    if isinstance(rng, np.random.Generator):
        return list(rng.spawn(n))
    return [np.random.default_rng(s) for s in seed_sequence(rng).spawn(n)]


def draw_key(rng: RNGLike) -> np.uint64:
    """One 64-bit key from ``rng`` following the policy above.

    ``None`` takes 64 bits of fresh operating-system entropy; otherwise the key is the first
    draw of :func:`as_generator` (so a SeedSequence gives a new child's key on every call).

    Examples
    --------
    >>> int(draw_key(4)) == int(draw_key(4))
    True
    >>> seq = np.random.SeedSequence(4)
    >>> int(draw_key(seq)) == int(draw_key(seq))
    False
    """
    if rng is None:
        return np.uint64(secrets.randbits(64))
    gen = as_generator(rng)
    return np.uint64(gen.integers(0, 2**64 - 1, dtype=np.uint64, endpoint=True))
