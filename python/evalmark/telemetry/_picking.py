"""Which calls a monitor scores: decided from the seed and the call's number alone.

Calls are taken in blocks of 4096. The picked positions of a block are the successes of a
Bernoulli(``rate``) process drawn by geometric gaps from a ``random.Random`` seeded with
splitmix64(splitmix64(seed) xor block), so the same seed picks the same calls in every process
whatever the thread timing, and deciding costs one table look-up. With a request key, a request
is picked when a keyed hash of it falls below ``rate``.
"""

from __future__ import annotations

import hashlib
import math
import random
import threading

__all__ = ["BLOCK_BITS", "IN_BLOCK", "CallPicker"]

_MASK = (1 << 64) - 1
BLOCK_BITS = 12
_BLOCK = 1 << BLOCK_BITS
IN_BLOCK = _BLOCK - 1  # a call's position in its block: index & IN_BLOCK
_KEPT_BLOCKS = 64


class CallPicker:
    """Decides, for a seed and a rate, whether call ``index`` (or a request key) is picked.

    ``blocks`` maps a block number to its marks (1 at the picked positions); a caller on a hot
    path may read it directly and fall back to :meth:`block` when a block is missing.
    """

    def __init__(self, rate: float, seed: int) -> None:
        self.rate = rate
        self.seed = seed
        self.threshold = (1 << 64) if rate >= 1.0 else int(rate * (1 << 64))  # for keys
        self.blocks: dict[int, bytes] = {}
        self._seed_mix = _splitmix64(seed & _MASK)
        self._lock = threading.Lock()

    def picks(self, index: int, key: object = None) -> bool:
        """True when call ``index`` (or, with ``key``, the request with this key) is picked."""
        if self.threshold == 0:
            return False
        if key is not None:
            digest = hashlib.blake2b(repr(key).encode(), digest_size=8, key=b"%d" % self.seed)
            return int.from_bytes(digest.digest(), "little") < self.threshold
        marks = self.blocks.get(index >> BLOCK_BITS) or self.block(index >> BLOCK_BITS)
        return bool(marks[index & IN_BLOCK])

    def block(self, block: int) -> bytes:
        """The marks of ``block``, drawn and kept (the most recent 64 blocks are kept)."""
        marks = _block_marks(self._seed_mix, block, self.rate)
        with self._lock:
            if len(self.blocks) >= _KEPT_BLOCKS:
                del self.blocks[min(self.blocks)]
            self.blocks[block] = marks
        return marks


def _block_marks(seed_mix: int, block: int, rate: float) -> bytes:
    """1 at the picked positions of ``block``, 0 elsewhere."""
    if rate >= 1.0:
        return b"\x01" * _BLOCK
    marks = bytearray(_BLOCK)
    draw = random.Random(_splitmix64(seed_mix ^ block)).random
    log_miss = math.log1p(-rate)
    position = -1
    while True:
        # The number of misses before the next pick is geometric: floor(log(1 - u) / log(1 - p)).
        position += 1 + int(math.log1p(-draw()) / log_miss)
        if position >= _BLOCK:
            return bytes(marks)
        marks[position] = 1


def _splitmix64(value: int) -> int:
    z = (value + 0x9E3779B97F4A7C15) & _MASK
    z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & _MASK
    z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & _MASK
    return z ^ (z >> 31)
