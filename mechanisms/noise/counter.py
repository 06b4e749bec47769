"""Counter-based random streams: the uniform bits behind the exact discrete samplers.

Every exact discrete draw of :mod:`mechanisms.noise` reads its randomness from a *row stream*:
the 64-bit words

    word j of row r = Philox4x64-10(key, counter = (⌊j/4⌋, r, stream, 0))[j mod 4]

of the counter-based generator Philox4x64 with 10 rounds (Salmon, Moraes, Dror & Shaw,
"Parallel random numbers: as easy as 1, 2, 3", SC 2011; the same function as
:class:`numpy.random.Philox`).  A draw for row r depends only on the 128-bit ``key``, on r and
on ``stream`` — never on which other rows are drawn, in which order, or on which machine — so
Spark executors that know the per-release key and an item's row id (e.g. a keyed hash of its
label) draw exactly the noise the local code draws for that item.  Distinct rows (or streams)
give independent draws; the same (key, row, stream) gives the same draw, so a release must use
each row once per stream.

Philox is a keyed bijection of the counter with excellent statistical quality (it passes
TestU01's BigCrush), the class of generator NumPy itself uses; it is not a cryptographic PRF.
The key comes from operating-system entropy unless the caller seeds it (see :func:`noise_key`).

This module holds the pure-Python (arbitrary-precision) form of the stream; the compiled
samplers in :mod:`mechanisms.noise._kernels` run the same arithmetic on 64-bit words and are
tested to read the same bits.

Examples
--------
>>> key = noise_key(7)
>>> a, b = RowStream(key, row=3), RowStream(key, row=3)
>>> [a.bits(8) for _ in range(3)] == [b.bits(8) for _ in range(3)]  # same key, row: same bits
True
>>> hex(philox4x64((0, 0, 0, 0), (0, 0))[0])  # Random123's known-answer vector
'0x16554d9eca36314c'
"""

from __future__ import annotations

import secrets
from dataclasses import dataclass

import numpy as np

from dpcount.common.rng import RNGLike, as_generator
from dpcount.errors import InvalidParameterError

__all__ = [
    "STATE_SIZE",
    "NoiseKey",
    "RowStream",
    "noise_key",
    "noise_key_from_bytes",
    "philox4x64",
    "round_keys",
]

_MASK64 = (1 << 64) - 1
# Philox4x64 multipliers and Weyl key increments (Salmon et al. 2011, Table 2 and §5).
PHILOX_M0 = 0xD2E7470EE14C6C93
PHILOX_M1 = 0xCA5A826395121157
PHILOX_W0 = 0x9E3779B97F4A7C15
PHILOX_W1 = 0xBB67AE8584CAA73B
ROUNDS = 10
WORD_BITS = 64


@dataclass(frozen=True)
class NoiseKey:
    """A 128-bit Philox key (two 64-bit halves); keep it secret for a real release.

    ``repr`` hides the value so that a key does not end up in logs.

    Examples
    --------
    >>> NoiseKey(1, 2)
    NoiseKey(<128-bit secret>)
    """

    low: int
    high: int

    def __post_init__(self) -> None:
        for half in (self.low, self.high):
            if isinstance(half, bool) or not isinstance(half, int | np.integer):
                raise InvalidParameterError("a NoiseKey is two integers in [0, 2**64)")
            if not 0 <= int(half) <= _MASK64:
                raise InvalidParameterError("a NoiseKey is two integers in [0, 2**64)")
        object.__setattr__(self, "low", int(self.low))
        object.__setattr__(self, "high", int(self.high))

    def __repr__(self) -> str:
        return "NoiseKey(<128-bit secret>)"


def noise_key(rng: RNGLike = None) -> NoiseKey:
    """A fresh key: 128 bits of operating-system entropy for ``None``, else drawn from ``rng``.

    An int seed or a Generator gives a reproducible key (research and tests); a SeedSequence
    gives a new child's key on every call (docs/concepts.md).

    Examples
    --------
    >>> noise_key(3) == noise_key(3), noise_key(None) == noise_key(None)
    (True, False)
    """
    if rng is None:
        return NoiseKey(secrets.randbits(64), secrets.randbits(64))
    words = as_generator(rng).integers(0, 2**64, size=2, dtype=np.uint64)
    return NoiseKey(int(words[0]), int(words[1]))


