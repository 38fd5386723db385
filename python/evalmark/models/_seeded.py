"""Counter-based random draws: each draw is a pure function of a seed and a tuple of labels.

Nothing here keeps state, so the same (seed, labels) gives the same number on any machine, in
any process, whatever the order in which draws are made or the thread that makes them.
"""

from __future__ import annotations

import hashlib
import struct

_SCALE = float(1 << 53)


def _digest(seed: int, labels: tuple[object, ...]) -> bytes:
    h = hashlib.blake2b(digest_size=16, person=b"evalmark-draw")
    h.update(str(int(seed)).encode())
    for label in labels:
        text = repr(label) if not isinstance(label, str) else label
        data = text.encode("utf-8", "surrogatepass")
        h.update(struct.pack("<Q", len(data)))
        h.update(data)
    return h.digest()


def uniform(seed: int, *labels: object) -> float:
    """A number in [0, 1) determined only by ``seed`` and ``labels`` (53 random bits)."""
    word = int.from_bytes(_digest(seed, labels)[:8], "little")
    return (word >> 11) / _SCALE


def randbelow(n: int, seed: int, *labels: object) -> int:
    """An integer in [0, n) determined only by ``seed`` and ``labels``."""
    if n <= 0:
        raise ValueError(f"randbelow needs a positive bound, got {n}")
    return min(int(uniform(seed, *labels) * n), n - 1)
