"""The checksum file that pins the text of every catalog prompt.

``catalog.sha256`` (next to the ``catalog`` folder) holds one line per prompt file, in the
format of ``sha256sum``: ``<hex digest>  catalog/<name>.md``, sorted by name. A test fails
when a prompt's text changes and the file was not updated with it: change a prompt on
purpose, then run ``python tools/pin_prompts.py`` (or ``sha256sum catalog/*.md``) to update it.
"""

from __future__ import annotations

import hashlib
from pathlib import Path

from evalmark._files.atomic import write_atomically
from evalmark.models._prompts.catalog import CATALOG_DIR

__all__ = ["CHECKSUM_FILE", "checksum_lines", "pinned_problems", "write_checksums"]

CHECKSUM_FILE = CATALOG_DIR.parent / "catalog.sha256"


def _digest(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def checksum_lines(directory: Path = CATALOG_DIR) -> list[str]:
    """The checksum lines the prompt files of ``directory`` have now."""
    return [
        f"{_digest(path)}  {directory.name}/{path.name}" for path in sorted(directory.glob("*.md"))
    ]


def _pinned(checksums: Path) -> dict[str, str]:
    pinned: dict[str, str] = {}
    for line in checksums.read_text(encoding="utf-8").splitlines():
        if line.strip():
            digest, _, name = line.partition("  ")
            pinned[name.strip()] = digest.strip()
    return pinned


def pinned_problems(directory: Path = CATALOG_DIR, checksums: Path = CHECKSUM_FILE) -> list[str]:
    """What differs between the prompt files and the checksum file, one line each (empty when
    every prompt is pinned as it is)."""
    if not checksums.exists():
        return [f"{checksums}: no checksum file; run python tools/pin_prompts.py"]
    pinned = _pinned(checksums)
    problems: list[str] = []
    current: dict[str, str] = {}
    for line in checksum_lines(directory):
        digest, _, name = line.partition("  ")
        current[name] = digest
    for name, digest in current.items():
        if name not in pinned:
            problems.append(f"{name}: a new prompt, not in {checksums.name}")
        elif pinned[name] != digest:
            problems.append(f"{name}: its text changed since it was pinned in {checksums.name}")
    for name in pinned:
        if name not in current:
            problems.append(f"{name}: pinned in {checksums.name} but the file is gone")
    return problems


def write_checksums(directory: Path = CATALOG_DIR, checksums: Path = CHECKSUM_FILE) -> Path:
    """Pin the prompt files as they are now (rewrites the checksum file)."""
    text = "\n".join(checksum_lines(directory)) + "\n"
    write_atomically(checksums, text.encode("utf-8"))
    return checksums