def noise_key_from_bytes(secret: bytes) -> NoiseKey:
    """The key made of the first 16 bytes of ``secret`` (little-endian halves).

    For callers that already hold a secret per release (e.g. a 256-bit Spark release key).

    Examples
    --------
    >>> noise_key_from_bytes(bytes(range(16))) == noise_key_from_bytes(bytes(range(32)))
    True
    """
    if not isinstance(secret, bytes) or len(secret) < 16:
        raise InvalidParameterError("a noise key needs at least 16 bytes of secret")
    return NoiseKey(int.from_bytes(secret[:8], "little"), int.from_bytes(secret[8:16], "little"))


def round_keys(key: NoiseKey) -> list[int]:
    """The ten Philox round keys (k0, k1 for each round), the key bumped by the Weyl constants.

    Examples
    --------
    >>> round_keys(NoiseKey(0, 0))[2:4] == [PHILOX_W0, PHILOX_W1]
    True
    """
    out = []
    for r in range(ROUNDS):
        out += [(key.low + r * PHILOX_W0) & _MASK64, (key.high + r * PHILOX_W1) & _MASK64]
    return out


def philox4x64(counter: tuple[int, int, int, int], key: tuple[int, int]) -> list[int]:
    """Philox4x64-10 of a 256-bit counter under a 128-bit key (four 64-bit output words).

    Salmon et al. (2011), §5: each round multiplies counter words 0 and 2 by M0 and M1 (full
    128-bit products) and mixes the halves with words 1 and 3 and the round key.

    Examples
    --------
    >>> bg = np.random.Philox(key=np.array([5, 6], dtype=np.uint64))  # counter starts at 0
    >>> philox4x64((1, 0, 0, 0), (5, 6)) == bg.random_raw(4).tolist()  # numpy bumps it first
    True
    """
    x0, x1, x2, x3 = (int(c) & _MASK64 for c in counter)
    return _philox_with_round_keys((x0, x1, x2, x3), round_keys(NoiseKey(*key)))


#: Layout of a row stream's state (compiled: a uint64 array; interpreted: a list of ints):
#: words read, bit reservoir, bits left in it, the current block (4 words), the 20 round keys,
#: the row id and the stream id.
STATE_SIZE = 29
_KEYS, _ROW, _STREAM = 7, 27, 28


def new_state(keys: list[int], row: int, stream: int) -> list[int]:
    """A row stream's state before its first word (layout :data:`STATE_SIZE`)."""
    return [0] * 7 + list(keys) + [int(row) & _MASK64, int(stream) & _MASK64]


def stream_bits(state: list[int], take: int) -> int:
    """The next ``take`` ≤ 32 bits of a row stream, in Python ints (twin of the compiled one).

    Bits come from a reservoir holding the unread bits of the current word, lowest first; when
    it holds fewer than ``take`` bits they are dropped and the next word is loaded (dropping
    independent uniform bits keeps the rest uniform).  Words are generated four at a time:
    word j is word j mod 4 of the Philox block of counter (⌊j/4⌋, row, stream, 0).
    """
    if state[2] < take:
        j = state[0]
        if j % 4 == 0:
            counter = (j // 4, state[_ROW], state[_STREAM], 0)
            state[3:7] = _philox_with_round_keys(counter, state[_KEYS:_ROW])
        state[1] = state[3 + j % 4]
        state[0] = j + 1
        state[2] = WORD_BITS
    value = state[1] & ((1 << take) - 1)
    state[1] >>= take
    state[2] -= take
    return value


def _philox_with_round_keys(counter: tuple[int, int, int, int], keys: list[int]) -> list[int]:
    """:func:`philox4x64` with the round keys precomputed by :func:`round_keys`."""
    x0, x1, x2, x3 = counter
    for r in range(ROUNDS):
        p0, p1 = PHILOX_M0 * x0, PHILOX_M1 * x2
        x0, x1, x2, x3 = (
            (p1 >> 64) ^ x1 ^ keys[2 * r],
            p1 & _MASK64,
            (p0 >> 64) ^ x3 ^ keys[2 * r + 1],
            p0 & _MASK64,
        )
    return [x0, x1, x2, x3]


class RowStream:
    """The uniform bits of one row, in Python ints (for tests and arbitrary-precision draws).

    Parameters
    ----------
    key
        The release's :class:`NoiseKey`.
    row
        The row id in [0, 2⁶⁴).
    stream
        A stream id in [0, 2⁶⁴) separating independent draws for the same rows.
    """

    def __init__(self, key: NoiseKey, row: int, stream: int = 0) -> None:
        self.state = new_state(round_keys(key), row, stream)

    def bits(self, take: int) -> int:
        """The next ``take`` bits (1 ≤ take ≤ 32) as an int."""
        if not 1 <= take <= 32:
            raise InvalidParameterError(f"take must lie in [1, 32], got {take}")
        return stream_bits(self.state, take)
