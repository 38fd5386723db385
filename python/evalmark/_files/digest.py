"""The SHA-256 of a file, read in chunks: hashing a file of any size holds one chunk."""

from __future__ import annotations

import hashlib
import os

__all__ = ["file_sha256"]

_CHUNK = 1 << 20


def file_sha256(path: str | os.PathLike[str]) -> str:
    """The hex SHA-256 of the file's bytes, read a megabyte at a time (``OSError`` when the
    file cannot be read)."""
    digest = hashlib.sha256()
    with open(path, "rb") as handle:
        while chunk := handle.read(_CHUNK):
            digest.update(chunk)
    return digest.hexdigest()
